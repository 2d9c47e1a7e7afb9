//! SEALKEY v1: a private key wrapped under a password.
//!
//! ```text
//! off len  field
//!   0   7  "SEALKEY"
//!   7   1  version 0x01
//!   8   1  kdf 0x01 = Argon2id v1.3
//!   9  12  m_cost KiB u32 | t_cost u32 | p_cost u32
//!  21   1  salt_len (16 when written; 16..=64 read)
//!  22   s  salt
//!  +0   1  aead 0x01 = AES-256-GCM
//!  +1   1  nonce_len (12)
//!  +2  12  nonce
//! +14   1  key type 0x01 = ECDH P-256, plaintext = PKCS#8 DER
//! +15   2  pub_len (91)
//! +17  91  SPKI in clear (identifies the file without the password)
//! +108  4  ct_len
//! +112 ct  AES-256-GCM(KEK, nonce, PKCS#8, aad = every byte before ct)
//! ```
//! With a 16-byte salt the ciphertext starts at offset 150. The text form is
//! RFC 7468 armor, `-----BEGIN SEALKEY ENCRYPTED PRIVATE KEY-----`.
//!
//! Reading a file ([`KeyFile::from_bytes`], [`KeyFile::from_armor`]) checks every
//! field and caps hostile KDF parameters (m ≤ 1 GiB, 1 ≤ t ≤ 16, 1 ≤ p ≤ 16, salt
//! 16–64) *before* argon2 could ever run; [`KeyFile::unlock`] also refuses
//! parameters below the OWASP floor (19 MiB, t = 2). Only the explicitly named
//! `insecure_for_tests` functions go below it, for fast tests.

use std::fmt;

use argon2::{Algorithm, Argon2, Version};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use rand::TryRng as _;
use zeroize::Zeroizing;

use super::aead::Aes256Gcm;
use super::identity::{Identity, PublicKey, SPKI_LEN};
use hermit_protocol::codec::{Eof, Reader};

const MAGIC: &[u8; 7] = b"SEALKEY";
const VERSION: u8 = 0x01;
const KDF_ARGON2ID: u8 = 0x01;
const AEAD_AES256GCM: u8 = 0x01;
const KEY_TYPE_P256_ECDH: u8 = 0x01;
const NONCE_LEN: usize = super::aead::IV_LEN;
const TAG_LEN: usize = super::aead::TAG_LEN;
/// Salt length written by [`KeyFile::wrap`].
pub const SALT_LEN: usize = 16;
/// Shortest salt accepted when reading.
pub const MIN_SALT_LEN: usize = 16;
/// Longest salt accepted when reading.
pub const MAX_SALT_LEN: usize = 64;
/// Largest `m_cost` accepted when reading: 1 GiB, in KiB.
pub const MAX_M_COST_KIB: u32 = 1024 * 1024;
/// Largest `t_cost` accepted.
pub const MAX_T_COST: u32 = 16;
/// Largest `p_cost` accepted.
pub const MAX_P_COST: u32 = 16;
/// OWASP floor for `m_cost`: 19 MiB, in KiB.
pub const FLOOR_M_COST_KIB: u32 = 19 * 1024;
/// OWASP floor for `t_cost`.
pub const FLOOR_T_COST: u32 = 2;
/// Longest ciphertext accepted (a PKCS#8 P-256 key and tag need 154).
const MAX_CT_LEN: u32 = 1024;
/// Longest armored text accepted.
pub const MAX_ARMOR_LEN: usize = 16 * 1024;

const ARMOR_BEGIN: &str = "-----BEGIN SEALKEY ENCRYPTED PRIVATE KEY-----";
const ARMOR_END: &str = "-----END SEALKEY ENCRYPTED PRIVATE KEY-----";

