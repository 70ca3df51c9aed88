//! Golden replays: finished games exported by the server (`tests/golden/*.jsonl`, signed format 2)
//! fold to exactly what was recorded when they were made (`*.expected.json`).
//!
//! R10.1 (the state is the fold of the events) and R10.2 (every random outcome is stored in its
//! event, so a replay folds the same as the live game): each replay is read with the engine's
//! replay reader ([`final_flicker::replay::read_replay_versioned`]) and folded with
//! [`final_flicker::apply`]; then, compared as `serde_json::Value`:
//! - the result (winner, reason, placings R7.7.3, Last Lit R9.5) equals the recorded one;
//! - at each recorded step (after the `at`-th game event; the last step is the end of the game)
//!   the view of every recorded viewer (R10.8: `everything`, `spectator`, `commentary`, and each
//!   seat `seat-N`) equals the recorded view;
//! - the open prompts after *every* event (R10.4, R10.5: who is asked, the legal answers the
//!   rules allow, the default) hash to the recorded `prompts_digest` (SipHash-1-3, key 0, over
//!   each step's prompts as JSON), so a changed Requires clause or default shows even where no
//!   view was recorded.
//!
//! The fixtures pin the behaviour of the rules as they were when the fixtures were made. They are
//! never regenerated to make this test pass: a rule change bumps the ruleset version
//! (R10.1.3) and keeps these games replaying under the version they were played with. See
//! `tests/golden/README.md` for how they were made (`scripts/golden.sh`).
//!
//! Recording mode (used only by `scripts/golden.sh`, by hand): with `FLICKER_GOLDEN_RECORD` set
//! to a replay file, the test `recording_a_fixture_gives_its_committed_expected_file` with `FLICKER_GOLDEN_RECORD` set writes that replay's expected file beside it.

use final_flicker::replay::read_replay_versioned;
use final_flicker::{Event, State, Viewer, apply, prompts, view};
use serde_json::{Value, json};
use siphasher::sip::SipHasher13;
use std::collections::BTreeMap;
use std::hash::Hasher;
use std::path::{Path, PathBuf};

/// The committed fixtures: `<repository>/tests/golden`.
fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden")
}

/// Every viewer of a game of `players` seats, with its key in the expected file.
fn viewers(players: usize) -> Vec<(String, Viewer)> {
    let mut v = vec![
        ("everything".to_string(), Viewer::Everything),
        ("spectator".to_string(), Viewer::Spectator),
        ("commentary".to_string(), Viewer::Commentary),
    ];
    v.extend((0..players).map(|s| (format!("seat-{s}"), Viewer::Seat { seat: s as u8 })));
    v
}

/// The views of every viewer of `state`, keyed as in the expected file. A view that is the
/// complete one but for its `viewer` field (every view once the game has ended, R10.8) is
/// written as the string `"everything"`, to keep the fixtures small; both sides of the check are
/// written so, so equal maps mean equal views.
fn views_of(state: &State) -> BTreeMap<String, Value> {
    let everything = serde_json::to_value(view(state, Viewer::Everything)).expect("a view serialises");
    viewers(state.players())
        .into_iter()
        .map(|(key, viewer)| {
            let v = serde_json::to_value(view(state, viewer)).expect("a view serialises");
            let mut as_everything = v.clone();
            as_everything["viewer"] = everything["viewer"].clone();
            if viewer != Viewer::Everything && as_everything == everything {
                (key, json!("everything"))
            } else {
                (key, v)
            }
        })
        .collect()
}

/// The steps recorded for a game of `n` game events: about a quarter, a half and three quarters
/// in, then the end (counts of folded game events, from 1).
fn steps_for(n: usize) -> Vec<usize> {
    let mut s: Vec<usize> = [n / 4, n / 2, 3 * n / 4, n].into_iter().map(|k| k.max(1)).collect();
    s.dedup();
    s
}

/// Reads a replay's game events with their stream versions.
fn read(text: &str) -> Result<Vec<(u64, Event)>, String> {
    let (_, events) = read_replay_versioned(text.as_bytes()).map_err(|e| e.to_string())?;
    Ok(events)
}

