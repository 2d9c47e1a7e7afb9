//! The `hermit` command line as a user and a script see it: exit codes,
//! password handling, key files, Web Crypto interop, the demo.
//!
//! The interop tests drive Node's `crypto.subtle` through the client's own
//! Web Crypto driver (`client/tests/js/interop.mjs`). They fail — they do
//! not skip — when `node` is missing: interop is a requirement.

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use hermit_e2e_tests::{
    PASSWORD, assert_code, assert_ok, keygen, path_str, run_hermit, run_hermit_without_tty,
    start_broker,
};
use serde_json::{Value, json};

const PW: (&str, &str) = ("HERMIT_PASSWORD", PASSWORD);

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("stdout is UTF-8")
}

/// One request to Node's Web Crypto (see the module docs).
fn node(request: &Value) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../client/tests/js/interop.mjs");
    let mut child = Command::new("node")
        .arg(&script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("these tests need Node.js 18+ as `node` on PATH: {e}"));
    child
        .stdin
        .take()
        .expect("piped stdin")
        .write_all(&serde_json::to_vec(request).expect("serialize"))
        .expect("write to node");
    let out = child.wait_with_output().expect("wait for node");
    assert!(out.status.success(), "node failed: {}", stderr(&out));
    serde_json::from_slice(&out.stdout).expect("node answers JSON")
}

/// The base64 SPKI line of a `.pub` file.
fn spki_of(pub_file: &Path) -> String {
    let text = std::fs::read_to_string(pub_file).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(lines.len(), 1, "{text}");
    lines[0].to_owned()
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["frobnicate"][..],
        &["produce", "-t", "chat"],
        &["consume", "--identity", "x.key"],
        &[
            "consume", "-t", "c", "-i", "k", "--trust", "p", "-o", "soon",
        ],
        &["topics", "delete", "chat"],
        &["completions", "tcsh"],
    ] {
        let out = run_hermit(args, b"", &[]);
        assert_code(&out, 2);
        assert!(
            out.stdout.is_empty(),
            "{args:?}: usage errors print to stderr"
        );
    }
    // --help is not an error.
    assert_code(&run_hermit(&["produce", "--help"], b"", &[]), 0);
}

#[test]
fn an_unreachable_broker_exits_3() {
    let dir = tempfile::tempdir().unwrap();
    let (key, pubf) = keygen(dir.path(), "alice");
    // Port 1 on loopback: nothing listens there.
    let refused = "127.0.0.1:1";
    let out = run_hermit(&["topics", "list", "--broker", refused], b"", &[]);
    assert_code(&out, 3);
    assert!(
        stderr(&out).contains("connection refused") || stderr(&out).contains("Connection refused")
    );
    let out = run_hermit(
        &[
            "produce",
            "-t",
            "chat",
            "-i",
            path_str(&key),
            "--to",
            path_str(&pubf),
        ],
        b"hello\n",
        &[PW, ("HERMIT_BROKER", refused)],
    );
    assert_code(&out, 3);
    assert!(stderr(&out).starts_with("error: "), "{}", stderr(&out));
}

