//! Checking an `Authenticate` request, and turning keys into [`Principal`]s.
//!
//! The client signs [`hermit_protocol::auth::transcript_bound`] — label,
//! this connection's nonce, the broker id, the name it dialled, its TLS
//! channel binding, its SPKI — with ECDSA-P256-SHA256 and sends the raw
//! `r‖s` signature (what Web Crypto's `sign` returns). Binding the nonce
//! makes a captured signature useless on any other connection; the broker
//! id on any other broker, even one that chose the same nonce; the name
//! and the channel binding on a connection the client did not open to this
//! broker — a relay's ([`verify_authenticate`] checks them against
//! [`BrokerNames`] and the connection's own TLS exporter value).

use hermit_protocol::auth::{
    DialledName, MECHANISM_P256_ECDSA, MECHANISM_P256_ECDSA_BOUND, NameError, P256_SIGNATURE_LEN,
    TLS_EXPORTER_LEN, transcript, transcript_bound,
};
use hermit_protocol::frame::Authenticate;
use hermit_protocol::hello::{BROKER_ID_LEN, NONCE_LEN};
use p256::ecdsa::signature::Verifier as _;
use p256::ecdsa::{Signature, VerifyingKey};
use p256::pkcs8::SubjectPublicKeyInfoRef;
use p256::pkcs8::{DecodePublicKey as _, EncodePublicKey as _, ObjectIdentifier};
use std::net::IpAddr;

use super::names::BrokerNames;
use super::principal::Principal;

/// Why an `Authenticate` request (or a key) was refused.
///
/// Every message is safe to send to the client and to log: it names lengths,
/// algorithm identifiers and the mechanism, never key or signature bytes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthError {
    /// The mechanism byte is neither `2` (p256-ecdsa, bound) nor `1`.
    #[error(
        "unsupported authentication mechanism {mechanism} (2 = p256-ecdsa bound to the name and TLS channel)"
    )]
    UnsupportedMechanism {
        /// The mechanism the client asked for.
        mechanism: u8,
    },
    /// Mechanism 1 where authentication is required: its proof names no
    /// server and no channel, so a server the client dialled could relay it.
    #[error(
        "authentication mechanism 1 is refused here: its proof can be relayed by any server the client connects to; upgrade the client (it must sign mechanism 2, docs/PROTOCOL.md)"
    )]
    MechanismRefused,
    /// The name is not a host name or address.
    #[error("the dialled name is not a host name: {0}")]
    MalformedName(NameError),
    /// The client dialled a name this broker does not answer to.
    #[error(
        "this broker does not answer to the name {name:?}: the client connected to a server of that name, which passed its proof on (a relay); if {name:?} is this broker's, add it to public_names"
    )]
    NameNotServed {
        /// The name as the client signed it (a checked host name).
        name: String,
    },
    /// The channel binding is neither empty nor a TLS exporter value.
    #[error("the channel binding must be empty or {TLS_EXPORTER_LEN} bytes, got {len}")]
    ChannelBindingLength {
        /// Its length.
        len: usize,
    },
    /// The channel binding is not this TLS connection's.
    #[error(
        "the signed TLS channel binding is another TLS connection's: the client's TLS connection ended at a relay, not at this broker"
    )]
    ChannelBindingMismatch,
    /// A channel binding arrived on a connection that is not TLS 1.3 here.
    #[error(
        "the client signed a TLS channel binding, but this connection is not TLS 1.3 at the broker: its TLS ended at a relay (or at a TLS-terminating proxy: then set check_tls_exporter = false)"
    )]
    NoTlsChannel,
    /// The key is not a DER SubjectPublicKeyInfo at all (truncated, trailing bytes, …).
    #[error("the key is not a DER SubjectPublicKeyInfo ({len} bytes)")]
    MalformedKey {
        /// Length of the rejected key.
        len: usize,
    },
    /// The key is a well-formed SPKI for another algorithm or curve.
    #[error("unsupported key type {algorithm}: only P-256 (prime256v1) keys can authenticate")]
    UnsupportedKey {
        /// The algorithm (and curve) the SPKI names, e.g. `EC P-384`.
        algorithm: String,
    },
    /// The SPKI names P-256 but its point is not on the curve.
    #[error("the key's point is not a valid P-256 public key")]
    InvalidPoint,
    /// The signature is not 64 bytes; DER-encoded signatures are refused.
    #[error(
        "the signature must be 64 bytes of raw r‖s (as Web Crypto signs), got {len} bytes{}",
        if *.len > 0 && *.len != P256_SIGNATURE_LEN && looks_like_der(*.len) { " (DER signatures are not accepted)" } else { "" }
    )]
    SignatureLength {
        /// Length of the rejected signature.
        len: usize,
    },
    /// `r` or `s` is zero or not below the group order.
    #[error("the signature is not a valid P-256 signature (r or s out of range)")]
    MalformedSignature,
    /// The signature does not verify: wrong key, another connection's nonce,
    /// another broker's id, or forged.
    #[error("the signature does not verify for this key, connection and broker")]
    BadSignature,
}

