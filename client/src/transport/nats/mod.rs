//! The NATS JetStream transport (cargo feature `nats`).
//!
//! The mapping, in short (the whole story, with its limits, is in
//! `docs/SCALE-OUT.md`):
//! - a topic's partition is one stream, `HERMIT_<topic>_<partition>`, on the
//!   subject `hermit.<topic>.<partition>` (compacted topics: one subject per
//!   key below it and `max_msgs_per_subject = 1`); see [`names`];
//! - a record batch is one message: the payload as the producer wrote it,
//!   the batch header as message headers; see [`message`];
//! - an offset is `stream_sequence << 16 | record_index`; see
//!   [`crate::transport::nats_offset`];
//! - reads go through ephemeral pull consumers positioned at the offset
//!   asked for (acks off), kept between fetches; see [`cursor`];
//! - a group's committed offset is the last message on its subject in the
//!   compacted stream `HERMIT_OFFSETS`.
//!
//! Only what NATS 2.9 understands is used, and every stream and consumer
//! configuration the server echoes back is compared with the one asked for:
//! an option the server silently dropped is an error, not a surprise.

mod cursor;
mod message;
pub(crate) mod names;
mod ops;

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_nats::jetstream::context::{
    Publish, PublishError, PublishErrorKind, RequestError, RequestErrorKind,
};
use async_nats::jetstream::response::Response;
use async_nats::jetstream::stream::{self, DiscardPolicy, RetentionPolicy, StorageType};
use async_nats::jetstream::{self, ErrorCode};
use async_nats::{HeaderMap, ServerAddr};
use bytes::Bytes;
use hermit_protocol::frame::TopicSettings;
use hermit_protocol::{Ack, Cleanup, Request, Status};
use serde::Deserialize;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use self::cursor::{Cursor, Pool};
use self::names::*;
use crate::error::ClientError;
use crate::options::{ClientOptions, topic_name};
// Nothing panics under these locks (map inserts and removes only).
use crate::lock::lock;
use crate::records::FetchResponse;
use crate::transport::contract::{BatchId, BatchLimits, BatchLink, SubmitError, Transport};
use crate::transport::endpoint::{NatsCredentials, NatsOptions, TransportKind};
use crate::transport::nats_offset::{MAX_RECORDS_PER_BATCH, MAX_SEQUENCE, NatsOffset};
use crate::transport::reply::{Reply, ReplyTo};

/// How long JetStream remembers a batch's id to drop a resent duplicate.
/// It covers the producer's retries (a resend happens within the request
/// timeout plus backoff, well inside two minutes by default).
const DEDUP_WINDOW: Duration = Duration::from_secs(120);

/// Replicas tried when the `replicas` option is not given and the server's
/// answer is not known yet: a cluster gets 3, a single server says
/// "replicas > 1 not supported in non-clustered mode" and gets 1.
const CLUSTER_REPLICAS: usize = 3;

/// Room kept in a message for the headers, the subject and the protocol line.
const MESSAGE_OVERHEAD: usize = 1024;

/// What is known of one partition's stream.
#[derive(Debug)]
pub(crate) struct PartInfo {
    pub stream: String,
    /// `hermit.<topic>.<partition>`.
    pub subject: String,
    /// Compacted: one subject per key below `subject`.
    pub compacted: bool,
}

impl PartInfo {
    fn subject_for(&self, topic: &str, partition: u32, key: &[u8]) -> String {
        if self.compacted {
            key_subject(topic, partition, key)
        } else {
            self.subject.clone()
        }
    }
}

/// The NATS transport shared by every clone of a [`crate::Client`].
pub(crate) struct Nats {
    /// The URL as given to `Client::connect` (for errors).
    url: String,
    client: async_nats::Client,
    js: jetstream::Context,
    opts: NatsOptions,
    request_timeout: Duration,
    /// Bounds requests (and the producer's batches) in flight.
    permits: Arc<Semaphore>,
    /// Bumped when the connection drops: batches in flight on the old
    /// connection are answered before more of their partition are sent.
    epoch: Arc<AtomicU64>,
    /// The same, to wake the tasks awaiting acks of the old connection.
    epoch_changed: tokio::sync::watch::Receiver<u64>,
    /// Replicas for new streams once decided (option, or the server's answer).
    replicas: Mutex<Option<usize>>,
    /// Partitions known to exist.
    parts: Mutex<HashMap<PartKey, Arc<PartInfo>>>,
    /// Serializes topic creation by this client (auto-create from many tasks).
    creating: tokio::sync::Mutex<()>,
    /// The offsets stream exists (created or found).
    offsets_ready: tokio::sync::OnceCell<()>,
    /// Read positions kept open between fetches.
    cursors: Arc<Pool>,
}

