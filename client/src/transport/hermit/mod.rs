//! The HermitMQ transport: one multiplexed connection to a broker (see
//! [`connection`]), reopened with backoff when it dies; its
//! [`Transport`] operations are one request frame each (any request but
//! produce and fetch is encoded by [`Request::encode`] and its answer handed
//! back as its frame), and a batch is submitted as the partition's cached
//! produce head plus the batch itself.

pub(crate) mod connection;
mod handshake;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use bytes::Bytes;
use hermit_protocol::frame::Fetch;
use hermit_protocol::{Ack, Request, WireError};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, oneshot};
use tokio::time::Instant;

use self::connection::Conn;
use crate::error::ClientError;
use crate::options::{ClientOptions, topic_name};
use crate::records::FetchResponse;
use crate::transport::contract::FetchParams;
use crate::transport::contract::{BatchId, BatchLimits, BatchLink, SubmitError, Transport};
use crate::transport::endpoint::{TransportKind, tls_server_name};
use crate::transport::reply::{Reply, ReplyTo};

/// A connection that lived this long before dying resets the reconnect backoff.
const STABLE_AFTER: Duration = Duration::from_secs(1);

/// Reconnect state, behind the connect lock so one task connects at a time.
struct Backoff {
    delay: Duration,
    not_before: Option<Instant>,
    /// Bumped on every attempt, so callers that queued behind a failed
    /// attempt share its error instead of each waiting out a backoff.
    attempts: u64,
    last_error: Option<ClientError>,
    /// Id of the last dead connection whose lifetime was taken into account.
    judged: u64,
}

/// The connection manager shared by every clone of a HermitMQ [`crate::Client`].
pub(crate) struct Hermit {
    /// `host:port` (without a `hermit://` scheme).
    addr: String,
    opts: ClientOptions,
    /// What every (re)connect needs: timeouts, TLS, the identity.
    open: handshake::OpenOptions,
    /// The connection in use; a std mutex, held only to clone or replace the Arc.
    current: Mutex<Option<Arc<Conn>>>,
    /// Serializes (re)connects.
    connect: tokio::sync::Mutex<Backoff>,
    /// Attempt counter readable without the connect lock.
    attempts: AtomicU64,
    /// Bounds requests in flight across reconnects.
    permits: Arc<Semaphore>,
    /// Connections opened so far (ids; also a test and metrics hook).
    opened: AtomicU64,
}

impl Drop for Hermit {
    fn drop(&mut self) {
        let current = self
            .current
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(c) = current {
            c.close("client dropped");
        }
    }
}

fn unexpected(reply: &Reply) -> ClientError {
    tracing::warn!(?reply, "answer of the wrong kind");
    ClientError::Protocol(WireError::InvalidField {
        field: "response op",
        value: 0,
    })
}

impl Hermit {
    /// Open the first connection to `addr` (`host:port`), over TLS when `tls`.
    pub(crate) async fn connect(
        addr: String,
        tls: bool,
        options: ClientOptions,
    ) -> Result<Hermit, ClientError> {
        let permits = Arc::new(Semaphore::new(options.max_in_flight.max(1)));
        let tls = if tls {
            // Files are read once: a reconnect must not fail on a CA file
            // replaced in the meantime, and it needs no disk access.
            let ca = options.tls_ca.as_deref();
            let config = match &options.tls_client_cert {
                None => crate::tls::client_config(ca),
                Some(c) => crate::tls::client_config_with_cert(ca, &c.cert, &c.key),
            }
            .map_err(|e| ClientError::Tls(Arc::new(e)))?;
            Some(handshake::TlsTarget {
                config,
                server_name: tls_server_name(&addr).to_owned(),
            })
        } else {
            None
        };
        let known_brokers = match &options.state_dir {
            Some(dir) => Some(
                dir.known_brokers()
                    .map_err(|e| ClientError::KnownBrokers(Arc::new(e)))?,
            ),
            None => None,
        };
        let open = handshake::OpenOptions {
            connect_timeout: options.connect_timeout,
            request_timeout: options.request_timeout,
            max_response: options.max_response_bytes,
            tls,
            identity: options.identity.clone(),
            known_brokers,
        };
        let h = Hermit {
            addr,
            open,
            connect: tokio::sync::Mutex::new(Backoff {
                delay: options.reconnect_backoff,
                not_before: None,
                attempts: 0,
                last_error: None,
                judged: 0,
            }),
            opts: options,
            current: Mutex::new(None),
            attempts: AtomicU64::new(0),
            permits,
            opened: AtomicU64::new(0),
        };
        h.conn().await?;
        Ok(h)
    }

