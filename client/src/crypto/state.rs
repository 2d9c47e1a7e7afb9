//! Sealed state records: what an identity keeps on the broker for itself
//! (a consumer's replay state, a producer's DIRECT reservations), readable by
//! that identity only (`docs/ENVELOPE.md` §13).
//!
//! ```text
//! record    = "HST1" ‖ iv (12) ‖ AES-256-GCM(K_state, iv, AAD, body) (ciphertext ‖ tag 16)
//! K_state   = HKDF-SHA256(salt = none, IKM = K_pair(own, own), info = "hermit-state/v1 key")
//! AAD       = "hermit-state/v1" ‖ u8 len ‖ topic ‖ u8 len ‖ key
//! body      = u32 len ‖ plaintext ‖ 0x00 … to a Padmé bucket of 4 + len
//! ```
//!
//! `K_pair(own, own)` is ECDH of the identity's private key with its own
//! public key: only the identity can compute it, and it is never the key of
//! a DIRECT record to anyone (no peer has the identity's public key as its
//! own). The AAD binds a record to the topic and record key it is stored
//! under, so the broker cannot move one state onto another. The broker sees
//! the record's length (bucketed), when it is written and under which
//! (blinded) key — as much as it sees of a commit.

use hkdf::Hkdf;
use sha2::Sha256;
use zeroize::Zeroizing;

use super::aead::Aes256Gcm;
use super::envelope::padme;
use super::identity::Identity;
use super::rng;

/// The first bytes of every state record.
pub const STATE_MAGIC: &[u8; 4] = b"HST1";
/// Largest plaintext a state record holds.
pub const MAX_STATE_LEN: usize = 1 << 20;
const LABEL: &[u8] = b"hermit-state/v1";
const KEY_INFO: &[u8] = b"hermit-state/v1 key";
const IV_LEN: usize = super::aead::IV_LEN;
const TAG_LEN: usize = super::aead::TAG_LEN;

/// Why a state record could not be sealed or opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StateError {
    /// Not a state record (magic), or too short.
    #[error("not a sealed state record")]
    Malformed,
    /// Authentication failed: another identity's, another topic's or key's
    /// record, or changed bytes.
    #[error("the state record does not authenticate for this identity, topic and key")]
    AuthFailed,
    /// The plaintext is over [`MAX_STATE_LEN`], or its length field lies.
    #[error("state plaintext too long or badly framed")]
    Length,
    /// The topic or key is over 255 bytes.
    #[error("state topic or key over 255 bytes")]
    Name,
    /// The OS random source failed.
    #[error("the OS random source failed")]
    Rng,
}

/// What a sealed-to-self blob is for: its magic, the label of its AAD,
/// the HKDF info of its key and its largest plaintext. Two purposes never
/// share a key, so a blob of one cannot be opened as the other.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Purpose {
    magic: &'static [u8; 4],
    label: &'static [u8],
    key_info: &'static [u8],
    max_len: usize,
}

/// State records kept on the broker (this module's doc).
const BROKER_STATE: Purpose = Purpose {
    magic: STATE_MAGIC,
    label: LABEL,
    key_info: KEY_INFO,
    max_len: MAX_STATE_LEN,
};

/// Files of the MLS layer in the client state directory (docs/MLS.md
/// §5.2): named by (directory, file name), up to 64 MiB (a group of
/// thousands of members).
pub(crate) const MLS_FILE: Purpose = Purpose {
    magic: b"HML1",
    label: b"hermit-mls-state/v1",
    key_info: b"hermit-mls-state/v1 key",
    max_len: 64 << 20,
};

/// The key of `purpose` for `identity`, derived once (one ECDH) for
/// callers that seal many blobs: [`seal_with`], [`open_with`].
pub(crate) struct PurposeKey {
    purpose: Purpose,
    cipher: Aes256Gcm,
}

impl PurposeKey {
    /// Derives the key.
    pub(crate) fn new(identity: &Identity, purpose: Purpose) -> PurposeKey {
        PurposeKey {
            purpose,
            cipher: cipher(identity, purpose),
        }
    }
}

