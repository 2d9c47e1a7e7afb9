//! One TCP connection to a HermitMQ broker: the hello, a writer task that sends
//! queued frames with one vectored write per wake-up, and a reader task that
//! matches responses to requests by correlation id.
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
use hermit_protocol::auth::MECHANISM_P256_ECDSA;
use hermit_protocol::frame::Authenticate;
use hermit_protocol::frame::{
    FrameCheck, REQUEST_HEADER_LEN, ResponseBody, check_response, decode_response,
};
use hermit_protocol::hello::{
    BROKER_HELLO_V3_LEN, BrokerFlags, BrokerHello, HELLO_LEN, Hello, PROTOCOL_VERSION, VERSION_3,
};
use hermit_protocol::{Op, Request, Status, WireError};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::{OwnedSemaphorePermit, mpsc, watch};
use tokio::time::Instant;

use crate::crypto::{Fingerprint, Identity};
use crate::error::ClientError;
// Nothing panics while holding these locks; if something did, the data
// is still consistent (every update is a single insert/remove).
use crate::lock::lock;
use crate::records::FetchResponse;
use crate::transport::reply::{Reply, ReplyTo};

/// Most frames the writer takes from its queue for one vectored write.
const WRITE_BATCH: usize = 256;
/// Read buffer: initial size, and the spare room kept before each read.
const READ_CHUNK: usize = 64 * 1024;

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

/// What opening a connection needs besides the address, fixed for the
/// life of a [`crate::Client`].
pub(crate) struct OpenOptions {
    pub(crate) connect_timeout: Duration,
    pub(crate) request_timeout: Duration,
    pub(crate) max_response: u32,
    /// `Some` for `hermits://`: the configuration (built once, at the first
    /// connect) and the name the broker's certificate must carry.
    pub(crate) tls: Option<TlsTarget>,
    /// Signs each connection's nonce when the broker asks for authentication.
    pub(crate) identity: Option<Arc<Identity>>,
}

/// Where a `hermits://` connection goes: the configuration and the server
/// name (the URL's host) the certificate is checked against.
pub(crate) struct TlsTarget {
    pub(crate) config: Arc<rustls::ClientConfig>,
    pub(crate) server_name: String,
}

/// The hello version this client sends. A broker that speaks only another
/// version answers with its own hello and closes.
const CLIENT_VERSION: u8 = PROTOCOL_VERSION;

/// Connect (TCP, then TLS for `hermits://`), exchange hellos, authenticate
/// when the broker asks and an identity is set, and start the reader and
/// writer tasks. The connection is handed out only after all of that, so
/// every request on it runs as the principal.
pub(crate) async fn open(
    addr: &str,
    id: u64,
    opts: &OpenOptions,
) -> Result<Arc<Conn>, ClientError> {
    let connect_err = |source| ClientError::connect(addr, source);
    let connect_timeout = opts.connect_timeout;
    let setup = async {
        let tcp = TcpStream::connect(addr).await.map_err(connect_err)?;
        tcp.set_nodelay(true).map_err(connect_err)?;
        match &opts.tls {
            None => {
                let mut tcp = tcp;
                let hs = handshake(&mut tcp, addr, opts).await?;
                Ok::<_, ClientError>((Stream::Plain(tcp), hs))
            }
            Some(t) => {
                let mut tls = crate::tls::connect(tcp, &t.server_name, t.config.clone())
                    .await
                    .map_err(connect_err)?;
                let hs = handshake(&mut tls, addr, opts).await?;
                Ok((Stream::Tls(Box::new(tls)), hs))
            }
        }
    };
    let (stream, hs) = match tokio::time::timeout(connect_timeout, setup).await {
        Ok(r) => r?,
        Err(_) => {
            return Err(connect_err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!("no hello within {connect_timeout:?}"),
            )));
        }
    };
    let (tx, rx) = mpsc::unbounded_channel();
    let (closed, _) = watch::channel(false);
    let conn = Arc::new(Conn {
        id,
        addr: Arc::from(addr),
        max_frame: hs.max_frame,
        opened_at: Instant::now(),
        request_timeout: opts.request_timeout,
        usable: AtomicBool::new(true),
        death: Mutex::new(None),
        inner: Mutex::new(Inner {
            // Ids used by the handshake are done with.
            next_corr: AUTH_CORRELATION_ID + 1,
            pending: HashMap::new(),
            tx: Some(tx),
            draining: None,
        }),
        closed,
    });
    let max_response = opts.max_response;
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
    Ok(conn)
}

