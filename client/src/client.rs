//! [`Client`]: a cheap, cloneable handle on one multiplexed connection to a
//! broker, reopened with backoff when it dies, with one async method per
//! protocol operation.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use bytes::Bytes;
use hermit_protocol::frame::{Commit, Committed, CreateTopic, Fetch, TopicMetadata, TopicSettings};
use hermit_protocol::topic::{TopicName, validate_group};
use hermit_protocol::{Ack, Request, WireError};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, oneshot};
use tokio::time::Instant;

use crate::connection::{self, Conn, Reply, ReplyTo};
use crate::error::ClientError;
use crate::records::FetchResponse;

/// Connection settings. Each field's doc ends with its default.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientOptions {
    /// Limit on opening a connection (TCP connect plus the hello). Default 5 s.
    pub connect_timeout: Duration,
    /// Limit on waiting for any answer (a fetch gets its `max_wait` on top).
    /// When it passes, the request fails with [`ClientError::Timeout`] and
    /// the connection is closed, failing the rest of its requests with
    /// [`ClientError::ConnectionLost`] (retriable). Default 30 s.
    pub request_timeout: Duration,
    /// Most requests in flight on the connection; further requests wait for
    /// a slot. Keep it at or below the broker's `max_in_flight` (1024), or the
    /// broker stops reading and requests queue in the socket. Default 512.
    pub max_in_flight: usize,
    /// First wait before reconnecting after a failed connect; doubles on each
    /// failure up to `reconnect_backoff_max`. Default 50 ms.
    pub reconnect_backoff: Duration,
    /// Longest wait between reconnect attempts. Default 2 s.
    pub reconnect_backoff_max: Duration,
    /// Largest response frame accepted (a fetch returns at least one whole
    /// batch even above its `max_bytes`). Default 128 MiB.
    pub max_response_bytes: u32,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            connect_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(30),
            max_in_flight: 512,
            reconnect_backoff: Duration::from_millis(50),
            reconnect_backoff_max: Duration::from_secs(2),
            max_response_bytes: 128 << 20,
        }
    }
}

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

struct ClientInner {
    addr: String,
    opts: ClientOptions,
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

impl Drop for ClientInner {
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

/// A handle on a broker: one TCP connection carrying many requests at once,
/// answers matched by correlation id, reopened with backoff after it dies.
///
/// Cheap to clone; clones share the connection and can be used from any task.
/// A request whose connection dies before its answer fails with a retriable
/// error ([`ClientError::is_retriable`]); it is never silently dropped, and
/// never silently retried (the broker may or may not have carried it out).
#[derive(Clone)]
pub struct Client {
    inner: Arc<ClientInner>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("addr", &self.inner.addr)
            .finish_non_exhaustive()
    }
}

fn unexpected(reply: &Reply) -> ClientError {
    tracing::warn!(?reply, "answer of the wrong kind");
    ClientError::Protocol(WireError::InvalidField {
        field: "response op",
        value: 0,
    })
}

fn topic_name(topic: &str) -> Result<TopicName<&str>, ClientError> {
    TopicName::new(topic).map_err(|e| ClientError::topic_name(topic, e))
}

fn group_name(group: &str) -> Result<&str, ClientError> {
    validate_group(group).map_err(|source| ClientError::InvalidName {
        what: "group",
        name: group.to_owned(),
        source,
    })?;
    Ok(group)
}

impl Client {
    /// Connect to `addr` (`host:port`; resolved again at every reconnect, so a
    /// broker that comes back at the same name is found). Fails with
    /// [`ClientError::Connect`] if the first connection cannot be opened.
    pub async fn connect(
        addr: impl Into<String>,
        options: ClientOptions,
    ) -> Result<Client, ClientError> {
        let permits = Arc::new(Semaphore::new(options.max_in_flight.max(1)));
        let client = Client {
            inner: Arc::new(ClientInner {
                addr: addr.into(),
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
            }),
        };
        client.conn().await?;
        Ok(client)
    }