fn cipher(identity: &Identity, purpose: Purpose) -> Aes256Gcm {
    let ikm = identity.pair_key(identity.public_key());
    let hk = Hkdf::<Sha256>::new(None, &ikm[..]);
    let mut key = Zeroizing::new([0u8; 32]);
    hk.expand(purpose.key_info, &mut key[..])
        .expect("32 bytes is a valid HKDF-SHA256 output length");
    Aes256Gcm::new(&key)
}

fn aad(purpose: Purpose, topic: &str, key: &[u8]) -> Result<Vec<u8>, StateError> {
    let (Ok(t), Ok(k)) = (u8::try_from(topic.len()), u8::try_from(key.len())) else {
        return Err(StateError::Name);
    };
    let mut a = Vec::with_capacity(purpose.label.len() + 2 + topic.len() + key.len());
    a.extend_from_slice(purpose.label);
    a.push(t);
    a.extend_from_slice(topic.as_bytes());
    a.push(k);
    a.extend_from_slice(key);
    Ok(a)
}

/// Seal `plaintext` for `identity` itself, to be stored under `key` in `topic`.
///
/// # Errors
/// [`StateError::Length`], [`StateError::Name`], [`StateError::Rng`].
pub fn seal_state(
    identity: &Identity,
    topic: &str,
    key: &[u8],
    plaintext: &[u8],
) -> Result<Vec<u8>, StateError> {
    seal_for(BROKER_STATE, identity, topic, key, plaintext)
}

/// [`seal_state`] for another [`Purpose`].
pub(crate) fn seal_for(
    purpose: Purpose,
    identity: &Identity,
    topic: &str,
    key: &[u8],
    plaintext: &[u8],
) -> Result<Vec<u8>, StateError> {
    seal_with(&PurposeKey::new(identity, purpose), topic, key, plaintext)
}

/// [`seal_for`] with a key derived once.
pub(crate) fn seal_with(
    k: &PurposeKey,
    topic: &str,
    key: &[u8],
    plaintext: &[u8],
) -> Result<Vec<u8>, StateError> {
    let purpose = k.purpose;
    if plaintext.len() > purpose.max_len {
        return Err(StateError::Length);
    }
    let aad = aad(purpose, topic, key)?;
    let body_len = padme(4 + plaintext.len()).ok_or(StateError::Length)?;
    let mut iv = [0u8; IV_LEN];
    rng::seeded()
        .map_err(|_| StateError::Rng)?
        .fill_bytes(&mut iv)
        .map_err(|_| StateError::Rng)?;
    let head = purpose.magic.len() + IV_LEN;
    // Encrypted in place in the output: no unwiped plaintext copy is left.
    let mut out = Vec::with_capacity(head + body_len + TAG_LEN);
    out.extend_from_slice(purpose.magic);
    out.extend_from_slice(&iv);
    out.extend_from_slice(&(plaintext.len() as u32).to_be_bytes());
    out.extend_from_slice(plaintext);
    out.resize(head + body_len, 0);
    let tag = k.cipher.seal_in_place(&iv, &aad, &mut out[head..]);
    out.extend_from_slice(&tag);
    Ok(out)
}

/// Open a record [`seal_state`] made for `identity`, `topic` and `key`.
///
/// # Errors
/// [`StateError::Malformed`], [`StateError::AuthFailed`], [`StateError::Length`],
/// [`StateError::Name`].
pub fn open_state(
    identity: &Identity,
    topic: &str,
    key: &[u8],
    record: &[u8],
) -> Result<Zeroizing<Vec<u8>>, StateError> {
    open_for(BROKER_STATE, identity, topic, key, record)
}

/// [`open_state`] for another [`Purpose`].
pub(crate) fn open_for(
    purpose: Purpose,
    identity: &Identity,
    topic: &str,
    key: &[u8],
    record: &[u8],
) -> Result<Zeroizing<Vec<u8>>, StateError> {
    open_with(&PurposeKey::new(identity, purpose), topic, key, record)
}

