//! The broker's storage as the network sees it: the [`Log`] and, above it,
//! the consumer-group offsets and the claim positions kept in two of its
//! topics.
//!
//! Layers run one way: [`offsets`](crate::offsets) stores group offsets and
//! [`claims`](crate::claims) claim positions, each in a partition of the
//! log; [`Engine`] composes the three and owns what concerns more than one —
//! creating the internal topics, the start-up reconciliation of offsets and
//! claims with the log, commits checked against the log, claims read from
//! it, and forgetting a deleted topic's offsets and claims; the network
//! layer talks to the engine. Nothing in `log/` knows groups, claims or the
//! engine (as in raft-engine, whose `Engine` composes pipe log and memtables
//! and nothing below knows it).
//!
//! The network layer names nothing below: the types it handles (the
//! [`Partition`] handle, [`StorageError`], [`Appended`], [`Topic`], …) are
//! re-exported here, and the log's operations it needs are the engine's.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use hermit_protocol::Cleanup;
use hermit_protocol::frame::{PartitionMetadata, TopicMetadata};
use tokio::sync::watch;

use crate::claims::{CLAIMS_TOPIC, ClaimStore, Step};
use crate::log::FileRange;
use crate::offsets::{OFFSETS_TOPIC, OffsetStore};

// What the network layer names, from here: it talks to the engine only.
pub use crate::claims::ClaimRequest;
pub use crate::log::{
    Appended, BodySource, FsyncPolicy, Limit, Log, LogOptions, Partition, Result, Served,
    StorageError, Tail, Topic, TopicPolicy,
};
pub use hermit_protocol::frame::TopicSettings;

/// The log, and the consumer-group offsets and claim positions over it.
pub struct Engine {
    log: Arc<Log>,
    offsets: OffsetStore,
    claims: ClaimStore,
}

/// What a claim gave ([`Engine::claim`]).
#[derive(Debug)]
pub enum ClaimAnswer {
    /// A batch for this claimer.
    Claimed {
        /// Its first offset.
        offset: u64,
        /// The offset after it: the claim position now.
        next: u64,
        /// The batch, header included.
        batch: Bytes,
        /// Answer once [`Engine::claims_partition`] is synced to this: then
        /// the position that hands the batch out is durable.
        durable_at: u64,
        /// `false` for a retry of a remembered claim (the same batch again).
        new: bool,
    },
    /// Every durable batch is claimed.
    Nothing {
        /// The claim position.
        position: u64,
        /// Where what may be handed out ends.
        end: u64,
    },
    /// The next batch is larger than the answer may carry; nothing moved.
    TooLarge {
        /// Its first offset.
        offset: u64,
        /// Its length in bytes.
        len: u64,
    },
    /// The admission check refused; nothing moved.
    Refused,
}

/// A claimed batch up to this size is read on the async worker (a bounded
/// read from the page cache, INTERNALS.md §2); a larger one on the
/// blocking pool.
const INLINE_READ: u64 = 256 << 10;

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("log", &self.log)
            .finish_non_exhaustive()
    }
}

