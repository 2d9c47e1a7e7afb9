//! AES-GCM, the one AEAD of the client: AES-256-GCM for sealed records
//! (DIRECT under `K_pair`, MULTI under the content and wrap keys), SEALKEY
//! key files, the state topic and legacy `ChatCrypto` records; AES-128-GCM
//! for MLS (ciphersuite 2, `crate::mls::provider`).
//!
//! Two backends, chosen when the crate is built; both give the same bytes
//! (tests below: a NIST vector and a known-answer digest over many lengths):
//! - **aws-lc-rs**, the default (`awslc`): AWS-LC's assembly (AES-NI, CLMUL,
//!   VAES/AVX-512 where the CPU has them) chosen **at run time**, so one
//!   portable binary runs at full speed on any x86-64 or AArch64 machine; a
//!   27-byte record with the envelope's 72 bytes of associated data takes
//!   about 110 ns on the benchmark machine (docs/BENCHMARKS.md, "The AEAD").
//!   Builds AWS-LC's C.
//! - **RustCrypto `aes-gcm`** with the cargo feature `rustcrypto-aead`
//!   (`rustcrypto`): no C for the AEAD. `aes` and `polyval` also detect
//!   AES-NI and CLMUL at run time, but a portable build is still about twice
//!   as slow as AWS-LC on small records (docs/BENCHMARKS.md, "The AEAD on
//!   RustCrypto").
//!
//! Either way an expanded key is wiped when it is dropped. Tags are
//! detached: records are sealed in place in the producer's batch buffer and
//! opened straight from the fetch buffer into the caller's.

use std::fmt;

use backend::Backend;
pub(crate) use backend::{AuthFailed, IV_LEN, KEY_LEN, KEY_LEN_128, TAG_LEN};

#[cfg(not(feature = "rustcrypto-aead"))]
mod awslc;
mod backend;
#[cfg(feature = "rustcrypto-aead")]
mod rustcrypto;

/// The backend this build uses.
#[cfg(not(feature = "rustcrypto-aead"))]
type Selected = awslc::AwsLc;
/// The backend this build uses.
#[cfg(feature = "rustcrypto-aead")]
type Selected = rustcrypto::RustCrypto;

/// The AES-GCM implementation this build of the client seals and opens
/// with: `"aws-lc-rs"` (the default) or `"rustcrypto-aes-gcm"` (cargo
/// feature `rustcrypto-aead`).
pub const AEAD_BACKEND: &str = Selected::NAME;

/// An expanded AES-256-GCM key (key schedule and GHASH tables computed once).
pub(crate) struct Aes256Gcm(<Selected as Backend>::Key256);

impl fmt::Debug for Aes256Gcm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Aes256Gcm(<redacted>)")
    }
}

impl Aes256Gcm {
    /// Expands `key`.
    pub(crate) fn new(key: &[u8; KEY_LEN]) -> Self {
        Self(Selected::expand_256(key))
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
        Selected::seal_256(&self.0, iv, aad, in_out)
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
        Selected::open_256(&self.0, iv, aad, ciphertext, tag, out)
    }
}

/// AES-128-GCM under a key used for this call only: `in_out` is encrypted
/// in place and the tag returned.
///
/// # Panics
/// If `in_out` exceeds AES-GCM's 64 GiB limit (callers bound it far below).
pub(crate) fn aes128_gcm_seal(
    key: &[u8; KEY_LEN_128],
    iv: &[u8; IV_LEN],
    aad: &[u8],
    in_out: &mut [u8],
) -> [u8; TAG_LEN] {
    Selected::seal_128(key, iv, aad, in_out)
}

/// AES-128-GCM under a key used for this call only: `sealed` is the
/// ciphertext followed by its 16-byte tag. Checks the tag, decrypts the
/// ciphertext in place and returns its length (the plaintext is
/// `sealed[..len]`). On failure `sealed` holds unspecified bytes: the caller
/// wipes or discards it.
///
/// # Errors
/// [`AuthFailed`], also when `sealed` is shorter than a tag.
pub(crate) fn aes128_gcm_open(
    key: &[u8; KEY_LEN_128],
    iv: &[u8; IV_LEN],
    aad: &[u8],
    sealed: &mut [u8],
) -> Result<usize, AuthFailed> {
    Selected::open_128(key, iv, aad, sealed)
}

#[cfg(test)]
mod tests {
    use sha2::{Digest as _, Sha256};

    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    /// The build's feature picks the backend: a build with
    /// `rustcrypto-aead` must not report (or run on) aws-lc-rs.
    #[test]
    fn the_feature_selects_the_backend() {
        let expected = if cfg!(feature = "rustcrypto-aead") {
            "rustcrypto-aes-gcm"
        } else {
            "aws-lc-rs"
        };
        assert_eq!(AEAD_BACKEND, expected);
        assert_eq!(super::super::AEAD_BACKEND, expected);
    }

