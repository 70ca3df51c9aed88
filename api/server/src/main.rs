//! `flicker`: the platform binary. With no subcommand (or `serve`) it serves the REST API, its
//! docs and the web UI; it also carries the command-line tools.

mod auth;
mod driver;
mod frontend;
mod gathering_cmd;
mod gathering_routes;
#[cfg(test)]
mod gathering_tests;
#[cfg(test)]
mod http_secrets_tests;
#[cfg(test)]
mod leak_scan;
mod login_throttle;
mod metrics;
mod openapi;
mod problem;
mod ratelimit;
mod replay_cmd;
mod routes;
mod secrets;
mod server;
#[cfg(test)]
mod sight_tests;
mod simulate;
mod spectate;
#[cfg(test)]
mod spectate_tests;
mod store;
mod streams;
mod verify_cmd;
#[cfg(test)]
mod window_tests;

use clap::{Parser, Subcommand};
use flicker_platform::{accounts, bots, chain, clock, clocks, gatherings, tables};
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
    Replay(replay_cmd::Args),
    /// Check a signed replay (hash chain and Ed25519 signature), then fold it like `replay`.
    Verify(verify_cmd::Args),
    /// Print the OpenAPI document.
    Openapi,
    /// Drive gatherings on a running server (`flicker gathering run --players 20`).
    Gathering(gathering_cmd::Args),
    /// Rotate a stored secret (`jwt-secret`, `replay-signing-key`, `organiser-key`): adds a new
    /// version to the store's secrets table; restart the servers to use it.
    Rotate(secrets::RotateArgs),
}

#[derive(clap::Args, Debug, Default)]
struct ServeArgs {
    /// Listen address.
    #[arg(long, env = "FLICKER_ADDR", default_value = "127.0.0.1:8080")]
    addr: String,
    /// Event store: `postgres://…` or a SQLite file (created with its migrations on first start).
    #[arg(long, env = "DATABASE_URL", default_value = "flicker.db")]
    database_url: String,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(Cmd::Simulate(a)) => simulate::run(a),
        Some(Cmd::Replay(a)) => replay_cmd::run(a),
        Some(Cmd::Verify(a)) => verify_cmd::run(a),
        Some(Cmd::Openapi) => {
            print!("{}", openapi::json());
            ExitCode::SUCCESS
        }
        Some(Cmd::Gathering(a)) => gathering_cmd::run(a),
        Some(Cmd::Rotate(a)) => secrets::run_rotate(a),
        Some(Cmd::Serve(a)) => serve(a),
        None => serve(cli.serve),
    }
}

fn serve(a: ServeArgs) -> ExitCode {
    // Structured logs on stderr: `FLICKER_LOG` filters (default `info`); `FLICKER_LOG_FORMAT=json`
    // writes one JSON object per line for log collectors.
    let filter = tracing_subscriber::EnvFilter::try_from_env("FLICKER_LOG").unwrap_or_else(|_| "info".into());
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let logs = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_ansi(ansi);
    if std::env::var("FLICKER_LOG_FORMAT").is_ok_and(|f| f == "json") {
        logs.json().init();
    } else {
        logs.init();
    }
    let r = actix_web::rt::System::new().block_on(server::serve(&a.addr, &a.database_url));
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
