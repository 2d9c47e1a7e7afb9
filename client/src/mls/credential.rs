//! Who a leaf is: the device's credential (a basic credential whose
//! identity is the account's [`DeviceBinding`]) and the check every member
//! runs on every leaf it validates (docs/MLS.md §4.1) — mls-rs calls
//! [`DeviceIdentity::validate_member`] for KeyPackages being added, the
//! tree of a Welcome and the leaves of every Commit.
//!
//! The check has two parts: the binding verifies for the leaf's key, and
//! the account's device list — at the binding's `list_version` or newer —
//! names that key. mls-rs's hook is synchronous, so the lists come from a
//! cache of verified lists ([`DeviceIdentity`]'s `lists`) that the
//! conversation layer fills: when the hook meets an account whose list it
//! does not hold at that version it fails with [`CredentialError::NeedList`]
//! and notes what it needs; the caller restores the group as it was,
//! fetches the list (through the device-list memory: rollback and
//! equivocation are refused) and tries again.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use mls_rs::ExtensionList;
use mls_rs::identity::basic::BasicCredential;
use mls_rs::identity::{CredentialType, SigningIdentity};
use mls_rs::time::MlsTime;
use mls_rs_core::crypto::{SignaturePublicKey, SignatureSecretKey};
use mls_rs_core::identity::{IdentityProvider, MemberValidationContext};
use sha2::{Digest as _, Sha256};

use super::binding::{BindingError, DeviceBinding};
use super::device_list::DeviceList;
use crate::crypto::{Fingerprint, Identity, PublicKey};

/// How many verified (binding, device key) pairs are remembered, so that a
/// leaf seen again (in every Commit's tree) is not verified again.
const VERIFIED_CACHE: usize = 4096;

/// Length of [`DeviceIdentity::identity`]: account fp, then device fp.
pub const MEMBER_IDENTITY_LEN: usize = 64;

/// Why a leaf is refused.
#[derive(Debug, Clone, thiserror::Error)]
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
    /// The account's device list at `version` or newer is needed to judge
    /// the leaf and this device does not hold it yet: fetch it and retry.
    #[error(
        "the device list of {account} at version {version} or newer is needed to check its device {device}"
    )]
    NeedList {
        /// The account.
        account: Fingerprint,
        /// The device whose leaf is judged.
        device: Fingerprint,
        /// The binding's `list_version`.
        version: u64,
    },
    /// The account's device list (the newest this device holds, at least
    /// the binding's version) does not name the leaf's key.
    #[error(
        "device {device} is not on the device list of account {account} (version {list_version}): its leaf is refused"
    )]
    NotListed {
        /// The account.
        account: Fingerprint,
        /// The device.
        device: Fingerprint,
        /// The version of the list that does not name it.
        list_version: u64,
    },
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

/// Parses a leaf's credential and checks its binding; the member it names
/// and the binding's list version (the device list is checked by
/// [`DeviceIdentity`]).
///
/// # Errors
/// [`CredentialError`].
pub fn check_leaf(identity: &SigningIdentity) -> Result<(MemberId, u64), CredentialError> {
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
    Ok((
        MemberId {
            account: *binding.account().fingerprint(),
            device: *device.fingerprint(),
        },
        binding.list_version(),
    ))
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
/// signature key, and the account's device list (at the binding's version
/// or newer) names that key.
#[derive(Clone, Default)]
pub struct DeviceIdentity {
    /// SHA-256 of (credential identity ‖ device key) of leaves whose
    /// binding verified → the member and the binding's list version.
    verified: Arc<Mutex<Verified>>,
    /// The newest verified device list held per account, shared with the
    /// device (which fills it whenever it accepts a list): the hook is
    /// synchronous and cannot fetch.
    lists: Arc<Mutex<HashMap<Fingerprint, Arc<DeviceList>>>>,
    /// What the last refused validation needed or found, for the caller
    /// (mls-rs wraps the hook's error in its own).
    noted: Arc<Mutex<Option<CredentialError>>>,
}

/// Leaves whose binding verified: digest → member and list version.
type Verified = HashMap<[u8; 32], (MemberId, u64)>;

fn locked<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl std::fmt::Debug for DeviceIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceIdentity").finish_non_exhaustive()
    }
}

impl DeviceIdentity {
    /// The member a leaf names, its binding checked (or known good).
    pub(crate) fn member(&self, identity: &SigningIdentity) -> Result<MemberId, CredentialError> {
        self.bound(identity).map(|(m, _)| m)
    }

    /// The member a leaf names and its binding's list version, the binding
    /// checked (or known good).
    fn bound(&self, identity: &SigningIdentity) -> Result<(MemberId, u64), CredentialError> {
        let digest: [u8; 32] = {
            let mut h = Sha256::new();
            if let Some(basic) = identity.credential.as_basic() {
                h.update(basic.identifier());
            }
            h.update([0xff]);
            h.update(&*identity.signature_key);
            h.finalize().into()
        };
        if let Some(known) = locked(&self.verified).get(&digest) {
            return Ok(*known);
        }
        let (member, version) = check_leaf(identity)?;
        let mut verified = locked(&self.verified);
        if verified.len() >= VERIFIED_CACHE {
            verified.clear();
        }
        verified.insert(digest, (member, version));
        Ok((member, version))
    }

