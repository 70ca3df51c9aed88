//! Rule tests of the `classic-1.0` ruleset (RULES.md appendix A, A-ids), classes off. Each test
//! names the A-id it checks; the `current` rules' tests elsewhere run unchanged.

use super::kit::*;
use crate::model::action::{Action, MediumMode};
use crate::model::command::Answer;
use crate::model::edition::Rules;
use crate::model::error::ErrorKind;
use crate::model::event::{Effect, EliminationCause, Event};
use crate::model::settings::{CLASSIC_RULESET, DarkMode, FirstPlayer, RulesetName, Settings};
use crate::model::state::Step;
use crate::rules::decide::create;
use crate::rules::prompt::{PromptKind, UseOption};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

/// Kit settings (sequential windows, seat 0 first) under `classic-1.0`.
fn classic(n: u8) -> Settings {
    let mut s = settings(n);
    s.ruleset = RulesetName::Classic;
    s
}

fn kit(n: u8) -> Kit {
    Kit::with(classic(n))
}

fn strs(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

/// Gives the active player a second action, so that the Ritual stays open after the action
/// under test and no later turn touches the zones a test checks (classic has one action, A4.3).
fn spare(mut k: Kit) -> Kit {
    k.state.turn.budget = 2;
    k
}

fn last_effect(k: &Kit) -> Effect {
    k.last_effect().expect("an action resolved")
}

fn uses_of(k: &Kit, seat: u8, card: &str) -> Vec<UseOption> {
    let p = k.prompt(seat).expect("an open prompt");
    let PromptKind::Ritual { options, .. } = p.kind else { panic!("not a Ritual prompt: {:?}", p.kind) };
    let f = face(card);
    options.into_iter().find(|o| o.card.face == f).map(|o| o.uses).unwrap_or_default()
}

fn kinds(events: &[Event]) -> Vec<&'static str> {
    events.iter().map(|e| e.type_name()).collect()
}

/// Passes every sequential Salt prompt of the open window.
fn pass_window(k: &mut Kit) {
    while let [seat] = k.asked()[..] {
        if !matches!(k.prompt(seat).map(|p| p.kind), Some(PromptKind::Salt { .. })) {
            break;
        }
        k.answer(seat, Answer::Pass).unwrap();
    }
}

// ---------------------------------------------------------------------------------------------
// A1, A2: the ruleset, components and setup
// ---------------------------------------------------------------------------------------------

/// A1, R10.1.3: a classic game records `classic-1.0` and its version, and folds under it.
#[test]
fn a1_the_creation_event_records_classic() {
    let k = Kit::dealt_with(classic(3));
    let Event::GameCreated(g) = &k.events[0] else { panic!("first event") };
    assert_eq!(g.ruleset.id, CLASSIC_RULESET);
    assert_eq!(g.ruleset.version, 1);
    assert_eq!(k.state.rules(), Rules::CLASSIC);
}

/// A2.1-A2.4: 2 players use 2 decks of 54 (108 cards: 54 dealt, 54 face up to The Dark); each
/// Candle is 27 and the starting hand 5 (Candle 22).
#[test]
fn a2_1_a2_4_two_player_deal() {
    let k = Kit::dealt_with(classic(2));
    assert_eq!(k.state.pool.len(), 108);
    assert_eq!(k.state.dark.len(), 54);
    // Seat 1 as dealt; seat 0 has also drawn for its first turn.
    assert_eq!((k.state.players[1].hand.len(), k.state.players[1].candle.len()), (5, 22));
    assert_eq!((k.state.players[0].hand.len(), k.state.players[0].candle.len()), (6, 21));
    let k = Kit::dealt_with(classic(4));
    assert_eq!((k.state.pool.len(), k.state.dark.len()), (108, 0));
}

/// A2.5: the first player is drawn at random or named; there is no first/last choice.
#[test]
fn a2_5_no_first_last_choice() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for fp in [FirstPlayer::Last { seat: 0 }, FirstPlayer::Ask { seat: 1 }] {
        let mut s = classic(3);
        s.first_player = fp;
        let e = create(&s, &mut rng).unwrap_err();
        assert_eq!((e.kind, e.rule), (ErrorKind::BadSettings, "A2.5"));
    }
    let mut s = classic(3);
    s.first_player = FirstPlayer::Random;
    assert!(create(&s, &mut rng).is_ok());
}

/// A2.6, A9: a classic table with classes runs the selection ritual of R2.7 over the 25-class
/// classic roster, with no player-count exclusions: every offer holds classic classes only.
#[test]
fn a2_6_a9_classic_selection_offers_the_classic_roster() {
    use crate::model::classes::ClassId;
    assert_eq!(crate::rules::classes::pool_for_rules(Rules::CLASSIC, 2).len(), 25);
    for seed in 0..20u64 {
        let mut s = classic(2 + (seed % 7) as u8);
        s.classes = true;
        let events = create(&s, &mut ChaCha8Rng::seed_from_u64(seed)).unwrap();
        for e in &events {
            if let Event::ClassOffered { offer, .. } = e {
                assert!(offer.iter().all(|c| ClassId::CLASSIC.contains(c)), "{offer:?}");
            }
        }
        assert!(events.iter().any(|e| matches!(e, Event::ClassOffered { .. })));
    }
}

/// R10.11: `dark_mode` is a classic setting only.
#[test]
fn a3_3_dark_mode_is_refused_under_current() {
    let mut s = settings(3);
    s.dark_mode = DarkMode::Dark;
    let e = create(&s, &mut ChaCha8Rng::seed_from_u64(1)).unwrap_err();
    assert_eq!((e.kind, e.rule), (ErrorKind::BadSettings, "R10.11"));
}

