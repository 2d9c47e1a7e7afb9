//! Split views, first step (docs/MLS.md §4.7): members tell each other,
//! inside the encrypted content of an ordinary application message, which
//! device list they hold for each member account — its version and the
//! SHA-256 of its signed bytes — so a broker that shows two members two
//! lists for one account is noticed by both.
//!
//! - The **views message** is a content kind of its own
//!   ([`super::content::ContentKind::Views`], §2.1; its body's codec is in
//!   [`super::content`]): `u16 count`, then per account `32 account fp, u64 version,
//!   32 SHA-256`, accounts in ascending order, at most [`MAX_VIEWS`].
//! - **When a member sends one**: after a Commit that adds or removes
//!   members, when a views message it read differs from what it holds, and
//!   when its device-list memory accepted a newer list of a member account;
//!   never the same views twice in one epoch, never with a Commit of its own
//!   pending. It is sealed, saved in the outbox and produced like a text
//!   (the resend rule holds for it as for any message).
//! - **On receipt**, per member account it names: the same version with
//!   another digest is a [`Event::SplitView`]; a higher version than this
//!   device holds (or one it does not hold) is fetched through the memory
//!   (rollback-protected), and a broker that still serves an older list is
//!   a split view too (withheld); a lower version is nothing (the sender
//!   catches up).

use super::content::{Content, MAX_VIEWS, View};
use super::conversation::{Check, Conversation, ViewsState};
use super::credential::MemberId;
use super::device::now_ms;
use super::error::ConversationError;
use super::event::Event;
use super::group_file::Outgoing;
use crate::crypto::Fingerprint;
use hermit_protocol::Ack;
use sha2::{Digest as _, Sha256};

impl Conversation {
    /// This device's views now: every member account whose list the
    /// device-list memory holds, in ascending order.
    fn current_views(&self) -> Vec<View> {
        let seen = &self.device.inner.seen_lists;
        let mut accounts: Vec<Fingerprint> = self.roster.values().map(|m| m.account).collect();
        accounts.sort_unstable();
        accounts.dedup();
        accounts
            .into_iter()
            .filter_map(|account| {
                seen.get(&account).map(|(version, digest)| View {
                    account,
                    version,
                    digest,
                })
            })
            .take(MAX_VIEWS)
            .collect()
    }

    /// Takes what this device holds as the views it has shown (a
    /// conversation just opened does not send what it held already).
    pub(crate) fn start_views(&mut self) {
        self.views.baseline = self.current_views();
    }

    /// Whether claims wait for a list fetch (our views go after them).
    pub(crate) fn views_checks_pending(&self) -> bool {
        !self.views.checks.is_empty()
    }

    /// A Commit changed who is in the group: our views are due.
    pub(crate) fn views_due(&mut self) {
        self.views.due = true;
    }

    /// Compares a views message `sender` sent (at `offset`) with the
    /// device-list memory: a different list at one version is told now;
    /// newer (or unknown) ones are fetched after the records are saved.
    pub(crate) fn views_received(&mut self, offset: u64, sender: MemberId, views: &[View]) {
        let mine = self.current_views();
        let members: Vec<Fingerprint> = self.roster.values().map(|m| m.account).collect();
        let seen = &self.device.inner.seen_lists;
        for view in views.iter().filter(|v| members.contains(&v.account)) {
            match seen.get(&view.account) {
                Some((version, digest)) if version == view.version => {
                    if digest != view.digest {
                        self.file.delivered.push(Event::SplitView {
                            offset,
                            account: view.account,
                            member: sender,
                            version: view.version,
                            seen: version,
                        });
                    }
                }
                Some((version, _)) if version > view.version => {}
                _ => self.views.checks.push(Check {
                    offset,
                    member: sender,
                    view: *view,
                }),
            }
        }
        // Views that differ from ours (either way) ask for ours.
        let theirs: Vec<&View> = views
            .iter()
            .filter(|v| members.contains(&v.account))
            .collect();
        if theirs.len() != mine.len() || theirs.iter().zip(&mine).any(|(a, b)| *a != b) {
            self.views.due = true;
        }
    }

