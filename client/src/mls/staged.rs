//! Where mls-rs puts what it persists: in memory, staged, until our own
//! code writes it to the state directory together with the offset and the
//! delivered messages (docs/MLS.md §5.2) — mls-rs persists nothing until
//! `Group::write_to_storage`, and then hands everything to
//! [`GroupStateStorage::write`] in one call, which lands here.
//!
//! Past epochs are kept for [`PAST_EPOCHS`] and deleted after: forward
//! secrecy needs the old epochs' secrets gone, not only unused.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};

use mls_rs_core::group::{EpochRecord, GroupState, GroupStateStorage};
use mls_rs_core::key_package::{KeyPackageData, KeyPackageStorage};
use zeroize::Zeroizing;

/// Past epochs whose secrets are kept, so that an application message that
/// raced up to this many Commits still opens; older ones are deleted
/// (docs/MLS.md §5.3).
pub const PAST_EPOCHS: u64 = 4;

/// One group's staged state: the current snapshot and the kept past epochs.
#[derive(Clone, Default)]
pub struct GroupImage {
    /// The mls-rs snapshot of the group (secrets included).
    pub state: Zeroizing<Vec<u8>>,
    /// Past epochs by epoch id, at most [`PAST_EPOCHS`].
    pub epochs: BTreeMap<u64, Zeroizing<Vec<u8>>>,
}

impl std::fmt::Debug for GroupImage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GroupImage")
            .field("state_len", &self.state.len())
            .field("epochs", &self.epochs.keys().collect::<Vec<_>>())
            .finish()
    }
}

#[derive(Default)]
struct Inner {
    groups: HashMap<Vec<u8>, GroupImage>,
    key_packages: BTreeMap<Vec<u8>, KeyPackageData>,
    /// Set when the KeyPackages changed since [`Staged::take_key_packages_changed`].
    key_packages_changed: bool,
}

/// The in-memory storage one device's mls-rs client uses for groups and
/// KeyPackages; cloned handles share it.
#[derive(Clone, Default)]
pub struct Staged {
    inner: Arc<Mutex<Inner>>,
}

impl std::fmt::Debug for Staged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Staged").finish_non_exhaustive()
    }
}

/// The staged storage never fails.
#[derive(Debug, thiserror::Error)]
#[error("staged MLS storage: {0}")]
pub struct StagedError(&'static str);

impl mls_rs::error::IntoAnyError for StagedError {
    fn into_dyn_error(self) -> Result<Box<dyn std::error::Error + Send + Sync>, Self> {
        Ok(Box::new(self))
    }
}

impl Staged {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A copy of what is staged for `group_id`, to write to disk.
    pub fn export_group(&self, group_id: &[u8]) -> Option<GroupImage> {
        self.lock().groups.get(group_id).cloned()
    }

    /// Stage a group read back from disk, so that mls-rs can load it.
    pub fn import_group(&self, group_id: &[u8], image: GroupImage) {
        self.lock().groups.insert(group_id.to_vec(), image);
    }

    /// Drop a group (left, or removed from it).
    pub fn forget_group(&self, group_id: &[u8]) {
        self.lock().groups.remove(group_id);
    }

    /// Every KeyPackage whose private keys are held, to write to disk.
    pub fn export_key_packages(&self) -> Vec<(Vec<u8>, KeyPackageData)> {
        self.lock()
            .key_packages
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    /// Stage KeyPackages read back from disk.
    pub fn import_key_packages(&self, packages: Vec<(Vec<u8>, KeyPackageData)>) {
        let mut inner = self.lock();
        inner.key_packages = packages.into_iter().collect();
        inner.key_packages_changed = false;
    }

    /// Whether the KeyPackages changed (one generated, or one used by a
    /// Welcome) since the last call: then they must be written.
    pub fn take_key_packages_changed(&self) -> bool {
        std::mem::take(&mut self.lock().key_packages_changed)
    }

    /// Deletes the private keys of the KeyPackage `id` (one a Welcome used).
    pub fn delete_key_package(&self, id: &[u8]) {
        let mut inner = self.lock();
        if inner.key_packages.remove(id).is_some() {
            inner.key_packages_changed = true;
        }
    }

    /// How many KeyPackages have their private keys here.
    pub fn key_package_count(&self) -> usize {
        self.lock().key_packages.len()
    }
}

impl GroupStateStorage for Staged {
    type Error = StagedError;

    fn state(&self, group_id: &[u8]) -> Result<Option<Zeroizing<Vec<u8>>>, StagedError> {
        Ok(self.lock().groups.get(group_id).map(|g| g.state.clone()))
    }

    fn epoch(
        &self,
        group_id: &[u8],
        epoch_id: u64,
    ) -> Result<Option<Zeroizing<Vec<u8>>>, StagedError> {
        Ok(self
            .lock()
            .groups
            .get(group_id)
            .and_then(|g| g.epochs.get(&epoch_id).cloned()))
    }

    fn write(
        &mut self,
        state: GroupState,
        epoch_inserts: Vec<EpochRecord>,
        epoch_updates: Vec<EpochRecord>,
    ) -> Result<(), StagedError> {
        let mut inner = self.lock();
        let group = inner.groups.entry(state.id.clone()).or_default();
        group.state = state.data;
        for record in epoch_inserts.into_iter().chain(epoch_updates) {
            group.epochs.insert(record.id, record.data);
        }
        // Keep the newest PAST_EPOCHS; the rest are dropped (their bytes
        // zeroized as they go).
        while group.epochs.len() as u64 > PAST_EPOCHS {
            group.epochs.pop_first();
        }
        Ok(())
    }

    fn max_epoch_id(&self, group_id: &[u8]) -> Result<Option<u64>, StagedError> {
        Ok(self
            .lock()
            .groups
            .get(group_id)
            .and_then(|g| g.epochs.keys().next_back().copied()))
    }
}

impl KeyPackageStorage for Staged {
    type Error = StagedError;

    fn delete(&mut self, id: &[u8]) -> Result<(), StagedError> {
        self.delete_key_package(id);
        Ok(())
    }

    fn insert(&mut self, id: Vec<u8>, pkg: KeyPackageData) -> Result<(), StagedError> {
        let mut inner = self.lock();
        inner.key_packages.insert(id, pkg);
        inner.key_packages_changed = true;
        Ok(())
    }

    fn get(&self, id: &[u8]) -> Result<Option<KeyPackageData>, StagedError> {
        Ok(self.lock().key_packages.get(id).cloned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_newest_past_epochs_are_kept() {
        let mut s = Staged::default();
        for e in 0..10u64 {
            s.write(
                GroupState {
                    id: b"g".to_vec(),
                    data: Zeroizing::new(vec![e as u8]),
                },
                vec![EpochRecord::new(e, Zeroizing::new(vec![e as u8; 3]))],
                vec![],
            )
            .expect("write");
        }
        let image = s.export_group(b"g").expect("staged");
        assert_eq!(
            image.epochs.keys().copied().collect::<Vec<_>>(),
            (10 - PAST_EPOCHS..10).collect::<Vec<_>>()
        );
        assert_eq!(s.epoch(b"g", 2).expect("ok"), None, "deleted");
        assert_eq!(s.max_epoch_id(b"g").expect("ok"), Some(9));
        assert_eq!(&*image.state, &[9]);
    }
}
