//! Simulated power loss (`tests/sim/`): seeds drive the storage engine over
//! a file system that forgets, tears or keeps every write and directory
//! entry no fsync covered, and check that nothing acknowledged is lost and
//! nothing corrupt is served.
//!
//! `HERMITMQ_SIM_SEEDS=N` (default 1,000) and `HERMITMQ_SIM_FIRST_SEED=S`
//! choose the seeds; a failing seed is printed and replays exactly.

mod common;
mod sim;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use hermit_broker::config::FsyncPolicy;
use hermit_broker::engine::Engine;
use hermit_broker::log::io::Io;
use hermit_broker::log::{Log, LogOptions};
use sim::fs::{Lies, SimFs};
use sim::harness::{Outcome, run_seed};
use sim::rng::Rng;

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Run `seeds` on two threads; the failures, in seed order.
fn run_many(first: u64, seeds: u64, lies: Lies) -> (Vec<String>, Vec<Outcome>) {
    let scratch = common::scratch_dir();
    let next = AtomicU64::new(first);
    let failures = Mutex::new(Vec::new());
    let outcomes = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                loop {
                    let seed = next.fetch_add(1, Ordering::Relaxed);
                    if seed >= first + seeds {
                        return;
                    }
                    if seed > first && (seed - first).is_multiple_of(10_000) {
                        eprintln!("… seed {seed}");
                    }
                    match run_seed(scratch.path(), seed, lies) {
                        Ok(o) => outcomes.lock().unwrap().push((seed, o)),
                        Err(e) => failures.lock().unwrap().push((seed, e)),
                    }
                }
            });
        }
    });
    let mut f = failures.into_inner().unwrap();
    f.sort();
    let mut o = outcomes.into_inner().unwrap();
    o.sort_by_key(|(s, _)| *s);
    (
        f.into_iter().map(|(_, e)| e).collect(),
        o.into_iter().map(|(_, o)| o).collect(),
    )
}

