//! A broker inside the current process, on a real TCP socket and real
//! files: what tests, examples, `hermit demo` and `hermit bench --embedded` use.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::config::Config;
use crate::engine::Engine;
use crate::log::{Log, StorageError};
use crate::net::Metrics;
use crate::start::{self, Addresses, Broker, StartError};

/// Why an embedded broker could not start: what [`Broker::start`] refuses.
pub type EmbeddedError = StartError;

/// A running in-process broker.
pub struct EmbeddedBroker {
    addresses: Addresses,
    engine: Arc<Engine>,
    metrics: Arc<Metrics>,
    stop: Option<oneshot::Sender<()>>,
    hurry: Option<oneshot::Sender<()>>,
    task: JoinHandle<std::io::Result<Arc<Engine>>>,
}

impl EmbeddedBroker {
    /// Start a broker on `config.listen` (use port 0 for any free port) over
    /// `data_dir` (which overrides `config.data_dir`), the way `hermit
    /// broker` starts ([`Broker::start`]). Opening the log blocks a blocking
    /// thread (recovery); call from an async context.
    pub async fn start(
        data_dir: &Path,
        mut config: Config,
    ) -> Result<EmbeddedBroker, EmbeddedError> {
        config.data_dir = data_dir.to_path_buf();
        let broker = Broker::start(config).await?;
        let addresses = *broker.addresses();
        let engine = broker.engine().clone();
        let metrics = broker.metrics();
        let (stop, stopped) = oneshot::channel::<()>();
        let (hurry, hurried) = oneshot::channel::<()>();
        let task = tokio::spawn(broker.serve(
            async {
                let _ = stopped.await;
            },
            async {
                if hurried.await.is_err() {
                    // Dropped without hurrying: never cut the drain short.
                    std::future::pending::<()>().await;
                }
            },
        ));
        Ok(EmbeddedBroker {
            addresses,
            engine,
            metrics,
            stop: Some(stop),
            hurry: Some(hurry),
            task,
        })
    }

    /// A configuration for tests: port 0 on loopback, everything else default.
    /// No admin listener (several brokers run side by side in one test).
    pub fn test_config() -> Config {
        Config {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            admin_listen: None,
            ..Config::default()
        }
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addresses.listen
    }

    /// The address of its TLS listener, when `tls_listen` was set.
    pub fn tls_addr(&self) -> Option<SocketAddr> {
        self.addresses.tls
    }

    /// The address of its WebSocket listener, when `ws_listen` was set.
    pub fn ws_addr(&self) -> Option<SocketAddr> {
        self.addresses.ws
    }

    /// The address of its WebSocket-over-TLS listener, when `wss_listen` was set.
    pub fn wss_addr(&self) -> Option<SocketAddr> {
        self.addresses.wss
    }

    /// The address of its admin listener, when `admin_listen` was set.
    pub fn admin_addr(&self) -> Option<SocketAddr> {
        self.addresses.admin
    }

    /// Its log.
    pub fn log(&self) -> &Arc<Log> {
        self.engine.log()
    }

    /// Its engine (the log and the consumer-group offsets).
    pub fn engine(&self) -> &Arc<Engine> {
        &self.engine
    }

    /// Its counters.
    pub fn metrics(&self) -> &Arc<Metrics> {
        &self.metrics
    }

    /// Graceful shutdown: stop accepting, drain, final fsync, release the lock.
    pub async fn shutdown(mut self) -> Result<(), StorageError> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        let _ = (&mut self.task).await;
        let engine = self.engine.clone();
        drop(self);
        start::close(engine).await
    }

    /// Stop abruptly, as a crash would: connections are dropped mid-flight
    /// and no final fsync runs. (Written data is in the page cache, so this
    /// models a process crash, not a power loss.)
    pub async fn crash(mut self) {
        if let Some(hurry) = self.hurry.take() {
            let _ = hurry.send(());
        }
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        // With hurry already set, the server drops every connection at once
        // and waits for their tasks, so no task holds the log afterwards.
        let _ = (&mut self.task).await;
        // The engine is dropped without close(); the lock goes with it.
    }
}
