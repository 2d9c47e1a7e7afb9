//! The record batch: the unit the broker stores and ships, byte for byte.
//!
//! ```text
//! off size field
//!   0    1 magic          0x02
//!   1    8 base_offset    assigned by the broker; not covered by the CRC
//!   9    4 crc32c         CRC-32C (Castagnoli) of bytes 13..end
//!  13    8 timestamp_ns   producer clock (broker stamps it when 0)
//!  21    4 key_len
//!  25    4 payload_len
//!  29    4 record_count   >= 1; the batch takes offsets base..base+count
//!  33    . key, then payload (client layout: record_count x (u32 len, bytes))
//! ```

use std::time::{SystemTime, UNIX_EPOCH};

use crate::codec::Reader;
use crate::error::WireError;

/// The wall clock as a batch timestamp: nanoseconds since the Unix epoch,
/// never 0 (a timestamp of 0 asks the broker to stamp the batch) — 1 if the
/// clock is before the epoch, `u64::MAX` past the year 2554.
pub fn now_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(1, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
        .max(1)
}

/// Magic byte of a version-2 record batch (version 1 had no CRC and used `0x01`).
pub const MAGIC: u8 = 0x02;
/// Length of [`RecordHeader`] on the wire.
pub const HEADER_LEN: usize = 33;
/// Byte offset of `base_offset` in the header.
pub const BASE_OFFSET_AT: usize = 1;
/// Byte offset of `crc32c` in the header.
pub const CRC_AT: usize = 9;
/// First byte covered by the CRC (the timestamp).
pub const CRC_START: usize = 13;
/// Byte offset of `timestamp_ns` in the header.
pub const TIMESTAMP_AT: usize = 13;
/// Byte offset of `key_len` in the header.
pub const KEY_LEN_AT: usize = 21;
/// Byte offset of `payload_len` in the header.
pub const PAYLOAD_LEN_AT: usize = 25;
/// Byte offset of `record_count` in the header.
pub const RECORD_COUNT_AT: usize = 29;
/// Bytes of per-record framing inside a client payload (`u32` length).
pub const RECORD_LEN_PREFIX: usize = 4;

/// The 33-byte header of a record batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RecordHeader {
    /// Offset of the first record; 0 from producers, assigned by the broker.
    pub base_offset: u64,
    /// CRC-32C of bytes 13..end of the batch.
    pub crc: u32,
    /// Producer timestamp in nanoseconds since the Unix epoch.
    pub timestamp_ns: u64,
    /// Length of the key.
    pub key_len: u32,
    /// Length of the payload.
    pub payload_len: u32,
    /// Number of records (and offsets) in the batch; at least 1.
    pub record_count: u32,
}

impl RecordHeader {
    /// Decode and check a header from the first [`HEADER_LEN`] bytes of `buf`.
    ///
    /// Checks the magic and that `record_count >= 1`; lengths are checked
    /// against limits by [`RecordHeader::check_limits`].
    pub fn decode(buf: &[u8]) -> Result<Self, WireError> {
        let mut r = Reader::new(buf);
        let magic = r.u8()?;
        if magic != MAGIC {
            return Err(WireError::BadMagic {
                found: magic,
                expected: MAGIC,
            });
        }
        // Read the rest only once the whole header is present, so a short
        // buffer reports the full header as needed.
        if buf.len() < HEADER_LEN {
            return Err(WireError::UnexpectedEof {
                need: HEADER_LEN,
                have: buf.len(),
            });
        }
        let h = RecordHeader {
            base_offset: r.u64()?,
            crc: r.u32()?,
            timestamp_ns: r.u64()?,
            key_len: r.u32()?,
            payload_len: r.u32()?,
            record_count: r.u32()?,
        };
        if h.record_count == 0 {
            return Err(WireError::EmptyBatch);
        }
        Ok(h)
    }

