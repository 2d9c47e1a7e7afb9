//! Broker configuration: a TOML file, then `HERMIT_*` environment variables,
//! then command-line flags, each overriding the one before.
//!
//! Unknown keys and invalid values are errors that name the key and where it
//! came from; nothing silently falls back to a default.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer};

use crate::admin::hosts::AdminHosts;
use crate::auth::{Acl, AclError, preset};
use crate::log::LogOptions;
use crate::net::{AccessOptions, QuotaOptions, ServerOptions, TlsFiles};

// Each layer declares and checks its own options; the configuration reads
// them under the same names and assembles them.
pub use crate::auth::{AclRule, AuthMode};
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
    /// What recovery does with a torn or corrupt tail. Default `tolerate-tail-corruption`.
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
    /// Close a connection whose queued answers have not moved for this
    /// long (a client that stopped reading). Default 30,000 ms.
    pub write_stall_timeout_ms: u64,
    /// With `auth = "required"`, a connection that has not authenticated
    /// this long after its hello is closed. Default 10,000 ms.
    pub auth_timeout_ms: u64,
    /// With `auth = "required"`, connections that have not authenticated
    /// yet, at most (a hello-only client cannot hold every connection
    /// permit). Default 512.
    pub max_unauthenticated_connections: u32,
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
    /// A named set of access rules added to `acl` (`"chat-inbox"`: the
    /// rules of docs/SECURITY.md §3); needs `auth = "optional"` or
    /// `"required"`. Default none.
    pub acl_preset: Option<String>,
    /// The host names and addresses clients dial this broker by, besides
    /// the names of `tls_cert` and (from loopback) loopback names: an
    /// `Authenticate` must name one (docs/PROTOCOL.md §1). Required with
    /// authentication on a listener off loopback and no `tls_cert`. File
    /// only. Default none.
    pub public_names: Vec<String>,
    /// Whether a signed TLS channel binding must be the connection's own
    /// TLS exporter value. Turn off only behind a TLS-terminating proxy
    /// (the name binding stays). Default true.
    pub check_tls_exporter: bool,

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
    /// Host names and addresses (`metrics.example.com`, `10.0.0.5`, or
    /// `"*"` for any) the admin listener answers to, besides `localhost`,
    /// loopback addresses and the address a connection arrived on; a
    /// request naming another `Host` gets `421` (a web page re-pointing its
    /// own name at the broker must not read `/metrics`). File only. Default none.
    pub admin_hosts: Vec<String>,
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
    /// Bytes of answers all connections together may hold queued, not yet
    /// written to their clients. Default 256 MiB.
    pub send_budget_bytes: u64,
    /// Bytes of answers one connection may hold queued before it stops
    /// taking up requests (and reading). Default 4 MiB.
    pub max_send_queue_bytes: u64,
    /// Produce rate per principal (anonymous callers share one), bytes/s. Default unlimited.
    pub produce_bytes_per_sec: Limit,
    /// Fetch rate per principal (anonymous callers share one), bytes/s. Default unlimited.
    pub fetch_bytes_per_sec: Limit,
    /// Topics one principal may create. Default 1000.
    pub max_topics_per_principal: u32,
    /// Group offsets (a consumer group's position in one partition) one
    /// principal may create. Default 10000.
    pub max_group_offsets_per_principal: u32,
    /// Topics and group offsets one source address (an IPv6 /64 counts as
    /// one) may create per minute, in a burst or spread out. Default 120.
    pub creations_per_minute_per_address: Limit,
    /// Batches one principal may claim per minute, in a burst or spread
    /// out (anonymous callers share one). Default 60.
    pub claims_per_minute_per_principal: Limit,
    /// Batches one source address (an IPv6 /64 counts as one) may claim
    /// per minute, whatever keys it uses. Default 240.
    pub claims_per_minute_per_address: Limit,
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
            write_stall_timeout_ms: 30_000,
            auth_timeout_ms: 10_000,
            max_unauthenticated_connections: 512,
            drain_timeout_ms: 10_000,
            log_format: LogFormat::Text,
            log_level: "info".into(),
            auth: AuthMode::Off,
            allow_anonymous: false,
            admins: Vec::new(),
            acl: Vec::new(),
            acl_preset: None,
            tls_listen: None,
            tls_cert: None,
            tls_key: None,
            tls_client_ca: None,
            ws_listen: None,
            wss_listen: None,
            allowed_origins: Vec::new(),
            public_names: Vec::new(),
            check_tls_exporter: true,
            web_root: None,
            admin_listen: Some(SocketAddr::from(([127, 0, 0, 1], 9644))),
            admin_token_file: None,
            admin_hosts: Vec::new(),
            metrics_top_topics: 50,
            metrics_top_groups: 200,
            metrics_top_principals: 20,
            ws_max_message: 1 << 20,
            receive_budget_bytes: 256 << 20,
            send_budget_bytes: 256 << 20,
            max_send_queue_bytes: 4 << 20,
            produce_bytes_per_sec: Limit::Unlimited,
            fetch_bytes_per_sec: Limit::Unlimited,
            max_topics_per_principal: 1000,
            max_group_offsets_per_principal: 10_000,
            creations_per_minute_per_address: Limit::Max(120),
            claims_per_minute_per_principal: Limit::Max(60),
            claims_per_minute_per_address: Limit::Max(240),
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
    ("write_stall_timeout_ms", Kind::Int),
    ("auth_timeout_ms", Kind::Int),
    ("max_unauthenticated_connections", Kind::Int),
    ("drain_timeout_ms", Kind::Int),
    ("log_format", Kind::Str),
    ("log_level", Kind::Str),
    ("auth", Kind::Str),
    ("allow_anonymous", Kind::Bool),
    ("acl_preset", Kind::Str),
    ("check_tls_exporter", Kind::Bool),
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
    ("send_budget_bytes", Kind::Int),
    ("max_send_queue_bytes", Kind::Int),
    ("produce_bytes_per_sec", Kind::IntOrStr),
    ("fetch_bytes_per_sec", Kind::IntOrStr),
    ("max_topics_per_principal", Kind::Int),
    ("max_group_offsets_per_principal", Kind::Int),
    ("creations_per_minute_per_address", Kind::IntOrStr),
    ("claims_per_minute_per_principal", Kind::IntOrStr),
    ("claims_per_minute_per_address", Kind::IntOrStr),
    ("max_connections_per_principal", Kind::Int),
    ("max_connections_per_address", Kind::Int),
    ("max_parked_fetches", Kind::Int),
    ("max_partitions", Kind::Int),
];

