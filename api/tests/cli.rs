//! The `flicker` command line: help, simulate (figures, invariants, repeatable seeds, export)
//! and replay.

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
fn without_a_subcommand_it_prints_its_help() {
    let (ok, out, _) = flicker(&[]);
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
fn simulate_refuses_bad_settings() {
    let (ok, _, err) = flicker(&["simulate", "--players", "1", "--games", "1"]);
    assert!(!ok);
    assert!(err.contains("R0.2"), "{err}");
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
