//! Where the load goes: a broker this command starts (`--embedded`, the
//! default: `hermit broker` as a child process on a temp directory, so its
//! CPU time and memory are measured apart from the load generator's) or a
//! running one (`--broker ADDR`).

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;

use crate::process::{BrokerProcess, Usage};

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
}

/// A broker under load.
pub enum Target {
    /// Started by us.
    Embedded {
        /// The process.
        process: BrokerProcess,
        /// Its data directory (removed on drop).
        dir: tempfile::TempDir,
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
        if let Some(addr) = &args.broker {
            return Ok(Target::External {
                addr: addr.clone(),
                pid: args.broker_pid,
            });
        }
        let dir = args.temp_data_dir()?;
        let process = Self::spawn(args, dir.path(), "127.0.0.1:0", extra)?;
        Ok(Target::Embedded { process, dir })
    }

    /// Start a broker process on `dir` (used again by the recovery scenario).
    pub fn spawn(
        args: &TargetArgs,
        dir: &std::path::Path,
        listen: &str,
        extra: &[&str],
    ) -> anyhow::Result<BrokerProcess> {
        let bin = std::env::current_exe().context("cannot find the hermit executable")?;
        let mut flags = vec!["--fsync", args.fsync.as_str()];
        flags.extend_from_slice(extra);
        BrokerProcess::start(&bin, dir, listen, &flags, Duration::from_secs(600))
            .map_err(|lines| anyhow::anyhow!("the broker did not start:\n{}", lines.join("\n")))
    }

    /// The address clients connect to.
    pub fn addr(&self) -> String {
        match self {
            Target::Embedded { process, .. } => process.addr().to_string(),
            Target::External { addr, .. } => addr.clone(),
        }
    }

    /// The broker's CPU time and memory so far, when known.
    pub fn usage(&self) -> Option<Usage> {
        match self {
            Target::Embedded { process, .. } => process.usage(),
            Target::External { pid, .. } => pid.and_then(crate::process::usage),
        }
    }

    /// Stop a started broker (SIGTERM, clean exit expected).
    pub fn stop(self) -> anyhow::Result<()> {
        if let Target::Embedded { process, dir } = self {
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
