//! Rule tests: turn structure (R4), elimination timing (R7.2, R7.3), the Guttering (R7.9),
//! setup and turn order (R1.6, R2.3-R2.6), time-outs (R10.7.1); worked examples B1, B8, B14, B15.

use super::kit::*;
use crate::model::action::Action;
use crate::model::card::CardId;
use crate::model::command::{Answer, Command};
use crate::model::error::ErrorKind;
use crate::model::event::{EliminationCause, EndReason, Event, PanicOutcome, TurnOrder};
use crate::model::settings::{FirstPlayer, Settings};
use crate::model::state::{State, Step};
use crate::rules::decide::create;
use crate::rules::evolve::apply;
use crate::rules::prompt::PromptKind;
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// Faces of a list of cards.
fn names(k: &Kit, cards: &[CardId]) -> Vec<String> {
    cards.iter().map(|&c| name(k.state.face(c))).collect()
}

/// The `type` tags of a list of events.
fn kinds(events: &[Event]) -> Vec<&'static str> {
    events.iter().map(|e| e.type_name()).collect()
}

/// Every open Salt prompt (sequential window) is answered Pass until none is left.
fn pass_salts(k: &mut Kit) {
    while let Some(p) = k.asked().first().and_then(|&s| k.prompt(s))
        && matches!(p.kind, PromptKind::Salt { .. })
    {
        k.answer(p.seat, Answer::Pass).unwrap();
    }
}

/// The HauntingChoice prompt of `seat`: (ghosts, aces as faces, Panic targets as faces).
fn haunting_choice(k: &Kit, seat: u8) -> (usize, Vec<String>, Vec<String>) {
    match k.prompt(seat).map(|p| p.kind) {
        Some(PromptKind::HauntingChoice { ghosts, aces, panic }) => {
            (ghosts, aces.iter().map(|v| name(v.face)).collect(), panic.iter().map(|v| name(v.face)).collect())
        }
        other => panic!("expected a HauntingChoice prompt for seat {seat}, got {other:?}"),
    }
}

/// The Ritual prompt's budget for `seat`.
fn ritual_budget(k: &Kit, seat: u8) -> u8 {
    match k.prompt(seat).map(|p| p.kind) {
        Some(PromptKind::Ritual { budget, .. }) => budget,
        other => panic!("expected a Ritual prompt for seat {seat}, got {other:?}"),
    }
}

/// The (seat, round, guttering faces) of every TurnStarted event among `events`.
fn turns(k: &Kit, events: &[Event]) -> Vec<(u8, u16, Vec<String>)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::TurnStarted { seat, round, guttering } => Some((*seat, *round, names(k, guttering))),
            _ => None,
        })
        .collect()
}

/// The (seat, cause, placing) of every EliminationStarted event among `events`.
fn eliminations(events: &[Event]) -> Vec<(u8, EliminationCause, u8)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::EliminationStarted { seat, cause, placing } => Some((*seat, *cause, *placing)),
            _ => None,
        })
        .collect()
}

/// The Panicked event among `events`: (ghost, revealed, outcome, burned) as faces.
fn panicked(k: &Kit, events: &[Event]) -> (String, String, PanicOutcome, Vec<String>) {
    events
        .iter()
        .find_map(|e| match e {
            Event::Panicked { ghost, revealed, outcome, burned, .. } => {
                Some((name(k.state.face(*ghost)), name(k.state.face(*revealed)), *outcome, names(k, burned)))
            }
            _ => None,
        })
        .expect("a Panicked event")
}

/// The Endured event's burned cards among `events`, as faces.
fn endured(k: &Kit, events: &[Event]) -> Vec<String> {
    events
        .iter()
        .find_map(|e| match e {
            Event::Endured { burned, .. } => Some(names(k, burned)),
            _ => None,
        })
        .expect("an Endured event")
}

fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

fn ghosts(v: &[(&str, Option<u8>)]) -> Vec<(String, Option<u8>)> {
    v.iter().map(|(c, h)| (c.to_string(), *h)).collect()
}

/// Settings with a round limit.
fn limited(n: u8, limit: u16) -> Settings {
    let mut s = settings(n);
    s.round_limit = limit;
    s
}

/// Creates a game and folds only its creation event (the position as dealt, R2.3-R2.5).
fn as_dealt(s: &Settings, seed: u64) -> (State, Vec<Event>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let events = create(s, &mut rng).expect("create");
    let mut state = State::new();
    apply(&mut state, &events[0]);
    (state, events)
}

// ---------------------------------------------------------------------------------------------
// R4.1 / R4.4.1: turn start
// ---------------------------------------------------------------------------------------------

/// R4.1.1, R4.4.1: at the start of a turn the per-turn counters reset and the budget is 1,
/// whatever the previous turn did (here: a Greed that raised the budget, then a second action).
#[test]
fn r4_1_1_counters_reset_budget_one_at_turn_start() {
    let mut k = Kit::new(3).hand(0, &["2H", "7D"]).candle(0, &["9C", "8D", "6S", "4C"]).ritual(0);
    let (greed, haunt) = (k.in_hand(0, "2H"), k.in_hand(0, "7D"));
    k.act(0, Action::Greed { card: greed, target: 0 }).unwrap();
    assert_eq!(k.state.turn.declared, 1);
    assert_eq!(k.budget(), 1, "R4.4.4: the first Greed gave an extra action");
    k.act(0, Action::Haunt { card: haunt, target: 1 }).unwrap();
    // The Ritual ended on its own (budget 0); the turn passed to seat 1, which has a ghost now.
    assert_eq!(k.state.turn.active, 1);
    assert_eq!(*k.step(), Step::Haunting);
    assert_eq!(k.state.turn.budget, 1, "R4.1.1: reset before The Haunting");
    assert_eq!(k.state.turn.declared, 0, "R4.1.1: no action declared yet this turn");
    k.answer(1, Answer::Endure).unwrap();
    assert_eq!(ritual_budget(&k, 1), 1, "R4.4.1: the budget starts at 1");
    assert_eq!(k.state.turn.declared, 0);
}

// ---------------------------------------------------------------------------------------------
// R4.2: The Haunting
// ---------------------------------------------------------------------------------------------

/// R4.2.1: with no ghosts there is no Haunting: nothing Burned, no prompt, straight to The Draw
/// and then The Ritual.
#[test]
fn r4_2_1_no_haunting_without_ghosts() {
    let mut k = Kit::new(3).hand(0, &["AS"]).candle(0, &["9C", "8D", "7H"]).turn_start(0, 1).settled();
    assert_eq!(kinds(&k.events), vec!["turn_started", "drew"]);
    assert_eq!(turns(&k, &k.events), vec![(0, 1, vec![])]);
    assert!(k.dark_of().is_empty(), "nothing Burned, no Reprieve");
    assert_eq!(k.hand_of(0), strs(&["AS", "9C"]), "the Ace is kept: Reprieve is not offered (R11.27)");
    assert_eq!(k.candle_of(0), strs(&["8D", "7H"]));
    assert_eq!(*k.step(), Step::Ritual);
    assert_eq!(k.asked(), vec![0]);
    assert_eq!(ritual_budget(&k, 0), 1);
    // No Haunting prompt can be answered.
    let err = k.answer(0, Answer::Endure).unwrap_err();
    assert_eq!(err.kind, ErrorKind::WrongAnswer);
}

/// R4.2.2: the Haunting choices: Reprieve only with an Ace (every Ace of the hand is offered),
/// Panic only with a non-empty Candle (every ghost is a Panic target), Endure always; the
/// default is Endure (R10.5 #3).
#[test]
fn r4_2_2_haunting_choices_offered() {
    // Aces and a Candle: both lists full.
    let k = Kit::new(3)
        .hand(0, &["7H", "AS", "9D", "AC"])
        .shadow(0, &[("8H", Some(1)), ("4C", Some(2))])
        .turn_start(0, 1)
        .settled();
    assert_eq!(*k.step(), Step::Haunting);
    assert_eq!(k.asked(), vec![0]);
    let (g, aces, panic) = haunting_choice(&k, 0);
    assert_eq!(g, 2);
    assert_eq!(aces, strs(&["AS", "AC"]));
    assert_eq!(panic, strs(&["8H", "4C"]));
    let p = k.prompt(0).unwrap();
    assert_eq!(p.default, Answer::Endure);
    if let PromptKind::HauntingChoice { aces, panic, .. } = &p.kind {
        assert_eq!(aces[0].handle, k.in_hand(0, "AS"));
        assert_eq!(aces[1].handle, k.in_hand(0, "AC"));
        assert_eq!(panic[0].handle, k.ghost(0, "8H"));
        assert_eq!(panic[1].handle, k.ghost(0, "4C"));
    }
    // No Ace: Reprieve is not offered.
    let k = Kit::new(3).hand(0, &["7H", "9D"]).shadow(0, &[("8H", Some(1))]).turn_start(0, 1).settled();
    let (g, aces, panic) = haunting_choice(&k, 0);
    assert_eq!((g, aces, panic), (1, vec![], strs(&["8H"])));
    // Empty Candle: Panic is not offered (R11.26); the Ace still is.
    let k = Kit::new(3)
        .hand(0, &["AH"])
        .shadow(0, &[("8H", Some(1)), ("4C", None)])
        .candle(0, &[])
        .turn_start(0, 1)
        .settled();
    let (g, aces, panic) = haunting_choice(&k, 0);
    assert_eq!((g, aces, panic), (2, strs(&["AH"]), vec![]));
}

