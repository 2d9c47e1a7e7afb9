//! `hermit bench latency`: latency against offered load. An open-loop
//! producer offers fixed rates (1,000, 10,000, 100,000 msgs/s and upward
//! until the system saturates), each message at its *intended send time*
//! whatever happened to the ones before; durable acks (the broker's fsync
//! before each ack); one consumer tails each level's fresh topic with the
//! client's default fetch shape. Per level: ack and produce-to-consume
//! latency (p50, p99, p99.9, max) measured from the intended send time,
//! the achieved send and consume rates against the offered one, and what
//! the bench and the broker spend per message; then the knee. The
//! machine's fdatasync latency, measured before and after the levels in
//! the same run, is the floor. `--plot FILE.png` draws it.
//!
//! # Layout
//! - [`pace`]: the schedule of intended send times and the pacer thread.
//! - [`level`]: one level (topic, consumer, pacer, ack task) to one row.
//! - [`knee`]: when a level holds, when the ladder stops, the knee.
//! - [`floor`]: the fdatasync floor.
//! - [`plot`]: the PNG.

pub mod floor;
pub mod knee;
pub mod level;
pub mod outcome;
pub mod pace;
pub mod plot;

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Context;
use hermit_client::{Ack, Client, Producer, ProducerOptions};

use crate::report::{Run, median};
use crate::target::{MAX_RECORD_SIZE, Target, TargetArgs, usize_in};
use floor::Floor;
pub use outcome::Outcome;

/// The offered rates when `--rates` is not given (msgs/s).
pub const DEFAULT_RATES: &[u64] = &[
    1_000, 10_000, 100_000, 200_000, 500_000, 1_000_000, 2_000_000, 5_000_000, 10_000_000,
];

/// `hermit bench latency` flags.
#[derive(Debug, Clone, clap::Args)]
pub struct LatencyArgs {
    #[command(flatten)]
    /// Broker and output options.
    pub target: TargetArgs,
    /// Offered rates in msgs/s, comma-separated, run from the lowest up;
    /// the run stops after the first saturated level [default:
    /// 1000,10000,100000,200000,500000,1000000,2000000,5000000,10000000].
    #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    pub rates: Vec<u64>,
    /// Seconds measured per level, after the warm-up.
    #[arg(long, default_value_t = 5.0, value_parser = crate::stress::positive_secs)]
    pub duration: f64,
    /// Seconds sent per level before measuring (not in the histograms or rates).
    #[arg(long, default_value_t = 1.0, value_parser = warmup_secs)]
    pub warmup: f64,
    /// Record size in bytes (8 for the intended send time to 32 MiB).
    #[arg(long, default_value_t = 27, value_parser = usize_in(8..=MAX_RECORD_SIZE))]
    pub size: usize,
    /// durable | written (default: durable, or written when --fsync never).
    #[arg(long)]
    pub acks: Option<String>,
    /// Producer linger in ms [default: the producer's default, 5 ms].
    #[arg(long, value_parser = clap::value_parser!(u64).range(..=60_000))]
    pub linger: Option<u64>,
    /// 4 KiB write + fdatasync samples of the floor, before and after the levels.
    #[arg(long, default_value_t = 2000, value_parser = usize_in(1..=1_000_000))]
    pub floor_syncs: usize,
    /// Draw latency against offered rate (log-log, median of the runs) to this PNG.
    #[arg(long, value_name = "FILE.png")]
    pub plot: Option<PathBuf>,
    /// TrueType font for the plot's text [default: DejaVu Sans where installed].
    #[arg(long, value_name = "FILE")]
    pub font: Option<PathBuf>,
}

fn warmup_secs(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if (0.0..=3_600.0).contains(&v) => Ok(v),
        _ => Err(format!("expected seconds in [0, 3600], got {s:?}")),
    }
}

impl LatencyArgs {
    fn ack(&self) -> anyhow::Result<Ack> {
        crate::target::parse_ack(self.acks.as_deref(), &self.target.fsync)
    }

    /// The offered rates, lowest first, each once.
    pub fn rates(&self) -> Vec<u64> {
        let mut r = if self.rates.is_empty() {
            DEFAULT_RATES.to_vec()
        } else {
            self.rates.clone()
        };
        r.sort_unstable();
        r.dedup();
        r
    }

    fn producer_options(&self) -> anyhow::Result<ProducerOptions> {
        let mut o = ProducerOptions {
            ack: self.ack()?,
            ..ProducerOptions::default()
        };
        if let Some(ms) = self.linger {
            o.linger = Duration::from_millis(ms);
        }
        Ok(o)
    }

    /// The plot's title: the settings that shape the curves.
    fn plot_title(&self, runs: usize) -> String {
        let o = self.producer_options().ok();
        format!(
            "hermit bench latency: {} B records, fsync={}, acks={}, linger={}, {} s per level{}",
            self.size,
            self.target.fsync,
            o.as_ref()
                .map(|o| format!("{:?}", o.ack))
                .unwrap_or_default(),
            o.as_ref()
                .map(|o| format!("{} ms", o.linger.as_millis()))
                .unwrap_or_default(),
            self.duration,
            if runs > 1 {
                format!(", median of {runs} runs")
            } else {
                String::new()
            },
        )
    }

