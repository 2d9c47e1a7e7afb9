//! The account's signed device list (docs/MLS.md §4.2): the devices whose
//! MLS signature keys the account vouches for, with a version that only
//! grows. Kept under the key `devices` of the compacted topic
//! `dir.<account fp>`.

use crate::crypto::identity::SEC1_UNCOMPRESSED_LEN;
use crate::crypto::{Fingerprint, Identity, PublicKey};

/// The first bytes of an encoded device list.
pub const LIST_MAGIC: [u8; 4] = *b"HMQL";

/// The version of the format this code writes and reads.
pub const LIST_FORMAT: u8 = 1;

/// The most devices one list may name.
pub const MAX_DEVICES: usize = 64;

/// A device list signed longer ago than this (30 days) is flagged "stale"
/// where it is shown: the broker may be withholding a newer one (an
/// account's device re-signs its list well before, see
/// [`LIST_RESIGN_AFTER_MS`]).
pub const LIST_STALE_AFTER_MS: u64 = 30 * 24 * 3600 * 1000;

/// The account's device re-signs its list (same devices, version + 1, a
/// fresh `issued_at`) when the published one is older than this (7 days),
/// whenever it publishes KeyPackages or its list.
pub const LIST_RESIGN_AFTER_MS: u64 = 7 * 24 * 3600 * 1000;

/// What the account signs before the list: a label of its own.
const LIST_LABEL: &[u8] = b"HermitMQ device list v1\0";

const SIGNATURE_LEN: usize = 64;
const HEADER_LEN: usize = 4 + 1 + 8 + 8 + 2;
const ENTRY_LEN: usize = SEC1_UNCOMPRESSED_LEN + 8;

/// The topic holding an account's device list and last-resort KeyPackages.
pub fn directory_topic(account: &Fingerprint) -> String {
    format!("dir.{}", account.to_hex())
}

/// The digest by which devices compare one account's lists (the
/// device-list memory, §4.2, and views messages, §4.7): SHA-256 of what the
/// account signed, the encoded list **without** its signature. ECDSA
/// signatures are malleable — anyone, the broker included, can turn a valid
/// `s` into `n − s` without the key — so the same list can travel in two
/// encodings; both are one list and must not look like equivocation.
/// `bytes` is an encoded list (at least a signature long).
pub fn list_digest(bytes: &[u8]) -> [u8; 32] {
    use sha2::{Digest as _, Sha256};
    Sha256::digest(&bytes[..bytes.len().saturating_sub(SIGNATURE_LEN)]).into()
}

/// The record key of the device list in [`directory_topic`].
pub const DEVICES_KEY: &[u8] = b"devices";

/// Why bytes are not a valid device list of an account.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DeviceListError {
    /// Not a device list of a format we read.
    #[error("not a HermitMQ device list ({0})")]
    Malformed(&'static str),
    /// More devices than [`MAX_DEVICES`].
    #[error("a device list names at most {MAX_DEVICES} devices, this one {0}")]
    TooMany(usize),
    /// Signed by another account than the one whose topic holds it.
    #[error(
        "the device list is signed by {found}, not by the account {expected} it is filed under"
    )]
    WrongAccount {
        /// The account of the topic.
        expected: Fingerprint,
        /// The account the list names.
        found: Fingerprint,
    },
    /// The signature does not verify.
    #[error("the device list of {account} has a bad signature")]
    BadSignature {
        /// The account the list names.
        account: Fingerprint,
    },
    /// Older than a version already seen for this account: the broker
    /// served a stale list.
    #[error(
        "the device list of {account} is version {found}, older than version {seen} already seen: a rolled-back list is refused"
    )]
    RolledBack {
        /// The account.
        account: Fingerprint,
        /// The version served.
        found: u64,
        /// The newest version seen before.
        seen: u64,
    },
    /// Another list with the version already accepted for this account:
    /// the broker is showing two lists the account signed (or the account
    /// signed two).
    #[error(
        "the device list of {account} differs from the one this device accepted with the same version {version}: two lists with one version are refused (equivocation)"
    )]
    Equivocation {
        /// The account.
        account: Fingerprint,
        /// The version both lists carry.
        version: u64,
    },
}

/// One device of a list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedDevice {
    /// The device's MLS signature key, uncompressed SEC1.
    pub key: [u8; SEC1_UNCOMPRESSED_LEN],
    /// When it was added (ms since the Unix epoch).
    pub added_at: u64,
}

/// A verified (or freshly made) device list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceList {
    account: PublicKey,
    version: u64,
    issued_at: u64,
    devices: Vec<ListedDevice>,
}

