//! A conversation: one MLS group on one single-partition topic, applied
//! strictly in offset order (docs/MLS.md §3). Every processed fetch is one
//! atomic write of the group's file — MLS state, the next offset and the
//! delivered events together.

use std::collections::HashMap;
use std::time::Duration;

use mls_rs::group::{CommitEffect, ReceivedMessage};
use mls_rs::mls_rs_codec::MlsDecode as _;
use mls_rs::time::MlsTime;
use mls_rs::{Group, MlsMessage};
use sha2::{Digest as _, Sha256};

use super::config::MlsConfig;
use super::content::{Content, ContentKind, View};
use super::credential::{CredentialError, MemberId};
use super::device::{Device, GROUP_RETENTION, now_ms, one_record, welcome_topic};
use super::error::ConversationError;
use super::event::Event;
use super::group_file::{FILE_PREFIX, GroupFile, Outgoing, file_name};
use super::header::{ContentType, clear_header};
use super::process;
use crate::crypto::Fingerprint;
use crate::error::ClientError;
use crate::local::hex;
use hermit_protocol::{Ack, Cleanup};

/// How many unacknowledged events stop further processing (the application
/// must take and acknowledge them first).
pub const MAX_PENDING_EVENTS: usize = 1024;

/// How much one fetch asks for.
const FETCH_BYTES: u32 = 1 << 20;

/// A device list the leaf check needs: account, the device whose leaf
/// needs it, the binding's version.
type NeededList = (Fingerprint, Fingerprint, u64);

/// How many device lists one record (or Welcome) may make this device
/// fetch before it is refused (reported: `RecordRefused`, `WelcomeRefused`).
/// Each fetch is followed by processing the record again (mls-rs's leaf
/// hook cannot fetch), so the cost grows with the square of the accounts
/// new to this device in one record; 256 bounds it.
pub(crate) const MAX_LIST_FETCHES: usize = 256;

/// The group topic of a group id.
pub fn group_topic(group_id: &[u8]) -> String {
    format!("mls.{}", hex(group_id))
}

/// The `hermit_delivery` extension's body: the topic and the first offset
/// a joiner reads (docs/MLS.md §4.3).
pub(crate) fn delivery_extension(topic: &str, start: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(2 + topic.len() + 8);
    out.extend_from_slice(&(topic.len() as u16).to_be_bytes());
    out.extend_from_slice(topic.as_bytes());
    out.extend_from_slice(&start.to_be_bytes());
    out
}

pub(crate) fn parse_delivery(body: &[u8]) -> Option<(String, u64)> {
    let n = usize::from(u16::from_be_bytes(body.get(..2)?.try_into().ok()?));
    let topic = std::str::from_utf8(body.get(2..2 + n)?).ok()?.to_owned();
    let start = u64::from_be_bytes(body.get(2 + n..2 + n + 8)?.try_into().ok()?);
    (body.len() == 2 + n + 8).then_some((topic, start))
}

/// Whether `list` names the device whose fingerprint is `device`.
pub(crate) fn list_names(list: &super::device_list::DeviceList, device: &Fingerprint) -> bool {
    list.devices().iter().any(|d| {
        crate::crypto::PublicKey::from_sec1_bytes(&d.key).is_ok_and(|k| k.fingerprint() == device)
    })
}

/// One conversation of a device.
pub struct Conversation {
    pub(crate) device: Device,
    pub(crate) group: Group<MlsConfig>,
    pub(crate) file: GroupFile,
    /// Leaf index → member, for the current epoch.
    pub(crate) roster: HashMap<u32, MemberId>,
    /// The views message's state (docs/MLS.md §4.7; [`super::views`]).
    pub(crate) views: ViewsState,
}

/// A claim to check against the broker: a member holds a newer list of
/// `account` than this device does (or one it does not hold).
#[derive(Debug, Clone)]
pub(crate) struct Check {
    pub(crate) offset: u64,
    pub(crate) member: MemberId,
    pub(crate) view: View,
}

/// What a conversation keeps (in memory) for its views.
#[derive(Debug, Default)]
pub(crate) struct ViewsState {
    /// The views last sent, or held when the conversation was opened.
    pub(crate) baseline: Vec<View>,
    /// The epoch of the last views sent by this object.
    pub(crate) sent_epoch: Option<u64>,
    /// A membership change, or a differing views message, asks for ours.
    pub(crate) due: bool,
    /// Claims to fetch lists for (after the records are saved).
    pub(crate) checks: Vec<Check>,
}

