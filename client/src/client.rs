//! [`Client`]: a cheap, cloneable handle on a broker — one multiplexed
//! connection to a HermitMQ broker, reopened with backoff when it dies, or a
//! NATS JetStream server or cluster (see [`crate::transport`]) — with one
//! async method per protocol operation.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use hermit_protocol::Ack;
use hermit_protocol::WireError;
use hermit_protocol::frame::{MAX_LIST_LIMIT, TopicMetadata, TopicPage, TopicSettings};
use hermit_protocol::topic::{TopicName, validate_group};
use tokio::time::Instant;

use crate::crypto::Identity;
use crate::error::ClientError;
use crate::records::FetchResponse;
use crate::transport::{AnyTransport, NatsCredentials, Transport, TransportKind};

/// Connection settings. Each field's doc ends with its default.
///
/// Over NATS (`nats://…`, see `docs/SCALE-OUT.md`): `connect_timeout` bounds
/// the first connection and the wait for JetStream to answer,
/// `request_timeout` every JetStream request and publish ack, `max_in_flight`
/// the produces and batches in flight, the backoffs the NATS client's
/// reconnects; `max_response_bytes` does not apply (the server's
/// `max_payload` does). Transport settings of NATS (replicas, partitions of
/// auto-created topics, auto-create) are options of the URL:
/// [`NatsOptions`](crate::NatsOptions).
///
/// `Debug` shows the identity's fingerprint only, never its key.
#[derive(Clone, PartialEq, Eq)]
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
    /// The key this client authenticates with (protocol version 3): when a
    /// broker offers or requires authentication, every connection signs its
    /// hello's nonce with it before any request is sent, and every request
    /// on it runs as the principal `fp(SPKI)` — the same fingerprint the
    /// identity's sealed records are addressed with. Without one the client
    /// stays anonymous, and a broker that requires authentication is refused
    /// with [`ClientError::AuthRequired`]. Not used over NATS. Default `None`.
    pub identity: Option<Arc<Identity>>,
    /// For `hermits://`: the PEM file of the CA certificates that may sign
    /// the broker's certificate (a development CA from `hermit tls
    /// self-signed`, a company CA). `None` trusts the system's roots.
    /// Default `None`.
    pub tls_ca: Option<PathBuf>,
    /// For `hermits://` with mutual TLS: the client certificate chain and
    /// its private key (PEM files), presented when the broker asks. Default
    /// `None`.
    pub tls_client_cert: Option<ClientCert>,
    /// For `nats://`: how to authenticate to the NATS server (user and
    /// password, token, nkey seed or `.creds` file). `None` connects
    /// without credentials, which a server with an `authorization` block
    /// refuses with [`ClientError::AuthFailed`]. Not used over HermitMQ
    /// (its principals are [`ClientOptions::identity`] keys). Default `None`.
    pub nats_credentials: Option<NatsCredentials>,
}

/// A client certificate for mutual TLS: two PEM files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientCert {
    /// The certificate chain, leaf first.
    pub cert: PathBuf,
    /// Its private key (PKCS#8, SEC1 or PKCS#1), read when connecting.
    pub key: PathBuf,
}

