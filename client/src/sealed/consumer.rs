//! [`SealedConsumer`]: opens every record a [`Consumer`] reads and commits only
//! what was opened or acknowledged.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::time::Duration;

use tokio::time::Instant;
use zeroize::Zeroizing;

use crate::client::Client;
use crate::consumer::{Consumer, ConsumerOptions};
use crate::crypto::envelope::{Body, RecordView};
use crate::crypto::{Fingerprint, Identity, Kid, Opener, PublicKey, SigningPublicKey};
use crate::error::ClientError;
use crate::records::Record;

use super::{OpenedRecord, Plaintext, RecordErrorKind, SealedError, SealedRecordError};

/// One record's outcome: opened, or why not (with where it is stored).
pub type Received = Result<OpenedRecord, SealedRecordError>;

/// Commit bookkeeping of one partition.
#[derive(Debug, Default)]
struct Track {
    /// After the last record returned by `next()`.
    returned: Option<u64>,
    /// Records that failed to open and were not acknowledged: the oldest is
    /// as far as any commit goes.
    held: BTreeSet<u64>,
    /// What the broker last acknowledged as committed (or what was read at start).
    committed: Option<u64>,
}

impl Track {
    /// Where a commit covering records up to `upto` may go: not past the
    /// oldest held record.
    fn commit_target(&self, upto: Option<u64>) -> Option<u64> {
        let upto = upto?;
        Some(self.held.first().map_or(upto, |&h| h.min(upto)))
    }
}

/// Reads a topic and opens every record for one identity. See the
/// [module docs](super) for commits and replay state.
pub struct SealedConsumer {
    client: Client,
    inner: Consumer,
    opener: Opener,
    own_kid: Kid,
    group: Option<String>,
    /// Taken from the caller's options: the inner consumer must not commit
    /// (its rule would commit past records that failed to open).
    auto_commit: Option<Duration>,
    next_auto_commit: Option<Instant>,
    tracks: BTreeMap<u32, Track>,
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
    /// `options` are the [`Consumer`]'s: with a `group`, reading starts at
    /// the group's committed offsets and `auto_commit` commits as described
    /// in the [module docs](super). Legacy records are refused and unsigned
    /// records accepted until [`SealedConsumer::allow_legacy`] /
    /// [`SealedConsumer::require_signatures`] say otherwise.
    ///
    /// # Errors
    /// [`SealedError::Trust`] (a trusted key is `identity`'s own, or two
    /// share a key id) or [`SealedError::Client`].
    pub async fn new(
        client: &Client,
        identity: Identity,
        trusted: Vec<PublicKey>,
        topic: &str,
        options: ConsumerOptions,
    ) -> Result<Self, SealedError> {
        let own_kid = identity.kid();
        let mut opener = Opener::new(identity);
        for key in &trusted {
            opener.trust(key).map_err(SealedError::Trust)?;
        }
        let group = options.group.clone();
        let auto_commit = options.auto_commit;
        let inner = Consumer::new(
            client,
            topic,
            ConsumerOptions {
                auto_commit: None,
                ..options
            },
        )
        .await?;
        let tracks = inner
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
        let next_auto_commit = match (&group, auto_commit) {
            (Some(_), Some(every)) => Some(Instant::now() + every),
            _ => None,
        };
        Ok(Self {
            client: client.clone(),
            inner,
            opener,
            own_kid,
            group,
            auto_commit,
            next_auto_commit,
            tracks,
        })
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

    fn open(&mut self, record: Record) -> Received {
        let Record {
            topic,
            partition,
            offset,
            timestamp_ns,
            key,
            value,
        } = record;
        let track = self.tracks.entry(partition).or_default();
        track.returned = Some(offset.saturating_add(1));
        let fail = |kind| SealedRecordError {
            topic: topic.clone(),
            partition,
            offset,
            timestamp_ns,
            kind,
        };
        // Sized so the buffer never reallocates (which would leave an unwiped
        // copy behind): a plaintext is never longer than its record.
        let mut plaintext = Zeroizing::new(Vec::with_capacity(value.len()));
        match self.opener.open_into(&topic, &value, &mut *plaintext) {
            Ok(o) => Ok(OpenedRecord {
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
                signed: o.signed,
                padded: o.padded,
                plaintext: Plaintext(plaintext),
            }),
            // Opening fails, with no state changed, on every record that is
            // not addressed to us; only then is the header parsed a second
            // time to say whose it is (the common path parses once).
            Err(_) if let Some(kind) = addressed_elsewhere(&value, self.own_kid) => Err(fail(kind)),
            Err(e) => {
                tracing::debug!(topic = %topic, partition, offset, error = %e, "record did not open");
                track.held.insert(offset);
                Err(fail(RecordErrorKind::Open(e)))
            }
        }
    }

    /// Lets commits move past a record that failed to open (the application
    /// decided to skip it, logged it, or moved it aside). Returns whether the
    /// record was holding commits back.
    pub fn ack(&mut self, partition: u32, offset: u64) -> bool {
        self.tracks
            .get_mut(&partition)
            .is_some_and(|t| t.held.remove(&offset))
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
        t.held.retain(|&h| h < offset);
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
            .map(|(p, t)| (*p, t.held.iter().copied().collect()))
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
    /// the oldest held one.
    async fn commit_returned(&mut self) -> Result<(), ClientError> {
        let Some(group) = self.group.clone() else {
            return Err(ClientError::InvalidArgument(
                "commit needs a consumer group (ConsumerOptions::group)".into(),
            ));
        };
        let topic = self.inner.topic().to_owned();
        for (&partition, t) in &mut self.tracks {
            let Some(offset) = t.commit_target(t.returned) else {
                continue;
            };
            if t.committed == Some(offset) {
                continue;
            }
            self.client
                .commit(&group, &topic, partition, offset)
                .await?;
            t.committed = Some(offset);
        }
        Ok(())
    }

    /// Commits, per partition, the position after the last record returned
    /// (the one being handled included) — but not past the oldest record that
    /// failed to open and was not acknowledged.
    ///
    /// # Errors
    /// [`ClientError::InvalidArgument`] without a group; the broker's error.
    pub async fn commit(&mut self) -> Result<(), ClientError> {
        self.commit_returned().await
    }

    /// Stops: with a group and `auto_commit`, a final [`SealedConsumer::commit`].
    ///
    /// # Errors
    /// As [`SealedConsumer::commit`].
    pub async fn close(mut self) -> Result<(), ClientError> {
        if self.group.is_some() && self.auto_commit.is_some() {
            self.commit().await?;
        }
        self.inner.close().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crypto::Mode;

    #[test]
    fn held_records_cap_the_commit() {
        let mut t = Track::default();
        assert_eq!(t.commit_target(None), None);
        assert_eq!(t.commit_target(Some(10)), Some(10));
        t.held.insert(4);
        t.held.insert(7);
        assert_eq!(t.commit_target(Some(10)), Some(4));
        assert_eq!(t.commit_target(Some(3)), Some(3));
        t.held.remove(&4);
        assert_eq!(t.commit_target(Some(10)), Some(7));
    }

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
