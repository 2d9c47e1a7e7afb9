//! Writing sealed records.
//!
//! A [`Sealer`] belongs to one identity. It caches, per peer, `K_pair` and its
//! expanded AES-256-GCM key (ECDH and the key schedule run once per peer), per
//! topic a [`SeqGen`] and the context digests, and owns a ChaCha12 CSPRNG seeded
//! once from the OS. Sealing a DIRECT record therefore costs a few hash-map
//! look-ups, 12 random bytes from userspace and one AES-GCM call, and appends to
//! the caller's buffer without allocating ([`Sealer::seal_direct_into`]).
//!
//! A random-IV key is good for 2^32 records (both directions together), so the
//! sealer counts DIRECT records per `K_pair` and switches to a one-recipient
//! MULTI record (whose keys are single-use) past 2^30 (legacy `ChatCrypto`
//! counts its own 2^30 under the same key). The count lives in memory:
//! callers that seal billions of records to one peer across restarts persist it
//! with [`Sealer::direct_seals`] / [`Sealer::restore_direct_seals`].

use crate::fxhash::FxMap;
use std::collections::hash_map::Entry;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use hkdf::HkdfExtract;
use hmac::{Hmac, KeyInit as _, Mac as _};
use sha2::{Digest as _, Sha256};
use zeroize::Zeroizing;

use super::aead::Aes256Gcm;
use super::envelope::{
    self, CK_LEN, COMMIT_LABEL, DIGEST_LEN, DIRECT_AAD_CTX_AT, DIRECT_AAD_LEN, DIRECT_IV_AT,
    DIRECT_PREFIX_LEN, DIRECT_RECIPIENT_AT, Flags, HEADER_LEN, Header, IV_LEN, MAX_RECIPIENTS,
    MSG_SALT_LEN, MULTI_AAD_LAST_AT, MULTI_AAD_LEN, MULTI_AAD_RCPT_AT, MULTI_COMMIT_AT,
    MULTI_COUNT_AT, MULTI_ENTRY_LEN, MULTI_PREFIX_LEN, MULTI_SALT_AT, Mode, SIG_LABEL,
    SIGNATURE_LEN, TAG_LEN, WRAP_LABEL,
};
use super::identity::KID_LEN;
use super::identity::{Fingerprint, Identity, Kid, PublicKey};
use super::pairwise::PairKey;
use super::rng;
use super::seq::{SeqExhausted, SeqGen};
use super::signing::SigningIdentity;

/// Records are written to a [`RecordBuf`]; it is the envelope's, and named
/// here too for callers that know it from this module.
pub use super::envelope::RecordBuf;

/// DIRECT records sealed under one `K_pair` before the sealer switches to MULTI.
///
/// A random 96-bit IV is good for 2^32 encryptions under one key. `K_pair`
/// is shared by both directions of a pair and by the legacy
/// [`ChatCrypto`](super::ChatCrypto) path, which counts up to its own
/// [`COMPAT_LIMIT`](super::compat::COMPAT_LIMIT): 2^30 + 2^30 per side, 2^32 for both.
pub const DIRECT_LIMIT: u64 = 1 << 30;
/// Largest plaintext accepted (AES-GCM itself stops at 64 GiB).
pub const MAX_PLAINTEXT_LEN: usize = 1 << 32;

