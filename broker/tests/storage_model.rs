//! Model test: random appends, rolls, reopens and retention runs against an
//! in-memory model of the segmented log; every read must return exactly the
//! model's bytes. Retention goes by the broker's append time (a fixed
//! clock per step, `clock::failpoints`), whatever the producers' timestamps.
//! It runs twice: partitions in directories, and partitions that start in
//! a slot (STORAGE.md §2.5) and move out at their first roll.

mod common;

use common::*;
use hermit_broker::log::Log;
use hermit_broker::log::clock::failpoints::set_clock;
use hermit_protocol::Cleanup;
use hermit_protocol::frame::TopicSettings;
use proptest::prelude::*;

const SEGMENT_BYTES: u64 = 1500;
const RETENTION_BYTES: u64 = 4000;
const RETENTION_MS: u64 = 50;

#[derive(Debug, Clone)]
enum Op {
    Append {
        records: usize,
        size: usize,
        producer_ts: u64,
    },
    Roll,
    Reopen,
    Retention {
        advance_ms: u64,
    },
    ReadAt {
        pick: proptest::sample::Index,
        inside: proptest::sample::Index,
        max_bytes: u32,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (1usize..6, 0usize..300, prop_oneof![Just(1u64), Just(u64::MAX), 2u64..u64::MAX])
            .prop_map(|(records, size, producer_ts)| Op::Append { records, size, producer_ts }),
        1 => Just(Op::Roll),
        1 => Just(Op::Reopen),
        1 => (0u64..40).prop_map(|advance_ms| Op::Retention { advance_ms }),
        2 => (any::<proptest::sample::Index>(), any::<proptest::sample::Index>(), 1u32..3000)
            .prop_map(|(pick, inside, max_bytes)| Op::ReadAt { pick, inside, max_bytes }),
    ]
}

#[derive(Debug, Clone)]
struct Batch {
    base: u64,
    bytes: Vec<u8>,
    /// The broker's clock at the append.
    appended_ns: u64,
}

#[derive(Debug, Default)]
struct Model {
    /// Segments, oldest first; the last is the active one.
    segments: Vec<Vec<Batch>>,
    next: u64,
    /// The partition still lives in its slot (it never rolled).
    in_slot: bool,
}

impl Model {
    fn size(seg: &[Batch]) -> u64 {
        seg.iter().map(|b| b.bytes.len() as u64).sum()
    }

    fn append(&mut self, bytes: Vec<u8>, records: u64, appended_ns: u64) -> u64 {
        let len = bytes.len() as u64;
        let active_size = Self::size(self.segments.last().unwrap());
        if active_size > 0 && active_size + len > SEGMENT_BYTES {
            self.segments.push(Vec::new());
            self.in_slot = false;
        }
        let base = self.next;
        self.segments.last_mut().unwrap().push(Batch {
            base,
            bytes,
            appended_ns,
        });
        self.next += records;
        base
    }

    fn roll(&mut self) {
        if !self.segments.last().unwrap().is_empty() {
            self.segments.push(Vec::new());
            self.in_slot = false;
        }
    }

    /// After a restart a slot's newest append is known only as its slab's
    /// mtime, at most the clock at the restart: later than the truth, so
    /// retention may keep its batches longer, never delete them early.
    fn reopened(&mut self, now_ns: u64) {
        if self.in_slot {
            for b in self.segments.last_mut().unwrap() {
                b.appended_ns = now_ns;
            }
        }
    }

    fn retention(&mut self, now_ns: u64) {
        let mut total: u64 = self.segments.iter().map(|s| Self::size(s)).sum();
        while self.segments.len() > 1 {
            let seg = &self.segments[0];
            let size = Self::size(seg);
            let newest = seg.iter().map(|b| b.appended_ns).max().unwrap_or(0);
            let too_old = newest + RETENTION_MS * 1_000_000 < now_ns;
            let too_big = total - size >= RETENTION_BYTES;
            if !(too_old || too_big) {
                break;
            }
            total -= size;
            self.segments.remove(0);
        }
    }

