//! Rule tests: elimination. The elimination procedure (R7.4), the ghost split (R7.5), no chain
//! eliminations (R7.5.5, R7.6), victory and placings (R7.7), worked example B11 and concession
//! (R10.10).

use super::kit::*;
use crate::model::action::Action;
use crate::model::card::CardId;
use crate::model::command::{Answer, Command};
use crate::model::event::{EliminationCause, EndReason, Event};
use crate::model::handle::{CardRef, handle};
use crate::model::settings::SaltWindow;
use crate::model::state::Step;
use crate::rules::prompt::PromptKind;

/// Handles of the ghosts of `seat`, in entry order.
fn ghost_refs(k: &Kit, seat: u8) -> Vec<CardRef> {
    k.state.players[seat as usize].shadow.iter().map(|g| handle(&k.state, g.card)).collect()
}

/// The hand and Candle card ids of `seat`.
fn held(k: &Kit, seat: u8) -> Vec<CardId> {
    let p = &k.state.players[seat as usize];
    p.hand.iter().chain(p.candle.iter()).copied().collect()
}

fn ghost(f: &str, h: Option<u8>) -> (String, Option<u8>) {
    (f.to_string(), h)
}

/// Every EliminationStarted event so far: (seat, cause, placing).
fn started(k: &Kit) -> Vec<(u8, EliminationCause, u8)> {
    k.events
        .iter()
        .filter_map(|e| match e {
            Event::EliminationStarted { seat, cause, placing } => Some((*seat, *cause, *placing)),
            _ => None,
        })
        .collect()
}

/// The shares of the (single) Eliminated event of `seat`, as faces.
fn shares(k: &Kit, seat: u8) -> Vec<(u8, Vec<String>)> {
    k.events
        .iter()
        .find_map(|e| match e {
            Event::Eliminated { seat: s, shares, .. } if *s == seat => {
                Some(shares.iter().map(|(to, cs)| (*to, cs.iter().map(|&c| name(k.state.face(c))).collect())).collect())
            }
            _ => None,
        })
        .unwrap_or_else(|| panic!("no Eliminated event for seat {seat}"))
}

fn pos(k: &Kit, f: impl Fn(&Event) -> bool) -> Option<usize> {
    k.events.iter().position(f)
}

fn death_split(k: &Kit, seat: u8) -> (u8, u8, Vec<String>, Vec<usize>) {
    match k.prompt(seat).map(|p| p.kind) {
        Some(PromptKind::DeathSplit { left, right, ghosts, sizes }) => {
            (left, right, ghosts.iter().map(|c| name(c.face)).collect(), sizes)
        }
        other => panic!("seat {seat}: expected a DeathSplit prompt, got {other:?}"),
    }
}

fn pass(k: &mut Kit, seat: u8) {
    k.answer(seat, Answer::Pass).unwrap_or_else(|e| panic!("seat {seat} Pass refused: {e}"));
}

fn salt(k: &mut Kit, seat: u8, five: &str) {
    let card = k.in_hand(seat, five);
    k.answer(seat, Answer::Salt { card }).unwrap_or_else(|e| panic!("seat {seat} Salt refused: {e}"));
}

fn haunt(k: &mut Kit, actor: u8, card: &str, target: u8) {
    let card = k.in_hand(actor, card);
    k.act(actor, Action::Haunt { card, target }).expect("Haunt declared");
}

fn table(n: u8, w: SaltWindow) -> Kit {
    let mut s = settings(n);
    s.salt_window = w;
    Kit::with(s)
}

// ---------------------------------------------------------------------------------------------
// R7.4: the procedure.
// ---------------------------------------------------------------------------------------------