// ---------------------------------------------------------------------------------------------
// A4: the turn
// ---------------------------------------------------------------------------------------------

/// A4.1: the Haunting Burns 1 card per ghost with no choice (no prompt, no Reprieve), then the
/// Draw (A4.2).
#[test]
fn a4_1_haunting_burns_are_mandatory() {
    let k = kit(3)
        .hand(0, &["AH"])
        .shadow(0, &[("8H", Some(1)), ("4C", Some(2))])
        .candle(0, &["9C", "8D", "7H", "6S"])
        .turn_start(0, 1)
        .settled();
    let burned: Vec<String> = k
        .events
        .iter()
        .find_map(|e| match e {
            Event::Endured { burned, .. } => Some(burned.iter().map(|&c| name(k.state.face(c))).collect()),
            _ => None,
        })
        .expect("the Burns are recorded");
    assert_eq!(burned, strs(&["9C", "8D"]));
    assert_eq!(k.hand_of(0), strs(&["AH", "7H"]), "the Ace stays: no Reprieve; then the Draw");
    assert!(matches!(k.prompt(0).map(|p| p.kind), Some(PromptKind::Ritual { .. })));
}

/// A4.2, A12.2: Burns that empty the Candle do not Consume; the Draw from an empty Candle does.
#[test]
fn a4_2_a12_2_consumed_only_at_the_draw() {
    let k = kit(3).shadow(0, &[("8H", Some(1)), ("4C", Some(2))]).candle(0, &["9C"]).turn_start(0, 1).settled();
    let consumed = k
        .events
        .iter()
        .any(|e| matches!(e, Event::EliminationStarted { seat: 0, cause: EliminationCause::Consumed, .. }));
    assert!(consumed, "the Draw from the empty Candle Consumes");
    assert!(!k.lit(0));
}

/// A4.5, A12.2: an empty Candle at the end of the turn is no Consumption.
#[test]
fn a4_5_no_candle_check_at_the_end_of_the_turn() {
    let mut k = kit(3).hand(0, &["7C"]).candle(0, &[]).ritual(0);
    k.answer(0, Answer::EndRitual).unwrap();
    assert!(k.lit(0), "seat 0 survives its empty Candle until its next Draw");
    assert_eq!(k.state.turn.active, 1);
}

/// A4.3: exactly one action: a first-action Greed gives no extra action.
#[test]
fn a4_3_one_action_and_no_greed_extra() {
    let mut k = kit(3).hand(0, &["5H", "7C"]).candle(0, &["9C", "8D", "6S"]).ritual(0);
    k.act(0, Action::Greed { card: k.in_hand(0, "5H"), target: 0 }).unwrap();
    pass_window(&mut k);
    assert_eq!(k.state.turn.active, 1, "the Ritual ended after one action");
    assert_eq!(k.hand_of(0), strs(&["7C", "9C", "8D"]));
}

/// A4.4: the hand limit is 7: 9 cards discard 2.
#[test]
fn a4_4_hand_limit_seven() {
    let mut k = kit(3).hand(0, &["7C", "8C", "9C", "10C", "JC", "QC", "KC"]).ritual(0);
    k.answer(0, Answer::EndRitual).unwrap();
    assert_eq!(k.state.turn.active, 1, "7 cards are within the limit");
    let mut k = kit(3).hand(0, &["7C", "8C", "9C", "10C", "JC", "QC", "KC", "2D", "3D"]).burden(0);
    assert!(matches!(k.prompt(0).map(|p| p.kind), Some(PromptKind::BurdenDiscard { count: 2, .. })));
    let cards = vec![k.in_hand(0, "2D"), k.in_hand(0, "3D")];
    k.answer(0, Answer::Pick { cards }).unwrap();
    assert_eq!(k.hand_of(0).len(), 7);
}

// ---------------------------------------------------------------------------------------------
// A5: actions
// ---------------------------------------------------------------------------------------------

/// A5.1: Haunt with a number card only.
#[test]
fn a5_1_haunt_with_number_cards() {
    let mut k = kit(3).hand(0, &["JH", "3C"]).ritual(0);
    let e = k.act(0, Action::Haunt { card: k.in_hand(0, "JH"), target: 1 }).unwrap_err();
    assert_eq!(e.rule, "R5.2");
    k.act(0, Action::Haunt { card: k.in_hand(0, "3C"), target: 1 }).unwrap();
    pass_window(&mut k);
    assert_eq!(k.shadow_of(1), vec![("3C".to_string(), Some(0))]);
}

/// A5.2: Banish with a number card that beats the ghost; both go to The Dark, with no Siphon
/// even for the same rank; face cards cannot Banish.
#[test]
fn a5_2_banish_no_siphon_no_face_cards() {
    let mut k = kit(3).hand(0, &["QH", "8H"]).shadow(0, &[("8D", Some(1))]).ritual(0);
    let e = k.act(0, Action::Banish { card: k.in_hand(0, "QH"), ghost: k.ghost(0, "8D") }).unwrap_err();
    assert_eq!(e.rule, "A5.2");
    assert!(!uses_of(&k, 0, "QH").iter().any(|u| matches!(u, UseOption::Banish { .. })));
    k.act(0, Action::Banish { card: k.in_hand(0, "8H"), ghost: k.ghost(0, "8D") }).unwrap();
    pass_window(&mut k);
    assert!(matches!(last_effect(&k), Effect::Banished { siphoned: false, .. }));
    assert_eq!(k.dark_of(), strs(&["8H", "8D"]), "the ghost, then the Banish card on top");
    assert!(k.shadow_of(0).is_empty());
}

