//! The WebSocket listener over real sockets: the HTTP upgrade (subprotocol,
//! origin, version, a stalled or oversized request), the protocol with one
//! frame per binary message, static files from `web_root`, TLS (`wss`), the
//! ACL — and every kind of malformed WebSocket input closing only its own
//! connection with the RFC 6455 close code (docs/PROTOCOL.md, WebSocket).
//!
//! The WebSocket client here is written by hand, so the tests can send what
//! no well-behaved client would (unmasked frames, text, lies about length).

mod netcommon;

use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::{Buf, BytesMut};
use hermit_broker::config::{AuthMode, Config};
use hermit_broker::net::Metrics;
use hermit_protocol::hello::{BROKER_HELLO_V3_LEN, BrokerFlags, BrokerHello, Hello};
use hermit_protocol::record::{BatchIter, patch_base_offset};
use hermit_protocol::{Ack, Request, Status};
use netcommon::*;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;

trait Io: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Io for T {}

const TEXT: u8 = 0x1;
const BINARY: u8 = 0x2;
const CONTINUATION: u8 = 0x0;
const CLOSE: u8 = 0x8;
const PING: u8 = 0x9;
const PONG: u8 = 0xA;

/// One WebSocket frame as a client sends it: masked unless `mask` is `None`.
fn frame(fin: bool, opcode: u8, payload: &[u8], mask: Option<[u8; 4]>) -> Vec<u8> {
    let mut out = vec![(u8::from(fin) << 7) | opcode];
    let m = if mask.is_some() { 0x80 } else { 0 };
    match payload.len() {
        n if n < 126 => out.push(m | n as u8),
        n if n <= 0xFFFF => {
            out.push(m | 126);
            out.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            out.push(m | 127);
            out.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    match mask {
        Some(k) => {
            out.extend_from_slice(&k);
            out.extend(payload.iter().enumerate().map(|(i, b)| b ^ k[i % 4]));
        }
        None => out.extend_from_slice(payload),
    }
    out
}

const MASK: Option<[u8; 4]> = Some([0x37, 0xfa, 0x21, 0x3d]);

/// A hand-written WebSocket client.
struct Ws {
    io: Pin<Box<dyn Io>>,
    buf: BytesMut,
    next: u32,
    hello: Option<BrokerHello>,
}

/// What came back for an upgrade request: the status and the whole head.
struct Answer {
    status: u16,
    head: String,
}

/// Send an HTTP request head and read the response head (and, for a
/// refusal, its body until the broker closes).
async fn request(io: &mut Pin<Box<dyn Io>>, head: &str) -> (Answer, BytesMut) {
    io.write_all(head.as_bytes()).await.unwrap();
    let mut buf = BytesMut::new();
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end + 4]).into_owned();
            buf.advance(end + 4);
            let status = head[9..12].parse().expect("a status code");
            return (Answer { status, head }, buf);
        }
        let n = tokio::time::timeout(Duration::from_secs(20), io.read_buf(&mut buf))
            .await
            .expect("an answer in time")
            .unwrap();
        assert!(
            n > 0,
            "closed before an answer: {:?}",
            String::from_utf8_lossy(&buf)
        );
    }
}

fn upgrade_head(extra: &str) -> String {
    format!(
        "GET /hermit HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n{extra}\r\n"
    )
}

const PROTO: &str = "Sec-WebSocket-Protocol: hermitmq.v3\r\n";

impl Ws {
    async fn open(addr: SocketAddr, extra: &str) -> (Answer, Ws) {
        let io: Pin<Box<dyn Io>> = Box::pin(TcpStream::connect(addr).await.unwrap());
        Ws::open_over(io, extra).await
    }

    async fn open_over(mut io: Pin<Box<dyn Io>>, extra: &str) -> (Answer, Ws) {
        let (answer, buf) = request(&mut io, &upgrade_head(extra)).await;
        let ws = Ws {
            io,
            buf,
            next: 1,
            hello: None,
        };
        (answer, ws)
    }

    /// Upgrade (must succeed) without a hello.
    async fn upgraded(addr: SocketAddr) -> Ws {
        let (a, ws) = Ws::open(addr, PROTO).await;
        assert_eq!(a.status, 101, "{}", a.head);
        ws
    }

