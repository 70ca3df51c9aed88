//! Rule tests: reactions. The Salt window W3 (R6.5), the BOO! window (R6.6), worked examples B9
//! and B10 in both window forms (R10.6.6), hidden information inside windows (R10.6.2, R10.6.3)
//! and time-outs inside windows (R10.7.1, R10.5 #12-#14).

use super::kit::*;
use crate::model::action::Action;
use crate::model::command::{Answer, Command};
use crate::model::error::ErrorKind;
use crate::model::event::{Effect, EndReason, Event};
use crate::model::settings::SaltWindow;
use crate::model::state::{GameResult, State, Step};
use crate::projection::redact::{ViewEvent, redact};
use crate::projection::view::{Awaiting, Half, Viewer, view};
use crate::rules::evolve::evolve;
use crate::rules::prompt::PromptKind;

const SEQ: SaltWindow = SaltWindow::Sequential;
const SIM: SaltWindow = SaltWindow::Simultaneous;

/// An empty position of `n` players with this window form (and optionally R6.5.2 on).
fn table(n: u8, w: SaltWindow, targeted_only: bool) -> Kit {
    let mut s = settings(n);
    s.salt_window = w;
    s.salt_targeted_only = targeted_only;
    Kit::with(s)
}

/// The Salt / BooSalt prompt of `seat`: (confirm, boo, the 5s offered).
fn salt_prompt(k: &Kit, seat: u8) -> (bool, bool, Vec<String>) {
    match k.prompt(seat).map(|p| p.kind) {
        Some(PromptKind::Salt { confirm, boo, fives, .. }) => {
            (confirm, boo, fives.iter().map(|c| name(c.face)).collect())
        }
        other => panic!("seat {seat}: expected a Salt prompt, got {other:?}"),
    }
}

/// The CounterSalt prompt of `seat`: (opponent, the 5s offered).
fn counter_prompt(k: &Kit, seat: u8) -> (u8, Vec<String>) {
    match k.prompt(seat).map(|p| p.kind) {
        Some(PromptKind::CounterSalt { opponent, fives }) => (opponent, fives.iter().map(|c| name(c.face)).collect()),
        other => panic!("seat {seat}: expected a CounterSalt prompt, got {other:?}"),
    }
}

fn pass(k: &mut Kit, seat: u8) -> Vec<Event> {
    k.answer(seat, Answer::Pass).unwrap_or_else(|e| panic!("seat {seat} Pass refused: {e}"))
}

fn salt(k: &mut Kit, seat: u8, five: &str) -> Vec<Event> {
    let card = k.in_hand(seat, five);
    k.answer(seat, Answer::Salt { card }).unwrap_or_else(|e| panic!("seat {seat} Salt {five} refused: {e}"))
}

fn yield_(k: &mut Kit, seat: u8) -> Vec<Event> {
    k.answer(seat, Answer::Yield).unwrap_or_else(|e| panic!("seat {seat} Yield refused: {e}"))
}

fn haunt(k: &mut Kit, actor: u8, card: &str, target: u8) -> Vec<Event> {
    let card = k.in_hand(actor, card);
    k.act(actor, Action::Haunt { card, target }).expect("Haunt declared")
}

fn boo(k: &mut Kit, actor: u8) -> Vec<Event> {
    let card = k.in_hand(actor, "Joker");
    k.act(actor, Action::Boo { card }).expect("BOO! declared")
}

fn shadow(k: &Kit, seat: u8) -> Vec<(String, Option<u8>)> {
    k.shadow_of(seat)
}

fn ghost(f: &str, h: Option<u8>) -> (String, Option<u8>) {
    (f.to_string(), h)
}

fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// Every observable piece of the position after a window: compared between the sequential and
/// the simultaneous form (R10.6.6: same outcome).
#[derive(Debug, PartialEq)]
struct Outcome {
    dark: Vec<String>,
    hands: Vec<Vec<String>>,
    shadows: Vec<Vec<(String, Option<u8>)>>,
    candles: Vec<Vec<String>>,
    resolving: usize,
    active: u8,
    budget: u8,
    step: String,
    asked: Vec<u8>,
}

fn outcome(k: &Kit) -> Outcome {
    let n = k.state.players.len() as u8;
    Outcome {
        dark: k.dark_of(),
        hands: (0..n).map(|s| k.hand_of(s)).collect(),
        shadows: (0..n).map(|s| k.shadow_of(s)).collect(),
        candles: (0..n).map(|s| k.candle_of(s)).collect(),
        resolving: k.state.resolving.len(),
        active: k.state.turn.active,
        budget: k.budget(),
        step: format!("{:?}", k.step()),
        asked: k.asked(),
    }
}

/// True if some event of `k.events` involves `seat` as a Salt-window answerer.
fn answered_in_window(k: &Kit, seat: u8) -> bool {
    k.events.iter().any(|e| {
        matches!(e, Event::Passed { seat: s } | Event::Salted { seat: s, .. } | Event::SaltAnswered { seat: s, .. }
            | Event::Yielded { seat: s } if *s == seat)
    })
}

fn cancelled_by(events: &[Event]) -> Option<u8> {
    events.iter().find_map(|e| match e {
        Event::ActionCancelled { salter, .. } => Some(*salter),
        _ => None,
    })
}

fn boo_reveals(events: &[Event]) -> Vec<u8> {
    events
        .iter()
        .find_map(|e| match e {
            Event::ActionResolved { effect: Effect::Boo { reveals }, .. } => {
                Some(reveals.iter().map(|r| r.seat).collect())
            }
            _ => None,
        })
        .expect("BOO! resolved")
}

// ---------------------------------------------------------------------------------------------
// Worked example B9 (R6.5), both window forms.
// ---------------------------------------------------------------------------------------------

/// B9 position: A (0) holds 9♣ and 5♠ (plus six other cards, so that A's Burden is visible),
/// B (1) holds no 5, C (2) holds 5♦ and 5♥, D (3) holds 5♣. A is at its Ritual, first action.
fn b9(w: SaltWindow, targeted_only: bool) -> Kit {
    table(4, w, targeted_only)
        .hand(0, &["9C", "5S", "2C", "3C", "4C", "6C", "7C", "8C"])
        .hand(1, &["2D"])
        .hand(2, &["5D", "5H"])
        .hand(3, &["5C"])
        .ritual(0)
}

/// The main line of B9 in the sequential form; returns the kit at A's Burden.
fn b9_main_sequential() -> Kit {
    let mut k = b9(SEQ, false);
    haunt(&mut k, 0, "9C", 1);
    // W3 asks B, C, D in that order: B first.
    assert_eq!(k.asked(), vec![1]);
    assert_eq!(salt_prompt(&k, 1), (false, false, vec![]));
    pass(&mut k, 1);
    assert_eq!(k.asked(), vec![2]);
    assert_eq!(salt_prompt(&k, 2), (false, false, strs(&["5D", "5H"])));
    salt(&mut k, 2, "5D");
    // A is asked to counter.
    assert_eq!(k.asked(), vec![0]);
    assert_eq!(counter_prompt(&k, 0), (2, strs(&["5S"])));
    salt(&mut k, 0, "5S");
    assert_eq!(k.asked(), vec![2]);
    assert_eq!(counter_prompt(&k, 2), (0, strs(&["5H"])));
    salt(&mut k, 2, "5H");
    assert_eq!(k.asked(), vec![0]);
    assert_eq!(counter_prompt(&k, 0), (2, vec![]));
    let ev = yield_(&mut k, 0);
    assert_eq!(cancelled_by(&ev), Some(2), "C's Salt (the last 5) stands");
    k
}

/// B9 (R6.5.3, R6.5.5, R6.5.6, R4.4.5), main line, sequential window: B passes, C Salts, A
/// counters, C re-Salts, A yields. The Haunt is cancelled, The Dark receives 9♣ 5♦ 5♠ 5♥, A's
/// Ritual ends and A goes to The Burden; D is never asked.
#[test]
fn b9_counter_salt_chain_sequential() {
    let k = b9_main_sequential();
    assert_eq!(k.dark_of(), strs(&["5H", "5S", "5D", "9C"]));
    assert!(k.shadow_of(1).is_empty(), "the Haunt was cancelled");
    assert!(k.state.resolving.is_empty());
    // A's Ritual ended: A is at its Burden (6 cards in hand, limit 5).
    assert_eq!(k.step(), &Step::Burden);
    assert_eq!(k.state.turn.active, 0);
    assert_eq!(k.budget(), 0);
    assert_eq!(k.asked(), vec![0]);
    assert!(matches!(k.prompt(0).unwrap().kind, PromptKind::BurdenDiscard { count: 1, .. }));
    // D is never asked and keeps its 5.
    assert!(!answered_in_window(&k, 3));
    assert_eq!(k.hand_of(3), strs(&["5C"]));
    assert_eq!(k.hand_of(2), Vec::<String>::new());
}

