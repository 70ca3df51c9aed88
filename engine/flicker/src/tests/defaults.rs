//! Rule tests: time-out defaults that would name hidden cards (R10.7.1, R10.5 #15, #17, #21)
//! and repeated answers in simultaneous windows (R10.6.6).
//!
//! A deadline is public, so anyone can tell that a prompt timed out. A default that followed a
//! hidden order (The Dark below its top, a hand's acquisition order) or the faces of a hidden
//! hand would then name hidden cards. SightPick, MediumPick and BurdenDiscard therefore time out
//! with a legal answer drawn at random, independent of any hidden order, and recorded in the
//! time-out's events.

use super::bot::random_answer;
use super::kit::*;
use crate::model::action::{Action, MediumMode};
use crate::model::command::{Answer, Command};
use crate::model::error::ErrorKind;
use crate::model::event::Event;
use crate::model::settings::{SaltWindow, Settings};
use crate::model::state::State;
use crate::projection::view::{Viewer, view};
use crate::rules::decide::{create, decide, decide_mut};
use crate::rules::evolve::apply;
use crate::rules::prompt::{PromptKind, prompts};
use crate::rules::window::MAX_ANSWER_CHANGES;
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use std::collections::{BTreeMap, BTreeSet};

/// The number of generator seeds each distribution is sampled with.
const SEEDS: u64 = 400;

/// A time-out at `k`'s position with the generator seeded by `seed`: its events and the state
/// after. Also checks that the events begin with the time-out mark and that folding them onto
/// the position gives exactly that state (R10.2.2: the draw is in the events, a replay never
/// draws again).
fn time_out(k: &Kit, seed: u64) -> (Vec<Event>, State) {
    let mut after = k.state.clone();
    let mut events = Vec::new();
    decide_mut(&mut after, &Command::Timeout, &mut ChaCha8Rng::seed_from_u64(seed), &mut events).expect("time-out");
    assert!(matches!(events.first(), Some(Event::TimedOut { .. })), "{events:?}");
    let mut replayed = k.state.clone();
    for e in &events {
        apply(&mut replayed, e);
    }
    assert_eq!(replayed, after, "R10.2.2: the time-out's events fold to its state");
    (events, after)
}

fn names_of(state: &State, cards: impl IntoIterator<Item = crate::model::card::CardId>) -> Vec<String> {
    cards.into_iter().map(|c| name(state.face(c))).collect()
}

/// Times out the position of `a` and of `b` (the same position but for a hidden order) with
/// every seed; `outcome` reads what the default chose. Asserts that both positions give the same
/// outcome for every seed (the draw does not follow the hidden order) and returns how often each
/// outcome came.
fn outcomes(a: &Kit, b: &Kit, outcome: impl Fn(&State) -> Vec<String>) -> BTreeMap<Vec<String>, u32> {
    let mut seen = BTreeMap::new();
    for seed in 0..SEEDS {
        let (_, sa) = time_out(a, seed);
        let (_, sb) = time_out(b, seed);
        let (oa, ob) = (outcome(&sa), outcome(&sb));
        assert_eq!(oa, ob, "R10.7.1: seed {seed}: the default followed the hidden order");
        *seen.entry(oa).or_insert(0) += 1;
    }
    seen
}

/// Every ordered choice of `k` distinct cards of `cards`.
fn arrangements(cards: &[&str], k: usize) -> BTreeSet<Vec<String>> {
    if k == 0 {
        return BTreeSet::from([Vec::new()]);
    }
    let mut out = BTreeSet::new();
    for (i, c) in cards.iter().enumerate() {
        let rest: Vec<&str> = cards.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, c)| *c).collect();
        for mut tail in arrangements(&rest, k - 1) {
            tail.insert(0, c.to_string());
            out.insert(tail);
        }
    }
    out
}

/// Asserts that every arrangement came, none far more often than the others (uniform draw,
/// R10.2.4).
fn assert_uniform(seen: &BTreeMap<Vec<String>, u32>, all: &BTreeSet<Vec<String>>) {
    let keys: BTreeSet<Vec<String>> = seen.keys().cloned().collect();
    assert_eq!(&keys, all, "R10.7.1: the default is drawn among all the legal answers");
    let mean = SEEDS as f64 / all.len() as f64;
    for (o, n) in seen {
        assert!((*n as f64) < 2.5 * mean, "{o:?} came {n} times of {SEEDS} (mean {mean:.1})");
    }
}

