//! Offsets over NATS JetStream.
//!
//! A HermitMQ offset is a `u64` per partition; over NATS a partition is one
//! JetStream stream, and one record batch is one stream message. Each stream
//! sequence owns the 65,536 offsets `sequence << 16 .. (sequence + 1) << 16`,
//! and a batch of `count` records takes the *last* `count` of them:
//!
//! ```text
//! offset of record i of the batch in message s = ((s + 1) << 16) − count + i
//! ```
//!
//! - **Order.** Offsets grow with the stream sequence, then with the record
//!   index: records of a partition keep their order, and every offset after
//!   a record is larger.
//! - **The position after a batch is the start of the next sequence,**
//!   `(s + 1) << 16`, whatever the count. So the position after the last
//!   record of a partition equals its high watermark, `(last + 1) << 16`,
//!   as with the broker (a reader is at the end when `position >=
//!   high_watermark`).
//! - **Seek and commit.** Any `u64` is a position: the first record at or
//!   after it. A position inside a sequence's range but before its batch
//!   (`s << 16 ..` the batch's first offset) reads the whole batch. A
//!   sequence that no longer exists (deleted by retention or compaction)
//!   reads on from the next stored message.
//! - **Sequence 0.** JetStream numbers messages from 1, so offsets
//!   `0..65_536` read from the first message (an application that starts at
//!   offset 0 gets the whole partition while its first message is stored).
//! - **Limits.** At most 65,536 records per batch (the producer closes a
//!   batch before that); stream sequences up to 2^48 − 2 (2.8 × 10^14
//!   batches per partition: 8,900 years at a million batches a second).
//!   Offsets are not dense: the high watermark minus the log start is
//!   65,536 × the number of messages, not a record count, and the next
//!   record's offset is at or above the high watermark (equal only after a
//!   full batch of 65,536 records).

/// Bits of a sequence's offset range.
pub const INDEX_BITS: u32 = 16;

/// Most records in one batch (one stream message).
pub const MAX_RECORDS_PER_BATCH: u32 = 1 << INDEX_BITS;

/// Largest stream sequence an offset can name (its batch ends at `u64::MAX + 1`
/// at most… minus one range, so that the end still fits).
pub const MAX_SEQUENCE: u64 = (u64::MAX >> INDEX_BITS) - 1;

/// A position in a partition over NATS: a stream sequence and a slot in its
/// range of 65,536 offsets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NatsOffset {
    /// Stream sequence of the batch's message.
    pub sequence: u64,
    /// Slot in the sequence's offset range (a batch of `count` records uses
    /// the slots `65_536 − count ..`).
    pub slot: u32,
}

impl NatsOffset {
    /// The first offset of `sequence`'s range: a position before any record
    /// of its batch (and after every record of earlier ones).
    pub fn sequence_start(sequence: u64) -> u64 {
        sequence.min(MAX_SEQUENCE + 1) << INDEX_BITS
    }

    /// The offset of the first record of the batch stored as message
    /// `sequence` with `count` records (1..=65,536).
    pub fn batch_base(sequence: u64, count: u32) -> u64 {
        Self::sequence_start(sequence.saturating_add(1))
            - u64::from(count.clamp(1, MAX_RECORDS_PER_BATCH))
    }

    /// The sequence a batch of `count` records (1..=65,536) must be
    /// stored as for its first record to get the offset `base`: the
    /// inverse of [`NatsOffset::batch_base`]. `None` when no sequence
    /// gives that (`base + count` is not the start of a sequence after
    /// the first, or the sequence is past [`MAX_SEQUENCE`]).
    pub fn sequence_of_base(base: u64, count: u32) -> Option<u64> {
        if !(1..=MAX_RECORDS_PER_BATCH).contains(&count) {
            return None;
        }
        let end = base.checked_add(u64::from(count))?;
        let after = NatsOffset::decode(end);
        let sequence = after.sequence.checked_sub(1)?;
        (after.slot == 0 && (1..=MAX_SEQUENCE).contains(&sequence)).then_some(sequence)
    }

    /// The record offset `index` of that batch.
    pub fn record(sequence: u64, count: u32, index: u32) -> u64 {
        Self::batch_base(sequence, count) + u64::from(index)
    }

