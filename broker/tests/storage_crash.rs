//! Crash and corruption tests on real segment files: torn and zero-filled
//! tails, bit flips in the active and in rolled segments, damaged indexes and
//! leftovers of interrupted writes. Each case runs on a fresh copy of one
//! cleanly closed data directory.

mod common;

use std::path::{Path, PathBuf};

use common::*;
use hermit_broker::config::{FsyncPolicy, Limit, RecoveryMode, VerifyRolled};
use hermit_broker::log::{Log, LogOptions, ReadOutcome, StorageError};
use hermit_protocol::frame::TopicSettings;
use hermit_protocol::{Cleanup, Status};

const TOPIC: &str = "crash";

/// Open the log and its test partition: partitions open (and recover) on
/// first use, so a damaged active segment is found there, before any read
/// or write of it.
fn open_and_recover(dir: &Path, opts: LogOptions) -> Result<Log, hermit_broker::log::StorageError> {
    let log = Log::open(dir, opts)?;
    if log.topic(TOPIC).is_some() {
        log.partition(TOPIC, 0, false)?;
    }
    Ok(log)
}

/// [`open_and_recover`], which must succeed.
fn open(dir: &Path, opts: LogOptions) -> Log {
    open_and_recover(dir, opts).expect("open log")
}
const SEGMENT_BYTES: u64 = 2048;

fn crash_opts(verify_rolled: VerifyRolled, recovery_mode: RecoveryMode) -> LogOptions {
    LogOptions {
        fsync: FsyncPolicy::Never,
        segment_bytes: SEGMENT_BYTES,
        // Every batch below is at least 64 bytes, so every batch has an index entry.
        index_interval_bytes: 64,
        retention_ms: Limit::Unlimited,
        verify_rolled,
        recovery_mode,
        ..LogOptions::default()
    }
}

fn default_opts() -> LogOptions {
    crash_opts(
        VerifyRolled::Background,
        RecoveryMode::TolerateTailCorruption,
    )
}

/// A cleanly closed data directory and what it holds.
struct Fixture {
    dir: tempfile::TempDir,
    /// Every batch as stored: `(base_offset, bytes)`, in offset order.
    batches: Vec<(u64, Vec<u8>)>,
    /// The offset the next append gets.
    next: u64,
}

impl Fixture {
    fn partition_dir(&self) -> PathBuf {
        partition_dir(self.dir.path(), TOPIC, 0)
    }

    /// A fresh copy of the data directory, for one case.
    fn copy(&self) -> tempfile::TempDir {
        let d = scratch_dir();
        copy_dir(self.dir.path(), d.path());
        d
    }

    /// The batches below `offset`.
    fn before(&self, offset: u64) -> Vec<(u64, Vec<u8>)> {
        self.batches
            .iter()
            .filter(|(b, _)| *b < offset)
            .cloned()
            .collect()
    }

    /// The stored batch starting at `base`.
    fn batch(&self, base: u64) -> &(u64, Vec<u8>) {
        self.batches.iter().find(|(b, _)| *b == base).unwrap()
    }
}

/// Several rolled segments of batches of 1–5 records and varied sizes, then
/// an active segment of five batches.
fn build() -> Fixture {
    let dir = scratch_dir();
    let log = open(dir.path(), default_opts());
    log.create_topic(
        TOPIC,
        TopicSettings {
            partitions: 1,
            cleanup: Cleanup::Delete,
            retention_ms: 0,
            retention_bytes: 0,
        },
    )
    .unwrap();
    let p = part(&log, TOPIC);
    let mut batches = Vec::new();
    let mut push = |records: usize, size: usize, seed: u64| {
        let b = batch(b"key", records, size, seed);
        let a = p.append(&b).unwrap();
        batches.push((a.base_offset, stamped(&b, a.base_offset)));
    };
    for i in 0..14u64 {
        push(1 + (i % 5) as usize, 30 + ((i * 37) % 170) as usize, i);
    }
    p.force_roll().unwrap();
    // Small batches (68 to 106 bytes) keep the every-byte loops short.
    for i in 0..5u64 {
        push(1 + (i % 2) as usize, 28 + i as usize, 100 + i);
    }
    let next = p.next_offset();
    log.close().unwrap();
    drop(p);
    drop(log);
    let fx = Fixture { dir, batches, next };
    let logs = segment_logs(&fx.partition_dir());
    assert!(logs.len() >= 4, "several rolled segments: {logs:?}");
    assert!(
        logs[..logs.len() - 1]
            .iter()
            .any(|l| batches_in(l).len() >= 3),
        "a rolled segment with three batches"
    );
    assert_eq!(batches_in(logs.last().unwrap()).len(), 5);
    fx
}