    /// One line describing the settings.
    pub fn settings(&self) -> String {
        let o = self.producer_options().ok();
        format!(
            "rates={} duration={}s warmup={}s size={} acks={} linger={} batch={} fsync={} consumer=default fetch floor={}×4KiB broker={}",
            self.rates()
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(","),
            self.duration,
            self.warmup,
            self.size,
            o.as_ref()
                .map(|o| format!("{:?}", o.ack))
                .unwrap_or_default(),
            o.as_ref()
                .map(|o| format!("{}ms", o.linger.as_millis()))
                .unwrap_or_default(),
            o.as_ref().map(|o| o.batch_records).unwrap_or_default(),
            self.target.fsync,
            self.floor_syncs,
            self.target.broker_label(),
        )
    }
}

fn point(r: &Run) -> knee::Point {
    let v = |name| r.get(name).unwrap_or(f64::NAN);
    knee::Point {
        offered: v("offered"),
        sent: v("sent"),
        consumed: v("consumed"),
        ack_p50: v("ack_p50"),
        ack_p99: v("ack_p99"),
        e2e_p50: v("e2e_p50"),
        e2e_p99: v("e2e_p99"),
        unsent: v("unsent").max(0.0) as u64,
    }
}

async fn measure_floor(args: &LatencyArgs) -> anyhow::Result<Floor> {
    // A temp directory beside the broker's (same parent: the same file system).
    let dir = args.target.temp_data_dir()?;
    let syncs = args.floor_syncs;
    tokio::task::spawn_blocking(move || floor::measure(dir.path(), syncs))
        .await
        .context("the floor measurement panicked")?
}

/// Run the ladder once against a fresh broker.
pub async fn run_once(args: &LatencyArgs, run: usize) -> anyhow::Result<Outcome> {
    let options = args.producer_options()?;
    let target = Target::start(&args.target, &[])?;
    let floor_before = measure_floor(args).await?;
    let addr = target.addr();
    let client = Client::connect(addr.clone(), target.client_options())
        .await
        .with_context(|| format!("cannot connect to {addr}"))?;
    let consumer_client = Client::connect(addr.clone(), target.client_options())
        .await
        .with_context(|| format!("cannot connect to {addr}"))?;
    let producer = Producer::new(&client, options);
    let bench = level::Bench {
        target: &target,
        client: &client,
        consumer_client: &consumer_client,
        producer: &producer,
        base: Instant::now(),
        run,
        warmup: args.warmup,
        duration: args.duration,
        size: args.size,
    };
    let mut levels = Vec::new();
    let mut points = Vec::new();
    for (i, rate) in args.rates().into_iter().enumerate() {
        let row = level::run(&bench, i, rate).await?;
        let p = point(&row);
        eprintln!(
            "latency: offered {rate} msgs/s: sent {:.0}, consumed {:.0}, ack p99 {:.3} ms, produce-to-consume p99 {:.3} ms",
            p.sent, p.consumed, p.ack_p99, p.e2e_p99
        );
        let stop = knee::saturated(&p, &points);
        points.push(p);
        levels.push(row);
        if stop {
            eprintln!("latency: saturated at {rate} msgs/s");
            break;
        }
    }
    producer.close().await;
    let floor_after = measure_floor(args).await?;
    target.stop()?;
    Ok(Outcome {
        floor_before,
        floor_after,
        knee: knee::knee(&points),
        levels,
    })
}

/// Per offered rate, the median of every figure over the runs that reached it.
pub fn median_levels(runs: &[Outcome]) -> Vec<Run> {
    let mut rates: Vec<f64> = runs
        .iter()
        .flat_map(|o| o.levels.iter().filter_map(|l| l.get("offered")))
        .collect();
    rates.sort_by(f64::total_cmp);
    rates.dedup();
    rates
        .into_iter()
        .filter_map(|rate| {
            let rows: Vec<&Run> = runs
                .iter()
                .filter_map(|o| o.levels.iter().find(|l| l.get("offered") == Some(rate)))
                .collect();
            let first = rows.first()?;
            let mut m = Run::default();
            for f in &first.figures {
                let values: Vec<f64> = rows.iter().filter_map(|r| r.get(f.name)).collect();
                m.add(f.name, median(&values), f.unit);
            }
            Some(m)
        })
        .collect()
}

fn median_floor(floors: &[Floor]) -> Floor {
    let m = |f: fn(&Floor) -> f64| median(&floors.iter().map(f).collect::<Vec<_>>());
    Floor {
        p50_us: m(|f| f.p50_us),
        p99_us: m(|f| f.p99_us),
        max_us: m(|f| f.max_us),
    }
}

