//! `hermit bench recovery`: how long the broker takes to start, and how
//! much memory, on a large active segment left by `kill -9` — the whole
//! segment is walked and CRC-checked before the broker listens.

use anyhow::Context;
use hermit_broker::config::Config;
use hermit_broker::log::{Log, LogOptions};
use hermit_protocol::record::BatchBuilder;

use crate::report::Run;
use crate::target::{Target, TargetArgs, progress};

/// `hermit bench recovery` flags.
#[derive(Debug, Clone, clap::Args)]
pub struct RecoveryArgs {
    #[command(flatten)]
    /// Broker and output options (only the started broker makes sense here).
    pub target: TargetArgs,
    /// Records in the active segment.
    #[arg(long, default_value_t = 5_000_000)]
    pub records: u64,
    /// Record size.
    #[arg(long, default_value_t = 27)]
    pub size: usize,
    /// Records per batch (1: one batch per record, as the original wrote them).
    #[arg(long, default_value_t = 1)]
    pub batch: u32,
}

impl RecoveryArgs {
    /// One line describing the settings.
    pub fn settings(&self) -> String {
        format!(
            "records={} size={} batch={}",
            self.records, self.size, self.batch
        )
    }
}

/// Build the data directory once: one topic whose single (active) segment
/// holds `records` records, written by the storage engine directly, then
/// left without a clean shutdown.
pub fn prepare(args: &RecoveryArgs, dir: &std::path::Path) -> anyhow::Result<u64> {
    let opts = LogOptions {
        segment_bytes: 2 << 30,
        ..LogOptions::from_config(&Config {
            fsync: hermit_broker::config::FsyncPolicy::Never,
            ..Config::default()
        })
    };
    let log = Log::open(dir, opts).context("cannot open the log")?;
    let p = log.partition("recovery", 0, true)?;
    let record = vec![0x61u8; args.size];
    let batches = args.records.div_ceil(u64::from(args.batch));
    let bar = progress(batches, "writing");
    let mut b = BatchBuilder::new(b"");
    for _ in 0..args.batch {
        b.push(&record);
    }
    let batch = b.finish(1_700_000_000_000_000_000)?;
    for i in 0..batches {
        p.append(&batch)?;
        if i.is_multiple_of(65536) {
            bar.set_position(i);
        }
    }
    bar.finish_and_clear();
    anyhow::ensure!(
        p.segment_count() == 1,
        "the log rolled; raise segment_bytes"
    );
    let size = p.size_bytes();
    // No close(): what is on disk is what a killed broker leaves.
    drop(p);
    drop(log);
    Ok(size)
}

/// One start on the prepared directory: spawn, wait until it listens, read
/// its memory, `kill -9` it.
pub fn run_once(
    args: &RecoveryArgs,
    dir: &std::path::Path,
    segment_bytes: u64,
) -> anyhow::Result<Run> {
    let process = Target::spawn(
        &args.target,
        dir,
        "127.0.0.1:0",
        &["--set", "verify_sealed=background"],
    )?;
    let startup = process.startup;
    let usage = process.usage();
    // The broker logs how long opening (recovering) the log took.
    let recovery_ms = process.stderr().iter().find_map(|l| {
        l.split("elapsed_ms=")
            .nth(1)?
            .split_whitespace()
            .next()?
            .parse::<f64>()
            .ok()
    });
    process.kill9();
    let mut r = Run::default();
    r.add("segment", segment_bytes as f64 / 1e6, "MB");
    r.add("startup", startup.as_secs_f64(), "s");
    if let Some(ms) = recovery_ms {
        r.add("log_open", ms / 1000.0, "s");
    }
    if let Some(u) = usage {
        r.add(
            "peak_rss",
            u.peak_rss_bytes as f64 / (1 << 20) as f64,
            "MiB",
        );
    }
    Ok(r)
}
