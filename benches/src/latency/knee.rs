//! When a level counts as keeping up, when the ladder stops, and the knee.
//!
//! - A level **holds** when the achieved send rate and the achieved consume
//!   rate are both at least [`KNEE_RATE`] (95 %) of the offered rate, no
//!   message was left unsent, and both p99 latencies (ack,
//!   produce-to-consume) are at most [`KNEE_P99_FACTOR`] (10) times the
//!   *p50* of the same latency at the lowest offered rate: the run's own
//!   unloaded latency, so the bound follows the disk, the linger and
//!   `--fsync`; its p50 and not its p99, which one stall of a noisy
//!   machine would make a bound that holds anything.
//! - The **knee** is the highest offered rate whose level holds.
//! - A level is **saturated** when either achieved rate falls below
//!   [`SATURATED_RATE`] (90 %) of the offered one, when messages were
//!   still unsent when the drain time ran out, or when the ack p99 grows
//!   past [`EXPLODED_P99_FACTOR`] (100) times the lowest level's ack p50;
//!   the ladder stops after the first saturated level.

/// Fraction of the offered rate a level must achieve (sent and consumed) to hold.
pub const KNEE_RATE: f64 = 0.95;
/// p99 bound of a holding level, as a multiple of the lowest level's p50.
pub const KNEE_P99_FACTOR: f64 = 10.0;
/// Below this fraction of the offered rate (sent or consumed) a level is saturated.
pub const SATURATED_RATE: f64 = 0.90;
/// Past this multiple of the lowest level's ack p50 a level's ack p99 has exploded.
pub const EXPLODED_P99_FACTOR: f64 = 100.0;

/// What the verdicts look at in one level.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// Offered rate, msgs/s.
    pub offered: f64,
    /// Achieved send rate, msgs/s.
    pub sent: f64,
    /// Achieved consume rate, msgs/s.
    pub consumed: f64,
    /// Ack latency p50 (any unit, the same for every latency of every level).
    pub ack_p50: f64,
    /// Ack latency p99.
    pub ack_p99: f64,
    /// Produce-to-consume latency p50.
    pub e2e_p50: f64,
    /// Produce-to-consume latency p99.
    pub e2e_p99: f64,
    /// Messages never sent (the drain time ran out).
    pub unsent: u64,
}

/// The level with the lowest offered rate: the reference for the bounds.
fn reference(levels: &[Point]) -> Option<&Point> {
    levels.iter().min_by(|a, b| a.offered.total_cmp(&b.offered))
}

fn within(v: f64, reference: f64, factor: f64) -> bool {
    v.is_finite() && reference.is_finite() && v <= reference * factor
}

/// Whether `p` holds against the lowest level `reference`.
pub fn holds(p: &Point, reference: &Point) -> bool {
    p.unsent == 0
        && p.sent >= KNEE_RATE * p.offered
        && p.consumed >= KNEE_RATE * p.offered
        && within(p.ack_p99, reference.ack_p50, KNEE_P99_FACTOR)
        && within(p.e2e_p99, reference.e2e_p50, KNEE_P99_FACTOR)
}

/// The knee: the highest offered rate whose level holds; `None` if none does.
pub fn knee(levels: &[Point]) -> Option<f64> {
    let r = reference(levels)?;
    levels
        .iter()
        .filter(|p| holds(p, r))
        .map(|p| p.offered)
        .max_by(f64::total_cmp)
}

/// Whether `p` is saturated, given the levels measured before it (the
/// lowest of them, or `p` itself if it is the first, is the reference).
pub fn saturated(p: &Point, before: &[Point]) -> bool {
    let r = reference(before)
        .filter(|r| r.offered < p.offered)
        .unwrap_or(p);
    p.unsent > 0
        || p.sent < SATURATED_RATE * p.offered
        || p.consumed < SATURATED_RATE * p.offered
        || !within(p.ack_p99, r.ack_p50, EXPLODED_P99_FACTOR)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A level whose p50s are half its p99s.
    fn level(offered: f64, achieved: f64, ack_p99: f64, e2e_p99: f64) -> Point {
        Point {
            offered,
            sent: achieved,
            consumed: achieved,
            ack_p50: ack_p99 / 2.0,
            ack_p99,
            e2e_p50: e2e_p99 / 2.0,
            e2e_p99,
            unsent: 0,
        }
    }

    #[test]
    fn the_knee_is_the_highest_rate_that_keeps_up_within_the_bound() {
        let levels = [
            level(1e3, 1e3, 2.0, 3.0),
            level(1e4, 1e4, 2.5, 3.5),
            level(1e5, 0.96e5, 9.9, 14.9), // 96 %, p99s under 10 × the p50s (1, 1.5): holds
            level(2e5, 0.94e5 * 2.0, 5.0, 5.0), // 94 % of offered: does not
        ];
        assert_eq!(knee(&levels), Some(1e5));
    }

    #[test]
    fn a_level_past_the_p99_bound_is_not_the_knee() {
        // The bound is 10 × the lowest level's p50 (1 and 1.5 here), not its p99.
        let ack_too_slow = [level(1e3, 1e3, 2.0, 3.0), level(1e4, 1e4, 10.1, 3.0)];
        assert_eq!(knee(&ack_too_slow), Some(1e3));
        let e2e_too_slow = [level(1e3, 1e3, 2.0, 3.0), level(1e4, 1e4, 2.0, 15.1)];
        assert_eq!(knee(&e2e_too_slow), Some(1e3));
        let mut consumer_behind = level(1e4, 1e4, 2.0, 3.0);
        consumer_behind.consumed = 0.9e4;
        assert_eq!(
            knee(&[level(1e3, 1e3, 2.0, 3.0), consumer_behind]),
            Some(1e3)
        );
        let mut unsent = level(1e4, 1e4, 2.0, 3.0);
        unsent.unsent = 1;
        assert_eq!(knee(&[level(1e3, 1e3, 2.0, 3.0), unsent]), Some(1e3));
        assert_eq!(knee(&[]), None);
        // No p99 (nothing measured) never holds.
        assert_eq!(knee(&[level(1e3, 1e3, f64::NAN, 3.0)]), None);
    }

    #[test]
    fn saturation_is_a_rate_short_by_a_tenth_a_backlog_or_an_exploded_ack_p99() {
        let first = [level(1e3, 1e3, 2.0, 3.0)];
        // Ack p99 up to 100 × the lowest level's ack p50 (1): not exploded.
        assert!(!saturated(&level(1e5, 0.91e5, 100.0, 900.0), &first));
        assert!(saturated(&level(1e5, 0.89e5, 2.0, 3.0), &first));
        let mut consumer_behind = level(1e5, 1e5, 2.0, 3.0);
        consumer_behind.consumed = 0.89e5;
        assert!(saturated(&consumer_behind, &first));
        assert!(saturated(&level(1e5, 1e5, 100.1, 3.0), &first));
        let mut unsent = level(1e5, 1e5, 2.0, 3.0);
        unsent.unsent = 10;
        assert!(saturated(&unsent, &first));
        // The first level is its own reference: only its rates can saturate it.
        assert!(!saturated(&level(1e3, 1e3, 50.0, 3.0), &[]));
        // A stall in the lowest level's p99 does not loosen the bound.
        let mut stalled = level(1e3, 1e3, 2.0, 3.0);
        (stalled.ack_p99, stalled.e2e_p99) = (500.0, 500.0);
        assert_eq!(knee(&[stalled, level(1e4, 1e4, 40.0, 40.0)]), None);
        assert!(saturated(&level(1e3, 0.5e3, 2.0, 3.0), &[]));
    }
}
