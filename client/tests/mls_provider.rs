//! The suite-2 MLS provider (client/src/mls/provider.rs) against
//! `mls-rs-crypto-rustcrypto` on the same inputs: signatures made by one
//! verify on the other, both ways; tampering fails on both; AEAD, HKDF,
//! HMAC and hash outputs are byte-identical; inputs of another shape are
//! typed errors. (mls-rs-core's `test_suite` cannot be used from crates.io:
//! its data files are excluded from the published crate.)

use aws_lc_rs::encoding::AsBigEndian as _;
use aws_lc_rs::signature::{ECDSA_P256_SHA256_ASN1_SIGNING, EcdsaKeyPair};
use hermit_client::mls::{ProviderError, Suite2, Suite2Provider};
use mls_rs_core::crypto::{
    CipherSuite, CipherSuiteProvider, CryptoProvider, SignaturePublicKey, SignatureSecretKey,
};
use mls_rs_crypto_rustcrypto::RustCryptoProvider;

/// The sizes mls-rs-core's own crypto test suite uses.
const SIZES: [usize; 5] = [0, 1, 16, 123, 2000];

fn ours() -> Suite2 {
    Suite2Provider::new()
        .cipher_suite_provider(CipherSuite::P256_AES128)
        .expect("suite 2")
}

fn reference() -> impl CipherSuiteProvider {
    RustCryptoProvider::new()
        .cipher_suite_provider(CipherSuite::P256_AES128)
        .expect("suite 2")
}