/// Why a key file could not be written, read or unlocked.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeyFileError {
    /// The armored text is longer than any key file.
    #[error("key file text is {len} bytes, more than the {max} a key file can be")]
    TooLarge {
        /// Input length.
        len: usize,
        /// Largest accepted.
        max: usize,
    },
    /// The text is not `-----BEGIN SEALKEY ENCRYPTED PRIVATE KEY-----` armor.
    #[error("not a SEALKEY armored key file: {reason}")]
    Armor {
        /// What was wrong.
        reason: &'static str,
    },
    /// The armored body is not standard base64.
    #[error("the armored key file body is not standard base64")]
    Base64,
    /// The file ends before a field it declares.
    #[error("key file truncated: need {need} more bytes, have {have}")]
    Truncated {
        /// Bytes needed for the next field.
        need: usize,
        /// Bytes left.
        have: usize,
    },
    /// The file does not start with `SEALKEY`.
    #[error("not a SEALKEY file (bad magic)")]
    BadMagic,
    /// A SEALKEY version this code does not know.
    #[error("unsupported SEALKEY version {found:#04x}")]
    UnsupportedVersion {
        /// The version byte.
        found: u8,
    },
    /// A KDF id other than 0x01 (Argon2id v1.3).
    #[error("unsupported KDF {found:#04x}")]
    UnsupportedKdf {
        /// The KDF byte.
        found: u8,
    },
    /// A KDF parameter outside the accepted range (checked before running argon2).
    #[error("KDF parameter {param} = {value} is outside {min}..={max}")]
    KdfParamOutOfRange {
        /// `m_cost`, `t_cost` or `p_cost`.
        param: &'static str,
        /// The value found.
        value: u32,
        /// Smallest accepted.
        min: u32,
        /// Largest accepted.
        max: u32,
    },
    /// KDF parameters below the OWASP floor (19 MiB, t = 2).
    #[error(
        "KDF parameters m_cost = {m_cost_kib} KiB, t_cost = {t_cost} are below the floor \
         ({FLOOR_M_COST_KIB} KiB, t = {FLOOR_T_COST})"
    )]
    KdfBelowFloor {
        /// The `m_cost` found.
        m_cost_kib: u32,
        /// The `t_cost` found.
        t_cost: u32,
    },
    /// A salt length outside 16..=64.
    #[error("salt length {len} is outside {MIN_SALT_LEN}..={MAX_SALT_LEN}")]
    SaltLength {
        /// The salt length found.
        len: usize,
    },
    /// An AEAD id other than 0x01 (AES-256-GCM).
    #[error("unsupported AEAD {found:#04x}")]
    UnsupportedAead {
        /// The AEAD byte.
        found: u8,
    },
    /// A nonce length other than 12.
    #[error("nonce length must be {NONCE_LEN}, got {len}")]
    NonceLength {
        /// The nonce length found.
        len: usize,
    },
    /// A key type other than 0x01 (ECDH P-256).
    #[error("unsupported key type {found:#04x}")]
    UnsupportedKeyType {
        /// The key-type byte.
        found: u8,
    },
    /// A public-key length other than 91.
    #[error("public key length must be {SPKI_LEN}, got {len}")]
    PublicKeyLength {
        /// The length found.
        len: usize,
    },
    /// The clear SPKI is not a canonical P-256 public key.
    #[error("the key file's public key is not a canonical P-256 SPKI")]
    InvalidPublicKey,
    /// A ciphertext length that cannot hold a PKCS#8 key and tag, or is too large.
    #[error("ciphertext length {len} is outside {min}..={MAX_CT_LEN}", min = TAG_LEN + 1)]
    CiphertextLength {
        /// The length found.
        len: u32,
    },
    /// Bytes after the ciphertext.
    #[error("{extra} bytes after the end of the key file")]
    TrailingBytes {
        /// How many.
        extra: usize,
    },
    /// The AEAD tag did not verify: the password is wrong, or the file (any
    /// header byte is associated data) was modified.
    #[error("wrong password, or the key file was modified")]
    WrongPasswordOrModified,
    /// The decrypted plaintext is not a PKCS#8 P-256 key.
    #[error("the decrypted private key is not a PKCS#8 P-256 key")]
    InvalidPrivateKey,
    /// The decrypted private key does not belong to the clear public key.
    #[error("the private key does not match the key file's public key")]
    PublicKeyMismatch,
    /// Argon2 refused the parameters or failed.
    #[error("argon2 failed: {0}")]
    Kdf(argon2::Error),
    /// The operating system's random source failed.
    #[error("the operating system's random number generator failed")]
    Rng,
}

fn truncated(e: Eof) -> KeyFileError {
    KeyFileError::Truncated {
        need: e.need,
        have: e.have,
    }
}

/// Argon2id cost parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KdfParams {
    m_cost_kib: u32,
    t_cost: u32,
    p_cost: u32,
}

impl KdfParams {
    /// m = 64 MiB, t = 3, p = 4: RFC 9106's second recommended option.
    pub const RECOMMENDED: Self = Self {
        m_cost_kib: 64 * 1024,
        t_cost: 3,
        p_cost: 4,
    };

