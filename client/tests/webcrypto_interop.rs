//! Interoperability with the real Web Crypto API (`crypto.subtle` in Node 18+).
//!
//! The JS side is the JavaScript SDK itself (`js/src/`, Web Crypto plus
//! hash-wasm's Argon2id for SEALKEY); `tests/js/interop.mjs` is a thin driver
//! over it. Each call runs `node` once with a JSON request on stdin and reads a
//! JSON response on stdout, so these tests prove the two SDKs byte-compatible
//! in both directions: keys, `ChatCrypto`, sealed records (DIRECT, MULTI,
//! padded, signed, replay and gaps), blinded keys, `Authenticate` signatures
//! and SEALKEY files.
//!
//! These tests fail — they do not skip — when `node` is missing: interoperability
//! is a requirement, not an optional extra.

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use hermit_client::crypto::{
    BlindingKey, ChatCrypto, Gap, Header, Identity, KdfParams, KeyFile, KeyFileError, OpenError,
    OpenedMode, Opener, PublicKey, Sealer, SigningIdentity, SigningPublicKey,
};
use serde_json::{Value, json};

const TOPIC: &str = "chat.room-7";

/// Runs `tests/js/interop.mjs` with `request` on stdin and returns its JSON reply.
fn node(request: &Value) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/js/interop.mjs");
    let mut child = Command::new("node")
        .arg(&script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!("the Web Crypto interop tests need Node.js 18+ as `node` on PATH: {e}")
        });
    let input = serde_json::to_vec(request).expect("serialize request");
    child
        .stdin
        .take()
        .expect("piped stdin")
        .write_all(&input)
        .expect("write request to node");
    let out = child.wait_with_output().expect("wait for node");
    assert!(
        out.status.success(),
        "node {} failed ({}):\n{}",
        script.display(),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("node replies with JSON")
}

fn b64(bytes: &[u8]) -> String {
    B64.encode(bytes)
}

fn unb64(v: &Value) -> Vec<u8> {
    B64.decode(v.as_str().expect("a base64 string"))
        .expect("valid base64")
}

/// The text plaintexts every test runs: empty, multi-byte UTF-8, BOM-first, 64 KiB.
fn texts() -> Vec<String> {
    let mut big = String::with_capacity(64 * 1024);
    for c in "héllo → 世界 ".chars().cycle() {
        if big.len() + c.len_utf8() > 64 * 1024 {
            break;
        }
        big.push(c);
    }
    while big.len() < 64 * 1024 {
        big.push('.');
    }
    assert_eq!(big.len(), 64 * 1024);
    vec![
        String::new(),
        "Grüße, 世界! 🔐 ← ünïcødé".to_owned(),
        "\u{feff}BOM must survive".to_owned(),
        big,
    ]
}

/// Byte plaintexts for sealed records: the texts plus 64 KiB of non-UTF-8 bytes.
fn plaintexts() -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = texts().into_iter().map(String::into_bytes).collect();
    v.push((0..64 * 1024).map(|i| (i * 7 + 3) as u8).collect());
    v
}

fn js_keys(count: usize, alg: &str) -> Vec<(String, String)> {
    node(&json!({"op": "keygen", "count": count, "alg": alg}))
        .as_array()
        .expect("array")
        .iter()
        .map(|k| {
            (
                k["pkcs8"].as_str().expect("pkcs8").to_owned(),
                k["spki"].as_str().expect("spki").to_owned(),
            )
        })
        .collect()
}

#[test]
fn js_generated_keys_import_into_rust_byte_identically() {
    for (pkcs8, spki) in js_keys(8, "ECDH") {
        let id = Identity::from_pkcs8_base64(&pkcs8).expect("Rust imports JS PKCS#8");
        assert_eq!(unb64(&json!(pkcs8)).len(), 138);
        assert_eq!(unb64(&json!(spki)).len(), 91);
        assert_eq!(
            *id.to_pkcs8_base64(),
            pkcs8,
            "PKCS#8 re-export is byte-identical"
        );
        let public = PublicKey::from_spki_base64(&spki).expect("Rust imports JS SPKI");
        assert_eq!(
            public.to_spki_base64(),
            spki,
            "SPKI re-export is byte-identical"
        );
        assert_eq!(id.public_key(), &public);
    }
    for (pkcs8, spki) in js_keys(3, "ECDSA") {
        let signer = SigningIdentity::from_pkcs8_base64(&pkcs8).expect("ECDSA PKCS#8");
        assert_eq!(*signer.to_pkcs8_base64(), pkcs8);
        let public = SigningPublicKey::from_spki_base64(&spki).expect("ECDSA SPKI");
        assert_eq!(public.to_spki_base64(), spki);
        assert_eq!(signer.public_key(), &public);
    }
}

