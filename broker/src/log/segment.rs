//! Segment files: naming, the rolled-segment type and its verification.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use hermit_protocol::record::{HEADER_LEN, RecordHeader};

use super::clock;
use super::error::{IoContext, Result, StorageError};
use super::index::{Index, IndexBuilder};
use super::io::{Io, OpenMode};
use super::options::LogOptions;
use super::reader::{self, Continuity, ScanOptions, SegmentReader};

pub use super::reader::HARD_MAX_BATCH;

/// `<base:020>.log`.
pub fn log_name(base: u64) -> String {
    format!("{base:020}.log")
}

/// `<base:020>.idx`.
pub fn idx_name(base: u64) -> String {
    format!("{base:020}.idx")
}

/// `<base:020>.dense`: a marker that the segment at `base` holds dense
/// offsets although its topic is compacted. Recovery writes it when it rolls
/// an active segment whose corruption it fenced by exact continuity (an active
/// segment is never compacted), so a restart verifies that segment by the
/// same rule and fences the same ranges. Compaction never rewrites a
/// segment with corruption, so a marked segment stays dense until retention
/// deletes it.
pub fn dense_name(base: u64) -> String {
    format!("{base:020}.dense")
}

/// The base offset in a segment file name (`<20 digits>.<ext>`), if it is one.
pub fn parse_name(name: &str, ext: &str) -> Option<u64> {
    let stem = name.strip_suffix(ext)?.strip_suffix('.')?;
    if stem.len() != 20 || !stem.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    stem.parse().ok()
}

/// An open segment log file and its path, shared by the writer and readers.
/// A partition's segment in a slot (see [`super::slab`]) is a range of a
/// shared slab file: it starts at [`SegmentFile::origin`], and positions in
/// it are the slab's.
#[derive(Debug)]
pub struct SegmentFile {
    /// The `.log` path (for a slot: the slab's, with the slot's origin).
    pub path: PathBuf,
    /// The open file.
    pub file: Arc<File>,
    /// What reads of it for a fetch, and a slot's release, go through.
    io: Io,
    slot: Option<SlotRange>,
}

#[derive(Debug)]
struct SlotRange {
    origin: u64,
    /// Bytes of the slot, punched out when it is released.
    len: u64,
    /// Punch the slot out of its slab when the last reader lets go.
    release: AtomicBool,
}

impl Drop for SegmentFile {
    fn drop(&mut self) {
        if let Some(s) = &self.slot
            && s.release.load(Ordering::Acquire)
            && let Err(e) = self.io.punch_hole(&self.file, s.origin, s.len)
        {
            tracing::warn!(slab = %self.path.display(), error = %e, "could not release a slot; its block stays allocated");
        }
    }
}

impl SegmentFile {
    /// A segment file of its own, read for fetches through `io`.
    pub fn new(path: PathBuf, file: File, io: Io) -> SegmentFile {
        SegmentFile {
            path,
            file: Arc::new(file),
            io,
            slot: None,
        }
    }

    /// The segment in the slot of `len` bytes at `origin` of the slab `file`.
    pub fn in_slot(slab: &Path, file: Arc<File>, origin: u64, len: u64, io: Io) -> SegmentFile {
        SegmentFile {
            path: PathBuf::from(format!("{}@{origin}", slab.display())),
            file,
            io,
            slot: Some(SlotRange {
                origin,
                len,
                release: AtomicBool::new(false),
            }),
        }
    }

    /// The segment's first byte in its file (0 but for a slot).
    pub fn origin(&self) -> u64 {
        self.slot.as_ref().map_or(0, |s| s.origin)
    }

    /// Whether the segment is a slot.
    pub fn is_slot(&self) -> bool {
        self.slot.is_some()
    }

    /// Release the slot (punch it out of the slab) once nobody reads it any more.
    pub(crate) fn release_when_unused(&self) {
        if let Some(s) = &self.slot {
            s.release.store(true, Ordering::Release);
        }
    }

    /// What reads of it for a fetch go through.
    pub(crate) fn io(&self) -> &Io {
        &self.io
    }

    /// Read the header at `position` (through the I/O seam: a read starts
    /// there).
    pub fn header_at(&self, position: u64) -> Result<RecordHeader> {
        let mut buf = [0u8; HEADER_LEN];
        self.io
            .read_exact_at(&self.file, &mut buf, position)
            .ctx("read header", &self.path)?;
        RecordHeader::decode(&buf).map_err(|e| StorageError::Corrupt {
            path: self.path.clone(),
            position,
            kind: super::error::Corruption::BadHeader(e),
        })
    }
}

