//! Topic creation and deletion on disk: creation is atomic (a failure at
//! any step leaves nothing behind), and nothing a creation or a damaged
//! topic leaves can stop the broker from starting.

mod common;

use std::path::Path;
use std::sync::Arc;

use common::*;
use hermit_broker::engine::Engine;
use hermit_broker::log::failpoints::fail_topic_creation_after;
use hermit_broker::log::{CreateStep, Log, Partition};
use hermit_protocol::Cleanup;
use hermit_protocol::frame::TopicSettings;

fn settings(partitions: u32) -> TopicSettings {
    TopicSettings {
        partitions,
        cleanup: Cleanup::Delete,
        retention_ms: 0,
        retention_bytes: 0,
    }
}

fn entries(dir: &Path) -> Vec<String> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut v: Vec<String> = rd
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    v.sort();
    v
}

fn write_some(log: &Log, topic: &str) -> Arc<Partition> {
    log.create_topic(topic, settings(1)).unwrap();
    let p = log.partition(topic, 0, false).unwrap();
    p.append(&batch(b"k", 2, 10, 1)).unwrap();
    p
}

#[test]
fn a_creation_failing_at_any_step_leaves_nothing_and_the_broker_restarts() {
    for step in [
        CreateStep::PartitionDirs,
        CreateStep::TopicFile,
        CreateStep::Renamed,
    ] {
        let dir = tempfile::tempdir().unwrap();
        {
            let log = open(dir.path(), opts(1 << 20));
            write_some(&log, "kept");
            {
                let _fail = fail_topic_creation_after(step);
                log.create_topic("new", settings(3))
                    .expect_err("the creation fails");
            }
            assert!(log.topic("new").is_none(), "{step:?}");
            assert_eq!(entries(&dir.path().join("topics")), ["kept"], "{step:?}");
            assert_eq!(entries(&dir.path().join("creating")), [] as [&str; 0]);
            assert_eq!(entries(&dir.path().join("trash")), [] as [&str; 0]);
            // Nothing in the way of trying again.
            log.create_topic("new", settings(3)).unwrap();
            log.close().unwrap();
        }
        let log = open(dir.path(), opts(1 << 20));
        assert_eq!(log.topic("new").unwrap().partitions().len(), 3, "{step:?}");
        assert_eq!(
            read_all(&log.partition("kept", 0, false).unwrap(), 0)
                .unwrap()
                .len(),
            1
        );
    }
}

#[test]
fn a_creation_failing_mid_way_leaves_engine_open_working() {
    let dir = tempfile::tempdir().unwrap();
    {
        let engine = Engine::open(dir.path(), opts(1 << 20)).unwrap();
        let _fail = fail_topic_creation_after(CreateStep::TopicFile);
        engine
            .log()
            .partition("auto", 0, true)
            .expect_err("auto-creation fails");
        engine.close().unwrap();
    }
    let engine = Engine::open(dir.path(), opts(1 << 20)).unwrap();
    assert!(engine.log().topic("auto").is_none());
    engine.log().partition("auto", 0, true).unwrap();
}

#[test]
fn leftovers_of_a_crashed_creation_are_removed_at_start() {
    let dir = tempfile::tempdir().unwrap();
    {
        let log = open(dir.path(), opts(1 << 20));
        write_some(&log, "kept");
        log.close().unwrap();
    }
    // What a crash before the rename leaves: a whole topic, outside topics/.
    let leftover = dir.path().join("creating/0000000000000001-x");
    std::fs::create_dir_all(leftover.join("0")).unwrap();
    std::fs::write(
        leftover.join("topic.toml"),
        "partitions = 1\ncleanup = \"delete\"\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("creating/stray-file"), b"junk").unwrap();
    let log = open(dir.path(), opts(1 << 20));
    assert_eq!(entries(&dir.path().join("creating")), [] as [&str; 0]);
    assert!(log.topic("x").is_none());
    assert_eq!(
        read_all(&log.partition("kept", 0, false).unwrap(), 0)
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn a_topic_that_cannot_be_loaded_is_skipped_kept_and_reserved() {
    let dir = tempfile::tempdir().unwrap();
    {
        let engine = Engine::open(dir.path(), opts(1 << 20)).unwrap();
        write_some(engine.log(), "good");
        write_some(engine.log(), "bad");
        write_some(engine.log(), "lost-toml");
        engine.close().unwrap();
    }
    let topics = dir.path().join("topics");
    let bad_toml = topics.join("bad/topic.toml");
    let original = std::fs::read_to_string(&bad_toml).unwrap();
    std::fs::write(&bad_toml, "partitions = \"many\"\n").unwrap();
    // A topic that lost its topic.toml but holds data: never deleted.
    std::fs::remove_file(topics.join("lost-toml/topic.toml")).unwrap();
    let lost_log = topics.join("lost-toml/0/00000000000000000000.log");
    let lost_bytes = std::fs::read(&lost_log).unwrap();
    {
        let engine =
            Engine::open(dir.path(), opts(1 << 20)).expect("one bad topic does not stop the start");
        let log = engine.log();
        assert!(log.topic("bad").is_none());
        assert!(log.topic("lost-toml").is_none());
        assert_eq!(
            read_all(&log.partition("good", 0, false).unwrap(), 0)
                .unwrap()
                .len(),
            1
        );
        // The name stays taken: creating it would shadow the data on disk.
        log.create_topic("bad", settings(1))
            .expect_err("the directory is in the way");
        log.partition("lost-toml", 0, true)
            .expect_err("auto-creation too");
        assert_eq!(
            std::fs::read_to_string(&bad_toml).unwrap(),
            "partitions = \"many\"\n"
        );
        engine.close().unwrap();
    }
    assert_eq!(std::fs::read(&lost_log).unwrap(), lost_bytes);
    // Repaired, it loads at the next start with its data.
    std::fs::write(&bad_toml, original).unwrap();
    let log = open(dir.path(), opts(1 << 20));
    assert_eq!(
        read_all(&log.partition("bad", 0, false).unwrap(), 0)
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn a_topic_with_the_longest_name_can_be_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let log = open(dir.path(), opts(1 << 20));
    let name = "n".repeat(249);
    write_some(&log, &name);
    log.delete_topic(&name, || Ok(())).unwrap();
    assert!(log.topic(&name).is_none());
    assert_eq!(entries(&dir.path().join("topics")), [] as [&str; 0]);
    log.create_topic(&name, settings(1)).unwrap();
}
