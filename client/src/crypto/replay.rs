//! Replay and reorder protection for one (topic, sender) stream.
//!
//! The window remembers the highest sequence number accepted and which of the
//! 1024 numbers up to it were seen (a ring bitmap, as in RFC 6479). A number at or
//! below `highest - 1024` is too old to judge and is refused; a number seen before
//! is a replay. A jump past `highest + 1` is reported as a [`Gap`]: records the
//! sender issued that this reader has not (yet) seen — withheld, lost, or
//! addressed to someone else on the same topic.
//!
//! `ReplayWindow::check` never mutates; `ReplayWindow::accept` is called only
//! after a record authenticated, so forged records cannot move the window.

/// Width of the window in records.
pub const WINDOW: u64 = 1024;
/// 64-bit words of the window's bitmap.
pub(crate) const WORDS: usize = (WINDOW / 64) as usize;

/// Sequence numbers `first..=last` that the sender issued and this reader has not
/// seen when a later record arrived.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Gap {
    /// First missing sequence number.
    pub first: u64,
    /// Last missing sequence number.
    pub last: u64,
}

impl Gap {
    /// How many sequence numbers are missing.
    pub const fn len(&self) -> u64 {
        self.last - self.first + 1
    }

    /// Always false: a gap has at least one number (present for clippy's sake).
    pub const fn is_empty(&self) -> bool {
        false
    }

    /// Whether the record after the gap starts a new sender run (`seq` with its
    /// low 16 bits zero, see [`SeqGen`](super::SeqGen)): then the gap is most
    /// likely a sender restart rather than withheld records. Heuristic: a run
    /// also crosses such a number every 65 536 records.
    pub const fn looks_like_restart(&self) -> bool {
        (self.last.wrapping_add(1)) & 0xffff == 0
    }
}

/// What [`ReplayWindow::check`] concluded about a fresh number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fresh {
    /// Above everything seen; `gap` is set if it skipped numbers.
    Ahead { gap: Option<Gap> },
    /// Inside the window and not seen before: a late (reordered) record, which
    /// fills part of a gap reported earlier.
    Late,
}

/// Why a number is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stale {
    /// Seen before.
    Replayed { highest: u64 },
    /// At or below `highest - 1024`.
    TooOld { highest: u64 },
}

/// The replay state of one (topic, sender) stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ReplayWindow {
    highest: u64,
    /// Bit `s % 1024` is set iff `s` in `(highest - 1024, highest]` was seen.
    seen: [u64; WORDS],
}

impl ReplayWindow {
    /// A window whose first record is `seq` (nothing before it is known).
    pub(crate) fn starting_with(seq: u64) -> Self {
        let mut w = Self {
            highest: seq,
            seen: [0; WORDS],
        };
        w.set(seq);
        w
    }

    /// A window restored from a persisted high-water mark: everything at or below
    /// `highest` is treated as seen, since which of those were is not known.
    pub(crate) fn restored(highest: u64) -> Self {
        Self {
            highest,
            seen: [u64::MAX; WORDS],
        }
    }

    pub(crate) const fn highest(&self) -> u64 {
        self.highest
    }

    /// A window from its parts: the highest number and the ring bitmap
    /// (bit `s % 1024` set iff `s` in `(highest - 1024, highest]` was seen),
    /// as [`ReplayWindow::seen`] gives them.
    pub(crate) const fn from_parts(highest: u64, seen: [u64; WORDS]) -> Self {
        Self { highest, seen }
    }

    /// The ring bitmap (see [`ReplayWindow::from_parts`]).
    pub(crate) const fn seen(&self) -> &[u64; WORDS] {
        &self.seen
    }

    /// Records `seq` as seen, whatever it is: ahead moves the window, inside
    /// sets its bit, too old to be in the window is ignored.
    pub(crate) fn note(&mut self, seq: u64) {
        if seq > self.highest || self.highest - seq < WINDOW {
            self.accept(seq);
        }
    }

    fn bit(seq: u64) -> (usize, u64) {
        let i = (seq % WINDOW) as usize;
        (i / 64, 1u64 << (i % 64))
    }

    fn is_set(&self, seq: u64) -> bool {
        let (w, m) = Self::bit(seq);
        self.seen[w] & m != 0
    }

    fn set(&mut self, seq: u64) {
        let (w, m) = Self::bit(seq);
        self.seen[w] |= m;
    }

    fn clear(&mut self, seq: u64) {
        let (w, m) = Self::bit(seq);
        self.seen[w] &= !m;
    }

