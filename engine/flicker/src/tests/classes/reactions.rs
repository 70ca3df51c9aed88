//! Class reactions: The Grimoire of Rejection (R6.3, R8.9), The Hex (R8.10, B12), The Mime
//! (R6.7, R8.16, B13), The Unseen (R8.32), The Shadow (R8.26), The Cryptkeeper (R8.2).

use super::*;
use crate::model::action::Action;
use crate::model::command::Answer;
use crate::model::command::Command;
use crate::rules::classes::reactions::ReactionKind;
use crate::rules::prompt::PromptKind;

fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

fn reaction(k: &Kit, seat: u8) -> (ReactionKind, usize) {
    match k.prompt(seat).map(|p| p.kind) {
        Some(PromptKind::Reaction { reaction, cards, .. }) => (reaction, cards.len()),
        other => panic!("seat {seat}: expected a reaction prompt, got {other:?}"),
    }
}

fn haunt(k: &mut Kit, actor: u8, card: &str, target: u8) {
    let card = k.in_hand(actor, card);
    k.act(actor, Action::Haunt { card, target }).expect("Haunt declared");
}

fn is_salt(k: &Kit, seat: u8) -> bool {
    matches!(k.prompt(seat).map(|p| p.kind), Some(PromptKind::Salt { .. }))
}

/// B12, R6.4.1, R8.10.1-R8.10.3 (Hex reflect order and Salt): The Hex is asked before any
/// Salt; its reflect puts the Haunt card in X's own Shadow (haunter X), spends its card, opens
/// no Salt window, and X's Ritual continues.
#[test]
fn b12_hex_reflects_before_salt() {
    let mut k = Kit::new(4).class(1, ClassId::Hex).hand(0, &["6D", "2C"]).hand(1, &["2D", "KC"]).hand(2, &["5H"]);
    k.state.turn.budget = 2;
    haunt(&mut k, 0, "6D", 1);
    assert_eq!(reaction(&k, 1), (ReactionKind::HexReflect, 1), "only 2♦ matches");
    let card = k.in_hand(1, "2D");
    k.answer(1, Answer::React { card: Some(card) }).unwrap();
    assert_eq!(k.shadow_of(0), vec![("6D".to_string(), Some(0))]);
    assert_eq!(k.dark_of(), strs(&["2D"]));
    assert_eq!(k.hand_of(2), strs(&["5H"]), "no Salt window");
    assert!(matches!(k.prompt(0).unwrap().kind, PromptKind::Ritual { budget: 1, .. }), "the Ritual continues");
}

/// B12 variants, R6.8, R8.10.5, R6.4, R6.4.6: a Hex without the suit is still asked (public
/// information does not rule the reaction out) but may only allow; then the Salt window (W3) runs.
#[test]
fn b12_hex_without_the_suit_allows_then_salt() {
    let mut k = Kit::new(4).class(1, ClassId::Hex).hand(0, &["6D"]).hand(1, &["KC"]).hand(2, &["5H"]);
    haunt(&mut k, 0, "6D", 1);
    assert_eq!(reaction(&k, 1), (ReactionKind::HexReflect, 0));
    k.answer(1, Answer::Decline).unwrap();
    assert!(is_salt(&k, 1));
    k.quiet();
    assert_eq!(k.shadow_of(1), vec![("6D".to_string(), Some(0))]);
}