/// R4.2.3, R5.1.1, R6.1.2: Reprieve: the Ace goes to The Dark, nothing is Burned, the Haunting
/// ends; Reprieve is not an action (the budget stays 1), so no Salt window opens even though others hold 5s.
#[test]
fn r4_2_3_reprieve_burns_nothing() {
    let mut k = Kit::new(3)
        .hand(0, &["7H", "AS", "9D"])
        .hand(1, &["5H"])
        .hand(2, &["5C"])
        .shadow(0, &[("8H", Some(1)), ("4C", Some(2)), ("6D", None)])
        .candle(0, &["9C", "8D", "7C", "6S"])
        .turn_start(0, 1)
        .settled();
    let ace = k.in_hand(0, "AS");
    let ev = k.answer(0, Answer::Reprieve { ace }).unwrap();
    assert_eq!(kinds(&ev), vec!["reprieved", "drew"]);
    assert_eq!(k.dark_of(), strs(&["AS"]));
    assert_eq!(k.candle_of(0), strs(&["8D", "7C", "6S"]), "only the Draw took a card");
    assert_eq!(k.hand_of(0), strs(&["7H", "9D", "9C"]));
    assert_eq!(k.shadow_of(0).len(), 3, "the ghosts stay");
    assert_eq!(k.asked(), vec![0], "no Salt window on a Reprieve");
    assert_eq!(ritual_budget(&k, 0), 1);
    assert_eq!(k.hand_of(1), strs(&["5H"]));
}

/// R4.2.3: Reprieve needs an Ace; a non-Ace is refused and nothing changes.
#[test]
fn r4_2_3_reprieve_with_non_ace_refused() {
    let mut k = Kit::new(3).hand(0, &["7H", "9D"]).shadow(0, &[("8H", Some(1))]).turn_start(0, 1).settled();
    let card = k.in_hand(0, "7H");
    let err = k.answer(0, Answer::Reprieve { ace: card }).unwrap_err();
    assert_eq!(err.rule, "R4.2.3");
    assert_eq!(err.kind, ErrorKind::Illegal);
    assert_eq!(*k.step(), Step::Haunting);
    assert_eq!(k.hand_of(0), strs(&["7H", "9D"]));
    assert!(k.dark_of().is_empty());
}

/// R4.2.4: Endure: Burn G, the top card of the Candle to the top of The Dark, one at a time.
#[test]
fn r4_2_4_endure_burns_g_in_order() {
    let mut k = Kit::new(3)
        .shadow(0, &[("8H", Some(1)), ("4C", Some(2)), ("6D", None)])
        .candle(0, &["9C", "8D", "7H", "6S", "4D"])
        .turn_start(0, 1)
        .settled();
    let ev = k.answer(0, Answer::Endure).unwrap();
    assert_eq!(endured(&k, &ev), strs(&["9C", "8D", "7H"]));
    assert_eq!(k.dark_of(), strs(&["7H", "8D", "9C"]), "the last Burned is on top");
    assert_eq!(k.hand_of(0), strs(&["6S"]));
    assert_eq!(k.candle_of(0), strs(&["4D"]));
    assert_eq!(k.shadow_of(0), ghosts(&[("8H", Some(1)), ("4C", Some(2)), ("6D", None)]));
}

/// R4.2.5(b): a Joker revealed by Panic: success, the ghost is Siphoned to the bottom of the
/// Candle, then the Joker goes to The Dark; then Burn one per ghost left (R4.2.5(e)).
#[test]
fn r4_2_5b_panic_joker_siphons_the_ghost() {
    let mut k = Kit::new(3)
        .shadow(0, &[("8H", Some(1)), ("4C", Some(2))])
        .candle(0, &["Joker", "9C", "8D", "7H", "6S"])
        .turn_start(0, 1)
        .settled();
    let ghost = k.ghost(0, "8H");
    let ev = k.answer(0, Answer::Panic { ghost }).unwrap();
    let (g, rev, outcome, burned) = panicked(&k, &ev);
    assert_eq!((g.as_str(), rev.as_str()), ("8H", "Joker"));
    assert_eq!(outcome, PanicOutcome::Joker { siphoned: true });
    assert_eq!(burned, strs(&["9C"]), "one ghost left: Burn 1");
    assert_eq!(k.dark_of(), strs(&["9C", "Joker"]));
    assert_eq!(k.shadow_of(0), ghosts(&[("4C", Some(2))]));
    assert_eq!(k.hand_of(0), strs(&["8D"]));
    assert_eq!(k.candle_of(0), strs(&["7H", "6S", "8H"]), "8H Siphoned to the bottom");
}

/// R4.2.5(b), R5.4.2, B7: a Joker reveal against a Spade-cursed ghost: success, but the ghost
/// goes to The Dark (no Siphon), then the Joker on top of it.
#[test]
fn r4_2_5b_panic_joker_spade_ghost_to_the_dark() {
    let mut k = Kit::new(3)
        .shadow(0, &[("10S", Some(1)), ("4C", Some(2))])
        .candle(0, &["Joker", "9C", "8D", "7H"])
        .turn_start(0, 1)
        .settled();
    let ghost = k.ghost(0, "10S");
    let ev = k.answer(0, Answer::Panic { ghost }).unwrap();
    let (_, rev, outcome, burned) = panicked(&k, &ev);
    assert_eq!(rev, "Joker");
    assert_eq!(outcome, PanicOutcome::Joker { siphoned: false });
    assert_eq!(burned, strs(&["9C"]));
    assert_eq!(k.dark_of(), strs(&["9C", "Joker", "10S"]));
    assert_eq!(k.shadow_of(0), ghosts(&[("4C", Some(2))]));
    assert_eq!(k.candle_of(0), strs(&["7H"]), "nothing Siphoned");
    assert_eq!(k.hand_of(0), strs(&["8D"]));
}

/// R4.2.5(c), R11.26: value(C) >= value(T) is a success with no suit tier: 10♦ ghost against a
/// J♠ reveal, 8♥ ghost against 8♦ (♦ below ♥ would lose a Banish tie); the ghost goes to The
/// Dark, then the revealed card; nothing is Siphoned, not even on an equal rank and suit.
#[test]
fn r4_2_5c_panic_success_without_suit_tier() {
    for (ghost_face, reveal) in [("10D", "JS"), ("8H", "8D"), ("7H", "7H"), ("QS", "10D")] {
        let mut k = Kit::new(3)
            .shadow(0, &[(ghost_face, Some(1)), ("2C", Some(2))])
            .candle(0, &[reveal, "9C", "8C", "6S"])
            .turn_start(0, 1)
            .settled();
        let ghost = k.ghost(0, ghost_face);
        let ev = k.answer(0, Answer::Panic { ghost }).unwrap();
        let (_, _, outcome, burned) = panicked(&k, &ev);
        assert_eq!(outcome, PanicOutcome::Success, "{ghost_face} vs {reveal}");
        assert_eq!(burned, strs(&["9C"]), "{ghost_face} vs {reveal}");
        assert_eq!(k.dark_of(), strs(&["9C", reveal, ghost_face]), "{ghost_face} vs {reveal}");
        assert_eq!(k.shadow_of(0), ghosts(&[("2C", Some(2))]));
        assert_eq!(k.candle_of(0), strs(&["6S"]), "{ghost_face} vs {reveal}: no Siphon");
        assert_eq!(k.hand_of(0), strs(&["8C"]));
    }
}

/// R4.2.5(d)-(e), R3.4.4: failure: the ghost stays, the revealed card becomes a new ghost with
/// no haunter (appended to the Shadow), then Burn one per ghost now in the Shadow.
#[test]
fn r4_2_5d_panic_failure_adds_ghost_without_haunter() {
    let mut k = Kit::new(3)
        .shadow(0, &[("9H", Some(1)), ("4C", Some(2))])
        .candle(0, &["8S", "9C", "8D", "7H", "6S", "4D"])
        .turn_start(0, 1)
        .settled();
    let ghost = k.ghost(0, "9H");
    let ev = k.answer(0, Answer::Panic { ghost }).unwrap();
    let (_, rev, outcome, burned) = panicked(&k, &ev);
    assert_eq!(rev, "8S");
    assert_eq!(outcome, PanicOutcome::Failure);
    assert_eq!(burned, strs(&["9C", "8D", "7H"]), "three ghosts now: Burn 3");
    assert_eq!(k.shadow_of(0), ghosts(&[("9H", Some(1)), ("4C", Some(2)), ("8S", None)]));
    assert_eq!(k.dark_of(), strs(&["7H", "8D", "9C"]));
    assert_eq!(k.hand_of(0), strs(&["6S"]));
    assert_eq!(k.candle_of(0), strs(&["4D"]));
}

