//! MLS conversations over NATS JetStream (a real three-node `nats-server`
//! cluster that syncs every write, so durable acks mean on disk): invite,
//! join, talk, and members committing at once — where offsets jump by
//! 65,536 per message and a Commit's expected end is the next message's
//! first offset (`Client::end_after`, docs/SCALE-OUT.md §4.2).

mod support;

use hermit_client::ClientOptions;
use hermit_client::mls::{CommitOutcome, Event};
use support::mls::*;
use support::nats::{NatsCluster, nats_client};

/// Rounds of simultaneous commits.
const ROUNDS: usize = 10;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_conversation_runs_over_a_jetstream_cluster() {
    let dir = tempfile::tempdir().unwrap();
    let cluster = NatsCluster::start_syncing_every_write(dir.path(), 3);
    let url = cluster.url("?servers_sync_every_write=true");
    // The server is up once a client connects.
    drop(
        nats_client(
            &url,
            ClientOptions {
                request_timeout: std::time::Duration::from_secs(3),
                ..ClientOptions::default()
            },
        )
        .await,
    );
    let alice = account_device_at(&url, dir.path(), "alice", 2).await;
    let bob = account_device_at(&url, dir.path(), "bob", 2).await;
    let mut a = alice.create_conversation().await.expect("create");
    a.invite(bob.account().fingerprint()).await.expect("invite");
    assert_eq!(
        bob.accept_welcomes().await.expect("welcomes"),
        vec![a.topic().to_owned()]
    );
    let mut b = bob.conversation(a.topic()).expect("open");
    a.send_text("over jetstream").await.expect("send");
    let seen = receive_until(&mut b, |e| matches!(e, Event::Message { .. })).await;
    assert_eq!(texts(&seen), vec!["over jetstream"]);

    let mut convs = vec![a, b];
    for round in 0..ROUNDS {
        let tasks: Vec<_> = convs
            .into_iter()
            .map(|mut c| {
                tokio::spawn(async move {
                    let outcome = c.update().await.expect("update");
                    (c, outcome)
                })
            })
            .collect();
        let mut next = Vec::new();
        for t in tasks {
            let (c, outcome) = t.await.expect("task");
            assert!(
                matches!(outcome, CommitOutcome::Committed { .. }),
                "{outcome:?}"
            );
            next.push(c);
        }
        convs = next;
        drain(&mut convs).await;
        assert_agree(&convs, &format!("round {round}"));
    }
    convs[1].send_text("still together").await.expect("send");
    let seen = receive_until(&mut convs[0], |e| matches!(e, Event::Message { .. })).await;
    assert_eq!(texts(&seen), vec!["still together"]);
}
