//! `hermit broker`: load the configuration, open (and recover) the data
//! directory, serve until SIGINT/SIGTERM, drain, fsync, release the lock.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use hermit_broker::config::{Config, LogFormat};
use hermit_broker::engine::Engine;
use hermit_broker::log::LogOptions;
use hermit_broker::net::Server;
use tokio::signal::unix::{SignalKind, signal};

use crate::exit::{ExitClass, USAGE};

/// Flags of `hermit broker`. Each overrides the config file and `HERMIT_*`.
#[derive(Debug, clap::Args)]
pub struct BrokerArgs {
    /// TOML configuration file (see docs/OPERATIONS.md for every key).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Address to listen on [default: 127.0.0.1:9092].
    #[arg(long, value_name = "ADDR")]
    listen: Option<String>,
    /// Data directory [default: ./hermit-data].
    #[arg(long, value_name = "DIR")]
    data_dir: Option<String>,
    /// fsync policy: always | interval:MS | never [default: always].
    #[arg(long, value_name = "POLICY")]
    fsync: Option<String>,
    /// Log format: text | json [default: text].
    #[arg(long, value_name = "FORMAT")]
    log_format: Option<String>,
    /// Any other setting, as KEY=VALUE (repeatable), e.g. --set max_connections=100.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
}

impl BrokerArgs {
    fn flags(&self) -> anyhow::Result<Vec<(&str, String)>> {
        let mut flags = Vec::new();
        let named = [
            ("listen", &self.listen),
            ("data_dir", &self.data_dir),
            ("fsync", &self.fsync),
            ("log_format", &self.log_format),
        ];
        for (k, v) in named {
            if let Some(v) = v {
                flags.push((k, v.clone()));
            }
        }
        for kv in &self.set {
            let (k, v) = kv
                .split_once('=')
                .with_context(|| format!("--set {kv:?}: expected KEY=VALUE"))
                .class(USAGE)?;
            let key = Config::keys()
                .find(|known| *known == k.replace('-', "_"))
                .with_context(|| format!("--set {kv:?}: unknown key `{k}`"))
                .class(USAGE)?;
            flags.push((key, v.to_owned()));
        }
        Ok(flags)
    }
}

fn init_logging(config: &Config) {
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_default_env()
        .or_else(|_| EnvFilter::try_new(&config.log_level))
        .unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    match config.log_format {
        LogFormat::Json => builder.json().init(),
        LogFormat::Text => builder.init(),
    }
}

/// Run the broker until a signal; exit 0 after a clean shutdown.
pub fn run(args: BrokerArgs) -> anyhow::Result<()> {
    let flags = args.flags()?;
    let config = Config::load(args.config.as_deref(), std::env::vars(), &flags)
        .context("invalid configuration")
        .class(USAGE)?;
    init_logging(&config);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("hermit-net")
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(serve(config))
}

async fn serve(config: Config) -> anyhow::Result<()> {
    let mut sigint =
        signal(SignalKind::interrupt()).context("cannot install the SIGINT handler")?;
    let mut sigterm =
        signal(SignalKind::terminate()).context("cannot install the SIGTERM handler")?;
    let dir = config.data_dir.clone();
    tracing::info!(data_dir = %dir.display(), fsync = %config.fsync, "opening the log");
    let opts = LogOptions::from_config(&config);
    let started = std::time::Instant::now();
    let engine = tokio::task::spawn_blocking(move || Engine::open(&dir, opts))
        .await
        .context("log recovery panicked")?
        .with_context(|| format!("cannot open data directory {}", config.data_dir.display()))?;
    let engine = Arc::new(engine);
    tracing::info!(
        elapsed_ms = started.elapsed().as_millis() as u64,
        topics = engine.log().topics().len(),
        "log open"
    );
    engine.start_background(Duration::from_millis(config.cleanup_interval_ms));
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .with_context(|| format!("cannot listen on {}", config.listen))?;
    let (first_tx, first_rx) = tokio::sync::oneshot::channel::<()>();
    let (second_tx, second_rx) = tokio::sync::oneshot::channel::<()>();
    // Signals: the first starts a graceful shutdown; the second cuts the
    // drain short. Neither interrupts the final fsync: once handlers are
    // installed, signals no longer terminate the process.
    tokio::spawn(async move {
        let mut txs = [Some(first_tx), Some(second_tx)].into_iter();
        loop {
            let name = tokio::select! {
                _ = sigint.recv() => "SIGINT",
                _ = sigterm.recv() => "SIGTERM",
            };
            match txs.next() {
                Some(Some(tx)) => {
                    tracing::info!(signal = name, "signal received");
                    let _ = tx.send(());
                }
                _ => tracing::warn!(
                    signal = name,
                    "already shutting down; finishing the final fsync"
                ),
            }
        }
    });
    let server = Server::new(engine.clone(), config);
    server
        .run(
            listener,
            async {
                let _ = first_rx.await;
            },
            async {
                let _ = second_rx.await;
            },
        )
        .await
        .context("server failed")?;
    let closing = engine.clone();
    tokio::task::spawn_blocking(move || closing.close())
        .await
        .context("close panicked")?
        .context("final fsync failed: data written since the last fsync may be lost")?;
    drop(engine);
    tracing::info!("shut down cleanly");
    Ok(())
}
