//! Sealed producer and consumer: the [`crypto`](crate::crypto) layer on top of
//! the [`Producer`](crate::Producer) and [`Consumer`](crate::Consumer), built on
//! their public API only.
//!
//! - [`SealedProducer::send`] seals a plaintext to one recipient (DIRECT) or
//!   several (MULTI) straight into the producer's batch buffer (no copy of the
//!   record) and blinds the record key; [`SealedProducer::send_group`] does the
//!   same for a [`SealedGroup`] with a shared key secret.
//! - [`SealedConsumer::next`] yields, per record, either an [`OpenedRecord`]
//!   or a [`SealedRecordError`] naming the record's topic, partition and offset
//!   — nothing is skipped silently. Transport errors are the outer
//!   [`ClientError`](crate::ClientError).
//!
//! # Record keys are blinded
//! The broker compacts and partitions by the batch key, which it sees. A
//! logical key never leaves the client: the batch key is
//! `HMAC-SHA256(K_conv, "sealed-record/v1 key" ‖ k)[0..16]`
//! ([`BlindingKey::blind`](crate::crypto::BlindingKey::blind)), where `K_conv` is
//! - one recipient ([`SealedProducer::send`]): `K_pair(sender, recipient)`,
//!   the same in both directions, so a pair's records compact together
//!   whoever wrote them (also after the sealer switched the pair to MULTI);
//! - several recipients ([`SealedProducer::send`]): no secret is shared by all
//!   of them, so the key is the sender's own: `K_self = K_pair(s, S)` (ECDH of
//!   the sender's private key with its own public key, which only the sender
//!   can compute) over `u16(n) ‖ fp(r_1) ‖ … ‖ fp(r_n) ‖ k`, recipients sorted
//!   by fingerprint. Equal keys compact per (sender, recipient set); the broker
//!   cannot link the same logical key across sets;
//! - a [`SealedGroup`] ([`SealedProducer::send_group`]): the group secret
//!   every member holds, so equal keys compact together across senders. The
//!   secret is not derived from anything public (a hash of the member list
//!   would let the broker test guesses of logical keys): one member draws it
//!   ([`SealedGroup::generate`]) and sends it to the others inside a sealed
//!   record; they rebuild the group with
//!   [`BlindingKey::from_group_secret`](crate::crypto::BlindingKey::from_group_secret).
//!
//! Records without a logical key go out keyless (round robin over partitions).
//!
//! # Sequence numbers
//! One [`Sealer`](crate::crypto::Sealer) per [`SealedProducer`] (clones share
//! it) numbers records per (sender, topic), starting each run at
//! `unix_ms << 16`, so numbers keep rising across restarts without
//! persistence. Two `SealedProducer`s of one identity sealing to one topic at
//! once would reuse numbers (their readers see `Replayed`): share one through
//! clones. [`SealedProducer::next_seq`] / [`SealedProducer::resume_topic`]
//! make the order independent of the clock for callers that persist it.
//!
//! # Commits
//! A record is *finished* once [`SealedConsumer::next`] is called again after
//! it was returned (the [`Consumer`](crate::Consumer)'s rule). The periodic
//! commit (`ConsumerOptions::auto_commit`, with a group) stores, per partition,
//! the offset after the last finished record — but never past a record that
//! failed to open and was not acknowledged with [`SealedConsumer::ack`]: the
//! oldest such record is the committed offset, so a restarted consumer of the
//! group reads it again. Records addressed to others
//! ([`RecordErrorKind::NotForMe`]) are reported and count as handled: reading
//! them again can only give the same answer, and holding them would pin the
//! committed offset of every shared topic at the first record for someone
//! else. [`SealedConsumer::commit`] stores the same position counting the
//! record being handled; [`SealedConsumer::close`] does a final commit.
//!
//! # Replay state across restarts
//! The [`Opener`](crate::crypto::Opener)'s replay window per (topic, sender)
//! lives in memory; with a group (and `persist_state`, the default) the
//! consumer saves, before every commit, per sender the highest `seq` opened
//! below the positions being committed, sealed to its own identity in the
//! identity's state topic ([`state`]), and restores it at start. A record
//! replayed after a restart — fetched before and appended again by whoever
//! can write the topic — is then refused as `Replayed`; a sender the state
//! does not know starts its window with its first record, which says so
//! ([`OpenedRecord::window`] is [`WindowStart::New`](crate::crypto::WindowStart::New)). A restarted consumer
//! resumes at the committed offset (or the state's, if a crash fell between
//! saving it and committing). Without a group nothing is saved: the windows
//! start empty and records read again open again. With a client state
//! directory, each state's generation is anchored there, and a broker that
//! serves an older state or moves the commit back is refused
//! ([`state`], [`SealedError::StateRolledBack`]).
//!
//! # Records that fail to open
//! Each holds its partition's commit back until [`SealedConsumer::ack`], but
//! not forever: past `max_held` held records in a partition (default 1000)
//! or `max_held_age` (default 1 hour) the oldest is released, reported once
//! more as [`RecordErrorKind::Released`] with its offset — so garbage from a
//! stranger cannot stall a group, and nothing is skipped without a word.
//!
//! # Partitions
//! A sender's `seq` is per topic, and the window tolerates 1024 records of
//! reordering. Across partitions only per-partition order exists: a reader
//! catching up on a backlog spread over several partitions can see one
//! sender's records more than 1024 apart, reported as `TooOld`. Pairs and
//! groups that need every record checked belong on single-partition topics
//! or behind one key (one key, one partition).
//!
//! # Layout
//! - `producer`: [`SealedProducer`]; `group`: [`SealedGroup`]; `delivery`:
//!   [`SealedDelivery`].
//! - `consumer`: [`SealedConsumer`]; `commits`: its commit bookkeeping, held
//!   records and the replay state saved with each commit.
//! - `record`: what the consumer returns per record ([`OpenedRecord`],
//!   [`Plaintext`], [`SealedRecordError`]).
//! - `error`: [`SealedError`].
//! - [`state`]: the state topic (replay windows, DIRECT reservations).

mod commits;
mod consumer;
mod delivery;
mod error;
mod group;
mod producer;
mod record;
pub mod state;

pub use commits::StateOrigin;
pub use consumer::{Received, ReceivedRef, SealedConsumer, SealedConsumerOptions};
pub use delivery::SealedDelivery;
pub use error::SealedError;
pub use group::SealedGroup;
#[allow(deprecated)]
pub use producer::BUDGET_RESERVE;
pub use producer::{RESERVATION_SIZE, SealedProducer, SealedProducerOptions};
pub use record::{OpenedRecord, OpenedRef, Plaintext, RecordErrorKind, Release, SealedRecordError};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_types_are_send() {
        fn send<T: Send>() {}
        send::<SealedProducer>();
        send::<SealedConsumer>();
        send::<SealedDelivery>();
        send::<OpenedRecord>();
        send::<SealedRecordError>();
    }
}
