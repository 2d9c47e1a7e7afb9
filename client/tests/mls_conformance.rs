//! RFC 9420 conformance: the passive-client test vectors of the MLS working
//! group, every ciphersuite-2 case, run through mls-rs on **our** provider
//! ([`Suite2Provider`]).
//!
//! The vectors are not in this repository: they are read from the copy the
//! published `openmls` 0.5.0 crate ships in `test_vectors/`, which cargo
//! downloads from crates.io (`scripts/test.sh` runs `cargo fetch` on
//! `scripts/mls-vectors/Cargo.toml`; nothing of it is compiled), or from
//! the directory `HERMIT_MLS_VECTORS` names. Each file is checked against
//! its SHA-256 before use: `passive-client-welcome.json` is byte-identical
//! to mlswg/mls-implementations at `cfd4502`; the crate's
//! `passive-client-handling-commit.json` is that repository's version from
//! before its 2024-03-14 regeneration (#185), with the same cases and
//! 2023 lifetimes.
//!
//! A passive client is given a KeyPackage with its private keys (injected
//! through mls-rs's public `KeyPackageStorage` / `KeyPackageData`), joins
//! from the Welcome — with the ratchet tree when the vector carries it
//! outside the Welcome, with the external PSKs the vector lists — and then
//! processes each epoch's proposals and commit. After the join and after
//! every commit its epoch authenticator must equal the vector's.
//!
//! Validation is **as of a time inside the vectors' lifetimes**
//! ([`WELCOME_TIME`], [`HANDLING_COMMIT_TIME`]): their leaves expired on
//! 2024-03-02, and mls-rs checks leaf lifetimes (on join and on every
//! commit) against the time it is given. That the time is used is shown
//! too: the same cases validated as of today, or before their lifetimes
//! began, are refused.
//! See docs/MLS.md §8.

use std::path::PathBuf;

use hermit_client::mls::Suite2Provider;
use mls_rs::client_builder::ClientBuilder;
use mls_rs::error::MlsError;
use mls_rs::group::ExportedTree;
use mls_rs::identity::basic::BasicIdentityProvider;
use mls_rs::mls_rs_codec::MlsEncode as _;
use mls_rs::psk::{ExternalPskId, PreSharedKey};
use mls_rs::storage_provider::in_memory::{InMemoryKeyPackageStorage, InMemoryPreSharedKeyStorage};
use mls_rs::time::MlsTime;
use mls_rs::{CryptoProvider, MlsMessage};
use mls_rs_core::crypto::{CipherSuite, HpkeSecretKey, SignatureSecretKey};
use mls_rs_core::key_package::KeyPackageData;
use serde_json::Value;

/// The time each file is validated as of, inside the lifetimes of all its
/// leaves (2023-03-03 to 2024-03-02 in both files): 2023-09-01T00:00:00Z.
const WELCOME_TIME: u64 = 1_693_526_400;
const HANDLING_COMMIT_TIME: u64 = 1_693_526_400;
/// A time before the leaves' lifetimes began: 2022-09-01T00:00:00Z.
const BEFORE_TIME: u64 = 1_661_990_400;

/// The SHA-256 of each file as the `openmls` 0.5.0 crate ships it.
const WELCOME_SHA256: &str = "92ebb04b67b1aca4290965ae363650921842ceebe275bd79a2733414078d849c";
const HANDLING_COMMIT_SHA256: &str =
    "23a1b353a0ef94b1aac4ab90630b7c7b41da9e95850890d6da479241eed79fd6";

/// The ciphersuite under test, and the number of its cases per file: a file
/// that lost or gained cases fails instead of passing on fewer.
const SUITE: u16 = 2;
const WELCOME_CASES: usize = 8;
const HANDLING_COMMIT_CASES: usize = 13;