    /// Split an offset.
    pub fn decode(offset: u64) -> NatsOffset {
        NatsOffset {
            sequence: offset >> INDEX_BITS,
            slot: (offset & u64::from(MAX_RECORDS_PER_BATCH - 1)) as u32,
        }
    }

    /// Join; `None` when the sequence or the slot does not fit.
    pub fn encode(self) -> Option<u64> {
        (self.sequence <= MAX_SEQUENCE + 1 && self.slot < MAX_RECORDS_PER_BATCH)
            .then(|| self.sequence << INDEX_BITS | u64::from(self.slot))
    }

    /// The same position with sequence 0 (which JetStream never uses) read
    /// as the start of message 1.
    pub fn normalized(self) -> NatsOffset {
        if self.sequence == 0 {
            NatsOffset {
                sequence: 1,
                slot: 0,
            }
        } else {
            self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn layout() {
        assert_eq!(NatsOffset::sequence_start(1), 65_536);
        // A batch of 100 records in message 1 ends where message 2 starts.
        assert_eq!(NatsOffset::batch_base(1, 100), 131_072 - 100);
        assert_eq!(
            NatsOffset::record(1, 100, 99) + 1,
            NatsOffset::sequence_start(2)
        );
        // A full batch starts at its sequence's start.
        assert_eq!(
            NatsOffset::batch_base(7, MAX_RECORDS_PER_BATCH),
            NatsOffset::sequence_start(7)
        );
        assert_eq!(
            NatsOffset::decode(NatsOffset::record(7, 10, 3)),
            NatsOffset {
                sequence: 7,
                slot: 65_536 - 10 + 3
            }
        );
        assert_eq!(
            NatsOffset {
                sequence: MAX_SEQUENCE + 2,
                slot: 0
            }
            .encode(),
            None
        );
        assert_eq!(
            NatsOffset::decode(12).normalized(),
            NatsOffset {
                sequence: 1,
                slot: 0
            }
        );
        // The high watermark is a base only for a full batch.
        assert_eq!(NatsOffset::sequence_of_base(2 << 16, 1), None);
        assert_eq!(NatsOffset::sequence_of_base(2 << 16, 65_536), Some(2));
        assert_eq!(NatsOffset::sequence_of_base((3 << 16) - 1, 1), Some(2));
        assert_eq!(NatsOffset::sequence_of_base(65_535, 1), None, "sequence 0");
        assert_eq!(NatsOffset::sequence_of_base(u64::MAX, 1), None);
        assert_eq!(NatsOffset::sequence_of_base(5, 0), None);
        // The last batch an offset can name still has an end.
        assert_eq!(
            NatsOffset::batch_base(MAX_SEQUENCE, 1),
            u64::MAX - (MAX_RECORDS_PER_BATCH as u64)
        );
    }

    proptest! {
        #[test]
        fn encode_decode_round_trips(offset in any::<u64>()) {
            prop_assert_eq!(NatsOffset::decode(offset).encode(), Some(offset));
        }

        #[test]
        fn a_base_names_one_sequence_for_a_count(
            s in 1..=MAX_SEQUENCE,
            count in 1..=MAX_RECORDS_PER_BATCH,
            base in any::<u64>(),
        ) {
            prop_assert_eq!(
                NatsOffset::sequence_of_base(NatsOffset::batch_base(s, count), count),
                Some(s)
            );
            if let Some(t) = NatsOffset::sequence_of_base(base, count) {
                prop_assert_eq!(NatsOffset::batch_base(t, count), base);
            }
        }

        #[test]
        fn records_of_later_batches_come_after(
            s in 1..MAX_SEQUENCE,
            gap in 1u64..1000,
            c1 in 1..=MAX_RECORDS_PER_BATCH,
            c2 in 1..=MAX_RECORDS_PER_BATCH,
            i1 in any::<u32>(),
        ) {
            let t = s.saturating_add(gap).min(MAX_SEQUENCE);
            prop_assume!(t > s);
            let last_of_first = NatsOffset::record(s, c1, c1 - 1);
            let first_of_second = NatsOffset::record(t, c2, 0);
            prop_assert!(last_of_first < first_of_second);
            prop_assert_eq!(last_of_first + 1, NatsOffset::sequence_start(s + 1));
            let i = i1 % c1;
            prop_assert_eq!(NatsOffset::decode(NatsOffset::record(s, c1, i)).sequence, s);
        }
    }
}