/// The NATS partition handle: which partition a batch goes to. Its stream
/// and subject are looked up per batch in the transport's partition cache,
/// which is a map lookup once known: a stream found missing (deleted, or
/// auto-created anew) is dropped from that cache and checked again, which
/// a stream or subject held here would outlive.
pub(crate) struct NatsPartition {
    topic: Arc<str>,
    partition: u32,
}

/// What the producer's sender task sends on: the transport at one
/// connection epoch.
#[derive(Clone)]
pub(crate) struct NatsLink {
    nats: Arc<Nats>,
    epoch: u64,
}

impl NatsLink {
    /// Publish one batch; its answer goes to `reply` (from a small task
    /// awaiting the JetStream ack). `id` lets JetStream drop a resend of a
    /// batch it already stored.
    async fn publish_batch(
        &self,
        partition: &NatsPartition,
        batch: &Bytes,
        id: BatchId,
        reply: ReplyTo,
        permit: OwnedSemaphorePermit,
    ) -> Result<(), ClientError> {
        let n = &self.nats;
        let part = n.partition(&partition.topic, partition.partition).await?;
        let out = message::outgoing(batch)?;
        let count = out.count;
        let subject = part.subject_for(&partition.topic, partition.partition, &out.key);
        let mut headers = HeaderMap::new();
        for (k, v) in out.headers {
            headers.insert(k, v);
        }
        headers.insert("Nats-Msg-Id", format!("{:016x}-{}", id.producer, id.seq));
        n.check_size(&subject, &headers, out.payload.len())?;
        let ack =
            n.js.send_publish(
                subject,
                Publish::build().payload(out.payload).headers(headers),
            )
            .await
            .map_err(|e| n.publish_error(&e))?;
        let nats = n.clone();
        let epoch = self.epoch;
        let mut epoch_changed = n.epoch_changed.clone();
        tokio::spawn(async move {
            // The ack of a publish written to a connection that dropped may
            // never come: fail it at once rather than after the request
            // timeout. The producer resends it under the same id, and
            // JetStream drops the copy if the first one was stored.
            let dropped = async {
                while *epoch_changed.borrow_and_update() == epoch {
                    if epoch_changed.changed().await.is_err() {
                        std::future::pending::<()>().await;
                    }
                }
            };
            let result = tokio::select! {
                r = ack.into_future() => nats.publish_result(&part, count, r),
                () = dropped => Err(nats.lost("the connection dropped before the ack")),
            };
            drop(permit);
            reply.deliver(result);
        });
        Ok(())
    }
}

impl BatchLink for NatsLink {
    type Partition = NatsPartition;

    fn id(&self) -> u64 {
        self.epoch
    }

    fn is_usable(&self) -> bool {
        self.nats.epoch.load(Ordering::Acquire) == self.epoch
    }

    async fn submit(
        &self,
        partition: &NatsPartition,
        batch: &Bytes,
        id: BatchId,
        reply: ReplyTo,
        permit: OwnedSemaphorePermit,
    ) -> Result<(), SubmitError> {
        // Publishes on one connection to one subject are stored in the
        // order they were sent.
        self.publish_batch(partition, batch, id, reply, permit)
            .await
            .map_err(|e| {
                if matches!(e, ClientError::RequestTooLarge { .. }) || !e.is_retriable() {
                    // Refused before sending (unknown topic or partition
                    // with auto-create off, a batch NATS cannot carry).
                    SubmitError::Refused(e)
                } else {
                    // The NATS client reconnects by itself: asking for a
                    // new link at once would get the same error.
                    SubmitError::Unavailable(e)
                }
            })
    }
}

#[derive(Debug, Deserialize)]
struct StreamList {
    #[serde(default)]
    total: usize,
    #[serde(default)]
    streams: Option<Vec<stream::Info>>,
}

/// An empty request body: `{}` (the API refuses `null` where it expects nothing).
#[derive(serde::Serialize)]
struct Empty {}

#[derive(Debug, Deserialize)]
struct Success {
    #[serde(default)]
    success: bool,
}

#[derive(Debug, Deserialize)]
struct RawGet {
    message: RawMessage,
}

#[derive(Debug, Deserialize)]
struct RawMessage {
    #[serde(default)]
    data: String,
}

