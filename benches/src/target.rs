//! Where the load goes: a broker this command starts (`--embedded`, the
//! default: `hermit broker` as a child process on a temp directory, so its
//! CPU time and memory are measured apart from the load generator's) or a
//! running one (`--broker ADDR`).
//!
//! Access control and TLS: `--identity FILE` makes every client of the run
//! authenticate with that key (its password from `HERMIT_PASSWORD`);
//! `--auth` gives the started broker `auth = "required"` with that identity
//! (or one made for the run) as its only admin; `--tls` gives it a TLS
//! listener with a certificate made for the run (`hermit tls self-signed`)
//! and sends every client over `hermits://`, trusting only that CA.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use hermit_client::ClientOptions;
use hermit_client::crypto::{Identity, KeyFile};

use crate::process::{BrokerProcess, Limits, Usage};

/// Options shared by every scenario.
#[derive(Debug, Clone, clap::Args)]
pub struct TargetArgs {
    /// Use this running broker (`host:port`, `hermit://…`, or `nats://…`)
    /// instead of starting one; broker CPU and memory are then not reported
    /// unless --broker-pid is given.
    #[arg(
        long,
        value_name = "ADDR",
        env = "HERMIT_BROKER",
        conflicts_with = "embedded"
    )]
    pub broker: Option<String>,
    /// The pid of the --broker process, to report its CPU time and memory.
    #[arg(long, value_name = "PID", requires = "broker")]
    pub broker_pid: Option<u32>,
    /// Start a broker for the run: the default when --broker is not given
    /// (the flag only makes that choice explicit).
    #[arg(long)]
    pub embedded: bool,
    /// fsync policy of the started broker: always | interval:MS | never.
    #[arg(long, default_value = "always", value_name = "POLICY")]
    pub fsync: String,
    /// Parent directory for the started broker's temp data directory.
    #[arg(long, value_name = "DIR")]
    pub data_parent: Option<PathBuf>,
    /// Repeat the scenario this many times (fresh broker each) and report the medians.
    #[arg(long, default_value_t = 1)]
    pub runs: usize,
    /// Print the results as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Authenticate every client with this key file (from `hermit
    /// keygen`; its password from `HERMIT_PASSWORD`) [default: anonymous,
    /// or a key made for the run with --auth].
    #[arg(long, value_name = "FILE")]
    pub identity: Option<PathBuf>,
    /// Start the broker with `auth = "required"` and the --identity key (or
    /// one made for the run) as its only admin: every request is then
    /// authenticated and checked against the ACL.
    #[arg(long, conflicts_with = "broker")]
    pub auth: bool,
    /// Give the started broker a TLS listener (a self-signed certificate
    /// made for the run) and connect every client over `hermits://`.
    #[arg(long, conflicts_with = "broker")]
    pub tls: bool,
    /// With --broker hermits://…: PEM file of the CA that signed the
    /// broker's certificate [default: the system's trust store].
    #[arg(long, value_name = "FILE", requires = "broker")]
    pub ca: Option<PathBuf>,
}

impl TargetArgs {
    /// A fresh temp directory for a started broker's data, under
    /// --data-parent when given (removed when dropped).
    pub fn temp_data_dir(&self) -> anyhow::Result<tempfile::TempDir> {
        match &self.data_parent {
            Some(p) => tempfile::tempdir_in(p),
            None => tempfile::tempdir(),
        }
        .context("cannot create a temp data directory")
    }

    /// The broker in a run's settings line: `embedded` or the --broker
    /// address, then `+auth`, `+tls`, `+identity` as given (so figures
    /// with and without access control are never mistaken for each other).
    pub fn broker_label(&self) -> String {
        let mut label = self.broker.as_deref().unwrap_or("embedded").to_owned();
        for (on, what) in [
            (self.auth, "+auth"),
            (self.tls, "+tls"),
            (self.identity.is_some(), "+identity"),
        ] {
            if on {
                label.push_str(what);
            }
        }
        label
    }

    /// The --identity key, unlocked with `HERMIT_PASSWORD` (a benchmark
    /// asks no questions on a terminal).
    pub fn load_identity(&self) -> anyhow::Result<Option<Identity>> {
        let Some(path) = &self.identity else {
            return Ok(None);
        };
        let bytes =
            std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
        let file = if bytes.starts_with(b"SEALKEY") {
            KeyFile::from_bytes(&bytes)
        } else {
            std::str::from_utf8(&bytes)
                .map_err(|_| hermit_client::crypto::KeyFileError::Armor { reason: "not text" })
                .and_then(KeyFile::from_armor)
        }
        .with_context(|| format!("{} is not a valid key file", path.display()))?;
        let password = std::env::var("HERMIT_PASSWORD").with_context(|| {
            format!(
                "--identity {}: set HERMIT_PASSWORD to its password",
                path.display()
            )
        })?;
        let identity = file
            .unlock(password.as_bytes())
            .with_context(|| format!("cannot unlock {}", path.display()))?;
        Ok(Some(identity))
    }
}