    /// NIST GCM test vector (gcmEncryptExtIV256.rsp, Count = 0 of the
    /// 256-bit key, 96-bit IV, 128-bit PT, 160-bit AAD group).
    #[test]
    fn matches_a_nist_vector() {
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

    /// NIST GCM test vector (gcmEncryptExtIV128.rsp, Count = 0 of the
    /// 128-bit key, 96-bit IV, 128-bit PT, 128-bit AAD group).
    #[test]
    fn aes128_matches_a_nist_vector() {
        let key: [u8; 16] = hex("c939cc13397c1d37de6ae0e1cb7c423c").try_into().unwrap();
        let iv: [u8; 12] = hex("b3d8cc017cbb89b39e0f67e2").try_into().unwrap();
        let pt = hex("c3b3c41f113a31b73d9a5cd432103069");
        let aad = hex("24825602bd12a984e0092d3e448eda5f");
        let ct = hex("93fe7d9e9bfd10348a5606e5cafa7354");
        let tag: [u8; 16] = hex("0032a1dc85f1c9786925a2e71d8272dd").try_into().unwrap();

        let mut buf = pt.clone();
        assert_eq!(aes128_gcm_seal(&key, &iv, &aad, &mut buf), tag);
        assert_eq!(buf, ct);
        buf.extend_from_slice(&tag);
        assert_eq!(aes128_gcm_open(&key, &iv, &aad, &mut buf), Ok(pt.len()));
        assert_eq!(buf[..pt.len()], pt);

        let mut bad = [&ct[..], &tag[..]].concat();
        bad[31] ^= 0x80;
        assert_eq!(aes128_gcm_open(&key, &iv, &aad, &mut bad), Err(AuthFailed));
        assert_eq!(
            aes128_gcm_open(&key, &iv, &aad, &mut [0; 15]),
            Err(AuthFailed)
        );
    }

    /// SHA-256 over every ciphertext and tag of a sweep of plaintext and
    /// associated-data lengths (0 to 300 bytes of plaintext: empty, partial
    /// and whole blocks, the 4- and 8-block strides of the assembly and of
    /// RustCrypto's parallel blocks), for both key sizes; every record is
    /// opened again. The digests were computed once on aws-lc-rs: the
    /// RustCrypto build (`--features rustcrypto-aead`) must give the same
    /// bytes.
    #[test]
    fn both_backends_give_the_same_bytes() {
        const SEAL_256: &str = "d75905ac02e3b43bc525cd748426ec723ec685806dc943294309442524dada42";
        const SEAL_128: &str = "d730a385f061149d60471cdab318894e2aca35b0b83de996dbc5d2e09a1ce692";
        let key256: [u8; 32] = std::array::from_fn(|i| i as u8 ^ 0xa5);
        let key128: [u8; 16] = std::array::from_fn(|i| i as u8 ^ 0x3c);
        let c = Aes256Gcm::new(&key256);
        let (mut h256, mut h128) = (Sha256::new(), Sha256::new());
        for len in 0..=300usize {
            let iv: [u8; 12] = std::array::from_fn(|i| (len + i) as u8);
            let pt: Vec<u8> = (0..len).map(|i| (i * 7 + len) as u8).collect();
            let aad: Vec<u8> = (0..len % 97).map(|i| (i * 13) as u8).collect();

            let mut buf = pt.clone();
            let tag = c.seal_in_place(&iv, &aad, &mut buf);
            h256.update(&buf);
            h256.update(tag);
            let mut out = vec![0u8; len];
            c.open_to(&iv, &aad, &buf, &tag, &mut out).unwrap();
            assert_eq!(out, pt, "AES-256-GCM round trip of {len} bytes");

            let mut buf = pt.clone();
            let tag = aes128_gcm_seal(&key128, &iv, &aad, &mut buf);
            buf.extend_from_slice(&tag);
            h128.update(&buf);
            assert_eq!(aes128_gcm_open(&key128, &iv, &aad, &mut buf), Ok(len));
            assert_eq!(buf[..len], pt, "AES-128-GCM round trip of {len} bytes");
        }
        let digest =
            |h: Sha256| -> String { h.finalize().iter().map(|b| format!("{b:02x}")).collect() };
        assert_eq!(digest(h256), SEAL_256, "AES-256-GCM on {AEAD_BACKEND}");
        assert_eq!(digest(h128), SEAL_128, "AES-128-GCM on {AEAD_BACKEND}");
    }
}
