//! The network server: accept loop, connection limit, shutdown and drain.
//!
//! # Layout
//! - [`Server`]: accepts connections (capped by a semaphore; accept errors
//!   back off instead of killing the server), hands each to a task, and on
//!   shutdown stops accepting and drains in-flight requests. It also serves
//!   streams accepted elsewhere ([`Server::serve_stream`]).
//! - [`ByteStream`]: what a connection needs from the stream it runs over
//!   (plain TCP with `sendfile`; TLS, the WebSocket adapter and in-memory
//!   pipes with the copy path).
//! - `http` and `ws`: the WebSocket listeners' front door (the HTTP upgrade,
//!   [`Origins`], static files from `web_root`) and the adapter that carries
//!   one frame per binary message.
//! - `connection`: one connection's state machine (hello, pipelined
//!   frames, parked durable acks and long polls, out-of-order responses),
//!   generic over the stream.
//! - `outbox`: the output queue; fetch bodies go out with `sendfile(2)` on
//!   plain TCP and through a bounded `pread` + write copy on other streams.
//! - `quota`: the budgets and quotas every connection shares (receive
//!   budget, byte rates, topics and connections per principal, connections
//!   per address).

mod connection;
pub(crate) mod http;
mod outbox;
mod quota;
mod stream;
pub(crate) mod ws;

pub use http::Origins;
pub use stream::ByteStream;

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use hermit_protocol::frame::{ErrorBody, Limits, encode_error};
use hermit_protocol::hello::{BrokerFlags, BrokerHello, HELLO_LEN, Hello, NONCE_LEN, VERSION_3};
use hermit_protocol::{Op, Status};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinSet;

use crate::auth::{Acl, AclError, BrokerId, BrokerIdError, Principal};
use crate::config::Config;
use crate::engine::Engine;
use crate::log::Log;
use crate::metrics::Histogram;
use crate::tls::{self, TlsAcceptor, TlsError};
use tokio_rustls::server::TlsStream;

/// Counters a running server keeps (read them with [`Server::metrics`]).
#[derive(Debug, Default)]
pub struct Metrics {
    /// Connections currently open.
    pub connections_open: AtomicU64,
    /// Connections accepted since start.
    pub connections_accepted: AtomicU64,
    /// Connections refused because `max_connections` was reached.
    pub connections_refused: AtomicU64,
    /// Record batches appended.
    pub produce_batches: AtomicU64,
    /// Bytes of record batches appended.
    pub produce_bytes: AtomicU64,
    /// Fetch responses that carried data.
    pub fetch_responses: AtomicU64,
    /// `sendfile(2)` calls that sent record bytes.
    pub sendfile_calls: AtomicU64,
    /// Record bytes sent by `sendfile(2)`: how fetch sends records over a
    /// plain TCP socket.
    pub sendfile_bytes: AtomicU64,
    /// Record bytes copied (`pread` from the segment, then written) to
    /// streams that cannot take `sendfile` (TLS, WebSocket, in-memory).
    pub copied_bytes: AtomicU64,
    /// Requests refused as malformed (each closed its connection).
    pub bad_requests: AtomicU64,
    /// Connections refused because their source address had
    /// `max_connections_per_address` open.
    pub refused_by_address: AtomicU64,
    /// Authentications (or client certificates) refused because the
    /// principal had `max_connections_per_principal` open.
    pub refused_by_principal: AtomicU64,
    /// Topic creations refused by `max_topics_per_principal` or `max_partitions`.
    pub topics_refused: AtomicU64,
    /// Produce answers delayed by `produce_bytes_per_sec`.
    pub produce_throttled: AtomicU64,
    /// Fetch answers delayed by `fetch_bytes_per_sec`.
    pub fetch_throttled: AtomicU64,
    /// Long polls answered at once because `max_parked_fetches` were parked.
    pub fetches_not_parked: AtomicU64,
    /// WebSocket upgrades accepted.
    pub ws_upgrades: AtomicU64,
    /// HTTP requests on a WebSocket listener refused (bad upgrade, origin
    /// not allowed, no subprotocol, stalled or oversized request head).
    pub ws_refused: AtomicU64,
    /// WebSocket connections closed for a violation (text message, not one
    /// frame per message, oversized, unmasked, ping flood, bad close frame).
    pub ws_violations: AtomicU64,
    /// Static files served from `web_root`.
    pub files_served: AtomicU64,
    /// Times a connection stopped reading to wait for `receive_budget_bytes`.
    pub receive_budget_waits: AtomicU64,
    /// Connections waiting for `receive_budget_bytes` right now.
    pub receive_budget_waiting: AtomicU64,
    /// From a produce request to its answer (after the fsync that makes
    /// it durable, for durable acks), in nanoseconds.
    pub produce_latency: Histogram,
    /// From a fetch request to its answer, for fetches answered without
    /// waiting for data (a long poll's wait is not latency), in nanoseconds.
    pub fetch_latency: Histogram,
    /// Long polls parked right now, waiting for data or their deadline.
    pub fetches_parked: AtomicU64,
    /// Authentications refused, by [`AuthError::reason`](crate::auth::AuthError::reason).
    pub auth_failures: [AtomicU64; crate::auth::AuthError::REASONS.len()],
    /// Requests refused `Unauthorized` by the access rules.
    pub unauthorized: AtomicU64,
}