/// R10.7.1, R10.5 #21, R4.5.2: a BurdenDiscard time-out discards cards drawn at random, in a
/// random order (the order is public: the last ends on top of The Dark), whatever the hidden
/// acquisition order: two hands holding the same cards in different orders give the same
/// discards for every draw, and every ordered pair of the 7 cards comes. The prompt says that
/// its default is drawn at random.
#[test]
fn r10_7_1_burden_time_out_is_random_and_ignores_the_acquisition_order() {
    let hand = ["7C", "8C", "9C", "10C", "JC", "QC", "KC"];
    let mut reversed = hand;
    reversed.reverse();
    let a = Kit::new(3).hand(0, &hand).burden(0);
    let b = Kit::new(3).hand(0, &reversed).burden(0);
    let p = a.prompt(0).unwrap();
    assert!(matches!(p.kind, PromptKind::BurdenDiscard { count: 2, .. }));
    assert!(p.random_default, "the prompt tells its seat the time-out is drawn at random");
    assert_eq!(serde_json::to_value(&p).unwrap()["random_default"], true);
    // The Dark was empty: it holds the two discards, top first (the second discarded on top).
    let seen = outcomes(&a, &b, |s| names_of(s, s.dark.iter().rev().copied()));
    assert_uniform(&seen, &arrangements(&hand, 2));
    // The discards are the ones recorded in the event; the hand keeps the other five.
    let (events, after) = time_out(&a, 1);
    let Some(Event::BurdenDiscarded { seat: 0, cards }) = events.get(1) else { panic!("{events:?}") };
    assert_eq!(names_of(&after, after.dark.iter().copied()), names_of(&after, cards.iter().copied()));
    assert_eq!(after.players[0].hand.len(), 5);
}

/// R10.7.1, R10.5 #17, R5.6.2: a MediumPick time-out takes a card of The Dark drawn at random
/// among the eligible ones (never a Joker), whatever the hidden order below The Dark's top: two
/// Darks with the same top and the same cards below it in another order give the same card for
/// every draw, and each eligible card comes (the old default, the topmost eligible card, named
/// the first non-Joker below a Joker on top).
#[test]
fn r10_7_1_medium_time_out_is_random_and_ignores_the_order_of_the_dark() {
    let kit = |dark: &[&str]| {
        let mut k = Kit::new(4).hand(0, &["QH"]).dark(dark);
        k.state.turn.budget = 2;
        k.act(0, Action::Medium { card: k.in_hand(0, "QH"), mode: MediumMode::Search }).unwrap();
        k
    };
    let a = kit(&["Joker", "9H", "Joker", "3C", "KS", "4D"]);
    let b = kit(&["Joker", "KS", "4D", "Joker", "9H", "3C"]);
    let p = a.prompt(0).unwrap();
    assert!(matches!(p.kind, PromptKind::MediumPick { .. }));
    assert!(p.random_default);
    let seen = outcomes(&a, &b, |s| names_of(s, s.players[0].hand.iter().copied()));
    assert_uniform(&seen, &arrangements(&["9H", "3C", "KS", "4D"], 1));
}

/// R10.7.1, R10.5 #15, R5.5.6: a SightPick time-out takes 2 cards of the seen hand drawn at
/// random, not the first ones of the display order (which told everyone that the target kept
/// only higher cards), and independent of the target's hidden acquisition order.
#[test]
fn r10_7_1_sight_time_out_is_random_and_ignores_the_hidden_hand() {
    let kit = |hand: &[&str]| {
        let mut k = Kit::new(4).hand(0, &["6H"]).hand(3, hand);
        k.state.turn.budget = 2;
        k.act(0, Action::Sight { card: k.in_hand(0, "6H"), target: 3 }).unwrap();
        k.quiet();
        k
    };
    let a = kit(&["KS", "2D", "9H", "2S"]);
    let b = kit(&["2S", "9H", "2D", "KS"]);
    let p = a.prompt(0).unwrap();
    assert!(matches!(p.kind, PromptKind::SightPick { count: 2, .. }), "{:?}", p.kind);
    assert!(p.random_default);
    let seen = outcomes(&a, &b, |s| names_of(s, s.players[0].hand.iter().copied()));
    assert_uniform(&seen, &arrangements(&["KS", "2D", "9H", "2S"], 2));
}

