//! Identities: P-256 ECDH key pairs, byte-compatible with the Web Crypto API.
//!
//! - [`Identity`] is a private key. It imports and exports standard padded base64
//!   of PKCS#8 DER, 138 bytes with the public key inside, exactly what
//!   `crypto.subtle.exportKey('pkcs8', …)` gives (Safari cannot import one without).
//! - [`PublicKey`] is a peer's key. It always holds the *canonical* 91-byte SPKI
//!   (uncompressed point), re-encoded from whatever was parsed, so one key has one
//!   [`Fingerprint`] and one [`Kid`] no matter how it was presented (Node accepts
//!   trailing bytes and hybrid points; compressed points are valid too).
//! - `fp = SHA-256(canonical SPKI)`, `kid = fp[0..8]`.

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use hermit_protocol::auth::{P256_SIGNATURE_LEN, transcript_bound};
use hermit_protocol::hello::NONCE_LEN;
use p256::ecdsa::signature::Signer as _;
use p256::elliptic_curve::Generate as _;
use p256::pkcs8::EncodePublicKey as _;
use p256::pkcs8::{DecodePrivateKey as _, DecodePublicKey as _, EncodePrivateKey as _};
use sha2::{Digest as _, Sha256};
use zeroize::{Zeroize as _, Zeroizing};

/// Length of an exported PKCS#8 private key (with the public key inside).
pub const PKCS8_LEN: usize = 138;
/// Length of a canonical SPKI public key (uncompressed P-256 point).
pub const SPKI_LEN: usize = 91;
/// Length of a [`Fingerprint`].
pub const FINGERPRINT_LEN: usize = 32;
/// Length of a [`Kid`].
pub const KID_LEN: usize = 8;
/// Length of an [`Identity::sign_auth`] signature (raw `r‖s`).
pub const AUTH_SIGNATURE_LEN: usize = P256_SIGNATURE_LEN;

/// Length of an uncompressed SEC1 P-256 point (`0x04 ‖ x ‖ y`).
pub const SEC1_UNCOMPRESSED_LEN: usize = 65;

/// Why a key could not be imported or generated.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeyError {
    /// The text is not standard padded base64.
    #[error("{what} is not standard padded base64")]
    Base64 {
        /// Which input ("PKCS#8", "SPKI", …).
        what: &'static str,
    },
    /// The bytes are not a PKCS#8 P-256 private key (or its embedded public key
    /// does not match the private scalar).
    #[error("not a PKCS#8 P-256 private key ({len} bytes)")]
    InvalidPkcs8 {
        /// Length of the rejected input.
        len: usize,
    },
    /// The bytes are not a SubjectPublicKeyInfo holding a valid P-256 point.
    #[error("not an SPKI P-256 public key ({len} bytes)")]
    InvalidSpki {
        /// Length of the rejected input.
        len: usize,
    },
    /// The bytes are not a SEC1-encoded P-256 point.
    #[error("not a SEC1 P-256 point ({len} bytes)")]
    InvalidPoint {
        /// Length of the rejected input.
        len: usize,
    },
    /// The operating system's random number generator failed.
    #[error("the operating system's random number generator failed")]
    Rng,
}

/// `SHA-256(canonical SPKI)`: the one identifier of a public key.
///
/// `Display` shows 16 groups of 4 hex digits, for people to compare out of band
/// (`3f2a 9c01 …`); [`Fingerprint::to_hex`] gives the plain hex string.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Fingerprint([u8; FINGERPRINT_LEN]);

/// Hashes the first 8 bytes only: a SHA-256 output is already uniform, and the
/// sealer and opener look fingerprints up on every record.
impl std::hash::Hash for Fingerprint {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.kid().hash(state);
    }
}

impl Fingerprint {
    /// Fingerprint of already-canonical SPKI bytes.
    pub(crate) fn of_spki(spki: &[u8]) -> Self {
        Self(Sha256::digest(spki).into())
    }

    /// Wraps raw fingerprint bytes (e.g. read back from a contact list).
    #[inline]
    pub const fn from_bytes(bytes: [u8; FINGERPRINT_LEN]) -> Self {
        Self(bytes)
    }

    /// The 32 fingerprint bytes.
    #[inline]
    pub const fn as_bytes(&self) -> &[u8; FINGERPRINT_LEN] {
        &self.0
    }

    /// The key id: the first 8 bytes.
    #[inline]
    pub fn kid(&self) -> Kid {
        let mut kid = [0u8; KID_LEN];
        kid.copy_from_slice(&self.0[..KID_LEN]);
        Kid(kid)
    }

