//! [`Principal`]: who a connection acts as once it proved a key.

use std::fmt;

use sha2::{Digest as _, Sha256};

/// Length of a [`Principal`] in bytes.
pub const PRINCIPAL_LEN: usize = 32;
/// Length of a [`Principal`] in hex digits.
pub const PRINCIPAL_HEX_LEN: usize = 2 * PRINCIPAL_LEN;

/// An authenticated client: `SHA-256(canonical SPKI)` of its P-256 key.
///
/// The canonical SPKI is the 91-byte DER with an uncompressed point, re-encoded
/// from whatever the client sent, so one key has one principal however it was
/// presented. This is exactly the client SDK's `Fingerprint` (ENVELOPE.md §1),
/// computed without depending on the client crate. `Display` is lowercase hex,
/// 64 digits, the form used in ACLs and in `{principal}` expansions.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Principal([u8; PRINCIPAL_LEN]);

impl Principal {
    /// Wraps raw fingerprint bytes.
    pub const fn from_bytes(bytes: [u8; PRINCIPAL_LEN]) -> Self {
        Principal(bytes)
    }

    /// The 32 fingerprint bytes.
    pub const fn as_bytes(&self) -> &[u8; PRINCIPAL_LEN] {
        &self.0
    }

    /// The fingerprint of an SPKI that is already canonical.
    pub(super) fn of_canonical_spki(spki: &[u8]) -> Self {
        Principal(Sha256::digest(spki).into())
    }

    /// Parses 64 hex digits (either case), as written in `admins` and `acl`.
    pub fn from_hex(hex: &str) -> Option<Self> {
        let hex = hex.as_bytes();
        if hex.len() != PRINCIPAL_HEX_LEN {
            return None;
        }
        let mut out = [0u8; PRINCIPAL_LEN];
        for (byte, pair) in out.iter_mut().zip(hex.chunks_exact(2)) {
            *byte = (hex_digit(pair[0])? << 4) | hex_digit(pair[1])?;
        }
        Some(Principal(out))
    }

    /// Lowercase hex, without allocating (what `{principal}` expands to).
    pub fn to_hex_bytes(&self) -> [u8; PRINCIPAL_HEX_LEN] {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut out = [0u8; PRINCIPAL_HEX_LEN];
        for (i, b) in self.0.iter().enumerate() {
            out[2 * i] = DIGITS[usize::from(b >> 4)];
            out[2 * i + 1] = DIGITS[usize::from(b & 0x0f)];
        }
        out
    }
}

fn hex_digit(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

impl fmt::Display for Principal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hex = self.to_hex_bytes();
        // Hex digits are ASCII, so this never fails.
        f.write_str(std::str::from_utf8(&hex).map_err(|_| fmt::Error)?)
    }
}

impl fmt::Debug for Principal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Principal({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips_and_is_strict() {
        let p = Principal::from_bytes(*b"\x00\x01\xab\xcd\xef0123456789abcdef0123456789a");
        let hex = p.to_string();
        assert_eq!(hex.len(), 64);
        assert!(hex.starts_with("0001abcdef"));
        assert_eq!(Principal::from_hex(&hex), Some(p));
        assert_eq!(Principal::from_hex(&hex.to_uppercase()), Some(p));
        assert_eq!(Principal::from_hex(&hex[..63]), None);
        assert_eq!(Principal::from_hex(&format!("{hex}0")), None);
        assert_eq!(Principal::from_hex(&hex.replace('a', "g")), None);
        assert_eq!(Principal::from_hex(&format!("+{}", &hex[1..])), None);
    }
}