fn topic_part(log: &Log) -> std::sync::Arc<hermit_broker::log::Partition> {
    log.partition(TOPIC, 0, false).unwrap()
}

fn as_walk(batches: &[(u64, Vec<u8>)]) -> Vec<Got> {
    batches
        .iter()
        .map(|b| Got::Batches(vec![b.clone()]))
        .collect()
}

/// The log in `dir` holds exactly `expected` and ends at `next`; an append
/// continues at `next`, is read back and (with `reopen`) survives another reopen.
fn assert_exact_prefix(
    dir: &Path,
    opts: LogOptions,
    expected: &[(u64, Vec<u8>)],
    next: u64,
    reopen: bool,
) {
    assert_exact_prefix_truncating(dir, opts, expected, next, reopen, None)
}

/// [`assert_exact_prefix`], also checking that opening cut the active
/// segment back to `truncated_to` bytes.
fn assert_exact_prefix_truncating(
    dir: &Path,
    opts: LogOptions,
    expected: &[(u64, Vec<u8>)],
    next: u64,
    reopen: bool,
    truncated_to: Option<u64>,
) {
    let log = open(dir, opts.clone());
    if let Some(len) = truncated_to {
        assert_eq!(
            file_len(&active_log(dir)),
            len,
            "the damaged tail is cut off"
        );
    }
    let p = topic_part(&log);
    assert_eq!(p.next_offset(), next, "next offset");
    assert_eq!(p.high_watermark(), next, "high watermark");
    assert_eq!(walk(&p), as_walk(expected), "surviving batches");
    let new = batch(b"after", 2, 40, 9_999);
    let a = p.append(&new).unwrap();
    assert_eq!(a.base_offset, next, "a new append continues the log");
    let stored = (next, stamped(&new, next));
    assert_eq!(
        read_at(&p, next, 1 << 20),
        Got::Batches(vec![stored.clone()])
    );
    log.close().unwrap();
    drop(p);
    drop(log);
    if !reopen {
        return;
    }
    let log = open(dir, opts);
    let p = topic_part(&log);
    let mut all = expected.to_vec();
    all.push(stored);
    assert_eq!(walk(&p), as_walk(&all), "after a second reopen");
}

fn active_log(dir: &Path) -> PathBuf {
    segment_logs(&partition_dir(dir, TOPIC, 0)).pop().unwrap()
}

fn set_len(path: &Path, len: u64) {
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .unwrap()
        .set_len(len)
        .unwrap();
}

fn file_len(path: &Path) -> u64 {
    std::fs::metadata(path).unwrap().len()
}

#[test]
fn torn_active_tail_at_every_byte_keeps_the_valid_prefix() {
    let fx = build();
    let inside = batches_in(&active_log(fx.dir.path()));
    let len = file_len(&active_log(fx.dir.path()));
    let (from, _, _) = inside[inside.len() - 2];
    for cut in from..len {
        // The first batch that does not fit whole below the cut, and where it starts.
        let (valid_end, first_lost) = inside
            .iter()
            .find(|(pos, l, _)| pos + l > cut)
            .map(|&(pos, _, base)| (pos, base))
            .expect("the cut is inside the last two batches");
        let d = fx.copy();
        let path = active_log(d.path());
        set_len(&path, cut);
        // Every few cuts, also reopen once more after the new append.
        assert_exact_prefix_truncating(
            d.path(),
            default_opts(),
            &fx.before(first_lost),
            first_lost,
            cut % 8 == 0,
            Some(valid_end),
        );
    }
}

