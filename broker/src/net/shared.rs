//! What every connection of a server shares, and how one arrived.

use std::net::IpAddr;
use std::sync::Arc;

use hermit_protocol::auth::TLS_EXPORTER_LEN;
use hermit_protocol::frame::Limits;
use tokio::sync::{Semaphore, watch};

use super::http::Origins;
use super::metrics::Metrics;
use super::options::ServerOptions;
use super::quota;
use super::send_budget::SendBudget;
use crate::auth::{Acl, BrokerId, Principal, ProofPolicy};
use crate::engine::Engine;

/// How a connection arrived, as far as access control cares.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Arrival {
    /// The broker's own address the connection arrived at (`None` for a
    /// stream handed to `serve_stream`): loopback names are served only
    /// on loopback, and a loopback address only as itself.
    pub(super) arrived_at: Option<IpAddr>,
    /// Over TLS (announced in the hello).
    pub(super) tls: bool,
    /// The principal a verified client certificate named.
    pub(super) principal: Option<Principal>,
    /// On TLS 1.3, the connection's `tls-exporter` value (RFC 9266), which
    /// an `Authenticate` that signed a channel binding must match.
    pub(super) tls_exporter: Option<[u8; TLS_EXPORTER_LEN]>,
    /// A smaller largest frame than the broker's (a WebSocket's
    /// `ws_max_message`): announced in the hello and capping fetch answers.
    pub(super) max_frame: Option<u32>,
}

impl Arrival {
    /// A plain TCP connection accepted by a socket bound to `local`.
    pub(super) fn at(local: Option<IpAddr>) -> Arrival {
        Arrival {
            arrived_at: local.map(|ip| ip.to_canonical()),
            ..Arrival::default()
        }
    }
}

/// What every connection shares.
pub(super) struct Shared {
    /// The log and the group offsets: everything the requests read and write.
    pub(super) engine: Arc<Engine>,
    pub(super) options: ServerOptions,
    pub(super) limits: Limits,
    pub(super) metrics: Arc<Metrics>,
    /// Set to true when the server shuts down; every connection watches it,
    /// whichever way its stream was accepted.
    pub(super) stop: watch::Sender<bool>,
    /// `max_connections` permits, one held by each open connection.
    pub(super) permits: Arc<Semaphore>,
    /// Who may do what (compiled once from `auth`, `admins` and `acl`).
    pub(super) acl: Acl,
    /// Signed by every `Authenticate`, so a signature is good for this broker only.
    pub(super) broker_id: BrokerId,
    /// What an `Authenticate` must name and bind besides its signature.
    pub(super) proof_policy: ProofPolicy,
    /// Receive budget, byte rates and the per-principal and per-address caps.
    pub(super) quotas: Arc<quota::Quotas>,
    /// `max_unauthenticated_connections` permits (with `auth = "required"`),
    /// one held by each connection from its hello to its `Authenticate`.
    pub(super) unauthenticated: Arc<Semaphore>,
    /// `send_budget_bytes`: answers queued by every connection together.
    pub(super) send_budget: Arc<SendBudget>,
    /// Who may open WebSocket connections from a browser.
    pub(super) origins: Origins,
}