#[test]
fn a_wrong_password_exits_4() {
    let dir = tempfile::tempdir().unwrap();
    let (key, pubf) = keygen(dir.path(), "bob");
    let wrong = ("HERMIT_PASSWORD", "Tr0ub4dor&3");
    let out = run_hermit(&["key", "export", path_str(&key)], b"", &[wrong]);
    assert_code(&out, 4);
    assert!(stderr(&out).contains("wrong password"), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
    // Before any connection is tried: the broker address is never reached.
    let out = run_hermit(
        &[
            "consume",
            "-t",
            "chat",
            "-i",
            path_str(&key),
            "--trust",
            path_str(&pubf),
            "--broker",
            "127.0.0.1:1",
        ],
        b"",
        &[wrong],
    );
    assert_code(&out, 4);
    // From a file too (first line, newline stripped).
    let pwfile = dir.path().join("pw");
    std::fs::write(&pwfile, format!("{PASSWORD}\n")).unwrap();
    let out = run_hermit_without_tty(
        &[
            "key",
            "export",
            path_str(&key),
            "--password-file",
            path_str(&pwfile),
        ],
        b"",
        &[],
    );
    assert_code(&out, 0);
}

#[test]
fn log_check_on_a_corrupted_data_dir_exits_5() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let (alice, _) = keygen(dir.path(), "alice");
    let (_, bob_pub) = keygen(dir.path(), "bob");
    // Small segments, so the first one is sealed (complete and durable):
    // damage there is corruption, never a torn tail to truncate.
    let broker = start_broker(
        &data,
        "127.0.0.1:0",
        &[
            "--set",
            "segment_bytes=1024",
            "--set",
            "index_interval_bytes=0",
        ],
    );
    let addr = broker.addr().to_string();
    let lines: String = (1..=30).map(|i| format!("message {i}\n")).collect();
    let out = run_hermit(
        &[
            "produce",
            "-t",
            "chat",
            "-i",
            path_str(&alice),
            "--to",
            path_str(&bob_pub),
            "--batch-records",
            "1",
            "--broker",
            &addr,
        ],
        lines.as_bytes(),
        &[PW],
    );
    assert_code(&out, 0);
    assert_eq!(broker.terminate().unwrap().code(), Some(0));
    let clean = run_hermit(&["log", "check", path_str(&data)], b"", &[]);
    assert_code(&clean, 0);
    // `hermit log dump DIR | head`: no panic when the reader goes away.
    assert_quiet_stop(&["log", "dump", path_str(&data)]);
    assert_quiet_stop(&["log", "check", path_str(&data)]);

    let chat = std::fs::read_dir(data.join("partitions"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("chat@0@")
        })
        .expect("the partition directory of chat/0");
    let segment = chat.join("00000000000000000000.log");
    assert!(chat.join("00000000000000000000.idx").exists(), "rolled");
    let mut bytes = std::fs::read(&segment).unwrap();
    bytes[40] ^= 0x01;
    std::fs::write(&segment, &bytes).unwrap();
    let out = run_hermit(&["log", "check", path_str(&data)], b"", &[]);
    assert_code(&out, 5);
    assert!(stdout(&out).contains("CORRUPT"), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("integrity failure"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn keygen_never_takes_the_password_as_an_argument() {
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("k.key");
    for flag in ["--password", "--pass", "-p"] {
        let out = run_hermit(
            &["keygen", "--out", path_str(&key), flag, "hunter2"],
            b"",
            &[],
        );
        assert_code(&out, 2);
        assert!(!key.exists());
    }
    let help = stdout(&run_hermit(&["keygen", "--help"], b"", &[]));
    assert!(help.contains("--password-file"), "{help}");
    assert!(
        !help.contains("--password ")
            && !help.contains("--password=")
            && !help.contains("--password <"),
        "{help}"
    );
    // No terminal, no file, no environment: refused, nothing written.
    let out = run_hermit_without_tty(&["keygen", "--out", path_str(&key)], b"", &[]);
    assert_code(&out, 2);
    assert!(stderr(&out).contains("HERMIT_PASSWORD"), "{}", stderr(&out));
    assert!(!key.exists());
    // A password file works, and the key file is private to its owner.
    let pwfile = dir.path().join("pw");
    std::fs::write(&pwfile, "s3cret\n").unwrap();
    let out = run_hermit_without_tty(
        &[
            "keygen",
            "--out",
            path_str(&key),
            "--password-file",
            path_str(&pwfile),
        ],
        b"",
        &[],
    );
    assert_code(&out, 0);
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&key).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    // Not overwritten without --force.
    let before = std::fs::read(&key).unwrap();
    let out = run_hermit(&["keygen", "--out", path_str(&key)], b"", &[PW]);
    assert_code(&out, 2);
    assert_eq!(std::fs::read(&key).unwrap(), before);
}

#[test]
fn pubkey_needs_no_password_and_matches_keygen() {
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("alice.key");
    let made = run_hermit(&["keygen", "--out", path_str(&key)], b"", &[PW]);
    assert_code(&made, 0);
    let printed = stdout(&made);
    let pubf = dir.path().join("alice.pub");
    assert_eq!(std::fs::read_to_string(&pubf).unwrap(), printed);
    for source in [path_str(&key), path_str(&pubf)] {
        let out = run_hermit_without_tty(&["pubkey", source], b"", &[]);
        assert_code(&out, 0);
        assert_eq!(stdout(&out), printed);
    }
    let spki = spki_of(&pubf);
    let fp = run_hermit_without_tty(&["pubkey", "--fingerprint", &spki], b"", &[]);
    assert_code(&fp, 0);
    let hex = stdout(&fp).trim().to_owned();
    assert_eq!(hex.len(), 64);
    // The comment line shows the same fingerprint in groups of four.
    let grouped: String = printed
        .lines()
        .next()
        .unwrap()
        .split(": ")
        .nth(1)
        .unwrap()
        .replace(' ', "");
    assert_eq!(grouped, hex);
}

#[test]
fn a_web_crypto_key_imports_and_exports_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let keys = node(&json!({"op": "keygen", "count": 2, "alg": "ECDH"}));
    for (i, k) in keys.as_array().unwrap().iter().enumerate() {
        let pkcs8 = k["pkcs8"].as_str().unwrap();
        let spki = k["spki"].as_str().unwrap();
        let out_key = dir.path().join(format!("web{i}.key"));
        // The first from stdin, the second from a file: never an argument.
        let out = if i == 0 {
            run_hermit(
                &["key", "import", "--out", path_str(&out_key)],
                pkcs8.as_bytes(),
                &[PW],
            )
        } else {
            let f = dir.path().join("pkcs8.b64");
            std::fs::write(&f, format!("{pkcs8}\n")).unwrap();
            run_hermit(
                &[
                    "key",
                    "import",
                    "--pkcs8-file",
                    path_str(&f),
                    "--out",
                    path_str(&out_key),
                ],
                b"",
                &[PW],
            )
        };
        assert_code(&out, 0);
        assert_eq!(spki_of(&dir.path().join(format!("web{i}.pub"))), spki);
        let exported = run_hermit(&["key", "export", path_str(&out_key)], b"", &[PW]);
        assert_code(&exported, 0);
        let v: Value = serde_json::from_str(stdout(&exported).trim()).unwrap();
        assert_eq!(v["pkcs8"], pkcs8, "PKCS#8 round trip");
        assert_eq!(v["spki"], spki);
        // And Web Crypto takes the export back as it is.
        let again = node(&json!({"op": "reexport", "alg": "ECDH",
            "keys": [{"pkcs8": v["pkcs8"], "spki": v["spki"]}]}));
        assert_eq!(again[0]["pkcs8"], pkcs8);
    }
    let bad = run_hermit(
        &[
            "key",
            "import",
            "--out",
            path_str(&dir.path().join("bad.key")),
        ],
        b"bm90IGEga2V5",
        &[PW],
    );
    assert_code(&bad, 2);
}

#[test]
fn the_public_key_never_overwrites_the_private_key() {
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("k");
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let roundabout = dir.path().join("sub/../k");
    for pub_out in [&key, &roundabout] {
        let out = run_hermit(
            &[
                "keygen",
                "--out",
                path_str(&key),
                "--pub-out",
                path_str(pub_out),
                "--force",
            ],
            b"",
            &[PW],
        );
        assert_code(&out, 2);
        assert!(stderr(&out).contains("would overwrite the private key"));
        assert!(!key.exists());
    }
    let pkcs8 = node(&json!({"op": "keygen", "count": 1, "alg": "ECDH"}))[0]["pkcs8"]
        .as_str()
        .unwrap()
        .to_owned();
    let out = run_hermit(
        &[
            "key",
            "import",
            "--out",
            path_str(&key),
            "--pub-out",
            path_str(&key),
        ],
        pkcs8.as_bytes(),
        &[PW],
    );
    assert_code(&out, 2);
    assert!(!key.exists());
}

#[test]
fn key_import_takes_no_private_key_on_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("k.key");
    let pkcs8 = node(&json!({"op": "keygen", "count": 1, "alg": "ECDH"}))[0]["pkcs8"]
        .as_str()
        .unwrap()
        .to_owned();
    // `ps` and shell history would show it: the flag is gone.
    let out = run_hermit(
        &["key", "import", "--pkcs8", &pkcs8, "--out", path_str(&key)],
        b"",
        &[PW],
    );
    assert_code(&out, 2);
    assert!(!key.exists());
    let help = run_hermit(&["key", "import", "--help"], b"", &[]);
    assert_code(&help, 0);
    assert!(!stdout(&help).contains("--pkcs8 "), "{}", stdout(&help));
}

