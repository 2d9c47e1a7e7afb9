//! One partition: an ordered list of segments, the append path, the
//! zero-copy read path, group-commit fsync, recovery and retention.
//!
//! Invariant: every segment but the last (the active one) is complete and
//! durable — a roll fsyncs the old segment and writes its index before the
//! new one exists — so only the tail of the active segment can be torn by a
//! crash. Everything else that fails a check is corruption, reported and fenced.

use std::fs::{self, File};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use hermit_protocol::record::{CRC_AT, CRC_START, HEADER_LEN, RecordHeader, TIMESTAMP_AT};
use hermit_protocol::{Cleanup, WireError};
use tokio::sync::watch;

use super::error::{IoContext, Result, StorageError};
use super::files::FileBudget;
use super::fsutil;
use super::index::IndexBuilder;
use super::io::{Io, OpenMode};
use super::options::LogOptions;
use super::options::{FsyncPolicy, RecoveryMode, VerifyRolled};
use super::reader::{self, Continuity, HARD_MAX_BATCH, ScanOptions, SegmentReader, WholeBatch};
use super::segment::{self, RolledSegment, SegmentFile, Verification, idx_name, log_name};
use super::slab::SLOT_BYTES;
use super::sync::{SyncQueue, SyncTarget, Syncable};
use super::topic::TopicPolicy;
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

/// A byte range of whole batches in a segment file, to be sent as is.
#[derive(Debug, Clone)]
pub struct FileRange {
    /// The segment file.
    pub file: Arc<SegmentFile>,
    /// First byte.
    pub position: u64,
    /// Length in bytes.
    pub len: u64,
    /// Base offset of the first batch in the range.
    pub first_offset: u64,
    /// The offset after the range's last batch (in a compacted segment,
    /// holes between its batches lie below it).
    pub end_offset: u64,
}

/// The outcome of [`Partition::read`].
#[derive(Debug)]
pub enum ReadOutcome {
    /// Whole batches, the first containing (or following) the offset.
    Data {
        /// The bytes to send.
        range: FileRange,
        /// Visible end of the log.
        high_watermark: u64,
        /// First stored offset.
        log_start: u64,
    },
    /// Nothing at the offset yet (it equals the high watermark): wait for data.
    Empty {
        /// Visible end of the log.
        high_watermark: u64,
        /// First stored offset.
        log_start: u64,
    },
    /// The range lies in a segment from before this start that has not been
    /// CRC-verified yet: call [`Partition::verify_segment`] (blocking) and retry.
    Unverified(Arc<RolledSegment>),
}

/// Which segments [`Partition::scan_batches`] reads.
#[derive(Debug, Clone, Copy)]
pub enum ScanScope<'a> {
    /// Every segment: the rolled ones oldest first, then the active one up
    /// to what is written when the scan starts.
    All,
    /// One rolled segment, whole.
    Rolled(&'a RolledSegment),
    /// The active segment, up to what is written when the scan starts.
    Active,
}

/// How [`Partition::scan_batches`] checks what it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScanCheck {
    /// Bytes this broker checked already — rolled segments it verified, the
    /// active segment (every batch was CRC-checked on append or at
    /// recovery): headers and lengths only, no CRC; corruption is an error.
    Checked,
    /// CRC-check every batch. At a corrupt batch the rest of that segment is skipped
    /// (never yielded) and reported, and the scan goes on with the next
    /// segment: for readers that must start even on a corrupt log, whose
    /// corruption the partition's own verification fences and reports.
    SkipCorrupt,
}

impl ScanCheck {
    /// The old name of [`ScanCheck::SkipCorrupt`].
    #[deprecated(note = "use `ScanCheck::SkipCorrupt`")]
    #[allow(non_upper_case_globals)]
    pub const SkipDamaged: ScanCheck = ScanCheck::SkipCorrupt;
}

#[derive(Debug, Clone, Copy)]
struct Visible {
    offset: u64,
    segment_base: u64,
    position: u64,
}

struct Active {
    base: u64,
    file: Arc<SegmentFile>,
    size: u64,
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

struct Inner {
    rolled: Vec<Arc<RolledSegment>>,
    active: Active,
    log_start: u64,
    next_offset: u64,
    visible: Visible,
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
    topic: String,
    id: u32,
    dir: PathBuf,
    opts: Arc<LogOptions>,
    policy: TopicPolicy,
    inner: Mutex<Inner>,
    /// Visible end offset, published to long-polling readers.
    hw_tx: watch::Sender<u64>,
    /// Everything below this offset is on stable storage.
    synced: AtomicU64,
    /// Whether the partition sits in the sync queue (so an append enqueues it at most once).
    queued: AtomicBool,
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
    /// Its topic's traffic counters (this partition's is `[id]`), given by
    /// the log once it is opened ([`Partition::count_into`]).
    stats: OnceLock<Arc<[PartitionStats]>>,
}

/// How a log opens a partition of one of its topics (see [`Partition::open_created`]).
#[derive(Debug, Default)]
pub struct Placement {
    /// Its topic's incarnation (creation clock, ns).
    pub created_ns: Option<u64>,
    /// Its slot (see [`super::slab`]): given only when the partition has
    /// no directory (it has not moved out).
    pub slot: Option<Arc<SegmentFile>>,
    /// The slot was handed out in this run and never written: it holds
    /// zeros, so opening it reads nothing.
    pub fresh: bool,
    /// Everything in the partition's files is durable already (the log's
    /// last run closed cleanly, see `Log::open`): recovery fsyncs only what
    /// it changes.
    pub durable: bool,
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

fn open_rw(io: &Io, path: &Path, create: bool) -> Result<File> {
    io.open(
        path,
        if create {
            OpenMode::Create
        } else {
            OpenMode::Existing
        },
    )
    .ctx(
        if create {
            "create segment"
        } else {
            "open segment"
        },
        path,
    )
}

/// What opening a partition needs to know, passed down as one.
struct Opening<'a> {
    topic: &'a str,
    id: u32,
    opts: &'a Arc<LogOptions>,
    created_ns: Option<u64>,
    durable: bool,
}

/// Where a partition directory is staged while it moves out of its slot.
fn staging_dir(dir: &Path) -> PathBuf {
    let mut name = dir.file_name().unwrap_or_default().to_os_string();
    name.push(".new");
    dir.with_file_name(name)
}

/// Copy a slot's bytes up to `end` (a slab position; with `trim_zeros`,
/// without the zeros that end the slot) into a new directory `dir` as its
/// segment based at `base`: staged in `<dir>.new`, fsynced, renamed into
/// place and the rename fsynced. Returns the new segment file.
fn move_slot_bytes(
    io: &Io,
    slot: &SegmentFile,
    end: u64,
    dir: &Path,
    base: u64,
    last_append_ns: u64,
    trim_zeros: bool,
) -> Result<SegmentFile> {
    let origin = slot.origin();
    let mut bytes = vec![0u8; (end - origin) as usize];
    slot.file
        .read_exact_at(&mut bytes, origin)
        .ctx("read slot", &slot.path)?;
    if trim_zeros {
        let keep = bytes.iter().rposition(|b| *b != 0).map_or(0, |i| i + 1);
        bytes.truncate(keep);
    }
    let staging = staging_dir(dir);
    if staging.exists() {
        tracing::warn!(dir = %staging.display(), "removing the leftover of a move out of a slot cut short");
        io.remove_dir_all(&staging)
            .ctx("remove leftover", &staging)?;
    }
    io.create_dir(&staging)
        .ctx("create partition directory", &staging)?;
    let staged = staging.join(log_name(base));
    let file = open_rw(io, &staged, true)?;
    io.write_at(&file, &[&bytes], 0)
        .ctx("write segment", &staged)?;
    let seg = SegmentFile::new(dir.join(log_name(base)), file);
    if last_append_ns > 0 {
        segment::stamp_append_time(&seg, last_append_ns)?;
    }
    io.sync_all(&seg.file).ctx("fsync segment", &staged)?;
    fsutil::fsync_dir(io, &staging)?;
    io.rename(&staging, dir)
        .ctx("move partition directory into place", &staging)?;
    fsutil::fsync_dir(io, fsutil::parent(dir))?;
    Ok(seg)
}

impl Drop for Partition {
    fn drop(&mut self) {
        if let Some(budget) = self.files.get() {
            budget.remove(self.files_reported.load(Ordering::Acquire));
        }
    }
}

impl Partition {
    /// Open (recovering) or create the partition in `dir`.
    pub fn open(
        dir: PathBuf,
        topic: &str,
        id: u32,
        opts: Arc<LogOptions>,
        policy: TopicPolicy,
        sync_queue: Option<Arc<SyncQueue>>,
    ) -> Result<Arc<Partition>> {
        Self::open_created(
            dir,
            topic,
            id,
            opts,
            policy,
            sync_queue,
            Placement::default(),
        )
    }

