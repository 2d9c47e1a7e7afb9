//! Offline verification of a data directory (`hermit log check`), and the
//! batch listing behind `hermit log dump`. Read-only: nothing is truncated,
//! rebuilt or removed — the broker's own recovery does that on start.

use std::fs::{self, File};
use std::path::{Path, PathBuf};

use hermit_protocol::RecordHeader;

use super::catalog::{self, Entry};
use super::error::{IoContext, Result, StorageError};
use super::index::Index;
use super::lock::DirLock;
use super::reader::{self, Continuity, HARD_MAX_BATCH, ScanOptions, SegmentReader};
use super::segment::{self, idx_name};
use super::slab;
use hermit_protocol::Cleanup;

/// What is wrong with a segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Finding {
    /// The log ends in a torn or corrupt batch at `position`, with no valid
    /// batch after it (a crash leaves this in the last segment; recovery
    /// truncates it there). Called `DamagedTail` before.
    TornTail {
        /// First bad byte.
        position: u64,
        /// Bytes after it.
        bytes: u64,
        /// What was wrong.
        reason: String,
    },
    /// Corruption in a rolled segment, or in the last one with valid batches
    /// after it (never served by the broker). Called `Damaged` before.
    Corrupt {
        /// First bad byte.
        position: u64,
        /// What was wrong.
        reason: String,
    },
    /// The segment ends before the next segment starts (offsets missing).
    Gap {
        /// Offset after the last batch.
        end: u64,
        /// The next segment's base.
        next_base: u64,
    },
    /// The index is missing (rebuilt on start).
    IndexMissing,
    /// The index disagrees with the log (rebuilt on start).
    IndexMismatch,
}

impl Finding {
    /// Whether this is corrupt data (not a rebuildable index, not a crash's torn tail).
    pub fn is_corruption(&self) -> bool {
        matches!(self, Finding::Corrupt { .. } | Finding::Gap { .. })
    }
}

/// The check of one segment.
#[derive(Debug, Clone)]
pub struct SegmentReport {
    /// The `.log` path.
    pub path: PathBuf,
    /// First offset the segment may hold.
    pub base: u64,
    /// Bytes.
    pub size: u64,
    /// Valid batches.
    pub batches: u64,
    /// Offset after the last valid batch.
    pub next_offset: u64,
    /// What was found.
    pub findings: Vec<Finding>,
}

/// The check of one partition.
#[derive(Debug, Clone)]
pub struct PartitionReport {
    /// Topic.
    pub topic: String,
    /// Partition.
    pub partition: u32,
    /// Segments, oldest first.
    pub segments: Vec<SegmentReport>,
}

/// The check of a whole data directory.
#[derive(Debug, Clone, Default)]
pub struct CheckReport {
    /// Partitions.
    pub partitions: Vec<PartitionReport>,
    /// Problems outside any segment (corruption in the topic catalog, …).
    pub other: Vec<String>,
}

impl CheckReport {
    /// Whether anything needs attention (findings or other problems).
    pub fn is_clean(&self) -> bool {
        self.other.is_empty()
            && self
                .partitions
                .iter()
                .flat_map(|p| &p.segments)
                .all(|s| s.findings.is_empty())
    }

    /// Whether data is corrupt (beyond a crash tail and rebuildable indexes).
    pub fn has_corruption(&self) -> bool {
        !self.other.is_empty()
            || self
                .partitions
                .iter()
                .flat_map(|p| &p.segments)
                .flat_map(|s| &s.findings)
                .any(Finding::is_corruption)
    }
}

/// One partition as the catalog describes it.
#[derive(Debug, Clone)]
pub struct CatalogPartition {
    /// Topic name.
    pub topic: String,
    /// Partition number.
    pub partition: u32,
    /// Its directory (absent until the partition is first used, and while
    /// it lives in its slot).
    pub dir: PathBuf,
    /// Whether its segments are dense (`cleanup = delete`: never compacted).
    pub dense: bool,
    /// Its slot, if its topic has slots.
    pub slot: Option<u64>,
}

impl CatalogPartition {
    /// Whether it lives in its slot now: it has one, and no directory.
    pub fn in_slot(&self) -> bool {
        self.slot.is_some() && !self.dir.exists()
    }
}

/// One segment as the tools read it: `[start, end)` of a file.
struct Span {
    /// What reports name: the `.log`, or the slab with the slot's origin.
    name: PathBuf,
    /// The file read.
    path: PathBuf,
    file: File,
    base: u64,
    start: u64,
    end: u64,
    slot: bool,
}