/// Entries of `dir` whose names start with `.` (where key writes stage
/// their temporary files).
fn hidden_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect()
}

#[test]
fn a_key_file_is_replaced_atomically_and_survives_a_failed_write() {
    use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
    use std::os::unix::process::CommandExt as _;
    let dir = tempfile::tempdir().unwrap();
    let (key, pub_file) = keygen(dir.path(), "alice");
    let old_key = std::fs::read(&key).unwrap();
    let old_pub = std::fs::read(&pub_file).unwrap();
    let old_inode = std::fs::metadata(&key).unwrap().ino();

    // A write that fails half-way: a 64-byte file size limit (RLIMIT_FSIZE
    // binds root too) with SIGXFSZ ignored, so write(2) fails with EFBIG
    // instead of the signal killing the process. Deleting the old file
    // before writing the new one would lose the key here.
    let mut cmd = Command::new(hermit_e2e_tests::hermit_bin());
    cmd.args(["keygen", "--out", path_str(&key), "--force"])
        .env(PW.0, PW.1)
        .stdin(Stdio::null());
    // SAFETY: signal and setrlimit are async-signal-safe and touch no
    // memory of the parent.
    unsafe {
        cmd.pre_exec(|| {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let limit = libc::rlimit {
                rlim_cur: 64,
                rlim_max: 64,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let failed = cmd.output().unwrap();
    assert_code(&failed, 1);
    assert!(
        stderr(&failed).contains("cannot write"),
        "{}",
        stderr(&failed)
    );
    assert_eq!(
        std::fs::read(&key).unwrap(),
        old_key,
        "the old key is intact"
    );
    assert_eq!(std::fs::read(&pub_file).unwrap(), old_pub);
    assert_eq!(hidden_files(dir.path()), Vec::<String>::new());

    // A write that succeeds: a new file renamed over the old one (a new
    // inode, not the old one truncated), 0600 even though the old file had
    // been opened up, and nothing left behind.
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = run_hermit(&["keygen", "--out", path_str(&key), "--force"], b"", &[PW]);
    assert_code(&out, 0);
    let meta = std::fs::metadata(&key).unwrap();
    assert_ne!(std::fs::read(&key).unwrap(), old_key);
    assert_ne!(meta.ino(), old_inode);
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    assert_ne!(std::fs::read(&pub_file).unwrap(), old_pub);
    assert_eq!(hidden_files(dir.path()), Vec::<String>::new());
}

#[test]
fn key_import_refuses_to_read_the_key_and_the_password_from_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("k.key");
    for extra in [&[][..], &["--pkcs8-file", "-"]] {
        let mut args = vec![
            "key",
            "import",
            "--out",
            path_str(&key),
            "--password-file",
            "-",
        ];
        args.extend(extra);
        let out = run_hermit(&args, format!("{PASSWORD}\n").as_bytes(), &[]);
        assert_code(&out, 2);
        assert!(
            stderr(&out).contains("cannot both come from stdin"),
            "{}",
            stderr(&out)
        );
        assert!(!key.exists());
    }
}

#[test]
fn produce_refuses_an_overlong_message_and_still_sends_the_ones_before() {
    let dir = tempfile::tempdir().unwrap();
    let (alice, alice_pub) = keygen(dir.path(), "alice");
    let (bob, bob_pub) = keygen(dir.path(), "bob");
    let broker = start_broker(&dir.path().join("data"), "127.0.0.1:0", &[]);
    let addr = broker.addr().to_string();
    let env = [PW, ("HERMIT_BROKER", addr.as_str())];
    let produce = |extra: &[&str]| {
        let mut args = vec![
            "produce",
            "-t",
            "big",
            "-i",
            path_str(&alice),
            "--to",
            path_str(&bob_pub),
        ];
        args.extend(extra);
        run_hermit(&args, b"", &env)
    };
    // Two lines, then one longer than the 50 MiB limit and no end of line.
    let input = dir.path().join("input");
    let mut f = std::fs::File::create(&input).unwrap();
    f.write_all(b"one\ntwo\n").unwrap();
    let chunk = vec![b'x'; 1 << 20];
    for _ in 0..51 {
        f.write_all(&chunk).unwrap();
    }
    drop(f);
    let out = produce(&[path_str(&input)]);
    assert_code(&out, 1);
    let err = stderr(&out);
    assert!(
        err.contains("stopped after 2 messages (2 acknowledged)")
            && err.contains("message 3 is longer than 52428800 bytes"),
        "{err}"
    );
    // An endless input is refused, not read into memory.
    let out = produce(&["--file", "/dev/zero"]);
    assert_code(&out, 1);
    assert!(
        stderr(&out).contains("the input (--file) is longer than"),
        "{}",
        stderr(&out)
    );
    let read = run_hermit(
        &[
            "consume",
            "-t",
            "big",
            "-i",
            path_str(&bob),
            "--trust",
            path_str(&alice_pub),
            "--exit-on-end",
        ],
        b"",
        &env,
    );
    assert_code(&read, 0);
    assert_eq!(stdout(&read), "one\ntwo\n");
    assert_eq!(broker.terminate().unwrap().code(), Some(0));
}

#[test]
fn compat_encrypt_and_decrypt_interoperate_with_web_crypto() {
    let dir = tempfile::tempdir().unwrap();
    let (bob, bob_pub) = keygen(dir.path(), "bob");
    let bob_spki = spki_of(&bob_pub);
    let web = &node(&json!({"op": "keygen", "count": 1, "alg": "ECDH"}))[0];
    let web_spki = web["spki"].as_str().unwrap();
    let texts = [
        "hello from the browser",
        "Grüße, 世界 🔐",
        "\u{feff}BOM kept",
        "",
    ];

    // Browser → hermit, one message per line.
    let messages = node(&json!({"op": "chat_encrypt", "my_pkcs8": web["pkcs8"],
        "their_spki": bob_spki, "texts": texts}));
    let input: String = messages
        .as_array()
        .unwrap()
        .iter()
        .map(|m| format!("{}\n", serde_json::to_string(m).unwrap()))
        .collect();
    let out = run_hermit(
        &[
            "compat",
            "decrypt",
            "-i",
            path_str(&bob),
            "--peer",
            web_spki,
            "--lines",
        ],
        input.as_bytes(),
        &[PW],
    );
    assert_code(&out, 0);
    assert_eq!(stdout(&out), texts.map(|t| format!("{t}\n")).concat());

    // hermit → browser.
    let plain: String = texts.map(|t| format!("{t}\n")).concat();
    let out = run_hermit(
        &[
            "compat",
            "encrypt",
            "-i",
            path_str(&bob),
            "--peer",
            web_spki,
            "--lines",
        ],
        plain.as_bytes(),
        &[PW],
    );
    assert_code(&out, 0);
    let msgs: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(msgs.len(), texts.len());
    let opened = node(&json!({"op": "chat_decrypt", "my_pkcs8": web["pkcs8"],
        "their_spki": bob_spki, "messages": msgs}));
    assert_eq!(opened, json!(texts));

    // A whole multi-line input is one message, its bytes exactly.
    let letter = "Dear Bob,\r\nline two\n\nbye";
    let out = run_hermit(
        &[
            "compat",
            "encrypt",
            "-i",
            path_str(&bob),
            "--peer",
            web_spki,
        ],
        letter.as_bytes(),
        &[PW],
    );
    assert_code(&out, 0);
    let m: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let opened = node(&json!({"op": "chat_decrypt", "my_pkcs8": web["pkcs8"],
        "their_spki": bob_spki, "messages": [m.clone()]}));
    assert_eq!(opened, json!([letter]));
    // --iv/--data by hand, and a tampered message exits 4.
    let out = run_hermit(
        &[
            "compat",
            "decrypt",
            "-i",
            path_str(&bob),
            "--peer",
            web_spki,
            "--iv",
            m["iv"].as_str().unwrap(),
            "--data",
            m["data"].as_str().unwrap(),
        ],
        b"",
        &[PW],
    );
    assert_code(&out, 0);
    assert_eq!(out.stdout, letter.as_bytes());
    let mut data = m["data"].as_str().unwrap().to_owned();
    let flipped = if data.starts_with('A') { "B" } else { "A" };
    data.replace_range(0..1, flipped);
    let out = run_hermit(
        &[
            "compat",
            "decrypt",
            "-i",
            path_str(&bob),
            "--peer",
            web_spki,
            "--iv",
            m["iv"].as_str().unwrap(),
            "--data",
            &data,
        ],
        b"",
        &[PW],
    );
    assert_code(&out, 4);
    assert!(out.stdout.is_empty());
}

#[test]
fn the_demo_runs_with_no_arguments_in_a_few_seconds() {
    // Built (or checked by cargo) before the clock starts.
    hermit_e2e_tests::hermit_bin();
    let started = Instant::now();
    let out = run_hermit(&["demo"], b"", &[]);
    let took = started.elapsed();
    assert_code(&out, 0);
    let text = stdout(&out);
    for needle in [
        "weak, test-only Argon2id",
        "Hi Bob, it's Alice. Only you can read this.",
        "Grüße, 世界",
        "02 00 00 00 00 00 00 00",
        "no 8-byte piece of any of them is there",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in:\n{text}");
    }
    // Not a timed assert of speed, a guard against a demo that hangs or
    // runs the real key derivation: generous even for a loaded debug build.
    assert!(took < Duration::from_secs(30), "{took:?}");
    // Text that is in the broker's other files (topic.toml says
    // `cleanup = "delete"`) is no leak: only the stored records are searched,
    // and only for messages of 8 bytes or more.
    let out = run_hermit(
        &["demo", "-m", "delete", "-m", "cleanup = \"delete\""],
        b"",
        &[],
    );
    assert_code(&out, 0);
    assert!(
        stdout(&out).contains("1 message shorter than 8 bytes not searched for"),
        "{}",
        stdout(&out)
    );
}

/// `hermit args…` with stdout a pipe whose read end is already closed (as
/// after `| head` exited), so its first write to stdout fails with EPIPE.
fn run_with_closed_stdout(args: &[&str]) -> Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    Command::new(hermit_e2e_tests::hermit_bin())
        .args(args)
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap()
}

/// A closed stdout (`hermit … | head`) is a normal way to stop: exit 0,
/// nothing on stderr, in particular no panic (exit 101).
#[track_caller]
fn assert_quiet_stop(args: &[&str]) {
    let out = run_with_closed_stdout(args);
    assert_code(&out, 0);
    assert!(out.stderr.is_empty(), "{args:?}: {}", stderr(&out));
}

#[test]
fn a_closed_stdout_stops_quietly() {
    assert_quiet_stop(&["completions", "bash"]);
    assert_quiet_stop(&["demo"]);
    let dir = tempfile::tempdir().unwrap();
    let (_, pubf) = keygen(dir.path(), "alice");
    assert_quiet_stop(&["pubkey", path_str(&pubf)]);
}

#[test]
fn completions_are_generated_for_every_shell() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = run_hermit(&["completions", shell], b"", &[]);
        assert_code(&out, 0);
        let script = stdout(&out);
        assert!(
            script.contains("keygen") && script.contains("consume"),
            "{shell}"
        );
    }
}

