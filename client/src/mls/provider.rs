//! The mls-rs crypto provider of the client: ciphersuite 2
//! (`MLS_128_DHKEMP256_AES128GCM_SHA256_P256`) and nothing else.
//!
//! What runs where (`docs/MLS.md` §1.2, §1.5):
//! - on **aws-lc-rs** (AWS-LC): ECDSA P-256 with SHA-256 — DER
//!   signatures, uncompressed SEC1 public keys — which every message pays
//!   for twice (the sender signs, every receiver verifies); SHA-256;
//!   HMAC-SHA-256; HKDF-SHA-256 (extract is the HMAC of RFC 5869, expand
//!   AWS-LC's `HKDF_expand`).
//! - on **the client's AEAD** (`crate::crypto::aead`): AES-128-GCM, so it
//!   runs on AWS-LC by default and on RustCrypto's `aes-gcm` with the cargo
//!   feature `rustcrypto-aead`.
//! - forwarded to **`mls-rs-crypto-rustcrypto`**'s suite-2 provider: HPKE
//!   (DHKEM(P-256, HKDF-SHA256), base and PSK modes), KEM key derivation,
//!   generation and validation, signature key generation and random bytes.
//!   They are not on the per-message path, and HPKE stays in a maintained
//!   implementation.
//!
//! Any other input shape — a key, nonce or PRK of the wrong length, a public
//! key that is not an uncompressed P-256 point, a scalar out of range — is a
//! [`ProviderError`], never a panic. Where the reference is stricter than
//! the primitives' specifications, this provider follows the specifications
//! (mls-rs passes neither): an empty AES-GCM plaintext is sealed, an empty
//! HKDF input keying material extracted. It is stricter in one place: a PRK
//! is exactly 32 bytes (every MLS secret is), where the reference takes any
//! length from 32 up.
//!
//! **Signing keys.** mls-rs hands [`CipherSuiteProvider::sign`] the raw
//! 32-byte scalar on every call. Building an AWS-LC key from a scalar costs
//! a scalar multiplication (the public key) and two parses — about as much
//! as the signature itself — so [`Suite2`] keeps the last few parsed keys
//! ([`CACHED_SIGNING_KEYS`]), shared by every clone of one provider (mls-rs
//! clones the cipher-suite provider into each group). An entry is found by
//! comparing the whole scalar in constant time, so a hit is exactly the same
//! key. The cached scalars are in [`Zeroizing`] buffers and the parsed keys
//! live in AWS-LC's heap, which wipes them when freed; a device signs with
//! one key, so the cache holds that key for as long as the provider lives,
//! as the group state does anyway.

use std::fmt;
use std::sync::{Arc, Mutex};

use aws_lc_rs::agreement;
use aws_lc_rs::constant_time::verify_slices_are_equal;
use aws_lc_rs::digest::{SHA256, digest};
use aws_lc_rs::hkdf::{HKDF_SHA256, KeyType, Prk};
use aws_lc_rs::hmac::{self, HMAC_SHA256};
use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::signature::{
    ECDSA_P256_SHA256_ASN1, ECDSA_P256_SHA256_ASN1_SIGNING, EcdsaKeyPair, KeyPair as _,
    UnparsedPublicKey,
};
use mls_rs_core::crypto::{
    CipherSuite, CipherSuiteProvider, CryptoProvider, HpkeCiphertext, HpkePsk, HpkePublicKey,
    HpkeSecretKey, SignaturePublicKey, SignatureSecretKey,
};
use mls_rs_core::error::IntoAnyError;
use mls_rs_crypto_rustcrypto::{RustCryptoError, RustCryptoProvider};
use zeroize::Zeroizing;

use crate::crypto::aead;
use crate::lock::lock;

/// The one ciphersuite offered.
pub const CIPHER_SUITE: CipherSuite = CipherSuite::P256_AES128;

/// How many parsed signing keys a provider keeps (most recently used first).
/// A device signs with one key; tests and multi-identity tools with a few.
pub const CACHED_SIGNING_KEYS: usize = 4;

/// AES-128-GCM key length.
const AEAD_KEY_LEN: usize = 16;
/// AES-GCM nonce length.
const AEAD_NONCE_LEN: usize = 12;
/// AES-GCM tag length.
const AEAD_TAG_LEN: usize = 16;
/// SHA-256 output: HKDF's PRK and `Nh` of the suite.
const HASH_LEN: usize = 32;
/// A P-256 private key: a big-endian scalar.
const SCALAR_LEN: usize = 32;
/// A P-256 public key: `0x04 || x || y` (uncompressed SEC1).
const PUBLIC_KEY_LEN: usize = 65;
/// The first byte of an uncompressed SEC1 point.
const UNCOMPRESSED: u8 = 0x04;

