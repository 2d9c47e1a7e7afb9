//! Reading a partition over NATS: a *puller* is an ephemeral pull consumer
//! (acks off, state in memory) started at the stream sequence a fetch asks
//! for, with its own inbox subscription.
//!
//! A fetch takes the puller that stands where it wants to read (the one the
//! previous fetch of the same reader left there) or opens a new one, sends
//! pull requests (`batch`, `max_bytes`, `expires`) so that at most two are
//! outstanding, waits up to `max_wait` for the first message and then takes
//! what has already arrived, up to `max_bytes`. What arrives after that
//! stays in the subscription for the next fetch: at most two pull requests'
//! worth, so an idle puller holds at most about `2 × max_bytes`. Idle
//! pullers are closed after [`IDLE_LIMIT`](super::pool::IDLE_LIMIT) (see `pool`).
//!
//! Nothing is acknowledged, so nothing is redelivered; a message lost in
//! transit (the connection dropped while a pull was answered) shows as a gap
//! in the consumer sequence, and the puller is then discarded: the reader
//! reopens one at its own position. The same happens when the consumer's
//! server goes away (the pull is answered "no responders").

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use async_nats::StatusCode;
use async_nats::jetstream::consumer::{self, AckPolicy, DeliverPolicy, ReplayPolicy};
use bytes::{Bytes, BytesMut};
use futures_util::{FutureExt as _, StreamExt as _};
use hermit_protocol::Status;
use tokio::time::Instant;

use super::message::{Meta, append_batch, meta};
use crate::error::ClientError;
use crate::records::FetchResponse;
use crate::transport::nats_offset::NatsOffset;

/// The server forgets a puller's consumer after this long without pulls
/// (a client that died without deleting it).
const INACTIVE_THRESHOLD: Duration = Duration::from_secs(60);
/// Messages per pull request (bytes are bounded by the fetch's `max_bytes`).
const PULL_BATCH: usize = 1024;
/// Pull requests live at least this long on the server…
const MIN_EXPIRES: Duration = Duration::from_millis(100);
/// …and at most this long.
const MAX_EXPIRES: Duration = Duration::from_secs(30);
/// A pull request not answered this long after it expired is taken as lost
/// (its server went away): short, since taking a live one for lost costs
/// only one more pull request.
const GRACE: Duration = Duration::from_millis(500);
/// A fetch asked not to wait still gives messages in transit this long to
/// arrive (NATS has no "what is there now" that also keeps the puller).
const MIN_FIRST_WAIT: Duration = Duration::from_millis(50);
/// Once a message has arrived and the server said more are pending, wait
/// this long for the next one before answering with what is there.
const PENDING_WAIT: Duration = Duration::from_millis(250);
/// In a cluster the consumer is made on another server than the one this
/// client talks to, and the interest in its pull subject reaches this
/// server through the routes a moment later: until then a pull request is
/// answered "no responders". For this long after it was opened, and
/// before its first message, a puller takes that answer as "not yet" …
const NEW_CONSUMER_GRACE: Duration = Duration::from_secs(2);
/// … and pulls again after this pause (not counted against `max_wait`).
const NEW_CONSUMER_RETRY: Duration = Duration::from_millis(20);

/// The JetStream metadata in a message's reply subject.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AckInfo<'a> {
    pub stream: &'a str,
    pub stream_seq: u64,
    pub consumer_seq: u64,
    pub pending: u64,
}

/// Parse `$JS.ACK.<stream>.<consumer>.<delivered>.<sseq>.<cseq>.<ts>.<pending>`
/// (and the longer form with domain and account hash).
pub(crate) fn parse_ack(reply: &str) -> Option<AckInfo<'_>> {
    let t: Vec<&str> = reply.split('.').collect();
    if t.len() < 9 || t[0] != "$JS" || t[1] != "ACK" {
        return None;
    }
    let at = if t.len() == 9 { 2 } else { 4 };
    if t.len() < at + 7 {
        return None;
    }
    Some(AckInfo {
        stream: t[at],
        stream_seq: t[at + 3].parse().ok()?,
        consumer_seq: t[at + 4].parse().ok()?,
        pending: t[at + 6].parse().ok()?,
    })
}

