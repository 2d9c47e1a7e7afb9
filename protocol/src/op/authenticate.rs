//! `Authenticate` (0x09, protocol version 3): prove the connection's principal.
//!
//! ```text
//! request : mechanism u8, u16 len + SPKI, u16 len + signature
//!           and, for every mechanism but 1:
//!           u8 len + name (the host the client dialled),
//!           u8 len + channel binding (empty, or the TLS exporter value)
//! response: principal [32] (SHA-256 of the SPKI)
//! ```
//! What the signature covers is [`crate::auth`].

use bytes::{BufMut, BytesMut};

use crate::auth::{MAX_AUTH_NAME, MAX_CHANNEL_BINDING, MECHANISM_P256_ECDSA};
use crate::codec::Reader;
use crate::error::WireError;

/// Largest SPKI or signature an `Authenticate` may carry (the frame is a
/// control frame of at most [`MAX_CONTROL_FRAME`](crate::limits::MAX_CONTROL_FRAME) bytes anyway).
pub const MAX_AUTH_FIELD: usize = 512;

/// An authenticate request: proof of the principal's key ([`crate::auth`]).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Authenticate<'a> {
    /// [`crate::auth::MECHANISM_P256_ECDSA_BOUND`] (or the unbound
    /// [`crate::auth::MECHANISM_P256_ECDSA`] of older clients).
    pub mechanism: u8,
    /// The principal's public key, DER SubjectPublicKeyInfo.
    pub spki: &'a [u8],
    /// Signature over [`crate::auth::transcript_bound`] (mechanism 2) or
    /// [`crate::auth::transcript`] (mechanism 1).
    pub signature: &'a [u8],
    /// The host the client dialled, as [`crate::auth::DialledName`] displays
    /// it; empty (and not sent) with mechanism 1.
    pub name: &'a [u8],
    /// Empty, or the 32-byte TLS exporter value of the client's TLS 1.3
    /// connection ([`crate::auth::TLS_EXPORTER_LABEL`]); empty (and not
    /// sent) with mechanism 1.
    pub channel_binding: &'a [u8],
}

impl std::fmt::Debug for Authenticate<'_> {
    // A signature is no secret, but it is noise in a log line: lengths only.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Authenticate")
            .field("mechanism", &self.mechanism)
            .field("spki_len", &self.spki.len())
            .field("signature_len", &self.signature.len())
            .field("name", &String::from_utf8_lossy(self.name))
            .field("channel_binding_len", &self.channel_binding.len())
            .finish()
    }
}

impl<'a> Authenticate<'a> {
    pub(crate) fn decode(r: &mut Reader<'a>) -> Result<Self, WireError> {
        let mechanism = r.u8()?;
        let spki = field(r, Prefix::U16, "spki", MAX_AUTH_FIELD)?;
        let signature = field(r, Prefix::U16, "signature", MAX_AUTH_FIELD)?;
        let (name, channel_binding) = if mechanism == MECHANISM_P256_ECDSA {
            (&[][..], &[][..])
        } else {
            (
                field(r, Prefix::U8, "name", MAX_AUTH_NAME)?,
                field(r, Prefix::U8, "channel binding", MAX_CHANNEL_BINDING)?,
            )
        };
        Ok(Authenticate {
            mechanism,
            spki,
            signature,
            name,
            channel_binding,
        })
    }

    pub(crate) fn encode(&self, out: &mut BytesMut) -> Result<(), WireError> {
        out.put_u8(self.mechanism);
        put_field(out, Prefix::U16, "spki", self.spki, MAX_AUTH_FIELD)?;
        put_field(
            out,
            Prefix::U16,
            "signature",
            self.signature,
            MAX_AUTH_FIELD,
        )?;
        if self.mechanism == MECHANISM_P256_ECDSA {
            return Ok(());
        }
        put_field(out, Prefix::U8, "name", self.name, MAX_AUTH_NAME)?;
        put_field(
            out,
            Prefix::U8,
            "channel binding",
            self.channel_binding,
            MAX_CHANNEL_BINDING,
        )
    }
}

/// The answer: the principal's fingerprint.
pub(crate) fn decode_response(r: &mut Reader<'_>) -> Result<[u8; 32], WireError> {
    Ok(r.array()?)
}

pub(crate) fn encode_response(principal: &[u8; 32], out: &mut BytesMut) {
    out.put_slice(principal);
}

/// The length prefix of a field: `u8` (name, channel binding) or `u16`
/// (key, signature).
#[derive(Clone, Copy)]
enum Prefix {
    U8,
    U16,
}

/// Refuse a field of `len` bytes over `max`.
fn check_len(field: &'static str, len: usize, max: usize) -> Result<(), WireError> {
    if len > max {
        return Err(WireError::TooLong {
            field,
            len: len as u64,
            max: max as u64,
        });
    }
    Ok(())
}

/// Write a length-prefixed byte string of at most `max` bytes (`max`
/// fits the prefix).
fn put_field(
    out: &mut BytesMut,
    prefix: Prefix,
    field: &'static str,
    b: &[u8],
    max: usize,
) -> Result<(), WireError> {
    check_len(field, b.len(), max)?;
    match prefix {
        Prefix::U8 => out.put_u8(b.len() as u8),
        Prefix::U16 => out.put_u16(b.len() as u16),
    }
    out.put_slice(b);
    Ok(())
}

/// Read a length-prefixed byte string of at most `max` bytes.
fn field<'a>(
    r: &mut Reader<'a>,
    prefix: Prefix,
    name: &'static str,
    max: usize,
) -> Result<&'a [u8], WireError> {
    let n = match prefix {
        Prefix::U8 => usize::from(r.u8()?),
        Prefix::U16 => usize::from(r.u16()?),
    };
    check_len(name, n, max)?;
    Ok(r.bytes(n)?)
}
