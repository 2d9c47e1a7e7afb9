//! The counters a running server keeps, where things happen: relaxed
//! atomic adds on the request path, read by `/metrics` at scrape time.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::metrics::Histogram;

/// Counters a running server keeps (read them with [`Server::metrics`](super::Server::metrics)).
#[derive(Debug, Default)]
pub struct Metrics {
    /// Connections currently open.
    pub connections_open: AtomicU64,
    /// Connections accepted since start.
    pub connections_accepted: AtomicU64,
    /// Connections refused because `max_connections` was reached.
    pub connections_refused: AtomicU64,
    /// Record batches appended.
    pub produce_batches: AtomicU64,
    /// Bytes of record batches appended.
    pub produce_bytes: AtomicU64,
    /// Fetch responses that carried data.
    pub fetch_responses: AtomicU64,
    /// `sendfile(2)` calls that sent record bytes.
    pub sendfile_calls: AtomicU64,
    /// Record bytes sent by `sendfile(2)`: how fetch sends records over a
    /// plain TCP socket.
    pub sendfile_bytes: AtomicU64,
    /// Record bytes copied (`pread` from the segment, then written) to
    /// streams that cannot take `sendfile` (TLS, WebSocket, in-memory).
    pub copied_bytes: AtomicU64,
    /// Requests refused as malformed (each closed its connection).
    pub bad_requests: AtomicU64,
    /// Connections refused because their source address had
    /// `max_connections_per_address` open.
    pub refused_by_address: AtomicU64,
    /// Authentications (or client certificates) refused because the
    /// principal had `max_connections_per_principal` open.
    pub refused_by_principal: AtomicU64,
    /// Topic creations refused by `max_topics_per_principal` or `max_partitions`.
    pub topics_refused: AtomicU64,
    /// First commits of a group for a partition refused by
    /// `max_group_offsets_per_principal`.
    pub group_offsets_refused: AtomicU64,
    /// Topic and group-offset creations refused by
    /// `creations_per_minute_per_address`.
    pub creations_refused: AtomicU64,
    /// Batches handed out by `Claim` (a retry answered with its batch
    /// again is not counted).
    pub claims: AtomicU64,
    /// Claims refused `RateLimited`, by the rate that refused them:
    /// `[claims_per_minute_per_principal, claims_per_minute_per_address]`.
    pub claims_refused: [AtomicU64; 2],
    /// Produce answers delayed by `produce_bytes_per_sec`.
    pub produce_throttled: AtomicU64,
    /// Fetch answers delayed by `fetch_bytes_per_sec`.
    pub fetch_throttled: AtomicU64,
    /// Long polls answered at once because `max_parked_fetches` were parked.
    pub fetches_not_parked: AtomicU64,
    /// Fetches asking `min_bytes > 1` answered with at least that many
    /// bytes (or all one answer holds).
    pub fetches_held_filled: AtomicU64,
    /// Fetches asking `min_bytes > 1` answered with fewer: their
    /// `min_wait_ms` or `max_wait_ms` ended (or over `max_parked_fetches`).
    pub fetches_held_expired: AtomicU64,
    /// Fetches refused over a WebSocket because the batch at their offset
    /// is larger than one message holds (`ws_max_message`).
    pub fetch_too_large_for_ws: AtomicU64,
    /// WebSocket upgrades accepted.
    pub ws_upgrades: AtomicU64,
    /// HTTP requests on a WebSocket listener refused (bad upgrade, origin
    /// not allowed, no subprotocol, stalled or oversized request head).
    pub ws_refused: AtomicU64,
    /// WebSocket connections closed for a violation (text message, not one
    /// frame per message, oversized, unmasked, ping flood, bad close frame).
    pub ws_violations: AtomicU64,
    /// Static files served from `web_root`.
    pub files_served: AtomicU64,
    /// Times a connection stopped reading to wait for `receive_budget_bytes`.
    pub receive_budget_waits: AtomicU64,
    /// Connections waiting for `receive_budget_bytes` right now.
    pub receive_budget_waiting: AtomicU64,
    /// From a produce request to its answer (after the fsync that makes
    /// it durable, for durable acks), in nanoseconds.
    pub produce_latency: Histogram,
    /// From a fetch request to its answer, for fetches answered without
    /// waiting for data (a long poll's wait is not latency), in nanoseconds.
    pub fetch_latency: Histogram,
    /// Long polls parked right now, waiting for data or their deadline.
    pub fetches_parked: AtomicU64,
    /// Authentications refused, by [`AuthError::reason`](crate::auth::AuthError::reason).
    pub auth_failures: [AtomicU64; crate::auth::AuthError::REASONS.len()],
    /// Authentications accepted with mechanism 1 (unbound: a relay could
    /// have passed them on), where authentication is optional.
    pub auth_unbound: AtomicU64,
    /// Requests refused `Unauthorized` by the access rules.
    pub unauthorized: AtomicU64,
    /// Connections closed because their queued answers did not move for
    /// `write_stall_timeout_ms`.
    pub write_stalls: AtomicU64,
    /// Connections refused at their hello because
    /// `max_unauthenticated_connections` were waiting to authenticate.
    pub refused_unauthenticated: AtomicU64,
    /// Connections closed for not authenticating within `auth_timeout_ms`.
    pub auth_timeouts: AtomicU64,
}

impl Metrics {
    /// Read a counter.
    pub fn get(counter: &AtomicU64) -> u64 {
        counter.load(Ordering::Relaxed)
    }
}
