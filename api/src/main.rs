//! `flicker`: the platform binary. It will serve the API and web UI; today it carries the
//! command-line tools `simulate` and `replay`. Run without a subcommand, it prints its help.

mod replay_cmd;
mod simulate;

use clap::{CommandFactory, Parser, Subcommand};
use std::process::ExitCode;

/// Flicker: the event-sourced tournament platform for The Final Flicker.
#[derive(Parser, Debug)]
#[command(name = "flicker", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Option<Cmd>,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Play random games with the random bot in every seat and report figures and invariant failures.
    Simulate(simulate::Args),
    /// Fold a stored event log (JSON Lines replay) and print the final state and winner.
    Replay(replay_cmd::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(Cmd::Simulate(a)) => simulate::run(a),
        Some(Cmd::Replay(a)) => replay_cmd::run(a),
        None => {
            // The server does not exist yet: show what the binary offers.
            let _ = Cli::command().print_help();
            println!();
            ExitCode::SUCCESS
        }
    }
}
