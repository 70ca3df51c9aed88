//! `flicker replay FILE`: reads a stored event log, checks it against the game event by event,
//! and prints the final state and the winner.
//!
//! A file is refused (exit status 1, `error: FILE: ...` naming the line or the event version at
//! fault) when its header is not a replay header, when its first event is not `game_created`,
//! when its ruleset is not one this engine plays or differs between the header and
//! `game_created`, when an event cannot be folded into the game or breaks an invariant, when
//! events follow `game_ended`, and, unless `--partial` is given, when the game has not ended.
//!
//! It reads format 1 (unsigned) and format 2 (the signed export: platform events, before the game
//! or during it, and the signature line are skipped, events are named by their stream version) without checking
//! hashes or the signature: `flicker verify` does that. A replay whose header names
//! `lets-call-the-exorcist` is read and folded as that game ([`exorcist`]).

mod exorcist;

use final_flicker::Event;
use final_flicker::invariants::{check, check_settled};
use final_flicker::replay::{
    GAME_ID, REPLAY_FORMAT, REPLAY_FORMAT_VERSION, ReplayError, ReplayHeader, SIGNED_REPLAY_FORMAT_VERSION,
    read_replay_versioned,
};
use final_flicker::settings::{CURRENT_RULESET, CURRENT_RULESET_VERSION, RulesetId};
use final_flicker::state::State;
use final_flicker::view::{View, Viewer, view};
use serde_json::Value;
use std::panic::{AssertUnwindSafe, catch_unwind};
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
    /// Accept a game that has not ended (a log cut short, or a game still running): warn and
    /// print the state after its last event instead of failing.
    #[arg(long)]
    partial: bool,
}

pub fn run(a: Args) -> ExitCode {
    let name = a.file.display().to_string();
    let text = match std::fs::read_to_string(&a.file) {
        Ok(t) => t,
        Err(e) => return fail(&name, &format!("cannot read it: {e}")),
    };
    let code = fold_and_print(&name, &text, a.partial, a.json);
    if code == ExitCode::SUCCESS && text.lines().next().is_some_and(|l| l.contains("\"format_version\":2")) {
        eprintln!(
            "note: {name}: this replay carries hashes and a signature, not checked here: `flicker verify` checks them"
        );
    }
    code
}

/// Loads `text` (a replay of format 1 or 2), folds it with every check, and prints the summary
/// (or the final view as JSON); `name` names the file in messages. Exit status 1 with
/// `error: NAME: ...` on stderr when it is refused.
pub fn fold_and_print(name: &str, text: &str, partial: bool, json: bool) -> ExitCode {
    let header: Option<Value> = text.lines().next().and_then(|l| serde_json::from_str(l).ok());
    if header.as_ref().and_then(|h| h.get("game")).and_then(Value::as_str)
        == Some(<::exorcist::Exorcist as flicker_game::Game>::GAME_ID)
    {
        return exorcist::fold_and_print(name, text, partial, json);
    }
    let (header, events, versions) = match load(text) {
        Ok(x) => x,
        Err(e) => return fail(name, &e),
    };
    let (state, v) = match fold_checked(&header, &events, &versions) {
        Ok(x) => x,
        Err(e) => return fail(name, &e),
    };
    if !state.is_finished() {
        let last = events.last().map(|e| e.type_name()).unwrap_or("none");
        let mut warning = format!(
            "the game has not ended (the file may be truncated); its last event is event {} ({last})",
            versions.last().copied().unwrap_or(0)
        );
        if let Err(m) = check_settled(&state) {
            warning.push_str(&format!("; it stops between two decision points ({m})"));
        }
        eprintln!("warning: {name}: {warning}");
        if !partial {
            return fail(name, "refusing a game that has not ended; pass --partial to print its state so far");
        }
    }
    if json {
        println!("{}", serde_json::to_string_pretty(&v).expect("view serialises"));
        return ExitCode::SUCCESS;
    }
    print_summary(name, &header, &events, &state, &v);
    ExitCode::SUCCESS
}

fn fail(name: &str, message: &str) -> ExitCode {
    eprintln!("error: {name}: {message}");
    ExitCode::FAILURE
}

