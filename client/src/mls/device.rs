//! One device's MLS side (docs/MLS.md §4, §5): its binding, its
//! KeyPackages (claimed once each from `keypackages.<device fp>`, partition
//! 0; the last-resort one in partition 1), its account's device list in
//! `dir.<account fp>`, Welcomes from `welcome.<device fp>`, and the
//! conversations in its state directory.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use hermit_protocol::codec::Reader;
use hermit_protocol::op::create_topic::TopicSettings;
use hermit_protocol::{Ack, BatchBuilder, Cleanup, Status};
use mls_rs::client_builder::ClientBuilder;
use mls_rs::mls_rs_codec::{MlsDecode as _, MlsEncode as _};
use mls_rs::{ExtensionList, MlsMessage, WireFormat};
use mls_rs_core::key_package::KeyPackageData;

use super::binding::DeviceBinding;
use super::config::{CIPHER_SUITE, KEY_PACKAGE_LIFETIME, MlsConfig, Rules, Suite2Provider};
use super::credential::{DeviceIdentity, signing_identity};
use super::device_list::{DEVICES_KEY, DeviceList, DeviceListError, ListedDevice, directory_topic};
use super::error::ConversationError;
use super::seen_lists::SeenLists;
use super::staged::Staged;
use crate::client::Client;
use crate::crypto::state::{MLS_FILE, PurposeKey, open_with, seal_with};
use crate::crypto::{Fingerprint, Identity, PublicKey};
use crate::error::ClientError;
use crate::local::StateDir;
use crate::outcome::{Claim, ClaimId, Conditional};

/// The state-directory file holding this device's binding.
pub const BINDING_FILE: &str = "mls-binding";
/// The file holding the private keys of unused KeyPackages.
pub const KEY_PACKAGES_FILE: &str = "mls-keypackages";
/// The file holding the next offset of `welcome.<device fp>` to read.
pub const WELCOME_CURSOR_FILE: &str = "mls-welcome-cursor";
/// The state file of the account's device holding the signed device list
/// it published last (sealed like the others).
pub const OWN_LIST_FILE: &str = "mls-own-device-list";

/// How long group topics keep records (docs/MLS.md §6.4).
pub const GROUP_RETENTION: Duration = Duration::from_secs(30 * 24 * 3600);
/// The most a topic read whole (a device list, a last-resort KeyPackage)
/// may hold.
pub const MAX_SMALL_TOPIC: usize = 16 << 20;

/// How long Welcomes wait in a device's `welcome.` topic.
pub const WELCOME_RETENTION: Duration = Duration::from_secs(7 * 24 * 3600);

/// A device's KeyPackage topic: partition 0 is claimed once per record,
/// partition 1 holds the last-resort KeyPackage.
pub fn key_package_topic(device: &Fingerprint) -> String {
    format!("keypackages.{}", device.to_hex())
}

/// A device's Welcome topic.
pub fn welcome_topic(device: &Fingerprint) -> String {
    format!("welcome.{}", device.to_hex())
}

/// Milliseconds since the Unix epoch, now.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// One record in its own batch (so a claim hands out exactly it), with a
/// key (empty for none).
pub(crate) fn one_record(key: &[u8], value: &[u8]) -> Result<Bytes, ConversationError> {
    let mut b = BatchBuilder::new(key);
    b.push(value);
    let batch = b
        .finish(hermit_protocol::record::now_ns())
        .map_err(|e| ConversationError::Client(ClientError::Protocol(e)))?;
    Ok(Bytes::from(batch))
}

/// What a device shares with its conversations.
pub(crate) struct DeviceInner {
    pub identity: Identity,
    /// The key of this device's MLS state files, derived once.
    pub file_key: PurposeKey,
    pub binding: DeviceBinding,
    pub dir: Arc<StateDir>,
    pub transport: Client,
    pub mls: mls_rs::Client<MlsConfig>,
    pub staged: Staged,
    pub ids: DeviceIdentity,
    /// The newest device list accepted per account (rollback and
    /// equivocation checks).
    pub seen_lists: SeenLists,
}

