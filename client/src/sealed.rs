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
//!   [`ClientError`].
//!
//! # Record keys are blinded
//! The broker compacts and partitions by the batch key, which it sees. A
//! logical key never leaves the client: the batch key is
//! `HMAC-SHA256(K_conv, "sealed-record/v1 key" ‖ k)[0..16]`
//! ([`ConversationKey::blind`](crate::crypto::ConversationKey::blind)), where `K_conv` is
//! - one recipient ([`SealedProducer::send`]): `K_pair(sender, recipient)`,
//!   the same in both directions, so a conversation's records compact together
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
//!   [`ConversationKey::from_group_secret`](crate::crypto::ConversationKey::from_group_secret).
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
//! ([`OpenedRecord::window`] is [`WindowStart::New`]). A restarted consumer
//! resumes at the committed offset (or the state's, if a crash fell between
//! saving it and committing). Without a group nothing is saved: the windows
//! start empty and records read again open again.
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
//! sender's records more than 1024 apart, reported as `TooOld`. Conversations
//! that need every record checked belong on single-partition topics or behind
//! one key (one key, one partition).

mod consumer;
mod producer;
pub mod state;

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use zeroize::Zeroizing;

pub use consumer::{Received, SealedConsumer, SealedConsumerOptions, StateOrigin};
pub use producer::{
    BUDGET_RESERVE, SealedDelivery, SealedGroup, SealedProducer, SealedProducerOptions,
};

use crate::crypto::{
    Fingerprint, Gap, Kid, Mode, OpenError, OpenedMode, SealError, TrustError, WindowStart,
};
use crate::error::ClientError;

