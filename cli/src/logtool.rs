//! `hermit log check|dump DIR`: offline inspection of a data directory.

use std::path::PathBuf;

use anyhow::Context;
use hermit_broker::log::check::{self, Finding};

use crate::exit::{ExitClass, INTEGRITY};

/// `hermit log …`
#[derive(Debug, clap::Subcommand)]
pub enum LogCommand {
    /// Verify every segment of a stopped broker's data directory: CRCs,
    /// offset continuity, indexes. Exit 5 when data is corrupt.
    Check {
        /// The data directory.
        dir: PathBuf,
    },
    /// Print the batch headers of one partition (or of every partition).
    Dump {
        /// The data directory.
        dir: PathBuf,
        /// Only this topic.
        #[arg(short, long)]
        topic: Option<String>,
        /// Only this partition.
        #[arg(short, long)]
        partition: Option<u32>,
    },
}

/// Run a `hermit log` command.
pub fn run(cmd: LogCommand) -> anyhow::Result<()> {
    match cmd {
        LogCommand::Check { dir } => check(dir),
        LogCommand::Dump {
            dir,
            topic,
            partition,
        } => dump(dir, topic, partition),
    }
}

fn check(dir: PathBuf) -> anyhow::Result<()> {
    let report =
        check::check_dir(&dir).with_context(|| format!("cannot check {}", dir.display()))?;
    for p in &report.partitions {
        let batches: u64 = p.segments.iter().map(|s| s.batches).sum();
        let bytes: u64 = p.segments.iter().map(|s| s.size).sum();
        let next = p.segments.last().map_or(0, |s| s.next_offset);
        let start = p.segments.first().map_or(0, |s| s.base);
        outln!(
            "{}/{}: {} segments, {} batches, {} bytes, offsets {}..{}",
            p.topic,
            p.partition,
            p.segments.len(),
            batches,
            bytes,
            start,
            next
        )?;
        for s in &p.segments {
            for f in &s.findings {
                let what = match f {
                    Finding::TornTail {
                        position,
                        bytes,
                        reason,
                    } => format!(
                        "torn tail at byte {position} ({bytes} bytes: {reason}); the next start truncates it"
                    ),
                    Finding::Corrupt { position, reason } => {
                        format!("CORRUPT at byte {position}: {reason}; this range is never served")
                    }
                    Finding::Gap { end, next_base } => {
                        format!("CORRUPT: offsets {end}..{next_base} are missing")
                    }
                    Finding::IndexMissing => "index missing; rebuilt on the next start".into(),
                    Finding::IndexMismatch => {
                        "index disagrees with the log; rebuilt on the next start".into()
                    }
                };
                outln!("  {}: {what}", s.path.display())?;
            }
        }
    }
    for o in &report.other {
        outln!("CORRUPT: {o}")?;
    }
    if report.has_corruption() {
        return Err(anyhow::anyhow!("{} holds corrupt data", dir.display())).class(INTEGRITY);
    }
    if report.is_clean() {
        eprintln!("ok: {} partitions verified", report.partitions.len());
    }
    Ok(())
}

fn dump(dir: PathBuf, topic: Option<String>, partition: Option<u32>) -> anyhow::Result<()> {
    let (parts, _) = check::catalog_partitions(&dir)
        .with_context(|| format!("cannot read the topic catalog of {}", dir.display()))?;
    let mut damaged = false;
    for cp in parts
        .into_iter()
        .filter(|cp| topic.as_ref().is_none_or(|t| *t == cp.topic))
        .filter(|cp| partition.is_none_or(|want| want == cp.partition))
    {
        let (name, p) = (&cp.topic, cp.partition);
        // The callback cannot stop the scan: after a failed write it
        // only skips the rest, and the error is returned after it.
        let mut written = Ok(());
        let damage = check::dump_partition(&dir, &cp, |e| {
            if written.is_err() {
                return;
            }
            let h = &e.header;
            written = outln!(
                "{name}/{p} offset={} records={} position={} bytes={} key_len={} payload_len={} timestamp_ns={} crc=0x{:08x} segment={}",
                h.base_offset,
                h.record_count,
                e.position,
                h.batch_len(),
                h.key_len,
                h.payload_len,
                h.timestamp_ns,
                h.crc,
                e.segment
                    .file_name()
                    .map(|f| f.to_string_lossy())
                    .unwrap_or_default(),
            );
        })?;
        written?;
        for (path, why) in damage {
            damaged = true;
            outln!("{name}/{p} DAMAGED {}: {why}", path.display())?;
        }
    }
    if damaged {
        return Err(anyhow::anyhow!("damaged batches found")).class(INTEGRITY);
    }
    Ok(())
}
