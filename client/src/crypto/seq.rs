//! Record sequence numbers: strictly increasing per (sender key, topic), across
//! restarts, without persistence.
//!
//! A run of a [`SeqGen`] starts at `unix_ms << 16` (the low 16 bits are a counter)
//! and then counts up by one per record. Dense numbers within a run are what make
//! the opener's 1024-record replay window and its gap reports meaningful; the
//! millisecond start makes the next run (after a restart) begin above every number
//! of the previous one, as long as that run averaged fewer than 65 536 records per
//! millisecond since it started. Callers that persist the last number can make the
//! guarantee unconditional with [`SeqGen::resume_after`].
//!
//! Two generators for the same (sender key, topic) in one process would issue the
//! same numbers, and receivers would drop one side's records as replays: keep one
//! [`Sealer`](super::Sealer) per identity, or give each its own topics.

use std::time::{SystemTime, UNIX_EPOCH};

/// Why no further sequence number can be issued.
#[derive(Debug, thiserror::Error, Clone, Copy, PartialEq, Eq)]
#[error("sequence numbers exhausted (the next would exceed u64::MAX)")]
pub struct SeqExhausted;

/// Issues strictly increasing sequence numbers for one (sender key, topic).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeqGen {
    /// The next number to issue; `None` once `u64::MAX` has been issued.
    next: Option<u64>,
}

fn now_floor() -> u64 {
    // A clock before 1970 gives 0; the run is then only ordered after `resume_after`.
    let ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    u64::try_from(ms).unwrap_or(u64::MAX >> 16) << 16
}

impl SeqGen {
    /// Starts a run at `unix_ms << 16`.
    pub fn new() -> Self {
        Self {
            next: Some(now_floor()),
        }
    }

    /// Starts a run above `last`, a number persisted from an earlier run (and
    /// never below `unix_ms << 16`).
    pub fn resume_after(last: u64) -> Self {
        Self {
            next: last.checked_add(1).map(|n| n.max(now_floor())),
        }
    }

    /// Starts a run at exactly `first` (for tests and for replaying fixtures).
    pub const fn starting_at(first: u64) -> Self {
        Self { next: Some(first) }
    }

    /// The next sequence number.
    ///
    /// # Errors
    /// [`SeqExhausted`] after `u64::MAX` has been issued (about 2^47 years away
    /// for a clock-started run).
    #[inline]
    pub fn next_seq(&mut self) -> Result<u64, SeqExhausted> {
        let seq = self.next.ok_or(SeqExhausted)?;
        self.next = seq.checked_add(1);
        Ok(seq)
    }

    /// The number the next call will return, if any (persist `peek - 1` to resume).
    pub const fn peek(&self) -> Option<u64> {
        self.next
    }
}

impl Default for SeqGen {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strictly_increasing_within_one_millisecond() {
        let mut g = SeqGen::new();
        let mut last = g.next_seq().expect("fresh");
        // Far more than 65 536 records: the counter carries into the ms bits.
        for _ in 0..200_000 {
            let s = g.next_seq().expect("fresh");
            assert_eq!(s, last + 1);
            last = s;
        }
    }

    #[test]
    fn a_restart_starts_above_the_previous_run() {
        let mut first = SeqGen::new();
        let mut last = 0;
        for _ in 0..1000 {
            last = first.next_seq().expect("fresh");
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
        let mut second = SeqGen::new();
        assert!(second.next_seq().expect("fresh") > last);
        // Resuming from a persisted value is above it even if the clock is behind.
        let mut resumed = SeqGen::resume_after(u64::MAX - 1);
        assert_eq!(resumed.next_seq(), Ok(u64::MAX));
        assert_eq!(resumed.next_seq(), Err(SeqExhausted));
        assert_eq!(SeqGen::resume_after(u64::MAX).next_seq(), Err(SeqExhausted));
    }
}
