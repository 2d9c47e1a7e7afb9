//! What sealed consumers and producers remember across restarts, kept on the
//! broker in the identity's own compacted topic `state.<fingerprint>`, each
//! record sealed to the identity itself ([`seal_state`]) under a blinded key.
//!
//! - A [`SealedConsumer`](super::SealedConsumer) with a group saves its
//!   `ConsumerState` — per partition the offset it is about to commit, per
//!   sender the highest `seq` opened below it, and a floor — *before* every
//!   commit, and restores it at start. The state record is the commit as far
//!   as replay protection goes: if a crash falls between the two, the next
//!   run starts at the state's offsets (the records in between were handled
//!   and are known to the windows).
//! - A [`SealedProducer`](super::SealedProducer) saves its DIRECT
//!   reservations (`ReservationState`): per peer a count of DIRECT records it
//!   may have sealed, reserved ahead of use, so a crash never lets the count
//!   go back.
//! - Every state record carries a **generation**, one more than the last
//!   one this client saved. With a client state directory
//!   ([`ClientOptions::state_dir`](crate::ClientOptions::state_dir)), the
//!   newest generation (and a hash of its record) is anchored in its
//!   `state-anchors` file once the broker has acknowledged the record as
//!   durable (a consumer: and its commit); at start a state below the
//!   anchor is refused ([`SealedError::StateRolledBack`]), and so is a
//!   consumer group's commit below the anchored state's offsets
//!   ([`SealedError::CommitRolledBack`]). A state above the anchor is a
//!   crash between the two writes: accepted, and the anchor moves up.
//!
//! Why a topic and not metadata on `Commit` (the other choice the design
//! allowed): it needs no protocol or broker change, works the same over the
//! NATS transport, keeps nothing per group in the broker's memory, and the
//! broker learns no more than it does from commits (when, how big in Padmé
//! buckets, under which blinded key). The price is one ACL rule per
//! deployment with authentication (`state.{principal}`: produce, consume,
//! create, describe — docs/SECURITY.md) and one durable write per commit.

use std::collections::BTreeMap;
use std::sync::Arc;

use bytes::Bytes;
use hermit_protocol::codec::Reader;
use hermit_protocol::frame::TopicSettings;
use hermit_protocol::record::BatchBuilder;
use hermit_protocol::{Ack, Cleanup, Status};
use sha2::{Digest as _, Sha256};
use zeroize::Zeroizing;

use crate::client::Client;
use crate::crypto::identity::FINGERPRINT_LEN;
use crate::crypto::replay::{ReplayWindow, WORDS};
use crate::crypto::{BlindingKey, Fingerprint, Identity, PublicKey, open_state, seal_state};
use crate::error::ClientError;
use crate::local::{Anchor, RECORD_HASH_LEN, StateAnchors};

use super::error::SealedError;

/// Senders a consumer state remembers one by one; past that, the lowest
/// marks are folded into the floor.
pub const MAX_STATE_SENDERS: usize = 4096;
/// Peers a producer's reservation state remembers.
pub const MAX_RESERVATION_PEERS: usize = 4096;
/// The former name of [`MAX_RESERVATION_PEERS`].
#[deprecated(note = "renamed MAX_RESERVATION_PEERS")]
pub const MAX_BUDGET_PEERS: usize = MAX_RESERVATION_PEERS;
/// Largest partition count a consumer state holds.
const MAX_STATE_PARTITIONS: usize = hermit_protocol::frame::MAX_PARTITIONS as usize;
/// The consumer state's format: 2 carries a generation; 1 (no generation,
/// read as generation 0) is still read.
const CONSUMER_VERSION: u8 = 2;
/// The reservation state's format, versioned as the consumer state's.
const RESERVATION_VERSION: u8 = 2;
/// The format before generations.
const VERSION_WITHOUT_GENERATION: u8 = 1;
/// P-256 SPKI in DER, as stored for each peer with a reservation.
const SPKI_LEN: usize = hermit_protocol::auth::P256_SPKI_LEN;

/// The state topic of `identity`.
pub fn state_topic(identity: &Identity) -> String {
    format!("state.{}", identity.fingerprint().to_hex())
}

/// The logical key of a consumer's state: its group and topic.
pub(crate) fn consumer_key(group: &str, topic: &str) -> Vec<u8> {
    let mut k = b"consumer/v1\0".to_vec();
    k.extend_from_slice(group.as_bytes());
    k.push(0);
    k.extend_from_slice(topic.as_bytes());
    k
}