    /// [`Partition::open`] for a topic of a log: created at
    /// `placement.created_ns` (broker clock) — the lower bound of the first
    /// segment's first append, for the roll age after a restart — and, with
    /// a slot, kept in it while `dir` does not exist (it moves out into
    /// `dir` when it outgrows the slot). A new directory's entries are left
    /// to the first sync (group commit), like the data written into it.
    pub fn open_created(
        dir: PathBuf,
        topic: &str,
        id: u32,
        opts: Arc<LogOptions>,
        policy: TopicPolicy,
        sync_queue: Option<Arc<SyncQueue>>,
        placement: Placement,
    ) -> Result<Arc<Partition>> {
        let created_ns = placement.created_ns;
        let ctx = Opening {
            topic,
            id,
            opts: &opts,
            created_ns,
            durable: placement.durable,
        };
        if let Some(slot) = placement.slot {
            // A `<dir>.new` left by a move out cut short is removed by the
            // next move out, before it stages anything.
            let recovered = if placement.fresh {
                let index = IndexBuilder::new(0, opts.index_interval_bytes);
                Some((Active::empty(0, slot.clone(), index), 0))
            } else {
                Self::recover_slot(&slot, &ctx)?
            };
            match recovered {
                Some((active, next_offset)) => {
                    return Ok(Self::assemble(
                        dir,
                        &ctx,
                        policy,
                        sync_queue,
                        (Vec::new(), active, next_offset),
                        0,
                    ));
                }
                None => {
                    // Corruption with valid batches after it: out into a
                    // directory, whose recovery fences the corrupt range.
                    let len = slot.file.metadata().ctx("stat slab", &slot.path)?.len();
                    let end = len.clamp(slot.origin(), slot.origin() + SLOT_BYTES);
                    let last = Self::slot_append_ns(&slot)?;
                    move_slot_bytes(&opts.io, &slot, end, &dir, 0, last, true)?;
                    slot.release_when_unused();
                }
            }
        }
        let mut dirs = 0;
        if !dir.exists() {
            opts.io
                .create_dir(&dir)
                .ctx("create partition directory", &dir)?;
            dirs |= DIR_PARENT;
        }
        let mut bases = Vec::new();
        let mut idx_bases = Vec::new();
        let mut dense_bases = Vec::new();
        for entry in fs::read_dir(&dir).ctx("list partition directory", &dir)? {
            let entry = entry.ctx("list partition directory", &dir)?;
            let name = entry.file_name();
            let Some(name) = name.to_str() else {
                tracing::warn!(dir = %dir.display(), file = ?name, "ignoring a file with a non-UTF-8 name");
                continue;
            };
            if let Some(base) = segment::parse_name(name, "log") {
                bases.push(base);
            } else if let Some(base) = segment::parse_name(name, "idx") {
                idx_bases.push(base);
            } else if let Some(base) = segment::parse_name(name, "dense") {
                dense_bases.push(base);
            } else if name.ends_with(".cleaned") || name.ends_with(".tmp") {
                // Leftovers of a compaction or an atomic write cut short by a
                // crash; the originals are intact.
                let path = entry.path();
                tracing::warn!(file = %path.display(), "removing leftover of an interrupted write");
                opts.io.remove_file(&path).ctx("remove leftover", &path)?;
            } else {
                tracing::warn!(file = %entry.path().display(), "ignoring an unknown file in a partition directory");
            }
        }
        bases.sort_unstable();
        for orphan in idx_bases.iter().filter(|b| bases.binary_search(b).is_err()) {
            let path = dir.join(idx_name(*orphan));
            tracing::warn!(file = %path.display(), "removing an index without a log");
            opts.io
                .remove_file(&path)
                .ctx("remove orphan index", &path)?;
        }
        for orphan in dense_bases
            .iter()
            .filter(|b| bases.binary_search(b).is_err())
        {
            let path = dir.join(segment::dense_name(*orphan));
            tracing::warn!(file = %path.display(), "removing a density marker without a log");
            opts.io
                .remove_file(&path)
                .ctx("remove orphan density marker", &path)?;
        }
        let dense = policy.cleanup != Cleanup::Compact;
        let mut scratch = Vec::new();
        let mut rolled = Vec::new();
        if let Some((&last, rest)) = bases.split_last() {
            for (i, &base) in rest.iter().enumerate() {
                let end = bases[i + 1];
                let seg = RolledSegment::open(
                    &dir,
                    base,
                    end,
                    &opts,
                    dense || dense_bases.contains(&base),
                    &mut scratch,
                )?;
                if opts.verify_rolled == VerifyRolled::Startup {
                    let v = seg.verify(&opts, &mut scratch)?;
                    if !v.bad.is_empty() && opts.recovery_mode == RecoveryMode::AbsoluteConsistency
                    {
                        let b = v.bad[0];
                        return Err(StorageError::CorruptRange {
                            topic: topic.to_owned(),
                            partition: id,
                            from: b.from_offset,
                            to: b.to_offset,
                        });
                    }
                }
                rolled.push(Arc::new(seg));
            }
            let _ = last;
        }
        let active_base = bases.last().copied().unwrap_or(0);
        // The active segment's first append is not stored. A lower bound:
        // the newest append to the segment before it (which rolled just
        // before this one got its first batch), or for a partition's first
        // segment the topic's creation (topic.toml is written once). The
        // roll may then come early after a restart, never late; restarting
        // more often than `segment_ms` must not keep a segment from ever rolling.
        let roll_age_from = match rolled.last() {
            Some(seg) => Some(seg.append_ns()),
            None => created_ns,
        };
        let (mut active, mut next_offset, bad, created) =
            Self::recover_active(&dir, active_base, &ctx, roll_age_from)?;
        if created {
            dirs |= DIR_NEW;
        }
        if !bad.is_empty() {
            // Roll over the corrupt segment with its fenced ranges, so the rolled
            // segments' fencing serves it, and write on in a fresh segment.
            let idx_path = dir.join(idx_name(active.base));
            let index = active.index.clone().finish();
            index.write(&opts.io, &idx_path)?;
            if !dense {
                // The ranges were fenced by exact continuity. A restart must
                // verify the rolled segment by that rule, not by a compacted
                // segment's (holes allowed), or it would serve a batch whose
                // base offset is wrong and fence what was served before. The
                // marker is durable before the next segment exists: that
                // segment's file is what makes this one rolled.
                let marker = dir.join(segment::dense_name(active.base));
                fsutil::write_atomic(
                    &opts.io,
                    &marker,
                    b"never compacted: verified with exact offset continuity\n",
                )?;
            }
            rolled.push(Arc::new(RolledSegment::rolled(
                segment::Parts {
                    base: active.base,
                    end_offset: next_offset,
                    size: active.size,
                    file: active.file.clone(),
                    idx_path,
                    index,
                    append_ns: active.last_append_ns,
                    dense: true,
                },
                Verification { bad, index: None },
            )));
            let fresh = Self::recover_active(&dir, next_offset, &ctx, Some(active.last_append_ns))?;
            (active, next_offset) = (fresh.0, fresh.1);
            if fresh.3 {
                dirs |= DIR_NEW;
            }
        }
        let p = Self::assemble(
            dir,
            &ctx,
            policy,
            sync_queue,
            (rolled, active, next_offset),
            dirs,
        );
        if dirs != 0 && opts.fsync != FsyncPolicy::Never {
            // Entries this open made wait for the next round, in the queue:
            // closed idle before it, the partition would forget them, and
            // its next open would find the file and trust its entry.
            p.enqueue_sync();
        }
        Ok(p)
    }

