//! The storage engine: a data directory of topics, each a set of partitions,
//! each a segmented write-ahead log.
//!
//! # Layout
//! - [`reader`]: the segment reader, the only way to scan a log file.
//! - [`index`]: the sparse, memory-mapped offset index.
//! - [`segment`]: file naming, rolled segments, verification.
//! - [`partition`]: append, zero-copy reads, group-commit fsync, recovery, retention.
//! - [`check`]: offline, read-only verification and dump of a data directory.
//! - [`compaction`]: keep the newest batch per key, with an atomic swap.
//! - [`sync`]: the group-commit thread.
//! - [`clock`]: the broker clock append times and retention are measured with.
//! - [`lock`]: the data directory lock.
//! - [`fsutil`]: durable directory and file replacement helpers.
//! - [`error`]: the error type, [`StorageError`], with paths in every I/O error.
//!
//! ```text
//! <data_dir>/LOCK
//! <data_dir>/topics/<topic>/topic.toml
//! <data_dir>/topics/<topic>/<partition>/<base:020>.log|.idx
//! <data_dir>/trash/                  topics being deleted
//! <data_dir>/creating/               topics being created (moved into topics/ when complete)
//! ```

pub mod check;
pub mod clock;
pub mod compaction;
pub mod error;
pub mod fsutil;
pub mod index;
pub mod lock;
pub mod partition;
pub mod reader;
pub mod segment;
pub mod sync;

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::thread::JoinHandle;

use hermit_protocol::frame::TopicSettings;
use hermit_protocol::{Cleanup, TopicName};
use serde::{Deserialize, Serialize};

pub use error::{Corruption, Result, StorageError};
pub use partition::{Appended, FileRange, Partition, ReadOutcome, ScanCheck, ScanScope};

use crate::config::{Config, FsyncPolicy, Limit, RecoveryMode, VerifyRolled};
use error::IoContext;
use lock::DirLock;
use sync::SyncQueue;

/// The storage settings of a broker (a subset of [`Config`]).
#[derive(Debug, Clone)]
pub struct LogOptions {
    /// fsync policy.
    pub fsync: FsyncPolicy,
    /// Roll size.
    pub segment_bytes: u64,
    /// Roll age in ms.
    pub segment_ms: u64,
    /// Bytes between index entries.
    pub index_interval_bytes: u64,
    /// Default retention by age.
    pub retention_ms: Limit,
    /// Default retention by size.
    pub retention_bytes: Limit,
    /// Tombstone grace period for compaction.
    pub delete_retention_ms: u64,
    /// Damage handling at start.
    pub recovery_mode: RecoveryMode,
    /// When old segments are verified.
    pub verify_rolled: VerifyRolled,
    /// Partitions of auto-created topics.
    pub default_partitions: u32,
    /// Whether unknown topics are created on use.
    pub auto_create: bool,
    /// Largest payload accepted.
    pub max_payload: u32,
    /// Largest key accepted.
    pub max_key: u32,
    /// Most segment files idle partitions keep open (see [`Config::open_files`]).
    pub open_files: usize,
}

impl LogOptions {
    /// The storage part of a broker configuration.
    pub fn from_config(c: &Config) -> LogOptions {
        LogOptions {
            fsync: c.fsync,
            segment_bytes: c.segment_bytes,
            segment_ms: c.segment_ms,
            index_interval_bytes: c.index_interval_bytes,
            retention_ms: c.retention_ms,
            retention_bytes: c.retention_bytes,
            delete_retention_ms: c.delete_retention_ms,
            recovery_mode: c.recovery_mode,
            verify_rolled: c.verify_rolled,
            default_partitions: c.default_partitions,
            auto_create: c.auto_create,
            max_payload: c.max_payload,
            max_key: c.max_key,
            open_files: c.open_files as usize,
        }
    }
}

impl Default for LogOptions {
    fn default() -> Self {
        LogOptions::from_config(&Config::default())
    }
}

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

