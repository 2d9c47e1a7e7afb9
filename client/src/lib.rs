//! HermitMQ client SDK.
//!
//! # Layout
//! The data path, from the application to the socket and back:
//! - [`client`]: [`Client`], a cloneable handle on one multiplexed connection
//!   (reconnects with backoff) with one async method per protocol operation.
//! - [`options`]: [`ClientOptions`] (timeouts, TLS, the identity, NATS
//!   credentials) and the topic and group name checks run before sending.
//! - [`transport`]: what is behind a [`Client`], chosen by the URL given to
//!   [`Client::connect`]: a HermitMQ broker (`hermit://host:port` or
//!   `host:port`, the default) or NATS JetStream (`nats://…`, cargo feature
//!   `nats`; see `docs/SCALE-OUT.md`). Its crate-internal traits `Transport`
//!   and `BatchLink` are the contract every transport implements (produce
//!   and fetch, one `call` for every other request, per-partition handles,
//!   batch submission: order, completions, errors, cancellation); answers
//!   travel back as `transport::reply` values, the same for every transport.
//!   - `transport::hermit` (internal): `handshake` opens a connection to a
//!     HermitMQ broker (TCP, TLS, hellos, authentication), `connection`
//!     runs it — a writer task (one vectored write per wake-up), a reader
//!     task matching answers by correlation id.
//!   - `transport::nats` (internal): JetStream streams, pullers (pull
//!     consumers) for fetches, the offsets stream, the call mapping.
//! - [`producer`]: [`Producer`] — linger/batch accumulators written in place,
//!   many batches in flight, retries without reordering, bounded memory.
//! - [`partitioner`]: key hash → partition, keyless records round robin.
//! - [`consumer`]: [`Consumer`] — long-poll fetches kept in flight, CRC
//!   checks, start positions, reset policy, manual and periodic commits.
//! - [`records`]: [`Record`] and [`FetchResponse`], zero-copy views of fetched batches.
//! - [`tls`]: TLS client configuration (a CA file or the system roots, an
//!   optional client certificate) and the handshake, for `hermits://`.
//! - [`error`]: [`ClientError`], with [`ClientError::is_retriable`].
//! - `lock` and `fxhash` (internal): poison-tolerant locking, a fast hasher
//!   for the producer's and the sealer's maps.
//! - [`crypto`]: end-to-end sealing (sans-I/O): Web Crypto-compatible identities,
//!   password-wrapped key files, the article's compatibility API and sealed records.
//! - [`sealed`]: [`SealedProducer`] and [`SealedConsumer`] — sealing in place through the
//!   producer, blinded keys, opened records or per-record typed errors, commits that
//!   never pass a record that failed to open.
//! - [`mls`]: conversations with forward secrecy (MLS, RFC 9420, over
//!   mls-rs, ciphersuite 2) with the log as the delivery service.
//! - [`local`]: what a client keeps on its own device, the client state
//!   directory ([`StateDir`]): pinned broker ids (`known-brokers`) and the
//!   anchors of its sealed state (`state-anchors`).
//! - [`trust`]: safety numbers, the digits two people compare to check each
//!   other's account key out of band.
//!
//! Batch payload layout (what the producer writes and the consumer reads):
//! `record_count × (u32 length, record bytes)`, big-endian, after the batch
//! header and key (see `docs/PROTOCOL.md`).

// No function over 120 lines (clippy.toml): long ones are prompts to ask
// what they are two of. Tests may be longer.
#![cfg_attr(not(test), warn(clippy::too_many_lines))]

pub mod client;
pub mod consumer;
pub mod crypto;
pub mod error;
mod fxhash;
pub mod local;
mod lock;
pub mod mls;
pub mod options;
pub mod outcome;
pub mod partitioner;
pub mod producer;
pub mod records;
pub mod sealed;
pub mod tls;
pub mod transport;
pub mod trust;

pub use client::Client;
pub use consumer::{Consumer, ConsumerOptions, Fallback, ResetPolicy, StartFrom};
pub use error::ClientError;
pub use hermit_protocol::frame::{
    MAX_LIST_LIMIT, PartitionMetadata, TopicMetadata, TopicPage, TopicSettings,
};
pub use hermit_protocol::{Ack, Cleanup, Status};
pub use local::{KnownBrokers, StateDir};
pub use options::{ClientCert, ClientOptions};
pub use outcome::{Claim, ClaimId, ClaimedBatch, Conditional};
pub use producer::{Delivered, Delivery, Producer, ProducerOptions};
pub use records::{FetchResponse, Record, RecordRef, Records};
pub use sealed::{
    OpenedRecord, OpenedRef, Plaintext, Received, ReceivedRef, RecordErrorKind, Release,
    SealedConsumer, SealedConsumerOptions, SealedDelivery, SealedError, SealedGroup,
    SealedProducer, SealedProducerOptions, SealedRecordError, StateOrigin,
};
pub use transport::contract::FetchParams;
pub use transport::{Endpoint, NatsCredentials, NatsOptions, TransportKind};
