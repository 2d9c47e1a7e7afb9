//! The [`Log`]: one broker's storage, opened from its data directory —
//! what it holds, opening it (the catalog read and recovered, the slabs
//! opened, the group-commit thread started) and closing it.

use std::collections::BTreeSet;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::thread::JoinHandle;

use super::cache::OpenPartitions;
use super::catalog::{self, Catalog, Entry};
use super::clock;
use super::error::{IoContext, Result, StorageError};
use super::fsutil;
use super::io::Io;
use super::layout::{CLEAN_FILE, PARTITIONS_DIR, TRASH_DIR};
use super::lock::DirLock;
use super::options::{FsyncPolicy, LogOptions, VerifyRolled};
use super::slab::Slabs;
use super::sync::{SyncQueue, SyncStats};
use super::topic::{ByName, Topic};
use crate::metrics::{Histogram, PartitionStats};

/// The log of one broker: its topics and their partitions. It knows no
/// consumer groups; the engine (`Engine`) keeps their offsets
/// above it, in one of its topics.
pub struct Log {
    /// The data directory.
    pub(super) dir: PathBuf,
    /// The options, shared with every partition it opens.
    pub(super) opts: Arc<LogOptions>,
    /// Every topic, by name: read on every lookup, written only by
    /// creations and deletions.
    pub(super) topics: RwLock<BTreeSet<ByName>>,
    /// The topic catalog; shared with the sync queue, which syncs it first
    /// in every round.
    pub(super) catalog: Arc<Catalog>,
    /// The slab files the slots of small partitions live in.
    pub(super) slabs: Slabs,
    /// The open partitions (an `Arc`: the partitions' file budget holds a
    /// weak reference to ask it to close idle ones).
    pub(super) open: Arc<Mutex<OpenPartitions>>,
    /// Serialises opening partitions, so each has one instance (hits in the
    /// cache never take it).
    pub(super) opening: Mutex<()>,
    /// Serialises topic creation and deletion (not the data path).
    pub(super) admin: Mutex<()>,
    /// The last incarnation handed out.
    pub(super) last_incarnation: AtomicU64,
    /// When `partitions/` last changed before this start: no partition
    /// directory there has a later incarnation.
    pub(super) dirs_before: u64,
    /// The last run closed cleanly ([`CLEAN_FILE`] was there): everything
    /// on disk is durable, so opening a partition fsyncs nothing it does
    /// not change.
    pub(super) started_clean: bool,
    /// The newest incarnation at the start: topics after it were created
    /// in this run, and hold nothing of an earlier one.
    pub(super) first_incarnation: u64,
    /// Whether the partition directories were surveyed for `cleanup_due`
    /// since the start (once, by the cleaner).
    pub(super) surveyed: AtomicBool,
    /// The group commit: partitions with unsynced writes wait here.
    pub(super) sync: Arc<SyncQueue>,
    /// The thread that runs the group commit (none under `fsync = never`
    /// or `manual_sync`), joined by `close`.
    pub(super) sync_thread: Mutex<Option<JoinHandle<()>>>,
    /// Set by `close` (and drop): background work and new opens stop.
    pub(super) stop: Arc<AtomicBool>,
    /// Partition lookups the cache answered, and opens it had to make.
    pub(super) cache_hits: AtomicU64,
    pub(super) cache_misses: AtomicU64,
    /// The traffic of topics deleted in this run (see [`Log::traffic_totals`]).
    pub(super) retired: PartitionStats,
    /// The data directory lock, held for the life of the log.
    pub(super) _lock: DirLock,
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
        let (lock, started_clean) = Self::prepare_dir(dir, &io)?;
        let opts = Arc::new(opts);
        let parts_dir = dir.join(PARTITIONS_DIR);
        let open = OpenPartitions::new(opts.open_files);
        let files = open.lock().unwrap_or_else(|p| p.into_inner()).counter();
        let slabs = Slabs::open(dir, 0, files, io.clone())?;
        let (catalog, topics, last_incarnation) = Self::open_catalog(dir, &opts, &slabs)?;
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

    /// Create the data directory if needed and take its lock; remove the
    /// clean-close marker (returning whether it was there) and what a
    /// crash left in the trash or of a catalog rewrite; refuse the layout
    /// of an older HermitMQ.
    fn prepare_dir(dir: &Path, io: &Io) -> Result<(DirLock, bool)> {
        if !dir.exists() {
            fsutil::create_dir_durable(io, dir)?;
        }
        let lock = DirLock::acquire(dir)?;
        let clean = dir.join(CLEAN_FILE);
        let started_clean = clean.exists();
        if started_clean {
            // Gone before this run writes anything: a crash in it must not
            // pass for a clean close.
            io.remove_file(&clean)
                .ctx("remove clean-close marker", &clean)?;
            fsutil::fsync_dir(io, dir)?;
        }
        if dir.join("topics").exists() && !dir.join(catalog::CATALOG_FILE).exists() {
            return Err(StorageError::OldLayout {
                path: dir.to_path_buf(),
            });
        }
        let parts_dir = dir.join(PARTITIONS_DIR);
        if !parts_dir.exists() {
            fsutil::create_dir_durable(io, &parts_dir)?;
        }
        let trash = dir.join(TRASH_DIR);
        if trash.exists() {
            io.remove_dir_all(&trash).ctx("empty trash", &trash)?;
        }
        catalog::remove_leftovers(io, dir);
        Ok((lock, started_clean))
    }

    /// Open (and recover) the catalog: what a crash left of deleted topics
    /// is removed, their slots released again, and the live topics are
    /// returned with the newest incarnation any entry names. The slabs hand
    /// out no slot an entry names.
    fn open_catalog(
        dir: &Path,
        opts: &LogOptions,
        slabs: &Slabs,
    ) -> Result<(Catalog, BTreeSet<ByName>, u64)> {
        let io = &opts.io;
        let parts_dir = dir.join(PARTITIONS_DIR);
        // A deleted topic's slots and incarnation are never handed out again
        // either: while its entries are in the catalog, every start releases
        // those slots again (and its delete entry names that incarnation).
        let (mut slot_floor, mut last_incarnation) = (0, 0);
        let (catalog, live) = Catalog::open(dir, opts.recovery_mode, io, |deleted| {
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
            fsutil::fsync_dir(io, &parts_dir)
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
                topics.replace(ByName(Arc::new(Topic::new(
                    name.into_boxed_str(),
                    incarnation,
                    &settings,
                    first_slot,
                ))));
            }
        }
        slabs.raise_floor(slot_floor);
        Ok((catalog, topics, last_incarnation))
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
    pub fn sync_stats(&self) -> SyncStats {
        self.sync.stats()
    }

    /// Durations of group-commit rounds (ns) and partitions per round.
    pub fn sync_histograms(&self) -> (&Histogram, &Histogram) {
        self.sync.histograms()
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
            for s in t.0.stats().iter() {
                for (acc, v) in sum.iter_mut().zip(s.totals()) {
                    *acc = acc.saturating_add(v);
                }
            }
        }
        sum
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
