//! SEALKEY v1 key files: round trips, wrong password, every header field tampered
//! on its own, hostile parameters refused before argon2 runs.

use std::time::{Duration, Instant};

use hermit_client::crypto::keyfile::{MAX_M_COST_KIB, MAX_T_COST};
use hermit_client::crypto::{Identity, KdfParams, KeyFile, KeyFileError};

const PW: &[u8] = "correct horse battery staple ✓".as_bytes();

/// Fast parameters for tests (below the OWASP floor on purpose).
fn weak() -> KdfParams {
    KdfParams::insecure_for_tests(64, 1, 1).expect("within caps")
}

fn weak_file() -> (Identity, KeyFile) {
    let id = Identity::generate().expect("os rng");
    let file = KeyFile::wrap(&id, PW, weak()).expect("wrap");
    (id, file)
}

fn unlock_err(bytes: &[u8]) -> KeyFileError {
    match KeyFile::from_bytes(bytes) {
        Err(e) => e,
        Ok(file) => file
            .unlock_insecure_for_tests(PW)
            .expect_err("a tampered file must not unlock"),
    }
}

#[test]
fn round_trip_binary_and_armor() {
    let (id, file) = weak_file();
    assert_eq!(file.as_bytes().len(), 150 + 138 + 16);
    let armor = file.to_armor();
    assert!(armor.starts_with("-----BEGIN SEALKEY ENCRYPTED PRIVATE KEY-----\n"));
    assert!(armor.ends_with("-----END SEALKEY ENCRYPTED PRIVATE KEY-----\n"));
    assert!(
        armor
            .lines()
            .all(|l| l.len() <= 64 || l.starts_with("-----"))
    );
    // CRLF line ends and surrounding blank lines are accepted.
    let crlf = format!("\r\n{}\r\n", armor.replace('\n', "\r\n"));
    for parsed in [
        KeyFile::from_armor(&armor).expect("armor"),
        KeyFile::from_armor(&crlf).expect("crlf armor"),
        KeyFile::from_bytes(file.as_bytes()).expect("binary"),
    ] {
        // The public key is readable without the password.
        assert_eq!(parsed.public_key(), id.public_key());
        let unlocked = parsed.unlock_insecure_for_tests(PW).expect("unlock");
        assert_eq!(unlocked.to_pkcs8_der(), id.to_pkcs8_der());
    }
}

#[test]
fn wrong_password_is_a_typed_error() {
    let (_, file) = weak_file();
    assert_eq!(
        file.unlock_insecure_for_tests(b"correct horse battery stapl")
            .err(),
        Some(KeyFileError::WrongPasswordOrModified)
    );
    assert_eq!(
        file.unlock_insecure_for_tests(b"").err(),
        Some(KeyFileError::WrongPasswordOrModified)
    );
}

#[test]
fn weak_files_need_the_explicit_test_only_unlock() {
    let (_, file) = weak_file();
    assert_eq!(
        file.unlock(PW).err(),
        Some(KeyFileError::KdfBelowFloor {
            m_cost_kib: 64,
            t_cost: 1
        })
    );
}

/// Offsets of a file with a 16-byte salt (docs/ENVELOPE.md §3).
mod off {
    pub const MAGIC: usize = 0;
    pub const VERSION: usize = 7;
    pub const KDF: usize = 8;
    pub const M_COST: usize = 9;
    pub const T_COST: usize = 13;
    pub const P_COST: usize = 17;
    pub const SALT_LEN: usize = 21;
    pub const SALT: usize = 22;
    pub const AEAD: usize = 38;
    pub const NONCE_LEN: usize = 39;
    pub const NONCE: usize = 40;
    pub const KEY_TYPE: usize = 52;
    pub const PUB_LEN: usize = 53;
    pub const SPKI: usize = 55;
    pub const CT_LEN: usize = 146;
    pub const CT: usize = 150;
}

fn with_u32(bytes: &[u8], at: usize, value: u32) -> Vec<u8> {
    let mut b = bytes.to_vec();
    b[at..at + 4].copy_from_slice(&value.to_be_bytes());
    b
}

