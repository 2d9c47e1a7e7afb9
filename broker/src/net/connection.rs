//! One client connection: the hello, then a loop that reads pipelined
//! frames, appends produces in the order they arrive, parks durable acks
//! until group commit covers them and long-polling fetches until data
//! arrives, and writes responses (fetch bodies by `sendfile` or a bounded
//! copy, see `outbox`) as they become ready — in any order, each frame whole.
//!
//! The connection runs over any [`ByteStream`]: a TCP socket, a TLS stream,
//! a WebSocket adapter. It only reads and writes bytes; nothing here depends
//! on what carries them. One task owns the stream and all state; nothing is
//! shared with other connections but the log. Reading stops while too much
//! is in flight, so a client that does not read its responses cannot make
//! the broker buffer without bound, and cannot slow anybody else down.

use std::collections::VecDeque;
use std::future::{Future, poll_fn};
use std::io;
use std::net::SocketAddr;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::{Buf, BytesMut};
use hermit_protocol::frame::Authenticate;
use hermit_protocol::frame::{
    self, ErrorBody, Fetch, FrameCheck, LIST_TOPICS_FIXED_LEN, ListTopics, MAX_LIST_LIMIT,
    METADATA_FIXED_LEN, MIN_TOPIC_METADATA_LEN, PartitionMetadata, ResponseBody, TopicMetadata,
    TopicPage,
};
use hermit_protocol::hello::{
    BrokerFlags, BrokerHello, HELLO_LEN, Hello, NONCE_LEN, PROTOCOL_VERSION, VERSION_3,
};
use hermit_protocol::record::HEADER_LEN;
use hermit_protocol::topic::INTERNAL_PREFIX;
use hermit_protocol::{Ack, Op, Request, RequestFrame, Status};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::{OwnedSemaphorePermit, mpsc, watch};
use tokio::time::Instant;

use super::outbox::Outbox;
use super::quota::{self, Admission, Permit, TopicPermit};
use super::stream::ByteStream;
use super::{Arrival, Metrics, Shared};
use crate::auth::{Action, AuthMode, Denied, Principal, Who, fresh_nonce, verify_authenticate};
use crate::config::FsyncPolicy;
use crate::engine::Served;
use crate::log::{Partition, StorageError};

/// Stop reading new requests while this many bytes of responses wait to be written.
const OUT_HIGH_WATER: usize = 4 << 20;
/// The read buffer is shrunk back when a large frame left it bigger than this.
const RBUF_KEEP: usize = 1 << 20;
/// Initial read buffer.
const RBUF_INITIAL: usize = 64 * 1024;
/// How long a connection the broker ends keeps draining client bytes.
const LINGER: Duration = Duration::from_millis(500);
/// A topic listing looks at no more than this many catalog entries per
/// topic a page may hold: a caller who may describe few of a million topics
/// gets short (even empty) pages with a cursor, never a scan of everything.
const LIST_SCAN_FACTOR: usize = 8;

/// Why a connection stops reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Closing {
    /// The client closed its side.
    PeerClosed,
    /// A request was malformed: answered, then the connection closes.
    BadInput,
    /// The broker is shutting down.
    Shutdown,
    /// Idle for too long.
    Idle,
}

/// What an ack waits for and answers with.
enum AckBody {
    Produce { base_offset: u64 },
    Commit,
}

struct PendingAck {
    correlation_id: u32,
    partition: Arc<Partition>,
    /// Durable once the partition's synced offset reaches this.
    need: u64,
    /// Held until then by `produce_bytes_per_sec` (throttled, never dropped).
    not_before: Option<Instant>,
    body: AckBody,
    /// When the request was taken up (produce latency).
    received: Instant,
}

struct PendingFetch {
    correlation_id: u32,
    partition: Arc<Partition>,
    offset: u64,
    max_bytes: u32,
    deadline: Instant,
    /// When the request was taken up (fetch latency).
    received: Instant,
    /// Counted in `fetches_parked` while it waits for data (kept once
    /// parked: its answer's latency is then a long poll's wait, not counted).
    parked: Option<Parked>,
}

/// One parked long poll in [`Metrics::fetches_parked`], for as long as it lives.
struct Parked(Arc<Metrics>);

impl Parked {
    fn new(metrics: &Arc<Metrics>) -> Parked {
        metrics.fetches_parked.fetch_add(1, Ordering::Relaxed);
        Parked(metrics.clone())
    }
}

impl Drop for Parked {
    fn drop(&mut self) {
        self.0.fetches_parked.fetch_sub(1, Ordering::Relaxed);
    }
}

