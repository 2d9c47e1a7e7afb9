//! Fetched records: [`FetchResponse`] (the batches of one fetch, as one
//! shared buffer) and [`Record`] (one record, zero-copy slices of it).

use std::sync::Arc;

use bytes::Bytes;
use hermit_protocol::WireError;
use hermit_protocol::record::{BatchView, RECORD_LEN_PREFIX};

use crate::error::ClientError;

/// One record as read from a partition. `key` and `value` are slices of the
/// fetch response's buffer: no copy was made, and holding any record keeps
/// that whole response buffer alive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// Topic.
    pub topic: Arc<str>,
    /// Partition.
    pub partition: u32,
    /// Offset of this record.
    pub offset: u64,
    /// The producer's timestamp of the record's batch (ns since the Unix epoch;
    /// stamped by the broker when the producer left it 0).
    pub timestamp_ns: u64,
    /// The batch key (shared by every record of the batch; empty for none).
    pub key: Bytes,
    /// The record bytes (for sealed topics: one sealed envelope).
    pub value: Bytes,
}

/// The answer to a fetch: the partition's bounds and zero or more whole
/// record batches. The batches may start before the offset asked for (the
/// batch containing it comes first); [`FetchResponse::records_from`] skips
/// what precedes it.
#[derive(Debug, Clone)]
pub struct FetchResponse {
    /// Topic fetched.
    pub topic: Arc<str>,
    /// Partition fetched.
    pub partition: u32,
    /// Offset the next record will get (visible to consumers).
    pub high_watermark: u64,
    /// First offset still stored.
    pub log_start: u64,
    /// Whole record batches, exactly as stored (a slice of the response frame).
    pub batches: Bytes,
}

impl FetchResponse {
    /// Every record of every batch, each batch's CRC verified before any of its
    /// records is yielded. Stops after the first error.
    pub fn records(&self) -> Records {
        self.records_from(0)
    }

    /// Like [`FetchResponse::records`], skipping records before `offset`.
    pub fn records_from(&self, offset: u64) -> Records {
        Records {
            topic: self.topic.clone(),
            partition: self.partition,
            batches: self.batches.clone(),
            pos: 0,
            skip_before: offset,
            cur: None,
            failed: false,
        }
    }

    /// The offset after the last record of the last batch, or `None` when the
    /// response holds no batch. Checks batch structure, not CRCs.
    pub fn next_offset(&self) -> Result<Option<u64>, ClientError> {
        let mut pos = 0;
        let mut next = None;
        while pos < self.batches.len() {
            let (view, len) = BatchView::parse(&self.batches[pos..])?;
            next = Some(view.header.next_offset().ok_or(WireError::InvalidField {
                field: "base_offset",
                value: view.header.base_offset,
            })?);
            pos += len;
        }
        Ok(next)
    }
}

struct Batch {
    base_offset: u64,
    timestamp_ns: u64,
    /// The batch key, as a range of `Records::batches`.
    key: (usize, usize),
    /// Next record's length prefix, as a position in `Records::batches`.
    at: usize,
    /// End of the payload.
    end: usize,
    index: u32,
    count: u32,
}

/// Iterator over the records of a [`FetchResponse`]; see [`FetchResponse::records`].
#[derive(Debug)]
pub struct Records {
    topic: Arc<str>,
    partition: u32,
    batches: Bytes,
    pos: usize,
    skip_before: u64,
    cur: Option<Batch>,
    failed: bool,
}

impl std::fmt::Debug for Batch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Batch")
            .field("base_offset", &self.base_offset)
            .field("index", &self.index)
            .field("count", &self.count)
            .finish_non_exhaustive()
    }
}

impl Records {
    fn corrupt<T>(
        &mut self,
        base_offset: u64,
        source: WireError,
    ) -> Option<Result<T, ClientError>> {
        self.failed = true;
        Some(Err(ClientError::CorruptBatch {
            topic: self.topic.to_string(),
            partition: self.partition,
            base_offset,
            source,
        }))
    }

    /// Enter the next batch; `None` at the end of the response.
    fn enter(&mut self) -> Option<Result<(), ClientError>> {
        if self.pos >= self.batches.len() {
            return None;
        }
        let (view, len) = match BatchView::parse(&self.batches[self.pos..]) {
            Ok(v) => v,
            Err(e) => return Some(Err(ClientError::Protocol(e))),
        };
        let h = view.header;
        if h.next_offset().is_some_and(|end| end <= self.skip_before) {
            // Wholly before the start: not returned, so not checked either.
            self.pos += len;
            return Some(Ok(()));
        }
        if let Err(e) = view.verify_crc() {
            return Some(Err(ClientError::CorruptBatch {
                topic: self.topic.to_string(),
                partition: self.partition,
                base_offset: h.base_offset,
                source: e,
            }));
        }
        let key_at = self.pos + hermit_protocol::record::HEADER_LEN;
        let payload_at = key_at + h.key_len as usize;
        self.cur = Some(Batch {
            base_offset: h.base_offset,
            timestamp_ns: h.timestamp_ns,
            key: (key_at, payload_at),
            at: payload_at,
            end: self.pos + len,
            index: 0,
            count: h.record_count,
        });
        self.pos += len;
        Some(Ok(()))
    }
}

