//! Open batches: each topic's accumulator (per partition for keyless
//! records, per key for keyed ones) and the bookkeeping shared with the
//! sender task — bytes held, closed batches waiting, linger deadlines.
//! A record is written once, straight into its batch's buffer.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use hermit_protocol::record::{HEADER_LEN, RECORD_LEN_PREFIX};
use tokio::time::Instant;

use super::delivery::{BatchOutcome, Delivery};
use super::options::ProducerOptions;
use crate::error::ClientError;
use crate::fxhash::FxMap;
use crate::partitioner::{next_round_robin, partition_for_key};

/// A batch being filled.
pub(super) struct OpenBatch {
    /// Header gap, key, then `len | record` for each record.
    pub(super) buf: Vec<u8>,
    pub(super) key_len: usize,
    pub(super) count: u32,
    pub(super) partition: u32,
    /// Resolves every record's [`Delivery`] once the batch is answered.
    pub(super) outcome: Arc<BatchOutcome>,
    pub(super) created: Instant,
    /// Bytes counted against the buffer for this batch.
    pub(super) counted: usize,
    pub(super) seq: u64,
}

/// A batch closed to new records, handed to the sender task.
pub(super) struct ClosedBatch {
    pub(super) topic: Arc<str>,
    pub(super) open: OpenBatch,
}

/// What is known of a topic's partitions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Meta {
    /// Metadata requested, not answered yet: senders wait.
    Resolving,
    /// The topic has this many partitions.
    Known(u32),
    /// The topic does not exist yet (it will be auto-created): partition 0.
    Unknown,
}

/// A topic's open batches and what is known of its partitions.
pub(super) struct TopicAcc {
    pub(super) name: Arc<str>,
    pub(super) meta: Meta,
    /// A refresh is under way (after the first ack of an Unknown topic).
    pub(super) refreshing: bool,
    /// Partition of the next keyless batch.
    pub(super) sticky: u32,
    pub(super) unkeyed: Vec<Option<OpenBatch>>,
    /// Open batches of keyed records; `None` once closed (removed at the next linger scan).
    pub(super) keyed: FxMap<Box<[u8]>, Option<OpenBatch>>,
}

impl TopicAcc {
    /// A topic just seen: its partition count is being looked up.
    pub(super) fn resolving(name: Arc<str>) -> Self {
        TopicAcc {
            name,
            meta: Meta::Resolving,
            refreshing: false,
            sticky: 0,
            unkeyed: Vec::new(),
            keyed: FxMap::default(),
        }
    }

    /// Partitions records are spread over (1 while unknown).
    pub(super) fn partitions(&self) -> u32 {
        match self.meta {
            Meta::Known(n) => n.max(1),
            _ => 1,
        }
    }
}

/// The producer's buffers: every topic's open batches, and the bookkeeping.
pub(super) struct Accumulator {
    pub(super) topics: Topics,
    pub(super) book: Book,
}

/// Every topic's accumulator, found by name. Topics are never forgotten
/// (a producer writes to the few it is given), so each keeps its index;
/// the last one found is tried first, which saves the hash and the probe
/// of a producer writing to one topic after another (one string compare).
#[derive(Default)]
pub(super) struct Topics {
    accs: Vec<TopicAcc>,
    index: FxMap<Arc<str>, usize>,
    last: usize,
}

impl Topics {
    /// The accumulator of `name`, if the topic was seen.
    #[inline]
    pub(super) fn get_mut(&mut self, name: &str) -> Option<&mut TopicAcc> {
        let i = match self.accs.get(self.last) {
            Some(acc) if *acc.name == *name => self.last,
            _ => {
                let i = *self.index.get(name)?;
                self.last = i;
                i
            }
        };
        self.accs.get_mut(i)
    }

    /// Add a topic not seen before.
    pub(super) fn insert(&mut self, acc: TopicAcc) {
        debug_assert!(!self.index.contains_key(&acc.name));
        self.index.insert(acc.name.clone(), self.accs.len());
        self.accs.push(acc);
    }

    /// Every topic's accumulator.
    pub(super) fn values_mut(&mut self) -> impl Iterator<Item = &mut TopicAcc> {
        self.accs.iter_mut()
    }
}

