//! Free abilities (R5.9): The Doomreader (R8.3), The Mimic (R8.17), The Pyromaniac (R8.22),
//! The Seer (R8.25), The Trader (R8.31). (The Grimoire's page: reactions.rs.)

use super::*;
use crate::model::action::Action;
use crate::model::classes::Ability;
use crate::model::command::Answer;
use crate::projection::redact::{AbilityEffectView, ViewEvent, redact};
use crate::projection::view::Viewer;
use crate::rules::prompt::PromptKind;

fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

fn ability(
    k: &mut Kit,
    seat: u8,
    a: Ability<crate::model::handle::CardRef>,
) -> Result<Vec<Event>, crate::model::error::RuleError> {
    k.answer(seat, Answer::Ability { ability: a })
}

/// R8.3.1-R8.3.2, R5.9.2: discard a card, remove a ghost (no Siphon; below the discard); once
/// per turn; a live Clown ghost needs a discard that is not a number card; no Salt window.
#[test]
fn r8_3_doomreader() {
    let mut k = Kit::new(4)
        .class(0, ClassId::Doomreader)
        .hand(0, &["2C", "3C", "5H"])
        .hand(1, &["5D"])
        .shadow(0, &[("7H", Some(1)), ("9D", Some(1))]);
    let (card, ghost) = (k.in_hand(0, "2C"), k.ghost(0, "7H"));
    ability(&mut k, 0, Ability::Doomreader { card, ghost }).unwrap();
    assert_eq!(k.dark_of(), strs(&["2C", "7H"]));
    assert_eq!(k.hand_of(1), strs(&["5D"]), "no Salt window");
    assert!(matches!(k.prompt(0).unwrap().kind, PromptKind::Ritual { budget: 1, .. }), "the action is still there");
    let (card, ghost) = (k.in_hand(0, "3C"), k.ghost(0, "9D"));
    assert_eq!(ability(&mut k, 0, Ability::Doomreader { card, ghost }).unwrap_err().rule, "R5.9.4");
    let mut k = Kit::new(4)
        .class(0, ClassId::Doomreader)
        .class(1, ClassId::Clown)
        .hand(0, &["2C", "KC"])
        .shadow(0, &[("7H", Some(1))]);
    let (card, ghost) = (k.in_hand(0, "2C"), k.ghost(0, "7H"));
    assert_eq!(ability(&mut k, 0, Ability::Doomreader { card, ghost }).unwrap_err().rule, "R8.3.2");
    let card = k.in_hand(0, "KC");
    ability(&mut k, 0, Ability::Doomreader { card, ghost }).unwrap();
    assert!(k.shadow_of(0).is_empty());
}

/// R8.17.1-R8.17.2 (Mimic's swap not Salt-able): Candles exchanged in order; no window even
/// with 5s around; once per game; the Ritual action is still available.
#[test]
fn r8_17_mimic_swaps_candles_once_per_game() {
    let mut k = Kit::new(4)
        .class(0, ClassId::Mimic)
        .candle(0, &["2C"])
        .candle(1, &["3D", "4D"])
        .hand(1, &["5D"])
        .hand(2, &["5H"]);
    ability(&mut k, 0, Ability::Mimic { target: 1 }).unwrap();
    assert_eq!(k.candle_of(0), strs(&["3D", "4D"]));
    assert_eq!(k.candle_of(1), strs(&["2C"]));
    assert_eq!(k.hand_of(1), strs(&["5D"]));
    assert!(k.state.players[0].once_used);
    assert!(matches!(k.prompt(0).unwrap().kind, PromptKind::Ritual { budget: 1, ability: None, .. }));
    k.state.turn.free_used = false;
    assert_eq!(ability(&mut k, 0, Ability::Mimic { target: 1 }).unwrap_err().rule, "R5.9.4");
}

/// R8.22.1: a red discard makes a neighbour Burn 2; a black card or a Joker is refused.
#[test]
fn r8_22_pyromaniac() {
    let mut k =
        Kit::new(4).class(0, ClassId::Pyromaniac).hand(0, &["KD", "2C", "Joker"]).candle(1, &["3S", "4S", "6S"]);
    for c in ["2C", "Joker"] {
        let card = k.in_hand(0, c);
        assert_eq!(ability(&mut k, 0, Ability::Pyromaniac { card, target: 1 }).unwrap_err().rule, "R8.22.1");
    }
    let card = k.in_hand(0, "KD");
    ability(&mut k, 0, Ability::Pyromaniac { card, target: 1 }).unwrap();
    assert_eq!(k.candle_of(1), strs(&["6S"]));
    assert_eq!(k.dark_of(), strs(&["KD", "4S", "3S"]));
}