/// R7.4 steps 2, 5, 6, 9, R7.5.1, R4.7: seat 0 of 5 (seat 4 already out) is Consumed at Am I
/// Alive?: placing 4 (4 Lit just before); no ghosts, so no split and no prompt; its hand and
/// Candle go out of play (not to The Dark); the circle closes (seats 3 and 1 become
/// neighbours); the turn passes to seat 1.
#[test]
fn r7_4_procedure_placing_out_of_play_circle_closes_turn_passes() {
    let mut k = Kit::new(5).out(4, 5).hand(0, &["2C", "KD"]).candle(0, &[]).am_i_alive(0);
    let gone = held(&k, 0);
    let dark_before = k.dark_of();
    k.settle();
    assert_eq!(started(&k), vec![(0, EliminationCause::Consumed, 4)]);
    assert_eq!(k.state.players[0].placing, Some(4));
    assert!(!k.lit(0));
    assert_eq!(shares(&k, 0), vec![]);
    assert!(!k.events.iter().any(|e| matches!(e, Event::GameEnded { .. })));
    // Step 5: hand (and Candle) out of play, face down, not to The Dark.
    assert!(k.hand_of(0).is_empty());
    for c in &gone {
        assert!(k.state.out_of_play.contains(c));
    }
    assert_eq!(k.dark_of(), dark_before);
    // Step 6: the circle closes.
    assert_eq!(k.state.left_of(3), Some(1));
    assert_eq!(k.state.right_of(1), Some(3));
    assert_eq!(k.state.neighbours(1), vec![2, 3]);
    // Step 9 / R4.7: the turn passes to the nearest Lit player clockwise from seat 0.
    let i = pos(&k, |e| matches!(e, Event::Eliminated { seat: 0, .. })).unwrap();
    assert!(matches!(k.events[i + 1], Event::TurnStarted { seat: 1, .. }), "{:?}", &k.events[i..]);
    assert_eq!(k.state.turn.active, 1);
    assert_eq!(k.asked(), vec![1]);
}

/// R7.4 step 9, R4.3: a player Consumed at The Draw loses the rest of its turn (no Ritual); the
/// turn passes at once.
#[test]
fn r7_4_step9_eliminated_active_player_turn_ends_at_once() {
    let mut k = Kit::new(4).hand(0, &["2C"]).candle(0, &[]).turn_start(0, 1);
    k.settle();
    assert_eq!(started(&k), vec![(0, EliminationCause::Consumed, 4)]);
    assert!(!k.events.iter().any(|e| matches!(e, Event::RitualEnded { seat: 0, .. } | Event::ActionDeclared { .. })));
    let i = pos(&k, |e| matches!(e, Event::Eliminated { seat: 0, .. })).unwrap();
    assert!(matches!(k.events[i + 1], Event::TurnStarted { seat: 1, .. }));
    assert_eq!(k.state.turn.active, 1);
}

/// R7.5.3, R10.5 #20: the DeathSplit prompt goes to the eliminated player with left/right
/// neighbours, ghosts in entry order and sizes floor(g/2) / ceil(g/2); any other partition is
/// refused (and the prompt stays open); an even split is accepted.
#[test]
fn r7_5_3_death_split_prompt_and_sizes() {
    let mut k = Kit::new(4)
        .shadow(2, &[("2C", Some(1)), ("4C", Some(3)), ("6D", None), ("8C", Some(1))])
        .am_i_alive(2)
        .settled();
    assert_eq!(started(&k), vec![(2, EliminationCause::Possessed, 4)]);
    assert_eq!(k.asked(), vec![2]);
    assert_eq!(death_split(&k, 2), (3, 1, vec!["2C".into(), "4C".into(), "6D".into(), "8C".into()], vec![2]));
    assert!(matches!(k.step(), Step::Eliminating(_)));
    let g = ghost_refs(&k, 2);
    for (left, right) in [
        (vec![g[0]], vec![g[1], g[2], g[3]]),
        (vec![g[0], g[1], g[2]], vec![g[3]]),
        (vec![g[0], g[1]], vec![g[1], g[2]]),
        (vec![g[0], g[1]], vec![g[2]]),
    ] {
        let err = k.answer(2, Answer::Split { left, right }).unwrap_err();
        assert_eq!(err.rule, "R7.5.3");
        assert_eq!(k.asked(), vec![2]);
    }
    k.answer(2, Answer::Split { left: vec![g[3], g[1]], right: vec![g[0], g[2]] }).unwrap();
    assert_eq!(k.shadow_of(3), vec![ghost("4C", Some(3)), ghost("8C", Some(1))]);
    assert_eq!(k.shadow_of(1), vec![ghost("2C", Some(1)), ghost("6D", None)]);
    assert!(k.shadow_of(2).is_empty());
}

