//! Account-key rotation on a device (docs/MLS.md §4.6) and the freshness
//! of device lists (§4.2): publishing a rotation statement, reading and
//! checking one, a contact's pending key change, its confirmation, and the
//! block on sending to a contact whose key changed.
//!
//! Who fetches what: [`Device::refresh_contact`] reads the contact's
//! `dir.` topic once (its device list and its newest rotation statement
//! from the same records). The sending paths of the SDK
//! ([`Conversation::send_text`], [`Conversation::invite`],
//! [`Conversation::add_devices`]) only read the contacts file: a key
//! change already seen blocks them without a fetch. Applications refresh
//! before sending — [`Conversation::refresh_contacts`] does one fetch per
//! contact among the group's members (the CLI does it once per command).

use hermit_protocol::{Ack, Cleanup};

use super::contacts::{Contact, PendingRotation};
use super::conversation::Conversation;
use super::device::{Device, now_ms, one_record};
use super::device_list::{DeviceList, LIST_RESIGN_AFTER_MS, directory_topic};
use super::error::ConversationError;
use crate::crypto::Fingerprint;
use crate::trust::{ROTATION_KEY, RotationError, RotationStatement};

/// A contact as a refresh found it: its newest device list (checked, and
/// remembered: trust on first use) and whether that list is stale.
#[derive(Debug, Clone)]
pub struct ContactStatus {
    /// The contact, with a key change it now carries, if any.
    pub contact: Contact,
    /// The contact's device list (of its pinned key).
    pub list: DeviceList,
    /// The list was signed more than 30 days ago
    /// ([`DeviceList::is_stale`]).
    pub stale: bool,
}

/// The newest rotation statement among a `dir.` topic's records, checked
/// against the account the topic names.
/// How far past this device's clock a rotation statement may be dated:
/// one dated later is refused, so that a thief of the old key cannot date
/// a statement so late that the owner's later one never looks newer.
pub const ROTATION_MAX_SKEW_MS: u64 = 24 * 3600 * 1000;

fn rotation_in(
    records: &[crate::records::Record],
    account: &Fingerprint,
) -> Result<Option<RotationStatement>, ConversationError> {
    let Some(s) = records
        .iter()
        .rev()
        .find(|r| r.key.as_ref() == ROTATION_KEY)
        .map(|r| RotationStatement::verify(&r.value, account))
        .transpose()?
    else {
        return Ok(None);
    };
    let now = now_ms();
    if s.issued_at() > now.saturating_add(ROTATION_MAX_SKEW_MS) {
        return Err(RotationError::FromTheFuture {
            account: *account,
            ahead_ms: s.issued_at() - now,
        }
        .into());
    }
    Ok(Some(s))
}

fn not_a_contact(account: &Fingerprint) -> ConversationError {
    ConversationError::Invalid(format!("{} is not a contact", account.to_hex()))
}

impl Device {
    /// Rotates this account to the account of `new` (a device opened with
    /// the new account key, its own state directory and a connection as
    /// the new key — the broker lets only an account write its own `dir.`
    /// topic): publishes the new account's device list (naming the new
    /// key's device) under `dir.<new fp>`, then the statement, signed by
    /// both keys, under the key `rotation` in `dir.<old fp>`.
    ///
    /// # Errors
    /// [`ConversationError::Invalid`] unless both devices hold their
    /// account keys and the keys differ; publishing.
    pub async fn publish_rotation(
        &self,
        new: &Device,
    ) -> Result<RotationStatement, ConversationError> {
        if !self.is_account() || !new.is_account() {
            return Err(ConversationError::Invalid(
                "a rotation is signed by the old and the new account keys: run it on the account's own device, with the new key as a new account".into(),
            ));
        }
        let statement =
            RotationStatement::sign(&self.inner.identity, &new.inner.identity, now_ms())?;
        // The new list first: whoever sees the statement can confirm it.
        new.publish_device_list(&[]).await?;
        let topic = directory_topic(self.account().fingerprint());
        self.inner
            .ensure_topic(&topic, 1, Cleanup::Compact, None)
            .await?;
        self.inner
            .transport
            .produce(
                &topic,
                0,
                Ack::Durable,
                one_record(ROTATION_KEY, &statement.encode())?,
            )
            .await?;
        Ok(statement)
    }

