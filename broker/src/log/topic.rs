//! Topics as the log holds them: a topic's name, incarnation and
//! effective policy, in a set ordered by name.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use hermit_protocol::Cleanup;

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
/// memory — with one partition, about 240 bytes in all (see
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
    /// Bit `p` (for partitions below 64): partition `p` was opened in this
    /// run, so its files hold nothing unsynced from an earlier run.
    pub(super) opened: AtomicU64,
    /// Effective retention by age in ms (`u64::MAX`: forever).
    retention_ms: u64,
    /// Effective retention by size in bytes per partition (`u64::MAX`: unlimited).
    retention_bytes: u64,
    pub(super) partitions: u32,
    cleanup: Cleanup,
    /// Traffic per partition since the start, made with the topic.
    stats: TopicStats,
}

/// [`Topic::first_slot`] of a topic whose partitions live in directories.
const NO_SLOT: u64 = u64::MAX;

impl Topic {
    /// A topic as the catalog names it, under the broker's defaults.
    pub(super) fn new(
        name: Box<str>,
        incarnation: u64,
        settings: &StoredSettings,
        first_slot: Option<u64>,
        opts: &LogOptions,
    ) -> Topic {
        let policy = TopicPolicy::of(settings, opts);
        Topic {
            name,
            incarnation,
            first_slot: first_slot.unwrap_or(NO_SLOT),
            opened: AtomicU64::new(0),
            retention_ms: policy.retention_ms,
            retention_bytes: policy.retention_bytes,
            partitions: settings.partitions,
            cleanup: policy.cleanup,
            stats: TopicStats::new(settings.partitions),
        }
    }

    /// Name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Traffic per partition since the start (zeros for a partition not
    /// used in this run).
    pub fn stats(&self) -> &TopicStats {
        &self.stats
    }

    /// The incarnation: the broker clock (ns) at its creation, unique among
    /// all topics ever created in this data directory.
    pub fn incarnation(&self) -> u64 {
        self.incarnation
    }

    /// Number of partitions.
    pub fn partition_count(&self) -> u32 {
        self.partitions
    }

    /// Delete or compact.
    pub fn cleanup(&self) -> Cleanup {
        self.cleanup
    }

    /// Effective retention by age in ms (`u64::MAX`: forever).
    pub fn retention_ms(&self) -> u64 {
        self.retention_ms
    }

    /// Effective retention by size in bytes per partition (`u64::MAX`: unlimited).
    pub fn retention_bytes(&self) -> u64 {
        self.retention_bytes
    }

    /// The effective policy of its partitions under `opts` (which hold the
    /// tombstone grace period, the same for every topic).
    pub fn policy(&self, opts: &LogOptions) -> TopicPolicy {
        TopicPolicy {
            cleanup: self.cleanup,
            retention_ms: self.retention_ms,
            retention_bytes: self.retention_bytes,
            delete_retention_ms: opts.delete_retention_ms,
        }
    }

    /// The slot of partition `partition`, if the topic has slots.
    pub fn slot(&self, partition: u32) -> Option<u64> {
        (self.first_slot != NO_SLOT).then(|| self.first_slot + u64::from(partition))
    }
}

/// A topic's traffic per partition: partition 0's inline (most topics,
/// every inbox, have one partition: no allocation of its own), the
/// others' in a box made with the topic.
#[derive(Debug, Default)]
pub struct TopicStats {
    first: PartitionStats,
    rest: Box<[PartitionStats]>,
}

impl TopicStats {
    fn new(partitions: u32) -> TopicStats {
        TopicStats {
            first: PartitionStats::default(),
            rest: (1..partitions).map(|_| PartitionStats::default()).collect(),
        }
    }

    /// Partition `p`'s counters (`None` past the last partition).
    pub fn get(&self, p: u32) -> Option<&PartitionStats> {
        match p {
            0 => Some(&self.first),
            p => self.rest.get(p as usize - 1),
        }
    }

    /// Every partition's counters, in partition order.
    pub fn iter(&self) -> impl Iterator<Item = &PartitionStats> {
        std::iter::once(&self.first).chain(self.rest.iter())
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
