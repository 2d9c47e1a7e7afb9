//! The deterministic power-loss harness: one seed drives a broker's storage
//! (an [`Engine`]: the log and the group offsets) over a [`SimFs`] through
//! producers, group-commit rounds, rolls, retention, compaction, topic
//! creation and deletion and offset commits, cuts the power at a chosen
//! operation, rebuilds the disk as the simulation decides, recovers, and
//! checks what survived against a model of what was acknowledged.
//!
//! Concurrency is simulated, not threaded: several producers' appends are
//! in flight across partitions between rounds, and the harness decides
//! when a round runs ([`LogOptions::manual_sync`]), so the sequence of I/O
//! operations — and the crash point in it — depends on the seed alone.
//!
//! What must hold after every recovery:
//! - every acknowledged batch is served, byte for byte (below a retention
//!   topic's log start it may be gone; in a compacted topic a key's newest
//!   acknowledged batch, or a later one of that key, is served);
//! - nothing is served that was not appended at that offset, in this
//!   incarnation of the topic (no corruption, no resurrected deletion);
//! - the next offset is at least past every acknowledged batch (offsets are
//!   never reused);
//! - an acknowledged creation's topic exists, an acknowledged deletion's
//!   topic does not;
//! - a committed offset is one that was committed no earlier than the last
//!   acknowledged commit of its key, and never ahead of its partition's log.
//!
//! What survived a recovery is durable from then on (recovery fsyncs it),
//! so the model then takes it as acknowledged.

use std::collections::BTreeMap;
use std::panic::AssertUnwindSafe;
use std::path::Path;
use std::sync::Arc;

use hermit_broker::config::{FsyncPolicy, Limit};
use hermit_broker::engine::Engine;
use hermit_broker::log::io::Io;
use hermit_broker::log::{LogOptions, Partition};
use hermit_protocol::Cleanup;
use hermit_protocol::frame::TopicSettings;
use hermit_protocol::record::BatchBuilder;

use super::fs::{Lies, SimFs};
use super::rng::Rng;
use crate::common::Got;

/// `HERMITMQ_SIM_TRACE=1`: print each step (to replay one seed).
fn tracing_on() -> bool {
    std::env::var_os("HERMITMQ_SIM_TRACE").is_some()
}

macro_rules! trace {
    ($($arg:tt)*) => {
        if tracing_on() {
            eprintln!($($arg)*);
        }
    };
}

/// Topics the workload uses: (name, cleanup, retention bytes, created by
/// request, partitions). Auto-created topics get [`PARTITIONS`].
const TOPICS: &[(&str, Cleanup, u64, bool, u32)] = &[
    ("plain.a", Cleanup::Delete, 0, false, PARTITIONS),
    ("plain.b", Cleanup::Delete, 0, false, PARTITIONS),
    ("compact", Cleanup::Compact, 0, true, PARTITIONS),
    ("retained", Cleanup::Delete, 6_000, true, PARTITIONS),
    ("doomed.a", Cleanup::Delete, 0, false, PARTITIONS),
    ("doomed.b", Cleanup::Delete, 0, true, PARTITIONS),
    // A burst to all of its partitions makes a round of more than
    // `SYNCFS_MIN` partitions: one `syncfs` instead of an fsync each.
    ("fan", Cleanup::Delete, 0, true, FAN),
];
const PARTITIONS: u32 = 2;
const FAN: u32 = 17;
const GROUP: &str = "sim";

/// What a seed did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    /// Power losses simulated.
    pub crashes: u32,
    /// Batches acknowledged.
    pub acked: u64,
    /// A digest of every epoch's I/O operations (kinds and sizes).
    pub trace: u64,
    /// Group-commit rounds that synced by one `syncfs`.
    pub syncfs: u64,
}

#[derive(Debug, Default, Clone)]
struct Batch {
    next: u64,
    /// As appended, base offset cleared.
    bytes: Vec<u8>,
    key: Vec<u8>,
    acked: bool,
}

#[derive(Debug, Default, Clone)]
struct PartModel {
    batches: BTreeMap<u64, Batch>,
    /// The highest log start retention may have reached.
    max_start: u64,
}

