//! One TCP connection to a HermitMQ broker, once its handshake is done
//! ([`handshake`](super::handshake)): a writer task that sends queued frames
//! with one vectored write per wake-up, and a reader task that matches
//! responses to requests by correlation id.
//!
//! Every request in flight has an entry in the pending table until its
//! answer arrives. When the connection ends — EOF, an I/O or protocol error,
//! a request timeout, or the broker's connection-level notice followed by
//! EOF — every entry still pending is failed with a retriable error; nothing
//! is silently dropped.
//!
//! Correlation id 0 is never used for a request: the broker sends
//! connection-level notices (`ShuttingDown`, `Timeout`, `TooManyConnections`)
//! with it just before closing. A notice makes the connection *draining*: no
//! new request is sent on it, answers already due still arrive, and the
//! client opens a new connection for new requests.

use std::collections::HashMap;
use std::io::IoSlice;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::{Buf, Bytes, BytesMut};
use hermit_protocol::frame::{
    FrameCheck, REQUEST_HEADER_LEN, ResponseBody, check_response, decode_response,
};
use hermit_protocol::header::{RESPONSE_HEADER_LEN, RequestHeader, ResponseHeader};
use hermit_protocol::{Op, Status, WireError};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::{OwnedSemaphorePermit, mpsc, watch};
use tokio::time::Instant;

use crate::error::ClientError;
// Nothing panics while holding these locks; if something did, the data
// is still consistent (every update is a single insert/remove).
use crate::lock::lock;
use crate::records::FetchResponse;
use crate::transport::reply::{Reply, ReplyTo};

/// Most frames the writer takes from its queue for one vectored write.
const WRITE_BATCH: usize = 256;
/// Read buffer: initial size, and the spare room kept before each read.
pub(super) const READ_CHUNK: usize = 64 * 1024;

struct Pending {
    reply: ReplyTo,
    deadline: Instant,
    /// Held until the answer (or the connection's end): bounds requests in flight.
    _permit: Option<OwnedSemaphorePermit>,
}

/// A frame for the writer: `head` is the encoded frame up to the body, with
/// placeholder length and correlation id that the writer fills in, so one
/// head can be shared by every batch of a partition.
pub(crate) struct Outgoing {
    corr: u32,
    head: Bytes,
    body: Option<Bytes>,
}

struct Inner {
    next_corr: u32,
    pending: HashMap<u32, Pending>,
    /// `None` once the connection is dead: the writer drains and exits.
    tx: Option<mpsc::UnboundedSender<Outgoing>>,
    /// Why the broker is ending the connection (its corr-0 notice).
    draining: Option<String>,
}

/// One live (or dead) connection. Shared by the client, the reader and the writer.
pub(crate) struct Conn {
    pub(crate) id: u64,
    addr: Arc<str>,
    /// The largest frame the broker accepts (from its hello).
    pub(crate) max_frame: u32,
    /// The broker announced `FETCH_MIN_BYTES` in its hello: a fetch may
    /// carry `min_bytes` (never sent to a broker that did not: it would
    /// refuse the longer body).
    pub(crate) fetch_min_bytes: bool,
    /// When the hello completed (a connection that dies young means backoff).
    pub(crate) opened_at: Instant,
    request_timeout: Duration,
    /// Cheap check for the client's fast path; the truth is in `inner`.
    usable: AtomicBool,
    /// Why it died, once it did.
    death: Mutex<Option<ClientError>>,
    inner: Mutex<Inner>,
    /// Flipped when the connection dies, so the reader and writer stop.
    closed: watch::Sender<bool>,
}

/// The byte stream under a connection.
pub(super) enum Stream {
    Plain(TcpStream),
    Tls(Box<crate::tls::TlsStream<TcpStream>>),
}

/// What the handshake learnt.
#[derive(Debug)]
pub(super) struct Handshake {
    /// The largest frame the broker accepts.
    pub(super) max_frame: u32,
    /// The broker announced `FETCH_MIN_BYTES`: it reads a fetch's
    /// `min_bytes` part.
    pub(super) fetch_min_bytes: bool,
    /// Bytes read past the handshake's last frame (the reader starts with them).
    pub(super) leftover: BytesMut,
}

