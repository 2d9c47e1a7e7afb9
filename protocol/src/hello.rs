//! The hello each side sends once, before any frame.
//!
//! ```text
//! client:    "HMQ" | version u8 (2 or 3) | flags u32 (0; reserved)
//! broker v2: "HMQ" | version u8 (= 2)    | max_frame u32
//! broker v3: "HMQ" | version u8 (= 3)    | max_frame u32
//!            | flags u32 | nonce [32] | broker_id_len u8 (= 16) | broker_id [16]
//! ```
//! Broker flags: `AUTH_REQUIRED` 1, `AUTH_AVAILABLE` 2, `TLS` 4,
//! `AUTHENTICATED` 8, `FETCH_MIN_BYTES` 16 (see [`BrokerFlags`]).
//! Both start with the same 8 bytes ([`Hello`]); a version-3 broker hello
//! carries the rest ([`BrokerHello`]): what the broker asks of the client
//! ([`BrokerFlags`]), a fresh random nonce for this connection and the
//! broker's id, both signed by an `Authenticate` request (see [`crate::auth`]).
//! A broker that does not speak the client's version answers with its own
//! hello (so the client can report both versions) and closes.

use crate::codec::Reader;
use crate::error::WireError;

/// The three bytes every hello starts with.
pub const HELLO_MAGIC: [u8; 3] = *b"HMQ";
/// The protocol version this crate speaks.
pub const PROTOCOL_VERSION: u8 = 3;
/// Length of the client's hello, and of the head every broker hello starts with.
pub const HELLO_LEN: usize = 8;
/// The version that adds authentication ([`BrokerHello`], `Authenticate`).
pub const VERSION_3: u8 = 3;
/// Length of the random nonce in a version-3 broker hello.
pub const NONCE_LEN: usize = 32;
/// Length of a broker id.
pub const BROKER_ID_LEN: usize = 16;
/// Length of a whole version-3 broker hello.
pub const BROKER_HELLO_V3_LEN: usize = HELLO_LEN + 4 + NONCE_LEN + 1 + BROKER_ID_LEN;

/// A hello: magic, version and one 32-bit field (client flags, or the broker's max frame).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hello {
    /// Protocol version of the sender.
    pub version: u8,
    /// Client: feature flags (must be 0 in version 2). Broker: largest frame it accepts.
    pub value: u32,
}

impl Hello {
    /// The hello a client of this crate's version sends.
    pub fn client() -> Self {
        Hello {
            version: PROTOCOL_VERSION,
            value: 0,
        }
    }

    /// The 8-byte hello a version-2 broker sends, announcing its largest
    /// accepted frame (a version-3 broker sends it to version-2 clients).
    pub fn broker(max_frame: u32) -> Self {
        Hello {
            version: 2,
            value: max_frame,
        }
    }

    /// Encode to the 8 wire bytes.
    pub fn encode(&self) -> [u8; HELLO_LEN] {
        let mut out = [0u8; HELLO_LEN];
        out[..3].copy_from_slice(&HELLO_MAGIC);
        out[3] = self.version;
        out[4..].copy_from_slice(&self.value.to_be_bytes());
        out
    }

    /// Decode from the first 8 bytes of `buf`. Does not check the version:
    /// callers compare it with [`PROTOCOL_VERSION`] (see [`Hello::check_version`]).
    pub fn decode(buf: &[u8]) -> Result<Self, WireError> {
        let mut r = Reader::new(buf);
        if r.array::<3>()? != HELLO_MAGIC {
            return Err(WireError::BadHello);
        }
        Ok(Hello {
            version: r.u8()?,
            value: r.u32()?,
        })
    }

    /// Fail unless the version is the one this crate speaks.
    pub fn check_version(&self) -> Result<(), WireError> {
        if self.version == PROTOCOL_VERSION {
            Ok(())
        } else {
            Err(WireError::UnsupportedVersion {
                found: self.version,
                supported: PROTOCOL_VERSION,
            })
        }
    }
}

/// What a version-3 broker announces in its hello.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BrokerFlags(pub u32);

impl BrokerFlags {
    /// Every operation but `Ping` and `Authenticate` needs an authenticated principal.
    pub const AUTH_REQUIRED: u32 = 1;
    /// The broker accepts `Authenticate` on this connection.
    pub const AUTH_AVAILABLE: u32 = 1 << 1;
    /// The connection runs over TLS.
    pub const TLS: u32 = 1 << 2;
    /// The connection is already authenticated (a client certificate named
    /// the principal); `Authenticate` is not needed.
    pub const AUTHENTICATED: u32 = 1 << 3;
    /// The broker reads a `Fetch` with its optional trailing part
    /// (`min_bytes`, `min_wait_ms`; see [`crate::op::fetch`]). Clients send
    /// that part only when this is set: a broker without it refuses the
    /// longer body. Not covered by an `Authenticate` signature — whoever
    /// could change it could change any answer; clearing it only costs
    /// the fetch its wait for bytes.
    pub const FETCH_MIN_BYTES: u32 = 1 << 4;
    /// Bits defined so far; others are ignored by clients (for later versions).
    pub const KNOWN: u32 = 0b1_1111;

    /// Whether `flag` is set.
    pub fn has(self, flag: u32) -> bool {
        self.0 & flag == flag
    }
}