/// Why a record could not be sealed. Nothing is appended to the output buffer
/// when sealing fails.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SealError {
    /// The topic name is longer than the 65535 bytes `ctx_digest` can encode.
    #[error("topic name is {len} bytes; at most 65535 can be sealed to")]
    TopicTooLong {
        /// Topic length in bytes.
        len: usize,
    },
    /// A recipient is the sealer's own key (its records would be reflections).
    #[error("cannot seal to one's own key")]
    SelfRecipient,
    /// A MULTI record needs at least one recipient.
    #[error("a MULTI record needs at least one recipient")]
    NoRecipients,
    /// More than 4096 recipients.
    #[error("{n} recipients; a MULTI record holds at most {MAX_RECIPIENTS}")]
    TooManyRecipients {
        /// Recipients asked for.
        n: usize,
    },
    /// Two recipients share a key id (the same key twice, or a kid collision).
    #[error("recipient key id {kid} appears twice")]
    DuplicateRecipient {
        /// The repeated key id.
        kid: Kid,
    },
    /// The plaintext exceeds [`MAX_PLAINTEXT_LEN`].
    #[error("plaintext of {len} bytes exceeds the {MAX_PLAINTEXT_LEN}-byte limit")]
    PlaintextTooLarge {
        /// Plaintext length.
        len: usize,
    },
    /// The topic's sequence numbers are exhausted.
    #[error(transparent)]
    SeqExhausted(#[from] SeqExhausted),
    /// The signing key is the ECDH identity key; signatures need a separate key.
    #[error("the signing key must be separate from the ECDH identity key")]
    SigningKeyIsIdentityKey,
    /// The operating system's random source failed while seeding (when the
    /// sealer is made, or to reseed in a forked child).
    #[error("the operating system's random number generator failed")]
    Rng,
}

/// What [`Sealer::seal_direct_into`] / [`Sealer::seal_multi_into`] wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sealed {
    /// The mode actually used (DIRECT switches to MULTI past [`DIRECT_LIMIT`]).
    pub mode: Mode,
    /// The record's sequence number.
    pub seq: u64,
    /// Bytes appended to the buffer.
    pub len: usize,
}

/// A peer's cached pairwise key and how many DIRECT records it has sealed,
/// shared by what every topic keeps for DIRECT records to that peer.
struct CachedPair {
    key: PairKey,
    /// Atomic only so the `Arc` is `Send`; the sealer itself is `&mut`.
    direct_seals: AtomicU64,
}

/// Everything a DIRECT record to one peer on one topic needs.
struct DirectPeer {
    recipient: Fingerprint,
    /// The DIRECT `ctx_digest` (it includes the recipient's fingerprint).
    ctx: [u8; DIGEST_LEN],
    pair: Arc<CachedPair>,
}

/// What the sealer keeps per topic: the sequence generator and cached
/// context digests.
struct SealTopic {
    name: Box<str>,
    seq: SeqGen,
    multi_ctx: [u8; DIGEST_LEN],
    /// Recipient → index in `direct`.
    direct_index: FxMap<Fingerprint, usize>,
    direct: Vec<DirectPeer>,
    /// The entry of the last recipient on this topic: a run of records to
    /// one peer finds it with one comparison, no hashing.
    last_direct: Option<usize>,
}

impl SealTopic {
    fn new(topic: &str, own: &Fingerprint) -> Result<Self, SealError> {
        Ok(Self {
            name: topic.into(),
            seq: SeqGen::new(),
            multi_ctx: envelope::ctx_digest(Mode::Multi, topic, own, None)
                .ok_or(SealError::TopicTooLong { len: topic.len() })?,
            direct_index: FxMap::default(),
            direct: Vec::new(),
            last_direct: None,
        })
    }
}

/// The per-topic entries, found by name, with the last one used remembered.
#[derive(Default)]
struct Topics {
    /// Name → index in `entries`.
    index: FxMap<String, usize>,
    entries: Vec<SealTopic>,
    /// The topic of the last record sealed: a run of records to one topic
    /// finds its entry with one comparison, no hashing.
    last: Option<usize>,
}

impl Topics {
    /// The entry of `topic`, created (one allocation) the first time.
    fn get_or_create(
        &mut self,
        topic: &str,
        own: &Fingerprint,
    ) -> Result<&mut SealTopic, SealError> {
        let i = match self.last {
            Some(i) if &*self.entries[i].name == topic => i,
            _ => match self.index.get(topic) {
                Some(&i) => i,
                None => {
                    let entry = SealTopic::new(topic, own)?;
                    self.index.insert(topic.to_owned(), self.entries.len());
                    self.entries.push(entry);
                    self.entries.len() - 1
                }
            },
        };
        self.last = Some(i);
        Ok(&mut self.entries[i])
    }

    fn get(&self, topic: &str) -> Option<&SealTopic> {
        self.index.get(topic).map(|&i| &self.entries[i])
    }
}