/// The contents of `topic.toml`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TopicFile {
    /// Number of partitions.
    pub partitions: u32,
    /// `delete` or `compact`.
    pub cleanup: CleanupName,
    /// Retention by age in ms; absent: the broker default; `u64::MAX`: forever.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retention_ms: Option<u64>,
    /// Retention by size in bytes; absent: the broker default; `u64::MAX`: unlimited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retention_bytes: Option<u64>,
}

/// Cleanup policy as written in `topic.toml`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CleanupName {
    /// Delete old segments.
    Delete,
    /// Compact by key.
    Compact,
}

impl From<CleanupName> for Cleanup {
    fn from(c: CleanupName) -> Cleanup {
        match c {
            CleanupName::Delete => Cleanup::Delete,
            CleanupName::Compact => Cleanup::Compact,
        }
    }
}

impl From<Cleanup> for CleanupName {
    fn from(c: Cleanup) -> CleanupName {
        match c {
            Cleanup::Delete => CleanupName::Delete,
            Cleanup::Compact => CleanupName::Compact,
        }
    }
}

impl TopicFile {
    fn policy(&self, opts: &LogOptions) -> TopicPolicy {
        TopicPolicy {
            cleanup: self.cleanup.into(),
            retention_ms: self.retention_ms.unwrap_or(opts.retention_ms.as_u64()),
            retention_bytes: self
                .retention_bytes
                .unwrap_or(opts.retention_bytes.as_u64()),
            delete_retention_ms: opts.delete_retention_ms,
        }
    }
}

/// A topic: its settings and partitions.
#[derive(Debug)]
pub struct Topic {
    name: String,
    dir: PathBuf,
    file: TopicFile,
    policy: TopicPolicy,
    partitions: Vec<Arc<Partition>>,
}

impl Topic {
    /// Name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Settings as stored.
    pub fn settings(&self) -> &TopicFile {
        &self.file
    }

    /// Effective policy.
    pub fn policy(&self) -> TopicPolicy {
        self.policy
    }

    /// Partitions in order.
    pub fn partitions(&self) -> &[Arc<Partition>] {
        &self.partitions
    }

    /// Its directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// The log of one broker: its topics and their partitions. It knows no
/// consumer groups; [`Engine`](crate::engine::Engine) keeps their offsets
/// above it, in one of its topics.
pub struct Log {
    dir: PathBuf,
    opts: Arc<LogOptions>,
    topics: RwLock<HashMap<String, Arc<Topic>>>,
    /// Serialises topic creation and deletion (not the data path).
    admin: Mutex<()>,
    sync: Arc<SyncQueue>,
    sync_thread: Mutex<Option<JoinHandle<()>>>,
    stop: Arc<AtomicBool>,
    _lock: DirLock,
}

impl std::fmt::Debug for Log {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Log")
            .field("dir", &self.dir)
            .finish_non_exhaustive()
    }
}

