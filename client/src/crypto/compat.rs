//! The browser article's `ChatCrypto`, for talking to existing Web Crypto code.
//!
//! `K_pair = SHA-256(ECDH x-coordinate)`, AES-256-GCM with a random 12-byte IV and
//! no associated data; messages travel as `{iv: base64, data: base64(ct || tag)}`.
//! These messages carry no sender, topic or sequence number, so nothing stops a
//! replay, a reorder or a reflection: the sealed-record [`Opener`](super::Opener)
//! refuses them unless its caller opts in to legacy records.
//!
//! Plaintext is bytes. [`ChatCrypto::encrypt_str`] / [`ChatCrypto::decrypt_to_string`]
//! keep a leading BOM and reject invalid UTF-8 instead of "fixing" it (the JS side
//! must decode with `new TextDecoder('utf-8', {ignoreBOM: true, fatal: true})`).

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;

use super::aead::Aes256Gcm;
use super::identity::{Identity, PublicKey};
use super::rng;

/// AES-GCM IV length; Web Crypto accepts others, this format does not.
pub const IV_LEN: usize = super::aead::IV_LEN;
/// AES-GCM tag length (Web Crypto's default `tagLength: 128`).
pub const TAG_LEN: usize = super::aead::TAG_LEN;

/// Why a compatibility message could not be decrypted (or the API set up).
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CompatError {
    /// `iv` is not standard padded base64.
    #[error("iv is not standard padded base64")]
    IvBase64,
    /// `data` is not standard padded base64.
    #[error("data is not standard padded base64")]
    DataBase64,
    /// The IV is not exactly 12 bytes.
    #[error("iv must be exactly {IV_LEN} bytes, got {len}")]
    IvLength {
        /// Decoded IV length.
        len: usize,
    },
    /// `data` is shorter than the 16-byte tag it must end with.
    #[error("data must end with a {TAG_LEN}-byte tag, got only {len} bytes")]
    TruncatedTag {
        /// Decoded data length.
        len: usize,
    },
    /// The tag does not verify: wrong key, or the message was modified.
    #[error("message does not authenticate (wrong key or modified)")]
    Decrypt,
    /// [`COMPAT_LIMIT`] messages were encrypted under this key pair.
    #[error("{limit} messages were encrypted under this key pair: its random-IV budget is spent")]
    BudgetExhausted {
        /// The limit.
        limit: u64,
    },
    /// The plaintext is not valid UTF-8 (only from the string API).
    #[error("plaintext is not valid UTF-8")]
    InvalidUtf8,
    /// A legacy record is not the JSON object `{"iv": "…", "data": "…"}`.
    #[error("legacy record is not {{\"iv\": …, \"data\": …}} JSON: {reason}")]
    Json {
        /// What was wrong.
        reason: &'static str,
    },
    /// The operating system's random source failed while seeding the IV
    /// generator (when made, or to reseed in a forked child).
    #[error("the operating system's random number generator failed")]
    Rng,
}

/// One compatibility message: base64 IV and base64 `ciphertext || tag`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompatMessage {
    /// Standard padded base64 of the 12-byte IV.
    pub iv: String,
    /// Standard padded base64 of `ciphertext || 16-byte tag`.
    pub data: String,
}

impl CompatMessage {
    /// The JSON text `{"iv":"…","data":"…"}`, as `JSON.stringify({iv, data})`
    /// writes it; this is a legacy record's form on a topic. The fields are
    /// written verbatim: they are base64 (as [`ChatCrypto::encrypt`] makes them),
    /// which needs no JSON escaping.
    pub fn to_json(&self) -> String {
        format!(r#"{{"iv":"{}","data":"{}"}}"#, self.iv, self.data)
    }

    /// Parses the JSON object `{"iv": "…", "data": "…"}` (members in either order,
    /// JSON whitespace allowed, no other members, no escapes — base64 needs none).
    ///
    /// # Errors
    /// [`CompatError::Json`].
    pub fn from_json(bytes: &[u8]) -> Result<Self, CompatError> {
        JsonCursor { s: bytes, pos: 0 }.message()
    }
}

/// A strict parser for exactly one shape of JSON object.
struct JsonCursor<'a> {
    s: &'a [u8],
    pos: usize,
}

