//! Messages per second through one MLS conversation, end to end (issue
//! 35): Alice's `Conversation::send_text` against Bob's
//! `Conversation::receive` + `ack`, two devices of two accounts on an
//! in-process broker (`EmbeddedBroker`, `fsync = always`) over loopback TCP.
//!
//! ```sh
//! cargo bench -p hermit-benches --bench mls_conversation -- \
//!     [--messages 2000] [--runs 5] [--size 27] \
//!     [--state-dir DIR] [--broker-dir DIR] [--sender-reads K]
//! ```
//!
//! - `--state-dir`, `--broker-dir`: where the devices' state directories and
//!   the broker's data directory are made (a fresh temporary directory in
//!   each, per run; default: the system temp dir). Point one at a tmpfs
//!   (`/dev/shm`) to take its fsyncs out: the SDK sends with durable acks,
//!   which a broker with `fsync = never` refuses, so "the broker's fsync
//!   off" is its data on tmpfs, where an fsync returns at once.
//! - `--sender-reads K`: Alice also reads the topic (catch up, receive,
//!   ack) after every K sends, as a member that shows its own messages
//!   does; without it she never reads, and her outbox keeps every message
//!   she sent (it is emptied when she reads them back).
//!
//! Each run: a fresh broker and devices; Alice creates the conversation and
//! invites Bob, who joins; 10 messages go through untimed; then Alice sends
//! `--messages` texts of `--size` bytes as fast as `send_text` returns (one
//! at a time: each is sealed, written with the group's state — whole file,
//! fsync, rename, fsync of the directory — then produced with a durable
//! ack) while Bob receives and acknowledges them (each fetch's records
//! processed, then one state write; each `ack` one more). Printed per run:
//! messages/s until Bob has them all, Alice's send rate alone, the CPU
//! time of the whole process (both devices and the broker) per message,
//! the sizes of both group files at the end, and — measured right after,
//! on the same file systems — the two waits of a send apart: one state write
//! (`StateDir::write`) of half Alice's final file size (her mean during
//! the run) and one durable produce of a 128-byte record alone (a fresh
//! topic, one at a time), each the median of 100.
//!
//! `cargo test` runs this binary without `--bench`: one run of 20 messages,
//! 3 timed state writes and produces, as a smoke test.

use hermit_benches::cpu::process_cpu;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use hermit_broker::embedded::EmbeddedBroker;
use hermit_client::crypto::Identity;
use hermit_client::local::StateDir;
use hermit_client::mls::{Conversation, Device, Event};
use hermit_client::{Ack, Cleanup, Client, ClientOptions, TopicSettings};
use hermit_protocol::BatchBuilder;
use hermit_protocol::record::now_ns;

/// About the size of an `MLSMessage` of a 27-byte text (what `produce_alone`
/// sends).
const MESSAGE_LEN: usize = 128;

struct Args {
    messages: usize,
    runs: usize,
    size: usize,
    state_dir: PathBuf,
    broker_dir: PathBuf,
    sender_reads: Option<usize>,
    /// How many state writes [`state_write`] times.
    writes: usize,
}

fn args() -> Args {
    let mut a = Args {
        messages: 2000,
        runs: 5,
        size: 27,
        state_dir: std::env::temp_dir(),
        broker_dir: std::env::temp_dir(),
        sender_reads: None,
        writes: 100,
    };
    let argv: Vec<String> = std::env::args().skip(1).collect();
    if !argv.iter().any(|x| x == "--bench") {
        // `cargo test --all-targets`: a smoke run, not a measurement.
        a.messages = 20;
        a.runs = 1;
        a.writes = 3;
        return a;
    }
    let mut it = argv.into_iter();
    while let Some(flag) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| panic!("{flag} needs a value"));
        match flag.as_str() {
            "--bench" => {}
            "--messages" => a.messages = value().parse().expect("--messages N"),
            "--runs" => a.runs = value().parse().expect("--runs N"),
            "--size" => a.size = value().parse().expect("--size BYTES"),
            "--state-dir" => a.state_dir = value().into(),
            "--broker-dir" => a.broker_dir = value().into(),
            "--sender-reads" => a.sender_reads = Some(value().parse().expect("--sender-reads K")),
            other => panic!("unknown argument {other}"),
        }
    }
    a
}

