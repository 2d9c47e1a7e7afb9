//! Alice sends Bob sealed chat messages; Bob reads and opens them. The broker
//! stores only ciphertext, blinded keys and key ids.
//!
//! ```text
//! cargo run -p hermit-client --example chat              # in-process broker, temp dir
//! cargo run -p hermit-client --example chat -- ADDR      # a running broker
//! ```
//!
//! In a real application each side loads its own identity (a SEALKEY file,
//! `hermit_client::crypto::KeyFile::from_armor(..)?.unlock(password)?`), gets
//! the peer's public key as base64 SPKI (`PublicKey::from_spki_base64`), and
//! the users compare fingerprints out of band once.

use std::time::Duration;

use anyhow::Context as _;
use hermit_client::crypto::Identity;
use hermit_client::{
    Client, ClientOptions, ConsumerOptions, Producer, ProducerOptions, SealedConsumer,
    SealedProducer, SealedProducerOptions,
};

const TOPIC: &str = "chat.alice-bob";

#[tokio::main]
async fn main() {
    if let Err(e) = run().await {
        // The whole cause chain, on one line.
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}

async fn run() -> anyhow::Result<()> {
    // A broker to talk to: the one named, or one in this process.
    let (_dir, broker, addr) = match std::env::args().nth(1) {
        Some(addr) => (None, None, addr),
        None => {
            let dir = tempfile::tempdir().context("creating a temp dir")?;
            let broker = hermit_broker::embedded::EmbeddedBroker::start(
                dir.path(),
                hermit_broker::embedded::EmbeddedBroker::test_config(),
            )
            .await
            .context("starting an in-process broker")?;
            let addr = broker.addr().to_string();
            (Some(dir), Some(broker), addr)
        }
    };
    let client = Client::connect(addr.as_str(), ClientOptions::default())
        .await
        .with_context(|| format!("connecting to {addr}"))?;

    let alice = Identity::generate().context("generating Alice's key")?;
    let bob = Identity::generate().context("generating Bob's key")?;
    println!("Alice {}", alice.fingerprint());
    println!("Bob   {}", bob.fingerprint());

    // Bob subscribes first, trusting Alice only; his group remembers what he
    // has read (commits never pass a record that failed to open).
    let mut inbox = SealedConsumer::new(
        &client,
        bob.clone(),
        vec![alice.public_key().clone()],
        TOPIC,
        ConsumerOptions {
            group: Some(format!("bob-{}", bob.kid())),
            ..ConsumerOptions::default()
        },
    )
    .await
    .context("subscribing Bob")?;

    // Alice seals in place through an ordinary producer. The logical key
    // (the conversation's name) reaches the broker only blinded.
    let producer = Producer::new(&client, ProducerOptions::default());
    let outbox = SealedProducer::new(&producer, alice, SealedProducerOptions::default())
        .context("creating Alice's sealer")?;
    let lines = ["Hi Bob!", "Grüße aus Zürich 🏔", "See you at 8."];
    for line in lines {
        let sent = outbox
            .send(
                TOPIC,
                Some(b"alice+bob"),
                line.as_bytes(),
                &[bob.public_key().clone()],
            )
            .await
            .context("sealing a message")?;
        let seq = sent.seq();
        let at = sent.await.context("delivering a message")?;
        println!(
            "Alice → Bob   #{seq} stored at {TOPIC}/{}@{}",
            at.partition, at.offset
        );
    }

    let mut read = 0;
    while read < lines.len() {
        let item = tokio::time::timeout(Duration::from_secs(10), inbox.next())
            .await
            .context("no message within 10 s")?
            .context("reading")?;
        match item {
            Ok(msg) => {
                read += 1;
                let text = msg.plaintext.to_str().unwrap_or("<not UTF-8>");
                let gap = msg
                    .gap
                    .map_or(String::new(), |g| format!(" ({} missing)", g.len()));
                println!(
                    "Bob reads     #{} from {}{gap}: {text}",
                    msg.seq.unwrap_or_default(),
                    &msg.sender.to_hex()[..16],
                );
            }
            // Someone else's conversation on the same topic: not ours to read.
            Err(e) if e.is_not_for_me() => {}
            // Tampered, replayed, from a stranger…: say so, then move on.
            Err(e) => {
                eprintln!("Bob skips     {e}");
                inbox.ack(e.partition, e.offset);
            }
        }
    }
    inbox.close().await.context("closing Bob's inbox")?;
    producer.close().await;
    if let Some(broker) = broker {
        broker.shutdown().await.context("stopping the broker")?;
    }
    Ok(())
}
