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
//!
//! # Layout
//! - `contract`: the `Transport` and `BatchLink` traits and what they
//!   exchange (`BatchId`, `BatchLimits`, `SubmitError`).
//! - `reply`: how answers travel back (`Reply`, `ReplyTo`, `Completion`).
//! - `endpoint`: [`Endpoint::parse`], [`TransportKind`], [`NatsOptions`],
//!   [`NatsCredentials`].
//! - `any`: `AnyTransport`, `Link`, `PartitionHandle` — the delegation.
//! - `hermit`: the HermitMQ transport and its `connection`.
//! - `nats` (feature `nats`): the NATS JetStream transport; [`nats_offset`]:
//!   its offset encoding.
//!
//! The files below this module use each other's items by their own paths,
//! never through this one (it only declares them and re-exports the public
//! names), so the modules form no circle.

pub(crate) mod any;
pub(crate) mod contract;
pub(crate) mod endpoint;
pub(crate) mod hermit;
#[cfg(feature = "nats")]
pub(crate) mod nats;
pub mod nats_offset;
pub(crate) mod reply;

pub use endpoint::{Endpoint, NatsCredentials, NatsOptions, TransportKind};
