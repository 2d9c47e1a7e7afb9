//! Conditional produce under contention, for every transport: `clients`
//! (one connection each) race to append at the same expected end, round
//! after round.

use std::collections::HashSet;
use std::time::Duration;

use bytes::Bytes;
use hermit_client::{Ack, Client, Conditional};
use hermit_protocol::BatchBuilder;

/// `rounds` rounds on `topic/0`: each client tries to append the record
/// `round,client` at the end all of them expect. Checks that exactly one
/// wins each round, that every loser learns the new end, and that the log
/// then holds one record per round, in order — no gap, no duplicate, each
/// the round's winner's. Offsets as the broker gives them: the end after
/// `n` records is `n`.
pub async fn race_to_the_end(clients: &[Client], topic: &str, rounds: u64, ack: Ack) {
    race_to_the_end_of(clients, topic, rounds, ack, |n| n).await
}

/// [`race_to_the_end`] on a transport that numbers records its own way:
/// `end_after(n)` is the end a one-record batch expects after `n`
/// one-record batches — the offset its record gets — so round `r` expects
/// `end_after(r)`, its losers learn `end_after(r + 1)`, and the log ends
/// (its high watermark) right after the last record, at
/// `end_after(rounds - 1) + 1`.
pub async fn race_to_the_end_of(
    clients: &[Client],
    topic: &str,
    rounds: u64,
    ack: Ack,
    end_after: impl Fn(u64) -> u64,
) {
    let mut winners = Vec::with_capacity(rounds as usize);
    for round in 0..rounds {
        let expected = end_after(round);
        let mut attempts = tokio::task::JoinSet::new();
        for (i, c) in clients.iter().enumerate() {
            let mut b = BatchBuilder::new(b"");
            b.push(format!("{round},{i}").as_bytes());
            let batch = b.finish(1).unwrap();
            let (c, topic) = (c.clone(), topic.to_owned());
            attempts.spawn(async move {
                let outcome = c
                    .conditional_produce(&topic, 0, expected, ack, &batch)
                    .await;
                (
                    i,
                    outcome.unwrap_or_else(|e| panic!("round {round}, client {i}: {e}")),
                )
            });
        }
        let outcomes = attempts.join_all().await;
        let mut won = None;
        for (i, outcome) in outcomes {
            match outcome {
                Conditional::Appended { base_offset } => {
                    assert_eq!(base_offset, expected, "round {round}: appended elsewhere");
                    assert!(
                        won.is_none(),
                        "round {round}: two winners ({won:?} and {i})"
                    );
                    won = Some(i);
                }
                Conditional::EndMoved { end } => {
                    assert_eq!(
                        end,
                        end_after(round + 1),
                        "round {round}: client {i} was told a wrong end"
                    )
                }
            }
        }
        winners.push(won.unwrap_or_else(|| panic!("round {round}: nobody won")));
    }
    // The log: one record per round, the winner's, at end_after(round).
    let reader = &clients[0];
    let mut round = 0;
    let mut seen = HashSet::new();
    while round < rounds {
        let at = end_after(round);
        let r = reader
            .fetch(topic, 0, at, 1 << 20, Duration::from_secs(5))
            .await
            .unwrap();
        for record in r.records_from(at) {
            let record = record.unwrap();
            assert_eq!(record.offset, end_after(round), "a gap in the log");
            let expected = format!("{round},{}", winners[round as usize]);
            assert_eq!(record.value, Bytes::from(expected), "round {round}");
            assert!(
                seen.insert(record.value.to_vec()),
                "a duplicate in round {round}"
            );
            round += 1;
            if round == rounds {
                break;
            }
        }
    }
    let end = end_after(rounds - 1) + 1;
    let after = reader
        .fetch(topic, 0, end, 1 << 20, Duration::from_millis(50))
        .await
        .unwrap();
    assert_eq!(after.high_watermark, end, "more records than rounds");
}
