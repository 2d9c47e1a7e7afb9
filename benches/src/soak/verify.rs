//! What the soak checks after the load: every topic against its ledger,
//! every group's committed offset, and how the broker recovered from the
//! storm.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use hermit_client::Client;
use tokio::task::JoinSet;
use tokio::time::Instant;

use anyhow::Context;
use bytes::Bytes;
use hermit_client::Ack;
use hermit_protocol::record::BatchBuilder;

use super::good::{Good, NONE, client_options, connect_all, group, lock, round, topic};
use super::hostile;
use super::ledger::TopicLedger;
use super::rng::Rng;

/// Read every topic from the start and check it against its ledger;
/// returns the records verified, or what is wrong.
pub(super) async fn verify_topics(
    addr: &str,
    good: &Good,
    topics: u64,
) -> anyhow::Result<(u64, Vec<String>)> {
    let clients = connect_all(addr, 8, 8).await?;
    let mut set = JoinSet::new();
    let next = Arc::new(AtomicU64::new(0));
    // The ledgers move into the tasks' shared view; nothing acks any more.
    let ledgers: Arc<Vec<TopicLedger>> =
        Arc::new(good.ledgers.iter().map(|l| lock(l).clone()).collect());
    for c in clients {
        let (next, ledgers) = (next.clone(), ledgers.clone());
        set.spawn(async move {
            let mut verified = 0;
            let mut problems = Vec::new();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= topics {
                    return anyhow::Ok((verified, problems));
                }
                let name = topic(i);
                let ledger = &ledgers[i as usize];
                match verify_one(&c, &name, ledger).await {
                    Ok(n) => verified += n,
                    Err(e) => problems.push(format!("{name}: {e:#}")),
                }
            }
        });
    }
    let (mut verified, mut problems) = (0, Vec::new());
    while let Some(r) = set.join_next().await {
        let (v, p) = r.context("a verifier panicked")??;
        verified += v;
        problems.extend(p);
    }
    Ok((verified, problems))
}

pub(super) async fn verify_one(
    c: &Client,
    name: &str,
    ledger: &TopicLedger,
) -> anyhow::Result<u64> {
    let mut v = ledger.verifier();
    let mut pos = 0;
    loop {
        let r = c
            .fetch(name, 0, pos, 1 << 20, Duration::ZERO)
            .await
            .with_context(|| format!("fetch at {pos}"))?;
        anyhow::ensure!(
            r.log_start == 0,
            "the log starts at {}: records were deleted",
            r.log_start
        );
        let mut next = pos;
        for rec in r.records_from(pos) {
            let rec = rec.with_context(|| format!("a corrupt batch at or after {next}"))?;
            v.record(rec.offset, &rec.value)?;
            next = rec.offset + 1;
        }
        if next >= r.high_watermark || next == pos {
            anyhow::ensure!(
                r.high_watermark >= ledger.end(),
                "high watermark {} below the acknowledged offset {}",
                r.high_watermark,
                ledger.end()
            );
            return Ok(v.finish()?);
        }
        pos = next;
    }
}

/// Every good connection's committed offset: the last acknowledged (or a
/// later attempt whose answer was lost). Returns those checked and the problems.
pub(super) async fn verify_commits(
    addr: &str,
    good: &Good,
    topics: u64,
) -> anyhow::Result<(u64, Vec<String>)> {
    let c = Client::connect(addr.to_owned(), client_options()).await?;
    let mut checked = 0;
    let mut problems = Vec::new();
    let mut set = JoinSet::new();
    for (i, commits) in good.commits.iter().enumerate() {
        let acked = commits.acked.load(Ordering::Relaxed);
        let attempted = commits.attempted.load(Ordering::Relaxed);
        if acked == NONE {
            continue;
        }
        let c = c.clone();
        let i = i as u64;
        set.spawn(async move {
            let got = c.committed(&group(i), &topic(i % topics), 0).await;
            (i, acked, attempted, got)
        });
        // Bounded: at most 64 questions in flight.
        while set.len() >= 64 {
            if let Some(r) = set.join_next().await {
                check_commit(r?, &mut checked, &mut problems);
            }
        }
    }
    while let Some(r) = set.join_next().await {
        check_commit(r?, &mut checked, &mut problems);
    }
    Ok((checked, problems))
}

pub(super) type CommitAnswer = (
    u64,
    u64,
    u64,
    Result<Option<u64>, hermit_client::ClientError>,
);