impl Nats {
    pub(crate) async fn connect(
        url: &str,
        servers: Vec<String>,
        opts: NatsOptions,
        client_opts: ClientOptions,
    ) -> Result<Nats, ClientError> {
        let connect_err = |why: String| ClientError::Connect {
            addr: url.to_owned(),
            source: Arc::new(std::io::Error::new(
                std::io::ErrorKind::ConnectionRefused,
                why,
            )),
        };
        let addrs: Vec<ServerAddr> = servers
            .iter()
            .map(|s| {
                s.parse::<ServerAddr>().map_err(|e| {
                    ClientError::InvalidArgument(format!("{url}: bad NATS server {s:?}: {e}"))
                })
            })
            .collect::<Result<_, _>>()?;
        let epoch = Arc::new(AtomicU64::new(0));
        let events = epoch.clone();
        let (epoch_tx, epoch_changed) = tokio::sync::watch::channel(0u64);
        let epoch_tx = Arc::new(epoch_tx);
        let (base, max) = (
            client_opts.reconnect_backoff,
            client_opts.reconnect_backoff_max,
        );
        let options = async_nats::ConnectOptions::new()
            .name("hermit-client")
            .connection_timeout(client_opts.connect_timeout)
            .request_timeout(Some(client_opts.request_timeout))
            .reconnect_delay_callback(move |attempts| {
                let shift = attempts.min(16) as u32;
                base.saturating_mul(1 << shift).min(max)
            })
            .event_callback(move |event| {
                let events = events.clone();
                let epoch_tx = epoch_tx.clone();
                async move {
                    match event {
                        async_nats::Event::Disconnected => {
                            let now = events.fetch_add(1, Ordering::AcqRel) + 1;
                            epoch_tx.send_replace(now);
                            tracing::debug!("NATS connection lost; reconnecting");
                        }
                        async_nats::Event::Connected => tracing::debug!("NATS connected"),
                        other => tracing::debug!(event = %other, "NATS event"),
                    }
                }
            });
        let credentials = client_opts.nats_credentials.as_ref();
        let options = with_credentials(options, credentials).await?;
        let client = options.connect(addrs).await.map_err(|e| {
            use async_nats::ConnectErrorKind as Kind;
            match e.kind() {
                // Credentials refused, or none given to a server that wants
                // them: the same attempt fails again, so not retriable (a
                // `Connect` error would have callers retry forever).
                Kind::AuthorizationViolation | Kind::Authentication => ClientError::AuthFailed {
                    addr: url.to_owned(),
                    message: match credentials {
                        Some(c) => format!("the NATS server refused the {} given: {e}", c.kind()),
                        None => format!(
                            "the NATS server requires credentials and none were given \
                             (user and password, token, nkey or creds file): {e}"
                        ),
                    },
                },
                _ => connect_err(format!("{e}")),
            }
        })?;
        let mut js = jetstream::new(client.clone());
        js.set_timeout(client_opts.request_timeout);
        let nats = Nats {
            url: url.to_owned(),
            client,
            js,
            replicas: Mutex::new(opts.replicas),
            opts,
            request_timeout: client_opts.request_timeout,
            permits: Arc::new(Semaphore::new(client_opts.max_in_flight.max(1))),
            epoch,
            epoch_changed,
            parts: Mutex::new(HashMap::new()),
            creating: tokio::sync::Mutex::new(()),
            offsets_ready: tokio::sync::OnceCell::new(),
            cursors: Pool::new(),
        };
        // JetStream must answer: a server started without -js would
        // otherwise fail every request later with a less helpful error.
        let deadline = tokio::time::Instant::now() + client_opts.connect_timeout;
        loop {
            match nats.api::<serde_json::Value>("INFO", &Empty {}).await {
                Ok(_) => break,
                Err(e) if e.is_retriable() && tokio::time::Instant::now() < deadline => {
                    tracing::debug!(error = %e, "JetStream not ready yet");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                Err(e) => {
                    return Err(connect_err(format!(
                        "connected, but JetStream does not answer (is the server running with -js?): {e}"
                    )));
                }
            }
        }
        Pool::start_sweeper(&nats.cursors);
        Ok(nats)
    }

    /// The largest message the server accepts.
    fn max_payload(&self) -> usize {
        self.client.server_info().max_payload
    }

    fn lost(&self, why: impl std::fmt::Display) -> ClientError {
        ClientError::lost(&self.url, why.to_string())
    }

    fn request_error(&self, what: &str, e: &RequestError) -> ClientError {
        match e.kind() {
            RequestErrorKind::TimedOut => ClientError::Timeout {
                what: "NATS request",
                after: self.request_timeout,
            },
            RequestErrorKind::NoResponders => self.lost(format!(
                "{what}: no JetStream server answered (JetStream off, or no leader yet)"
            )),
            RequestErrorKind::Other => self.lost(format!("{what}: {e}")),
        }
    }

    /// A JetStream API request (`$JS.API.<subject>`): the outer error is
    /// the transport's, the inner one JetStream's refusal.
    async fn api_raw<T: serde::de::DeserializeOwned>(
        &self,
        subject: &str,
        body: &(impl serde::Serialize + ?Sized),
    ) -> Result<Result<T, jetstream::Error>, ClientError> {
        match self
            .js
            .request::<_, _, Response<T>>(subject.to_owned(), body)
            .await
        {
            Ok(Response::Ok(v)) => Ok(Ok(v)),
            Ok(Response::Err { error }) => Ok(Err(error)),
            Err(e) => Err(self.request_error(subject, &e)),
        }
    }

    /// A JetStream API request, refusals mapped to typed errors.
    async fn api<T: serde::de::DeserializeOwned>(
        &self,
        subject: &str,
        body: &(impl serde::Serialize + ?Sized),
    ) -> Result<T, ClientError> {
        self.api_raw(subject, body)
            .await?
            .map_err(|e| js_error(subject, &e))
    }

    /// Refuse a message the server would refuse (it closes the connection
    /// over a message above its `max_payload`).
    fn check_size(
        &self,
        subject: &str,
        headers: &HeaderMap,
        payload: usize,
    ) -> Result<(), ClientError> {
        let header_bytes: usize = headers
            .iter()
            .map(|(k, vs)| {
                let k: &str = k.as_ref();
                vs.iter()
                    .map(|v| k.len() + v.as_str().len() + 4)
                    .sum::<usize>()
            })
            .sum::<usize>()
            + 12;
        let len = (subject.len() + header_bytes + payload) as u64;
        let max = self.max_payload() as u64;
        if header_bytes as u64 + payload as u64 > max {
            return Err(ClientError::RequestTooLarge { len, max });
        }
        Ok(())
    }

    fn publish_error(&self, e: &PublishError) -> ClientError {
        match e.kind() {
            PublishErrorKind::TimedOut => ClientError::Timeout {
                what: "NATS publish ack",
                after: self.request_timeout,
            },
            PublishErrorKind::StreamNotFound => {
                self.lost("no JetStream stream answered the publish (no leader, or deleted)")
            }
            PublishErrorKind::BrokenPipe => self.lost("connection closed before the ack"),
            _ => {
                let source =
                    std::error::Error::source(e).and_then(|s| s.downcast_ref::<jetstream::Error>());
                match source {
                    Some(js) => js_error("publish", js),
                    None => self.lost(format!("publish failed: {e}")),
                }
            }
        }
    }

    /// A publish ack as the producer's answer: the batch's base offset.
    fn publish_result(
        &self,
        part: &PartInfo,
        count: u32,
        result: Result<jetstream::publish::PublishAck, PublishError>,
    ) -> Result<Reply, ClientError> {
        match result {
            Ok(ack) if ack.stream != part.stream => Err(ClientError::Broker {
                status: Status::InvalidRequest,
                message: format!(
                    "nats: the subject {} is stored by stream {}, not {}",
                    part.subject, ack.stream, part.stream
                ),
            }),
            Ok(ack) if ack.sequence > MAX_SEQUENCE || ack.sequence == 0 => Err(
                ClientError::Protocol(hermit_protocol::WireError::InvalidField {
                    field: "stream sequence",
                    value: ack.sequence,
                }),
            ),
            Ok(ack) => Ok(Reply::Produce {
                base_offset: NatsOffset::batch_base(ack.sequence, count),
            }),
            Err(e) => {
                if e.kind() == PublishErrorKind::StreamNotFound {
                    // Check the stream again before the next batch.
                    self.forget_stream(&part.stream);
                }
                Err(self.publish_error(&e))
            }
        }
    }

    fn forget_stream(&self, stream: &str) {
        lock(&self.parts).retain(|_, p| p.stream != stream);
    }

    /// Stream info, `None` if there is no such stream.
    async fn stream_info(&self, stream: &str) -> Result<Option<stream::Info>, ClientError> {
        let subject = format!("STREAM.INFO.{stream}");
        match self.api_raw::<stream::Info>(&subject, &Empty {}).await? {
            Ok(i) => Ok(Some(i)),
            Err(e) if e.error_code() == ErrorCode::STREAM_NOT_FOUND => Ok(None),
            Err(e) => Err(js_error(&subject, &e)),
        }
    }

    /// Every stream this transport made whose subjects fall under `filter`.
    async fn list_streams(&self, filter: &str) -> Result<Vec<stream::Info>, ClientError> {
        #[derive(serde::Serialize)]
        struct Req<'a> {
            offset: usize,
            subject: &'a str,
        }
        let mut out = Vec::new();
        loop {
            let page: StreamList = self
                .api(
                    "STREAM.LIST",
                    &Req {
                        offset: out.len(),
                        subject: filter,
                    },
                )
                .await?;
            let got = page.streams.unwrap_or_default();
            let n = got.len();
            out.extend(got);
            if n == 0 || out.len() >= page.total {
                break;
            }
        }
        Ok(out)
    }