/// Keys that hold lists or tables: set in the config file only, never by
/// environment variable or flag.
const FILE_ONLY_KEYS: &[&str] = &[
    "admins",
    "acl",
    "allowed_origins",
    "admin_hosts",
    "public_names",
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

    /// The network part of the configuration, for the server
    /// ([`Server::new`](crate::net::Server::new)); its keys are the options' names.
    pub fn server_options(&self) -> ServerOptions {
        ServerOptions {
            max_connections: self.max_connections,
            max_in_flight: self.max_in_flight,
            handshake_timeout_ms: self.handshake_timeout_ms,
            idle_timeout_ms: self.idle_timeout_ms,
            write_stall_timeout_ms: self.write_stall_timeout_ms,
            auth_timeout_ms: self.auth_timeout_ms,
            max_unauthenticated_connections: self.max_unauthenticated_connections,
            drain_timeout_ms: self.drain_timeout_ms,
            max_payload: self.max_payload,
            max_key: self.max_key,
            max_partitions: self.max_partitions,
            max_parked_fetches: self.max_parked_fetches,
            access: AccessOptions {
                mode: self.auth,
                admins: self.admins.clone(),
                rules: self.acl_rules(),
                public_names: self.public_names.clone(),
                check_tls_exporter: self.check_tls_exporter,
            },
            tls: TlsFiles {
                cert: self.tls_cert.clone(),
                key: self.tls_key.clone(),
                client_ca: self.tls_client_ca.clone(),
            },
            ws_max_message: self.ws_max_message,
            allowed_origins: self.allowed_origins.clone(),
            web_root: self.web_root.clone(),
            quotas: QuotaOptions {
                receive_budget_bytes: self.receive_budget_bytes,
                send_budget_bytes: self.send_budget_bytes,
                max_send_queue_bytes: self.max_send_queue_bytes,
                produce_bytes_per_sec: self.produce_bytes_per_sec,
                fetch_bytes_per_sec: self.fetch_bytes_per_sec,
                max_topics_per_principal: self.max_topics_per_principal,
                max_group_offsets_per_principal: self.max_group_offsets_per_principal,
                creations_per_minute_per_address: self.creations_per_minute_per_address,
                claims_per_minute_per_principal: self.claims_per_minute_per_principal,
                claims_per_minute_per_address: self.claims_per_minute_per_address,
                max_connections_per_principal: self.max_connections_per_principal,
                max_connections_per_address: self.max_connections_per_address,
            },
            exposed_without_auth: self.exposed_without_auth(),
        }
    }

    /// The access rules in force: the `[[acl]]` rules as written, then
    /// those of `acl_preset` (after them, so an error in a written rule
    /// keeps its index `acl[i]`).
    pub fn acl_rules(&self) -> Vec<AclRule> {
        let preset = self.acl_preset.as_deref().and_then(preset::rules);
        self.acl
            .iter()
            .cloned()
            .chain(preset.into_iter().flatten())
            .collect()
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
        self.validate_admin_hosts()?;
        self.validate_security()
    }

    fn validate_storage_and_limits(&self) -> Result<(), (&'static str, String)> {
        self.log_options()
            .validate()
            .map_err(|e| (e.option, e.message))?;
        self.server_options()
            .validate()
            .map_err(|e| (e.key, e.message))?;
        if self.cleanup_interval_ms == 0 {
            return Err(("cleanup_interval_ms", "must be positive".into()));
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
        Ok(())
    }

    fn validate_admin_hosts(&self) -> Result<(), (String, String)> {
        if self.admin_listen.is_none() && !self.admin_hosts.is_empty() {
            return Err((
                "admin_hosts".into(),
                "is set but admin_listen is \"off\"".into(),
            ));
        }
        AdminHosts::new(&self.admin_hosts)
            .map(drop)
            .map_err(|e| (format!("admin_hosts[{}]", e.index), e.message))
    }

    fn validate_security(&self) -> Result<(), (String, String)> {
        if let Some(name) = &self.acl_preset {
            if preset::rules(name).is_none() {
                let known: Vec<&str> = preset::names().collect();
                return Err((
                    "acl_preset".into(),
                    format!("unknown preset {name:?} (known: {})", known.join(", ")),
                ));
            }
            if self.auth == AuthMode::Off {
                return Err((
                    "acl_preset".into(),
                    "needs auth = \"optional\" or \"required\" (with auth = \"off\" everyone \
                     may do everything, so the preset would be ignored)"
                        .into(),
                ));
            }
        }
        Acl::compile(self.auth, &self.admins, &self.acl_rules()).map_err(|e| (e.key, e.message))?;
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
                self.validate_names()?;
            }
        }
        Ok(())
    }
}

