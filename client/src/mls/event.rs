//! What a conversation tells its application (docs/MLS.md §3): typed
//! events, persisted with the MLS state that produced them until the
//! application acknowledges them, so a crash neither loses nor repeats one.

use hermit_protocol::codec::Reader;

use super::credential::MemberId;
use crate::crypto::Fingerprint;

/// One thing that happened in a conversation, in log order.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Event {
    /// An application message, with its sender as MLS authenticated it.
    Message {
        /// The record's offset in the group topic.
        offset: u64,
        /// Who sent it: account and device.
        sender: MemberId,
        /// The sender's clock when it sent (ms since the Unix epoch).
        sent_at: u64,
        /// The text.
        text: String,
    },
    /// A device joined (an Add in a Commit).
    MemberAdded {
        /// The Commit's offset.
        offset: u64,
        /// The new device and its account.
        member: MemberId,
    },
    /// A device left or was removed (a Remove in a Commit).
    MemberRemoved {
        /// The Commit's offset.
        offset: u64,
        /// The device removed and its account.
        member: MemberId,
    },
    /// A Commit was applied: the group is at a new epoch.
    EpochChanged {
        /// The Commit's offset.
        offset: u64,
        /// The new epoch.
        epoch: u64,
        /// Its epoch authenticator, for comparing out of band.
        authenticator: Vec<u8>,
    },
    /// Our Commit lost the race for its epoch; the intent was retried on
    /// the new one (or dropped, when someone else's Commit fulfilled it).
    CommitLost {
        /// The epoch the Commit was made for.
        epoch: u64,
    },
    /// This device was removed from the group: nothing after `offset` opens.
    Removed {
        /// The Commit's offset.
        offset: u64,
    },
    /// A record was skipped: not a valid message of this group.
    RecordRefused {
        /// Its offset.
        offset: u64,
        /// Why.
        reason: String,
    },
    /// A record of our epoch (or a later one) did not decrypt: the broker
    /// may be showing members different logs (docs/MLS.md §3 "Forks").
    ForkSuspected {
        /// Its offset.
        offset: u64,
        /// The epoch the record claims.
        epoch: u64,
    },
    /// A Commit or Proposal was refused because one of its new leaves is
    /// not a listed device of its account (docs/MLS.md §4.1): the device is
    /// not on the account's device list at the binding's version or newer,
    /// or the broker withholds that list.
    LeafRefused {
        /// The record's offset.
        offset: u64,
        /// The account the leaf's binding names.
        account: Fingerprint,
        /// The leaf's device.
        device: Fingerprint,
        /// Why, in words.
        reason: String,
    },
    /// A member's device is not on its account's newest device list this
    /// device holds: dropped, not yet removed (seen in the tree of a
    /// Welcome). A device of its own account removes it (§4.4).
    DeviceNotListed {
        /// The offset the conversation starts at (the Welcome's).
        offset: u64,
        /// The account.
        account: Fingerprint,
        /// The device.
        device: Fingerprint,
        /// The version of the list that does not name it.
        list_version: u64,
    },
    /// A device dropped from its account's device list was removed by
    /// another device of the same account (docs/MLS.md §4.4).
    DeviceRemoved {
        /// The Commit's offset.
        offset: u64,
        /// The account.
        account: Fingerprint,
        /// The device removed.
        device: Fingerprint,
        /// The device of the same account that committed the Remove.
        by_device: Fingerprint,
        /// When: the Commit record's timestamp in the log (ms since the
        /// Unix epoch; the committer's clock, the same for every member).
        at: u64,
        /// The version of the account's device list, as this device holds
        /// it, that no longer names the device.
        list_version: u64,
    },
    /// The Commits this device needs were deleted from the topic
    /// (retention): it must be re-added by another member (§6.4).
    CatchUpImpossible {
        /// The next offset this device needed.
        next: u64,
        /// The topic's first offset.
        log_start: u64,
    },
    /// Error tier: a member holds another device list for `account` than
    /// this device was shown (docs/MLS.md §4.7) — two lists with one version
    /// (`seen == version`), or a newer one the broker does not serve this
    /// device (`seen < version`, withheld). The broker, or the account's
    /// key, is showing members different views.
    SplitView {
        /// The views message's offset.
        offset: u64,
        /// Whose device list.
        account: Fingerprint,
        /// Who holds the other view: the views message's sender.
        member: MemberId,
        /// The version that member holds.
        version: u64,
        /// The version this device holds (0: none served).
        seen: u64,
    },
}