impl Log {
    /// Open (and recover) the data directory, creating it if needed. Takes
    /// the directory lock and starts the group-commit thread.
    pub fn open(dir: &Path, opts: LogOptions) -> Result<Log> {
        if !dir.exists() {
            fsutil::create_dir_durable(dir)?;
        }
        let lock = DirLock::acquire(dir)?;
        let opts = Arc::new(opts);
        let topics_dir = dir.join("topics");
        if !topics_dir.exists() {
            fsutil::create_dir_durable(&topics_dir)?;
        }
        let trash = dir.join("trash");
        if trash.exists() {
            fs::remove_dir_all(&trash).ctx("empty trash", &trash)?;
        }
        remove_unfinished_creations(&dir.join(CREATING_DIR));
        let sync = SyncQueue::new();
        let mut topics = HashMap::new();
        for entry in fs::read_dir(&topics_dir).ctx("list topics", &topics_dir)? {
            let entry = entry.ctx("list topics", &topics_dir)?;
            let path = entry.path();
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                tracing::warn!(dir = %path.display(), "ignoring a directory with a non-UTF-8 name");
                continue;
            };
            if TopicName::new_any(name.as_str()).is_err() || !path.is_dir() {
                tracing::warn!(path = %path.display(), "ignoring an entry that is not a topic");
                continue;
            }
            // A topic whose metadata cannot be read is skipped, never
            // removed (it may hold acknowledged data) and never a reason not
            // to start: one bad topic must not take every other one down.
            // Its directory stays, so its name cannot be created again
            // until an operator repaired or removed it; the next start
            // loads it if it was repaired.
            let file = match Self::read_topic_file(&path) {
                Ok(file) => file,
                Err(e) if !path.join(TOPIC_FILE).exists() && holds_no_file(&path) => {
                    // Only empty directories: a creation by an older broker
                    // (which wrote topic.toml last, in place) cut short.
                    tracing::warn!(dir = %path.display(), error = %e, "removing a topic whose creation did not finish");
                    fs::remove_dir_all(&path).ctx("remove incomplete topic", &path)?;
                    continue;
                }
                Err(e) => {
                    tracing::error!(
                        topic = %name, dir = %path.display(), error = %e,
                        "cannot load this topic: skipped (not served, not deleted); \
                         repair or remove its directory and restart"
                    );
                    continue;
                }
            };
            let topic = Self::load_topic(&path, &name, file, &opts, &sync)?;
            topics.insert(name, Arc::new(topic));
        }
        fsutil::fsync_dir(&topics_dir)?;
        let sync_thread = sync.start(opts.fsync);
        Ok(Log {
            dir: dir.to_path_buf(),
            opts,
            topics: RwLock::new(topics),
            admin: Mutex::new(()),
            sync,
            sync_thread: Mutex::new(sync_thread),
            stop: Arc::new(AtomicBool::new(false)),
            _lock: lock,
        })
    }

    /// Read and check a topic directory's `topic.toml`.
    fn read_topic_file(path: &Path) -> Result<TopicFile> {
        let toml_path = path.join(TOPIC_FILE);
        let text = fs::read_to_string(&toml_path).ctx("read", &toml_path)?;
        let file: TopicFile = toml::from_str(&text).map_err(|e| StorageError::BadMetadata {
            path: toml_path.clone(),
            message: e.to_string(),
        })?;
        if file.partitions == 0 || file.partitions > hermit_protocol::frame::MAX_PARTITIONS {
            return Err(StorageError::BadMetadata {
                path: toml_path,
                message: format!("partitions = {} is out of range", file.partitions),
            });
        }
        Ok(file)
    }

    /// Open the partitions of the topic in `path`, described by `file`.
    fn load_topic(
        path: &Path,
        name: &str,
        file: TopicFile,
        opts: &Arc<LogOptions>,
        sync: &Arc<SyncQueue>,
    ) -> Result<Topic> {
        let policy = file.policy(opts);
        let partitions = (0..file.partitions)
            .map(|i| {
                Partition::open(
                    path.join(i.to_string()),
                    name,
                    i,
                    opts.clone(),
                    policy,
                    Some(sync.clone()),
                )
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Topic {
            name: name.to_owned(),
            dir: path.to_path_buf(),
            file,
            policy,
            partitions,
        })
    }

    /// Create a topic atomically: build it whole in `creating/` (partition
    /// directories, `topic.toml`, each fsynced), rename it into `topics/`
    /// (the commit point), fsync both parents, then open it. A failure at
    /// any step leaves nothing in `topics/`: before the rename the temporary
    /// directory is removed (or, after a crash, at the next start), after
    /// it the topic is moved to `trash/`.
    fn create_topic_files(
        data_dir: &Path,
        name: &str,
        file: TopicFile,
        opts: &Arc<LogOptions>,
        sync: &Arc<SyncQueue>,
    ) -> Result<Topic> {
        let topics_dir = data_dir.join("topics");
        let dir = topics_dir.join(name);
        if dir.exists() {
            // Not a loaded topic (see `Log::open`): never replace what may be data.
            return Err(StorageError::BadMetadata {
                path: dir.join(TOPIC_FILE),
                message: "a directory for this topic exists but holds no loaded topic \
                          (see the start-up log); repair or remove it"
                    .into(),
            });
        }
        let creating = data_dir.join(CREATING_DIR);
        if !creating.exists() {
            fsutil::create_dir_durable(&creating)?;
        }
        let tmp = creating.join(unique_name(name));
        let built = Self::build_topic_dir(&tmp, &file).and_then(|()| {
            fs::rename(&tmp, &dir).ctx("move created topic into place", &dir)?;
            fsutil::fsync_dir(&topics_dir)?;
            fsutil::fsync_dir(&creating)
        });
        if let Err(e) = built {
            if tmp.exists()
                && let Err(e2) = fs::remove_dir_all(&tmp)
            {
                tracing::error!(dir = %tmp.display(), error = %e2, "could not remove an unfinished topic; it is removed at the next start");
            }
            if dir.exists() {
                // The rename happened (an fsync after it failed): undo it.
                Self::discard_created(data_dir, &dir);
            }
            return Err(e);
        }
        let opened = failpoint(CreateStep::Renamed)
            .and_then(|()| Self::load_topic(&dir, name, file, opts, sync));
        if opened.is_err() {
            Self::discard_created(data_dir, &dir);
        }
        opened
    }

    /// Fill the (new) temporary directory of a topic being created.
    fn build_topic_dir(tmp: &Path, file: &TopicFile) -> Result<()> {
        fs::create_dir(tmp).ctx("create topic directory", tmp)?;
        for i in 0..file.partitions {
            let p = tmp.join(i.to_string());
            fs::create_dir(&p).ctx("create partition directory", &p)?;
        }
        failpoint(CreateStep::PartitionDirs)?;
        let toml_path = tmp.join(TOPIC_FILE);
        let text = toml::to_string(file).map_err(|e| StorageError::BadMetadata {
            path: toml_path.clone(),
            message: e.to_string(),
        })?;
        // Writes, fsyncs the file and fsyncs `tmp` (the partition directories' entries too).
        fsutil::write_atomic(&toml_path, text.as_bytes())?;
        failpoint(CreateStep::TopicFile)
    }

    /// Take a topic that was renamed into `topics/` but not opened back out
    /// of it, through `trash/`, so that no half-created topic stays behind.
    fn discard_created(data_dir: &Path, dir: &Path) {
        let trash = data_dir.join("trash");
        let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or("topic");
        let dest = trash.join(unique_name(name));
        let moved = (|| {
            if !trash.exists() {
                fsutil::create_dir_durable(&trash)?;
            }
            fs::rename(dir, &dest).ctx("move unfinished topic to trash", dir)?;
            fsutil::fsync_dir(fsutil::parent(dir))
        })();
        match moved {
            Ok(()) => {
                if let Err(e) = fs::remove_dir_all(&dest) {
                    tracing::warn!(dir = %dest.display(), error = %e, "could not empty the trash; it is emptied at the next start");
                }
            }
            Err(e) => tracing::error!(
                dir = %dir.display(), error = %e,
                "a topic whose creation failed could not be removed; it will load (empty) at the next start"
            ),
        }
    }

    /// The data directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The storage options.
    pub fn options(&self) -> &LogOptions {
        &self.opts
    }

    /// Watch the group-commit generation (changes after every fsync round).
    pub fn sync_generation(&self) -> tokio::sync::watch::Receiver<u64> {
        self.sync.subscribe()
    }

    /// Group-commit counters (rounds and partition fsyncs so far).
    pub fn sync_stats(&self) -> sync::SyncStats {
        self.sync.stats()
    }

    /// A topic by name.
    pub fn topic(&self, name: &str) -> Option<Arc<Topic>> {
        self.topics
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(name)
            .cloned()
    }

    /// Every topic, internal ones included, sorted by name.
    pub fn topics(&self) -> Vec<Arc<Topic>> {
        let mut v: Vec<_> = self
            .topics
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .values()
            .cloned()
            .collect();
        v.sort_by(|a, b| a.name.cmp(&b.name));
        v
    }

    /// At most `limit` topics whose names sort after `after` (from the
    /// first with `None`), in name order, internal ones included: one page
    /// of a listing that never holds every topic at once.
    pub fn topics_after(&self, after: Option<&str>, limit: usize) -> Vec<Arc<Topic>> {
        let mut v: Vec<_> = self
            .topics
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .values()
            .filter(|t| after.is_none_or(|a| t.name.as_str() > a))
            .cloned()
            .collect();
        v.sort_by(|a, b| a.name.cmp(&b.name));
        v.truncate(limit);
        v
    }

    /// Files held open by partitions now (segment files; memory maps of
    /// indexes hold none). Bounded by [`LogOptions::open_files`] plus the
    /// partitions in use.
    pub fn open_files(&self) -> usize {
        self.topics()
            .iter()
            .flat_map(|t| t.partitions.iter())
            .map(|p| p.segment_count())
            .sum()
    }

    /// A partition; with `create`, an unknown topic is created with the
    /// default settings when `auto_create` is on.
    pub fn partition(&self, topic: &str, partition: u32, create: bool) -> Result<Arc<Partition>> {
        let t = match self.topic(topic) {
            Some(t) => t,
            None if create && self.opts.auto_create => {
                match self.create(
                    topic,
                    TopicSettings {
                        partitions: self.opts.default_partitions,
                        cleanup: Cleanup::Delete,
                        retention_ms: 0,
                        retention_bytes: 0,
                    },
                    true,
                ) {
                    Ok(t) => t,
                    // Another connection created it first.
                    Err(StorageError::TopicExists(_)) => self
                        .topic(topic)
                        .ok_or_else(|| StorageError::UnknownTopic(topic.to_owned()))?,
                    Err(e) => return Err(e),
                }
            }
            None => return Err(StorageError::UnknownTopic(topic.to_owned())),
        };
        t.partitions
            .get(partition as usize)
            .cloned()
            .ok_or(StorageError::UnknownPartition {
                topic: topic.to_owned(),
                partition,
                count: t.partitions.len() as u32,
            })
    }

    /// Create a topic. Retention values of 0 mean "the broker default".
    pub fn create_topic(&self, name: &str, settings: TopicSettings) -> Result<Arc<Topic>> {
        self.create(name, settings, false)
    }

    /// Create a topic; `auto_created`: on first use, not by request (for the audit log).
    fn create(
        &self,
        name: &str,
        settings: TopicSettings,
        auto_created: bool,
    ) -> Result<Arc<Topic>> {
        TopicName::new_any(name).map_err(|source| {
            StorageError::InvalidBatch(hermit_protocol::WireError::InvalidName {
                what: "topic",
                source,
            })
        })?;
        if settings.partitions == 0 || settings.partitions > hermit_protocol::frame::MAX_PARTITIONS
        {
            return Err(StorageError::Config(format!(
                "partitions must be between 1 and {}",
                hermit_protocol::frame::MAX_PARTITIONS
            )));
        }
        let _admin = self.admin.lock().unwrap_or_else(|p| p.into_inner());
        if self.stop.load(Ordering::SeqCst) {
            return Err(StorageError::ShuttingDown);
        }
        if self.topic(name).is_some() {
            return Err(StorageError::TopicExists(name.to_owned()));
        }
        let file = TopicFile {
            partitions: settings.partitions,
            cleanup: settings.cleanup.into(),
            retention_ms: (settings.retention_ms != 0).then_some(settings.retention_ms),
            retention_bytes: (settings.retention_bytes != 0).then_some(settings.retention_bytes),
        };
        let topic = Arc::new(Self::create_topic_files(
            &self.dir, name, file, &self.opts, &self.sync,
        )?);
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
        self.topics
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .insert(name.to_owned(), topic.clone());
        Ok(topic)
    }

    /// Delete a topic: it disappears at once (renamed into `trash/`, then
    /// removed). Then `before_reuse` runs, while the name cannot be created
    /// again: what a layer above keeps per topic (group offsets, see
    /// [`Engine::delete_topic`](crate::engine::Engine::delete_topic)) is
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
            .remove(name)
            .ok_or_else(|| StorageError::UnknownTopic(name.to_owned()))?;
        // No longer reachable by name; handles taken before stop appending.
        for p in topic.partitions() {
            p.mark_deleted();
        }
        let trash = self.dir.join("trash");
        if !trash.exists() {
            fsutil::create_dir_durable(&trash)?;
        }
        let dest = trash.join(unique_name(name));
        fs::rename(&topic.dir, &dest).ctx("move topic to trash", &topic.dir)?;
        fsutil::fsync_dir(&self.dir.join("topics"))?;
        fsutil::fsync_dir(&trash)?;
        if let Err(e) = fs::remove_dir_all(&dest) {
            tracing::warn!(dir = %dest.display(), error = %e, "could not empty the trash; it is emptied at the next start");
        }
        // Logged once the topic is gone from disk, also when `before_reuse` fails.
        tracing::info!(
            target: "audit",
            topic = name,
            partitions = topic.partitions.len(),
            "topic deleted"
        );
        before_reuse()
    }

    /// Run retention and compaction over every partition once.
    pub fn run_cleanup(&self, now_ns: u64) -> Result<()> {
        for topic in self.topics() {
            for p in topic.partitions() {
                if self.stop.load(Ordering::SeqCst) {
                    return Ok(());
                }
                p.enforce_retention(now_ns)?;
                if topic.policy.cleanup == Cleanup::Compact {
                    p.compact(now_ns)?;
                }
            }
        }
        Ok(())
    }

    /// Verify every segment from before this start that is not verified yet.
    pub fn verify_all(&self) -> Result<()> {
        for topic in self.topics() {
            for p in topic.partitions() {
                let mut segs = p.unverified_segments();
                segs.reverse(); // newest first: the likeliest to be read
                for seg in segs {
                    if self.stop.load(Ordering::SeqCst) {
                        return Ok(());
                    }
                    p.verify_segment(&seg)?;
                }
            }
        }
        Ok(())
    }

    /// Start background threads: verification of old segments (when
    /// `verify_rolled = background`) and periodic cleanup.
    pub fn start_background(self: &Arc<Self>, cleanup_every: std::time::Duration) {
        if self.opts.verify_rolled == VerifyRolled::Background {
            let log = Arc::downgrade(self);
            let _ = std::thread::Builder::new()
                .name("hermit-verify".into())
                .spawn(move || {
                    if let Some(log) = log.upgrade()
                        && let Err(e) = log.verify_all()
                    {
                        tracing::error!(error = %e, "background verification failed");
                    }
                });
        }
        let log = Arc::downgrade(self);
        let stop = self.stop.clone();
        let _ = std::thread::Builder::new()
            .name("hermit-cleaner".into())
            .spawn(move || {
                let step = std::time::Duration::from_millis(100);
                let mut waited = std::time::Duration::ZERO;
                while !stop.load(Ordering::SeqCst) {
                    std::thread::sleep(step);
                    waited += step;
                    if waited < cleanup_every {
                        continue;
                    }
                    waited = std::time::Duration::ZERO;
                    let Some(log) = log.upgrade() else { return };
                    if let Err(e) = log.run_cleanup(partition::now_ns()) {
                        tracing::error!(error = %e, "cleanup failed");
                    }
                }
            });
    }

    /// Stop background work, run a last group commit and fsync every partition.
    /// The directory lock is released when the `Log` is dropped.
    pub fn close(&self) -> Result<()> {
        self.stop.store(true, Ordering::SeqCst);
        self.sync.shutdown();
        if let Some(h) = self
            .sync_thread
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
        {
            let _ = h.join();
        }
        let mut first_err = None;
        for topic in self.topics() {
            for p in topic.partitions() {
                if let Err(e) = p.close() {
                    tracing::error!(topic = p.topic(), partition = p.id(), error = %e, "close failed");
                    first_err.get_or_insert(e);
                }
            }
        }
        match first_err {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

impl Drop for Log {
    /// Stop the background threads even when `close` was not called (a
    /// simulated crash in tests): they must not outlive the log.
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        self.sync.shutdown();
    }
}

/// The file naming a topic's settings, in its directory.
const TOPIC_FILE: &str = "topic.toml";

/// Where topics are built before they are renamed into `topics/`. Outside
/// `topics/`: every name inside it is a topic name, and a topic may be
/// called `.creating-x`.
const CREATING_DIR: &str = "creating";

/// A fresh directory name for `name` in `creating/` or `trash/`: the
/// clock makes it unique (creations and deletions run one at a time under
/// the admin lock, and leftovers are removed at start); the name is cut so
/// that the whole stays within a file name's 255 bytes (a topic name may
/// have 249).
fn unique_name(name: &str) -> String {
    // Topic names are ASCII, so any byte index is a char boundary.
    let cut = name.get(..name.len().min(200)).unwrap_or("topic");
    format!("{:016x}-{cut}", clock::now_ns())
}

/// Remove what creations cut short by a crash left in `creating/`. Never
/// fails the start: a leftover that cannot be removed is only reported
/// (it is outside `topics/`, so nothing loads it).
fn remove_unfinished_creations(creating: &Path) {
    let entries = match fs::read_dir(creating) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return,
        Err(e) => {
            tracing::error!(dir = %creating.display(), error = %e, "cannot list unfinished topic creations");
            return;
        }
    };
    for entry in entries {
        let path = match entry {
            Ok(entry) => entry.path(),
            Err(e) => {
                tracing::error!(dir = %creating.display(), error = %e, "cannot list unfinished topic creations");
                return;
            }
        };
        tracing::warn!(dir = %path.display(), "removing a topic whose creation did not finish");
        let removed = if path.is_dir() {
            fs::remove_dir_all(&path)
        } else {
            fs::remove_file(&path)
        };
        if let Err(e) = removed {
            tracing::error!(dir = %path.display(), error = %e, "could not remove an unfinished topic creation");
        }
    }
    if let Err(e) = fsutil::fsync_dir(creating) {
        tracing::error!(error = %e, "could not fsync the directory of unfinished topic creations");
    }
}

