//! What the requests of one connection share, and the answers every
//! handler gives through it.
//!
//! A [`Session`] is owned by its connection's task: who the requests run as,
//! the output queue, the durable acks and long polls waiting, the ListTopics
//! cursors. Handlers (`net::handler`) borrow it for the length of one
//! request; this module holds what more than one of them needs — answering
//! (`respond`, `error`, `storage_error`), access (`allowed`), the partition a
//! request names (with auto-creation and its topic quota), the per-principal
//! permits and the produce throttle, and releasing parked acks.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use hermit_protocol::frame::{self, ErrorBody, ResponseBody};
use hermit_protocol::hello::{NONCE_LEN, PROTOCOL_VERSION};
use hermit_protocol::{Op, Status};
use tokio::sync::{OwnedSemaphorePermit, mpsc};
use tokio::time::Instant;

use super::access::Access;
use super::outbox::Outbox;
use super::pending::{AckBody, PendingAck, PendingFetch};
use super::quota::{self, Permit, TopicPermit};
use super::shared::{Arrival, Shared};
use crate::auth::{Action, AuthMode, Denied, Principal, Who, fresh_nonce};
use crate::engine::{Partition, StorageError};

/// Why a connection stops reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Closing {
    /// The client closed its side.
    PeerClosed,
    /// A request was malformed: answered, then the connection closes.
    BadInput,
    /// The broker is shutting down.
    Shutdown,
    /// Idle for too long.
    Idle,
}

pub(super) struct Session {
    pub(super) shared: Arc<Shared>,
    pub(super) out: Outbox,
    pub(super) acks: VecDeque<PendingAck>,
    pub(super) fetches: Vec<PendingFetch>,
    pub(super) wake_tx: mpsc::UnboundedSender<u32>,
    pub(super) scratch: Vec<u8>,
    pub(super) closing: Option<Closing>,
    /// The connection-level notice to send once everything else is answered.
    pub(super) notice: Option<(Status, &'static str)>,
    /// Who the requests run as: anonymous until an `Authenticate` (or a
    /// client certificate) names a principal.
    pub(super) who: Who,
    /// The client's protocol version (2: no authentication).
    pub(super) version: u8,
    /// This connection's nonce, signed by its `Authenticate`.
    pub(super) nonce: [u8; NONCE_LEN],
    /// How the connection arrived (TLS, certificate principal).
    pub(super) arrival: Arrival,
    /// The client's address, for the audit log.
    pub(super) peer: SocketAddr,
    /// One of the principal's `max_connections_per_principal` permits, held
    /// while the connection runs as that principal.
    pub(super) principal_permit: Option<Permit<Principal>>,
    /// With `auth = "required"`, one of the `max_unauthenticated_connections`
    /// permits, held from the hello until an `Authenticate` succeeds; the
    /// connection must authenticate by `auth_deadline`.
    pub(super) unauthenticated: Option<(OwnedSemaphorePermit, Instant)>,
    /// A throttled produce answer is held until then, and the connection
    /// reads nothing more meanwhile (so the principal's producer slows down
    /// instead of piling requests up here).
    pub(super) throttle_until: Option<Instant>,
    /// ListTopics cursors that stand for names the caller may not see
    /// (newest last, at most [`MAX_CURSORS`]), and the next cursor number.
    pub(super) cursors: VecDeque<(u64, String)>,
    pub(super) next_cursor: u64,
}

/// The op to echo in an error frame: the request's when it is a known one,
/// else Ping's (so every response a client receives has a decodable op; the
/// client matches errors by correlation id).
pub(super) fn known_op(op: Option<u8>) -> u8 {
    op.filter(|&b| Op::from_u8(b).is_ok())
        .unwrap_or(Op::Ping as u8)
}

impl Session {
    /// The session of a connection that arrived as `arrival` from `peer`;
    /// `wake_tx` wakes the connection for a parked long poll.
    pub(super) fn new(
        shared: Arc<Shared>,
        arrival: Arrival,
        peer: SocketAddr,
        sendfile: bool,
        wake_tx: mpsc::UnboundedSender<u32>,
    ) -> Session {
        Session {
            who: shared.acl.who(arrival.principal),
            out: Outbox::with_budget(sendfile, shared.send_budget.clone()),
            shared,
            acks: VecDeque::new(),
            fetches: Vec::new(),
            wake_tx,
            scratch: Vec::new(),
            closing: None,
            notice: None,
            version: PROTOCOL_VERSION,
            nonce: fresh_nonce(),
            arrival,
            peer,
            principal_permit: None,
            unauthenticated: None,
            throttle_until: None,
            cursors: VecDeque::new(),
            next_cursor: 0,
        }
    }

