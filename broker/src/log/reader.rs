//! The segment reader: the only way to scan a log file.
//!
//! It walks batches from a position, checking each header, its length
//! against the file, offset continuity and (optionally) the CRC, and stops
//! at the first batch that fails — reporting where and why. Recovery,
//! verification of rolled segments, index rebuilds, the offline `hermit log
//! check` and [`Partition::scan_batches`](super::Partition::scan_batches)
//! (what compaction and the offsets store read a partition with) all scan
//! through it, so they agree on what a valid log is.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;

use hermit_protocol::record::{CRC_START, HEADER_LEN, RecordHeader};

use super::error::{Corruption, Result, StorageError};

/// Largest batch any scan accepts: beyond every configurable limit
/// (1 GiB payload, 1 MiB key), so lowering a limit never makes old data "corrupt".
pub const HARD_MAX_BATCH: u64 = HEADER_LEN as u64 + (1 << 20) + (1 << 30);

/// How batch offsets must follow each other.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Continuity {
    /// Each batch starts exactly where the previous one ended, the first at
    /// the given offset (the active segment, never compacted).
    Strict(u64),
    /// Each batch starts at or after where the previous one ended, the first
    /// at or after the given offset (compaction leaves holes).
    Monotonic(u64),
    /// No check (walking headers from an index entry to find an offset).
    Unchecked,
}

/// What a scan checks and returns.
#[derive(Debug, Clone, Copy)]
pub struct ScanOptions {
    /// Verify each batch's CRC.
    pub verify_crc: bool,
    /// Offset continuity rule.
    pub continuity: Continuity,
    /// Batches must end before this offset (the next segment's base).
    pub offset_limit: Option<u64>,
    /// Largest batch length accepted; anything longer is corruption.
    pub max_batch_len: u64,
    /// Read buffer size.
    pub buffer: usize,
}

impl ScanOptions {
    /// A full verification: CRC and the given continuity, no bytes returned.
    pub fn verify(continuity: Continuity, max_batch_len: u64) -> Self {
        ScanOptions {
            verify_crc: true,
            continuity,
            offset_limit: None,
            max_batch_len,
            buffer: 1 << 20,
        }
    }

    /// Headers only, no checks beyond structure (locating an offset).
    pub fn headers(max_batch_len: u64) -> Self {
        ScanOptions {
            verify_crc: false,
            continuity: Continuity::Unchecked,
            offset_limit: None,
            max_batch_len,
            buffer: 8 * 1024,
        }
    }
}

/// One valid batch found by [`SegmentReader::next_batch`]: where it is and
/// its header.
#[derive(Debug, Clone, Copy)]
pub struct ScannedBatch {
    /// File position of the batch.
    pub position: u64,
    /// Its header.
    pub header: RecordHeader,
}

impl ScannedBatch {
    /// File position just after the batch.
    pub fn end(&self) -> u64 {
        self.position + self.header.batch_len()
    }
}

/// One valid batch found by [`SegmentReader::next_whole_batch`], with its
/// bytes (borrowed from the reader's buffer until the next call).
#[derive(Debug)]
pub struct WholeBatch<'r> {
    /// File position of the batch.
    pub position: u64,
    /// Its header.
    pub header: RecordHeader,
    /// The whole batch, header included, as stored.
    pub bytes: &'r [u8],
}

impl WholeBatch<'_> {
    /// The batch's key (empty for a keyless batch).
    pub fn key(&self) -> &[u8] {
        // In bounds: the reader yields a batch only when its bytes are
        // exactly header + key + payload, as the header says.
        &self.bytes[HEADER_LEN..HEADER_LEN + self.header.key_len as usize]
    }
}

/// A scan over one segment file. Call [`SegmentReader::next_batch`] (headers)
/// or [`SegmentReader::next_whole_batch`] (headers and bytes) until it
/// returns `Ok(None)` (clean end) or an error ([`StorageError::Corrupt`] names
/// the position where the valid log ends; the reader then stays finished).
pub struct SegmentReader<'f> {
    file: &'f File,
    path: &'f Path,
    pos: u64,
    end: u64,
    opts: ScanOptions,
    expected: Option<u64>,
    buf: &'f mut Vec<u8>,
    buf_pos: u64,
    buf_len: usize,
    done: bool,
}

