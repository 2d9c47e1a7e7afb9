//! A sealed consumer's commit bookkeeping: per partition, what was returned,
//! which records that failed to open hold the commit back ([`Held`]), and
//! the replay state saved with each commit ([`Persist`]) — with where it
//! came from at start ([`StateOrigin`]).

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use tokio::time::Instant;

use super::error::SealedError;
use super::record::{RecordErrorKind, Release, SealedRecordError};
use super::state::{ConsumerState, Standing, StateStore, consumer_key};
use crate::client::Client;
use crate::crypto::{Fingerprint, Identity, Opener};
use crate::local::RECORD_HASH_LEN;

/// Where a [`SealedConsumer`](super::SealedConsumer)'s replay windows came from at start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StateOrigin {
    /// No group, or `persist_state` off: windows start empty (a record
    /// replayed after a restart opens again).
    NotPersisted,
    /// Persisted, but nothing was saved yet for this group and topic (a new
    /// group, or a device that never read it): each sender's first record
    /// starts its window.
    Fresh,
    /// Restored: marks for this many senders, and a floor for the others.
    Restored {
        /// Senders with a mark.
        senders: usize,
        /// Records from other senders at or below this `seq` are refused.
        floor: u64,
    },
}

/// A held record: when it started holding, and its stored timestamp.
#[derive(Debug, Clone, Copy)]
pub(super) struct Held {
    pub(super) since: Instant,
    pub(super) timestamp_ns: u64,
}

/// Commit bookkeeping of one partition.
#[derive(Debug, Default)]
pub(super) struct Track {
    /// After the last record returned by `next()`.
    pub(super) returned: Option<u64>,
    /// Records that failed to open and were not acknowledged: the oldest is
    /// as far as any commit goes.
    pub(super) held: BTreeMap<u64, Held>,
    /// What the broker last acknowledged as committed (or what was read at start).
    pub(super) committed: Option<u64>,
    /// With `persist_state`: records opened after the oldest held one,
    /// (offset, sender, seq), noted in the state once a commit target
    /// passes them.
    pub(super) pending: VecDeque<(u64, Fingerprint, u64)>,
}

impl Track {
    /// Where a commit covering records up to `upto` may go: not past the
    /// oldest held record.
    pub(super) fn commit_target(&self, upto: Option<u64>) -> Option<u64> {
        let upto = upto?;
        Some(
            self.held
                .first_key_value()
                .map_or(upto, |(&h, _)| h.min(upto)),
        )
    }

    /// Note an opened record in `state` — at once if nothing is held (every
    /// commit from now on covers it), else once a commit passes it.
    pub(super) fn opened(
        &mut self,
        state: &mut ConsumerState,
        offset: u64,
        sender: Fingerprint,
        seq: u64,
    ) {
        if self.held.is_empty() {
            state.note(sender, seq);
        } else {
            self.pending.push_back((offset, sender, seq));
        }
    }

    /// Note the pending records below `target` (a commit is about to cover them).
    pub(super) fn fold_below(&mut self, state: &mut ConsumerState, target: u64) {
        while let Some(&(offset, sender, seq)) = self.pending.front() {
            if offset >= target {
                break;
            }
            self.pending.pop_front();
            state.note(sender, seq);
        }
    }
}

/// What a consumer with `persist_state` keeps for saving.
pub(super) struct Persist {
    pub(super) store: StateStore,
    pub(super) logical: Vec<u8>,
    /// The state as of the next commit: the one restored or last saved,
    /// plus the records opened since at offsets every commit now covers.
    pub(super) state: ConsumerState,
    /// How the restored state stood against the anchor, and the hash of
    /// its record (`None`: nothing was restored).
    pub(super) restored: Option<(Standing, [u8; RECORD_HASH_LEN])>,
}

