//! Transports: how a [`Client`](crate::Client) reaches the log it writes to
//! and reads from. The producer, the consumer, the sealed producer and
//! consumer and the CLI all go through [`Client`](crate::Client), so they
//! run unchanged over either:
//!
//! - **HermitMQ** (`hermit://host:port`, or a bare `host:port`): one
//!   multiplexed TCP connection to a HermitMQ broker (the default).
//! - **NATS JetStream** (`nats://host:port[,host:port…][?option=value&…]`,
//!   cargo feature `nats`): replicated JetStream streams on one NATS server
//!   or a cluster. The mapping (topics, offsets, groups) is in
//!   `docs/SCALE-OUT.md`; the offset encoding in [`nats_offset`].
//!
//! Which one is chosen by [`Endpoint::parse`] from the URL given to
//! [`Client::connect`](crate::Client::connect).
//!
//! # The contract
//! What a transport must provide is written down as two crate-internal
//! traits, `Transport` (the operations, per-partition handles, links) and
//! `BatchLink` (submitting record batches on one connection), with their
//! answers in the transport-neutral `reply` module. Each transport
//! implements them in its own module (`hermit`, `nats`); the enums
//! `AnyTransport`, `Link` and `PartitionHandle` implement them again by
//! delegation — one `match` per call, no boxed trait objects, so the
//! HermitMQ hot path (the producer's sender task submitting a batch) pays one
//! predictable branch per batch. Nothing outside this module names a
//! transport: a new one is a module here, a variant of each enum (and of
//! [`TransportKind`]) and its [`Endpoint`] parsing.

pub(crate) mod hermit;
#[cfg(feature = "nats")]
pub(crate) mod nats;
pub mod nats_offset;
pub(crate) mod reply;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use hermit_protocol::Ack;
use hermit_protocol::frame::{TopicMetadata, TopicPage, TopicSettings};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use zeroize::Zeroizing;

use crate::client::ClientOptions;
use crate::error::ClientError;
use crate::records::FetchResponse;
use crate::transport::hermit::connection::Conn;
use crate::transport::reply::ReplyTo;