/// R7.5.2: with only one neighbour (two players Lit), all ghosts go to that player, without a
/// prompt, in entry order with their haunters; then R7.7.1 ends the game.
#[test]
fn r7_5_2_two_lit_all_ghosts_to_single_neighbour() {
    let k = Kit::new(3)
        .out(2, 3)
        .shadow(0, &[("2C", Some(1)), ("9H", None), ("4C", Some(1)), ("6C", Some(2))])
        .am_i_alive(0)
        .settled();
    assert_eq!(started(&k), vec![(0, EliminationCause::Possessed, 2)]);
    assert_eq!(shares(&k, 0), vec![(1, vec!["2C".into(), "9H".into(), "4C".into(), "6C".into()])]);
    assert_eq!(
        k.shadow_of(1),
        vec![ghost("2C", Some(1)), ghost("9H", None), ghost("4C", Some(1)), ghost("6C", Some(2))]
    );
    let r = k.state.result.clone().expect("the game ended");
    assert_eq!(r.winner, Some(1));
    assert_eq!(r.placings, vec![2, 1, 3]);
    assert!(k.asked().is_empty());
}

/// R7.5.4 (R11.62), R3.4.2: the left neighbour's share moves first; each share enters its
/// recipient's Shadow after the ghosts already there, in E's entry order (whatever order the
/// answer listed them in), keeping its haunters.
#[test]
fn r7_5_4_left_share_first_entry_order_and_haunters_kept() {
    let mut k = Kit::new(4)
        .shadow(2, &[("2H", Some(1)), ("4H", Some(3)), ("6H", None), ("9S", Some(0))])
        .shadow(3, &[("KD", Some(2))])
        .shadow(1, &[("QC", None)])
        .am_i_alive(2)
        .settled();
    let g = ghost_refs(&k, 2);
    // Left (seat 3): 6♥ and 2♥, listed out of order; right (seat 1): 9♠ and 4♥.
    k.answer(2, Answer::Split { left: vec![g[2], g[0]], right: vec![g[3], g[1]] }).unwrap();
    assert_eq!(shares(&k, 2), vec![(3, vec!["2H".into(), "6H".into()]), (1, vec!["4H".into(), "9S".into()])]);
    assert_eq!(k.shadow_of(3), vec![ghost("KD", Some(2)), ghost("2H", Some(1)), ghost("6H", None)]);
    assert_eq!(k.shadow_of(1), vec![ghost("QC", None), ghost("4H", Some(3)), ghost("9S", Some(0))]);
}

/// B11 position: five players; seat 2 at Am I Alive? with g1 3♥, g2 3♥, g3 9♥, g4 K♠, g5 2♦
/// (three hearts: Possessed). Seats 1 and 3 already hold two hearts each.
fn b11() -> Kit {
    Kit::new(5)
        .hand(2, &["7D", "QS"])
        .shadow(2, &[("3H", Some(1)), ("3H", Some(3)), ("9H", Some(1)), ("KS", None), ("2D", Some(3))])
        .shadow(1, &[("4H", Some(0)), ("6H", Some(2))])
        .shadow(3, &[("7H", Some(4)), ("8H", Some(2))])
        .am_i_alive(2)
}

fn assert_b11_common(k: &Kit, gone: &[CardId]) {
    // E out, hand and Candle out of play; seats 1 and 3 become neighbours; four Lit.
    assert!(!k.lit(2));
    assert_eq!(k.state.players[2].placing, Some(5));
    assert!(k.shadow_of(2).is_empty() && k.hand_of(2).is_empty() && k.candle_of(2).is_empty());
    for c in gone {
        assert!(k.state.out_of_play.contains(c));
    }
    assert_eq!(k.state.left_of(1), Some(3));
    assert_eq!(k.state.right_of(3), Some(1));
    assert_eq!(k.state.lit_count(), 4);
    // Neither recipient is Possessed now (each holds four hearts): only one elimination.
    assert!(k.lit(1) && k.lit(3));
    assert_eq!(started(k).len(), 1);
    // The turn passes to seat 3 (it has ghosts: its Haunting choice).
    assert_eq!(k.state.turn.active, 3);
    assert!(k.events.iter().any(|e| matches!(e, Event::TurnStarted { seat: 3, .. })));
    assert_eq!(k.step(), &Step::Haunting);
    assert_eq!(k.asked(), vec![3]);
}

