//! `hermit bench stress`: the original HermitMQ scenario. Producers send
//! fixed-size records in batches while one consumer reads everything from
//! the start; reported: producer time to all-acknowledged, producer and
//! consumer throughput, end-to-end latency (the send time travels inside
//! the record), the CPU time of this process per record (the producers' and
//! the consumer's apart with `--consume-after`), broker CPU and peak memory.
//!
//! A run lasts `--duration` (2 s by default): the producers send until it
//! has passed, and the consumer reads what they sent. `--messages` sends a
//! fixed count per producer instead (a run that short measures little).
//!
//! Each record's first 8 bytes carry its send time (ns since the run
//! started; the clock is read every 16 records, which are sent and received
//! microseconds apart — far below the latencies measured); the rest is the original payload `{"message": "Hello World!"}`,
//! cut or repeated to `--size` bytes. With `--seal`, every record is sealed
//! (DIRECT to one reader, or MULTI to N) in place in the batch buffer and
//! opened by the consumer — the work a real sealed chat does.
//!
//! Nothing lost goes unnoticed: once the producers are done, the topic must
//! hold exactly the records sent (its offsets count records over the
//! HermitMQ protocol; over NATS every delivery is checked instead), and the
//! consumer gives up when no record arrives for 30 s.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use hermit_client::crypto::{Identity, PublicKey};
use hermit_client::{
    Ack, Client, Consumer, ConsumerOptions, Delivery, Producer, ProducerOptions, SealedConsumer,
    SealedProducer, SealedProducerOptions, StartFrom, TopicMetadata, TopicSettings, TransportKind,
};

use crate::report::Run;
use crate::target::{MAX_RECORD_SIZE, Target, TargetArgs, progress, usize_in};

/// The consumer gives up when no record arrives for this long.
const CONSUMER_STALL: Duration = Duration::from_secs(30);

/// How long the records' count may take to become visible after the last
/// acknowledgement (with `--acks written` under `fsync = always`, the log's
/// end moves only when the next group commit's fsync completes).
const VISIBLE_DEADLINE: Duration = Duration::from_secs(10);

/// The original payload.
pub const ORIGINAL_PAYLOAD: &[u8] = br#"{"message": "Hello World!"}"#;

/// How records are sealed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seal {
    /// Plaintext.
    None,
    /// DIRECT to one reader.
    Direct,
    /// MULTI to this many readers (the consumer is one of them).
    Multi(usize),
}

impl std::str::FromStr for Seal {
    type Err = String;
    fn from_str(s: &str) -> Result<Seal, String> {
        match s {
            "none" => Ok(Seal::None),
            "direct" => Ok(Seal::Direct),
            other => other
                .strip_prefix("multi:")
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|n| (1..=4096).contains(n))
                .map(Seal::Multi)
                .ok_or_else(|| {
                    format!("expected none, direct or multi:N (1..=4096), got {other:?}")
                }),
        }
    }
}

/// `hermit bench stress` flags.
#[derive(Debug, Clone, clap::Args)]
pub struct StressArgs {
    #[command(flatten)]
    /// Broker and output options.
    pub target: TargetArgs,
    /// Producer tasks (each with its own connection).
    #[arg(long, default_value_t = 10, value_parser = usize_in(1..=4096))]
    pub producers: usize,
    /// Send for this many seconds (each producer stops at the first clock
    /// reading past it), unless --messages is given.
    #[arg(long, default_value_t = 2.0, value_parser = positive_secs, conflicts_with = "messages")]
    pub duration: f64,
    /// Records per producer, instead of --duration (the original: 100,000,
    /// which this machine sends in ≈ 0.1 s: too short to measure well).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub messages: Option<u64>,
    /// Record size in bytes (plaintext; 8 for the timestamp to 32 MiB).
    #[arg(long, default_value_t = 27, value_parser = usize_in(8..=MAX_RECORD_SIZE))]
    pub size: usize,
    /// Records per batch.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..))]
    pub batch: u32,
    /// Linger in ms (the original: 100).
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(..=3_600_000))]
    pub linger: u64,
    /// Batches in flight per producer.
    #[arg(long, default_value_t = 256, value_parser = usize_in(1..))]
    pub in_flight: usize,
    /// none | direct | multi:N.
    #[arg(long, default_value = "none")]
    pub seal: Seal,
    /// durable | written (default: durable, or written when --fsync never).
    #[arg(long)]
    pub acks: Option<String>,
    /// Partitions of the topic.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub partitions: u32,
    /// Skip the consumer (producer figures only).
    #[arg(long)]
    pub no_consumer: bool,
    /// Start the consumer only once every producer is done: its rate is then
    /// the catch-up rate of one reader (end-to-end latency is not reported).
    #[arg(long, conflicts_with = "no_consumer")]
    pub consume_after: bool,
}