    fn log_start(&self) -> u64 {
        // The first segment's base: the first batch's base, or for an empty
        // active segment, the next offset.
        let first = &self.segments[0];
        first.first().map_or(self.next, |b| b.base)
    }

    fn batches(&self) -> Vec<&Batch> {
        self.segments.iter().flatten().collect()
    }
}

fn create(log: &Log) {
    log.create_topic(
        "m",
        TopicSettings {
            partitions: 1,
            cleanup: Cleanup::Delete,
            retention_ms: RETENTION_MS,
            retention_bytes: RETENTION_BYTES,
        },
    )
    .unwrap();
}

fn model_opts(slots: bool) -> hermit_broker::log::LogOptions {
    hermit_broker::log::LogOptions {
        partition_slots: slots,
        ..opts(SEGMENT_BYTES)
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn log_matches_model(ops in proptest::collection::vec(op(), 1..60)) {
        run(ops, false)?;
    }

    #[test]
    fn a_log_that_starts_in_a_slot_matches_the_model(ops in proptest::collection::vec(op(), 1..60)) {
        run(ops, true)?;
    }
}

fn run(ops: Vec<Op>, slots: bool) -> Result<(), TestCaseError> {
    let dir = tempfile::tempdir().unwrap();
    let mut log = open(dir.path(), model_opts(slots));
    create(&log);
    let mut p = part(&log, "m");
    let mut model = Model {
        segments: vec![Vec::new()],
        next: 0,
        in_slot: slots,
    };
    let mut seed = 0u64;
    let mut now_ns = 1_700_000_000_000_000_000u64;
    for op in ops {
        let _clock = set_clock(now_ns);
        match op {
            Op::Append {
                records,
                size,
                producer_ts,
            } => {
                seed += 1;
                let bytes = batch_stamped(b"k", records, size, seed, producer_ts);
                let want = model.append(bytes.clone(), records as u64, now_ns);
                let got = p.append(&bytes).unwrap();
                prop_assert_eq!(got.base_offset, want);
                prop_assert_eq!(got.next_offset, model.next);
            }
            Op::Roll => {
                p.force_roll().unwrap();
                model.roll();
            }
            Op::Reopen => {
                log.close().unwrap();
                drop(p);
                drop(log);
                log = open(dir.path(), model_opts(slots));
                p = part(&log, "m");
                prop_assert_eq!(p.in_slot(), model.in_slot);
                model.reopened(now_ns);
            }
            Op::Retention { advance_ms } => {
                now_ns += advance_ms * 1_000_000;
                let _clock = set_clock(now_ns);
                p.enforce_retention(now_ns).unwrap();
                model.retention(now_ns);
            }
            Op::ReadAt {
                pick,
                inside,
                max_bytes,
            } => {
                let batches = model.batches();
                if batches.is_empty() {
                    continue;
                }
                let i = pick.index(batches.len());
                let b = batches[i];
                let next = batches.get(i + 1).map_or(model.next, |n| n.base);
                // Any offset inside the batch finds the batch.
                let offset = b.base + inside.index((next - b.base) as usize) as u64;
                let got = read_range(&p, offset, max_bytes);
                prop_assert!(!got.is_empty());
                prop_assert_eq!(got[0].0, b.base);
                // Whole batches, in log order, within max_bytes unless just one.
                let total: usize = got.iter().map(|g| g.1.len()).sum();
                prop_assert!(got.len() == 1 || total <= max_bytes as usize);
                for (k, g) in got.iter().enumerate() {
                    prop_assert_eq!(g.0, batches[i + k].base);
                    prop_assert_eq!(unstamped(&g.1), batches[i + k].bytes.clone());
                }
            }
        }
        prop_assert_eq!(p.segment_count(), model.segments.len());
        prop_assert_eq!(p.log_start(), model.log_start());
        prop_assert_eq!(p.high_watermark(), model.next);
        let got = read_all(&p, p.log_start()).unwrap();
        let want = model.batches();
        prop_assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(want) {
            prop_assert_eq!(g.0, w.base);
            prop_assert_eq!(unstamped(&g.1), w.bytes.clone());
        }
    }
    Ok(())
}