/// A relative data directory of one component (`--data-dir data`) must
/// work like `./data`. (It once did not: the broker fsyncs the parent
/// directory of what it creates, and `Path::new("data").parent()` is
/// `Some("")`, which names no directory.)
#[test]
fn a_one_component_relative_data_dir_works() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(hermit_e2e_tests::hermit_bin())
        .args(["broker", "--listen", "127.0.0.1:0", "--data-dir", "data"])
        .args(["--admin-listen", "off"])
        .current_dir(dir.path())
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut seen = Vec::new();
    let listening = std::io::BufReader::new(child.stderr.take().unwrap())
        .lines()
        .map_while(Result::ok)
        .inspect(|l| seen.push(l.clone()))
        .any(|l| l.contains("listening"));
    let _ = child.kill();
    let _ = child.wait();
    assert!(listening, "{}", seen.join("\n"));
}

/// `hermit args` with a new pseudo-terminal as its controlling terminal
/// (and stdin; stdout and stderr are piped). Returns the child, the pty's
/// slave side (drop it so the terminal closes when the child exits; keep it
/// to read the terminal's modes), the master to type on, and everything the
/// terminal displays, read by a thread (reads block).
fn hermit_on_pty(
    args: &[&str],
) -> (
    std::process::Child,
    std::fs::File,
    std::fs::File,
    std::sync::mpsc::Receiver<Vec<u8>>,
) {
    use rustix::pty::{OpenptFlags, grantpt, openpt, ptsname, unlockpt};
    use std::io::Read as _;
    use std::os::unix::process::CommandExt;

    let master = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY).unwrap();
    grantpt(&master).unwrap();
    unlockpt(&master).unwrap();
    let name = ptsname(&master, Vec::new()).unwrap();
    let slave = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(name.to_str().unwrap())
        .unwrap();
    let mut cmd = Command::new(hermit_e2e_tests::hermit_bin());
    cmd.args(args)
        .env_remove("HERMIT_PASSWORD")
        .stdin(slave.try_clone().unwrap())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: setsid and the TIOCSCTTY ioctl are async-signal-safe.
    unsafe {
        cmd.pre_exec(|| {
            rustix::process::setsid()?;
            // stdin is the pty's slave: make it the controlling terminal.
            rustix::process::ioctl_tiocsctty(std::io::stdin())?;
            Ok(())
        });
    }
    // Checked before the spawn: once hermit runs it may already have
    // turned the echo off for its prompt.
    let modes = rustix::termios::tcgetattr(&slave).unwrap().local_modes;
    assert!(
        modes.contains(rustix::termios::LocalModes::ECHO),
        "a new terminal echoes"
    );
    let child = cmd.spawn().unwrap();
    drop(cmd);

    let (tx, rx) = std::sync::mpsc::channel::<Vec<u8>>();
    let mut reader = std::fs::File::from(master.try_clone().unwrap());
    std::thread::spawn(move || {
        let mut buf = [0u8; 1024];
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    (child, slave, std::fs::File::from(master), rx)
}

/// Reads what the terminal displays into `screen` until it shows `needle`.
fn wait_for_screen(rx: &std::sync::mpsc::Receiver<Vec<u8>>, needle: &str, screen: &mut Vec<u8>) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !String::from_utf8_lossy(screen).contains(needle) {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(bytes) => screen.extend(bytes),
            Err(_) => panic!(
                "no {needle:?} on the terminal; it shows {:?}",
                String::from_utf8_lossy(screen)
            ),
        }
    }
}

