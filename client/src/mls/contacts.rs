//! A device's contacts (issue 37, docs/MLS.md §4.5): the accounts its user
//! added, each with a local name and whether the user verified it (safety
//! numbers compared out of band), kept sealed in the state directory
//! (`contacts`). The account key of a contact comes from its signed device
//! list (a contact added by fingerprint gets it there), which also records
//! the list in the device-list memory (trust on first use). Names are this
//! device's labels: no one else sees or vouches for them. "Verified" is per
//! device: it does not travel to one's other devices.
//!
//! A contact whose account published a valid rotation statement
//! (docs/MLS.md §4.6) carries it as [`PendingRotation`] until the user
//! confirms it ([`Device::confirm_rotation`], in `rotation.rs`): until
//! then nothing is sent to either key.
//!
//! The file: `0x02`, u32 count, then per contact the account key (65),
//! the name (u8 length, UTF-8), added_at (u64), verified_at (u64, 0 for
//! none), and a pending rotation (u8 0 for none; 1, then the new key (65),
//! issued_at (u64), seen_at (u64)). A file of the first format (no
//! leading `0x02`, no rotation: it began with the u32 count, so with
//! `0x00`) is still read.

use super::device::{Device, now_ms};
use super::error::ConversationError;
use crate::crypto::state::{open_with, seal_with};
use crate::crypto::{Fingerprint, PublicKey};

/// The state file of the contacts.
pub const CONTACTS_FILE: &str = "contacts";

/// The longest contact name (bytes of UTF-8).
pub const MAX_NAME: usize = 64;

/// The first byte of the contacts file's current format.
const FILE_FORMAT: u8 = 2;

/// A contact's account key changed (a valid rotation statement was seen)
/// and the user has not confirmed it yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingRotation {
    /// The new account key.
    pub new: PublicKey,
    /// When the statement was signed (ms since the Unix epoch; the
    /// rotating side's clock).
    pub issued_at: u64,
    /// When this device first saw it (ms since the Unix epoch).
    pub seen_at: u64,
}

/// One contact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contact {
    /// The account key.
    pub account: PublicKey,
    /// The name this device gave it.
    pub name: String,
    /// When the user marked it verified (ms since the Unix epoch), if so.
    pub verified_at: Option<u64>,
    /// When it was added (ms since the Unix epoch).
    pub added_at: u64,
    /// A key change seen and not confirmed: while there is one, nothing is
    /// sent to this contact's old or new key.
    pub pending: Option<PendingRotation>,
}

impl Contact {
    /// Whether the user verified this contact's safety number.
    pub fn verified(&self) -> bool {
        self.verified_at.is_some()
    }

    /// Whether this contact's key changed and the change is not confirmed.
    pub const fn key_changed(&self) -> bool {
        self.pending.is_some()
    }
}

fn bad(why: &str) -> ConversationError {
    ConversationError::Invalid(format!("{CONTACTS_FILE}: {why}"))
}

fn encode(contacts: &[Contact]) -> Vec<u8> {
    let mut out = vec![FILE_FORMAT];
    out.extend_from_slice(&(contacts.len() as u32).to_be_bytes());
    for c in contacts {
        out.extend_from_slice(&c.account.to_sec1_uncompressed());
        out.push(c.name.len() as u8);
        out.extend_from_slice(c.name.as_bytes());
        out.extend_from_slice(&c.added_at.to_be_bytes());
        out.extend_from_slice(&c.verified_at.unwrap_or(0).to_be_bytes());
        match &c.pending {
            None => out.push(0),
            Some(p) => {
                out.push(1);
                out.extend_from_slice(&p.new.to_sec1_uncompressed());
                out.extend_from_slice(&p.issued_at.to_be_bytes());
                out.extend_from_slice(&p.seen_at.to_be_bytes());
            }
        }
    }
    out
}

fn key(sec1: &[u8]) -> Result<PublicKey, ConversationError> {
    PublicKey::from_sec1_bytes(sec1).map_err(|_| bad("a contact key is not a P-256 point"))
}