/// R8.25.1, R10.8: The Seer sees the top of a Candle (its own too); nobody else sees it.
#[test]
fn r8_25_seer_peeks_privately() {
    let mut k = Kit::new(4).class(0, ClassId::Seer).candle(2, &["QH", "2C"]);
    let before = k.state.clone();
    let ev = ability(&mut k, 0, Ability::Seer { target: 2 }).unwrap();
    assert_eq!(k.candle_of(2), strs(&["QH", "2C"]));
    let mut st = before.clone();
    crate::rules::evolve::apply(&mut st, &ev[0]);
    let shown = |v: Viewer| match redact(&before, &ev[0], &st, v) {
        Some(ViewEvent::AbilityUsed { effect: Some(AbilityEffectView::Peeked { card, .. }), .. }) => {
            card.map(|c| name(c.face))
        }
        other => panic!("{other:?}"),
    };
    assert_eq!(shown(Viewer::Seat { seat: 0 }), Some("QH".to_string()));
    for v in [Viewer::Seat { seat: 2 }, Viewer::Seat { seat: 1 }, Viewer::Spectator] {
        assert_eq!(shown(v), None, "{v:?}");
    }
    let mut k = Kit::new(4).class(0, ClassId::Seer).candle(0, &["9C"]);
    ability(&mut k, 0, Ability::Seer { target: 0 }).unwrap();
}

/// R8.31.1, R10.8.2: The Trader discards, sees the hand, swaps one card or declines; that it
/// swapped is public, the cards are not.
#[test]
fn r8_31_trader() {
    let mut k = Kit::new(4).class(0, ClassId::Trader).hand(0, &["2C", "3C"]).hand(1, &["KS", "9H"]);
    let card = k.in_hand(0, "2C");
    ability(&mut k, 0, Ability::Trader { card, target: 1 }).unwrap();
    let PromptKind::TraderSwap { hand, .. } = k.prompt(0).unwrap().kind else { panic!("TraderSwap") };
    let take = hand.iter().find(|c| name(c.face) == "KS").unwrap().handle;
    let before = k.state.clone();
    let ev = k.answer(0, Answer::Trade { give: k.in_hand(0, "3C"), take }).unwrap();
    assert_eq!(k.hand_of(0), strs(&["KS"]));
    assert_eq!(k.hand_of(1), strs(&["9H", "3C"]));
    assert_eq!(k.dark_of(), strs(&["2C"]));
    let mut st = before.clone();
    crate::rules::evolve::apply(&mut st, &ev[0]);
    match redact(&before, &ev[0], &st, Viewer::Spectator) {
        Some(ViewEvent::AbilityResolved {
            effect: AbilityEffectView::Traded { swapped: true, given: None, taken: None, .. },
            ..
        }) => {}
        other => panic!("{other:?}"),
    }
    // Declining keeps both hands.
    let mut k = Kit::new(4).class(0, ClassId::Trader).hand(0, &["2C", "3C"]).hand(1, &["KS"]);
    let card = k.in_hand(0, "2C");
    ability(&mut k, 0, Ability::Trader { card, target: 1 }).unwrap();
    k.answer(0, Answer::Decline).unwrap();
    assert_eq!(k.hand_of(1), strs(&["KS"]));
}

/// R5.9.1: a free ability is used only by its owner during its own Ritual and while no action
/// is pending: not in another player's turn, not while its own action awaits a window.
#[test]
fn r5_9_1_free_abilities_only_in_the_owners_ritual_between_actions() {
    let mut k =
        Kit::new(4).class(1, ClassId::Doomreader).hand(1, &["2C", "3C"]).shadow(1, &[("7H", Some(0))]).hand(0, &["9C"]);
    let (card, ghost) = (k.in_hand(1, "2C"), k.ghost(1, "7H"));
    assert!(ability(&mut k, 1, Ability::Doomreader { card, ghost }).is_err(), "seat 0's turn");
    let mut k = k.ritual(1);
    k.state.turn.budget = 2;
    let card = k.in_hand(1, "3C");
    k.act(1, Action::Haunt { card, target: 2 }).unwrap();
    let (card, ghost) = (k.in_hand(1, "2C"), k.ghost(1, "7H"));
    assert!(ability(&mut k, 1, Ability::Doomreader { card, ghost }).is_err(), "an action is pending");
    k.quiet();
    ability(&mut k, 1, Ability::Doomreader { card, ghost }).unwrap();
    assert!(k.shadow_of(1).is_empty(), "between actions it is allowed");
}

/// R5.9.5: the free abilities are exactly those of The Doomreader, The Grimoire of Rejection,
/// The Mimic, The Pyromaniac, The Seer and The Trader: with the budget spent, a Ritual stays
/// open only for these classes.
#[test]
fn r5_9_5_the_free_abilities() {
    let free = [
        ClassId::Doomreader,
        ClassId::GrimoireOfRejection,
        ClassId::Mimic,
        ClassId::Pyromaniac,
        ClassId::Seer,
        ClassId::Trader,
    ];
    for c in ClassId::ALL {
        let mut k = Kit::new(4).class(0, c).hand(0, &["7H", "8D", "2C"]).shadow(0, &[("4S", Some(1))]).hand(1, &["3C"]);
        k.state.turn.budget = 0;
        assert_eq!(crate::rules::hooks::free_ability_available(&k.state, 0), free.contains(&c), "{c:?}");
    }
}
