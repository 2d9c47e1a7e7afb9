//! Checks one crate: finds its roots (`lib.rs`, `main.rs`, `bin/*.rs`,
//! `bin/*/main.rs`), loads each root's module tree and puts the edges,
//! circles and file sizes of all of them in one report. Each root is its
//! own tree: a binary names its library by the crate's name, never by
//! `crate::`, so no edge joins two trees.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

use crate::graph;
use crate::model::{CrateReport, FileSize};
use crate::tree::{Source, Tree};

/// The workspace's crates the check covers by default (directories under
/// the workspace root), in the order they are printed.
pub const WORKSPACE_CRATES: &[&str] = &[
    "protocol",
    "broker",
    "client",
    "cli",
    "benches",
    "e2e-tests",
    "fuzz",
];

/// Checks the crate whose `src/` directory is `src`.
///
/// Reads every `.rs` file under `src`; fails only when `src` cannot be listed.
pub fn check_src_dir(src: &Path) -> io::Result<CrateReport> {
    let mut files = BTreeMap::new();
    collect(src, Path::new(""), &mut files)?;
    Ok(check_sources(&files))
}

/// Checks a crate given as its source files in memory, keyed by path
/// relative to `src/` (`lib.rs`, `log/mod.rs`, …).
pub fn check_sources(files: &BTreeMap<PathBuf, String>) -> CrateReport {
    let source = Memory(files);
    let mut report = CrateReport::default();
    for root in files.keys().filter(|p| is_root(p)) {
        let Some(tree) = Tree::load(&source, root) else {
            continue;
        };
        report.edges.extend(graph::edges(&tree));
        report.files.extend(tree.files.iter().map(|f| FileSize {
            path: f.path.clone(),
            lines: f.lines,
        }));
    }
    report
        .edges
        .sort_by(|a, b| (&a.from, &a.to).cmp(&(&b.from, &b.to)));
    report
        .files
        .sort_by(|a, b| b.lines.cmp(&a.lines).then_with(|| a.path.cmp(&b.path)));
    report.circles = graph::circles(&report.edges);
    report
}

/// A crate root: `lib.rs`, `main.rs`, `bin/x.rs` or `bin/x/main.rs`.
fn is_root(rel: &Path) -> bool {
    let parts: Vec<_> = rel.iter().filter_map(|p| p.to_str()).collect();
    match parts.as_slice() {
        ["lib.rs" | "main.rs"] => true,
        ["bin", file] => file.ends_with(".rs"),
        ["bin", _, "main.rs"] => true,
        _ => false,
    }
}

struct Memory<'a>(&'a BTreeMap<PathBuf, String>);

impl Source for Memory<'_> {
    fn read(&self, rel: &Path) -> Option<String> {
        self.0.get(rel).cloned()
    }
}

/// Reads every `.rs` file under `dir` into `out`, keyed relative to the
/// directory first given.
fn collect(dir: &Path, rel: &Path, out: &mut BTreeMap<PathBuf, String>) -> io::Result<()> {
    let here = dir.join(rel);
    let entries = std::fs::read_dir(&here)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", here.display())))?;
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name();
        let child = rel.join(&name);
        if entry.file_type()?.is_dir() {
            collect(dir, &child, out)?;
        } else if child.extension().is_some_and(|e| e == "rs") {
            let path = dir.join(&child);
            let text = std::fs::read_to_string(&path)
                .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
            out.insert(child, text);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