/// B11 (R7.4, R7.5), example answer: placing 5th; E gives 3 ghosts to R (seat 1: g1, g3, g4,
/// appended as 3♥ 9♥ K♠) and 2 to L (seat 3: g2, g5 as 3♥ 2♦); nobody else is eliminated; the
/// circle closes and the turn passes to seat 3.
#[test]
fn b11_death_split_example_answer() {
    let mut k = b11();
    let gone = held(&k, 2);
    k.settle();
    assert_eq!(started(&k), vec![(2, EliminationCause::Possessed, 5)]);
    assert_eq!(
        death_split(&k, 2),
        (3, 1, ["3H", "3H", "9H", "KS", "2D"].iter().map(|s| s.to_string()).collect(), vec![2, 3])
    );
    let g = ghost_refs(&k, 2);
    k.answer(2, Answer::Split { left: vec![g[1], g[4]], right: vec![g[0], g[2], g[3]] }).unwrap();
    assert_eq!(
        shares(&k, 2),
        vec![(3, vec!["3H".into(), "2D".into()]), (1, vec!["3H".into(), "9H".into(), "KS".into()])]
    );
    assert_eq!(
        k.shadow_of(1),
        vec![ghost("4H", Some(0)), ghost("6H", Some(2)), ghost("3H", Some(1)), ghost("9H", Some(1)), ghost("KS", None)]
    );
    assert_eq!(
        k.shadow_of(3),
        vec![ghost("7H", Some(4)), ghost("8H", Some(2)), ghost("3H", Some(3)), ghost("2D", Some(3))]
    );
    assert_b11_common(&k, &gone);
}

/// B11, R10.5 #20: on time-out the default split applies: L receives g1, g3, g5 (3♥ 9♥ 2♦),
/// R receives g2, g4 (3♥ K♠).
#[test]
fn b11_death_split_timeout_default() {
    let mut k = b11();
    let gone = held(&k, 2);
    k.settle();
    let g = ghost_refs(&k, 2);
    assert_eq!(k.prompt(2).unwrap().default, Answer::Split { left: vec![g[0], g[2], g[4]], right: vec![g[1], g[3]] });
    k.send(Command::Timeout).unwrap();
    assert_eq!(
        shares(&k, 2),
        vec![(3, vec!["3H".into(), "9H".into(), "2D".into()]), (1, vec!["3H".into(), "KS".into()])]
    );
    assert_eq!(
        k.shadow_of(3),
        vec![
            ghost("7H", Some(4)),
            ghost("8H", Some(2)),
            ghost("3H", Some(1)),
            ghost("9H", Some(1)),
            ghost("2D", Some(3))
        ]
    );
    assert_eq!(
        k.shadow_of(1),
        vec![ghost("4H", Some(0)), ghost("6H", Some(2)), ghost("3H", Some(3)), ghost("KS", None)]
    );
    assert_b11_common(&k, &gone);
}

/// R7.5.5, R7.6, R7.3.4, R7.2.2: receiving ghosts never eliminates, and one elimination never
/// causes another: both neighbours (empty Candles, now three spades each) stay Lit until their
/// own checks.
#[test]
fn r7_6_no_chain_elimination() {
    let mut k = Kit::new(4)
        .candle(2, &[])
        .shadow(2, &[("3S", Some(1)), ("4S", Some(3))])
        .candle(1, &[])
        .shadow(1, &[("6S", Some(0)), ("7S", Some(2))])
        .candle(3, &[])
        .shadow(3, &[("8S", Some(0)), ("9S", Some(2))])
        .am_i_alive(2)
        .settled();
    assert_eq!(started(&k), vec![(2, EliminationCause::Consumed, 4)]);
    let g = ghost_refs(&k, 2);
    k.answer(2, Answer::Split { left: vec![g[0]], right: vec![g[1]] }).unwrap();
    assert_eq!(k.shadow_of(3), vec![ghost("8S", Some(0)), ghost("9S", Some(2)), ghost("3S", Some(1))]);
    assert_eq!(k.shadow_of(1), vec![ghost("6S", Some(0)), ghost("7S", Some(2)), ghost("4S", Some(3))]);
    assert!(k.lit(1) && k.lit(3), "no chain elimination");
    assert_eq!(started(&k).len(), 1);
    // Seat 3's turn begins normally: its Haunting choice.
    assert_eq!(k.state.turn.active, 3);
    assert_eq!(k.asked(), vec![3]);
}

// ---------------------------------------------------------------------------------------------
// R7.7: victory and placings.
// ---------------------------------------------------------------------------------------------

