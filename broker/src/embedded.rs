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
use crate::net::{Metrics, Server, ServerError};

/// Why an embedded broker could not start.
#[derive(Debug, thiserror::Error)]
pub enum EmbeddedError {
    /// The log could not be opened.
    #[error("cannot open the log: {0}")]
    Log(#[from] StorageError),
    /// The server could not be set up (access rules, broker id, TLS files).
    #[error("cannot set up the server: {0}")]
    Server(#[from] ServerError),
    /// The listener could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// Requested address.
        addr: SocketAddr,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// A running in-process broker.
pub struct EmbeddedBroker {
    addr: SocketAddr,
    tls_addr: Option<SocketAddr>,
    ws_addr: Option<SocketAddr>,
    wss_addr: Option<SocketAddr>,
    engine: Arc<Engine>,
    metrics: Arc<Metrics>,
    stop: Option<oneshot::Sender<()>>,
    hurry: Option<oneshot::Sender<()>>,
    task: JoinHandle<std::io::Result<()>>,
}

impl EmbeddedBroker {
    /// Start a broker on `config.listen` (use port 0 for any free port) over
    /// `data_dir` (which overrides `config.data_dir`). Opening the log blocks
    /// the calling thread (recovery); call from an async context.
    pub async fn start(
        data_dir: &Path,
        mut config: Config,
    ) -> Result<EmbeddedBroker, EmbeddedError> {
        config.data_dir = data_dir.to_path_buf();
        let opts = config.log_options();
        let dir = data_dir.to_path_buf();
        let engine = tokio::task::spawn_blocking(move || Engine::open(&dir, opts))
            .await
            .map_err(|e| StorageError::panicked("log recovery", e))??;
        let engine = Arc::new(engine);
        engine.start_background(std::time::Duration::from_millis(config.cleanup_interval_ms));
        let listener = tokio::net::TcpListener::bind(config.listen)
            .await
            .map_err(|source| EmbeddedError::Bind {
                addr: config.listen,
                source,
            })?;
        let addr = listener
            .local_addr()
            .map_err(|source| EmbeddedError::Bind {
                addr: config.listen,
                source,
            })?;
        let (tls_listen, ws_listen, wss_listen) =
            (config.tls_listen, config.ws_listen, config.wss_listen);
        let mut server = Server::new(engine.clone(), config)?;
        let bind = async |at: SocketAddr| {
            let bind_err = |source| EmbeddedError::Bind { addr: at, source };
            let l = tokio::net::TcpListener::bind(at).await.map_err(bind_err)?;
            let addr = l.local_addr().map_err(bind_err)?;
            Ok::<_, EmbeddedError>((l, addr))
        };
        let mut tls_addr = None;
        if let Some(at) = tls_listen {
            let (l, addr) = bind(at).await?;
            tls_addr = Some(addr);
            server = server.with_tls(l)?;
        }
        let mut ws_addr = None;
        if let Some(at) = ws_listen {
            let (l, addr) = bind(at).await?;
            ws_addr = Some(addr);
            server = server.with_websocket(l, false)?;
        }
        let mut wss_addr = None;
        if let Some(at) = wss_listen {
            let (l, addr) = bind(at).await?;
            wss_addr = Some(addr);
            server = server.with_websocket(l, true)?;
        }
        let metrics = server.metrics();
        let (stop, stopped) = oneshot::channel::<()>();
        let (hurry, hurried) = oneshot::channel::<()>();
        let task = tokio::spawn(server.run(
            listener,
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
            addr,
            tls_addr,
            ws_addr,
            wss_addr,
            engine,
            metrics,
            stop: Some(stop),
            hurry: Some(hurry),
            task,
        })
    }

    /// A configuration for tests: port 0 on loopback, everything else default.
    pub fn test_config() -> Config {
        Config {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            ..Config::default()
        }
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The address of its TLS listener, when `tls_listen` was set.
    pub fn tls_addr(&self) -> Option<SocketAddr> {
        self.tls_addr
    }

    /// The address of its WebSocket listener, when `ws_listen` was set.
    pub fn ws_addr(&self) -> Option<SocketAddr> {
        self.ws_addr
    }

    /// The address of its WebSocket-over-TLS listener, when `wss_listen` was set.
    pub fn wss_addr(&self) -> Option<SocketAddr> {
        self.wss_addr
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
        let res = tokio::task::spawn_blocking(move || engine.close())
            .await
            .map_err(|e| StorageError::panicked("close", e))?;
        drop(self);
        res
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
