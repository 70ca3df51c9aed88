//! Class triggers (R6.9): The Priest (R8.21), The Judge (R8.12), The Occultist (R8.18), The
//! Plague (R8.20), The Voodoo Doll (R8.34), The Martyr (R8.15), The Vulture (R8.35), The
//! Gravedigger (R8.8), The Funeral Bell (R8.6), The Lich (R8.14).

use super::*;
use crate::model::action::Action;
use crate::model::classes::TriggerEffect;
use crate::model::command::{Answer, Command};
use crate::model::event::Effect;
use crate::rules::prompt::PromptKind;

fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// R8.21.1: The Priest's Banish first takes the top card of The Dark (also when it Siphons).
#[test]
fn r8_21_priest_takes_the_top_of_the_dark() {
    let mut k =
        Kit::new(4).class(0, ClassId::Priest).hand(0, &["9C"]).shadow(0, &[("9D", Some(1))]).dark(&["KH", "2S"]);
    let (card, ghost) = (k.in_hand(0, "9C"), k.ghost(0, "9D"));
    k.act(0, Action::Banish { card, ghost }).unwrap();
    k.quiet();
    assert_eq!(k.hand_of(0), strs(&["KH"]));
    assert_eq!(k.candle_of(0).last().unwrap(), "9D", "same rank: Siphoned");
    assert_eq!(k.dark_of(), strs(&["9C", "2S"]));
}

/// R8.12.1: The Judge's Sight makes the target Burn 3 after the cards are taken.
#[test]
fn r8_12_judge_burns_three() {
    let mut k =
        Kit::new(4).class(0, ClassId::Judge).hand(0, &["6C"]).hand(1, &["KS"]).candle(1, &["2H", "3H", "4H", "7H"]);
    let card = k.in_hand(0, "6C");
    k.act(0, Action::Sight { card, target: 1 }).unwrap();
    k.quiet();
    assert_eq!(k.hand_of(0), strs(&["KS"]));
    assert!(matches!(k.last_effect(), Some(Effect::SightTaken { burned, .. }) if burned.len() == 3));
    assert_eq!(k.dark_of()[1..], strs(&["4H", "3H", "2H"]));
}

/// R8.18.1-R8.18.2 (Occultist's non-neighbour bonus): it Possesses onto any other Lit player;
/// onto a non-neighbour it moves 2 cards from the top of The Dark under its Candle, once per
/// turn; never onto The Gatekeeper.
#[test]
fn r8_18_occultist() {
    let mut k = Kit::new(5)
        .class(0, ClassId::Occultist)
        .hand(0, &["9C", "9D"])
        .shadow(0, &[("4D", Some(1)), ("5D", Some(1))])
        .dark(&["KH", "QH", "JH"]);
    k.state.turn.budget = 2;
    let (card, ghost) = (k.in_hand(0, "9C"), k.ghost(0, "4D"));
    k.act(0, Action::Possess { card, ghost, destination: 2 }).unwrap();
    k.quiet();
    assert_eq!(k.shadow_of(2).len(), 1);
    assert_eq!(k.candle_of(0)[k.candle_of(0).len() - 2..], strs(&["KH", "QH"]));
    let (card, ghost) = (k.in_hand(0, "9D"), k.ghost(0, "5D"));
    k.act(0, Action::Possess { card, ghost, destination: 3 }).unwrap();
    k.quiet();
    assert!(matches!(k.last_effect(), Some(Effect::Possessed { bonus, .. }) if bonus.is_empty()), "once per turn");
    let mut k = Kit::new(5)
        .class(0, ClassId::Occultist)
        .class(2, ClassId::Gatekeeper)
        .hand(0, &["9C"])
        .shadow(0, &[("4D", Some(1))]);
    let (card, ghost) = (k.in_hand(0, "9C"), k.ghost(0, "4D"));
    assert_eq!(k.act(0, Action::Possess { card, ghost, destination: 2 }).unwrap_err().rule, "R8.7.1");
}

