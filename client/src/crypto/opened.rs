//! What opening a record gives: [`Opened`] (how it was sealed, what the
//! replay check stood on), or the [`OpenError`] of the check that refused
//! it; and why a sender could not be trusted ([`TrustError`]). The
//! [`Opener`](super::Opener) is in [`open`](super::open), which re-exports
//! these.

use super::compat::CompatError;
use super::envelope::FormatError;
use super::identity::{Fingerprint, Kid};
use super::replay::Gap;

/// Why a record was not opened. Each failure has its own variant.
///
/// The first seven, up to `TooManyRecipients`, are the envelope's
/// [`FormatError`]s (the bytes are not a sealed record), with the same names
/// and messages.
///
/// The AEAD failures (`DirectAuthFailed`, `WrapAuthFailed`, `PayloadAuthFailed`)
/// cannot say *what* was changed — a flipped bit, another topic, another `seq`
/// all look the same to a tag check — only *which* check refused the record.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum OpenError {
    /// The record ends before a field it declares.
    #[error("record truncated: need {need} more bytes, have {have}")]
    Truncated {
        /// Bytes needed for the next field.
        need: usize,
        /// Bytes left.
        have: usize,
    },
    /// A version byte other than 0x01.
    #[error("unsupported record version {found:#04x}")]
    UnsupportedVersion {
        /// The version byte.
        found: u8,
    },
    /// A mode byte other than 0x01 (DIRECT) or 0x02 (MULTI).
    #[error("unknown record mode {found:#04x}")]
    UnknownMode {
        /// The mode byte.
        found: u8,
    },
    /// Flag bits other than SIGNED and PADDED are set.
    #[error("reserved flag bits set in {flags:#010b}")]
    ReservedFlags {
        /// The flags byte.
        flags: u8,
    },
    /// The reserved header byte is not zero.
    #[error("reserved header byte is {found:#04x}, not 0")]
    ReservedByte {
        /// The reserved byte.
        found: u8,
    },
    /// A MULTI record with `n = 0`.
    #[error("MULTI record with no recipients")]
    NoRecipients,
    /// A MULTI record with `n > 4096`.
    #[error("MULTI record claims {n} recipients; at most 4096 are allowed")]
    TooManyRecipients {
        /// The `n` field.
        n: usize,
    },
    /// The topic name is longer than 65535 bytes.
    #[error("topic name is {len} bytes; at most 65535 can be opened on")]
    TopicTooLong {
        /// Topic length in bytes.
        len: usize,
    },
    /// The record was sealed by this opener's own key: a reflection.
    #[error("record was sealed by our own key (reflected)")]
    Reflected,
    /// No trusted sender has this key id.
    #[error("sender {kid} is not trusted")]
    UnknownSender {
        /// The sender kid in the header.
        kid: Kid,
    },
    /// A DIRECT record addressed to someone else.
    #[error("DIRECT record is addressed to {recipient}, not to us")]
    NotForMe {
        /// The recipient kid in the record.
        recipient: Kid,
    },
    /// A MULTI record with no entry for our key id.
    #[error("MULTI record has no entry for us")]
    NotARecipient,
    /// A MULTI record with two entries for our key id.
    #[error("MULTI record has two entries for key id {kid}")]
    DuplicateEntry {
        /// The repeated kid.
        kid: Kid,
    },
    /// The DIRECT tag did not verify (any change to the record, its topic, its
    /// sender or recipient, or a different key).
    #[error("DIRECT record does not authenticate")]
    DirectAuthFailed,
    /// Our MULTI entry did not unwrap: the header, recipient list, payload or
    /// our entry was changed (a recipient forging a payload lands here).
    #[error("MULTI key wrap does not authenticate")]
    WrapAuthFailed,
    /// The unwrapped content key does not match `ck_commit`: the sender gave
    /// members different keys.
    #[error("MULTI content key does not match its commitment")]
    CkCommitMismatch,
    /// The MULTI payload did not verify under the committed content key.
    #[error("MULTI payload does not authenticate")]
    PayloadAuthFailed,
    /// This `seq` from this sender on this topic was already opened.
    #[error("replayed record: seq {seq} already seen (highest {highest})")]
    Replayed {
        /// The record's seq.
        seq: u64,
        /// Highest seq accepted from this sender on this topic.
        highest: u64,
    },
    /// This `seq` is more than 1024 records behind the highest one accepted.
    #[error("record seq {seq} is too old to check (highest {highest}, window 1024)")]
    TooOld {
        /// The record's seq.
        seq: u64,
        /// Highest seq accepted from this sender on this topic.
        highest: u64,
    },
    /// The record is SIGNED but no verifying key is known for its sender.
    #[error("record is signed but no signing key is trusted for sender {kid}")]
    UnknownSigner {
        /// The sender kid.
        kid: Kid,
    },
    /// The signature trailer does not verify.
    #[error("record signature does not verify")]
    SignatureInvalid,
    /// The record is unsigned but this opener requires signatures.
    #[error("record is not signed and signatures are required")]
    Unsigned,
    /// The PADDED plaintext does not end with `0x80 0x00*`.
    #[error("padded plaintext has malformed padding")]
    BadPadding,
    /// A legacy compatibility record, and legacy records are not allowed.
    #[error("legacy compatibility record refused (no sender, topic or seq; opt in to accept)")]
    LegacyRefused,
    /// A legacy record that is malformed (JSON, base64, IV or tag length).
    #[error("malformed legacy record: {0}")]
    LegacyMalformed(#[source] CompatError),
    /// A legacy record no trusted sender's pairwise key opens.
    #[error("legacy record does not authenticate under any trusted sender's key")]
    LegacyAuthFailed,
}

