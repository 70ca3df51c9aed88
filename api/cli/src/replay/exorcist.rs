//! `flicker replay` and `flicker verify` for a replay of *Let's Call the Exorcist* (its header
//! names `lets-call-the-exorcist`): the game's events are read through its upcasters (R10.1.3),
//! folded with its invariants checked after every event, and summarised (points, rounds won by
//! each team, the winner), or printed as the complete final view with `--json`.

use exorcist::rules::invariants;
use exorcist::{Event, Exorcist, State};
use flicker_game::{Game, Viewer};
use serde::Deserialize;
use std::process::ExitCode;

/// One event line of a replay as stored.
#[derive(Deserialize)]
struct Line {
    version: u64,
    #[serde(rename = "type")]
    event_type: String,
    schema: i64,
    #[serde(default)]
    payload: serde_json::Value,
}

/// The game's events of `text` with their stream versions. Format 2's platform events
/// ([`flicker_game::replay::PLATFORM_EVENT_TYPES`], wherever they come) and its signature line
/// are skipped. Errors name the line.
fn events(text: &str) -> Result<Vec<(u64, Event)>, String> {
    let mut out = Vec::new();
    let mut version = 0u64;
    for (i, l) in text.lines().enumerate().skip(1) {
        let n = i + 1;
        if l.trim().is_empty() || l.starts_with("{\"signature\"") {
            continue;
        }
        let line: Line = serde_json::from_str(l).map_err(|e| format!("line {n}: not an event line: {e}"))?;
        if line.version != version + 1 {
            return Err(format!("line {n}: expected event version {}, found {}", version + 1, line.version));
        }
        version = line.version;
        let decoded =
            Exorcist::upcast(&line.event_type, line.schema, &line.payload).map_err(|e| e.to_string()).and_then(|p| {
                serde_json::from_value::<Event>(serde_json::json!({"type": line.event_type, "payload": p}))
                    .map_err(|e| e.to_string())
            });
        match decoded {
            Ok(e) => out.push((line.version, e)),
            // A platform event, before the game or during it (time given, chat).
            Err(_) if flicker_game::replay::is_platform_event(&line.event_type) => continue,
            Err(m) => return Err(format!("line {n} (event version {}, {}): {m}", line.version, line.event_type)),
        }
    }
    Ok(out)
}

/// Folds and prints an Exorcist replay (see [`crate::replay::fold_and_print`]).
pub fn fold_and_print(name: &str, text: &str, partial: bool, json: bool) -> ExitCode {
    let fail = |m: &str| {
        eprintln!("error: {name}: {m}");
        ExitCode::FAILURE
    };
    let events = match events(text) {
        Ok(e) => e,
        Err(m) => return fail(&m),
    };
    match events.first() {
        Some((_, Event::GameCreated { .. })) => {}
        Some((v, e)) => {
            return fail(&format!("event {v} ({}): a game's first event is game_created", e.type_name()));
        }
        None => return fail("no events after the header (a replay's first event is game_created)"),
    }
    let mut state = State::default();
    for (v, e) in &events {
        if state.is_finished() {
            return fail(&format!("event {v} ({}): follows the end of the game", e.type_name()));
        }
        Exorcist::apply(&mut state, e);
        if let Err(m) = invariants::check(&state) {
            return fail(&format!("event {v} ({}): {m}", e.type_name()));
        }
    }
    if !state.is_finished() {
        eprintln!("warning: {name}: the game has not ended (the file may be truncated)");
        if !partial {
            return fail("refusing a game that has not ended; pass --partial to print its state so far");
        }
    }
    if json {
        let v = Exorcist::view(&state, Viewer::Everything);
        println!("{}", serde_json::to_string_pretty(&v).expect("a view serialises"));
        return ExitCode::SUCCESS;
    }
    println!("game:      lets-call-the-exorcist (ruleset exorcist v1)");
    println!("players:   {}", state.players());
    println!("events:    {}", events.len());
    let innocent = state.history.iter().filter(|h| h.winner == exorcist::Role::Innocent).count();
    println!(
        "rounds:    {} (Innocent won {innocent}, Possessed won {})",
        state.history.len(),
        state.history.len() - innocent
    );
    let points: Vec<String> = state.points.iter().enumerate().map(|(s, p)| format!("seat {s}: {p}")).collect();
    println!("points:    {}", points.join(", "));
    match &state.result {
        Some(r) => match r.winner {
            Some(w) => println!("winner:    seat {w} ({})", reason(&r.reason)),
            None => println!("winner:    none ({})", reason(&r.reason)),
        },
        None => println!("winner:    none yet"),
    }
    ExitCode::SUCCESS
}

/// The end reason as the events name it (`points`, `tie_game`...).
fn reason(r: &impl serde::Serialize) -> String {
    serde_json::to_value(r).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}