/// `hermit keygen` on a terminal: the password is asked twice on the
/// controlling terminal with echo off (the terminal shows the prompts, never
/// the password), and the key opens with it afterwards.
#[test]
fn keygen_asks_twice_on_the_terminal_without_echo() {
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("tty.key");
    let secret = "s3cret-typed-on-a-tty";
    let (child, slave, mut term, rx) = hermit_on_pty(&["keygen", "--out", path_str(&key)]);
    // Only the child may hold the slave, so the terminal closes when it exits.
    drop(slave);
    let mut screen = Vec::new();
    let wait_for = |needle: &str, screen: &mut Vec<u8>| wait_for_screen(&rx, needle, screen);
    wait_for("New password", &mut screen);
    term.write_all(format!("{secret}\n").as_bytes()).unwrap();
    wait_for("Repeat the password", &mut screen);
    term.write_all(format!("{secret}\n").as_bytes()).unwrap();
    let out = hermit_e2e_tests::wait_output(child, Duration::from_secs(60));
    assert_code(&out, 0);
    // The rest of the screen: the reader ends once no one holds the slave.
    loop {
        match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(bytes) => screen.extend(bytes),
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
            Err(e) => panic!("the terminal stays open after hermit exited: {e}"),
        }
    }
    let shown = String::from_utf8_lossy(&screen);
    assert!(
        !shown.contains(secret),
        "the password was echoed: {shown:?}"
    );
    assert!(stdout(&out).contains("fingerprint"), "{}", stdout(&out));
    let unlocked = run_hermit(
        &["key", "export", path_str(&key)],
        b"",
        &[("HERMIT_PASSWORD", secret)],
    );
    assert_code(&unlocked, 0);
}

