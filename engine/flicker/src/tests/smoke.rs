//! Smoke tests of the kit itself, and worked example B5.

use super::kit::*;
use crate::model::action::Action;

/// B5 (R5.3, R5.4): Banish with equal rank and different suit.
#[test]
fn b5_banish_equal_rank_different_suit() {
    let base = || Kit::new(4).hand(0, &["7H", "7D", "8D"]).shadow(0, &[("7C", Some(1))]).ritual(0);
    // 7♥: tie, ♥ ≥ ♣: legal; same rank, not Spade: Siphoned to the bottom of the Candle.
    let mut k = base();
    let candle = k.candle_of(0).len();
    let (card, ghost) = (k.in_hand(0, "7H"), k.ghost(0, "7C"));
    k.act(0, Action::Banish { card, ghost }).unwrap();
    assert_eq!(k.candle_of(0).len(), candle + 1);
    assert_eq!(k.candle_of(0).last().unwrap(), "7C");
    assert_eq!(k.dark_of()[0], "7H");
    // 7♦: tie, ♦ < ♣: illegal, nothing changes.
    let mut k = base();
    let (card, ghost) = (k.in_hand(0, "7D"), k.ghost(0, "7C"));
    let err = k.act(0, Action::Banish { card, ghost }).unwrap_err();
    assert_eq!(err.rule, "R5.3.2");
    assert_eq!(k.hand_of(0), vec!["7H", "7D", "8D"]);
    assert_eq!(k.budget(), 1);
    // 8♦: 8 > 7, ranks differ: no Siphon. The Dark top-down: 8♦, 7♣.
    let mut k = base();
    let (card, ghost) = (k.in_hand(0, "8D"), k.ghost(0, "7C"));
    k.act(0, Action::Banish { card, ghost }).unwrap();
    assert_eq!(k.dark_of(), vec!["8D", "7C"]);
}
