//! Sealed record v1: the wire format, parsed without copying.
//!
//! ```text
//! common header (20): version=0x01 | mode | flags | 0x00 | sender_kid(8) | seq u64
//! DIRECT (0x01):  header | recipient_kid(8) | iv(12) | AES-GCM(K_pair) ct || tag(16) [| sig(64)]
//! MULTI  (0x02):  header | msg_salt(16) | ck_commit(32) | n u16
//!                 | n × (kid(8) | wrapped CK(32) | tag(16)) | payload ct || tag(16) [| sig(64)]
//! ```
//!
//! All integers are big-endian. [`Header::parse`] checks the common header;
//! [`RecordView::parse`] checks a whole record's structure (lengths, `n`, the
//! signature trailer) and hands out borrowed slices of its fields. Neither
//! authenticates anything: that is the [`Opener`](super::Opener)'s job.
//!
//! This module owns the byte layout: the fields' offsets and the AADs built
//! from them (the sealer and the opener write and read records through these
//! constants), what is wrong with bytes that do not parse ([`FormatError`]),
//! and the buffers records are written to ([`RecordBuf`]).

use sha2::{Digest as _, Sha256};

use super::identity::{Fingerprint, KID_LEN, Kid};

/// The only record version this code reads or writes.
pub const VERSION: u8 = 0x01;
/// Length of the common header.
pub const HEADER_LEN: usize = 20;
/// AES-GCM IV length in DIRECT records.
pub const IV_LEN: usize = super::aead::IV_LEN;
/// AES-GCM tag length everywhere.
pub const TAG_LEN: usize = super::aead::TAG_LEN;
/// Bytes before the ciphertext in a DIRECT record: header, recipient kid, IV.
pub const DIRECT_PREFIX_LEN: usize = DIRECT_IV_AT + IV_LEN;
/// Total DIRECT overhead over the plaintext (unpadded, unsigned): 56 bytes.
pub const DIRECT_OVERHEAD: usize = DIRECT_PREFIX_LEN + TAG_LEN;
/// Bytes before the first MULTI entry: header, msg_salt, ck_commit, n.
pub const MULTI_PREFIX_LEN: usize = MULTI_COUNT_AT + 2;
/// Length of a MULTI msg_salt.
pub const MSG_SALT_LEN: usize = 16;
/// Length of one MULTI entry: kid, wrapped 32-byte CK, tag.
pub const MULTI_ENTRY_LEN: usize = KID_LEN + CK_LEN + TAG_LEN;
/// Largest recipient count a MULTI record may carry.
pub const MAX_RECIPIENTS: usize = 4096;
/// Length of the optional ECDSA P-256 signature trailer (raw `r || s`).
pub const SIGNATURE_LEN: usize = super::signing::SIGNATURE_LEN;
/// Length of every digest in a record and its AADs: `ck_commit`,
/// `ctx_digest`, `rcpt_digest`, `SHA-256(payload)`.
pub const DIGEST_LEN: usize = 32;
/// Length of a MULTI content key `CK` (as wrapped in each entry) and of
/// each wrap key `KW_i`.
pub const CK_LEN: usize = 32;

/// Offsets of the version, mode, flags and reserved bytes.
const VERSION_AT: usize = 0;
const MODE_AT: usize = 1;
const FLAGS_AT: usize = 2;
const RESERVED_AT: usize = 3;
/// Offset of the sender's key id in the common header.
pub const SENDER_AT: usize = 4;
/// Offset of the sequence number (u64) in the common header.
pub const SEQ_AT: usize = SENDER_AT + KID_LEN;
/// DIRECT: offset of the recipient's key id (right after the common header).
pub const DIRECT_RECIPIENT_AT: usize = HEADER_LEN;
/// DIRECT: offset of the IV.
pub const DIRECT_IV_AT: usize = DIRECT_RECIPIENT_AT + KID_LEN;
/// MULTI: offset of `msg_salt`.
pub const MULTI_SALT_AT: usize = HEADER_LEN;
/// MULTI: offset of `ck_commit`.
pub const MULTI_COMMIT_AT: usize = MULTI_SALT_AT + MSG_SALT_LEN;
/// MULTI: offset of `n`, the recipient count (u16).
pub const MULTI_COUNT_AT: usize = MULTI_COMMIT_AT + DIGEST_LEN;