/// R4.2.2, R4.2.7, R11.26: Panic is refused when the Candle is empty.
#[test]
fn r4_2_7_panic_refused_with_empty_candle() {
    let mut k = Kit::new(3).shadow(0, &[("8H", Some(1))]).candle(0, &[]).turn_start(0, 1).settled();
    let ghost = k.ghost(0, "8H");
    let err = k.answer(0, Answer::Panic { ghost }).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Illegal);
    assert!(err.rule == "R4.2.2" || err.rule == "R11.26", "cites {}", err.rule);
    assert_eq!(*k.step(), Step::Haunting);
    assert_eq!(k.shadow_of(0), ghosts(&[("8H", Some(1))]));
    // R4.2.2: the Panic target must be a ghost of one's own Shadow.
    let mut k = Kit::new(3).shadow(0, &[("8H", Some(1))]).shadow(1, &[("2C", Some(0))]).turn_start(0, 1).settled();
    let other = k.ghost(1, "2C");
    assert!(k.answer(0, Answer::Panic { ghost: other }).is_err());
    assert_eq!(k.shadow_of(1), ghosts(&[("2C", Some(0))]));
    assert_eq!(*k.step(), Step::Haunting);
}

/// B8 (R4.2.4, R4.2.5): A has ghosts 8♥, 4♣, a Candle of 10 and no Ace; every bullet.
#[test]
fn b8_panic_worked_example() {
    let ten = ["6D", "9C", "8D", "7C", "6S", "4D", "3C", "2D", "10C", "9D"];
    let ten_q = ["QC", "9C", "8D", "7C", "6S", "4D", "3C", "2D", "10C", "9D"];
    let base = |candle: &[&str]| {
        Kit::new(4)
            .hand(0, &["7H", "KD"])
            .shadow(0, &[("8H", Some(1)), ("4C", Some(3))])
            .candle(0, candle)
            .turn_start(0, 1)
            .settled()
    };
    // Endure: Burn 2 -> Candle 8; Draw -> 7.
    let mut k = base(&ten);
    assert_eq!(haunting_choice(&k, 0).1, Vec::<String>::new(), "no Ace: no Reprieve");
    k.answer(0, Answer::Endure).unwrap();
    assert_eq!(k.dark_of(), strs(&["9C", "6D"]));
    assert_eq!(k.candle_of(0).len(), 7);
    assert_eq!(k.hand_of(0), strs(&["7H", "KD", "8D"]));

    // Panic on 8♥, reveal 6♦: failure; 6♦ a third ghost with no haunter; Burn 3 -> 6; Draw -> 5.
    let mut k = base(&ten);
    let ghost = k.ghost(0, "8H");
    let ev = k.answer(0, Answer::Panic { ghost }).unwrap();
    let (_, rev, outcome, burned) = panicked(&k, &ev);
    assert_eq!((rev.as_str(), outcome), ("6D", PanicOutcome::Failure));
    assert_eq!(burned, strs(&["9C", "8D", "7C"]));
    assert_eq!(k.candle_of(0).len(), 5);
    assert_eq!(k.shadow_of(0), ghosts(&[("8H", Some(1)), ("4C", Some(3)), ("6D", None)]));

    // Panic on 8♥, reveal Q♣: success; The Dark receives 8♥ then Q♣; Burn 1 -> 8; Draw -> 7.
    let mut k = base(&ten_q);
    let ghost = k.ghost(0, "8H");
    let ev = k.answer(0, Answer::Panic { ghost }).unwrap();
    let (_, rev, outcome, burned) = panicked(&k, &ev);
    assert_eq!((rev.as_str(), outcome), ("QC", PanicOutcome::Success));
    assert_eq!(burned, strs(&["9C"]));
    assert_eq!(k.dark_of(), strs(&["9C", "QC", "8H"]));
    assert_eq!(k.candle_of(0).len(), 7);
    assert_eq!(k.shadow_of(0), ghosts(&[("4C", Some(3))]));

    // Panic on a 10♦ ghost, reveal J♠: success (no suit tier in Panic).
    let mut k = Kit::new(4).shadow(0, &[("10D", Some(1))]).candle(0, &["JS", "9C", "8D"]).turn_start(0, 1).settled();
    let ghost = k.ghost(0, "10D");
    let ev = k.answer(0, Answer::Panic { ghost }).unwrap();
    assert_eq!(panicked(&k, &ev).2, PanicOutcome::Success);
    assert_eq!(k.dark_of(), strs(&["JS", "10D"]), "no ghost left: no Burn");
    assert!(k.shadow_of(0).is_empty());

    // Empty Candle: Panic not offered; Endure Burns nothing; at The Draw A is Consumed.
    let mut k = base(&[]);
    assert_eq!(haunting_choice(&k, 0).2, Vec::<String>::new());
    let ev = k.answer(0, Answer::Endure).unwrap();
    assert_eq!(endured(&k, &ev), Vec::<String>::new());
    assert_eq!(eliminations(&ev), vec![(0, EliminationCause::Consumed, 4)]);
    assert!(!kinds(&ev).contains(&"drew"));
}

/// R4.2.9, R7.2.2: the Candle running out during the Haunting eliminates nobody: a one-card
/// Candle revealing a Joker empties, the Siphoned ghost refills it, and The Draw succeeds.
#[test]
fn r4_2_9_candle_empty_during_haunting_does_not_eliminate() {
    let mut k = Kit::new(3).shadow(0, &[("8H", Some(1))]).candle(0, &["Joker"]).turn_start(0, 1).settled();
    let ghost = k.ghost(0, "8H");
    let ev = k.answer(0, Answer::Panic { ghost }).unwrap();
    assert!(eliminations(&ev).is_empty());
    assert!(k.lit(0));
    assert_eq!(k.hand_of(0), strs(&["8H"]), "the Siphoned ghost was drawn");
    assert!(k.candle_of(0).is_empty());
    assert_eq!(*k.step(), Step::Ritual);
}

/// R4.2.9, R7.2.1-R7.2.2, R4.3: Endure Burns the Candle empty (fewer Burns than ghosts, R0.9)
/// without eliminating; The Draw then Consumes the player.
#[test]
fn r4_2_9_haunting_empties_candle_then_draw_consumes() {
    let mut k = Kit::new(4)
        .shadow(0, &[("8H", Some(1)), ("4C", Some(3)), ("6D", None)])
        .candle(0, &["9C", "8D"])
        .turn_start(0, 1)
        .settled();
    let ev = k.answer(0, Answer::Endure).unwrap();
    assert_eq!(kinds(&ev)[..2], ["endured", "elimination_started"]);
    assert_eq!(endured(&k, &ev), strs(&["9C", "8D"]));
    assert_eq!(eliminations(&ev), vec![(0, EliminationCause::Consumed, 4)]);
    // Panic failure with a single Candle card: the card becomes a ghost, then The Draw Consumes.
    let mut k = Kit::new(4).shadow(0, &[("8H", Some(1))]).candle(0, &["2D"]).turn_start(0, 1).settled();
    let ghost = k.ghost(0, "8H");
    let ev = k.answer(0, Answer::Panic { ghost }).unwrap();
    assert_eq!(panicked(&k, &ev).2, PanicOutcome::Failure);
    assert_eq!(eliminations(&ev), vec![(0, EliminationCause::Consumed, 4)]);
}

// ---------------------------------------------------------------------------------------------
// R4.3 / R7.2: The Draw
// ---------------------------------------------------------------------------------------------

/// R4.3: The Draw moves the top card of the Candle into the hand, as its newest card.
#[test]
fn r4_3_draw_takes_the_top_card() {
    let k = Kit::new(3).hand(0, &["KD", "2C"]).candle(0, &["JH", "9C", "8D"]).turn_start(0, 1).settled();
    let drawn: Vec<String> = k
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Drew { seat, card } => Some(format!("{seat}:{}", name(k.state.face(*card)))),
            _ => None,
        })
        .collect();
    assert_eq!(drawn, strs(&["0:JH"]));
    assert_eq!(k.hand_of(0), strs(&["KD", "2C", "JH"]));
    assert_eq!(k.candle_of(0), strs(&["9C", "8D"]));
}

