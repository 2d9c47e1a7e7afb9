//! `hermit bench recovery`: how long the broker takes to start, and how
//! much memory, on a large active segment left by `kill -9` — the whole
//! segment is walked and CRC-checked before the broker listens.

use anyhow::Context;
use hermit_broker::config::Config;
use hermit_broker::log::{Log, LogOptions};
use hermit_client::{Client, ClientOptions};
use hermit_protocol::frame::DEFAULT_MAX_PAYLOAD;
use hermit_protocol::record::BatchBuilder;

use crate::report::Run;
use crate::target::{MAX_RECORD_SIZE, Target, TargetArgs, progress, usize_in};

/// The topic the prepared data directory holds (one partition).
const TOPIC: &str = "recovery";

/// Capacity of the one segment: the log must not roll.
const SEGMENT_BYTES: u64 = 2 << 30;

/// `hermit bench recovery` flags.
#[derive(Debug, Clone, clap::Args)]
pub struct RecoveryArgs {
    #[command(flatten)]
    /// Broker and output options (only the started broker makes sense here).
    pub target: TargetArgs,
    /// Records in the active segment.
    #[arg(long, default_value_t = 5_000_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub records: u64,
    /// Record size (at most 32 MiB).
    #[arg(long, default_value_t = 27, value_parser = usize_in(..=MAX_RECORD_SIZE))]
    pub size: usize,
    /// Records per batch (1: one batch per record, as the original wrote them).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
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

/// What [`prepare`] left on disk.
#[derive(Debug, Clone, Copy)]
pub struct Prepared {
    /// Bytes of the active segment.
    pub segment_bytes: u64,
    /// Records in it.
    pub records: u64,
}

/// Build the data directory once: one topic whose single (active) segment
/// holds `records` records, written by the storage engine directly, synced,
/// then left without a clean shutdown.
pub fn prepare(args: &RecoveryArgs, dir: &std::path::Path) -> anyhow::Result<Prepared> {
    anyhow::ensure!(args.batch >= 1 && args.records >= 1, "nothing to write");
    // Every record takes a 4-byte length prefix in its batch.
    let batch_payload = (args.size as u64 + 4) * u64::from(args.batch);
    anyhow::ensure!(
        batch_payload <= u64::from(DEFAULT_MAX_PAYLOAD),
        "--batch × --size is over the broker's {} MiB batch limit",
        DEFAULT_MAX_PAYLOAD >> 20
    );
    let build = |count: u64| -> anyhow::Result<Vec<u8>> {
        let record = vec![0x61u8; args.size];
        let mut b = BatchBuilder::new(b"");
        for _ in 0..count {
            b.push(&record);
        }
        Ok(b.finish(1_700_000_000_000_000_000)?)
    };
    let full = args.records / u64::from(args.batch);
    let rest = args.records % u64::from(args.batch);
    let batch = build(u64::from(args.batch))?;
    let last = if rest > 0 { Some(build(rest)?) } else { None };
    let expected = full
        .checked_mul(batch.len() as u64)
        .and_then(|b| b.checked_add(last.as_ref().map_or(0, |l| l.len() as u64)));
    anyhow::ensure!(
        expected.is_some_and(|b| b <= SEGMENT_BYTES),
        "--records × --size do not fit in one {} GiB segment",
        SEGMENT_BYTES >> 30
    );

    let opts = LogOptions {
        segment_bytes: SEGMENT_BYTES,
        ..Config {
            fsync: hermit_broker::config::FsyncPolicy::Never,
            ..Config::default()
        }
        .log_options()
    };
    let log = Log::open(dir, opts).context("cannot open the log")?;
    let p = log.partition(TOPIC, 0, true)?;
    let bar = progress(full, "writing");
    for i in 0..full {
        p.append(&batch)?;
        if i.is_multiple_of(65536) {
            bar.set_position(i);
        }
    }
    if let Some(last) = &last {
        p.append(last)?;
    }
    bar.finish_and_clear();
    anyhow::ensure!(
        p.segment_count() == 1,
        "the log rolled; raise segment_bytes"
    );
    let size = p.size_bytes();
    // fsync the segment, so that no run's broker pays for writing back
    // what this one left dirty; still no close of the log (no clean
    // shutdown): what is on disk is what a killed broker leaves.
    p.sync().context("cannot fsync the prepared segment")?;
    drop(p);
    drop(log);
    Ok(Prepared {
        segment_bytes: size,
        records: args.records,
    })
}

/// One start on the prepared directory: spawn, wait until it listens, read
/// its memory, check that every record was recovered, `kill -9` it.
pub async fn run_once(
    args: &RecoveryArgs,
    dir: &std::path::Path,
    prepared: Prepared,
) -> anyhow::Result<Run> {
    let (target, dir_owned) = (args.target.clone(), dir.to_path_buf());
    let process = tokio::task::spawn_blocking(move || {
        Target::spawn(
            &target,
            &dir_owned,
            "127.0.0.1:0",
            &["--set", "verify_rolled=background"],
        )
    })
    .await
    .context("the broker start panicked")??;
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

    // Not measured: every record written must have been recovered.
    let addr = process.addr().to_string();
    let client = Client::connect(addr.clone(), ClientOptions::default())
        .await
        .with_context(|| format!("cannot connect to {addr}"))?;
    let recovered = client
        .metadata(Some(TOPIC))
        .await
        .context("cannot read the recovered topic's metadata")?
        .into_iter()
        .find(|t| t.name == TOPIC)
        .and_then(|t| t.partitions.into_iter().find(|p| p.partition == 0))
        .map(|p| p.high_watermark.saturating_sub(p.log_start));
    drop(client);
    if recovered != Some(prepared.records) {
        let warnings: Vec<String> = process
            .stderr()
            .into_iter()
            .filter(|l| l.contains("WARN") || l.contains("ERROR"))
            .collect();
        anyhow::bail!(
            "the broker recovered {} records of the {} written{}",
            recovered.map_or_else(|| "no".into(), |n| n.to_string()),
            prepared.records,
            if warnings.is_empty() {
                String::new()
            } else {
                format!("; it logged:\n{}", warnings.join("\n"))
            }
        );
    }
    process.kill9();

    let mut r = Run::default();
    r.add("segment", prepared.segment_bytes as f64 / 1e6, "MB");
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
