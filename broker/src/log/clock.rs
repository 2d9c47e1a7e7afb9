//! The broker's clock: what append times, roll ages and retention are
//! measured with. Producer timestamps are never trusted for any of them.
//!
//! With the `failpoints` feature (this crate's own tests only) a test can
//! replace the clock on its thread with `failpoints::set_clock`, so that
//! retention and roll ages can be tested without waiting for real time.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Wall-clock time in nanoseconds since the Unix epoch: the one clock of
/// the workspace ([`hermit_protocol::record::now_ns`]), which a test can
/// fix on its thread.
pub fn now_ns() -> u64 {
    #[cfg(feature = "failpoints")]
    if let Some(ns) = failpoints::fixed() {
        return ns;
    }
    hermit_protocol::record::now_ns()
}

/// `ns` since the epoch as a `SystemTime` (for file times).
pub fn system_time(ns: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_nanos(ns)
}

/// A `SystemTime` as ns since the epoch; 0 before 1970, saturating far ahead.
pub fn ns_of(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// A fixed clock for tests, compiled only with the `failpoints` feature.
#[cfg(feature = "failpoints")]
pub mod failpoints {
    use std::cell::Cell;

    thread_local! {
        // Per thread: tests in one binary run in parallel. Appends, opens
        // and roll checks run on the caller's thread, so a test's own
        // thread is where its clock matters.
        static FIXED: Cell<Option<u64>> = const { Cell::new(None) };
    }

    /// While the guard lives, [`now_ns`](super::now_ns) on this thread returns `ns`.
    pub fn set_clock(ns: u64) -> ClockGuard {
        ClockGuard {
            previous: FIXED.replace(Some(ns)),
        }
    }

    /// Restores the previous clock when dropped.
    #[derive(Debug)]
    #[must_use = "the clock goes back to real time when the guard is dropped"]
    pub struct ClockGuard {
        previous: Option<u64>,
    }

    impl Drop for ClockGuard {
        fn drop(&mut self) {
            FIXED.set(self.previous);
        }
    }

    pub(super) fn fixed() -> Option<u64> {
        FIXED.get()
    }
}
