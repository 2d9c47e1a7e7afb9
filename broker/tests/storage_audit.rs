//! Every topic creation (explicit, automatic, internal) and deletion is
//! logged at info with the `audit` tracing target, without keys or payloads.
//! (Its own test binary: it installs a capturing tracing subscriber.)

mod common;

use std::sync::{Arc, Mutex};

use common::*;
use hermit_broker::engine::Engine;
use hermit_protocol::Cleanup;
use hermit_protocol::frame::TopicSettings;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Level, Metadata, Subscriber};

#[derive(Debug, Clone)]
struct Seen {
    target: String,
    level: Level,
    fields: Vec<(String, String)>,
}

impl Seen {
    fn field(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<Seen>>>);

struct Fields<'a>(&'a mut Vec<(String, String)>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.push((field.name().to_owned(), format!("{value:?}")));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.push((field.name().to_owned(), value.to_owned()));
    }
}

impl Subscriber for Capture {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        let mut fields = Vec::new();
        event.record(&mut Fields(&mut fields));
        self.0.lock().unwrap().push(Seen {
            target: event.metadata().target().to_owned(),
            level: *event.metadata().level(),
            fields,
        });
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

#[test]
fn topic_creation_and_deletion_are_audited_without_keys_or_payloads() {
    let capture = Capture::default();
    let dir = tempfile::tempdir().unwrap();
    tracing::subscriber::with_default(capture.clone(), || {
        let engine = Engine::open(dir.path(), opts(1 << 20)).unwrap();
        engine
            .log()
            .create_topic(
                "explicit",
                TopicSettings {
                    partitions: 3,
                    cleanup: Cleanup::Compact,
                    retention_ms: 0,
                    retention_bytes: 0,
                },
            )
            .unwrap();
        let p = engine.log().partition("auto", 0, true).unwrap();
        p.append(&batch(b"SECRET-KEY", 1, 16, 7)).unwrap();
        engine.delete_topic("auto").unwrap();
        engine.close().unwrap();
    });
    let seen = capture.0.lock().unwrap().clone();
    let audit: Vec<&Seen> = seen.iter().filter(|s| s.target == "audit").collect();
    let summary: Vec<(String, String, String, String)> = audit
        .iter()
        .map(|s| {
            let f = |n| s.field(n).unwrap_or("-").to_owned();
            (f("message"), f("topic"), f("partitions"), f("auto_created"))
        })
        .collect();
    let row = |m: &str, t: &str, p: &str, a: &str| {
        (m.to_owned(), t.to_owned(), p.to_owned(), a.to_owned())
    };
    assert_eq!(
        summary,
        [
            row("topic created", "__consumer_offsets", "1", "false"),
            row("topic created", "__claims", "1", "false"),
            row("topic created", "explicit", "3", "false"),
            row("topic created", "auto", "1", "true"),
            row("topic deleted", "auto", "1", "-"),
        ]
    );
    assert!(audit.iter().all(|s| s.level == Level::INFO));
    for s in &seen {
        for (_, v) in &s.fields {
            assert!(!v.contains("SECRET-KEY"), "a key reached the log: {s:?}");
        }
    }
}
