//! `hermit bench soak`: the broker for a long while under many good
//! connections and hostile ones at once (issue 16).
//!
//! A `hermit broker` child on loopback (fsync = always unless `--fsync`),
//! `max_connections` just above the good and hostile connections, and an
//! RLIMIT_NOFILE with a margin a storm of connections can exhaust. Then:
//!
//! - `--connections` good clients (one `hermit_client::Client`, one TCP
//!   connection each) over `--topics` topics, each in a loop of durable
//!   produce, fetch from its own position and offset commit, pausing about
//!   `--interval` between rounds. Every request's latency goes into an
//!   HdrHistogram of its `--window`; every acknowledged batch into its
//!   topic's [`ledger::TopicLedger`] (offset ranges and a digest, not the
//!   payloads).
//! - `--hostile` raw-socket slots misbehaving all the time (see
//!   [`hostile::Kind`]: slowloris in the hello and mid-frame, 50 MiB
//!   produce heads trickled, random bytes, half-open sockets, deaf
//!   clients, closes mid-fetch); every `--burst-every` a burst of
//!   `--burst` connections past `max_connections`.
//! - At 40 % of the run, the file-descriptor storm: `--fd-burst`
//!   connections held without a hello, more than the broker's
//!   RLIMIT_NOFILE leaves room for, so its `accept` fails (EMFILE). After
//!   it, a probe measures how long until a new connection is served
//!   again, and `--fresh` new good clients must each complete a round.
//! - The broker's VmRSS and open files are sampled every second.
//!
//! Afterwards the load stops, every topic is read from the start and every
//! acknowledged record must be there with its bytes, every committed offset
//! must be the last one acknowledged (or a later one whose answer was
//! lost), and the broker's peak RSS must stay under the bound its budgets
//! give ([`rss_bound`]). Any of these failing fails the command (non-zero
//! exit, saying what) after the report, the JSON and the plot are written
//! to `--out-dir`.

pub mod good;
pub mod hostile;
pub mod ledger;
pub mod plot;
pub mod rng;
pub mod verify;
pub mod windows;

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context;
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio::time::Instant;

use crate::process::Limits;
use crate::report::Run;
use crate::target::{Target, TargetArgs};
use good::{Good, connect_all, good_loop, lock, pause, topic};
pub use rng::Rng;
use verify::{FRESH_DEADLINE, Recovered, recover, verify_commits, verify_topics};
use windows::{Op, Sample};

/// `hermit bench soak` flags.
#[derive(Debug, Clone, clap::Args)]
pub struct SoakArgs {
    #[command(flatten)]
    /// Broker and output options (the soak starts its own broker).
    pub target: TargetArgs,
    /// How long the load runs (`30s`, `10m`, `1h`; connecting the clients
    /// before and the verification after come on top).
    #[arg(long, default_value = "10m", value_parser = parse_duration)]
    pub duration: Duration,
    /// Good connections (one client each).
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub connections: u64,
    /// Topics the good connections share (connection i uses topic i mod N).
    #[arg(long, default_value_t = 1_000, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub topics: u64,
    /// Hostile connections at any time, dealt out over the eight kinds.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(0..=10_000))]
    pub hostile: u64,
    /// A good connection's pause between rounds (jittered ±50 %).
    #[arg(long, default_value = "2s", value_parser = parse_duration)]
    pub interval: Duration,
    /// Latency window.
    #[arg(long, default_value = "10s", value_parser = parse_duration)]
    pub window: Duration,
    /// Connections in each burst past `max_connections`.
    #[arg(long, default_value_t = 500, value_parser = clap::value_parser!(u64).range(0..=50_000))]
    pub burst: u64,
    /// Time between bursts.
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    pub burst_every: Duration,
    /// Connections of the file-descriptor storm (0: no storm).
    #[arg(long, default_value_t = 2_000, value_parser = clap::value_parser!(u64).range(0..=50_000))]
    pub fd_burst: u64,
    /// Good clients connected after the storm, each of which must complete
    /// a produce, a fetch and a commit.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub fresh: u64,
    /// The broker's `open_files` (segment and slab files partitions keep
    /// open; beyond it idle partitions are closed and reopened on use).
    #[arg(long, default_value_t = 768, value_name = "N", value_parser = clap::value_parser!(u32).range(16..))]
    pub open_files: u32,
    /// The broker's `max_connections` [default: good + hostile + 64].
    #[arg(long, value_name = "N")]
    pub max_connections: Option<u64>,
    /// The broker's RLIMIT_NOFILE, soft and hard [default: what
    /// max_connections and open_files need (the broker's own rule) + 1024,
    /// which the storm exhausts].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(64..))]
    pub nofile: Option<u64>,
    /// Fail when the broker's peak RSS exceeds this [default: the bound
    /// its budgets give, see docs/BENCHMARKS.md].
    #[arg(long, value_name = "MIB")]
    pub rss_bound_mib: Option<u64>,
    /// Where the JSON report and the PNG plot go.
    #[arg(long, default_value = "soak-out", value_name = "DIR")]
    pub out_dir: PathBuf,
    /// TrueType font for the plot's text [default: DejaVu Sans where installed].
    #[arg(long, value_name = "FILE")]
    pub font: Option<PathBuf>,
}