    /// Parameters within the caps and at or above the OWASP floor.
    ///
    /// # Errors
    /// [`KeyFileError::KdfParamOutOfRange`] or [`KeyFileError::KdfBelowFloor`].
    pub fn new(m_cost_kib: u32, t_cost: u32, p_cost: u32) -> Result<Self, KeyFileError> {
        let params = Self::insecure_for_tests(m_cost_kib, t_cost, p_cost)?;
        params.check_floor()?;
        Ok(params)
    }

    /// Parameters within the caps but possibly below the OWASP floor.
    ///
    /// **For tests only**: a file wrapped with these can only be opened with
    /// [`KeyFile::unlock_insecure_for_tests`].
    ///
    /// # Errors
    /// [`KeyFileError::KdfParamOutOfRange`].
    pub fn insecure_for_tests(
        m_cost_kib: u32,
        t_cost: u32,
        p_cost: u32,
    ) -> Result<Self, KeyFileError> {
        let range = |param, value, min, max| {
            if (min..=max).contains(&value) {
                Ok(())
            } else {
                Err(KeyFileError::KdfParamOutOfRange {
                    param,
                    value,
                    min,
                    max,
                })
            }
        };
        range("p_cost", p_cost, 1, MAX_P_COST)?;
        range("t_cost", t_cost, 1, MAX_T_COST)?;
        // Argon2 needs 8 KiB of memory per lane.
        range("m_cost", m_cost_kib, 8 * p_cost, MAX_M_COST_KIB)?;
        Ok(Self {
            m_cost_kib,
            t_cost,
            p_cost,
        })
    }

    fn check_floor(&self) -> Result<(), KeyFileError> {
        if self.m_cost_kib < FLOOR_M_COST_KIB || self.t_cost < FLOOR_T_COST {
            return Err(KeyFileError::KdfBelowFloor {
                m_cost_kib: self.m_cost_kib,
                t_cost: self.t_cost,
            });
        }
        Ok(())
    }

    /// Memory cost in KiB.
    pub const fn m_cost_kib(&self) -> u32 {
        self.m_cost_kib
    }

    /// Number of passes.
    pub const fn t_cost(&self) -> u32 {
        self.t_cost
    }

    /// Degree of parallelism (lanes).
    pub const fn p_cost(&self) -> u32 {
        self.p_cost
    }

    fn derive_kek(
        &self,
        password: &[u8],
        salt: &[u8],
    ) -> Result<Zeroizing<[u8; 32]>, KeyFileError> {
        let params = argon2::Params::new(self.m_cost_kib, self.t_cost, self.p_cost, Some(32))
            .map_err(KeyFileError::Kdf)?;
        let mut kek = Zeroizing::new([0u8; 32]);
        Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
            .hash_password_into(password, salt, &mut kek[..])
            .map_err(KeyFileError::Kdf)?;
        Ok(kek)
    }
}

/// A parsed (still locked) SEALKEY v1 file.
#[derive(Clone, PartialEq, Eq)]
pub struct KeyFile {
    /// The whole file, exactly as read or written.
    bytes: Vec<u8>,
    params: KdfParams,
    salt: std::ops::Range<usize>,
    nonce: [u8; NONCE_LEN],
    public: PublicKey,
    /// Offset of the ciphertext = length of the associated data.
    ct_start: usize,
}

impl KeyFile {
    /// Wraps `identity` under `password` with a fresh random salt and nonce.
    ///
    /// # Errors
    /// [`KeyFileError::Rng`] or [`KeyFileError::Kdf`].
    pub fn wrap(
        identity: &Identity,
        password: &[u8],
        params: KdfParams,
    ) -> Result<Self, KeyFileError> {
        Self::wrap_with_public(identity, identity.public_key(), password, params)
    }

