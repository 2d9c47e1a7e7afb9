//! The broker's storage as the network sees it: the [`Log`] and, above it,
//! the consumer-group offsets kept in one of its topics.
//!
//! Layers run one way: [`offsets`](crate::offsets) stores group offsets in a
//! partition of the log; [`Engine`] composes the two and owns what concerns
//! both — creating the internal topic, the start-up reconciliation of offsets
//! with the log, commits checked against the log, and forgetting a deleted
//! topic's offsets; the network layer talks to the engine. Nothing in `log/`
//! knows groups or the engine (as in raft-engine, whose `Engine` composes pipe
//! log and memtables and nothing below knows it).
//!
//! The network layer names nothing below: the types it handles (the
//! [`Partition`] handle, [`StorageError`], [`Appended`], [`Topic`], …) are
//! re-exported here, and the log's operations it needs are the engine's.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use hermit_protocol::Cleanup;
use hermit_protocol::frame::{PartitionMetadata, TopicMetadata};
use tokio::sync::watch;

use crate::offsets::{OFFSETS_TOPIC, OffsetStore};

// What the network layer names, from here: it talks to the engine only.
pub use crate::log::{
    Appended, BodySource, FsyncPolicy, Limit, Log, LogOptions, Partition, Result, Served,
    StorageError, Topic, TopicPolicy,
};
pub use hermit_protocol::frame::TopicSettings;

/// The log and the consumer-group offsets over it.
pub struct Engine {
    log: Arc<Log>,
    offsets: OffsetStore,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("log", &self.log)
            .finish_non_exhaustive()
    }
}

impl Engine {
    /// Open (and recover) the data directory with [`Log::open`], create the
    /// internal offsets topic at the first start, load the offsets and
    /// reconcile them with the log: offsets of topics that no longer exist
    /// are forgotten, offsets ahead of their partition's end are clamped.
    pub fn open(dir: &Path, opts: LogOptions) -> Result<Engine> {
        let log = Arc::new(Log::open(dir, opts)?);
        if log.topic(OFFSETS_TOPIC).is_none() {
            log.create_topic(
                OFFSETS_TOPIC,
                TopicSettings {
                    partitions: 1,
                    cleanup: Cleanup::Compact,
                    // 0: the broker defaults (compaction ignores them).
                    retention_ms: 0,
                    retention_bytes: 0,
                },
            )?;
        }
        let offsets = OffsetStore::load(log.partition(OFFSETS_TOPIC, 0, false)?)?;
        let engine = Engine { log, offsets };
        engine.reconcile()?;
        Ok(engine)
    }

    fn reconcile(&self) -> Result<()> {
        // Offsets of a topic that does not exist are left over from a
        // deletion cut short by a crash: the topic's removal (a directory
        // rename) was durable, the tombstones written after it were not.
        // Forget them now, or a topic created later under that name would
        // inherit them. (A commit creates its topic, so no other path leaves
        // offsets without a topic.)
        let mut orphaned: Vec<String> = self
            .offsets
            .all()
            .into_iter()
            .map(|(_, topic, _, _)| topic)
            .filter(|t| self.log.topic(t).is_none())
            .collect();
        orphaned.sort_unstable();
        orphaned.dedup();
        for topic in orphaned {
            tracing::warn!(%topic, "forgetting the offsets of a deleted topic");
            self.offsets.forget_topic(&topic)?;
        }
        // A committed offset ahead of its log (the log lost an unsynced tail
        // in a crash under fsync = interval or never) is clamped when it is
        // read (`committed`): checking every one here would open every
        // partition at the start.
        Ok(())
    }

    /// The log: topics, partitions, appends and reads.
    pub fn log(&self) -> &Arc<Log> {
        &self.log
    }

    /// The consumer-group offsets.
    pub fn offsets(&self) -> &OffsetStore {
        &self.offsets
    }

