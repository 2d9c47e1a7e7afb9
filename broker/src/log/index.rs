//! The sparse offset index of a segment.
//!
//! `<base>.idx` holds 8-byte entries `u32 offset - base | u32 file position`,
//! big-endian, strictly increasing in both fields, one for the first batch of
//! the segment and then one for the first batch starting at least
//! `index_interval_bytes` after the previous entry. Lookups binary-search for
//! the last entry at or before an offset, then walk batch headers from there.
//! Rolled segments' indexes are memory-mapped; the active segment's lives in
//! memory and is written (atomically) when the segment is rolled.

use std::fs::File;
use std::path::Path;

use memmap2::Mmap;

use super::error::{IoContext, Result, StorageError};
use super::fsutil;
use super::io::Io;

/// Bytes per index entry.
pub const ENTRY_LEN: usize = 8;

/// One index entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexEntry {
    /// Offset of the batch minus the segment base.
    pub rel_offset: u32,
    /// File position of the batch.
    pub position: u32,
}

impl IndexEntry {
    fn decode(b: &[u8]) -> IndexEntry {
        IndexEntry {
            rel_offset: u32::from_be_bytes([b[0], b[1], b[2], b[3]]),
            position: u32::from_be_bytes([b[4], b[5], b[6], b[7]]),
        }
    }

    fn encode(&self) -> [u8; ENTRY_LEN] {
        let mut out = [0u8; ENTRY_LEN];
        out[..4].copy_from_slice(&self.rel_offset.to_be_bytes());
        out[4..].copy_from_slice(&self.position.to_be_bytes());
        out
    }
}

/// Decides which batches get an entry while a segment is written or scanned.
#[derive(Debug, Clone)]
pub struct IndexBuilder {
    base: u64,
    interval: u64,
    last_position: Option<u64>,
    entries: Vec<IndexEntry>,
}

impl IndexBuilder {
    /// A builder for a segment starting at offset `base`.
    pub fn new(base: u64, interval: u64) -> Self {
        IndexBuilder {
            base,
            interval,
            last_position: None,
            entries: Vec::new(),
        }
    }

    /// Record a batch at `position` starting at `offset`. The caller guarantees
    /// both fit in `u32` relative to the segment (enforced by segment rolling).
    pub fn observe(&mut self, offset: u64, position: u64) {
        let due = match self.last_position {
            None => true,
            Some(last) => position >= last + self.interval,
        };
        if due {
            self.entries.push(IndexEntry {
                rel_offset: (offset - self.base) as u32,
                position: position as u32,
            });
            self.last_position = Some(position);
        }
    }

    /// The entries so far.
    pub fn entries(&self) -> &[IndexEntry] {
        &self.entries
    }

    /// Finish into an in-memory index.
    pub fn finish(self) -> Index {
        let mut bytes = Vec::with_capacity(self.entries.len() * ENTRY_LEN);
        for e in &self.entries {
            bytes.extend_from_slice(&e.encode());
        }
        Index {
            base: self.base,
            data: IndexData::Owned(bytes),
        }
    }
}

#[derive(Debug)]
enum IndexData {
    Owned(Vec<u8>),
    Mapped(Mmap),
    Empty,
}

/// A read-only index: in memory or memory-mapped.
#[derive(Debug)]
pub struct Index {
    base: u64,
    data: IndexData,
}

impl Index {
    fn bytes(&self) -> &[u8] {
        match &self.data {
            IndexData::Owned(v) => v,
            IndexData::Mapped(m) => m,
            IndexData::Empty => &[],
        }
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.bytes().len() / ENTRY_LEN
    }

    /// Whether the index has no entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Entry `i` (panics if out of range; callers index below `len()`).
    pub fn entry(&self, i: usize) -> IndexEntry {
        IndexEntry::decode(&self.bytes()[i * ENTRY_LEN..(i + 1) * ENTRY_LEN])
    }