    /// The streams of `topic`, by partition.
    async fn topic_streams(&self, topic: &str) -> Result<BTreeMap<u32, stream::Info>, ClientError> {
        let mut by_partition = BTreeMap::new();
        for info in self.list_streams(&topic_filter(topic)).await? {
            if let Some((t, p)) = parse_stream_name(&info.config.name)
                && t == topic
            {
                by_partition.insert(p, info);
            }
        }
        Ok(by_partition)
    }

    /// The stream of a partition, creating the topic on first use when
    /// `auto_create` is on (as the broker does on produce, fetch and commit).
    async fn partition(
        &self,
        topic: &Arc<str>,
        partition: u32,
    ) -> Result<Arc<PartInfo>, ClientError> {
        if let Some(p) = lock(&self.parts).get(&(topic.clone(), partition)) {
            return Ok(p.clone());
        }
        topic_name(topic)?;
        let stream = checked_stream_name(topic, partition)?;
        let info = match self.stream_info(&stream).await? {
            Some(info) => info,
            None => {
                let _creating = self.creating.lock().await;
                match self.stream_info(&stream).await? {
                    Some(info) => info,
                    None => {
                        let existing = self.topic_streams(topic).await?;
                        if !existing.is_empty() {
                            return Err(ClientError::Broker {
                                status: Status::UnknownPartition,
                                message: format!(
                                    "{topic} has {} partitions, not {partition}",
                                    existing.len()
                                ),
                            });
                        }
                        if !self.opts.auto_create {
                            return Err(ClientError::Broker {
                                status: Status::UnknownTopic,
                                message: format!("unknown topic {topic} (auto_create=false)"),
                            });
                        }
                        let settings = TopicSettings {
                            partitions: self.opts.default_partitions,
                            cleanup: Cleanup::Delete,
                            retention_ms: 0,
                            retention_bytes: 0,
                        };
                        self.create_streams(topic, &settings).await?;
                        self.stream_info(&stream)
                            .await?
                            .ok_or_else(|| ClientError::Broker {
                                status: Status::UnknownPartition,
                                message: format!(
                                    "{topic} was created with {} partitions, not {partition}",
                                    settings.partitions
                                ),
                            })?
                    }
                }
            }
        };
        let part = Arc::new(PartInfo {
            compacted: info.config.max_messages_per_subject == 1,
            subject: partition_subject(topic, partition),
            stream,
        });
        lock(&self.parts).insert((topic.clone(), partition), part.clone());
        Ok(part)
    }