/// What every transport provides: the protocol operations behind each
/// [`Client`](crate::Client) method, and what the producer needs to submit
/// record batches without waiting for each answer.
///
/// Implemented by the shared handle (`Arc<…>`) that every clone of a
/// `Client` holds, so links and the tasks a transport spawns can keep it alive.
///
/// # Operations
/// `produce` … `ping` mean what the HermitMQ protocol says
/// (`docs/PROTOCOL.md`); a transport maps them onto what it talks to
/// (`docs/SCALE-OUT.md` for NATS) and answers with the same typed errors:
/// a name the protocol refuses is [`ClientError::InvalidName`] before
/// anything is sent, a refusal is [`ClientError::Broker`] with the status
/// the broker would have given, and so on.
/// - **Never silently dropped.** Every call ends with its answer or an
///   error; a request whose connection died before its answer fails with a
///   retriable error ([`ClientError::is_retriable`]).
/// - **Never silently retried.** A transport does not repeat a request that
///   may already have taken effect (a produce, a commit, a create or delete):
///   whether to retry is the caller's decision. Reconnecting before a request
///   is sent is the transport's business, paced by the client's backoff.
/// - **Bounded.** The producer's batches take one of [`Transport::permits`]
///   (`ClientOptions::max_in_flight`) each and hold it until their answer;
///   a transport bounds its own requests with the same permits (HermitMQ:
///   every request; NATS: produces). No answer is awaited forever: past
///   `request_timeout` (a fetch: plus its `max_wait`) a request fails with
///   [`ClientError::Timeout`].
/// - **Cancellation.** Dropping an operation's future abandons the wait,
///   not the request: one already sent may still be carried out. Nothing
///   else is affected.
///
/// # Batches
/// The producer asks for a [`Transport::partition_handle`] once per (topic,
/// partition) and keeps it; it asks for a [`Transport::link`] — the
/// connection in use, (re)opened if needed — and submits batches on it
/// with [`BatchLink::submit`]. Answers arrive on the producer's channel as
/// [`Completion`](reply::Completion)s.
pub(crate) trait Transport: Send + Sync + 'static {
    /// What the transport keeps per (topic, partition) to submit batches
    /// cheaply: the HermitMQ one caches its encoded frame head, the NATS one
    /// names the partition (its stream and subject come from the
    /// transport's cache). Valid for the transport's lifetime, across
    /// reconnects.
    type Partition: Send + Sync + 'static;
    /// One connection batches are submitted on.
    type Link: BatchLink<Partition = Self::Partition>;

    /// Which transport this is.
    fn kind(&self) -> TransportKind;

    /// How many connections the transport has opened (1 until the first
    /// reconnect; a NATS client counts its own reconnects).
    fn connections_opened(&self) -> u64;

    /// Bounds requests in flight, shared by the operations and the producer
    /// (which takes one permit per batch and hands it to [`BatchLink::submit`]).
    fn permits(&self) -> &Arc<Semaphore>;

    /// Largest batch the transport can carry; the producer never builds a
    /// larger one (a single record above `bytes` still gets a batch of its
    /// own, which `submit` refuses with [`ClientError::RequestTooLarge`]).
    fn batch_limits(&self) -> BatchLimits;

    /// Append one record batch (as built by
    /// [`hermit_protocol::BatchBuilder::finish`]) to a partition; the offset
    /// of its first record.
    async fn produce(
        &self,
        topic: &str,
        partition: u32,
        ack: Ack,
        batch: Bytes,
    ) -> Result<u64, ClientError>;

    /// Whole batches from `offset` on (the first may start before it),
    /// waiting up to `max_wait` when there is nothing yet (long poll);
    /// at least one batch even above `max_bytes`.
    async fn fetch(
        &self,
        topic: &str,
        partition: u32,
        offset: u64,
        max_bytes: u32,
        max_wait: Duration,
    ) -> Result<FetchResponse, ClientError>;

    /// Store `offset` as the next offset `group` reads (`OffsetAheadOfLog`
    /// past the high watermark).
    async fn commit(
        &self,
        group: &str,
        topic: &str,
        partition: u32,
        offset: u64,
    ) -> Result<(), ClientError>;

    /// The next offset `group` reads, `None` before its first commit.
    async fn committed(
        &self,
        group: &str,
        topic: &str,
        partition: u32,
    ) -> Result<Option<u64>, ClientError>;

    /// Every topic (`None`) or one (`UnknownTopic` if it does not exist).
    async fn metadata(&self, topic: Option<&str>) -> Result<Vec<TopicMetadata>, ClientError>;

    /// One page of topics in name order whose names sort after `after`
    /// (a cursor: any valid name, internal ones included, already checked),
    /// at most `limit` of them (1..=`MAX_LIST_LIMIT`, already checked);
    /// `next` is where the following page starts, `None` at the end.
    async fn list_topics(&self, after: Option<&str>, limit: u32) -> Result<TopicPage, ClientError>;

    /// Create a topic (`TopicExists` if it does).
    async fn create_topic(&self, topic: &str, settings: TopicSettings) -> Result<(), ClientError>;

    /// Delete a topic, its data and its committed offsets.
    async fn delete_topic(&self, topic: &str) -> Result<(), ClientError>;

    /// One round trip to the server.
    async fn ping(&self) -> Result<(), ClientError>;

    /// The handle the producer keeps for a partition it sends to, with the
    /// acknowledgement it asks for. `topic` has been validated.
    fn partition_handle(
        &self,
        topic: &Arc<str>,
        partition: u32,
        ack: Ack,
    ) -> Result<Self::Partition, ClientError>;

    /// The connection in use, opened (or reopened) if needed. Pacing
    /// reconnects is the transport's job: after a failed attempt the next
    /// call waits out the backoff or shares the failure.
    async fn link(&self) -> Result<Self::Link, ClientError>;
}

