//! Authentication (protocol version 3): what an `Authenticate` request
//! proves and the exact bytes it signs.
//!
//! A principal is a P-256 key — the same identity key the client's sealed
//! records are addressed with. The client proves it holds the private key
//! by signing, with ECDSA-P256-SHA256 (raw `r‖s`, what Web Crypto's `sign`
//! returns), the [`transcript_bound`] (mechanism 2):
//!
//! ```text
//! "hermit-auth/v2" ‖ nonce (32, from this connection's broker hello)
//!                  ‖ u8 len ‖ broker_id (len bytes)
//!                  ‖ u8 len ‖ name (the host the client dialled)
//!                  ‖ u8 len ‖ channel binding (0 or 32 bytes)
//!                  ‖ SPKI (DER)
//! ```
//!
//! The nonce makes a signature good for one connection only; the broker id
//! for one broker only; the name for a connection the client opened to
//! that name, so a server the client dialled under another name cannot
//! forward the proof to the broker (a relay); the channel binding — the
//! RFC 9266 `tls-exporter` value of the client's TLS 1.3 connection — for
//! that TLS connection only, so not even a relay holding a certificate for
//! the broker's own name can forward it. The label keeps this use of the
//! key apart from every other (the same key does ECDH for sealing).
//!
//! Mechanism 1 ([`transcript`], label `hermit-auth/v1`) signs neither the
//! name nor a channel and can be relayed; brokers refuse it wherever
//! authentication is required. This crate only builds the bytes and
//! normalizes names: verification lives in the broker, signing in the SDKs.

use std::fmt;
use std::net::IpAddr;

use crate::hello::NONCE_LEN;

/// Domain-separation label at the start of a mechanism-1 transcript.
pub const AUTH_LABEL: &[u8] = b"hermit-auth/v1";
/// Domain-separation label at the start of a mechanism-2 transcript.
pub const AUTH_LABEL_BOUND: &[u8] = b"hermit-auth/v2";
/// Mechanism 1: ECDSA over P-256 with SHA-256, raw `r‖s` signature, DER
/// SPKI, over [`transcript`] — bound to the connection and the broker id
/// only. Refused where authentication is required (it can be relayed).
pub const MECHANISM_P256_ECDSA: u8 = 1;
/// Mechanism 2: as mechanism 1, over [`transcript_bound`] — also bound to
/// the dialled name and, over TLS 1.3, to the TLS connection.
pub const MECHANISM_P256_ECDSA_BOUND: u8 = 2;
/// The RFC 9266 exporter label a channel binding is made with (no
/// context, [`TLS_EXPORTER_LEN`] bytes).
pub const TLS_EXPORTER_LABEL: &[u8] = b"EXPORTER-Channel-Binding";
/// Length of a `tls-exporter` channel binding.
pub const TLS_EXPORTER_LEN: usize = 32;
/// Longest name an `Authenticate` may carry: a DNS name is at most 253
/// characters.
pub const MAX_AUTH_NAME: usize = 253;
/// Longest channel binding an `Authenticate` may carry.
pub const MAX_CHANNEL_BINDING: usize = TLS_EXPORTER_LEN;
/// Length of a P-256 SubjectPublicKeyInfo in DER (uncompressed point), as
/// Web Crypto's `exportKey('spki')` returns it.
pub const P256_SPKI_LEN: usize = 91;
/// Length of a raw `r‖s` P-256 signature.
pub const P256_SIGNATURE_LEN: usize = 64;

/// The bytes an `Authenticate` signs for `nonce`, `broker_id` and `spki`.
///
/// `broker_id` is at most 255 bytes (it is 16 in version 3); longer ids are
/// cut to 255 so the length byte stays truthful.
pub fn transcript(nonce: &[u8; NONCE_LEN], broker_id: &[u8], spki: &[u8]) -> Vec<u8> {
    let id = &broker_id[..broker_id.len().min(255)];
    let mut out = Vec::with_capacity(AUTH_LABEL.len() + NONCE_LEN + 1 + id.len() + spki.len());
    out.extend_from_slice(AUTH_LABEL);
    out.extend_from_slice(nonce);
    out.push(id.len() as u8);
    out.extend_from_slice(id);
    out.extend_from_slice(spki);
    out
}

