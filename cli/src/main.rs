//! `hermit`: run the HermitMQ broker, manage keys, produce and consume sealed
//! messages, inspect data directories and measure.
//!
//! # Layout
//! - `broker`: `hermit broker` — configuration, logging, signals, the server.
//! - `exit`: exit codes and error classification.
//! - `logtool`: `hermit log check|dump` — offline data directory inspection.
//!
//! stdout carries data only; logs, progress and errors go to stderr.

mod broker;
mod exit;
mod logtool;

use clap::{Parser, Subcommand};

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
    /// Inspect a data directory offline.
    #[command(subcommand)]
    Log(logtool::LogCommand),
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
        Command::Log(cmd) => logtool::run(cmd),
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            exit::code_for(&e).into()
        }
    }
}
