//! Many topics on one `hermit broker` process (issue 15): 50,000 topics
//! under `ulimit -n 1024` with no failed request and no warning, and
//! `kill -9` while topics are being created: no acknowledged record is
//! lost, and no half-created topic is served.
//!
//! Every topic here is created on demand by its first produce (and, in
//! the kill test, some explicitly), with durable acks under `fsync =
//! always`: the chat-inbox shape.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::future::Future;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use hermit_client::{Ack, Cleanup, Client, ClientError, ClientOptions, Status, TopicSettings};
use hermit_e2e_tests::{BrokerProcess, Limits, assert_ok, path_str, run_hermit, start_broker_with};
use hermit_protocol::BatchBuilder;
use hermit_protocol::record::{BatchIter, patch_base_offset};

/// A broker process started from async code (the start blocks until it listens).
fn start(data: &Path, extra: &[&str], limits: Limits) -> BrokerProcess {
    tokio::task::block_in_place(|| start_broker_with(data, "127.0.0.1:0", extra, limits))
}

/// SIGTERM from async code; the broker must exit 0.
fn stop(broker: BrokerProcess) {
    let status = tokio::task::block_in_place(|| broker.terminate()).expect("wait for the broker");
    assert_eq!(status.code(), Some(0), "a graceful stop exits 0");
}

async fn connect(broker: &BrokerProcess) -> Client {
    Client::connect(broker.addr().to_string(), ClientOptions::default())
        .await
        .expect("connect to the broker")
}

/// A batch of one record, `text`, with a timestamp of its own (a zero one
/// would be stamped by the broker, and the stored bytes would differ).
fn one_record(text: &str, ts: u64) -> Bytes {
    let mut b = BatchBuilder::new(b"");
    b.push(text.as_bytes());
    Bytes::from(
        b.finish(1_700_000_000_000_000_000 + ts)
            .expect("a small batch builds"),
    )
}

// ---- 50,000 topics under ulimit -n 1024 ----

const NOFILE: u64 = 1024;
const TOPICS: u64 = 50_000;
/// Connections carrying the load, and requests in flight on each.
const LOADERS: u64 = 4;
const IN_FLIGHT: u64 = 128;
/// Connections that only stay open meanwhile (each costs the broker a file).
const IDLE: usize = 50;
/// After the restart, every this many topics is fetched again.
const SAMPLE_EVERY: u64 = 25;
/// Failures after which the load stops: enough to see what went wrong.
const MAX_FAILURES: usize = 20;

fn inbox(i: u64) -> String {
    format!("inbox.{i:06}")
}

/// The one record of `inbox(i)`, as sent and, at offset 0, as stored.
fn inbox_record(i: u64) -> Bytes {
    one_record(&format!("the first message of inbox {i}"), i)
}

/// Requests that did not succeed (the first few kept), and whether to stop.
#[derive(Default)]
struct Failures {
    count: AtomicUsize,
    first: Mutex<Vec<String>>,
    stop: AtomicBool,
}

impl Failures {
    fn add(&self, what: String) {
        if self.count.fetch_add(1, Ordering::Relaxed) + 1 >= MAX_FAILURES {
            self.stop.store(true, Ordering::Relaxed);
        }
        let mut first = self.first.lock().unwrap();
        if first.len() < 5 {
            first.push(what);
        }
    }

    #[track_caller]
    fn assert_none(&self, phase: &str) {
        let n = self.count.load(Ordering::Relaxed);
        assert_eq!(
            n,
            0,
            "{phase}: {n} requests failed (the load stops at {MAX_FAILURES}), e.g. {:#?}",
            self.first.lock().unwrap()
        );
    }
}

/// `work(client, i)` for every `i` in `topics`, `IN_FLIGHT` at a time on
/// each client: pipelined, as many requests in flight as workers.
async fn across<F, Fut>(clients: &[Client], topics: Vec<u64>, failures: &Arc<Failures>, work: F)
where
    F: Fn(Client, u64) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<(), String>> + Send,
{
    let work = Arc::new(work);
    let topics = Arc::new(topics);
    let workers = clients.len() as u64 * IN_FLIGHT;
    let mut tasks = tokio::task::JoinSet::new();
    for w in 0..workers {
        let client = clients[(w % clients.len() as u64) as usize].clone();
        let (work, topics, failures) = (work.clone(), topics.clone(), failures.clone());
        tasks.spawn(async move {
            let mut j = w as usize;
            while j < topics.len() && !failures.stop.load(Ordering::Relaxed) {
                if let Err(e) = work(client.clone(), topics[j]).await {
                    failures.add(e);
                }
                j += workers as usize;
            }
        });
    }
    while let Some(r) = tasks.join_next().await {
        r.expect("a worker panicked");
    }
}