/// Checks the file's header line (with a message that says what was found) and parses its event
/// lines: the header, the engine events and their stream versions.
fn load(text: &str) -> Result<(ReplayHeader, Vec<Event>, Vec<u64>), String> {
    let first = text.lines().next().unwrap_or("");
    if first.trim().is_empty() {
        return Err(format!(
            "line 1: expected the replay header, found {}",
            if text.trim().is_empty() { "an empty file" } else { "an empty line" }
        ));
    }
    check_header_line(first)?;
    let (header, events) = read_replay_versioned(text.as_bytes()).map_err(|e| match e {
        ReplayError::Io(e) => format!("cannot read it: {e}"),
        ReplayError::Parse { line, message } => match without_location(&message) {
            Some(m) => format!("line {line}: not a valid event line: {m}"),
            None => format!("line {line}: {message}"),
        },
        ReplayError::Unsupported(m) => format!("line 1: {m}"),
    })?;
    let (versions, events) = events.into_iter().unzip();
    Ok((header, events, versions))
}

/// The header this engine writes, as an example in messages.
fn expected_header() -> String {
    let h = ReplayHeader {
        format: REPLAY_FORMAT.into(),
        format_version: REPLAY_FORMAT_VERSION,
        game: GAME_ID.into(),
        ruleset: RulesetId::current(),
    };
    serde_json::to_string(&h).expect("header serialises")
}

/// Checks the header line field by field and says what was found where it is wrong.
fn check_header_line(line: &str) -> Result<(), String> {
    let expected = expected_header();
    let value: Value = serde_json::from_str(line).map_err(|e| {
        let m = e.to_string();
        format!(
            "line 1: the header is not JSON ({}); expected a header such as {expected}",
            without_location(&m).unwrap_or(m)
        )
    })?;
    let Some(obj) = value.as_object() else {
        return Err(format!("line 1: the header is {}; expected a header such as {expected}", short(&value)));
    };
    if let (Some(v), Some(t)) = (obj.get("version"), obj.get("type")) {
        return Err(format!(
            "line 1 is event {} ({}), not the replay header; a replay starts with a header such as {expected}",
            short(v),
            t.as_str().unwrap_or("?")
        ));
    }
    let wanted: [(&str, Value); 3] =
        [("format", REPLAY_FORMAT.into()), ("format_version", REPLAY_FORMAT_VERSION.into()), ("game", GAME_ID.into())];
    let signed = Value::from(SIGNED_REPLAY_FORMAT_VERSION);
    let wrong: Vec<String> = wanted
        .iter()
        .filter(|(k, want)| obj.get(*k) != Some(want) && !(*k == "format_version" && obj.get(*k) == Some(&signed)))
        .map(|(k, want)| match obj.get(*k) {
            Some(found) => format!("`{k}` is {} (expected {want})", short(found)),
            None => format!("`{k}` is missing (expected {want})"),
        })
        .collect();
    if !wrong.is_empty() {
        return Err(format!(
            "line 1: not a {GAME_ID} replay header of format {REPLAY_FORMAT} v{REPLAY_FORMAT_VERSION}: {}",
            wrong.join(", ")
        ));
    }
    match obj.get("ruleset") {
        Some(r) if serde_json::from_value::<RulesetId>(r.clone()).is_ok() => Ok(()),
        found => Err(format!(
            "line 1: the header's `ruleset` is {} (expected an id and a version, such as {})",
            found.map(short).unwrap_or_else(|| "missing".into()),
            serde_json::to_string(&RulesetId::current()).expect("ruleset serialises")
        )),
    }
}

/// A JSON value for a message, cut short when long.
fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 60 { format!("{}…", s.chars().take(60).collect::<String>()) } else { s }
}

/// serde_json ends its messages with " at line L column C"; each replay line is parsed on its
/// own, so the line is always 1 there: keep the column only. `None` if `message` has no location.
fn without_location(message: &str) -> Option<String> {
    if let Some(at) = message.rfind(" at line ") {
        let mut rest = message[at + " at line ".len()..].split(' ');
        if let (Some(l), Some("column"), Some(c), None) = (rest.next(), rest.next(), rest.next(), rest.next())
            && l.parse::<u64>().is_ok()
            && c.parse::<u64>().is_ok()
        {
            return Some(format!("{} (column {c})", &message[..at]));
        }
    }
    None
}

/// Whether this engine plays `r` (R10.1.3, A1): `current` or `classic-1.0`, at a version it
/// implements.
fn check_ruleset(r: &RulesetId) -> Result<(), String> {
    let versions = |latest: u32| match latest {
        1 => "v1".to_string(),
        n => format!("v1 to v{n}"),
    };
    let Some(name) = final_flicker::RulesetName::from_id(&r.id) else {
        return Err(format!(
            "ruleset `{}` v{} is not one this engine plays (it plays `{CURRENT_RULESET}` {} and `{}` {})",
            r.id,
            r.version,
            versions(CURRENT_RULESET_VERSION),
            final_flicker::settings::CLASSIC_RULESET,
            versions(final_flicker::settings::CLASSIC_RULESET_VERSION),
        ));
    };
    let latest = name.latest().version;
    if r.version > latest {
        return Err(format!("ruleset `{}` v{} is newer than this engine's (v{latest})", r.id, r.version));
    }
    if r.version == 0 {
        return Err(format!("ruleset `{}` v0 does not exist (versions start at 1)", r.id));
    }
    Ok(())
}

