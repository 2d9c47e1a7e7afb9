//! Interoperability with the real Web Crypto API (`crypto.subtle` in Node 18+).
//!
//! The JS side lives in `tests/js/`: `chat_crypto.mjs` is the browser article's
//! `ChatCrypto`, `sealed_record.mjs` an independent sealed-record v1 implementation
//! on Web Crypto alone, `interop.mjs` the driver. Each test runs `node` once with a
//! JSON request on stdin and reads a JSON response on stdout.
//!
//! These tests fail — they do not skip — when `node` is missing: interoperability
//! is a requirement, not an optional extra.

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use hermit_client::crypto::{
    ChatCrypto, Identity, OpenedMode, Opener, PublicKey, Sealer, SigningIdentity, SigningPublicKey,
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
            let m = chat.encrypt_str(t);
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
        let opened = node(&request);
        let opened = opened.as_array().expect("array");
        for (o, pt) in opened.iter().zip(&pts) {
            assert!(o.get("err").is_none(), "JS failed to open: {o}");
            assert_eq!(&unb64(&o["ok"]), pt);
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
    assert!(refused[0].get("err").is_some(), "moved topic: {refused}");
    assert!(refused[1].get("err").is_some(), "flipped byte: {refused}");
}

/// JS seals, Rust opens (with replay protection, in order).
fn js_seals_rust_opens(n: usize, multi: bool, padded: bool, signed: bool) {
    let s = sides(n);
    let signer = SigningIdentity::generate().expect("rng");
    let pts = plaintexts();
    let base = 1_700_000_000_000u64 << 16;
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
        for (i, (record, pt)) in records.iter().zip(&pts).enumerate() {
            let (opened, got) = opener.open(TOPIC, &unb64(record)).expect("Rust opens JS");
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
