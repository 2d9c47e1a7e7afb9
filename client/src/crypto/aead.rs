//! AES-256-GCM, the one AEAD of the client: sealed records (DIRECT under
//! `K_pair`, MULTI under the content and wrap keys), SEALKEY key files, the
//! state topic and legacy `ChatCrypto` records.
//!
//! Backed by aws-lc-rs: AWS-LC's assembly (AES-NI, CLMUL, VAES/AVX-512 where
//! the CPU has them) chosen **at run time**, so one portable binary runs at
//! full speed on any x86-64 or AArch64 machine; a 27-byte record with the
//! envelope's 72 bytes of associated data takes about 110 ns either way on
//! the benchmark machine, where RustCrypto's `aes-gcm` took 270 ns in a
//! portable build and 130 ns only when built for the host CPU
//! (docs/BENCHMARKS.md). The expanded key lives in AWS-LC's heap, which
//! wipes it when the key is dropped (`OPENSSL_free` cleanses every
//! allocation).
//!
//! Tags are detached: records are sealed in place in the producer's batch
//! buffer and opened straight from the fetch buffer into the caller's.

use std::fmt;

use aws_lc_rs::aead::{AES_256_GCM, Aad, LessSafeKey, Nonce, UnboundKey};

/// IV length (96 bits).
pub(crate) const IV_LEN: usize = 12;
/// Tag length (128 bits).
pub(crate) const TAG_LEN: usize = 16;
/// Key length (256 bits).
pub(crate) const KEY_LEN: usize = 32;

/// The tag did not verify: wrong key, IV, associated data, ciphertext or tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AuthFailed;

/// An expanded AES-256-GCM key (key schedule and GHASH tables computed once).
pub(crate) struct Aes256Gcm(LessSafeKey);

impl fmt::Debug for Aes256Gcm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Aes256Gcm(<redacted>)")
    }
}

impl Aes256Gcm {
    /// Expands `key`.
    pub(crate) fn new(key: &[u8; KEY_LEN]) -> Self {
        let key = UnboundKey::new(&AES_256_GCM, key).expect("a 32-byte key is a valid AES-256 key");
        Self(LessSafeKey::new(key))
    }

    /// Encrypts `in_out` in place and returns the tag.
    ///
    /// # Panics
    /// If `in_out` exceeds AES-GCM's 64 GiB limit (callers bound plaintexts
    /// far below it).
    #[inline]
    pub(crate) fn seal_in_place(
        &self,
        iv: &[u8; IV_LEN],
        aad: &[u8],
        in_out: &mut [u8],
    ) -> [u8; TAG_LEN] {
        let tag = self
            .0
            .seal_in_place_separate_tag(Nonce::assume_unique_for_key(*iv), Aad::from(aad), in_out)
            .expect("AES-GCM seals any plaintext below 64 GiB");
        tag.as_ref()
            .try_into()
            .expect("AES-256-GCM tags are 16 bytes")
    }

    /// Checks `tag` and decrypts `ciphertext` into `out` (of the same
    /// length). On failure `out` holds unspecified bytes: the caller wipes
    /// or discards it.
    ///
    /// # Errors
    /// [`AuthFailed`].
    #[inline]
    pub(crate) fn open_to(
        &self,
        iv: &[u8; IV_LEN],
        aad: &[u8],
        ciphertext: &[u8],
        tag: &[u8; TAG_LEN],
        out: &mut [u8],
    ) -> Result<(), AuthFailed> {
        debug_assert_eq!(ciphertext.len(), out.len());
        self.0
            .open_separate_gather(
                Nonce::assume_unique_for_key(*iv),
                Aad::from(aad),
                ciphertext,
                tag,
                out,
            )
            .map_err(|_| AuthFailed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// NIST GCM test vector (gcmEncryptExtIV256.rsp, Count = 0 of the
    /// 256-bit key, 96-bit IV, 128-bit PT, 160-bit AAD group).
    #[test]
    fn matches_a_nist_vector() {
        let hex = |s: &str| -> Vec<u8> {
            (0..s.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
                .collect()
        };
        let key: [u8; 32] = hex("92e11dcdaa866f5ce790fd24501f92509aacf4cb8b1339d50c9c1240935dd08b")
            .try_into()
            .unwrap();
        let iv: [u8; 12] = hex("ac93a1a6145299bde902f21a").try_into().unwrap();
        let pt = hex("2d71bcfa914e4ac045b2aa60955fad24");
        let aad = hex("1e0889016f67601c8ebea4943bc23ad6");
        let ct = hex("8995ae2e6df3dbf96fac7b7137bae67f");
        let tag: [u8; 16] = hex("eca5aa77d51d4a0a14d9c51e1da474ab").try_into().unwrap();

        let c = Aes256Gcm::new(&key);
        let mut buf = pt.clone();
        assert_eq!(c.seal_in_place(&iv, &aad, &mut buf), tag);
        assert_eq!(buf, ct);

        let mut out = vec![0u8; ct.len()];
        c.open_to(&iv, &aad, &ct, &tag, &mut out).unwrap();
        assert_eq!(out, pt);

        let mut bad = tag;
        bad[0] ^= 1;
        assert_eq!(c.open_to(&iv, &aad, &ct, &bad, &mut out), Err(AuthFailed));
        assert_eq!(
            c.open_to(&iv, &aad[1..], &ct, &tag, &mut out),
            Err(AuthFailed)
        );
    }
}
