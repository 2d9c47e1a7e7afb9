//! Blinded record keys.
//!
//! The broker compacts a topic by record key, so the key travels in clear. The SDK
//! sends `HMAC-SHA256(K_conv, "sealed-record/v1 key" || logical_key)[0..16]`
//! instead: equal logical keys of one pair or group still compact together, and
//! the broker learns neither the names nor whether two pairs or groups use the
//! same one. `K_conv`, the [`BlindingKey`], is the pairwise key of two parties
//! or a group secret shared by the members.

use std::fmt;

use hmac::{Hmac, KeyInit as _, Mac as _};
use sha2::Sha256;
use zeroize::Zeroizing;

use super::identity::{Identity, KeyError, PublicKey};
use super::rng;

const KEY_LABEL: &[u8] = b"sealed-record/v1 key";

/// Length of a blinded key.
pub const BLINDED_KEY_LEN: usize = 16;

/// A 16-byte blinded record key, safe to show the broker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlindedKey(pub [u8; BLINDED_KEY_LEN]);

/// A blinding key `K_conv` of a pair or a group, used only to blind record
/// keys (zeroized on drop, redacted `Debug`).
#[derive(Clone)]
pub struct BlindingKey(Zeroizing<[u8; 32]>);

/// The former name of [`BlindingKey`] ("conversation" is kept for the MLS
/// conversations to come).
#[deprecated(note = "renamed BlindingKey")]
pub type ConversationKey = BlindingKey;

impl BlindingKey {
    /// The blinding key of two parties: `K_pair(own, peer)` (the same on both sides).
    pub fn pairwise(own: &Identity, peer: &PublicKey) -> Self {
        Self(own.pair_key(peer))
    }

    /// A fresh random group secret, to distribute to members inside sealed records.
    ///
    /// # Errors
    /// [`KeyError::Rng`] if the OS random source fails.
    pub fn generate_group() -> Result<Self, KeyError> {
        let mut rng = rng::seeded().map_err(|_| KeyError::Rng)?;
        let mut key = Zeroizing::new([0u8; 32]);
        rng.fill_bytes(&mut key[..]).map_err(|_| KeyError::Rng)?;
        Ok(Self(key))
    }

    /// A group secret received from a member.
    pub fn from_group_secret(secret: [u8; 32]) -> Self {
        Self(Zeroizing::new(secret))
    }

    /// The secret bytes, to hand to another group member inside a sealed record.
    pub fn group_secret_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// `HMAC-SHA256(K_conv, "sealed-record/v1 key" || logical_key)[0..16]`.
    pub fn blind(&self, logical_key: &[u8]) -> BlindedKey {
        let mut mac =
            <Hmac<Sha256>>::new_from_slice(&self.0[..]).expect("HMAC accepts keys of any length");
        mac.update(KEY_LABEL);
        mac.update(logical_key);
        let tag = mac.finalize().into_bytes();
        let mut out = [0u8; BLINDED_KEY_LEN];
        out.copy_from_slice(&tag[..BLINDED_KEY_LEN]);
        BlindedKey(out)
    }
}

impl fmt::Debug for BlindingKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("BlindingKey(<redacted>)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_sides_blind_alike_and_pairs_differ() {
        let a = Identity::generate().expect("os rng");
        let b = Identity::generate().expect("os rng");
        let c = Identity::generate().expect("os rng");
        let ab = BlindingKey::pairwise(&a, b.public_key());
        let ba = BlindingKey::pairwise(&b, a.public_key());
        let ac = BlindingKey::pairwise(&a, c.public_key());
        assert_eq!(ab.blind(b"order-17"), ba.blind(b"order-17"));
        assert_ne!(ab.blind(b"order-17"), ab.blind(b"order-18"));
        assert_ne!(ab.blind(b"order-17"), ac.blind(b"order-17"));
        let g = BlindingKey::generate_group().expect("os rng");
        let g2 = BlindingKey::from_group_secret(*g.group_secret_bytes());
        assert_eq!(g.blind(b"k"), g2.blind(b"k"));
        assert_eq!(format!("{g:?}"), "BlindingKey(<redacted>)");
    }
}
