//! [`SealedConsumer`]: opens every record a [`Consumer`] reads and commits only
//! what was opened or acknowledged.

use std::collections::{BTreeMap, VecDeque};
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;
use zeroize::Zeroizing;

use crate::client::Client;
use crate::consumer::{Consumer, ConsumerOptions};
use crate::crypto::envelope::{Body, RecordView};
use crate::crypto::{Fingerprint, Identity, Kid, Opened, Opener, PublicKey, SigningPublicKey};
use crate::error::ClientError;
use crate::records::Record;

use super::commits::{Held, Persist, StateOrigin, Track, released_notice};
use super::error::SealedError;
use super::record::{
    OpenedRecord, OpenedRef, Plaintext, RecordErrorKind, Release, SealedRecordError,
};

/// How a [`SealedConsumer`] reads, commits and remembers. Each field's doc
/// ends with its default; `From<ConsumerOptions>` takes the defaults for the rest.
#[derive(Debug, Clone)]
pub struct SealedConsumerOptions {
    /// The [`Consumer`]'s options (group, start, auto-commit, …).
    pub consumer: ConsumerOptions,
    /// With a group: save the replay state (per sender the highest `seq`
    /// opened below the committed offsets) in the identity's state topic,
    /// sealed to itself, before every commit, and restore it at start, so a
    /// record replayed after a restart is refused as `Replayed`
    /// ([`state`](super::state)). Default on; without a group there is
    /// nothing to restore and this does nothing.
    pub persist_state: bool,
    /// Most records of one partition that failed to open and hold the
    /// commit back; past it the oldest is released (reported as
    /// [`RecordErrorKind::Released`]). Default 1000.
    pub max_held: usize,
    /// Longest a record that failed to open holds the commit back before it
    /// is released. Default 1 hour.
    pub max_held_age: Duration,
}

impl From<ConsumerOptions> for SealedConsumerOptions {
    fn from(consumer: ConsumerOptions) -> Self {
        Self {
            consumer,
            persist_state: true,
            max_held: 1000,
            max_held_age: Duration::from_secs(3600),
        }
    }
}

impl Default for SealedConsumerOptions {
    fn default() -> Self {
        ConsumerOptions::default().into()
    }
}

/// One record's outcome: opened, or why not (with where it is stored).
pub type Received = Result<OpenedRecord, SealedRecordError>;

/// One record's outcome, borrowed (see [`SealedConsumer::try_next_ref`]).
pub type ReceivedRef<'a> = Result<OpenedRef<'a>, SealedRecordError>;

/// Reads a topic and opens every record for one identity. See the
/// [module docs](super) for commits and replay state.
pub struct SealedConsumer {
    client: Client,
    inner: Consumer,
    topic: Arc<str>,
    opener: Opener,
    own_kid: Kid,
    group: Option<String>,
    /// Taken from the caller's options: the inner consumer must not commit
    /// (its rule would commit past records that failed to open).
    auto_commit: Option<Duration>,
    next_auto_commit: Option<Instant>,
    tracks: BTreeMap<u32, Track>,
    max_held: usize,
    max_held_age: Duration,
    /// Released records, returned by `next` before any other record.
    notices: VecDeque<SealedRecordError>,
    persist: Option<Persist>,
    origin: StateOrigin,
    /// Where [`SealedConsumer::try_next_ref`] opens records: reused, its
    /// used bytes wiped before each reuse, wiped whole when dropped.
    scratch: Zeroizing<Vec<u8>>,
}