/// The DIRECT AAD: `bytes[0..40) ‖ ctx_digest`.
pub(crate) const DIRECT_AAD_LEN: usize = DIRECT_PREFIX_LEN + DIGEST_LEN;
/// Where `ctx_digest` sits in the DIRECT AAD.
pub(crate) const DIRECT_AAD_CTX_AT: usize = DIRECT_PREFIX_LEN;
/// The MULTI AAD: `bytes[0..70) ‖ rcpt_digest ‖ last`, where `last` is
/// `SHA-256(payload)` for the key wraps and `ctx_digest` for the payload.
pub(crate) const MULTI_AAD_LEN: usize = MULTI_PREFIX_LEN + 2 * DIGEST_LEN;
/// Where `rcpt_digest` sits in the MULTI AAD.
pub(crate) const MULTI_AAD_RCPT_AT: usize = MULTI_PREFIX_LEN;
/// Where the last digest sits in the MULTI AAD.
pub(crate) const MULTI_AAD_LAST_AT: usize = MULTI_AAD_RCPT_AT + DIGEST_LEN;

pub(crate) const CTX_LABEL: &[u8] = b"sealed-record/v1";
pub(crate) const WRAP_LABEL: &[u8] = b"sealed-record/v1 wrap";
pub(crate) const COMMIT_LABEL: &[u8] = b"sealed-record/v1 ck-commit";
pub(crate) const SIG_LABEL: &[u8] = b"sealed-record/v1 sig";

/// Why bytes are not a sealed record: the structure checks of
/// [`Header::parse`] and [`RecordView::parse`]. The opener reports each as
/// the [`OpenError`](super::OpenError) variant of the same name.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FormatError {
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
}

/// How a record is keyed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    /// 0x01: one recipient, encrypted directly under `K_pair`.
    Direct,
    /// 0x02: a fresh content key wrapped for each of 1..=4096 recipients.
    Multi,
}

impl Mode {
    /// The mode byte.
    #[inline]
    pub const fn byte(self) -> u8 {
        match self {
            Self::Direct => 0x01,
            Self::Multi => 0x02,
        }
    }

    #[inline]
    fn from_byte(b: u8) -> Option<Self> {
        match b {
            0x01 => Some(Self::Direct),
            0x02 => Some(Self::Multi),
            _ => None,
        }
    }
}

/// The flags byte: bit 0 SIGNED, bit 1 PADDED, every other bit zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Flags(u8);

impl Flags {
    /// Bit 0: a 64-byte ECDSA signature trails the record.
    pub const SIGNED: u8 = 0x01;
    /// Bit 1: the plaintext ends with `0x80 0x00*` padding to a Padmé bucket.
    pub const PADDED: u8 = 0x02;
    const KNOWN: u8 = Self::SIGNED | Self::PADDED;

    /// Flags with the given bits.
    #[inline]
    pub const fn new(signed: bool, padded: bool) -> Self {
        let mut b = 0;
        if signed {
            b |= Self::SIGNED;
        }
        if padded {
            b |= Self::PADDED;
        }
        Self(b)
    }

    /// Whether the record carries a signature trailer.
    pub const fn signed(self) -> bool {
        self.0 & Self::SIGNED != 0
    }

    /// Whether the plaintext is padded.
    pub const fn padded(self) -> bool {
        self.0 & Self::PADDED != 0
    }

    /// The flags byte.
    pub const fn bits(self) -> u8 {
        self.0
    }
}

/// The 20-byte common header of every sealed record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Header {
    /// DIRECT or MULTI.
    pub mode: Mode,
    /// SIGNED / PADDED.
    pub flags: Flags,
    /// Key id of the sender's identity.
    pub sender: Kid,
    /// Strictly increasing per (sender key, topic).
    pub seq: u64,
}

/// The `N` bytes of `record` at offset `at`, or how many the field needed
/// and how many were left. Every field of a record sits at an offset known
/// from the fields before it, so parsing is a handful of bounds checks (no
/// cursor, nothing out of line).
#[inline]
fn field<const N: usize>(record: &[u8], at: usize) -> Result<&[u8; N], FormatError> {
    record
        .get(at..)
        .and_then(<[u8]>::first_chunk::<N>)
        .ok_or(FormatError::Truncated {
            need: N,
            have: record.len().saturating_sub(at),
        })
}