impl PartModel {
    fn acked_end(&self) -> u64 {
        self.batches
            .values()
            .filter(|b| b.acked)
            .map(|b| b.next)
            .max()
            .unwrap_or(0)
    }
}

#[derive(Debug, Clone)]
struct TopicModel {
    parts: Vec<PartModel>,
    cleanup: Cleanup,
    retained: bool,
    /// Its creation is durable (acknowledged, or seen after a recovery).
    durable: bool,
    /// A deletion was asked for and not acknowledged: it may be gone.
    deleting: bool,
}

#[derive(Debug, Clone)]
struct Commit {
    value: u64,
    acked: bool,
}

#[derive(Debug, Default)]
struct Model {
    topics: BTreeMap<String, TopicModel>,
    commits: BTreeMap<(String, u32), Vec<Commit>>,
}

enum Pending {
    Batch {
        part: Arc<Partition>,
        topic: String,
        p: u32,
        base: u64,
        next: u64,
    },
    Commit {
        part: Arc<Partition>,
        key: (String, u32),
        index: usize,
        next: u64,
    },
}

fn options(io: Io, slots: bool) -> LogOptions {
    LogOptions {
        partition_slots: slots,
        fsync: FsyncPolicy::Always,
        manual_sync: true,
        segment_bytes: 8 * 1024,
        segment_ms: u64::MAX / 4,
        index_interval_bytes: 256,
        retention_ms: Limit::Unlimited,
        retention_bytes: Limit::Unlimited,
        delete_retention_ms: u64::MAX / 4,
        default_partitions: PARTITIONS,
        open_files: 6,
        io,
        ..LogOptions::default()
    }
}

/// The violation, with what the harness saw.
type Check = Result<(), String>;

/// Run seed `seed` in a fresh directory under `scratch`, with `lies`
/// planted in the simulated file system.
pub fn run_seed(scratch: &Path, seed: u64, lies: Lies) -> Result<Outcome, String> {
    let dir = scratch.join(format!("seed-{seed}"));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let mut rng = Rng::new(seed);
    let mut model = Model::default();
    let mut out = Outcome {
        crashes: 0,
        acked: 0,
        trace: 0,
        syncfs: 0,
    };
    let epochs = 1 + rng.below(3);
    // A third of the seeds give new topics directories from their first
    // use instead of slots.
    let slots = rng.chance(67);
    for epoch in 0..=epochs {
        let last = epoch == epochs;
        let sim = SimFs::new(&dir, lies);
        let steps = 20 + rng.below(60);
        if !last {
            sim.crash_at(rng.below(steps * 8));
        }
        trace!("epoch {epoch}: {steps} steps");
        // A panic (an assertion of the suite's partition walk, or of the
        // engine) is a violation, unless the power was already gone.
        let res = std::panic::catch_unwind(AssertUnwindSafe(|| {
            run_epoch(
                &dir,
                &sim,
                &mut rng,
                &mut model,
                (steps, slots, last),
                &mut out,
            )
        }))
        .unwrap_or_else(|p| {
            let msg = p
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| p.downcast_ref::<&str>().copied())
                .unwrap_or("a panic");
            Err(if sim.is_dead() {
                format!("panicked after the power went: {msg}")
            } else {
                violation(format!("panicked: {msg}"))
            })
        });
        trace!("epoch {epoch} ends after {} ops: {res:?}", sim.ops());
        out.trace = out.trace.rotate_left(7) ^ sim.trace();
        match res {
            Ok(()) => {}
            Err(e) if sim.is_dead() && !e.starts_with("VIOLATION") => {}
            Err(e) => return Err(format!("seed {seed}, epoch {epoch}: {e}")),
        }
        if last {
            break;
        }
        out.crashes += 1;
        sim.power_loss(&mut rng)
            .map_err(|e| format!("seed {seed}: rebuilding the disk: {e}"))?;
    }
    std::fs::remove_dir_all(&dir).map_err(|e| e.to_string())?;
    Ok(out)
}

fn violation(msg: String) -> String {
    format!("VIOLATION: {msg}")
}

