//! The contract every transport implements: `Transport` (the operations,
//! per-partition handles, links) and `BatchLink` (submitting record batches
//! on one connection), with the types they exchange.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use hermit_protocol::{Ack, Request};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::error::ClientError;
use crate::records::FetchResponse;
use crate::transport::endpoint::TransportKind;
use crate::transport::reply::ReplyTo;

/// What every transport provides: the protocol operations behind each
/// [`Client`](crate::Client) method, and what the producer needs to submit
/// record batches without waiting for each answer.
///
/// Implemented by the shared handle (`Arc<…>`) that every clone of a
/// `Client` holds, so links and the tasks a transport spawns can keep it alive.
///
/// # Operations
/// Produce and fetch are methods of their own (the batch goes out and the
/// records come back without a copy); every other op goes through
/// [`Transport::call`] as a [`Request`]. They mean what the HermitMQ protocol says
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
/// [`Completion`](crate::transport::reply::Completion)s.
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
    /// waiting up to `params.max_wait` when there is nothing yet (long
    /// poll) — with `params.min_bytes > 1`, when there are fewer bytes, if
    /// the transport can ask that (a broker that announced it; not NATS);
    /// at least one batch even above `params.max_bytes`.
    async fn fetch(
        &self,
        topic: &str,
        partition: u32,
        offset: u64,
        params: FetchParams,
    ) -> Result<FetchResponse, ClientError>;

    /// Every other operation (`Commit` … `Ping`, and any op added later):
    /// send `request` — its names were checked when it was built — and
    /// return the answer's whole response frame (a success: the op's body,
    /// for the caller to decode with
    /// [`decode_response`](hermit_protocol::frame::decode_response)). A
    /// refusal is the typed error, as for every operation. A transport that
    /// cannot carry an op answers [`ClientError::Broker`] with
    /// [`Status::UnknownOp`](hermit_protocol::Status::UnknownOp), as a
    /// broker that does not know it would.
    async fn call(&self, request: &Request<'_>) -> Result<Bytes, ClientError>;

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
///   [`Completion`](crate::transport::reply::Completion) is delivered to `reply`:
///   [`Reply::Produce`](crate::transport::reply::Reply::Produce) with the offset of the
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

/// What a fetch asks for past its offset ([`Client::fetch_with`](crate::Client::fetch_with)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FetchParams {
    /// Soft limit on the bytes returned (at least one batch is always
    /// returned).
    pub max_bytes: u32,
    /// The longest the broker holds the fetch when there is nothing at the
    /// offset — or, with `min_bytes > 1`, fewer than `min_bytes`.
    pub max_wait: Duration,
    /// Hold the fetch until at least this many bytes of whole batches are
    /// there (capped by `max_bytes`): fewer, larger answers for a consumer
    /// following a busy log. 1 (the default): answered as soon as anything
    /// is there. Sent only to a broker whose hello announced it (others
    /// answer on any data); ignored over NATS, where a pull has no minimum.
    pub min_bytes: u32,
    /// With `min_bytes > 1`: how long the broker may hold the fetch once
    /// some data is there (capped by `max_wait`). Default 0.
    pub min_wait: Duration,
}

impl FetchParams {
    /// Up to `max_bytes`, waiting up to `max_wait` for data; no minimum.
    pub fn new(max_bytes: u32, max_wait: Duration) -> Self {
        FetchParams {
            max_bytes,
            max_wait,
            min_bytes: 1,
            min_wait: Duration::ZERO,
        }
    }

    /// The same, held for `min_bytes` up to `min_wait` once data is there.
    pub fn with_min(self, min_bytes: u32, min_wait: Duration) -> Self {
        FetchParams {
            min_bytes,
            min_wait,
            ..self
        }
    }
}
