//! Opening sealed records.
//!
//! An [`Opener`] belongs to one identity and knows the senders it trusts. For
//! each record it runs, in order:
//!
//! 1. structure: version, mode, flags, reserved byte, lengths, `n` ([`RecordView`]);
//! 2. sender: refuse one's own key id (a reflection), look the sender up by kid;
//! 3. addressing: a DIRECT record's recipient kid must be one's own; a MULTI
//!    record must hold exactly one entry for it;
//! 4. replay pre-check: a duplicate or too-old `seq` is refused before decrypting;
//! 5. authentication and decryption — DIRECT: AES-GCM under the cached
//!    `K_pair`; MULTI: derive the wrap key, unwrap `CK`, compare `ck_commit` in
//!    constant time, open the payload;
//! 6. the signature trailer, if SIGNED (or its absence, if signatures are required);
//! 7. padding, if PADDED;
//! 8. only then the replay window of (topic, sender) moves, and a skipped range of
//!    sequence numbers is reported as a [`Gap`](super::Gap).
//!
//! Every failure is its own [`OpenError`] variant and nothing is left in the
//! output buffer. Legacy (compatibility) records — the JSON `{"iv", "data"}` of
//! the browser `ChatCrypto` — are refused unless [`Opener::allow_legacy`] is set.

use crate::fxhash::FxMap;
use std::fmt;

use hkdf::Hkdf;
use hmac::{Hmac, KeyInit as _, Mac as _};
use sha2::{Digest as _, Sha256};
use zeroize::{Zeroize as _, Zeroizing};

use super::aead::Aes256Gcm;
use super::compat::{self, CompatMessage};
use super::envelope::{
    self, Body, CK_LEN, COMMIT_LABEL, DIGEST_LEN, DIRECT_AAD_CTX_AT, DIRECT_AAD_LEN,
    DIRECT_PREFIX_LEN, IV_LEN, MULTI_AAD_LAST_AT, MULTI_AAD_LEN, MULTI_AAD_RCPT_AT,
    MULTI_ENTRY_LEN, MULTI_PREFIX_LEN, Mode, RecordBuf, RecordView, SIG_LABEL, TAG_LEN, WRAP_LABEL,
};
use super::identity::{Fingerprint, Identity, KID_LEN, Kid, PublicKey};
use super::pairwise::PairKey;
use super::replay::{Fresh, ReplayWindow, Stale};
use super::signing::SigningPublicKey;

pub use super::opened::{OpenError, Opened, OpenedMode, TrustError, WindowStart};

/// A trusted sender.
struct Peer {
    key: PublicKey,
    pair: PairKey,
    signing: Option<SigningPublicKey>,
}

/// Per (topic, sender): cached context digests and the replay window.
struct Stream {
    /// Whose stream this is (the memo of the last stream checks them).
    topic: Box<str>,
    sender: Fingerprint,
    direct_ctx: [u8; DIGEST_LEN],
    multi_ctx: [u8; DIGEST_LEN],
    window: ReplayWindow,
    /// Restored from a persisted mark and no record accepted since.
    restored: bool,
}

/// Opens records addressed to one identity. See the [module docs](self).
pub struct Opener {
    identity: Identity,
    peers: FxMap<Kid, Peer>,
    /// topic → sender fingerprint → index in `streams`; nested so look-ups
    /// borrow the topic.
    index: FxMap<String, FxMap<Fingerprint, usize>>,
    /// Every (topic, sender) stream; never removed.
    streams: Vec<Stream>,
    /// The stream of the last record opened: a run of records from one sender
    /// on one topic finds its stream with two comparisons, no hashing.
    last: Option<usize>,
    /// topic → the highest `seq` a sender without a window may not reach.
    floors: FxMap<String, u64>,
    allow_legacy: bool,
    require_signatures: bool,
}

impl fmt::Debug for Opener {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Opener")
            .field("identity", &self.identity)
            .field("trusted", &self.peers.len())
            .field("allow_legacy", &self.allow_legacy)
            .field("require_signatures", &self.require_signatures)
            .finish_non_exhaustive()
    }
}