#[test]
fn zero_filled_tail_is_truncated_back_to_the_valid_prefix() {
    let fx = build();
    let len = file_len(&active_log(fx.dir.path()));
    // Preallocated blocks after the last write: the file grew, the data did not land.
    for extra in [1u64, 32, 33, 34, 4096, 65_536] {
        let d = fx.copy();
        let path = active_log(d.path());
        set_len(&path, len + extra);
        drop(open(d.path(), default_opts()));
        assert_eq!(file_len(&path), len, "{extra} zeros: truncated");
        assert_exact_prefix(d.path(), default_opts(), &fx.batches, fx.next, true);
    }
    // The last batch's blocks (and more) read back as zeros.
    let inside = batches_in(&active_log(fx.dir.path()));
    let &(pos, _, base) = inside.last().unwrap();
    let d = fx.copy();
    let path = active_log(d.path());
    let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    std::os::unix::fs::FileExt::write_all_at(&f, &vec![0u8; (len - pos + 512) as usize], pos)
        .unwrap();
    drop(f);
    assert_exact_prefix(d.path(), default_opts(), &fx.before(base), base, true);
}

/// Bits to flip at byte `i` of a batch: all eight in the base offset (which
/// the CRC does not cover), one (varying) elsewhere.
fn bits_at(i: u64) -> Vec<u8> {
    if (1..9).contains(&i) {
        (0..8).collect()
    } else {
        vec![(i * 3 % 8) as u8]
    }
}

#[test]
fn bit_flip_in_an_active_batch_with_batches_after_it_is_fenced_not_truncated() {
    let fx = build();
    let active = active_log(fx.dir.path());
    let inside = batches_in(&active);
    let seg_base = inside[0].2;
    // A batch with batches before and after it in the active segment: the
    // batches after it were acknowledged, so damage here is not a torn
    // tail; it is fenced like damage in a rolled segment and nothing after
    // it is lost.
    let (pos, len, base) = inside[2];
    let to = next_of(&fx.batch(base).1);
    for i in 0..len {
        for bit in bits_at(i) {
            let d = fx.copy();
            flip_bit(&active_log(d.path()), pos + i, bit);
            let log = open(d.path(), default_opts());
            let ranges = topic_part(&log).corrupt_ranges();
            assert_eq!(ranges.len(), 1, "byte {i} bit {bit}: {ranges:?}");
            assert_eq!(
                (ranges[0].from_offset, ranges[0].to_offset),
                (base, to),
                "byte {i} bit {bit}"
            );
            assert_fenced(&fx, &log, seg_base, base, to);
            // Writing goes on after the damaged (now rolled) segment.
            let p = topic_part(&log);
            let next = p.append(&batch(b"k", 1, 5, 99)).unwrap();
            assert_eq!(next.base_offset, fx.next);
            drop(p);
            drop(log);
            if i % 16 == 0 {
                // And the same fence survives a restart, now found by
                // verification — also with the segment's index gone, so
                // nothing but the bytes tells it where to resume.
                if i % 32 == 0 {
                    let damaged =
                        partition_dir(d.path(), TOPIC, 0).join(format!("{seg_base:020}.idx"));
                    std::fs::remove_file(damaged).unwrap();
                }
                let log = open(
                    d.path(),
                    crash_opts(VerifyRolled::Startup, RecoveryMode::TolerateTailCorruption),
                );
                let ranges = topic_part(&log).corrupt_ranges();
                assert_eq!(ranges.len(), 1, "byte {i} bit {bit}: {ranges:?}");
                assert_eq!(
                    (ranges[0].from_offset, ranges[0].to_offset),
                    (base, to),
                    "byte {i} bit {bit}"
                );
                let p = topic_part(&log);
                assert_eq!(read_at(&p, base, 1), Got::Fenced { from: base, to });
                assert_eq!(read_at(&p, to, 1), Got::Batches(vec![fx.batch(to).clone()]));
                assert_eq!(p.high_watermark(), fx.next + 1);
            }
            // Absolute consistency refuses to start on it.
            let d = fx.copy();
            flip_bit(&active_log(d.path()), pos + i, bit);
            assert!(
                open_and_recover(
                    d.path(),
                    crash_opts(VerifyRolled::Background, RecoveryMode::AbsoluteConsistency)
                )
                .is_err(),
                "byte {i} bit {bit}"
            );
        }
    }
}