/// B9 (R6.5, R10.6.6), main line, simultaneous window: B passes, C Salts with 5♦ and D answers
/// Salt with 5♣. C (first clockwise) is taken first; its exchange ends with C's Salt standing,
/// so D's turn never comes and D keeps its 5. Same outcome as the sequential form.
#[test]
fn b9_counter_salt_chain_simultaneous() {
    let mut k = b9(SIM, false);
    haunt(&mut k, 0, "9C", 1);
    // Every eligible player is asked at once.
    assert_eq!(k.asked(), vec![1, 2, 3]);
    for s in 1..=3 {
        let (confirm, boo, _) = salt_prompt(&k, s);
        assert!(!confirm && !boo);
    }
    salt(&mut k, 3, "5C");
    pass(&mut k, 1);
    // The window stays open (answers may still change) until C has answered too.
    assert_eq!(k.asked(), vec![1, 2, 3]);
    assert!(matches!(k.prompt(3).unwrap().kind, PromptKind::Salt { current: Some(Answer::Salt { .. }), .. }));
    salt(&mut k, 2, "5D");
    // All answered: the window closed; C's 5 entered automatically; A is asked to counter.
    assert_eq!(k.asked(), vec![0]);
    assert_eq!(counter_prompt(&k, 0), (2, strs(&["5S"])));
    salt(&mut k, 0, "5S");
    assert_eq!(counter_prompt(&k, 2), (0, strs(&["5H"])));
    salt(&mut k, 2, "5H");
    let ev = yield_(&mut k, 0);
    assert_eq!(cancelled_by(&ev), Some(2));
    assert_eq!(k.dark_of(), strs(&["5H", "5S", "5D", "9C"]));
    assert_eq!(k.hand_of(3), strs(&["5C"]), "D's turn never came: it keeps its 5");
    assert!(!k.events.iter().any(|e| matches!(e, Event::Salted { seat: 3, .. })));
    assert_eq!(k.step(), &Step::Burden);
    assert_eq!(k.budget(), 0);
    // R10.6.6: same outcome as the sequential protocol with the same answers.
    assert_eq!(outcome(&k), outcome(&b9_main_sequential()));
}

fn b9_variant_sequential() -> Kit {
    let mut k = b9(SEQ, false);
    haunt(&mut k, 0, "9C", 1);
    pass(&mut k, 1);
    salt(&mut k, 2, "5D");
    salt(&mut k, 0, "5S");
    yield_(&mut k, 2);
    // C's Salt failed: the window goes on to D.
    assert_eq!(k.asked(), vec![3]);
    assert_eq!(salt_prompt(&k, 3), (false, false, strs(&["5C"])));
    let ev = pass(&mut k, 3);
    assert_eq!(cancelled_by(&ev), None);
    k
}

fn assert_b9_variant(k: &Kit) {
    // The Haunt resolves: 9♣ in B's Shadow with haunter A, in B's right half.
    assert_eq!(shadow(k, 1), vec![ghost("9C", Some(0))]);
    let v = view(&k.state, Viewer::Spectator);
    assert_eq!(v.players[1].shadow[0].half, Half::Right);
    // Cleanup: 5♦ then 5♠ (top 5♠).
    assert_eq!(k.dark_of(), strs(&["5S", "5D"]));
    // R6.5.8: both 5s are spent.
    assert_eq!(k.hand_of(2), strs(&["5H"]));
    assert!(!k.hand_of(0).contains(&"5S".to_string()));
    assert_eq!(k.hand_of(3), strs(&["5C"]));
}

/// B9 variant (R6.5.6 continuation, R11.12), sequential: after A's 5♠, C yields. C's Salt
/// failed; the window goes on to D, who passes; the Haunt resolves; cleanup 5♦ then 5♠.
#[test]
fn b9_variant_salt_fails_sequential() {
    let k = b9_variant_sequential();
    assert_b9_variant(&k);
}

/// B9 variant, simultaneous: B passes, C Salts, D passes. After A's counter stands (C yields)
/// the window goes on one player at a time as in the sequential form: D, who had passed, is
/// asked again (no `confirm`), passes, and the Haunt resolves. Same outcome as sequential.
#[test]
fn b9_variant_salt_fails_simultaneous() {
    let mut k = b9(SIM, false);
    haunt(&mut k, 0, "9C", 1);
    pass(&mut k, 1);
    pass(&mut k, 3);
    salt(&mut k, 2, "5D");
    salt(&mut k, 0, "5S");
    let ev = yield_(&mut k, 2);
    assert!(!ev.iter().any(|e| matches!(e, Event::ActionResolved { .. } | Event::WindowClosed)));
    assert_eq!(k.asked(), vec![3], "B, before C, is not asked again");
    assert_eq!(salt_prompt(&k, 3), (false, false, strs(&["5C"])));
    assert_eq!(view(&k.state, Viewer::Spectator).awaiting, Awaiting::Window { actor: 0 });
    let ev = pass(&mut k, 3);
    assert!(ev.iter().any(|e| matches!(e, Event::ActionResolved { effect: Effect::Haunted { target: 1 }, .. })));
    assert_b9_variant(&k);
    assert_eq!(outcome(&k), outcome(&b9_variant_sequential()));
}

/// B9 variant, simultaneous, D had answered Salt: once A's counter stands against C, D is asked
/// to confirm (R10.6.6: PromptKind::Salt with confirm = true) and withdraws: D keeps its 5 and
/// the Haunt resolves, exactly as when D passes in the sequential form.
#[test]
fn b9_variant_confirm_withdraw_simultaneous() {
    let mut k = b9(SIM, false);
    haunt(&mut k, 0, "9C", 1);
    pass(&mut k, 1);
    salt(&mut k, 2, "5D");
    salt(&mut k, 3, "5C");
    salt(&mut k, 0, "5S");
    yield_(&mut k, 2);
    // D's Salt did not enter automatically: D must confirm or withdraw.
    assert_eq!(k.asked(), vec![3]);
    assert_eq!(salt_prompt(&k, 3), (true, false, strs(&["5C"])));
    assert_eq!(k.hand_of(3), strs(&["5C"]));
    pass(&mut k, 3);
    assert_b9_variant(&k);
    assert_eq!(outcome(&k), outcome(&b9_variant_sequential()));
}

/// B9 variant, D Salts after C's failure: sequential (D Salts when asked) and simultaneous (D
/// confirms its earlier Salt) give the same outcome: A has no 5 left and yields, D's Salt
/// stands, The Dark receives 9♣ 5♦ 5♠ 5♣.
#[test]
fn b9_variant_second_salter_stands_both_forms() {
    // Sequential.
    let mut s = b9(SEQ, false);
    haunt(&mut s, 0, "9C", 1);
    pass(&mut s, 1);
    salt(&mut s, 2, "5D");
    salt(&mut s, 0, "5S");
    yield_(&mut s, 2);
    salt(&mut s, 3, "5C");
    assert_eq!(counter_prompt(&s, 0), (3, vec![]));
    let ev = yield_(&mut s, 0);
    assert_eq!(cancelled_by(&ev), Some(3));
    assert_eq!(s.dark_of(), strs(&["5C", "5S", "5D", "9C"]));
    assert!(s.shadow_of(1).is_empty());
    assert_eq!(s.step(), &Step::Burden);
    // Simultaneous.
    let mut k = b9(SIM, false);
    haunt(&mut k, 0, "9C", 1);
    salt(&mut k, 3, "5C");
    salt(&mut k, 2, "5D");
    pass(&mut k, 1);
    salt(&mut k, 0, "5S");
    yield_(&mut k, 2);
    assert_eq!(salt_prompt(&k, 3), (true, false, strs(&["5C"])));
    salt(&mut k, 3, "5C");
    assert_eq!(counter_prompt(&k, 0), (3, vec![]));
    let ev = yield_(&mut k, 0);
    assert_eq!(cancelled_by(&ev), Some(3));
    assert_eq!(outcome(&k), outcome(&s));
}

/// B9 variant (R6.5.2) with `salt_targeted_only` on, sequential: only B is asked.
#[test]
fn b9_variant_targeted_only_sequential() {
    let mut k = b9(SEQ, true);
    haunt(&mut k, 0, "9C", 1);
    assert_eq!(k.asked(), vec![1]);
    pass(&mut k, 1);
    assert_eq!(shadow(&k, 1), vec![ghost("9C", Some(0))]);
    assert!(!answered_in_window(&k, 2) && !answered_in_window(&k, 3));
    assert_eq!(k.hand_of(2), strs(&["5D", "5H"]));
    assert_eq!(k.hand_of(3), strs(&["5C"]));
    assert_eq!(k.dark_of(), Vec::<String>::new());
}

/// B9 variant (R6.5.2, R10.6.6) with `salt_targeted_only` on, simultaneous: only B is asked.
#[test]
fn b9_variant_targeted_only_simultaneous() {
    let mut k = b9(SIM, true);
    haunt(&mut k, 0, "9C", 1);
    assert_eq!(k.asked(), vec![1]);
    assert_eq!(salt_prompt(&k, 1), (false, false, vec![]));
    pass(&mut k, 1);
    assert_eq!(shadow(&k, 1), vec![ghost("9C", Some(0))]);
    assert!(!answered_in_window(&k, 2) && !answered_in_window(&k, 3));
    assert_eq!(k.hand_of(2), strs(&["5D", "5H"]));
    assert_eq!(k.hand_of(3), strs(&["5C"]));
}

// ---------------------------------------------------------------------------------------------
// Worked example B10 (R5.6.4, R6.6), both window forms.
// ---------------------------------------------------------------------------------------------

