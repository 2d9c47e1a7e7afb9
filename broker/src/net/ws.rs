//! The WebSocket front door (DESIGN §8): the same protocol, one HermitMQ
//! frame per binary WebSocket message, through the same connection state
//! machine as TCP.
//!
//! [`WsStream`] presents a WebSocket as the ordered bytes a connection
//! reads and writes ([`ByteStream`]):
//! - **In**: each binary message must be exactly one frame — the client's
//!   first message its 8-byte hello, every later one a length-prefixed
//!   request whose length matches the message. The message's bytes are then
//!   handed to the connection as they would arrive over TCP, so the frame
//!   checks, limits and receive budget are the connection's own.
//! - **Out**: the connection writes whole frames; the adapter cuts its
//!   output at frame boundaries (the broker hello first, then each length
//!   prefix) and sends each frame as one binary message. Fetch bodies take
//!   the copy path (no `sendfile` into a WebSocket). A frame is assembled
//!   whole before it is sent (tokio-websockets takes whole messages), so
//!   its bytes are charged to the send budget from the moment its head is
//!   seen until the socket has taken them; and no answer is larger than
//!   `ws_max_message` (a fetch of a larger batch is refused, see
//!   `handler::fetch`), so the adapter holds at most two messages: one
//!   being assembled, one being written.
//! - **Violations** close only this connection, with the RFC 6455 code:
//!   a text message 1003, a message that is not one frame 1002, a message
//!   over `ws_max_message` 1009 (refused from its header, before it is
//!   buffered), unmasked client frames and other framing errors 1002, bad
//!   UTF-8 in a close reason 1007 (the last three from tokio-websockets),
//!   more pings or pongs than [`PING_BURST`] plus one per second 1008. The
//!   broker's own close is 1000, or 1001 when it shuts down.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use bytes::{Buf, Bytes, BytesMut};
use futures_core::Stream;
use futures_sink::Sink;
use hermit_protocol::hello::{BROKER_HELLO_V3_LEN, HELLO_LEN, VERSION_3};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::watch;
use tokio::time::{Instant, Sleep};
use tokio_websockets::{CloseCode, Message, WebSocketStream};

use super::metrics::Metrics;
use super::send_budget::SendBudget;
use super::stream::ByteStream;

/// Pings and pongs a client may send at once before the per-second
/// allowance applies.
pub(crate) const PING_BURST: u32 = 32;
/// How long a closing connection waits for the client's close frame.
const CLOSE_WAIT: Duration = Duration::from_secs(1);

/// A token bucket for control frames: `PING_BURST` at once, one more per second.
struct ControlBudget {
    tokens: f64,
    at: Instant,
}

impl ControlBudget {
    fn new() -> ControlBudget {
        ControlBudget {
            tokens: f64::from(PING_BURST),
            at: Instant::now(),
        }
    }