#[test]
fn rust_generated_keys_import_into_js_byte_identically() {
    let ids: Vec<Identity> = (0..8).map(|_| Identity::generate().expect("rng")).collect();
    let keys: Vec<Value> = ids
        .iter()
        .map(|id| json!({"pkcs8": *id.to_pkcs8_base64(), "spki": id.public_key().to_spki_base64()}))
        .collect();
    let back = node(&json!({"op": "reexport", "alg": "ECDH", "keys": keys}));
    assert_eq!(
        back,
        Value::Array(keys),
        "JS re-exports Rust keys byte-identically"
    );

    let signers: Vec<SigningIdentity> = (0..3)
        .map(|_| SigningIdentity::generate().expect("rng"))
        .collect();
    let keys: Vec<Value> = signers
        .iter()
        .map(|s| json!({"pkcs8": *s.to_pkcs8_base64(), "spki": s.public_key().to_spki_base64()}))
        .collect();
    let back = node(&json!({"op": "reexport", "alg": "ECDSA", "keys": keys}));
    assert_eq!(back, Value::Array(keys));
}

#[test]
fn chat_crypto_js_encrypts_rust_decrypts() {
    let (js_pkcs8, js_spki) = js_keys(1, "ECDH").remove(0);
    let rust = Identity::generate().expect("rng");
    let texts = texts();
    let messages = node(&json!({
        "op": "chat_encrypt",
        "my_pkcs8": js_pkcs8,
        "their_spki": rust.public_key().to_spki_base64(),
        "texts": texts,
    }));
    let js_public = PublicKey::from_spki_base64(&js_spki).expect("spki");
    let chat = ChatCrypto::new(&rust, &js_public).expect("rng");
    let messages = messages.as_array().expect("array");
    assert_eq!(messages.len(), texts.len());
    for (m, text) in messages.iter().zip(&texts) {
        let (iv, data) = (
            m["iv"].as_str().expect("iv"),
            m["data"].as_str().expect("data"),
        );
        assert_eq!(B64.decode(iv).expect("iv").len(), 12);
        let got = chat.decrypt_to_string(data, iv).expect("Rust decrypts JS");
        assert_eq!(&got, text);
    }
    assert!(
        chat.decrypt_to_string(
            messages[2]["data"].as_str().expect("data"),
            messages[2]["iv"].as_str().expect("iv")
        )
        .expect("decrypt")
        .starts_with('\u{feff}'),
        "the BOM survives"
    );
}

#[test]
fn chat_crypto_rust_encrypts_js_decrypts() {
    let (js_pkcs8, js_spki) = js_keys(1, "ECDH").remove(0);
    let rust = Identity::generate().expect("rng");
    let js_public = PublicKey::from_spki_base64(&js_spki).expect("spki");
    let mut chat = ChatCrypto::new(&rust, &js_public).expect("rng");
    let texts = texts();
    let messages: Vec<Value> = texts
        .iter()
        .map(|t| {
            let m = chat.encrypt_str(t).expect("within budget");
            json!({"iv": m.iv, "data": m.data})
        })
        .collect();
    let decrypted = node(&json!({
        "op": "chat_decrypt",
        "my_pkcs8": js_pkcs8,
        "their_spki": rust.public_key().to_spki_base64(),
        "messages": messages,
    }));
    assert_eq!(decrypted, json!(texts), "JS decrypts Rust, BOM and all");
}

struct Sides {
    sender: Identity,
    recipients: Vec<Identity>,
}

fn sides(n: usize) -> Sides {
    Sides {
        sender: Identity::generate().expect("rng"),
        recipients: (0..n).map(|_| Identity::generate().expect("rng")).collect(),
    }
}

fn public_keys(ids: &[Identity]) -> Vec<PublicKey> {
    ids.iter().map(|i| i.public_key().clone()).collect()
}