/// The reference provider's suite 2, to which HPKE, the KEM, key generation
/// and random bytes are forwarded.
type Reference = <RustCryptoProvider as CryptoProvider>::CipherSuiteProvider;

/// Why a cryptographic operation of the provider failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProviderError {
    /// An input of a fixed length had another.
    #[error("{what} must be {expected} bytes, got {got}")]
    Length {
        /// What the input is (AEAD key, AEAD nonce, HKDF PRK, signing key).
        what: &'static str,
        /// The length the suite requires.
        expected: usize,
        /// The length given.
        got: usize,
    },
    /// An AEAD ciphertext shorter than its tag.
    #[error("AEAD ciphertext of {len} bytes is shorter than its 16-byte tag")]
    CiphertextTooShort {
        /// The length given.
        len: usize,
    },
    /// The AEAD tag did not verify: wrong key, nonce, associated data or ciphertext.
    #[error("AEAD authentication failed")]
    AuthFailed,
    /// HKDF-Expand was asked for more than 255 × 32 bytes.
    #[error("HKDF-Expand output of {requested} bytes exceeds {max}")]
    KdfOutputTooLong {
        /// The length asked for.
        requested: usize,
        /// HKDF-SHA-256's limit.
        max: usize,
    },
    /// A signing key that is not a P-256 scalar in `[1, n-1]`.
    #[error("the signing key is not a valid P-256 private key")]
    InvalidSigningKey,
    /// A signature public key that is not 65 bytes starting with `0x04` (an
    /// uncompressed SEC1 point); a well-formed one that is not on the curve
    /// fails as [`ProviderError::InvalidSignature`].
    #[error("the signature public key ({len} bytes) is not an uncompressed P-256 point")]
    InvalidPublicKey {
        /// The length given.
        len: usize,
    },
    /// The signature does not verify under the public key (or is not DER, or
    /// the key is not a point on P-256).
    #[error("invalid signature")]
    InvalidSignature,
    /// AWS-LC refused an operation whose inputs were checked (should not happen).
    #[error("AWS-LC failed to {0}")]
    Backend(&'static str),
    /// An operation forwarded to `mls-rs-crypto-rustcrypto` (HPKE, KEM, key
    /// generation, random bytes) failed.
    #[error("forwarded operation failed")]
    Forwarded(#[from] RustCryptoError),
}

impl IntoAnyError for ProviderError {
    fn into_dyn_error(self) -> Result<Box<dyn std::error::Error + Send + Sync>, Self> {
        Ok(self.into())
    }
}

/// The client's mls-rs [`CryptoProvider`]: ciphersuite 2 only.
#[derive(Clone, Debug)]
pub struct Suite2Provider {
    suite: Suite2,
}

impl Suite2Provider {
    /// A provider with an empty signing-key cache.
    ///
    /// # Panics
    /// Never: `mls-rs-crypto-rustcrypto` offers suite 2 (checked by the tests).
    #[must_use]
    pub fn new() -> Self {
        Self {
            suite: Suite2::new(),
        }
    }
}

impl Default for Suite2Provider {
    fn default() -> Self {
        Self::new()
    }
}

impl CryptoProvider for Suite2Provider {
    type CipherSuiteProvider = Suite2;

    fn supported_cipher_suites(&self) -> Vec<CipherSuite> {
        vec![CIPHER_SUITE]
    }

    fn cipher_suite_provider(&self, cipher_suite: CipherSuite) -> Option<Suite2> {
        (cipher_suite == CIPHER_SUITE).then(|| self.suite.clone())
    }
}

/// Ciphersuite 2's operations (see the module documentation for what runs
/// where). Clones share one signing-key cache.
#[derive(Clone)]
pub struct Suite2 {
    reference: Reference,
    signing_keys: Arc<SigningKeys>,
}

impl fmt::Debug for Suite2 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Suite2")
            .field("cipher_suite", &u16::from(CIPHER_SUITE))
            .field("cached_signing_keys", &lock(&self.signing_keys.0).len())
            .finish()
    }
}