/// B10 position: A (0) holds the Joker and no 5 (plus six other cards, so that A's Burden is
/// visible after the Ritual), B (1) holds 5♣, C (2) holds 3♥ and a
/// Candle K♠ 3♦ 4♦, D (3) has an empty hand and a Candle 8♠ 4♥. A is at its Ritual.
fn b10(w: SaltWindow) -> Kit {
    table(4, w, false)
        .hand(0, &["Joker", "2H", "3C", "4C", "6C", "7C", "8C"])
        .hand(1, &["5C"])
        .hand(2, &["3H"])
        .candle(2, &["KS", "3D", "4D"])
        .candle(3, &["8S", "4H"])
        .ritual(0)
}

fn assert_b10(k: &Kit, ev: &[Event]) {
    // Resolution for C, then D; B protected.
    assert_eq!(boo_reveals(ev), vec![2, 3]);
    assert!(k.shadow_of(1).is_empty(), "B is protected");
    assert_eq!(shadow(k, 2), vec![ghost("3D", None)]);
    assert_eq!(shadow(k, 3), vec![ghost("8S", None)]);
    assert_eq!(k.candle_of(2), strs(&["4D"]));
    assert_eq!(k.candle_of(3), strs(&["4H"]));
    // Cleanup: the Joker, then 5♣. The Dark top-down: 5♣, Joker, K♠.
    assert_eq!(k.dark_of(), strs(&["5C", "Joker", "KS"]));
    // A Salt stood: A's Ritual ended after BOO!; A is at its Burden.
    assert_eq!(k.state.turn.active, 0);
    assert_eq!(k.budget(), 0);
    assert_eq!(k.step(), &Step::Burden);
    assert!(!k.events.iter().any(|e| matches!(e, Event::Passed { seat: 3 } | Event::SaltAnswered { seat: 3, .. })));
}

fn b10_sequential() -> (Kit, Vec<Event>) {
    let mut k = b10(SEQ);
    boo(&mut k, 0);
    assert_eq!(k.asked(), vec![1]);
    assert_eq!(salt_prompt(&k, 1), (false, true, strs(&["5C"])));
    salt(&mut k, 1, "5C");
    assert_eq!(counter_prompt(&k, 0), (1, vec![]));
    yield_(&mut k, 0);
    // B is protected; the window continues with C.
    assert_eq!(k.asked(), vec![2]);
    assert_eq!(salt_prompt(&k, 2), (false, true, vec![]));
    let ev = pass(&mut k, 2);
    (k, ev)
}

/// B10 (R5.6.4, R6.6), sequential: B Salts and A yields (B protected); C passes; D is not asked
/// (empty hand); BOO! hits C (K♠ to The Dark, 3♦ ghost) and D (8♠ ghost); cleanup Joker, 5♣.
#[test]
fn b10_boo_per_target_salt_sequential() {
    let (k, ev) = b10_sequential();
    assert_b10(&k, &ev);
}

/// B10 (R6.6, R10.6.6), simultaneous: B and C are asked at once (not D); B's Salt enters when
/// the window closes, A yields. Same outcome as the sequential form.
#[test]
fn b10_boo_per_target_salt_simultaneous() {
    let mut k = b10(SIM);
    boo(&mut k, 0);
    assert_eq!(k.asked(), vec![1, 2], "D (empty hand) is not asked");
    assert_eq!(salt_prompt(&k, 1), (false, true, strs(&["5C"])));
    assert_eq!(salt_prompt(&k, 2), (false, true, vec![]));
    pass(&mut k, 2);
    salt(&mut k, 1, "5C");
    assert_eq!(counter_prompt(&k, 0), (1, vec![]));
    let ev = yield_(&mut k, 0);
    assert_b10(&k, &ev);
    let (s, _) = b10_sequential();
    assert_eq!(outcome(&k), outcome(&s));
}

// ---------------------------------------------------------------------------------------------
// R6.5: the Salt window.
// ---------------------------------------------------------------------------------------------

/// R6.5.1, R10.4.3: eligible are the other Lit players with at least one card in hand. A player
/// with an empty hand and an eliminated player are skipped; the actor is never asked.
#[test]
fn r6_5_1_eligibility_sequential() {
    let mut k = table(5, SEQ, false).hand(0, &["9C", "5S"]).hand(1, &["2D"]).hand(3, &["5H"]).out(4, 5).ritual(0);
    haunt(&mut k, 0, "9C", 1);
    assert_eq!(k.asked(), vec![1]);
    pass(&mut k, 1);
    // Seat 2 (empty hand) is skipped; seat 3 is next.
    assert_eq!(k.asked(), vec![3]);
    let ev = pass(&mut k, 3);
    // Seat 4 is not Lit; the actor is not asked: the Haunt resolves.
    assert!(ev.iter().any(|e| matches!(e, Event::ActionResolved { effect: Effect::Haunted { target: 1 }, .. })));
    assert!(!answered_in_window(&k, 2) && !answered_in_window(&k, 4) && !answered_in_window(&k, 0));
    assert_eq!(shadow(&k, 1), vec![ghost("9C", Some(0))]);
}

/// R6.5.1, R10.6.6: the simultaneous window opens for exactly the eligible players.
#[test]
fn r6_5_1_eligibility_simultaneous() {
    let mut k = table(5, SIM, false).hand(0, &["9C", "5S"]).hand(1, &["2D"]).hand(3, &["5H"]).out(4, 5).ritual(0);
    haunt(&mut k, 0, "9C", 1);
    assert_eq!(k.asked(), vec![1, 3]);
    pass(&mut k, 1);
    pass(&mut k, 3);
    assert_eq!(shadow(&k, 1), vec![ghost("9C", Some(0))]);
}

/// R6.5.2: with `salt_targeted_only`, only targeted players are asked: Drain targets both
/// neighbours (seats 1 and 3, not seat 2), and an untargeted action (Rekindle) opens no window.
#[test]
fn r6_5_2_salt_targeted_only() {
    for w in [SEQ, SIM] {
        let mut k = table(4, w, true)
            .hand(0, &["4C", "10C", "2C"])
            .hand(1, &["5D"])
            .hand(2, &["5H"])
            .hand(3, &["5C"])
            .ritual(0);
        k.state.turn.budget = 3;
        let card = k.in_hand(0, "4C");
        k.act(0, Action::Drain { card }).unwrap();
        match w {
            SaltWindow::Sequential => {
                assert_eq!(k.asked(), vec![1]);
                pass(&mut k, 1);
                assert_eq!(k.asked(), vec![3]);
                pass(&mut k, 3);
            }
            SaltWindow::Simultaneous => {
                assert_eq!(k.asked(), vec![1, 3]);
                pass(&mut k, 3);
                pass(&mut k, 1);
            }
        }
        assert!(!answered_in_window(&k, 2), "{w:?}: seat 2 is not targeted by Drain");
        assert_eq!(k.asked(), vec![0], "{w:?}: back at A's Ritual");
        // Rekindle targets nobody: no window, it resolves at once.
        k.events.clear();
        let card = k.in_hand(0, "10C");
        let ev = k.act(0, Action::Rekindle { card }).unwrap();
        assert!(
            ev.iter().any(|e| matches!(e, Event::ActionResolved { effect: Effect::Rekindled { .. }, .. })),
            "{w:?}: Rekindle resolves with no Salt prompt in between: {ev:?}"
        );
        assert!(!ev.iter().any(|e| matches!(e, Event::Passed { .. } | Event::SaltAnswered { .. })));
        assert_eq!(k.hand_of(1), strs(&["5D"]));
        assert_eq!(k.hand_of(2), strs(&["5H"]));
        assert_eq!(k.hand_of(3), strs(&["5C"]));
    }
}

/// R6.5.3: eligible players are asked one at a time, clockwise from the actor's left
/// neighbour, each at most once (actor seat 2 of 5: seats 3, 4, 0, 1).
#[test]
fn r6_5_3_order_clockwise_from_actor_left() {
    let mut k = table(5, SEQ, false)
        .hand(0, &["5H"])
        .hand(1, &["2D"])
        .hand(2, &["9C"])
        .hand(3, &["2H"])
        .hand(4, &["5C"])
        .ritual(2);
    haunt(&mut k, 2, "9C", 3);
    let mut order = Vec::new();
    for _ in 0..4 {
        let asked = k.asked();
        assert_eq!(asked.len(), 1, "one player at a time");
        order.push(asked[0]);
        pass(&mut k, asked[0]);
    }
    assert_eq!(order, vec![3, 4, 0, 1]);
    assert_eq!(shadow(&k, 3), vec![ghost("9C", Some(2))]);
    let passes: Vec<u8> = k
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Passed { seat } => Some(*seat),
            _ => None,
        })
        .collect();
    assert_eq!(passes, vec![3, 4, 0, 1], "each asked once");
}

/// R6.5.4: every eligible player is asked whether or not they hold a 5 (the prompt's `fives`
/// is then empty); Pass is the default; a card that is not a 5 cannot be played as Salt.
#[test]
fn r6_5_4_universal_offer() {
    for w in [SEQ, SIM] {
        let mut k = table(4, w, false)
            .hand(0, &["9C"])
            .hand(1, &["2D", "KH"])
            .hand(2, &["5D", "3S"])
            .hand(3, &["5H"])
            .ritual(0);
        haunt(&mut k, 0, "9C", 1);
        assert!(k.asked().contains(&1), "{w:?}: seat 1 holds no 5 and is still asked");
        let p = k.prompt(1).unwrap();
        assert_eq!(p.default, Answer::Pass);
        assert_eq!(salt_prompt(&k, 1).2, Vec::<String>::new());
        let card = k.in_hand(1, "2D");
        let err = k.answer(1, Answer::Salt { card }).unwrap_err();
        assert_eq!(err.rule, "R6.5");
        assert_eq!(k.hand_of(1), strs(&["2D", "KH"]));
        pass(&mut k, 1);
        assert_eq!(salt_prompt(&k, 2).2, strs(&["5D"]), "{w:?}: only the 5s are offered");
    }
}

