//! Changing the group (docs/MLS.md §3, §6.1): an **intent** (add these
//! devices, remove these, update my leaf) becomes a Commit made only when
//! the whole topic is processed, appended by conditional produce at the
//! end this device read, and applied when read back in log order. A
//! Commit that loses its epoch is dropped and the intent retried on the
//! new epoch — or dropped when someone else's Commit fulfilled it.

use std::time::Duration;

use mls_rs::extension::ExtensionType;
use mls_rs::{Extension, ExtensionList, MlsMessage};

use super::config::DELIVERY_EXTENSION;
use super::conversation::{Conversation, delivery_extension};
use super::credential::{CredentialError, check_leaf};
use super::device::one_record;
use super::error::ConversationError;
use super::event::Event;
use super::group_file::Outgoing;
use super::header::{ContentType, clear_header};
use crate::crypto::{Fingerprint, PublicKey};
use crate::outcome::Conditional;
use hermit_protocol::Ack;

/// How many conditional produces an intent may take before
/// [`ConversationError::CommitStalled`].
pub const MAX_COMMIT_ATTEMPTS: u32 = 64;

/// From this attempt on, a losing committer waits a random while first.
const BACKOFF_FROM: u32 = 8;

/// How long a committer waits for records it knows were appended (its own
/// Commit, the ones that moved the end) to become readable.
const READ_BACK_WAIT: Duration = Duration::from_secs(5);

/// What a commit operation did.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CommitOutcome {
    /// Our Commit was appended at `offset` and applied: the group is at `epoch`.
    Committed {
        /// The Commit's offset.
        offset: u64,
        /// The new epoch.
        epoch: u64,
        /// How many conditional produces it took (1 when nothing came in
        /// between; a Commit moved past application messages, or remade
        /// after losing its epoch, counts again).
        attempts: u32,
    },
    /// Nothing was left to do: other members' Commits already did it.
    AlreadyDone,
}

/// A change to make.
#[derive(Debug, Clone)]
pub(crate) enum Intent {
    /// Add devices, each with a KeyPackage already claimed.
    Add(Vec<(Fingerprint, MlsMessage)>),
    /// Remove these devices.
    Remove(Vec<Fingerprint>),
    /// Replace these devices' leaves (if any) with fresh ones from the
    /// claimed KeyPackages, in one Commit: how a device that can no longer
    /// follow the group (catch-up impossible, a suspected fork) comes back.
    Readd(Vec<(Fingerprint, MlsMessage)>),
    /// A new leaf secret for this device (post-compromise security).
    Update,
}

/// One attempt's plan: what is still to do on the current epoch.
struct Plan {
    adds: Vec<(Fingerprint, MlsMessage)>,
    removes: Vec<u32>,
}