/// R8.20.1-R8.20.6 (a Plague ghost is live while The Plague is Lit, its visited set starts with
/// the Shadow it first entered and grows on every entry; a Plague spread never reaching a player it visited): a Banished live
/// Plague ghost spreads to a neighbour of the remover not visited and not The Plague; with
/// none it goes to The Dark; with two the remover chooses (prompt PlagueSpread); a Panic
/// removal never spreads.
#[test]
fn r8_20_plague_spreads() {
    // Seat 0 removes; its neighbours are 1 and 4; The Plague is seat 2.
    let base = || Kit::new(5).class(2, ClassId::Plague).hand(0, &["9C"]).shadow(0, &[("3D", Some(2))]);
    let banish = |k: &mut Kit| {
        let (card, ghost) = (k.in_hand(0, "9C"), k.ghost(0, "3D"));
        k.act(0, Action::Banish { card, ghost }).unwrap();
        k.quiet();
    };
    // Two eligible: the remover chooses.
    let mut k = base();
    banish(&mut k);
    match k.prompt(0).unwrap().kind {
        PromptKind::PlagueSpread { recipients, .. } => assert_eq!(recipients, vec![1, 4]),
        other => panic!("{other:?}"),
    }
    k.answer(0, Answer::Spread { to: 4 }).unwrap();
    assert_eq!(k.shadow_of(4), vec![("3D".to_string(), Some(2))]);
    assert_eq!(k.state.players[4].shadow[0].visited, vec![0, 4]);
    // Seat 1 visited before: only seat 4.
    let mut k = base();
    k.state.players[0].shadow[0].visited = vec![1, 0];
    banish(&mut k);
    assert_eq!(k.shadow_of(4).len(), 1);
    assert!(k.shadow_of(1).is_empty());
    // Both visited: to The Dark.
    let mut k = base();
    k.state.players[0].shadow[0].visited = vec![1, 4, 0];
    banish(&mut k);
    assert!(k.shadow_of(1).is_empty() && k.shadow_of(4).is_empty());
    assert_eq!(k.dark_of(), strs(&["9C", "3D"]));
    // The Plague out: an ordinary ghost (R8.0.4).
    let mut k = base().out(2, 5);
    banish(&mut k);
    assert_eq!(k.dark_of(), strs(&["9C", "3D"]));
    // Panic never spreads.
    let mut k = Kit::new(5)
        .class(2, ClassId::Plague)
        .shadow(0, &[("3D", Some(2))])
        .candle(0, &["KC", "2C", "2H"])
        .turn_start(0, 1);
    k.settle();
    k.answer(0, Answer::Panic { ghost: k.ghost(0, "3D") }).unwrap();
    assert!((0..5).all(|s| k.shadow_of(s).is_empty()));
    // The Plague's own Haunt starts a visited set {target}.
    let mut k = Kit::new(5).class(0, ClassId::Plague).hand(0, &["3D"]);
    let card = k.in_hand(0, "3D");
    k.act(0, Action::Haunt { card, target: 1 }).unwrap();
    k.quiet();
    assert_eq!(k.state.players[1].shadow[0].visited, vec![1]);
}