    /// Lower-case hex, 64 characters, no separators.
    pub fn to_hex(&self) -> String {
        hex(&self.0)
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, pair) in self.0.chunks(2).enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{:02x}{:02x}", pair[0], pair[1])?;
        }
        Ok(())
    }
}

impl fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Fingerprint({})", self.to_hex())
    }
}

/// Key id: the first 8 bytes of a [`Fingerprint`], carried in record headers.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Kid([u8; KID_LEN]);

/// One `u64` write instead of a length-prefixed slice: half the SipHash input.
impl std::hash::Hash for Kid {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(u64::from_ne_bytes(self.0));
    }
}

impl Kid {
    /// Wraps raw key-id bytes (e.g. read from a record header).
    #[inline]
    pub const fn from_bytes(bytes: [u8; KID_LEN]) -> Self {
        Self(bytes)
    }

    /// The 8 key-id bytes.
    #[inline]
    pub const fn as_bytes(&self) -> &[u8; KID_LEN] {
        &self.0
    }
}

impl fmt::Display for Kid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&hex(&self.0))
    }
}

impl fmt::Debug for Kid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Kid({})", hex(&self.0))
    }
}

fn hex(bytes: &[u8]) -> String {
    use fmt::Write as _;
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        // Writing to a String cannot fail.
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// A peer's P-256 public key, kept with its canonical SPKI and fingerprint.
///
/// Equality and hashing are by fingerprint, i.e. by the point itself.
#[derive(Clone)]
pub struct PublicKey {
    point: p256::PublicKey,
    spki: [u8; SPKI_LEN],
    fp: Fingerprint,
}

impl PublicKey {
    pub(crate) fn from_point(point: p256::PublicKey) -> Self {
        let der = point
            .to_public_key_der()
            .expect("a valid P-256 point always encodes as SPKI");
        let mut spki = [0u8; SPKI_LEN];
        spki.copy_from_slice(der.as_bytes());
        let fp = Fingerprint::of_spki(&spki);
        Self { point, spki, fp }
    }

    /// Parses SPKI DER (strict DER; compressed or uncompressed point) and
    /// re-encodes it canonically.
    ///
    /// # Errors
    /// [`KeyError::InvalidSpki`] if it is not an id-ecPublicKey/prime256v1 SPKI
    /// holding a point on the curve.
    pub fn from_spki_der(der: &[u8]) -> Result<Self, KeyError> {
        p256::PublicKey::from_public_key_der(der)
            .map(Self::from_point)
            .map_err(|_| KeyError::InvalidSpki { len: der.len() })
    }

    /// Parses standard padded base64 of SPKI DER (Web Crypto's `exportKey('spki')`).
    ///
    /// # Errors
    /// [`KeyError::Base64`] or [`KeyError::InvalidSpki`].
    pub fn from_spki_base64(b64: &str) -> Result<Self, KeyError> {
        let der = B64
            .decode(b64.trim())
            .map_err(|_| KeyError::Base64 { what: "SPKI" })?;
        Self::from_spki_der(&der)
    }

    /// Parses a SEC1 point (Web Crypto's `exportKey('raw')`: 65 bytes uncompressed,
    /// or 33 compressed).
    ///
    /// # Errors
    /// [`KeyError::InvalidPoint`] if it is not a point on P-256.
    pub fn from_sec1_bytes(bytes: &[u8]) -> Result<Self, KeyError> {
        p256::PublicKey::from_sec1_bytes(bytes)
            .map(Self::from_point)
            .map_err(|_| KeyError::InvalidPoint { len: bytes.len() })
    }

    /// The canonical 91-byte SPKI DER.
    pub const fn spki_der(&self) -> &[u8; SPKI_LEN] {
        &self.spki
    }

    /// Standard padded base64 of the canonical SPKI.
    pub fn to_spki_base64(&self) -> String {
        B64.encode(self.spki)
    }

    /// `SHA-256(canonical SPKI)`.
    #[inline]
    pub const fn fingerprint(&self) -> &Fingerprint {
        &self.fp
    }

    /// The first 8 bytes of the fingerprint.
    #[inline]
    pub fn kid(&self) -> Kid {
        self.fp.kid()
    }

    pub(crate) const fn point(&self) -> &p256::PublicKey {
        &self.point
    }

    /// The uncompressed SEC1 point (65 bytes: `0x04 ‖ x ‖ y`), the form MLS
    /// leaves and our MLS credentials carry (the tail of the canonical SPKI).
    pub fn to_sec1_uncompressed(&self) -> [u8; SEC1_UNCOMPRESSED_LEN] {
        let mut out = [0u8; SEC1_UNCOMPRESSED_LEN];
        out.copy_from_slice(&self.spki[SPKI_LEN - SEC1_UNCOMPRESSED_LEN..]);
        out
    }

    /// Checks a raw `r‖s` ECDSA-P256-SHA256 signature by this key over
    /// `message` (made by [`Identity::sign_labelled`] or Web Crypto).
    pub(crate) fn verify_labelled(&self, message: &[u8], signature: &[u8]) -> bool {
        use p256::ecdsa::signature::Verifier as _;
        let Ok(sig) = p256::ecdsa::Signature::from_slice(signature) else {
            return false;
        };
        p256::ecdsa::VerifyingKey::from(&self.point)
            .verify(message, &sig)
            .is_ok()
    }
}

impl PartialEq for PublicKey {
    fn eq(&self, other: &Self) -> bool {
        self.fp == other.fp
    }
}

impl Eq for PublicKey {}

impl std::hash::Hash for PublicKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.fp.hash(state);
    }
}

