//! `hermit consume`: read a topic, open every record addressed to one's
//! identity from trusted senders, and print the plaintexts.
//!
//! A record that fails to open is reported (stderr in `text`/`raw`, an
//! `error` line in `jsonl`) and reading goes on; the exit code is then 4.
//! Records addressed to others are skipped quietly.
//!
//! # `jsonl` output
//! One JSON object per line (written by `out::json_line`: besides JSON's
//! own escapes, DEL, C1 controls and bidi/zero-width characters are
//! `\uNNNN` escapes, so no line can drive a terminal):
//! `{"topic", "partition", "offset", "timestamp", "sender", "seq", "mode",
//! "payload" | "payload_b64", ["gap": {"first","last"}], ["late": true]}`;
//! `timestamp` is the batch timestamp in ms since the Unix epoch (set by the
//! producer, not authenticated), `sender` the sender's fingerprint in hex,
//! `payload` the plaintext when it is valid UTF-8, otherwise `payload_b64`
//! (standard base64) — never both, and nothing is ever replaced or dropped.
//! A record that failed: `{"topic", "partition", "offset", "timestamp",
//! "error"}`.

use std::io::{IsTerminal, Write};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use hermit_client::crypto::OpenedMode;
use hermit_client::sealed::{
    OpenedRecord, SealedConsumer, SealedConsumerOptions, SealedRecordError, StateOrigin,
};
use hermit_client::{ConsumerOptions, Fallback, ResetPolicy, StartFrom};

use crate::conn::BrokerAddr;
use crate::exit::{AUTH, ExitClass, client_error};
use crate::keys::{IdentityArgs, load_public_key};
use crate::produce::{parse_delimiter, sealed_error};

/// `hermit consume`
#[derive(Debug, clap::Args)]
pub struct ConsumeArgs {
    /// Topic to read.
    #[arg(long, short)]
    topic: String,
    #[command(flatten)]
    identity: IdentityArgs,
    /// A sender whose records to open (`.pub` file, key file or base64 SPKI);
    /// repeat for several. Records from anyone else fail to open.
    #[arg(long = "trust", required = true, value_name = "PUBKEY")]
    trust: Vec<String>,
    /// Consumer group: start at its committed offsets and commit as records
    /// are printed.
    #[arg(long, short)]
    group: Option<String>,
    /// With a group, do not keep the replay state in this identity's state
    /// topic (`state.<fingerprint>`): a record replayed to a restarted
    /// consumer then opens again.
    #[arg(long)]
    no_state: bool,
    /// Where to start: `beginning`, `end`, an offset (every partition), or
    /// `stored` (the group's commit, else the beginning) [default: `stored`
    /// with a group, else `beginning`].
    #[arg(long, short, value_name = "beginning|end|stored|OFFSET", value_parser = parse_start)]
    offset: Option<StartFrom>,
    /// Only these partitions (repeatable) [default: all].
    #[arg(long, short)]
    partition: Vec<u32>,
    /// Stop after this many records (opened or failed).
    #[arg(long, short)]
    count: Option<u64>,
    /// Stop at the end of every partition as it was when reading started.
    #[arg(long, short)]
    exit_on_end: bool,
    /// `text`: each plaintext and the delimiter, with control characters,
    /// invalid UTF-8 and text-reordering characters shown as escapes (`\x1b`,
    /// `\n`, `\u{202e}`) so a message cannot drive the terminal; `jsonl`: one JSON object
    /// per record (topic, partition, offset, timestamp in ms, sender
    /// fingerprint, seq, mode, and `payload`, or `payload_b64` when the
    /// plaintext is not UTF-8, or `error` for a record that failed to
    /// open); `raw`: plaintexts back to back, unmodified on a pipe, escaped
    /// as in `text` when stdout is a terminal.
    #[arg(long, default_value = "text", value_parser = ["text", "jsonl", "raw"])]
    output: String,
    /// In `text` output, write plaintexts as they are, escape sequences and
    /// all, when stdout is a pipe into another program; on a terminal they
    /// are escaped all the same.
    #[arg(long)]
    raw: bool,
    /// What follows each plaintext in `text` output: one byte, or `\n`, `\t`, `\0`.
    #[arg(long, short = 'D', default_value = "\\n", value_parser = parse_delimiter)]
    delimiter: u8,
    /// Also open legacy `{"iv","data"}` records (no replay protection).
    #[arg(long)]
    allow_legacy: bool,
    #[command(flatten)]
    broker: BrokerAddr,
}

