//! The machine's fdatasync latency, measured in the same run as the levels:
//! a durable ack cannot come sooner than one `fdatasync`, so its p50 is
//! the floor every ack (and, at `fsync = always`, every produce-to-consume)
//! latency sits on.

use std::io::Write as _;
use std::path::Path;
use std::time::Instant;

use anyhow::Context;

/// Bytes appended before each fdatasync (one page, like a small group commit).
pub const BLOCK: usize = 4096;

/// fdatasync latency, µs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Floor {
    /// Median.
    pub p50_us: f64,
    /// 99th percentile.
    pub p99_us: f64,
    /// Largest.
    pub max_us: f64,
}

/// A histogram of 1 ns to an hour: fixed bounds, because
/// `saturating_record` clamps to the bounds (it never grows an
/// auto-resizing histogram).
fn hist_ns() -> hdrhistogram::Histogram<u64> {
    hdrhistogram::Histogram::new_with_bounds(1, 3_600_000_000_000, 3)
        .expect("valid bounds and precision")
}

/// Append [`BLOCK`] bytes and `fdatasync` (`File::sync_data`), `syncs`
/// times, to a temp file created in `dir` (removed afterwards); each
/// write + fdatasync is one sample.
pub fn measure(dir: &Path, syncs: usize) -> anyhow::Result<Floor> {
    let mut file = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("cannot create a temp file in {}", dir.display()))?;
    let path = file.path().to_path_buf();
    let block = [0x5au8; BLOCK];
    let mut hist = hist_ns();
    for _ in 0..syncs.max(1) {
        let t = Instant::now();
        file.write_all(&block)
            .with_context(|| format!("cannot write {}", path.display()))?;
        file.as_file()
            .sync_data()
            .with_context(|| format!("cannot fdatasync {}", path.display()))?;
        hist.saturating_record(u64::try_from(t.elapsed().as_nanos()).unwrap_or(u64::MAX));
    }
    file.close()
        .with_context(|| format!("cannot remove {}", path.display()))?;
    let us = |ns: u64| ns as f64 / 1e3;
    Ok(Floor {
        p50_us: us(hist.value_at_quantile(0.50)),
        p99_us: us(hist.value_at_quantile(0.99)),
        max_us: us(hist.max()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_syncs_are_kept_as_measured() {
        let mut h = hist_ns();
        h.saturating_record(12_000_000); // 12 ms
        h.saturating_record(90_000_000_000); // 90 s
        assert!(h.value_at_quantile(0.5).abs_diff(12_000_000) < 12_000_000 / 500);
        assert!(h.max().abs_diff(90_000_000_000) < 90_000_000_000 / 500);
    }

    #[test]
    fn measures_real_syncs_and_leaves_no_file() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let f = measure(dir.path(), 20).expect("fdatasync works on a temp dir");
        assert!(
            f.p50_us > 0.0 && f.p50_us <= f.p99_us && f.p99_us <= f.max_us,
            "{f:?}"
        );
        let left = std::fs::read_dir(dir.path()).expect("readable").count();
        assert_eq!(left, 0, "the temp file is removed");
    }
}