impl Header {
    /// Parses and checks the common header at the start of `record`.
    ///
    /// # Errors
    /// [`FormatError::Truncated`], [`FormatError::UnsupportedVersion`],
    /// [`FormatError::UnknownMode`], [`FormatError::ReservedFlags`] or
    /// [`FormatError::ReservedByte`].
    #[inline]
    pub fn parse(record: &[u8]) -> Result<Self, FormatError> {
        let [version] = *field(record, VERSION_AT)?;
        if version != VERSION {
            return Err(FormatError::UnsupportedVersion { found: version });
        }
        let [mode] = *field(record, MODE_AT)?;
        let mode = Mode::from_byte(mode).ok_or(FormatError::UnknownMode { found: mode })?;
        let [flags] = *field(record, FLAGS_AT)?;
        if flags & !Flags::KNOWN != 0 {
            return Err(FormatError::ReservedFlags { flags });
        }
        let [reserved] = *field(record, RESERVED_AT)?;
        if reserved != 0 {
            return Err(FormatError::ReservedByte { found: reserved });
        }
        let sender = Kid::from_bytes(*field(record, SENDER_AT)?);
        let seq = u64::from_be_bytes(*field(record, SEQ_AT)?);
        Ok(Self {
            mode,
            flags: Flags(flags),
            sender,
            seq,
        })
    }

    /// The 20 header bytes.
    #[inline]
    pub fn encode(&self) -> [u8; HEADER_LEN] {
        let mut out = [0u8; HEADER_LEN];
        out[VERSION_AT] = VERSION;
        out[MODE_AT] = self.mode.byte();
        out[FLAGS_AT] = self.flags.bits();
        out[RESERVED_AT] = 0;
        out[SENDER_AT..SEQ_AT].copy_from_slice(self.sender.as_bytes());
        out[SEQ_AT..HEADER_LEN].copy_from_slice(&self.seq.to_be_bytes());
        out
    }
}

/// A structurally valid record, as borrowed slices of its fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordView<'a> {
    /// The checked common header.
    pub header: Header,
    /// The mode-specific body.
    pub body: Body<'a>,
    /// Everything the signature covers (the record minus its trailer); for an
    /// unsigned record, the whole record.
    pub signed_part: &'a [u8],
    /// The 64-byte signature trailer, if the SIGNED flag is set.
    pub signature: Option<&'a [u8; SIGNATURE_LEN]>,
}

/// The mode-specific fields of a [`RecordView`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Body<'a> {
    /// A DIRECT record.
    Direct {
        /// Key id of the one recipient.
        recipient: Kid,
        /// `bytes[0..40)`: header, recipient kid and IV (the start of the AAD).
        prefix: &'a [u8; DIRECT_PREFIX_LEN],
        /// The 12-byte IV.
        iv: &'a [u8; IV_LEN],
        /// Ciphertext, without the tag.
        ciphertext: &'a [u8],
        /// The 16-byte tag.
        tag: &'a [u8; TAG_LEN],
    },
    /// A MULTI record.
    Multi {
        /// `bytes[0..70)`: header, msg_salt, ck_commit, n (the start of every AAD).
        prefix: &'a [u8; MULTI_PREFIX_LEN],
        /// Salt of every wrap key's HKDF.
        msg_salt: &'a [u8; MSG_SALT_LEN],
        /// `HMAC-SHA256(CK, "sealed-record/v1 ck-commit")`.
        ck_commit: &'a [u8; DIGEST_LEN],
        /// `n × 56` bytes of entries; see [`Body::entries`].
        entries: &'a [u8],
        /// Payload ciphertext and tag (what each wrap's AAD hashes).
        payload: &'a [u8],
    },
}

/// One MULTI entry: a recipient's kid and its wrapped content key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry<'a> {
    /// The recipient's key id.
    pub kid: Kid,
    /// `AES-GCM(KW_i, 0^12, CK)`: 32 bytes of ciphertext then the 16-byte tag.
    pub wrapped: &'a [u8; MULTI_ENTRY_LEN - KID_LEN],
}

impl<'a> Body<'a> {
    /// The entries of a MULTI body, in record order (empty for DIRECT).
    pub fn entries(&self) -> impl ExactSizeIterator<Item = Entry<'a>> + 'a {
        let entries: &'a [u8] = match self {
            Self::Direct { .. } => &[],
            Self::Multi { entries, .. } => entries,
        };
        entries.chunks_exact(MULTI_ENTRY_LEN).map(|e| {
            let (kid, wrapped) = e.split_at(KID_LEN);
            Entry {
                kid: Kid::from_bytes(kid.try_into().expect("an entry starts with an 8-byte kid")),
                wrapped: wrapped
                    .try_into()
                    .expect("an entry ends with 48 wrapped bytes"),
            }
        })
    }
}