    /// Commit `offset` for a group; refused if it is ahead of the partition's
    /// high watermark. The topic is created on demand like any use of it.
    /// Returns the append in `__consumer_offsets` so the caller can wait for
    /// it to be durable (see [`Engine::offsets_partition`]).
    pub fn commit(
        &self,
        group: &str,
        topic: &str,
        partition: u32,
        offset: u64,
    ) -> Result<Appended> {
        let p = self.log.partition(topic, partition, true)?;
        let hw = p.high_watermark();
        if offset > hw {
            return Err(StorageError::OffsetAheadOfLog {
                offset,
                high_watermark: hw,
            });
        }
        self.offsets.commit(group, topic, partition, offset)
    }

    /// The committed offset of `group` for `topic/partition`, if any. An
    /// offset ahead of its partition's log end (the log lost an unsynced
    /// tail in a crash under `fsync = interval` or `never`) is clamped to
    /// the log end, and the clamp committed.
    pub fn committed(&self, group: &str, topic: &str, partition: u32) -> Option<u64> {
        let offset = self.offsets.committed(group, topic, partition)?;
        let end = self
            .log
            .topic(topic)
            .and_then(|t| self.log.open_partition(&t, partition).ok())
            .map(|p| p.next_offset());
        match end {
            Some(end) if offset > end => {
                tracing::warn!(%group, %topic, partition, committed = offset, log_end = end,
                    "committed offset is ahead of the log; clamping it to the log end");
                if let Err(e) = self.offsets.commit(group, topic, partition, end) {
                    tracing::error!(%group, %topic, partition, error = %e, "could not commit the clamped offset");
                }
                Some(end)
            }
            _ => Some(offset),
        }
    }

    /// The partition commits are appended to: a commit is durable once its
    /// [`synced_offset`](Partition::synced_offset) reaches the commit's
    /// `next_offset`.
    pub fn offsets_partition(&self) -> &Arc<Partition> {
        self.offsets.partition()
    }

    /// Delete a topic (see [`Log::delete_topic`]) and forget every group's
    /// offsets for it. The internal offsets topic cannot be deleted.
    pub fn delete_topic(&self, name: &str) -> Result<()> {
        if name == OFFSETS_TOPIC {
            return Err(StorageError::InternalTopic(OFFSETS_TOPIC.to_owned()));
        }
        self.log
            .delete_topic(name, || self.offsets.forget_topic(name))
    }

    /// The data directory.
    pub fn dir(&self) -> &Path {
        self.log.dir()
    }

    /// The storage options the log runs with.
    pub fn options(&self) -> &LogOptions {
        self.log.options()
    }

    /// Watch the group-commit generation: it changes after every round
    /// (see [`Log::sync_generation`]).
    pub fn sync_generation(&self) -> watch::Receiver<u64> {
        self.log.sync_generation()
    }

    /// A topic by name.
    pub fn topic(&self, name: &str) -> Option<Arc<Topic>> {
        self.log.topic(name)
    }

    /// One page of a topic listing (see [`Log::topics_after`]).
    pub fn topics_after(&self, after: Option<&str>, limit: usize) -> Vec<Arc<Topic>> {
        self.log.topics_after(after, limit)
    }

    /// Create a topic (see [`Log::create_topic`]): blocks until the
    /// creation is durable.
    pub fn create_topic(&self, name: &str, settings: TopicSettings) -> Result<Arc<Topic>> {
        self.log.create_topic(name, settings)
    }

    /// The partition if it is open now, with no I/O (see
    /// [`Log::partition_if_open`]).
    pub fn partition_if_open(&self, topic: &str, partition: u32) -> Result<Option<Arc<Partition>>> {
        self.log.partition_if_open(topic, partition)
    }

    /// Create the unknown topic `topic` in slots and return its partition,
    /// with no read (see [`Log::auto_create_in_slot`]).
    pub fn auto_create_in_slot(
        &self,
        topic: &str,
        partition: u32,
    ) -> Result<Option<Arc<Partition>>> {
        self.log.auto_create_in_slot(topic, partition)
    }

