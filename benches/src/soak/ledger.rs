//! What the good clients were told is durable, per topic, in bounded memory:
//! the acknowledged offsets as merged ranges (producers of one topic append
//! back to back, so a run leaves a handful of ranges, not one entry per
//! record), how many records they hold and an order-independent digest of
//! their offsets and bytes. The payloads themselves are not kept.
//!
//! After the run a [`Verifier`] is fed every record read back from the
//! topic; records outside the acknowledged ranges (a produce whose answer
//! was lost may or may not have been appended) are ignored, every
//! acknowledged one must be there exactly once with the same bytes.

use std::hash::{Hash as _, Hasher as _};

/// The digest of one record: its offset and its bytes.
pub fn record_hash(offset: u64, value: &[u8]) -> u64 {
    // SipHash with the fixed keys of `DefaultHasher::new`: the same in
    // every instance of this process, which is all a digest needs here.
    let mut h = std::hash::DefaultHasher::new();
    offset.hash(&mut h);
    value.hash(&mut h);
    h.finish()
}

/// The acknowledged records of one topic partition.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TopicLedger {
    /// Half-open `[start, end)` offset ranges, sorted, disjoint, not adjacent.
    ranges: Vec<(u64, u64)>,
    /// Records acknowledged.
    records: u64,
    /// Wrapping sum of their [`record_hash`]es.
    digest: u64,
}

/// Why the records read back do not match the acknowledgements.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Mismatch {
    /// The broker acknowledged an offset twice (two batches given the same offsets).
    #[error("offsets {start}..{end} acknowledged twice")]
    Reused {
        /// First offset of the second batch.
        start: u64,
        /// One past its last.
        end: u64,
    },
    /// Fewer (or more) acknowledged records read back than acknowledged.
    #[error("{acknowledged} records acknowledged, {found} read back")]
    Count {
        /// Records acknowledged.
        acknowledged: u64,
        /// Records found at acknowledged offsets.
        found: u64,
    },
    /// As many records, but not the same bytes at the same offsets.
    #[error("the acknowledged records read back differ from what was sent (digest mismatch)")]
    Digest,
    /// The log returned an offset again, or went backwards.
    #[error("offset {offset} read after {after}")]
    OutOfOrder {
        /// The offset read.
        offset: u64,
        /// The offset read before it.
        after: u64,
    },
}

impl TopicLedger {
    /// Record that the batch given offsets `base..` holds `values` (in order).
    ///
    /// # Errors
    /// [`Mismatch::Reused`] when any of those offsets was acknowledged before.
    pub fn ack<'a>(
        &mut self,
        base: u64,
        values: impl ExactSizeIterator<Item = &'a [u8]>,
    ) -> Result<(), Mismatch> {
        let n = values.len() as u64;
        if n == 0 {
            return Ok(());
        }
        let (start, end) = (base, base.saturating_add(n));
        // The first range that ends after `start`: the only one that could
        // overlap the new one (the one before ends at or before `start`).
        let i = self.ranges.partition_point(|r| r.1 <= start);
        if let Some(r) = self.ranges.get(i)
            && r.0 < end
            && r.1 > start
        {
            return Err(Mismatch::Reused { start, end });
        }
        for (k, v) in values.enumerate() {
            self.digest = self.digest.wrapping_add(record_hash(base + k as u64, v));
        }
        self.records += n;
        // Merge with the neighbours it touches.
        let touches_prev = i > 0 && self.ranges[i - 1].1 == start;
        let touches_next = self.ranges.get(i).is_some_and(|r| r.0 == end);
        match (touches_prev, touches_next) {
            (true, true) => {
                self.ranges[i - 1].1 = self.ranges[i].1;
                self.ranges.remove(i);
            }
            (true, false) => self.ranges[i - 1].1 = end,
            (false, true) => self.ranges[i].0 = start,
            (false, false) => self.ranges.insert(i, (start, end)),
        }
        Ok(())
    }

    /// Records acknowledged.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// The acknowledged ranges (for the report: how fragmented they are).
    pub fn ranges(&self) -> &[(u64, u64)] {
        &self.ranges
    }

    /// One past the highest acknowledged offset (0 when none).
    pub fn end(&self) -> u64 {
        self.ranges.last().map_or(0, |r| r.1)
    }

    /// Whether `offset` was acknowledged.
    pub fn contains(&self, offset: u64) -> bool {
        let i = self.ranges.partition_point(|r| r.1 <= offset);
        self.ranges.get(i).is_some_and(|r| r.0 <= offset)
    }

    /// A verifier to feed the records read back.
    pub fn verifier(&self) -> Verifier<'_> {
        Verifier {
            ledger: self,
            found: 0,
            digest: 0,
            last: None,
        }
    }
}

/// Checks records read back in offset order against a [`TopicLedger`].
#[derive(Debug)]
pub struct Verifier<'a> {
    ledger: &'a TopicLedger,
    found: u64,
    digest: u64,
    last: Option<u64>,
}

