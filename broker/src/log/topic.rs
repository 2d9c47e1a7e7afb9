//! Topics as the log holds them: a topic's name, incarnation and
//! effective policy, in a set ordered by name.

use std::sync::Arc;
use std::sync::atomic::AtomicU32;

use hermit_protocol::Cleanup;
use hermit_protocol::frame::MAX_PARTITIONS;

use super::catalog::StoredSettings;
use super::options::LogOptions;
use crate::metrics::PartitionStats;

/// A topic's effective cleanup and retention policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TopicPolicy {
    /// Delete or compact.
    pub cleanup: Cleanup,
    /// Retention by age in ms (`u64::MAX`: forever).
    pub retention_ms: u64,
    /// Retention by size in bytes per partition (`u64::MAX`: unlimited).
    pub retention_bytes: u64,
    /// Tombstone grace period in ms.
    pub delete_retention_ms: u64,
}

impl TopicPolicy {
    /// The effective policy of stored settings under the broker's defaults.
    pub fn of(settings: &StoredSettings, opts: &LogOptions) -> TopicPolicy {
        TopicPolicy {
            cleanup: settings.cleanup,
            retention_ms: settings.retention_ms.unwrap_or(opts.retention_ms.as_u64()),
            retention_bytes: settings
                .retention_bytes
                .unwrap_or(opts.retention_bytes.as_u64()),
            delete_retention_ms: opts.delete_retention_ms,
        }
    }
}

/// A topic: its name, incarnation, settings and traffic. Its partitions
/// are opened on use (`Log::partition`, `Log::open_partition`); a topic
/// nobody uses holds no file and costs only this struct and its name in
/// memory — with one partition, about 225 bytes in all (see
/// docs/BENCHMARKS.md, "One million real inboxes"): every field here is
/// paid a million times over by a broker of a million inboxes, so none
/// is kept that the options already hold.
#[derive(Debug)]
pub struct Topic {
    pub(super) name: Box<str>,
    pub(super) incarnation: u64,
    /// The slot of partition 0 (partition `p` has `first_slot + p`), or
    /// [`NO_SLOT`]: a sentinel, not an `Option`, which would take 8 bytes
    /// more (slots stay below `MAX_SLOTS`, so it is never a slot).
    first_slot: u64,
    /// Bit `p` (for partitions below [`OPENED_BITS`]): partition `p` was
    /// opened in this run, so its files hold nothing unsynced from an
    /// earlier run. 32 bits, with `partitions` and `cleanup`, fill one word.
    pub(super) opened: AtomicU32,
    /// At most `MAX_PARTITIONS` (4,096): a `u16` is enough.
    partitions: u16,
    cleanup: Cleanup,
    /// Partition 0's traffic since the start: inline, as most topics
    /// (every inbox) have one partition.
    first: PartitionStats,
    /// What few topics have — more partitions, a retention of their own —
    /// behind a thin pointer: an inbox pays 8 bytes for it, not 32.
    extra: Option<Box<Extra>>,
}

/// A topic's rarer parts: the traffic of partitions 1 and up, and a
/// retention set on the topic (`None`: the broker's).
#[derive(Debug)]
struct Extra {
    rest: Box<[PartitionStats]>,
    retention_ms: Option<u64>,
    retention_bytes: Option<u64>,
}

/// [`Topic::first_slot`] of a topic whose partitions live in directories.
const NO_SLOT: u64 = u64::MAX;

/// Partitions whose first open in a run [`Topic::opened`] records.
pub(super) const OPENED_BITS: u32 = u32::BITS;

const _: () = assert!(MAX_PARTITIONS <= u16::MAX as u32);

impl Topic {
    /// A topic as the catalog names it (its retention resolved against
    /// the options when asked: the options outlive every topic).
    pub(super) fn new(
        name: Box<str>,
        incarnation: u64,
        settings: &StoredSettings,
        first_slot: Option<u64>,
    ) -> Topic {
        let partitions = u16::try_from(settings.partitions)
            .expect("stored settings have at most MAX_PARTITIONS partitions: checked when a topic is created and when its catalog entry is read");
        let own_retention = settings.retention_ms.is_some() || settings.retention_bytes.is_some();
        let extra = (partitions > 1 || own_retention).then(|| {
            Box::new(Extra {
                rest: (1..partitions).map(|_| PartitionStats::default()).collect(),
                retention_ms: settings.retention_ms,
                retention_bytes: settings.retention_bytes,
            })
        });
        Topic {
            name,
            incarnation,
            first_slot: first_slot.unwrap_or(NO_SLOT),
            opened: AtomicU32::new(0),
            partitions,
            cleanup: settings.cleanup,
            first: PartitionStats::default(),
            extra,
        }
    }

