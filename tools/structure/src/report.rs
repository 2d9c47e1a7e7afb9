//! The check's text output: per crate, each circle with its edges and each
//! file over the line limit; a summary line at the end.

use std::fmt::Write as _;
use std::path::Path;

use crate::model::{CrateReport, Edge};

/// How to print a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// A non-test file over this many lines is reported. Default 1000.
    pub max_file_lines: usize,
    /// Print the line where each name is first taken (`Name (l. 12)`).
    /// Default off.
    pub show_lines: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_file_lines: 1000,
            show_lines: false,
        }
    }
}

/// The printed check of several crates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    /// The text to print.
    pub text: String,
    /// No circle and no file over the limit.
    pub clean: bool,
}

/// Renders `reports`, each labelled (the crate's `src/` path as the reader
/// should see it). Circles are numbered across all crates.
pub fn render(reports: &[(String, CrateReport)], options: Options) -> Rendered {
    let mut text = String::new();
    let (mut circles, mut oversize) = (0usize, 0usize);
    for (label, report) in reports {
        let big: Vec<_> = report.oversize(options.max_file_lines).collect();
        if report.circles.is_empty() && big.is_empty() {
            continue;
        }
        let _ = writeln!(
            text,
            "{label}: {}, {}",
            count(report.circles.len(), "circle"),
            count(
                big.len(),
                &format!("file over {} lines", options.max_file_lines)
            ),
        );
        for circle in &report.circles {
            circles += 1;
            let files: Vec<String> = circle.files.iter().map(|p| show(p)).collect();
            let _ = writeln!(
                text,
                "circle {circles}: {} files: {}",
                files.len(),
                files.join(", ")
            );
            for edge in &circle.edges {
                let _ = writeln!(text, "  {}", edge_line(edge, options.show_lines));
            }
        }
        for file in big {
            oversize += 1;
            let _ = writeln!(
                text,
                "over {} lines: {} ({} lines)",
                options.max_file_lines,
                show(&file.path),
                file.lines
            );
        }
    }
    let clean = circles == 0 && oversize == 0;
    if clean {
        let largest = reports
            .iter()
            .filter_map(|(label, r)| r.largest().map(|f| (label, f)))
            .max_by_key(|(_, f)| f.lines);
        match largest {
            Some((label, f)) => {
                let _ = writeln!(
                    text,
                    "no circles; largest file {label}/{} ({} lines)",
                    show(&f.path),
                    f.lines
                );
            }
            None => text.push_str("no circles; no files\n"),
        }
    } else {
        let _ = writeln!(
            text,
            "{}, {}",
            count(circles, "circle"),
            count(
                oversize,
                &format!("file over {} lines", options.max_file_lines)
            )
        );
    }
    Rendered { text, clean }
}

/// `a.rs -> b.rs: Name, Name`.
fn edge_line(edge: &Edge, show_lines: bool) -> String {
    let names: Vec<String> = edge
        .names
        .iter()
        .map(|n| {
            if show_lines {
                format!("{} (l. {})", n.text, n.line)
            } else {
                n.text.clone()
            }
        })
        .collect();
    format!(
        "{} -> {}: {}",
        show(&edge.from),
        show(&edge.to),
        names.join(", ")
    )
}

/// `1 circle`, `2 circles`, `no circles`.
fn count(n: usize, what: &str) -> String {
    match n {
        0 => format!("no {}", plural(what)),
        1 => format!("1 {what}"),
        _ => format!("{n} {}", plural(what)),
    }
}

/// `circle` → `circles`, `file over N lines` → `files over N lines`.
fn plural(what: &str) -> String {
    match what.split_once(' ') {
        Some((head, tail)) => format!("{head}s {tail}"),
        None => format!("{what}s"),
    }
}

/// A relative path with `/` separators, whatever the platform.
fn show(path: &Path) -> String {
    let parts: Vec<_> = path.iter().map(|p| p.to_string_lossy()).collect();
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::model::{Circle, FileSize, Name};

    fn file(path: &str, lines: usize) -> FileSize {
        FileSize {
            path: PathBuf::from(path),
            lines,
        }
    }

    fn edge(from: &str, to: &str, names: &[(&str, usize)]) -> Edge {
        Edge {
            from: PathBuf::from(from),
            to: PathBuf::from(to),
            names: names
                .iter()
                .map(|(text, line)| Name {
                    text: (*text).to_owned(),
                    line: *line,
                })
                .collect(),
        }
    }

    #[test]
    fn circles_numbered_across_crates_then_oversized_files_and_a_summary() {
        let a = edge("a.rs", "b/mod.rs", &[("B", 3), ("f", 9)]);
        let b = edge("b/mod.rs", "a.rs", &[("A", 1)]);
        let circle = Circle {
            files: vec![PathBuf::from("a.rs"), PathBuf::from("b/mod.rs")],
            edges: vec![a.clone(), b.clone()],
        };
        let one = CrateReport {
            files: vec![file("a.rs", 20), file("b/mod.rs", 5)],
            edges: vec![a, b],
            circles: vec![circle.clone()],
        };
        let clean = CrateReport {
            files: vec![file("lib.rs", 3)],
            ..CrateReport::default()
        };
        let reports = [
            ("x/src".to_owned(), one.clone()),
            ("clean/src".to_owned(), clean),
            ("y/src".to_owned(), one),
        ];
        let options = Options {
            max_file_lines: 10,
            show_lines: false,
        };
        let out = render(&reports, options);
        assert!(!out.clean);
        assert_eq!(
            out.text,
            "x/src: 1 circle, 1 file over 10 lines\n\
             circle 1: 2 files: a.rs, b/mod.rs\n\
             \x20 a.rs -> b/mod.rs: B, f\n\
             \x20 b/mod.rs -> a.rs: A\n\
             over 10 lines: a.rs (20 lines)\n\
             y/src: 1 circle, 1 file over 10 lines\n\
             circle 2: 2 files: a.rs, b/mod.rs\n\
             \x20 a.rs -> b/mod.rs: B, f\n\
             \x20 b/mod.rs -> a.rs: A\n\
             over 10 lines: a.rs (20 lines)\n\
             2 circles, 2 files over 10 lines\n"
        );
        let shown = render(
            &reports[..1],
            Options {
                show_lines: true,
                ..options
            },
        );
        assert!(
            shown
                .text
                .contains("a.rs -> b/mod.rs: B (l. 3), f (l. 9)\n")
        );
    }

    #[test]
    fn clean_is_one_line_naming_the_largest_file() {
        let report = |lines| CrateReport {
            files: vec![file("lib.rs", lines)],
            ..CrateReport::default()
        };
        let reports = [
            ("p/src".to_owned(), report(12)),
            ("q/src".to_owned(), report(40)),
        ];
        let out = render(&reports, Options::default());
        assert!(out.clean);
        assert_eq!(
            out.text,
            "no circles; largest file q/src/lib.rs (40 lines)\n"
        );
    }
}
