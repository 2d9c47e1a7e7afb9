//! One level of the ladder: a fresh topic, a consumer tailing it from its
//! start, the pacer on its own thread, and a task resolving the
//! deliveries in order; the result is one row of figures.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use hermit_client::{
    Client, Consumer, ConsumerOptions, Delivery, Producer, StartFrom, TopicSettings,
};
use tokio::sync::{Notify, mpsc};

use super::pace::{Paced, Pacer, Schedule, now_ns};
use crate::report::Run;
use crate::target::Target;

/// The consumer gives up when no record arrives for this long.
const CONSUMER_STALL: Duration = Duration::from_secs(30);

/// Between setting a level up and its first intended send time.
const LEAD: Duration = Duration::from_millis(50);

/// Latencies are recorded in µs, 3 significant figures.
type Hist = hdrhistogram::Histogram<u64>;

/// A histogram of 1 µs to an hour (a latency past it is recorded as an
/// hour): fixed bounds, because `saturating_record` clamps to the bounds
/// and never grows an auto-resizing histogram.
fn hist() -> Hist {
    Hist::new_with_bounds(1, 3_600_000_000, 3).expect("valid bounds and precision")
}

fn ns(secs: f64) -> u64 {
    Duration::from_secs_f64(secs)
        .as_nanos()
        .try_into()
        .unwrap_or(u64::MAX)
}

/// What every level of a run shares.
pub struct Bench<'a> {
    /// The broker.
    pub target: &'a Target,
    /// Creates the topics and carries the producer.
    pub client: &'a Client,
    /// The consumers' connection.
    pub consumer_client: &'a Client,
    /// The producer (its options are the run's).
    pub producer: &'a Producer,
    /// Intended send times count from here.
    pub base: Instant,
    /// The run's index (in topic names).
    pub run: usize,
    /// Seconds sent before measuring.
    pub warmup: f64,
    /// Seconds measured.
    pub duration: f64,
    /// Record size.
    pub size: usize,
}

/// The window of a level in which latencies and rates count, ns since base.
#[derive(Debug, Clone, Copy)]
struct Window {
    start_ns: u64,
    end_ns: u64,
}

impl Window {
    fn contains(&self, t: u64) -> bool {
        (self.start_ns..self.end_ns).contains(&t)
    }
}

/// Run the level offering `rate` msgs/s; `index` names its topic.
pub async fn run(b: &Bench<'_>, index: usize, rate: u64) -> anyhow::Result<Run> {
    let topic = format!("latency-{}-{index}-{}", b.run, std::process::id());
    b.client
        .create_topic(
            &topic,
            TopicSettings {
                partitions: 1,
                cleanup: hermit_client::Cleanup::Delete,
                retention_ms: 0,
                retention_bytes: 0,
            },
        )
        .await
        .with_context(|| format!("cannot create the topic {topic}"))?;
    // The fetch shape is the client's default (min_bytes included): what
    // a tailing reader gets unless it asks for more.
    let options = ConsumerOptions {
        start: StartFrom::Earliest,
        ..ConsumerOptions::default()
    };
    let consumer = Consumer::new(b.consumer_client, &topic, options)
        .await
        .context("cannot start the consumer")?;
    let start_ns = now_ns(b.base) + ns(LEAD.as_secs_f64());
    let schedule = Schedule::new(start_ns, rate, b.warmup + b.duration);
    let window = Window {
        start_ns: start_ns + ns(b.warmup),
        end_ns: start_ns + ns(b.warmup + b.duration),
    };
    let want = Arc::new(AtomicU64::new(u64::MAX));
    let finished = Arc::new(Notify::new());
    let consumer = tokio::spawn(consume(
        consumer,
        b.base,
        window,
        want.clone(),
        finished.clone(),
    ));
    let (tx, rx) = mpsc::unbounded_channel();
    let acks = tokio::spawn(acks(rx, b.base, window.start_ns));
    let (cpu_before, broker_before) = (crate::cpu::process_cpu(), b.target.usage());
    let record = crate::stress::template(b.size);
    let pacer = Pacer {
        base: b.base,
        schedule,
        window_start_ns: window.start_ns,
        window_end_ns: window.end_ns,
        // A saturated level drains its backlog for as long again, then gives up.
        give_up_ns: window.end_ns + ns(b.duration.max(1.0)),
        record,
        producer: b.producer.clone(),
        topic: topic.clone(),
        runtime: tokio::runtime::Handle::current(),
        deliveries: tx,
    };
    let (done_tx, done_rx) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("latency-pacer".into())
        .spawn(move || {
            // The receiver is gone only if the run was dropped.
            let _ = done_tx.send(pacer.run());
        })
        .context("cannot start the pacer thread")?;
    let paced = done_rx.await.context("the pacer thread panicked")??;
    b.producer.flush().await;
    let ack_hist = acks.await.context("the ack task panicked")??;
    want.store(paced.sent, Ordering::Relaxed);
    finished.notify_one();
    let consumed = consumer.await.context("the consumer task panicked")??;
    let cpu = crate::cpu::process_cpu().saturating_sub(cpu_before);
    let broker_cpu = match (broker_before, b.target.usage()) {
        (Some(a), Some(z)) => Some(z.cpu_seconds - a.cpu_seconds),
        _ => None,
    };
    Ok(figures(
        rate, b.duration, &paced, &ack_hist, &consumed, cpu, broker_cpu,
    ))
}