/// Fetch `inbox(i)` and compare it with the one record it was given.
async fn fetch_inbox(c: Client, i: u64) -> Result<(), String> {
    let name = inbox(i);
    let r = c
        .fetch(&name, 0, 0, 64 << 10, Duration::ZERO)
        .await
        .map_err(|e| format!("fetch from {name}: {e:#}"))?;
    if (r.log_start, r.high_watermark) != (0, 1) {
        return Err(format!(
            "{name}: offsets {}..{}, want 0..1",
            r.log_start, r.high_watermark
        ));
    }
    if r.batches != inbox_record(i) {
        return Err(format!(
            "{name}: the fetched record differs from the one sent"
        ));
    }
    Ok(())
}

/// `Max open files` of a process: (soft, hard), from `/proc/<pid>/limits`.
fn nofile_of(pid: u32) -> (String, String) {
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).expect("/proc is readable");
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .expect("a Max open files line");
    let v: Vec<&str> = line.split_whitespace().collect();
    (v[3].to_owned(), v[4].to_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_thousand_topics_under_ulimit_n_1024() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits {
        nofile: Some(NOFILE),
    };
    // The default `open_files` (768) leaves 256 files of the 1,024 for
    // connections, listeners and the broker's own files: allow half of
    // them to connections (this test opens 55).
    let flags = ["--fsync", "always", "--set", "max_connections=128"];
    let broker = start(dir.path(), &flags, limits);
    let want = (NOFILE.to_string(), NOFILE.to_string());
    assert_eq!(
        nofile_of(broker.pid()),
        want,
        "the broker runs under ulimit -n 1024"
    );

    let mut idle = Vec::with_capacity(IDLE);
    for _ in 0..IDLE {
        idle.push(connect(&broker).await);
    }
    let mut loaders = Vec::new();
    for _ in 0..LOADERS {
        loaders.push(connect(&broker).await);
    }
    let failures = Arc::new(Failures::default());

    let t = Instant::now();
    across(
        &loaders,
        (0..TOPICS).collect(),
        &failures,
        |c, i| async move {
            c.produce(&inbox(i), 0, Ack::Durable, inbox_record(i))
                .await
                .map(drop)
                .map_err(|e| format!("produce to {}: {e:#}", inbox(i)))
        },
    )
    .await;
    let created = t.elapsed();
    failures.assert_none("creating topics");
    let files = broker.open_files();

    let t = Instant::now();
    across(&loaders, (0..TOPICS).collect(), &failures, fetch_inbox).await;
    failures.assert_none("fetching every topic");
    eprintln!(
        "{TOPICS} topics created in {created:?}, fetched in {:?}; broker files open after creation: {files:?}",
        t.elapsed()
    );
    // The idle connections were never dropped (a reconnect would be a second one).
    for c in &idle {
        c.ping().await.expect("an idle connection still answers");
        assert_eq!(c.connections_opened(), 1, "an idle connection was lost");
    }
    drop((idle, loaders));
    let mut warnings = broker.warnings();
    stop(broker);

    let t = Instant::now();
    let broker = start(dir.path(), &flags, limits);
    let restarted = t.elapsed();
    let loaders = vec![connect(&broker).await];
    let sample: Vec<u64> = (0..TOPICS).step_by(SAMPLE_EVERY as usize).collect();
    across(&loaders, sample, &failures, fetch_inbox).await;
    failures.assert_none("fetching a sample after the restart");
    eprintln!("restarted in {restarted:?}");
    drop(loaders);
    warnings.extend(broker.warnings());
    stop(broker);
    assert!(
        warnings.is_empty(),
        "the broker logged {} warnings or errors:\n{}",
        warnings.len(),
        warnings.join("\n")
    );
}

// ---- kill -9 while topics are being created ----

