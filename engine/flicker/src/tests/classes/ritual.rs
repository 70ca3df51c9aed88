//! Class Ritual actions: The Fatalist (R8.5), The Usurer (R8.33), The Watcher's Sight (R8.37).
//! (Build a Wall: reactions.rs.)

use super::*;
use crate::model::action::Action;
use crate::model::card::Suit;
use crate::model::command::Answer;
use crate::model::event::Effect;
use crate::rules::prompt::PromptKind;

fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// R8.5.1-R8.5.5, B7: Alter a suit (any Lit player's ghost, Salt-able, W1); the new suit counts
/// for Possession and the Spade curse; a Joker ghost cannot be chosen.
#[test]
fn r8_5_fatalist_alters_a_suit() {
    let mut k = Kit::new(4)
        .class(0, ClassId::Fatalist)
        .hand(0, &["2C", "3C"])
        .shadow(1, &[("6H", Some(0)), ("Joker", Some(0))]);
    let (card, ghost) = (k.in_hand(0, "2C"), k.ghost(1, "Joker"));
    assert_eq!(k.act(0, Action::AlterSuit { card, owner: 1, ghost, suit: Suit::Clubs }).unwrap_err().rule, "R8.5.5");
    let ghost = k.ghost(1, "6H");
    assert_eq!(k.act(0, Action::AlterSuit { card, owner: 1, ghost, suit: Suit::Hearts }).unwrap_err().rule, "R8.5.1");
    k.act(0, Action::AlterSuit { card, owner: 1, ghost, suit: Suit::Spades }).unwrap();
    k.quiet();
    assert_eq!(k.state.players[1].shadow[0].suit, Some(Suit::Spades));
    // B7: a 6♥ no longer beats it (♥ < ♠); a 6♠ does, and the cursed ghost goes to The Dark.
    let mut k = Kit::new(4).hand(1, &["6H", "6S"]).shadow(1, &[("6H", Some(0))]).ritual(1);
    k.state.players[1].shadow[0].suit = Some(Suit::Spades);
    let ghost = k.ghost(1, "6H");
    let card = k.in_hand(1, "6H");
    assert_eq!(k.act(1, Action::Banish { card, ghost }).unwrap_err().rule, "R5.3.2");
    let card = k.in_hand(1, "6S");
    k.act(1, Action::Banish { card, ghost }).unwrap();
    k.quiet();
    assert_eq!(k.dark_of()[..2], strs(&["6S", "6H"]));
    // Not The Fatalist: refused.
    let mut k = Kit::new(4).hand(0, &["2C"]).shadow(1, &[("6H", Some(0))]);
    let (card, ghost) = (k.in_hand(0, "2C"), k.ghost(1, "6H"));
    assert_eq!(k.act(0, Action::AlterSuit { card, owner: 1, ghost, suit: Suit::Spades }).unwrap_err().rule, "R8.5.1");
}

/// R8.33.1-R8.33.2: Usurp takes 2 random cards, then the neighbour draws 1; it plays no card
/// (no Grimoire), and can be Salted.
#[test]
fn r8_33_usurer() {
    let mut k = Kit::new(4)
        .class(0, ClassId::Usurer)
        .class(1, ClassId::GrimoireOfRejection)
        .pages(1, &["2C"])
        .hand(1, &["KS", "9H", "2D"])
        .candle(1, &["4C"]);
    let p = k.prompt(0).unwrap();
    assert!(matches!(p.kind, PromptKind::Ritual { ref class_actions, .. } if !class_actions.is_empty()));
    k.act(0, Action::Usurp { target: 1 }).unwrap();
    k.quiet();
    assert_eq!(k.hand_of(0).len(), 2);
    match k.last_effect() {
        Some(Effect::Usurped { taken, drawn, .. }) => {
            assert_eq!(taken.len(), 2);
            assert_eq!(drawn.map(|c| name(k.state.face(c))), Some("4C".to_string()));
        }
        other => panic!("{other:?}"),
    }
    assert!(!k.events.iter().any(|e| matches!(e, Event::Reacted { .. } | Event::Declined { .. })));
    let mut k = Kit::new(4).class(0, ClassId::Usurer).hand(1, &["KS", "5H"]);
    k.act(0, Action::Usurp { target: 1 }).unwrap();
    k.answer(1, Answer::Salt { card: k.in_hand(1, "5H") }).unwrap();
    k.quiet();
    assert!(k.hand_of(0).is_empty(), "the Salt stood: nothing taken");
    assert!(k.last_effect().is_none());
}

/// R8.37.1, R11.31: The Watcher's Sight sees both neighbours' hands and takes 0-2 from each;
/// it cannot declare an ordinary Sight.
#[test]
fn r8_37_watcher() {
    let mut k = Kit::new(4).class(0, ClassId::Watcher).hand(0, &["6C"]).hand(1, &["KS", "9H", "2D"]).hand(3, &["QH"]);
    let card = k.in_hand(0, "6C");
    assert_eq!(k.act(0, Action::Sight { card, target: 1 }).unwrap_err().rule, "R8.37.1");
    k.act(0, Action::WatcherSight { card }).unwrap();
    k.quiet();
    let PromptKind::WatcherPick { hands, per_hand } = k.prompt(0).unwrap().kind else { panic!("WatcherPick") };
    assert_eq!((hands.len(), per_hand), (2, 2));
    let all: Vec<_> = hands.iter().flat_map(|(_, h)| h.iter().map(|c| c.handle)).collect();
    assert!(k.answer(0, Answer::Pick { cards: all[..3].to_vec() }).is_err(), "3 from one hand");
    let pick = vec![all[0], all[1], all[3]];
    k.answer(0, Answer::Pick { cards: pick }).unwrap();
    assert_eq!(k.hand_of(0).len(), 3);
    assert!(k.hand_of(3).is_empty());
    assert!(matches!(k.last_effect(), Some(Effect::WatcherTaken { taken }) if taken.len() == 2));
}
