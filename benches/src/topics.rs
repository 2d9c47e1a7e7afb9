//! `hermit bench topics`: many nearly empty topics, the chat-inbox shape
//! (issue 15). One record per new topic (created on demand by its first
//! produce, durable ack), then one fetch per topic, then a clean restart
//! and a restart after `kill -9` on the same data directory. Reports
//! topics created per second, fetch latency, the broker's open files, RSS
//! and disk per topic, and both restart times (process start to listening).

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use bytes::Bytes;
use hermit_client::{Ack, Client, ClientOptions};
use hermit_protocol::record::BatchBuilder;

use crate::process::BrokerProcess;
use crate::report::Run;
use crate::target::{Target, TargetArgs};

/// `hermit bench topics` flags.
#[derive(Debug, Clone, clap::Args)]
pub struct TopicsArgs {
    #[command(flatten)]
    /// Broker and output options (only a started broker makes sense here).
    pub target: TargetArgs,
    /// Topics to create (each gets one record).
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub topics: u64,
    /// Requests in flight on the one connection.
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub in_flight: u64,
}

impl TopicsArgs {
    /// One line describing the settings.
    pub fn settings(&self) -> String {
        format!(
            "topics={} in_flight={} fsync={}",
            self.topics, self.in_flight, self.target.fsync
        )
    }
}

/// The name of topic `i`.
fn topic(i: u64) -> String {
    format!("inbox.{i:08}")
}

/// Run `work(i)` for every `i` below `n` with `in_flight` at a time on
/// `client`; returns each call's latency.
async fn each<F, Fut>(
    n: u64,
    in_flight: u64,
    client: &Client,
    work: F,
) -> anyhow::Result<Vec<Duration>>
where
    F: Fn(Client, u64) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = anyhow::Result<()>> + Send,
{
    let work = Arc::new(work);
    let mut tasks = tokio::task::JoinSet::new();
    for w in 0..in_flight.min(n) {
        let (client, work) = (client.clone(), work.clone());
        tasks.spawn(async move {
            let mut lat = Vec::new();
            let mut i = w;
            while i < n {
                let t = Instant::now();
                work(client.clone(), i).await?;
                lat.push(t.elapsed());
                i += in_flight;
            }
            anyhow::Ok(lat)
        });
    }
    let mut all = Vec::with_capacity(n as usize);
    while let Some(r) = tasks.join_next().await {
        all.extend(r.context("a worker panicked")??);
    }
    Ok(all)
}

/// Files the process has open (`/proc/<pid>/fd`).
fn open_files(pid: u32) -> Option<u64> {
    Some(std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?.count() as u64)
}

/// Bytes allocated on disk below `dir` (blocks, not lengths: what a
/// nearly empty file really costs), directories included.
fn disk_bytes(dir: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt as _;
    let mut total = 0;
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    for e in entries.flatten() {
        let Ok(m) = e.metadata() else { continue };
        total += m.blocks() * 512;
        if m.is_dir() {
            total += disk_bytes(&e.path());
        }
    }
    total
}

fn percentile(lat: &mut [Duration], p: f64) -> Duration {
    lat.sort();
    let i = ((lat.len() as f64 - 1.0) * p).round() as usize;
    lat.get(i).copied().unwrap_or_default()
}

/// Start a broker on `dir` and connect to it.
async fn start(args: &TopicsArgs, dir: &Path) -> anyhow::Result<(BrokerProcess, Client)> {
    let (target, dir) = (args.target.clone(), dir.to_path_buf());
    let process = tokio::task::spawn_blocking(move || {
        Target::spawn(
            &target,
            &dir,
            "127.0.0.1:0",
            &["--set", "verify_rolled=background"],
        )
    })
    .await
    .context("the broker start panicked")??;
    let addr = process.addr().to_string();
    let client = Client::connect(addr.clone(), ClientOptions::default())
        .await
        .with_context(|| format!("cannot connect to {addr}"))?;
    Ok((process, client))
}