/// The byte stream under a connection.
enum Stream {
    Plain(TcpStream),
    Tls(Box<crate::tls::TlsStream<TcpStream>>),
}

/// What the handshake learnt.
#[derive(Debug)]
struct Handshake {
    max_frame: u32,
    /// Bytes read past the handshake's last frame (the reader starts with them).
    leftover: BytesMut,
}

/// Correlation id of the `Authenticate` request, the first frame of a connection.
const AUTH_CORRELATION_ID: u32 = 1;

/// Hellos, then `Authenticate` when the broker asks for it.
async fn handshake<S>(
    stream: &mut S,
    addr: &str,
    opts: &OpenOptions,
) -> Result<Handshake, ClientError>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    handshake_as(stream, addr, opts, CLIENT_VERSION).await
}

/// [`handshake`] with the hello's version as a parameter (tests speak 3
/// before the client does).
async fn handshake_as<S>(
    stream: &mut S,
    addr: &str,
    opts: &OpenOptions,
    version: u8,
) -> Result<Handshake, ClientError>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let io_err = |source| ClientError::connect(addr, source);
    let hello = Hello { version, value: 0 };
    stream.write_all(&hello.encode()).await.map_err(io_err)?;
    let mut buf = [0u8; BROKER_HELLO_V3_LEN];
    stream
        .read_exact(&mut buf[..HELLO_LEN])
        .await
        .map_err(io_err)?;
    let head = Hello::decode(&buf[..HELLO_LEN])?;
    // A version-2 head (a broker serving anonymous v2 answers that way, as
    // main's client accepted) means no flags and no authentication.
    if head.version != version && head.version != 2 {
        return Err(ClientError::UnsupportedVersion {
            broker: head.version,
            client: version,
        });
    }
    if head.version != VERSION_3 {
        // A version-2 broker: no flags, no authentication.
        return Ok(Handshake {
            max_frame: head.value,
            leftover: BytesMut::new(),
        });
    }
    stream
        .read_exact(&mut buf[HELLO_LEN..])
        .await
        .map_err(io_err)?;
    let broker = BrokerHello::decode(&buf)?;
    let leftover = match auth_plan(broker.flags, opts.identity.as_deref(), addr)? {
        None => BytesMut::new(),
        Some(identity) => authenticate(stream, addr, &broker, identity, opts.max_response).await?,
    };
    Ok(Handshake {
        max_frame: broker.max_frame,
        leftover,
    })
}

/// Whether to authenticate on a connection whose broker hello says `flags`:
/// `Some(identity)` to sign, `None` to go on anonymously (or as the
/// principal a client certificate already named), or the typed error when
/// the broker requires a principal the client cannot prove.
fn auth_plan<'a>(
    flags: BrokerFlags,
    identity: Option<&'a Identity>,
    addr: &str,
) -> Result<Option<&'a Identity>, ClientError> {
    if flags.has(BrokerFlags::AUTHENTICATED) {
        return Ok(None);
    }
    let offered = flags.has(BrokerFlags::AUTH_AVAILABLE) || flags.has(BrokerFlags::AUTH_REQUIRED);
    match identity {
        Some(identity) if offered => Ok(Some(identity)),
        None if flags.has(BrokerFlags::AUTH_REQUIRED) => Err(ClientError::AuthRequired {
            addr: addr.to_owned(),
        }),
        _ => Ok(None),
    }
}

