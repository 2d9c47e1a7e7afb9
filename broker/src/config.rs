//! Broker configuration: a TOML file, then `HERMIT_*` environment variables,
//! then command-line flags, each overriding the one before.
//!
//! Unknown keys and invalid values are errors that name the key and where it
//! came from; nothing silently falls back to a default.

use std::collections::BTreeMap;
use std::fmt;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Deserializer};

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

/// What recovery does with damage it finds on start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum RecoveryMode {
    /// Truncate a torn or corrupt tail of the last (active) segment — the
    /// normal result of a crash — and fence corrupt ranges of rolled segments
    /// (reported, never served). Default.
    #[default]
    TolerateTailCorruption,
    /// Refuse to start on any damage, the tail of the active segment included.
    AbsoluteConsistency,
}

/// When segments rolled before this start are CRC-verified.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum VerifySealed {
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

/// Log output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum LogFormat {
    /// Human-readable lines. Default.
    #[default]
    Text,
    /// One JSON object per line.
    Json,
}

/// The broker's configuration. Each field's doc ends with its default.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Address to listen on. Default `127.0.0.1:9092`.
    pub listen: SocketAddr,
    /// Data directory. Default `./hermit-data`.
    pub data_dir: PathBuf,
    /// fsync policy: `always`, `interval:<ms>` or `never`. Default `always`.
    pub fsync: FsyncPolicy,
    /// Roll the active segment at this size. Default 1 GiB (max 2 GiB).
    pub segment_bytes: u64,
    /// Roll the active segment when its first batch is this old. Default 7 days.
    pub segment_ms: u64,
    /// Bytes of log between two index entries (0: one per batch). Default 4096.
    pub index_interval_bytes: u64,
    /// Delete rolled segments whose newest batch is older than this. Default 7 days.
    pub retention_ms: Limit,
    /// Delete the oldest rolled segments while a partition is larger than this. Default unlimited.
    pub retention_bytes: Limit,
    /// How often retention and compaction run. Default 60 s.
    pub cleanup_interval_ms: u64,
    /// How long a tombstone (empty payload) survives compaction. Default 1 day.
    pub delete_retention_ms: u64,
    /// What recovery does with damage. Default `tolerate-tail-corruption`.
    pub recovery_mode: RecoveryMode,
    /// When segments from before this start are verified. Default `background`.
    pub verify_sealed: VerifySealed,
    /// Partitions of a topic created on demand. Default 1.
    pub default_partitions: u32,
    /// Create unknown topics on produce/fetch/commit. Default true.
    pub auto_create: bool,
    /// Largest record batch payload. Default 50 MiB.
    pub max_payload: u32,
    /// Largest record batch key. Default 4096.
    pub max_key: u32,
    /// Most simultaneous connections. Default 10,000.
    pub max_connections: u32,
    /// Most requests in flight on one connection before it stops reading. Default 1024.
    pub max_in_flight: u32,
    /// A client must finish the hello within this. Default 5,000 ms.
    pub handshake_timeout_ms: u64,
    /// Close connections idle (no request, nothing in flight) this long. Default 600,000 ms.
    pub idle_timeout_ms: u64,
    /// On shutdown, how long in-flight requests may take to finish. Default 10,000 ms.
    pub drain_timeout_ms: u64,
    /// Log format: `text` or `json`. Default `text`.
    pub log_format: LogFormat,
    /// Log filter (`RUST_LOG` syntax; `RUST_LOG` wins when set). Default `info`.
    pub log_level: String,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            listen: SocketAddr::from(([127, 0, 0, 1], 9092)),
            data_dir: PathBuf::from("./hermit-data"),
            fsync: FsyncPolicy::Always,
            segment_bytes: 1 << 30,
            segment_ms: 7 * 24 * 3600 * 1000,
            index_interval_bytes: 4096,
            retention_ms: Limit::Max(7 * 24 * 3600 * 1000),
            retention_bytes: Limit::Unlimited,
            cleanup_interval_ms: 60_000,
            delete_retention_ms: 24 * 3600 * 1000,
            recovery_mode: RecoveryMode::default(),
            verify_sealed: VerifySealed::default(),
            default_partitions: 1,
            auto_create: true,
            max_payload: hermit_protocol::frame::DEFAULT_MAX_PAYLOAD,
            max_key: hermit_protocol::frame::DEFAULT_MAX_KEY,
            max_connections: 10_000,
            max_in_flight: 1024,
            handshake_timeout_ms: 5_000,
            idle_timeout_ms: 600_000,
            drain_timeout_ms: 10_000,
            log_format: LogFormat::Text,
            log_level: "info".into(),
        }
    }
}

