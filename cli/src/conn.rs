//! What every command that talks to a broker shares: the `--broker` flag,
//! the async runtime, and quiet logging to stderr.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use hermit_client::crypto::Identity;
use hermit_client::{Client, ClientCert, ClientOptions, NatsCredentials, StateDir};
use zeroize::Zeroizing;

use crate::exit::{ExitClass, USAGE, client_error};

/// `--broker` and its TLS settings, shared by the client commands.
#[derive(Debug, Clone, clap::Args)]
pub struct BrokerAddr {
    /// Broker address: `host:port` or `hermit://host:port` (plain TCP),
    /// `hermits://host:port` (TLS), or a `nats://` URL for the NATS transport.
    #[arg(
        long,
        short = 'b',
        env = "HERMIT_BROKER",
        default_value = "127.0.0.1:9092",
        value_name = "ADDR"
    )]
    pub broker: String,
    /// For `hermits://`: PEM file of the CA that signed the broker's
    /// certificate (`ca.pem` from `hermit tls self-signed`) [default: the
    /// system's trust store].
    #[arg(long, env = "HERMIT_CA", value_name = "FILE")]
    pub ca: Option<PathBuf>,
    /// For `hermits://` with mutual TLS: the client certificate chain (PEM).
    #[arg(
        long,
        env = "HERMIT_TLS_CERT",
        value_name = "FILE",
        requires = "tls_key"
    )]
    pub tls_cert: Option<PathBuf>,
    /// The private key (PEM) of `--tls-cert`.
    #[arg(
        long,
        env = "HERMIT_TLS_KEY",
        value_name = "FILE",
        requires = "tls_cert"
    )]
    pub tls_key: Option<PathBuf>,
    /// NATS credentials for a `nats://` broker (secrets only from files or
    /// the environment, never from the command line).
    #[command(flatten)]
    pub nats: NatsAuthArgs,
    /// The client state directory (mode 0700, one process at a time): the
    /// broker ids pinned per name and port (`known-brokers`) and the
    /// generation of each sealed state saved (`state-anchors`: an older
    /// state served again is refused, exit 5) [default with
    /// an identity: $XDG_STATE_HOME/hermitmq/FINGERPRINT, else
    /// ~/.local/state/hermitmq/FINGERPRINT; without one: none].
    #[arg(long, env = "HERMIT_STATE_DIR", value_name = "DIR")]
    pub state_dir: Option<PathBuf>,
}

/// The environment variable a script may put the NATS password itself in
/// (like `HERMIT_PASSWORD` for key files); there is no flag taking it.
pub const NATS_PASSWORD_ENV: &str = "HERMIT_NATS_PASSWORD";

/// Longest secret file read (a `.creds` file is read by the SDK itself).
const MAX_SECRET_FILE: u64 = 64 << 10;

/// How a `nats://` broker is authenticated to: at most one kind. What the
/// user may then do is the NATS server's configuration (docs/SCALE-OUT.md,
/// "Credentials and permissions").
#[derive(Debug, Clone, Default, clap::Args)]
pub struct NatsAuthArgs {
    /// For `nats://`: a `.creds` file (user JWT and nkey seed, from `nsc`).
    #[arg(
        long,
        env = "HERMIT_NATS_CREDS",
        value_name = "FILE",
        conflicts_with_all = ["nats_nkey_file", "nats_token_file", "nats_user"]
    )]
    pub nats_creds: Option<PathBuf>,
    /// For `nats://`: a file holding an nkey user seed (`SU…`).
    #[arg(
        long,
        env = "HERMIT_NATS_NKEY_FILE",
        value_name = "FILE",
        conflicts_with_all = ["nats_token_file", "nats_user"]
    )]
    pub nats_nkey_file: Option<PathBuf>,
    /// For `nats://`: a file whose first line is the server's token.
    #[arg(
        long,
        env = "HERMIT_NATS_TOKEN_FILE",
        value_name = "FILE",
        conflicts_with = "nats_user"
    )]
    pub nats_token_file: Option<PathBuf>,
    /// For `nats://`: the NATS user name; its password comes from
    /// `--nats-password-file` or `HERMIT_NATS_PASSWORD`.
    #[arg(long, env = "HERMIT_NATS_USER", value_name = "NAME")]
    pub nats_user: Option<String>,
    /// The first line of FILE is the password of `--nats-user`.
    #[arg(
        long,
        env = "HERMIT_NATS_PASSWORD_FILE",
        value_name = "FILE",
        requires = "nats_user"
    )]
    pub nats_password_file: Option<PathBuf>,
}

