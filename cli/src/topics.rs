//! `hermit topics list|create|describe|delete`.

use hermit_client::{Cleanup, MAX_LIST_LIMIT, TopicMetadata, TopicSettings};

use crate::conn::BrokerAddr;
use crate::exit::{ExitClass, USAGE, client_error};
use crate::keys::AuthIdentityArgs;
use crate::out::escaped;

/// `hermit topics …`
#[derive(Debug, clap::Subcommand)]
pub enum TopicsCommand {
    /// One line per topic: name, partitions, cleanup, retention, and the span
    /// of offsets stored (the record count on a HermitMQ broker without
    /// compaction; over NATS each message spans 65,536 offsets). Topics are
    /// asked for and printed one page at a time, in name order, so a broker
    /// with millions of them is listed in bounded memory.
    List {
        #[command(flatten)]
        broker: BrokerAddr,
        #[command(flatten)]
        auth: AuthIdentityArgs,
        /// `text` (a table) or `json` (one object per line).
        #[arg(long, short, default_value = "text", value_parser = ["text", "json"])]
        output: String,
        /// Topics asked for per request (1–1000). The table's first column
        /// is as wide as the longest name of the first page with topics.
        #[arg(long, value_name = "N", default_value_t = MAX_LIST_LIMIT,
              value_parser = clap::value_parser!(u32).range(1..=MAX_LIST_LIMIT as i64))]
        page_size: u32,
    },
    /// Create a topic.
    Create {
        /// Topic name: 1–249 of `[A-Za-z0-9._-]`.
        topic: String,
        #[command(flatten)]
        broker: BrokerAddr,
        #[command(flatten)]
        auth: AuthIdentityArgs,
        /// Number of partitions.
        #[arg(long, short, default_value_t = 1)]
        partitions: u32,
        /// Keep only the newest record per key instead of deleting old segments.
        #[arg(long)]
        compact: bool,
        /// Retention by age: milliseconds or `unlimited` [default: the broker's].
        #[arg(long, value_name = "MS", value_parser = parse_limit)]
        retention_ms: Option<u64>,
        /// Retention by size per partition: bytes or `unlimited` [default: the broker's].
        #[arg(long, value_name = "BYTES", value_parser = parse_limit)]
        retention_bytes: Option<u64>,
    },
    /// Settings and, per partition, the first stored offset and the high watermark.
    Describe {
        /// Topic name.
        topic: String,
        #[command(flatten)]
        broker: BrokerAddr,
        #[command(flatten)]
        auth: AuthIdentityArgs,
        /// `text` or `json`.
        #[arg(long, short, default_value = "text", value_parser = ["text", "json"])]
        output: String,
    },
    /// Delete a topic and all its data (needs --yes).
    Delete {
        /// Topic name.
        topic: String,
        #[command(flatten)]
        broker: BrokerAddr,
        #[command(flatten)]
        auth: AuthIdentityArgs,
        /// Really delete it.
        #[arg(long)]
        yes: bool,
    },
}

fn parse_limit(s: &str) -> Result<u64, String> {
    if s == "unlimited" {
        return Ok(u64::MAX);
    }
    match s.parse::<u64>() {
        Ok(0) => Err("0 would mean the broker default; leave the flag out instead".into()),
        Ok(v) => Ok(v),
        Err(e) => Err(format!("expected a number or `unlimited`: {e}")),
    }
}

fn limit(v: u64) -> String {
    if v == u64::MAX {
        "unlimited".into()
    } else {
        v.to_string()
    }
}

fn cleanup(c: Cleanup) -> &'static str {
    match c {
        Cleanup::Compact => "compact",
        _ => "delete",
    }
}

fn to_json(t: &TopicMetadata) -> serde_json::Value {
    serde_json::json!({
        "topic": t.name,
        "cleanup": cleanup(t.cleanup),
        "retention_ms": (t.retention_ms != u64::MAX).then_some(t.retention_ms),
        "retention_bytes": (t.retention_bytes != u64::MAX).then_some(t.retention_bytes),
        "partitions": t.partitions.iter().map(|p| serde_json::json!({
            "partition": p.partition,
            "log_start": p.log_start,
            "high_watermark": p.high_watermark,
        })).collect::<Vec<_>>(),
    })
}

/// The header of `topics list`'s table.
fn print_header(width: usize) -> anyhow::Result<()> {
    outln!(
        "{:width$}  {:>10}  {:7}  {:>13}  {:>15}  {:>10}",
        "TOPIC",
        "PARTITIONS",
        "CLEANUP",
        "RETENTION_MS",
        "RETENTION_BYTES",
        "OFFSETS"
    )?;
    Ok(())
}

