//! Who a connection is, and what it may do (protocol version 3).
//!
//! Pure logic, no I/O except the broker id file: the connection state machine
//! calls it. Nothing here touches a record's bytes; it verifies one ECDSA
//! signature per connection and compares names.
//!
//! # Layout
//! - [`Principal`]: a client's identity, the SHA-256 fingerprint of its
//!   canonical P-256 SPKI — the same value the client SDK shows.
//! - [`verify`]: [`verify_authenticate`] checks an `Authenticate` request
//!   against this connection's nonce and the broker id.
//! - [`acl`]: [`Acl`], compiled once from the configuration; [`Acl::check`]
//!   answers "may this caller do this action on this topic", allocation-free.
//! - [`broker_id`]: [`BrokerId`] (made once per data directory) and
//!   [`fresh_nonce`] (once per connection).
//!
//! # Using it from a connection
//! 1. On accept: `let nonce = fresh_nonce();` and send it with
//!    [`BrokerId::as_bytes`] in the `BrokerHello`. Start with
//!    `acl.who(None)` (anonymous), or `acl.who(Some(p))` when a TLS client
//!    certificate named `p` ([`Principal::from_certificate_der`]).
//! 2. On `Authenticate`: `verify_authenticate(..)` → `Principal`, then
//!    `who = acl.who(Some(principal))`. An error is sent back as is (its
//!    `Display` is safe for the client and for logs).
//! 3. Before an operation: [`AuthMode::requires_principal`] says whether an
//!    anonymous caller is refused outright (only `Ping`/`Authenticate` before
//!    authenticating); then [`Acl::check`] / [`Acl::check_group`] per request.

pub mod acl;
pub mod broker_id;
pub mod verify;

use std::fmt;

use sha2::{Digest as _, Sha256};

pub use crate::config::AuthMode;
pub use acl::{Acl, AclError, Action, Denied, Who};
pub use broker_id::{BrokerId, BrokerIdError, fresh_nonce};
pub use verify::{AuthError, verify_authenticate};

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
    fn of_canonical_spki(spki: &[u8]) -> Self {
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
