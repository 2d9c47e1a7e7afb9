//! `hermit broker`: load the configuration, start the broker the one way
//! brokers start ([`Broker::start`]: admin listener, log recovery,
//! listeners), serve until SIGINT/SIGTERM, drain, fsync, release the lock.

use std::path::PathBuf;

use anyhow::Context;
use hermit_broker::config::{Config, LogFormat};
use hermit_broker::start::Broker;
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
    /// Also listen for WebSocket connections (browsers, the JavaScript SDK) on ADDR.
    #[arg(long, value_name = "ADDR")]
    ws_listen: Option<String>,
    /// Serve the static files of DIR (e.g. `js/` for the chat page) on the WebSocket listener.
    #[arg(long, value_name = "DIR")]
    web_root: Option<String>,
    /// Admin HTTP listener (/metrics, /healthz, /readyz), or `off` [default: 127.0.0.1:9644].
    #[arg(long, value_name = "ADDR")]
    admin_listen: Option<String>,
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
            ("ws_listen", &self.ws_listen),
            ("web_root", &self.web_root),
            ("admin_listen", &self.admin_listen),
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
    raise_nofile_limit(
        u64::from(config.max_connections),
        u64::from(config.open_files),
    );
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
    let broker = match Broker::start(config).await {
        Ok(broker) => broker,
        Err(e) if e.is_configuration() => return Err(e).class(USAGE),
        Err(e) => return Err(e.into()),
    };
    // Recovery is done, the lock held and every listener bound (connections
    // queue in their backlogs until `serve` accepts them).
    notify::send("READY=1");
    let (first_tx, first_rx) = tokio::sync::oneshot::channel::<()>();
    let (second_tx, second_rx) = tokio::sync::oneshot::channel::<()>();
    // Signals: the first starts a graceful shutdown (and `/readyz` says
    // 503); the second cuts the drain short. Neither interrupts the final
    // fsync: once handlers are installed, signals no longer terminate the
    // process.
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
                    notify::send("STOPPING=1");
                    let _ = tx.send(());
                }
                _ => tracing::warn!(
                    signal = name,
                    "already shutting down; finishing the final fsync"
                ),
            }
        }
    });
    let engine = broker
        .serve(
            async {
                let _ = first_rx.await;
            },
            async {
                let _ = second_rx.await;
            },
        )
        .await
        .context("server failed")?;
    hermit_broker::start::close(engine)
        .await
        .context("final fsync failed: data written since the last fsync may be lost")?;
    tracing::info!("shut down cleanly");
    Ok(())
}

/// The systemd notification protocol (`sd_notify(3)`): with `Type=notify`,
/// systemd waits for `READY=1` before it calls the broker started, and
/// `STOPPING=1` tells it a shutdown has begun.
mod notify {
    /// Send `state` to `$NOTIFY_SOCKET`, if set (a path, or `@name` for an
    /// abstract socket). Failures are logged: the broker runs without systemd.
    pub fn send(state: &str) {
        let Some(socket) = std::env::var_os("NOTIFY_SOCKET") else {
            return;
        };
        if let Err(e) = try_send(&socket, state) {
            tracing::warn!(error = %e, socket = ?socket, "cannot notify systemd");
        }
    }

    fn try_send(socket: &std::ffi::OsStr, state: &str) -> std::io::Result<()> {
        use std::os::unix::ffi::OsStrExt as _;
        use std::os::unix::net::{SocketAddr, UnixDatagram};
        let bytes = socket.as_bytes();
        let addr = match bytes.strip_prefix(b"@") {
            Some(name) => {
                use std::os::linux::net::SocketAddrExt as _;
                SocketAddr::from_abstract_name(name)?
            }
            None => SocketAddr::from_pathname(std::path::Path::new(socket))?,
        };
        let sock = UnixDatagram::unbound()?;
        sock.send_to_addr(state.as_bytes(), &addr)?;
        Ok(())
    }
}

/// Descriptors beyond one per connection and the partitions' `open_files`:
/// listeners, the data directory (lock, catalog, the directory itself),
/// directories being fsynced, files opened by compaction and the logs.
const NOFILE_MARGIN: u64 = 64;

/// What to do about RLIMIT_NOFILE, decided from the current limits
/// (`None` = unlimited) and the need.
#[derive(Debug, PartialEq, Eq)]
struct NofilePlan {
    /// The soft limit to set, if it has to be raised.
    raise_to: Option<u64>,
    /// Even the hard limit is below the need: warn.
    short: bool,
}

fn plan_nofile(soft: Option<u64>, hard: Option<u64>, need: u64) -> NofilePlan {
    if soft.is_none_or(|s| s >= need) {
        return NofilePlan {
            raise_to: None,
            short: false,
        };
    }
    match hard {
        // Linux refuses an unlimited soft NOFILE limit: ask for the need.
        None => NofilePlan {
            raise_to: Some(need),
            short: false,
        },
        Some(h) => NofilePlan {
            raise_to: (Some(h) > soft).then_some(h),
            short: h < need,
        },
    }
}

/// Compare RLIMIT_NOFILE with what `max_connections` and `open_files` need and raise the
/// soft limit to the hard one when it is lower (many systems default to a
/// soft 1024). Failures are logged, not fatal: the broker still runs, with
/// fewer connections than configured.
fn raise_nofile_limit(max_connections: u64, open_files: u64) {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let need = max_connections
        .saturating_add(open_files)
        .saturating_add(NOFILE_MARGIN);
    let limit = getrlimit(Resource::Nofile);
    let (soft, hard) = (limit.current, limit.maximum);
    tracing::info!(soft = ?soft, hard = ?hard, need, "RLIMIT_NOFILE");
    let plan = plan_nofile(soft, hard, need);
    if let Some(to) = plan.raise_to {
        let new = rustix::process::Rlimit {
            current: Some(to),
            maximum: hard,
        };
        match setrlimit(Resource::Nofile, new) {
            Ok(()) => {
                tracing::info!(soft = to, hard = ?hard, "raised the RLIMIT_NOFILE soft limit")
            }
            Err(e) => tracing::warn!(error = %e, soft = ?soft, "cannot raise RLIMIT_NOFILE"),
        }
    }
    if plan.short {
        tracing::warn!(
            hard = ?hard,
            need,
            "RLIMIT_NOFILE hard limit is below max_connections plus open_files plus a margin: \
             connections may be refused before max_connections (raise it with ulimit -Hn, \
             LimitNOFILE= in a systemd unit, or lower max_connections or open_files)"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_soft_nofile_limit_is_raised_only_when_short() {
        let plan = |raise_to, short| NofilePlan { raise_to, short };
        // Enough already, or unlimited: nothing to do.
        assert_eq!(
            plan_nofile(Some(20_000), Some(20_000), 11_024),
            plan(None, false)
        );
        assert_eq!(plan_nofile(None, None, 11_024), plan(None, false));
        // Soft 1024 under a hard limit that suffices: raise to the hard limit.
        assert_eq!(
            plan_nofile(Some(1024), Some(524_288), 11_024),
            plan(Some(524_288), false)
        );
        // Unlimited hard limit: raise to the need (Linux refuses unlimited).
        assert_eq!(
            plan_nofile(Some(1024), None, 11_024),
            plan(Some(11_024), false)
        );
        // Hard limit short: raise as far as it goes, and warn.
        assert_eq!(
            plan_nofile(Some(1024), Some(4096), 11_024),
            plan(Some(4096), true)
        );
        // Soft already at a short hard limit: nothing to raise, still warn.
        assert_eq!(
            plan_nofile(Some(4096), Some(4096), 11_024),
            plan(None, true)
        );
    }
}