    /// [`KeyFile::wrap`] with an arbitrary clear public key (tests build
    /// mismatched files with it).
    fn wrap_with_public(
        identity: &Identity,
        public: &PublicKey,
        password: &[u8],
        params: KdfParams,
    ) -> Result<Self, KeyFileError> {
        let mut salt = [0u8; SALT_LEN];
        let mut nonce = [0u8; NONCE_LEN];
        let mut os = rand::rngs::SysRng;
        os.try_fill_bytes(&mut salt)
            .map_err(|_| KeyFileError::Rng)?;
        os.try_fill_bytes(&mut nonce)
            .map_err(|_| KeyFileError::Rng)?;

        let pkcs8 = identity.to_pkcs8_der();
        let ct_len = u32::try_from(pkcs8.len() + TAG_LEN).expect("a PKCS#8 P-256 key is 138 bytes");
        let mut bytes = Vec::with_capacity(150 + pkcs8.len() + TAG_LEN);
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&[VERSION, KDF_ARGON2ID]);
        bytes.extend_from_slice(&params.m_cost_kib.to_be_bytes());
        bytes.extend_from_slice(&params.t_cost.to_be_bytes());
        bytes.extend_from_slice(&params.p_cost.to_be_bytes());
        bytes.push(SALT_LEN as u8);
        bytes.extend_from_slice(&salt);
        bytes.extend_from_slice(&[AEAD_AES256GCM, NONCE_LEN as u8]);
        bytes.extend_from_slice(&nonce);
        bytes.push(KEY_TYPE_P256_ECDH);
        bytes.extend_from_slice(&(SPKI_LEN as u16).to_be_bytes());
        bytes.extend_from_slice(public.spki_der());
        bytes.extend_from_slice(&ct_len.to_be_bytes());
        let ct_start = bytes.len();

