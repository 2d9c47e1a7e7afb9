//! Bad input, one limit at a time: the offending connection gets its error
//! (where a status frame is possible) and is closed; a healthy client on
//! another connection keeps being served; the log holds exactly the valid
//! records.

mod netcommon;

use std::time::Duration;

use bytes::{BufMut, BytesMut};
use hermit_broker::embedded::EmbeddedBroker;
use hermit_protocol::hello::Hello;
use hermit_protocol::record::{CRC_AT, HEADER_LEN, RECORD_COUNT_AT, RecordHeader};
use hermit_protocol::{Ack, Op, Status};
use netcommon::*;

const MAX_PAYLOAD: u32 = 64 * 1024;
const MAX_KEY: u32 = 64;

struct Fixture {
    _dir: tempfile::TempDir,
    broker: EmbeddedBroker,
    healthy: Raw,
    valid: Vec<Vec<u8>>,
}

impl Fixture {
    async fn new() -> Fixture {
        Fixture::with_idle(60_000).await
    }

    async fn with_idle(idle_timeout_ms: u64) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let broker = start(dir.path(), |c| {
            c.max_payload = MAX_PAYLOAD;
            c.max_key = MAX_KEY;
            c.handshake_timeout_ms = 300;
            c.idle_timeout_ms = idle_timeout_ms;
            c.max_connections = 4;
        })
        .await;
        let mut healthy = Raw::connect(broker.addr()).await;
        let first = batch(3, 10, 1);
        assert_eq!(
            healthy.produce("t", &first, Ack::Durable).await.status,
            Status::Ok
        );
        Fixture {
            _dir: dir,
            broker,
            healthy,
            valid: vec![first],
        }
    }

    /// After the bad client is gone: the healthy connection still works and
    /// the log holds exactly the valid batches.
    async fn check_unharmed(mut self) {
        let next = batch(2, 10, 2);
        let r = self.healthy.produce("t", &next, Ack::Durable).await;
        assert_eq!(r.status, Status::Ok, "{}", r.message);
        self.valid.push(next);
        let stored = read_all(&mut self.healthy, "t", 0).await;
        assert_eq!(
            stored.len(),
            self.valid.len(),
            "the log holds exactly the valid batches"
        );
        for ((_, got), want) in stored.iter().zip(&self.valid) {
            let mut got = got.clone();
            got[1..9].copy_from_slice(&[0; 8]);
            assert_eq!(&got, want);
        }
        // The catalog names every topic there is, in a slot or a directory.
        let (parts, damage) =
            hermit_broker::log::check::catalog_partitions(self._dir.path()).unwrap();
        assert!(damage.is_empty(), "{damage:?}");
        let mut topics: Vec<String> = parts.into_iter().map(|p| p.topic).collect();
        topics.dedup();
        assert_eq!(
            topics,
            ["__claims", "__consumer_offsets", "t"],
            "no topic from a bad name"
        );
        drop(self.healthy);
        self.broker.shutdown().await.unwrap();
    }

    async fn bad_client(&self) -> Raw {
        Raw::connect(self.broker.addr()).await
    }
}

/// Send `bytes` on a fresh connection; expect one error frame with `status`
/// (and `corr`), then the close.
async fn expect_error_then_close(f: &Fixture, bytes: &[u8], status: Status, corr: u32) {
    let mut bad = f.bad_client().await;
    bad.send_bytes(bytes).await;
    let frames = bad.until_closed().await;
    assert_eq!(frames.len(), 1, "exactly one error frame: {frames:?}");
    assert_eq!(frames[0].status, status, "{}", frames[0].message);
    assert_eq!(frames[0].corr, corr);
}