struct State {
    shared: Arc<Shared>,
    out: Outbox,
    acks: VecDeque<PendingAck>,
    fetches: Vec<PendingFetch>,
    wake_tx: mpsc::UnboundedSender<u32>,
    scratch: Vec<u8>,
    closing: Option<Closing>,
    /// The connection-level notice to send once everything else is answered.
    notice: Option<(Status, &'static str)>,
    /// Who the requests run as: anonymous until an `Authenticate` (or a
    /// client certificate) names a principal.
    who: Who,
    /// The client's protocol version (2: no authentication).
    version: u8,
    /// This connection's nonce, signed by its `Authenticate`.
    nonce: [u8; NONCE_LEN],
    /// How the connection arrived (TLS, certificate principal).
    arrival: Arrival,
    /// The client's address, for the audit log.
    peer: SocketAddr,
    /// One of the principal's `max_connections_per_principal` permits, held
    /// while the connection runs as that principal.
    principal_permit: Option<Permit<Principal>>,
    /// A throttled produce answer is held until then, and the connection
    /// reads nothing more meanwhile (so the principal's producer slows down
    /// instead of piling requests up here).
    throttle_until: Option<Instant>,
    /// ListTopics cursors that stand for names the caller may not see
    /// (newest last, at most [`MAX_CURSORS`]), and the next cursor number.
    cursors: VecDeque<(u64, String)>,
    next_cursor: u64,
}

/// A ListTopics `next` that would name a topic the caller may not
/// describe is replaced by `__cursor.<n>`, which this connection maps back
/// to the name: the cursor never tells a caller a name it may not see.
/// (`__` names are the broker's own: no topic can be called that.)
const CURSOR_PREFIX: &str = "__cursor.";

/// Opaque cursors a connection remembers; older ones expire.
const MAX_CURSORS: usize = 16;

/// Waiting for receive-budget bytes (`None`: the budget is gone, never in practice).
type BudgetWait = Pin<Box<dyn Future<Output = Option<OwnedSemaphorePermit>> + Send>>;

/// What the stream did when the connection waited on it.
enum Io {
    /// Bytes of responses went out (or the last of them were flushed).
    Wrote(usize),
    /// Bytes of requests came in; 0 means the client closed its side.
    Read(usize),
}

/// One turn of waiting on the stream: write what is queued (first, so
/// responses free memory before more requests arrive), else read. A single
/// future for both directions because a generic stream is borrowed mutably
/// by either; `Pending` registers the waker for every direction asked for.
fn poll_io<S: ByteStream>(
    cx: &mut Context<'_>,
    stream: &mut S,
    rbuf: &mut BytesMut,
    out: &mut Outbox,
    metrics: &Metrics,
    (want_write, can_read): (bool, bool),
) -> Poll<io::Result<Io>> {
    if want_write && let Poll::Ready(r) = out.poll_write(cx, stream, metrics) {
        return Poll::Ready(r.map(Io::Wrote));
    }
    if can_read {
        // `read_buf` reads into the buffer's spare capacity; polling it once
        // and dropping it when pending loses nothing (it is cancel safe).
        let read = pin!(stream.read_buf(rbuf));
        if let Poll::Ready(r) = read.poll(cx) {
            return Poll::Ready(r.map(Io::Read));
        }
    }
    Poll::Pending
}

/// A connection, from accept to close.
pub(super) struct Connection<S> {
    stream: S,
    peer: SocketAddr,
    rbuf: BytesMut,
    st: State,
    wake_rx: mpsc::UnboundedReceiver<u32>,
    sync_rx: watch::Receiver<u64>,
    shutdown: watch::Receiver<bool>,
    _permit: OwnedSemaphorePermit,
    /// Receive budget held for the large frame being read into `rbuf`.
    recv_permit: Option<OwnedSemaphorePermit>,
    /// Set while the connection waits for receive budget (and reads nothing).
    budget_wait: Option<BudgetWait>,
}

impl<S: ByteStream> Connection<S> {
    /// A connection over `stream`, already accepted (and, for TLS or
    /// WebSocket, already through their own handshakes). It starts with the
    /// HermitMQ hello.
    pub(super) fn new(
        stream: S,
        peer: SocketAddr,
        arrival: Arrival,
        shared: Arc<Shared>,
        shutdown: watch::Receiver<bool>,
        permit: OwnedSemaphorePermit,
    ) -> Self {
        let who = shared.acl.who(arrival.principal);
        let (wake_tx, wake_rx) = mpsc::unbounded_channel();
        let sync_rx = shared.log.sync_generation();
        let sendfile = stream.can_sendfile();
        Connection {
            stream,
            peer,
            rbuf: BytesMut::with_capacity(RBUF_INITIAL),
            st: State {
                shared,
                out: Outbox::new(sendfile),
                acks: VecDeque::new(),
                fetches: Vec::new(),
                wake_tx,
                scratch: Vec::new(),
                closing: None,
                notice: None,
                who,
                version: PROTOCOL_VERSION,
                nonce: fresh_nonce(),
                arrival,
                peer,
                principal_permit: None,
                throttle_until: None,
                cursors: VecDeque::new(),
                next_cursor: 0,
            },
            wake_rx,
            sync_rx,
            shutdown,
            _permit: permit,
            recv_permit: None,
            budget_wait: None,
        }
    }

    /// Serve the connection until it closes. Errors are logged, not returned:
    /// one connection's trouble is nobody else's.
    pub(super) async fn run(mut self) {
        let metrics = self.st.shared.metrics.clone();
        metrics.connections_open.fetch_add(1, Ordering::Relaxed);
        let result = self.serve().await;
        if self.budget_wait.take().is_some() {
            metrics
                .receive_budget_waiting
                .fetch_sub(1, Ordering::Relaxed);
        }
        if result.is_ok()
            && matches!(
                self.st.closing,
                Some(Closing::BadInput | Closing::Shutdown | Closing::Idle)
            )
        {
            self.close_gently().await;
        }
        match result {
            Ok(()) => tracing::debug!(peer = %self.peer, "connection closed"),
            Err(e) => {
                tracing::debug!(peer = %self.peer, error = %e, "connection ended with an error")
            }
        }
        metrics.connections_open.fetch_sub(1, Ordering::Relaxed);
    }

    /// End a connection the broker chose to end without resetting it: send
    /// FIN after the last response, then read and discard what the client
    /// still sends for a moment. Closing a socket with unread bytes makes
    /// the kernel send RST, and some TCP stacks then drop the responses the
    /// client had not read yet (acks, the closing notice).
    async fn close_gently(&mut self) {
        if self.stream.shutdown().await.is_err() {
            return;
        }
        let deadline = Instant::now() + LINGER;
        let mut sink = [0u8; 4096];
        while let Ok(Ok(n)) = tokio::time::timeout_at(deadline, self.stream.read(&mut sink)).await {
            if n == 0 {
                break;
            }
        }
    }

    async fn handshake(&mut self) -> io::Result<bool> {
        let mut hello = [0u8; HELLO_LEN];
        let limit = Duration::from_millis(self.st.shared.config.handshake_timeout_ms);
        match tokio::time::timeout(limit, self.stream.read_exact(&mut hello)).await {
            Err(_) => {
                tracing::debug!(peer = %self.peer, "no hello within the handshake timeout");
                return Ok(false);
            }
            Ok(r) => {
                r?;
            }
        }
        let Ok(theirs) = Hello::decode(&hello) else {
            tracing::debug!(peer = %self.peer, "not a HermitMQ hello; closing");
            return Ok(false);
        };
        let shared = &self.st.shared;
        let mode = shared.acl.mode();
        let mut flags = 0;
        if mode != AuthMode::Off {
            flags |= BrokerFlags::AUTH_AVAILABLE;
        }
        if mode.requires_principal() && self.st.arrival.principal.is_none() {
            flags |= BrokerFlags::AUTH_REQUIRED;
        }
        if self.st.arrival.tls {
            flags |= BrokerFlags::TLS;
        }
        if self.st.arrival.principal.is_some() {
            flags |= BrokerFlags::AUTHENTICATED;
        }
        let max_frame = self.st.arrival.max_frame.unwrap_or(shared.limits.max_frame);
        let v3 = BrokerHello {
            max_frame,
            flags: BrokerFlags(flags),
            nonce: self.st.nonce,
            broker_id: *shared.broker_id.as_bytes(),
        }
        .encode();
        let v2 = Hello::broker(max_frame).encode();
        let (ours, serve): (&[u8], bool) = match theirs.version {
            VERSION_3 => (&v3, true),
            // A version-2 client cannot authenticate: served only when
            // anonymous access is, else told our version and closed.
            2 if !mode.requires_principal() => (&v2, true),
            2 => {
                tracing::debug!(peer = %self.peer, "version-2 client refused: authentication is required");
                (&v3, false)
            }
            v => {
                tracing::debug!(peer = %self.peer, version = v, "unsupported protocol version");
                (&v3, false)
            }
        };
        self.st.version = theirs.version;
        self.stream.write_all(ours).await?;
        self.stream.flush().await?;
        Ok(serve)
    }

