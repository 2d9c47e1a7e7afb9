//! The broker is blind by construction: what it links is written down in
//! `tools/structure/broker-dependencies.txt`, and no sealing or MLS crate
//! (nor the client SDK) may ever be among it. A crate added to the broker
//! fails this test until the list is updated on purpose — in review, where
//! someone asks why the broker needs it.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// Crates the broker must never link: the client SDK, and what seals or
/// runs MLS (the broker never holds a key that opens a message).
const NEVER: &[&str] = &[
    "hermit-client",
    "aes-gcm",
    "aes",
    "hkdf",
    "argon2",
    "aws-lc-rs",
    "aws-lc-sys",
    "openmls",
    "openmls_rust_crypto",
    "mls-rs",
    "mls-rs-core",
    "mls-rs-crypto-rustcrypto",
    "mls-rs-crypto-hpke",
    "hpke",
    "hpke-rs",
];

fn broker_dependencies() -> BTreeSet<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new(cargo)
        .current_dir(&root)
        .args([
            "tree",
            "-p",
            "hermit-broker",
            "-e",
            "normal",
            "--prefix",
            "none",
            "--offline",
        ])
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_broker_links_no_sealing_crate_and_nothing_unlisted() {
    let linked = broker_dependencies();
    for name in NEVER {
        assert!(
            !linked.contains(*name),
            "the broker links {name}: it must stay blind"
        );
    }
    let listed: BTreeSet<String> = include_str!("../broker-dependencies.txt")
        .lines()
        .map(str::to_owned)
        .collect();
    let new: Vec<_> = linked.difference(&listed).collect();
    assert!(
        new.is_empty(),
        "the broker links crates not in tools/structure/broker-dependencies.txt: {new:?} \
         (add them there on purpose, after asking why the broker needs them)"
    );
}