impl fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PublicKey")
            .field("fingerprint", &self.fp.to_hex())
            .finish()
    }
}

/// One's own P-256 ECDH key pair.
///
/// The private scalar is zeroized on drop; `Debug` shows only the key id.
#[derive(Clone)]
pub struct Identity {
    secret: p256::SecretKey,
    public: PublicKey,
}

impl Identity {
    /// Generates a fresh key pair from the operating system's random source.
    ///
    /// # Errors
    /// [`KeyError::Rng`] if the OS random source fails.
    pub fn generate() -> Result<Self, KeyError> {
        let secret = p256::SecretKey::try_generate_from_rng(&mut rand::rngs::SysRng)
            .map_err(|_| KeyError::Rng)?;
        Ok(Self::from_secret(secret))
    }

    fn from_secret(secret: p256::SecretKey) -> Self {
        let public = PublicKey::from_point(secret.public_key());
        Self { secret, public }
    }

    /// Imports PKCS#8 DER. If the key carries its public key (Web Crypto's always
    /// do), it must match the private scalar.
    ///
    /// # Errors
    /// [`KeyError::InvalidPkcs8`].
    pub fn from_pkcs8_der(der: &[u8]) -> Result<Self, KeyError> {
        secret_from_pkcs8_der(der).map(Self::from_secret)
    }

    /// Imports standard padded base64 of PKCS#8 DER (Web Crypto's
    /// `exportKey('pkcs8')`).
    ///
    /// # Errors
    /// [`KeyError::Base64`] or [`KeyError::InvalidPkcs8`].
    pub fn from_pkcs8_base64(b64: &str) -> Result<Self, KeyError> {
        Self::from_pkcs8_der(&pkcs8_der_from_base64(b64)?)
    }

    /// Exports PKCS#8 DER, 138 bytes with the public key inside.
    pub fn to_pkcs8_der(&self) -> Zeroizing<Vec<u8>> {
        secret_to_pkcs8_der(&self.secret)
    }

    /// Exports standard padded base64 of the PKCS#8 DER.
    pub fn to_pkcs8_base64(&self) -> Zeroizing<String> {
        Zeroizing::new(B64.encode(&*self.to_pkcs8_der()))
    }

    /// This identity's public key.
    pub const fn public_key(&self) -> &PublicKey {
        &self.public
    }

    /// Fingerprint of this identity's public key.
    #[inline]
    pub const fn fingerprint(&self) -> &Fingerprint {
        self.public.fingerprint()
    }

    /// Key id of this identity's public key.
    #[inline]
    pub fn kid(&self) -> Kid {
        self.public.kid()
    }

    /// `K_pair(self, peer) = SHA-256(ECDH x-coordinate)`: plain SHA-256 of the
    /// 32-byte shared x-coordinate, as the browser article derives it (not HKDF).
    /// Symmetric: `a.pair_key(B) == b.pair_key(A)`.
    pub(crate) fn pair_key(&self, peer: &PublicKey) -> Zeroizing<[u8; 32]> {
        let shared = self.secret.diffie_hellman(peer.point());
        let mut digest = Sha256::digest(shared.raw_secret_bytes());
        let mut key = Zeroizing::new([0u8; 32]);
        key.copy_from_slice(&digest);
        digest.zeroize();
        key
    }

