//! The network part of the configuration, declared and checked by the layer
//! that uses it. The broker configuration reads these under the same key
//! names and assembles them (`Config::server_options`); the server never
//! sees the whole configuration.

use std::net::SocketAddr;
use std::path::PathBuf;

use super::http::Origins;
use crate::auth::{AclRule, AuthMode};
use crate::engine::Limit;

/// What a [`Server`](super::Server) and its connections run with. Each
/// field is the configuration key of the same name (docs/OPERATIONS.md).
#[derive(Debug, Clone)]
pub struct ServerOptions {
    /// `max_connections`: most simultaneous connections.
    pub max_connections: u32,
    /// `max_in_flight`: requests in flight on one connection before it stops reading.
    pub max_in_flight: u32,
    /// `handshake_timeout_ms`: the hello (and a TLS handshake, an HTTP upgrade) must finish within this.
    pub handshake_timeout_ms: u64,
    /// `idle_timeout_ms`: connections idle this long are closed; also caps a long poll's wait.
    pub idle_timeout_ms: u64,
    /// `write_stall_timeout_ms`: a connection whose queued answers do not
    /// move for this long is closed.
    pub write_stall_timeout_ms: u64,
    /// `auth_timeout_ms`: with `auth = "required"`, how long after its hello
    /// a connection has to authenticate.
    pub auth_timeout_ms: u64,
    /// `max_unauthenticated_connections`: with `auth = "required"`,
    /// connections not authenticated yet, at most.
    pub max_unauthenticated_connections: u32,
    /// `drain_timeout_ms`: how long in-flight requests may take to finish at shutdown.
    pub drain_timeout_ms: u64,
    /// `max_payload`: largest record batch payload.
    pub max_payload: u32,
    /// `max_key`: largest record batch key.
    pub max_key: u32,
    /// `max_partitions`: most partitions a created topic may have.
    pub max_partitions: u32,
    /// `max_parked_fetches`: long polls parked on one connection.
    pub max_parked_fetches: u32,
    /// Access: the `auth` mode, `admins` and `[[acl]]` rules.
    pub access: AccessOptions,
    /// `tls_cert`, `tls_key`, `tls_client_ca`: the TLS listeners' files.
    pub tls: TlsFiles,
    /// `ws_max_message`: largest WebSocket message a client may send.
    pub ws_max_message: u32,
    /// `allowed_origins`: browser origins that may open WebSocket connections.
    pub allowed_origins: Vec<String>,
    /// `web_root`: static files served on the WebSocket listeners.
    pub web_root: Option<PathBuf>,
    /// The budget and quotas every connection shares.
    pub quotas: QuotaOptions,
    /// Listeners served without authentication off loopback (`auth = "off"`
    /// with `allow_anonymous = true`): warned about at every start.
    pub exposed_without_auth: Vec<SocketAddr>,
}

/// Who may do what: compiled once into an [`Acl`](crate::auth::Acl).
#[derive(Debug, Clone)]
pub struct AccessOptions {
    /// `auth`.
    pub mode: AuthMode,
    /// `admins`: fingerprints that may do anything.
    pub admins: Vec<String>,
    /// `acl`: the rules.
    pub rules: Vec<AclRule>,
    /// `public_names`: names clients dial the broker by, besides the TLS
    /// certificate's and loopback names.
    pub public_names: Vec<String>,
    /// `check_tls_exporter`: a signed channel binding must be the
    /// connection's TLS exporter value.
    pub check_tls_exporter: bool,
}

impl Default for AccessOptions {
    /// The configuration's defaults: `auth = "off"`, no rules, no public
    /// names, channel bindings checked.
    fn default() -> AccessOptions {
        AccessOptions {
            mode: AuthMode::default(),
            admins: Vec::new(),
            rules: Vec::new(),
            public_names: Vec::new(),
            check_tls_exporter: true,
        }
    }
}

/// The files a TLS listener serves with.
#[derive(Debug, Clone, Default)]
pub struct TlsFiles {
    /// `tls_cert`: PEM certificate chain.
    pub cert: Option<PathBuf>,
    /// `tls_key`: PEM private key.
    pub key: Option<PathBuf>,
    /// `tls_client_ca`: PEM CA certificates for client certificates.
    pub client_ca: Option<PathBuf>,
}

/// The budget every connection draws from and the quotas per principal and
/// per source address (docs/GLOSSARY.md: budget, quota).
#[derive(Debug, Clone, Copy)]
pub struct QuotaOptions {
    /// `receive_budget_bytes`: bytes all connections together may hold in frames being received.
    pub receive_budget_bytes: u64,
    /// `send_budget_bytes`: bytes of answers all connections together may hold queued.
    pub send_budget_bytes: u64,
    /// `max_send_queue_bytes`: bytes of answers one connection may hold
    /// queued before it stops taking up requests.
    pub max_send_queue_bytes: u64,
    /// `produce_bytes_per_sec`: produce rate per principal.
    pub produce_bytes_per_sec: Limit,
    /// `fetch_bytes_per_sec`: fetch rate per principal.
    pub fetch_bytes_per_sec: Limit,
    /// `max_topics_per_principal`: topics one principal may create.
    pub max_topics_per_principal: u32,
    /// `max_group_offsets_per_principal`: group offsets (a consumer
    /// group's position in one partition) one principal may create.
    pub max_group_offsets_per_principal: u32,
    /// `creations_per_minute_per_address`: topics and group offsets one
    /// source address (an IPv6 /64 counts as one) may create per minute.
    pub creations_per_minute_per_address: Limit,
    /// `claims_per_minute_per_principal`: batches one principal may claim
    /// per minute (anonymous callers share one).
    pub claims_per_minute_per_principal: Limit,
    /// `claims_per_minute_per_address`: batches one source address (an
    /// IPv6 /64 counts as one) may claim per minute, whatever its keys.
    pub claims_per_minute_per_address: Limit,
    /// `max_connections_per_principal`: simultaneous connections of one principal.
    pub max_connections_per_principal: u32,
    /// `max_connections_per_address`: simultaneous connections from one IP address.
    pub max_connections_per_address: u32,
}

