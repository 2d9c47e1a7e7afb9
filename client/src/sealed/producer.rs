//! [`SealedProducer`]: seals records in place through [`Producer::send_with`].

use crate::fxhash::FxMap;
use std::fmt;
use std::sync::{Arc, Mutex};

use crate::crypto::envelope::{self, MAX_RECIPIENTS};
use crate::crypto::seal::MAX_PLAINTEXT_LEN;
use crate::crypto::{
    BlindedKey, BlindingKey, Fingerprint, Identity, Kid, PublicKey, SealError, Sealer,
    SigningIdentity,
};
use crate::error::ClientError;
use crate::producer::Producer;

use super::delivery::SealedDelivery;
use super::error::SealedError;
use super::group::SealedGroup;
use super::state::{
    MAX_RESERVATION_PEERS, RESERVATION_KEY, ReservationState, Standing, StateStore,
};
// A panic under these locks leaves the maps consistent (inserts are
// atomic), and the sealer appends nothing when it fails.
use crate::lock::lock;

/// Sealing options. Each field's doc ends with its default.
#[derive(Clone)]
pub struct SealedProducerOptions {
    /// Pad every plaintext to a Padmé bucket (PADDED flag) so the broker sees
    /// only `O(log log n)` bits of its length (at most 12 % more bytes).
    /// Default on: an unpadded record tells the broker its plaintext's exact
    /// length.
    pub padding: bool,
    /// Sign every record with this key (SIGNED flag): a 64-byte ECDSA trailer
    /// that makes records provable to third parties. Must not be the ECDH
    /// identity's key pair; readers need
    /// [`SealedConsumer::trust_signer`](super::SealedConsumer::trust_signer).
    /// Default `None`.
    pub signing: Option<SigningIdentity>,
    /// Keep the DIRECT count per peer in the identity's state topic, reserved
    /// ahead of use ([`RESERVATION_SIZE`] at a time: a reservation), so the
    /// switch to MULTI before a pairwise key's random IVs run out holds across
    /// restarts ([`state`](super::state)). The first DIRECT record to each
    /// peer in a run waits for one durable write. Default on.
    pub persist_budgets: bool,
}

/// DIRECT records reserved per write of the reservation state.
pub const RESERVATION_SIZE: u64 = 1 << 16;
/// The former name of [`RESERVATION_SIZE`].
#[deprecated(note = "renamed RESERVATION_SIZE")]
pub const BUDGET_RESERVE: u64 = RESERVATION_SIZE;

impl Default for SealedProducerOptions {
    fn default() -> Self {
        Self {
            padding: true,
            signing: None,
            persist_budgets: true,
        }
    }
}

impl fmt::Debug for SealedProducerOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SealedProducerOptions")
            .field("padding", &self.padding)
            .field("persist_budgets", &self.persist_budgets)
            // SigningIdentity's Debug is redacted too; the fingerprint is enough.
            .field(
                "signing",
                &self
                    .signing
                    .as_ref()
                    .map(|s| s.public_key().fingerprint().to_hex()),
            )
            .finish()
    }
}

/// Blinding keys, cached: each costs an ECDH.
struct BlindingKeys {
    /// `K_pair(own, peer)` by peer.
    pairwise: FxMap<Fingerprint, BlindingKey>,
    /// `K_pair(own, own)`: the sender's own blinding key for ad hoc recipient sets.
    own: BlindingKey,
}

/// The sealer and the DIRECT reservations, under one lock: the writer takes
/// it once per record and finds there everything sealing needs.
struct Sealing {
    sealer: Sealer,
    /// With `persist_budgets`: per peer, the DIRECT count this run may reach
    /// before saving a new reservation.
    reserved: Option<FxMap<Fingerprint, u64>>,
}

/// What the writer found missing before sealing (it appended nothing).
#[derive(Debug, Clone, Copy)]
enum Missing {
    /// A recipient's pairwise key is not derived yet (an ECDH, ~0.1 ms: run
    /// outside the producer's lock, then the record is tried again).
    Keys,
    /// The DIRECT reservation for the peer is used up, or none was saved in
    /// this run yet (a durable write to the state topic, then again).
    Reservation,
}

impl Sealing {
    /// Whether `to` can be sealed now, without an ECDH or a reservation.
    fn missing(&self, to: &To<'_>) -> Option<Missing> {
        match to {
            To::Direct(r) => {
                let fp = r.fingerprint();
                let Some(used) = self.sealer.cached_direct_seals(fp) else {
                    return Some(Missing::Keys);
                };
                (!self.covered(fp, used)).then_some(Missing::Reservation)
            }
            To::Multi(rs) => rs
                .iter()
                .any(|r| self.sealer.cached_direct_seals(r.fingerprint()).is_none())
                .then_some(Missing::Keys),
        }
    }

