//! Admission: counting a socket just accepted against the connection caps
//! (`max_connections_per_address`, `max_connections`), before anything is
//! read from it. The front door (`accept`) admits; the connection holds what
//! it was admitted with until it closes.

use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::Ordering;

use tokio::sync::OwnedSemaphorePermit;

use super::quota::Permit;
use super::shared::Shared;

/// What a connection holds from its accept to its close: one of its
/// address's `max_connections_per_address` and one of the broker's
/// `max_connections`. Taken at accept — before a TLS handshake or a
/// WebSocket upgrade — so a socket that never finishes one still counts.
pub(super) struct Admitted {
    _address: Permit<IpAddr>,
    _connection: OwnedSemaphorePermit,
}

/// Count a socket just accepted from `peer` against the caps; `Err` (the
/// refusal's message, counted and logged) when it is over one.
pub(super) fn admit(shared: &Shared, peer: SocketAddr) -> Result<Admitted, &'static str> {
    shared
        .metrics
        .connections_accepted
        .fetch_add(1, Ordering::Relaxed);
    let Some(address) = shared.quotas.address_permit(peer.ip()) else {
        shared
            .metrics
            .refused_by_address
            .fetch_add(1, Ordering::Relaxed);
        tracing::debug!(
            target: "audit",
            %peer,
            max = shared.options.quotas.max_connections_per_address,
            "connection refused: max_connections_per_address reached for this address"
        );
        return Err("this address has reached max_connections_per_address; retry later");
    };
    match shared.permits.clone().try_acquire_owned() {
        Ok(connection) => Ok(Admitted {
            _address: address,
            _connection: connection,
        }),
        Err(_) => {
            shared
                .metrics
                .connections_refused
                .fetch_add(1, Ordering::Relaxed);
            tracing::warn!(%peer, max = shared.options.max_connections, "connection limit reached; refusing");
            Err("the broker has reached max_connections; retry later")
        }
    }
}