/// Open a segment file for writing, creating it with `create`.
pub(crate) fn open_rw(io: &Io, path: &Path, create: bool) -> Result<File> {
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

/// A byte and offset range of a rolled segment found corrupt: never served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BadRange {
    /// First unreadable offset.
    pub from_offset: u64,
    /// First readable offset after the corruption.
    pub to_offset: u64,
    /// First bad byte.
    pub from_pos: u64,
    /// First byte of the next valid batch (or the file end).
    pub to_pos: u64,
}

/// The result of CRC-verifying a rolled segment.
#[derive(Debug, Clone, Default)]
pub struct Verification {
    /// Corrupt ranges (empty when the segment is intact).
    pub bad: Vec<BadRange>,
    /// The index rebuilt by the verifying walk, when the stored one disagreed
    /// with the log. Reads must use it: an `.idx` has no checksum, and an
    /// entry naming the wrong offset or position would send a read to the
    /// wrong batch or into the middle of one.
    pub index: Option<Arc<Index>>,
}

impl Verification {
    /// The index reads of `seg` must use once it is verified.
    pub fn index_for<'a>(&'a self, seg: &'a RolledSegment) -> &'a Index {
        self.index.as_deref().unwrap_or(&seg.index)
    }
}

/// A rolled (read-only) segment.
#[derive(Debug)]
pub struct RolledSegment {
    /// First offset the segment may hold.
    pub base: u64,
    /// The offset after the segment (the next segment's base).
    pub end_offset: u64,
    /// Size of the `.log` in bytes.
    pub size: u64,
    /// The log file.
    pub file: Arc<SegmentFile>,
    /// Its `.idx` path.
    pub idx_path: PathBuf,
    /// Its index.
    pub index: Index,
    /// Whether the segment's offsets are dense: each batch starts where the
    /// previous one ended, the first at `base`, the last ending at
    /// `end_offset`. True for topics that are never compacted; compaction
    /// leaves holes. Verification holds dense segments to exact continuity,
    /// which is what catches a corrupt `base_offset` (the CRC does not cover it).
    dense: bool,
    /// Broker clock (ns) of the segment's newest append: what retention
    /// ages it by. Persisted as the `.log`'s mtime (see [`stamp_append_time`]).
    append_ns: u64,
    verified: OnceLock<Verification>,
}

/// What a rolled segment is made of, handed over when it is rolled or opened.
#[derive(Debug)]
pub struct Parts {
    /// First offset.
    pub base: u64,
    /// Offset after its last batch (the next segment's base).
    pub end_offset: u64,
    /// Size of the `.log` in bytes.
    pub size: u64,
    /// The log file.
    pub file: Arc<SegmentFile>,
    /// Its `.idx` path.
    pub idx_path: PathBuf,
    /// Its index.
    pub index: Index,
    /// Broker clock (ns) of the newest append, never a producer timestamp
    /// (for retention).
    pub append_ns: u64,
    /// Whether offsets are dense: the topic is never compacted, so each batch
    /// starts where the previous one ended.
    pub dense: bool,
}

impl RolledSegment {
    /// A segment rolled by this process, with what is known of its contents:
    /// `Verification::default()` when every batch was CRC-checked on append,
    /// or the result of the check (e.g. an active segment recovered with
    /// corruption inside).
    pub fn rolled(parts: Parts, verification: Verification) -> RolledSegment {
        let s = Self::unverified(parts);
        report(&s, &verification);
        let _ = s.verified.set(verification);
        s
    }

    /// The segment, its contents not verified yet.
    fn unverified(p: Parts) -> RolledSegment {
        RolledSegment {
            base: p.base,
            end_offset: p.end_offset,
            size: p.size,
            file: p.file,
            idx_path: p.idx_path,
            index: p.index,
            dense: p.dense,
            append_ns: p.append_ns,
            verified: OnceLock::new(),
        }
    }