/// B13, R6.7 (Mime redirect and Salt), R6.4.2, R6.1.1, R6.7.1-R6.7.4, R8.16.1-R8.16.2: the
/// redirect is an action of The Mime and can be Salted; Salted, the ghost stays with The Mime
/// (haunter A); unsalted it lands on C with haunter A; C's Hex turns it back on A.
#[test]
fn b13_mime_redirect_salted_and_variants() {
    let base = || Kit::new(4).class(1, ClassId::Mime).hand(0, &["4S"]).hand(1, &["9D"]).hand(2, &["5H", "2S"]);
    let mut k = base();
    haunt(&mut k, 0, "4S", 1);
    assert_eq!(reaction(&k, 1).0, ReactionKind::MimeRedirect);
    k.answer(1, Answer::React { card: Some(k.in_hand(1, "9D")) }).unwrap();
    // The redirect's window asks C first (clockwise from The Mime's left).
    assert!(is_salt(&k, 2));
    k.answer(2, Answer::Salt { card: k.in_hand(2, "5H") }).unwrap();
    k.quiet();
    assert_eq!(k.shadow_of(1), vec![("4S".to_string(), Some(0))]);
    assert_eq!(k.dark_of(), strs(&["5H", "9D"]));
    assert!(matches!(k.prompt(0).map(|p| p.kind), Some(PromptKind::Ritual { .. }) | None));
    // Nobody Salts: C receives it with haunter A.
    let mut k = base();
    haunt(&mut k, 0, "4S", 1);
    k.answer(1, Answer::React { card: Some(k.in_hand(1, "9D")) }).unwrap();
    k.quiet();
    assert_eq!(k.shadow_of(2), vec![("4S".to_string(), Some(0))]);
    // C is The Hex holding a ♠: it reflects onto A.
    let mut k = base().class(2, ClassId::Hex);
    haunt(&mut k, 0, "4S", 1);
    k.answer(1, Answer::React { card: Some(k.in_hand(1, "9D")) }).unwrap();
    assert_eq!(reaction(&k, 2).0, ReactionKind::HexReflect);
    k.answer(2, Answer::React { card: Some(k.in_hand(2, "2S")) }).unwrap();
    assert_eq!(k.shadow_of(0), vec![("4S".to_string(), Some(0))]);
    assert!(k.shadow_of(1).is_empty() && k.shadow_of(2).is_empty());
}

/// R8.16.4, R8.0.7: no redirect onto The Phantom with an empty hand, nor with one distinct
/// neighbour (at 2 players the opponent is both neighbours, once).
#[test]
fn r8_16_4_mime_cannot_redirect() {
    let mut k = Kit::new(4).class(1, ClassId::Mime).class(2, ClassId::Phantom).hand(0, &["4S"]).hand(1, &["9D"]);
    haunt(&mut k, 0, "4S", 1);
    assert!(is_salt(&k, 1), "no Mime prompt");
    let mut k = Kit::new(2).class(1, ClassId::Mime).hand(0, &["4S"]).hand(1, &["9D"]);
    haunt(&mut k, 0, "4S", 1);
    assert!(is_salt(&k, 1), "no Mime prompt with one neighbour");
}

/// R8.32.1, R6.4.3, R5.1.4: The Unseen discards a card to cancel; the Haunt card then the discard go to The
/// Dark; X's Ritual continues (R4.4.6).
#[test]
fn r8_32_unseen_cancels() {
    let mut k = Kit::new(4).class(1, ClassId::Unseen).hand(0, &["4S"]).hand(1, &["9D"]);
    haunt(&mut k, 0, "4S", 1);
    assert_eq!(reaction(&k, 1).0, ReactionKind::UnseenCancel);
    k.answer(1, Answer::React { card: Some(k.in_hand(1, "9D")) }).unwrap();
    assert!(k.shadow_of(1).is_empty());
    assert_eq!(k.dark_of(), strs(&["9D", "4S"]));
}

/// R8.26.1, R6.4.4: The Shadow Burns 1 to cancel (the burned card first, then the Haunt card); with an
/// empty Candle it is not asked.
#[test]
fn r8_26_shadow_burns_to_cancel() {
    let mut k = Kit::new(4).class(1, ClassId::ShadowClass).hand(0, &["4S"]).candle(1, &["8H", "2C"]);
    haunt(&mut k, 0, "4S", 1);
    assert_eq!(reaction(&k, 1).0, ReactionKind::ShadowCancel);
    k.answer(1, Answer::React { card: None }).unwrap();
    assert_eq!(k.dark_of(), strs(&["4S", "8H"]));
    let mut k = Kit::new(4).class(1, ClassId::ShadowClass).hand(0, &["4S"]).candle(1, &[]);
    haunt(&mut k, 0, "4S", 1);
    assert!(!k.events.iter().any(|e| matches!(e, Event::Reacted { .. } | Event::Declined { .. })));
    assert_eq!(k.shadow_of(1).len(), 1);
}