fn decode(bytes: &[u8]) -> Result<Vec<Contact>, ConversationError> {
    let mut at = 0usize;
    let mut take = |n: usize| -> Result<&[u8], ConversationError> {
        let s = bytes.get(at..at + n).ok_or_else(|| bad("truncated"))?;
        at += n;
        Ok(s)
    };
    // The first format began with the u32 count (so with 0x00): no
    // format byte and no pending rotations.
    let v2 = match bytes.first() {
        Some(&FILE_FORMAT) => {
            take(1)?;
            true
        }
        Some(0) | None => false,
        Some(_) => return Err(bad("unknown format")),
    };
    let count = u32::from_be_bytes(take(4)?.try_into().expect("4 bytes"));
    let mut out = Vec::new();
    for _ in 0..count {
        let account = key(take(65)?)?;
        let n = usize::from(take(1)?[0]);
        let name = std::str::from_utf8(take(n)?)
            .map_err(|_| bad("a name is not UTF-8"))?
            .to_owned();
        let added_at = u64::from_be_bytes(take(8)?.try_into().expect("8 bytes"));
        let verified = u64::from_be_bytes(take(8)?.try_into().expect("8 bytes"));
        let pending = match if v2 { take(1)?[0] } else { 0 } {
            0 => None,
            1 => Some(PendingRotation {
                new: key(take(65)?)?,
                issued_at: u64::from_be_bytes(take(8)?.try_into().expect("8 bytes")),
                seen_at: u64::from_be_bytes(take(8)?.try_into().expect("8 bytes")),
            }),
            _ => return Err(bad("a pending rotation flag is not 0 or 1")),
        };
        out.push(Contact {
            account,
            name,
            added_at,
            verified_at: (verified != 0).then_some(verified),
            pending,
        });
    }
    if at != bytes.len() {
        return Err(bad("bytes after the last contact"));
    }
    Ok(out)
}

impl Device {
    /// This device's contacts, in the order they were added.
    ///
    /// # Errors
    /// The contacts file cannot be read or does not open.
    pub fn contacts(&self) -> Result<Vec<Contact>, ConversationError> {
        let inner = &self.inner;
        let Some(sealed) = inner
            .dir
            .read(CONTACTS_FILE)
            .map_err(ConversationError::state("read the contacts"))?
        else {
            return Ok(Vec::new());
        };
        decode(&open_with(
            &inner.file_key,
            "mls",
            CONTACTS_FILE.as_bytes(),
            &sealed,
        )?)
    }

    pub(crate) fn save_contacts(&self, contacts: &[Contact]) -> Result<(), ConversationError> {
        let inner = &self.inner;
        let sealed = seal_with(
            &inner.file_key,
            "mls",
            CONTACTS_FILE.as_bytes(),
            &encode(contacts),
        )?;
        inner
            .dir
            .write(CONTACTS_FILE, &sealed)
            .map_err(ConversationError::state("write the contacts"))
    }

    /// Adds the account `account` as a contact named `name` (or renames
    /// it): its key comes from its device list, fetched and checked (and
    /// remembered: trust on first use).
    ///
    /// # Errors
    /// [`ConversationError::NoDeviceList`] (the account published none, so
    /// no key is known), a device-list refusal, a name already used by
    /// another contact or not 1–64 bytes, or this device's own account.
    pub async fn add_contact(
        &self,
        account: &Fingerprint,
        name: &str,
    ) -> Result<Contact, ConversationError> {
        let name = name.trim();
        if name.is_empty() || name.len() > MAX_NAME || name.chars().any(char::is_control) {
            return Err(ConversationError::Invalid(format!(
                "a contact name is 1 to {MAX_NAME} bytes without control characters"
            )));
        }
        if account == self.account().fingerprint() {
            return Err(ConversationError::Invalid(
                "that is this device's own account".into(),
            ));
        }
        let list = self.device_list(account).await?;
        let mut contacts = self.contacts()?;
        if contacts
            .iter()
            .any(|c| c.name == name && c.account.fingerprint() != account)
        {
            return Err(ConversationError::Invalid(format!(
                "another contact is already named {name:?}"
            )));
        }
        let contact = match contacts
            .iter_mut()
            .find(|c| c.account.fingerprint() == account)
        {
            Some(c) => {
                c.name = name.to_owned();
                c.clone()
            }
            None => {
                let c = Contact {
                    account: list.account().clone(),
                    name: name.to_owned(),
                    verified_at: None,
                    added_at: now_ms(),
                    pending: None,
                };
                contacts.push(c.clone());
                c
            }
        };
        self.save_contacts(&contacts)?;
        Ok(contact)
    }

