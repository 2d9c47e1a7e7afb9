//! [`Client`]: a cheap, cloneable handle on a broker — one multiplexed
//! connection to a HermitMQ broker, reopened with backoff when it dies, or a
//! NATS JetStream server or cluster (see [`crate::transport`]) — with one
//! async method per protocol operation.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use hermit_protocol::Ack;
use hermit_protocol::frame::{TopicMetadata, TopicSettings};
use hermit_protocol::topic::{TopicName, validate_group};
use tokio::sync::Semaphore;
use tokio::time::Instant;

use crate::error::ClientError;
use crate::records::FetchResponse;
use crate::transport::hermit::Hermit;
use crate::transport::{Endpoint, Link, Transport, TransportKind};

/// Connection settings. Each field's doc ends with its default.
///
/// Over NATS (`nats://…`, see `docs/SCALE-OUT.md`): `connect_timeout` bounds
/// the first connection and the wait for JetStream to answer,
/// `request_timeout` every JetStream request and publish ack, `max_in_flight`
/// the requests and batches in flight, the backoffs the NATS client's
/// reconnects; `max_response_bytes` does not apply (the server's
/// `max_payload` does). Transport settings of NATS (replicas, partitions of
/// auto-created topics, auto-create) are options of the URL:
/// [`NatsOptions`](crate::NatsOptions).
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

/// A handle on a broker: one TCP connection carrying many requests at once,
/// answers matched by correlation id, reopened with backoff after it dies —
/// or, for a `nats://` URL, a NATS JetStream server or cluster (see
/// [`crate::transport`]).
///
/// Cheap to clone; clones share the connection and can be used from any task.
/// A request whose connection dies before its answer fails with a retriable
/// error ([`ClientError::is_retriable`]); it is never silently dropped, and
/// never silently retried (the broker may or may not have carried it out).
#[derive(Clone)]
pub struct Client {
    /// The URL given to [`Client::connect`].
    addr: Arc<str>,
    opts: Arc<ClientOptions>,
    transport: Transport,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("addr", &self.addr)
            .field("transport", &self.transport_kind())
            .finish_non_exhaustive()
    }
}

pub(crate) fn topic_name(topic: &str) -> Result<TopicName<&str>, ClientError> {
    TopicName::new(topic).map_err(|e| ClientError::topic_name(topic, e))
}

pub(crate) fn group_name(group: &str) -> Result<&str, ClientError> {
    validate_group(group).map_err(|source| ClientError::InvalidName {
        what: "group",
        name: group.to_owned(),
        source,
    })?;
    Ok(group)
}

/// Call the same method on whichever transport the client uses.
macro_rules! dispatch {
    ($self:ident, $t:ident => $call:expr) => {
        match &$self.transport {
            Transport::Hermit($t) => $call,
            #[cfg(feature = "nats")]
            Transport::Nats($t) => $call,
        }
    };
}

impl Client {
    /// Connect to `url` and return once the first connection is open:
    /// - `host:port` or `hermit://host:port`: a HermitMQ broker (the name is
    ///   resolved again at every reconnect, so a broker that comes back at
    ///   the same name is found);
    /// - `nats://host:port[,host:port…][?replicas=N&partitions=N&auto_create=BOOL]`:
    ///   NATS JetStream (cargo feature `nats`; see [`crate::transport`]).
    ///
    /// Fails with [`ClientError::Connect`] if the first connection cannot be
    /// opened, and with [`ClientError::InvalidArgument`] for a URL it cannot
    /// use.
    pub async fn connect(
        url: impl Into<String>,
        options: ClientOptions,
    ) -> Result<Client, ClientError> {
        let url: String = url.into();
        let transport = match Endpoint::parse(&url)? {
            Endpoint::Hermit { addr } => {
                Transport::Hermit(Arc::new(Hermit::connect(addr, options.clone()).await?))
            }
            #[cfg(feature = "nats")]
            Endpoint::Nats {
                servers,
                options: nats,
            } => Transport::Nats(Arc::new(
                crate::transport::nats::Nats::connect(&url, servers, nats, options.clone()).await?,
            )),
            #[cfg(not(feature = "nats"))]
            Endpoint::Nats { .. } => {
                return Err(ClientError::InvalidArgument(format!(
                    "{url}: this build of hermit-client has no NATS transport (cargo feature `nats`)"
                )));
            }
        };
        Ok(Client {
            addr: Arc::from(url),
            opts: Arc::new(options),
            transport,
        })
    }

