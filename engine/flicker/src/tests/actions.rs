//! Rule tests: the Ritual actions of section 5 (R5.1-R5.8), with R4.4.3, R10.1.2 and R10.12
//! where they bear on actions, and worked examples B6 and B7 (B5 is in `smoke.rs`).
//!
//! Most tests give the actor a spare action ([`spare`]) so that the Ritual stays open after the
//! action under test: the turn does not pass, and no later phase (Burden, Am I Alive?, the next
//! player's Draw) touches the zones the test checks.

use super::kit::*;
use crate::model::action::{Action, MediumMode};
use crate::model::card::{CardId, Rank};
use crate::model::command::{Answer, Command};
use crate::model::error::{ErrorKind, RuleError};
use crate::model::event::{Effect, Event, PanicOutcome};
use crate::model::handle::{CardRef, handle};
use crate::rules::prompt::{PromptKind, RecallChoice, UseOption};

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// Gives the active player a budget of 2, so the Ritual stays open after one action.
fn spare(mut k: Kit) -> Kit {
    k.state.turn.budget = 2;
    k
}

/// Answers Pass for every Salt / BOO! Salt prompt of the open window (sequential windows).
fn pass_window(k: &mut Kit) {
    loop {
        let asked = k.asked();
        if asked.len() != 1 {
            break;
        }
        let seat = asked[0];
        match k.prompt(seat).map(|p| p.kind) {
            Some(PromptKind::Salt { .. }) => {
                k.answer(seat, Answer::Pass).expect("pass");
            }
            _ => break,
        }
    }
}

fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