/// Parse `500ms`, `30s`, `10m`, `1h` (a bare number is seconds).
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let n: u64 = num
        .parse()
        .map_err(|_| format!("{s:?}: expected a number and a unit (500ms, 30s, 10m, 1h)"))?;
    let ms = match unit {
        "ms" => Some(n),
        "" | "s" => n.checked_mul(1000),
        "m" => n.checked_mul(60_000),
        "h" => n.checked_mul(3_600_000),
        _ => return Err(format!("{s:?}: unknown unit {unit:?} (ms, s, m or h)")),
    };
    ms.map(Duration::from_millis)
        .ok_or_else(|| format!("{s:?} is too long"))
}

fn secs(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
    }
}

impl SoakArgs {
    /// One line describing the settings.
    pub fn settings(&self) -> String {
        format!(
            "duration={} connections={} topics={} hostile={} interval={} window={} burst={} every {} fd_burst={} fresh={} open_files={} max_connections={} nofile={} fsync={}",
            secs(self.duration),
            self.connections,
            self.topics,
            self.hostile,
            secs(self.interval),
            secs(self.window),
            self.burst,
            secs(self.burst_every),
            self.fd_burst,
            self.fresh,
            self.open_files,
            self.max_connections(),
            self.broker_nofile(),
            self.target.fsync,
        )
    }

    /// The broker's `max_connections`.
    pub fn max_connections(&self) -> u64 {
        self.max_connections
            .unwrap_or(self.connections + self.hostile + 64)
    }

    /// The broker's RLIMIT_NOFILE.
    pub fn broker_nofile(&self) -> u64 {
        self.nofile.unwrap_or_else(|| {
            broker_need(self.max_connections(), self.open_files) + NOFILE_HEADROOM
        })
    }

    /// When the storm starts and how long it lasts (from the load's start).
    fn storm_window(&self) -> Option<(Duration, Duration)> {
        (self.fd_burst > 0).then(|| {
            let len = (self.duration / 20).clamp(Duration::from_secs(5), Duration::from_secs(30));
            (self.duration.mul_f64(0.4), len)
        })
    }
}

/// Descriptors the broker keeps beyond its connections and `open_files`
/// (the broker's own NOFILE_MARGIN: listeners, data directory, catalog).
const BROKER_NOFILE_MARGIN: u64 = 64;
/// What the default RLIMIT_NOFILE leaves beyond the broker's need: bursts
/// past `max_connections` fit in it, the storm does not.
const NOFILE_HEADROOM: u64 = 1024;

/// What the broker itself computes it needs: `max_connections +
/// open_files + 64`.
fn broker_need(max_connections: u64, open_files: u32) -> u64 {
    max_connections + u64::from(open_files) + BROKER_NOFILE_MARGIN
}

/// Per connection, what the broker holds while it serves a good client: its
/// read buffer (64 KiB, touched end to end as frames pass through it), the
/// connection's state and task, a few small responses.
pub const CONNECTION_BYTES: u64 = 96 << 10;
/// Beyond the budgets: allocator slack, the partitions' state, the thread
/// stacks, the log lines of a broker that refuses thousands of connections.
pub const RSS_SLACK_BYTES: u64 = 128 << 20;

