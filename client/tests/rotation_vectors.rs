//! Account-key rotation statements (docs/MLS.md §4.6) against the shared
//! vectors `tests/vectors/account_rotation.json`, which the JavaScript SDK
//! reads too: valid statements verify (and this SDK signs the same bytes),
//! every invalid one is refused with the stored reason.
//!
//! The vectors were written once by `regenerate_the_vectors` (ignored; run
//! it only when the format changes on purpose, and say why in the commit).
//! Their keys come from fixed scalars, so anyone can re-derive them; ECDSA
//! here is deterministic (RFC 6979), so the valid statements are re-made
//! byte for byte.

use std::path::PathBuf;

use base64::Engine as _;
use hermit_client::crypto::{Identity, PublicKey};
use hermit_client::trust::{ROTATION_LEN, RotationError, RotationStatement};
use p256::ecdsa::signature::Signer as _;
use p256::pkcs8::{EncodePrivateKey as _, EncodePublicKey as _};
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};

const LABEL: &[u8] = b"HermitMQ account rotation v1\0";

fn vectors_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/account_rotation.json")
}

fn vectors() -> Value {
    let path = vectors_path();
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("parsing {}: {e}", path.display()))
}

fn str_field<'a>(v: &'a Value, name: &str) -> &'a str {
    v[name]
        .as_str()
        .unwrap_or_else(|| panic!("field {name} of {v}"))
}

fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn from_hex(text: &str) -> Vec<u8> {
    assert_eq!(text.len() % 2, 0, "{text}");
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("hex"))
        .collect()
}

/// The test keys: `SHA-256("HermitMQ rotation key <i>")` for i = 0…3.
fn scalar(i: usize) -> [u8; 32] {
    Sha256::digest(format!("HermitMQ rotation key {i}")).into()
}

fn secret(i: usize) -> p256::SecretKey {
    p256::SecretKey::from_slice(&scalar(i)).expect("a scalar in [1, n)")
}

fn identity(i: usize) -> Identity {
    Identity::from_pkcs8_der(secret(i).to_pkcs8_der().expect("PKCS#8").as_bytes()).expect("key")
}

fn public(i: usize) -> PublicKey {
    let der = secret(i).public_key().to_public_key_der().expect("SPKI");
    PublicKey::from_spki_der(der.as_bytes()).expect("SPKI")
}

/// A raw `r‖s` signature by key `i` over the rotation message of `old`,
/// `new`, `issued_at` — through the curve library, not the SDK.
fn raw_signature(i: usize, old: &[u8], new: &[u8], issued_at: u64) -> Vec<u8> {
    let mut m = LABEL.to_vec();
    m.extend_from_slice(old);
    m.extend_from_slice(new);
    m.extend_from_slice(&issued_at.to_be_bytes());
    let sig: p256::ecdsa::Signature = p256::ecdsa::SigningKey::from(&secret(i)).sign(&m);
    sig.normalize_s().to_bytes().to_vec()
}

/// A statement assembled by hand: `old`, `new` and the signers of its two
/// signatures.
fn assembled(old: usize, new: usize, issued_at: u64, signers: [usize; 2]) -> Vec<u8> {
    let (o, n) = (
        public(old).to_sec1_uncompressed(),
        public(new).to_sec1_uncompressed(),
    );
    let mut out = b"HMQR\x01".to_vec();
    out.extend_from_slice(&o);
    out.extend_from_slice(&n);
    out.extend_from_slice(&issued_at.to_be_bytes());
    for s in signers {
        out.extend_from_slice(&raw_signature(s, &o, &n, issued_at));
    }
    out
}

/// The short name of a refusal, as the vectors store it.
fn reason(e: &RotationError) -> &'static str {
    match e {
        RotationError::Malformed(_) => "malformed",
        RotationError::WrongAccount { .. } => "wrong-account",
        RotationError::SameKey { .. } => "same-key",
        RotationError::BadOldSignature { .. } => "bad-old-signature",
        RotationError::BadNewSignature { .. } => "bad-new-signature",
        _ => "other",
    }
}