impl Conn {
    /// Start the reader and writer tasks of a connection to `addr` whose
    /// handshake (`hs`) is done over `stream`; `first_corr` is the first
    /// correlation id free for requests.
    pub(super) fn start(
        id: u64,
        addr: &str,
        stream: Stream,
        hs: Handshake,
        first_corr: u32,
        request_timeout: Duration,
        max_response: u32,
    ) -> Arc<Conn> {
        let (tx, rx) = mpsc::unbounded_channel();
        let (closed, _) = watch::channel(false);
        let conn = Arc::new(Conn {
            id,
            addr: Arc::from(addr),
            max_frame: hs.max_frame,
            fetch_min_bytes: hs.fetch_min_bytes,
            opened_at: Instant::now(),
            request_timeout,
            usable: AtomicBool::new(true),
            death: Mutex::new(None),
            inner: Mutex::new(Inner {
                next_corr: first_corr,
                pending: HashMap::new(),
                tx: Some(tx),
                draining: None,
            }),
            closed,
        });
        match stream {
            // Plain TCP splits without a lock between the halves.
            Stream::Plain(tcp) => {
                let (rd, wr) = tcp.into_split();
                tokio::spawn(read_loop(conn.clone(), rd, hs.leftover, max_response));
                tokio::spawn(write_loop(conn.clone(), wr, rx));
            }
            Stream::Tls(tls) => {
                let (rd, wr) = tokio::io::split(*tls);
                tokio::spawn(read_loop(conn.clone(), rd, hs.leftover, max_response));
                tokio::spawn(write_loop(conn.clone(), wr, rx));
            }
        }
        conn
    }
}

impl Conn {
    /// Whether new requests may be sent on it.
    pub(crate) fn is_usable(&self) -> bool {
        self.usable.load(Ordering::Acquire)
    }

    /// The broker's address.
    pub(crate) fn addr(&self) -> &str {
        &self.addr
    }

    /// Queue a request. `head` is the frame up to the body (length and
    /// correlation id are filled in by the writer); `extra_wait` extends the
    /// timeout (a long-poll fetch's wait). Fails without sending when the
    /// connection is no longer usable or the frame is over the broker's limit.
    pub(crate) fn enqueue(
        &self,
        head: Bytes,
        body: Option<Bytes>,
        reply: ReplyTo,
        permit: Option<OwnedSemaphorePermit>,
        extra_wait: Duration,
    ) -> Result<(), ClientError> {
        let len = (head.len() - 4) as u64 + body.as_ref().map_or(0, |b| b.len() as u64);
        if len > u64::from(self.max_frame) {
            return Err(ClientError::RequestTooLarge {
                len,
                max: u64::from(self.max_frame),
            });
        }
        let deadline = Instant::now() + self.request_timeout + extra_wait;
        let mut inner = lock(&self.inner);
        if let Some(why) = &inner.draining {
            return Err(ClientError::lost(&self.addr, why.clone()));
        }
        let Some(tx) = inner.tx.clone() else {
            drop(inner);
            return Err(self.death_reason());
        };
        let mut corr = inner.next_corr;
        // Skip 0 (reserved for notices) and ids still in use after a wrap.
        while corr == 0 || inner.pending.contains_key(&corr) {
            corr = corr.wrapping_add(1);
        }
        inner.next_corr = corr.wrapping_add(1);
        inner.pending.insert(
            corr,
            Pending {
                reply,
                deadline,
                _permit: permit,
            },
        );
        // Sent under the lock so that a concurrent fail() either sees the
        // entry (and fails it) or comes after the frame was queued.
        if tx.send(Outgoing { corr, head, body }).is_err() {
            let p = inner.pending.remove(&corr);
            drop(inner);
            drop(p);
            return Err(self.death_reason());
        }
        Ok(())
    }

    fn death_reason(&self) -> ClientError {
        lock(&self.death)
            .clone()
            .unwrap_or_else(|| ClientError::lost(&self.addr, "connection closed"))
    }