    fn stream_config(
        &self,
        topic: &str,
        partition: u32,
        settings: &TopicSettings,
        replicas: usize,
    ) -> stream::Config {
        let compacted = settings.cleanup == Cleanup::Compact;
        stream::Config {
            name: stream_name(topic, partition),
            description: Some(format!(
                "HermitMQ topic {topic}, partition {partition} of {} (sealed records)",
                settings.partitions
            )),
            subjects: vec![if compacted {
                compacted_filter(topic, partition)
            } else {
                partition_subject(topic, partition)
            }],
            retention: RetentionPolicy::Limits,
            discard: DiscardPolicy::Old,
            max_age: match settings.retention_ms {
                0 | u64::MAX => Duration::ZERO,
                ms => Duration::from_millis(ms),
            },
            max_bytes: match settings.retention_bytes {
                0 | u64::MAX => -1,
                b => i64::try_from(b).unwrap_or(i64::MAX),
            },
            max_messages: -1,
            max_messages_per_subject: if compacted { 1 } else { -1 },
            max_consumers: -1,
            max_message_size: -1,
            storage: StorageType::File,
            num_replicas: replicas,
            duplicate_window: DEDUP_WINDOW,
            ..stream::Config::default()
        }
    }

    /// Create a stream with `config` (its replicas decided here), and check
    /// that the server kept every setting.
    async fn create_stream(
        &self,
        mut make: impl FnMut(usize) -> stream::Config,
    ) -> Result<stream::Info, ClientError> {
        let decided = *lock(&self.replicas);
        let replicas = decided.unwrap_or(CLUSTER_REPLICAS);
        let config = make(replicas);
        let subject = format!("STREAM.CREATE.{}", config.name);
        let info = match self.api_raw::<stream::Info>(&subject, &config).await? {
            Err(e)
                if decided.is_none()
                    && e.error_code() == ErrorCode::STREAM_REPLICAS_NOT_SUPPORTED =>
            {
                // Not clustered: one replica is all there can be.
                tracing::debug!("single NATS server: streams get 1 replica");
                *lock(&self.replicas) = Some(1);
                let config = make(1);
                let info = self.api::<stream::Info>(&subject, &config).await?;
                check_stream(&config, &info.config)?;
                return Ok(info);
            }
            other => other.map_err(|e| js_error(&subject, &e))?,
        };
        check_stream(&config, &info.config)?;
        if decided.is_none() {
            *lock(&self.replicas) = Some(replicas);
        }
        Ok(info)
    }