    pub(super) fn in_flight(&self) -> usize {
        self.acks.len() + self.fetches.len() + self.out.len()
    }

    pub(super) fn begin_closing(&mut self, why: Closing) {
        if self.closing.is_some() {
            return;
        }
        self.closing = Some(why);
        // Parked fetches are answered now, with what there is (usually nothing).
        for f in std::mem::take(&mut self.fetches) {
            let (log_start, hw) = f.partition.bounds();
            let header = frame::encode_fetch_header(f.correlation_id, hw, log_start, 0);
            self.out.push_frame(|b| b.extend_from_slice(&header));
        }
        let notice = match why {
            Closing::Shutdown => Some((Status::ShuttingDown, "the broker is shutting down")),
            Closing::Idle => Some((Status::Timeout, "connection idle for too long")),
            Closing::PeerClosed | Closing::BadInput => None,
        };
        self.notice = notice;
    }

    pub(super) fn bad_input(
        &mut self,
        corr: Option<u32>,
        op: Option<u8>,
        status: Status,
        message: &str,
    ) {
        self.shared
            .metrics
            .bad_requests
            .fetch_add(1, Ordering::Relaxed);
        tracing::debug!(%status, message, "bad request; closing the connection");
        self.error(corr.unwrap_or(0), known_op(op), status, message, None);
        self.begin_closing(Closing::BadInput);
    }

    pub(super) fn error(
        &mut self,
        corr: u32,
        op: u8,
        status: Status,
        message: &str,
        bounds: Option<(u64, u64)>,
    ) {
        let body = ErrorBody {
            status,
            message,
            bounds,
        };
        self.out.push_frame(|b| {
            // Only fails for status Ok, which is never passed here.
            let _ = frame::encode_error(corr, op, &body, b);
        });
    }

    pub(super) fn storage_error(&mut self, corr: u32, op: Op, e: &StorageError) {
        let bounds = match e {
            StorageError::OffsetOutOfRange {
                log_start,
                high_watermark,
                ..
            } => Some((*log_start, *high_watermark)),
            StorageError::EndMoved { log_start, end, .. } => Some((*log_start, *end)),
            _ => None,
        };
        self.error(corr, op as u8, e.status(), &e.to_string(), bounds);
        if matches!(e, StorageError::InvalidBatch(_)) {
            // A batch that fails its CRC or limits is bad input: close.
            self.shared
                .metrics
                .bad_requests
                .fetch_add(1, Ordering::Relaxed);
            self.begin_closing(Closing::BadInput);
        }
    }

    pub(super) fn respond(&mut self, corr: u32, body: &ResponseBody<'_>) {
        self.out.push_frame(|b| {
            // Encoding fails only for values past u32 lengths, which no
            // response body built here can reach.
            let _ = frame::encode_response(corr, body, b);
        });
    }

    /// Whether the caller may do `action` on `topic`. (Internal `__…`
    /// topics never get here: the protocol refuses their names.)
    pub(super) fn check(&self, action: Action, topic: &str) -> Result<(), Denied> {
        self.shared.acl.check(&self.who, action, topic)
    }

    /// Answer a refused request with `Unauthorized` naming the action, the
    /// topic and the caller. The connection stays open; nothing was done.
    fn deny(&mut self, corr: u32, op: Op, denied: &Denied) {
        let mut msg = denied.to_string();
        if self.who.is_anonymous() && self.shared.acl.mode().requires_principal() {
            msg.push_str(" (the broker requires authentication)");
        }
        tracing::debug!(target: "audit", peer = %self.peer, who = %self.who, %msg, "request refused");
        self.shared
            .metrics
            .unauthorized
            .fetch_add(1, Ordering::Relaxed);
        self.error(corr, op as u8, Status::Unauthorized, &msg, None);
    }

    /// Check what a request needs (its handler's [`Access`]), answering a
    /// refusal; true when allowed.
    pub(super) fn allowed(&mut self, corr: u32, op: Op, access: Access<'_>) -> bool {
        let r = match access {
            Access::Anyone => Ok(()),
            Access::Topic(action, topic) => self.check(action, topic),
            Access::Group { group, topic } => self
                .check(Action::Consume, topic)
                .and_then(|()| self.shared.acl.check_group(&self.who, group, topic)),
        };
        match r {
            Ok(()) => true,
            Err(d) => {
                self.deny(corr, op, &d);
                false
            }
        }
    }

