//! Who a leaf is: the device's credential (a basic credential whose
//! identity is the account's [`DeviceBinding`]) and the check every member
//! runs on every leaf it validates (docs/MLS.md §4.1) — mls-rs calls
//! [`DeviceIdentity::validate_member`] for KeyPackages being added, the
//! tree of a Welcome and the leaves of every Commit.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use mls_rs::ExtensionList;
use mls_rs::identity::basic::BasicCredential;
use mls_rs::identity::{CredentialType, SigningIdentity};
use mls_rs::time::MlsTime;
use mls_rs_core::crypto::{SignaturePublicKey, SignatureSecretKey};
use mls_rs_core::identity::{IdentityProvider, MemberValidationContext};
use sha2::{Digest as _, Sha256};

use super::binding::{BindingError, DeviceBinding};
use crate::crypto::{Fingerprint, Identity, PublicKey};

/// How many verified (binding, device key) pairs are remembered, so that a
/// leaf seen again (in every Commit's tree) is not verified again.
const VERIFIED_CACHE: usize = 4096;

/// Length of [`DeviceIdentity::identity`]: account fp, then device fp.
pub const MEMBER_IDENTITY_LEN: usize = 64;

/// Why a leaf is refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CredentialError {
    /// Not a basic credential.
    #[error("a HermitMQ leaf has a basic credential, not type {0}")]
    NotBasic(u16),
    /// The binding is malformed or does not verify.
    #[error(transparent)]
    Binding(#[from] BindingError),
    /// The leaf's signature key is not a P-256 point.
    #[error("the leaf's signature key is not an uncompressed P-256 point")]
    BadDeviceKey,
    /// HermitMQ groups have no external senders.
    #[error("HermitMQ groups have no external senders")]
    ExternalSender,
}

impl mls_rs::error::IntoAnyError for CredentialError {
    fn into_dyn_error(self) -> Result<Box<dyn std::error::Error + Send + Sync>, Self> {
        Ok(Box::new(self))
    }
}

/// A member as its leaf names it: the account (who the user sees) and the
/// device (which of the account's keys).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MemberId {
    /// The account's fingerprint.
    pub account: Fingerprint,
    /// The device key's fingerprint (its principal, its topics' name).
    pub device: Fingerprint,
}

impl MemberId {
    /// The 64 bytes mls-rs keeps as the member's identity.
    pub fn to_bytes(&self) -> [u8; MEMBER_IDENTITY_LEN] {
        let mut out = [0u8; MEMBER_IDENTITY_LEN];
        out[..32].copy_from_slice(self.account.as_bytes());
        out[32..].copy_from_slice(self.device.as_bytes());
        out
    }
}

/// Parses a leaf's credential and checks its binding; the member it names.
///
/// # Errors
/// [`CredentialError`].
pub fn check_leaf(identity: &SigningIdentity) -> Result<MemberId, CredentialError> {
    let credential = identity.credential.as_basic().ok_or_else(|| {
        CredentialError::NotBasic(identity.credential.credential_type().raw_value())
    })?;
    let binding = DeviceBinding::from_bytes(credential.identifier())?;
    let key: &[u8] = &identity.signature_key;
    if key.len() != 65 || key[0] != 0x04 {
        return Err(CredentialError::BadDeviceKey);
    }
    let device = PublicKey::from_sec1_bytes(key).map_err(|_| CredentialError::BadDeviceKey)?;
    binding.verify(key)?;
    Ok(MemberId {
        account: *binding.account().fingerprint(),
        device: *device.fingerprint(),
    })
}

/// The device's own signing identity and secret for mls-rs: its key as
/// the leaf's signature key, with the account's binding as its credential.
pub fn signing_identity(
    device: &Identity,
    binding: &DeviceBinding,
) -> (SigningIdentity, SignatureSecretKey) {
    let public = SignaturePublicKey::from(device.public_key().to_sec1_uncompressed().to_vec());
    let credential = BasicCredential::new(binding.to_bytes()).into_credential();
    let secret = SignatureSecretKey::from(device.secret_scalar().to_vec());
    (SigningIdentity::new(credential, public), secret)
}

/// The identity provider of every HermitMQ device: a leaf is valid when its
/// basic credential is a [`DeviceBinding`] that verifies for the leaf's
/// signature key.
#[derive(Clone, Default)]
pub struct DeviceIdentity {
    /// SHA-256 of (credential identity ‖ device key) of leaves that passed.
    verified: Arc<Mutex<HashSet<[u8; 32]>>>,
}

impl std::fmt::Debug for DeviceIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceIdentity").finish_non_exhaustive()
    }
}

