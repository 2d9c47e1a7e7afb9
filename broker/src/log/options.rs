//! The log's options: what a broker's configuration says about storage,
//! declared and checked here, where they are used. The broker's
//! configuration (`config`) reads them from its file, environment
//! and flags under the same names, and hands them over as [`LogOptions`].

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Deserializer};

use super::io;

/// When the log calls fsync.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FsyncPolicy {
    /// Group commit: durable acks wait for an fsync that covers them; consumers see only synced data.
    Always,
    /// Acks after the write; fsync on a timer (the original HermitMQ's behaviour).
    Interval(Duration),
    /// Never fsync while running (tests and benchmarks). Durable acks are refused.
    Never,
}

impl FromStr for FsyncPolicy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "always" => Ok(FsyncPolicy::Always),
            "never" => Ok(FsyncPolicy::Never),
            other => {
                let ms = other
                    .strip_prefix("interval:")
                    .and_then(|ms| ms.parse::<u64>().ok())
                    .filter(|&ms| ms > 0)
                    .ok_or_else(|| {
                        format!("expected always, never or interval:<ms> (ms > 0), got {other:?}")
                    })?;
                Ok(FsyncPolicy::Interval(Duration::from_millis(ms)))
            }
        }
    }
}

impl fmt::Display for FsyncPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FsyncPolicy::Always => f.write_str("always"),
            FsyncPolicy::Never => f.write_str("never"),
            FsyncPolicy::Interval(d) => write!(f, "interval:{}", d.as_millis()),
        }
    }
}

impl<'de> Deserialize<'de> for FsyncPolicy {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// What recovery does with corruption it finds on start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum RecoveryMode {
    /// Truncate a torn or corrupt tail of the last (active) segment — the
    /// normal result of a crash — and fence corrupt ranges of rolled segments
    /// (reported, never served). Default.
    #[default]
    TolerateTailCorruption,
    /// Refuse to start on any corruption, the tail of the active segment included.
    AbsoluteConsistency,
}

/// When segments rolled before this start are CRC-verified.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum VerifyRolled {
    /// In a background thread after start; a fetch that reaches a segment not
    /// yet verified verifies it first. Nothing unverified is ever served. Default.
    #[default]
    Background,
    /// Before the broker starts serving.
    Startup,
}

/// A byte or time limit that may be switched off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// No limit.
    Unlimited,
    /// This many units.
    Max(u64),
}

impl Limit {
    /// The limit as a number, `u64::MAX` when unlimited.
    pub fn as_u64(self) -> u64 {
        match self {
            Limit::Unlimited => u64::MAX,
            Limit::Max(n) => n,
        }
    }

    /// From a wire value where `u64::MAX` means unlimited.
    pub fn from_u64(n: u64) -> Limit {
        if n == u64::MAX {
            Limit::Unlimited
        } else {
            Limit::Max(n)
        }
    }
}

impl<'de> Deserialize<'de> for Limit {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            N(u64),
            S(String),
        }
        match Raw::deserialize(d)? {
            Raw::N(n) => Ok(Limit::Max(n)),
            Raw::S(s) if s == "unlimited" => Ok(Limit::Unlimited),
            Raw::S(s) => Err(serde::de::Error::custom(format!(
                "expected a non-negative integer or \"unlimited\", got {s:?}"
            ))),
        }
    }
}

/// The storage settings of a broker. Each field has the name of the
/// configuration key that sets it; each field's doc ends with its default.
#[derive(Debug, Clone)]
pub struct LogOptions {
    /// fsync policy. Default `always`.
    pub fsync: FsyncPolicy,
    /// Roll size. Default 1 GiB.
    pub segment_bytes: u64,
    /// Roll age in ms. Default 7 days.
    pub segment_ms: u64,
    /// Bytes between index entries. Default 4096.
    pub index_interval_bytes: u64,
    /// Default retention by age. Default 7 days.
    pub retention_ms: Limit,
    /// Default retention by size. Default unlimited.
    pub retention_bytes: Limit,
    /// Tombstone grace period for compaction. Default 1 day.
    pub delete_retention_ms: u64,
    /// Corruption handling at start. Default `tolerate-tail-corruption`.
    pub recovery_mode: RecoveryMode,
    /// When old segments are verified. Default `background`.
    pub verify_rolled: VerifyRolled,
    /// Partitions of auto-created topics. Default 1.
    pub default_partitions: u32,
    /// Whether unknown topics are created on use. Default true.
    pub auto_create: bool,
    /// Largest payload accepted. Default 50 MiB.
    pub max_payload: u32,
    /// Largest key accepted. Default 4096.
    pub max_key: u32,
    /// Most segment files idle partitions keep open (an LRU of idle
    /// partitions is closed beyond it; a partition in use stays open).
    /// Default 768.
    pub open_files: usize,
    /// Whether new topics get slots (STORAGE.md §2.5). Default true.
    pub partition_slots: bool,
    /// What every change to the disk goes through (the real file system;
    /// a test may put a simulation there, see [`io`]). Default the real one.
    pub io: io::Io,
    /// No group-commit thread: `Log::sync_round` runs each round on the
    /// caller's thread, and explicit creations and deletions fsync the
    /// catalog themselves. For a deterministic simulation, which decides
    /// when rounds run; a broker never sets it. Default false.
    pub manual_sync: bool,
}