impl Event {
    /// The offset of the record the event is about, if any.
    pub fn offset(&self) -> Option<u64> {
        match self {
            Event::Message { offset, .. }
            | Event::MemberAdded { offset, .. }
            | Event::MemberRemoved { offset, .. }
            | Event::EpochChanged { offset, .. }
            | Event::Removed { offset }
            | Event::RecordRefused { offset, .. }
            | Event::ForkSuspected { offset, .. }
            | Event::SplitView { offset, .. }
            | Event::LeafRefused { offset, .. }
            | Event::DeviceNotListed { offset, .. }
            | Event::DeviceRemoved { offset, .. } => Some(*offset),
            Event::CommitLost { .. } | Event::CatchUpImpossible { .. } => None,
        }
    }
}

fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    out.extend_from_slice(&u32::try_from(b.len()).expect("< 4 GiB").to_be_bytes());
    out.extend_from_slice(b);
}

fn put_member(out: &mut Vec<u8>, m: &MemberId) {
    put_device(out, &m.account, &m.device);
}

/// An account and one of its devices, as [`put_member`] writes a member.
fn put_device(out: &mut Vec<u8>, account: &Fingerprint, device: &Fingerprint) {
    out.extend_from_slice(account.as_bytes());
    out.extend_from_slice(device.as_bytes());
}

/// Appends the encoding of `event` to `out` (the group file's format).
pub(crate) fn encode(event: &Event, out: &mut Vec<u8>) {
    let u64s = |out: &mut Vec<u8>, v: &[u64]| {
        for x in v {
            out.extend_from_slice(&x.to_be_bytes());
        }
    };
    match event {
        Event::Message {
            offset,
            sender,
            sent_at,
            text,
        } => {
            out.push(1);
            u64s(out, &[*offset, *sent_at]);
            put_member(out, sender);
            put_bytes(out, text.as_bytes());
        }
        Event::MemberAdded { offset, member } => {
            out.push(2);
            u64s(out, &[*offset]);
            put_member(out, member);
        }
        Event::MemberRemoved { offset, member } => {
            out.push(3);
            u64s(out, &[*offset]);
            put_member(out, member);
        }
        Event::EpochChanged {
            offset,
            epoch,
            authenticator,
        } => {
            out.push(4);
            u64s(out, &[*offset, *epoch]);
            put_bytes(out, authenticator);
        }
        Event::CommitLost { epoch } => {
            out.push(5);
            u64s(out, &[*epoch]);
        }
        Event::Removed { offset } => {
            out.push(6);
            u64s(out, &[*offset]);
        }
        Event::RecordRefused { offset, reason } => {
            out.push(7);
            u64s(out, &[*offset]);
            put_bytes(out, reason.as_bytes());
        }
        Event::ForkSuspected { offset, epoch } => {
            out.push(8);
            u64s(out, &[*offset, *epoch]);
        }
        Event::CatchUpImpossible { next, log_start } => {
            out.push(9);
            u64s(out, &[*next, *log_start]);
        }
        Event::SplitView {
            offset,
            account,
            member,
            version,
            seen,
        } => {
            out.push(10);
            u64s(out, &[*offset, *version, *seen]);
            out.extend_from_slice(account.as_bytes());
            put_member(out, member);
        }
        Event::LeafRefused {
            offset,
            account,
            device,
            reason,
        } => {
            out.push(11);
            u64s(out, &[*offset]);
            put_device(out, account, device);
            put_bytes(out, reason.as_bytes());
        }
        Event::DeviceNotListed {
            offset,
            account,
            device,
            list_version,
        } => {
            out.push(12);
            u64s(out, &[*offset, *list_version]);
            put_device(out, account, device);
        }
        Event::DeviceRemoved {
            offset,
            account,
            device,
            by_device,
            at,
            list_version,
        } => {
            out.push(13);
            u64s(out, &[*offset, *at, *list_version]);
            put_device(out, account, device);
            out.extend_from_slice(by_device.as_bytes());
        }
    }
}

/// An event the file holds is malformed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("a stored conversation event is malformed")]
pub struct BadEvent;

fn member(r: &mut Reader<'_>) -> Result<MemberId, BadEvent> {
    Ok(MemberId {
        account: Fingerprint::from_bytes(r.array().map_err(|_| BadEvent)?),
        device: Fingerprint::from_bytes(r.array().map_err(|_| BadEvent)?),
    })
}

fn bytes<'a>(r: &mut Reader<'a>) -> Result<&'a [u8], BadEvent> {
    let n = r.u32().map_err(|_| BadEvent)? as usize;
    r.bytes(n).map_err(|_| BadEvent)
}

