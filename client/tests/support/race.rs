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
/// the round's winner's.
pub async fn race_to_the_end(clients: &[Client], topic: &str, rounds: u64, ack: Ack) {
    let mut winners = Vec::with_capacity(rounds as usize);
    for round in 0..rounds {
        let mut attempts = tokio::task::JoinSet::new();
        for (i, c) in clients.iter().enumerate() {
            let mut b = BatchBuilder::new(b"");
            b.push(format!("{round},{i}").as_bytes());
            let batch = b.finish(1).unwrap();
            let (c, topic) = (c.clone(), topic.to_owned());
            attempts.spawn(async move {
                let outcome = c.conditional_produce(&topic, 0, round, ack, &batch).await;
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
                    assert_eq!(base_offset, round, "round {round}: appended elsewhere");
                    assert!(
                        won.is_none(),
                        "round {round}: two winners ({won:?} and {i})"
                    );
                    won = Some(i);
                }
                Conditional::EndMoved { end } => {
                    assert_eq!(
                        end,
                        round + 1,
                        "round {round}: client {i} was told a wrong end"
                    )
                }
            }
        }
        winners.push(won.unwrap_or_else(|| panic!("round {round}: nobody won")));
    }
    // The log: one record per round, the winner's, offsets 0..rounds.
    let reader = &clients[0];
    let mut next = 0;
    let mut seen: HashSet<Vec<u8>> = HashSet::new();
    while next < rounds {
        let r = reader
            .fetch(topic, 0, next, 1 << 20, Duration::from_secs(5))
            .await
            .unwrap();
        for record in r.records_from(next) {
            let record = record.unwrap();
            assert_eq!(record.offset, next, "a gap in the log");
            let expected = format!("{next},{}", winners[next as usize]);
            assert_eq!(record.value, Bytes::from(expected), "offset {next}");
            assert!(seen.insert(record.value.to_vec()), "a duplicate at {next}");
            next += 1;
        }
    }
    let end = reader
        .fetch(topic, 0, rounds, 1 << 20, Duration::from_millis(50))
        .await
        .unwrap();
    assert_eq!(end.high_watermark, rounds, "more records than rounds");
}
