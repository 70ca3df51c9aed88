//! Passive classes: Clown (R8.1), Exorcist (R8.4), Gatekeeper (R8.7), Hoarder (R8.11), Leech
//! (R8.13), Phantom (R8.19), Sadist (R8.23), Sealbinder (R8.24), Silence (R8.27), Skeptic
//! (R8.28), Sufferer (R8.29), Survivor (R8.30), Warlock (R8.36), Witness (R8.38, R7.8).

use super::*;
use crate::model::action::Action;
use crate::model::command::Answer;
use crate::model::event::{Effect, EliminationCause, EndReason};
use crate::rules::prompt::PromptKind;

fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// R8.11: The Hoarder keeps 8 cards in its Burden; a 9th is discarded.
#[test]
fn r8_11_hoarder_hand_limit_8() {
    let hand = ["2C", "3C", "4C", "6C", "7C", "8C", "9C", "10C"];
    let mut k = Kit::new(4).class(0, ClassId::Hoarder).hand(0, &hand).ritual(0);
    k.answer(0, Answer::EndRitual).unwrap();
    assert!(k.prompt(0).is_none_or(|p| !matches!(p.kind, PromptKind::BurdenDiscard { .. })));
    let mut k = Kit::new(4).class(0, ClassId::Hoarder).hand(0, &hand).hand(0, &[&hand[..], &["2D"]].concat()).ritual(0);
    k.answer(0, Answer::EndRitual).unwrap();
    assert!(matches!(k.prompt(0).unwrap().kind, PromptKind::BurdenDiscard { count: 1, .. }));
}

/// R8.29.1: The Sufferer survives 3 ghosts of one suit and is Possessed with 4 (B14 variant).
#[test]
fn r8_29_sufferer_threshold_4() {
    let mut k =
        Kit::new(4).class(0, ClassId::Sufferer).shadow(0, &[("4H", None), ("2H", None), ("6H", None)]).am_i_alive(0);
    k.settle();
    assert!(k.lit(0));
    let mut k = Kit::new(4)
        .class(0, ClassId::Sufferer)
        .shadow(0, &[("4H", None), ("2H", None), ("6H", None), ("9H", None)])
        .am_i_alive(0);
    k.settle();
    k.send(crate::model::command::Command::Timeout).unwrap();
    assert!(!k.lit(0));
    assert!(k.events.iter().any(|e| matches!(e, Event::EliminationStarted { cause: EliminationCause::Possessed, .. })));
}

/// R8.30.1: The Survivor holding 2 cards Burns nothing for Endure; with 3 it Burns.
#[test]
fn r8_30_survivor_burns_nothing_with_two_cards() {
    for (hand, burned) in [(&["2C", "3C"][..], 0usize), (&["2C", "3C", "4C"][..], 2)] {
        let mut k = Kit::new(4)
            .class(0, ClassId::Survivor)
            .hand(0, hand)
            .shadow(0, &[("4H", Some(1)), ("2S", Some(1))])
            .turn_start(0, 1);
        k.settle();
        let before = k.candle_of(0).len();
        k.answer(0, Answer::Endure).unwrap();
        // The Draw follows: one more card leaves the Candle.
        assert_eq!(before - k.candle_of(0).len(), burned + 1, "hand {hand:?}");
    }
}

/// R8.27.1, R6.2, R6.1.2, R6.6.4: no Salt window for The Silence (BOO! included: nobody is asked,
/// so nobody can be protected); B10 variant.
#[test]
fn r8_27_silence_opens_no_salt_window() {
    let mut k = Kit::new(4).class(0, ClassId::Silence).hand(0, &["9C"]).hand(1, &["5H"]).hand(2, &["5D"]);
    let card = k.in_hand(0, "9C");
    k.act(0, Action::Haunt { card, target: 1 }).unwrap();
    assert_eq!(k.shadow_of(1), vec![("9C".to_string(), Some(0))]);
    assert_eq!(k.hand_of(1), strs(&["5H"]), "nobody was asked");
    let mut k = Kit::new(4).class(0, ClassId::Silence).hand(0, &["Joker"]).hand(1, &["5H"]);
    let card = k.in_hand(0, "Joker");
    k.act(0, Action::Boo { card }).unwrap();
    assert!(matches!(k.last_effect(), Some(Effect::Boo { reveals }) if reveals.len() == 3));
    assert_eq!(k.hand_of(1), strs(&["5H"]), "nobody was asked");
}

