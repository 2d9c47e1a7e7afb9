use super::*;

fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn precedence_file_env_flags() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("hermit.toml");
    std::fs::write(
        &file,
        "fsync = \"never\"\nsegment_bytes = 4096\nmax_key = 10\nretention_bytes = \"unlimited\"\n",
    )
    .unwrap();
    let c = Config::load(
        Some(&file),
        env(&[
            ("HERMIT_SEGMENT_BYTES", "8192"),
            ("HERMIT_MAX_KEY", "20"),
            ("PATH", "/bin"),
        ]),
        &[("max_key", "30".into())],
    )
    .unwrap();
    assert_eq!(c.fsync, FsyncPolicy::Never);
    assert_eq!(c.segment_bytes, 8192);
    assert_eq!(c.max_key, 30);
    assert_eq!(c.retention_bytes, Limit::Unlimited);
    assert_eq!(c.max_payload, Config::default().max_payload);
}

#[test]
fn errors_name_key_and_origin() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("hermit.toml");
    std::fs::write(&file, "fsinc = \"always\"\n").unwrap();
    let e = Config::load(Some(&file), env(&[]), &[])
        .unwrap_err()
        .to_string();
    assert!(e.contains("fsinc") && e.contains("hermit.toml"), "{e}");

    std::fs::write(&file, "fsync = \"sometimes\"\n").unwrap();
    let e = Config::load(Some(&file), env(&[]), &[])
        .unwrap_err()
        .to_string();
    assert!(e.contains("fsync") && e.contains("sometimes"), "{e}");

    let e = Config::load(None, env(&[("HERMIT_SEGMENT_BYTES", "lots")]), &[])
        .unwrap_err()
        .to_string();
    assert!(e.contains("HERMIT_SEGMENT_BYTES"), "{e}");

    let e = Config::load(None, env(&[("HERMIT_FSINC", "always")]), &[])
        .unwrap_err()
        .to_string();
    assert!(e.contains("HERMIT_FSINC"), "{e}");

    let e = Config::load(None, env(&[]), &[("segment_bytes", "10".into())])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("--segment-bytes") && e.contains("segment_bytes"),
        "{e}"
    );

    let e = Config::load(None, env(&[]), &[("fsync", "interval:0".into())])
        .unwrap_err()
        .to_string();
    assert!(e.contains("--fsync"), "{e}");
    // The client's own variables are not broker settings, and not errors.
    Config::load(None, env(&[("HERMIT_PASSWORD", "x")]), &[]).unwrap();
}

/// The ACL example of docs/SECURITY.md, verbatim.
const INBOX_POLICY: &str = r#"
auth = "required"          # "off" | "optional" | "required"
admins = ["0000000000000000000000000000000000000000000000000000000000000001"]
[[acl]]
principal = "*"            # a fingerprint, "*" (any authenticated) or "anonymous"
topics = "inbox.*"         # glob; {principal} = the caller's fingerprint, hex
allow = ["produce"]
[[acl]]
principal = "*"
topics = "inbox.{principal}"
allow = ["consume", "describe"]   # also: create, delete
"#;

fn load_file(text: &str, flags: &[(&str, String)]) -> Result<Config, ConfigError> {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("hermit.toml");
    std::fs::write(&file, text).unwrap();
    Config::load(Some(&file), env(&[]), flags)
}

#[test]
fn the_admin_listener_is_on_loopback_by_default_and_needs_a_token_elsewhere() {
    let c = load_file("", &[]).unwrap();
    assert_eq!(c.admin_listen, Some("127.0.0.1:9644".parse().unwrap()));
    let off = load_file("admin_listen = \"off\"\n", &[]).unwrap();
    assert_eq!(off.admin_listen, None);
    let e = load_file("admin_listen = \"0.0.0.0:9644\"\n", &[])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("admin_token_file") && e.contains("not on loopback"),
        "{e}"
    );
    let ok = load_file(
        "admin_listen = \"0.0.0.0:9644\"\nadmin_token_file = \"/etc/hermit/token\"\n",
        &[],
    );
    assert!(ok.is_ok(), "{ok:?}");
    let e = load_file("admin_listen = \"nowhere\"\n", &[])
        .unwrap_err()
        .to_string();
    assert!(e.contains("admin_listen") || e.contains("nowhere"), "{e}");
    let e = load_file("listen = \"127.0.0.1:9644\"\n", &[])
        .unwrap_err()
        .to_string();
    assert!(e.contains("admin_listen"), "the same address twice: {e}");
}