/// R8.2.1: Build a Wall (Ritual action, face down, Salt-able, not subject to W1 (R6.3.3), cap 3);
/// R8.2.2, R6.4.5 block (the Haunt card, then the Wall); R8.2.7 only the builder sees the face.
#[test]
fn r8_2_cryptkeeper_builds_and_blocks() {
    let mut k = Kit::new(4)
        .class(0, ClassId::Cryptkeeper)
        .class(1, ClassId::GrimoireOfRejection)
        .pages(1, &["QD"])
        .hand(2, &["2S"])
        .hand(0, &["QH", "3C"]);
    let card = k.in_hand(0, "QH");
    k.act(0, Action::BuildWall { card }).unwrap();
    assert!(
        k.asked().iter().all(|&s| is_salt(&k, s)),
        "W1 does not apply to a Wall: {:?}",
        k.asked().iter().map(|&s| k.prompt(s)).collect::<Vec<_>>()
    );
    let v = crate::projection::view::view(&k.state, crate::projection::view::Viewer::Spectator);
    assert!(v.resolving.is_empty() && v.resolving_face_down == 1);
    k.quiet();
    assert_eq!(k.walls_of(0), strs(&["QH"]));
    let spect = crate::projection::view::view(&k.state, crate::projection::view::Viewer::Spectator);
    assert!(spect.players[0].walls[0].card.is_none());
    let own = crate::projection::view::view(&k.state, crate::projection::view::Viewer::Seat { seat: 0 });
    assert!(own.players[0].walls[0].card.is_some());
    // Block a Haunt with the Wall: the Haunt card, then the Wall (face up) go to The Dark.
    let mut k = k.hand(3, &["7C"]).ritual(3);
    haunt(&mut k, 3, "7C", 0);
    assert_eq!(reaction(&k, 0).0, ReactionKind::WallBlock);
    k.answer(0, Answer::React { card: Some(k.wall(0, "QH")) }).unwrap();
    assert_eq!(k.dark_of(), strs(&["QH", "7C"]));
    assert!(k.walls_of(0).is_empty() && k.shadow_of(0).is_empty());
    // The cap of 3.
    let mut k =
        Kit::new(4).class(0, ClassId::Cryptkeeper).walls(0, &[("2C", 0), ("3C", 0), ("4C", 0)]).hand(0, &["5C"]);
    let card = k.in_hand(0, "5C");
    assert_eq!(k.act(0, Action::BuildWall { card }).unwrap_err().rule, "R8.2.1");
    // A Salted build sends the card face up to The Dark.
    let mut k = Kit::new(4).class(0, ClassId::Cryptkeeper).hand(0, &["9C"]).hand(1, &["5D"]);
    let card = k.in_hand(0, "9C");
    k.act(0, Action::BuildWall { card }).unwrap();
    k.answer(1, Answer::Salt { card: k.in_hand(1, "5D") }).unwrap();
    k.quiet();
    assert!(k.walls_of(0).is_empty());
    assert_eq!(k.dark_of(), strs(&["5D", "9C"]));
}

