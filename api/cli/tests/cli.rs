//! The `flicker` command line: help, simulate (figures, invariants, repeatable seeds, export,
//! refused settings) and replay (summaries, and the files it refuses).

use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

fn flicker(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_flicker")).args(args).output().expect("run flicker");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn help_lists_the_command_line_tools() {
    // Without a subcommand `flicker` serves the API, so only `--help` is run here.
    let (ok, out, _) = flicker(&["--help"]);
    assert!(ok);
    assert!(out.contains("simulate") && out.contains("replay"), "{out}");
}

#[test]
fn simulate_reports_figures_and_no_invariant_failure() {
    let (ok, out, err) = flicker(&["simulate", "--players", "8", "--games", "200", "--seed", "7", "--check"]);
    assert!(ok, "{out}\n{err}");
    for needle in ["games/s:", "mean turns:", "longest game:", "wins by seat:", "seat 7:", "invariant failures: 0"] {
        assert!(out.contains(needle), "missing {needle:?} in\n{out}");
    }
}

#[test]
fn simulate_with_a_seed_repeats() {
    let strip = |s: String| {
        s.lines().filter(|l| !l.starts_with("games/s") && !l.starts_with("elapsed")).collect::<Vec<_>>().join("\n")
    };
    let a = flicker(&["simulate", "--players", "4", "--games", "100", "--seed", "11"]);
    let b = flicker(&["simulate", "--players", "4", "--games", "100", "--seed", "11", "--salt-window", "simultaneous"]);
    assert_eq!(strip(a.1), strip(b.1));
}

#[test]
fn simulate_refuses_bad_settings_naming_the_flag() {
    for (flag, value) in
        [("--players", "1"), ("--players", "65"), ("--players", "300"), ("--games", "0"), ("--round-limit", "5")]
    {
        let out = Command::new(env!("CARGO_BIN_EXE_flicker"))
            .args(["simulate", "--games", "1", flag, value])
            .output()
            .expect("run flicker");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && out.status.code() != Some(101), "{flag} {value}: {:?}\n{err}", out.status);
        assert!(err.contains(flag), "{flag} {value}: {err}");
    }
}

