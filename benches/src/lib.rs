//! HermitMQ's load generator (`hermit bench`) and the support code of the
//! criterion micro-benchmarks in `benches/`.
//!
//! # Layout
//! - [`stress`]: the original HermitMQ scenario (producers and a consumer at once).
//! - [`catchup`]: a consumer reading a large existing log (the `sendfile` path).
//! - [`rtt`]: one unbatched producer waiting for each ack.
//! - [`latency`]: an open-loop producer at fixed offered rates (latency
//!   from each message's intended send time, the knee, the fdatasync floor).
//! - [`recovery`]: broker start-up time and memory on a large segment after `kill -9`.
//! - [`topics`]: many nearly empty topics (create rate, open files, RSS, disk, restarts).
//! - [`soak`]: thousands of good connections and hostile ones for minutes
//!   (RSS, latency over time, file-descriptor exhaustion, every ack verified).
//! - [`target`]: the broker under load (started as a child process, or external).
//! - [`process`]: a `hermit broker` child process, with its CPU time and peak memory.
//! - [`report`]: figures per run, medians, table and JSON output.
//!
//! Results go to stdout; progress to stderr (drawn only on a terminal).

pub mod catchup;
pub mod cpu;
pub mod latency;
pub mod process;
pub mod recovery;
pub mod report;
pub mod rtt;
pub mod soak;
pub mod stress;
pub mod target;
pub mod topics;

use anyhow::Context;

use report::Run;

/// `hermit bench <scenario>`.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum BenchCommand {
    /// The original scenario: 10 producers × 100,000 records of 27 bytes in
    /// batches of 100 while one consumer reads everything from the start.
    Stress(stress::StressArgs),
    /// A consumer reading a ≥ 1 GiB log from offset 0 (GB/s, broker CPU per GB).
    Catchup(catchup::CatchupArgs),
    /// One producer, unbatched, waiting for each ack (msgs/s, latency).
    Rtt(rtt::RttArgs),
    /// An open-loop producer at fixed offered rates (1,000 msgs/s upward
    /// until saturated), durable acks, one consumer tailing: ack and
    /// produce-to-consume latency from each message's intended send time,
    /// achieved vs offered rate, the knee, the fdatasync floor; `--plot`.
    Latency(latency::LatencyArgs),
    /// Broker start-up on a 5,000,000-record active segment after kill -9.
    Recovery(recovery::RecoveryArgs),
    /// Many nearly empty topics (one record each, created on demand): create
    /// rate, a fetch per topic, open files, RSS, disk per topic, restart times.
    Topics(topics::TopicsArgs),
    /// 10,000 good connections over 1,000 topics (durable produce, fetch,
    /// commit) beside hostile clients for 10 minutes: broker RSS and
    /// latency over time (PNG), file-descriptor exhaustion and recovery,
    /// every acknowledged record verified afterwards.
    Soak(soak::SoakArgs),
}

/// Run a benchmark command and print its results.
pub fn run(cmd: BenchCommand) -> anyhow::Result<()> {
    // One round trip at a time gains nothing from a second thread but the
    // cost of waking it; the other scenarios keep both cores busy.
    let runtime = match &cmd {
        BenchCommand::Rtt(_) => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build(),
        // Two threads whatever the machine: the broker needs the cores more
        // than 10,000 mostly idle clients do.
        BenchCommand::Soak(_) => tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build(),
        _ => tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build(),
    }
    .context("cannot start the async runtime")?;
    // A row per level, not a figure per run: its own report.
    if let BenchCommand::Latency(a) = &cmd {
        return latency::run(a, &runtime);
    }
    let (name, settings, target, runs) = match &cmd {
        BenchCommand::Stress(a) => ("stress", a.settings(), &a.target, a.target.runs),
        BenchCommand::Catchup(a) => ("catchup", a.settings(), &a.target, a.target.runs),
        BenchCommand::Rtt(a) => ("rtt", a.settings(), &a.target, a.target.runs),
        BenchCommand::Recovery(a) => ("recovery", a.settings(), &a.target, a.target.runs),
        BenchCommand::Topics(a) => ("topics", a.settings(), &a.target, a.target.runs),
        BenchCommand::Soak(a) => ("soak", a.settings(), &a.target, a.target.runs),
        BenchCommand::Latency(_) => unreachable!("handled above"),
    };
    let json = target.json;
    let mut results: Vec<Run> = Vec::new();
    // The recovery scenario prepares its data once and restarts on it.
    let prepared = match &cmd {
        BenchCommand::Recovery(a) => {
            anyhow::ensure!(
                a.target.broker.is_none(),
                "recovery starts its own broker; drop --broker"
            );
            anyhow::ensure!(
                !a.target.auth && !a.target.tls && a.target.identity.is_none(),
                "recovery measures start-up, not access control: drop --auth, --tls and --identity"
            );
            let dir = a.target.temp_data_dir()?;
            let prepared = recovery::prepare(a, dir.path())?;
            Some((dir, prepared))
        }
        _ => None,
    };
    for i in 0..runs.max(1) {
        eprintln!("{name}: run {} of {}", i + 1, runs.max(1));
        let r = match &cmd {
            BenchCommand::Stress(a) => runtime.block_on(stress::run_once(a, i))?,
            BenchCommand::Catchup(a) => runtime.block_on(catchup::run_once(a, i))?,
            BenchCommand::Rtt(a) => runtime.block_on(rtt::run_once(a, i))?,
            BenchCommand::Topics(a) => runtime.block_on(topics::run_once(a, i))?,
            BenchCommand::Soak(a) => runtime.block_on(soak::run_once(a, i))?,
            BenchCommand::Latency(_) => unreachable!("handled above"),
            BenchCommand::Recovery(a) => {
                let (dir, prepared) = prepared.as_ref().expect("prepared above for recovery");
                runtime.block_on(recovery::run_once(a, dir.path(), *prepared))?
            }
        };
        if !json && runs > 1 {
            eprint!(
                "{}",
                report::table(
                    &format!("{name} (run {})", i + 1),
                    &settings,
                    std::slice::from_ref(&r)
                )
            );
        }
        results.push(r);
    }
    if json {
        let v = report::json(name, serde_json::Value::String(settings), &results);
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        print!("{}", report::table(name, &settings, &results));
    }
    Ok(())
}
