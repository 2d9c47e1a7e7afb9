//! HermitMQ's load generator (`hermit bench`) and the support code of the
//! criterion micro-benchmarks in `benches/`.
//!
//! # Layout
//! - [`process`]: a `hermit broker` child process, with its CPU time and peak memory.
pub mod process;