fn random(n: usize) -> Vec<u8> {
    ours().random_bytes_vec(n).expect("rng")
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// Signing keys from both generators: the reference's (the provider's own
/// `signature_key_generate` forwards there) and AWS-LC's.
fn signing_keys() -> Vec<(SignatureSecretKey, SignaturePublicKey)> {
    let mut keys: Vec<_> = (0..3)
        .map(|_| reference().signature_key_generate().unwrap())
        .collect();
    let pair = EcdsaKeyPair::generate(&ECDSA_P256_SHA256_ASN1_SIGNING).unwrap();
    let scalar = pair.private_key().as_be_bytes().unwrap();
    keys.push((
        SignatureSecretKey::new_slice(scalar.as_ref()),
        SignaturePublicKey::new_slice(aws_lc_rs::signature::KeyPair::public_key(&pair).as_ref()),
    ));
    keys
}

#[test]
fn only_suite_2_is_offered() {
    let provider = Suite2Provider::new();
    assert_eq!(
        provider.supported_cipher_suites(),
        [CipherSuite::P256_AES128]
    );
    for other in [1, 3, 4, 5, 6, 7] {
        assert!(
            provider
                .cipher_suite_provider(CipherSuite::from(other))
                .is_none()
        );
    }
    assert_eq!(ours().cipher_suite(), CipherSuite::P256_AES128);
    assert_eq!(ours().aead_key_size(), reference().aead_key_size());
    assert_eq!(ours().aead_nonce_size(), reference().aead_nonce_size());
    assert_eq!(ours().kdf_extract_size(), reference().kdf_extract_size());
}

#[test]
fn signatures_cross_verify_both_ways() {
    let (ours, reference) = (ours(), reference());
    for (secret, public) in signing_keys() {
        assert_eq!(ours.signature_key_derive_public(&secret).unwrap(), public);
        assert_eq!(
            reference.signature_key_derive_public(&secret).unwrap(),
            public
        );
        for size in SIZES {
            let data = random(size);
            let by_ours = ours.sign(&secret, &data).unwrap();
            let by_reference = reference.sign(&secret, &data).unwrap();
            for signature in [&by_ours, &by_reference] {
                ours.verify(&public, signature, &data).unwrap();
                reference.verify(&public, signature, &data).unwrap();
            }
        }
    }
}

#[test]
fn tampered_signatures_messages_and_keys_fail_on_both() {
    let (ours, reference) = (ours(), reference());
    let keys = signing_keys();
    let (secret, public) = &keys[0];
    let (_, other_public) = &keys[1];
    let data = random(123);
    for signature in [
        ours.sign(secret, &data).unwrap(),
        reference.sign(secret, &data).unwrap(),
    ] {
        let fails_on_both = |public: &SignaturePublicKey, signature: &[u8], data: &[u8]| {
            assert!(ours.verify(public, signature, data).is_err());
            assert!(reference.verify(public, signature, data).is_err());
        };
        // The message: each byte position in turn (a bit flip).
        for at in [0, 61, 122] {
            let mut bad = data.clone();
            bad[at] ^= 0x01;
            fails_on_both(public, &signature, &bad);
        }
        fails_on_both(public, &signature, &data[..122]);
        // The signature: the DER header, r, s; truncated, extended, empty.
        for at in [0, 1, 10, signature.len() - 1] {
            let mut bad = signature.clone();
            bad[at] ^= 0x01;
            fails_on_both(public, &bad, &data);
        }
        fails_on_both(public, &signature[..signature.len() - 1], &data);
        fails_on_both(public, &[signature.as_slice(), &[0]].concat(), &data);
        fails_on_both(public, &[], &data);
        // The key: another member's, and this one with one bit of x or y flipped.
        fails_on_both(other_public, &signature, &data);
        for at in [1, 33, 64] {
            let mut bad = public.to_vec();
            bad[at] ^= 0x01;
            fails_on_both(&bad.into(), &signature, &data);
        }
    }
}

#[test]
fn public_keys_other_than_uncompressed_points_are_typed_errors() {
    let (secret, public) = signing_keys().remove(0);
    let data = b"framed content";
    let signature = ours().sign(&secret, data).unwrap();
    // Compressed form of the same point: 0x02/0x03 by y's parity, then x.
    let compressed = [&[2 + (public[64] & 1)][..], &public[1..33]].concat();
    let mut hybrid = public.to_vec();
    hybrid[0] = 0x06 + (public[64] & 1);
    for bad in [compressed, hybrid, public[..64].to_vec(), Vec::new()] {
        let len = bad.len();
        assert!(matches!(
            ours().verify(&bad.into(), &signature, data),
            Err(ProviderError::InvalidPublicKey { len: l }) if l == len
        ));
    }
}

#[test]
fn signing_keys_out_of_range_or_of_another_length_are_typed_errors() {
    let order = hex("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551");
    for scalar in [vec![0; 32], order.clone(), vec![0xff; 32]] {
        let secret = SignatureSecretKey::new(scalar);
        assert!(matches!(
            ours().sign(&secret, b"x"),
            Err(ProviderError::InvalidSigningKey)
        ));
        assert!(reference().sign(&secret, b"x").is_err());
        assert!(matches!(
            ours().signature_key_derive_public(&secret),
            Err(ProviderError::InvalidSigningKey)
        ));
    }
    for len in [0, 31, 33, 64] {
        let secret = SignatureSecretKey::new(vec![1; len]);
        assert!(matches!(
            ours().sign(&secret, b"x"),
            Err(ProviderError::Length { what: "signing key", expected: 32, got }) if got == len
        ));
    }
}

#[test]
fn the_signing_key_cache_is_bounded_and_exact() {
    let ours = ours();
    let keys: Vec<_> = (0..6)
        .map(|_| ours.signature_key_generate().unwrap())
        .collect();
    for _ in 0..2 {
        for (secret, public) in &keys {
            let signature = ours.sign(secret, b"data").unwrap();
            reference().verify(public, &signature, b"data").unwrap();
            // A cached key is never taken for another.
            for (_, other) in keys.iter().filter(|(_, p)| p != public) {
                assert!(ours.verify(other, &signature, b"data").is_err());
            }
        }
    }
    let debug = format!("{ours:?}");
    assert!(debug.contains("cached_signing_keys: 4"), "{debug}");
    // No secret reaches Debug, in hex or as a byte list.
    for (secret, _) in &keys {
        let as_hex: String = secret.iter().map(|b| format!("{b:02x}")).collect();
        assert!(!debug.contains(&as_hex));
        assert!(!debug.contains(&format!("{:?}", secret.as_bytes())));
    }
}

#[test]
fn aead_is_byte_identical_and_fails_on_both_when_tampered() {
    let (ours, reference) = (ours(), reference());
    // The reference refuses an empty plaintext (mls-rs never seals one):
    // that case is checked against RustCrypto's aes-gcm directly below.
    for size in SIZES.into_iter().filter(|&n| n > 0) {
        let (key, nonce, aad, data) = (random(16), random(12), random(size % 40), random(size));
        for aad in [None, Some(aad.as_slice())] {
            let sealed = ours.aead_seal(&key, &data, aad, &nonce).unwrap();
            assert_eq!(
                sealed,
                reference.aead_seal(&key, &data, aad, &nonce).unwrap()
            );
            assert_eq!(sealed.len(), size + 16);
            assert_eq!(*ours.aead_open(&key, &sealed, aad, &nonce).unwrap(), data);
            assert_eq!(
                *reference.aead_open(&key, &sealed, aad, &nonce).unwrap(),
                data
            );
            let fails_on_both = |key: &[u8], sealed: &[u8], aad: Option<&[u8]>, nonce: &[u8]| {
                assert!(matches!(
                    ours.aead_open(key, sealed, aad, nonce),
                    Err(ProviderError::AuthFailed)
                ));
                assert!(reference.aead_open(key, sealed, aad, nonce).is_err());
            };
            let mut bad = sealed.clone();
            bad[0] ^= 1;
            fails_on_both(&key, &bad, aad, &nonce);
            let mut bad = sealed.clone();
            *bad.last_mut().unwrap() ^= 1;
            fails_on_both(&key, &bad, aad, &nonce);
            let mut bad_key = key.clone();
            bad_key[15] ^= 1;
            fails_on_both(&bad_key, &sealed, aad, &nonce);
            let mut bad_nonce = nonce.clone();
            bad_nonce[0] ^= 1;
            fails_on_both(&key, &sealed, aad, &bad_nonce);
            fails_on_both(&key, &sealed, Some(b"other aad"), &nonce);
        }
    }
}

#[test]
fn aead_seals_and_opens_an_empty_plaintext() {
    use aes_gcm::aead::{Aead as _, KeyInit as _, Payload};
    let (key, nonce) = (random(16), random(12));
    let sealed = ours().aead_seal(&key, &[], Some(b"aad"), &nonce).unwrap();
    let independent = aes_gcm::Aes128Gcm::new_from_slice(&key)
        .unwrap()
        .encrypt(
            nonce.as_slice().try_into().unwrap(),
            Payload {
                msg: &[],
                aad: b"aad",
            },
        )
        .unwrap();
    assert_eq!(sealed, independent);
    assert!(
        ours()
            .aead_open(&key, &sealed, Some(b"aad"), &nonce)
            .unwrap()
            .is_empty()
    );
}

#[test]
fn aead_inputs_of_another_shape_are_typed_errors() {
    let ours = ours();
    let (key, nonce) = (random(16), random(12));
    for (key_len, nonce_len, what) in [(32, 12, "AEAD key"), (16, 16, "AEAD nonce")] {
        assert!(matches!(
            ours.aead_seal(&random(key_len), b"x", None, &random(nonce_len)),
            Err(ProviderError::Length { what: w, .. }) if w == what
        ));
    }
    assert!(matches!(
        ours.aead_open(&key, &[0; 15], None, &nonce),
        Err(ProviderError::CiphertextTooShort { len: 15 })
    ));
}

#[test]
fn hkdf_hmac_and_hash_are_byte_identical() {
    let (ours, reference) = (ours(), reference());
    for size in SIZES {
        let data = random(size);
        assert_eq!(ours.hash(&data).unwrap(), reference.hash(&data).unwrap());
        // Keys shorter than, equal to and longer than SHA-256's block.
        for key_len in [0, 32, 64, 65, 200] {
            let key = random(key_len);
            assert_eq!(
                ours.mac(&key, &data).unwrap(),
                reference.mac(&key, &data).unwrap()
            );
            let prk = ours.kdf_extract(&key, &data).unwrap();
            if data.is_empty() {
                // The reference refuses an empty IKM; RFC 5869 does not:
                // HKDF-Extract is HMAC(salt, IKM), the reference's `mac`.
                assert_eq!(*prk, reference.mac(&key, &data).unwrap());
            } else {
                assert_eq!(*prk, *reference.kdf_extract(&key, &data).unwrap());
            }
            // Info below and above aws-lc-rs's 80-byte stack buffer.
            for (info_len, len) in [(0, 32), (10, 1), (81, 33), (size, 100), (300, 255 * 32)] {
                let info = random(info_len);
                assert_eq!(
                    *ours.kdf_expand(&prk, &info, len).unwrap(),
                    *reference.kdf_expand(&prk, &info, len).unwrap()
                );
            }
        }
    }
}

/// RFC 5869, appendix A.1 (test case 1).
#[test]
fn hkdf_matches_rfc_5869() {
    let ours = ours();
    let prk = ours
        .kdf_extract(&hex("000102030405060708090a0b0c"), &[0x0b; 22])
        .unwrap();
    assert_eq!(
        *prk,
        hex("077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5")
    );
    let okm = ours
        .kdf_expand(&prk, &hex("f0f1f2f3f4f5f6f7f8f9"), 42)
        .unwrap();
    assert_eq!(
        *okm,
        hex("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865")
    );
}

#[test]
fn hkdf_inputs_of_another_shape_are_typed_errors() {
    let ours = ours();
    assert!(matches!(
        ours.kdf_expand(&random(32), b"", 255 * 32 + 1),
        Err(ProviderError::KdfOutputTooLong {
            requested: 8161,
            max: 8160
        })
    ));
    for len in [0, 31, 33, 64] {
        assert!(matches!(
            ours.kdf_expand(&random(len), b"", 32),
            Err(ProviderError::Length { what: "HKDF PRK", got, .. }) if got == len
        ));
    }
}

#[test]
fn forwarded_hpke_interoperates_with_the_reference() {
    let (ours, reference) = (ours(), reference());
    let (secret, public) = ours.kem_generate().unwrap();
    ours.kem_public_key_validate(&public).unwrap();
    let sealed = ours
        .hpke_seal(&public, b"info", Some(b"aad"), b"welcome secrets")
        .unwrap();
    let opened = reference
        .hpke_open(&sealed, &secret, &public, b"info", Some(b"aad"))
        .unwrap();
    assert_eq!(*opened, b"welcome secrets");
    assert!(
        ours.hpke_open(&sealed, &secret, &public, b"other", Some(b"aad"))
            .is_err()
    );
    let (derived_secret, derived_public) = ours.kem_derive(&[7; 32]).unwrap();
    assert_eq!(
        (derived_secret, derived_public),
        reference.kem_derive(&[7; 32]).unwrap()
    );
}