/// R7.2.1, R4.3, R7.4 steps 2 and 9, R4.7: a player who must draw from an empty Candle is
/// Consumed at The Draw (placing = players Lit before); the turn passes clockwise from its seat.
#[test]
fn r7_2_1_consumed_at_the_draw_with_empty_candle() {
    let k = Kit::new(4).hand(1, &["KD"]).candle(1, &[]).turn_start(1, 1).settled();
    assert_eq!(eliminations(&k.events), vec![(1, EliminationCause::Consumed, 4)]);
    assert!(!k.lit(1));
    assert_eq!(k.state.players[1].placing, Some(4));
    assert_eq!(k.state.turn.active, 2, "R4.7: the next Lit player clockwise from seat 1");
    assert_eq!(turns(&k, &k.events).last().unwrap().0, 2);
    assert_eq!(k.asked(), vec![2]);
}

// ---------------------------------------------------------------------------------------------
// R4.4: The Ritual (Greed, Salt)
// ---------------------------------------------------------------------------------------------

/// R4.4.4: a Greed that is the turn's first action and resolves adds 1 to the budget (also when
/// it targets another player).
#[test]
fn r4_4_4_first_greed_adds_an_action() {
    let mut k = Kit::new(3).hand(0, &["2H", "7D"]).candle(2, &["9C", "8D", "6S"]).ritual(0);
    let card = k.in_hand(0, "2H");
    k.act(0, Action::Greed { card, target: 2 }).unwrap();
    assert_eq!(k.hand_of(2), strs(&["9C", "8D"]));
    assert_eq!(k.budget(), 1);
    assert_eq!(*k.step(), Step::Ritual);
    assert_eq!(ritual_budget(&k, 0), 1);
    assert_eq!(k.dark_of(), strs(&["2H"]));
}

/// B15 (Greed part), R4.4.4, R11.2: A Casts Greed on itself (draws 2), the budget returns to 1;
/// A Casts a second Greed on D: D draws 2 and A gets no further action (the Ritual ends).
#[test]
fn b15_greed_extra_action_grants_no_more() {
    let mut k = Kit::new(4)
        .hand(0, &["2H", "2D"])
        .candle(0, &["9C", "8D", "6S", "4C"])
        .candle(3, &["7H", "6H", "3C"])
        .ritual(0);
    let g1 = k.in_hand(0, "2H");
    k.act(0, Action::Greed { card: g1, target: 0 }).unwrap();
    assert_eq!(k.hand_of(0), strs(&["2D", "9C", "8D"]));
    assert_eq!(k.budget(), 1);
    let g2 = k.in_hand(0, "2D");
    let ev = k.act(0, Action::Greed { card: g2, target: 3 }).unwrap();
    assert_eq!(k.hand_of(3), strs(&["7H", "6H"]));
    assert_eq!(k.candle_of(3), strs(&["3C"]));
    let i = kinds(&ev).iter().position(|&t| t == "action_resolved").unwrap();
    assert!(
        matches!(ev[i + 1], Event::RitualEnded { seat: 0, abstained: false }),
        "the Ritual ends right after the second Greed: {:?}",
        kinds(&ev)
    );
    assert_eq!(k.state.turn.active, 1, "the turn passed");
    assert_eq!(k.dark_of(), strs(&["2D", "2H"]));
}

/// R4.4.5, R11.1, B15 (last sentence): a Salt that stands against the active player's action
/// ends the Ritual at once (budget 0, even against a first Greed); The Burden still follows.
#[test]
fn r4_4_5_salt_standing_ends_the_ritual() {
    let mut k = Kit::new(3)
        .hand(0, &["2H", "7D", "8D", "9D", "10D", "JD", "KC"])
        .hand(1, &["5H"])
        .candle(0, &["9C", "8C", "6S"])
        .ritual(0);
    let card = k.in_hand(0, "2H");
    k.act(0, Action::Greed { card, target: 0 }).unwrap();
    assert_eq!(k.asked(), vec![1]);
    let five = k.in_hand(1, "5H");
    k.answer(1, Answer::Salt { card: five }).unwrap();
    assert!(matches!(k.prompt(0).map(|p| p.kind), Some(PromptKind::CounterSalt { .. })));
    let ev = k.answer(0, Answer::Yield).unwrap();
    assert!(kinds(&ev).contains(&"action_cancelled"));
    assert_eq!(k.budget(), 0);
    assert_eq!(k.dark_of(), strs(&["5H", "2H"]));
    assert_eq!(k.candle_of(0), strs(&["9C", "8C", "6S"]), "the Greed did not resolve");
    // Hand 6 > 5: The Burden is still held (no Ritual prompt any more).
    assert_eq!(*k.step(), Step::Burden);
    match k.prompt(0).map(|p| p.kind) {
        Some(PromptKind::BurdenDiscard { count, .. }) => assert_eq!(count, 1),
        other => panic!("expected BurdenDiscard, got {other:?}"),
    }
}

/// R4.4.5: after a standing Salt with the hand within the limit, the turn goes to Am I Alive?
/// (which still checks Possession) and nothing more is asked of the active player.
#[test]
fn r4_4_5_salt_then_am_i_alive_still_checks() {
    let mut k = Kit::new(3)
        .hand(0, &["7D"])
        .hand(1, &["5H"])
        .shadow(0, &[("4H", Some(1)), ("9H", Some(2)), ("2H", None)])
        .ritual(0);
    let card = k.in_hand(0, "7D");
    k.act(0, Action::Haunt { card, target: 1 }).unwrap();
    let five = k.in_hand(1, "5H");
    // Seat 0's hand is empty: it yields automatically (R6.5.5); the Salt stands.
    let ev = k.answer(1, Answer::Salt { card: five }).unwrap();
    assert!(kinds(&ev).contains(&"action_cancelled"));
    assert_eq!(eliminations(&ev), vec![(0, EliminationCause::Possessed, 3)]);
    assert!(k.shadow_of(1).is_empty());
}

// ---------------------------------------------------------------------------------------------
// R4.5: The Burden
// ---------------------------------------------------------------------------------------------

/// R4.5.1-R4.5.2: over the limit of 5, BurdenDiscard asks exactly hand − 5 cards (the hand in
/// acquisition order); they go to The Dark in the order chosen (the last chosen on top).
#[test]
fn r4_5_2_burden_discards_in_chosen_order() {
    let mut k = Kit::new(3).hand(0, &["7C", "8C", "9C", "10C", "JC", "QC", "KC", "2D"]).burden(0);
    match k.prompt(0).map(|p| p.kind) {
        Some(PromptKind::BurdenDiscard { count, hand }) => {
            assert_eq!(count, 3);
            let faces: Vec<String> = hand.iter().map(|v| name(v.face)).collect();
            assert_eq!(faces, strs(&["7C", "8C", "9C", "10C", "JC", "QC", "KC", "2D"]));
        }
        other => panic!("expected BurdenDiscard, got {other:?}"),
    }
    let cards = vec![k.in_hand(0, "9C"), k.in_hand(0, "2D"), k.in_hand(0, "7C")];
    let ev = k.answer(0, Answer::Pick { cards }).unwrap();
    assert_eq!(kinds(&ev)[0], "burden_discarded");
    assert_eq!(k.dark_of(), strs(&["7C", "2D", "9C"]));
    assert_eq!(k.hand_of(0), strs(&["8C", "10C", "JC", "QC", "KC"]));
    assert_eq!(k.state.turn.active, 1, "then Am I Alive?, then the turn passed");
}

/// R4.5.2: a Burden answer with the wrong number of cards, or a card twice, is refused.
#[test]
fn r4_5_2_burden_wrong_count_refused() {
    let mut k = Kit::new(3).hand(0, &["7C", "8C", "9C", "10C", "JC", "QC", "KC"]).burden(0);
    let (a, b, c) = (k.in_hand(0, "7C"), k.in_hand(0, "8C"), k.in_hand(0, "9C"));
    for cards in [vec![a], vec![a, b, c], vec![a, a], vec![]] {
        let err = k.answer(0, Answer::Pick { cards }).unwrap_err();
        assert_eq!(err.rule, "R4.5.2");
    }
    assert_eq!(k.hand_of(0).len(), 7);
    assert!(k.dark_of().is_empty());
    k.answer(0, Answer::Pick { cards: vec![b, a] }).unwrap();
    assert_eq!(k.dark_of(), strs(&["7C", "8C"]));
}

/// R4.5.2, R10.4.3: no Burden prompt when the hand is within the limit (5 cards).
#[test]
fn r4_5_no_burden_prompt_within_limit() {
    let mut k = Kit::new(3).hand(0, &["7C", "8C", "9C", "10C", "JC"]).ritual(0);
    let ev = k.answer(0, Answer::EndRitual).unwrap();
    assert_eq!(kinds(&ev)[..2], ["ritual_ended", "turn_started"]);
    assert_eq!(k.hand_of(0).len(), 5);
    assert!(k.dark_of().is_empty());
    assert_eq!(k.state.turn.active, 1);
    // One card more: the prompt asks for exactly 1.
    let mut k = Kit::new(3).hand(0, &["7C", "8C", "9C", "10C", "JC", "QC"]).ritual(0);
    k.answer(0, Answer::EndRitual).unwrap();
    assert_eq!(*k.step(), Step::Burden);
    assert!(matches!(k.prompt(0).map(|p| p.kind), Some(PromptKind::BurdenDiscard { count: 1, .. })));
}

