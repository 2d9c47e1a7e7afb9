//! Broker configuration: a TOML file, then `HERMIT_*` environment variables,
//! then command-line flags, each overriding the one before.
//!
//! Unknown keys and invalid values are errors that name the key and where it
//! came from; nothing silently falls back to a default.

use std::collections::BTreeMap;
use std::fmt;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer};

use crate::log::LogOptions;

// The storage options are the log's: declared and checked there, read here.
pub use crate::log::{FsyncPolicy, Limit, RecoveryMode, VerifyRolled};

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

/// Whether clients authenticate (protocol version 3; docs/SECURITY.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum AuthMode {
    /// No authentication: everyone may do everything. Only on loopback
    /// listeners unless `allow_anonymous = true`. Default.
    #[default]
    Off,
    /// Clients may authenticate; anonymous ones get what
    /// `principal = "anonymous"` rules allow, others what their rules allow.
    Optional,
    /// Only `Ping` and `Authenticate` before authenticating.
    Required,
}

impl AuthMode {
    /// Whether a caller that has not authenticated is refused every
    /// operation but `Ping` and `Authenticate`.
    pub const fn requires_principal(self) -> bool {
        matches!(self, AuthMode::Required)
    }

    /// Whether clients that cannot authenticate (protocol version 2) may be
    /// served at all.
    pub const fn serves_anonymous(self) -> bool {
        !self.requires_principal()
    }
}

impl fmt::Display for AuthMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AuthMode::Off => "off",
            AuthMode::Optional => "optional",
            AuthMode::Required => "required",
        })
    }
}