/// Rust seals (`multi`: to every recipient; else DIRECT to the first), every
/// recipient opens in JS.
fn rust_seals_js_opens(n: usize, multi: bool, padded: bool, signed: bool) {
    let s = sides(n);
    let mut sealer = Sealer::new(s.sender.clone()).expect("rng");
    sealer.set_padding(padded);
    let signer = SigningIdentity::generate().expect("rng");
    if signed {
        sealer
            .set_signing_identity(Some(signer.clone()))
            .expect("separate key");
    }
    let keys = public_keys(&s.recipients);
    let pts = plaintexts();
    let records: Vec<String> = pts
        .iter()
        .map(|pt| {
            let r = if multi {
                sealer.seal_multi(TOPIC, &keys, pt)
            } else {
                sealer.seal_direct(TOPIC, &keys[0], pt)
            };
            b64(&r.expect("seal"))
        })
        .collect();
    let readers = if multi {
        &s.recipients[..]
    } else {
        &s.recipients[..1]
    };
    for me in readers {
        let mut request = json!({
            "op": "open",
            "me_pkcs8": *me.to_pkcs8_base64(),
            "sender_spki": s.sender.public_key().to_spki_base64(),
            "topic": TOPIC,
            "records": records,
        });
        if signed {
            request["verifier_spki"] = json!(signer.public_key().to_spki_base64());
        }
        if signed {
            request["require_signatures"] = json!(true);
        }
        let opened = node(&request);
        let opened = opened.as_array().expect("array");
        for ((o, pt), record) in opened.iter().zip(&pts).zip(&records) {
            assert!(o.get("err").is_none(), "JS failed to open: {o}");
            assert_eq!(&unb64(&o["ok"]), pt);
            let header = Header::parse(&unb64(&json!(record))).expect("header");
            assert_eq!(o["seq"], json!(header.seq.to_string()));
            assert_eq!(o["mode"], json!(if multi { "multi" } else { "direct" }));
            assert_eq!(o["padded"], json!(padded));
            assert_eq!(o["signed"], json!(signed));
            assert!(o.get("gap").is_none(), "consecutive records: {o}");
        }
        assert_eq!(opened.len(), pts.len());
    }
    // JS refuses what Rust would refuse: another topic, a flipped byte.
    let mut flipped = B64.decode(&records[1]).expect("b64");
    flipped[30] ^= 1;
    let refused = node(&json!({
        "op": "open",
        "me_pkcs8": *s.recipients[0].to_pkcs8_base64(),
        "sender_spki": s.sender.public_key().to_spki_base64(),
        "verifier_spki": signer.public_key().to_spki_base64(),
        "topic": "another.topic",
        "records": [records[1], b64(&flipped)],
    }));
    // Byte 30 is in a DIRECT record's IV and in a MULTI record's msg_salt; a
    // moved topic changes ctx_digest: the first AEAD to run refuses both.
    let auth_failed = if multi {
        "WrapAuthFailed"
    } else {
        "DirectAuthFailed"
    };
    assert_eq!(
        refused[0]["kind"],
        json!(auth_failed),
        "moved topic: {refused}"
    );
    assert_eq!(
        refused[1]["kind"],
        json!(auth_failed),
        "flipped byte: {refused}"
    );
}