/// R6.5.4 and auto-pass (docs/rules-decisions.md 55): the Game contract's auto-pass answers
/// Pass only for a Salt prompt whose seat holds no 5, never for one that holds a 5 and never
/// for an answered simultaneous prompt.
#[test]
fn r6_5_4_auto_pass_only_without_a_five() {
    use flicker_game::Game;
    for w in [SEQ, SIM] {
        let mut k = table(4, w, false)
            .hand(0, &["9C"])
            .hand(1, &["2D", "KH"])
            .hand(2, &["5D", "3S"])
            .hand(3, &["5H"])
            .ritual(0);
        haunt(&mut k, 0, "9C", 1);
        assert_eq!(crate::FinalFlicker::auto_pass(&k.prompt(1).unwrap()), Some(Answer::Pass), "{w:?}");
        if w == SIM {
            assert_eq!(crate::FinalFlicker::auto_pass(&k.prompt(2).unwrap()), None, "{w:?}: seat 2 holds a 5");
            pass(&mut k, 1);
            if let Some(p) = k.prompt(1) {
                assert_eq!(crate::FinalFlicker::auto_pass(&p), None, "answered already");
            }
        } else {
            pass(&mut k, 1);
            assert_eq!(crate::FinalFlicker::auto_pass(&k.prompt(2).unwrap()), None, "{w:?}: seat 2 holds a 5");
        }
    }
}

/// R6.5.5: the exchange alternates between the actor and the Salter only; no other player may
/// answer meanwhile; a side with an empty hand yields automatically without being asked (here
/// the Salter after its last 5), and the window then goes on.
#[test]
fn r6_5_5_exchange_two_parties_alternating() {
    let mut k = table(4, SEQ, false)
        .hand(0, &["9C", "5S", "5H", "2C"])
        .hand(1, &["5D", "5C"])
        .hand(2, &["5D"])
        .hand(3, &["5H"])
        .ritual(0);
    haunt(&mut k, 0, "9C", 1);
    salt(&mut k, 1, "5D");
    assert_eq!(k.asked(), vec![0]);
    // A third player may not join the exchange.
    for s in [2, 3] {
        let card = k.in_hand(s, if s == 2 { "5D" } else { "5H" });
        let err = k.answer(s, Answer::Salt { card }).unwrap_err();
        assert_eq!(err.kind, ErrorKind::NotYourPrompt);
    }
    salt(&mut k, 0, "5S");
    assert_eq!(k.asked(), vec![1]);
    assert_eq!(counter_prompt(&k, 1), (0, strs(&["5C"])));
    salt(&mut k, 1, "5C");
    assert_eq!(counter_prompt(&k, 0), (1, strs(&["5H"])));
    let ev = salt(&mut k, 0, "5H");
    // B's hand is empty: B yields without being asked; the window continues with C.
    assert!(ev.iter().any(|e| matches!(e, Event::Yielded { seat: 1 })));
    assert_eq!(k.asked(), vec![2]);
    assert_eq!(salt_prompt(&k, 2), (false, false, strs(&["5D"])));
    pass(&mut k, 2);
    pass(&mut k, 3);
    assert_eq!(shadow(&k, 1), vec![ghost("9C", Some(0))]);
    // Cleanup: the 5s in play order (5♦ 5♠ 5♣ 5♥; top 5♥).
    assert_eq!(k.dark_of(), strs(&["5H", "5C", "5S", "5D"]));
}

/// R6.5.5: an actor with an empty hand yields automatically: the Salt stands at once.
#[test]
fn r6_5_5_actor_with_empty_hand_yields_automatically() {
    for w in [SEQ, SIM] {
        let mut k = table(4, w, false).hand(0, &["9C"]).hand(1, &["5D"]).hand(2, &["2H"]).hand(3, &["5H"]).ritual(0);
        haunt(&mut k, 0, "9C", 1);
        let ev = match w {
            SaltWindow::Sequential => salt(&mut k, 1, "5D"),
            SaltWindow::Simultaneous => {
                pass(&mut k, 2);
                pass(&mut k, 3);
                salt(&mut k, 1, "5D")
            }
        };
        assert!(ev.iter().any(|e| matches!(e, Event::Yielded { seat: 0 })), "{w:?}");
        assert_eq!(cancelled_by(&ev), Some(1), "{w:?}");
        assert!(!k.events.iter().any(|e| matches!(e, Event::Salted { seat: 0, .. })));
        assert_eq!(k.dark_of(), strs(&["5D", "9C"]));
        assert!(k.shadow_of(1).is_empty());
        assert_eq!(k.hand_of(3), strs(&["5H"]));
    }
}

/// R6.5.6, R4.4.5: a standing Salt cancels the action, closes the window (later players are not
/// asked), cleanup sends X's card then the 5s in play order to The Dark, and the Ritual ends at
/// once even though actions were left (budget 2 here, as after a Greed).
#[test]
fn r6_5_6_standing_salt_cancels_and_ends_ritual() {
    let mut k = table(4, SEQ, false)
        .hand(0, &["8H", "5S", "2C", "3C", "4C", "6C", "7C", "9D"])
        .hand(1, &["5D"])
        .hand(2, &["5C", "5H"])
        .hand(3, &["5H"])
        .ritual(0);
    k.state.turn.budget = 2;
    let candle1 = k.candle_of(1);
    // Greed on seat 1 (targeted); seat 1 passes; seat 2 Salts; A counters; 2 re-Salts; A yields.
    let card = k.in_hand(0, "2C");
    k.act(0, Action::Greed { card, target: 1 }).unwrap();
    assert_eq!(k.budget(), 1);
    pass(&mut k, 1);
    salt(&mut k, 2, "5C");
    salt(&mut k, 0, "5S");
    salt(&mut k, 2, "5H");
    let ev = yield_(&mut k, 0);
    assert_eq!(cancelled_by(&ev), Some(2));
    assert!(!answered_in_window(&k, 3), "the window closed");
    assert_eq!(k.hand_of(3), strs(&["5H"]));
    assert_eq!(k.hand_of(1), strs(&["5D"]), "the Greed did not resolve");
    assert_eq!(k.candle_of(1), candle1);
    assert_eq!(k.dark_of(), strs(&["5H", "5S", "5C", "2C"]));
    // R4.4.5: the Ritual ended at once, with one action left (no Greed extra action either):
    // A is at its Burden (6 cards in hand).
    assert_eq!(k.state.turn.active, 0);
    assert_eq!(k.budget(), 0);
    assert_eq!(k.step(), &Step::Burden);
    assert!(matches!(k.prompt(0).unwrap().kind, PromptKind::BurdenDiscard { count: 1, .. }));
}

/// R6.5.6 (R11.12): a failed Salt continues the window with the next eligible player after P
/// (never back to players already asked); a later Salt may still stand; cleanup then sends every
/// 5 in play order.
#[test]
fn r6_5_6_failed_salt_continues_with_next_player() {
    let mut k = table(5, SEQ, false)
        .hand(0, &["9C", "5S", "2C"])
        .hand(1, &["5C"])
        .hand(2, &["5D", "3D"])
        .hand(3, &["4H"])
        .hand(4, &["5H"])
        .ritual(0);
    haunt(&mut k, 0, "9C", 1);
    pass(&mut k, 1);
    salt(&mut k, 2, "5D");
    salt(&mut k, 0, "5S");
    yield_(&mut k, 2);
    assert_eq!(k.asked(), vec![3], "the window continues after seat 2");
    pass(&mut k, 3);
    assert_eq!(k.asked(), vec![4]);
    salt(&mut k, 4, "5H");
    assert_eq!(counter_prompt(&k, 0), (4, vec![]));
    let ev = yield_(&mut k, 0);
    assert_eq!(cancelled_by(&ev), Some(4));
    assert_eq!(k.dark_of(), strs(&["5H", "5S", "5D", "9C"]));
    assert!(k.hand_of(1).contains(&"5C".to_string()), "seat 1 was asked once only");
    assert_eq!(k.events.iter().filter(|e| matches!(e, Event::Passed { seat: 1 })).count(), 1);
}

/// R6.5.7, R5.1.6: when every eligible player has passed or failed, the action resolves; the 5s
/// of failed exchanges reach The Dark after the action's own movements (Banish: the ghost,
/// then the Banish card, then the 5s in play order).
#[test]
fn r6_5_7_action_resolves_failed_fives_after_its_movements() {
    let mut k = table(4, SEQ, false)
        .hand(0, &["8D", "5S"])
        .hand(1, &["5D", "2D"])
        .hand(2, &["3H"])
        .hand(3, &["3S"])
        .shadow(0, &[("7C", Some(1))])
        .ritual(0);
    let (card, g) = (k.in_hand(0, "8D"), k.ghost(0, "7C"));
    k.act(0, Action::Banish { card, ghost: g }).unwrap();
    salt(&mut k, 1, "5D");
    salt(&mut k, 0, "5S");
    yield_(&mut k, 1);
    pass(&mut k, 2);
    let ev = pass(&mut k, 3);
    assert!(
        ev.iter().any(|e| matches!(e, Event::ActionResolved { effect: Effect::Banished { siphoned: false, .. }, .. }))
    );
    assert!(k.shadow_of(0).is_empty());
    assert_eq!(k.dark_of(), strs(&["5S", "5D", "8D", "7C"]));
}

