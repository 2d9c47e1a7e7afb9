//! MLS Commits that add one member, in groups of 2, 10, 100 and 1,000
//! (issue 35): the committer's CPU time to create the Commit (and its
//! Welcome), another member's CPU time to process it, the new member's time
//! to join from the Welcome, and the sizes of the Commit and the Welcome.
//!
//! `cargo bench -p hermit-benches --bench mls_commit` (all sizes), or with
//! sizes after `--`: `cargo bench -p hermit-benches --bench mls_commit -- 1000`
//!
//! Every member is a device client built as `Device::open` builds it, on
//! our provider (`hermit_client::mls::Suite2Provider`) with our `Rules`
//! (Commits encrypted, with a path, the ratchet tree in the Welcome, one
//! Welcome per Commit) and `DeviceIdentity` (the account's binding checked
//! on every leaf); mls-rs's in-memory storage, nothing written.
//!
//! **How a group of n is built (once per size and run, untimed but
//! reported):** member 0 creates the group and adds the n − 1 others in
//! one Commit; member 1 joins from its Welcome. This is the tree an inviter
//! leaves behind when it adds everyone, in one Commit or one by one (as
//! `Conversation::invite` does): its own direct path is set, every other
//! parent node blank, so its next Commit encrypts the path secret to every
//! other leaf (n − 1 HPKE encryptions) — the costly case for a committer.
//!
//! Each sample starts from a clone of the base state (untimed): member 0
//! commits the Add of a fresh device's KeyPackage (the same KeyPackage in
//! every sample; each sample's Commit is dropped); member 1 processes the
//! first sample's Commit; the new device joins from its Welcome. Times are
//! **CPU time of the benchmark thread** (`CLOCK_THREAD_CPUTIME_ID`; mls-rs
//! runs single-threaded here, `rayon` is off); creation includes encoding
//! the Commit and the Welcome, processing includes decoding the Commit.
//!
//! Output: one line per size and measure, with the median, min and max of
//! the samples. `cargo test` runs this binary without `--bench`: it then
//! measures the group of 2 with 2 samples, as a smoke test.

use hermit_benches::cpu::thread_cpu;
use std::hint::black_box;
use std::time::{Duration, Instant};

use hermit_client::crypto::Identity;
use hermit_client::mls::config::{KEY_PACKAGE_LIFETIME, Rules};
use hermit_client::mls::credential::{DeviceIdentity, signing_identity};
use hermit_client::mls::{DeviceBinding, DeviceList, ListedDevice, Suite2Provider};

/// One identity provider for every bench device, holding each device's
/// one-device list: the leaf check needs the account's list (docs/MLS.md §4.1).
static IDS: std::sync::LazyLock<DeviceIdentity> = std::sync::LazyLock::new(DeviceIdentity::default);
use mls_rs::client_builder::MlsConfig;
use mls_rs::group::ReceivedMessage;
use mls_rs::{CipherSuite, Client, ExtensionList, Group, MlsMessage};

const SUITE: CipherSuite = CipherSuite::P256_AES128;

/// Group sizes, and how many samples of each measure a run takes.
const SIZES: [(usize, usize); 4] = [(2, 50), (10, 50), (100, 20), (1000, 7)];

/// A device's mls-rs client as `Device::open` builds it, on our provider
/// (the account's own first device: it binds itself).
fn device() -> Client<impl MlsConfig> {
    let identity = Identity::generate().expect("OS random source");
    let binding = DeviceBinding::issue(
        &identity,
        &identity.public_key().to_sec1_uncompressed(),
        1,
        1_795_000_000_000,
    );
    let (signer, secret) = signing_identity(&identity, &binding);
    // Every device's account lists it (the leaf check, docs/MLS.md §4.1).
    let list = DeviceList::new(
        identity.public_key(),
        1,
        0,
        vec![ListedDevice {
            key: identity.public_key().to_sec1_uncompressed(),
            added_at: 0,
        }],
    )
    .expect("one device");
    IDS.hold_list(&list);
    Client::builder()
        .crypto_provider(Suite2Provider::new())
        .identity_provider(IDS.clone())
        .mls_rules(Rules)
        .key_package_lifetime(KEY_PACKAGE_LIFETIME)
        .signing_identity(signer, secret, SUITE)
        .build()
}