impl std::fmt::Debug for Conversation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Conversation")
            .field("topic", &self.file.topic)
            .field("epoch", &self.group.current_epoch())
            .field("next", &self.file.next)
            .finish_non_exhaustive()
    }
}

impl Device {
    /// Makes a new conversation with only this device in it, on a fresh
    /// topic `mls.<32 random bytes, hex>`.
    ///
    /// # Errors
    /// [`ConversationError`].
    pub async fn create_conversation(&self) -> Result<Conversation, ConversationError> {
        let mut group_id = [0u8; 32];
        crate::crypto::rng::seeded()
            .and_then(|mut r| r.fill_bytes(&mut group_id))
            .map_err(|_| ConversationError::Invalid("the OS random source failed".into()))?;
        let topic = group_topic(&group_id);
        // Our own leaf passes the device-list check too (docs/MLS.md §4.1);
        // an account's own device that never published its list lists
        // itself now (as `hermit keypackages publish` does).
        let (account, me) = (*self.account().fingerprint(), *self.fingerprint());
        let version = self.inner.binding.list_version();
        match self.ensure_list(&account, &me, version).await {
            Err(ConversationError::NoDeviceList { .. }) if self.is_account() => {
                self.publish_device_list(&[]).await?;
            }
            other => {
                other?;
            }
        }
        self.inner
            .ensure_topic(&topic, 1, Cleanup::Delete, Some(GROUP_RETENTION))
            .await?;
        let group = self
            .inner
            .mls
            .group_builder()
            .map_err(ConversationError::mls("start a group"))?
            .with_group_id(group_id.to_vec())
            .build()
            .map_err(ConversationError::mls("create the group"))?;
        let file = GroupFile {
            group_id: group_id.to_vec(),
            topic,
            next: 0,
            image: Default::default(),
            outbox: Vec::new(),
            recent: Default::default(),
            delivered: Vec::new(),
            removed: false,
            first_epoch: 0,
        };
        let mut c = Conversation::from_parts(self.clone(), group, file)?;
        c.save()?;
        Ok(c)
    }

    /// Opens a conversation of this device by its topic.
    ///
    /// # Errors
    /// [`ConversationError::UnknownConversation`] when this device has none
    /// on `topic`.
    pub fn conversation(&self, topic: &str) -> Result<Conversation, ConversationError> {
        let unknown = || ConversationError::UnknownConversation {
            topic: topic.to_owned(),
        };
        let hex_id = topic.strip_prefix("mls.").ok_or_else(unknown)?;
        let name = format!("{FILE_PREFIX}{hex_id}");
        let sealed = self
            .inner
            .dir
            .read(&name)
            .map_err(ConversationError::state("read a group file"))?
            .ok_or_else(unknown)?;
        let file = GroupFile::open_with(&self.inner.file_key, &name, &sealed)?;
        self.inner
            .staged
            .import_group(&file.group_id, file.image.clone());
        let group = self
            .inner
            .mls
            .load_group(&file.group_id)
            .map_err(ConversationError::mls("load the group"))?;
        Conversation::from_parts(self.clone(), group, file)
    }

    /// The topics of every conversation this device has.
    ///
    /// # Errors
    /// The state directory cannot be read.
    pub fn conversations(&self) -> Result<Vec<String>, ConversationError> {
        Ok(self
            .inner
            .dir
            .names_with_prefix(FILE_PREFIX)
            .map_err(ConversationError::state("list the group files"))?
            .into_iter()
            .map(|n| format!("mls.{}", &n[FILE_PREFIX.len()..]))
            .collect())
    }
}

impl Conversation {
    pub(crate) fn from_parts(
        device: Device,
        group: Group<MlsConfig>,
        file: GroupFile,
    ) -> Result<Conversation, ConversationError> {
        let mut c = Conversation {
            device,
            group,
            file,
            roster: HashMap::new(),
            views: Default::default(),
        };
        c.refresh_roster()?;
        c.start_views();
        Ok(c)
    }

