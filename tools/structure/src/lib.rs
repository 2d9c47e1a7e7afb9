//! The workspace's structure check: in each crate, the file-level "uses"
//! graph and its circles, and the files over a line limit.
//!
//! File A uses file B (same crate, A ≠ B) when A names an item through a
//! path that resolves to B's module: any path, in a `use` tree or inline in
//! code (`crate::net::Origins::check_entry(…)`, `super::quota::Admission`),
//! starting at `crate`, `super`, `self`, a child module or a name a `use`
//! brought in. A circle is a strongly connected set of more than one file.
//! `mod x;` is not an edge; comments, doc comments and literals are not
//! code; test code (`#[cfg(test)]`, `#[test]`) is left out. Re-exports are
//! not followed: an item a `mod.rs` re-exports is that `mod.rs`'s.
//!
//! Not modelled, as nothing in the workspace needs it: `#[path]` on a
//! module, and names a glob import (`use a::*`) brings in (the glob itself
//! is an edge to `a`).
//!
//! # Layout
//! - `lex`: source text to tokens, comments and literals taken out.
//! - `scan`: one file's tokens to its `mod` declarations, `use` leaves and
//!   other paths, test code dropped.
//! - `tree`: a crate root's module tree and path resolution over it.
//! - `graph`: a tree's edges, and the circles of a set of edges (Tarjan).
//! - `check`: one crate's `src/` (every root) to a [`CrateReport`].
//! - `model`: what a check finds ([`Edge`], [`Circle`], [`FileSize`]).
//! - `report`: the printed form, with a summary line ([`render`]).
//!
//! The binary (`src/main.rs`) runs the check over the workspace's crates.

mod check;
mod graph;
mod lex;
mod model;
mod report;
mod scan;
mod tree;

pub use check::{WORKSPACE_CRATES, check_sources, check_src_dir};
pub use model::{Circle, CrateReport, Edge, FileSize, Name};
pub use report::{Options, Rendered, render};