    async fn serve(&mut self) -> io::Result<()> {
        if !self.handshake().await? {
            return Ok(());
        }
        if let Some(p) = self.st.arrival.principal {
            self.st.take_principal_permit(0, Op::Ping as u8, p);
        }
        let idle = Duration::from_millis(self.st.shared.config.idle_timeout_ms);
        let max_in_flight = self.st.shared.config.max_in_flight as usize;
        let metrics = self.st.shared.metrics.clone();
        let mut last_progress = Instant::now();
        loop {
            // Checked every turn, not only when the select picks it: a client
            // that keeps the socket readable must not starve the shutdown.
            if self.st.closing.is_none() && *self.shutdown.borrow() {
                self.st.begin_closing(Closing::Shutdown);
            }
            self.process_frames(max_in_flight).await;
            if !self.st.out.is_empty() && self.st.out.write_now(&mut self.stream, &metrics)? > 0 {
                last_progress = Instant::now();
            }
            if self.st.closing.is_some() && self.st.acks.is_empty() && self.st.fetches.is_empty() {
                // The closing notice goes last, after every answer, so a
                // client that stops reading at it has missed nothing.
                if let Some((status, msg)) = self.st.notice.take() {
                    // Correlation id 0 is reserved for connection-level notices.
                    self.st.error(0, Op::Ping as u8, status, msg, None);
                    continue;
                }
                if self.st.out.is_empty() {
                    return Ok(());
                }
            }
            let in_flight = self.st.in_flight();
            let throttled = self.st.throttle_until.is_some();
            let can_read = self.st.closing.is_none()
                && in_flight < max_in_flight
                && self.st.out.buffered_bytes() < OUT_HIGH_WATER
                && self.budget_wait.is_none()
                && !throttled;
            let budget_wait = &mut self.budget_wait;
            let waiting_budget = budget_wait.is_some();
            let throttle_until = self.st.throttle_until.unwrap_or_else(Instant::now);
            let want_write = !self.st.out.is_empty();
            let has_acks = !self.st.acks.is_empty();
            let has_fetches = !self.st.fetches.is_empty();
            let shutting = self.st.closing.is_none();
            let (stream, rbuf, out) = (&mut self.stream, &mut self.rbuf, &mut self.st.out);
            tokio::select! {
                biased;
                // Writes already got their turn above (write_now); the
                // stream is polled after the cheap wake-ups so that a client
                // keeping it readable cannot starve acks and long polls.
                r = self.shutdown.changed(), if shutting => {
                    if r.is_err() || *self.shutdown.borrow() {
                        self.st.begin_closing(Closing::Shutdown);
                    }
                }
                r = self.sync_rx.changed(), if has_acks => {
                    if r.is_err() {
                        // The log is gone: nothing more will become durable.
                        self.st.fail_acks("the log closed before the write was durable");
                    } else {
                        self.st.release_acks();
                    }
                }
                Some(corr) = self.wake_rx.recv(), if has_fetches => {
                    self.st.retry_fetch(corr).await;
                }
                _ = tokio::time::sleep_until(throttle_until), if throttled => {
                    self.st.throttle_until = None;
                    self.st.release_acks();
                }
                permit = poll_fn(|cx| match budget_wait.as_mut() {
                    Some(f) => f.as_mut().poll(cx),
                    None => Poll::Pending,
                }), if waiting_budget => {
                    self.budget_wait = None;
                    metrics.receive_budget_waiting.fetch_sub(1, Ordering::Relaxed);
                    match permit {
                        Some(p) => self.recv_permit = Some(p),
                        None => return Ok(()),
                    }
                    last_progress = Instant::now();
                }
                r = poll_fn(|cx| poll_io(cx, stream, rbuf, out, &metrics, (want_write, can_read))),
                    if want_write || can_read =>
                {
                    match r? {
                        Io::Wrote(0) => {}
                        Io::Read(0) => self.st.begin_closing(Closing::PeerClosed),
                        Io::Wrote(_) | Io::Read(_) => last_progress = Instant::now(),
                    }
                }
                _ = tokio::time::sleep_until(last_progress + idle) => {
                    let waiting = !self.st.acks.is_empty()
                        || !self.st.fetches.is_empty()
                        || self.budget_wait.is_some();
                    if self.st.out.is_empty() && waiting {
                        // Legitimately waiting on the log: not idle.
                        last_progress = Instant::now();
                    } else if !self.st.out.is_empty() {
                        tracing::debug!(peer = %self.peer, "client stopped reading its responses; closing");
                        return Ok(());
                    } else {
                        self.st.begin_closing(Closing::Idle);
                    }
                }
            }
        }
    }

    /// A budgeted frame was consumed: give its buffer back to the allocator
    /// (keeping what was read past it) and its bytes to the receive budget,
    /// so the budget counts memory actually held.
    fn release_budget(&mut self) {
        if self.rbuf.capacity() > RBUF_INITIAL {
            let mut small = BytesMut::with_capacity(RBUF_INITIAL.max(self.rbuf.len()));
            small.extend_from_slice(&self.rbuf);
            self.rbuf = small;
        }
        self.recv_permit = None;
    }