impl AuthError {
    /// The reasons [`AuthError::reason`] gives, in its order (metric labels).
    pub const REASONS: [&'static str; 11] = [
        "unsupported_mechanism",
        "malformed_key",
        "unsupported_key",
        "invalid_point",
        "signature_length",
        "malformed_signature",
        "bad_signature",
        "mechanism_refused",
        "malformed_name",
        "name_not_served",
        "channel_binding",
    ];

    /// Which kind of failure this is: an index into [`AuthError::REASONS`].
    /// (No part of the key or signature: a metric label must not carry it.)
    pub fn reason(&self) -> usize {
        match self {
            AuthError::UnsupportedMechanism { .. } => 0,
            AuthError::MalformedKey { .. } => 1,
            AuthError::UnsupportedKey { .. } => 2,
            AuthError::InvalidPoint => 3,
            AuthError::SignatureLength { .. } => 4,
            AuthError::MalformedSignature => 5,
            AuthError::BadSignature => 6,
            AuthError::MechanismRefused => 7,
            AuthError::MalformedName(_) => 8,
            AuthError::NameNotServed { .. } => 9,
            AuthError::ChannelBindingLength { .. }
            | AuthError::ChannelBindingMismatch
            | AuthError::NoTlsChannel => 10,
        }
    }
}

/// DER signatures of P-256 are 8–72 bytes: a hint for the error message only.
fn looks_like_der(len: usize) -> bool {
    (8..=72).contains(&len)
}

const ID_EC_PUBLIC_KEY: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.10045.2.1");
const PRIME256V1: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.10045.3.1.7");

/// A readable name for the algorithm of a refused SPKI.
fn algorithm_name(alg: ObjectIdentifier, param: Option<ObjectIdentifier>) -> String {
    let curve = |oid: ObjectIdentifier| match oid.to_string().as_str() {
        "1.3.132.0.34" => "P-384".to_owned(),
        "1.3.132.0.35" => "P-521".to_owned(),
        "1.3.132.0.10" => "secp256k1".to_owned(),
        other => other.to_owned(),
    };
    match alg.to_string().as_str() {
        "1.2.840.10045.2.1" => match param {
            Some(p) => format!("EC {}", curve(p)),
            None => "EC without a named curve".to_owned(),
        },
        "1.2.840.113549.1.1.1" => "RSA".to_owned(),
        "1.3.101.112" => "Ed25519".to_owned(),
        "1.3.101.110" => "X25519".to_owned(),
        other => other.to_owned(),
    }
}

/// Parses a P-256 SPKI (strict DER; compressed or uncompressed point) and
/// computes its principal from the canonical re-encoding.
fn parse_spki(der: &[u8]) -> Result<(VerifyingKey, Principal), AuthError> {
    let info = SubjectPublicKeyInfoRef::try_from(der)
        .map_err(|_| AuthError::MalformedKey { len: der.len() })?;
    let (alg, param) = info
        .algorithm
        .oids()
        .map_err(|_| AuthError::MalformedKey { len: der.len() })?;
    if alg != ID_EC_PUBLIC_KEY || param != Some(PRIME256V1) {
        return Err(AuthError::UnsupportedKey {
            algorithm: algorithm_name(alg, param),
        });
    }
    let key = VerifyingKey::from_public_key_der(der).map_err(|_| AuthError::InvalidPoint)?;
    // Re-encode as the client SDK does (`p256::PublicKey::to_public_key_der`):
    // one key, one principal, whatever encoding the client sent.
    let canonical = p256::PublicKey::from(&key)
        .to_public_key_der()
        .map_err(|_| AuthError::InvalidPoint)?;
    Ok((key, Principal::of_canonical_spki(canonical.as_bytes())))
}