/// Ctrl-C at the password prompt ends `hermit keygen` (by the signal, as
/// usual) with the terminal's echo back on — it is off while the password is
/// typed — and no key file written.
#[test]
fn ctrl_c_at_the_password_prompt_leaves_the_echo_on() {
    use rustix::termios::{LocalModes, tcgetattr};
    use std::os::unix::process::ExitStatusExt as _;

    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("never.key");
    let (child, slave, mut term, rx) = hermit_on_pty(&["keygen", "--out", path_str(&key)]);
    let echo = |tty: &std::fs::File| {
        tcgetattr(tty)
            .unwrap()
            .local_modes
            .contains(LocalModes::ECHO)
    };
    let mut screen = Vec::new();
    wait_for_screen(&rx, "New password", &mut screen);
    assert!(!echo(&slave), "echo is off while the password is typed");
    // Half a password, then Ctrl-C (the terminal sends SIGINT).
    term.write_all(b"half-typed\x03").unwrap();
    let out = hermit_e2e_tests::wait_output(child, Duration::from_secs(60));
    assert_eq!(
        out.status.signal(),
        Some(rustix::process::Signal::INT.as_raw()),
        "{}",
        stderr(&out)
    );
    assert!(echo(&slave), "hermit left the terminal without echo");
    assert!(!key.exists(), "a key file was written");
}

