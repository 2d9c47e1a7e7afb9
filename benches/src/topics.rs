//! `hermit bench topics`: many nearly empty topics, the chat-inbox shape
//! (issue 15). One record per new topic (created on demand by its first
//! produce, durable ack unless `--fsync never`), then one fetch per topic,
//! then a clean restart and a restart after `kill -9` on the same data
//! directory. Reports topics created per second, fetch latency, the
//! broker's open files and RSS at the end of creation and after the fetch
//! phase, disk per topic, both restart times (process start to listening),
//! and after each restart the latency of a fetch from a closed (cold)
//! partition against a second one at once (warm). `--nofile` runs the
//! broker as under `ulimit -n`, `--open-files` sets its file cache.
//! Topics are named like real inboxes (`inbox.` + 64 hex digits, issue
//! 38) unless `--names short`. RSS is reported as it is (VmRSS) after each
//! phase and at its peak (VmHWM), also after the clean restart, whose
//! catalog replay holds every entry for a moment.
//!
//! Nothing here grows faster than the topic count, and at most `in_flight`
//! requests exist at once, so that a run at 1,000,000 topics costs the load
//! generator a few latencies per topic and no more.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use bytes::Bytes;
use hermit_client::{Client, ClientOptions};
use hermit_protocol::record::BatchBuilder;

use crate::process::{BrokerProcess, Limits};
use crate::report::Run;
use crate::target::{Target, TargetArgs, parse_ack};

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
    /// Topics fetched twice in a row after each restart, one request at a
    /// time (spread evenly over all topics): cold, then warm.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub sample: u64,
    /// Run the broker with RLIMIT_NOFILE N, soft and hard (as under
    /// `ulimit -n N`) [default: this command's limit].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(16..))]
    pub nofile: Option<u64>,
    /// The broker's `open_files` setting: segment files idle partitions
    /// keep open [default: the broker's, 768].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(16..))]
    pub open_files: Option<u32>,
    /// Topic names: `real` (`inbox.` + 64 hex digits, 70 bytes, as a
    /// chat inbox `inbox.<fingerprint>` is named) or `short`
    /// (`inbox.00000042`, the names before issue 38, for comparison).
    #[arg(long, value_enum, default_value_t = Names::Real)]
    pub names: Names,
}

/// How `hermit bench topics` names its topics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Names {
    /// `inbox.` + 64 lowercase hex digits derived from the topic's number:
    /// as long as a real inbox's name, with no prefix shared beyond `inbox.`.
    Real,
    /// `inbox.` + the topic's number in 8 decimal digits.
    Short,
}

impl Names {
    /// The name of topic `i`.
    pub fn topic(self, i: u64) -> String {
        match self {
            Names::Short => format!("inbox.{i:08}"),
            Names::Real => {
                // Four rounds of splitmix64: distinct for distinct `i` (the
                // first word alone is a bijection of `i`), spread like a
                // fingerprint, and the same in every run.
                let w = |k: u64| splitmix64(i ^ k.wrapping_mul(0xA076_1D64_78BD_642F));
                format!("inbox.{:016x}{:016x}{:016x}{:016x}", w(0), w(1), w(2), w(3))
            }
        }
    }
}