/// The RSS the broker must stay under: what it had before the load, plus
/// [`CONNECTION_BYTES`] for each of `max_connections`, plus the receive
/// budget (`receive_budget_bytes`: frames being received, the 50 MiB heads
/// included), plus [`RSS_SLACK_BYTES`].
pub fn rss_bound(idle_rss: u64, max_connections: u64, receive_budget: u64) -> u64 {
    idle_rss + max_connections * CONNECTION_BYTES + receive_budget + RSS_SLACK_BYTES
}

/// Raise this process's RLIMIT_NOFILE to its hard limit and check it covers `need`.
fn raise_own_nofile(need: u64) -> anyhow::Result<u64> {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    let limit = getrlimit(Resource::Nofile);
    let hard = limit.maximum;
    if let Some(h) = hard {
        anyhow::ensure!(
            h >= need,
            "this process may open at most {h} files (hard RLIMIT_NOFILE) and the soak needs {need} \
             (good + hostile + burst + storm connections): raise it (ulimit -Hn, as root) or lower \
             --connections, --burst or --fd-burst"
        );
    }
    let soft = hard.unwrap_or(need).max(need);
    if limit.current.is_none_or(|c| c < soft) {
        setrlimit(
            Resource::Nofile,
            Rlimit {
                current: Some(soft),
                maximum: hard,
            },
        )
        .with_context(|| format!("cannot raise RLIMIT_NOFILE to {soft}"))?;
    }
    Ok(soft)
}

/// The broker's samples, taken every second until stopped.
async fn sample(
    pid: u32,
    t0: Instant,
    out: Arc<Mutex<Vec<Sample>>>,
    mut stop: watch::Receiver<bool>,
) {
    loop {
        let t_s = t0.elapsed().as_secs_f64();
        if let Some(u) = crate::process::usage(pid) {
            let open_files = crate::process::open_files(pid).unwrap_or(0);
            lock(&out).push(Sample {
                t_s,
                rss_bytes: u.rss_bytes,
                open_files,
            });
        }
        if pause(Duration::from_secs(1), &mut stop).await {
            return;
        }
    }
}

/// The storm and what followed it.
#[derive(Debug, Clone)]
struct Recovery {
    /// When it started and ended, from the load's start.
    at: Duration,
    ended: Duration,
    /// The recovery after it.
    r: Recovered,
}

