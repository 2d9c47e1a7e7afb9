//! `hermit bench catchup`: a consumer reads an existing large log from
//! offset 0 as fast as it can. This is the broker's `sendfile` path: the
//! figures are GB/s and broker CPU seconds per GB.

use std::time::{Duration, Instant};

use anyhow::Context;
use hermit_client::{Client, Producer, ProducerOptions, TopicSettings};

use crate::report::Run;
use crate::target::{MAX_RECORD_SIZE, Target, TargetArgs, parse_ack, progress, usize_in};

/// `hermit bench catchup` flags.
#[derive(Debug, Clone, clap::Args)]
pub struct CatchupArgs {
    #[command(flatten)]
    /// Broker and output options.
    pub target: TargetArgs,
    /// Size of the log to read, in GiB (more than 0, at most 1024).
    #[arg(long, default_value_t = 1.0, value_parser = parse_gib)]
    pub gib: f64,
    /// Record size in bytes (1 to 32 MiB).
    #[arg(long, default_value_t = 4096, value_parser = usize_in(1..=MAX_RECORD_SIZE))]
    pub size: usize,
    /// Records per batch.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..))]
    pub batch: u32,
    /// Bytes asked for per fetch.
    #[arg(long, default_value_t = 16 << 20, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_bytes: u32,
}

fn parse_gib(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(g) if g > 0.0 && g <= 1024.0 => Ok(g),
        Ok(_) => Err("expected more than 0 and at most 1024".into()),
        Err(e) => Err(e.to_string()),
    }
}

impl CatchupArgs {
    /// One line describing the settings.
    pub fn settings(&self) -> String {
        format!(
            "log={} GiB size={} batch={} max_bytes={} fsync={} broker={}",
            self.gib,
            self.size,
            self.batch,
            self.max_bytes,
            self.target.fsync,
            self.target.broker_label()
        )
    }
}

/// Run the scenario once against a fresh broker.
pub async fn run_once(args: &CatchupArgs, run: usize) -> anyhow::Result<Run> {
    let target = Target::start(&args.target, &[])?;
    let addr = target.addr();
    let client = Client::connect(addr.clone(), target.client_options())
        .await
        .with_context(|| format!("cannot connect to {addr}"))?;
    let topic = format!("catchup-{run}-{}", std::process::id());
    client
        .create_topic(
            &topic,
            TopicSettings {
                partitions: 1,
                cleanup: hermit_client::Cleanup::Delete,
                retention_ms: u64::MAX,
                retention_bytes: u64::MAX,
            },
        )
        .await
        .context("cannot create the topic")?;
    // Load the log (not measured).
    let want = (args.gib * (1u64 << 30) as f64) as u64;
    let records = want / args.size as u64 + 1;
    let ack = parse_ack(None, &args.target.fsync)?;
    // Room for `batch` records (each with its 4-byte length) and the header,
    // within the broker's default batch payload limit.
    let batch_bytes = ((args.size + 4).saturating_mul(args.batch as usize) + 4096)
        .min(hermit_protocol::frame::DEFAULT_MAX_PAYLOAD as usize);
    let producer = Producer::new(
        &client,
        ProducerOptions {
            ack,
            batch_records: args.batch,
            batch_bytes,
            linger: Duration::from_millis(5),
            ..ProducerOptions::default()
        },
    );
    let record = vec![0x5au8; args.size];
    let bar = progress(records, "loading");
    for i in 0..records {
        producer.send(&topic, b"", &record).await?;
        if i.is_multiple_of(4096) {
            bar.set_position(i);
        }
    }
    producer.flush().await;
    producer.close().await;
    bar.finish_and_clear();
    let meta = client.metadata(Some(&topic)).await?;
    let end = meta
        .first()
        .and_then(|t| t.partitions.first())
        .map(|p| p.high_watermark)
        .context("the topic has no partition")?;

    // Read it all from offset 0.
    let bar = progress(end, "reading");
    let before = target.usage();
    let started = Instant::now();
    let mut offset = 0;
    let mut bytes = 0u64;
    while offset < end {
        let r = client
            .fetch(&topic, 0, offset, args.max_bytes, Duration::ZERO)
            .await?;
        bytes += r.batches.len() as u64;
        offset = r
            .next_offset()?
            .with_context(|| format!("an empty fetch at offset {offset}, below the end {end}"))?;
        bar.set_position(offset);
    }
    let elapsed = started.elapsed();
    let after = target.usage();
    bar.finish_and_clear();
    target.stop()?;
    let mut r = Run::default();
    let gb = bytes as f64 / 1e9;
    r.add("read_bytes", gb, "GB");
    r.add("read_time", elapsed.as_secs_f64(), "s");
    r.add("read_rate", gb / elapsed.as_secs_f64(), "GB/s");
    if let (Some(a), Some(b)) = (before, after) {
        let cpu = b.cpu_seconds - a.cpu_seconds;
        r.add("broker_cpu", cpu, "s");
        r.add("broker_cpu_per_GB", cpu / gb, "s");
        r.add(
            "broker_peak_rss",
            b.peak_rss_bytes as f64 / (1 << 20) as f64,
            "MiB",
        );
    }
    Ok(r)
}