/// A5.3, A6 row 4: a 4 is never Invoked (it is Salt); the 3 (Omen) is not offered as an Invoke.
#[test]
fn a5_3_four_is_not_invoked() {
    let k = kit(3).hand(0, &["4H"]).ritual(0);
    let uses = uses_of(&k, 0, "4H");
    assert!(uses.iter().all(|u| matches!(u, UseOption::Haunt { .. })), "{uses:?}");
}

// ---------------------------------------------------------------------------------------------
// A6: number cards
// ---------------------------------------------------------------------------------------------

/// A6 row A, Draft: a chosen neighbour Burns 2 (its Candle's top to The Dark).
#[test]
fn a6_draft_burns_two() {
    let mut k = spare(kit(3).hand(0, &["AH"]).candle(1, &["9C", "8D", "7H"]).ritual(0));
    assert!(uses_of(&k, 0, "AH").contains(&UseOption::Draft { targets: vec![1, 2] }));
    k.act(0, Action::Draft { card: k.in_hand(0, "AH"), target: 1 }).unwrap();
    pass_window(&mut k);
    assert_eq!(k.candle_of(1), strs(&["7H"]));
    assert_eq!(k.dark_of(), strs(&["AH", "8D", "9C"]));
    let mut k = kit(4).hand(0, &["AH"]).ritual(0);
    let e = k.act(0, Action::Draft { card: k.in_hand(0, "AH"), target: 2 }).unwrap_err();
    assert_eq!(e.rule, "A6", "seat 2 is no neighbour of seat 0 at 4 seats");
}

/// A6 row 2, Scare: a neighbour discards 2 cards at random.
#[test]
fn a6_scare_is_the_two() {
    let mut k = spare(kit(3).hand(0, &["2H"]).hand(1, &["9C", "8D", "7H"]).ritual(0));
    k.act(0, Action::Scare { card: k.in_hand(0, "2H"), target: 1 }).unwrap();
    pass_window(&mut k);
    assert_eq!(k.hand_of(1).len(), 1);
    assert!(matches!(last_effect(&k), Effect::Scared { target: 1, ref discarded } if discarded.len() == 2));
}

/// A6 row 5, Greed: the 5 draws 2 from one's own Candle, never another player's.
#[test]
fn a6_greed_draws_for_oneself() {
    let mut k = kit(3).hand(0, &["5H", "5D"]).candle(0, &["9C", "8D", "6S"]).ritual(0);
    assert!(uses_of(&k, 0, "5H").contains(&UseOption::Greed { targets: vec![0] }));
    let e = k.act(0, Action::Greed { card: k.in_hand(0, "5H"), target: 1 }).unwrap_err();
    assert_eq!(e.rule, "A6");
    k.act(0, Action::Greed { card: k.in_hand(0, "5H"), target: 0 }).unwrap();
    pass_window(&mut k);
    assert!(matches!(last_effect(&k), Effect::Greed { target: 0, ref drawn } if drawn.len() == 2));
}

/// A6 row 6, Cleanse: the 6 removes a ghost of one's own Shadow with no value check and no
/// Siphon.
#[test]
fn a6_cleanse_is_the_six() {
    let mut k = kit(3).hand(0, &["6H"]).shadow(0, &[("KH", Some(1))]).ritual(0);
    k.act(0, Action::Cleanse { card: k.in_hand(0, "6H"), ghost: k.ghost(0, "KH"), second: None }).unwrap();
    pass_window(&mut k);
    assert!(matches!(last_effect(&k), Effect::Cleansed { siphoned: false, .. }));
    assert!(k.shadow_of(0).is_empty());
}

/// A6 row 7, Sight: see a neighbour's hand and take 1 card of it.
#[test]
fn a6_sight_takes_one() {
    let mut k = spare(kit(3).hand(0, &["7H"]).hand(1, &["9C", "8D", "KH"]).ritual(0));
    k.act(0, Action::Sight { card: k.in_hand(0, "7H"), target: 1 }).unwrap();
    pass_window(&mut k);
    match k.prompt(0).map(|p| p.kind) {
        Some(PromptKind::SightPick { count, .. }) => assert_eq!(count, 1),
        other => panic!("expected SightPick, got {other:?}"),
    }
    let two = vec![k.in_hand(1, "KH"), k.in_hand(1, "9C")];
    assert!(k.answer(0, Answer::Pick { cards: two }).is_err());
    k.answer(0, Answer::Pick { cards: vec![k.in_hand(1, "KH")] }).unwrap();
    assert_eq!(k.hand_of(0), strs(&["KH"]));
    assert_eq!(k.hand_of(1).len(), 2);
}

/// A6 row 8, Vanish: take a ghost from any Shadow into one's hand.
#[test]
fn a6_vanish_takes_any_ghost() {
    let mut k = kit(4).hand(0, &["8H"]).shadow(2, &[("9C", Some(1))]).ritual(0);
    k.act(0, Action::Recall { card: k.in_hand(0, "8H"), owner: 2, ghost: k.ghost(2, "9C") }).unwrap();
    pass_window(&mut k);
    assert_eq!(k.hand_of(0), strs(&["9C"]));
}

/// A6 row 10, Rekindle: the 3 topmost cards of The Dark go under the Candle one at a time, the
/// top first, with no shuffle.
#[test]
fn a6_rekindle_goes_under_without_shuffle() {
    let mut k = kit(3).hand(0, &["10H"]).candle(0, &["9C", "8D"]).dark(&["2C", "3C", "4C", "5C"]).ritual(0);
    k.act(0, Action::Rekindle { card: k.in_hand(0, "10H") }).unwrap();
    pass_window(&mut k);
    assert_eq!(k.candle_of(0), strs(&["9C", "8D", "2C", "3C", "4C"]));
}