    async fn create_streams(
        &self,
        topic: &str,
        settings: &TopicSettings,
    ) -> Result<(), ClientError> {
        checked_stream_name(topic, settings.partitions.saturating_sub(1))?;
        for p in 0..settings.partitions {
            self.create_stream(|r| self.stream_config(topic, p, settings, r))
                .await?;
        }
        Ok(())
    }

    async fn ensure_offsets_stream(&self) -> Result<(), ClientError> {
        self.offsets_ready
            .get_or_try_init(|| async {
                if self.stream_info(OFFSETS_STREAM).await?.is_some() {
                    return Ok(());
                }
                self.create_stream(|replicas| stream::Config {
                    name: OFFSETS_STREAM.to_owned(),
                    description: Some(
                        "HermitMQ committed offsets: the newest per group, topic and partition"
                            .to_owned(),
                    ),
                    subjects: vec![format!("{OFFSETS_ROOT}.>")],
                    retention: RetentionPolicy::Limits,
                    discard: DiscardPolicy::Old,
                    max_messages: -1,
                    max_bytes: -1,
                    max_messages_per_subject: 1,
                    max_consumers: -1,
                    max_message_size: -1,
                    storage: StorageType::File,
                    num_replicas: replicas,
                    duplicate_window: DEDUP_WINDOW,
                    ..stream::Config::default()
                })
                .await
                .map(|_| ())
            })
            .await
            .copied()
    }

    /// Open a cursor at `start` on `stream`: a pull consumer the server
    /// creates, checked against the configuration asked for.
    async fn open_cursor(
        &self,
        stream: &str,
        start: u64,
        bounds: (u64, u64),
    ) -> Result<Cursor, ClientError> {
        let config = Cursor::config(start);
        #[derive(serde::Serialize)]
        struct Create<'a> {
            stream_name: &'a str,
            config: &'a async_nats::jetstream::consumer::Config,
        }
        let info: async_nats::jetstream::consumer::Info = self
            .api(
                &format!("CONSUMER.CREATE.{stream}"),
                &Create {
                    stream_name: stream,
                    config: &config,
                },
            )
            .await?;
        Cursor::open(
            &self.client,
            &self.url,
            stream,
            start,
            bounds,
            &config,
            info,
        )
        .await
    }

    fn unknown_after_delete(&self, topic: &str) -> ClientError {
        self.forget_topic(topic);
        ClientError::Broker {
            status: Status::UnknownTopic,
            message: format!("{topic} was deleted"),
        }
    }

    fn forget_topic(&self, topic: &str) {
        lock(&self.parts).retain(|(t, _), _| &**t != topic);
        self.cursors.forget_topic(topic);
    }
}

impl Transport for Arc<Nats> {
    type Partition = NatsPartition;
    type Link = NatsLink;

    fn kind(&self) -> TransportKind {
        TransportKind::Nats
    }

    fn connections_opened(&self) -> u64 {
        self.client.statistics().connects.load(Ordering::Relaxed)
    }

    fn permits(&self) -> &Arc<Semaphore> {
        &self.permits
    }

    fn batch_limits(&self) -> BatchLimits {
        // One batch is one NATS message: at most 65,536 records (the offset
        // encoding) and the server's max_payload.
        BatchLimits {
            records: MAX_RECORDS_PER_BATCH,
            bytes: self
                .max_payload()
                .saturating_sub(MESSAGE_OVERHEAD)
                .max(1024),
        }
    }