/// One connection record batches are submitted on, as the producer's
/// sender task sees it.
///
/// # Contract
/// - **Order.** Batches of one partition submitted on one link (same
///   [`id`](BatchLink::id)) are appended in the order they were submitted.
///   Nothing is promised across links: the producer waits until every batch
///   of a partition in flight on an older link is answered before it
///   submits more of that partition on a new one.
/// - **No waiting for answers.** `submit` returns once the batch is on its
///   way (or refused); its answer comes later.
/// - **Exactly one answer per accepted batch.** After `Ok(())`, exactly one
///   [`Completion`](reply::Completion) is delivered to `reply`:
///   [`Reply::Produce`](reply::Reply::Produce) with the offset of the
///   batch's first record, or an error. A link that dies fails every batch
///   in flight on it at once with why it died — retriable, unless the
///   server broke the protocol; none is dropped, none is resent by the
///   transport. `permit` is held until that answer.
/// - **Nothing on refusal.** After `Err(_)` nothing was sent, `reply` gets
///   nothing (the error is the answer) and `permit` is released.
/// - **Resends.** The producer resends a batch after a retriable failure
///   with the same [`BatchId`]; a transport may use it to store the batch
///   at most once (NATS does), or ignore it (the broker: at least once).
/// - **Cancellation.** A submitted batch cannot be called back; dropping the
///   receiver of `reply` only discards its answer.
pub(crate) trait BatchLink: Clone + Send + Sync + 'static {
    /// The per-partition handle of the transport this link belongs to.
    type Partition;

    /// Identifies the connection: links with the same id are one connection.
    fn id(&self) -> u64;

    /// Whether batches may still be submitted on it; once `false` it stays
    /// so, and [`Transport::link`] gives the next connection.
    fn is_usable(&self) -> bool;

    /// Send one batch (header and CRC written) to `partition`; see the
    /// trait's contract for what happens next.
    async fn submit(
        &self,
        partition: &Self::Partition,
        batch: &Bytes,
        id: BatchId,
        reply: ReplyTo,
        permit: OwnedSemaphorePermit,
    ) -> Result<(), SubmitError>;
}

/// Names one batch of one producer, the same on every resend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BatchId {
    /// Random per producer instance.
    pub producer: u64,
    /// The batch's number in its producer.
    pub seq: u64,
}

/// The largest batch a transport carries (see [`Transport::batch_limits`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BatchLimits {
    /// Records per batch.
    pub records: u32,
    /// Bytes per batch (header, key and records).
    pub bytes: usize,
}

impl BatchLimits {
    /// No limit beyond the producer's own settings.
    pub(crate) const NONE: BatchLimits = BatchLimits {
        records: u32::MAX,
        bytes: usize::MAX,
    };
}

/// Why [`BatchLink::submit`] did not send a batch; the variant tells the
/// producer what to do with it.
#[derive(Debug)]
pub(crate) enum SubmitError {
    /// The batch can never be sent as it is (larger than the transport
    /// carries, or refused before sending, e.g. an unknown topic with
    /// auto-create off): fail it with this error. The link stays usable.
    Refused(ClientError),
    /// The link is gone: put the batch back and ask [`Transport::link`] for
    /// a new one at once (the transport paces its own reconnects there).
    Lost(ClientError),
    /// The transport is reconnecting by itself and a new link would fail
    /// the same way: put the batch back and wait the producer's
    /// `retry_backoff` before asking again.
    #[allow(
        dead_code,
        reason = "part of the contract even in a build whose transports never need it"
    )]
    Unavailable(ClientError),
}

/// Which transport a [`Client`](crate::Client) uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TransportKind {
    /// A HermitMQ broker.
    Hermit,
    /// A NATS JetStream server or cluster.
    Nats,
}

/// Settings of the NATS transport, given as query parameters of the
/// `nats://` URL (`?replicas=3&partitions=4&auto_create=false`). Unknown
/// parameters are refused: a typo must not silently fall back to a default.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NatsOptions {
    /// `replicas`: copies of every stream the client creates (1..=5). `None`
    /// picks 3 when the server is part of a cluster and 1 otherwise.
    /// Default `None`.
    pub replicas: Option<usize>,
    /// `partitions`: partitions of a topic created on first use (as the
    /// broker's `default_partitions`). Default 1.
    pub default_partitions: u32,
    /// `auto_create`: create a topic on its first produce, fetch or commit
    /// (as the broker's `auto_create`). Default `true`.
    pub auto_create: bool,
}