/// An option out of range: its key and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{key}`: {message}")]
pub struct OptionError {
    /// The configuration key.
    pub key: &'static str,
    /// What is wrong with its value.
    pub message: String,
}

fn invalid(key: &'static str, message: impl Into<String>) -> OptionError {
    OptionError {
        key,
        message: message.into(),
    }
}

impl ServerOptions {
    /// Check the ranges the types cannot express.
    ///
    /// # Errors
    /// The first option out of range.
    pub fn validate(&self) -> Result<(), OptionError> {
        for (key, positive) in [
            ("max_connections", self.max_connections > 0),
            ("max_in_flight", self.max_in_flight > 0),
            ("handshake_timeout_ms", self.handshake_timeout_ms > 0),
            ("idle_timeout_ms", self.idle_timeout_ms > 0),
            ("write_stall_timeout_ms", self.write_stall_timeout_ms > 0),
            ("auth_timeout_ms", self.auth_timeout_ms > 0),
            (
                "max_unauthenticated_connections",
                self.max_unauthenticated_connections > 0,
            ),
        ] {
            if !positive {
                return Err(invalid(key, "must be positive"));
            }
        }
        self.quotas
            .validate(u64::from(self.max_payload) + u64::from(self.max_key))?;
        if self.max_parked_fetches == 0 {
            return Err(invalid("max_parked_fetches", "must be positive"));
        }
        let max = hermit_protocol::frame::MAX_PARTITIONS;
        if self.max_partitions == 0 || self.max_partitions > max {
            return Err(invalid(
                "max_partitions",
                format!("must be between 1 and {max}"),
            ));
        }
        for origin in &self.allowed_origins {
            Origins::check_entry(origin).map_err(|m| invalid("allowed_origins", m))?;
        }
        if self
            .web_root
            .as_ref()
            .is_some_and(|p| p.as_os_str().is_empty())
        {
            return Err(invalid("web_root", "is an empty path"));
        }
        if !(4096..=1 << 30).contains(&self.ws_max_message) {
            return Err(invalid(
                "ws_max_message",
                "must be between 4096 bytes and 1 GiB",
            ));
        }
        Ok(())
    }
}

impl QuotaOptions {
    /// Check the ranges; `largest_batch` is the most one frame's batch may
    /// hold (`max_payload + max_key`).
    ///
    /// # Errors
    /// The first option out of range.
    pub fn validate(&self, largest_batch: u64) -> Result<(), OptionError> {
        // A budget smaller than one largest batch would stall that batch forever.
        if self.receive_budget_bytes < largest_batch {
            return Err(invalid(
                "receive_budget_bytes",
                format!("must be at least max_payload + max_key ({largest_batch} bytes)"),
            ));
        }
        // One connection's cap well under the whole budget: a few clients
        // that never read cannot take it all.
        if self.max_send_queue_bytes < 64 << 10 {
            return Err(invalid("max_send_queue_bytes", "must be at least 64 KiB"));
        }
        if self.send_budget_bytes < 4 * self.max_send_queue_bytes {
            return Err(invalid(
                "send_budget_bytes",
                format!(
                    "must be at least 4 × max_send_queue_bytes ({} bytes)",
                    4 * self.max_send_queue_bytes
                ),
            ));
        }
        for (key, limit) in [
            ("produce_bytes_per_sec", self.produce_bytes_per_sec),
            ("fetch_bytes_per_sec", self.fetch_bytes_per_sec),
            (
                "creations_per_minute_per_address",
                self.creations_per_minute_per_address,
            ),
            (
                "claims_per_minute_per_principal",
                self.claims_per_minute_per_principal,
            ),
            (
                "claims_per_minute_per_address",
                self.claims_per_minute_per_address,
            ),
        ] {
            if limit == Limit::Max(0) {
                return Err(invalid(key, "must be positive or \"unlimited\""));
            }
        }
        for (key, n) in [
            ("max_topics_per_principal", self.max_topics_per_principal),
            (
                "max_group_offsets_per_principal",
                self.max_group_offsets_per_principal,
            ),
            (
                "max_connections_per_principal",
                self.max_connections_per_principal,
            ),
            (
                "max_connections_per_address",
                self.max_connections_per_address,
            ),
        ] {
            if n == 0 {
                return Err(invalid(key, "must be positive"));
            }
        }
        Ok(())
    }
}
