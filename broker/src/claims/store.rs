//! The claim store: every claimed partition's state in memory, in shards,
//! and each change recorded in `__claims` while its shard is locked — so
//! the memory and the log agree on the order of a partition's claims.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use hermit_protocol::record::BatchBuilder;

use super::state::{CLAIMS_TOPIC, Key, State, decode_key, encode_key};
use crate::log::error::{Result, StorageError};
use crate::log::keyed::{self, Keyed};
use crate::log::partition::now_ns;
use crate::log::{Appended, Partition};

/// Number of in-memory shards; a partition's shard is chosen by FNV-1a of
/// its topic and number.
pub const SHARDS: usize = 256;

/// FNV-1a (32-bit) of `topic` then the partition's 4 bytes.
pub(super) fn shard_of(topic: &str, partition: u32) -> usize {
    let mut h: u32 = 0x811c_9dc5;
    for &b in topic.as_bytes().iter().chain(&partition.to_be_bytes()) {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    (h as usize) % SHARDS
}

/// The claim state of every claimed partition.
pub struct ClaimStore {
    /// A std mutex per shard, never held across an `.await`: a claim holds
    /// its partition's shard while it reads a batch header and appends one
    /// record (INTERNALS.md §2).
    pub(super) shards: Vec<Mutex<HashMap<Key, State>>>,
    /// Partition 0 of `__claims`.
    log: Arc<Partition>,
}

impl std::fmt::Debug for ClaimStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClaimStore").finish_non_exhaustive()
    }
}

impl ClaimStore {
    /// Rebuild the shards from `log` (partition 0 of `__claims`): the last
    /// record of each key wins, a tombstone removes the key.
    pub fn load(log: Arc<Partition>) -> Result<ClaimStore> {
        let shards: Vec<_> = (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect();
        let store = ClaimStore { shards, log };
        // Corruption is skipped: a key whose newest record was there falls
        // back to its previous one (compaction keeps only the newest, so
        // then the key is usually lost — see STORAGE.md §2.6).
        let loaded = keyed::replay(
            &store.log,
            CLAIMS_TOPIC,
            decode_key,
            State::decode,
            |entry| {
                let key = match &entry {
                    Keyed::Set(k, _) | Keyed::Removed(k) => k,
                };
                let mut map = store.shard(&key.0, key.1);
                match entry {
                    Keyed::Set(key, state) => map.insert(key, state),
                    Keyed::Removed(key) => map.remove(&key),
                };
            },
        )?;
        tracing::debug!(records = loaded, "loaded claim positions");
        Ok(store)
    }

    /// The partition claims are recorded in: a claim is durable once its
    /// [`synced_offset`](Partition::synced_offset) reaches the record's
    /// `next_offset`.
    pub fn partition(&self) -> &Arc<Partition> {
        &self.log
    }

    pub(super) fn shard(&self, topic: &str, partition: u32) -> MutexGuard<'_, HashMap<Key, State>> {
        // A panic while holding a shard cannot leave it half-updated (the
        // record is appended before the map changes), so poisoning is ignored.
        self.shards[shard_of(topic, partition)]
            .lock()
            .unwrap_or_else(|p| p.into_inner())
    }

    /// Append `state` as the record of `topic/partition`. The caller holds
    /// the key's shard and changes the map only once this succeeded.
    pub(super) fn record(&self, topic: &str, partition: u32, state: &State) -> Result<Appended> {
        let value = state.encode();
        let mut b = BatchBuilder::with_capacity(&encode_key(topic, partition), 4 + value.len());
        b.push(&value);
        let batch = b.finish(now_ns()).map_err(StorageError::InvalidBatch)?;
        self.log.append(&batch)
    }

    /// The claim position of `topic/partition`, if it was ever claimed.
    pub fn position(&self, topic: &str, partition: u32) -> Option<u64> {
        self.shard(topic, partition)
            .get(&(topic.to_owned(), partition))
            .map(|s| s.position)
    }

    /// The topics that have claim state, sorted, each once.
    pub fn topics(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .shards
            .iter()
            .flat_map(|s| {
                let map = s.lock().unwrap_or_else(|p| p.into_inner());
                map.keys().map(|(t, _)| t.clone()).collect::<Vec<_>>()
            })
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// Forget the claims of a deleted topic: tombstones, durable before
    /// this returns — the name may be created again next, and a tombstone
    /// lost in a crash would give the new topic the old one's position
    /// (its first batches would never be handed out).
    pub fn forget_topic(&self, topic: &str) -> Result<()> {
        keyed::forget(
            &self.log,
            &self.shards,
            |k| k.0 == topic,
            |k| encode_key(&k.0, k.1),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_spread_partitions_and_topics() {
        let mut seen = std::collections::HashSet::new();
        for t in ["jobs", "mail", "a"] {
            for p in 0..64 {
                seen.insert(shard_of(t, p));
            }
        }
        assert!(seen.len() > 100, "{} shards used", seen.len());
        assert_eq!(shard_of("jobs", 3), shard_of("jobs", 3));
    }
}