/// R4.5.3, R3.3.4: only the active player discards, only in their own Burden: a player over the limit
/// keeps its cards through another player's turn and discards in its own Burden.
#[test]
fn r4_5_3_only_the_active_player_discards() {
    let mut k = Kit::new(3)
        .hand(0, &["7C"])
        .hand(1, &["7D", "8D", "9D", "10D", "JD", "QD", "KD"])
        .candle(1, &["2H", "3H", "4H"])
        .ritual(0);
    let ev = k.answer(0, Answer::EndRitual).unwrap();
    assert!(!kinds(&ev).contains(&"burden_discarded"));
    assert_eq!(k.state.turn.active, 1);
    assert_eq!(k.hand_of(1).len(), 8, "7 kept, plus the Draw");
    assert!(k.dark_of().is_empty());
    k.answer(1, Answer::EndRitual).unwrap();
    assert_eq!(*k.step(), Step::Burden);
    assert!(matches!(k.prompt(1).map(|p| p.kind), Some(PromptKind::BurdenDiscard { count: 3, .. })));
}

/// R10.5 #21, R10.7.1: the Burden prompt shows the most recently acquired cards as its
/// `default` (a legal answer) but says that its time-out is drawn at random; a time-out
/// discards exactly the excess (the draw itself: tests/defaults.rs); the card drawn this turn
/// counts in the hand.
#[test]
fn r4_5_burden_time_out_discards_the_excess() {
    let mut k =
        Kit::new(3).hand(0, &["7C", "8C", "9C", "10C", "JC"]).candle(0, &["QD", "2C"]).turn_start(0, 1).settled();
    k.answer(0, Answer::EndRitual).unwrap();
    let p = k.prompt(0).unwrap();
    assert_eq!(p.default, Answer::Pick { cards: vec![k.in_hand(0, "QD")] });
    assert!(p.random_default);
    k.send(Command::Timeout).unwrap();
    assert_eq!(k.dark_of().len(), 1);
    assert_eq!(k.hand_of(0).len(), 5);
    // Two over: two cards, in the order recorded (the second ends on top).
    let mut k = Kit::new(3).hand(0, &["7C", "8C", "9C", "10C", "JC", "QC", "KC"]).burden(0);
    let p = k.prompt(0).unwrap();
    assert_eq!(p.default, Answer::Pick { cards: vec![k.in_hand(0, "QC"), k.in_hand(0, "KC")] });
    let ev = k.send(Command::Timeout).unwrap();
    assert_eq!(ev[0], Event::TimedOut { seats: vec![0] });
    let Event::BurdenDiscarded { seat: 0, cards } = &ev[1] else { panic!("{ev:?}") };
    let mut top_first = names(&k, cards);
    top_first.reverse();
    assert_eq!(k.dark_of(), top_first);
    assert_eq!(k.hand_of(0).len(), 5);
}

// ---------------------------------------------------------------------------------------------
// R4.6 / R7.3: Am I Alive?
// ---------------------------------------------------------------------------------------------

/// R4.6.2, R7.3.2: three ghosts of one suit Possess the active player at Am I Alive?.
#[test]
fn r4_6_2_possessed_by_three_of_a_suit() {
    let mut k = Kit::new(3).shadow(0, &[("4H", Some(1)), ("2C", Some(2)), ("9H", Some(2)), ("KH", None)]).am_i_alive(0);
    k.settle();
    assert_eq!(eliminations(&k.events), vec![(0, EliminationCause::Possessed, 3)]);
    // E answers its own split (R7.4.1); the default then closes the circle.
    assert!(matches!(k.prompt(0).map(|p| p.kind), Some(PromptKind::DeathSplit { .. })));
    k.send(Command::Timeout).unwrap();
    assert!(!k.lit(0));
    assert_eq!(k.state.turn.active, 1);
}

/// R7.3.2-R7.3.3: two of a suit, a Joker ghost and other suits do not Possess; the turn passes.
#[test]
fn r7_3_3_no_possession_below_three_of_a_suit() {
    let mut k = Kit::new(3)
        .shadow(0, &[("4H", Some(1)), ("9H", Some(2)), ("Joker", Some(1)), ("2C", None), ("3C", None), ("6D", None)])
        .am_i_alive(0);
    k.settle();
    assert!(eliminations(&k.events).is_empty());
    assert!(k.lit(0));
    assert_eq!(turns(&k, &k.events), vec![(1, 1, vec![])]);
}

/// R4.6.1-R4.6.2: the Candle check comes first: an empty Candle with three hearts is Consumed,
/// not Possessed.
#[test]
fn r4_6_1_candle_check_before_possession() {
    let mut k = Kit::new(3).shadow(0, &[("4H", Some(1)), ("9H", Some(2)), ("2H", None)]).candle(0, &[]).am_i_alive(0);
    k.settle();
    assert_eq!(eliminations(&k.events), vec![(0, EliminationCause::Consumed, 3)]);
}

/// R7.3.1, R7.3.4: a third heart Haunted onto a player on another's turn does not eliminate
/// them at that turn's Am I Alive?; they are checked at the end of their own turn.
#[test]
fn r7_3_4_ghost_arriving_on_another_turn_never_eliminates() {
    let mut k = Kit::new(3)
        .hand(0, &["2H"])
        .shadow(1, &[("4H", Some(0)), ("9H", Some(2))])
        .candle(1, &["9C", "8D", "7C", "6S", "4D"])
        .ritual(0);
    let card = k.in_hand(0, "2H");
    k.act(0, Action::Haunt { card, target: 1 }).unwrap();
    // Seat 0's turn ended; seat 1 is Lit and at its Haunting with three hearts.
    assert!(eliminations(&k.events).is_empty());
    assert!(k.lit(1));
    assert_eq!(k.shadow_of(1), ghosts(&[("4H", Some(0)), ("9H", Some(2)), ("2H", Some(0))]));
    assert_eq!(*k.step(), Step::Haunting);
    assert_eq!(k.state.turn.active, 1);
    k.answer(1, Answer::Endure).unwrap();
    let ev = k.answer(1, Answer::EndRitual).unwrap();
    assert_eq!(eliminations(&ev), vec![(1, EliminationCause::Possessed, 3)]);
}

/// B14 up to B's Ritual: C Haunts B with 2♥, D's BOO! gives B a 6♥, A plays its turn; B then
/// Endures (Burn 4) and Draws. Returns the kit at B's Ritual.
fn b14_to_b_ritual(b_hand: &[&str]) -> Kit {
    // A = 0, B = 1, C = 2, D = 3.
    let mut k = Kit::new(4)
        .hand(1, b_hand)
        .hand(2, &["2H"])
        .hand(3, &["Joker"])
        .shadow(1, &[("4H", Some(0)), ("9H", Some(2))])
        .candle(1, &["6H", "9C", "8D", "7D", "6S", "4C", "3D", "2C"])
        .candle(2, &["9S", "8S", "7S", "6C"])
        .candle(3, &["10S", "3S"])
        .candle(0, &["2S", "4S", "3H", "10H"])
        .ritual(2);
    // C Haunts B with 2♥: three hearts, not eliminated.
    let card = k.in_hand(2, "2H");
    k.act(2, Action::Haunt { card, target: 1 }).unwrap();
    pass_salts(&mut k);
    assert_eq!(k.shadow_of(1), ghosts(&[("4H", Some(0)), ("9H", Some(2)), ("2H", Some(2))]));
    assert!(k.lit(1));
    assert_eq!(k.state.turn.active, 3);
    // D's BOO! gives B a 6♥: four hearts, still not eliminated.
    assert_eq!(*k.step(), Step::Ritual);
    let card = k.in_hand(3, "Joker");
    k.act(3, Action::Boo { card }).unwrap();
    pass_salts(&mut k);
    assert_eq!(k.shadow_of(1), ghosts(&[("4H", Some(0)), ("9H", Some(2)), ("2H", Some(2)), ("6H", None)]));
    assert!(k.lit(1));
    assert!(eliminations(&k.events).is_empty());
    // A's turn (a BOO! ghost): Endure, then end the Ritual.
    assert_eq!(k.state.turn.active, 0);
    k.answer(0, Answer::Endure).unwrap();
    k.answer(0, Answer::EndRitual).unwrap();
    assert!(k.lit(1));
    // B's turn: Endure (Burn 4), Draw.
    assert_eq!(k.state.turn.active, 1);
    assert_eq!(haunting_choice(&k, 1).0, 4);
    let ev = k.answer(1, Answer::Endure).unwrap();
    assert_eq!(endured(&k, &ev), strs(&["9C", "8D", "7D", "6S"]));
    assert_eq!(*k.step(), Step::Ritual);
    k
}

