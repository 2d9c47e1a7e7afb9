//! Coverage-guided fuzz targets for HermitMQ's parsers (`fuzz/README.md`).
//!
//! Each target is one `pub fn(&[u8])` holding its whole logic, shared by the
//! AFL++ entry points (`src/bin/<target>.rs`, feature `afl`) and by the
//! replay test (`tests/replay.rs`), which runs every saved corpus input and
//! every regression input through it in the normal test suite. A target
//! checks properties of what the code under test returns — round trips,
//! views inside their buffer, sizes that add up — and `assert!`s them: a
//! violation is a crash to the fuzzer, exactly like a panic in the code.
//!
//! # Layout
//! - [`protocol`]: the frame decoder (and hellos); the record-batch parser
//!   and record iterator.
//! - [`storage`]: the recovery scan over an arbitrary segment file.
//! - [`crypto`]: envelope open (DIRECT and MULTI), SEALKEY parsing,
//!   `ChatCrypto` decrypt.
//! - [`broker`]: the WebSocket adapter's inbound side; the config loader.
//! - [`scratch`]: where targets put their scratch files.

pub mod broker;
pub mod crypto;
pub mod protocol;
pub mod scratch;
pub mod storage;

pub use broker::{config, ws};
pub use crypto::{chat, envelope, sealkey};
pub use protocol::{batch, frame};
pub use scratch::{scratch_dir, scratch_path, thread_tag};
pub use storage::recovery;

/// A fuzz target: takes any bytes, panics only on a property violation.
pub type Target = fn(&[u8]);

/// Every target by name: the name is its corpus directory
/// (`corpus/<name>/`, `regressions/<name>/`) and its AFL binary.
pub const TARGETS: &[(&str, Target)] = &[
    ("frame", frame),
    ("batch", batch),
    ("recovery", recovery),
    ("envelope", envelope),
    ("sealkey", sealkey),
    ("chat", chat),
    ("ws", ws),
    ("config", config),
];