/// One `[[acl]]` rule as written in the file; compiled by
/// [`crate::auth::Acl::from_config`] (which checks every field).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AclRule {
    /// A fingerprint (64 hex digits), `"*"` (any authenticated principal) or `"anonymous"`.
    pub principal: String,
    /// Topic glob: `*` any run of characters, `?` one, `{principal}` the caller's fingerprint.
    pub topics: String,
    /// Actions granted: `produce`, `consume`, `create`, `delete`, `describe`.
    pub allow: Vec<String>,
    /// Consumer groups a `consume` rule may use (glob). Default `{principal}.*`.
    #[serde(default)]
    pub groups: Option<String>,
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
    /// (Called `verify_sealed` before "seal" was kept for cryptography; the
    /// old name is still accepted in a config file.)
    #[serde(alias = "verify_sealed")]
    pub verify_rolled: VerifyRolled,
    /// Partitions of a topic created on demand. Default 1.
    pub default_partitions: u32,
    /// Create unknown topics on produce/fetch/commit. Default true.
    pub auto_create: bool,
    /// Largest record batch payload. Default 50 MiB.
    pub max_payload: u32,
    /// Largest record batch key. Default 4096.
    pub max_key: u32,
    /// Most segment files the partitions keep open at once (an LRU of idle
    /// partitions is closed beyond it; a partition in use stays open).
    /// Default 768: with the 1,024 files of a common `ulimit -n`, 256 stay
    /// for connections, listeners and the broker's own files.
    pub open_files: u32,
    /// Give each new topic a slot per partition (STORAGE.md §2.5): a small
    /// partition lives in a shared slab file until it outgrows 4 KiB, so
    /// creating a topic creates no file. Default true. Topics created
    /// before keep their layout either way.
    pub partition_slots: bool,
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

    /// Authentication: `off`, `optional` or `required`. Default `off`.
    pub auth: AuthMode,
    /// Serve unauthenticated clients on a non-loopback listener with
    /// `auth = "off"` (everyone may do everything; logged at every start). Default false.
    pub allow_anonymous: bool,
    /// Fingerprints (64 hex digits) that may do anything. File only. Default none.
    pub admins: Vec<String>,
    /// Access rules (`[[acl]]` tables). File only. Default none.
    pub acl: Vec<AclRule>,

    /// Address of the TLS listener (in addition to `listen`). Default none.
    pub tls_listen: Option<SocketAddr>,
    /// PEM certificate chain for the TLS listener; required with `tls_listen`. Default none.
    pub tls_cert: Option<PathBuf>,
    /// PEM private key for the TLS listener; required with `tls_listen`. Default none.
    pub tls_key: Option<PathBuf>,
    /// PEM CA certificates: TLS clients presenting a certificate signed by
    /// one are authenticated as its key's principal. Default none (no client certificates).
    pub tls_client_ca: Option<PathBuf>,

    /// Address of the WebSocket listener (same protocol, one frame per
    /// binary message, subprotocol `hermitmq.v3`). Default none.
    pub ws_listen: Option<SocketAddr>,
    /// Address of the WebSocket listener over TLS (`wss://`), with the
    /// `tls_cert` and `tls_key` of the TLS listener. Default none.
    pub wss_listen: Option<SocketAddr>,
    /// Browser origins (`scheme://host[:port]`, or `"*"` for any) allowed to
    /// open WebSocket connections. File only. Default none: on loopback,
    /// loopback origins only; required when a WebSocket listener is not on loopback.
    pub allowed_origins: Vec<String>,
    /// Address of the admin HTTP listener (`/metrics`, `/healthz`,
    /// `/readyz`), or `"off"`. Default `127.0.0.1:9644`.
    #[serde(deserialize_with = "address_or_off")]
    pub admin_listen: Option<SocketAddr>,
    /// A file holding the bearer token `/metrics` requires (one line, at
    /// least 16 characters); required when `admin_listen` is not on
    /// loopback. Default none.
    pub admin_token_file: Option<PathBuf>,
    /// Topics shown with per-partition series in `/metrics`: the busiest
    /// this many (all topics are in the totals). Default 50.
    pub metrics_top_topics: u32,
    /// Largest number of per-group series (`hermit_group_lag`,
    /// `hermit_group_committed_offset`) in `/metrics`, the largest lags
    /// first. Default 200.
    pub metrics_top_groups: u32,
    /// Principals shown with their throttling counts in `/metrics`: the
    /// most throttled this many. Default 20.
    pub metrics_top_principals: u32,
    /// Directory of static files (the chat page, the JavaScript SDK) served
    /// to plain HTTP GETs on the WebSocket listeners. Default none.
    pub web_root: Option<PathBuf>,
    /// Largest WebSocket message a client may send (one request frame);
    /// such messages are assembled in memory before they are checked, so
    /// this is smaller than a TCP frame may be. Default 1 MiB.
    pub ws_max_message: u32,

    /// Bytes all connections together may hold in frames being received. Default 256 MiB.
    pub receive_budget_bytes: u64,
    /// Produce rate per principal (anonymous callers share one), bytes/s. Default unlimited.
    pub produce_bytes_per_sec: Limit,
    /// Fetch rate per principal (anonymous callers share one), bytes/s. Default unlimited.
    pub fetch_bytes_per_sec: Limit,
    /// Topics one principal may create. Default 1000.
    pub max_topics_per_principal: u32,
    /// Simultaneous connections of one principal. Default 1000.
    pub max_connections_per_principal: u32,
    /// Simultaneous connections from one source IP address. Default 1000.
    pub max_connections_per_address: u32,
    /// Long-polling fetches parked on one connection. Default 256.
    pub max_parked_fetches: u32,
    /// Most partitions of one topic. Default 64.
    pub max_partitions: u32,
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
            verify_rolled: VerifyRolled::default(),
            default_partitions: 1,
            auto_create: true,
            max_payload: hermit_protocol::frame::DEFAULT_MAX_PAYLOAD,
            max_key: hermit_protocol::frame::DEFAULT_MAX_KEY,
            open_files: 768,
            partition_slots: true,
            max_connections: 10_000,
            max_in_flight: 1024,
            handshake_timeout_ms: 5_000,
            idle_timeout_ms: 600_000,
            drain_timeout_ms: 10_000,
            log_format: LogFormat::Text,
            log_level: "info".into(),
            auth: AuthMode::Off,
            allow_anonymous: false,
            admins: Vec::new(),
            acl: Vec::new(),
            tls_listen: None,
            tls_cert: None,
            tls_key: None,
            tls_client_ca: None,
            ws_listen: None,
            wss_listen: None,
            allowed_origins: Vec::new(),
            web_root: None,
            admin_listen: Some(SocketAddr::from(([127, 0, 0, 1], 9644))),
            admin_token_file: None,
            metrics_top_topics: 50,
            metrics_top_groups: 200,
            metrics_top_principals: 20,
            ws_max_message: 1 << 20,
            receive_budget_bytes: 256 << 20,
            produce_bytes_per_sec: Limit::Unlimited,
            fetch_bytes_per_sec: Limit::Unlimited,
            max_topics_per_principal: 1000,
            max_connections_per_principal: 1000,
            max_connections_per_address: 1000,
            max_parked_fetches: 256,
            max_partitions: 64,
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
    ("verify_rolled", Kind::Str),
    ("default_partitions", Kind::Int),
    ("auto_create", Kind::Bool),
    ("max_payload", Kind::Int),
    ("max_key", Kind::Int),
    ("open_files", Kind::Int),
    ("partition_slots", Kind::Bool),
    ("max_connections", Kind::Int),
    ("max_in_flight", Kind::Int),
    ("handshake_timeout_ms", Kind::Int),
    ("idle_timeout_ms", Kind::Int),
    ("drain_timeout_ms", Kind::Int),
    ("log_format", Kind::Str),
    ("log_level", Kind::Str),
    ("auth", Kind::Str),
    ("allow_anonymous", Kind::Bool),
    ("tls_listen", Kind::Str),
    ("tls_cert", Kind::Str),
    ("tls_key", Kind::Str),
    ("tls_client_ca", Kind::Str),
    ("ws_listen", Kind::Str),
    ("wss_listen", Kind::Str),
    ("web_root", Kind::Str),
    ("admin_listen", Kind::Str),
    ("admin_token_file", Kind::Str),
    ("metrics_top_topics", Kind::Int),
    ("metrics_top_groups", Kind::Int),
    ("metrics_top_principals", Kind::Int),
    ("ws_max_message", Kind::Int),
    ("receive_budget_bytes", Kind::Int),
    ("produce_bytes_per_sec", Kind::IntOrStr),
    ("fetch_bytes_per_sec", Kind::IntOrStr),
    ("max_topics_per_principal", Kind::Int),
    ("max_connections_per_principal", Kind::Int),
    ("max_connections_per_address", Kind::Int),
    ("max_parked_fetches", Kind::Int),
    ("max_partitions", Kind::Int),
];