    /// Seals our views into the outbox when they are due (before the state
    /// write that persists it): returns the record to produce.
    pub(crate) fn seal_views_if_due(&mut self) -> Result<Option<Vec<u8>>, ConversationError> {
        if self.file.removed
            || self
                .file
                .outbox
                .iter()
                .any(|o| matches!(o, Outgoing::Commit { .. }))
        {
            return Ok(None);
        }
        let now = self.current_views();
        let epoch = self.group.current_epoch();
        let changed = now != self.views.baseline;
        if !(self.views.due || changed) {
            return Ok(None);
        }
        if now.is_empty() || (!changed && self.views.sent_epoch == Some(epoch)) {
            // Nothing to tell, or told already in this epoch.
            self.views.due = false;
            return Ok(None);
        }
        let content = Content::views(&now, now_ms())?.encode()?;
        // The library refuses while proposals wait for a Commit: later.
        let Ok(message) = self.group.encrypt_application_message(&content, Vec::new()) else {
            return Ok(None);
        };
        let bytes = message
            .to_bytes()
            .map_err(ConversationError::mls("encode a message"))?;
        self.file.remember(Sha256::digest(&bytes).into());
        self.file.outbox.push(Outgoing::Message {
            bytes: bytes.clone(),
        });
        self.views = ViewsState {
            baseline: now,
            sent_epoch: Some(epoch),
            due: false,
            checks: std::mem::take(&mut self.views.checks),
        };
        Ok(Some(bytes))
    }

    /// Produces a views record [`Conversation::seal_views_if_due`] made
    /// (saved already), then checks the claims that need a list fetched;
    /// what they change is saved, and our views sent when due.
    pub(crate) async fn send_views(
        &mut self,
        sealed: Option<Vec<u8>>,
    ) -> Result<(), ConversationError> {
        if let Some(bytes) = sealed {
            self.produce_views(bytes).await?;
        }
        if self.views.checks.is_empty() {
            return Ok(());
        }
        self.check_claims().await?;
        let sealed = self.seal_views_if_due()?;
        self.save()?;
        if let Some(bytes) = sealed {
            self.produce_views(bytes).await?;
        }
        Ok(())
    }

    async fn produce_views(&mut self, bytes: Vec<u8>) -> Result<(), ConversationError> {
        let batch = super::device::one_record(&[], &bytes)?;
        self.device
            .inner
            .transport
            .produce(&self.file.topic, 0, Ack::Durable, batch)
            .await?;
        // Durable: out of the outbox with the next write (a crash before it
        // resends, and readers skip the copy).
        self.file
            .outbox
            .retain(|o| !matches!(o, Outgoing::Message { bytes: b } if *b == bytes));
        Ok(())
    }