#[test]
fn tls_self_signed_writes_a_ca_and_a_broker_certificate_it_signed() {
    use rustls::client::danger::ServerCertVerifier as _;
    use rustls::pki_types::pem::PemObject as _;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
    use std::os::unix::fs::PermissionsExt as _;
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("tls");
    let out = run_hermit(
        &["tls", "self-signed", "--out", path_str(&out_dir)],
        b"",
        &[],
    );
    assert_code(&out, 0);
    assert!(out.stdout.is_empty(), "stdout carries data only");
    for hint in ["tls_listen", "tls_cert", "tls_key", "--ca"] {
        assert!(stderr(&out).contains(hint), "{hint}: {}", stderr(&out));
    }
    for (name, mode) in [
        ("ca.pem", 0o644),
        ("ca.key", 0o600),
        ("broker.pem", 0o644),
        ("broker.key", 0o600),
    ] {
        let meta = std::fs::metadata(out_dir.join(name)).unwrap();
        assert_eq!(meta.permissions().mode() & 0o777, mode, "{name}");
    }
    let ca = CertificateDer::from_pem_file(out_dir.join("ca.pem")).unwrap();
    let broker = CertificateDer::from_pem_file(out_dir.join("broker.pem")).unwrap();
    PrivateKeyDer::from_pem_file(out_dir.join("broker.key")).unwrap();
    let mut roots = rustls::RootCertStore::empty();
    roots.add(ca).unwrap();
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    let verifier =
        rustls::client::WebPkiServerVerifier::builder_with_provider(roots.into(), provider)
            .build()
            .unwrap();
    for (name, ok) in [
        ("localhost", true),
        ("127.0.0.1", true),
        ("example.com", false),
    ] {
        let r = verifier.verify_server_cert(
            &broker,
            &[],
            &ServerName::try_from(name).unwrap(),
            &[],
            UnixTime::now(),
        );
        assert_eq!(r.is_ok(), ok, "{name}: {r:?}");
    }
    // Nothing is overwritten without --force.
    let key_before = std::fs::read(out_dir.join("ca.key")).unwrap();
    let again = run_hermit(
        &["tls", "self-signed", "--out", path_str(&out_dir)],
        b"",
        &[],
    );
    assert_code(&again, 2);
    assert!(stderr(&again).contains("--force"), "{}", stderr(&again));
    assert_eq!(std::fs::read(out_dir.join("ca.key")).unwrap(), key_before);
}

