//! Retention: whole rolled segments past the age or size limit are
//! deleted; and the rolled-segment list compaction replaces segments in.

use std::sync::Arc;

use hermit_protocol::Cleanup;

use super::Partition;
use crate::log::error::Result;
use crate::log::fsutil;
use crate::log::segment::{self, RolledSegment};

impl Partition {
    /// Delete whole rolled segments past the retention limits (age from the
    /// broker's newest append to the segment, never the producers'
    /// timestamps; size over all segments). Returns how many went.
    pub fn enforce_retention(&self, now_ns: u64) -> Result<usize> {
        let retention_ns = self.policy.retention_ms.saturating_mul(1_000_000);
        let retention_bytes = self.policy.retention_bytes;
        let doomed: Vec<Arc<RolledSegment>> = {
            let mut inner = self.lock();
            let mut total: u64 =
                inner.rolled.iter().map(|s| s.size).sum::<u64>() + inner.active.used();
            let mut n = 0;
            if self.policy.cleanup == Cleanup::Delete {
                for seg in &inner.rolled {
                    let too_old = self.policy.retention_ms != u64::MAX
                        && seg.append_ns().saturating_add(retention_ns) < now_ns;
                    let too_big =
                        retention_bytes != u64::MAX && total - seg.size >= retention_bytes;
                    if !(too_old || too_big) {
                        break;
                    }
                    total -= seg.size;
                    n += 1;
                }
            }
            let doomed: Vec<_> = inner.rolled.drain(..n).collect();
            if n > 0 {
                inner.log_start = inner.rolled.first().map_or(inner.active.base, |s| s.base);
                self.report_files(&inner);
            }
            doomed
        };
        for seg in &doomed {
            tracing::info!(
                topic = %self.topic, partition = self.id, base = seg.base, bytes = seg.size,
                "retention: deleting segment"
            );
            segment::remove_segment_files(&self.opts.io, seg)?;
        }
        if !doomed.is_empty() {
            fsutil::fsync_dir(&self.opts.io, &self.dir)?;
        }
        Ok(doomed.len())
    }

    /// Rolled segments, oldest first (compaction and tools).
    pub(crate) fn rolled_segments(&self) -> Vec<Arc<RolledSegment>> {
        self.lock().rolled.clone()
    }

    /// Replace rolled segment `old` (by identity) with `new`, or drop it when
    /// `new` is `None`. Returns false if `old` is no longer in the list.
    pub(crate) fn replace_rolled(
        &self,
        old: &Arc<RolledSegment>,
        new: Option<Arc<RolledSegment>>,
    ) -> bool {
        let mut inner = self.lock();
        let Some(i) = inner.rolled.iter().position(|s| Arc::ptr_eq(s, old)) else {
            return false;
        };
        match new {
            Some(seg) => inner.rolled[i] = seg,
            None => {
                inner.rolled.remove(i);
                if i == 0 {
                    inner.log_start = inner.rolled.first().map_or(inner.active.base, |s| s.base);
                }
                self.report_files(&inner);
            }
        }
        true
    }
}
