//! The network server: accept loop, connection limit, shutdown and drain.
//!
//! # Layout
//! - [`Server`]: accepts connections (capped by a semaphore; accept errors
//!   back off instead of killing the server), hands each to a task, and on
//!   shutdown stops accepting and drains in-flight requests. It also serves
//!   streams accepted elsewhere ([`Server::serve_stream`]).
//! - [`ByteStream`]: what a connection needs from the stream it runs over
//!   (implemented by `TcpStream`; TLS and WebSocket adapters will be next).
//! - `connection`: one connection's state machine (hello, pipelined
//!   frames, parked durable acks and long polls, out-of-order responses),
//!   generic over the stream.
//! - `outbox`: the output queue; fetch bodies go out with `sendfile(2)` on
//!   plain TCP and through a bounded `pread` + write copy on other streams.
//! - `quota`: the budgets and quotas every connection shares (receive
//!   budget, byte rates, topics and connections per principal, connections
//!   per address).

mod connection;
mod outbox;
mod quota;
mod stream;

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
use crate::tls::{self, TlsAcceptor, TlsError};

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
    /// Times a connection stopped reading to wait for `receive_budget_bytes`.
    pub receive_budget_waits: AtomicU64,
    /// Connections waiting for `receive_budget_bytes` right now.
    pub receive_budget_waiting: AtomicU64,
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
    #[error("tls_listen needs tls_cert and tls_key")]
    TlsNotConfigured,
}

/// How a connection arrived, as far as access control cares.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Arrival {
    /// Over TLS (announced in the hello).
    pub(crate) tls: bool,
    /// The principal a verified client certificate named.
    pub(crate) principal: Option<Principal>,
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
}

/// The broker's server over an [`Engine`]: a TCP listener ([`Server::run`]) and
/// any other already-accepted byte stream ([`Server::serve_stream`]).
/// Cloning gives another handle to the same server (same limits, metrics
/// and shutdown).
#[derive(Clone)]
pub struct Server {
    shared: Arc<Shared>,
    /// The TLS listener and its acceptor, taken by [`Server::run`].
    tls: Arc<std::sync::Mutex<Option<(TcpListener, TlsAcceptor)>>>,
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
            }),
            tls: Arc::new(std::sync::Mutex::new(None)),
        })
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
        let c = &self.shared.config;
        let (Some(cert), Some(key)) = (&c.tls_cert, &c.tls_key) else {
            return Err(ServerError::TlsNotConfigured);
        };
        let config = tls::server_config(cert, key, c.tls_client_ca.as_deref())?;
        *self.tls.lock().unwrap_or_else(|e| e.into_inner()) =
            Some((listener, TlsAcceptor::from(config)));
        Ok(self)
    }

    /// The server's counters.
    pub fn metrics(&self) -> Arc<Metrics> {
        self.shared.metrics.clone()
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
        tracing::info!(addr = %listener.local_addr()?, "listening");
        let tls = self.tls.lock().unwrap_or_else(|e| e.into_inner()).take();
        let (tls_listener, acceptor) = match tls {
            Some((l, a)) => {
                tracing::info!(addr = %l.local_addr()?, "listening (TLS)");
                (Some(l), Some(a))
            }
            None => (None, None),
        };
        loop {
            tokio::select! {
                _ = &mut shutdown => break,
                Some(_) = tasks.join_next(), if !tasks.is_empty() => {}
                res = accept_opt(tls_listener.as_ref()) => match res {
                    Ok((stream, peer)) => {
                        backoff = Duration::from_millis(10);
                        if let Err(e) = stream.set_nodelay(true) {
                            tracing::debug!(%peer, error = %e, "cannot set TCP_NODELAY");
                        }
                        let acceptor = acceptor.clone().expect("invariant: a TLS listener has its acceptor");
                        tasks.spawn(serve_tls(self.shared.clone(), acceptor, stream, peer));
                    }
                    Err(e) => {
                        tracing::error!(error = %e, retry_in = ?backoff, "TLS accept failed");
                        tokio::time::sleep(backoff).await;
                        backoff = (backoff * 2).min(Duration::from_secs(1));
                    }
                },
                res = listener.accept() => match res {
                    Ok((stream, peer)) => {
                        backoff = Duration::from_millis(10);
                        // Responses are written whole and small ones must not
                        // wait for Nagle (set here, not in the connection,
                        // which does not know it runs over TCP).
                        if let Err(e) = stream.set_nodelay(true) {
                            tracing::debug!(%peer, error = %e, "cannot set TCP_NODELAY");
                        }
                        tasks.spawn(serve(self.shared.clone(), stream, peer, Arrival::default()));
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
        drop(listener);
        drop(tls_listener);
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

/// Accept on `listener`, or never when there is none.
async fn accept_opt(listener: Option<&TcpListener>) -> io::Result<(TcpStream, SocketAddr)> {
    match listener {
        Some(l) => l.accept().await,
        None => std::future::pending().await,
    }
}

/// Finish the TLS handshake (within the handshake timeout), learn the
/// principal of a verified client certificate, then serve the connection.
async fn serve_tls(shared: Arc<Shared>, acceptor: TlsAcceptor, tcp: TcpStream, peer: SocketAddr) {
    let limit = Duration::from_millis(shared.config.handshake_timeout_ms);
    let stream = match tokio::time::timeout(limit, acceptor.accept(tcp)).await {
        Ok(Ok(s)) => s,
        Ok(Err(e)) => {
            tracing::debug!(%peer, error = %e, "TLS handshake failed");
            return;
        }
        Err(_) => {
            tracing::debug!(%peer, "no TLS handshake within the handshake timeout");
            return;
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
    serve(
        shared,
        stream,
        peer,
        Arrival {
            tls: true,
            principal,
        },
    )
    .await
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
    let Some(_address_slot) = shared.quotas.address_slot(peer.ip()) else {
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