impl DeviceIdentity {
    /// The member a leaf names, its binding checked (or known good).
    pub(crate) fn member(&self, identity: &SigningIdentity) -> Result<MemberId, CredentialError> {
        let digest: [u8; 32] = {
            let mut h = Sha256::new();
            if let Some(basic) = identity.credential.as_basic() {
                h.update(basic.identifier());
            }
            h.update([0xff]);
            h.update(&*identity.signature_key);
            h.finalize().into()
        };
        let known = self
            .verified
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .contains(&digest);
        if known {
            // Parsing again is cheap; only the signature is skipped.
            let binding = DeviceBinding::from_bytes(
                identity
                    .credential
                    .as_basic()
                    .expect("a cached leaf has a basic credential")
                    .identifier(),
            )?;
            let device = PublicKey::from_sec1_bytes(&identity.signature_key)
                .map_err(|_| CredentialError::BadDeviceKey)?;
            return Ok(MemberId {
                account: *binding.account().fingerprint(),
                device: *device.fingerprint(),
            });
        }
        let member = check_leaf(identity)?;
        let mut verified = self
            .verified
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if verified.len() >= VERIFIED_CACHE {
            verified.clear();
        }
        verified.insert(digest);
        Ok(member)
    }
}

impl IdentityProvider for DeviceIdentity {
    type Error = CredentialError;

    fn validate_member(
        &self,
        signing_identity: &SigningIdentity,
        _timestamp: Option<MlsTime>,
        _context: MemberValidationContext<'_>,
    ) -> Result<(), CredentialError> {
        self.member(signing_identity).map(|_| ())
    }

    fn validate_external_sender(
        &self,
        _signing_identity: &SigningIdentity,
        _timestamp: Option<MlsTime>,
        _extensions: Option<&ExtensionList>,
    ) -> Result<(), CredentialError> {
        Err(CredentialError::ExternalSender)
    }

    fn identity(
        &self,
        signing_identity: &SigningIdentity,
        _extensions: &ExtensionList,
    ) -> Result<Vec<u8>, CredentialError> {
        self.member(signing_identity).map(|m| m.to_bytes().to_vec())
    }

    fn valid_successor(
        &self,
        predecessor: &SigningIdentity,
        successor: &SigningIdentity,
        _extensions: &ExtensionList,
    ) -> Result<bool, CredentialError> {
        // A leaf keeps its account and its device key.
        Ok(self.member(predecessor)? == self.member(successor)?)
    }

    fn supported_types(&self) -> Vec<CredentialType> {
        vec![BasicCredential::credential_type()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bound_leaf_passes_and_names_account_and_device() {
        let account = Identity::generate().expect("key");
        let device = Identity::generate().expect("key");
        let binding =
            DeviceBinding::issue(&account, &device.public_key().to_sec1_uncompressed(), 1);
        let (leaf, _) = signing_identity(&device, &binding);
        let ids = DeviceIdentity::default();
        let member = ids.member(&leaf).expect("valid");
        assert_eq!(member.account, *account.fingerprint());
        assert_eq!(member.device, *device.fingerprint());
        // Cached: the same answer again.
        assert_eq!(ids.member(&leaf).expect("valid"), member);
    }

    #[test]
    fn a_leaf_with_another_devices_binding_is_refused() {
        let account = Identity::generate().expect("key");
        let device = Identity::generate().expect("key");
        let thief = Identity::generate().expect("key");
        // The thief reuses the device's binding on its own key.
        let binding =
            DeviceBinding::issue(&account, &device.public_key().to_sec1_uncompressed(), 1);
        let (leaf, _) = signing_identity(&thief, &binding);
        let err = DeviceIdentity::default()
            .validate_member(&leaf, None, MemberValidationContext::None)
            .expect_err("refused");
        assert!(
            matches!(
                err,
                CredentialError::Binding(BindingError::BadSignature { .. })
            ),
            "{err}"
        );
    }

    #[test]
    fn updates_may_not_change_account_or_device() {
        let account = Identity::generate().expect("key");
        let device = Identity::generate().expect("key");
        let other = Identity::generate().expect("key");
        let sec1 = device.public_key().to_sec1_uncompressed();
        let (a, _) = signing_identity(&device, &DeviceBinding::issue(&account, &sec1, 1));
        let (b, _) = signing_identity(&device, &DeviceBinding::issue(&account, &sec1, 2));
        let other_sec1 = other.public_key().to_sec1_uncompressed();
        let (c, _) = signing_identity(&other, &DeviceBinding::issue(&account, &other_sec1, 1));
        let ids = DeviceIdentity::default();
        let ext = ExtensionList::new();
        assert!(
            ids.valid_successor(&a, &b, &ext).expect("valid"),
            "a re-issued binding"
        );
        assert!(
            !ids.valid_successor(&a, &c, &ext).expect("valid"),
            "another device"
        );
    }
}
