//! Targets in the client's sealing code: envelope open (DIRECT and MULTI),
//! SEALKEY parsing and unlocking, and `ChatCrypto` decrypt.

use std::sync::OnceLock;

use hermit_client::crypto::envelope::Body;
use hermit_client::crypto::{
    ChatCrypto, Header, Identity, KeyFile, OpenedMode, Opener, RecordView, Sealer, SigningIdentity,
};
use p256::pkcs8::EncodePrivateKey;

/// The topic every sealed record of these targets is bound to.
pub const TOPIC: &str = "fuzz.topic";

/// The fixed keys of the crypto targets: the seeds are sealed with them, so
/// they stay openable from one run to the next.
pub struct Keys {
    /// Seals the records.
    pub sender: Identity,
    /// Opens them.
    pub recipient: Identity,
    /// A second MULTI recipient.
    pub other: Identity,
    /// The sender's signing key.
    pub signer: SigningIdentity,
}

fn der_of(scalar: u8) -> Vec<u8> {
    let secret = p256::SecretKey::from_slice(&[scalar; 32]).expect("a scalar below the order");
    secret
        .to_pkcs8_der()
        .expect("a P-256 key encodes as PKCS#8")
        .as_bytes()
        .to_vec()
}

/// The fixed keys (made once per process).
pub fn keys() -> &'static Keys {
    static KEYS: OnceLock<Keys> = OnceLock::new();
    KEYS.get_or_init(|| Keys {
        sender: Identity::from_pkcs8_der(&der_of(1)).expect("fixed key 1"),
        recipient: Identity::from_pkcs8_der(&der_of(2)).expect("fixed key 2"),
        other: Identity::from_pkcs8_der(&der_of(3)).expect("fixed key 3"),
        signer: SigningIdentity::from_pkcs8_der(&der_of(4)).expect("fixed key 4"),
    })
}

/// What the fixed recipient opens with: the sender trusted, with its signing key.
fn opener() -> Opener {
    let k = keys();
    let mut o = Opener::new(k.recipient.clone());
    o.trust_signer(k.sender.public_key(), k.signer.public_key())
        .expect("the sender is not the recipient");
    o
}

/// Seal `plaintext` from the fixed sender: bit 0 of `how` MULTI (to the
/// recipient and one other) else DIRECT, bit 1 padded, bit 2 signed.
pub fn seal(how: u8, plaintext: &[u8]) -> Vec<u8> {
    let k = keys();
    let mut s = Sealer::new(k.sender.clone()).expect("a sealer");
    s.set_padding(how & 2 != 0);
    if how & 4 != 0 {
        s.set_signing_identity(Some(k.signer.clone()))
            .expect("the signing key is not the identity key");
    }
    let sealed = if how & 1 != 0 {
        s.seal_multi(
            TOPIC,
            &[
                k.other.public_key().clone(),
                k.recipient.public_key().clone(),
            ],
            plaintext,
        )
    } else {
        s.seal_direct(TOPIC, k.recipient.public_key(), plaintext)
    };
    sealed.expect("sealing a short plaintext")
}

/// Envelope open, DIRECT and MULTI ([`Opener::open`]) with fixed keys.
///
/// Byte 0 is a mode. Bit 0 clear: the rest is a record, opened as is (the
/// seeds are records sealed to the fixed recipient, so mutations of them
/// reach past the header). Bit 0 set: byte 1 is a plaintext length `n`, the
/// next `n` bytes the plaintext, sealed now (bits 1–3 of the mode: MULTI,
/// padded, signed); the bytes after it are `(position u16, xor u8)` edits
/// applied to the record before it is opened.
///
/// Properties: opening never panics; a record that opens names the trusted
/// sender, has a header that re-encodes to its first 20 bytes and a body
/// that parses with every field inside the record, and its plaintext has
/// the length reported; an unmodified sealed record opens to its plaintext
/// in the mode it was sealed in; and a modified one either fails or opens to
/// the very same plaintext (no edit forges content).
pub fn envelope(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    if mode & 1 == 0 {
        check_open(rest);
        return;
    }
    let Some((&n, rest)) = rest.split_first() else {
        return;
    };
    let n = usize::from(n).min(rest.len());
    let (plaintext, edits) = rest.split_at(n);
    let original = seal(mode >> 1, plaintext);
    let mut record = original.clone();
    for e in edits.chunks_exact(3) {
        let at = usize::from(u16::from_be_bytes([e[0], e[1]]));
        if let Some(b) = record.get_mut(at) {
            *b ^= e[2];
        }
    }
    let opened = check_open(&record);
    if record == original {
        let (mode_seen, got) = opened.expect("an unmodified record from a trusted sender opens");
        assert_eq!(got, plaintext, "an unmodified record opened to other bytes");
        let multi = mode & 2 != 0;
        assert_eq!(
            mode_seen,
            if multi {
                OpenedMode::Multi
            } else {
                OpenedMode::Direct
            }
        );
    } else if let Some((_, got)) = opened {
        assert_eq!(
            got, plaintext,
            "an edited record opened to a forged plaintext"
        );
    }
}

/// Open `record` as the fixed recipient and check what comes back.
fn check_open(record: &[u8]) -> Option<(OpenedMode, Vec<u8>)> {
    let view = RecordView::parse(record);
    if let Ok(h) = Header::parse(record) {
        assert_eq!(h.encode()[..], record[..20], "header does not re-encode");
    }
    if let Ok(v) = &view {
        check_view(record, v);
    }
    let (opened, plaintext) = opener().open(TOPIC, record).ok()?;
    assert_eq!(
        &opened.sender,
        keys().sender.fingerprint(),
        "opened from an untrusted sender"
    );
    assert_eq!(opened.len, plaintext.len());
    if opened.mode != OpenedMode::Legacy {
        let v = view.expect("a sealed record that opens parses");
        assert_eq!(Some(v.header.seq), opened.seq);
        assert_eq!(v.signature.is_some(), opened.signed);
    }
    Some((opened.mode, plaintext))
}