    /// Upgrade and exchange hellos.
    async fn connect(addr: SocketAddr) -> Ws {
        let ws = Ws::upgraded(addr).await;
        ws.hello().await
    }

    async fn hello(mut self) -> Ws {
        self.send(BINARY, &Hello::client().encode()).await;
        let (op, h) = self.recv_frame().await.expect("the broker hello");
        assert_eq!(op, BINARY);
        assert_eq!(h.len(), BROKER_HELLO_V3_LEN, "one message, the whole hello");
        self.hello = Some(BrokerHello::decode(&h).unwrap());
        self
    }

    async fn send_raw(&mut self, bytes: &[u8]) {
        self.io.write_all(bytes).await.unwrap();
    }

    async fn send(&mut self, opcode: u8, payload: &[u8]) {
        self.send_raw(&frame(true, opcode, payload, MASK)).await;
    }

    /// The next data or close frame (pongs skipped); `None` at EOF.
    async fn recv_frame(&mut self) -> Option<(u8, Vec<u8>)> {
        loop {
            if let Some((fin, op, payload, used)) = parse_server_frame(&self.buf) {
                self.buf.advance(used);
                assert!(fin, "the broker sends each frame as one message");
                if op == PONG {
                    continue;
                }
                return Some((op, payload));
            }
            let n = tokio::time::timeout(Duration::from_secs(20), self.io.read_buf(&mut self.buf))
                .await
                .expect("a frame in time")
                .unwrap_or(0);
            if n == 0 {
                return None;
            }
        }
    }

    /// Send a request as one binary message; returns its correlation id.
    async fn send_req(&mut self, req: &Request<'_>) -> u32 {
        let corr = self.next;
        self.next += 1;
        let mut out = BytesMut::new();
        req.encode(corr, &mut out).unwrap();
        self.send(BINARY, &out).await;
        corr
    }

    async fn call(&mut self, req: &Request<'_>) -> Resp {
        let corr = self.send_req(req).await;
        let (op, bytes) = self.recv_frame().await.expect("a response");
        assert_eq!(
            op,
            BINARY,
            "a response, not {op:#x}: {:?}",
            String::from_utf8_lossy(&bytes)
        );
        let r = Resp::from_frame(&bytes);
        assert_eq!(r.corr, corr);
        r
    }

    /// Read until the broker's close frame; returns its code and reason.
    async fn close_code(&mut self) -> (u16, String) {
        loop {
            match self.recv_frame().await {
                Some((CLOSE, p)) => {
                    assert!(p.len() >= 2, "a close frame with a code");
                    let code = u16::from_be_bytes([p[0], p[1]]);
                    return (code, String::from_utf8_lossy(&p[2..]).into_owned());
                }
                Some(_) => continue,
                None => panic!("closed without a close frame"),
            }
        }
    }

    async fn ping_op(&mut self) {
        let r = self.call(&Request::Ping).await;
        assert_eq!(r.status, Status::Ok, "{}", r.message);
    }
}

/// A server frame at the start of `buf`: (fin, opcode, payload, bytes used).
fn parse_server_frame(buf: &[u8]) -> Option<(bool, u8, Vec<u8>, usize)> {
    if buf.len() < 2 {
        return None;
    }
    assert_eq!(buf[1] & 0x80, 0, "server frames are not masked");
    let (len, at) = match buf[1] & 0x7f {
        126 => (u16::from_be_bytes([*buf.get(2)?, *buf.get(3)?]) as usize, 4),
        127 => (
            u64::from_be_bytes(buf.get(2..10)?.try_into().ok()?) as usize,
            10,
        ),
        n => (n as usize, 2),
    };
    let payload = buf.get(at..at + len)?.to_vec();
    Some((buf[0] & 0x80 != 0, buf[0] & 0x0f, payload, at + len))
}

fn ws_config(c: &mut Config) {
    c.ws_listen = Some(SocketAddr::from(([127, 0, 0, 1], 0)));
}