impl Default for NatsOptions {
    fn default() -> Self {
        NatsOptions {
            replicas: None,
            default_partitions: 1,
            auto_create: true,
        }
    }
}

/// How the NATS transport proves who it is to the NATS server
/// ([`ClientOptions::nats_credentials`](crate::ClientOptions::nats_credentials)).
/// What a user may then publish and subscribe to is the NATS server's own
/// business (its `authorization` or `accounts` permissions);
/// `docs/SCALE-OUT.md` shows how to map the inbox policy onto them.
///
/// The secrets live in [`Zeroizing`] strings, wiped when dropped, and
/// [`Debug`](std::fmt::Debug) shows only which kind of credential it is (and
/// the user name or file path): they never reach a log. They are never taken
/// from the `nats://` URL either, which [`Endpoint::parse`] refuses with a
/// user or password in it (a URL ends up in `ps`, shell history and logs).
/// The NATS client library keeps its own copy while connected, as a plain
/// string.
// PartialEq: `ClientOptions` compares options; nothing here verifies secrets.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum NatsCredentials {
    /// A user name and password (`authorization { users = [{user, password}] }`).
    UserPassword {
        /// The user name (not a secret: it shows in `Debug`).
        user: String,
        /// The password, as the server's configuration has it (plain or
        /// bcrypt-hashed there; always plain here).
        password: Zeroizing<String>,
    },
    /// A token (`authorization { token = … }`).
    Token(Zeroizing<String>),
    /// An nkey user seed (`SU…`, 58 characters): the server knows the
    /// public key (`U…`) and checks a signature of its nonce; the seed
    /// never leaves the client.
    NKeySeed(Zeroizing<String>),
    /// A `.creds` file (a user JWT and its nkey seed, as `nsc` writes
    /// them, for operator/JWT-mode servers), read at every connect.
    CredsFile(PathBuf),
}

impl NatsCredentials {
    /// A user name and password.
    pub fn user_password(user: impl Into<String>, password: impl Into<String>) -> Self {
        NatsCredentials::UserPassword {
            user: user.into(),
            password: Zeroizing::new(password.into()),
        }
    }

    /// A token.
    pub fn token(token: impl Into<String>) -> Self {
        NatsCredentials::Token(Zeroizing::new(token.into()))
    }

    /// An nkey user seed (`SU…`).
    pub fn nkey_seed(seed: impl Into<String>) -> Self {
        NatsCredentials::NKeySeed(Zeroizing::new(seed.into()))
    }

    /// A `.creds` file, read when connecting.
    pub fn creds_file(path: impl Into<PathBuf>) -> Self {
        NatsCredentials::CredsFile(path.into())
    }

    /// Which kind of credential this is, for messages: `"user and
    /// password"`, `"token"`, `"nkey"` or `"creds file"`.
    pub fn kind(&self) -> &'static str {
        match self {
            NatsCredentials::UserPassword { .. } => "user and password",
            NatsCredentials::Token(_) => "token",
            NatsCredentials::NKeySeed(_) => "nkey",
            NatsCredentials::CredsFile(_) => "creds file",
        }
    }
}

impl std::fmt::Debug for NatsCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        const REDACTED: &str = "<redacted>";
        match self {
            NatsCredentials::UserPassword { user, .. } => f
                .debug_struct("UserPassword")
                .field("user", user)
                .field("password", &REDACTED)
                .finish(),
            NatsCredentials::Token(_) => f.debug_tuple("Token").field(&REDACTED).finish(),
            NatsCredentials::NKeySeed(_) => f.debug_tuple("NKeySeed").field(&REDACTED).finish(),
            NatsCredentials::CredsFile(path) => f.debug_tuple("CredsFile").field(path).finish(),
        }
    }
}