    /// Encode into a fixed array.
    pub fn encode(&self) -> [u8; HEADER_LEN] {
        let mut out = [0u8; HEADER_LEN];
        out[0] = MAGIC;
        out[BASE_OFFSET_AT..CRC_AT].copy_from_slice(&self.base_offset.to_be_bytes());
        out[CRC_AT..TIMESTAMP_AT].copy_from_slice(&self.crc.to_be_bytes());
        out[TIMESTAMP_AT..KEY_LEN_AT].copy_from_slice(&self.timestamp_ns.to_be_bytes());
        out[KEY_LEN_AT..PAYLOAD_LEN_AT].copy_from_slice(&self.key_len.to_be_bytes());
        out[PAYLOAD_LEN_AT..RECORD_COUNT_AT].copy_from_slice(&self.payload_len.to_be_bytes());
        out[RECORD_COUNT_AT..HEADER_LEN].copy_from_slice(&self.record_count.to_be_bytes());
        out
    }

    /// Total length of the batch: header, key and payload. Cannot overflow.
    pub fn batch_len(&self) -> u64 {
        HEADER_LEN as u64 + u64::from(self.key_len) + u64::from(self.payload_len)
    }

    /// The offset after the last record of the batch, or `None` on overflow.
    pub fn next_offset(&self) -> Option<u64> {
        self.base_offset.checked_add(u64::from(self.record_count))
    }

    /// Whether `offset` lies inside this batch.
    pub fn contains(&self, offset: u64) -> bool {
        offset >= self.base_offset && self.next_offset().is_some_and(|end| offset < end)
    }

    /// Check the key and payload lengths against limits.
    pub fn check_limits(&self, max_key: u32, max_payload: u32) -> Result<(), WireError> {
        if self.key_len > max_key {
            return Err(WireError::KeyTooLarge {
                len: u64::from(self.key_len),
                max: u64::from(max_key),
            });
        }
        if self.payload_len > max_payload {
            return Err(WireError::PayloadTooLarge {
                len: u64::from(self.payload_len),
                max: u64::from(max_payload),
            });
        }
        Ok(())
    }
}

/// CRC-32C of a complete batch's covered bytes (13..end).
///
/// Returns `None` if `batch` is shorter than a header.
pub fn compute_crc(batch: &[u8]) -> Option<u32> {
    batch.get(CRC_START..).map(crc32c::crc32c)
}

/// Write `base_offset` into a batch's header in place (the CRC does not cover it).
///
/// Returns `false`, changing nothing, when `batch` is shorter than a header.
pub fn patch_base_offset(batch: &mut [u8], base_offset: u64) -> bool {
    match batch.get_mut(BASE_OFFSET_AT..CRC_AT) {
        Some(slot) => {
            slot.copy_from_slice(&base_offset.to_be_bytes());
            true
        }
        None => false,
    }
}

/// A decoded, length-checked view of one batch inside a byte slice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchView<'a> {
    /// The decoded header.
    pub header: RecordHeader,
    bytes: &'a [u8],
}

impl<'a> BatchView<'a> {
    /// Parse the batch at the start of `buf`; returns it and the bytes it spans.
    ///
    /// Checks structure only; call [`BatchView::verify_crc`] to check the contents.
    pub fn parse(buf: &'a [u8]) -> Result<(Self, usize), WireError> {
        let header = RecordHeader::decode(buf)?;
        let len = usize::try_from(header.batch_len()).map_err(|_| WireError::TooLong {
            field: "batch",
            len: header.batch_len(),
            max: usize::MAX as u64,
        })?;
        let bytes = buf.get(..len).ok_or(WireError::UnexpectedEof {
            need: len,
            have: buf.len(),
        })?;
        Ok((BatchView { header, bytes }, len))
    }

    /// Every byte of the batch, header included.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The key.
    pub fn key(&self) -> &'a [u8] {
        &self.bytes[HEADER_LEN..HEADER_LEN + self.header.key_len as usize]
    }

    /// The payload.
    pub fn payload(&self) -> &'a [u8] {
        &self.bytes[HEADER_LEN + self.header.key_len as usize..]
    }

    /// Check the stored CRC against the bytes.
    pub fn verify_crc(&self) -> Result<(), WireError> {
        let computed = crc32c::crc32c(&self.bytes[CRC_START..]);
        if computed == self.header.crc {
            Ok(())
        } else {
            Err(WireError::CrcMismatch {
                stored: self.header.crc,
                computed,
            })
        }
    }

    /// The records of a payload in the client layout (`record_count x (u32 len, bytes)`).
    pub fn records(&self) -> RecordIter<'a> {
        RecordIter::new(self.payload(), self.header.record_count)
    }
}

