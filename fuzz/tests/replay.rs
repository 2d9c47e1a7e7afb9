//! Replays every saved fuzz input through its target: `corpus/<target>/`
//! (seeds and the minimised queue of the last campaign) and
//! `regressions/<target>/` (each crash found, after its fix). A target's
//! properties are `assert!`s, so a regression fails this test with the name
//! of the file that triggers it.

use std::path::{Path, PathBuf};

fn inputs(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.expect("readable directory entry").path())
        .filter(|p| p.is_file() && p.file_name().is_some_and(|n| n != "README.md"))
        .collect();
    files.sort();
    files
}

fn replay(kind: &str) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut total = 0;
    for (name, target) in hermit_fuzz::TARGETS {
        for file in inputs(&root.join(kind).join(name)) {
            let data = std::fs::read(&file).expect("readable input");
            let outcome = std::panic::catch_unwind(|| target(&data));
            assert!(outcome.is_ok(), "{name}: {} fails", file.display());
            total += 1;
        }
    }
    total
}

#[test]
fn corpora_replay() {
    let n = replay("corpus");
    // Every target ships seeds: an empty corpus means the files went missing.
    assert!(
        n >= hermit_fuzz::TARGETS.len(),
        "only {n} corpus inputs for {} targets",
        hermit_fuzz::TARGETS.len()
    );
}

#[test]
fn regressions_replay() {
    replay("regressions");
}

#[test]
fn every_target_has_a_corpus() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    for (name, _) in hermit_fuzz::TARGETS {
        assert!(
            !inputs(&root.join(name)).is_empty(),
            "corpus/{name}/ is empty"
        );
    }
}

/// The `ws` target would pass vacuously if the adapter read nothing: check
/// that canonical frames come through, and a violation ends the stream.
#[test]
fn ws_harness_passes_messages_and_reports_violations() {
    use hermit_fuzz::broker::{WS_MAX_MESSAGE, put_frame};
    let hello = hermit_protocol::Hello::client().encode();
    let ping = [0, 0, 0, 5, 0x08, 0, 0, 0, 1];
    let mut client = Vec::new();
    put_frame(&mut client, 0x2, &hello);
    put_frame(&mut client, 0x2, &ping);
    put_frame(&mut client, 0x8, &1000u16.to_be_bytes());
    let got = hermit_broker::fuzzing::ws_inbound(&client, 3, 5, WS_MAX_MESSAGE);
    assert_eq!(got.bytes, [&hello[..], &ping[..]].concat());
    assert!(got.error.is_none(), "{:?}", got.error);

    let mut text = Vec::new();
    put_frame(&mut text, 0x2, &hello);
    put_frame(&mut text, 0x1, b"hi");
    let got = hermit_broker::fuzzing::ws_inbound(&text, 0, 64, WS_MAX_MESSAGE);
    assert_eq!(got.bytes, hello);
    assert!(got.error.is_some(), "a text message is a violation");
}