fn parse_start(s: &str) -> Result<StartFrom, String> {
    match s {
        "beginning" | "earliest" => Ok(StartFrom::Earliest),
        "end" | "latest" => Ok(StartFrom::Latest),
        "stored" => Ok(StartFrom::Committed {
            fallback: Fallback::Earliest,
        }),
        n => n
            .parse()
            .map(StartFrom::Offset)
            .map_err(|_| format!("expected beginning, end, stored or an offset, not {n:?}")),
    }
}

/// Run `hermit consume`.
pub fn run(args: ConsumeArgs) -> anyhow::Result<()> {
    crate::conn::init_client_logging();
    let trusted = args
        .trust
        .iter()
        .map(|v| load_public_key(v).map_err(|e| e.context(format!("--trust {v}"))))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let identity = args.identity.unlock()?;
    crate::conn::runtime()?.block_on(consume(args, identity, trusted))
}

#[derive(Default)]
struct Counts {
    shown: u64,
    failed: u64,
    not_for_me: u64,
}

async fn consume(
    args: ConsumeArgs,
    identity: hermit_client::crypto::Identity,
    trusted: Vec<hermit_client::crypto::PublicKey>,
) -> anyhow::Result<()> {
    let client = args.broker.connect(Some(&identity)).await?;
    let start = args.offset.unwrap_or(if args.group.is_some() {
        StartFrom::Committed {
            fallback: Fallback::Earliest,
        }
    } else {
        StartFrom::Earliest
    });
    let options = ConsumerOptions {
        group: args.group.clone(),
        partitions: (!args.partition.is_empty()).then(|| args.partition.clone()),
        start,
        // An explicit offset that does not exist is an error, not a silent jump.
        reset: match start {
            StartFrom::Offset(_) => ResetPolicy::Error,
            _ => ResetPolicy::Earliest,
        },
        ..ConsumerOptions::default()
    };
    let options = SealedConsumerOptions {
        persist_state: !args.no_state,
        ..options.into()
    };
    let mut consumer = SealedConsumer::new(&client, identity, trusted, &args.topic, options)
        .await
        .map_err(sealed_error)?;
    if let StateOrigin::Restored { senders, .. } = consumer.state_origin() {
        tracing::debug!(senders, "replay state restored");
    }
    consumer.allow_legacy(args.allow_legacy);

    // The end of each partition when reading started (for --exit-on-end).
    let ends: Vec<(u32, u64)> = if args.exit_on_end {
        let meta = client
            .metadata(Some(&args.topic))
            .await
            .map_err(client_error)?;
        meta.into_iter()
            .flat_map(|t| t.partitions)
            .filter(|p| args.partition.is_empty() || args.partition.contains(&p.partition))
            .map(|p| (p.partition, p.high_watermark))
            .collect()
    } else {
        Vec::new()
    };
    let at_end = |c: &SealedConsumer| {
        args.exit_on_end
            && ends
                .iter()
                .all(|&(p, end)| c.position(p).is_none_or(|pos| pos >= end))
    };

    let terminal = crate::out::stdout_is_terminal();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut counts = Counts::default();
    let ctrl_c = tokio::signal::ctrl_c();
    tokio::pin!(ctrl_c);
    let result: anyhow::Result<()> = async {
        loop {
            if args.count.is_some_and(|c| counts.shown >= c) || at_end(&consumer) {
                return Ok(());
            }
            let received = tokio::select! {
                r = consumer.next() => r.map_err(client_error)?,
                _ = &mut ctrl_c => return Ok(()),
            };
            let written = match received {
                Ok(record) => {
                    counts.shown += 1;
                    write_opened(&mut out, &args, terminal, &record)
                }
                Err(e) if e.is_not_for_me() => {
                    counts.not_for_me += 1;
                    continue;
                }
                Err(e) => {
                    counts.shown += 1;
                    counts.failed += 1;
                    // Reported: the CLI's decision to go on, so commits may pass it.
                    consumer.ack(e.partition, e.offset);
                    write_failed(&mut out, &args, &e)
                }
            };
            match crate::out::checked(written.and_then(|()| out.flush())) {
                Ok(()) => {}
                // The reader went away (`| head`): a normal way to stop,
                // after the consumer is closed (its commits) below.
                Err(e) if crate::out::stopped(&e) => return Ok(()),
                Err(e) => return Err(e),
            }
        }
    }
    .await;
    let closed = consumer.close().await.map_err(sealed_error);
    result?;
    closed?;
    if std::io::stderr().is_terminal() {
        eprintln!(
            "{} records ({} failed to open, {} addressed to others)",
            counts.shown, counts.failed, counts.not_for_me
        );
    }
    if counts.failed > 0 {
        return Err(anyhow::anyhow!(
            "{} of {} records failed to open",
            counts.failed,
            counts.shown
        ))
        .class(AUTH);
    }
    Ok(())
}

