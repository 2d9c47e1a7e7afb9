//! A partition's claim state over NATS, and who a claimer is.
//!
//! Over NATS no broker keeps the claim position: every claimer reads the
//! partition's claim state — one message on `hermit-offsets.claim.<topic>.<partition>`
//! in the offsets stream (`max_msgs_per_subject = 1`: the newest is the
//! state) — and writes the next one with `Nats-Expected-Last-Subject-Sequence`
//! set to the sequence of the state it read, so that of two claimers who
//! read one state, only one writes its successor (see `claim`).
//!
//! The payload (all integers big-endian):
//!
//! ```text
//! "HMQC" u8 version (1)
//! position u64           the next claim hands out the first batch at or after it
//! n u8 (0..=64)          the last n claims, oldest first, each:
//!   claim_id [16]  offset u64  claimer_len u8  claimer (UTF-8)
//! ```
//!
//! A state that does not decode exactly is refused (`CorruptData`), never
//! guessed at: every client that may claim may also write this subject.

use std::collections::VecDeque;

use bytes::{BufMut, Bytes, BytesMut};
use hermit_protocol::frame::CLAIM_ID_LEN;
use sha2::{Digest, Sha256};
use zeroize::Zeroizing;

use super::names::encode_b64;
use crate::error::ClientError;
use crate::transport::endpoint::NatsCredentials;

/// Claims remembered per partition: a retry with one of their ids gets
/// the same batch again (the broker's number).
pub(crate) const REMEMBERED: usize = 64;

/// Longest claimer id (one length byte).
pub(crate) const MAX_CLAIMER: usize = u8::MAX as usize;

const MAGIC: &[u8; 4] = b"HMQC";
const VERSION: u8 = 1;

/// One remembered claim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Remembered {
    pub id: [u8; CLAIM_ID_LEN],
    /// Offset of the first record of the batch it was given.
    pub offset: u64,
    /// Who claimed it ([`claimer_of`]).
    pub claimer: String,
}

/// The claim position of a partition and its last claims.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ClaimState {
    /// The next claim hands out the first batch at or after this offset.
    pub position: u64,
    /// The last [`REMEMBERED`] claims, oldest first.
    pub recent: VecDeque<Remembered>,
}

impl ClaimState {
    /// The offset of the batch `claimer` was given under `id`, if remembered.
    pub(crate) fn remembered(&self, id: &[u8; CLAIM_ID_LEN], claimer: &str) -> Option<u64> {
        self.recent
            .iter()
            .find(|r| &r.id == id && r.claimer == claimer)
            .map(|r| r.offset)
    }

    /// The state after `claimer` took the batch at `offset` under `id`;
    /// the position moves to `next`, the offset after that batch.
    pub(crate) fn after_claim(
        &self,
        id: [u8; CLAIM_ID_LEN],
        claimer: &str,
        offset: u64,
        next: u64,
    ) -> ClaimState {
        let mut recent = self.recent.clone();
        if recent.len() == REMEMBERED {
            recent.pop_front();
        }
        recent.push_back(Remembered {
            id,
            offset,
            claimer: claimer.to_owned(),
        });
        ClaimState {
            position: next,
            recent,
        }
    }

    /// The message payload.
    pub(crate) fn encode(&self) -> Bytes {
        let mut out = BytesMut::with_capacity(14 + self.recent.len() * 40);
        out.put_slice(MAGIC);
        out.put_u8(VERSION);
        out.put_u64(self.position);
        // At most REMEMBERED (64) entries and MAX_CLAIMER bytes each: both
        // fit their length bytes (`after_claim` and `claimer_of` keep them so).
        out.put_u8(self.recent.len().min(REMEMBERED) as u8);
        for r in self.recent.iter().take(REMEMBERED) {
            out.put_slice(&r.id);
            out.put_u64(r.offset);
            let claimer = &r.claimer.as_bytes()[..r.claimer.len().min(MAX_CLAIMER)];
            out.put_u8(claimer.len() as u8);
            out.put_slice(claimer);
        }
        out.freeze()
    }

