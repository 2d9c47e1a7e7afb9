//! The consumer against a real in-process broker (and a scripted fake one
//! for what a real broker never sends): committed offsets across clients,
//! the periodic commit's "finished" rule, start positions, the reset
//! policy, prefetching, and CRC failures reported rather than skipped.

mod support;

use std::time::Duration;

use bytes::{Bytes, BytesMut};
use hermit_client::{
    Ack, Cleanup, Client, ClientError, Consumer, ConsumerOptions, Fallback, ResetPolicy, StartFrom,
    Status, TopicSettings,
};
use hermit_protocol::frame::{
    FrameCheck, Limits, PartitionMetadata, ResponseBody, TopicMetadata, check_request,
    decode_request, encode_response,
};
use hermit_protocol::hello::{BROKER_ID_LEN, BrokerFlags, BrokerHello, Hello, NONCE_LEN};
use hermit_protocol::record::patch_base_offset;
use hermit_protocol::{BatchBuilder, Request};
use support::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

fn batch(records: std::ops::Range<u32>) -> Bytes {
    let mut b = BatchBuilder::new(b"");
    for i in records {
        b.push(&i.to_be_bytes());
    }
    Bytes::from(b.finish(1).unwrap())
}

fn value(r: &hermit_client::Record) -> u32 {
    u32::from_be_bytes(r.value[..].try_into().unwrap())
}

async fn next(c: &mut Consumer) -> Result<hermit_client::Record, ClientError> {
    tokio::time::timeout(Duration::from_secs(20), c.next())
        .await
        .expect("no record within 20 s")
}

/// A topic `t` with `n` records (values 0..n) in batches of 10 on partition 0.
async fn filled(c: &Client, topic: &str, n: u32) {
    for start in (0..n).step_by(10) {
        c.produce(topic, 0, Ack::Durable, batch(start..(start + 10).min(n)))
            .await
            .unwrap();
    }
}

fn group(g: &str) -> ConsumerOptions {
    ConsumerOptions {
        group: Some(g.into()),
        auto_commit: None,
        ..ConsumerOptions::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_consumer_of_the_group_resumes_at_the_committed_offset() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |_| {}).await;
    let c = client(broker.addr()).await;
    filled(&c, "resume", 1000).await;
    {
        let mut first = Consumer::new(&c, "resume", group("g")).await.unwrap();
        for i in 0..400 {
            let r = next(&mut first).await.unwrap();
            assert_eq!((r.offset, value(&r)), (i, i as u32));
        }
        first.commit().await.unwrap();
        assert_eq!(first.committed(), vec![(0, Some(400))]);
        // Read on, without committing: these come again.
        for _ in 0..50 {
            next(&mut first).await.unwrap();
        }
    }
    drop(c);
    // A new client and consumer: a restarted application.
    let c = client(broker.addr()).await;
    assert_eq!(c.committed("g", "resume", 0).await.unwrap(), Some(400));
    let mut second = Consumer::new(&c, "resume", group("g")).await.unwrap();
    for i in 400..1000 {
        let r = next(&mut second).await.unwrap();
        assert_eq!((r.offset, value(&r)), (i, i as u32));
    }
    // Another group starts from its own (absent) commit: the fallback.
    let mut other = Consumer::new(&c, "resume", group("other")).await.unwrap();
    assert_eq!(next(&mut other).await.unwrap().offset, 0);
    broker.shutdown().await.unwrap();
}