/// R8.27.1: The Silence may Salt others; R8.9.4: a Grimoire still rejects The Silence's card.
#[test]
fn r8_27_silence_salts_others_and_is_rejected_by_a_grimoire() {
    let mut k = Kit::new(3).class(1, ClassId::Silence).hand(0, &["9C"]).hand(1, &["5H"]);
    let card = k.in_hand(0, "9C");
    k.act(0, Action::Haunt { card, target: 1 }).unwrap();
    k.answer(1, Answer::Salt { card: k.in_hand(1, "5H") }).unwrap();
    k.quiet();
    assert!(k.shadow_of(1).is_empty());
    let mut k = Kit::new(3)
        .class(0, ClassId::Silence)
        .class(1, ClassId::GrimoireOfRejection)
        .hand(0, &["9C"])
        .pages(1, &["9D"]);
    let card = k.in_hand(0, "9C");
    k.act(0, Action::Haunt { card, target: 2 }).unwrap();
    assert_eq!(k.asked(), vec![1]);
    k.answer(1, Answer::React { card: Some(k.page(1, "9D")) }).unwrap();
    assert!(k.shadow_of(2).is_empty());
    assert_eq!(k.dark_of(), strs(&["9D", "9C"]));
}

/// R8.28.1: a Drain takes nothing from The Skeptic, still from the other neighbour.
#[test]
fn r8_28_skeptic_is_not_drained() {
    let mut k = Kit::new(4).class(1, ClassId::Skeptic).hand(0, &["4C"]);
    let (c1, c3) = (k.candle_of(1).len(), k.candle_of(3).len());
    let card = k.in_hand(0, "4C");
    k.act(0, Action::Drain { card }).unwrap();
    k.quiet();
    assert!(matches!(k.last_effect(), Some(Effect::Drained { packets }) if packets.len() == 1 && packets[0].seat == 3));
    let _ = (c1, c3);
}

/// R8.23.1: The Sadist's Scare discards 3 cards.
#[test]
fn r8_23_sadist_scares_three() {
    let mut k = Kit::new(4).class(0, ClassId::Sadist).hand(0, &["3C"]).hand(1, &["2D", "4D", "6D", "7D"]);
    let card = k.in_hand(0, "3C");
    k.act(0, Action::Scare { card, target: 1 }).unwrap();
    k.quiet();
    assert!(matches!(k.last_effect(), Some(Effect::Scared { discarded, .. }) if discarded.len() == 3));
}

/// R8.13.1: The Leech's Banish always Siphons, never a Spade-cursed ghost.
#[test]
fn r8_13_leech_siphons_every_banish() {
    let mut k =
        Kit::new(4).class(0, ClassId::Leech).hand(0, &["9C", "9H"]).shadow(0, &[("3D", Some(1)), ("2S", Some(1))]);
    let (card, ghost) = (k.in_hand(0, "9C"), k.ghost(0, "3D"));
    k.act(0, Action::Banish { card, ghost }).unwrap();
    k.quiet();
    assert_eq!(k.candle_of(0).last().unwrap(), "3D");
    k.at_ritual(0);
    let (card, ghost) = (k.in_hand(0, "9H"), k.ghost(0, "2S"));
    k.act(0, Action::Banish { card, ghost }).unwrap();
    k.quiet();
    assert_eq!(k.dark_of()[..2], strs(&["9H", "2S"]));
}

/// R8.4.1, B7: The Exorcist's Cleanse with 7♣ on 2♦ then 8♠: 2♦ Siphoned, 8♠ to The Dark;
/// it must name two ghosts when two exist; with one ghost, one.
#[test]
fn r8_4_exorcist_cleanses_two() {
    let mut k = Kit::new(4).class(0, ClassId::Exorcist).hand(0, &["7C"]).shadow(0, &[("2D", Some(1)), ("8S", Some(1))]);
    let (card, a, b) = (k.in_hand(0, "7C"), k.ghost(0, "2D"), k.ghost(0, "8S"));
    assert_eq!(k.act(0, Action::Cleanse { card, ghost: a, second: None }).unwrap_err().rule, "R8.4.1");
    k.act(0, Action::Cleanse { card, ghost: a, second: Some(b) }).unwrap();
    k.quiet();
    assert!(k.shadow_of(0).is_empty());
    assert_eq!(k.candle_of(0).last().unwrap(), "2D");
    assert_eq!(k.dark_of(), strs(&["7C", "8S"]));
    let mut k = Kit::new(4).class(0, ClassId::Exorcist).hand(0, &["7C"]).shadow(0, &[("2D", Some(1))]);
    let (card, a) = (k.in_hand(0, "7C"), k.ghost(0, "2D"));
    k.act(0, Action::Cleanse { card, ghost: a, second: None }).unwrap();
    k.quiet();
    assert_eq!(k.candle_of(0).last().unwrap(), "2D");
    // Without the class, a second ghost is refused.
    let mut k = Kit::new(4).hand(0, &["7C"]).shadow(0, &[("2D", Some(1)), ("8S", Some(1))]);
    let (card, a, b) = (k.in_hand(0, "7C"), k.ghost(0, "2D"), k.ghost(0, "8S"));
    assert_eq!(k.act(0, Action::Cleanse { card, ghost: a, second: Some(b) }).unwrap_err().rule, "R5.5.7");
}