/// A rolled segment and a batch of it with batches before and after it in
/// the same segment (the smallest such batch, to keep every-byte loops short).
fn rolled_target(fx: &Fixture) -> (PathBuf, (u64, u64, u64)) {
    let logs = segment_logs(&fx.partition_dir());
    logs[..logs.len() - 1]
        .iter()
        .flat_map(|l| {
            let inside = batches_in(l);
            let n = inside.len();
            inside
                .into_iter()
                .enumerate()
                .filter(move |(i, _)| *i > 0 && *i + 1 < n)
                .map(|(_, b)| (l.clone(), b))
        })
        .min_by_key(|(_, (_, len, _))| *len)
        .expect("a rolled segment with three batches")
}

fn next_of(bytes: &[u8]) -> u64 {
    hermit_protocol::record::RecordHeader::decode(bytes)
        .unwrap()
        .next_offset()
        .unwrap()
}

/// What a walk must give with the batch at `base` fenced.
fn fenced_walk(fx: &Fixture, base: u64) -> Vec<Got> {
    let to = next_of(&fx.batch(base).1);
    fx.batches
        .iter()
        .map(|b| {
            if b.0 == base {
                Got::Fenced { from: base, to }
            } else {
                Got::Batches(vec![b.clone()])
            }
        })
        .collect()
}

/// Reads around a fenced batch of a rolled segment: before and after are
/// served exactly, the batch's own offsets are refused with CorruptData.
fn assert_fenced(fx: &Fixture, log: &Log, seg_base: u64, base: u64, to: u64) {
    let p = topic_part(log);
    assert_eq!(walk(&p), fenced_walk(fx, base));
    for offset in base..to {
        assert_eq!(read_at(&p, offset, 1 << 20), Got::Fenced { from: base, to });
    }
    let mut scratch = Vec::new();
    match p.read(base, 1 << 20, &mut scratch) {
        Err(e @ StorageError::CorruptRange { .. }) => assert_eq!(e.status(), Status::CorruptData),
        other => panic!("expected CorruptRange, got {other:?}"),
    }
    // A large read from the segment's start stops before the damage.
    if seg_base < base {
        let want: Vec<_> = fx
            .batches
            .iter()
            .filter(|b| b.0 >= seg_base && b.0 < base)
            .cloned()
            .collect();
        assert_eq!(read_at(&p, seg_base, 1 << 20), Got::Batches(want));
    }
    // Reading on from the batch after the damage works.
    let after: Vec<_> = fx
        .batches
        .iter()
        .filter(|b| b.0 >= to)
        .take(1)
        .cloned()
        .collect();
    assert_eq!(read_at(&p, to, 1), Got::Batches(after));
    assert_eq!(p.high_watermark(), fx.next);
}

#[test]
fn bit_flip_in_a_rolled_batch_is_fenced_with_startup_verification() {
    let fx = build();
    let (seg, (pos, len, base)) = rolled_target(&fx);
    let seg_base = batches_in(&seg)[0].2;
    let to = next_of(&fx.batch(base).1);
    let name = seg.file_name().unwrap().to_owned();
    let opts = crash_opts(VerifyRolled::Startup, RecoveryMode::TolerateTailCorruption);
    for i in 0..len {
        for bit in bits_at(i) {
            let d = fx.copy();
            let seg_log = partition_dir(d.path(), TOPIC, 0).join(&name);
            flip_bit(&seg_log, pos + i, bit);
            let log = open(d.path(), opts.clone());
            // Verified before serving: the damage is known at once.
            let ranges = topic_part(&log).corrupt_ranges();
            assert_eq!(ranges.len(), 1, "byte {i} bit {bit}: {ranges:?}");
            assert_eq!((ranges[0].from_offset, ranges[0].to_offset), (base, to));
            assert_fenced(&fx, &log, seg_base, base, to);
        }
    }
}

