//! R10.1.3, A1: a game folds under the ruleset and version it was created with, so changing a
//! rule (a new version) leaves stored games folding as they did.
//!
//! The test build of the engine carries a deliberately changed rule: `current` version 2
//! ([`crate::model::edition::TEST_CHANGED_VERSION`]) has a hand limit of 6 instead of 5. The
//! committed golden replays (`tests/golden`, `current` and `classic-1.0`, all version 1) must
//! still fold to their recorded prompts digest and result in this build, while the `current`
//! ones relabelled as version 2 fold differently: the change is real, and version 1 does not
//! see it.

use crate::model::edition::{Rules, TEST_CHANGED_VERSION};
use crate::model::event::Event;
use crate::model::settings::{CURRENT_RULESET, RulesetId};
use crate::model::state::State;
use crate::rules::evolve::apply;
use crate::rules::prompt::prompts;
use crate::rules::replay::read_replay_versioned;
use serde_json::Value;
use siphasher::sip::SipHasher13;
use std::hash::Hasher;
use std::path::Path;

/// Every golden fixture: (name, game events, expected file).
fn fixtures() -> Vec<(String, Vec<Event>, Value)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden");
    let mut out: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/golden exists")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("a replay");
            let (_, events) = read_replay_versioned(text.as_bytes()).expect("a readable replay");
            let expected = std::fs::read_to_string(p.with_extension("expected.json")).expect("its expected file");
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            (name, events.into_iter().map(|(_, e)| e).collect(), serde_json::from_str(&expected).unwrap())
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The fold's prompts digest (as `tests/golden.rs` computes it) and result.
fn fold(events: &[Event]) -> (String, Value) {
    let mut state = State::new();
    let mut digest = SipHasher13::new_with_keys(0, 0);
    for e in events {
        apply(&mut state, e);
        digest.write(serde_json::to_string(&prompts(&state)).unwrap().as_bytes());
        digest.write_u8(b'\n');
    }
    (format!("{:016x}", digest.finish()), serde_json::to_value(state.result()).unwrap())
}

/// R10.1.3, A1: with a changed rule compiled in (version 2), every version-1 golden replay folds
/// to its recorded digest and result; relabelled as version 2, at least one folds differently.
#[test]
fn r10_1_3_a_changed_rule_leaves_old_versions_folding_as_recorded() {
    let v2 = RulesetId { id: CURRENT_RULESET.into(), version: TEST_CHANGED_VERSION };
    assert_eq!(Rules::of(&v2).map(|r| r.hand_limit(false)), Some(6), "the test build changes the hand limit");
    let all = fixtures();
    assert!(all.len() >= 12);
    let mut changed = 0;
    for (name, events, expected) in &all {
        let Some(Event::GameCreated(g)) = events.first() else { panic!("{name}: no creation event") };
        assert_eq!(g.ruleset.version, 1, "{name}");
        let (digest, result) = fold(events);
        assert_eq!(digest, expected["prompts_digest"].as_str().unwrap(), "{name}: version 1 folds differently");
        assert_eq!(result, expected["result"], "{name}");
        if g.ruleset.id != CURRENT_RULESET {
            continue;
        }
        let mut relabelled = events.clone();
        if let Event::GameCreated(g) = &mut relabelled[0] {
            g.ruleset.version = TEST_CHANGED_VERSION;
        }
        if fold(&relabelled).0 != digest {
            changed += 1;
        }
    }
    assert!(changed > 0, "the changed rule changed no fixture's prompts: the check would be vacuous");
}

/// R10.1.3: a game recorded under a ruleset or version this engine does not play folds, but
/// refuses every command, naming the rule.
#[test]
fn r10_1_3_an_unknown_version_refuses_commands() {
    let (_, events, _) = fixtures().into_iter().next().unwrap();
    let mut events = events;
    if let Event::GameCreated(g) = &mut events[0] {
        g.ruleset.version = 99;
    }
    let mut state = State::new();
    // Fold only the creation and the automatic events up to the first prompt.
    apply(&mut state, &events[0]);
    let e = crate::rules::decide::decide(
        &state,
        &crate::model::command::Command::Timeout,
        &mut <rand::rngs::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(1),
    )
    .unwrap_err();
    assert_eq!(e.rule, "R10.1.3");
    assert!(e.message.contains("v99"), "{}", e.message);
}
