//! Account-key rotation statements (docs/MLS.md §4.6): an account moving to
//! a new key says so under its old fingerprint, in `dir.<old fp>` under the
//! record key [`ROTATION_KEY`], signed by both keys. Byte-identical in the
//! Rust and JavaScript SDKs (shared vectors in
//! `client/tests/vectors/account_rotation.json`).
//!
//! ```text
//! 4 bytes  "HMQR"
//! u8       format = 1
//! 65 bytes old account public key (uncompressed SEC1)
//! 65 bytes new account public key (uncompressed SEC1)
//! u64      issued_at (ms since the Unix epoch, big-endian)
//! 64 bytes signature by the OLD account key, raw r‖s
//! 64 bytes signature by the NEW account key, raw r‖s
//! ```
//!
//! Both signatures are ECDSA P-256 / SHA-256 over `"HermitMQ account
//! rotation v1\0" ‖ old key ‖ new key ‖ issued_at`.
//!
//! What a statement proves is only that whoever wrote it held both keys: a
//! thief of the old account key can rotate it too. Comparing the new safety
//! number is the defence (docs/SECURITY.md).

use crate::crypto::identity::SEC1_UNCOMPRESSED_LEN;
use crate::crypto::{Fingerprint, Identity, PublicKey};

/// The first bytes of an encoded statement.
pub const ROTATION_MAGIC: [u8; 4] = *b"HMQR";

/// The version of the format this code writes and reads.
pub const ROTATION_FORMAT: u8 = 1;

/// The record key of a statement in the old account's `dir.` topic.
pub const ROTATION_KEY: &[u8] = b"rotation";

/// What both keys sign before the keys and the time: a label of its own.
pub const ROTATION_LABEL: &[u8] = b"HermitMQ account rotation v1\0";

const SIGNATURE_LEN: usize = 64;
const OLD_AT: usize = 5;
const NEW_AT: usize = OLD_AT + SEC1_UNCOMPRESSED_LEN;
const ISSUED_AT: usize = NEW_AT + SEC1_UNCOMPRESSED_LEN;
const OLD_SIG_AT: usize = ISSUED_AT + 8;
const NEW_SIG_AT: usize = OLD_SIG_AT + SIGNATURE_LEN;

/// The length of an encoded statement: 271 bytes.
pub const ROTATION_LEN: usize = NEW_SIG_AT + SIGNATURE_LEN;

/// Why bytes are not a valid rotation statement (for the account asked
/// about). Every one of them is a refusal, never a warning.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RotationError {
    /// Not a statement of a format we read.
    #[error("not a HermitMQ rotation statement ({0})")]
    Malformed(&'static str),
    /// The old key is not the account whose topic holds the statement (or
    /// whose key this device pinned).
    #[error(
        "the rotation statement is about {found}, not the account {expected} it is filed under"
    )]
    WrongAccount {
        /// The account asked about.
        expected: Fingerprint,
        /// The old key the statement names.
        found: Fingerprint,
    },
    /// The old and new keys are one key.
    #[error("the rotation statement of {account} rotates the key to itself")]
    SameKey {
        /// The account.
        account: Fingerprint,
    },
    /// The old account key's signature does not verify: not written by the
    /// account (e.g. forged by a broker admin).
    #[error("the rotation statement of {account} has a bad signature by the old (pinned) key")]
    BadOldSignature {
        /// The account.
        account: Fingerprint,
    },
    /// The new key's signature does not verify: the new key's holder did
    /// not agree.
    #[error("the rotation statement of {account} has a bad signature by the new key")]
    BadNewSignature {
        /// The account.
        account: Fingerprint,
    },
    /// Dated too far after the reader's clock (checked when a device reads
    /// a statement, not by [`RotationStatement::verify`]): a statement dated
    /// in the future would make a later, honest one look older.
    #[error(
        "the rotation statement of {account} is dated {ahead_ms} ms after this device's clock: refused"
    )]
    FromTheFuture {
        /// The account.
        account: Fingerprint,
        /// How far ahead of the reader's clock.
        ahead_ms: u64,
    },
}