#[test]
fn bit_flip_in_a_rolled_batch_is_fenced_with_background_verification() {
    let fx = build();
    let (seg, (pos, len, base)) = rolled_target(&fx);
    let seg_base = batches_in(&seg)[0].2;
    let to = next_of(&fx.batch(base).1);
    let name = seg.file_name().unwrap().to_owned();
    for i in 0..len {
        for bit in bits_at(i) {
            let d = fx.copy();
            let seg_log = partition_dir(d.path(), TOPIC, 0).join(&name);
            flip_bit(&seg_log, pos + i, bit);
            let log = open(d.path(), default_opts());
            let p = topic_part(&log);
            assert!(p.corrupt_ranges().is_empty(), "not verified yet");
            // Nothing from an unverified segment is served: the read asks for verification.
            let mut scratch = Vec::new();
            let unverified = match p.read(base, 1 << 20, &mut scratch).unwrap() {
                ReadOutcome::Unverified(seg) => seg,
                other => panic!("byte {i} bit {bit}: expected Unverified, got {other:?}"),
            };
            p.verify_segment(&unverified).unwrap();
            match p.read(base, 1 << 20, &mut scratch) {
                Err(StorageError::CorruptRange { from, to: t, .. }) => {
                    assert_eq!((from, t), (base, to), "byte {i} bit {bit}")
                }
                other => panic!("byte {i} bit {bit}: expected CorruptRange, got {other:?}"),
            }
            assert_fenced(&fx, &log, seg_base, base, to);
        }
    }
}

/// The read a fetch makes (on an async worker) settles verification
/// itself, off the worker: what is intact is served, as a body source of the
/// stored bytes; the corrupt batch is refused.
#[test]
fn a_fetch_read_verifies_an_old_segment_itself_and_serves_only_intact_batches() {
    let fx = build();
    let (seg, (pos, len, base)) = rolled_target(&fx);
    let seg_base = batches_in(&seg)[0].2;
    let to = next_of(&fx.batch(base).1);
    let d = fx.copy();
    let seg_log = partition_dir(d.path(), TOPIC, 0).join(seg.file_name().unwrap());
    // The batch's last byte: covered by its CRC.
    flip_bit(&seg_log, pos + len - 1, 0);
    let log = open(d.path(), default_opts());
    let p = topic_part(&log);
    assert!(p.corrupt_ranges().is_empty(), "not verified yet");
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let mut scratch = Vec::new();
    let served = rt
        .block_on(p.read_settled(seg_base, 1, &mut scratch))
        .unwrap();
    let body = served.body.expect("the segment's first batch");
    let want = &fx.batch(seg_base).1;
    assert_eq!(body.len(), want.len() as u64);
    let mut got = vec![0u8; want.len()];
    assert_eq!(body.read_at(&mut got, 0).unwrap(), want.len());
    assert!(&got == want, "the stored bytes");
    assert_eq!(p.corrupt_ranges().len(), 1, "verified by the read");
    match rt.block_on(p.read_settled(base, 1 << 20, &mut scratch)) {
        Err(StorageError::CorruptRange { from, to: t, .. }) => assert_eq!((from, t), (base, to)),
        other => panic!("expected CorruptRange, got {other:?}"),
    }
}

#[test]
fn absolute_consistency_refuses_to_open_damaged_logs() {
    let fx = build();
    let strict = crash_opts(VerifyRolled::Startup, RecoveryMode::AbsoluteConsistency);
    // An intact log opens.
    {
        let d = fx.copy();
        let log = open_and_recover(d.path(), strict.clone()).expect("an intact log opens");
        assert_eq!(walk(&topic_part(&log)), as_walk(&fx.batches));
    }
    // Damage in a rolled segment, verified at startup.
    let (seg, (pos, len, base)) = rolled_target(&fx);
    let seg_base = batches_in(&seg)[0].2;
    let to = next_of(&fx.batch(base).1);
    let d = fx.copy();
    let seg_log = partition_dir(d.path(), TOPIC, 0).join(seg.file_name().unwrap());
    flip_bit(&seg_log, pos + len - 1, 3);
    match open_and_recover(d.path(), strict.clone()) {
        Err(StorageError::CorruptRange { from, to: t, .. }) => assert_eq!((from, t), (base, to)),
        other => panic!("expected CorruptRange, got {other:?}"),
    }
    // The same damage with background verification: the broker starts, the
    // range is fenced when found (absolute consistency cannot refuse a start
    // that has already happened).
    let bg = crash_opts(VerifyRolled::Background, RecoveryMode::AbsoluteConsistency);
    {
        let log = open_and_recover(d.path(), bg).expect("opens; verification comes later");
        assert_fenced(&fx, &log, seg_base, base, to);
    }
    // A torn active tail: refused, and the file is left untouched.
    let d = fx.copy();
    let path = active_log(d.path());
    let len = file_len(&path);
    let inside = batches_in(&path);
    let &(last_pos, _, _) = inside.last().unwrap();
    set_len(&path, len - 1);
    match open_and_recover(d.path(), strict) {
        Err(StorageError::Corrupt { position, .. }) => assert_eq!(position, last_pos),
        other => panic!("expected Corrupt, got {other:?}"),
    }
    assert_eq!(file_len(&path), len - 1, "nothing truncated");
    // The default mode repairs it.
    let last_base = inside.last().unwrap().2;
    assert_exact_prefix(
        d.path(),
        default_opts(),
        &fx.before(last_base),
        last_base,
        true,
    );
}