    fn assemble(
        dir: PathBuf,
        ctx: &Opening<'_>,
        policy: TopicPolicy,
        sync_queue: Option<Arc<SyncQueue>>,
        (rolled, active, next_offset): (Vec<Arc<RolledSegment>>, Active, u64),
        dirs: u8,
    ) -> Arc<Partition> {
        let log_start = rolled.first().map_or(active.base, |s| s.base);
        let size = active.size;
        let visible = Visible {
            offset: next_offset,
            segment_base: active.base,
            position: size,
        };
        let (hw_tx, _) = watch::channel(next_offset);
        let p = Partition {
            topic: ctx.topic.to_owned(),
            id: ctx.id,
            dir,
            opts: ctx.opts.clone(),
            policy,
            inner: Mutex::new(Inner {
                rolled,
                active,
                log_start,
                next_offset,
                visible,
                failed: None,
                deleted: false,
                closed: false,
            }),
            hw_tx,
            synced: AtomicU64::new(next_offset),
            queued: AtomicBool::new(false),
            sync_queue,
            dirs_unsynced: AtomicU8::new(dirs),
            created_ns: ctx.created_ns,
            files: OnceLock::new(),
            files_reported: AtomicUsize::new(0),
            stats: OnceLock::new(),
        };
        Arc::new(p)
    }

    /// The newest append to a slot, as far as can be known after a start:
    /// its slab's mtime (an upper bound — any slot's append moves it),
    /// never later than now. Retention ages by it once the segment rolls,
    /// so it may keep data longer, never delete it early.
    fn slot_append_ns(slot: &SegmentFile) -> Result<u64> {
        let meta = slot.file.metadata().ctx("stat slab", &slot.path)?;
        segment::stored_append_time(&meta, &slot.path)
    }

    /// Scan a slot from its start, as [`Partition::recover_active`] scans
    /// an active segment. Zeros after the last batch are the slot's clean
    /// end. A torn tail — bytes that are not a batch, with no valid batch
    /// after them — is zeroed (or refused, in absolute-consistency mode).
    /// Returns `None` for corruption with valid batches after it, which only a
    /// partition directory can fence: the caller moves the slot out.
    fn recover_slot(slot: &Arc<SegmentFile>, ctx: &Opening<'_>) -> Result<Option<(Active, u64)>> {
        let origin = slot.origin();
        let len = slot.file.metadata().ctx("stat slab", &slot.path)?.len();
        let end = len.clamp(origin, origin + SLOT_BYTES);
        let mut index = IndexBuilder::new(0, ctx.opts.index_interval_bytes);
        let mut buf = Vec::new();
        let mut reader = SegmentReader::new(
            &slot.file,
            &slot.path,
            origin,
            end,
            ScanOptions::verify(Continuity::Strict(0), SLOT_BYTES),
            &mut buf,
        );
        let corruption = loop {
            match reader.next_batch() {
                Ok(Some(b)) => index.observe(b.header.base_offset, b.position),
                Ok(None) => break None,
                Err(e @ StorageError::Corrupt { .. }) => break Some(e),
                Err(e) => return Err(e),
            }
        };
        let (at, next_offset) = (reader.position(), reader.next_offset().unwrap_or(0));
        let mut zeroed = false;
        if let Some(err) = corruption {
            let mut rest = vec![0u8; (end - at) as usize];
            slot.file
                .read_exact_at(&mut rest, at)
                .ctx("read slot", &slot.path)?;
            if rest.iter().any(|b| *b != 0) {
                if ctx.opts.recovery_mode == RecoveryMode::AbsoluteConsistency {
                    return Err(err);
                }
                if reader::find_resync(
                    &slot.file,
                    &slot.path,
                    at + 1,
                    end,
                    next_offset,
                    u64::from(u32::MAX),
                )?
                .is_some()
                {
                    return Ok(None);
                }
                tracing::warn!(
                    topic = ctx.topic, partition = ctx.id, slot = %slot.path.display(),
                    valid_bytes = at - origin, dropped_bytes = end - at, next_offset,
                    reason = %err,
                    "zeroing the torn tail of a slot"
                );
                rest.fill(0);
                ctx.opts
                    .io
                    .write_at(&slot.file, &[&rest], at)
                    .ctx("zero torn tail", &slot.path)?;
                zeroed = true;
            }
        }
        if zeroed || (at > origin && !ctx.durable) {
            // After a crash the slot's bytes may be in the page cache only;
            // what is served from now on must be on disk.
            ctx.opts
                .io
                .sync_data(&slot.file)
                .ctx("fsync recovered slot", &slot.path)?;
        }
        let last_append_ns = if at > origin {
            Self::slot_append_ns(slot)?
        } else {
            0
        };
        Ok(Some((
            Active {
                base: 0,
                file: slot.clone(),
                size: at,
                index,
                first_append_ns: (at > origin).then(|| {
                    ctx.created_ns
                        .map_or(last_append_ns, |t| t.min(last_append_ns))
                }),
                last_append_ns,
            },
            next_offset,
        )))
    }

