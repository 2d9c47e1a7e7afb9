//! `hermit demo`: the first thing to run. A broker in this process on a
//! temporary directory and a loopback port, two throwaway identities, Alice
//! sends Bob sealed messages, and each message is shown twice: the bytes the
//! broker wrote to its segment file, and what Bob read.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use hermit_broker::embedded::EmbeddedBroker;
use hermit_client::crypto::{Identity, KdfParams, KeyFile};
use hermit_client::sealed::{SealedConsumer, SealedProducer, SealedProducerOptions};
use hermit_client::{Client, ClientOptions, ConsumerOptions, Producer, ProducerOptions, StartFrom};
use hermit_protocol::record::{BatchIter, HEADER_LEN, RECORD_LEN_PREFIX};

use crate::exit::client_error;
use crate::keys::write_identity;
use crate::produce::sealed_error;

const TOPIC: &str = "demo-chat";

/// Argon2id parameters for the demo's throwaway identities only: 1 MiB, one
/// pass, so the demo runs in well under a second. `hermit keygen` uses
/// 64 MiB, t = 3, p = 4.
const DEMO_KDF: (u32, u32, u32) = (1024, 1, 1);

/// `hermit demo`
#[derive(Debug, clap::Args)]
pub struct DemoArgs {
    /// A message for Alice to send (repeatable) [default: three examples].
    #[arg(long, short)]
    message: Vec<String>,
    /// Keep the temporary directory (data dir and key files) and print its
    /// path, to look at it with `hermit log dump DIR/data`.
    #[arg(long)]
    keep: bool,
}

/// Run `hermit demo`.
pub fn run(args: DemoArgs) -> anyhow::Result<()> {
    crate::conn::init_client_logging();
    let dir = tempfile::Builder::new()
        .prefix("hermit-demo-")
        .tempdir()
        .context("cannot create a temporary directory")?;
    let result = crate::conn::runtime()?.block_on(demo(dir.path(), &args));
    if args.keep {
        let kept = dir.keep();
        let d = kept.display();
        // Shown even after a failure; the demo's own error comes first.
        let shown = outln!("\nKept {d}:\n  hermit log check {d}/data\n  hermit log dump {d}/data");
        return result.and(shown);
    }
    result
}

fn messages(args: &DemoArgs) -> Vec<String> {
    if !args.message.is_empty() {
        return args.message.clone();
    }
    vec![
        "Hi Bob, it's Alice. Only you can read this.".into(),
        "The broker stored these bytes without a key to open them.".into(),
        "Grüße, 世界 — any bytes work, even 🔐.".into(),
    ]
}

/// One throwaway identity, written as a key file with the demo's weak
/// parameters (to show the files `hermit keygen` makes) and opened again.
fn identity(keys: &Path, name: &str) -> anyhow::Result<Identity> {
    let id = Identity::generate().context("cannot generate a key pair")?;
    let (m, t, p) = DEMO_KDF;
    let params = KdfParams::insecure_for_tests(m, t, p).context("demo KDF parameters")?;
    let key = keys.join(format!("{name}.key"));
    write_identity(
        &id,
        b"demo",
        params,
        &key,
        &keys.join(format!("{name}.pub")),
    )?;
    let file = KeyFile::from_armor(&std::fs::read_to_string(&key)?)
        .with_context(|| format!("cannot read back {}", key.display()))?;
    file.unlock_insecure_for_tests(b"demo")
        .with_context(|| format!("cannot unlock {}", key.display()))
}

async fn demo(root: &Path, args: &DemoArgs) -> anyhow::Result<()> {
    let data = root.join("data");
    let keys = root.join("keys");
    std::fs::create_dir_all(&keys).context("cannot create the key directory")?;
    let (m, t, p) = DEMO_KDF;
    outln!("HermitMQ demo: a broker that never sees what it carries.")?;
    outln!()?;
    outln!(
        "1. Two throwaway identities, Alice and Bob (P-256 key pairs), in {}.",
        keys.display()
    )?;
    outln!(
        "   NOTE: their key files use weak, test-only Argon2id parameters (m = {} KiB, t = {t}, p = {p})",
        m
    )?;
    outln!("   so this demo runs in a second. `hermit keygen` uses m = 64 MiB, t = 3, p = 4.")?;
    let alice = identity(&keys, "alice")?;
    let bob = identity(&keys, "bob")?;
    outln!("   Alice  {}", alice.fingerprint())?;
    outln!("   Bob    {}", bob.fingerprint())?;

    let broker = EmbeddedBroker::start(&data, EmbeddedBroker::test_config())
        .await
        .context("cannot start the demo broker")?;
    outln!()?;
    outln!(
        "2. A broker on {} (in this process), data in {}.",
        broker.addr(),
        data.display()
    )?;
    let result = exchange(&broker, &data, &alice, &bob, &messages(args)).await;
    broker
        .shutdown()
        .await
        .context("the demo broker did not shut down cleanly")?;
    result
}

