//! Bad input: arbitrary JSON decoded as commands and answers, and every decodable one
//! sent to `decide` at random moments of random games with classes. Nothing may panic; a refused
//! command names a rule; an accepted one yields events that fold to a state meeting every
//! invariant. This is the stable-toolchain driver of the fuzz target: proptest generates the
//! inputs, a bounded number per run.

use super::bot::random_answer;
use crate::model::command::{Answer, Command};
use crate::model::settings::Settings;
use crate::rules::decide::{create, decide};
use crate::rules::evolve::apply;
use crate::rules::invariants;
use crate::rules::prompt::{PromptKind, prompts};
use proptest::prelude::*;
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use serde_json::{Value, json};

/// Keys and tags that the command and answer shapes use, so that generated JSON often decodes.
const WORDS: &[&str] = &[
    "answer",
    "action",
    "card",
    "target",
    "ghost",
    "ghosts",
    "seat",
    "cards",
    "left",
    "right",
    "choice",
    "mode",
    "owner",
    "destination",
    "suit",
    "second",
    "class",
    "page",
    "wall",
    "act",
    "end_ritual",
    "pass",
    "salt",
    "yield",
    "endure",
    "panic",
    "reprieve",
    "pick",
    "split",
    "turn_order",
    "first",
    "last",
    "haunt",
    "banish",
    "greed",
    "scare",
    "sight",
    "mirror",
    "cleanse",
    "recall",
    "possess",
    "medium",
    "drain",
    "rekindle",
    "purge",
    "boo",
    "search",
    "depths",
    "choose_class",
    "react",
    "decline",
    "draw",
    "swap",
    "hearts",
    "spades",
    "lich",
    "clown",
];

fn word() -> impl Strategy<Value = String> {
    prop::sample::select(WORDS).prop_map(str::to_string)
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (0u64..300).prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        (-5i64..0).prop_map(|n| json!(n)),
        word().prop_map(Value::String),
        ".{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 24, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((word(), inner), 0..5)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<serde_json::Map<_, _>>())),
        ]
    })
}

/// JSON values shaped like answers often enough to reach `decide` (and arbitrary ones).
fn answer_like() -> impl Strategy<Value = Value> {
    prop_oneof![
        json_value(),
        (word(), json_value(), word(), json_value(), json_value()).prop_map(|(k1, v1, k2, v2, v3)| {
            json!({"answer": k1, "action": {"action": k2, "card": v1, "target": v2, "ghost": v3}, "card": v1, "cards": [v2], "ghost": v3})
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Bad input, R10.1.2: arbitrary JSON never panics the decoder or `decide`; a
    /// refused command names a rule and changes nothing; accepted events keep every invariant.
    #[test]
    fn arbitrary_answers_never_panic_and_refusals_name_a_rule(
        seed in any::<u64>(),
        players in 2u8..=8,
        steps in 0usize..150,
        inputs in prop::collection::vec((answer_like(), 0u8..9), 1..12),
    ) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut settings = Settings::new(players);
        settings.classes = seed % 2 == 0;
        let mut state = crate::model::state::State::new();
        for e in create(&settings, &mut rng).unwrap() {
            apply(&mut state, &e);
        }
        // Play to a random moment.
        for _ in 0..steps {
            // A seat that has answered an open simultaneous window waits for the others (it may
            // change its answer only so often, R10.6.6).
            let open = prompts(&state);
            let Some(p) = open.into_iter().find(|p| !matches!(p.kind, PromptKind::Salt { current: Some(_), .. })) else {
                break;
            };
            let answer = random_answer(&p, &mut rng);
            let cmd = Command::Answer { seat: p.seat, prompt: Some(p.id), answer };
            for e in decide(&state, &cmd, &mut rng).unwrap() {
                apply(&mut state, &e);
            }
        }
        for (v, seat) in inputs {
            // The raw value as an answer, and wrapped as a command.
            let decoded: Vec<Command> = [
                serde_json::from_value::<Answer>(v.clone()).ok().map(|answer| Command::Answer { seat, prompt: None, answer }),
                serde_json::from_value::<Command>(v.clone()).ok(),
            ]
            .into_iter()
            .flatten()
            .collect();
            for cmd in decoded {
                let before = state.clone();
                match decide(&state, &cmd, &mut rng) {
                    Ok(events) => {
                        let mut after = state.clone();
                        for e in &events {
                            apply(&mut after, e);
                        }
                        prop_assert!(invariants::check(&after).is_ok(), "{:?} after {cmd:?}", invariants::check(&after));
                    }
                    Err(err) => {
                        prop_assert!(!err.rule.is_empty(), "a refusal names its rule: {err:?}");
                        prop_assert_eq!(&state, &before);
                    }
                }
            }
        }
    }
}

/// The generator reaches the decoder's accepting paths: a fair share of generated values decode
/// as answers (else the test above would only exercise refusals of the JSON decoder).
#[test]
fn generated_inputs_often_decode() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = prop_oneof![
        json_value(),
        (word(), json_value(), word(), json_value()).prop_map(|(k1, v1, k2, v2)| {
            json!({"answer": k1, "action": {"action": k2, "card": v1, "target": v2}, "card": v1})
        }),
    ];
    let decoded = (0..2000)
        .filter(|_| {
            let v = strategy.new_tree(&mut runner).unwrap().current();
            serde_json::from_value::<Answer>(v).is_ok()
        })
        .count();
    assert!(decoded >= 20, "only {decoded} of 2000 generated values decode as answers");
}