impl DeviceInner {
    /// Writes the KeyPackages' private keys if they changed.
    pub(crate) fn save_key_packages(&self) -> Result<(), ConversationError> {
        if !self.staged.take_key_packages_changed() {
            return Ok(());
        }
        let mut plain = zeroize::Zeroizing::new(Vec::new());
        for (id, data) in self.staged.export_key_packages() {
            let data = data
                .mls_encode_to_vec()
                .map_err(|e| ConversationError::Invalid(format!("KeyPackage encoding: {e}")))?;
            plain.extend_from_slice(&(id.len() as u32).to_be_bytes());
            plain.extend_from_slice(&id);
            plain.extend_from_slice(&(data.len() as u32).to_be_bytes());
            plain.extend_from_slice(&data);
        }
        let sealed = seal_with(&self.file_key, "mls", KEY_PACKAGES_FILE.as_bytes(), &plain)?;
        self.dir
            .write(KEY_PACKAGES_FILE, &sealed)
            .map_err(ConversationError::state("write the KeyPackages"))
    }

    fn load_key_packages(&self) -> Result<(), ConversationError> {
        let Some(sealed) = self
            .dir
            .read(KEY_PACKAGES_FILE)
            .map_err(ConversationError::state("read the KeyPackages"))?
        else {
            return Ok(());
        };
        let plain = open_with(&self.file_key, "mls", KEY_PACKAGES_FILE.as_bytes(), &sealed)?;
        let bad = || ConversationError::Invalid("the KeyPackages file is malformed".into());
        let mut r = Reader::new(&plain);
        let mut all = Vec::new();
        while r.remaining() > 0 {
            let n = r.u32().map_err(|_| bad())? as usize;
            let id = r.bytes(n).map_err(|_| bad())?.to_vec();
            let n = r.u32().map_err(|_| bad())? as usize;
            let mut data = r.bytes(n).map_err(|_| bad())?;
            all.push((
                id,
                KeyPackageData::mls_decode(&mut data).map_err(|_| bad())?,
            ));
        }
        self.staged.import_key_packages(all);
        Ok(())
    }

    /// Creates `topic` unless it exists.
    pub(crate) async fn ensure_topic(
        &self,
        topic: &str,
        partitions: u32,
        cleanup: Cleanup,
        retention: Option<Duration>,
    ) -> Result<(), ConversationError> {
        let settings = TopicSettings {
            partitions,
            cleanup,
            retention_ms: retention.map_or(u64::MAX, |d| d.as_millis() as u64),
            retention_bytes: 0,
        };
        match self.transport.create_topic(topic, settings).await {
            Ok(()) => Ok(()),
            Err(ClientError::Broker {
                status: Status::TopicExists,
                ..
            }) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }

    /// The records of one fetch (at most 1 MiB) of a partition from
    /// `from`; none when the topic does not exist or nothing is there.
    pub(crate) async fn read_from(
        &self,
        topic: &str,
        partition: u32,
        mut from: u64,
    ) -> Result<Vec<crate::records::Record>, ConversationError> {
        loop {
            let resp = match self
                .transport
                .fetch(topic, partition, from, 1 << 20, Duration::ZERO)
                .await
            {
                Ok(r) => r,
                Err(ClientError::OffsetOutOfRange { log_start, .. }) if log_start > from => {
                    from = log_start;
                    continue;
                }
                Err(ClientError::Broker {
                    status: Status::UnknownTopic,
                    ..
                }) => return Ok(Vec::new()),
                Err(e) => return Err(e.into()),
            };
            return resp
                .records_from(from)
                .map(|r| r.map_err(ConversationError::from))
                .collect();
        }
    }

    /// Every record of a small topic's partition (a device list, a
    /// last-resort KeyPackage), from its start; refused over
    /// [`MAX_SMALL_TOPIC`] bytes, so that a topic someone filled cannot
    /// make this device allocate without bound.
    pub(crate) async fn read_all(
        &self,
        topic: &str,
        partition: u32,
    ) -> Result<Vec<crate::records::Record>, ConversationError> {
        let mut out: Vec<crate::records::Record> = Vec::new();
        let mut bytes = 0usize;
        loop {
            let from = out.last().map_or(0, |r| r.offset + 1);
            let chunk = self.read_from(topic, partition, from).await?;
            if chunk.is_empty() {
                return Ok(out);
            }
            bytes += chunk
                .iter()
                .map(|r| r.value.len() + r.key.len())
                .sum::<usize>();
            if bytes > MAX_SMALL_TOPIC {
                return Err(ConversationError::Invalid(format!(
                    "{topic} holds more than {MAX_SMALL_TOPIC} bytes: not a device list or KeyPackage topic this client reads whole"
                )));
            }
            out.extend(chunk);
        }
    }
}

/// A device: its identity and binding, its state directory and a
/// connection as its own principal.
#[derive(Clone)]
pub struct Device {
    pub(crate) inner: Arc<DeviceInner>,
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Device")
            .field("device", self.inner.identity.fingerprint())
            .field("account", self.inner.binding.account().fingerprint())
            .finish_non_exhaustive()
    }
}

