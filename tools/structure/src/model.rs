//! What a check finds: the edges between a crate's files, the circles
//! among them, and each file's size.

use std::path::PathBuf;

/// One name a file takes from another, and the first line it is taken on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Name {
    /// The segments past the module prefix, joined by `::`
    /// (`Origins::check_entry`), or the module's own name when the path
    /// stops at a module, or `*` for a glob.
    pub text: String,
    /// 1-based line in the file that names it.
    pub line: usize,
}

/// File `from` uses file `to`: it names items through paths that resolve to
/// `to`'s module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edge {
    /// The file that names (relative to the crate's `src/`).
    pub from: PathBuf,
    /// The file named (relative to the crate's `src/`).
    pub to: PathBuf,
    /// What is named, sorted, each once.
    pub names: Vec<Name>,
}

/// A strongly connected set of more than one file: each reaches every other
/// through edges.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Circle {
    /// The files, sorted.
    pub files: Vec<PathBuf>,
    /// The edges between them, sorted by (from, to).
    pub edges: Vec<Edge>,
}

/// A non-test file and its raw line count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileSize {
    /// Relative to the crate's `src/`.
    pub path: PathBuf,
    /// Lines, test modules written in the file included.
    pub lines: usize,
}

/// The check of one crate's `src/`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CrateReport {
    /// Every non-test file reached from a crate root, largest first.
    pub files: Vec<FileSize>,
    /// Every edge, sorted by (from, to).
    pub edges: Vec<Edge>,
    /// Every circle, sorted by their file lists.
    pub circles: Vec<Circle>,
}

impl CrateReport {
    /// The files over `max_lines` lines, largest first.
    pub fn oversize(&self, max_lines: usize) -> impl Iterator<Item = &FileSize> {
        self.files.iter().filter(move |f| f.lines > max_lines)
    }

    /// The largest file, if any.
    pub fn largest(&self) -> Option<&FileSize> {
        self.files.first()
    }
}