/// The splitmix64 finaliser of `x + golden gamma`: a bijection of `u64`.
fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl TopicsArgs {
    /// One line describing the settings.
    pub fn settings(&self) -> String {
        let or_default = |v: Option<String>| v.unwrap_or_else(|| "default".into());
        format!(
            "topics={} names={:?} in_flight={} sample={} fsync={} nofile={} open_files={}",
            self.topics,
            self.names,
            self.in_flight,
            self.sample.min(self.topics),
            self.target.fsync,
            or_default(self.nofile.map(|n| n.to_string())),
            or_default(self.open_files.map(|n| n.to_string())),
        )
    }
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

/// Start a broker on `dir` (under `--nofile`, with `--open-files`) and connect to it.
async fn start(args: &TopicsArgs, dir: &Path) -> anyhow::Result<(BrokerProcess, Client)> {
    let (target, dir) = (args.target.clone(), dir.to_path_buf());
    let mut flags = vec!["--set".to_owned(), "verify_rolled=background".to_owned()];
    if let Some(n) = args.open_files {
        flags.extend(["--set".to_owned(), format!("open_files={n}")]);
    }
    let limits = Limits {
        nofile: args.nofile,
    };
    let process = tokio::task::spawn_blocking(move || {
        let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
        Target::spawn_with(&target, &dir, "127.0.0.1:0", &flags, limits)
    })
    .await
    .context("the broker start panicked")??;
    let addr = process.addr().to_string();
    let client = Client::connect(addr.clone(), ClientOptions::default())
        .await
        .with_context(|| format!("cannot connect to {addr}"))?;
    Ok((process, client))
}

/// Every topic survived a restart with its one record: asked one by one
/// (`in_flight` at a time), never as one listing of everything.
async fn check_every_topic(
    client: &Client,
    n: u64,
    in_flight: u64,
    names: Names,
) -> anyhow::Result<()> {
    each(n, in_flight, client, move |c, i| async move {
        let name = names.topic(i);
        let t = c
            .metadata(Some(&name))
            .await
            .with_context(|| format!("{name} is gone"))?;
        let hw: Vec<u64> = t
            .iter()
            .flat_map(|t| &t.partitions)
            .map(|p| p.high_watermark)
            .collect();
        anyhow::ensure!(hw == [1], "{name}: high watermarks {hw:?}, want [1]");
        Ok(())
    })
    .await?;
    Ok(())
}

/// Latencies of fetching each of `sample` topics (spread evenly over the
/// `n`) twice in a row, one request at a time so that none waits behind
/// another: the first finds the partition closed (the broker just
/// started, nothing touched it), the second open. Returns (cold, warm).
async fn cold_then_warm(
    client: &Client,
    n: u64,
    sample: u64,
    names: Names,
) -> anyhow::Result<(Vec<Duration>, Vec<Duration>)> {
    let k = sample.min(n);
    let mut cold = Vec::with_capacity(k as usize);
    let mut warm = Vec::with_capacity(k as usize);
    for j in 0..k {
        // In u128: j * n overflows u64 long before the topic counts do.
        let i = (j as u128 * n as u128 / k as u128) as u64;
        let name = names.topic(i);
        for lat in [&mut cold, &mut warm] {
            let t = Instant::now();
            let r = client
                .fetch(&name, 0, 0, 1 << 16, Duration::ZERO)
                .await
                .with_context(|| format!("fetch from {name}"))?;
            lat.push(t.elapsed());
            anyhow::ensure!(
                r.high_watermark == 1 && !r.batches.is_empty(),
                "{name}: high watermark {}, {} bytes",
                r.high_watermark,
                r.batches.len()
            );
        }
    }
    Ok((cold, warm))
}

/// Milliseconds.
fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
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

    // Durable unless the broker never fsyncs (it refuses durable acks then).
    let ack = parse_ack(None, &args.target.fsync)?;
    let t = Instant::now();
    let b = batch.clone();
    let names = args.names;
    each(n, args.in_flight, &client, move |c, i| {
        let b = b.clone();
        async move {
            let name = names.topic(i);
            c.produce(&name, 0, ack, b)
                .await
                .with_context(|| format!("produce to {name}"))?;
            Ok(())
        }
    })
    .await?;
    let create = t.elapsed();
    let files_created = process.open_files();
    let usage_created = process.usage();

    let t = Instant::now();
    let mut fetch = each(n, args.in_flight, &client, move |c, i| async move {
        let name = names.topic(i);
        let r = c
            .fetch(&name, 0, 0, 1 << 16, Duration::ZERO)
            .await
            .with_context(|| format!("fetch from {name}"))?;
        anyhow::ensure!(
            r.high_watermark == 1,
            "{name}: high watermark {}",
            r.high_watermark
        );
        Ok(())
    })
    .await?;
    let fetch_all = t.elapsed();
    let files_fetched = process.open_files();
    let usage_fetched = process.usage();
    drop(client);
    let disk = disk_bytes(dir.path());

    // A clean restart, then one after kill -9, on the same directory. The
    // cold fetches come first after each start: checking every topic opens
    // partitions.
    let status = process.terminate().context("cannot stop the broker")?;
    anyhow::ensure!(status.success(), "the broker exited with {status}");
    let (process, client) = start(args, dir.path()).await?;
    let clean = process.startup;
    let (mut cold, mut warm) = cold_then_warm(&client, n, args.sample, args.names).await?;
    check_every_topic(&client, n, args.in_flight, args.names)
        .await
        .context("after a clean restart")?;
    let usage_restarted = process.usage();
    drop(client);
    process.kill9();
    let (process, client) = start(args, dir.path()).await?;
    let crashed = process.startup;
    let (mut cold_crashed, _) = cold_then_warm(&client, n, args.sample, args.names).await?;
    check_every_topic(&client, n, args.in_flight, args.names)
        .await
        .context("after kill -9")?;
    drop(client);
    let status = process.terminate().context("cannot stop the broker")?;
    anyhow::ensure!(status.success(), "the broker exited with {status}");

    let mut r = Run::default();
    r.add("create", n as f64 / create.as_secs_f64(), "topics/s");
    r.add("fetch_all", n as f64 / fetch_all.as_secs_f64(), "fetches/s");
    r.add("fetch_p99", ms(percentile(&mut fetch, 0.99)), "ms");
    let mib = |u: Option<crate::process::Usage>| u.map(|u| u.rss_bytes as f64 / (1 << 20) as f64);
    // VmHWM: the most the broker ever held resident, a map's growth included.
    let peak =
        |u: Option<crate::process::Usage>| u.map(|u| u.peak_rss_bytes as f64 / (1 << 20) as f64);
    for (name, v, unit) in [
        ("open_files_create", files_created.map(|f| f as f64), ""),
        ("rss_create", mib(usage_created), "MiB"),
        ("open_files_fetch", files_fetched.map(|f| f as f64), ""),
        ("rss_fetch", mib(usage_fetched), "MiB"),
        ("rss_peak", peak(usage_fetched), "MiB"),
        ("rss_restart", mib(usage_restarted), "MiB"),
        ("rss_restart_peak", peak(usage_restarted), "MiB"),
    ] {
        if let Some(v) = v {
            r.add(name, v, unit);
        }
    }
    r.add("disk_per_topic", disk as f64 / n as f64 / 1024.0, "KiB");
    r.add("restart_clean", clean.as_secs_f64(), "s");
    r.add("restart_kill9", crashed.as_secs_f64(), "s");
    let (cold_p99, warm_p99) = (
        ms(percentile(&mut cold, 0.99)),
        ms(percentile(&mut warm, 0.99)),
    );
    r.add("cold_fetch_p50", ms(percentile(&mut cold, 0.5)), "ms");
    r.add("cold_fetch_p99", cold_p99, "ms");
    r.add("warm_fetch_p50", ms(percentile(&mut warm, 0.5)), "ms");
    r.add("warm_fetch_p99", warm_p99, "ms");
    r.add("cold_extra_p99", cold_p99 - warm_p99, "ms");
    r.add(
        "kill9_cold_fetch_p99",
        ms(percentile(&mut cold_crashed, 0.99)),
        "ms",
    );
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_names_are_inbox_fingerprints_distinct_and_stable() {
        let a = Names::Real.topic(0);
        assert_eq!(a.len(), 70, "{a}");
        let (prefix, fp) = a.split_at(6);
        assert_eq!(prefix, "inbox.");
        assert!(
            fp.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')),
            "{a}"
        );
        assert_eq!(a, Names::Real.topic(0), "the same in every run");
        let names: std::collections::HashSet<String> =
            (0..10_000).map(|i| Names::Real.topic(i)).collect();
        assert_eq!(names.len(), 10_000);
        // Neighbours share no long prefix, as fingerprints do not.
        let common =
            |x: &str, y: &str| x.bytes().zip(y.bytes()).take_while(|(a, b)| a == b).count();
        assert!(common(&Names::Real.topic(1), &Names::Real.topic(2)) < 12);
        assert_eq!(Names::Short.topic(42), "inbox.00000042");
    }
}
