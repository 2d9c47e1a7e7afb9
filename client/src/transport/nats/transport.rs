//! [`Nats`]: the transport every clone of a NATS [`Client`](crate::Client)
//! shares — the NATS connection and its JetStream context, the caches of
//! partitions and readers — with its connect and the contract's
//! implementation, which calls the operations in the files beside this one.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_nats::ServerAddr;
use async_nats::jetstream;
use bytes::Bytes;
use hermit_protocol::{Ack, Request};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::claim_state::claimer_of;
use super::jetstream::Empty;
use super::names::{PartInfo, PartKey};
use super::pool::Pool;
use crate::error::ClientError;
use crate::options::ClientOptions;
use crate::records::FetchResponse;
use crate::transport::contract::FetchParams;
use crate::transport::contract::{BatchId, BatchLimits, BatchLink, SubmitError, Transport};
use crate::transport::endpoint::{NatsCredentials, NatsOptions, TransportKind};
use crate::transport::nats_offset::MAX_RECORDS_PER_BATCH;
use crate::transport::reply::ReplyTo;

/// Room kept in a message for the headers, the subject and the protocol line.
const MESSAGE_OVERHEAD: usize = 1024;

/// The NATS transport shared by every clone of a [`crate::Client`].
pub(crate) struct Nats {
    /// The URL as given to `Client::connect` (for errors).
    pub(super) url: String,
    pub(super) client: async_nats::Client,
    pub(super) js: jetstream::Context,
    pub(super) opts: NatsOptions,
    pub(super) request_timeout: Duration,
    /// Bounds requests (and the producer's batches) in flight.
    pub(super) permits: Arc<Semaphore>,
    /// Bumped when the connection drops: batches in flight on the old
    /// connection are answered before more of their partition are sent.
    pub(super) epoch: Arc<AtomicU64>,
    /// The same, to wake the tasks awaiting acks of the old connection.
    pub(super) epoch_changed: tokio::sync::watch::Receiver<u64>,
    /// Replicas for new streams once decided (option, or the server's answer).
    pub(super) replicas: Mutex<Option<usize>>,
    /// Partitions known to exist.
    pub(super) parts: Mutex<HashMap<PartKey, Arc<PartInfo>>>,
    /// Serializes topic creation by this client (auto-create from many tasks).
    pub(super) creating: tokio::sync::Mutex<()>,
    /// The offsets stream exists (created or found), with these replicas.
    pub(super) offsets_ready: tokio::sync::OnceCell<usize>,
    /// Who this client is as a claimer ([`claimer_of`]).
    pub(super) claimer: String,
    /// Read positions kept open between fetches.
    pub(super) pullers: Arc<Pool>,
}

/// The NATS partition handle: which partition a batch goes to. Its stream
/// and subject are looked up per batch in the transport's partition cache,
/// which is a map lookup once known: a stream found missing (deleted, or
/// auto-created anew) is dropped from that cache and checked again, which
/// a stream or subject held here would outlive.
pub(crate) struct NatsPartition {
    pub(super) topic: Arc<str>,
    pub(super) partition: u32,
    /// The producer's ack level: a durable one is refused per batch unless
    /// the servers sync every write ([`Nats::check_ack`]).
    pub(super) ack: Ack,
}

/// What the producer's sender task sends on: the transport at one
/// connection epoch.
#[derive(Clone)]
pub(crate) struct NatsLink {
    pub(super) nats: Arc<Nats>,
    pub(super) epoch: u64,
}

impl Nats {
    /// Connect to `servers` (the URL `url` named) and return once JetStream
    /// answers.
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
        let claimer = claimer_of(credentials)?;
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
            claimer,
            pullers: Pool::new(),
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
        Pool::start_sweeper(&nats.pullers);
        Ok(nats)
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
        ack: Ack,
        batch: Bytes,
    ) -> Result<u64, ClientError> {
        self.produce_batch(topic, partition, ack, batch).await
    }

    async fn fetch(
        &self,
        topic: &str,
        partition: u32,
        offset: u64,
        params: FetchParams,
    ) -> Result<FetchResponse, ClientError> {
        // A JetStream pull has no minimum (batch, max_bytes, expires):
        // min_bytes and min_wait do not map and are ignored
        // (docs/SCALE-OUT.md).
        self.fetch_batches(topic, partition, offset, params.max_bytes, params.max_wait)
            .await
    }

    async fn call(&self, request: &Request<'_>) -> Result<Bytes, ClientError> {
        self.call_op(request).await
    }

    fn partition_handle(
        &self,
        topic: &Arc<str>,
        partition: u32,
        ack: Ack,
    ) -> Result<NatsPartition, ClientError> {
        Ok(NatsPartition {
            topic: topic.clone(),
            partition,
            ack,
        })
    }

    async fn link(&self) -> Result<NatsLink, ClientError> {
        Ok(NatsLink {
            nats: self.clone(),
            epoch: self.epoch.load(Ordering::Acquire),
        })
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
                    // with auto-create off, a batch NATS cannot carry, a
                    // durable ack the servers are not known to give).
                    SubmitError::Refused(e)
                } else {
                    // The NATS client reconnects by itself: asking for a
                    // new link at once would get the same error.
                    SubmitError::Unavailable(e)
                }
            })
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