// ---------------------------------------------------------------------------------------------
// A7: face cards and Jokers
// ---------------------------------------------------------------------------------------------

/// A7 Q, A12.6: The Medium searches The Dark for any card, a Joker included; it has no Depths.
#[test]
fn a7_a12_6_medium_takes_a_joker_and_has_no_depths() {
    let mut k = kit(3).hand(0, &["QH", "QD"]).dark(&["Joker", "3C"]).ritual(0);
    assert!(uses_of(&k, 0, "QH").contains(&UseOption::Medium { modes: vec![MediumMode::Search] }));
    let e = k.act(0, Action::Medium { card: k.in_hand(0, "QH"), mode: MediumMode::Depths }).unwrap_err();
    assert_eq!(e.rule, "A7");
    k.act(0, Action::Medium { card: k.in_hand(0, "QH"), mode: MediumMode::Search }).unwrap();
    pass_window(&mut k);
    let PromptKind::MediumPick { choices } = k.prompt(0).unwrap().kind else { panic!("MediumPick") };
    let joker = choices.iter().find(|c| c.face == face("Joker")).expect("the Joker is a choice").handle;
    k.answer(0, Answer::Pick { cards: vec![joker] }).unwrap();
    assert!(k.hand_of(0).contains(&"Joker".to_string()));
}

/// A7 K, A10: The Purge removes every ghost to The Dark, never Siphoning.
#[test]
fn a7_purge_never_siphons() {
    let mut k = kit(3).hand(0, &["KH"]).shadow(0, &[("KH", Some(1)), ("7H", Some(2))]).ritual(0);
    k.act(0, Action::Purge { card: k.in_hand(0, "KH") }).unwrap();
    pass_window(&mut k);
    let Effect::Purged { removed, .. } = last_effect(&k) else { panic!("purged") };
    assert!(removed.iter().all(|r| !r.siphoned));
    assert!(k.shadow_of(0).is_empty());
}

/// A7 J, A12.5: The Mirror swaps the ghosts of the two Shadows.
#[test]
fn a7_mirror_swaps_ghosts() {
    let mut k = kit(3).hand(0, &["JH"]).shadow(0, &[("9C", Some(1))]).shadow(1, &[("3D", Some(2))]).ritual(0);
    k.act(0, Action::Mirror { card: k.in_hand(0, "JH"), target: 1 }).unwrap();
    pass_window(&mut k);
    assert_eq!(k.shadow_of(0), vec![("3D".to_string(), Some(2))]);
    assert_eq!(k.shadow_of(1), vec![("9C".to_string(), Some(1))]);
}

/// A7 Joker, The Haunted: each opponent turns up Candle cards until a number card, which
/// becomes a ghost; face cards and Jokers turned up on the way are Burned.
#[test]
fn a7_the_haunted() {
    let mut k = spare(kit(3).hand(0, &["Joker"]).candle(1, &["KC", "9D"]).candle(2, &["3S"]).ritual(0));
    k.act(0, Action::Boo { card: k.in_hand(0, "Joker") }).unwrap();
    pass_window(&mut k);
    assert_eq!(k.shadow_of(1), vec![("9D".to_string(), None)]);
    assert_eq!(k.shadow_of(2), vec![("3S".to_string(), None)]);
    assert!(k.dark_of().contains(&"KC".to_string()));
}

// ---------------------------------------------------------------------------------------------
// A8: Salt
// ---------------------------------------------------------------------------------------------

/// A8.1: Salt (a 4) is open only to the player the action targets; a 5 is not Salt.
#[test]
fn a8_1_salt_is_a_four_for_targets_only() {
    let mut k = kit(4).hand(0, &["3C"]).hand(1, &["5D", "4D"]).hand(3, &["4H"]).ritual(0);
    k.act(0, Action::Haunt { card: k.in_hand(0, "3C"), target: 1 }).unwrap();
    assert_eq!(k.asked(), vec![1], "only the target is asked");
    match k.prompt(1).map(|p| p.kind) {
        Some(PromptKind::Salt { fives, .. }) => {
            assert_eq!(fives.iter().map(|c| name(c.face)).collect::<Vec<_>>(), ["4D"])
        }
        other => panic!("expected a Salt prompt, got {other:?}"),
    }
    let e = k.answer(1, Answer::Salt { card: k.in_hand(1, "5D") }).unwrap_err();
    assert_eq!(e.rule, "A8");
    k.answer(1, Answer::Salt { card: k.in_hand(1, "4D") }).unwrap();
    assert!(k.events.iter().any(|e| matches!(e, Event::ActionCancelled { actor: 0, salter: 1 })));
    assert!(k.shadow_of(1).is_empty());
}

/// A8.1: an action with no target (Rekindle) opens no Salt window.
#[test]
fn a8_1_untargeted_actions_cannot_be_salted() {
    let mut k = spare(kit(3).hand(0, &["10H"]).hand(1, &["4D"]).hand(2, &["4C"]).dark(&["2C"]).ritual(0));
    k.act(0, Action::Rekindle { card: k.in_hand(0, "10H") }).unwrap();
    assert!(matches!(last_effect(&k), Effect::Rekindled { .. }), "resolved at once, with no window");
    assert_eq!(k.asked(), vec![0], "nobody was asked to Salt; seat 0's Ritual goes on");
}