    /// Fetches the list of each claimed account through the memory and
    /// compares: still older than the claim (withheld), or the claimed
    /// version with another digest, is a split view. A transport failure
    /// keeps the remaining claims for the next fetch.
    async fn check_claims(&mut self) -> Result<(), ConversationError> {
        let mut checks = std::mem::take(&mut self.views.checks);
        checks.sort_by_key(|c| (c.view.account, std::cmp::Reverse(c.view.version)));
        let mut fetched: Vec<Fingerprint> = Vec::new();
        while let Some(check) = checks.first().cloned() {
            let account = check.view.account;
            if !fetched.contains(&account) {
                match self.device.device_list(&account).await {
                    // A refused list (rolled back, another at our version,
                    // forged) or none leaves the memory where it was.
                    Ok(_)
                    | Err(
                        ConversationError::DeviceList(_) | ConversationError::NoDeviceList { .. },
                    ) => fetched.push(account),
                    Err(e) => {
                        self.views.checks = checks;
                        return Err(e);
                    }
                }
            }
            checks.remove(0);
            let (seen, digest) = self
                .device
                .inner
                .seen_lists
                .get(&account)
                .unwrap_or((0, [0; 32]));
            if seen < check.view.version
                || (seen == check.view.version && digest != check.view.digest)
            {
                self.file.delivered.push(Event::SplitView {
                    offset: check.offset,
                    account,
                    member: check.member,
                    version: check.view.version,
                    seen,
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mls::content::{ContentError, ContentKind, VIEW_LEN, decode_views, encode_views};

    fn view(a: u8, version: u64) -> View {
        View {
            account: Fingerprint::from_bytes([a; 32]),
            version,
            digest: [a ^ 0x5a; 32],
        }
    }

    #[test]
    fn views_round_trip_in_the_content_framing() {
        let views = vec![view(1, 5), view(2, 1), view(9, 70_000)];
        let bytes = Content::views(&views, 42).unwrap().encode().unwrap();
        let back = Content::decode(&bytes).unwrap();
        assert_eq!(back.kind, ContentKind::Views);
        assert_eq!(back.sent_at, 42);
        assert_eq!(decode_views(&back.body).unwrap(), views);
        assert_eq!(decode_views(&encode_views(&[]).unwrap()).unwrap(), vec![]);
    }

    #[test]
    fn bad_views_are_refused_before_allocating() {
        let good = encode_views(&[view(1, 5), view(2, 6)]).unwrap();
        assert!(decode_views(&good[..1]).is_err());
        assert!(decode_views(&good[..good.len() - 1]).is_err());
        let mut huge = good.clone();
        huge[..2].copy_from_slice(&u16::MAX.to_be_bytes());
        assert_eq!(
            decode_views(&huge),
            Err(ContentError::BadViews("too many accounts"))
        );
        let twice = [view(1, 5), view(1, 5)];
        assert!(encode_views(&twice).is_err());
        let mut swapped = good.clone();
        swapped[2..].rotate_left(VIEW_LEN);
        assert_eq!(
            decode_views(&swapped),
            Err(ContentError::BadViews("accounts not in ascending order"))
        );
        let many: Vec<View> = (0..=MAX_VIEWS)
            .map(|i| View {
                account: Fingerprint::from_bytes({
                    let mut b = [0u8; 32];
                    b[..8].copy_from_slice(&(i as u64).to_be_bytes());
                    b
                }),
                version: 1,
                digest: [0; 32],
            })
            .collect();
        assert!(encode_views(&many).is_err());
        assert!(encode_views(&many[..MAX_VIEWS]).is_ok());
        // A malformed views body fails the content's own decode.
        let mut content = Content::views(&[view(1, 5)], 1).unwrap();
        content.body.pop();
        let bytes = content.encode().unwrap();
        assert!(matches!(
            Content::decode(&bytes),
            Err(ContentError::BadViews(_))
        ));
    }

    fn unhex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    fn vector_path() -> std::path::PathBuf {
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/mls_views.json")
    }

    fn vector_views() -> Vec<View> {
        // Three accounts, ascending; versions across the u64 range.
        vec![
            View {
                account: Fingerprint::from_bytes([0x11; 32]),
                version: 5,
                digest: [0xa5; 32],
            },
            View {
                account: Fingerprint::from_bytes([0x7f; 32]),
                version: 1,
                digest: core::array::from_fn(|i| i as u8),
            },
            View {
                account: Fingerprint::from_bytes([0xe0; 32]),
                version: u64::MAX - 1,
                digest: [0; 32],
            },
        ]
    }

    /// The stored vector the JS SDK checks too
    /// (`client/tests/vectors/mls_views.json`): the same bytes.
    #[test]
    fn the_views_vector_matches() {
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(vector_path()).unwrap()).unwrap();
        let views: Vec<View> = v["views"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| View {
                account: Fingerprint::from_bytes(
                    unhex(e["account"].as_str().unwrap()).try_into().unwrap(),
                ),
                version: e["version"].as_str().unwrap().parse().unwrap(),
                digest: unhex(e["digest"].as_str().unwrap()).try_into().unwrap(),
            })
            .collect();
        assert_eq!(views, vector_views());
        let sent_at = v["sent_at"].as_u64().unwrap();
        let bytes = Content::views(&views, sent_at).unwrap().encode().unwrap();
        assert_eq!(crate::local::hex(&bytes), v["content"].as_str().unwrap());
    }

    #[test]
    #[ignore = "rewrites tests/vectors/mls_views.json: only when the framing changes on purpose"]
    fn write_the_views_vector() {
        let views = vector_views();
        let sent_at = 1_733_000_000_123u64;
        let bytes = Content::views(&views, sent_at).unwrap().encode().unwrap();
        let v = serde_json::json!({
            "about": "A views message's application content (docs/MLS.md §2.1, §4.7), made by client/src/mls/views.rs; js/test/mls-split-view.test.mjs checks the same bytes. Versions are strings (u64).",
            "sent_at": sent_at,
            "views": views.iter().map(|w| serde_json::json!({
                "account": w.account.to_hex(),
                "version": w.version.to_string(),
                "digest": crate::local::hex(&w.digest),
            })).collect::<Vec<_>>(),
            "content": crate::local::hex(&bytes),
        });
        std::fs::write(
            vector_path(),
            serde_json::to_string_pretty(&v).unwrap() + "\n",
        )
        .unwrap();
    }
}
