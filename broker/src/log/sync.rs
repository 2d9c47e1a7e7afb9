//! Group commit: one thread fsyncs every partition written since its last
//! round, so one fsync covers every batch written before it, across
//! connections and producers.
//!
//! Under `fsync = always` the thread runs a round as soon as anything is
//! dirty; while it fsyncs, new writes accumulate for the next round — the
//! busier the broker, the more each fsync covers. Under `interval:<ms>` it
//! runs a round per interval. After each round it bumps a generation counter
//! that durable-ack waiters watch.

use std::fs::File;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tokio::sync::watch;

use super::catalog::Catalog;
use super::error::{Result, StorageError};
use super::io::Io;
use super::options::FsyncPolicy;
use super::segment::SegmentFile;
use crate::metrics::Histogram;

/// What a sync makes durable: captured before the fsync starts.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SyncTarget {
    /// Everything below this offset.
    pub(super) offset: u64,
    /// The active segment's base and the position written in it: how far
    /// what is synced may be shown to consumers.
    pub(super) base: u64,
    pub(super) position: u64,
    /// Directory entries (the partition's flags) the sync covers.
    pub(super) dirs: u8,
}

/// What the group commit syncs: a partition with unsynced writes. The
/// queue knows a partition only through these calls, so the partition can
/// hold its queue without the two depending on each other.
pub(crate) trait Syncable: Send + Sync {
    /// Its topic (for the errors a round reports).
    fn topic(&self) -> &str;
    /// Its partition number (for the errors a round reports).
    fn id(&self) -> u32;
    /// The queue took it, before syncing it: the next write queues it again.
    fn dequeued(&self);
    /// What a sync would make durable now, with the file to fsync; `None`
    /// when everything is durable already.
    fn sync_target(&self) -> Result<Option<(SyncTarget, Arc<SegmentFile>)>>;
    /// Sync it on its own (directory entries, then the file); whether an
    /// fsync was issued.
    fn sync(&self) -> Result<bool>;
    /// Everything in `target` is durable.
    fn synced_to(&self, target: SyncTarget);
    /// A sync that covered it failed: it stops taking writes.
    fn sync_failed(&self, err: &StorageError);
}

/// The queue's own state, under its lock.
#[derive(Default)]
struct QueueState {
    dirty: Vec<Arc<dyn Syncable>>,
    /// The catalog has unsynced entries (a creation or deletion waits).
    catalog_dirty: bool,
    shutdown: bool,
    /// The thread waits for work (under `always`): only then does new work
    /// need a wake-up (a syscall); otherwise it is in a round, and takes
    /// the queue when the round ends.
    idle: bool,
}

/// A slab to fdatasync in a round, and what that makes durable.
type SlabRound<'a> = (Arc<SegmentFile>, Vec<(&'a Arc<dyn Syncable>, SyncTarget)>);

/// From this many partitions to sync in one round, one `syncfs` of the data
/// directory's file system replaces one `fdatasync` (and up to two
/// directory fsyncs) per partition. Measured on this project's CI machine
/// (ext4): 1,000 new partitions cost 440 µs each one by one, 44 µs each
/// under one `syncfs`. Below it, the file system's other dirty data is not
/// worth flushing for a few files.
pub const SYNCFS_MIN: usize = 16;

/// Partitions waiting for an fsync, and the thread that syncs them.
pub struct SyncQueue {
    state: Mutex<QueueState>,
    wake: Condvar,
    generation: watch::Sender<u64>,
    /// Group-commit rounds run.
    rounds: AtomicU64,
    /// Partition fsyncs issued (a round syncs each dirty partition once).
    fsyncs: AtomicU64,
    /// File-system syncs issued (rounds with at least [`SYNCFS_MIN`] partitions).
    syncfs: AtomicU64,
    /// The topic catalog, synced first in every round.
    catalog: OnceLock<Arc<Catalog>>,
    /// The data directory, for `syncfs` (its errors since it was opened are reported).
    fs: OnceLock<File>,
    /// What the slabs' syncs and `syncfs` go through.
    io: Io,
    /// How long each round took (ns), and how many partitions it synced.
    round_ns: Histogram,
    round_partitions: Histogram,
}

/// Group-commit counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SyncStats {
    /// Rounds run.
    pub rounds: u64,
    /// Partition fsyncs issued.
    pub fsyncs: u64,
    /// File-system syncs issued (each covering a whole round).
    pub syncfs: u64,
}

impl std::fmt::Debug for SyncQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SyncQueue").finish_non_exhaustive()
    }
}

