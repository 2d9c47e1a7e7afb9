//! The log: the broker's storage. A data directory of topics, each a set
//! of partitions, each a segmented write-ahead log.
//!
//! # Layout
//! The [`Log`] and what it does, one file each:
//! - `store`: the [`Log`] itself: what it holds, opening and closing it.
//! - `topics`: topic lookups, listings, creation and deletion.
//! - `partitions`: partitions found open in the cache, or opened.
//! - `cleaner`: retention, compaction and verification in the background.
//!
//! What it is made of:
//! - [`options`]: the storage options ([`LogOptions`]) and their checks.
//! - [`layout`]: where things are in a data directory.
//! - [`topic`]: topics as the log holds them, and their effective policy.
//! - [`reader`]: the segment reader, the only way to scan a log file.
//! - [`body`]: body sources, what a read returns for the bytes of a fetch.
//! - [`index`]: the sparse, memory-mapped offset index.
//! - [`segment`]: file naming, rolled segments, verification.
//! - [`slab`]: slots, where small partitions keep their log.
//! - [`catalog`]: the topic catalog, one append-only file.
//! - `files`: the open-file budget the partitions count their files in.
//! - `cache`: the open partitions, an LRU bounded by the files they hold.
//! - [`partition`]: append, zero-copy reads, group-commit fsync, recovery, retention.
//! - [`check`]: offline, read-only verification and dump of a data directory.
//! - [`compaction`]: keep the newest batch per key, with an atomic swap.
//! - [`sync`]: the group-commit thread.
//! - [`clock`]: the broker clock append times and retention are measured with.
//! - [`lock`]: the data directory lock.
//! - [`io`]: the I/O seam every change to the disk goes through.
//! - [`fsutil`]: durable directory and file replacement helpers.
//! - [`error`]: the error type, [`StorageError`], with paths in every I/O error.
//!
//! ```text
//! <data_dir>/LOCK
//! <data_dir>/catalog                 the topics (append-only, see [`catalog`])
//! <data_dir>/slabs/<n:08x>           the slots of small partitions (see [`slab`])
//! <data_dir>/partitions/<topic>@<partition>@<incarnation:016x>/<base:020>.log|.idx
//! <data_dir>/trash/                  partitions being deleted
//! ```

pub mod body;
mod cache;
pub mod catalog;
pub mod check;
mod cleaner;
pub mod clock;
pub mod compaction;
pub mod error;
mod files;
pub mod fsutil;
pub mod index;
pub mod io;
pub mod keyed;
pub mod layout;
pub mod lock;
pub mod options;
pub mod partition;
mod partitions;
pub mod reader;
pub mod segment;
pub mod slab;
mod store;
pub mod sync;
pub mod topic;
mod topics;

pub use body::BodySource;
pub use catalog::StoredSettings;
pub use error::{Corruption, Result, StorageError};
pub use layout::{CLEAN_FILE, PARTITIONS_DIR, parse_partition_dir, partition_dir};
pub use options::{FsyncPolicy, InvalidOption, Limit, LogOptions, RecoveryMode, VerifyRolled};
pub use partition::read::{FileRange, ReadOutcome, Served, Tail};
pub use partition::scan::{ScanCheck, ScanScope};
pub use partition::{Appended, Partition};
pub use store::Log;
pub use topic::{Topic, TopicPolicy, TopicStats};