/// Kills, each at a random point of a new load.
const ROUNDS: usize = 3;
/// Connections creating topics by producing to them, workers on each.
const AUTO_CONNECTIONS: usize = 3;
const AUTO_WORKERS: usize = 16;
/// Partitions of an auto-created topic (the broker's `default_partitions`).
const AUTO_PARTITIONS: u32 = 3;
/// Workers creating topics explicitly (then producing to them), on one more connection.
const EXPLICIT_WORKERS: usize = 8;
const EXPLICIT_PARTITIONS: u32 = 2;
/// `Metadata` of every topic is asked only below this many topics (a
/// larger broker answers it only page by page).
const LIST_ALL_BELOW: usize = 900;

/// A small xorshift generator: the test needs a few random kill points,
/// printed with their seed so a failing run can be repeated
/// (`MANY_TOPICS_SEED=<seed>`).
struct Rng(u64);

impl Rng {
    fn from_env_or_clock() -> (Rng, u64) {
        let seed = std::env::var("MANY_TOPICS_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(1, |d| d.as_nanos() as u64)
            });
        (Rng(seed | 1), seed)
    }

    /// Uniform enough in `lo..hi`.
    fn between(&mut self, lo: u64, hi: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        lo + self.0 % (hi - lo)
    }
}

/// One acknowledged record.
struct Acked {
    partition: u32,
    offset: u64,
    /// As sent (base offset 0).
    bytes: Bytes,
}

/// What the load did, over every round.
#[derive(Default)]
struct Ledger {
    /// Every topic a request named, with the partitions it is created with.
    sent: BTreeMap<String, u32>,
    /// Topics whose creation (explicit, or by a produce) was acknowledged.
    acked_topics: HashSet<String>,
    /// Acknowledged records by topic.
    acked: HashMap<String, Vec<Acked>>,
    acked_count: u64,
    /// Answers that were neither a success nor the kill.
    failures: Vec<String>,
}

/// Shared by the load's workers.
#[derive(Clone)]
struct Load {
    ledger: Arc<Mutex<Ledger>>,
    /// Set just before the kill: from then on a lost connection is expected.
    killing: Arc<AtomicBool>,
    /// Bumped at every acknowledgement and failure (what the test waits on).
    progress: Arc<tokio::sync::watch::Sender<u64>>,
}

impl Load {
    /// Record the outcome of a request; `false` when the worker must stop.
    fn outcome<T>(&self, what: &str, r: &Result<T, ClientError>) -> bool {
        match r {
            Ok(_) => true,
            Err(ClientError::ConnectionLost { .. } | ClientError::Connect { .. })
                if self.killing.load(Ordering::SeqCst) =>
            {
                false
            }
            Err(e) => {
                self.ledger
                    .lock()
                    .unwrap()
                    .failures
                    .push(format!("{what}: {e:#}"));
                self.progress.send_modify(|n| *n += 1);
                false
            }
        }
    }

    fn sent(&self, name: &str, partitions: u32) {
        self.ledger
            .lock()
            .unwrap()
            .sent
            .insert(name.to_owned(), partitions);
    }

    async fn produce(&self, c: &Client, name: &str, partition: u32, bytes: Bytes) -> bool {
        let r = c
            .produce(name, partition, Ack::Durable, bytes.clone())
            .await;
        if !self.outcome(&format!("produce to {name}/{partition}"), &r) {
            return false;
        }
        let offset = r.expect("outcome checked it");
        let mut l = self.ledger.lock().unwrap();
        l.acked_topics.insert(name.to_owned());
        l.acked.entry(name.to_owned()).or_default().push(Acked {
            partition,
            offset,
            bytes,
        });
        l.acked_count += 1;
        drop(l);
        self.progress.send_modify(|n| *n += 1);
        true
    }
}

/// A worker creating topics by producing to them, until the kill.
async fn auto_creator(load: Load, c: Client, round: usize, conn: usize, w: usize) {
    for k in 0u64.. {
        let name = format!("k{round}-a{conn}-{w}-{k}");
        // Any partition creates the whole topic.
        let partition = (k % u64::from(AUTO_PARTITIONS)) as u32;
        // Lengths vary so that a torn tail can fall anywhere.
        let text = format!("{name} {}", "x".repeat((k % 61) as usize));
        load.sent(&name, AUTO_PARTITIONS);
        if !load
            .produce(&c, &name, partition, one_record(&text, k))
            .await
        {
            return;
        }
    }
}