/// Everything in [`Accumulator`] but the topics, so a topic's accumulator and the
/// bookkeeping can be borrowed at once.
pub(super) struct Book {
    /// Bytes counted against `buffer_bytes`.
    pub(super) buffered: usize,
    /// Closed batches (no more records go in) for the sender task.
    pub(super) closed: Vec<ClosedBatch>,
    pub(super) next_seq: u64,
    /// Batches created and not yet finished (acknowledged or failed).
    pub(super) outstanding: BTreeSet<u64>,
    /// When the oldest open batch's linger ends.
    pub(super) earliest_linger: Option<Instant>,
    /// Close every open batch now (flush, or senders waiting for space).
    pub(super) close_all: bool,
    /// `close` was called: no more sends; the sender task drains and exits.
    pub(super) closing: bool,
    /// The sender task is gone.
    pub(super) finished: bool,
    /// Buffers of finished batches, for the next batches: a new batch takes
    /// one instead of allocating, so a busy producer does not make the
    /// allocator grow and shrink its heap (page faults) for every batch.
    /// At most [`SPARE_BUFFERS`], each at most `batch_bytes` plus a header.
    pub(super) spare: Vec<Vec<u8>>,
}

/// Buffers of finished batches kept for reuse, per producer.
pub(super) const SPARE_BUFFERS: usize = 16;

impl Book {
    /// Keep `buf` (a finished batch's) for a later batch, if there is room.
    pub(super) fn give_back(&mut self, mut buf: Vec<u8>) {
        if self.spare.len() < SPARE_BUFFERS {
            buf.clear();
            self.spare.push(buf);
        }
    }

    /// An empty buffer of at least `cap` bytes: a spare one if it is large
    /// enough (and not much larger), else a new one.
    fn buffer(&mut self, cap: usize) -> Vec<u8> {
        match self.spare.pop() {
            Some(b) if b.capacity() >= cap && b.capacity() <= cap.saturating_mul(4) => b,
            Some(_) | None => Vec::with_capacity(cap),
        }
    }
}

/// Close a batch: hand it to the sender task (or drop it if every record written
/// into it was rolled back). Returns whether it was dropped: then `flush`
/// and senders waiting for space must be woken, as no ack ever will be.
pub(super) fn close_into(book: &mut Book, topic: &Arc<str>, open: OpenBatch) -> bool {
    if open.count == 0 {
        book.buffered -= open.counted;
        book.outstanding.remove(&open.seq);
        return true;
    }
    book.closed.push(ClosedBatch {
        topic: topic.clone(),
        open,
    });
    false
}

impl Accumulator {
    /// Empty buffers.
    pub(super) fn new() -> Self {
        Accumulator {
            topics: Topics::default(),
            book: Book {
                buffered: 0,
                closed: Vec::new(),
                next_seq: 0,
                outstanding: BTreeSet::new(),
                earliest_linger: None,
                close_all: false,
                closing: false,
                finished: false,
                spare: Vec::new(),
            },
        }
    }

    /// Close open batches whose linger is over (all of them with `all`); return
    /// whether an empty batch (every record rolled back) was dropped.
    pub(super) fn close_due(&mut self, now: Instant, linger: Duration, all: bool) -> bool {
        let mut earliest: Option<Instant> = None;
        let mut due: Vec<(Arc<str>, OpenBatch)> = Vec::new();
        for acc in self.topics.values_mut() {
            let n = acc.partitions();
            for p in 0..acc.unkeyed.len() {
                let Some(o) = &acc.unkeyed[p] else { continue };
                if all || o.created + linger <= now {
                    let o = acc.unkeyed[p].take().expect("invariant: checked Some");
                    if p as u32 == acc.sticky {
                        acc.sticky = next_round_robin(acc.sticky, n);
                    }
                    due.push((acc.name.clone(), o));
                } else {
                    let t = o.created + linger;
                    earliest = Some(earliest.map_or(t, |e| e.min(t)));
                }
            }
            for o in acc.keyed.values_mut() {
                let Some(t) = o.as_ref().map(|open| open.created + linger) else {
                    continue;
                };
                if all || t <= now {
                    due.push((acc.name.clone(), o.take().expect("invariant: checked Some")));
                } else {
                    earliest = Some(earliest.map_or(t, |e| e.min(t)));
                }
            }
            // Forget keys with nothing open, so many one-off keys do not pile up.
            acc.keyed.retain(|_, o| o.is_some());
        }
        self.book.earliest_linger = earliest;
        let mut dropped = false;
        for (t, o) in due {
            dropped |= close_into(&mut self.book, &t, o);
        }
        dropped
    }
}