/// Seals records from one identity. See the [module docs](self).
pub struct Sealer {
    identity: Identity,
    rng: rng::Csprng,
    signer: Option<SigningIdentity>,
    pad: bool,
    pairs: FxMap<Fingerprint, Arc<CachedPair>>,
    topics: Topics,
    /// Reused across MULTI records to check recipient kids are distinct.
    scratch_kids: Vec<Kid>,
}

impl fmt::Debug for Sealer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sealer")
            .field("identity", &self.identity)
            .field("signed", &self.signer.is_some())
            .field("padded", &self.pad)
            .field("peers", &self.pairs.len())
            .field("topics", &self.topics.entries.len())
            .finish_non_exhaustive()
    }
}

/// The cached pairwise key for `peer`, running ECDH the first time.
fn pair_entry<'a>(
    pairs: &'a mut FxMap<Fingerprint, Arc<CachedPair>>,
    identity: &Identity,
    peer: &PublicKey,
) -> &'a Arc<CachedPair> {
    pairs.entry(*peer.fingerprint()).or_insert_with(|| {
        Arc::new(CachedPair {
            key: PairKey::derive(identity, peer),
            direct_seals: AtomicU64::new(0),
        })
    })
}

/// Appends `plaintext`, and its `0x80 0x00*` Padmé padding if `pad`; returns the
/// offset where it starts.
fn append_plaintext<B: RecordBuf + ?Sized>(
    out: &mut B,
    plaintext: &[u8],
    body_len: usize,
) -> usize {
    let start = out.len();
    out.extend_from_slice(plaintext);
    if body_len > plaintext.len() {
        out.extend_from_slice(&[0x80]);
        out.resize_zeroed(start + body_len);
    }
    start
}

/// The checks of a MULTI record's recipients the sealer makes itself: not
/// one's own key, no key id twice (`scratch` is reused for the sort).
fn check_recipients(
    recipients: &[PublicKey],
    own: &Fingerprint,
    scratch: &mut Vec<Kid>,
) -> Result<(), SealError> {
    if recipients.iter().any(|r| r.fingerprint() == own) {
        return Err(SealError::SelfRecipient);
    }
    scratch.clear();
    scratch.extend(recipients.iter().map(PublicKey::kid));
    scratch.sort_unstable();
    if let Some(w) = scratch.windows(2).find(|w| w[0] == w[1]) {
        return Err(SealError::DuplicateRecipient { kid: w[0] });
    }
    Ok(())
}

/// The MULTI AAD: `bytes[0..70) || rcpt_digest || ctx_digest` (the last
/// digest becomes `SHA-256(payload)` for the key wraps).
fn multi_aad(
    header: &Header,
    msg_salt: &[u8; MSG_SALT_LEN],
    commit: &[u8; DIGEST_LEN],
    recipients: &[PublicKey],
    ctx: &[u8; DIGEST_LEN],
) -> [u8; MULTI_AAD_LEN] {
    let mut aad = [0u8; MULTI_AAD_LEN];
    aad[..HEADER_LEN].copy_from_slice(&header.encode());
    aad[MULTI_SALT_AT..MULTI_COMMIT_AT].copy_from_slice(msg_salt);
    aad[MULTI_COMMIT_AT..MULTI_COUNT_AT].copy_from_slice(commit);
    let n16 = u16::try_from(recipients.len()).expect("n <= 4096 was checked");
    aad[MULTI_COUNT_AT..MULTI_PREFIX_LEN].copy_from_slice(&n16.to_be_bytes());
    let mut rcpt = Sha256::new();
    for r in recipients {
        rcpt.update(r.kid().as_bytes());
    }
    aad[MULTI_AAD_RCPT_AT..MULTI_AAD_LAST_AT].copy_from_slice(&rcpt.finalize());
    aad[MULTI_AAD_LAST_AT..].copy_from_slice(ctx);
    aad
}