/// R8.34.1-R8.34.3 (Voodoo Doll reflection through Mirror and Possess): after its Haunting
/// Burns, each ♠/♣/♦ ghost with a Lit haunter makes that haunter Burn 1, whatever route brought
/// it; ♥ and haunter-less ghosts do not; nothing after a Reprieve.
#[test]
fn r8_34_voodoo_doll_reflects() {
    let mut k = Kit::new(4)
        .class(0, ClassId::VoodooDoll)
        .shadow(0, &[("4C", Some(1)), ("5H", Some(2)), ("6S", None), ("7D", Some(1))])
        .candle(1, &["2C", "3C", "8C"])
        .turn_start(0, 1);
    k.settle();
    k.answer(0, Answer::Endure).unwrap();
    let burns = k.events.iter().find_map(|e| match e {
        Event::Triggered { effect: TriggerEffect::Voodoo { burns }, .. } => Some(burns.clone()),
        _ => None,
    });
    assert_eq!(burns.map(|b| b.iter().map(|(s, c)| (*s, c.len())).collect::<Vec<_>>()), Some(vec![(1, 2)]));
    assert_eq!(k.candle_of(1), strs(&["8C"]));
    // Mirror: seat 1 swaps its Shadow (a 3♣ seat 2 Haunted) onto The Voodoo Doll; Possess:
    // seat 3 moves a 2♦ it Haunted itself... from seat 2's Haunt.
    let mut k = Kit::new(4)
        .class(0, ClassId::VoodooDoll)
        .hand(1, &["JC"])
        .shadow(1, &[("3C", Some(2))])
        .hand(3, &["9H"])
        .shadow(3, &[("2D", Some(2))])
        .ritual(1);
    let card = k.in_hand(1, "JC");
    k.act(1, Action::Mirror { card, target: 0 }).unwrap();
    k.quiet();
    k.at_ritual(3);
    let (card, ghost) = (k.in_hand(3, "9H"), k.ghost(3, "2D"));
    k.act(3, Action::Possess { card, ghost, destination: 0 }).unwrap();
    k.quiet();
    assert_eq!(k.shadow_of(0).len(), 2);
    let mut k = k.turn_start(0, 2);
    k.settle();
    k.events.clear();
    k.answer(0, Answer::Endure).unwrap();
    let burns = k.events.iter().find_map(|e| match e {
        Event::Triggered { effect: TriggerEffect::Voodoo { burns }, .. } => Some(burns.clone()),
        _ => None,
    });
    assert_eq!(burns.map(|b| b.iter().map(|(s, c)| (*s, c.len())).collect::<Vec<_>>()), Some(vec![(2, 2)]));
}

/// R8.15.1: The Martyr may draw 1 after Burning in its own Haunting.
#[test]
fn r8_15_martyr_draws() {
    let mut k = Kit::new(4)
        .class(0, ClassId::Martyr)
        .shadow(0, &[("4C", Some(1))])
        .candle(0, &["2H", "3H", "4H", "6H"])
        .turn_start(0, 1);
    k.settle();
    k.answer(0, Answer::Endure).unwrap();
    assert!(matches!(k.prompt(0).unwrap().kind, PromptKind::MartyrDraw));
    k.answer(0, Answer::Draw).unwrap();
    assert_eq!(k.hand_of(0), strs(&["3H", "4H"]));
    // With no Burn (Reprieve) nothing is offered.
    let mut k = Kit::new(4).class(0, ClassId::Martyr).shadow(0, &[("4C", Some(1))]).hand(0, &["AS"]).turn_start(0, 1);
    k.settle();
    k.answer(0, Answer::Reprieve { ace: k.in_hand(0, "AS") }).unwrap();
    assert!(matches!(k.prompt(0).unwrap().kind, PromptKind::Ritual { .. }));
}

/// R8.35.1, B15 variant: a neighbour's elimination gives The Vulture up to 5 cards from the
/// top of The Dark, under its Candle.
#[test]
fn r8_35_vulture() {
    let mut k =
        Kit::new(4).class(2, ClassId::Vulture).candle(1, &[]).dark(&["2H", "3H", "4H", "6H", "7H", "8H"]).am_i_alive(1);
    let c2 = k.candle_of(2).len();
    k.settle();
    assert!(!k.lit(1));
    assert_eq!(k.candle_of(2)[c2 - 1..], strs(&["2H", "3H", "4H", "6H", "7H"]), "(seat 2 has drawn since)");
    assert_eq!(k.dark_of(), strs(&["8H"]));
}