/// R6.5.8: a 5 used as Salt is spent even when its Salt fails (and the actor's winning counter
/// is spent too); neither returns to a hand.
#[test]
fn r6_5_8_failed_salt_is_spent() {
    for w in [SEQ, SIM] {
        let mut k = table(3, w, false).hand(0, &["9C", "5S", "2C"]).hand(1, &["5D", "4D"]).hand(2, &["3H"]).ritual(0);
        haunt(&mut k, 0, "9C", 1);
        if w == SIM {
            pass(&mut k, 2);
        }
        salt(&mut k, 1, "5D");
        salt(&mut k, 0, "5S");
        yield_(&mut k, 1);
        // The failed Salt: the window goes on with seat 2 (in both forms, R10.6.6).
        assert_eq!(k.asked(), vec![2], "{w:?}");
        pass(&mut k, 2);
        assert_eq!(shadow(&k, 1), vec![ghost("9C", Some(0))], "{w:?}");
        assert_eq!(k.hand_of(1), strs(&["4D"]));
        assert_eq!(k.hand_of(0), strs(&["2C"]));
        assert_eq!(k.dark_of(), strs(&["5S", "5D"]));
    }
}

// ---------------------------------------------------------------------------------------------
// R6.6: BOO! per-target Salt.
// ---------------------------------------------------------------------------------------------

fn r6_6_position(w: SaltWindow, targeted_only: bool) -> Kit {
    table(4, w, targeted_only)
        .hand(0, &["Joker", "5S", "2H", "3C", "4C", "6C", "7C", "8C"])
        .hand(1, &["5C", "3D"])
        .hand(2, &["5D"])
        .hand(3, &["2D"])
        .candle(1, &["6C", "9D"])
        .candle(2, &["7D", "9H"])
        .candle(3, &["JH", "8H", "9S"])
        .ritual(0)
}

fn assert_r6_6(k: &Kit, ev: &[Event]) {
    // Only C is protected; B (whose Salt failed) and D are haunted, clockwise.
    assert_eq!(boo_reveals(ev), vec![1, 3]);
    assert_eq!(shadow(k, 1), vec![ghost("6C", None)]);
    assert!(k.shadow_of(2).is_empty());
    assert_eq!(k.candle_of(2), strs(&["7D", "9H"]));
    assert_eq!(shadow(k, 3), vec![ghost("8H", None)]);
    assert_eq!(k.candle_of(3), strs(&["9S"]));
    // The Dark: J♥ (turned up), then cleanup Joker, 5♣, 5♠, 5♦.
    assert_eq!(k.dark_of(), strs(&["5D", "5S", "5C", "Joker", "JH"]));
    // R6.6.3: a Salt stood (C's): the Ritual ended after BOO!, though one action was left.
    assert_eq!(k.budget(), 0);
    assert_eq!(k.step(), &Step::Burden);
}

/// R6.6.1-R6.6.3, sequential, with `salt_targeted_only` on (it changes nothing: all are
/// targeted): every other player is asked, even D without a 5; B's Salt fails (A's counter
/// stands) so B is not protected; C's Salt stands and protects C only; BOO! then resolves for B
/// and D, and the Ritual ends afterwards.
#[test]
fn r6_6_per_target_salt_sequential() {
    let mut k = r6_6_position(SEQ, true);
    k.state.turn.budget = 2;
    boo(&mut k, 0);
    assert_eq!(k.asked(), vec![1]);
    salt(&mut k, 1, "5C");
    salt(&mut k, 0, "5S");
    yield_(&mut k, 1);
    assert_eq!(k.asked(), vec![2], "the window continues after B's failed Salt");
    salt(&mut k, 2, "5D");
    assert_eq!(counter_prompt(&k, 0), (2, vec![]));
    yield_(&mut k, 0);
    assert_eq!(k.asked(), vec![3], "after C's standing Salt the BOO! window still goes on");
    assert_eq!(salt_prompt(&k, 3), (false, true, vec![]));
    let ev = pass(&mut k, 3);
    assert_r6_6(&k, &ev);
}

/// R6.6.2, R10.6.6, simultaneous BOO! window: every Salter's exchange runs, with no confirm
/// step, even after A's counter stood against the first Salter. Same outcome as sequential.
#[test]
fn r6_6_per_target_salt_simultaneous() {
    let mut k = r6_6_position(SIM, true);
    k.state.turn.budget = 2;
    boo(&mut k, 0);
    assert_eq!(k.asked(), vec![1, 2, 3]);
    salt(&mut k, 2, "5D");
    pass(&mut k, 3);
    salt(&mut k, 1, "5C");
    assert_eq!(counter_prompt(&k, 0), (1, strs(&["5S"])));
    salt(&mut k, 0, "5S");
    yield_(&mut k, 1);
    // No confirm prompt to C: its 5 entered automatically and A is asked to counter it.
    assert!(k.events.iter().any(|e| matches!(e, Event::Salted { seat: 2, .. })));
    assert_eq!(k.asked(), vec![0]);
    assert_eq!(counter_prompt(&k, 0), (2, vec![]));
    let ev = yield_(&mut k, 0);
    assert_r6_6(&k, &ev);
    let mut s = r6_6_position(SEQ, true);
    s.state.turn.budget = 2;
    boo(&mut s, 0);
    salt(&mut s, 1, "5C");
    salt(&mut s, 0, "5S");
    yield_(&mut s, 1);
    salt(&mut s, 2, "5D");
    yield_(&mut s, 0);
    pass(&mut s, 3);
    assert_eq!(outcome(&k), outcome(&s));
}

/// R6.6.3 (R11.13): if every targeted player is protected, BOO! has no effect; the Ritual still
/// ends after it (both forms).
#[test]
fn r6_6_3_all_protected_no_effect() {
    for w in [SEQ, SIM] {
        let mut k = table(3, w, false)
            .hand(0, &["Joker", "2H", "3C", "4C", "6C", "7C", "8C"])
            .hand(1, &["5C"])
            .hand(2, &["5D"])
            .candle(1, &["6C", "9D"])
            .candle(2, &["KD", "7D"])
            .ritual(0);
        k.state.turn.budget = 2;
        boo(&mut k, 0);
        if w == SIM {
            salt(&mut k, 2, "5D");
        }
        salt(&mut k, 1, "5C");
        yield_(&mut k, 0);
        if w == SEQ {
            salt(&mut k, 2, "5D");
        }
        let ev = yield_(&mut k, 0);
        assert_eq!(boo_reveals(&ev), Vec::<u8>::new(), "{w:?}");
        assert!(k.shadow_of(1).is_empty() && k.shadow_of(2).is_empty());
        assert_eq!(k.candle_of(1), strs(&["6C", "9D"]));
        assert_eq!(k.candle_of(2), strs(&["KD", "7D"]));
        assert_eq!(k.dark_of(), strs(&["5D", "5C", "Joker"]));
        assert_eq!(k.budget(), 0, "{w:?}: the Ritual ended");
        assert_eq!(k.state.turn.active, 0);
        assert_eq!(k.step(), &Step::Burden);
    }
}

// ---------------------------------------------------------------------------------------------
// R10.6.6: the simultaneous form.
// ---------------------------------------------------------------------------------------------

/// R10.6.6: answers are private and may be changed until every eligible player has answered;
/// then the window closes automatically. The prompt shows the seat's current answer.
#[test]
fn r10_6_6_answers_may_change_until_all_answered() {
    let mut k =
        table(4, SIM, false).hand(0, &["9C", "2C"]).hand(1, &["5D"]).hand(2, &["5H"]).hand(3, &["3C"]).ritual(0);
    haunt(&mut k, 0, "9C", 1);
    salt(&mut k, 1, "5D");
    match k.prompt(1).unwrap().kind {
        PromptKind::Salt { current: Some(Answer::Salt { .. }), .. } => {}
        other => panic!("expected current Salt, got {other:?}"),
    }
    assert_eq!(k.hand_of(1), strs(&["5D"]), "the 5 stays in hand while the window takes answers");
    pass(&mut k, 1);
    match k.prompt(1).unwrap().kind {
        PromptKind::Salt { current: Some(Answer::Pass), .. } => {}
        other => panic!("expected current Pass, got {other:?}"),
    }
    salt(&mut k, 2, "5H");
    pass(&mut k, 2);
    assert_eq!(k.asked(), vec![1, 2, 3], "still open: seat 3 has not answered");
    let ev = pass(&mut k, 3);
    assert!(ev.iter().any(|e| matches!(e, Event::AnswersClosed)));
    assert!(ev.iter().any(|e| matches!(e, Event::ActionResolved { .. })));
    assert_eq!(shadow(&k, 1), vec![ghost("9C", Some(0))]);
    assert_eq!(k.hand_of(1), strs(&["5D"]));
    assert_eq!(k.hand_of(2), strs(&["5H"]));
    // After the window closed, a late answer is refused.
    let card = k.in_hand(1, "5D");
    assert!(k.answer(1, Answer::Salt { card }).is_err());
}