    pub(crate) fn refresh_roster(&mut self) -> Result<(), ConversationError> {
        let ids = &self.device.inner.ids;
        self.roster = self
            .group
            .roster()
            .members_iter()
            .map(|m| {
                ids.member(&m.signing_identity)
                    .map(|id| (m.index, id))
                    .map_err(|e| ConversationError::Invalid(format!("a member's leaf: {e}")))
            })
            .collect::<Result<_, _>>()?;
        Ok(())
    }

    /// The group topic.
    pub fn topic(&self) -> &str {
        &self.file.topic
    }

    /// The current epoch.
    pub fn epoch(&self) -> u64 {
        self.group.current_epoch()
    }

    /// The next offset this device will process.
    pub fn next_offset(&self) -> u64 {
        self.file.next
    }

    /// The current epoch's authenticator (equal for every member that is
    /// in the same group at the same epoch).
    ///
    /// # Errors
    /// [`ConversationError::Mls`].
    pub fn epoch_authenticator(&self) -> Result<Vec<u8>, ConversationError> {
        Ok(self
            .group
            .epoch_authenticator()
            .map_err(ConversationError::mls("epoch authenticator"))?
            .as_bytes()
            .to_vec())
    }

    /// Every device in the group, with its account, by leaf index.
    pub fn members(&self) -> Vec<MemberId> {
        let mut m: Vec<_> = self.roster.iter().collect();
        m.sort_by_key(|(i, _)| **i);
        m.into_iter().map(|(_, id)| *id).collect()
    }

    /// The members (those `which` selects) whose device the newest held
    /// list of their account does not name, with that list's version.
    pub(crate) fn unlisted_members(
        &self,
        mut which: impl FnMut(&MemberId) -> bool,
    ) -> Vec<(MemberId, u64)> {
        let ids = &self.device.inner.ids;
        self.members()
            .into_iter()
            .filter(|m| which(m))
            .filter_map(|m| {
                let list = ids.held_list(&m.account)?;
                (!list_names(&list, &m.device)).then_some((m, list.version()))
            })
            .collect()
    }

    /// This device's own member id.
    pub fn me(&self) -> MemberId {
        MemberId {
            account: *self.device.account().fingerprint(),
            device: *self.device.fingerprint(),
        }
    }

    /// Whether this device was removed from the group.
    pub fn is_removed(&self) -> bool {
        self.file.removed
    }

    /// Writes the group's file: the MLS state as it is now, the next offset,
    /// the outbox, recent hashes and events — one atomic write.
    pub(crate) fn save(&mut self) -> Result<(), ConversationError> {
        self.group
            .write_to_storage()
            .map_err(ConversationError::mls("snapshot the group"))?;
        self.file.image = self
            .device
            .inner
            .staged
            .export_group(&self.file.group_id)
            .unwrap_or_default();
        let sealed = self.file.seal_with(&self.device.inner.file_key)?;
        self.device
            .inner
            .dir
            .write(&file_name(&self.file.group_id), &sealed)
            .map_err(ConversationError::state("write the group file"))
    }

    /// Sends a text message: sealed once, saved in the outbox with the
    /// advanced MLS state (a crash never reuses a key), then produced;
    /// returns its offset.
    ///
    /// # Errors
    /// [`ConversationError`]; [`ConversationError::Removed`] after removal.
    pub async fn send_text(&mut self, text: &str) -> Result<u64, ConversationError> {
        self.send_texts(&[text]).await
    }