impl Principal {
    /// The principal of a P-256 SubjectPublicKeyInfo (DER): SHA-256 of its
    /// canonical 91-byte re-encoding, as the client SDK fingerprints it.
    ///
    /// This is also how a TLS client certificate names a principal: pass the
    /// certificate's SubjectPublicKeyInfo (or use
    /// [`Principal::from_certificate_der`] on the whole certificate).
    ///
    /// # Errors
    /// [`AuthError::MalformedKey`], [`AuthError::UnsupportedKey`] (another
    /// algorithm or curve, e.g. P-384) or [`AuthError::InvalidPoint`].
    pub fn from_spki(der: &[u8]) -> Result<Principal, AuthError> {
        parse_spki(der).map(|(_, principal)| principal)
    }

    /// The principal named by an X.509 client certificate (DER): the
    /// [`Principal::from_spki`] of its SubjectPublicKeyInfo.
    ///
    /// This only locates the key; it does not check the certificate — the
    /// TLS layer has verified it against `tls_client_ca` before.
    ///
    /// # Errors
    /// [`AuthError::MalformedKey`] (len = certificate length) when the bytes
    /// are not a certificate, or the errors of [`Principal::from_spki`].
    pub fn from_certificate_der(cert: &[u8]) -> Result<Principal, AuthError> {
        let spki = certificate_spki(cert).ok_or(AuthError::MalformedKey { len: cert.len() })?;
        Principal::from_spki(spki)
    }
}

/// The SubjectPublicKeyInfo TLV inside a DER certificate:
/// `Certificate ::= SEQUENCE { tbsCertificate SEQUENCE { [0] version OPTIONAL,
/// serialNumber, signature, issuer, validity, subject, subjectPublicKeyInfo, … } … }`.
///
/// Only walks to the key (the TLS layer verified the certificate); the key
/// itself is then parsed strictly by [`Principal::from_spki`].
fn certificate_spki(cert: &[u8]) -> Option<&[u8]> {
    const SEQUENCE: u8 = 0x30;
    const VERSION: u8 = 0xa0; // [0] EXPLICIT, constructed
    let certificate = Tlv::read(cert)?;
    if certificate.tag != SEQUENCE || !certificate.rest.is_empty() {
        return None;
    }
    let tbs = Tlv::read(certificate.content)?;
    if tbs.tag != SEQUENCE {
        return None;
    }
    let mut fields = tbs.content;
    let first = Tlv::read(fields)?;
    if first.tag == VERSION {
        fields = first.rest;
    }
    // serialNumber, signature, issuer, validity, subject.
    for _ in 0..5 {
        fields = Tlv::read(fields)?.rest;
    }
    let spki = Tlv::read(fields)?;
    (spki.tag == SEQUENCE).then_some(spki.whole)
}

/// One DER tag-length-value with a one-byte tag.
struct Tlv<'a> {
    tag: u8,
    content: &'a [u8],
    /// Tag, length and content.
    whole: &'a [u8],
    /// What follows it.
    rest: &'a [u8],
}

impl<'a> Tlv<'a> {
    fn read(input: &'a [u8]) -> Option<Tlv<'a>> {
        let (&tag, after_tag) = input.split_first()?;
        let (&first, mut after_len) = after_tag.split_first()?;
        let len = if first < 0x80 {
            usize::from(first)
        } else {
            let n = usize::from(first & 0x7f);
            if n == 0 || n > 4 || after_len.len() < n {
                return None;
            }
            let (digits, rest) = after_len.split_at(n);
            after_len = rest;
            digits
                .iter()
                .fold(0usize, |acc, &d| (acc << 8) | usize::from(d))
        };
        let header = input.len() - after_len.len();
        let end = header.checked_add(len)?;
        let whole = input.get(..end)?;
        Some(Tlv {
            tag,
            content: &whole[header..],
            whole,
            rest: &input[end..],
        })
    }
}

/// What an `Authenticate` is checked against: the connection it came on.
#[derive(Debug, Clone, Copy)]
pub struct Challenge<'a> {
    /// The nonce of this connection's broker hello.
    pub nonce: &'a [u8; NONCE_LEN],
    /// The broker id of the hello.
    pub broker_id: &'a [u8; BROKER_ID_LEN],
    /// The broker's own address the connection arrived at, if known: on a
    /// loopback address, `localhost` and that address are served.
    pub arrived_at: Option<IpAddr>,
    /// On a TLS 1.3 connection, its RFC 9266 `tls-exporter` value; `None`
    /// over plain TCP and TLS 1.2.
    pub tls_exporter: Option<&'a [u8; TLS_EXPORTER_LEN]>,
}