impl fmt::Debug for SealedConsumer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SealedConsumer")
            .field("opener", &self.opener)
            .field("consumer", &self.inner)
            .field(
                "held",
                &self
                    .tracks
                    .iter()
                    .map(|(p, t)| (*p, t.held.len()))
                    .collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

/// The header of a well-formed sealed record that holds nothing for `own`.
fn addressed_elsewhere(value: &[u8], own: Kid) -> Option<RecordErrorKind> {
    let view = RecordView::parse(value).ok()?;
    let for_me = match view.body {
        Body::Direct { recipient, .. } => recipient == own,
        Body::Multi { .. } => view.body.entries().any(|e| e.kid == own),
    };
    (!for_me).then_some(RecordErrorKind::NotForMe {
        sender: view.header.sender,
        own: view.header.sender == own,
        mode: view.header.mode,
    })
}

impl SealedConsumer {
    /// Starts reading `topic` as `identity`, trusting records from `trusted`.
    /// `options` are a [`ConsumerOptions`] (the other settings at their
    /// defaults) or [`SealedConsumerOptions`]: with a `group`, reading starts
    /// at the group's committed offsets, the replay state saved with the last
    /// commit is restored (see [`SealedConsumer::state_origin`]), and
    /// `auto_commit` commits as described in the [module docs](super).
    /// Legacy records are refused and unsigned records accepted until
    /// [`SealedConsumer::allow_legacy`] / [`SealedConsumer::require_signatures`]
    /// say otherwise.
    ///
    /// With a client state directory
    /// ([`ClientOptions::state_dir`](crate::ClientOptions::state_dir)) the
    /// restored state is checked against the generation anchored there
    /// (docs/ENVELOPE.md §13): an older one is refused, and so is (reading
    /// from the group's commit) a committed offset below the anchored
    /// state's. A state newer than the anchor — a crash between its durable
    /// write and the anchor's — is accepted: its offsets are committed where
    /// the group's commit is behind (the interrupted commit is finished),
    /// then the anchor moves up.
    ///
    /// # Errors
    /// [`SealedError::Trust`] (a trusted key is `identity`'s own, or two
    /// share a key id), [`SealedError::State`] (the state topic cannot be
    /// created, read, or its latest record does not open),
    /// [`SealedError::StateRolledBack`] and [`SealedError::CommitRolledBack`]
    /// (the broker served an older state or commit than this device wrote),
    /// [`SealedError::Anchor`] or [`SealedError::Client`].
    pub async fn new(
        client: &Client,
        identity: Identity,
        trusted: Vec<PublicKey>,
        topic: &str,
        options: impl Into<SealedConsumerOptions>,
    ) -> Result<Self, SealedError> {
        let SealedConsumerOptions {
            consumer: options,
            persist_state,
            max_held,
            max_held_age,
        } = options.into();
        let own_kid = identity.kid();
        let mut opener = Opener::new(identity.clone());
        for key in &trusted {
            opener.trust(key).map_err(SealedError::Trust)?;
        }
        let group = options.group.clone();
        let (persist, origin) = match (&group, persist_state) {
            (Some(g), true) => {
                let (persist, origin) =
                    Persist::restore(client, &identity, g, topic, &mut opener).await?;
                (Some(persist), origin)
            }
            _ => (None, StateOrigin::NotPersisted),
        };
        let auto_commit = options.auto_commit;
        let from_commit = matches!(options.start, crate::consumer::StartFrom::Committed { .. });
        let mut inner = Consumer::new(
            client,
            topic,
            ConsumerOptions {
                auto_commit: None,
                ..options
            },
        )
        .await?;
        let mut tracks: BTreeMap<u32, Track> = inner
            .committed()
            .into_iter()
            .map(|(p, committed)| {
                (
                    p,
                    Track {
                        committed,
                        ..Track::default()
                    },
                )
            })
            .collect();
        // A crash after the state was saved but before the commit: the
        // state's offsets are the truth (its windows know those records) —
        // when reading starts at the commit; an explicit start stays.
        if let Some(p) = persist.as_ref().filter(|_| from_commit) {
            for (&partition, &offset) in &p.state.committed {
                let t = tracks.entry(partition).or_default();
                if t.committed.is_none_or(|c| c < offset) && inner.position(partition).is_some() {
                    inner.seek(partition, offset)?;
                    t.returned = Some(offset);
                }
            }
        }
        if let (Some(p), Some(g)) = (&persist, &group) {
            p.settle_anchor(client, g, topic, &mut tracks, from_commit)
                .await?;
        }
        let next_auto_commit = match (&group, auto_commit) {
            (Some(_), Some(every)) => Some(Instant::now() + every),
            _ => None,
        };
        Ok(Self {
            client: client.clone(),
            topic: Arc::from(topic),
            inner,
            opener,
            own_kid,
            group,
            auto_commit,
            next_auto_commit,
            tracks,
            max_held: max_held.max(1),
            max_held_age,
            notices: VecDeque::new(),
            persist,
            origin,
            scratch: Zeroizing::new(Vec::new()),
        })
    }

    /// Where the replay windows came from at start (persisted state restored,
    /// nothing saved yet, or persistence off).
    pub fn state_origin(&self) -> StateOrigin {
        self.origin
    }

    /// The topic.
    pub fn topic(&self) -> &str {
        self.inner.topic()
    }

    /// The identity records are opened for.
    pub fn identity(&self) -> &Identity {
        self.opener.identity()
    }

    /// Trusts one more sender.
    ///
    /// # Errors
    /// [`SealedError::Trust`].
    pub fn trust(&mut self, sender: &PublicKey) -> Result<(), SealedError> {
        self.opener.trust(sender).map_err(SealedError::Trust)
    }

    /// Trusts `sender` and the separate key it signs with: its SIGNED records
    /// are verified (a SIGNED record from a sender without one is refused).
    ///
    /// # Errors
    /// [`SealedError::Trust`].
    pub fn trust_signer(
        &mut self,
        sender: &PublicKey,
        signing: &SigningPublicKey,
    ) -> Result<(), SealedError> {
        self.opener
            .trust_signer(sender, signing)
            .map_err(SealedError::Trust)
    }

    /// Stops trusting a sender; returns whether it was trusted. Its replay
    /// state is kept.
    pub fn distrust(&mut self, sender: &Fingerprint) -> bool {
        self.opener.distrust(sender)
    }

    /// Accepts legacy `ChatCrypto` records (off by default): they carry no
    /// sender, topic or sequence number, so replays, reorders and reflections
    /// of them go undetected (see `docs/ENVELOPE.md` §2).
    pub fn allow_legacy(&mut self, allow: bool) {
        self.opener.allow_legacy(allow);
    }

    /// Refuses unsigned records (off by default).
    pub fn require_signatures(&mut self, require: bool) {
        self.opener.require_signatures(require);
    }

    /// Highest `seq` opened from `sender` on this topic, to persist with the
    /// application's progress.
    pub fn high_water(&self, sender: &Fingerprint) -> Option<u64> {
        self.opener.high_water(self.inner.topic(), sender)
    }

    /// Restores a persisted high-water mark: every `seq` up to it from
    /// `sender` is then refused as replayed or too old.
    ///
    /// # Errors
    /// [`SealedError::Open`] if the topic name is too long.
    pub fn restore_high_water(
        &mut self,
        sender: &Fingerprint,
        seq: u64,
    ) -> Result<(), SealedError> {
        let topic = self.inner.topic().to_owned();
        self.opener
            .restore_high_water(&topic, sender, seq)
            .map_err(SealedError::Open)
    }

    /// The next record, opened or not, waiting as long as it takes (wrap it
    /// in `tokio::time::timeout` to bound the wait; nothing is lost when the
    /// wait is cut short). Calling it marks every record returned before as
    /// finished.
    ///
    /// The outer error is the transport's (connection, corrupt batch: see
    /// [`Consumer::next`]); the inner one is about this record only, and the
    /// next call goes on to the next record.
    ///
    /// # Errors
    /// [`ClientError`] from the underlying [`Consumer`].
    pub async fn next(&mut self) -> Result<Received, ClientError> {
        self.release_old();
        if let Some(notice) = self.notices.pop_front() {
            return Ok(Err(notice));
        }
        // The periodic commit runs only here, before another record is
        // returned: what was returned so far is exactly what is finished.
        if self.next_auto_commit.is_some_and(|t| t <= Instant::now()) {
            self.auto_commit().await;
        }
        // Records already fetched are opened without another future.
        if let Some(record) = self.inner.try_next() {
            return Ok(self.open(record?));
        }
        let record = loop {
            let due = self.next_auto_commit;
            tokio::select! {
                // `Consumer::next` may be cut short (its docs suggest a
                // timeout): the periodic commit runs while waiting for records.
                r = self.inner.next() => break r?,
                () = tokio::time::sleep_until(due.unwrap_or_else(Instant::now)), if due.is_some() => {
                    self.auto_commit().await;
                }
            }
        };
        Ok(self.open(record))
    }

    /// The next record if one is already fetched, opened or not: no
    /// waiting, no I/O and no future, so a loop over a large fetch response
    /// pays only for opening. `None` means call [`SealedConsumer::next`]
    /// (which may wait, and runs the periodic commit when it is due). Like
    /// `next`, it marks every record returned before as finished.
    ///
    /// # Errors
    /// The outer error is the transport's, as [`SealedConsumer::next`]'s.
    pub fn try_next(&mut self) -> Option<Result<Received, ClientError>> {
        if self.next_auto_commit.is_some_and(|t| t <= Instant::now()) {
            return None;
        }
        self.release_old();
        if let Some(notice) = self.notices.pop_front() {
            return Some(Ok(Err(notice)));
        }
        let record = self.inner.try_next()?;
        Some(record.map(|r| self.open(r)))
    }

    /// Like [`SealedConsumer::try_next`], but the record and its plaintext
    /// are borrowed: the record from the fetch response, the plaintext from
    /// a buffer the consumer reuses (its used bytes wiped before each reuse
    /// and when the consumer is dropped), so opening a record allocates
    /// nothing and touches no reference count. The borrow ends before the
    /// next call; checks, replay state, holds and commits are exactly as
    /// with `try_next`. Notices of released records come first, owned.
    ///
    /// # Errors
    /// The outer error is the transport's, as [`SealedConsumer::next`]'s.
    pub fn try_next_ref(&mut self) -> Option<Result<ReceivedRef<'_>, ClientError>> {
        if self.next_auto_commit.is_some_and(|t| t <= Instant::now()) {
            return None;
        }
        self.release_old();
        if let Some(notice) = self.notices.pop_front() {
            return Some(Ok(Err(notice)));
        }
        let record = match self.inner.try_next_ref()? {
            Ok(r) => r,
            Err(e) => return Some(Err(e)),
        };
        let scratch = &mut *self.scratch;
        zeroize::Zeroize::zeroize(&mut scratch[..]);
        scratch.clear();
        scratch.reserve(record.value().len());
        let side = OpenSide {
            opener: &mut self.opener,
            tracks: &mut self.tracks,
            persist: &mut self.persist,
            notices: &mut self.notices,
            own_kid: self.own_kid,
            max_held: self.max_held,
        };
        let topic = &self.topic;
        let at = Where {
            partition: record.partition(),
            offset: record.offset(),
            timestamp_ns: record.timestamp_ns(),
        };
        Some(Ok(side.open(topic, at, record.value(), scratch).map(|o| {
            OpenedRef {
                topic,
                partition: at.partition,
                offset: at.offset,
                timestamp_ns: at.timestamp_ns,
                key: record.key(),
                sender: o.sender,
                seq: o.seq,
                mode: o.mode,
                gap: o.gap,
                late: o.late,
                window: o.window,
                signed: o.signed,
                padded: o.padded,
                plaintext: &scratch[..],
            }
        })))
    }

    fn open(&mut self, record: Record) -> Received {
        let Record {
            topic,
            partition,
            offset,
            timestamp_ns,
            key,
            value,
        } = record;
        // Sized so the buffer never reallocates (which would leave an unwiped
        // copy behind): a plaintext is never longer than its record.
        let mut plaintext = Zeroizing::new(Vec::with_capacity(value.len()));
        let side = OpenSide {
            opener: &mut self.opener,
            tracks: &mut self.tracks,
            persist: &mut self.persist,
            notices: &mut self.notices,
            own_kid: self.own_kid,
            max_held: self.max_held,
        };
        let at = Where {
            partition,
            offset,
            timestamp_ns,
        };
        let o = side.open(&topic, at, &value, &mut plaintext)?;
        Ok(OpenedRecord {
            topic,
            partition,
            offset,
            timestamp_ns,
            key,
            sender: o.sender,
            seq: o.seq,
            mode: o.mode,
            gap: o.gap,
            late: o.late,
            window: o.window,
            signed: o.signed,
            padded: o.padded,
            plaintext: Plaintext(plaintext),
        })
    }

    /// Release held records older than `max_held_age` (reported as notices).
    /// Reads the clock only when some record is held.
    fn release_old(&mut self) {
        let mut now = None;
        let why = Release::Age(self.max_held_age);
        for (&partition, t) in &mut self.tracks {
            while let Some((&offset, &h)) = t.held.first_key_value() {
                let now = *now.get_or_insert_with(Instant::now);
                if now.duration_since(h.since) < self.max_held_age {
                    break;
                }
                t.held.remove(&offset);
                self.notices
                    .push_back(released_notice(&self.topic, partition, offset, h, why));
            }
        }
    }

    /// Lets commits move past a record that failed to open (the application
    /// decided to skip it, logged it, or moved it aside). Returns whether the
    /// record was holding commits back.
    pub fn ack(&mut self, partition: u32, offset: u64) -> bool {
        self.tracks
            .get_mut(&partition)
            .is_some_and(|t| t.held.remove(&offset).is_some())
    }

    /// Moves `partition` to `offset` (e.g. past a corrupt batch the
    /// [`Consumer`] stops at). The seek counts as the application's decision:
    /// the commit position follows it, except that records before `offset`
    /// still held stay held; held records at or after it are read again.
    ///
    /// # Errors
    /// [`ClientError::InvalidArgument`] if the partition is not consumed.
    pub fn seek(&mut self, partition: u32, offset: u64) -> Result<(), ClientError> {
        self.inner.seek(partition, offset)?;
        let t = self.tracks.entry(partition).or_default();
        t.held.retain(|&h, _| h < offset);
        t.pending.retain(|&(o, _, _)| o < offset);
        t.returned = Some(offset);
        Ok(())
    }

    /// The position (next offset to read) of `partition`, if consumed.
    pub fn position(&self, partition: u32) -> Option<u64> {
        self.inner.position(partition)
    }

    /// The offsets still held per partition: records that failed to open
    /// and were not acknowledged.
    pub fn held(&self) -> Vec<(u32, Vec<u64>)> {
        self.tracks
            .iter()
            .filter(|(_, t)| !t.held.is_empty())
            .map(|(p, t)| (*p, t.held.keys().copied().collect()))
            .collect()
    }

    /// The committed offsets this consumer knows of (its own commits, or what
    /// was read at start), by partition.
    pub fn committed(&self) -> Vec<(u32, Option<u64>)> {
        self.tracks.iter().map(|(p, t)| (*p, t.committed)).collect()
    }

    async fn auto_commit(&mut self) {
        if let Some(every) = self.auto_commit {
            self.next_auto_commit = Some(Instant::now() + every);
        }
        if let Err(e) = self.commit_returned().await {
            tracing::warn!(topic = %self.inner.topic(), error = %e, "periodic commit failed; will retry");
        }
    }

    /// Commits every partition up to its last returned record, capped at
    /// the oldest held one; with `persist_state`, saves the replay state for
    /// those positions first (nothing is committed if that fails).
    async fn commit_returned(&mut self) -> Result<(), SealedError> {
        let Some(group) = self.group.clone() else {
            return Err(ClientError::InvalidArgument(
                "commit needs a consumer group (ConsumerOptions::group)".into(),
            )
            .into());
        };
        let topic = self.inner.topic().to_owned();
        let mut targets = Vec::new();
        for (&partition, t) in &mut self.tracks {
            let Some(offset) = t.commit_target(t.returned) else {
                continue;
            };
            if t.committed == Some(offset) {
                continue;
            }
            if let Some(p) = &mut self.persist {
                t.fold_below(&mut p.state, offset);
            }
            targets.push((partition, offset));
        }
        if targets.is_empty() {
            return Ok(());
        }
        let mut saved = None;
        if let Some(p) = &mut self.persist {
            for &(partition, offset) in &targets {
                p.state.committed.insert(partition, offset);
            }
            p.state.bound();
            // One generation per attempt: a save that failed here may still
            // have been stored, and no two records may share a generation.
            p.state.generation = p.state.generation.saturating_add(1);
            let record = p.store.save(&p.logical, &p.state.encode()).await?;
            saved = Some((p.state.generation, record));
        }
        for (partition, offset) in targets {
            self.client
                .commit(&group, &topic, partition, offset)
                .await?;
            if let Some(t) = self.tracks.get_mut(&partition) {
                t.committed = Some(offset);
            }
        }
        // Anchored only now: the state is durable and the broker has
        // acknowledged its commits, so a later start may hold the broker to
        // both (a crash before this line leaves the anchor behind, which
        // that start accepts).
        if let (Some(p), Some((generation, record))) = (&self.persist, saved) {
            p.store.anchor(&p.logical, generation, record)?;
        }
        Ok(())
    }

    /// Commits, per partition, the position after the last record returned
    /// (the one being handled included) — but not past the oldest record that
    /// failed to open and was not acknowledged.
    ///
    /// With `persist_state`, the replay state for those positions is saved
    /// first; if that fails nothing is committed.
    ///
    /// # Errors
    /// [`ClientError::InvalidArgument`] without a group; the broker's error;
    /// [`SealedError::State`].
    pub async fn commit(&mut self) -> Result<(), SealedError> {
        self.commit_returned().await
    }

    /// Stops: with a group and `auto_commit`, a final [`SealedConsumer::commit`].
    ///
    /// # Errors
    /// As [`SealedConsumer::commit`].
    pub async fn close(mut self) -> Result<(), SealedError> {
        if self.group.is_some() && self.auto_commit.is_some() {
            self.commit().await?;
        }
        Ok(self.inner.close().await?)
    }
}