impl Device {
    /// Stores the binding that makes `identity` a device of the binding's
    /// account (issued by `hermit devices add` on the account's device).
    ///
    /// # Errors
    /// The binding does not bind this key; the directory cannot be written.
    pub fn store_binding(
        dir: &StateDir,
        identity: &Identity,
        binding: &DeviceBinding,
    ) -> Result<(), ConversationError> {
        binding
            .verify(&identity.public_key().to_sec1_uncompressed())
            .map_err(|e| ConversationError::Invalid(format!("{e}")))?;
        dir.write(BINDING_FILE, &binding.to_bytes())
            .map_err(ConversationError::state("write the binding"))
    }

    /// Opens the device whose key is `identity`, with its state directory
    /// and a client connected as it. The device's binding comes from the
    /// directory; an account's own first device (no binding stored) binds
    /// itself.
    ///
    /// # Errors
    /// [`ConversationError`].
    pub fn open(
        identity: Identity,
        dir: Arc<StateDir>,
        transport: Client,
    ) -> Result<Device, ConversationError> {
        let sec1 = identity.public_key().to_sec1_uncompressed();
        let binding = match dir
            .read(BINDING_FILE)
            .map_err(ConversationError::state("read the binding"))?
        {
            Some(bytes) => {
                let b = DeviceBinding::from_bytes(&bytes)
                    .map_err(|e| ConversationError::Invalid(format!("{BINDING_FILE}: {e}")))?;
                b.verify(&sec1)
                    .map_err(|e| ConversationError::Invalid(format!("{BINDING_FILE}: {e}")))?;
                b
            }
            None => {
                // Every list the account signs names its own device
                // (`publish_device_list` always keeps it; `drop_device`
                // refuses to drop it), so the first list naming it is
                // version 1: the binding needs no publication first.
                let b = DeviceBinding::issue(&identity, &sec1, 1, now_ms());
                dir.write(BINDING_FILE, &b.to_bytes())
                    .map_err(ConversationError::state("write the binding"))?;
                b
            }
        };
        let staged = Staged::default();
        let ids = DeviceIdentity::default();
        let (signer_identity, secret) = signing_identity(&identity, &binding);
        let mls = ClientBuilder::new()
            .crypto_provider(Suite2Provider::default())
            .identity_provider(ids.clone())
            .mls_rules(Rules)
            .group_state_storage(staged.clone())
            .key_package_repo(staged.clone())
            .key_package_lifetime(KEY_PACKAGE_LIFETIME)
            .signing_identity(signer_identity, secret, CIPHER_SUITE)
            .build();
        let file_key = PurposeKey::new(&identity, MLS_FILE);
        let seen_lists = SeenLists::load(&dir, &file_key)?;
        let inner = DeviceInner {
            file_key,
            seen_lists,
            identity,
            binding,
            dir,
            transport,
            mls,
            staged,
            ids,
        };
        inner.load_key_packages()?;
        Ok(Device {
            inner: Arc::new(inner),
        })
    }

    /// This device's fingerprint (its principal, its topics' name).
    pub fn fingerprint(&self) -> &Fingerprint {
        self.inner.identity.fingerprint()
    }

    /// The account this device belongs to.
    pub fn account(&self) -> &PublicKey {
        self.inner.binding.account()
    }

    /// Whether this device holds the account key.
    pub fn is_account(&self) -> bool {
        self.inner.identity.public_key() == self.inner.binding.account()
    }

    /// How many KeyPackage private keys this device holds: one per
    /// published KeyPackage no Welcome has used yet (claimed or not), the
    /// last-resort one included (`hermit keypackages status`).
    pub fn key_packages_held(&self) -> usize {
        self.inner.staged.key_package_count()
    }

