//! Background work: retention and compaction over the partitions that
//! need them, and the verification of segments rolled before this start.

use std::fs;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use hermit_protocol::Cleanup;

use super::clock;
use super::error::{IoContext, Result};
use super::layout::{PARTITIONS_DIR, parse_partition_dir};
use super::options::VerifyRolled;
use super::store::Log;

impl Log {
    /// Run retention and compaction once over the open partitions and
    /// those known to hold rolled segments (a partition with only its
    /// active segment has nothing to delete or compact).
    pub fn run_cleanup(&self, now_ns: u64) -> Result<()> {
        if !self.surveyed.swap(true, Ordering::SeqCst) {
            self.survey()?;
        }
        for topic in self.topics() {
            for i in 0..topic.partition_count() {
                if self.stop.load(Ordering::SeqCst) {
                    return Ok(());
                }
                let key = (topic.incarnation, i);
                let open = self.lock_open().peek(key);
                let p = match open {
                    Some(p) => p,
                    None if self.lock_open().cleanup_due.contains(&key) => {
                        self.open_partition(&topic, i)?
                    }
                    None => continue,
                };
                p.enforce_retention(now_ns)?;
                if topic.cleanup() == Cleanup::Compact {
                    p.compact(now_ns)?;
                }
                if p.segment_count() <= 1 {
                    self.lock_open().cleanup_due.remove(&key);
                }
            }
        }
        Ok(())
    }

    /// Find the closed partitions with rolled segments (once per start, in
    /// the cleaner): one directory listing per partition directory.
    /// Directories the catalog does not know are reported, never removed:
    /// after a crash they hold only unacknowledged writes, but after corruption
    /// to the catalog they may hold data an operator wants back.
    pub(super) fn survey(&self) -> Result<()> {
        let parts_dir = self.dir.join(PARTITIONS_DIR);
        let owners: std::collections::HashMap<u64, u32> = self
            .read_topics()
            .iter()
            .map(|t| (t.0.incarnation, t.0.partition_count()))
            .collect();
        let mut unknown = Vec::new();
        let mut found = Vec::new();
        for entry in fs::read_dir(&parts_dir).ctx("list partitions", &parts_dir)? {
            if self.stop.load(Ordering::SeqCst) {
                return Ok(());
            }
            let entry = entry.ctx("list partitions", &parts_dir)?;
            let name = entry.file_name();
            let known = name
                .to_str()
                .and_then(parse_partition_dir)
                .filter(|(_, p, inc)| owners.get(inc).is_some_and(|n| p < n));
            let Some((_, p, inc)) = known else {
                unknown.push(entry.path());
                continue;
            };
            let logs = fs::read_dir(entry.path())
                .map(|d| {
                    d.filter_map(|e| e.ok())
                        .filter(|e| e.file_name().to_str().is_some_and(|n| n.ends_with(".log")))
                        .count()
                })
                .unwrap_or(0);
            if logs > 1 {
                found.push((inc, p));
            }
        }
        if !unknown.is_empty() {
            tracing::warn!(
                count = unknown.len(),
                first = %unknown[0].display(),
                "partition directories that no topic in the catalog owns (left by a crash \
                 during their topic's creation, or by a corrupt catalog): left alone"
            );
        }
        self.lock_open().cleanup_due.extend(found);
        Ok(())
    }

    /// Verify every segment from before this start that is not verified
    /// yet, in the open partitions (and, with `verify_rolled = startup`,
    /// in every partition: each is opened once for it). A partition opened
    /// later verifies its older segments when they are first read.
    pub fn verify_all(&self) -> Result<()> {
        let every = self.opts.verify_rolled == VerifyRolled::Startup;
        for topic in self.topics() {
            for i in 0..topic.partition_count() {
                let open = self.lock_open().peek((topic.incarnation, i));
                let p = match open {
                    Some(p) => p,
                    None if every => self.open_partition(&topic, i)?,
                    None => continue,
                };
                let mut segs = p.unverified_segments();
                segs.reverse(); // newest first: the likeliest to be read
                for seg in segs {
                    if self.stop.load(Ordering::SeqCst) {
                        return Ok(());
                    }
                    p.verify_segment(&seg)?;
                }
            }
        }
        Ok(())
    }

    /// Start background threads: verification of old segments (when
    /// `verify_rolled = background`) and periodic cleanup.
    pub fn start_background(self: &Arc<Self>, cleanup_every: std::time::Duration) {
        if self.opts.verify_rolled == VerifyRolled::Background {
            let log = Arc::downgrade(self);
            let _ = std::thread::Builder::new()
                .name("hermit-verify".into())
                .spawn(move || {
                    if let Some(log) = log.upgrade()
                        && let Err(e) = log.verify_all()
                    {
                        tracing::error!(error = %e, "background verification failed");
                    }
                });
        }
        let log = Arc::downgrade(self);
        let stop = self.stop.clone();
        let _ = std::thread::Builder::new()
            .name("hermit-cleaner".into())
            .spawn(move || {
                let step = std::time::Duration::from_millis(100);
                let mut waited = std::time::Duration::ZERO;
                while !stop.load(Ordering::SeqCst) {
                    std::thread::sleep(step);
                    waited += step;
                    if waited < cleanup_every {
                        continue;
                    }
                    waited = std::time::Duration::ZERO;
                    let Some(log) = log.upgrade() else { return };
                    if let Err(e) = log.run_cleanup(clock::now_ns()) {
                        tracing::error!(error = %e, "cleanup failed");
                    }
                }
            });
    }
}