fn stale(seq: u64, s: Stale) -> OpenError {
    match s {
        Stale::Replayed { highest } => OpenError::Replayed { seq, highest },
        Stale::TooOld { highest } => OpenError::TooOld { seq, highest },
    }
}

/// A legacy record is `JSON.stringify({iv, data})`: it starts with `{` (0x7b),
/// which no sealed-record version byte is.
fn is_legacy(record: &[u8]) -> bool {
    record.first() == Some(&b'{')
}

/// Stores `stream` in `streams` (replacing the one of its topic and sender)
/// and indexes it; returns where it is in `streams`.
fn put_stream(
    index: &mut FxMap<String, FxMap<Fingerprint, usize>>,
    streams: &mut Vec<Stream>,
    stream: Stream,
) -> usize {
    let by_sender = match index.get_mut(&*stream.topic) {
        Some(m) => m,
        None => index.entry(stream.topic.to_string()).or_default(),
    };
    match by_sender.entry(stream.sender) {
        std::collections::hash_map::Entry::Occupied(o) => {
            let i = *o.get();
            streams[i] = stream;
            i
        }
        std::collections::hash_map::Entry::Vacant(v) => {
            v.insert(streams.len());
            streams.push(stream);
            streams.len() - 1
        }
    }
}

/// Digests of a (topic, sender, own key) stream.
fn stream_ctx(
    topic: &str,
    sender: &Fingerprint,
    own: &Fingerprint,
) -> Result<([u8; DIGEST_LEN], [u8; DIGEST_LEN]), OpenError> {
    let too_long = OpenError::TopicTooLong { len: topic.len() };
    let direct =
        envelope::ctx_digest(Mode::Direct, topic, sender, Some(own)).ok_or(too_long.clone())?;
    let multi = envelope::ctx_digest(Mode::Multi, topic, sender, None).ok_or(too_long)?;
    Ok((direct, multi))
}

impl Opener {
    /// An opener for records addressed to `identity`, trusting no sender yet,
    /// refusing legacy records and accepting unsigned ones.
    pub fn new(identity: Identity) -> Self {
        Self {
            identity,
            peers: FxMap::default(),
            index: FxMap::default(),
            streams: Vec::new(),
            last: None,
            floors: FxMap::default(),
            allow_legacy: false,
            require_signatures: false,
        }
    }

    /// The identity records are opened for.
    pub const fn identity(&self) -> &Identity {
        &self.identity
    }

    /// Trusts `sender` (runs ECDH once). Trusting a key again is a no-op.
    ///
    /// # Errors
    /// [`TrustError::OwnKey`] or [`TrustError::KidCollision`].
    pub fn trust(&mut self, sender: &PublicKey) -> Result<(), TrustError> {
        self.trust_inner(sender, None)
    }

    /// Trusts `sender` and the separate key it signs records with; its SIGNED
    /// records are then verified (unsigned ones stay acceptable unless
    /// [`Opener::require_signatures`]).
    ///
    /// # Errors
    /// [`TrustError::OwnKey`] or [`TrustError::KidCollision`].
    pub fn trust_signer(
        &mut self,
        sender: &PublicKey,
        signing: &SigningPublicKey,
    ) -> Result<(), TrustError> {
        self.trust_inner(sender, Some(signing.clone()))
    }

    fn trust_inner(
        &mut self,
        sender: &PublicKey,
        signing: Option<SigningPublicKey>,
    ) -> Result<(), TrustError> {
        if sender == self.identity.public_key() {
            return Err(TrustError::OwnKey);
        }
        let kid = sender.kid();
        match self.peers.get_mut(&kid) {
            Some(peer) if &peer.key != sender => Err(TrustError::KidCollision { kid }),
            Some(peer) => {
                if signing.is_some() {
                    peer.signing = signing;
                }
                Ok(())
            }
            None => {
                let pair = PairKey::derive(&self.identity, sender);
                self.peers.insert(
                    kid,
                    Peer {
                        key: sender.clone(),
                        pair,
                        signing,
                    },
                );
                Ok(())
            }
        }
    }