/// R8.8.1: The Gravedigger takes a dead neighbour's Candle beneath its own, order kept.
#[test]
fn r8_8_gravedigger() {
    let mut k = Kit::new(4)
        .class(2, ClassId::Gravedigger)
        .shadow(1, &[("4H", None), ("2H", None), ("6H", None)])
        .candle(1, &["KS", "QS"])
        .am_i_alive(1);
    let c2 = k.candle_of(2).len();
    k.settle();
    k.send(Command::Timeout).unwrap();
    assert!(!k.lit(1));
    assert_eq!(k.candle_of(2)[c2..], strs(&["KS", "QS"]));
}

/// R8.6.1: at another player's elimination every other Lit player Burns 1, clockwise from the
/// dead player's former left neighbour; The Funeral Bell does not.
#[test]
fn r8_6_funeral_bell() {
    let mut k = Kit::new(4).class(3, ClassId::FuneralBell).candle(1, &[]).am_i_alive(1);
    let sizes: Vec<usize> = (0..4).map(|s| k.candle_of(s).len()).collect();
    k.settle();
    assert!(!k.lit(1));
    let bell = k.events.iter().find_map(|e| match e {
        Event::Triggered { effect: TriggerEffect::FuneralBell { burns, .. }, .. } => Some(burns.clone()),
        _ => None,
    });
    assert_eq!(bell.unwrap().iter().map(|(s, _)| *s).collect::<Vec<_>>(), vec![2, 0]);
    assert_eq!(k.candle_of(3).len(), sizes[3]);
    assert_eq!(k.candle_of(0).len(), sizes[0] - 1);
}

/// R8.14.1-R8.14.3 (Lich reviving once): Possessed, The Lich splits its ghosts and takes the
/// top 2 of each other Candle instead of falling; the second time it is eliminated; a
/// concession is never replaced.
#[test]
fn r8_14_lich_revives_once() {
    let possessed = [("4H", None), ("2H", None), ("6H", None)];
    let mut k = Kit::new(4).class(0, ClassId::Lich).shadow(0, &possessed).candle(0, &["2C"]).am_i_alive(0);
    let others: Vec<usize> = (1..4).map(|s| k.candle_of(s).len()).collect();
    k.settle();
    assert!(matches!(k.prompt(0).unwrap().kind, PromptKind::DeathSplit { .. }), "The Lich splits its ghosts");
    k.send(Command::Timeout).unwrap();
    assert!(k.lit(0));
    assert!(k.state.players[0].once_used);
    assert!(k.shadow_of(0).is_empty());
    assert_eq!(k.shadow_of(1).len() + k.shadow_of(3).len(), 3);
    assert_eq!(k.candle_of(0).len(), 1 + 6);
    for (i, s) in (1..4).enumerate() {
        assert!(k.candle_of(s).len() <= others[i] - 2 + 1, "seat {s} gave 2");
    }
    assert!(!k.events.iter().any(|e| matches!(e, Event::EliminationStarted { .. })));
    // The second time: eliminated.
    let mut k = Kit::new(4).class(0, ClassId::Lich).shadow(0, &possessed).am_i_alive(0);
    k.state.players[0].once_used = true;
    k.settle();
    k.send(Command::Timeout).unwrap();
    assert!(!k.lit(0));
    // A concession is never replaced.
    let mut k = Kit::new(4).class(0, ClassId::Lich);
    k.send(Command::Concede { seat: 0 }).unwrap();
    assert!(!k.lit(0));
}

/// R8.6.2, R6.9.2: the Funeral Bell's Burns eliminate nobody (a Lit player with an empty Candle
/// stays Lit) and open no reaction window.
#[test]
fn r8_6_2_funeral_bell_burns_eliminate_nobody() {
    let mut k = Kit::new(4).class(3, ClassId::FuneralBell).candle(1, &[]).candle(0, &[]).hand(0, &["5H"]).am_i_alive(1);
    k.settle();
    assert!(!k.lit(1));
    assert!(k.lit(0), "an empty Candle Burned by the Bell is no Consumption");
    assert_eq!(k.hand_of(0), strs(&["5H"]));
    assert!(!k.asked().iter().any(|&s| matches!(k.prompt(s).map(|p| p.kind), Some(PromptKind::Salt { .. }))));
}

