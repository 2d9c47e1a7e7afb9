//! [`Server`]: the listeners, the accept loop, shutdown and drain.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hermit_protocol::frame::Limits;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinSet;

use super::http::Origins;
use super::metrics::Metrics;
use super::options::ServerOptions;
use super::quota;
use super::send_budget::SendBudget;
use super::shared::{Arrival, Shared};
use super::stream::ByteStream;
use super::{accept, admission};
use crate::auth::{
    Acl, AclError, BrokerId, BrokerIdError, BrokerNames, ProofPolicy, PublicNameError,
};
use crate::engine::Engine;
use crate::engine::Log;
use crate::tls::{self, TlsAcceptor, TlsError};

/// Why a [`Server`] could not be built from its configuration.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The access-control rules are invalid.
    #[error(transparent)]
    Acl(#[from] AclError),
    /// The broker id could not be read or made.
    #[error(transparent)]
    BrokerId(#[from] BrokerIdError),
    /// The TLS settings could not be loaded.
    #[error(transparent)]
    Tls(#[from] TlsError),
    /// A TLS listener was given but `tls_cert` or `tls_key` is not set.
    #[error("tls_listen and wss_listen need tls_cert and tls_key")]
    TlsNotConfigured,
    /// `public_names` holds an entry that is no host name or address.
    #[error(transparent)]
    PublicName(#[from] PublicNameError),
    /// `allowed_origins` holds an invalid entry.
    #[error("allowed_origins: {0}")]
    Origins(String),
    /// `web_root` is not a readable directory.
    #[error("web_root {}: {source}", path.display())]
    WebRoot {
        /// The configured directory.
        path: std::path::PathBuf,
        /// Why it cannot be served.
        #[source]
        source: io::Error,
    },
}

/// What a listener's accepted connections speak.
enum Kind {
    /// The HermitMQ protocol over plain TCP (`listen`).
    Plain,
    /// Over TLS (`tls_listen`).
    Tls(TlsAcceptor),
    /// Over WebSocket (`ws_listen`), or over TLS first (`wss_listen`).
    Ws(Option<TlsAcceptor>),
}

impl Kind {
    fn name(&self) -> &'static str {
        match self {
            Kind::Plain => "listening",
            Kind::Tls(_) => "listening (TLS)",
            Kind::Ws(None) => "listening (WebSocket)",
            Kind::Ws(Some(_)) => "listening (WebSocket over TLS)",
        }
    }
}

/// The broker's server over an [`Engine`]: a TCP listener ([`Server::run`]) and
/// any other already-accepted byte stream ([`Server::serve_stream`]).
/// Cloning gives another handle to the same server (same limits, metrics
/// and shutdown).
#[derive(Clone)]
pub struct Server {
    shared: Arc<Shared>,
    /// The listeners other than `run`'s own (TLS, WebSocket), taken by [`Server::run`].
    extra: Arc<std::sync::Mutex<Vec<(TcpListener, Kind)>>>,
}

/// What an `Authenticate` must name and bind: `public_names`, the names of
/// `tls_cert`, whether mechanism 1 is accepted (not where authentication
/// is required), `check_tls_exporter`.
fn proof_policy(options: &ServerOptions) -> Result<ProofPolicy, ServerError> {
    let access = &options.access;
    let certificate = match &options.tls.cert {
        Some(path) => Some(tls::leaf_certificate(path)?),
        None => None,
    };
    let names = BrokerNames::new(&access.public_names, certificate)?;
    if !access.check_tls_exporter {
        tracing::warn!(
            target: "audit",
            "check_tls_exporter = false: a proof's TLS channel binding is not compared (only right behind a TLS-terminating proxy)"
        );
    }
    Ok(ProofPolicy {
        names,
        accept_unbound: !access.mode.requires_principal(),
        check_tls_exporter: access.check_tls_exporter,
    })
}

impl Server {
    /// A server for `engine` with the network and access settings of
    /// `options` (a [`Config`](crate::config::Config) converts into them).
    /// Reads (or, in a new data directory, makes) the broker id in the
    /// engine's data directory.
    ///
    /// # Errors
    /// Invalid ACL rules or admins, or a broker id that cannot be read or written.
    pub fn new(
        engine: Arc<Engine>,
        options: impl Into<ServerOptions>,
    ) -> Result<Server, ServerError> {
        let options = options.into();
        let limits = Limits::for_payload(options.max_payload, options.max_key);
        let permits = Arc::new(Semaphore::new(options.max_connections as usize));
        let access = &options.access;
        let acl = Acl::compile(access.mode, &access.admins, &access.rules)?;
        let broker_id = BrokerId::load_or_create(engine.dir())?;
        let quotas = Arc::new(quota::Quotas::new(&options.quotas));
        let send_budget = Arc::new(SendBudget::new(options.quotas.send_budget_bytes));
        let unauthenticated = Arc::new(Semaphore::new(
            options.max_unauthenticated_connections as usize,
        ));
        let origins = Origins::new(&options.allowed_origins).map_err(ServerError::Origins)?;
        let proof_policy = proof_policy(&options)?;
        if options.allowed_origins.iter().any(|o| o == "*") {
            tracing::warn!(
                target: "audit",
                "allowed_origins = [\"*\"]: any web page a visitor opens may use their WebSocket connection to this broker"
            );
        }
        if let Some(root) = &options.web_root {
            match std::fs::metadata(root) {
                Ok(m) if m.is_dir() => {}
                Ok(_) => {
                    return Err(ServerError::WebRoot {
                        path: root.clone(),
                        source: io::Error::new(io::ErrorKind::NotADirectory, "not a directory"),
                    });
                }
                Err(source) => {
                    return Err(ServerError::WebRoot {
                        path: root.clone(),
                        source,
                    });
                }
            }
        }
        for addr in &options.exposed_without_auth {
            tracing::warn!(
                target: "audit",
                %addr,
                "allow_anonymous = true: anyone who reaches this address may read, write and delete every topic"
            );
        }
        Ok(Server {
            shared: Arc::new(Shared {
                engine,
                options,
                limits,
                metrics: Arc::new(Metrics::default()),
                stop: watch::Sender::new(false),
                permits,
                acl,
                broker_id,
                proof_policy,
                quotas,
                send_budget,
                unauthenticated,
                origins,
            }),
            extra: Arc::new(std::sync::Mutex::new(Vec::new())),
        })
    }

    /// The TLS acceptor of `tls_cert`, `tls_key` and `tls_client_ca`.
    fn tls_acceptor(&self) -> Result<TlsAcceptor, ServerError> {
        let files = &self.shared.options.tls;
        let (Some(cert), Some(key)) = (&files.cert, &files.key) else {
            return Err(ServerError::TlsNotConfigured);
        };
        let config = tls::server_config(cert, key, files.client_ca.as_deref())?;
        Ok(TlsAcceptor::from(config))
    }

    fn add_listener(self, listener: TcpListener, kind: Kind) -> Server {
        self.extra
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((listener, kind));
        self
    }

    /// Also serve TLS connections accepted on `listener` (the `tls_listen`
    /// address), with the certificate and client-CA settings of `tls_cert`,
    /// `tls_key` and `tls_client_ca` from the configuration. Call before
    /// [`Server::run`], which serves both listeners.
    ///
    /// # Errors
    /// A TLS file that cannot be read or parsed (the error names it), or no
    /// `tls_cert`/`tls_key` in the configuration.
    pub fn with_tls(self, listener: TcpListener) -> Result<Server, ServerError> {
        let acceptor = self.tls_acceptor()?;
        Ok(self.add_listener(listener, Kind::Tls(acceptor)))
    }

    /// Also serve WebSocket connections accepted on `listener` (the
    /// `ws_listen` address, or `wss_listen` with `tls = true`, which uses
    /// the TLS settings of [`with_tls`](Server::with_tls)): the HTTP upgrade
    /// with `allowed_origins` and subprotocol `hermitmq.v3`, static files
    /// from `web_root`, then the same connection state machine with one
    /// frame per binary message. Call before [`Server::run`].
    ///
    /// # Errors
    /// With `tls`, what [`with_tls`](Server::with_tls) refuses.
    pub fn with_websocket(self, listener: TcpListener, tls: bool) -> Result<Server, ServerError> {
        let acceptor = if tls {
            Some(self.tls_acceptor()?)
        } else {
            None
        };
        Ok(self.add_listener(listener, Kind::Ws(acceptor)))
    }

    /// The server's counters.
    pub fn metrics(&self) -> Arc<Metrics> {
        self.shared.metrics.clone()
    }

    /// The log it serves.
    pub fn log(&self) -> &Arc<Log> {
        self.shared.engine.log()
    }

    /// The engine it serves (the log and the group offsets).
    pub fn engine(&self) -> &Arc<Engine> {
        &self.shared.engine
    }

    /// Bytes of answers every connection has queued (the send budget's use).
    pub(crate) fn send_budget_used(&self) -> usize {
        self.shared.send_budget.used()
    }

    /// Its quotas (throttling counts per principal, for the metrics).
    pub(crate) fn quotas(&self) -> &quota::Quotas {
        &self.shared.quotas
    }

    /// Serve one already-accepted byte stream as a broker connection (from
    /// the HermitMQ hello on) until it closes; `peer` names it in logs. This
    /// is how a stream that is not a plain TCP socket — TLS, a WebSocket
    /// adapter, an in-memory pipe in tests — reaches the same state machine
    /// as the listener's connections: the same limits (it takes one of the
    /// `max_connections` permits or is refused like them), metrics and
    /// shutdown signal (it is told and closed when [`run`](Server::run)'s
    /// shutdown completes). Fetch bodies are copied unless the stream can
    /// `sendfile` ([`ByteStream::can_sendfile`]).
    ///
    /// The returned future is the whole connection: spawn it. Its task is the
    /// caller's: `run`'s drain does not wait for it, so await or abort it
    /// before closing the log.
    pub fn serve_stream<S: ByteStream>(
        &self,
        stream: S,
        peer: SocketAddr,
    ) -> impl Future<Output = ()> + Send + use<S> {
        let shared = self.shared.clone();
        async move {
            match admission::admit(&shared, peer) {
                Ok(admitted) => {
                    accept::serve(shared, stream, peer, Arrival::default(), admitted).await
                }
                Err(why) => accept::refuse(stream, shared, why).await,
            }
        }
    }

    /// Serve `listener` until `shutdown` completes; then stop accepting, let
    /// connections finish what they have in flight (at most `drain_timeout_ms`,
    /// cut short if `hurry` completes) and return. The caller closes the log.
    pub async fn run(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()>,
        hurry: impl Future<Output = ()>,
    ) -> io::Result<()> {
        let mut tasks = JoinSet::new();
        let mut backoff = Duration::from_millis(10);
        tokio::pin!(shutdown);
        tokio::pin!(hurry);
        let mut listeners = vec![(listener, Kind::Plain)];
        listeners.append(&mut self.extra.lock().unwrap_or_else(|e| e.into_inner()));
        for (l, kind) in &listeners {
            tracing::info!(addr = %l.local_addr()?, "{}", kind.name());
        }
        let mut first = 0;
        // One descriptor held back: when accept fails for want of
        // descriptors, it is let go so the waiting connection can be taken
        // and closed at once, instead of the listener spinning on it (and
        // the admin listener, the log and new connections finding none).
        let mut reserve = std::fs::File::open("/dev/null").ok();
        loop {
            tokio::select! {
                _ = &mut shutdown => break,
                Some(_) = tasks.join_next(), if !tasks.is_empty() => {}
                (i, res) = accept_any(&listeners, first) => match res {
                    Ok((stream, peer)) => {
                        // The next accept starts at the next listener, so a
                        // busy one cannot starve the others.
                        first = (i + 1) % listeners.len();
                        backoff = Duration::from_millis(10);
                        // Responses are written whole and small ones must not
                        // wait for Nagle (set here, not in the connection,
                        // which does not know it runs over TCP).
                        if let Err(e) = stream.set_nodelay(true) {
                            tracing::debug!(%peer, error = %e, "cannot set TCP_NODELAY");
                        }
                        let shared = self.shared.clone();
                        // Counted at accept, before any handshake.
                        match (admission::admit(&shared, peer), &listeners[i].1) {
                            (Ok(a), Kind::Plain) => {
                                let arrival = Arrival::at(stream.local_addr().ok().map(|l| l.ip()));
                                tasks.spawn(accept::serve(shared, stream, peer, arrival, a))
                            }
                            (Ok(a), Kind::Tls(tls)) => tasks.spawn(accept::serve_tls(shared, tls.clone(), stream, peer, a)),
                            (Ok(a), Kind::Ws(tls)) => tasks.spawn(accept::serve_ws(shared, tls.clone(), stream, peer, a)),
                            (Err(why), Kind::Plain) => tasks.spawn(accept::refuse(stream, shared, why)),
                            // No protocol before a handshake to say why in: closed.
                            (Err(_), _) => { drop(stream); continue; }
                        };
                    }
                    Err(e) => {
                        if out_of_descriptors(&e) && reserve.take().is_some() {
                            shed_one(&listeners[i].0, &self.shared).await;
                            reserve = std::fs::File::open("/dev/null").ok();
                        }
                        // Out of file descriptors and the like: wait, do not die.
                        tracing::error!(error = %e, retry_in = ?backoff, "accept failed");
                        tokio::time::sleep(backoff).await;
                        backoff = (backoff * 2).min(Duration::from_secs(1));
                    }
                }
            }
        }
        drop(listeners);
        tracing::info!(
            connections = tasks.len(),
            "shutting down: no new connections; draining"
        );
        self.shared.stop.send_replace(true);
        let drain = Duration::from_millis(self.shared.options.drain_timeout_ms);
        let drained = tokio::select! {
            biased;
            _ = &mut hurry => false,
            r = tokio::time::timeout(drain, async { while tasks.join_next().await.is_some() {} }) => r.is_ok(),
        };
        if !drained {
            tracing::warn!(
                connections = tasks.len(),
                "drain cut short; closing the remaining connections"
            );
            tasks.abort_all();
            while tasks.join_next().await.is_some() {}
        }
        Ok(())
    }
}

/// Whether an accept failed for want of file descriptors.
fn out_of_descriptors(e: &io::Error) -> bool {
    let emfile = rustix::io::Errno::MFILE.raw_os_error();
    let enfile = rustix::io::Errno::NFILE.raw_os_error();
    e.raw_os_error().is_some_and(|n| n == emfile || n == enfile)
}

/// With a descriptor freed: take one waiting connection and close it (it is
/// refused, counted as over `max_connections`).
async fn shed_one(listener: &TcpListener, shared: &Shared) {
    if let Ok(Ok((stream, peer))) =
        tokio::time::timeout(Duration::from_millis(10), listener.accept()).await
    {
        shared
            .metrics
            .connections_refused
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        tracing::warn!(%peer, "out of file descriptors: connection closed at accept");
        drop(stream);
    }
}

/// Accept on whichever listener has a connection first, polling from
/// `first` on; returns the listener's index with the result.
async fn accept_any(
    listeners: &[(TcpListener, Kind)],
    first: usize,
) -> (usize, io::Result<(TcpStream, SocketAddr)>) {
    std::future::poll_fn(|cx| {
        for k in 0..listeners.len() {
            let i = (first + k) % listeners.len();
            if let std::task::Poll::Ready(r) = listeners[i].0.poll_accept(cx) {
                return std::task::Poll::Ready((i, r));
            }
        }
        std::task::Poll::Pending
    })
    .await
}
