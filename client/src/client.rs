//! [`Client`]: a cheap, cloneable handle on a broker — one multiplexed
//! connection to a HermitMQ broker, reopened with backoff when it dies, or a
//! NATS JetStream server or cluster (see [`crate::transport`]) — with one
//! async method per protocol operation.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use hermit_protocol::Ack;
use hermit_protocol::frame::{TopicMetadata, TopicSettings};
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

    /// Describe every topic (`None`) or one (`UnknownTopic` if it does not exist).
    pub async fn metadata(&self, topic: Option<&str>) -> Result<Vec<TopicMetadata>, ClientError> {
        self.transport.metadata(topic).await
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