/// R7.7.1: when exactly one player is Lit after an elimination, that player wins and the game
/// ends (also after a concession).
#[test]
fn r7_7_1_last_lit_player_wins() {
    let k = Kit::new(2).candle(1, &[]).am_i_alive(1).settled();
    let r = k.state.result.clone().expect("the game ended");
    assert_eq!(r.winner, Some(0));
    assert_eq!(r.reason, EndReason::LastLit);
    assert_eq!(r.placings, vec![1, 2]);
    assert!(k.state.is_finished());
    assert!(k.asked().is_empty());
    let mut k = Kit::new(2).ritual(0);
    k.send(Command::Concede { seat: 0 }).unwrap();
    let r = k.state.result.clone().expect("the game ended");
    assert_eq!(r.winner, Some(1));
    assert_eq!(r.placings, vec![2, 1]);
}

/// R7.7.3, R7.4 step 2: the first of 8 players to fall is 8th; later placings count the players
/// Lit just before; the winner is 1st.
#[test]
fn r7_7_3_placings() {
    let k = Kit::new(8).candle(0, &[]).am_i_alive(0).settled();
    assert_eq!(started(&k), vec![(0, EliminationCause::Consumed, 8)]);
    assert_eq!(k.state.players[0].placing, Some(8));
    assert!(k.state.result.is_none());
    let k =
        Kit::new(8).out(2, 8).out(3, 7).out(4, 6).out(5, 5).out(6, 4).out(7, 3).candle(1, &[]).am_i_alive(1).settled();
    assert_eq!(started(&k), vec![(1, EliminationCause::Consumed, 2)]);
    let r = k.state.result.clone().expect("the game ended");
    assert_eq!(r.winner, Some(0));
    assert_eq!(r.placings, vec![1, 2, 8, 7, 6, 5, 4, 3]);
}

// ---------------------------------------------------------------------------------------------
// R10.10: concession.
// ---------------------------------------------------------------------------------------------

/// R10.10.2, R10.10.3: the active player concedes at its Ritual prompt (a safe point): the
/// elimination runs at once with the default split (no DeathSplit prompt), no Burden although
/// the hand is over the limit, and the turn passes.
#[test]
fn r10_10_concede_active_player_at_ritual() {
    let mut k = Kit::new(4)
        .hand(0, &["2C", "3C", "4C", "6C", "7C", "8C", "9C"])
        .shadow(0, &[("2D", Some(1)), ("3D", Some(3)), ("4H", None)])
        .ritual(0);
    let gone = held(&k, 0);
    let ev = k.send(Command::Concede { seat: 0 }).unwrap();
    assert!(matches!(ev[0], Event::ConcessionRequested { seat: 0 }));
    assert_eq!(started(&k), vec![(0, EliminationCause::Conceded, 4)]);
    assert!(!k.lit(0));
    assert_eq!(k.state.players[0].placing, Some(4));
    // Default split: entry order alternately left (seat 1), right (seat 3), left.
    assert_eq!(shares(&k, 0), vec![(1, vec!["2D".into(), "4H".into()]), (3, vec!["3D".into()])]);
    assert_eq!(k.shadow_of(1), vec![ghost("2D", Some(1)), ghost("4H", None)]);
    assert_eq!(k.shadow_of(3), vec![ghost("3D", Some(3))]);
    assert!(!ev.iter().any(|e| matches!(e, Event::BurdenDiscarded { .. })));
    for c in &gone {
        assert!(k.state.out_of_play.contains(c));
    }
    assert!(k.dark_of().is_empty());
    let i = pos(&k, |e| matches!(e, Event::Eliminated { seat: 0, .. })).unwrap();
    assert!(matches!(k.events[i + 1], Event::TurnStarted { seat: 1, .. }));
    assert_eq!(k.state.turn.active, 1);
    assert!(k.state.conceding.is_empty());
}

/// R10.10.1, R10.10.2, R10.10.3: a non-active player (Lit, not prompted) concedes during the active player's Ritual: it takes
/// effect at once, and the active player's turn continues with neighbours updated (seat 2
/// becomes seat 0's left neighbour and may now be Haunted).
#[test]
fn r10_10_1_concede_non_active_player_turn_continues() {
    let mut k = Kit::new(4).hand(0, &["9C", "8C"]).hand(2, &["2H"]).ritual(0);
    let card = k.in_hand(0, "9C");
    assert_eq!(k.act(0, Action::Haunt { card, target: 2 }).unwrap_err().rule, "R5.2");
    k.send(Command::Concede { seat: 1 }).unwrap();
    assert_eq!(started(&k), vec![(1, EliminationCause::Conceded, 4)]);
    assert!(!k.lit(1));
    // The active player's turn continues.
    assert_eq!(k.state.turn.active, 0);
    assert_eq!(k.step(), &Step::Ritual);
    assert_eq!(k.budget(), 1);
    assert_eq!(k.asked(), vec![0]);
    assert_eq!(k.state.left_of(0), Some(2));
    haunt(&mut k, 0, "9C", 2);
    assert_eq!(k.asked(), vec![2], "seat 1 is gone, seat 3 has an empty hand");
    pass(&mut k, 2);
    assert_eq!(k.shadow_of(2), vec![ghost("9C", Some(0))]);
}