impl SyncQueue {
    /// A queue with no thread yet (see [`SyncQueue::start`]), syncing
    /// slabs and the file system through `io`.
    pub fn new(io: Io) -> Arc<SyncQueue> {
        Arc::new(SyncQueue {
            state: Mutex::new(QueueState::default()),
            wake: Condvar::new(),
            generation: watch::channel(0).0,
            rounds: AtomicU64::new(0),
            fsyncs: AtomicU64::new(0),
            syncfs: AtomicU64::new(0),
            catalog: OnceLock::new(),
            fs: OnceLock::new(),
            io,
            round_ns: Histogram::latency(),
            round_partitions: Histogram::sizes(),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, QueueState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Give the queue the catalog to sync before the partitions of each
    /// round, and the data directory for whole-file-system syncs.
    pub(crate) fn attach(&self, catalog: Arc<Catalog>, data_dir: File) {
        let _ = self.catalog.set(catalog);
        let _ = self.fs.set(data_dir);
    }

    /// The catalog has entries to sync: run a round for them.
    pub(crate) fn catalog_dirty(&self) {
        let mut st = self.lock();
        st.catalog_dirty = true;
        let idle = st.idle;
        drop(st);
        if idle {
            self.wake.notify_one();
        }
    }

    /// Make the catalog durable now, outside a round: before a roll or a
    /// move out of a slot makes records durable by itself, their topic's
    /// creation must be (a round syncs the catalog first; these do not
    /// wait for one). Nothing to do, and no fsync, when nothing is unsynced.
    pub(crate) fn sync_catalog(&self) -> Result<()> {
        match self.catalog.get() {
            Some(c) => c.sync().map(|_| ()),
            None => Ok(()),
        }
    }

    /// The catalog has unsynced entries nobody waits for: the next round
    /// (which the first record after them starts) syncs them; no wake-up.
    pub(crate) fn catalog_written(&self) {
        self.lock().catalog_dirty = true;
    }

    /// One `syncfs` of the data directory's file system (close under
    /// `fsync = never`: it covers partitions closed since the start).
    pub(crate) fn sync_filesystem(&self) -> Result<()> {
        match self.fs.get() {
            Some(fs) => {
                self.syncfs.fetch_add(1, Ordering::Relaxed);
                self.io
                    .sync_filesystem(fs)
                    .map_err(|e| StorageError::io("syncfs", Path::new("."), e))
            }
            None => Ok(()),
        }
    }

    /// Queue a partition that has unsynced writes.
    pub(crate) fn push(&self, p: Arc<dyn Syncable>) {
        let mut st = self.lock();
        st.dirty.push(p);
        let idle = st.idle;
        drop(st);
        if idle {
            self.wake.notify_one();
        }
    }

    /// Counters so far.
    pub fn stats(&self) -> SyncStats {
        SyncStats {
            rounds: self.rounds.load(Ordering::Relaxed),
            fsyncs: self.fsyncs.load(Ordering::Relaxed),
            syncfs: self.syncfs.load(Ordering::Relaxed),
        }
    }

    /// Watch the sync generation: it changes after every round.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.generation.subscribe()
    }

    /// Start the sync thread for `policy` (none for `never`).
    pub fn start(self: &Arc<Self>, policy: FsyncPolicy) -> Option<JoinHandle<()>> {
        let interval = match policy {
            FsyncPolicy::Never => return None,
            FsyncPolicy::Always => None,
            FsyncPolicy::Interval(d) => Some(d),
        };
        let q = self.clone();
        let handle = std::thread::Builder::new()
            .name("hermit-sync".into())
            .spawn(move || q.run(interval))
            .expect("invariant: the OS can start one thread at startup");
        Some(handle)
    }

    fn run(&self, interval: Option<Duration>) {
        let mut next_round = Instant::now();
        loop {
            let batch = {
                let mut st = self.lock();
                loop {
                    if st.shutdown {
                        break;
                    }
                    match interval {
                        None if !st.dirty.is_empty() || st.catalog_dirty => break,
                        None => {
                            st.idle = true;
                            st = self.wake.wait(st).unwrap_or_else(|p| p.into_inner());
                            st.idle = false;
                        }
                        Some(_) => {
                            let now = Instant::now();
                            if now >= next_round {
                                break;
                            }
                            st = self
                                .wake
                                .wait_timeout(st, next_round - now)
                                .unwrap_or_else(|p| p.into_inner())
                                .0;
                        }
                    }
                }
                st.catalog_dirty = false;
                std::mem::take(&mut st.dirty)
            };
            if let Some(d) = interval {
                next_round = Instant::now() + d;
            }
            let shutdown = self.lock().shutdown;
            self.round(&batch);
            if shutdown && self.lock().dirty.is_empty() {
                return;
            }
        }
    }

    /// Run one round now, on this thread, over what is queued (the log's
    /// [`manual_sync`](super::LogOptions::manual_sync) mode, where no
    /// thread runs them).
    pub(crate) fn round_now(&self) {
        let batch = {
            let mut st = self.lock();
            st.catalog_dirty = false;
            std::mem::take(&mut st.dirty)
        };
        self.round(&batch);
    }

    /// One group commit over `batch`: the catalog, then every partition,
    /// then a new generation for the durable-ack waiters.
    fn round(&self, batch: &[Arc<dyn Syncable>]) {
        let started = Instant::now();
        {
            self.rounds.fetch_add(1, Ordering::Relaxed);
            // The catalog goes first: a record's acknowledgement waits for its
            // partition's sync, so its topic's creation (written before the
            // record, so before the partition was queued) is durable by then.
            if batch.len() >= SYNCFS_MIN && self.fs.get().is_some() {
                self.sync_round_whole(batch);
            } else {
                if let Some(c) = self.catalog.get()
                    && let Err(e) = c.sync()
                {
                    tracing::error!(error = %e, "group commit fsync of the topic catalog failed");
                }
                // Partitions in slots of one slab share one fdatasync,
                // issued after all their targets are captured.
                let mut slabs: Vec<SlabRound<'_>> = Vec::new();
                for p in batch {
                    p.dequeued();
                    let done = match p.sync_target() {
                        Ok(Some((t, file))) if file.is_slot() => {
                            match slabs
                                .iter_mut()
                                .find(|(f, _)| Arc::ptr_eq(&f.file, &file.file))
                            {
                                Some((_, ps)) => ps.push((p, t)),
                                None => slabs.push((file, vec![(p, t)])),
                            }
                            continue;
                        }
                        Ok(None) => Ok(false),
                        Ok(Some(_)) => p.sync(),
                        Err(e) => Err(e),
                    };
                    match done {
                        Ok(true) => {
                            self.fsyncs.fetch_add(1, Ordering::Relaxed);
                        }
                        Ok(false) => {}
                        Err(e) => {
                            tracing::error!(topic = p.topic(), partition = p.id(), error = %e, "group commit fsync failed");
                        }
                    }
                }
                for (file, ps) in slabs {
                    match self.io.sync_data(&file.file) {
                        Ok(()) => {
                            self.fsyncs.fetch_add(1, Ordering::Relaxed);
                            for (p, t) in ps {
                                p.synced_to(t);
                            }
                        }
                        Err(e) => {
                            let e = StorageError::io("fsync", &file.path, e);
                            tracing::error!(slab = %file.path.display(), error = %e, "group commit fsync of a slab failed");
                            for (p, _) in ps {
                                p.sync_failed(&e);
                            }
                        }
                    }
                }
            }
            self.round_ns.observe_since(started);
            self.round_partitions.observe(batch.len() as u64);
            self.generation.send_modify(|g| *g += 1);
        }
    }

    /// Durations of rounds (ns) and partitions per round.
    pub fn histograms(&self) -> (&Histogram, &Histogram) {
        (&self.round_ns, &self.round_partitions)
    }

    /// One round by one `syncfs`: capture what each partition (and the
    /// catalog) has written, sync the whole file system — data and
    /// directory entries — then advance them all. On an error every one of
    /// them fails: `syncfs` does not say which file's writeback failed.
    fn sync_round_whole(&self, batch: &[Arc<dyn Syncable>]) {
        let catalog = self.catalog.get();
        if let Some(c) = catalog
            && let Err(e) = c.flush()
        {
            tracing::error!(error = %e, "group commit write of the topic catalog failed");
        }
        let catalog_len = catalog.and_then(|c| c.unsynced());
        let mut targets = Vec::with_capacity(batch.len());
        for p in batch {
            p.dequeued();
            match p.sync_target() {
                Ok(Some((t, _))) => targets.push((p, t)),
                Ok(None) => {}
                Err(e) => {
                    tracing::error!(topic = p.topic(), partition = p.id(), error = %e, "group commit fsync failed");
                }
            }
        }
        match self.sync_filesystem() {
            Ok(()) => {
                if let (Some(c), Some(len)) = (catalog, catalog_len) {
                    c.mark_synced(len);
                }
                for (p, t) in targets {
                    p.synced_to(t);
                }
            }
            Err(e) => {
                if let (Some(c), Some(_)) = (catalog, catalog_len) {
                    c.mark_failed(e.to_string());
                }
                for (p, _) in targets {
                    p.sync_failed(&e);
                }
            }
        }
    }

    /// Drop what is queued, unsynced (a log dropped without a close and
    /// with no thread: as after a crash).
    pub(crate) fn discard(&self) {
        let dirty = std::mem::take(&mut self.lock().dirty);
        drop(dirty);
    }

    /// Ask the thread to finish its last round and stop.
    pub fn shutdown(&self) {
        self.lock().shutdown = true;
        self.wake.notify_all();
    }
}
