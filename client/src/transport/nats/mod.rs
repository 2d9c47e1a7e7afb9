//! The NATS JetStream transport (cargo feature `nats`).
//!
//! The mapping, in short (the whole story, with its limits, is in
//! `docs/SCALE-OUT.md`):
//! - a topic's partition is one stream, `HERMIT_<topic>_<partition>`, on the
//!   subject `hermit.<topic>.<partition>` (compacted topics: one subject per
//!   key below it and `max_msgs_per_subject = 1`); see [`names`];
//! - a record batch is one message: the payload as the producer wrote it,
//!   the batch header as message headers; see [`message`];
//! - an offset names a stream sequence and a record of its batch,
//!   `((sequence + 1) << 16) − count + index`; see
//!   [`crate::transport::nats_offset`];
//! - reads go through ephemeral pull consumers positioned at the offset
//!   asked for (acks off), kept between fetches; see [`puller`];
//! - a group's committed offset is the last message on its subject in the
//!   compacted stream `HERMIT_OFFSETS`;
//! - a conditional produce is a publish with `Nats-Expected-Last-Sequence`;
//! - a partition's claim position is a message in `HERMIT_OFFSETS` too,
//!   moved by compare-and-set (`Nats-Expected-Last-Subject-Sequence`).
//!
//! Only what NATS 2.9 understands is used, and every stream and consumer
//! configuration the server echoes back is compared with the one asked for:
//! an option the server silently dropped is an error, not a surprise.
//!
//! # Layout
//! - `transport`: [`Nats`], the shared transport (connection, caches) and
//!   the contract's implementation, which calls the files below.
//! - `ops`: the call mapping — every control request NATS carries;
//!   `conditional` (conditional produce) and `claim` (with its state,
//!   `claim_state`) are the two with files of their own.
//! - `produce`, `fetch`: the data path.
//! - `streams`: topics as streams, created on first use; the offsets stream.
//! - `api`: JetStream API requests; `jetstream`: their bodies, errors and
//!   configuration checks.
//! - [`names`]: streams, subjects, headers; `message`: one batch as one
//!   message; `puller`: readers (pull consumers); `pool`: idle ones.

mod api;
mod claim;
mod claim_state;
mod conditional;
mod fetch;
mod jetstream;
mod message;
pub(crate) mod names;
mod ops;
mod pool;
mod produce;
mod puller;
mod streams;
mod transport;

pub(crate) use transport::{Nats, NatsLink, NatsPartition};
