//! The log's partitions: found in the cache of open partitions, or opened
//! (and their active segment recovered) on first use; and the recovery of
//! every partition directory after a crash.

use std::fs;
use std::sync::atomic::Ordering;
use std::sync::{Arc, MutexGuard};

use super::cache::OpenPartitions;
use super::error::{IoContext, Result, StorageError};
use super::layout::{PARTITIONS_DIR, parse_partition_dir, partition_dir};
use super::partition::Partition;
use super::partition::open::Placement;
use super::store::Log;
use super::topic::{OPENED_BITS, Topic};

impl Log {
    pub(super) fn lock_open(&self) -> MutexGuard<'_, OpenPartitions> {
        self.open.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A partition; with `create`, an unknown topic is created with the
    /// default settings when `auto_create` is on. Opens it if it is not
    /// open (see [`Log::open_partition`]).
    pub fn partition(&self, topic: &str, partition: u32, create: bool) -> Result<Arc<Partition>> {
        let t = match self.topic(topic) {
            Some(t) => t,
            None if create && self.opts.auto_create => {
                match self.create_opening(topic, self.auto_settings(), true, Some(partition), None)
                {
                    Ok((_, Some(p))) => return Ok(p),
                    Ok((t, None)) => t,
                    // Another connection created it first.
                    Err(StorageError::TopicExists(_)) => self
                        .topic(topic)
                        .ok_or_else(|| StorageError::UnknownTopic(topic.to_owned()))?,
                    Err(e) => return Err(e),
                }
            }
            None => return Err(StorageError::UnknownTopic(topic.to_owned())),
        };
        self.open_partition(&t, partition)
    }

    /// [`Log::partition`] for async callers: run on the blocking pool, as
    /// opening a partition reads its directory and recovers its active
    /// segment, and creating a topic writes.
    pub async fn partition_off_thread(
        self: &Arc<Self>,
        topic: &str,
        partition: u32,
        create: bool,
    ) -> Result<Arc<Partition>> {
        let (log, name) = (self.clone(), topic.to_owned());
        tokio::task::spawn_blocking(move || log.partition(&name, partition, create))
            .await
            .unwrap_or_else(|e| Err(StorageError::panicked("opening a partition", e)))
    }

    /// The partition if it is open now; `Ok(None)` if it exists but is
    /// closed (opening it does file I/O: callers on async threads open it
    /// elsewhere, with [`Log::partition_off_thread`]). Unknown topics and partitions
    /// are errors, as in [`Log::partition`] without `create`.
    pub fn partition_if_open(&self, topic: &str, partition: u32) -> Result<Option<Arc<Partition>>> {
        let t = self
            .topic(topic)
            .ok_or_else(|| StorageError::UnknownTopic(topic.to_owned()))?;
        if partition >= t.partition_count() {
            return Err(StorageError::UnknownPartition {
                topic: topic.to_owned(),
                partition,
                count: t.partition_count(),
            });
        }
        let open = self.lock_open().get((t.incarnation, partition));
        if open.is_some() {
            self.cache_hits.fetch_add(1, Ordering::Relaxed);
        }
        Ok(open)
    }

    /// Whether partition `partition` of `topic` is open now (a read or
    /// write of it costs no open).
    pub fn is_open(&self, topic: &Topic, partition: u32) -> bool {
        self.lock_open()
            .peek((topic.incarnation, partition))
            .is_some()
    }

    /// Partition `partition` of `topic` if it is open, without counting a
    /// cache hit or keeping it open longer (for observers such as metrics).
    pub fn peek_partition(&self, topic: &Topic, partition: u32) -> Option<Arc<Partition>> {
        self.lock_open().peek((topic.incarnation, partition))
    }