#[test]
fn admin_hosts_is_a_file_only_list_checked_entry_by_entry() {
    assert!(load_file("", &[]).unwrap().admin_hosts.is_empty());
    let c = load_file(
        "admin_hosts = [\"metrics.example.com\", \"10.0.0.5\", \"[fd00::5]\"]\n",
        &[],
    )
    .unwrap();
    assert_eq!(c.admin_hosts.len(), 3);
    let e = load_file("admin_hosts = [\"ok.example\", \"http://x:9644/\"]\n", &[])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("`admin_hosts[1]`") && e.contains("hermit.toml"),
        "{e}"
    );
    let e = load_file(
        "admin_listen = \"off\"\nadmin_hosts = [\"metrics.example.com\"]\n",
        &[],
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("admin_hosts") && e.contains("off"), "{e}");
    let e = Config::load(None, env(&[("HERMIT_ADMIN_HOSTS", "x")]), &[])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("admin_hosts") && e.contains("config file"),
        "{e}"
    );
}

#[test]
fn the_inbox_policy_parses_and_compiles() {
    let c = load_file(
        &format!("listen = \"0.0.0.0:9092\"\npublic_names = [\"b.example\"]\n{INBOX_POLICY}"),
        &[],
    )
    .unwrap();
    assert_eq!(c.auth, AuthMode::Required);
    assert_eq!(c.admins.len(), 1);
    assert_eq!(c.acl.len(), 2);
    assert_eq!(c.acl[1].topics, "inbox.{principal}");
    assert_eq!(c.acl[1].allow, ["consume", "describe"]);
    assert_eq!(c.acl[1].groups, None);
    assert!(c.exposed_without_auth().is_empty());
    let acl = Acl::compile(c.auth, &c.admins, &c.acl).unwrap();
    let admin = acl.who(crate::auth::Principal::from_hex(&c.admins[0]));
    assert!(admin.is_admin());
}

#[test]
fn acl_preset_adds_its_rules_after_the_written_ones() {
    let c = load_file(
        &format!(
            "listen = \"0.0.0.0:9092\"\npublic_names = [\"b.example\"]\nacl_preset = \"chat-inbox\"\n{INBOX_POLICY}"
        ),
        &[],
    )
    .unwrap();
    let rules = c.acl_rules();
    assert_eq!(rules[..2], c.acl[..], "the written rules first");
    assert_eq!(
        rules[2..],
        crate::auth::preset::rules("chat-inbox").unwrap()[..]
    );
    let options = c.server_options();
    assert_eq!(options.access.rules, rules);
    // Alone, from an environment variable or a flag, with auth optional.
    for (env_pairs, flags) in [
        (vec![("HERMIT_ACL_PRESET", "chat-inbox")], vec![]),
        (vec![], vec![("acl_preset", "chat-inbox".to_owned())]),
    ] {
        let c = Config::load(
            None,
            env(&[&[("HERMIT_AUTH", "optional")], &env_pairs[..]].concat()),
            &flags,
        )
        .unwrap();
        assert!(c.acl.is_empty());
        assert_eq!(
            c.acl_rules().len(),
            crate::auth::preset::rules("chat-inbox").unwrap().len()
        );
    }
    // An error in a written rule keeps its index.
    let e = load_file(
        "auth = \"required\"\nacl_preset = \"chat-inbox\"\n[[acl]]\nprincipal = \"*\"\ntopics = \"x\"\nallow = [\"read\"]\n",
        &[],
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("`acl[0].allow`"), "{e}");
    // Unknown names and auth = "off" are refused, naming the key.
    let e = load_file("auth = \"required\"\nacl_preset = \"chat\"\n", &[])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("`acl_preset`") && e.contains("\"chat\"") && e.contains("chat-inbox"),
        "{e}"
    );
    let e = Config::load(None, env(&[("HERMIT_ACL_PRESET", "nope")]), &[])
        .unwrap_err()
        .to_string();
    assert!(e.contains("HERMIT_ACL_PRESET") && e.contains("nope"), "{e}");
    let e = load_file("acl_preset = \"chat-inbox\"\n", &[])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("`acl_preset`") && e.contains("optional") && e.contains("required"),
        "{e}"
    );
}

