//! The log: the broker's storage. A data directory of topics, each a set
//! of partitions, each a segmented write-ahead log.
//!
//! # Layout
//! - [`options`]: the storage options ([`LogOptions`]) and their checks.
//! - [`layout`]: where things are in a data directory.
//! - [`topic`]: topics as the log holds them, and their effective policy.
//! - [`reader`]: the segment reader, the only way to scan a log file.
//! - [`index`]: the sparse, memory-mapped offset index.
//! - [`segment`]: file naming, rolled segments, verification.
//! - [`slab`]: slots, where small partitions keep their log.
//! - [`catalog`]: the topic catalog, one append-only file.
//! - `files`: the open-file budget the partitions count their files in.
//! - `cache`: the open partitions, an LRU bounded by the files they hold.
//! - [`partition`]: append, zero-copy reads, group-commit fsync, recovery, retention.
//! - [`check`]: offline, read-only verification and dump of a data directory.
//! - [`compaction`]: keep the newest batch per key, with an atomic swap.
//! - [`sync`]: the group-commit thread.
//! - [`clock`]: the broker clock append times and retention are measured with.
//! - [`lock`]: the data directory lock.
//! - [`io`]: the I/O seam every change to the disk goes through.
//! - [`fsutil`]: durable directory and file replacement helpers.
//! - [`error`]: the error type, [`StorageError`], with paths in every I/O error.
//!
//! ```text
//! <data_dir>/LOCK
//! <data_dir>/catalog                 the topics (append-only, see [`catalog`])
//! <data_dir>/slabs/<n:08x>           the slots of small partitions (see [`slab`])
//! <data_dir>/partitions/<topic>@<partition>@<incarnation:016x>/<base:020>.log|.idx
//! <data_dir>/trash/                  partitions being deleted
//! ```

mod cache;
pub mod catalog;
pub mod check;
pub mod clock;
pub mod compaction;
pub mod error;
mod files;
pub mod fsutil;
pub mod index;
pub mod io;
pub mod layout;
pub mod lock;
pub mod options;
pub mod partition;
pub mod reader;
pub mod segment;
pub mod slab;
pub mod sync;
pub mod topic;

use std::collections::BTreeSet;
use std::fs::{self, File};
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, RwLock};
use std::thread::JoinHandle;

use hermit_protocol::frame::TopicSettings;
use hermit_protocol::{Cleanup, TopicName};

pub use error::{Corruption, Result, StorageError};
pub use layout::{CLEAN_FILE, PARTITIONS_DIR, parse_partition_dir, partition_dir};
pub use options::{FsyncPolicy, InvalidOption, Limit, LogOptions, RecoveryMode, VerifyRolled};
pub use partition::{Appended, FileRange, Partition, ReadOutcome, ScanCheck, ScanScope};
pub use topic::{Topic, TopicPolicy};

use crate::metrics::{Histogram, PartitionStats};
use cache::OpenPartitions;
pub use catalog::StoredSettings;
use catalog::{Catalog, Entry};
use error::IoContext;
use layout::unique_name;
use lock::DirLock;
use sync::SyncQueue;
use topic::ByName;

/// The log of one broker: its topics and their partitions. It knows no
/// consumer groups; the engine (`Engine`) keeps their offsets
/// above it, in one of its topics.
pub struct Log {
    dir: PathBuf,
    opts: Arc<LogOptions>,
    topics: RwLock<BTreeSet<ByName>>,
    catalog: Arc<Catalog>,
    slabs: slab::Slabs,
    open: Arc<Mutex<OpenPartitions>>,
    /// Serialises opening partitions, so each has one instance (hits in the
    /// cache never take it).
    opening: Mutex<()>,
    /// Serialises topic creation and deletion (not the data path).
    admin: Mutex<()>,
    /// The last incarnation handed out.
    last_incarnation: AtomicU64,
    /// When `partitions/` last changed before this start: no partition
    /// directory there has a later incarnation.
    dirs_before: u64,
    /// The last run closed cleanly ([`CLEAN_FILE`] was there): everything
    /// on disk is durable, so opening a partition fsyncs nothing it does
    /// not change.
    started_clean: bool,
    /// The newest incarnation at the start: topics after it were created
    /// in this run, and hold nothing of an earlier one.
    first_incarnation: u64,
    /// Whether the partition directories were surveyed for `cleanup_due`
    /// since the start (once, by the cleaner).
    surveyed: AtomicBool,
    sync: Arc<SyncQueue>,
    sync_thread: Mutex<Option<JoinHandle<()>>>,
    stop: Arc<AtomicBool>,
    /// Partition lookups the cache answered, and opens it had to make.
    cache_hits: AtomicU64,
    cache_misses: AtomicU64,
    /// The traffic of topics deleted in this run (see [`Log::traffic_totals`]).
    retired: PartitionStats,
    _lock: DirLock,
}

