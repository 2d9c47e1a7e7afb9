//! Results: named figures per run, printed as a table (with the median of
//! several runs) or as JSON. Results go to stdout; progress to stderr.

use std::fmt::Write as _;

/// One figure of one run.
#[derive(Debug, Clone)]
pub struct Figure {
    /// Short stable name (JSON key).
    pub name: &'static str,
    /// Value.
    pub value: f64,
    /// Unit, for the table.
    pub unit: &'static str,
}

/// The figures of one run, in display order.
#[derive(Debug, Clone, Default)]
pub struct Run {
    /// Figures.
    pub figures: Vec<Figure>,
}

impl Run {
    /// Add a figure.
    pub fn add(&mut self, name: &'static str, value: f64, unit: &'static str) {
        self.figures.push(Figure { name, value, unit });
    }

    /// A figure's value by name.
    pub fn get(&self, name: &str) -> Option<f64> {
        self.figures
            .iter()
            .find(|f| f.name == name)
            .map(|f| f.value)
    }
}

/// Median of some values (the mean of the two middle ones for an even count).
pub fn median(values: &[f64]) -> f64 {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// The smallest (`f64::min`) or largest (`f64::max`) finite value; NaN if none.
pub fn extreme(values: &[f64], pick: fn(f64, f64) -> f64) -> f64 {
    values
        .iter()
        .copied()
        .filter(|x| x.is_finite())
        .reduce(pick)
        .unwrap_or(f64::NAN)
}

fn fmt_value(v: f64) -> String {
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

/// The table: one column per run and, with several runs, a median column.
pub fn table(title: &str, settings: &str, runs: &[Run]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{title}");
    let _ = writeln!(out, "{settings}");
    let Some(first) = runs.first() else {
        return out;
    };
    let name_w = first
        .figures
        .iter()
        .map(|f| f.name.len() + f.unit.len() + 3)
        .max()
        .unwrap_or(10);
    let mut header = format!("{:<name_w$}", "");
    if runs.len() > 1 {
        for i in 0..runs.len() {
            let _ = write!(header, " {:>10}", format!("run {}", i + 1));
        }
        for col in ["min", "median", "max"] {
            let _ = write!(header, " {col:>10}");
        }
    }
    let _ = writeln!(out, "{}", header.trim_end());
    for f in &first.figures {
        let label = format!("{} ({})", f.name, f.unit);
        let _ = write!(out, "{label:<name_w$}");
        let values: Vec<f64> = runs
            .iter()
            .map(|r| r.get(f.name).unwrap_or(f64::NAN))
            .collect();
        if runs.len() > 1 {
            for v in &values {
                let _ = write!(out, " {:>10}", fmt_value(*v));
            }
            let _ = write!(out, " {:>10}", fmt_value(extreme(&values, f64::min)));
            let _ = write!(out, " {:>10}", fmt_value(median(&values)));
            let _ = writeln!(out, " {:>10}", fmt_value(extreme(&values, f64::max)));
        } else {
            let _ = writeln!(out, " {:>10}", fmt_value(median(&values)));
        }
    }
    out
}

/// The JSON form: settings, every run, and the minimum, median and maximum.
pub fn json(scenario: &str, settings: serde_json::Value, runs: &[Run]) -> serde_json::Value {
    let run_objs: Vec<serde_json::Value> = runs
        .iter()
        .map(|r| {
            serde_json::Value::Object(
                r.figures
                    .iter()
                    .map(|f| (f.name.to_owned(), json_num(f.value)))
                    .collect(),
            )
        })
        .collect();
    let summary = |of: &dyn Fn(&[f64]) -> f64| {
        runs.first().map(|first| {
            serde_json::Value::Object(
                first
                    .figures
                    .iter()
                    .map(|f| {
                        let vals: Vec<f64> = runs
                            .iter()
                            .map(|r| r.get(f.name).unwrap_or(f64::NAN))
                            .collect();
                        (f.name.to_owned(), json_num(of(&vals)))
                    })
                    .collect(),
            )
        })
    };
    serde_json::json!({
        "scenario": scenario,
        "settings": settings,
        "runs": run_objs,
        "min": summary(&|v| extreme(v, f64::min)),
        "median": summary(&median),
        "max": summary(&|v| extreme(v, f64::max)),
    })
}

fn json_num(v: f64) -> serde_json::Value {
    serde_json::Number::from_f64(v).map_or(serde_json::Value::Null, serde_json::Value::Number)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(&[]).is_nan());
        assert_eq!(median(&[f64::NAN, 5.0]), 5.0);
        assert_eq!(extreme(&[3.0, f64::NAN, 1.0, 2.0], f64::min), 1.0);
        assert_eq!(extreme(&[3.0, f64::NAN, 1.0, 2.0], f64::max), 3.0);
        assert!(extreme(&[f64::NAN], f64::max).is_nan());
    }

    #[test]
    fn table_has_a_median_column_for_several_runs() {
        let mut a = Run::default();
        a.add("msgs_per_s", 10.0, "M/s");
        let mut b = Run::default();
        b.add("msgs_per_s", 30.0, "M/s");
        let mut c = Run::default();
        c.add("msgs_per_s", 20.0, "M/s");
        let t = table("stress", "settings", &[a, b, c]);
        let header = t.lines().nth(2).unwrap();
        let cols: Vec<&str> = header.split_whitespace().collect();
        assert_eq!(cols[cols.len() - 3..], ["min", "median", "max"], "{header}");
        let line = t.lines().find(|l| l.starts_with("msgs_per_s")).unwrap();
        let vals: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(
            vals[vals.len() - 3..],
            ["10.00", "20.00", "30.00"],
            "{line}"
        );
    }
}
