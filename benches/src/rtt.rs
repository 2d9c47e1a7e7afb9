//! `hermit bench rtt`: one producer, unbatched, waiting for each ack before
//! sending the next record — the round trip through broker and disk.

use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use hermit_client::{Ack, Client, Producer, ProducerOptions};
use hermit_protocol::record::BatchBuilder;

use crate::report::Run;
use crate::target::{MAX_RECORD_SIZE, Target, TargetArgs, progress, usize_in};

/// `hermit bench rtt` flags.
#[derive(Debug, Clone, clap::Args)]
pub struct RttArgs {
    #[command(flatten)]
    /// Broker and output options.
    pub target: TargetArgs,
    /// Round trips.
    #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub messages: u64,
    /// Record size (at most 32 MiB).
    #[arg(long, default_value_t = 27, value_parser = usize_in(..=MAX_RECORD_SIZE))]
    pub size: usize,
    /// durable | written (default: durable, or written when --fsync never).
    #[arg(long)]
    pub acks: Option<String>,
    /// producer: through `Producer::send` (linger 0, batches of 1);
    /// client: `Client::produce` of a prebuilt one-record batch.
    #[arg(long, default_value = "producer")]
    pub api: String,
}

impl RttArgs {
    fn ack(&self) -> anyhow::Result<Ack> {
        crate::target::parse_ack(self.acks.as_deref(), &self.target.fsync)
    }

    /// One line describing the settings.
    pub fn settings(&self) -> String {
        format!(
            "messages={} size={} acks={:?} api={} fsync={} broker={}",
            self.messages,
            self.size,
            self.ack().map(|a| format!("{a:?}")).unwrap_or_default(),
            self.api,
            self.target.fsync,
            self.target.broker_label()
        )
    }
}

/// Run the scenario once against a fresh broker.
pub async fn run_once(args: &RttArgs, run: usize) -> anyhow::Result<Run> {
    let ack = args.ack()?;
    let target = Target::start(&args.target, &[])?;
    let addr = target.addr();
    let client = Client::connect(addr.clone(), target.client_options())
        .await
        .with_context(|| format!("cannot connect to {addr}"))?;
    let topic = format!("rtt-{run}-{}", std::process::id());
    let record = vec![0x42u8; args.size];
    // Create the topic and warm the path up (not measured).
    let mut b = BatchBuilder::new(b"");
    b.push(&record);
    let batch = bytes::Bytes::from(b.finish(1)?);
    for _ in 0..100 {
        client.produce(&topic, 0, ack, batch.clone()).await?;
    }
    let producer = Producer::new(
        &client,
        ProducerOptions {
            ack,
            linger: Duration::ZERO,
            batch_records: 1,
            max_in_flight: 1,
            ..ProducerOptions::default()
        },
    );
    let mut hist = hdrhistogram::Histogram::<u64>::new(3).expect("3 significant figures are valid");
    let bar = progress(args.messages, "round trips");
    let before = target.usage();
    let started = Instant::now();
    for i in 0..args.messages {
        let t = Instant::now();
        match args.api.as_str() {
            "producer" => {
                producer.send(&topic, b"", &record).await?.await?;
            }
            "client" => {
                client.produce(&topic, 0, ack, batch.clone()).await?;
            }
            other => bail!("--api: expected producer or client, got {other:?}"),
        }
        let _ = hist.record(t.elapsed().as_nanos() as u64);
        if i.is_multiple_of(1024) {
            bar.set_position(i);
        }
    }
    let elapsed = started.elapsed();
    let after = target.usage();
    bar.finish_and_clear();
    producer.close().await;
    target.stop()?;
    let mut r = Run::default();
    r.add(
        "rate",
        args.messages as f64 / elapsed.as_secs_f64(),
        "msgs/s",
    );
    r.add("p50", hist.value_at_quantile(0.50) as f64 / 1000.0, "µs");
    r.add("p99", hist.value_at_quantile(0.99) as f64 / 1000.0, "µs");
    r.add("p999", hist.value_at_quantile(0.999) as f64 / 1000.0, "µs");
    r.add("max", hist.max() as f64 / 1000.0, "µs");
    if let (Some(a), Some(b)) = (before, after) {
        r.add(
            "broker_cpu_per_msg",
            (b.cpu_seconds - a.cpu_seconds) / args.messages as f64 * 1e6,
            "µs",
        );
    }
    Ok(r)
}