/// The median outcome of several runs (one run: itself).
pub fn median_outcome(runs: &[Outcome]) -> Outcome {
    let knees: Vec<f64> = runs.iter().map(|o| o.knee.unwrap_or(f64::NAN)).collect();
    let knee = median(&knees);
    Outcome {
        floor_before: median_floor(&runs.iter().map(|o| o.floor_before).collect::<Vec<_>>()),
        floor_after: median_floor(&runs.iter().map(|o| o.floor_after).collect::<Vec<_>>()),
        levels: median_levels(runs),
        knee: knee.is_finite().then_some(knee),
    }
}

fn cell(v: f64) -> String {
    if !v.is_finite() {
        "-".into()
    } else if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else if v.abs() >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

fn floor_line(what: &str, f: &Floor) -> String {
    format!(
        "fdatasync floor {what} (4 KiB append + fdatasync): p50 {} ms, p99 {} ms, max {} ms",
        cell(f.p50_us / 1e3),
        cell(f.p99_us / 1e3),
        cell(f.max_us / 1e3)
    )
}

/// The table: the floor, then one row per level, then the knee.
pub fn table(title: &str, settings: &str, o: &Outcome) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{title}\n{settings}");
    let _ = writeln!(out, "{}", floor_line("before", &o.floor_before));
    let _ = writeln!(out, "{}", floor_line("after", &o.floor_after));
    if let Some(first) = o.levels.first() {
        let widths: Vec<usize> = first
            .figures
            .iter()
            .map(|f| f.name.len().max(f.unit.chars().count() + 2).max(9))
            .collect();
        let mut names = String::new();
        let mut units = String::new();
        for (f, w) in first.figures.iter().zip(&widths) {
            let _ = write!(names, " {:>w$}", f.name);
            let _ = write!(units, " {:>w$}", format!("({})", f.unit));
        }
        let _ = writeln!(out, "{}\n{}", names.trim_start(), units.trim_start());
        for l in &o.levels {
            let mut line = String::new();
            for (f, w) in first.figures.iter().zip(&widths) {
                let _ = write!(line, " {:>w$}", cell(l.get(f.name).unwrap_or(f64::NAN)));
            }
            let _ = writeln!(out, "{}", line.trim_start());
        }
    }
    let _ = writeln!(
        out,
        "knee: {} (sent and consumed ≥ {:.0} % of offered, ack and produce-to-consume p99 ≤ {:.0} × the lowest level's p50)",
        o.knee
            .map_or("none".to_owned(), |k| format!("{} msgs/s", cell(k))),
        knee::KNEE_RATE * 100.0,
        knee::KNEE_P99_FACTOR,
    );
    out
}

fn num(v: f64) -> serde_json::Value {
    serde_json::Number::from_f64(v).map_or(serde_json::Value::Null, serde_json::Value::Number)
}

fn outcome_json(o: &Outcome) -> serde_json::Value {
    let floor = |f: &Floor| serde_json::json!({"p50_us": num(f.p50_us), "p99_us": num(f.p99_us), "max_us": num(f.max_us)});
    let levels: Vec<serde_json::Value> = o
        .levels
        .iter()
        .map(|l| {
            serde_json::Value::Object(
                l.figures
                    .iter()
                    .map(|f| (f.name.to_owned(), num(f.value)))
                    .collect(),
            )
        })
        .collect();
    serde_json::json!({
        "floor_before": floor(&o.floor_before),
        "floor_after": floor(&o.floor_after),
        "levels": levels,
        "knee": o.knee.map_or(serde_json::Value::Null, num),
    })
}

/// The JSON form: settings, every run, and the median.
pub fn json(settings: &str, runs: &[Outcome]) -> serde_json::Value {
    serde_json::json!({
        "scenario": "latency",
        "settings": settings,
        "runs": runs.iter().map(outcome_json).collect::<Vec<_>>(),
        "median": outcome_json(&median_outcome(runs)),
    })
}

/// `hermit bench latency`: every run (a fresh broker each), then the table
/// or JSON of the medians, and the plot if asked.
pub fn run(args: &LatencyArgs, runtime: &tokio::runtime::Runtime) -> anyhow::Result<()> {
    // Fail on a missing font before minutes of measuring, not after.
    if args.plot.is_some() {
        plot::load_font(args.font.as_deref())?;
    }
    let settings = args.settings();
    let runs = args.target.runs.max(1);
    let mut outcomes = Vec::new();
    for i in 0..runs {
        eprintln!("latency: run {} of {runs}", i + 1);
        let o = runtime.block_on(run_once(args, i))?;
        if !args.target.json && runs > 1 {
            eprint!(
                "{}",
                table(&format!("latency (run {})", i + 1), &settings, &o)
            );
        }
        outcomes.push(o);
    }
    let m = median_outcome(&outcomes);
    if args.target.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&json(&settings, &outcomes))?
        );
    } else {
        let title = if runs > 1 {
            format!("latency (median of {runs} runs)")
        } else {
            "latency".to_owned()
        };
        print!("{}", table(&title, &settings, &m));
    }
    if let Some(path) = &args.plot {
        plot::draw(path, &args.plot_title(runs), &m)?;
        eprintln!("latency: wrote {}", path.display());
    }
    Ok(())
}
