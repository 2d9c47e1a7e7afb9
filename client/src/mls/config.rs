//! The MLS parameters of docs/MLS.md §5.3 and the rules every member
//! applies to every Commit alike (§6.1), in one place: the JavaScript SDK
//! sets the same values.

use std::convert::Infallible;
use std::time::Duration;

use mls_rs::CipherSuite;
use mls_rs::MlsRules;
use mls_rs::client_builder::{
    BaseConfig, PaddingMode, WithCryptoProvider, WithGroupStateStorage, WithIdentityProvider,
    WithKeyPackageRepo, WithMlsRules,
};
use mls_rs::group::proposal::BorrowedProposal;
use mls_rs::group::{GroupContext, Roster};
use mls_rs::mls_rules::{
    CommitDirection, CommitOptions, CommitSource, EncryptionOptions, ProposalBundle,
};

use super::credential::DeviceIdentity;
pub use super::provider::Suite2Provider;
use super::staged::Staged;

/// The one ciphersuite: `MLS_128_DHKEMP256_AES128GCM_SHA256_P256`.
pub const CIPHER_SUITE: CipherSuite = CipherSuite::P256_AES128;

pub use super::staged::PAST_EPOCHS;

/// How long a KeyPackage is valid (checked on receipt).
pub const KEY_PACKAGE_LIFETIME: Duration = Duration::from_secs(90 * 24 * 3600);

/// The private GroupInfo extension that tells a joiner where to read
/// (docs/MLS.md §4.3): the group topic and the offset to start at.
pub const DELIVERY_EXTENSION: u16 = 0xF0A1;

/// The client configuration every device uses.
pub type MlsConfig = WithKeyPackageRepo<
    Staged,
    WithGroupStateStorage<
        Staged,
        WithMlsRules<
            Rules,
            WithIdentityProvider<DeviceIdentity, WithCryptoProvider<Suite2Provider, BaseConfig>>,
        >,
    >,
>;

/// The rules of docs/MLS.md §6.1: Commits are sent encrypted, unpadded
/// (our framing pads application content), with a path and the ratchet
/// tree in the Welcome; of the proposals, only Add, Update and Remove are
/// allowed — a Commit carrying any other is invalid for every member alike.
#[derive(Debug, Clone, Copy, Default)]
pub struct Rules;

/// A Commit (received) carried a proposal our rules do not allow.
#[derive(Debug, thiserror::Error)]
#[error("the commit carries a proposal HermitMQ groups do not allow ({0})")]
pub struct RulesError(&'static str);

impl mls_rs::error::IntoAnyError for RulesError {
    fn into_dyn_error(self) -> Result<Box<dyn std::error::Error + Send + Sync>, Self> {
        Ok(Box::new(self))
    }
}

/// The name of a proposal kind our groups refuse; `None` for Add, Update
/// and Remove.
fn refused(proposal: &BorrowedProposal<'_>) -> Option<&'static str> {
    match proposal {
        BorrowedProposal::Add(_) | BorrowedProposal::Update(_) | BorrowedProposal::Remove(_) => {
            None
        }
        BorrowedProposal::ReInit(_) => Some("ReInit"),
        BorrowedProposal::ExternalInit(_) => Some("ExternalInit"),
        BorrowedProposal::GroupContextExtensions(_) => Some("GroupContextExtensions"),
        #[allow(unreachable_patterns)]
        _ => Some("PreSharedKey"),
    }
}

impl MlsRules for Rules {
    type Error = RulesError;

    fn filter_proposals(
        &self,
        direction: CommitDirection,
        _source: CommitSource,
        _roster: &Roster,
        _context: &GroupContext,
        mut proposals: ProposalBundle,
    ) -> Result<ProposalBundle, RulesError> {
        let mut first_refused = None;
        proposals
            .retain(|p| {
                let kind = refused(&p.proposal);
                if first_refused.is_none() {
                    first_refused = kind;
                }
                Ok::<_, Infallible>(kind.is_none())
            })
            .unwrap_or_else(|never| match never {});
        match (direction, first_refused) {
            // Receiving: a Commit with a refused proposal is invalid, for
            // every member alike.
            (CommitDirection::Receive, Some(kind)) => Err(RulesError(kind)),
            // Sending: leave out what we refuse (a by-reference proposal
            // someone sent), so that a Commit can always be made.
            _ => Ok(proposals),
        }
    }

    fn commit_options(
        &self,
        _roster: &Roster,
        _context: &GroupContext,
        _proposals: &ProposalBundle,
    ) -> Result<CommitOptions, RulesError> {
        Ok(CommitOptions::new()
            .with_path_required(true)
            .with_ratchet_tree_extension(true)
            .with_single_welcome_message(true)
            .with_allow_external_commit(false))
    }

    fn encryption_options(
        &self,
        _roster: &Roster,
        _context: &GroupContext,
    ) -> Result<EncryptionOptions, RulesError> {
        Ok(EncryptionOptions::new(true, PaddingMode::None))
    }
}
