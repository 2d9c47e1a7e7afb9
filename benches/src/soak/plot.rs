//! The soak's picture: broker RSS (with its bound), its open files (with
//! its RLIMIT_NOFILE) and the good clients' p50/p99 latency per window,
//! over time, the file-descriptor storm shaded and the bursts past the
//! connection limit drawn as thin lines. A PNG through plotters' bitmap
//! backend; text through ab_glyph with a TrueType font read at run time.

use std::path::Path;

use anyhow::Context;
use plotters::prelude::*;

use super::windows::{Op, Sample, Summary};

/// Where fonts usually are (Debian's fonts-dejavu-core, Fedora, Arch).
const FONTS: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
];

/// The font family name the plot asks for.
const FAMILY: &str = "sans-serif";

/// Register `font` (or the first DejaVu Sans or Liberation Sans found where
/// Debian, Fedora and Arch install them) as the plot's
/// font; returns the path used. Once per process is enough.
pub fn load_font(font: Option<&Path>) -> anyhow::Result<std::path::PathBuf> {
    let path = match font {
        Some(p) => p.to_path_buf(),
        None => FONTS
            .iter()
            .map(Path::new)
            .find(|p| p.exists())
            .map(Path::to_path_buf)
            .context("no TrueType font found for the plot's text: pass --font FILE.ttf")?,
    };
    let bytes = std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
    // The registry wants 'static bytes; one font per run, so leaking it is
    // the simple way to give them.
    let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
    plotters::style::register_font(FAMILY, FontStyle::Normal, bytes)
        .map_err(|_| anyhow::anyhow!("{} is not a usable TrueType font", path.display()))?;
    Ok(path)
}

/// What the plot shows.
pub struct PlotData<'a> {
    /// The title line (the command's settings).
    pub title: String,
    /// Broker samples.
    pub samples: &'a [Sample],
    /// Latency windows.
    pub windows: &'a [Summary],
    /// The window length, s (each window's point is drawn at its middle).
    pub window_s: f64,
    /// The RSS bound, bytes.
    pub rss_bound: u64,
    /// The broker's RLIMIT_NOFILE.
    pub nofile: u64,
    /// The file-descriptor storm, s from the start of the load.
    pub storm: Option<(f64, f64)>,
    /// When the bursts past the connection limit started, s.
    pub bursts: &'a [f64],
    /// The end of the load, s.
    pub end_s: f64,
}

fn plot_err<E: std::fmt::Display>(e: E) -> anyhow::Error {
    anyhow::anyhow!("cannot draw the plot: {e}")
}

const STORM: RGBColor = RGBColor(255, 190, 190);
const BURST: RGBColor = RGBColor(80, 80, 80);