/// The bytes a mechanism-2 `Authenticate` signs: [`AUTH_LABEL_BOUND`],
/// the nonce, the broker id, the dialled `name` (as
/// [`DialledName`] displays it), the `channel_binding` (empty, or
/// the TLS exporter value) and the SPKI, each variable field after a
/// length byte (cut to 255 bytes so the length stays truthful; the
/// request's limits are lower).
pub fn transcript_bound(
    nonce: &[u8; NONCE_LEN],
    broker_id: &[u8],
    name: &[u8],
    channel_binding: &[u8],
    spki: &[u8],
) -> Vec<u8> {
    let cut = |b: &[u8]| b.len().min(255);
    let (id, name, cb) = (
        &broker_id[..cut(broker_id)],
        &name[..cut(name)],
        &channel_binding[..cut(channel_binding)],
    );
    let mut out = Vec::with_capacity(
        AUTH_LABEL_BOUND.len() + NONCE_LEN + 3 + id.len() + name.len() + cb.len() + spki.len(),
    );
    out.extend_from_slice(AUTH_LABEL_BOUND);
    out.extend_from_slice(nonce);
    for field in [id, name, cb] {
        out.push(field.len() as u8);
        out.extend_from_slice(field);
    }
    out.extend_from_slice(spki);
    out
}

/// A host name or address as the client dialled it, normalized: a DNS
/// name in lowercase ASCII without a trailing dot, or an IP address (IPv6
/// without brackets, compared as an address). The port is not part of it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum DialledName {
    /// A DNS name (ASCII; an internationalized name in its `xn--` form).
    Dns(String),
    /// An IP address literal.
    Ip(IpAddr),
}

/// Why a host cannot be a [`DialledName`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// Nothing is left after brackets and a trailing dot are removed.
    #[error("the name is empty")]
    Empty,
    /// Longer than a DNS name may be.
    #[error("the name is {len} bytes long (at most 253)")]
    TooLong {
        /// Its length.
        len: usize,
    },
    /// A character no DNS name or IP literal has (non-ASCII names are sent
    /// in their `xn--` form; IPv6 zones are not supported).
    #[error("the name has a character no host name has (byte {byte:#04x})")]
    BadCharacter {
        /// The first offending byte.
        byte: u8,
    },
}

impl DialledName {
    /// Normalize a host: brackets around an IPv6 literal and one trailing
    /// dot removed, an IP literal parsed, a DNS name lowercased.
    ///
    /// # Errors
    /// [`NameError`] when what is left is empty, longer than 253 bytes or
    /// has a character no host name has.
    pub fn parse(host: &str) -> Result<DialledName, NameError> {
        let bare = host
            .strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .unwrap_or(host);
        if let Ok(ip) = bare.parse::<IpAddr>() {
            return Ok(DialledName::Ip(ip));
        }
        let name = bare.strip_suffix('.').unwrap_or(bare);
        if name.is_empty() {
            return Err(NameError::Empty);
        }
        if name.len() > MAX_AUTH_NAME {
            return Err(NameError::TooLong { len: name.len() });
        }
        if let Some(&byte) = name
            .as_bytes()
            .iter()
            .find(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_')))
        {
            return Err(NameError::BadCharacter { byte });
        }
        Ok(DialledName::Dns(name.to_ascii_lowercase()))
    }

    /// The name of a `host:port` address (`[::1]:9093` gives `::1`; a
    /// host without a port is taken whole).
    ///
    /// # Errors
    /// As [`DialledName::parse`].
    pub fn of_address(addr: &str) -> Result<DialledName, NameError> {
        let host = match addr.rsplit_once(':') {
            Some((host, port))
                if !port.is_empty()
                    && port.bytes().all(|b| b.is_ascii_digit())
                    && (host.starts_with('[') || !host.contains(':')) =>
            {
                host
            }
            _ => addr,
        };
        DialledName::parse(host)
    }

    /// Whether this is `localhost` or a loopback address.
    pub fn is_loopback(&self) -> bool {
        match self {
            DialledName::Dns(n) => n == "localhost" || n.ends_with(".localhost"),
            DialledName::Ip(ip) => ip.is_loopback(),
        }
    }
}

impl fmt::Display for DialledName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DialledName::Dns(n) => f.write_str(n),
            DialledName::Ip(ip) => write!(f, "{ip}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transcript_is_label_nonce_len_id_spki() {
        let t = transcript(&[1; 32], &[2; 16], &[3, 4, 5]);
        assert_eq!(&t[..14], b"hermit-auth/v1");
        assert_eq!(&t[14..46], &[1; 32]);
        assert_eq!(t[46], 16);
        assert_eq!(&t[47..63], &[2; 16]);
        assert_eq!(&t[63..], &[3, 4, 5]);
    }

