//! Which partition a record goes to.
//!
//! - A record with a key goes to `fnv1a_32(key) % partitions`: every record of
//!   a key lands in the same partition (and so keeps its order) as long as
//!   the partition count does not change. FNV-1a is tiny, stable, and easy to
//!   reproduce in any language (a browser client can route the same way).
//! - A record without a key goes to the topic's current "sticky" partition;
//!   when that partition's batch is closed the next record moves on to the
//!   next partition (round robin, one batch at a time), which keeps batches
//!   full instead of spreading each linger period thinly over every partition.
//! - A topic whose partition count is not known yet (it does not exist and
//!   will be auto-created) gets partition 0 until metadata says otherwise.

/// FNV-1a, 32 bits.
pub fn fnv1a_32(bytes: &[u8]) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for &b in bytes {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// The partition of a keyed record among `partitions` (≥ 1).
pub fn partition_for_key(key: &[u8], partitions: u32) -> u32 {
    fnv1a_32(key) % partitions.max(1)
}

/// The partition after `current` in round-robin order.
pub fn next_round_robin(current: u32, partitions: u32) -> u32 {
    (current + 1) % partitions.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_matches_the_reference_vectors() {
        // From the FNV reference (draft-eastlake-fnv): "" and "a" and "foobar".
        assert_eq!(fnv1a_32(b""), 0x811c_9dc5);
        assert_eq!(fnv1a_32(b"a"), 0xe40c_292c);
        assert_eq!(fnv1a_32(b"foobar"), 0xbf9c_f968);
    }

    #[test]
    fn keys_spread_and_stay_put() {
        let mut seen = [0u32; 8];
        for i in 0..8000u32 {
            let k = format!("conversation-{i}");
            let p = partition_for_key(k.as_bytes(), 8);
            assert_eq!(p, partition_for_key(k.as_bytes(), 8));
            seen[p as usize] += 1;
        }
        assert!(seen.iter().all(|&n| n > 800), "{seen:?}");
        assert_eq!(partition_for_key(b"x", 0), 0);
        assert_eq!(next_round_robin(3, 4), 0);
        assert_eq!(next_round_robin(1, 4), 2);
    }
}