/// Keys that hold lists or tables: set in the config file only, never by
/// environment variable or flag.
const FILE_ONLY_KEYS: &[&str] = &["admins", "acl", "allowed_origins"];

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
                if !KEYS.iter().any(|(k, _)| k == key) && !FILE_ONLY_KEYS.contains(&key.as_str()) {
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
            if let Some(key) = FILE_ONLY_KEYS.iter().find(|k| &Config::env_var(k) == name) {
                return Err(ConfigError::Invalid {
                    origin: format!("environment variable {name}"),
                    message: format!("`{key}` can only be set in the config file"),
                });
            }
            if !known {
                return Err(ConfigError::Invalid {
                    origin: format!("environment variable {name}"),
                    message: "not a HermitMQ setting (unset it or fix the name)".into(),
                });
            }
        }
        for (key, raw) in flags {
            if FILE_ONLY_KEYS.contains(key) {
                return Err(ConfigError::Invalid {
                    origin: format!("flag --{}", key.replace('_', "-")),
                    message: format!("`{key}` can only be set in the config file"),
                });
            }
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
        // Rules are deserialized one by one so an error names `acl[i]`.
        let acl = table.remove("acl");
        let mut config: Config = Config::deserialize(toml::Value::Table(table)).map_err(|e| {
            let message = e.to_string();
            let origin = origins
                .iter()
                .find(|(k, _)| message.contains(&format!("`{k}`")) || message.contains(k.as_str()))
                .map(|(_, o)| o.clone())
                .unwrap_or_else(|| "configuration".into());
            ConfigError::Invalid { origin, message }
        })?;
        if let Some(acl) = acl {
            let origin = origins.get("acl").cloned().unwrap_or_default();
            config.acl = parse_acl(acl).map_err(|message| ConfigError::Invalid {
                origin: origin.clone(),
                message,
            })?;
        }
        config.validate().map_err(|(key, message)| {
            // `acl[2].allow` came from wherever `acl` came from.
            let base = key.split(['[', '.']).next().unwrap_or(&key);
            ConfigError::Invalid {
                origin: origins
                    .get(base)
                    .cloned()
                    .unwrap_or_else(|| "configuration".into()),
                message: format!("`{key}`: {message}"),
            }
        })?;
        Ok(config)
    }

    /// The storage part of the configuration, for the log
    /// ([`Log::open`](crate::log::Log::open)); its keys are the options' names.
    pub fn log_options(&self) -> LogOptions {
        LogOptions {
            fsync: self.fsync,
            segment_bytes: self.segment_bytes,
            segment_ms: self.segment_ms,
            index_interval_bytes: self.index_interval_bytes,
            retention_ms: self.retention_ms,
            retention_bytes: self.retention_bytes,
            delete_retention_ms: self.delete_retention_ms,
            recovery_mode: self.recovery_mode,
            verify_rolled: self.verify_rolled,
            default_partitions: self.default_partitions,
            auto_create: self.auto_create,
            max_payload: self.max_payload,
            max_key: self.max_key,
            open_files: self.open_files as usize,
            partition_slots: self.partition_slots,
            io: crate::log::io::Io::real(),
            manual_sync: false,
        }
    }

    /// The non-loopback listeners served without authentication: non-empty
    /// only with `auth = "off"` and `allow_anonymous = true`. The broker logs
    /// a warning naming them at every start.
    pub fn exposed_without_auth(&self) -> Vec<SocketAddr> {
        if self.auth != AuthMode::Off {
            return Vec::new();
        }
        self.listeners().filter(|addr| !is_loopback(addr)).collect()
    }

    /// Every address the broker listens on.
    pub fn listeners(&self) -> impl Iterator<Item = SocketAddr> + '_ {
        std::iter::once(self.listen)
            .chain(self.tls_listen)
            .chain(self.ws_listen)
            .chain(self.wss_listen)
    }

    /// Check ranges the types cannot express, the TLS keys, the quotas, the
    /// ACL rules and the secure default; returns the offending key
    /// (`acl[i].field` for a rule) and what is wrong.
    pub fn validate(&self) -> Result<(), (String, String)> {
        self.validate_storage_and_limits()
            .map_err(|(key, message)| (key.to_owned(), message))?;
        self.validate_tls()
            .map_err(|(key, message)| (key.to_owned(), message))?;
        self.validate_websocket()
            .map_err(|(key, message)| (key.to_owned(), message))?;
        self.validate_security()
    }

    fn validate_storage_and_limits(&self) -> Result<(), (&'static str, String)> {
        self.log_options()
            .validate()
            .map_err(|e| (e.option, e.message))?;
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
        // A budget smaller than one largest batch would stall that batch forever.
        let largest = u64::from(self.max_payload) + u64::from(self.max_key);
        if self.receive_budget_bytes < largest {
            return Err((
                "receive_budget_bytes",
                format!("must be at least max_payload + max_key ({largest} bytes)"),
            ));
        }
        for (key, limit) in [
            ("produce_bytes_per_sec", self.produce_bytes_per_sec),
            ("fetch_bytes_per_sec", self.fetch_bytes_per_sec),
        ] {
            if limit == Limit::Max(0) {
                return Err((key, "must be positive or \"unlimited\"".into()));
            }
        }
        for (key, n) in [
            ("max_topics_per_principal", self.max_topics_per_principal),
            (
                "max_connections_per_principal",
                self.max_connections_per_principal,
            ),
            (
                "max_connections_per_address",
                self.max_connections_per_address,
            ),
            ("max_parked_fetches", self.max_parked_fetches),
        ] {
            if n == 0 {
                return Err((key, "must be positive".into()));
            }
        }
        let max = hermit_protocol::frame::MAX_PARTITIONS;
        if self.max_partitions == 0 || self.max_partitions > max {
            return Err(("max_partitions", format!("must be between 1 and {max}")));
        }
        if self.default_partitions > self.max_partitions {
            return Err((
                "default_partitions",
                format!("must not exceed max_partitions ({})", self.max_partitions),
            ));
        }
        Ok(())
    }

    fn validate_tls(&self) -> Result<(), (&'static str, String)> {
        let listener = match (self.tls_listen, self.wss_listen) {
            (Some(_), _) => "tls_listen",
            (None, Some(_)) => "wss_listen",
            (None, None) => {
                // Keys without a listener would be silently unused.
                for (key, set) in [
                    ("tls_cert", self.tls_cert.is_some()),
                    ("tls_key", self.tls_key.is_some()),
                    ("tls_client_ca", self.tls_client_ca.is_some()),
                ] {
                    if set {
                        return Err((
                            key,
                            "is set but neither tls_listen nor wss_listen is".into(),
                        ));
                    }
                }
                return Ok(());
            }
        };
        for (key, path) in [("tls_cert", &self.tls_cert), ("tls_key", &self.tls_key)] {
            match path {
                None => return Err((key, format!("is required when {listener} is set"))),
                Some(p) if p.as_os_str().is_empty() => {
                    return Err((key, "is an empty path".into()));
                }
                Some(_) => {}
            }
        }
        if self
            .tls_client_ca
            .as_ref()
            .is_some_and(|p| p.as_os_str().is_empty())
        {
            return Err(("tls_client_ca", "is an empty path".into()));
        }
        Ok(())
    }

    fn validate_websocket(&self) -> Result<(), (&'static str, String)> {
        // Port 0 asks for any free port: two of them never collide.
        let mut seen: Vec<(&str, SocketAddr)> = Vec::new();
        for (key, addr) in [
            ("listen", Some(self.listen)),
            ("tls_listen", self.tls_listen),
            ("ws_listen", self.ws_listen),
            ("wss_listen", self.wss_listen),
            ("admin_listen", self.admin_listen),
        ] {
            let Some(addr) = addr else { continue };
            if let Some((other, _)) = seen.iter().find(|(_, a)| *a == addr && addr.port() != 0) {
                return Err((key, format!("must differ from {other}")));
            }
            seen.push((key, addr));
        }
        let websocket = self.ws_listen.is_some() || self.wss_listen.is_some();
        if !websocket {
            for (key, set) in [
                ("allowed_origins", !self.allowed_origins.is_empty()),
                ("web_root", self.web_root.is_some()),
            ] {
                if set {
                    return Err((key, "is set but neither ws_listen nor wss_listen is".into()));
                }
            }
        }
        for origin in &self.allowed_origins {
            crate::net::Origins::check_entry(origin).map_err(|m| ("allowed_origins", m))?;
        }
        let exposed: Vec<String> = [self.ws_listen, self.wss_listen]
            .into_iter()
            .flatten()
            .filter(|a| !is_loopback(a))
            .map(|a| a.to_string())
            .collect();
        if !exposed.is_empty() && self.allowed_origins.is_empty() {
            return Err((
                "allowed_origins",
                format!(
                    "is required because the WebSocket listener {} is not on loopback: list \
                     the origins of the pages that may connect (\"https://chat.example.com\"), \
                     or \"*\" to let any web page a visitor opens use their connection",
                    exposed.join(" and ")
                ),
            ));
        }
        if self
            .web_root
            .as_ref()
            .is_some_and(|p| p.as_os_str().is_empty())
        {
            return Err(("web_root", "is an empty path".into()));
        }
        if let Some(addr) = self.admin_listen
            && !is_loopback(&addr)
            && self.admin_token_file.is_none()
        {
            return Err((
                "admin_token_file",
                format!(
                    "is required because admin_listen {addr} is not on loopback: /metrics \
                     names topics, groups and principals"
                ),
            ));
        }
        if self
            .admin_token_file
            .as_ref()
            .is_some_and(|p| p.as_os_str().is_empty())
        {
            return Err(("admin_token_file", "is an empty path".into()));
        }
        if !(4096..=1 << 30).contains(&self.ws_max_message) {
            return Err((
                "ws_max_message",
                "must be between 4096 bytes and 1 GiB".into(),
            ));
        }
        Ok(())
    }

    fn validate_security(&self) -> Result<(), (String, String)> {
        crate::auth::Acl::from_config(self).map_err(|e| (e.key, e.message))?;
        match self.auth {
            AuthMode::Off => {
                let exposed: Vec<String> = self
                    .listeners()
                    .filter(|a| !is_loopback(a))
                    .map(|a| a.to_string())
                    .collect();
                if !exposed.is_empty() && !self.allow_anonymous {
                    return Err((
                        "auth".into(),
                        format!(
                            "is \"off\" but {} not on loopback: anyone who can reach it could \
                             read, write and delete every topic. Set auth = \"required\" (or \
                             \"optional\") with [[acl]] rules, or allow_anonymous = true to \
                             accept that",
                            match exposed.as_slice() {
                                [one] => format!("{one} is"),
                                many => format!("{} are", many.join(" and ")),
                            }
                        ),
                    ));
                }
            }
            AuthMode::Optional | AuthMode::Required => {
                if self.allow_anonymous {
                    return Err((
                        "allow_anonymous".into(),
                        format!(
                            "only applies with auth = \"off\" (auth is \"{}\"): grant anonymous \
                             callers access with principal = \"anonymous\" rules",
                            self.auth
                        ),
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Loopback, including IPv4-mapped IPv6 (`::ffff:127.0.0.1`).
/// An address, or `"off"` (also `""`) for none.
impl LogOptions {
    /// The storage part of a broker configuration.
    #[deprecated(note = "use `Config::log_options`")]
    pub fn from_config(c: &Config) -> LogOptions {
        c.log_options()
    }
}

fn address_or_off<'de, D: Deserializer<'de>>(d: D) -> Result<Option<SocketAddr>, D::Error> {
    let s = String::deserialize(d)?;
    match s.as_str() {
        "off" | "" => Ok(None),
        other => other
            .parse()
            .map(Some)
            .map_err(|e| serde::de::Error::custom(format!("{other:?}: {e} (or \"off\")"))),
    }
}

fn is_loopback(addr: &SocketAddr) -> bool {
    addr.ip().to_canonical().is_loopback()
}

/// The `acl` array of tables, each rule deserialized alone so an error names it.
fn parse_acl(value: toml::Value) -> Result<Vec<AclRule>, String> {
    let toml::Value::Array(items) = value else {
        return Err("`acl`: expected [[acl]] tables".into());
    };
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| AclRule::deserialize(item).map_err(|e| format!("`acl[{i}]`: {e}")))
        .collect()
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

    /// The ACL example of docs/SECURITY.md, verbatim.
    const INBOX_POLICY: &str = r#"
auth = "required"          # "off" | "optional" | "required"
admins = ["0000000000000000000000000000000000000000000000000000000000000001"]
[[acl]]
principal = "*"            # a fingerprint, "*" (any authenticated) or "anonymous"
topics = "inbox.*"         # glob; {principal} = the caller's fingerprint, hex
allow = ["produce"]
[[acl]]
principal = "*"
topics = "inbox.{principal}"
allow = ["consume", "describe"]   # also: create, delete
"#;

    fn load_file(text: &str, flags: &[(&str, String)]) -> Result<Config, ConfigError> {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("hermit.toml");
        std::fs::write(&file, text).unwrap();
        Config::load(Some(&file), env(&[]), flags)
    }

    #[test]
    fn the_admin_listener_is_on_loopback_by_default_and_needs_a_token_elsewhere() {
        let c = load_file("", &[]).unwrap();
        assert_eq!(c.admin_listen, Some("127.0.0.1:9644".parse().unwrap()));
        let off = load_file("admin_listen = \"off\"\n", &[]).unwrap();
        assert_eq!(off.admin_listen, None);
        let e = load_file("admin_listen = \"0.0.0.0:9644\"\n", &[])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("admin_token_file") && e.contains("not on loopback"),
            "{e}"
        );
        let ok = load_file(
            "admin_listen = \"0.0.0.0:9644\"\nadmin_token_file = \"/etc/hermit/token\"\n",
            &[],
        );
        assert!(ok.is_ok(), "{ok:?}");
        let e = load_file("admin_listen = \"nowhere\"\n", &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("admin_listen") || e.contains("nowhere"), "{e}");
        let e = load_file("listen = \"127.0.0.1:9644\"\n", &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("admin_listen"), "the same address twice: {e}");
    }

    #[test]
    fn the_inbox_policy_parses_and_compiles() {
        let c = load_file(&format!("listen = \"0.0.0.0:9092\"\n{INBOX_POLICY}"), &[]).unwrap();
        assert_eq!(c.auth, AuthMode::Required);
        assert_eq!(c.admins.len(), 1);
        assert_eq!(c.acl.len(), 2);
        assert_eq!(c.acl[1].topics, "inbox.{principal}");
        assert_eq!(c.acl[1].allow, ["consume", "describe"]);
        assert_eq!(c.acl[1].groups, None);
        assert!(c.exposed_without_auth().is_empty());
        let acl = crate::auth::Acl::from_config(&c).unwrap();
        let admin = acl.who(crate::auth::Principal::from_hex(&c.admins[0]));
        assert!(admin.is_admin());
    }

    #[test]
    fn the_secure_default() {
        // Loopback with the defaults (the README's first command).
        let c = Config::load(None, env(&[]), &[]).unwrap();
        assert_eq!(c.auth, AuthMode::Off);
        assert!(c.exposed_without_auth().is_empty());
        Config::load(None, env(&[]), &[("listen", "[::1]:9092".into())]).unwrap();

        for listen in ["0.0.0.0:9092", "[::]:9092", "192.0.2.7:9092"] {
            let e = Config::load(None, env(&[]), &[("listen", listen.into())])
                .unwrap_err()
                .to_string();
            assert!(
                e.contains("`auth`") && e.contains("allow_anonymous") && e.contains(listen),
                "{e}"
            );
        }
        // The TLS listener counts too.
        let e = Config::load(
            None,
            env(&[("HERMIT_TLS_LISTEN", "0.0.0.0:9093")]),
            &[("tls_cert", "c.pem".into()), ("tls_key", "k.pem".into())],
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("`auth`") && e.contains("0.0.0.0:9093"), "{e}");

        let c = Config::load(
            None,
            env(&[("HERMIT_ALLOW_ANONYMOUS", "true")]),
            &[("listen", "0.0.0.0:9092".into())],
        )
        .unwrap();
        assert!(c.allow_anonymous);
        assert_eq!(c.exposed_without_auth(), ["0.0.0.0:9092".parse().unwrap()]);

        // With authentication on, no ACL rules is a closed broker, not an open one.
        load_file("listen = \"0.0.0.0:9092\"\nauth = \"optional\"\n", &[]).unwrap();
        let e = load_file(
            "listen = \"0.0.0.0:9092\"\nauth = \"required\"\nallow_anonymous = true\n",
            &[],
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("`allow_anonymous`") && e.contains("hermit.toml"),
            "{e}"
        );
    }

    #[test]
    fn acl_errors_name_the_rule() {
        let rule = |body: &str| {
            format!(
                "auth = \"required\"\n[[acl]]\nprincipal = \"*\"\ntopics = \"a\"\nallow = [\"produce\"]\n[[acl]]\n{body}\n"
            )
        };
        for (body, key) in [
            (
                "principal = \"*\"\ntopics = \"a\"\nallow = [\"read\"]",
                "acl[1].allow",
            ),
            (
                "principal = \"bob\"\ntopics = \"a\"\nallow = [\"produce\"]",
                "acl[1].principal",
            ),
            (
                "principal = \"*\"\ntopics = \"a/b\"\nallow = [\"produce\"]",
                "acl[1].topics",
            ),
            (
                "principal = \"*\"\ntopics = \"a\"\nallow = [\"consume\"]\ngroups = \"{me}\"",
                "acl[1].groups",
            ),
            (
                "principal = \"*\"\ntopic = \"a\"\nallow = [\"produce\"]",
                "acl[1]",
            ),
            ("principal = \"*\"\nallow = [\"produce\"]", "acl[1]"),
        ] {
            let e = load_file(&rule(body), &[]).unwrap_err().to_string();
            assert!(
                e.contains(&format!("`{key}`")) && e.contains("hermit.toml"),
                "{key}: {e}"
            );
        }
        let e = load_file("admins = [\"abc\"]\nauth = \"required\"\n", &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("`admins[0]`"), "{e}");
        let e = load_file("acl = 3\n", &[]).unwrap_err().to_string();
        assert!(e.contains("`acl`"), "{e}");
        // Rules with auth off would be ignored: refused instead.
        let e = load_file(
            &rule("principal = \"*\"\ntopics = \"b\"\nallow = [\"produce\"]")
                .replace("auth = \"required\"\n", ""),
            &[],
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("`acl`") && e.contains("off"), "{e}");
        // Lists are file-only.
        let e = Config::load(None, env(&[("HERMIT_ADMINS", "x")]), &[])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("HERMIT_ADMINS") && e.contains("config file"),
            "{e}"
        );
        let e = Config::load(None, env(&[]), &[("acl", "x".into())])
            .unwrap_err()
            .to_string();
        assert!(e.contains("--acl") && e.contains("config file"), "{e}");
        assert!(Config::keys().all(|k| k != "acl" && k != "admins"));
    }

    #[test]
    fn tls_and_quota_keys() {
        let c = Config::load(None, env(&[]), &[]).unwrap();
        assert_eq!(c.receive_budget_bytes, 256 << 20);
        assert_eq!(c.produce_bytes_per_sec, Limit::Unlimited);
        assert_eq!(c.fetch_bytes_per_sec, Limit::Unlimited);
        assert_eq!(c.max_topics_per_principal, 1000);
        assert_eq!(c.max_connections_per_principal, 1000);
        assert_eq!(c.max_connections_per_address, 1000);
        assert_eq!(c.max_parked_fetches, 256);
        assert_eq!(c.max_partitions, 64);
        assert_eq!(c.tls_listen, None);

        let c = load_file(
            "tls_listen = \"127.0.0.1:9093\"\ntls_cert = \"/etc/hermit/cert.pem\"\n\
             tls_key = \"/etc/hermit/key.pem\"\ntls_client_ca = \"/etc/hermit/ca.pem\"\n\
             produce_bytes_per_sec = 1048576\nfetch_bytes_per_sec = \"unlimited\"\n",
            &[("max_partitions", "128".into())],
        )
        .unwrap();
        assert_eq!(c.tls_listen, Some("127.0.0.1:9093".parse().unwrap()));
        assert_eq!(
            c.tls_client_ca.as_deref(),
            Some(Path::new("/etc/hermit/ca.pem"))
        );
        assert_eq!(c.produce_bytes_per_sec, Limit::Max(1 << 20));
        assert_eq!(c.max_partitions, 128);
        assert_eq!(c.listeners().count(), 2);

        for (flags, key) in [
            (vec![("tls_listen", "127.0.0.1:9093")], "tls_cert"),
            (
                vec![("tls_listen", "127.0.0.1:9093"), ("tls_cert", "c")],
                "tls_key",
            ),
            (vec![("tls_key", "k")], "tls_key"),
            (vec![("tls_client_ca", "ca")], "tls_client_ca"),
            (
                vec![
                    ("tls_listen", "127.0.0.1:9092"),
                    ("tls_cert", "c"),
                    ("tls_key", "k"),
                ],
                "tls_listen",
            ),
            (
                vec![("receive_budget_bytes", "1000")],
                "receive_budget_bytes",
            ),
            (
                vec![("produce_bytes_per_sec", "0")],
                "produce_bytes_per_sec",
            ),
            (vec![("max_parked_fetches", "0")], "max_parked_fetches"),
            (vec![("max_partitions", "5000")], "max_partitions"),
            (
                vec![("max_partitions", "2"), ("default_partitions", "3")],
                "default_partitions",
            ),
        ] {
            let flags: Vec<(&str, String)> =
                flags.iter().map(|(k, v)| (*k, v.to_string())).collect();
            let e = Config::load(None, env(&[]), &flags)
                .unwrap_err()
                .to_string();
            assert!(e.contains(&format!("`{key}`")), "{key}: {e}");
        }
    }

    #[test]
    fn websocket_keys_and_their_secure_default() {
        let c = Config::load(None, env(&[]), &[]).unwrap();
        assert_eq!(
            (c.ws_listen, c.wss_listen, c.web_root.clone()),
            (None, None, None)
        );
        assert_eq!(c.ws_max_message, 1 << 20);

        let c = load_file(
            "ws_listen = \"127.0.0.1:9094\"\nallowed_origins = [\"https://chat.example.com\"]\n\
             web_root = \"js\"\n",
            &[("ws_max_message", "65536".into())],
        )
        .unwrap();
        assert_eq!(c.ws_listen, Some("127.0.0.1:9094".parse().unwrap()));
        assert_eq!(
            c.allowed_origins,
            vec!["https://chat.example.com".to_string()]
        );
        assert_eq!(c.ws_max_message, 65536);
        assert_eq!(c.listeners().count(), 2);

        // Not on loopback: the origins must be listed, and auth is still required.
        let e = load_file("ws_listen = \"0.0.0.0:9094\"\n", &[])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`allowed_origins`") && e.contains("not on loopback"),
            "{e}"
        );
        let e = load_file(
            "ws_listen = \"0.0.0.0:9094\"\nallowed_origins = [\"*\"]\n",
            &[],
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("`auth`") && e.contains("0.0.0.0:9094"), "{e}");
        let e = load_file(
            "allowed_origins = [\"chat.example.com\"]\nws_listen = \"127.0.0.1:1\"\n",
            &[],
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("`allowed_origins`") && e.contains("http://"),
            "{e}"
        );

        for (flags, key) in [
            (vec![("wss_listen", "127.0.0.1:9095")], "tls_cert"),
            (vec![("web_root", "js")], "web_root"),
            (vec![("ws_listen", "127.0.0.1:9092")], "ws_listen"),
            (vec![("ws_max_message", "100")], "ws_max_message"),
        ] {
            let flags: Vec<(&str, String)> =
                flags.iter().map(|(k, v)| (*k, v.to_string())).collect();
            let e = Config::load(None, env(&[]), &flags)
                .unwrap_err()
                .to_string();
            assert!(e.contains(&format!("`{key}`")), "{key}: {e}");
        }
        let e = Config::load(None, env(&[("HERMIT_ALLOWED_ORIGINS", "*")]), &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("only be set in the config file"), "{e}");
    }

    #[test]
    fn the_storage_defaults_are_the_logs() {
        // Compared through `Debug`: the options hold the file system, which
        // has no equality.
        assert_eq!(
            format!("{:?}", Config::default().log_options()),
            format!("{:?}", LogOptions::default())
        );
    }
}
