//! `flicker position` (R10.13): a stored game's position at a step, whole or per viewer, and
//! checking position strings.

use std::process::Command;

fn flicker(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_flicker")).args(args).output().expect("run flicker");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// R10.13: a position printed at a step of a stored game checks as legal and is exactly the
/// state there; a viewer's position hides the Candles and is refused on import; faults exit 1.
#[test]
fn r10_13_flicker_position_prints_and_checks_positions() {
    let dir = std::env::temp_dir().join(format!("flicker-cli-position-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("game.jsonl");
    let f = file.to_str().unwrap();
    let (code, out, err) =
        flicker(&["simulate", "--players", "3", "--games", "3", "--seed", "5", "--classes", "--export", f]);
    assert_eq!(code, Some(0), "{out}{err}");

    // The whole position at the end of the game and at step 40.
    let (code, end, err) = flicker(&["position", f]);
    assert_eq!(code, Some(0), "{err}");
    assert!(end.starts_with("current/1 | settings: classes"), "{end}");
    assert!(end.contains("step=finished") && end.contains("result: winner="), "{end}");
    let mut checked = 0;
    for at in ["2", "40", "41", "42", "43", "60"] {
        let (code, pos, err) = flicker(&["position", f, "--at", at]);
        assert_eq!(code, Some(0), "--at {at}: {err}");
        let pos = pos.trim();
        assert!(!pos.contains('?'), "{pos}");
        // Inside an action (a Salt window, a pick) the position is for reading only.
        let (code, summary, err) = flicker(&["position", "--check", pos]);
        if pos.contains("step=pending:") {
            assert_eq!(code, Some(1));
            assert!(err.contains("pending decision"), "{err}");
        } else {
            assert_eq!(code, Some(0), "--at {at}: {err}\n{pos}");
            assert!(summary.starts_with("a legal position: current/1, 3 seats"), "{summary}");
            checked += 1;
        }
    }
    assert!(checked > 0);

    // A seat's view: its own hand, the other hands and every Candle unknown.
    let (code, seat, _) = flicker(&["position", f, "--at", "40", "--viewer", "seat-1"]);
    assert_eq!(code, Some(0));
    assert!(seat.contains("for=seat-1") && seat.contains("candle: ?x"), "{seat}");
    let (code, _, err) = flicker(&["position", "--check", seat.trim()]);
    assert_eq!(code, Some(1));
    assert!(err.contains("hides cards"), "{err}");

    // JSON and exact forms.
    let (code, json, _) = flicker(&["position", f, "--at", "40", "--json"]);
    assert_eq!(code, Some(0));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["ruleset"]["id"], "current");
    assert_eq!(v["seats"].as_array().unwrap().len(), 3);
    let (code, exact, _) = flicker(&["position", f, "--at", "2", "--exact"]);
    assert_eq!(code, Some(0));
    assert!(exact.contains('#'), "{exact}");

    // Faults: a step beyond the game, a bad viewer, a bad position string (naming the column).
    let (code, _, err) = flicker(&["position", f, "--at", "999999"]);
    assert_eq!((code, err.contains("steps run 1 to")), (Some(1), true), "{err}");
    let (code, _, err) = flicker(&["position", f, "--viewer", "bob"]);
    assert_eq!((code, err.contains("no viewer")), (Some(1), true), "{err}");
    let (code, _, err) = flicker(&[
        "position",
        "--check",
        "current/1 | turn: round=1 active=0 step=ritual budget=1 declared=0 | seat 0: lit hand: QX",
    ]);
    assert_eq!(code, Some(1));
    assert!(err.contains("seat 0, hand, at column ") && err.contains("'QX' has no suit"), "{err}");
    // Deal-only strings are checked too.
    let (code, out, err) = flicker(&["position", "--check", "7H 8D KS / 2C | 5H 5D 9S"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("deal-only"), "{out}");
    std::fs::remove_dir_all(&dir).ok();
}
