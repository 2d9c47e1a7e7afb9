//! The storage engine's recovery scan over an arbitrary segment file.

use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use hermit_broker::config::{FsyncPolicy, Limit, RecoveryMode, VerifyRolled};
use hermit_broker::log::segment::{idx_name, log_name};
use hermit_broker::log::{CLEAN_FILE, Log, LogOptions, ReadOutcome, StorageError, partition_dir};
use hermit_protocol::Cleanup;
use hermit_protocol::frame::TopicSettings;
use hermit_protocol::record::BatchIter;

/// The one topic of the data directory the target recovers.
const TOPIC: &str = "fuzz";

/// Data directories prepared once per process: one cleanly closed data
/// directory per cleanup policy, holding the topic's partition in a
/// directory of its own, and a scratch place for each run's copy. Never
/// dropped (a static): the next process removes them ([`crate::scratch::scratch_path`]).
struct Templates {
    root: PathBuf,
    /// `[delete, compact]`: the template directory and the partition
    /// directory inside it, relative to it.
    dirs: [(PathBuf, PathBuf); 2],
}

fn opts(mode: RecoveryMode) -> LogOptions {
    LogOptions {
        fsync: FsyncPolicy::Never,
        // Larger than any input: the fuzzed file is the active segment and
        // nothing rolls.
        segment_bytes: 1 << 30,
        index_interval_bytes: 256,
        retention_ms: Limit::Unlimited,
        recovery_mode: mode,
        verify_rolled: VerifyRolled::Background,
        partition_slots: false,
        ..LogOptions::default()
    }
}

fn templates() -> &'static Templates {
    static T: OnceLock<Templates> = OnceLock::new();
    T.get_or_init(|| {
        let root = crate::scratch::scratch_path("hermit-fuzz-recovery");
        let _ = std::fs::remove_dir_all(&root);
        let make = |name: &str, cleanup: Cleanup| {
            let dir = root.join(name);
            let log = Log::open(&dir, opts(RecoveryMode::TolerateTailCorruption))
                .expect("open the template log");
            let topic = log
                .create_topic(
                    TOPIC,
                    TopicSettings {
                        partitions: 1,
                        cleanup,
                        retention_ms: 0,
                        retention_bytes: 0,
                    },
                )
                .expect("create the template topic");
            log.partition(TOPIC, 0, false)
                .expect("open the template partition");
            log.close().expect("close the template log");
            let pdir = partition_dir(&dir, TOPIC, 0, topic.incarnation());
            let rel = pdir
                .strip_prefix(&dir)
                .expect("inside the data dir")
                .to_path_buf();
            (dir, rel)
        };
        Templates {
            dirs: [
                make("delete", Cleanup::Delete),
                make("compact", Cleanup::Compact),
            ],
            root,
        }
    })
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create the run's directory");
    for e in std::fs::read_dir(from).expect("read the template") {
        let e = e.expect("a template entry");
        let target = to.join(e.file_name());
        if e.file_type().expect("a file type").is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).expect("copy a template file");
        }
    }
}

/// What a recovered partition serves from its start.
#[derive(Debug, PartialEq, Eq)]
struct Served {
    log_start: u64,
    high_watermark: u64,
    /// `(position in the segment, batch bytes)`, in offset order.
    batches: Vec<(u64, Vec<u8>)>,
    /// The ranges recovery fenced: `(from_pos, to_pos, from_offset, to_offset)`.
    fenced: Vec<(u64, u64, u64, u64)>,
}