/// What wrapping a MULTI record's content key for each recipient needs.
struct WrapKeys<'a> {
    pairs: &'a FxMap<Fingerprint, Arc<CachedPair>>,
    msg_salt: &'a [u8; MSG_SALT_LEN],
    ctx: &'a [u8; DIGEST_LEN],
    ck: &'a [u8; CK_LEN],
    /// The AAD with `SHA-256(payload)` last.
    aad: &'a [u8; MULTI_AAD_LEN],
}

impl WrapKeys<'_> {
    /// Write one entry per recipient into `entries`: its kid and
    /// `AES-GCM(KW_i, 0^12, CK)`.
    fn wrap(&self, recipients: &[PublicKey], entries: &mut [u8]) {
        let zero_iv = [0u8; IV_LEN];
        // HKDF-Extract is HMAC keyed by msg_salt: key it once per record, not
        // once per recipient.
        let salted = HkdfExtract::<Sha256>::new(Some(self.msg_salt));
        for (r, entry) in recipients
            .iter()
            .zip(entries.chunks_exact_mut(MULTI_ENTRY_LEN))
        {
            let pair = self
                .pairs
                .get(r.fingerprint())
                .expect("every recipient's pair key was derived above");
            let mut kw = Zeroizing::new([0u8; CK_LEN]);
            let mut extract = salted.clone();
            extract.input_ikm(pair.key.key());
            let (_, hkdf) = extract.finalize();
            hkdf.expand_multi_info(&[WRAP_LABEL, self.ctx, r.kid().as_bytes()], &mut kw[..])
                .expect("32 bytes is a valid HKDF-SHA256 output length");
            let kw_cipher = Aes256Gcm::new(&kw);
            let (kid, wrap) = entry.split_at_mut(KID_LEN);
            kid.copy_from_slice(r.kid().as_bytes());
            let (wrapped, tag_out) = wrap.split_at_mut(CK_LEN);
            wrapped.copy_from_slice(&self.ck[..]);
            let tag = kw_cipher.seal_in_place(&zero_iv, self.aad, wrapped);
            tag_out.copy_from_slice(&tag);
        }
    }
}

/// Plaintext length once padded (if `pad`), or an error if it is too large.
#[inline]
fn body_len(plaintext: &[u8], pad: bool) -> Result<usize, SealError> {
    let too_large = SealError::PlaintextTooLarge {
        len: plaintext.len(),
    };
    if plaintext.len() > MAX_PLAINTEXT_LEN {
        return Err(too_large);
    }
    if pad {
        envelope::padded_len(plaintext.len()).ok_or(too_large)
    } else {
        Ok(plaintext.len())
    }
}

impl Sealer {
    /// A sealer for `identity`, seeding its CSPRNG from the OS. Records are
    /// padded (Padmé: the broker sees `O(log log n)` bits of a plaintext's
    /// length) and unsigned until [`Sealer::set_padding`] /
    /// [`Sealer::set_signing_identity`] say otherwise.
    ///
    /// # Errors
    /// [`SealError::Rng`].
    pub fn new(identity: Identity) -> Result<Self, SealError> {
        Ok(Self {
            identity,
            rng: rng::seeded().map_err(|_| SealError::Rng)?,
            signer: None,
            pad: true,
            pairs: FxMap::default(),
            topics: Topics::default(),
            scratch_kids: Vec::new(),
        })
    }

    /// The identity records are sealed from.
    pub const fn identity(&self) -> &Identity {
        &self.identity
    }

    /// Pads every following record's plaintext to a Padmé bucket (PADDED flag).
    pub fn set_padding(&mut self, pad: bool) {
        self.pad = pad;
    }

    /// Signs every following record with `signer` (SIGNED flag), or stops signing.
    ///
    /// # Errors
    /// [`SealError::SigningKeyIsIdentityKey`] if `signer` is the ECDH identity's
    /// own key pair.
    pub fn set_signing_identity(
        &mut self,
        signer: Option<SigningIdentity>,
    ) -> Result<(), SealError> {
        if let Some(s) = &signer
            && s.public_key().as_ecdh_key() == self.identity.public_key()
        {
            return Err(SealError::SigningKeyIsIdentityKey);
        }
        self.signer = signer;
        Ok(())
    }