impl DeviceList {
    /// A new list of `devices` at `version`, by `account` (sign it with
    /// [`DeviceList::sign`]).
    ///
    /// # Errors
    /// [`DeviceListError::TooMany`].
    pub fn new(
        account: &PublicKey,
        version: u64,
        issued_at: u64,
        devices: Vec<ListedDevice>,
    ) -> Result<DeviceList, DeviceListError> {
        if devices.len() > MAX_DEVICES {
            return Err(DeviceListError::TooMany(devices.len()));
        }
        Ok(DeviceList {
            account: account.clone(),
            version,
            issued_at,
            devices,
        })
    }

    /// The account the list belongs to.
    pub const fn account(&self) -> &PublicKey {
        &self.account
    }

    /// The list's version (strictly increasing from one list to the next).
    pub const fn version(&self) -> u64 {
        self.version
    }

    /// When the list was signed (ms since the Unix epoch).
    pub const fn issued_at(&self) -> u64 {
        self.issued_at
    }

    /// Whether the list was signed more than [`LIST_STALE_AFTER_MS`] before
    /// `now` (ms since the Unix epoch): shown flagged, since a broker may
    /// withhold a newer list and an account re-signs its list weekly.
    pub const fn is_stale(&self, now: u64) -> bool {
        now.saturating_sub(self.issued_at) > LIST_STALE_AFTER_MS
    }

    /// [`DeviceList::is_stale`] as of this machine's clock.
    pub fn is_stale_now(&self) -> bool {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        self.is_stale(now)
    }

    /// The devices.
    pub fn devices(&self) -> &[ListedDevice] {
        &self.devices
    }

    /// Whether `key` (uncompressed SEC1) is a listed device.
    pub fn lists(&self, key: &[u8]) -> bool {
        self.devices.iter().any(|d| d.key[..] == *key)
    }

