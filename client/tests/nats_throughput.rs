//! Throughput over NATS JetStream, printed (not asserted: benchmarks are not
//! timed asserts), against a single `nats-server -js` started here. Run in
//! release:
//!
//! ```text
//! cargo test --release -p hermit-client --features nats --test nats_throughput -- --ignored --nocapture --test-threads 1
//! ```
//! - `nats_producer_throughput`: one producer, `HERMIT_BENCH_RECORDS`
//!   (default 2,000,000) 27-byte records in batches of 100.
//! - `nats_stress_shape`: the shape of `hermit bench stress`: 10 producers
//!   (each its own connection) × `HERMIT_BENCH_RECORDS` (default 100,000)
//!   27-byte records, batches of 100, linger 100 ms, 256 batches in flight,
//!   one consumer reading everything from the start while they run; every
//!   record is checked to arrive exactly once, in per-producer order.

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use hermit_client::{
    Ack, Cleanup, ClientOptions, Consumer, ConsumerOptions, Producer, ProducerOptions, StartFrom,
    TopicSettings,
};
use support::nats::*;

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn topic(partitions: u32) -> TopicSettings {
    TopicSettings {
        partitions,
        cleanup: Cleanup::Delete,
        retention_ms: 0,
        retention_bytes: 0,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "throughput measurement; run in release with --ignored --nocapture"]
async fn nats_producer_throughput() {
    let n = env("HERMIT_BENCH_RECORDS", 2_000_000);
    let dir = tempfile::tempdir().unwrap();
    let server = NatsServer::single(dir.path());
    let client = nats_client(&server.url(), ClientOptions::default()).await;
    client.create_topic("bench", topic(4)).await.unwrap();
    let producer = Producer::new(&client, ProducerOptions::default());
    let record = [b'x'; 27];
    producer
        .send("bench", b"", &record)
        .await
        .unwrap()
        .await
        .unwrap();
    let start = Instant::now();
    let mut last = None;
    for _ in 0..n {
        last = Some(producer.send("bench", b"", &record).await.unwrap());
    }
    let enqueued = start.elapsed();
    producer.flush().await;
    let total = start.elapsed();
    last.unwrap().await.unwrap();
    let rate = n as f64 / total.as_secs_f64();
    println!(
        "nats single server, 1 producer: {n} records of 27 bytes, batches of 100: {:.2} M records/s ({:.1} MB/s of records); enqueue {:.2} M/s",
        rate / 1e6,
        rate * 27.0 / 1e6,
        n as f64 / enqueued.as_secs_f64() / 1e6,
    );
    producer.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "throughput measurement; run in release with --ignored --nocapture"]
async fn nats_stress_shape() {
    const PRODUCERS: u8 = 10;
    let per = env("HERMIT_BENCH_RECORDS", 100_000) as u32;
    let partitions = env("HERMIT_BENCH_PARTITIONS", 1) as u32;
    let dir = tempfile::tempdir().unwrap();
    let server = NatsServer::single(dir.path());
    let url = server.url();
    let admin = nats_client(&url, ClientOptions::default()).await;
    admin
        .create_topic("stress", topic(partitions))
        .await
        .unwrap();
    let total = u64::from(PRODUCERS) * u64::from(per);
    let base = Instant::now();

    // The consumer starts first and reads from the beginning.
    let consumer = {
        let c = nats_client(&url, ClientOptions::default()).await;
        let mut k = Consumer::new(
            &c,
            "stress",
            ConsumerOptions {
                start: StartFrom::Earliest,
                max_bytes: 4 << 20,
                max_wait: Duration::from_millis(100),
                auto_commit: None,
                ..ConsumerOptions::default()
            },
        )
        .await
        .unwrap();
        tokio::spawn(async move {
            let mut next_seq = vec![0u32; PRODUCERS as usize];
            let mut n = 0u64;
            while n < total {
                let r = tokio::time::timeout(Duration::from_secs(60), k.next())
                    .await
                    .unwrap_or_else(|_| panic!("stalled after {n} of {total} records"))
                    .unwrap();
                let pid = r.value[0] as usize;
                let seq = u32::from_be_bytes(r.value[1..5].try_into().unwrap());
                if partitions == 1 {
                    assert_eq!(
                        seq, next_seq[pid],
                        "producer {pid}: out of order or repeated"
                    );
                }
                next_seq[pid] = next_seq[pid].max(seq + 1);
                n += 1;
            }
            let elapsed = base.elapsed();
            // Nothing more than was sent.
            assert!(
                tokio::time::timeout(Duration::from_millis(500), k.next())
                    .await
                    .is_err(),
                "more records than were sent"
            );
            elapsed
        })
    };

    let start = Instant::now();
    let url = Arc::new(url);
    let mut producers = Vec::new();
    for pid in 0..PRODUCERS {
        let url = url.clone();
        producers.push(tokio::spawn(async move {
            let c = nats_client(&url, ClientOptions::default()).await;
            let producer = Producer::new(
                &c,
                ProducerOptions {
                    ack: Ack::Durable,
                    linger: Duration::from_millis(100),
                    batch_records: 100,
                    max_in_flight: 256,
                    ..ProducerOptions::default()
                },
            );
            let mut record = [b'.'; 27];
            record[0] = pid;
            let mut last = None;
            for seq in 0..per {
                record[1..5].copy_from_slice(&seq.to_be_bytes());
                last = Some(producer.send("stress", b"", &record).await.unwrap());
            }
            producer.flush().await;
            last.unwrap().await.unwrap();
            let done = start.elapsed();
            producer.close().await;
            done
        }));
    }
    let mut producer_time = Duration::ZERO;
    for p in producers {
        producer_time = producer_time.max(p.await.unwrap());
    }
    let consumed = consumer.await.unwrap();
    println!(
        "nats single server, stress shape: {PRODUCERS} producers x {per} records of 27 bytes, batches of 100, {partitions} partition(s): \
         producers {:.2} s ({:.2} M records/s), consumer done after {:.2} s ({:.2} M records/s)",
        producer_time.as_secs_f64(),
        total as f64 / producer_time.as_secs_f64() / 1e6,
        consumed.as_secs_f64(),
        total as f64 / consumed.as_secs_f64() / 1e6,
    );
}
