//! Joining conversations from Welcomes (docs/MLS.md §4.3): the Welcomes
//! waiting in this device's `welcome.` topic, read from a cursor kept in its
//! state; the device lists a Welcome's tree needs (§4.1); a joined group's
//! file; and the Welcomes the device-list check refused, reported.

use mls_rs::Group;
use mls_rs::MlsMessage;
use mls_rs::group::NewMemberInfo;

use super::config::{DELIVERY_EXTENSION, MlsConfig};
use super::conversation::{Conversation, MAX_LIST_FETCHES, group_topic, parse_delivery};
use super::credential::CredentialError;
use super::device::{Device, welcome_topic};
use super::error::ConversationError;
use super::event::Event;
use super::group_file::{GroupFile, file_name};
use crate::crypto::Fingerprint;

/// What [`Device::accept_welcomes_reporting`] did: the topics of the
/// conversations joined, and the Welcomes refused.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Welcomes {
    /// The topics of the conversations joined, in Welcome order.
    pub joined: Vec<String>,
    /// The Welcomes the device-list check refused (docs/MLS.md §4.3).
    pub refused: Vec<WelcomeRefused>,
}

/// A Welcome refused because a leaf of its tree is not a listed device of
/// its account at its binding's version: that list cannot be had (withheld,
/// none published, not verifiable). Nothing was joined from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WelcomeRefused {
    /// The Welcome's offset in this device's `welcome.` topic.
    pub offset: u64,
    /// The account the leaf's binding names.
    pub account: Fingerprint,
    /// The leaf's device.
    pub device: Fingerprint,
    /// Why, in words.
    pub reason: String,
}

/// How one Welcome went.
enum Join {
    Joined(Box<Group<MlsConfig>>, NewMemberInfo),
    Skipped,
    Refused {
        account: Fingerprint,
        device: Fingerprint,
        reason: String,
    },
}

impl Device {
    /// Joins every conversation whose Welcome waits in this device's
    /// `welcome.` topic; returns their topics. A Welcome not for this
    /// device, or for a group it already has, is skipped; one the
    /// device-list check refuses is logged and skipped — use
    /// [`Device::accept_welcomes_reporting`] to be told.
    ///
    /// # Errors
    /// [`ConversationError`].
    pub async fn accept_welcomes(&self) -> Result<Vec<String>, ConversationError> {
        let welcomes = self.accept_welcomes_reporting().await?;
        for r in &welcomes.refused {
            tracing::warn!(
                offset = r.offset,
                account = %r.account,
                device = %r.device,
                "a Welcome is refused: {}",
                r.reason
            );
        }
        Ok(welcomes.joined)
    }

    /// Joins every conversation whose Welcome waits in this device's
    /// `welcome.` topic, like [`Device::accept_welcomes`], and says which
    /// Welcomes the device-list check refused (docs/MLS.md §4.3): a leaf of
    /// the Welcome's tree whose account's list cannot be had at its
    /// binding's version (withheld, none published, not verifiable). A
    /// refused Welcome is not retried: it is reported once.
    ///
    /// # Errors
    /// [`ConversationError`].
    pub async fn accept_welcomes_reporting(&self) -> Result<Welcomes, ConversationError> {
        let topic = welcome_topic(self.fingerprint());
        let mut cursor = self.welcome_cursor()?;
        let mut welcomes = Welcomes::default();
        // One fetch at a time (anyone may write to a welcome topic: memory
        // stays one fetch's worth), the cursor saved after each.
        loop {
            let records = self.inner.read_from(&topic, 0, cursor).await?;
            let Some(last) = records.last() else {
                return Ok(welcomes);
            };
            let next = last.offset + 1;
            for record in records {
                let Ok(welcome) = MlsMessage::from_bytes(&record.value) else {
                    continue;
                };
                match self.join_checked(&welcome).await? {
                    Join::Joined(group, info) => {
                        if let Some(topic) = self.adopt(group, &info)? {
                            welcomes.joined.push(topic);
                        }
                    }
                    // Not for us (no KeyPackage of ours in it), or invalid.
                    Join::Skipped => {}
                    Join::Refused {
                        account,
                        device,
                        reason,
                    } => welcomes.refused.push(WelcomeRefused {
                        offset: record.offset,
                        account,
                        device,
                        reason,
                    }),
                }
            }
            self.set_welcome_cursor(next)?;
            cursor = next;
        }
    }