/// R10.10.2: a concession during a Salt window (both forms): the conceder's prompts are answered
/// at once with their defaults (Pass), it never Salts, and the concession takes effect after the
/// action, with the default split; the active player's turn then continues.
#[test]
fn r10_10_1_concede_during_window_defaults_then_effect_after_action() {
    for w in [SaltWindow::Sequential, SaltWindow::Simultaneous] {
        let mut k = table(4, w)
            .hand(0, &["9C", "8C", "7C"])
            .hand(1, &["2D"])
            .hand(2, &["5D", "5H"])
            .hand(3, &["3S"])
            .shadow(2, &[("7H", Some(1))])
            .ritual(0);
        k.state.turn.budget = 2;
        haunt(&mut k, 0, "9C", 1);
        k.send(Command::Concede { seat: 2 }).unwrap();
        assert!(k.lit(2), "{w:?}: not during the window");
        assert!(started(&k).is_empty());
        pass(&mut k, 1);
        if w == SaltWindow::Sequential {
            assert!(k.events.iter().any(|e| matches!(e, Event::Passed { seat: 2 })), "{w:?}: default Pass");
            assert_eq!(k.asked(), vec![3]);
        } else {
            assert!(k.events.iter().any(|e| matches!(e, Event::SaltAnswered { seat: 2, salt: None })));
            assert!(matches!(k.prompt(3).unwrap().kind, PromptKind::Salt { current: None, .. }));
        }
        pass(&mut k, 3);
        assert!(!k.events.iter().any(|e| matches!(e, Event::Salted { .. })));
        assert_eq!(k.shadow_of(1), vec![ghost("9C", Some(0))]);
        let resolved = pos(&k, |e| matches!(e, Event::ActionResolved { .. })).unwrap();
        let start =
            pos(&k, |e| matches!(e, Event::EliminationStarted { seat: 2, .. })).expect("concession took effect");
        assert!(resolved < start, "{w:?}: after the action");
        assert_eq!(started(&k), vec![(2, EliminationCause::Conceded, 4)]);
        // One ghost: the left neighbour (seat 3) gets it by default.
        assert_eq!(k.shadow_of(3), vec![ghost("7H", Some(1))]);
        // A's turn continues: one action left.
        assert_eq!(k.state.turn.active, 0);
        assert_eq!(k.step(), &Step::Ritual);
        assert_eq!(k.budget(), 1);
        assert_eq!(k.state.neighbours(3), vec![0, 1]);
    }
}

/// R10.10.2, R10.6.6: in a simultaneous window, the conceder's prompt is answered with its
/// default (Pass) at once; the conceder cannot then turn that answer into a Salt: no 5 of the
/// conceder enters, and the action resolves.
#[test]
fn r10_10_conceder_in_simultaneous_window_cannot_salt_afterwards() {
    let mut k = table(4, SaltWindow::Simultaneous)
        .hand(0, &["9C", "8C"])
        .hand(1, &["2D"])
        .hand(2, &["5D"])
        .hand(3, &["3S"])
        .ritual(0);
    haunt(&mut k, 0, "9C", 1);
    k.send(Command::Concede { seat: 2 }).unwrap();
    assert!(k.events.iter().any(|e| matches!(e, Event::SaltAnswered { seat: 2, salt: None })));
    // Whether the engine refuses it or ignores it, a later Salt by the conceder must not count.
    let card = k.in_hand(2, "5D");
    let _ = k.answer(2, Answer::Salt { card });
    pass(&mut k, 1);
    pass(&mut k, 3);
    assert!(!k.events.iter().any(|e| matches!(e, Event::Salted { seat: 2, .. })), "{:?}", k.events);
    assert_eq!(k.shadow_of(1), vec![ghost("9C", Some(0))]);
    assert_eq!(started(&k), vec![(2, EliminationCause::Conceded, 4)]);
}