/// R10.6.5, R10.6.6 with `hold_windows`: once all have answered the window stays open (answers
/// may still change) until the server sends CloseWindow; CloseWindow is refused otherwise.
#[test]
fn r10_6_6_hold_windows_close_window() {
    let mut s = settings(4);
    s.salt_window = SIM;
    s.hold_windows = true;
    let mut k = Kit::with(s).hand(0, &["9C", "2C"]).hand(1, &["5D"]).hand(2, &["5H"]).hand(3, &["3C"]).ritual(0);
    assert_eq!(k.send(Command::CloseWindow).unwrap_err().kind, ErrorKind::NothingToDo);
    haunt(&mut k, 0, "9C", 1);
    pass(&mut k, 1);
    pass(&mut k, 2);
    pass(&mut k, 3);
    assert_eq!(k.asked(), vec![1, 2, 3], "held open");
    assert!(matches!(k.step(), Step::Action(_)));
    // A changed answer while held.
    salt(&mut k, 2, "5H");
    assert_eq!(k.asked(), vec![1, 2, 3]);
    let ev = k.send(Command::CloseWindow).unwrap();
    assert!(matches!(ev.first(), Some(Event::AnswersClosed)));
    assert!(ev.iter().any(|e| matches!(e, Event::Salted { seat: 2, .. })));
    // A holds only 2♣: asked to counter; yields, and the Yield is held (R10.6.5) until the
    // server closes the prompt; then seat 2's Salt stands.
    assert_eq!(counter_prompt(&k, 0), (2, vec![]));
    let ev = yield_(&mut k, 0);
    assert!(matches!(ev[..], [Event::AnswerHeld { seat: 0, .. }]), "{ev:?}");
    assert!(k.asked().is_empty(), "a held answer's prompt is no longer open");
    let ev = k.send(Command::CloseWindow).unwrap();
    assert_eq!(cancelled_by(&ev), Some(2));
    assert_eq!(k.dark_of(), strs(&["5H", "9C"]));
    assert_eq!(k.send(Command::CloseWindow).unwrap_err().kind, ErrorKind::NothingToDo);
}

/// R10.6.6: the Salters are taken in the clockwise order of R6.5.3 (from the actor's left),
/// whatever the order of their answers; a Salter whose turn never comes keeps its 5.
#[test]
fn r10_6_6_salters_taken_clockwise_from_actor_left() {
    let mut k = table(5, SIM, false)
        .hand(0, &["5S"])
        .hand(1, &["2D"])
        .hand(2, &["9C", "3C"])
        .hand(3, &["2H"])
        .hand(4, &["5H"])
        .ritual(2);
    haunt(&mut k, 2, "9C", 3);
    assert_eq!(k.asked(), vec![3, 4, 0, 1]);
    salt(&mut k, 0, "5S");
    pass(&mut k, 1);
    pass(&mut k, 3);
    salt(&mut k, 4, "5H");
    // Seat 4 comes before seat 0 clockwise from seat 3.
    assert_eq!(counter_prompt(&k, 2), (4, vec![]));
    let ev = yield_(&mut k, 2);
    assert_eq!(cancelled_by(&ev), Some(4));
    assert_eq!(k.hand_of(0), strs(&["5S"]));
    assert_eq!(k.dark_of(), strs(&["5H", "9C"]));
}

// ---------------------------------------------------------------------------------------------
// R10.6.2, R10.6.3: hidden information in windows.
// ---------------------------------------------------------------------------------------------

/// Folds `events` from `before`, returning (state before, event, state after) per event.
fn steps(before: &State, events: &[Event]) -> Vec<(State, Event, State)> {
    let mut out = Vec::new();
    let mut s = before.clone();
    for e in events {
        let next = evolve(s.clone(), e);
        out.push((s, e.clone(), next.clone()));
        s = next;
    }
    out
}

fn awaiting_all(k: &Kit) -> Vec<Awaiting> {
    let n = k.state.players.len() as u8;
    let mut v = vec![view(&k.state, Viewer::Spectator).awaiting];
    v.extend((0..n).map(|s| view(&k.state, Viewer::Seat { seat: s }).awaiting));
    v
}

/// R10.6.2, R10.6.3, sequential: while a Salt prompt is open, every view shows only that a
/// window is open on A's action (Awaiting::Window), never whom it waits for; a Pass is hidden
/// from every other viewer (redact returns None) and shown to the passer; the exchange that a
/// Salt starts is public.
#[test]
fn r10_6_2_sequential_window_hides_who_is_asked_and_passes() {
    let mut k = b9(SEQ, false);
    haunt(&mut k, 0, "9C", 1);
    for a in awaiting_all(&k) {
        assert_eq!(a, Awaiting::Window { actor: 0 });
    }
    assert!(view(&k.state, Viewer::Spectator).prompt.is_none());
    assert!(view(&k.state, Viewer::Seat { seat: 2 }).prompt.is_none());
    assert!(view(&k.state, Viewer::Seat { seat: 1 }).prompt.is_some(), "the asked seat sees its own prompt");
    let before = k.state.clone();
    let ev = pass(&mut k, 1);
    let st = steps(&before, &ev);
    let (b, e, a) = st.iter().find(|(_, e, _)| matches!(e, Event::Passed { seat: 1 })).expect("Passed event");
    assert!(redact(b, e, a, Viewer::Spectator).is_none());
    for s in [0, 2, 3] {
        assert!(redact(b, e, a, Viewer::Seat { seat: s }).is_none(), "seat {s} must not see B's Pass");
    }
    assert!(redact(b, e, a, Viewer::Seat { seat: 1 }).is_some(), "the passer sees its own Pass");
    // Seat 2 is now asked: still only "a window is open".
    for a in awaiting_all(&k) {
        assert_eq!(a, Awaiting::Window { actor: 0 });
    }
    // A Salt is public, and so is the exchange it starts.
    let before = k.state.clone();
    let ev = salt(&mut k, 2, "5D");
    for (b, e, a) in steps(&before, &ev) {
        if matches!(e, Event::Salted { .. }) {
            assert!(redact(&b, &e, &a, Viewer::Spectator).is_some());
        }
    }
    assert_eq!(view(&k.state, Viewer::Spectator).awaiting, Awaiting::Seat { seat: 0 });
}

/// R10.6.2, R10.6.3, R10.6.6, simultaneous: awaiting is Awaiting::Window while answers are
/// taken and at a confirm prompt; SaltAnswered (Pass or Salt) is hidden from every other viewer
/// and shown to the answerer; a withdrawal at a confirm prompt is hidden too.
#[test]
fn r10_6_2_simultaneous_window_hides_answers() {
    let mut k = b9(SIM, false);
    haunt(&mut k, 0, "9C", 1);
    for a in awaiting_all(&k) {
        assert_eq!(a, Awaiting::Window { actor: 0 });
    }
    for (seat, answer) in [(3u8, "5C"), (1, "pass")] {
        let before = k.state.clone();
        let ev = if answer == "pass" { pass(&mut k, seat) } else { salt(&mut k, seat, answer) };
        assert!(matches!(ev.as_slice(), [Event::SaltAnswered { .. }]), "{ev:?}");
        let (b, e, a) = &steps(&before, &ev)[0];
        assert!(redact(b, e, a, Viewer::Spectator).is_none());
        for s in (0..4).filter(|&s| s != seat) {
            assert!(redact(b, e, a, Viewer::Seat { seat: s }).is_none(), "seat {s} must not see seat {seat}'s answer");
        }
        assert!(redact(b, e, a, Viewer::Seat { seat }).is_some());
        for a in awaiting_all(&k) {
            assert_eq!(a, Awaiting::Window { actor: 0 });
        }
    }
    salt(&mut k, 2, "5D");
    salt(&mut k, 0, "5S");
    yield_(&mut k, 2);
    // D must confirm: whom the window waits for stays hidden.
    assert!(salt_prompt(&k, 3).0);
    for a in awaiting_all(&k) {
        assert_eq!(a, Awaiting::Window { actor: 0 });
    }
    let before = k.state.clone();
    let ev = pass(&mut k, 3);
    let st = steps(&before, &ev);
    let (b, e, a) = st.iter().find(|(_, e, _)| matches!(e, Event::Passed { seat: 3 })).expect("withdrawal");
    assert!(redact(b, e, a, Viewer::Spectator).is_none());
    assert!(redact(b, e, a, Viewer::Seat { seat: 0 }).is_none());
    assert!(redact(b, e, a, Viewer::Seat { seat: 3 }).is_some());
}

/// What `viewer` is shown of one command: the redacted events it may see (hidden events are
/// simply absent) and its view afterwards, as JSON.
fn shown(
    before: &State,
    events: &[Event],
    after: &State,
    viewer: Viewer,
) -> (Vec<serde_json::Value>, serde_json::Value) {
    let events = steps(before, events)
        .iter()
        .filter_map(|(b, e, a)| redact(b, e, a, viewer))
        .map(|r| serde_json::to_value(r).expect("event json"))
        .collect();
    (events, serde_json::to_value(view(after, viewer)).expect("view json"))
}