/// One outstanding pull request. Each has its own reply subject
/// (`<inbox>.<id>`): a status (expired, byte limit used up) says which
/// request it ends. Messages arrive on their own subject, and fill the
/// requests in the order they were made (the server's waiting queue is
/// first in, first out).
#[derive(Debug)]
struct Pull {
    id: u64,
    msgs: i64,
    bytes: i64,
    batch: usize,
    /// 0: no byte limit.
    max_bytes: usize,
    expires_at: Instant,
}

/// A message read: its stream sequence, batch fields and payload.
pub(crate) struct Got {
    pub seq: u64,
    pub meta: Option<Meta>,
    pub payload: Bytes,
}

impl Got {
    fn count(&self) -> u32 {
        self.meta.as_ref().map_or(1, |m| m.count)
    }
}

#[derive(serde::Serialize)]
struct PullRequest {
    batch: usize,
    #[serde(skip_serializing_if = "is_zero")]
    max_bytes: usize,
    expires: u64,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// One read position on one partition's stream.
pub(crate) struct Puller {
    client: async_nats::Client,
    url: Arc<str>,
    stream: String,
    consumer: String,
    next_subject: String,
    /// Pull requests are answered on `<inbox>.<id>`.
    inbox: String,
    next_pull: u64,
    sub: async_nats::Subscriber,
    /// Sequence the consumer started at.
    start: u64,
    /// (sequence, record count) of the last message read.
    last: Option<(u64, u32)>,
    last_consumer_seq: u64,
    /// Messages the server had after the last one read.
    pending: u64,
    pulls: VecDeque<Pull>,
    /// A message is larger than `max_bytes`: pull it alone, without a byte limit.
    big_next: bool,
    /// (log start, high watermark) as last known.
    bounds: (u64, u64),
    /// Since when it waits in the pool.
    pub(super) idle_since: Instant,
    /// When it was opened ([`NEW_CONSUMER_GRACE`]).
    opened: Instant,
    /// Do not pull before this: the consumer is not reachable yet.
    retry_at: Option<Instant>,
}

impl std::fmt::Debug for Puller {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Puller")
            .field("stream", &self.stream)
            .field("consumer", &self.consumer)
            .field("last", &self.last)
            .finish_non_exhaustive()
    }
}

impl Drop for Puller {
    fn drop(&mut self) {
        // Free the server's consumer now rather than after its inactivity
        // threshold; no answer is awaited (the subscription goes with us).
        let subject = format!("$JS.API.CONSUMER.DELETE.{}.{}", self.stream, self.consumer);
        let client = self.client.clone();
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move {
                let _ = client.publish(subject, Bytes::new()).await;
            });
        }
    }
}

impl Puller {
    /// The consumer configuration of a puller starting at `start`.
    pub(crate) fn config(start: u64) -> consumer::Config {
        consumer::Config {
            description: Some("HermitMQ reader".to_owned()),
            deliver_policy: DeliverPolicy::ByStartSequence {
                start_sequence: start,
            },
            ack_policy: AckPolicy::None,
            replay_policy: ReplayPolicy::Instant,
            inactive_threshold: INACTIVE_THRESHOLD,
            memory_storage: true,
            ..consumer::Config::default()
        }
    }

    /// Open a puller at `start` on `stream` over the consumer the server
    /// created (`info`), checking it is the one asked for (`config`).
    pub(crate) async fn open(
        client: &async_nats::Client,
        url: &str,
        stream: &str,
        start: u64,
        bounds: (u64, u64),
        config: &consumer::Config,
        info: consumer::Info,
    ) -> Result<Puller, ClientError> {
        check_consumer(config, &info)?;
        let lost = |e: &dyn std::fmt::Display| ClientError::lost(url, e.to_string());
        let inbox = client.new_inbox();
        let sub = client
            .subscribe(format!("{inbox}.*"))
            .await
            .map_err(|e| lost(&e))?;
        Ok(Puller {
            client: client.clone(),
            url: Arc::from(url),
            next_subject: format!("$JS.API.CONSUMER.MSG.NEXT.{stream}.{}", info.name),
            stream: stream.to_owned(),
            consumer: info.name,
            inbox,
            next_pull: 0,
            sub,
            start,
            last: None,
            last_consumer_seq: 0,
            pending: 0,
            pulls: VecDeque::new(),
            big_next: false,
            bounds,
            idle_since: Instant::now(),
            opened: Instant::now(),
            retry_at: None,
        })
    }