/// The logical key of a producer's DIRECT reservations (its bytes are the
/// format's, older than the word).
pub(crate) const RESERVATION_KEY: &[u8] = b"producer-budgets/v1";

/// A consumer's replay state as of one commit.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ConsumerState {
    /// One more than the state saved before it (0: never saved, or saved
    /// in the format without generations).
    pub(crate) generation: u64,
    /// Per partition, the next offset to read.
    pub(crate) committed: BTreeMap<u32, u64>,
    /// A sender without a window is refused at or below this `seq`.
    pub(crate) floor: u64,
    /// Per sender, the replay window of the records opened below the
    /// committed offsets: the highest `seq` and which of the 1024 up to it
    /// were seen — exactly those, so a record of another partition not yet
    /// committed (a lower `seq`, not seen) is still accepted after a restart.
    pub(crate) senders: BTreeMap<Fingerprint, ReplayWindow>,
}

/// Bytes of one sender in a consumer state: fingerprint, highest, bitmap.
const SENDER_LEN: usize = FINGERPRINT_LEN + 8 + WORDS * 8;

impl ConsumerState {
    /// Record that `sender`'s `seq` was opened below the next commit.
    pub(crate) fn note(&mut self, sender: Fingerprint, seq: u64) {
        self.senders
            .entry(sender)
            .and_modify(|w| w.note(seq))
            .or_insert_with(|| ReplayWindow::starting_with(seq));
        if self.senders.len() > MAX_STATE_SENDERS {
            self.bound();
        }
    }

    /// Keep at most [`MAX_STATE_SENDERS`] windows: the lowest go into the
    /// floor (sequence numbers start at the sender's clock, so the lowest
    /// marks are the senders heard from longest ago).
    pub(crate) fn bound(&mut self) {
        while self.senders.len() > MAX_STATE_SENDERS {
            let (&fp, low) = self
                .senders
                .iter()
                .min_by_key(|(_, w)| w.highest())
                .map(|(fp, w)| (fp, w.highest()))
                .expect("more than MAX_STATE_SENDERS windows");
            self.senders.remove(&fp);
            self.floor = self.floor.max(low);
        }
    }

    /// `u8 2 | u64 generation | u32 n | n × (u32 partition, u64 offset) |
    /// u64 floor | u32 m | m × (32 fingerprint, u64 highest, 16 × u64 bitmap)`.
    pub(crate) fn encode(&self) -> Zeroizing<Vec<u8>> {
        let mut out = Zeroizing::new(Vec::with_capacity(
            25 + self.committed.len() * 12 + self.senders.len() * SENDER_LEN,
        ));
        out.push(CONSUMER_VERSION);
        out.extend_from_slice(&self.generation.to_be_bytes());
        out.extend_from_slice(&(self.committed.len() as u32).to_be_bytes());
        for (p, o) in &self.committed {
            out.extend_from_slice(&p.to_be_bytes());
            out.extend_from_slice(&o.to_be_bytes());
        }
        out.extend_from_slice(&self.floor.to_be_bytes());
        out.extend_from_slice(&(self.senders.len() as u32).to_be_bytes());
        for (fp, w) in &self.senders {
            out.extend_from_slice(fp.as_bytes());
            out.extend_from_slice(&w.highest().to_be_bytes());
            for word in w.seen() {
                out.extend_from_slice(&word.to_be_bytes());
            }
        }
        out
    }

    /// The inverse of [`encode`](ConsumerState::encode), and of version 1
    /// (no generation: read as 0); counts are checked against the bytes
    /// present before anything is allocated.
    pub(crate) fn decode(bytes: &[u8]) -> Option<ConsumerState> {
        let mut r = Reader::new(bytes);
        let generation = match r.u8().ok()? {
            CONSUMER_VERSION => r.u64().ok()?,
            VERSION_WITHOUT_GENERATION => 0,
            _ => return None,
        };
        let n = r.u32().ok()? as usize;
        if n > MAX_STATE_PARTITIONS || r.remaining() < n * 12 {
            return None;
        }
        let mut committed = BTreeMap::new();
        for _ in 0..n {
            committed.insert(r.u32().ok()?, r.u64().ok()?);
        }
        let floor = r.u64().ok()?;
        let m = r.u32().ok()? as usize;
        if m > MAX_STATE_SENDERS || r.remaining() != m * SENDER_LEN {
            return None;
        }
        let mut senders = BTreeMap::new();
        for _ in 0..m {
            let fp: [u8; FINGERPRINT_LEN] = r.array().ok()?;
            let highest = r.u64().ok()?;
            let mut seen = [0u64; WORDS];
            for w in &mut seen {
                *w = r.u64().ok()?;
            }
            senders.insert(
                Fingerprint::from_bytes(fp),
                ReplayWindow::from_parts(highest, seen),
            );
        }
        Some(ConsumerState {
            generation,
            committed,
            floor,
            senders,
        })
    }
}