/// Read everything the partition serves from its start, checking each batch
/// on the way (and verifying segments from a previous run on demand).
fn serve_all(log: &Log) -> Served {
    let p = log
        .partition(TOPIC, 0, false)
        .expect("the partition opened once");
    let (log_start, hw) = p.bounds();
    assert_eq!(
        hw,
        p.next_offset(),
        "fsync = never: everything written is visible"
    );
    let mut batches = Vec::new();
    let mut offset = log_start;
    let mut scratch = Vec::new();
    let mut reads = 0u32;
    let mut jumped = false;
    let mut fenced_reads = Vec::new();
    loop {
        reads += 1;
        assert!(reads < 100_000, "reading the partition does not progress");
        let outcome = match p.read(offset, 64 * 1024, &mut scratch) {
            Ok(o) => o,
            Err(StorageError::CorruptRange { from, to, .. }) => {
                // A reader is told where the fenced range ends and goes on there.
                assert!(
                    from <= offset && to > offset,
                    "a fenced range {from}..{to} not at {offset}"
                );
                fenced_reads.push((from, to));
                offset = to;
                jumped = true;
                continue;
            }
            Err(e) => panic!("a read inside the bounds failed: {e}"),
        };
        match outcome {
            ReadOutcome::Empty { high_watermark, .. } => {
                assert_eq!(offset, high_watermark);
                break;
            }
            ReadOutcome::Unverified(seg) => {
                p.verify_segment(&seg)
                    .expect("verifying a recovered segment");
            }
            ReadOutcome::Data { range, .. } => {
                // Everything served comes from the fuzzed file: a segment
                // started after fencing damage in it is still empty.
                assert!(
                    range.file.path.ends_with(log_name(0)),
                    "served from {}",
                    range.file.path.display()
                );
                let mut buf = vec![0u8; usize::try_from(range.len).expect("a small range")];
                range
                    .file
                    .file
                    .read_exact_at(&mut buf, range.position)
                    .expect("read the served range");
                assert!(!buf.is_empty(), "a data range is never empty");
                let mut pos = range.position;
                for b in BatchIter::new(&buf) {
                    let b = b.expect("a served range holds whole batches");
                    b.verify_crc().expect("every served batch passes its CRC");
                    let h = b.header;
                    assert!(h.base_offset >= offset, "offsets go back");
                    jumped |= h.base_offset != offset;
                    offset = h.next_offset().expect("served offsets do not overflow");
                    assert!(offset <= hw, "a batch past the high watermark");
                    batches.push((pos, b.as_bytes().to_vec()));
                    pos += b.as_bytes().len() as u64;
                }
            }
        }
    }
    assert_eq!(offset, hw, "the served batches end at the high watermark");
    let fenced: Vec<_> = p
        .corrupt_ranges()
        .iter()
        .map(|r| (r.from_pos, r.to_pos, r.from_offset, r.to_offset))
        .collect();
    assert!(
        !jumped || !fenced.is_empty(),
        "offsets skip with nothing fenced"
    );
    for (from, to) in fenced_reads {
        assert!(
            fenced.iter().any(|&(_, _, f, t)| f == from && t == to),
            "a read reported {from}..{to}, which is not a fenced range"
        );
    }
    for (pos, b) in &batches {
        let end = pos + b.len() as u64;
        assert!(
            fenced
                .iter()
                .all(|&(from, to, _, _)| end <= from || *pos >= to),
            "a served batch overlaps a fenced range"
        );
    }
    Served {
        log_start,
        high_watermark: hw,
        batches,
        fenced,
    }
}

/// Recovery of an arbitrary active segment: the fuzzed bytes become the
/// `.log` of a partition in a data directory left as by a crash (no
/// clean-close marker); the broker opens it through its public API.
///
/// Byte 0 is a mode: bit 0 a compacted topic else a deleting one, bit 1
/// `recovery_mode = absolute-consistency`, bit 2 keeps the stale index of
/// the template (else there is none to trust).
///
/// Properties: with tail tolerance, recovery always opens the partition (a
/// crash can leave any bytes at the end of the active segment); what the
/// partition then serves is whole, CRC-valid batches with increasing
/// offsets (contiguous when nothing was fenced) ending at the high
/// watermark, each byte for byte what the file holds at its position and
/// none inside a fenced range; under absolute consistency it refuses the
/// file or serves all of it, fencing nothing. Recovery is idempotent:
/// opening the recovered directory again serves the same bounds, batches
/// and fenced ranges.
pub fn recovery(data: &[u8]) {
    let Some((&mode, segment)) = data.split_first() else {
        return;
    };
    let t = templates();
    let compact = mode & 1 == 1;
    let strict_mode = mode & 2 == 2;
    let (template, rel) = &t.dirs[usize::from(compact)];
    let run = t.root.join(format!("run-{}", crate::scratch::thread_tag()));
    if run.exists() {
        std::fs::remove_dir_all(&run).expect("clear the previous run");
    }
    copy_dir(template, &run);
    let pdir = run.join(rel);
    std::fs::write(pdir.join(log_name(0)), segment).expect("write the fuzzed segment");
    if mode & 4 == 0 {
        let _ = std::fs::remove_file(pdir.join(idx_name(0)));
    }
    let _ = std::fs::remove_file(run.join(CLEAN_FILE));
    let recovery_mode = if strict_mode {
        RecoveryMode::AbsoluteConsistency
    } else {
        RecoveryMode::TolerateTailCorruption
    };

    let first = {
        let log = Log::open(&run, opts(recovery_mode))
            .unwrap_or_else(|e| panic!("the catalog is intact, the log must open: {e}"));
        match log.partition(TOPIC, 0, false) {
            Ok(_) => {}
            // Refusing damage is this mode's job.
            Err(_) if strict_mode => return,
            Err(e) => panic!("tail tolerance refused an active segment: {e}"),
        }
        let got = serve_all(&log);
        log.close().expect("close after recovery");
        got
    };
    for (pos, bytes) in &first.batches {
        let at = usize::try_from(*pos).expect("a small position");
        assert_eq!(
            segment.get(at..at + bytes.len()),
            Some(&bytes[..]),
            "a served batch is not what the file holds"
        );
    }
    if strict_mode {
        assert!(
            first.fenced.is_empty(),
            "absolute consistency fenced a range"
        );
        let all: Vec<u8> = first.batches.iter().flat_map(|(_, b)| b.clone()).collect();
        assert_eq!(
            all, segment,
            "absolute consistency served less than the file"
        );
    }

    let log = Log::open(&run, opts(RecoveryMode::TolerateTailCorruption))
        .expect("the recovered directory opens");
    log.partition(TOPIC, 0, false)
        .expect("a recovered partition opens again");
    let second = serve_all(&log);
    log.close().expect("close the second time");
    // Finding 1 (fuzz/README.md) was a compacted topic whose restart served
    // a batch the recovery had fenced: it must hold for every input.
    assert_eq!(first, second, "recovery is not idempotent");
}