/// One passive-client test case (RFC 9420 test-vectors.md, "Passive Client").
struct Case {
    cipher_suite: u16,
    external_psks: Vec<(Vec<u8>, Vec<u8>)>,
    key_package: Vec<u8>,
    signature_priv: Vec<u8>,
    encryption_priv: Vec<u8>,
    init_priv: Vec<u8>,
    welcome: Vec<u8>,
    ratchet_tree: Option<Vec<u8>>,
    initial_epoch_authenticator: Vec<u8>,
    epochs: Vec<Epoch>,
}

struct Epoch {
    proposals: Vec<Vec<u8>>,
    commit: Vec<u8>,
    epoch_authenticator: Vec<u8>,
}

/// The directory `HERMIT_MLS_VECTORS` names, else `test_vectors/` of the
/// `openmls-0.5.0` crate in cargo's registry (`$CARGO_HOME`, else
/// `~/.cargo`), else a panic that says how to get it.
fn vectors_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("HERMIT_MLS_VECTORS") {
        return PathBuf::from(dir);
    }
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .expect("CARGO_HOME or HOME");
    let registry = home.join("registry/src");
    let found = std::fs::read_dir(&registry).ok().and_then(|dirs| {
        dirs.flatten()
            .map(|d| d.path().join("openmls-0.5.0/test_vectors"))
            .find(|p| p.is_dir())
    });
    found.unwrap_or_else(|| {
        panic!(
            "the RFC 9420 test vectors were not found under {}/*/openmls-0.5.0/test_vectors: \
             run `cargo fetch --locked --manifest-path scripts/mls-vectors/Cargo.toml` \
             (scripts/test.sh does), or point HERMIT_MLS_VECTORS at a directory holding \
             passive-client-welcome.json and passive-client-handling-commit.json",
            registry.display()
        )
    })
}

/// The expected SHA-256 of a vector file, by name.
fn expected_sha256(name: &str) -> Option<&'static str> {
    match name {
        "passive-client-welcome.json" => Some(WELCOME_SHA256),
        "passive-client-handling-commit.json" => Some(HANDLING_COMMIT_SHA256),
        _ => None,
    }
}

fn unhex(v: &Value) -> Vec<u8> {
    let s = v.as_str().expect("a hex string");
    assert!(s.len().is_multiple_of(2), "odd-length hex");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

/// The cases of the vector file `name` (a path is read as it is, without
/// a checksum), checked against its SHA-256.
fn load(name: &str) -> Vec<Case> {
    let path = vectors_dir().join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (see vectors_dir)", path.display()));
    if let Some(expected) = expected_sha256(name) {
        use sha2::Digest as _;
        let digest = sha2::Sha256::digest(text.as_bytes());
        let got: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(got, expected, "{}: not the expected file", path.display());
    }
    let cases: Vec<Value> = serde_json::from_str(&text).expect("JSON test vectors");
    cases
        .iter()
        .map(|c| Case {
            cipher_suite: u16::try_from(c["cipher_suite"].as_u64().expect("suite")).expect("u16"),
            external_psks: c["external_psks"]
                .as_array()
                .expect("external_psks")
                .iter()
                .map(|p| (unhex(&p["psk_id"]), unhex(&p["psk"])))
                .collect(),
            key_package: unhex(&c["key_package"]),
            signature_priv: unhex(&c["signature_priv"]),
            encryption_priv: unhex(&c["encryption_priv"]),
            init_priv: unhex(&c["init_priv"]),
            welcome: unhex(&c["welcome"]),
            ratchet_tree: (!c["ratchet_tree"].is_null()).then(|| unhex(&c["ratchet_tree"])),
            initial_epoch_authenticator: unhex(&c["initial_epoch_authenticator"]),
            epochs: c["epochs"]
                .as_array()
                .expect("epochs")
                .iter()
                .map(|e| Epoch {
                    proposals: e["proposals"]
                        .as_array()
                        .expect("proposals")
                        .iter()
                        .map(unhex)
                        .collect(),
                    commit: unhex(&e["commit"]),
                    epoch_authenticator: unhex(&e["epoch_authenticator"]),
                })
                .collect(),
        })
        .collect()
}

/// Where a case failed.
#[derive(Debug)]
#[expect(
    dead_code,
    reason = "the fields are read through Debug, in failure reports"
)]
enum Failure {
    /// mls-rs refused an input (the step names which).
    Mls { step: String, error: MlsError },
    /// An epoch authenticator differs from the vector's (`epoch` 0: after the join).
    Authenticator { epoch: usize },
}