/// R8.2.3-R8.2.6, R3.4.6 (Cryptkeeper Walls vs Panic/Mirror/Burn/Possession): Walls cause no Burn, are
/// never a Panic target, never count for Possession, move with a Mirror (and are inert away
/// from their Cryptkeeper).
#[test]
fn r8_2_walls_vs_panic_mirror_burn_possession() {
    // Burn and Panic: only ghosts count; the Panic prompt lists ghosts only.
    let mut k = Kit::new(4)
        .class(0, ClassId::Cryptkeeper)
        .walls(0, &[("2H", 0), ("3H", 0)])
        .shadow(0, &[("4H", Some(1))])
        .turn_start(0, 1);
    k.settle();
    match k.prompt(0).unwrap().kind {
        PromptKind::HauntingChoice { ghosts, panic, .. } => {
            assert_eq!(ghosts, 1);
            assert_eq!(panic.len(), 1);
        }
        other => panic!("{other:?}"),
    }
    let before = k.candle_of(0).len();
    k.answer(0, Answer::Endure).unwrap();
    assert_eq!(before - k.candle_of(0).len(), 2, "one Burn for the ghost, one draw");
    // Possession: 2 ghosts ♥ and 2 Walls ♥ are not three ghosts of a suit.
    let mut k = Kit::new(4)
        .class(0, ClassId::Cryptkeeper)
        .walls(0, &[("2H", 0), ("3H", 0)])
        .shadow(0, &[("4H", Some(1)), ("5H", Some(1))])
        .am_i_alive(0);
    k.settle();
    assert!(k.lit(0));
    // Mirror: the Walls move to the other Shadow, where they are inert (no block).
    let mut k = Kit::new(4)
        .class(1, ClassId::Cryptkeeper)
        .walls(1, &[("2H", 1)])
        .hand(0, &["JC", "3C"])
        .shadow(0, &[("4D", Some(1))]);
    k.state.turn.budget = 2;
    let card = k.in_hand(0, "JC");
    k.act(0, Action::Mirror { card, target: 1 }).unwrap();
    k.quiet();
    assert_eq!(k.walls_of(0), strs(&["2H"]));
    assert_eq!(k.shadow_of(1).len(), 1);
    // The Cryptkeeper no longer has a Wall: a Haunt on it meets no block.
    k.at_ritual(0);
    haunt(&mut k, 0, "3C", 1);
    assert!(!k.events.iter().any(|e| matches!(e, Event::Reacted { .. } | Event::Declined { .. })));
    assert_eq!(k.shadow_of(1).len(), 2);
}

/// R8.9.1-R8.9.3, R6.3, R6.3.2, R5.9.3: a page is added (free, once per turn, at most 3, face down, never
/// through the Resolving area); a page of the action card's rank rejects it; other pages stay.
#[test]
fn r8_9_grimoire_pages_and_rejection() {
    use crate::model::classes::Ability;
    let mut k = Kit::new(4).class(0, ClassId::GrimoireOfRejection).hand(0, &["7C", "9H", "2D"]);
    let card = k.in_hand(0, "7C");
    k.answer(0, Answer::Ability { ability: Ability::GrimoirePage { card } }).unwrap();
    assert_eq!(k.state.players[0].pages.len(), 1);
    assert!(k.dark_of().is_empty());
    let card = k.in_hand(0, "9H");
    assert_eq!(k.answer(0, Answer::Ability { ability: Ability::GrimoirePage { card } }).unwrap_err().rule, "R5.9.4");
    let spect = crate::projection::view::view(&k.state, crate::projection::view::Viewer::Spectator);
    assert_eq!((spect.players[0].pages, spect.players[0].page_cards.is_none()), (1, true));
    // The cap of 3 pages.
    let mut k3 = Kit::new(4).class(0, ClassId::GrimoireOfRejection).pages(0, &["2C", "3C", "4C"]).hand(0, &["7C"]);
    let card = k3.in_hand(0, "7C");
    assert!(k3.answer(0, Answer::Ability { ability: Ability::GrimoirePage { card } }).is_err());
    // Rejection: a neighbour's 7 meets the 7♣ page.
    let mut k = Kit::new(4)
        .class(1, ClassId::GrimoireOfRejection)
        .pages(1, &["7C", "KD"])
        .hand(0, &["7H"])
        .shadow(0, &[("3D", None)]);
    let (card, ghost) = (k.in_hand(0, "7H"), k.ghost(0, "3D"));
    k.act(0, Action::Cleanse { card, ghost, second: None }).unwrap();
    assert_eq!(reaction(&k, 1), (ReactionKind::GrimoireReject, 1));
    k.answer(1, Answer::React { card: Some(k.page(1, "7C")) }).unwrap();
    assert_eq!(k.dark_of(), strs(&["7C", "7H"]));
    assert_eq!(k.shadow_of(0).len(), 1);
    assert_eq!(k.state.players[1].pages.len(), 1);
}