    /// Partition `partition` of `topic`, opened (and its active segment
    /// recovered) if it is not open. Opening may close idle partitions to
    /// stay within `open_files`.
    pub fn open_partition(&self, topic: &Arc<Topic>, partition: u32) -> Result<Arc<Partition>> {
        if partition >= topic.partition_count() {
            return Err(StorageError::UnknownPartition {
                topic: topic.name().to_owned(),
                partition,
                count: topic.partition_count(),
            });
        }
        let key = (topic.incarnation, partition);
        let hit = {
            let mut open = self.lock_open();
            open.get(key).map(|p| (p, open.trim()))
        };
        if let Some((p, closed)) = hit {
            drop(closed);
            self.cache_hits.fetch_add(1, Ordering::Relaxed);
            return Ok(p);
        }
        let _opening = self.opening.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(p) = self.lock_open().get(key) {
            return Ok(p);
        }
        if self.stop.load(Ordering::SeqCst) {
            return Err(StorageError::ShuttingDown);
        }
        // Deleted while we waited: its files are gone or going.
        let current = self.topic(topic.name());
        if current.is_none_or(|t| t.incarnation != topic.incarnation) {
            return Err(StorageError::UnknownTopic(topic.name().to_owned()));
        }
        let pdir = partition_dir(&self.dir, topic.name(), partition, topic.incarnation);
        // A partition that moved out of its slot has its directory.
        let slot = match topic.slot(partition) {
            Some(s) if !pdir.exists() => Some(self.slabs.segment(s)?),
            _ => None,
        };
        let p = Partition::open_created(
            pdir,
            topic.name(),
            partition,
            self.opts.clone(),
            topic.policy(&self.opts),
            Some(self.sync.clone()),
            Placement {
                created_ns: Some(topic.incarnation),
                slot,
                fresh: false,
                durable: self.durable_on_disk(topic, partition),
            },
        )?;
        if partition < OPENED_BITS {
            topic.opened.fetch_or(1 << partition, Ordering::AcqRel);
        }
        count_into_topic(topic, &p);
        self.cache_misses.fetch_add(1, Ordering::Relaxed);
        let closed = self.lock_open().insert(key, p.clone());
        // Dropped outside the cache's lock: closing files takes syscalls.
        drop(closed);
        Ok(p)
    }

    /// Whether partition `partition` of `topic` can hold nothing unsynced
    /// on disk, so that opening it needs no recovery fsync: the last run
    /// closed cleanly, or nothing of it comes from an earlier run (the
    /// topic is new, or the partition was opened — and its recovered bytes
    /// fsynced — in this run; a partition the cache closed since had
    /// nothing unsynced under `always` and `interval`, and `never`
    /// promises nothing).
    fn durable_on_disk(&self, topic: &Topic, partition: u32) -> bool {
        self.started_clean
            || topic.incarnation > self.first_incarnation
            || (partition < OPENED_BITS
                && topic.opened.load(Ordering::Acquire) & (1 << partition) != 0)
    }

    /// After a crash, recover now every partition that has a directory
    /// (opening it walks, truncates and fsyncs its active segment), so the
    /// broker is ready only once that is done and no request waits for a
    /// large recovery. Partitions in slots (a 4 KiB segment each) are left
    /// to their first use. Nothing to do after a clean close. A partition
    /// that cannot be opened is reported and left for its first use, which
    /// fails alone. Returns the partitions recovered.
    pub fn recover_partition_dirs(&self) -> Result<usize> {
        if self.started_clean {
            return Ok(0);
        }
        let parts_dir = self.dir.join(PARTITIONS_DIR);
        let by_incarnation: std::collections::HashMap<u64, Arc<Topic>> = self
            .read_topics()
            .iter()
            .map(|t| (t.0.incarnation, t.0.clone()))
            .collect();
        let mut recovered = 0;
        for entry in fs::read_dir(&parts_dir).ctx("list partitions", &parts_dir)? {
            let entry = entry.ctx("list partitions", &parts_dir)?;
            let name = entry.file_name();
            let Some((_, p, inc)) = name.to_str().and_then(parse_partition_dir) else {
                continue;
            };
            let Some(topic) = by_incarnation.get(&inc).filter(|t| p < t.partition_count()) else {
                continue;
            };
            if self.is_open(topic, p) {
                // Opened (so recovered) already, e.g. the group offsets.
                continue;
            }
            match self.open_partition(topic, p) {
                Ok(_) => recovered += 1,
                Err(e) => tracing::error!(
                    topic = topic.name(), partition = p, error = %e,
                    "cannot recover partition at start; it fails alone when used"
                ),
            }
        }
        Ok(recovered)
    }

    /// Partition lookups found open in the cache, and partitions opened
    /// because they were not.
    pub fn cache_stats(&self) -> (u64, u64) {
        (
            self.cache_hits.load(Ordering::Relaxed),
            self.cache_misses.load(Ordering::Relaxed),
        )
    }

    /// Files held open by partitions now (segment files; memory maps of
    /// indexes hold none). At most [`LogOptions::open_files`](crate::log::LogOptions::open_files) plus what the
    /// partitions in use hold.
    pub fn open_files(&self) -> usize {
        self.lock_open().files()
    }

    /// Partitions open now, and partitions closed to keep within
    /// `open_files` since the start.
    pub fn open_partitions(&self) -> (usize, u64) {
        let open = self.lock_open();
        (open.len(), open.evictions)
    }
}

/// Make `p` (one of `topic`'s partitions) count into `topic`'s stats.
pub(super) fn count_into_topic(topic: &Arc<Topic>, p: &Partition) {
    p.count_into(topic.clone());
}