#[test]
fn the_secure_default() {
    // Loopback with the defaults (the README's first command).
    let c = Config::load(None, env(&[]), &[]).unwrap();
    assert_eq!(c.auth, AuthMode::Off);
    assert!(c.exposed_without_auth().is_empty());
    Config::load(None, env(&[]), &[("listen", "[::1]:9092".into())]).unwrap();

    for listen in ["0.0.0.0:9092", "[::]:9092", "192.0.2.7:9092"] {
        let e = Config::load(None, env(&[]), &[("listen", listen.into())])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`auth`") && e.contains("allow_anonymous") && e.contains(listen),
            "{e}"
        );
    }
    // The TLS listener counts too.
    let e = Config::load(
        None,
        env(&[("HERMIT_TLS_LISTEN", "0.0.0.0:9093")]),
        &[("tls_cert", "c.pem".into()), ("tls_key", "k.pem".into())],
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("`auth`") && e.contains("0.0.0.0:9093"), "{e}");

    let c = Config::load(
        None,
        env(&[("HERMIT_ALLOW_ANONYMOUS", "true")]),
        &[("listen", "0.0.0.0:9092".into())],
    )
    .unwrap();
    assert!(c.allow_anonymous);
    assert_eq!(c.exposed_without_auth(), ["0.0.0.0:9092".parse().unwrap()]);

    // With authentication on, no ACL rules is a closed broker, not an open one.
    load_file(
        "listen = \"0.0.0.0:9092\"\nauth = \"optional\"\npublic_names = [\"b.example\"]\n",
        &[],
    )
    .unwrap();
    let e = load_file(
        "listen = \"0.0.0.0:9092\"\nauth = \"required\"\nallow_anonymous = true\n",
        &[],
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("`allow_anonymous`") && e.contains("hermit.toml"),
        "{e}"
    );
}

#[test]
fn acl_errors_name_the_rule() {
    let rule = |body: &str| {
        format!(
            "auth = \"required\"\n[[acl]]\nprincipal = \"*\"\ntopics = \"a\"\nallow = [\"produce\"]\n[[acl]]\n{body}\n"
        )
    };
    for (body, key) in [
        (
            "principal = \"*\"\ntopics = \"a\"\nallow = [\"read\"]",
            "acl[1].allow",
        ),
        (
            "principal = \"bob\"\ntopics = \"a\"\nallow = [\"produce\"]",
            "acl[1].principal",
        ),
        (
            "principal = \"*\"\ntopics = \"a/b\"\nallow = [\"produce\"]",
            "acl[1].topics",
        ),
        (
            "principal = \"*\"\ntopics = \"a\"\nallow = [\"consume\"]\ngroups = \"{me}\"",
            "acl[1].groups",
        ),
        (
            "principal = \"*\"\ntopic = \"a\"\nallow = [\"produce\"]",
            "acl[1]",
        ),
        ("principal = \"*\"\nallow = [\"produce\"]", "acl[1]"),
    ] {
        let e = load_file(&rule(body), &[]).unwrap_err().to_string();
        assert!(
            e.contains(&format!("`{key}`")) && e.contains("hermit.toml"),
            "{key}: {e}"
        );
    }
    let e = load_file("admins = [\"abc\"]\nauth = \"required\"\n", &[])
        .unwrap_err()
        .to_string();
    assert!(e.contains("`admins[0]`"), "{e}");
    let e = load_file("acl = 3\n", &[]).unwrap_err().to_string();
    assert!(e.contains("`acl`"), "{e}");
    // Rules with auth off would be ignored: refused instead.
    let e = load_file(
        &rule("principal = \"*\"\ntopics = \"b\"\nallow = [\"produce\"]")
            .replace("auth = \"required\"\n", ""),
        &[],
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("`acl`") && e.contains("off"), "{e}");
    // Lists are file-only.
    let e = Config::load(None, env(&[("HERMIT_ADMINS", "x")]), &[])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("HERMIT_ADMINS") && e.contains("config file"),
        "{e}"
    );
    let e = Config::load(None, env(&[]), &[("acl", "x".into())])
        .unwrap_err()
        .to_string();
    assert!(e.contains("--acl") && e.contains("config file"), "{e}");
    assert!(Config::keys().all(|k| k != "acl" && k != "admins"));
}

#[test]
fn creation_quotas_parse_and_refuse_zero() {
    let c = load_file(
        "creations_per_minute_per_address = \"unlimited\"\nmax_group_offsets_per_principal = 7\n",
        &[],
    )
    .unwrap();
    assert_eq!(c.creations_per_minute_per_address, Limit::Unlimited);
    assert_eq!(c.server_options().quotas.max_group_offsets_per_principal, 7);
    for bad in [
        "creations_per_minute_per_address = 0\n",
        "max_group_offsets_per_principal = 0\n",
    ] {
        let e = load_file(bad, &[]).unwrap_err().to_string();
        let key = bad.split(' ').next().unwrap();
        assert!(e.contains(&format!("`{key}`")), "{e}");
    }
}

