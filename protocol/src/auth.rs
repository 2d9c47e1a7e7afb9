//! Authentication (protocol version 3): what an `Authenticate` request
//! proves and the exact bytes it signs.
//!
//! A principal is a P-256 key — the same identity key the client's sealed
//! records are addressed with. The client proves it holds the private key
//! by signing, with ECDSA-P256-SHA256 (raw `r‖s`, what Web Crypto's `sign`
//! returns), the [`transcript`]:
//!
//! ```text
//! "hermit-auth/v1" ‖ nonce (32, from this connection's broker hello)
//!                  ‖ u8 len ‖ broker_id (len bytes) ‖ SPKI (DER)
//! ```
//!
//! The nonce makes a signature good for one connection only; the broker id
//! for one broker only; the label keeps this use of the key apart from
//! every other (the same key does ECDH for sealing). This crate only builds
//! the bytes: verification lives in the broker, signing in the SDKs.

use crate::hello::NONCE_LEN;

/// Domain-separation label at the start of every transcript.
pub const AUTH_LABEL: &[u8] = b"hermit-auth/v1";
/// Mechanism: ECDSA over P-256 with SHA-256, raw `r‖s` signature, DER SPKI.
pub const MECHANISM_P256_ECDSA: u8 = 1;
/// Length of a P-256 SubjectPublicKeyInfo in DER (uncompressed point), as
/// Web Crypto's `exportKey('spki')` returns it.
pub const P256_SPKI_LEN: usize = 91;
/// Length of a raw `r‖s` P-256 signature.
pub const P256_SIGNATURE_LEN: usize = 64;

/// The bytes an `Authenticate` signs for `nonce`, `broker_id` and `spki`.
///
/// `broker_id` is at most 255 bytes (it is 16 in version 3); longer ids are
/// cut to 255 so the length byte stays truthful.
pub fn transcript(nonce: &[u8; NONCE_LEN], broker_id: &[u8], spki: &[u8]) -> Vec<u8> {
    let id = &broker_id[..broker_id.len().min(255)];
    let mut out = Vec::with_capacity(AUTH_LABEL.len() + NONCE_LEN + 1 + id.len() + spki.len());
    out.extend_from_slice(AUTH_LABEL);
    out.extend_from_slice(nonce);
    out.push(id.len() as u8);
    out.extend_from_slice(id);
    out.extend_from_slice(spki);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transcript_is_label_nonce_len_id_spki() {
        let t = transcript(&[1; 32], &[2; 16], &[3, 4, 5]);
        assert_eq!(&t[..14], b"hermit-auth/v1");
        assert_eq!(&t[14..46], &[1; 32]);
        assert_eq!(t[46], 16);
        assert_eq!(&t[47..63], &[2; 16]);
        assert_eq!(&t[63..], &[3, 4, 5]);
    }

    #[test]
    fn different_brokers_and_nonces_sign_different_bytes() {
        let a = transcript(&[1; 32], &[2; 16], b"k");
        assert_ne!(a, transcript(&[0; 32], &[2; 16], b"k"));
        assert_ne!(a, transcript(&[1; 32], &[0; 16], b"k"));
        // The length byte keeps id and SPKI apart.
        assert_ne!(
            transcript(&[1; 32], &[2; 15], &[2, b'k']),
            transcript(&[1; 32], &[2; 16], b"k")
        );
    }
}