    /// Handle every complete frame in the read buffer, as long as the
    /// in-flight limit allows.
    async fn process_frames(&mut self, max_in_flight: usize) {
        loop {
            if self.st.closing.is_some() || self.st.in_flight() >= max_in_flight {
                return;
            }
            let limits = self.st.shared.limits;
            match frame::check_request(&self.rbuf, &limits) {
                Ok(FrameCheck::Incomplete { need }) => {
                    if self.rbuf.is_empty() && self.rbuf.capacity() > RBUF_KEEP {
                        self.rbuf = BytesMut::with_capacity(RBUF_INITIAL);
                    }
                    if need > RBUF_INITIAL && self.recv_permit.is_none() {
                        if !produce_prefix_buffered(&self.rbuf) {
                            // Read the prefix into the ordinary buffer first:
                            // nothing is reserved before the batch header
                            // has passed its limits in check_request.
                            self.rbuf
                                .reserve(RBUF_INITIAL.saturating_sub(self.rbuf.len()));
                            return;
                        }
                        match self.st.shared.quotas.admit(need) {
                            Admission::Admitted(p) => self.recv_permit = Some(p),
                            Admission::Wait(n) => {
                                let metrics = &self.st.shared.metrics;
                                metrics.receive_budget_waits.fetch_add(1, Ordering::Relaxed);
                                metrics
                                    .receive_budget_waiting
                                    .fetch_add(1, Ordering::Relaxed);
                                tracing::debug!(peer = %self.peer, bytes = n, "receive budget exhausted; waiting before reading the frame");
                                self.budget_wait =
                                    Some(Box::pin(self.st.shared.quotas.admit_later(n)));
                                return;
                            }
                            Admission::TooLarge => {
                                let corr = u32::from_be_bytes([
                                    self.rbuf[5],
                                    self.rbuf[6],
                                    self.rbuf[7],
                                    self.rbuf[8],
                                ]);
                                tracing::debug!(target: "audit", peer = %self.peer, bytes = need, "frame larger than receive_budget_bytes refused");
                                self.st.bad_input(
                                    Some(corr),
                                    Some(Op::Produce as u8),
                                    Status::PayloadTooLarge,
                                    "the frame is larger than the broker's receive_budget_bytes",
                                );
                                return;
                            }
                        }
                    }
                    // `need` passed the limits in check_request before we reserve it.
                    self.rbuf.reserve(need.saturating_sub(self.rbuf.len()));
                    return;
                }
                Ok(FrameCheck::Complete { len }) => {
                    match frame::decode_request(&self.rbuf[..len], &limits) {
                        Ok(f) => self.st.handle(f).await,
                        Err(e) => self.st.bad_input(
                            e.correlation_id,
                            e.op,
                            e.error.status(),
                            &e.error.to_string(),
                        ),
                    }
                    self.rbuf.advance(len);
                    if self.recv_permit.is_some() {
                        self.release_budget();
                    }
                }
                Err(e) => {
                    self.st.bad_input(
                        e.correlation_id,
                        e.op,
                        e.error.status(),
                        &e.error.to_string(),
                    );
                    return;
                }
            }
        }
    }
}

/// Whether `buf` holds a produce request's whole prefix (header, topic,
/// partition, ack and batch header). Only then has `check_request` checked
/// the batch header against the limits, and a reservation for the whole
/// frame may be made.
fn produce_prefix_buffered(buf: &[u8]) -> bool {
    const HEADER: usize = frame::REQUEST_HEADER_LEN;
    buf.len() > HEADER
        && buf[4] == Op::Produce as u8
        && buf.len() >= HEADER + 1 + usize::from(buf[HEADER]) + 4 + 1 + HEADER_LEN
}

/// The op to echo in an error frame: the request's when it is a known one,
/// else Ping's (so every response a client receives has a decodable op; the
/// client matches errors by correlation id).
fn known_op(op: Option<u8>) -> u8 {
    op.filter(|&b| Op::from_u8(b).is_ok())
        .unwrap_or(Op::Ping as u8)
}

impl State {
    fn in_flight(&self) -> usize {
        self.acks.len() + self.fetches.len() + self.out.len()
    }