fn text(r: &mut Reader<'_>) -> Result<String, BadEvent> {
    String::from_utf8(bytes(r)?.to_vec()).map_err(|_| BadEvent)
}

/// Reads one event [`encode`] wrote.
pub(crate) fn decode(r: &mut Reader<'_>) -> Result<Event, BadEvent> {
    let u = |r: &mut Reader<'_>| r.u64().map_err(|_| BadEvent);
    Ok(match r.u8().map_err(|_| BadEvent)? {
        1 => {
            let (offset, sent_at) = (u(r)?, u(r)?);
            let sender = member(r)?;
            Event::Message {
                offset,
                sender,
                sent_at,
                text: text(r)?,
            }
        }
        2 => Event::MemberAdded {
            offset: u(r)?,
            member: member(r)?,
        },
        3 => Event::MemberRemoved {
            offset: u(r)?,
            member: member(r)?,
        },
        4 => {
            let (offset, epoch) = (u(r)?, u(r)?);
            Event::EpochChanged {
                offset,
                epoch,
                authenticator: bytes(r)?.to_vec(),
            }
        }
        5 => Event::CommitLost { epoch: u(r)? },
        6 => Event::Removed { offset: u(r)? },
        7 => Event::RecordRefused {
            offset: u(r)?,
            reason: text(r)?,
        },
        8 => Event::ForkSuspected {
            offset: u(r)?,
            epoch: u(r)?,
        },
        9 => Event::CatchUpImpossible {
            next: u(r)?,
            log_start: u(r)?,
        },
        10 => {
            let (offset, version, seen) = (u(r)?, u(r)?, u(r)?);
            let account = Fingerprint::from_bytes(r.array().map_err(|_| BadEvent)?);
            Event::SplitView {
                offset,
                account,
                member: member(r)?,
                version,
                seen,
            }
        }
        11 => {
            let offset = u(r)?;
            let m = member(r)?;
            Event::LeafRefused {
                offset,
                account: m.account,
                device: m.device,
                reason: text(r)?,
            }
        }
        12 => {
            let (offset, list_version) = (u(r)?, u(r)?);
            let m = member(r)?;
            Event::DeviceNotListed {
                offset,
                account: m.account,
                device: m.device,
                list_version,
            }
        }
        13 => {
            let (offset, at, list_version) = (u(r)?, u(r)?, u(r)?);
            let m = member(r)?;
            Event::DeviceRemoved {
                offset,
                account: m.account,
                device: m.device,
                by_device: Fingerprint::from_bytes(r.array().map_err(|_| BadEvent)?),
                at,
                list_version,
            }
        }
        _ => return Err(BadEvent),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_event_round_trips() {
        let m = MemberId {
            account: Fingerprint::from_bytes([1; 32]),
            device: Fingerprint::from_bytes([2; 32]),
        };
        let events = vec![
            Event::Message {
                offset: 5,
                sender: m,
                sent_at: 9,
                text: "héllo".into(),
            },
            Event::MemberAdded {
                offset: 1,
                member: m,
            },
            Event::MemberRemoved {
                offset: 2,
                member: m,
            },
            Event::EpochChanged {
                offset: 3,
                epoch: 4,
                authenticator: vec![7; 32],
            },
            Event::CommitLost { epoch: 8 },
            Event::Removed { offset: 10 },
            Event::RecordRefused {
                offset: 11,
                reason: "junk".into(),
            },
            Event::ForkSuspected {
                offset: 12,
                epoch: 3,
            },
            Event::CatchUpImpossible {
                next: 1,
                log_start: 40,
            },
            Event::SplitView {
                offset: 13,
                account: Fingerprint::from_bytes([3; 32]),
                member: m,
                version: 6,
                seen: 5,
            },
            Event::LeafRefused {
                offset: 13,
                account: m.account,
                device: m.device,
                reason: "not listed".into(),
            },
            Event::DeviceNotListed {
                offset: 14,
                account: m.account,
                device: m.device,
                list_version: 6,
            },
            Event::DeviceRemoved {
                offset: 15,
                account: m.account,
                device: m.device,
                by_device: Fingerprint::from_bytes([3; 32]),
                at: 1_700_000_000_000,
                list_version: 7,
            },
        ];
        let mut out = Vec::new();
        for e in &events {
            encode(e, &mut out);
        }
        let mut r = Reader::new(&out);
        for e in &events {
            assert_eq!(&decode(&mut r).expect("decode"), e);
        }
        assert_eq!(r.remaining(), 0);
        assert_eq!(decode(&mut Reader::new(&[1, 0])), Err(BadEvent));
        assert_eq!(decode(&mut Reader::new(&[42])), Err(BadEvent));
    }
}
