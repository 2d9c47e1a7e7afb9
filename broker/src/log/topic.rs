//! Topics as the log holds them: a topic's name, incarnation and
//! effective policy, in a set ordered by name.

use std::sync::atomic::AtomicU64;
use std::sync::{Arc, OnceLock};

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

/// A topic: its name, incarnation and policy. Its partitions are opened on
/// use (`Log::partition`, `Log::open_partition`); a topic nobody uses
/// holds no file and costs only this struct in memory.
#[derive(Debug)]
pub struct Topic {
    pub(super) name: Box<str>,
    pub(super) incarnation: u64,
    pub(super) partitions: u32,
    pub(super) policy: TopicPolicy,
    /// The slot of partition 0 (partition `p` has `first_slot + p`).
    pub(super) first_slot: Option<u64>,
    /// Bit `p` (for partitions below 64): partition `p` was opened in this
    /// run, so its files hold nothing unsynced from an earlier run.
    pub(super) opened: AtomicU64,
    /// Traffic per partition since the start, made when one is first
    /// opened: a topic never used in this run costs one pointer.
    pub(super) stats: OnceLock<Arc<[PartitionStats]>>,
}

impl Topic {
    /// Name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Traffic per partition since the start, if a partition of it was
    /// opened in this run (none otherwise).
    pub fn stats(&self) -> Option<&Arc<[PartitionStats]>> {
        self.stats.get()
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

    /// Effective policy.
    pub fn policy(&self) -> TopicPolicy {
        self.policy
    }

    /// The slot of partition `partition`, if the topic has slots.
    pub fn slot(&self, partition: u32) -> Option<u64> {
        self.first_slot.map(|s| s + u64::from(partition))
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