/// R6.9.4: a trigger whose owner is not Lit does nothing: an eliminated Funeral Bell rings for
/// nobody.
#[test]
fn r6_9_4_a_trigger_of_an_eliminated_owner_does_nothing() {
    let mut k = Kit::new(5).class(4, ClassId::FuneralBell).hand(4, &[]).shadow(4, &[]).candle(4, &[]).out(4, 5);
    k = k.candle(1, &[]).am_i_alive(1);
    let c3 = k.candle_of(3).len();
    k.settle();
    assert!(!k.lit(1));
    assert!(!k.events.iter().any(|e| matches!(e, Event::Triggered { .. })));
    assert_eq!(k.candle_of(3).len(), c3);
}

/// R8.8.2, R6.9.3, R8.0.6, R6.9.1: two Gravediggers (duplicates) beside a dead player: the
/// triggers resolve from the active player clockwise, so the first in that order takes the
/// Candle and the other gets nothing; R8.8.3: a Consumed neighbour leaves nothing to take.
#[test]
fn r8_8_2_r8_8_3_gravedigger_order_and_consumed_neighbours() {
    let mut k = Kit::new(4)
        .class(0, ClassId::Gravedigger)
        .class(2, ClassId::Gravedigger)
        .shadow(1, &[("4H", None), ("2H", None), ("6H", None)])
        .candle(1, &["KS", "QS"])
        .am_i_alive(1);
    let (c0, c2) = (k.candle_of(0).len(), k.candle_of(2).len());
    k.settle();
    k.send(Command::Timeout).unwrap();
    assert!(!k.lit(1));
    assert_eq!(k.candle_of(2)[c2..], strs(&["KS", "QS"]), "seat 2 comes first clockwise from seat 1");
    assert_eq!(k.candle_of(0).len(), c0);
    let mut k = Kit::new(4).class(2, ClassId::Gravedigger).candle(1, &[]).am_i_alive(1);
    let c2 = k.candle_of(2).len();
    k.settle();
    assert!(!k.lit(1));
    assert!(k.candle_of(2).len() <= c2, "nothing gained from a Consumed neighbour");
}

/// R4.2.8: after the Haunting Burns come The Voodoo Doll's reflection, then (in its own
/// Haunting) The Martyr's option: the events follow the Burns.
#[test]
fn r4_2_8_voodoo_reflection_after_the_burns() {
    let mut k = Kit::new(4)
        .class(0, ClassId::VoodooDoll)
        .shadow(0, &[("4C", Some(1))])
        .candle(0, &["2H", "3H", "4H", "6H"])
        .turn_start(0, 1);
    k.settle();
    k.answer(0, Answer::Endure).unwrap();
    let order: Vec<&str> = k
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Endured { .. } => Some("endured"),
            Event::Triggered { .. } => Some("triggered"),
            _ => None,
        })
        .collect();
    assert_eq!(order, vec!["endured", "triggered"]);
}

/// R8.20.2: a Plague ghost moved by Possess adds the new Shadow's owner to its visited set.
#[test]
fn r8_20_2_possess_adds_to_the_visited_set() {
    let mut k = Kit::new(5).class(2, ClassId::Plague).hand(0, &["9C"]).shadow(0, &[("3D", Some(2))]);
    let (card, ghost) = (k.in_hand(0, "9C"), k.ghost(0, "3D"));
    k.act(0, Action::Possess { card, ghost, destination: 1 }).unwrap();
    k.quiet();
    assert_eq!(k.state.players[1].shadow[0].visited, vec![0, 1]);
}