/// How many topics the broker lists (every one must survive each restart),
/// page by page: Metadata of all topics answers one page only.
async fn count_topics(client: &Client) -> anyhow::Result<u64> {
    let mut n = 0;
    let mut after: Option<String> = None;
    loop {
        let page = client
            .list_topics(after.as_deref(), hermit_client::MAX_LIST_LIMIT)
            .await
            .context("cannot list the topics")?;
        n += page
            .topics
            .iter()
            .filter(|t| t.name.starts_with("inbox."))
            .count() as u64;
        match page.next {
            Some(next) => after = Some(next),
            None => return Ok(n),
        }
    }
}

/// One run: create, fetch, measure, restart twice.
pub async fn run_once(args: &TopicsArgs, _run: usize) -> anyhow::Result<Run> {
    anyhow::ensure!(
        args.target.broker.is_none(),
        "topics starts its own broker (it restarts it); drop --broker"
    );
    let dir = args.target.temp_data_dir()?;
    let (process, client) = start(args, dir.path()).await?;
    let n = args.topics;
    let mut record = BatchBuilder::new(b"");
    record.push(&[0x42; 27]);
    let batch = Bytes::from(record.finish(0).context("cannot build the record")?);

    let t = Instant::now();
    let b = batch.clone();
    each(n, args.in_flight, &client, move |c, i| {
        let b = b.clone();
        async move {
            c.produce(&topic(i), 0, Ack::Durable, b)
                .await
                .with_context(|| format!("produce to {}", topic(i)))?;
            Ok(())
        }
    })
    .await?;
    let create = t.elapsed();

    let t = Instant::now();
    let mut fetch = each(n, args.in_flight, &client, |c, i| async move {
        let r = c
            .fetch(&topic(i), 0, 0, 1 << 16, Duration::ZERO)
            .await
            .with_context(|| format!("fetch from {}", topic(i)))?;
        anyhow::ensure!(
            r.high_watermark == 1,
            "{}: high watermark {}",
            topic(i),
            r.high_watermark
        );
        Ok(())
    })
    .await?;
    let fetch_all = t.elapsed();
    let files = open_files(process.pid());
    let usage = process.usage();
    drop(client);
    let disk = disk_bytes(dir.path());

    // A clean restart, then one after kill -9, on the same directory.
    let status = process.terminate().context("cannot stop the broker")?;
    anyhow::ensure!(status.success(), "the broker exited with {status}");
    let (process, client) = start(args, dir.path()).await?;
    let clean = process.startup;
    anyhow::ensure!(
        count_topics(&client).await? == n,
        "topics lost in a clean restart"
    );
    drop(client);
    process.kill9();
    let (process, client) = start(args, dir.path()).await?;
    let crashed = process.startup;
    anyhow::ensure!(
        count_topics(&client).await? == n,
        "topics lost after kill -9"
    );
    drop(client);
    let status = process.terminate().context("cannot stop the broker")?;
    anyhow::ensure!(status.success(), "the broker exited with {status}");

    let mut r = Run::default();
    r.add("create", n as f64 / create.as_secs_f64(), "topics/s");
    r.add("fetch_all", n as f64 / fetch_all.as_secs_f64(), "fetches/s");
    r.add(
        "fetch_p99",
        percentile(&mut fetch, 0.99).as_secs_f64() * 1e3,
        "ms",
    );
    if let Some(f) = files {
        r.add("open_files", f as f64, "");
    }
    if let Some(u) = usage {
        r.add("rss", u.rss_bytes as f64 / (1 << 20) as f64, "MiB");
    }
    r.add("disk_per_topic", disk as f64 / n as f64 / 1024.0, "KiB");
    r.add("restart_clean", clean.as_secs_f64(), "s");
    r.add("restart_kill9", crashed.as_secs_f64(), "s");
    Ok(r)
}
