//! Producer throughput, printed (not asserted: benchmarks are not timed
//! asserts). Run in release:
//!
//! ```text
//! cargo test --release -p hermit-client --test throughput -- --ignored --nocapture
//! ```
//! `HERMIT_BENCH_RECORDS` sets the record count (default 4,000,000),
//! `HERMIT_BENCH_TASKS` the number of tasks sharing the producer (default 1),
//! `HERMIT_BENCH_IN_FLIGHT` the producer's `max_in_flight`, and
//! `HERMIT_BENCH_SEPARATE` (set) gives each task its own producer.

mod support;

use std::time::Instant;

use hermit_broker::config::FsyncPolicy;
use hermit_client::{Ack, Producer, ProducerOptions, TopicSettings};
use support::*;

async fn run(fsync: FsyncPolicy, ack: Ack, label: &str) {
    let n: u64 = std::env::var("HERMIT_BENCH_RECORDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(4_000_000);
    let dir = tempfile::tempdir().unwrap();
    let broker = broker(dir.path(), |c| c.fsync = fsync).await;
    let client = client(broker.addr()).await;
    client
        .create_topic(
            "bench",
            TopicSettings {
                partitions: 4,
                cleanup: hermit_client::Cleanup::Delete,
                retention_ms: 0,
                retention_bytes: 0,
            },
        )
        .await
        .unwrap();
    let producer_options = ProducerOptions {
        ack,
        max_in_flight: std::env::var("HERMIT_BENCH_IN_FLIGHT")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(ProducerOptions::default().max_in_flight),
        ..ProducerOptions::default()
    };
    let producer = Producer::new(&client, producer_options.clone());
    let record = [b'x'; 27];
    // Warm up (topic metadata, connection).
    producer
        .send("bench", b"", &record)
        .await
        .unwrap()
        .await
        .unwrap();
    let tasks: u64 = std::env::var("HERMIT_BENCH_TASKS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let separate = std::env::var_os("HERMIT_BENCH_SEPARATE").is_some();
    let start = Instant::now();
    let mut handles = Vec::new();
    for _ in 0..tasks {
        let producer = if separate {
            Producer::new(&client, producer_options.clone())
        } else {
            producer.clone()
        };
        handles.push(tokio::spawn(async move {
            let mut last = None;
            for _ in 0..n / tasks {
                last = Some(producer.send("bench", b"", &record).await.unwrap());
            }
            producer.flush().await;
            last
        }));
    }
    let mut lasts = Vec::new();
    for h in handles {
        lasts.push(h.await.unwrap());
    }
    let enqueued = start.elapsed();
    producer.flush().await;
    let total = start.elapsed();
    for last in lasts.into_iter().flatten() {
        last.await.unwrap();
    }
    let rate = n as f64 / total.as_secs_f64();
    println!(
        "{label}: {n} records of 27 bytes, batches of 100: {:.2} M records/s ({:.1} MB/s of records); enqueue {:.2} M/s",
        rate / 1e6,
        rate * 27.0 / 1e6,
        n as f64 / enqueued.as_secs_f64() / 1e6,
    );
    producer.close().await;
    broker.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "throughput measurement; run in release with --ignored --nocapture"]
async fn producer_throughput() {
    run(FsyncPolicy::Never, Ack::Written, "fsync=never ack=written").await;
    run(
        FsyncPolicy::Always,
        Ack::Durable,
        "fsync=always ack=durable",
    )
    .await;
}