/// A8.2: the Salted actor may counter with a 4; the exchange alternates and the last Salt decides.
#[test]
fn a8_2_counter_salt() {
    let mut k = kit(3).hand(0, &["3C", "4S"]).hand(1, &["4D"]).ritual(0);
    k.act(0, Action::Haunt { card: k.in_hand(0, "3C"), target: 1 }).unwrap();
    k.answer(1, Answer::Salt { card: k.in_hand(1, "4D") }).unwrap();
    assert!(matches!(k.prompt(0).map(|p| p.kind), Some(PromptKind::CounterSalt { .. })));
    k.answer(0, Answer::Salt { card: k.in_hand(0, "4S") }).unwrap();
    assert_eq!(k.shadow_of(1), vec![("3C".to_string(), Some(0))], "the actor's 4 was last: the Haunt stands");
}

// ---------------------------------------------------------------------------------------------
// A3.3: death
// ---------------------------------------------------------------------------------------------

/// A3.3 standard (default): a dead player's ghosts go to The Dark in entry order, no split.
#[test]
fn a3_3_standard_ghosts_to_the_dark() {
    let k = kit(4).shadow(0, &[("8H", Some(1)), ("4C", Some(2))]).candle(0, &[]).turn_start(0, 1).settled();
    assert!(!k.lit(0));
    let to_dark = k.events.iter().find_map(|e| match e {
        Event::Eliminated { seat: 0, shares, to_dark, .. } => Some((shares.clone(), to_dark.clone())),
        _ => None,
    });
    let (shares, to_dark) = to_dark.expect("eliminated");
    assert!(shares.is_empty());
    assert_eq!(to_dark.iter().map(|&c| name(k.state.face(c))).collect::<Vec<_>>(), ["8H", "4C"]);
    assert!(k.shadow_of(1).is_empty() && k.shadow_of(3).is_empty());
}

/// A3.3 dark: the ghosts are split between the neighbours as in R7.5 (prompt DeathSplit).
#[test]
fn a3_3_dark_mode_splits() {
    let mut s = classic(4);
    s.dark_mode = DarkMode::Dark;
    let k = Kit::with(s).shadow(0, &[("8H", Some(1)), ("4C", Some(2))]).candle(0, &[]).turn_start(0, 1).settled();
    assert!(matches!(k.prompt(0).map(|p| p.kind), Some(PromptKind::DeathSplit { .. })));
    assert!(matches!(k.step(), Step::Eliminating(_)));
}

/// A10: no Reprieve, Endure or Panic prompt and no Drain: the Haunting asks nothing, and the 4 is
/// no Drain.
#[test]
fn a10_no_current_only_actions() {
    let mut k = kit(3).hand(0, &["4H"]).ritual(0);
    let e = k.act(0, Action::Drain { card: k.in_hand(0, "4H") }).unwrap_err();
    assert_eq!(e.rule, "A6");
    let k = kit(3).shadow(0, &[("8H", Some(1))]).turn_start(0, 1).settled();
    assert!(!kinds(&k.events).contains(&"reprieved"));
    assert!(matches!(k.prompt(0).map(|p| p.kind), Some(PromptKind::Ritual { .. })));
}

// ---------------------------------------------------------------------------------------------
// A6 Omen, A12.3
// ---------------------------------------------------------------------------------------------

fn revealed_names(k: &Kit) -> Vec<String> {
    match k.prompt(0).map(|p| p.kind) {
        Some(PromptKind::OmenPlay { revealed, .. }) => revealed.iter().map(|c| name(c.face)).collect(),
        other => panic!("expected OmenPlay, got {other:?}"),
    }
}

/// A6 row 3: the Omen reveals the top 3 of the Candle face up; the chosen card is played at once
/// as if from the hand (here a Haunt, with its own Salt window); the others go to the bottom of
/// the Candle in the order revealed, never to The Dark.
#[test]
fn a6_omen_reveals_three_and_plays_one() {
    let mut k = kit(3).hand(0, &["3H"]).hand(1, &["7D"]).candle(0, &["9C", "KH", "2D", "8S"]).ritual(0);
    assert!(uses_of(&k, 0, "3H").contains(&UseOption::Omen));
    k.act(0, Action::Omen { card: k.in_hand(0, "3H") }).unwrap();
    assert_eq!(revealed_names(&k), strs(&["9C", "KH", "2D"]));
    assert_eq!(k.state.resolving.len(), 4, "the 3 and the revealed cards lie face up");
    let PromptKind::OmenPlay { options, .. } = k.prompt(0).unwrap().kind else { unreachable!() };
    let nine = options.iter().find(|o| name(o.card.face) == "9C").expect("the 9 is playable");
    assert!(nine.uses.contains(&UseOption::Haunt { targets: vec![1, 2] }));
    let card = nine.card.handle;
    k.answer(0, Answer::Act { action: Action::Haunt { card, target: 1 } }).unwrap();
    assert!(kinds(&k.events).contains(&"omen_chosen"));
    assert_eq!(k.candle_of(0), strs(&["8S", "KH", "2D"]), "the others under the Candle, in the order revealed");
    // The played Haunt opens its own window: the target may Salt (here it passes).
    pass_window(&mut k);
    assert_eq!(k.shadow_of(1), vec![("9C".to_string(), Some(0))]);
    assert_eq!(k.state.turn.active, 1, "the Omen was the turn's one action");
    // Seat 1's Haunting then Burned one card for the new ghost, on top of the Omen's 3.
    assert_eq!(k.dark_of()[1..], strs(&["3H"]), "only the Omen card went to The Dark");
}