impl std::fmt::Debug for Log {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Log")
            .field("dir", &self.dir)
            .finish_non_exhaustive()
    }
}

impl Log {
    /// Open (and recover) the data directory, creating it if needed. Takes
    /// the directory lock, reads the topic catalog and starts the
    /// group-commit thread. No partition is opened: each is opened — and
    /// its active segment recovered — before its first read or write.
    pub fn open(dir: &Path, opts: LogOptions) -> Result<Log> {
        let io = opts.io.clone();
        if !dir.exists() {
            fsutil::create_dir_durable(&io, dir)?;
        }
        let lock = DirLock::acquire(dir)?;
        let opts = Arc::new(opts);
        let clean = dir.join(CLEAN_FILE);
        let started_clean = clean.exists();
        if started_clean {
            // Gone before this run writes anything: a crash in it must not
            // pass for a clean close.
            io.remove_file(&clean)
                .ctx("remove clean-close marker", &clean)?;
            fsutil::fsync_dir(&io, dir)?;
        }
        if dir.join("topics").exists() && !dir.join(catalog::CATALOG_FILE).exists() {
            return Err(StorageError::OldLayout {
                path: dir.to_path_buf(),
            });
        }
        let parts_dir = dir.join(PARTITIONS_DIR);
        if !parts_dir.exists() {
            fsutil::create_dir_durable(&io, &parts_dir)?;
        }
        let trash = dir.join("trash");
        if trash.exists() {
            io.remove_dir_all(&trash).ctx("empty trash", &trash)?;
        }
        catalog::remove_leftovers(&io, dir);
        let open = OpenPartitions::new(opts.open_files);
        let files = open.lock().unwrap_or_else(|p| p.into_inner()).counter();
        let slabs = slab::Slabs::open(dir, 0, files, io.clone())?;
        // A deleted topic's slots and incarnation are never handed out again
        // either: while its entries are in the catalog, every start releases
        // those slots again (and its delete entry names that incarnation).
        let (mut slot_floor, mut last_incarnation) = (0, 0);
        let (catalog, live) = Catalog::open(dir, opts.recovery_mode, &io, |deleted| {
            // A deletion is durable in the catalog before its directories go;
            // a crash in between leaves them: remove them before the catalog
            // forgets which they were.
            for (_, pdir) in deleted.iter().flat_map(|e| e.partition_dirs(dir)) {
                if pdir.exists() {
                    tracing::warn!(dir = %pdir.display(), "removing a deleted topic's partition left by a crash");
                    io.remove_dir_all(&pdir)
                        .ctx("remove deleted partition", &pdir)?;
                }
            }
            for e in deleted {
                if let Entry::Create {
                    first_slot,
                    settings,
                    incarnation,
                    ..
                } = e
                {
                    last_incarnation = last_incarnation.max(*incarnation);
                    if let Some(s) = first_slot {
                        let end = *s + u64::from(settings.partitions);
                        slot_floor = slot_floor.max(end);
                        for slot in *s..end {
                            slabs.release(slot)?;
                        }
                    }
                }
            }
            fsutil::fsync_dir(&io, &parts_dir)
        })?;
        let mut topics = BTreeSet::new();
        for e in live {
            if let Entry::Create {
                name,
                incarnation,
                settings,
                first_slot,
            } = e
            {
                last_incarnation = last_incarnation.max(incarnation);
                if let Some(s) = first_slot {
                    slot_floor = slot_floor.max(s + u64::from(settings.partitions));
                }
                let policy = TopicPolicy::of(&settings, &opts);
                topics.replace(ByName(Arc::new(Topic {
                    name: name.into_boxed_str(),
                    incarnation,
                    partitions: settings.partitions,
                    policy,
                    first_slot,
                    opened: AtomicU64::new(0),
                    stats: OnceLock::new(),
                })));
            }
        }
        slabs.raise_floor(slot_floor);
        // A creation whose catalog entry a crash tore out may have left a
        // partition directory; its incarnation is the clock before that
        // directory was made, so at most the time `partitions/` last changed
        // (its mtime, durable with the entry). A creation past it cannot
        // meet one and looks for none.
        let dirs_before = fs::metadata(&parts_dir)
            .and_then(|m| m.modified())
            .map(clock::ns_of)
            .ctx("stat partitions directory", &parts_dir)?;
        if opts.fsync == FsyncPolicy::Always {
            // Nothing is acknowledged before a round syncs the catalog: its
            // appends wait for that round, which writes them all at once.
            catalog.defer_writes();
        }
        let catalog = Arc::new(catalog);
        let sync = SyncQueue::new(io.clone());
        let fs_handle = File::open(dir).ctx("open data directory", dir)?;
        sync.attach(catalog.clone(), fs_handle);
        let sync_thread = if opts.manual_sync {
            None
        } else {
            sync.start(opts.fsync)
        };
        let log = Log {
            dir: dir.to_path_buf(),
            open,
            slabs,
            opts,
            topics: RwLock::new(topics),
            catalog,
            opening: Mutex::new(()),
            admin: Mutex::new(()),
            last_incarnation: AtomicU64::new(last_incarnation),
            dirs_before,
            started_clean,
            first_incarnation: last_incarnation,
            surveyed: AtomicBool::new(false),
            sync,
            sync_thread: Mutex::new(sync_thread),
            stop: Arc::new(AtomicBool::new(false)),
            cache_hits: AtomicU64::new(0),
            cache_misses: AtomicU64::new(0),
            retired: PartitionStats::default(),
            _lock: lock,
        };
        if log.opts.verify_rolled == VerifyRolled::Startup {
            // Every rolled segment verified before serving: this opens every
            // partition once (through the cache, so within its file budget).
            log.verify_all()?;
        }
        Ok(log)
    }