/// X2.1, X4.2, X11: `--game exorcist` plays the second game with every check, prints the teams'
/// share of rounds, repeats with a seed, and refuses what is not the game's.
#[test]
fn simulate_plays_the_exorcist_with_its_team_table() {
    let args = ["simulate", "--game", "exorcist", "--players", "6", "--games", "20", "--seed", "3", "--check"];
    let (ok, out, err) = flicker(&args);
    assert!(ok, "{out}\n{err}");
    for needle in [
        "lets-call-the-exorcist",
        "mean rounds:",
        "rounds won:",
        "Innocent",
        "Possessed",
        "seat 5:",
        "team table",
        "invariant failures: 0",
    ] {
        assert!(out.contains(needle), "missing {needle:?} in\n{out}");
    }
    let strip = |s: &str| {
        s.lines()
            .filter(|l| !l.contains("games/s") && !l.starts_with("elapsed") && !l.starts_with("  "))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(strip(&out), strip(&flicker(&args).1), "a seed repeats");
    let (ok, out, err) = flicker(&["simulate", "--game", "exorcist", "--team-table", "--games", "3", "--seed", "3"]);
    assert!(ok, "{out}\n{err}");
    for n in 4..=8 {
        assert!(out.lines().any(|l| l.trim_start().starts_with(&format!("{n} "))), "no row for {n} players in\n{out}");
    }
    for (extra, needle) in [
        (&["--players", "3"][..], "X2.1"),
        (&["--players", "9"][..], "X2.1"),
        (&["--classes"][..], "--classes"),
        (&["--ruleset", "classic-1.0"][..], "--ruleset"),
        (&["--target", "0"][..], "target"),
    ] {
        let mut a = vec!["simulate", "--game", "exorcist", "--games", "1"];
        a.extend_from_slice(extra);
        let (ok, _, err) = flicker(&a);
        assert!(!ok && err.contains(needle), "{extra:?}: {err}");
    }
    let (ok, _, err) = flicker(&["simulate", "--team-table", "--games", "1"]);
    assert!(!ok && err.contains("--game exorcist"), "{err}");
}

#[test]
fn simulate_help_states_each_default_once_and_the_output_says_how_to_repeat() {
    let (ok, out, _) = flicker(&["simulate", "--help"]);
    assert!(ok);
    assert!(!out.contains("(default"), "{out}");
    let (ok, out, err) = flicker(&["simulate", "--players", "3", "--games", "2", "--seed", "11"]);
    assert!(ok, "{out}{err}");
    assert!(out.lines().next().unwrap_or("").contains("repeat with --seed 11"), "{out}");
    let (ok, out, err) = flicker(&["simulate", "--players", "3", "--games", "2"]);
    assert!(ok, "{out}{err}");
    assert!(out.lines().next().unwrap_or("").contains("repeat with --seed "), "{out}");
}

#[test]
fn an_exported_game_replays_to_its_winner() {
    let dir = std::env::temp_dir().join(format!("flicker-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("longest.jsonl");
    let f = file.to_str().unwrap();
    let (ok, out, err) = flicker(&["simulate", "--players", "5", "--games", "20", "--seed", "3", "--export", f]);
    assert!(ok, "{out}{err}");
    let (ok, out, err) = flicker(&["replay", f]);
    assert!(ok, "{out}{err}");
    assert!(out.contains("winner: seat") || out.contains("winner: none"), "{out}");
    assert!(out.contains("seat 4:"), "{out}");
    // A file that is not a replay is refused with a clear message.
    std::fs::write(dir.join("bad.jsonl"), "{\"format\":\"nope\"}\n").unwrap();
    let (ok, _, err) = flicker(&["replay", dir.join("bad.jsonl").to_str().unwrap()]);
    assert!(!ok);
    assert!(err.contains("error:"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A scratch directory for one test, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("flicker-cli-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn path(&self, file: &str) -> String {
        self.0.join(file).to_str().unwrap().to_string()
    }

    /// Writes `text` to `file` and returns its path.
    fn write(&self, file: &str, text: &str) -> String {
        let path = self.path(file);
        std::fs::write(&path, text).unwrap();
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        std::fs::remove_dir_all(&self.0).ok();
    }
}

/// Exports the longest of a few 3-player games and returns the replay's lines without its
/// signature line (`flicker replay` checks no hash or signature: these tests edit events).
fn exported(dir: &Scratch) -> Vec<String> {
    let mut lines = signed_export(dir);
    assert!(lines.pop().unwrap().starts_with("{\"signature\":"));
    assert!(lines.last().unwrap().contains("\"type\":\"game_ended\""));
    lines
}

/// Exports the longest of a few 3-player games and returns the signed replay's lines.
fn signed_export(dir: &Scratch) -> Vec<String> {
    let f = dir.path("game.jsonl");
    let (ok, out, err) = flicker(&["simulate", "--players", "3", "--games", "5", "--seed", "5", "--export", &f]);
    assert!(ok, "{out}{err}");
    let text = std::fs::read_to_string(&f).unwrap();
    let lines: Vec<String> = text.lines().map(str::to_string).collect();
    assert!(lines[1].contains("\"type\":\"game_created\""), "{}", lines[1]);
    lines
}

fn joined(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

fn json(line: &str) -> Value {
    serde_json::from_str(line).unwrap()
}

/// Runs `flicker replay` and checks that it refused the file with exit status 1 (not a panic).
fn refused(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_flicker")).arg("replay").args(args).output().expect("run flicker");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
    assert!(err.contains("error: "), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

#[test]
fn a_replay_summary_counts_every_zone() {
    let dir = Scratch::new("zones");
    let lines = exported(&dir);
    let f = dir.write("full.jsonl", &joined(&lines));
    let (ok, out, err) = flicker(&["replay", &f]);
    assert!(ok, "{out}{err}");
    assert!(out.contains("out of play: "), "{out}");
    assert!(out.contains("pool: "), "{out}");
}

#[test]
fn a_truncated_replay_fails_unless_partial() {
    let dir = Scratch::new("truncated");
    let lines = exported(&dir);
    let f = dir.write("cut.jsonl", &joined(&lines[..lines.len() / 2]));
    let err = refused(&[&f]);
    assert!(err.contains("the game has not ended (the file may be truncated)"), "{err}");
    assert!(err.contains("--partial"), "{err}");
    let (ok, out, err) = flicker(&["replay", "--partial", &f]);
    assert!(ok, "{out}{err}");
    assert!(err.contains("warning:") && err.contains("has not ended"), "{err}");
    assert!(out.contains("winner: none yet"), "{out}");
    // Only the header: refused even with --partial.
    let f = dir.write("header.jsonl", &joined(&lines[..1]));
    let err = refused(&["--partial", &f]);
    assert!(err.contains("game_created"), "{err}");
}

#[test]
fn a_replay_without_game_created_fails() {
    let dir = Scratch::new("no-creation");
    let lines = exported(&dir);
    // Drop the creation event and renumber the others so that versions still run 1, 2, 3...
    let mut edited = vec![lines[0].clone()];
    for l in &lines[2..] {
        let mut v = json(l);
        v["version"] = (v["version"].as_u64().unwrap() - 1).into();
        edited.push(v.to_string());
    }
    let f = dir.write("no-creation.jsonl", &joined(&edited));
    let err = refused(&["--partial", &f]);
    assert!(err.contains("event 1 (turn_started)") && err.contains("game_created"), "{err}");
}

#[test]
fn a_replay_with_a_ruleset_this_engine_does_not_play_fails() {
    let dir = Scratch::new("ruleset");
    let lines = exported(&dir);
    let newer = final_flicker::settings::CURRENT_RULESET_VERSION + 1;
    for (name, ruleset) in [
        ("unknown", json(r#"{"id":"classic-2.0","version":1}"#)),
        ("classic-newer", json(r#"{"id":"classic-1.0","version":2}"#)),
        ("newer", json(&format!(r#"{{"id":"current","version":{newer}}}"#))),
    ] {
        // In the header.
        let mut edited = lines.clone();
        let mut header = json(&lines[0]);
        header["ruleset"] = ruleset.clone();
        edited[0] = header.to_string();
        let err = refused(&[&dir.write(&format!("{name}-header.jsonl"), &joined(&edited))]);
        assert!(err.contains("line 1") && err.contains("ruleset"), "{err}");
        // In the creation event.
        let mut edited = lines.clone();
        let mut created = json(&lines[1]);
        created["payload"]["ruleset"] = ruleset.clone();
        edited[1] = created.to_string();
        let err = refused(&[&dir.write(&format!("{name}-created.jsonl"), &joined(&edited))]);
        assert!(err.contains("event 1 (game_created)") && err.contains("ruleset"), "{err}");
    }
}

#[test]
fn a_tampered_event_fails_naming_its_version() {
    let dir = Scratch::new("tampered");
    let lines = exported(&dir);
    let i = lines.iter().position(|l| l.contains("\"type\":\"drew\"")).expect("a drew event");
    let version = json(&lines[i])["version"].as_u64().unwrap();
    for (field, value) in [("card", 9999), ("seat", 9)] {
        let mut edited = lines.clone();
        let mut drew = json(&lines[i]);
        drew["payload"][field] = value.into();
        edited[i] = drew.to_string();
        let err = refused(&[&dir.write(&format!("{field}.jsonl"), &joined(&edited))]);
        assert!(err.contains(&format!("event {version} (drew)")), "{field} {value}: {err}");
    }
    // A card that exists but is not the one drawn: caught by the invariants.
    let mut edited = lines.clone();
    let mut drew = json(&lines[i]);
    let card = drew["payload"]["card"].as_u64().unwrap();
    drew["payload"]["card"] = (if card == 0 { 1 } else { card - 1 }).into();
    edited[i] = drew.to_string();
    let err = refused(&[&dir.write("other-card.jsonl", &joined(&edited))]);
    assert!(err.contains(&format!("event {version} (drew)")), "{err}");
}

#[test]
fn events_after_the_end_of_the_game_are_refused() {
    let dir = Scratch::new("after-end");
    let mut lines = exported(&dir);
    let mut extra = json(lines.iter().find(|l| l.contains("\"type\":\"turn_started\"")).unwrap());
    let version = lines.len() as u64; // the header is line 1, so the next event has this version
    extra["version"] = version.into();
    lines.push(extra.to_string());
    let err = refused(&[&dir.write("after-end.jsonl", &joined(&lines))]);
    assert!(err.contains(&format!("event {version} (turn_started)")) && err.contains("game_ended"), "{err}");
}

#[test]
fn replay_errors_say_what_was_found_once() {
    let dir = Scratch::new("messages");
    let lines = exported(&dir);
    let err = refused(&[&dir.write("empty-object.jsonl", "{}\n")]);
    assert!(err.contains("`format` is missing"), "{err}");
    let err = refused(&[&dir.write("nope.jsonl", "{\"format\":\"nope\"}\n")]);
    assert!(err.contains("\"nope\""), "{err}");
    let err = refused(&[&dir.write("not-json.jsonl", "hello\n")]);
    assert!(err.contains("line 1") && !err.contains("at line"), "{err}");
    let err = refused(&[&dir.write("bad-event.jsonl", &format!("{}\nhello\n", lines[0]))]);
    assert!(err.contains("line 2") && !err.contains("at line"), "{err}");
    let err = refused(&[&dir.write("no-header.jsonl", &joined(&lines[1..]))]);
    assert!(err.contains("not the replay header"), "{err}");
}

/// Runs `flicker verify` and checks that it refused the file with exit status 1 (not a panic).
fn verify_refused(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_flicker")).arg("verify").args(args).output().expect("run flicker");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
    assert!(err.contains("error: "), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

/// A simulated game's export verifies (with its key pinned, or with the key it names,
/// saying that key is not pinned), and `flicker replay` still folds it.
#[test]
fn an_exported_replay_verifies() {
    let dir = Scratch::new("verify");
    let f = dir.path("signed.jsonl");
    let seed = "11".repeat(32);
    let (ok, out, err) =
        flicker(&["simulate", "--players", "4", "--games", "3", "--seed", "9", "--export", &f, "--signing-key", &seed]);
    assert!(ok, "{out}{err}");
    let public = out.lines().find_map(|l| l.strip_prefix("signed with the given Ed25519 key; public key ")).unwrap();
    let (ok, out, err) = flicker(&["verify", &f, "--public-key", public]);
    assert!(ok, "{out}{err}");
    assert!(err.contains("verified:") && err.contains("by the pinned key"), "{err}");
    assert!(out.contains("winner: "), "{out}");
    let (ok, out, err) = flicker(&["verify", &f]);
    assert!(ok, "{out}{err}");
    assert!(err.contains("NOT pinned"), "{err}");
    let (ok, out, err) = flicker(&["replay", &f]);
    assert!(ok, "{out}{err}");
    assert!(out.contains("winner: "), "{out}");
    // Another key, pinned: refused.
    let other = flicker(&["simulate", "--players", "2", "--games", "1", "--export", &dir.path("other.jsonl")]).1;
    let other =
        other.lines().find_map(|l| l.strip_prefix("signed with an ephemeral Ed25519 key; public key ")).unwrap();
    let err = verify_refused(&[&f, "--public-key", other]);
    assert!(err.contains("(signature)") && err.contains("pinned"), "{err}");
}

/// A replay with one changed byte fails verification with a message naming the event;
/// so do a dropped, an appended event and a tampered signature.
#[test]
fn a_replay_with_one_changed_byte_fails_verification_naming_the_event() {
    let dir = Scratch::new("verify-tampered");
    let lines = signed_export(&dir);
    let i = lines.iter().position(|l| l.contains("\"type\":\"drew\"")).expect("a drew event");
    let version = json(&lines[i])["version"].as_u64().unwrap();
    // One byte of the payload: a digit of the card drawn.
    let mut edited = lines.clone();
    let at = edited[i].find("\"card\":").unwrap() + "\"card\":".len();
    let digit = edited[i].as_bytes()[at];
    let other = if digit == b'1' { "2" } else { "1" };
    edited[i].replace_range(at..at + 1, other);
    let err = verify_refused(&[&dir.write("byte.jsonl", &joined(&edited))]);
    assert!(err.contains(&format!("line {} (event version {version} (drew))", i + 1)), "{err}");
    assert!(err.contains("hash does not match"), "{err}");
    // One byte of its hash.
    let mut edited = lines.clone();
    let at = edited[i].len() - 3;
    let c = if &edited[i][at..at + 1] == "0" { "1" } else { "0" };
    edited[i].replace_range(at..at + 1, c);
    let err = verify_refused(&[&dir.write("hash.jsonl", &joined(&edited))]);
    assert!(err.contains(&format!("event version {version} (drew)")), "{err}");
    // A dropped event.
    let mut edited = lines.clone();
    edited.remove(i);
    let err = verify_refused(&[&dir.write("dropped.jsonl", &joined(&edited))]);
    assert!(err.contains(&format!("event {version} is missing")), "{err}");
    // An appended event (a copy of the last, renumbered), before the signature line.
    let mut edited = lines.clone();
    let mut extra = json(&edited[edited.len() - 2]);
    let last = extra["version"].as_u64().unwrap();
    extra["version"] = (last + 1).into();
    edited.insert(edited.len() - 1, extra.to_string());
    let err = verify_refused(&[&dir.write("appended.jsonl", &joined(&edited))]);
    assert!(err.contains(&format!("event version {}", last + 1)), "{err}");
    // A tampered signature, and none.
    let mut edited = lines.clone();
    let sig = edited.last_mut().unwrap();
    let at = sig.find("\"value\":\"").unwrap() + "\"value\":\"".len();
    let c = if &sig[at..at + 1] == "0" { "1" } else { "0" };
    sig.replace_range(at..at + 1, c);
    let err = verify_refused(&[&dir.write("signature.jsonl", &joined(&edited))]);
    assert!(err.contains("(signature)") && err.contains("does not verify"), "{err}");
    let err = verify_refused(&[&dir.write("unsigned.jsonl", &joined(&lines[..lines.len() - 1]))]);
    assert!(err.contains("signature line is missing"), "{err}");
}

/// Files written before signed replays (format 1: engine events only, no hashes, no signature) still
/// replay; `flicker verify` says there is nothing to verify in them.
#[test]
fn a_format_1_replay_still_replays() {
    let dir = Scratch::new("format-1");
    let lines = exported(&dir);
    let mut old = Vec::new();
    let mut header = json(&lines[0]);
    header["format_version"] = 1.into();
    header.as_object_mut().unwrap().remove("stream");
    old.push(header.to_string());
    for l in &lines[1..] {
        let mut v = json(l);
        v.as_object_mut().unwrap().remove("hash");
        old.push(v.to_string());
    }
    let f = dir.write("old.jsonl", &joined(&old));
    let (ok, out, err) = flicker(&["replay", &f]);
    assert!(ok, "{out}{err}");
    assert!(out.contains("winner: "), "{out}");
    let err = verify_refused(&[&f]);
    assert!(err.contains("format 1") && err.contains("nothing to verify"), "{err}");
}

/// R10.2, X11.4: a simulated Exorcist game exported as a signed replay verifies with the key it
/// names, replays to its winner, and a changed byte fails the check.
#[test]
fn an_exported_exorcist_game_verifies_and_replays() {
    let dir = std::env::temp_dir().join(format!("flicker-cli-{}-exorcist", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("exorcist.jsonl");
    let path = file.to_str().unwrap();
    let (ok, out, err) =
        flicker(&["simulate", "--game", "exorcist", "--players", "5", "--games", "3", "--seed", "2", "--export", path]);
    assert!(ok, "{out}\n{err}");
    let key = out
        .split("--public-key ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .expect("the verify hint names the key")
        .to_string();
    let (ok, out, err) = flicker(&["verify", path, "--public-key", &key]);
    assert!(ok, "{out}\n{err}");
    assert!(out.contains("lets-call-the-exorcist") && out.contains("winner:    seat"), "{out}");
    assert!(err.contains("by the pinned key"), "{err}");
    let (ok, out, err) = flicker(&["replay", path]);
    assert!(ok && out.contains("rounds:"), "{out}\n{err}");
    let text = std::fs::read_to_string(&file).unwrap();
    let tampered = text.replacen("\"points_changed\"", "\"points_changed \"", 1);
    assert_ne!(tampered, text);
    std::fs::write(&file, tampered).unwrap();
    let (ok, _, err) = flicker(&["verify", path, "--public-key", &key]);
    assert!(!ok && err.contains("verification failed"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}