        let kek = params.derive_kek(password, &salt)?;
        let cipher = Aes256Gcm::new(&kek);
        bytes.extend_from_slice(&pkcs8);
        let (aad, body) = bytes.split_at_mut(ct_start);
        let tag = cipher.seal_in_place(&nonce, aad, body);
        bytes.extend_from_slice(&tag);
        Self::from_bytes(&bytes)
    }

    /// Parses and checks a binary key file without the password (no argon2 runs).
    ///
    /// # Errors
    /// Any structural [`KeyFileError`]; hostile KDF parameters give
    /// [`KeyFileError::KdfParamOutOfRange`] or [`KeyFileError::SaltLength`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, KeyFileError> {
        let mut r = Reader::new(bytes);
        if r.bytes(MAGIC.len()).map_err(truncated)? != MAGIC {
            return Err(KeyFileError::BadMagic);
        }
        let version = r.u8().map_err(truncated)?;
        if version != VERSION {
            return Err(KeyFileError::UnsupportedVersion { found: version });
        }
        let kdf = r.u8().map_err(truncated)?;
        if kdf != KDF_ARGON2ID {
            return Err(KeyFileError::UnsupportedKdf { found: kdf });
        }
        let m = r.u32().map_err(truncated)?;
        let t = r.u32().map_err(truncated)?;
        let p = r.u32().map_err(truncated)?;
        let params = KdfParams::insecure_for_tests(m, t, p)?;
        let salt_len = usize::from(r.u8().map_err(truncated)?);
        if !(MIN_SALT_LEN..=MAX_SALT_LEN).contains(&salt_len) {
            return Err(KeyFileError::SaltLength { len: salt_len });
        }
        let salt_start = r.position();
        r.bytes(salt_len).map_err(truncated)?;
        let salt = salt_start..salt_start + salt_len;
        let aead = r.u8().map_err(truncated)?;
        if aead != AEAD_AES256GCM {
            return Err(KeyFileError::UnsupportedAead { found: aead });
        }
        let nonce_len = usize::from(r.u8().map_err(truncated)?);
        if nonce_len != NONCE_LEN {
            return Err(KeyFileError::NonceLength { len: nonce_len });
        }
        let nonce = r.array::<NONCE_LEN>().map_err(truncated)?;
        let key_type = r.u8().map_err(truncated)?;
        if key_type != KEY_TYPE_P256_ECDH {
            return Err(KeyFileError::UnsupportedKeyType { found: key_type });
        }
        let pub_len = usize::from(r.u16().map_err(truncated)?);
        if pub_len != SPKI_LEN {
            return Err(KeyFileError::PublicKeyLength { len: pub_len });
        }
        let spki = r.bytes(SPKI_LEN).map_err(truncated)?;
        let public = PublicKey::from_spki_der(spki).map_err(|_| KeyFileError::InvalidPublicKey)?;
        if public.spki_der() != spki {
            return Err(KeyFileError::InvalidPublicKey);
        }
        let ct_len = r.u32().map_err(truncated)?;
        if !(TAG_LEN as u32 + 1..=MAX_CT_LEN).contains(&ct_len) {
            return Err(KeyFileError::CiphertextLength { len: ct_len });
        }
        let ct_start = r.position();
        r.bytes(ct_len as usize).map_err(truncated)?;
        if r.remaining() != 0 {
            return Err(KeyFileError::TrailingBytes {
                extra: r.remaining(),
            });
        }
        Ok(Self {
            bytes: bytes.to_vec(),
            params,
            salt,
            nonce,
            public,
            ct_start,
        })
    }

    /// Parses RFC 7468 armor (`-----BEGIN SEALKEY ENCRYPTED PRIVATE KEY-----`);
    /// CRLF and surrounding whitespace are accepted.
    ///
    /// # Errors
    /// [`KeyFileError::TooLarge`], [`KeyFileError::Armor`], [`KeyFileError::Base64`]
    /// or anything [`KeyFile::from_bytes`] returns.
    pub fn from_armor(text: &str) -> Result<Self, KeyFileError> {
        if text.len() > MAX_ARMOR_LEN {
            return Err(KeyFileError::TooLarge {
                len: text.len(),
                max: MAX_ARMOR_LEN,
            });
        }
        let body = text
            .trim()
            .strip_prefix(ARMOR_BEGIN)
            .ok_or(KeyFileError::Armor {
                reason: "missing BEGIN line",
            })?
            .strip_suffix(ARMOR_END)
            .ok_or(KeyFileError::Armor {
                reason: "missing END line",
            })?;
        if !body.starts_with(['\n', '\r']) {
            return Err(KeyFileError::Armor {
                reason: "BEGIN line not followed by a line break",
            });
        }
        let b64: String = body.chars().filter(|c| !c.is_ascii_whitespace()).collect();
        let bytes = B64.decode(b64).map_err(|_| KeyFileError::Base64)?;
        Self::from_bytes(&bytes)
    }

    /// The binary file.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The armored text file: base64 in 64-column lines, ending with a newline.
    pub fn to_armor(&self) -> String {
        let b64 = B64.encode(&self.bytes);
        let mut out = String::with_capacity(b64.len() + b64.len() / 64 + 100);
        out.push_str(ARMOR_BEGIN);
        out.push('\n');
        for line in b64.as_bytes().chunks(64) {
            out.push_str(std::str::from_utf8(line).expect("base64 is ASCII"));
            out.push('\n');
        }
        out.push_str(ARMOR_END);
        out.push('\n');
        out
    }

    /// The public key stored in clear: who this file belongs to, without the password.
    pub const fn public_key(&self) -> &PublicKey {
        &self.public
    }

    /// The Argon2id parameters recorded in the file.
    pub const fn kdf_params(&self) -> KdfParams {
        self.params
    }

    /// Derives the key-encryption key with Argon2id and decrypts the identity.
    ///
    /// # Errors
    /// [`KeyFileError::KdfBelowFloor`] (checked before argon2 runs),
    /// [`KeyFileError::WrongPasswordOrModified`], [`KeyFileError::InvalidPrivateKey`]
    /// or [`KeyFileError::PublicKeyMismatch`].
    pub fn unlock(&self, password: &[u8]) -> Result<Identity, KeyFileError> {
        self.params.check_floor()?;
        self.unlock_unchecked(password)
    }

    /// [`KeyFile::unlock`] without the OWASP floor. **For tests only**, with files
    /// wrapped under [`KdfParams::insecure_for_tests`].
    ///
    /// # Errors
    /// As [`KeyFile::unlock`], except the floor.
    pub fn unlock_insecure_for_tests(&self, password: &[u8]) -> Result<Identity, KeyFileError> {
        self.unlock_unchecked(password)
    }

    fn unlock_unchecked(&self, password: &[u8]) -> Result<Identity, KeyFileError> {
        let kek = self
            .params
            .derive_kek(password, &self.bytes[self.salt.clone()])?;
        let cipher = Aes256Gcm::new(&kek);
        let (aad, ct) = self.bytes.split_at(self.ct_start);
        let (ct, tag) = ct.split_at(ct.len() - TAG_LEN);
        let tag: &[u8; TAG_LEN] = tag.try_into().expect("ct_len was checked to hold a tag");
        let mut pkcs8 = Zeroizing::new(vec![0u8; ct.len()]);
        cipher
            .open_to(&self.nonce, aad, ct, tag, &mut pkcs8[..])
            .map_err(|_| KeyFileError::WrongPasswordOrModified)?;
        let identity =
            Identity::from_pkcs8_der(&pkcs8).map_err(|_| KeyFileError::InvalidPrivateKey)?;
        if identity.public_key() != &self.public {
            return Err(KeyFileError::PublicKeyMismatch);
        }
        Ok(identity)
    }
}

