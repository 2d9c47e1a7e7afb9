//! Send each line of standard input as one record.
//!
//! ```text
//! cargo run -p hermit-client --example producer -- [ADDR] [TOPIC] [KEY]
//! ```
//! `ADDR` defaults to `127.0.0.1:9092`, `TOPIC` to `chat`; `KEY` (e.g. a
//! conversation id) keeps a conversation's messages in one partition, in
//! order. Prints `partition offset` for each acknowledged line, in input
//! order, on standard output; diagnostics go to standard error.
//!
//! In a chat application the record would be a sealed envelope: use
//! `Producer::send_with` to seal it straight into the batch buffer.

use anyhow::Context as _;
use hermit_client::{Client, ClientOptions, Delivery, Producer, ProducerOptions};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};

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
    let key = args.next().unwrap_or_default();

    let client = Client::connect(addr.as_str(), ClientOptions::default())
        .await
        .with_context(|| format!("connecting to {addr}"))?;
    eprintln!("connected to {addr}; sending lines to {topic:?} (end with Ctrl-D)");
    let producer = Producer::new(&client, ProducerOptions::default());

    // Deliveries resolve in the background; a second task reports them in order.
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Delivery>();
    let printer = tokio::spawn(async move {
        let mut out = tokio::io::stdout();
        let mut failed = 0u64;
        while let Some(delivery) = rx.recv().await {
            match delivery.await {
                Ok(at) => {
                    let line = format!("{} {}\n", at.partition, at.offset);
                    out.write_all(line.as_bytes()).await?;
                }
                Err(e) => {
                    failed += 1;
                    eprintln!("not delivered: {e}");
                }
            }
        }
        out.flush().await?;
        anyhow::Ok(failed)
    });

    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    while let Some(line) = lines.next_line().await.context("reading standard input")? {
        // Waits only when the producer's buffer is full (back-pressure).
        let delivery = producer
            .send(&topic, key.as_bytes(), line.as_bytes())
            .await
            .context("queueing a record")?;
        if tx.send(delivery).is_err() {
            break; // The printer failed; its error is reported below.
        }
    }
    drop(tx);
    // Send what is still buffered and wait for every acknowledgement.
    producer.close().await;
    let failed = printer.await.context("printer task")??;
    if failed > 0 {
        anyhow::bail!("{failed} records were not delivered");
    }
    Ok(())
}