/// A device of its own account with a published device list and KeyPackages.
async fn device(addr: &str, root: &Path, name: &str) -> Device {
    let identity = Identity::generate().expect("key");
    let dir = Arc::new(StateDir::open(root.join(name)).expect("state dir"));
    let options = ClientOptions {
        identity: Some(Arc::new(identity.clone())),
        ..ClientOptions::default()
    };
    let client = Client::connect(addr, options).await.expect("connect");
    let device = Device::open(identity, dir, client).expect("open device");
    device.publish_device_list(&[]).await.expect("device list");
    device.publish_key_packages(2).await.expect("key packages");
    device
}

/// Receives and acknowledges until `n` messages have arrived.
async fn receive(c: &mut Conversation, n: usize) {
    let mut got = 0;
    while got < n {
        let events = c
            .receive(Duration::from_millis(500))
            .await
            .expect("receive");
        got += events
            .iter()
            .filter(|e| matches!(e, Event::Message { .. }))
            .count();
        c.ack().expect("ack");
    }
}

/// The size of the one group file in a device's state directory.
fn group_file_size(dir: &Path) -> u64 {
    let mut sizes = std::fs::read_dir(dir)
        .expect("read the state dir")
        .filter_map(Result::ok)
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with("mls-group-") && !name.ends_with(".tmp")
        })
        .map(|e| e.metadata().expect("metadata").len());
    let size = sizes.next().expect("a group file");
    assert!(sizes.next().is_none(), "one group");
    size
}

struct Run {
    end_to_end: f64,
    sender_alone: f64,
    alice_file: u64,
    bob_file: u64,
    /// CPU time of the whole process (both devices and the broker) per
    /// message.
    cpu_per_message: Duration,
    /// One state write of half Alice's final file (her mean file size).
    write: Duration,
    /// One durable produce of a message-sized record, alone.
    produce: Duration,
}

/// Median time of one durable produce of a `len`-byte record, one at a
/// time, `count` of them, to a topic of its own on the broker at `addr`.
async fn produce_alone(addr: &str, len: usize, count: usize) -> Duration {
    let client = Client::connect(addr, ClientOptions::default())
        .await
        .expect("connect");
    let settings = TopicSettings {
        partitions: 1,
        cleanup: Cleanup::Delete,
        retention_ms: u64::MAX,
        retention_bytes: 0,
    };
    client
        .create_topic("bench.produce", settings)
        .await
        .expect("create topic");
    let value = vec![0x5a; len];
    let mut times = Vec::with_capacity(count);
    for _ in 0..count {
        let mut b = BatchBuilder::new(&[]);
        b.push(&value);
        let batch = Bytes::from(b.finish(now_ns()).expect("batch"));
        let t = Instant::now();
        client
            .produce("bench.produce", 0, Ack::Durable, batch)
            .await
            .expect("produce");
        times.push(t.elapsed());
    }
    times.sort();
    times[times.len() / 2]
}