pub(super) fn check_commit(r: CommitAnswer, checked: &mut u64, problems: &mut Vec<String>) {
    let (i, acked, attempted, got) = r;
    *checked += 1;
    match got {
        Ok(Some(c)) if c == acked || (c >= acked && c <= attempted) => {}
        Ok(other) => problems.push(format!(
            "group {}: committed {other:?}, acknowledged {acked}",
            group(i)
        )),
        Err(e) => problems.push(format!("group {}: {e}", group(i))),
    }
}

/// After the storm: how long until a new connection is served again (a
/// produce on it acknowledged), then `n` fresh clients that must each
/// complete a round within [`FRESH_DEADLINE`]. A fresh client may be
/// refused at first (`TooManyConnections` while the broker is still closing
/// the storm's connections): it retries, as any client would, and only its
/// round counts. Returns (recovery time, fresh clients that completed, the
/// time until the last of them did).
pub(super) async fn recover(
    addr: &str,
    good: &Arc<Good>,
    topics: u64,
    base_conn: u64,
    n: u64,
) -> Recovered {
    let started = Instant::now();
    let deadline = started + FRESH_DEADLINE;
    let mut out = Recovered::default();
    let note = |errors: &mut Vec<String>, e: String| {
        if errors.len() < 5 && !errors.contains(&e) {
            errors.push(e);
        }
    };
    while Instant::now() < deadline {
        let probe = async {
            let c = Client::connect(addr.to_owned(), client_options())
                .await
                .map_err(|e| format!("probe connect: {e}"))?;
            let mut b = BatchBuilder::new(b"");
            b.push(b"probe");
            let batch = Bytes::from(b.finish(0).map_err(|e| e.to_string())?);
            c.produce(hostile::HOSTILE_TOPIC, 0, Ack::Durable, batch)
                .await
                .map_err(|e| format!("probe produce: {e}"))
        };
        match tokio::time::timeout_at(deadline, probe).await {
            Ok(Ok(_)) => {
                out.recovered = Some(started.elapsed());
                break;
            }
            Ok(Err(e)) => note(&mut out.errors, e),
            Err(_) => note(
                &mut out.errors,
                "probe: no answer before the deadline".into(),
            ),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let mut set = JoinSet::new();
    for k in 0..n {
        let (good, addr) = (good.clone(), addr.to_owned());
        set.spawn(async move {
            let conn = base_conn + k;
            let topic_i = conn % topics;
            // Served (a ping answered), not merely greeted: a refused
            // connection gets the hello before its notice.
            let mut last = String::from("never tried");
            let client = loop {
                if Instant::now() >= deadline {
                    return Err(format!("fresh client: {last}"));
                }
                match Client::connect(addr.clone(), client_options()).await {
                    Ok(c) => match c.ping().await {
                        Ok(_) => break c,
                        Err(e) => last = format!("ping: {e}"),
                    },
                    Err(e) => last = format!("connect: {e}"),
                }
                tokio::time::sleep(Duration::from_millis(500)).await;
            };
            let mut rng = Rng::new(conn);
            let (_, ok) = round(&good, &client, conn, topic_i, 0, 0, &mut rng).await;
            if ok {
                Ok(started.elapsed())
            } else {
                Err("fresh client: its round failed (see the request errors)".into())
            }
        });
    }
    while let Some(r) = set.join_next().await {
        match r {
            Ok(Ok(at)) => {
                out.fresh_ok += 1;
                out.fresh_done = out.fresh_done.max(Some(at));
            }
            Ok(Err(e)) => note(&mut out.errors, e),
            Err(e) => note(&mut out.errors, format!("fresh client panicked: {e}")),
        }
    }
    out
}

/// What [`recover`] found.
#[derive(Debug, Clone, Default)]
pub(super) struct Recovered {
    /// From the storm's end until a new connection was served.
    pub(super) recovered: Option<Duration>,
    /// Fresh clients that completed a round.
    pub(super) fresh_ok: u64,
    /// When the last of them did.
    pub(super) fresh_done: Option<Duration>,
    /// The first few distinct errors of the probe and the fresh clients.
    pub(super) errors: Vec<String>,
}

/// How long after the storm a new connection must be served again, and
/// every fresh client must have completed its round.
pub(super) const FRESH_DEADLINE: Duration = Duration::from_secs(60);