/// A parsed broker URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    /// `hermit://host:port` or `host:port` (plain TCP), or
    /// `hermits://host:port` (TLS; the broker's certificate must name `host`).
    Hermit {
        /// `host:port`, resolved at every (re)connect.
        addr: String,
        /// Whether the connection runs over TLS (`hermits://`).
        tls: bool,
    },
    /// `nats://host:port[,host:port…][?options]`.
    Nats {
        /// Seed servers, each as `nats://host:port` (the client also learns
        /// the other members of a cluster from the servers).
        servers: Vec<String>,
        /// Transport settings from the query string.
        options: NatsOptions,
    },
}

const HERMIT_SCHEME: &str = "hermit://";
const HERMITS_SCHEME: &str = "hermits://";
const NATS_SCHEME: &str = "nats://";

impl Endpoint {
    /// Parse a broker URL: `hermit://host:port`, a bare `host:port`,
    /// `hermits://host:port` (TLS), or
    /// `nats://host:port[,host:port…][?replicas=N&partitions=N&auto_create=BOOL]`.
    pub fn parse(url: &str) -> Result<Endpoint, ClientError> {
        let url = url.trim();
        let bad = |why: &str| ClientError::InvalidArgument(format!("broker URL {url:?}: {why}"));
        if let Some(rest) = strip_prefix_ignore_case(url, NATS_SCHEME) {
            if rest.contains('@') {
                // Whatever is before the `@` is a secret or half of one, and
                // a URL is seen by `ps`, shell history and logs: this error
                // does not repeat it either. No option value has an `@`.
                return Err(ClientError::InvalidArgument(
                    "a nats:// URL must not carry a user or password (it would show in \
                     `ps`, shell history and logs): give the NATS credentials separately \
                     (ClientOptions::nats_credentials; the CLI's --nats-creds, \
                     --nats-nkey-file, --nats-token-file or --nats-user)"
                        .to_owned(),
                ));
            }
            let (hosts, query) = match rest.split_once('?') {
                Some((h, q)) => (h, Some(q)),
                None => (rest, None),
            };
            let mut servers = Vec::new();
            for host in hosts.split(',') {
                let host = host.trim();
                let host = strip_prefix_ignore_case(host, NATS_SCHEME).unwrap_or(host);
                if host.is_empty() || host.contains('/') || host.contains("://") {
                    return Err(bad("expected nats://host:port[,host:port…]"));
                }
                servers.push(format!("{NATS_SCHEME}{host}"));
            }
            let mut options = NatsOptions::default();
            for pair in query.into_iter().flat_map(|q| q.split('&')) {
                if pair.is_empty() {
                    continue;
                }
                let (k, v) = pair
                    .split_once('=')
                    .ok_or_else(|| bad(&format!("option {pair:?} has no value")))?;
                match k {
                    "replicas" => {
                        let n: usize = v
                            .parse()
                            .ok()
                            .filter(|n| (1..=5).contains(n))
                            .ok_or_else(|| bad("replicas must be 1..=5"))?;
                        options.replicas = Some(n);
                    }
                    "partitions" => {
                        let max = hermit_protocol::frame::MAX_PARTITIONS;
                        options.default_partitions = v
                            .parse()
                            .ok()
                            .filter(|n| (1..=max).contains(n))
                            .ok_or_else(|| bad(&format!("partitions must be 1..={max}")))?;
                    }
                    "auto_create" => {
                        options.auto_create = match v {
                            "true" | "1" => true,
                            "false" | "0" => false,
                            _ => return Err(bad("auto_create must be true or false")),
                        }
                    }
                    other => {
                        return Err(bad(&format!(
                            "unknown option {other:?} (known: replicas, partitions, auto_create)"
                        )));
                    }
                }
            }
            return Ok(Endpoint::Nats { servers, options });
        }
        let (addr, tls) = match strip_prefix_ignore_case(url, HERMITS_SCHEME) {
            Some(rest) => (rest, true),
            None => (
                strip_prefix_ignore_case(url, HERMIT_SCHEME).unwrap_or(url),
                false,
            ),
        };
        if addr.contains("://") {
            return Err(bad(
                "unknown scheme (expected hermit://, hermits:// or nats://)",
            ));
        }
        if addr.is_empty() || addr.contains(['/', '?', ',', '@']) {
            return Err(bad("expected host:port"));
        }
        if tls && tls_server_name(addr).is_empty() {
            return Err(bad("expected hermits://host:port"));
        }
        Ok(Endpoint::Hermit {
            addr: addr.to_owned(),
            tls,
        })
    }

