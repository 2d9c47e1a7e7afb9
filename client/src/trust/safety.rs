//! Safety numbers: Signal's numeric fingerprint, adapted to HermitMQ accounts
//! (docs/SECURITY.md §6).
//!
//! Each account gets 30 digits (its *half*) from its key alone; the safety
//! number of two accounts is their two halves in ascending order, so both
//! people see the same 60 digits. The JavaScript SDK
//! (`js/src/trust/safety.js`) computes the same bytes; the shared vectors are
//! `client/tests/vectors/safety_numbers.json`.

use std::fmt;

use sha2::{Digest as _, Sha512};

use crate::crypto::identity::PublicKey;

/// The format version, hashed first as a big-endian `u16`.
const VERSION: u16 = 0;
/// SHA-512 iterations after the first hash: Signal's count, a work factor
/// for anyone searching for a key whose half matches someone else's.
const ITERATIONS: usize = 5200;
/// Each half is read from this many 5-byte chunks of the final hash.
const CHUNKS: usize = 6;
/// Bytes per chunk: 40 bits, reduced to 5 digits.
const CHUNK_LEN: usize = 5;
/// Digits per chunk.
const CHUNK_DIGITS: usize = 5;
/// `10^CHUNK_DIGITS`.
const CHUNK_MODULUS: u64 = 100_000;

/// Digits of one account's half.
pub const HALF_DIGITS: usize = CHUNKS * CHUNK_DIGITS;
/// Digits of a safety number.
pub const SAFETY_NUMBER_DIGITS: usize = 2 * HALF_DIGITS;

/// The 30 digits of one account, from its key alone: what the account's
/// owner and everyone who holds the same key compute for it.
///
/// `h = SHA-512(u16 0 ‖ SPKI ‖ fingerprint)`, then 5,200 times
/// `h = SHA-512(h ‖ SPKI)`; the first 30 bytes of `h` as six big-endian
/// 5-byte integers, each mod 100,000 and written as 5 digits.
pub fn account_half(key: &PublicKey) -> String {
    half(key.spki_der(), key.fingerprint().as_bytes())
}

/// The safety number of two accounts: the same whichever is `a`.
pub fn safety_number(a: &PublicKey, b: &PublicKey) -> SafetyNumber {
    let (a, b) = (account_half(a), account_half(b));
    let (low, high) = if a <= b { (a, b) } else { (b, a) };
    SafetyNumber {
        digits: low + &high,
    }
}

/// The 60 digits two people compare to check each other's account key.
///
/// `Display` shows 12 groups of 5 digits separated by spaces
/// (`12345 67890 …`), for reading aloud; [`SafetyNumber::digits`] gives
/// them without separators.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct SafetyNumber {
    /// `SAFETY_NUMBER_DIGITS` ASCII digits: the lower half, then the higher.
    digits: String,
}

impl SafetyNumber {
    /// The 60 digits, no separators.
    pub fn digits(&self) -> &str {
        &self.digits
    }
}

impl fmt::Display for SafetyNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use fmt::Write as _;
        for (i, digit) in self.digits.chars().enumerate() {
            if i > 0 && i % CHUNK_DIGITS == 0 {
                f.write_char(' ')?;
            }
            f.write_char(digit)?;
        }
        Ok(())
    }
}

impl fmt::Debug for SafetyNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SafetyNumber({self})")
    }
}

/// One half from the key's bytes (`spki`) and its stable identifier (`id`,
/// the fingerprint). Apart from [`account_half`] so that the unit tests can
/// change either input on its own.
fn half(spki: &[u8], id: &[u8]) -> String {
    let mut h: [u8; 64] = Sha512::new()
        .chain_update(VERSION.to_be_bytes())
        .chain_update(spki)
        .chain_update(id)
        .finalize()
        .into();
    for _ in 0..ITERATIONS {
        h = Sha512::new()
            .chain_update(h)
            .chain_update(spki)
            .finalize()
            .into();
    }
    let mut out = String::with_capacity(HALF_DIGITS);
    for chunk in h[..CHUNKS * CHUNK_LEN].chunks_exact(CHUNK_LEN) {
        let n = chunk.iter().fold(0u64, |n, &b| (n << 8) | u64::from(b));
        use fmt::Write as _;
        // Writing to a String cannot fail.
        let _ = write!(out, "{:0width$}", n % CHUNK_MODULUS, width = CHUNK_DIGITS);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crypto::Identity;

    #[test]
    fn every_byte_of_the_key_and_of_the_fingerprint_counts() {
        let key = Identity::generate().expect("os rng");
        let key = key.public_key();
        let (spki, fp) = (key.spki_der(), key.fingerprint().as_bytes());
        let base = half(spki, fp);
        assert_eq!(base, account_half(key));
        let mut seen = std::collections::HashSet::from([base.clone()]);
        for i in 0..spki.len() {
            let mut flipped = *spki;
            flipped[i] ^= 0x01;
            assert!(seen.insert(half(&flipped, fp)), "SPKI byte {i}");
        }
        for i in 0..fp.len() {
            let mut flipped = *fp;
            flipped[i] ^= 0x80;
            assert!(seen.insert(half(spki, &flipped)), "fingerprint byte {i}");
        }
    }

    #[test]
    fn halves_are_thirty_digits_and_display_is_twelve_groups() {
        let (a, b) = (
            Identity::generate().expect("os rng"),
            Identity::generate().expect("os rng"),
        );
        let h = account_half(a.public_key());
        assert_eq!(h.len(), HALF_DIGITS);
        assert!(h.bytes().all(|c| c.is_ascii_digit()));
        let n = safety_number(a.public_key(), b.public_key());
        assert_eq!(n.digits().len(), SAFETY_NUMBER_DIGITS);
        let shown = n.to_string();
        let groups: Vec<&str> = shown.split(' ').collect();
        assert_eq!(groups.len(), 12);
        assert!(groups.iter().all(|g| g.len() == 5));
        assert_eq!(shown.replace(' ', ""), n.digits());
        assert_eq!(format!("{n:?}"), format!("SafetyNumber({shown})"));
    }
}