/// R10.6.5, B12: at a table that holds its windows, The Hex's Allow is held:
/// its prompt closes, nobody else's view moves (the Hex is still awaited, no event shows), and
/// only the server's `CloseWindow` (or `Timeout` at the deadline) lets it take effect; then the
/// Salt window runs as without holding. No time-out mark: it was answered.
#[test]
fn r10_6_5_a_hex_allow_is_held_until_the_server_closes_the_prompt() {
    let mut s = settings(4);
    s.hold_windows = true;
    for close in [Command::CloseWindow, Command::Timeout] {
        let mut k = Kit::with(s.clone()).class(1, ClassId::Hex).hand(0, &["6D"]).hand(1, &["KC"]).hand(2, &["5H"]);
        haunt(&mut k, 0, "6D", 1);
        assert_eq!(reaction(&k, 1), (ReactionKind::HexReflect, 0));
        let spectator = |k: &Kit| crate::projection::view::view(&k.state, crate::projection::view::Viewer::Spectator);
        let seen = spectator(&k);
        let before = k.state.clone();
        let ev = k.answer(1, Answer::Decline).unwrap();
        assert!(matches!(ev[..], [Event::AnswerHeld { seat: 1, .. }]), "{ev:?}");
        assert_eq!(crate::rules::window::held_answer(&k.state), Some(1));
        assert_eq!(spectator(&k), seen, "R10.6.5: nothing moves for others before the close");
        for viewer in [crate::projection::view::Viewer::Spectator, crate::projection::view::Viewer::Seat { seat: 0 }] {
            assert!(
                crate::projection::redact::redact(&before, &ev[0], &k.state, viewer).is_none(),
                "hidden from {viewer:?}"
            );
        }
        assert!(k.prompt(1).is_none(), "the Hex's prompt is answered");
        let ev = k.send(close.clone()).unwrap();
        assert!(matches!(ev.first(), Some(Event::Declined { seat: 1 })), "{ev:?}");
        assert!(!ev.iter().any(|e| matches!(e, Event::TimedOut { .. })), "no time-out mark: {ev:?}");
        assert!(is_salt(&k, 1), "then the Salt window runs");
    }
}

/// R6.3.1: each neighbour of the actor that is The Grimoire of Rejection and holds a page is
/// asked, the left neighbour first (duplicates, R8.0.6); a Grimoire that is not a neighbour is
/// never asked; the right neighbour may still reject after the left one declines.
#[test]
fn r6_3_1_grimoire_neighbours_asked_left_first() {
    let mut k = Kit::new(5)
        .class(1, ClassId::GrimoireOfRejection)
        .class(4, ClassId::GrimoireOfRejection)
        .class(2, ClassId::GrimoireOfRejection)
        .pages(1, &["7D"])
        .pages(4, &["7S"])
        .pages(2, &["7H"])
        .hand(0, &["7C"])
        .shadow(0, &[("3D", None)]);
    let (card, ghost) = (k.in_hand(0, "7C"), k.ghost(0, "3D"));
    k.act(0, Action::Cleanse { card, ghost, second: None }).unwrap();
    assert_eq!(k.asked(), vec![1], "left neighbour first");
    assert_eq!(reaction(&k, 1), (ReactionKind::GrimoireReject, 1));
    k.answer(1, Answer::Decline).unwrap();
    assert_eq!(k.asked(), vec![4], "then the right neighbour; seat 2 never");
    k.answer(4, Answer::React { card: Some(k.page(4, "7S")) }).unwrap();
    assert_eq!(k.dark_of(), strs(&["7S", "7C"]));
    assert_eq!(k.shadow_of(0).len(), 1, "the Cleanse was cancelled");
    assert_eq!(k.state.players[2].pages.len(), 1);
}

/// R6.3.3: The Fatalist's Alter-suit action is subject to W1: its discarded card meets a
/// Grimoire page of its rank and is rejected (the ghost keeps its suit).
#[test]
fn r6_3_3_fatalist_alter_suit_meets_the_grimoire() {
    let mut k = Kit::new(4)
        .class(0, ClassId::Fatalist)
        .class(1, ClassId::GrimoireOfRejection)
        .pages(1, &["9C"])
        .hand(0, &["9H"])
        .shadow(0, &[("4D", Some(1))]);
    let (card, ghost) = (k.in_hand(0, "9H"), k.ghost(0, "4D"));
    k.act(0, Action::AlterSuit { card, owner: 0, ghost, suit: crate::model::card::Suit::Spades }).unwrap();
    assert_eq!(reaction(&k, 1), (ReactionKind::GrimoireReject, 1));
    k.answer(1, Answer::React { card: Some(k.page(1, "9C")) }).unwrap();
    assert_eq!(k.state.players[0].shadow[0].suit, Some(crate::model::card::Suit::Diamonds));
    assert_eq!(k.dark_of(), strs(&["9C", "9H"]));
}