/// R10.10.2, R10.5 #14: a conceder inside an exchange yields by default; its Salt fails and the
/// window continues; the concession takes effect after the action.
#[test]
fn r10_10_concede_inside_exchange_yields() {
    let mut k =
        Kit::new(4).hand(0, &["9C", "5S", "2C"]).hand(1, &["2D"]).hand(2, &["5D", "5H"]).hand(3, &["3S"]).ritual(0);
    haunt(&mut k, 0, "9C", 1);
    pass(&mut k, 1);
    salt(&mut k, 2, "5D");
    salt(&mut k, 0, "5S");
    assert_eq!(k.asked(), vec![2]);
    k.send(Command::Concede { seat: 2 }).unwrap();
    assert!(k.events.iter().any(|e| matches!(e, Event::Yielded { seat: 2 })));
    assert!(k.lit(2));
    assert_eq!(k.asked(), vec![3]);
    pass(&mut k, 3);
    assert_eq!(k.shadow_of(1), vec![ghost("9C", Some(0))]);
    assert_eq!(started(&k), vec![(2, EliminationCause::Conceded, 4)]);
    assert_eq!(k.dark_of(), vec!["5S".to_string(), "5D".to_string()]);
}

/// R10.10.2: a concession takes effect at the first moment no action (and no window) is in
/// progress. Here a Salt stands against the active player's action, which ends its Ritual: the
/// non-active conceder must be eliminated right after the cancelled action, before the turn
/// passes (not later, during the next player's turn).
#[test]
fn r10_10_concession_takes_effect_right_after_salted_action() {
    let mut k = Kit::new(4).hand(0, &["9C", "2C"]).hand(1, &["5D"]).hand(2, &["3C"]).hand(3, &["4C"]).ritual(0);
    haunt(&mut k, 0, "9C", 1);
    k.send(Command::Concede { seat: 2 }).unwrap();
    salt(&mut k, 1, "5D");
    k.answer(0, Answer::Yield).unwrap();
    let cancelled = pos(&k, |e| matches!(e, Event::ActionCancelled { .. })).expect("Salt stood");
    let start = pos(&k, |e| matches!(e, Event::EliminationStarted { seat: 2, .. })).expect("concession took effect");
    assert_eq!(started(&k), vec![(2, EliminationCause::Conceded, 4)]);
    assert!(
        !k.events[cancelled..start].iter().any(|e| matches!(e, Event::TurnStarted { .. } | Event::Drew { .. })),
        "the concession must take effect before the turn passes: {:?}",
        &k.events[cancelled..]
    );
}

/// R10.10.2, R10.10.3: the active player concedes during the Salt window on its own action: its
/// counter prompt is answered with Yield, and once the action is over the concession takes
/// effect at once (cause Conceded, no Am I Alive?): here its Candle is empty, so running Am I
/// Alive? first would wrongly record it as Consumed.
#[test]
fn r10_10_active_player_concession_skips_am_i_alive() {
    let mut k = Kit::new(4).hand(0, &["9C", "2C"]).candle(0, &[]).hand(1, &["5D"]).hand(3, &["4C"]).ritual(0);
    haunt(&mut k, 0, "9C", 1);
    k.send(Command::Concede { seat: 0 }).unwrap();
    salt(&mut k, 1, "5D");
    assert!(k.events.iter().any(|e| matches!(e, Event::Yielded { seat: 0 })), "default Yield");
    assert!(k.events.iter().any(|e| matches!(e, Event::ActionCancelled { salter: 1, .. })));
    assert_eq!(started(&k), vec![(0, EliminationCause::Conceded, 4)]);
    assert_eq!(k.state.turn.active, 1);
}