/// How a broker judges proofs beyond their signatures (`auth`,
/// `public_names`, `tls_cert`, `check_tls_exporter`).
#[derive(Debug, Clone, Default)]
pub struct ProofPolicy {
    /// The names a mechanism-2 proof may name.
    pub names: BrokerNames,
    /// Whether mechanism 1 is accepted (not where authentication is required).
    pub accept_unbound: bool,
    /// Whether a signed channel binding must be this connection's TLS
    /// exporter value (`false` behind a TLS-terminating proxy).
    pub check_tls_exporter: bool,
}

/// Verifies an `Authenticate` request made on the connection `challenge`
/// describes, under `policy`, and returns the principal it proves.
///
/// Mechanism 2: the signature over
/// [`transcript_bound`], then the
/// name must be one `policy.names` serves, and a channel binding, if signed,
/// this connection's TLS exporter value. Mechanism 1 only when
/// `policy.accept_unbound`. The signature is checked first, so only a
/// holder of the key learns why its proof was refused.
///
/// # Errors
/// An [`AuthError`] saying why; the connection stays unauthenticated.
pub fn verify_authenticate(
    a: &Authenticate<'_>,
    challenge: &Challenge<'_>,
    policy: &ProofPolicy,
) -> Result<Principal, AuthError> {
    if a.mechanism == MECHANISM_P256_ECDSA && !policy.accept_unbound {
        return Err(AuthError::MechanismRefused);
    }
    let principal = verify_signature(a, challenge.nonce, challenge.broker_id)?;
    if a.mechanism == MECHANISM_P256_ECDSA {
        return Ok(principal);
    }
    let name = std::str::from_utf8(a.name)
        .map_err(|_| {
            let byte = a.name.iter().copied().find(|b| !b.is_ascii()).unwrap_or(0);
            AuthError::MalformedName(NameError::BadCharacter { byte })
        })
        .and_then(|n| DialledName::parse(n).map_err(AuthError::MalformedName))?;
    if !policy.names.serves(&name, challenge.arrived_at) {
        return Err(AuthError::NameNotServed {
            name: name.to_string(),
        });
    }
    match a.channel_binding.len() {
        0 => {}
        TLS_EXPORTER_LEN if !policy.check_tls_exporter => {}
        TLS_EXPORTER_LEN => match challenge.tls_exporter {
            Some(ours) if ours[..] == *a.channel_binding => {}
            Some(_) => return Err(AuthError::ChannelBindingMismatch),
            None => return Err(AuthError::NoTlsChannel),
        },
        len => return Err(AuthError::ChannelBindingLength { len }),
    }
    Ok(principal)
}

/// Checks only the signature of `a` (mechanism 1 or 2) for the connection
/// whose broker hello carried `nonce` and `broker_id`, and returns the
/// principal it proves — not whether this broker serves the name or owns
/// the channel ([`verify_authenticate`] does both).
///
/// `spki` must be a P-256 SubjectPublicKeyInfo (DER); the signature
/// exactly 64 bytes of raw `r‖s` (ECDSA-P256-SHA256 over the transcript,
/// the SPKI as sent, not re-encoded). High-`s` signatures are accepted:
/// Web Crypto does not normalize them, and malleability is harmless for a
/// one-time challenge.
///
/// # Errors
/// An [`AuthError`] saying why.
pub fn verify_signature(
    a: &Authenticate<'_>,
    nonce: &[u8; NONCE_LEN],
    broker_id: &[u8; BROKER_ID_LEN],
) -> Result<Principal, AuthError> {
    let message = match a.mechanism {
        MECHANISM_P256_ECDSA => transcript(nonce, broker_id, a.spki),
        MECHANISM_P256_ECDSA_BOUND => {
            transcript_bound(nonce, broker_id, a.name, a.channel_binding, a.spki)
        }
        mechanism => return Err(AuthError::UnsupportedMechanism { mechanism }),
    };
    if a.signature.len() != P256_SIGNATURE_LEN {
        return Err(AuthError::SignatureLength {
            len: a.signature.len(),
        });
    }
    let (key, principal) = parse_spki(a.spki)?;
    let signature =
        Signature::from_slice(a.signature).map_err(|_| AuthError::MalformedSignature)?;
    key.verify(&message, &signature)
        .map_err(|_| AuthError::BadSignature)?;
    Ok(principal)
}

#[cfg(test)]
mod tests {
    use super::*;
    use p256::ecdsa::SigningKey;
    use p256::ecdsa::signature::Signer as _;
    use sha2::{Digest as _, Sha256};

