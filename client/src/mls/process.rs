//! What a processed record means for the application: membership changes
//! of a Commit, and which library errors say "could not decrypt" (a fork
//! signal, docs/MLS.md §3) rather than "invalid".

use std::collections::HashMap;

use mls_rs::error::MlsError;

use super::credential::MemberId;
use super::event::Event;

/// The membership events of a Commit at `offset`: the roster before and
/// after, compared leaf by leaf (an Update keeps its member; a Remove and an
/// Add that reuse a leaf are both told).
pub(crate) fn commit_events(
    offset: u64,
    before: &HashMap<u32, MemberId>,
    after: &HashMap<u32, MemberId>,
) -> Vec<Event> {
    let mut events = Vec::new();
    let mut removed: Vec<(u32, MemberId)> = before
        .iter()
        .filter(|(i, m)| after.get(i) != Some(m))
        .map(|(i, m)| (*i, *m))
        .collect();
    removed.sort_by_key(|(i, _)| *i);
    for (_, member) in removed {
        events.push(Event::MemberRemoved { offset, member });
    }
    let mut added: Vec<(u32, MemberId)> = after
        .iter()
        .filter(|(i, m)| before.get(i) != Some(m))
        .map(|(i, m)| (*i, *m))
        .collect();
    added.sort_by_key(|(i, _)| *i);
    for (_, member) in added {
        events.push(Event::MemberAdded { offset, member });
    }
    events
}

/// Marks the removals in `events` that a device of the removed device's own
/// account (`by`) committed as [`Event::DeviceRemoved`] candidates (at
/// `at_ms`, the list version still to be filled in: 0) — the conversation
/// keeps those the account's list confirms (docs/MLS.md §4.4).
pub(crate) fn same_account_removals(events: &mut [Event], by: &MemberId, at_ms: u64) {
    for e in events.iter_mut() {
        if let Event::MemberRemoved { offset, member } = *e
            && member.account == by.account
            && member.device != by.device
        {
            *e = Event::DeviceRemoved {
                offset,
                account: member.account,
                device: member.device,
                by_device: by.device,
                at: at_ms,
                list_version: 0,
            };
        }
    }
}

/// Whether processing failed because the record did not decrypt under the
/// epoch it names (sender data or content AEAD, or no key for its
/// generation): the signal of a fork when the epoch is ours.
pub(crate) fn is_decryption_failure(e: &MlsError) -> bool {
    matches!(
        e,
        MlsError::CryptoProviderError(_) | MlsError::KeyMissing(_) | MlsError::InvalidSender
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crypto::Fingerprint;

    fn m(a: u8, d: u8) -> MemberId {
        MemberId {
            account: Fingerprint::from_bytes([a; 32]),
            device: Fingerprint::from_bytes([d; 32]),
        }
    }

    #[test]
    fn rosters_are_compared_leaf_by_leaf() {
        let before: HashMap<_, _> = [(0, m(1, 1)), (1, m(2, 2)), (2, m(3, 3))].into();
        let after: HashMap<_, _> = [(0, m(1, 1)), (1, m(4, 4)), (3, m(5, 5))].into();
        let split = |events: Vec<Event>| {
            let mut removed = Vec::new();
            let mut added = Vec::new();
            for e in events {
                match e {
                    Event::MemberRemoved { member, offset: 7 } => removed.push(member),
                    Event::MemberAdded { member, offset: 7 } => added.push(member),
                    other => panic!("{other:?}"),
                }
            }
            (removed, added)
        };
        let (removed, added) = split(commit_events(7, &before, &after));
        assert_eq!(removed, vec![m(2, 2), m(3, 3)]);
        assert_eq!(added, vec![m(4, 4), m(5, 5)]);
        assert_eq!(split(commit_events(7, &before, &before)), (vec![], vec![]));
    }
}
