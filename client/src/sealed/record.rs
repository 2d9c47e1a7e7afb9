//! What a [`SealedConsumer`](crate::sealed::SealedConsumer) returns per
//! record: an [`OpenedRecord`] with its [`Plaintext`], or a
//! [`SealedRecordError`] saying why not ([`RecordErrorKind`], [`Release`]).

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use zeroize::Zeroizing;

use crate::crypto::{Fingerprint, Gap, Kid, Mode, OpenError, OpenedMode, WindowStart};

/// A decrypted plaintext, wiped from memory when dropped. Its `Debug` shows
/// only the length; it has no `Display`.
#[derive(Clone, PartialEq, Eq)]
pub struct Plaintext(pub(crate) Zeroizing<Vec<u8>>);

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
    /// [`BlindingKey::blind`](crate::crypto::BlindingKey::blind) of a
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

/// An opened record borrowed from the [`SealedConsumer`](crate::sealed::SealedConsumer)
/// (see [`SealedConsumer::try_next_ref`](crate::sealed::SealedConsumer::try_next_ref)):
/// the fields of [`OpenedRecord`], with the topic, key and plaintext as
/// slices. The plaintext lives in the consumer's buffer, wiped before it is
/// reused; copy what must outlive the next call. `Debug` shows only the
/// plaintext's length.
#[derive(Clone, Copy)]
#[non_exhaustive]
pub struct OpenedRef<'a> {
    /// Topic.
    pub topic: &'a str,
    /// Partition.
    pub partition: u32,
    /// Offset.
    pub offset: u64,
    /// The batch timestamp (see [`OpenedRecord::timestamp_ns`]); not authenticated.
    pub timestamp_ns: u64,
    /// The blinded batch key as stored (see [`OpenedRecord::key`]).
    pub key: &'a [u8],
    /// The authenticated sender.
    pub sender: Fingerprint,
    /// The sender's sequence number on this topic (`None` for legacy records).
    pub seq: Option<u64>,
    /// DIRECT, MULTI or legacy.
    pub mode: OpenedMode,
    /// Sequence numbers of this sender skipped (see [`OpenedRecord::gap`]).
    pub gap: Option<Gap>,
    /// The record arrived late, inside the window.
    pub late: bool,
    /// How this sender's replay window stood before this record.
    pub window: WindowStart,
    /// A signature was verified.
    pub signed: bool,
    /// Padding was stripped.
    pub padded: bool,
    /// The plaintext.
    pub plaintext: &'a [u8],
}

impl fmt::Debug for OpenedRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenedRef")
            .field("topic", &self.topic)
            .field("partition", &self.partition)
            .field("offset", &self.offset)
            .field("sender", &self.sender)
            .field("seq", &self.seq)
            .field("mode", &self.mode)
            .field(
                "plaintext",
                &format_args!("<{} bytes redacted>", self.plaintext.len()),
            )
            .finish_non_exhaustive()
    }
}

/// A record that was not opened, with where it is stored. Returned per
/// record by [`SealedConsumer::next`](super::SealedConsumer::next); the consumer goes on to the next
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
    /// [`SealedConsumer::ack`](super::SealedConsumer::ack) (every failure to open; not records for
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
    /// what the records of other pairs and groups on a shared topic look
    /// like, and one's own records (`own`). Checked before the sender is
    /// looked up, so records between strangers land here too. Counts as
    /// handled for commits.
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
    /// ([`SealedConsumerOptions`](super::SealedConsumerOptions)). The commit may now pass it: it is
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
}
