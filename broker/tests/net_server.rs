//! The broker over real sockets: pipelining, ordering, long polls, group
//! commit, whole-batch fetches through sendfile.

mod netcommon;

use std::collections::HashSet;
use std::sync::atomic::Ordering;
use std::time::Duration;

use hermit_broker::config::FsyncPolicy;
use hermit_protocol::record::BatchIter;
use hermit_protocol::{Ack, Status};
use netcommon::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pipelined_produce_and_fetch_of_100k_records_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let broker = start(dir.path(), |_| {}).await;
    let mut raw = Raw::connect(broker.addr()).await;
    // 1,000 batches of 100 records, all sent before reading any ack.
    let batches: Vec<Vec<u8>> = (0..1000).map(|i| batch(100, 27, i)).collect();
    let mut corrs = Vec::new();
    for b in &batches {
        corrs.push(raw.send(&produce_req("pipe", 0, b, Ack::Durable)).await);
    }
    let mut base_by_corr = std::collections::HashMap::new();
    for _ in 0..batches.len() {
        let r = raw.recv().await.expect("ack");
        assert_eq!(r.status, Status::Ok, "{}", r.message);
        base_by_corr.insert(r.corr, r.base_offset.unwrap());
    }
    // Appended in the order sent: batch i got offsets 100*i .. 100*i+100.
    for (i, corr) in corrs.iter().enumerate() {
        assert_eq!(base_by_corr[corr], 100 * i as u64);
    }
    // Pipelined fetches of everything.
    let all = read_all(&mut raw, "pipe", 0).await;
    assert_eq!(all.len(), 1000);
    for (i, (base, bytes)) in all.iter().enumerate() {
        assert_eq!(*base, 100 * i as u64);
        let mut stored = bytes.clone();
        stored[1..9].copy_from_slice(&[0; 8]);
        assert_eq!(stored, batches[i], "batch {i} differs");
    }
    broker.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_poll_wakes_on_new_data() {
    let dir = tempfile::tempdir().unwrap();
    let broker = start(dir.path(), |_| {}).await;
    let mut consumer = Raw::connect(broker.addr()).await;
    let mut producer = Raw::connect(broker.addr()).await;
    // Create the topic, then poll at its end with a long wait.
    assert_eq!(
        producer
            .produce("lp", &batch(1, 10, 0), Ack::Durable)
            .await
            .status,
        Status::Ok
    );
    let corr = consumer.send(&fetch_req("lp", 0, 1, 1 << 20, 30_000)).await;
    // The poll is parked: a Ping on the same connection is answered first.
    let ping = consumer.call(&hermit_protocol::Request::Ping).await;
    assert_ne!(ping.corr, corr);
    let started = std::time::Instant::now();
    assert_eq!(
        producer
            .produce("lp", &batch(3, 10, 1), Ack::Durable)
            .await
            .status,
        Status::Ok
    );
    let r = consumer.recv_within(Duration::from_secs(10)).await.unwrap();
    assert_eq!(r.corr, corr);
    assert_eq!(r.batch_bases(), [1]);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "woken by the data, not by the deadline"
    );
    broker.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_parked_fetch_does_not_hold_back_produce_acks_on_the_same_connection() {
    let dir = tempfile::tempdir().unwrap();
    let broker = start(dir.path(), |_| {}).await;
    let mut raw = Raw::connect(broker.addr()).await;
    assert_eq!(raw.call(&create_req("two", 2)).await.status, Status::Ok);
    let fetch_corr = raw.send(&fetch_req("two", 1, 0, 1024, 30_000)).await;
    let b = batch(5, 20, 7);
    let produce_corr = raw.send(&produce_req("two", 0, &b, Ack::Durable)).await;
    let r = raw.recv_within(Duration::from_secs(10)).await.unwrap();
    assert_eq!(r.corr, produce_corr, "the ack overtakes the parked fetch");
    assert_eq!(r.base_offset, Some(0));
    // The fetch is still parked; data on its partition releases it.
    let mut other = Raw::connect(broker.addr()).await;
    assert_eq!(
        other
            .call(&produce_req("two", 1, &b, Ack::Durable))
            .await
            .status,
        Status::Ok
    );
    let r = raw.recv_within(Duration::from_secs(10)).await.unwrap();
    assert_eq!(r.corr, fetch_corr);
    assert_eq!(r.batch_bases(), [0]);
    broker.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_poll_returns_empty_at_its_deadline() {
    let dir = tempfile::tempdir().unwrap();
    let broker = start(dir.path(), |_| {}).await;
    let mut raw = Raw::connect(broker.addr()).await;
    let started = std::time::Instant::now();
    let r = raw.fetch("quiet", 0, 1024, 300).await;
    assert!(started.elapsed() >= Duration::from_millis(300));
    let (hw, log_start, bytes) = r.fetch.unwrap();
    assert_eq!((hw, log_start, bytes.len()), (0, 0, 0));
    broker.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn durable_acks_come_after_fsync_and_concurrent_producers_share_fsyncs() {
    let dir = tempfile::tempdir().unwrap();
    let broker = start(dir.path(), |c| c.fsync = FsyncPolicy::Always).await;
    let addr = broker.addr();
    let log = broker.log().clone();
    // Create the topic first so every producer appends to the same partition.
    let mut first = Raw::connect(addr).await;
    assert_eq!(
        first
            .produce("gc", &batch(1, 27, 0), Ack::Durable)
            .await
            .status,
        Status::Ok
    );
    let before = log.sync_stats();
    let mut tasks = Vec::new();
    for p in 0..10u64 {
        let log = log.clone();
        tasks.push(tokio::spawn(async move {
            let mut raw = Raw::connect(addr).await;
            let batches: Vec<Vec<u8>> = (0..100).map(|i| batch(100, 27, p * 1000 + i)).collect();
            for b in &batches {
                raw.send(&produce_req("gc", 0, b, Ack::Durable)).await;
            }
            let part = log.partition("gc", 0, false).unwrap();
            let mut acked = Vec::new();
            for _ in 0..batches.len() {
                let r = raw.recv().await.unwrap();
                assert_eq!(r.status, Status::Ok);
                let base = r.base_offset.unwrap();
                // At ack time the batch is on stable storage.
                assert!(part.synced_offset() >= base + 100, "acked before fsync");
                acked.push(base);
            }
            acked
        }));
    }
    let mut all = HashSet::new();
    for t in tasks {
        for base in t.await.unwrap() {
            assert!(all.insert(base), "offset {base} given twice");
        }
    }
    assert_eq!(all.len(), 1000);
    let fsyncs = log.sync_stats().fsyncs - before.fsyncs;
    assert!(fsyncs >= 1);
    assert!(
        fsyncs < 1000,
        "group commit: {fsyncs} fsyncs for 1000 durable batches"
    );
    drop(log);
    broker.crash().await;
    // Everything acknowledged is there after an immediate restart.
    let broker = start(dir.path(), |_| {}).await;
    let mut raw = Raw::connect(broker.addr()).await;
    let stored: HashSet<u64> = read_all(&mut raw, "gc", 0)
        .await
        .into_iter()
        .map(|(b, _)| b)
        .collect();
    assert!(all.is_subset(&stored));
    broker.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn consumers_never_see_unsynced_records_under_always() {
    let dir = tempfile::tempdir().unwrap();
    let broker = start(dir.path(), |c| c.fsync = FsyncPolicy::Always).await;
    let mut raw = Raw::connect(broker.addr()).await;
    let part = {
        assert_eq!(
            raw.produce("vis", &batch(1, 8, 0), Ack::Durable)
                .await
                .status,
            Status::Ok
        );
        broker.log().partition("vis", 0, false).unwrap()
    };
    for i in 1..200u64 {
        let b = batch(10, 8, i);
        raw.send(&produce_req("vis", 0, &b, Ack::Written)).await;
        let fetch = raw.send(&fetch_req("vis", 0, 0, 1 << 20, 0)).await;
        for _ in 0..2 {
            let r = raw.recv().await.unwrap();
            assert_eq!(r.status, Status::Ok);
            if r.corr == fetch {
                // Whatever a fetch returns is below the synced offset at that moment.
                let (hw, _, _) = r.fetch.unwrap();
                assert!(
                    hw <= part.synced_offset(),
                    "high watermark {hw} ahead of fsync"
                );
            }
        }
    }
    broker.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fetch_returns_whole_batches_within_max_bytes_and_at_least_one() {
    let dir = tempfile::tempdir().unwrap();
    let broker = start(dir.path(), |c| c.index_interval_bytes = 0).await;
    let mut raw = Raw::connect(broker.addr()).await;
    let b = batch(4, 100, 1); // 33 + 4*(4+100) = 449 bytes
    let len = b.len() as u32;
    for i in 0..20 {
        assert_eq!(
            raw.produce("wb", &batch(4, 100, i), Ack::Durable)
                .await
                .status,
            Status::Ok
        );
    }
    for (max_bytes, want) in [
        (1, 1),
        (len, 1),
        (len * 2 + len / 2, 2),
        (len * 5, 5),
        (u32::MAX, 20),
    ] {
        let r = raw.fetch("wb", 0, max_bytes, 0).await;
        let bases = r.batch_bases();
        assert_eq!(bases.len(), want, "max_bytes {max_bytes}");
        assert_eq!(bases, (0..want as u64).map(|i| i * 4).collect::<Vec<_>>());
    }
    // An offset inside a batch returns that batch first.
    let r = raw.fetch("wb", 6, 1, 0).await;
    assert_eq!(r.batch_bases(), [4]);
    broker.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fetch_sends_records_with_sendfile() {
    let dir = tempfile::tempdir().unwrap();
    let broker = start(dir.path(), |_| {}).await;
    let mut raw = Raw::connect(broker.addr()).await;
    for i in 0..50 {
        assert_eq!(
            raw.produce("sf", &batch(100, 27, i), Ack::Durable)
                .await
                .status,
            Status::Ok
        );
    }
    let before = broker.metrics().sendfile_bytes.load(Ordering::Relaxed);
    let mut received = 0u64;
    let mut offset = 0;
    while offset < 5000 {
        let r = raw.fetch("sf", offset, 16 * 1024, 0).await;
        let (_, _, bytes) = r.fetch.unwrap();
        received += bytes.len() as u64;
        for b in BatchIter::new(&bytes) {
            offset = b.unwrap().header.next_offset().unwrap();
        }
    }
    let sent = broker.metrics().sendfile_bytes.load(Ordering::Relaxed) - before;
    assert!(received > 0);
    assert_eq!(
        sent, received,
        "every record byte of every fetch went through sendfile"
    );
    assert_eq!(
        broker.metrics().copied_bytes.load(Ordering::Relaxed),
        0,
        "a plain TCP socket never takes the copy path"
    );
    broker.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn out_of_range_fetch_reports_both_bounds() {
    let dir = tempfile::tempdir().unwrap();
    let broker = start(dir.path(), |_| {}).await;
    let mut raw = Raw::connect(broker.addr()).await;
    assert_eq!(
        raw.produce("oor", &batch(10, 8, 0), Ack::Durable)
            .await
            .status,
        Status::Ok
    );
    let r = raw.fetch("oor", 11, 1024, 0).await;
    assert_eq!(r.status, Status::OffsetOutOfRange);
    assert_eq!(r.bounds, Some((0, 10)));
    // The connection stays usable after an application-level error.
    assert_eq!(raw.fetch("oor", 10, 1024, 0).await.status, Status::Ok);
    broker.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commits_round_trip_and_may_not_pass_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let broker = start(dir.path(), |_| {}).await;
    let mut raw = Raw::connect(broker.addr()).await;
    assert_eq!(
        raw.produce("c", &batch(10, 8, 0), Ack::Durable)
            .await
            .status,
        Status::Ok
    );
    assert_eq!(
        raw.call(&committed_req("g", "c")).await.committed,
        Some(None)
    );
    assert_eq!(raw.call(&commit_req("g", "c", 7)).await.status, Status::Ok);
    assert_eq!(
        raw.call(&committed_req("g", "c")).await.committed,
        Some(Some(7))
    );
    let r = raw.call(&commit_req("g", "c", 11)).await;
    assert_eq!(r.status, Status::OffsetAheadOfLog, "{}", r.message);
    broker.shutdown().await.unwrap();
    let broker = start(dir.path(), |_| {}).await;
    let mut raw = Raw::connect(broker.addr()).await;
    assert_eq!(
        raw.call(&committed_req("g", "c")).await.committed,
        Some(Some(7))
    );
    broker.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_topics_are_refused_when_auto_create_is_off() {
    let dir = tempfile::tempdir().unwrap();
    let broker = start(dir.path(), |c| c.auto_create = false).await;
    let mut raw = Raw::connect(broker.addr()).await;
    assert_eq!(
        raw.produce("nope", &batch(1, 8, 0), Ack::Durable)
            .await
            .status,
        Status::UnknownTopic
    );
    assert_eq!(
        raw.fetch("nope", 0, 10, 0).await.status,
        Status::UnknownTopic
    );
    assert_eq!(
        raw.call(&commit_req("g", "nope", 0)).await.status,
        Status::UnknownTopic
    );
    assert!(
        std::fs::read_dir(dir.path().join("partitions"))
            .unwrap()
            .all(|e| !e
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with("nope@")),
        "nothing on disk for a topic that was refused"
    );
    assert!(
        !std::fs::read(dir.path().join("catalog"))
            .unwrap()
            .windows(4)
            .any(|w| w == b"nope"),
        "no catalog entry either"
    );
    assert_eq!(raw.call(&create_req("nope", 1)).await.status, Status::Ok);
    assert_eq!(
        raw.produce("nope", &batch(1, 8, 0), Ack::Durable)
            .await
            .status,
        Status::Ok
    );
    assert_eq!(
        raw.call(&create_req("nope", 1)).await.status,
        Status::TopicExists
    );
    broker.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn durable_acks_are_refused_by_a_broker_that_never_fsyncs() {
    let dir = tempfile::tempdir().unwrap();
    let broker = start(dir.path(), |c| c.fsync = FsyncPolicy::Never).await;
    let mut raw = Raw::connect(broker.addr()).await;
    let r = raw.produce("nd", &batch(1, 8, 0), Ack::Durable).await;
    assert_eq!(r.status, Status::NotDurable);
    assert_eq!(
        raw.produce("nd", &batch(1, 8, 1), Ack::Written)
            .await
            .base_offset,
        Some(0)
    );
    assert_eq!(
        read_all(&mut raw, "nd", 0).await.len(),
        1,
        "the refused batch was not appended"
    );
    broker.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn graceful_shutdown_under_load_loses_no_acknowledged_record() {
    let dir = tempfile::tempdir().unwrap();
    let broker = start(dir.path(), |_| {}).await;
    let addr = broker.addr();
    let mut tasks = Vec::new();
    for p in 0..4u64 {
        tasks.push(tokio::spawn(async move {
            let mut raw = Raw::connect(addr).await;
            let mut acked = Vec::new();
            let mut i = 0u64;
            loop {
                let b = batch(10, 27, p * 1_000_000 + i);
                i += 1;
                let corr = raw.send(&produce_req("sd", 0, &b, Ack::Durable)).await;
                match raw.recv().await {
                    Some(r) if r.corr == corr && r.status == Status::Ok => {
                        acked.push((r.base_offset.unwrap(), b))
                    }
                    // The shutdown notice (corr 0) or the close.
                    _ => return acked,
                }
            }
        }));
    }
    // Let the load run until a good number of batches are acknowledged.
    let log = broker.log().clone();
    let mut generation = log.sync_generation();
    while log
        .partition("sd", 0, false)
        .map(|p| p.synced_offset())
        .unwrap_or(0)
        < 2000
    {
        generation.changed().await.unwrap();
    }
    drop(log);
    broker.shutdown().await.unwrap();
    let mut acked = Vec::new();
    for t in tasks {
        acked.extend(t.await.unwrap());
    }
    assert!(acked.len() >= 200);
    let broker = start(dir.path(), |_| {}).await;
    let mut raw = Raw::connect(broker.addr()).await;
    let stored: std::collections::HashMap<u64, Vec<u8>> =
        read_all(&mut raw, "sd", 0).await.into_iter().collect();
    for (base, b) in acked {
        let mut got = stored
            .get(&base)
            .expect("acknowledged batch missing")
            .clone();
        got[1..9].copy_from_slice(&[0; 8]);
        assert_eq!(got, b);
    }
    broker.shutdown().await.unwrap();
}
