//! The three-user conversation of tests/mls.rs through `hermit` processes
//! over the NATS transport: a 3-node nats-server cluster that fsyncs every
//! write (`jetstream { sync_interval: always }`, the client tests' helper),
//! where offsets jump by 65,536 per message and Commits are appended at
//! `Client::end_after` of the last record read.

use std::time::{Duration, Instant};

use hermit_e2e_tests::mls::three_users_talk;
use hermit_e2e_tests::run_hermit;

#[allow(dead_code)]
#[path = "../../client/tests/support/nats.rs"]
mod nats;

#[test]
fn three_users_talk_in_one_group_over_a_nats_cluster() {
    // Built first: the cluster's 30 s to come up are not for cargo.
    hermit_e2e_tests::hermit_bin();
    let dir = tempfile::tempdir().unwrap();
    let cluster = nats::NatsCluster::start_syncing_every_write(dir.path(), 3);
    cluster.assert_sync_always();
    // Every server fsyncs every write: durable acks are honest.
    let url = cluster.url("?servers_sync_every_write=true");
    // JetStream answers once every node knows the meta leader (a request
    // before that waits out the client's 30 s timeout).
    let started = Instant::now();
    while !cluster
        .nodes
        .iter()
        .all(|n| n.log().contains("metadata leader"))
    {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "no meta leader: {}",
            cluster.logs()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    loop {
        let out = run_hermit(&["topics", "list", "--broker", &url], b"", &[]);
        if out.status.success() {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(90),
            "the cluster never answered: {}\n{}",
            String::from_utf8_lossy(&out.stderr),
            cluster.logs()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    three_users_talk(dir.path(), &url);
}