/// The segments of a partition, oldest first: its slot's, or its
/// directory's; none if nothing of it is on disk.
fn spans(data_dir: &Path, cp: &CatalogPartition) -> Result<Vec<Span>> {
    if let Some(slot) = cp.slot
        && !cp.dir.exists()
    {
        let (n, origin) = slab::place(slot);
        let path = slab::slab_path(data_dir, n);
        let file = match File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(StorageError::io("open slab", &path, e)),
        };
        let len = file.metadata().ctx("stat slab", &path)?.len();
        let end = len.clamp(origin, origin + slab::SLOT_BYTES);
        if end == origin {
            return Ok(Vec::new());
        }
        return Ok(vec![Span {
            name: PathBuf::from(format!("{}@{origin}", path.display())),
            path,
            file,
            base: 0,
            start: origin,
            end,
            slot: true,
        }]);
    }
    if !cp.dir.exists() {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for base in segment_bases(&cp.dir)? {
        let path = cp.dir.join(segment::log_name(base));
        let file = File::open(&path).ctx("open segment", &path)?;
        let end = file.metadata().ctx("stat segment", &path)?.len();
        out.push(Span {
            name: path.clone(),
            path,
            file,
            base,
            start: 0,
            end,
            slot: false,
        });
    }
    Ok(out)
}

/// Whether `[from, end)` of a slot holds only zeros: the clean end of a slot.
fn zeros_to_end(span: &Span, from: u64) -> Result<bool> {
    use std::os::unix::fs::FileExt;
    let mut rest = vec![0u8; (span.end - from) as usize];
    span.file
        .read_exact_at(&mut rest, from)
        .ctx("read slot", &span.path)?;
    Ok(rest.iter().all(|b| *b == 0))
}

/// Every partition of every topic in the catalog of `data_dir`, by topic
/// name, read-only; and corruption found in the catalog (a torn tail, what a
/// crash leaves, is not reported: the broker truncates it).
pub fn catalog_partitions(data_dir: &Path) -> Result<(Vec<CatalogPartition>, Vec<String>)> {
    let path = data_dir.join(catalog::CATALOG_FILE);
    let replay = catalog::read(&path)?;
    let other = replay
        .skipped
        .iter()
        .map(|(from, to)| {
            format!(
                "{}: corrupt entries at bytes {from}..{to} (valid entries follow)",
                path.display()
            )
        })
        .collect();
    let (mut live, _) = catalog::split_entries(replay.entries.into_iter().map(|(_, e)| e));
    live.sort_by(|a, b| match (a, b) {
        (Entry::Create { name: x, .. }, Entry::Create { name: y, .. }) => x.cmp(y),
        _ => std::cmp::Ordering::Equal,
    });
    let mut out = Vec::new();
    for e in &live {
        if let Entry::Create {
            name,
            settings,
            first_slot,
            ..
        } = e
        {
            for (p, dir) in e.partition_dirs(data_dir) {
                out.push(CatalogPartition {
                    dir,
                    topic: name.clone(),
                    partition: p,
                    dense: settings.cleanup == Cleanup::Delete,
                    slot: first_slot.map(|s| s + u64::from(p)),
                });
            }
        }
    }
    Ok((out, other))
}

/// Partition `partition` of `topic` in `data_dir`, by its catalog
/// (read-only; fine beside a running broker); `None` if the catalog has no
/// such topic or partition.
pub fn find_partition(
    data_dir: &Path,
    topic: &str,
    partition: u32,
) -> Result<Option<CatalogPartition>> {
    let (parts, _) = catalog_partitions(data_dir)?;
    Ok(parts
        .into_iter()
        .find(|p| p.topic == topic && p.partition == partition))
}

/// The directory of partition `partition` of `topic` in `data_dir` (see
/// [`find_partition`]); it exists once the partition left its slot.
pub fn find_partition_dir(data_dir: &Path, topic: &str, partition: u32) -> Result<Option<PathBuf>> {
    Ok(find_partition(data_dir, topic, partition)?.map(|p| p.dir))
}

/// Verify every segment of every partition in `data_dir`: CRCs, offset
/// continuity, indexes. Takes the directory lock, so it refuses to run
/// beside a live broker.
pub fn check_dir(data_dir: &Path) -> Result<CheckReport> {
    let _lock = DirLock::acquire(data_dir)?;
    let (parts, other) = catalog_partitions(data_dir)?;
    let mut report = CheckReport {
        other,
        ..CheckReport::default()
    };
    for p in parts {
        let spans = spans(data_dir, &p)?;
        if spans.is_empty() {
            // Never written: nothing on disk to check.
            continue;
        }
        report.partitions.push(check_partition(&p, spans)?);
    }
    Ok(report)
}

fn segment_bases(dir: &Path) -> Result<Vec<u64>> {
    let mut bases: Vec<u64> = fs::read_dir(dir)
        .ctx("list partition directory", dir)?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            e.file_name()
                .to_str()
                .and_then(|n| segment::parse_name(n, "log"))
        })
        .collect();
    bases.sort_unstable();
    Ok(bases)
}