/// One line of `topics list`'s table.
fn print_row(t: &TopicMetadata, width: usize) -> anyhow::Result<()> {
    let offsets: u64 = t
        .partitions
        .iter()
        .map(|p| p.high_watermark.saturating_sub(p.log_start))
        .sum();
    outln!(
        "{:width$}  {:>10}  {:7}  {:>13}  {:>15}  {:>10}",
        escaped(&t.name),
        t.partitions.len(),
        cleanup(t.cleanup),
        limit(t.retention_ms),
        limit(t.retention_bytes),
        offsets
    )?;
    Ok(())
}

/// Run a `hermit topics` command.
pub fn run(cmd: TopicsCommand) -> anyhow::Result<()> {
    crate::conn::init_client_logging();
    // Before the runtime starts: unlocking may ask for the password on the terminal.
    let identity = match &cmd {
        TopicsCommand::List { auth, .. }
        | TopicsCommand::Create { auth, .. }
        | TopicsCommand::Describe { auth, .. }
        | TopicsCommand::Delete { auth, .. } => auth.unlock()?,
    };
    let identity = identity.as_ref();
    crate::conn::runtime()?.block_on(async move {
        match cmd {
            TopicsCommand::List {
                broker,
                output,
                page_size,
                ..
            } => {
                let client = broker.connect(identity).await?;
                list(&client, output == "json", page_size).await
            }
            TopicsCommand::Create {
                topic,
                broker,
                partitions,
                compact,
                retention_ms,
                retention_bytes,
                ..
            } => {
                let client = broker.connect(identity).await?;
                let settings = TopicSettings {
                    partitions,
                    cleanup: if compact {
                        Cleanup::Compact
                    } else {
                        Cleanup::Delete
                    },
                    retention_ms: retention_ms.unwrap_or(0),
                    retention_bytes: retention_bytes.unwrap_or(0),
                };
                client
                    .create_topic(&topic, settings)
                    .await
                    .map_err(client_error)?;
                errln!("created {topic} ({partitions} partitions)");
                Ok(())
            }
            TopicsCommand::Describe {
                topic,
                broker,
                output,
                ..
            } => {
                let client = broker.connect(identity).await?;
                let topics = client.metadata(Some(&topic)).await.map_err(client_error)?;
                describe(&topics, output == "json")
            }
            TopicsCommand::Delete {
                topic, broker, yes, ..
            } => {
                if !yes {
                    return Err(anyhow::anyhow!(
                        "deleting {topic} destroys its data: add --yes to confirm"
                    ))
                    .class(USAGE);
                }
                let client = broker.connect(identity).await?;
                client.delete_topic(&topic).await.map_err(client_error)?;
                errln!("deleted {topic}");
                Ok(())
            }
        }
    })
}

/// `hermit topics list`: page by page, as a table or one JSON object per line.
async fn list(client: &hermit_client::Client, json: bool, page_size: u32) -> anyhow::Result<()> {
    // The table's width comes from the first page with topics
    // (its header waits for it): one page in memory at a time.
    let mut width: Option<usize> = None;
    let mut after: Option<String> = None;
    loop {
        let page = client
            .list_topics(after.as_deref(), page_size)
            .await
            .map_err(client_error)?;
        let last = page.next.is_none();
        if json {
            for t in &page.topics {
                outln!("{}", crate::out::json_line(&to_json(t)))?;
            }
        } else if width.is_some() || !page.topics.is_empty() || last {
            let width = match width {
                Some(w) => w,
                None => {
                    let w = page.topics.iter().map(|t| escaped(&t.name).len()).max();
                    let w = w.unwrap_or(5).max(5);
                    print_header(w)?;
                    *width.insert(w)
                }
            };
            for t in &page.topics {
                print_row(t, width)?;
            }
        }
        match page.next {
            Some(next) => after = Some(next),
            None => return Ok(()),
        }
    }
}

/// `hermit topics describe`: each topic's settings and partitions.
fn describe(topics: &[TopicMetadata], json: bool) -> anyhow::Result<()> {
    for t in topics {
        if json {
            outln!("{}", crate::out::json_line(&to_json(t)))?;
            continue;
        }
        outln!(
            "topic {}  cleanup {}  retention_ms {}  retention_bytes {}",
            escaped(&t.name),
            cleanup(t.cleanup),
            limit(t.retention_ms),
            limit(t.retention_bytes)
        )?;
        outln!(
            "{:>9}  {:>12}  {:>14}",
            "PARTITION",
            "LOG_START",
            "HIGH_WATERMARK"
        )?;
        for p in &t.partitions {
            outln!(
                "{:>9}  {:>12}  {:>14}",
                p.partition,
                p.log_start,
                p.high_watermark
            )?;
        }
    }
    Ok(())
}