    /// Stops trusting a sender; returns whether it was trusted. Its replay state
    /// is kept, so trusting it again does not reopen old records.
    pub fn distrust(&mut self, sender: &Fingerprint) -> bool {
        let kid = sender.kid();
        if self
            .peers
            .get(&kid)
            .is_some_and(|p| p.key.fingerprint() == sender)
        {
            self.peers.remove(&kid);
            return true;
        }
        false
    }

    /// Accepts legacy `ChatCrypto` records (off by default). They carry no
    /// sender, topic or sequence number: the sender is found by trying every
    /// trusted key, and replays, reorders and reflections go undetected.
    pub fn allow_legacy(&mut self, allow: bool) {
        self.allow_legacy = allow;
    }

    /// Refuses unsigned records (off by default).
    pub fn require_signatures(&mut self, require: bool) {
        self.require_signatures = require;
    }

    /// Highest `seq` accepted from `sender` on `topic`, to persist across restarts.
    pub fn high_water(&self, topic: &str, sender: &Fingerprint) -> Option<u64> {
        self.index
            .get(topic)
            .and_then(|m| m.get(sender))
            .map(|&i| self.streams[i].window.highest())
    }

    /// Restores a persisted high-water mark: every `seq` at or below it from
    /// `sender` on `topic` is then refused (as a replay or as too old).
    ///
    /// # Errors
    /// [`OpenError::TopicTooLong`].
    pub fn restore_high_water(
        &mut self,
        topic: &str,
        sender: &Fingerprint,
        highest: u64,
    ) -> Result<(), OpenError> {
        self.restore_window(topic, sender, ReplayWindow::restored(highest))
    }

    /// Restores a persisted window of `sender` on `topic`: the numbers it
    /// marks seen are refused as replays, the others in it accepted as late.
    ///
    /// # Errors
    /// [`OpenError::TopicTooLong`].
    pub(crate) fn restore_window(
        &mut self,
        topic: &str,
        sender: &Fingerprint,
        window: ReplayWindow,
    ) -> Result<(), OpenError> {
        let (direct_ctx, multi_ctx) = stream_ctx(topic, sender, self.identity.fingerprint())?;
        put_stream(
            &mut self.index,
            &mut self.streams,
            Stream {
                topic: topic.into(),
                sender: *sender,
                direct_ctx,
                multi_ctx,
                window,
                restored: true,
            },
        );
        Ok(())
    }

    /// Restores a floor for `topic`: a record from a sender this opener has
    /// no window for is refused as too old unless its `seq` is above
    /// `floor`. Persisted state that had to forget some senders keeps the
    /// highest of their marks as the floor (sequence numbers start at the
    /// sender's clock, so a sender seen later starts above it unless its
    /// clock is behind by more than the time since).
    pub fn restore_floor(&mut self, topic: &str, floor: u64) {
        let f = self.floors.entry(topic.to_owned()).or_default();
        *f = (*f).max(floor);
    }

    /// The floor restored for `topic` (0 when none).
    pub fn floor(&self, topic: &str) -> u64 {
        self.floors.get(topic).copied().unwrap_or(0)
    }

    /// Opens `record`, read from `topic`, appending the plaintext to `out`.
    ///
    /// # Errors
    /// One [`OpenError`] variant per failed check (see the [module docs](self));
    /// `out` is left as it was.
    pub fn open_into<B: RecordBuf + ?Sized>(
        &mut self,
        topic: &str,
        record: &[u8],
        out: &mut B,
    ) -> Result<Opened, OpenError> {
        let start = out.len();
        let result = if is_legacy(record) {
            self.open_legacy(record, out)
        } else {
            self.open_sealed(topic, record, out, start)
        };
        if result.is_err() {
            out.as_bytes_mut()[start..].zeroize();
            out.truncate(start);
        }
        result
    }

    /// [`Opener::open_into`] into a new `Vec`.
    ///
    /// # Errors
    /// As [`Opener::open_into`].
    pub fn open(&mut self, topic: &str, record: &[u8]) -> Result<(Opened, Vec<u8>), OpenError> {
        let mut out = Vec::new();
        let opened = self.open_into(topic, record, &mut out)?;
        Ok((opened, out))
    }

