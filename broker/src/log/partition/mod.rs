//! One partition: an ordered list of segments, the append path, the
//! zero-copy read path, group-commit fsync, recovery and retention.
//!
//! Invariant: every segment but the last (the active one) is complete and
//! durable — a roll fsyncs the old segment and writes its index before the
//! new one exists — so only the tail of the active segment can be torn by a
//! crash. Everything else that fails a check is corruption, reported and fenced.
//!
//! # Layout
//! This file holds the [`Partition`] and what it is made of; each step of
//! its life has a file of its own:
//! - [`open`]: opening a partition's directory or slot, and assembling it.
//! - `recover`: recovery of the active segment (or slot) at open.
//! - `slot`: slot placement: moving out of a slot into a directory.
//! - `append`: the append path, one `pwritev` per batch.
//! - `roll`: rolling the active segment over.
//! - `sync`: group-commit fsync, what a sync makes durable, and close.
//! - [`read`]: the zero-copy read path and the lazy verification of rolled segments.
//! - [`scan`]: whole-batch scans (compaction, the offsets store).
//! - `retention`: deleting old segments, and replacing compacted ones.

pub mod open;
pub mod read;
pub mod scan;

mod append;
mod recover;
mod retention;
mod roll;
mod slot;
mod sync;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use tokio::sync::watch;

use super::error::StorageError;
use super::files::FileBudget;
use super::index::IndexBuilder;
use super::options::LogOptions;
use super::segment::{BadRange, RolledSegment, SegmentFile, Verification};
use super::sync::SyncQueue;
use super::topic::{Topic, TopicPolicy};
use crate::metrics::PartitionStats;

pub use super::clock::now_ns;

/// Where an append landed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Appended {
    /// Offset of the batch's first record.
    pub base_offset: u64,
    /// Offset after the batch; durable once [`Partition::synced_offset`] reaches it.
    pub next_offset: u64,
}

/// How far consumers may read: the high watermark, and where it lies on
/// disk — under `fsync = always` that is what is synced, which may trail
/// what is written.
#[derive(Debug, Clone, Copy)]
struct Visible {
    /// The high watermark.
    offset: u64,
    /// The segment it lies in (by base offset), and the byte position
    /// there: a read never serves bytes past it.
    segment_base: u64,
    position: u64,
}

/// The segment being appended to.
struct Active {
    /// The offset of its first batch.
    base: u64,
    /// Its file (for a slot, a range of a slab), shared with readers.
    file: Arc<SegmentFile>,
    /// Where the next batch goes (a file position: in a slot, the slab's).
    size: u64,
    /// Its index, kept in memory and written when the segment rolls.
    index: IndexBuilder,
    /// Broker clock (ns) when the segment got its first batch — the roll
    /// age (`segment_ms`). Producer clocks are not trusted for this: a
    /// skewed one would roll a segment per batch, or never. After a restart
    /// it is a lower bound (see [`Partition::open`]): the segment may roll
    /// early then, never late.
    first_append_ns: Option<u64>,
    /// Broker clock (ns) of the newest append (0: none yet): the segment's
    /// retention age once it rolls, stamped on the file as its mtime.
    last_append_ns: u64,
}

impl Active {
    /// A segment with nothing in it yet, based at `base`.
    fn empty(base: u64, file: Arc<SegmentFile>, index: IndexBuilder) -> Active {
        Active {
            base,
            size: file.origin(),
            file,
            index,
            first_append_ns: None,
            last_append_ns: 0,
        }
    }

    /// Bytes written to the segment.
    fn used(&self) -> u64 {
        self.size - self.file.origin()
    }
}

/// What the partition's lock guards: its segments and offsets.
struct Inner {
    /// The rolled segments, oldest first (shared with readers, who keep a
    /// segment's file open while retention removes it).
    rolled: Vec<Arc<RolledSegment>>,
    active: Active,
    /// The first stored offset.
    log_start: u64,
    /// The offset the next record gets (written, maybe not yet durable).
    next_offset: u64,
    visible: Visible,
    /// Why the partition takes no more writes: a write or fsync failed, and
    /// after a failed fsync the page cache may have dropped what it held.
    failed: Option<String>,
    /// The topic was deleted: appends through a handle taken before are
    /// refused (they would land in files about to be removed).
    deleted: bool,
    /// [`Partition::close`] ran: appends are refused (`ShuttingDown`), so
    /// that nothing lands after the last sync.
    closed: bool,
}