    /// Continues `topic`'s sequence above `last_seq`, a value persisted from an
    /// earlier run ([`Sealer::next_seq`] − 1). Makes the order across restarts
    /// independent of the clock.
    ///
    /// # Errors
    /// [`SealError::TopicTooLong`].
    pub fn resume_topic(&mut self, topic: &str, last_seq: u64) -> Result<(), SealError> {
        let own = self.identity.fingerprint();
        self.topics.get_or_create(topic, own)?.seq = SeqGen::resume_after(last_seq);
        Ok(())
    }

    /// The sequence number the next record on `topic` will carry, if the topic
    /// has been used. To survive restarts independently of the clock, persist
    /// it and pass `next_seq - 1` to [`Sealer::resume_topic`].
    pub fn next_seq(&self, topic: &str) -> Option<u64> {
        self.topics.get(topic).and_then(|t| t.seq.peek())
    }

    /// DIRECT records sealed so far under `K_pair` with `peer`.
    pub fn direct_seals(&self, peer: &Fingerprint) -> u64 {
        self.pairs
            .get(peer)
            .map_or(0, |p| p.direct_seals.load(Ordering::Relaxed))
    }

    /// DIRECT records sealed so far under `K_pair` with `peer`, or `None` if
    /// that key is not cached yet (the next record to `peer` runs an ECDH
    /// first).
    pub fn cached_direct_seals(&self, peer: &Fingerprint) -> Option<u64> {
        self.pairs
            .get(peer)
            .map(|p| p.direct_seals.load(Ordering::Relaxed))
    }

    /// Restores a persisted DIRECT count for `peer` (counts only go up).
    pub fn restore_direct_seals(&mut self, peer: &PublicKey, count: u64) {
        pair_entry(&mut self.pairs, &self.identity, peer)
            .direct_seals
            .fetch_max(count, Ordering::Relaxed);
    }

    /// Forgets a peer's cached pairwise key (it is recomputed if needed again;
    /// its DIRECT count restarts unless restored).
    pub fn forget_peer(&mut self, peer: &Fingerprint) {
        self.pairs.remove(peer);
        for t in &mut self.topics.entries {
            if t.direct_index.remove(peer).is_some() {
                // Rare: rebuild the index rather than keep holes.
                t.direct.retain(|s| s.recipient != *peer);
                t.direct_index = (t.direct.iter().enumerate())
                    .map(|(i, s)| (s.recipient, i))
                    .collect();
                t.last_direct = None;
            }
        }
    }