/// A12.3: an Omen cannot play another Omen (a revealed 3 may still Haunt).
#[test]
fn a12_3_no_omen_chains() {
    let mut k = kit(3).hand(0, &["3H"]).candle(0, &["3C", "9D"]).ritual(0);
    k.act(0, Action::Omen { card: k.in_hand(0, "3H") }).unwrap();
    let PromptKind::OmenPlay { options, .. } = k.prompt(0).unwrap().kind else { panic!("OmenPlay") };
    let three = options.iter().find(|o| name(o.card.face) == "3C").expect("the 3 may Haunt");
    assert!(!three.uses.contains(&UseOption::Omen));
    let e = k.answer(0, Answer::Act { action: Action::Omen { card: three.card.handle } }).unwrap_err();
    assert_eq!(e.rule, "A12.3");
}

/// A12.3: when nothing was revealed (an empty Candle), nothing is played and the Omen ends.
#[test]
fn a12_3_nothing_to_play() {
    let mut k = kit(3).hand(0, &["3H"]).candle(0, &[]).ritual(0);
    k.act(0, Action::Omen { card: k.in_hand(0, "3H") }).unwrap();
    assert!(k.events.iter().any(|e| matches!(e, Event::OmenChosen { seat: 0, play: None, .. })));
    assert_eq!(k.dark_of(), strs(&["3H"]));
    assert_eq!(k.state.turn.active, 1);
}

/// A12.3, R10.5: the OmenPlay default is a legal play (mandatory when one exists); a time-out
/// applies it.
#[test]
fn a12_3_omen_default_plays() {
    let mut k = kit(3).hand(0, &["3H"]).candle(0, &["KD", "9C", "8S"]).ritual(0);
    k.act(0, Action::Omen { card: k.in_hand(0, "3H") }).unwrap();
    let p = k.prompt(0).unwrap();
    assert!(matches!(p.default, Answer::Act { .. }), "{:?}", p.default);
    assert!(!p.random_default);
    k.send(crate::model::command::Command::Timeout).unwrap();
    assert!(k.events.iter().any(|e| matches!(e, Event::OmenChosen { play: Some(_), .. })));
}

// ---------------------------------------------------------------------------------------------
// A9: the classic roster (rows whose effect differs from the current class; rows "as R8.x" run
// the current class's code and tests)
// ---------------------------------------------------------------------------------------------

use crate::model::classes::ClassId;

fn with_class(n: u8, seat: u8, c: ClassId) -> Kit {
    let mut s = classic(n);
    s.classes = true;
    let mut k = Kit::with(s);
    k.state.players[seat as usize].class = Some(c);
    k
}

/// A9 row 1: a Draft on The Skeptic Burns nothing; the A is spent.
#[test]
fn a9_1_skeptic_immune_to_draft() {
    let mut k = spare(with_class(3, 1, ClassId::Skeptic).hand(0, &["AH"]).candle(1, &["9C", "8D"]).ritual(0));
    k.act(0, Action::Draft { card: k.in_hand(0, "AH"), target: 1 }).unwrap();
    pass_window(&mut k);
    assert!(matches!(last_effect(&k), Effect::Drafted { target: 1, ref burned } if burned.is_empty()));
    assert_eq!(k.candle_of(1)[..2], strs(&["9C", "8D"]));
    assert_eq!(k.dark_of(), strs(&["AH"]));
}

/// A9 row 2: after its Banish, The Priest draws the top card of its own Candle (not of The Dark).
#[test]
fn a9_2_priest_draws_after_banish() {
    let mut k = spare(
        with_class(3, 0, ClassId::Priest)
            .hand(0, &["9H"])
            .shadow(0, &[("7C", Some(1))])
            .candle(0, &["KD"])
            .dark(&["2S"])
            .ritual(0),
    );
    k.act(0, Action::Banish { card: k.in_hand(0, "9H"), ghost: k.ghost(0, "7C") }).unwrap();
    pass_window(&mut k);
    assert_eq!(k.hand_of(0), strs(&["KD"]));
    assert_eq!(k.dark_of()[2], "2S", "The Dark's old top stays");
}

/// A9 row 7, R10.12: The Sadist's Scare looks at the hand (neutral order) and chooses the 2.
#[test]
fn a9_7_sadist_chooses_the_two() {
    let mut k = spare(with_class(3, 0, ClassId::Sadist).hand(0, &["2H"]).hand(1, &["9C", "KD", "3S", "7H"]).ritual(0));
    k.act(0, Action::Scare { card: k.in_hand(0, "2H"), target: 1 }).unwrap();
    pass_window(&mut k);
    let p = k.prompt(0).expect("SadistPick");
    let PromptKind::SadistPick { count, hand, .. } = p.kind else { panic!("SadistPick: {:?}", p.kind) };
    assert_eq!(count, 2);
    assert_eq!(hand.iter().map(|c| name(c.face)).collect::<Vec<_>>(), ["3S", "7H", "9C", "KD"], "neutral order");
    assert!(p.random_default);
    let (a, b) = (k.in_hand(1, "KD"), k.in_hand(1, "9C"));
    k.answer(0, Answer::Pick { cards: vec![a, b] }).unwrap();
    let mut left = k.hand_of(1);
    left.sort();
    assert_eq!(left, strs(&["3S", "7H"]));
    assert_eq!(k.dark_of()[..3], strs(&["2H", "9C", "KD"]), "the chosen cards in order, then the Scare card on top");
}