    #[test]
    fn the_bound_transcript_is_label_nonce_id_name_binding_spki() {
        let t = transcript_bound(&[1; 32], &[2; 16], b"b.example", &[9; 32], &[3, 4]);
        assert_eq!(&t[..14], b"hermit-auth/v2");
        assert_eq!(&t[14..46], &[1; 32]);
        assert_eq!(t[46], 16);
        assert_eq!(&t[47..63], &[2; 16]);
        assert_eq!(t[63], 9);
        assert_eq!(&t[64..73], b"b.example");
        assert_eq!(t[73], 32);
        assert_eq!(&t[74..106], &[9; 32]);
        assert_eq!(&t[106..], &[3, 4]);
        // Every field changes the bytes, and lengths keep them apart.
        assert_ne!(
            t,
            transcript_bound(&[1; 32], &[2; 16], b"c.example", &[9; 32], &[3, 4])
        );
        assert_ne!(
            t,
            transcript_bound(&[1; 32], &[2; 16], b"b.example", &[], &[3, 4])
        );
        assert_ne!(
            transcript_bound(&[1; 32], &[2; 16], b"ab", b"", b""),
            transcript_bound(&[1; 32], &[2; 16], b"a", b"b", b"")
        );
        // Never the bytes of mechanism 1 for the same fields.
        assert_ne!(
            transcript_bound(&[1; 32], &[2; 16], b"", b"", b"k")[14..],
            transcript(&[1; 32], &[2; 16], b"k")[14..]
        );
    }

    #[test]
    fn names_are_normalized() {
        let dns = |s: &str| DialledName::Dns(s.to_owned());
        assert_eq!(
            DialledName::parse("Broker.Example.COM.").unwrap(),
            dns("broker.example.com")
        );
        assert_eq!(
            DialledName::parse("[::1]").unwrap(),
            DialledName::Ip("::1".parse().unwrap())
        );
        assert_eq!(
            DialledName::parse("0:0:0:0:0:0:0:1").unwrap(),
            DialledName::parse("::1").unwrap()
        );
        assert_eq!(
            DialledName::of_address("[::1]:9093").unwrap().to_string(),
            "::1"
        );
        assert_eq!(
            DialledName::of_address("10.0.0.7:9092")
                .unwrap()
                .to_string(),
            "10.0.0.7"
        );
        assert_eq!(DialledName::of_address("Host:1").unwrap(), dns("host"));
        assert_eq!(DialledName::of_address("::1").unwrap().to_string(), "::1");
        assert!(DialledName::parse("localhost").unwrap().is_loopback());
        assert!(DialledName::parse("127.0.0.9").unwrap().is_loopback());
        assert!(!DialledName::parse("10.0.0.1").unwrap().is_loopback());
        assert_eq!(DialledName::parse("."), Err(NameError::Empty));
        assert_eq!(DialledName::parse("[]"), Err(NameError::Empty));
        assert!(matches!(
            DialledName::parse("fe80::1%eth0"),
            Err(NameError::BadCharacter { .. })
        ));
        assert!(matches!(
            DialledName::parse("bad name"),
            Err(NameError::BadCharacter { byte: b' ' })
        ));
        assert!(matches!(
            DialledName::parse("bücher.example"),
            Err(NameError::BadCharacter { .. })
        ));
        assert!(matches!(
            DialledName::parse(&"a".repeat(254)),
            Err(NameError::TooLong { len: 254 })
        ));
    }

    #[test]
    fn different_brokers_and_nonces_sign_different_bytes() {
        let a = transcript(&[1; 32], &[2; 16], b"k");
        assert_ne!(a, transcript(&[0; 32], &[2; 16], b"k"));
        assert_ne!(a, transcript(&[1; 32], &[0; 16], b"k"));
        // The length byte keeps id and SPKI apart.
        assert_ne!(
            transcript(&[1; 32], &[2; 15], &[2, b'k']),
            transcript(&[1; 32], &[2; 16], b"k")
        );
    }
}