    /// The newest rotation statement of `account` (from `dir.<account>`),
    /// checked: `None` when it published none.
    ///
    /// # Errors
    /// [`ConversationError::Rotation`] for one that does not verify (a
    /// forgery is refused, never shown as a warning).
    pub async fn rotation_of(
        &self,
        account: &Fingerprint,
    ) -> Result<Option<RotationStatement>, ConversationError> {
        let records = self.inner.read_all(&directory_topic(account), 0).await?;
        rotation_in(&records, account)
    }

    /// Refreshes the contact of `account` (its pinned key's fingerprint)
    /// with one read of its `dir.` topic: its device list (checked against
    /// the device-list memory) and its newest rotation statement. A valid
    /// statement other than the one the contact carries becomes its
    /// pending key change ("verified" is reset); nothing changes on a
    /// refusal (a forged statement, or one dated more than
    /// [`ROTATION_MAX_SKEW_MS`] after this device's clock).
    ///
    /// # Errors
    /// Not a contact; [`ConversationError::Rotation`] (a forged or damaged
    /// statement), a device-list refusal, [`ConversationError::NoDeviceList`].
    pub async fn refresh_contact(
        &self,
        account: &Fingerprint,
    ) -> Result<ContactStatus, ConversationError> {
        let records = self.inner.read_all(&directory_topic(account), 0).await?;
        let rotation = rotation_in(&records, account)?;
        let list = self
            .inner
            .newest_list(&records, account)?
            .ok_or(ConversationError::NoDeviceList { account: *account })?;
        let mut contacts = self.contacts()?;
        let c = contacts
            .iter_mut()
            .find(|c| c.account.fingerprint() == account)
            .ok_or_else(|| not_a_contact(account))?;
        // Another statement than the pending one — a later one by the
        // owner, or by whoever else holds the old key — is a change of its
        // own: shown again, whatever its date.
        if let Some(s) = rotation
            && c.pending
                .as_ref()
                .is_none_or(|p| &p.new != s.new_key() || p.issued_at != s.issued_at())
        {
            c.pending = Some(PendingRotation {
                new: s.new_key().clone(),
                issued_at: s.issued_at(),
                seen_at: now_ms(),
            });
            c.verified_at = None;
            let contact = c.clone();
            self.save_contacts(&contacts)?;
            return Ok(ContactStatus {
                contact,
                stale: list.is_stale(now_ms()),
                list,
            });
        }
        Ok(ContactStatus {
            contact: c.clone(),
            stale: list.is_stale(now_ms()),
            list,
        })
    }

    /// Refreshes every contact whose pinned key, or the new key of whose
    /// pending change, is one of `accounts` (one `dir.` read each).
    ///
    /// # Errors
    /// As [`Device::refresh_contact`].
    pub async fn refresh_contacts_among(
        &self,
        accounts: &[Fingerprint],
    ) -> Result<Vec<ContactStatus>, ConversationError> {
        let mut out = Vec::new();
        for c in self.contacts()? {
            let new = c.pending.as_ref().map(|p| *p.new.fingerprint());
            if accounts
                .iter()
                .any(|a| a == c.account.fingerprint() || Some(*a) == new)
            {
                out.push(self.refresh_contact(c.account.fingerprint()).await?);
            }
        }
        Ok(out)
    }

