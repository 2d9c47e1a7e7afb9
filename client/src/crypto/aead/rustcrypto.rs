//! The pure-Rust backend (cargo feature `rustcrypto-aead`): RustCrypto's
//! `aes-gcm` on encrypt-only AES (GCM never runs the inverse cipher, so the
//! decryption key schedule is not computed). `aes` picks AES-NI / VAES and
//! `polyval` CLMUL at run time (`cpufeatures`), with constant-time software
//! fallbacks.
//!
//! Wiping: with `aes-gcm`'s `zeroize` feature, `aes` and `polyval` wipe
//! their whole state in `Drop` (`zeroize_flat_type`: the round keys, the
//! powers of H). An expanded AES-256 key is built once and then kept in a
//! `Box`, so moving it (a cache rehashing, a struct moved) moves a pointer
//! and leaves no copy of the schedule behind; building it may leave one
//! transient copy in the constructor's stack frame, which later calls
//! overwrite. The AES-128 keys of MLS live on the stack for one call.

use aes_gcm::aead::consts::U12;
use aes_gcm::aead::inout::InOutBuf;
use aes_gcm::aes::{Aes128Enc, Aes256Enc};
use aes_gcm::{AeadInOut as _, AesGcm, KeyInit as _, Nonce, Tag};

use super::backend::{AuthFailed, Backend, IV_LEN, KEY_LEN, KEY_LEN_128, TAG_LEN};

/// AES-256-GCM with a 96-bit nonce on encrypt-only AES.
type Cipher256 = AesGcm<Aes256Enc, U12>;
/// AES-128-GCM with a 96-bit nonce on encrypt-only AES.
type Cipher128 = AesGcm<Aes128Enc, U12>;

/// AES-GCM on RustCrypto's `aes-gcm`.
pub(super) struct RustCrypto;

impl Backend for RustCrypto {
    const NAME: &'static str = "rustcrypto-aes-gcm";
    type Key256 = Box<Cipher256>;

    fn expand_256(key: &[u8; KEY_LEN]) -> Box<Cipher256> {
        Box::new(Cipher256::new(key.into()))
    }

    #[inline]
    fn seal_256(
        key: &Box<Cipher256>,
        iv: &[u8; IV_LEN],
        aad: &[u8],
        in_out: &mut [u8],
    ) -> [u8; TAG_LEN] {
        seal(&**key, iv, aad, in_out)
    }

    #[inline]
    fn open_256(
        key: &Box<Cipher256>,
        iv: &[u8; IV_LEN],
        aad: &[u8],
        ciphertext: &[u8],
        tag: &[u8; TAG_LEN],
        out: &mut [u8],
    ) -> Result<(), AuthFailed> {
        let buf = InOutBuf::new(ciphertext, out).map_err(|_| AuthFailed)?;
        key.decrypt_inout_detached(&Nonce::from(*iv), aad, buf, &Tag::from(*tag))
            .map_err(|_| AuthFailed)
    }

    fn seal_128(
        key: &[u8; KEY_LEN_128],
        iv: &[u8; IV_LEN],
        aad: &[u8],
        in_out: &mut [u8],
    ) -> [u8; TAG_LEN] {
        seal(&Cipher128::new(key.into()), iv, aad, in_out)
    }

    fn open_128(
        key: &[u8; KEY_LEN_128],
        iv: &[u8; IV_LEN],
        aad: &[u8],
        sealed: &mut [u8],
    ) -> Result<usize, AuthFailed> {
        let len = sealed.len().checked_sub(TAG_LEN).ok_or(AuthFailed)?;
        let (ciphertext, tag) = sealed.split_at_mut(len);
        let tag = Tag::try_from(&*tag).map_err(|_| AuthFailed)?;
        Cipher128::new(key.into())
            .decrypt_inout_detached(&Nonce::from(*iv), aad, InOutBuf::from(ciphertext), &tag)
            .map(|()| len)
            .map_err(|_| AuthFailed)
    }
}

#[inline]
fn seal<C: aes_gcm::AeadInOut<NonceSize = U12, TagSize = aes_gcm::aead::consts::U16>>(
    cipher: &C,
    iv: &[u8; IV_LEN],
    aad: &[u8],
    in_out: &mut [u8],
) -> [u8; TAG_LEN] {
    cipher
        .encrypt_inout_detached(&Nonce::from(*iv), aad, InOutBuf::from(in_out))
        .expect("AES-GCM seals any plaintext below 64 GiB")
        .into()
}