    /// The transport this endpoint selects.
    pub fn kind(&self) -> TransportKind {
        match self {
            Endpoint::Hermit { .. } => TransportKind::Hermit,
            Endpoint::Nats { .. } => TransportKind::Nats,
        }
    }
}

/// The host of `host:port` (`[::1]:9093` gives `::1`): the name a
/// `hermits://` broker's certificate must carry.
pub(crate) fn tls_server_name(addr: &str) -> &str {
    let host = match addr.rsplit_once(':') {
        Some((host, port)) if port.bytes().all(|b| b.is_ascii_digit()) => host,
        _ => addr,
    };
    host.strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host)
}

fn strip_prefix_ignore_case<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &s[prefix.len()..])
}

/// The transport behind a [`Client`](crate::Client), chosen by its URL.
#[derive(Clone)]
pub(crate) enum AnyTransport {
    Hermit(Arc<hermit::Hermit>),
    #[cfg(feature = "nats")]
    Nats(Arc<nats::Nats>),
}

/// A connection of whichever transport, for the producer's sender task.
#[derive(Clone)]
pub(crate) enum Link {
    Hermit(Arc<Conn>),
    #[cfg(feature = "nats")]
    Nats(nats::NatsLink),
}

/// A partition handle of whichever transport.
pub(crate) enum PartitionHandle {
    Hermit(hermit::HermitPartition),
    #[cfg(feature = "nats")]
    Nats(nats::NatsPartition),
}

impl AnyTransport {
    /// Connect to the endpoint `url` names and return once the first
    /// connection is open.
    pub(crate) async fn connect(
        url: &str,
        options: ClientOptions,
    ) -> Result<AnyTransport, ClientError> {
        Ok(match Endpoint::parse(url)? {
            Endpoint::Hermit { addr, tls } => {
                AnyTransport::Hermit(Arc::new(hermit::Hermit::connect(addr, tls, options).await?))
            }
            #[cfg(feature = "nats")]
            Endpoint::Nats {
                servers,
                options: nats,
            } => AnyTransport::Nats(Arc::new(
                nats::Nats::connect(url, servers, nats, options).await?,
            )),
            #[cfg(not(feature = "nats"))]
            Endpoint::Nats { .. } => {
                return Err(ClientError::InvalidArgument(format!(
                    "{url}: this build of hermit-client has no NATS transport (cargo feature `nats`)"
                )));
            }
        })
    }
}

/// Call a [`Transport`] method on whichever transport `$self` holds. The
/// call names the trait, so each variant must implement the contract.
macro_rules! delegate {
    ($self:ident, $t:ident => $call:expr) => {
        match $self {
            AnyTransport::Hermit($t) => $call,
            #[cfg(feature = "nats")]
            AnyTransport::Nats($t) => $call,
        }
    };
}

impl Transport for AnyTransport {
    type Partition = PartitionHandle;
    type Link = Link;

    fn kind(&self) -> TransportKind {
        delegate!(self, t => Transport::kind(t))
    }

    fn connections_opened(&self) -> u64 {
        delegate!(self, t => Transport::connections_opened(t))
    }

    fn permits(&self) -> &Arc<Semaphore> {
        delegate!(self, t => Transport::permits(t))
    }

    fn batch_limits(&self) -> BatchLimits {
        delegate!(self, t => Transport::batch_limits(t))
    }

    async fn produce(
        &self,
        topic: &str,
        partition: u32,
        ack: Ack,
        batch: Bytes,
    ) -> Result<u64, ClientError> {
        delegate!(self, t => Transport::produce(t, topic, partition, ack, batch).await)
    }

