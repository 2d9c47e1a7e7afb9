//! Optional record signatures: ECDSA P-256 with SHA-256, raw `r || s` (64 bytes),
//! exactly what Web Crypto's `sign({name: 'ECDSA', hash: 'SHA-256'}, …)` produces
//! and `verify` accepts.
//!
//! A signature is over `"sealed-record/v1 sig" || ctx_digest || record`, where
//! `record` is everything before the 64-byte trailer. It is made with a *separate*
//! key: [`SigningIdentity`] is never the ECDH identity (the
//! [`Sealer`](super::Sealer) refuses one that is), and its keys travel in the same
//! PKCS#8 / SPKI forms as identities.

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use p256::ecdsa::signature::{MultipartSigner as _, MultipartVerifier as _};
use p256::ecdsa::{Signature, SigningKey, VerifyingKey};
use p256::elliptic_curve::Generate as _;
use p256::pkcs8::DecodePublicKey as _;
use zeroize::Zeroizing;

use super::identity::{
    Fingerprint, KeyError, PublicKey, pkcs8_der_from_base64, secret_from_pkcs8_der,
    secret_to_pkcs8_der,
};

/// Length of a signature: raw `r || s` of ECDSA P-256 (Web Crypto's form).
pub const SIGNATURE_LEN: usize = 64;

/// A private ECDSA P-256 signing key (zeroized on drop, redacted `Debug`).
#[derive(Clone)]
pub struct SigningIdentity {
    key: SigningKey,
    public: SigningPublicKey,
}

impl SigningIdentity {
    /// Generates a fresh signing key from the operating system's random source.
    ///
    /// # Errors
    /// [`KeyError::Rng`].
    pub fn generate() -> Result<Self, KeyError> {
        let key = SigningKey::try_generate_from_rng(&mut rand::rngs::SysRng)
            .map_err(|_| KeyError::Rng)?;
        Ok(Self::from_key(key))
    }

    fn from_key(key: SigningKey) -> Self {
        let public = SigningPublicKey::from_key(*key.verifying_key());
        Self { key, public }
    }

    /// Imports PKCS#8 DER (Web Crypto's `exportKey('pkcs8')` of an ECDSA key).
    ///
    /// # Errors
    /// [`KeyError::InvalidPkcs8`].
    pub fn from_pkcs8_der(der: &[u8]) -> Result<Self, KeyError> {
        secret_from_pkcs8_der(der).map(|secret| Self::from_key(SigningKey::from(&secret)))
    }

    /// Imports standard padded base64 of PKCS#8 DER.
    ///
    /// # Errors
    /// [`KeyError::Base64`] or [`KeyError::InvalidPkcs8`].
    pub fn from_pkcs8_base64(b64: &str) -> Result<Self, KeyError> {
        Self::from_pkcs8_der(&pkcs8_der_from_base64(b64)?)
    }

    /// Exports PKCS#8 DER (138 bytes, public key inside).
    pub fn to_pkcs8_der(&self) -> Zeroizing<Vec<u8>> {
        // A SecretKey wipes its scalar on drop, like the SigningKey it copies.
        secret_to_pkcs8_der(&p256::SecretKey::from(&self.key))
    }

    /// Exports standard padded base64 of the PKCS#8 DER.
    pub fn to_pkcs8_base64(&self) -> Zeroizing<String> {
        Zeroizing::new(B64.encode(&*self.to_pkcs8_der()))
    }

    /// The matching public key, to hand to readers.
    pub const fn public_key(&self) -> &SigningPublicKey {
        &self.public
    }

    /// Signs the concatenation of `parts` (deterministic ECDSA, RFC 6979).
    pub(crate) fn sign_parts(&self, parts: &[&[u8]]) -> [u8; SIGNATURE_LEN] {
        let sig: Signature = self.key.multipart_sign(parts);
        sig.to_bytes().into()
    }
}

impl fmt::Debug for SigningIdentity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SigningIdentity")
            .field("fingerprint", &self.public.fingerprint().to_hex())
            .field("secret", &"<redacted>")
            .finish()
    }
}

/// A sender's ECDSA P-256 verifying key, with the canonical SPKI fingerprint.
#[derive(Clone, PartialEq, Eq)]
pub struct SigningPublicKey {
    key: VerifyingKey,
    spki: PublicKey,
}

impl SigningPublicKey {
    fn from_key(key: VerifyingKey) -> Self {
        let point = p256::PublicKey::from(&key);
        Self {
            key,
            spki: PublicKey::from_point(point),
        }
    }

    /// Parses SPKI DER (Web Crypto's `exportKey('spki')` of an ECDSA key).
    ///
    /// # Errors
    /// [`KeyError::InvalidSpki`].
    pub fn from_spki_der(der: &[u8]) -> Result<Self, KeyError> {
        VerifyingKey::from_public_key_der(der)
            .map(Self::from_key)
            .map_err(|_| KeyError::InvalidSpki { len: der.len() })
    }

    /// Parses standard padded base64 of SPKI DER.
    ///
    /// # Errors
    /// [`KeyError::Base64`] or [`KeyError::InvalidSpki`].
    pub fn from_spki_base64(b64: &str) -> Result<Self, KeyError> {
        let der = B64
            .decode(b64.trim())
            .map_err(|_| KeyError::Base64 { what: "SPKI" })?;
        Self::from_spki_der(&der)
    }

    /// Standard padded base64 of the canonical SPKI.
    pub fn to_spki_base64(&self) -> String {
        self.spki.to_spki_base64()
    }

    /// The canonical 91-byte SPKI DER.
    pub const fn spki_der(&self) -> &[u8; 91] {
        self.spki.spki_der()
    }

    /// `SHA-256(canonical SPKI)`.
    pub const fn fingerprint(&self) -> &Fingerprint {
        self.spki.fingerprint()
    }

    /// The same point viewed as an ECDH public key (to refuse key reuse).
    pub(crate) const fn as_ecdh_key(&self) -> &PublicKey {
        &self.spki
    }

    /// Verifies a raw `r || s` signature over the concatenation of `parts`.
    pub(crate) fn verify_parts(&self, parts: &[&[u8]], sig: &[u8; SIGNATURE_LEN]) -> bool {
        let Ok(sig) = Signature::from_slice(sig) else {
            return false;
        };
        self.key.multipart_verify(parts, &sig).is_ok()
    }
}

impl fmt::Debug for SigningPublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SigningPublicKey")
            .field("fingerprint", &self.fingerprint().to_hex())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signs_and_verifies_parts_as_one_message() {
        let id = SigningIdentity::generate().expect("os rng");
        let sig = id.sign_parts(&[b"ab", b"cd"]);
        let public = SigningPublicKey::from_spki_base64(&id.public_key().to_spki_base64())
            .expect("spki round trip");
        assert!(public.verify_parts(&[b"abcd"], &sig));
        assert!(!public.verify_parts(&[b"abce"], &sig));
        let back = SigningIdentity::from_pkcs8_base64(&id.to_pkcs8_base64()).expect("pkcs8");
        assert_eq!(back.to_pkcs8_der().len(), 138);
        assert_eq!(back.public_key(), id.public_key());
    }
}
