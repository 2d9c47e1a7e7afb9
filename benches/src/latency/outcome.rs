//! What one run of `hermit bench latency` found.

use super::floor::Floor;
use crate::report::Run;

/// One run: the floor before and after, a row per level, the knee.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// fdatasync latency before the levels.
    pub floor_before: Floor,
    /// fdatasync latency after the levels.
    pub floor_after: Floor,
    /// One row per level, lowest offered rate first.
    pub levels: Vec<Run>,
    /// The highest offered rate that held (msgs/s); see [`knee`](super::knee).
    pub knee: Option<f64>,
}