    /// Inverse of [`ClaimState::encode`]; `None` for anything else.
    pub(crate) fn decode(payload: &[u8]) -> Option<ClaimState> {
        let mut r = payload;
        let mut take = |n: usize| -> Option<&[u8]> {
            let (head, rest) = r.split_at_checked(n)?;
            r = rest;
            Some(head)
        };
        if take(4)? != MAGIC || take(1)?[0] != VERSION {
            return None;
        }
        let position = u64::from_be_bytes(take(8)?.try_into().ok()?);
        let n = usize::from(take(1)?[0]);
        if n > REMEMBERED {
            return None;
        }
        let mut recent = VecDeque::with_capacity(n);
        for _ in 0..n {
            let id: [u8; CLAIM_ID_LEN] = take(CLAIM_ID_LEN)?.try_into().ok()?;
            let offset = u64::from_be_bytes(take(8)?.try_into().ok()?);
            let len = usize::from(take(1)?[0]);
            let claimer = std::str::from_utf8(take(len)?).ok()?.to_owned();
            recent.push_back(Remembered {
                id,
                offset,
                claimer,
            });
        }
        r.is_empty().then_some(ClaimState { position, recent })
    }
}

/// The claimer id of a client: a stable name of the NATS identity its
/// credentials give it, or `""` when they give none.
///
/// - an nkey seed or a `.creds` file: `nkey:<public key>` (`U…`, what the
///   server authenticates: it checks a signature of its nonce);
/// - a user and password: `user:<name>` (`user-sha256:<base64url>` when
///   longer than [`MAX_CLAIMER`] allows);
/// - a token, or nothing: `""` — a token is a shared secret, not a name,
///   and must not be written where others read.
///
/// The server authenticates the connection, not what it writes: the
/// claimer id in a claim state is this client's word (docs/SCALE-OUT.md).
pub(crate) fn claimer_of(credentials: Option<&NatsCredentials>) -> Result<String, ClientError> {
    let nkey = |seed: &str| -> Result<String, ClientError> {
        let pair = nkeys::KeyPair::from_seed(seed.trim()).map_err(|e| {
            ClientError::InvalidArgument(format!("the NATS nkey seed is unusable: {e}"))
        })?;
        Ok(format!("nkey:{}", pair.public_key()))
    };
    match credentials {
        None | Some(NatsCredentials::Token(_)) => Ok(String::new()),
        Some(NatsCredentials::UserPassword { user, .. }) => {
            let id = format!("user:{user}");
            Ok(if id.len() <= MAX_CLAIMER {
                id
            } else {
                format!(
                    "user-sha256:{}",
                    encode_b64(&Sha256::digest(user.as_bytes()))
                )
            })
        }
        Some(NatsCredentials::NKeySeed(seed)) => nkey(seed),
        Some(NatsCredentials::CredsFile(path)) => {
            let text = Zeroizing::new(std::fs::read_to_string(path).map_err(|e| {
                ClientError::InvalidArgument(format!(
                    "cannot read the NATS creds file {}: {e}",
                    path.display()
                ))
            })?);
            // The seed is the line after `-----BEGIN USER NKEY SEED-----`.
            let seed = text
                .lines()
                .skip_while(|l| !l.contains("BEGIN USER NKEY SEED"))
                .nth(1)
                .ok_or_else(|| {
                    ClientError::InvalidArgument(format!(
                        "the NATS creds file {} holds no user nkey seed",
                        path.display()
                    ))
                })?;
            nkey(seed)
        }
    }
}

