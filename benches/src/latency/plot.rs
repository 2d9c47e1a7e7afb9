//! The latency picture: offered rate (x, log scale) against latency (y, ms,
//! log scale): p50, p99 and p99.9 of the ack (thin lines) and of
//! produce-to-consume (thick, pale), the fdatasync p50 floor as a horizontal line and
//! the knee as a vertical one. A PNG through plotters' bitmap backend, its
//! text through the soak plot's font loader.

use std::path::Path;

use plotters::prelude::*;

use super::outcome::Outcome;

pub use crate::soak::plot::load_font;

/// The family [`load_font`] registers.
const FAMILY: &str = "sans-serif";

fn plot_err<E: std::fmt::Display>(e: E) -> anyhow::Error {
    anyhow::anyhow!("cannot draw the plot: {e}")
}

const FLOOR: RGBColor = RGBColor(90, 90, 90);
const KNEE: RGBColor = RGBColor(0, 150, 0);

/// 1000 → "1k", 2000000 → "2M".
fn rate_label(x: f64) -> String {
    if x >= 1e6 {
        format!("{}M", x / 1e6)
    } else if x >= 1e3 {
        format!("{}k", x / 1e3)
    } else {
        format!("{x}")
    }
}

/// Draw `o` (the median outcome) into a PNG at `path` (needs [`load_font`] first).
pub fn draw(path: &Path, title: &str, o: &Outcome) -> anyhow::Result<()> {
    let get = |name: &str| -> Vec<(f64, f64)> {
        o.levels
            .iter()
            .filter_map(|l| Some((l.get("offered")?, l.get(name)?)))
            .filter(|(x, y)| x.is_finite() && *x > 0.0 && y.is_finite() && *y > 0.0)
            .collect()
    };
    type Line = (&'static str, &'static str, RGBColor, u32);
    // Produce-to-consume first and thick, the ack on top and thin: the
    // two are often within a fraction of a millisecond of each other.
    let lines: [Line; 6] = [
        (
            "e2e_p50",
            "produce-to-consume p50",
            RGBColor(120, 200, 255),
            5,
        ),
        (
            "e2e_p99",
            "produce-to-consume p99",
            RGBColor(255, 200, 120),
            5,
        ),
        (
            "e2e_p999",
            "produce-to-consume p99.9",
            RGBColor(255, 150, 150),
            5,
        ),
        ("ack_p50", "ack p50", BLUE, 2),
        ("ack_p99", "ack p99", RGBColor(200, 100, 0), 2),
        ("ack_p999", "ack p99.9", RED, 2),
    ];
    let floor_ms = o.floor_before.p50_us / 1e3;
    let ys: Vec<f64> = lines
        .iter()
        .flat_map(|(name, ..)| get(name).into_iter().map(|(_, y)| y))
        .chain([floor_ms].into_iter().filter(|v| v.is_finite() && *v > 0.0))
        .collect();
    let xs: Vec<f64> = get("offered").into_iter().map(|(x, _)| x).collect();
    anyhow::ensure!(!xs.is_empty(), "nothing to plot: no level was measured");
    let (x_lo, x_hi) = (
        xs.iter().copied().fold(f64::INFINITY, f64::min) / 1.5,
        xs.iter().copied().fold(0.0, f64::max) * 1.5,
    );
    let (y_lo, y_hi) = (
        ys.iter().copied().fold(f64::INFINITY, f64::min).min(1.0) / 2.0,
        ys.iter().copied().fold(0.0, f64::max).max(1.0) * 2.0,
    );

    let root = BitMapBackend::new(path, (1200, 800)).into_drawing_area();
    root.fill(&WHITE).map_err(plot_err)?;
    let root = root.titled(title, (FAMILY, 18)).map_err(plot_err)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "latency from the intended send time (ms, log) against offered rate (msgs/s, log)",
            (FAMILY, 15),
        )
        .margin(14)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d((x_lo..x_hi).log_scale(), (y_lo..y_hi).log_scale())
        .map_err(plot_err)?;
    chart
        .configure_mesh()
        .x_desc("offered rate (msgs/s)")
        .x_label_formatter(&|x| rate_label(*x))
        .y_label_formatter(&|y| format!("{y}"))
        .y_desc("latency (ms)")
        .label_style((FAMILY, 13))
        .draw()
        .map_err(plot_err)?;
    for (name, label, color, width) in lines {
        let points = get(name);
        chart
            .draw_series(LineSeries::new(points.clone(), color.stroke_width(width)))
            .map_err(plot_err)?
            .label(label)
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(width))
            });
        chart
            .draw_series(
                points
                    .into_iter()
                    .map(|p| Circle::new(p, 3, color.filled())),
            )
            .map_err(plot_err)?;
    }
    if floor_ms.is_finite() && floor_ms > 0.0 {
        chart
            .draw_series(LineSeries::new(
                [(x_lo, floor_ms), (x_hi, floor_ms)],
                FLOOR.stroke_width(1),
            ))
            .map_err(plot_err)?
            .label(format!("fdatasync p50 (floor): {floor_ms:.3} ms"))
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], FLOOR));
    }
    if let Some(k) = o.knee {
        chart
            .draw_series(LineSeries::new(
                [(k, y_lo), (k, y_hi)],
                KNEE.stroke_width(1),
            ))
            .map_err(plot_err)?
            .label(format!("knee: {} msgs/s", rate_label(k)))
            .legend(|(x, y)| PathElement::new(vec![(x + 10, y - 6), (x + 10, y + 6)], KNEE));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .label_font((FAMILY, 13))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(plot_err)?;
    root.present().map_err(plot_err)?;
    Ok(())
}