impl Suite2 {
    fn new() -> Self {
        let reference = RustCryptoProvider::with_enabled_cipher_suites(vec![CIPHER_SUITE])
            .cipher_suite_provider(CIPHER_SUITE)
            .expect("mls-rs-crypto-rustcrypto offers ciphersuite 2");
        Self {
            reference,
            signing_keys: Arc::new(SigningKeys(Mutex::new(Vec::new()))),
        }
    }

    /// The parsed key pair of `scalar`, from the cache or parsed (and cached).
    fn key_pair(&self, scalar: &[u8]) -> Result<Arc<EcdsaKeyPair>, ProviderError> {
        let scalar: &[u8; SCALAR_LEN] = scalar.try_into().map_err(|_| ProviderError::Length {
            what: "signing key",
            expected: SCALAR_LEN,
            got: scalar.len(),
        })?;
        if let Some(pair) = self.signing_keys.get(scalar) {
            return Ok(pair);
        }
        // Parsed outside the lock: the scalar multiplication takes ~10 µs.
        let pair = Arc::new(parse_signing_key(scalar)?);
        self.signing_keys.insert(scalar, Arc::clone(&pair));
        Ok(pair)
    }
}

/// Parsed signing keys, most recently used first, at most [`CACHED_SIGNING_KEYS`].
struct SigningKeys(Mutex<Vec<CachedKey>>);

/// One cached signing key: its scalar (to find it again) and the parsed pair.
struct CachedKey {
    scalar: Zeroizing<[u8; SCALAR_LEN]>,
    pair: Arc<EcdsaKeyPair>,
}

impl SigningKeys {
    fn get(&self, scalar: &[u8; SCALAR_LEN]) -> Option<Arc<EcdsaKeyPair>> {
        // The lock guards a short Vec; held for a few comparisons, no parsing.
        let mut keys = lock(&self.0);
        let at = keys
            .iter()
            .position(|k| verify_slices_are_equal(&k.scalar[..], scalar).is_ok())?;
        let hit = keys.remove(at);
        let pair = Arc::clone(&hit.pair);
        keys.insert(0, hit);
        Some(pair)
    }

    fn insert(&self, scalar: &[u8; SCALAR_LEN], pair: Arc<EcdsaKeyPair>) {
        let mut keys = lock(&self.0);
        // Two threads may have parsed the same key at once: keep one entry.
        if let Some(at) = keys
            .iter()
            .position(|k| verify_slices_are_equal(&k.scalar[..], scalar).is_ok())
        {
            keys.remove(at);
        }
        keys.insert(
            0,
            CachedKey {
                scalar: Zeroizing::new(*scalar),
                pair,
            },
        );
        keys.truncate(CACHED_SIGNING_KEYS);
    }
}

/// Builds an AWS-LC ECDSA key pair from a P-256 scalar: the public key is
/// computed (the scalar is checked to be in range on the way), then both are
/// imported together, which AWS-LC checks for consistency.
fn parse_signing_key(scalar: &[u8; SCALAR_LEN]) -> Result<EcdsaKeyPair, ProviderError> {
    let private = agreement::PrivateKey::from_private_key(&agreement::ECDH_P256, scalar)
        .map_err(|_| ProviderError::InvalidSigningKey)?;
    let public = private
        .compute_public_key()
        .map_err(|_| ProviderError::InvalidSigningKey)?;
    EcdsaKeyPair::from_private_key_and_public_key(
        &ECDSA_P256_SHA256_ASN1_SIGNING,
        scalar,
        public.as_ref(),
    )
    .map_err(|_| ProviderError::InvalidSigningKey)
}

/// Checks a fixed-length input.
fn check_len(what: &'static str, got: usize, expected: usize) -> Result<(), ProviderError> {
    if got == expected {
        Ok(())
    } else {
        Err(ProviderError::Length {
            what,
            expected,
            got,
        })
    }
}

/// The AES-128-GCM key and nonce of one call, checked for length.
fn aead_key<'a>(
    key: &'a [u8],
    nonce: &'a [u8],
) -> Result<(&'a [u8; AEAD_KEY_LEN], &'a [u8; AEAD_NONCE_LEN]), ProviderError> {
    check_len("AEAD key", key.len(), AEAD_KEY_LEN)?;
    check_len("AEAD nonce", nonce.len(), AEAD_NONCE_LEN)?;
    Ok((
        key.try_into().expect("the length was checked"),
        nonce.try_into().expect("the length was checked"),
    ))
}