impl Persist {
    /// The state saved for `group` on `topic` in `identity`'s state topic,
    /// restored into `opener` (its windows and floor), and where it came from.
    pub(super) async fn restore(
        client: &Client,
        identity: &Identity,
        group: &str,
        topic: &str,
        opener: &mut Opener,
    ) -> Result<(Persist, StateOrigin), SealedError> {
        let store = StateStore::open(client, identity).await?;
        let logical = consumer_key(group, topic);
        let loaded = store.load(&logical).await?;
        let saved = match &loaded {
            None => None,
            Some(l) => Some(ConsumerState::decode(&l.plaintext).ok_or_else(|| {
                SealedError::State {
                    topic: super::state::state_topic(identity),
                    reason: "the latest state record is not a consumer state this \
                             version reads"
                        .into(),
                    status: None,
                }
            })?),
        };
        // Before anything of it reaches the opener: an older state than
        // this device anchored is refused here.
        let found = saved
            .as_ref()
            .zip(loaded.as_ref())
            .map(|(st, l)| (st.generation, l.record));
        let standing = store.check(&logical, found)?;
        let restored = found.map(|(_, record)| (standing, record));
        let origin = match &saved {
            None => StateOrigin::Fresh,
            Some(st) => StateOrigin::Restored {
                senders: st.senders.len(),
                floor: st.floor,
            },
        };
        if let Some(st) = &saved {
            for (fp, w) in &st.senders {
                opener
                    .restore_window(topic, fp, w.clone())
                    .map_err(SealedError::Open)?;
            }
            opener.restore_floor(topic, st.floor);
        }
        let persist = Persist {
            store,
            logical,
            state: saved.unwrap_or_default(),
            restored,
        };
        Ok((persist, origin))
    }

    /// At start, with a restored state: hold the broker to the anchor, or move
    /// the anchor up to a newer state (finishing the commit it was saved for).
    pub(super) async fn settle_anchor(
        &self,
        client: &Client,
        group: &str,
        topic: &str,
        tracks: &mut BTreeMap<u32, Track>,
        from_commit: bool,
    ) -> Result<(), SealedError> {
        let Some((standing, record)) = self.restored else {
            return Ok(());
        };
        match standing {
            Standing::Unanchored => {}
            // This device anchored this state after the broker acknowledged
            // its commits: a commit below its offsets is the broker's doing.
            Standing::AtAnchor if from_commit => {
                for (&partition, &state) in &self.state.committed {
                    let Some(t) = tracks.get(&partition) else {
                        continue;
                    };
                    if t.committed.is_none_or(|c| c < state) {
                        return Err(SealedError::CommitRolledBack {
                            topic: topic.to_owned(),
                            group: group.to_owned(),
                            partition,
                            committed: t.committed,
                            state,
                            file: self.store.anchor_file().unwrap_or_default(),
                            line: self.store.anchor_line(&self.logical),
                        });
                    }
                }
            }
            Standing::AtAnchor => {}
            Standing::Ahead => {
                // Finish the commit the state was saved for, so that the anchor
                // about to be written holds (the broker acknowledged both).
                for (&partition, &offset) in &self.state.committed {
                    let committed = client.committed(group, topic, partition).await?;
                    if committed.is_none_or(|c| c < offset) {
                        client.commit(group, topic, partition, offset).await?;
                        if let Some(t) = tracks.get_mut(&partition) {
                            t.committed = Some(offset);
                        }
                    }
                }
                self.store
                    .anchor(&self.logical, self.state.generation, record)?;
            }
        }
        Ok(())
    }
}

/// The notice for a held record that was released.
pub(super) fn released_notice(
    topic: &Arc<str>,
    partition: u32,
    offset: u64,
    h: Held,
    why: Release,
) -> SealedRecordError {
    tracing::warn!(topic = %topic, partition, offset, reason = %why, "a record that failed to open no longer holds the commit back");
    SealedRecordError {
        topic: topic.clone(),
        partition,
        offset,
        timestamp_ns: h.timestamp_ns,
        kind: RecordErrorKind::Released { why },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_records_cap_the_commit() {
        let mut t = Track::default();
        assert_eq!(t.commit_target(None), None);
        assert_eq!(t.commit_target(Some(10)), Some(10));
        let h = Held {
            since: Instant::now(),
            timestamp_ns: 0,
        };
        t.held.insert(4, h);
        t.held.insert(7, h);
        assert_eq!(t.commit_target(Some(10)), Some(4));
        assert_eq!(t.commit_target(Some(3)), Some(3));
        t.held.remove(&4);
        assert_eq!(t.commit_target(Some(10)), Some(7));
    }
}
