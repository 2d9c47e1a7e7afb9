//! `hermit demo`: the first thing to run. A broker in this process on a
//! temporary directory and a loopback port, two throwaway identities, Alice
//! sends Bob sealed messages, and each message is shown twice: the bytes the
//! broker wrote to its segment file, and what Bob read.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use hermit_broker::embedded::EmbeddedBroker;
use hermit_broker::log::check;
use hermit_client::crypto::{Identity, KdfParams, KeyFile};
use hermit_client::sealed::{SealedConsumer, SealedProducer, SealedProducerOptions};
use hermit_client::{Client, ClientOptions, ConsumerOptions, Producer, ProducerOptions, StartFrom};
use hermit_protocol::record::{BatchView, HEADER_LEN, RECORD_LEN_PREFIX};

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
    consumer.close().await.map_err(sealed_error)?;

    // What is on disk: every batch of the partition, found by the broker's
    // own reader of its segment files.
    let stored = stored_batches(data)?;
    let partition = check::find_partition(data, TOPIC, 0)?
        .with_context(|| format!("no partition {TOPIC}/0 in {}", data.display()))?;
    let mut segments: Vec<&Path> = stored.iter().map(|b| b.segment.as_path()).collect();
    segments.dedup();
    let shown = match segments.as_slice() {
        [one] => one,
        _ => partition.dir.as_path(),
    };
    outln!()?;
    outln!(
        "4. Side by side: each batch as the broker wrote it to {} (hex),",
        shown.strip_prefix(data).unwrap_or(shown).display()
    )?;
    outln!("   and what Bob read from it.")?;
    for b in &stored {
        let (batch, _) = BatchView::parse(&b.bytes)
            .with_context(|| format!("cannot parse {}", b.segment.display()))?;
        if let Some(r) = read.iter().find(|r| batch.header.contains(r.offset)) {
            print_record(b.position, &b.bytes, batch.header.key_len as usize, r)?;
        }
    }

    outln!()?;
    let checked: Vec<&String> = messages.iter().filter(|m| m.len() >= WINDOW).collect();
    let leaks = find_plaintexts(&stored, &checked)?;
    if !leaks.is_empty() {
        anyhow::bail!("plaintext found on the broker's disk: {leaks:?}");
    }
    let rel = shown.strip_prefix(data).unwrap_or(shown);
    let plural = |n: usize| if n == 1 { "message" } else { "messages" };
    if checked.is_empty() {
        outln!(
            "5. No message is {WINDOW} bytes or longer, so none is searched for in the records stored in {}.",
            rel.display()
        )?;
    } else {
        outln!(
            "5. The records of every batch in {} searched for the {} {}: no {WINDOW}-byte piece of any of them is there.",
            rel.display(),
            checked.len(),
            plural(checked.len())
        )?;
    }
    let short = messages.len() - checked.len();
    if short > 0 {
        outln!(
            "   {short} {} shorter than {WINDOW} bytes not searched for: a piece that short could be there by chance.",
            plural(short)
        )?;
    }
    outln!()?;
    outln!(
        "Next: `hermit keygen --out alice.key`, `hermit broker`, `hermit consume`, `hermit produce`."
    )?;
    outln!("See README.md for a five-minute tour.")?;
    Ok(())
}

fn print_record(
    position: u64,
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

/// Length of the plaintext pieces searched for in the stored records.
const WINDOW: usize = 8;

/// One batch as stored in a segment file.
struct StoredBatch {
    segment: PathBuf,
    position: u64,
    bytes: Vec<u8>,
}

/// Every batch of the demo topic's partition, in offset order, read with
/// the broker's own segment reader (`hermit log dump`'s).
fn stored_batches(data: &Path) -> anyhow::Result<Vec<StoredBatch>> {
    use std::os::unix::fs::FileExt;
    let cp = check::find_partition(data, TOPIC, 0)?
        .with_context(|| format!("no partition {TOPIC}/0 in {}", data.display()))?;
    let mut entries = Vec::new();
    let damage = check::dump_partition(data, &cp, |e| entries.push(e.clone()))
        .with_context(|| format!("cannot read {TOPIC}/0 in {}", data.display()))?;
    if let Some((path, why)) = damage.first() {
        anyhow::bail!("{} is damaged: {why}", path.display());
    }
    let mut file: Option<(PathBuf, std::fs::File)> = None;
    let mut stored = Vec::new();
    for e in entries {
        if file.as_ref().is_none_or(|(p, _)| *p != e.segment) {
            let f = std::fs::File::open(&e.segment)
                .with_context(|| format!("cannot open {}", e.segment.display()))?;
            file = Some((e.segment.clone(), f));
        }
        let Some((_, f)) = &file else { continue };
        let len = usize::try_from(e.header.batch_len())
            .with_context(|| format!("a batch too big in {}", e.segment.display()))?;
        let mut batch = vec![0u8; len];
        f.read_exact_at(&mut batch, e.position)
            .with_context(|| format!("{} ends inside a batch", e.segment.display()))?;
        stored.push(StoredBatch {
            segment: e.segment,
            position: e.position,
            bytes: batch,
        });
    }
    Ok(stored)
}

/// The offsets of stored batches whose records (the bytes after the batch
/// header and key) hold a [`WINDOW`]-byte piece of any of `messages`.
fn find_plaintexts(stored: &[StoredBatch], messages: &[&String]) -> anyhow::Result<Vec<u64>> {
    let mut found = Vec::new();
    for b in stored {
        let (batch, _) = BatchView::parse(&b.bytes)
            .with_context(|| format!("cannot parse {}", b.segment.display()))?;
        let records = batch.payload();
        let leaked = messages.iter().any(|m| {
            m.as_bytes()
                .windows(WINDOW)
                .any(|piece| records.windows(WINDOW).any(|r| r == piece))
        });
        if leaked {
            found.push(batch.header.base_offset);
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hermit_protocol::record::BatchBuilder;

    fn stored(key: &[u8], record: &[u8]) -> StoredBatch {
        let mut b = BatchBuilder::new(key);
        b.push(record);
        StoredBatch {
            segment: PathBuf::from("x.log"),
            position: 0,
            bytes: b.finish(1).unwrap(),
        }
    }

    #[test]
    fn a_piece_of_a_plaintext_in_the_records_is_found() {
        let secret = "attack at dawn".to_string();
        let leaked = stored(b"", b"xx dawn, attack at y");
        assert_eq!(find_plaintexts(&[leaked], &[&secret]).unwrap(), [0]);
        // Seven bytes in common are not enough; the key is not searched.
        let clean = stored(b"attack at dawn", b"attack ");
        assert!(find_plaintexts(&[clean], &[&secret]).unwrap().is_empty());
    }
}