impl<'f> SegmentReader<'f> {
    /// Scan `file` from byte `start` up to byte `end` (usually the file length),
    /// reading through `buf` (grown to `opts.buffer`; reuse it to avoid allocating).
    pub fn new(
        file: &'f File,
        path: &'f Path,
        start: u64,
        end: u64,
        opts: ScanOptions,
        buf: &'f mut Vec<u8>,
    ) -> Self {
        // No bigger than the range scanned: small files get small buffers.
        let span = usize::try_from(end.saturating_sub(start)).unwrap_or(usize::MAX);
        let want = opts.buffer.min(span).max(HEADER_LEN);
        if buf.len() < want {
            buf.resize(want, 0);
        }
        let expected = match opts.continuity {
            Continuity::Strict(o) | Continuity::Monotonic(o) => Some(o),
            Continuity::Unchecked => None,
        };
        SegmentReader {
            file,
            path,
            pos: start,
            end,
            opts,
            expected,
            buf,
            buf_pos: start,
            buf_len: 0,
            done: false,
        }
    }

    /// Position of the next batch (after the last valid one, once finished).
    pub fn position(&self) -> u64 {
        self.pos
    }

    /// The offset after the last valid batch, when continuity is checked.
    pub fn next_offset(&self) -> Option<u64> {
        self.expected
    }

    /// Make `[pos, pos + len)` available in the buffer; returns it.
    fn ensure(&mut self, pos: u64, len: usize) -> Result<&[u8]> {
        let have_from = pos.checked_sub(self.buf_pos);
        let cached = have_from.is_some_and(|off| off as usize + len <= self.buf_len);
        if !cached {
            if len > self.buf.len() {
                self.buf.resize(len, 0);
            }
            let want = (self.buf.len() as u64).min(self.end - pos) as usize;
            let mut filled = 0;
            while filled < want {
                let n = self
                    .file
                    .read_at(&mut self.buf[filled..want], pos + filled as u64)
                    .map_err(|e| StorageError::io("read", self.path, e))?;
                if n == 0 {
                    break;
                }
                filled += n;
            }
            self.buf_pos = pos;
            self.buf_len = filled;
            if filled < len {
                // The file shrank under us: treat like a torn tail.
                return Err(self.corrupt(
                    pos,
                    Corruption::PastEof {
                        len: len as u64,
                        have: filled as u64,
                    },
                ));
            }
        }
        let off = (pos - self.buf_pos) as usize;
        Ok(&self.buf[off..off + len])
    }

    fn corrupt(&self, position: u64, kind: Corruption) -> StorageError {
        StorageError::Corrupt {
            path: self.path.to_path_buf(),
            position,
            kind,
        }
    }

    fn fail(&mut self, position: u64, kind: Corruption) -> StorageError {
        self.done = true;
        self.corrupt(position, kind)
    }

    /// The next valid batch; `Ok(None)` at a clean end of file.
    pub fn next_batch(&mut self) -> Result<Option<ScannedBatch>> {
        self.advance(false)
    }