fn run_epoch(
    dir: &Path,
    sim: &Arc<SimFs>,
    rng: &mut Rng,
    model: &mut Model,
    (steps, slots, last): (u64, bool, bool),
    out: &mut Outcome,
) -> Result<(), String> {
    let io = Io::new(sim.clone());
    let engine = Engine::open(dir, options(io, slots)).map_err(|e| format!("open: {e}"))?;
    check_and_adopt(&engine, sim, model)?;
    if last {
        return Ok(());
    }
    let mut pending: Vec<Pending> = Vec::new();
    for _ in 0..steps {
        if sim.is_dead() {
            break;
        }
        if let Err(e) = step(&engine, rng, model, &mut pending, out) {
            if sim.is_dead() {
                break;
            }
            return Err(e);
        }
    }
    out.syncfs += engine.log().sync_stats().syncfs;
    if !sim.is_dead() && rng.chance(20) {
        // A clean stop before the power goes: everything is durable.
        drop(pending);
        engine.close().map_err(|e| format!("close: {e}"))?;
        // Every batch appended is durable now.
        for t in model.topics.values_mut() {
            if !t.deleting {
                t.durable = true;
            }
            for p in &mut t.parts {
                for b in p.batches.values_mut() {
                    b.acked = true;
                }
            }
        }
        for c in model.commits.values_mut() {
            for x in c.iter_mut() {
                x.acked = true;
            }
        }
    }
    Ok(())
}

fn settings(cleanup: Cleanup, retention_bytes: u64, partitions: u32) -> TopicSettings {
    TopicSettings {
        partitions,
        cleanup,
        retention_ms: u64::MAX,
        retention_bytes: if retention_bytes == 0 {
            u64::MAX
        } else {
            retention_bytes
        },
    }
}

fn new_topic(cleanup: Cleanup, retention: u64, durable: bool, partitions: u32) -> TopicModel {
    TopicModel {
        parts: vec![PartModel::default(); partitions as usize],
        cleanup,
        retained: retention != 0,
        durable,
        deleting: false,
    }
}

fn step(
    engine: &Engine,
    rng: &mut Rng,
    model: &mut Model,
    pending: &mut Vec<Pending>,
    out: &mut Outcome,
) -> Result<(), String> {
    let log = engine.log();
    let roll = rng.below(100);
    let (name, cleanup, retention, explicit, partitions) =
        TOPICS[rng.below(TOPICS.len() as u64) as usize];
    let p = rng.below(u64::from(partitions)) as u32;
    let exists = log.topic(name).is_some();
    trace!("step {roll} {name}/{p} exists={exists}");
    match roll {
        0..=44 => {
            // Produce one batch.
            if !exists && explicit {
                return create(engine, model, name, cleanup, retention, partitions);
            }
            if !exists {
                model.topics.insert(
                    name.to_owned(),
                    new_topic(cleanup, retention, false, partitions),
                );
            }
            produce(engine, rng, model, pending, name, p, cleanup)?;
        }
        45..=69 => {
            log.sync_round();
            settle(model, pending, out);
        }
        70..=72 => {
            if exists
                && let Some(part) = log.partition_if_open(name, p).map_err(|e| e.to_string())?
            {
                part.force_roll()
                    .map_err(|e| format!("roll {name}/{p}: {e}"))?;
            }
        }
        73..=74 => {
            // A burst: a batch to every partition of `fan`.
            if log.topic("fan").is_none() {
                return create(engine, model, "fan", Cleanup::Delete, 0, FAN);
            }
            for p in 0..FAN {
                produce(engine, rng, model, pending, "fan", p, Cleanup::Delete)?;
            }
        }
        75..=79 => {
            // Retention and compaction. What retention may delete: up to
            // the active segment, at most what is appended.
            for (n, t) in model.topics.iter_mut() {
                if t.retained {
                    for (i, pm) in t.parts.iter_mut().enumerate() {
                        if let Ok(Some(part)) = log.partition_if_open(n, i as u32) {
                            pm.max_start = pm.max_start.max(part.next_offset());
                        }
                        pm.max_start = pm
                            .max_start
                            .max(pm.batches.keys().next_back().copied().unwrap_or(0));
                    }
                }
            }
            log.run_cleanup(u64::MAX / 2)
                .map_err(|e| format!("cleanup: {e}"))?;
        }
        80..=84 => {
            if !exists {
                return create(engine, model, name, cleanup, retention, partitions);
            }
        }
        85..=89 => {
            if exists && name.starts_with("doomed") {
                if let Some(t) = model.topics.get_mut(name) {
                    t.deleting = true;
                }
                pending.retain(|x| !matches!(x, Pending::Batch { topic, .. } if topic == name));
                engine
                    .delete_topic(name)
                    .map_err(|e| format!("delete {name}: {e}"))?;
                model.topics.remove(name);
                model.commits.retain(|(t, _), _| t != name);
            }
        }
        _ => {
            // Commit an offset no further than what is acknowledged.
            let Some(t) = model.topics.get(name) else {
                return Ok(());
            };
            if !exists || t.deleting {
                return Ok(());
            }
            let end = t.parts[p as usize].acked_end();
            let value = rng.below(end + 1);
            let a = engine
                .commit(GROUP, name, p, value)
                .map_err(|e| format!("commit {name}/{p}={value}: {e}"))?;
            let key = (name.to_owned(), p);
            let list = model.commits.entry(key.clone()).or_default();
            list.push(Commit {
                value,
                acked: false,
            });
            pending.push(Pending::Commit {
                part: engine.offsets_partition().clone(),
                key,
                index: list.len() - 1,
                next: a.next_offset,
            });
        }
    }
    Ok(())
}