    const NONCE: [u8; NONCE_LEN] = [0x11; NONCE_LEN];
    const BROKER: [u8; BROKER_ID_LEN] = [0x22; BROKER_ID_LEN];

    /// A P-384 SPKI (made with `openssl ecparam -name secp384r1`).
    const P384_SPKI: &str = "3076301006072a8648ce3d020106052b81040022036200043527b0df6134f88e1629e643e15b8d3f86b8bac9ed43deededa46e2c33fd767789e881b1930eb0edff91c8a5ad3112b6a42f24dc5bee4722ce18e1806d3e6d18674071ccc8273e286df44ff574def46d677dfb207056d4ce105841a61ece6a31";
    /// A self-signed P-256 certificate (`openssl req -x509 -newkey ec
    /// -pkeyopt ec_paramgen_curve:P-256 -subj /CN=alice`) and the SHA-256 of
    /// its public key as `openssl pkey -pubin -outform DER | sha256sum` prints it.
    const CERT: &str = "308201773082011da00302010202147c8d477c277540211e7bb1e4ed6fff3065c1dcc2300a06082a8648ce3d0403023010310e300c06035504030c05616c6963653020170d3236313230313039323435335a180f32313236313130373039323435335a3010310e300c06035504030c05616c6963653059301306072a8648ce3d020106082a8648ce3d03010703420004b96b43fa239ca6a15dd34d243b62eed6b8d37e0e40b916ed3e1ead86d52f26ae0193579a2b2f62befe51128cd79c5bb085800172373ee02139bfd37373d716eaa3533051301d0603551d0e0416041429f9c34a4ae6a5834d8424f309eec7be198de846301f0603551d2304183016801429f9c34a4ae6a5834d8424f309eec7be198de846300f0603551d130101ff040530030101ff300a06082a8648ce3d0403020348003045022065a8f4c1a10c60a743d379e18ad53bf27fa2d73830b75591cf9963293a0a2b4802210080557d0a95b45d89277a92da892dd96713212dc9d42a5670831ed5fdcbe7cb28";
    const CERT_FP: &str = "62f43c2c213c04f929743662be304be8ee657fee758f4091e5323a60b4b9a84a";

    fn unhex(s: &str) -> Vec<u8> {
        assert!(s.len().is_multiple_of(2), "odd hex");
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
            .collect()
    }

    fn key(seed: u8) -> (SigningKey, Vec<u8>) {
        let sk = SigningKey::from_slice(&[seed; 32]).expect("a valid scalar");
        let spki = sk
            .verifying_key()
            .to_public_key_der()
            .expect("encodes")
            .as_bytes()
            .to_vec();
        (sk, spki)
    }

    /// The signature check of a mechanism-`m` request without name or binding.
    fn check(
        mechanism: u8,
        spki: &[u8],
        signature: &[u8],
        nonce: &[u8; NONCE_LEN],
        broker: &[u8; BROKER_ID_LEN],
    ) -> Result<Principal, AuthError> {
        let a = Authenticate {
            mechanism,
            spki,
            signature,
            name: &[],
            channel_binding: &[],
        };
        verify_signature(&a, nonce, broker)
    }

    fn sign(sk: &SigningKey, nonce: &[u8; 32], broker: &[u8], spki: &[u8]) -> [u8; 64] {
        let sig: Signature = sk.sign(&transcript(nonce, broker, spki));
        sig.to_bytes().into()
    }

    /// Raw `r‖s` to ASN.1 DER `SEQUENCE { INTEGER r, INTEGER s }`.
    fn to_der(raw: &[u8; 64]) -> Vec<u8> {
        let int = |x: &[u8]| {
            let x = &x[x.iter().take_while(|&&b| b == 0).count()..];
            let mut v = vec![0x02];
            let pad = x[0] & 0x80 != 0;
            v.push((x.len() + usize::from(pad)) as u8);
            if pad {
                v.push(0);
            }
            v.extend_from_slice(x);
            v
        };
        let body = [int(&raw[..32]), int(&raw[32..])].concat();
        [vec![0x30, body.len() as u8], body].concat()
    }

    #[test]
    fn a_good_signature_proves_the_fingerprint() {
        let (sk, spki) = key(7);
        assert_eq!(spki.len(), hermit_protocol::auth::P256_SPKI_LEN);
        let sig = sign(&sk, &NONCE, &BROKER, &spki);
        let p = check(MECHANISM_P256_ECDSA, &spki, &sig, &NONCE, &BROKER).unwrap();
        let expected: [u8; 32] = Sha256::digest(&spki).into();
        assert_eq!(p.as_bytes(), &expected);
        assert_eq!(Principal::from_spki(&spki).unwrap(), p);
    }