impl From<FormatError> for OpenError {
    #[inline]
    fn from(e: FormatError) -> Self {
        match e {
            FormatError::Truncated { need, have } => OpenError::Truncated { need, have },
            FormatError::UnsupportedVersion { found } => OpenError::UnsupportedVersion { found },
            FormatError::UnknownMode { found } => OpenError::UnknownMode { found },
            FormatError::ReservedFlags { flags } => OpenError::ReservedFlags { flags },
            FormatError::ReservedByte { found } => OpenError::ReservedByte { found },
            FormatError::NoRecipients => OpenError::NoRecipients,
            FormatError::TooManyRecipients { n } => OpenError::TooManyRecipients { n },
        }
    }
}

/// Why a key could not be trusted.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TrustError {
    /// One's own key cannot be a sender (its records are reflections).
    #[error("cannot trust our own key as a sender")]
    OwnKey,
    /// A different trusted key already has this key id.
    #[error("key id {kid} already belongs to a different trusted key")]
    KidCollision {
        /// The colliding kid.
        kid: Kid,
    },
}

/// How an opened record was sealed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OpenedMode {
    /// Sealed record v1, DIRECT.
    Direct,
    /// Sealed record v1, MULTI.
    Multi,
    /// Legacy `ChatCrypto` record (no seq, no replay protection).
    Legacy,
}

/// What was learned opening a record (the plaintext went to the caller's buffer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Opened {
    /// The sender's fingerprint.
    pub sender: Fingerprint,
    /// How it was sealed.
    pub mode: OpenedMode,
    /// Its sequence number (`None` for legacy records).
    pub seq: Option<u64>,
    /// Whether a signature was verified.
    pub signed: bool,
    /// Whether padding was stripped.
    pub padded: bool,
    /// Sequence numbers skipped since the previous record from this sender on this
    /// topic: withheld, lost, or addressed to others on the same topic.
    pub gap: Option<Gap>,
    /// Whether the record arrived late, inside the window (filling part of a gap
    /// reported earlier).
    pub late: bool,
    /// What the replay check knew of this sender before this record.
    pub window: WindowStart,
    /// Plaintext bytes appended to the buffer.
    pub len: usize,
}

/// What the replay check of a record stood on: how its sender's window on
/// the topic was initialised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowStart {
    /// The sender's window was already in use by this opener.
    Continued,
    /// The first record after a persisted high-water mark was restored
    /// ([`Opener::restore_high_water`](super::Opener::restore_high_water)): replays of what the previous run
    /// accepted are refused.
    Restored,
    /// The first record ever seen from this sender on this topic (nothing
    /// persisted for it): accepted on its own `seq` — above the topic's
    /// restored floor, if any ([`Opener::restore_floor`](super::Opener::restore_floor)) — so an old record
    /// replayed to a reader that never saw the sender opens once.
    New,
    /// A legacy record: no sequence number, no replay check.
    Unchecked,
}