    fn begin_closing(&mut self, why: Closing) {
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

    fn bad_input(&mut self, corr: Option<u32>, op: Option<u8>, status: Status, message: &str) {
        self.shared
            .metrics
            .bad_requests
            .fetch_add(1, Ordering::Relaxed);
        tracing::debug!(%status, message, "bad request; closing the connection");
        self.error(corr.unwrap_or(0), known_op(op), status, message, None);
        self.begin_closing(Closing::BadInput);
    }

    fn error(
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

    fn storage_error(&mut self, corr: u32, op: Op, e: &StorageError) {
        let bounds = match e {
            StorageError::OffsetOutOfRange {
                log_start,
                high_watermark,
                ..
            } => Some((*log_start, *high_watermark)),
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

    fn respond(&mut self, corr: u32, body: &ResponseBody<'_>) {
        self.out.push_frame(|b| {
            // Encoding fails only for values past u32 lengths, which no
            // response body built here can reach.
            let _ = frame::encode_response(corr, body, b);
        });
    }

    /// Whether the caller may do `action` on `topic`. (Internal `__…`
    /// topics never get here: the protocol refuses their names.)
    fn check(&self, action: Action, topic: &str) -> Result<(), Denied> {
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

    /// [`State::check`], answering a refusal; true when allowed.
    fn allowed(&mut self, corr: u32, op: Op, action: Action, topic: &str) -> bool {
        match self.check(action, topic) {
            Ok(()) => true,
            Err(d) => {
                self.deny(corr, op, &d);
                false
            }
        }
    }

    /// The group check of Commit and Committed, answering a refusal.
    fn allowed_group(&mut self, corr: u32, op: Op, group: &str, topic: &str) -> bool {
        let r = self
            .check(Action::Consume, topic)
            .and_then(|()| self.shared.acl.check_group(&self.who, group, topic));
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
    async fn partition(
        &mut self,
        corr: u32,
        op: Op,
        topic: &str,
        partition: u32,
    ) -> Option<Arc<Partition>> {
        let first = match self.shared.log.partition_if_open(topic, partition) {
            Ok(Some(p)) => Ok(p),
            Ok(None) => {
                // Closed: opening it reads its directory and recovers its
                // active segment — off the async threads.
                partition_off_thread(&self.shared.log, topic, partition, false).await
            }
            Err(e) => Err(e),
        };
        let res = match first {
            Err(StorageError::UnknownTopic(t))
                if self.shared.log.options().auto_create
                    && self.check(Action::Create, topic).is_err() =>
            {
                Err(StorageError::UnknownTopic(format!(
                    "{t} (and {} may not create it)",
                    self.who
                )))
            }
            Err(StorageError::UnknownTopic(_)) if self.shared.log.options().auto_create => {
                let permit = match self.topic_permit(topic) {
                    Ok(permit) => permit,
                    Err(msg) => {
                        self.error(corr, op as u8, Status::Unauthorized, &msg, None);
                        return None;
                    }
                };
                // With slots, creating a topic and opening its new partition
                // reads nothing: no need to leave the async thread.
                let res = match self.shared.log.auto_create_in_slot(topic, partition) {
                    Ok(Some(p)) => Ok(p),
                    Err(e) => Err(e),
                    Ok(None) => {
                        partition_off_thread(&self.shared.log, topic, partition, true).await
                    }
                };
                if res.is_ok()
                    && let Some(permit) = permit
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

    async fn handle(&mut self, f: RequestFrame<'_>) {
        let corr = f.correlation_id;
        let metrics = self.shared.metrics.clone();
        match f.request {
            Request::Produce(p) => {
                let received = Instant::now();
                if !self.allowed(corr, Op::Produce, Action::Produce, p.topic.as_str()) {
                    return;
                }
                let fsync = self.shared.log.options().fsync;
                if p.ack == Ack::Durable && fsync == FsyncPolicy::Never {
                    self.storage_error(corr, Op::Produce, &StorageError::NotDurable);
                    return;
                }
                let Some(part) = self
                    .partition(corr, Op::Produce, p.topic.as_str(), p.partition)
                    .await
                else {
                    return;
                };
                // Inline on the worker: a short lock and a page-cache write;
                // a segment roll inside it also stays here (docs/INTERNALS.md §2).
                match part.append(p.batch) {
                    Ok(a) => {
                        metrics.produce_batches.fetch_add(1, Ordering::Relaxed);
                        metrics
                            .produce_bytes
                            .fetch_add(p.batch.len() as u64, Ordering::Relaxed);
                        let not_before = self.throttle_produce(p.batch.len());
                        let need = if p.ack == Ack::Written {
                            0
                        } else {
                            a.next_offset
                        };
                        if not_before.is_none() && part.synced_offset() >= need {
                            metrics.produce_latency.observe_duration(received.elapsed());
                            self.respond(
                                corr,
                                &ResponseBody::Produce {
                                    base_offset: a.base_offset,
                                },
                            );
                        } else {
                            self.acks.push_back(PendingAck {
                                correlation_id: corr,
                                partition: part,
                                need,
                                not_before,
                                body: AckBody::Produce {
                                    base_offset: a.base_offset,
                                },
                                received,
                            });
                        }
                    }
                    Err(e) => self.storage_error(corr, Op::Produce, &e),
                }
            }
            Request::Fetch(fetch) => {
                if self.allowed(corr, Op::Fetch, Action::Consume, fetch.topic.as_str()) {
                    self.fetch(corr, fetch).await
                }
            }
            Request::Commit(c) => {
                if !self.allowed_group(corr, Op::Commit, c.group, c.topic.as_str()) {
                    return;
                }
                if self
                    .partition(corr, Op::Commit, c.topic.as_str(), c.partition)
                    .await
                    .is_none()
                {
                    return;
                }
                match self
                    .shared
                    .engine
                    .commit(c.group, c.topic.as_str(), c.partition, c.offset)
                {
                    Ok(a) => {
                        let offsets = self.shared.engine.offsets_partition().clone();
                        if self.shared.log.options().fsync == FsyncPolicy::Never
                            || offsets.synced_offset() >= a.next_offset
                        {
                            self.respond(corr, &ResponseBody::Commit);
                        } else {
                            self.acks.push_back(PendingAck {
                                correlation_id: corr,
                                partition: offsets,
                                need: a.next_offset,
                                not_before: None,
                                body: AckBody::Commit,
                                received: Instant::now(),
                            });
                        }
                    }
                    Err(e) => self.storage_error(corr, Op::Commit, &e),
                }
            }
            Request::Committed(c) => {
                if !self.allowed_group(corr, Op::Committed, c.group, c.topic.as_str()) {
                    return;
                }
                let offset = self
                    .shared
                    .engine
                    .committed(c.group, c.topic.as_str(), c.partition);
                self.respond(corr, &ResponseBody::Committed { offset });
            }
            Request::Metadata(None) => self.metadata_all(corr).await,
            Request::Metadata(Some(t)) => {
                if !self.allowed(corr, Op::Metadata, Action::Describe, t.as_str()) {
                    return;
                }
                let Some(t) = self.shared.log.topic(t.as_str()) else {
                    return self.storage_error(
                        corr,
                        Op::Metadata,
                        &StorageError::UnknownTopic(t.as_str().to_owned()),
                    );
                };
                let body = match topics_metadata(self.shared.log.clone(), vec![t]).await {
                    Ok(body) => body,
                    Err(e) => return self.storage_error(corr, Op::Metadata, &e),
                };
                self.respond(corr, &ResponseBody::Metadata(body));
            }
            Request::ListTopics(l) => self.list_topics(corr, l).await,
            Request::CreateTopic(c) => {
                if !self.allowed(corr, Op::CreateTopic, Action::Create, c.topic.as_str()) {
                    return;
                }
                let max = self.shared.config.max_partitions;
                if c.settings.partitions > max {
                    metrics.topics_refused.fetch_add(1, Ordering::Relaxed);
                    let msg = format!(
                        "{} partitions requested; this broker's max_partitions is {max}",
                        c.settings.partitions
                    );
                    tracing::debug!(target: "audit", peer = %self.peer, who = %self.who, topic = c.topic.as_str(), %msg, "topic creation refused");
                    return self.error(
                        corr,
                        Op::CreateTopic as u8,
                        Status::InvalidRequest,
                        &msg,
                        None,
                    );
                }
                let permit = match self.topic_permit(c.topic.as_str()) {
                    Ok(permit) => permit,
                    Err(msg) => {
                        return self.error(
                            corr,
                            Op::CreateTopic as u8,
                            Status::Unauthorized,
                            &msg,
                            None,
                        );
                    }
                };
                let log = self.shared.log.clone();
                let name = c.topic.as_str().to_owned();
                let settings = c.settings;
                let res = tokio::task::spawn_blocking(move || {
                    log.create_topic(&name, settings).map(|_| ())
                })
                .await
                .unwrap_or_else(|e| Err(StorageError::panicked("topic creation", e)));
                match res {
                    Ok(()) => {
                        if let Some(permit) = permit {
                            permit.keep(c.topic.as_str());
                        }
                        tracing::info!(
                            target: "audit",
                            topic = c.topic.as_str(),
                            partitions = c.settings.partitions,
                            who = %self.who,
                            peer = %self.peer,
                            "topic created"
                        );
                        self.respond(corr, &ResponseBody::CreateTopic)
                    }
                    Err(e) => self.storage_error(corr, Op::CreateTopic, &e),
                }
            }
            Request::DeleteTopic(t) => {
                if !self.allowed(corr, Op::DeleteTopic, Action::Delete, t.as_str()) {
                    return;
                }
                let engine = self.shared.engine.clone();
                let name = t.as_str().to_owned();
                let res = tokio::task::spawn_blocking(move || engine.delete_topic(&name))
                    .await
                    .unwrap_or_else(|e| Err(StorageError::panicked("topic deletion", e)));
                match res {
                    Ok(()) => {
                        self.shared.quotas.topic_deleted(t.as_str());
                        tracing::info!(
                            target: "audit",
                            topic = t.as_str(),
                            who = %self.who,
                            peer = %self.peer,
                            "topic deleted"
                        );
                        self.respond(corr, &ResponseBody::DeleteTopic)
                    }
                    Err(e) => self.storage_error(corr, Op::DeleteTopic, &e),
                }
            }
            Request::Ping => self.respond(corr, &ResponseBody::Ping),
            Request::Authenticate(a) => self.authenticate(corr, a),
        }
    }

    /// The largest response frame this connection sends (after the length
    /// prefix): what its hello announced, so a client that accepts our
    /// requests' frames accepts our pages too.
    fn max_frame(&self) -> usize {
        self.arrival
            .max_frame
            .unwrap_or(self.shared.limits.max_frame) as usize
    }

    /// Answer `ListTopics`: one page of the topics the caller may describe,
    /// after its cursor, within its limit, the bounded scan and the frame.
    async fn list_topics(&mut self, corr: u32, l: ListTopics<'_>) {
        let room = self.max_frame().saturating_sub(LIST_TOPICS_FIXED_LEN);
        // A tiny frame (a small `ws_max_message`) holds fewer topics than the
        // limit asks for: scan only what it could carry.
        let limit = (l.limit as usize).min((room / MIN_TOPIC_METADATA_LEN).max(1));
        let after = match l.after.as_ref().map(|a| a.as_str()) {
            Some(a) if a.starts_with(CURSOR_PREFIX) => {
                let found = a[CURSOR_PREFIX.len()..]
                    .parse::<u64>()
                    .ok()
                    .and_then(|n| self.cursors.iter().find(|(k, _)| *k == n))
                    .map(|(_, name)| name.clone());
                let Some(name) = found else {
                    return self.error(
                        corr,
                        Op::ListTopics as u8,
                        Status::InvalidRequest,
                        "this cursor is unknown or expired (cursors last for the connection, \
                         the newest 16): list again from the start",
                        None,
                    );
                };
                Some(name)
            }
            other => other.map(str::to_owned),
        };
        match self
            .topic_page(after.as_deref(), limit, limit * LIST_SCAN_FACTOR, room)
            .await
        {
            Ok((mut page, _)) => {
                if let Some(next) = page.next.take() {
                    let listed = page.topics.last().is_some_and(|t| t.name == next);
                    page.next = Some(if listed {
                        next
                    } else {
                        self.opaque_cursor(next)
                    });
                }
                self.respond(corr, &ResponseBody::ListTopics(page))
            }
            Err(PageError::TooBig(msg)) => self.error(
                corr,
                Op::ListTopics as u8,
                Status::PayloadTooLarge,
                &msg,
                None,
            ),
            Err(PageError::Storage(e)) => self.storage_error(corr, Op::ListTopics, &e),
        }
    }

    /// A cursor standing for `name`, which the caller may not see.
    fn opaque_cursor(&mut self, name: String) -> String {
        let n = self.next_cursor;
        self.next_cursor += 1;
        if self.cursors.len() == MAX_CURSORS {
            self.cursors.pop_front();
        }
        self.cursors.push_back((n, name));
        format!("{CURSOR_PREFIX}{n}")
    }

    /// Answer `Metadata` of all topics — kept for older clients — only when
    /// that takes one page: at most [`MAX_LIST_LIMIT`] topics the caller may
    /// describe, found within the scan of the largest `ListTopics` page, in
    /// one frame. Otherwise `PayloadTooLarge` saying to page with
    /// `ListTopics`; the connection stays open (the request was well formed).
    async fn metadata_all(&mut self, corr: u32) {
        const LIMIT: usize = MAX_LIST_LIMIT as usize;
        let room = self.max_frame().saturating_sub(METADATA_FIXED_LEN);
        let scan = LIMIT * LIST_SCAN_FACTOR;
        let msg = match self.topic_page(None, LIMIT, scan, room).await {
            Ok((page, None)) => {
                return self.respond(corr, &ResponseBody::Metadata(page.topics));
            }
            Ok((_, Some(cut))) => {
                let why = match cut {
                    Cut::Limit => format!("the caller may describe more than {LIMIT} topics"),
                    Cut::Scan => format!("the broker holds more than {scan} topics"),
                    Cut::Frame => format!(
                        "their metadata would not fit in one frame of {} bytes",
                        self.max_frame()
                    ),
                };
                format!(
                    "Metadata of all topics answers one page only, and {why}: \
                     list them page by page with ListTopics"
                )
            }
            Err(PageError::TooBig(msg)) => msg,
            Err(PageError::Storage(e)) => return self.storage_error(corr, Op::Metadata, &e),
        };
        tracing::debug!(peer = %self.peer, who = %self.who, %msg, "metadata of all topics refused");
        self.error(
            corr,
            Op::Metadata as u8,
            Status::PayloadTooLarge,
            &msg,
            None,
        );
    }

    /// One page of the topics the caller may describe whose names sort
    /// after `after`: at most `limit` of them, looking at no more than
    /// `scan` catalog entries (`scan >= limit >= 1`), their metadata within
    /// `room` bytes. Internal topics are never listed. The page's `next`
    /// is the last name looked at when more entries remain, and says why
    /// the page ended early. `TooBig` when the first topic to list alone
    /// does not fit in `room` (its message says so; no page could hold it).
    /// The names are chosen here; their metadata, which may open closed
    /// partitions, is built off the async threads.
    async fn topic_page(
        &self,
        after: Option<&str>,
        limit: usize,
        scan: usize,
        room: usize,
    ) -> Result<(TopicPage, Option<Cut>), PageError> {
        if self.who.is_anonymous() && self.shared.acl.mode().requires_principal() {
            // Nothing is allowed to it (docs/SECURITY.md): not even a scan,
            // whose cursor would name topics.
            return Ok((TopicPage::default(), None));
        }
        // One entry more than the scan may look at tells whether any remain.
        let entries = self.shared.log.topics_after(after, scan + 1);
        let mut chosen = Vec::new();
        let mut last: Option<&str> = None;
        let mut cut = None;
        for (i, t) in entries.iter().enumerate() {
            if i == scan {
                cut = Some(Cut::Scan);
                break;
            }
            let name = t.name();
            // Internal topics (`__consumer_offsets`) are the broker's own.
            // `allows`, not `check`: no refusal is built per name passed over.
            if !name.starts_with(INTERNAL_PREFIX)
                && self.shared.acl.allows(&self.who, Action::Describe, name)
            {
                if chosen.len() == limit {
                    // The page is full and another topic follows: resume
                    // right before it (the entries after the last listed
                    // one were looked at already).
                    cut = Some(Cut::Limit);
                    break;
                }
                chosen.push(t.clone());
            }
            last = Some(name);
        }
        let next = cut.and(last.map(str::to_owned));
        let metas = topics_metadata(self.shared.log.clone(), chosen.clone())
            .await
            .map_err(PageError::Storage)?;
        let mut topics = Vec::with_capacity(metas.len());
        let mut used = 0;
        for (t, meta) in chosen.iter().zip(metas) {
            let len = meta.encoded_len();
            if used + len > room {
                let Some(prev) = topics.last().map(|m: &TopicMetadata| m.name.clone()) else {
                    return Err(PageError::TooBig(format!(
                        "the metadata of topic {} ({len} bytes, {} partitions) does not \
                         fit in this connection's frames of {} bytes",
                        t.name(),
                        meta.partitions.len(),
                        self.max_frame()
                    )));
                };
                let page = TopicPage {
                    topics,
                    next: Some(prev),
                };
                return Ok((page, Some(Cut::Frame)));
            }
            used += len;
            topics.push(meta);
        }
        Ok((TopicPage { topics, next }, cut))
    }

    /// Check an `Authenticate`: on success the connection runs as the
    /// principal from now on; a failure is answered `Unauthorized` and ends
    /// the connection (its nonce is spent: a retry needs a new connection).
    fn authenticate(&mut self, corr: u32, a: Authenticate<'_>) {
        let op = Op::Authenticate as u8;
        if self.version < VERSION_3 {
            return self.bad_input(
                Some(corr),
                Some(op),
                Status::InvalidRequest,
                "Authenticate needs protocol version 3",
            );
        }
        if self.who.principal().is_some() {
            return self.error(
                corr,
                op,
                Status::InvalidRequest,
                "this connection is already authenticated",
                None,
            );
        }
        let broker_id = *self.shared.broker_id.as_bytes();
        match verify_authenticate(a.mechanism, a.spki, a.signature, &self.nonce, &broker_id) {
            Ok(p) => {
                if !self.take_principal_permit(corr, op, p) {
                    return;
                }
                self.who = self.shared.acl.who(Some(p));
                tracing::info!(target: "audit", peer = %self.peer, principal = %p, admin = self.who.is_admin(), "authenticated");
                self.respond(
                    corr,
                    &ResponseBody::Authenticate {
                        principal: *p.as_bytes(),
                    },
                );
            }
            Err(e) => {
                self.shared.metrics.auth_failures[e.reason()].fetch_add(1, Ordering::Relaxed);
                tracing::warn!(target: "audit", peer = %self.peer, error = %e, "authentication failed");
                self.error(
                    corr,
                    op,
                    Status::Unauthorized,
                    &format!("authentication failed: {e}"),
                    None,
                );
                self.begin_closing(Closing::BadInput);
            }
        }
    }

    /// Count this connection against `p`'s `max_connections_per_principal`;
    /// over the cap the request (`corr`, or the connection itself with
    /// correlation id 0) is answered `Unauthorized` and the connection
    /// ends. True when the permit was taken.
    fn take_principal_permit(&mut self, corr: u32, op: u8, p: Principal) -> bool {
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
                let max = self.shared.config.max_connections_per_principal;
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

    /// Take one of the caller's `max_topics_per_principal` permits before
    /// creating `topic`. Not counted: admins (they may do anything), and
    /// everyone with `auth = "off"` (no principals, loopback only: the
    /// broker's behaviour before access control, topics without a cap).
    /// `Err` is the refusal's message.
    fn topic_permit(&mut self, topic: &str) -> Result<Option<TopicPermit>, String> {
        if self.who.is_admin() || self.shared.acl.mode() == AuthMode::Off {
            return Ok(None);
        }
        match self.shared.quotas.topic_permit(self.who.principal()) {
            Some(permit) => Ok(Some(permit)),
            None => {
                self.shared
                    .metrics
                    .topics_refused
                    .fetch_add(1, Ordering::Relaxed);
                let max = self.shared.quotas.max_topics();
                tracing::debug!(target: "audit", peer = %self.peer, who = %self.who, topic, max, "topic creation refused: max_topics_per_principal reached");
                Err(format!(
                    "{} has created max_topics_per_principal ({max}) topics; {topic} was not created",
                    self.who
                ))
            }
        }
    }

    /// Read from a partition for a fetch: the engine verifies an old
    /// segment first if needed, off the async workers.
    async fn read(
        &mut self,
        part: &Arc<Partition>,
        offset: u64,
        max_bytes: u32,
    ) -> Result<Served, StorageError> {
        self.shared
            .engine
            .read(part, offset, max_bytes, &mut self.scratch)
            .await
    }

    async fn fetch(&mut self, corr: u32, f: Fetch<'_>) {
        let received = Instant::now();
        let Some(part) = self
            .partition(corr, Op::Fetch, f.topic.as_str(), f.partition)
            .await
        else {
            return;
        };
        let cap = self.shared.config.idle_timeout_ms;
        let wait = u64::from(f.max_wait_ms).min(cap);
        let deadline = Instant::now() + Duration::from_millis(wait);
        let pending = PendingFetch {
            correlation_id: corr,
            partition: part,
            offset: f.offset,
            // A WebSocket carries each answer as one message, assembled in
            // memory: ask for no more than its largest frame.
            max_bytes: f.max_bytes.min(self.arrival.max_frame.unwrap_or(u32::MAX)),
            deadline,
            received,
            parked: None,
        };
        self.attempt_fetch(pending).await;
    }

    /// Answer a fetch if there is data or its wait is over; otherwise park it
    /// and start a waiter that wakes the connection when the partition's high
    /// watermark moves or the deadline passes.
    async fn attempt_fetch(&mut self, mut f: PendingFetch) {
        let who = self.who.principal();
        let delay = self.shared.quotas.fetch_delay(who);
        if !delay.is_zero() && self.closing.is_none() {
            // Over fetch_bytes_per_sec: the answer waits for the bucket
            // (bounded by max_in_flight, like every request in flight).
            self.shared
                .metrics
                .fetch_throttled
                .fetch_add(1, Ordering::Relaxed);
            self.shared
                .quotas
                .note_throttled(who, quota::Direction::Fetch);
            tracing::debug!(target: "audit", peer = %self.peer, who = %self.who, delay_ms = delay.as_millis() as u64, "fetch throttled: fetch_bytes_per_sec exceeded");
            let tx = self.wake_tx.clone();
            let corr = f.correlation_id;
            tokio::spawn(async move {
                tokio::time::sleep(delay).await;
                let _ = tx.send(corr);
            });
            self.fetches.push(f);
            return;
        }
        let waiting = f.deadline > Instant::now() && self.closing.is_none();
        // Subscribe before reading, so data arriving in between is not missed.
        let mut rx = waiting.then(|| f.partition.subscribe());
        match self.read(&f.partition.clone(), f.offset, f.max_bytes).await {
            Ok(Served {
                body: Some(body),
                high_watermark,
                log_start,
            }) => {
                let len = body.len();
                let header = frame::encode_fetch_header(
                    f.correlation_id,
                    high_watermark,
                    log_start,
                    len as u32,
                );
                self.shared
                    .metrics
                    .fetch_responses
                    .fetch_add(1, Ordering::Relaxed);
                self.shared.quotas.charge_fetch(who, len);
                self.out.push_body(&header, body);
                self.fetch_answered(&f);
            }
            Ok(Served {
                body: None,
                high_watermark,
                log_start,
            }) => match rx.take() {
                Some(_) if self.fetches.len() >= self.shared.config.max_parked_fetches as usize => {
                    // Over max_parked_fetches: answered now with what there is.
                    self.shared
                        .metrics
                        .fetches_not_parked
                        .fetch_add(1, Ordering::Relaxed);
                    tracing::debug!(target: "audit", peer = %self.peer, who = %self.who, max = self.shared.config.max_parked_fetches, "long poll not parked: max_parked_fetches reached");
                    let header =
                        frame::encode_fetch_header(f.correlation_id, high_watermark, log_start, 0);
                    self.out.push_frame(|b| b.extend_from_slice(&header));
                    self.fetch_answered(&f);
                }
                Some(mut rx) => {
                    let tx = self.wake_tx.clone();
                    let (corr, deadline) = (f.correlation_id, f.deadline);
                    tokio::spawn(async move {
                        let _ = tokio::time::timeout_at(deadline, rx.changed()).await;
                        let _ = tx.send(corr);
                    });
                    if f.parked.is_none() {
                        f.parked = Some(Parked::new(&self.shared.metrics));
                    }
                    self.fetches.push(f);
                }
                None => {
                    let header =
                        frame::encode_fetch_header(f.correlation_id, high_watermark, log_start, 0);
                    self.out.push_frame(|b| b.extend_from_slice(&header));
                    self.fetch_answered(&f);
                }
            },
            Err(e) => self.storage_error(f.correlation_id, Op::Fetch, &e),
        }
    }

    /// A fetch was answered: its latency, unless it waited as a long poll.
    fn fetch_answered(&self, f: &PendingFetch) {
        if f.parked.is_none() {
            self.shared
                .metrics
                .fetch_latency
                .observe_duration(f.received.elapsed());
        }
    }

    async fn retry_fetch(&mut self, corr: u32) {
        if let Some(i) = self.fetches.iter().position(|f| f.correlation_id == corr) {
            let f = self.fetches.swap_remove(i);
            self.attempt_fetch(f).await;
        }
    }

    /// Charge a produce of `bytes` to the caller's `produce_bytes_per_sec`;
    /// when over, the instant its answer is held until (and the connection
    /// stops reading until then).
    fn throttle_produce(&mut self, bytes: usize) -> Option<Instant> {
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
    fn release_acks(&mut self) {
        let now = Instant::now();
        let mut i = 0;
        while i < self.acks.len() {
            let a = &self.acks[i];
            let durable = a.partition.synced_offset() >= a.need;
            if durable && a.not_before.is_none_or(|t| t <= now) {
                let a = self.acks.remove(i).expect("invariant: index is in bounds");
                match a.body {
                    AckBody::Produce { base_offset } => {
                        self.shared
                            .metrics
                            .produce_latency
                            .observe_duration(a.received.elapsed());
                        self.respond(a.correlation_id, &ResponseBody::Produce { base_offset })
                    }
                    AckBody::Commit => self.respond(a.correlation_id, &ResponseBody::Commit),
                }
            } else if !durable && let Some(reason) = a.partition.failure() {
                let a = self.acks.remove(i).expect("invariant: index is in bounds");
                let op = match a.body {
                    AckBody::Produce { .. } => Op::Produce,
                    AckBody::Commit => Op::Commit,
                };
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

    fn fail_acks(&mut self, reason: &str) {
        for a in std::mem::take(&mut self.acks) {
            let op = match a.body {
                AckBody::Produce { .. } => Op::Produce,
                AckBody::Commit => Op::Commit,
            };
            self.error(
                a.correlation_id,
                op as u8,
                Status::StorageError,
                reason,
                None,
            );
        }
    }
}

/// The metadata of `topics`, built off the async threads (it may open
/// closed partitions).
async fn topics_metadata(
    log: Arc<crate::log::Log>,
    topics: Vec<Arc<crate::log::Topic>>,
) -> Result<Vec<TopicMetadata>, StorageError> {
    tokio::task::spawn_blocking(move || {
        topics
            .iter()
            .map(|t| topic_metadata(&log, t))
            .collect::<Result<Vec<_>, _>>()
    })
    .await
    .unwrap_or_else(|e| Err(StorageError::panicked("metadata", e)))
}

/// Why a topic page could not be built.
#[derive(Debug)]
enum PageError {
    /// The first topic to list does not fit in a frame (the message says so).
    TooBig(String),
    /// Opening a partition for its bounds failed.
    Storage(StorageError),
}

/// Why a topic page ended before the listing did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cut {
    /// It holds as many topics as asked for, and more follow.
    Limit,
    /// Its scan looked at as many catalog entries as it may.
    Scan,
    /// The next topic's metadata would not fit in the frame.
    Frame,
}

/// What Metadata says about one topic: its effective policy and each
/// partition's bounds (opening the partitions that are not open).
fn topic_metadata(
    log: &crate::log::Log,
    t: &Arc<crate::log::Topic>,
) -> Result<TopicMetadata, StorageError> {
    let policy = t.policy();
    let partitions = (0..t.partition_count())
        .map(|i| {
            let p = log.open_partition(t, i)?;
            let (log_start, high_watermark) = p.bounds();
            Ok(PartitionMetadata {
                partition: i,
                log_start,
                high_watermark,
            })
        })
        .collect::<Result<Vec<_>, StorageError>>()?;
    Ok(TopicMetadata {
        name: t.name().to_owned(),
        cleanup: policy.cleanup,
        retention_ms: policy.retention_ms,
        retention_bytes: policy.retention_bytes,
        partitions,
    })
}

/// [`Log::partition`](crate::log::Log::partition) on the blocking pool: it may read a partition's
/// directory and recover its active segment, or create directories.
async fn partition_off_thread(
    log: &Arc<crate::log::Log>,
    topic: &str,
    partition: u32,
    create: bool,
) -> Result<Arc<Partition>, StorageError> {
    log.partition_off_thread(topic, partition, create).await
}