fn mls(step: impl Into<String>) -> impl FnOnce(MlsError) -> Failure {
    let step = step.into();
    move |error| Failure::Mls { step, error }
}

/// Runs one case as a passive client over `provider`, validating as of
/// `time`; returns the number of epochs processed after the join.
fn run<P: CryptoProvider + Clone>(
    provider: P,
    case: &Case,
    time: MlsTime,
) -> Result<usize, Failure> {
    let suite = CipherSuite::from(case.cipher_suite);
    let cs = provider
        .cipher_suite_provider(suite)
        .expect("the provider offers the case's suite");

    let key_package = MlsMessage::from_bytes(&case.key_package)
        .map_err(mls("decode the KeyPackage"))?
        .into_key_package()
        .expect("a KeyPackage message");
    // The KeyPackage's private keys, injected through the public storage types.
    let key_packages = InMemoryKeyPackageStorage::new();
    key_packages.insert(
        key_package
            .to_reference(&cs)
            .map_err(mls("hash the KeyPackage"))?
            .to_vec(),
        KeyPackageData::new(
            key_package
                .mls_encode_to_vec()
                .map_err(|e| mls("encode the KeyPackage")(e.into()))?,
            HpkeSecretKey::from(case.init_priv.clone()),
            HpkeSecretKey::from(case.encryption_priv.clone()),
            key_package
                .expiration()
                .map_err(mls("read the lifetime"))?
                .seconds_since_epoch(),
        ),
    );
    let mut psks = InMemoryPreSharedKeyStorage::default();
    for (id, psk) in &case.external_psks {
        psks.insert(
            ExternalPskId::new(id.clone()),
            PreSharedKey::new(psk.clone()),
        );
    }
    let client = ClientBuilder::new()
        .crypto_provider(provider)
        .identity_provider(BasicIdentityProvider::new())
        .key_package_repo(key_packages)
        .psk_store(psks)
        .signing_identity(
            key_package.signing_identity().clone(),
            SignatureSecretKey::new(case.signature_priv.clone()),
            suite,
        )
        .build();

    let welcome = MlsMessage::from_bytes(&case.welcome).map_err(mls("decode the Welcome"))?;
    let tree = case
        .ratchet_tree
        .as_deref()
        .map(ExportedTree::from_bytes)
        .transpose()
        .map_err(mls("decode the ratchet tree"))?;
    let (mut group, _) = client
        .join_group(tree, &welcome, Some(time))
        .map_err(mls("join from the Welcome"))?;
    let authenticator = group
        .epoch_authenticator()
        .map_err(mls("epoch authenticator"))?;
    if *authenticator != case.initial_epoch_authenticator {
        return Err(Failure::Authenticator { epoch: 0 });
    }

    for (n, epoch) in case.epochs.iter().enumerate() {
        let n = n + 1;
        for (p, proposal) in epoch.proposals.iter().enumerate() {
            let message = MlsMessage::from_bytes(proposal)
                .map_err(mls(format!("decode proposal {p} of epoch {n}")))?;
            group
                .process_incoming_message_with_time(message, time)
                .map_err(mls(format!("process proposal {p} of epoch {n}")))?;
        }
        let commit =
            MlsMessage::from_bytes(&epoch.commit).map_err(mls(format!("decode commit {n}")))?;
        group
            .process_incoming_message_with_time(commit, time)
            .map_err(mls(format!("process commit {n}")))?;
        let authenticator = group
            .epoch_authenticator()
            .map_err(mls("epoch authenticator"))?;
        if *authenticator != epoch.epoch_authenticator {
            return Err(Failure::Authenticator { epoch: n });
        }
    }
    Ok(case.epochs.len())
}