/// Who to wake once a record is appended (the caller holds the producer's
/// lock, and notifies before releasing it).
#[derive(Debug, Default, Clone, Copy)]
#[must_use]
pub(super) struct Wake {
    /// The sender task: a closed batch to take, or a new linger deadline.
    pub(super) sender: bool,
    /// `flush` and senders waiting for space: an empty batch was dropped,
    /// and no ack will ever release its place.
    pub(super) waiters: bool,
}

/// Undoes a half-written record if the caller's writer panics.
struct Rollback<'a> {
    buf: &'a mut Vec<u8>,
    at: usize,
    armed: bool,
}

impl Drop for Rollback<'_> {
    fn drop(&mut self) {
        if self.armed {
            self.buf.truncate(self.at);
        }
    }
}

/// Write one record with `write` after its length prefix at the end of
/// `buf`; its length. If `write` fails, or panics, `buf` is left as it was.
#[inline]
fn write_record<F, E>(buf: &mut Vec<u8>, write: F) -> Result<usize, ClientError>
where
    F: FnOnce(&mut Vec<u8>) -> Result<(), E>,
    E: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let at = buf.len();
    let mut guard = Rollback {
        buf,
        at,
        armed: true,
    };
    guard.buf.extend_from_slice(&[0; RECORD_LEN_PREFIX]);
    let r = write(guard.buf);
    assert!(
        guard.buf.len() >= at + RECORD_LEN_PREFIX,
        "a send_with writer must only append to the buffer"
    );
    let len = guard.buf.len() - at - RECORD_LEN_PREFIX;
    match (r, u32::try_from(len)) {
        (Ok(()), Ok(len32)) => {
            guard.buf[at..at + RECORD_LEN_PREFIX].copy_from_slice(&len32.to_be_bytes());
            guard.armed = false;
            Ok(len)
        }
        (Err(e), _) => Err(ClientError::Write(Arc::from(e.into()))),
        (Ok(()), Err(_)) => Err(ClientError::InvalidArgument(format!(
            "a record of {len} bytes does not fit a u32 length"
        ))),
    }
}

impl OpenBatch {
    /// A new open batch for `partition` with room for the records of one
    /// batch of `need`-byte records, counted in `book`.
    #[inline]
    fn new(
        book: &mut Book,
        opts: &ProducerOptions,
        key: &[u8],
        partition: u32,
        need: usize,
        wake: &mut Wake,
    ) -> OpenBatch {
        let overhead = HEADER_LEN + key.len();
        let per_batch = (opts.batch_records as usize).saturating_mul(need);
        let cap = overhead + per_batch.min(opts.batch_bytes).max(need);
        let mut buf = book.buffer(cap);
        buf.resize(HEADER_LEN, 0);
        buf.extend_from_slice(key);
        let seq = book.next_seq;
        book.next_seq += 1;
        book.outstanding.insert(seq);
        book.buffered += overhead;
        let created = Instant::now();
        if book.earliest_linger.is_none() {
            book.earliest_linger = Some(created + opts.linger);
            wake.sender = true;
        }
        OpenBatch {
            buf,
            key_len: key.len(),
            count: 0,
            partition,
            outcome: Arc::new(BatchOutcome::new(partition)),
            created,
            counted: overhead,
            seq,
        }
    }
}

