//! `hermit`: run the HermitMQ broker, manage keys, produce and consume sealed
//! messages, inspect data directories and (with the default cargo feature
//! `bench`) measure.
//!
//! # Layout
//! - `broker`: `hermit broker` — configuration, logging, signals, the server.
//! - `password`: where key file passwords come from (file, env, tty without echo).
//! - `keys`: `hermit keygen|pubkey|key import|key export`; key and `.pub` files.
//! - `conn`: `--broker`, the async runtime, client logging.
//! - `produce`: `hermit produce` — seal lines or files to recipients and send them.
//! - `consume`: `hermit consume` — read, open and print (text, jsonl, raw).
//! - `demo`: `hermit demo` — an in-process broker, Alice and Bob, disk vs. plaintext.
//! - `topics`: `hermit topics list|create|describe|delete`.
//! - `compat`: `hermit compat encrypt|decrypt`, the browser article's messages.
//! - `tls`: `hermit tls self-signed` — a development CA and broker certificate.
//! - `logtool`: `hermit log check|dump` — offline data directory inspection.
//! - `top`: `hermit top` — a live view of a broker's `/metrics`.
//! - `mls`: `hermit devices|keypackages|group|chat|contacts|account` —
//!   conversations on MLS and who is who (docs/MLS.md §10).
//! - `exit`: exit codes and error classification.
//! - `out`: writing to stdout, where a closed pipe is a quiet stop, and the
//!   one escape everything shown from the broker or a record goes through.
//!
//! stdout carries data only; logs, progress and errors go to stderr.

// No function over 120 lines (clippy.toml): long ones are prompts to ask
// what they are two of. Tests may be longer.
#![cfg_attr(not(test), warn(clippy::too_many_lines))]

// First: its `outln!`/`out!` macros are used by the modules below.
#[macro_use]
mod out;

mod broker;
mod compat;
mod conn;
mod consume;
mod demo;
mod exit;
mod keys;
mod logtool;
mod mls;
mod password;
mod produce;
mod tls;
mod top;
mod topics;

use clap::{CommandFactory, Parser, Subcommand};

/// HermitMQ: a message broker that never sees what it carries.
#[derive(Debug, Parser)]
#[command(name = "hermit", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the broker (listens on 127.0.0.1:9092 with ./hermit-data by default).
    Broker(broker::BrokerArgs),
    /// Make a key pair: a password-protected key file and a `.pub` file.
    Keygen(keys::KeygenArgs),
    /// Print a key's public key and fingerprint (no password needed).
    Pubkey(keys::PubkeyArgs),
    /// Import or export private keys in Web Crypto's PKCS#8 form.
    #[command(subcommand)]
    Key(keys::KeyCommand),
    /// Seal messages (one per line, or a whole file) and send them.
    Produce(produce::ProduceArgs),
    /// Read a topic and print the messages addressed to you.
    Consume(consume::ConsumeArgs),
    /// Run a throwaway broker, have Alice send Bob sealed messages, and show
    /// what the broker stored next to what Bob read.
    Demo(demo::DemoArgs),
    /// An account's devices: list, publish the list, bind a new device.
    #[command(subcommand)]
    Devices(mls::devices::DevicesCommand),
    /// Publish this device's KeyPackages (so that others can invite it).
    #[command(subcommand)]
    Keypackages(mls::devices::KeyPackagesCommand),
    /// Conversations on MLS: create, invite, join, send, read, and change
    /// who is in them.
    #[command(subcommand)]
    Group(mls::group::GroupCommand),
    /// Chat with one other account: send each line of stdin, print what
    /// arrives.
    Chat(mls::chat::ChatArgs),
    /// Who is who: contacts by name, their keys from their signed device
    /// lists, safety numbers to verify them.
    #[command(subcommand)]
    Contacts(mls::contacts::ContactsCommand),
    /// The account itself: rotate its key (on the account's own device).
    #[command(subcommand)]
    Account(mls::account::AccountCommand),
    /// Create, list, describe and delete topics.
    #[command(subcommand)]
    Topics(topics::TopicsCommand),
    /// Encrypt or decrypt the browser article's `{iv, data}` messages by hand.
    #[command(subcommand)]
    Compat(compat::CompatCommand),
    /// Make TLS certificates for trying a TLS listener.
    #[command(subcommand)]
    Tls(tls::TlsCommand),
    /// Inspect a data directory offline.
    #[command(subcommand)]
    Log(logtool::LogCommand),
    /// Watch a broker: rates per partition, group lag, latencies (from its
    /// admin listener's /metrics; `--once` prints one snapshot).
    Top(top::TopArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Measure: stress, catchup, rtt, recovery, topics, soak (see docs/BENCHMARKS.md).
    #[cfg(feature = "bench")]
    #[command(subcommand)]
    Bench(hermit_benches::BenchCommand),
}

fn main() -> std::process::ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                exit::USAGE.into()
            } else {
                std::process::ExitCode::SUCCESS
            };
        }
    };
    let result = match cli.command {
        Command::Broker(args) => broker::run(args),
        Command::Keygen(args) => keys::keygen(args),
        Command::Pubkey(args) => keys::pubkey(args),
        Command::Key(cmd) => keys::key(cmd),
        Command::Produce(args) => produce::run(args),
        Command::Consume(args) => consume::run(args),
        Command::Demo(args) => demo::run(args),
        Command::Devices(cmd) => mls::devices::devices(cmd),
        Command::Keypackages(cmd) => mls::devices::key_packages(cmd),
        Command::Group(cmd) => mls::group::run(cmd),
        Command::Chat(args) => mls::chat::run(args),
        Command::Contacts(cmd) => mls::contacts::run(cmd),
        Command::Account(cmd) => mls::account::run(cmd),
        Command::Topics(cmd) => topics::run(cmd),
        Command::Compat(cmd) => compat::run(cmd),
        Command::Tls(cmd) => tls::run(cmd),
        Command::Log(cmd) => logtool::run(cmd),
        Command::Top(args) => top::run(args),
        Command::Completions { shell } => {
            // Into memory, then through `out` (clap_complete::generate
            // panics when stdout is closed).
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "hermit", &mut script);
            out::write(&script)
        }
        #[cfg(feature = "bench")]
        Command::Bench(cmd) => hermit_benches::run(cmd),
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        // The reader of stdout went away (`| head`): a normal way to stop.
        Err(e) if out::stopped(&e) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            // The chain may quote the broker (an adversary): escaped.
            errln!("error: {e:#}");
            exit::code_for(&e).into()
        }
    }
}