    fn open_legacy<B: RecordBuf + ?Sized>(
        &self,
        record: &[u8],
        out: &mut B,
    ) -> Result<Opened, OpenError> {
        if !self.allow_legacy {
            return Err(OpenError::LegacyRefused);
        }
        let msg = CompatMessage::from_json(record).map_err(OpenError::LegacyMalformed)?;
        let (nonce, data) =
            compat::decode_parts(&msg.data, &msg.iv).map_err(OpenError::LegacyMalformed)?;
        for peer in self.peers.values() {
            if let Ok(plaintext) = compat::decrypt_parts(peer.pair.cipher(), &nonce, &data) {
                let plaintext = Zeroizing::new(plaintext);
                out.extend_from_slice(&plaintext);
                return Ok(Opened {
                    sender: *peer.key.fingerprint(),
                    mode: OpenedMode::Legacy,
                    seq: None,
                    signed: false,
                    padded: false,
                    gap: None,
                    late: false,
                    window: WindowStart::Unchecked,
                    len: plaintext.len(),
                });
            }
        }
        Err(OpenError::LegacyAuthFailed)
    }

    fn open_sealed<B: RecordBuf + ?Sized>(
        &mut self,
        topic: &str,
        record: &[u8],
        out: &mut B,
        start: usize,
    ) -> Result<Opened, OpenError> {
        let view = RecordView::parse(record)?;
        let header = view.header;
        let own_kid = self.identity.kid();
        if header.sender == own_kid {
            return Err(OpenError::Reflected);
        }
        let Self {
            identity,
            peers,
            index,
            streams,
            last,
            floors,
            require_signatures,
            ..
        } = self;
        let peer = peers
            .get(&header.sender)
            .ok_or(OpenError::UnknownSender { kid: header.sender })?;
        let sender_fp = peer.key.fingerprint();
        // One look-up now (none for a run from one stream); the window moves
        // through the same borrow at the end.
        let at = match *last {
            Some(i) if streams[i].sender == *sender_fp && &*streams[i].topic == topic => Some(i),
            _ => index.get(topic).and_then(|m| m.get(sender_fp)).copied(),
        };
        let stream = at.map(|i| &mut streams[i]);
        let (direct_ctx, multi_ctx) = match &stream {
            Some(s) => (s.direct_ctx, s.multi_ctx),
            None => stream_ctx(topic, sender_fp, identity.fingerprint())?,
        };
        // Addressing before replay: a record for someone else is `NotForMe` /
        // `NotARecipient` whatever its seq, so a consumer can tell it apart.
        let own_entry = own_entry(&view, own_kid)?;
        let window = stream.as_ref().map(|s| &s.window);
        // The floor is looked up only for a sender without a window.
        let floor = window.is_none().then(|| floors.get(topic).copied());
        let fresh = precheck(window, floor.flatten(), header.seq)?;

        let ctx = match view.body {
            Body::Direct {
                prefix,
                iv,
                ciphertext,
                tag,
                ..
            } => {
                let sealed = DirectParts {
                    prefix,
                    iv,
                    ciphertext,
                    tag,
                };
                open_direct(&peer.pair, &sealed, &direct_ctx, out, start)?;
                direct_ctx
            }
            Body::Multi { .. } => {
                let wrapped = own_entry.expect("a MULTI body's own entry was found above");
                open_multi(&peer.pair, &view, wrapped, &multi_ctx, own_kid, out, start)?;
                multi_ctx
            }
        };
        check_signature(&view, peer, &ctx, *require_signatures)?;

        if header.flags.padded() {
            let len =
                envelope::unpadded_len(&out.as_bytes()[start..]).ok_or(OpenError::BadPadding)?;
            out.truncate(start + len);
        }

        // Authenticated: only now may the window move.
        let sender_fp = *sender_fp;
        let window = match stream {
            Some(s) => {
                s.window.accept(header.seq);
                if std::mem::take(&mut s.restored) {
                    WindowStart::Restored
                } else {
                    WindowStart::Continued
                }
            }
            None => {
                let i = put_stream(
                    index,
                    streams,
                    Stream {
                        topic: topic.into(),
                        sender: sender_fp,
                        direct_ctx,
                        multi_ctx,
                        window: ReplayWindow::starting_with(header.seq),
                        restored: false,
                    },
                );
                *last = Some(i);
                WindowStart::New
            }
        };
        if at.is_some() {
            *last = at;
        }
        Ok(opened(&view, sender_fp, fresh, window, out.len() - start))
    }
}