/// Where a record is stored (besides its topic).
#[derive(Debug, Clone, Copy)]
struct Where {
    partition: u32,
    offset: u64,
    timestamp_ns: u64,
}

/// What opening one record reads and changes: the consumer's fields apart
/// from the inner [`Consumer`], which the record may be borrowed from.
struct OpenSide<'s> {
    opener: &'s mut Opener,
    tracks: &'s mut BTreeMap<u32, Track>,
    persist: &'s mut Option<Persist>,
    notices: &'s mut VecDeque<SealedRecordError>,
    own_kid: Kid,
    max_held: usize,
}

impl OpenSide<'_> {
    /// Open `value` (stored at `at` in `topic`) into `out`: the sender's
    /// replay state and the partition's track move on success; a record
    /// that does not open is held (or said to be for someone else).
    fn open(
        self,
        topic: &Arc<str>,
        at: Where,
        value: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<Opened, SealedRecordError> {
        let Where {
            partition,
            offset,
            timestamp_ns,
        } = at;
        let track = self.tracks.entry(partition).or_default();
        track.returned = Some(offset.saturating_add(1));
        let fail = |kind| SealedRecordError {
            topic: topic.clone(),
            partition,
            offset,
            timestamp_ns,
            kind,
        };
        match self.opener.open_into(topic, value, out) {
            Ok(o) => {
                if let (Some(seq), Some(p)) = (o.seq, self.persist.as_mut()) {
                    track.opened(&mut p.state, offset, o.sender, seq);
                }
                Ok(o)
            }
            // Opening fails, with no state changed, on every record that is
            // not addressed to us; only then is the header parsed a second
            // time to say whose it is (the common path parses once).
            Err(_) if let Some(kind) = addressed_elsewhere(value, self.own_kid) => Err(fail(kind)),
            Err(e) => {
                tracing::debug!(topic = %topic, partition, offset, error = %e, "record did not open");
                track.held.insert(
                    offset,
                    Held {
                        since: Instant::now(),
                        timestamp_ns,
                    },
                );
                let over = track.held.len().saturating_sub(self.max_held);
                let released: Vec<(u64, Held)> =
                    (0..over).filter_map(|_| track.held.pop_first()).collect();
                let why = Release::Count(self.max_held);
                for (offset, h) in released {
                    self.notices
                        .push_back(released_notice(topic, partition, offset, h, why));
                }
                Err(fail(RecordErrorKind::Open(e)))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crypto::Mode;

    #[test]
    fn records_for_others_are_recognised_before_trust() {
        let me = Identity::generate().expect("os rng");
        let alice = Identity::generate().expect("os rng");
        let bob = Identity::generate().expect("os rng");
        let mut sealer = crate::crypto::Sealer::new(alice.clone()).expect("rng");
        let to_bob = sealer
            .seal_direct("t", bob.public_key(), b"hi")
            .expect("seal");
        let to_me = sealer
            .seal_direct("t", me.public_key(), b"hi")
            .expect("seal");
        let multi = sealer
            .seal_multi("t", &[bob.public_key().clone()], b"hi")
            .expect("seal");
        assert_eq!(
            addressed_elsewhere(&to_bob, me.kid()),
            Some(RecordErrorKind::NotForMe {
                sender: alice.kid(),
                own: false,
                mode: Mode::Direct
            })
        );
        assert!(matches!(
            addressed_elsewhere(&multi, me.kid()),
            Some(RecordErrorKind::NotForMe {
                mode: Mode::Multi,
                ..
            })
        ));
        assert_eq!(addressed_elsewhere(&to_me, me.kid()), None);
        assert!(matches!(
            addressed_elsewhere(&to_bob, alice.kid()),
            Some(RecordErrorKind::NotForMe { own: true, .. })
        ));
        // Not a sealed record at all: left to the opener's typed errors.
        assert_eq!(addressed_elsewhere(b"{\"iv\":1}", me.kid()), None);
        assert_eq!(addressed_elsewhere(b"\x01", me.kid()), None);
    }
}