    #[test]
    fn high_s_signatures_are_accepted() {
        // Web Crypto does not normalize s; half its signatures are high-s.
        let (sk, spki) = key(8);
        let sig = Signature::from_slice(&sign(&sk, &NONCE, &BROKER, &spki)).unwrap();
        let (r, s) = sig.split_scalars();
        let flipped = Signature::from_scalars(r.to_bytes(), (-*s).to_bytes()).unwrap();
        let (low, high) = match flipped.normalize_s() == flipped {
            true => (flipped, sig),
            false => (sig, flipped),
        };
        for sig in [low, high] {
            let raw: [u8; 64] = sig.to_bytes().into();
            check(1, &spki, &raw, &NONCE, &BROKER).unwrap();
        }
    }

    #[test]
    fn forgeries_replays_and_other_brokers_are_refused() {
        let (sk, spki) = key(7);
        let sig = sign(&sk, &NONCE, &BROKER, &spki);
        let mut forged = sig;
        forged[40] ^= 1;
        assert_eq!(
            check(1, &spki, &forged, &NONCE, &BROKER),
            Err(AuthError::BadSignature)
        );
        // Replayed on another connection (another nonce).
        assert_eq!(
            check(1, &spki, &sig, &[0x12; 32], &BROKER),
            Err(AuthError::BadSignature)
        );
        // Made for another broker.
        let other = sign(&sk, &NONCE, &[0x23; 16], &spki);
        assert_eq!(
            check(1, &spki, &other, &NONCE, &BROKER),
            Err(AuthError::BadSignature)
        );
        // Someone else's key with this signature.
        let (_, mallory) = key(9);
        assert_eq!(
            check(1, &mallory, &sig, &NONCE, &BROKER),
            Err(AuthError::BadSignature)
        );
        // r = 0 is not a signature at all.
        let mut zero_r = sig;
        zero_r[..32].fill(0);
        assert_eq!(
            check(1, &spki, &zero_r, &NONCE, &BROKER),
            Err(AuthError::MalformedSignature)
        );
    }

    #[test]
    fn bad_fields_are_refused_with_reasons() {
        let (sk, spki) = key(7);
        let sig = sign(&sk, &NONCE, &BROKER, &spki);
        assert_eq!(
            check(3, &spki, &sig, &NONCE, &BROKER),
            Err(AuthError::UnsupportedMechanism { mechanism: 3 })
        );
        for len in [0, 1, 63, 65, 512] {
            let mut s = sig.to_vec();
            s.resize(len, 0);
            assert_eq!(
                check(1, &spki, &s, &NONCE, &BROKER),
                Err(AuthError::SignatureLength { len })
            );
        }
        let der = to_der(&sig);
        let e = check(1, &spki, &der, &NONCE, &BROKER).unwrap_err();
        assert_eq!(e, AuthError::SignatureLength { len: der.len() });
        assert!(e.to_string().contains("DER"), "{e}");

        for bad in [
            &spki[..0],
            &spki[..1],
            &spki[..90],
            &[&spki[..], &[0]].concat(),
        ] {
            let e = check(1, bad, &sig, &NONCE, &BROKER).unwrap_err();
            assert_eq!(
                e,
                AuthError::MalformedKey { len: bad.len() },
                "{} bytes",
                bad.len()
            );
        }
        let oversized = vec![0x30; 513];
        assert!(matches!(
            check(1, &oversized, &sig, &NONCE, &BROKER),
            Err(AuthError::MalformedKey { len: 513 })
        ));
        // A point off the curve.
        let mut off_curve = spki.clone();
        off_curve[90] ^= 1;
        assert_eq!(
            check(1, &off_curve, &sig, &NONCE, &BROKER),
            Err(AuthError::InvalidPoint)
        );
    }

    #[test]
    fn other_curves_are_refused() {
        let p384 = unhex(P384_SPKI);
        let e = Principal::from_spki(&p384).unwrap_err();
        assert_eq!(
            e,
            AuthError::UnsupportedKey {
                algorithm: "EC P-384".into()
            }
        );
        assert!(e.to_string().contains("P-384"), "{e}");
        assert_eq!(check(1, &p384, &[1; 64], &NONCE, &BROKER).unwrap_err(), e);
    }