#[test]
fn power_losses_lose_no_acknowledged_record_and_serve_nothing_corrupt() {
    let first = env_u64("HERMITMQ_SIM_FIRST_SEED", 0);
    let seeds = env_u64("HERMITMQ_SIM_SEEDS", 1_000);
    let started = std::time::Instant::now();
    let (failures, outcomes) = run_many(first, seeds, Lies::default());
    let crashes: u64 = outcomes.iter().map(|o| u64::from(o.crashes)).sum();
    let acked: u64 = outcomes.iter().map(|o| o.acked).sum();
    let syncfs: u64 = outcomes.iter().map(|o| o.syncfs).sum();
    eprintln!(
        "{seeds} seeds from {first}: {crashes} power losses, {acked} batches acknowledged, \
         {syncfs} rounds by syncfs, {} failed, {:.1} s",
        failures.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(
        failures.is_empty(),
        "{} seeds failed; the first ones:\n{}",
        failures.len(),
        failures[..failures.len().min(10)].join("\n")
    );
    assert!(crashes >= seeds, "every seed loses power at least once");
    assert!(
        acked > seeds * 5,
        "the workload acknowledges records ({acked})"
    );
}

/// A data directory under `scratch` behind a simulated file system, and
/// options for a log on it with manual rounds under `fsync = always`.
fn simulated(scratch: &Path) -> (PathBuf, Arc<SimFs>, LogOptions) {
    let dir = scratch.join("data");
    std::fs::create_dir_all(&dir).unwrap();
    let sim = SimFs::new(&dir, Lies::default());
    let opts = LogOptions {
        fsync: FsyncPolicy::Always,
        manual_sync: true,
        io: Io::new(sim.clone()),
        ..LogOptions::default()
    };
    (dir, sim, opts)
}

/// The power goes now, with `running` (a log or an engine) still open, and
/// nothing that no fsync covered survives.
fn pull_the_plug<T>(sim: &SimFs, running: T) {
    sim.cut_now();
    drop(running);
    sim.power_loss_keeping(&mut Rng::new(0), 0).unwrap();
}

/// Seeds that found bugs. A seed names a workload only as this harness
/// draws it: when the harness changes, find them again by breaking the fix
/// (each of these failed with it broken when they were listed).
#[test]
fn seeds_that_found_bugs_stay_fixed() {
    let scratch = common::scratch_dir();
    for (seeds, bug) in [
        // A deleted topic's slots were handed out again when its writes
        // were lost (the slab ended before them); the next start released
        // them again, punching the new topic's acknowledged records out.
        // Found as seed 375 of the first workload; direct test in
        // storage_slots.rs.
        (&[71, 397, 769][..], "deleted topic's slots reused"),
        // See the next test: 68 of the 1,000 seeds fail without its fix.
        (
            &[5, 23, 36, 38, 44][..],
            "new directory entries never fsynced",
        ),
        // From the 100,000-seed run; direct tests below.
        (&[1062][..], "records durable by a roll before their topic"),
        (&[59953][..], "offsets of a deleted topic inherited"),
    ] {
        for &seed in seeds {
            if let Err(e) = run_seed(scratch.path(), seed, Lies::default()) {
                panic!("{bug}: {e}");
            }
        }
    }
}

/// Found as seeds 195 and 567 of the first workload: a partition directory
/// or segment file an open created waited for the partition's first sync
/// to fsync its directory entry; closed idle by the cache before that (an
/// open for a read or an offset commit, say), the partition forgot, and the
/// records acknowledged after its next open lived in a directory or file
/// whose entry a power loss could drop.
#[test]
fn a_partition_closed_idle_before_its_first_round_still_syncs_its_new_entries() {
    let scratch = common::scratch_dir();
    let (dir, sim, base) = simulated(scratch.path());
    let opts = LogOptions {
        partition_slots: false,
        open_files: 2,
        ..base
    };
    let log = Log::open(&dir, opts).unwrap();
    // Its directory and first segment are created, and nothing written.
    drop(log.partition("first", 0, true).unwrap());
    // Opening more than `open_files` closes idle partitions.
    for i in 0..3 {
        drop(log.partition(&format!("other.{i}"), 0, true).unwrap());
    }
    log.sync_round();
    for i in 3..6 {
        drop(log.partition(&format!("other.{i}"), 0, true).unwrap());
    }
    log.sync_round();
    let p = log.partition("first", 0, true).unwrap();
    let sent = common::batch(b"k", 2, 40, 1);
    let a = p.append(&sent).unwrap();
    log.sync_round();
    assert!(p.synced_offset() >= a.next_offset, "acknowledged");
    drop(p);
    sim.cut_now();
    drop(log);
    // Nothing that no fsync covered survives.
    sim.power_loss_keeping(&mut Rng::new(0), 0).unwrap();
    let log = common::open(&dir, common::opts(1 << 20));
    let p = log.partition("first", 0, false).unwrap();
    let got = common::read_all(&p, 0).unwrap();
    assert_eq!(got.len(), 1, "the acknowledged batch survives");
    assert_eq!(common::unstamped(&got[0].1), sent);
}

/// Found as seed 1062 of the 100,000-seed run: a roll, or a move out of a
/// slot, makes the records before it durable and visible at once, without
/// a round — and so without the round's first step, syncing the catalog.
/// A topic created on first use (its entry deferred until a round) could
/// have records acknowledged while its creation was not durable; after a
/// power loss the topic, and they, were gone.
#[test]
fn records_made_durable_by_a_roll_or_a_move_out_have_a_durable_topic() {
    for slots in [true, false] {
        let scratch = common::scratch_dir();
        let (dir, sim, base) = simulated(scratch.path());
        let opts = LogOptions {
            partition_slots: slots,
            ..base
        };
        let log = Log::open(&dir, opts).unwrap();
        let p = log.partition("new", 0, true).unwrap();
        let sent = common::batch(b"k", 2, 40, 1);
        let a = p.append(&sent).unwrap();
        // A roll (in a slot: the move out) before any round.
        p.force_roll().unwrap();
        assert!(
            p.synced_offset() >= a.next_offset,
            "durable, so acknowledged"
        );
        drop(p);
        pull_the_plug(&sim, log);
        let log = common::open(&dir, common::opts(1 << 20));
        assert!(
            log.topic("new").is_some(),
            "slots {slots}: the topic survives"
        );
        let p = log.partition("new", 0, false).unwrap();
        let got = common::read_all(&p, 0).unwrap();
        assert_eq!(
            got.len(),
            1,
            "slots {slots}: the acknowledged batch survives"
        );
    }
}

/// Found as seed 59953 of the 100,000-seed run: deleting a topic wrote
/// tombstones for its group offsets and returned before they were durable;
/// the name was created again, a power loss dropped the tombstones, and
/// the new topic inherited the old one's committed offset.
#[test]
fn a_topic_created_again_after_a_power_loss_inherits_no_offsets() {
    let scratch = common::scratch_dir();
    let (dir, sim, base) = simulated(scratch.path());
    let engine = Engine::open(&dir, base).unwrap();
    let p = engine.log().partition("t", 0, true).unwrap();
    p.append(&common::batch(b"k", 5, 10, 1)).unwrap();
    engine.log().sync_round();
    let a = engine.commit("g", "t", 0, 4).unwrap();
    engine.log().sync_round();
    assert!(engine.offsets_partition().synced_offset() >= a.next_offset);
    drop(p);
    engine.delete_topic("t").unwrap();
    // Created again (durable at once), and the power goes before a round.
    let settings = hermit_protocol::frame::TopicSettings {
        partitions: 1,
        cleanup: hermit_protocol::Cleanup::Delete,
        retention_ms: 0,
        retention_bytes: 0,
    };
    engine.log().create_topic("t", settings).unwrap();
    pull_the_plug(&sim, engine);
    let engine = Engine::open(&dir, common::opts(1 << 20)).unwrap();
    assert!(engine.log().topic("t").is_some(), "created again, durably");
    assert_eq!(engine.offsets().committed("g", "t", 0), None);
}

#[test]
fn a_seed_replays_the_same_operations() {
    let scratch = common::scratch_dir();
    for seed in [3, 41, 977] {
        let a = run_seed(scratch.path(), seed, Lies::default()).unwrap();
        let b = run_seed(scratch.path(), seed, Lies::default()).unwrap();
        assert_eq!(a, b, "seed {seed}");
    }
}

/// Two hundred seeds over a file system with `lies` planted: the harness
/// must report a violation for at least one.
fn assert_caught(lies: Lies, what: &str) {
    let (failures, _) = run_many(0, 200, lies);
    assert!(
        failures.iter().any(|f| f.contains("VIOLATION")),
        "200 seeds never caught {what}"
    );
}

#[test]
fn an_acknowledgement_before_fsync_is_caught() {
    // The disk says a file's fsync is done and keeps nothing: acks come
    // before the data is durable, and some power loss must show it.
    let lies = Lies {
        file_sync: true,
        dir_sync: false,
    };
    assert_caught(lies, "acknowledged records that were never synced");
}

#[test]
fn a_directory_fsync_that_keeps_nothing_is_caught() {
    // New segment files, moved-out partitions and renames are never made
    // durable: some acknowledged record must be lost with its entry.
    let lies = Lies {
        file_sync: false,
        dir_sync: true,
    };
    assert_caught(lies, "a directory entry that was never synced");
}