async fn exchange(
    broker: &EmbeddedBroker,
    data: &Path,
    alice: &Identity,
    bob: &Identity,
    messages: &[String],
) -> anyhow::Result<()> {
    let client = Client::connect(broker.addr().to_string(), ClientOptions::default())
        .await
        .map_err(client_error)?;

    // Alice: one sealed DIRECT record per message, each acknowledged (fsynced)
    // before the next, so each lands in a batch of its own.
    let producer = Producer::new(&client, ProducerOptions::default());
    let sealed = SealedProducer::new(&producer, alice.clone(), SealedProducerOptions::default())
        .map_err(sealed_error)?;
    outln!()?;
    outln!(
        "3. Alice seals {} messages to Bob and sends them to topic {TOPIC:?}.",
        messages.len()
    )?;
    let bob_key = [bob.public_key().clone()];
    for m in messages {
        let d = sealed
            .send(TOPIC, None, m.as_bytes(), &bob_key)
            .await
            .map_err(sealed_error)?;
        d.await.map_err(client_error)?;
    }
    producer.close().await;

    // Bob: open them.
    let mut consumer = SealedConsumer::new(
        &client,
        bob.clone(),
        vec![alice.public_key().clone()],
        TOPIC,
        ConsumerOptions {
            start: StartFrom::Earliest,
            ..ConsumerOptions::default()
        },
    )
    .await
    .map_err(sealed_error)?;
    let mut read = Vec::new();
    while read.len() < messages.len() {
        let next = tokio::time::timeout(Duration::from_secs(10), consumer.next())
            .await
            .context("Bob's consumer saw nothing for 10 s")?
            .map_err(client_error)?;
        read.push(next.context("Bob could not open a record")?);
    }
    consumer.close().await.map_err(client_error)?;

    // What is on disk: the partition's first segment file, read directly.
    let segment = data
        .join("topics")
        .join(TOPIC)
        .join("0")
        .join(format!("{:020}.log", 0));
    let bytes =
        std::fs::read(&segment).with_context(|| format!("cannot read {}", segment.display()))?;
    let rel = segment.strip_prefix(data).unwrap_or(&segment).to_path_buf();
    outln!()?;
    outln!(
        "4. Side by side: each batch as the broker wrote it to {} (hex),",
        rel.display()
    )?;
    outln!("   and what Bob read from it.")?;
    let mut position = 0usize;
    for batch in BatchIter::new(&bytes) {
        let batch = batch.with_context(|| format!("cannot parse {}", segment.display()))?;
        let h = batch.header;
        let len = batch.as_bytes().len();
        if let Some(r) = read.iter().find(|r| h.contains(r.offset)) {
            print_record(position, batch.as_bytes(), h.key_len as usize, r)?;
        }
        position += len;
    }

    outln!()?;
    let leaks = find_plaintexts(data, messages)?;
    if leaks.is_empty() {
        outln!(
            "5. Every file under {} searched for the {} plaintexts: no 8-byte piece of any of them is there.",
            data.display(),
            messages.len()
        )?;
    } else {
        anyhow::bail!("plaintext found on the broker's disk: {leaks:?}");
    }
    outln!()?;
    outln!(
        "Next: `hermit keygen --out alice.key`, `hermit broker`, `hermit consume`, `hermit produce`."
    )?;
    outln!("See README.md for a five-minute tour.")?;
    Ok(())
}

fn print_record(
    position: usize,
    batch: &[u8],
    key_len: usize,
    r: &hermit_client::sealed::OpenedRecord,
) -> anyhow::Result<()> {
    let sealed_len = batch.len() - HEADER_LEN - key_len - RECORD_LEN_PREFIX;
    let plain = String::from_utf8_lossy(r.plaintext.as_bytes());
    let left_title = format!("stored at byte {position}: {} bytes", batch.len());
    let mut right = vec![
        "Bob read:".to_string(),
        format!("{plain:?}"),
        String::new(),
        format!("from   {}", short_fp(&r.sender.to_hex())),
        format!("seq    {}", r.seq.map_or("-".into(), |s| s.to_string())),
        format!("offset {}", r.offset),
        format!("{} plaintext bytes", r.plaintext.len()),
        format!(
            "{sealed_len} sealed bytes ({} overhead)",
            sealed_len.saturating_sub(r.plaintext.len())
        ),
        format!("{HEADER_LEN}-byte batch header, no key,"),
        format!("{RECORD_LEN_PREFIX}-byte length, then the sealed record"),
    ];
    let lines: Vec<String> = batch
        .chunks(16)
        .map(|c| {
            let mut s = String::new();
            for (i, b) in c.iter().enumerate() {
                if i == 8 {
                    s.push(' ');
                }
                let _ = write!(s, "{b:02x} ");
            }
            s
        })
        .collect();
    let rows = lines.len().max(right.len());
    right.resize(rows, String::new());
    outln!()?;
    outln!("   {left_title:<50} │")?;
    for (i, r) in right.iter().enumerate() {
        let l = lines.get(i).map_or("", String::as_str);
        outln!("   {l:<50} │ {r}")?;
    }
    Ok(())
}

fn short_fp(hex: &str) -> String {
    format!("{}…", &hex[..hex.len().min(16)])
}

/// Plaintexts (or any 8-byte piece of one) found in any file under `dir`.
fn find_plaintexts(dir: &Path, messages: &[String]) -> anyhow::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in
            std::fs::read_dir(&d).with_context(|| format!("cannot list {}", d.display()))?
        {
            let path = entry
                .with_context(|| format!("cannot list {}", d.display()))?
                .path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let bytes =
                std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
            let leaked = messages.iter().any(|m| {
                let m = m.as_bytes();
                let w = m.len().min(8);
                w > 0
                    && m.windows(w)
                        .any(|piece| bytes.windows(w).any(|b| b == piece))
            });
            if leaked {
                found.push(path);
            }
        }
    }
    Ok(found)
}
