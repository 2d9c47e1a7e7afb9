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
//!
//! What the requests do is `net::handler` (one module per op) over the
//! connection's `net::session::Session`; this module is the I/O around
//! them: the hello, reading and checking frames under the receive budget,
//! and writing answers as they become ready.

use std::future::{Future, poll_fn};
use std::io;
use std::net::SocketAddr;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::{Buf, BytesMut};
use hermit_protocol::frame::{self, FrameCheck};
use hermit_protocol::header::RequestHeader;
use hermit_protocol::hello::{BrokerFlags, BrokerHello, HELLO_LEN, Hello, VERSION_3};
use hermit_protocol::{Op, Status};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::{OwnedSemaphorePermit, mpsc, watch};
use tokio::time::Instant;

use super::admission::Admitted;
use super::handler;
use super::metrics::Metrics;
use super::outbox::Outbox;
use super::quota::Admission;
use super::send_budget::SendBudget;
use super::session::{Closing, Session};
use super::shared::{Arrival, Shared};
use super::stream::ByteStream;
use crate::auth::AuthMode;

/// The read buffer is shrunk back when a large frame left it bigger than this.
const RBUF_KEEP: usize = 1 << 20;
/// Initial read buffer.
const RBUF_INITIAL: usize = 64 * 1024;
/// How long a connection the broker ends keeps draining client bytes.
const LINGER: Duration = Duration::from_millis(500);

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
    st: Session,
    wake_rx: mpsc::UnboundedReceiver<u32>,
    sync_rx: watch::Receiver<u64>,
    shutdown: watch::Receiver<bool>,
    /// Its address's and the broker's connection permits, held to the end.
    _admitted: Admitted,
    /// Receive budget held for the large frame being read into `rbuf`.
    recv_permit: Option<OwnedSemaphorePermit>,
    /// Set while the connection waits for receive budget (and reads nothing).
    budget_wait: Option<BudgetWait>,
    /// The server's send budget (answers queued by every connection).
    send_budget: Arc<SendBudget>,
    /// `max_send_queue_bytes`: this connection takes up no request while it
    /// has this many bytes of answers queued.
    max_queue: usize,
    /// Since when the queued answers have not moved (`None`: nothing queued,
    /// or bytes just went out): `write_stall_timeout_ms` after it, the
    /// connection is closed.
    stalled_since: Option<Instant>,
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
        admitted: Admitted,
    ) -> Self {
        let (wake_tx, wake_rx) = mpsc::unbounded_channel();
        let sync_rx = shared.engine.sync_generation();
        let sendfile = stream.can_sendfile();
        Connection {
            stream,
            peer,
            rbuf: BytesMut::with_capacity(RBUF_INITIAL),
            send_budget: shared.send_budget.clone(),
            max_queue: usize::try_from(shared.options.quotas.max_send_queue_bytes)
                .unwrap_or(usize::MAX),
            stalled_since: None,
            st: Session::new(shared, arrival, peer, sendfile, wake_tx),
            wake_rx,
            sync_rx,
            shutdown,
            _admitted: admitted,
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
        let limit = Duration::from_millis(self.st.shared.options.handshake_timeout_ms);
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
        // This broker reads a Fetch's optional min_bytes part.
        let mut flags = BrokerFlags::FETCH_MIN_BYTES;
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
        } else {
            self.must_authenticate();
        }
        let idle = Duration::from_millis(self.st.shared.options.idle_timeout_ms);
        let stall = Duration::from_millis(self.st.shared.options.write_stall_timeout_ms);
        let max_in_flight = self.st.shared.options.max_in_flight as usize;
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
                self.stalled_since = None;
            }
            if self.st.out.is_empty() {
                self.stalled_since = None;
            } else if self.stalled_since.is_none() {
                self.stalled_since = Some(Instant::now());
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
                && !self.output_full()
                && self.budget_wait.is_none()
                && !throttled;
            let budget_wait = &mut self.budget_wait;
            let waiting_budget = budget_wait.is_some();
            let throttle_until = self.st.throttle_until.unwrap_or_else(Instant::now);
            let want_write = !self.st.out.is_empty();
            let has_acks = !self.st.acks.is_empty();
            let has_fetches = !self.st.fetches.is_empty();
            let shutting = self.st.closing.is_none();
            // Stopped only by the send budget (its own queue is under its
            // cap): wait for room, which another connection's writes make.
            let budget_full = self.send_budget.is_full();
            let stalled = self.stalled_since.unwrap_or_else(Instant::now) + stall;
            let send_budget = &self.send_budget;
            let (must_auth, auth_deadline) = match &self.st.unauthenticated {
                Some((_, at)) => (self.st.closing.is_none(), *at),
                None => (false, Instant::now()),
            };
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
                    handler::fetch::retry(&mut self.st, corr).await;
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
                        Io::Wrote(_) => {
                            last_progress = Instant::now();
                            self.stalled_since = None;
                        }
                        Io::Read(_) => last_progress = Instant::now(),
                    }
                }
                () = send_budget.room(), if budget_full => {}
                _ = tokio::time::sleep_until(auth_deadline), if must_auth => self.auth_timed_out(),
                _ = tokio::time::sleep_until(stalled), if want_write => {
                    self.st.shared.metrics.write_stalls.fetch_add(1, Ordering::Relaxed);
                    tracing::debug!(target: "audit", peer = %self.peer, who = %self.st.who, "answers not read for write_stall_timeout_ms; closing");
                    return Ok(());
                }
                _ = tokio::time::sleep_until(last_progress + idle) => {
                    if self.on_idle(&mut last_progress) {
                        return Ok(());
                    }
                }
            }
        }
    }

    /// With `auth = "required"`: take one of the
    /// `max_unauthenticated_connections` permits until an `Authenticate`
    /// succeeds (by `auth_timeout_ms` from now), or refuse the connection
    /// with a notice when they are all held.
    fn must_authenticate(&mut self) {
        let shared = &self.st.shared;
        if !shared.acl.mode().requires_principal() {
            return;
        }
        match shared.unauthenticated.clone().try_acquire_owned() {
            Ok(permit) => {
                let deadline =
                    Instant::now() + Duration::from_millis(shared.options.auth_timeout_ms);
                self.st.unauthenticated = Some((permit, deadline));
            }
            Err(_) => {
                shared
                    .metrics
                    .refused_unauthenticated
                    .fetch_add(1, Ordering::Relaxed);
                let max = shared.options.max_unauthenticated_connections;
                tracing::debug!(target: "audit", peer = %self.peer, max, "connection refused: max_unauthenticated_connections are waiting to authenticate");
                self.st.error(
                    0,
                    Op::Ping as u8,
                    Status::TooManyConnections,
                    "max_unauthenticated_connections connections are waiting to authenticate; retry later",
                    None,
                );
                self.st.begin_closing(Closing::BadInput);
            }
        }
    }

    /// No `Authenticate` within `auth_timeout_ms`: say so and close.
    fn auth_timed_out(&mut self) {
        self.st
            .shared
            .metrics
            .auth_timeouts
            .fetch_add(1, Ordering::Relaxed);
        tracing::debug!(target: "audit", peer = %self.peer, "no Authenticate within auth_timeout_ms; closing");
        self.st.error(
            0,
            Op::Ping as u8,
            Status::Unauthorized,
            "no Authenticate within auth_timeout_ms (the broker requires authentication)",
            None,
        );
        self.st.unauthenticated = None;
        self.st.begin_closing(Closing::BadInput);
    }

    /// No progress for `idle_timeout_ms`: still waiting on the log (not
    /// idle), a client that stopped reading (true: end now), or idle (the
    /// connection closes gently).
    fn on_idle(&mut self, last_progress: &mut Instant) -> bool {
        let waiting =
            !self.st.acks.is_empty() || !self.st.fetches.is_empty() || self.budget_wait.is_some();
        if self.st.out.is_empty() && waiting {
            // Legitimately waiting on the log: not idle.
            *last_progress = Instant::now();
        } else if !self.st.out.is_empty() {
            tracing::debug!(peer = %self.peer, "client stopped reading its responses; closing");
            return true;
        } else {
            self.st.begin_closing(Closing::Idle);
        }
        false
    }

    /// Whether this connection may not take up another request now: its own
    /// queued answers are at `max_send_queue_bytes`, or every connection's
    /// together fill the send budget.
    #[inline]
    fn output_full(&self) -> bool {
        self.st.out.buffered_bytes() >= self.max_queue || self.send_budget.is_full()
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
            if self.st.closing.is_some()
                || self.st.in_flight() >= max_in_flight
                || self.output_full()
            {
                return;
            }
            let limits = self.st.shared.limits;
            match frame::check_request(&self.rbuf, &limits) {
                Ok(FrameCheck::Incomplete { need }) => {
                    if self.rbuf.is_empty() && self.rbuf.capacity() > RBUF_KEEP {
                        self.rbuf = BytesMut::with_capacity(RBUF_INITIAL);
                    }
                    if need > RBUF_INITIAL && self.recv_permit.is_none() {
                        if !frame::produce_prefix_buffered(&self.rbuf) {
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
                                let head = RequestHeader::peek(&self.rbuf);
                                tracing::debug!(target: "audit", peer = %self.peer, bytes = need, "frame larger than receive_budget_bytes refused");
                                self.st.bad_input(
                                    head.map(|h| h.correlation_id),
                                    head.map(|h| h.op),
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
                        Ok(f) => handler::dispatch(&mut self.st, f).await,
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
