//! An independent model of docs/ENVELOPE.md, written from the document with the
//! primitive crates directly (not the SDK's code), so tests can build records the
//! SDK would never write: a sender that gives members different content keys, a
//! recipient that forges a payload, bad padding, duplicate entries.

#![allow(dead_code)]

use aes_gcm::aead::inout::InOutBuf;
use aes_gcm::{AeadInOut as _, Aes256Gcm, KeyInit as _, Nonce, Tag};
use hermit_client::crypto::{Identity, PublicKey};
use hkdf::Hkdf;
use hmac::{Hmac, Mac as _};
use p256::pkcs8::DecodePrivateKey as _;
use sha2::{Digest as _, Sha256};

pub fn id() -> Identity {
    Identity::generate().expect("os rng")
}

/// `K_pair(own, peer) = SHA-256(ECDH x)`, computed from the exported PKCS#8.
pub fn k_pair(own: &Identity, peer: &PublicKey) -> [u8; 32] {
    let secret = p256::SecretKey::from_pkcs8_der(&own.to_pkcs8_der()).expect("pkcs8");
    let point = p256::PublicKey::from_sec1_bytes(&peer.spki_der()[26..]).expect("point");
    let shared = secret.diffie_hellman(&point);
    Sha256::digest(shared.raw_secret_bytes()).into()
}

pub fn ctx_digest(
    mode: u8,
    topic: &str,
    sender: &PublicKey,
    recipient: Option<&PublicKey>,
) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"sealed-record/v1");
    h.update([mode]);
    h.update(
        u16::try_from(topic.len())
            .expect("short topic")
            .to_be_bytes(),
    );
    h.update(topic.as_bytes());
    h.update(sender.fingerprint().as_bytes());
    if let Some(r) = recipient {
        h.update(r.fingerprint().as_bytes());
    }
    h.finalize().into()
}

pub fn header(mode: u8, flags: u8, sender: &PublicKey, seq: u64) -> Vec<u8> {
    let mut h = vec![0x01, mode, flags, 0x00];
    h.extend_from_slice(sender.kid().as_bytes());
    h.extend_from_slice(&seq.to_be_bytes());
    h
}

pub fn gcm_seal(key: &[u8; 32], nonce: [u8; 12], aad: &[u8], plaintext: &[u8]) -> Vec<u8> {
    let cipher = Aes256Gcm::new_from_slice(key).expect("32-byte key");
    let mut buf = plaintext.to_vec();
    let tag = cipher
        .encrypt_inout_detached(&Nonce::from(nonce), aad, InOutBuf::from(buf.as_mut_slice()))
        .expect("encrypt");
    buf.extend_from_slice(&tag);
    buf
}

pub fn gcm_open(key: &[u8; 32], nonce: [u8; 12], aad: &[u8], sealed: &[u8]) -> Option<Vec<u8>> {
    let cipher = Aes256Gcm::new_from_slice(key).expect("32-byte key");
    let (ct, tag) = sealed.split_at(sealed.len().checked_sub(16)?);
    let mut buf = ct.to_vec();
    cipher
        .decrypt_inout_detached(
            &Nonce::from(nonce),
            aad,
            InOutBuf::from(buf.as_mut_slice()),
            &Tag::try_from(tag).ok()?,
        )
        .ok()?;
    Some(buf)
}

/// A DIRECT record; `body` is the (already padded, if `flags` says so) plaintext.
pub fn direct(
    sender: &Identity,
    recipient: &PublicKey,
    topic: &str,
    seq: u64,
    flags: u8,
    iv: [u8; 12],
    body: &[u8],
) -> Vec<u8> {
    let mut rec = header(0x01, flags, sender.public_key(), seq);
    rec.extend_from_slice(recipient.kid().as_bytes());
    rec.extend_from_slice(&iv);
    let mut aad = rec.clone();
    aad.extend_from_slice(&ctx_digest(
        0x01,
        topic,
        sender.public_key(),
        Some(recipient),
    ));
    let sealed = gcm_seal(&k_pair(sender, recipient), iv, &aad, body);
    rec.extend_from_slice(&sealed);
    rec
}

/// How a model MULTI record is (mis)built.
pub struct MultiSpec<'a> {
    pub sender: &'a Identity,
    pub topic: &'a str,
    pub seq: u64,
    pub flags: u8,
    /// Entry order as written; the same key may appear twice.
    pub recipients: Vec<PublicKey>,
    /// The CK each recipient's entry wraps.
    pub wrap_cks: Vec<[u8; 32]>,
    /// The CK `ck_commit` commits to.
    pub commit_ck: [u8; 32],
    /// The CK the payload is encrypted under.
    pub payload_ck: [u8; 32],
    pub msg_salt: [u8; 16],
    /// Plaintext as encrypted (already padded if `flags` says so).
    pub body: Vec<u8>,
}