    /// Move the partition out of its slot into its directory: the slot's
    /// bytes become the directory's first segment, staged in `<dir>.new`
    /// and renamed into place once durable — a crash leaves the slot or the
    /// whole directory, never half of one. Everything written is durable
    /// after it. The slot is released once no reader holds it.
    fn move_out(&self, inner: &mut Inner) -> Result<()> {
        // What moves is durable after it, without a round: its topic's
        // creation must be first.
        self.sync_catalog()?;
        let old = &inner.active;
        let origin = old.file.origin();
        let file = move_slot_bytes(
            &self.opts.io,
            &old.file,
            old.size,
            &self.dir,
            old.base,
            old.last_append_ns,
            false,
        )?;
        let mut index = IndexBuilder::new(old.base, self.opts.index_interval_bytes);
        for e in old.index.entries() {
            index.observe(
                old.base + u64::from(e.rel_offset),
                u64::from(e.position) - origin,
            );
        }
        let new = Active {
            base: old.base,
            file: Arc::new(file),
            size: old.size - origin,
            index,
            first_append_ns: old.first_append_ns,
            last_append_ns: old.last_append_ns,
        };
        let old = std::mem::replace(&mut inner.active, new);
        old.file.release_when_unused();
        self.dirs_unsynced.store(0, Ordering::Release);
        let next = inner.next_offset;
        if self.synced.load(Ordering::Acquire) < next {
            self.synced.store(next, Ordering::Release);
        }
        inner.visible = Visible {
            offset: next,
            segment_base: inner.active.base,
            position: inner.active.size,
        };
        self.hw_tx.send_replace(next);
        tracing::debug!(topic = %self.topic, partition = self.id, bytes = inner.active.size, "moved out of its slot");
        self.report_files(inner);
        Ok(())
    }

    /// Scan the active segment from its start. A torn or corrupt *tail* —
    /// bad bytes with no valid batch after them, what a crash leaves — is
    /// truncated (or refused, in absolute-consistency mode). Corruption with
    /// valid batches after it is not a crash artifact: those batches were
    /// acknowledged, so nothing is truncated; the corrupt ranges are
    /// returned to be fenced. Returns the segment, the next offset and the
    /// fenced ranges, and whether the segment file was created (its
    /// directory entry is not fsynced yet). The recovered bytes are fsynced: after a crash they
    /// may only have been in the page cache. The segment's append times come
    /// from its mtime (the newest append) and `roll_age_from` (a lower bound
    /// of its first append), never from the batches' timestamps.
    fn recover_active(
        dir: &Path,
        base: u64,
        ctx: &Opening<'_>,
        roll_age_from: Option<u64>,
    ) -> Result<(Active, u64, Vec<segment::BadRange>, bool)> {
        let (opts, topic, id) = (ctx.opts, ctx.topic, ctx.id);
        let path = dir.join(log_name(base));
        let created = !path.exists();
        let file = open_rw(&opts.io, &path, true)?;
        let meta = file.metadata().ctx("stat segment", &path)?;
        let len = meta.len();
        let stored_append_ns = segment::stored_append_time(&meta, &path)?;
        let mut truncated = false;
        let mut index = IndexBuilder::new(base, opts.index_interval_bytes);
        let mut buf = Vec::new();
        let mut bad = Vec::new();
        let (mut pos, mut expected) = (0, base);
        let (end, next_offset) = loop {
            let mut reader = SegmentReader::new(
                &file,
                &path,
                pos,
                len,
                ScanOptions::verify(Continuity::Strict(expected), HARD_MAX_BATCH),
                &mut buf,
            );
            let corruption = loop {
                match reader.next_batch() {
                    Ok(Some(b)) => {
                        index.observe(b.header.base_offset, b.position);
                    }
                    Ok(None) => break None,
                    Err(e @ StorageError::Corrupt { .. }) => break Some(e),
                    Err(e) => return Err(e),
                }
            };
            let (at, next) = (reader.position(), reader.next_offset().unwrap_or(expected));
            let Some(err) = corruption else {
                break (at, next);
            };
            match reader::find_resync(&file, &path, at + 1, len, next, segment::max_end(base))? {
                Some((resume, resume_offset)) => {
                    if opts.recovery_mode == RecoveryMode::AbsoluteConsistency {
                        return Err(err);
                    }
                    tracing::error!(
                        topic, partition = id, segment = %path.display(),
                        from_offset = next, to_offset = resume_offset, from_byte = at, to_byte = resume,
                        reason = %err,
                        "corrupt range inside the active segment, with valid batches after it: \
                         it is fenced (never served), nothing is truncated"
                    );
                    bad.push(segment::BadRange {
                        from_offset: next,
                        to_offset: resume_offset,
                        from_pos: at,
                        to_pos: resume,
                    });
                    (pos, expected) = (resume, resume_offset);
                }
                None => {
                    if opts.recovery_mode == RecoveryMode::AbsoluteConsistency {
                        return Err(err);
                    }
                    tracing::warn!(
                        topic, partition = id, segment = %path.display(),
                        valid_bytes = at, dropped_bytes = len - at, next_offset = next,
                        reason = %err,
                        "truncating the torn tail of the active segment"
                    );
                    opts.io
                        .set_len(&file, at)
                        .ctx("truncate torn tail", &path)?;
                    truncated = true;
                    break (at, next);
                }
            }
        };
        let file = SegmentFile::new(path, file);
        if truncated {
            // Truncation moved the mtime to now; the survivors are older.
            segment::stamp_append_time(&file, stored_append_ns)?;
            opts.io
                .sync_all(&file.file)
                .ctx("fsync recovered segment", &file.path)?;
        } else if len > 0 && !ctx.durable {
            opts.io
                .sync_data(&file.file)
                .ctx("fsync recovered segment", &file.path)?;
        }
        let last_append_ns = if end > 0 { stored_append_ns } else { 0 };
        Ok((
            Active {
                base,
                file: Arc::new(file),
                size: end,
                index,
                first_append_ns: (end > 0)
                    .then(|| roll_age_from.map_or(last_append_ns, |t| t.min(last_append_ns))),
                last_append_ns,
            },
            next_offset,
            bad,
            created,
        ))
    }