    /// End the connection: fail every pending request with `why` (those past
    /// their deadline with a timeout), stop the reader and writer.
    pub(crate) fn fail(&self, why: ClientError) {
        self.usable.store(false, Ordering::Release);
        let pending = {
            let mut inner = lock(&self.inner);
            if inner.tx.is_none() {
                return;
            }
            inner.tx = None;
            *lock(&self.death) = Some(why.clone());
            std::mem::take(&mut inner.pending)
        };
        let _ = self.closed.send(true);
        let now = Instant::now();
        let timeout = ClientError::Timeout {
            what: "request",
            after: self.request_timeout,
        };
        for (_, p) in pending {
            if p.deadline <= now {
                p.reply.deliver(Err(timeout.clone()));
            } else {
                p.reply.deliver(Err(why.clone()));
            }
        }
    }

    /// Close on purpose (client dropped): pending requests fail as lost.
    pub(crate) fn close(&self, reason: &str) {
        self.fail(ClientError::lost(&self.addr, reason));
    }

    fn drain(&self, reason: String) {
        self.usable.store(false, Ordering::Release);
        lock(&self.inner).draining.get_or_insert(reason);
    }

    fn take_pending(&self, corr: u32) -> Option<Pending> {
        lock(&self.inner).pending.remove(&corr)
    }

    /// Fail the connection if a request is past its deadline.
    fn check_deadlines(&self) {
        let now = Instant::now();
        let expired = lock(&self.inner)
            .pending
            .values()
            .any(|p| p.deadline <= now);
        if expired {
            tracing::warn!(addr = %self.addr, "request timed out; closing the connection");
            self.fail(ClientError::lost(
                &self.addr,
                "closed after a request on it timed out",
            ));
        }
    }

    /// Why the broker is ending the connection, when it said so.
    fn notice(&self) -> Option<String> {
        lock(&self.inner).draining.clone()
    }

    /// Handle the frame of `len` bytes at the start of `buf`, consuming it.
    fn dispatch(&self, buf: &mut BytesMut, len: usize) -> Result<(), ClientError> {
        // Whole (check_response): at least a response header.
        let head = ResponseHeader::peek(&buf[..len]).ok_or(WireError::UnexpectedEof {
            need: RESPONSE_HEADER_LEN,
            have: len,
        })?;
        let (corr, op) = (head.correlation_id, head.op_code());
        let is_fetch = op == Op::Fetch as u8 && head.is_ok();
        let (result, fetch_frame) = if is_fetch {
            // Records stay where the socket put them: the frame becomes a
            // shared buffer and every record is a slice of it.
            let frame = buf.split_to(len).freeze();
            (None, Some(frame))
        } else {
            let r = decode(&buf[..len], None)?;
            buf.advance(len);
            (Some(r), None)
        };
        let pending = if corr == 0 {
            None
        } else {
            self.take_pending(corr)
        };
        let result = match (result, fetch_frame) {
            (Some(r), _) => r,
            (None, Some(frame)) => {
                if pending.is_none() {
                    return Ok(()); // Nobody waits: no need to decode.
                }
                decode(&frame, Some(&frame))?
            }
            (None, None) => unreachable!("one of the two is set"),
        };
        if corr != 0
            && let Err(ClientError::Broker { status, .. }) = &result
            && closes_connection(op, *status)
        {
            // The broker closes the connection after this refusal
            // (docs/PROTOCOL.md §4): send nothing more on it, so that the
            // next request goes to a new connection instead of being lost
            // in the closing one.
            self.drain(format!(
                "the broker closes it after refusing a request ({status})"
            ));
        }
        match (corr, pending) {
            (0, _) => {
                let why = match result {
                    Err(e) => e.to_string(),
                    Ok(_) => "unexpected notice".to_owned(),
                };
                tracing::debug!(addr = %self.addr, reason = %why, "broker notice: connection ending");
                self.drain(why);
            }
            (_, Some(p)) => p.reply.deliver(result),
            (corr, None) => {
                // Its waiter gave up (timeout already handled, or dropped).
                tracing::debug!(addr = %self.addr, corr, "answer to an unknown request ignored");
            }
        }
        Ok(())
    }
}