    /// Whether a fetch at `want` continues where this puller stands.
    pub(super) fn resumes_at(&self, want: NatsOffset) -> bool {
        match self.last {
            None => want.sequence == self.start,
            // The position after a batch is the start of the next sequence
            // (any offset of it: a batch there, if any, is right-aligned).
            Some((seq, _)) => want.sequence == seq + 1,
        }
    }

    fn dead(&self, why: impl std::fmt::Display) -> ClientError {
        ClientError::lost(&self.url, format!("reader on {}: {why}", self.stream))
    }

    /// Drop pull requests that should have been answered by now.
    fn expire_pulls(&mut self, now: Instant) {
        self.pulls.retain(|p| p.expires_at + GRACE > now);
    }

    /// Keep up to two pull requests outstanding.
    async fn top_up(&mut self, max_bytes: usize, max_wait: Duration) -> Result<(), ClientError> {
        let need = match self.pulls.back() {
            None => true,
            Some(p) => {
                // The newest request is half used up: ask for more now, so
                // that the next messages are on their way while these are read.
                self.pulls.len() < 2
                    && (p.msgs < p.batch as i64 / 2
                        || (p.max_bytes > 0 && p.bytes < p.max_bytes as i64 / 2))
            }
        };
        if !need {
            return Ok(());
        }
        if let Some(at) = self.retry_at.take() {
            tokio::time::sleep_until(at).await;
        }
        let expires = max_wait.clamp(MIN_EXPIRES, MAX_EXPIRES);
        let (batch, max_bytes) = if std::mem::take(&mut self.big_next) {
            (1, 0)
        } else {
            (PULL_BATCH, max_bytes)
        };
        let req = PullRequest {
            batch,
            max_bytes,
            expires: u64::try_from(expires.as_nanos()).unwrap_or(u64::MAX),
        };
        let body = serde_json::to_vec(&req).expect("invariant: a plain struct serializes");
        let id = self.next_pull;
        self.next_pull += 1;
        self.client
            .publish_with_reply(
                self.next_subject.clone(),
                format!("{}.{id}", self.inbox),
                body.into(),
            )
            .await
            .map_err(|e| self.dead(format!("pull request not sent: {e}")))?;
        self.pulls.push_back(Pull {
            id,
            msgs: batch as i64,
            bytes: if max_bytes == 0 {
                i64::MAX
            } else {
                max_bytes as i64
            },
            batch,
            max_bytes,
            expires_at: Instant::now() + expires,
        });
        Ok(())
    }