/// One partition of a topic.
pub struct Partition {
    /// Its topic's name (for errors and logs).
    topic: String,
    /// Its number in the topic.
    id: u32,
    /// Its directory (which does not exist while it lives in its slot).
    dir: PathBuf,
    /// The log's options, shared by every partition.
    opts: Arc<LogOptions>,
    /// Its topic's cleanup and retention policy.
    policy: TopicPolicy,
    /// A std mutex, not a tokio one: it is never held across an `.await`,
    /// and appends take it on the caller's thread.
    inner: Mutex<Inner>,
    /// Visible end offset, published to long-polling readers.
    hw_tx: watch::Sender<u64>,
    /// Everything below this offset is on stable storage.
    synced: AtomicU64,
    /// Whether the partition sits in the sync queue (so an append enqueues it at most once).
    queued: AtomicBool,
    /// The log's group commit (none for a partition opened on its own).
    sync_queue: Option<Arc<SyncQueue>>,
    /// Directory entries not fsynced yet ([`DIR_NEW`], [`DIR_PARENT`]): a
    /// partition created on first use leaves them to its first sync, so
    /// that creations share the group commit instead of two fsyncs each.
    dirs_unsynced: AtomicU8,
    /// Its topic's incarnation (creation clock), when the log opened it.
    created_ns: Option<u64>,
    /// The log's count of segment files open in all its partitions (the
    /// `open_files` budget), kept up to date as segments come and go.
    files: OnceLock<FileBudget>,
    /// What this partition has added to `files`.
    files_reported: AtomicUsize,
    /// Its topic, whose traffic counters this partition's count into
    /// (its own are `stats().get(id)`), given by the log once it is opened
    /// ([`Partition::count_into`]).
    stats: OnceLock<Arc<Topic>>,
}

/// The partition directory's entries (its first segment) need an fsync.
const DIR_NEW: u8 = 1;
/// The partition directory's own entry in its parent needs an fsync.
const DIR_PARENT: u8 = 2;

impl std::fmt::Debug for Partition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Partition")
            .field("topic", &self.topic)
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

impl Drop for Partition {
    fn drop(&mut self) {
        if let Some(budget) = self.files.get() {
            budget.remove(self.files_reported.load(Ordering::Acquire));
        }
    }
}

impl Partition {
    /// Topic name.
    pub fn topic(&self) -> &str {
        &self.topic
    }

    /// Count this partition's appends and reads into its topic's traffic
    /// counters from now on. The first call wins.
    pub fn count_into(&self, topic: Arc<Topic>) {
        let _ = self.stats.set(topic);
    }

    /// This partition's traffic counters, once the log gave them.
    pub fn own_stats(&self) -> Option<&PartitionStats> {
        self.stats.get().and_then(|t| t.stats().get(self.id))
    }

    /// Partition number.
    pub fn id(&self) -> u32 {
        self.id
    }

    /// The partition directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The topic's cleanup and retention policy.
    pub fn policy(&self) -> TopicPolicy {
        self.policy
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding the lock cannot leave the on-disk log
        // inconsistent (recovery handles any tail), so poisoning is ignored.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Offset the next record will get (written, maybe not yet durable).
    pub fn next_offset(&self) -> u64 {
        self.lock().next_offset
    }

    /// Everything below this offset is durable.
    pub fn synced_offset(&self) -> u64 {
        self.synced.load(Ordering::Acquire)
    }

    /// Visible end of the log: consumers see offsets below it.
    pub fn high_watermark(&self) -> u64 {
        // Read under the lock that also covers the synced offset's updates,
        // so a reader that saw an offset synced sees it visible too.
        self.lock().visible.offset
    }

    /// First stored offset.
    pub fn log_start(&self) -> u64 {
        self.lock().log_start
    }

    /// `(log_start, high_watermark)` read together.
    pub fn bounds(&self) -> (u64, u64) {
        let inner = self.lock();
        (inner.log_start, inner.visible.offset)
    }

    /// Watch the high watermark (long polls wait on it).
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.hw_tx.subscribe()
    }