impl StressArgs {
    fn ack(&self) -> anyhow::Result<Ack> {
        crate::target::parse_ack(self.acks.as_deref(), &self.target.fsync)
    }

    /// One line describing the settings.
    pub fn settings(&self) -> String {
        format!(
            "producers={} {} size={} batch={} linger={}ms in_flight={} seal={:?} acks={:?} fsync={} partitions={} broker={}{}",
            self.producers,
            match self.messages {
                Some(n) => format!("messages={n}"),
                None => format!("duration={}s", self.duration),
            },
            self.size,
            self.batch,
            self.linger,
            self.in_flight,
            self.seal,
            self.ack().map(|a| format!("{a:?}")).unwrap_or_default(),
            self.target.fsync,
            self.partitions,
            self.target.broker_label(),
            if self.consume_after {
                " consume_after"
            } else {
                ""
            },
        )
    }
}

pub(crate) fn positive_secs(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v > 0.0 && v <= 86_400.0 => Ok(v),
        _ => Err(format!("expected seconds in (0, 86400], got {s:?}")),
    }
}

/// CPU seconds used so far by this process (all its threads), from `/proc`.
fn own_cpu() -> Option<f64> {
    crate::process::usage(std::process::id()).map(|u| u.cpu_seconds)
}

pub(crate) fn template(size: usize) -> Vec<u8> {
    let mut v = vec![0u8; 8];
    while v.len() < size {
        let take = (size - v.len()).min(ORIGINAL_PAYLOAD.len());
        v.extend_from_slice(&ORIGINAL_PAYLOAD[..take]);
    }
    v.truncate(size.max(8));
    v
}

fn clone_identity(id: &Identity) -> anyhow::Result<Identity> {
    Ok(Identity::from_pkcs8_der(&id.to_pkcs8_der())?)
}