/// A worker creating topics explicitly, then producing to one partition.
async fn explicit_creator(load: Load, c: Client, round: usize, w: usize) {
    let settings = TopicSettings {
        partitions: EXPLICIT_PARTITIONS,
        cleanup: Cleanup::Delete,
        retention_ms: 0,
        retention_bytes: 0,
    };
    for k in 0u64.. {
        let name = format!("k{round}-x{w}-{k}");
        load.sent(&name, EXPLICIT_PARTITIONS);
        let r = c.create_topic(&name, settings).await;
        if !load.outcome(&format!("create {name}"), &r) {
            return;
        }
        load.ledger
            .lock()
            .unwrap()
            .acked_topics
            .insert(name.clone());
        let text = format!("explicitly created {name}");
        if !load.produce(&c, &name, 1, one_record(&text, k)).await {
            return;
        }
    }
}

/// Every batch of a partition from `from` to its high watermark, by base
/// offset, each checked whole and against its CRC.
async fn read_partition(
    c: &Client,
    name: &str,
    partition: u32,
    from: u64,
) -> BTreeMap<u64, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut offset = from;
    loop {
        let r = c
            .fetch(name, partition, offset, 1 << 20, Duration::ZERO)
            .await
            .unwrap_or_else(|e| {
                panic!("{name}/{partition} does not answer a fetch at {offset}: {e:#}")
            });
        if offset >= r.high_watermark {
            return out;
        }
        assert!(
            !r.batches.is_empty(),
            "{name}/{partition}: nothing at {offset} below the high watermark {}",
            r.high_watermark
        );
        for b in BatchIter::new(&r.batches) {
            let b = b.unwrap_or_else(|e| panic!("{name}/{partition}: a malformed batch: {e}"));
            b.verify_crc().unwrap_or_else(|e| {
                panic!("{name}/{partition}: a served batch fails its CRC: {e}")
            });
            offset = b
                .header
                .next_offset()
                .expect("a valid batch has a next offset");
            out.insert(b.header.base_offset, b.as_bytes().to_vec());
        }
    }
}

/// After a restart: every topic a request named is either unknown (and then
/// nothing about it was acknowledged) or whole — the partitions it was
/// created with, each answering a fetch of all its batches — with every
/// acknowledged record there, byte for byte.
async fn check_after_restart(broker: &BrokerProcess, ledger: &Arc<Mutex<Ledger>>) -> usize {
    let client = connect(broker).await;
    let names: Arc<Vec<(String, u32)>> = Arc::new(
        ledger
            .lock()
            .unwrap()
            .sent
            .iter()
            .map(|(n, p)| (n.clone(), *p))
            .collect(),
    );
    let found = Arc::new(AtomicUsize::new(0));
    let workers = 16;
    let mut tasks = tokio::task::JoinSet::new();
    for w in 0..workers {
        let (client, names, ledger, found) =
            (client.clone(), names.clone(), ledger.clone(), found.clone());
        tasks.spawn(async move {
            for (name, partitions) in names.iter().skip(w).step_by(workers) {
                check_topic(&client, &ledger, name, *partitions, &found).await;
            }
        });
    }
    while let Some(r) = tasks.join_next().await {
        if let Err(e) = r {
            std::panic::resume_unwind(e.into_panic());
        }
    }
    // The broker's own list, when it answers one: nothing unknown, nothing partial.
    if names.len() < LIST_ALL_BELOW {
        let sent: HashMap<&str, u32> = names.iter().map(|(n, p)| (n.as_str(), *p)).collect();
        let all = client.metadata(None).await.expect("list every topic");
        let listed: Vec<_> = all.iter().filter(|t| !t.name.starts_with("__")).collect();
        assert_eq!(listed.len(), found.load(Ordering::SeqCst), "topics listed");
        for t in listed {
            let want = sent.get(t.name.as_str()).copied();
            assert_eq!(
                want,
                Some(t.partitions.len() as u32),
                "{} is listed with {} partitions",
                t.name,
                t.partitions.len()
            );
        }
    }
    found.load(Ordering::SeqCst)
}