    /// Publishes `count` KeyPackages to this device's topic (their private
    /// keys saved first) and a fresh last-resort one; makes the device's
    /// `welcome.` topic. Returns how many private keys are now held.
    ///
    /// # Errors
    /// [`ConversationError`].
    pub async fn publish_key_packages(&self, count: usize) -> Result<usize, ConversationError> {
        // The account's list is re-signed when old (docs/MLS.md §4.2).
        self.resign_device_list_if_old().await?;
        let inner = &self.inner;
        let fp = *self.fingerprint();
        inner
            .ensure_topic(
                &welcome_topic(&fp),
                1,
                Cleanup::Delete,
                Some(WELCOME_RETENTION),
            )
            .await?;
        let topic = key_package_topic(&fp);
        inner
            .ensure_topic(&topic, 2, Cleanup::Delete, Some(KEY_PACKAGE_LIFETIME))
            .await?;
        let mut packages = Vec::with_capacity(count + 1);
        for _ in 0..=count {
            let kp = inner
                .mls
                .generate_key_package_message(ExtensionList::new(), ExtensionList::new(), None)
                .map_err(ConversationError::mls("generate a KeyPackage"))?;
            packages.push(
                kp.to_bytes()
                    .map_err(ConversationError::mls("encode a KeyPackage"))?,
            );
        }
        // The private keys reach the disk before any KeyPackage is public.
        inner.save_key_packages()?;
        let last_resort = packages.pop().expect("count + 1 made");
        for kp in &packages {
            inner
                .transport
                .produce(&topic, 0, Ack::Durable, one_record(&[], kp)?)
                .await?;
        }
        inner
            .transport
            .produce(&topic, 1, Ack::Durable, one_record(&[], &last_resort)?)
            .await?;
        Ok(inner.staged.key_package_count())
    }

    /// Publishes the account's device list with `devices` added to the
    /// newest published one (this device is always listed). Only the
    /// account's own device may: it signs the list.
    ///
    /// # Errors
    /// [`ConversationError::Invalid`] on a device without the account key.
    pub async fn publish_device_list(
        &self,
        devices: &[PublicKey],
    ) -> Result<DeviceList, ConversationError> {
        self.change_device_list(|listed, now| {
            for key in devices {
                let sec1 = key.to_sec1_uncompressed();
                if !listed.iter().any(|d| d.key == sec1) {
                    listed.push(ListedDevice {
                        key: sec1,
                        added_at: now,
                    });
                }
            }
        })
        .await
    }

    /// On the account's device: binds a new device's key to the account.
    /// Publishes the device list naming it first (conditional produce: after
    /// a lost race the list gets a higher version), then signs the binding
    /// with the version actually published (docs/MLS.md §4.1). Give the
    /// binding to the new device ([`Device::store_binding`]).
    ///
    /// # Errors
    /// As [`Device::publish_device_list`].
    pub async fn bind(&self, device: &PublicKey) -> Result<DeviceBinding, ConversationError> {
        let list = self
            .publish_device_list(std::slice::from_ref(device))
            .await?;
        Ok(DeviceBinding::issue(
            &self.inner.identity,
            &device.to_sec1_uncompressed(),
            list.version(),
            now_ms(),
        ))
    }

    /// On the account's device: drops `device` from the account's device
    /// list (publishes a list without it), then removes it from every
    /// conversation of this device where it has a leaf (docs/MLS.md §4.4).
    /// Returns the list published and the topics it was removed from.
    ///
    /// # Errors
    /// [`ConversationError::Invalid`] for the account's own device (it
    /// signs the list: an account-key rotation retires it); as
    /// [`Device::publish_device_list`] and [`Conversation::catch_up`].
    ///
    /// [`Conversation::catch_up`]: super::Conversation::catch_up
    pub async fn drop_device(
        &self,
        device: &Fingerprint,
    ) -> Result<(DeviceList, Vec<String>), ConversationError> {
        if device == self.fingerprint() {
            return Err(ConversationError::Invalid(
                "the account's own device cannot be dropped from its list".into(),
            ));
        }
        let list = self
            .change_device_list(|listed, _| {
                listed.retain(|d| {
                    PublicKey::from_sec1_bytes(&d.key).map_or(true, |k| k.fingerprint() != device)
                });
            })
            .await?;
        let mut removed = Vec::new();
        for topic in self.conversations()? {
            let mut c = self.conversation(&topic)?;
            if c.is_removed() || !c.members().iter().any(|m| m.device == *device) {
                continue;
            }
            c.catch_up().await?;
            if !c.members().iter().any(|m| m.device == *device) {
                removed.push(topic);
            }
        }
        Ok((list, removed))
    }

