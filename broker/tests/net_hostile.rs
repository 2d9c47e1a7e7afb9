//! Hostile clients against a real broker on a real socket (issue 31): what
//! a client that reconnects, never authenticates or names what it may not
//! create can make the broker keep.

mod netcommon;

use std::time::Duration;

use hermit_broker::net::Metrics;
use hermit_protocol::Status;
use netcommon::*;

/// Issue 31 item 3: a long poll parked on a connection goes with it. Fifty
/// clients each park a fetch (60 s wait) and hang up: no waiter is left
/// watching the partition and the gauge reads nothing parked. (Before, each
/// waiter lived until its deadline: reconnecting escaped
/// `max_parked_fetches`, and the gauge read 0 meanwhile.)
#[tokio::test]
async fn a_parked_fetch_goes_with_its_connection() {
    let dir = scratch_dir();
    let broker = start(dir.path(), |_| {}).await;
    let mut admin = Raw::connect(broker.addr()).await;
    assert_eq!(admin.call(&create_req("polls", 1)).await.status, Status::Ok);
    let part = broker.log().partition("polls", 0, false).unwrap();
    for _ in 0..50 {
        let mut c = Raw::connect(broker.addr()).await;
        c.send(&fetch_req("polls", 0, 0, 1 << 20, 60_000)).await;
        // The fetch is parked once a waiter watches the partition.
        eventually(Duration::from_secs(5), || part.watchers() >= 1).await;
        drop(c);
    }
    eventually(Duration::from_secs(5), || part.watchers() == 0).await;
    eventually(Duration::from_secs(5), || {
        Metrics::get(&broker.metrics().fetches_parked) == 0
    })
    .await;
}