fn key_package<C: MlsConfig>(client: &Client<C>) -> MlsMessage {
    client
        .generate_key_package_message(ExtensionList::new(), ExtensionList::new(), None)
        .expect("a KeyPackage")
}

/// Member 0's and member 1's states in a group of `n`: see the module
/// documentation.
fn build<C: MlsConfig>(clients: &[Client<C>]) -> (Group<C>, Group<C>) {
    let mut creator = clients[0]
        .create_group(ExtensionList::new(), ExtensionList::new(), None)
        .expect("create the group");
    let mut commit = creator.commit_builder();
    for c in &clients[1..] {
        commit = commit.add_member(key_package(c)).expect("add");
    }
    let out = commit.build().expect("commit");
    creator.apply_pending_commit().expect("apply");
    let (second, _) = clients[1]
        .join_group(None, &out.welcome_messages[0], None)
        .expect("member 1 joins");
    (creator, second)
}

/// Median, min and max, in ms.
fn summary(mut samples: Vec<Duration>) -> String {
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    format!(
        "median {:>9.3} ms   min {:>9.3}   max {:>9.3}   ({} samples)",
        ms(samples[samples.len() / 2]),
        ms(samples[0]),
        ms(samples[samples.len() - 1]),
        samples.len()
    )
}

fn measure(n: usize, samples: usize) {
    let started = Instant::now();
    let clients: Vec<_> = (0..n).map(|_| device()).collect();
    let newcomer = device();
    let (creator, second) = build(&clients);
    assert_eq!(creator.roster().members().len(), n);
    println!(
        "n={n:<5} build (n clients, one Commit adding n-1, member 1 joins): {:.2} s wall",
        started.elapsed().as_secs_f64()
    );
    let package = key_package(&newcomer);

    let mut create = Vec::with_capacity(samples);
    let mut first = None;
    for _ in 0..samples {
        let mut g = creator.clone();
        let t = thread_cpu();
        let out = g
            .commit_builder()
            .add_member(package.clone())
            .and_then(|b| b.build())
            .expect("commit");
        let commit = out.commit_message.to_bytes().expect("encode");
        let welcome = out.welcome_messages[0].to_bytes().expect("encode");
        create.push(thread_cpu() - t);
        first.get_or_insert((commit, welcome));
        drop(black_box((g, out)));
    }
    let (commit, welcome) = first.expect("at least one sample");

    let mut process = Vec::with_capacity(samples);
    for _ in 0..samples {
        let mut g = second.clone();
        let t = thread_cpu();
        let message = MlsMessage::from_bytes(&commit).expect("decode");
        let received = g.process_incoming_message(message).expect("process");
        process.push(thread_cpu() - t);
        assert!(matches!(received, ReceivedMessage::Commit(_)));
        assert_eq!(g.roster().members().len(), n + 1);
        drop(black_box(g));
    }

    let mut join = Vec::with_capacity(samples);
    for _ in 0..samples {
        let t = thread_cpu();
        let message = MlsMessage::from_bytes(&welcome).expect("decode");
        let (g, _) = newcomer.join_group(None, &message, None).expect("join");
        join.push(thread_cpu() - t);
        assert_eq!(g.roster().members().len(), n + 1);
        drop(black_box(g));
    }

    println!("n={n:<5} create the Commit (member 0) {}", summary(create));
    println!("n={n:<5} process it (member 1)        {}", summary(process));
    println!("n={n:<5} join from the Welcome (new)   {}", summary(join));
    println!(
        "n={n:<5} Commit {} B, Welcome {} B (as produced: MLSMessage bytes)",
        commit.len(),
        welcome.len()
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if !args.iter().any(|a| a == "--bench") {
        // `cargo test --all-targets`: a smoke run, not a measurement.
        measure(2, 2);
        return;
    }
    let only: Vec<usize> = args.iter().filter_map(|a| a.parse().ok()).collect();
    for (n, samples) in SIZES {
        if only.is_empty() || only.contains(&n) {
            measure(n, samples);
        }
    }
}
