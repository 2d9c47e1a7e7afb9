//! Whole-batch scans of a partition, through the one segment reader: what
//! compaction and the offsets store read a partition with.

use std::sync::Arc;

use super::Partition;
use crate::log::error::Result;
use crate::log::reader::{Continuity, HARD_MAX_BATCH, ScanOptions, SegmentReader, WholeBatch};
use crate::log::segment::{RolledSegment, SegmentFile};

/// Which segments [`Partition::scan_batches`] reads.
#[derive(Debug, Clone, Copy)]
pub enum ScanScope<'a> {
    /// Every segment: the rolled ones oldest first, then the active one up
    /// to what is written when the scan starts.
    All,
    /// One rolled segment, whole.
    Rolled(&'a RolledSegment),
    /// The active segment, up to what is written when the scan starts.
    Active,
}

/// How [`Partition::scan_batches`] checks what it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScanCheck {
    /// Bytes this broker checked already — rolled segments it verified, the
    /// active segment (every batch was CRC-checked on append or at
    /// recovery): headers and lengths only, no CRC; corruption is an error.
    Checked,
    /// CRC-check every batch. At a corrupt batch the rest of that segment is skipped
    /// (never yielded) and reported, and the scan goes on with the next
    /// segment: for readers that must start even on a corrupt log, whose
    /// corruption the partition's own verification fences and reports.
    SkipCorrupt,
}

impl ScanCheck {
    /// The old name of [`ScanCheck::SkipCorrupt`].
    #[deprecated(note = "use `ScanCheck::SkipCorrupt`")]
    #[allow(non_upper_case_globals)]
    pub const SkipDamaged: ScanCheck = ScanCheck::SkipCorrupt;
}

impl Partition {
    /// Call `f` with every whole batch of the segments `scope` names, in
    /// log order, bytes included — read through the one segment reader,
    /// checked as `check` says. `scratch` is the read buffer (reuse it).
    /// The segments are those of the moment the scan starts; batches
    /// appended after it are not seen. An error `f` returns ends the scan.
    pub fn scan_batches(
        &self,
        scope: ScanScope<'_>,
        check: ScanCheck,
        scratch: &mut Vec<u8>,
        mut f: impl FnMut(&WholeBatch<'_>) -> Result<()>,
    ) -> Result<()> {
        // (file, end): each is read from its origin.
        let spans: Vec<(Arc<SegmentFile>, u64)> = match scope {
            ScanScope::All => {
                let inner = self.lock();
                inner
                    .rolled
                    .iter()
                    .map(|s| (s.file.clone(), s.size))
                    .chain(std::iter::once((
                        inner.active.file.clone(),
                        inner.active.size,
                    )))
                    .collect()
            }
            ScanScope::Rolled(seg) => vec![(seg.file.clone(), seg.size)],
            ScanScope::Active => {
                let inner = self.lock();
                vec![(inner.active.file.clone(), inner.active.size)]
            }
        };
        for (file, size) in spans {
            let mut opts = ScanOptions::verify(Continuity::Unchecked, HARD_MAX_BATCH);
            opts.verify_crc = check == ScanCheck::SkipCorrupt;
            let mut reader =
                SegmentReader::new(&file.file, &file.path, file.origin(), size, opts, scratch);
            loop {
                match reader.next_whole_batch() {
                    Ok(Some(b)) => f(&b)?,
                    Ok(None) => break,
                    Err(e) if check == ScanCheck::SkipCorrupt => {
                        tracing::error!(
                            topic = %self.topic, partition = self.id,
                            segment = %file.path.display(), error = %e,
                            "corrupt segment; the scan skips its rest"
                        );
                        break;
                    }
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(())
    }
}
