//! `hermit produce`: seal messages from stdin or a file to one or more
//! recipients and send them. One message per line (or per `--delimiter`
//! byte), or the whole input as one message (`--file`). A message longer
//! than 50 MiB (the broker's default payload limit) stops the input.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use hermit_client::crypto::PublicKey;
use hermit_client::sealed::{SealedDelivery, SealedError, SealedProducer, SealedProducerOptions};
use hermit_client::{Ack, Producer, ProducerOptions};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, BufReader};

use crate::conn::BrokerAddr;
use crate::exit::{ExitClass, USAGE, client_error};
use crate::keys::{IdentityArgs, load_public_key};

/// The longest message read: the broker's default limit on a batch's
/// payload (50 MiB; a sealed message is a little longer than its
/// plaintext). Reads stop one byte past it, so `--file /dev/zero` or an
/// endless line is refused instead of filling the memory.
const MAX_MESSAGE: u64 = hermit_protocol::frame::DEFAULT_MAX_PAYLOAD as u64;

/// `hermit produce`
#[derive(Debug, clap::Args)]
pub struct ProduceArgs {
    /// Topic to send to (created on first use if the broker auto-creates).
    #[arg(long, short)]
    topic: String,
    #[command(flatten)]
    identity: IdentityArgs,
    /// A recipient's public key (`.pub` file, key file or base64 SPKI);
    /// repeat for several (one record for all of them, MULTI mode).
    #[arg(long = "to", required = true, value_name = "PUBKEY")]
    to: Vec<String>,
    /// Logical record key (sent blinded: the broker sees only an HMAC of it).
    /// Records with one key go to one partition, in order.
    #[arg(long, short)]
    key: Option<String>,
    #[command(flatten)]
    broker: BrokerAddr,
    /// Message separator: one byte, or `\n`, `\t`, `\0`.
    #[arg(long, short = 'D', default_value = "\\n", value_parser = parse_delimiter)]
    delimiter: u8,
    /// Send the whole input as one message (at most 50 MiB, as any message).
    #[arg(long, conflicts_with = "delimiter")]
    file: bool,
    /// How long a batch waits for more messages, in ms.
    #[arg(long, default_value_t = 5)]
    linger_ms: u64,
    /// Most messages per batch.
    #[arg(long, default_value_t = 100)]
    batch_records: u32,
    /// Most bytes per batch.
    #[arg(long, default_value_t = 256 * 1024)]
    batch_bytes: usize,
    /// When the broker acknowledges: `durable` (after an fsync) or `written`.
    #[arg(long, default_value = "durable", value_parser = ["durable", "written"])]
    ack: String,
    /// Do not pad messages: by default each is padded to a Padmé bucket
    /// (at most 12 % more bytes) so the broker learns little of its length.
    #[arg(long)]
    no_pad: bool,
    /// Do not keep DIRECT counts in this identity's state topic
    /// (`state.<fingerprint>`): the switch to MULTI before a pairwise key's
    /// IV budget is spent then holds within one run only.
    #[arg(long)]
    no_state: bool,
    /// Print `PARTITION<TAB>OFFSET<TAB>SEQ` on stdout for each message, in input order.
    #[arg(long)]
    print_offsets: bool,
    /// Input [default: stdin].
    #[arg(value_name = "FILE|-")]
    input: Option<PathBuf>,
}

/// `\n`, `\t`, `\r`, `\0`, `\\` or any single byte.
pub fn parse_delimiter(s: &str) -> Result<u8, String> {
    match s {
        "\\n" => Ok(b'\n'),
        "\\t" => Ok(b'\t'),
        "\\r" => Ok(b'\r'),
        "\\0" => Ok(0),
        "\\\\" => Ok(b'\\'),
        _ if s.len() == 1 => Ok(s.as_bytes()[0]),
        _ => Err(format!(
            "the delimiter must be one byte (or \\n, \\t, \\r, \\0), not {s:?}"
        )),
    }
}

/// Run `hermit produce`.
pub fn run(args: ProduceArgs) -> anyhow::Result<()> {
    crate::conn::init_client_logging();
    let recipients = args
        .to
        .iter()
        .map(|v| load_public_key(v).with_context(|| format!("--to {v}")))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let identity = args.identity.unlock()?;
    crate::conn::runtime()?.block_on(produce(args, identity, recipients))
}

/// What a finished send reports.
struct Outcome {
    acked: u64,
    failed: Option<(u64, anyhow::Error)>,
}