    /// The address given to [`Client::connect`].
    pub fn addr(&self) -> &str {
        &self.inner.addr
    }

    /// The options in force.
    pub fn options(&self) -> &ClientOptions {
        &self.inner.opts
    }

    /// How many connections this client has opened (1 until the first reconnect).
    pub fn connections_opened(&self) -> u64 {
        self.inner.opened.load(Ordering::Relaxed)
    }

    fn current_usable(&self) -> Option<Arc<Conn>> {
        let cur = self
            .inner
            .current
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        cur.as_ref().filter(|c| c.is_usable()).cloned()
    }

    /// The usable connection, opening one if needed (waiting out the backoff
    /// left by a failed attempt first).
    pub(crate) async fn conn(&self) -> Result<Arc<Conn>, ClientError> {
        if let Some(c) = self.current_usable() {
            return Ok(c);
        }
        let seen = self.inner.attempts.load(Ordering::Acquire);
        let mut backoff = self.inner.connect.lock().await;
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
            .inner
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
                backoff.delay = (backoff.delay * 2).min(self.inner.opts.reconnect_backoff_max);
            } else {
                backoff.delay = self.inner.opts.reconnect_backoff;
            }
        }
        if let Some(t) = backoff.not_before {
            tokio::time::sleep_until(t).await;
        }
        backoff.attempts += 1;
        self.inner
            .attempts
            .store(backoff.attempts, Ordering::Release);
        let id = self.inner.opened.load(Ordering::Relaxed) + 1;
        let o = &self.inner.opts;
        match connection::open(
            &self.inner.addr,
            id,
            o.connect_timeout,
            o.request_timeout,
            o.max_response_bytes,
        )
        .await
        {
            Ok(conn) => {
                self.inner.opened.store(id, Ordering::Relaxed);
                // The delay is reset once this connection proves stable (above).
                backoff.not_before = None;
                backoff.last_error = None;
                let old = self
                    .inner
                    .current
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .replace(conn.clone());
                drop(old); // A draining connection lives on until its answers are in.
                tracing::debug!(addr = %self.inner.addr, id, "connected");
                Ok(conn)
            }
            Err(e) => {
                tracing::debug!(addr = %self.inner.addr, error = %e, retry_in = ?backoff.delay, "connect failed");
                backoff.not_before = Some(Instant::now() + backoff.delay);
                backoff.delay = (backoff.delay * 2).min(o.reconnect_backoff_max);
                backoff.last_error = Some(e.clone());
                Err(e)
            }
        }
    }

    pub(crate) fn permits(&self) -> &Arc<Semaphore> {
        &self.inner.permits
    }

    async fn permit(&self) -> Result<OwnedSemaphorePermit, ClientError> {
        self.inner
            .permits
            .clone()
            .acquire_owned()
            .await
            .map_err(|_| ClientError::Closed)
    }

    async fn call(
        &self,
        head: Bytes,
        body: Option<Bytes>,
        extra_wait: Duration,
    ) -> Result<Reply, ClientError> {
        let permit = self.permit().await?;
        let conn = self.conn().await?;
        let (tx, rx) = oneshot::channel();
        conn.submit(head, body, ReplyTo::Oneshot(tx), Some(permit), extra_wait)?;
        match rx.await {
            Ok(r) => r,
            Err(_) => Err(ClientError::lost(conn.addr(), "connection closed")),
        }
    }

    /// Append one record batch (as built by
    /// [`hermit_protocol::BatchBuilder::finish`]) to a partition; returns the
    /// offset the broker gave its first record. The batch is sent as it is,
    /// without a copy.
    pub async fn produce(
        &self,
        topic: &str,
        partition: u32,
        ack: Ack,
        batch: Bytes,
    ) -> Result<u64, ClientError> {
        topic_name(topic)?;
        let head = connection::produce_head(topic, partition, ack)?;
        match self.call(head, Some(batch), Duration::ZERO).await? {
            Reply::Produce { base_offset } => Ok(base_offset),
            other => Err(unexpected(&other)),
        }
    }

    /// Read whole batches from `offset`, waiting up to `max_wait` for data
    /// when there is none (long poll). The first batch may start before
    /// `offset`. Records are slices of the response frame (no copy).
    pub async fn fetch(
        &self,
        topic: &str,
        partition: u32,
        offset: u64,
        max_bytes: u32,
        max_wait: Duration,
    ) -> Result<FetchResponse, ClientError> {
        let max_wait_ms = u32::try_from(max_wait.as_millis()).unwrap_or(u32::MAX);
        let head = connection::encode_control(&Request::Fetch(Fetch {
            topic: topic_name(topic)?,
            partition,
            offset,
            max_bytes,
            max_wait_ms,
        }))?;
        match self.call(head, None, max_wait).await? {
            Reply::Fetch(mut f) => {
                f.topic = Arc::from(topic);
                f.partition = partition;
                Ok(f)
            }
            other => Err(unexpected(&other)),
        }
    }

    /// Store `offset` as the next offset `group` will read. Refused with
    /// `OffsetAheadOfLog` beyond the high watermark.
    pub async fn commit(
        &self,
        group: &str,
        topic: &str,
        partition: u32,
        offset: u64,
    ) -> Result<(), ClientError> {
        let head = connection::encode_control(&Request::Commit(Commit {
            group: group_name(group)?,
            topic: topic_name(topic)?,
            partition,
            offset,
        }))?;
        match self.call(head, None, Duration::ZERO).await? {
            Reply::Commit => Ok(()),
            other => Err(unexpected(&other)),
        }
    }

    /// The next offset `group` will read, or `None` if it never committed.
    pub async fn committed(
        &self,
        group: &str,
        topic: &str,
        partition: u32,
    ) -> Result<Option<u64>, ClientError> {
        let head = connection::encode_control(&Request::Committed(Committed {
            group: group_name(group)?,
            topic: topic_name(topic)?,
            partition,
        }))?;
        match self.call(head, None, Duration::ZERO).await? {
            Reply::Committed(o) => Ok(o),
            other => Err(unexpected(&other)),
        }
    }

    /// Describe every topic (`None`) or one (`UnknownTopic` if it does not exist).
    pub async fn metadata(&self, topic: Option<&str>) -> Result<Vec<TopicMetadata>, ClientError> {
        let topic = topic.map(topic_name).transpose()?;
        let head = connection::encode_control(&Request::Metadata(topic))?;
        match self.call(head, None, Duration::ZERO).await? {
            Reply::Metadata(t) => Ok(t),
            other => Err(unexpected(&other)),
        }
    }

    /// Create a topic (`TopicExists` if it already does).
    pub async fn create_topic(
        &self,
        topic: &str,
        settings: TopicSettings,
    ) -> Result<(), ClientError> {
        let head = connection::encode_control(&Request::CreateTopic(CreateTopic {
            topic: topic_name(topic)?,
            settings,
        }))?;
        match self.call(head, None, Duration::ZERO).await? {
            Reply::CreateTopic => Ok(()),
            other => Err(unexpected(&other)),
        }
    }

    /// Delete a topic and its data.
    pub async fn delete_topic(&self, topic: &str) -> Result<(), ClientError> {
        let head = connection::encode_control(&Request::DeleteTopic(topic_name(topic)?))?;
        match self.call(head, None, Duration::ZERO).await? {
            Reply::DeleteTopic => Ok(()),
            other => Err(unexpected(&other)),
        }
    }

    /// Round trip to the broker; returns how long it took.
    pub async fn ping(&self) -> Result<Duration, ClientError> {
        let start = Instant::now();
        let head = connection::encode_control(&Request::Ping)?;
        match self.call(head, None, Duration::ZERO).await? {
            Reply::Ping => Ok(start.elapsed()),
            other => Err(unexpected(&other)),
        }
    }
}
