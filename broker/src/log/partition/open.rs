//! Opening a partition: from its slot, or from its directory — listing its
//! files, opening its rolled segments and recovering the active one — and
//! assembling the [`Partition`].

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, AtomicUsize};
use std::sync::{Arc, Mutex, OnceLock};

use hermit_protocol::Cleanup;
use tokio::sync::watch;

use super::slot::move_slot_bytes;
use super::{Active, DIR_NEW, DIR_PARENT, Inner, Partition, Visible};
use crate::log::error::{IoContext, Result, StorageError};
use crate::log::index::IndexBuilder;
use crate::log::options::{FsyncPolicy, LogOptions, RecoveryMode, VerifyRolled};
use crate::log::segment::{self, RolledSegment, SegmentFile, idx_name};
use crate::log::slab::SLOT_BYTES;
use crate::log::sync::SyncQueue;
use crate::log::topic::TopicPolicy;

/// How a log opens a partition of one of its topics (see [`Partition::open_created`]).
#[derive(Debug, Default)]
pub struct Placement {
    /// Its topic's incarnation (creation clock, ns).
    pub created_ns: Option<u64>,
    /// Its slot (see [`crate::log::slab`]): given only when the partition has
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

/// What opening a partition needs to know, passed down as one.
pub(super) struct Opening<'a> {
    pub(super) topic: &'a str,
    pub(super) id: u32,
    pub(super) opts: &'a Arc<LogOptions>,
    pub(super) created_ns: Option<u64>,
    pub(super) durable: bool,
}

/// A partition directory's segments, as opening found them.
struct Listing {
    /// The bases of its `.log` files, in order.
    bases: Vec<u64>,
    /// The bases of segments marked dense (see `segment::dense_name`).
    dense_bases: Vec<u64>,
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
        if let Some(slot) = placement.slot
            && let Some((active, next_offset)) =
                Self::open_slot(&slot, placement.fresh, &dir, &ctx)?
        {
            return Ok(Self::assemble(
                dir,
                &ctx,
                policy,
                sync_queue,
                (Vec::new(), active, next_offset),
                0,
            ));
        }
        let (listing, mut dirs) = Self::list_dir(&dir, &opts)?;
        let dense = policy.cleanup != Cleanup::Compact;
        let mut rolled = Self::open_rolled(&dir, &listing, dense, &ctx)?;
        let active_base = listing.bases.last().copied().unwrap_or(0);
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
            rolled.push(Self::roll_fenced(
                &dir,
                &active,
                next_offset,
                bad,
                dense,
                &opts,
            )?);
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

    /// Open a partition in its slot: the slot's segment (read, unless the
    /// slot is `fresh`) and its next offset. `None` when the slot holds
    /// corruption with valid batches after it: its bytes were moved out
    /// into `dir`, whose recovery fences the corrupt range.
    fn open_slot(
        slot: &Arc<SegmentFile>,
        fresh: bool,
        dir: &Path,
        ctx: &Opening<'_>,
    ) -> Result<Option<(Active, u64)>> {
        // A `<dir>.new` left by a move out cut short is removed by the
        // next move out, before it stages anything.
        let recovered = if fresh {
            let index = IndexBuilder::new(0, ctx.opts.index_interval_bytes);
            Some((Active::empty(0, slot.clone(), index), 0))
        } else {
            Self::recover_slot(slot, ctx)?
        };
        if recovered.is_none() {
            // Corruption with valid batches after it: out into a
            // directory, whose recovery fences the corrupt range.
            let len = slot.file.metadata().ctx("stat slab", &slot.path)?.len();
            let end = len.clamp(slot.origin(), slot.origin() + SLOT_BYTES);
            let last = Self::slot_append_ns(slot)?;
            move_slot_bytes(&ctx.opts.io, slot, end, dir, 0, last, true)?;
            slot.release_when_unused();
        }
        Ok(recovered)
    }

    /// List the partition directory `dir` (creating it if it is missing:
    /// then [`DIR_PARENT`] is returned, its entry to be fsynced), removing
    /// what interrupted writes left and indexes or markers without a log.
    fn list_dir(dir: &Path, opts: &LogOptions) -> Result<(Listing, u8)> {
        let mut dirs = 0;
        if !dir.exists() {
            opts.io
                .create_dir(dir)
                .ctx("create partition directory", dir)?;
            dirs |= DIR_PARENT;
        }
        let mut bases = Vec::new();
        let mut idx_bases = Vec::new();
        let mut dense_bases = Vec::new();
        for entry in fs::read_dir(dir).ctx("list partition directory", dir)? {
            let entry = entry.ctx("list partition directory", dir)?;
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
        Ok((Listing { bases, dense_bases }, dirs))
    }

    /// Open every segment of `listing` but the last (the active one), in
    /// order; with `verify_rolled = startup` each is verified now (and, in
    /// absolute-consistency mode, corruption refuses the open). `dense`:
    /// the topic is never compacted.
    fn open_rolled(
        dir: &Path,
        listing: &Listing,
        dense: bool,
        ctx: &Opening<'_>,
    ) -> Result<Vec<Arc<RolledSegment>>> {
        let (bases, opts) = (&listing.bases, ctx.opts);
        let mut scratch = Vec::new();
        let mut rolled = Vec::new();
        if let Some((&last, rest)) = bases.split_last() {
            for (i, &base) in rest.iter().enumerate() {
                let end = bases[i + 1];
                let seg = RolledSegment::open(
                    dir,
                    base,
                    end,
                    opts,
                    dense || listing.dense_bases.contains(&base),
                    &mut scratch,
                )?;
                if opts.verify_rolled == VerifyRolled::Startup {
                    let v = seg.verify(opts, &mut scratch)?;
                    if !v.bad.is_empty() && opts.recovery_mode == RecoveryMode::AbsoluteConsistency
                    {
                        let b = v.bad[0];
                        return Err(StorageError::CorruptRange {
                            topic: ctx.topic.to_owned(),
                            partition: ctx.id,
                            from: b.from_offset,
                            to: b.to_offset,
                        });
                    }
                }
                rolled.push(Arc::new(seg));
            }
            let _ = last;
        }
        Ok(rolled)
    }

    /// The partition, from its segments and next offset; `dirs`: its
    /// directory entries not fsynced yet.
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
}