/// B14 (R7.3): B Cleanses 9♥ with 7♥ (same suit: Siphoned); three hearts remain (4♥, 2♥, 6♥):
/// at Am I Alive? B is Possessed.
#[test]
fn b14_possession_checked_at_own_turn_only() {
    let mut k = b14_to_b_ritual(&["7H"]);
    let (card, ghost) = (k.in_hand(1, "7H"), k.ghost(1, "9H"));
    k.act(1, Action::Cleanse { card, ghost, second: None }).unwrap();
    pass_salts(&mut k);
    assert_eq!(k.candle_of(1).last().map(String::as_str), Some("9H"), "Siphoned");
    assert_eq!(k.shadow_of(1), ghosts(&[("4H", Some(0)), ("2H", Some(2)), ("6H", None)]));
    assert_eq!(eliminations(&k.events), vec![(1, EliminationCause::Possessed, 4)]);
}

/// B14 variant: had B Summoned Purge with K♥ instead, every heart would have been Siphoned and
/// B would survive.
#[test]
fn b14_purge_variant_survives() {
    let mut k = b14_to_b_ritual(&["7H", "KH"]);
    let card = k.in_hand(1, "KH");
    k.act(1, Action::Purge { card }).unwrap();
    pass_salts(&mut k);
    assert!(k.shadow_of(1).is_empty());
    assert!(eliminations(&k.events).is_empty());
    assert!(k.lit(1));
    assert_eq!(k.state.turn.active, 2);
}

/// B15 (empty-Candle part), R7.2.1-R7.2.2: B's Candle of 2 is Drained empty on A's turn, but B
/// is not eliminated; on B's turn B (one ghost) Endures, Burning nothing, and is Consumed at
/// The Draw.
#[test]
fn b15_empty_candle_kills_only_at_own_draw() {
    let mut k = Kit::new(4)
        .hand(0, &["4H"])
        .shadow(1, &[("7C", Some(2))])
        .candle(1, &["9C", "8D"])
        .candle(3, &["6S", "3C", "2D"])
        .candle(0, &["10C", "9D"])
        .ritual(0);
    let card = k.in_hand(0, "4H");
    k.act(0, Action::Drain { card }).unwrap();
    assert!(k.candle_of(1).is_empty());
    assert_eq!(k.candle_of(0), strs(&["6S", "3C", "9C", "8D", "10C", "9D"]));
    assert!(k.lit(1), "an empty Candle on another's turn eliminates nobody");
    assert!(eliminations(&k.events).is_empty());
    // B's turn: Panic is not offered; Endure Burns nothing; Consumed at The Draw.
    assert_eq!(k.state.turn.active, 1);
    assert_eq!(haunting_choice(&k, 1), (1, vec![], vec![]));
    let ev = k.answer(1, Answer::Endure).unwrap();
    assert_eq!(endured(&k, &ev), Vec::<String>::new());
    assert_eq!(eliminations(&ev), vec![(1, EliminationCause::Consumed, 4)]);
    // B's single ghost: B chooses which neighbour receives it (sizes 0 or 1).
    k.send(Command::Timeout).unwrap();
    assert!(!k.lit(1));
    assert_eq!(k.state.turn.active, 2, "the turn passes clockwise from B's seat");
}

// ---------------------------------------------------------------------------------------------
// R4.7: passing the turn
// ---------------------------------------------------------------------------------------------

/// R4.7: the turn passes to the nearest Lit player clockwise, skipping eliminated seats, and
/// wrapping around the table.
#[test]
fn r4_7_turn_passes_to_nearest_lit_clockwise() {
    let mut k = Kit::new(5).out(2, 5).out(3, 4).ritual(1);
    k.answer(1, Answer::EndRitual).unwrap();
    assert_eq!(k.state.turn.active, 4);
    k.answer(4, Answer::EndRitual).unwrap();
    assert_eq!(k.state.turn.active, 0);
    k.answer(0, Answer::EndRitual).unwrap();
    assert_eq!(k.state.turn.active, 1);
    assert_eq!(turns(&k, &k.events).iter().map(|t| t.0).collect::<Vec<_>>(), vec![4, 0, 1]);
}

// ---------------------------------------------------------------------------------------------
// R7.9: The Guttering
// ---------------------------------------------------------------------------------------------

/// R7.9.1: a round begins each time the turn passes to the first player (seat 0 here).
#[test]
fn r7_9_1_rounds_begin_at_the_first_player() {
    let mut k = Kit::new(3).ritual(0);
    for _ in 0..6 {
        let s = k.state.turn.active;
        k.answer(s, Answer::EndRitual).unwrap();
    }
    let t: Vec<(u8, u16)> = turns(&k, &k.events).iter().map(|t| (t.0, t.1)).collect();
    assert_eq!(t, vec![(1, 1), (2, 1), (0, 2), (1, 2), (2, 2), (0, 3)]);
    assert_eq!(k.state.round(), 3);
}

/// R7.9.1: when the first player is no longer Lit, a round begins when the turn passes to the
/// nearest Lit player clockwise from that player's seat.
#[test]
fn r7_9_1_round_when_first_player_is_out() {
    let mut k = Kit::new(4).out(0, 4).ritual(2);
    for _ in 0..4 {
        let s = k.state.turn.active;
        k.answer(s, Answer::EndRitual).unwrap();
    }
    let t: Vec<(u8, u16)> = turns(&k, &k.events).iter().map(|t| (t.0, t.1)).collect();
    assert_eq!(t, vec![(3, 1), (1, 2), (2, 2), (3, 2)]);
}

/// R7.9.1 (literal text): "when that player is no longer Lit, [a round begins when the turn
/// passes] to the nearest Lit player clockwise from that player's seat". The first player (seat
/// 0) is Consumed at the end of its own turn in round 1; the turn passes to seat 1, the nearest
/// Lit player clockwise from seat 0, so round 2 begins at once (a one-turn round 1; see
/// docs/rules-decisions.md, item 1).
#[test]
fn r7_9_1_round_begins_when_first_player_falls_on_own_turn() {
    let mut k = Kit::new(3).candle(0, &[]).am_i_alive(0);
    k.settle();
    assert_eq!(eliminations(&k.events), vec![(0, EliminationCause::Consumed, 3)]);
    assert_eq!(turns(&k, &k.events).iter().map(|t| (t.0, t.1)).collect::<Vec<_>>(), vec![(1, 2)]);
}

/// R7.9.3: from round L + 1 on, each turn starts with (round − L) Burns, even with no ghosts;
/// none in round L.
#[test]
fn r7_9_3_guttering_burns_from_round_l_plus_one() {
    let candle = ["9C", "8D", "7H", "6S", "4C", "3D"];
    for (round, burned) in [(10u16, 0usize), (11, 1), (13, 3)] {
        let k = Kit::with(limited(3, 10)).candle(0, &candle).turn_start(0, round).settled();
        let t = turns(&k, &k.events);
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].2, strs(&candle[..burned]), "round {round}");
        let mut dark = strs(&candle[..burned]);
        dark.reverse();
        assert_eq!(k.dark_of(), dark, "round {round}");
        assert_eq!(k.hand_of(0), strs(&[candle[burned]]), "round {round}: then the Draw");
        assert_eq!(k.state.round(), round);
    }
}

/// R7.9.3: the Guttering Burns come before the Haunting choice and Reprieve cannot prevent them.
#[test]
fn r7_9_3_guttering_before_haunting_not_prevented_by_reprieve() {
    let mut k = Kit::with(limited(3, 10))
        .hand(0, &["AS"])
        .shadow(0, &[("4C", Some(1))])
        .candle(0, &["9C", "8D", "7H", "6S"])
        .turn_start(0, 12)
        .settled();
    assert_eq!(turns(&k, &k.events), vec![(0, 12, strs(&["9C", "8D"]))]);
    assert_eq!(*k.step(), Step::Haunting);
    assert_eq!(k.dark_of(), strs(&["8D", "9C"]));
    let ace = k.in_hand(0, "AS");
    k.answer(0, Answer::Reprieve { ace }).unwrap();
    assert_eq!(k.dark_of(), strs(&["AS", "8D", "9C"]));
    assert_eq!(k.hand_of(0), strs(&["7H"]));
    assert_eq!(k.candle_of(0), strs(&["6S"]));
}