/// Draw `data` into a PNG at `path` (needs [`load_font`] first).
pub fn draw(path: &Path, data: &PlotData<'_>) -> anyhow::Result<()> {
    let root = BitMapBackend::new(path, (1400, 1100)).into_drawing_area();
    root.fill(&WHITE).map_err(plot_err)?;
    let root = root.titled(&data.title, (FAMILY, 20)).map_err(plot_err)?;
    let panels = root.split_evenly((3, 1));
    let x_max = data.end_s.max(1.0);
    let x_min = data.samples.first().map_or(0.0, |s| s.t_s.min(0.0));
    let marks = |top: f64, bottom: f64| {
        let storm = data
            .storm
            .map(|(a, b)| Rectangle::new([(a, bottom), (b, top)], STORM.mix(0.5).filled()));
        let bursts = data
            .bursts
            .iter()
            .map(move |&t| PathElement::new(vec![(t, bottom), (t, top)], BURST.stroke_width(1)));
        (storm, bursts)
    };

    // RSS.
    let mib = |b: u64| b as f64 / (1 << 20) as f64;
    let rss_top = data
        .samples
        .iter()
        .map(|s| mib(s.rss_bytes))
        .fold(mib(data.rss_bound), f64::max)
        * 1.1;
    let mut chart = ChartBuilder::on(&panels[0])
        .caption("broker RSS (VmRSS, MiB)", (FAMILY, 16))
        .margin(12)
        .x_label_area_size(30)
        .y_label_area_size(70)
        .build_cartesian_2d(x_min..x_max, 0.0..rss_top)
        .map_err(plot_err)?;
    chart
        .configure_mesh()
        .x_desc("seconds since the load began")
        .label_style((FAMILY, 13))
        .draw()
        .map_err(plot_err)?;
    let (storm, bursts) = marks(rss_top, 0.0);
    chart
        .draw_series(storm)
        .map_err(plot_err)?
        .label("file-descriptor storm")
        .legend(|(x, y)| Rectangle::new([(x, y - 5), (x + 20, y + 5)], STORM.filled()));
    chart
        .draw_series(bursts)
        .map_err(plot_err)?
        .label("burst past max_connections")
        .legend(|(x, y)| PathElement::new(vec![(x + 10, y - 6), (x + 10, y + 6)], BURST));
    chart
        .draw_series(LineSeries::new(
            data.samples.iter().map(|s| (s.t_s, mib(s.rss_bytes))),
            BLUE.stroke_width(2),
        ))
        .map_err(plot_err)?
        .label("VmRSS")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLUE.stroke_width(2)));
    let bound = mib(data.rss_bound);
    chart
        .draw_series(LineSeries::new(
            [(x_min, bound), (x_max, bound)],
            RED.stroke_width(1),
        ))
        .map_err(plot_err)?
        .label("bound (budgets)")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], RED));
    legend(&mut chart)?;

    // Open files.
    let fd_top = data
        .samples
        .iter()
        .map(|s| s.open_files)
        .max()
        .unwrap_or(0)
        .max(data.nofile) as f64
        * 1.1;
    let mut chart = ChartBuilder::on(&panels[1])
        .caption("broker open files (/proc/<pid>/fd)", (FAMILY, 16))
        .margin(12)
        .x_label_area_size(30)
        .y_label_area_size(70)
        .build_cartesian_2d(x_min..x_max, 0.0..fd_top)
        .map_err(plot_err)?;
    chart
        .configure_mesh()
        .x_desc("seconds since the load began")
        .label_style((FAMILY, 13))
        .draw()
        .map_err(plot_err)?;
    let (storm, bursts) = marks(fd_top, 0.0);
    chart.draw_series(storm).map_err(plot_err)?;
    chart.draw_series(bursts).map_err(plot_err)?;
    chart
        .draw_series(LineSeries::new(
            data.samples.iter().map(|s| (s.t_s, s.open_files as f64)),
            GREEN.stroke_width(2),
        ))
        .map_err(plot_err)?
        .label("open files")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], GREEN.stroke_width(2)));
    let nofile = data.nofile as f64;
    chart
        .draw_series(LineSeries::new(
            [(x_min, nofile), (x_max, nofile)],
            RED.stroke_width(1),
        ))
        .map_err(plot_err)?
        .label("RLIMIT_NOFILE")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], RED));
    legend(&mut chart)?;

    // Latency, log scale.
    let finite = |v: f64| v.is_finite() && v > 0.0;
    let lat_top = data
        .windows
        .iter()
        .flat_map(|w| [w.p99_ms, w.p50_ms].into_iter().chain(w.p99_op_ms))
        .filter(|v| finite(*v))
        .fold(1.0, f64::max)
        * 2.0;
    let lat_bottom = data
        .windows
        .iter()
        .map(|w| w.p50_ms)
        .filter(|v| finite(*v))
        .fold(lat_top, f64::min)
        .max(0.01)
        / 2.0;
    let mut chart = ChartBuilder::on(&panels[2])
        .caption(
            format!(
                "good clients' request latency per {:.0} s window (ms, log scale)",
                data.window_s
            ),
            (FAMILY, 16),
        )
        .margin(12)
        .x_label_area_size(30)
        .y_label_area_size(70)
        .build_cartesian_2d(x_min..x_max, (lat_bottom..lat_top).log_scale())
        .map_err(plot_err)?;
    chart
        .configure_mesh()
        .x_desc("seconds since the load began")
        .label_style((FAMILY, 13))
        .draw()
        .map_err(plot_err)?;
    let (storm, bursts) = marks(lat_top, lat_bottom);
    chart.draw_series(storm).map_err(plot_err)?;
    chart.draw_series(bursts).map_err(plot_err)?;
    let mid = data.window_s / 2.0;
    let series = |f: &dyn Fn(&Summary) -> f64| -> Vec<(f64, f64)> {
        data.windows
            .iter()
            .map(|w| (w.start_s + mid, f(w)))
            .filter(|(_, v)| finite(*v))
            .collect()
    };
    // (label, points, colour, line width)
    type Line<'s> = (&'s str, Vec<(f64, f64)>, RGBColor, u32);
    let lines: [Line<'_>; 5] = [
        ("p99, all requests", series(&|w| w.p99_ms), RED, 3),
        ("p50, all requests", series(&|w| w.p50_ms), BLUE, 3),
        (
            "p99 produce (durable)",
            series(&|w| w.p99_op_ms[Op::Produce as usize]),
            RGBColor(230, 140, 0),
            1,
        ),
        (
            "p99 fetch",
            series(&|w| w.p99_op_ms[Op::Fetch as usize]),
            RGBColor(0, 150, 0),
            1,
        ),
        (
            "p99 commit",
            series(&|w| w.p99_op_ms[Op::Commit as usize]),
            MAGENTA,
            1,
        ),
    ];
    for (label, points, color, width) in lines {
        chart
            .draw_series(LineSeries::new(points, color.stroke_width(width)))
            .map_err(plot_err)?
            .label(label)
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(width))
            });
    }
    legend(&mut chart)?;
    root.present().map_err(plot_err)?;
    Ok(())
}

fn legend<'a, DB: DrawingBackend + 'a, CT: CoordTranslate>(
    chart: &mut ChartContext<'a, DB, CT>,
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .label_font((FAMILY, 13))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(plot_err)
}