    /// The partition, creating the topic (off the async threads) when
    /// auto-creation is on, the caller may create it and has a
    /// `max_topics_per_principal` permit left. A failure is answered to
    /// request `corr` here, and gives `None`.
    pub(super) async fn partition(
        &mut self,
        corr: u32,
        op: Op,
        topic: &str,
        partition: u32,
    ) -> Option<Arc<Partition>> {
        let first = self.existing_partition(topic, partition).await;
        let res = match first {
            Err(StorageError::UnknownTopic(t))
                if self.shared.engine.options().auto_create
                    && self.check(Action::Create, topic).is_err() =>
            {
                Err(StorageError::UnknownTopic(format!(
                    "{t} (and {} may not create it)",
                    self.who
                )))
            }
            Err(StorageError::UnknownTopic(_)) if self.shared.engine.options().auto_create => {
                let permit = match self.topic_permit(topic) {
                    Ok(permit) => permit,
                    Err(msg) => {
                        self.error(corr, op as u8, Status::Unauthorized, &msg, None);
                        return None;
                    }
                };
                // With slots, creating a topic and opening its new partition
                // reads nothing: no need to leave the async thread.
                let res = match self.shared.engine.auto_create_in_slot(topic, partition) {
                    Ok(Some(p)) => Ok(p),
                    Err(e) => Err(e),
                    Ok(None) => {
                        self.shared
                            .engine
                            .partition_off_thread(topic, partition, true)
                            .await
                    }
                };
                // Charged whenever the topic now exists, whatever became of
                // the request (a partition the new topic lacks still made
                // the topic); `keep` charges nobody for a topic someone
                // else's creation recorded first.
                if let Some(permit) = permit
                    && (res.is_ok() || self.shared.engine.topic(topic).is_some())
                {
                    permit.keep(topic);
                }
                res
            }
            other => other,
        };
        match res {
            Ok(p) => Some(p),
            Err(e) => {
                self.storage_error(corr, op, &e);
                None
            }
        }
    }

    /// The partition of a topic that exists, opened if it is closed (off
    /// the async threads); never creates anything.
    pub(super) async fn existing_partition(
        &self,
        topic: &str,
        partition: u32,
    ) -> Result<Arc<Partition>, StorageError> {
        match self.shared.engine.partition_if_open(topic, partition) {
            Ok(Some(p)) => Ok(p),
            Ok(None) => {
                // Closed: opening it reads its directory and recovers its
                // active segment — off the async threads.
                self.shared
                    .engine
                    .partition_off_thread(topic, partition, false)
                    .await
            }
            Err(e) => Err(e),
        }
    }

    /// The largest response frame this connection sends (after the length
    /// prefix): what its hello announced, so a client that accepts our
    /// requests' frames accepts our pages too.
    pub(super) fn max_frame(&self) -> usize {
        self.arrival
            .max_frame
            .unwrap_or(self.shared.limits.max_frame) as usize
    }

    /// Count this connection against `p`'s `max_connections_per_principal`;
    /// over the cap the request (`corr`, or the connection itself with
    /// correlation id 0) is answered `Unauthorized` and the connection
    /// ends. True when the permit was taken.
    pub(super) fn take_principal_permit(&mut self, corr: u32, op: u8, p: Principal) -> bool {
        match self.shared.quotas.principal_permit(p) {
            Some(permit) => {
                self.principal_permit = Some(permit);
                true
            }
            None => {
                self.shared
                    .metrics
                    .refused_by_principal
                    .fetch_add(1, Ordering::Relaxed);
                let max = self.shared.options.quotas.max_connections_per_principal;
                tracing::debug!(target: "audit", peer = %self.peer, principal = %p, max, "connection refused: max_connections_per_principal reached");
                let msg = format!(
                    "principal {p} already has max_connections_per_principal ({max}) connections open"
                );
                self.error(corr, op, Status::Unauthorized, &msg, None);
                self.begin_closing(Closing::BadInput);
                false
            }
        }
    }

    /// Take one of the caller's `max_topics_per_principal` permits, and one
    /// creation of its address's `creations_per_minute_per_address`, before
    /// creating `topic`. Not counted: admins (they may do anything), and
    /// everyone with `auth = "off"` (no principals, loopback only: the
    /// broker's behaviour before access control, topics without a cap).
    /// `Err` is the refusal's message (nothing taken).
    pub(super) fn topic_permit(&mut self, topic: &str) -> Result<Option<TopicPermit>, String> {
        if self.uncounted() {
            return Ok(None);
        }
        let Some(permit) = self.shared.quotas.topic_permit(self.who.principal()) else {
            self.shared
                .metrics
                .topics_refused
                .fetch_add(1, Ordering::Relaxed);
            let max = self.shared.quotas.max_topics();
            tracing::debug!(target: "audit", peer = %self.peer, who = %self.who, topic, max, "topic creation refused: max_topics_per_principal reached");
            return Err(format!(
                "{} has created max_topics_per_principal ({max}) topics; {topic} was not created",
                self.who
            ));
        };
        self.take_creation(&format!("topic {topic}"))?;
        Ok(Some(permit))
    }

