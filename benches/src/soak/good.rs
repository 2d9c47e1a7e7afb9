//! The good clients of the soak: durable produce, fetch, commit, round
//! after round, each checked against what it sent.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context;
use bytes::Bytes;
use hermit_client::{Ack, Client, ClientOptions};
use hermit_protocol::record::BatchBuilder;
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio::time::Instant;

use super::ledger::TopicLedger;
use super::rng::Rng;
use super::windows::{Op, Windows};

/// The name of topic `i`.
pub(super) fn topic(i: u64) -> String {
    format!("soak.{i:05}")
}

/// The group of good connection `i`.
pub(super) fn group(i: u64) -> String {
    format!("soak.g{i:06}")
}

/// A batch of 1–4 records of 16–200 bytes: the connection and sequence
/// number first (so no two records are alike), then pseudo-random bytes.
pub(super) fn make_batch(
    conn: u64,
    seq: u64,
    rng: &mut Rng,
) -> anyhow::Result<(Bytes, Vec<Vec<u8>>)> {
    let n = 1 + rng.below(4) as usize;
    let mut values = Vec::with_capacity(n);
    let mut b = BatchBuilder::new(b"");
    for i in 0..n {
        let len = 16 + rng.below(185) as usize;
        let mut v = Vec::with_capacity(len);
        v.extend_from_slice(&(conn as u32).to_be_bytes());
        v.extend_from_slice(&seq.to_be_bytes());
        v.extend_from_slice(&(i as u16).to_be_bytes());
        v.extend((v.len()..len).map(|_| rng.next() as u8));
        b.push(&v);
        values.push(v);
    }
    let batch = b.finish(0).context("cannot build a batch")?;
    Ok((Bytes::from(batch), values))
}

/// A good connection's committed offsets: the last acknowledged and the
/// last attempted (a commit whose answer was lost may have been stored).
#[derive(Debug, Default)]
pub(super) struct Commits {
    pub(super) acked: AtomicU64,
    pub(super) attempted: AtomicU64,
}

/// Nothing committed yet.
pub(super) const NONE: u64 = u64::MAX;

/// What the good clients share.
pub(super) struct Good {
    pub(super) t0: Instant,
    pub(super) windows: Mutex<Windows>,
    pub(super) ledgers: Vec<Mutex<TopicLedger>>,
    pub(super) commits: Vec<Commits>,
    /// Failures that fail the soak whatever else happens (an offset
    /// acknowledged twice, a corrupt record served).
    pub(super) fatal: Mutex<Vec<String>>,
    /// The first few request errors, for the report.
    pub(super) errors: Mutex<Vec<String>>,
    pub(super) error_count: [AtomicU64; 3],
    pub(super) records_acked: AtomicU64,
    pub(super) records_fetched: AtomicU64,
}

impl Good {
    pub(super) fn new(t0: Instant, window: Duration, topics: u64, connections: u64) -> Good {
        Good {
            t0,
            windows: Mutex::new(Windows::new(window)),
            ledgers: (0..topics).map(|_| Mutex::default()).collect(),
            commits: (0..connections)
                .map(|_| Commits {
                    acked: AtomicU64::new(NONE),
                    attempted: AtomicU64::new(NONE),
                })
                .collect(),
            fatal: Mutex::default(),
            errors: Mutex::default(),
            error_count: Default::default(),
            records_acked: AtomicU64::new(0),
            records_fetched: AtomicU64::new(0),
        }
    }

    fn since(&self) -> Duration {
        self.t0.elapsed()
    }

    fn ok(&self, op: Op, started: Instant) {
        let now = Instant::now();
        let at = now.saturating_duration_since(self.t0);
        lock(&self.windows).record(at, op, now - started);
    }

    fn failed(&self, op: Op, what: String) {
        lock(&self.windows).error(self.since());
        self.error_count[op as usize].fetch_add(1, Ordering::Relaxed);
        let mut errors = lock(&self.errors);
        if errors.len() < 20 {
            errors.push(format!("{:.1} s: {what}", self.since().as_secs_f64()));
        }
    }

    fn fatal(&self, what: String) {
        let mut fatal = lock(&self.fatal);
        if fatal.len() < 100 {
            fatal.push(what);
        }
    }
}

pub(super) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Sleep `d`; true when the stop signal came first.
pub(super) async fn pause(d: Duration, stop: &mut watch::Receiver<bool>) -> bool {
    if *stop.borrow() {
        return true;
    }
    let stopped = tokio::select! {
        _ = tokio::time::sleep(d) => None,
        r = stop.wait_for(|s| *s) => Some(r.is_ok()),
    };
    stopped.unwrap_or_else(|| *stop.borrow())
}