impl JsonCursor<'_> {
    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.s.get(self.pos) {
            self.pos += 1;
        }
    }

    fn expect(&mut self, byte: u8, reason: &'static str) -> Result<(), CompatError> {
        self.ws();
        if self.s.get(self.pos) == Some(&byte) {
            self.pos += 1;
            Ok(())
        } else {
            Err(CompatError::Json { reason })
        }
    }

    fn string(&mut self) -> Result<String, CompatError> {
        self.expect(b'"', "expected a string")?;
        let start = self.pos;
        loop {
            match self.s.get(self.pos) {
                None => {
                    return Err(CompatError::Json {
                        reason: "unterminated string",
                    });
                }
                Some(b'"') => break,
                Some(b'\\') => {
                    return Err(CompatError::Json {
                        reason: "escape in string",
                    });
                }
                Some(0..=0x1f) => {
                    return Err(CompatError::Json {
                        reason: "control character in string",
                    });
                }
                Some(_) => self.pos += 1,
            }
        }
        let text = std::str::from_utf8(&self.s[start..self.pos])
            .map_err(|_| CompatError::Json {
                reason: "string is not UTF-8",
            })?
            .to_owned();
        self.pos += 1;
        Ok(text)
    }

    fn message(mut self) -> Result<CompatMessage, CompatError> {
        self.expect(b'{', "expected an object")?;
        let (mut iv, mut data) = (None, None);
        for i in 0..2 {
            if i == 1 {
                self.expect(b',', "expected two members")?;
            }
            let name = self.string()?;
            self.expect(b':', "expected ':'")?;
            let value = self.string()?;
            let member = match name.as_str() {
                "iv" => &mut iv,
                "data" => &mut data,
                _ => {
                    return Err(CompatError::Json {
                        reason: "unknown member",
                    });
                }
            };
            if member.replace(value).is_some() {
                return Err(CompatError::Json {
                    reason: "duplicate member",
                });
            }
        }
        self.expect(b'}', "expected exactly two members")?;
        self.ws();
        if self.pos != self.s.len() {
            return Err(CompatError::Json {
                reason: "trailing bytes",
            });
        }
        match (iv, data) {
            (Some(iv), Some(data)) => Ok(CompatMessage { iv, data }),
            _ => Err(CompatError::Json {
                reason: "need both iv and data",
            }),
        }
    }
}

/// Decodes and checks a compatibility message's IV and data.
pub(crate) fn decode_parts(
    data_b64: &str,
    iv_b64: &str,
) -> Result<([u8; IV_LEN], Vec<u8>), CompatError> {
    let iv = B64.decode(iv_b64).map_err(|_| CompatError::IvBase64)?;
    let nonce: [u8; IV_LEN] = iv
        .as_slice()
        .try_into()
        .map_err(|_| CompatError::IvLength { len: iv.len() })?;
    let data = B64.decode(data_b64).map_err(|_| CompatError::DataBase64)?;
    if data.len() < TAG_LEN {
        return Err(CompatError::TruncatedTag { len: data.len() });
    }
    Ok((nonce, data))
}

/// Decrypts already-decoded compatibility data (`ct || tag`) with `cipher`.
pub(crate) fn decrypt_parts(
    cipher: &Aes256Gcm,
    nonce: &[u8; IV_LEN],
    data: &[u8],
) -> Result<Vec<u8>, CompatError> {
    let (ct, tag) = data.split_at(data.len() - TAG_LEN);
    let tag: &[u8; TAG_LEN] = tag
        .try_into()
        .map_err(|_| CompatError::TruncatedTag { len: data.len() })?;
    let mut plaintext = vec![0u8; ct.len()];
    if cipher.open_to(nonce, &[], ct, tag, &mut plaintext).is_err() {
        zeroize::Zeroize::zeroize(&mut plaintext);
        return Err(CompatError::Decrypt);
    }
    Ok(plaintext)
}