fn frame_with(op: u8, corr: u32, body: &[u8]) -> Vec<u8> {
    let mut out = BytesMut::new();
    out.put_u32((5 + body.len()) as u32);
    out.put_u8(op);
    out.put_u32(corr);
    out.put_slice(body);
    out.to_vec()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_hello_is_closed_without_a_word() {
    let f = Fixture::new().await;
    let mut bad = Raw::connect_bare(f.broker.addr()).await;
    bad.send_bytes(b"GET / HTTP/1.1\r\n\r\n").await;
    let mut buf = Vec::new();
    use tokio::io::AsyncReadExt;
    // Closing with our unread bytes in its buffer, the broker may reset.
    match bad.stream.read_to_end(&mut buf).await {
        Ok(_) => {}
        Err(e) => assert_eq!(e.kind(), std::io::ErrorKind::ConnectionReset),
    }
    assert!(buf.is_empty(), "a non-HermitMQ peer gets nothing");
    f.check_unharmed().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn other_protocol_versions_get_the_brokers_hello_then_close() {
    let f = Fixture::new().await;
    let mut bad = Raw::connect_bare(f.broker.addr()).await;
    bad.send_bytes(
        &Hello {
            version: 1,
            value: 0,
        }
        .encode(),
    )
    .await;
    let mut buf = Vec::new();
    use tokio::io::AsyncReadExt;
    bad.stream.read_to_end(&mut buf).await.unwrap();
    let hello = Hello::decode(&buf).unwrap();
    assert_eq!((buf.len(), hello.version), (61, 3));
    f.check_unharmed().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn frames_over_max_frame_are_refused() {
    let f = Fixture::new().await;
    let limits = hermit_protocol::Limits::for_payload(MAX_PAYLOAD, MAX_KEY);
    let mut bytes = Vec::new();
    bytes.extend_from_slice(&(limits.max_frame + 1).to_be_bytes());
    bytes.push(Op::Produce as u8);
    bytes.extend_from_slice(&9u32.to_be_bytes());
    expect_error_then_close(&f, &bytes, Status::PayloadTooLarge, 9).await;
    f.check_unharmed().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_payload_is_refused_from_its_header_before_the_body_is_sent() {
    let f = Fixture::new().await;
    let header = RecordHeader {
        payload_len: MAX_PAYLOAD + 1,
        record_count: 1,
        ..Default::default()
    }
    .encode();
    let mut frame = raw_produce_frame(b"t", &header, 11);
    // Announce the whole frame, but send only the header: the broker must
    // answer without waiting for (or reserving room for) the body.
    let len = (frame.len() - 4 + MAX_PAYLOAD as usize + 1) as u32;
    frame[..4].copy_from_slice(&len.to_be_bytes());
    let mut bad = f.bad_client().await;
    bad.send_bytes(&frame).await;
    let r = bad.recv_within(Duration::from_secs(5)).await.unwrap();
    assert_eq!(
        (r.status, r.corr),
        (Status::PayloadTooLarge, 11),
        "{}",
        r.message
    );
    assert!(bad.recv_within(Duration::from_secs(5)).await.is_none());
    f.check_unharmed().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_key_is_refused() {
    let f = Fixture::new().await;
    let mut b = hermit_protocol::BatchBuilder::new(&[7u8; MAX_KEY as usize + 1]);
    b.push(b"x");
    let batch = b.finish(1).unwrap();
    expect_error_then_close(
        &f,
        &raw_produce_frame(b"t", &batch, 3),
        Status::KeyTooLarge,
        3,
    )
    .await;
    f.check_unharmed().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_ops_are_refused() {
    let f = Fixture::new().await;
    expect_error_then_close(&f, &frame_with(0x7f, 4, b""), Status::UnknownOp, 4).await;
    f.check_unharmed().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn truncated_fields_are_refused() {
    let f = Fixture::new().await;
    // A fetch with a topic and nothing else.
    expect_error_then_close(
        &f,
        &frame_with(Op::Fetch as u8, 5, b"\x01t"),
        Status::InvalidRequest,
        5,
    )
    .await;
    f.check_unharmed().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_and_traversing_topic_names_are_refused() {
    let f = Fixture::new().await;
    let long = vec![b'x'; 250];
    for name in [
        &b"../x"[..],
        b"a/b",
        b"",
        &long,
        b"caf\xc3\xa9",
        b"\xff\xfe",
        b"..",
        b"__consumer_offsets",
    ] {
        let frame = raw_produce_frame(name, &batch(1, 10, 9), 6);
        expect_error_then_close(&f, &frame, Status::InvalidTopicName, 6).await;
    }
    f.check_unharmed().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crc_mismatch_is_refused_and_nothing_is_appended() {
    let f = Fixture::new().await;
    let mut b = batch(3, 10, 5);
    let last = b.len() - 1;
    b[last] ^= 0x40;
    expect_error_then_close(&f, &raw_produce_frame(b"t", &b, 8), Status::CorruptBatch, 8).await;
    f.check_unharmed().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn zero_and_impossible_record_counts_are_refused() {
    let f = Fixture::new().await;
    let mut b = batch(1, 10, 5);
    b[RECORD_COUNT_AT..RECORD_COUNT_AT + 4].copy_from_slice(&0u32.to_be_bytes());
    expect_error_then_close(&f, &raw_produce_frame(b"t", &b, 2), Status::CorruptBatch, 2).await;
    // More records than the payload can hold (each needs a 4-byte length): offsets would be burnt.
    let mut b = batch(1, 10, 5);
    b[RECORD_COUNT_AT..RECORD_COUNT_AT + 4].copy_from_slice(&1_000_000u32.to_be_bytes());
    let crc = crc32c::crc32c(&b[13..]);
    b[CRC_AT..CRC_AT + 4].copy_from_slice(&crc.to_be_bytes());
    expect_error_then_close(
        &f,
        &raw_produce_frame(b"t", &b, 3),
        Status::InvalidRequest,
        3,
    )
    .await;
    let _ = HEADER_LEN;
    f.check_unharmed().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unfinished_handshake_is_closed_after_the_timeout() {
    let f = Fixture::new().await;
    let mut silent = Raw::connect_bare(f.broker.addr()).await;
    let mut partial = Raw::connect_bare(f.broker.addr()).await;
    partial.send_bytes(b"HMQ").await;
    for c in [&mut silent, &mut partial] {
        let mut buf = Vec::new();
        use tokio::io::AsyncReadExt;
        tokio::time::timeout(Duration::from_secs(5), c.stream.read_to_end(&mut buf))
            .await
            .expect("closed by the handshake timeout")
            .unwrap();
        assert!(buf.is_empty());
    }
    f.check_unharmed().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_connections_are_told_and_closed() {
    let mut f = Fixture::with_idle(500).await;
    let mut idle = f.bad_client().await;
    let frames = idle.until_closed().await;
    assert_eq!(frames.len(), 1);
    assert_eq!((frames[0].corr, frames[0].status), (0, Status::Timeout));
    // The healthy client idled as long and was closed the same way; a new
    // connection is served.
    let frames = f.healthy.until_closed().await;
    assert_eq!((frames[0].corr, frames[0].status), (0, Status::Timeout));
    f.healthy = Raw::connect(f.broker.addr()).await;
    f.check_unharmed().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_over_the_limit_are_refused() {
    let f = Fixture::new().await;
    // The healthy client holds one of the four slots.
    let mut held = Vec::new();
    for _ in 0..3 {
        let mut c = f.bad_client().await;
        assert_eq!(
            c.call(&hermit_protocol::Request::Ping).await.status,
            Status::Ok
        );
        held.push(c);
    }
    let mut over = Raw::connect(f.broker.addr()).await;
    let frames = over.until_closed().await;
    assert_eq!(frames.len(), 1);
    assert_eq!(
        (frames[0].corr, frames[0].status),
        (0, Status::TooManyConnections)
    );
    drop(held);
    f.check_unharmed().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_never_reads_blocks_nobody() {
    let f = Fixture::new().await;
    // Fill the partition with something worth fetching.
    let mut filler = f.bad_client().await;
    let mut valid = f.valid.clone();
    for i in 0..20 {
        let b = batch(100, 300, 100 + i);
        assert_eq!(
            filler.produce("t", &b, Ack::Durable).await.status,
            Status::Ok
        );
        valid.push(b);
    }
    drop(filler);
    // A client pipelines thousands of big fetches and never reads a byte.
    let mut stalled = f.bad_client().await;
    let mut out = BytesMut::new();
    for i in 0..5000u32 {
        fetch_req("t", 0, 0, 1 << 20, 0)
            .encode(i + 1, &mut out)
            .unwrap();
    }
    let writer = tokio::spawn(async move {
        // This write itself stalls once the broker stops reading.
        let _ = tokio::time::timeout(Duration::from_secs(3), stalled.send_bytes(&out)).await;
        stalled
    });
    // Meanwhile the healthy client produces and reads the same partition.
    let mut fx = f;
    fx.valid = valid;
    for i in 0..50 {
        let b = batch(2, 10, 1000 + i);
        let r = tokio::time::timeout(
            Duration::from_secs(5),
            fx.healthy.produce("t", &b, Ack::Durable),
        )
        .await
        .expect("the healthy client is served");
        assert_eq!(r.status, Status::Ok);
        fx.valid.push(b);
    }
    let stalled = writer.await.unwrap();
    drop(stalled);
    fx.check_unharmed().await;
}