/// The row of one level.
fn figures(
    rate: u64,
    duration: f64,
    paced: &Paced,
    ack: &Hist,
    consumed: &Consumed,
    cpu: Duration,
    broker_cpu: Option<f64>,
) -> Run {
    let mut r = Run::default();
    let ms = |h: &Hist, q: f64| {
        if h.is_empty() {
            f64::NAN
        } else if q >= 1.0 {
            h.max() as f64 / 1e3
        } else {
            h.value_at_quantile(q) as f64 / 1e3
        }
    };
    let per_msg = |secs: f64| secs * 1e6 / paced.sent.max(1) as f64;
    r.add("offered", rate as f64, "msgs/s");
    r.add("sent", paced.sent_in_window as f64 / duration, "msgs/s");
    r.add("consumed", consumed.in_window as f64 / duration, "msgs/s");
    r.add("unsent", paced.unsent as f64, "msgs");
    for (name, q) in [
        ("ack_p50", 0.5),
        ("ack_p99", 0.99),
        ("ack_p999", 0.999),
        ("ack_max", 1.0),
    ] {
        r.add(name, ms(ack, q), "ms");
    }
    for (name, q) in [
        ("e2e_p50", 0.5),
        ("e2e_p99", 0.99),
        ("e2e_p999", 0.999),
        ("e2e_max", 1.0),
    ] {
        r.add(name, ms(&consumed.hist, q), "ms");
    }
    r.add("client_cpu", per_msg(cpu.as_secs_f64()), "µs/msg");
    r.add("pacer_cpu", per_msg(paced.cpu.as_secs_f64()), "µs/msg");
    // The pacer's share of its own wall time: near 100 % means the bench,
    // not the broker, sets the pace.
    r.add(
        "pacer_busy",
        100.0 * paced.cpu.as_secs_f64() / paced.wall.as_secs_f64().max(1e-9),
        "%",
    );
    r.add("broker_cpu", broker_cpu.map_or(f64::NAN, per_msg), "µs/msg");
    r
}