impl TopicAcc {
    /// Append one record, written by `write`, to its open batch (opened,
    /// or closed when full, as needed): its [`Delivery`], and who to wake.
    /// `need` is the record's expected size with its length prefix.
    pub(super) fn append<F, E>(
        &mut self,
        book: &mut Book,
        opts: &ProducerOptions,
        key: &[u8],
        need: usize,
        write: F,
    ) -> (Result<Delivery, ClientError>, Wake)
    where
        F: FnOnce(&mut Vec<u8>) -> Result<(), E>,
        E: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let mut wake = Wake::default();
        let n = self.partitions();
        let keyed = !key.is_empty();
        let partition = if keyed {
            partition_for_key(key, n)
        } else {
            self.sticky
        };
        let batch: &mut Option<OpenBatch> = if keyed {
            if !self.keyed.contains_key(key) {
                self.keyed.insert(Box::from(key), None); // once per key (per linger scan)
            }
            self.keyed.get_mut(key).expect("invariant: just inserted")
        } else {
            let p = partition as usize;
            if self.unkeyed.len() <= p {
                self.unkeyed.resize_with(p + 1, || None);
            }
            &mut self.unkeyed[p]
        };
        // The sender task takes every closed batch at once, so it needs
        // waking only when the list goes from empty to non-empty: one
        // wake-up (often a cross-thread unpark) per intake, not per batch.
        let was_empty = book.closed.is_empty();
        // A full batch goes; so does a keyed batch opened before the topic's
        // partition count changed (its records belong elsewhere now).
        if batch.as_ref().is_some_and(|o| {
            o.partition != partition || (o.count > 0 && o.buf.len() + need > opts.batch_bytes)
        }) {
            let o = batch.take().expect("invariant: checked Some");
            // An empty batch dropped: no ack will release its place.
            wake.waiters |= close_into(book, &self.name, o);
        }
        let open = batch
            .get_or_insert_with(|| OpenBatch::new(book, opts, key, partition, need, &mut wake));
        let outcome = write_record(&mut open.buf, write).map(|len| {
            let actual = RECORD_LEN_PREFIX + len;
            open.count += 1;
            open.counted += actual;
            book.buffered += actual;
            Delivery::new(open.outcome.clone(), open.count - 1)
        });
        if open.count >= opts.batch_records || open.buf.len() >= opts.batch_bytes {
            let o = batch.take().expect("invariant: just written");
            // Never empty here (it holds at least one record).
            let _ = close_into(book, &self.name, o);
            if !keyed && partition == self.sticky {
                self.sticky = next_round_robin(self.sticky, n);
            }
        }
        wake.sender |= was_empty && !book.closed.is_empty();
        (outcome, wake)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finished_buffers_carry_later_batches_within_bounds() {
        let mut acc = Accumulator::new();
        let book = &mut acc.book;
        for _ in 0..SPARE_BUFFERS + 5 {
            let mut b = Vec::with_capacity(1000);
            b.extend_from_slice(b"old records");
            book.give_back(b);
        }
        assert_eq!(
            book.spare.len(),
            SPARE_BUFFERS,
            "at most SPARE_BUFFERS kept"
        );
        let b = book.buffer(900);
        assert!(b.is_empty() && b.capacity() >= 1000, "a spare one, emptied");
        let ptr = b.as_ptr();
        book.give_back(b);
        let again = book.buffer(1000);
        assert_eq!(again.as_ptr(), ptr, "the same allocation again");
        assert!(book.buffer(5000).capacity() >= 5000, "too small: a new one");
        assert!(
            book.buffer(100).capacity() < 1000,
            "far too large: a new one"
        );
    }

    #[test]
    fn topics_are_found_by_name_whichever_was_last() {
        let mut t = Topics::default();
        for name in ["a", "bb", "ab"] {
            t.insert(TopicAcc::resolving(Arc::from(name)));
        }
        for name in ["a", "a", "bb", "ab", "a", "ab", "ab", "bb"] {
            let acc = t.get_mut(name).expect("seen");
            assert_eq!(&*acc.name, name);
            acc.sticky += 1;
        }
        assert!(t.get_mut("b").is_none());
        assert!(t.get_mut("abc").is_none());
        let counts: Vec<(String, u32)> = t
            .values_mut()
            .map(|a| (a.name.to_string(), a.sticky))
            .collect();
        assert_eq!(
            counts,
            vec![("a".into(), 3), ("bb".into(), 2), ("ab".into(), 3)]
        );
    }
}