/// How an environment variable or flag value is turned into TOML.
#[derive(Clone, Copy)]
enum Kind {
    Str,
    Int,
    Bool,
    IntOrStr,
}

/// Every key, with the kind of value it takes (for env vars and flags).
const KEYS: &[(&str, Kind)] = &[
    ("listen", Kind::Str),
    ("data_dir", Kind::Str),
    ("fsync", Kind::Str),
    ("segment_bytes", Kind::Int),
    ("segment_ms", Kind::Int),
    ("index_interval_bytes", Kind::Int),
    ("retention_ms", Kind::IntOrStr),
    ("retention_bytes", Kind::IntOrStr),
    ("cleanup_interval_ms", Kind::Int),
    ("delete_retention_ms", Kind::Int),
    ("recovery_mode", Kind::Str),
    ("verify_sealed", Kind::Str),
    ("default_partitions", Kind::Int),
    ("auto_create", Kind::Bool),
    ("max_payload", Kind::Int),
    ("max_key", Kind::Int),
    ("max_connections", Kind::Int),
    ("max_in_flight", Kind::Int),
    ("handshake_timeout_ms", Kind::Int),
    ("idle_timeout_ms", Kind::Int),
    ("drain_timeout_ms", Kind::Int),
    ("log_format", Kind::Str),
    ("log_level", Kind::Str),
];

/// Environment variables that start with `HERMIT_` but belong to the CLI, not the broker.
pub const CLIENT_ENV_VARS: &[&str] = &["HERMIT_PASSWORD", "HERMIT_BROKER", "HERMIT_IDENTITY"];

/// A configuration error, naming the key and where its value came from.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read config file {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A key or value is invalid.
    #[error("{origin}: {message}")]
    Invalid {
        /// Where the value came from (file, env var, flag).
        origin: String,
        /// What is wrong.
        message: String,
    },
}

impl Config {
    /// The names of every configuration key.
    pub fn keys() -> impl Iterator<Item = &'static str> {
        KEYS.iter().map(|(k, _)| *k)
    }

    /// The environment variable that sets `key`.
    pub fn env_var(key: &str) -> String {
        format!("HERMIT_{}", key.to_ascii_uppercase())
    }

    /// Load: defaults < `file` < environment (`HERMIT_*`) < `flags` (`key`, `value`).
    pub fn load(
        file: Option<&Path>,
        env: impl IntoIterator<Item = (String, String)>,
        flags: &[(&str, String)],
    ) -> Result<Config, ConfigError> {
        let mut table = toml::Table::new();
        let mut origins: BTreeMap<String, String> = BTreeMap::new();
        if let Some(path) = file {
            let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
                path: path.to_path_buf(),
                source,
            })?;
            table = text
                .parse::<toml::Table>()
                .map_err(|e| ConfigError::Invalid {
                    origin: format!("config file {}", path.display()),
                    message: e.to_string(),
                })?;
            for key in table.keys() {
                if !KEYS.iter().any(|(k, _)| k == key) {
                    return Err(ConfigError::Invalid {
                        origin: format!("config file {}", path.display()),
                        message: format!("unknown key `{key}`"),
                    });
                }
                origins.insert(key.clone(), format!("config file {}", path.display()));
            }
        }
        let env: BTreeMap<String, String> = env
            .into_iter()
            .filter(|(k, _)| k.starts_with("HERMIT_"))
            .collect();
        for (key, kind) in KEYS {
            let var = Config::env_var(key);
            if let Some(raw) = env.get(&var) {
                table.insert((*key).into(), to_value(*kind, raw));
                origins.insert((*key).into(), format!("environment variable {var}"));
            }
        }
        for name in env.keys() {
            let known = KEYS.iter().any(|(k, _)| &Config::env_var(k) == name)
                || CLIENT_ENV_VARS.contains(&name.as_str());
            if !known {
                return Err(ConfigError::Invalid {
                    origin: format!("environment variable {name}"),
                    message: "not a HermitMQ setting (unset it or fix the name)".into(),
                });
            }
        }
        for (key, raw) in flags {
            let kind = KEYS
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, kind)| *kind)
                .ok_or_else(|| ConfigError::Invalid {
                    origin: format!("flag --{}", key.replace('_', "-")),
                    message: format!("unknown key `{key}`"),
                })?;
            table.insert((*key).into(), to_value(kind, raw));
            origins.insert((*key).into(), format!("flag --{}", key.replace('_', "-")));
        }
        let config: Config = Config::deserialize(toml::Value::Table(table)).map_err(|e| {
            let message = e.to_string();
            let origin = origins
                .iter()
                .find(|(k, _)| message.contains(&format!("`{k}`")) || message.contains(k.as_str()))
                .map(|(_, o)| o.clone())
                .unwrap_or_else(|| "configuration".into());
            ConfigError::Invalid { origin, message }
        })?;
        config
            .validate()
            .map_err(|(key, message)| ConfigError::Invalid {
                origin: origins
                    .get(key)
                    .cloned()
                    .unwrap_or_else(|| "configuration".into()),
                message: format!("`{key}`: {message}"),
            })?;
        Ok(config)
    }

    /// Check ranges the types cannot express; returns the offending key.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if self.segment_bytes < 1024 || self.segment_bytes > (2 << 30) {
            return Err(("segment_bytes", "must be between 1024 and 2 GiB".into()));
        }
        if self.segment_ms == 0 {
            return Err(("segment_ms", "must be positive".into()));
        }
        if self.index_interval_bytes > self.segment_bytes {
            return Err((
                "index_interval_bytes",
                "must not exceed segment_bytes".into(),
            ));
        }
        if self.default_partitions == 0
            || self.default_partitions > hermit_protocol::frame::MAX_PARTITIONS
        {
            return Err((
                "default_partitions",
                format!(
                    "must be between 1 and {}",
                    hermit_protocol::frame::MAX_PARTITIONS
                ),
            ));
        }
        if self.max_payload == 0 || self.max_payload > (1 << 30) {
            return Err(("max_payload", "must be between 1 byte and 1 GiB".into()));
        }
        if self.max_key > (1 << 20) {
            return Err(("max_key", "must be at most 1 MiB".into()));
        }
        if self.max_connections == 0 {
            return Err(("max_connections", "must be positive".into()));
        }
        if self.max_in_flight == 0 {
            return Err(("max_in_flight", "must be positive".into()));
        }
        if self.handshake_timeout_ms == 0 {
            return Err(("handshake_timeout_ms", "must be positive".into()));
        }
        if self.idle_timeout_ms == 0 {
            return Err(("idle_timeout_ms", "must be positive".into()));
        }
        if self.cleanup_interval_ms == 0 {
            return Err(("cleanup_interval_ms", "must be positive".into()));
        }
        Ok(())
    }
}