/// Refusals after which the broker closes the connection (docs/PROTOCOL.md
/// §4), by the op byte answered and the status.
fn closes_connection(op: u8, status: Status) -> bool {
    match status {
        // A Metadata of all topics or a ListTopics page that would be too
        // large is a well-formed request the broker declines: it stays open.
        Status::PayloadTooLarge => op != Op::Metadata as u8 && op != Op::ListTopics as u8,
        Status::InvalidTopicName
        | Status::CorruptBatch
        | Status::InvalidRequest
        | Status::UnknownOp
        | Status::KeyTooLarge => true,
        _ => false,
    }
}

/// Decode a response frame into a [`Reply`] or the broker's error. `frame`,
/// when given, is the shared buffer that fetch records are sliced from.
/// The outer `Err` is a protocol violation; the inner one the broker's refusal.
///
/// Every frame is decoded whole here, so a malformed answer ends the
/// connection whatever its op; a control request's answer then goes to its
/// caller as the frame, which the `Client` method reads.
#[allow(clippy::type_complexity)]
fn decode(bytes: &[u8], frame: Option<&Bytes>) -> Result<Result<Reply, ClientError>, ClientError> {
    let f = decode_response(bytes)?;
    Ok(match f.body {
        Ok(body) => Ok(match body {
            ResponseBody::Produce { base_offset } => Reply::Produce { base_offset },
            ResponseBody::Fetch {
                high_watermark,
                log_start,
                records,
            } => Reply::Fetch(FetchResponse {
                topic: Arc::from(""),
                partition: 0,
                high_watermark,
                log_start,
                batches: match frame {
                    Some(frame) => frame.slice_ref(records),
                    None => Bytes::copy_from_slice(records),
                },
            }),
            // Only the handshake authenticates, and it reads its own answer.
            ResponseBody::Authenticate { .. } => {
                return Err(ClientError::Protocol(
                    hermit_protocol::WireError::InvalidField {
                        field: "op",
                        value: Op::Authenticate as u64,
                    },
                ));
            }
            // Any other op is a control request's.
            _ => Reply::Control(match frame {
                Some(frame) => frame.clone(),
                None => Bytes::copy_from_slice(bytes),
            }),
        }),
        Err(e) => Err(ClientError::refused(&e)),
    })
}

async fn read_loop<R: AsyncRead + Unpin>(
    conn: Arc<Conn>,
    mut rd: R,
    leftover: BytesMut,
    max_response: u32,
) {
    let mut closed = conn.closed.subscribe();
    let mut buf = leftover;
    buf.reserve(READ_CHUNK);
    let tick_every =
        (conn.request_timeout / 4).clamp(Duration::from_millis(10), Duration::from_secs(1));
    let mut tick = tokio::time::interval(tick_every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let why = 'conn: loop {
        loop {
            match check_response(&buf, max_response) {
                Ok(FrameCheck::Complete { len }) => {
                    if let Err(e) = conn.dispatch(&mut buf, len) {
                        break 'conn e;
                    }
                }
                Ok(FrameCheck::Incomplete { need }) => {
                    // `need` passed the response size limit in check_response.
                    let want = need.saturating_sub(buf.len()).max(READ_CHUNK / 4);
                    if buf.capacity() - buf.len() < want {
                        buf.reserve(want.max(READ_CHUNK));
                    }
                    break;
                }
                Err(e) => break 'conn ClientError::Protocol(e),
            }
        }
        tokio::select! {
            r = rd.read_buf(&mut buf) => match r {
                Ok(0) => {
                    let reason = match conn.notice() {
                        Some(n) => format!("closed by the broker: {n}"),
                        None => "closed by the broker".to_owned(),
                    };
                    break ClientError::lost(conn.addr(), reason);
                }
                Ok(_) => {}
                Err(e) => break ClientError::lost(conn.addr(), format!("read failed: {e}")),
            },
            _ = tick.tick() => conn.check_deadlines(),
            _ = closed.changed() => return,
        }
    };
    if matches!(why, ClientError::Protocol(_)) {
        tracing::warn!(addr = %conn.addr(), error = %why, "closing the connection");
    }
    conn.fail(why);
}