fn with_byte(bytes: &[u8], at: usize, value: u8) -> Vec<u8> {
    let mut b = bytes.to_vec();
    b[at] = value;
    b
}

fn flipped(bytes: &[u8], at: usize) -> Vec<u8> {
    with_byte(bytes, at, bytes[at] ^ 0x01)
}

#[test]
fn each_tampered_header_field_is_refused() {
    let (_, file) = weak_file();
    let b = file.as_bytes();
    assert_eq!(b[off::SALT_LEN], 16);
    assert_eq!(b[off::NONCE_LEN], 12);
    assert_eq!(&b[off::PUB_LEN..off::PUB_LEN + 2], &91u16.to_be_bytes());
    assert_eq!(&b[off::CT_LEN..off::CT_LEN + 4], &154u32.to_be_bytes());
    let modified = KeyFileError::WrongPasswordOrModified;
    let cases: Vec<(&str, Vec<u8>, KeyFileError)> = vec![
        ("magic", flipped(b, off::MAGIC), KeyFileError::BadMagic),
        (
            "version",
            with_byte(b, off::VERSION, 2),
            KeyFileError::UnsupportedVersion { found: 2 },
        ),
        (
            "kdf",
            with_byte(b, off::KDF, 2),
            KeyFileError::UnsupportedKdf { found: 2 },
        ),
        // Valid but different parameters derive a different KEK; the header is
        // associated data, so the tag refuses them either way.
        ("m_cost", with_u32(b, off::M_COST, 65), modified.clone()),
        ("t_cost", with_u32(b, off::T_COST, 2), modified.clone()),
        ("p_cost", with_u32(b, off::P_COST, 2), modified.clone()),
        (
            "salt_len short",
            with_byte(b, off::SALT_LEN, 15),
            KeyFileError::SaltLength { len: 15 },
        ),
        // One more salt byte shifts every later field: the nonce length (12)
        // is then read as the AEAD id.
        (
            "salt_len long",
            with_byte(b, off::SALT_LEN, 17),
            KeyFileError::UnsupportedAead { found: 12 },
        ),
        ("salt", flipped(b, off::SALT + 5), modified.clone()),
        (
            "aead",
            with_byte(b, off::AEAD, 2),
            KeyFileError::UnsupportedAead { found: 2 },
        ),
        (
            "nonce_len",
            with_byte(b, off::NONCE_LEN, 16),
            KeyFileError::NonceLength { len: 16 },
        ),
        ("nonce", flipped(b, off::NONCE + 11), modified.clone()),
        (
            "key type",
            with_byte(b, off::KEY_TYPE, 2),
            KeyFileError::UnsupportedKeyType { found: 2 },
        ),
        (
            "pub_len",
            with_byte(b, off::PUB_LEN + 1, 65),
            KeyFileError::PublicKeyLength { len: 65 },
        ),
        (
            "spki structure",
            flipped(b, off::SPKI + 3),
            KeyFileError::InvalidPublicKey,
        ),
        (
            "spki point",
            flipped(b, off::SPKI + 40),
            KeyFileError::InvalidPublicKey,
        ),
        (
            "ct_len longer",
            with_u32(b, off::CT_LEN, 155),
            KeyFileError::Truncated {
                need: 155,
                have: 154,
            },
        ),
        (
            "ct_len shorter",
            with_u32(b, off::CT_LEN, 153),
            KeyFileError::TrailingBytes { extra: 1 },
        ),
        (
            "ct_len zero",
            with_u32(b, off::CT_LEN, 0),
            KeyFileError::CiphertextLength { len: 0 },
        ),
        ("ciphertext", flipped(b, off::CT + 17), modified.clone()),
        ("tag", flipped(b, b.len() - 1), modified.clone()),
        (
            "truncated",
            b[..b.len() - 1].to_vec(),
            KeyFileError::Truncated {
                need: 154,
                have: 153,
            },
        ),
    ];
    for (field, bytes, want) in cases {
        assert_eq!(unlock_err(&bytes), want, "tampered {field}");
    }
    // And the untouched file still unlocks.
    file.unlock_insecure_for_tests(PW).expect("original");
}