    /// Last entry at or before `offset`, as `(offset, position)`.
    pub fn lookup(&self, offset: u64) -> Option<(u64, u64)> {
        let rel = offset.checked_sub(self.base)?;
        let rel = u32::try_from(rel).unwrap_or(u32::MAX);
        // Partition point: first entry with rel_offset > rel.
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.entry(mid).rel_offset <= rel {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let e = self.entry(lo.checked_sub(1)?);
        Some((self.base + u64::from(e.rel_offset), u64::from(e.position)))
    }

    /// The last entry at or before file position `position`: its
    /// `(position, offset)`.
    pub fn floor_position(&self, position: u64) -> Option<(u64, u64)> {
        let pos = u32::try_from(position).unwrap_or(u32::MAX);
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.entry(mid).position <= pos {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let e = self.entry(lo.checked_sub(1)?);
        Some((u64::from(e.position), self.base + u64::from(e.rel_offset)))
    }

    /// The raw bytes, as written to disk.
    pub fn as_bytes(&self) -> &[u8] {
        self.bytes()
    }

    /// Whether this index has exactly the entries of `other`.
    pub fn same_entries(&self, other: &[IndexEntry]) -> bool {
        self.len() == other.len() && (0..self.len()).all(|i| self.entry(i) == other[i])
    }

    /// Write this index to `path` atomically (temp file, fsync, rename, fsync dir).
    pub fn write(&self, io: &Io, path: &Path) -> Result<()> {
        fsutil::write_atomic(io, path, self.as_bytes())
    }

    /// Map the index at `path` for a segment starting at `base` whose log is
    /// `log_len` bytes long. Returns `Ok(None)` when the file is missing or
    /// fails the structural checks (size, order, bounds), so the caller rebuilds it.
    pub fn load(path: &Path, base: u64, log_len: u64) -> Result<Option<Index>> {
        let file = match File::open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(StorageError::io("open index", path, e)),
        };
        let len = file.metadata().ctx("stat index", path)?.len();
        if len == 0 || len % ENTRY_LEN as u64 != 0 {
            return Ok(None);
        }
        // SAFETY: the broker holds the data directory lock, and index files
        // are never modified in place: they are replaced by rename, so the
        // mapped bytes cannot change under us.
        let map = unsafe { Mmap::map(&file) }.ctx("mmap index", path)?;
        let index = Index {
            base,
            data: IndexData::Mapped(map),
        };
        // Structural check; every entry is touched once here, which also
        // pages the index in before it is used.
        let mut prev: Option<IndexEntry> = None;
        for i in 0..index.len() {
            let e = index.entry(i);
            let ordered =
                prev.is_none_or(|p| e.rel_offset > p.rel_offset && e.position > p.position);
            let first_ok = prev.is_some() || e.position == 0;
            if !ordered || !first_ok || u64::from(e.position) >= log_len {
                return Ok(None);
            }
            prev = Some(e);
        }
        Ok(Some(index))
    }

    /// An index with no entries (an empty segment).
    pub fn empty(base: u64) -> Index {
        Index {
            base,
            data: IndexData::Empty,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn built(base: u64, batches: &[(u64, u64)], interval: u64) -> Index {
        let mut b = IndexBuilder::new(base, interval);
        for &(o, p) in batches {
            b.observe(o, p);
        }
        b.finish()
    }

    #[test]
    fn sparse_entries_and_lookups() {
        // Batches of 10 offsets and 1000 bytes each; one entry per 4096 bytes.
        let batches: Vec<(u64, u64)> = (0..20).map(|i| (100 + i * 10, i * 1000)).collect();
        let idx = built(100, &batches, 4096);
        let positions: Vec<u32> = (0..idx.len()).map(|i| idx.entry(i).position).collect();
        assert_eq!(positions, [0, 5000, 10000, 15000]);
        assert_eq!(idx.lookup(99), None);
        assert_eq!(idx.lookup(100), Some((100, 0)));
        assert_eq!(idx.lookup(149), Some((100, 0)));
        assert_eq!(idx.lookup(150), Some((150, 5000)));
        assert_eq!(idx.lookup(10_000), Some((250, 15000)));
        assert_eq!(idx.floor_position(4999), Some((0, 100)));
        assert_eq!(idx.floor_position(5000), Some((5000, 150)));
        assert_eq!(idx.floor_position(u64::MAX), Some((15000, 250)));
    }

    #[test]
    fn every_batch_with_zero_interval() {
        let idx = built(0, &[(0, 0), (1, 40), (5, 80)], 0);
        assert_eq!(idx.len(), 3);
        assert_eq!(idx.lookup(4), Some((1, 40)));
    }

    #[test]
    fn load_rejects_inconsistent_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("00000000000000000000.idx");
        assert!(Index::load(&path, 0, 100).unwrap().is_none(), "missing");
        let idx = built(0, &[(0, 0), (3, 50)], 0);
        idx.write(&Io::real(), &path).unwrap();
        let loaded = Index::load(&path, 0, 100).unwrap().unwrap();
        assert!(loaded.same_entries(&[
            IndexEntry {
                rel_offset: 0,
                position: 0
            },
            IndexEntry {
                rel_offset: 3,
                position: 50
            }
        ]));
        assert!(
            Index::load(&path, 0, 50).unwrap().is_none(),
            "entry beyond the log"
        );
        std::fs::write(&path, [0u8; 7]).unwrap();
        assert!(Index::load(&path, 0, 100).unwrap().is_none(), "torn entry");
        let mut bad = Vec::new();
        bad.extend_from_slice(
            &IndexEntry {
                rel_offset: 5,
                position: 0,
            }
            .encode(),
        );
        bad.extend_from_slice(
            &IndexEntry {
                rel_offset: 4,
                position: 10,
            }
            .encode(),
        );
        std::fs::write(&path, bad).unwrap();
        assert!(
            Index::load(&path, 0, 100).unwrap().is_none(),
            "out of order"
        );
    }
}