    /// How many watch the high watermark now ([`Partition::subscribe`]):
    /// the long polls waiting on this partition.
    pub fn watchers(&self) -> usize {
        self.hw_tx.receiver_count()
    }

    /// The error that failed this partition, if any.
    pub fn failure(&self) -> Option<String> {
        self.lock().failed.clone()
    }

    fn failed_error(&self, reason: &str) -> StorageError {
        StorageError::Failed {
            topic: self.topic.clone(),
            partition: self.id,
            reason: reason.to_owned(),
        }
    }

    /// Count this partition's segment files in `budget` from now on (and
    /// take them out of it when it is dropped).
    pub(crate) fn count_files_in(&self, budget: FileBudget) {
        if self.files.set(budget).is_ok() {
            let inner = self.lock();
            self.report_files(&inner);
        }
    }

    /// Bring the log's file count up to date with this partition's segments.
    fn report_files(&self, inner: &Inner) {
        if let Some(budget) = self.files.get() {
            // A slot's slab is held by the log, not the partition.
            let now = inner.rolled.len() + usize::from(!inner.active.file.is_slot());
            let old = self.files_reported.swap(now, Ordering::AcqRel);
            if now >= old {
                budget.add(now - old);
            } else {
                budget.remove(old - now);
            }
        }
    }

    /// The segment files this partition holds open, as last counted.
    pub(crate) fn files_held(&self) -> usize {
        self.files_reported.load(Ordering::Acquire)
    }

    /// Its topic's incarnation (0 for a partition opened outside a log).
    pub fn incarnation(&self) -> u64 {
        self.created_ns.unwrap_or(0)
    }

    /// Refuses every later append (`UnknownTopic`): called for each
    /// partition by [`Log::delete_topic`](super::Log::delete_topic) before it
    /// moves the files away. An append holding the lock finishes first, so
    /// every append either took effect before the deletion (and went with
    /// the topic) or is refused — none is acknowledged into removed files.
    pub(crate) fn mark_deleted(&self) {
        self.lock().deleted = true;
    }

    /// Number of segments (rolled plus the active one).
    pub fn segment_count(&self) -> usize {
        self.lock().rolled.len() + 1
    }

    /// Total bytes of all segments.
    pub fn size_bytes(&self) -> u64 {
        let inner = self.lock();
        inner.rolled.iter().map(|s| s.size).sum::<u64>() + inner.active.used()
    }

    /// Whether the partition lives in its slot (no directory yet).
    pub fn in_slot(&self) -> bool {
        self.lock().active.file.is_slot()
    }

    /// The options this partition runs with.
    pub(crate) fn options(&self) -> &LogOptions {
        &self.opts
    }

    /// Whether the whole log is `next_offset` past `log_start` and how far is visible (diagnostics).
    pub fn describe(&self) -> (u64, u64, u64, u64) {
        let inner = self.lock();
        (
            inner.log_start,
            inner.visible.offset,
            inner.next_offset,
            self.synced.load(Ordering::Acquire),
        )
    }

    /// Rolled segments not yet verified (for the background verifier).
    pub fn unverified_segments(&self) -> Vec<Arc<RolledSegment>> {
        self.lock()
            .rolled
            .iter()
            .filter(|s| s.verification().is_none())
            .cloned()
            .collect()
    }

    /// Corrupt ranges found so far in rolled segments.
    pub fn corrupt_ranges(&self) -> Vec<BadRange> {
        self.lock()
            .rolled
            .iter()
            .filter_map(|s| s.verification())
            .flat_map(|v: &Verification| v.bad.iter().copied())
            .collect()
    }
}