/// JS seals, Rust opens (with replay protection, in order).
fn js_seals_rust_opens(n: usize, multi: bool, padded: bool, signed: bool) {
    let s = sides(n);
    let signer = SigningIdentity::generate().expect("rng");
    let pts = plaintexts();
    // Far in the future (year 2096), so `resumeTopic` (which never goes below
    // the clock) starts exactly here.
    let base = 4_000_000_000_000u64 << 16;
    let items: Vec<Value> = pts
        .iter()
        .enumerate()
        .map(|(i, pt)| json!({"seq": (base + i as u64).to_string(), "plaintext": b64(pt)}))
        .collect();
    let mut request = json!({
        "op": "seal",
        "mode": if multi { "multi" } else { "direct" },
        "sender_pkcs8": *s.sender.to_pkcs8_base64(),
        "recipients": s.recipients.iter().map(|r| r.public_key().to_spki_base64()).collect::<Vec<_>>(),
        "topic": TOPIC,
        "padded": padded,
        "items": items,
    });
    if signed {
        request["signer_pkcs8"] = json!(*signer.to_pkcs8_base64());
    }
    let records = node(&request);
    let records = records.as_array().expect("array");
    assert_eq!(records.len(), pts.len());
    let readers = if multi {
        &s.recipients[..]
    } else {
        &s.recipients[..1]
    };
    for me in readers {
        let mut opener = Opener::new(me.clone());
        if signed {
            opener
                .trust_signer(s.sender.public_key(), signer.public_key())
                .expect("trust");
            opener.require_signatures(true);
        } else {
            opener.trust(s.sender.public_key()).expect("trust");
        }
        for (i, (sealed, pt)) in records.iter().zip(&pts).enumerate() {
            assert_eq!(sealed["seq"], json!((base + i as u64).to_string()));
            assert_eq!(
                sealed["mode"],
                json!(if multi { "multi" } else { "direct" })
            );
            let record = unb64(&sealed["record"]);
            let (opened, got) = opener.open(TOPIC, &record).expect("Rust opens JS");
            assert_eq!(&got, pt);
            assert_eq!(opened.seq, Some(base + i as u64));
            assert_eq!(
                opened.mode,
                if multi {
                    OpenedMode::Multi
                } else {
                    OpenedMode::Direct
                }
            );
            assert_eq!((opened.padded, opened.signed), (padded, signed));
            assert_eq!(opened.gap, None);
        }
        let first = unb64(&records[0]["record"]);
        assert!(
            matches!(opener.open(TOPIC, &first), Err(OpenError::Replayed { .. })),
            "a JS record opens once"
        );
    }
}

#[test]
fn sealed_direct_rust_to_js() {
    rust_seals_js_opens(1, false, false, false);
    rust_seals_js_opens(1, false, true, true);
}

#[test]
fn sealed_multi_rust_to_js() {
    rust_seals_js_opens(1, true, false, false);
    rust_seals_js_opens(3, true, false, false);
    rust_seals_js_opens(3, true, true, true);
}

#[test]
fn sealed_direct_js_to_rust() {
    js_seals_rust_opens(1, false, false, false);
    js_seals_rust_opens(1, false, true, true);
}

#[test]
fn sealed_multi_js_to_rust() {
    js_seals_rust_opens(1, true, false, false);
    js_seals_rust_opens(3, true, false, false);
    js_seals_rust_opens(3, true, true, true);
}

/// The JS opener's replay window and gap reports behave as Rust's: a skipped
/// record is a gap, its late arrival fills it, a duplicate is refused.
#[test]
fn js_opener_reports_gaps_late_records_and_replays() {
    let s = sides(1);
    let mut sealer = Sealer::new(s.sender.clone()).expect("rng");
    let records: Vec<Vec<u8>> = (0..5u8)
        .map(|i| {
            sealer
                .seal_direct(TOPIC, s.recipients[0].public_key(), &[i])
                .expect("seal")
        })
        .collect();
    let seq = |i: usize| Header::parse(&records[i]).expect("header").seq;
    let order = [0, 1, 3, 1, 2, 4];
    let opened = node(&json!({
        "op": "open",
        "me_pkcs8": *s.recipients[0].to_pkcs8_base64(),
        "sender_spki": s.sender.public_key().to_spki_base64(),
        "topic": TOPIC,
        "records": order.iter().map(|&i| b64(&records[i])).collect::<Vec<_>>(),
    }));
    let o = opened.as_array().expect("array");
    assert_eq!(o.len(), order.len());
    for k in [0usize, 1, 2, 4, 5] {
        let i = order[k];
        assert_eq!(unb64(&o[k]["ok"]), vec![i as u8], "record {i}: {}", o[k]);
        assert_eq!(o[k]["seq"], json!(seq(i).to_string()));
    }
    let gap = Gap {
        first: seq(2),
        last: seq(2),
    };
    assert_eq!(
        o[2]["gap"],
        json!([gap.first.to_string(), gap.last.to_string()]),
        "skipping record 2 is a gap: {}",
        o[2]
    );
    assert_eq!(o[3]["kind"], json!("Replayed"), "{}", o[3]);
    assert_eq!(o[4]["late"], json!(true), "record 2 arrives late: {}", o[4]);
    assert!(o[4].get("gap").is_none());
    assert_eq!(o[5]["late"], json!(false));
    assert!(
        o[5].get("gap").is_none(),
        "nothing is missing any more: {}",
        o[5]
    );
}