/// R10.7.1: defaults that depend only on public data stay fixed and are applied as shown: at
/// every sequential decision point of a few random games whose prompt does not claim a random
/// default, a time-out causes the mark and then exactly the events of answering its `default`
/// by hand (with the same generator).
#[test]
fn r10_7_1_public_defaults_time_out_as_shown() {
    let mut checked = BTreeSet::new();
    for game in 0..4u64 {
        let mut s = Settings::new(5);
        s.classes = game % 2 == 0;
        s.salt_window = if game < 2 { SaltWindow::Sequential } else { SaltWindow::Simultaneous };
        let mut rng = ChaCha8Rng::seed_from_u64(300 + game);
        let mut bot = ChaCha8Rng::seed_from_u64(400 + game);
        let mut state = crate::rules::replay::fold(&create(&s, &mut rng).unwrap());
        for step in 0..3_000u64 {
            if state.is_finished() {
                break;
            }
            let open = prompts(&state);
            let p = open.iter().find(|p| !matches!(p.kind, PromptKind::Salt { current: Some(_), .. }));
            if crate::rules::window::simultaneous_window(&state).is_none()
                && let Some(p) = open.first()
                && !p.random_default
            {
                let by_hand = Command::Answer { seat: p.seat, prompt: Some(p.id), answer: p.default.clone() };
                let same = || ChaCha8Rng::seed_from_u64(step);
                let shown = decide(&state, &by_hand, &mut same()).expect("the default is legal");
                let timed = decide(&state, &Command::Timeout, &mut same()).unwrap();
                assert_eq!(timed[0], Event::TimedOut { seats: vec![p.seat] });
                assert_eq!(timed[1..], shown[..], "{:?}: the time-out is not the default shown", p.kind);
                checked.insert(serde_json::to_value(&p.kind).unwrap()["kind"].as_str().unwrap().to_string());
            }
            let cmd = match p {
                Some(p) => Command::Answer { seat: p.seat, prompt: Some(p.id), answer: random_answer(p, &mut bot) },
                None => Command::CloseWindow,
            };
            for e in decide(&state, &cmd, &mut rng).unwrap() {
                apply(&mut state, &e);
            }
        }
    }
    for kind in ["ritual", "haunting_choice", "salt", "counter_salt", "choose_class"] {
        assert!(checked.contains(kind), "no {kind} prompt was checked: {checked:?}");
    }
}

/// R10.7.1, R10.2.2: games where prompts time out (every third decision point, and every other
/// SightPick, MediumPick and BurdenDiscard; the others answered at random) replay identically
/// from their events: folding the recorded events from the creation event gives the live
/// state, although random defaults were drawn on the way.
#[test]
fn r10_7_1_time_outs_replay_identically_from_their_events() {
    let mut random_defaults = BTreeMap::new();
    for game in 0..20u64 {
        let mut s = Settings::new(3 + (game % 4) as u8);
        s.classes = game % 2 == 1;
        let mut rng = ChaCha8Rng::seed_from_u64(100 + game);
        let mut bot = ChaCha8Rng::seed_from_u64(200 + game);
        let mut events = create(&s, &mut rng).unwrap();
        let mut state = crate::rules::replay::fold(&events);
        for i in 0..4_000 {
            if state.is_finished() {
                break;
            }
            let open = prompts(&state);
            let random = open.first().filter(|p| p.random_default && i % 2 == 0);
            let cmd = match open.iter().find(|p| !matches!(p.kind, PromptKind::Salt { current: Some(_), .. })) {
                Some(p) if i % 3 != 0 && random.is_none() => {
                    Command::Answer { seat: p.seat, prompt: Some(p.id), answer: random_answer(p, &mut bot) }
                }
                _ => Command::Timeout,
            };
            if let (Some(p), Command::Timeout) = (open.first().filter(|p| p.random_default), &cmd) {
                let kind = serde_json::to_value(&p.kind).unwrap()["kind"].as_str().unwrap().to_string();
                *random_defaults.entry(kind).or_insert(0) += 1;
            }
            let new = decide(&state, &cmd, &mut rng).unwrap();
            for e in &new {
                apply(&mut state, e);
            }
            events.extend(new);
        }
        assert!(state.is_finished(), "game {game} did not end");
        assert_eq!(crate::rules::replay::fold(&events), state, "game {game}: the replay differs");
    }
    println!("random defaults drawn: {random_defaults:?}");
    assert!(random_defaults.get("burden_discard").is_some_and(|&n| n >= 20), "{random_defaults:?}");
    assert_eq!(random_defaults.len(), 3, "every random default was drawn: {random_defaults:?}");
}

// ---------------------------------------------------------------------------------------------
// R10.6.6: repeated and changed answers in a simultaneous window.
// ---------------------------------------------------------------------------------------------

/// A 4-seat table, simultaneous windows: A (0) Haunts B (1) with 9♣; C (2) holds 5♦ and 5♥; B and
/// D (3) are asked too. A has a second action left.
fn window() -> Kit {
    let mut s = settings(4);
    s.salt_window = SaltWindow::Simultaneous;
    let mut k = Kit::with(s)
        .hand(0, &["9C", "8C", "2C", "3C"])
        .hand(1, &["2D"])
        .hand(2, &["5D", "5H"])
        .hand(3, &["4S"])
        .ritual(0);
    k.state.turn.budget = 2;
    k.act(0, Action::Haunt { card: k.in_hand(0, "9C"), target: 1 }).unwrap();
    assert_eq!(k.asked(), vec![1, 2, 3]);
    k
}