    /// Whether `used` DIRECT records to `peer` are below its reservation
    /// (always, without `persist_budgets`).
    fn covered(&self, peer: &Fingerprint, used: u64) -> bool {
        self.reserved
            .as_ref()
            .is_none_or(|res| res.get(peer).is_some_and(|&ceiling| used < ceiling))
    }
}

/// The writer's answer when something was [`Missing`] (never reaches the caller).
#[derive(Debug)]
struct NotReady;

impl fmt::Display for NotReady {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the sealer needs a key or a reservation first")
    }
}

impl std::error::Error for NotReady {}

/// What one run of the writer did.
enum Step {
    Sealed(Result<crate::crypto::Sealed, SealError>),
    Missing(Missing),
}

struct Inner {
    producer: Producer,
    /// Kept apart from the sealer so that key derivations (an ECDH each) never
    /// run under the sealer's lock, which the producer's lock waits on.
    identity: Identity,
    /// A std mutex: locked once per record inside `send_with`'s writer,
    /// which runs synchronously under the producer's lock (lock order:
    /// producer, then sealer; nothing takes them the other way round), and
    /// by the short accessors below. Never held across an `.await`.
    sealing: Mutex<Sealing>,
    blinding: Mutex<BlindingKeys>,
    padding: bool,
    signing: bool,
    /// With `persist_budgets`: the state topic, opened on first use, and
    /// what was saved; the lock serializes loading and saving (held across
    /// the state topic's round trips).
    reservations: Option<tokio::sync::Mutex<ReservationIo>>,
}

#[derive(Default)]
struct ReservationIo {
    store: Option<StateStore>,
    state: ReservationState,
}

/// Seals records end to end and sends them through a [`Producer`]. Cheap to
/// clone; clones share the producer and the sealer (and so its sequence
/// numbers). See the [module docs](super) for key blinding and sequence numbers.
#[derive(Clone)]
pub struct SealedProducer {
    inner: Arc<Inner>,
}

impl fmt::Debug for SealedProducer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SealedProducer")
            .field("identity", &self.inner.identity)
            .field("padding", &self.inner.padding)
            .field("signing", &self.inner.signing)
            .field("producer", &self.inner.producer)
            .finish_non_exhaustive()
    }
}