async fn ws_broker(
    dir: &std::path::Path,
    tweak: impl FnOnce(&mut Config),
) -> (hermit_broker::embedded::EmbeddedBroker, SocketAddr) {
    let b = start(dir, |c| {
        ws_config(c);
        tweak(c);
    })
    .await;
    let addr = b.ws_addr().expect("a WebSocket listener");
    (b, addr)
}

fn counter(m: &Arc<Metrics>, f: impl Fn(&Metrics) -> &std::sync::atomic::AtomicU64) -> u64 {
    Metrics::get(f(m))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn produce_fetch_and_commit_over_websocket_take_the_copy_path() {
    let dir = tempfile::tempdir().unwrap();
    let (broker, addr) = ws_broker(dir.path(), |c| c.ws_max_message = 64 * 1024).await;
    let mut ws = Ws::connect(addr).await;
    let hello = ws.hello.unwrap();
    assert_eq!(
        hello.max_frame,
        64 * 1024 - 4,
        "the hello announces the WebSocket limit"
    );
    assert!(!hello.flags.has(BrokerFlags::TLS));

    let mut expected = Vec::new();
    for tag in 0..20 {
        let mut b = batch(50, 100, tag);
        let r = ws.call(&produce_req("chat", 0, &b, Ack::Durable)).await;
        assert_eq!(r.status, Status::Ok, "{}", r.message);
        assert_eq!(r.base_offset, Some(tag * 50));
        // As stored: the broker assigns the base offset.
        assert!(patch_base_offset(&mut b, tag * 50));
        expected.push(b);
    }
    // A fetch for more than the WebSocket limit is answered within it.
    let r = ws.call(&fetch_req("chat", 0, 0, u32::MAX, 0)).await;
    let (hw, _, bytes) = r.fetch.clone().expect("records");
    assert_eq!(hw, 1000);
    assert!(
        bytes.len() <= 64 * 1024 - 4 - 31,
        "{} bytes in one answer",
        bytes.len()
    );
    assert!(!r.batch_bases().is_empty());
    // All of it, in order, byte for byte, over the same connection.
    let mut got = Vec::new();
    let mut offset = 0;
    while offset < 1000 {
        let r = ws.call(&fetch_req("chat", 0, offset, 16 * 1024, 0)).await;
        let (_, _, bytes) = r.fetch.clone().unwrap();
        got.extend_from_slice(&bytes);
        offset = *r.batch_bases().last().unwrap() + 50;
    }
    assert!(got == expected.concat(), "every batch back, byte for byte");
    let r = ws.call(&commit_req("g", "chat", 1000)).await;
    assert_eq!(r.status, Status::Ok, "{}", r.message);
    assert_eq!(
        ws.call(&committed_req("g", "chat")).await.committed,
        Some(Some(1000))
    );

    // A long poll over WebSocket wakes on a produce from a TCP client.
    let corr = ws
        .send_req(&fetch_req("chat", 0, 1000, 1 << 10, 10_000))
        .await;
    let mut tcp = Raw::connect(broker.addr()).await;
    let mut b = batch(1, 10, 99);
    assert_eq!(
        tcp.produce("chat", &b, Ack::Written).await.status,
        Status::Ok
    );
    assert!(patch_base_offset(&mut b, 1000));
    let (_, bytes) = ws.recv_frame().await.unwrap();
    let r = Resp::from_frame(&bytes);
    assert_eq!(r.corr, corr);
    let (_, _, bytes) = r.fetch.unwrap();
    assert_eq!(BatchIter::new(&bytes).count(), 1);
    assert!(bytes == b, "the new batch");

    let m = broker.metrics();
    assert!(counter(m, |m| &m.copied_bytes) >= got.len() as u64);
    assert_eq!(counter(m, |m| &m.ws_upgrades), 1);
    drop(ws);
    broker.shutdown().await.unwrap();
}

/// A WebSocket answer is one message, assembled whole in the broker (and
/// in the browser): a batch larger than `ws_max_message` holds — written
/// over TCP, where frames may be larger — is refused with
/// `PayloadTooLarge` naming the key, never sent (before issue 31 it went out
/// as one oversized message, assembled outside every budget). The
/// connection stays, and the batches after it are served.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_larger_than_a_websocket_message_is_refused_not_assembled() {
    let dir = tempfile::tempdir().unwrap();
    let (broker, addr) = ws_broker(dir.path(), |c| c.ws_max_message = 64 * 1024).await;
    let mut tcp = Raw::connect(broker.addr()).await;
    let big = batch(200, 1000, 1);
    assert!(big.len() > 64 * 1024);
    // Durable: a fetch sees a batch once it is synced, so the fetches
    // below cannot find the log still empty.
    assert_eq!(
        tcp.produce("big", &big, Ack::Durable).await.status,
        Status::Ok
    );
    let small = batch(1, 100, 2);
    assert_eq!(
        tcp.produce("big", &small, Ack::Durable).await.status,
        Status::Ok
    );

    let mut ws = Ws::connect(addr).await;
    let r = ws.call(&fetch_req("big", 0, 0, u32::MAX, 0)).await;
    assert_eq!(r.status, Status::PayloadTooLarge, "{}", r.message);
    assert!(r.fetch.is_none());
    assert!(
        r.message.contains("ws_max_message") && r.message.contains("offset 0"),
        "{}",
        r.message
    );
    assert_eq!(counter(broker.metrics(), |m| &m.fetch_too_large_for_ws), 1);
    // Still open; the next batch is served.
    ws.ping_op().await;
    let r = ws.call(&fetch_req("big", 0, 200, u32::MAX, 0)).await;
    assert_eq!(r.status, Status::Ok, "{}", r.message);
    assert_eq!(r.batch_bases(), vec![200]);
    // Over TCP the big batch is served as always.
    let r = tcp.fetch("big", 0, u32::MAX, 0).await;
    assert_eq!(r.status, Status::Ok, "{}", r.message);
    assert_eq!(r.batch_bases(), vec![0, 200]);
    drop(ws);
    broker.shutdown().await.unwrap();
}

