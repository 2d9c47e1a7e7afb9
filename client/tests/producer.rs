//! The batching producer against a real in-process broker: completeness,
//! order and exactly-once under concurrency, delivery offsets checked
//! against what a consumer reads, linger and batch limits, keys, writing in
//! place, back-pressure, typed per-record errors.

mod support;

use std::time::Duration;

use hermit_broker::config::FsyncPolicy;
use hermit_client::partitioner::partition_for_key;
use hermit_client::{Ack, ClientError, Delivered, Producer, ProducerOptions, Status};
use support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_producers_of_100k_records_arrive_complete_in_order_once_where_delivered() {
    const PRODUCERS: u8 = 10;
    const RECORDS: u32 = 100_000;
    const PARTITIONS: u32 = 4;
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |_| {}).await;
    let admin = client(broker.addr()).await;
    let url = broker.addr().to_string();
    producers_arrive_complete_in_order_once(
        &admin,
        &url,
        PRODUCERS,
        RECORDS,
        PARTITIONS,
        Ack::Durable,
    )
    .await;
    broker.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_batch_goes_at_once_and_a_lone_record_after_its_linger() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |_| {}).await;
    let c = client(broker.addr()).await;
    // A linger far beyond the test's timeout: only batch_records can send these.
    let producer = Producer::new(
        &c,
        ProducerOptions {
            linger: Duration::from_secs(3600),
            batch_records: 3,
            ..ProducerOptions::default()
        },
    );
    let mut ds = Vec::new();
    for i in 0..3u8 {
        ds.push(producer.send("full", b"", &[i]).await.unwrap());
    }
    for (i, d) in ds.into_iter().enumerate() {
        let got = tokio::time::timeout(Duration::from_secs(10), d)
            .await
            .expect("a full batch waited for its linger")
            .unwrap();
        assert_eq!(
            got,
            Delivered {
                partition: 0,
                offset: i as u64
            }
        );
    }
    // A short linger sends a lone record without flush().
    let producer = Producer::new(
        &c,
        ProducerOptions {
            linger: Duration::from_millis(20),
            ..ProducerOptions::default()
        },
    );
    let d = producer.send("full", b"", b"alone").await.unwrap();
    let got = tokio::time::timeout(Duration::from_secs(10), d)
        .await
        .expect("a lingering record was never sent")
        .unwrap();
    assert_eq!(got.offset, 3);
    broker.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keyed_records_keep_their_partition_their_key_and_their_order() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |_| {}).await;
    let c = client(broker.addr()).await;
    keyed_records_keep_partition_key_and_order(&c, 1000, Ack::Durable).await;
    broker.shutdown().await.unwrap();
}