    /// Keeps `list` (already verified) as the newest held for its account,
    /// unless a newer one is held. A [`Device`](super::Device) does this for
    /// every list it accepts; a bare mls-rs client (benches, conformance)
    /// gives its lists here.
    pub fn hold_list(&self, list: &DeviceList) {
        let mut lists = locked(&self.lists);
        let account = *list.account().fingerprint();
        if lists
            .get(&account)
            .is_none_or(|held| held.version() < list.version())
        {
            lists.insert(account, Arc::new(list.clone()));
        }
    }

    /// The newest device list held for `account`.
    pub(crate) fn held_list(&self, account: &Fingerprint) -> Option<Arc<DeviceList>> {
        locked(&self.lists).get(account).cloned()
    }

    /// What the last refused validation noted ([`CredentialError::NeedList`]
    /// or [`CredentialError::NotListed`]), cleared.
    pub(crate) fn take_noted(&self) -> Option<CredentialError> {
        locked(&self.noted).take()
    }

    /// The list check of a leaf named `member` whose binding carries
    /// `version`. With `tolerate_unlisted` (a Welcome's tree: existing
    /// members may have been dropped and not yet removed), a key missing
    /// from the list is let through — the conversation reports it.
    fn check_listed(
        &self,
        member: MemberId,
        version: u64,
        key: &[u8],
        tolerate_unlisted: bool,
    ) -> Result<(), CredentialError> {
        let held = self.held_list(&member.account);
        let refusal = match held {
            Some(list) if list.version() >= version => {
                if list.lists(key) || tolerate_unlisted {
                    return Ok(());
                }
                CredentialError::NotListed {
                    account: member.account,
                    device: member.device,
                    list_version: list.version(),
                }
            }
            _ => CredentialError::NeedList {
                account: member.account,
                device: member.device,
                version,
            },
        };
        *locked(&self.noted) = Some(refusal.clone());
        Err(refusal)
    }
}

impl IdentityProvider for DeviceIdentity {
    type Error = CredentialError;

    fn validate_member(
        &self,
        signing_identity: &SigningIdentity,
        _timestamp: Option<MlsTime>,
        context: MemberValidationContext<'_>,
    ) -> Result<(), CredentialError> {
        let (member, version) = self.bound(signing_identity)?;
        // A Welcome's tree (and a group being made: our own leaf only)
        // is `ForNewGroup`; every other call is about a new leaf.
        let tolerate = matches!(context, MemberValidationContext::ForNewGroup { .. });
        self.check_listed(member, version, &signing_identity.signature_key, tolerate)
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
            DeviceBinding::issue(&account, &device.public_key().to_sec1_uncompressed(), 1, 1);
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
            DeviceBinding::issue(&account, &device.public_key().to_sec1_uncompressed(), 1, 1);
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
        let (a, _) = signing_identity(&device, &DeviceBinding::issue(&account, &sec1, 1, 1));
        let (b, _) = signing_identity(&device, &DeviceBinding::issue(&account, &sec1, 1, 2));
        let other_sec1 = other.public_key().to_sec1_uncompressed();
        let (c, _) = signing_identity(&other, &DeviceBinding::issue(&account, &other_sec1, 1, 1));
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

    #[test]
    fn a_leaf_needs_its_accounts_list_at_its_version_naming_its_key() {
        use super::super::device_list::ListedDevice;
        let account = Identity::generate().expect("key");
        let device = Identity::generate().expect("key");
        let sec1 = device.public_key().to_sec1_uncompressed();
        let (leaf, _) = signing_identity(&device, &DeviceBinding::issue(&account, &sec1, 2, 1));
        let ids = DeviceIdentity::default();
        let check = || ids.validate_member(&leaf, None, MemberValidationContext::None);
        let list = |version: u64, keys: &[[u8; 65]]| {
            let devices = keys
                .iter()
                .map(|k| ListedDevice {
                    key: *k,
                    added_at: 0,
                })
                .collect();
            DeviceList::new(account.public_key(), version, 0, devices).expect("list")
        };
        // No list held, then one older than the binding: the list is needed.
        assert!(matches!(
            check(),
            Err(CredentialError::NeedList { version: 2, .. })
        ));
        assert!(matches!(
            ids.take_noted(),
            Some(CredentialError::NeedList { .. })
        ));
        ids.hold_list(&list(1, &[sec1]));
        assert!(
            matches!(check(), Err(CredentialError::NeedList { .. })),
            "a list older than the binding is no evidence"
        );
        // The list at the binding's version names it: valid.
        ids.hold_list(&list(2, &[sec1]));
        check().expect("listed");
        // A newer list without it: refused (not a new leaf: reported).
        let other = Identity::generate()
            .expect("key")
            .public_key()
            .to_sec1_uncompressed();
        ids.hold_list(&list(3, &[other]));
        assert!(matches!(
            check(),
            Err(CredentialError::NotListed {
                list_version: 3,
                ..
            })
        ));
        // An older list does not replace a newer one held.
        ids.hold_list(&list(2, &[sec1]));
        assert!(check().is_err());
    }
}