fn to_value(kind: Kind, raw: &str) -> toml::Value {
    match kind {
        Kind::Str => toml::Value::String(raw.to_owned()),
        Kind::Int | Kind::IntOrStr => match raw.parse::<i64>() {
            Ok(n) => toml::Value::Integer(n),
            Err(_) => toml::Value::String(raw.to_owned()),
        },
        Kind::Bool => match raw {
            "true" => toml::Value::Boolean(true),
            "false" => toml::Value::Boolean(false),
            _ => toml::Value::String(raw.to_owned()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn precedence_file_env_flags() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("hermit.toml");
        std::fs::write(
            &file,
            "fsync = \"never\"\nsegment_bytes = 4096\nmax_key = 10\nretention_bytes = \"unlimited\"\n",
        )
        .unwrap();
        let c = Config::load(
            Some(&file),
            env(&[
                ("HERMIT_SEGMENT_BYTES", "8192"),
                ("HERMIT_MAX_KEY", "20"),
                ("PATH", "/bin"),
            ]),
            &[("max_key", "30".into())],
        )
        .unwrap();
        assert_eq!(c.fsync, FsyncPolicy::Never);
        assert_eq!(c.segment_bytes, 8192);
        assert_eq!(c.max_key, 30);
        assert_eq!(c.retention_bytes, Limit::Unlimited);
        assert_eq!(c.max_payload, Config::default().max_payload);
    }

    #[test]
    fn errors_name_key_and_origin() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("hermit.toml");
        std::fs::write(&file, "fsinc = \"always\"\n").unwrap();
        let e = Config::load(Some(&file), env(&[]), &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("fsinc") && e.contains("hermit.toml"), "{e}");

        std::fs::write(&file, "fsync = \"sometimes\"\n").unwrap();
        let e = Config::load(Some(&file), env(&[]), &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("fsync") && e.contains("sometimes"), "{e}");

        let e = Config::load(None, env(&[("HERMIT_SEGMENT_BYTES", "lots")]), &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("HERMIT_SEGMENT_BYTES"), "{e}");

        let e = Config::load(None, env(&[("HERMIT_FSINC", "always")]), &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("HERMIT_FSINC"), "{e}");

        let e = Config::load(None, env(&[]), &[("segment_bytes", "10".into())])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("--segment-bytes") && e.contains("segment_bytes"),
            "{e}"
        );

        let e = Config::load(None, env(&[]), &[("fsync", "interval:0".into())])
            .unwrap_err()
            .to_string();
        assert!(e.contains("--fsync"), "{e}");
        // The client's own variables are not broker settings, and not errors.
        Config::load(None, env(&[("HERMIT_PASSWORD", "x")]), &[]).unwrap();
    }

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
}
