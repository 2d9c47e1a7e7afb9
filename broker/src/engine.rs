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

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use hermit_protocol::Cleanup;
use hermit_protocol::frame::TopicSettings;

use crate::log::{Appended, Log, LogOptions, Result, StorageError};
use crate::offsets::{OFFSETS_TOPIC, OffsetStore};

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
    /// [`synced_offset`](crate::log::Partition::synced_offset) reaches the
    /// commit's `next_offset`.
    pub fn offsets_partition(&self) -> &Arc<crate::log::Partition> {
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