    /// Topic name.
    pub fn topic(&self) -> &str {
        &self.topic
    }

    /// Count this partition's appends and reads into `stats` (its topic's,
    /// indexed by partition) from now on. The first call wins.
    pub fn count_into(&self, stats: Arc<[PartitionStats]>) {
        let _ = self.stats.set(stats);
    }

    /// This partition's traffic counters, once the log gave them.
    pub fn own_stats(&self) -> Option<&PartitionStats> {
        self.stats.get().and_then(|s| s.get(self.id as usize))
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

    /// Append one record batch (header included, base offset ignored). The
    /// CRC is verified, the offset assigned by patching the header in the
    /// write, and the batch written with one `pwritev`.
    pub fn append(self: &Arc<Self>, batch: &[u8]) -> Result<Appended> {
        let header = RecordHeader::decode(batch)?;
        if header.batch_len() != batch.len() as u64 {
            return Err(WireError::LengthMismatch {
                frame: batch.len() as u64,
                contents: header.batch_len(),
            }
            .into());
        }
        header.check_limits(self.opts.max_key, self.opts.max_payload)?;
        // Each record takes at least its 4-byte length prefix in the client
        // layout; a count beyond that would only burn offsets.
        let max_records = (header.payload_len / 4).max(1);
        if header.record_count > max_records {
            return Err(WireError::InvalidField {
                field: "record_count",
                value: u64::from(header.record_count),
            }
            .into());
        }
        let computed = crc32c::crc32c(&batch[CRC_START..]);
        if computed != header.crc {
            return Err(WireError::CrcMismatch {
                stored: header.crc,
                computed,
            }
            .into());
        }
        let mut head = [0u8; HEADER_LEN];
        head.copy_from_slice(&batch[..HEADER_LEN]);
        if header.timestamp_ns == 0 {
            let timestamp = now_ns();
            head[TIMESTAMP_AT..TIMESTAMP_AT + 8].copy_from_slice(&timestamp.to_be_bytes());
            let crc =
                crc32c::crc32c_append(crc32c::crc32c(&head[CRC_START..]), &batch[HEADER_LEN..]);
            head[CRC_AT..CRC_AT + 4].copy_from_slice(&crc.to_be_bytes());
        }
        let count = u64::from(header.record_count);
        let len = header.batch_len();

        let mut inner = self.lock();
        if inner.deleted {
            return Err(StorageError::UnknownTopic(self.topic.clone()));
        }
        if inner.closed {
            return Err(StorageError::ShuttingDown);
        }
        if let Some(reason) = &inner.failed {
            return Err(self.failed_error(reason));
        }
        let next = inner.next_offset;
        let now = now_ns();
        let needs_roll = |a: &Active| {
            let used = a.size - a.file.origin();
            used > 0
                && (used + len > self.opts.segment_bytes
                    || next + count - a.base > u64::from(u32::MAX)
                    || a.first_append_ns
                        .is_some_and(|t| now.saturating_sub(t) / 1_000_000 >= self.opts.segment_ms))
        };
        if inner.active.file.is_slot()
            && (inner.active.size + len > inner.active.file.origin() + SLOT_BYTES
                || needs_roll(&inner.active))
        {
            self.move_out(&mut inner)?;
        }
        if needs_roll(&inner.active) {
            self.roll(&mut inner)?;
        }
        let base = inner.next_offset;
        head[1..9].copy_from_slice(&base.to_be_bytes());
        let pos = inner.active.size;
        let io = &self.opts.io;
        if let Err(e) = io.write_at(&inner.active.file.file, &[&head, &batch[HEADER_LEN..]], pos) {
            let err = StorageError::io("append", &inner.active.file.path, e);
            // Cut off whatever part of the batch reached the file, so the next
            // append does not follow garbage (in a slot: zero it, the slab
            // goes on past it); if even that fails, stop writing.
            let undo = if inner.active.file.is_slot() {
                let zeros = vec![0u8; (inner.active.file.origin() + SLOT_BYTES - pos) as usize];
                io.write_at(&inner.active.file.file, &[&zeros], pos)
            } else {
                io.set_len(&inner.active.file.file, pos)
            };
            if let Err(e2) = undo {
                let reason = format!("{err}; then truncating back failed: {e2}");
                tracing::error!(topic = %self.topic, partition = self.id, %reason, "partition failed");
                inner.failed = Some(reason);
            }
            return Err(err);
        }
        let active = &mut inner.active;
        active.index.observe(base, pos);
        active.size = pos + len;
        active.first_append_ns.get_or_insert(now);
        // max: a wall clock stepped back must not make the segment younger
        // than data already in it.
        active.last_append_ns = active.last_append_ns.max(now);
        inner.next_offset = base + count;
        if self.opts.fsync != FsyncPolicy::Always {
            inner.visible = Visible {
                offset: base + count,
                segment_base: inner.active.base,
                position: pos + len,
            };
            self.hw_tx.send_replace(base + count);
        }
        drop(inner);
        if self.opts.fsync != FsyncPolicy::Never {
            self.enqueue_sync();
        }
        if let Some(s) = self.own_stats() {
            s.appended(count, len);
        }
        Ok(Appended {
            base_offset: base,
            next_offset: base + count,
        })
    }

    /// Before records become durable outside a round (a roll, a move out),
    /// their topic's creation (the catalog) is made durable.
    fn sync_catalog(&self) -> Result<()> {
        match &self.sync_queue {
            Some(q) if self.opts.fsync != FsyncPolicy::Never => q.sync_catalog(),
            _ => Ok(()),
        }
    }

    fn enqueue_sync(self: &Arc<Self>) {
        if let Some(q) = &self.sync_queue
            && !self.queued.swap(true, Ordering::SeqCst)
        {
            q.push(self.clone());
        }
    }

    /// Called by the sync queue when it takes the partition, before syncing it.
    pub(crate) fn dequeued(&self) {
        self.queued.store(false, Ordering::SeqCst);
    }

    /// Roll the active segment over: start a new one at the next offset.
    /// The old segment is fsynced and its index written before the new file
    /// exists, keeping "only the active segment may be torn" true.
    fn roll(&self, inner: &mut Inner) -> Result<()> {
        // The old segment is durable after it, without a round: its topic's
        // creation must be first.
        self.sync_catalog()?;
        let old = &inner.active;
        segment::stamp_append_time(&old.file, old.last_append_ns)?;
        // sync_all, not sync_data: the append time (mtime) must be durable too.
        let io = &self.opts.io;
        io.sync_all(&old.file.file)
            .ctx("fsync segment before roll", &old.file.path)?;
        let index = old.index.clone().finish();
        let idx_path = self.dir.join(idx_name(old.base));
        index.write(io, &idx_path)?;
        let new_base = inner.next_offset;
        let path = self.dir.join(log_name(new_base));
        let file = open_rw(io, &path, true)?;
        fsutil::fsync_dir(io, &self.dir)?;
        if self.dirs_unsynced.load(Ordering::Acquire) & DIR_PARENT != 0 {
            fsutil::fsync_dir(io, fsutil::parent(&self.dir))?;
        }
        self.dirs_unsynced.store(0, Ordering::Release);
        let new = Active {
            base: new_base,
            file: Arc::new(SegmentFile::new(path, file)),
            size: 0,
            index: IndexBuilder::new(new_base, self.opts.index_interval_bytes),
            first_append_ns: None,
            last_append_ns: 0,
        };
        let old = std::mem::replace(&mut inner.active, new);
        // Every batch of it was CRC-checked on append.
        inner.rolled.push(Arc::new(RolledSegment::rolled(
            segment::Parts {
                base: old.base,
                end_offset: new_base,
                size: old.size,
                file: old.file,
                idx_path,
                index,
                append_ns: old.last_append_ns,
                dense: self.policy.cleanup != Cleanup::Compact,
            },
            Verification::default(),
        )));
        // The old segment is durable now.
        if self.synced.load(Ordering::Acquire) < new_base {
            self.synced.store(new_base, Ordering::Release);
        }
        if inner.visible.offset <= new_base {
            inner.visible = Visible {
                offset: new_base,
                segment_base: new_base,
                position: 0,
            };
            self.hw_tx.send_replace(new_base);
        }
        tracing::debug!(topic = %self.topic, partition = self.id, base = new_base, "rolled segment");
        self.report_files(inner);
        Ok(())
    }

    /// Roll the active segment over now, if it holds anything (operators, tests).
    pub fn force_roll(&self) -> Result<()> {
        let mut inner = self.lock();
        if let Some(reason) = &inner.failed {
            return Err(self.failed_error(reason));
        }
        if inner.active.size == inner.active.file.origin() {
            return Ok(());
        }
        if inner.active.file.is_slot() {
            self.move_out(&mut inner)?;
        }
        self.roll(&mut inner)
    }

    /// fsync what has been written; under `fsync = always` this also makes it visible.
    /// Called by the sync thread (group commit) and on close. Returns whether
    /// an fsync was issued (false when everything was already durable).
    pub fn sync(&self) -> Result<bool> {
        let Some((target, file)) = self.sync_target()? else {
            return Ok(false);
        };
        let io = &self.opts.io;
        let dirs = if target.dirs & DIR_PARENT != 0 {
            fsutil::fsync_dir(io, fsutil::parent(&self.dir))
        } else {
            Ok(())
        }
        .and_then(|()| {
            if target.dirs & DIR_NEW != 0 {
                fsutil::fsync_dir(io, &self.dir)
            } else {
                Ok(())
            }
        });
        if let Err(err) = dirs {
            self.sync_failed(&err);
            return Err(err);
        }
        if let Err(e) = io.sync_data(&file.file) {
            let err = StorageError::io("fsync", &file.path, e);
            self.sync_failed(&err);
            return Err(err);
        }
        self.synced_to(target);
        Ok(true)
    }

    /// What a sync would make durable now, with the file to fsync; `None`
    /// when everything is durable already.
    pub(crate) fn sync_target(&self) -> Result<Option<(SyncTarget, Arc<SegmentFile>)>> {
        let inner = self.lock();
        if let Some(reason) = &inner.failed {
            return Err(self.failed_error(reason));
        }
        let dirs = self.dirs_unsynced.load(Ordering::Acquire);
        if self.synced.load(Ordering::Acquire) >= inner.next_offset && dirs == 0 {
            return Ok(None);
        }
        Ok(Some((
            SyncTarget {
                offset: inner.next_offset,
                base: inner.active.base,
                position: inner.active.size,
                dirs,
            },
            inner.active.file.clone(),
        )))
    }

    /// Everything in `target` is durable (an fsync that started after it
    /// was captured succeeded): advance the synced offset and, under
    /// `fsync = always`, the visible end.
    pub(crate) fn synced_to(&self, target: SyncTarget) {
        self.dirs_unsynced.fetch_and(!target.dirs, Ordering::AcqRel);
        let offset = target.offset;
        let mut inner = self.lock();
        if self.synced.load(Ordering::Acquire) < offset {
            self.synced.store(offset, Ordering::Release);
        }
        if self.opts.fsync == FsyncPolicy::Always && inner.visible.offset < offset {
            inner.visible = Visible {
                offset,
                segment_base: target.base,
                position: target.position,
            };
            self.hw_tx.send_replace(offset);
        }
    }

    /// A sync failed. After a failed fsync the page cache may have dropped
    /// the dirty pages: retrying could report success for lost data. The
    /// partition stops here.
    pub(crate) fn sync_failed(&self, err: &StorageError) {
        tracing::error!(topic = %self.topic, partition = self.id, error = %err, "fsync failed; partition stops accepting writes");
        self.lock().failed = Some(err.to_string());
        self.hw_tx.send_modify(|_| {}); // wake waiters so they see the failure
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

    /// fsync everything (shutdown, tests). Works under every fsync policy.
    /// Also stamps the active segment's newest append time on its file, so
    /// that the next start reads it exactly.
    pub fn close(&self) -> Result<()> {
        self.lock().closed = true;
        self.sync()?;
        let (file, last_append_ns) = {
            let inner = self.lock();
            (inner.active.file.clone(), inner.active.last_append_ns)
        };
        // A slot's slab is shared: its mtime stays that of its newest write.
        if last_append_ns > 0 && !file.is_slot() {
            segment::stamp_append_time(&file, last_append_ns)?;
            self.opts
                .io
                .sync_all(&file.file)
                .ctx("fsync segment append time", &file.path)?;
        }
        Ok(())
    }

    /// Find whole batches starting with the one that contains `offset` (or
    /// the first after it, across compaction holes), up to about `max_bytes`
    /// (at least one batch). Copies no record bytes: only headers are read,
    /// through `scratch`, when the offset is not at an index entry.
    pub fn read(&self, offset: u64, max_bytes: u32, scratch: &mut Vec<u8>) -> Result<ReadOutcome> {
        let mut after_base: Option<u64> = None;
        loop {
            let plan = {
                let inner = self.lock();
                let (log_start, hw) = (inner.log_start, inner.visible.offset);
                if offset < log_start || offset > hw {
                    return Err(StorageError::OffsetOutOfRange {
                        offset,
                        log_start,
                        high_watermark: hw,
                    });
                }
                if offset == hw {
                    return Ok(ReadOutcome::Empty {
                        high_watermark: hw,
                        log_start,
                    });
                }
                match self.plan(&inner, offset, max_bytes, after_base)? {
                    Planned::Plan(p) => p,
                    Planned::Unverified(seg) => return Ok(ReadOutcome::Unverified(seg)),
                }
            };
            match self.walk(&plan, offset, max_bytes, scratch)? {
                Some(range) => {
                    if let Some(s) = self.own_stats() {
                        s.served(
                            range.end_offset.saturating_sub(range.first_offset),
                            range.len,
                        );
                    }
                    let (log_start, high_watermark) = self.bounds();
                    return Ok(ReadOutcome::Data {
                        range,
                        high_watermark,
                        log_start,
                    });
                }
                // Nothing visible follows the offset (a compaction hole at the
                // very end of what is visible): wait like at the end of the log.
                None if plan.is_active => {
                    let (log_start, high_watermark) = self.bounds();
                    return Ok(ReadOutcome::Empty {
                        high_watermark,
                        log_start,
                    });
                }
                // The offset falls in a hole at the end of a compacted segment:
                // continue in the next one.
                None => after_base = Some(plan.segment_base),
            }
        }
    }

    fn plan(
        &self,
        inner: &Inner,
        offset: u64,
        max_bytes: u32,
        after_base: Option<u64>,
    ) -> Result<Planned> {
        // The segment holding `offset`, or (after a hole) the first one after `after_base`.
        let pick_rolled = match after_base {
            None => {
                let i = inner.rolled.partition_point(|s| s.base <= offset);
                match i.checked_sub(1) {
                    Some(j) if inner.rolled[j].end_offset > offset => Some(j),
                    // In no segment (one emptied by compaction was removed):
                    // the next segment's first batch follows the offset.
                    _ if i < inner.rolled.len() => Some(i),
                    _ => None,
                }
            }
            Some(b) => inner.rolled.iter().position(|s| s.base > b),
        };
        let visible = inner.visible;
        let limit = |p0: u64| p0.saturating_add(u64::from(max_bytes));
        if let Some(i) = pick_rolled {
            let seg = &inner.rolled[i];
            let Some(verification) = seg.verification() else {
                return Ok(Planned::Unverified(seg.clone()));
            };
            let (mut visible_end, mut visible_end_offset) = if seg.base < visible.segment_base {
                (seg.size, seg.end_offset)
            } else {
                (visible.position.min(seg.size), visible.offset)
            };
            let index = verification.index_for(seg);
            let (mut p0, mut o0) = index.lookup(offset).map_or((0, seg.base), |(o, p)| (p, o));
            for bad in &verification.bad {
                if offset >= bad.from_offset && offset < bad.to_offset {
                    return Err(StorageError::CorruptRange {
                        topic: self.topic.clone(),
                        partition: self.id,
                        from: bad.from_offset,
                        to: bad.to_offset,
                    });
                }
                if bad.to_offset <= offset && bad.to_pos > p0 {
                    (p0, o0) = (bad.to_pos, bad.to_offset);
                }
            }
            if let Some(bad) = verification.bad.iter().find(|b| b.from_pos >= p0)
                && bad.from_pos <= visible_end
            {
                (visible_end, visible_end_offset) = (bad.from_pos, bad.from_offset);
            }
            let cap_end = index.floor_position(limit(p0));
            return Ok(Planned::Plan(Plan {
                file: seg.file.clone(),
                segment_base: seg.base,
                from_pos: p0,
                from_offset: o0,
                visible_end,
                visible_end_offset,
                cap_end,
                is_active: false,
            }));
        }
        let active = &inner.active;
        if active.base > visible.segment_base {
            // Rolled, but nothing in the new segment is visible yet: the
            // visible end sits at the end of the previous segment.
            return Ok(Planned::Plan(Plan {
                file: active.file.clone(),
                segment_base: active.base,
                from_pos: active.file.origin(),
                from_offset: active.base,
                visible_end: 0,
                visible_end_offset: active.base,
                cap_end: None,
                is_active: true,
            }));
        }
        let entries = active.index.entries();
        let rel = offset.saturating_sub(active.base);
        let i = entries.partition_point(|e| u64::from(e.rel_offset) <= rel);
        let (p0, o0) = i
            .checked_sub(1)
            .map_or((active.file.origin(), active.base), |i| {
                (
                    u64::from(entries[i].position),
                    active.base + u64::from(entries[i].rel_offset),
                )
            });
        let lim = limit(p0);
        let j = entries.partition_point(|e| u64::from(e.position) <= lim);
        let cap_end = j.checked_sub(1).map(|j| {
            let e = entries[j];
            (u64::from(e.position), active.base + u64::from(e.rel_offset))
        });
        Ok(Planned::Plan(Plan {
            file: active.file.clone(),
            segment_base: active.base,
            from_pos: p0,
            from_offset: o0,
            visible_end: visible.position.min(active.size),
            visible_end_offset: visible.offset,
            cap_end,
            is_active: true,
        }))
    }

    /// Walk headers from the plan's index entry to the batch holding (or
    /// following) `offset`; `None` if the segment's visible part has none.
    fn walk(
        &self,
        plan: &Plan,
        offset: u64,
        max_bytes: u32,
        scratch: &mut Vec<u8>,
    ) -> Result<Option<FileRange>> {
        let (start, first_len, first_offset, first_end) =
            if plan.from_offset == offset && plan.from_pos < plan.visible_end {
                let h = plan.file.header_at(plan.from_pos)?;
                (plan.from_pos, h.batch_len(), h.base_offset, h.next_offset())
            } else {
                let mut reader = SegmentReader::new(
                    &plan.file.file,
                    &plan.file.path,
                    plan.from_pos,
                    plan.visible_end,
                    ScanOptions::headers(HARD_MAX_BATCH),
                    scratch,
                );
                loop {
                    match reader.next_batch()? {
                        Some(b) if b.header.next_offset().is_some_and(|n| n > offset) => {
                            let h = b.header;
                            break (b.position, h.batch_len(), h.base_offset, h.next_offset());
                        }
                        Some(_) => continue,
                        None => return Ok(None),
                    }
                }
            };
        let limit = plan.from_pos.saturating_add(u64::from(max_bytes));
        let first_end = first_end.unwrap_or(first_offset.saturating_add(1));
        let (end, end_offset) = if limit >= plan.visible_end {
            (plan.visible_end, plan.visible_end_offset)
        } else {
            plan.cap_end
                .filter(|&(c, _)| c > start && c <= plan.visible_end)
                .unwrap_or((start + first_len, first_end))
        };
        Ok(Some(FileRange {
            file: plan.file.clone(),
            position: start,
            len: end - start,
            first_offset,
            end_offset,
        }))
    }

    /// CRC-verify a segment opened at start (blocking; run off the async runtime).
    pub fn verify_segment(&self, seg: &RolledSegment) -> Result<()> {
        let mut scratch = Vec::new();
        seg.verify(&self.opts, &mut scratch).map(|_| ())
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
    pub fn corrupt_ranges(&self) -> Vec<segment::BadRange> {
        self.lock()
            .rolled
            .iter()
            .filter_map(|s| s.verification())
            .flat_map(|v: &Verification| v.bad.iter().copied())
            .collect()
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

    /// Delete whole rolled segments past the retention limits (age from the
    /// broker's newest append to the segment, never the producers'
    /// timestamps; size over all segments). Returns how many went.
    pub fn enforce_retention(&self, now_ns: u64) -> Result<usize> {
        let retention_ns = self.policy.retention_ms.saturating_mul(1_000_000);
        let retention_bytes = self.policy.retention_bytes;
        let doomed: Vec<Arc<RolledSegment>> = {
            let mut inner = self.lock();
            let mut total: u64 =
                inner.rolled.iter().map(|s| s.size).sum::<u64>() + inner.active.used();
            let mut n = 0;
            if self.policy.cleanup == Cleanup::Delete {
                for seg in &inner.rolled {
                    let too_old = self.policy.retention_ms != u64::MAX
                        && seg.append_ns().saturating_add(retention_ns) < now_ns;
                    let too_big =
                        retention_bytes != u64::MAX && total - seg.size >= retention_bytes;
                    if !(too_old || too_big) {
                        break;
                    }
                    total -= seg.size;
                    n += 1;
                }
            }
            let doomed: Vec<_> = inner.rolled.drain(..n).collect();
            if n > 0 {
                inner.log_start = inner.rolled.first().map_or(inner.active.base, |s| s.base);
                self.report_files(&inner);
            }
            doomed
        };
        for seg in &doomed {
            tracing::info!(
                topic = %self.topic, partition = self.id, base = seg.base, bytes = seg.size,
                "retention: deleting segment"
            );
            segment::remove_segment_files(&self.opts.io, seg)?;
        }
        if !doomed.is_empty() {
            fsutil::fsync_dir(&self.opts.io, &self.dir)?;
        }
        Ok(doomed.len())
    }

    /// Call `f` with every whole batch of the segments `scope` names, in
    /// log order, bytes included — read through the one segment reader,
    /// checked as `check` says. `scratch` is the read buffer (reuse it).
    /// The segments are those of the moment the scan starts; batches
    /// appended after it are not seen. An error `f` returns ends the scan.
    pub fn scan_batches(
        &self,
        scope: ScanScope<'_>,
        check: ScanCheck,
        scratch: &mut Vec<u8>,
        mut f: impl FnMut(&WholeBatch<'_>) -> Result<()>,
    ) -> Result<()> {
        // (file, end): each is read from its origin.
        let spans: Vec<(Arc<SegmentFile>, u64)> = match scope {
            ScanScope::All => {
                let inner = self.lock();
                inner
                    .rolled
                    .iter()
                    .map(|s| (s.file.clone(), s.size))
                    .chain(std::iter::once((
                        inner.active.file.clone(),
                        inner.active.size,
                    )))
                    .collect()
            }
            ScanScope::Rolled(seg) => vec![(seg.file.clone(), seg.size)],
            ScanScope::Active => {
                let inner = self.lock();
                vec![(inner.active.file.clone(), inner.active.size)]
            }
        };
        for (file, size) in spans {
            let mut opts = ScanOptions::verify(Continuity::Unchecked, HARD_MAX_BATCH);
            opts.verify_crc = check == ScanCheck::SkipCorrupt;
            let mut reader =
                SegmentReader::new(&file.file, &file.path, file.origin(), size, opts, scratch);
            loop {
                match reader.next_whole_batch() {
                    Ok(Some(b)) => f(&b)?,
                    Ok(None) => break,
                    Err(e) if check == ScanCheck::SkipCorrupt => {
                        tracing::error!(
                            topic = %self.topic, partition = self.id,
                            segment = %file.path.display(), error = %e,
                            "corrupt segment; the scan skips its rest"
                        );
                        break;
                    }
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(())
    }

    /// Rolled segments, oldest first (compaction and tools).
    pub(crate) fn rolled_segments(&self) -> Vec<Arc<RolledSegment>> {
        self.lock().rolled.clone()
    }

    /// Replace rolled segment `old` (by identity) with `new`, or drop it when
    /// `new` is `None`. Returns false if `old` is no longer in the list.
    pub(crate) fn replace_rolled(
        &self,
        old: &Arc<RolledSegment>,
        new: Option<Arc<RolledSegment>>,
    ) -> bool {
        let mut inner = self.lock();
        let Some(i) = inner.rolled.iter().position(|s| Arc::ptr_eq(s, old)) else {
            return false;
        };
        match new {
            Some(seg) => inner.rolled[i] = seg,
            None => {
                inner.rolled.remove(i);
                if i == 0 {
                    inner.log_start = inner.rolled.first().map_or(inner.active.base, |s| s.base);
                }
                self.report_files(&inner);
            }
        }
        true
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
}

impl Syncable for Partition {
    fn topic(&self) -> &str {
        Partition::topic(self)
    }

    fn id(&self) -> u32 {
        Partition::id(self)
    }

    fn dequeued(&self) {
        Partition::dequeued(self)
    }

    fn sync_target(&self) -> Result<Option<(SyncTarget, Arc<SegmentFile>)>> {
        Partition::sync_target(self)
    }

    fn sync(&self) -> Result<bool> {
        Partition::sync(self)
    }

    fn synced_to(&self, target: SyncTarget) {
        Partition::synced_to(self, target)
    }

    fn sync_failed(&self, err: &StorageError) {
        Partition::sync_failed(self, err)
    }
}

enum Planned {
    Plan(Plan),
    Unverified(Arc<RolledSegment>),
}

struct Plan {
    file: Arc<SegmentFile>,
    segment_base: u64,
    from_pos: u64,
    from_offset: u64,
    /// Where what may be served ends: its file position and offset.
    visible_end: u64,
    visible_end_offset: u64,
    /// An index entry within `max_bytes` of `from_pos`: its position and offset.
    cap_end: Option<(u64, u64)>,
    is_active: bool,
}