/// Whether `Nats-Expected-Last-Subject-Sequence` is a sound compare-and-set
/// on a stream of `replicas` served by nats-server `version`.
///
/// On one replica the server checks it under the stream's lock. On a
/// replicated stream, before 2.9.21 only the leader checked it, before
/// proposing, so two concurrent writers expecting the same sequence could
/// both be stored (nats-server#4320); 2.9.21 to 2.10 check it again as each
/// replica applies the write, with a known divergence when the expected
/// sequence is 0 (nats-server#5644); from 2.11 the leader refuses a write
/// to a subject whose previous conditional write is still in flight
/// (nats-server#6194), which is the guarantee claims rely on.
pub(crate) fn subject_cas_is_sound(version: &str, replicas: usize) -> bool {
    if replicas <= 1 {
        return true;
    }
    let mut parts = version
        .trim_start_matches('v')
        .split(|c: char| !c.is_ascii_digit())
        .map(|p| p.parse::<u64>().unwrap_or(0));
    let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    (major, minor) >= (2, 11)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_claim_is_remembered_for_its_claimer_only() {
        let s = ClaimState::default().after_claim([1; 16], "user:a", 131_071, 131_072);
        assert_eq!(s.position, 131_072);
        assert_eq!(s.remembered(&[1; 16], "user:a"), Some(131_071));
        assert_eq!(s.remembered(&[1; 16], "user:b"), None);
        assert_eq!(s.remembered(&[2; 16], "user:a"), None);
        assert_eq!(ClaimState::decode(&s.encode()), Some(s));
    }

    #[test]
    fn the_last_64_claims_are_remembered() {
        let mut s = ClaimState::default();
        for i in 0..100u8 {
            s = s.after_claim([i; 16], "", u64::from(i), u64::from(i) + 1);
        }
        assert_eq!(s.recent.len(), REMEMBERED);
        assert_eq!(s.remembered(&[35; 16], ""), None);
        assert_eq!(s.remembered(&[36; 16], ""), Some(36));
        assert_eq!(s.remembered(&[99; 16], ""), Some(99));
        assert_eq!(ClaimState::decode(&s.encode()), Some(s));
    }

    #[test]
    fn anything_else_is_refused() {
        let good = ClaimState::default()
            .after_claim([7; 16], "nkey:UABC", 5, 6)
            .encode();
        for n in 0..good.len() {
            assert_eq!(ClaimState::decode(&good[..n]), None, "cut at {n}");
        }
        let mut longer = good.to_vec();
        longer.push(0);
        assert_eq!(ClaimState::decode(&longer), None);
        let mut other = good.to_vec();
        other[4] = 2;
        assert_eq!(ClaimState::decode(&other), None, "another version");
        let mut many = ClaimState::default().encode().to_vec();
        many[13] = 65;
        assert_eq!(ClaimState::decode(&many), None, "more than 64 entries");
        assert_eq!(ClaimState::decode(&[0; 8]), None, "a committed offset");
    }

    #[test]
    fn claimers_are_named_by_their_credentials() {
        assert_eq!(claimer_of(None).unwrap(), "");
        assert_eq!(
            claimer_of(Some(&NatsCredentials::token("secret"))).unwrap(),
            ""
        );
        assert_eq!(
            claimer_of(Some(&NatsCredentials::user_password("alice", "pw"))).unwrap(),
            "user:alice"
        );
        let long =
            claimer_of(Some(&NatsCredentials::user_password("x".repeat(300), "pw"))).unwrap();
        assert!(long.starts_with("user-sha256:") && long.len() <= MAX_CLAIMER);
        let pair = nkeys::KeyPair::new_user();
        let seed = pair.seed().unwrap();
        let want = format!("nkey:{}", pair.public_key());
        assert_eq!(
            claimer_of(Some(&NatsCredentials::nkey_seed(seed.clone()))).unwrap(),
            want
        );
        let dir = tempfile::tempdir().unwrap();
        let creds = dir.path().join("u.creds");
        std::fs::write(
            &creds,
            format!(
                "-----BEGIN NATS USER JWT-----\neyJ0eXAiOiJKV1QifQ.e30.sig\n------END NATS USER JWT------\n\n\
                 -----BEGIN USER NKEY SEED-----\n{seed}\n------END USER NKEY SEED------\n"
            ),
        )
        .unwrap();
        assert_eq!(
            claimer_of(Some(&NatsCredentials::creds_file(&creds))).unwrap(),
            want
        );
    }

    #[test]
    fn subject_cas_needs_2_11_on_a_replicated_stream() {
        assert!(subject_cas_is_sound("2.9.10", 1));
        assert!(!subject_cas_is_sound("2.9.10", 3));
        assert!(!subject_cas_is_sound("2.10.29", 3));
        assert!(subject_cas_is_sound("2.11.0", 3));
        assert!(subject_cas_is_sound("2.15.1", 3));
        assert!(subject_cas_is_sound("v3.0.0-beta", 3));
        assert!(!subject_cas_is_sound("", 3));
    }

    proptest! {
        #[test]
        fn states_round_trip(
            position in any::<u64>(),
            claims in proptest::collection::vec(
                (any::<[u8; 16]>(), any::<u64>(), "\\PC{0,40}"), 0..80),
        ) {
            let mut s = ClaimState { position, recent: VecDeque::new() };
            for (id, offset, claimer) in &claims {
                s = s.after_claim(*id, claimer, *offset, position);
            }
            prop_assert!(s.recent.len() <= REMEMBERED);
            prop_assert_eq!(ClaimState::decode(&s.encode()), Some(s));
        }

        #[test]
        fn hostile_payloads_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
            let _ = ClaimState::decode(&bytes);
        }
    }
}