/// A producer's DIRECT reservations: per peer, the count reserved so far.
#[derive(Debug, Clone, Default)]
pub(crate) struct ReservationState {
    /// As [`ConsumerState::generation`].
    pub(crate) generation: u64,
    pub(crate) peers: BTreeMap<Fingerprint, (PublicKey, u64)>,
}

impl ReservationState {
    /// `u8 2 | u64 generation | u32 n | n × (91-byte SPKI, u64 reserved)`.
    pub(crate) fn encode(&self) -> Zeroizing<Vec<u8>> {
        let mut out = Zeroizing::new(Vec::with_capacity(13 + self.peers.len() * (SPKI_LEN + 8)));
        out.push(RESERVATION_VERSION);
        out.extend_from_slice(&self.generation.to_be_bytes());
        out.extend_from_slice(&(self.peers.len() as u32).to_be_bytes());
        for (key, reserved) in self.peers.values() {
            out.extend_from_slice(key.spki_der());
            out.extend_from_slice(&reserved.to_be_bytes());
        }
        out
    }

    /// The inverse of [`encode`](ReservationState::encode), and of version
    /// 1 (no generation: read as 0).
    pub(crate) fn decode(bytes: &[u8]) -> Option<ReservationState> {
        let mut r = Reader::new(bytes);
        let generation = match r.u8().ok()? {
            RESERVATION_VERSION => r.u64().ok()?,
            VERSION_WITHOUT_GENERATION => 0,
            _ => return None,
        };
        let n = r.u32().ok()? as usize;
        if n > MAX_RESERVATION_PEERS || r.remaining() != n * (SPKI_LEN + 8) {
            return None;
        }
        let mut peers = BTreeMap::new();
        for _ in 0..n {
            let key = PublicKey::from_spki_der(r.bytes(SPKI_LEN).ok()?).ok()?;
            let reserved = r.u64().ok()?;
            peers.insert(*key.fingerprint(), (key, reserved));
        }
        Some(ReservationState { generation, peers })
    }
}

/// How long the state topic's operations are retried while the broker (or
/// a NATS cluster electing a leader) answers with a retriable error.
const RETRY_FOR: std::time::Duration = std::time::Duration::from_secs(30);

/// Run `op` until it succeeds, fails for good, or [`RETRY_FOR`] has passed
/// with retriable errors only (backing off from 50 ms to 1 s). Each
/// operation is idempotent here: a create that went through answers
/// `TopicExists` the second time, a save written twice is the same state.
async fn retrying<T, F, Fut>(mut op: F) -> Result<T, ClientError>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, ClientError>>,
{
    let deadline = tokio::time::Instant::now() + RETRY_FOR;
    let mut backoff = std::time::Duration::from_millis(50);
    loop {
        match op().await {
            Err(e) if e.is_retriable() && tokio::time::Instant::now() + backoff < deadline => {
                tracing::debug!(error = %e, retry_in = ?backoff, "state topic: retrying");
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(std::time::Duration::from_secs(1));
            }
            other => return other,
        }
    }
}

/// The state topic of one identity, as a client reads and writes it.
pub(crate) struct StateStore {
    client: Client,
    identity: Identity,
    topic: String,
    own: BlindingKey,
    /// The anchors of the client's state directory; `None` without one
    /// (nothing is anchored or checked: the state is taken as served).
    anchors: Option<Arc<StateAnchors>>,
}

/// A state record as loaded: its plaintext, and the hash of the record.
pub(crate) struct Loaded {
    pub(crate) plaintext: Zeroizing<Vec<u8>>,
    /// SHA-256 of the sealed record as stored.
    pub(crate) record: [u8; RECORD_HASH_LEN],
}