/// R7.9.3, R7.2.2, R0.9: Guttering Burns take what there is and do not eliminate; the empty
/// Candle Consumes at The Draw (R7.2.1).
#[test]
fn r7_9_3_guttering_burns_never_eliminate_by_themselves() {
    let mut k = Kit::with(limited(3, 10)).shadow(0, &[("4C", Some(1))]).candle(0, &["9C", "8D"]).turn_start(0, 13);
    k.settle();
    assert_eq!(turns(&k, &k.events), vec![(0, 13, strs(&["9C", "8D"]))]);
    assert!(eliminations(&k.events).is_empty(), "not eliminated by the Guttering");
    assert_eq!(*k.step(), Step::Haunting);
    let ev = k.answer(0, Answer::Endure).unwrap();
    assert_eq!(eliminations(&ev), vec![(0, EliminationCause::Consumed, 3)]);
}

/// R7.9.2: the round limit is at least 10.
#[test]
fn r7_9_2_round_limit_at_least_ten() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let err = create(&limited(3, 9), &mut rng).unwrap_err();
    assert_eq!((err.rule, err.kind), ("R7.9.2", ErrorKind::BadSettings));
    assert!(create(&limited(3, 10), &mut rng).is_ok());
}

/// R7.9.4: the last round 2L is played in full; when round 2L + 1 would begin the game ends,
/// the Lit players ranked by Candle size, then hand size (larger better); one best: the winner.
#[test]
fn r7_9_4_hard_end_ranks_by_candle_then_hand() {
    let mut k = Kit::with(limited(4, 10))
        .out(3, 4)
        .hand(0, &["7C", "8C"])
        .hand(1, &["9D"])
        .hand(2, &["7D", "8D", "9S"])
        .candle_size(0, 6)
        .candle_size(1, 9)
        .candle_size(2, 16)
        .ritual(1);
    k.state.turn.round = 20;
    // Seat 1's turn ends: seat 2 still plays round 20 (with 10 Guttering Burns).
    k.answer(1, Answer::EndRitual).unwrap();
    assert!(k.state.result.is_none());
    assert_eq!(turns(&k, &k.events).last().map(|t| (t.0, t.1, t.2.len())), Some((2, 20, 10)));
    // Seat 2: Candle 16 - 10 - 1 = 5 < 6, hand 4.
    assert_eq!(k.candle_of(2).len(), 5);
    k.answer(2, Answer::EndRitual).unwrap();
    let r = k.state.result.clone().expect("the game ended");
    assert_eq!(r.reason, EndReason::Guttered);
    assert_eq!(r.placings, vec![2, 1, 3, 4]);
    assert_eq!(r.winner, Some(1));
    assert!(turns(&k, &k.events).iter().all(|t| t.1 <= 20), "round 21 never begins");
}

/// R7.9.4: with equal Candles the larger hand is better, then fewer ghosts.
#[test]
fn r7_9_4_hard_end_hand_then_fewer_ghosts() {
    let mut k = Kit::with(limited(3, 10))
        .hand(0, &["7C", "8C"])
        .hand(1, &["7D", "8D"])
        .hand(2, &["7H"])
        .shadow(0, &[("2C", None), ("3D", None)])
        .shadow(1, &[("2D", None)])
        .candle_size(0, 6)
        .candle_size(1, 6)
        .candle_size(2, 6)
        .ritual(2);
    k.state.turn.round = 20;
    k.answer(2, Answer::EndRitual).unwrap();
    let r = k.state.result.clone().expect("the game ended");
    assert_eq!(r.reason, EndReason::Guttered);
    assert_eq!(r.placings, vec![2, 1, 3]);
    assert_eq!(r.winner, Some(1));
}

/// R7.9.4: players still equal share the placing; with a tie for first there is no winner.
#[test]
fn r7_9_4_tie_for_first_no_winner() {
    let mut k = Kit::with(limited(4, 10))
        .out(3, 4)
        .hand(0, &["7C", "8C"])
        .hand(1, &["7D", "8D"])
        .hand(2, &["7H", "8H"])
        .shadow(0, &[("2C", None)])
        .shadow(1, &[("2D", None)])
        .shadow(2, &[("2H", None), ("3C", None)])
        .candle_size(0, 6)
        .candle_size(1, 6)
        .candle_size(2, 6)
        .ritual(2);
    k.state.turn.round = 20;
    k.answer(2, Answer::EndRitual).unwrap();
    let r = k.state.result.clone().expect("the game ended");
    assert_eq!(r.reason, EndReason::Guttered);
    assert_eq!(r.winner, None);
    assert_eq!(r.placings[0], r.placings[1], "equal players share the placing");
    assert_eq!(r.placings, vec![1, 1, 3, 4]);
}

// ---------------------------------------------------------------------------------------------
// R2.6: first player
// ---------------------------------------------------------------------------------------------

fn with_first(n: u8, fp: FirstPlayer) -> Settings {
    let mut s = settings(n);
    s.first_player = fp;
    s
}

/// R2.6: the tiebreaker winner going first takes the first turn; going last, the player to
/// their left does, and the winner takes the last turn of each round.
#[test]
fn r2_6_first_player_first_and_last() {
    let k = Kit::dealt_with(with_first(4, FirstPlayer::First { seat: 2 }));
    assert_eq!(k.state.first_player, Some(2));
    assert_eq!(turns(&k, &k.events), vec![(2, 1, vec![])]);
    let k = Kit::dealt_with(with_first(4, FirstPlayer::Last { seat: 3 }));
    assert_eq!(turns(&k, &k.events), vec![(0, 1, vec![])]);
    // Last, seat 1 of 3: turn order 2, 0, 1, then round 2 begins with seat 2.
    let mut k = Kit::dealt_with(with_first(3, FirstPlayer::Last { seat: 1 }));
    for _ in 0..4 {
        let s = k.state.turn.active;
        k.answer(s, Answer::EndRitual).unwrap();
    }
    let t: Vec<(u8, u16)> = turns(&k, &k.events).iter().map(|t| (t.0, t.1)).collect();
    assert_eq!(t, vec![(2, 1), (0, 1), (1, 1), (2, 2), (0, 2)]);
}

/// R2.6, R10.5 #1: with Ask, the tiebreaker winner alone gets TurnOrderChoice (default First);
/// Last gives the first turn to their left neighbour; a time-out gives First.
#[test]
fn r2_6_ask_turn_order_choice() {
    let mut k = Kit::dealt_with(with_first(4, FirstPlayer::Ask { seat: 1 }));
    assert_eq!(*k.step(), Step::TurnOrder { seat: 1 });
    assert_eq!(k.asked(), vec![1]);
    let p = k.prompt(1).unwrap();
    assert_eq!(p.kind, PromptKind::TurnOrderChoice);
    assert_eq!(p.default, Answer::TurnOrder { choice: TurnOrder::First });
    assert!(turns(&k, &k.events).is_empty(), "no turn before the choice");
    k.answer(1, Answer::TurnOrder { choice: TurnOrder::Last }).unwrap();
    assert_eq!(k.state.first_player, Some(2));
    assert_eq!(turns(&k, &k.events), vec![(2, 1, vec![])]);
    // Time-out: First.
    let mut k = Kit::dealt_with(with_first(4, FirstPlayer::Ask { seat: 3 }));
    k.send(Command::Timeout).unwrap();
    assert_eq!(k.state.first_player, Some(3));
    assert_eq!(turns(&k, &k.events), vec![(3, 1, vec![])]);
}

/// R2.6, R10.2.1: Random: the server draws the first player, records it in the creation event,
/// and that player takes the first turn; every seat can be drawn.
#[test]
fn r2_6_random_first_player_recorded() {
    let s = with_first(4, FirstPlayer::Random);
    let mut seen = [0u32; 4];
    for seed in 0..200 {
        let (_, events) = as_dealt(&s, seed);
        let Event::GameCreated(g) = &events[0] else { panic!("creation event first") };
        let first = g.first_player.expect("recorded");
        assert!(matches!(events[1], Event::TurnStarted { seat, round: 1, .. } if seat == first));
        seen[first as usize] += 1;
    }
    assert!(seen.iter().all(|&c| c >= 20), "each seat drawn: {seen:?}");
}

// ---------------------------------------------------------------------------------------------
// R1.6, R2.3-R2.5: the deal
// ---------------------------------------------------------------------------------------------

