//! The device binding v2 (docs/MLS.md §4.1) against the shared vector
//! `tests/vectors/binding_v2.json`, which the JavaScript SDK checks too
//! (`js/test/mls-units.test.mjs`): both parse the same fields from the same
//! bytes and verify the same signature, so both sign the same bytes.
//!
//! The vector was written once by `regenerate_the_vector` (ignored; run it
//! only when the format changes on purpose, and say why in the commit).

use std::path::PathBuf;

use hermit_client::crypto::Identity;
use hermit_client::mls::DeviceBinding;
use hermit_client::mls::binding::{BINDING_LEN, BINDING_VERSION};
use serde_json::{Value, json};

fn path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/binding_v2.json")
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

#[test]
fn the_v2_vector_parses_and_verifies_and_every_field_is_signed() {
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(path()).expect("read")).expect("json");
    let bytes = unhex(v["binding"].as_str().expect("binding"));
    let device = unhex(v["device_key"].as_str().expect("device_key"));
    assert_eq!(bytes.len(), BINDING_LEN);
    assert_eq!(bytes[4], BINDING_VERSION);
    let b = DeviceBinding::from_bytes(&bytes).expect("parse");
    assert_eq!(hex(&b.account().to_sec1_uncompressed()), v["account_key"]);
    assert_eq!(b.list_version(), v["list_version"].as_u64().expect("u64"));
    assert_eq!(b.issued_at(), v["issued_at"].as_u64().expect("u64"));
    b.verify(&device).expect("the vector verifies");
    assert_eq!(b.to_bytes(), bytes, "re-encoded byte for byte");
    // The list version (bytes 70..78) is signed: one bit off fails.
    let mut other = bytes.clone();
    other[77] ^= 1;
    let other = DeviceBinding::from_bytes(&other).expect("parses");
    assert_eq!(other.list_version(), b.list_version() ^ 1);
    assert!(other.verify(&device).is_err());
    // A v1 binding (the old format) is refused.
    let mut v1 = bytes;
    v1[4] = 1;
    assert!(DeviceBinding::from_bytes(&v1).is_err());
}

#[test]
#[ignore = "writes tests/vectors/binding_v2.json: run only when the format changes"]
fn regenerate_the_vector() {
    let account = Identity::generate().expect("key");
    let device = Identity::generate().expect("key");
    let key = device.public_key().to_sec1_uncompressed();
    let b = DeviceBinding::issue(&account, &key, 7, 1_795_000_000_000);
    let v = json!({
        "comment": "HermitMQ device binding v2 (docs/MLS.md §4.1): checked by client/tests/binding_vectors.rs and js/test/mls-units.test.mjs",
        "account_key": hex(&account.public_key().to_sec1_uncompressed()),
        "device_key": hex(&key),
        "list_version": 7,
        "issued_at": 1_795_000_000_000u64,
        "binding": hex(&b.to_bytes()),
    });
    std::fs::write(
        path(),
        serde_json::to_string_pretty(&v).expect("json") + "\n",
    )
    .expect("write");
}