    /// The private scalar, 32 bytes big-endian: what MLS libraries take as
    /// a P-256 signature secret key (docs/MLS.md §4: the device key is its
    /// leaf's signature key). Zeroized on drop.
    pub(crate) fn secret_scalar(&self) -> Zeroizing<[u8; 32]> {
        let mut out = Zeroizing::new([0u8; 32]);
        out.copy_from_slice(&self.secret.to_bytes());
        out
    }

    /// ECDSA-P256-SHA256 over `message` with this identity's scalar, raw
    /// `r‖s` (Web Crypto's form), deterministic (RFC 6979).
    ///
    /// For signatures of the MLS layer (docs/MLS.md §4): every caller puts
    /// a label of its own first in `message` (`"HermitMQ device binding
    /// v1\0"`, `"HermitMQ device list v1\0"`), distinct from the
    /// `Authenticate` transcript's, so that no signature made for one use
    /// is valid for another.
    pub(crate) fn sign_labelled(&self, message: &[u8]) -> [u8; AUTH_SIGNATURE_LEN] {
        let key = p256::ecdsa::SigningKey::from(&self.secret);
        let sig: p256::ecdsa::Signature = key.sign(message);
        sig.to_bytes().into()
    }

    /// The `Authenticate` signature for one connection (mechanism 2,
    /// `docs/PROTOCOL.md` §1): ECDSA-P256-SHA256 with this identity's
    /// scalar, raw `r‖s` (64 bytes, what Web Crypto's `sign` returns), over
    /// [`hermit_protocol::auth::transcript_bound`] of the broker hello's
    /// `nonce` and `broker_id`, the `name` the client dialled (normalized,
    /// [`hermit_protocol::auth::DialledName`]), the connection's
    /// `channel_binding` (its TLS exporter value, or empty) and this
    /// identity's canonical SPKI.
    ///
    /// The ECDH key signs here: one key names the principal everywhere (in
    /// ACLs and inbox names alike). The transcript's label keeps the
    /// signature apart from any other use of the key. Deterministic
    /// (RFC 6979), so no random source is needed.
    pub fn sign_auth(
        &self,
        nonce: &[u8; NONCE_LEN],
        broker_id: &[u8],
        name: &[u8],
        channel_binding: &[u8],
    ) -> [u8; AUTH_SIGNATURE_LEN] {
        // A SigningKey wipes its scalar on drop, like the SecretKey it copies.
        let key = p256::ecdsa::SigningKey::from(&self.secret);
        let message = transcript_bound(
            nonce,
            broker_id,
            name,
            channel_binding,
            self.public.spki_der(),
        );
        let sig: p256::ecdsa::Signature = key.sign(&message);
        sig.to_bytes().into()
    }
}

/// Equal when the public keys are: a public key determines its private scalar.
impl PartialEq for Identity {
    fn eq(&self, other: &Self) -> bool {
        self.public == other.public
    }
}

impl Eq for Identity {}

impl fmt::Debug for Identity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Identity")
            .field("kid", &self.kid())
            .field("secret", &"<redacted>")
            .finish()
    }
}

/// Imports PKCS#8 DER of a P-256 private key — an [`Identity`]'s or a
/// [`SigningIdentity`](super::SigningIdentity)'s: the same document for
/// both. If it carries its public key (Web Crypto's always do), it must
/// match the private scalar.
pub(crate) fn secret_from_pkcs8_der(der: &[u8]) -> Result<p256::SecretKey, KeyError> {
    p256::SecretKey::from_pkcs8_der(der).map_err(|_| KeyError::InvalidPkcs8 { len: der.len() })
}

/// Exports a P-256 private key as PKCS#8 DER, 138 bytes with the public key
/// inside (what Web Crypto's `exportKey('pkcs8')` gives).
pub(crate) fn secret_to_pkcs8_der(secret: &p256::SecretKey) -> Zeroizing<Vec<u8>> {
    let doc = secret
        .to_pkcs8_der()
        .expect("a valid P-256 secret key always encodes as PKCS#8");
    Zeroizing::new(doc.as_bytes().to_vec())
}