#[test]
fn the_stored_statements_verify_or_are_refused_as_stored() {
    let v = vectors();
    let keys = v["keys"].as_array().expect("keys");
    for (i, k) in keys.iter().enumerate() {
        let stored = PublicKey::from_spki_base64(str_field(k, "spki")).expect("SPKI");
        assert_eq!(stored, public(i), "key {i} is the stored scalar's");
        assert_eq!(str_field(k, "sec1"), to_hex(&stored.to_sec1_uncompressed()));
        assert_eq!(str_field(k, "fingerprint"), stored.fingerprint().to_hex());
        let pkcs8 = base64::engine::general_purpose::STANDARD
            .decode(str_field(k, "pkcs8"))
            .expect("base64");
        assert_eq!(
            Identity::from_pkcs8_der(&pkcs8)
                .expect("PKCS#8")
                .public_key(),
            &stored
        );
    }
    let cases = v["cases"].as_array().expect("cases");
    assert!(cases.len() >= 10, "{} cases", cases.len());
    let (mut valid, mut invalid) = (0, 0);
    for case in cases {
        let name = str_field(case, "name");
        let bytes = from_hex(str_field(case, "statement"));
        let account = public(case["account"].as_u64().expect("account") as usize);
        let got = RotationStatement::verify(&bytes, account.fingerprint());
        if case["valid"] == true {
            valid += 1;
            let s = got.unwrap_or_else(|e| panic!("{name}: {e}"));
            let old = case["old"].as_u64().unwrap() as usize;
            let new = case["new"].as_u64().unwrap() as usize;
            let at = case["issued_at"].as_u64().unwrap();
            assert_eq!(s.old(), &public(old), "{name}");
            assert_eq!(s.new_key(), &public(new), "{name}");
            assert_eq!(s.issued_at(), at, "{name}");
            assert_eq!(s.encode(), bytes, "{name}: encodes back");
            // The SDK signs exactly these bytes (RFC 6979 on both paths).
            let signed = RotationStatement::sign(&identity(old), &identity(new), at).unwrap();
            assert_eq!(signed.encode(), bytes, "{name}: the SDK signs the same");
        } else {
            invalid += 1;
            let e = got.expect_err(name);
            assert_eq!(reason(&e), str_field(case, "error"), "{name}: {e}");
        }
    }
    assert!(
        valid >= 3 && invalid >= 7,
        "{valid} valid, {invalid} invalid"
    );
}

// ---- writing the vectors ----------------------------------------------------

fn key_json(i: usize) -> Value {
    let key = public(i);
    json!({
        "scalar": to_hex(&scalar(i)),
        "pkcs8": base64::engine::general_purpose::STANDARD
            .encode(secret(i).to_pkcs8_der().expect("PKCS#8").as_bytes()),
        "spki": key.to_spki_base64(),
        "sec1": to_hex(&key.to_sec1_uncompressed()),
        "fingerprint": key.fingerprint().to_hex(),
    })
}

