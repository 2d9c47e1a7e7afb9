//! Authenticate: check the proof of a principal's key against this
//! connection's nonce, the broker id, the broker's names and the
//! connection's TLS channel; on success the connection runs as
//! that principal from then on. A failure is answered `Unauthorized` and
//! ends the connection (its nonce is spent: a retry needs a new connection).

use std::sync::atomic::Ordering;

use hermit_protocol::auth::MECHANISM_P256_ECDSA;
use hermit_protocol::frame::{Authenticate, ResponseBody};
use hermit_protocol::hello::VERSION_3;
use hermit_protocol::{Op, Status};

use crate::auth::{Challenge, verify_authenticate};
use crate::net::access::Access;
use crate::net::request::OpHandler;
use crate::net::session::{Closing, Session};

/// The Authenticate handler.
pub(in crate::net) struct Handler;

impl OpHandler for Handler {
    const OP: Op = Op::Authenticate;
    type Request<'a> = Authenticate<'a>;

    fn access<'r>(_: &'r Self::Request<'_>) -> Access<'r> {
        Access::Anyone
    }

    async fn handle(s: &mut Session, corr: u32, a: Self::Request<'_>) {
        let op = Op::Authenticate as u8;
        if s.version < VERSION_3 {
            return s.bad_input(
                Some(corr),
                Some(op),
                Status::InvalidRequest,
                "Authenticate needs protocol version 3",
            );
        }
        if s.who.principal().is_some() {
            return s.error(
                corr,
                op,
                Status::InvalidRequest,
                "this connection is already authenticated",
                None,
            );
        }
        let broker_id = *s.shared.broker_id.as_bytes();
        let challenge = Challenge {
            nonce: &s.nonce,
            broker_id: &broker_id,
            arrived_at: s.arrival.arrived_at,
            tls_exporter: s.arrival.tls_exporter.as_ref(),
        };
        match verify_authenticate(&a, &challenge, &s.shared.proof_policy) {
            Ok(p) => {
                if a.mechanism == MECHANISM_P256_ECDSA {
                    s.shared.metrics.auth_unbound.fetch_add(1, Ordering::Relaxed);
                    tracing::warn!(target: "audit", peer = %s.peer, principal = %p, "authenticated with mechanism 1, which a relay could have passed on: upgrade the client");
                }
                if !s.take_principal_permit(corr, op, p) {
                    return;
                }
                s.who = s.shared.acl.who(Some(p));
                s.unauthenticated = None;
                tracing::info!(target: "audit", peer = %s.peer, principal = %p, admin = s.who.is_admin(), "authenticated");
                s.respond(
                    corr,
                    &ResponseBody::Authenticate {
                        principal: *p.as_bytes(),
                    },
                );
            }
            Err(e) => {
                s.shared.metrics.auth_failures[e.reason()].fetch_add(1, Ordering::Relaxed);
                tracing::warn!(target: "audit", peer = %s.peer, error = %e, "authentication failed");
                s.error(
                    corr,
                    op,
                    Status::Unauthorized,
                    &format!("authentication failed: {e}"),
                    None,
                );
                s.begin_closing(Closing::BadInput);
            }
        }
    }
}