/// Run the scenario once against a fresh broker.
pub async fn run_once(args: &StressArgs, run: usize) -> anyhow::Result<Run> {
    anyhow::ensure!(args.size >= 8, "--size must be at least 8 (the timestamp)");
    anyhow::ensure!(args.producers >= 1, "nothing to send");
    // The records the consumer waits for: known up front with --messages,
    // once the producers stop with --duration.
    let fixed_total = match args.messages {
        Some(m) => Some(
            (args.producers as u64)
                .checked_mul(m)
                .context("--producers × --messages does not fit in 64 bits")?,
        ),
        None => None,
    };
    let want = Arc::new(AtomicU64::new(fixed_total.unwrap_or(u64::MAX)));
    let finished = Arc::new(tokio::sync::Notify::new());
    let deadline = match args.messages {
        Some(_) => None,
        None => Some(Duration::from_secs_f64(args.duration)),
    };
    let ack = args.ack()?;
    let target = Target::start(&args.target, &[])?;
    let addr = target.addr();
    let topic: Arc<str> = format!("stress-{run}-{}", std::process::id()).into();
    let admin = Client::connect(addr.clone(), target.client_options())
        .await
        .with_context(|| format!("cannot connect to {addr}"))?;
    match admin
        .create_topic(
            &topic,
            TopicSettings {
                partitions: args.partitions,
                cleanup: hermit_client::Cleanup::Delete,
                retention_ms: 0,
                retention_bytes: 0,
            },
        )
        .await
    {
        Ok(()) => {}
        Err(e) if e.status() == Some(hermit_client::Status::TopicExists) => {}
        Err(e) => return Err(e).context("cannot create the topic"),
    }
    // Identities: one per producer, the reader, and extra MULTI members.
    let reader = Identity::generate()?;
    let senders: Vec<Identity> = (0..args.producers)
        .map(|_| Identity::generate())
        .collect::<Result<_, _>>()?;
    let mut recipients: Vec<PublicKey> = vec![reader.public_key().clone()];
    if let Seal::Multi(n) = args.seal {
        for _ in 1..n {
            recipients.push(Identity::generate()?.public_key().clone());
        }
    }
    // Over NATS the offsets count stream messages, not records (see the
    // client's `nats_offset`): there every delivery is checked instead.
    let nats = admin.transport_kind() == TransportKind::Nats;
    let stored_before = if nats {
        0
    } else {
        record_count(&topic_metadata(&admin, &topic).await?)
    };
    let base = Instant::now();
    let usage_before = target.usage();
    let bar = progress(fixed_total.unwrap_or(0), "consumed");

    // The consumer, started before the producers, reads from the beginning.
    let gate = Arc::new(tokio::sync::Notify::new());
    let consumer = if args.no_consumer {
        None
    } else {
        let client = Client::connect(addr.clone(), target.client_options()).await?;
        let options = ConsumerOptions {
            start: StartFrom::Earliest,
            max_bytes: 4 << 20,
            max_wait: Duration::from_millis(100),
            auto_commit: None,
            ..ConsumerOptions::default()
        };
        // Plaintext through the Consumer; sealed through the SDK's
        // SealedConsumer, which opens (and checks) every record.
        let mut reader_side = if args.seal == Seal::None {
            Reader::Plain(Box::new(Consumer::new(&client, &topic, options).await?))
        } else {
            let trusted = senders.iter().map(|s| s.public_key().clone()).collect();
            Reader::Sealed(Box::new(
                SealedConsumer::new(&client, clone_identity(&reader)?, trusted, &topic, options)
                    .await?,
            ))
        };
        let (bar, gate) = (bar.clone(), gate.clone());
        let (want, finished) = (want.clone(), finished.clone());
        let consume_after = args.consume_after;
        Some(tokio::spawn(async move {
            let (began, cpu_before) = if consume_after {
                gate.notified().await;
                (Instant::now(), own_cpu())
            } else {
                (base, None)
            };
            let mut hist =
                hdrhistogram::Histogram::<u64>::new(3).expect("3 significant figures are valid");
            let mut n = 0u64;
            let mut now = 0u64;
            loop {
                if n >= want.load(Ordering::Relaxed) {
                    break;
                }
                let sent = match reader_side.try_next_timestamp() {
                    Some(sent) => sent?,
                    None => {
                        // Wait for a record, or for the producers to stop
                        // with every record they sent already read.
                        let next = reader_side.next_timestamp(CONSUMER_STALL);
                        tokio::pin!(next);
                        let got = loop {
                            tokio::select! {
                                biased;
                                r = &mut next => break Some(r?),
                                () = finished.notified() => {
                                    if n >= want.load(Ordering::Relaxed) {
                                        break None;
                                    }
                                }
                            }
                        };
                        match got {
                            None => break,
                            Some(Some(sent)) => sent,
                            Some(None) => anyhow::bail!(
                                "the consumer got no record for {} s: {n} arrived",
                                CONSUMER_STALL.as_secs()
                            ),
                        }
                    }
                };
                // Reading the clock costs as much as handling a record: read
                // it every 16 records (they arrive microseconds apart).
                if n.is_multiple_of(16) {
                    now = base.elapsed().as_nanos() as u64;
                }
                let _ = hist.record(now.saturating_sub(sent) / 1000);
                n += 1;
                if n.is_multiple_of(8192) {
                    bar.set_position(n);
                }
            }
            let elapsed = began.elapsed();
            let cpu = match (cpu_before, own_cpu()) {
                (Some(a), Some(b)) => Some(b - a),
                _ => None,
            };
            drop(reader_side);
            Ok::<_, anyhow::Error>((elapsed, hist, cpu))
        }))
    };

    let start = Instant::now();
    let cpu_start = own_cpu();
    let mut producers = Vec::new();
    for (p, sender) in senders.into_iter().enumerate() {
        let addr = addr.clone();
        let client_options = target.client_options();
        let topic = topic.clone();
        let recipients = recipients.clone();
        let (seal, messages, size) = (args.seal, args.messages.unwrap_or(u64::MAX), args.size);
        let batch = args.batch;
        let share = !args.no_consumer && !args.consume_after;
        let options = ProducerOptions {
            ack,
            linger: Duration::from_millis(args.linger),
            batch_records: args.batch,
            max_in_flight: args.in_flight,
            ..ProducerOptions::default()
        };
        producers.push(tokio::spawn(async move {
            let client = Client::connect(addr, client_options).await?;
            let producer = Producer::new(&client, options);
            let sealed = match seal {
                Seal::None => None,
                _ => Some(SealedProducer::new(
                    &producer,
                    sender,
                    SealedProducerOptions::default(),
                )?),
            };
            let mut record = template(size);
            // NATS only: the deliveries not yet known to have succeeded
            // (checked as they resolve, so at most about the records in
            // flight are held).
            let mut pending = nats.then(VecDeque::new);
            let mut sent = 0u64;
            while sent < messages {
                // The send time, refreshed every 16 records (sends are
                // ~100 ns apart; the clock costs about as much as a send);
                // the deadline is checked on the same reading.
                if sent.is_multiple_of(16) {
                    let elapsed = start.elapsed();
                    if deadline.is_some_and(|d| elapsed >= d) {
                        break;
                    }
                    record[..8].copy_from_slice(&(base.elapsed().as_nanos() as u64).to_be_bytes());
                }
                sent += 1;
                let delivery = match &sealed {
                    None => producer.send(&topic, b"", &record).await?,
                    Some(s) => s
                        .send(&topic, None, &record, &recipients)
                        .await?
                        .into_delivery(),
                };
                if let Some(pending) = &mut pending {
                    pending.push_back(delivery);
                    settle(pending, p, false)?;
                }
                // While the consumer reads: a send waits only when the
                // producer's buffer is full, so without this a producer task
                // would keep its worker for as long as the buffer has room,
                // and ten of them would keep the consumer's task off both
                // workers for most of the run (a real sender waits for its
                // input between sends). Once per batch; it costs the
                // producers CPU (a yield may wake the other worker), so not
                // when nothing else needs the workers.
                if share && sent.is_multiple_of(u64::from(batch)) {
                    tokio::task::yield_now().await;
                }
            }
            // Returns once every record is acknowledged or failed.
            producer.flush().await;
            if let Some(pending) = &mut pending {
                settle(pending, p, true)?;
            }
            let done = start.elapsed();
            producer.close().await;
            Ok::<_, anyhow::Error>((done, sent))
        }));
    }
    let mut producer_time = Duration::ZERO;
    let mut total = 0u64;
    for p in producers {
        let (done, sent) = p.await.context("a producer task panicked")??;
        producer_time = producer_time.max(done);
        total += sent;
    }
    let producer_cpu = match (cpu_start, own_cpu()) {
        (Some(a), Some(b)) => Some(b - a),
        _ => None,
    };
    if let Some(n) = fixed_total {
        anyhow::ensure!(total == n, "the producers sent {total} records, not {n}");
    }
    // Every record must be in the log exactly once (a failed batch is not
    // retried by the benchmark): over the HermitMQ protocol offsets are
    // dense, so the partitions' record counts must have grown by `total`.
    if !nats {
        let stored = await_stored(&admin, &topic, stored_before + total).await? - stored_before;
        anyhow::ensure!(
            stored == total,
            "the topic holds {stored} new records after the producers finished, not the {total} sent"
        );
    }
    bar.set_length(total);
    want.store(total, Ordering::Relaxed);
    finished.notify_one();
    gate.notify_one();
    let consumed = match consumer {
        Some(c) => Some(c.await.context("the consumer task panicked")??),
        None => None,
    };
    bar.finish_and_clear();
    let usage_after = target.usage();
    let stored_bytes = target.data_dir().map_or(0, dir_size);
    target.stop()?;

    let mut r = Run::default();
    let secs = producer_time.as_secs_f64();
    let millions = total as f64 / 1e6;
    r.add("records", millions, "M");
    r.add("producer_time", secs, "s");
    r.add("producer_rate", total as f64 / secs / 1e6, "M msgs/s");
    r.add(
        "payload_rate",
        total as f64 * args.size as f64 / secs / 1e6,
        "MB/s",
    );
    if stored_bytes > 0 {
        r.add("stored_rate", stored_bytes as f64 / secs / 1e6, "MB/s");
    }
    // This process's CPU per record: with --consume-after the producers'
    // and the consumer's apart (the consumer is idle until the producers
    // are done); otherwise the producers' phase holds both.
    let own_cpu_label = if args.consume_after || args.no_consumer {
        "producer_cpu"
    } else {
        "client_cpu_while_producing"
    };
    if let Some(cpu) = producer_cpu {
        r.add(own_cpu_label, cpu / millions, "µs/record");
    }
    if let Some((elapsed, hist, consumer_cpu)) = consumed {
        r.add(
            "consumer_rate",
            total as f64 / elapsed.as_secs_f64() / 1e6,
            "M msgs/s",
        );
        if let Some(cpu) = consumer_cpu {
            r.add("consumer_cpu", cpu / millions, "µs/record");
        }
        // Send-to-read latency, unless the reader started only after the
        // producers finished (then it measures the backlog, not latency).
        if !args.consume_after {
            r.add(
                "e2e_p50",
                hist.value_at_quantile(0.50) as f64 / 1000.0,
                "ms",
            );
            r.add(
                "e2e_p99",
                hist.value_at_quantile(0.99) as f64 / 1000.0,
                "ms",
            );
            r.add(
                "e2e_p999",
                hist.value_at_quantile(0.999) as f64 / 1000.0,
                "ms",
            );
        }
    }
    if let (Some(a), Some(b)) = (usage_before, usage_after) {
        let cpu = b.cpu_seconds - a.cpu_seconds;
        r.add("broker_cpu", cpu, "s");
        r.add("broker_cpu_per_M", cpu / millions, "s");
        r.add(
            "broker_peak_rss",
            b.peak_rss_bytes as f64 / (1 << 20) as f64,
            "MiB",
        );
    }
    Ok(r)
}

