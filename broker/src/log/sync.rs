//! Group commit: one thread fsyncs every partition written since its last
//! round, so one fsync covers every batch written before it, across
//! connections and producers.
//!
//! Under `fsync = always` the thread runs a round as soon as anything is
//! dirty; while it fsyncs, new writes accumulate for the next round — the
//! busier the broker, the more each fsync covers. Under `interval:<ms>` it
//! runs a round per interval. After each round it bumps a generation counter
//! that durable-ack waiters watch.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tokio::sync::watch;

use super::partition::Partition;
use crate::config::FsyncPolicy;

#[derive(Default)]
struct State {
    dirty: Vec<Arc<Partition>>,
    shutdown: bool,
}

/// Partitions waiting for an fsync, and the thread that syncs them.
pub struct SyncQueue {
    state: Mutex<State>,
    wake: Condvar,
    generation: watch::Sender<u64>,
    /// Group-commit rounds run.
    rounds: AtomicU64,
    /// Partition fsyncs issued (a round syncs each dirty partition once).
    fsyncs: AtomicU64,
}

/// Group-commit counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SyncStats {
    /// Rounds run.
    pub rounds: u64,
    /// Partition fsyncs issued.
    pub fsyncs: u64,
}

impl std::fmt::Debug for SyncQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SyncQueue").finish_non_exhaustive()
    }
}

impl SyncQueue {
    /// A queue with no thread yet (see [`SyncQueue::start`]).
    pub fn new() -> Arc<SyncQueue> {
        Arc::new(SyncQueue {
            state: Mutex::new(State::default()),
            wake: Condvar::new(),
            generation: watch::channel(0).0,
            rounds: AtomicU64::new(0),
            fsyncs: AtomicU64::new(0),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Queue a partition that has unsynced writes.
    pub(crate) fn push(&self, p: Arc<Partition>) {
        self.lock().dirty.push(p);
        self.wake.notify_one();
    }

    /// Counters so far.
    pub fn stats(&self) -> SyncStats {
        SyncStats {
            rounds: self.rounds.load(Ordering::Relaxed),
            fsyncs: self.fsyncs.load(Ordering::Relaxed),
        }
    }

    /// Watch the sync generation: it changes after every round.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.generation.subscribe()
    }

    /// Start the sync thread for `policy` (none for `never`).
    pub fn start(self: &Arc<Self>, policy: FsyncPolicy) -> Option<JoinHandle<()>> {
        let interval = match policy {
            FsyncPolicy::Never => return None,
            FsyncPolicy::Always => None,
            FsyncPolicy::Interval(d) => Some(d),
        };
        let q = self.clone();
        let handle = std::thread::Builder::new()
            .name("hermit-sync".into())
            .spawn(move || q.run(interval))
            .expect("invariant: the OS can start one thread at startup");
        Some(handle)
    }

    fn run(&self, interval: Option<Duration>) {
        let mut next_round = Instant::now();
        loop {
            let batch = {
                let mut st = self.lock();
                loop {
                    if st.shutdown {
                        break;
                    }
                    match interval {
                        None if !st.dirty.is_empty() => break,
                        None => st = self.wake.wait(st).unwrap_or_else(|p| p.into_inner()),
                        Some(_) => {
                            let now = Instant::now();
                            if now >= next_round {
                                break;
                            }
                            st = self
                                .wake
                                .wait_timeout(st, next_round - now)
                                .unwrap_or_else(|p| p.into_inner())
                                .0;
                        }
                    }
                }
                std::mem::take(&mut st.dirty)
            };
            if let Some(d) = interval {
                next_round = Instant::now() + d;
            }
            let shutdown = self.lock().shutdown;
            self.rounds.fetch_add(1, Ordering::Relaxed);
            for p in &batch {
                p.dequeued();
                match p.sync() {
                    Ok(true) => {
                        self.fsyncs.fetch_add(1, Ordering::Relaxed);
                    }
                    Ok(false) => {}
                    Err(e) => {
                        tracing::error!(topic = p.topic(), partition = p.id(), error = %e, "group commit fsync failed");
                    }
                }
            }
            self.generation.send_modify(|g| *g += 1);
            if shutdown && self.lock().dirty.is_empty() {
                return;
            }
        }
    }

    /// Ask the thread to finish its last round and stop.
    pub fn shutdown(&self) {
        self.lock().shutdown = true;
        self.wake.notify_all();
    }
}