/// Iterates over consecutive whole batches, e.g. the bytes of a fetch response.
///
/// Yields an error (and then stops) at the first malformed batch.
#[derive(Debug, Clone)]
pub struct BatchIter<'a> {
    buf: &'a [u8],
    failed: bool,
}

impl<'a> BatchIter<'a> {
    /// Iterate over the batches in `buf`.
    pub fn new(buf: &'a [u8]) -> Self {
        BatchIter { buf, failed: false }
    }
}

impl<'a> Iterator for BatchIter<'a> {
    type Item = Result<BatchView<'a>, WireError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.buf.is_empty() || self.failed {
            return None;
        }
        match BatchView::parse(self.buf) {
            Ok((batch, len)) => {
                self.buf = &self.buf[len..];
                Some(Ok(batch))
            }
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
}

/// Iterates over the records of a client payload: `count x (u32 len, bytes)`.
///
/// Yields an error (and then stops) if a length runs past the payload, if the
/// payload holds fewer records than declared, or if bytes are left over.
#[derive(Debug, Clone)]
pub struct RecordIter<'a> {
    buf: &'a [u8],
    left: u32,
    failed: bool,
    /// An empty payload holding one record: a tombstone, one empty record.
    tombstone: bool,
}

impl<'a> RecordIter<'a> {
    /// Iterate over `count` records in `payload`. An empty payload with a
    /// count of 1 is a tombstone: one record with an empty value.
    pub fn new(payload: &'a [u8], count: u32) -> Self {
        RecordIter {
            buf: payload,
            left: count,
            failed: false,
            tombstone: payload.is_empty() && count == 1,
        }
    }

    fn fail(&mut self, why: &'static str) -> Option<Result<&'a [u8], WireError>> {
        self.failed = true;
        Some(Err(WireError::BadPayload(why)))
    }
}

impl<'a> Iterator for RecordIter<'a> {
    type Item = Result<&'a [u8], WireError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        if self.tombstone {
            self.tombstone = false;
            self.left = 0;
            return Some(Ok(&[]));
        }
        if self.left == 0 {
            if self.buf.is_empty() {
                return None;
            }
            return self.fail("bytes after the last record");
        }
        let mut r = Reader::new(self.buf);
        let Ok(len) = r.u32() else {
            return self.fail("record length prefix cut short");
        };
        let Ok(rec) = r.bytes(len as usize) else {
            return self.fail("record runs past the payload");
        };
        self.buf = r.rest();
        self.left -= 1;
        Some(Ok(rec))
    }
}

/// Builds a batch in the client payload layout in one growing buffer.
///
/// ```
/// use hermit_protocol::record::{BatchBuilder, BatchView};
/// let mut b = BatchBuilder::new(b"key");
/// b.push(b"hello");
/// b.push(b"world");
/// let bytes = b.finish(1_700_000_000_000_000_000).unwrap();
/// let (batch, _) = BatchView::parse(&bytes).unwrap();
/// batch.verify_crc().unwrap();
/// assert_eq!(batch.records().collect::<Result<Vec<_>, _>>().unwrap(), [b"hello", b"world"]);
/// ```
#[derive(Debug, Clone)]
pub struct BatchBuilder {
    buf: Vec<u8>,
    key_len: u32,
    count: u32,
}

impl BatchBuilder {
    /// Start a batch with `key` (empty for none). Panics only if the key exceeds 4 GiB.
    pub fn new(key: &[u8]) -> Self {
        Self::with_capacity(key, 0)
    }

