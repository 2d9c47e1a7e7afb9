//! Print every record of a topic, one per line, as it arrives.
//!
//! ```text
//! cargo run -p hermit-client --example consumer -- [ADDR] [TOPIC] [GROUP]
//! ```
//! `ADDR` defaults to `127.0.0.1:9092`, `TOPIC` to `chat`. With a `GROUP`,
//! the consumer resumes where the group left off and commits its progress
//! (every few seconds, and on Ctrl-C); without one it reads from the start.
//! Record values go to standard output (non-UTF-8 bytes replaced);
//! diagnostics go to standard error.
//!
//! In a chat application each value is a sealed envelope to open with the
//! reader's identity before display.

use anyhow::Context as _;
use hermit_client::{Client, ClientOptions, Consumer, ConsumerOptions};
use tokio::io::AsyncWriteExt as _;

#[tokio::main]
async fn main() {
    if let Err(e) = run().await {
        // The whole cause chain, on one line.
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}

async fn run() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let addr = args.next().unwrap_or_else(|| "127.0.0.1:9092".into());
    let topic = args.next().unwrap_or_else(|| "chat".into());
    let group = args.next();

    let client = Client::connect(addr.as_str(), ClientOptions::default())
        .await
        .with_context(|| format!("connecting to {addr}"))?;
    let mut consumer = Consumer::new(
        &client,
        &topic,
        ConsumerOptions {
            group: group.clone(),
            ..ConsumerOptions::default()
        },
    )
    .await
    .with_context(|| format!("subscribing to {topic}"))?;
    eprintln!(
        "connected to {addr}; reading {topic:?} as {} (Ctrl-C to stop)",
        group
            .as_deref()
            .map_or("no group".to_owned(), |g| format!("group {g:?}"))
    );

    let mut out = tokio::io::stdout();
    // Registered once, so a Ctrl-C between two records is not missed.
    let mut stop = std::pin::pin!(tokio::signal::ctrl_c());
    loop {
        let record = tokio::select! {
            r = consumer.next() => r.context("reading")?,
            _ = &mut stop => break,
        };
        let mut line = String::from_utf8_lossy(&record.value).into_owned();
        line.push('\n');
        out.write_all(line.as_bytes()).await?;
        out.flush().await?;
    }
    eprintln!("stopping");
    // With a group: store the position after the last record printed.
    consumer.close().await.context("committing on exit")?;
    Ok(())
}