impl NatsAuthArgs {
    /// The credentials these flags name, files read (`None`: no flag given).
    pub fn credentials(&self) -> anyhow::Result<Option<NatsCredentials>> {
        if let Some(path) = &self.nats_creds {
            return Ok(Some(NatsCredentials::creds_file(path)));
        }
        if let Some(path) = &self.nats_nkey_file {
            let seed = read_secret_line(path, "the NATS nkey seed")?;
            return Ok(Some(NatsCredentials::NKeySeed(seed)));
        }
        if let Some(path) = &self.nats_token_file {
            let token = read_secret_line(path, "the NATS token")?;
            return Ok(Some(NatsCredentials::Token(token)));
        }
        let env_password = std::env::var(NATS_PASSWORD_ENV).ok().map(Zeroizing::new);
        let Some(user) = &self.nats_user else {
            if env_password.is_some() {
                return Err(anyhow::anyhow!(
                    "{NATS_PASSWORD_ENV} is set but no --nats-user (HERMIT_NATS_USER) is given"
                ))
                .class(USAGE);
            }
            return Ok(None);
        };
        let password = match (&self.nats_password_file, env_password) {
            (Some(path), _) => read_secret_line(path, "the NATS password")?,
            (None, Some(p)) => p,
            (None, None) => {
                return Err(anyhow::anyhow!(
                    "--nats-user {user} needs a password: --nats-password-file FILE or \
                     {NATS_PASSWORD_ENV} (never on the command line)"
                ))
                .class(USAGE);
            }
        };
        Ok(Some(NatsCredentials::UserPassword {
            user: user.clone(),
            password,
        }))
    }
}

/// The first line of a secret file (without its line break); an empty one
/// is refused, as it protects nothing.
fn read_secret_line(path: &Path, what: &str) -> anyhow::Result<Zeroizing<String>> {
    use std::io::Read;
    let mut raw = Zeroizing::new(String::new());
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_SECRET_FILE).read_to_string(&mut raw))
        .with_context(|| format!("cannot read {what} from {}", path.display()))
        .class(USAGE)?;
    // Only the line break goes: a password may begin or end with a space.
    let line = raw.split('\n').next().unwrap_or("");
    let line = line.strip_suffix('\r').unwrap_or(line);
    if line.is_empty() {
        return Err(anyhow::anyhow!("{} holds no {what}", path.display())).class(USAGE);
    }
    Ok(Zeroizing::new(line.to_owned()))
}

impl BrokerAddr {
    /// Connect, authenticating with `identity` when the broker asks for it
    /// (exit 3 when the broker cannot be reached, 4 when authentication
    /// is required or refused).
    pub async fn connect(&self, identity: Option<&Identity>) -> anyhow::Result<Client> {
        self.connect_using(identity, self.state_dir(identity)?)
            .await
    }

    /// [`BrokerAddr::connect`] as `identity` with its state directory
    /// (`--state-dir` or the identity's default), which is returned too:
    /// the MLS commands keep their device's state in it. The directory is
    /// locked until both are dropped, so a second process on it is refused.
    pub async fn connect_with_state(
        &self,
        identity: &Identity,
    ) -> anyhow::Result<(Client, Arc<StateDir>)> {
        let dir = self.state_dir_of(identity)?;
        let client = self
            .connect_using(Some(identity), Some(dir.clone()))
            .await?;
        Ok((client, dir))
    }