    /// Open a segment rolled before this start. Loads (or rebuilds) its index;
    /// verification of its contents is left to [`RolledSegment::verify`].
    /// `dense`: the topic is never compacted (see [`Parts::dense`]).
    pub fn open(
        dir: &Path,
        base: u64,
        end_offset: u64,
        opts: &LogOptions,
        dense: bool,
        scratch: &mut Vec<u8>,
    ) -> Result<RolledSegment> {
        let interval = opts.index_interval_bytes;
        let path = dir.join(log_name(base));
        let file = File::open(&path).ctx("open segment", &path)?;
        let meta = file.metadata().ctx("stat segment", &path)?;
        let size = meta.len();
        let append_ns = stored_append_time(&meta, &path)?;
        let file = Arc::new(SegmentFile::new(path, file, opts.io.clone()));
        let idx_path = dir.join(idx_name(base));
        let index = match Index::load(&idx_path, base, size)? {
            Some(index) if index_tail_matches(&file, &index, base) => Some(index),
            Some(_) => {
                tracing::warn!(index = %idx_path.display(), "index disagrees with its log; rebuilding");
                None
            }
            None if size > 0 => {
                tracing::warn!(index = %idx_path.display(), "index missing or inconsistent; rebuilding");
                None
            }
            None => Some(Index::empty(base)),
        };
        let seg = match index {
            Some(index) => Self::unverified(Parts {
                base,
                end_offset,
                size,
                file,
                idx_path,
                index,
                append_ns,
                dense,
            }),
            None => {
                let (builder, verification) =
                    verify_scan(&file, base, end_offset, size, interval, dense, scratch)?;
                let index = builder.finish();
                index.write(&opts.io, &idx_path)?;
                Self::rolled(
                    Parts {
                        base,
                        end_offset,
                        size,
                        file,
                        idx_path,
                        index,
                        append_ns,
                        dense,
                    },
                    verification,
                )
            }
        };
        Ok(seg)
    }

    /// The verification result, if the segment has been verified.
    pub fn verification(&self) -> Option<&Verification> {
        self.verified.get()
    }

    /// Broker clock (ns) of the segment's newest append (retention's age).
    pub fn append_ns(&self) -> u64 {
        self.append_ns
    }

    /// CRC-verify the whole segment once (later calls return the stored result).
    ///
    /// If the stored index disagrees with the walk, reads use the walk's
    /// index from then on ([`Verification::index_for`]), and, when the log
    /// is intact, it replaces the `.idx` on disk.
    pub fn verify(&self, opts: &LogOptions, scratch: &mut Vec<u8>) -> Result<&Verification> {
        let interval = opts.index_interval_bytes;
        if let Some(v) = self.verified.get() {
            return Ok(v);
        }
        let (builder, verification) = verify_scan(
            &self.file,
            self.base,
            self.end_offset,
            self.size,
            interval,
            self.dense,
            scratch,
        )?;
        let mut verification = verification;
        if !self.index.same_entries(builder.entries()) {
            let fresh = builder.finish();
            if verification.bad.is_empty() {
                tracing::warn!(index = %self.idx_path.display(), "index disagrees with its log; rewriting it");
                fresh.write(&opts.io, &self.idx_path)?;
            }
            verification.index = Some(Arc::new(fresh));
        }
        report(self, &verification);
        Ok(self.verified.get_or_init(|| verification))
    }
}

fn report(seg: &RolledSegment, v: &Verification) {
    for bad in &v.bad {
        tracing::error!(
            segment = %seg.file.path.display(),
            from_offset = bad.from_offset,
            to_offset = bad.to_offset,
            from_byte = bad.from_pos,
            to_byte = bad.to_pos,
            "corrupt range in a rolled segment: it will not be served"
        );
    }
}

/// Cheap consistency check of a loaded index: its last entry must point at a
/// batch header with the offset it claims.
fn index_tail_matches(file: &SegmentFile, index: &Index, base: u64) -> bool {
    if index.is_empty() {
        return false;
    }
    let last = index.entry(index.len() - 1);
    file.header_at(u64::from(last.position))
        .is_ok_and(|h| h.base_offset == base + u64::from(last.rel_offset))
}

/// Unlink a segment's log and index (readers holding it keep their open file).
pub(crate) fn remove_segment_files(io: &Io, seg: &RolledSegment) -> Result<()> {
    let remove_if_there = |path: &Path, what: &'static str| match io.remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(StorageError::io(what, path, e)),
    };
    remove_if_there(&seg.idx_path, "remove index")?;
    io.remove_file(&seg.file.path)
        .ctx("remove segment", &seg.file.path)?;
    // After the log: a marker left without it is removed at the next open.
    let marker = seg.file.path.with_file_name(dense_name(seg.base));
    remove_if_there(&marker, "remove density marker")
}

