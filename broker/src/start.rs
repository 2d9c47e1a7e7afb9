//! Starting a broker from its configuration — the one way `hermit broker`,
//! the embedded broker (tests, `hermit demo`, `hermit bench --embedded`)
//! and anything else start one.
//!
//! [`Broker::start`], in this order:
//! 1. the admin listener (when `admin_listen` is set), so `/healthz` answers
//!    at once and `/readyz` says 503 while the log is recovered;
//! 2. the log opened and recovered off the async workers — after an
//!    unclean stop every partition directory is recovered before serving;
//! 3. the background cleaner (retention, compaction);
//! 4. every listener bound (`listen`, `tls_listen`, `ws_listen`,
//!    `wss_listen`) and the server set up over them; `/readyz` then says 200.
//!
//! Then [`Broker::serve`] accepts until its shutdown future completes,
//! drains, and hands the engine back; [`close`] is the final fsync (a caller
//! modelling a crash drops the engine instead). [`run`] is all three.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use crate::admin::{Admin, AdminError};
use crate::config::Config;
use crate::engine::Engine;
use crate::log::StorageError;
use crate::net::{Metrics, Server, ServerError};

/// Why a broker could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The admin listener could not be set up (token file, address).
    #[error("cannot start the admin listener")]
    Admin(#[from] AdminError),
    /// The data directory could not be opened or recovered.
    #[error("cannot open data directory {}", dir.display())]
    Log {
        /// The data directory.
        dir: PathBuf,
        /// Why.
        #[source]
        source: StorageError,
    },
    /// A listener could not be bound.
    #[error("cannot listen on {addr}{}", key_suffix(key))]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Its configuration key.
        key: &'static str,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// The server's settings are unusable (access rules, broker id, TLS
    /// files, origins, `web_root`).
    #[error("{what}")]
    Server {
        /// What was being set up.
        what: &'static str,
        /// Why it failed.
        #[source]
        source: Box<ServerError>,
    },
}

impl StartError {
    /// Whether the configuration is at fault (rather than the machine: a
    /// busy port, an unreadable data directory).
    pub fn is_configuration(&self) -> bool {
        matches!(self, StartError::Server { .. })
    }
}

fn key_suffix(key: &str) -> String {
    if key == "listen" {
        String::new()
    } else {
        format!(" ({key})")
    }
}

/// Where a started broker listens.
#[derive(Debug, Clone, Copy)]
pub struct Addresses {
    /// `listen` (the actual port when 0 was asked for).
    pub listen: SocketAddr,
    /// `tls_listen`.
    pub tls: Option<SocketAddr>,
    /// `ws_listen`.
    pub ws: Option<SocketAddr>,
    /// `wss_listen`.
    pub wss: Option<SocketAddr>,
    /// `admin_listen`.
    pub admin: Option<SocketAddr>,
}

/// A broker that has started: its log open and recovered, its listeners
/// bound, ready to serve.
pub struct Broker {
    engine: Arc<Engine>,
    server: Server,
    listener: TcpListener,
    addresses: Addresses,
    admin: Option<(Admin, JoinHandle<()>)>,
}

impl std::fmt::Debug for Broker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Broker")
            .field("addresses", &self.addresses)
            .finish_non_exhaustive()
    }
}

impl Broker {
    /// Start a broker for `config` (see the module doc for the order).
    ///
    /// # Errors
    /// What could not be set up; the message names the key or the file.
    pub async fn start(config: Config) -> Result<Broker, StartError> {
        let admin = match Admin::bind(&config).await? {
            Some((admin, listener)) => {
                let addr = listener.local_addr().map_err(|source| StartError::Bind {
                    addr: config.admin_listen.unwrap_or(config.listen),
                    key: "admin_listen",
                    source,
                })?;
                if config.admin_token_file.is_none() {
                    tracing::info!(%addr, "admin listening (/metrics, /healthz, /readyz)");
                } else {
                    tracing::info!(%addr, "admin listening (/metrics with a bearer token, /healthz, /readyz)");
                }
                let task = tokio::spawn(admin.clone().serve(listener));
                Some((admin, task, addr))
            }
            None => None,
        };
        let engine = open_engine(&config).await?;
        engine.start_background(Duration::from_millis(config.cleanup_interval_ms));
        let listener = bind(config.listen, "listen").await?;
        let mut addresses = Addresses {
            listen: local_addr(&listener, config.listen, "listen")?,
            tls: None,
            ws: None,
            wss: None,
            admin: admin.as_ref().map(|(_, _, addr)| *addr),
        };
        let (tls_listen, ws_listen, wss_listen) =
            (config.tls_listen, config.ws_listen, config.wss_listen);
        let server_error = |what| {
            move |source| StartError::Server {
                what,
                source: Box::new(source),
            }
        };
        let mut server = Server::new(engine.clone(), config)
            .map_err(server_error("invalid access or TLS settings"))?;
        if let Some(at) = tls_listen {
            let l = bind(at, "tls_listen").await?;
            addresses.tls = Some(local_addr(&l, at, "tls_listen")?);
            server = server
                .with_tls(l)
                .map_err(server_error("cannot set up TLS"))?;
        }
        for (at, tls, key) in [
            (ws_listen, false, "ws_listen"),
            (wss_listen, true, "wss_listen"),
        ] {
            let Some(at) = at else { continue };
            let l = bind(at, key).await?;
            let addr = Some(local_addr(&l, at, key)?);
            *(if tls {
                &mut addresses.wss
            } else {
                &mut addresses.ws
            }) = addr;
            server = server
                .with_websocket(l, tls)
                .map_err(server_error("cannot set up the WebSocket listener"))?;
        }
        let admin = admin.map(|(admin, task, _)| {
            admin.attach(&server);
            // Recovery is done, the lock held and every listener bound
            // (connections queue in their backlogs until `serve` accepts them).
            admin.set_ready();
            (admin, task)
        });
        Ok(Broker {
            engine,
            server,
            listener,
            addresses,
            admin,
        })
    }

