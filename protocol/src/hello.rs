//! The 8-byte hello each side sends once, before any frame.
//!
//! ```text
//! client: "HMQ" | version u8 (= 2) | flags u32 (0; reserved)
//! broker: "HMQ" | version u8       | max_frame u32
//! ```
//! A broker that does not speak the client's version answers with its own
//! hello (so the client can report both versions) and closes.

use crate::codec::Reader;
use crate::error::WireError;

/// The three bytes every hello starts with.
pub const HELLO_MAGIC: [u8; 3] = *b"HMQ";
/// The protocol version this crate speaks.
pub const PROTOCOL_VERSION: u8 = 2;
/// Length of either hello.
pub const HELLO_LEN: usize = 8;

/// A hello: magic, version and one 32-bit field (client flags, or the broker's max frame).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hello {
    /// Protocol version of the sender.
    pub version: u8,
    /// Client: feature flags (must be 0 in version 2). Broker: largest frame it accepts.
    pub value: u32,
}

impl Hello {
    /// The hello a version-2 client sends.
    pub fn client() -> Self {
        Hello {
            version: PROTOCOL_VERSION,
            value: 0,
        }
    }

    /// The hello a broker sends, announcing its largest accepted frame.
    pub fn broker(max_frame: u32) -> Self {
        Hello {
            version: PROTOCOL_VERSION,
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
        fn never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..12)) {
            let _ = Hello::decode(&bytes);
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
                supported: 2
            })
        );
        Hello::client().check_version().unwrap();
    }
}