/// A9 row 8: a live Binder ghost cannot be moved by Possess or taken by Vanish; Mirror is allowed.
#[test]
fn a9_8_binder() {
    let k = with_class(4, 1, ClassId::Binder)
        .hand(0, &["9H", "8H", "JH"])
        .shadow(0, &[("4C", Some(1))])
        .shadow(2, &[("5D", Some(1))])
        .ritual(0);
    assert!(!uses_of(&k, 0, "9H").iter().any(|u| matches!(u, UseOption::Possess { .. })));
    assert!(!uses_of(&k, 0, "8H").iter().any(|u| matches!(u, UseOption::Recall { .. })));
    assert!(uses_of(&k, 0, "JH").iter().any(|u| matches!(u, UseOption::Mirror { .. })));
}

/// A9 row 10: when a neighbour dies, The Vulture takes the top 5 of The Dark into its Candle,
/// which is then shuffled (the shuffle recorded in the event).
#[test]
fn a9_10_vulture_shuffles() {
    let mut k =
        with_class(4, 2, ClassId::Vulture).candle(1, &[]).dark(&["2H", "3H", "4H", "6H", "7H", "8H"]).turn_start(1, 1);
    k.settle();
    assert!(!k.lit(1));
    let t = k.events.iter().find_map(|e| match e {
        Event::Triggered { owner: 2, effect: crate::model::classes::TriggerEffect::Vulture { taken, candle, .. } } => {
            Some((taken.len(), candle.clone()))
        }
        _ => None,
    });
    let (taken, candle) = t.expect("the Vulture's trigger");
    assert_eq!(taken, 5);
    let candle = candle.expect("the classic Vulture's Candle is shuffled");
    assert!(candle.iter().any(|&c| name(k.state.face(c)) == "2H"));
}

/// A9 row 11: The Occultist's Possess may reach any player and takes no Dark bonus.
#[test]
fn a9_11_occultist_no_bonus() {
    let mut k = spare(
        with_class(5, 0, ClassId::Occultist)
            .hand(0, &["9H"])
            .shadow(0, &[("4C", Some(1))])
            .dark(&["2S", "3S"])
            .ritual(0),
    );
    k.act(0, Action::Possess { card: k.in_hand(0, "9H"), ghost: k.ghost(0, "4C"), destination: 2 }).unwrap();
    pass_window(&mut k);
    assert!(matches!(last_effect(&k), Effect::Possessed { destination: 2, ref bonus, .. } if bonus.is_empty()));
}

/// A9 row 14: The Hoarder's hand limit is 10.
#[test]
fn a9_14_hoarder_ten() {
    let hand = ["2C", "3C", "4C", "6C", "7C", "8C", "9C", "10C", "JC", "QC", "KC"];
    let mut k = with_class(3, 0, ClassId::Hoarder).hand(0, &hand).burden(0);
    assert!(matches!(k.prompt(0).map(|p| p.kind), Some(PromptKind::BurdenDiscard { count: 1, .. })));
    let c = k.in_hand(0, "2C");
    k.answer(0, Answer::Pick { cards: vec![c] }).unwrap();
}

/// A9 row 18: every ghost The Leech Banishes goes to the bottom of its Candle, Spades too.
#[test]
fn a9_18_leech_keeps_spades() {
    let mut k = spare(
        with_class(3, 0, ClassId::Leech).hand(0, &["9H"]).shadow(0, &[("7S", Some(1))]).candle(0, &["KD"]).ritual(0),
    );
    k.act(0, Action::Banish { card: k.in_hand(0, "9H"), ghost: k.ghost(0, "7S") }).unwrap();
    pass_window(&mut k);
    assert!(matches!(last_effect(&k), Effect::Banished { siphoned: true, .. }));
    assert_eq!(k.candle_of(0).last().map(String::as_str), Some("7S"));
}

/// A9 row 22: The Jester redirects a Haunt as The Mime (R8.16, R6.7).
#[test]
fn a9_22_jester_redirects() {
    let mut k = with_class(4, 1, ClassId::Jester).hand(0, &["3C"]).hand(1, &["9D"]).ritual(0);
    k.act(0, Action::Haunt { card: k.in_hand(0, "3C"), target: 1 }).unwrap();
    match k.prompt(1).map(|p| p.kind) {
        Some(PromptKind::Reaction { reaction, .. }) => {
            assert_eq!(reaction, crate::rules::classes::reactions::ReactionKind::MimeRedirect)
        }
        other => panic!("expected the redirect prompt, got {other:?}"),
    }
}

/// A9 row 23, A12.5: The Architect builds Walls; a Haunt on it is absorbed by its oldest Wall with
/// no prompt (Haunt card and Wall to The Dark); a Mirror leaves its Walls where they are.
#[test]
fn a9_23_architect() {
    let mut k =
        spare(with_class(3, 1, ClassId::Architect).walls(1, &[("2H", 1), ("3H", 1)]).hand(0, &["7C", "JH"]).ritual(0));
    k.act(0, Action::Haunt { card: k.in_hand(0, "7C"), target: 1 }).unwrap();
    assert!(k.events.iter().any(|e| matches!(e, Event::Reacted { seat: 1, .. })));
    assert!(k.shadow_of(1).is_empty());
    assert_eq!(k.walls_of(1), strs(&["3H"]));
    assert!(k.dark_of().contains(&"2H".to_string()) && k.dark_of().contains(&"7C".to_string()));
    k.act(0, Action::Mirror { card: k.in_hand(0, "JH"), target: 1 }).unwrap();
    pass_window(&mut k);
    assert_eq!(k.walls_of(1), strs(&["3H"]), "A12.5: the Walls stay");
    // Building: any hand card, as a Ritual action.
    let mut k = with_class(3, 0, ClassId::Architect).hand(0, &["KD"]).ritual(0);
    assert!(uses_of(&k, 0, "KD").contains(&UseOption::BuildWall));
    k.act(0, Action::BuildWall { card: k.in_hand(0, "KD") }).unwrap();
    assert_eq!(k.walls_of(0), strs(&["KD"]));
}