/// One round of a good connection: durable produce, fetch from `pos`,
/// commit. Returns the new position and whether all three succeeded;
/// failures are recorded, not returned.
pub(super) async fn round(
    good: &Good,
    client: &Client,
    conn: u64,
    topic_i: u64,
    seq: u64,
    pos: u64,
    rng: &mut Rng,
) -> (u64, bool) {
    let name = topic(topic_i);
    let (batch, values) = match make_batch(conn, seq, rng) {
        Ok(b) => b,
        Err(e) => {
            good.fatal(format!("{e:#}"));
            return (pos, false);
        }
    };
    let mut all_ok = true;
    let t = Instant::now();
    match client.produce(&name, 0, Ack::Durable, batch).await {
        Ok(base) => {
            good.ok(Op::Produce, t);
            good.records_acked
                .fetch_add(values.len() as u64, Ordering::Relaxed);
            let r =
                lock(&good.ledgers[topic_i as usize]).ack(base, values.iter().map(Vec::as_slice));
            if let Err(e) = r {
                good.fatal(format!("{name}: {e}"));
            }
        }
        Err(e) => {
            all_ok = false;
            good.failed(Op::Produce, format!("produce to {name}: {e}"))
        }
    }
    let t = Instant::now();
    let mut next = pos;
    match client.fetch(&name, 0, pos, 64 << 10, Duration::ZERO).await {
        Ok(r) => {
            good.ok(Op::Fetch, t);
            let mut n = 0;
            for rec in r.records_from(pos) {
                match rec {
                    Ok(rec) => {
                        next = rec.offset + 1;
                        n += 1;
                    }
                    Err(e) => {
                        all_ok = false;
                        good.fatal(format!("{name}: a corrupt batch was served at {next}: {e}"));
                        break;
                    }
                }
            }
            good.records_fetched.fetch_add(n, Ordering::Relaxed);
        }
        Err(e) => {
            all_ok = false;
            good.failed(Op::Fetch, format!("fetch from {name}: {e}"))
        }
    }
    let commits = &good.commits[conn as usize];
    commits.attempted.store(next, Ordering::Relaxed);
    let t = Instant::now();
    match client.commit(&group(conn), &name, 0, next).await {
        Ok(()) => {
            good.ok(Op::Commit, t);
            commits.acked.store(next, Ordering::Relaxed);
        }
        Err(e) => {
            all_ok = false;
            good.failed(Op::Commit, format!("commit on {name}: {e}"))
        }
    }
    (next, all_ok)
}

/// A good connection until the stop signal.
pub(super) async fn good_loop(
    good: Arc<Good>,
    client: Client,
    conn: u64,
    topic_i: u64,
    interval: Duration,
    mut stop: watch::Receiver<bool>,
) {
    let mut rng = Rng::new(conn);
    // The first rounds spread over one interval, not all at once.
    if pause(interval.mul_f64(rng.unit()), &mut stop).await {
        return;
    }
    let (mut seq, mut pos) = (0, 0);
    loop {
        pos = round(&good, &client, conn, topic_i, seq, pos, &mut rng)
            .await
            .0;
        seq += 1;
        if pause(interval.mul_f64(0.5 + rng.unit()), &mut stop).await {
            return;
        }
    }
}

pub(super) fn client_options() -> ClientOptions {
    ClientOptions {
        connect_timeout: Duration::from_secs(10),
        max_in_flight: 8,
        ..ClientOptions::default()
    }
}

/// Connect `n` clients, `at_once` at a time.
pub(super) async fn connect_all(addr: &str, n: u64, at_once: usize) -> anyhow::Result<Vec<Client>> {
    let sem = Arc::new(tokio::sync::Semaphore::new(at_once));
    let mut set = JoinSet::new();
    for i in 0..n {
        let (sem, addr) = (sem.clone(), addr.to_owned());
        set.spawn(async move {
            let _p = sem.acquire_owned().await;
            let mut last = None;
            for _ in 0..3 {
                match Client::connect(addr.clone(), client_options()).await {
                    Ok(c) => return Ok((i, c)),
                    Err(e) => last = Some(e),
                }
            }
            Err(anyhow::anyhow!(
                "good connection {i} cannot connect: {}",
                last.map_or_else(String::new, |e| e.to_string())
            ))
        });
    }
    let mut clients: Vec<Option<Client>> = vec![None; n as usize];
    while let Some(r) = set.join_next().await {
        let (i, c) = r.context("a connect task panicked")??;
        clients[i as usize] = Some(c);
    }
    Ok(clients.into_iter().flatten().collect())
}