/// Record `append_ns` (broker clock) as the segment's append time: the
/// `.log`'s mtime. The kernel moves the mtime on every write anyway, so it
/// is close to the truth even for an active segment after a crash; setting
/// it explicitly (at roll, compaction and close, each followed by an
/// `fsync` that makes it durable) makes it exact, and keeps a compacted
/// segment's age that of its data, not of the rewrite. The caller fsyncs.
pub fn stamp_append_time(file: &SegmentFile, append_ns: u64) -> Result<()> {
    file.file
        .set_modified(clock::system_time(append_ns))
        .ctx("set segment append time", &file.path)
}

/// The append time a segment's file records (its mtime), never later than
/// now: a clock that went back, or a file from elsewhere, must not make a
/// segment look younger than it can be (retention would keep it until the
/// clock caught up). A copy that did not keep mtimes makes segments look
/// newer: they are kept longer, never deleted early.
pub fn stored_append_time(meta: &std::fs::Metadata, path: &Path) -> Result<u64> {
    let mtime = meta.modified().ctx("read segment append time", path)?;
    Ok(clock::ns_of(mtime).min(clock::now_ns()))
}

/// The offset no batch of the segment based at `base` may reach past: index
/// entries hold offsets relative to the base in 32 bits.
pub fn max_end(base: u64) -> u64 {
    base.saturating_add(u64::from(u32::MAX))
}

/// Walk a rolled segment verifying every batch; on corruption, resynchronise at
/// the next valid batch ([`reader::find_resync`], as recovery does). Returns
/// a fresh index builder and the verification result.
///
/// A `dense` segment is held to exact offset continuity from `base` to
/// `end_offset`: a batch whose base offset is off (a flipped bit there passes
/// the CRC) and batches missing at the end are corruption, not holes.
#[allow(clippy::too_many_arguments)]
pub fn verify_scan(
    file: &SegmentFile,
    base: u64,
    end_offset: u64,
    size: u64,
    interval: u64,
    dense: bool,
    scratch: &mut Vec<u8>,
) -> Result<(IndexBuilder, Verification)> {
    let continuity = |from: u64| {
        if dense {
            Continuity::Strict(from)
        } else {
            Continuity::Monotonic(from)
        }
    };
    let mut builder = IndexBuilder::new(base, interval);
    let mut verification = Verification::default();
    let mut pos = 0;
    let mut expected = base;
    'scan: loop {
        let mut opts = ScanOptions::verify(continuity(expected), HARD_MAX_BATCH);
        opts.offset_limit = Some(end_offset);
        let mut reader = SegmentReader::new(&file.file, &file.path, pos, size, opts, scratch);
        let err = loop {
            match reader.next_batch() {
                Ok(Some(b)) => {
                    builder.observe(b.header.base_offset, b.position);
                }
                Ok(None) => {
                    let reached = reader.next_offset().unwrap_or(expected);
                    if dense && reached < end_offset {
                        // Whole batches are missing at the end: fence their
                        // offsets rather than let reads skip them silently.
                        verification.bad.push(BadRange {
                            from_offset: reached,
                            to_offset: end_offset,
                            from_pos: size,
                            to_pos: size,
                        });
                    }
                    break 'scan;
                }
                Err(e) => break e,
            }
        };
        let StorageError::Corrupt { position, .. } = &err else {
            return Err(err);
        };
        let bad_pos = *position;
        let bad_offset = reader.next_offset().unwrap_or(expected);
        tracing::debug!(error = %err, "verification found corruption");
        let limit = end_offset.min(max_end(base));
        let resync =
            reader::find_resync(&file.file, &file.path, bad_pos + 1, size, bad_offset, limit)?;
        match resync {
            Some((at, offset)) => {
                verification.bad.push(BadRange {
                    from_offset: bad_offset,
                    to_offset: offset,
                    from_pos: bad_pos,
                    to_pos: at,
                });
                pos = at;
                expected = offset;
            }
            None => {
                verification.bad.push(BadRange {
                    from_offset: bad_offset,
                    to_offset: end_offset,
                    from_pos: bad_pos,
                    to_pos: size,
                });
                break;
            }
        }
    }
    Ok((builder, verification))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_reject_junk() {
        assert_eq!(log_name(42), "00000000000000000042.log");
        assert_eq!(parse_name(&log_name(42), "log"), Some(42));
        assert_eq!(parse_name(&idx_name(u64::MAX), "idx"), Some(u64::MAX));
        assert_eq!(parse_name("42.log", "log"), None);
        assert_eq!(parse_name("0000000000000000004x.log", "log"), None);
        assert_eq!(parse_name("00000000000000000042.log.cleaned", "log"), None);
        assert_eq!(parse_name("99999999999999999999.log", "log"), None);
    }
}