    /// Sends several text messages at once: each sealed on its own (its
    /// own MLS generation), all saved in one state write and produced as one
    /// batch — one fsync on each side for all of them. Returns the first
    /// one's offset (the others follow it in order).
    ///
    /// # Errors
    /// As [`Conversation::send_text`]; nothing is sent for an empty slice.
    pub async fn send_texts(&mut self, texts: &[&str]) -> Result<u64, ConversationError> {
        self.check_usable()?;
        // Nothing to a contact whose key change is not confirmed (§4.6).
        self.check_key_changes(&[])?;
        if texts.is_empty() {
            return Err(ConversationError::Invalid("nothing to send".into()));
        }
        let now = now_ms();
        let mut sealed = Vec::with_capacity(texts.len());
        for text in texts {
            let content = Content::text(text, now).encode()?;
            let message = self
                .group
                .encrypt_application_message(&content, Vec::new())
                .map_err(ConversationError::mls("encrypt a message"))?;
            let bytes = message
                .to_bytes()
                .map_err(ConversationError::mls("encode a message"))?;
            self.file.remember(Sha256::digest(&bytes).into());
            self.file.outbox.push(Outgoing::Message {
                bytes: bytes.clone(),
            });
            sealed.push(bytes);
        }
        self.save()?;
        let mut batch = hermit_protocol::BatchBuilder::new(&[]);
        for bytes in &sealed {
            batch.push(bytes);
        }
        let batch = batch
            .finish(hermit_protocol::record::now_ns())
            .map_err(|e| ConversationError::Client(ClientError::Protocol(e)))?;
        let offset = self
            .device
            .inner
            .transport
            .produce(&self.file.topic, 0, Ack::Durable, batch.into())
            .await?;
        // Durable in the log: out of the outbox, persisted with the next
        // write (after a crash before it, the resend is a duplicate readers
        // skip).
        self.file.outbox.retain(
            |o| !matches!(o, Outgoing::Message { bytes } if sealed.iter().any(|s| s == bytes)),
        );
        Ok(offset)
    }

    pub(crate) fn check_usable(&self) -> Result<(), ConversationError> {
        if self.file.removed {
            return Err(ConversationError::Removed {
                topic: self.file.topic.clone(),
            });
        }
        Ok(())
    }

    /// The events not yet acknowledged; when there are none, first
    /// processes what the topic has from the next offset, waiting up to
    /// `max_wait` for a record. Take them, then [`Conversation::ack`].
    ///
    /// # Errors
    /// [`ConversationError`].
    pub async fn receive(&mut self, max_wait: Duration) -> Result<Vec<Event>, ConversationError> {
        if self.file.delivered.is_empty() && !self.file.removed {
            self.fetch_and_process(max_wait, true).await?;
        }
        Ok(self.file.delivered.clone())
    }

    /// Acknowledges every event [`Conversation::receive`] returned: they are
    /// dropped from the state (one write).
    ///
    /// # Errors
    /// [`ConversationError`].
    pub fn ack(&mut self) -> Result<(), ConversationError> {
        if self.file.delivered.is_empty() {
            return Ok(());
        }
        self.file.delivered.clear();
        self.save()
    }

    /// Processes the topic to its end now (events accumulate for
    /// [`Conversation::receive`]); a device must have read everything
    /// before it may commit.
    ///
    /// # Errors
    /// [`ConversationError`].
    /// Then, on a device of an account with a member device its account's
    /// newest list no longer names (dropped), commits its Remove (docs/MLS.md
    /// §4.4).
    pub async fn catch_up(&mut self) -> Result<(), ConversationError> {
        self.catch_up_records().await?;
        self.remove_dropped_devices().await
    }

    /// Processes the topic to its end.
    pub(crate) async fn catch_up_records(&mut self) -> Result<(), ConversationError> {
        while !self.fetch_and_process(Duration::ZERO, false).await? {}
        Ok(())
    }

    /// Processes what the topic holds from the next offset (one fetch);
    /// returns whether there was nothing to process (caught up, removed, or
    /// — with `cap` — too many events waiting for the application).
    pub(crate) async fn fetch_and_process(
        &mut self,
        max_wait: Duration,
        cap: bool,
    ) -> Result<bool, ConversationError> {
        if self.file.removed || (cap && self.file.delivered.len() >= MAX_PENDING_EVENTS) {
            return Ok(true);
        }
        let resp = match self
            .device
            .inner
            .transport
            .fetch(&self.file.topic, 0, self.file.next, FETCH_BYTES, max_wait)
            .await
        {
            Ok(r) => r,
            Err(ClientError::OffsetOutOfRange {
                log_start,
                high_watermark,
                ..
            }) if log_start > self.file.next => {
                let next = self.file.next;
                self.file
                    .delivered
                    .push(Event::CatchUpImpossible { next, log_start });
                self.file.removed = true;
                self.save()?;
                let _ = high_watermark;
                return Ok(true);
            }
            Err(e) => return Err(e.into()),
        };
        let mut processed = 0usize;
        let first_new_event = self.file.delivered.len();
        for record in resp.records_from(self.file.next) {
            let record = record?;
            if self.file.removed || (cap && self.file.delivered.len() >= MAX_PENDING_EVENTS) {
                break;
            }
            self.process_with_lists(record.offset, record.timestamp_ns, &record.value)
                .await?;
            self.file.next = record.offset + 1;
            processed += 1;
        }
        self.confirm_device_removals(first_new_event).await;
        // Our views, when due, are sealed into this same state write
        // (after the claims to check, when there are some).
        let views = if self.views_checks_pending() {
            None
        } else {
            self.seal_views_if_due()?
        };
        if processed > 0 || views.is_some() {
            self.save()?;
            self.flush_welcomes().await?;
        }
        self.send_views(views).await?;
        Ok(processed == 0)
    }

