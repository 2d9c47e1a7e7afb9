//! The device binding: an account's signature over one device's MLS
//! signature key, carried as the identity of the device's basic credential
//! (docs/MLS.md §4.1). Every member checks it on every leaf it validates,
//! and checks that the account's device list at the binding's
//! `list_version` or newer names the leaf's key (`credential.rs`).

use crate::crypto::identity::SEC1_UNCOMPRESSED_LEN;
use crate::crypto::{Fingerprint, Identity, PublicKey};

/// The first bytes of a credential identity that is a device binding.
pub const BINDING_MAGIC: [u8; 4] = *b"HMQD";

/// The version of the binding format this code writes and reads. Version 1
/// (no list version) was never released and is refused.
pub const BINDING_VERSION: u8 = 2;

/// What the account signs before the device key: a label of its own, apart
/// from `Authenticate`'s and the device list's.
const BINDING_LABEL: &[u8] = b"HermitMQ device binding v2\0";

/// Length of a raw `r‖s` ECDSA P-256 signature.
const SIGNATURE_LEN: usize = 64;

/// Length of an encoded binding: magic, version, account key, list version,
/// issued-at, signature.
pub const BINDING_LEN: usize = 4 + 1 + SEC1_UNCOMPRESSED_LEN + 8 + 8 + SIGNATURE_LEN;

/// Why a credential identity is not a valid device binding.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BindingError {
    /// The bytes are not a binding of a version we read.
    #[error("not a HermitMQ device binding ({0})")]
    Malformed(&'static str),
    /// The account key in it is not a P-256 point.
    #[error("the binding's account key is not a P-256 point")]
    BadAccountKey,
    /// The account's signature does not cover this device key.
    #[error(
        "the account {account} did not sign this device key: the leaf is not one of its devices"
    )]
    BadSignature {
        /// The account the binding names.
        account: Fingerprint,
    },
}

/// A device binding: the account key, the version of the account's device
/// list that first names the device, when it was issued, and the account's
/// signature over the device's signature key.
#[derive(Clone, PartialEq, Eq)]
pub struct DeviceBinding {
    account: PublicKey,
    list_version: u64,
    issued_at: u64,
    signature: [u8; SIGNATURE_LEN],
}

impl std::fmt::Debug for DeviceBinding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceBinding")
            .field("account", self.account.fingerprint())
            .field("list_version", &self.list_version)
            .field("issued_at", &self.issued_at)
            .finish_non_exhaustive()
    }
}

fn signed_bytes(account: &[u8], device_key: &[u8], list_version: u64, issued_at: u64) -> Vec<u8> {
    let mut m = Vec::with_capacity(BINDING_LABEL.len() + 2 * SEC1_UNCOMPRESSED_LEN + 16);
    m.extend_from_slice(BINDING_LABEL);
    m.extend_from_slice(account);
    m.extend_from_slice(device_key);
    m.extend_from_slice(&list_version.to_be_bytes());
    m.extend_from_slice(&issued_at.to_be_bytes());
    m
}

impl DeviceBinding {
    /// The account's binding of `device_key` (an uncompressed SEC1 point,
    /// the leaf's `signature_key`), named first by the account's device list
    /// `list_version`, issued at `issued_at` (ms since the Unix epoch).
    /// [`Device::bind`](super::Device::bind) publishes the list first and
    /// passes the version it got.
    pub fn issue(
        account: &Identity,
        device_key: &[u8],
        list_version: u64,
        issued_at: u64,
    ) -> DeviceBinding {
        let public = account.public_key().clone();
        let message = signed_bytes(
            &public.to_sec1_uncompressed(),
            device_key,
            list_version,
            issued_at,
        );
        DeviceBinding {
            signature: account.sign_labelled(&message),
            account: public,
            list_version,
            issued_at,
        }
    }

    /// The version of the account's device list that first names the
    /// device: a member judging the leaf needs that list or a newer one.
    pub const fn list_version(&self) -> u64 {
        self.list_version
    }

    /// The account that issued the binding.
    pub const fn account(&self) -> &PublicKey {
        &self.account
    }

    /// When the binding was issued (ms since the Unix epoch).
    pub const fn issued_at(&self) -> u64 {
        self.issued_at
    }