fn inside(record: &[u8], part: &[u8]) {
    let start = part.as_ptr() as usize;
    let base = record.as_ptr() as usize;
    assert!(
        start >= base && start + part.len() <= base + record.len(),
        "a parsed field lies outside the record"
    );
}

fn check_view(record: &[u8], v: &RecordView<'_>) {
    inside(record, v.signed_part);
    if let Some(sig) = v.signature {
        inside(record, sig);
        assert_eq!(v.signed_part.len() + sig.len(), record.len());
    }
    match v.body {
        Body::Direct {
            prefix,
            iv,
            ciphertext,
            tag,
            ..
        } => {
            for part in [&prefix[..], iv, ciphertext, tag] {
                inside(v.signed_part, part);
            }
        }
        Body::Multi {
            prefix,
            msg_salt,
            ck_commit,
            entries,
            payload,
        } => {
            for part in [&prefix[..], msg_salt, ck_commit, entries, payload] {
                inside(v.signed_part, part);
            }
            assert!(
                v.body.entries().len() >= 1,
                "a MULTI record with no recipient parsed"
            );
            for e in v.body.entries() {
                inside(entries, e.wrapped);
            }
        }
    }
}

/// Argon2 memory (KiB), passes and lanes at or below which the `sealkey`
/// target runs the KDF: enough to check unlock, cheap enough for a fuzzer.
const CHEAP_KDF: (u32, u32, u32) = (64, 2, 1);

/// SEALKEY v1 parsing ([`KeyFile::from_bytes`], [`KeyFile::from_armor`]) and,
/// for files whose Argon2 parameters are tiny, unlocking.
///
/// Byte 0 is a mode: bit 0 set reads the rest as armored text, else as the
/// binary file. A file that parses keeps its bytes exactly
/// ([`KeyFile::as_bytes`]), round-trips through its armor, and records the
/// public key it claims; unlocking it (tiny parameters only, through the
/// test door the parser allows for that, with the seeds' password) either
/// fails or yields the identity of that public key.
pub fn sealkey(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let parsed = if mode & 1 == 1 {
        let Ok(text) = std::str::from_utf8(rest) else {
            return;
        };
        KeyFile::from_armor(text)
    } else {
        KeyFile::from_bytes(rest)
    };
    let Ok(file) = parsed else {
        return;
    };
    if mode & 1 == 0 {
        assert_eq!(file.as_bytes(), rest, "the parsed file is not the input");
    }
    let again = KeyFile::from_armor(&file.to_armor()).expect("a file's own armor parses");
    assert_eq!(again.as_bytes(), file.as_bytes());
    assert_eq!(again.public_key(), file.public_key());
    assert_eq!(again.kdf_params(), file.kdf_params());
    let again = KeyFile::from_bytes(file.as_bytes()).expect("a file's own bytes parse");
    assert_eq!(again.public_key(), file.public_key());
    if kdf_is_cheap(&file)
        && let Ok(identity) = file.unlock_insecure_for_tests(SEALKEY_PASSWORD)
    {
        assert_eq!(
            identity.public_key(),
            file.public_key(),
            "unlocked another key"
        );
    }
}

/// The password of the `sealkey` seeds.
pub const SEALKEY_PASSWORD: &[u8] = b"correct horse";

fn kdf_is_cheap(file: &KeyFile) -> bool {
    let p = file.kdf_params();
    p.m_cost_kib() <= CHEAP_KDF.0 && p.t_cost() <= CHEAP_KDF.1 && p.p_cost() <= CHEAP_KDF.2
}

/// `ChatCrypto::decrypt` (the browser article's format) with fixed keys.
///
/// Input: `data` (base64) and `iv` (base64) separated by a NUL byte, as the
/// JSON message carries them; with byte 0 = `0xff` instead, the rest is a
/// plaintext, encrypted now and then decrypted. Properties: decrypt never
/// panics; what it accepts was encrypted under the pair key (the same bytes
/// decrypt for the peer's side of the pair, which derives the same key);
/// what it encrypts, it decrypts to the same bytes.
pub fn chat(data: &[u8]) {
    let k = keys();
    let ours = ChatCrypto::new(&k.recipient, k.sender.public_key()).expect("a ChatCrypto");
    let theirs = ChatCrypto::new(&k.sender, k.recipient.public_key()).expect("a ChatCrypto");
    if let Some((&0xff, plaintext)) = data.split_first() {
        let mut theirs = theirs;
        let m = theirs.encrypt(plaintext).expect("encrypt a short message");
        let got = ours
            .decrypt(&m.data, &m.iv)
            .expect("our own message decrypts");
        assert_eq!(got, plaintext);
        return;
    }
    let (a, b) = match data.iter().position(|&c| c == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    let (Ok(data_b64), Ok(iv_b64)) = (std::str::from_utf8(a), std::str::from_utf8(b)) else {
        return;
    };
    let mine = ours.decrypt(data_b64, iv_b64);
    let peer = theirs.decrypt(data_b64, iv_b64);
    match (&mine, &peer) {
        (Ok(x), Ok(y)) => assert_eq!(x, y, "the two sides of one pair key disagree"),
        (Err(_), Err(_)) => {}
        _ => panic!("one side of the pair accepts what the other refuses"),
    }
    if let Ok(text) = ours.decrypt_to_string(data_b64, iv_b64) {
        assert_eq!(Ok(text.as_bytes()), mine.as_deref());
    }
}