    /// Where it listens.
    pub fn addresses(&self) -> &Addresses {
        &self.addresses
    }

    /// Its engine (the log and the consumer-group offsets).
    pub fn engine(&self) -> &Arc<Engine> {
        &self.engine
    }

    /// Its server's counters.
    pub fn metrics(&self) -> Arc<Metrics> {
        self.server.metrics()
    }

    /// Its server (to serve streams accepted elsewhere).
    pub fn server(&self) -> &Server {
        &self.server
    }

    /// Serve until `shutdown` completes; then `/readyz` answers 503, no new
    /// connection is accepted and those open finish what they have in
    /// flight (at most `drain_timeout_ms`, cut short if `hurry` completes).
    /// Returns the engine, still open: [`close`] it for the final fsync.
    ///
    /// # Errors
    /// The accept loop's I/O error (the engine is then dropped unclosed).
    pub async fn serve(
        self,
        shutdown: impl Future<Output = ()>,
        hurry: impl Future<Output = ()>,
    ) -> io::Result<Arc<Engine>> {
        let stopping = self.admin.as_ref().map(|(admin, _)| admin.clone());
        let shutdown = async move {
            shutdown.await;
            if let Some(admin) = stopping {
                admin.set_stopping();
            }
        };
        let served = self.server.run(self.listener, shutdown, hurry).await;
        if let Some((_, task)) = self.admin {
            task.abort();
        }
        served.map(|()| self.engine)
    }
}

/// The final fsync and release of the data directory, off the async workers.
///
/// # Errors
/// A failed fsync: data written since the last one may be lost.
pub async fn close(engine: Arc<Engine>) -> Result<(), StorageError> {
    tokio::task::spawn_blocking(move || engine.close())
        .await
        .unwrap_or_else(|e| Err(StorageError::panicked("close", e)))
}

/// Start a broker for `config`, serve until `shutdown` completes, drain
/// (cut short if `hurry` completes) and close the log.
///
/// # Errors
/// What [`Broker::start`] refuses, the accept loop's I/O error, or a
/// failed final fsync.
pub async fn run(
    config: Config,
    shutdown: impl Future<Output = ()>,
    hurry: impl Future<Output = ()>,
) -> Result<(), RunError> {
    let broker = Broker::start(config).await?;
    let engine = broker
        .serve(shutdown, hurry)
        .await
        .map_err(RunError::Serve)?;
    close(engine).await.map_err(RunError::Close)
}

/// Why [`run`] stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// It could not start.
    #[error(transparent)]
    Start(#[from] StartError),
    /// The accept loop failed.
    #[error("server failed")]
    Serve(#[source] io::Error),
    /// The final fsync failed.
    #[error("final fsync failed: data written since the last fsync may be lost")]
    Close(#[source] StorageError),
}

/// Open (and recover) the data directory: after an unclean stop every
/// partition directory is recovered now, before anything is served.
async fn open_engine(config: &Config) -> Result<Arc<Engine>, StartError> {
    let dir = config.data_dir.clone();
    tracing::info!(data_dir = %dir.display(), fsync = %config.fsync, "opening the log");
    let opts = config.log_options();
    let started = std::time::Instant::now();
    let opening = dir.clone();
    let opened = tokio::task::spawn_blocking(move || {
        let engine = Engine::open(&opening, opts)?;
        let recovered = engine.log().recover_partition_dirs()?;
        Ok::<_, StorageError>((engine, recovered))
    })
    .await
    .unwrap_or_else(|e| Err(StorageError::panicked("log recovery", e)));
    let (engine, recovered) = opened.map_err(|source| StartError::Log { dir, source })?;
    tracing::info!(
        elapsed_ms = started.elapsed().as_millis() as u64,
        topics = engine.log().topic_count(),
        partitions_recovered = recovered,
        "log open"
    );
    Ok(Arc::new(engine))
}

async fn bind(addr: SocketAddr, key: &'static str) -> Result<TcpListener, StartError> {
    TcpListener::bind(addr)
        .await
        .map_err(|source| StartError::Bind { addr, key, source })
}

fn local_addr(
    l: &TcpListener,
    addr: SocketAddr,
    key: &'static str,
) -> Result<SocketAddr, StartError> {
    l.local_addr()
        .map_err(|source| StartError::Bind { addr, key, source })
}