    /// Start a batch, reserving room for `payload_capacity` payload bytes.
    pub fn with_capacity(key: &[u8], payload_capacity: usize) -> Self {
        let key_len = u32::try_from(key.len()).expect("invariant: keys are far below 4 GiB");
        let mut buf = Vec::with_capacity(HEADER_LEN + key.len() + payload_capacity);
        buf.resize(HEADER_LEN, 0);
        buf.extend_from_slice(key);
        BatchBuilder {
            buf,
            key_len,
            count: 0,
        }
    }

    /// Append one record.
    pub fn push(&mut self, record: &[u8]) {
        self.push_with(|out| out.extend_from_slice(record));
    }

    /// Append one record written by `write`, which must only append to the buffer.
    pub fn push_with(&mut self, write: impl FnOnce(&mut Vec<u8>)) {
        let at = self.buf.len();
        self.buf.extend_from_slice(&[0; RECORD_LEN_PREFIX]);
        write(&mut self.buf);
        let len = self.buf.len() - at - RECORD_LEN_PREFIX;
        let len = u32::try_from(len).expect("invariant: one record is far below 4 GiB");
        self.buf[at..at + RECORD_LEN_PREFIX].copy_from_slice(&len.to_be_bytes());
        self.count += 1;
    }

    /// Records so far.
    pub fn record_count(&self) -> u32 {
        self.count
    }

    /// Bytes of the batch so far, header included.
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// Whether no record has been pushed.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Payload bytes so far.
    pub fn payload_len(&self) -> usize {
        self.buf.len() - HEADER_LEN - self.key_len as usize
    }

    /// A tombstone for `key`: an empty payload with `record_count = 1`,
    /// which compaction keeps as "this key is gone" and readers see as one
    /// record with an empty value (see [`RecordIter::new`]).
    pub fn tombstone(key: &[u8], timestamp_ns: u64) -> Vec<u8> {
        let mut b = Self::new(key);
        b.count = 1;
        b.finish(timestamp_ns)
            .expect("invariant: an empty payload always fits")
    }

    /// Write the header and CRC; returns the finished batch (base offset 0).
    ///
    /// Fails with [`WireError::EmptyBatch`] if no record was pushed, and with
    /// [`WireError::TooLong`] if the payload exceeds 4 GiB.
    pub fn finish(mut self, timestamp_ns: u64) -> Result<Vec<u8>, WireError> {
        if self.count == 0 {
            return Err(WireError::EmptyBatch);
        }
        let payload_len = u32::try_from(self.payload_len()).map_err(|_| WireError::TooLong {
            field: "payload",
            len: self.payload_len() as u64,
            max: u64::from(u32::MAX),
        })?;
        let mut header = RecordHeader {
            base_offset: 0,
            crc: 0,
            timestamp_ns,
            key_len: self.key_len,
            payload_len,
            record_count: self.count,
        };
        self.buf[..HEADER_LEN].copy_from_slice(&header.encode());
        header.crc = crc32c::crc32c(&self.buf[CRC_START..]);
        self.buf[CRC_AT..TIMESTAMP_AT].copy_from_slice(&header.crc.to_be_bytes());
        Ok(self.buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn header_strategy() -> impl Strategy<Value = RecordHeader> {
        (
            any::<u64>(),
            any::<u32>(),
            any::<u64>(),
            any::<u32>(),
            any::<u32>(),
            1..=u32::MAX,
        )
            .prop_map(|(b, c, t, k, p, n)| RecordHeader {
                base_offset: b,
                crc: c,
                timestamp_ns: t,
                key_len: k,
                payload_len: p,
                record_count: n,
            })
    }

    proptest! {
        #[test]
        fn header_round_trips(h in header_strategy()) {
            let bytes = h.encode();
            prop_assert_eq!(bytes[0], MAGIC);
            prop_assert_eq!(RecordHeader::decode(&bytes).unwrap(), h);
        }

        #[test]
        fn header_decode_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            let _ = RecordHeader::decode(&bytes);
            let _ = BatchView::parse(&bytes);
            for b in BatchIter::new(&bytes) { let _ = b; }
            for r in RecordIter::new(&bytes, 3) { let _ = r; }
        }

        #[test]
        fn builder_round_trips(
            key in proptest::collection::vec(any::<u8>(), 0..40),
            records in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..100), 1..20),
            ts in any::<u64>(),
        ) {
            let mut b = BatchBuilder::new(&key);
            for r in &records { b.push(r); }
            let bytes = b.finish(ts).unwrap();
            let (view, len) = BatchView::parse(&bytes).unwrap();
            prop_assert_eq!(len, bytes.len());
            view.verify_crc().unwrap();
            prop_assert_eq!(view.key(), &key[..]);
            prop_assert_eq!(view.header.timestamp_ns, ts);
            prop_assert_eq!(view.header.record_count as usize, records.len());
            let back: Vec<&[u8]> = view.records().collect::<Result<_, _>>().unwrap();
            let want: Vec<&[u8]> = records.iter().map(|r| &r[..]).collect();
            prop_assert_eq!(back, want);
        }