/// A verified (or freshly signed) rotation statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RotationStatement {
    old: PublicKey,
    new: PublicKey,
    issued_at: u64,
    signatures: [[u8; SIGNATURE_LEN]; 2],
}

fn signed_message(old: &PublicKey, new: &PublicKey, issued_at: u64) -> Vec<u8> {
    let mut m = Vec::with_capacity(ROTATION_LABEL.len() + 2 * SEC1_UNCOMPRESSED_LEN + 8);
    m.extend_from_slice(ROTATION_LABEL);
    m.extend_from_slice(&old.to_sec1_uncompressed());
    m.extend_from_slice(&new.to_sec1_uncompressed());
    m.extend_from_slice(&issued_at.to_be_bytes());
    m
}

/// The low-S form of a raw `r‖s` signature (s replaced by n − s when
/// above n/2), as the JavaScript SDK signs: one statement, one encoding,
/// whichever SDK signs it. Verifiers accept both forms.
fn low_s(raw: [u8; SIGNATURE_LEN]) -> [u8; SIGNATURE_LEN] {
    p256::ecdsa::Signature::from_slice(&raw)
        .expect("sign_labelled makes a valid r‖s")
        .normalize_s()
        .to_bytes()
        .into()
}

impl RotationStatement {
    /// The statement that the account `old` moves to the key `new`, at
    /// `issued_at` (ms since the Unix epoch), signed by both.
    ///
    /// # Errors
    /// [`RotationError::SameKey`] when `old` and `new` are one key.
    pub fn sign(
        old: &Identity,
        new: &Identity,
        issued_at: u64,
    ) -> Result<RotationStatement, RotationError> {
        if old.public_key() == new.public_key() {
            return Err(RotationError::SameKey {
                account: *old.fingerprint(),
            });
        }
        let m = signed_message(old.public_key(), new.public_key(), issued_at);
        Ok(RotationStatement {
            old: old.public_key().clone(),
            new: new.public_key().clone(),
            issued_at,
            signatures: [low_s(old.sign_labelled(&m)), low_s(new.sign_labelled(&m))],
        })
    }

    /// The old account key (the one pinned by contacts).
    pub const fn old(&self) -> &PublicKey {
        &self.old
    }

    /// The new account key.
    pub const fn new_key(&self) -> &PublicKey {
        &self.new
    }

    /// When the statement was signed (ms since the Unix epoch).
    pub const fn issued_at(&self) -> u64 {
        self.issued_at
    }

