//! The open-file budget: how many segment files the log's partitions hold
//! open, and what a partition whose files grew asks of the cache that
//! keeps them (see `cache`): to close idle partitions when the count is
//! over the limit (`open_files`).
//!
//! The partitions count their files here and know the cache only through
//! [`CloseIdle`], so the cache, which holds partitions, and the partitions,
//! which report to it, do not depend on each other.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Weak};

/// What closes idle partitions when the log holds too many files (the
/// cache of open partitions).
pub(crate) trait CloseIdle: Send + Sync {
    /// Close idle partitions until the files held fit the limit, unless
    /// the cache is busy (whoever holds it closes what is needed before
    /// letting go: every cache operation does).
    fn close_idle(&self);
}

/// A partition's share of the budget: the log's count of open segment
/// files, the limit, and the cache to ask when the count goes over it.
#[derive(Clone)]
pub(crate) struct FileBudget {
    count: Arc<AtomicUsize>,
    cache: Weak<dyn CloseIdle>,
    limit: usize,
}

impl FileBudget {
    /// Count into `count`; over `limit`, ask `cache` to close idle partitions.
    pub(crate) fn new(count: Arc<AtomicUsize>, cache: Weak<dyn CloseIdle>, limit: usize) -> Self {
        FileBudget {
            count,
            cache,
            limit,
        }
    }

    /// `n` more files are held; over the limit, idle partitions are closed.
    pub(crate) fn add(&self, n: usize) {
        let total = self.count.fetch_add(n, Ordering::AcqRel) + n;
        if n > 0 {
            // A roll added a file: close idle partitions now, not at the
            // next open, so the budget holds between opens too.
            self.over(total);
        }
    }

    /// `n` fewer files are held.
    pub(crate) fn remove(&self, n: usize) {
        self.count.fetch_sub(n, Ordering::AcqRel);
    }

    /// The log now holds `total` files: above the limit, close idle
    /// partitions. Skipped when the cache is busy (whoever holds it closes
    /// what is needed before letting go: every cache operation does).
    fn over(&self, total: usize) {
        if total <= self.limit {
            return;
        }
        if let Some(cache) = self.cache.upgrade() {
            cache.close_idle();
        }
    }
}