    #[test]
    fn a_compressed_point_has_the_same_principal() {
        let (sk, spki) = key(7);
        let point = sk.verifying_key().to_sec1_point(true);
        // SPKI header for a 33-byte point: the same algorithm identifier,
        // BIT STRING of 34 bytes.
        let compressed = [
            &unhex("3039301306072a8648ce3d020106082a8648ce3d030107032200")[..],
            point.as_bytes(),
        ]
        .concat();
        assert_eq!(compressed.len(), 59);
        let sig = sign(&sk, &NONCE, &BROKER, &compressed);
        let p = check(1, &compressed, &sig, &NONCE, &BROKER).unwrap();
        assert_eq!(p, Principal::from_spki(&spki).unwrap());
        // The signature covers the SPKI as sent.
        assert_eq!(
            check(1, &spki, &sig, &NONCE, &BROKER),
            Err(AuthError::BadSignature)
        );
    }

    #[test]
    fn a_client_certificate_names_its_keys_principal() {
        let cert = unhex(CERT);
        let p = Principal::from_certificate_der(&cert).unwrap();
        assert_eq!(p.to_string(), CERT_FP);
        for bad in [&cert[..cert.len() - 1], &cert[..10], &[]] {
            assert!(Principal::from_certificate_der(bad).is_err());
        }
        let mut trailing = cert.clone();
        trailing.push(0);
        assert!(Principal::from_certificate_der(&trailing).is_err());
    }