    fn unsigned_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(
            HEADER_LEN + self.devices.len() * ENTRY_LEN + SEC1_UNCOMPRESSED_LEN + SIGNATURE_LEN,
        );
        out.extend_from_slice(&LIST_MAGIC);
        out.push(LIST_FORMAT);
        out.extend_from_slice(&self.version.to_be_bytes());
        out.extend_from_slice(&self.issued_at.to_be_bytes());
        let count = u16::try_from(self.devices.len()).expect("at most MAX_DEVICES");
        out.extend_from_slice(&count.to_be_bytes());
        for d in &self.devices {
            out.extend_from_slice(&d.key);
            out.extend_from_slice(&d.added_at.to_be_bytes());
        }
        out.extend_from_slice(&self.account.to_sec1_uncompressed());
        out
    }

    fn signed_message(unsigned: &[u8]) -> Vec<u8> {
        let mut m = Vec::with_capacity(LIST_LABEL.len() + unsigned.len());
        m.extend_from_slice(LIST_LABEL);
        m.extend_from_slice(unsigned);
        m
    }

    /// The encoded, signed list. `account` must be the list's account.
    ///
    /// # Panics
    /// If `account` is another key than the list's (a programming error).
    pub fn sign(&self, account: &Identity) -> Vec<u8> {
        assert_eq!(
            account.public_key(),
            &self.account,
            "a device list is signed by its own account"
        );
        let mut out = self.unsigned_bytes();
        let signature = account.sign_labelled(&DeviceList::signed_message(&out));
        out.extend_from_slice(&signature);
        out
    }

    /// Parses and checks a signed list filed under `account` (the
    /// fingerprint of its `dir.` topic), refusing one older than `seen`
    /// (the newest version this device has accepted for that account).
    ///
    /// # Errors
    /// Every [`DeviceListError`].
    pub fn verify(
        bytes: &[u8],
        account: &Fingerprint,
        seen: Option<u64>,
    ) -> Result<DeviceList, DeviceListError> {
        let min = HEADER_LEN + SEC1_UNCOMPRESSED_LEN + SIGNATURE_LEN;
        if bytes.len() < min {
            return Err(DeviceListError::Malformed("too short"));
        }
        if bytes[..4] != LIST_MAGIC {
            return Err(DeviceListError::Malformed("wrong magic"));
        }
        if bytes[4] != LIST_FORMAT {
            return Err(DeviceListError::Malformed("unknown version"));
        }
        let be64 = |at: usize| u64::from_be_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
        let version = be64(5);
        let issued_at = be64(13);
        let count = usize::from(u16::from_be_bytes([bytes[21], bytes[22]]));
        if count > MAX_DEVICES {
            return Err(DeviceListError::TooMany(count));
        }
        if bytes.len() != min + count * ENTRY_LEN {
            return Err(DeviceListError::Malformed(
                "length does not match the count",
            ));
        }
        let mut devices = Vec::with_capacity(count);
        for i in 0..count {
            let at = HEADER_LEN + i * ENTRY_LEN;
            let key: [u8; SEC1_UNCOMPRESSED_LEN] = bytes[at..at + SEC1_UNCOMPRESSED_LEN]
                .try_into()
                .expect("65 bytes");
            if PublicKey::from_sec1_bytes(&key).is_err() || key[0] != 0x04 {
                return Err(DeviceListError::Malformed(
                    "a device key is not a P-256 point",
                ));
            }
            devices.push(ListedDevice {
                key,
                added_at: be64(at + SEC1_UNCOMPRESSED_LEN),
            });
        }
        let key_at = HEADER_LEN + count * ENTRY_LEN;
        let public = PublicKey::from_sec1_bytes(&bytes[key_at..key_at + SEC1_UNCOMPRESSED_LEN])
            .map_err(|_| DeviceListError::Malformed("the account key is not a P-256 point"))?;
        if public.fingerprint() != account {
            return Err(DeviceListError::WrongAccount {
                expected: *account,
                found: *public.fingerprint(),
            });
        }
        let sig_at = key_at + SEC1_UNCOMPRESSED_LEN;
        if !public.verify_labelled(
            &DeviceList::signed_message(&bytes[..sig_at]),
            &bytes[sig_at..],
        ) {
            return Err(DeviceListError::BadSignature { account: *account });
        }
        if let Some(seen) = seen
            && version < seen
        {
            return Err(DeviceListError::RolledBack {
                account: *account,
                found: version,
                seen,
            });
        }
        Ok(DeviceList {
            account: public,
            version,
            issued_at,
            devices,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> [u8; 65] {
        Identity::generate()
            .expect("key")
            .public_key()
            .to_sec1_uncompressed()
    }

    fn two_devices(account: &Identity, version: u64) -> (DeviceList, Vec<u8>) {
        let list = DeviceList::new(
            account.public_key(),
            version,
            7,
            vec![
                ListedDevice {
                    key: key(),
                    added_at: 1,
                },
                ListedDevice {
                    key: key(),
                    added_at: 2,
                },
            ],
        )
        .expect("list");
        let bytes = list.sign(account);
        (list, bytes)
    }

    #[test]
    fn a_list_round_trips_and_names_its_devices() {
        let account = Identity::generate().expect("key");
        let (list, bytes) = two_devices(&account, 3);
        let back = DeviceList::verify(&bytes, account.fingerprint(), Some(3)).expect("verify");
        assert_eq!(back, list);
        assert!(back.lists(&list.devices()[1].key));
        assert!(!back.lists(&key()));
        assert_eq!(directory_topic(account.fingerprint()).len(), 4 + 64);
    }

    #[test]
    fn every_byte_is_signed() {
        let account = Identity::generate().expect("key");
        let (_, bytes) = two_devices(&account, 3);
        // Any single-bit change anywhere before the signature must fail
        // (parsing or signature), never verify.
        for i in 0..bytes.len() - SIGNATURE_LEN {
            let mut b = bytes.clone();
            b[i] ^= 0x01;
            assert!(
                DeviceList::verify(&b, account.fingerprint(), None).is_err(),
                "byte {i} is not covered"
            );
        }
    }

    #[test]
    fn another_accounts_list_and_a_rolled_back_one_are_refused() {
        let account = Identity::generate().expect("key");
        let other = Identity::generate().expect("key");
        let (_, bytes) = two_devices(&other, 3);
        assert!(matches!(
            DeviceList::verify(&bytes, account.fingerprint(), None),
            Err(DeviceListError::WrongAccount { .. })
        ));
        let (_, old) = two_devices(&account, 2);
        assert_eq!(
            DeviceList::verify(&old, account.fingerprint(), Some(3)),
            Err(DeviceListError::RolledBack {
                account: *account.fingerprint(),
                found: 2,
                seen: 3
            })
        );
    }

    #[test]
    fn a_list_is_stale_thirty_days_after_it_was_signed() {
        let account = Identity::generate().expect("key");
        let list = DeviceList::new(account.public_key(), 1, 1_000, vec![]).expect("list");
        assert!(!list.is_stale(1_000 + LIST_STALE_AFTER_MS));
        assert!(list.is_stale(1_001 + LIST_STALE_AFTER_MS));
        // A clock behind the signer's is not stale.
        assert!(!list.is_stale(0));
    }

    #[test]
    fn counts_are_checked_before_allocating() {
        let account = Identity::generate().expect("key");
        let (_, mut bytes) = two_devices(&account, 1);
        bytes[21] = 0xff;
        bytes[22] = 0xff;
        assert_eq!(
            DeviceList::verify(&bytes, account.fingerprint(), None),
            Err(DeviceListError::TooMany(0xffff))
        );
        assert!(matches!(
            DeviceList::new(
                account.public_key(),
                1,
                1,
                vec![
                    ListedDevice {
                        key: key(),
                        added_at: 0
                    };
                    MAX_DEVICES + 1
                ]
            ),
            Err(DeviceListError::TooMany(65))
        ));
    }
}