/// R8.36.1, B6: The Warlock Haunts with a face card or a Joker; others cannot; R8.36.2 The Hex
/// is not prompted; R8.36.3 it cannot Banish with a Joker.
#[test]
fn r8_36_warlock_haunts_with_face_cards_and_jokers() {
    let mut k = Kit::new(4).hand(0, &["QH"]);
    let card = k.in_hand(0, "QH");
    assert_eq!(k.act(0, Action::Haunt { card, target: 1 }).unwrap_err().rule, "R5.2");
    let mut k =
        Kit::new(4).class(0, ClassId::Warlock).class(1, ClassId::Hex).hand(0, &["QH", "Joker"]).hand(1, &["2H"]);
    let card = k.in_hand(0, "QH");
    k.act(0, Action::Haunt { card, target: 1 }).unwrap();
    assert!(k.asked().iter().all(|&s| !matches!(k.prompt(s).unwrap().kind, PromptKind::Reaction { .. })));
    k.quiet();
    assert_eq!(k.shadow_of(1), vec![("QH".to_string(), Some(0))]);
    k.at_ritual(0);
    let card = k.in_hand(0, "Joker");
    k.act(0, Action::Haunt { card, target: 3 }).unwrap();
    k.quiet();
    assert_eq!(k.state.players[3].shadow[0].suit, None, "a Joker ghost has no suit");
}

/// R8.19.1: no Haunt may target The Phantom with an empty hand; Possess still may.
#[test]
fn r8_19_phantom_with_empty_hand() {
    let mut k = Kit::new(4).class(1, ClassId::Phantom).hand(0, &["3C", "9C"]).shadow(0, &[("4D", Some(3))]);
    let card = k.in_hand(0, "3C");
    assert_eq!(k.act(0, Action::Haunt { card, target: 1 }).unwrap_err().rule, "R8.19.1");
    let (card, ghost) = (k.in_hand(0, "9C"), k.ghost(0, "4D"));
    k.act(0, Action::Possess { card, ghost, destination: 1 }).unwrap();
    k.quiet();
    assert_eq!(k.shadow_of(1).len(), 1);
    let mut k = Kit::new(4).class(1, ClassId::Phantom).hand(1, &["2D"]).hand(0, &["3C"]);
    let card = k.in_hand(0, "3C");
    k.act(0, Action::Haunt { card, target: 1 }).unwrap();
}

/// R8.7.1-R8.7.3 (Gatekeeper vs Mirror/Possess): others' Possess and Mirror cannot choose it;
/// a Haunt can; its own Mirror works.
#[test]
fn r8_7_gatekeeper_blocks_possess_and_mirror() {
    let mut k = Kit::new(4).class(1, ClassId::Gatekeeper).hand(0, &["9C", "JC", "3C"]).shadow(0, &[("4D", Some(3))]);
    let (card, ghost) = (k.in_hand(0, "9C"), k.ghost(0, "4D"));
    assert_eq!(k.act(0, Action::Possess { card, ghost, destination: 1 }).unwrap_err().rule, "R8.7.1");
    let card = k.in_hand(0, "JC");
    assert_eq!(k.act(0, Action::Mirror { card, target: 1 }).unwrap_err().rule, "R8.7.2");
    let card = k.in_hand(0, "3C");
    k.act(0, Action::Haunt { card, target: 1 }).unwrap();
    k.quiet();
    assert_eq!(k.shadow_of(1).len(), 1);
    let mut k = Kit::new(4).class(0, ClassId::Gatekeeper).hand(0, &["JC"]).shadow(1, &[("4D", None)]);
    let card = k.in_hand(0, "JC");
    k.act(0, Action::Mirror { card, target: 1 }).unwrap();
    k.quiet();
    assert_eq!(k.shadow_of(0).len(), 1);
}