/// Append one batch to `name/p` (created on first use) and remember it
/// until a round makes it durable.
fn produce(
    engine: &Engine,
    rng: &mut Rng,
    model: &mut Model,
    pending: &mut Vec<Pending>,
    name: &str,
    p: u32,
    cleanup: Cleanup,
) -> Result<(), String> {
    let log = engine.log();
    let part = if rng.chance(50) {
        log.auto_create_in_slot(name, p)
            .map_err(|e| format!("auto-create {name}/{p}: {e}"))?
            .map_or_else(|| log.partition(name, p, true), Ok)
    } else {
        log.partition(name, p, true)
    }
    .map_err(|e| format!("partition {name}/{p}: {e}"))?;
    let key: Vec<u8> = if cleanup == Cleanup::Compact {
        format!("k{}", rng.below(4)).into_bytes()
    } else {
        Vec::new()
    };
    let mut b = BatchBuilder::new(&key);
    for _ in 0..1 + rng.below(4) {
        let most = if rng.chance(10) { 3000 } else { 700 };
        let len = rng.below(most) as usize;
        let fill = rng.next_u64();
        let v: Vec<u8> = (0..len)
            .map(|i| (fill >> (i % 8 * 8)) as u8 ^ i as u8)
            .collect();
        b.push(&v);
    }
    let batch = b
        .finish(1_700_000_000_000_000_000)
        .map_err(|e| e.to_string())?;
    let a = part
        .append(&batch)
        .map_err(|e| format!("append {name}/{p}: {e}"))?;
    trace!("  appended {}..{}", a.base_offset, a.next_offset);
    let t = model.topics.get_mut(name).expect("inserted above");
    let pm = &mut t.parts[p as usize];
    // What a crash lost before is gone; these offsets are the log's
    // now — unless one of them was acknowledged.
    if let Some((base, _)) = pm.batches.range(a.base_offset..).find(|(_, b)| b.acked) {
        return Err(violation(format!(
            "{name}/{p}: an append got offset {}, at or before acknowledged batch {base}",
            a.base_offset
        )));
    }
    pm.batches.retain(|&base, _| base < a.base_offset);
    pm.batches.insert(
        a.base_offset,
        Batch {
            next: a.next_offset,
            bytes: unstamped(&batch),
            key,
            acked: false,
        },
    );
    pending.push(Pending::Batch {
        part,
        topic: name.to_owned(),
        p,
        base: a.base_offset,
        next: a.next_offset,
    });
    Ok(())
}