impl<'a> RecordView<'a> {
    /// Checks a record's structure and splits it into fields.
    ///
    /// # Errors
    /// Any header error, [`FormatError::Truncated`], [`FormatError::NoRecipients`] or
    /// [`FormatError::TooManyRecipients`].
    #[inline]
    pub fn parse(record: &'a [u8]) -> Result<Self, FormatError> {
        let header = Header::parse(record)?;
        let (signed_part, signature) = if header.flags.signed() {
            let Some(body_len) = record.len().checked_sub(SIGNATURE_LEN) else {
                return Err(FormatError::Truncated {
                    need: SIGNATURE_LEN,
                    have: record.len(),
                });
            };
            let (signed, sig) = record.split_at(body_len);
            let sig: &[u8; SIGNATURE_LEN] = sig.try_into().expect("split at len - 64");
            (signed, Some(sig))
        } else {
            (record, None)
        };
        // Fields are read within the signed part only, so the trailer never
        // parses as body.
        let s = signed_part;
        field::<HEADER_LEN>(s, 0)?;
        let body = match header.mode {
            Mode::Direct => {
                let recipient = Kid::from_bytes(*field(s, DIRECT_RECIPIENT_AT)?);
                let iv = field::<IV_LEN>(s, DIRECT_IV_AT)?;
                let rest = &s[DIRECT_PREFIX_LEN..];
                let Some((ciphertext, tag)) = rest.split_last_chunk::<TAG_LEN>() else {
                    return Err(FormatError::Truncated {
                        need: TAG_LEN,
                        have: rest.len(),
                    });
                };
                Body::Direct {
                    recipient,
                    prefix: field(s, 0)?,
                    iv,
                    ciphertext,
                    tag,
                }
            }
            Mode::Multi => {
                let msg_salt = field::<MSG_SALT_LEN>(s, MULTI_SALT_AT)?;
                let ck_commit = field::<DIGEST_LEN>(s, MULTI_COMMIT_AT)?;
                let n = usize::from(u16::from_be_bytes(*field(s, MULTI_COUNT_AT)?));
                if n == 0 {
                    return Err(FormatError::NoRecipients);
                }
                if n > MAX_RECIPIENTS {
                    return Err(FormatError::TooManyRecipients { n });
                }
                let rest = &s[MULTI_PREFIX_LEN..];
                let entries_len = n * MULTI_ENTRY_LEN;
                let Some((entries, payload)) = rest.split_at_checked(entries_len) else {
                    return Err(FormatError::Truncated {
                        need: entries_len,
                        have: rest.len(),
                    });
                };
                if payload.len() < TAG_LEN {
                    return Err(FormatError::Truncated {
                        need: TAG_LEN,
                        have: payload.len(),
                    });
                }
                Body::Multi {
                    prefix: field(s, 0)?,
                    msg_salt,
                    ck_commit,
                    entries,
                    payload,
                }
            }
        };
        Ok(Self {
            header,
            body,
            signed_part,
            signature,
        })
    }
}

/// An output buffer records are appended to: `Vec<u8>` or `bytes::BytesMut`.
pub trait RecordBuf {
    /// Bytes currently in the buffer.
    fn len(&self) -> usize;
    /// Whether the buffer is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Reserves room for `additional` more bytes.
    fn reserve(&mut self, additional: usize);
    /// Appends bytes.
    fn extend_from_slice(&mut self, bytes: &[u8]);
    /// Grows the buffer to `new_len` with zero bytes (`new_len >= len()`).
    fn resize_zeroed(&mut self, new_len: usize);
    /// Shortens the buffer to `len` bytes.
    fn truncate(&mut self, len: usize);
    /// The buffer's bytes.
    fn as_bytes(&self) -> &[u8];
    /// The buffer's bytes, mutably.
    fn as_bytes_mut(&mut self) -> &mut [u8];
}

impl RecordBuf for Vec<u8> {
    #[inline]
    fn len(&self) -> usize {
        Vec::len(self)
    }
    #[inline]
    fn reserve(&mut self, additional: usize) {
        Vec::reserve(self, additional);
    }
    #[inline]
    fn extend_from_slice(&mut self, bytes: &[u8]) {
        Vec::extend_from_slice(self, bytes);
    }
    #[inline]
    fn resize_zeroed(&mut self, new_len: usize) {
        self.resize(new_len, 0);
    }
    #[inline]
    fn truncate(&mut self, len: usize) {
        Vec::truncate(self, len);
    }
    #[inline]
    fn as_bytes(&self) -> &[u8] {
        self
    }
    #[inline]
    fn as_bytes_mut(&mut self) -> &mut [u8] {
        self
    }
}