/// Resolve the deliveries in the order they were sent (one clock reading
/// per batch that completes: the ones behind it that are already resolved
/// share it) and record each ack latency from its intended send time;
/// those intended before `window_start_ns` (the warm-up) are not recorded.
/// Ends when the pacer is done and every delivery is resolved.
async fn acks(
    mut rx: mpsc::UnboundedReceiver<Vec<(u64, Delivery)>>,
    base: Instant,
    window_start_ns: u64,
) -> anyhow::Result<Hist> {
    let mut hist = hist();
    let mut queue: VecDeque<(u64, Delivery)> = VecDeque::new();
    let mut open = true;
    loop {
        let Some((intended, mut current)) = queue.pop_front() else {
            match rx.recv().await {
                Some(burst) => {
                    queue.extend(burst);
                    continue;
                }
                None => break,
            }
        };
        let result = loop {
            if !open {
                break (&mut current).await;
            }
            tokio::select! {
                biased;
                r = &mut current => break r,
                burst = rx.recv() => match burst {
                    Some(burst) => queue.extend(burst),
                    None => open = false,
                },
            }
        };
        result.context("a record was not acknowledged")?;
        let now = now_ns(base);
        let mut record = |t: u64| {
            if t >= window_start_ns {
                hist.saturating_record(now.saturating_sub(t) / 1_000);
            }
        };
        record(intended);
        while let Some((t, d)) = queue.front() {
            match d.try_result() {
                Some(Ok(_)) => record(*t),
                Some(Err(e)) => return Err(e).context("a record was not acknowledged"),
                None => break,
            }
            queue.pop_front();
        }
    }
    Ok(hist)
}

/// What the consumer saw.
struct Consumed {
    /// Produce-to-consume latency of the records intended after the warm-up, µs.
    hist: Hist,
    /// Records received inside the window (the achieved consume rate's count).
    in_window: u64,
}

/// The send time in a record's first 8 bytes.
fn stamp(b: &[u8]) -> anyhow::Result<u64> {
    Ok(u64::from_be_bytes(
        b.get(..8)
            .context("record shorter than its intended send time")?
            .try_into()?,
    ))
}

/// Read until `want` records arrived (known once the pacer is done).
async fn consume(
    mut consumer: Consumer,
    base: Instant,
    window: Window,
    want: Arc<AtomicU64>,
    finished: Arc<Notify>,
) -> anyhow::Result<Consumed> {
    let mut c = Consumed {
        hist: hist(),
        in_window: 0,
    };
    let mut n = 0u64;
    let mut now = 0u64;
    while n < want.load(Ordering::Relaxed) {
        let record = match consumer.try_next() {
            Some(r) => {
                // Records already fetched arrive microseconds apart: the
                // clock is read every 16 of them.
                if n.is_multiple_of(16) {
                    now = now_ns(base);
                }
                r?
            }
            None => {
                let next = tokio::time::timeout(CONSUMER_STALL, consumer.next());
                tokio::pin!(next);
                let got = loop {
                    tokio::select! {
                        biased;
                        r = &mut next => break Some(r),
                        () = finished.notified() => {
                            if n >= want.load(Ordering::Relaxed) {
                                break None;
                            }
                        }
                    }
                };
                let Some(got) = got else { break };
                let Ok(r) = got else {
                    anyhow::bail!(
                        "the consumer got no record for {} s: {n} arrived",
                        CONSUMER_STALL.as_secs()
                    );
                };
                // A fresh fetch: read the clock now, whatever the count.
                now = now_ns(base);
                r?
            }
        };
        let intended = stamp(&record.value)?;
        if intended >= window.start_ns {
            c.hist
                .saturating_record(now.saturating_sub(intended) / 1_000);
        }
        if window.contains(now) {
            c.in_window += 1;
        }
        n += 1;
    }
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latencies_of_minutes_are_kept_as_measured() {
        let mut h = hist();
        h.saturating_record(9_256); // 9.256 ms in µs
        h.saturating_record(120_000_000); // 2 minutes
        assert!(h.value_at_quantile(0.5).abs_diff(9_256) <= 9_256 / 500);
        assert!(h.max().abs_diff(120_000_000) <= 120_000_000 / 500);
    }

    #[test]
    fn the_intended_time_is_read_from_the_first_8_bytes() {
        let mut r = crate::stress::template(27);
        r[..8].copy_from_slice(&123_456_789u64.to_be_bytes());
        assert_eq!(stamp(&r).expect("27 bytes"), 123_456_789);
        assert!(stamp(&r[..7]).is_err());
    }
}