/// Records stored in the topic: the sum over its partitions of high
/// watermark minus log start (a record count over the HermitMQ protocol, not
/// over NATS).
fn record_count(meta: &TopicMetadata) -> u64 {
    meta.partitions
        .iter()
        .map(|p| p.high_watermark.saturating_sub(p.log_start))
        .sum()
}

async fn topic_metadata(client: &Client, topic: &str) -> anyhow::Result<TopicMetadata> {
    client
        .metadata(Some(topic))
        .await
        .context("cannot read the topic's metadata")?
        .into_iter()
        .find(|t| t.name == topic)
        .with_context(|| format!("the broker does not know the topic {topic}"))
}

/// [`record_count`] once it reaches `want`, or as it stands after
/// [`VISIBLE_DEADLINE`]. Until then, long-polls each partition at its end:
/// a fetch there returns as soon as that end moves.
async fn await_stored(client: &Client, topic: &str, want: u64) -> anyhow::Result<u64> {
    let deadline = Instant::now() + VISIBLE_DEADLINE;
    loop {
        let meta = topic_metadata(client, topic).await?;
        let stored = record_count(&meta);
        if stored >= want || Instant::now() >= deadline {
            return Ok(stored);
        }
        for p in &meta.partitions {
            client
                .fetch(
                    topic,
                    p.partition,
                    p.high_watermark,
                    1,
                    Duration::from_millis(100),
                )
                .await
                .context("cannot fetch from the topic")?;
        }
    }
}