    /// Count a group offset the caller is about to create (the first commit
    /// of `group` for `topic`/`partition`) against its
    /// `max_group_offsets_per_principal` and its address's
    /// `creations_per_minute_per_address`; not counted as for topics.
    /// `Err` is the refusal's message.
    pub(super) fn group_offset_permit(
        &mut self,
        group: &str,
        topic: &str,
        partition: u32,
    ) -> Result<(), String> {
        if self.uncounted() {
            return Ok(());
        }
        // The rate first: a refusal by it takes nothing from the quota.
        self.take_creation(&format!("an offset of group {group}"))?;
        if self.shared.quotas.take_group_offset(self.who.principal()) {
            return Ok(());
        }
        self.shared
            .metrics
            .group_offsets_refused
            .fetch_add(1, Ordering::Relaxed);
        let max = self.shared.quotas.max_group_offsets();
        tracing::debug!(target: "audit", peer = %self.peer, who = %self.who, group, topic, partition, max, "commit refused: max_group_offsets_per_principal reached");
        Err(format!(
            "{} has created max_group_offsets_per_principal ({max}) group offsets; group {group} \
             has no offset for {topic}/{partition} and was not given one",
            self.who
        ))
    }

    /// Admins, and everyone with `auth = "off"`, create (and claim)
    /// without quotas.
    pub(super) fn uncounted(&self) -> bool {
        self.who.is_admin() || self.shared.acl.mode() == AuthMode::Off
    }

    /// Take one creation from the caller's source address
    /// (`creations_per_minute_per_address`); `what` names what would have
    /// been created, for the refusal's message.
    fn take_creation(&mut self, what: &str) -> Result<(), String> {
        let Err((per_minute, wait)) = self.shared.quotas.take_creation(self.peer.ip()) else {
            return Ok(());
        };
        self.shared
            .metrics
            .creations_refused
            .fetch_add(1, Ordering::Relaxed);
        tracing::debug!(target: "audit", peer = %self.peer, who = %self.who, per_minute, "creation refused: creations_per_minute_per_address reached");
        Err(format!(
            "this address has created creations_per_minute_per_address ({per_minute}) topics \
             and group offsets in the last minute; {what} was not created: retry in {} s",
            wait.as_secs().max(1)
        ))
    }

    /// Charge a produce of `bytes` to the caller's `produce_bytes_per_sec`;
    /// when over, the instant its answer is held until (and the connection
    /// stops reading until then).
    pub(super) fn throttle_produce(&mut self, bytes: usize) -> Option<Instant> {
        let delay = self
            .shared
            .quotas
            .charge_produce(self.who.principal(), bytes as u64);
        if delay.is_zero() {
            return None;
        }
        self.shared
            .metrics
            .produce_throttled
            .fetch_add(1, Ordering::Relaxed);
        self.shared
            .quotas
            .note_throttled(self.who.principal(), quota::Direction::Produce);
        tracing::debug!(target: "audit", peer = %self.peer, who = %self.who, delay_ms = delay.as_millis() as u64, "produce throttled: produce_bytes_per_sec exceeded");
        let until = Instant::now() + delay;
        self.throttle_until = Some(self.throttle_until.map_or(until, |t| t.max(until)));
        Some(until)
    }

    /// Answer every parked ack whose write is now durable (and whose
    /// throttling delay, if any, is over).
    pub(super) fn release_acks(&mut self) {
        let now = Instant::now();
        let mut i = 0;
        while i < self.acks.len() {
            let a = &self.acks[i];
            let durable = a.partition.synced_offset() >= a.need;
            if durable && a.not_before.is_none_or(|t| t <= now) {
                let a = self.acks.remove(i).expect("invariant: index is in bounds");
                if matches!(
                    a.body,
                    AckBody::Produce { .. } | AckBody::ConditionalProduce { .. }
                ) {
                    self.shared
                        .metrics
                        .produce_latency
                        .observe_duration(a.received.elapsed());
                }
                self.respond(a.correlation_id, &a.body.response());
            } else if !durable && let Some(reason) = a.partition.failure() {
                let a = self.acks.remove(i).expect("invariant: index is in bounds");
                let op = a.body.op();
                let e = StorageError::Failed {
                    topic: a.partition.topic().to_owned(),
                    partition: a.partition.id(),
                    reason,
                };
                self.storage_error(a.correlation_id, op, &e);
            } else {
                i += 1;
            }
        }
    }

    pub(super) fn fail_acks(&mut self, reason: &str) {
        for a in std::mem::take(&mut self.acks) {
            self.error(
                a.correlation_id,
                a.body.op() as u8,
                Status::StorageError,
                reason,
                None,
            );
        }
    }
}