fn create(
    engine: &Engine,
    model: &mut Model,
    name: &str,
    cleanup: Cleanup,
    retention: u64,
    partitions: u32,
) -> Result<(), String> {
    model.topics.insert(
        name.to_owned(),
        new_topic(cleanup, retention, false, partitions),
    );
    engine
        .log()
        .create_topic(name, settings(cleanup, retention, partitions))
        .map_err(|e| format!("create {name}: {e}"))?;
    if let Some(t) = model.topics.get_mut(name) {
        t.durable = true;
    }
    Ok(())
}

/// After a round: what is durable now is acknowledged.
fn settle(model: &mut Model, pending: &mut Vec<Pending>, out: &mut Outcome) {
    pending.retain(|x| match x {
        Pending::Batch {
            part,
            topic,
            p,
            base,
            next,
        } => {
            if part.synced_offset() < *next {
                return true;
            }
            trace!("  acked {topic}/{p} {base}..{next}");
            if let Some(t) = model.topics.get_mut(topic)
                && let Some(b) = t.parts[*p as usize].batches.get_mut(base)
            {
                b.acked = true;
                t.durable = true;
                out.acked += 1;
            }
            false
        }
        Pending::Commit {
            part,
            key,
            index,
            next,
        } => {
            if part.synced_offset() < *next {
                return true;
            }
            if let Some(c) = model.commits.get_mut(key).and_then(|l| l.get_mut(*index)) {
                c.acked = true;
            }
            false
        }
    });
}

fn unstamped(bytes: &[u8]) -> Vec<u8> {
    let mut v = bytes.to_vec();
    v[1..9].copy_from_slice(&[0; 8]);
    v
}

/// What a partition serves: every batch, `(base, bytes as stored)`, and
/// the ranges of offsets it reports as damaged and skips.
#[derive(Debug, Default)]
struct Served {
    batches: Vec<(u64, Vec<u8>)>,
    fenced: Vec<(u64, u64)>,
}

/// Through the suite's one partition walk (`common::walk`), which checks
/// that every served batch is whole and passes its CRC, and panics
/// otherwise: [`run_seed`] reports a panic as a violation.
fn read_all(p: &Partition) -> Served {
    let mut out = Served::default();
    for got in crate::common::walk(p) {
        match got {
            Got::Batches(b) => out.batches.extend(b),
            Got::Fenced { from, to } => out.fenced.push((from, to)),
        }
    }
    out
}

/// Check the recovered state against the model, then take it as the
/// model's (it is durable now).
fn check_and_adopt(engine: &Engine, sim: &SimFs, model: &mut Model) -> Check {
    let log = engine.log();
    for t in log.topics() {
        if !t.name().starts_with("__") && !model.topics.contains_key(t.name()) {
            return Err(violation(format!(
                "topic {} exists, but it was never created or its deletion was acknowledged",
                t.name()
            )));
        }
    }
    let names: Vec<String> = model.topics.keys().cloned().collect();
    for name in names {
        let t = model.topics.get(&name).expect("listed").clone();
        let Some(topic) = log.topic(&name) else {
            let lost: u64 = t.parts.iter().map(PartModel::acked_end).sum();
            if t.durable && !t.deleting {
                return Err(violation(format!(
                    "topic {name}: its creation was acknowledged ({lost} acked offsets) and it is gone"
                )));
            }
            model.topics.remove(&name);
            model.commits.retain(|(n, _), _| *n != name);
            continue;
        };
        if topic.partition_count() as usize != t.parts.len() {
            return Err(violation(format!(
                "topic {name} has {} partitions",
                topic.partition_count()
            )));
        }
        let mut adopted = t.clone();
        adopted.durable = true;
        adopted.deleting = false;
        for (i, pm) in t.parts.iter().enumerate() {
            let part = log
                .partition(&name, i as u32, false)
                .map_err(|e| format!("open {name}/{i}: {e}"))?;
            if sim.is_dead() {
                return Err("power lost during recovery".into());
            }
            let served = read_all(&part);
            let (start, next) = part.bounds();
            check_partition(&name, i, &t, pm, &served, start, next)?;
            // Adopt: what is served is durable; the rest is gone.
            let mut kept = BTreeMap::new();
            for (base, _) in &served.batches {
                let mut b = pm.batches[base].clone();
                b.acked = true;
                kept.insert(*base, b);
            }
            adopted.parts[i] = PartModel {
                batches: kept,
                max_start: pm.max_start.max(start),
            };
        }
        model.topics.insert(name.clone(), adopted);
    }
    // Group offsets.
    let offsets = engine.offsets();
    let keys: Vec<(String, u32)> = model.commits.keys().cloned().collect();
    for key in keys {
        let list = model.commits[&key].clone();
        let got = offsets.committed(GROUP, &key.0, key.1);
        let last_acked = list.iter().rposition(|c| c.acked);
        let allowed = &list[last_acked.unwrap_or(0)..];
        let ok = match got {
            Some(v) => allowed.iter().any(|c| c.value == v),
            None => last_acked.is_none(),
        };
        if !ok {
            return Err(violation(format!(
                "offset of {}/{}: got {got:?}, committed {:?}",
                key.0,
                key.1,
                list.iter().map(|c| (c.value, c.acked)).collect::<Vec<_>>()
            )));
        }
        if let Some(v) = got {
            let next = log
                .partition_if_open(&key.0, key.1)
                .ok()
                .flatten()
                .map(|p| p.next_offset());
            if let Some(next) = next
                && v > next
            {
                return Err(violation(format!(
                    "committed offset {v} of {}/{} is ahead of its log ({next})",
                    key.0, key.1
                )));
            }
        }
        let adopted = match got {
            Some(value) => vec![Commit { value, acked: true }],
            None => Vec::new(),
        };
        model.commits.insert(key, adopted);
    }
    Ok(())
}