    /// The next valid batch with its bytes (the buffer grows to hold the
    /// batch); `Ok(None)` at a clean end of file.
    pub fn next_whole_batch(&mut self) -> Result<Option<WholeBatch<'_>>> {
        let Some(b) = self.advance(true)? else {
            return Ok(None);
        };
        // `advance(true)` left the whole batch in the buffer: no read here.
        let bytes = self.ensure(b.position, b.header.batch_len() as usize)?;
        Ok(Some(WholeBatch {
            position: b.position,
            header: b.header,
            bytes,
        }))
    }

    /// Check the next batch and move past it. With `whole`, the batch ends
    /// up in the buffer in one piece (for [`Self::next_whole_batch`]).
    fn advance(&mut self, whole: bool) -> Result<Option<ScannedBatch>> {
        if self.done || self.pos >= self.end {
            self.done = true;
            return Ok(None);
        }
        let pos = self.pos;
        let left = self.end - pos;
        if left < HEADER_LEN as u64 {
            return Err(self.fail(pos, Corruption::TornHeader { have: left }));
        }
        let header = match self.ensure(pos, HEADER_LEN).map(RecordHeader::decode) {
            Ok(Ok(h)) => h,
            Ok(Err(e)) => return Err(self.fail(pos, Corruption::BadHeader(e))),
            Err(e) => {
                self.done = true;
                return Err(e);
            }
        };
        let len = header.batch_len();
        if len > self.opts.max_batch_len {
            let max = self.opts.max_batch_len;
            return Err(self.fail(pos, Corruption::TooLarge { len, max }));
        }
        if len > left {
            return Err(self.fail(pos, Corruption::PastEof { len, have: left }));
        }
        let Some(batch_end) = header.next_offset() else {
            return Err(self.fail(
                pos,
                Corruption::OffsetOverflow {
                    base: header.base_offset,
                    end: u64::MAX,
                    limit: u64::MAX,
                },
            ));
        };
        match (self.opts.continuity, self.expected) {
            (Continuity::Strict(_), Some(exp)) if header.base_offset != exp => {
                return Err(self.fail(
                    pos,
                    Corruption::OffsetGap {
                        expected: exp,
                        found: header.base_offset,
                    },
                ));
            }
            (Continuity::Monotonic(_), Some(exp)) if header.base_offset < exp => {
                return Err(self.fail(
                    pos,
                    Corruption::OffsetGap {
                        expected: exp,
                        found: header.base_offset,
                    },
                ));
            }
            _ => {}
        }
        if let Some(limit) = self.opts.offset_limit
            && batch_end > limit
        {
            return Err(self.fail(
                pos,
                Corruption::OffsetOverflow {
                    base: header.base_offset,
                    end: batch_end,
                    limit,
                },
            ));
        }
        let len_usize = len as usize; // bounded by max_batch_len
        if self.opts.verify_crc {
            let computed = if whole || len_usize <= self.buf.len() {
                let bytes = self.ensure(pos, len_usize)?;
                crc32c::crc32c(&bytes[CRC_START..])
            } else {
                // Stream a batch larger than the buffer through it.
                let mut crc = 0;
                let mut at = pos + CRC_START as u64;
                let stop = pos + len;
                while at < stop {
                    let n = (self.buf.len() as u64).min(stop - at) as usize;
                    crc = crc32c::crc32c_append(crc, self.ensure(at, n)?);
                    at += n as u64;
                }
                crc
            };
            if computed != header.crc {
                return Err(self.fail(
                    pos,
                    Corruption::Crc {
                        stored: header.crc,
                        computed,
                    },
                ));
            }
        }
        if self.expected.is_some() {
            self.expected = Some(batch_end);
        }
        if whole {
            // Load it now, so an error reading it is this batch's error.
            self.ensure(pos, len_usize)?;
        }
        self.pos = pos + len;
        Ok(Some(ScannedBatch {
            position: pos,
            header,
        }))
    }
}