fn idx_of(log: &Path) -> PathBuf {
    log.with_extension("idx")
}

#[test]
fn missing_or_garbage_rolled_index_is_rebuilt() {
    let fx = build();
    let (seg, _) = rolled_target(&fx);
    let name = idx_of(&seg).file_name().unwrap().to_owned();
    let original = std::fs::read(idx_of(&seg)).unwrap();
    assert!(original.len() >= 24, "one entry per batch");
    let garbage: Vec<u8> = (0..83u32).map(|i| (i * 151 % 256) as u8).collect();
    let cases: Vec<(&str, Option<Vec<u8>>)> = vec![
        ("missing", None),
        ("garbage", Some(garbage)),
        ("zeros", Some(vec![0u8; original.len()])),
        ("torn", Some(original[..original.len() - 3].to_vec())),
        ("empty", Some(Vec::new())),
    ];
    for (what, contents) in cases {
        let d = fx.copy();
        let pdir = partition_dir(d.path(), TOPIC, 0);
        match contents {
            None => std::fs::remove_file(pdir.join(&name)).unwrap(),
            Some(c) => std::fs::write(pdir.join(&name), c).unwrap(),
        }
        let log = open(d.path(), default_opts());
        assert_eq!(
            std::fs::read(pdir.join(&name)).unwrap(),
            original,
            "{what}: rebuilt"
        );
        assert!(
            file_names(&pdir).iter().all(|n| !n.ends_with(".tmp")),
            "{what}: no temporary file left"
        );
        assert_eq!(walk(&topic_part(&log)), as_walk(&fx.batches), "{what}");
    }
}

#[test]
fn bit_flip_in_a_rolled_index_never_misdirects_a_read() {
    let fx = build();
    let (seg, _) = rolled_target(&fx);
    let name = idx_of(&seg).file_name().unwrap().to_owned();
    let idx_len = file_len(&idx_of(&seg));
    for i in 0..idx_len {
        // The lowest bit (the smallest misdirection) and one more per byte.
        for bit in [0, 1 + (i * 3 % 7) as u8] {
            let d = fx.copy();
            let pdir = partition_dir(d.path(), TOPIC, 0);
            flip_bit(&pdir.join(&name), i, bit);
            let log = open(d.path(), default_opts());
            let p = topic_part(&log);
            assert_eq!(walk(&p), as_walk(&fx.batches), "byte {i} bit {bit}");
            // Every offset finds the batch holding it.
            for (base, bytes) in &fx.batches {
                let last = next_of(bytes) - 1;
                match read_at(&p, last, 1) {
                    Got::Batches(b) => assert_eq!(b[0].0, *base, "byte {i} bit {bit}"),
                    other => panic!("byte {i} bit {bit}: {other:?}"),
                }
            }
        }
    }
}

#[test]
fn leftovers_of_interrupted_writes_are_removed_at_open() {
    let fx = build();
    let d = fx.copy();
    let pdir = partition_dir(d.path(), TOPIC, 0);
    let before = file_names(&pdir);
    let (seg, _) = rolled_target(&fx);
    let seg_name = seg.file_name().unwrap().to_str().unwrap().to_owned();
    std::fs::write(
        pdir.join(format!("{seg_name}.cleaned")),
        b"half a compaction",
    )
    .unwrap();
    let idx_name = idx_of(&seg)
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned();
    std::fs::write(pdir.join(format!("{idx_name}.tmp")), b"half an index").unwrap();
    std::fs::write(pdir.join("00000000000099999999.idx"), [0u8; 16]).unwrap();
    // Leftovers above the partitions: the directory of a topic whose
    // creation never reached the catalog, and a deleted topic still in the
    // trash.
    let half = d.path().join("partitions/half-created@0@0000000000000001");
    std::fs::create_dir_all(&half).unwrap();
    std::fs::create_dir_all(d.path().join("trash/old-1/0")).unwrap();
    let log = open(d.path(), default_opts());
    assert_eq!(file_names(&pdir), before);
    assert!(!d.path().join("trash").exists());
    assert!(log.topic("half-created").is_none());
    log.run_cleanup(hermit_broker::log::partition::now_ns())
        .unwrap();
    assert!(
        half.exists(),
        "reported, never removed: a damaged catalog could have lost it"
    );
    assert_eq!(walk(&topic_part(&log)), as_walk(&fx.batches));
}