fn check_partition(
    name: &str,
    i: usize,
    t: &TopicModel,
    pm: &PartModel,
    served: &Served,
    start: u64,
    next: u64,
) -> Check {
    let at = |what: String| violation(format!("{name}/{i}: {what}"));
    // Damage with valid batches after it is fenced, never truncated (it
    // may be bit rot under acknowledged batches). After a power loss it is
    // writeback out of order in the unsynced tail: it must hold nothing
    // acknowledged.
    for &(from, to) in &served.fenced {
        if let Some((base, _)) = pm
            .batches
            .iter()
            .find(|(base, b)| b.acked && **base < to && b.next > from)
        {
            return Err(at(format!(
                "acknowledged batch at {base} is in the range {from}..{to} fenced as damaged"
            )));
        }
    }
    let served = &served.batches;
    for (base, bytes) in served {
        match pm.batches.get(base) {
            None => {
                return Err(at(format!(
                    "served a batch at {base} that was never appended there"
                )));
            }
            Some(b) if b.bytes != unstamped(bytes) => {
                return Err(at(format!(
                    "the batch at {base} differs from what was appended"
                )));
            }
            Some(_) => {}
        }
    }
    let acked_end = pm.acked_end();
    if next < acked_end {
        return Err(at(format!(
            "the log ends at {next}, before acknowledged offset {acked_end}: offsets would be reused"
        )));
    }
    if t.retained {
        if start > pm.max_start {
            return Err(at(format!(
                "log start {start} is past anything retention could delete ({})",
                pm.max_start
            )));
        }
    } else if t.cleanup != Cleanup::Compact && start != 0 {
        return Err(at(format!("log start {start} without retention")));
    }
    let served_at: BTreeMap<u64, ()> = served.iter().map(|(b, _)| (*b, ())).collect();
    if t.cleanup == Cleanup::Compact {
        // A key's newest acknowledged batch, or a later one of the key.
        let mut newest: BTreeMap<&[u8], u64> = BTreeMap::new();
        for (base, b) in &pm.batches {
            if b.acked {
                newest.insert(&b.key, *base);
            }
        }
        for (key, base) in newest {
            let found = served
                .iter()
                .any(|(s, _)| *s >= base && pm.batches.get(s).is_some_and(|b| b.key == key));
            if !found {
                return Err(at(format!(
                    "key {:?}: its acknowledged batch at {base} and everything after it are gone",
                    String::from_utf8_lossy(key)
                )));
            }
        }
    } else {
        for (base, b) in &pm.batches {
            if b.acked && *base >= start && !served_at.contains_key(base) {
                return Err(at(format!(
                    "acknowledged batch at {base} (to {}) is gone",
                    b.next
                )));
            }
        }
    }
    Ok(())
}