impl Engine {
    /// Open (and recover) the data directory with [`Log::open`], create the
    /// internal offsets and claims topics at the first start, load the
    /// offsets and claims and reconcile them with the log: those of topics
    /// that no longer exist are forgotten, offsets and claim positions
    /// ahead of their partition's end are clamped (when read).
    pub fn open(dir: &Path, opts: LogOptions) -> Result<Engine> {
        let log = Arc::new(Log::open(dir, opts)?);
        for internal in [OFFSETS_TOPIC, CLAIMS_TOPIC] {
            if log.topic(internal).is_none() {
                log.create_topic(
                    internal,
                    TopicSettings {
                        partitions: 1,
                        cleanup: Cleanup::Compact,
                        // 0: the broker defaults (compaction ignores them).
                        retention_ms: 0,
                        retention_bytes: 0,
                    },
                )?;
            }
        }
        let offsets = OffsetStore::load(log.partition(OFFSETS_TOPIC, 0, false)?)?;
        let claims = ClaimStore::load(log.partition(CLAIMS_TOPIC, 0, false)?)?;
        let engine = Engine {
            log,
            offsets,
            claims,
        };
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
        // The same for claims: a claim never creates its topic, so only a
        // deletion cut short leaves claims without one.
        for topic in self.claims.topics() {
            if self.log.topic(&topic).is_none() {
                tracing::warn!(%topic, "forgetting the claims of a deleted topic");
                self.claims.forget_topic(&topic)?;
            }
        }
        // A committed offset or claim position ahead of its log (the log
        // lost an unsynced tail in a crash under fsync = interval or never)
        // is clamped when it is read (`committed`, `claim`): checking every
        // one here would open every partition at the start.
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

    /// The claim positions.
    pub fn claims(&self) -> &ClaimStore {
        &self.claims
    }

    /// The partition claims are recorded in: a claim is durable once its
    /// [`synced_offset`](Partition::synced_offset) reaches the answer's
    /// `durable_at`.
    pub fn claims_partition(&self) -> &Arc<Partition> {
        self.claims.partition()
    }

    /// Claim the next batch of `partition` for `req.principal` (see
    /// [`ClaimStore::take`], PROTOCOL.md "Claim"): a retry of a remembered
    /// claim id gets its batch again; otherwise the first durable batch at
    /// or after the claim position is handed out and the position moved
    /// past it, recorded in `__claims`. `admit` is asked once, only when a
    /// new batch is about to be handed out (the rate limits).
    ///
    /// Takes the partition the caller opened (off the async workers: it
    /// may have been closed), not its name; a claim never creates a topic.
    /// A segment to verify first is verified on the blocking pool, and a
    /// large batch read there; the rest runs inline.
    pub async fn claim(
        &self,
        partition: &Arc<Partition>,
        req: ClaimRequest,
        mut admit: impl FnMut() -> bool + Send,
        scratch: &mut Vec<u8>,
    ) -> Result<ClaimAnswer> {
        let live = || {
            self.log
                .topic(partition.topic())
                .is_some_and(|t| t.incarnation() == partition.incarnation())
        };
        loop {
            match self
                .claims
                .take(partition, &req, live, &mut admit, scratch)?
            {
                Step::Verify(seg) => {
                    let p = partition.clone();
                    tokio::task::spawn_blocking(move || p.verify_segment(&seg))
                        .await
                        .unwrap_or_else(|e| Err(StorageError::panicked("verification", e)))?;
                }
                Step::Batch {
                    range,
                    offset,
                    next,
                    durable_at,
                    new,
                } => {
                    return Ok(ClaimAnswer::Claimed {
                        offset,
                        next,
                        batch: read_batch(range).await?,
                        durable_at,
                        new,
                    });
                }
                Step::Nothing { position, end } => {
                    return Ok(ClaimAnswer::Nothing { position, end });
                }
                Step::TooLarge { offset, len } => return Ok(ClaimAnswer::TooLarge { offset, len }),
                Step::Refused => return Ok(ClaimAnswer::Refused),
            }
        }
    }

    /// Delete a topic (see [`Log::delete_topic`]) and forget every group's
    /// offsets and every claim for it. The internal topics cannot be deleted.
    pub fn delete_topic(&self, name: &str) -> Result<()> {
        if name == OFFSETS_TOPIC || name == CLAIMS_TOPIC {
            return Err(StorageError::InternalTopic(name.to_owned()));
        }
        self.log.delete_topic(name, || {
            self.offsets.forget_topic(name)?;
            self.claims.forget_topic(name)
        })
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
            cleanup: topic.cleanup(),
            retention_ms: topic.retention_ms(self.options()),
            retention_bytes: topic.retention_bytes(self.options()),
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

/// The bytes of one claimed batch (a claim's answer is assembled in
/// memory): inline when small, else on the blocking pool.
async fn read_batch(range: FileRange) -> Result<Bytes> {
    let len = range.len;
    let path = range.file.path.clone();
    let body = range.into_body();
    let read = move || {
        let mut buf = vec![0u8; len as usize];
        let mut at = 0;
        while at < buf.len() {
            match body.read_at(&mut buf[at..], at as u64) {
                Ok(0) => {
                    return Err(StorageError::io(
                        "read claimed batch",
                        &path,
                        body.ended_early(),
                    ));
                }
                Ok(n) => at += n,
                Err(e) => return Err(StorageError::io("read claimed batch", &path, e)),
            }
        }
        Ok(Bytes::from(buf))
    };
    if len <= INLINE_READ {
        read()
    } else {
        tokio::task::spawn_blocking(read)
            .await
            .unwrap_or_else(|e| Err(StorageError::panicked("claim read", e)))
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
        assert_eq!(
            engine.topics_after(None, 10).len(),
            3,
            "t, the offsets and the claims"
        );
        engine.close().unwrap();
    }
}