#[test]
fn rolled_segment_missing_whole_batches_at_its_end_is_fenced_not_skipped() {
    let fx = build();
    let (seg, _) = rolled_target(&fx);
    let inside = batches_in(&seg);
    let &(last_pos, _, last_base) = inside.last().unwrap();
    // The segment's end offset is the next segment's base.
    let end = {
        let logs = segment_logs(&fx.partition_dir());
        let i = logs.iter().position(|l| *l == seg).unwrap();
        batches_in(&logs[i + 1])[0].2
    };
    for verify_rolled in [VerifyRolled::Startup, VerifyRolled::Background] {
        let d = fx.copy();
        let seg_log = partition_dir(d.path(), TOPIC, 0).join(seg.file_name().unwrap());
        // Cut at a batch boundary: what is left is all valid, but offsets are missing.
        set_len(&seg_log, last_pos);
        let log = open(
            d.path(),
            crash_opts(verify_rolled, RecoveryMode::TolerateTailCorruption),
        );
        let p = topic_part(&log);
        let want: Vec<Got> = fx
            .batches
            .iter()
            .filter(|b| b.0 < last_base || b.0 >= end)
            .map(|b| Got::Batches(vec![b.clone()]))
            .collect::<Vec<_>>();
        let got = walk(&p);
        let i = got
            .iter()
            .position(|g| {
                *g == Got::Fenced {
                    from: last_base,
                    to: end,
                }
            })
            .unwrap_or_else(|| panic!("{verify_rolled:?}: missing offsets fenced: {got:?}"));
        let mut without = got.clone();
        without.remove(i);
        assert_eq!(without, want, "{verify_rolled:?}");
        assert_eq!(
            read_at(&p, last_base, 1 << 20),
            Got::Fenced {
                from: last_base,
                to: end
            }
        );
    }
}

#[test]
fn with_a_sparse_index_the_fence_ends_at_the_next_valid_batch_not_the_next_index_entry() {
    // The production shape: several batches per index entry.
    let opts = LogOptions {
        segment_bytes: 4096,
        index_interval_bytes: 512,
        ..crash_opts(VerifyRolled::Startup, RecoveryMode::TolerateTailCorruption)
    };
    let dir = scratch_dir();
    let mut batches = Vec::new();
    {
        let log = open(dir.path(), opts.clone());
        let p = part(&log, TOPIC);
        for i in 0..40u64 {
            let b = batch(b"key", 1 + (i % 2) as usize, 40 + (i * 11 % 40) as usize, i);
            let a = p.append(&b).unwrap();
            batches.push((a.base_offset, stamped(&b, a.base_offset)));
        }
        log.close().unwrap();
    }
    let pdir = partition_dir(dir.path(), TOPIC, 0);
    let seg = segment_logs(&pdir)[0].clone();
    let idx = std::fs::read(idx_of(&seg)).unwrap();
    let entries: Vec<(u64, u64)> = idx
        .chunks(8)
        .map(|e| {
            let rel = u32::from_be_bytes(e[..4].try_into().unwrap());
            let pos = u32::from_be_bytes(e[4..].try_into().unwrap());
            (u64::from(rel), u64::from(pos))
        })
        .collect();
    assert!(entries.len() >= 3, "{entries:?}");
    let inside = batches_in(&seg);
    // The second batch after the second entry: valid batches follow it
    // before the third entry. Verification resumes at the first of them, as
    // recovery of an active segment does: only the damaged batch is fenced.
    let first = inside.iter().position(|b| b.0 == entries[1].1).unwrap();
    let (pos, len, base) = inside[first + 1];
    assert!(
        inside[first + 2].0 < entries[2].1,
        "batches share the interval"
    );
    let to = inside[first + 2].2;
    flip_bit(&seg, pos + len - 1, 0);
    let log = open(dir.path(), opts);
    let p = topic_part(&log);
    let mut want: Vec<Got> = Vec::new();
    for b in &batches {
        if b.0 < base || b.0 >= to {
            want.push(Got::Batches(vec![b.clone()]));
        } else if b.0 == base {
            want.push(Got::Fenced { from: base, to });
        }
    }
    assert_eq!(walk(&p), want);
    // The batch right after the damage, which has no index entry, is served.
    let after = batches.iter().find(|b| b.0 == to).unwrap().clone();
    assert!(matches!(read_at(&p, to, 1), Got::Batches(ref got) if got[0] == after));
}