/// How the clients of a run reach and authenticate to the broker.
#[derive(Clone)]
struct Access {
    /// The key every client authenticates with, if any.
    identity: Option<Arc<Identity>>,
    /// The CA to trust for `hermits://`, if not the system's.
    tls_ca: Option<PathBuf>,
}

/// Files the started broker is configured with (its auth config, its TLS
/// certificate and CA), kept out of its data directory and removed with it.
struct BrokerFiles {
    /// Held so the files outlive the broker that reads them.
    _dir: tempfile::TempDir,
    /// Extra `hermit broker` flags naming them.
    flags: Vec<String>,
    /// `ca.pem` when --tls.
    ca: Option<PathBuf>,
}

impl BrokerFiles {
    fn make(args: &TargetArgs, admin: Option<&Identity>) -> anyhow::Result<BrokerFiles> {
        let dir = args.temp_data_dir()?;
        let mut flags = Vec::new();
        if let Some(admin) = admin {
            let config = dir.path().join("hermit.toml");
            let text = format!(
                "auth = \"required\"\nadmins = [\"{}\"]\n",
                admin.public_key().fingerprint().to_hex()
            );
            std::fs::write(&config, text)
                .with_context(|| format!("cannot write {}", config.display()))?;
            flags.extend(["--config".to_owned(), path_string(&config)?]);
        }
        let mut ca = None;
        if args.tls {
            let tls = dir.path().join("tls");
            let bin = std::env::current_exe().context("cannot find the hermit executable")?;
            let out = std::process::Command::new(&bin)
                .args(["tls", "self-signed", "--out"])
                .arg(&tls)
                .stdin(std::process::Stdio::null())
                .output()
                .context("cannot run hermit tls self-signed")?;
            anyhow::ensure!(
                out.status.success(),
                "hermit tls self-signed failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            // `tls_listen` may not equal `listen`, `127.0.0.1:0` twice
            // included: a free port, found by binding it once.
            let port = std::net::TcpListener::bind("127.0.0.1:0")
                .and_then(|l| l.local_addr())
                .context("cannot find a free port for the TLS listener")?
                .port();
            for (key, value) in [
                ("tls_listen", format!("127.0.0.1:{port}")),
                ("tls_cert", path_string(&tls.join("broker.pem"))?),
                ("tls_key", path_string(&tls.join("broker.key"))?),
            ] {
                flags.extend(["--set".to_owned(), format!("{key}={value}")]);
            }
            ca = Some(tls.join("ca.pem"));
        }
        Ok(BrokerFiles {
            _dir: dir,
            flags,
            ca,
        })
    }
}

fn path_string(p: &Path) -> anyhow::Result<String> {
    p.to_str()
        .map(str::to_owned)
        .with_context(|| format!("{} is not UTF-8", p.display()))
}

/// A broker under load, and how its clients connect to it.
pub struct Target {
    kind: Kind,
    access: Access,
}

// One value per run: the size of the larger variant costs nothing.
#[allow(clippy::large_enum_variant)]
enum Kind {
    /// Started by us.
    Embedded {
        /// The process.
        process: BrokerProcess,
        /// Its data directory (removed on drop).
        dir: tempfile::TempDir,
        /// Its config and TLS files (removed on drop).
        _files: BrokerFiles,
        /// `hermits://…` when it has a TLS listener the clients use.
        tls_url: Option<String>,
    },
    /// Someone else's.
    External {
        /// Its address.
        addr: String,
        /// Its pid, if known.
        pid: Option<u32>,
    },
}

impl Target {
    /// Start or name the broker for one run; `extra` are extra broker flags.
    pub fn start(args: &TargetArgs, extra: &[&str]) -> anyhow::Result<Target> {
        let mut identity = args.load_identity()?;
        if let Some(addr) = &args.broker {
            return Ok(Target {
                kind: Kind::External {
                    addr: addr.clone(),
                    pid: args.broker_pid,
                },
                access: Access {
                    identity: identity.map(Arc::new),
                    tls_ca: args.ca.clone(),
                },
            });
        }
        if args.auth && identity.is_none() {
            identity = Some(Identity::generate().context("cannot make a key for --auth")?);
        }
        let files = BrokerFiles::make(args, identity.as_ref().filter(|_| args.auth))?;
        let dir = args.temp_data_dir()?;
        let mut flags: Vec<&str> = files.flags.iter().map(String::as_str).collect();
        flags.extend_from_slice(extra);
        let process = Self::spawn(args, dir.path(), "127.0.0.1:0", &flags)?;
        let tls_url = match &files.ca {
            Some(_) => {
                let at = process
                    .tls_addr(Duration::from_secs(60))
                    .context("the broker did not log its TLS address")?;
                Some(format!("hermits://{at}"))
            }
            None => None,
        };
        Ok(Target {
            access: Access {
                identity: identity.map(Arc::new),
                tls_ca: files.ca.clone(),
            },
            kind: Kind::Embedded {
                process,
                dir,
                _files: files,
                tls_url,
            },
        })
    }

