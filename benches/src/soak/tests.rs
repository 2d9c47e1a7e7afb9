use super::good::make_batch;
use super::*;

#[test]
fn durations_parse_with_their_units() {
    assert_eq!(parse_duration("10m"), Ok(Duration::from_secs(600)));
    assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
    assert_eq!(parse_duration("45"), Ok(Duration::from_secs(45)));
    assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
    assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
    assert!(parse_duration("10 parsecs").is_err());
    assert!(parse_duration("m").is_err());
    assert!(parse_duration("99999999999999999999h").is_err());
}

#[test]
fn batches_hold_distinct_records_of_the_announced_sizes() {
    let mut rng = Rng::new(1);
    let (batch, values) = make_batch(7, 3, &mut rng).unwrap();
    assert!((1..=4).contains(&values.len()));
    let (view, len) = hermit_protocol::record::BatchView::parse(&batch).unwrap();
    assert_eq!(len, batch.len());
    view.verify_crc().unwrap();
    let back: Vec<&[u8]> = view.records().map(|r| r.unwrap()).collect();
    assert_eq!(back, values.iter().map(Vec::as_slice).collect::<Vec<_>>());
    for (i, v) in values.iter().enumerate() {
        assert!((16..=200).contains(&v.len()));
        assert_eq!(
            &v[..14],
            [
                &7u32.to_be_bytes()[..],
                &3u64.to_be_bytes(),
                &(i as u16).to_be_bytes()
            ]
            .concat()
        );
    }
}

#[test]
fn the_default_limits_leave_room_for_bursts_but_not_the_storm() {
    let args = SoakArgs {
        target: TargetArgs {
            broker: None,
            broker_pid: None,
            embedded: false,
            fsync: "always".into(),
            data_parent: None,
            runs: 1,
            json: false,
            identity: None,
            auth: false,
            tls: false,
            ca: None,
        },
        duration: Duration::from_secs(600),
        connections: 10_000,
        topics: 1_000,
        hostile: 64,
        interval: Duration::from_secs(2),
        window: Duration::from_secs(10),
        burst: 500,
        burst_every: Duration::from_secs(30),
        fd_burst: 2_000,
        fresh: 100,
        open_files: 768,
        max_connections: None,
        nofile: None,
        rss_bound_mib: None,
        out_dir: "x".into(),
        font: None,
    };
    let m = args.max_connections();
    assert_eq!(m, 10_128);
    let headroom = args.broker_nofile() - broker_need(m, args.open_files);
    assert!(args.burst <= headroom && args.fd_burst > headroom + 64);
    assert_eq!(
        args.storm_window(),
        Some((Duration::from_secs(240), Duration::from_secs(30)))
    );
}

#[test]
fn the_rss_bound_adds_up_the_budgets() {
    assert_eq!(
        rss_bound(10 << 20, 100, 256 << 20),
        (10 << 20) + 100 * CONNECTION_BYTES + (256 << 20) + RSS_SLACK_BYTES
    );
}

#[test]
fn the_generator_is_deterministic_and_spreads() {
    let (mut a, mut b) = (Rng::new(0), Rng::new(0));
    assert_eq!(a.next(), b.next());
    let mut seen = [0u32; 4];
    for _ in 0..4000 {
        seen[a.below(4) as usize] += 1;
        let u = a.unit();
        assert!((0.0..1.0).contains(&u));
    }
    assert!(seen.iter().all(|&n| n > 800), "{seen:?}");
}