    async fn produce(
        &self,
        topic: &str,
        partition: u32,
        _ack: Ack,
        batch: Bytes,
    ) -> Result<u64, ClientError> {
        topic_name(topic)?;
        let topic: Arc<str> = Arc::from(topic);
        let part = self.partition(&topic, partition).await?;
        let out = message::outgoing(&batch)?;
        let count = out.count;
        let subject = part.subject_for(&topic, partition, &out.key);
        let mut headers = HeaderMap::new();
        for (k, v) in out.headers {
            headers.insert(k, v);
        }
        self.check_size(&subject, &headers, out.payload.len())?;
        let _permit = self
            .permits
            .acquire()
            .await
            .map_err(|_| ClientError::Closed)?;
        let ack = self
            .js
            .send_publish(
                subject,
                Publish::build().payload(out.payload).headers(headers),
            )
            .await
            .map_err(|e| self.publish_error(&e))?;
        match self.publish_result(&part, count, ack.await)? {
            Reply::Produce { base_offset } => Ok(base_offset),
            _ => unreachable!("publish_result answers Produce"),
        }
    }

    async fn fetch(
        &self,
        topic: &str,
        partition: u32,
        offset: u64,
        max_bytes: u32,
        max_wait: Duration,
    ) -> Result<FetchResponse, ClientError> {
        topic_name(topic)?;
        let topic: Arc<str> = Arc::from(topic);
        let part = self.partition(&topic, partition).await?;
        let want = NatsOffset::decode(offset).normalized();
        let mut cursor = match self.cursors.take(&topic, partition, want) {
            Some(c) => c,
            None => {
                let info = self
                    .stream_info(&part.stream)
                    .await?
                    .ok_or_else(|| self.unknown_after_delete(&topic))?;
                let (log_start, high_watermark) = bounds(&info.state);
                let first = NatsOffset::decode(log_start).sequence;
                let next = NatsOffset::decode(high_watermark).sequence;
                let past_end = want.sequence > next || (want.sequence == next && want.slot > 0);
                // Compaction removes old messages from the head of the
                // stream: reading from before it is reading from its start
                // (as with the broker, whose log start compaction never moves).
                let compacted_away = part.compacted && want.sequence < first;
                if (want.sequence < first && !compacted_away) || past_end {
                    return Err(ClientError::OffsetOutOfRange {
                        log_start,
                        high_watermark,
                        message: format!(
                            "offset {offset} (sequence {}, slot {}) is outside the stream {}",
                            want.sequence, want.slot, part.stream
                        ),
                    });
                }
                let start = want.sequence.max(if compacted_away { first } else { 0 });
                self.open_cursor(&part.stream, start, (log_start, high_watermark))
                    .await?
            }
        };
        let got = cursor.read(max_bytes, max_wait).await?;
        let resp = cursor::response(topic.clone(), partition, offset, &cursor, got)?;
        self.cursors.put(topic, partition, cursor);
        Ok(resp)
    }

    async fn call(&self, request: &Request<'_>) -> Result<Bytes, ClientError> {
        self.call_op(request).await
    }

    fn partition_handle(
        &self,
        topic: &Arc<str>,
        partition: u32,
        _ack: Ack,
    ) -> Result<NatsPartition, ClientError> {
        Ok(NatsPartition {
            topic: topic.clone(),
            partition,
        })
    }

    async fn link(&self) -> Result<NatsLink, ClientError> {
        Ok(NatsLink {
            nats: self.clone(),
            epoch: self.epoch.load(Ordering::Acquire),
        })
    }
}

/// The stream of a partition, refused when its name would not fit in a
/// file name (JetStream keeps each stream in a directory of that name).
fn checked_stream_name(topic: &str, partition: u32) -> Result<String, ClientError> {
    let name = stream_name(topic, partition);
    if name.len() > MAX_STREAM_NAME {
        return Err(ClientError::InvalidArgument(format!(
            "topic {topic:?}: its stream name {name:?} is longer than the {MAX_STREAM_NAME} bytes \
             a NATS stream name can have (topics up to 243 bytes always fit)"
        )));
    }
    Ok(name)
}

/// (log start, high watermark) of a partition's stream as offsets.
fn bounds(state: &stream::State) -> (u64, u64) {
    let next = state.last_sequence.saturating_add(1);
    // An empty stream reports first = last + 1, a new one first = 0.
    let first = if state.messages == 0 {
        next
    } else {
        state.first_sequence.max(1)
    };
    (
        NatsOffset::sequence_start(first),
        NatsOffset::sequence_start(next),
    )
}