#[test]
fn topics_list_pages_through_every_topic_in_the_same_format() {
    let dir = tempfile::tempdir().unwrap();
    let broker = start_broker(&dir.path().join("data"), "127.0.0.1:0", &[]);
    let addr = broker.addr().to_string();
    let names: Vec<String> = (0..25).map(|i| format!("list.{i:02}")).collect();
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(async {
            let c = hermit_client::Client::connect(addr.clone(), Default::default())
                .await
                .unwrap();
            let settings = hermit_client::TopicSettings {
                partitions: 2,
                cleanup: hermit_client::Cleanup::Delete,
                retention_ms: 0,
                retention_bytes: 0,
            };
            for n in &names {
                c.create_topic(n, settings).await.unwrap();
            }
            let mut b = hermit_protocol::BatchBuilder::new(b"");
            b.push(b"one");
            b.push(b"two");
            let batch = bytes::Bytes::from(b.finish(1).unwrap());
            c.produce("list.03", 1, hermit_client::Ack::Durable, batch)
                .await
                .unwrap();
        });
    let list = |extra: &[&str]| {
        let mut args = vec!["topics", "list", "--broker", addr.as_str()];
        args.extend(extra);
        let out = run_hermit(&args, b"", &[]);
        assert_ok(&out);
        stdout(&out)
    };
    // Pages of 10: three requests, one table.
    let paged = list(&["--page-size", "10"]);
    let lines: Vec<&str> = paged.lines().collect();
    assert_eq!(lines.len(), 26, "{paged}");
    assert_eq!(
        lines[0],
        format!(
            "{:7}  {:>10}  {:7}  {:>13}  {:>15}  {:>10}",
            "TOPIC", "PARTITIONS", "CLEANUP", "RETENTION_MS", "RETENTION_BYTES", "OFFSETS"
        )
    );
    for (line, name) in lines[1..].iter().zip(&names) {
        let cols: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(cols.len(), 6, "{line}");
        assert_eq!((cols[0], cols[1], cols[2]), (name.as_str(), "2", "delete"));
        let offsets = if name == "list.03" { "2" } else { "0" };
        assert_eq!(cols[5], offsets, "{line}");
    }
    // One page gives the same bytes.
    assert_eq!(list(&[]), paged);
    // JSON: one object per topic, in order, across pages of 7.
    let json = list(&["--output", "json", "--page-size", "7"]);
    let listed: Vec<String> = json
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            v["topic"].as_str().unwrap().to_owned()
        })
        .collect();
    assert_eq!(listed, names);
    // A page size outside 1..=1000 is a usage error.
    for bad in ["0", "1001"] {
        let out = run_hermit(
            &["topics", "list", "--broker", &addr, "--page-size", bad],
            b"",
            &[],
        );
        assert_code(&out, 2);
    }
    assert_eq!(broker.terminate().unwrap().code(), Some(0));
}