/// R8.24.1-R8.24.2 (Sealbinder vs Recall/Possess/Mirror): a live Sealbinder ghost cannot be
/// Recalled or Possessed and forbids Mirror; Banish works; once The Sealbinder is out (R8.0.4)
/// the ghost is ordinary.
#[test]
fn r8_24_sealbinder_ghosts_are_bound() {
    let base =
        || Kit::new(4).class(1, ClassId::Sealbinder).hand(0, &["8C", "9C", "JC", "10D"]).shadow(0, &[("4D", Some(1))]);
    let mut k = base();
    let (card, ghost) = (k.in_hand(0, "8C"), k.ghost(0, "4D"));
    assert_eq!(k.act(0, Action::Recall { card, owner: 0, ghost }).unwrap_err().rule, "R8.24.1");
    let card = k.in_hand(0, "9C");
    assert_eq!(k.act(0, Action::Possess { card, ghost, destination: 3 }).unwrap_err().rule, "R8.24.1");
    let card = k.in_hand(0, "JC");
    assert_eq!(k.act(0, Action::Mirror { card, target: 3 }).unwrap_err().rule, "R8.24.1");
    let card = k.in_hand(0, "10D");
    k.act(0, Action::Banish { card, ghost }).unwrap();
    k.quiet();
    assert!(k.shadow_of(0).is_empty());
    let mut k = base().out(1, 4);
    let (card, ghost) = (k.in_hand(0, "8C"), k.ghost(0, "4D"));
    k.act(0, Action::Recall { card, owner: 0, ghost }).unwrap();
}

/// R8.1.1-R8.1.2 (Clown vs number Banish): a live Clown ghost refuses a number-card Banish;
/// a face card Banishes it; Cleanse removes it; once The Clown is out it is ordinary.
#[test]
fn r8_1_clown_ghosts_refuse_number_banish() {
    let mut k = Kit::new(4)
        .class(1, ClassId::Clown)
        .hand(0, &["9C", "JC", "7H"])
        .shadow(0, &[("4D", Some(1)), ("3D", Some(1))]);
    let (card, ghost) = (k.in_hand(0, "9C"), k.ghost(0, "4D"));
    assert_eq!(k.act(0, Action::Banish { card, ghost }).unwrap_err().rule, "R8.1.1");
    let card = k.in_hand(0, "JC");
    k.act(0, Action::Banish { card, ghost }).unwrap();
    k.quiet();
    k.at_ritual(0);
    let (card, ghost) = (k.in_hand(0, "7H"), k.ghost(0, "3D"));
    k.act(0, Action::Cleanse { card, ghost, second: None }).unwrap();
    k.quiet();
    assert!(k.shadow_of(0).is_empty());
    let mut k = Kit::new(4).class(1, ClassId::Clown).hand(0, &["9C"]).shadow(0, &[("4D", Some(1))]).out(1, 4);
    let (card, ghost) = (k.in_hand(0, "9C"), k.ghost(0, "4D"));
    k.act(0, Action::Banish { card, ghost }).unwrap();
}

/// R7.8.2, R7.8.4, R8.38, R8.38.1, R7.1 (Witness making both lose, eliminating nobody): when two players are Lit and one is The Witness,
/// the game ends at once with no winner; both share the placing 2.
#[test]
fn r8_38_witness_makes_both_lose() {
    let mut k = Kit::new(4)
        .class(2, ClassId::Witness)
        .out(3, 4)
        .shadow(0, &[("4H", None), ("2H", None), ("6H", None)])
        .am_i_alive(0);
    k.settle();
    k.send(crate::model::command::Command::Timeout).unwrap();
    let r = k.state.result().expect("ended");
    assert_eq!(r.winner, None);
    assert_eq!(r.reason, EndReason::Witnessed);
    assert_eq!(r.placings, vec![3, 2, 2, 4]);
    assert!(k.lit(1) && k.lit(2), "R7.1: the Witness rule eliminates nobody");
    assert!(r.last_lit.is_empty());
}

/// R7.8.1: The Witness never wins: placed first alone at the hard end of the Guttering (largest
/// Candle), it is 1st but there is no winner.
#[test]
fn r7_8_1_the_witness_never_wins_the_guttering() {
    let mut s = settings(4);
    s.round_limit = 10;
    let mut k =
        Kit::with(s).class(1, ClassId::Witness).candle_size(0, 4).candle_size(2, 4).candle_size(1, 12).out(3, 4);
    k.state.turn.round = 20;
    let mut k = k.am_i_alive(2);
    k.settle();
    let r = k.state.result().expect("the hard end");
    assert_eq!(r.reason, EndReason::Guttered);
    assert_eq!(r.placings[1], 1, "The Witness is placed first");
    assert_eq!(r.winner, None);
}

/// R7.8.3: if The Witness would be the only Lit player, the game ends with no winner (result
/// Witnessed, R7.8.4).
#[test]
fn r7_8_3_the_witness_alone_ends_with_no_winner() {
    let mut k = Kit::new(3).class(0, ClassId::Witness).candle(1, &[]).out(2, 3).am_i_alive(1);
    // Seat 1 is Consumed, which would leave The Witness alone (R7.8.2 would have ended the game
    // earlier at a real table; the position checks the rule directly).
    k.settle();
    let r = k.state.result().expect("ended");
    assert_eq!((r.winner, r.reason), (None, EndReason::Witnessed));
}