/// Records borrowed with `try_next_ref` move positions and commits as
/// owned ones do: a mixed reader commits where it stopped and a new one
/// resumes there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn borrowed_records_move_positions_and_commits_like_owned_ones() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |_| {}).await;
    let c = client(broker.addr()).await;
    filled(&c, "borrowed", 1000).await;
    let mut first = Consumer::new(&c, "borrowed", group("g")).await.unwrap();
    let (mut borrowed, mut i) = (0, 0u64);
    while i < 700 {
        if let Some(r) = first.try_next_ref() {
            let r = r.unwrap();
            let v = u32::from_be_bytes(r.value().try_into().unwrap());
            assert_eq!(
                (r.topic(), r.partition(), r.offset(), v),
                ("borrowed", 0, i, i as u32)
            );
            assert!(r.key().is_empty());
            assert_eq!(r.to_record().offset, i);
            borrowed += 1;
        } else {
            let r = next(&mut first).await.unwrap();
            assert_eq!((r.offset, value(&r)), (i, i as u32));
        }
        i += 1;
    }
    assert!(
        borrowed > 600,
        "most records come from a fetch already there: {borrowed}"
    );
    assert_eq!(first.position(0), Some(700));
    first.commit().await.unwrap();
    assert_eq!(first.committed(), vec![(0, Some(700))]);
    let mut second = Consumer::new(&c, "borrowed", group("g")).await.unwrap();
    assert_eq!(next(&mut second).await.unwrap().offset, 700);
    broker.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_periodic_commit_covers_finished_records_only() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |_| {}).await;
    let c = client(broker.addr()).await;
    filled(&c, "auto", 20).await;
    let mut consumer = Consumer::new(
        &c,
        "auto",
        ConsumerOptions {
            group: Some("g".into()),
            // Long enough that opening and reading five records never
            // straddle it, even on a slow machine.
            auto_commit: Some(Duration::from_millis(500)),
            ..ConsumerOptions::default()
        },
    )
    .await
    .unwrap();
    for i in 0..5 {
        assert_eq!(next(&mut consumer).await.unwrap().offset, i);
    }
    // Let the interval pass while record 4 is "being handled".
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(
        c.committed("g", "auto", 0).await.unwrap(),
        None,
        "nothing commits between calls"
    );
    // Asking for record 5 finishes 0..=4 and commits them — not 5.
    assert_eq!(next(&mut consumer).await.unwrap().offset, 5);
    assert_eq!(c.committed("g", "auto", 0).await.unwrap(), Some(5));
    // close() commits everything returned: the application is done with it.
    consumer.close().await.unwrap();
    assert_eq!(c.committed("g", "auto", 0).await.unwrap(), Some(6));
    broker.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn start_positions_and_the_reset_policy() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |_| {}).await;
    let c = client(broker.addr()).await;
    filled(&c, "pos", 30).await;
    let opts = |start, reset| ConsumerOptions {
        start,
        reset,
        ..ConsumerOptions::default()
    };
    // Explicit offset, mid-batch: the records before it in its batch are skipped.
    let mut k = Consumer::new(&c, "pos", opts(StartFrom::Offset(13), ResetPolicy::Error))
        .await
        .unwrap();
    assert_eq!(next(&mut k).await.unwrap().offset, 13);
    // Latest: only what is produced from now on.
    let mut k = Consumer::new(&c, "pos", opts(StartFrom::Latest, ResetPolicy::Error))
        .await
        .unwrap();
    assert_eq!(k.position(0), Some(30));
    c.produce("pos", 0, Ack::Durable, batch(30..31))
        .await
        .unwrap();
    assert_eq!(next(&mut k).await.unwrap().offset, 30);
    // Committed with no commit yet: the fallback.
    let k = Consumer::new(
        &c,
        "pos",
        ConsumerOptions {
            group: Some("fresh".into()),
            start: StartFrom::Committed {
                fallback: Fallback::Latest,
            },
            ..ConsumerOptions::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(k.position(0), Some(31));
    // Beyond the end: Error reports the bounds...
    let mut k = Consumer::new(&c, "pos", opts(StartFrom::Offset(500), ResetPolicy::Error))
        .await
        .unwrap();
    match next(&mut k).await {
        Err(ClientError::OffsetOutOfRange {
            log_start,
            high_watermark,
            ..
        }) => assert_eq!((log_start, high_watermark), (0, 31)),
        other => panic!("expected OffsetOutOfRange, got {other:?}"),
    }
    // ...Earliest moves to the log start...
    let mut k = Consumer::new(
        &c,
        "pos",
        opts(StartFrom::Offset(500), ResetPolicy::Earliest),
    )
    .await
    .unwrap();
    assert_eq!(next(&mut k).await.unwrap().offset, 0);
    // ...and Latest to the end.
    let mut k = Consumer::new(&c, "pos", opts(StartFrom::Offset(500), ResetPolicy::Latest))
        .await
        .unwrap();
    c.produce("pos", 0, Ack::Durable, batch(31..32))
        .await
        .unwrap();
    assert_eq!(next(&mut k).await.unwrap().offset, 31);
    broker.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn all_partitions_by_default_and_unknown_topics_typed() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |c| c.auto_create = false).await;
    let c = client(broker.addr()).await;
    let err = Consumer::new(&c, "absent", ConsumerOptions::default())
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(Status::UnknownTopic), "{err:?}");
    c.create_topic(
        "parts",
        TopicSettings {
            partitions: 3,
            cleanup: Cleanup::Delete,
            retention_ms: 0,
            retention_bytes: 0,
        },
    )
    .await
    .unwrap();
    for p in 0..3 {
        c.produce("parts", p, Ack::Durable, batch(p * 10..p * 10 + 10))
            .await
            .unwrap();
    }
    let mut k = Consumer::new(&c, "parts", ConsumerOptions::default())
        .await
        .unwrap();
    let mut got = Vec::new();
    for _ in 0..30 {
        let r = next(&mut k).await.unwrap();
        assert_eq!(value(&r), r.partition * 10 + r.offset as u32);
        got.push(value(&r));
    }
    got.sort_unstable();
    assert_eq!(got, (0..30).collect::<Vec<_>>());
    let err = Consumer::new(
        &c,
        "parts",
        ConsumerOptions {
            partitions: Some(vec![7]),
            ..ConsumerOptions::default()
        },
    )
    .await
    .unwrap_err();
    assert_eq!(err.status(), Some(Status::UnknownPartition), "{err:?}");
    broker.shutdown().await.unwrap();
}

