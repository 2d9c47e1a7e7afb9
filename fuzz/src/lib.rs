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

pub mod broker;
pub mod crypto;
pub mod protocol;
pub mod storage;

pub use broker::{config, ws};
pub use crypto::{chat, envelope, sealkey};
pub use protocol::{batch, frame};
pub use storage::recovery;

/// Where targets put their scratch files: `/dev/shm` when there is one (no
/// disk writes for millions of runs), else the system's temporary directory.
pub fn scratch_dir() -> std::path::PathBuf {
    let shm = std::path::Path::new("/dev/shm");
    if shm.is_dir() {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    }
}

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
