//! Safety numbers (docs/SECURITY.md §6) against the shared vectors
//! `tests/vectors/safety_numbers.json`, which the JavaScript SDK checks too
//! (`js/test/safety-numbers.test.mjs`): the two SDKs give the same digits.
//!
//! The vectors were written once by `regenerate_the_vectors` (ignored; run it
//! only when the construction changes on purpose, and say why in the commit).
//! Their keys come from fixed scalars, so anyone can re-derive them.

use std::collections::HashSet;
use std::path::PathBuf;

use hermit_client::crypto::PublicKey;
use hermit_client::trust::{account_half, safety_number};
use p256::pkcs8::EncodePublicKey as _;
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};

fn vectors_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/safety_numbers.json")
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

fn hex32(text: &str) -> [u8; 32] {
    assert_eq!(text.len(), 64, "{text}");
    let mut out = [0u8; 32];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).expect("hex");
    }
    out
}

fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The public key of private scalar `scalar`, through the curve library
/// itself (not the SDK's import).
fn key_of_scalar(scalar: &[u8; 32]) -> PublicKey {
    let secret = p256::SecretKey::from_slice(scalar).expect("a scalar in [1, n)");
    let der = secret.public_key().to_public_key_der().expect("SPKI");
    PublicKey::from_spki_der(der.as_bytes()).expect("valid SPKI")
}

/// One account as the vectors store it: its scalar (provenance), its SPKI
/// (what the other SDK reads) and its half.
fn account(v: &Value) -> (PublicKey, &str) {
    let key = PublicKey::from_spki_base64(str_field(v, "spki")).expect("SPKI of a vector");
    assert_eq!(
        key.spki_der(),
        key_of_scalar(&hex32(str_field(v, "scalar"))).spki_der(),
        "the stored SPKI is the stored scalar's"
    );
    (key, str_field(v, "half"))
}

#[test]
fn every_case_gives_the_stored_halves_and_digits_either_way_round() {
    let vectors = vectors();
    let cases = vectors["cases"].as_array().expect("cases");
    assert!(cases.len() >= 6);
    for case in cases {
        let name = str_field(case, "name");
        let (a, a_half) = account(&case["a"]);
        let (b, b_half) = account(&case["b"]);
        assert_eq!(account_half(&a), a_half, "{name}: a's half");
        assert_eq!(account_half(&b), b_half, "{name}: b's half");
        let ab = safety_number(&a, &b);
        let ba = safety_number(&b, &a);
        assert_eq!(ab.digits(), str_field(case, "digits"), "{name}: digits");
        assert_eq!(
            ab.to_string(),
            str_field(case, "display"),
            "{name}: display"
        );
        assert_eq!(ab, ba, "{name}: the same both ways round");
        assert_eq!(ba.digits(), str_field(case, "digits"), "{name}: b, a");
    }
}

#[test]
fn thirty_two_keys_give_thirty_two_stored_and_different_halves() {
    let vectors = vectors();
    let keys = vectors["keys"].as_array().expect("keys");
    assert_eq!(keys.len(), 32);
    let mut halves = HashSet::new();
    for v in keys {
        let (key, half) = account(v);
        assert_eq!(account_half(&key), half, "{}", str_field(v, "scalar"));
        assert!(halves.insert(half.to_owned()), "two keys share half {half}");
    }
}

#[test]
fn another_key_on_either_side_changes_the_number() {
    let vectors = vectors();
    let keys: Vec<PublicKey> = vectors["keys"]
        .as_array()
        .expect("keys")
        .iter()
        .map(|v| account(v).0)
        .collect();
    let (a, b) = (&keys[0], &keys[1]);
    let base = safety_number(a, b);
    let mut seen = HashSet::from([base.digits().to_owned()]);
    for other in &keys[2..] {
        assert!(seen.insert(safety_number(other, b).digits().to_owned()));
        assert!(seen.insert(safety_number(a, other).digits().to_owned()));
    }
}

// ---- writing the vectors ----------------------------------------------------

/// P-256's group order minus one: the key `-G`, whose point has the same x
/// as the generator's (key 0, scalar 1).
const N_MINUS_1: &str = "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632550";

/// The 32 fixed scalars: 1, 2, n − 1, then `SHA-256("HermitMQ safety number
/// key <i>")` for i = 3…31 (each checked to be below n by `from_slice`).
fn scalars() -> Vec<[u8; 32]> {
    let mut one = [0u8; 32];
    one[31] = 1;
    let mut two = [0u8; 32];
    two[31] = 2;
    let mut out = vec![one, two, hex32(N_MINUS_1)];
    for i in 3..32 {
        out.push(Sha256::digest(format!("HermitMQ safety number key {i}")).into());
    }
    out
}

fn account_json(scalar: &[u8; 32]) -> Value {
    let key = key_of_scalar(scalar);
    json!({
        "scalar": to_hex(scalar),
        "spki": key.to_spki_base64(),
        "half": account_half(&key),
    })
}

#[test]
#[ignore = "rewrites tests/vectors/safety_numbers.json: only when the construction changes on purpose"]
fn regenerate_the_vectors() {
    let scalars = scalars();
    let keys: Vec<Value> = scalars.iter().map(account_json).collect();
    // (name, a, b): indexes into the keys.
    let pairs: [(&str, usize, usize); 8] = [
        ("G and 2G", 0, 1),
        ("2G and G (the other way round)", 1, 0),
        ("G and -G (same x, other y)", 0, 2),
        ("two hashed scalars", 3, 4),
        ("the same two, the other way round", 4, 3),
        ("a key with itself", 5, 5),
        ("hashed scalars 6 and 7", 6, 7),
        ("hashed scalars 30 and 31", 30, 31),
    ];
    let cases: Vec<Value> = pairs
        .iter()
        .map(|&(name, a, b)| {
            let number = safety_number(&key_of_scalar(&scalars[a]), &key_of_scalar(&scalars[b]));
            json!({
                "name": name,
                "a": keys[a],
                "b": keys[b],
                "digits": number.digits(),
                "display": number.to_string(),
            })
        })
        .collect();
    let doc = json!({
        "description": "HermitMQ safety numbers (docs/SECURITY.md §6), written by client/tests/safety_numbers.rs (regenerate_the_vectors) and checked by it and by js/test/safety-numbers.test.mjs. scalar: the account's private scalar, hex (provenance only); spki: its canonical SPKI DER, standard base64; half: its 30 digits; digits: the pair's 60 digits; display: 12 groups of 5.",
        "cases": cases,
        "keys": keys,
    });
    let mut text = serde_json::to_string_pretty(&doc).expect("JSON");
    text.push('\n');
    std::fs::write(vectors_path(), text).expect("writing the vectors");
}