impl Config {
    /// With authentication, the names clients dial must be known (a proof
    /// names one): `public_names` checked, and required when a listener is
    /// off loopback and no `tls_cert` names the broker.
    fn validate_names(&self) -> Result<(), (String, String)> {
        crate::auth::BrokerNames::new(&self.public_names, None)
            .map_err(|e| ("public_names".to_owned(), e.to_string()))?;
        if !self.public_names.is_empty() || self.tls_cert.is_some() {
            return Ok(());
        }
        match self.listeners().find(|a| !is_loopback(a)) {
            None => Ok(()),
            Some(exposed) => Err((
                "public_names".into(),
                format!(
                    "must name the host names or addresses clients dial this broker by: \
                     auth is \"{}\" and {exposed} is not on loopback, and an Authenticate \
                     is accepted only for a name the broker answers to (tls_cert's names, \
                     public_names, or loopback names from loopback)",
                    self.auth
                ),
            )),
        }
    }
}

impl From<Config> for ServerOptions {
    fn from(config: Config) -> ServerOptions {
        config.server_options()
    }
}

impl From<&Config> for ServerOptions {
    fn from(config: &Config) -> ServerOptions {
        config.server_options()
    }
}

impl Acl {
    /// Compiles `config.auth`, `config.admins` and the rules of
    /// [`Config::acl_rules`] (`acl` and `acl_preset`).
    ///
    /// # Errors
    /// What [`Acl::compile`] refuses.
    #[deprecated(note = "use Acl::compile(config.auth, &config.admins, &config.acl_rules())")]
    pub fn from_config(config: &Config) -> Result<Acl, AclError> {
        Acl::compile(config.auth, &config.admins, &config.acl_rules())
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
mod tests;