fn check_partition(cp: &CatalogPartition, spans: Vec<Span>) -> Result<PartitionReport> {
    let (dir, dense) = (&cp.dir, cp.dense);
    let bases: Vec<u64> = spans.iter().map(|s| s.base).collect();
    let mut segments = Vec::new();
    let mut scratch = Vec::new();
    for (i, span) in spans.iter().enumerate() {
        let base = span.base;
        let next_base = bases.get(i + 1).copied();
        let last = next_base.is_none();
        let (file, path) = (&span.file, &span.path);
        let size = span.end - span.start;
        // A compacted topic's segment that recovery rolled with corruption keeps
        // dense offsets, and the broker verifies it so (segment::dense_name).
        let dense = dense || dir.join(segment::dense_name(base)).exists();
        let continuity = if dense || last {
            Continuity::Strict(base)
        } else {
            Continuity::Monotonic(base)
        };
        let mut opts = ScanOptions::verify(continuity, HARD_MAX_BATCH);
        opts.offset_limit = next_base;
        let mut reader = SegmentReader::new(file, path, span.start, span.end, opts, &mut scratch);
        let mut batches = 0;
        let mut positions = Vec::new();
        let mut findings = Vec::new();
        loop {
            match reader.next_batch() {
                Ok(Some(b)) => {
                    batches += 1;
                    positions.push((b.header.base_offset, b.position));
                }
                Ok(None) => break,
                Err(StorageError::Corrupt { .. })
                    if span.slot && zeros_to_end(span, reader.position())? =>
                {
                    // Zeros after the last batch: the slot's clean end.
                    break;
                }
                Err(StorageError::Corrupt { position, kind, .. }) => {
                    // Corruption in the last segment is a torn tail only if no
                    // valid batch follows it (recovery applies the same rule).
                    let valid_after = last
                        && reader::find_resync(
                            file,
                            path,
                            position + 1,
                            span.end,
                            reader.next_offset().unwrap_or(base),
                            segment::max_end(base),
                        )?
                        .is_some();
                    findings.push(if last && !valid_after {
                        Finding::TornTail {
                            position,
                            bytes: span.end - position,
                            reason: kind.to_string(),
                        }
                    } else {
                        Finding::Corrupt {
                            position,
                            reason: kind.to_string(),
                        }
                    });
                    break;
                }
                Err(e) => return Err(e),
            }
        }
        let next_offset = reader.next_offset().unwrap_or(base);
        if dense
            && findings.is_empty()
            && let Some(nb) = next_base
            && next_offset != nb
        {
            findings.push(Finding::Gap {
                end: next_offset,
                next_base: nb,
            });
        }
        if !last && findings.is_empty() {
            // (A corrupt segment's index cannot be judged past the corruption.)
            // The index of a rolled segment must hold exactly the entries a
            // walk produces, whatever interval wrote it: check that every
            // entry names a batch start and that entries are a subsequence.
            let idx_path = dir.join(idx_name(base));
            match Index::load(&idx_path, base, size.max(1))? {
                None if size > 0 => findings.push(Finding::IndexMissing),
                None => {}
                Some(index) => {
                    let ok = (0..index.len()).all(|k| {
                        let e = index.entry(k);
                        positions
                            .binary_search(&(base + u64::from(e.rel_offset), u64::from(e.position)))
                            .is_ok()
                    });
                    if !ok {
                        findings.push(Finding::IndexMismatch);
                    }
                }
            }
        }
        segments.push(SegmentReport {
            path: span.name.clone(),
            base,
            size,
            batches,
            next_offset,
            findings,
        });
    }
    Ok(PartitionReport {
        topic: cp.topic.clone(),
        partition: cp.partition,
        segments,
    })
}

/// One line of `hermit log dump`.
#[derive(Debug, Clone)]
pub struct DumpEntry {
    /// The file holding the batch: a segment, or the slab of a slot.
    pub segment: PathBuf,
    /// Byte position in it.
    pub position: u64,
    /// The header.
    pub header: RecordHeader,
}

/// Every valid batch header of a partition of the data directory
/// `data_dir`, in order, and the corruption that ended a segment's scan, if
/// any. Read-only; no lock is taken (a dump of a live broker's directory
/// may end in a half-written batch).
pub fn dump_partition(
    data_dir: &Path,
    cp: &CatalogPartition,
    mut each: impl FnMut(&DumpEntry),
) -> Result<Vec<(PathBuf, String)>> {
    let mut corrupt = Vec::new();
    let mut scratch = Vec::new();
    for span in spans(data_dir, cp)? {
        let opts = ScanOptions::verify(Continuity::Unchecked, HARD_MAX_BATCH);
        let mut reader = SegmentReader::new(
            &span.file,
            &span.path,
            span.start,
            span.end,
            opts,
            &mut scratch,
        );
        loop {
            match reader.next_batch() {
                Ok(Some(b)) => each(&DumpEntry {
                    segment: span.path.clone(),
                    position: b.position,
                    header: b.header,
                }),
                Ok(None) => break,
                Err(StorageError::Corrupt { .. })
                    if span.slot && zeros_to_end(&span, reader.position())? =>
                {
                    break;
                }
                Err(e @ StorageError::Corrupt { .. }) => {
                    corrupt.push((span.name.clone(), e.to_string()));
                    break;
                }
                Err(e) => return Err(e),
            }
        }
    }
    Ok(corrupt)
}