impl RecordBuf for bytes::BytesMut {
    #[inline]
    fn len(&self) -> usize {
        bytes::BytesMut::len(self)
    }
    #[inline]
    fn reserve(&mut self, additional: usize) {
        bytes::BytesMut::reserve(self, additional);
    }
    #[inline]
    fn extend_from_slice(&mut self, bytes: &[u8]) {
        bytes::BytesMut::extend_from_slice(self, bytes);
    }
    #[inline]
    fn resize_zeroed(&mut self, new_len: usize) {
        self.resize(new_len, 0);
    }
    #[inline]
    fn truncate(&mut self, len: usize) {
        bytes::BytesMut::truncate(self, len);
    }
    #[inline]
    fn as_bytes(&self) -> &[u8] {
        self
    }
    #[inline]
    fn as_bytes_mut(&mut self) -> &mut [u8] {
        self
    }
}

/// `ctx_digest = SHA-256("sealed-record/v1" || mode || u16(len topic) || topic ||
/// fp(sender) [|| fp(recipient) in DIRECT])`; never sent, computed by both ends.
///
/// Returns `None` if the topic is longer than 65535 bytes.
pub(crate) fn ctx_digest(
    mode: Mode,
    topic: &str,
    sender: &Fingerprint,
    recipient: Option<&Fingerprint>,
) -> Option<[u8; DIGEST_LEN]> {
    let len = u16::try_from(topic.len()).ok()?;
    let mut h = Sha256::new();
    h.update(CTX_LABEL);
    h.update([mode.byte()]);
    h.update(len.to_be_bytes());
    h.update(topic.as_bytes());
    h.update(sender.as_bytes());
    if let Some(r) = recipient {
        h.update(r.as_bytes());
    }
    Some(h.finalize().into())
}

/// Padmé: the bucket a length `len` is rounded up to. At most ~12 % overhead,
/// and only `O(log log len)` bits of the length remain visible.
///
/// Returns `None` on overflow (lengths near `usize::MAX`).
#[inline]
pub fn padme(len: usize) -> Option<usize> {
    if len < 2 {
        return Some(len);
    }
    let e = usize::BITS - 1 - len.leading_zeros(); // floor(log2 len) >= 1
    let s = u32::BITS - e.leading_zeros(); // floor(log2 e) + 1
    let mask = (1usize << (e - s)) - 1;
    Some(len.checked_add(mask)? & !mask)
}

/// Length of a padded plaintext: `len + 1` (the `0x80` marker) rounded to Padmé.
#[inline]
pub fn padded_len(len: usize) -> Option<usize> {
    padme(len.checked_add(1)?)
}

/// Length of the content before `0x80 0x00*`, or `None` if the padding is malformed.
#[inline]
pub(crate) fn unpadded_len(padded: &[u8]) -> Option<usize> {
    let last = padded.iter().rposition(|&b| b != 0)?;
    (padded[last] == 0x80).then_some(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padme_matches_the_paper() {
        // Values from the Padmé definition: E = floor(log2 L), S = floor(log2 E) + 1,
        // the low E - S bits are rounded up.
        let cases = [
            (0, 0),
            (1, 1),
            (2, 2),
            (3, 3),
            (9, 10),
            (28, 28),
            (29, 30),
            (100, 104),
            (1000, 1024),
            (1025, 1088),
            (65_537, 67_584),
        ];
        for (len, want) in cases {
            assert_eq!(padme(len), Some(want), "padme({len})");
        }
        assert_eq!(padme(usize::MAX), None);
        for len in 0..5000 {
            let p = padme(len).expect("small");
            assert!(p >= len && p - len <= len / 8 + 1, "{len} -> {p}");
        }
    }

    #[test]
    fn unpad_finds_the_marker() {
        assert_eq!(unpadded_len(&[1, 2, 0x80, 0, 0]), Some(2));
        assert_eq!(unpadded_len(&[0x80]), Some(0));
        assert_eq!(unpadded_len(&[1, 2, 0x81, 0]), None);
        assert_eq!(unpadded_len(&[0, 0]), None);
        assert_eq!(unpadded_len(&[]), None);
    }
}