    /// The URL given to [`Client::connect`].
    pub fn addr(&self) -> &str {
        &self.addr
    }

    /// The options in force.
    pub fn options(&self) -> &ClientOptions {
        &self.opts
    }

    /// Which transport this client uses.
    pub fn transport_kind(&self) -> TransportKind {
        match &self.transport {
            Transport::Hermit(_) => TransportKind::Hermit,
            #[cfg(feature = "nats")]
            Transport::Nats(_) => TransportKind::Nats,
        }
    }

    /// How many connections this client has opened (1 until the first reconnect).
    pub fn connections_opened(&self) -> u64 {
        dispatch!(self, t => t.connections_opened())
    }

    #[cfg(feature = "nats")]
    pub(crate) fn transport(&self) -> &Transport {
        &self.transport
    }

    /// What the producer sends batches on, (re)connecting if needed.
    pub(crate) async fn link(&self) -> Result<Link, ClientError> {
        Ok(match &self.transport {
            Transport::Hermit(h) => Link::Hermit(h.conn().await?),
            #[cfg(feature = "nats")]
            Transport::Nats(n) => Link::Nats(n.link()),
        })
    }

    /// Bounds requests in flight (the producer takes one per batch).
    pub(crate) fn permits(&self) -> &Arc<Semaphore> {
        dispatch!(self, t => &t.permits)
    }

    /// Append one record batch (as built by
    /// [`hermit_protocol::BatchBuilder::finish`]) to a partition; returns the
    /// offset the broker gave its first record. Over HermitMQ the batch is
    /// sent as it is, without a copy.
    pub async fn produce(
        &self,
        topic: &str,
        partition: u32,
        ack: Ack,
        batch: Bytes,
    ) -> Result<u64, ClientError> {
        dispatch!(self, t => t.produce(topic, partition, ack, batch).await)
    }

    /// Read whole batches from `offset`, waiting up to `max_wait` for data
    /// when there is none (long poll). The first batch may start before
    /// `offset`. Records are slices of the response buffer (no copy).
    pub async fn fetch(
        &self,
        topic: &str,
        partition: u32,
        offset: u64,
        max_bytes: u32,
        max_wait: Duration,
    ) -> Result<FetchResponse, ClientError> {
        dispatch!(self, t => t.fetch(topic, partition, offset, max_bytes, max_wait).await)
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
        dispatch!(self, t => t.commit(group, topic, partition, offset).await)
    }

    /// The next offset `group` will read, or `None` if it never committed.
    pub async fn committed(
        &self,
        group: &str,
        topic: &str,
        partition: u32,
    ) -> Result<Option<u64>, ClientError> {
        dispatch!(self, t => t.committed(group, topic, partition).await)
    }

    /// Describe every topic (`None`) or one (`UnknownTopic` if it does not exist).
    pub async fn metadata(&self, topic: Option<&str>) -> Result<Vec<TopicMetadata>, ClientError> {
        dispatch!(self, t => t.metadata(topic).await)
    }

    /// Create a topic (`TopicExists` if it already does).
    pub async fn create_topic(
        &self,
        topic: &str,
        settings: TopicSettings,
    ) -> Result<(), ClientError> {
        dispatch!(self, t => t.create_topic(topic, settings).await)
    }

    /// Delete a topic and its data.
    pub async fn delete_topic(&self, topic: &str) -> Result<(), ClientError> {
        dispatch!(self, t => t.delete_topic(topic).await)
    }

    /// Round trip to the broker; returns how long it took.
    pub async fn ping(&self) -> Result<Duration, ClientError> {
        let start = Instant::now();
        dispatch!(self, t => t.ping().await)?;
        Ok(start.elapsed())
    }
}
