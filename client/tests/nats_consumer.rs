//! The consumer over NATS JetStream (a real single `nats-server -js` per
//! test), the same checks as `consumer.rs` against the broker: committed
//! offsets across clients, the periodic commit's "finished" rule, start
//! positions, the reset policy, all partitions by default, typed errors, and
//! a message that is not a well-formed batch reported rather than skipped.
//! Produces ask for written acks: Debian's nats-server 2.9.10 cannot sync
//! every write, so a durable one would be refused (docs/SCALE-OUT.md §4).

mod support;

use std::time::Duration;

use bytes::Bytes;
use hermit_client::transport::nats_offset::NatsOffset;
use hermit_client::{
    Ack, Cleanup, Client, ClientError, ClientOptions, Consumer, ConsumerOptions, Fallback,
    ResetPolicy, StartFrom, Status, TopicSettings,
};
use hermit_protocol::BatchBuilder;
use support::nats::*;

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

/// `n` records (values 0..n) in batches of 10 on partition 0; returns the
/// offset of each record, by value.
async fn filled(c: &Client, topic: &str, n: u32) -> Vec<u64> {
    let mut offsets = Vec::new();
    for start in (0..n).step_by(10) {
        let end = (start + 10).min(n);
        let base = c
            .produce(topic, 0, Ack::Written, batch(start..end))
            .await
            .unwrap();
        offsets.extend((0..u64::from(end - start)).map(|i| base + i));
    }
    offsets
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
    let server = NatsServer::single(dir.path());
    let c = nats_client(&server.url(), ClientOptions::default()).await;
    let at = filled(&c, "resume", 1000).await;
    {
        let mut first = Consumer::new(&c, "resume", group("g")).await.unwrap();
        // 405: mid-batch, the case an ack of whole messages could not express.
        for (i, &offset) in at.iter().enumerate().take(405) {
            let r = next(&mut first).await.unwrap();
            assert_eq!((r.offset, value(&r)), (offset, i as u32));
        }
        first.commit().await.unwrap();
        assert_eq!(first.committed(), vec![(0, Some(at[404] + 1))]);
        for _ in 0..50 {
            next(&mut first).await.unwrap();
        }
    }
    drop(c);
    let c = nats_client(&server.url(), ClientOptions::default()).await;
    assert_eq!(
        c.committed("g", "resume", 0).await.unwrap(),
        Some(at[404] + 1)
    );
    let mut second = Consumer::new(&c, "resume", group("g")).await.unwrap();
    for (i, &offset) in at.iter().enumerate().skip(405) {
        let r = next(&mut second).await.unwrap();
        assert_eq!((r.offset, value(&r)), (offset, i as u32));
    }
    // Another group starts from its own (absent) commit: the fallback.
    let mut other = Consumer::new(&c, "resume", group("other")).await.unwrap();
    assert_eq!(next(&mut other).await.unwrap().offset, at[0]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_periodic_commit_covers_finished_records_only() {
    let dir = tempfile::tempdir().unwrap();
    let server = NatsServer::single(dir.path());
    let c = nats_client(&server.url(), ClientOptions::default()).await;
    let at = filled(&c, "auto", 20).await;
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
    for &offset in &at[..5] {
        assert_eq!(next(&mut consumer).await.unwrap().offset, offset);
    }
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(c.committed("g", "auto", 0).await.unwrap(), None);
    assert_eq!(next(&mut consumer).await.unwrap().offset, at[5]);
    assert_eq!(c.committed("g", "auto", 0).await.unwrap(), Some(at[5]));
    consumer.close().await.unwrap();
    assert_eq!(c.committed("g", "auto", 0).await.unwrap(), Some(at[6]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn start_positions_and_the_reset_policy() {
    let dir = tempfile::tempdir().unwrap();
    let server = NatsServer::single(dir.path());
    let c = nats_client(&server.url(), ClientOptions::default()).await;
    let at = filled(&c, "pos", 30).await;
    let opts = |start, reset| ConsumerOptions {
        start,
        reset,
        ..ConsumerOptions::default()
    };
    // An explicit offset mid-batch: the records before it are skipped.
    let mut k = Consumer::new(
        &c,
        "pos",
        opts(StartFrom::Offset(at[13]), ResetPolicy::Error),
    )
    .await
    .unwrap();
    assert_eq!(next(&mut k).await.unwrap().offset, at[13]);
    // Latest: only what is produced from now on.
    let mut k = Consumer::new(&c, "pos", opts(StartFrom::Latest, ResetPolicy::Error))
        .await
        .unwrap();
    assert_eq!(k.position(0), Some(NatsOffset::sequence_start(4)));
    let base = c
        .produce("pos", 0, Ack::Written, batch(30..31))
        .await
        .unwrap();
    assert_eq!(next(&mut k).await.unwrap().offset, base);
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
    assert_eq!(k.position(0), Some(NatsOffset::sequence_start(5)));
    // Beyond the end: Error reports the bounds...
    let far = NatsOffset::sequence_start(500);
    let mut k = Consumer::new(&c, "pos", opts(StartFrom::Offset(far), ResetPolicy::Error))
        .await
        .unwrap();
    match next(&mut k).await {
        Err(ClientError::OffsetOutOfRange {
            log_start,
            high_watermark,
            ..
        }) => assert_eq!(
            (log_start, high_watermark),
            (NatsOffset::sequence_start(1), NatsOffset::sequence_start(5))
        ),
        other => panic!("expected OffsetOutOfRange, got {other:?}"),
    }
    // ...Earliest moves to the log start...
    let mut k = Consumer::new(
        &c,
        "pos",
        opts(StartFrom::Offset(far), ResetPolicy::Earliest),
    )
    .await
    .unwrap();
    assert_eq!(next(&mut k).await.unwrap().offset, at[0]);
    // ...and Latest to the end.
    let mut k = Consumer::new(&c, "pos", opts(StartFrom::Offset(far), ResetPolicy::Latest))
        .await
        .unwrap();
    // Let it find the offset out of range and move to the end before
    // producing (nothing arrives meanwhile: the topic is not written to).
    let end = Some(NatsOffset::sequence_start(5));
    let started = tokio::time::Instant::now();
    while k.position(0) != end {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "no reset to the end: at {:?}",
            k.position(0)
        );
        assert!(
            tokio::time::timeout(Duration::from_millis(50), k.next())
                .await
                .is_err(),
            "a record before anything was produced"
        );
    }
    let base = c
        .produce("pos", 0, Ack::Written, batch(31..32))
        .await
        .unwrap();
    assert_eq!(next(&mut k).await.unwrap().offset, base);
    // Seek back to any record.
    k.seek(0, at[7]).unwrap();
    let r = next(&mut k).await.unwrap();
    assert_eq!((r.offset, value(&r)), (at[7], 7));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn all_partitions_by_default_and_unknown_topics_typed() {
    let dir = tempfile::tempdir().unwrap();
    let server = NatsServer::single(dir.path());
    let c = nats_client(
        &format!("{}?auto_create=false", server.url()),
        ClientOptions::default(),
    )
    .await;
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
        c.produce("parts", p, Ack::Written, batch(p * 10..p * 10 + 10))
            .await
            .unwrap();
    }
    let mut k = Consumer::new(&c, "parts", ConsumerOptions::default())
        .await
        .unwrap();
    let mut got = Vec::new();
    for _ in 0..30 {
        let r = next(&mut k).await.unwrap();
        let index = NatsOffset::decode(r.offset).slot - (65_536 - 10);
        assert_eq!(value(&r), r.partition * 10 + index);
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
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_foreign_or_altered_message_is_an_error_every_time_never_a_skip() {
    let dir = tempfile::tempdir().unwrap();
    let server = NatsServer::single(dir.path());
    let c = nats_client(&server.url(), ClientOptions::default()).await;
    let first = c.produce("t", 0, Ack::Written, batch(0..1)).await.unwrap();
    // Someone with access to the NATS account publishes on the partition's
    // subject directly: not a HermitMQ batch.
    let raw = async_nats::connect(format!("127.0.0.1:{}", server.port))
        .await
        .unwrap();
    let js = async_nats::jetstream::new(raw);
    js.publish("hermit.t.0", Bytes::from_static(b"not a batch"))
        .await
        .unwrap()
        .await
        .unwrap();
    let third = c.produce("t", 0, Ack::Written, batch(2..3)).await.unwrap();
    let mut k = Consumer::new(&c, "t", ConsumerOptions::default())
        .await
        .unwrap();
    assert_eq!(next(&mut k).await.unwrap().offset, first);
    // The foreign message is sequence 2; without headers it reads as one record.
    let bad = NatsOffset::record(2, 1, 0);
    for _ in 0..3 {
        match next(&mut k).await {
            Err(ClientError::CorruptBatch {
                base_offset,
                partition: 0,
                ..
            }) => assert_eq!(base_offset, bad),
            other => panic!("expected the corrupt batch at {bad}, got {other:?}"),
        }
        // The position after the first batch: before the bad one.
        assert_eq!(
            k.position(0),
            Some(first + 1),
            "the consumer stays at the bad batch"
        );
        assert_eq!(first + 1, NatsOffset::sequence_start(2));
    }
    k.seek(0, third).unwrap();
    let r = next(&mut k).await.unwrap();
    assert_eq!((r.offset, value(&r)), (third, 2));
}