/// An HKDF-Expand output length, as aws-lc-rs wants it.
struct OutputLen(usize);

impl KeyType for OutputLen {
    fn len(&self) -> usize {
        self.0
    }
}

impl CipherSuiteProvider for Suite2 {
    type Error = ProviderError;
    type HpkeContextS = <Reference as CipherSuiteProvider>::HpkeContextS;
    type HpkeContextR = <Reference as CipherSuiteProvider>::HpkeContextR;

    fn cipher_suite(&self) -> CipherSuite {
        CIPHER_SUITE
    }

    fn hash(&self, data: &[u8]) -> Result<Vec<u8>, ProviderError> {
        Ok(digest(&SHA256, data).as_ref().to_vec())
    }

    fn mac(&self, key: &[u8], data: &[u8]) -> Result<Vec<u8>, ProviderError> {
        Ok(hmac::sign(&hmac::Key::new(HMAC_SHA256, key), data)
            .as_ref()
            .to_vec())
    }

    fn aead_seal(
        &self,
        key: &[u8],
        data: &[u8],
        aad: Option<&[u8]>,
        nonce: &[u8],
    ) -> Result<Vec<u8>, ProviderError> {
        let (key, nonce) = aead_key(key, nonce)?;
        let mut out = Vec::with_capacity(data.len() + AEAD_TAG_LEN);
        out.extend_from_slice(data);
        let tag = aead::aes128_gcm_seal(key, nonce, aad.unwrap_or_default(), &mut out);
        out.extend_from_slice(&tag);
        Ok(out)
    }

    fn aead_open(
        &self,
        key: &[u8],
        ciphertext: &[u8],
        aad: Option<&[u8]>,
        nonce: &[u8],
    ) -> Result<Zeroizing<Vec<u8>>, ProviderError> {
        let (key, nonce) = aead_key(key, nonce)?;
        if ciphertext.len() < AEAD_TAG_LEN {
            return Err(ProviderError::CiphertextTooShort {
                len: ciphertext.len(),
            });
        }
        let mut out = Zeroizing::new(ciphertext.to_vec());
        let len = aead::aes128_gcm_open(key, nonce, aad.unwrap_or_default(), &mut out)
            .map_err(|_| ProviderError::AuthFailed)?;
        out.truncate(len);
        Ok(out)
    }

    fn aead_key_size(&self) -> usize {
        AEAD_KEY_LEN
    }

    fn aead_nonce_size(&self) -> usize {
        AEAD_NONCE_LEN
    }

    fn kdf_extract(&self, salt: &[u8], ikm: &[u8]) -> Result<Zeroizing<Vec<u8>>, ProviderError> {
        // RFC 5869: PRK = HMAC-Hash(salt, IKM). An empty salt is HMAC's
        // zero-padded key, i.e. the RFC's default of HashLen zero bytes.
        let mut prk = Zeroizing::new(vec![0; HASH_LEN]);
        hmac::sign_to_buffer(&hmac::Key::new(HMAC_SHA256, salt), ikm, &mut prk)
            .map_err(|_| ProviderError::Backend("compute an HMAC"))?;
        Ok(prk)
    }

    fn kdf_expand(
        &self,
        prk: &[u8],
        info: &[u8],
        len: usize,
    ) -> Result<Zeroizing<Vec<u8>>, ProviderError> {
        check_len("HKDF PRK", prk.len(), HASH_LEN)?;
        let max = 255 * HASH_LEN;
        if len > max {
            return Err(ProviderError::KdfOutputTooLong {
                requested: len,
                max,
            });
        }
        // `Prk` wipes its copy of the key when dropped.
        let prk = Prk::new_less_safe(HKDF_SHA256, prk);
        let mut out = Zeroizing::new(vec![0; len]);
        prk.expand(&[info], OutputLen(len))
            .and_then(|okm| okm.fill(&mut out))
            .map_err(|_| ProviderError::Backend("expand with HKDF"))?;
        Ok(out)
    }

    fn kdf_extract_size(&self) -> usize {
        HASH_LEN
    }

    fn hpke_seal(
        &self,
        remote_key: &HpkePublicKey,
        info: &[u8],
        aad: Option<&[u8]>,
        pt: &[u8],
    ) -> Result<HpkeCiphertext, ProviderError> {
        Ok(self.reference.hpke_seal(remote_key, info, aad, pt)?)
    }