/// Map a JetStream API error to a typed client error.
fn js_error(what: &str, e: &jetstream::Error) -> ClientError {
    let code = e.error_code();
    let status = if code == ErrorCode::STREAM_NOT_FOUND {
        Status::UnknownTopic
    } else if code == ErrorCode::STREAM_NAME_EXIST {
        Status::TopicExists
    } else if code == ErrorCode::STREAM_MESSAGE_EXCEEDS_MAXIMUM {
        Status::PayloadTooLarge
    } else if [
        ErrorCode::INSUFFICIENT_RESOURCES,
        ErrorCode::CLUSTER_NO_PEERS,
        ErrorCode::CLUSTER_NOT_AVAILABLE,
        ErrorCode::CLUSTER_NOT_ACTIVE,
        ErrorCode::CLUSTER_NOT_LEADER,
        ErrorCode::CLUSTER_INCOMPLETE,
        ErrorCode::CLUSTER_NOT_ASSIGNED,
        ErrorCode::RAFT_GENERAL,
        ErrorCode::STREAM_STORE_FAILED,
        ErrorCode::STORAGE_RESOURCES_EXCEEDED,
        ErrorCode::MEMORY_RESOURCES_EXCEEDED,
        ErrorCode::STREAM_ASSIGNMENT,
    ]
    .contains(&code)
        || e.code() == 503
    {
        // The cluster may have this again once a leader is elected or a
        // node is back: the same request may succeed later.
        Status::StorageError
    } else if [
        ErrorCode::JETSTREAM_NOT_ENABLED,
        ErrorCode::JETSTREAM_NOT_ENABLED_FOR_ACCOUNT,
        ErrorCode::NO_ACCOUNT,
    ]
    .contains(&code)
    {
        Status::Unauthorized
    } else {
        Status::InvalidRequest
    };
    ClientError::Broker {
        status,
        message: format!("nats: {what}: {e}"),
    }
}

/// `options` with `credentials` applied. Files are read here, at every
/// connect (a rotated `.creds` file is picked up by the next client); an
/// nkey seed is checked first, so a bad one is named as such rather than
/// reported by the server as an authorization violation.
async fn with_credentials(
    options: async_nats::ConnectOptions,
    credentials: Option<&NatsCredentials>,
) -> Result<async_nats::ConnectOptions, ClientError> {
    Ok(match credentials {
        None => options,
        Some(NatsCredentials::UserPassword { user, password }) => {
            options.user_and_password(user.clone(), String::clone(password))
        }
        Some(NatsCredentials::Token(token)) => options.token(String::clone(token)),
        Some(NatsCredentials::NKeySeed(seed)) => {
            let seed = seed.trim();
            match nkeys::KeyPair::from_seed(seed) {
                Ok(pair) if pair.key_pair_type() == nkeys::KeyPairType::User => {
                    tracing::debug!(nkey = %pair.public_key(), "NATS nkey user");
                    options.nkey(seed.to_owned())
                }
                // The error says why, never echoing the seed.
                Ok(_) => {
                    return Err(ClientError::InvalidArgument(
                        "the NATS nkey seed is not a user seed (it must start with SU)".to_owned(),
                    ));
                }
                Err(e) => {
                    return Err(ClientError::InvalidArgument(format!(
                        "the NATS nkey seed is unusable: {e}"
                    )));
                }
            }
        }
        Some(NatsCredentials::CredsFile(path)) => {
            options.credentials_file(path).await.map_err(|e| {
                ClientError::InvalidArgument(format!(
                    "cannot use the NATS creds file {}: {e}",
                    path.display()
                ))
            })?
        }
    })
}

/// Compare what the server kept with what was asked: NATS ignores options
/// it does not know, so a silently dropped setting shows up here.
fn check_stream(want: &stream::Config, got: &stream::Config) -> Result<(), ClientError> {
    let mut diffs = Vec::new();
    macro_rules! same {
        ($($field:ident),*) => {$(
            if want.$field != got.$field {
                diffs.push(format!(
                    "{} = {:?} (asked {:?})",
                    stringify!($field),
                    got.$field,
                    want.$field
                ));
            }
        )*};
    }
    same!(
        name,
        subjects,
        retention,
        discard,
        max_age,
        max_bytes,
        max_messages,
        max_messages_per_subject,
        storage,
        num_replicas,
        duplicate_window
    );
    if diffs.is_empty() {
        Ok(())
    } else {
        Err(ClientError::Broker {
            status: Status::InvalidRequest,
            message: format!(
                "nats: stream {} was created with other settings than asked: {}",
                want.name,
                diffs.join(", ")
            ),
        })
    }
}
