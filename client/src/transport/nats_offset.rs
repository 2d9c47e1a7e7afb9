//! Offsets over NATS JetStream.
//!
//! A HermitMQ offset is a `u64` per partition; over NATS a partition is one
//! JetStream stream, and one record batch is one stream message. A record's
//! offset packs the message's stream sequence and the record's index in its
//! batch:
//!
//! ```text
//! offset = stream_sequence << 16 | index        (index < 65,536)
//! ```
//!
//! - **Order.** Offsets compare as (sequence, index): records of a partition
//!   keep their order, and every offset after a record is larger.
//! - **Seek and commit.** Any `u64` is a position: the first record at or
//!   after `(sequence, index)`. A sequence that no longer exists (deleted by
//!   retention or compaction) reads on from the next stored message. The
//!   position after the last record of a message, `sequence << 16 | count`,
//!   and `(sequence + 1) << 16` name the same place.
//! - **Sequence 0.** JetStream numbers messages from 1, so offsets
//!   `0..65_536` read from the first message (an application that starts
//!   at offset 0 gets the whole partition, as with the broker).
//! - **Limits.** At most 65,536 records per batch (the producer seals a
//!   batch before that); stream sequences up to 2^48 − 1 (2.8 × 10^14
//!   batches per partition — 8,900 years at a million batches a second).
//!   Offsets are not dense: a batch of 100 records takes 100 of the 65,536
//!   offsets of its sequence, and the next batch starts at the next sequence.

/// Bits of the record index in an offset.
pub const INDEX_BITS: u32 = 16;

/// Most records in one batch (one stream message).
pub const MAX_RECORDS_PER_BATCH: u32 = 1 << INDEX_BITS;

/// Largest stream sequence an offset can name.
pub const MAX_SEQUENCE: u64 = u64::MAX >> INDEX_BITS;

/// A position in a partition over NATS: a stream sequence and a record index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NatsOffset {
    /// Stream sequence of the batch's message.
    pub sequence: u64,
    /// Index of the record in its batch.
    pub index: u32,
}

impl NatsOffset {
    /// The offset of the first record of the message `sequence`.
    pub fn batch_start(sequence: u64) -> u64 {
        sequence.min(MAX_SEQUENCE) << INDEX_BITS
    }

    /// Split an offset.
    pub fn decode(offset: u64) -> NatsOffset {
        NatsOffset {
            sequence: offset >> INDEX_BITS,
            index: (offset & u64::from(MAX_RECORDS_PER_BATCH - 1)) as u32,
        }
    }

    /// Join; `None` when the sequence or the index does not fit.
    pub fn encode(self) -> Option<u64> {
        (self.sequence <= MAX_SEQUENCE && self.index < MAX_RECORDS_PER_BATCH)
            .then(|| self.sequence << INDEX_BITS | u64::from(self.index))
    }

    /// The same position with sequence 0 (which JetStream never uses) read
    /// as the start of message 1.
    pub fn normalized(self) -> NatsOffset {
        if self.sequence == 0 {
            NatsOffset {
                sequence: 1,
                index: 0,
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
        assert_eq!(NatsOffset::batch_start(1), 65_536);
        assert_eq!(
            NatsOffset::decode(65_536 * 7 + 99),
            NatsOffset {
                sequence: 7,
                index: 99
            }
        );
        assert_eq!(
            NatsOffset {
                sequence: MAX_SEQUENCE + 1,
                index: 0
            }
            .encode(),
            None
        );
        assert_eq!(
            NatsOffset {
                sequence: 1,
                index: MAX_RECORDS_PER_BATCH
            }
            .encode(),
            None
        );
        assert_eq!(
            NatsOffset::decode(12).normalized(),
            NatsOffset {
                sequence: 1,
                index: 0
            }
        );
    }

    proptest! {
        #[test]
        fn encode_decode_round_trips(offset in any::<u64>()) {
            prop_assert_eq!(NatsOffset::decode(offset).encode(), Some(offset));
        }

        #[test]
        fn order_is_sequence_then_index(
            a in (0..=MAX_SEQUENCE, 0..MAX_RECORDS_PER_BATCH),
            b in (0..=MAX_SEQUENCE, 0..MAX_RECORDS_PER_BATCH),
        ) {
            let oa = NatsOffset { sequence: a.0, index: a.1 };
            let ob = NatsOffset { sequence: b.0, index: b.1 };
            prop_assert_eq!(oa.cmp(&ob), oa.encode().unwrap().cmp(&ob.encode().unwrap()));
        }
    }
}
