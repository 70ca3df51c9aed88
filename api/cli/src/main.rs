//! `flicker`: the platform binary. With no subcommand (or `serve`) it serves the REST API, its
//! docs and the web UI (the `flicker-server` library); it also carries the command-line tools.

mod gathering;
mod organiser_key;
mod position;
mod replay;
mod rotate;
mod simulate;
mod verify;

use clap::{Parser, Subcommand};
use flicker_server::config::{DEFAULT_ADDR, DEFAULT_DATABASE_URL};
use flicker_server::{Application, Config};
use std::process::ExitCode;

/// Flicker: the event-sourced tournament platform for The Final Flicker.
#[derive(Parser, Debug)]
#[command(name = "flicker", version, about, long_about = None)]
struct Cli {
    /// Serving options, also accepted without the `serve` subcommand.
    #[command(flatten)]
    serve: ServeArgs,
    #[command(subcommand)]
    command: Option<Cmd>,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Serve the REST API and its docs (the default).
    Serve(ServeArgs),
    /// Play bot games (random or heuristic bot, optionally with classes) and report figures, a class table and invariant failures.
    Simulate(simulate::Args),
    /// Fold a stored event log (JSON Lines replay) and print the final state and winner.
    Replay(replay::Args),
    /// Print a stored game's full position at step N (`--at N`, `--viewer seat-K`), or check a position string (`--check`).
    Position(position::Args),
    /// Check a signed replay (hash chain and Ed25519 signature), then fold it like `replay`.
    Verify(verify::Args),
    /// Print the OpenAPI document.
    Openapi,
    /// Drive gatherings on a running server (`flicker gathering run --players 20`).
    Gathering(gathering::Args),
    /// Rotate a stored secret (`jwt-secret`, `replay-signing-key`, `organiser-key`): adds a new
    /// version to the store's secrets table; restart the servers to use it.
    Rotate(rotate::RotateArgs),
    /// Print the organiser key of the store (`X-Organiser-Key` for registering organisers);
    /// needed on PostgreSQL, where no key file is written.
    OrganiserKey(organiser_key::Args),
}

#[derive(clap::Args, Debug, Default)]
struct ServeArgs {
    /// Listen address.
    #[arg(long, env = "FLICKER_ADDR", default_value = DEFAULT_ADDR)]
    addr: String,
    /// Event store: `postgres://…` or a SQLite file (created with its migrations on first start).
    #[arg(long, env = "DATABASE_URL", default_value = DEFAULT_DATABASE_URL)]
    database_url: String,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(Cmd::Simulate(a)) => simulate::run(a),
        Some(Cmd::Replay(a)) => replay::run(a),
        Some(Cmd::Verify(a)) => verify::run(a),
        Some(Cmd::Position(a)) => position::run(a),
        Some(Cmd::Openapi) => {
            print!("{}", flicker_server::openapi::json());
            ExitCode::SUCCESS
        }
        Some(Cmd::Gathering(a)) => gathering::run(a),
        Some(Cmd::Rotate(a)) => rotate::run(a),
        Some(Cmd::OrganiserKey(a)) => organiser_key::run(a),
        Some(Cmd::Serve(a)) => serve(a),
        None => serve(cli.serve),
    }
}

fn serve(a: ServeArgs) -> ExitCode {
    let config = match Config::from_env() {
        Ok(c) => Config { addr: a.addr, database_url: a.database_url, ..c },
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    // Structured logs on stderr: `FLICKER_LOG` filters (default `info`); `FLICKER_LOG_FORMAT=json`
    // writes one JSON object per line for log collectors.
    flicker_server::config::init_logs(&config.log);
    let r = actix_web::rt::System::new()
        .block_on(async move { Application::build(config).await?.run_until_stopped().await });
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