async fn check_topic(
    client: &Client,
    ledger: &Mutex<Ledger>,
    name: &str,
    partitions: u32,
    found: &AtomicUsize,
) {
    let acked_topic = ledger.lock().unwrap().acked_topics.contains(name);
    let t = match client.metadata(Some(name)).await {
        Err(e) if e.status() == Some(Status::UnknownTopic) => {
            assert!(!acked_topic, "{name} was acknowledged but is gone");
            return;
        }
        Err(e) => panic!("metadata of {name}: {e:#}"),
        Ok(t) => t,
    };
    found.fetch_add(1, Ordering::SeqCst);
    assert_eq!(t.len(), 1, "{name}: one topic described");
    let parts = &t[0].partitions;
    assert_eq!(
        parts.len() as u32,
        partitions,
        "{name} is served with {} of its {partitions} partitions",
        parts.len()
    );
    let mut stored = HashMap::new();
    for p in parts {
        stored.insert(
            p.partition,
            read_partition(client, name, p.partition, p.log_start).await,
        );
    }
    let l = ledger.lock().unwrap();
    for a in l.acked.get(name).into_iter().flatten() {
        let mut want = a.bytes.to_vec();
        patch_base_offset(&mut want, a.offset);
        let got = stored.get(&a.partition).and_then(|s| s.get(&a.offset));
        assert!(
            got == Some(&want),
            "{name}/{}: the record acknowledged at offset {} is {}",
            a.partition,
            a.offset,
            if got.is_some() {
                "different"
            } else {
                "missing"
            }
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill9_while_topics_are_created_loses_no_ack_and_serves_no_half_topic() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let flags = [
        "--fsync",
        "always",
        "--set",
        &format!("default_partitions={AUTO_PARTITIONS}"),
    ];
    let (mut rng, seed) = Rng::from_env_or_clock();
    eprintln!("MANY_TOPICS_SEED={seed}");
    let ledger = Arc::new(Mutex::new(Ledger::default()));
    let mut broker = start(&data, &flags, Limits::default());
    for round in 0..ROUNDS {
        let (tx, mut progress) = tokio::sync::watch::channel(0u64);
        let load = Load {
            ledger: ledger.clone(),
            killing: Arc::new(AtomicBool::new(false)),
            progress: Arc::new(tx),
        };
        let mut tasks = tokio::task::JoinSet::new();
        for conn in 0..AUTO_CONNECTIONS {
            let c = connect(&broker).await;
            for w in 0..AUTO_WORKERS {
                tasks.spawn(auto_creator(load.clone(), c.clone(), round, conn, w));
            }
        }
        let c = connect(&broker).await;
        for w in 0..EXPLICIT_WORKERS {
            tasks.spawn(explicit_creator(load.clone(), c.clone(), round, w));
        }
        drop(c);
        // Kill after a random number of acknowledgements (awaited, not slept on).
        let before = ledger.lock().unwrap().acked_count;
        let kill_after = rng.between(30, 300);
        let l = ledger.clone();
        tokio::time::timeout(
            Duration::from_secs(120),
            progress.wait_for(|_| {
                let l = l.lock().unwrap();
                l.acked_count >= before + kill_after || !l.failures.is_empty()
            }),
        )
        .await
        .expect("the load makes progress")
        .expect("the load's sender lives");
        load.killing.store(true, Ordering::SeqCst);
        tokio::task::block_in_place(|| broker.kill9());
        while let Some(r) = tasks.join_next().await {
            r.expect("a load worker panicked");
        }
        let failures = std::mem::take(&mut ledger.lock().unwrap().failures);
        assert!(
            failures.is_empty(),
            "round {round}: {} requests failed before the kill, e.g. {:#?}",
            failures.len(),
            &failures[..failures.len().min(5)]
        );
        broker = start(&data, &flags, Limits::default());
        let found = check_after_restart(&broker, &ledger).await;
        let l = ledger.lock().unwrap();
        eprintln!(
            "round {round}: killed after {kill_after} more acks; {} topics named, {} acknowledged, {found} served; {} records acknowledged",
            l.sent.len(),
            l.acked_topics.len(),
            l.acked_count
        );
    }
    stop(broker);
    assert_ok(&run_hermit(&["log", "check", path_str(&data)], b"", &[]));
}