/// Whether `dir` holds nothing but (nested) empty directories.
fn holds_no_file(dir: &Path) -> bool {
    let Ok(entries) = fs::read_dir(dir) else {
        return false;
    };
    entries.into_iter().all(|e| {
        e.is_ok_and(|e| {
            let p = e.path();
            // symlink_metadata: a link is a file here, never followed.
            fs::symlink_metadata(&p).is_ok_and(|m| m.is_dir()) && holds_no_file(&p)
        })
    })
}

/// A step of topic creation. With the `failpoints` feature a test can make
/// creation fail right after one (`failpoints::fail_topic_creation_after`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CreateStep {
    /// The temporary directory and its partition directories exist.
    PartitionDirs,
    /// `topic.toml` is written and fsynced in the temporary directory.
    TopicFile,
    /// The topic was renamed into `topics/`; its partitions are not open yet.
    Renamed,
}

/// Fault injection for tests, compiled only with the `failpoints` feature.
#[cfg(feature = "failpoints")]
pub mod failpoints {
    use std::cell::Cell;

    use super::CreateStep;

    thread_local! {
        // Per thread, like the compaction failpoints: creation runs on the caller's thread.
        static FAIL_AFTER: Cell<Option<CreateStep>> = const { Cell::new(None) };
    }

    /// While the guard lives, topic creation on this thread fails with an
    /// error right after `step`, as an I/O error there would.
    pub fn fail_topic_creation_after(step: CreateStep) -> CreateGuard {
        CreateGuard {
            previous: FAIL_AFTER.replace(Some(step)),
        }
    }

    /// Disarms [`fail_topic_creation_after`] when dropped.
    #[derive(Debug)]
    #[must_use = "the failpoint is disarmed when the guard is dropped"]
    pub struct CreateGuard {
        previous: Option<CreateStep>,
    }

    impl Drop for CreateGuard {
        fn drop(&mut self) {
            FAIL_AFTER.set(self.previous);
        }
    }

    pub(super) fn armed() -> Option<CreateStep> {
        FAIL_AFTER.get()
    }
}

/// Fail here when a test armed `step` (never without the feature).
fn failpoint(step: CreateStep) -> Result<()> {
    #[cfg(feature = "failpoints")]
    if failpoints::armed() == Some(step) {
        return Err(StorageError::Config(format!(
            "topic creation interrupted after {step:?} (fault injection)"
        )));
    }
    let _ = step;
    Ok(())
}