    /// Publishes the account's device list as `change` makes it from the
    /// newest published one (this device always stays listed), by
    /// conditional produce: re-read and re-applied when another list landed
    /// first.
    async fn change_device_list(
        &self,
        change: impl Fn(&mut Vec<ListedDevice>, u64),
    ) -> Result<DeviceList, ConversationError> {
        if !self.is_account() {
            return Err(ConversationError::Invalid(
                "only the account's own device signs its device list".into(),
            ));
        }
        let inner = &self.inner;
        let account = inner.identity.fingerprint();
        let topic = directory_topic(account);
        inner
            .ensure_topic(&topic, 1, Cleanup::Compact, None)
            .await?;
        for _ in 0..64 {
            let records = inner.read_all(&topic, 0).await?;
            let end = records.last().map_or(0, |r| r.offset + 1);
            let current = inner.own_newest_list(&records)?;
            let mut listed: Vec<ListedDevice> = current
                .as_ref()
                .map(|l| l.devices().to_vec())
                .unwrap_or_default();
            let now = now_ms();
            let own = inner.identity.public_key().to_sec1_uncompressed();
            if !listed.iter().any(|d| d.key == own) {
                listed.insert(
                    0,
                    ListedDevice {
                        key: own,
                        added_at: now,
                    },
                );
            }
            change(&mut listed, now);
            let version = current.as_ref().map_or(1, |l| l.version() + 1);
            let list = DeviceList::new(inner.identity.public_key(), version, now, listed)?;
            let signed = list.sign(&inner.identity);
            let batch = one_record(DEVICES_KEY, &signed)?;
            let expected = inner.transport.end_after(end, 1);
            match inner
                .transport
                .conditional_produce(&topic, 0, expected, Ack::Durable, &batch)
                .await?
            {
                Conditional::Appended { .. } => {
                    // The account's own list is in its memory too: its
                    // views (§4.7) then say what it published.
                    inner
                        .seen_lists
                        .accept(&list, &signed, &inner.dir, &inner.file_key)?;
                    let sealed =
                        seal_with(&inner.file_key, "mls", OWN_LIST_FILE.as_bytes(), &signed)?;
                    inner
                        .dir
                        .write(OWN_LIST_FILE, &sealed)
                        .map_err(ConversationError::state("write the own device list"))?;
                    inner.ids.hold_list(&list);
                    return Ok(list);
                }
                // Another list was written meanwhile: read it, re-apply.
                Conditional::EndMoved { .. } => {}
            }
        }
        Err(ConversationError::CommitStalled { attempts: 64 })
    }

    /// The newest device list of `account`, checked.
    ///
    /// # Errors
    /// [`ConversationError::NoDeviceList`] when it has none.
    pub async fn device_list(
        &self,
        account: &Fingerprint,
    ) -> Result<DeviceList, ConversationError> {
        let records = self.inner.read_all(&directory_topic(account), 0).await?;
        self.inner
            .newest_list(&records, account)?
            .ok_or(ConversationError::NoDeviceList { account: *account })
    }

    /// Makes sure this device holds `account`'s device list at `version` or
    /// newer for the leaf check (docs/MLS.md §4.1): fetched (and checked
    /// against the device-list memory) unless already held.
    ///
    /// # Errors
    /// [`ConversationError::DeviceListTooOld`] when the broker serves an
    /// older one; as [`Device::device_list`].
    pub(crate) async fn ensure_list(
        &self,
        account: &Fingerprint,
        device: &Fingerprint,
        version: u64,
    ) -> Result<Arc<DeviceList>, ConversationError> {
        if let Some(held) = self.inner.ids.held_list(account)
            && held.version() >= version
        {
            return Ok(held);
        }
        let list = self.device_list(account).await?;
        if list.version() < version {
            return Err(ConversationError::DeviceListTooOld {
                account: *account,
                device: *device,
                found: list.version(),
                needed: version,
            });
        }
        Ok(self
            .inner
            .ids
            .held_list(account)
            .unwrap_or_else(|| Arc::new(list)))
    }

    /// The newest device-list version this device accepted for `account`
    /// (trust on first use: the first list seen is accepted).
    pub fn device_list_version_seen(&self, account: &Fingerprint) -> Option<u64> {
        self.inner.seen_lists.version(account)
    }

