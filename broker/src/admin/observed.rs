//! What the admin answers read: where the broker is in its life, its
//! server once it exists, and which topics `/metrics` shows per partition.

use std::collections::HashSet;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::log::Topic;
use crate::net::Server;

/// The busiest topics are chosen again when the last choice is this old.
pub const RECHOOSE: Duration = Duration::from_secs(10);

/// Where the broker is in its life, as `/readyz` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Phase {
    /// Opening and recovering the data directory, binding listeners.
    Starting = 0,
    /// Serving.
    Ready = 1,
    /// Shutting down: draining connections, then the final fsync.
    Stopping = 2,
}

/// The busiest topics, as last chosen.
#[derive(Default)]
struct Choice {
    /// When they were last chosen again from scratch.
    at: Option<Instant>,
    topics: Vec<Arc<Topic>>,
}

/// The broker as the admin listener sees it (shared by its connections
/// and the broker's start and shutdown).
pub(super) struct Observed {
    phase: AtomicU8,
    /// What `/metrics` reads, once the server exists.
    pub(super) server: OnceLock<Server>,
    pub(super) started: Instant,
    choice: Mutex<Choice>,
    top_topics: usize,
    pub(super) top_groups: usize,
    pub(super) top_principals: usize,
}

impl Observed {
    /// A broker starting now, showing so many topics, groups and
    /// principals in `/metrics`.
    pub(super) fn new(top_topics: usize, top_groups: usize, top_principals: usize) -> Observed {
        Observed {
            phase: AtomicU8::new(Phase::Starting as u8),
            server: OnceLock::new(),
            started: Instant::now(),
            choice: Mutex::new(Choice::default()),
            top_topics,
            top_groups,
            top_principals,
        }
    }

    /// Where the broker is in its life.
    pub(super) fn phase(&self) -> Phase {
        match self.phase.load(Ordering::Acquire) {
            0 => Phase::Starting,
            1 => Phase::Ready,
            _ => Phase::Stopping,
        }
    }

    /// Starting → Ready (never back from Stopping).
    pub(super) fn set_ready(&self) {
        let _ = self.phase.compare_exchange(
            Phase::Starting as u8,
            Phase::Ready as u8,
            Ordering::AcqRel,
            Ordering::Acquire,
        );
    }

    /// Stopping, from now on.
    pub(super) fn set_stopping(&self) {
        self.phase.store(Phase::Stopping as u8, Ordering::Release);
    }

    /// The busiest topics and how many topics with traffic were left out.
    ///
    /// Every [`RECHOOSE`] they are chosen again: the most bytes in and out
    /// since the last choice first (ties by all-time traffic, so the set
    /// stays steady when nothing moves). In between, the set keeps its
    /// members, and room left in it goes to the busiest others at once, so
    /// a new topic shows up on the next scrape while there is room.
    pub(super) fn busiest(&self, server: &Server) -> (Vec<Arc<Topic>>, u64) {
        let mut choice = self.choice.lock().unwrap_or_else(|p| p.into_inner());
        let again = choice.at.is_none_or(|t| t.elapsed() >= RECHOOSE);
        // Incarnations are unique among every topic ever created here.
        let keep: HashSet<u64> = if again {
            HashSet::new()
        } else {
            choice.topics.iter().map(|t| t.incarnation()).collect()
        };
        let (mut kept, mut others): (Vec<_>, Vec<_>) = (Vec::new(), Vec::new());
        for t in server.log().topics() {
            let stats = t.stats();
            let (mut recent, mut total) = (0u64, 0u64);
            for s in stats.iter() {
                let now = s.traffic();
                let before = if again {
                    s.ranked.swap(now, Ordering::Relaxed)
                } else {
                    s.ranked.load(Ordering::Relaxed)
                };
                recent = recent.saturating_add(now.saturating_sub(before));
                total = total.saturating_add(now);
            }
            if total == 0 {
                continue;
            }
            if keep.contains(&t.incarnation()) {
                kept.push(t);
            } else {
                others.push((recent, total, t));
            }
        }
        let with_traffic = kept.len() + others.len();
        let room = self.top_topics.saturating_sub(kept.len());
        others.sort_unstable_by_key(|o| std::cmp::Reverse((o.0, o.1)));
        kept.extend(others.into_iter().take(room).map(|(_, _, t)| t));
        kept.truncate(self.top_topics);
        let hidden = (with_traffic - kept.len()) as u64;
        choice.topics = kept;
        if again {
            choice.at = Some(Instant::now());
        }
        (choice.topics.clone(), hidden)
    }
}