/// Where one record sits in a [`Records`]' buffer: what the owned
/// [`Record`] and the borrowed [`RecordRef`] are both built from.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Found {
    offset: u64,
    timestamp_ns: u64,
    key: (usize, usize),
    value: (usize, usize),
}

impl Records {
    /// Step to the next record at or after the start offset; `None` at the
    /// end (or after an error).
    #[inline]
    pub(crate) fn advance(&mut self) -> Option<Result<Found, ClientError>> {
        loop {
            if self.failed {
                return None;
            }
            let Some(b) = self.cur.as_mut() else {
                match self.enter()? {
                    Ok(()) => continue,
                    Err(e) => {
                        self.failed = true;
                        return Some(Err(e));
                    }
                }
            };
            if b.index == b.count {
                if b.at != b.end {
                    let base = b.base_offset;
                    return self
                        .corrupt(base, WireError::BadPayload("bytes after the last record"));
                }
                self.cur = None;
                continue;
            }
            let (at, end, base) = (b.at, b.end, b.base_offset);
            let (start, stop) = if at == end && b.count == 1 {
                // An empty payload holding one record is a tombstone
                // (PROTOCOL.md §5): one record with an empty value.
                (at, at)
            } else {
                let Some(len_bytes) = self
                    .batches
                    .get(at..at + RECORD_LEN_PREFIX)
                    .filter(|_| at + RECORD_LEN_PREFIX <= end)
                else {
                    return self.corrupt(
                        base,
                        WireError::BadPayload("record length prefix cut short"),
                    );
                };
                let len =
                    u32::from_be_bytes([len_bytes[0], len_bytes[1], len_bytes[2], len_bytes[3]])
                        as usize;
                let start = at + RECORD_LEN_PREFIX;
                let Some(stop) = start.checked_add(len).filter(|&s| s <= end) else {
                    return self
                        .corrupt(base, WireError::BadPayload("record runs past the payload"));
                };
                (start, stop)
            };
            let b = self.cur.as_mut().expect("invariant: checked above");
            let Some(offset) = b.base_offset.checked_add(u64::from(b.index)) else {
                return self.corrupt(base, WireError::BadPayload("offsets past u64::MAX"));
            };
            b.index += 1;
            b.at = stop;
            if offset < self.skip_before {
                continue;
            }
            return Some(Ok(Found {
                offset,
                timestamp_ns: b.timestamp_ns,
                key: b.key,
                value: (start, stop),
            }));
        }
    }

    /// The next record, borrowed from the response buffer: no reference
    /// count is touched and nothing is allocated, so a loop over a large
    /// fetch costs only the parsing. [`RecordRef::to_record`] makes an
    /// owned [`Record`] (still without copying the bytes) when one must
    /// outlive the borrow. Same order, checks and errors as
    /// [`Iterator::next`].
    #[inline]
    pub fn next_ref(&mut self) -> Option<Result<RecordRef<'_>, ClientError>> {
        match self.advance()? {
            Ok(found) => Some(Ok(self.view(found))),
            Err(e) => Some(Err(e)),
        }
    }

    /// The record `advance` found, borrowed.
    #[inline]
    pub(crate) fn view(&self, found: Found) -> RecordRef<'_> {
        RecordRef {
            topic: &self.topic,
            partition: self.partition,
            batches: &self.batches,
            found,
        }
    }
}

impl Found {
    /// Offset of the record.
    #[inline]
    pub(crate) fn offset(&self) -> u64 {
        self.offset
    }
}

impl Iterator for Records {
    type Item = Result<Record, ClientError>;

    fn next(&mut self) -> Option<Self::Item> {
        match self.advance()? {
            Ok(found) => Some(Ok(owned(&self.topic, self.partition, &self.batches, found))),
            Err(e) => Some(Err(e)),
        }
    }
}

/// The owned record for `found`: slices of `batches`, no copy.
fn owned(topic: &Arc<str>, partition: u32, batches: &Bytes, found: Found) -> Record {
    let slice = |(a, b): (usize, usize)| {
        if a == b {
            Bytes::new()
        } else {
            batches.slice(a..b)
        }
    };
    Record {
        topic: topic.clone(),
        partition,
        offset: found.offset,
        timestamp_ns: found.timestamp_ns,
        key: slice(found.key),
        value: slice(found.value),
    }
}

/// One record borrowed from a fetch response: what [`Record`] holds, as
/// plain slices. Made by [`Records::next_ref`] and
/// [`Consumer::try_next_ref`](crate::Consumer::try_next_ref).
#[derive(Clone, Copy)]
pub struct RecordRef<'a> {
    topic: &'a Arc<str>,
    partition: u32,
    batches: &'a Bytes,
    found: Found,
}