impl Metrics {
    /// Read a counter.
    pub fn get(counter: &AtomicU64) -> u64 {
        counter.load(Ordering::Relaxed)
    }
}

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

/// How a connection arrived, as far as access control cares.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Arrival {
    /// Over TLS (announced in the hello).
    pub(crate) tls: bool,
    /// The principal a verified client certificate named.
    pub(crate) principal: Option<Principal>,
    /// A smaller largest frame than the broker's (a WebSocket's
    /// `ws_max_message`): announced in the hello and capping fetch answers.
    pub(crate) max_frame: Option<u32>,
}

/// What every connection shares.
pub(crate) struct Shared {
    /// Commits, committed offsets and topic deletion (which forgets offsets).
    pub(crate) engine: Arc<Engine>,
    /// The engine's log: the data path (produce, fetch, topics) goes
    /// straight to storage.
    pub(crate) log: Arc<Log>,
    pub(crate) config: Config,
    pub(crate) limits: Limits,
    pub(crate) metrics: Arc<Metrics>,
    /// Set to true when the server shuts down; every connection watches it,
    /// whichever way its stream was accepted.
    stop: watch::Sender<bool>,
    /// `max_connections` permits, one held by each open connection.
    permits: Arc<Semaphore>,
    /// Who may do what (compiled once from `auth`, `admins` and `acl`).
    pub(crate) acl: Acl,
    /// Signed by every `Authenticate`, so a signature is good for this broker only.
    pub(crate) broker_id: BrokerId,
    /// Receive budget, byte rates and the per-principal and per-address caps.
    pub(crate) quotas: Arc<quota::Quotas>,
    /// Who may open WebSocket connections from a browser.
    origins: Origins,
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

impl Server {
    /// A server for `engine` with the network and access settings of
    /// `config`. Reads (or, in a new data directory, makes) the broker id in
    /// the engine's data directory.
    ///
    /// # Errors
    /// Invalid ACL rules or admins, or a broker id that cannot be read or written.
    pub fn new(engine: Arc<Engine>, config: Config) -> Result<Server, ServerError> {
        let log = engine.log().clone();
        let limits = Limits::for_payload(config.max_payload, config.max_key);
        let permits = Arc::new(Semaphore::new(config.max_connections as usize));
        let acl = Acl::from_config(&config)?;
        let broker_id = BrokerId::load_or_create(log.dir())?;
        let quotas = Arc::new(quota::Quotas::new(&config));
        let origins = Origins::new(&config.allowed_origins).map_err(ServerError::Origins)?;
        if config.allowed_origins.iter().any(|o| o == "*") {
            tracing::warn!(
                target: "audit",
                "allowed_origins = [\"*\"]: any web page a visitor opens may use their WebSocket connection to this broker"
            );
        }
        if let Some(root) = &config.web_root {
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
        for addr in config.exposed_without_auth() {
            tracing::warn!(
                target: "audit",
                %addr,
                "allow_anonymous = true: anyone who reaches this address may read, write and delete every topic"
            );
        }
        Ok(Server {
            shared: Arc::new(Shared {
                engine,
                log,
                config,
                limits,
                metrics: Arc::new(Metrics::default()),
                stop: watch::Sender::new(false),
                permits,
                acl,
                broker_id,
                quotas,
                origins,
            }),
            extra: Arc::new(std::sync::Mutex::new(Vec::new())),
        })
    }

    /// The TLS acceptor of `tls_cert`, `tls_key` and `tls_client_ca`.
    fn tls_acceptor(&self) -> Result<TlsAcceptor, ServerError> {
        let c = &self.shared.config;
        let (Some(cert), Some(key)) = (&c.tls_cert, &c.tls_key) else {
            return Err(ServerError::TlsNotConfigured);
        };
        let config = tls::server_config(cert, key, c.tls_client_ca.as_deref())?;
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
        &self.shared.log
    }

    /// The engine it serves (the log and the group offsets).
    pub fn engine(&self) -> &Arc<Engine> {
        &self.shared.engine
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
        serve(self.shared.clone(), stream, peer, Arrival::default())
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
                        match &listeners[i].1 {
                            Kind::Plain => tasks.spawn(serve(shared, stream, peer, Arrival::default())),
                            Kind::Tls(a) => tasks.spawn(serve_tls(shared, a.clone(), stream, peer)),
                            Kind::Ws(a) => tasks.spawn(serve_ws(shared, a.clone(), stream, peer)),
                        };
                    }
                    Err(e) => {
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
        let drain = Duration::from_millis(self.shared.config.drain_timeout_ms);
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

/// Finish the TLS handshake (within the handshake timeout) and learn the
/// principal of a verified client certificate; `None` if it failed.
async fn tls_handshake(
    shared: &Shared,
    acceptor: TlsAcceptor,
    tcp: TcpStream,
    peer: SocketAddr,
) -> Option<(TlsStream<TcpStream>, Option<Principal>)> {
    let limit = Duration::from_millis(shared.config.handshake_timeout_ms);
    let stream = match tokio::time::timeout(limit, acceptor.accept(tcp)).await {
        Ok(Ok(s)) => s,
        Ok(Err(e)) => {
            tracing::debug!(%peer, error = %e, "TLS handshake failed");
            return None;
        }
        Err(_) => {
            tracing::debug!(%peer, "no TLS handshake within the handshake timeout");
            return None;
        }
    };
    let principal = match tls::peer_spki(stream.get_ref().1) {
        None => None,
        Some(spki) => match Principal::from_spki(&spki) {
            Ok(p) => {
                tracing::info!(target: "audit", %peer, principal = %p, "authenticated by client certificate");
                Some(p)
            }
            Err(e) => {
                // A certificate the CA signed but whose key is not P-256: it
                // names no principal; the client may still Authenticate.
                tracing::info!(target: "audit", %peer, error = %e, "client certificate names no principal");
                None
            }
        },
    };
    Some((stream, principal))
}

/// A TLS connection: the handshake, then the protocol.
async fn serve_tls(shared: Arc<Shared>, acceptor: TlsAcceptor, tcp: TcpStream, peer: SocketAddr) {
    let Some((stream, principal)) = tls_handshake(&shared, acceptor, tcp, peer).await else {
        return;
    };
    let arrival = Arrival {
        tls: true,
        principal,
        max_frame: None,
    };
    serve(shared, stream, peer, arrival).await
}

/// A WebSocket connection: TLS first for `wss_listen`, then the HTTP
/// request (an upgrade, or a static file from `web_root`), then the
/// protocol over [`ws::WsStream`].
async fn serve_ws(
    shared: Arc<Shared>,
    acceptor: Option<TlsAcceptor>,
    tcp: TcpStream,
    peer: SocketAddr,
) {
    match acceptor {
        None => upgrade(shared, tcp, peer, Arrival::default()).await,
        Some(a) => {
            let Some((stream, principal)) = tls_handshake(&shared, a, tcp, peer).await else {
                return;
            };
            let arrival = Arrival {
                tls: true,
                principal,
                max_frame: None,
            };
            upgrade(shared, stream, peer, arrival).await
        }
    }
}

/// Read the HTTP request on a WebSocket listener and upgrade it, serve a
/// file, or refuse it.
async fn upgrade<S>(shared: Arc<Shared>, mut stream: S, peer: SocketAddr, mut arrival: Arrival)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let limit = Duration::from_millis(shared.config.handshake_timeout_ms);
    let refused = || shared.metrics.ws_refused.fetch_add(1, Ordering::Relaxed);
    let (request, rest) = match http::read_head(&mut stream, limit).await {
        Ok(r) => r,
        Err(e) => {
            refused();
            tracing::debug!(%peer, error = %e, "WebSocket listener: no usable request");
            if let Some((status, reason)) = e.status() {
                let _ = tokio::time::timeout(
                    limit,
                    http::respond(&mut stream, status, reason, None, &e.to_string()),
                )
                .await;
            }
            return;
        }
    };
    if !request.wants_websocket() {
        let answer = async {
            match &shared.config.web_root {
                Some(root) => {
                    shared.metrics.files_served.fetch_add(1, Ordering::Relaxed);
                    http::serve_file(&mut stream, root, &request).await
                }
                None => {
                    let body = format!(
                        "this port speaks HermitMQ over WebSocket (subprotocol {})",
                        http::SUBPROTOCOL
                    );
                    let header = Some("Upgrade: websocket");
                    http::respond(&mut stream, 426, "Upgrade Required", header, &body).await
                }
            }
        };
        // Bounded like the request: a client that does not read its
        // answer does not keep the task.
        let _ = tokio::time::timeout(limit.max(Duration::from_secs(30)), answer).await;
        return;
    }
    let response = match http::accept_upgrade(&request, &shared.origins) {
        Ok(r) => r,
        Err(refusal) => {
            refused();
            tracing::info!(
                target: "audit",
                %peer,
                status = refusal.status,
                reason = %refusal.message,
                "WebSocket upgrade refused"
            );
            let _ = tokio::time::timeout(
                limit,
                http::respond(
                    &mut stream,
                    refusal.status,
                    refusal.reason,
                    refusal.header,
                    &refusal.message,
                ),
            )
            .await;
            return;
        }
    };
    let wrote = tokio::time::timeout(limit, async {
        stream.write_all(&response).await?;
        stream.flush().await
    })
    .await;
    if !matches!(wrote, Ok(Ok(()))) {
        return;
    }
    shared.metrics.ws_upgrades.fetch_add(1, Ordering::Relaxed);
    let max_message = shared.config.ws_max_message;
    // The length prefix is not part of a frame's length.
    arrival.max_frame = Some(shared.limits.max_frame.min(max_message - 4));
    let ws = ws::WsStream::new(
        stream,
        rest,
        max_message as usize,
        shared.stop.subscribe(),
        shared.metrics.clone(),
    );
    serve(shared, ws, peer, arrival).await
}

/// Serve one accepted stream: as a connection if its address is under
/// `max_connections_per_address` and a `max_connections` permit is free,
/// else refused.
async fn serve<S: ByteStream>(shared: Arc<Shared>, stream: S, peer: SocketAddr, arrival: Arrival) {
    shared
        .metrics
        .connections_accepted
        .fetch_add(1, Ordering::Relaxed);
    // Held until the connection ends, whichever way it ends.
    let Some(_address_permit) = shared.quotas.address_permit(peer.ip()) else {
        shared
            .metrics
            .refused_by_address
            .fetch_add(1, Ordering::Relaxed);
        tracing::debug!(
            target: "audit",
            %peer,
            max = shared.config.max_connections_per_address,
            "connection refused: max_connections_per_address reached for this address"
        );
        let msg = "this address has reached max_connections_per_address; retry later";
        return refuse(stream, shared, msg).await;
    };
    match shared.permits.clone().try_acquire_owned() {
        Ok(permit) => {
            let stop = shared.stop.subscribe();
            connection::Connection::new(stream, peer, arrival, shared, stop, permit)
                .run()
                .await
        }
        Err(_) => {
            shared
                .metrics
                .connections_refused
                .fetch_add(1, Ordering::Relaxed);
            tracing::warn!(%peer, max = shared.config.max_connections, "connection limit reached; refusing");
            let msg = "the broker has reached max_connections; retry later";
            refuse(stream, shared, msg).await
        }
    }
}

/// Answer a connection over a limit: its hello, then a `TooManyConnections`
/// notice (correlation id 0) saying which, then close.
async fn refuse<S: ByteStream>(mut stream: S, shared: Arc<Shared>, message: &str) {
    let mut hello = [0u8; HELLO_LEN];
    let limit = Duration::from_millis(shared.config.handshake_timeout_ms);
    let Ok(Ok(_)) = tokio::time::timeout(limit, stream.read_exact(&mut hello)).await else {
        return;
    };
    let Ok(theirs) = Hello::decode(&hello) else {
        return;
    };
    let mut out = bytes::BytesMut::new();
    if theirs.version >= VERSION_3 {
        // No nonce worth signing: this connection is about to close.
        let ours = BrokerHello {
            max_frame: shared.limits.max_frame,
            flags: BrokerFlags::default(),
            nonce: [0; NONCE_LEN],
            broker_id: *shared.broker_id.as_bytes(),
        };
        out.extend_from_slice(&ours.encode());
    } else {
        out.extend_from_slice(&Hello::broker(shared.limits.max_frame).encode());
    }
    let body = ErrorBody {
        status: Status::TooManyConnections,
        message,
        bounds: None,
    };
    let _ = encode_error(0, Op::Ping as u8, &body, &mut out);
    let write = async {
        stream.write_all(&out).await?;
        stream.flush().await
    };
    let _ = tokio::time::timeout(limit, write).await;
}
