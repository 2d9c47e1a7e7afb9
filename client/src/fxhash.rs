//! A fast non-cryptographic hasher for the SDK's per-record lookup tables
//! (the producer's batch accumulators, the sealer's and opener's peer and
//! stream tables). Their keys are fingerprints and key ids (SHA-256 output,
//! already uniform) and topic names and keys the application chose; nothing
//! a remote party controls is inserted, so SipHash's flooding resistance buys
//! nothing here, while its cost showed up at ~5 % of a sealed round trip.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// The Fx hash (as used in rustc): rotate, xor, multiply, eight bytes at a time.
#[derive(Default, Clone, Copy)]
pub(crate) struct FxHasher(u64);

const K: u64 = 0x517c_c1b7_2722_0a95;

impl FxHasher {
    #[inline]
    fn add(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(K);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes([
                c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7],
            ]));
        }
        for &b in chunks.remainder() {
            self.add(u64::from(b));
        }
    }

    #[inline]
    fn write_u8(&mut self, b: u8) {
        self.add(u64::from(b));
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// A `HashMap` with [`FxHasher`].
pub(crate) type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    #[test]
    fn equal_keys_hash_equal_and_different_keys_differ() {
        let b = BuildHasherDefault::<FxHasher>::default();
        assert_eq!(b.hash_one("topic"), b.hash_one("topic"));
        assert_ne!(b.hash_one("topic-a"), b.hash_one("topic-b"));
        assert_ne!(b.hash_one([1u8; 32]), b.hash_one([2u8; 32]));
        let mut m: FxMap<String, u32> = FxMap::default();
        m.insert("x".into(), 1);
        assert_eq!(m.get("x"), Some(&1));
    }
}
