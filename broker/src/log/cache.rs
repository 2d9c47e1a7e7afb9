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

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};

use super::files::{CloseIdle, FileBudget};
use super::partition::Partition;

impl CloseIdle for Mutex<OpenPartitions> {
    fn close_idle(&self) {
        let closed = match self.try_lock() {
            Ok(mut c) => c.evict(),
            Err(_) => return,
        };
        // Dropped outside the lock: closing files takes syscalls.
        drop(closed);
    }
}

/// Open partitions the cache keeps per file of its budget.
const OPEN_PER_FILE: usize = 4;

/// The key of a partition: its topic's incarnation and its number.
pub(crate) type Key = (u64, u32);

/// A partition in the cache, and when it was last used.
struct Cached {
    partition: Arc<Partition>,
    tick: u64,
}

/// The open partitions (see the module documentation).
pub(crate) struct OpenPartitions {
    entries: HashMap<Key, Cached>,
    lru: BTreeMap<u64, Key>,
    tick: u64,
    /// Segment files held by every live partition, kept by the partitions.
    files: Arc<AtomicUsize>,
    limit: usize,
    /// Partitions closed so far (for metrics).
    pub(crate) evictions: u64,
    /// Itself, for the partitions' [`FileBudget`].
    me: Weak<Mutex<OpenPartitions>>,
    /// Closed partitions that hold rolled segments: retention and
    /// compaction open them (the others have nothing to delete or compact).
    pub(crate) cleanup_due: HashSet<Key>,
}

impl OpenPartitions {
    /// An empty cache that closes idle partitions beyond `limit` files.
    pub(crate) fn new(limit: usize) -> Arc<Mutex<Self>> {
        Arc::new_cyclic(|me| {
            Mutex::new(OpenPartitions {
                me: me.clone(),
                cleanup_due: HashSet::new(),
                entries: HashMap::new(),
                lru: BTreeMap::new(),
                tick: 0,
                files: Arc::new(AtomicUsize::new(0)),
                limit,
                evictions: 0,
            })
        })
    }

    /// The partition, if open, marked as just used.
    pub(crate) fn get(&mut self, key: Key) -> Option<Arc<Partition>> {
        let tick = self.next_tick();
        let cached = self.entries.get_mut(&key)?;
        self.lru.remove(&cached.tick);
        self.lru.insert(tick, key);
        cached.tick = tick;
        Some(cached.partition.clone())
    }

    /// The partition, if open, without marking it used (background work
    /// must not keep partitions open that nobody uses).
    pub(crate) fn peek(&self, key: Key) -> Option<Arc<Partition>> {
        self.entries.get(&key).map(|c| c.partition.clone())
    }

    /// Close idle partitions if the files held are over the limit (after
    /// a roll the cache could not act on at once). Returns them to drop.
    pub(crate) fn trim(&mut self) -> Vec<Arc<Partition>> {
        self.evict()
    }

    /// Add a partition just opened. Returns the idle partitions closed to
    /// make room: the caller drops them outside its lock.
    pub(crate) fn insert(&mut self, key: Key, partition: Arc<Partition>) -> Vec<Arc<Partition>> {
        let tick = self.next_tick();
        let me: Weak<dyn CloseIdle> = self.me.clone();
        partition.count_files_in(FileBudget::new(self.files.clone(), me, self.limit));
        self.lru.insert(tick, key);
        if let Some(old) = self.entries.insert(key, Cached { partition, tick }) {
            // Never happens (opens are serialised and re-check); keep the books right.
            self.lru.remove(&old.tick);
        }
        self.evict()
    }

    /// Close idle partitions, least recently used first, until the files
    /// held fit the limit or only partitions in use are left.
    pub(crate) fn evict(&mut self) -> Vec<Arc<Partition>> {
        let mut out = Vec::new();
        // The files of what is closed here are counted out when the caller
        // drops it: count them out of this pass by hand.
        let mut files = self.files.load(Ordering::Acquire);
        let mut open = self.entries.len();
        let (limit, max_open) = (self.limit, self.max_open());
        let fits = move |files: usize, open: usize| files <= limit && open <= max_open;
        if fits(files, open) {
            return out;
        }
        let mut idle = Vec::new();
        for (&tick, key) in &self.lru {
            if fits(files, open) {
                break;
            }
            let cached = &self.entries[key];
            // Only the cache holds it: nobody can take it while we hold the
            // lock the cache lives under, so closing it is safe.
            if Arc::strong_count(&cached.partition) == 1 {
                files = files.saturating_sub(cached.partition.files_held());
                open -= 1;
                idle.push((tick, *key));
                if cached.partition.files_held() > 1 {
                    self.cleanup_due.insert(*key);
                }
            }
        }
        for (tick, key) in idle {
            self.lru.remove(&tick);
            if let Some(cached) = self.entries.remove(&key) {
                out.push(cached.partition);
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
            if let Some(cached) = self.entries.remove(&(incarnation, p)) {
                self.lru.remove(&cached.tick);
                out.push(cached.partition);
            }
        }
        out
    }

    /// Every open partition.
    pub(crate) fn all(&self) -> Vec<Arc<Partition>> {
        self.entries.values().map(|c| c.partition.clone()).collect()
    }

    /// Most partitions kept open: partitions in slots hold no file of
    /// their own, but each costs memory.
    fn max_open(&self) -> usize {
        self.limit.saturating_mul(OPEN_PER_FILE)
    }

    /// The count of files held, shared with whatever else holds files for
    /// the log (its slabs).
    pub(crate) fn counter(&self) -> Arc<AtomicUsize> {
        self.files.clone()
    }

    /// Segment files held by every live partition of the log (also those
    /// closed here whose last user has not let go yet).
    pub(crate) fn files(&self) -> usize {
        self.files.load(Ordering::Acquire)
    }

    /// Open partitions.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    fn next_tick(&mut self) -> u64 {
        self.tick += 1;
        self.tick
    }
}