    fn current_usable(&self) -> Option<Arc<Conn>> {
        let cur = self.current.lock().unwrap_or_else(PoisonError::into_inner);
        cur.as_ref().filter(|c| c.is_usable()).cloned()
    }

    /// The usable connection, opening one if needed (waiting out the backoff
    /// left by a failed attempt first).
    async fn conn(&self) -> Result<Arc<Conn>, ClientError> {
        if let Some(c) = self.current_usable() {
            return Ok(c);
        }
        let seen = self.attempts.load(Ordering::Acquire);
        let mut backoff = self.connect.lock().await;
        if let Some(c) = self.current_usable() {
            return Ok(c);
        }
        if backoff.attempts != seen
            && let Some(e) = &backoff.last_error
        {
            // An attempt made while we queued just failed: share its verdict.
            return Err(e.clone());
        }
        let previous = self
            .current
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        if let Some(prev) = previous.filter(|p| p.id != backoff.judged) {
            // Judge each dead connection once, not on every attempt after it.
            backoff.judged = prev.id;
            if prev.opened_at.elapsed() < STABLE_AFTER {
                // It died young (e.g. TooManyConnections right after the
                // hello): back off as after a failed connect, or a refusing
                // broker would see a tight reconnect loop.
                let not_before = Instant::now() + backoff.delay;
                backoff.not_before =
                    Some(backoff.not_before.map_or(not_before, |t| t.max(not_before)));
                backoff.delay = (backoff.delay * 2).min(self.opts.reconnect_backoff_max);
            } else {
                backoff.delay = self.opts.reconnect_backoff;
            }
        }
        if let Some(t) = backoff.not_before {
            tokio::time::sleep_until(t).await;
        }
        backoff.attempts += 1;
        self.attempts.store(backoff.attempts, Ordering::Release);
        let id = self.opened.load(Ordering::Relaxed) + 1;
        let o = &self.opts;
        match handshake::connect(&self.addr, id, &self.open).await {
            Ok(conn) => {
                self.opened.store(id, Ordering::Relaxed);
                // The delay is reset once this connection proves stable (above).
                backoff.not_before = None;
                backoff.last_error = None;
                let old = self
                    .current
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .replace(conn.clone());
                drop(old); // A draining connection lives on until its answers are in.
                tracing::debug!(addr = %self.addr, id, "connected");
                Ok(conn)
            }
            Err(e) => {
                tracing::debug!(addr = %self.addr, error = %e, retry_in = ?backoff.delay, "connect failed");
                backoff.not_before = Some(Instant::now() + backoff.delay);
                backoff.delay = (backoff.delay * 2).min(o.reconnect_backoff_max);
                backoff.last_error = Some(e.clone());
                Err(e)
            }
        }
    }

    async fn permit(&self) -> Result<OwnedSemaphorePermit, ClientError> {
        self.permits
            .clone()
            .acquire_owned()
            .await
            .map_err(|_| ClientError::Closed)
    }

    /// Send one request frame (`head`, then `body` if any) and wait for its
    /// answer (`extra_wait` on top of the request timeout).
    async fn round_trip(
        &self,
        head: Bytes,
        body: Option<Bytes>,
        extra_wait: Duration,
    ) -> Result<Reply, ClientError> {
        let permit = self.permit().await?;
        let conn = self.conn().await?;
        Self::round_trip_on(&conn, permit, head, body, extra_wait).await
    }

    /// [`Hermit::round_trip`] on `conn`, for a request whose encoding
    /// depends on what that connection's broker announced.
    async fn round_trip_on(
        conn: &Arc<Conn>,
        permit: OwnedSemaphorePermit,
        head: Bytes,
        body: Option<Bytes>,
        extra_wait: Duration,
    ) -> Result<Reply, ClientError> {
        let (tx, rx) = oneshot::channel();
        conn.enqueue(head, body, ReplyTo::Oneshot(tx), Some(permit), extra_wait)?;
        match rx.await {
            Ok(r) => r,
            Err(_) => Err(ClientError::lost(conn.addr(), "connection closed")),
        }
    }
}