/// How far the input got.
#[derive(Default)]
struct Counts {
    /// Messages handed to the sealed producer.
    sent: u64,
    /// Input bytes read.
    read: u64,
}

async fn produce(
    args: ProduceArgs,
    identity: hermit_client::crypto::Identity,
    recipients: Vec<PublicKey>,
) -> anyhow::Result<()> {
    let (input, size) = open_input(args.input.as_deref()).await?;
    let client = args.broker.connect(Some(&identity)).await?;
    let producer = Producer::new(
        &client,
        ProducerOptions {
            ack: if args.ack == "written" {
                Ack::Written
            } else {
                Ack::Durable
            },
            linger: Duration::from_millis(args.linger_ms),
            batch_records: args.batch_records.max(1),
            batch_bytes: args.batch_bytes,
            ..ProducerOptions::default()
        },
    );
    let sealed = SealedProducer::new(
        &producer,
        identity,
        SealedProducerOptions {
            padding: !args.no_pad,
            persist_budgets: !args.no_state,
            ..SealedProducerOptions::default()
        },
    )
    .map_err(sealed_error)?;
    let progress = progress_bar(args.input.is_none(), size);
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel::<SealedDelivery>();
    let waiter = tokio::spawn(await_deliveries(rx, args.print_offsets));
    let sender = Sender {
        sealed: &sealed,
        recipients: &recipients,
        topic: &args.topic,
        key: args.key.as_deref().map(str::as_bytes),
        tx,
    };
    let mut counts = Counts::default();
    // A failure stops the reading only: what was queued before it is still
    // flushed and counted below, and the error returned after that.
    let stopped = read_and_send(&args, input, &sender, progress.as_ref(), &mut counts).await;
    drop(sender); // the waiter ends once every delivery is in
    sealed.flush().await;
    let outcome = waiter.await.context("the delivery task panicked")?;
    producer.close().await;
    if let Some(bar) = progress {
        bar.finish_and_clear();
    }
    report(stopped, outcome, &counts, &args.topic)
}

/// The input (a file, or stdin for none or `-`) and its size when known.
async fn open_input(
    path: Option<&std::path::Path>,
) -> anyhow::Result<(Box<dyn AsyncRead + Unpin + Send>, Option<u64>)> {
    match path {
        Some(p) if p.as_os_str() != "-" => {
            let file = tokio::fs::File::open(p)
                .await
                .with_context(|| format!("cannot open {}", p.display()))
                .class(USAGE)?;
            let size = std::fs::metadata(p).ok().map(|m| m.len());
            Ok((Box::new(file), size))
        }
        _ => Ok((Box::new(tokio::io::stdin()), None)),
    }
}

/// Progress only for a human watching a file being sent: never on a pipe,
/// never while someone types messages.
fn progress_bar(from_stdin: bool, size: Option<u64>) -> Option<indicatif::ProgressBar> {
    (std::io::stderr().is_terminal() && !(from_stdin && std::io::stdin().is_terminal())).then(
        || {
            let bar = match size {
                Some(n) => indicatif::ProgressBar::new(n),
                None => indicatif::ProgressBar::new_spinner(),
            };
            bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
            bar
        },
    )
}

/// Await deliveries in input order (one task), printing offsets if asked.
async fn await_deliveries(
    mut rx: tokio::sync::mpsc::UnboundedReceiver<SealedDelivery>,
    print: bool,
) -> Outcome {
    use std::io::Write;
    let mut out = Outcome {
        acked: 0,
        failed: None,
    };
    let mut index = 0u64;
    while let Some(d) = rx.recv().await {
        index += 1;
        let seq = d.seq();
        match d.await {
            Ok(at) => {
                out.acked += 1;
                if print {
                    // A closed stdout only loses the printout, not the sends.
                    let mut stdout = std::io::stdout().lock();
                    let _ = writeln!(stdout, "{}\t{}\t{}", at.partition, at.offset, seq)
                        .and_then(|()| stdout.flush());
                }
            }
            Err(e) => {
                if out.failed.is_none() {
                    out.failed = Some((index, client_error(e)));
                }
            }
        }
    }
    out
}

/// Seals each message and queues its delivery for the waiter.
struct Sender<'a> {
    sealed: &'a SealedProducer,
    recipients: &'a [PublicKey],
    topic: &'a str,
    key: Option<&'a [u8]>,
    tx: tokio::sync::mpsc::UnboundedSender<SealedDelivery>,
}