/// The replay pre-check, before decrypting: a `seq` the sender's window
/// has seen or left behind is refused — or, for a sender without a window,
/// one at or below the topic's restored floor.
#[inline]
fn precheck(
    window: Option<&ReplayWindow>,
    floor: Option<u64>,
    seq: u64,
) -> Result<Fresh, OpenError> {
    match (window, floor) {
        (Some(w), _) => w.check(seq).map_err(|e| stale(seq, e)),
        (None, Some(floor)) if seq <= floor => Err(OpenError::TooOld {
            seq,
            highest: floor,
        }),
        (None, _) => Ok(Fresh::Ahead { gap: None }),
    }
}

/// What was learned opening the record `view` from `sender`.
#[inline]
fn opened(
    view: &RecordView<'_>,
    sender: Fingerprint,
    fresh: Fresh,
    window: WindowStart,
    len: usize,
) -> Opened {
    let header = view.header;
    let (gap, late) = match fresh {
        Fresh::Ahead { gap } => (gap, false),
        Fresh::Late => (None, true),
    };
    Opened {
        sender,
        mode: match header.mode {
            Mode::Direct => OpenedMode::Direct,
            Mode::Multi => OpenedMode::Multi,
        },
        seq: Some(header.seq),
        signed: view.signature.is_some(),
        padded: header.flags.padded(),
        gap,
        late,
        window,
        len,
    }
}

/// Our entry of a MULTI record (exactly one), or `None` for a DIRECT
/// record addressed to us; a record for someone else is refused.
#[inline]
fn own_entry<'a>(
    view: &RecordView<'a>,
    own_kid: Kid,
) -> Result<Option<&'a [u8; MULTI_ENTRY_LEN - KID_LEN]>, OpenError> {
    match view.body {
        Body::Direct { recipient, .. } if recipient != own_kid => {
            Err(OpenError::NotForMe { recipient })
        }
        Body::Direct { .. } => Ok(None),
        Body::Multi { .. } => {
            let mut own_entry = None;
            for e in view.body.entries() {
                if e.kid == own_kid && own_entry.replace(e.wrapped).is_some() {
                    return Err(OpenError::DuplicateEntry { kid: own_kid });
                }
            }
            Ok(Some(own_entry.ok_or(OpenError::NotARecipient)?))
        }
    }
}

/// The fields of a DIRECT record its decryption needs.
struct DirectParts<'a> {
    prefix: &'a [u8; DIRECT_PREFIX_LEN],
    iv: &'a [u8; IV_LEN],
    ciphertext: &'a [u8],
    tag: &'a [u8; TAG_LEN],
}

/// Authenticate and decrypt a DIRECT record under `K_pair` into
/// `out[start..]`.
#[inline]
fn open_direct<B: RecordBuf + ?Sized>(
    pair: &PairKey,
    sealed: &DirectParts<'_>,
    direct_ctx: &[u8; DIGEST_LEN],
    out: &mut B,
    start: usize,
) -> Result<(), OpenError> {
    let mut aad = [0u8; DIRECT_AAD_LEN];
    aad[..DIRECT_PREFIX_LEN].copy_from_slice(sealed.prefix);
    aad[DIRECT_AAD_CTX_AT..].copy_from_slice(direct_ctx);
    out.resize_zeroed(start + sealed.ciphertext.len());
    pair.cipher()
        .open_to(
            sealed.iv,
            &aad,
            sealed.ciphertext,
            sealed.tag,
            &mut out.as_bytes_mut()[start..],
        )
        .map_err(|_| OpenError::DirectAuthFailed)
}