impl Conversation {
    /// Invites an account: adds each device of its published device list
    /// that is not yet a member, one claimed KeyPackage each.
    ///
    /// # Errors
    /// [`ConversationError::NoDeviceList`], [`ConversationError::NoKeyPackages`]
    /// (naming what the invitee must do), [`ConversationError::CommitStalled`].
    pub async fn invite(
        &mut self,
        account: &Fingerprint,
    ) -> Result<CommitOutcome, ConversationError> {
        self.check_key_changes(std::slice::from_ref(account))?;
        let list = self.device.device_list(account).await?;
        let keys = list
            .devices()
            .iter()
            .map(|d| {
                PublicKey::from_sec1_bytes(&d.key)
                    .map_err(|e| ConversationError::Invalid(format!("a listed device: {e}")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        self.add_devices(&keys).await
    }

    /// Adds these devices (the keys of their leaves), one claimed KeyPackage
    /// each; devices already in the group are left out.
    ///
    /// # Errors
    /// As [`Conversation::invite`].
    pub async fn add_devices(
        &mut self,
        devices: &[PublicKey],
    ) -> Result<CommitOutcome, ConversationError> {
        self.check_usable()?;
        let fps: Vec<Fingerprint> = devices.iter().map(|d| *d.fingerprint()).collect();
        self.check_key_changes(&fps)?;
        let adds = self.claim_for(devices, true).await?;
        if adds.is_empty() {
            return Ok(CommitOutcome::AlreadyDone);
        }
        self.commit_intent(Intent::Add(adds)).await
    }

    /// Re-adds these devices (the keys of their leaves): their current
    /// leaves, if any, are removed and fresh ones added from newly claimed
    /// KeyPackages, in one Commit. For a device that told its user it can
    /// no longer follow the group (`CatchUpImpossible`, `ForkSuspected`);
    /// it then joins again from the Welcome (docs/MLS.md §6.4).
    ///
    /// # Errors
    /// As [`Conversation::invite`].
    pub async fn readd_devices(
        &mut self,
        devices: &[PublicKey],
    ) -> Result<CommitOutcome, ConversationError> {
        self.check_usable()?;
        let adds = self.claim_for(devices, false).await?;
        if adds.is_empty() {
            return Ok(CommitOutcome::AlreadyDone);
        }
        self.commit_intent(Intent::Readd(adds)).await
    }

    /// One claimed KeyPackage per device of `devices`; with `absent_only`,
    /// devices already in the group are left out.
    async fn claim_for(
        &self,
        devices: &[PublicKey],
        absent_only: bool,
    ) -> Result<Vec<(Fingerprint, MlsMessage)>, ConversationError> {
        let mut adds = Vec::new();
        for key in devices {
            let fp = *key.fingerprint();
            if absent_only && self.roster.values().any(|m| m.device == fp) {
                continue;
            }
            let kp = self.device.claim_key_package(key).await?;
            self.check_listed(&kp, key).await?;
            adds.push((fp, kp));
        }
        Ok(adds)
    }

    /// Checks a claimed KeyPackage's device against its account's device
    /// list at the binding's version or newer (fetched when not held), so
    /// that the library's leaf check finds it (docs/MLS.md §4.1).
    async fn check_listed(
        &self,
        kp: &MlsMessage,
        key: &PublicKey,
    ) -> Result<(), ConversationError> {
        let device = *key.fingerprint();
        let bad = |reason: String| ConversationError::BadKeyPackage { device, reason };
        let identity = kp
            .as_key_package()
            .ok_or_else(|| bad("not a KeyPackage".into()))?
            .signing_identity();
        let (member, version) = check_leaf(identity)?;
        // The device's account, as its binding names it: a device of a
        // contact whose key changed unconfirmed is not added either.
        self.check_key_changes(&[member.account])?;
        let list = self
            .device
            .ensure_list(&member.account, &device, version)
            .await?;
        if !list.lists(&key.to_sec1_uncompressed()) {
            return Err(CredentialError::NotListed {
                account: member.account,
                device,
                list_version: list.version(),
            }
            .into());
        }
        Ok(())
    }

    /// Removes these devices from the group.
    ///
    /// # Errors
    /// [`ConversationError::CommitStalled`] and the like.
    pub async fn remove_devices(
        &mut self,
        devices: &[Fingerprint],
    ) -> Result<CommitOutcome, ConversationError> {
        self.commit_intent(Intent::Remove(devices.to_vec())).await
    }

    /// Removes every device of `account`.
    ///
    /// # Errors
    /// As [`Conversation::remove_devices`].
    pub async fn remove_account(
        &mut self,
        account: &Fingerprint,
    ) -> Result<CommitOutcome, ConversationError> {
        let devices: Vec<Fingerprint> = self
            .roster
            .values()
            .filter(|m| m.account == *account)
            .map(|m| m.device)
            .collect();
        self.remove_devices(&devices).await
    }

    /// Commits a fresh leaf secret for this device: whoever copied its
    /// state before this opens nothing sent after (post-compromise
    /// security).
    ///
    /// # Errors
    /// As [`Conversation::remove_devices`].
    pub async fn update(&mut self) -> Result<CommitOutcome, ConversationError> {
        self.commit_intent(Intent::Update).await
    }

    /// On a device of an account: removes the group's devices of that
    /// account that its newest device list (fetched now) no longer names —
    /// dropped devices (docs/MLS.md §4.4). This device never removes
    /// itself. Run by [`Conversation::catch_up`].
    ///
    /// # Errors
    /// The list cannot be had (rolled back, equivocating); as
    /// [`Conversation::remove_devices`].
    pub(crate) async fn remove_dropped_devices(&mut self) -> Result<(), ConversationError> {
        if self.is_removed() {
            return Ok(());
        }
        let me = self.me();
        if !self
            .members()
            .iter()
            .any(|m| m.account == me.account && m.device != me.device)
        {
            return Ok(());
        }
        match self.device.device_list(&me.account).await {
            Ok(_) | Err(ConversationError::NoDeviceList { .. }) => {}
            Err(e) => return Err(e),
        }
        let dropped: Vec<Fingerprint> = self
            .unlisted_members(|m| m.account == me.account && m.device != me.device)
            .into_iter()
            .map(|(m, _)| m.device)
            .collect();
        if !dropped.is_empty() {
            self.commit_intent(Intent::Remove(dropped)).await?;
        }
        Ok(())
    }

    /// Leaves: sends a Remove Proposal for this device's own leaf, which the
    /// next member to commit includes (docs/MLS.md §6.1). The state is kept
    /// until that Commit is read ([`Event::Removed`]).
    ///
    /// # Errors
    /// [`ConversationError`].
    pub async fn leave(&mut self) -> Result<(), ConversationError> {
        self.check_usable()?;
        self.catch_up().await?;
        let index = self.group.current_member_index();
        let proposal = self
            .group
            .propose_remove(index, Vec::new())
            .map_err(ConversationError::mls("propose our own removal"))?;
        let bytes = proposal
            .to_bytes()
            .map_err(ConversationError::mls("encode a proposal"))?;
        self.save()?;
        self.device
            .inner
            .transport
            .produce(self.topic(), 0, Ack::Durable, one_record(&[], &bytes)?)
            .await?;
        Ok(())
    }

    fn plan(&self, intent: &Intent) -> Option<Plan> {
        let index_of = |fp: &Fingerprint| {
            self.roster
                .iter()
                .find(|(_, m)| m.device == *fp)
                .map(|(i, _)| *i)
        };
        match intent {
            Intent::Add(adds) => {
                let adds: Vec<_> = adds
                    .iter()
                    .filter(|(fp, _)| index_of(fp).is_none())
                    .cloned()
                    .collect();
                (!adds.is_empty()).then_some(Plan {
                    adds,
                    removes: Vec::new(),
                })
            }
            Intent::Remove(devices) => {
                let mut removes: Vec<u32> = devices.iter().filter_map(index_of).collect();
                removes.sort_unstable();
                removes.dedup();
                (!removes.is_empty()).then_some(Plan {
                    adds: Vec::new(),
                    removes,
                })
            }
            Intent::Readd(adds) => {
                let mut removes: Vec<u32> =
                    adds.iter().filter_map(|(fp, _)| index_of(fp)).collect();
                removes.sort_unstable();
                Some(Plan {
                    adds: adds.clone(),
                    removes,
                })
            }
            Intent::Update => Some(Plan {
                adds: Vec::new(),
                removes: Vec::new(),
            }),
        }
    }

    pub(crate) async fn commit_intent(
        &mut self,
        intent: Intent,
    ) -> Result<CommitOutcome, ConversationError> {
        // Conditional produces sent for this intent (a Commit moved past
        // application messages counts again): at most MAX_COMMIT_ATTEMPTS.
        let mut attempts = 0u32;
        let mut round = 0u32;

        while attempts < MAX_COMMIT_ATTEMPTS {
            round += 1;
            self.catch_up_records().await?;
            self.check_usable()?;
            let Some(plan) = self.plan(&intent) else {
                return Ok(CommitOutcome::AlreadyDone);
            };
            // Right after the last record read, nothing in between: a
            // Commit may only follow what this device has processed.
            let expected = self.device.inner.transport.end_after(self.file.next, 1);
            let topic = self.file.topic.clone();
            let mut builder = self.group.commit_builder();
            for (_, kp) in &plan.adds {
                builder = builder
                    .add_member(kp.clone())
                    .map_err(ConversationError::mls("add a member"))?;
            }
            for index in &plan.removes {
                builder = builder
                    .remove_member(*index)
                    .map_err(ConversationError::mls("remove a member"))?;
            }
            if !plan.adds.is_empty() {
                let mut ext = ExtensionList::new();
                ext.set(Extension::new(
                    ExtensionType::new(DELIVERY_EXTENSION),
                    delivery_extension(&topic, expected + 1),
                ));
                builder = builder.set_group_info_ext(ext);
            }
            let output = builder
                .build()
                .map_err(ConversationError::mls("make a commit"))?;
            let bytes = output
                .commit_message
                .to_bytes()
                .map_err(ConversationError::mls("encode a commit"))?;
            let welcome = match output.welcome_messages.first() {
                Some(w) => Some(
                    w.to_bytes()
                        .map_err(ConversationError::mls("encode a welcome"))?,
                ),
                None => None,
            };
            let epoch = self.group.current_epoch();
            self.file.outbox.push(Outgoing::Commit {
                bytes: bytes.clone(),
                welcome,
                welcome_to: plan.adds.iter().map(|(fp, _)| *fp).collect(),
            });
            // The pending Commit and its Welcome reach the disk before the
            // Commit can reach the log.
            self.save()?;
            let batch = one_record(&[], &bytes)?;
            let mut expected = expected;
            // The same Commit may follow application messages that came in
            // since: they change no group state (docs/MLS.md §3).
            let answer = loop {
                attempts += 1;
                let answer = self
                    .device
                    .inner
                    .transport
                    .conditional_produce(self.topic(), 0, expected, Ack::Durable, &batch)
                    .await;
                match answer {
                    Ok(Conditional::EndMoved { end })
                        if attempts < MAX_COMMIT_ATTEMPTS
                            && self.gap_holds_only_messages(expected, end).await? =>
                    {
                        expected = end;
                    }
                    other => break other,
                }
            };
            match answer {
                Ok(Conditional::Appended { base_offset }) => {
                    // Applied when read back, in log order.
                    while self.file.next <= base_offset {
                        if self.fetch_and_process(READ_BACK_WAIT, false).await? {
                            break;
                        }
                    }
                    if self.group.current_epoch() > epoch && !self.has_pending_commit() {
                        return Ok(CommitOutcome::Committed {
                            offset: base_offset,
                            epoch: self.group.current_epoch(),
                            attempts,
                        });
                    }
                    // Another record stood where ours was said to be: the
                    // intent goes round again.
                }
                Ok(Conditional::EndMoved { .. }) => {
                    self.file.delivered.push(Event::CommitLost { epoch });
                    self.discard_pending_commit()?;
                }
                // A lost answer: the Commit may or may not be in the log;
                // reading on decides (ours applied, or another cleared it).
                Err(e) if e.is_retriable() => {}
                Err(e) => {
                    self.discard_pending_commit()?;
                    return Err(e.into());
                }
            }
            if round >= BACKOFF_FROM {
                backoff(round).await;
            }
        }
        self.discard_pending_commit()?;
        Err(ConversationError::CommitStalled {
            attempts: MAX_COMMIT_ATTEMPTS,
        })
    }

    /// Whether every record from `from` up to the log end `end` is one that
    /// changes no group state: an application message, or a record every
    /// member skips (not a group record). Proposals and Commits — of any
    /// epoch, even stale ones — say no. Waits for the records to be readable.
    async fn gap_holds_only_messages(
        &self,
        from: u64,
        end: u64,
    ) -> Result<bool, ConversationError> {
        let transport = &self.device.inner.transport;
        let mut next = from;
        while transport.end_after(next, 1) < end {
            let resp = transport
                .fetch(self.topic(), 0, next, 1 << 20, READ_BACK_WAIT)
                .await?;
            let mut any = false;
            for record in resp.records_from(next) {
                let record = record?;
                if transport.end_after(record.offset + 1, 1) > end {
                    break;
                }
                any = true;
                next = record.offset + 1;
                if let Ok(h) = clear_header(&record.value)
                    && h.content_type != ContentType::Application
                {
                    return Ok(false);
                }
            }
            if !any {
                // Not readable yet within the wait: decide as a lost race.
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn has_pending_commit(&self) -> bool {
        self.file
            .outbox
            .iter()
            .any(|o| matches!(o, Outgoing::Commit { .. }))
    }

    fn discard_pending_commit(&mut self) -> Result<(), ConversationError> {
        self.group.clear_pending_commit();
        self.file
            .outbox
            .retain(|o| !matches!(o, Outgoing::Commit { .. }));
        self.save()
    }
}

/// A random wait of up to 2^(attempt − 8) ms (at most 64 ms): committers
/// that keep losing spread out.
async fn backoff(attempt: u32) {
    let mut b = [0u8; 2];
    let _ = crate::crypto::rng::seeded().and_then(|mut r| r.fill_bytes(&mut b));
    let cap = 1u64 << (attempt - BACKOFF_FROM).min(6);
    let ms = u64::from(u16::from_be_bytes(b)) % cap + 1;
    tokio::time::sleep(Duration::from_millis(ms)).await;
}