/// Send `Authenticate` and wait for its answer; returns the bytes read past it.
async fn authenticate<S>(
    stream: &mut S,
    addr: &str,
    broker: &BrokerHello,
    identity: &Identity,
    max_response: u32,
) -> Result<BytesMut, ClientError>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let io_err = |source| ClientError::connect(addr, source);
    let signature = identity.sign_auth(&broker.nonce, &broker.broker_id);
    let mut frame = BytesMut::with_capacity(256);
    Request::Authenticate(Authenticate {
        mechanism: MECHANISM_P256_ECDSA,
        spki: identity.public_key().spki_der(),
        signature: &signature,
    })
    .encode(AUTH_CORRELATION_ID, &mut frame)?;
    stream.write_all(&frame).await.map_err(io_err)?;
    let mut buf = BytesMut::with_capacity(READ_CHUNK);
    let len = loop {
        match check_response(&buf, max_response)? {
            FrameCheck::Complete { len } => break len,
            FrameCheck::Incomplete { .. } => {
                if stream.read_buf(&mut buf).await.map_err(io_err)? == 0 {
                    return Err(ClientError::lost(
                        addr,
                        "closed by the broker during authentication",
                    ));
                }
            }
        }
    };
    let frame = buf.split_to(len);
    let answer = decode_response(&frame)?;
    if answer.correlation_id != AUTH_CORRELATION_ID {
        // A connection-level notice (shutting down, too many connections).
        let why = match answer.body {
            Err(e) => format!("{}: {}", e.status, e.message),
            Ok(_) => "unexpected answer".to_owned(),
        };
        return Err(ClientError::lost(
            addr,
            format!("closed by the broker: {why}"),
        ));
    }
    match answer.body {
        Ok(ResponseBody::Authenticate { principal }) => {
            if &principal != identity.fingerprint().as_bytes() {
                return Err(ClientError::AuthFailed {
                    addr: addr.to_owned(),
                    message: format!(
                        "the broker named principal {} instead of this identity's {}",
                        Fingerprint::from_bytes(principal).to_hex(),
                        identity.fingerprint().to_hex()
                    ),
                });
            }
            tracing::debug!(addr, principal = %identity.fingerprint().to_hex(), "authenticated");
            Ok(buf)
        }
        Ok(_) => Err(ClientError::Protocol(WireError::InvalidField {
            field: "response op",
            value: u64::from(frame[4]),
        })),
        Err(e) if e.status == Status::Unauthorized => Err(ClientError::AuthFailed {
            addr: addr.to_owned(),
            message: e.message.to_owned(),
        }),
        Err(e) => Err(ClientError::Broker {
            status: e.status,
            message: e.message.to_owned(),
        }),
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
        let corr = u32::from_be_bytes([buf[5], buf[6], buf[7], buf[8]]);
        let op = buf[4] & !hermit_protocol::frame::RESPONSE_BIT;
        let is_fetch = buf[4] & !hermit_protocol::frame::RESPONSE_BIT == Op::Fetch as u8
            && len >= 11
            && u16::from_be_bytes([buf[9], buf[10]]) == Status::Ok.code();
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
            heads[start..start + 4].copy_from_slice(&len.to_be_bytes());
            heads[start + 5..start + REQUEST_HEADER_LEN].copy_from_slice(&m.corr.to_be_bytes());
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
    use hermit_protocol::frame::{
        ErrorBody, Limits, decode_request, encode_error, encode_response,
    };
    use hermit_protocol::{Ack, BatchBuilder, Request};

    const NONCE: [u8; 32] = [5; 32];
    const BROKER_ID: [u8; 16] = [6; 16];

    fn opts(identity: Option<Arc<Identity>>) -> OpenOptions {
        OpenOptions {
            connect_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(5),
            max_response: 1 << 20,
            tls: None,
            identity,
        }
    }

    /// The broker's half of a handshake over `peer`: its hello with
    /// `flags`, then, when an `Authenticate` comes, the broker's own
    /// verifier decides; `answer` may replace the principal it returns.
    async fn broker_side(
        mut peer: tokio::io::DuplexStream,
        flags: u32,
        answer: Option<[u8; 32]>,
    ) -> Option<Vec<u8>> {
        let mut hello = [0u8; HELLO_LEN];
        peer.read_exact(&mut hello).await.ok()?;
        assert_eq!(Hello::decode(&hello).unwrap().version, VERSION_3);
        let ours = BrokerHello {
            max_frame: 1 << 20,
            flags: BrokerFlags(flags),
            nonce: NONCE,
            broker_id: BROKER_ID,
        };
        peer.write_all(&ours.encode()).await.ok()?;
        let mut len = [0u8; 4];
        peer.read_exact(&mut len).await.ok()?;
        let mut frame = len.to_vec();
        frame.resize(4 + u32::from_be_bytes(len) as usize, 0);
        peer.read_exact(&mut frame[4..]).await.ok()?;
        let req = decode_request(&frame, &Limits::default()).unwrap();
        let Request::Authenticate(a) = req.request else {
            panic!("first frame is not Authenticate: {:?}", req.request)
        };
        let mut out = BytesMut::new();
        match hermit_broker::auth::verify_authenticate(
            a.mechanism,
            a.spki,
            a.signature,
            &NONCE,
            &BROKER_ID,
        ) {
            Ok(p) => encode_response(
                req.correlation_id,
                &ResponseBody::Authenticate {
                    principal: answer.unwrap_or(*p.as_bytes()),
                },
                &mut out,
            )
            .unwrap(),
            Err(e) => encode_error(
                req.correlation_id,
                Op::Authenticate as u8,
                &ErrorBody {
                    status: Status::Unauthorized,
                    message: &e.to_string(),
                    bounds: None,
                },
                &mut out,
            )
            .unwrap(),
        }
        peer.write_all(&out).await.ok()?;
        Some(frame)
    }

    #[tokio::test]
    async fn authenticates_first_with_a_signature_the_broker_verifies() {
        let id = Arc::new(Identity::generate().unwrap());
        let (mut client, peer) = tokio::io::duplex(4096);
        let flags = BrokerFlags::AUTH_REQUIRED | BrokerFlags::AUTH_AVAILABLE;
        let broker = tokio::spawn(broker_side(peer, flags, None));
        let hs = handshake_as(&mut client, "test", &opts(Some(id)), VERSION_3)
            .await
            .unwrap();
        assert_eq!(hs.max_frame, 1 << 20);
        assert!(hs.leftover.is_empty());
        broker.await.unwrap().expect("an Authenticate frame");
    }

    #[tokio::test]
    async fn another_principal_in_the_answer_is_refused() {
        let id = Arc::new(Identity::generate().unwrap());
        let (mut client, peer) = tokio::io::duplex(4096);
        let broker = tokio::spawn(broker_side(
            peer,
            BrokerFlags::AUTH_AVAILABLE,
            Some([0; 32]),
        ));
        let err = handshake_as(&mut client, "test", &opts(Some(id)), VERSION_3)
            .await
            .unwrap_err();
        assert!(matches!(err, ClientError::AuthFailed { .. }), "{err}");
        assert!(
            err.to_string().contains("instead of this identity"),
            "{err}"
        );
        broker.await.unwrap();
    }

    #[tokio::test]
    async fn required_without_identity_is_a_typed_error_and_sends_nothing() {
        let (mut client, peer) = tokio::io::duplex(4096);
        let broker = tokio::spawn(broker_side(peer, BrokerFlags::AUTH_REQUIRED, None));
        let err = handshake_as(&mut client, "test", &opts(None), VERSION_3)
            .await
            .unwrap_err();
        assert!(matches!(err, ClientError::AuthRequired { .. }), "{err}");
        assert!(err.to_string().contains("--identity"), "{err}");
        drop(client);
        assert!(broker.await.unwrap().is_none(), "no frame after the hello");
    }

    #[test]
    fn auth_plan_follows_the_flags() {
        let id = Identity::generate().unwrap();
        let f = BrokerFlags;
        // Anonymous broker: never authenticate, even with an identity.
        assert!(auth_plan(f(0), Some(&id), "a").unwrap().is_none());
        let avail = BrokerFlags::AUTH_AVAILABLE;
        assert!(auth_plan(f(avail), None, "a").unwrap().is_none());
        assert!(auth_plan(f(avail), Some(&id), "a").unwrap().is_some());
        // A client certificate already named the principal.
        let done = BrokerFlags::AUTH_REQUIRED | BrokerFlags::AUTHENTICATED;
        assert!(auth_plan(f(done), None, "a").unwrap().is_none());
        assert!(auth_plan(f(BrokerFlags::AUTH_REQUIRED), None, "a").is_err());
    }

    #[test]
    fn produce_head_plus_batch_is_a_valid_produce_frame() {
        let mut b = BatchBuilder::new(b"key");
        b.push(b"one");
        b.push(b"two");
        let batch = b.finish(42).unwrap();
        let head = produce_head("chat", 3, Ack::Durable).unwrap();
        let mut frame = head.to_vec();
        let len = (frame.len() - 4 + batch.len()) as u32;
        frame[..4].copy_from_slice(&len.to_be_bytes());
        frame[5..9].copy_from_slice(&7u32.to_be_bytes());
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