/// A version-3 broker hello: the 8-byte head plus flags, nonce and broker id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BrokerHello {
    /// Largest frame the broker accepts.
    pub max_frame: u32,
    /// What the broker asks of the client on this connection.
    pub flags: BrokerFlags,
    /// Fresh random bytes for this connection: an `Authenticate` signs them,
    /// so a signature never works on another connection.
    pub nonce: [u8; NONCE_LEN],
    /// The broker's id (random, made with its data directory): a signature
    /// made for one broker never works on another.
    pub broker_id: [u8; BROKER_ID_LEN],
}

impl BrokerHello {
    /// Encode to the [`BROKER_HELLO_V3_LEN`] wire bytes.
    pub fn encode(&self) -> [u8; BROKER_HELLO_V3_LEN] {
        let mut out = [0u8; BROKER_HELLO_V3_LEN];
        let head = Hello {
            version: VERSION_3,
            value: self.max_frame,
        };
        out[..HELLO_LEN].copy_from_slice(&head.encode());
        let mut at = HELLO_LEN;
        out[at..at + 4].copy_from_slice(&self.flags.0.to_be_bytes());
        at += 4;
        out[at..at + NONCE_LEN].copy_from_slice(&self.nonce);
        at += NONCE_LEN;
        out[at] = BROKER_ID_LEN as u8;
        at += 1;
        out[at..].copy_from_slice(&self.broker_id);
        out
    }

    /// Decode a whole version-3 broker hello (head included). A hello of
    /// another version is [`WireError::UnsupportedVersion`]; read the head
    /// with [`Hello::decode`] first to know how many bytes follow.
    pub fn decode(buf: &[u8]) -> Result<Self, WireError> {
        let head = Hello::decode(buf)?;
        if head.version != VERSION_3 {
            return Err(WireError::UnsupportedVersion {
                found: head.version,
                supported: VERSION_3,
            });
        }
        let mut r = Reader::new(buf);
        r.bytes(HELLO_LEN)?;
        let flags = BrokerFlags(r.u32()?);
        let nonce = r.array::<NONCE_LEN>()?;
        let id_len = r.u8()?;
        if usize::from(id_len) != BROKER_ID_LEN {
            return Err(WireError::InvalidField {
                field: "broker_id length",
                value: u64::from(id_len),
            });
        }
        let broker_id = r.array::<BROKER_ID_LEN>()?;
        r.finish()?;
        Ok(BrokerHello {
            max_frame: head.value,
            flags,
            nonce,
            broker_id,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn round_trips(version in any::<u8>(), value in any::<u32>()) {
            let h = Hello { version, value };
            prop_assert_eq!(Hello::decode(&h.encode()).unwrap(), h);
        }

        #[test]
        fn never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..80)) {
            let _ = Hello::decode(&bytes);
            let _ = BrokerHello::decode(&bytes);
        }

        #[test]
        fn broker_hello_round_trips(
            max_frame in any::<u32>(),
            flags in any::<u32>(),
            nonce in any::<[u8; NONCE_LEN]>(),
            broker_id in any::<[u8; BROKER_ID_LEN]>(),
        ) {
            let h = BrokerHello { max_frame, flags: BrokerFlags(flags), nonce, broker_id };
            let wire = h.encode();
            prop_assert_eq!(Hello::decode(&wire).unwrap(), Hello { version: VERSION_3, value: max_frame });
            prop_assert_eq!(BrokerHello::decode(&wire).unwrap(), h);
            // Every shorter prefix is refused, never misread.
            for n in 0..wire.len() {
                prop_assert!(BrokerHello::decode(&wire[..n]).is_err());
            }
        }
    }

    #[test]
    fn rejects_other_protocols_and_versions() {
        assert_eq!(Hello::decode(b"GET / HTTP/1.1"), Err(WireError::BadHello));
        assert!(matches!(
            Hello::decode(b"HMQ"),
            Err(WireError::UnexpectedEof { .. })
        ));
        let old = Hello {
            version: 1,
            value: 0,
        };
        assert_eq!(
            old.check_version(),
            Err(WireError::UnsupportedVersion {
                found: 1,
                supported: 3
            })
        );
        Hello::client().check_version().unwrap();
        // A version-2 broker hello is not a version-3 one.
        assert_eq!(
            BrokerHello::decode(&Hello::broker(1 << 20).encode()),
            Err(WireError::UnsupportedVersion {
                found: 2,
                supported: 3
            })
        );
    }

    #[test]
    fn broker_hello_layout_is_fixed() {
        let h = BrokerHello {
            max_frame: 0x0102_0304,
            flags: BrokerFlags(BrokerFlags::AUTH_REQUIRED | BrokerFlags::AUTH_AVAILABLE),
            nonce: [7; NONCE_LEN],
            broker_id: [9; BROKER_ID_LEN],
        };
        let wire = h.encode();
        assert_eq!(wire.len(), 61);
        assert_eq!(&wire[..12], b"HMQ\x03\x01\x02\x03\x04\x00\x00\x00\x03");
        assert_eq!(&wire[12..44], &[7; 32]);
        assert_eq!(wire[44], 16);
        assert_eq!(&wire[45..], &[9; 16]);
        let mut bad = wire;
        bad[44] = 15;
        assert!(BrokerHello::decode(&bad).is_err());
    }
}