/// Drop the deliveries at the front of `pending` that succeeded; fail on the
/// first that failed. With `all`, every delivery must have an outcome (call
/// it after `Producer::flush`).
fn settle(pending: &mut VecDeque<Delivery>, producer: usize, all: bool) -> anyhow::Result<()> {
    while let Some(front) = pending.front() {
        match front.try_result() {
            Some(Ok(_)) => {
                pending.pop_front();
            }
            Some(Err(e)) => {
                return Err(e).with_context(|| format!("producer {producer}: a record failed"));
            }
            None if all => {
                anyhow::bail!("producer {producer}: a record has no outcome after flush")
            }
            None => break,
        }
    }
    Ok(())
}

/// The consumer side: plain records, or sealed ones opened by the SDK.
enum Reader {
    Plain(Box<Consumer>),
    Sealed(Box<SealedConsumer>),
}

/// The send time in a record's first 8 bytes.
fn stamp(b: &[u8]) -> anyhow::Result<u64> {
    Ok(u64::from_be_bytes(
        b.get(..8)
            .context("record shorter than its timestamp")?
            .try_into()?,
    ))
}

fn opened_stamp(r: hermit_client::Received) -> anyhow::Result<u64> {
    match r {
        Ok(opened) => stamp(opened.plaintext.as_bytes()),
        Err(e) => Err(anyhow::anyhow!("a record did not open: {e}")),
    }
}

