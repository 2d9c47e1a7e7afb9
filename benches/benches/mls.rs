//! MLS application messages between the two members of a group (mls-rs,
//! ciphersuite 2): seal and open of a 27-byte and a 1 KiB message, on our
//! provider (`hermit_client::mls::Suite2Provider`: ECDSA, AEAD and HKDF on
//! aws-lc-rs) and on `mls-rs-crypto-rustcrypto` (RustCrypto throughout).
//!
//! `cargo bench -p hermit-benches --bench mls -- --noplot`
//!
//! `rules` (issue 35) is the conversation SDK's message path on our
//! provider: two device clients built as `Device::open` builds them (the
//! account's binding in the credential, `DeviceIdentity`, our `Rules`:
//! `PaddingMode::None`, Commits encrypted), the text framed and Padmé-padded
//! by `hermit_client::mls::Content` before sealing and parsed after opening.
//! `ecdsa` is the signature share of that: `sign` and `verify` of our
//! provider alone, on the sending device's keys, over an input of the
//! `FramedContentTBS`'s size (its signed content, [`TBS_OVERHEAD`] bytes
//! plus the framed text).
//!
//! The figures are **CPU time of the benchmark thread**
//! (`CLOCK_THREAD_CPUTIME_ID`), not wall time: the machine is shared, and
//! the target of docs/MLS.md §1.5 is in CPU-µs. Seal is
//! `encrypt_application_message` and the message's encoding to bytes; open
//! is decoding the bytes and `process_incoming_message` (signature
//! verification included). mls-rs's default rules apply (PrivateMessage,
//! StepFunction padding); nothing is written to storage. Opening needs a
//! fresh message every time (a generation is opened once), so each sample
//! first seals its messages, untimed, then times opening them in order.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use hermit_benches::cpu::thread_cpu;
use hermit_client::crypto::Identity;
use hermit_client::mls::config::{KEY_PACKAGE_LIFETIME, Rules};
use hermit_client::mls::credential::{DeviceIdentity, signing_identity};
use hermit_client::mls::{Content, DeviceBinding, DeviceList, ListedDevice, Suite2Provider};

/// One identity provider for every bench device, holding each device's
/// one-device list: the leaf check needs the account's list (docs/MLS.md §4.1).
static IDS: std::sync::LazyLock<DeviceIdentity> = std::sync::LazyLock::new(DeviceIdentity::default);
use mls_rs::client_builder::MlsConfig;
use mls_rs::crypto::{SignaturePublicKey, SignatureSecretKey};
use mls_rs::group::ReceivedMessage;
use mls_rs::identity::SigningIdentity;
use mls_rs::identity::basic::{BasicCredential, BasicIdentityProvider};
use mls_rs::{CipherSuite, CipherSuiteProvider as _, Client, CryptoProvider, Group, MlsMessage};
use mls_rs_crypto_rustcrypto::RustCryptoProvider;

const SUITE: CipherSuite = CipherSuite::P256_AES128;
const SIZES: [(&str, usize); 2] = [("27B", 27), ("1KiB", 1024)];
/// The bytes a member signs for an application message besides the framed
/// content (`SignContent` of a `FramedContentTBS` with a 32-byte group id:
/// label, protocol version, wire format, group id, epoch, sender, empty
/// authenticated data, content type, the group context's hashes and
/// epoch), give or take a few length bytes.
const TBS_OVERHEAD: usize = 192;
/// The send time every framed message carries (fixed: the figures do not
/// depend on it).
const SENT_AT: u64 = 1_795_000_000_000;

fn client<P: CryptoProvider + Clone>(provider: P, name: &str) -> Client<impl MlsConfig> {
    let (secret, public) = provider
        .cipher_suite_provider(SUITE)
        .expect("suite 2")
        .signature_key_generate()
        .expect("key generation");
    let credential = BasicCredential::new(name.as_bytes().to_vec()).into_credential();
    Client::builder()
        .identity_provider(BasicIdentityProvider::new())
        .crypto_provider(provider)
        .signing_identity(SigningIdentity::new(credential, public), secret, SUITE)
        .build()
}

