//! [`SealedGroup`]: members sharing a secret that blinds their record keys.

use std::fmt;
use std::sync::{Arc, Mutex};

use crate::crypto::{BlindedKey, BlindingKey, Fingerprint, KeyError, PublicKey};
// A panic under this lock leaves the cache consistent (one assignment).
use crate::lock::lock;

/// A group whose members share a key secret for blinding record keys, so
/// that equal logical keys compact together whoever sent them. Records to
/// the group are MULTI records to every member but the sender.
#[derive(Clone)]
pub struct SealedGroup {
    members: Vec<PublicKey>,
    key: BlindingKey,
    /// The members but the sender, for the last sender that sent: worked
    /// out once, not per record (a group may have thousands of members).
    others: Arc<Mutex<Option<Others>>>,
}

/// A sender's fingerprint and the group's other members.
type Others = (Fingerprint, Arc<[PublicKey]>);

impl SealedGroup {
    /// A group of `members` (the sender may be among them; it is left out of
    /// each record's recipients) with a shared secret received from a member.
    pub fn new(members: Vec<PublicKey>, key: BlindingKey) -> Self {
        Self {
            members,
            key,
            others: Arc::default(),
        }
    }

    /// Every member but `own`.
    pub(super) fn others(&self, own: &Fingerprint) -> Arc<[PublicKey]> {
        let mut cached = lock(&self.others);
        match &*cached {
            Some((fp, others)) if fp == own => others.clone(),
            _ => {
                let others: Arc<[PublicKey]> = self
                    .members
                    .iter()
                    .filter(|m| m.fingerprint() != own)
                    .cloned()
                    .collect();
                *cached = Some((*own, others.clone()));
                others
            }
        }
    }

    /// A group of `members` with a fresh random secret, which its creator
    /// sends to the other members inside a sealed record
    /// ([`BlindingKey::group_secret_bytes`]).
    ///
    /// # Errors
    /// [`KeyError::Rng`] if the OS random source fails.
    pub fn generate(members: Vec<PublicKey>) -> Result<Self, KeyError> {
        Ok(Self::new(members, BlindingKey::generate_group()?))
    }

    /// The members.
    pub fn members(&self) -> &[PublicKey] {
        &self.members
    }

    /// The shared key secret.
    pub fn key(&self) -> &BlindingKey {
        &self.key
    }

    /// The batch key the broker sees for `logical_key` in this group.
    pub fn blind(&self, logical_key: &[u8]) -> BlindedKey {
        self.key.blind(logical_key)
    }
}

impl fmt::Debug for SealedGroup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SealedGroup")
            .field("members", &self.members)
            .field("key", &self.key)
            .finish()
    }
}
