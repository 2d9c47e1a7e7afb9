//! The batching producer over NATS JetStream (a real single `nats-server
//! -js` per test), the same checks as `producer.rs` against the broker:
//! completeness, per-partition order and exactly-once under concurrency,
//! delivery offsets checked against what a consumer reads, linger and batch
//! limits, keys, writing in place, back-pressure while the server stalls,
//! typed per-record errors, a server restart under a running producer.
//!
//! The servers are Debian's nats-server 2.9.10, which syncs its store on a
//! timer and cannot do otherwise: the producers ask for written acks (a
//! durable one would be refused, docs/SCALE-OUT.md §4; `nats_cluster` shows
//! durable acks on servers that sync every write).

mod support;

use std::collections::HashMap;
use std::time::Duration;

use hermit_client::partitioner::partition_for_key;
use hermit_client::transport::nats_offset::NatsOffset;
use hermit_client::{
    Ack, ClientError, ClientOptions, Consumer, ConsumerOptions, Delivered, Producer,
    ProducerOptions, StartFrom, Status,
};
use support::nats::*;
use support::*;

/// The producer's default settings but written acks (see the top).
fn written() -> ProducerOptions {
    ProducerOptions {
        ack: Ack::Written,
        ..ProducerOptions::default()
    }
}

fn records_env() -> u32 {
    std::env::var("HERMIT_NATS_RECORDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_producers_arrive_complete_in_order_once_where_delivered() {
    const PRODUCERS: u8 = 10;
    const PARTITIONS: u32 = 4;
    let records = records_env();
    let dir = tempfile::tempdir().unwrap();
    let server = NatsServer::single(dir.path());
    let url = server.url();
    let admin = nats_client(&url, ClientOptions::default()).await;
    producers_arrive_complete_in_order_once(
        &admin,
        &url,
        PRODUCERS,
        records,
        PARTITIONS,
        Ack::Written,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_batch_goes_at_once_and_a_lone_record_after_its_linger() {
    let dir = tempfile::tempdir().unwrap();
    let server = NatsServer::single(dir.path());
    let c = nats_client(&server.url(), ClientOptions::default()).await;
    let producer = Producer::new(
        &c,
        ProducerOptions {
            linger: Duration::from_secs(3600),
            batch_records: 3,
            ..written()
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
                offset: NatsOffset::record(1, 3, i as u32)
            },
            "the first batch is stream message 1, its records at the end of its range"
        );
    }
    let producer = Producer::new(
        &c,
        ProducerOptions {
            linger: Duration::from_millis(20),
            ..written()
        },
    );
    let d = producer.send("full", b"", b"alone").await.unwrap();
    let got = tokio::time::timeout(Duration::from_secs(10), d)
        .await
        .expect("a lingering record was never sent")
        .unwrap();
    assert_eq!(got.offset, NatsOffset::record(2, 1, 0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keyed_records_keep_their_partition_their_key_and_their_order() {
    let dir = tempfile::tempdir().unwrap();
    let server = NatsServer::single(dir.path());
    let c = nats_client(&server.url(), ClientOptions::default()).await;
    keyed_records_keep_partition_key_and_order(&c, 500, Ack::Written).await;
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
async fn send_with_writes_in_place_and_a_failing_writer_leaves_no_trace() {
    let dir = tempfile::tempdir().unwrap();
    let server = NatsServer::single(dir.path());
    let c = nats_client(&server.url(), ClientOptions::default()).await;
    let producer = Producer::new(&c, written());
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
    let b = producer.send("inplace", b"", b"second").await.unwrap();
    producer.flush().await;
    let (a, b) = (a.await.unwrap(), b.await.unwrap());
    let base = NatsOffset::batch_base(1, 2);
    assert_eq!(
        (a.offset, b.offset),
        (base, base + 1),
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
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_stays_bounded_while_the_server_stalls_and_everything_arrives_after() {
    const BOUND: usize = 256 * 1024;
    const RECORDS: u32 = 20_000; // 20,000 x 104 bytes: eight times the bound
    let dir = tempfile::tempdir().unwrap();
    let server = NatsServer::single(dir.path());
    let upstream: std::net::SocketAddr = format!("127.0.0.1:{}", server.port).parse().unwrap();
    let proxy = StallProxy::start(upstream).await;
    let c = nats_client(&format!("nats://{}", proxy.addr), ClientOptions::default()).await;
    let producer = Producer::new(
        &c,
        ProducerOptions {
            buffer_bytes: BOUND,
            ..written()
        },
    );
    producer
        .send("bp", b"", &[0; 100])
        .await
        .unwrap()
        .await
        .unwrap();
    proxy.stall(true);
    let mut ds = Vec::new();
    let mut seq = 0u32;
    let mut max_seen = 0;
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
                assert!(producer.buffered_bytes() <= BOUND);
                assert!(
                    seq < RECORDS,
                    "send never waited although nothing reached the server"
                );
            }
            Err(_) => break,
        }
    }
    assert!(
        max_seen > BOUND / 2,
        "the buffer filled up ({max_seen}) before send waited"
    );
    proxy.stall(false);
    while seq < RECORDS {
        let mut value = [0u8; 100];
        value[..4].copy_from_slice(&seq.to_be_bytes());
        ds.push(producer.send("bp", b"", &value).await.unwrap());
        assert!(producer.buffered_bytes() <= BOUND);
        seq += 1;
    }
    producer.flush().await;
    assert_eq!(producer.buffered_bytes(), 0);
    let mut last = 0;
    for (i, d) in ds.into_iter().enumerate() {
        let offset = d
            .await
            .unwrap_or_else(|e| panic!("record {i}: {e:#}"))
            .offset;
        assert!(offset > last, "offsets increase in send order");
        last = offset;
    }
    // Every record, once, in order.
    let stored = read_all(&c, "bp", RECORDS as usize + 1).await;
    let mut by_offset: Vec<(u64, Vec<u8>)> = stored.into_iter().map(|((_, o), v)| (o, v)).collect();
    by_offset.sort();
    for (i, (_, v)) in by_offset.iter().skip(1).enumerate() {
        assert_eq!(&v[..4], &(i as u32).to_be_bytes());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_reach_each_record_typed_and_are_not_retried() {
    let dir = tempfile::tempdir().unwrap();
    let server = NatsServer::single(dir.path());
    let c = nats_client(
        &format!("{}?auto_create=false", server.url()),
        ClientOptions::default(),
    )
    .await;
    c.create_topic("exists", settings(1)).await.unwrap();
    let producer = Producer::new(&c, written());
    // Unknown topic with auto-create off.
    let d = producer.send("missing", b"", b"x").await.unwrap();
    producer.flush().await;
    let err = d.await.unwrap_err();
    assert_eq!(err.status(), Some(Status::UnknownTopic), "{err:?}");
    // A record above the server's max_payload (1 MiB): refused before it
    // is sent (the server would close the connection), alone in its batch.
    let before = producer.send("exists", b"", b"ok").await.unwrap();
    let huge = producer
        .send("exists", b"", &vec![7u8; 2 << 20])
        .await
        .unwrap();
    let after = producer.send("exists", b"", b"ok too").await.unwrap();
    producer.flush().await;
    let err = huge.await.unwrap_err();
    assert!(
        matches!(err, ClientError::RequestTooLarge { .. }),
        "{err:?}"
    );
    assert!(!err.is_retriable());
    let (before, after) = (before.await.unwrap(), after.await.unwrap());
    assert!(
        after.offset > before.offset,
        "the rest went through, in order"
    );
    assert_eq!(c.connections_opened(), 1, "the connection stayed up");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_topic_starts_on_partition_0_then_spreads_once_created() {
    let dir = tempfile::tempdir().unwrap();
    let server = NatsServer::single(dir.path());
    let c = nats_client(
        &format!("{}?partitions=3", server.url()),
        ClientOptions::default(),
    )
    .await;
    let producer = Producer::new(
        &c,
        ProducerOptions {
            batch_records: 10,
            ..written()
        },
    );
    let first = producer.send("fresh", b"", b"x").await.unwrap();
    assert_eq!(first.partition(), 0);
    producer.flush().await;
    assert_eq!(
        first.await.unwrap(),
        Delivered {
            partition: 0,
            offset: NatsOffset::record(1, 1, 0)
        }
    );
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
    let d = producer
        .send("fresh", b"conversation-7", b"k")
        .await
        .unwrap();
    assert_eq!(d.partition(), partition_for_key(b"conversation-7", 3));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_restarting_under_a_running_producer_loses_nothing_acknowledged() {
    const RECORDS: u32 = 30_000;
    let dir = tempfile::tempdir().unwrap();
    let mut server = NatsServer::single(dir.path());
    let c = nats_client(
        &server.url(),
        ClientOptions {
            request_timeout: Duration::from_secs(3),
            ..ClientOptions::default()
        },
    )
    .await;
    c.create_topic("restart", settings(3)).await.unwrap();
    let producer = Producer::new(
        &c,
        ProducerOptions {
            max_in_flight: 4,
            ..written()
        },
    );
    let (third_rx, sending) = send_in_background(&producer, "restart", RECORDS);
    third_rx.await.unwrap().await.unwrap();
    assert!(
        producer.buffered_bytes() > 0,
        "the stream ended before the stop"
    );
    server.kill();
    tokio::time::sleep(Duration::from_millis(300)).await;
    server.restart();
    let ds = sending.await.unwrap();
    producer.flush().await;
    let mut acked: HashMap<u32, Delivered> = HashMap::new();
    let mut failed = 0;
    for (seq, d) in ds {
        match d.await {
            Ok(at) => {
                acked.insert(seq, at);
            }
            Err(e) => {
                assert!(e.is_retriable(), "record {seq}: {e:#}");
                failed += 1;
            }
        }
    }
    eprintln!(
        "{} acknowledged, {failed} failed across the restart; {} connections",
        acked.len(),
        c.connections_opened()
    );
    assert!(c.connections_opened() >= 2, "the client reconnected");
    assert!(
        acked.len() > RECORDS as usize / 2,
        "the producer carried on"
    );
    // Every acknowledged record is where its delivery says, exactly once
    // (a failed batch may have been stored: at most once too).
    let mut consumer = Consumer::new(
        &c,
        "restart",
        ConsumerOptions {
            start: StartFrom::Earliest,
            ..ConsumerOptions::default()
        },
    )
    .await
    .unwrap();
    let mut at: HashMap<(u32, u64), u32> = HashMap::new();
    let mut seen: HashMap<u32, usize> = HashMap::new();
    let mut missing: std::collections::HashSet<u32> = acked.keys().copied().collect();
    loop {
        let wait = if missing.is_empty() { 1 } else { 30 };
        let r = match tokio::time::timeout(Duration::from_secs(wait), consumer.next()).await {
            Ok(r) => r.unwrap(),
            Err(_) if missing.is_empty() => break,
            Err(_) => panic!("{} acknowledged records never arrived", missing.len()),
        };
        let seq = u32::from_be_bytes(r.value[..].try_into().unwrap());
        at.insert((r.partition, r.offset), seq);
        *seen.entry(seq).or_default() += 1;
        missing.remove(&seq);
    }
    for (seq, d) in &acked {
        assert_eq!(
            at.get(&(d.partition, d.offset)),
            Some(seq),
            "acknowledged {seq} at {d:?}"
        );
    }
    assert!(seen.values().all(|&n| n == 1), "nothing stored twice");
}