/// Folds `events` and answers what an expected file holds: the result and, at each of `steps`,
/// every viewer's view.
fn record(events: &[(u64, Event)], steps: &[usize]) -> Value {
    let mut state = State::new();
    let mut out = Vec::new();
    let mut digest = SipHasher13::new_with_keys(0, 0);
    for (i, (version, event)) in events.iter().enumerate() {
        apply(&mut state, event);
        digest.write(serde_json::to_string(&prompts(&state)).expect("prompts serialise").as_bytes());
        digest.write_u8(b'\n');
        if steps.contains(&(i + 1)) {
            out.push(json!({"at": i + 1, "version": version, "views": views_of(&state)}));
        }
    }
    json!({
        "events": events.len(),
        "finished": state.is_finished(),
        "result": serde_json::to_value(state.result()).expect("a result serialises"),
        "prompts_digest": format!("{:016x}", digest.finish()),
        "steps": out,
    })
}

/// Checks one replay's text against its expected file; the first difference is the error.
fn check(text: &str, expected: &Value) -> Result<(), String> {
    let events = read(text)?;
    let steps: Vec<usize> = expected["steps"]
        .as_array()
        .ok_or("the expected file has no steps")?
        .iter()
        .map(|s| s["at"].as_u64().map(|n| n as usize).ok_or("a step without `at`"))
        .collect::<Result<_, _>>()?;
    if steps.is_empty() {
        return Err("the expected file records no step".into());
    }
    let got = record(&events, &steps);
    if !got["finished"].as_bool().unwrap_or(false) {
        return Err(format!("the game has not ended after its {} game events", events.len()));
    }
    for key in ["events", "finished", "result", "prompts_digest"] {
        if got[key] != expected[key] {
            return Err(format!("{key}: folded {}, recorded {}", got[key], expected[key]));
        }
    }
    let (got_steps, want_steps) = (got["steps"].as_array().unwrap(), expected["steps"].as_array().unwrap());
    if got_steps.len() != want_steps.len() {
        return Err(format!("{} steps folded, {} recorded", got_steps.len(), want_steps.len()));
    }
    for (g, w) in got_steps.iter().zip(want_steps) {
        if g["version"] != w["version"] {
            return Err(format!("step {}: stream version {} folded, {} recorded", w["at"], g["version"], w["version"]));
        }
        let (gv, wv) = (g["views"].as_object().unwrap(), w["views"].as_object().ok_or("a step without views")?);
        if gv.keys().ne(wv.keys()) {
            return Err(format!("step {}: viewers {:?} folded, {:?} recorded", w["at"], gv.keys(), wv.keys()));
        }
        for (viewer, view) in gv {
            if view != &wv[viewer] {
                return Err(format!(
                    "step {} (version {}): the {viewer} view differs from the recorded one",
                    w["at"], w["version"]
                ));
            }
        }
    }
    Ok(())
}

/// Every fixture: `(replay path, expected path)`, sorted by name.
fn fixtures() -> Vec<(PathBuf, PathBuf)> {
    let mut out: Vec<_> = std::fs::read_dir(golden_dir())
        .expect("tests/golden exists")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .map(|p| {
            let expected = p.with_extension("expected.json");
            (p, expected)
        })
        .collect();
    out.sort();
    out
}

fn load(replay: &Path, expected: &Path) -> (String, Value) {
    let text = std::fs::read_to_string(replay).unwrap_or_else(|e| panic!("{}: {e}", replay.display()));
    let want = std::fs::read_to_string(expected).unwrap_or_else(|e| panic!("{}: {e}", expected.display()));
    (text, serde_json::from_str(&want).unwrap_or_else(|e| panic!("{}: {e}", expected.display())))
}

/// R10.1, R10.2: every golden replay folds to its recorded result and per-viewer views.
#[test]
fn golden_replays_fold_to_their_recorded_views() {
    let all = fixtures();
    assert!(all.len() >= 12, "expected at least 12 golden replays in {}, found {}", golden_dir().display(), all.len());
    let mut failures = Vec::new();
    for (replay, expected) in &all {
        let (text, want) = load(replay, expected);
        if let Err(e) = check(&text, &want) {
            failures.push(format!("{}: {e}", replay.file_name().unwrap().to_string_lossy()));
        }
    }
    assert!(failures.is_empty(), "golden replays that no longer fold as recorded:\n{}", failures.join("\n"));
}

