//! `flicker position`: print a stored game's full position at a step (R10.13), whole or as one
//! viewer may see it, or check a position string.

use final_flicker::position::{Position, parse_viewer, position_exact, position_for, validate_str};
use final_flicker::replay::read_replay_versioned;
use final_flicker::{Viewer, apply, state::State};
use std::io::BufReader;
use std::process::ExitCode;

/// `flicker position FILE.jsonl --at N [--viewer V] [--json] [--exact]` or
/// `flicker position --check 'POSITION'`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// A replay file (JSON Lines, format 1 or 2, as `flicker replay` reads).
    #[arg(required_unless_present = "check", conflicts_with = "check")]
    file: Option<String>,
    /// The step: the position after the events of stream versions 1..=N (default: the end).
    #[arg(long)]
    at: Option<u64>,
    /// Who looks: `everything` (the default), `spectator`, `commentary` or `seat-K`; cards the
    /// viewer may not see are written `?` (sizes only).
    #[arg(long, default_value = "everything")]
    viewer: String,
    /// Print the JSON form instead of the text line.
    #[arg(long)]
    json: bool,
    /// Name each card's instance (`7H#1`), so that an import has the very same cards.
    #[arg(long)]
    exact: bool,
    /// Check a position string (full or deal-only) instead: exit 0 with a summary, or 1 with
    /// the fault.
    #[arg(long, value_name = "POSITION")]
    check: Option<String>,
}

pub fn run(a: Args) -> ExitCode {
    match go(a) {
        Ok(out) => {
            println!("{out}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn go(a: Args) -> Result<String, String> {
    if let Some(text) = &a.check {
        return validate_str(text).map(|s| s.to_string());
    }
    let file = a.file.as_deref().ok_or("name a replay file or --check a position")?;
    let viewer = parse_viewer(&a.viewer)?;
    if a.exact && viewer != Viewer::Everything {
        return Err("--exact names every card: only with --viewer everything".into());
    }
    let f = std::fs::File::open(file).map_err(|e| format!("{file}: {e}"))?;
    let (_, events) = read_replay_versioned(BufReader::new(f)).map_err(|e| format!("{file}: {e}"))?;
    let last = events.last().map_or(0, |(v, _)| *v);
    let at = a.at.unwrap_or(last);
    if at == 0 || at > last {
        return Err(format!("--at {at}: the replay's steps run 1 to {last}"));
    }
    let mut state = State::new();
    for (_, e) in events.iter().take_while(|(v, _)| *v <= at) {
        apply(&mut state, e);
    }
    let pos: Position = if a.exact { position_exact(&state) } else { position_for(&state, viewer) };
    if a.json { serde_json::to_string_pretty(&pos).map_err(|e| e.to_string()) } else { Ok(pos.to_string()) }
}