/// Unwrap our content key from `wrapped` (our entry), check it against
/// `ck_commit`, and authenticate and decrypt the MULTI payload into
/// `out[start..]`.
fn open_multi<B: RecordBuf + ?Sized>(
    pair: &PairKey,
    view: &RecordView<'_>,
    wrapped: &[u8; MULTI_ENTRY_LEN - KID_LEN],
    multi_ctx: &[u8; DIGEST_LEN],
    own_kid: Kid,
    out: &mut B,
    start: usize,
) -> Result<(), OpenError> {
    let Body::Multi {
        prefix,
        msg_salt,
        ck_commit,
        payload,
        ..
    } = view.body
    else {
        unreachable!("open_multi is called for MULTI records");
    };
    let mut rcpt = Sha256::new();
    for e in view.body.entries() {
        rcpt.update(e.kid.as_bytes());
    }
    // bytes[0..70) || rcpt_digest || SHA-256(payload), then || ctx_digest.
    let mut aad = [0u8; MULTI_AAD_LEN];
    aad[..MULTI_PREFIX_LEN].copy_from_slice(prefix);
    aad[MULTI_AAD_RCPT_AT..MULTI_AAD_LAST_AT].copy_from_slice(&rcpt.finalize());
    aad[MULTI_AAD_LAST_AT..].copy_from_slice(&Sha256::digest(payload));

    let mut kw = Zeroizing::new([0u8; CK_LEN]);
    Hkdf::<Sha256>::new(Some(msg_salt), pair.key())
        .expand_multi_info(&[WRAP_LABEL, multi_ctx, own_kid.as_bytes()], &mut kw[..])
        .expect("32 bytes is a valid HKDF-SHA256 output length");
    let kw_cipher = Aes256Gcm::new(&kw);
    let zero_iv = [0u8; IV_LEN];
    let (wrapped_ck, wrap_tag) = wrapped.split_at(CK_LEN);
    let mut ck = Zeroizing::new([0u8; CK_LEN]);
    let wrap_tag: &[u8; TAG_LEN] = wrap_tag
        .try_into()
        .expect("an entry ends with a 16-byte tag");
    kw_cipher
        .open_to(&zero_iv, &aad, wrapped_ck, wrap_tag, &mut ck[..])
        .map_err(|_| OpenError::WrapAuthFailed)?;

    let mut commit = <Hmac<Sha256>>::new_from_slice(&ck[..]).expect("HMAC takes any key");
    commit.update(COMMIT_LABEL);
    commit
        .verify_slice(ck_commit)
        .map_err(|_| OpenError::CkCommitMismatch)?;

    aad[MULTI_AAD_LAST_AT..].copy_from_slice(multi_ctx);
    let (ct, tag) = payload.split_at(payload.len() - TAG_LEN);
    let tag: &[u8; TAG_LEN] = tag.try_into().expect("the payload ends with a 16-byte tag");
    out.resize_zeroed(start + ct.len());
    Aes256Gcm::new(&ck)
        .open_to(&zero_iv, &aad, ct, tag, &mut out.as_bytes_mut()[start..])
        .map_err(|_| OpenError::PayloadAuthFailed)
}

/// The signature trailer against the sender's signing key (or its absence,
/// when signatures are required).
#[inline]
fn check_signature(
    view: &RecordView<'_>,
    peer: &Peer,
    ctx: &[u8; DIGEST_LEN],
    require_signatures: bool,
) -> Result<(), OpenError> {
    match (view.signature, &peer.signing) {
        (Some(_), None) => Err(OpenError::UnknownSigner {
            kid: view.header.sender,
        }),
        (Some(sig), Some(key)) => {
            if key.verify_parts(&[SIG_LABEL, ctx, view.signed_part], sig) {
                Ok(())
            } else {
                Err(OpenError::SignatureInvalid)
            }
        }
        (None, _) if require_signatures => Err(OpenError::Unsigned),
        (None, _) => Ok(()),
    }
}
