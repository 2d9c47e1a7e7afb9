//! The log's topics: looking them up and listing them, creating (one
//! catalog append, made durable by the group commit) and deleting them.

use std::collections::BTreeSet;
use std::ops::Bound;
use std::sync::atomic::Ordering;
use std::sync::{Arc, MutexGuard};

use hermit_protocol::frame::TopicSettings;
use hermit_protocol::{Cleanup, TopicName};

use super::catalog::{Entry, StoredSettings};
use super::clock;
use super::error::{IoContext, Result, StorageError};
use super::fsutil;
use super::layout::{PARTITIONS_DIR, TRASH_DIR, partition_dir, unique_name};
use super::options::FsyncPolicy;
use super::partition::Partition;
use super::partition::open::Placement;
use super::partitions::count_into_topic;
use super::segment::SegmentFile;
use super::store::Log;
use super::topic::{ByName, Topic};

impl Log {
    pub(super) fn read_topics(&self) -> std::sync::RwLockReadGuard<'_, BTreeSet<ByName>> {
        self.topics.read().unwrap_or_else(|p| p.into_inner())
    }

    /// A topic by name.
    pub fn topic(&self, name: &str) -> Option<Arc<Topic>> {
        self.read_topics().get(name).map(|t| t.0.clone())
    }

    /// Number of topics, internal ones included.
    pub fn topic_count(&self) -> usize {
        self.read_topics().len()
    }

    /// Every topic, internal ones included, sorted by name. Holds them all:
    /// for listings use [`Log::topics_after`].
    pub fn topics(&self) -> Vec<Arc<Topic>> {
        self.read_topics().iter().map(|t| t.0.clone()).collect()
    }

    /// At most `limit` topics whose names sort after `after` (from the
    /// first with `None`), in name order, internal ones included: one page
    /// of a listing that never holds every topic at once.
    pub fn topics_after(&self, after: Option<&str>, limit: usize) -> Vec<Arc<Topic>> {
        let topics = self.read_topics();
        let from = match after {
            Some(a) => topics.range::<str, _>((Bound::Excluded(a), Bound::Unbounded)),
            None => topics.range::<str, _>(..),
        };
        from.take(limit).map(|t| t.0.clone()).collect()
    }

    /// Create a topic. Retention values of 0 mean "the broker default".
    /// Returns once the creation is durable (under `fsync = never`, once it
    /// is written).
    pub fn create_topic(&self, name: &str, settings: TopicSettings) -> Result<Arc<Topic>> {
        self.create_opening(name, settings, false, None, None)
            .map(|(t, _)| t)
    }

    /// The settings of a topic created on first use.
    pub(super) fn auto_settings(&self) -> TopicSettings {
        TopicSettings {
            partitions: self.opts.default_partitions,
            cleanup: Cleanup::Delete,
            retention_ms: 0,
            retention_bytes: 0,
        }
    }

    /// Create the unknown topic `topic` on first use (as
    /// [`Log::partition`] with `create` does) and return its partition
    /// `partition` — without reading anything, when the topic gets slots:
    /// its slots hold nothing yet. So this may be called from async
    /// threads; it writes the catalog entry (one small `write`, like an
    /// append) and, once per 65,536 topics, creates a slab file. `Ok(None)`
    /// when that does not apply — slots or auto-creation are off, the topic
    /// exists by now, or a creation or deletion holds the admin lock (a
    /// deletion holds it across fsyncs) — and the caller uses
    /// [`Log::partition`] off the async threads.
    pub fn auto_create_in_slot(
        &self,
        topic: &str,
        partition: u32,
    ) -> Result<Option<Arc<Partition>>> {
        if !self.opts.auto_create || !self.opts.partition_slots {
            return Ok(None);
        }
        // A deletion holds the admin lock across fsyncs: never wait for it here.
        let admin = match self.admin.try_lock() {
            Ok(g) => g,
            Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => return Ok(None),
        };
        match self.create_opening(
            topic,
            self.auto_settings(),
            true,
            Some(partition),
            Some(admin),
        ) {
            Ok((_, p)) => Ok(p),
            Err(StorageError::TopicExists(_)) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Create a topic: one catalog append. `auto_created`: on first use, not
    /// by request (for the audit log); such a creation is not waited for —
    /// the durable acknowledgement of the record that caused it waits for
    /// the group commit, which fsyncs the catalog before any partition.
    ///
    /// With `open`, partition `open` of a topic given slots is opened at
    /// once, with no I/O (its slot holds nothing), and returned; it is in
    /// the open partitions before the topic can be found, so that it has one
    /// instance. Otherwise (or if there is no such partition) `None`.
    /// `admin`: the admin lock, if the caller took it already.
    pub(super) fn create_opening(
        &self,
        name: &str,
        settings: TopicSettings,
        auto_created: bool,
        open: Option<u32>,
        admin: Option<MutexGuard<'_, ()>>,
    ) -> Result<(Arc<Topic>, Option<Arc<Partition>>)> {
        let stored = Self::stored_settings(name, &settings)?;
        let (topic, opened, end) = {
            let _admin =
                admin.unwrap_or_else(|| self.admin.lock().unwrap_or_else(|p| p.into_inner()));
            if self.stop.load(Ordering::SeqCst) {
                return Err(StorageError::ShuttingDown);
            }
            if self.topic(name).is_some() {
                return Err(StorageError::TopicExists(name.to_owned()));
            }
            let incarnation = self.next_incarnation(name, settings.partitions)?;
            let first_slot = self
                .opts
                .partition_slots
                .then(|| self.slabs.reserve(settings.partitions));
            // Before the entry: a failure must leave no topic behind.
            let fresh_slot = match (open, first_slot) {
                (Some(p), Some(s)) if p < settings.partitions => {
                    Some((p, self.slabs.segment(s + u64::from(p))?))
                }
                _ => None,
            };
            let end = self.catalog.append(&Entry::Create {
                name: name.to_owned(),
                incarnation,
                settings: stored,
                first_slot,
            })?;
            let topic = Arc::new(Topic::new(name.into(), incarnation, &stored, first_slot));
            let opened = match fresh_slot {
                Some((p, slot)) => Some(self.open_in_fresh_slot(&topic, p, slot)?),
                None => None,
            };
            self.topics
                .write()
                .unwrap_or_else(|p| p.into_inner())
                .insert(ByName(topic.clone()));
            (topic, opened, end)
        };
        if !auto_created {
            self.wait_catalog(end)?;
        } else {
            // Nobody waits for it: the durable ack of the record that
            // caused it waits for the round that syncs it.
            self.sync.catalog_written();
        }
        // The `audit` target: who changed which topics, for operators to
        // route apart. The storage layer knows no principal or peer; the
        // network layer logs those. Never a key or a payload.
        tracing::info!(
            target: "audit",
            topic = name,
            partitions = settings.partitions,
            cleanup = ?settings.cleanup,
            auto_created,
            "topic created"
        );
        Ok((topic, opened))
    }

    /// Check a new topic's name and settings; its settings as the catalog
    /// stores them.
    fn stored_settings(name: &str, settings: &TopicSettings) -> Result<StoredSettings> {
        TopicName::new_any(name).map_err(|source| {
            StorageError::InvalidBatch(hermit_protocol::WireError::InvalidName {
                what: "topic",
                source,
            })
        })?;
        if settings.partitions == 0 || settings.partitions > hermit_protocol::frame::MAX_PARTITIONS
        {
            return Err(StorageError::InvalidTopicSettings(format!(
                "partitions must be between 1 and {}",
                hermit_protocol::frame::MAX_PARTITIONS
            )));
        }
        Ok(StoredSettings {
            partitions: settings.partitions,
            cleanup: settings.cleanup,
            retention_ms: (settings.retention_ms != 0).then_some(settings.retention_ms),
            retention_bytes: (settings.retention_bytes != 0).then_some(settings.retention_bytes),
        })
    }

    /// The incarnation of a topic `name` of `partitions` being created
    /// (under the admin lock), with whatever a lost creation with the same
    /// clock reading left removed.
    fn next_incarnation(&self, name: &str, partitions: u32) -> Result<u64> {
        // Strictly increasing, even if the clock stepped back.
        let incarnation = clock::now_ns().max(self.last_incarnation.load(Ordering::SeqCst) + 1);
        self.last_incarnation.store(incarnation, Ordering::SeqCst);
        if incarnation <= self.dirs_before {
            // A lost creation with this very clock reading may have left
            // a directory (see `Log::open`); never reuse what it holds.
            for p in 0..partitions {
                let pdir = partition_dir(&self.dir, name, p, incarnation);
                if pdir.exists() {
                    tracing::warn!(dir = %pdir.display(), "removing a leftover directory of a lost topic creation");
                    self.opts
                        .io
                        .remove_dir_all(&pdir)
                        .ctx("remove leftover partition", &pdir)?;
                }
            }
        }
        Ok(incarnation)
    }

    /// Open partition `p` of `topic`, just created, in its fresh `slot`
    /// (no I/O: the slot holds nothing), and put it in the open partitions.
    fn open_in_fresh_slot(
        &self,
        topic: &Arc<Topic>,
        p: u32,
        slot: Arc<SegmentFile>,
    ) -> Result<Arc<Partition>> {
        let part = Partition::open_created(
            partition_dir(&self.dir, &topic.name, p, topic.incarnation),
            &topic.name,
            p,
            self.opts.clone(),
            topic.policy(&self.opts),
            Some(self.sync.clone()),
            Placement {
                created_ns: Some(topic.incarnation),
                slot: Some(slot),
                fresh: true,
                durable: true,
            },
        )?;
        count_into_topic(topic, &part);
        let closed = self
            .lock_open()
            .insert((topic.incarnation, p), part.clone());
        drop(closed);
        Ok(part)
    }

    /// Make the catalog durable up to `end`: by the group commit (shared
    /// with other creations and appends), or at once when there is no sync
    /// thread (`fsync = never`, [`LogOptions::manual_sync`]).
    pub(super) fn wait_catalog(&self, end: u64) -> Result<()> {
        if self.opts.fsync == FsyncPolicy::Never || self.opts.manual_sync {
            self.catalog.sync()?;
            return Ok(());
        }
        self.sync.catalog_dirty();
        self.catalog.wait_synced(end)
    }

    /// Delete a topic: it disappears at once. The deletion is made durable
    /// in the catalog (the commit point), then its partition directories are
    /// moved to `trash/` and removed. Then `before_reuse` runs, while the
    /// name cannot be created again: what a layer above keeps per topic
    /// (group offsets, see
    /// `Engine::delete_topic`) is
    /// dropped there, so a topic created later under the name inherits
    /// nothing. Its error is returned; the topic is gone either way.
    pub fn delete_topic(
        &self,
        name: &str,
        before_reuse: impl FnOnce() -> Result<()>,
    ) -> Result<()> {
        let _admin = self.admin.lock().unwrap_or_else(|p| p.into_inner());
        let topic = self
            .topics
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .take(name)
            .ok_or_else(|| StorageError::UnknownTopic(name.to_owned()))?
            .0;
        // No longer reachable by name. Wait for opens in progress, then
        // close what is open; handles taken before stop appending.
        let closed = {
            let _opening = self.opening.lock().unwrap_or_else(|p| p.into_inner());
            self.lock_open()
                .remove_incarnation(topic.incarnation, topic.partition_count())
        };
        for p in &closed {
            p.mark_deleted();
        }
        drop(closed);
        // The totals over all topics must not go back when one goes.
        self.retired.add_all(topic.stats().iter());
        let end = self.catalog.append(&Entry::Delete {
            name: name.to_owned(),
            incarnation: topic.incarnation,
        })?;
        // Durable before any file goes (a crash after this removes the
        // rest at the next start); inline, whatever the fsync policy.
        self.catalog.sync()?;
        self.catalog.wait_synced(end)?;
        let io = &self.opts.io;
        let trash = self.dir.join(TRASH_DIR);
        if !trash.exists() {
            fsutil::create_dir_durable(io, &trash)?;
        }
        let dest = trash.join(unique_name(name));
        io.create_dir(&dest).ctx("create trash directory", &dest)?;
        for p in 0..topic.partition_count() {
            let pdir = partition_dir(&self.dir, name, p, topic.incarnation);
            if pdir.exists() {
                let to = dest.join(p.to_string());
                io.rename(&pdir, &to)
                    .ctx("move partition to trash", &pdir)?;
            }
        }
        fsutil::fsync_dir(io, &self.dir.join(PARTITIONS_DIR))?;
        for p in 0..topic.partition_count() {
            if let Some(slot) = topic.slot(p) {
                self.slabs.release(slot)?;
            }
        }
        if let Err(e) = io.remove_dir_all(&dest) {
            tracing::warn!(dir = %dest.display(), error = %e, "could not empty the trash; it is emptied at the next start");
        }
        // Logged once the topic is gone from disk, also when `before_reuse` fails.
        tracing::info!(
            target: "audit",
            topic = name,
            partitions = topic.partition_count(),
            "topic deleted"
        );
        before_reuse()
    }
}