/// How a loaded state stands against the anchor ([`StateStore::check`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Standing {
    /// No state directory: nothing to compare with (behaves as before
    /// anchors existed).
    Unanchored,
    /// Newer than the anchor, or nothing anchored for this key yet (a new
    /// device, an empty directory): a crash fell between the state's
    /// durable write and the anchor's, or this device never wrote it. The
    /// caller accepts it and moves the anchor up.
    Ahead,
    /// Exactly the anchored record.
    AtAnchor,
}

fn state_error(topic: &str, what: &str, e: ClientError) -> SealedError {
    let hint = if e.status() == Some(Status::Unauthorized) {
        "; the ACL must let this principal create, produce to, consume and describe its \
         state topic (a rule `topics = \"state.{principal}\"`, docs/SECURITY.md), or turn \
         persistence off (replays then open again after a restart)"
            .to_owned()
    } else {
        String::new()
    };
    SealedError::State {
        topic: topic.to_owned(),
        reason: format!("{what}: {e}{hint}"),
        status: e.status(),
    }
}

impl StateStore {
    /// The state topic of `identity`, created (compacted, one partition) if
    /// missing. A topic of that name that is not compacted is refused: its
    /// state would expire with retention.
    pub(crate) async fn open(client: &Client, identity: &Identity) -> Result<Self, SealedError> {
        let topic = state_topic(identity);
        let settings = TopicSettings {
            partitions: 1,
            cleanup: Cleanup::Compact,
            retention_ms: 0,
            retention_bytes: 0,
        };
        match retrying(|| client.create_topic(&topic, settings)).await {
            Ok(()) => {}
            Err(e) if e.status() == Some(Status::TopicExists) => {
                let meta = retrying(|| client.metadata(Some(&topic)))
                    .await
                    .map_err(|e| state_error(&topic, "cannot describe the state topic", e))?;
                if meta.first().is_some_and(|m| m.cleanup != Cleanup::Compact) {
                    return Err(SealedError::State {
                        topic: topic.clone(),
                        reason: "the topic exists but is not compacted (cleanup = delete would expire the state); delete it or recreate it with cleanup = compact".into(),
                        status: None,
                    });
                }
            }
            Err(e) => return Err(state_error(&topic, "cannot create the state topic", e)),
        }
        let anchors = client
            .options()
            .state_dir
            .as_ref()
            .map(|d| d.state_anchors());
        Ok(StateStore {
            client: client.clone(),
            identity: identity.clone(),
            own: BlindingKey::pairwise(identity, identity.public_key()),
            topic,
            anchors,
        })
    }

    /// How the state found under `logical` — `Some((generation, record
    /// hash))`, or `None` when the broker served none — stands against the
    /// anchor.
    ///
    /// # Errors
    /// [`SealedError::StateRolledBack`]: below the anchored generation,
    /// another record at it, or none while one is anchored.
    pub(crate) fn check(
        &self,
        logical: &[u8],
        found: Option<(u64, [u8; RECORD_HASH_LEN])>,
    ) -> Result<Standing, SealedError> {
        let Some(anchors) = &self.anchors else {
            return Ok(Standing::Unanchored);
        };
        let anchored = anchors
            .get(self.client.addr(), &self.own.blind(logical).0)
            .map_err(|e| SealedError::Anchor {
                file: anchors.path(),
                reason: e.to_string(),
            })?;
        let Some(anchor) = anchored else {
            return Ok(Standing::Ahead);
        };
        let refuse = |found| SealedError::StateRolledBack {
            topic: self.topic.clone(),
            anchored: anchor.generation,
            found,
            file: anchors.path(),
            line: self.anchor_line(logical),
        };
        match found {
            None => Err(refuse(None)),
            Some((g, _)) if g < anchor.generation => Err(refuse(Some(g))),
            Some((g, record)) if g == anchor.generation => {
                if record == anchor.record {
                    Ok(Standing::AtAnchor)
                } else {
                    Err(refuse(Some(g)))
                }
            }
            Some(_) => Ok(Standing::Ahead),
        }
    }

    /// The anchor file, when there is one (named in errors).
    pub(crate) fn anchor_file(&self) -> Option<std::path::PathBuf> {
        self.anchors.as_ref().map(|a| a.path())
    }

