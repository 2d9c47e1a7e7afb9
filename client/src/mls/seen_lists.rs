//! The device-list version memory of a device (docs/MLS.md §4.2, §5.2):
//! per account, the newest device list this device accepted — its version
//! and the SHA-256 of its bytes — kept sealed in the state directory
//! (`mls-device-lists`). A list older than that (a rollback), or another
//! list with that version (equivocation: the broker showing two lists the
//! account signed, or the account signing two), is refused; a newer one
//! moves the memory up. The first list seen for an account is trusted on
//! first use.

use std::collections::HashMap;
use std::sync::Mutex;

use super::device_list::{DeviceList, DeviceListError};
use super::error::ConversationError;
use crate::crypto::Fingerprint;
use crate::crypto::state::{PurposeKey, open_with, seal_with};
use crate::local::StateDir;

/// The state file of the memory.
pub const DEVICE_LISTS_FILE: &str = "mls-device-lists";

/// One entry: 32 account fp, u64 version, 32 SHA-256.
const ENTRY_LEN: usize = 32 + 8 + 32;

/// What this device accepted per account.
#[derive(Debug, Default)]
pub(crate) struct SeenLists {
    seen: Mutex<HashMap<Fingerprint, (u64, [u8; 32])>>,
}

impl SeenLists {
    /// Reads the memory from the state directory (empty when none).
    pub(crate) fn load(dir: &StateDir, key: &PurposeKey) -> Result<SeenLists, ConversationError> {
        let Some(sealed) = dir
            .read(DEVICE_LISTS_FILE)
            .map_err(ConversationError::state("read the device-list memory"))?
        else {
            return Ok(SeenLists::default());
        };
        let plain = open_with(key, "mls", DEVICE_LISTS_FILE.as_bytes(), &sealed)?;
        if plain.len() % ENTRY_LEN != 0 {
            return Err(ConversationError::Invalid(format!(
                "{DEVICE_LISTS_FILE}: {} bytes is not whole entries",
                plain.len()
            )));
        }
        let seen = plain
            .chunks_exact(ENTRY_LEN)
            .map(|e| {
                let fp = Fingerprint::from_bytes(e[..32].try_into().expect("32 bytes"));
                let version = u64::from_be_bytes(e[32..40].try_into().expect("8 bytes"));
                (fp, (version, e[40..].try_into().expect("32 bytes")))
            })
            .collect();
        Ok(SeenLists {
            seen: Mutex::new(seen),
        })
    }

    /// Checks `bytes` (a list already verified as `list`) against what was
    /// accepted for its account, and remembers it when it is newer.
    ///
    /// # Errors
    /// [`DeviceListError::RolledBack`], [`DeviceListError::Equivocation`];
    /// writing the memory.
    pub(crate) fn accept(
        &self,
        list: &DeviceList,
        bytes: &[u8],
        dir: &StateDir,
        key: &PurposeKey,
    ) -> Result<(), ConversationError> {
        let account = *list.account().fingerprint();
        let digest = super::device_list::list_digest(bytes);
        let mut seen = self
            .seen
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match seen.get(&account) {
            Some(&(v, _)) if list.version() < v => {
                return Err(DeviceListError::RolledBack {
                    account,
                    found: list.version(),
                    seen: v,
                }
                .into());
            }
            Some(&(v, d)) if list.version() == v => {
                if d != digest {
                    return Err(DeviceListError::Equivocation {
                        account,
                        version: v,
                    }
                    .into());
                }
                return Ok(());
            }
            _ => {}
        }
        seen.insert(account, (list.version(), digest));
        let mut plain = Vec::with_capacity(seen.len() * ENTRY_LEN);
        for (fp, (v, d)) in seen.iter() {
            plain.extend_from_slice(fp.as_bytes());
            plain.extend_from_slice(&v.to_be_bytes());
            plain.extend_from_slice(d);
        }
        let sealed = seal_with(key, "mls", DEVICE_LISTS_FILE.as_bytes(), &plain)?;
        dir.write(DEVICE_LISTS_FILE, &sealed)
            .map_err(ConversationError::state("write the device-list memory"))
    }

    /// The newest version accepted for `account`, if any.
    pub(crate) fn version(&self, account: &Fingerprint) -> Option<u64> {
        self.get(account).map(|(v, _)| v)
    }

    /// The newest version accepted for `account` and its list's SHA-256.
    pub(crate) fn get(&self, account: &Fingerprint) -> Option<(u64, [u8; 32])> {
        self.seen
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(account)
            .copied()
    }
}