    /// The encoded binding: the identity of the device's basic credential.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(BINDING_LEN);
        out.extend_from_slice(&BINDING_MAGIC);
        out.push(BINDING_VERSION);
        out.extend_from_slice(&self.account.to_sec1_uncompressed());
        out.extend_from_slice(&self.list_version.to_be_bytes());
        out.extend_from_slice(&self.issued_at.to_be_bytes());
        out.extend_from_slice(&self.signature);
        out
    }

    /// Parses an encoded binding (not yet checked: see
    /// [`DeviceBinding::verify`]).
    ///
    /// # Errors
    /// [`BindingError::Malformed`] or [`BindingError::BadAccountKey`].
    pub fn from_bytes(bytes: &[u8]) -> Result<DeviceBinding, BindingError> {
        if bytes.len() != BINDING_LEN {
            return Err(BindingError::Malformed("wrong length"));
        }
        let (magic, rest) = bytes.split_at(4);
        if magic != BINDING_MAGIC {
            return Err(BindingError::Malformed("wrong magic"));
        }
        let (version, rest) = rest.split_at(1);
        if version[0] != BINDING_VERSION {
            return Err(BindingError::Malformed("unknown version"));
        }
        let (account, rest) = rest.split_at(SEC1_UNCOMPRESSED_LEN);
        if account[0] != 0x04 {
            return Err(BindingError::Malformed("account key not uncompressed"));
        }
        let account =
            PublicKey::from_sec1_bytes(account).map_err(|_| BindingError::BadAccountKey)?;
        let (list_version, rest) = rest.split_at(8);
        let list_version = u64::from_be_bytes(list_version.try_into().expect("8 bytes"));
        let (issued_at, signature) = rest.split_at(8);
        let issued_at = u64::from_be_bytes(issued_at.try_into().expect("8 bytes"));
        let signature = signature.try_into().expect("64 bytes by the length check");
        Ok(DeviceBinding {
            account,
            list_version,
            issued_at,
            signature,
        })
    }

    /// Checks that the account signed `device_key` (the leaf's
    /// `signature_key`, as the leaf carries it).
    ///
    /// # Errors
    /// [`BindingError::BadSignature`].
    pub fn verify(&self, device_key: &[u8]) -> Result<(), BindingError> {
        let message = signed_bytes(
            &self.account.to_sec1_uncompressed(),
            device_key,
            self.list_version,
            self.issued_at,
        );
        if self.account.verify_labelled(&message, &self.signature) {
            Ok(())
        } else {
            Err(BindingError::BadSignature {
                account: *self.account.fingerprint(),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn device_key() -> [u8; 65] {
        Identity::generate()
            .expect("key")
            .public_key()
            .to_sec1_uncompressed()
    }

    #[test]
    fn a_binding_round_trips_and_verifies_only_for_its_device() {
        let account = Identity::generate().expect("key");
        let device = device_key();
        let binding = DeviceBinding::issue(&account, &device, 3, 1_700_000_000_000);
        let bytes = binding.to_bytes();
        assert_eq!(bytes.len(), BINDING_LEN);
        let parsed = DeviceBinding::from_bytes(&bytes).expect("parse");
        assert_eq!(parsed, binding);
        parsed.verify(&device).expect("binds its device");
        assert_eq!(
            parsed.verify(&device_key()),
            Err(BindingError::BadSignature {
                account: *account.fingerprint()
            }),
            "another device key is not bound"
        );
    }

    #[test]
    fn every_signed_field_is_covered() {
        let account = Identity::generate().expect("key");
        let device = device_key();
        let bytes = DeviceBinding::issue(&account, &device, 5, 42).to_bytes();
        // Flip one bit in the list version, the issued-at, the signature and
        // (to another valid key) the account: none verifies.
        let mut listed = bytes.clone();
        listed[4 + 1 + 65 + 7] ^= 1;
        let listed = DeviceBinding::from_bytes(&listed).expect("still parses");
        assert_eq!(listed.list_version(), 4);
        assert!(listed.verify(&device).is_err(), "list_version is signed");
        let mut later = bytes.clone();
        later[4 + 1 + 65 + 8 + 7] ^= 1;
        let later = DeviceBinding::from_bytes(&later).expect("still parses");
        assert!(later.verify(&device).is_err(), "issued_at is signed");
        let mut bad_sig = bytes.clone();
        bad_sig[BINDING_LEN - 1] ^= 1;
        let bad_sig = DeviceBinding::from_bytes(&bad_sig).expect("still parses");
        assert!(bad_sig.verify(&device).is_err(), "the signature is checked");
        let other = Identity::generate().expect("key");
        let mut swapped = bytes.clone();
        swapped[5..5 + 65].copy_from_slice(&other.public_key().to_sec1_uncompressed());
        let swapped = DeviceBinding::from_bytes(&swapped).expect("still parses");
        assert!(swapped.verify(&device).is_err(), "the account is signed");
    }

    #[test]
    fn malformed_bindings_are_named() {
        let account = Identity::generate().expect("key");
        let bytes = DeviceBinding::issue(&account, &device_key(), 1, 1).to_bytes();
        assert!(matches!(
            DeviceBinding::from_bytes(&bytes[..BINDING_LEN - 1]),
            Err(BindingError::Malformed("wrong length"))
        ));
        let mut magic = bytes.clone();
        magic[0] = b'X';
        assert!(matches!(
            DeviceBinding::from_bytes(&magic),
            Err(BindingError::Malformed("wrong magic"))
        ));
        let mut version = bytes.clone();
        version[4] = 1;
        assert!(matches!(
            DeviceBinding::from_bytes(&version),
            Err(BindingError::Malformed("unknown version"))
        ));
        let mut point = bytes;
        point[6] ^= 0xff;
        assert!(matches!(
            DeviceBinding::from_bytes(&point),
            Err(BindingError::BadAccountKey)
        ));
    }
}