fn salt_answer(k: &Kit, seat: u8, five: &str) -> Answer {
    Answer::Salt { card: k.in_hand(seat, five) }
}

/// R10.6.6: answering a simultaneous window again with the answer one stands by changes nothing
/// and stores nothing (no events: one client repeating Pass stored 593 events in 10 s); a
/// different answer is a change and is stored. The prompt stays the same prompt.
#[test]
fn r10_6_6_a_repeated_answer_stores_nothing() {
    let mut k = window();
    let id = k.prompt(2).unwrap().id;
    assert_eq!(k.answer(2, Answer::Pass).unwrap(), vec![Event::SaltAnswered { seat: 2, salt: None }]);
    let before = k.state.clone();
    for _ in 0..20 {
        assert_eq!(k.answer(2, Answer::Pass).unwrap(), Vec::<Event>::new());
    }
    assert_eq!(k.state, before, "a repeated answer changes nothing");
    let five = salt_answer(&k, 2, "5D");
    assert_eq!(k.answer(2, five.clone()).unwrap().len(), 1, "a change is stored");
    let before = k.state.clone();
    assert!(k.answer(2, five).unwrap().is_empty());
    assert_eq!(k.state, before);
    // Another 5 is another answer.
    assert_eq!(k.answer(2, salt_answer(&k, 2, "5H")).unwrap().len(), 1);
    assert_eq!(k.prompt(2).unwrap().id, id);
    // The window then runs as usual on the answer that stands.
    k.answer(1, Answer::Pass).unwrap();
    k.answer(3, Answer::Pass).unwrap();
    assert!(k.events.iter().any(|e| matches!(e, Event::Salted { seat: 2, card } if name(k.state.face(*card)) == "5H")));
}

/// R10.6.6: a seat may change its answer at most MAX_ANSWER_CHANGES times in one window; beyond
/// that a change is refused with an error naming R10.6.6 and changes nothing (so no other viewer
/// sees anything of it), while repeating the answer that stands is still accepted. The next
/// window allows as many changes again.
#[test]
fn r10_6_6_changes_of_answer_are_bounded_per_window() {
    let mut k = window();
    let answers = [Answer::Pass, salt_answer(&k, 2, "5D")];
    // The first answer, then MAX_ANSWER_CHANGES changes, alternating Pass and Salt.
    for i in 0..=MAX_ANSWER_CHANGES as usize {
        assert_eq!(k.answer(2, answers[i % 2].clone()).unwrap().len(), 1, "answer {i}");
    }
    let standing = answers[MAX_ANSWER_CHANGES as usize % 2].clone();
    let other = answers[(MAX_ANSWER_CHANGES as usize + 1) % 2].clone();
    let before = k.state.clone();
    let views: Vec<_> = (0..4).map(|s| view(&k.state, Viewer::Seat { seat: s })).collect();
    for refused in [other.clone(), salt_answer(&k, 2, "5H")] {
        let e = k.answer(2, refused).unwrap_err();
        assert_eq!((e.rule, e.kind), ("R10.6.6", ErrorKind::Illegal), "{e}");
    }
    assert_eq!(k.state, before, "a refused change changes nothing");
    assert_eq!((0..4).map(|s| view(&k.state, Viewer::Seat { seat: s })).collect::<Vec<_>>(), views);
    assert!(k.answer(2, standing.clone()).unwrap().is_empty());
    assert!(matches!(k.prompt(2).unwrap().kind, PromptKind::Salt { current: Some(ref c), .. } if *c == standing));
    // The other seats answer on their own count.
    assert_eq!(k.answer(1, Answer::Pass).unwrap().len(), 1);
    // Close the window (C stands by Pass, as MAX_ANSWER_CHANGES is even); the Haunt resolves.
    assert_eq!(standing, Answer::Pass);
    k.answer(3, Answer::Pass).unwrap();
    assert!(k.events.iter().any(|e| matches!(e, Event::ActionResolved { .. })));
    // A second action opens a new window, where C may change its answer again.
    k.act(0, Action::Haunt { card: k.in_hand(0, "8C"), target: 1 }).unwrap();
    for i in 0..=MAX_ANSWER_CHANGES as usize {
        assert_eq!(k.answer(2, answers[i % 2].clone()).unwrap().len(), 1, "second window, answer {i}");
    }
}