    /// Joins from `welcome`, fetching the device lists its tree's leaves
    /// need (docs/MLS.md §4.1): a join the leaf check stopped for want of
    /// a list is tried again once the list is held. Refused when a leaf's
    /// list cannot be had at its binding's version; an error (the Welcome
    /// kept for the next try: the cursor does not move) when the broker
    /// cannot be asked.
    async fn join_checked(&self, welcome: &MlsMessage) -> Result<Join, ConversationError> {
        let ids = &self.inner.ids;
        let mut last = None;
        for _ in 0..MAX_LIST_FETCHES {
            ids.take_noted();
            match self.inner.mls.join_group(None, welcome, None) {
                Ok((group, info)) => return Ok(Join::Joined(Box::new(group), info)),
                Err(e) => match ids.take_noted() {
                    Some(CredentialError::NeedList {
                        account,
                        device,
                        version,
                    }) => match self.ensure_list(&account, &device, version).await {
                        Ok(_) => last = Some((account, device)),
                        Err(e @ ConversationError::Client(_)) => return Err(e),
                        Err(why) => {
                            return Ok(Join::Refused {
                                account,
                                device,
                                reason: why.to_string(),
                            });
                        }
                    },
                    _ => {
                        tracing::debug!("a Welcome is skipped: {e}");
                        return Ok(Join::Skipped);
                    }
                },
            }
        }
        // Every try needed one more list: refused, and said so (never
        // skipped in silence).
        Ok(match last {
            Some((account, device)) => Join::Refused {
                account,
                device,
                reason: format!(
                    "its tree needs more than {MAX_LIST_FETCHES} device lists this device does not hold"
                ),
            },
            None => Join::Skipped,
        })
    }

    /// Stores a group just joined: its file first, then the KeyPackages
    /// without the one used (so a crash between leaves a private key to
    /// delete, never a group without its keys).
    fn adopt(
        &self,
        group: Box<Group<MlsConfig>>,
        info: &NewMemberInfo,
    ) -> Result<Option<String>, ConversationError> {
        let group = *group;
        let Some((topic, start)) = info
            .group_info_extensions
            .get(mls_rs::extension::ExtensionType::new(DELIVERY_EXTENSION))
            .and_then(|e| parse_delivery(&e.extension_data))
        else {
            return Ok(None);
        };
        if topic != group_topic(group.group_id()) {
            return Ok(None);
        }
        let name = file_name(group.group_id());
        if let Some(sealed) = self
            .inner
            .dir
            .read(&name)
            .map_err(ConversationError::state("read a group file"))?
        {
            // A group this device already follows keeps its state; one it
            // was removed from, or could no longer follow, is replaced:
            // being re-added is the way back (docs/MLS.md §6.4).
            let old = GroupFile::open_with(&self.inner.file_key, &name, &sealed)?;
            if !old.removed {
                return Ok(None);
            }
        }
        let file = GroupFile {
            group_id: group.group_id().to_vec(),
            topic: topic.clone(),
            next: start,
            image: Default::default(),
            outbox: Vec::new(),
            recent: Default::default(),
            delivered: Vec::new(),
            removed: false,
            first_epoch: group.current_epoch(),
        };
        let mut c = Conversation::from_parts(self.clone(), group, file)?;
        let unlisted = c.unlisted_members(|_| true);
        for (member, list_version) in unlisted {
            c.file.delivered.push(Event::DeviceNotListed {
                offset: start,
                account: member.account,
                device: member.device,
                list_version,
            });
        }
        c.save()?;
        self.inner.save_key_packages()?;
        Ok(Some(topic))
    }
}