impl fmt::Debug for KeyFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KeyFile")
            .field("public_key", &self.public)
            .field("kdf", &self.params)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn weak() -> KdfParams {
        KdfParams::insecure_for_tests(64, 1, 1).expect("within caps")
    }

    #[test]
    fn clear_public_key_must_match_the_private_key() {
        let id = Identity::generate().expect("os rng");
        let other = Identity::generate().expect("os rng");
        let file = KeyFile::wrap_with_public(&id, other.public_key(), b"pw", weak()).expect("wrap");
        assert_eq!(
            file.unlock_insecure_for_tests(b"pw").err(),
            Some(KeyFileError::PublicKeyMismatch)
        );
    }

    #[test]
    fn floor_is_enforced_by_new_and_unlock() {
        assert_eq!(
            KdfParams::new(19 * 1024 - 1, 2, 1),
            Err(KeyFileError::KdfBelowFloor {
                m_cost_kib: 19 * 1024 - 1,
                t_cost: 2
            })
        );
        assert!(KdfParams::new(19 * 1024, 2, 1).is_ok());
        let id = Identity::generate().expect("os rng");
        let file = KeyFile::wrap(&id, b"pw", weak()).expect("wrap");
        assert_eq!(
            file.unlock(b"pw").err(),
            Some(KeyFileError::KdfBelowFloor {
                m_cost_kib: 64,
                t_cost: 1
            })
        );
    }

    fn encode(
        params: (u32, u32, u32),
        salt: &[u8],
        nonce: [u8; 12],
        spki: &[u8; SPKI_LEN],
        ct: &[u8],
    ) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend_from_slice(MAGIC);
        b.extend_from_slice(&[VERSION, KDF_ARGON2ID]);
        b.extend_from_slice(&params.0.to_be_bytes());
        b.extend_from_slice(&params.1.to_be_bytes());
        b.extend_from_slice(&params.2.to_be_bytes());
        b.push(u8::try_from(salt.len()).expect("short salt"));
        b.extend_from_slice(salt);
        b.extend_from_slice(&[AEAD_AES256GCM, 12]);
        b.extend_from_slice(&nonce);
        b.push(KEY_TYPE_P256_ECDH);
        b.extend_from_slice(&91u16.to_be_bytes());
        b.extend_from_slice(spki);
        b.extend_from_slice(&u32::try_from(ct.len()).expect("short ct").to_be_bytes());
        b.extend_from_slice(ct);
        b
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// Every well-formed header parses back to the fields it was built from,
        /// and re-armoring gives the same file.
        #[test]
        fn parse_round_trips_any_valid_header(
            p in 1u32..=16,
            t in 1u32..=16,
            m_extra in 0u32..=(1024 * 1024 - 128),
            salt in proptest::collection::vec(any::<u8>(), 16..=64),
            nonce in any::<[u8; 12]>(),
            ct in proptest::collection::vec(any::<u8>(), 17..=1024),
        ) {
            let m = (8 * p + m_extra).min(MAX_M_COST_KIB);
            let id = Identity::generate().expect("os rng");
            let bytes = encode((m, t, p), &salt, nonce, id.public_key().spki_der(), &ct);
            let file = KeyFile::from_bytes(&bytes).expect("valid header");
            prop_assert_eq!(file.kdf_params(), KdfParams { m_cost_kib: m, t_cost: t, p_cost: p });
            prop_assert_eq!(&file.as_bytes()[file.salt.clone()], &salt[..]);
            prop_assert_eq!(file.nonce, nonce);
            prop_assert_eq!(file.public_key(), id.public_key());
            prop_assert_eq!(file.ct_start, bytes.len() - ct.len());
            let again = KeyFile::from_armor(&file.to_armor()).expect("armor round trip");
            prop_assert_eq!(again, file);
        }

        /// Arbitrary bytes and arbitrary armor never panic.
        #[test]
        fn parse_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..400), text in ".{0,300}") {
            let _ = KeyFile::from_bytes(&bytes);
            let _ = KeyFile::from_armor(&text);
            let mut prefixed = MAGIC.to_vec();
            prefixed.extend_from_slice(&bytes);
            let _ = KeyFile::from_bytes(&prefixed);
        }
    }
}
