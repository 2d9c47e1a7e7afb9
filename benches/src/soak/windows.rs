//! The good clients' request latencies, one HdrHistogram per operation and
//! time window, and the broker's samples (RSS, open files) over time.

use std::time::Duration;

use hdrhistogram::Histogram;

/// The operations a good client times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// A durable produce.
    Produce = 0,
    /// A fetch from the client's position.
    Fetch = 1,
    /// An offset commit (durable, like a produce to `__consumer_offsets`).
    Commit = 2,
}

/// Every operation, in [`Op`] order.
pub const OPS: [Op; 3] = [Op::Produce, Op::Fetch, Op::Commit];

/// Latencies are recorded in microseconds, from 1 µs to this (beyond it
/// they are clamped: a request that long has long timed out anyway).
const MAX_MICROS: u64 = 300_000_000;

fn histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, MAX_MICROS, 3)
        .expect("1 µs to 300 s at 3 significant figures are valid bounds")
}

/// One window: a latency histogram per operation, and the failed requests.
#[derive(Debug, Clone)]
pub struct Window {
    /// Per operation, in [`Op`] order; microseconds.
    hist: [Histogram<u64>; 3],
    /// Requests that failed (any operation).
    pub errors: u64,
}

impl Window {
    fn new() -> Window {
        Window {
            hist: [histogram(), histogram(), histogram()],
            errors: 0,
        }
    }

    /// The latency histogram of `op` (microseconds).
    pub fn of(&self, op: Op) -> &Histogram<u64> {
        &self.hist[op as usize]
    }

    /// Every operation's latencies in one histogram (microseconds).
    pub fn all(&self) -> Histogram<u64> {
        let mut all = histogram();
        for h in &self.hist {
            // Same bounds on both sides: adding cannot fail.
            let _ = all.add(h);
        }
        all
    }
}

/// Windows of `width` from the start of the load, grown as time passes.
#[derive(Debug)]
pub struct Windows {
    width: Duration,
    windows: Vec<Window>,
}

/// What one window comes to (for the report, the JSON and the plot).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    /// Window start, seconds since the load began.
    pub start_s: f64,
    /// Requests that succeeded.
    pub ok: u64,
    /// Requests that failed.
    pub errors: u64,
    /// Median latency of every operation, ms (NaN for an empty window).
    pub p50_ms: f64,
    /// 99th percentile of every operation, ms.
    pub p99_ms: f64,
    /// 99th percentile per operation ([`Op`] order), ms.
    pub p99_op_ms: [f64; 3],
}

fn quantile_ms(h: &Histogram<u64>, q: f64) -> f64 {
    if h.is_empty() {
        f64::NAN
    } else {
        h.value_at_quantile(q) as f64 / 1000.0
    }
}

impl Windows {
    /// No window yet; each is `width` long (at least 1 ms).
    pub fn new(width: Duration) -> Windows {
        Windows {
            width: width.max(Duration::from_millis(1)),
            windows: Vec::new(),
        }
    }

    /// The window length.
    pub fn width(&self) -> Duration {
        self.width
    }

    fn at(&mut self, at: Duration) -> &mut Window {
        let i = (at.as_nanos() / self.width.as_nanos()) as usize;
        while self.windows.len() <= i {
            self.windows.push(Window::new());
        }
        &mut self.windows[i]
    }

    /// A request of `op` that completed `at` (since the load began) after `latency`.
    pub fn record(&mut self, at: Duration, op: Op, latency: Duration) {
        let micros = (latency.as_micros() as u64).clamp(1, MAX_MICROS);
        self.at(at).hist[op as usize].saturating_record(micros);
    }

    /// A request that failed `at`.
    pub fn error(&mut self, at: Duration) {
        self.at(at).errors += 1;
    }

    /// The windows so far.
    pub fn windows(&self) -> &[Window] {
        &self.windows
    }

    /// Every window's figures, in order.
    pub fn summaries(&self) -> Vec<Summary> {
        self.windows
            .iter()
            .enumerate()
            .map(|(i, w)| {
                let all = w.all();
                Summary {
                    start_s: i as f64 * self.width.as_secs_f64(),
                    ok: all.len(),
                    errors: w.errors,
                    p50_ms: quantile_ms(&all, 0.50),
                    p99_ms: quantile_ms(&all, 0.99),
                    p99_op_ms: OPS.map(|op| quantile_ms(w.of(op), 0.99)),
                }
            })
            .collect()
    }

    /// Every window merged: the whole run's latencies per operation.
    pub fn total(&self) -> Window {
        let mut total = Window::new();
        for w in &self.windows {
            for (t, h) in total.hist.iter_mut().zip(&w.hist) {
                let _ = t.add(h);
            }
            total.errors += w.errors;
        }
        total
    }
}

/// One sample of the broker process.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// Seconds since the load began (negative while the clients connect).
    pub t_s: f64,
    /// VmRSS, bytes.
    pub rss_bytes: u64,
    /// Entries of `/proc/<pid>/fd`.
    pub open_files: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn requests_land_in_the_window_they_completed_in() {
        let mut w = Windows::new(Duration::from_secs(10));
        w.record(ms(1), Op::Produce, ms(5));
        w.record(ms(9_999), Op::Fetch, ms(7));
        w.record(ms(10_000), Op::Produce, ms(100));
        // A gap: the window between exists, empty.
        w.record(ms(35_000), Op::Commit, ms(2));
        w.error(ms(35_500));
        let s = w.summaries();
        assert_eq!(s.len(), 4);
        assert_eq!(
            s.iter().map(|s| s.start_s).collect::<Vec<_>>(),
            [0.0, 10.0, 20.0, 30.0]
        );
        assert_eq!(
            (s[0].ok, s[1].ok, s[2].ok, s[3].ok, s[3].errors),
            (2, 1, 0, 1, 1)
        );
        assert!(s[2].p99_ms.is_nan() && s[2].p50_ms.is_nan());
        // 3 significant figures: 100 ms reads back as 100.0x.
        assert!((s[1].p99_ms - 100.0).abs() < 0.1, "{}", s[1].p99_ms);
        assert!((s[1].p99_op_ms[Op::Produce as usize] - 100.0).abs() < 0.1);
        assert!(s[1].p99_op_ms[Op::Fetch as usize].is_nan());
    }

    #[test]
    fn quantiles_are_over_every_operation_of_the_window() {
        let mut w = Windows::new(Duration::from_secs(1));
        for _ in 0..98 {
            w.record(ms(10), Op::Fetch, ms(1));
        }
        w.record(ms(10), Op::Produce, ms(500));
        w.record(ms(10), Op::Commit, ms(500));
        let s = w.summaries()[0];
        assert_eq!(s.ok, 100);
        assert!((s.p50_ms - 1.0).abs() < 0.01, "{}", s.p50_ms);
        assert!((s.p99_ms - 500.0).abs() < 1.0, "{}", s.p99_ms);
        let total = w.total();
        assert_eq!(total.of(Op::Fetch).len(), 98);
        assert_eq!(total.all().len(), 100);
    }

    #[test]
    fn absurd_latencies_are_clamped_not_lost() {
        let mut w = Windows::new(Duration::from_secs(1));
        w.record(ms(0), Op::Produce, Duration::from_secs(10_000));
        w.record(ms(0), Op::Produce, Duration::ZERO);
        assert_eq!(w.total().of(Op::Produce).len(), 2);
    }
}