    async fn connect_using(
        &self,
        identity: Option<&Identity>,
        state_dir: Option<Arc<StateDir>>,
    ) -> anyhow::Result<Client> {
        let options = ClientOptions {
            identity: identity.cloned().map(Arc::new),
            tls_ca: self.ca.clone(),
            tls_client_cert: match (&self.tls_cert, &self.tls_key) {
                (Some(cert), Some(key)) => Some(ClientCert {
                    cert: cert.clone(),
                    key: key.clone(),
                }),
                _ => None,
            },
            nats_credentials: self.nats.credentials()?,
            state_dir,
            ..ClientOptions::default()
        };
        Client::connect(self.broker.clone(), options)
            .await
            .map_err(client_error)
    }
}

impl BrokerAddr {
    /// The state directory to pin brokers and anchor sealed state in: `--state-dir` /
    /// `HERMIT_STATE_DIR`, else the identity's default, else none.
    fn state_dir(&self, identity: Option<&Identity>) -> anyhow::Result<Option<Arc<StateDir>>> {
        let path = match (&self.state_dir, identity) {
            (Some(dir), _) => dir.clone(),
            (None, Some(id)) => StateDir::default_path(id)?,
            (None, None) => return Ok(None),
        };
        let dir = StateDir::open(&path)
            .with_context(|| format!("cannot use the state directory {}", path.display()))?;
        Ok(Some(Arc::new(dir)))
    }

    /// The state directory of `identity` (`--state-dir` / `HERMIT_STATE_DIR`,
    /// else its default), opened and locked.
    pub fn state_dir_of(&self, identity: &Identity) -> anyhow::Result<Arc<StateDir>> {
        Ok(self
            .state_dir(Some(identity))?
            .expect("with an identity there is always a state directory"))
    }
}

/// A small runtime for one command: the client's connection tasks and the
/// producer's sender task need a few workers at most.
pub fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// Warnings and errors from the SDK to stderr (`RUST_LOG` overrides).
pub fn init_client_logging() {
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("warn"));
    // A log line may quote the broker (an error message): no colours of
    // our own, and every line through the one escape (out::EscapedStderr).
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .with_writer(|| crate::out::EscapedStderr)
        .try_init();
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        broker: BrokerAddr,
    }

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("hermit").chain(args.iter().copied()))
    }

    #[test]
    fn each_kind_of_nats_credential_comes_from_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = |name: &str, text: &str| {
            let p = dir.path().join(name);
            std::fs::write(&p, text).unwrap();
            p.display().to_string()
        };
        let password = file("pw", " two words \r\nignored\n");
        let token = file("token", "t0ken\n");
        let seed = file("seed", "SUSEED\n");
        let creds = dir.path().join("app.creds").display().to_string();

        let got = |args: &[&str]| parse(args).unwrap().broker.nats.credentials().unwrap();
        assert_eq!(
            got(&["--nats-user", "alice", "--nats-password-file", &password]),
            Some(NatsCredentials::user_password("alice", " two words "))
        );
        assert_eq!(
            got(&["--nats-token-file", &token]),
            Some(NatsCredentials::token("t0ken"))
        );
        assert_eq!(
            got(&["--nats-nkey-file", &seed]),
            Some(NatsCredentials::nkey_seed("SUSEED"))
        );
        assert_eq!(
            got(&["--nats-creds", &creds]),
            Some(NatsCredentials::creds_file(&creds))
        );
    }

    #[test]
    fn nats_credentials_are_one_kind_and_never_argv_secrets() {
        for args in [
            &["--nats-token-file", "t", "--nats-user", "u"][..],
            &["--nats-creds", "c", "--nats-nkey-file", "n"],
            &["--nats-nkey-file", "n", "--nats-token-file", "t"],
            &["--nats-password-file", "p"],
            // No flag takes a secret itself.
            &["--nats-password", "hunter2"],
            &["--nats-token", "t0ken"],
        ] {
            assert!(parse(args).is_err(), "{args:?} was accepted");
        }
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("empty");
        std::fs::write(&empty, "\n").unwrap();
        let empty = empty.display().to_string();
        let missing = dir.path().join("missing").display().to_string();
        for args in [
            &["--nats-token-file", empty.as_str()][..],
            &["--nats-nkey-file", missing.as_str()],
        ] {
            let err = parse(args).unwrap().broker.nats.credentials().unwrap_err();
            assert_eq!(crate::exit::code_for(&err), USAGE, "{err:#}");
        }
    }
}