/// R10.10.2 (R11.57): a concession sent during another player's elimination procedure (its
/// DeathSplit prompt) waits until that procedure is over; one elimination never starts inside
/// another. The conceder (E's left neighbour) still receives its share, then is eliminated with
/// the default split, placed 3rd after E's 4th; the turn passes from E's seat to seat 0.
#[test]
fn r10_10_concession_during_other_elimination_waits() {
    let mut k = Kit::new(4).shadow(2, &[("2C", Some(1)), ("4C", Some(3)), ("6C", None)]).am_i_alive(2).settled();
    assert_eq!(k.asked(), vec![2]);
    k.send(Command::Concede { seat: 3 }).unwrap();
    assert_eq!(started(&k), vec![(2, EliminationCause::Possessed, 4)], "no elimination inside another");
    assert!(k.lit(3));
    let g = ghost_refs(&k, 2);
    k.answer(2, Answer::Split { left: vec![g[0]], right: vec![g[1], g[2]] }).unwrap();
    assert_eq!(started(&k), vec![(2, EliminationCause::Possessed, 4), (3, EliminationCause::Conceded, 3)]);
    let e2 = pos(&k, |e| matches!(e, Event::Eliminated { seat: 2, .. })).unwrap();
    let s3 = pos(&k, |e| matches!(e, Event::EliminationStarted { seat: 3, .. })).unwrap();
    assert!(e2 < s3);
    assert_eq!(shares(&k, 2), vec![(3, vec!["2C".into()]), (1, vec!["4C".into(), "6C".into()])]);
    // Seat 3's single ghost goes to its left neighbour (seat 0) by default.
    assert_eq!(shares(&k, 3), vec![(0, vec!["2C".into()])]);
    assert_eq!(k.shadow_of(0), vec![ghost("2C", Some(1))]);
    assert_eq!(k.shadow_of(1), vec![ghost("4C", Some(3)), ghost("6C", None)]);
    assert!(!k.lit(2) && !k.lit(3));
    assert_eq!(k.state.turn.active, 0);
    assert!(matches!(k.events.last(), Some(Event::TurnStarted { seat: 0, .. })));
}

/// R10.10.2: a second Concede while the first is pending is ignored (no event); a Concede by the
/// player whose own elimination procedure is running is ignored (its DeathSplit prompt stays);
/// a Concede by a player no longer Lit is refused.
#[test]
fn r10_10_second_concede_ignored() {
    let mut k = Kit::new(4).hand(0, &["9C"]).hand(1, &["2D"]).hand(2, &["3C"]).ritual(0);
    haunt(&mut k, 0, "9C", 1);
    assert_eq!(k.send(Command::Concede { seat: 2 }).unwrap().len(), 1);
    assert_eq!(k.send(Command::Concede { seat: 2 }).unwrap(), vec![]);
    assert_eq!(k.state.conceding, vec![2]);
    pass(&mut k, 1);
    assert_eq!(started(&k), vec![(2, EliminationCause::Conceded, 4)]);
    assert!(k.send(Command::Concede { seat: 2 }).is_err());
    // During its own elimination procedure.
    let mut k = Kit::new(4).shadow(2, &[("2C", None), ("4C", None), ("6C", None)]).am_i_alive(2).settled();
    assert_eq!(k.asked(), vec![2]);
    assert_eq!(k.send(Command::Concede { seat: 2 }).unwrap(), vec![]);
    assert!(k.state.conceding.is_empty());
    assert_eq!(death_split(&k, 2).3, vec![1, 2]);
    let g = ghost_refs(&k, 2);
    k.answer(2, Answer::Split { left: vec![g[1]], right: vec![g[0], g[2]] }).unwrap();
    assert_eq!(started(&k), vec![(2, EliminationCause::Possessed, 4)]);
    assert_eq!(k.shadow_of(3), vec![ghost("4C", None)]);
    assert_eq!(k.shadow_of(1), vec![ghost("2C", None), ghost("6C", None)]);
}

/// R10.10.2, docs/rules-decisions.md 8: a Salt answered privately in a simultaneous window and
/// then a concession: the answer is withdrawn and the conceder's 5 is never played.
#[test]
fn r10_10_salt_answered_then_conceded_is_withdrawn() {
    let mut s = settings(4);
    s.salt_window = SaltWindow::Simultaneous;
    let mut k = Kit::with(s).hand(0, &["9C"]).hand(1, &["2D"]).hand(2, &["5H", "2C"]).hand(3, &["2H"]).ritual(0);
    k.act(0, Action::Haunt { card: k.in_hand(0, "9C"), target: 1 }).unwrap();
    k.answer(2, Answer::Salt { card: k.in_hand(2, "5H") }).unwrap();
    k.send(Command::Concede { seat: 2 }).unwrap();
    assert!(!k.events.iter().any(|e| matches!(e, Event::Salted { .. })));
    k.answer(1, Answer::Pass).unwrap();
    k.answer(3, Answer::Pass).unwrap();
    // The Haunt stood: 9♣ is B's ghost; seat 2's 5♥ went out of play with its hand, unplayed.
    assert!(!k.events.iter().any(|e| matches!(e, Event::Salted { .. })));
    assert_eq!(k.shadow_of(1), vec![("9C".to_string(), Some(0))]);
    assert!(!k.lit(2));
}