impl<'a> RecordRef<'a> {
    /// Topic.
    #[inline]
    pub fn topic(&self) -> &'a str {
        self.topic
    }

    /// Partition.
    #[inline]
    pub fn partition(&self) -> u32 {
        self.partition
    }

    /// Offset of this record.
    #[inline]
    pub fn offset(&self) -> u64 {
        self.found.offset
    }

    /// The producer's timestamp of the record's batch (see [`Record::timestamp_ns`]).
    #[inline]
    pub fn timestamp_ns(&self) -> u64 {
        self.found.timestamp_ns
    }

    /// The batch key (empty for none).
    #[inline]
    pub fn key(&self) -> &'a [u8] {
        &self.batches[self.found.key.0..self.found.key.1]
    }

    /// The record bytes.
    #[inline]
    pub fn value(&self) -> &'a [u8] {
        &self.batches[self.found.value.0..self.found.value.1]
    }

    /// The same record, owned: slices of the response buffer (no copy),
    /// which they keep alive.
    pub fn to_record(&self) -> Record {
        owned(self.topic, self.partition, self.batches, self.found)
    }
}

impl std::fmt::Debug for RecordRef<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecordRef")
            .field("topic", &self.topic())
            .field("partition", &self.partition)
            .field("offset", &self.found.offset)
            .field("timestamp_ns", &self.found.timestamp_ns)
            .field("key_len", &(self.found.key.1 - self.found.key.0))
            .field("value_len", &(self.found.value.1 - self.found.value.0))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hermit_protocol::BatchBuilder;
    use hermit_protocol::record::patch_base_offset;

    fn response(batches: &[(u64, &[&[u8]])]) -> FetchResponse {
        let mut all = Vec::new();
        for (base, recs) in batches {
            let mut b = BatchBuilder::new(b"k");
            for r in *recs {
                b.push(r);
            }
            let mut bytes = b.finish(5).unwrap();
            patch_base_offset(&mut bytes, *base);
            all.extend_from_slice(&bytes);
        }
        FetchResponse {
            topic: Arc::from("t"),
            partition: 2,
            high_watermark: 99,
            log_start: 0,
            batches: Bytes::from(all),
        }
    }

    #[test]
    fn yields_records_with_offsets_and_skips_before_the_start() {
        let r = response(&[(10, &[b"a", b"b", b"c"]), (13, &[b"d"])]);
        let got: Vec<(u64, Bytes)> = r
            .records_from(11)
            .map(|r| r.map(|r| (r.offset, r.value)))
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(
            got,
            vec![
                (11, Bytes::from_static(b"b")),
                (12, Bytes::from_static(b"c")),
                (13, Bytes::from_static(b"d"))
            ]
        );
        let first = r.records().next().unwrap().unwrap();
        assert_eq!(
            (first.partition, first.timestamp_ns, &first.key[..]),
            (2, 5, &b"k"[..])
        );
        assert_eq!(r.next_offset().unwrap(), Some(14));
    }

    #[test]
    fn borrowed_records_are_the_owned_ones() {
        let r = response(&[(10, &[b"a", b"", b"c"]), (13, &[b"d"])]);
        let owned: Vec<Record> = r.records_from(11).collect::<Result<_, _>>().unwrap();
        let mut it = r.records_from(11);
        let mut borrowed = Vec::new();
        while let Some(rec) = it.next_ref() {
            let rec = rec.unwrap();
            assert_eq!(rec.to_record(), owned[borrowed.len()]);
            borrowed.push((
                rec.topic().to_owned(),
                rec.partition(),
                rec.offset(),
                rec.timestamp_ns(),
                rec.key().to_vec(),
                rec.value().to_vec(),
            ));
        }
        let want: Vec<_> = owned
            .iter()
            .map(|o| {
                (
                    o.topic.to_string(),
                    o.partition,
                    o.offset,
                    o.timestamp_ns,
                    o.key.to_vec(),
                    o.value.to_vec(),
                )
            })
            .collect();
        assert_eq!(borrowed, want);
        assert_eq!(want.len(), 3, "offsets 11, 12 and 13");
    }

    #[test]
    fn a_flipped_bit_is_an_error_not_a_skip() {
        let r = response(&[(0, &[b"hello"]), (1, &[b"world"])]);
        let mut bytes = r.batches.to_vec();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        let bad = FetchResponse {
            batches: Bytes::from(bytes),
            ..r
        };
        let out: Vec<_> = bad.records().collect();
        assert_eq!(out.len(), 2);
        assert_eq!(&out[0].as_ref().unwrap().value[..], b"hello");
        assert!(matches!(
            out[1],
            Err(ClientError::CorruptBatch {
                base_offset: 1,
                source: WireError::CrcMismatch { .. },
                ..
            })
        ));
    }
}
