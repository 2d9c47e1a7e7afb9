//! One partition's claim state and its record in `__claims`: the key that
//! names the partition, the value that holds its position and the claims
//! it remembers (the layout is in the [module documentation](super)).

use std::collections::VecDeque;

use hermit_protocol::codec::Reader;

/// Name of the internal topic holding claim positions.
pub const CLAIMS_TOPIC: &str = "__claims";

/// Claims a partition remembers (the newest): a retry with an id among
/// them gets its batch again; an older id is a new claim.
pub const REMEMBERED: usize = 64;

/// Bytes of a claim id.
pub const CLAIM_ID_LEN: usize = hermit_protocol::frame::CLAIM_ID_LEN;

/// Bytes of a principal (a key's fingerprint; all zeros for anonymous).
pub const PRINCIPAL_LEN: usize = 32;

/// A claimed partition: topic and partition number.
pub(super) type Key = (String, u32);

/// Bytes of one remembered claim in a value: id, principal, offset.
const ENTRY_LEN: usize = CLAIM_ID_LEN + PRINCIPAL_LEN + 8;

/// One claim a partition remembers, so that its retry gets the same batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Remembered {
    pub(super) id: [u8; CLAIM_ID_LEN],
    pub(super) principal: [u8; PRINCIPAL_LEN],
    /// The first offset of the batch it was handed.
    pub(super) offset: u64,
    /// The offset in `__claims` after the record that first held it: the
    /// claim is durable once that partition's synced offset reaches this.
    /// In memory only — 0 for what was loaded at open, which is on disk.
    pub(super) recorded: u64,
}

/// A partition's claim state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct State {
    /// The next offset to hand out (the first batch at or after it).
    pub(super) position: u64,
    /// The last [`REMEMBERED`] claims, newest last.
    pub(super) recent: VecDeque<Remembered>,
}

impl State {
    /// The claim `id` of `principal`, if remembered.
    pub(super) fn find(
        &self,
        id: &[u8; CLAIM_ID_LEN],
        principal: &[u8; PRINCIPAL_LEN],
    ) -> Option<Remembered> {
        self.recent
            .iter()
            .find(|r| r.id == *id && r.principal == *principal)
            .copied()
    }

    /// Remember a claim (forgetting the oldest beyond [`REMEMBERED`]).
    pub(super) fn remember(&mut self, claim: Remembered) {
        if self.recent.len() == REMEMBERED {
            self.recent.pop_front();
        }
        self.recent.push_back(claim);
    }

    /// The value of its `__claims` record.
    pub(super) fn encode(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(8 + 2 + self.recent.len() * ENTRY_LEN);
        v.extend_from_slice(&self.position.to_be_bytes());
        // At most REMEMBERED (64) entries: fits a u16.
        v.extend_from_slice(&(self.recent.len() as u16).to_be_bytes());
        for r in &self.recent {
            v.extend_from_slice(&r.id);
            v.extend_from_slice(&r.principal);
            v.extend_from_slice(&r.offset.to_be_bytes());
        }
        v
    }

    /// Read a value; `None` when it is not one (wrong length, more entries
    /// than a partition remembers).
    pub(super) fn decode(value: &[u8]) -> Option<State> {
        let mut r = Reader::new(value);
        let position = r.u64().ok()?;
        let n = usize::from(r.u16().ok()?);
        if n > REMEMBERED || r.remaining() != n * ENTRY_LEN {
            return None;
        }
        let mut recent = VecDeque::with_capacity(n);
        for _ in 0..n {
            recent.push_back(Remembered {
                id: r.array().ok()?,
                principal: r.array().ok()?,
                offset: r.u64().ok()?,
                recorded: 0,
            });
        }
        Some(State { position, recent })
    }
}

/// The record key of a partition: `u8 len | topic | u32 partition`.
pub(super) fn encode_key(topic: &str, partition: u32) -> Vec<u8> {
    let mut k = Vec::with_capacity(1 + topic.len() + 4);
    // Topic names are at most 249 bytes (checked by the protocol and the log).
    k.push(topic.len() as u8);
    k.extend_from_slice(topic.as_bytes());
    k.extend_from_slice(&partition.to_be_bytes());
    k
}

/// Read a record key; `None` when it is not one.
pub(super) fn decode_key(k: &[u8]) -> Option<Key> {
    let mut r = Reader::new(k);
    let topic = r.str8("topic").ok()?.to_owned();
    let partition = r.u32().ok()?;
    r.finish().ok()?;
    Some((topic, partition))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn entry(seed: u8, offset: u64) -> Remembered {
        Remembered {
            id: [seed; CLAIM_ID_LEN],
            principal: [seed.wrapping_add(1); PRINCIPAL_LEN],
            offset,
            recorded: 0,
        }
    }

    #[test]
    fn a_partition_remembers_its_last_64_claims_newest_last() {
        let mut s = State::default();
        for i in 0..100u8 {
            s.remember(entry(i, u64::from(i)));
        }
        assert_eq!(s.recent.len(), REMEMBERED);
        assert_eq!(s.recent.front().unwrap().offset, 36);
        assert_eq!(s.recent.back().unwrap().offset, 99);
        assert!(s.find(&[35; 16], &[36; 32]).is_none(), "forgotten");
        assert_eq!(s.find(&[36; 16], &[37; 32]).unwrap().offset, 36);
        // The same id from another principal is another claim.
        assert!(s.find(&[36; 16], &[0; 32]).is_none());
    }

    #[test]
    fn a_full_value_has_the_documented_size() {
        let mut s = State {
            position: 7,
            ..State::default()
        };
        for i in 0..64 {
            s.remember(entry(i, u64::from(i)));
        }
        assert_eq!(s.encode().len(), 8 + 2 + 64 * (16 + 32 + 8));
    }

    #[test]
    fn bad_values_and_keys_are_refused() {
        let good = State {
            position: 3,
            recent: [entry(1, 2)].into(),
        }
        .encode();
        assert!(State::decode(&good).is_some());
        assert!(State::decode(&good[..good.len() - 1]).is_none());
        let mut longer = good.clone();
        longer.push(0);
        assert!(State::decode(&longer).is_none());
        // 65 entries claimed: more than a partition remembers.
        let mut many = 3u64.to_be_bytes().to_vec();
        many.extend_from_slice(&65u16.to_be_bytes());
        many.resize(many.len() + 65 * ENTRY_LEN, 0);
        assert!(State::decode(&many).is_none());
        let k = encode_key("jobs", 7);
        assert_eq!(decode_key(&k), Some(("jobs".into(), 7)));
        assert_eq!(decode_key(&k[..k.len() - 1]), None);
    }

    proptest! {
        #[test]
        fn values_round_trip(
            position in any::<u64>(),
            entries in proptest::collection::vec(
                (any::<[u8; 16]>(), any::<[u8; 32]>(), any::<u64>()), 0..=64),
        ) {
            let recent = entries
                .into_iter()
                .map(|(id, principal, offset)| Remembered { id, principal, offset, recorded: 0 })
                .collect();
            let s = State { position, recent };
            prop_assert_eq!(State::decode(&s.encode()), Some(s));
        }

        #[test]
        fn keys_round_trip(topic in "[A-Za-z0-9._-]{1,249}", partition in any::<u32>()) {
            prop_assert_eq!(decode_key(&encode_key(&topic, partition)), Some((topic, partition)));
        }
    }
}