/// The HermitMQ partition handle: the produce frame head (everything
/// before the batch), encoded once and shared by every batch of the
/// partition; the writer fills in its length and correlation id.
pub(crate) struct HermitPartition {
    head: Bytes,
}

impl Transport for Arc<Hermit> {
    type Partition = HermitPartition;
    type Link = Arc<Conn>;

    fn kind(&self) -> TransportKind {
        TransportKind::Hermit
    }

    fn connections_opened(&self) -> u64 {
        self.opened.load(Ordering::Relaxed)
    }

    fn permits(&self) -> &Arc<Semaphore> {
        &self.permits
    }

    fn batch_limits(&self) -> BatchLimits {
        // A batch over the broker's frame limit is refused per batch by
        // `Conn::enqueue`; the producer's `batch_bytes` is far below it.
        BatchLimits::NONE
    }

    async fn produce(
        &self,
        topic: &str,
        partition: u32,
        ack: Ack,
        batch: Bytes,
    ) -> Result<u64, ClientError> {
        topic_name(topic)?;
        let head = connection::produce_head(topic, partition, ack)?;
        match self.round_trip(head, Some(batch), Duration::ZERO).await? {
            Reply::Produce { base_offset } => Ok(base_offset),
            other => Err(unexpected(&other)),
        }
    }

    async fn fetch(
        &self,
        topic: &str,
        partition: u32,
        offset: u64,
        params: FetchParams,
    ) -> Result<FetchResponse, ClientError> {
        let ms = |d: Duration| u32::try_from(d.as_millis()).unwrap_or(u32::MAX);
        let permit = self.permit().await?;
        let conn = self.conn().await?;
        // min_bytes only to a broker that reads it: an older one refuses
        // the longer body (it gets the plain fetch: answered on any data).
        let (min_bytes, min_wait_ms) = if conn.fetch_min_bytes {
            (params.min_bytes, ms(params.min_wait))
        } else {
            (1, 0)
        };
        let head = connection::encode_control(&Request::Fetch(Fetch {
            topic: topic_name(topic)?,
            partition,
            offset,
            max_bytes: params.max_bytes,
            max_wait_ms: ms(params.max_wait),
            min_bytes,
            min_wait_ms,
        }))?;
        match Hermit::round_trip_on(&conn, permit, head, None, params.max_wait).await? {
            Reply::Fetch(mut f) => {
                f.topic = Arc::from(topic);
                f.partition = partition;
                Ok(f)
            }
            other => Err(unexpected(&other)),
        }
    }

    async fn call(&self, request: &Request<'_>) -> Result<Bytes, ClientError> {
        let head = connection::encode_control(request)?;
        match self.round_trip(head, None, Duration::ZERO).await? {
            Reply::Control(frame) => Ok(frame),
            other => Err(unexpected(&other)),
        }
    }

    fn partition_handle(
        &self,
        topic: &Arc<str>,
        partition: u32,
        ack: Ack,
    ) -> Result<HermitPartition, ClientError> {
        Ok(HermitPartition {
            head: connection::produce_head(topic, partition, ack)?,
        })
    }

    async fn link(&self) -> Result<Arc<Conn>, ClientError> {
        self.conn().await
    }
}

impl BatchLink for Arc<Conn> {
    type Partition = HermitPartition;

    fn id(&self) -> u64 {
        self.id
    }

    fn is_usable(&self) -> bool {
        Conn::is_usable(self)
    }

    async fn submit(
        &self,
        partition: &HermitPartition,
        batch: &Bytes,
        _id: BatchId,
        reply: ReplyTo,
        permit: OwnedSemaphorePermit,
    ) -> Result<(), SubmitError> {
        // The broker appends a connection's produce requests in the order
        // they arrive, and the writer sends them in submission order.
        Conn::enqueue(
            self,
            partition.head.clone(),
            Some(batch.clone()),
            reply,
            Some(permit),
            Duration::ZERO,
        )
        .map_err(|e| match e {
            e @ ClientError::RequestTooLarge { .. } => SubmitError::Refused(e),
            // The connection is draining or dead: the next one comes from
            // `Hermit::conn`, which paces reconnects.
            e => SubmitError::Lost(e),
        })
    }
}