    /// Seals a DIRECT record to `recipient` on `topic`, appending it to `out`.
    ///
    /// Past [`DIRECT_LIMIT`] records under this `K_pair` it writes a
    /// one-recipient MULTI record instead ([`Sealed::mode`] says which).
    ///
    /// # Errors
    /// [`SealError::TopicTooLong`], [`SealError::SelfRecipient`],
    /// [`SealError::PlaintextTooLarge`], [`SealError::SeqExhausted`] or
    /// [`SealError::Rng`] (a forked child could not reseed); nothing is
    /// appended then.
    pub fn seal_direct_into<B: RecordBuf + ?Sized>(
        &mut self,
        topic: &str,
        recipient: &PublicKey,
        plaintext: &[u8],
        out: &mut B,
    ) -> Result<Sealed, SealError> {
        if recipient == self.identity.public_key() {
            return Err(SealError::SelfRecipient);
        }
        let body_len = body_len(plaintext, self.pad)?;
        let Self {
            identity,
            rng,
            signer,
            pad,
            pairs,
            topics,
            ..
        } = self;
        let own = identity.fingerprint();
        let ts = topics.get_or_create(topic, own)?;
        let fp = recipient.fingerprint();
        let i = match ts.last_direct {
            Some(i) if ts.direct[i].recipient == *fp => i,
            _ => match ts.direct_index.entry(*fp) {
                Entry::Occupied(o) => *o.get(),
                Entry::Vacant(v) => {
                    ts.direct.push(DirectPeer {
                        recipient: *fp,
                        ctx: envelope::ctx_digest(Mode::Direct, topic, own, Some(fp))
                            .ok_or(SealError::TopicTooLong { len: topic.len() })?,
                        pair: Arc::clone(pair_entry(pairs, identity, recipient)),
                    });
                    *v.insert(ts.direct.len() - 1)
                }
            },
        };
        ts.last_direct = Some(i);
        let peer = &ts.direct[i];
        if peer.pair.direct_seals.load(Ordering::Relaxed) >= DIRECT_LIMIT {
            return self.seal_multi_into(topic, std::slice::from_ref(recipient), plaintext, out);
        }
        let ctx = peer.ctx;
        let seq = ts.seq.next_seq()?;

        let header = Header {
            mode: Mode::Direct,
            flags: Flags::new(signer.is_some(), *pad),
            sender: own.kid(),
            seq,
        };
        // bytes[0..40) || ctx_digest, assembled on the stack; the IV is
        // drawn straight into its place.
        let mut aad = [0u8; DIRECT_AAD_LEN];
        aad[..HEADER_LEN].copy_from_slice(&header.encode());
        aad[DIRECT_RECIPIENT_AT..DIRECT_IV_AT].copy_from_slice(recipient.kid().as_bytes());
        rng.fill_bytes(&mut aad[DIRECT_IV_AT..DIRECT_PREFIX_LEN])
            .map_err(|_| SealError::Rng)?;
        aad[DIRECT_AAD_CTX_AT..].copy_from_slice(&ctx);
        let iv: [u8; IV_LEN] = aad[DIRECT_IV_AT..DIRECT_PREFIX_LEN]
            .try_into()
            .expect("the IV is 12 bytes");

        let start = out.len();
        let sig_len = if signer.is_some() { SIGNATURE_LEN } else { 0 };
        out.reserve(DIRECT_PREFIX_LEN + body_len + TAG_LEN + sig_len);
        // Grown once (zeroed: the padding's zeros and the tag's place), then
        // filled in place.
        out.resize_zeroed(start + DIRECT_PREFIX_LEN + body_len + TAG_LEN);
        let record = &mut out.as_bytes_mut()[start..];
        let (prefix, rest) = record.split_at_mut(DIRECT_PREFIX_LEN);
        let (body, tag_out) = rest.split_at_mut(body_len);
        prefix.copy_from_slice(&aad[..DIRECT_PREFIX_LEN]);
        body[..plaintext.len()].copy_from_slice(plaintext);
        if body_len > plaintext.len() {
            body[plaintext.len()] = 0x80;
        }
        let tag = peer.pair.key.cipher().seal_in_place(&iv, &aad, body);
        tag_out.copy_from_slice(&tag);
        if let Some(s) = signer {
            let sig = s.sign_parts(&[SIG_LABEL, &ctx, &out.as_bytes()[start..]]);
            out.extend_from_slice(&sig);
        }
        // `&mut self` is the only writer: a plain load and store, no locked
        // read-modify-write.
        let sealed = peer.pair.direct_seals.load(Ordering::Relaxed);
        peer.pair.direct_seals.store(sealed + 1, Ordering::Relaxed);
        Ok(Sealed {
            mode: Mode::Direct,
            seq,
            len: out.len() - start,
        })
    }