    /// Applies one record, fetching the device lists its new leaves need
    /// first (docs/MLS.md §4.1): processing the leaf check stopped for want
    /// of a list left the group as it was, and is tried again once the list
    /// is held; a list that cannot be had refuses the record (a transport
    /// error is returned instead: it refuses nothing).
    async fn process_with_lists(
        &mut self,
        offset: u64,
        timestamp_ns: u64,
        bytes: &[u8],
    ) -> Result<(), ConversationError> {
        for _ in 0..MAX_LIST_FETCHES {
            let Some((account, device, version)) =
                self.process_record(offset, timestamp_ns, bytes)?
            else {
                return Ok(());
            };
            if let Err(e) = self.device.ensure_list(&account, &device, version).await {
                if matches!(e, ConversationError::Client(_)) {
                    // The broker could not be asked: nothing is refused,
                    // the record is tried again (the group is as it was).
                    return Err(e);
                }
                self.file.remember(Sha256::digest(bytes).into());
                self.file.delivered.push(Event::LeafRefused {
                    offset,
                    account,
                    device,
                    reason: e.to_string(),
                });
                return Ok(());
            }
        }
        self.file.remember(Sha256::digest(bytes).into());
        self.file.delivered.push(Event::RecordRefused {
            offset,
            reason: format!("its leaves need more than {MAX_LIST_FETCHES} device lists"),
        });
        Ok(())
    }

    /// Applies one record (docs/MLS.md §3's table). Returns the device list
    /// it needs (account, device, version) when the leaf check stopped for
    /// want of it: then nothing changed.
    fn process_record(
        &mut self,
        offset: u64,
        timestamp_ns: u64,
        bytes: &[u8],
    ) -> Result<Option<NeededList>, ConversationError> {
        let hash: [u8; 32] = Sha256::digest(bytes).into();
        // Our own message read back, or a resent copy: quietly skipped.
        if self.file.recent.contains(&hash) {
            if !self.file.outbox.is_empty() {
                self.file.outbox.retain(
                    |o| !matches!(o, Outgoing::Message { bytes: b } if b.as_slice() == bytes),
                );
            }
            return Ok(None);
        }
        let needed = self.apply_record(offset, timestamp_ns, bytes)?;
        if needed.is_none() {
            self.file.remember(hash);
        }
        Ok(needed)
    }