    /// A partition, opened — and with `create` its topic created — if
    /// needed (see [`Log::partition`]). Blocking: opening reads the
    /// partition's directory and recovers its active segment.
    pub fn partition(&self, topic: &str, partition: u32, create: bool) -> Result<Arc<Partition>> {
        self.log.partition(topic, partition, create)
    }

    /// [`Engine::partition`] for async callers: on the blocking pool (see
    /// [`Log::partition_off_thread`]).
    pub async fn partition_off_thread(
        &self,
        topic: &str,
        partition: u32,
        create: bool,
    ) -> Result<Arc<Partition>> {
        self.log
            .partition_off_thread(topic, partition, create)
            .await
    }

    /// Read from `partition` for a fetch, on an async worker: whole batches
    /// from `offset` (about `max_bytes`, at least one batch) as a body
    /// source, and the bounds. A segment that must be verified first is
    /// verified off the async workers (see [`Partition::read_settled`]).
    pub async fn read(
        &self,
        partition: &Arc<Partition>,
        offset: u64,
        max_bytes: u32,
        scratch: &mut Vec<u8>,
    ) -> Result<Served> {
        partition.read_settled(offset, max_bytes, scratch).await
    }

    /// Append one record batch to `partition` (see [`Partition::append`]).
    #[inline]
    pub fn append(&self, partition: &Arc<Partition>, batch: &[u8]) -> Result<Appended> {
        partition.append(batch)
    }

    /// What `Metadata` says about a topic: its effective policy and each
    /// partition's bounds. Blocking: partitions that are not open are
    /// opened for their bounds.
    pub fn topic_metadata(&self, topic: &Arc<Topic>) -> Result<TopicMetadata> {
        let policy = topic.policy();
        let partitions = (0..topic.partition_count())
            .map(|i| {
                let p = self.log.open_partition(topic, i)?;
                let (log_start, high_watermark) = p.bounds();
                Ok(PartitionMetadata {
                    partition: i,
                    log_start,
                    high_watermark,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(TopicMetadata {
            name: topic.name().to_owned(),
            cleanup: policy.cleanup,
            retention_ms: policy.retention_ms,
            retention_bytes: policy.retention_bytes,
            partitions,
        })
    }

    /// Start the log's background threads (see [`Log::start_background`]).
    pub fn start_background(&self, cleanup_every: Duration) {
        self.log.start_background(cleanup_every);
    }

    /// Close the log (see [`Log::close`]): a last group commit, which also
    /// makes the offsets durable, and an fsync of every partition.
    pub fn close(&self) -> Result<()> {
        self.log.close()
    }
}

#[cfg(test)]
mod tests {
    use hermit_protocol::record::BatchBuilder;

    use super::*;

    #[test]
    fn metadata_gives_each_partitions_bounds() {
        let dir = tempfile::tempdir().unwrap();
        let opts = LogOptions {
            fsync: FsyncPolicy::Never,
            ..LogOptions::default()
        };
        let engine = Engine::open(dir.path(), opts).unwrap();
        let settings = TopicSettings {
            partitions: 2,
            cleanup: Cleanup::Delete,
            retention_ms: 0,
            retention_bytes: 0,
        };
        let topic = engine.create_topic("t", settings).unwrap();
        let p = engine.partition("t", 1, false).unwrap();
        let mut b = BatchBuilder::new(b"k");
        b.push(b"v");
        engine.append(&p, &b.finish(1).unwrap()).unwrap();
        let meta = engine.topic_metadata(&topic).unwrap();
        assert_eq!(meta.name, "t");
        let bounds: Vec<_> = meta
            .partitions
            .iter()
            .map(|m| (m.partition, m.log_start, m.high_watermark))
            .collect();
        assert_eq!(bounds, [(0, 0, 0), (1, 0, 1)]);
        assert!(engine.partition_if_open("t", 1).unwrap().is_some());
        assert_eq!(engine.topics_after(None, 10).len(), 2, "t and the offsets");
        engine.close().unwrap();
    }
}