    /// How the anchor line of `logical` starts (named in errors).
    pub(crate) fn anchor_line(&self, logical: &[u8]) -> String {
        StateAnchors::line_start(self.client.addr(), &self.own.blind(logical).0)
    }

    /// Anchor `generation` (whose record hashes to `record`) for `logical`
    /// — only ever after the broker acknowledged that record as durable.
    /// Without a state directory, nothing.
    ///
    /// # Errors
    /// [`SealedError::Anchor`]: the file cannot be written.
    pub(crate) fn anchor(
        &self,
        logical: &[u8],
        generation: u64,
        record: [u8; RECORD_HASH_LEN],
    ) -> Result<(), SealedError> {
        let Some(anchors) = &self.anchors else {
            return Ok(());
        };
        anchors
            .advance(
                self.client.addr(),
                &self.own.blind(logical).0,
                Anchor { generation, record },
            )
            .map_err(|e| SealedError::Anchor {
                file: anchors.path(),
                reason: e.to_string(),
            })
    }

    /// The latest state saved under `logical`, opened; `None` if there is
    /// none. (Not checked against the anchor: the generation is inside the
    /// plaintext, which the caller decodes and gives to [`StateStore::check`].)
    pub(crate) async fn load(&self, logical: &[u8]) -> Result<Option<Loaded>, SealedError> {
        let key = self.own.blind(logical);
        let mut offset = 0;
        let mut latest: Option<Bytes> = None;
        loop {
            let r = retrying(|| {
                self.client
                    .fetch(&self.topic, 0, offset, 1 << 20, std::time::Duration::ZERO)
            })
            .await
            .map_err(|e| state_error(&self.topic, "cannot read the state topic", e))?;
            let mut any = false;
            for rec in r.records_from(offset) {
                let rec = rec.map_err(|e| state_error(&self.topic, "corrupt state batch", e))?;
                offset = rec.offset + 1;
                any = true;
                if rec.key[..] == key.0[..] {
                    latest = Some(rec.value);
                }
            }
            if !any || offset >= r.high_watermark {
                break;
            }
        }
        let Some(value) = latest else {
            return Ok(None);
        };
        let record: [u8; RECORD_HASH_LEN] = Sha256::digest(&value).into();
        open_state(&self.identity, &self.topic, &key.0, &value)
            .map(|plaintext| Some(Loaded { plaintext, record }))
            .map_err(|e| SealedError::State {
                topic: self.topic.clone(),
                reason: format!(
                    "the latest state record does not open ({e}): written by another identity, \
                     or changed"
                ),
                status: None,
            })
    }

    /// Save `plaintext` under `logical`, acknowledged once durable; returns
    /// the hash of the record written (to anchor).
    pub(crate) async fn save(
        &self,
        logical: &[u8],
        plaintext: &[u8],
    ) -> Result<[u8; RECORD_HASH_LEN], SealedError> {
        let key = self.own.blind(logical);
        let record = seal_state(&self.identity, &self.topic, &key.0, plaintext).map_err(|e| {
            SealedError::State {
                topic: self.topic.clone(),
                reason: format!("cannot seal the state: {e}"),
                status: None,
            }
        })?;
        let hash: [u8; RECORD_HASH_LEN] = Sha256::digest(&record).into();
        let mut b = BatchBuilder::new(&key.0);
        b.push(&record);
        let batch = b
            .finish(hermit_protocol::record::now_ns())
            .map_err(|e| state_error(&self.topic, "cannot build the state batch", e.into()))?;
        let batch = Bytes::from(batch);
        retrying(|| {
            self.client
                .produce(&self.topic, 0, Ack::Durable, batch.clone())
        })
        .await
        .map_err(|e| state_error(&self.topic, "cannot save the state", e))?;
        Ok(hash)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Any consumer state round-trips, generation included, and its
        /// version-1 form (the same bytes without the generation) reads as
        /// generation 0.
        #[test]
        fn consumer_states_round_trip(
            generation in any::<u64>(),
            floor in any::<u64>(),
            committed in proptest::collection::btree_map(any::<u32>(), any::<u64>(), 0..8),
            marks in proptest::collection::vec((any::<u8>(), 1u64..u64::MAX), 0..8),
        ) {
            let mut s = ConsumerState { generation, floor, committed, ..ConsumerState::default() };
            for (fp, seq) in marks {
                s.note(Fingerprint::from_bytes([fp; 32]), seq);
            }
            let bytes = s.encode();
            prop_assert_eq!(ConsumerState::decode(&bytes), Some(s.clone()));
            let mut v1 = vec![1u8];
            v1.extend_from_slice(&bytes[9..]);
            prop_assert_eq!(
                ConsumerState::decode(&v1),
                Some(ConsumerState { generation: 0, ..s })
            );
        }
    }

