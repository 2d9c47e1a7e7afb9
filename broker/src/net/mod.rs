//! The network server: accept loop, connection limit, shutdown and drain.
//!
//! # Layout
//! - [`Server`]: accepts connections (capped by a semaphore; accept errors
//!   back off instead of killing the server), hands each to a task, and on
//!   shutdown stops accepting and drains in-flight requests.
//! - `connection`: one connection's state machine (hello, pipelined
//!   frames, parked durable acks and long polls, out-of-order responses).
//! - `outbox`: the output queue; fetch bodies go out with `sendfile(2)`.

mod connection;
mod outbox;

use std::future::Future;
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use hermit_protocol::frame::{ErrorBody, Limits, encode_error};
use hermit_protocol::hello::{HELLO_LEN, Hello};
use hermit_protocol::{Op, Status};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinSet;

use crate::config::Config;
use crate::engine::Engine;
use crate::log::Log;

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
    /// Record bytes sent by `sendfile(2)` — the only way fetch sends records.
    pub sendfile_bytes: AtomicU64,
    /// Requests refused as malformed (each closed its connection).
    pub bad_requests: AtomicU64,
}

impl Metrics {
    /// Read a counter.
    pub fn get(counter: &AtomicU64) -> u64 {
        counter.load(Ordering::Relaxed)
    }
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
}

/// The broker's TCP server over an [`Engine`].
pub struct Server {
    shared: Arc<Shared>,
}

impl Server {
    /// A server for `engine` with the network settings of `config`.
    pub fn new(engine: Arc<Engine>, config: Config) -> Server {
        let log = engine.log().clone();
        let limits = Limits::for_payload(config.max_payload, config.max_key);
        Server {
            shared: Arc::new(Shared {
                engine,
                log,
                config,
                limits,
                metrics: Arc::new(Metrics::default()),
            }),
        }
    }

    /// The server's counters.
    pub fn metrics(&self) -> Arc<Metrics> {
        self.shared.metrics.clone()
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
        let (stop_tx, stop_rx) = watch::channel(false);
        let permits = Arc::new(Semaphore::new(self.shared.config.max_connections as usize));
        let mut tasks = JoinSet::new();
        let mut backoff = Duration::from_millis(10);
        tokio::pin!(shutdown);
        tokio::pin!(hurry);
        tracing::info!(addr = %listener.local_addr()?, "listening");
        loop {
            tokio::select! {
                _ = &mut shutdown => break,
                Some(_) = tasks.join_next(), if !tasks.is_empty() => {}
                res = listener.accept() => match res {
                    Ok((stream, peer)) => {
                        backoff = Duration::from_millis(10);
                        self.shared.metrics.connections_accepted.fetch_add(1, Ordering::Relaxed);
                        match permits.clone().try_acquire_owned() {
                            Ok(permit) => {
                                let conn = connection::Connection::new(stream, peer, self.shared.clone(), stop_rx.clone(), permit);
                                tasks.spawn(conn.run());
                            }
                            Err(_) => {
                                self.shared.metrics.connections_refused.fetch_add(1, Ordering::Relaxed);
                                tracing::warn!(%peer, max = self.shared.config.max_connections, "connection limit reached; refusing");
                                tasks.spawn(refuse(stream, self.shared.clone()));
                            }
                        }
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
        tracing::info!(
            connections = tasks.len(),
            "shutting down: no new connections; draining"
        );
        let _ = stop_tx.send(true);
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

/// Answer a connection over the limit: its hello, then a `TooManyConnections`
/// notice (correlation id 0), then close.
async fn refuse(mut stream: TcpStream, shared: Arc<Shared>) {
    let mut hello = [0u8; HELLO_LEN];
    let limit = Duration::from_millis(shared.config.handshake_timeout_ms);
    let Ok(Ok(_)) = tokio::time::timeout(limit, stream.read_exact(&mut hello)).await else {
        return;
    };
    if Hello::decode(&hello).is_err() {
        return;
    }
    let mut out = bytes::BytesMut::new();
    out.extend_from_slice(&Hello::broker(shared.limits.max_frame).encode());
    let body = ErrorBody {
        status: Status::TooManyConnections,
        message: "the broker has reached max_connections; retry later",
        bounds: None,
    };
    let _ = encode_error(0, Op::Ping as u8, &body, &mut out);
    let _ = tokio::time::timeout(limit, stream.write_all(&out)).await;
}