/// A device's mls-rs client as `Device::open` builds it, on our provider
/// (the account's own first device: it binds itself), with its signing keys.
fn device() -> (
    Client<impl MlsConfig>,
    SignatureSecretKey,
    SignaturePublicKey,
) {
    let identity = Identity::generate().expect("OS random source");
    let binding = DeviceBinding::issue(
        &identity,
        &identity.public_key().to_sec1_uncompressed(),
        1,
        SENT_AT,
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
    let public = signer.signature_key.clone();
    let client = Client::builder()
        .crypto_provider(Suite2Provider::new())
        .identity_provider(IDS.clone())
        .mls_rules(Rules)
        .key_package_lifetime(KEY_PACKAGE_LIFETIME)
        .signing_identity(signer, secret.clone(), SUITE)
        .build();
    (client, secret, public)
}

/// Alice's and Bob's views of a two-member group.
fn two_members<C: MlsConfig>(alice: Client<C>, bob: Client<C>) -> (Group<C>, Group<C>) {
    let mut alice = alice
        .group_builder()
        .and_then(|g| g.build())
        .expect("create the group");
    let key_package = bob
        .generate_key_package_message(Default::default(), Default::default(), None)
        .expect("a KeyPackage");
    let commit = alice
        .commit_builder()
        .add_member(key_package)
        .expect("add Bob")
        .build()
        .expect("commit");
    alice.apply_pending_commit().expect("apply");
    let (bob, _) = bob
        .join_group(None, &commit.welcome_messages[0], None)
        .expect("Bob joins");
    (alice, bob)
}

fn seal_and_open<P: CryptoProvider + Clone>(c: &mut Criterion, provider: &P, name: &str) {
    let pair = || {
        two_members(
            client(provider.clone(), "alice"),
            client(provider.clone(), "bob"),
        )
    };
    // Two groups: Bob could not follow the seal benchmark's Alice, who is
    // hundreds of thousands of generations ahead when it ends (mls-rs
    // refuses a jump of more than 1,024).
    let (mut alice, _) = pair();
    let (mut sender, mut bob) = pair();
    for (size, len) in SIZES {
        let message = vec![0x5a; len];
        let mut g = c.benchmark_group(format!("mls_seal/{name}"));
        g.throughput(Throughput::Elements(1));
        g.bench_function(BenchmarkId::from_parameter(size), |b| {
            b.iter_custom(|iters| {
                let started = thread_cpu();
                for _ in 0..iters {
                    let sealed = alice
                        .encrypt_application_message(black_box(&message), Vec::new())
                        .expect("seal");
                    black_box(sealed.to_bytes().expect("encode"));
                }
                thread_cpu() - started
            });
        });
        g.finish();

        let mut g = c.benchmark_group(format!("mls_open/{name}"));
        g.throughput(Throughput::Elements(1));
        g.bench_function(BenchmarkId::from_parameter(size), |b| {
            b.iter_custom(|iters| {
                let sealed: Vec<Vec<u8>> = (0..iters)
                    .map(|_| {
                        sender
                            .encrypt_application_message(&message, Vec::new())
                            .and_then(|m| m.to_bytes())
                            .expect("seal")
                    })
                    .collect();
                let started = thread_cpu();
                for bytes in &sealed {
                    let message = MlsMessage::from_bytes(black_box(bytes)).expect("decode");
                    match bob.process_incoming_message(message).expect("open") {
                        ReceivedMessage::ApplicationMessage(m) => {
                            black_box(m);
                        }
                        other => panic!("not an application message: {other:?}"),
                    }
                }
                thread_cpu() - started
            });
        });
        g.finish();
    }
}

fn ours(c: &mut Criterion) {
    seal_and_open(c, &Suite2Provider::new(), "ours");
}

fn rustcrypto(c: &mut Criterion) {
    seal_and_open(
        c,
        &RustCryptoProvider::with_enabled_cipher_suites(vec![SUITE]),
        "rustcrypto",
    );
}

/// The conversation SDK's seal and open on our provider with our rules and
/// framing (`mls_seal/rules`, `mls_open/rules`), and the ECDSA share of
/// them (`ecdsa/sign`, `ecdsa/verify`).
fn rules(c: &mut Criterion) {
    // As in `seal_and_open`: one group to seal in, another to open in.
    let (mut alice, _) = two_members(device().0, device().0);
    let ((sending, secret, public), (receiving, _, _)) = (device(), device());
    let (mut sender, mut bob) = two_members(sending, receiving);
    let suite = Suite2Provider::new()
        .cipher_suite_provider(SUITE)
        .expect("suite 2");
    for (size, len) in SIZES {
        let text = "x".repeat(len);
        let framed = Content::text(&text, SENT_AT).encode().expect("frame");
        let mut g = c.benchmark_group("mls_seal/rules");
        g.throughput(Throughput::Elements(1));
        g.bench_function(BenchmarkId::from_parameter(size), |b| {
            b.iter_custom(|iters| {
                let started = thread_cpu();
                for _ in 0..iters {
                    let content = Content::text(black_box(&text), SENT_AT)
                        .encode()
                        .expect("frame");
                    let sealed = alice
                        .encrypt_application_message(&content, Vec::new())
                        .expect("seal");
                    black_box(sealed.to_bytes().expect("encode"));
                }
                thread_cpu() - started
            });
        });
        g.finish();

        let mut g = c.benchmark_group("mls_open/rules");
        g.throughput(Throughput::Elements(1));
        g.bench_function(BenchmarkId::from_parameter(size), |b| {
            b.iter_custom(|iters| {
                let sealed: Vec<Vec<u8>> = (0..iters)
                    .map(|_| {
                        sender
                            .encrypt_application_message(&framed, Vec::new())
                            .and_then(|m| m.to_bytes())
                            .expect("seal")
                    })
                    .collect();
                let started = thread_cpu();
                for bytes in &sealed {
                    let message = MlsMessage::from_bytes(black_box(bytes)).expect("decode");
                    match bob.process_incoming_message(message).expect("open") {
                        ReceivedMessage::ApplicationMessage(m) => {
                            black_box(Content::decode(m.data()).expect("framing"));
                        }
                        other => panic!("not an application message: {other:?}"),
                    }
                }
                thread_cpu() - started
            });
        });
        g.finish();

        // The signature alone, on the sender's keys (its parsed signing key
        // cached by the provider, as in the seal above).
        let tbs = vec![0x5a; TBS_OVERHEAD + framed.len()];
        let signature = suite.sign(&secret, &tbs).expect("sign");
        let mut g = c.benchmark_group("ecdsa");
        g.throughput(Throughput::Elements(1));
        g.bench_function(BenchmarkId::new("sign", size), |b| {
            b.iter_custom(|iters| {
                let started = thread_cpu();
                for _ in 0..iters {
                    black_box(suite.sign(&secret, black_box(&tbs)).expect("sign"));
                }
                thread_cpu() - started
            });
        });
        g.bench_function(BenchmarkId::new("verify", size), |b| {
            b.iter_custom(|iters| {
                let started = thread_cpu();
                for _ in 0..iters {
                    suite
                        .verify(&public, black_box(&signature), black_box(&tbs))
                        .expect("verify");
                }
                thread_cpu() - started
            });
        });
        g.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(30);
    targets = ours, rustcrypto, rules
}
criterion_main!(benches);