impl Sender<'_> {
    async fn send(&self, msg: &[u8]) -> anyhow::Result<()> {
        let d = self
            .sealed
            .send(self.topic, self.key, msg, self.recipients)
            .await
            .map_err(sealed_error)?;
        // The waiter lives until tx is dropped.
        let _ = self.tx.send(d);
        Ok(())
    }
}

/// Read and send until the input ends or something fails.
async fn read_and_send(
    args: &ProduceArgs,
    input: Box<dyn AsyncRead + Unpin + Send>,
    sender: &Sender<'_>,
    progress: Option<&indicatif::ProgressBar>,
    counts: &mut Counts,
) -> anyhow::Result<()> {
    let mut reader = BufReader::with_capacity(256 * 1024, input);
    let mut buf = Vec::new();
    if args.file {
        (&mut reader)
            .take(MAX_MESSAGE + 1)
            .read_to_end(&mut buf)
            .await
            .context("cannot read the input")?;
        counts.read = buf.len() as u64;
        if counts.read > MAX_MESSAGE {
            return Err(too_long("the input (--file)"));
        }
        sender.send(&buf).await?;
        counts.sent = 1;
        return Ok(());
    }
    loop {
        buf.clear();
        // At most one byte more than the largest message: a message
        // of MAX_MESSAGE bytes and its delimiter.
        let n = (&mut reader)
            .take(MAX_MESSAGE + 1)
            .read_until(args.delimiter, &mut buf)
            .await
            .context("cannot read the input")?;
        if n == 0 {
            return Ok(());
        }
        counts.read += n as u64;
        if buf.last() == Some(&args.delimiter) {
            buf.pop();
        } else if n as u64 > MAX_MESSAGE {
            return Err(too_long(&format!("message {}", counts.sent + 1)));
        }
        sender.send(&buf).await?;
        counts.sent += 1;
        if let Some(bar) = progress {
            bar.set_position(counts.read);
            bar.set_message(format!("{} messages", counts.sent));
        }
    }
}

/// The end of a send: the error that stopped it, the first delivery that
/// failed, or on a terminal a summary.
fn report(
    stopped: anyhow::Result<()>,
    outcome: Outcome,
    counts: &Counts,
    topic: &str,
) -> anyhow::Result<()> {
    let sent = counts.sent;
    if let Err(e) = stopped {
        if let Some((index, failed)) = outcome.failed {
            errln!("error: message {index} was not acknowledged: {failed:#}");
        }
        return Err(e.context(format!(
            "stopped after {sent} messages ({} acknowledged)",
            outcome.acked
        )));
    }
    if let Some((index, e)) = outcome.failed {
        return Err(e.context(format!(
            "message {index} was not acknowledged ({} of {sent} were)",
            outcome.acked
        )));
    }
    if std::io::stderr().is_terminal() {
        errln!("sent {sent} messages ({} bytes) to {topic}", counts.read);
    }
    Ok(())
}

/// An error for a message longer than [`MAX_MESSAGE`].
fn too_long(what: &str) -> anyhow::Error {
    anyhow::anyhow!(
        "{what} is longer than {MAX_MESSAGE} bytes, the broker's default limit on a batch"
    )
}

/// Exit class of a sealed producer or consumer error.
pub fn sealed_error(e: SealedError) -> anyhow::Error {
    match e {
        SealedError::Client(c) => client_error(c),
        // The ACL has no rule for the identity's state topic: an
        // authorization failure (exit 4), like any other refusal.
        e @ SealedError::State {
            status: Some(hermit_client::Status::Unauthorized),
            ..
        } => Err::<(), _>(e).class(crate::exit::AUTH).unwrap_err(),
        // The broker served an older state or commit than this device
        // anchored (its --state-dir): the data it serves is not to be
        // trusted, an integrity failure (exit 5).
        e @ (SealedError::StateRolledBack { .. } | SealedError::CommitRolledBack { .. }) => {
            Err::<(), _>(e).class(crate::exit::INTEGRITY).unwrap_err()
        }
        other => Err::<(), _>(other).class(USAGE).unwrap_err(),
    }
}

#[cfg(test)]
mod tests {
    use super::parse_delimiter;

    #[test]
    fn delimiters() {
        assert_eq!(parse_delimiter("\\n"), Ok(b'\n'));
        assert_eq!(parse_delimiter("\\0"), Ok(0));
        assert_eq!(parse_delimiter(","), Ok(b','));
        assert!(parse_delimiter("ab").is_err());
    }
}