async fn write_loop<W: AsyncWrite + Unpin>(
    conn: Arc<Conn>,
    mut wr: W,
    mut rx: mpsc::UnboundedReceiver<Outgoing>,
) {
    let mut closed = conn.closed.subscribe();
    let mut msgs: Vec<Outgoing> = Vec::with_capacity(WRITE_BATCH);
    let mut heads = BytesMut::with_capacity(4096);
    loop {
        let n = tokio::select! {
            n = rx.recv_many(&mut msgs, WRITE_BATCH) => n,
            _ = closed.changed() => 0,
        };
        if n == 0 {
            break;
        }
        // Heads are copied (they are small) so their length and correlation
        // id can be filled in; bodies (record batches) go out from where
        // they were written.
        heads.clear();
        let mut ranges = Vec::with_capacity(msgs.len());
        for m in &msgs {
            let start = heads.len();
            heads.extend_from_slice(&m.head);
            let len = (m.head.len() - 4 + m.body.as_ref().map_or(0, Bytes::len)) as u32;
            RequestHeader::set_len(&mut heads[start..], len);
            RequestHeader::set_correlation_id(&mut heads[start..], m.corr);
            ranges.push(start..heads.len());
        }
        let mut slices: Vec<IoSlice<'_>> = Vec::with_capacity(msgs.len() * 2);
        for (m, r) in msgs.iter().zip(&ranges) {
            slices.push(IoSlice::new(&heads[r.clone()]));
            if let Some(b) = m.body.as_ref().filter(|b| !b.is_empty()) {
                slices.push(IoSlice::new(b));
            }
        }
        let mut rest: &mut [IoSlice<'_>] = &mut slices;
        let res = async {
            while !rest.is_empty() {
                let w = wr.write_vectored(rest).await?;
                if w == 0 {
                    return Err(std::io::Error::from(std::io::ErrorKind::WriteZero));
                }
                IoSlice::advance_slices(&mut rest, w);
            }
            Ok::<(), std::io::Error>(())
        };
        let res = tokio::select! {
            r = res => r,
            _ = closed.changed() => break,
        };
        drop(slices);
        msgs.clear();
        if let Err(e) = res {
            conn.fail(ClientError::lost(conn.addr(), format!("write failed: {e}")));
            break;
        }
    }
    let _ = wr.shutdown().await;
}

/// Encode a control request (anything but produce) with correlation id 0,
/// as a head for [`Conn::enqueue`].
pub(crate) fn encode_control(req: &hermit_protocol::Request<'_>) -> Result<Bytes, ClientError> {
    let mut out = BytesMut::with_capacity(64);
    req.encode(0, &mut out)?;
    Ok(out.freeze())
}

/// The head of a produce frame: everything before the batch.
pub(crate) fn produce_head(
    topic: &str,
    partition: u32,
    ack: hermit_protocol::Ack,
) -> Result<Bytes, ClientError> {
    let mut out = BytesMut::with_capacity(REQUEST_HEADER_LEN + 1 + topic.len() + 5);
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&[Op::Produce as u8]);
    out.extend_from_slice(&[0; 4]);
    hermit_protocol::codec::put_str8(&mut out, "topic", topic).map_err(ClientError::Protocol)?;
    out.extend_from_slice(&partition.to_be_bytes());
    out.extend_from_slice(&[ack as u8]);
    Ok(out.freeze())
}

#[cfg(test)]
mod tests {
    use super::*;
    use hermit_protocol::frame::{Limits, decode_request};
    use hermit_protocol::{Ack, BatchBuilder, Request};

    #[test]
    fn produce_head_plus_batch_is_a_valid_produce_frame() {
        let mut b = BatchBuilder::new(b"key");
        b.push(b"one");
        b.push(b"two");
        let batch = b.finish(42).unwrap();
        let head = produce_head("chat", 3, Ack::Durable).unwrap();
        let mut frame = head.to_vec();
        let len = (frame.len() - 4 + batch.len()) as u32;
        RequestHeader::set_len(&mut frame, len);
        RequestHeader::set_correlation_id(&mut frame, 7);
        frame.extend_from_slice(&batch);
        let f = decode_request(&frame, &Limits::default()).unwrap();
        assert_eq!(f.correlation_id, 7);
        let Request::Produce(p) = f.request else {
            panic!("not a produce: {:?}", f.request)
        };
        assert_eq!(
            (p.topic.as_str(), p.partition, p.ack, p.batch),
            ("chat", 3, Ack::Durable, &batch[..])
        );
    }
}