    /// Run one group-commit round now, on this thread: the catalog, then
    /// every partition queued since the last round. Only under
    /// [`LogOptions::manual_sync`], where no thread runs rounds; otherwise
    /// the sync thread owns them and this does nothing.
    pub fn sync_round(&self) {
        if self.opts.manual_sync {
            self.sync.round_now();
        }
    }

    /// The data directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The storage options.
    pub fn options(&self) -> &LogOptions {
        &self.opts
    }

    /// Watch the group-commit generation (changes after every fsync round).
    pub fn sync_generation(&self) -> tokio::sync::watch::Receiver<u64> {
        self.sync.subscribe()
    }

    /// Group-commit counters (rounds and partition fsyncs so far).
    pub fn sync_stats(&self) -> sync::SyncStats {
        self.sync.stats()
    }

    /// Durations of group-commit rounds (ns) and partitions per round.
    pub fn sync_histograms(&self) -> (&Histogram, &Histogram) {
        self.sync.histograms()
    }

    /// Partition lookups found open in the cache, and partitions opened
    /// because they were not.
    pub fn cache_stats(&self) -> (u64, u64) {
        (
            self.cache_hits.load(Ordering::Relaxed),
            self.cache_misses.load(Ordering::Relaxed),
        )
    }

    /// Whether the last run closed cleanly (nothing was left to recover).
    pub fn started_clean(&self) -> bool {
        self.started_clean
    }

    /// Traffic of every topic since the start, deleted ones included:
    /// `[records_in, bytes_in, records_out, bytes_out]`. Walks every topic.
    pub fn traffic_totals(&self) -> [u64; 4] {
        let mut sum = self.retired.totals();
        for t in self.read_topics().iter() {
            if let Some(stats) = t.0.stats() {
                for s in stats.iter() {
                    for (acc, v) in sum.iter_mut().zip(s.totals()) {
                        *acc = acc.saturating_add(v);
                    }
                }
            }
        }
        sum
    }

    /// Partition `partition` of `topic` if it is open, without counting a
    /// cache hit or keeping it open longer (for observers such as metrics).
    pub fn peek_partition(&self, topic: &Topic, partition: u32) -> Option<Arc<Partition>> {
        self.lock_open().peek((topic.incarnation, partition))
    }

    /// After a crash, recover now every partition that has a directory
    /// (opening it walks, truncates and fsyncs its active segment), so the
    /// broker is ready only once that is done and no request waits for a
    /// large recovery. Partitions in slots (a 4 KiB segment each) are left
    /// to their first use. Nothing to do after a clean close. A partition
    /// that cannot be opened is reported and left for its first use, which
    /// fails alone. Returns the partitions recovered.
    pub fn recover_partition_dirs(&self) -> Result<usize> {
        if self.started_clean {
            return Ok(0);
        }
        let parts_dir = self.dir.join(PARTITIONS_DIR);
        let by_incarnation: std::collections::HashMap<u64, Arc<Topic>> = self
            .read_topics()
            .iter()
            .map(|t| (t.0.incarnation, t.0.clone()))
            .collect();
        let mut recovered = 0;
        for entry in fs::read_dir(&parts_dir).ctx("list partitions", &parts_dir)? {
            let entry = entry.ctx("list partitions", &parts_dir)?;
            let name = entry.file_name();
            let Some((_, p, inc)) = name.to_str().and_then(parse_partition_dir) else {
                continue;
            };
            let Some(topic) = by_incarnation.get(&inc).filter(|t| p < t.partitions) else {
                continue;
            };
            if self.is_open(topic, p) {
                // Opened (so recovered) already, e.g. the group offsets.
                continue;
            }
            match self.open_partition(topic, p) {
                Ok(_) => recovered += 1,
                Err(e) => tracing::error!(
                    topic = topic.name(), partition = p, error = %e,
                    "cannot recover partition at start; it fails alone when used"
                ),
            }
        }
        Ok(recovered)
    }