fn g(v: &[(&str, Option<u8>)]) -> Vec<(String, Option<u8>)> {
    v.iter().map(|(c, h)| (c.to_string(), *h)).collect()
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

fn names(k: &Kit, cards: &[CardId]) -> Vec<String> {
    cards.iter().map(|&c| name(k.state.face(c))).collect()
}

/// The effect of the last action that resolved.
fn last_effect(k: &Kit) -> Effect {
    k.events
        .iter()
        .rev()
        .find_map(|e| match e {
            Event::ActionResolved { effect, .. } => Some(effect.clone()),
            _ => None,
        })
        .expect("an action resolved")
}

fn resolved_count(k: &Kit) -> usize {
    k.events.iter().filter(|e| matches!(e, Event::ActionResolved { .. })).count()
}

/// Declarations that must be refused (a method, so that `k.refuse(0, … k.in_hand(…) …)` borrows
/// like [`Kit::act`]).
trait Refuse {
    /// Declares `a` for `seat`, expects a refusal and returns the error.
    fn refuse(&mut self, seat: u8, a: Action<CardRef>) -> RuleError;
}

impl Refuse for Kit {
    fn refuse(&mut self, seat: u8, a: Action<CardRef>) -> RuleError {
        let before = self.events.len();
        let e = self.act(seat, a).expect_err("the declaration must be refused");
        assert_eq!(self.events.len(), before, "a refused command appended events");
        e
    }
}

/// The legal uses listed for the hand card `card` in `seat`'s Ritual prompt (empty if none).
fn uses_of(k: &Kit, seat: u8, card: &str) -> Vec<UseOption> {
    let p = k.prompt(seat).expect("an open prompt");
    let PromptKind::Ritual { options, .. } = p.kind else { panic!("not a Ritual prompt: {:?}", p.kind) };
    let f = face(card);
    options.into_iter().find(|o| o.card.face == f).map(|o| o.uses).unwrap_or_default()
}

fn is_ritual_prompt(k: &Kit, seat: u8) -> bool {
    matches!(k.prompt(seat).map(|p| p.kind), Some(PromptKind::Ritual { .. }))
}

// ---------------------------------------------------------------------------------------------
// R5.1 General procedure
// ---------------------------------------------------------------------------------------------

/// R5.1.3, R4.4.3: at declaration the card leaves the hand for the Resolving area, and the
/// budget drops by 1, before any reaction is asked; the effect waits for the window.
#[test]
fn r5_1_3_commit_moves_the_card_to_the_resolving_area() {
    let mut k = Kit::new(4).hand(0, &["7H", "2C"]).hand(1, &["9D"]);
    k.act(0, Action::Haunt { card: k.in_hand(0, "7H"), target: 1 }).unwrap();
    // The Salt window waits for seat 1 (the only other player holding cards).
    assert_eq!(k.asked(), vec![1]);
    assert!(matches!(k.prompt(1).unwrap().kind, PromptKind::Salt { .. }));
    assert_eq!(k.hand_of(0), s(&["2C"]));
    assert_eq!(names(&k, &k.state.resolving), s(&["7H"]));
    assert!(k.dark_of().is_empty());
    assert!(k.shadow_of(1).is_empty(), "nothing resolves before the window closes");
    assert_eq!(k.budget(), 0);
    pass_window(&mut k);
    assert!(k.state.resolving.is_empty());
    assert_eq!(k.shadow_of(1), g(&[("7H", Some(0))]));
    assert!(k.dark_of().is_empty(), "the Haunt card became a ghost, nothing to clean up");
}

/// R5.1.6, R6.5.6: a Salt stands: the action is cancelled; cleanup sends the action card to
/// The Dark first and the Salt on top; the ghost stays.
#[test]
fn r5_1_6_cancelled_action_card_lies_below_the_salt() {
    let mut k = Kit::new(4).hand(0, &["8D"]).shadow(0, &[("7C", Some(1))]).hand(1, &["5D"]);
    k.act(0, Action::Banish { card: k.in_hand(0, "8D"), ghost: k.ghost(0, "7C") }).unwrap();
    k.answer(1, Answer::Salt { card: k.in_hand(1, "5D") }).unwrap();
    // The actor's hand is empty: it yields automatically; the Salt stands.
    assert!(k.events.iter().any(|e| matches!(e, Event::ActionCancelled { actor: 0, salter: 1 })));
    assert_eq!(resolved_count(&k), 0);
    assert_eq!(k.dark_of(), s(&["5D", "8D"]));
    assert_eq!(k.shadow_of(0), g(&[("7C", Some(1))]));
}

/// R5.1.6: the action resolves after a failed Salt: the effect's own move (the banished ghost)
/// enters The Dark first, then the action card, then the reaction cards in the order played
/// (the Salt, then the counter-Salt on top).
#[test]
fn r5_1_6_cleanup_order_effect_then_action_card_then_reactions() {
    let mut k = spare(Kit::new(4).hand(0, &["8D", "5S"]).shadow(0, &[("7C", Some(1))]).hand(1, &["5D"]));
    k.act(0, Action::Banish { card: k.in_hand(0, "8D"), ghost: k.ghost(0, "7C") }).unwrap();
    k.answer(1, Answer::Salt { card: k.in_hand(1, "5D") }).unwrap();
    assert!(matches!(k.prompt(0).unwrap().kind, PromptKind::CounterSalt { .. }));
    k.answer(0, Answer::Salt { card: k.in_hand(0, "5S") }).unwrap();
    // Seat 1 has no card left: it yields; the actor's counter stands, the Banish resolves.
    assert_eq!(resolved_count(&k), 1);
    assert!(k.shadow_of(0).is_empty());
    assert_eq!(k.dark_of(), s(&["5S", "5D", "8D", "7C"]));
    assert!(k.state.resolving.is_empty());
    assert!(is_ritual_prompt(&k, 0), "no Salt stood: the Ritual continues");
}

// ---------------------------------------------------------------------------------------------
// R5.2 Haunt
// ---------------------------------------------------------------------------------------------

/// R5.2, R3.4.2, R3.4.4: the Haunt card enters the target neighbour's Shadow at the end of its
/// entry order, with the actor as tracked haunter; left and right neighbours both qualify, and
/// an Ace Haunts like any number card.
#[test]
fn r5_2_haunt_ghost_enters_end_of_target_shadow_with_actor_as_haunter() {
    let mut k = spare(Kit::new(4).hand(2, &["7H", "AD"]).shadow(3, &[("9C", Some(1))]).ritual(2));
    k.act(2, Action::Haunt { card: k.in_hand(2, "7H"), target: 3 }).unwrap();
    assert_eq!(k.shadow_of(3), g(&[("9C", Some(1)), ("7H", Some(2))]));
    k.act(2, Action::Haunt { card: k.in_hand(2, "AD"), target: 1 }).unwrap();
    assert_eq!(k.shadow_of(1), g(&[("AD", Some(2))]));
    assert!(k.hand_of(2).is_empty());
    assert!(k.dark_of().is_empty());
    assert!(k.shadow_of(0).is_empty() && k.shadow_of(2).is_empty());
    assert_eq!(last_effect(&k), Effect::Haunted { target: 1 });
}

/// R5.2, R1.2: only number cards Haunt; face cards and Jokers are refused under R5.2
/// and are never offered as a Haunt.
#[test]
fn r5_2_haunt_refuses_face_cards_and_jokers() {
    let mut k = Kit::new(4).hand(0, &["JH", "QS", "KD", "Joker"]);
    for c in ["JH", "QS", "KD", "Joker"] {
        let e = k.refuse(0, Action::Haunt { card: k.in_hand(0, c), target: 1 });
        assert_eq!(e.rule, "R5.2", "{c}");
        assert_eq!(e.kind, ErrorKind::Illegal);
        assert!(!uses_of(&k, 0, c).iter().any(|u| matches!(u, UseOption::Haunt { .. })), "{c} offered as a Haunt");
    }
    assert_eq!(k.hand_of(0), s(&["JH", "QS", "KD", "Joker"]));
    assert!(k.shadow_of(1).is_empty());
    assert_eq!(k.budget(), 1);
}

/// R5.2, R0.4: the target must be a neighbour (nearest Lit player either way): not a seat
/// across the table, not oneself, not an eliminated player; the options list the neighbours
/// left first.
#[test]
fn r5_2_haunt_target_must_be_a_neighbour() {
    let mut k = Kit::new(4).hand(0, &["7H"]);
    assert_eq!(uses_of(&k, 0, "7H"), vec![UseOption::Haunt { targets: vec![1, 3] }]);
    for t in [2, 0] {
        let e = k.refuse(0, Action::Haunt { card: k.in_hand(0, "7H"), target: t });
        assert_eq!(e.rule, "R5.2", "target {t}");
    }
    assert_eq!(k.hand_of(0), s(&["7H"]));
    // Seat 1 eliminated: seat 2 is now the left neighbour; seat 1 cannot be targeted.
    let mut k = spare(Kit::new(4).out(1, 4).hand(0, &["7H"]));
    assert_eq!(uses_of(&k, 0, "7H"), vec![UseOption::Haunt { targets: vec![2, 3] }]);
    let e = k.refuse(0, Action::Haunt { card: k.in_hand(0, "7H"), target: 1 });
    assert_eq!(e.rule, "R5.2");
    k.act(0, Action::Haunt { card: k.in_hand(0, "7H"), target: 2 }).unwrap();
    assert_eq!(k.shadow_of(2), g(&[("7H", Some(0))]));
}

// ---------------------------------------------------------------------------------------------
// R5.3 Banish, R5.4 Siphon
// ---------------------------------------------------------------------------------------------

/// R5.3.2: the card beats the ghost by value, then by tier; equal suits win a tie (7♥ beats a
/// 7♥ ghost). Only beating cards are offered.
#[test]
fn r5_3_2_banish_beats_by_value_then_tier_equal_suit_wins() {
    let base = || spare(Kit::new(4).hand(0, &["6H", "7D", "7H", "8D"]).shadow(0, &[("7H", Some(1))]));
    let mut k = base();
    let ghost = k.ghost(0, "7H");
    assert!(uses_of(&k, 0, "6H").iter().all(|u| !matches!(u, UseOption::Banish { .. })));
    assert!(uses_of(&k, 0, "7D").iter().all(|u| !matches!(u, UseOption::Banish { .. })));
    assert!(uses_of(&k, 0, "7H").contains(&UseOption::Banish { ghosts: vec![ghost] }));
    assert!(uses_of(&k, 0, "8D").contains(&UseOption::Banish { ghosts: vec![ghost] }));
    for c in ["6H", "7D"] {
        let e = k.refuse(0, Action::Banish { card: k.in_hand(0, c), ghost: k.ghost(0, "7H") });
        assert_eq!(e.rule, "R5.3.2", "{c}");
        assert_eq!(e.kind, ErrorKind::Illegal);
    }
    assert_eq!(k.hand_of(0), s(&["6H", "7D", "7H", "8D"]));
    // 7♥ on the 7♥ ghost: tie, equal tier: legal (and same rank: Siphoned).
    k.act(0, Action::Banish { card: k.in_hand(0, "7H"), ghost: k.ghost(0, "7H") }).unwrap();
    assert!(k.shadow_of(0).is_empty());
    assert_eq!(k.candle_of(0).last().unwrap(), "7H");
    assert_eq!(k.dark_of(), s(&["7H"]));
    // 8♦: higher value wins whatever the suit.
    let mut k = base();
    k.act(0, Action::Banish { card: k.in_hand(0, "8D"), ghost: k.ghost(0, "7H") }).unwrap();
    assert_eq!(k.dark_of(), s(&["8D", "7H"]));
}

/// R5.3.1, R11.5: a Joker can never be used to Banish, not even against a Joker ghost; its only
/// listed use is BOO!.
#[test]
fn r5_3_1_joker_can_never_banish() {
    let mut k = Kit::new(4).hand(0, &["Joker"]).shadow(0, &[("2C", Some(1)), ("Joker", Some(1))]);
    assert_eq!(uses_of(&k, 0, "Joker"), vec![UseOption::Boo]);
    for gh in ["2C", "Joker"] {
        let e = k.refuse(0, Action::Banish { card: k.in_hand(0, "Joker"), ghost: k.ghost(0, gh) });
        assert_eq!(e.rule, "R5.3.1", "against {gh}");
        assert_eq!(e.kind, ErrorKind::Illegal);
    }
    assert_eq!(k.shadow_of(0), g(&[("2C", Some(1)), ("Joker", Some(1))]));
    assert_eq!(k.hand_of(0), s(&["Joker"]));
}

/// R5.3.1: the ghost must lie in the actor's own Shadow; a neighbour's ghost (or a card that is
/// no ghost) is refused under R5.3.1.
#[test]
fn r5_3_1_banish_only_in_own_shadow() {
    let mut k = Kit::new(4).hand(0, &["KS", "9D"]).shadow(0, &[("3C", Some(1))]).shadow(1, &[("2C", Some(0))]);
    let e = k.refuse(0, Action::Banish { card: k.in_hand(0, "KS"), ghost: k.ghost(1, "2C") });
    assert_eq!(e.rule, "R5.3.1");
    let e = k.refuse(0, Action::Banish { card: k.in_hand(0, "KS"), ghost: k.in_hand(0, "9D") });
    assert_eq!(e.rule, "R5.3.1");
    assert_eq!(uses_of(&k, 0, "KS")[0], UseOption::Banish { ghosts: vec![k.ghost(0, "3C")] });
    assert_eq!(k.shadow_of(1), g(&[("2C", Some(0))]));
    assert_eq!(k.hand_of(0), s(&["KS", "9D"]));
}

/// R5.3.4, R5.4.1, R5.4.3: a Banish Siphons (ghost to the bottom of the actor's Candle, card to
/// The Dark) when the ranks match, or when the ghost is a face card of the card's suit;
/// otherwise the ghost goes to The Dark below the card. R5.4.2: never a Spade-cursed ghost.
#[test]
fn r5_4_3_banish_siphon_conditions() {
    let cases: &[(&str, &str, bool)] = &[
        ("9C", "9D", true),   // same rank
        ("AS", "AD", true),   // same rank (Ace)
        ("10D", "9D", false), // number ghost of the same suit: no Siphon
        ("KC", "JC", true),   // face ghost, same suit
        ("KH", "JC", false),  // face ghost, other suit, other rank
        ("JS", "JH", true),   // same rank, other suit
        ("QC", "8C", false),  // number ghost of the same suit
        ("9S", "9S", false),  // same rank but Spade-cursed
        ("KS", "JS", false),  // face ghost of the same suit but Spade-cursed
        ("10S", "10S", false),
    ];
    for &(card, ghost, siphon) in cases {
        let mut k = spare(Kit::new(4).hand(0, &[card]).shadow(0, &[("2H", Some(3)), (ghost, Some(1))]));
        let candle = k.candle_of(0);
        k.act(0, Action::Banish { card: k.in_hand(0, card), ghost: k.ghost(0, ghost) }).unwrap();
        assert_eq!(k.shadow_of(0), g(&[("2H", Some(3))]), "{card} on {ghost}");
        if siphon {
            let mut expect = candle.clone();
            expect.push(ghost.to_string());
            assert_eq!(k.candle_of(0), expect, "{card} on {ghost}: Siphon");
            assert_eq!(k.dark_of(), s(&[card]), "{card} on {ghost}");
        } else {
            assert_eq!(k.candle_of(0), candle, "{card} on {ghost}: no Siphon");
            assert_eq!(k.dark_of(), s(&[card, ghost]), "{card} on {ghost}");
        }
        assert!(matches!(last_effect(&k), Effect::Banished { siphoned, .. } if siphoned == siphon));
    }
}

/// B6 (R5.3.2, R5.4.3, R11.4, R11.6): a Q♥ ghost (value 10, tier 3), and a Joker ghost
/// (value 10, tier 0), set up directly.
#[test]
fn b6_face_rank_ghost() {
    let hand = ["9S", "JC", "QD", "10S", "KH", "QS", "7D", "7H"];
    let base = || spare(Kit::new(4).hand(0, &hand).shadow(0, &[("QH", Some(1))]));
    // 9♠: 9 < 10; J♣: tie, ♣ < ♥; Q♦: tie, ♦ < ♥ although the ranks match.
    let mut k = base();
    for c in ["9S", "JC", "QD"] {
        let e = k.refuse(0, Action::Banish { card: k.in_hand(0, c), ghost: k.ghost(0, "QH") });
        assert_eq!(e.rule, "R5.3.2", "{c}");
    }
    assert_eq!(k.hand_of(0), s(&hand));
    assert_eq!(k.shadow_of(0), g(&[("QH", Some(1))]));
    // 10♠: tie, ♠ > ♥: legal; rank 10 ≠ Q and ♠ ≠ ♥: Q♥ to The Dark.
    let mut k = base();
    let candle = k.candle_of(0);
    k.act(0, Action::Banish { card: k.in_hand(0, "10S"), ghost: k.ghost(0, "QH") }).unwrap();
    assert_eq!(k.dark_of(), s(&["10S", "QH"]));
    assert_eq!(k.candle_of(0), candle);
    // K♥ (face ghost, same suit) and Q♠ (same rank): Siphon.
    for c in ["KH", "QS"] {
        let mut k = base();
        let mut candle = k.candle_of(0);
        k.act(0, Action::Banish { card: k.in_hand(0, c), ghost: k.ghost(0, "QH") }).unwrap();
        candle.push("QH".into());
        assert_eq!(k.candle_of(0), candle, "{c}");
        assert_eq!(k.dark_of(), s(&[c]), "{c}");
    }
    // Cleanse 7♦: no value check, neither rank 7 nor same suit: to The Dark.
    let mut k = base();
    k.act(0, Action::Cleanse { card: k.in_hand(0, "7D"), ghost: k.ghost(0, "QH"), second: None }).unwrap();
    assert_eq!(k.dark_of(), s(&["7D", "QH"]));
    // Cleanse 7♥: same suit: Siphon.
    let mut k = base();
    let mut candle = k.candle_of(0);
    k.act(0, Action::Cleanse { card: k.in_hand(0, "7H"), ghost: k.ghost(0, "QH"), second: None }).unwrap();
    candle.push("QH".into());
    assert_eq!(k.candle_of(0), candle);
    assert_eq!(k.dark_of(), s(&["7H"]));
    // A Joker ghost: value 10, tier 0: 9♠ cannot, 10♦ Banishes it (tie, 1 ≥ 0): to The Dark.
    let mut k = spare(Kit::new(4).hand(0, &["9S", "10D"]).shadow(0, &[("Joker", Some(1))]));
    let candle = k.candle_of(0);
    let e = k.refuse(0, Action::Banish { card: k.in_hand(0, "9S"), ghost: k.ghost(0, "Joker") });
    assert_eq!(e.rule, "R5.3.2");
    k.act(0, Action::Banish { card: k.in_hand(0, "10D"), ghost: k.ghost(0, "Joker") }).unwrap();
    assert_eq!(k.dark_of(), s(&["10D", "Joker"]));
    assert_eq!(k.candle_of(0), candle);
}

/// B7 (R5.4.2): Spades are never Siphoned (the bullets without The Exorcist and The Fatalist).
#[test]
fn b7_spades_are_never_siphoned() {
    // Ghost 9♠, Banish with another 9♠ (3 players: two decks): the ghost, then the card.
    let mut k = spare(Kit::new(3).hand(0, &["9S"]).shadow(0, &[("9S", Some(1))]));
    let candle = k.candle_of(0);
    k.act(0, Action::Banish { card: k.in_hand(0, "9S"), ghost: k.ghost(0, "9S") }).unwrap();
    assert_eq!(k.dark_of(), s(&["9S", "9S"]));
    assert_eq!(k.candle_of(0), candle);
    assert!(k.shadow_of(0).is_empty());
    // Cleanse 7♠ on a 4♠ ghost: same suit but Spade: to The Dark.
    let mut k = spare(Kit::new(3).hand(0, &["7S"]).shadow(0, &[("4S", Some(2))]));
    let candle = k.candle_of(0);
    k.act(0, Action::Cleanse { card: k.in_hand(0, "7S"), ghost: k.ghost(0, "4S"), second: None }).unwrap();
    assert_eq!(k.dark_of(), s(&["7S", "4S"]));
    assert_eq!(k.candle_of(0), candle);
    // Purge with K♦, ghosts 3♦, J♠, 5♣: 3♦ Siphoned; J♠, 5♣ to The Dark; then K♦.
    let mut k = spare(Kit::new(3).hand(0, &["KD"]).shadow(0, &[("3D", Some(1)), ("JS", Some(2)), ("5C", None)]));
    let mut candle = k.candle_of(0);
    k.act(0, Action::Purge { card: k.in_hand(0, "KD") }).unwrap();
    candle.push("3D".into());
    assert_eq!(k.candle_of(0), candle);
    assert_eq!(k.dark_of(), s(&["KD", "5C", "JS"]));
    assert!(k.shadow_of(0).is_empty());
    // Panic reveals a Joker against a 10♠ ghost: success, 10♠ to The Dark (no Siphon), the Joker
    // on top.
    let mut k = Kit::new(3).shadow(0, &[("10S", Some(1))]).candle(0, &["Joker", "2H", "3H"]).turn_start(0, 1).settled();
    assert!(matches!(k.prompt(0).unwrap().kind, PromptKind::HauntingChoice { .. }));
    k.answer(0, Answer::Panic { ghost: k.ghost(0, "10S") }).unwrap();
    assert!(
        k.events.iter().any(|e| matches!(e, Event::Panicked { outcome: PanicOutcome::Joker { siphoned: false }, .. }))
    );
    assert_eq!(k.dark_of(), s(&["Joker", "10S"]));
    assert!(k.shadow_of(0).is_empty());
    // No ghost left: no Burn; then The Draw takes 2♥.
    assert_eq!(k.candle_of(0), s(&["3H"]));
    assert_eq!(k.hand_of(0), s(&["2H"]));
}

// ---------------------------------------------------------------------------------------------
// R5.5 Cast
// ---------------------------------------------------------------------------------------------

/// R5.5, R11.28, R1.3: an Ace and a 5 have no Cast use: the Ritual prompt lists only Haunt and
/// Banish for them, a Cast declared with them is refused, and they still Haunt and Banish.
#[test]
fn r5_5_ace_and_five_cannot_be_cast() {
    let mut k = spare(Kit::new(4).hand(0, &["AH", "5H", "2H"]).shadow(0, &[("AC", Some(1))]));
    let ghost = k.ghost(0, "AC");
    let haunt_banish = vec![UseOption::Haunt { targets: vec![1, 3] }, UseOption::Banish { ghosts: vec![ghost] }];
    assert_eq!(uses_of(&k, 0, "AH"), haunt_banish);
    assert_eq!(uses_of(&k, 0, "5H"), haunt_banish);
    // A 2 has its Cast use besides (control).
    let mut two = haunt_banish.clone();
    two.push(UseOption::Greed { targets: vec![0, 1, 2, 3] });
    assert_eq!(uses_of(&k, 0, "2H"), two);
    for c in ["AH", "5H"] {
        let casts: Vec<Action<CardRef>> = {
            let card = k.in_hand(0, c);
            let gh = k.ghost(0, "AC");
            vec![
                Action::Greed { card, target: 0 },
                Action::Scare { card, target: 1 },
                Action::Drain { card },
                Action::Sight { card, target: 1 },
                Action::Cleanse { card, ghost: gh, second: None },
                Action::Recall { card, owner: 0, ghost: gh },
                Action::Possess { card, ghost: gh, destination: 1 },
                Action::Rekindle { card },
            ]
        };
        for a in casts {
            let what = a.name();
            let e = k.refuse(0, a);
            assert_eq!(e.kind, ErrorKind::Illegal, "{c} as {what}");
            assert!(e.rule.starts_with("R5.5"), "{c} as {what}: rule {}", e.rule);
        }
    }
    assert_eq!(k.hand_of(0), s(&["AH", "5H", "2H"]));
    assert_eq!(k.budget(), 2);
    // They still Haunt and Banish.
    k.act(0, Action::Haunt { card: k.in_hand(0, "5H"), target: 1 }).unwrap();
    assert_eq!(k.shadow_of(1), g(&[("5H", Some(0))]));
    let mut candle = k.candle_of(0);
    k.act(0, Action::Banish { card: k.in_hand(0, "AH"), ghost: k.ghost(0, "AC") }).unwrap();
    candle.push("AC".into());
    assert_eq!(k.candle_of(0), candle, "A♥ on A♣: tie, ♥ ≥ ♣, same rank: Siphon");
    assert_eq!(k.dark_of(), s(&["AH"]));
}

/// R5.5.2, R4.4.4: Greed on oneself draws the top 2 of one's own Candle, and a first-action
/// Greed gives the action back; a second Greed (on a non-neighbour) makes its target draw but
/// grants nothing, so the Ritual ends.
#[test]
fn r5_5_2_greed_self_draws_two_and_returns_the_action() {
    let mut k = Kit::new(4).hand(0, &["2H", "2C"]).candle(0, &["9D", "8D", "7D"]);
    k.act(0, Action::Greed { card: k.in_hand(0, "2H"), target: 0 }).unwrap();
    assert_eq!(k.hand_of(0), s(&["2C", "9D", "8D"]));
    assert_eq!(k.candle_of(0), s(&["7D"]));
    assert_eq!(k.dark_of(), s(&["2H"]));
    assert_eq!(k.budget(), 1);
    assert!(is_ritual_prompt(&k, 0));
    let top2: Vec<String> = k.candle_of(2)[..2].to_vec();
    let rest2: Vec<String> = k.candle_of(2)[2..].to_vec();
    k.act(0, Action::Greed { card: k.in_hand(0, "2C"), target: 2 }).unwrap();
    assert_eq!(k.hand_of(2), top2);
    assert_eq!(k.candle_of(2), rest2);
    assert_eq!(k.dark_of(), s(&["2C", "2H"]));
    assert!(k.events.iter().any(|e| matches!(e, Event::RitualEnded { seat: 0, abstained: false })));
    assert!(k.prompt(0).is_none());
}

/// R5.5.2, R0.9: a short Candle gives fewer cards (and an empty one fizzles, legally, without
/// eliminating); only Lit players may be named.
#[test]
fn r5_5_2_greed_draws_fewer_when_the_candle_is_short() {
    let mut k = Kit::new(4).hand(0, &["2H"]).candle(3, &["9D"]);
    k.act(0, Action::Greed { card: k.in_hand(0, "2H"), target: 3 }).unwrap();
    assert_eq!(k.hand_of(3), s(&["9D"]));
    assert!(k.candle_of(3).is_empty());
    assert!(k.lit(3));
    assert!(matches!(last_effect(&k), Effect::Greed { target: 3, ref drawn } if drawn.len() == 1));
    let mut k = Kit::new(4).hand(0, &["2H"]).candle(1, &[]);
    k.act(0, Action::Greed { card: k.in_hand(0, "2H"), target: 1 }).unwrap();
    assert!(k.hand_of(1).is_empty());
    assert!(k.lit(1));
    assert_eq!(k.dark_of(), s(&["2H"]));
    // An eliminated player cannot be named.
    let mut k = Kit::new(4).out(2, 4).hand(0, &["2H"]);
    assert!(uses_of(&k, 0, "2H").contains(&UseOption::Greed { targets: vec![0, 1, 3] }));
    let e = k.refuse(0, Action::Greed { card: k.in_hand(0, "2H"), target: 2 });
    assert_eq!(e.rule, "R5.5.2");
}

/// R5.5.3, R10.2.1: Scare sends 2 cards of the neighbour's hand, chosen by the server, to The
/// Dark in the order drawn; the event records them; the rest of the hand keeps its order.
#[test]
fn r5_5_3_scare_sends_two_random_cards_to_the_dark() {
    let hand = ["9C", "KD", "2S", "JH"];
    let mut k = spare(Kit::new(4).hand(0, &["3H"]).hand(1, &hand));
    k.act(0, Action::Scare { card: k.in_hand(0, "3H"), target: 1 }).unwrap();
    pass_window(&mut k);
    let Effect::Scared { target, discarded } = last_effect(&k) else { panic!("not a Scare") };
    assert_eq!(target, 1);
    assert_eq!(discarded.len(), 2);
    let gone = names(&k, &discarded);
    assert_ne!(gone[0], gone[1]);
    assert!(gone.iter().all(|c| hand.contains(&c.as_str())));
    assert_eq!(k.dark_of(), vec!["3H".to_string(), gone[1].clone(), gone[0].clone()]);
    let rest: Vec<String> = hand.iter().map(|c| c.to_string()).filter(|c| !gone.contains(c)).collect();
    assert_eq!(k.hand_of(1), rest);
}

/// R5.5.3, R0.9: a hand of 1 loses that card; an empty hand fizzles (legal); the target must
/// be a neighbour.
#[test]
fn r5_5_3_scare_takes_fewer_when_the_hand_is_short() {
    let mut k = spare(Kit::new(4).hand(0, &["3H", "3D"]).hand(1, &["9C"]));
    k.act(0, Action::Scare { card: k.in_hand(0, "3H"), target: 1 }).unwrap();
    pass_window(&mut k);
    assert!(k.hand_of(1).is_empty());
    assert_eq!(k.dark_of(), s(&["3H", "9C"]));
    let e = k.refuse(0, Action::Scare { card: k.in_hand(0, "3D"), target: 2 });
    assert_eq!(e.rule, "R5.5.3");
    k.act(0, Action::Scare { card: k.in_hand(0, "3D"), target: 3 }).unwrap();
    assert_eq!(last_effect(&k), Effect::Scared { target: 3, discarded: vec![] });
    assert_eq!(k.dark_of(), s(&["3D", "3H", "9C"]));
}

/// R5.5.4, R11.45: Drain takes the top 2 of each neighbour's Candle as a packet, keeping its
/// order, left neighbour first, each packet onto the top of the actor's Candle.
#[test]
fn r5_5_4_drain_takes_two_from_each_neighbour() {
    let mut k = spare(
        Kit::new(4)
            .hand(0, &["4H"])
            .candle(0, &["9D", "10D"])
            .candle(1, &["2H", "3H", "6H"])
            .candle(2, &["7S", "8S", "9S"])
            .candle(3, &["6C", "7C", "8C"]),
    );
    k.act(0, Action::Drain { card: k.in_hand(0, "4H") }).unwrap();
    assert_eq!(k.candle_of(0), s(&["6C", "7C", "2H", "3H", "9D", "10D"]));
    assert_eq!(k.candle_of(1), s(&["6H"]));
    assert_eq!(k.candle_of(2), s(&["7S", "8S", "9S"]));
    assert_eq!(k.candle_of(3), s(&["8C"]));
    assert_eq!(k.dark_of(), s(&["4H"]));
    let Effect::Drained { packets } = last_effect(&k) else { panic!("not a Drain") };
    let packets: Vec<(u8, Vec<String>)> = packets.iter().map(|p| (p.seat, names(&k, &p.cards))).collect();
    assert_eq!(packets, vec![(1, s(&["2H", "3H"])), (3, s(&["6C", "7C"]))]);
}

/// R5.5.4, R0.4: with two players the other player is both neighbours: one packet only.
#[test]
fn r5_5_4_drain_with_two_players_takes_once() {
    let mut k = spare(Kit::new(2).hand(0, &["4H"]).candle(0, &["9D"]).candle(1, &["2H", "3H", "6H"]));
    k.act(0, Action::Drain { card: k.in_hand(0, "4H") }).unwrap();
    assert_eq!(k.candle_of(0), s(&["2H", "3H", "9D"]));
    assert_eq!(k.candle_of(1), s(&["6H"]));
}

/// R5.5.4, R0.4, R0.9: neighbours skip eliminated seats; a short Candle gives what it has.
#[test]
fn r5_5_4_drain_short_candles_and_eliminated_seats() {
    let mut k = spare(Kit::new(4).out(1, 4).hand(0, &["4H"]).candle(0, &["9D"]).candle(2, &["2H"]).candle(3, &[]));
    k.act(0, Action::Drain { card: k.in_hand(0, "4H") }).unwrap();
    assert_eq!(k.candle_of(0), s(&["2H", "9D"]));
    assert!(k.candle_of(2).is_empty() && k.candle_of(3).is_empty());
    assert!(k.lit(2) && k.lit(3), "an emptied Candle does not eliminate");
}

/// R5.5.6, R10.5 #15, R10.12: Sight on a hand of more than 2 opens SightPick for the actor,
/// showing the hand in the neutral order (rank, then ♠ ♥ ♣ ♦) and asking for exactly 2 cards;
/// wrong counts and repeats are refused; the picked cards move to the actor's hand.
#[test]
fn r5_5_6_sight_pick_shows_neutral_order_and_takes_exactly_two() {
    let base = || spare(Kit::new(4).hand(0, &["6H"]).hand(3, &["KS", "2D", "Joker", "9H", "2S"]));
    let mut k = base();
    k.act(0, Action::Sight { card: k.in_hand(0, "6H"), target: 3 }).unwrap();
    pass_window(&mut k);
    let p = k.prompt(0).expect("SightPick");
    let PromptKind::SightPick { target, hand, count } = p.kind else { panic!("not SightPick: {:?}", p.kind) };
    assert_eq!(target, 3);
    assert_eq!(count, 2);
    let shown: Vec<String> = hand.iter().map(|v| name(v.face)).collect();
    assert_eq!(shown, s(&["2S", "2D", "9H", "KS", "Joker"]));
    assert_eq!(p.default, Answer::Pick { cards: vec![hand[0].handle, hand[1].handle] });
    let h = |c: &str| hand.iter().find(|v| name(v.face) == c).unwrap().handle;
    for cards in [vec![h("KS")], vec![h("KS"), h("Joker"), h("9H")], vec![h("KS"), h("KS")]] {
        let e = k.answer(0, Answer::Pick { cards }).unwrap_err();
        assert_eq!(e.rule, "R5.5.6");
    }
    k.answer(0, Answer::Pick { cards: vec![h("KS"), h("Joker")] }).unwrap();
    assert_eq!(k.hand_of(0), s(&["KS", "Joker"]));
    assert_eq!(k.hand_of(3), s(&["2D", "9H", "2S"]));
    assert_eq!(k.dark_of(), s(&["6H"]));
    assert!(is_ritual_prompt(&k, 0));
    // Time-out: two cards of the seen hand, drawn at random (R10.7.1, tests/defaults.rs).
    let mut k = base();
    k.act(0, Action::Sight { card: k.in_hand(0, "6H"), target: 3 }).unwrap();
    pass_window(&mut k);
    k.send(Command::Timeout).unwrap();
    assert_eq!(k.hand_of(0).len(), 2);
    assert_eq!(k.hand_of(3).len(), 3);
    // A hand of exactly 3 still needs the choice.
    let mut k = spare(Kit::new(4).hand(0, &["6H"]).hand(1, &["4C", "4S", "AD"]));
    k.act(0, Action::Sight { card: k.in_hand(0, "6H"), target: 1 }).unwrap();
    pass_window(&mut k);
    let p = k.prompt(0).expect("SightPick");
    let PromptKind::SightPick { hand, count, .. } = p.kind else { panic!("not SightPick: {:?}", p.kind) };
    assert_eq!(count, 2);
    assert_eq!(hand.iter().map(|v| name(v.face)).collect::<Vec<_>>(), s(&["AD", "4S", "4C"]));
    assert_eq!(k.hand_of(1), s(&["4C", "4S", "AD"]));
}

/// R5.5.6, R10.4.3: a hand of 2 or fewer cards is taken whole, with no SightPick prompt; an
/// empty hand fizzles; the target must be a neighbour.
#[test]
fn r5_5_6_sight_takes_a_small_hand_whole_without_a_prompt() {
    let mut k = spare(Kit::new(4).hand(0, &["6H", "6C"]).hand(1, &["9C", "2H"]));
    let e = k.refuse(0, Action::Sight { card: k.in_hand(0, "6H"), target: 2 });
    assert_eq!(e.rule, "R5.5.6");
    k.act(0, Action::Sight { card: k.in_hand(0, "6H"), target: 1 }).unwrap();
    pass_window(&mut k);
    assert!(is_ritual_prompt(&k, 0), "no SightPick prompt");
    assert!(k.hand_of(1).is_empty());
    assert_eq!(sorted(k.hand_of(0)), sorted(s(&["6C", "9C", "2H"])));
    assert_eq!(k.dark_of(), s(&["6H"]));
    // Empty hand: legal, nothing moves.
    k.act(0, Action::Sight { card: k.in_hand(0, "6C"), target: 3 }).unwrap();
    assert_eq!(last_effect(&k), Effect::SightTaken { target: 3, taken: vec![], burned: vec![] });
    assert_eq!(k.dark_of(), s(&["6C", "6H"]));
}

/// R10.12, R3.3.2: the owner's acquisition order is never shown to anyone else. When Sight takes
/// a whole hand of 2 without a prompt, the cards join the actor's hand in the neutral order
/// (2♥ before 9♣), not in the order the neighbour acquired them (9♣ then 2♥).
#[test]
fn r10_12_sight_taken_without_prompt_joins_in_neutral_order() {
    let mut k = spare(Kit::new(4).hand(0, &["6H"]).hand(1, &["9C", "2H"]));
    k.act(0, Action::Sight { card: k.in_hand(0, "6H"), target: 1 }).unwrap();
    pass_window(&mut k);
    assert_eq!(k.hand_of(0), s(&["2H", "9C"]));
}

/// R5.5.7, R11.3, R5.4.3: Cleanse removes the named ghost with no value check; it is Siphoned
/// when the ghost is a 7 or of the Cleanse card's suit, unless Spade-cursed; other ghosts keep
/// their entry order.
#[test]
fn r5_5_7_cleanse_has_no_value_check_and_siphons_by_seven_or_suit() {
    let cases: &[(&str, &str, bool)] = &[
        ("7D", "KC", false),    // no value check: 7 removes a King
        ("7D", "7C", true),     // rank 7
        ("7C", "2C", true),     // same suit
        ("7D", "9H", false),    // neither
        ("7H", "7S", false),    // rank 7 but Spade-cursed
        ("7S", "10S", false),   // same suit but Spade-cursed
        ("7H", "QH", true),     // same suit, face ghost
        ("7D", "Joker", false), // no suit, not a 7
    ];
    for &(card, ghost, siphon) in cases {
        let mut k =
            spare(Kit::new(4).hand(0, &[card]).shadow(0, &[("3H", Some(1)), (ghost, Some(3)), ("4H", Some(2))]));
        let candle = k.candle_of(0);
        k.act(0, Action::Cleanse { card: k.in_hand(0, card), ghost: k.ghost(0, ghost), second: None }).unwrap();
        assert_eq!(k.shadow_of(0), g(&[("3H", Some(1)), ("4H", Some(2))]), "{card} on {ghost}");
        if siphon {
            let mut expect = candle.clone();
            expect.push(ghost.to_string());
            assert_eq!(k.candle_of(0), expect, "{card} on {ghost}: Siphon");
            assert_eq!(k.dark_of(), s(&[card]), "{card} on {ghost}");
        } else {
            assert_eq!(k.candle_of(0), candle, "{card} on {ghost}: no Siphon");
            assert_eq!(k.dark_of(), s(&[card, ghost]), "{card} on {ghost}");
        }
    }
}

/// R5.5.7, R0.9: Cleanse Requires a ghost in the actor's own Shadow: with none it is not
/// offered, and naming a neighbour's ghost is refused under R5.5.7.
#[test]
fn r5_5_7_cleanse_requires_a_ghost_in_own_shadow() {
    let mut k = Kit::new(4).hand(0, &["7H"]).shadow(1, &[("2C", Some(0))]);
    assert_eq!(uses_of(&k, 0, "7H"), vec![UseOption::Haunt { targets: vec![1, 3] }]);
    let e = k.refuse(0, Action::Cleanse { card: k.in_hand(0, "7H"), ghost: k.ghost(1, "2C"), second: None });
    assert_eq!(e.rule, "R5.5.7");
    assert_eq!(k.shadow_of(1), g(&[("2C", Some(0))]));
}

/// R5.5.8: Recall takes a ghost from any Lit player's Shadow, the actor's own included (not
/// only neighbours), into the actor's hand; the options list the actor's Shadow first, then
/// clockwise.
#[test]
fn r5_5_8_recall_takes_any_lit_players_ghost_into_hand() {
    let mut k = spare(
        Kit::new(4).hand(0, &["8H", "8C"]).shadow(0, &[("3D", Some(1))]).shadow(2, &[("KS", Some(1)), ("9H", Some(3))]),
    );
    let expect = vec![
        RecallChoice { owner: 0, ghost: k.ghost(0, "3D") },
        RecallChoice { owner: 2, ghost: k.ghost(2, "KS") },
        RecallChoice { owner: 2, ghost: k.ghost(2, "9H") },
    ];
    assert!(uses_of(&k, 0, "8H").contains(&UseOption::Recall { ghosts: expect }));
    k.act(0, Action::Recall { card: k.in_hand(0, "8H"), owner: 2, ghost: k.ghost(2, "KS") }).unwrap();
    assert_eq!(k.hand_of(0), s(&["8C", "KS"]));
    assert_eq!(k.shadow_of(2), g(&[("9H", Some(3))]));
    assert_eq!(k.dark_of(), s(&["8H"]));
    k.act(0, Action::Recall { card: k.in_hand(0, "8C"), owner: 0, ghost: k.ghost(0, "3D") }).unwrap();
    assert_eq!(k.hand_of(0), s(&["KS", "3D"]));
    assert!(k.shadow_of(0).is_empty());
    assert_eq!(k.dark_of(), s(&["8C", "8H"]));
}

/// R5.5.8, R0.9: Recall Requires an eligible ghost: with no ghost anywhere it is not offered;
/// a card that is not a ghost of the named Shadow, or a Shadow of an eliminated seat, is
/// refused under R5.5.8.
#[test]
fn r5_5_8_recall_requires_an_eligible_ghost() {
    let mut k = Kit::new(4).out(2, 4).hand(0, &["8H", "9D"]).shadow(1, &[("4C", Some(0))]);
    let e = k.refuse(0, Action::Recall { card: k.in_hand(0, "8H"), owner: 0, ghost: k.in_hand(0, "9D") });
    assert_eq!(e.rule, "R5.5.8");
    let e = k.refuse(0, Action::Recall { card: k.in_hand(0, "8H"), owner: 3, ghost: k.ghost(1, "4C") });
    assert_eq!(e.rule, "R5.5.8");
    let e = k.refuse(0, Action::Recall { card: k.in_hand(0, "8H"), owner: 2, ghost: k.ghost(1, "4C") });
    assert_eq!(e.rule, "R5.5.8");
    let k = Kit::new(4).hand(0, &["8H"]);
    assert_eq!(uses_of(&k, 0, "8H"), vec![UseOption::Haunt { targets: vec![1, 3] }]);
}

/// R5.5.9, R3.4.4: Possess moves a ghost of the actor's own Shadow to the end of a neighbour's
/// Shadow, keeping its haunter.
#[test]
fn r5_5_9_possess_moves_own_ghost_to_a_neighbour_keeping_its_haunter() {
    let mut k = spare(
        Kit::new(4).hand(0, &["9H"]).shadow(0, &[("3D", Some(1)), ("KS", Some(2))]).shadow(3, &[("4C", Some(2))]),
    );
    k.act(0, Action::Possess { card: k.in_hand(0, "9H"), ghost: k.ghost(0, "KS"), destination: 3 }).unwrap();
    assert_eq!(k.shadow_of(0), g(&[("3D", Some(1))]));
    assert_eq!(k.shadow_of(3), g(&[("4C", Some(2)), ("KS", Some(2))]));
    assert_eq!(k.dark_of(), s(&["9H"]));
}

/// R5.5.9: the ghost must be the actor's own and the destination a neighbour; with no ghost of
/// one's own, Possess is not offered.
#[test]
fn r5_5_9_possess_requires_own_ghost_and_neighbour_destination() {
    let mut k = Kit::new(4).hand(0, &["9H"]).shadow(0, &[("3D", Some(1))]).shadow(1, &[("4C", Some(2))]);
    for dest in [2, 0] {
        let e = k.refuse(0, Action::Possess { card: k.in_hand(0, "9H"), ghost: k.ghost(0, "3D"), destination: dest });
        assert_eq!(e.rule, "R5.5.9", "destination {dest}");
    }
    let e = k.refuse(0, Action::Possess { card: k.in_hand(0, "9H"), ghost: k.ghost(1, "4C"), destination: 3 });
    assert_eq!(e.rule, "R5.5.9");
    assert_eq!(k.shadow_of(0), g(&[("3D", Some(1))]));
    let k = Kit::new(4).hand(0, &["9H"]).shadow(1, &[("4C", Some(2))]);
    assert_eq!(uses_of(&k, 0, "9H"), vec![UseOption::Haunt { targets: vec![1, 3] }]);
}

/// R5.5.10, R10.2.1: Rekindle takes the top 3 of The Dark into the Candle, which is then
/// shuffled (the event records the resulting Candle); the rest of The Dark stays.
#[test]
fn r5_5_10_rekindle_takes_top_three_of_the_dark_then_shuffles() {
    let mut k = spare(Kit::new(4).hand(0, &["10H"]).candle(0, &["2C", "3C"]).dark(&["2H", "3H", "4H", "6H"]));
    k.act(0, Action::Rekindle { card: k.in_hand(0, "10H") }).unwrap();
    assert_eq!(k.dark_of(), s(&["10H", "6H"]));
    assert_eq!(sorted(k.candle_of(0)), sorted(s(&["2C", "3C", "2H", "3H", "4H"])));
    let Effect::Rekindled { taken, candle } = last_effect(&k) else { panic!("not a Rekindle") };
    assert_eq!(names(&k, &taken), s(&["2H", "3H", "4H"]));
    assert_eq!(names(&k, &candle), k.candle_of(0));
}

/// R5.5.10, R5.1.6, R11.15: Rekindle never takes back its own card: the 10 reaches The Dark only
/// at cleanup, after the effect; a short Dark gives what it has.
#[test]
fn r5_5_10_rekindle_never_takes_back_its_own_card() {
    let mut k = spare(Kit::new(4).hand(0, &["10H", "10D"]).candle(0, &["2C"]).dark(&["2H"]));
    k.act(0, Action::Rekindle { card: k.in_hand(0, "10H") }).unwrap();
    assert_eq!(sorted(k.candle_of(0)), sorted(s(&["2C", "2H"])));
    assert_eq!(k.dark_of(), s(&["10H"]));
    // The Dark now holds only the first 10; a second Rekindle takes it, never itself.
    k.act(0, Action::Rekindle { card: k.in_hand(0, "10D") }).unwrap();
    assert_eq!(sorted(k.candle_of(0)), sorted(s(&["2C", "2H", "10H"])));
    assert_eq!(k.dark_of(), s(&["10D"]));
}

// ---------------------------------------------------------------------------------------------
// R5.6 Summon
// ---------------------------------------------------------------------------------------------

/// R5.6.1, R3.4.2, R3.4.4: Mirror exchanges the whole Shadows of the actor and a neighbour,
/// each keeping its entry order and haunters; a non-neighbour is refused.
#[test]
fn r5_6_1_mirror_exchanges_whole_shadows() {
    let mine = [("7C", Some(1)), ("2H", Some(3)), ("9S", None)];
    let theirs = [("4D", Some(2)), ("KH", Some(0))];
    let mut k = spare(Kit::new(4).hand(0, &["JH"]).shadow(0, &mine).shadow(3, &theirs).shadow(1, &[("6D", Some(0))]));
    let e = k.refuse(0, Action::Mirror { card: k.in_hand(0, "JH"), target: 2 });
    assert_eq!(e.rule, "R5.6.1");
    k.act(0, Action::Mirror { card: k.in_hand(0, "JH"), target: 3 }).unwrap();
    assert_eq!(k.shadow_of(0), g(&theirs));
    assert_eq!(k.shadow_of(3), g(&mine));
    assert_eq!(k.shadow_of(1), g(&[("6D", Some(0))]));
    assert_eq!(k.dark_of(), s(&["JH"]));
}

/// R5.6.2 Search, R10.5 #17: MediumPick lists the non-Joker cards of The Dark, top first (the
/// Queen itself is not there yet); exactly one must be chosen; it goes into the actor's hand.
#[test]
fn r5_6_2_medium_search_picks_a_non_joker_card_of_the_dark() {
    let dark = ["Joker", "9H", "Joker", "3C", "KS"];
    let base = || spare(Kit::new(4).hand(0, &["QH"]).dark(&dark));
    let mut k = base();
    k.act(0, Action::Medium { card: k.in_hand(0, "QH"), mode: MediumMode::Search }).unwrap();
    let p = k.prompt(0).expect("MediumPick");
    let PromptKind::MediumPick { choices } = p.kind else { panic!("not MediumPick: {:?}", p.kind) };
    assert_eq!(choices.iter().map(|v| name(v.face)).collect::<Vec<_>>(), s(&["9H", "3C", "KS"]));
    assert_eq!(p.default, Answer::Pick { cards: vec![choices[0].handle] });
    let joker = k.state.dark.iter().copied().find(|&c| k.state.face(c).rank == Rank::Joker).unwrap();
    let joker = handle(&k.state, joker);
    for cards in [vec![joker], vec![choices[0].handle, choices[1].handle], vec![]] {
        let e = k.answer(0, Answer::Pick { cards }).unwrap_err();
        assert_eq!(e.rule, "R5.6.2");
    }
    k.answer(0, Answer::Pick { cards: vec![choices[1].handle] }).unwrap();
    assert_eq!(k.hand_of(0), s(&["3C"]));
    assert_eq!(k.dark_of(), s(&["QH", "Joker", "9H", "Joker", "KS"]));
    // Time-out: an eligible card drawn at random (R10.7.1, tests/defaults.rs); never a Joker.
    let mut k = base();
    k.act(0, Action::Medium { card: k.in_hand(0, "QH"), mode: MediumMode::Search }).unwrap();
    k.send(Command::Timeout).unwrap();
    let taken = k.hand_of(0);
    assert!(taken.len() == 1 && ["9H", "3C", "KS"].contains(&taken[0].as_str()), "{taken:?}");
    assert_eq!(k.dark_of().len(), 5);
}

/// R5.6.2 Search, R0.9: with no non-Joker card in The Dark nothing happens (no prompt).
#[test]
fn r5_6_2_medium_search_without_eligible_card_does_nothing() {
    for dark in [&["Joker", "Joker"][..], &[][..]] {
        let mut k = spare(Kit::new(4).hand(0, &["QH"]).dark(dark));
        k.act(0, Action::Medium { card: k.in_hand(0, "QH"), mode: MediumMode::Search }).unwrap();
        if !dark.is_empty() {
            // R10.4.3: The Dark holds cards, so the caster is asked (docs/rules-decisions.md 4);
            // with no eligible card, only an empty pick is legal.
            match k.prompt(0).map(|p| p.kind) {
                Some(crate::rules::prompt::PromptKind::MediumPick { choices }) => assert!(choices.is_empty()),
                other => panic!("expected an empty MediumPick, got {other:?}"),
            }
            let joker = k.state.dark[0];
            let h = crate::model::handle::handle(&k.state, joker);
            assert_eq!(k.answer(0, Answer::Pick { cards: vec![h] }).unwrap_err().rule, "R5.6.2");
            k.answer(0, Answer::Pick { cards: vec![] }).unwrap();
        }
        assert!(is_ritual_prompt(&k, 0));
        assert_eq!(last_effect(&k), Effect::MediumSearched { taken: None });
        assert!(k.hand_of(0).is_empty());
        let mut expect = s(&["QH"]);
        expect.extend(s(dark));
        assert_eq!(k.dark_of(), expect);
    }
}

/// R5.6.2 Depths, R3.5.1: the bottom 2 cards of The Dark go into the actor's Candle, which is
/// then shuffled; the top of The Dark stays; a Dark of one card gives that card.
#[test]
fn r5_6_2_medium_depths_takes_the_bottom_two_then_shuffles() {
    let mut k = spare(Kit::new(4).hand(0, &["QH", "QC"]).candle(0, &["2C"]).dark(&["2H", "3H", "4H", "6H", "7H"]));
    k.act(0, Action::Medium { card: k.in_hand(0, "QH"), mode: MediumMode::Depths }).unwrap();
    assert_eq!(k.dark_of(), s(&["QH", "2H", "3H", "4H"]));
    assert_eq!(sorted(k.candle_of(0)), sorted(s(&["2C", "6H", "7H"])));
    let Effect::MediumDepths { taken, candle } = last_effect(&k) else { panic!("not Depths") };
    assert_eq!(names(&k, &taken), s(&["7H", "6H"]));
    assert_eq!(names(&k, &candle), k.candle_of(0));
    let mut k = spare(Kit::new(4).hand(0, &["QH"]).candle(0, &["2C"]).dark(&["8D"]));
    k.act(0, Action::Medium { card: k.in_hand(0, "QH"), mode: MediumMode::Depths }).unwrap();
    assert_eq!(k.dark_of(), s(&["QH"]));
    assert_eq!(sorted(k.candle_of(0)), sorted(s(&["2C", "8D"])));
}

/// R5.6.3, R5.4.3: Purge removes every ghost in entry order: Siphoned (in that order, to the
/// bottom of the Candle) when of the King's suit and not Spade-cursed, otherwise to The Dark;
/// then the King.
#[test]
fn r5_6_3_purge_removes_every_ghost_in_entry_order() {
    let ghosts = [("2H", Some(1)), ("9C", Some(3)), ("JH", None), ("QS", Some(1)), ("Joker", Some(3)), ("7H", Some(2))];
    let mut k = spare(Kit::new(4).hand(0, &["KH"]).shadow(0, &ghosts));
    let mut candle = k.candle_of(0);
    k.act(0, Action::Purge { card: k.in_hand(0, "KH") }).unwrap();
    assert!(k.shadow_of(0).is_empty());
    candle.extend(s(&["2H", "JH", "7H"]));
    assert_eq!(k.candle_of(0), candle);
    assert_eq!(k.dark_of(), s(&["KH", "Joker", "QS", "9C"]));
    let Effect::Purged { removed, .. } = last_effect(&k) else { panic!("not a Purge") };
    let removed: Vec<(String, bool)> = removed.iter().map(|r| (name(k.state.face(r.ghost)), r.siphoned)).collect();
    let expect: Vec<(String, bool)> =
        [("2H", true), ("9C", false), ("JH", true), ("QS", false), ("Joker", false), ("7H", true)]
            .iter()
            .map(|&(c, sy)| (c.to_string(), sy))
            .collect();
    assert_eq!(removed, expect);
}

/// R5.6.4, R3.4.4, R7.2: BOO! turns up each other Lit player's Candle, clockwise from the
/// actor's left: face cards and Jokers go to The Dark until the first number card, which becomes
/// a ghost with no haunter at the end of their Shadow; a Candle that runs out gives no ghost and
/// does not eliminate. Then cleanup puts the BOO! Joker on top.
#[test]
fn r5_6_4_boo_reveals_until_a_number_card() {
    let mut k = spare(
        Kit::new(4)
            .hand(0, &["Joker"])
            .shadow(1, &[("6H", Some(0))])
            .candle(1, &["KS", "Joker", "3D", "4D"])
            .candle(2, &["8S", "9S"])
            .candle(3, &["QH", "JD"]),
    );
    k.act(0, Action::Boo { card: k.in_hand(0, "Joker") }).unwrap();
    assert_eq!(k.shadow_of(1), g(&[("6H", Some(0)), ("3D", None)]));
    assert_eq!(k.shadow_of(2), g(&[("8S", None)]));
    assert!(k.shadow_of(3).is_empty());
    assert_eq!(k.candle_of(1), s(&["4D"]));
    assert_eq!(k.candle_of(2), s(&["9S"]));
    assert!(k.candle_of(3).is_empty());
    assert!(k.lit(3));
    assert_eq!(k.dark_of(), s(&["Joker", "JD", "QH", "Joker", "KS"]));
    assert!(k.shadow_of(0).is_empty());
    let Effect::Boo { reveals } = last_effect(&k) else { panic!("not BOO!") };
    assert_eq!(reveals.iter().map(|r| r.seat).collect::<Vec<_>>(), vec![1, 2, 3]);
    assert_eq!(reveals[2].ghost, None);
}

/// R5.6.4, R10.12: the BOO! order starts from the actor's left neighbour and wraps around
/// (actor seat 2: seats 3, 0, 1), skipping eliminated seats; an already empty Candle gives
/// nothing.
#[test]
fn r5_6_4_boo_runs_clockwise_from_the_actors_left() {
    let mut k = spare(
        Kit::new(5)
            .out(4, 5)
            .hand(2, &["Joker"])
            .candle(3, &["JS", "2C"])
            .candle(0, &["QS", "3C"])
            .candle(1, &[])
            .ritual(2),
    );
    k.act(2, Action::Boo { card: k.in_hand(2, "Joker") }).unwrap();
    assert_eq!(k.dark_of(), s(&["Joker", "QS", "JS"]));
    assert_eq!(k.shadow_of(3), g(&[("2C", None)]));
    assert_eq!(k.shadow_of(0), g(&[("3C", None)]));
    assert!(k.shadow_of(1).is_empty());
    assert!(k.lit(1));
    let Effect::Boo { reveals } = last_effect(&k) else { panic!("not BOO!") };
    assert_eq!(reveals.iter().map(|r| r.seat).collect::<Vec<_>>(), vec![3, 0, 1]);
}

// ---------------------------------------------------------------------------------------------
// R4.4 budget, R5.8 Abstain, R10.1.2 refusals
// ---------------------------------------------------------------------------------------------

/// R4.4.2-R4.4.3: an action needs a budget of at least 1; once the only action is spent the
/// Ritual ends by itself (not an Abstain), and a further declaration is refused and changes
/// nothing.
#[test]
fn r4_4_3_an_action_needs_budget() {
    let mut k = Kit::new(4).hand(0, &["7H", "8H"]);
    k.act(0, Action::Haunt { card: k.in_hand(0, "7H"), target: 1 }).unwrap();
    // Right after the action resolved, seat 0's Ritual ended by itself (budget 0).
    let i = k.events.iter().position(|e| matches!(e, Event::ActionResolved { actor: 0, .. })).unwrap();
    assert_eq!(k.events[i + 1], Event::RitualEnded { seat: 0, abstained: false });
    assert_eq!(k.state.turn.active, 1, "the turn passed");
    assert!(k.prompt(0).is_none(), "no Ritual prompt is open for seat 0");
    let e = k.refuse(0, Action::Haunt { card: k.in_hand(0, "8H"), target: 1 });
    assert!(["R4.4.3", "R10.1.2"].contains(&e.rule), "rule {}", e.rule);
    assert_eq!(k.hand_of(0), s(&["8H"]));
    assert_eq!(k.shadow_of(1), g(&[("7H", Some(0))]));
}

/// R5.8, R4.4.2: ending the Ritual before any action is Abstaining (RitualEnded with
/// abstained = true) and moves nothing; ending it after an action is not.
#[test]
fn r5_8_abstain_ends_the_ritual_without_an_action() {
    let mut k = Kit::new(4).hand(0, &["7H", "JH"]);
    k.answer(0, Answer::EndRitual).unwrap();
    assert!(k.events.iter().any(|e| matches!(e, Event::RitualEnded { seat: 0, abstained: true })));
    assert!(!k.events.iter().any(|e| matches!(e, Event::ActionDeclared { .. })));
    assert_eq!(k.hand_of(0), s(&["7H", "JH"]));
    assert!(k.dark_of().is_empty());
    // An empty hand: the prompt offers nothing but ending; that is an Abstain too.
    let mut k = Kit::new(4);
    let p = k.prompt(0).unwrap();
    assert!(matches!(p.kind, PromptKind::Ritual { budget: 1, ref options, .. } if options.is_empty()));
    assert_eq!(p.default, Answer::EndRitual);
    k.answer(0, Answer::EndRitual).unwrap();
    assert!(k.events.iter().any(|e| matches!(e, Event::RitualEnded { seat: 0, abstained: true })));
    // After an action, ending the Ritual is not an Abstain.
    let mut k = spare(Kit::new(4).hand(0, &["7H", "2C"]));
    k.act(0, Action::Haunt { card: k.in_hand(0, "7H"), target: 1 }).unwrap();
    k.answer(0, Answer::EndRitual).unwrap();
    assert!(k.events.iter().any(|e| matches!(e, Event::RitualEnded { seat: 0, abstained: false })));
    assert!(!k.events.iter().any(|e| matches!(e, Event::RitualEnded { abstained: true, .. })));
}

/// R0.1, R10.1.2: refused commands change nothing (the kit compares the whole state) and their
/// error names the rule: a seat without a prompt, a card not in the actor's hand, an answer of
/// the wrong kind, a seat that does not exist.
#[test]
fn r10_1_2_refused_declarations_change_nothing_and_name_the_rule() {
    let mut k = Kit::new(4).hand(0, &["7H"]).hand(1, &["8D"]);
    let e = k.refuse(1, Action::Haunt { card: k.in_hand(1, "8D"), target: 0 });
    assert_eq!((e.kind, e.rule), (ErrorKind::NotYourPrompt, "R10.1.2"));
    let e = k.refuse(0, Action::Haunt { card: k.in_hand(1, "8D"), target: 1 });
    assert_eq!((e.kind, e.rule), (ErrorKind::UnknownCard, "R5.1.2"));
    let e = k.answer(0, Answer::Pass).unwrap_err();
    assert_eq!((e.kind, e.rule), (ErrorKind::WrongAnswer, "R10.5"));
    let e = k.refuse(0, Action::Haunt { card: k.in_hand(0, "7H"), target: 9 });
    assert_eq!(e.rule, "R0.2");
    assert!(k.events.is_empty());
    assert_eq!(k.hand_of(0), s(&["7H"]));
    assert_eq!(k.budget(), 1);
}

/// R1.4: values for Banish: A = 1, 2-10 their number, J, Q and K all 10: a Queen beats a 9
/// ghost whatever the suits, a Jack ties a 10 (decided by tier), an Ace beats nothing above 1.
#[test]
fn r1_4_values_for_banish() {
    use crate::model::card::Face;
    assert_eq!(["AS", "2S", "9S", "10S", "JS", "QS", "KS"].map(|c| face(c).value()), [1, 2, 9, 10, 10, 10, 10]);
    assert_eq!(Face::joker().value(), 10, "a Joker ghost (The Warlock) has value 10");
    let base = || {
        spare(
            Kit::new(4)
                .hand(0, &["QD", "JH", "AS", "2D"])
                .shadow(0, &[("9S", Some(1)), ("10H", Some(1)), ("AC", None)]),
        )
    };
    let mut k = base();
    k.act(0, Action::Banish { card: k.in_hand(0, "QD"), ghost: k.ghost(0, "9S") }).unwrap();
    assert_eq!(k.shadow_of(0).len(), 2, "Q (10) beats 9♠ despite ♦ < ♠");
    let mut k = base();
    k.act(0, Action::Banish { card: k.in_hand(0, "JH"), ghost: k.ghost(0, "10H") }).unwrap();
    assert_eq!(k.shadow_of(0).len(), 2, "J (10) ties 10♥, equal suit wins");
    let mut k = base();
    let e = k.refuse(0, Action::Banish { card: k.in_hand(0, "AS"), ghost: k.ghost(0, "10H") });
    assert_eq!(e.rule, "R5.3.2");
    let e = k.refuse(0, Action::Banish { card: k.in_hand(0, "QD"), ghost: k.ghost(0, "10H") });
    assert_eq!(e.rule, "R5.3.2", "Q (10) ties 10♥ but ♦ is below ♥");
    k.act(0, Action::Banish { card: k.in_hand(0, "2D"), ghost: k.ghost(0, "AC") }).unwrap();
    assert_eq!(k.shadow_of(0).len(), 2, "2 beats an Ace (1)");
}

/// R1.5: suit tiers ♠ 4 > ♥ 3 > ♣ 2 > ♦ 1, a Joker 0; they decide a Banish tie of values.
#[test]
fn r1_5_suit_tiers_break_banish_ties() {
    use crate::model::card::Face;
    assert_eq!(["7S", "7H", "7C", "7D"].map(|c| face(c).tier()), [4, 3, 2, 1]);
    assert_eq!(Face::joker().tier(), 0);
    let base = || spare(Kit::new(4).hand(0, &["7S", "7C", "7D"]).shadow(0, &[("7C", Some(1))]));
    let mut k = base();
    assert_eq!(k.refuse(0, Action::Banish { card: k.in_hand(0, "7D"), ghost: k.ghost(0, "7C") }).rule, "R5.3.2");
    k.act(0, Action::Banish { card: k.in_hand(0, "7S"), ghost: k.ghost(0, "7C") }).unwrap();
    assert!(k.shadow_of(0).is_empty(), "♠ beats ♣ at equal value");
    // A Joker ghost (tier 0, value 10) loses a tie to any suited 10-value card.
    let mut k = spare(Kit::new(4).hand(0, &["10D"]).shadow(0, &[("Joker", Some(1))]));
    k.act(0, Action::Banish { card: k.in_hand(0, "10D"), ghost: k.ghost(0, "Joker") }).unwrap();
    assert!(k.shadow_of(0).is_empty());
}

/// R5.1.5: if the action stands, its effect runs after the reaction window, and a choice marked
/// *resolution* (Sight's pick) is prompted only at that step, never while the window is open.
#[test]
fn r5_1_5_resolution_choices_come_after_the_window() {
    let mut k = spare(Kit::new(4).hand(0, &["6C"]).hand(1, &["2H", "9S", "KD"]).hand(2, &["3C"]));
    let card = k.in_hand(0, "6C");
    k.act(0, Action::Sight { card, target: 1 }).unwrap();
    assert!(matches!(k.prompt(1).map(|p| p.kind), Some(PromptKind::Salt { .. })), "the window first");
    assert!(!matches!(k.prompt(0).map(|p| p.kind), Some(PromptKind::SightPick { .. })));
    pass_window(&mut k);
    assert!(matches!(k.prompt(0).map(|p| p.kind), Some(PromptKind::SightPick { .. })), "then the resolution choice");
}

/// R5.4.4: a Joker ghost is Siphoned only by The Exorcist's Cleanse, The Leech's Banish or a Panic
/// Joker reveal: an ordinary Cleanse, Banish or Purge sends it to The Dark.
#[test]
fn r5_4_4_a_joker_ghost_is_siphoned_only_by_the_always_rows() {
    use crate::model::classes::ClassId;
    for (card, exorcist) in [("7C", false), ("7C", true)] {
        let mut k = spare(Kit::new(4).hand(0, &[card]).shadow(0, &[("Joker", Some(1))]));
        if exorcist {
            k = k.class(0, ClassId::Exorcist);
        }
        let (card, ghost) = (k.in_hand(0, "7C"), k.ghost(0, "Joker"));
        k.act(0, Action::Cleanse { card, ghost, second: None }).unwrap();
        pass_window(&mut k);
        assert!(k.shadow_of(0).is_empty());
        let siphoned = k.candle_of(0).last() == Some(&"Joker".to_string());
        assert_eq!(siphoned, exorcist, "Cleanse by The Exorcist: {exorcist}");
        assert_eq!(k.dark_of().contains(&"Joker".to_string()), !exorcist);
    }
    for leech in [false, true] {
        let mut k = spare(Kit::new(4).hand(0, &["KS"]).shadow(0, &[("Joker", Some(1))]));
        if leech {
            k = k.class(0, ClassId::Leech);
        }
        let (card, ghost) = (k.in_hand(0, "KS"), k.ghost(0, "Joker"));
        k.act(0, Action::Banish { card, ghost }).unwrap();
        pass_window(&mut k);
        assert_eq!(k.candle_of(0).last() == Some(&"Joker".to_string()), leech, "Banish by The Leech: {leech}");
    }
    let mut k = spare(Kit::new(4).hand(0, &["KS"]).shadow(0, &[("Joker", Some(1))]));
    let card = k.in_hand(0, "KS");
    k.act(0, Action::Purge { card }).unwrap();
    pass_window(&mut k);
    assert_eq!(k.dark_of(), s(&["KS", "Joker"]), "Purge: to The Dark, then the King");
}