    /// The contact named `query`, or whose account fingerprint (hex) starts
    /// with it (at least 8 digits, and only one may match).
    ///
    /// # Errors
    /// The contacts cannot be read; `query` matches several.
    pub fn contact(&self, query: &str) -> Result<Option<Contact>, ConversationError> {
        let contacts = self.contacts()?;
        if let Some(c) = contacts.iter().find(|c| c.name == query) {
            return Ok(Some(c.clone()));
        }
        let q = query.to_ascii_lowercase();
        if q.len() < 8 || !q.chars().all(|c| c.is_ascii_hexdigit()) {
            return Ok(None);
        }
        let mut hits = contacts
            .iter()
            .filter(|c| c.account.fingerprint().to_hex().starts_with(&q));
        match (hits.next(), hits.next()) {
            (Some(c), None) => Ok(Some(c.clone())),
            (None, _) => Ok(None),
            (Some(_), Some(_)) => Err(ConversationError::Invalid(format!(
                "{query} matches more than one contact: give more digits"
            ))),
        }
    }

    /// Marks the contact of `account` verified (or not).
    ///
    /// # Errors
    /// Not a contact; the contacts cannot be written.
    pub fn set_verified(
        &self,
        account: &Fingerprint,
        verified: bool,
    ) -> Result<Contact, ConversationError> {
        let mut contacts = self.contacts()?;
        let c = contacts
            .iter_mut()
            .find(|c| c.account.fingerprint() == account)
            .ok_or_else(|| {
                ConversationError::Invalid(format!("{} is not a contact", account.to_hex()))
            })?;
        c.verified_at = verified.then(now_ms);
        let out = c.clone();
        self.save_contacts(&contacts)?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crypto::Identity;

    #[test]
    fn contacts_round_trip_and_refuse_damage() {
        let cs = vec![
            Contact {
                account: Identity::generate().unwrap().public_key().clone(),
                name: "Bob".into(),
                verified_at: None,
                added_at: 5,
                pending: Some(PendingRotation {
                    new: Identity::generate().unwrap().public_key().clone(),
                    issued_at: 3,
                    seen_at: 4,
                }),
            },
            Contact {
                account: Identity::generate().unwrap().public_key().clone(),
                name: "Chloé".into(),
                verified_at: Some(9),
                added_at: 7,
                pending: None,
            },
        ];
        let bytes = encode(&cs);
        assert_eq!(decode(&bytes).unwrap(), cs);
        assert!(decode(&bytes[..bytes.len() - 1]).is_err());
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(decode(&longer).is_err());
    }

    #[test]
    fn a_file_of_the_first_format_is_still_read() {
        let account = Identity::generate().unwrap().public_key().clone();
        let mut old = 1u32.to_be_bytes().to_vec();
        old.extend_from_slice(&account.to_sec1_uncompressed());
        old.push(3);
        old.extend_from_slice(b"Bob");
        old.extend_from_slice(&5u64.to_be_bytes());
        old.extend_from_slice(&9u64.to_be_bytes());
        let back = decode(&old).unwrap();
        assert_eq!(
            back,
            vec![Contact {
                account,
                name: "Bob".into(),
                verified_at: Some(9),
                added_at: 5,
                pending: None,
            }]
        );
        assert!(decode(&[7, 0, 0, 0, 0]).is_err(), "an unknown format");
    }
}
