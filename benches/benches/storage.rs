//! Storage engine micro-benchmarks: append throughput and offset lookup.
//!
//! `cargo bench -p hermit-benches --bench storage`
//!
//! - `append/<fsync>/<batch>`: one partition, one writer. Batches of 100
//!   records of 27 bytes (3,133 bytes) and of 64 KiB. `never` only writes;
//!   `always` appends and calls `Partition::sync` after every batch (one fsync
//!   per batch, the worst case of durable acks).
//! - `group_commit/<threads>/<batch>`: a `Log` with `fsync = always` and its
//!   group-commit thread; several writers each append and wait until their
//!   batch is durable (synced offset past it, awaited on the sync
//!   generation), so one fsync covers every batch written while the previous
//!   one ran. This is what a durable produce ack costs under load.
//! - `read/random_offset`: `Partition::read` of a random offset in a
//!   multi-segment log reopened from disk (mmap'd sparse indexes, one entry
//!   per 4 KiB): index binary search plus a header walk, no record bytes copied.
//!
//! Logs live in the system temporary directory (a real file system, so fsync
//! costs what it costs there); each sample starts from a fresh, empty directory.
//! Throughput is reported both in bytes and in batches per second.

use std::hint::black_box;
use std::path::Path;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use hermit_broker::config::{FsyncPolicy, Limit, VerifyRolled};
use hermit_broker::log::{Log, LogOptions, Partition, ReadOutcome, TopicPolicy};
use hermit_protocol::Cleanup;
use hermit_protocol::frame::TopicSettings;
use hermit_protocol::record::BatchBuilder;

/// 100 records of 27 bytes: 33 + 100 × (4 + 27) = 3,133 bytes.
fn small_batch() -> Vec<u8> {
    let mut b = BatchBuilder::new(b"");
    for i in 0..100u8 {
        b.push(&[i; 27]);
    }
    b.finish(1).expect("a valid batch")
}

/// One record filling a 64 KiB batch.
fn large_batch() -> Vec<u8> {
    let mut b = BatchBuilder::new(b"");
    b.push(&vec![7u8; 64 * 1024 - 33 - 4]);
    let v = b.finish(1).expect("a valid batch");
    assert_eq!(v.len(), 64 * 1024);
    v
}

