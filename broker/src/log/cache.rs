//! The open partitions: a cache of [`Partition`]s keyed by (incarnation,
//! partition), least recently used first out, bounded by the files they hold.
//!
//! A partition nobody uses (the cache holds its only reference) may be
//! closed — dropped, which closes its files — whenever the cache holds more
//! files than `open_files`; the next use opens it again from disk (with the
//! recovery every open does). A partition in use — a connection holds it,
//! or it waits in the sync queue with unsynced writes — is never closed:
//! the cache holds it until it is idle, so there is never more than one
//! instance of a partition.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use super::partition::Partition;

/// The key of a partition: its topic's incarnation and its number.
pub(crate) type Key = (u64, u32);

struct Slot {
    partition: Arc<Partition>,
    tick: u64,
    files: usize,
}

/// The open partitions (see the module documentation).
pub(crate) struct OpenPartitions {
    slots: HashMap<Key, Slot>,
    lru: BTreeMap<u64, Key>,
    tick: u64,
    files: usize,
    limit: usize,
    /// Partitions closed so far (for metrics).
    pub(crate) evictions: u64,
}

impl OpenPartitions {
    /// An empty cache that closes idle partitions beyond `limit` files.
    pub(crate) fn new(limit: usize) -> Self {
        OpenPartitions {
            slots: HashMap::new(),
            lru: BTreeMap::new(),
            tick: 0,
            files: 0,
            limit,
            evictions: 0,
        }
    }

    /// The partition, if open, marked as just used.
    pub(crate) fn get(&mut self, key: Key) -> Option<Arc<Partition>> {
        let tick = self.next_tick();
        let slot = self.slots.get_mut(&key)?;
        self.lru.remove(&slot.tick);
        self.lru.insert(tick, key);
        slot.tick = tick;
        // Rolls and retention change it; refreshed on every use.
        let files = slot.partition.segment_count();
        self.files = self.files + files - slot.files;
        slot.files = files;
        Some(slot.partition.clone())
    }

    /// Add a partition just opened. Returns the idle partitions closed to
    /// make room: the caller drops them outside its lock.
    pub(crate) fn insert(&mut self, key: Key, partition: Arc<Partition>) -> Vec<Arc<Partition>> {
        let tick = self.next_tick();
        let files = partition.segment_count();
        self.files += files;
        self.lru.insert(tick, key);
        if let Some(old) = self.slots.insert(
            key,
            Slot {
                partition,
                tick,
                files,
            },
        ) {
            // Never happens (opens are serialised and re-check); keep the books right.
            self.lru.remove(&old.tick);
            self.files -= old.files;
        }
        self.evict()
    }

    /// Close idle partitions, least recently used first, until the files
    /// held fit the limit or only partitions in use are left.
    fn evict(&mut self) -> Vec<Arc<Partition>> {
        let mut out = Vec::new();
        if self.files <= self.limit {
            return out;
        }
        let mut idle = Vec::new();
        for (&tick, key) in &self.lru {
            if self.files <= self.limit {
                break;
            }
            let slot = &self.slots[key];
            // Only the cache holds it: nobody can take it while we hold the
            // lock the cache lives under, so closing it is safe.
            if Arc::strong_count(&slot.partition) == 1 {
                self.files -= slot.files;
                idle.push((tick, *key));
            }
        }
        for (tick, key) in idle {
            self.lru.remove(&tick);
            if let Some(slot) = self.slots.remove(&key) {
                out.push(slot.partition);
            }
        }
        self.evictions += out.len() as u64;
        out
    }

    /// Remove every partition of an incarnation (its topic is deleted).
    pub(crate) fn remove_incarnation(
        &mut self,
        incarnation: u64,
        partitions: u32,
    ) -> Vec<Arc<Partition>> {
        let mut out = Vec::new();
        for p in 0..partitions {
            if let Some(slot) = self.slots.remove(&(incarnation, p)) {
                self.lru.remove(&slot.tick);
                self.files -= slot.files;
                out.push(slot.partition);
            }
        }
        out
    }

    /// Every open partition.
    pub(crate) fn all(&self) -> Vec<Arc<Partition>> {
        self.slots.values().map(|s| s.partition.clone()).collect()
    }

    /// Open partitions.
    pub(crate) fn len(&self) -> usize {
        self.slots.len()
    }

    fn next_tick(&mut self) -> u64 {
        self.tick += 1;
        self.tick
    }
}