pub fn hmac_commit(ck: &[u8; 32]) -> [u8; 32] {
    let mut m = <Hmac<Sha256> as hmac::KeyInit>::new_from_slice(ck).expect("any key");
    m.update(b"sealed-record/v1 ck-commit");
    m.finalize().into_bytes().into()
}

pub fn wrap_key(k_pair: &[u8; 32], msg_salt: &[u8; 16], ctx: &[u8; 32], kid: &[u8; 8]) -> [u8; 32] {
    let mut kw = [0u8; 32];
    Hkdf::<Sha256>::new(Some(msg_salt), k_pair)
        .expand_multi_info(&[b"sealed-record/v1 wrap", ctx, kid], &mut kw)
        .expect("32 bytes");
    kw
}

impl MultiSpec<'_> {
    pub fn honest<'a>(
        sender: &'a Identity,
        topic: &'a str,
        seq: u64,
        recipients: &[PublicKey],
        body: &[u8],
    ) -> MultiSpec<'a> {
        let ck = [7u8; 32];
        MultiSpec {
            sender,
            topic,
            seq,
            flags: 0,
            recipients: recipients.to_vec(),
            wrap_cks: vec![ck; recipients.len()],
            commit_ck: ck,
            payload_ck: ck,
            msg_salt: [9u8; 16],
            body: body.to_vec(),
        }
    }

    pub fn build(&self) -> Vec<u8> {
        let n = self.recipients.len();
        let mut rec = header(0x02, self.flags, self.sender.public_key(), self.seq);
        rec.extend_from_slice(&self.msg_salt);
        rec.extend_from_slice(&hmac_commit(&self.commit_ck));
        rec.extend_from_slice(&u16::try_from(n).expect("n fits").to_be_bytes());
        let prefix = rec.clone();
        let mut rcpt = Sha256::new();
        for r in &self.recipients {
            rcpt.update(r.kid().as_bytes());
        }
        let rcpt: [u8; 32] = rcpt.finalize().into();
        let ctx = ctx_digest(0x02, self.topic, self.sender.public_key(), None);
        let payload = gcm_seal(
            &self.payload_ck,
            [0; 12],
            &[&prefix[..], &rcpt, &ctx].concat(),
            &self.body,
        );
        let payload_hash: [u8; 32] = Sha256::digest(&payload).into();
        let wrap_aad = [&prefix[..], &rcpt, &payload_hash].concat();
        for (r, ck) in self.recipients.iter().zip(&self.wrap_cks) {
            let kw = wrap_key(
                &k_pair(self.sender, r),
                &self.msg_salt,
                &ctx,
                r.kid().as_bytes(),
            );
            rec.extend_from_slice(r.kid().as_bytes());
            rec.extend_from_slice(&gcm_seal(&kw, [0; 12], &wrap_aad, ck));
        }
        rec.extend_from_slice(&payload);
        rec
    }
}

/// What a MULTI recipient learns: CK, by unwrapping its own entry of `record`.
pub fn unwrap_ck(me: &Identity, sender: &PublicKey, topic: &str, record: &[u8]) -> [u8; 32] {
    let n = usize::from(u16::from_be_bytes([record[68], record[69]]));
    let prefix = &record[..70];
    let entries = &record[70..70 + 56 * n];
    let payload = &record[70 + 56 * n..];
    let mut rcpt = Sha256::new();
    for e in entries.chunks(56) {
        rcpt.update(&e[..8]);
    }
    let rcpt: [u8; 32] = rcpt.finalize().into();
    let salt: [u8; 16] = record[20..36].try_into().expect("salt");
    let ctx = ctx_digest(0x02, topic, sender, None);
    let payload_hash: [u8; 32] = Sha256::digest(payload).into();
    let mine = entries
        .chunks(56)
        .find(|e| e[..8] == me.kid().as_bytes()[..])
        .expect("an entry for me");
    let kw = wrap_key(&k_pair(me, sender), &salt, &ctx, me.kid().as_bytes());
    gcm_open(
        &kw,
        [0; 12],
        &[prefix, &rcpt, &payload_hash].concat(),
        &mine[8..],
    )
    .expect("my entry unwraps")
    .try_into()
    .expect("CK is 32 bytes")
}