fn batches() -> [(&'static str, Vec<u8>); 2] {
    [("100x27B", small_batch()), ("64KiB", large_batch())]
}

fn options(fsync: FsyncPolicy) -> LogOptions {
    LogOptions {
        fsync,
        retention_ms: Limit::Unlimited,
        ..LogOptions::default()
    }
}

fn throughput(batch: &[u8]) -> Throughput {
    Throughput::ElementsAndBytes {
        elements: 1,
        bytes: batch.len() as u64,
    }
}

/// A partition without a group-commit thread: the caller syncs.
fn bare_partition(dir: &Path, fsync: FsyncPolicy) -> Arc<Partition> {
    let policy = TopicPolicy {
        cleanup: Cleanup::Delete,
        retention_ms: u64::MAX,
        retention_bytes: u64::MAX,
        delete_retention_ms: 0,
    };
    Partition::open(
        dir.join("p"),
        "bench",
        0,
        Arc::new(options(fsync)),
        policy,
        None,
    )
    .expect("open partition")
}

fn append(c: &mut Criterion) {
    let mut group = c.benchmark_group("append");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    for (fsync, name) in [
        (FsyncPolicy::Never, "never"),
        (FsyncPolicy::Always, "always"),
    ] {
        for (size, batch) in batches() {
            group.throughput(throughput(&batch));
            group.bench_with_input(BenchmarkId::new(name, size), &batch, |b, batch| {
                b.iter_custom(|iters| {
                    let dir = tempfile::tempdir().expect("temp dir");
                    let p = bare_partition(dir.path(), fsync);
                    let start = Instant::now();
                    for _ in 0..iters {
                        black_box(p.append(batch).expect("append"));
                        if fsync == FsyncPolicy::Always {
                            p.sync().expect("fsync");
                        }
                    }
                    start.elapsed()
                })
            });
        }
    }
    group.finish();
}

fn group_commit(c: &mut Criterion) {
    let mut group = c.benchmark_group("group_commit");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    for threads in [4usize, 16] {
        for (size, batch) in batches() {
            group.throughput(throughput(&batch));
            let id = BenchmarkId::new(format!("{threads}_writers"), size);
            group.bench_with_input(id, &batch, |b, batch| {
                b.iter_custom(|iters| durable_appends(batch, threads, iters))
            });
        }
    }
    group.finish();
}

/// `iters` durable appends spread over `threads` writers; the time until the
/// last is durable.
fn durable_appends(batch: &[u8], threads: usize, iters: u64) -> Duration {
    let dir = tempfile::tempdir().expect("temp dir");
    let log = Log::open(dir.path(), options(FsyncPolicy::Always)).expect("open log");
    log.create_topic(
        "bench",
        TopicSettings {
            partitions: 1,
            cleanup: Cleanup::Delete,
            retention_ms: 0,
            retention_bytes: 0,
        },
    )
    .expect("create topic");
    let p = log.partition("bench", 0, false).expect("partition");
    let per_thread = iters.div_ceil(threads as u64);
    let barrier = Barrier::new(threads + 1);
    let elapsed = std::thread::scope(|s| {
        for _ in 0..threads {
            let (log, p, barrier) = (&log, &p, &barrier);
            s.spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .build()
                    .expect("runtime");
                let mut generation = log.sync_generation();
                barrier.wait();
                for _ in 0..per_thread {
                    let a = p.append(batch).expect("append");
                    generation.borrow_and_update();
                    while p.synced_offset() < a.next_offset {
                        rt.block_on(generation.changed())
                            .expect("sync thread alive");
                    }
                }
                barrier.wait();
            });
        }
        barrier.wait();
        let start = Instant::now();
        barrier.wait();
        start.elapsed()
    });
    log.close().expect("close");
    // Report per batch: scale to exactly `iters` batches.
    elapsed.mul_f64(iters as f64 / (per_thread * threads as u64) as f64)
}

fn read(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    let opts = LogOptions {
        segment_bytes: 8 << 20,
        index_interval_bytes: 4096,
        verify_rolled: VerifyRolled::Startup,
        ..options(FsyncPolicy::Never)
    };
    let batch = small_batch();
    {
        let log = Log::open(dir.path(), opts.clone()).expect("open log");
        log.create_topic(
            "bench",
            TopicSettings {
                partitions: 1,
                cleanup: Cleanup::Delete,
                retention_ms: 0,
                retention_bytes: 0,
            },
        )
        .expect("create topic");
        let p = log.partition("bench", 0, false).expect("partition");
        // 64 MiB: 8 segments, ~21,000 batches, ~2.1 million offsets.
        for _ in 0..(64 << 20) / batch.len() {
            p.append(&batch).expect("append");
        }
        log.close().expect("close");
    }
    let log = Log::open(dir.path(), opts).expect("reopen log");
    let p = log.partition("bench", 0, false).expect("partition");
    assert!(p.segment_count() >= 8);
    let (start, end) = p.bounds();
    let mut scratch = Vec::new();
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let mut group = c.benchmark_group("read");
    group.throughput(Throughput::Elements(1));
    group.bench_function("random_offset", |b| {
        b.iter(|| {
            // xorshift64: cheap, and no extra dependency.
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let offset = start + rng % (end - start);
            match p.read(offset, 64 * 1024, &mut scratch).expect("read") {
                ReadOutcome::Data { range, .. } => black_box(range.position),
                other => panic!("expected data at {offset}, got {other:?}"),
            }
        })
    });
    group.finish();
    log.close().expect("close");
}

criterion_group!(benches, append, group_commit, read);
criterion_main!(benches);
