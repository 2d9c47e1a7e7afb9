//! The default backend: AWS-LC through aws-lc-rs. The expanded key lives in
//! AWS-LC's heap, which wipes it when the key is dropped (`OPENSSL_free`
//! cleanses every allocation); moving a `LessSafeKey` moves a pointer.

use aws_lc_rs::aead::{AES_128_GCM, AES_256_GCM, Aad, LessSafeKey, Nonce, UnboundKey};

use super::backend::{AuthFailed, Backend, IV_LEN, KEY_LEN, KEY_LEN_128, TAG_LEN};

/// AES-GCM on aws-lc-rs.
pub(super) struct AwsLc;

impl Backend for AwsLc {
    const NAME: &'static str = "aws-lc-rs";
    type Key256 = LessSafeKey;

    fn expand_256(key: &[u8; KEY_LEN]) -> LessSafeKey {
        let key = UnboundKey::new(&AES_256_GCM, key).expect("a 32-byte key is a valid AES-256 key");
        LessSafeKey::new(key)
    }

    #[inline]
    fn seal_256(
        key: &LessSafeKey,
        iv: &[u8; IV_LEN],
        aad: &[u8],
        in_out: &mut [u8],
    ) -> [u8; TAG_LEN] {
        seal(key, iv, aad, in_out)
    }

    #[inline]
    fn open_256(
        key: &LessSafeKey,
        iv: &[u8; IV_LEN],
        aad: &[u8],
        ciphertext: &[u8],
        tag: &[u8; TAG_LEN],
        out: &mut [u8],
    ) -> Result<(), AuthFailed> {
        key.open_separate_gather(
            Nonce::assume_unique_for_key(*iv),
            Aad::from(aad),
            ciphertext,
            tag,
            out,
        )
        .map_err(|_| AuthFailed)
    }

    fn seal_128(
        key: &[u8; KEY_LEN_128],
        iv: &[u8; IV_LEN],
        aad: &[u8],
        in_out: &mut [u8],
    ) -> [u8; TAG_LEN] {
        seal(&key_128(key), iv, aad, in_out)
    }

    fn open_128(
        key: &[u8; KEY_LEN_128],
        iv: &[u8; IV_LEN],
        aad: &[u8],
        sealed: &mut [u8],
    ) -> Result<usize, AuthFailed> {
        key_128(key)
            .open_in_place(Nonce::assume_unique_for_key(*iv), Aad::from(aad), sealed)
            .map(|plaintext| plaintext.len())
            .map_err(|_| AuthFailed)
    }
}

/// An AES-128-GCM key for one call.
fn key_128(key: &[u8; KEY_LEN_128]) -> LessSafeKey {
    let key = UnboundKey::new(&AES_128_GCM, key).expect("a 16-byte key is a valid AES-128 key");
    LessSafeKey::new(key)
}

#[inline]
fn seal(key: &LessSafeKey, iv: &[u8; IV_LEN], aad: &[u8], in_out: &mut [u8]) -> [u8; TAG_LEN] {
    let tag = key
        .seal_in_place_separate_tag(Nonce::assume_unique_for_key(*iv), Aad::from(aad), in_out)
        .expect("AES-GCM seals any plaintext below 64 GiB");
    tag.as_ref().try_into().expect("AES-GCM tags are 16 bytes")
}