    async fn fetch(
        &self,
        topic: &str,
        partition: u32,
        offset: u64,
        max_bytes: u32,
        max_wait: Duration,
    ) -> Result<FetchResponse, ClientError> {
        delegate!(self, t => Transport::fetch(t, topic, partition, offset, max_bytes, max_wait).await)
    }

    async fn commit(
        &self,
        group: &str,
        topic: &str,
        partition: u32,
        offset: u64,
    ) -> Result<(), ClientError> {
        delegate!(self, t => Transport::commit(t, group, topic, partition, offset).await)
    }

    async fn committed(
        &self,
        group: &str,
        topic: &str,
        partition: u32,
    ) -> Result<Option<u64>, ClientError> {
        delegate!(self, t => Transport::committed(t, group, topic, partition).await)
    }

    async fn metadata(&self, topic: Option<&str>) -> Result<Vec<TopicMetadata>, ClientError> {
        delegate!(self, t => Transport::metadata(t, topic).await)
    }

    async fn list_topics(&self, after: Option<&str>, limit: u32) -> Result<TopicPage, ClientError> {
        delegate!(self, t => Transport::list_topics(t, after, limit).await)
    }

    async fn create_topic(&self, topic: &str, settings: TopicSettings) -> Result<(), ClientError> {
        delegate!(self, t => Transport::create_topic(t, topic, settings).await)
    }

    async fn delete_topic(&self, topic: &str) -> Result<(), ClientError> {
        delegate!(self, t => Transport::delete_topic(t, topic).await)
    }

    async fn ping(&self) -> Result<(), ClientError> {
        delegate!(self, t => Transport::ping(t).await)
    }

    fn partition_handle(
        &self,
        topic: &Arc<str>,
        partition: u32,
        ack: Ack,
    ) -> Result<PartitionHandle, ClientError> {
        Ok(match self {
            AnyTransport::Hermit(t) => {
                PartitionHandle::Hermit(Transport::partition_handle(t, topic, partition, ack)?)
            }
            #[cfg(feature = "nats")]
            AnyTransport::Nats(t) => {
                PartitionHandle::Nats(Transport::partition_handle(t, topic, partition, ack)?)
            }
        })
    }

    async fn link(&self) -> Result<Link, ClientError> {
        Ok(match self {
            AnyTransport::Hermit(t) => Link::Hermit(Transport::link(t).await?),
            #[cfg(feature = "nats")]
            AnyTransport::Nats(t) => Link::Nats(Transport::link(t).await?),
        })
    }
}

impl BatchLink for Link {
    type Partition = PartitionHandle;

    fn id(&self) -> u64 {
        match self {
            Link::Hermit(l) => BatchLink::id(l),
            #[cfg(feature = "nats")]
            Link::Nats(l) => BatchLink::id(l),
        }
    }

    fn is_usable(&self) -> bool {
        match self {
            Link::Hermit(l) => BatchLink::is_usable(l),
            #[cfg(feature = "nats")]
            Link::Nats(l) => BatchLink::is_usable(l),
        }
    }

