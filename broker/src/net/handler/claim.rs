//! Claim: hand the first durable batch at or after a partition's claim
//! position to this claimer and no other ([`Engine::claim`]), answered
//! once the moved position is durable in `__claims` (parked until then,
//! as a commit is) — so no crash hands a batch out twice, and a claimer
//! whose answer was lost asks again with the same claim id and gets the
//! same batch. Under `fsync = never` it is answered at once, with no crash
//! guarantee (nothing is ever durable there).
//!
//! A claim never creates its topic (`UnknownTopic`). New batches are
//! counted against the caller's `claims_per_minute_per_principal` and its
//! address's `claims_per_minute_per_address`, both or neither; a retry of
//! a remembered claim, and a claim that finds nothing, cost nothing.
//!
//! [`Engine::claim`]: crate::engine::Engine::claim

use std::sync::atomic::Ordering;

use bytes::Bytes;
use hermit_protocol::frame::{Claim, RESPONSE_HEADER_LEN};
use hermit_protocol::{Op, Status};
use tokio::time::Instant;

use crate::auth::Action;
use crate::engine::{ClaimAnswer, ClaimRequest, FsyncPolicy};
use crate::net::access::Access;
use crate::net::pending::{AckBody, PendingAck};
use crate::net::quota::{ClaimLimit, ClaimRefusal};
use crate::net::request::OpHandler;
use crate::net::session::Session;

/// The Claim handler.
pub(in crate::net) struct Handler;

/// Bytes of a claim answer's body before its batch: offset, next, length.
const CLAIMED_FIXED_LEN: usize = 8 + 8 + 4;

impl OpHandler for Handler {
    const OP: Op = Op::Claim;
    type Request<'a> = Claim<'a>;

    fn access<'r>(c: &'r Self::Request<'_>) -> Access<'r> {
        Access::Topic(Action::Claim, c.topic.as_str())
    }

    async fn handle(s: &mut Session, corr: u32, c: Self::Request<'_>) {
        let received = Instant::now();
        let part = match s.existing_partition(c.topic.as_str(), c.partition).await {
            Ok(p) => p,
            Err(e) => return s.storage_error(corr, Op::Claim, &e),
        };
        let never = s.shared.engine.options().fsync == FsyncPolicy::Never;
        let req = ClaimRequest {
            id: c.claim_id,
            principal: s.who.principal().map_or([0; 32], |p| *p.as_bytes()),
            durable_only: !never,
            // The answer is assembled in memory and sent as one frame.
            max_batch: s
                .max_frame()
                .saturating_sub(RESPONSE_HEADER_LEN - 4 + CLAIMED_FIXED_LEN) as u64,
        };
        // The rates are taken under the claim's lock, once a new batch is
        // found; what refused is kept for the answer.
        let counted = !s.uncounted();
        let (quotas, who, ip) = (s.shared.quotas.clone(), s.who.principal(), s.peer.ip());
        let mut refused: Option<ClaimRefusal> = None;
        let admit = || {
            if !counted {
                return true;
            }
            quotas
                .take_claim(who, ip)
                .map_err(|r| refused = Some(r))
                .is_ok()
        };
        let answer = s
            .shared
            .engine
            .claim(&part, req, admit, &mut s.scratch)
            .await;
        match answer {
            Ok(ClaimAnswer::Claimed {
                offset,
                next,
                batch,
                durable_at,
                new,
            }) => {
                if new {
                    s.shared.metrics.claims.fetch_add(1, Ordering::Relaxed);
                }
                answer_claimed(s, corr, (offset, next, batch), durable_at, never, received);
            }
            Ok(ClaimAnswer::Nothing { position, end }) => {
                let msg = format!(
                    "every durable batch of {}/{} is claimed (claim position {position}, \
                     durable end {end})",
                    c.topic.as_str(),
                    c.partition
                );
                s.error(corr, Op::Claim as u8, Status::NothingToClaim, &msg, None);
            }
            Ok(ClaimAnswer::TooLarge { offset, len }) => {
                let msg = format!(
                    "the batch at offset {offset} is {len} bytes, more than one answer on this \
                     connection carries: claim it over TCP, or raise ws_max_message"
                );
                s.error(corr, Op::Claim as u8, Status::PayloadTooLarge, &msg, None);
            }
            Ok(ClaimAnswer::Refused) => match refused {
                Some(r) => rate_limited(s, corr, r),
                // The engine refuses only when `admit` said no, which
                // records why; answered all the same.
                None => s.error(corr, Op::Claim as u8, Status::RateLimited, "rate limited", None),
            },
            Err(e) => s.storage_error(corr, Op::Claim, &e),
        }
    }
}

/// Answer a claimed batch once its claim is durable in `__claims` (at once
/// when it already is, or under `fsync = never`).
fn answer_claimed(
    s: &mut Session,
    corr: u32,
    (offset, next, batch): (u64, u64, Bytes),
    durable_at: u64,
    never: bool,
    received: Instant,
) {
    let claims = s.shared.engine.claims_partition().clone();
    let body = AckBody::Claim {
        offset,
        next,
        batch,
    };
    if never || claims.synced_offset() >= durable_at {
        s.respond(corr, &body.response());
        return;
    }
    s.acks.push_back(PendingAck {
        correlation_id: corr,
        partition: claims,
        need: durable_at,
        not_before: None,
        body,
        received,
    });
}

/// Answer a claim refused by a claim rate: nothing was handed out. The
/// audit log names the caller and the rate, never the claim id.
fn rate_limited(s: &mut Session, corr: u32, r: ClaimRefusal) {
    s.shared.metrics.claims_refused[r.limit as usize].fetch_add(1, Ordering::Relaxed);
    let key = r.limit.key();
    tracing::debug!(target: "audit", peer = %s.peer, who = %s.who, limit = key, per_minute = r.per_minute, "claim refused: {key} reached");
    let whose = match r.limit {
        ClaimLimit::PerPrincipal => s.who.to_string(),
        ClaimLimit::PerAddress => "this address".to_owned(),
    };
    let msg = format!(
        "{whose} has claimed {key} ({}) batches in the last minute; nothing was claimed: \
         retry in {} s",
        r.per_minute,
        (r.wait.as_secs_f64().ceil() as u64).max(1)
    );
    s.error(corr, Op::Claim as u8, Status::RateLimited, &msg, None);
}
