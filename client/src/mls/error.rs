//! Why a conversation operation failed.

use crate::crypto::Fingerprint;
use crate::crypto::state::StateError;
use crate::error::ClientError;
use crate::trust::RotationError;

use super::content::ContentError;
use super::credential::CredentialError;
use super::device_list::DeviceListError;
use super::group_file::GroupFileError;

/// Why a conversation operation failed; each says what to do.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConversationError {
    /// The broker or the connection to it.
    #[error(transparent)]
    Client(#[from] ClientError),
    /// The MLS library refused an operation.
    #[error("MLS: {what}: {source}")]
    Mls {
        /// What was being done.
        what: &'static str,
        /// The library's error.
        #[source]
        source: mls_rs::error::MlsError,
    },
    /// Reading or writing the state directory.
    #[error("state directory: {what}: {source}")]
    State {
        /// What was being done.
        what: &'static str,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A group file could not be read.
    #[error(transparent)]
    GroupFile(#[from] GroupFileError),
    /// A state file could not be sealed or opened.
    #[error("state file: {0}")]
    Sealing(#[from] StateError),
    /// The account has no device list: it never published one.
    #[error(
        "the account {account} has published no device list: it must run `hermit devices publish` (or open its MLS device once) before it can be invited"
    )]
    NoDeviceList {
        /// The account.
        account: Fingerprint,
    },
    /// A device list failed its checks.
    #[error(transparent)]
    DeviceList(#[from] DeviceListError),
    /// The broker serves a device list older than a binding says exists
    /// (it withholds the newer one): the leaf cannot be judged and is
    /// refused.
    #[error(
        "the device list of {account} is version {found}, but device {device}'s binding names version {needed}: the newer list is withheld, the leaf is refused"
    )]
    DeviceListTooOld {
        /// The account.
        account: Fingerprint,
        /// The device whose leaf needed it.
        device: Fingerprint,
        /// The newest version served.
        found: u64,
        /// The version the binding names.
        needed: u64,
    },
    /// A leaf failed the device check (docs/MLS.md §4.1): not bound, or
    /// its device is not on its account's list.
    #[error(transparent)]
    Credential(#[from] CredentialError),
    /// A rotation statement failed its checks (e.g. forged by a broker
    /// admin): refused, the contact stays as it was.
    #[error("account-key rotation refused: {0}")]
    Rotation(#[from] RotationError),
    /// A contact's account key changed (a valid rotation statement) and
    /// the user has not confirmed it: nothing is sent to either key.
    #[error(
        "the account key of {account} changed to {new} and is not confirmed: nothing is sent to either key until you confirm it (`hermit contacts confirm`) after comparing the new safety number"
    )]
    KeyChanged {
        /// The contact's pinned (old) account.
        account: Fingerprint,
        /// The account it rotated to.
        new: Fingerprint,
    },
    /// A device has no KeyPackage left, not even a last-resort one.
    #[error(
        "the device {device} has no KeyPackages left: its owner must run `hermit keypackages publish`"
    )]
    NoKeyPackages {
        /// The device.
        device: Fingerprint,
    },
    /// A claimed or published KeyPackage is not what it should be.
    #[error("the KeyPackage claimed for device {device} is invalid: {reason}")]
    BadKeyPackage {
        /// The device whose topic it came from.
        device: Fingerprint,
        /// Why.
        reason: String,
    },
    /// Our Commit lost the race every time.
    #[error(
        "the commit did not land after {attempts} attempts: others kept committing first; try again"
    )]
    CommitStalled {
        /// How many times it was tried.
        attempts: u32,
    },
    /// This device is no longer in the group.
    #[error("this device was removed from the conversation {topic}")]
    Removed {
        /// The group topic.
        topic: String,
    },
    /// No such conversation in this state directory.
    #[error("no conversation {topic} in this state directory")]
    UnknownConversation {
        /// The group topic asked for.
        topic: String,
    },
    /// The group is stopped on a suspected fork or missing commits.
    #[error(
        "the conversation {topic} cannot go on ({why}): another member must re-add this device"
    )]
    Stuck {
        /// The group topic.
        topic: String,
        /// Why.
        why: &'static str,
    },
    /// A message could not be framed.
    #[error(transparent)]
    Content(#[from] ContentError),
    /// An argument is not usable.
    #[error("{0}")]
    Invalid(String),
}

impl ConversationError {
    /// Wraps an MLS library error with what was being done.
    pub(crate) fn mls(what: &'static str) -> impl FnOnce(mls_rs::error::MlsError) -> Self {
        move |source| ConversationError::Mls { what, source }
    }

    /// Wraps an I/O error of the state directory with what was being done.
    pub(crate) fn state(what: &'static str) -> impl FnOnce(std::io::Error) -> Self {
        move |source| ConversationError::State { what, source }
    }
}
