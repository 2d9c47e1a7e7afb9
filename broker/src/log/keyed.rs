//! Replaying a keyed internal topic — one record per batch, compacted, an
//! empty payload a tombstone — into whatever the caller keeps in memory.
//! The consumer-group offsets (`__consumer_offsets`) and the claim
//! positions (`__claims`) are rebuilt this way at every start.

use hermit_protocol::BatchView;

use super::error::Result;
use super::partition::Partition;
use super::partition::scan::{ScanCheck, ScanScope};

/// What the newest record of a key says, in log order.
#[derive(Debug)]
pub enum Keyed<K, V> {
    /// The key holds this value.
    Set(K, V),
    /// A tombstone: the key is forgotten.
    Removed(K),
}

/// Replay every batch of `log` (named `topic` in warnings), oldest first:
/// its key read by `key`, its one record by `value`, each handed to
/// `apply`. Unreadable keys and values are skipped with a warning;
/// corruption is skipped too, not fatal — the partition's own
/// verification fences and reports it. Returns how many values were set.
pub fn replay<K, V>(
    log: &Partition,
    topic: &str,
    key: impl Fn(&[u8]) -> Option<K>,
    value: impl Fn(&[u8]) -> Option<V>,
    mut apply: impl FnMut(Keyed<K, V>),
) -> Result<u64> {
    let mut scratch = Vec::new();
    let mut set = 0u64;
    log.scan_batches(ScanScope::All, ScanCheck::SkipCorrupt, &mut scratch, |b| {
        let Ok((view, _)) = BatchView::parse(b.bytes) else {
            return Ok(());
        };
        let offset = b.header.base_offset;
        let Some(k) = key(view.key()) else {
            tracing::warn!(offset, %topic, "skipping an unreadable key");
            return Ok(());
        };
        if view.payload().is_empty() {
            apply(Keyed::Removed(k));
            return Ok(());
        }
        match view.records().next().and_then(|r| r.ok()).and_then(&value) {
            Some(v) => {
                apply(Keyed::Set(k, v));
                set += 1;
            }
            None => tracing::warn!(offset, %topic, "skipping an unreadable value"),
        }
        Ok(())
    })?;
    Ok(set)
}

/// Forget every key of `shards` that `doomed` picks: a tombstone per key
/// (its bytes from `key_bytes`) appended to `log` while its shard is
/// locked, the key removed from memory, and one sync after them all — so
/// they are durable before this returns (a name deleted may be created
/// again next, and must not inherit what a lost tombstone left).
pub fn forget<K: Clone + Eq + std::hash::Hash, V>(
    log: &std::sync::Arc<Partition>,
    shards: &[std::sync::Mutex<std::collections::HashMap<K, V>>],
    doomed: impl Fn(&K) -> bool,
    key_bytes: impl Fn(&K) -> Vec<u8>,
) -> Result<()> {
    let mut wrote = false;
    for shard in shards {
        let mut map = shard.lock().unwrap_or_else(|p| p.into_inner());
        let keys: Vec<K> = map.keys().filter(|k| doomed(k)).cloned().collect();
        for key in keys {
            let batch = hermit_protocol::BatchBuilder::tombstone(
                &key_bytes(&key),
                super::partition::now_ns(),
            );
            log.append(&batch)?;
            map.remove(&key);
            wrote = true;
        }
    }
    if wrote {
        log.sync()?;
    }
    Ok(())
}