    /// [`Conversation::process_record`] once the record is known new.
    fn apply_record(
        &mut self,
        offset: u64,
        timestamp_ns: u64,
        bytes: &[u8],
    ) -> Result<Option<NeededList>, ConversationError> {
        let refuse = |reason: String| Event::RecordRefused { offset, reason };
        let header = match clear_header(bytes) {
            Ok(h) => h,
            Err(e) => {
                self.file.delivered.push(refuse(e.to_string()));
                return Ok(None);
            }
        };
        if header.group_id != self.file.group_id.as_slice() {
            self.file
                .delivered
                .push(refuse("another group's record".into()));
            return Ok(None);
        }
        if header.epoch < self.file.first_epoch {
            // Sent before this device joined (a Commit that adds it may
            // land after messages its Welcome's start offset precedes).
            return Ok(None);
        }
        let epoch = self.group.current_epoch();
        if header.epoch > epoch {
            self.file.delivered.push(Event::ForkSuspected {
                offset,
                epoch: header.epoch,
            });
            return Ok(None);
        }
        if header.epoch < epoch && header.content_type != ContentType::Application {
            // A Commit or Proposal that lost its epoch's race.
            return Ok(None);
        }
        let Ok(message) = MlsMessage::mls_decode(&mut &*bytes) else {
            self.file
                .delivered
                .push(refuse("not an MLS message".into()));
            return Ok(None);
        };
        let own_commit = self.own_pending_commit(bytes);
        // Validation time: the record's own (producer) timestamp, the same
        // for every member, so validity never depends on when one reads.
        let time = MlsTime::from_duration_since_epoch(Duration::from_nanos(timestamp_ns));
        let before: HashMap<u32, MemberId> = if header.content_type == ContentType::Commit {
            self.roster.clone()
        } else {
            HashMap::new()
        };
        // A handshake message may stop at the leaf check for want of a
        // device list: the group is put back as it was and the caller
        // fetches the list and tries again.
        let snapshot =
            (header.content_type != ContentType::Application).then(|| self.group.clone());
        let ids = self.device.inner.ids.clone();
        ids.take_noted();
        match self.group.process_incoming_message_with_time(message, time) {
            Ok(ReceivedMessage::ApplicationMessage(m)) => {
                let event = match (Content::decode(m.data()), self.roster.get(&m.sender_index)) {
                    (Ok(c), Some(sender)) if c.kind == ContentKind::Views => {
                        let sender = *sender;
                        match super::content::decode_views(&c.body) {
                            Ok(views) => {
                                self.views_received(offset, sender, &views);
                                return Ok(None);
                            }
                            Err(e) => refuse(e.to_string()),
                        }
                    }
                    (Ok(c), Some(sender)) => match String::from_utf8(c.body) {
                        Ok(text) => Event::Message {
                            offset,
                            sender: *sender,
                            sent_at: c.sent_at,
                            text,
                        },
                        Err(_) => refuse("not UTF-8".into()),
                    },
                    (Err(e), _) => refuse(e.to_string()),
                    (_, None) => refuse("sender not in the roster".into()),
                };
                self.file.delivered.push(event);
            }
            Ok(ReceivedMessage::Commit(desc)) => {
                if own_commit {
                    self.promote_own_commit();
                } else {
                    self.drop_lost_commit(epoch);
                }
                self.refresh_roster()?;
                let mut events = process::commit_events(offset, &before, &self.roster);
                if let Some(by) = before.get(&desc.committer) {
                    process::same_account_removals(&mut events, by, timestamp_ns / 1_000_000);
                }
                let removed = matches!(desc.effect, CommitEffect::Removed { .. });
                if !events.is_empty() {
                    self.views_due();
                }
                self.file.delivered.extend(events);
                if removed {
                    self.file.delivered.push(Event::Removed { offset });
                    self.file.removed = true;
                } else {
                    let authenticator = self.epoch_authenticator()?;
                    self.file.delivered.push(Event::EpochChanged {
                        offset,
                        epoch: self.group.current_epoch(),
                        authenticator,
                    });
                }
            }
            Ok(_) => {}
            Err(e) => {
                if let Some(noted) = ids.take_noted() {
                    return Ok(self.leaf_check_failed(noted, snapshot, offset, &e));
                }
                let event = if process::is_decryption_failure(&e) && header.epoch == epoch {
                    Event::ForkSuspected {
                        offset,
                        epoch: header.epoch,
                    }
                } else {
                    refuse(e.to_string())
                };
                self.file.delivered.push(event);
            }
        }
        Ok(None)
    }

    /// A record the device-list check stopped: for want of a list, the
    /// group is put back as it was (`snapshot`) and the list returned for
    /// the caller to fetch; a leaf not listed refuses the record.
    fn leaf_check_failed(
        &mut self,
        noted: CredentialError,
        snapshot: Option<Group<MlsConfig>>,
        offset: u64,
        e: &mls_rs::error::MlsError,
    ) -> Option<NeededList> {
        match noted {
            CredentialError::NeedList {
                account,
                device,
                version,
            } => {
                if let Some(group) = snapshot {
                    self.group = group;
                }
                Some((account, device, version))
            }
            CredentialError::NotListed {
                account, device, ..
            } => {
                self.file.delivered.push(Event::LeafRefused {
                    offset,
                    account,
                    device,
                    reason: e.to_string(),
                });
                None
            }
            other => {
                self.file.delivered.push(Event::RecordRefused {
                    offset,
                    reason: other.to_string(),
                });
                None
            }
        }
    }