/// Records, command after command, what each of `viewers` is shown.
struct Trace {
    viewers: Vec<Viewer>,
    seen: Vec<Vec<(Vec<serde_json::Value>, serde_json::Value)>>,
}

impl Trace {
    fn new(viewers: Vec<Viewer>) -> Self {
        Trace { viewers, seen: Vec::new() }
    }

    /// Runs one command on `k` and records what every viewer is shown of it.
    fn run(&mut self, k: &mut Kit, command: impl FnOnce(&mut Kit) -> Vec<Event>) -> Vec<Event> {
        let before = k.state.clone();
        let ev = command(k);
        self.seen.push(self.viewers.iter().map(|&v| shown(&before, &ev, &k.state, v)).collect());
        ev
    }
}

/// R10.6.2, R10.6.3, R10.6.6, R6.5.4: B9 where C's Salt fails (A counters, C yields). Whether
/// D had answered Salt or Pass while the window took answers, D is asked next (with `confirm`
/// only if it had Salted) and everything the other viewers are shown is identical: the redacted
/// events, the views and their `awaiting` (a window open on A's action while D is asked), for
/// either answer D then gives.
#[test]
fn b9_public_shape_same_whether_d_answered_salt_or_pass() {
    let viewers = vec![Viewer::Spectator, Viewer::Seat { seat: 0 }, Viewer::Seat { seat: 1 }, Viewer::Seat { seat: 2 }];
    for d_then in ["pass", "salt"] {
        let mut traces = Vec::new();
        for d_first in ["salt", "pass"] {
            let mut t = Trace::new(viewers.clone());
            let mut k = b9(SIM, false);
            t.run(&mut k, |k| haunt(k, 0, "9C", 1));
            t.run(&mut k, |k| pass(k, 1));
            t.run(&mut k, |k| if d_first == "salt" { salt(k, 3, "5C") } else { pass(k, 3) });
            t.run(&mut k, |k| salt(k, 2, "5D"));
            assert_eq!(counter_prompt(&k, 0), (2, strs(&["5S"])));
            t.run(&mut k, |k| salt(k, 0, "5S"));
            let ev = t.run(&mut k, |k| yield_(k, 2));
            assert!(!ev.iter().any(|e| matches!(e, Event::WindowClosed | Event::ActionResolved { .. })));
            // C's Salt failed: D is asked, as in the sequential form.
            assert_eq!(k.asked(), vec![3], "{d_first}");
            assert_eq!(salt_prompt(&k, 3), (d_first == "salt", false, strs(&["5C"])));
            assert_eq!(view(&k.state, Viewer::Spectator).awaiting, Awaiting::Window { actor: 0 });
            let ev = t.run(&mut k, |k| if d_then == "salt" { salt(k, 3, "5C") } else { pass(k, 3) });
            if d_then == "salt" {
                // A has no 5 left: it is still asked (its hand is not empty) and yields.
                assert_eq!(counter_prompt(&k, 0), (3, vec![]));
                let ev = t.run(&mut k, |k| yield_(k, 0));
                assert_eq!(cancelled_by(&ev), Some(3));
                assert_eq!(k.dark_of(), strs(&["5C", "5S", "5D", "9C"]));
            } else {
                assert!(ev.iter().any(|e| matches!(e, Event::ActionResolved { .. })));
                assert_b9_variant(&k);
            }
            traces.push(t.seen);
        }
        assert_eq!(traces[0].len(), traces[1].len());
        for (i, (a, b)) in traces[0].iter().zip(&traces[1]).enumerate() {
            for (j, v) in viewers.iter().enumerate() {
                assert_eq!(a[j], b[j], "D then {d_then}: command {i}, {v:?} can tell D's first answer");
            }
        }
    }
}

