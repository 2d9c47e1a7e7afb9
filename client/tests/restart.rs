//! A broker restarting under a running producer: graceful shutdown and crash,
//! then a new broker on the same data directory and the same address.
//! Nothing acknowledged is lost, and the producer carries on by itself.

mod support;

use std::collections::HashMap;
use std::time::Duration;

use hermit_client::{
    Cleanup, Consumer, ConsumerOptions, Delivered, Producer, ProducerOptions, StartFrom,
    TopicSettings,
};
use support::*;

const RECORDS: u32 = 30_000;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Stop {
    Graceful,
    Crash,
}

async fn run(stop: Stop) {
    let dir = tempfile::tempdir().unwrap();
    let addr = free_addr();
    let first = broker_at(dir.path(), addr, |_| {}).await;
    let c = client(addr).await;
    c.create_topic(
        "restart",
        TopicSettings {
            partitions: 3,
            cleanup: Cleanup::Delete,
            retention_ms: 0,
            retention_bytes: 0,
        },
    )
    .await
    .unwrap();
    // Few batches in flight, so that at the stop some are in flight and
    // many more are queued behind them: a resend must go before the queue.
    let producer = Producer::new(
        &c,
        ProducerOptions {
            max_in_flight: 4,
            ..ProducerOptions::default()
        },
    );
    let (third_rx, sending) = send_in_background(&producer, "restart", RECORDS);
    // Once a third is acknowledged, stop the broker under the stream.
    let third = third_rx.await.unwrap().await.unwrap();
    assert!(
        producer.buffered_bytes() > 0,
        "the stream ended before the stop"
    );
    match stop {
        Stop::Graceful => first.shutdown().await.unwrap(),
        Stop::Crash => first.crash().await,
    }
    // Same directory, same address: the producer's client finds it again.
    let second = broker_at(dir.path(), addr, |_| {}).await;
    let ds = sending.await.unwrap();
    producer.flush().await;
    let mut delivered: Vec<(u32, Delivered)> = vec![(RECORDS / 3, third)];
    for (seq, d) in ds {
        match d.await {
            Ok(at) => delivered.push((seq, at)),
            Err(e) => panic!("record {seq} was not delivered after the restart: {e}"),
        }
    }
    assert!(c.connections_opened() >= 2, "the client reconnected");

    // Read everything back from the restarted broker.
    let meta = c.metadata(Some("restart")).await.unwrap();
    let total: u64 = meta[0].partitions.iter().map(|p| p.high_watermark).sum();
    assert!(
        total >= u64::from(RECORDS),
        "{total} records stored, {RECORDS} acknowledged"
    );
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
    let mut stored: HashMap<(u32, u64), u32> = HashMap::new();
    let mut copies = vec![0u32; RECORDS as usize];
    for _ in 0..total {
        let r = tokio::time::timeout(Duration::from_secs(30), consumer.next())
            .await
            .expect("stored records stopped arriving")
            .unwrap();
        let seq = u32::from_be_bytes(r.value[..].try_into().unwrap());
        stored.insert((r.partition, r.offset), seq);
        copies[seq as usize] += 1;
    }
    // Every acknowledged record is where its delivery said.
    assert_eq!(delivered.len(), RECORDS as usize);
    for (seq, at) in &delivered {
        assert_eq!(
            stored.get(&(at.partition, at.offset)),
            Some(seq),
            "record {seq} at {at:?}"
        );
    }
    assert!(copies.iter().all(|&n| n >= 1));
    if stop == Stop::Graceful {
        // A graceful broker answers everything it appended before closing,
        // and appends nothing it will not answer: no duplicates.
        assert!(
            copies.iter().all(|&n| n == 1),
            "duplicates after a graceful restart"
        );
    }
    // Per partition, the first copies keep send order (a resend may repeat
    // a tail, never put a record before one sent earlier).
    let mut by_partition: HashMap<u32, Vec<(u64, u32)>> = HashMap::new();
    for ((p, o), seq) in &stored {
        by_partition.entry(*p).or_default().push((*o, *seq));
    }
    for (p, mut recs) in by_partition {
        recs.sort_unstable();
        let mut max = None;
        let mut first_seen = std::collections::HashSet::new();
        for (o, seq) in recs {
            if !first_seen.insert(seq) {
                continue; // a duplicate from a resend
            }
            if let Some(m) = max {
                assert!(seq > m, "partition {p} offset {o}: {seq} stored after {m}");
            }
            max = Some(seq);
        }
    }
    producer.close().await;
    second.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn graceful_restart_mid_stream_loses_nothing_and_the_producer_recovers() {
    run(Stop::Graceful).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crash_mid_stream_loses_nothing_acknowledged_and_the_producer_recovers() {
    run(Stop::Crash).await;
}