/// Why a sealed producer or consumer call failed as a whole (a record that
/// fails to open is a [`SealedRecordError`] instead).
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum SealedError {
    /// The producer, consumer or connection failed.
    #[error(transparent)]
    Client(#[from] ClientError),
    /// The record could not be sealed (bad recipients, topic or size); nothing
    /// was queued.
    #[error("cannot seal the record")]
    Seal(#[source] SealError),
    /// A sender key could not be trusted.
    #[error("cannot trust the sender key")]
    Trust(#[source] TrustError),
    /// A replay high-water mark could not be restored.
    #[error("cannot restore the replay state")]
    Open(#[source] OpenError),
    /// The persisted state (replay windows, DIRECT budgets) could not be
    /// read, opened or saved; nothing was committed or sent past it.
    #[error("sealed state in topic {topic}: {reason}")]
    State {
        /// The identity's state topic.
        topic: String,
        /// What failed, and what to do about it.
        reason: String,
        /// The broker's refusal, when it refused (`Unauthorized`: the ACL
        /// has no rule for the state topic).
        status: Option<hermit_protocol::Status>,
    },
}

/// A decrypted plaintext, wiped from memory when dropped. Its `Debug` shows
/// only the length; it has no `Display`.
#[derive(Clone, PartialEq, Eq)]
pub struct Plaintext(Zeroizing<Vec<u8>>);

impl Plaintext {
    /// The bytes, exactly as sealed (a BOM or invalid UTF-8 is kept).
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// The bytes as UTF-8 text, refusing invalid UTF-8 rather than replacing
    /// it; a leading BOM is kept.
    ///
    /// # Errors
    /// [`std::str::Utf8Error`] if the bytes are not UTF-8.
    pub fn to_str(&self) -> Result<&str, std::str::Utf8Error> {
        std::str::from_utf8(&self.0)
    }

    /// The owned buffer, still wiped on drop.
    pub fn into_zeroizing(self) -> Zeroizing<Vec<u8>> {
        self.0
    }
}

impl Deref for Plaintext {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.0
    }
}

impl AsRef<[u8]> for Plaintext {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl fmt::Debug for Plaintext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Plaintext(<{} bytes redacted>)", self.0.len())
    }
}

/// A record that was opened: where it was stored, who sealed it, and its
/// plaintext.
#[derive(Debug, Clone)]
pub struct OpenedRecord {
    /// Topic.
    pub topic: Arc<str>,
    /// Partition.
    pub partition: u32,
    /// Offset.
    pub offset: u64,
    /// The batch timestamp (ns since the Unix epoch), as the broker stored it.
    /// Not authenticated: the broker can change it.
    pub timestamp_ns: u64,
    /// The blinded batch key as stored (empty for none): compare with
    /// [`ConversationKey::blind`](crate::crypto::ConversationKey::blind) of a
    /// logical key, never reversible to it.
    pub key: bytes::Bytes,
    /// The authenticated sender.
    pub sender: Fingerprint,
    /// The sender's sequence number on this topic (`None` for legacy records).
    pub seq: Option<u64>,
    /// DIRECT, MULTI or legacy.
    pub mode: OpenedMode,
    /// Sequence numbers of this sender skipped since its previous record on
    /// this topic: withheld, lost, on another partition, or addressed to
    /// others (those were reported as [`RecordErrorKind::NotForMe`]).
    pub gap: Option<Gap>,
    /// The record arrived late, inside the window (it fills part of an earlier gap).
    pub late: bool,
    /// How this sender's replay window stood before this record: `New` on
    /// the first record from a sender no persisted state knew (accepted on
    /// its own `seq`).
    pub window: WindowStart,
    /// A signature was verified.
    pub signed: bool,
    /// Padding was stripped.
    pub padded: bool,
    /// The plaintext.
    pub plaintext: Plaintext,
}

/// A record that was not opened, with where it is stored. Returned per
/// record by [`SealedConsumer::next`]; the consumer goes on to the next
/// record.
#[derive(Debug, Clone, thiserror::Error)]
#[error("record {topic}/{partition} at offset {offset}: {kind}")]
pub struct SealedRecordError {
    /// Topic.
    pub topic: Arc<str>,
    /// Partition.
    pub partition: u32,
    /// Offset.
    pub offset: u64,
    /// The batch timestamp (ns since the Unix epoch), unauthenticated.
    pub timestamp_ns: u64,
    /// What was wrong.
    pub kind: RecordErrorKind,
}

impl SealedRecordError {
    /// Whether the record is addressed to others (ignore it quietly: it does
    /// not hold commits back).
    pub fn is_not_for_me(&self) -> bool {
        matches!(self.kind, RecordErrorKind::NotForMe { .. })
    }

    /// The opening error, unless the record is simply addressed to others
    /// or was released.
    pub fn open_error(&self) -> Option<&OpenError> {
        match &self.kind {
            RecordErrorKind::Open(e) => Some(e),
            RecordErrorKind::NotForMe { .. } | RecordErrorKind::Released { .. } => None,
        }
    }

    /// Whether this record holds its partition's committed offset back until
    /// [`SealedConsumer::ack`] (every failure to open; not records for
    /// others, nor a [`RecordErrorKind::Released`] notice).
    pub fn holds_commit(&self) -> bool {
        matches!(self.kind, RecordErrorKind::Open(_))
    }
}

/// Why a record was not opened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RecordErrorKind {
    /// A well-formed sealed record with nothing for this reader: a DIRECT
    /// record for another key, or a MULTI record without an entry for us —
    /// what other conversations on a shared topic look like, and one's own
    /// records (`own`). Checked before the sender is looked up, so records
    /// between strangers land here too. Counts as handled for commits.
    ///
    /// Whoever can rewrite records (the broker) can make one of ours look
    /// like this by changing its recipient kid, which is no more than
    /// withholding it: the sender's next record then reports the
    /// [`Gap`].
    #[error("addressed to others (sender {sender}, {mode:?})")]
    NotForMe {
        /// The sender kid in the header (not authenticated).
        sender: Kid,
        /// The sender kid is this reader's own: an echo of a record we sent.
        own: bool,
        /// DIRECT or MULTI.
        mode: Mode,
    },
    /// The record failed a check: structure, sender, replay, authentication,
    /// signature, padding, legacy. Holds the commit back until acknowledged,
    /// or until the bound on held records releases it.
    #[error(transparent)]
    Open(OpenError),
    /// A record reported earlier as [`RecordErrorKind::Open`] stopped
    /// holding commits back without being acknowledged: more than
    /// `max_held` were held, or it was held longer than `max_held_age`
    /// ([`SealedConsumerOptions`]). The commit may now pass it: it is
    /// skipped, and this notice is the record of that.
    #[error("skipped: released from holding the commit ({why})")]
    Released {
        /// Which bound released it.
        why: Release,
    },
}

/// Which bound on held records released one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Release {
    /// More than this many records of one partition were held.
    Count(usize),
    /// It was held longer than this.
    Age(std::time::Duration),
}

impl fmt::Display for Release {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Release::Count(n) => write!(f, "more than {n} records held"),
            Release::Age(d) => write!(f, "held longer than {} s", d.as_secs()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plaintext_debug_shows_only_the_length() {
        let p = Plaintext(Zeroizing::new(b"attack at dawn".to_vec()));
        let d = format!("{p:?}");
        assert_eq!(d, "Plaintext(<14 bytes redacted>)");
        assert_eq!(&*p, b"attack at dawn");
        assert_eq!(p.to_str(), Ok("attack at dawn"));
    }

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