/// R6.7.4, R6.7.5, R8.16.3: a redirect onto The Unseen that cancels sends the Haunt card to The
/// Dark; X's Ritual continues whatever happens to the redirect; The Mime redirects every Haunt
/// it receives, each once and for one card.
#[test]
fn r6_7_5_r8_16_3_mime_redirects_each_haunt_and_x_continues() {
    let mut k = Kit::new(4)
        .class(1, ClassId::Mime)
        .class(2, ClassId::Unseen)
        .hand(0, &["4S", "6S"])
        .hand(1, &["9D", "8D"])
        .hand(2, &["2C"]);
    k.state.turn.budget = 2;
    haunt(&mut k, 0, "4S", 1);
    k.answer(1, Answer::React { card: Some(k.in_hand(1, "9D")) }).unwrap();
    assert_eq!(reaction(&k, 2).0, ReactionKind::UnseenCancel, "R6.7.2: T2's class reaction applies");
    k.answer(2, Answer::React { card: Some(k.in_hand(2, "2C")) }).unwrap();
    k.quiet();
    assert!((0..4).all(|s| k.shadow_of(s).is_empty()));
    assert!(k.dark_of().contains(&"4S".to_string()));
    assert!(matches!(k.prompt(0).map(|p| p.kind), Some(PromptKind::Ritual { budget: 1, .. })), "R6.7.5");
    // A second Haunt on The Mime the same turn: redirected again for another card.
    haunt(&mut k, 0, "6S", 1);
    assert_eq!(reaction(&k, 1).0, ReactionKind::MimeRedirect);
    k.answer(1, Answer::React { card: Some(k.in_hand(1, "8D")) }).unwrap();
    // The Unseen has no card left: it is not asked; the redirect lands.
    k.quiet();
    assert_eq!(k.shadow_of(2), vec![("6S".to_string(), Some(0))]);
    assert_eq!(k.dark_of()[0], "8D", "the second redirect cost the second card");
}

/// R8.10.4: a Haunt with a face card (The Warlock) cannot be reflected: The Hex is not asked and
/// the Salt window (W3) follows.
#[test]
fn r8_10_4_a_face_card_haunt_is_never_reflected() {
    let mut k = Kit::new(4).class(0, ClassId::Warlock).class(1, ClassId::Hex).hand(0, &["KC"]).hand(1, &["2C"]);
    haunt(&mut k, 0, "KC", 1);
    assert!(is_salt(&k, 1), "straight to W3: {:?}", k.prompt(1));
    k.quiet();
    assert_eq!(k.shadow_of(1), vec![("KC".to_string(), Some(0))]);
    assert_eq!(k.hand_of(1), strs(&["2C"]));
}

/// R1.3.1: a card handed over to pay for a class reaction may be of any rank, a Joker included
/// (The Unseen's discard, The Mime's discard).
#[test]
fn r1_3_1_class_costs_take_any_card_a_joker_included() {
    let mut k = Kit::new(4).class(1, ClassId::Unseen).hand(0, &["4S"]).hand(1, &["Joker"]);
    haunt(&mut k, 0, "4S", 1);
    assert_eq!(reaction(&k, 1), (ReactionKind::UnseenCancel, 1));
    k.answer(1, Answer::React { card: Some(k.in_hand(1, "Joker")) }).unwrap();
    assert_eq!(k.dark_of(), strs(&["Joker", "4S"]));
    let mut k = Kit::new(4).class(1, ClassId::Mime).hand(0, &["4S"]).hand(1, &["QH"]);
    haunt(&mut k, 0, "4S", 1);
    k.answer(1, Answer::React { card: Some(k.in_hand(1, "QH")) }).unwrap();
    k.quiet();
    assert_eq!(k.shadow_of(2), vec![("4S".to_string(), Some(0))]);
}
