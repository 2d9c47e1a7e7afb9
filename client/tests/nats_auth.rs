//! NATS credentials over the NATS transport, against a real `nats-server`
//! with an `authorization` block: each kind of credential connects when
//! right, and fails with a typed, non-retriable error when missing or
//! wrong; secrets stay out of the errors. Needs the `nats` feature.

mod support;

use std::path::Path;

use hermit_client::{Client, ClientError, ClientOptions, NatsCredentials};
use support::nats::*;

/// Users with passwords and an nkey user (the public key of `nkey`).
fn users_config(nkey_public: &str) -> String {
    format!(
        r#"
authorization {{
  users = [
    {{ user: "alice", password: "wonderland-7" }}
    {{ nkey: "{nkey_public}" }}
  ]
}}
"#
    )
}

fn with(credentials: Option<NatsCredentials>) -> ClientOptions {
    ClientOptions {
        nats_credentials: credentials,
        ..ClientOptions::default()
    }
}

/// Connect and run one JetStream round trip (the INFO at connect already
/// is one; a topic creation checks the API is usable as that user).
async fn works(url: &str, credentials: NatsCredentials) {
    let c = nats_client(url, with(Some(credentials))).await;
    c.ping().await.unwrap();
    c.create_topic(&format!("auth.t{}", rand_suffix()), support::settings(1))
        .await
        .unwrap();
}

fn rand_suffix() -> u32 {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

/// A refused connect: `AuthFailed`, not retriable, counted as auth, and
/// without `secret` in its text.
async fn refused(url: &str, credentials: Option<NatsCredentials>, secret: &str) -> String {
    let err = Client::connect(url, with(credentials)).await.unwrap_err();
    assert!(matches!(err, ClientError::AuthFailed { .. }), "{err:#?}");
    assert!(!err.is_retriable(), "{err}");
    assert!(err.is_auth(), "{err}");
    let shown = format!("{err} {err:?}");
    assert!(secret.is_empty() || !shown.contains(secret), "{shown}");
    shown
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn users_with_passwords_and_nkeys_connect_and_others_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let nkey = nkeys::KeyPair::new_user();
    let seed = nkey.seed().unwrap();
    let server = NatsServer::with_config(dir.path(), &users_config(&nkey.public_key()));
    let url = server.url();

    works(
        &url,
        NatsCredentials::user_password("alice", "wonderland-7"),
    )
    .await;
    works(&url, NatsCredentials::nkey_seed(seed.clone())).await;
    // A seed file's trailing newline is not part of the seed.
    works(&url, NatsCredentials::nkey_seed(format!("{seed}\n"))).await;

    let none = refused(&url, None, "").await;
    assert!(none.contains("none were given"), "{none}");
    let wrong = refused(
        &url,
        Some(NatsCredentials::user_password("alice", "looking-glass")),
        "looking-glass",
    )
    .await;
    assert!(wrong.contains("user and password"), "{wrong}");
    refused(
        &url,
        Some(NatsCredentials::user_password("mallory", "wonderland-7")),
        "wonderland-7",
    )
    .await;
    // A valid seed of a user the server does not know.
    let stranger = nkeys::KeyPair::new_user().seed().unwrap();
    let shown = refused(
        &url,
        Some(NatsCredentials::nkey_seed(stranger.clone())),
        &stranger,
    )
    .await;
    assert!(shown.contains("nkey"), "{shown}");
    // This server knows no token at all.
    refused(&url, Some(NatsCredentials::token("t0ken")), "t0ken").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_protected_server_wants_its_token() {
    let dir = tempfile::tempdir().unwrap();
    let server =
        NatsServer::with_config(dir.path(), "authorization { token: \"s3cret-t0ken-42\" }\n");
    let url = server.url();
    works(&url, NatsCredentials::token("s3cret-t0ken-42")).await;
    refused(&url, None, "").await;
    refused(&url, Some(NatsCredentials::token("guess-1")), "guess-1").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unusable_credentials_are_named_before_connecting() {
    let dir = tempfile::tempdir().unwrap();
    let server = NatsServer::single(dir.path());
    let url = server.url();

    // Not a seed, and a seed of the wrong kind (an account's): refused by
    // the client, without echoing it.
    for bad in [
        "SUnot-a-seed".to_owned(),
        nkeys::KeyPair::new_account().seed().unwrap(),
    ] {
        let err = Client::connect(&url, with(Some(NatsCredentials::nkey_seed(bad.clone()))))
            .await
            .unwrap_err();
        assert!(matches!(err, ClientError::InvalidArgument(_)), "{err:#?}");
        assert!(!format!("{err} {err:?}").contains(&bad), "{err:?}");
    }

    // A creds file that is missing, or not one.
    let missing = dir.path().join("missing.creds");
    let junk = dir.path().join("junk.creds");
    std::fs::write(&junk, "not a creds file\n").unwrap();
    for path in [&missing, &junk] {
        let err = Client::connect(&url, with(Some(NatsCredentials::creds_file(path))))
            .await
            .unwrap_err();
        assert!(matches!(err, ClientError::InvalidArgument(_)), "{err:#?}");
        assert!(err.to_string().contains(&display(path)), "{err}");
    }

    // The server without authorization lets anyone in, with or without
    // credentials: what NATS accepts is its own configuration's business.
    works(&url, NatsCredentials::user_password("anyone", "anything")).await;
}

fn display(p: &Path) -> String {
    p.display().to_string()
}