/// Messages one [`ChatCrypto`] encrypts before refusing: `K_pair` is also
/// the key of DIRECT records (see [`DIRECT_LIMIT`](super::seal::DIRECT_LIMIT)),
/// and a random 96-bit IV is good for 2^32 encryptions under one key in all.
pub const COMPAT_LIMIT: u64 = 1 << 30;

/// The article's `ChatCrypto` between one's own identity and one peer.
pub struct ChatCrypto {
    cipher: Aes256Gcm,
    rng: rng::Csprng,
    /// Messages encrypted (restored with [`ChatCrypto::restore_encryptions`]).
    encryptions: u64,
}

impl ChatCrypto {
    /// Derives `K_pair(own, peer) = SHA-256(ECDH x)` (as `deriveBits` + `digest`
    /// does in the browser) and seeds the IV generator.
    ///
    /// # Errors
    /// [`CompatError::Rng`] if the OS random source fails.
    pub fn new(own: &Identity, peer: &PublicKey) -> Result<Self, CompatError> {
        let cipher = Aes256Gcm::new(&own.pair_key(peer));
        let rng = rng::seeded().map_err(|_| CompatError::Rng)?;
        Ok(Self {
            cipher,
            rng,
            encryptions: 0,
        })
    }

    /// Messages encrypted so far (including a restored count): persist it
    /// with the application's state so the IV budget holds across restarts.
    pub const fn encryptions(&self) -> u64 {
        self.encryptions
    }

    /// Restores a persisted count (counts only go up).
    pub fn restore_encryptions(&mut self, count: u64) {
        self.encryptions = self.encryptions.max(count);
    }

    /// Encrypts bytes under a fresh random 12-byte IV, no associated data.
    ///
    /// # Errors
    /// [`CompatError::BudgetExhausted`] after [`COMPAT_LIMIT`] messages: the
    /// format has no other key to switch to; use sealed records.
    /// [`CompatError::Rng`] if a forked child could not reseed.
    pub fn encrypt(&mut self, plaintext: &[u8]) -> Result<CompatMessage, CompatError> {
        if self.encryptions >= COMPAT_LIMIT {
            return Err(CompatError::BudgetExhausted {
                limit: COMPAT_LIMIT,
            });
        }
        let mut iv = [0u8; IV_LEN];
        self.rng.fill_bytes(&mut iv).map_err(|_| CompatError::Rng)?;
        self.encryptions += 1;
        let mut data = Vec::with_capacity(plaintext.len() + TAG_LEN);
        data.extend_from_slice(plaintext);
        let tag = self.cipher.seal_in_place(&iv, &[], &mut data);
        data.extend_from_slice(&tag);
        Ok(CompatMessage {
            iv: B64.encode(iv),
            data: B64.encode(&data),
        })
    }

    /// Encrypts the UTF-8 bytes of `text` exactly (a leading BOM is kept), as the
    /// browser's `TextEncoder` does.
    ///
    /// # Errors
    /// As [`ChatCrypto::encrypt`].
    pub fn encrypt_str(&mut self, text: &str) -> Result<CompatMessage, CompatError> {
        self.encrypt(text.as_bytes())
    }

    /// Decrypts `data` (base64 `ct || tag`) under `iv` (base64, exactly 12 bytes).
    /// The argument order is the article's: `decrypt(data, iv)`.
    ///
    /// # Errors
    /// [`CompatError::IvBase64`], [`CompatError::DataBase64`],
    /// [`CompatError::IvLength`], [`CompatError::TruncatedTag`] or
    /// [`CompatError::Decrypt`].
    pub fn decrypt(&self, data_b64: &str, iv_b64: &str) -> Result<Vec<u8>, CompatError> {
        let (nonce, data) = decode_parts(data_b64, iv_b64)?;
        decrypt_parts(&self.cipher, &nonce, &data)
    }