/// R10.6.6, R6.5.4, R6.5.6: the public shape of a simultaneous Salt window depends only on
/// public eligibility. Five players; for each first Salter F (the players before F passed),
/// every combination of answers of the players after F, and F's Salt failing: the players
/// after F are then asked one by one, clockwise, whatever they had answered (`confirm` set
/// exactly for those who had Salted), and the spectator, the actor, F and the players before F
/// are shown exactly the same events and views in every combination: both when everyone asked
/// passes and when the first one asked Salts.
#[test]
fn r10_6_6_public_shape_depends_only_on_public_eligibility() {
    let fives = ["5H", "5D", "5C", "5H"];
    for f in 1u8..=4 {
        for script in ["all pass", "first salts"] {
            if script == "first salts" && f == 4 {
                continue;
            }
            let mut viewers = vec![Viewer::Spectator];
            viewers.extend((0..=f).map(|seat| Viewer::Seat { seat }));
            let later: Vec<u8> = (f + 1..=4).collect();
            let mut traces = Vec::new();
            for mask in 0..1u32 << later.len() {
                let salted = |s: u8| s == f || (s > f && mask & (1 << (s - f - 1)) != 0);
                let mut k = table(5, SIM, false).hand(0, &["9C", "5S", "2C"]);
                for s in 1..=4u8 {
                    k = k.hand(s, &[fives[s as usize - 1], ["KS", "KH", "KC", "KD"][s as usize - 1]]);
                }
                k.at_ritual(0);
                let mut t = Trace::new(viewers.clone());
                t.run(&mut k, |k| haunt(k, 0, "9C", 1));
                for s in 1..=4u8 {
                    t.run(&mut k, |k| if salted(s) { salt(k, s, fives[s as usize - 1]) } else { pass(k, s) });
                }
                // F's 5 entered at once; A counters; F yields: its Salt failed.
                assert_eq!(counter_prompt(&k, 0), (f, strs(&["5S"])), "F = {f}, mask {mask}");
                t.run(&mut k, |k| salt(k, 0, "5S"));
                t.run(&mut k, |k| yield_(k, f));
                let mut asked = Vec::new();
                loop {
                    let a = k.asked();
                    assert_eq!(a.len(), 1, "one prompt at a time");
                    let s = a[0];
                    match k.prompt(s).map(|p| p.kind) {
                        Some(PromptKind::CounterSalt { .. }) => {
                            t.run(&mut k, |k| yield_(k, s));
                        }
                        Some(PromptKind::Salt { confirm, .. }) => {
                            assert_eq!(view(&k.state, Viewer::Spectator).awaiting, Awaiting::Window { actor: 0 });
                            assert_eq!(confirm, salted(s), "F = {f}, mask {mask}: confirm of seat {s}");
                            asked.push(s);
                            if script == "first salts" {
                                t.run(&mut k, |k| salt(k, s, fives[s as usize - 1]));
                            } else {
                                t.run(&mut k, |k| pass(k, s));
                            }
                        }
                        _ => break,
                    }
                }
                if script == "all pass" {
                    assert_eq!(asked, later, "F = {f}, mask {mask}: every later player, clockwise");
                    assert_eq!(shadow(&k, 1), vec![ghost("9C", Some(0))]);
                } else {
                    assert_eq!(asked, vec![f + 1], "F = {f}, mask {mask}");
                    assert_eq!(cancelled_by(&k.events), Some(f + 1));
                }
                traces.push(t.seen);
            }
            for (m, tr) in traces.iter().enumerate().skip(1) {
                assert_eq!(tr.len(), traces[0].len(), "F = {f}, {script}, mask {m}");
                for (i, (a, b)) in traces[0].iter().zip(tr).enumerate() {
                    for (j, v) in viewers.iter().enumerate() {
                        assert_eq!(a[j], b[j], "F = {f}, {script}, mask {m}, command {i}: {v:?} tells hidden answers");
                    }
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// R10.7.1: time-outs inside windows.
// ---------------------------------------------------------------------------------------------

/// R10.6.6, R10.7.1: a time-out closes a simultaneous window; unanswered players Pass. The
/// Salter who had answered is then taken.
#[test]
fn timeout_closes_simultaneous_window() {
    let mut k = b9(SIM, false);
    haunt(&mut k, 0, "9C", 1);
    salt(&mut k, 2, "5D");
    let ev = k.send(Command::Timeout).unwrap();
    // R10.7.1: the unanswered seats' time-out is recorded first.
    assert_eq!(ev[..2], [Event::TimedOut { seats: vec![1, 3] }, Event::AnswersClosed]);
    assert!(ev.iter().any(|e| matches!(e, Event::Salted { seat: 2, .. })));
    assert!(!ev.iter().any(|e| matches!(e, Event::Salted { seat: 1 | 3, .. })));
    assert_eq!(counter_prompt(&k, 0), (2, strs(&["5S"])));
    yield_(&mut k, 0);
    assert_eq!(k.hand_of(3), strs(&["5C"]));
    assert_eq!(k.dark_of(), strs(&["5D", "9C"]));
    // Nobody answers at all: the time-out closes the window and the action resolves.
    let mut k = b9(SIM, false);
    haunt(&mut k, 0, "9C", 1);
    let ev = k.send(Command::Timeout).unwrap();
    assert_eq!(ev[..2], [Event::TimedOut { seats: vec![1, 2, 3] }, Event::AnswersClosed]);
    assert!(ev.iter().any(|e| matches!(e, Event::ActionResolved { .. })));
    assert_eq!(shadow(&k, 1), vec![ghost("9C", Some(0))]);
}

/// R10.5 #12, R10.7.1: in a sequential window a time-out applies Pass and the next player is
/// asked.
#[test]
fn timeout_in_sequential_window_passes() {
    let mut k = b9(SEQ, false);
    haunt(&mut k, 0, "9C", 1);
    let ev = k.send(Command::Timeout).unwrap();
    assert_eq!(ev, vec![Event::TimedOut { seats: vec![1] }, Event::Passed { seat: 1 }]);
    assert_eq!(k.asked(), vec![2]);
}

/// R10.5 #14, R10.7.1: in an exchange a time-out applies Yield (actor times out: the Salt
/// stands; Salter times out: the Salt fails and the window continues). A time-out at a confirm
/// prompt withdraws.
#[test]
fn timeout_in_exchange_yields() {
    let mut k = b9(SEQ, false);
    haunt(&mut k, 0, "9C", 1);
    pass(&mut k, 1);
    salt(&mut k, 2, "5D");
    let ev = k.send(Command::Timeout).unwrap();
    assert_eq!(ev[..2], [Event::TimedOut { seats: vec![0] }, Event::Yielded { seat: 0 }]);
    assert_eq!(cancelled_by(&ev), Some(2));
    let mut k = b9(SEQ, false);
    haunt(&mut k, 0, "9C", 1);
    pass(&mut k, 1);
    salt(&mut k, 2, "5D");
    salt(&mut k, 0, "5S");
    let ev = k.send(Command::Timeout).unwrap();
    assert_eq!(ev, vec![Event::TimedOut { seats: vec![2] }, Event::Yielded { seat: 2 }]);
    assert_eq!(k.asked(), vec![3]);
    // Confirm prompt: the time-out withdraws (D keeps its 5).
    let mut k = b9(SIM, false);
    haunt(&mut k, 0, "9C", 1);
    pass(&mut k, 1);
    salt(&mut k, 2, "5D");
    salt(&mut k, 3, "5C");
    salt(&mut k, 0, "5S");
    yield_(&mut k, 2);
    assert!(salt_prompt(&k, 3).0);
    k.send(Command::Timeout).unwrap();
    assert_eq!(k.hand_of(3), strs(&["5C"]));
    assert_eq!(shadow(&k, 1), vec![ghost("9C", Some(0))]);
}

/// R10.7.1, R10.6.4, R10.8: `timed_out` marks a time-out just before the default answer. During
/// the game only the timed-out player sees it (and only its own seat in it); the others and
/// spectators see the default exactly as an answer given by hand (a Pass: nothing at all).
/// Viewer::Everything, and everyone after the game, get the full event. The mark opens no
/// decision point: prompt ids are unchanged by it. Its type name is `timed_out`.
#[test]
fn r10_7_1_timed_out_is_shown_only_to_the_timed_out_player() {
    // Sequential: B's Salt prompt times out.
    let mut k = b9(SEQ, false);
    haunt(&mut k, 0, "9C", 1);
    let before = k.state.clone();
    let id = k.prompt(1).unwrap().id;
    let ev = k.send(Command::Timeout).unwrap();
    assert_eq!(ev, vec![Event::TimedOut { seats: vec![1] }, Event::Passed { seat: 1 }]);
    let st = steps(&before, &ev);
    let (b, e, a) = &st[0];
    assert_eq!(crate::rules::prompt::prompt_for(a, 1).map(|p| p.id), Some(id), "the mark keeps the prompt id");
    assert_eq!(redact(b, e, a, Viewer::Seat { seat: 1 }), Some(ViewEvent::TimedOut { seats: vec![1] }));
    for v in [Viewer::Spectator, Viewer::Seat { seat: 0 }, Viewer::Seat { seat: 2 }, Viewer::Seat { seat: 3 }] {
        assert_eq!(redact(b, e, a, v), None, "{v:?}");
    }
    assert_eq!(redact(b, e, a, Viewer::Everything), Some(ViewEvent::Full { event: e.clone() }));
    let mut finished = b.clone();
    finished.result =
        Some(GameResult { winner: Some(0), reason: EndReason::LastLit, placings: vec![1, 2, 3, 4], last_lit: vec![0] });
    assert_eq!(redact(&finished, e, a, Viewer::Spectator), Some(ViewEvent::Full { event: e.clone() }));
    assert_eq!(e.type_name(), "timed_out");
    assert_eq!(serde_json::to_value(e).unwrap()["type"], "timed_out");
    // Simultaneous: B and D have not answered; each sees only its own time-out.
    let mut k = b9(SIM, false);
    haunt(&mut k, 0, "9C", 1);
    salt(&mut k, 2, "5D");
    let ids: Vec<_> = [1u8, 2, 3].iter().map(|&s| k.prompt(s).unwrap().id).collect();
    let before = k.state.clone();
    let ev = k.send(Command::Timeout).unwrap();
    assert_eq!(ev[..2], [Event::TimedOut { seats: vec![1, 3] }, Event::AnswersClosed]);
    let st = steps(&before, &ev);
    let (b, e, a) = &st[0];
    let after_ids: Vec<_> = [1u8, 2, 3].iter().map(|&s| crate::rules::prompt::prompt_for(a, s).unwrap().id).collect();
    assert_eq!(after_ids, ids, "the mark keeps the window's prompt ids");
    for s in [1u8, 3] {
        assert_eq!(redact(b, e, a, Viewer::Seat { seat: s }), Some(ViewEvent::TimedOut { seats: vec![s] }));
    }
    for v in [Viewer::Spectator, Viewer::Seat { seat: 0 }, Viewer::Seat { seat: 2 }] {
        assert_eq!(redact(b, e, a, v), None, "{v:?}");
    }
    // A window held open after every answer came in: the deadline times out nobody.
    let mut s = settings(4);
    s.salt_window = SIM;
    s.hold_windows = true;
    let mut k = Kit::with(s).hand(0, &["9C", "2C"]).hand(1, &["5D"]).hand(2, &["5H"]).hand(3, &["3C"]).ritual(0);
    haunt(&mut k, 0, "9C", 1);
    for seat in 1..=3 {
        pass(&mut k, seat);
    }
    let ev = k.send(Command::Timeout).unwrap();
    assert!(matches!(ev.first(), Some(Event::AnswersClosed)), "{ev:?}");
    assert!(!ev.iter().any(|e| matches!(e, Event::TimedOut { .. })));
}

/// R5.1.7, R5.3.3: with R6.5.2 on, only the players an action's Targets line names are asked: a
/// Greed naming seat 2 (no neighbour) asks seat 2 alone; a Banish targets nobody, so nobody is
/// asked (without R6.5.2 every other Lit player is).
#[test]
fn r5_1_7_r5_3_3_targets_decide_who_may_salt() {
    let base = |targeted| {
        let mut k = table(4, SEQ, targeted)
            .hand(0, &["2C", "9H"])
            .hand(1, &["5D"])
            .hand(2, &["5H"])
            .hand(3, &["5C"])
            .shadow(0, &[("7D", Some(1))])
            .ritual(0);
        k.state.turn.budget = 3;
        k
    };
    let mut k = base(true);
    let card = k.in_hand(0, "2C");
    k.act(0, Action::Greed { card, target: 2 }).unwrap();
    assert_eq!(k.asked(), vec![2]);
    pass(&mut k, 2);
    let (card, ghost) = (k.in_hand(0, "9H"), k.ghost(0, "7D"));
    k.act(0, Action::Banish { card, ghost }).unwrap();
    assert!(k.shadow_of(0).is_empty(), "resolved with no window");
    assert!(!k.asked().iter().any(|&s| s != 0));
    let mut k = base(false);
    let (card, ghost) = (k.in_hand(0, "9H"), k.ghost(0, "7D"));
    k.act(0, Action::Banish { card, ghost }).unwrap();
    assert_eq!(k.asked(), vec![1], "without R6.5.2 the window opens");
}

/// R6.1, R10.6, R10.6.1: a reaction is made by a player other than the actor while an action is
/// pending: every eligible player is asked in turn clockwise from the actor's left neighbour,
/// whether or not they hold a 5 (the prompt offers none); the actor is never asked; a Salt with
/// no pending action is refused.
#[test]
fn r6_1_r10_6_1_every_other_player_is_asked_clockwise_holding_a_5_or_not() {
    let mut k =
        table(4, SEQ, false).hand(0, &["9C", "5S"]).hand(1, &["2D"]).hand(2, &["3D"]).hand(3, &["5C"]).ritual(0);
    let card = k.in_hand(3, "5C");
    assert!(k.answer(3, Answer::Salt { card }).is_err(), "no action pending");
    haunt(&mut k, 0, "9C", 1);
    for (seat, fives) in [(1u8, vec![]), (2, vec![]), (3, strs(&["5C"]))] {
        assert_eq!(k.asked(), vec![seat]);
        assert_eq!(salt_prompt(&k, seat).2, fives, "seat {seat}");
        pass(&mut k, seat);
    }
    assert_eq!(k.shadow_of(1), vec![("9C".to_string(), Some(0))]);
    let mut k = table(4, SIM, false).hand(0, &["9C"]).hand(1, &["2D"]).hand(2, &["3D"]).hand(3, &["4D"]).ritual(0);
    haunt(&mut k, 0, "9C", 1);
    assert_eq!(k.asked(), vec![1, 2, 3], "simultaneous: all at once, never the actor");
}