/// A legacy `ChatCrypto` record from Rust opens in the JS opener only when
/// legacy records are allowed.
#[test]
fn js_opener_takes_legacy_records_only_when_allowed() {
    let s = sides(1);
    let me = &s.recipients[0];
    let mut chat = ChatCrypto::new(&s.sender, me.public_key()).expect("rng");
    let record = chat
        .encrypt(b"old browser code")
        .expect("within budget")
        .to_json();
    let request = |allow: bool| {
        json!({
            "op": "open",
            "me_pkcs8": *me.to_pkcs8_base64(),
            "sender_spki": s.sender.public_key().to_spki_base64(),
            "topic": TOPIC,
            "allow_legacy": allow,
            "records": [b64(record.as_bytes())],
        })
    };
    let refused = node(&request(false));
    assert_eq!(refused[0]["kind"], json!("LegacyRefused"), "{refused}");
    let opened = node(&request(true));
    assert_eq!(unb64(&opened[0]["ok"]), b"old browser code", "{opened}");
    assert_eq!(opened[0]["mode"], json!("legacy"));
    assert_eq!(opened[0]["seq"], Value::Null);
}

/// Blinded record keys are the same bytes in both SDKs, pairwise and group.
#[test]
fn blinded_keys_are_byte_identical() {
    let a = Identity::generate().expect("rng");
    let b = Identity::generate().expect("rng");
    let keys: Vec<Vec<u8>> = vec![Vec::new(), b"order-17".to_vec(), vec![0xff; 300]];
    let rust = BlindingKey::pairwise(&a, b.public_key());
    let js = node(&json!({
        "op": "blind",
        "me_pkcs8": *b.to_pkcs8_base64(),
        "peer_spki": a.public_key().to_spki_base64(),
        "keys": keys.iter().map(|k| b64(k)).collect::<Vec<_>>(),
    }));
    let want: Vec<Value> = keys.iter().map(|k| json!(b64(&rust.blind(k).0))).collect();
    assert_eq!(js, Value::Array(want), "pairwise blinded keys");

    let group = BlindingKey::from_group_secret([7u8; 32]);
    let js = node(&json!({
        "op": "blind",
        "me_pkcs8": *b.to_pkcs8_base64(),
        "group_secret": b64(&[7u8; 32]),
        "keys": keys.iter().map(|k| b64(k)).collect::<Vec<_>>(),
    }));
    let want: Vec<Value> = keys.iter().map(|k| json!(b64(&group.blind(k).0))).collect();
    assert_eq!(js, Value::Array(want), "group blinded keys");
}

/// `Identity.signAuthBound` signs exactly `protocol/src/auth.rs`'s
/// mechanism-2 transcript with the identity's scalar: Rust's p256 verifies
/// it, and only for that nonce, name and channel binding.
#[test]
fn js_auth_signature_verifies_in_rust() {
    use p256::ecdsa::signature::Verifier as _;
    use p256::pkcs8::DecodePublicKey as _;

    let id = Identity::generate().expect("rng");
    let nonce = [0x5au8; 32];
    let broker_id = [0x11u8; 16];
    let binding = [0x77u8; 32];
    let out = node(&json!({
        "op": "sign_auth",
        "pkcs8": *id.to_pkcs8_base64(),
        "nonce": b64(&nonce),
        "broker_id": b64(&broker_id),
        "name": "broker.example",
        "binding": b64(&binding),
    }));
    let spki = unb64(&out["spki"]);
    assert_eq!(&spki[..], &id.public_key().spki_der()[..]);
    let sig = p256::ecdsa::Signature::from_slice(&unb64(&out["sig"])).expect("64-byte r||s");
    let key = p256::ecdsa::VerifyingKey::from_public_key_der(&spki).expect("spki");
    let t = |nonce: &[u8; 32], name: &[u8], binding: &[u8]| {
        hermit_protocol::auth::transcript_bound(nonce, &broker_id, name, binding, &spki)
    };
    key.verify(&t(&nonce, b"broker.example", &binding), &sig)
        .expect("Rust verifies the JS auth signature");
    assert!(
        key.verify(&t(&[0u8; 32], b"broker.example", &binding), &sig)
            .is_err(),
        "bound to the nonce"
    );
    assert!(
        key.verify(&t(&nonce, b"relay.example", &binding), &sig)
            .is_err(),
        "bound to the name"
    );
    assert!(
        key.verify(&t(&nonce, b"broker.example", &[]), &sig)
            .is_err(),
        "bound to the channel"
    );
}

