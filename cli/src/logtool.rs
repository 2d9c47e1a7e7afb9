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
                    Finding::DamagedTail {
                        position,
                        bytes,
                        reason,
                    } => format!(
                        "torn tail at byte {position} ({bytes} bytes: {reason}); the next start truncates it"
                    ),
                    Finding::Damaged { position, reason } => {
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
    let topics_dir = dir.join("topics");
    let mut names: Vec<String> = std::fs::read_dir(&topics_dir)
        .with_context(|| format!("cannot list {}", topics_dir.display()))?
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| topic.as_ref().is_none_or(|t| t == n))
        .collect();
    names.sort();
    let mut damaged = false;
    for name in names {
        let tdir = topics_dir.join(&name);
        let mut parts: Vec<u32> = std::fs::read_dir(&tdir)
            .with_context(|| format!("cannot list {}", tdir.display()))?
            .filter_map(|e| e.ok())
            .filter_map(|e| e.file_name().into_string().ok()?.parse().ok())
            .filter(|p| partition.is_none_or(|want| want == *p))
            .collect();
        parts.sort_unstable();
        for p in parts {
            // The callback cannot stop the scan: after a failed write it
            // only skips the rest, and the error is returned after it.
            let mut written = Ok(());
            let damage = check::dump_partition(&tdir.join(p.to_string()), |e| {
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
    }
    if damaged {
        return Err(anyhow::anyhow!("damaged batches found")).class(INTEGRITY);
    }
    Ok(())
}