    /// Read up to `max_bytes` (at least one message when any arrives within
    /// `max_wait`).
    pub(crate) async fn read(
        &mut self,
        max_bytes: u32,
        max_wait: Duration,
    ) -> Result<Vec<Got>, ClientError> {
        let max_bytes = (max_bytes as usize).max(1);
        let mut deadline = Instant::now() + max_wait.max(MIN_FIRST_WAIT);
        let mut got: Vec<Got> = Vec::new();
        let mut bytes = 0;
        loop {
            self.expire_pulls(Instant::now());
            self.top_up(max_bytes, max_wait).await?;
            let msg = if got.is_empty() {
                let wake = self
                    .pulls
                    .front()
                    .map_or(deadline, |p| (p.expires_at + GRACE).min(deadline));
                match tokio::time::timeout_at(wake, self.sub.next()).await {
                    Ok(Some(m)) => m,
                    Ok(None) => return Err(self.dead("subscription closed")),
                    Err(_) if Instant::now() >= deadline => break,
                    Err(_) => continue,
                }
            } else if self.pending > 0 {
                // More is stored: it is on its way (or a pull away).
                match tokio::time::timeout(PENDING_WAIT, self.sub.next()).await {
                    Ok(Some(m)) => m,
                    Ok(None) => return Err(self.dead("subscription closed")),
                    Err(_) => break,
                }
            } else {
                match self.sub.next().now_or_never() {
                    Some(Some(m)) => m,
                    Some(None) => return Err(self.dead("subscription closed")),
                    None => break,
                }
            };
            if let Some(g) = self.handle(msg)? {
                bytes += g.payload.len();
                got.push(g);
                if bytes >= max_bytes {
                    break;
                }
            } else if let Some(at) = self.retry_at {
                // Waiting for the consumer to be reachable is not waiting
                // for messages.
                deadline = deadline.max(at + max_wait.max(MIN_FIRST_WAIT));
            }
        }
        Ok(got)
    }

    /// The pull request a status answers (by its reply subject), if it is
    /// still outstanding.
    fn answered(&self, subject: &str) -> Option<usize> {
        let id: u64 = subject
            .strip_prefix(self.inbox.as_str())?
            .strip_prefix('.')?
            .parse()
            .ok()?;
        self.pulls.iter().position(|p| p.id == id)
    }

    fn handle(&mut self, m: async_nats::Message) -> Result<Option<Got>, ClientError> {
        let pull = self.answered(m.subject.as_str());
        match m.status {
            None | Some(StatusCode::OK) => {}
            Some(StatusCode::IDLE_HEARTBEAT) => return Ok(None),
            Some(StatusCode::TIMEOUT | StatusCode::NOT_FOUND) => {
                // The pull request ended (expired, or nothing to give).
                if let Some(i) = pull {
                    self.pulls.remove(i);
                }
                return Ok(None);
            }
            Some(StatusCode::REQUEST_TERMINATED) => {
                let why = m.description.unwrap_or_default();
                let ended = pull.and_then(|i| self.pulls.remove(i));
                if why.contains("MaxBytes") {
                    // The request's byte limit is used up. If it gave
                    // nothing, the next message alone is larger than the
                    // limit: fetch it on its own (a fetch always returns
                    // at least one batch).
                    let gave_nothing = ended.is_some_and(|p| p.msgs == p.batch as i64);
                    self.big_next |= gave_nothing;
                    return Ok(None);
                }
                return Err(self.dead(format!("pull ended: {why}")));
            }
            Some(StatusCode::NO_RESPONDERS)
                if self.last_consumer_seq == 0 && self.opened.elapsed() < NEW_CONSUMER_GRACE =>
            {
                // Not reachable yet from this server (NEW_CONSUMER_GRACE).
                if let Some(i) = pull {
                    self.pulls.remove(i);
                }
                self.retry_at = Some(Instant::now() + NEW_CONSUMER_RETRY);
                return Ok(None);
            }
            Some(StatusCode::NO_RESPONDERS) => {
                return Err(self.dead("its consumer is gone (server left or consumer expired)"));
            }
            Some(other) => {
                return Err(self.dead(format!(
                    "unexpected status {other}: {}",
                    m.description.unwrap_or_default()
                )));
            }
        }
        let Some(ack) = m.reply.as_deref().and_then(parse_ack) else {
            return Err(ClientError::Protocol(
                hermit_protocol::WireError::BadPayload("a JetStream message without its metadata"),
            ));
        };
        if ack.stream != self.stream {
            return Err(self.dead(format!("a message of stream {}", ack.stream)));
        }
        if self.last_consumer_seq != 0 && ack.consumer_seq != self.last_consumer_seq + 1 {
            return Err(self.dead(format!(
                "messages lost in transit (consumer sequence {} after {})",
                ack.consumer_seq, self.last_consumer_seq
            )));
        }
        let floor = self.last.map_or(self.start, |(s, _)| s + 1);
        if ack.stream_seq < floor {
            return Err(self.dead(format!(
                "sequence {} where {floor} or later was due",
                ack.stream_seq
            )));
        }
        self.last_consumer_seq = ack.consumer_seq;
        if let Some(p) = self.pulls.front_mut() {
            p.msgs -= 1;
            p.bytes -= m.length as i64;
            if p.msgs <= 0 {
                self.pulls.pop_front();
            }
        }
        let meta = meta(|name| m.headers.as_ref()?.get(name).map(|v| v.as_str()));
        let got = Got {
            seq: ack.stream_seq,
            meta,
            payload: m.payload,
        };
        self.last = Some((got.seq, got.count()));
        self.pending = ack.pending;
        let next = ack.stream_seq.saturating_add(ack.pending).saturating_add(1);
        self.bounds.1 = self.bounds.1.max(NatsOffset::sequence_start(next));
        Ok(Some(got))
    }
}