    async fn submit(
        &self,
        partition: &PartitionHandle,
        batch: &Bytes,
        id: BatchId,
        reply: ReplyTo,
        permit: OwnedSemaphorePermit,
    ) -> Result<(), SubmitError> {
        match (self, partition) {
            (Link::Hermit(l), PartitionHandle::Hermit(p)) => {
                BatchLink::submit(l, p, batch, id, reply, permit).await
            }
            #[cfg(feature = "nats")]
            (Link::Nats(l), PartitionHandle::Nats(p)) => {
                BatchLink::submit(l, p, batch, id, reply, permit).await
            }
            // One client has one transport, and the producer takes its
            // links and handles from that one; with a single transport
            // compiled in, this arm cannot be reached at all.
            #[allow(unreachable_patterns)]
            _ => Err(SubmitError::Refused(ClientError::InvalidArgument(
                "a partition handle of another transport".to_owned(),
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_select_the_transport() {
        assert_eq!(
            Endpoint::parse("127.0.0.1:9092").unwrap(),
            Endpoint::Hermit {
                addr: "127.0.0.1:9092".into(),
                tls: false
            }
        );
        assert_eq!(
            Endpoint::parse("hermit://broker.local:9092").unwrap(),
            Endpoint::Hermit {
                addr: "broker.local:9092".into(),
                tls: false
            }
        );
        assert_eq!(
            Endpoint::parse("HERMITS://broker.local:9093").unwrap(),
            Endpoint::Hermit {
                addr: "broker.local:9093".into(),
                tls: true
            }
        );
        assert_eq!(tls_server_name("broker.local:9093"), "broker.local");
        assert_eq!(tls_server_name("127.0.0.1:9093"), "127.0.0.1");
        assert_eq!(tls_server_name("[::1]:9093"), "::1");
        assert_eq!(
            Endpoint::parse(
                "nats://a:4222,b:4223,nats://c:4224?replicas=3&partitions=4&auto_create=false"
            )
            .unwrap(),
            Endpoint::Nats {
                servers: vec![
                    "nats://a:4222".into(),
                    "nats://b:4223".into(),
                    "nats://c:4224".into()
                ],
                options: NatsOptions {
                    replicas: Some(3),
                    default_partitions: 4,
                    auto_create: false
                }
            }
        );
        assert_eq!(
            Endpoint::parse("NATS://a:4222").unwrap().kind(),
            TransportKind::Nats
        );
        assert_eq!(
            Endpoint::parse("nats://a:4222").unwrap(),
            Endpoint::Nats {
                servers: vec!["nats://a:4222".into()],
                options: NatsOptions::default()
            }
        );
    }

    #[test]
    fn bad_urls_are_refused_not_guessed() {
        for bad in [
            "",
            "kafka://a:9092",
            "hermit://a:9092/x",
            "hermits://",
            "hermits://:9093",
            "hermits://user:pw@a:9093",
            "nats://",
            "nats://a:4222,,b:4222",
            "nats://a:4222?replica=3",
            "nats://a:4222?replicas=0",
            "nats://a:4222?replicas=7",
            "nats://a:4222?partitions=0",
            "nats://a:4222?auto_create=maybe",
            "nats://a:4222?replicas",
            "nats://user:secret@a:4222",
            "nats://a:4222,user@b:4222",
            "nats://token@a:4222?replicas=1",
        ] {
            let err = Endpoint::parse(bad).unwrap_err();
            assert!(
                matches!(err, ClientError::InvalidArgument(_)),
                "{bad}: {err}"
            );
        }
    }

    #[test]
    fn nats_url_credentials_are_refused_without_repeating_them() {
        let err = Endpoint::parse("nats://alice:hunter2@a:4222").unwrap_err();
        let shown = format!("{err} {err:?}");
        assert!(!shown.contains("hunter2"), "{shown}");
        assert!(shown.contains("--nats-user"), "{shown}");
    }

    #[test]
    fn credentials_debug_redacts_the_secrets() {
        for (creds, secret, shown) in [
            (
                NatsCredentials::user_password("alice", "hunter2"),
                "hunter2",
                "alice",
            ),
            (
                NatsCredentials::token("t0ken-s3cret"),
                "t0ken-s3cret",
                "Token",
            ),
            (
                NatsCredentials::nkey_seed("SUAEXAMPLESEED"),
                "SUAEXAMPLESEED",
                "NKeySeed",
            ),
        ] {
            let debug = format!("{creds:?}");
            assert!(!debug.contains(secret), "{debug}");
            assert!(debug.contains(shown), "{debug}");
            assert!(debug.contains("<redacted>"), "{debug}");
            let options = ClientOptions {
                nats_credentials: Some(creds),
                ..ClientOptions::default()
            };
            assert!(!format!("{options:?}").contains(secret));
        }
        let file = NatsCredentials::creds_file("/etc/hermit/app.creds");
        assert!(format!("{file:?}").contains("/etc/hermit/app.creds"));
    }
}