/// Who a record is sealed to.
enum To<'a> {
    Direct(&'a PublicKey),
    Multi(&'a [PublicKey]),
}

impl SealedProducer {
    /// Seals as `identity` and sends through `producer` (a clone of it is
    /// kept; other clones may keep sending plain records).
    ///
    /// # Errors
    /// [`SealedError::Seal`]: the OS random source failed, or
    /// `options.signing` is the identity's own key pair.
    pub fn new(
        producer: &Producer,
        identity: Identity,
        options: SealedProducerOptions,
    ) -> Result<Self, SealedError> {
        let mut sealer = Sealer::new(identity.clone()).map_err(SealedError::Seal)?;
        sealer.set_padding(options.padding);
        let signing = options.signing.is_some();
        sealer
            .set_signing_identity(options.signing)
            .map_err(SealedError::Seal)?;
        let own = BlindingKey::pairwise(&identity, identity.public_key());
        Ok(Self {
            inner: Arc::new(Inner {
                producer: producer.clone(),
                identity,
                sealing: Mutex::new(Sealing {
                    sealer,
                    reserved: options.persist_budgets.then(FxMap::default),
                }),
                blinding: Mutex::new(BlindingKeys {
                    pairwise: FxMap::default(),
                    own,
                }),
                padding: options.padding,
                signing,
                reservations: options
                    .persist_budgets
                    .then(|| tokio::sync::Mutex::new(ReservationIo::default())),
            }),
        })
    }

    /// Before a DIRECT record to `peer`: make sure this run has a persisted
    /// reservation covering it (loading the saved state on first use, which
    /// also restores the counts it holds).
    async fn reserve(&self, peer: &PublicKey) -> Result<(), SealedError> {
        let Some(b) = &self.inner.reservations else {
            return Ok(());
        };
        let fp = peer.fingerprint();
        let covered = |me: &Self| {
            let sealing = lock(&me.inner.sealing);
            sealing.covered(fp, sealing.sealer.direct_seals(fp))
        };
        if covered(self) {
            return Ok(());
        }
        let mut io = b.lock().await;
        if io.store.is_none() {
            let client = self.inner.producer.client();
            let store = StateStore::open(client, &self.inner.identity).await?;
            let loaded = store.load(RESERVATION_KEY).await?;
            let decoded = match &loaded {
                None => None,
                Some(l) => Some(ReservationState::decode(&l.plaintext).ok_or_else(|| {
                    SealedError::State {
                        topic: super::state::state_topic(&self.inner.identity),
                        reason: "the latest reservation record is not one this version reads"
                            .into(),
                        status: None,
                    }
                })?),
            };
            // An older reservation than this device anchored would let
            // DIRECT counts go back (and random IVs repeat past the budget).
            let found = decoded
                .as_ref()
                .zip(loaded.as_ref())
                .map(|(st, l)| (st.generation, l.record));
            if store.check(RESERVATION_KEY, found)? == Standing::Ahead
                && let Some((generation, record)) = found
            {
                // A crash between the durable write and the anchor's (or a
                // new device): the newer state stands, the anchor follows.
                store.anchor(RESERVATION_KEY, generation, record)?;
            }
            if let Some(state) = decoded {
                let mut sealing = lock(&self.inner.sealing);
                // Every reserved record may have been sealed before the
                // previous run stopped: count them all.
                for (key, reserved) in state.peers.values() {
                    sealing.sealer.restore_direct_seals(key, *reserved);
                }
                drop(sealing);
                io.state = state;
            }
            io.store = Some(store);
        }
        if covered(self) {
            return Ok(());
        }
        let used = lock(&self.inner.sealing).sealer.direct_seals(fp);
        let ceiling = used.saturating_add(RESERVATION_SIZE);
        let mut next = io.state.clone();
        next.peers.insert(*fp, (peer.clone(), ceiling));
        if next.peers.len() > MAX_RESERVATION_PEERS {
            return Err(SealedError::State {
                topic: super::state::state_topic(&self.inner.identity),
                reason: format!(
                    "DIRECT reservations for more than {} peers: send to new peers as MULTI, or use another identity",
                    MAX_RESERVATION_PEERS
                ),
                status: None,
            });
        }
        // One generation per attempt (a failed save may still be stored).
        next.generation = io.state.generation.saturating_add(1);
        io.state.generation = next.generation;
        let store = io.store.as_ref().expect("opened above");
        let record = store.save(RESERVATION_KEY, &next.encode()).await?;
        let generation = next.generation;
        io.state = next;
        lock(&self.inner.sealing)
            .reserved
            .get_or_insert_default()
            .insert(*fp, ceiling);
        // After the durable ack, never before. Should this write fail, the
        // reservation stands (it is durable); a restart before the next
        // save finds the state ahead of the anchor and accepts it.
        io.store
            .as_ref()
            .expect("opened above")
            .anchor(RESERVATION_KEY, generation, record)?;
        Ok(())
    }

    /// The sender's public key.
    pub fn public_key(&self) -> &PublicKey {
        self.inner.identity.public_key()
    }

    /// The producer records go through.
    pub fn producer(&self) -> &Producer {
        &self.inner.producer
    }

    /// Seals `plaintext` to `recipients` on `topic` and queues it: one
    /// recipient → DIRECT (MULTI past the per-pair limit), several → MULTI.
    /// `key` is the logical record key, sent blinded (see the
    /// [module docs](super)); `None` sends the record keyless.
    ///
    /// The record is sealed straight into the batch buffer while the
    /// producer's lock is held (~0.5 µs for a small DIRECT record, more per
    /// MULTI recipient). Waits only while the producer's buffer is full.
    ///
    /// # Errors
    /// [`SealedError::Seal`] (empty or repeated recipients, one's own key,
    /// plaintext too large, …: nothing is queued) or [`SealedError::Client`]
    /// (the producer is closed, the topic name is invalid, …).
    pub async fn send(
        &self,
        topic: &str,
        key: Option<&[u8]>,
        plaintext: &[u8],
        recipients: &[PublicKey],
    ) -> Result<SealedDelivery, SealedError> {
        let to = match recipients {
            [one] => To::Direct(one),
            many => To::Multi(many),
        };
        self.check(plaintext, &to).map_err(SealedError::Seal)?;
        let blinded = key.map(|k| match to {
            To::Direct(one) => self.pairwise_blind(one, k),
            To::Multi(many) => self.multi_blind(many, k),
        });
        self.seal_and_send(topic, blinded, plaintext, to).await
    }

    /// Seals `plaintext` to every member of `group` but the sender (a MULTI
    /// record) and queues it; `key` is blinded with the group's secret.
    ///
    /// # Errors
    /// As [`SealedProducer::send`]; [`SealError::NoRecipients`] if the group
    /// has no other member.
    pub async fn send_group(
        &self,
        topic: &str,
        group: &SealedGroup,
        key: Option<&[u8]>,
        plaintext: &[u8],
    ) -> Result<SealedDelivery, SealedError> {
        let recipients = group.others(self.inner.identity.fingerprint());
        let to = To::Multi(&recipients);
        self.check(plaintext, &to).map_err(SealedError::Seal)?;
        let blinded = key.map(|k| group.blind(k));
        self.seal_and_send(topic, blinded, plaintext, to).await
    }

    fn pairwise_blind(&self, peer: &PublicKey, key: &[u8]) -> BlindedKey {
        let mut blinding = lock(&self.inner.blinding);
        blinding
            .pairwise
            .entry(*peer.fingerprint())
            .or_insert_with(|| BlindingKey::pairwise(&self.inner.identity, peer))
            .blind(key)
    }

    /// `K_self` over `u16(n) ‖ sorted recipient fingerprints ‖ key`. A
    /// recipient count above `u16::MAX` is refused by the sealer (4096 max);
    /// saturating here only keeps this total.
    fn multi_blind(&self, recipients: &[PublicKey], key: &[u8]) -> BlindedKey {
        let mut fps: Vec<&Fingerprint> = recipients.iter().map(PublicKey::fingerprint).collect();
        fps.sort_unstable();
        let n = u16::try_from(fps.len()).unwrap_or(u16::MAX);
        let mut input = Vec::with_capacity(2 + 32 * fps.len() + key.len());
        input.extend_from_slice(&n.to_be_bytes());
        for fp in fps {
            input.extend_from_slice(fp.as_bytes());
        }
        input.extend_from_slice(key);
        lock(&self.inner.blinding).own.blind(&input)
    }

    /// The sealer's argument checks, run before keys are derived or the
    /// producer is involved:
    /// a refused record must not even open a batch (and the producer's lock
    /// is not taken for it).
    fn check(&self, plaintext: &[u8], to: &To<'_>) -> Result<(), SealError> {
        if plaintext.len() > MAX_PLAINTEXT_LEN {
            return Err(SealError::PlaintextTooLarge {
                len: plaintext.len(),
            });
        }
        let own = self.inner.identity.fingerprint();
        match to {
            To::Direct(r) if r.fingerprint() == own => Err(SealError::SelfRecipient),
            To::Direct(_) => Ok(()),
            To::Multi([]) => Err(SealError::NoRecipients),
            To::Multi(rs) if rs.len() > MAX_RECIPIENTS => {
                Err(SealError::TooManyRecipients { n: rs.len() })
            }
            To::Multi(rs) if rs.iter().any(|r| r.fingerprint() == own) => {
                Err(SealError::SelfRecipient)
            }
            To::Multi(rs) => {
                let mut kids: Vec<Kid> = rs.iter().map(PublicKey::kid).collect();
                kids.sort_unstable();
                match kids.windows(2).find(|w| w[0] == w[1]) {
                    Some(w) => Err(SealError::DuplicateRecipient { kid: w[0] }),
                    None => Ok(()),
                }
            }
        }
    }

    /// Makes the sealer derive the pairwise key of every recipient it has not
    /// met yet, outside the producer's lock: the writer refuses to run an
    /// ECDH (~0.1 ms) with every other sender of the producer waiting, and
    /// comes here instead. (A writer that needs the sealer meanwhile still
    /// waits for it, once per new peer.) `restore_direct_seals(_, 0)` is the
    /// public call that derives and caches the key without sealing or counting.
    fn warm(&self, to: &To<'_>) {
        let recipients = match to {
            To::Direct(r) => std::slice::from_ref(*r),
            To::Multi(rs) => rs,
        };
        let mut sealing = lock(&self.inner.sealing);
        for r in recipients {
            if sealing
                .sealer
                .cached_direct_seals(r.fingerprint())
                .is_none()
            {
                sealing.sealer.restore_direct_seals(r, 0);
            }
        }
    }

    /// The sealed length, for the producer's buffer accounting.
    fn len_hint(&self, plaintext: &[u8], to: &To<'_>) -> usize {
        let body = if self.inner.padding {
            envelope::padded_len(plaintext.len()).unwrap_or(plaintext.len())
        } else {
            plaintext.len()
        };
        let sig = if self.inner.signing {
            envelope::SIGNATURE_LEN
        } else {
            0
        };
        let framing = match to {
            To::Direct(_) => envelope::DIRECT_OVERHEAD,
            To::Multi(r) => {
                envelope::MULTI_PREFIX_LEN
                    + r.len().saturating_mul(envelope::MULTI_ENTRY_LEN)
                    + envelope::TAG_LEN
            }
        };
        body.saturating_add(framing + sig)
    }

    async fn seal_and_send(
        &self,
        topic: &str,
        blinded: Option<BlindedKey>,
        plaintext: &[u8],
        to: To<'_>,
    ) -> Result<SealedDelivery, SealedError> {
        let hint = self.len_hint(plaintext, &to);
        let batch_key: &[u8] = blinded.as_ref().map_or(&[], |b| &b.0[..]);
        loop {
            // The writer runs at most once per attempt; its typed outcome
            // comes back here (the producer only keeps a boxed error). One
            // lock per record: the sealer's, under the producer's.
            let mut step = None;
            let sent = self
                .inner
                .producer
                .send_with(topic, batch_key, hint, |buf: &mut Vec<u8>| {
                    let mut sealing = lock(&self.inner.sealing);
                    if let Some(m) = sealing.missing(&to) {
                        step = Some(Step::Missing(m));
                        return Err(Box::new(NotReady) as Box<dyn std::error::Error + Send + Sync>);
                    }
                    let r = match to {
                        To::Direct(r) => sealing.sealer.seal_direct_into(topic, r, plaintext, buf),
                        To::Multi(rs) => sealing.sealer.seal_multi_into(topic, rs, plaintext, buf),
                    };
                    drop(sealing);
                    let out = match &r {
                        Ok(_) => Ok(()),
                        Err(e) => {
                            Err(Box::new(e.clone()) as Box<dyn std::error::Error + Send + Sync>)
                        }
                    };
                    step = Some(Step::Sealed(r));
                    out
                })
                .await;
            match (sent, step) {
                (Ok(delivery), Some(Step::Sealed(Ok(s)))) => {
                    return Ok(SealedDelivery::new(delivery, s.seq, s.mode));
                }
                (_, Some(Step::Sealed(Err(e)))) => return Err(SealedError::Seal(e)),
                // Nothing was queued: get what is missing, then try again.
                (_, Some(Step::Missing(Missing::Keys))) => self.warm(&to),
                (_, Some(Step::Missing(Missing::Reservation))) => {
                    // Only DIRECT records need one.
                    if let To::Direct(peer) = to {
                        self.reserve(peer).await?;
                    }
                }
                (Err(e), _) => return Err(SealedError::Client(e)),
                // `send_with` returns a delivery only after running the writer.
                (Ok(_), None) => {
                    return Err(SealedError::Client(ClientError::InvalidArgument(
                        "the producer queued a record without running its writer".into(),
                    )));
                }
            }
        }
    }

    /// Send everything buffered and wait until every record sent before this
    /// call is acknowledged or failed ([`Producer::flush`]).
    pub async fn flush(&self) {
        self.inner.producer.flush().await;
    }

    /// The sequence number the next record on `topic` will carry, if this
    /// producer has sealed to it: persist it to make the order across restarts
    /// independent of the clock.
    pub fn next_seq(&self, topic: &str) -> Option<u64> {
        lock(&self.inner.sealing).sealer.next_seq(topic)
    }

    /// Continues `topic`'s sequence above `last_seq` (a persisted
    /// [`SealedProducer::next_seq`] − 1).
    ///
    /// # Errors
    /// [`SealedError::Seal`] if the topic name is too long to seal to.
    pub fn resume_topic(&self, topic: &str, last_seq: u64) -> Result<(), SealedError> {
        lock(&self.inner.sealing)
            .sealer
            .resume_topic(topic, last_seq)
            .map_err(SealedError::Seal)
    }

    /// DIRECT records sealed so far to `peer` (the sealer switches the pair to
    /// MULTI past [`crate::crypto::seal::DIRECT_LIMIT`]).
    pub fn direct_seals(&self, peer: &Fingerprint) -> u64 {
        lock(&self.inner.sealing).sealer.direct_seals(peer)
    }

    /// Restores a persisted DIRECT count for `peer` (counts only go up).
    pub fn restore_direct_seals(&self, peer: &PublicKey, count: u64) {
        lock(&self.inner.sealing)
            .sealer
            .restore_direct_seals(peer, count);
    }
}
