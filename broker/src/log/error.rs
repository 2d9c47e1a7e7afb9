//! Storage errors. Every I/O error names the operation and the path it concerns.

use std::io;
use std::path::PathBuf;

use hermit_protocol::{Status, WireError};

/// Why a segment scan stopped before the end of the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Corruption {
    /// Fewer bytes than a header remain.
    #[error("torn header: {have} of 33 bytes")]
    TornHeader {
        /// Bytes present.
        have: u64,
    },
    /// The header is not a valid batch header (magic, zero count).
    #[error("bad header: {0}")]
    BadHeader(WireError),
    /// The batch claims more bytes than any batch may have.
    #[error("batch of {len} bytes exceeds the largest possible batch ({max})")]
    TooLarge {
        /// Claimed length.
        len: u64,
        /// Largest allowed.
        max: u64,
    },
    /// The batch runs past the end of the file.
    #[error("batch of {len} bytes runs past the end of the file ({have} bytes left)")]
    PastEof {
        /// Claimed length.
        len: u64,
        /// Bytes left in the file.
        have: u64,
    },
    /// The batch's offset breaks the sequence.
    #[error("offset discontinuity: expected {expected}, found {found}")]
    OffsetGap {
        /// Offset expected (or the lowest acceptable).
        expected: u64,
        /// Offset found.
        found: u64,
    },
    /// The batch's offsets run past what the segment may hold.
    #[error("batch offsets {base}..{end} run past the segment's end {limit}")]
    OffsetOverflow {
        /// Batch base.
        base: u64,
        /// Batch end (exclusive).
        end: u64,
        /// Segment limit.
        limit: u64,
    },
    /// The stored CRC does not match.
    #[error("CRC mismatch: stored 0x{stored:08x}, computed 0x{computed:08x}")]
    Crc {
        /// Stored.
        stored: u32,
        /// Computed.
        computed: u32,
    },
}

/// Errors of the log (the broker's storage).
#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    /// A system call failed.
    #[error("{op} {}: {source}", path.display())]
    Io {
        /// What was being done.
        op: &'static str,
        /// The file or directory concerned.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: io::Error,
    },
    /// Another process holds the data directory lock.
    #[error(
        "data directory {} is locked: another broker may be using this directory{}",
        path.display(),
        holder.as_ref().map(|h| format!(" (lock held by {h})")).unwrap_or_default()
    )]
    Locked {
        /// The lock file.
        path: PathBuf,
        /// What the lock file says about its holder.
        holder: Option<String>,
    },
    /// A file's contents are invalid.
    #[error("corrupt data in {} at byte {position}: {kind}", path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// Byte position of the first bad byte.
        position: u64,
        /// What was wrong.
        kind: Corruption,
    },
    /// A stored range is corrupt and is not served.
    #[error(
        "offsets {from}..{to} of {topic}/{partition} are corrupt on disk and not served (next readable offset {to})"
    )]
    CorruptRange {
        /// Topic.
        topic: String,
        /// Partition.
        partition: u32,
        /// First unreadable offset.
        from: u64,
        /// First readable offset after the corruption.
        to: u64,
    },
    /// A metadata file is invalid.
    #[error("invalid {}: {message}", path.display())]
    BadMetadata {
        /// The file.
        path: PathBuf,
        /// What was wrong.
        message: String,
    },
    /// A record batch was refused.
    #[error("invalid record batch: {0}")]
    InvalidBatch(#[from] WireError),
    /// The topic does not exist.
    #[error("unknown topic {0}")]
    UnknownTopic(String),
    /// The topic exists already.
    #[error("topic {0} already exists")]
    TopicExists(String),
    /// The partition does not exist.
    #[error("topic {topic} has {count} partitions; partition {partition} does not exist")]
    UnknownPartition {
        /// Topic.
        topic: String,
        /// Requested partition.
        partition: u32,
        /// Partitions the topic has.
        count: u32,
    },
    /// A fetch offset outside the stored range.
    #[error("offset {offset} is out of range [{log_start}, {high_watermark}]")]
    OffsetOutOfRange {
        /// Requested.
        offset: u64,
        /// First stored offset.
        log_start: u64,
        /// Next offset to be written (visible).
        high_watermark: u64,
    },
    /// A commit beyond the end of the log.
    #[error("offset {offset} is ahead of the log end {high_watermark}")]
    OffsetAheadOfLog {
        /// Requested.
        offset: u64,
        /// End of the log.
        high_watermark: u64,
    },
    /// A conditional append expected another log end; nothing was appended.
    #[error("the log ends at {end}, not at the expected {expected}")]
    EndMoved {
        /// The end the producer expected.
        expected: u64,
        /// The log end: the offset the next record gets.
        end: u64,
        /// First stored offset.
        log_start: u64,
    },
    /// A durable acknowledgement was requested from a broker running `fsync = never`.
    #[error("durable acknowledgement requested but the broker runs with fsync = never")]
    NotDurable,
    /// A previous write or fsync failed; the partition accepts no more writes.
    #[error("partition {topic}/{partition} is failed after an earlier I/O error: {reason}")]
    Failed {
        /// Topic.
        topic: String,
        /// Partition.
        partition: u32,
        /// The earlier error.
        reason: String,
    },
    /// The log is shutting down.
    #[error("the log is shutting down")]
    ShuttingDown,
    /// Topic settings out of range (a creation refused).
    #[error("invalid topic settings: {0}")]
    InvalidTopicSettings(String),
    /// An internal topic (such as the consumer-group offsets) was asked to
    /// be deleted.
    #[error("{0} is an internal topic and cannot be deleted")]
    InternalTopic(String),
    /// The data directory holds a layout this version cannot read.
    #[error(
        "{} holds topics in the layout of an older HermitMQ (topics/<topic>/topic.toml); \
         this version keeps a topic catalog instead and cannot read that layout",
        path.display()
    )]
    OldLayout {
        /// The data directory.
        path: PathBuf,
    },
    /// A task doing storage work off the async threads panicked (or was
    /// cancelled) before it returned.
    #[error("{task} panicked: {message}")]
    Panicked {
        /// What the task was doing.
        task: &'static str,
        /// What the runtime said of it.
        message: String,
    },
    /// A test's fault injection stopped an operation where a crash could.
    #[error("injected fault: {0}")]
    InjectedFault(String),
}