/// What the scripted broker saw, for the test to wait on.
#[derive(Debug, PartialEq, Eq)]
enum Event {
    Fetch { offset: u64 },
}

/// A broker that knows one topic, `t`, with one partition holding `batches`
/// (whole batches with their base offsets set), and reports every fetch.
async fn scripted_broker(
    batches: Vec<u8>,
    hw: u64,
) -> (
    std::net::SocketAddr,
    tokio::sync::mpsc::UnboundedReceiver<Event>,
) {
    let (addr, events, _frames) = scripted_broker_as(batches, hw, None).await;
    (addr, events)
}

/// A fetch frame as the scripted broker received it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FetchFrame {
    /// Bytes of the whole frame, its length prefix included.
    len: usize,
    min_bytes: u32,
    min_wait_ms: u32,
}

/// [`scripted_broker`] that answers the hello as version 3 with `flags`
/// (`None`: version 2) and also reports every fetch frame.
async fn scripted_broker_as(
    batches: Vec<u8>,
    hw: u64,
    flags: Option<u32>,
) -> (
    std::net::SocketAddr,
    tokio::sync::mpsc::UnboundedReceiver<Event>,
    tokio::sync::mpsc::UnboundedReceiver<FetchFrame>,
) {
    let (frames_tx, frames_rx) = tokio::sync::mpsc::unbounded_channel();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Ok((mut s, _)) = listener.accept().await {
            let batches = batches.clone();
            let tx = tx.clone();
            let frames_tx = frames_tx.clone();
            tokio::spawn(async move {
                let mut hello = [0u8; 8];
                if s.read_exact(&mut hello).await.is_err() {
                    return;
                }
                let ours = match flags {
                    None => Hello::broker(1 << 20).encode().to_vec(),
                    Some(flags) => BrokerHello {
                        max_frame: 1 << 20,
                        flags: BrokerFlags(flags),
                        nonce: [1; NONCE_LEN],
                        broker_id: [2; BROKER_ID_LEN],
                    }
                    .encode()
                    .to_vec(),
                };
                s.write_all(&ours).await.unwrap();
                let mut buf = BytesMut::new();
                loop {
                    while let Ok(FrameCheck::Complete { len }) =
                        check_request(&buf, &Limits::default())
                    {
                        let frame = buf.split_to(len);
                        let f = decode_request(&frame, &Limits::default()).unwrap();
                        let mut out = BytesMut::new();
                        let body = match f.request {
                            Request::Metadata(_) => ResponseBody::Metadata(vec![TopicMetadata {
                                name: "t".into(),
                                cleanup: Cleanup::Delete,
                                retention_ms: u64::MAX,
                                retention_bytes: u64::MAX,
                                partitions: vec![PartitionMetadata {
                                    partition: 0,
                                    log_start: 0,
                                    high_watermark: hw,
                                }],
                            }]),
                            Request::Fetch(fetch) => {
                                let _ = frames_tx.send(FetchFrame {
                                    len: frame.len(),
                                    min_bytes: fetch.min_bytes,
                                    min_wait_ms: fetch.min_wait_ms,
                                });
                                let _ = tx.send(Event::Fetch {
                                    offset: fetch.offset,
                                });
                                if fetch.offset >= hw {
                                    // Nothing more: answer empty, as after a long poll.
                                    ResponseBody::Fetch {
                                        high_watermark: hw,
                                        log_start: 0,
                                        records: &[],
                                    }
                                } else {
                                    // Always everything from the start: the
                                    // client skips what it did not ask for.
                                    ResponseBody::Fetch {
                                        high_watermark: hw,
                                        log_start: 0,
                                        records: &batches,
                                    }
                                }
                            }
                            other => panic!("unexpected request {other:?}"),
                        };
                        encode_response(f.correlation_id, &body, &mut out).unwrap();
                        if s.write_all(&out).await.is_err() {
                            return;
                        }
                    }
                    match s.read_buf(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(_) => {}
                    }
                }
            });
        }
    });
    (addr, rx, frames_rx)
}