    /// Name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Traffic per partition since the start (zeros for a partition not
    /// used in this run).
    pub fn stats(&self) -> TopicStats<'_> {
        TopicStats {
            first: &self.first,
            rest: self.extra.as_ref().map_or(&[], |e| &e.rest),
        }
    }

    /// The incarnation: the broker clock (ns) at its creation, unique among
    /// all topics ever created in this data directory.
    pub fn incarnation(&self) -> u64 {
        self.incarnation
    }

    /// Number of partitions.
    pub fn partition_count(&self) -> u32 {
        u32::from(self.partitions)
    }

    /// Delete or compact.
    pub fn cleanup(&self) -> Cleanup {
        self.cleanup
    }

    /// Effective retention by age in ms under `opts` (`u64::MAX`: forever).
    pub fn retention_ms(&self, opts: &LogOptions) -> u64 {
        self.extra
            .as_ref()
            .and_then(|e| e.retention_ms)
            .unwrap_or(opts.retention_ms.as_u64())
    }

    /// Effective retention by size in bytes per partition under `opts`
    /// (`u64::MAX`: unlimited).
    pub fn retention_bytes(&self, opts: &LogOptions) -> u64 {
        self.extra
            .as_ref()
            .and_then(|e| e.retention_bytes)
            .unwrap_or(opts.retention_bytes.as_u64())
    }

    /// The effective policy of its partitions under `opts` (which hold the
    /// tombstone grace period, the same for every topic).
    pub fn policy(&self, opts: &LogOptions) -> TopicPolicy {
        TopicPolicy {
            cleanup: self.cleanup,
            retention_ms: self.retention_ms(opts),
            retention_bytes: self.retention_bytes(opts),
            delete_retention_ms: opts.delete_retention_ms,
        }
    }

    /// The slot of partition `partition`, if the topic has slots.
    pub fn slot(&self, partition: u32) -> Option<u64> {
        (self.first_slot != NO_SLOT).then(|| self.first_slot + u64::from(partition))
    }
}

/// A topic's traffic per partition (a view of it).
#[derive(Debug, Clone, Copy)]
pub struct TopicStats<'a> {
    first: &'a PartitionStats,
    rest: &'a [PartitionStats],
}

impl<'a> TopicStats<'a> {
    /// Partition `p`'s counters (`None` past the last partition).
    pub fn get(self, p: u32) -> Option<&'a PartitionStats> {
        match p {
            0 => Some(self.first),
            p => self.rest.get(p as usize - 1),
        }
    }

    /// Every partition's counters, in partition order.
    pub fn iter(self) -> impl Iterator<Item = &'a PartitionStats> {
        std::iter::once(self.first).chain(self.rest.iter())
    }
}

/// A topic in the name-ordered set: ordered and looked up by name.
#[derive(Debug, Clone)]
pub(super) struct ByName(pub(super) Arc<Topic>);

impl PartialEq for ByName {
    fn eq(&self, other: &Self) -> bool {
        self.0.name == other.0.name
    }
}
impl Eq for ByName {}
impl PartialOrd for ByName {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for ByName {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.name.cmp(&other.0.name)
    }
}
impl std::borrow::Borrow<str> for ByName {
    fn borrow(&self) -> &str {
        &self.0.name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn topic(partitions: u32, first_slot: Option<u64>) -> Topic {
        let settings = StoredSettings {
            partitions,
            cleanup: Cleanup::Compact,
            retention_ms: None,
            retention_bytes: Some(7),
        };
        Topic::new("t".into(), 1, &settings, first_slot)
    }

    #[test]
    fn each_partition_counts_apart_first_inline_or_not() {
        for n in [1, 3] {
            let t = topic(n, None);
            for p in 0..n {
                t.stats().get(p).unwrap().appended(1, u64::from(p) + 10);
            }
            assert!(t.stats().get(n).is_none(), "{n} partitions");
            let bytes: Vec<u64> = t.stats().iter().map(|s| s.totals()[1]).collect();
            assert_eq!(bytes, (0..u64::from(n)).map(|p| p + 10).collect::<Vec<_>>());
        }
    }

    #[test]
    fn settings_slots_and_size_of_a_topic() {
        let opts = LogOptions::default();
        let t = topic(3, Some(10));
        assert_eq!((t.slot(0), t.slot(2)), (Some(10), Some(12)));
        assert_eq!(topic(1, None).slot(0), None);
        // A retention of its own is kept with one partition too; none: the broker's.
        assert_eq!(topic(1, None).retention_bytes(&opts), 7);
        let plain = StoredSettings {
            partitions: 1,
            cleanup: Cleanup::Delete,
            retention_ms: None,
            retention_bytes: None,
        };
        let plain = Topic::new("p".into(), 2, &plain, None);
        assert_eq!(plain.retention_bytes(&opts), opts.retention_bytes.as_u64());
        assert!(
            plain.extra.is_none(),
            "an inbox pays for no extra allocation"
        );
        assert_eq!(t.partition_count(), 3);
        assert_eq!(
            t.policy(&opts),
            TopicPolicy {
                cleanup: Cleanup::Compact,
                retention_ms: opts.retention_ms.as_u64(),
                retention_bytes: 7,
                delete_retention_ms: opts.delete_retention_ms,
            }
        );
        // A million inboxes pay every byte a million times: with the
        // `Arc`'s two counters, 104 bytes is a 112-byte malloc chunk.
        assert!(
            std::mem::size_of::<Topic>() <= 88,
            "{}",
            std::mem::size_of::<Topic>()
        );
    }
}