    fn hpke_seal_psk(
        &self,
        remote_key: &HpkePublicKey,
        info: &[u8],
        aad: Option<&[u8]>,
        pt: &[u8],
        psk: HpkePsk<'_>,
    ) -> Result<HpkeCiphertext, ProviderError> {
        Ok(self
            .reference
            .hpke_seal_psk(remote_key, info, aad, pt, psk)?)
    }

    fn hpke_open(
        &self,
        ciphertext: &HpkeCiphertext,
        local_secret: &HpkeSecretKey,
        local_public: &HpkePublicKey,
        info: &[u8],
        aad: Option<&[u8]>,
    ) -> Result<Zeroizing<Vec<u8>>, ProviderError> {
        Ok(self
            .reference
            .hpke_open(ciphertext, local_secret, local_public, info, aad)?)
    }

    fn hpke_open_psk(
        &self,
        ciphertext: &HpkeCiphertext,
        local_secret: &HpkeSecretKey,
        local_public: &HpkePublicKey,
        info: &[u8],
        aad: Option<&[u8]>,
        psk: HpkePsk<'_>,
    ) -> Result<Zeroizing<Vec<u8>>, ProviderError> {
        Ok(self
            .reference
            .hpke_open_psk(ciphertext, local_secret, local_public, info, aad, psk)?)
    }

    fn hpke_setup_s(
        &self,
        remote_key: &HpkePublicKey,
        info: &[u8],
    ) -> Result<(Vec<u8>, Self::HpkeContextS), ProviderError> {
        Ok(self.reference.hpke_setup_s(remote_key, info)?)
    }

    fn hpke_setup_r(
        &self,
        kem_output: &[u8],
        local_secret: &HpkeSecretKey,
        local_public: &HpkePublicKey,
        info: &[u8],
    ) -> Result<Self::HpkeContextR, ProviderError> {
        Ok(self
            .reference
            .hpke_setup_r(kem_output, local_secret, local_public, info)?)
    }

    fn kem_derive(&self, ikm: &[u8]) -> Result<(HpkeSecretKey, HpkePublicKey), ProviderError> {
        Ok(self.reference.kem_derive(ikm)?)
    }

    fn kem_generate(&self) -> Result<(HpkeSecretKey, HpkePublicKey), ProviderError> {
        Ok(self.reference.kem_generate()?)
    }

    fn kem_public_key_validate(&self, key: &HpkePublicKey) -> Result<(), ProviderError> {
        Ok(self.reference.kem_public_key_validate(key)?)
    }

    fn random_bytes(&self, out: &mut [u8]) -> Result<(), ProviderError> {
        Ok(CipherSuiteProvider::random_bytes(&self.reference, out)?)
    }

    fn signature_key_generate(
        &self,
    ) -> Result<(SignatureSecretKey, SignaturePublicKey), ProviderError> {
        Ok(self.reference.signature_key_generate()?)
    }

    fn signature_key_derive_public(
        &self,
        secret_key: &SignatureSecretKey,
    ) -> Result<SignaturePublicKey, ProviderError> {
        let pair = self.key_pair(secret_key.as_bytes())?;
        Ok(SignaturePublicKey::new_slice(pair.public_key().as_ref()))
    }

    fn sign(&self, secret_key: &SignatureSecretKey, data: &[u8]) -> Result<Vec<u8>, ProviderError> {
        let pair = self.key_pair(secret_key.as_bytes())?;
        // aws-lc-rs ignores the generator argument (AWS-LC draws the nonce).
        let signature = pair
            .sign(&SystemRandom::new(), data)
            .map_err(|_| ProviderError::Backend("sign"))?;
        Ok(signature.as_ref().to_vec())
    }

    fn verify(
        &self,
        public_key: &SignaturePublicKey,
        signature: &[u8],
        data: &[u8],
    ) -> Result<(), ProviderError> {
        let key = public_key.as_bytes();
        // aws-lc-rs would also take a compressed point or an SPKI; RFC 9420
        // keys are uncompressed points, and nothing else is accepted here.
        if key.len() != PUBLIC_KEY_LEN || key[0] != UNCOMPRESSED {
            return Err(ProviderError::InvalidPublicKey { len: key.len() });
        }
        UnparsedPublicKey::new(&ECDSA_P256_SHA256_ASN1, key)
            .verify(data, signature)
            .map_err(|_| ProviderError::InvalidSignature)
    }
}