/// The fixtures cover what they claim: 2 to 8 seats, games with and without classes, both
/// rulesets (`classic-1.0` with and without its roster, A1), and both stores (the header's stream names the table; the file name names the store).
#[test]
fn golden_replays_cover_seats_classes_and_stores() {
    let mut seats = std::collections::BTreeSet::new();
    let (mut classes, mut plain, mut sqlite, mut postgres) = (0, 0, 0, 0);
    let (mut classic, mut classic_classes) = (0, 0);
    for (replay, expected) in fixtures() {
        let (text, _) = load(&replay, &expected);
        let events = read(&text).unwrap();
        let Some((_, Event::GameCreated(g))) = events.first() else { panic!("{}: no game_created", replay.display()) };
        seats.insert(g.settings.players);
        // A1: classic games, with and without the classic roster.
        if g.ruleset.id == "classic-1.0" {
            classic += 1;
            if g.settings.classes {
                classic_classes += 1;
            }
        }
        if g.settings.classes {
            classes += 1
        } else {
            plain += 1
        }
        let name = replay.file_name().unwrap().to_string_lossy().to_string();
        if name.starts_with("sqlite-") {
            sqlite += 1;
        } else if name.starts_with("postgres-") {
            postgres += 1;
        }
    }
    assert_eq!(seats.into_iter().collect::<Vec<_>>(), (2..=8).collect::<Vec<u8>>());
    assert!(classes > 0 && plain > 0 && sqlite > 0 && postgres > 0, "{classes} {plain} {sqlite} {postgres}");
    assert!(
        classic_classes > 0 && classic > classic_classes,
        "classic fixtures: {classic}, with classes {classic_classes}"
    );
}

/// Replaces the payload of the first event line of type `kind` by `f(payload)`.
fn tamper(text: &str, kind: &str, f: impl Fn(&mut Value)) -> String {
    let mut done = false;
    let lines: Vec<String> = text
        .lines()
        .map(|line| {
            let mut v: Value = serde_json::from_str(line).unwrap();
            if !done && v["type"] == kind {
                done = true;
                f(&mut v["payload"]);
                return serde_json::to_string(&v).unwrap();
            }
            line.to_string()
        })
        .collect();
    assert!(done, "no {kind} event");
    lines.join("\n") + "\n"
}

/// The check is not vacuous: one changed, dropped or reordered event makes it fail (or makes the
/// fold refuse or panic), for every fixture.
#[test]
fn a_tampered_replay_fails_the_check() {
    for (replay, expected) in fixtures() {
        let (text, want) = load(&replay, &expected);
        let name = replay.file_name().unwrap().to_string_lossy().to_string();
        let fails = |t: String| !matches!(std::panic::catch_unwind(|| check(&t, &want)), Ok(Ok(())));
        assert!(!fails(text.clone()), "{name}: the untouched replay fails");
        // The handle key (R10.3.2): every handle in every view changes.
        let t = tamper(&text, "game_created", |p| {
            p["handle_key"][0] = json!(p["handle_key"][0].as_u64().unwrap() ^ 1);
        });
        assert!(fails(t), "{name}: a changed handle key passes");
        // The cards: the first two cards of the pool (an ace and a two) trade faces, so every
        // event naming either one means the other card.
        let t = tamper(&text, "game_created", |p| {
            p["pool"].as_array_mut().unwrap().swap(0, 1);
        });
        assert!(fails(t), "{name}: a changed pool passes");
        // The last game event dropped (the signature line goes with it, as it must).
        let lines: Vec<&str> = text.lines().collect();
        let t = lines[..lines.len() - 2].join("\n") + "\n";
        assert!(fails(t), "{name}: a replay without its last event passes");
    }
}

/// Recording is a pure function of the replay: re-recording every fixture's replay gives its
/// committed expected file. With `FLICKER_GOLDEN_RECORD=<replay>` (set by `scripts/golden.sh`
/// when it makes a fixture, never to make the check pass) it writes that replay's expected file
/// instead.
#[test]
fn recording_a_fixture_gives_its_committed_expected_file() {
    if let Ok(path) = std::env::var("FLICKER_GOLDEN_RECORD") {
        let replay = PathBuf::from(path);
        let text = std::fs::read_to_string(&replay).unwrap();
        let events = read(&text).unwrap();
        let expected = record(&events, &steps_for(events.len()));
        assert_eq!(expected["finished"], true, "{}: the game has not ended", replay.display());
        let out = replay.with_extension("expected.json");
        std::fs::write(&out, serde_json::to_string(&expected).unwrap() + "\n").unwrap();
        println!("wrote {}", out.display());
        return;
    }
    for (replay, expected) in fixtures() {
        let (text, want) = load(&replay, &expected);
        let events = read(&text).unwrap();
        let got = record(&events, &steps_for(events.len()));
        assert_eq!(got, want, "{}: re-recording differs from the committed file", replay.display());
    }
}