    #[test]
    fn consumer_state_round_trips_and_refuses_lies() {
        let mut s = ConsumerState {
            generation: 0x0102_0304_0506_0708,
            ..ConsumerState::default()
        };
        s.committed.insert(0, 42);
        s.committed.insert(3, 7);
        s.floor = 99;
        s.note(Fingerprint::from_bytes([1; 32]), 1 << 40);
        s.note(Fingerprint::from_bytes([1; 32]), (1 << 40) - 7);
        s.note(Fingerprint::from_bytes([2; 32]), 5);
        let bytes = s.encode();
        assert_eq!(ConsumerState::decode(&bytes), Some(s.clone()));
        for cut in 0..bytes.len() {
            assert_eq!(ConsumerState::decode(&bytes[..cut]), None, "cut at {cut}");
        }
        let mut big = bytes.to_vec();
        big[9..13].copy_from_slice(&u32::MAX.to_be_bytes());
        assert_eq!(
            ConsumerState::decode(&big),
            None,
            "a count beyond the bytes"
        );
        assert_eq!(bytes[0], 2, "written as version 2");
        assert_eq!(bytes[1..9], 0x0102_0304_0506_0708u64.to_be_bytes());
    }

    /// A state saved before generations existed (version 1: no generation)
    /// still loads, as generation 0.
    #[test]
    fn version_1_states_read_as_generation_0() {
        let mut s = ConsumerState {
            generation: 9,
            ..ConsumerState::default()
        };
        s.committed.insert(1, 5);
        s.note(Fingerprint::from_bytes([3; 32]), 77);
        let v2 = s.encode();
        let mut v1 = vec![1u8];
        v1.extend_from_slice(&v2[9..]);
        let back = ConsumerState::decode(&v1).expect("version 1 reads");
        assert_eq!(
            back,
            ConsumerState {
                generation: 0,
                ..s.clone()
            }
        );
        assert_eq!(ConsumerState::decode(&[3u8]), None, "an unknown version");

        let peer = Identity::generate().expect("os rng");
        let mut r = ReservationState {
            generation: 4,
            ..ReservationState::default()
        };
        r.peers
            .insert(*peer.fingerprint(), (peer.public_key().clone(), 9));
        let v2 = r.encode();
        let mut v1 = vec![1u8];
        v1.extend_from_slice(&v2[9..]);
        assert_eq!(ReservationState::decode(&v2).map(|b| b.generation), Some(4));
        let back = ReservationState::decode(&v1).expect("version 1 reads");
        assert_eq!(back.generation, 0);
        assert_eq!(back.peers.get(peer.fingerprint()).map(|p| p.1), Some(9));
    }

    #[test]
    fn too_many_senders_fold_the_oldest_into_the_floor() {
        let mut s = ConsumerState::default();
        for i in 0..(MAX_STATE_SENDERS as u64 + 3) {
            let mut fp = [0u8; 32];
            fp[..8].copy_from_slice(&i.to_be_bytes());
            s.note(Fingerprint::from_bytes(fp), 1000 + i);
        }
        s.bound();
        assert_eq!(s.senders.len(), MAX_STATE_SENDERS);
        assert_eq!(s.floor, 1002, "the three lowest marks went into the floor");
        assert!(s.senders.values().all(|w| w.highest() > 1002));
    }

    #[test]
    fn reservation_state_round_trips() {
        let peer = Identity::generate().expect("os rng");
        let mut b = ReservationState::default();
        b.peers
            .insert(*peer.fingerprint(), (peer.public_key().clone(), 1 << 20));
        let back = ReservationState::decode(&b.encode()).expect("decodes");
        let (k, n) = back.peers.get(peer.fingerprint()).expect("the peer");
        assert_eq!((k.fingerprint(), *n), (peer.fingerprint(), 1 << 20));
        assert!(ReservationState::decode(&b.encode()[..50]).is_none());
    }
}