/// [`open_for`] with a key derived once.
pub(crate) fn open_with(
    k: &PurposeKey,
    topic: &str,
    key: &[u8],
    record: &[u8],
) -> Result<Zeroizing<Vec<u8>>, StateError> {
    let purpose = k.purpose;
    let head = purpose.magic.len() + IV_LEN;
    if record.len() < head + 4 + TAG_LEN || &record[..4] != purpose.magic {
        return Err(StateError::Malformed);
    }
    if record.len() > head + TAG_LEN + 4 + purpose.max_len + purpose.max_len / 8 {
        return Err(StateError::Length);
    }
    let aad = aad(purpose, topic, key)?;
    let mut iv = [0u8; IV_LEN];
    iv.copy_from_slice(&record[4..head]);
    let (ct, tag) = record[head..].split_at(record.len() - head - TAG_LEN);
    let tag: &[u8; TAG_LEN] = tag.try_into().map_err(|_| StateError::Malformed)?;
    let mut body = Zeroizing::new(vec![0u8; ct.len()]);
    k.cipher
        .open_to(&iv, &aad, ct, tag, &mut body[..])
        .map_err(|_| StateError::AuthFailed)?;
    let len = u32::from_be_bytes([body[0], body[1], body[2], body[3]]) as usize;
    if len > purpose.max_len || 4 + len > body.len() {
        return Err(StateError::Length);
    }
    Ok(Zeroizing::new(body[4..4 + len].to_vec()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_identity_opens_its_state_under_the_same_topic_and_key() {
        let me = Identity::generate().expect("os rng");
        let other = Identity::generate().expect("os rng");
        let r = seal_state(&me, "state.x", b"k1", b"high water 42").expect("seal");
        assert_eq!(&r[..4], STATE_MAGIC);
        assert_eq!(
            &*open_state(&me, "state.x", b"k1", &r).expect("open"),
            b"high water 42"
        );
        assert_eq!(
            open_state(&other, "state.x", b"k1", &r),
            Err(StateError::AuthFailed)
        );
        assert_eq!(
            open_state(&me, "state.y", b"k1", &r),
            Err(StateError::AuthFailed)
        );
        assert_eq!(
            open_state(&me, "state.x", b"k2", &r),
            Err(StateError::AuthFailed)
        );
        for i in 0..r.len() {
            let mut bad = r.clone();
            bad[i] ^= 1;
            assert!(open_state(&me, "state.x", b"k1", &bad).is_err(), "byte {i}");
        }
        assert_eq!(
            open_state(&me, "state.x", b"k1", &r[..20]),
            Err(StateError::Malformed)
        );
    }

    #[test]
    fn an_mls_file_is_not_a_broker_state_record() {
        let me = Identity::generate().expect("os rng");
        let f = seal_for(MLS_FILE, &me, "mls", b"groups/ab", b"x").expect("seal");
        assert_eq!(
            &*open_for(MLS_FILE, &me, "mls", b"groups/ab", &f).expect("open"),
            b"x"
        );
        assert_eq!(
            open_state(&me, "mls", b"groups/ab", &f),
            Err(StateError::Malformed)
        );
        let mut relabelled = f.clone();
        relabelled[..4].copy_from_slice(STATE_MAGIC);
        assert_eq!(
            open_state(&me, "mls", b"groups/ab", &relabelled),
            Err(StateError::AuthFailed),
            "another key"
        );
    }

    #[test]
    fn lengths_are_bucketed() {
        let me = Identity::generate().expect("os rng");
        let a = seal_state(&me, "t", b"k", &[7; 1000]).expect("seal");
        let b = seal_state(&me, "t", b"k", &[7; 1010]).expect("seal");
        assert_eq!(a.len(), b.len(), "1000 and 1010 bytes share a Padmé bucket");
        assert_eq!(
            &*open_state(&me, "t", b"k", &b).expect("open"),
            &[7; 1010][..]
        );
        assert_eq!(
            seal_state(&me, "t", b"k", &vec![0; MAX_STATE_LEN + 1]),
            Err(StateError::Length)
        );
    }
}
