//! Idle pullers, kept per partition between fetches: a reader going forward
//! finds the one that stands where it reads; idle ones are closed after
//! [`IDLE_LIMIT`].

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use tokio::time::Instant;

use super::names::PartKey;
use super::puller::Puller;
// Nothing panics under this lock (map inserts and removes only).
use crate::lock::lock;
use crate::transport::nats_offset::NatsOffset;

/// An idle puller is closed after this long.
pub(crate) const IDLE_LIMIT: Duration = Duration::from_secs(15);
/// How often idle pullers are looked for.
const SWEEP_EVERY: Duration = Duration::from_secs(5);

/// Idle pullers kept per partition (one per reader of it in this client,
/// typically one).
const MAX_IDLE_PER_PARTITION: usize = 4;

/// Idle pullers by partition.
pub(crate) struct Pool {
    idle: Mutex<HashMap<PartKey, Vec<Puller>>>,
}

impl Pool {
    pub(crate) fn new() -> Arc<Pool> {
        Arc::new(Pool {
            idle: Mutex::new(HashMap::new()),
        })
    }

    /// Close idle pullers in the background until the pool is gone.
    pub(crate) fn start_sweeper(pool: &Arc<Pool>) {
        let weak: Weak<Pool> = Arc::downgrade(pool);
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(SWEEP_EVERY).await;
                let Some(pool) = weak.upgrade() else { return };
                let now = Instant::now();
                let stale: Vec<Puller> = {
                    let mut idle = lock(&pool.idle);
                    let mut stale = Vec::new();
                    for v in idle.values_mut() {
                        let mut i = 0;
                        while i < v.len() {
                            if now.duration_since(v[i].idle_since) >= IDLE_LIMIT {
                                stale.push(v.swap_remove(i));
                            } else {
                                i += 1;
                            }
                        }
                    }
                    idle.retain(|_, v| !v.is_empty());
                    stale
                };
                drop(stale); // Outside the lock: each drop spawns a delete.
            }
        });
    }

    /// The idle puller that continues at `want`, if any.
    pub(crate) fn take(
        &self,
        topic: &Arc<str>,
        partition: u32,
        want: NatsOffset,
    ) -> Option<Puller> {
        let mut idle = lock(&self.idle);
        let v = idle.get_mut(&(topic.clone(), partition))?;
        let i = v.iter().position(|c| c.resumes_at(want))?;
        Some(v.swap_remove(i))
    }

    /// Keep a puller for the next fetch. At most [`MAX_IDLE_PER_PARTITION`]
    /// wait per partition: a reader that keeps asking for positions no
    /// puller continues at (retrying a corrupt batch, seeking around) must
    /// not pile up server-side consumers until the sweep.
    pub(crate) fn put(&self, topic: Arc<str>, partition: u32, mut puller: Puller) {
        puller.idle_since = Instant::now();
        let evicted = {
            let mut idle = lock(&self.idle);
            let v = idle.entry((topic, partition)).or_default();
            let evicted = (v.len() >= MAX_IDLE_PER_PARTITION).then(|| {
                let oldest = (0..v.len())
                    .min_by_key(|&i| v[i].idle_since)
                    .expect("invariant: the list is full, so not empty");
                v.swap_remove(oldest)
            });
            v.push(puller);
            evicted
        };
        drop(evicted); // Outside the lock: the drop spawns a delete.
    }

    /// Close every puller of a deleted topic.
    pub(crate) fn forget_topic(&self, topic: &str) {
        let gone: Vec<Vec<Puller>> = {
            let mut idle = lock(&self.idle);
            let keys: Vec<_> = idle
                .keys()
                .filter(|(t, _)| &**t == topic)
                .cloned()
                .collect();
            keys.into_iter().filter_map(|k| idle.remove(&k)).collect()
        };
        drop(gone);
    }
}