async fn run(a: &Args) -> Run {
    let state = tempfile::tempdir_in(&a.state_dir).expect("state temp dir");
    let data = tempfile::tempdir_in(&a.broker_dir).expect("broker temp dir");
    let broker = EmbeddedBroker::start(data.path(), EmbeddedBroker::test_config())
        .await
        .expect("broker starts");
    let addr = broker.addr().to_string();
    let alice = device(&addr, state.path(), "alice").await;
    let bob = device(&addr, state.path(), "bob").await;
    let mut sender = alice.create_conversation().await.expect("create");
    sender
        .invite(bob.account().fingerprint())
        .await
        .expect("invite");
    bob.accept_welcomes().await.expect("welcomes");
    let mut receiver = bob.conversation(sender.topic()).expect("open");
    receiver.catch_up().await.expect("catch up");
    receiver.receive(Duration::ZERO).await.expect("receive");
    receiver.ack().expect("ack");

    let text = "x".repeat(a.size);
    for _ in 0..10 {
        sender.send_text(&text).await.expect("send");
    }
    receive(&mut receiver, 10).await;

    let (n, reads) = (a.messages, a.sender_reads);
    let (started, cpu) = (Instant::now(), process_cpu());
    let send = tokio::spawn(async move {
        for i in 1..=n {
            sender.send_text(&text).await.expect("send");
            if reads.is_some_and(|k| i % k == 0) {
                sender.catch_up().await.expect("catch up");
                sender.receive(Duration::ZERO).await.expect("receive");
                sender.ack().expect("ack");
            }
        }
        started.elapsed()
    });
    let recv = tokio::spawn(async move {
        receive(&mut receiver, n).await;
        started.elapsed()
    });
    let sent = send.await.expect("sender");
    let received = recv.await.expect("receiver");
    let cpu = process_cpu() - cpu;
    let alice_file = group_file_size(&state.path().join("alice"));
    let half = usize::try_from(alice_file / 2).expect("fits");
    let r = Run {
        end_to_end: n as f64 / received.as_secs_f64(),
        sender_alone: n as f64 / sent.as_secs_f64(),
        alice_file,
        bob_file: group_file_size(&state.path().join("bob")),
        cpu_per_message: cpu / u32::try_from(n).expect("fits"),
        write: state_write(state.path(), half, a.writes),
        produce: produce_alone(&addr, MESSAGE_LEN, a.writes).await,
    };
    drop((alice, bob));
    broker.shutdown().await.expect("shutdown");
    r
}

/// Median time of one `StateDir::write` of `len` bytes under `root`, of
/// `writes`.
fn state_write(root: &Path, len: usize, writes: usize) -> Duration {
    let tmp = tempfile::tempdir_in(root).expect("temp dir");
    let dir = StateDir::open(tmp.path().join("w")).expect("state dir");
    let contents = vec![0x5a; len];
    let mut times: Vec<Duration> = (0..writes)
        .map(|_| {
            let t = Instant::now();
            dir.write("mls-group-bench", &contents).expect("write");
            t.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let a = args();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    println!(
        "{} messages of {} B; state in {}, broker data in {}; sender reads: {}",
        a.messages,
        a.size,
        a.state_dir.display(),
        a.broker_dir.display(),
        a.sender_reads
            .map_or_else(|| "never".to_owned(), |k| format!("every {k} sends"))
    );
    let mut runs = Vec::new();
    for i in 1..=a.runs {
        let r = rt.block_on(run(&a));
        println!(
            "run {i}: {:>7.0} msgs/s end to end; sender alone {:>7.0} msgs/s; CPU {:.3} ms/msg; group files: Alice {} B, Bob {} B; \
             one state write of {} B {:.3} ms, one durable produce alone {:.3} ms",
            r.end_to_end,
            r.sender_alone,
            ms(r.cpu_per_message),
            r.alice_file,
            r.bob_file,
            r.alice_file / 2,
            ms(r.write),
            ms(r.produce)
        );
        runs.push(r);
    }
    let mut e2e: Vec<f64> = runs.iter().map(|r| r.end_to_end).collect();
    e2e.sort_by(f64::total_cmp);
    let mut alone: Vec<f64> = runs.iter().map(|r| r.sender_alone).collect();
    alone.sort_by(f64::total_cmp);
    let mid = e2e.len() / 2;
    println!(
        "msgs/s end to end: min {:.0} / median {:.0} / max {:.0}; sender alone: {:.0} / {:.0} / {:.0}",
        e2e[0],
        e2e[mid],
        e2e[e2e.len() - 1],
        alone[0],
        alone[mid],
        alone[alone.len() - 1]
    );
    let stat = |f: fn(&Run) -> Duration| {
        let mut v: Vec<Duration> = runs.iter().map(f).collect();
        v.sort();
        format!(
            "{:.3} / {:.3} / {:.3} ms",
            ms(v[0]),
            ms(v[v.len() / 2]),
            ms(v[v.len() - 1])
        )
    };
    println!(
        "CPU per message (process): {}; one state write: {}; one durable produce alone: {} \
         (min / median / max of the runs)",
        stat(|r| r.cpu_per_message),
        stat(|r| r.write),
        stat(|r| r.produce)
    );
}