impl Default for LogOptions {
    fn default() -> Self {
        LogOptions {
            fsync: FsyncPolicy::Always,
            segment_bytes: 1 << 30,
            segment_ms: 7 * 24 * 3600 * 1000,
            index_interval_bytes: 4096,
            retention_ms: Limit::Max(7 * 24 * 3600 * 1000),
            retention_bytes: Limit::Unlimited,
            delete_retention_ms: 24 * 3600 * 1000,
            recovery_mode: RecoveryMode::default(),
            verify_rolled: VerifyRolled::default(),
            default_partitions: 1,
            auto_create: true,
            max_payload: hermit_protocol::frame::DEFAULT_MAX_PAYLOAD,
            max_key: hermit_protocol::frame::DEFAULT_MAX_KEY,
            open_files: 768,
            partition_slots: true,
            io: io::Io::real(),
            manual_sync: false,
        }
    }
}

/// An option with a value out of its range: which one (by the name of its
/// field, which is its configuration key) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{option}`: {message}")]
pub struct InvalidOption {
    /// The option (its configuration key).
    pub option: &'static str,
    /// What is wrong with its value.
    pub message: String,
}

impl InvalidOption {
    fn new(option: &'static str, message: impl Into<String>) -> InvalidOption {
        InvalidOption {
            option,
            message: message.into(),
        }
    }
}

impl LogOptions {
    /// Check the ranges the types cannot express; the first option out of
    /// its range is the error.
    pub fn validate(&self) -> Result<(), InvalidOption> {
        if self.segment_bytes < 1024 || self.segment_bytes > (2 << 30) {
            return Err(InvalidOption::new(
                "segment_bytes",
                "must be between 1024 and 2 GiB",
            ));
        }
        if self.segment_ms == 0 {
            return Err(InvalidOption::new("segment_ms", "must be positive"));
        }
        if self.index_interval_bytes > self.segment_bytes {
            return Err(InvalidOption::new(
                "index_interval_bytes",
                "must not exceed segment_bytes",
            ));
        }
        if self.default_partitions == 0
            || self.default_partitions > hermit_protocol::frame::MAX_PARTITIONS
        {
            return Err(InvalidOption::new(
                "default_partitions",
                format!(
                    "must be between 1 and {}",
                    hermit_protocol::frame::MAX_PARTITIONS
                ),
            ));
        }
        if self.max_payload == 0 || self.max_payload > (1 << 30) {
            return Err(InvalidOption::new(
                "max_payload",
                "must be between 1 byte and 1 GiB",
            ));
        }
        if self.max_key > (1 << 20) {
            return Err(InvalidOption::new("max_key", "must be at most 1 MiB"));
        }
        if self.open_files < 16 {
            return Err(InvalidOption::new("open_files", "must be at least 16"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fsync_policy_parses() {
        assert_eq!("always".parse(), Ok(FsyncPolicy::Always));
        assert_eq!(
            "interval:250".parse(),
            Ok(FsyncPolicy::Interval(Duration::from_millis(250)))
        );
        assert!("interval:".parse::<FsyncPolicy>().is_err());
        assert!("interval:-1".parse::<FsyncPolicy>().is_err());
        assert_eq!(
            FsyncPolicy::Interval(Duration::from_millis(7)).to_string(),
            "interval:7"
        );
    }

    #[test]
    fn the_defaults_are_valid_and_each_range_names_its_option() {
        LogOptions::default().validate().unwrap();
        let bad = |f: fn(&mut LogOptions)| {
            let mut o = LogOptions::default();
            f(&mut o);
            o.validate().unwrap_err().option
        };
        assert_eq!(bad(|o| o.segment_bytes = 10), "segment_bytes");
        assert_eq!(bad(|o| o.segment_ms = 0), "segment_ms");
        assert_eq!(
            bad(|o| o.index_interval_bytes = u64::MAX),
            "index_interval_bytes"
        );
        assert_eq!(bad(|o| o.default_partitions = 0), "default_partitions");
        assert_eq!(bad(|o| o.max_payload = 0), "max_payload");
        assert_eq!(bad(|o| o.max_key = u32::MAX), "max_key");
        assert_eq!(bad(|o| o.open_files = 1), "open_files");
    }
}
