//! `flicker replay FILE`: folds a stored event log and prints the final state and the winner.

use flicker_engine::replay::{fold, read_replay};
use flicker_engine::view::{Viewer, view};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `flicker replay`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// A replay file in JSON Lines (see the README).
    file: PathBuf,
    /// Print the complete final view as JSON instead of a summary.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> ExitCode {
    let file = match std::fs::File::open(&a.file) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: cannot open {}: {e}", a.file.display());
            return ExitCode::FAILURE;
        }
    };
    let (header, events) = match read_replay(std::io::BufReader::new(file)) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("error: {}: {e}", a.file.display());
            return ExitCode::FAILURE;
        }
    };
    let state = fold(&events);
    if let Err(e) = flicker_engine::invariants::check(&state) {
        eprintln!("error: the folded state breaks an invariant: {e}");
        return ExitCode::FAILURE;
    }
    let v = view(&state, Viewer::Everything);
    if a.json {
        println!("{}", serde_json::to_string_pretty(&v).expect("view serialises"));
        return ExitCode::SUCCESS;
    }
    println!(
        "replay: {} ({} {} v{}), {} events",
        a.file.display(),
        header.game,
        header.ruleset.id,
        header.ruleset.version,
        events.len()
    );
    println!("players: {}, round {}, phase {:?}", v.players.len(), v.round, v.phase);
    for p in &v.players {
        let shadow: Vec<String> = p.shadow.iter().map(|g| g.card.face.to_string()).collect();
        println!(
            "  seat {}: {}{} candle {:>3}, hand {}, shadow [{}]",
            p.seat,
            if p.lit { "Lit" } else { "out" },
            p.placing.map(|x| format!(" (placing {x})")).unwrap_or_default(),
            p.candle_size,
            p.hand_size,
            shadow.join(" ")
        );
    }
    println!("The Dark: {} cards", v.dark.size);
    match state.result() {
        Some(r) => match r.winner {
            Some(w) => println!("winner: seat {w} ({:?})", r.reason),
            None => println!("winner: none ({:?})", r.reason),
        },
        None => println!("winner: none yet (the game has not ended)"),
    }
    ExitCode::SUCCESS
}