        #[test]
        fn any_flipped_covered_bit_fails_the_crc(
            records in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..50), 1..5),
            bit in any::<proptest::sample::Index>(),
        ) {
            let mut b = BatchBuilder::new(b"k");
            for r in &records { b.push(r); }
            let mut bytes = b.finish(7).unwrap();
            let covered_bits = (bytes.len() - CRC_START) * 8;
            let i = CRC_START * 8 + bit.index(covered_bits);
            bytes[i / 8] ^= 1 << (i % 8);
            // A flipped length field may make the batch unparsable instead.
            if let Ok((view, _)) = BatchView::parse(&bytes) {
                prop_assert!(view.verify_crc().is_err());
            }
        }
    }

    #[test]
    fn base_offset_is_not_covered() {
        let mut b = BatchBuilder::new(b"");
        b.push(b"x");
        let mut bytes = b.finish(1).unwrap();
        assert!(patch_base_offset(&mut bytes, 12345));
        let (view, _) = BatchView::parse(&bytes).unwrap();
        assert_eq!(view.header.base_offset, 12345);
        view.verify_crc().unwrap();
        assert!(!patch_base_offset(&mut [0u8; 4], 1));
    }

    #[test]
    fn rejects_bad_magic_zero_count_and_short_input() {
        let mut bytes = RecordHeader {
            record_count: 1,
            ..Default::default()
        }
        .encode();
        assert_eq!(
            RecordHeader::decode(&bytes[..10]),
            Err(WireError::UnexpectedEof { need: 33, have: 10 })
        );
        bytes[RECORD_COUNT_AT..].copy_from_slice(&0u32.to_be_bytes());
        assert_eq!(RecordHeader::decode(&bytes), Err(WireError::EmptyBatch));
        bytes[0] = 0x01;
        assert_eq!(
            RecordHeader::decode(&bytes),
            Err(WireError::BadMagic {
                found: 1,
                expected: MAGIC
            })
        );
    }

    #[test]
    fn record_iter_rejects_count_mismatch_and_trailing_bytes() {
        let mut payload = Vec::new();
        payload.extend_from_slice(&2u32.to_be_bytes());
        payload.extend_from_slice(b"ab");
        assert_eq!(RecordIter::new(&payload, 1).count(), 1);
        assert!(RecordIter::new(&payload, 2).any(|r| r.is_err()));
        payload.push(0);
        assert!(RecordIter::new(&payload, 1).any(|r| r.is_err()));
        let huge = u32::MAX.to_be_bytes();
        assert!(RecordIter::new(&huge, 1).next().unwrap().is_err());
    }

    #[test]
    fn a_tombstone_is_one_empty_record() {
        let t = BatchBuilder::tombstone(b"gone", 7);
        let (view, len) = BatchView::parse(&t).unwrap();
        assert_eq!(len, t.len());
        assert_eq!(view.header.payload_len, 0);
        assert_eq!(view.header.record_count, 1);
        assert_eq!(view.key(), b"gone");
        let records: Vec<_> = view.records().collect::<Result<_, _>>().unwrap();
        assert_eq!(records, vec![&[][..]]);
        // Only a count of 1 makes an empty payload a tombstone.
        assert!(RecordIter::new(&[], 2).any(|r| r.is_err()));
        assert_eq!(RecordIter::new(&[], 0).count(), 0);
    }
}
