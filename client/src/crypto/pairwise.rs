//! The cached pairwise key of one peer: `K_pair` and its AES-256-GCM instance.
//!
//! ECDH and the AES key schedule run once per peer, when the key is first needed;
//! sealing or opening a DIRECT record then costs one AES-GCM call.

use std::fmt;

use zeroize::Zeroizing;

use super::aead::Aes256Gcm;
use super::identity::{Identity, PublicKey};

/// `K_pair(own, peer)` with its expanded cipher, both wiped on drop.
pub(crate) struct PairKey {
    /// Kept for MULTI, where it is the HKDF input keying material of each wrap key.
    key: Zeroizing<[u8; 32]>,
    /// The expanded key, so DIRECT records pay no key schedule.
    cipher: Aes256Gcm,
}

impl PairKey {
    /// Runs ECDH and expands the AES key (the expensive part; done once per peer).
    pub(crate) fn derive(own: &Identity, peer: &PublicKey) -> Self {
        let key = own.pair_key(peer);
        let cipher = Aes256Gcm::new(&key);
        Self { key, cipher }
    }

    pub(crate) fn key(&self) -> &[u8; 32] {
        &self.key
    }

    #[inline]
    pub(crate) fn cipher(&self) -> &Aes256Gcm {
        &self.cipher
    }
}

impl fmt::Debug for PairKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("PairKey(<redacted>)")
    }
}