impl Verifier<'_> {
    /// A record read back.
    ///
    /// # Errors
    /// [`Mismatch::OutOfOrder`] when `offset` is not above the last one fed.
    pub fn record(&mut self, offset: u64, value: &[u8]) -> Result<(), Mismatch> {
        if let Some(after) = self.last
            && offset <= after
        {
            return Err(Mismatch::OutOfOrder { offset, after });
        }
        self.last = Some(offset);
        if self.ledger.contains(offset) {
            self.found += 1;
            self.digest = self.digest.wrapping_add(record_hash(offset, value));
        }
        Ok(())
    }

    /// Every record fed: were they all there, with their bytes? Returns the
    /// records verified.
    ///
    /// # Errors
    /// [`Mismatch::Count`] or [`Mismatch::Digest`].
    pub fn finish(self) -> Result<u64, Mismatch> {
        if self.found != self.ledger.records {
            return Err(Mismatch::Count {
                acknowledged: self.ledger.records,
                found: self.found,
            });
        }
        if self.digest != self.ledger.digest {
            return Err(Mismatch::Digest);
        }
        Ok(self.found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vals(n: usize, tag: u8) -> Vec<Vec<u8>> {
        (0..n).map(|i| vec![tag, i as u8, 7]).collect()
    }

    fn ack(l: &mut TopicLedger, base: u64, v: &[Vec<u8>]) -> Result<(), Mismatch> {
        l.ack(base, v.iter().map(Vec::as_slice))
    }

    #[test]
    fn ranges_merge_in_any_order() {
        let mut l = TopicLedger::default();
        ack(&mut l, 10, &vals(5, 1)).unwrap(); // 10..15
        ack(&mut l, 0, &vals(3, 2)).unwrap(); // 0..3
        ack(&mut l, 20, &vals(2, 3)).unwrap(); // 20..22
        assert_eq!(l.ranges(), [(0, 3), (10, 15), (20, 22)]);
        ack(&mut l, 15, &vals(5, 4)).unwrap(); // bridges 10..15 and 20..22
        assert_eq!(l.ranges(), [(0, 3), (10, 22)]);
        ack(&mut l, 3, &vals(7, 5)).unwrap();
        assert_eq!(l.ranges(), [(0, 22)]);
        assert_eq!((l.records(), l.end()), (22, 22));
        assert!(l.contains(0) && l.contains(21) && !l.contains(22));
    }

    #[test]
    fn an_offset_acknowledged_twice_is_caught() {
        let mut l = TopicLedger::default();
        ack(&mut l, 10, &vals(5, 1)).unwrap();
        for base in [8, 10, 12, 14] {
            assert_eq!(
                ack(&mut l, base, &vals(3, 2)),
                Err(Mismatch::Reused {
                    start: base,
                    end: base + 3
                }),
                "{base}"
            );
        }
        // Adjacent on either side is fine.
        ack(&mut l, 7, &vals(3, 2)).unwrap();
        ack(&mut l, 15, &vals(1, 2)).unwrap();
        assert_eq!(l.ranges(), [(7, 16)]);
    }

    /// The records a log would hold: acknowledged ones, plus one that was
    /// appended but whose answer was lost (offset 3).
    fn ledger_and_log() -> (TopicLedger, Vec<(u64, Vec<u8>)>) {
        let mut l = TopicLedger::default();
        let a = vals(3, 1);
        let b = vals(2, 2);
        ack(&mut l, 0, &a).unwrap();
        ack(&mut l, 4, &b).unwrap();
        let mut log: Vec<(u64, Vec<u8>)> = a
            .into_iter()
            .enumerate()
            .map(|(i, v)| (i as u64, v))
            .collect();
        log.push((3, b"never acknowledged".to_vec()));
        log.extend(b.into_iter().enumerate().map(|(i, v)| (4 + i as u64, v)));
        (l, log)
    }

    fn verify(l: &TopicLedger, log: &[(u64, Vec<u8>)]) -> Result<u64, Mismatch> {
        let mut v = l.verifier();
        for (o, bytes) in log {
            v.record(*o, bytes)?;
        }
        v.finish()
    }

    #[test]
    fn every_acknowledged_record_present_verifies() {
        let (l, log) = ledger_and_log();
        assert_eq!(verify(&l, &log), Ok(5));
    }

    #[test]
    fn a_lost_record_is_caught() {
        let (l, mut log) = ledger_and_log();
        log.remove(1);
        assert_eq!(
            verify(&l, &log),
            Err(Mismatch::Count {
                acknowledged: 5,
                found: 4
            })
        );
        // A lost tail too (the log ends early).
        let (l, mut log) = ledger_and_log();
        log.pop();
        assert!(matches!(verify(&l, &log), Err(Mismatch::Count { .. })));
    }

    #[test]
    fn changed_bytes_and_swapped_records_are_caught() {
        let (l, mut log) = ledger_and_log();
        log[4].1[0] ^= 1;
        assert_eq!(verify(&l, &log), Err(Mismatch::Digest));
        // The same bytes at other offsets are not the same records.
        let (l, mut log) = ledger_and_log();
        let (a, b) = (log[0].1.clone(), log[1].1.clone());
        log[0].1 = b;
        log[1].1 = a;
        assert_eq!(verify(&l, &log), Err(Mismatch::Digest));
    }

    #[test]
    fn a_repeated_offset_is_caught() {
        let (l, mut log) = ledger_and_log();
        let again = log[2].clone();
        log.insert(3, again);
        assert!(matches!(
            verify(&l, &log),
            Err(Mismatch::OutOfOrder {
                offset: 2,
                after: 2
            })
        ));
    }
}