/// Fuzzing finding 1 (fuzz/README.md): in a compacted topic, recovery fences
/// damage in the active segment by exact continuity and rolls the segment.
/// A restart must verify that segment by the same rule: a batch whose base
/// offset is wrong (the CRC does not cover it) stays fenced, and the restart
/// serves and fences exactly what the recovery did.
#[test]
fn a_compacted_topics_fence_in_its_active_segment_survives_a_restart() {
    let opts = || LogOptions {
        segment_bytes: 1 << 20,
        ..crash_opts(VerifyRolled::Startup, RecoveryMode::TolerateTailCorruption)
    };
    let dir = scratch_dir();
    let log = open(dir.path(), opts());
    log.create_topic(
        TOPIC,
        TopicSettings {
            partitions: 1,
            cleanup: Cleanup::Compact,
            retention_ms: 0,
            retention_bytes: 0,
        },
    )
    .unwrap();
    let p = part(&log, TOPIC);
    for i in 0..4u64 {
        // 5.6 KB in all: more than a slot holds, so the partition moves
        // out into a directory of segment files.
        p.append(&batch(format!("key{i}").as_bytes(), 2, 700, i))
            .unwrap();
    }
    drop(p);
    log.close().unwrap();
    drop(log);
    let pdir = partition_dir(dir.path(), TOPIC, 0);
    let active = pdir.join(format!("{:020}.log", 0));
    let inside = batches_in(&active);
    assert_eq!(inside.len(), 4);
    // The first batch claims offset 1 (its CRC still holds), the second is
    // damaged; the third and fourth are intact.
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(&active)
        .unwrap();
    std::os::unix::fs::FileExt::write_all_at(
        &f,
        &1u64.to_be_bytes(),
        hermit_protocol::record::BASE_OFFSET_AT as u64,
    )
    .unwrap();
    drop(f);
    flip_bit(&active, inside[1].0 + inside[1].1 - 1, 3);
    let (third_pos, third) = (inside[2].0, inside[2].2);
    std::fs::remove_file(dir.path().join(hermit_broker::log::CLEAN_FILE)).unwrap();

    let seen = |log: &Log| {
        let p = topic_part(log);
        let ranges: Vec<_> = p
            .corrupt_ranges()
            .iter()
            .map(|r| (r.from_offset, r.to_offset, r.from_pos, r.to_pos))
            .collect();
        (ranges, walk(&p), read_at(&p, 1, 1 << 16), p.bounds())
    };
    let log = open(dir.path(), opts());
    let first = seen(&log);
    assert_eq!(first.0, vec![(0, third, 0, third_pos)], "recovery's fence");
    assert_eq!(first.2, Got::Fenced { from: 0, to: third });
    log.close().unwrap();
    drop(log);
    assert!(pdir.join(format!("{:020}.dense", 0)).exists());
    for _ in 0..2 {
        let log = open(dir.path(), opts());
        assert_eq!(seen(&log), first, "a restart serves what recovery served");
        log.close().unwrap();
    }
    // `hermit log check` judges the segment by the same rule.
    let report = hermit_broker::log::check::check_dir(dir.path()).unwrap();
    let first_segment = &report.partitions[0].segments[0];
    assert!(
        matches!(
            first_segment.findings[..],
            [hermit_broker::log::check::Finding::Corrupt { position: 0, .. }]
        ),
        "{first_segment:?}"
    );
}