    /// Runs `broker/tests/js/auth_sign.mjs`: a key made and used by Node's
    /// `crypto.subtle`, exactly as a browser client does. Fails (does not
    /// skip) without `node`: browsers are a supported client.
    fn node_sign(mode: &str) -> (Vec<u8>, Vec<u8>, String) {
        let script =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/js/auth_sign.mjs");
        let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
        let out = std::process::Command::new("node")
            .arg(&script)
            .args([mode, &hex(&NONCE), &hex(&BROKER)])
            .output()
            .unwrap_or_else(|e| panic!("this test needs Node.js 18+ as `node` on PATH: {e}"));
        assert!(
            out.status.success(),
            "node {} failed: {}",
            script.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).expect("node prints text");
        let field = |name: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(&format!("{name}=")))
                .unwrap_or_else(|| panic!("no {name}= in node's output: {text}"))
                .to_owned()
        };
        (unhex(&field("spki")), unhex(&field("sig")), field("fp"))
    }

    #[test]
    fn web_crypto_signatures_verify() {
        for mode in ["ecdsa", "ecdh-pkcs8"] {
            let (spki, sig, fp) = node_sign(mode);
            let p =
                check(1, &spki, &sig, &NONCE, &BROKER).unwrap_or_else(|e| panic!("{mode}: {e}"));
            assert_eq!(
                p.to_string(),
                fp,
                "{mode}: the fingerprint Web Crypto computes"
            );
            assert_eq!(
                check(1, &spki, &sig, &NONCE, &[0; 16]),
                Err(AuthError::BadSignature)
            );
        }
    }

    /// A mechanism-2 request signed by `sk` for `name` and `binding`.
    fn bound(sk: &SigningKey, spki: &[u8], name: &str, binding: &[u8]) -> Vec<u8> {
        let t = transcript_bound(&NONCE, &BROKER, name.as_bytes(), binding, spki);
        let sig: Signature = sk.sign(&t);
        sig.to_bytes().to_vec()
    }

    fn policy(names: &[&str], accept_unbound: bool) -> ProofPolicy {
        let names: Vec<String> = names.iter().map(|s| (*s).to_owned()).collect();
        ProofPolicy {
            names: BrokerNames::new(&names, None).unwrap(),
            accept_unbound,
            check_tls_exporter: true,
        }
    }

    /// A connection that arrived at 127.0.0.1 (`loopback`) or 192.0.2.1.
    fn challenge(loopback: bool, tls_exporter: Option<&[u8; 32]>) -> Challenge<'_> {
        Challenge {
            nonce: &NONCE,
            broker_id: &BROKER,
            arrived_at: Some(
                if loopback {
                    [127, 0, 0, 1]
                } else {
                    [192, 0, 2, 1]
                }
                .into(),
            ),
            tls_exporter,
        }
    }

    fn request<'a>(spki: &'a [u8], sig: &'a [u8], name: &'a str, cb: &'a [u8]) -> Authenticate<'a> {
        Authenticate {
            mechanism: MECHANISM_P256_ECDSA_BOUND,
            spki,
            signature: sig,
            name: name.as_bytes(),
            channel_binding: cb,
        }
    }

    #[test]
    fn a_bound_proof_must_name_this_broker() {
        let (sk, spki) = key(7);
        let pol = policy(&["broker.example"], false);
        let sig = bound(&sk, &spki, "broker.example", &[]);
        let a = request(&spki, &sig, "broker.example", &[]);
        let p = verify_authenticate(&a, &challenge(false, None), &pol).unwrap();
        assert_eq!(p, Principal::from_spki(&spki).unwrap());
        // A relay's name: the signature is good, the name is not ours.
        let sig = bound(&sk, &spki, "relay.example", &[]);
        let a = request(&spki, &sig, "relay.example", &[]);
        let e = verify_authenticate(&a, &challenge(false, None), &pol).unwrap_err();
        assert_eq!(
            e,
            AuthError::NameNotServed {
                name: "relay.example".into()
            }
        );
        assert!(e.to_string().contains("relay"), "{e}");
        // The name is signed: swapping in ours breaks the signature.
        let a = request(&spki, &sig, "broker.example", &[]);
        assert_eq!(
            verify_authenticate(&a, &challenge(false, None), &pol),
            Err(AuthError::BadSignature)
        );
        // Loopback names on loopback only.
        let sig = bound(&sk, &spki, "localhost", &[]);
        let a = request(&spki, &sig, "localhost", &[]);
        assert!(verify_authenticate(&a, &challenge(true, None), &pol).is_ok());
        assert!(matches!(
            verify_authenticate(&a, &challenge(false, None), &pol),
            Err(AuthError::NameNotServed { .. })
        ));
        // Not a host name at all.
        let sig = bound(&sk, &spki, "a b", &[]);
        let a = request(&spki, &sig, "a b", &[]);
        assert!(matches!(
            verify_authenticate(&a, &challenge(true, None), &pol),
            Err(AuthError::MalformedName(_))
        ));
    }

    #[test]
    fn a_signed_channel_binding_must_be_this_connections() {
        let (sk, spki) = key(7);
        let pol = policy(&["broker.example"], false);
        let ours = [0x5a; 32];
        let sig = bound(&sk, &spki, "broker.example", &ours);
        let a = request(&spki, &sig, "broker.example", &ours);
        assert!(verify_authenticate(&a, &challenge(false, Some(&ours)), &pol).is_ok());
        // Another TLS connection's exporter: relayed.
        assert_eq!(
            verify_authenticate(&a, &challenge(false, Some(&[0x5b; 32])), &pol),
            Err(AuthError::ChannelBindingMismatch)
        );
        // The broker's side is not TLS 1.3.
        assert_eq!(
            verify_authenticate(&a, &challenge(false, None), &pol),
            Err(AuthError::NoTlsChannel)
        );
        // Behind a TLS-terminating proxy the binding is signed, not compared.
        let behind_proxy = ProofPolicy {
            check_tls_exporter: false,
            ..pol.clone()
        };
        assert!(verify_authenticate(&a, &challenge(false, None), &behind_proxy).is_ok());
        // No binding (a browser): the name alone binds it.
        let sig = bound(&sk, &spki, "broker.example", &[]);
        let a = request(&spki, &sig, "broker.example", &[]);
        assert!(verify_authenticate(&a, &challenge(false, Some(&ours)), &pol).is_ok());
        // A binding of another length.
        let sig = bound(&sk, &spki, "broker.example", &[1; 12]);
        let a = request(&spki, &sig, "broker.example", &[1; 12]);
        assert_eq!(
            verify_authenticate(&a, &challenge(false, Some(&ours)), &pol),
            Err(AuthError::ChannelBindingLength { len: 12 })
        );
    }

    #[test]
    fn mechanism_one_only_where_accepted() {
        let (sk, spki) = key(7);
        let sig = sign(&sk, &NONCE, &BROKER, &spki);
        let a = Authenticate {
            mechanism: MECHANISM_P256_ECDSA,
            spki: &spki,
            signature: &sig,
            name: &[],
            channel_binding: &[],
        };
        let e = verify_authenticate(&a, &challenge(true, None), &policy(&[], false)).unwrap_err();
        assert_eq!(e, AuthError::MechanismRefused);
        assert!(e.to_string().contains("relayed"), "{e}");
        assert!(verify_authenticate(&a, &challenge(true, None), &policy(&[], true)).is_ok());
    }
}