#[test]
fn claim_rates_parse_and_refuse_zero() {
    let c = load_file(
        "claims_per_minute_per_principal = \"unlimited\"\nclaims_per_minute_per_address = 7\n",
        &[],
    )
    .unwrap();
    assert_eq!(c.claims_per_minute_per_principal, Limit::Unlimited);
    assert_eq!(
        c.server_options().quotas.claims_per_minute_per_address,
        Limit::Max(7)
    );
    // Set by environment variable, as every key.
    let c = Config::load(
        None,
        env(&[("HERMIT_CLAIMS_PER_MINUTE_PER_PRINCIPAL", "5")]),
        &[],
    )
    .unwrap();
    assert_eq!(c.claims_per_minute_per_principal, Limit::Max(5));
    for bad in [
        "claims_per_minute_per_principal = 0\n",
        "claims_per_minute_per_address = 0\n",
    ] {
        let e = load_file(bad, &[]).unwrap_err().to_string();
        let key = bad.split(' ').next().unwrap();
        assert!(e.contains(&format!("`{key}`")), "{e}");
    }
}

#[test]
fn tls_and_quota_keys() {
    let c = Config::load(None, env(&[]), &[]).unwrap();
    assert_eq!(c.receive_budget_bytes, 256 << 20);
    assert_eq!(c.produce_bytes_per_sec, Limit::Unlimited);
    assert_eq!(c.fetch_bytes_per_sec, Limit::Unlimited);
    assert_eq!(c.max_topics_per_principal, 1000);
    assert_eq!(c.max_group_offsets_per_principal, 10_000);
    assert_eq!(c.creations_per_minute_per_address, Limit::Max(120));
    assert_eq!(c.claims_per_minute_per_principal, Limit::Max(60));
    assert_eq!(c.claims_per_minute_per_address, Limit::Max(240));
    assert_eq!(c.max_connections_per_principal, 1000);
    assert_eq!(c.max_connections_per_address, 1000);
    assert_eq!(c.max_parked_fetches, 256);
    assert_eq!(c.max_partitions, 64);
    assert_eq!(c.tls_listen, None);

    let c = load_file(
        "tls_listen = \"127.0.0.1:9093\"\ntls_cert = \"/etc/hermit/cert.pem\"\n\
         tls_key = \"/etc/hermit/key.pem\"\ntls_client_ca = \"/etc/hermit/ca.pem\"\n\
         produce_bytes_per_sec = 1048576\nfetch_bytes_per_sec = \"unlimited\"\n",
        &[("max_partitions", "128".into())],
    )
    .unwrap();
    assert_eq!(c.tls_listen, Some("127.0.0.1:9093".parse().unwrap()));
    assert_eq!(
        c.tls_client_ca.as_deref(),
        Some(Path::new("/etc/hermit/ca.pem"))
    );
    assert_eq!(c.produce_bytes_per_sec, Limit::Max(1 << 20));
    assert_eq!(c.max_partitions, 128);
    assert_eq!(c.listeners().count(), 2);

    for (flags, key) in [
        (vec![("tls_listen", "127.0.0.1:9093")], "tls_cert"),
        (
            vec![("tls_listen", "127.0.0.1:9093"), ("tls_cert", "c")],
            "tls_key",
        ),
        (vec![("tls_key", "k")], "tls_key"),
        (vec![("tls_client_ca", "ca")], "tls_client_ca"),
        (
            vec![
                ("tls_listen", "127.0.0.1:9092"),
                ("tls_cert", "c"),
                ("tls_key", "k"),
            ],
            "tls_listen",
        ),
        (
            vec![("receive_budget_bytes", "1000")],
            "receive_budget_bytes",
        ),
        (
            vec![("produce_bytes_per_sec", "0")],
            "produce_bytes_per_sec",
        ),
        (vec![("max_parked_fetches", "0")], "max_parked_fetches"),
        (vec![("max_partitions", "5000")], "max_partitions"),
        (
            vec![("max_partitions", "2"), ("default_partitions", "3")],
            "default_partitions",
        ),
    ] {
        let flags: Vec<(&str, String)> = flags.iter().map(|(k, v)| (*k, v.to_string())).collect();
        let e = Config::load(None, env(&[]), &flags)
            .unwrap_err()
            .to_string();
        assert!(e.contains(&format!("`{key}`")), "{key}: {e}");
    }
}