/// Decodes standard padded base64 of a PKCS#8 document (surrounding white
/// space ignored) into a buffer wiped on drop.
pub(crate) fn pkcs8_der_from_base64(b64: &str) -> Result<Zeroizing<Vec<u8>>, KeyError> {
    B64.decode(b64.trim())
        .map(Zeroizing::new)
        .map_err(|_| KeyError::Base64 { what: "PKCS#8" })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pkcs8_and_spki_have_web_crypto_lengths_and_round_trip() {
        let id = Identity::generate().expect("os rng");
        let pkcs8 = id.to_pkcs8_der();
        assert_eq!(pkcs8.len(), PKCS8_LEN);
        assert_eq!(id.public_key().spki_der().len(), SPKI_LEN);
        let back = Identity::from_pkcs8_base64(&id.to_pkcs8_base64()).expect("round trip");
        assert_eq!(back.to_pkcs8_der(), pkcs8);
        let pk = PublicKey::from_spki_base64(&id.public_key().to_spki_base64()).expect("spki");
        assert_eq!(&pk, id.public_key());
        assert_eq!(pk.kid().as_bytes(), &pk.fingerprint().as_bytes()[..8]);
    }

    #[test]
    fn compressed_point_gets_the_same_fingerprint() {
        let id = Identity::generate().expect("os rng");
        let compressed: p256::CompressedPoint = id.public_key().point().into();
        let pk = PublicKey::from_sec1_bytes(&compressed).expect("compressed point");
        assert_eq!(pk.fingerprint(), id.fingerprint());
        assert_eq!(pk.spki_der(), id.public_key().spki_der());
    }

    #[test]
    fn pair_key_is_symmetric() {
        let a = Identity::generate().expect("os rng");
        let b = Identity::generate().expect("os rng");
        assert_eq!(*a.pair_key(b.public_key()), *b.pair_key(a.public_key()));
    }

    #[test]
    fn spki_with_trailing_bytes_is_rejected() {
        let id = Identity::generate().expect("os rng");
        let mut der = id.public_key().spki_der().to_vec();
        der.push(0);
        assert_eq!(
            PublicKey::from_spki_der(&der),
            Err(KeyError::InvalidSpki { len: 92 })
        );
    }

    #[test]
    fn auth_signature_verifies_over_the_transcript_only() {
        use p256::ecdsa::signature::Verifier as _;
        use p256::ecdsa::{Signature, VerifyingKey};
        use p256::pkcs8::DecodePublicKey as _;

        let id = Identity::generate().expect("os rng");
        let (nonce, broker_id, cb) = ([7u8; NONCE_LEN], [9u8; 16], [3u8; 32]);
        let sig = id.sign_auth(&nonce, &broker_id, b"broker.example", &cb);
        // As the broker checks it: the SPKI sent, raw r‖s, the transcript.
        let spki = id.public_key().spki_der();
        let key = VerifyingKey::from_public_key_der(spki).expect("spki");
        let sig = Signature::from_slice(&sig).expect("raw r‖s");
        let t = |n: &[u8; NONCE_LEN], b: &[u8], name: &[u8], cb: &[u8]| {
            transcript_bound(n, b, name, cb, spki)
        };
        let good = t(&nonce, &broker_id, b"broker.example", &cb);
        key.verify(&good, &sig).expect("verifies");
        // Another connection's nonce, another broker, another name or
        // another TLS channel does not verify.
        for other in [
            t(&[8; NONCE_LEN], &broker_id, b"broker.example", &cb),
            t(&nonce, &[0; 16], b"broker.example", &cb),
            t(&nonce, &broker_id, b"relay.example", &cb),
            t(&nonce, &broker_id, b"broker.example", &[4; 32]),
            t(&nonce, &broker_id, b"broker.example", &[]),
        ] {
            assert!(key.verify(&other, &sig).is_err());
        }
        // Another identity's key does not verify it either.
        let mallory = Identity::generate().expect("os rng");
        let mk = VerifyingKey::from_public_key_der(mallory.public_key().spki_der()).expect("spki");
        assert!(mk.verify(&good, &sig).is_err());
    }

    #[test]
    fn debug_and_display_show_no_secret() {
        let id = Identity::generate().expect("os rng");
        let dbg = format!("{id:?}");
        assert!(dbg.contains("redacted"));
        let pkcs8_hex = hex(&id.to_pkcs8_der());
        let scalar_hex = &pkcs8_hex[72..136];
        assert!(!dbg.contains(scalar_hex));
        let shown = id.fingerprint().to_string();
        assert_eq!(shown.len(), 64 + 15);
        assert_eq!(shown.replace(' ', ""), id.fingerprint().to_hex());
    }
}