    /// The 271 encoded bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(ROTATION_LEN);
        out.extend_from_slice(&ROTATION_MAGIC);
        out.push(ROTATION_FORMAT);
        out.extend_from_slice(&self.old.to_sec1_uncompressed());
        out.extend_from_slice(&self.new.to_sec1_uncompressed());
        out.extend_from_slice(&self.issued_at.to_be_bytes());
        out.extend_from_slice(&self.signatures[0]);
        out.extend_from_slice(&self.signatures[1]);
        out
    }

    /// Parses `bytes` without checking the signatures (see
    /// [`RotationStatement::verify`], which does).
    ///
    /// # Errors
    /// [`RotationError::Malformed`].
    pub fn decode(bytes: &[u8]) -> Result<RotationStatement, RotationError> {
        if bytes.len() != ROTATION_LEN {
            return Err(RotationError::Malformed("not 271 bytes"));
        }
        if bytes[..4] != ROTATION_MAGIC {
            return Err(RotationError::Malformed("wrong magic"));
        }
        if bytes[4] != ROTATION_FORMAT {
            return Err(RotationError::Malformed("unknown format"));
        }
        let key = |at: usize| {
            let sec1 = &bytes[at..at + SEC1_UNCOMPRESSED_LEN];
            // Only the uncompressed form: one key, one encoding.
            if sec1[0] != 0x04 {
                return Err(RotationError::Malformed("a key is not uncompressed SEC1"));
            }
            PublicKey::from_sec1_bytes(sec1)
                .map_err(|_| RotationError::Malformed("a key is not a P-256 point"))
        };
        let sig = |at: usize| -> [u8; SIGNATURE_LEN] {
            bytes[at..at + SIGNATURE_LEN]
                .try_into()
                .expect("the length was checked")
        };
        Ok(RotationStatement {
            old: key(OLD_AT)?,
            new: key(NEW_AT)?,
            issued_at: u64::from_be_bytes(
                bytes[ISSUED_AT..OLD_SIG_AT]
                    .try_into()
                    .expect("the length was checked"),
            ),
            signatures: [sig(OLD_SIG_AT), sig(NEW_SIG_AT)],
        })
    }

    /// Parses and checks a statement about `account` (the fingerprint of
    /// the `dir.` topic it came from, i.e. the pinned key's): the old key
    /// is that account's, the new key another, both signatures verify.
    ///
    /// # Errors
    /// Every [`RotationError`].
    pub fn verify(bytes: &[u8], account: &Fingerprint) -> Result<RotationStatement, RotationError> {
        let s = RotationStatement::decode(bytes)?;
        if s.old.fingerprint() != account {
            return Err(RotationError::WrongAccount {
                expected: *account,
                found: *s.old.fingerprint(),
            });
        }
        if s.old == s.new {
            return Err(RotationError::SameKey { account: *account });
        }
        let m = signed_message(&s.old, &s.new, s.issued_at);
        if !s.old.verify_labelled(&m, &s.signatures[0]) {
            return Err(RotationError::BadOldSignature { account: *account });
        }
        if !s.new.verify_labelled(&m, &s.signatures[1]) {
            return Err(RotationError::BadNewSignature { account: *account });
        }
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_statement_round_trips_and_every_byte_counts() {
        let old = Identity::generate().unwrap();
        let new = Identity::generate().unwrap();
        let s = RotationStatement::sign(&old, &new, 1_700_000_000_000).unwrap();
        let bytes = s.encode();
        assert_eq!(bytes.len(), ROTATION_LEN);
        assert_eq!(ROTATION_LEN, 271);
        assert_eq!(
            RotationStatement::verify(&bytes, old.fingerprint()).unwrap(),
            s
        );
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x01;
            assert!(
                RotationStatement::verify(&b, old.fingerprint()).is_err(),
                "byte {i} is not covered"
            );
        }
        assert!(matches!(
            RotationStatement::verify(&bytes, new.fingerprint()),
            Err(RotationError::WrongAccount { .. })
        ));
        assert!(matches!(
            RotationStatement::sign(&old, &old, 1),
            Err(RotationError::SameKey { .. })
        ));
    }

    #[test]
    fn statements_are_signed_low_s() {
        let half_n: [u8; 32] = [
            0x7f, 0xff, 0xff, 0xff, 0x80, 0x00, 0x00, 0x00, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff,
            0xff, 0xff, 0xde, 0x73, 0x7d, 0x56, 0xd3, 0x8b, 0xcf, 0x42, 0x79, 0xdc, 0xe5, 0x61,
            0x7e, 0x31, 0x92, 0xa8,
        ];
        let old = Identity::generate().unwrap();
        let new = Identity::generate().unwrap();
        // Half of all ECDSA signatures are high-S before normalising: 16
        // statements (32 signatures) would all be low-S by chance once in
        // 2^32.
        for at in 0..16 {
            let s = RotationStatement::sign(&old, &new, at).unwrap();
            for sig in &s.signatures {
                assert!(sig[32..] <= half_n[..], "a high-S signature at {at}");
            }
            RotationStatement::verify(&s.encode(), old.fingerprint()).unwrap();
        }
    }
}