const PASSWORD: &str = "correct horse battery staple ✓";

fn unlock_js(armor: &str, password: &str, insecure: bool) -> Value {
    node(
        &json!({"op": "keyfile_unlock", "armor": armor, "password": password, "insecure": insecure}),
    )
}

/// A SEALKEY file wrapped by Rust unlocks in JS (test parameters through the
/// test entry point, floor parameters through the normal one), and JS refuses
/// what Rust refuses.
#[test]
fn sealkey_rust_wraps_js_unlocks() {
    let id = Identity::generate().expect("rng");
    let cheap = KdfParams::insecure_for_tests(64, 1, 1).expect("in range");
    let kf = KeyFile::wrap(&id, PASSWORD.as_bytes(), cheap).expect("wrap");
    let armor = kf.to_armor();
    let out = unlock_js(&armor, PASSWORD, true);
    assert_eq!(out["pkcs8"], json!(*id.to_pkcs8_base64()), "{out}");
    assert_eq!(
        unlock_js(&armor, PASSWORD, false)["kind"],
        json!("KdfBelowFloor")
    );
    assert_eq!(
        unlock_js(&armor, "wrong", true)["kind"],
        json!("WrongPasswordOrModified")
    );
    let mut tampered = kf.as_bytes().to_vec();
    tampered[60] ^= 1; // inside the clear SPKI: associated data
    let tampered = armor_of(&tampered);
    let out = unlock_js(&tampered, PASSWORD, true);
    assert!(
        out["kind"] == json!("WrongPasswordOrModified") || out["kind"] == json!("InvalidPublicKey"),
        "{out}"
    );

    let floor = KdfParams::new(19 * 1024, 2, 1).expect("at the floor");
    let armor = KeyFile::wrap(&id, PASSWORD.as_bytes(), floor)
        .expect("wrap")
        .to_armor();
    let out = unlock_js(&armor, PASSWORD, false);
    assert_eq!(out["pkcs8"], json!(*id.to_pkcs8_base64()), "{out}");
}

/// A SEALKEY file wrapped by JS unlocks in Rust, byte-for-byte the same key.
#[test]
fn sealkey_js_wraps_rust_unlocks() {
    let id = Identity::generate().expect("rng");
    let wrap = |m: u32, t: u32, p: u32, insecure: bool| {
        let out = node(&json!({
            "op": "keyfile_wrap",
            "pkcs8": *id.to_pkcs8_base64(),
            "password": PASSWORD,
            "m": m, "t": t, "p": p,
            "insecure": insecure,
        }));
        KeyFile::from_armor(out["armor"].as_str().expect("armor")).expect("Rust parses JS armor")
    };
    let kf = wrap(64, 1, 2, true);
    assert_eq!(kf.public_key(), id.public_key());
    assert_eq!(
        kf.kdf_params(),
        KdfParams::insecure_for_tests(64, 1, 2).expect("range")
    );
    let back = kf
        .unlock_insecure_for_tests(PASSWORD.as_bytes())
        .expect("Rust unlocks the JS file");
    assert_eq!(back.to_pkcs8_der(), id.to_pkcs8_der());
    assert!(matches!(
        kf.unlock(PASSWORD.as_bytes()),
        Err(KeyFileError::KdfBelowFloor { .. })
    ));
    assert_eq!(
        kf.unlock_insecure_for_tests(b"wrong"),
        Err(KeyFileError::WrongPasswordOrModified)
    );

    let kf = wrap(19 * 1024, 2, 1, false);
    let back = kf.unlock(PASSWORD.as_bytes()).expect("normal unlock");
    assert_eq!(back.to_pkcs8_der(), id.to_pkcs8_der());
}

fn armor_of(bytes: &[u8]) -> String {
    let b64 = b64(bytes);
    let mut out = String::from("-----BEGIN SEALKEY ENCRYPTED PRIVATE KEY-----\n");
    for line in b64.as_bytes().chunks(64) {
        out.push_str(std::str::from_utf8(line).expect("ascii"));
        out.push('\n');
    }
    out.push_str("-----END SEALKEY ENCRYPTED PRIVATE KEY-----\n");
    out
}