/// A9 row 24, A12.4: a face card may Banish a live Clown ghost (value 10), and only such a ghost;
/// a number card may not.
#[test]
fn a9_24_clown() {
    let k = with_class(3, 1, ClassId::Clown)
        .hand(0, &["KH", "9H"])
        .shadow(0, &[("8C", Some(1)), ("3D", Some(2))])
        .ritual(0);
    let ghosts = |card: &str| -> Vec<crate::model::handle::CardRef> {
        uses_of(&k, 0, card)
            .into_iter()
            .find_map(|u| match u {
                UseOption::Banish { ghosts } => Some(ghosts),
                _ => None,
            })
            .unwrap_or_default()
    };
    assert_eq!(ghosts("KH"), vec![k.ghost(0, "8C")], "the King Banishes the Clown ghost only");
    assert_eq!(ghosts("9H"), vec![k.ghost(0, "3D")], "a number card never Banishes a Clown ghost");
}

/// A9 row 20, A3.3: The Lich revives with its ghosts sent to The Dark (dark_mode standard).
#[test]
fn a9_20_lich_ghosts_to_the_dark() {
    let k = with_class(4, 0, ClassId::Lich).shadow(0, &[("8H", Some(1))]).candle(0, &[]).turn_start(0, 1).settled();
    let revived = k.events.iter().find_map(|e| match e {
        Event::Revived { seat: 0, to_dark, shares, .. } => Some((to_dark.len(), shares.len())),
        _ => None,
    });
    assert_eq!(revived, Some((1, 0)));
    assert!(k.lit(0));
}

// ---------------------------------------------------------------------------------------------
// A3.1, A3.2, A5.4, A5.5, A8.3, A11
// ---------------------------------------------------------------------------------------------

/// A3.1: line of sight: Draft, Scare and Sight reach only neighbours; Vanish and The Haunted
/// reach any player.
#[test]
fn a3_1_line_of_sight() {
    let k = kit(5).hand(0, &["AH", "2H", "7H", "8H", "Joker"]).shadow(2, &[("9C", Some(1))]).ritual(0);
    for card in ["AH", "2H", "7H"] {
        let targets = uses_of(&k, 0, card)
            .into_iter()
            .find_map(|u| match u {
                UseOption::Draft { targets } | UseOption::Scare { targets } | UseOption::Sight { targets } => {
                    Some(targets)
                }
                _ => None,
            })
            .unwrap_or_else(|| panic!("{card} has a targeted use"));
        assert_eq!(targets, vec![1, 4], "{card}: neighbours only");
    }
    assert!(
        uses_of(&k, 0, "8H")
            .iter()
            .any(|u| matches!(u, UseOption::Recall { ghosts } if ghosts.iter().any(|g| g.owner == 2)))
    );
    assert!(uses_of(&k, 0, "Joker").contains(&UseOption::Boo));
}

/// A3.2 (as R3.5.3): forbidden knowledge: a player sees only the top of The Dark, no Candle and
/// no other hand.
#[test]
fn a3_2_forbidden_knowledge() {
    let k = kit(3).hand(1, &["9C"]).dark(&["2C", "3C"]).ritual(0);
    let v = serde_json::to_value(crate::projection::view::view(
        &k.state,
        crate::projection::view::Viewer::Seat { seat: 0 },
    ))
    .unwrap();
    assert_eq!(v["dark"]["top"]["rank"], "2");
    assert!(v["dark"].get("cards").is_none_or(|c| c.is_null()));
    assert!(v["players"][1].get("hand").is_none_or(|h| h.is_null()));
}

/// A5.4, A5.5: a Summon (here the K) is declared, passes the usual reaction steps (no Salt window
/// for an untargeted action in classic) and resolves; the face card goes to The Dark.
#[test]
fn a5_4_summon_resolves_through_the_usual_steps() {
    let mut k = spare(kit(3).hand(0, &["KH"]).hand(1, &["4D"]).shadow(0, &[("7C", Some(1))]).ritual(0));
    let ev = k.act(0, Action::Purge { card: k.in_hand(0, "KH") }).unwrap();
    assert_eq!(kinds(&ev)[..3], ["action_declared", "window_closed", "action_resolved"], "nobody may Salt it");
    assert!(k.dark_of().contains(&"KH".to_string()));
}

/// A8.3: a standing Salt cancels the action and ends the actor's Ritual.
#[test]
fn a8_3_standing_salt_ends_the_ritual() {
    let mut k = spare(kit(3).hand(0, &["3C", "9D"]).hand(1, &["4D"]).ritual(0));
    k.act(0, Action::Haunt { card: k.in_hand(0, "3C"), target: 1 }).unwrap();
    k.answer(1, Answer::Salt { card: k.in_hand(1, "4D") }).unwrap();
    k.answer(0, Answer::Yield).unwrap();
    assert!(k.events.iter().any(|e| matches!(e, Event::ActionCancelled { actor: 0, salter: 1 })));
    assert_ne!(k.state.turn.active, 0, "the Ritual ended although a second action was left");
}

/// A11 (R7.3 unchanged): three ghosts of one suit at the end of one's own turn Possess.
#[test]
fn a11_possession_unchanged() {
    let mut k = kit(3).shadow(0, &[("4H", None), ("2H", None), ("6H", None)]).am_i_alive(0);
    k.settle();
    assert!(!k.lit(0));
    assert!(
        k.events
            .iter()
            .any(|e| matches!(e, Event::EliminationStarted { seat: 0, cause: EliminationCause::Possessed, .. }))
    );
}