    /// Start a broker process on `dir` (used again by the recovery scenario).
    pub fn spawn(
        args: &TargetArgs,
        dir: &std::path::Path,
        listen: &str,
        extra: &[&str],
    ) -> anyhow::Result<BrokerProcess> {
        Self::spawn_with(args, dir, listen, extra, Limits::default())
    }

    /// [`Target::spawn`] under resource `limits` (the topics scenario's `--nofile`).
    pub fn spawn_with(
        args: &TargetArgs,
        dir: &std::path::Path,
        listen: &str,
        extra: &[&str],
        limits: Limits,
    ) -> anyhow::Result<BrokerProcess> {
        let bin = std::env::current_exe().context("cannot find the hermit executable")?;
        let mut flags = vec!["--fsync", args.fsync.as_str()];
        flags.extend_from_slice(extra);
        BrokerProcess::start_with(&bin, dir, listen, &flags, Duration::from_secs(600), limits)
            .map_err(|lines| anyhow::anyhow!("the broker did not start:\n{}", lines.join("\n")))
    }

    /// The address clients connect to (`hermits://…` with --tls).
    pub fn addr(&self) -> String {
        match &self.kind {
            Kind::Embedded {
                tls_url: Some(url), ..
            } => url.clone(),
            Kind::Embedded { process, .. } => process.addr().to_string(),
            Kind::External { addr, .. } => addr.clone(),
        }
    }

    /// Options for every client of the run: the --identity (or --auth)
    /// key and the CA to trust, the defaults otherwise.
    pub fn client_options(&self) -> ClientOptions {
        ClientOptions {
            identity: self.access.identity.clone(),
            tls_ca: self.access.tls_ca.clone(),
            ..ClientOptions::default()
        }
    }

    /// A started broker's data directory (`None` for --broker).
    pub fn data_dir(&self) -> Option<&Path> {
        match &self.kind {
            Kind::Embedded { dir, .. } => Some(dir.path()),
            Kind::External { .. } => None,
        }
    }

    /// The broker's CPU time and memory so far, when known.
    pub fn usage(&self) -> Option<Usage> {
        match &self.kind {
            Kind::Embedded { process, .. } => process.usage(),
            Kind::External { pid, .. } => pid.and_then(crate::process::usage),
        }
    }

    /// Stop a started broker (SIGTERM, clean exit expected).
    pub fn stop(self) -> anyhow::Result<()> {
        if let Kind::Embedded { process, dir, .. } = self.kind {
            let status = process.terminate().context("cannot stop the broker")?;
            anyhow::ensure!(status.success(), "the broker exited with {status}");
            drop(dir);
        }
        Ok(())
    }
}

/// Largest record `--size`: a record must fit in one batch under the
/// broker's default payload limit (50 MiB).
pub const MAX_RECORD_SIZE: u64 = 32 << 20;

/// A clap parser for a `usize` flag in `range` (so a bad value is refused
/// with the range in the message, not a panic or a huge allocation later).
pub fn usize_in(
    range: impl std::ops::RangeBounds<u64>,
) -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::<usize>::new().range(range)
}

/// The ack to ask for: as given, or durable unless the broker never fsyncs
/// (it refuses durable acks then).
pub fn parse_ack(acks: Option<&str>, fsync: &str) -> anyhow::Result<hermit_client::Ack> {
    use hermit_client::Ack;
    match acks {
        Some("durable") => Ok(Ack::Durable),
        Some("written") => Ok(Ack::Written),
        Some(other) => anyhow::bail!("--acks: expected durable or written, got {other:?}"),
        None if fsync == "never" => Ok(Ack::Written),
        None => Ok(Ack::Durable),
    }
}

/// A progress bar on stderr, drawn only when stderr is a terminal.
pub fn progress(len: u64, what: &str) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(len);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{msg:>10} [{bar:40}] {pos}/{len} ({per_sec})")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_message(what.to_owned());
    bar
}