    /// Keeps the [`Event::DeviceRemoved`] candidates among the events from
    /// `from` on whose device the account's newest list (fetched now) does
    /// not name, with its version; the others become
    /// [`Event::MemberRemoved`] (a device of the account removed a device
    /// still listed, or the list could not be had).
    async fn confirm_device_removals(&mut self, from: usize) {
        for i in from..self.file.delivered.len() {
            let Event::DeviceRemoved {
                offset,
                account,
                device,
                list_version: 0,
                ..
            } = self.file.delivered[i]
            else {
                continue;
            };
            let dropped = match self.device.device_list(&account).await {
                Ok(list) if !list_names(&list, &device) => Some(list.version()),
                _ => None,
            };
            match (dropped, &mut self.file.delivered[i]) {
                (Some(v), Event::DeviceRemoved { list_version, .. }) => *list_version = v,
                (_, e) => {
                    *e = Event::MemberRemoved {
                        offset,
                        member: MemberId { account, device },
                    };
                }
            }
        }
    }

    /// Whether `bytes` are our pending Commit.
    fn own_pending_commit(&self, bytes: &[u8]) -> bool {
        self.file
            .outbox
            .iter()
            .any(|o| matches!(o, Outgoing::Commit { bytes: b, .. } if b == bytes))
    }

    /// Our Commit was applied: its Welcome (if any) is now due.
    fn promote_own_commit(&mut self) {
        let mut out = Vec::new();
        for o in self.file.outbox.drain(..) {
            match o {
                Outgoing::Commit {
                    welcome: Some(w),
                    welcome_to,
                    ..
                } => out.push(Outgoing::Welcome {
                    bytes: w,
                    to: welcome_to,
                }),
                Outgoing::Commit { .. } => {}
                other => out.push(other),
            }
        }
        self.file.outbox = out;
    }

    /// Someone else's Commit won `epoch`: ours (if any) is dropped.
    fn drop_lost_commit(&mut self, epoch: u64) {
        let before = self.file.outbox.len();
        self.file
            .outbox
            .retain(|o| !matches!(o, Outgoing::Commit { .. }));
        if self.file.outbox.len() != before {
            self.file.delivered.push(Event::CommitLost { epoch });
        }
    }

    /// Sends the Welcomes of applied Commits to their devices, then drops
    /// them from the outbox.
    pub(crate) async fn flush_welcomes(&mut self) -> Result<(), ConversationError> {
        let due: Vec<(Vec<u8>, Vec<Fingerprint>)> = self
            .file
            .outbox
            .iter()
            .filter_map(|o| match o {
                Outgoing::Welcome { bytes, to } => Some((bytes.clone(), to.clone())),
                _ => None,
            })
            .collect();
        if due.is_empty() {
            return Ok(());
        }
        for (bytes, to) in &due {
            for device in to {
                self.device
                    .inner
                    .transport
                    .produce(
                        &welcome_topic(device),
                        0,
                        Ack::Durable,
                        one_record(&[], bytes)?,
                    )
                    .await?;
            }
        }
        self.file
            .outbox
            .retain(|o| !matches!(o, Outgoing::Welcome { .. }));
        self.save()
    }

    /// Resends what the outbox holds that the log does not (after a
    /// restart), identical bytes: readers drop a second copy.
    ///
    /// # Errors
    /// [`ConversationError`].
    pub async fn resend_outbox(&mut self) -> Result<(), ConversationError> {
        // Catch up first: what is in the log leaves the outbox as it is read.
        self.catch_up().await?;
        let messages: Vec<Vec<u8>> = self
            .file
            .outbox
            .iter()
            .filter_map(|o| match o {
                Outgoing::Message { bytes } => Some(bytes.clone()),
                _ => None,
            })
            .collect();
        for bytes in messages {
            self.device
                .inner
                .transport
                .produce(&self.file.topic, 0, Ack::Durable, one_record(&[], &bytes)?)
                .await?;
        }
        self.flush_welcomes().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_delivery_extension_round_trips() {
        let body = delivery_extension("mls.abcd", 42);
        assert_eq!(parse_delivery(&body), Some(("mls.abcd".into(), 42)));
        assert_eq!(parse_delivery(&body[..body.len() - 1]), None);
        let mut longer = body.clone();
        longer.push(0);
        assert_eq!(parse_delivery(&longer), None);
    }
}