    fn take(&mut self) -> bool {
        let now = Instant::now();
        let refill = now.duration_since(self.at).as_secs_f64();
        self.at = now;
        self.tokens = (self.tokens + refill).min(f64::from(PING_BURST));
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// A stream whose first bytes were already read (with the HTTP request
/// head): those are returned first.
pub(crate) struct Rewind<S> {
    prefix: Bytes,
    inner: S,
}

impl<S> Rewind<S> {
    pub(crate) fn new(prefix: Bytes, inner: S) -> Rewind<S> {
        Rewind { prefix, inner }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Rewind<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if !self.prefix.is_empty() {
            let n = self.prefix.len().min(buf.remaining());
            buf.put_slice(&self.prefix[..n]);
            self.prefix.advance(n);
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Rewind<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// Why the adapter is closing the WebSocket: the error the connection will
/// see once the close frame went out (or the wait for it ended).
struct Failing {
    error: Option<io::Error>,
    deadline: Pin<Box<Sleep>>,
}

/// A WebSocket connection as a [`ByteStream`] (see the module docs).
pub(crate) struct WsStream<S> {
    ws: WebSocketStream<Rewind<S>>,
    /// The unread rest of the current inbound message.
    inbound: Bytes,
    /// Inbound messages taken so far (the first must be the hello).
    messages_in: u64,
    control: ControlBudget,
    /// The outgoing frame being assembled.
    out: BytesMut,
    /// Its total length, once its head has been seen.
    out_len: Option<usize>,
    /// Outgoing messages sent so far (the first is the broker hello).
    messages_out: u64,
    /// Where the outgoing bytes this adapter holds are charged: the frame
    /// being assembled (`out_len`) and those sent but not yet flushed
    /// (`unflushed`).
    budget: std::sync::Arc<SendBudget>,
    unflushed: usize,
    failing: Option<Failing>,
    /// The broker is shutting down: close with 1001 rather than 1000.
    stop: watch::Receiver<bool>,
    /// Counts connections this adapter closed for a WebSocket violation.
    violations: std::sync::Arc<Metrics>,
    closed: bool,
}

impl<S: AsyncRead + AsyncWrite + Unpin> WsStream<S> {
    /// Take over an upgraded stream (`prefix`: bytes read past the request
    /// head) with messages of at most `max_message` bytes.
    pub(crate) fn new(
        inner: S,
        prefix: Bytes,
        max_message: usize,
        stop: watch::Receiver<bool>,
        metrics: std::sync::Arc<Metrics>,
        budget: std::sync::Arc<SendBudget>,
    ) -> WsStream<S> {
        let ws = tokio_websockets::ServerBuilder::new()
            .limits(tokio_websockets::Limits::default().max_payload_len(Some(max_message)))
            .serve(Rewind::new(prefix, inner));
        WsStream {
            ws,
            inbound: Bytes::new(),
            messages_in: 0,
            control: ControlBudget::new(),
            out: BytesMut::new(),
            out_len: None,
            messages_out: 0,
            budget,
            unflushed: 0,
            failing: None,
            stop,
            violations: metrics,
            closed: false,
        }
    }

    /// Start closing for a violation: queue our close frame (unless the
    /// library already queued one for its own error) and remember `error`.
    fn fail(&mut self, close: Option<(CloseCode, &str)>, error: io::Error) {
        self.violations
            .ws_violations
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if let Some((code, reason)) = close {
            // Queued only; flushed by the close below.
            let _ = Pin::new(&mut self.ws).start_send(Message::close(Some(code), reason));
        }
        self.closed = true;
        self.failing = Some(Failing {
            error: Some(error),
            deadline: Box::pin(tokio::time::sleep(CLOSE_WAIT)),
        });
    }

    /// Check one inbound binary message and make it the bytes to read.
    fn take_message(&mut self, payload: Bytes) -> Result<(), &'static str> {
        let ok = if self.messages_in == 0 {
            payload.len() == HELLO_LEN
        } else {
            payload.len() >= 4
                && u32::from_be_bytes([payload[0], payload[1], payload[2], payload[3]]) as usize
                    == payload.len() - 4
        };
        if !ok {
            return Err(if self.messages_in == 0 {
                "the first message must be the 8-byte HermitMQ hello"
            } else {
                "each binary message must be exactly one HermitMQ frame"
            });
        }
        self.messages_in += 1;
        self.inbound = payload;
        Ok(())
    }

    /// Send the assembled outgoing frame, if it is complete.
    fn poll_send_frame(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.out_len.is_none_or(|n| n != self.out.len()) {
            return Poll::Ready(Ok(()));
        }
        ready!(Pin::new(&mut self.ws).poll_ready(cx)).map_err(io::Error::other)?;
        let frame = self.out.split().freeze();
        Pin::new(&mut self.ws)
            .start_send(Message::binary(frame))
            .map_err(io::Error::other)?;
        // Still charged (as unflushed) until the socket has taken it.
        self.unflushed += self.out_len.take().unwrap_or(0);
        self.messages_out += 1;
        Poll::Ready(Ok(()))
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncRead for WsStream<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        loop {
            if let Some(f) = &mut this.failing {
                // Send the close frame and wait (briefly) for the client's;
                // then the connection gets the error and ends.
                let done = Pin::new(&mut this.ws).poll_close(cx).is_ready()
                    || f.deadline.as_mut().poll(cx).is_ready();
                if !done {
                    return Poll::Pending;
                }
                let e = f.error.take().unwrap_or_else(|| io::Error::other("closed"));
                return Poll::Ready(Err(e));
            }
            if !this.inbound.is_empty() {
                let n = this.inbound.len().min(buf.remaining());
                buf.put_slice(&this.inbound[..n]);
                this.inbound.advance(n);
                return Poll::Ready(Ok(()));
            }
            let msg = match ready!(Pin::new(&mut this.ws).poll_next(cx)) {
                // The close handshake is over (or the client just went): EOF.
                None => return Poll::Ready(Ok(())),
                Some(Err(e)) => {
                    // For framing errors tokio-websockets has queued its
                    // own close frame (1002, 1007, 1009 from a frame
                    // header) and ours is refused; a message that grew past
                    // the limit over several fragments gets ours.
                    let code = match e {
                        tokio_websockets::Error::PayloadTooLong { .. } => {
                            CloseCode::MESSAGE_TOO_BIG
                        }
                        _ => CloseCode::PROTOCOL_ERROR,
                    };
                    let error = io::Error::new(io::ErrorKind::InvalidData, e);
                    this.fail(Some((code, "")), error);
                    continue;
                }
                Some(Ok(msg)) => msg,
            };
            if msg.is_binary() {
                // Never a copy: a shared payload stays shared.
                let payload = Bytes::from(msg.into_payload());
                if let Err(why) = this.take_message(payload) {
                    let error = io::Error::new(io::ErrorKind::InvalidData, why);
                    this.fail(Some((CloseCode::PROTOCOL_ERROR, why)), error);
                }
            } else if msg.is_text() {
                let why = "text messages are not part of the HermitMQ protocol";
                let error = io::Error::new(io::ErrorKind::InvalidData, why);
                this.fail(Some((CloseCode::UNSUPPORTED_DATA, why)), error);
            } else if (msg.is_ping() || msg.is_pong()) && !this.control.take() {
                let why = "too many pings";
                let error = io::Error::new(io::ErrorKind::InvalidData, why);
                this.fail(Some((CloseCode::POLICY_VIOLATION, why)), error);
            }
            // A close frame: the library answers it; the next poll ends.
        }
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncWrite for WsStream<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        if this.closed {
            return Poll::Ready(Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "the WebSocket is closing",
            )));
        }
        ready!(this.poll_send_frame(cx))?;
        let mut taken = 0;
        if this.out_len.is_none() {
            // The frame's head says how long it is: the broker hello's
            // version byte, or a frame's length prefix.
            let head = if this.messages_out == 0 { HELLO_LEN } else { 4 };
            let k = (head - this.out.len()).min(buf.len());
            this.out.extend_from_slice(&buf[..k]);
            taken = k;
            if this.out.len() < head {
                return Poll::Ready(Ok(taken));
            }
            let len = if this.messages_out == 0 {
                if this.out[3] == VERSION_3 {
                    BROKER_HELLO_V3_LEN
                } else {
                    HELLO_LEN
                }
            } else {
                4 + u32::from_be_bytes([this.out[0], this.out[1], this.out[2], this.out[3]])
                    as usize
            };
            this.out.reserve(len - this.out.len());
            this.budget.charge(len);
            this.out_len = Some(len);
        }
        let len = this.out_len.unwrap_or(0);
        let k = (len - this.out.len()).min(buf.len() - taken);
        this.out.extend_from_slice(&buf[taken..taken + k]);
        taken += k;
        // Start sending a complete frame now; if the socket is full it
        // goes out with the next write or flush.
        if let Poll::Ready(Err(e)) = this.poll_send_frame(cx) {
            return Poll::Ready(Err(e));
        }
        Poll::Ready(Ok(taken))
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        ready!(this.poll_send_frame(cx))?;
        ready!(Pin::new(&mut this.ws).poll_flush(cx)).map_err(io::Error::other)?;
        this.budget.give(std::mem::take(&mut this.unflushed));
        Poll::Ready(Ok(()))
    }

    /// The broker ends the connection: send what is complete, then a close
    /// frame (1000, or 1001 while the broker shuts down). Does not wait for
    /// the client's answer: the connection reads until it comes (EOF) for a
    /// bounded time.
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        if !this.closed {
            ready!(this.poll_send_frame(cx))?;
            ready!(Pin::new(&mut this.ws).poll_ready(cx)).map_err(io::Error::other)?;
            let code = if *this.stop.borrow() {
                CloseCode::GOING_AWAY
            } else {
                CloseCode::NORMAL_CLOSURE
            };
            Pin::new(&mut this.ws)
                .start_send(Message::close(Some(code), ""))
                .map_err(io::Error::other)?;
            this.closed = true;
        }
        Pin::new(&mut this.ws)
            .poll_flush(cx)
            .map_err(io::Error::other)
    }
}

impl<S> Drop for WsStream<S> {
    /// Give back what the adapter still holds charged.
    fn drop(&mut self) {
        self.budget.give(self.unflushed + self.out_len.unwrap_or(0));
    }
}

/// Fetch bodies are copied into messages: a WebSocket cannot take `sendfile`.
impl<S: AsyncRead + AsyncWrite + Unpin + Send + 'static> ByteStream for WsStream<S> {}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    /// The bytes an adapter holds — a frame being assembled, one sent to
    /// the library but not yet taken by the socket — count against the
    /// send budget, and are given back when the socket takes them or the
    /// adapter goes.
    #[tokio::test]
    async fn what_the_adapter_holds_is_charged_to_the_send_budget() {
        let (ours, mut theirs) = tokio::io::duplex(4096);
        let budget = Arc::new(SendBudget::new(u64::MAX));
        let (_stop_tx, stop) = watch::channel(false);
        let mut ws = WsStream::new(
            ours,
            Bytes::new(),
            1 << 20,
            stop,
            Arc::new(Metrics::default()),
            budget.clone(),
        );
        // A version-2 broker hello (8 bytes), then one 60,000-byte frame
        // the peer does not read yet: taken whole, held, charged.
        let mut frame = vec![0, 0, 0, 2, 0, 0, 0, 0];
        frame.extend_from_slice(&60_000u32.to_be_bytes());
        frame.resize(frame.len() + 60_000, 7);
        ws.write_all(&frame).await.unwrap();
        assert_eq!(budget.used(), frame.len(), "held until the socket takes it");
        // The peer reads: once flushed, nothing is held.
        let reader = tokio::spawn(async move {
            let mut sink = Vec::new();
            let mut buf = [0u8; 8192];
            while sink.len() < 60_000 {
                let n = theirs.read(&mut buf).await.unwrap();
                assert!(n > 0);
                sink.extend_from_slice(&buf[..n]);
            }
            theirs
        });
        ws.flush().await.unwrap();
        assert_eq!(budget.used(), 0);
        let _theirs = reader.await.unwrap();
        // Half a frame, then the connection goes: given back.
        ws.write_all(&1000u32.to_be_bytes()).await.unwrap();
        ws.write_all(&[1; 10]).await.unwrap();
        assert_eq!(budget.used(), 1004);
        drop(ws);
        assert_eq!(budget.used(), 0);
    }
}