#[test]
fn websocket_keys_and_their_secure_default() {
    let c = Config::load(None, env(&[]), &[]).unwrap();
    assert_eq!(
        (c.ws_listen, c.wss_listen, c.web_root.clone()),
        (None, None, None)
    );
    assert_eq!(c.ws_max_message, 1 << 20);

    let c = load_file(
        "ws_listen = \"127.0.0.1:9094\"\nallowed_origins = [\"https://chat.example.com\"]\n\
         web_root = \"js\"\n",
        &[("ws_max_message", "65536".into())],
    )
    .unwrap();
    assert_eq!(c.ws_listen, Some("127.0.0.1:9094".parse().unwrap()));
    assert_eq!(
        c.allowed_origins,
        vec!["https://chat.example.com".to_string()]
    );
    assert_eq!(c.ws_max_message, 65536);
    assert_eq!(c.listeners().count(), 2);

    // Not on loopback: the origins must be listed, and auth is still required.
    let e = load_file("ws_listen = \"0.0.0.0:9094\"\n", &[])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("`allowed_origins`") && e.contains("not on loopback"),
        "{e}"
    );
    let e = load_file(
        "ws_listen = \"0.0.0.0:9094\"\nallowed_origins = [\"*\"]\n",
        &[],
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("`auth`") && e.contains("0.0.0.0:9094"), "{e}");
    let e = load_file(
        "allowed_origins = [\"chat.example.com\"]\nws_listen = \"127.0.0.1:1\"\n",
        &[],
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("`allowed_origins`") && e.contains("http://"),
        "{e}"
    );

    for (flags, key) in [
        (vec![("wss_listen", "127.0.0.1:9095")], "tls_cert"),
        (vec![("web_root", "js")], "web_root"),
        (vec![("ws_listen", "127.0.0.1:9092")], "ws_listen"),
        (vec![("ws_max_message", "100")], "ws_max_message"),
    ] {
        let flags: Vec<(&str, String)> = flags.iter().map(|(k, v)| (*k, v.to_string())).collect();
        let e = Config::load(None, env(&[]), &flags)
            .unwrap_err()
            .to_string();
        assert!(e.contains(&format!("`{key}`")), "{key}: {e}");
    }
    let e = Config::load(None, env(&[("HERMIT_ALLOWED_ORIGINS", "*")]), &[])
        .unwrap_err()
        .to_string();
    assert!(e.contains("only be set in the config file"), "{e}");
}

#[test]
fn the_storage_defaults_are_the_logs() {
    // Compared through `Debug`: the options hold the file system, which
    // has no equality.
    assert_eq!(
        format!("{:?}", Config::default().log_options()),
        format!("{:?}", LogOptions::default())
    );
}

#[test]
fn authentication_off_loopback_needs_the_names_clients_dial() {
    // A proof names the host the client dialled: off loopback, the broker
    // must know its names, or no client could authenticate.
    for auth in ["optional", "required"] {
        let e = load_file(
            &format!("listen = \"0.0.0.0:9092\"\nauth = \"{auth}\"\n"),
            &[],
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("`public_names`") && e.contains("0.0.0.0:9092") && e.contains(auth),
            "{e}"
        );
    }
    // On loopback, loopback names serve.
    load_file("auth = \"required\"\n", &[]).unwrap();
    // public_names (checked), or a certificate's names.
    let c = load_file(
        "listen = \"0.0.0.0:9092\"\nauth = \"required\"\npublic_names = [\"Broker.Example.\", \"[2001:db8::1]\"]\n",
        &[],
    )
    .unwrap();
    assert_eq!(c.public_names.len(), 2);
    assert!(c.check_tls_exporter, "on by default");
    let e = load_file(
        "listen = \"0.0.0.0:9092\"\nauth = \"required\"\npublic_names = [\"not a name\"]\n",
        &[],
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("\"not a name\""), "{e}");
    // public_names is a list: file only.
    let e = Config::load(None, env(&[("HERMIT_PUBLIC_NAMES", "x")]), &[])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("public_names") && e.contains("config file"),
        "{e}"
    );
    let c = load_file("check_tls_exporter = false\n", &[]).unwrap();
    assert!(!c.check_tls_exporter);
}