    /// Confirms the pending key change of the contact of `account`: its
    /// new account's device list is fetched from `dir.<new fp>` (it must
    /// be signed by the new key, and is remembered: trust on first use of
    /// the new list), the pinned key becomes the new key, the name stays,
    /// and "verified" stays reset (compare the new safety number).
    ///
    /// # Errors
    /// Not a contact, or no pending change; another contact already has
    /// the new key; the new account's list is missing or refused.
    pub async fn confirm_rotation(
        &self,
        account: &Fingerprint,
    ) -> Result<Contact, ConversationError> {
        let mut contacts = self.contacts()?;
        let i = contacts
            .iter()
            .position(|c| c.account.fingerprint() == account)
            .ok_or_else(|| not_a_contact(account))?;
        let Some(pending) = contacts[i].pending.clone() else {
            return Err(ConversationError::Invalid(format!(
                "the account key of {} has no change to confirm",
                contacts[i].name
            )));
        };
        let new_fp = *pending.new.fingerprint();
        if let Some(other) = contacts.iter().find(|c| c.account.fingerprint() == &new_fp) {
            return Err(ConversationError::Invalid(format!(
                "the new key {} is already the contact {:?}",
                new_fp.to_hex(),
                other.name
            )));
        }
        self.device_list(&new_fp).await?;
        let c = &mut contacts[i];
        c.account = pending.new;
        c.pending = None;
        c.verified_at = None;
        let out = c.clone();
        self.save_contacts(&contacts)?;
        Ok(out)
    }

    /// Refuses when one of `accounts` (accounts or device fingerprints) is
    /// the old or the new key of a contact's unconfirmed key change. Reads
    /// the contacts file only.
    ///
    /// # Errors
    /// [`ConversationError::KeyChanged`]; the contacts cannot be read.
    pub fn check_key_changes<'a>(
        &self,
        accounts: impl IntoIterator<Item = &'a Fingerprint>,
    ) -> Result<(), ConversationError> {
        let blocked: Vec<(Fingerprint, Fingerprint)> = self
            .contacts()?
            .iter()
            .filter_map(|c| {
                c.pending
                    .as_ref()
                    .map(|p| (*c.account.fingerprint(), *p.new.fingerprint()))
            })
            .collect();
        if blocked.is_empty() {
            return Ok(());
        }
        for a in accounts {
            if let Some(&(account, new)) = blocked.iter().find(|(o, n)| o == a || n == a) {
                return Err(ConversationError::KeyChanged { account, new });
            }
        }
        Ok(())
    }

    /// On the account's device: re-signs the published device list (same
    /// devices, version + 1, a fresh `issued_at`) when it is older than
    /// [`LIST_RESIGN_AFTER_MS`], so that others do not see it stale.
    /// Returns the new list when it did; nothing on another device or
    /// when the account published none.
    ///
    /// # Errors
    /// Reading or publishing the list.
    pub async fn resign_device_list_if_old(&self) -> Result<Option<DeviceList>, ConversationError> {
        if !self.is_account() {
            return Ok(None);
        }
        let topic = directory_topic(self.account().fingerprint());
        let records = self.inner.read_all(&topic, 0).await?;
        let Some(list) = self.inner.own_newest_list(&records)? else {
            return Ok(None);
        };
        // The broker lost or withholds the list this device published: it
        // is published again.
        let withheld = self
            .inner
            .newest_list(&records, self.account().fingerprint())
            .is_err();
        if !withheld && now_ms().saturating_sub(list.issued_at()) <= LIST_RESIGN_AFTER_MS {
            return Ok(None);
        }
        self.publish_device_list(&[]).await.map(Some)
    }
}

impl Conversation {
    /// [`Device::check_key_changes`] for this group's member accounts and
    /// `extra` (accounts or devices about to be added).
    pub(crate) fn check_key_changes(&self, extra: &[Fingerprint]) -> Result<(), ConversationError> {
        let members = self.members();
        self.device.check_key_changes(
            members
                .iter()
                .flat_map(|m| [&m.account, &m.device])
                .chain(extra),
        )
    }

    /// Refreshes the contacts among this group's member accounts and
    /// `extra` ([`Device::refresh_contacts_among`]: one `dir.` read per
    /// such contact), so that a key change published since is seen before
    /// anything is sent.
    ///
    /// # Errors
    /// As [`Device::refresh_contact`].
    pub async fn refresh_contacts(
        &self,
        extra: &[Fingerprint],
    ) -> Result<Vec<ContactStatus>, ConversationError> {
        let mut accounts: Vec<Fingerprint> = self.members().iter().map(|m| m.account).collect();
        accounts.extend_from_slice(extra);
        accounts.sort_unstable_by_key(|a| *a.as_bytes());
        accounts.dedup();
        self.device.refresh_contacts_among(&accounts).await
    }
}