impl Reader {
    /// The send time carried by the next record if one is already fetched
    /// (no future, no deadline, no clock reading; the record and its
    /// plaintext borrowed, as a reader that copies out what it needs does).
    fn try_next_timestamp(&mut self) -> Option<anyhow::Result<u64>> {
        match self {
            Reader::Plain(c) => c.try_next_ref().map(|r| {
                r.map_err(anyhow::Error::from)
                    .and_then(|r| stamp(r.value()))
            }),
            Reader::Sealed(c) => c.try_next_ref().map(|r| match r {
                Ok(Ok(opened)) => stamp(opened.plaintext),
                Ok(Err(e)) => Err(anyhow::anyhow!("a record did not open: {e}")),
                Err(e) => Err(e.into()),
            }),
        }
    }

    /// The send time carried by the next record; `None` if none arrives
    /// within `stall`.
    async fn next_timestamp(&mut self, stall: Duration) -> anyhow::Result<Option<u64>> {
        match self {
            Reader::Plain(c) => match tokio::time::timeout(stall, c.next()).await {
                Ok(r) => stamp(&r?.value).map(Some),
                Err(_) => Ok(None),
            },
            Reader::Sealed(c) => match tokio::time::timeout(stall, c.next()).await {
                Err(_) => Ok(None),
                Ok(r) => opened_stamp(r?).map(Some),
            },
        }
    }
}

/// Total bytes of the files under `dir`.
pub fn dir_size(dir: &std::path::Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .filter_map(|e| e.ok())
        .map(|e| {
            let p = e.path();
            if p.is_dir() {
                dir_size(&p)
            } else {
                e.metadata().map(|m| m.len()).unwrap_or(0)
            }
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_keeps_the_original_payload_after_the_timestamp() {
        let t = template(35);
        assert_eq!(t.len(), 35);
        assert_eq!(&t[8..], ORIGINAL_PAYLOAD);
        assert_eq!(template(27).len(), 27);
        assert_eq!(template(100).len(), 100);
    }

    #[test]
    fn seal_parses() {
        assert_eq!("none".parse(), Ok(Seal::None));
        assert_eq!("direct".parse(), Ok(Seal::Direct));
        assert_eq!("multi:10".parse(), Ok(Seal::Multi(10)));
        assert!("multi:0".parse::<Seal>().is_err());
        assert!("aes".parse::<Seal>().is_err());
    }
}