    fn read_topics(&self) -> std::sync::RwLockReadGuard<'_, BTreeSet<ByName>> {
        self.topics.read().unwrap_or_else(|p| p.into_inner())
    }

    fn lock_open(&self) -> MutexGuard<'_, OpenPartitions> {
        self.open.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A topic by name.
    pub fn topic(&self, name: &str) -> Option<Arc<Topic>> {
        self.read_topics().get(name).map(|t| t.0.clone())
    }

    /// Number of topics, internal ones included.
    pub fn topic_count(&self) -> usize {
        self.read_topics().len()
    }

    /// Every topic, internal ones included, sorted by name. Holds them all:
    /// for listings use [`Log::topics_after`].
    pub fn topics(&self) -> Vec<Arc<Topic>> {
        self.read_topics().iter().map(|t| t.0.clone()).collect()
    }

    /// At most `limit` topics whose names sort after `after` (from the
    /// first with `None`), in name order, internal ones included: one page
    /// of a listing that never holds every topic at once.
    pub fn topics_after(&self, after: Option<&str>, limit: usize) -> Vec<Arc<Topic>> {
        let topics = self.read_topics();
        let from = match after {
            Some(a) => topics.range::<str, _>((Bound::Excluded(a), Bound::Unbounded)),
            None => topics.range::<str, _>(..),
        };
        from.take(limit).map(|t| t.0.clone()).collect()
    }

    /// Files held open by partitions now (segment files; memory maps of
    /// indexes hold none). At most [`LogOptions::open_files`] plus what the
    /// partitions in use hold.
    pub fn open_files(&self) -> usize {
        self.lock_open().files()
    }

    /// Partitions open now, and partitions closed to keep within
    /// `open_files` since the start.
    pub fn open_partitions(&self) -> (usize, u64) {
        let open = self.lock_open();
        (open.len(), open.evictions)
    }

    /// A partition; with `create`, an unknown topic is created with the
    /// default settings when `auto_create` is on. Opens it if it is not
    /// open (see [`Log::open_partition`]).
    pub fn partition(&self, topic: &str, partition: u32, create: bool) -> Result<Arc<Partition>> {
        let t = match self.topic(topic) {
            Some(t) => t,
            None if create && self.opts.auto_create => {
                match self.create_opening(topic, self.auto_settings(), true, Some(partition), None)
                {
                    Ok((_, Some(p))) => return Ok(p),
                    Ok((t, None)) => t,
                    // Another connection created it first.
                    Err(StorageError::TopicExists(_)) => self
                        .topic(topic)
                        .ok_or_else(|| StorageError::UnknownTopic(topic.to_owned()))?,
                    Err(e) => return Err(e),
                }
            }
            None => return Err(StorageError::UnknownTopic(topic.to_owned())),
        };
        self.open_partition(&t, partition)
    }

    /// The settings of a topic created on first use.
    fn auto_settings(&self) -> TopicSettings {
        TopicSettings {
            partitions: self.opts.default_partitions,
            cleanup: Cleanup::Delete,
            retention_ms: 0,
            retention_bytes: 0,
        }
    }

    /// Create the unknown topic `topic` on first use (as
    /// [`Log::partition`] with `create` does) and return its partition
    /// `partition` — without reading anything, when the topic gets slots:
    /// its slots hold nothing yet. So this may be called from async
    /// threads; it writes the catalog entry (one small `write`, like an
    /// append) and, once per 65,536 topics, creates a slab file. `Ok(None)`
    /// when that does not apply — slots or auto-creation are off, the topic
    /// exists by now, or a creation or deletion holds the admin lock (a
    /// deletion holds it across fsyncs) — and the caller uses
    /// [`Log::partition`] off the async threads.
    pub fn auto_create_in_slot(
        &self,
        topic: &str,
        partition: u32,
    ) -> Result<Option<Arc<Partition>>> {
        if !self.opts.auto_create || !self.opts.partition_slots {
            return Ok(None);
        }
        // A deletion holds the admin lock across fsyncs: never wait for it here.
        let admin = match self.admin.try_lock() {
            Ok(g) => g,
            Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => return Ok(None),
        };
        match self.create_opening(
            topic,
            self.auto_settings(),
            true,
            Some(partition),
            Some(admin),
        ) {
            Ok((_, p)) => Ok(p),
            Err(StorageError::TopicExists(_)) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The partition if it is open now; `Ok(None)` if it exists but is
    /// closed (opening it does file I/O: callers on async threads open it
    /// elsewhere, with [`Log::partition`]). Unknown topics and partitions
    /// are errors, as in [`Log::partition`] without `create`.
    pub fn partition_if_open(&self, topic: &str, partition: u32) -> Result<Option<Arc<Partition>>> {
        let t = self
            .topic(topic)
            .ok_or_else(|| StorageError::UnknownTopic(topic.to_owned()))?;
        if partition >= t.partitions {
            return Err(StorageError::UnknownPartition {
                topic: topic.to_owned(),
                partition,
                count: t.partitions,
            });
        }
        let open = self.lock_open().get((t.incarnation, partition));
        if open.is_some() {
            self.cache_hits.fetch_add(1, Ordering::Relaxed);
        }
        Ok(open)
    }

    /// Whether partition `partition` of `topic` is open now (a read or
    /// write of it costs no open).
    pub fn is_open(&self, topic: &Topic, partition: u32) -> bool {
        self.lock_open()
            .peek((topic.incarnation, partition))
            .is_some()
    }

    /// Partition `partition` of `topic`, opened (and its active segment
    /// recovered) if it is not open. Opening may close idle partitions to
    /// stay within `open_files`.
    pub fn open_partition(&self, topic: &Arc<Topic>, partition: u32) -> Result<Arc<Partition>> {
        if partition >= topic.partitions {
            return Err(StorageError::UnknownPartition {
                topic: topic.name().to_owned(),
                partition,
                count: topic.partitions,
            });
        }
        let key = (topic.incarnation, partition);
        let hit = {
            let mut open = self.lock_open();
            open.get(key).map(|p| (p, open.trim()))
        };
        if let Some((p, closed)) = hit {
            drop(closed);
            self.cache_hits.fetch_add(1, Ordering::Relaxed);
            return Ok(p);
        }
        let _opening = self.opening.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(p) = self.lock_open().get(key) {
            return Ok(p);
        }
        if self.stop.load(Ordering::SeqCst) {
            return Err(StorageError::ShuttingDown);
        }
        // Deleted while we waited: its files are gone or going.
        let current = self.topic(topic.name());
        if current.is_none_or(|t| t.incarnation != topic.incarnation) {
            return Err(StorageError::UnknownTopic(topic.name().to_owned()));
        }
        let pdir = partition_dir(&self.dir, topic.name(), partition, topic.incarnation);
        // A partition that moved out of its slot has its directory.
        let slot = match topic.slot(partition) {
            Some(s) if !pdir.exists() => Some(self.slabs.segment(s)?),
            _ => None,
        };
        let p = Partition::open_created(
            pdir,
            topic.name(),
            partition,
            self.opts.clone(),
            topic.policy,
            Some(self.sync.clone()),
            partition::Placement {
                created_ns: Some(topic.incarnation),
                slot,
                fresh: false,
                durable: self.durable_on_disk(topic, partition),
            },
        )?;
        if partition < 64 {
            topic.opened.fetch_or(1 << partition, Ordering::AcqRel);
        }
        count_into_topic(topic, &p);
        self.cache_misses.fetch_add(1, Ordering::Relaxed);
        let closed = self.lock_open().insert(key, p.clone());
        // Dropped outside the cache's lock: closing files takes syscalls.
        drop(closed);
        Ok(p)
    }

    /// Whether partition `partition` of `topic` can hold nothing unsynced
    /// on disk, so that opening it needs no recovery fsync: the last run
    /// closed cleanly, or nothing of it comes from an earlier run (the
    /// topic is new, or the partition was opened — and its recovered bytes
    /// fsynced — in this run; a partition the cache closed since had
    /// nothing unsynced under `always` and `interval`, and `never`
    /// promises nothing).
    fn durable_on_disk(&self, topic: &Topic, partition: u32) -> bool {
        self.started_clean
            || topic.incarnation > self.first_incarnation
            || (partition < 64 && topic.opened.load(Ordering::Acquire) & (1 << partition) != 0)
    }

    /// Find the closed partitions with rolled segments (once per start, in
    /// the cleaner): one directory listing per partition directory.
    /// Directories the catalog does not know are reported, never removed:
    /// after a crash they hold only unacknowledged writes, but after corruption
    /// to the catalog they may hold data an operator wants back.
    fn survey(&self) -> Result<()> {
        let parts_dir = self.dir.join(PARTITIONS_DIR);
        let owners: std::collections::HashMap<u64, u32> = self
            .read_topics()
            .iter()
            .map(|t| (t.0.incarnation, t.0.partitions))
            .collect();
        let mut unknown = Vec::new();
        let mut found = Vec::new();
        for entry in fs::read_dir(&parts_dir).ctx("list partitions", &parts_dir)? {
            if self.stop.load(Ordering::SeqCst) {
                return Ok(());
            }
            let entry = entry.ctx("list partitions", &parts_dir)?;
            let name = entry.file_name();
            let known = name
                .to_str()
                .and_then(parse_partition_dir)
                .filter(|(_, p, inc)| owners.get(inc).is_some_and(|n| p < n));
            let Some((_, p, inc)) = known else {
                unknown.push(entry.path());
                continue;
            };
            let logs = fs::read_dir(entry.path())
                .map(|d| {
                    d.filter_map(|e| e.ok())
                        .filter(|e| e.file_name().to_str().is_some_and(|n| n.ends_with(".log")))
                        .count()
                })
                .unwrap_or(0);
            if logs > 1 {
                found.push((inc, p));
            }
        }
        if !unknown.is_empty() {
            tracing::warn!(
                count = unknown.len(),
                first = %unknown[0].display(),
                "partition directories that no topic in the catalog owns (left by a crash \
                 during their topic's creation, or by a corrupt catalog): left alone"
            );
        }
        self.lock_open().cleanup_due.extend(found);
        Ok(())
    }

    /// Create a topic. Retention values of 0 mean "the broker default".
    /// Returns once the creation is durable (under `fsync = never`, once it
    /// is written).
    pub fn create_topic(&self, name: &str, settings: TopicSettings) -> Result<Arc<Topic>> {
        self.create_opening(name, settings, false, None, None)
            .map(|(t, _)| t)
    }

    /// Create a topic: one catalog append. `auto_created`: on first use, not
    /// by request (for the audit log); such a creation is not waited for —
    /// the durable acknowledgement of the record that caused it waits for
    /// the group commit, which fsyncs the catalog before any partition.
    ///
    /// With `open`, partition `open` of a topic given slots is opened at
    /// once, with no I/O (its slot holds nothing), and returned; it is in
    /// the open partitions before the topic can be found, so that it has one
    /// instance. Otherwise (or if there is no such partition) `None`.
    /// `admin`: the admin lock, if the caller took it already.
    fn create_opening(
        &self,
        name: &str,
        settings: TopicSettings,
        auto_created: bool,
        open: Option<u32>,
        admin: Option<MutexGuard<'_, ()>>,
    ) -> Result<(Arc<Topic>, Option<Arc<Partition>>)> {
        TopicName::new_any(name).map_err(|source| {
            StorageError::InvalidBatch(hermit_protocol::WireError::InvalidName {
                what: "topic",
                source,
            })
        })?;
        if settings.partitions == 0 || settings.partitions > hermit_protocol::frame::MAX_PARTITIONS
        {
            return Err(StorageError::InvalidTopicSettings(format!(
                "partitions must be between 1 and {}",
                hermit_protocol::frame::MAX_PARTITIONS
            )));
        }
        let stored = StoredSettings {
            partitions: settings.partitions,
            cleanup: settings.cleanup,
            retention_ms: (settings.retention_ms != 0).then_some(settings.retention_ms),
            retention_bytes: (settings.retention_bytes != 0).then_some(settings.retention_bytes),
        };
        let (topic, opened, end) = {
            let _admin =
                admin.unwrap_or_else(|| self.admin.lock().unwrap_or_else(|p| p.into_inner()));
            if self.stop.load(Ordering::SeqCst) {
                return Err(StorageError::ShuttingDown);
            }
            if self.topic(name).is_some() {
                return Err(StorageError::TopicExists(name.to_owned()));
            }
            // Strictly increasing, even if the clock stepped back.
            let incarnation = clock::now_ns().max(self.last_incarnation.load(Ordering::SeqCst) + 1);
            self.last_incarnation.store(incarnation, Ordering::SeqCst);
            if incarnation <= self.dirs_before {
                // A lost creation with this very clock reading may have left
                // a directory (see `Log::open`); never reuse what it holds.
                for p in 0..settings.partitions {
                    let pdir = partition_dir(&self.dir, name, p, incarnation);
                    if pdir.exists() {
                        tracing::warn!(dir = %pdir.display(), "removing a leftover directory of a lost topic creation");
                        self.opts
                            .io
                            .remove_dir_all(&pdir)
                            .ctx("remove leftover partition", &pdir)?;
                    }
                }
            }
            let first_slot = self
                .opts
                .partition_slots
                .then(|| self.slabs.reserve(settings.partitions));
            // Before the entry: a failure must leave no topic behind.
            let fresh_slot = match (open, first_slot) {
                (Some(p), Some(s)) if p < settings.partitions => {
                    Some(self.slabs.segment(s + u64::from(p))?)
                }
                _ => None,
            };
            let end = self.catalog.append(&Entry::Create {
                name: name.to_owned(),
                incarnation,
                settings: stored,
                first_slot,
            })?;
            let topic = Arc::new(Topic {
                name: name.into(),
                incarnation,
                partitions: settings.partitions,
                policy: TopicPolicy::of(&stored, &self.opts),
                first_slot,
                opened: AtomicU64::new(0),
                stats: OnceLock::new(),
            });
            let opened = match (open, fresh_slot) {
                (Some(p), Some(slot)) => {
                    let part = Partition::open_created(
                        partition_dir(&self.dir, name, p, incarnation),
                        name,
                        p,
                        self.opts.clone(),
                        topic.policy,
                        Some(self.sync.clone()),
                        partition::Placement {
                            created_ns: Some(incarnation),
                            slot: Some(slot),
                            fresh: true,
                            durable: true,
                        },
                    )?;
                    count_into_topic(&topic, &part);
                    let closed = self.lock_open().insert((incarnation, p), part.clone());
                    drop(closed);
                    Some(part)
                }
                _ => None,
            };
            self.topics
                .write()
                .unwrap_or_else(|p| p.into_inner())
                .insert(ByName(topic.clone()));
            (topic, opened, end)
        };
        if !auto_created {
            self.wait_catalog(end)?;
        } else {
            // Nobody waits for it: the durable ack of the record that
            // caused it waits for the round that syncs it.
            self.sync.catalog_written();
        }
        // The `audit` target: who changed which topics, for operators to
        // route apart. The storage layer knows no principal or peer; the
        // network layer logs those. Never a key or a payload.
        tracing::info!(
            target: "audit",
            topic = name,
            partitions = settings.partitions,
            cleanup = ?settings.cleanup,
            auto_created,
            "topic created"
        );
        Ok((topic, opened))
    }

    /// Make the catalog durable up to `end`: by the group commit (shared
    /// with other creations and appends), or at once when there is no sync
    /// thread (`fsync = never`, [`LogOptions::manual_sync`]).
    fn wait_catalog(&self, end: u64) -> Result<()> {
        if self.opts.fsync == FsyncPolicy::Never || self.opts.manual_sync {
            self.catalog.sync()?;
            return Ok(());
        }
        self.sync.catalog_dirty();
        self.catalog.wait_synced(end)
    }

    /// Delete a topic: it disappears at once. The deletion is made durable
    /// in the catalog (the commit point), then its partition directories are
    /// moved to `trash/` and removed. Then `before_reuse` runs, while the
    /// name cannot be created again: what a layer above keeps per topic
    /// (group offsets, see
    /// `Engine::delete_topic`) is
    /// dropped there, so a topic created later under the name inherits
    /// nothing. Its error is returned; the topic is gone either way.
    pub fn delete_topic(
        &self,
        name: &str,
        before_reuse: impl FnOnce() -> Result<()>,
    ) -> Result<()> {
        let _admin = self.admin.lock().unwrap_or_else(|p| p.into_inner());
        let topic = self
            .topics
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .take(name)
            .ok_or_else(|| StorageError::UnknownTopic(name.to_owned()))?
            .0;
        // No longer reachable by name. Wait for opens in progress, then
        // close what is open; handles taken before stop appending.
        let closed = {
            let _opening = self.opening.lock().unwrap_or_else(|p| p.into_inner());
            self.lock_open()
                .remove_incarnation(topic.incarnation, topic.partitions)
        };
        for p in &closed {
            p.mark_deleted();
        }
        drop(closed);
        if let Some(stats) = topic.stats() {
            // The totals over all topics must not go back when one goes.
            self.retired.add_all(stats);
        }
        let end = self.catalog.append(&Entry::Delete {
            name: name.to_owned(),
            incarnation: topic.incarnation,
        })?;
        // Durable before any file goes (a crash after this removes the
        // rest at the next start); inline, whatever the fsync policy.
        self.catalog.sync()?;
        self.catalog.wait_synced(end)?;
        let io = &self.opts.io;
        let trash = self.dir.join("trash");
        if !trash.exists() {
            fsutil::create_dir_durable(io, &trash)?;
        }
        let dest = trash.join(unique_name(name));
        io.create_dir(&dest).ctx("create trash directory", &dest)?;
        for p in 0..topic.partitions {
            let pdir = partition_dir(&self.dir, name, p, topic.incarnation);
            if pdir.exists() {
                let to = dest.join(p.to_string());
                io.rename(&pdir, &to)
                    .ctx("move partition to trash", &pdir)?;
            }
        }
        fsutil::fsync_dir(io, &self.dir.join(PARTITIONS_DIR))?;
        for p in 0..topic.partitions {
            if let Some(slot) = topic.slot(p) {
                self.slabs.release(slot)?;
            }
        }
        if let Err(e) = io.remove_dir_all(&dest) {
            tracing::warn!(dir = %dest.display(), error = %e, "could not empty the trash; it is emptied at the next start");
        }
        // Logged once the topic is gone from disk, also when `before_reuse` fails.
        tracing::info!(
            target: "audit",
            topic = name,
            partitions = topic.partitions,
            "topic deleted"
        );
        before_reuse()
    }

    /// Run retention and compaction once over the open partitions and
    /// those known to hold rolled segments (a partition with only its
    /// active segment has nothing to delete or compact).
    pub fn run_cleanup(&self, now_ns: u64) -> Result<()> {
        if !self.surveyed.swap(true, Ordering::SeqCst) {
            self.survey()?;
        }
        for topic in self.topics() {
            for i in 0..topic.partitions {
                if self.stop.load(Ordering::SeqCst) {
                    return Ok(());
                }
                let key = (topic.incarnation, i);
                let open = self.lock_open().peek(key);
                let p = match open {
                    Some(p) => p,
                    None if self.lock_open().cleanup_due.contains(&key) => {
                        self.open_partition(&topic, i)?
                    }
                    None => continue,
                };
                p.enforce_retention(now_ns)?;
                if topic.policy.cleanup == Cleanup::Compact {
                    p.compact(now_ns)?;
                }
                if p.segment_count() <= 1 {
                    self.lock_open().cleanup_due.remove(&key);
                }
            }
        }
        Ok(())
    }

    /// Verify every segment from before this start that is not verified
    /// yet, in the open partitions (and, with `verify_rolled = startup`,
    /// in every partition: each is opened once for it). A partition opened
    /// later verifies its older segments when they are first read.
    pub fn verify_all(&self) -> Result<()> {
        let every = self.opts.verify_rolled == VerifyRolled::Startup;
        for topic in self.topics() {
            for i in 0..topic.partitions {
                let open = self.lock_open().peek((topic.incarnation, i));
                let p = match open {
                    Some(p) => p,
                    None if every => self.open_partition(&topic, i)?,
                    None => continue,
                };
                let mut segs = p.unverified_segments();
                segs.reverse(); // newest first: the likeliest to be read
                for seg in segs {
                    if self.stop.load(Ordering::SeqCst) {
                        return Ok(());
                    }
                    p.verify_segment(&seg)?;
                }
            }
        }
        Ok(())
    }

    /// Start background threads: verification of old segments (when
    /// `verify_rolled = background`) and periodic cleanup.
    pub fn start_background(self: &Arc<Self>, cleanup_every: std::time::Duration) {
        if self.opts.verify_rolled == VerifyRolled::Background {
            let log = Arc::downgrade(self);
            let _ = std::thread::Builder::new()
                .name("hermit-verify".into())
                .spawn(move || {
                    if let Some(log) = log.upgrade()
                        && let Err(e) = log.verify_all()
                    {
                        tracing::error!(error = %e, "background verification failed");
                    }
                });
        }
        let log = Arc::downgrade(self);
        let stop = self.stop.clone();
        let _ = std::thread::Builder::new()
            .name("hermit-cleaner".into())
            .spawn(move || {
                let step = std::time::Duration::from_millis(100);
                let mut waited = std::time::Duration::ZERO;
                while !stop.load(Ordering::SeqCst) {
                    std::thread::sleep(step);
                    waited += step;
                    if waited < cleanup_every {
                        continue;
                    }
                    waited = std::time::Duration::ZERO;
                    let Some(log) = log.upgrade() else { return };
                    if let Err(e) = log.run_cleanup(partition::now_ns()) {
                        tracing::error!(error = %e, "cleanup failed");
                    }
                }
            });
    }

    /// Stop background work, run a last group commit and fsync every
    /// partition and the catalog. Partitions closed earlier to save files
    /// were synced as they were closed, except under `fsync = never`, where
    /// one file-system sync covers them. The directory lock is released
    /// when the `Log` is dropped.
    pub fn close(&self) -> Result<()> {
        self.stop.store(true, Ordering::SeqCst);
        if self.opts.manual_sync {
            self.sync.round_now();
        }
        self.sync.shutdown();
        if let Some(h) = self
            .sync_thread
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
        {
            let _ = h.join();
        }
        let mut first_err = None;
        if self.opts.fsync == FsyncPolicy::Never
            && let Err(e) = self.sync.sync_filesystem()
        {
            tracing::error!(error = %e, "file-system sync at close failed");
            first_err.get_or_insert(e);
        }
        if let Err(e) = self.catalog.sync() {
            first_err.get_or_insert(e);
        }
        let open = self.lock_open().all();
        for p in open {
            if let Err(e) = p.close() {
                tracing::error!(topic = p.topic(), partition = p.id(), error = %e, "close failed");
                first_err.get_or_insert(e);
            }
        }
        if first_err.is_none() {
            // Every partition refuses appends now (closed above, or closed
            // earlier by the cache with nothing unsynced: under `never`
            // the `syncfs` above covered them).
            if let Err(e) =
                fsutil::write_atomic(&self.opts.io, &self.dir.join(CLEAN_FILE), b"clean\n")
            {
                first_err.get_or_insert(e);
            }
        }
        match first_err {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

impl Drop for Log {
    /// Stop the background threads even when `close` was not called (a
    /// simulated crash in tests): they must not outlive the log.
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        self.sync.shutdown();
        if self.opts.manual_sync {
            // No thread takes the queue: what waits there holds the queue
            // back (a partition keeps its queue), and would never be freed.
            self.sync.discard();
        }
    }
}

/// Make `p` (one of `topic`'s partitions) count into `topic`'s stats.
fn count_into_topic(topic: &Topic, p: &Partition) {
    let stats = topic.stats.get_or_init(|| {
        (0..topic.partitions)
            .map(|_| PartitionStats::default())
            .collect()
    });
    p.count_into(stats.clone());
}