    /// Claims one KeyPackage of `device` (listed by `list`): the next of its
    /// claim sequence, else its last-resort one. Checked: a KeyPackage
    /// message, for suite 2, whose leaf is that device.
    pub(crate) async fn claim_key_package(
        &self,
        device: &PublicKey,
    ) -> Result<MlsMessage, ConversationError> {
        let fp = *device.fingerprint();
        let topic = key_package_topic(&fp);
        let id = ClaimId::random()?;
        let claimed = match self.inner.transport.claim(&topic, 0, id).await {
            Ok(Claim::Claimed(batch)) => batch.records().next().transpose()?.map(|r| r.value),
            Ok(Claim::NothingLeft)
            | Err(ClientError::Broker {
                status: Status::UnknownTopic,
                ..
            }) => None,
            Err(e) => return Err(e.into()),
        };
        let bytes = match claimed {
            Some(b) => b,
            None => self
                .inner
                .read_all(&topic, 1)
                .await?
                .pop()
                .map(|r| r.value)
                .ok_or(ConversationError::NoKeyPackages { device: fp })?,
        };
        let bad = |reason: String| ConversationError::BadKeyPackage { device: fp, reason };
        let message = MlsMessage::from_bytes(&bytes).map_err(|e| bad(e.to_string()))?;
        if message.wire_format() != WireFormat::KeyPackage {
            return Err(bad("not a KeyPackage message".into()));
        }
        let kp = message
            .as_key_package()
            .ok_or_else(|| bad("not a KeyPackage".into()))?;
        if kp.cipher_suite != CIPHER_SUITE {
            return Err(bad(format!("cipher suite {:?}", kp.cipher_suite)));
        }
        let leaf_key: &[u8] = &kp.signing_identity().signature_key;
        if leaf_key != device.to_sec1_uncompressed().as_slice() {
            return Err(bad("its leaf is another device's key".into()));
        }
        Ok(message)
    }

    /// The next offset of this device's `welcome.` topic to read.
    pub(crate) fn welcome_cursor(&self) -> Result<u64, ConversationError> {
        Ok(self
            .inner
            .dir
            .read(WELCOME_CURSOR_FILE)
            .map_err(ConversationError::state("read the welcome cursor"))?
            .and_then(|b| <[u8; 8]>::try_from(b.as_slice()).ok())
            .map_or(0, u64::from_be_bytes))
    }

    pub(crate) fn set_welcome_cursor(&self, next: u64) -> Result<(), ConversationError> {
        self.inner
            .dir
            .write(WELCOME_CURSOR_FILE, &next.to_be_bytes())
            .map_err(ConversationError::state("write the welcome cursor"))
    }
}

impl DeviceInner {
    /// The newest device list among a `dir.` topic's records, checked:
    /// signed by the account the topic names, and neither older than nor
    /// different at the version this device accepted for it (a newer one
    /// is remembered).
    pub(crate) fn newest_list(
        &self,
        records: &[crate::records::Record],
        account: &Fingerprint,
    ) -> Result<Option<DeviceList>, ConversationError> {
        let Some(r) = records.iter().rev().find(|r| r.key.as_ref() == DEVICES_KEY) else {
            return match self.seen_lists.version(account) {
                // A list once there is gone: as much a rollback as an older one.
                Some(seen) => Err(DeviceListError::RolledBack {
                    account: *account,
                    found: 0,
                    seen,
                }
                .into()),
                None => Ok(None),
            };
        };
        let list = DeviceList::verify(&r.value, account, self.seen_lists.version(account))?;
        self.seen_lists
            .accept(&list, &r.value, &self.dir, &self.file_key)?;
        self.ids.hold_list(&list);
        Ok(Some(list))
    }

    /// On the account's device: its own newest list among `records`, as
    /// [`DeviceInner::newest_list`] checks it — except that when the broker
    /// lost or withholds it (none, or an older one: a replaced broker, a
    /// rollback), the device goes on from the list it published last
    /// ([`OWN_LIST_FILE`]): it signed that one, so the next version follows
    /// it and keeps its devices. Another list with the accepted version
    /// (equivocation) is still refused.
    pub(crate) fn own_newest_list(
        &self,
        records: &[crate::records::Record],
    ) -> Result<Option<DeviceList>, ConversationError> {
        let account = self.identity.fingerprint();
        let refused = match self.newest_list(records, account) {
            Err(ConversationError::DeviceList(e @ DeviceListError::RolledBack { .. })) => e,
            other => return other,
        };
        let Some(sealed) = self
            .dir
            .read(OWN_LIST_FILE)
            .map_err(ConversationError::state("read the own device list"))?
        else {
            return Err(refused.into());
        };
        let bytes = open_with(&self.file_key, "mls", OWN_LIST_FILE.as_bytes(), &sealed)?;
        let own = DeviceList::verify(&bytes, account, None)?;
        if self.seen_lists.version(account) != Some(own.version()) {
            return Err(refused.into());
        }
        self.ids.hold_list(&own);
        Ok(Some(own))
    }
}