    /// Decrypts and checks the plaintext is UTF-8, keeping a leading BOM.
    ///
    /// # Errors
    /// As [`ChatCrypto::decrypt`], plus [`CompatError::InvalidUtf8`].
    pub fn decrypt_to_string(&self, data_b64: &str, iv_b64: &str) -> Result<String, CompatError> {
        String::from_utf8(self.decrypt(data_b64, iv_b64)?).map_err(|_| CompatError::InvalidUtf8)
    }
}

impl fmt::Debug for ChatCrypto {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ChatCrypto(<redacted>)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair() -> (ChatCrypto, ChatCrypto) {
        let a = Identity::generate().expect("os rng");
        let b = Identity::generate().expect("os rng");
        (
            ChatCrypto::new(&a, b.public_key()).expect("rng"),
            ChatCrypto::new(&b, a.public_key()).expect("rng"),
        )
    }

    #[test]
    fn encryptions_are_counted_and_stop_at_the_budget() {
        let (mut a, b) = pair();
        a.encrypt(b"1").expect("within budget");
        assert_eq!(a.encryptions(), 1);
        a.restore_encryptions(0);
        assert_eq!(a.encryptions(), 1, "a count never goes down");
        a.restore_encryptions(COMPAT_LIMIT - 1);
        let last = a.encrypt(b"last").expect("the last one within budget");
        assert_eq!(b.decrypt(&last.data, &last.iv).expect("decrypts"), b"last");
        assert_eq!(
            a.encrypt(b"one too many").unwrap_err(),
            CompatError::BudgetExhausted {
                limit: COMPAT_LIMIT
            }
        );
        assert_eq!(a.encryptions(), COMPAT_LIMIT);
    }

    #[test]
    fn round_trip_keeps_bom_and_bytes() {
        let (mut a, b) = pair();
        let text = "\u{feff}héllo wörld ✓";
        let m = a.encrypt_str(text).expect("within budget");
        assert_eq!(b.decrypt_to_string(&m.data, &m.iv).expect("decrypt"), text);
        let m = a.encrypt(&[0xff, 0xfe, 0x00]).expect("within budget");
        assert_eq!(
            b.decrypt(&m.data, &m.iv).expect("decrypt"),
            vec![0xff, 0xfe, 0x00]
        );
        assert_eq!(
            b.decrypt_to_string(&m.data, &m.iv),
            Err(CompatError::InvalidUtf8)
        );
    }

    #[test]
    fn iv_and_tag_lengths_are_enforced() {
        let (mut a, b) = pair();
        let m = a.encrypt(b"x").expect("within budget");
        let iv16 = B64.encode([0u8; 16]);
        assert_eq!(
            b.decrypt(&m.data, &iv16),
            Err(CompatError::IvLength { len: 16 })
        );
        let short = B64.encode([0u8; 15]);
        assert_eq!(
            b.decrypt(&short, &m.iv),
            Err(CompatError::TruncatedTag { len: 15 })
        );
        assert_eq!(b.decrypt("%%", &m.iv), Err(CompatError::DataBase64));
        assert_eq!(b.decrypt(&m.data, "AAAA="), Err(CompatError::IvBase64));
    }

    #[test]
    fn json_form_round_trips_and_is_strict() {
        let m = CompatMessage {
            iv: "aXY=".into(),
            data: "ZGF0YQ==".into(),
        };
        assert_eq!(
            CompatMessage::from_json(m.to_json().as_bytes()),
            Ok(m.clone())
        );
        let swapped = br#" { "data" : "ZGF0YQ==" ,
            "iv":"aXY=" } "#;
        assert_eq!(CompatMessage::from_json(swapped), Ok(m));
        for bad in [
            &br#"{"iv":"a"}"#[..],
            br#"{"iv":"a","iv":"b"}"#,
            br#"{"iv":"a","data":"b","x":"c"}"#,
            br#"{"iv":"a\/","data":"b"}"#,
            br#"{"iv":"a","data":"b"}x"#,
            br#"{"iv":"a","data":"b"#,
            b"",
        ] {
            assert!(
                matches!(CompatMessage::from_json(bad), Err(CompatError::Json { .. })),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }
}
