//! People using MLS conversations through `hermit` processes only: each
//! with a key file from `hermit keygen`, a state directory of its own and
//! a broker address (a `hermit broker` or a `nats://` cluster), running
//! `hermit keypackages|group|devices|chat` commands.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use crate::{
    BrokerProcess, PASSWORD, assert_ok, fingerprint, hermit_bin, keygen, path_str, run_hermit,
    start_configured, state_home,
};

/// A `hermit broker` requiring authentication, with the chat-inbox
/// preset's rules only (no rule written by hand).
pub fn chat_inbox_broker(dir: &Path) -> BrokerProcess {
    let config = dir.join("hermit.toml");
    std::fs::write(
        &config,
        "auth = \"required\"\nacl_preset = \"chat-inbox\"\n",
    )
    .expect("write the broker's config");
    start_configured(dir, &config)
}

/// One user: one account, one device.
#[derive(Debug, Clone)]
pub struct MlsUser {
    /// A name for failure messages.
    pub name: String,
    /// The key file.
    pub key: PathBuf,
    /// Its `.pub` file.
    pub pub_file: PathBuf,
    /// Its fingerprint (the account's and the device's), hex.
    pub fp: String,
    /// The state directory (`--state-dir`).
    pub state: PathBuf,
    /// `--broker`.
    pub broker: String,
}

impl MlsUser {
    /// A new key pair `DIR/NAME.key`, state in `DIR/NAME-state`.
    pub fn new(dir: &Path, name: &str, broker: &str) -> MlsUser {
        let (key, pub_file) = keygen(dir, name);
        let fp = fingerprint(&pub_file);
        MlsUser {
            name: name.to_owned(),
            key,
            pub_file,
            fp,
            state: dir.join(format!("{name}-state")),
            broker: broker.to_owned(),
        }
    }

    /// `args` followed by this user's key file, state directory and broker.
    pub fn args(&self, args: &[&str]) -> Vec<String> {
        let mut all: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
        for (flag, value) in [
            ("--identity", path_str(&self.key)),
            ("--state-dir", path_str(&self.state)),
            ("--broker", self.broker.as_str()),
        ] {
            all.push(flag.to_owned());
            all.push(value.to_owned());
        }
        all
    }

    /// Runs `hermit ARGS…` as this user (password from the environment).
    pub fn run(&self, args: &[&str], stdin: &[u8]) -> Output {
        let all = self.args(args);
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        run_hermit(&all, stdin, &[("HERMIT_PASSWORD", PASSWORD)])
    }

    /// [`MlsUser::run`], asserting success; returns stdout.
    #[track_caller]
    pub fn ok(&self, args: &[&str], stdin: &[u8]) -> String {
        let out = self.run(args, stdin);
        if !out.status.success() {
            panic!(
                "{}: hermit {args:?} failed ({}):\nstdout:\n{}\nstderr:\n{}",
                self.name,
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        assert_ok(&out);
        String::from_utf8(out.stdout).expect("UTF-8 stdout")
    }

    /// A long-running `hermit ARGS…` as this user, stdin, stdout and
    /// stderr piped.
    pub fn spawn(&self, args: &[&str]) -> Child {
        Command::new(hermit_bin())
            .args(self.args(args))
            .env("XDG_STATE_HOME", state_home())
            .env("HERMIT_PASSWORD", PASSWORD)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn hermit")
    }
}

/// The JSON lines of `hermit group read --output jsonl` that are messages.
pub fn messages(jsonl: &str) -> Vec<serde_json::Value> {
    jsonl
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("a JSON line"))
        .filter(|v| v["event"] == "message")
        .collect()
}

/// Alice, Bob and Carol in one conversation through the CLI: each
/// publishes KeyPackages, Alice creates the group and invites Bob (by his
/// `.pub` file) and Carol (by her fingerprint), they join, each sends,
/// and each reads exactly the other two's messages, in log order, with
/// their senders. Returns the users and the topic.
pub fn three_users_talk(dir: &Path, broker: &str) -> (Vec<MlsUser>, String) {
    let users: Vec<MlsUser> = ["alice", "bob", "carol"]
        .iter()
        .map(|n| MlsUser::new(dir, n, broker))
        .collect();
    let [alice, bob, carol] = [&users[0], &users[1], &users[2]];
    for u in &users {
        let held = u.ok(&["keypackages", "publish", "--count", "2"], b"");
        assert_eq!(held.trim(), "3", "{}: two and a last-resort one", u.name);
    }
    let topic = alice.ok(&["group", "create"], b"").trim().to_owned();
    assert!(topic.starts_with("mls."), "{topic}");
    alice.ok(&["group", "invite", &topic, path_str(&bob.pub_file)], b"");
    alice.ok(&["group", "invite", &topic, &carol.fp], b"");
    for u in [bob, carol] {
        assert_eq!(u.ok(&["group", "join"], b"").trim(), topic, "{}", u.name);
    }

    alice.ok(&["group", "send", &topic, "hello from alice"], b"");
    bob.ok(&["group", "send", &topic, "-"], b"bob one\nbob two\n");
    carol.ok(&["group", "send", &topic, "carol \u{1b}[31m here"], b"");
    let said = [
        (&alice.fp, "hello from alice"),
        (&bob.fp, "bob one"),
        (&bob.fp, "bob two"),
        (&carol.fp, "carol \u{1b}[31m here"),
    ];
    for u in &users {
        let got = messages(&u.ok(&["group", "read", &topic, "--output", "jsonl"], b""));
        let want: Vec<(&String, &str)> =
            said.iter().filter(|(s, _)| **s != u.fp).copied().collect();
        let seen: Vec<(String, String)> = got
            .iter()
            .map(|m| {
                assert_eq!(m["topic"], topic.as_str());
                (
                    m["sender"].as_str().unwrap().to_owned(),
                    m["text"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        let want: Vec<(String, String)> = want
            .iter()
            .map(|(s, t)| ((*s).clone(), (*t).to_owned()))
            .collect();
        assert_eq!(seen, want, "{} read", u.name);
        let offsets: Vec<u64> = got.iter().map(|m| m["offset"].as_u64().unwrap()).collect();
        assert!(offsets.windows(2).all(|w| w[0] < w[1]), "{offsets:?}");
        // Everything was acknowledged: a second read prints nothing.
        assert_eq!(u.ok(&["group", "read", &topic], b""), "", "{}", u.name);
    }
    (users, topic)
}