#[derive(Debug)]
struct SealFailed;
impl std::fmt::Display for SealFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("seal failed")
    }
}
impl std::error::Error for SealFailed {}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn flush_returns_after_a_writer_failed_in_a_batch_of_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |_| {}).await;
    let c = client(broker.addr()).await;
    let producer = Producer::new(&c, ProducerOptions::default());
    // The failing record is the first of its batch: the batch is left
    // empty and dropped, and nothing will ever acknowledge it.
    let err = producer
        .send_with("lonely", b"", 5, |buf| {
            buf.extend_from_slice(b"half-");
            Err(SealFailed)
        })
        .await
        .unwrap_err();
    assert!(matches!(err, ClientError::Write(_)), "{err:?}");
    tokio::time::timeout(Duration::from_secs(10), producer.flush())
        .await
        .expect("flush returns once the emptied batch is dropped");
    assert_eq!(producer.buffered_bytes(), 0);
    let d = producer.send("lonely", b"", b"after").await.unwrap();
    producer.flush().await;
    assert_eq!(
        d.await.unwrap().offset,
        0,
        "nothing of the failed record was sent"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn send_with_writes_in_place_and_a_failing_or_panicking_writer_leaves_no_trace() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |_| {}).await;
    let c = client(broker.addr()).await;
    let producer = Producer::new(&c, ProducerOptions::default());
    let a = producer
        .send_with("inplace", b"", 5, |buf| {
            buf.extend_from_slice(b"first");
            Ok::<(), SealFailed>(())
        })
        .await
        .unwrap();
    let err = producer
        .send_with("inplace", b"", 5, |buf| {
            buf.extend_from_slice(b"half-");
            Err(SealFailed)
        })
        .await
        .unwrap_err();
    assert!(matches!(err, ClientError::Write(_)), "{err:?}");
    let panicking = {
        let producer = producer.clone();
        tokio::spawn(async move {
            producer
                .send_with("inplace", b"", 5, |buf| {
                    buf.extend_from_slice(b"junk");
                    panic!("writer bug");
                    #[allow(unreachable_code)]
                    Ok::<(), SealFailed>(())
                })
                .await
        })
    };
    assert!(
        panicking.await.is_err(),
        "the writer's panic reaches its task"
    );
    let b = producer.send("inplace", b"", b"second").await.unwrap();
    producer.flush().await;
    let (a, b) = (a.await.unwrap(), b.await.unwrap());
    assert_eq!(
        (a.offset, b.offset),
        (0, 1),
        "one batch of exactly two records"
    );
    let f = c
        .fetch("inplace", 0, 0, 1 << 20, Duration::ZERO)
        .await
        .unwrap();
    let values: Vec<Vec<u8>> = f
        .records()
        .map(|r| r.map(|r| r.value.to_vec()))
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(values, vec![b"first".to_vec(), b"second".to_vec()]);
    broker.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_stays_bounded_while_the_broker_stalls_and_everything_arrives_after() {
    const BOUND: usize = 256 * 1024;
    const RECORDS: u32 = 20_000; // 20,000 x 104 bytes: eight times the bound
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |_| {}).await;
    let proxy = StallProxy::start(broker.addr()).await;
    let c = client(proxy.addr).await;
    let producer = Producer::new(
        &c,
        ProducerOptions {
            buffer_bytes: BOUND,
            ..ProducerOptions::default()
        },
    );
    // Topic known, connection through the proxy warm.
    producer
        .send("bp", b"", &[0; 100])
        .await
        .unwrap()
        .await
        .unwrap();
    proxy.stall(true);
    let forwarded_at_stall = proxy
        .forwarded_up
        .load(std::sync::atomic::Ordering::Relaxed);

    let mut ds = Vec::new();
    let mut seq = 0u32;
    let mut max_seen = 0;
    // Send until send() stops returning: that is the back-pressure.
    loop {
        let mut value = [0u8; 100];
        value[..4].copy_from_slice(&seq.to_be_bytes());
        match tokio::time::timeout(Duration::from_millis(500), producer.send("bp", b"", &value))
            .await
        {
            Ok(d) => {
                ds.push(d.unwrap());
                seq += 1;
                max_seen = max_seen.max(producer.buffered_bytes());
                assert!(
                    producer.buffered_bytes() <= BOUND,
                    "{} > {BOUND}",
                    producer.buffered_bytes()
                );
                assert!(
                    seq < RECORDS,
                    "send never waited although nothing reached the broker"
                );
            }
            Err(_) => break, // Waiting for space; the dropped send changed nothing.
        }
    }
    let blocked_at = seq;
    assert!(
        max_seen > BOUND / 2,
        "the buffer filled up ({max_seen} bytes) before send waited"
    );
    assert!(producer.buffered_bytes() <= BOUND);
    assert_eq!(
        proxy
            .forwarded_up
            .load(std::sync::atomic::Ordering::Relaxed),
        forwarded_at_stall,
        "the proxy forwarded while stalled"
    );
    // Resume: the rest goes through, with the bound still holding.
    proxy.stall(false);
    while seq < RECORDS {
        let mut value = [0u8; 100];
        value[..4].copy_from_slice(&seq.to_be_bytes());
        ds.push(producer.send("bp", b"", &value).await.unwrap());
        assert!(producer.buffered_bytes() <= BOUND);
        seq += 1;
    }
    producer.flush().await;
    assert_eq!(
        producer.buffered_bytes(),
        0,
        "everything acknowledged gives its bytes back"
    );
    for (i, d) in ds.into_iter().enumerate() {
        assert_eq!(d.await.unwrap().offset, i as u64 + 1);
    }
    let meta = c.metadata(Some("bp")).await.unwrap();
    assert_eq!(meta[0].partitions[0].high_watermark, u64::from(RECORDS) + 1);
    assert!(blocked_at > 100, "blocked after {blocked_at} records only");
    broker.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_reach_each_record_typed_and_are_not_retried() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |c| {
        c.fsync = FsyncPolicy::Never;
        c.auto_create = false;
    })
    .await;
    let c = client(broker.addr()).await;
    c.create_topic("exists", settings(1)).await.unwrap();
    // Durable is the default; this broker cannot give it.
    let producer = Producer::new(&c, ProducerOptions::default());
    let ds = [
        producer.send("exists", b"", b"a").await.unwrap(),
        producer.send("exists", b"", b"b").await.unwrap(),
    ];
    producer.flush().await;
    for d in ds {
        let err = d.await.unwrap_err();
        assert_eq!(err.status(), Some(Status::NotDurable), "{err:?}");
    }
    // ack = Written works against the same broker.
    let written = Producer::new(
        &c,
        ProducerOptions {
            ack: Ack::Written,
            ..ProducerOptions::default()
        },
    );
    let d = written.send("exists", b"", b"ok").await.unwrap();
    assert_eq!(
        d.await.unwrap().offset,
        0,
        "the refused batches took no offsets"
    );
    // Unknown topic with auto-create off.
    let d = written.send("missing", b"", b"x").await.unwrap();
    written.flush().await;
    let err = d.await.unwrap_err();
    assert_eq!(err.status(), Some(Status::UnknownTopic), "{err:?}");
    broker.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_topic_starts_on_partition_0_then_spreads_once_the_broker_created_it() {
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |c| c.default_partitions = 3).await;
    let c = client(broker.addr()).await;
    let producer = Producer::new(
        &c,
        ProducerOptions {
            batch_records: 10,
            ..ProducerOptions::default()
        },
    );
    // Unknown to the broker: partition 0, which auto-creates it with 3.
    let first = producer.send("fresh", b"", b"x").await.unwrap();
    assert_eq!(first.partition(), 0);
    producer.flush().await;
    assert_eq!(
        first.await.unwrap(),
        Delivered {
            partition: 0,
            offset: 0
        }
    );
    // The first ack triggers a metadata refresh; keyless batches then rotate
    // over the three partitions. Each round trip below gives it time.
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..200 {
        let mut last = None;
        for i in 0..10u8 {
            last = Some(producer.send("fresh", b"", &[i]).await.unwrap());
        }
        seen.insert(last.unwrap().await.unwrap().partition);
        if seen.len() == 3 {
            break;
        }
    }
    assert_eq!(seen.into_iter().collect::<Vec<_>>(), vec![0, 1, 2]);
    // Keys follow the hash over the real partition count.
    let d = producer
        .send("fresh", b"conversation-7", b"k")
        .await
        .unwrap();
    assert_eq!(d.partition(), partition_for_key(b"conversation-7", 3));
    broker.shutdown().await.unwrap();
}