/// Search `[from, end)` of a segment for the first position where a valid
/// batch (CRC-checked, base offset at least `min_offset`, ending at or
/// before `offset_limit`) starts. Returns its position and base offset.
/// Recovery, verification and `hermit log check` all resume here after
/// corruption, so they fence the same ranges.
///
/// This tells a torn tail from corruption in the middle of a log: a crash only
/// ever leaves an incomplete *last* write, so if any valid batch follows
/// the first bad one, the bad bytes are corruption and what follows is
/// acknowledged data that must not be truncated away.
pub fn find_resync(
    file: &File,
    path: &Path,
    from: u64,
    end: u64,
    min_offset: u64,
    offset_limit: u64,
) -> Result<Option<(u64, u64)>> {
    const CHUNK: usize = 1 << 20;
    let mut chunk = vec![0u8; CHUNK.min(end.saturating_sub(from) as usize)];
    let mut scratch = Vec::new();
    let mut pos = from;
    while pos < end {
        let n = ((end - pos) as usize).min(chunk.len());
        file.read_exact_at(&mut chunk[..n], pos)
            .map_err(|e| StorageError::io("read", path, e))?;
        for (i, _) in chunk[..n]
            .iter()
            .enumerate()
            .filter(|(_, b)| **b == hermit_protocol::record::MAGIC)
        {
            let at = pos + i as u64;
            if end - at < HEADER_LEN as u64 {
                continue;
            }
            // Cheap plausibility checks before a CRC over the claimed length.
            let mut hb = [0u8; HEADER_LEN];
            match chunk.get(i..i + HEADER_LEN) {
                Some(b) => hb.copy_from_slice(b),
                None => file
                    .read_exact_at(&mut hb, at)
                    .map_err(|e| StorageError::io("read", path, e))?,
            }
            let Ok(h) = RecordHeader::decode(&hb) else {
                continue;
            };
            let plausible = h.base_offset >= min_offset
                && h.base_offset
                    .checked_add(u64::from(h.record_count))
                    .is_some_and(|e| e <= offset_limit)
                && h.key_len <= (1 << 20)
                && h.batch_len() <= end - at;
            if !plausible {
                continue;
            }
            let mut opts = ScanOptions::verify(Continuity::Monotonic(min_offset), HARD_MAX_BATCH);
            opts.buffer = 64 * 1024;
            opts.offset_limit = Some(offset_limit);
            let mut reader = SegmentReader::new(file, path, at, end, opts, &mut scratch);
            if let Ok(Some(b)) = reader.next_batch() {
                return Ok(Some((at, b.header.base_offset)));
            }
        }
        pos += n as u64;
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hermit_protocol::record::{BatchBuilder, patch_base_offset};
    use std::io::Write;

    fn batch(base: u64, n: usize, size: usize) -> Vec<u8> {
        let mut b = BatchBuilder::new(b"key");
        for i in 0..n {
            b.push(&vec![i as u8; size]);
        }
        let mut bytes = b.finish(1).unwrap();
        patch_base_offset(&mut bytes, base);
        bytes
    }

    fn file_with(batches: &[Vec<u8>]) -> (tempfile::NamedTempFile, u64) {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        for b in batches {
            f.write_all(b).unwrap();
        }
        let len = f.as_file().metadata().unwrap().len();
        (f, len)
    }

    fn scan(
        f: &tempfile::NamedTempFile,
        len: u64,
        opts: ScanOptions,
    ) -> (Vec<u64>, Option<StorageError>) {
        let mut buf = Vec::new();
        let mut r = SegmentReader::new(f.as_file(), f.path(), 0, len, opts, &mut buf);
        let mut bases = Vec::new();
        loop {
            match r.next_batch() {
                Ok(Some(b)) => bases.push(b.header.base_offset),
                Ok(None) => return (bases, None),
                Err(e) => return (bases, Some(e)),
            }
        }
    }

    #[test]
    fn scans_valid_batches_and_streams_big_ones() {
        let (f, len) = file_with(&[batch(0, 3, 10), batch(3, 1, 100_000), batch(4, 2, 5)]);
        let mut opts = ScanOptions::verify(Continuity::Strict(0), 1 << 30);
        opts.buffer = 4096; // smaller than the middle batch
        let (bases, err) = scan(&f, len, opts);
        assert_eq!(bases, [0, 3, 4]);
        assert!(err.is_none());
    }

    #[test]
    fn whole_batches_are_the_stored_bytes_even_above_the_buffer_size() {
        let batches = [batch(0, 3, 10), batch(3, 1, 100_000), batch(4, 2, 5)];
        let (f, len) = file_with(&batches);
        let mut opts = ScanOptions::verify(Continuity::Strict(0), 1 << 30);
        opts.buffer = 4096; // smaller than the middle batch
        let mut buf = Vec::new();
        let mut r = SegmentReader::new(f.as_file(), f.path(), 0, len, opts, &mut buf);
        let mut pos = 0;
        for want in &batches {
            let b = r.next_whole_batch().unwrap().expect("a batch");
            assert_eq!(b.position, pos);
            assert_eq!(b.bytes, &want[..]);
            assert_eq!(b.key(), b"key");
            pos += want.len() as u64;
        }
        assert!(r.next_whole_batch().unwrap().is_none());
    }

    #[test]
    fn stops_at_gap_crc_and_torn_tail() {
        let (f, len) = file_with(&[batch(0, 3, 10), batch(5, 1, 10)]);
        let (bases, err) = scan(&f, len, ScanOptions::verify(Continuity::Strict(0), 1 << 20));
        assert_eq!(bases, [0]);
        assert!(matches!(
            err,
            Some(StorageError::Corrupt {
                kind: Corruption::OffsetGap {
                    expected: 3,
                    found: 5
                },
                ..
            })
        ));
        // Monotonic accepts the hole.
        let (bases, err) = scan(
            &f,
            len,
            ScanOptions::verify(Continuity::Monotonic(0), 1 << 20),
        );
        assert_eq!(bases, [0, 5]);
        assert!(err.is_none());

        let mut b = batch(3, 1, 10);
        let last = b.len() - 1;
        b[last] ^= 1;
        let (f, len) = file_with(&[batch(0, 3, 10), b]);
        let (bases, err) = scan(&f, len, ScanOptions::verify(Continuity::Strict(0), 1 << 20));
        assert_eq!(bases, [0]);
        assert!(matches!(
            err,
            Some(StorageError::Corrupt {
                kind: Corruption::Crc { .. },
                ..
            })
        ));

        let first = batch(0, 3, 10);
        let (f, _) = file_with(&[first.clone(), batch(3, 1, 10)]);
        let (bases, err) = scan(
            &f,
            first.len() as u64 + 20,
            ScanOptions::verify(Continuity::Strict(0), 1 << 20),
        );
        assert_eq!(bases, [0]);
        assert!(matches!(
            err,
            Some(StorageError::Corrupt { kind: Corruption::TornHeader { have: 20 }, position, .. }) if position == first.len() as u64
        ));
    }

    #[test]
    fn resync_finds_the_next_valid_batch_after_damage() {
        let first = batch(0, 3, 10);
        let mut second = batch(3, 2, 10);
        let third = batch(5, 1, 10);
        second[40] ^= 0xff; // payload corruption: CRC fails, lengths intact
        let (f, len) = file_with(&[first.clone(), second.clone(), third.clone()]);
        let at = (first.len() + second.len()) as u64;
        assert_eq!(
            find_resync(
                f.as_file(),
                f.path(),
                first.len() as u64 + 1,
                len,
                3,
                u64::MAX
            )
            .unwrap(),
            Some((at, 5))
        );
        // Nothing valid after a torn tail.
        let (f, _) = file_with(&[first.clone(), second.clone()]);
        let torn = (first.len() + second.len() - 4) as u64;
        assert_eq!(
            find_resync(
                f.as_file(),
                f.path(),
                first.len() as u64 + 1,
                torn,
                3,
                u64::MAX
            )
            .unwrap(),
            None
        );
        // Batches with offsets below the minimum are not a resync point.
        let (f, len) = file_with(&[first.clone(), batch(0, 3, 10)]);
        assert_eq!(
            find_resync(f.as_file(), f.path(), 1, len, 3, u64::MAX).unwrap(),
            None
        );
    }

    #[test]
    fn refuses_absurd_lengths_before_reading() {
        let mut b = batch(0, 1, 10);
        b[25..29].copy_from_slice(&u32::MAX.to_be_bytes());
        let (f, len) = file_with(&[b]);
        let (_, err) = scan(&f, len, ScanOptions::verify(Continuity::Strict(0), 1 << 20));
        assert!(matches!(
            err,
            Some(StorageError::Corrupt {
                kind: Corruption::TooLarge { .. },
                ..
            })
        ));
    }
}