/// The fetch answer: rebuilt batches (one copy out of the NATS buffers),
/// without a first message wholly before the offset asked for.
pub(crate) fn response(
    topic: Arc<str>,
    partition: u32,
    want: u64,
    puller: &Puller,
    got: Vec<Got>,
) -> Result<FetchResponse, ClientError> {
    let size: usize = got
        .iter()
        .map(|g| hermit_protocol::record::HEADER_LEN + g.payload.len() + 64)
        .sum();
    let mut buf = BytesMut::with_capacity(size);
    for g in &got {
        if NatsOffset::sequence_start(g.seq + 1) <= want {
            continue; // Wholly before the position asked for.
        }
        append_batch(
            &mut buf,
            NatsOffset::batch_base(g.seq, g.count()),
            g.meta.as_ref(),
            &g.payload,
        )?;
    }
    Ok(FetchResponse {
        topic,
        partition,
        high_watermark: puller.bounds.1,
        log_start: puller.bounds.0,
        batches: buf.freeze(),
    })
}

/// Compare the consumer the server made with the one asked for.
fn check_consumer(want: &consumer::Config, got: &consumer::Info) -> Result<(), ClientError> {
    let c = &got.config;
    let mut diffs = Vec::new();
    if c.deliver_policy != want.deliver_policy {
        diffs.push(format!("deliver_policy = {:?}", c.deliver_policy));
    }
    if c.ack_policy != want.ack_policy {
        diffs.push(format!("ack_policy = {:?}", c.ack_policy));
    }
    if c.memory_storage != want.memory_storage {
        diffs.push(format!("mem_storage = {}", c.memory_storage));
    }
    if c.inactive_threshold != want.inactive_threshold {
        diffs.push(format!("inactive_threshold = {:?}", c.inactive_threshold));
    }
    if !c.filter_subject.is_empty() || !c.filter_subjects.is_empty() || c.durable_name.is_some() {
        diffs.push("a filter or durable name that was not asked for".to_owned());
    }
    if diffs.is_empty() {
        Ok(())
    } else {
        Err(ClientError::Broker {
            status: Status::InvalidRequest,
            message: format!(
                "nats: reader consumer {} on {} was created with other settings than asked: {}",
                got.name,
                got.stream_name,
                diffs.join(", ")
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ack_subjects_in_both_forms() {
        assert_eq!(
            parse_ack("$JS.ACK.HERMIT_chat_0.abc.1.42.7.1700000000000000000.99"),
            Some(AckInfo {
                stream: "HERMIT_chat_0",
                stream_seq: 42,
                consumer_seq: 7,
                pending: 99
            })
        );
        assert_eq!(
            parse_ack("$JS.ACK.hub.ACCHASH.HERMIT_chat_0.abc.1.42.7.1700000000000000000.99.xyz"),
            Some(AckInfo {
                stream: "HERMIT_chat_0",
                stream_seq: 42,
                consumer_seq: 7,
                pending: 99
            })
        );
        assert_eq!(parse_ack("_INBOX.abc"), None);
        assert_eq!(parse_ack("$JS.ACK.s.c.1.x.7.1.9"), None);
    }
}