fn mode(m: OpenedMode) -> &'static str {
    match m {
        OpenedMode::Direct => "direct",
        OpenedMode::Multi => "multi",
        OpenedMode::Legacy => "legacy",
    }
}

fn write_opened(
    out: &mut impl Write,
    args: &ConsumeArgs,
    terminal: bool,
    r: &OpenedRecord,
) -> std::io::Result<()> {
    match args.output.as_str() {
        "jsonl" => {
            let mut v = serde_json::json!({
                "topic": &*r.topic,
                "partition": r.partition,
                "offset": r.offset,
                "timestamp": r.timestamp_ns / 1_000_000,
                "sender": r.sender.to_hex(),
                "seq": r.seq,
                "mode": mode(r.mode),
            });
            match r.plaintext.to_str() {
                Ok(text) => v["payload"] = text.into(),
                Err(_) => v["payload_b64"] = B64.encode(r.plaintext.as_bytes()).into(),
            }
            if let Some(g) = r.gap {
                v["gap"] = serde_json::json!({"first": g.first, "last": g.last});
            }
            if r.late {
                v["late"] = true.into();
            }
            writeln!(out, "{}", crate::out::json_line(&v))
        }
        "raw" => {
            let mut shown = Vec::new();
            crate::out::payload(r.plaintext.as_bytes(), terminal, &mut shown);
            out.write_all(&shown)
        }
        _ if args.raw => {
            let mut shown = Vec::new();
            crate::out::payload(r.plaintext.as_bytes(), terminal, &mut shown);
            shown.push(args.delimiter);
            out.write_all(&shown)
        }
        _ => {
            let mut shown = Vec::with_capacity(r.plaintext.as_bytes().len() + 1);
            crate::out::escape_text(r.plaintext.as_bytes(), &mut shown);
            shown.push(args.delimiter);
            out.write_all(&shown)
        }
    }
}

fn write_failed(
    out: &mut impl Write,
    args: &ConsumeArgs,
    e: &SealedRecordError,
) -> std::io::Result<()> {
    if args.output == "jsonl" {
        let v = serde_json::json!({
            "topic": &*e.topic,
            "partition": e.partition,
            "offset": e.offset,
            "timestamp": e.timestamp_ns / 1_000_000,
            "error": e.kind.to_string(),
        });
        writeln!(out, "{}", crate::out::json_line(&v))
    } else {
        errln!("error: {e}");
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_positions() {
        assert_eq!(parse_start("beginning"), Ok(StartFrom::Earliest));
        assert_eq!(parse_start("end"), Ok(StartFrom::Latest));
        assert_eq!(parse_start("42"), Ok(StartFrom::Offset(42)));
        assert!(parse_start("-3").is_err());
    }
}