    /// Seals a MULTI record to `recipients` (1..=4096 distinct keys, not one's
    /// own) on `topic`, appending it to `out`. A fresh content key `CK` is drawn
    /// for every record and wrapped once per recipient.
    ///
    /// # Errors
    /// [`SealError::NoRecipients`], [`SealError::TooManyRecipients`],
    /// [`SealError::SelfRecipient`], [`SealError::DuplicateRecipient`],
    /// [`SealError::TopicTooLong`], [`SealError::PlaintextTooLarge`],
    /// [`SealError::SeqExhausted`] or [`SealError::Rng`]; nothing is appended
    /// then.
    pub fn seal_multi_into<B: RecordBuf + ?Sized>(
        &mut self,
        topic: &str,
        recipients: &[PublicKey],
        plaintext: &[u8],
        out: &mut B,
    ) -> Result<Sealed, SealError> {
        let n = recipients.len();
        if n == 0 {
            return Err(SealError::NoRecipients);
        }
        if n > MAX_RECIPIENTS {
            return Err(SealError::TooManyRecipients { n });
        }
        let body_len = body_len(plaintext, self.pad)?;
        let Self {
            identity,
            rng,
            signer,
            pad,
            pairs,
            topics,
            scratch_kids,
        } = self;
        let own = identity.fingerprint();
        check_recipients(recipients, own, scratch_kids)?;
        let ts = topics.get_or_create(topic, own)?;
        let ctx = ts.multi_ctx;
        for r in recipients {
            pair_entry(pairs, identity, r);
        }
        let seq = ts.seq.next_seq()?;

        let mut ck = Zeroizing::new([0u8; CK_LEN]);
        rng.fill_bytes(&mut ck[..]).map_err(|_| SealError::Rng)?;
        let mut msg_salt = [0u8; MSG_SALT_LEN];
        rng.fill_bytes(&mut msg_salt).map_err(|_| SealError::Rng)?;
        let mut commit = <Hmac<Sha256>>::new_from_slice(&ck[..]).expect("HMAC takes any key");
        commit.update(COMMIT_LABEL);
        let commit = commit.finalize().into_bytes();

        let header = Header {
            mode: Mode::Multi,
            flags: Flags::new(signer.is_some(), *pad),
            sender: own.kid(),
            seq,
        };
        let mut aad = multi_aad(&header, &msg_salt, &commit.into(), recipients, &ctx);

        let start = out.len();
        let sig_len = if signer.is_some() { SIGNATURE_LEN } else { 0 };
        out.reserve(MULTI_PREFIX_LEN + n * MULTI_ENTRY_LEN + body_len + TAG_LEN + sig_len);
        out.extend_from_slice(&aad[..MULTI_PREFIX_LEN]);
        let entries_start = out.len();
        out.resize_zeroed(entries_start + n * MULTI_ENTRY_LEN);

        let ck_cipher = Aes256Gcm::new(&ck);
        let zero_iv = [0u8; IV_LEN];
        let pt_start = append_plaintext(out, plaintext, body_len);
        let tag = ck_cipher.seal_in_place(&zero_iv, &aad, &mut out.as_bytes_mut()[pt_start..]);
        out.extend_from_slice(&tag);
        aad[MULTI_AAD_LAST_AT..].copy_from_slice(&Sha256::digest(&out.as_bytes()[pt_start..]));

        let keys = WrapKeys {
            pairs,
            msg_salt: &msg_salt,
            ctx: &ctx,
            ck: &ck,
            aad: &aad,
        };
        keys.wrap(recipients, &mut out.as_bytes_mut()[entries_start..pt_start]);
        if let Some(s) = signer {
            let sig = s.sign_parts(&[SIG_LABEL, &ctx, &out.as_bytes()[start..]]);
            out.extend_from_slice(&sig);
        }
        Ok(Sealed {
            mode: Mode::Multi,
            seq,
            len: out.len() - start,
        })
    }

    /// [`Sealer::seal_direct_into`] into a new `Vec`.
    ///
    /// # Errors
    /// As [`Sealer::seal_direct_into`].
    pub fn seal_direct(
        &mut self,
        topic: &str,
        recipient: &PublicKey,
        plaintext: &[u8],
    ) -> Result<Vec<u8>, SealError> {
        let mut out = Vec::new();
        self.seal_direct_into(topic, recipient, plaintext, &mut out)?;
        Ok(out)
    }

    /// [`Sealer::seal_multi_into`] into a new `Vec`.
    ///
    /// # Errors
    /// As [`Sealer::seal_multi_into`].
    pub fn seal_multi(
        &mut self,
        topic: &str,
        recipients: &[PublicKey],
        plaintext: &[u8],
    ) -> Result<Vec<u8>, SealError> {
        let mut out = Vec::new();
        self.seal_multi_into(topic, recipients, plaintext, &mut out)?;
        Ok(out)
    }
}