/// A panic hook, as `std::panic::take_hook` returns it.
type PanicHook = Box<dyn Fn(&std::panic::PanicHookInfo<'_>) + Sync + Send + 'static>;

/// Silences the panic hook while it lives (folding reports panics as errors); restores the
/// previous hook when dropped.
struct QuietPanics(Option<PanicHook>);

impl QuietPanics {
    fn new() -> Self {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        QuietPanics(Some(previous))
    }
}

impl Drop for QuietPanics {
    fn drop(&mut self) {
        if let Some(h) = self.0.take() {
            std::panic::set_hook(h);
        }
    }
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".into())
}

/// Checks the creation event, then folds the events one by one, checking the invariants after
/// each; returns the final state and its complete view. Errors name the event at fault by its
/// stream version (`versions[i]` is the version of `events[i]`).
fn fold_checked(header: &ReplayHeader, events: &[Event], versions: &[u64]) -> Result<(State, View), String> {
    check_ruleset(&header.ruleset).map_err(|m| format!("line 1 (header): {m}"))?;
    let created = match events.first() {
        None => return Err("no events after the header (a replay's first event is game_created)".into()),
        Some(Event::GameCreated(g)) => g,
        Some(e) => {
            return Err(format!(
                "event {} ({}): a replay's first game event must be game_created",
                versions[0],
                e.type_name()
            ));
        }
    };
    let first = versions[0];
    check_ruleset(&created.ruleset).map_err(|m| format!("event {first} (game_created): {m}"))?;
    if created.ruleset != header.ruleset {
        return Err(format!(
            "event {first} (game_created): ruleset `{}` v{} differs from the header's (`{}` v{})",
            created.ruleset.id, created.ruleset.version, header.ruleset.id, header.ruleset.version
        ));
    }
    final_flicker::decide::validate(&created.settings)
        .map_err(|e| format!("event {first} (game_created): bad settings: {e}"))?;

    let _quiet = QuietPanics::new();
    let mut state = State::new();
    let mut ended_at = None;
    for (i, (e, &version)) in events.iter().zip(versions).enumerate() {
        let at = format!("event {version} ({})", e.type_name());
        if let Some(end) = ended_at {
            return Err(format!("{at}: follows game_ended (event {end}); nothing may follow the end of a game"));
        }
        if i > 0 && matches!(e, Event::GameCreated(_)) {
            return Err(format!("{at}: a game is created once, by event {first}"));
        }
        match catch_unwind(AssertUnwindSafe(|| {
            final_flicker::apply(&mut state, e);
            check(&state)
        })) {
            Ok(Ok(())) => {}
            Ok(Err(m)) => return Err(format!("{at}: does not fit the game: it breaks an invariant: {m}")),
            Err(p) => {
                return Err(format!("{at}: does not fit the game: it cannot be folded ({})", panic_message(&*p)));
            }
        }
        if state.is_finished() {
            ended_at = Some(version);
        }
    }
    if state.is_finished() {
        check_settled(&state).map_err(|m| format!("the final state breaks an invariant: {m}"))?;
    }
    let v = catch_unwind(AssertUnwindSafe(|| view(&state, Viewer::Everything)))
        .map_err(|p| format!("the final state cannot be shown ({})", panic_message(&*p)))?;
    Ok((state, v))
}

fn print_summary(name: &str, header: &ReplayHeader, events: &[Event], state: &State, v: &View) {
    let pool = match events.first() {
        Some(Event::GameCreated(g)) => g.pool.len(),
        _ => 0,
    };
    println!(
        "replay: {name} ({} {} v{}), {} events",
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
    if !v.resolving.is_empty() {
        println!("Resolving area: {} cards", v.resolving.len());
    }
    println!("out of play: {} cards", v.out_of_play);
    let held: usize = v.players.iter().map(|p| p.candle_size + p.hand_size + p.shadow.len()).sum();
    println!(
        "pool: {pool} cards (seats {held} + The Dark {} + Resolving {} + out of play {})",
        v.dark.size,
        v.resolving.len(),
        v.out_of_play
    );
    match state.result() {
        Some(r) => match r.winner {
            Some(w) => println!("winner: seat {w} ({:?})", r.reason),
            None => println!("winner: none ({:?})", r.reason),
        },
        None => println!("winner: none yet (the game has not ended)"),
    }
}