#[test]
fn hostile_parameters_are_refused_before_argon2_runs() {
    let (_, file) = weak_file();
    let b = file.as_bytes();
    let four_gib_kib = 4 * 1024 * 1024;
    let hostile = with_u32(b, off::M_COST, four_gib_kib);
    let started = Instant::now();
    let err = KeyFile::from_bytes(&hostile).expect_err("4 GiB m_cost");
    let elapsed = started.elapsed();
    assert_eq!(
        err,
        KeyFileError::KdfParamOutOfRange {
            param: "m_cost",
            value: four_gib_kib,
            min: 8,
            max: MAX_M_COST_KIB
        }
    );
    // Running argon2 with 4 GiB would take many seconds (or fail to allocate);
    // the refusal is a parse-time check.
    assert!(
        elapsed < Duration::from_millis(500),
        "rejected in {elapsed:?}"
    );
    eprintln!("4 GiB m_cost file rejected in {elapsed:?}");

    let cases = [
        (off::T_COST, 0, "t_cost", 1, MAX_T_COST),
        (off::T_COST, 17, "t_cost", 1, MAX_T_COST),
        (off::P_COST, 0, "p_cost", 1, 16),
        (off::P_COST, 17, "p_cost", 1, 16),
        (off::T_COST, u32::MAX, "t_cost", 1, MAX_T_COST),
    ];
    for (at, value, param, min, max) in cases {
        assert_eq!(
            KeyFile::from_bytes(&with_u32(b, at, value)).err(),
            Some(KeyFileError::KdfParamOutOfRange {
                param,
                value,
                min,
                max
            }),
            "{param} = {value}"
        );
    }
    assert_eq!(
        KeyFile::from_bytes(&with_byte(b, off::SALT_LEN, 65)).err(),
        Some(KeyFileError::SaltLength { len: 65 })
    );
    assert_eq!(
        KeyFile::from_armor(&"A".repeat(20_000)).err(),
        Some(KeyFileError::TooLarge {
            len: 20_000,
            max: 16 * 1024
        })
    );
    assert!(matches!(
        KeyFile::from_armor("-----BEGIN SOMETHING ELSE-----\nAAAA\n-----END SOMETHING ELSE-----\n"),
        Err(KeyFileError::Armor { .. })
    ));
}

#[test]
fn kdf_params_constructor_enforces_caps_and_floor() {
    assert_eq!(
        KdfParams::new(2 * 1024 * 1024, 3, 4).err(),
        Some(KeyFileError::KdfParamOutOfRange {
            param: "m_cost",
            value: 2 * 1024 * 1024,
            min: 32,
            max: MAX_M_COST_KIB
        })
    );
    assert_eq!(
        KdfParams::new(64 * 1024, 1, 4).err(),
        Some(KeyFileError::KdfBelowFloor {
            m_cost_kib: 64 * 1024,
            t_cost: 1
        })
    );
    assert_eq!(KdfParams::new(64 * 1024, 3, 4), Ok(KdfParams::RECOMMENDED));
}

/// The one test that runs the real parameters (64 MiB, t = 3, p = 4). Argon2 is
/// built with opt-level 3 even in dev builds (workspace profile).
#[test]
fn recommended_parameters_round_trip() {
    let id = Identity::generate().expect("os rng");
    let started = Instant::now();
    let file = KeyFile::wrap(&id, PW, KdfParams::RECOMMENDED).expect("wrap");
    let wrapped_in = started.elapsed();
    assert_eq!(file.kdf_params().m_cost_kib(), 64 * 1024);
    let file = KeyFile::from_armor(&file.to_armor()).expect("armor");
    let started = Instant::now();
    let unlocked = file.unlock(PW).expect("unlock with the real parameters");
    eprintln!(
        "argon2id 64 MiB/t=3/p=4: wrap {wrapped_in:?}, unlock {:?}",
        started.elapsed()
    );
    assert_eq!(unlocked.public_key(), id.public_key());
}