#[test]
#[ignore = "rewrites tests/vectors/account_rotation.json: only when the format changes on purpose"]
fn regenerate_the_vectors() {
    let at = 1_767_225_600_000u64; // 2026-01-01T00:00:00Z
    let good = |old: usize, new: usize, at: u64| {
        RotationStatement::sign(&identity(old), &identity(new), at)
            .unwrap()
            .encode()
    };
    let mut cases = Vec::new();
    for (name, old, new, at) in [
        ("key 0 rotates to key 1", 0, 1, at),
        (
            "key 1 rotates to key 2 (the next step of a chain)",
            1,
            2,
            at + 1,
        ),
        ("key 2 rotates to key 0, issued_at 0", 2, 0, 0),
        ("key 3 rotates to key 1, issued_at u64::MAX", 3, 1, u64::MAX),
    ] {
        cases.push(json!({
            "name": name, "valid": true, "account": old, "old": old, "new": new,
            "issued_at": at, "statement": to_hex(&good(old, new, at)),
        }));
    }
    let base = good(0, 1, at);
    assert_eq!(base.len(), ROTATION_LEN);
    let flip = |i: usize| {
        let mut b = base.clone();
        b[i] ^= 0x01;
        b
    };
    let mut magic = base.clone();
    magic[..4].copy_from_slice(b"HMQL");
    let mut format = base.clone();
    format[4] = 2;
    let mut longer = base.clone();
    longer.push(0);
    let invalid: Vec<(&str, usize, Vec<u8>, &str)> = vec![
        ("wrong magic (a device list's)", 0, magic, "malformed"),
        ("unknown format 2", 0, format, "malformed"),
        (
            "truncated by one byte",
            0,
            base[..base.len() - 1].to_vec(),
            "malformed",
        ),
        ("one byte too many", 0, longer, "malformed"),
        ("empty", 0, Vec::new(), "malformed"),
        ("old key not a point (x flipped)", 0, flip(6), "malformed"),
        (
            "a flipped byte in the old key's signature",
            0,
            flip(143 + 10),
            "bad-old-signature",
        ),
        (
            "a flipped byte in the new key's signature",
            0,
            flip(207 + 10),
            "bad-new-signature",
        ),
        (
            "a flipped byte in issued_at",
            0,
            flip(142),
            "bad-old-signature",
        ),
        (
            "filed under another account (read as key 1's)",
            1,
            base.clone(),
            "wrong-account",
        ),
        (
            "old == new, both signatures valid",
            0,
            assembled(0, 0, at, [0, 0]),
            "same-key",
        ),
        (
            "the old signature by another key (key 3), the new one valid: a forgery",
            0,
            assembled(0, 1, at, [3, 1]),
            "bad-old-signature",
        ),
        (
            "the new signature by another key (key 3)",
            0,
            assembled(0, 1, at, [0, 3]),
            "bad-new-signature",
        ),
    ];
    for (name, account, bytes, error) in invalid {
        let e = RotationStatement::verify(&bytes, public(account).fingerprint()).expect_err(name);
        assert_eq!(reason(&e), error, "{name}: {e}");
        cases.push(json!({
            "name": name, "valid": false, "account": account,
            "statement": to_hex(&bytes), "error": error,
        }));
    }
    let doc = json!({
        "description": "HermitMQ account-key rotation statements (docs/MLS.md §4.6), written by client/tests/rotation_vectors.rs (regenerate_the_vectors) and checked by it (and by the JavaScript SDK). keys[i]: a test account — scalar: its private scalar, hex (SHA-256 of \"HermitMQ rotation key <i>\"); pkcs8: its private key, PKCS#8 DER, standard base64 (Web Crypto importKey 'pkcs8'); spki: its public key, SPKI DER, standard base64; sec1: its uncompressed SEC1 point, hex; fingerprint: SHA-256 of the SPKI, hex. cases[]: name; statement: the record's value, hex; account: the index of the key whose dir. topic (pinned key) it is read under; valid: whether it must verify; for valid ones old, new (key indexes) and issued_at (ms, a JSON number: issued_at u64::MAX is 18446744073709551615, read it as a BigInt); for invalid ones error: malformed | wrong-account | same-key | bad-old-signature | bad-new-signature. Signatures are ECDSA P-256 SHA-256, raw r||s, low-S (s <= n/2), RFC 6979 deterministic (Web Crypto's are random: verify them, do not expect the same bytes).",
        "keys": (0..4).map(key_json).collect::<Vec<_>>(),
        "cases": cases,
    });
    let mut text = serde_json::to_string_pretty(&doc).expect("JSON");
    text.push('\n');
    std::fs::write(vectors_path(), text).expect("writing the vectors");
}

/// The JavaScript SDK's statements (`js/test/vectors/account_rotation_js.json`,
/// made by `js/test/mls-rotation.test.mjs` with Web Crypto's randomised
/// ECDSA): this SDK accepts exactly the ones it accepts, reads the same
/// new key and time, encodes them back byte for byte, and refuses the rest.
#[test]
fn the_javascript_sdks_statements_verify_or_are_refused_as_stored() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../js/test/vectors/account_rotation_js.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let v: Value = serde_json::from_str(&text).expect("JSON");
    let cases = v["cases"].as_array().expect("cases");
    let (mut valid, mut invalid) = (0, 0);
    for case in cases {
        let name = str_field(case, "name");
        let bytes = from_hex(str_field(case, "statement"));
        let pinned = PublicKey::from_sec1_bytes(&from_hex(str_field(case, "pinned"))).expect(name);
        let got = RotationStatement::verify(&bytes, pinned.fingerprint());
        if case["valid"] == true {
            valid += 1;
            let s = got.unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(s.old(), &pinned, "{name}");
            assert_eq!(
                to_hex(&s.new_key().to_sec1_uncompressed()),
                str_field(case, "new_key"),
                "{name}"
            );
            assert_eq!(
                s.issued_at(),
                case["issued_at"].as_u64().expect("issued_at"),
                "{name}"
            );
            assert_eq!(s.encode(), bytes, "{name}: encodes back");
        } else {
            invalid += 1;
            assert!(got.is_err(), "{name}: refused");
        }
    }
    assert!(
        valid >= 1 && invalid >= 5,
        "{valid} valid, {invalid} invalid"
    );
}