/// Runs every suite-2 case of `file` on our provider; fails listing every
/// case that did not pass.
fn run_file(file: &str, expected_cases: usize, time: u64) {
    let cases: Vec<Case> = load(file)
        .into_iter()
        .filter(|c| c.cipher_suite == SUITE)
        .collect();
    assert_eq!(cases.len(), expected_cases, "{file}: suite-{SUITE} cases");
    let time = MlsTime::from(time);
    let mut failures = Vec::new();
    let mut epochs = 0;
    for (i, case) in cases.iter().enumerate() {
        match run(Suite2Provider::new(), case, time) {
            Ok(n) => epochs += n,
            Err(failure) => failures.push((i, failure)),
        }
    }
    assert!(
        failures.is_empty(),
        "{file}: {} of {} cases failed: {failures:#?}",
        failures.len(),
        cases.len()
    );
    eprintln!(
        "{file}: {} cases passed, {epochs} epochs after the joins",
        cases.len()
    );
}

#[test]
fn passive_client_welcome_suite_2() {
    run_file("passive-client-welcome.json", WELCOME_CASES, WELCOME_TIME);
}

#[test]
fn passive_client_handling_commit_suite_2() {
    run_file(
        "passive-client-handling-commit.json",
        HANDLING_COMMIT_CASES,
        HANDLING_COMMIT_TIME,
    );
}

/// The lifetimes are checked, and against the time given: as of now, and
/// as of a time before they began, every case is refused for a leaf outside
/// its lifetime.
#[test]
fn the_cases_are_refused_outside_their_lifetimes() {
    for (file, times) in [
        (
            "passive-client-welcome.json",
            [MlsTime::now(), MlsTime::from(BEFORE_TIME)],
        ),
        (
            "passive-client-handling-commit.json",
            [MlsTime::now(), MlsTime::from(BEFORE_TIME)],
        ),
    ] {
        for time in times {
            let cases = load(file);
            for (i, case) in cases.iter().filter(|c| c.cipher_suite == SUITE).enumerate() {
                match run(Suite2Provider::new(), case, time) {
                    Err(Failure::Mls {
                        error: MlsError::InvalidLifetime { .. },
                        ..
                    }) => {}
                    other => panic!(
                        "{file} case {i} as of {time:?}: expected an expired lifetime, got {other:?}"
                    ),
                }
            }
        }
    }
}

/// The one `passive-client-random` case is suite 1 (X25519, Ed25519), which
/// our provider does not offer: it checks the library, over
/// mls-rs-crypto-rustcrypto. Its 1.9 MB file is not stored; point
/// `HERMIT_MLS_RANDOM_VECTORS` at upstream's `passive-client-random.json`
/// and run with `--ignored`.
#[test]
#[ignore = "needs HERMIT_MLS_RANDOM_VECTORS (upstream file, not stored)"]
fn passive_client_random_over_the_reference() {
    let path = std::env::var("HERMIT_MLS_RANDOM_VECTORS")
        .expect("HERMIT_MLS_RANDOM_VECTORS: path of passive-client-random.json");
    let cases = load(&path);
    let provider = mls_rs_crypto_rustcrypto::RustCryptoProvider::new();
    for (i, case) in cases.iter().enumerate() {
        let epochs = run(provider.clone(), case, MlsTime::from(HANDLING_COMMIT_TIME))
            .unwrap_or_else(|f| panic!("case {i}: {f:?}"));
        eprintln!(
            "passive-client-random case {i} (suite {}): {epochs} epochs",
            case.cipher_suite
        );
    }
}