impl std::fmt::Debug for ClientOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientOptions")
            .field("connect_timeout", &self.connect_timeout)
            .field("request_timeout", &self.request_timeout)
            .field("max_in_flight", &self.max_in_flight)
            .field("reconnect_backoff", &self.reconnect_backoff)
            .field("reconnect_backoff_max", &self.reconnect_backoff_max)
            .field("max_response_bytes", &self.max_response_bytes)
            // The fingerprint names the principal; the key stays out of logs.
            .field(
                "identity",
                &self.identity.as_ref().map(|i| i.fingerprint().to_hex()),
            )
            .field("tls_ca", &self.tls_ca)
            .field("tls_client_cert", &self.tls_client_cert)
            // Its own Debug shows the kind and the user, never the secret.
            .field("nats_credentials", &self.nats_credentials)
            .finish()
    }
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
            identity: None,
            tls_ca: None,
            tls_client_cert: None,
            nats_credentials: None,
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
    transport: AnyTransport,
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
        let transport = AnyTransport::connect(&url, options.clone()).await?;
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
        self.transport.kind()
    }

    /// How many connections this client has opened (1 until the first reconnect).
    pub fn connections_opened(&self) -> u64 {
        self.transport.connections_opened()
    }

    /// The transport, for the producer's sender task (batch submission).
    pub(crate) fn transport(&self) -> &AnyTransport {
        &self.transport
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
        self.transport.produce(topic, partition, ack, batch).await
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
        self.transport
            .fetch(topic, partition, offset, max_bytes, max_wait)
            .await
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
        self.transport.commit(group, topic, partition, offset).await
    }

    /// The next offset `group` will read, or `None` if it never committed.
    pub async fn committed(
        &self,
        group: &str,
        topic: &str,
        partition: u32,
    ) -> Result<Option<u64>, ClientError> {
        self.transport.committed(group, topic, partition).await
    }

    /// Describe every topic the caller may describe (`None`) or one
    /// (`UnknownTopic` if it does not exist).
    ///
    /// A HermitMQ broker answers `None` only when that fits in one page (at
    /// most [`MAX_LIST_LIMIT`] topics the caller may describe, among at most
    /// eight times as many on the broker); otherwise it refuses with
    /// `PayloadTooLarge`: use [`Client::list_topics`] or
    /// [`Client::all_topics`] there.
    pub async fn metadata(&self, topic: Option<&str>) -> Result<Vec<TopicMetadata>, ClientError> {
        self.transport.metadata(topic).await
    }

    /// One page of the topics the caller may describe, in name order
    /// (bytewise), whose names sort after `after` — `None` starts at the
    /// first; pass the previous page's [`TopicPage::next`] to go on — at
    /// most `limit` (1..=[`MAX_LIST_LIMIT`], else
    /// [`ClientError::InvalidArgument`]) of them. The broker bounds the
    /// work of each request, so a page may hold fewer topics, even none,
    /// and still have a `next`: the listing is complete only when `next`
    /// is `None`. A topic created or deleted meanwhile may or may not be
    /// listed; every other one is listed exactly once. A `next` of the
    /// form `__cursor.<n>` stands for a name the caller may not see and is
    /// known only to the connection that handed it out (a reconnect in
    /// between makes the broker refuse it: list again from the start).
    pub async fn list_topics(
        &self,
        after: Option<&str>,
        limit: u32,
    ) -> Result<TopicPage, ClientError> {
        if !(1..=MAX_LIST_LIMIT).contains(&limit) {
            return Err(ClientError::InvalidArgument(format!(
                "a topic page holds 1..={MAX_LIST_LIMIT} topics, not {limit}"
            )));
        }
        // A cursor is a place among names; the broker may hand out an
        // internal one (`__…`), so only the charset rules apply.
        if let Some(a) = after {
            TopicName::new_any(a).map_err(|e| ClientError::topic_name(a, e))?;
        }
        let page = self.transport.list_topics(after, limit).await?;
        // An opaque cursor (`__cursor.<n>`, standing for a name the caller
        // may not see) cannot be compared; it only must not repeat.
        let opaque = |c: &str| c.starts_with("__cursor.");
        if let (Some(a), Some(n)) = (after, page.next.as_deref())
            && (n == a || (!opaque(a) && !opaque(n) && n < a))
        {
            // A cursor that does not move would page forever.
            return Err(ClientError::Protocol(WireError::InvalidField {
                field: "ListTopics next cursor (it does not sort after the request's)",
                value: n.len() as u64,
            }));
        }
        Ok(page)
    }

    /// Every topic the caller may describe, in name order, from every page
    /// of [`Client::list_topics`] (of [`MAX_LIST_LIMIT`] topics). It holds
    /// them all in this client's memory: where there may be very many, walk
    /// the pages with [`Client::list_topics`] instead.
    pub async fn all_topics(&self) -> Result<Vec<TopicMetadata>, ClientError> {
        let mut all = Vec::new();
        let mut after: Option<String> = None;
        loop {
            let page = self.list_topics(after.as_deref(), MAX_LIST_LIMIT).await?;
            all.extend(page.topics);
            match page.next {
                Some(next) => after = Some(next),
                None => return Ok(all),
            }
        }
    }

    /// Create a topic (`TopicExists` if it already does).
    pub async fn create_topic(
        &self,
        topic: &str,
        settings: TopicSettings,
    ) -> Result<(), ClientError> {
        self.transport.create_topic(topic, settings).await
    }

    /// Delete a topic and its data.
    pub async fn delete_topic(&self, topic: &str) -> Result<(), ClientError> {
        self.transport.delete_topic(topic).await
    }

    /// Round trip to the broker; returns how long it took.
    pub async fn ping(&self) -> Result<Duration, ClientError> {
        let start = Instant::now();
        self.transport.ping().await?;
        Ok(start.elapsed())
    }
}