/// R1.6, R2.3-R2.5: for 2 to 8 players, each Candle is dealt 27 and the top 3 become the hand
/// (24 left), The Dark holds the surplus (27 for odd n, 0 for even); then the first player's
/// Draw takes one more.
#[test]
fn r2_3_to_r2_5_deal_for_two_to_eight_players() {
    for n in 2..=8u8 {
        let (state, events) = as_dealt(&settings(n), u64::from(n));
        let Event::GameCreated(g) = &events[0] else { panic!("creation event first") };
        let pool = 54 * (n as usize).div_ceil(2);
        assert_eq!(g.pool.len(), pool, "n = {n}");
        assert_eq!(g.pool.iter().filter(|c| c.face.suit.is_none()).count(), 2 * (n as usize).div_ceil(2));
        let surplus = if n % 2 == 1 { 27 } else { 0 };
        assert_eq!(state.dark.len(), surplus, "n = {n}");
        assert_eq!(state.dark, g.dark, "the last surplus card placed is the top");
        for s in 0..n as usize {
            assert_eq!(g.candles[s].len(), 27, "n = {n}, seat {s}");
            assert_eq!(state.players[s].hand, g.candles[s][..3], "the top 3 are drawn");
            assert_eq!(state.players[s].candle.iter().copied().collect::<Vec<_>>(), g.candles[s][3..]);
            assert_eq!(state.players[s].candle.len(), 24);
            assert!(state.players[s].shadow.is_empty());
        }
        // After the automatic steps: seat 0 (first) has drawn at its Draw.
        let k = Kit::dealt(n);
        for s in 0..n as usize {
            let (hand, candle) = if s == 0 { (4, 23) } else { (3, 24) };
            assert_eq!(k.state.players[s].hand.len(), hand, "n = {n}, seat {s}");
            assert_eq!(k.state.players[s].candle.len(), candle, "n = {n}, seat {s}");
        }
        assert_eq!(k.state.dark.len(), surplus);
        assert_eq!(*k.step(), Step::Ritual);
    }
}

/// B1 (pool parts): 2 players: 54 cards, 54 dealt, The Dark empty, hands 3, Candles 24;
/// 3 players: 108 cards, 81 dealt, The Dark 27, hands 3, Candles 24.
#[test]
fn b1_pools_for_two_and_three_players() {
    for (n, pool, dealt, dark) in [(2u8, 54usize, 54usize, 0usize), (3, 108, 81, 27)] {
        let (state, events) = as_dealt(&settings(n), 99);
        let Event::GameCreated(g) = &events[0] else { panic!("creation event first") };
        assert_eq!(g.pool.len(), pool);
        assert_eq!(g.candles.iter().map(Vec::len).sum::<usize>(), dealt);
        assert_eq!(state.dark.len(), dark);
        for p in &state.players {
            assert_eq!((p.hand.len(), p.candle.len()), (3, 24));
        }
        let mut all: Vec<CardId> = g.candles.iter().flatten().copied().chain(g.dark.iter().copied()).collect();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), pool, "every card dealt or in The Dark, once");
    }
}

// ---------------------------------------------------------------------------------------------
// R10.7.1: time-outs
// ---------------------------------------------------------------------------------------------

/// R10.7.1, R10.5: `Timeout` records the time-out (`timed_out` naming the seat) and then applies
/// the open prompt's default: HauntingChoice → Endure, Ritual → End (Abstain), Salt → Pass,
/// CounterSalt → Yield.
#[test]
fn r10_7_1_timeout_applies_the_default() {
    // HauntingChoice: Endure.
    let mut k = Kit::new(3).shadow(0, &[("8H", Some(1))]).candle(0, &["9C", "8D", "7C"]).turn_start(0, 1).settled();
    let ev = k.send(Command::Timeout).unwrap();
    assert_eq!(ev[0], Event::TimedOut { seats: vec![0] });
    assert_eq!(endured(&k, &ev), strs(&["9C"]));
    // Ritual: End, abstaining (no action yet).
    assert_eq!(k.prompt(0).unwrap().default, Answer::EndRitual);
    let ev = k.send(Command::Timeout).unwrap();
    assert_eq!(ev[0], Event::TimedOut { seats: vec![0] });
    assert!(matches!(ev[1], Event::RitualEnded { seat: 0, abstained: true }));
    assert_eq!(k.state.turn.active, 1);
    // Salt: Pass; CounterSalt: Yield (the Salt stands).
    let mut k = Kit::new(3).hand(0, &["7D", "9C"]).hand(1, &["5H", "2C"]).hand(2, &["5D"]).ritual(0);
    let card = k.in_hand(0, "7D");
    k.act(0, Action::Haunt { card, target: 1 }).unwrap();
    assert_eq!(k.asked(), vec![1]);
    assert_eq!(k.prompt(1).unwrap().default, Answer::Pass);
    let ev = k.send(Command::Timeout).unwrap();
    assert_eq!(ev[..2], [Event::TimedOut { seats: vec![1] }, Event::Passed { seat: 1 }]);
    assert_eq!(k.asked(), vec![2]);
    let five = k.in_hand(2, "5D");
    k.answer(2, Answer::Salt { card: five }).unwrap();
    assert_eq!(k.asked(), vec![0]);
    assert_eq!(k.prompt(0).unwrap().default, Answer::Yield);
    let ev = k.send(Command::Timeout).unwrap();
    assert_eq!(ev[..2], [Event::TimedOut { seats: vec![0] }, Event::Yielded { seat: 0 }]);
    assert!(kinds(&ev).contains(&"action_cancelled"));
    assert_eq!(k.dark_of(), strs(&["5D", "7D"]));
    assert!(k.shadow_of(1).is_empty());
}

/// R4.1.2: players other than the active player act only when prompted: a declaration, a
/// Haunting choice or an end of Ritual from another seat is refused and changes nothing.
#[test]
fn r4_1_2_other_players_act_only_when_prompted() {
    let mut k = Kit::new(3).hand(0, &["7H"]).hand(1, &["9C", "AS"]).ritual(0);
    let card = k.in_hand(1, "9C");
    assert!(k.act(1, Action::Haunt { card, target: 0 }).is_err());
    assert!(k.answer(1, Answer::EndRitual).is_err());
    assert!(k.answer(2, Answer::Endure).is_err());
    assert_eq!(k.asked(), vec![0]);
    assert_eq!(k.hand_of(1), strs(&["9C", "AS"]));
}

/// R4.2.6: Panic is part of the single Haunting choice: once chosen, a second Panic (or any other
/// Haunting choice) in the same turn is refused.
#[test]
fn r4_2_6_panic_at_most_once_per_turn() {
    let mut k = Kit::new(3)
        .shadow(0, &[("4C", Some(1)), ("3D", Some(2))])
        .candle(0, &["9C", "8D", "7C", "6S", "2H"])
        .turn_start(0, 1)
        .settled();
    k.answer(0, Answer::Panic { ghost: k.ghost(0, "4C") }).unwrap();
    assert_eq!(k.shadow_of(0).len(), 1, "the Panic succeeded (9 ≥ 4)");
    let again = k.answer(0, Answer::Panic { ghost: k.ghost(0, "3D") });
    assert!(again.is_err(), "a second Panic in the same turn");
    assert!(k.answer(0, Answer::Endure).is_err());
    assert_eq!(k.shadow_of(0), vec![("3D".to_string(), Some(2))]);
}

/// R4.4.7: the Ritual ends when the active player chooses to end it, even with budget left.
#[test]
fn r4_4_7_the_ritual_ends_when_the_player_ends_it() {
    let mut k = Kit::new(3).hand(0, &["7H", "8H"]).ritual(0);
    k.state.turn.budget = 2;
    let card = k.in_hand(0, "7H");
    k.act(0, Action::Haunt { card, target: 1 }).unwrap();
    pass_salts(&mut k);
    assert_eq!(ritual_budget(&k, 0), 1, "one action left");
    let ev = k.answer(0, Answer::EndRitual).unwrap();
    assert!(kinds(&ev).contains(&"ritual_ended"));
    assert_ne!(*k.step(), Step::Ritual);
    assert_eq!(k.hand_of(0), strs(&["8H"]), "the unused card stays in hand");
}

/// R4.6.3: at Am I Alive? a player neither Consumed nor Possessed stays Lit and the turn ends:
/// the next player's turn starts.
#[test]
fn r4_6_3_neither_check_applies_the_turn_ends() {
    let mut k = Kit::new(3).shadow(0, &[("4H", None), ("2H", None), ("6C", None)]).am_i_alive(0);
    k.settle();
    assert!(k.lit(0));
    assert!(eliminations(&k.events).is_empty());
    assert_eq!(turns(&k, &k.events).first().map(|t| (t.0, t.1)), Some((1, 1)));
}

/// R2.2: the pool (R1.6) is shuffled into a single stack before the deal: every card of the pool
/// is dealt or set aside exactly once, and two seeds deal differently.
#[test]
fn r2_2_the_pool_is_shuffled_into_one_stack() {
    let s = settings(3);
    let (a, _) = as_dealt(&s, 1);
    let (b, _) = as_dealt(&s, 2);
    for st in [&a, &b] {
        let mut all: Vec<CardId> =
            st.players.iter().flat_map(|p| p.candle.iter().chain(p.hand.iter()).copied()).collect();
        all.extend(st.dark.iter().copied());
        all.extend(st.out_of_play.iter().copied());
        all.sort();
        all.dedup();
        assert_eq!(all.len(), 108, "3 players: 2 decks and 4 Jokers, each card once");
    }
    assert_ne!(a.players[0].candle, b.players[0].candle, "two seeds, two orders");
}