impl StorageError {
    /// Build an I/O error.
    pub fn io(op: &'static str, path: impl Into<PathBuf>, source: io::Error) -> Self {
        StorageError::Io {
            op,
            path: path.into(),
            source,
        }
    }

    /// A task of storage work run off the async threads (`task`: what it
    /// was doing) that did not return: it panicked, or its runtime is gone.
    pub fn panicked(task: &'static str, error: impl std::fmt::Display) -> Self {
        StorageError::Panicked {
            task,
            message: error.to_string(),
        }
    }

    /// The wire status for this error.
    pub fn status(&self) -> Status {
        match self {
            StorageError::Io { .. }
            | StorageError::Locked { .. }
            | StorageError::Corrupt { .. }
            | StorageError::BadMetadata { .. }
            | StorageError::Failed { .. }
            | StorageError::InvalidTopicSettings(_)
            | StorageError::InternalTopic(_)
            | StorageError::OldLayout { .. }
            | StorageError::Panicked { .. }
            | StorageError::InjectedFault(_) => Status::StorageError,
            StorageError::CorruptRange { .. } => Status::CorruptData,
            StorageError::InvalidBatch(e) => e.status(),
            StorageError::UnknownTopic(_) => Status::UnknownTopic,
            StorageError::TopicExists(_) => Status::TopicExists,
            StorageError::UnknownPartition { .. } => Status::UnknownPartition,
            StorageError::OffsetOutOfRange { .. } => Status::OffsetOutOfRange,
            StorageError::OffsetAheadOfLog { .. } => Status::OffsetAheadOfLog,
            StorageError::EndMoved { .. } => Status::EndMoved,
            StorageError::NotDurable => Status::NotDurable,
            StorageError::ShuttingDown => Status::ShuttingDown,
        }
    }
}

/// Shorthand for storage results.
pub type Result<T, E = StorageError> = std::result::Result<T, E>;

/// Attach an operation and path to an `io::Result`.
pub(crate) trait IoContext<T> {
    fn ctx(self, op: &'static str, path: &std::path::Path) -> Result<T>;
}

impl<T> IoContext<T> for io::Result<T> {
    fn ctx(self, op: &'static str, path: &std::path::Path) -> Result<T> {
        self.map_err(|e| StorageError::io(op, path, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_was_one_configuration_error_keeps_its_status() {
        // These were all `Config(String)`, answered as a storage error.
        for e in [
            StorageError::InvalidTopicSettings("partitions".into()),
            StorageError::InternalTopic("__consumer_offsets".into()),
            StorageError::OldLayout {
                path: PathBuf::from("data"),
            },
            StorageError::panicked("close", "boom"),
            StorageError::InjectedFault("stop".into()),
        ] {
            assert_eq!(e.status(), Status::StorageError, "{e}");
        }
        assert_eq!(
            StorageError::panicked("topic creation", "boom").to_string(),
            "topic creation panicked: boom"
        );
    }
}