/// Run the soak once.
pub async fn run_once(args: &SoakArgs, _run: usize) -> anyhow::Result<Run> {
    anyhow::ensure!(
        args.target.broker.is_none(),
        "soak starts its own broker (it sets its limits and samples its memory); drop --broker"
    );
    anyhow::ensure!(
        !args.target.auth && !args.target.tls && args.target.identity.is_none(),
        "soak runs anonymous plain TCP: drop --auth, --tls and --identity"
    );
    let max_connections = args.max_connections();
    let nofile = args.broker_nofile();
    let own_need = args.connections + args.hostile + args.burst + args.fd_burst + args.fresh + 256;
    let own_nofile = raise_own_nofile(own_need)?;
    std::fs::create_dir_all(&args.out_dir)
        .with_context(|| format!("cannot create {}", args.out_dir.display()))?;
    let font = match plot::load_font(args.font.as_deref()) {
        Ok(p) => Some(p),
        Err(e) => {
            eprintln!("soak: no plot: {e:#}");
            None
        }
    };

    let dir = args.target.temp_data_dir()?;
    let flags = [
        "--set".to_owned(),
        format!("max_connections={max_connections}"),
        "--set".to_owned(),
        // Above max_connections: the bursts meet the broker's connection
        // limit, not the per-address one (every client here is 127.0.0.1).
        format!("max_connections_per_address={}", 2 * max_connections),
        "--set".to_owned(),
        format!("open_files={}", args.open_files),
    ];
    let (target, data) = (args.target.clone(), dir.path().to_path_buf());
    let limits = Limits {
        nofile: Some(nofile),
    };
    let process = tokio::task::spawn_blocking(move || {
        let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
        Target::spawn_with(&target, &data, "127.0.0.1:0", &flags, limits)
    })
    .await
    .context("the broker start panicked")??;
    let pid = process.pid();
    let sock = process.addr();
    let addr = sock.to_string();
    let idle_rss = process.usage().map_or(0, |u| u.rss_bytes);
    let config = hermit_broker::config::Config::default();
    let bound = args.rss_bound_mib.map_or_else(
        || rss_bound(idle_rss, max_connections, config.receive_budget_bytes),
        |m| m << 20,
    );
    eprintln!(
        "soak: broker pid {pid} on {addr}, max_connections {max_connections}, RLIMIT_NOFILE {nofile} \
         (this process: {own_nofile}); RSS bound {} MiB",
        bound >> 20
    );

    // Samples start now (the connect phase shows as negative time).
    let (stop_tx, stop_rx) = watch::channel(false);
    let connect_started = Instant::now();
    let samples = Arc::new(Mutex::new(Vec::new()));
    let sampler = {
        let (samples, stop) = (samples.clone(), stop_rx.clone());
        // Sampled against the connect start; shifted to the load's start below.
        tokio::spawn(sample(pid, connect_started, samples, stop))
    };
    eprintln!("soak: connecting {} good clients", args.connections);
    let clients = connect_all(&addr, args.connections, 256).await?;
    let t0 = Instant::now();
    let connect_time = t0 - connect_started;
    eprintln!(
        "soak: {} connected in {:.1} s; load for {} s",
        clients.len(),
        connect_time.as_secs_f64(),
        args.duration.as_secs()
    );

    let good = Arc::new(Good::new(
        t0,
        args.window,
        args.topics,
        args.connections + args.fresh,
    ));
    let mut good_tasks = JoinSet::new();
    for (i, c) in clients.into_iter().enumerate() {
        let i = i as u64;
        good_tasks.spawn(good_loop(
            good.clone(),
            c,
            i,
            i % args.topics,
            args.interval,
            stop_rx.clone(),
        ));
    }

    // Hostile slots, all the time.
    let ctx = hostile::Ctx {
        addr: sock,
        full_topic: topic(0),
        handshake: Duration::from_millis(config.handshake_timeout_ms),
        stop: stop_rx.clone(),
    };
    let kind_stats: Vec<Arc<hostile::Stats>> =
        hostile::KINDS.iter().map(|_| Arc::default()).collect();
    let mut hostile_tasks = JoinSet::new();
    for s in 0..args.hostile {
        let k = (s % hostile::KINDS.len() as u64) as usize;
        hostile_tasks.spawn(hostile::slot(
            hostile::KINDS[k],
            ctx.clone(),
            kind_stats[k].clone(),
            0x5eed ^ s,
        ));
    }

    // Bursts past the connection limit (not around the storm, whose own
    // refusals would be counted as theirs).
    let storm_at = args.storm_window();
    let bursts = Arc::new(Mutex::new(Vec::<(f64, hostile::Burst)>::new()));
    let burst_task = {
        let (bursts, mut stop) = (bursts.clone(), stop_rx.clone());
        let (n, every, duration) = (args.burst, args.burst_every, args.duration);
        tokio::spawn(async move {
            if n == 0 || every.is_zero() {
                return;
            }
            let mut at = every / 2;
            while at < duration {
                let wait = (t0 + at).saturating_duration_since(Instant::now());
                if pause(wait, &mut stop).await {
                    return;
                }
                let near_storm = storm_at.is_some_and(|(s, len)| {
                    at + every / 2 > s && at < s + len + Duration::from_secs(15)
                });
                if !near_storm {
                    let b = hostile::burst(sock, n).await;
                    lock(&bursts).push((at.as_secs_f64(), b));
                }
                at += every;
            }
        })
    };

    // The storm, then the recovery probe and the fresh clients.
    let storm_stats = Arc::new(hostile::Storm::default());
    let storm_task = {
        let (storm_stats, good, addr, mut stop) = (
            storm_stats.clone(),
            good.clone(),
            addr.clone(),
            stop_rx.clone(),
        );
        let (slots, topics, fresh, base) =
            (args.fd_burst, args.topics, args.fresh, args.connections);
        tokio::spawn(async move {
            let (at, len) = storm_at?;
            if pause(
                (t0 + at).saturating_duration_since(Instant::now()),
                &mut stop,
            )
            .await
            {
                return None;
            }
            eprintln!(
                "soak: file-descriptor storm: {slots} connections for {} s",
                len.as_secs()
            );
            hostile::storm(sock, slots, t0 + at + len, storm_stats).await;
            let ended = t0.elapsed();
            let r = recover(&addr, &good, topics, base, fresh).await;
            eprintln!(
                "soak: storm over; a new connection was served after {:?}; \
                 {} of {fresh} fresh clients completed a round (the last after {:?})",
                r.recovered, r.fresh_ok, r.fresh_done
            );
            Some(Recovery { at, ended, r })
        })
    };

    // The load runs; progress now and then.
    let end = t0 + args.duration;
    while Instant::now() < end {
        let step = end
            .saturating_duration_since(Instant::now())
            .min(Duration::from_secs(30));
        tokio::time::sleep(step).await;
        let last = lock(&samples).last().copied();
        let s = lock(&good.windows).summaries();
        if let (Some(last), Some(w)) = (last, s.iter().rev().nth(1).or(s.last())) {
            eprintln!(
                "soak: {:>5.0} s  rss {:>6.1} MiB  files {:>6}  p50 {:>7.2} ms  p99 {:>8.2} ms  errors {}",
                t0.elapsed().as_secs_f64(),
                last.rss_bytes as f64 / (1 << 20) as f64,
                last.open_files,
                w.p50_ms,
                w.p99_ms,
                w.errors
            );
        }
    }
    // The storm's recovery may still be under way (a short run): let it finish.
    let storm = storm_task.await.context("the storm task panicked")?;
    let load_end = t0.elapsed();
    stop_tx.send_replace(true);
    eprintln!("soak: stopping the load");
    while let Some(r) = good_tasks.join_next().await {
        r.context("a good client panicked")?;
    }
    while let Some(r) = hostile_tasks.join_next().await {
        r.context("a hostile slot panicked")?;
    }
    burst_task.await.context("the burst task panicked")?;
    let peak_rss = process.usage().map_or(0, |u| u.peak_rss_bytes);
    sampler.await.context("the sampler panicked")?;

    eprintln!("soak: verifying every topic and commit");
    let verify_started = Instant::now();
    let (verified, mut problems) = verify_topics(&addr, &good, args.topics).await?;
    let (commits_checked, commit_problems) = verify_commits(&addr, &good, args.topics).await?;
    problems.extend(commit_problems);
    let verify_time = verify_started.elapsed();
    let warnings = process.warnings();
    // What the broker logged (its first 10,000 lines, then warnings and
    // errors only), for whoever reads a failure.
    let log_path = args.out_dir.join("broker.log");
    std::fs::write(&log_path, process.stderr().join("\n"))
        .with_context(|| format!("cannot write {}", log_path.display()))?;
    let accept_failures = warnings
        .iter()
        .filter(|l| l.contains("accept failed"))
        .count();
    let limit_refusals = warnings
        .iter()
        .filter(|l| l.contains("connection limit reached"))
        .count();
    let exit = process.terminate().context("cannot stop the broker")?;
    drop(dir);

    // Figures.
    let shift = connect_time.as_secs_f64();
    let samples: Vec<Sample> = lock(&samples)
        .iter()
        .map(|s| Sample {
            t_s: s.t_s - shift,
            ..*s
        })
        .collect();
    let windows = lock(&good.windows);
    let summaries = windows.summaries();
    let total = windows.total();
    let all = total.all();
    let max_open = samples.iter().map(|s| s.open_files).max().unwrap_or(0);
    let max_rss = samples
        .iter()
        .map(|s| s.rss_bytes)
        .max()
        .unwrap_or(0)
        .max(peak_rss);
    let worst_p99 = summaries
        .iter()
        .map(|s| s.p99_ms)
        .filter(|v| v.is_finite())
        .fold(0.0, f64::max);
    let bursts = lock(&bursts).clone();
    let burst_sum = bursts
        .iter()
        .fold(hostile::Burst::default(), |a, (_, b)| hostile::Burst {
            accepted: a.accepted + b.accepted,
            refused: a.refused + b.refused,
            failed: a.failed + b.failed,
        });
    let kinds: Vec<[u64; 5]> = kind_stats.iter().map(|s| s.snapshot()).collect();
    let storm_n = [
        &storm_stats.attempts,
        &storm_stats.connected,
        &storm_stats.failed,
        &storm_stats.closed_by_broker,
    ]
    .map(|c| c.load(Ordering::Relaxed));
    let hostile_made: u64 = kinds.iter().map(|k| k[0]).sum::<u64>()
        + burst_sum.accepted
        + burst_sum.refused
        + storm_n[1];
    let ms = |us: u64| us as f64 / 1000.0;
    let mib = |b: u64| b as f64 / (1 << 20) as f64;

    let mut r = Run::default();
    r.add("connect_time", connect_time.as_secs_f64(), "s");
    r.add("load_time", load_end.as_secs_f64(), "s");
    r.add("good_requests", all.len() as f64, "");
    r.add(
        "good_errors",
        good.error_count
            .iter()
            .map(|e| e.load(Ordering::Relaxed))
            .sum::<u64>() as f64,
        "",
    );
    r.add(
        "records_acked",
        good.records_acked.load(Ordering::Relaxed) as f64,
        "",
    );
    r.add("records_verified", verified as f64, "");
    r.add("commits_verified", commits_checked as f64, "");
    r.add("p50", ms(all.value_at_quantile(0.5)), "ms");
    r.add("p99", ms(all.value_at_quantile(0.99)), "ms");
    r.add("p999", ms(all.value_at_quantile(0.999)), "ms");
    r.add("worst_window_p99", worst_p99, "ms");
    for (op, name) in [
        (Op::Produce, "produce_p99"),
        (Op::Fetch, "fetch_p99"),
        (Op::Commit, "commit_p99"),
    ] {
        r.add(name, ms(total.of(op).value_at_quantile(0.99)), "ms");
    }
    r.add("rss_idle", mib(idle_rss), "MiB");
    r.add("rss_max", mib(max_rss), "MiB");
    r.add("rss_bound", mib(bound), "MiB");
    r.add("open_files_max", max_open as f64, "");
    r.add("nofile", nofile as f64, "");
    r.add("hostile_connections", hostile_made as f64, "");
    for (k, n) in hostile::KINDS.iter().zip(&kinds) {
        r.add(k.figure(), n[0] as f64, "");
    }
    r.add("burst_refused", burst_sum.refused as f64, "");
    r.add("burst_accepted", burst_sum.accepted as f64, "");
    r.add("storm_connects", storm_n[1] as f64, "");
    r.add("accept_failures", accept_failures as f64, "log lines");
    r.add("limit_refusals", limit_refusals as f64, "log lines");
    let mut failures: Vec<String> = lock(&good.fatal).clone();
    if let Some(rec) = &storm {
        let s = |d: Option<Duration>| d.map_or(f64::NAN, |d| d.as_secs_f64());
        r.add("fd_recovery", s(rec.r.recovered), "s");
        r.add("fresh_ok", rec.r.fresh_ok as f64, "");
        r.add("fresh_done", s(rec.r.fresh_done), "s");
        if rec.r.recovered.is_none() {
            failures.push(format!(
                "no new connection was served within {} s of the storm",
                FRESH_DEADLINE.as_secs()
            ));
        }
        if rec.r.recovered.is_none() || rec.r.fresh_ok < args.fresh {
            failures.extend(rec.r.errors.iter().map(|e| format!("after the storm: {e}")));
        }
        if rec.r.fresh_ok < args.fresh {
            failures.push(format!(
                "within {} s of the storm only {} of {} fresh clients completed a produce, fetch and commit",
                FRESH_DEADLINE.as_secs(),
                rec.r.fresh_ok,
                args.fresh
            ));
        }
    }
    r.add("verify_time", verify_time.as_secs_f64(), "s");
    failures.extend(problems.iter().take(50).cloned());
    if max_rss > bound {
        failures.push(format!(
            "the broker's RSS reached {:.1} MiB, above the bound of {:.1} MiB",
            mib(max_rss),
            mib(bound)
        ));
    }
    if !exit.success() {
        failures.push(format!("the broker exited with {exit}"));
    }

    // The report files.
    let json = serde_json::json!({
        "settings": args.settings(),
        "figures": r.figures.iter().map(|f| (f.name.to_owned(), serde_json::json!(f.value))).collect::<serde_json::Map<_, _>>(),
        "failures": failures,
        "first_errors": *lock(&good.errors),
        "hostile": hostile::KINDS.iter().zip(&kinds).map(|(k, n)| serde_json::json!({
            "kind": k.name(), "connections": n[0], "connect_failed": n[1],
            "closed_by_broker": n[2], "closed_by_us": n[3], "max_life_ms": n[4],
        })).collect::<Vec<_>>(),
        "bursts": bursts.iter().map(|(t, b)| serde_json::json!({
            "t_s": t, "accepted": b.accepted, "refused": b.refused, "failed": b.failed,
        })).collect::<Vec<_>>(),
        "storm": storm.as_ref().map(|rec| serde_json::json!({
            "start_s": rec.at.as_secs_f64(), "end_s": rec.ended.as_secs_f64(),
            "recovery_s": rec.r.recovered.map(|d| d.as_secs_f64()), "fresh_ok": rec.r.fresh_ok,
            "fresh_done_s": rec.r.fresh_done.map(|d| d.as_secs_f64()),
            "errors": rec.r.errors,
            "attempts": storm_n[0], "connected": storm_n[1], "failed": storm_n[2], "closed_by_broker": storm_n[3],
        })),
        "windows": summaries.iter().map(|s| serde_json::json!({
            "start_s": s.start_s, "ok": s.ok, "errors": s.errors,
            "p50_ms": finite(s.p50_ms), "p99_ms": finite(s.p99_ms),
            "p99_produce_ms": finite(s.p99_op_ms[0]), "p99_fetch_ms": finite(s.p99_op_ms[1]), "p99_commit_ms": finite(s.p99_op_ms[2]),
        })).collect::<Vec<_>>(),
        "samples": samples.iter().map(|s| serde_json::json!([s.t_s, s.rss_bytes, s.open_files])).collect::<Vec<_>>(),
    });
    let json_path = args.out_dir.join("soak.json");
    std::fs::write(&json_path, serde_json::to_string_pretty(&json)?)
        .with_context(|| format!("cannot write {}", json_path.display()))?;
    if font.is_some() {
        let png = args.out_dir.join("soak.png");
        let data = plot::PlotData {
            title: format!(
                "hermit bench soak: {} good connections, {} topics, {} hostile slots, {} s",
                args.connections,
                args.topics,
                args.hostile,
                args.duration.as_secs()
            ),
            samples: &samples,
            windows: &summaries,
            window_s: windows.width().as_secs_f64(),
            rss_bound: bound,
            nofile,
            storm: storm
                .as_ref()
                .map(|rec| (rec.at.as_secs_f64(), rec.ended.as_secs_f64())),
            bursts: &bursts.iter().map(|(t, _)| *t).collect::<Vec<_>>(),
            end_s: load_end.as_secs_f64(),
        };
        plot::draw(&png, &data)?;
        eprintln!("soak: wrote {} and {}", json_path.display(), png.display());
    } else {
        eprintln!("soak: wrote {}", json_path.display());
    }
    if !failures.is_empty() {
        let errors = lock(&good.errors).clone();
        eprint!(
            "{}",
            crate::report::table("soak", &args.settings(), std::slice::from_ref(&r))
        );
        anyhow::bail!(
            "the soak failed:\n  {}\nfirst request errors:\n  {}",
            failures.join("\n  "),
            errors.join("\n  ")
        );
    }
    Ok(r)
}

fn finite(v: f64) -> serde_json::Value {
    serde_json::Number::from_f64(v).map_or(serde_json::Value::Null, serde_json::Value::Number)
}

#[cfg(test)]
mod tests;
