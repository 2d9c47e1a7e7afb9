//! Hostile clients against the real broker binary (issue 31): what one
//! client that never reads, never finishes a handshake or never
//! authenticates may hold, measured on the broker process.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use bytes::BytesMut;
use hermit_e2e_tests::{BrokerProcess, start_broker};
use hermit_protocol::frame::{CreateTopic, TopicSettings, check_response, decode_response};
use hermit_protocol::hello::{BROKER_HELLO_V3_LEN, Hello};
use hermit_protocol::{Cleanup, FrameCheck, Request, TopicName};

/// A raw protocol connection: hello done, requests written as they are.
struct Raw {
    s: TcpStream,
    corr: u32,
}

impl Raw {
    fn connect(addr: SocketAddr) -> Raw {
        let mut s = TcpStream::connect(addr).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        s.write_all(&Hello::client().encode()).unwrap();
        let mut hello = [0u8; BROKER_HELLO_V3_LEN];
        s.read_exact(&mut hello).expect("the broker's hello");
        Raw { s, corr: 0 }
    }

    fn frame(&mut self, r: &Request<'_>) -> BytesMut {
        self.corr += 1;
        let mut out = BytesMut::new();
        r.encode(self.corr, &mut out).unwrap();
        out
    }

    /// Send `r` and wait for its answer (an Ok one).
    fn call(&mut self, r: &Request<'_>) {
        let f = self.frame(r);
        self.s.write_all(&f).unwrap();
        let mut buf = Vec::new();
        let mut chunk = [0u8; 64 << 10];
        loop {
            if let FrameCheck::Complete { len } = check_response(&buf, u32::MAX).unwrap() {
                let answer = decode_response(&buf[..len]).unwrap();
                assert!(answer.body.is_ok(), "{:?}", answer.body);
                return;
            }
            let n = self.s.read(&mut chunk).expect("an answer");
            assert!(n > 0, "the broker closed the connection");
            buf.extend_from_slice(&chunk[..n]);
        }
    }
}

fn rss(b: &BrokerProcess) -> u64 {
    b.usage().expect("the broker runs").rss_bytes
}

/// The most RSS the broker reaches over `d`, sampled every 50 ms.
fn peak_rss_over(b: &BrokerProcess, d: Duration) -> u64 {
    let end = Instant::now() + d;
    let mut peak = 0;
    while Instant::now() < end {
        peak = peak.max(rss(b));
        std::thread::sleep(Duration::from_millis(50));
    }
    peak
}

/// 1,000 topics with 200-character names: a Metadata of all topics then
/// answers ~240 KB, from a 9-byte request.
fn many_long_topics(addr: SocketAddr) {
    let mut c = Raw::connect(addr);
    for i in 0..1000 {
        let name = format!("{i:04}{}", "x".repeat(196));
        c.call(&Request::CreateTopic(CreateTopic {
            topic: TopicName::new(name.as_str()).unwrap(),
            settings: TopicSettings {
                partitions: 1,
                cleanup: Cleanup::Delete,
                retention_ms: 0,
                retention_bytes: 0,
            },
        }));
    }
    c.call(&Request::Metadata(None));
}

/// Issue 31 item 1: connections that send Metadata requests and never read
/// the answers hold no more than the send budget (16 MiB here) — the
/// broker's RSS grows by at most the budget + 64 MiB — and a client that
/// reads is still served at once. (On f19e5d6, whose output had no bound,
/// the same script pinned gigabytes.)
#[test]
fn answers_nobody_reads_are_bounded_by_the_send_budget() {
    let dir = tempfile::tempdir().unwrap();
    let broker = start_broker(
        dir.path(),
        "127.0.0.1:0",
        &[
            "--set",
            "send_budget_bytes=16777216",
            "--set",
            "max_send_queue_bytes=1048576",
            "--fsync",
            "never",
        ],
    );
    let addr = broker.addr();
    many_long_topics(addr);
    let before = peak_rss_over(&broker, Duration::from_millis(300));
    // Eight connections, 300 Metadata requests each (2.7 KB written per
    // connection, 72 MB of answers each if they were all made), none read.
    let mut hostile = Vec::new();
    for _ in 0..8 {
        let mut c = Raw::connect(addr);
        let mut burst = BytesMut::new();
        for _ in 0..300 {
            burst.extend_from_slice(&c.frame(&Request::Metadata(None)));
        }
        c.s.write_all(&burst).unwrap();
        hostile.push(c);
    }
    let peak = peak_rss_over(&broker, Duration::from_secs(3));
    let grew = peak.saturating_sub(before);
    assert!(
        grew <= (16 << 20) + (64 << 20),
        "the broker grew by {} MiB (from {} MiB) for answers nobody read",
        grew >> 20,
        before >> 20
    );
    // Eight clients that never read hold 8 MiB of a 16 MiB budget: a
    // client that reads is answered at once.
    let started = Instant::now();
    Raw::connect(addr).call(&Request::Ping);
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "a reading client waited {:?}",
        started.elapsed()
    );
    drop(hostile);
}

/// Issue 31 item 1: a connection whose answers are not read for
/// `write_stall_timeout_ms` is closed (its queue and its share of the send
/// budget freed), long before the idle timeout.
#[test]
fn a_client_that_stops_reading_is_closed_after_the_write_stall_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let broker = start_broker(
        dir.path(),
        "127.0.0.1:0",
        &["--set", "write_stall_timeout_ms=1000", "--fsync", "never"],
    );
    let addr = broker.addr();
    many_long_topics(addr);
    let mut c = Raw::connect(addr);
    let mut burst = BytesMut::new();
    for _ in 0..200 {
        burst.extend_from_slice(&c.frame(&Request::Metadata(None)));
    }
    c.s.write_all(&burst).unwrap();
    // Unread answers fill the socket buffers; the queue stops moving.
    std::thread::sleep(Duration::from_secs(3));
    // The broker has closed it: reading drains what was sent, then ends.
    c.s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut sink = [0u8; 64 << 10];
    let started = Instant::now();
    loop {
        match c.s.read(&mut sink) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => break,
            Err(e) => panic!(
                "still open after {:?} of unread answers: {e}",
                started.elapsed() + Duration::from_secs(3)
            ),
        }
    }
}