fn batch_at(base: u64, records: std::ops::Range<u32>) -> Vec<u8> {
    let mut b = batch(records).to_vec();
    patch_base_offset(&mut b, base);
    b
}

/// A tombstone (empty payload, one record: PROTOCOL.md §5) is read as one
/// record with an empty value, and reading goes on after it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tombstone_is_read_as_an_empty_record() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |_| {}).await;
    let c = client(broker.addr()).await;
    c.produce("tomb", 0, Ack::Durable, batch(0..2))
        .await
        .unwrap();
    let at = c
        .produce(
            "tomb",
            0,
            Ack::Durable,
            Bytes::from(BatchBuilder::tombstone(b"k", 1)),
        )
        .await
        .unwrap();
    assert_eq!(at, 2);
    c.produce("tomb", 0, Ack::Durable, batch(3..5))
        .await
        .unwrap();
    let mut k = Consumer::new(
        &c,
        "tomb",
        ConsumerOptions {
            start: StartFrom::Earliest,
            ..ConsumerOptions::default()
        },
    )
    .await
    .unwrap();
    for i in 0..5u64 {
        let r = next(&mut k).await.unwrap();
        assert_eq!(r.offset, i);
        if i == 2 {
            assert!(r.value.is_empty(), "{r:?}");
            assert_eq!(&r.key[..], b"k");
        } else {
            assert_eq!(u64::from(value(&r)), i);
        }
    }
    broker.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_corrupt_batch_is_an_error_every_time_never_a_skip() {
    let mut batches = batch_at(0, 0..1);
    let mut bad = batch_at(1, 1..2);
    let last = bad.len() - 1;
    bad[last] ^= 0x40; // a flipped bit in the record bytes
    batches.extend_from_slice(&bad);
    batches.extend_from_slice(&batch_at(2, 2..3));
    let (addr, _events) = scripted_broker(batches, 3).await;
    let c = client(addr).await;
    let mut k = Consumer::new(&c, "t", ConsumerOptions::default())
        .await
        .unwrap();
    assert_eq!(next(&mut k).await.unwrap().offset, 0);
    for _ in 0..3 {
        match next(&mut k).await {
            Err(ClientError::CorruptBatch {
                base_offset: 1,
                partition: 0,
                ..
            }) => {}
            other => panic!("expected the corrupt batch at offset 1, got {other:?}"),
        }
        assert_eq!(
            k.position(0),
            Some(1),
            "the consumer stays at the bad batch"
        );
    }
    // Only an explicit seek moves past it.
    k.seek(0, 2).unwrap();
    let r = next(&mut k).await.unwrap();
    assert_eq!((r.offset, value(&r)), (2, 2));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_next_fetch_is_in_flight_while_the_application_handles_records() {
    let batches = [batch_at(0, 0..5), batch_at(5, 5..10)].concat();
    let (addr, mut events) = scripted_broker(batches, 10).await;
    let c = client(addr).await;
    let mut k = Consumer::new(&c, "t", ConsumerOptions::default())
        .await
        .unwrap();
    let first = next(&mut k).await.unwrap();
    assert_eq!(first.offset, 0);
    assert_eq!(events.recv().await, Some(Event::Fetch { offset: 0 }));
    // While the application still holds record 0 and has not asked for
    // more, the fetch for what follows this response is already out.
    let ev = tokio::time::timeout(Duration::from_secs(10), events.recv())
        .await
        .expect("no prefetch while the application was busy");
    assert_eq!(ev, Some(Event::Fetch { offset: 10 }));
    for i in 1..10 {
        assert_eq!(next(&mut k).await.unwrap().offset, i);
    }
}

/// After an answer with records the consumer streams (asks
/// `stream_min_bytes`), after an empty one it asks `min_bytes` — and only a
/// broker that announced `FETCH_MIN_BYTES` is asked at all: an older one
/// would refuse the longer body.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn min_bytes_goes_only_to_a_broker_that_announced_it() {
    let batches = batch_at(0, 0..5);
    for announced in [false, true] {
        let flags = if announced {
            BrokerFlags::FETCH_MIN_BYTES
        } else {
            0
        };
        let (addr, _events, mut frames) = scripted_broker_as(batches.clone(), 5, Some(flags)).await;
        let c = client(addr).await;
        let mut k = Consumer::new(
            &c,
            "t",
            ConsumerOptions {
                stream_min_bytes: 4096,
                stream_min_wait: Duration::from_millis(3),
                ..ConsumerOptions::default()
            },
        )
        .await
        .unwrap();
        for i in 0..5 {
            assert_eq!(next(&mut k).await.unwrap().offset, i);
        }
        let mut seen = Vec::new();
        // The first fetch (nothing read yet), the one after the records
        // (streaming) and the one after its empty answer.
        for _ in 0..3 {
            // Drive the consumer (it fetches again inside next()) until
            // the broker has seen the fetch.
            let f = tokio::time::timeout(Duration::from_secs(20), async {
                tokio::select! {
                    f = frames.recv() => f,
                    r = k.next() => panic!("no record past offset 4: {r:?}"),
                }
            })
            .await
            .expect("a fetch")
            .unwrap();
            seen.push((f.min_bytes, f.min_wait_ms));
            // 4 + 1 + 4 (head), 1 + 1 ("t"), 4 + 8 + 4 + 4; 8 more with min_bytes.
            let old_len = 31;
            let expect = if f.min_bytes > 1 {
                old_len + 8
            } else {
                old_len
            };
            assert_eq!(f.len, expect, "{f:?}");
        }
        let streaming = if announced { (4096, 3) } else { (1, 0) };
        assert_eq!(seen, [(1, 0), streaming, (1, 0)], "announced: {announced}");
    }
}