/// Open a WebSocket, say hello, send `bad`, and expect the close `code`.
async fn expect_close_after(addr: SocketAddr, hello: bool, bad: &[u8], code: u16, what: &str) {
    let mut ws = if hello {
        Ws::connect(addr).await
    } else {
        Ws::upgraded(addr).await
    };
    ws.send_raw(bad).await;
    let t = Instant::now();
    let (got, reason) = ws.close_code().await;
    assert_eq!(got, code, "{what}: closed with {got} ({reason})");
    assert!(
        t.elapsed() < Duration::from_secs(5),
        "{what}: closed at once"
    );
    // Answer the close as a client should (except once: the broker must
    // not wait for an answer that never comes); then EOF.
    if !what.starts_with("a text") {
        ws.send(CLOSE, &code.to_be_bytes()).await;
    }
    assert!(ws.recv_frame().await.is_none(), "{what}: then EOF");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_websocket_input_closes_that_connection_only_with_the_rfc_6455_code() {
    let dir = tempfile::tempdir().unwrap();
    let (broker, addr) = ws_broker(dir.path(), |c| c.ws_max_message = 8 * 1024).await;
    // Bystanders: one WebSocket, one TCP client, both mid-conversation.
    let mut ws_by = Ws::connect(addr).await;
    let mut tcp_by = Raw::connect(broker.addr()).await;
    ws_by.ping_op().await;

    let ping_op = {
        let mut out = BytesMut::new();
        Request::Ping.encode(9, &mut out).unwrap();
        out.to_vec()
    };
    let mut bad_close = vec![0x03, 0xe8];
    bad_close.extend_from_slice(&[0xff, 0xfe, 0xfd]);
    let mut flood = Vec::new();
    for _ in 0..200 {
        flood.extend(frame(true, PING, b"x", MASK));
    }
    let mut declared_64_mib = vec![0x80 | BINARY, 0x80 | 127];
    declared_64_mib.extend_from_slice(&(64u64 << 20).to_be_bytes());
    declared_64_mib.extend_from_slice(&MASK.unwrap());
    let fragmented = [
        frame(false, BINARY, &[0; 5000], MASK),
        frame(true, CONTINUATION, &[0; 5000], MASK),
    ]
    .concat();
    let cases: Vec<(&str, bool, Vec<u8>, u16)> = vec![
        (
            "a text message",
            true,
            frame(true, TEXT, b"{\"op\":\"ping\"}", MASK),
            1003,
        ),
        (
            "an unmasked frame",
            true,
            frame(true, BINARY, &ping_op, None),
            1002,
        ),
        ("a declared length of 64 MiB", true, declared_64_mib, 1009),
        (
            "a fragmented message past the limit",
            true,
            fragmented,
            1009,
        ),
        ("a ping flood", true, flood, 1008),
        (
            "two frames in one message",
            true,
            frame(
                true,
                BINARY,
                &[ping_op.clone(), ping_op.clone()].concat(),
                MASK,
            ),
            1002,
        ),
        (
            "half a frame in one message",
            true,
            frame(true, BINARY, &ping_op[..6], MASK),
            1002,
        ),
        (
            "a first message that is not the hello",
            false,
            frame(true, BINARY, &ping_op, MASK),
            1002,
        ),
        (
            "bad UTF-8 in a close reason",
            true,
            frame(true, CLOSE, &bad_close, MASK),
            1007,
        ),
    ];
    let n = cases.len() as u64;
    for (what, hello, bad, code) in cases {
        expect_close_after(addr, hello, &bad, code, what).await;
        // Everyone else is still served.
        ws_by.ping_op().await;
        assert_eq!(
            tcp_by.call(&Request::Ping).await.status,
            Status::Ok,
            "after {what}"
        );
    }
    assert_eq!(counter(broker.metrics(), |m| &m.ws_violations), n);
    // A few pings within the allowance are answered, not punished.
    for _ in 0..5 {
        ws_by.send(PING, b"keepalive").await;
    }
    ws_by.ping_op().await;
    drop((ws_by, tcp_by));
    broker.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stalled_and_oversized_upgrade_requests_are_answered_and_closed() {
    let dir = tempfile::tempdir().unwrap();
    let (broker, addr) = ws_broker(dir.path(), |c| c.handshake_timeout_ms = 300).await;
    let mut stalled: Pin<Box<dyn Io>> = Box::pin(TcpStream::connect(addr).await.unwrap());
    let t = Instant::now();
    let (a, _) = request(
        &mut stalled,
        "GET / HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\n",
    )
    .await;
    assert_eq!(a.status, 408, "{}", a.head);
    assert!(t.elapsed() >= Duration::from_millis(300));

    let mut big: Pin<Box<dyn Io>> = Box::pin(TcpStream::connect(addr).await.unwrap());
    let head = format!("GET / HTTP/1.1\r\nX-Pad: {}\r\n", "a".repeat(9000));
    // The broker answers once it has read its limit, before the head ends.
    let (a, _) = request(&mut big, &head).await;
    assert_eq!(a.status, 431, "{}", a.head);

    // The listener still upgrades others.
    let mut ws = Ws::connect(addr).await;
    ws.ping_op().await;
    assert_eq!(counter(broker.metrics(), |m| &m.ws_refused), 2);
    drop(ws);
    broker.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upgrades_need_version_13_a_key_the_subprotocol_and_an_allowed_origin() {
    let dir = tempfile::tempdir().unwrap();
    let (broker, addr) = ws_broker(dir.path(), |_| {}).await;
    for (extra, status, what) in [
        ("", 400, "no subprotocol"),
        (
            "Sec-WebSocket-Protocol: mqtt\r\n",
            400,
            "another subprotocol",
        ),
        (
            &format!("{PROTO}Origin: https://evil.example\r\n") as &str,
            403,
            "a foreign origin",
        ),
        (
            &format!("{PROTO}Origin: http://localhost.evil.example:9094\r\n"),
            403,
            "a look-alike origin",
        ),
    ] {
        let (a, _) = Ws::open(addr, extra).await;
        assert_eq!(a.status, status, "{what}: {}", a.head);
    }
    // Loopback pages may connect by default; the subprotocol is echoed.
    let (a, ws) = Ws::open(addr, &format!("{PROTO}Origin: http://127.0.0.1:8080\r\n")).await;
    assert_eq!(a.status, 101, "{}", a.head);
    assert!(
        a.head.contains("Sec-WebSocket-Protocol: hermitmq.v3\r\n"),
        "{}",
        a.head
    );
    assert!(
        a.head
            .contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n")
    );
    ws.hello().await.ping_op().await;

    let mut io: Pin<Box<dyn Io>> = Box::pin(TcpStream::connect(addr).await.unwrap());
    let head = upgrade_head(PROTO).replace("Version: 13", "Version: 8");
    let (a, _) = request(&mut io, &head).await;
    assert_eq!(a.status, 426, "{}", a.head);
    assert!(a.head.contains("Sec-WebSocket-Version: 13"));
    let mut io: Pin<Box<dyn Io>> = Box::pin(TcpStream::connect(addr).await.unwrap());
    let (a, _) = request(
        &mut io,
        &upgrade_head(PROTO).replace("dGhlIHNhbXBsZSBub25jZQ==", "short"),
    )
    .await;
    assert_eq!(a.status, 400, "{}", a.head);
    // Without web_root a plain GET is told what the port is for.
    let mut io: Pin<Box<dyn Io>> = Box::pin(TcpStream::connect(addr).await.unwrap());
    let (a, _) = request(&mut io, "GET / HTTP/1.1\r\nHost: x\r\n\r\n").await;
    assert_eq!(a.status, 426, "{}", a.head);
    broker.shutdown().await.unwrap();

    // A listed origin replaces the loopback default.
    let dir = tempfile::tempdir().unwrap();
    let (broker, addr) = ws_broker(dir.path(), |c| {
        c.allowed_origins = vec!["https://chat.example.com".into()];
    })
    .await;
    let (a, _) = Ws::open(
        addr,
        &format!("{PROTO}Origin: https://chat.example.com\r\n"),
    )
    .await;
    assert_eq!(a.status, 101, "{}", a.head);
    let (a, _) = Ws::open(addr, &format!("{PROTO}Origin: http://localhost:8080\r\n")).await;
    assert_eq!(a.status, 403, "{}", a.head);
    broker.shutdown().await.unwrap();
}

async fn get(addr: SocketAddr, method: &str, path: &str) -> (Answer, Vec<u8>) {
    let mut io: Pin<Box<dyn Io>> = Box::pin(TcpStream::connect(addr).await.unwrap());
    let (a, mut body) = request(
        &mut io,
        &format!("{method} {path} HTTP/1.1\r\nHost: x\r\n\r\n"),
    )
    .await;
    tokio::time::timeout(Duration::from_secs(20), io.read_buf(&mut body))
        .await
        .expect("the body in time")
        .unwrap();
    while tokio::time::timeout(Duration::from_secs(20), io.read_buf(&mut body))
        .await
        .expect("EOF in time")
        .unwrap()
        > 0
    {}
    (a, body.to_vec())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn web_root_serves_its_files_and_nothing_outside_it() {
    let root = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(root.path().join("index.html"), "<h1>chat</h1>").unwrap();
    std::fs::write(root.path().join("app.js"), "export const x = 1;").unwrap();
    std::fs::write(root.path().join(".secret"), "hidden").unwrap();
    std::fs::create_dir(root.path().join("sub")).unwrap();
    std::fs::write(root.path().join("sub/index.html"), "sub").unwrap();
    std::fs::write(outside.path().join("passwd"), "root:x:0:0").unwrap();
    std::os::unix::fs::symlink(outside.path().join("passwd"), root.path().join("escape")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let web_root = root.path().to_path_buf();
    let (broker, addr) = ws_broker(dir.path(), move |c| c.web_root = Some(web_root)).await;

    let (a, body) = get(addr, "GET", "/").await;
    assert_eq!(a.status, 200, "{}", a.head);
    assert!(a.head.contains("Content-Type: text/html; charset=utf-8"));
    assert_eq!(body, b"<h1>chat</h1>");
    let (a, body) = get(addr, "GET", "/app.js?v=1").await;
    assert_eq!(a.status, 200);
    assert!(
        a.head.contains("Content-Type: text/javascript"),
        "{}",
        a.head
    );
    assert!(a.head.contains("X-Content-Type-Options: nosniff"));
    assert_eq!(body, b"export const x = 1;");
    let (a, body) = get(addr, "HEAD", "/app.js").await;
    assert_eq!(a.status, 200);
    assert!(a.head.contains("Content-Length: 19"), "{}", a.head);
    assert!(body.is_empty(), "HEAD has no body");
    let (a, _) = get(addr, "GET", "/sub").await;
    assert_eq!(a.status, 301);
    assert!(a.head.contains("Location: /sub/\r\n"), "{}", a.head);
    assert_eq!(get(addr, "GET", "/sub/").await.1, b"sub");
    for path in [
        "/../passwd",
        "/%2e%2e/passwd",
        "/.secret",
        "/escape",
        "/missing.js",
        "/sub/../../x",
    ] {
        let (a, body) = get(addr, "GET", path).await;
        assert_eq!(a.status, 404, "{path}: {}", a.head);
        assert!(!String::from_utf8_lossy(&body).contains("root:x"), "{path}");
    }
    let (a, _) = get(addr, "POST", "/index.html").await;
    assert_eq!(a.status, 405);
    // The same port still upgrades.
    Ws::connect(addr).await.ping_op().await;
    broker.shutdown().await.unwrap();
}

/// `GET //host` once answered `Location: //host/`, a protocol-relative URL
/// a browser follows to another site: redirects are built from the checked
/// path only, so they stay on this origin whatever the target looked like.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn web_root_redirects_never_leave_the_origin() {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir(root.path().join("sub")).unwrap();
    std::fs::write(root.path().join("sub/index.html"), "sub").unwrap();
    std::fs::create_dir(root.path().join("evil.example")).unwrap();
    std::fs::create_dir(root.path().join("a b")).unwrap();
    std::fs::create_dir(root.path().join("x\r\nSet-Cookie: y=1")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let web_root = root.path().to_path_buf();
    let (broker, addr) = ws_broker(dir.path(), move |c| c.web_root = Some(web_root)).await;
    for (target, location) in [
        ("//evil.example", "/evil.example/"),
        ("///evil.example", "/evil.example/"),
        ("//evil.example?x=1", "/evil.example/"),
        ("/%2Fevil.example", "/evil.example/"),
        ("/%2F%2Fevil.example", "/evil.example/"),
        ("/./evil.example", "/evil.example/"),
        ("//sub", "/sub/"),
        ("/sub", "/sub/"),
        ("/a%20b", "/a%20b/"),
        ("/x%0D%0ASet-Cookie:%20y=1", "/x%0D%0ASet-Cookie:%20y=1/"),
    ] {
        let (a, _) = get(addr, "GET", target).await;
        assert_eq!(a.status, 301, "{target}: {}", a.head);
        let found: Vec<&str> = a
            .head
            .lines()
            .filter_map(|l| l.strip_prefix("Location: "))
            .collect();
        assert_eq!(found, [location], "{target}: {}", a.head);
        assert!(
            !a.head.lines().any(|l| l.starts_with("Set-Cookie")),
            "{target}: {}",
            a.head
        );
    }
    // Where a slash is already there, the file is served as before.
    let (a, body) = get(addr, "GET", "//sub/").await;
    assert_eq!(a.status, 200, "{}", a.head);
    assert_eq!(body, b"sub");
    broker.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_acl_holds_over_websocket() {
    let (alice, bob, admin) = (Key::new(), Key::new(), Key::new());
    let dir = tempfile::tempdir().unwrap();
    let admin_hex = admin.hex.clone();
    let (broker, addr) = ws_broker(dir.path(), move |c| {
        c.auth = AuthMode::Required;
        c.admins = vec![admin_hex];
        c.acl = inbox_rules();
    })
    .await;
    let inbox = format!("inbox.{}", bob.hex);
    let mut adm = connect_as(broker.addr(), &admin).await;
    assert_eq!(adm.call(&create_req(&inbox, 1)).await.status, Status::Ok);

    // Anonymous over WebSocket: told authentication is required, refused.
    let mut anon = Ws::connect(addr).await;
    assert!(anon.hello.unwrap().flags.has(BrokerFlags::AUTH_REQUIRED));
    let r = anon
        .call(&produce_req(&inbox, 0, &batch(1, 10, 1), Ack::Written))
        .await;
    assert_eq!(r.status, Status::Unauthorized);

    // Alice proves her key over WebSocket, writes to Bob, cannot read him.
    let mut a = ws_as(addr, &alice).await;
    let r = a
        .call(&produce_req(&inbox, 0, &batch(1, 10, 2), Ack::Durable))
        .await;
    assert_eq!(r.status, Status::Ok, "{}", r.message);
    let r = a.call(&fetch_req(&inbox, 0, 0, 1 << 16, 0)).await;
    assert_eq!(
        r.status,
        Status::Unauthorized,
        "Alice may not read Bob's inbox"
    );
    let r = a
        .call(&produce_req("elsewhere", 0, &batch(1, 10, 3), Ack::Written))
        .await;
    assert_eq!(r.status, Status::Unauthorized);
    assert!(
        broker.log().topic("elsewhere").is_none(),
        "nothing reached the log"
    );

    // Bob reads exactly the one record Alice wrote.
    let mut b = ws_as(addr, &bob).await;
    let r = b.call(&fetch_req(&inbox, 0, 0, 1 << 16, 0)).await;
    assert_eq!(r.status, Status::Ok, "{}", r.message);
    assert_eq!(r.fetch.unwrap().2, batch(1, 10, 2));
    drop((anon, a, b, adm));
    broker.shutdown().await.unwrap();
}

/// A WebSocket connection authenticated as `key`.
async fn ws_as(addr: SocketAddr, key: &Key) -> Ws {
    let mut ws = Ws::connect(addr).await;
    let h = ws.hello.unwrap();
    let sig = key.sign_for(&h.nonce, &h.broker_id);
    let r = ws.call(&authenticate(&key.spki, &sig)).await;
    assert_eq!(r.status, Status::Ok, "{}", r.message);
    ws
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wss_carries_the_protocol_over_tls() {
    let certs = tempfile::tempdir().unwrap();
    let ck = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
    let cert = certs.path().join("c.pem");
    let key = certs.path().join("c.key");
    std::fs::write(&cert, ck.cert.pem()).unwrap();
    std::fs::write(&key, ck.signing_key.serialize_pem()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let broker = start(dir.path(), |c| {
        c.wss_listen = Some(SocketAddr::from(([127, 0, 0, 1], 0)));
        c.tls_cert = Some(cert);
        c.tls_key = Some(key);
    })
    .await;
    let addr = broker.wss_addr().expect("a wss listener");

    let mut roots = rustls::RootCertStore::empty();
    roots.add(ck.cert.der().clone()).unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
    let tcp = TcpStream::connect(addr).await.unwrap();
    let name = rustls::pki_types::ServerName::try_from("localhost").unwrap();
    let tls = connector.connect(name, tcp).await.expect("TLS handshake");
    let (a, ws) = Ws::open_over(Box::pin(tls), PROTO).await;
    assert_eq!(a.status, 101, "{}", a.head);
    let mut ws = ws.hello().await;
    assert!(ws.hello.unwrap().flags.has(BrokerFlags::TLS));
    let r = ws
        .call(&produce_req("t", 0, &batch(3, 10, 1), Ack::Durable))
        .await;
    assert_eq!(r.status, Status::Ok, "{}", r.message);
    assert_eq!(
        ws.call(&fetch_req("t", 0, 0, 1 << 16, 0))
            .await
            .fetch
            .unwrap()
            .2,
        batch(3, 10, 1)
    );
    drop(ws);
    broker.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shutting_down_broker_closes_websockets_with_going_away() {
    let dir = tempfile::tempdir().unwrap();
    let (broker, addr) = ws_broker(dir.path(), |_| {}).await;
    let mut ws = Ws::connect(addr).await;
    ws.ping_op().await;
    let closing = tokio::spawn(async move { ws.close_code().await });
    broker.shutdown().await.unwrap();
    let (code, _) = closing.await.unwrap();
    assert_eq!(code, 1001);
}