    #[inline]
    pub(crate) fn check(&self, seq: u64) -> Result<Fresh, Stale> {
        let highest = self.highest;
        if seq > highest {
            let gap = (seq > highest + 1).then(|| Gap {
                first: highest + 1,
                last: seq - 1,
            });
            return Ok(Fresh::Ahead { gap });
        }
        if highest - seq >= WINDOW {
            return Err(Stale::TooOld { highest });
        }
        if self.is_set(seq) {
            return Err(Stale::Replayed { highest });
        }
        Ok(Fresh::Late)
    }

    /// Records `seq` as seen; `seq` must have passed [`ReplayWindow::check`].
    #[inline]
    pub(crate) fn accept(&mut self, seq: u64) {
        if seq > self.highest {
            let step = seq - self.highest;
            if step >= WINDOW {
                self.seen = [0; WORDS];
            } else {
                // Numbers entering the window were not seen yet.
                for s in self.highest + 1..seq {
                    self.clear(s);
                }
            }
            self.highest = seq;
        }
        self.set(seq);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_old_and_late_records() {
        let mut w = ReplayWindow::starting_with(100);
        assert_eq!(w.check(100), Err(Stale::Replayed { highest: 100 }));
        assert_eq!(w.check(101), Ok(Fresh::Ahead { gap: None }));
        w.accept(101);
        assert_eq!(
            w.check(110),
            Ok(Fresh::Ahead {
                gap: Some(Gap {
                    first: 102,
                    last: 109
                })
            })
        );
        w.accept(110);
        assert_eq!(w.check(105), Ok(Fresh::Late));
        w.accept(105);
        assert_eq!(w.check(105), Err(Stale::Replayed { highest: 110 }));
        assert_eq!(w.check(99), Ok(Fresh::Late));
        w.accept(110 + 1023);
        assert_eq!(w.check(110), Err(Stale::Replayed { highest: 1133 }));
        assert_eq!(w.check(109), Err(Stale::TooOld { highest: 1133 }));
        assert_eq!(w.check(111), Ok(Fresh::Late));
    }

    #[test]
    fn a_big_jump_clears_the_window() {
        let mut w = ReplayWindow::starting_with(5);
        w.accept(5 + 5000);
        for s in 5000 - 1023 + 5..5005 {
            assert_eq!(w.check(s), Ok(Fresh::Late), "{s}");
        }
        assert_eq!(w.check(5005), Err(Stale::Replayed { highest: 5005 }));
    }

    #[test]
    fn bits_reused_by_the_ring_are_cleared() {
        let mut w = ReplayWindow::starting_with(0);
        for s in 1..3000 {
            assert_eq!(w.check(s), Ok(Fresh::Ahead { gap: None }));
            w.accept(s);
        }
        // 2999 - 1024 = 1975 is just outside; 1976 inside and seen.
        assert_eq!(w.check(1975), Err(Stale::TooOld { highest: 2999 }));
        assert_eq!(w.check(1976), Err(Stale::Replayed { highest: 2999 }));
        w.accept(3002);
        assert_eq!(w.check(3001), Ok(Fresh::Late));
        assert_eq!(w.check(3000), Ok(Fresh::Late));
    }

    #[test]
    fn noted_numbers_are_seen_and_others_in_the_window_stay_fresh() {
        let mut w = ReplayWindow::starting_with(2010);
        w.note(2020);
        w.note(2015);
        w.note(2020 - 1024); // too old to record: must not set 2020's bit
        let back = ReplayWindow::from_parts(w.highest(), *w.seen());
        assert_eq!(back, w);
        assert_eq!(back.check(2015), Err(Stale::Replayed { highest: 2020 }));
        assert_eq!(back.check(2010), Err(Stale::Replayed { highest: 2020 }));
        assert_eq!(back.check(2012), Ok(Fresh::Late), "not seen: a late record");
        assert_eq!(back.check(2021), Ok(Fresh::Ahead { gap: None }));
        assert_eq!(
            back.check(2020 - 1024),
            Err(Stale::TooOld { highest: 2020 })
        );
    }

    #[test]
    fn restored_window_refuses_everything_up_to_the_mark() {
        let w = ReplayWindow::restored(500);
        assert_eq!(w.check(500), Err(Stale::Replayed { highest: 500 }));
        assert_eq!(w.check(1), Err(Stale::Replayed { highest: 500 }));
        assert_eq!(w.check(501), Ok(Fresh::Ahead { gap: None }));
        assert!(
            Gap {
                first: 7,
                last: 0xffff
            }
            .looks_like_restart()
        );
        assert_eq!(Gap { first: 7, last: 9 }.len(), 3);
    }
}
