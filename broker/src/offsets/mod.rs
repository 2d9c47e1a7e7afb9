//! Consumer-group offsets: the compacted internal topic `__consumer_offsets`
//! is the record; 256 in-memory shards, chosen by FNV-1a of
//! `group/topic/partition` (the original HermitMQ's design), answer queries.
//! The shards are rebuilt from the topic on start.
//!
//! Record layout in `__consumer_offsets` (one record per batch):
//! key = `u8 len | group | u8 len | topic | u32 partition`,
//! payload = the client layout with one 8-byte record: the offset (u64);
//! a tombstone (empty payload) forgets the key.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use hermit_protocol::record::BatchBuilder;

use crate::log::error::{Result, StorageError};
use crate::log::keyed::{self, Keyed};
use crate::log::partition::now_ns;
use crate::log::{Appended, Partition};

/// Name of the internal topic holding consumer-group offsets.
pub const OFFSETS_TOPIC: &str = "__consumer_offsets";

/// Number of in-memory shards.
pub const SHARDS: usize = 256;

/// FNV-1a (32-bit) of `group/topic/partition`, without building the string.
pub fn shard_of(group: &str, topic: &str, partition: u32) -> usize {
    let mut h: u32 = 0x811c_9dc5;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h ^= u32::from(b);
            h = h.wrapping_mul(0x0100_0193);
        }
    };
    eat(group.as_bytes());
    eat(b"/");
    eat(topic.as_bytes());
    eat(b"/");
    let mut digits = [0u8; 10];
    let mut n = partition;
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    eat(&digits[i..]);
    (h as usize) % SHARDS
}

type Key = (String, String, u32);

/// The committed offsets of every consumer group.
pub struct OffsetStore {
    shards: Vec<Mutex<HashMap<Key, u64>>>,
    log: Arc<Partition>,
}

impl std::fmt::Debug for OffsetStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OffsetStore").finish_non_exhaustive()
    }
}

fn encode_key(group: &str, topic: &str, partition: u32) -> Vec<u8> {
    let mut k = Vec::with_capacity(2 + group.len() + topic.len() + 4);
    k.push(group.len() as u8);
    k.extend_from_slice(group.as_bytes());
    k.push(topic.len() as u8);
    k.extend_from_slice(topic.as_bytes());
    k.extend_from_slice(&partition.to_be_bytes());
    k
}

fn decode_key(k: &[u8]) -> Option<Key> {
    let mut r = hermit_protocol::codec::Reader::new(k);
    let group = r.str8("group").ok()?.to_owned();
    let topic = r.str8("topic").ok()?.to_owned();
    let partition = r.u32().ok()?;
    r.finish().ok()?;
    Some((group, topic, partition))
}

impl OffsetStore {
    /// Rebuild the shards from `log` (partition 0 of `__consumer_offsets`).
    pub fn load(log: Arc<Partition>) -> Result<OffsetStore> {
        let shards: Vec<_> = (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect();
        let store = OffsetStore { shards, log };
        // Corruption is skipped (offsets after it in its segment are lost).
        let loaded = keyed::replay(
            &store.log,
            OFFSETS_TOPIC,
            decode_key,
            |r| <[u8; 8]>::try_from(r).ok().map(u64::from_be_bytes),
            |entry| {
                let key = match &entry {
                    Keyed::Set(k, _) | Keyed::Removed(k) => k,
                };
                let mut map = store.shards[shard_of(&key.0, &key.1, key.2)]
                    .lock()
                    .unwrap_or_else(|p| p.into_inner());
                match entry {
                    Keyed::Set(key, offset) => map.insert(key, offset),
                    Keyed::Removed(key) => map.remove(&key),
                };
            },
        )?;
        tracing::debug!(records = loaded, "loaded consumer offsets");
        Ok(store)
    }

    /// The partition the offsets are stored in.
    pub fn partition(&self) -> &Arc<Partition> {
        &self.log
    }

    /// Store `offset` as the next offset `group` reads from `topic/partition`.
    ///
    /// The shard lock is held across the append so the log and the shard agree
    /// on the order of concurrent commits to one key.
    pub fn commit(
        &self,
        group: &str,
        topic: &str,
        partition: u32,
        offset: u64,
    ) -> Result<Appended> {
        let mut b = BatchBuilder::with_capacity(&encode_key(group, topic, partition), 12);
        b.push(&offset.to_be_bytes());
        let batch = b.finish(now_ns()).map_err(StorageError::InvalidBatch)?;
        let shard = shard_of(group, topic, partition);
        let mut map = self.shards[shard].lock().unwrap_or_else(|p| p.into_inner());
        let appended = self.log.append(&batch)?;
        map.insert((group.to_owned(), topic.to_owned(), partition), offset);
        Ok(appended)
    }

    /// The committed offset, if any.
    pub fn committed(&self, group: &str, topic: &str, partition: u32) -> Option<u64> {
        let shard = shard_of(group, topic, partition);
        let map = self.shards[shard].lock().unwrap_or_else(|p| p.into_inner());
        map.get(&(group.to_owned(), topic.to_owned(), partition))
            .copied()
    }

    /// Visit every committed offset, `(group, topic, partition, offset)`,
    /// one shard at a time (each shard locked while it is visited), in no
    /// particular order.
    pub fn for_each(&self, mut f: impl FnMut(&str, &str, u32, u64)) {
        for shard in &self.shards {
            let map = shard.lock().unwrap_or_else(|p| p.into_inner());
            for ((g, t, p), o) in map.iter() {
                f(g, t, *p, *o);
            }
        }
    }

    /// Every committed offset: `(group, topic, partition, offset)`.
    pub fn all(&self) -> Vec<(String, String, u32, u64)> {
        let mut v = Vec::new();
        for shard in &self.shards {
            let map = shard.lock().unwrap_or_else(|p| p.into_inner());
            v.extend(
                map.iter()
                    .map(|((g, t, p), o)| (g.clone(), t.clone(), *p, *o)),
            );
        }
        v.sort();
        v
    }

    /// Forget every group's offsets for a deleted topic: tombstones,
    /// durable before this returns — the topic's name may be created again
    /// next, and a tombstone lost in a crash would hand the old topic's
    /// offsets to the new one.
    pub fn forget_topic(&self, topic: &str) -> Result<()> {
        keyed::forget(
            &self.log,
            &self.shards,
            |k| k.1 == topic,
            |k| encode_key(&k.0, &k.1, k.2),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_matches_the_string_form() {
        fn reference(s: &str) -> usize {
            let mut h: u32 = 0x811c_9dc5;
            for b in s.bytes() {
                h ^= u32::from(b);
                h = h.wrapping_mul(0x0100_0193);
            }
            h as usize % SHARDS
        }
        for (g, t, p) in [
            ("g", "t", 0),
            ("chat-app", "room.42", 4_294_967_295),
            ("é", "x", 10),
        ] {
            assert_eq!(shard_of(g, t, p), reference(&format!("{g}/{t}/{p}")));
        }
    }

    #[test]
    fn keys_round_trip() {
        let k = encode_key("grp", "topic", 7);
        assert_eq!(decode_key(&k), Some(("grp".into(), "topic".into(), 7)));
        assert_eq!(decode_key(&k[..k.len() - 1]), None);
    }
}
