//! Property tests over random games (proptest): card conservation (R1.6), state == fold(events)
//! (R10.1.1), serialised events fold to the same state (R10.2.2), every game ends (R7.9), and no
//! view or redacted event shows a card its viewer may not see at that moment (R10.8).

use super::bot::random_answer;
use crate::model::command::Command;
use crate::model::event::Event;
use crate::model::handle::handle;
use crate::model::settings::{SaltWindow, Settings};
use crate::model::state::State;
use crate::projection::leaks::{check_event, check_view};
use crate::projection::redact::redact;
use crate::projection::view::{Viewer, view};
use crate::rules::decide::{create, decide};
use crate::rules::evolve::apply;
use crate::rules::invariants;
use crate::rules::prompt::{PromptKind, UseOption, prompts};
use crate::rules::replay::{fold, read_replay, write_replay};
use proptest::prelude::*;
use rand::rngs::ChaCha8Rng;
use rand::{Rng, RngExt, SeedableRng};
use serde_json::Value;

fn viewers(n: usize) -> Vec<Viewer> {
    let mut v: Vec<Viewer> = (0..n as u8).map(|seat| Viewer::Seat { seat }).collect();
    v.push(Viewer::Spectator);
    v.push(Viewer::Commentary);
    v
}

/// Checks the views and redacted events of one event for every viewer ([`crate::projection::leaks`]).
fn check_leaks(before: &State, event: &Event, after: &State) -> Result<(), String> {
    if before.is_finished() || after.is_finished() {
        return Ok(());
    }
    for viewer in viewers(after.players.len()) {
        let v = serde_json::to_value(view(after, viewer)).expect("view json");
        check_view(&v, after, viewer, &format!("view for {viewer:?} after {}", event.type_name()))
            .map_err(|e| format!("{e}\nview: {v}"))?;
        if viewer == Viewer::Spectator && v["prompt"] != Value::Null {
            return Err("a spectator's view holds a prompt".into());
        }
        if let Some(re) = redact(before, event, after, viewer) {
            let j = serde_json::to_value(&re).expect("event json");
            check_event(&j, before, event, after, viewer, &format!("{} for {viewer:?}", event.type_name()))?;
        }
    }
    Ok(())
}

/// Plays one random game, checking properties after every event. Returns the events, the live
/// state and the number of turns.
fn play(settings: &Settings, seed: u64, leaks: bool) -> Result<(Vec<Event>, State), String> {
    play_with(settings, seed, leaks, false)
}

/// [`play`], optionally with random concessions (R10.10) sent at any moment.
fn play_with(settings: &Settings, seed: u64, leaks: bool, concede: bool) -> Result<(Vec<Event>, State), String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut bot = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
    let mut events = create(settings, &mut rng).map_err(|e| e.to_string())?;
    let mut state = State::new();
    for e in &events {
        let before = state.clone();
        apply(&mut state, e);
        invariants::check(&state)?;
        if leaks {
            check_leaks(&before, e, &state)?;
        }
    }
    let mut commands = 0;
    while !state.is_finished() {
        invariants::check_settled(&state)?;
        commands += 1;
        if commands > 100_000 {
            return Err("the game does not end".into());
        }
        let open = prompts(&state);
        if concede && rand::RngExt::random_ratio(&mut bot, 1, 150) {
            let lit: Vec<u8> = (0..state.players.len() as u8).filter(|&s| state.is_lit(s)).collect();
            let seat = lit[rand::RngExt::random_range(&mut bot, 0..lit.len())];
            for e in
                decide(&state, &Command::Concede { seat }, &mut rng).map_err(|e| format!("concession refused: {e}"))?
            {
                let before = state.clone();
                apply(&mut state, &e);
                invariants::check(&state)?;
                if leaks {
                    check_leaks(&before, &e, &state)?;
                }
                events.push(e);
            }
            continue;
        }
        let cmd = match open.iter().find(|p| !matches!(p.kind, PromptKind::Salt { current: Some(_), .. })) {
            Some(p) => Command::Answer { seat: p.seat, prompt: Some(p.id), answer: random_answer(p, &mut bot) },
            None => Command::CloseWindow,
        };
        let new = decide(&state, &cmd, &mut rng).map_err(|e| format!("legal bot answer refused: {e}"))?;
        for e in new {
            let before = state.clone();
            apply(&mut state, &e);
            invariants::check(&state)?;
            if leaks {
                check_leaks(&before, &e, &state)?;
            }
            events.push(e);
        }
    }
    Ok((events, state))
}

/// Classes on, with a ban list drawn from `bans` (one bit per class of the roster).
fn with_classes(mut s: Settings, bans: u64) -> Settings {
    s.classes = true;
    s.class_bans = crate::model::classes::ClassId::ALL
        .iter()
        .enumerate()
        .filter(|(i, _)| bans >> i & 1 == 1 && i % 5 == 0)
        .map(|(_, c)| *c)
        .collect();
    s
}

fn settings_for(players: u8, simultaneous: bool, hold: bool) -> Settings {
    let mut s = Settings::new(players);
    s.salt_window = if simultaneous { SaltWindow::Simultaneous } else { SaltWindow::Sequential };
    s.hold_windows = hold;
    s
}

/// [`settings_for`] with the optional rule R6.5.2 (Salt only when targeted).
fn settings_targeted(players: u8, simultaneous: bool, hold: bool, targeted: bool) -> Settings {
    let mut s = settings_for(players, simultaneous, hold);
    s.salt_targeted_only = targeted;
    s
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// R1.6 conservation (checked after every event), R10.1.1 state == fold(events),
    /// R10.2.2 serialised events fold to the same state, R7.9 every game ends.
    #[test]
    fn random_games_conserve_cards_and_fold_to_the_live_state(
        players in 2u8..=8, seed in any::<u64>(), simultaneous in any::<bool>(), hold in any::<bool>(),
        concede in any::<bool>(), a2 in any::<bool>(), classes in any::<bool>(), bans in any::<u64>()
    ) {
        let mut settings = settings_for(players, simultaneous, hold);
        if classes {
            settings = with_classes(settings, bans);
        }
        settings.last_lit = if a2 { 2 } else { 1 };
        let (events, live) = play_with(&settings, seed, false, concede).map_err(TestCaseError::fail)?;
        prop_assert!(live.is_finished());
        let folded = fold(&events);
        prop_assert_eq!(&folded, &live);
        let mut buf = Vec::new();
        write_replay(&mut buf, &events).unwrap();
        let (_, back) = read_replay(std::io::Cursor::new(buf)).unwrap();
        prop_assert_eq!(&back, &events);
        prop_assert_eq!(&fold(&back), &live);
    }

    /// R10.8, R10.3.2, R10.2.5: no view and no redacted event shows a card instance its viewer may not
    /// see at that moment, nor a handle the card has where the viewer cannot see it; identical
    /// faces from different decks are told apart by instance; the handle key appears nowhere.
    /// Both window forms, windows held open for the server or not, R6.5.2 on or off.
    #[test]
    fn no_view_shows_what_its_viewer_may_not_see(
        players in 2u8..=8, seed in any::<u64>(), simultaneous in any::<bool>(), hold in any::<bool>(),
        targeted in any::<bool>(), concede in any::<bool>(), classes in any::<bool>(), bans in any::<u64>()
    ) {
        let mut settings = settings_targeted(players, simultaneous, hold, targeted);
        if classes {
            settings = with_classes(settings, bans);
        }
        play_with(&settings, seed, true, concede).map_err(TestCaseError::fail)?;
    }
}

/// R10.8, R3.2.1: the commentary view shows what some player knows (every hand, every Wall
/// and page, private answers) and never what nobody knows: no Candle's order, no card of The
/// Dark below its top, no set-aside card, no handle key, pool or seed; its creation event
/// carries every starting hand and nothing else hidden. Checked over whole random games.
#[test]
fn r10_8_the_commentary_view_shows_what_some_player_knows_and_no_more() {
    for (players, seed) in [(2u8, 1u64), (3, 2), (5, 3), (8, 4)] {
        let settings = with_classes(settings_for(players, seed % 2 == 0, false), seed);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut bot = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
        let mut events = create(&settings, &mut rng).unwrap();
        let mut state = State::new();
        let mut i = 0;
        let mut answers = 0;
        while i < events.len() || !state.is_finished() {
            if i == events.len() {
                let open = prompts(&state);
                let answerable: Vec<_> =
                    open.iter().filter(|p| !matches!(p.kind, PromptKind::Salt { current: Some(_), .. })).collect();
                let cmd = match answerable.first() {
                    Some(p) => Command::Answer { seat: p.seat, prompt: Some(p.id), answer: random_answer(p, &mut bot) },
                    None => Command::CloseWindow,
                };
                events.extend(decide(&state, &cmd, &mut rng).unwrap());
                answers += 1;
                assert!(answers < 20_000);
                continue;
            }
            let before = state.clone();
            apply(&mut state, &events[i]);
            let e = &events[i];
            i += 1;
            if state.is_finished() {
                break;
            }
            let v = serde_json::to_value(view(&state, Viewer::Commentary)).unwrap();
            check_view(&v, &state, Viewer::Commentary, "commentary view").unwrap();
            assert!(v["prompt"].is_null(), "a commentary view holds no prompt");
            assert!(v["dark"].get("cards").is_none(), "The Dark's order is nobody's: {v}");
            for (p, pv) in state.players.iter().zip(v["players"].as_array().unwrap()) {
                assert!(pv.get("candle").is_none(), "R3.2.1: a Candle's order is nobody's: {pv}");
                assert_eq!(pv["hand"].as_array().map(Vec::len), Some(p.hand.len()), "every hand is shown");
            }
            let r = serde_json::to_value(redact(&before, e, &state, Viewer::Commentary).expect("shown")).unwrap();
            check_event(&r, &before, e, &state, Viewer::Commentary, "commentary event").unwrap();
            if let Event::GameCreated(_) = e {
                for key in ["pool", "candles", "handle_key", "seed", "set_aside_cards"] {
                    assert!(r.get(key).is_none(), "game_created for commentary carries {key}: {r}");
                }
                let hands = r["hands"].as_array().expect("every starting hand");
                assert_eq!(hands.len(), players as usize);
                assert!(hands.iter().all(|h| h.as_array().is_some_and(|h| !h.is_empty())));
            }
        }
    }
}

/// The longest of many random games, reported (R7.9 bounds every game).
#[test]
fn random_games_of_2_to_8_players_end() {
    let mut longest = (0usize, 0u8, 0u64);
    for players in 2..=8u8 {
        for seed in 0..40u64 {
            let (events, state) = play(&settings_for(players, seed % 2 == 0, false), seed, false).unwrap();
            assert!(state.is_finished());
            let turns = events.iter().filter(|e| matches!(e, Event::TurnStarted { .. })).count();
            if turns > longest.0 {
                longest = (turns, players, seed);
            }
        }
    }
    println!("longest game: {} turns ({} players, seed {})", longest.0, longest.1, longest.2);
    assert!(longest.0 > 0);
}

/// R10.3.2: a card's handle changes when it moves, so a card seen in a hand and later seen
/// elsewhere cannot be linked by its handle.
#[test]
fn r10_3_2_handles_change_when_cards_move() {
    let settings = settings_for(4, false, false);
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let events = create(&settings, &mut rng).unwrap();
    let mut state = fold(&events);
    let active = state.turn.active;
    // Every hand card's handle now; the first action moves one of them.
    let before: Vec<_> = state.players[active as usize].hand.iter().map(|&c| (c, handle(&state, c))).collect();
    let p = crate::rules::prompt::prompt_for(&state, active).expect("ritual prompt");
    let PromptKind::Ritual { options, .. } = &p.kind else { panic!("expected the Ritual prompt") };
    let (card, target) = options
        .iter()
        .find_map(|o| {
            o.uses.iter().find_map(|u| match u {
                UseOption::Haunt { targets } => Some((o.card.handle, targets[0])),
                _ => None,
            })
        })
        .expect("a starting hand of 3 holds a number card");
    let cmd = Command::Answer {
        seat: active,
        prompt: None,
        answer: crate::model::command::Answer::Act { action: crate::model::action::Action::Haunt { card, target } },
    };
    for e in decide(&state, &cmd, &mut rng).unwrap() {
        apply(&mut state, &e);
    }
    let (moved, old) = before.iter().find(|(c, _)| !state.players[active as usize].hand.contains(c)).unwrap();
    assert_ne!(handle(&state, *moved), *old, "the card moved but kept its handle");
}

/// Folds `events` from `start`, checking [`check_leaks`] on each; returns (before, event, after).
fn checked_steps(start: &State, events: &[Event]) -> Vec<(State, Event, State)> {
    let mut out = Vec::new();
    let mut s = start.clone();
    for e in events {
        let before = s.clone();
        apply(&mut s, e);
        check_leaks(&before, e, &s).unwrap_or_else(|err| panic!("leak: {err}"));
        out.push((before, e.clone(), s.clone()));
    }
    out
}

/// R10.3.2, R10.12, R5.5.6: the cards Sight takes are shown to their former owner as they lay in
/// its hand (the handles it knew, never the handles they have in the caster's hand, which it
/// could follow later) and in the neutral order, not the caster's pick order; the caster sees
/// them as they now lie in its hand; everyone else sees a count.
#[test]
fn r10_3_2_sight_taken_shows_the_target_only_the_old_handles() {
    use super::kit::{Kit, name};
    use crate::model::action::Action;
    use crate::model::command::Answer;
    use crate::projection::redact::{Cards, EffectView, ViewEvent};
    let mut k = Kit::new(4).hand(0, &["6H", "3C"]).hand(3, &["KS", "2D", "Joker", "9H", "2S"]);
    let start = k.state.clone();
    let mut events = k.act(0, Action::Sight { card: k.in_hand(0, "6H"), target: 3 }).unwrap();
    while let [seat] = k.asked()[..]
        && matches!(k.prompt(seat).map(|p| p.kind), Some(PromptKind::Salt { .. }))
    {
        events.extend(k.answer(seat, Answer::Pass).unwrap());
    }
    let target_hand = |st: &State| st.players[3].hand.clone();
    let seen = target_hand(&k.state);
    let by_face = |f: &str| *seen.iter().find(|&&c| name(k.state.face(c)) == f).unwrap();
    let (ks, d2) = (by_face("KS"), by_face("2D"));
    // Picked King first: the pick order differs from the neutral order (2♦ before K♠).
    let pick = vec![handle(&k.state, ks), handle(&k.state, d2)];
    events.extend(k.answer(0, Answer::Pick { cards: pick }).unwrap());
    let steps = checked_steps(&start, &events);
    let (b, e, a) = steps.iter().find(|(_, e, _)| matches!(e, Event::ActionResolved { .. })).expect("resolved");
    let taken = |v: Viewer| match redact(b, e, a, v) {
        Some(ViewEvent::ActionResolved { effect: EffectView::SightTaken { taken, .. }, .. }) => taken,
        other => panic!("{v:?}: expected SightTaken, got {other:?}"),
    };
    let Cards::Shown(to_target) = taken(Viewer::Seat { seat: 3 }) else { panic!("the target sees the cards") };
    assert_eq!(to_target.iter().map(|v| v.handle).collect::<Vec<_>>(), vec![handle(b, d2), handle(b, ks)]);
    assert_eq!(to_target.iter().map(|v| name(v.face)).collect::<Vec<_>>(), vec!["2D", "KS"]);
    for v in &to_target {
        assert!(a.players[0].hand.iter().all(|&c| handle(a, c) != v.handle), "a handle the target can follow");
    }
    let Cards::Shown(to_actor) = taken(Viewer::Seat { seat: 0 }) else { panic!("the caster sees the cards") };
    assert_eq!(to_actor.iter().map(|v| v.handle).collect::<Vec<_>>(), vec![handle(a, ks), handle(a, d2)]);
    for v in [Viewer::Seat { seat: 1 }, Viewer::Seat { seat: 2 }, Viewer::Spectator] {
        assert_eq!(taken(v), Cards::Hidden { count: 2 }, "{v:?}");
    }
}

/// A `Viewer::Seat` naming no seat of the table is a spectator: `redact` and `view` give it
/// exactly what they give a spectator, and never panic.
#[test]
fn a_seat_beyond_the_table_sees_what_a_spectator_sees() {
    for (players, simultaneous, seed) in [(2u8, false, 1u64), (5, true, 2), (8, true, 3)] {
        let (events, _) = play(&settings_for(players, simultaneous, false), seed, false).unwrap();
        let mut state = State::new();
        for e in &events {
            let before = state.clone();
            apply(&mut state, e);
            for seat in [players, players + 1, u8::MAX] {
                let stranger = Viewer::Seat { seat };
                assert_eq!(
                    redact(&before, e, &state, stranger),
                    redact(&before, e, &state, Viewer::Spectator),
                    "{} for seat {seat} of {players}",
                    e.type_name()
                );
                let (mut v, s) = (view(&state, stranger), view(&state, Viewer::Spectator));
                v.viewer = Viewer::Spectator;
                assert_eq!(v, s, "view for seat {seat} of {players}");
            }
        }
    }
}

/// The `Debug` of a state (which may reach logs) never prints the handle key (R10.3.2).
#[test]
fn state_debug_hides_the_handle_key() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let state = fold(&create(&settings_for(3, true, false), &mut rng).unwrap());
    let key = state.handle_key.0;
    let text = format!("{state:?}");
    assert!(text.contains("handle_key: <secret>"), "{text}");
    for k in key {
        assert!(!text.contains(&k.to_string()), "the key {k} is printed");
    }
    let pretty = format!("{state:#?}");
    assert!(pretty.contains("<secret>") && !key.iter().any(|k| pretty.contains(&k.to_string())));
}

/// Many random games with classes on, every seat count 2..=8: conservation (Walls and pages
/// included), fold, replay round trip and the leak scan after every event.
#[test]
fn random_games_with_classes_keep_every_property() {
    for players in 2..=8u8 {
        for seed in 0..12u64 {
            let settings = with_classes(settings_for(players, seed % 2 == 0, seed % 3 == 0), seed.wrapping_mul(0x9e37));
            let (events, live) = play_with(&settings, seed * 31 + players as u64, true, seed % 4 == 0)
                .unwrap_or_else(|e| panic!("{players} players, seed {seed}: {e}"));
            assert_eq!(fold(&events), live);
            let mut buf = Vec::new();
            write_replay(&mut buf, &events).unwrap();
            let (_, back) = read_replay(std::io::Cursor::new(buf)).unwrap();
            assert_eq!(fold(&back), live);
        }
    }
}

/// R10.1.3: every event of random games with classes (and classic games), written in its
/// schema-1 form, reads back through the upcasters as the event written, so a stored game of
/// schema 1 folds exactly as it did. The games must hold every shape an upcaster changes.
#[test]
fn r10_1_3_schema_1_events_upcast_to_the_events_written() {
    use crate::model::upcast::tests::to_schema_1;
    use flicker_game::Game;
    let mut seen = std::collections::BTreeMap::<String, usize>::new();
    for players in 2..=8u8 {
        for seed in 0..16u64 {
            let mut settings = with_classes(settings_for(players, seed % 2 == 0, false), seed.wrapping_mul(0x51));
            if seed % 4 == 3 {
                settings.ruleset = crate::model::settings::RulesetName::Classic;
            }
            let (events, live) = play(&settings, seed * 97 + u64::from(players), false).unwrap();
            let mut back = Vec::with_capacity(events.len());
            for e in &events {
                let v = serde_json::to_value(e).unwrap();
                let (t, payload) = (v["type"].as_str().unwrap(), &v["payload"]);
                let v1 = to_schema_1(t, payload);
                if v1 != *payload {
                    let kind = v["payload"]["effect"]["effect"].as_str().unwrap();
                    let spread = v["payload"]["effect"]["removed"]
                        .as_array()
                        .is_some_and(|r| r.iter().any(|r| r.get("spread").is_some()));
                    *seen
                        .entry(if spread { "purged with a spread".to_string() } else { kind.to_string() })
                        .or_default() += 1;
                }
                let read = crate::game::FinalFlicker::upcast(t, 1, &v1).unwrap();
                back.push(serde_json::from_value::<Event>(serde_json::json!({"type": t, "payload": read})).unwrap());
            }
            assert_eq!(back, events, "{players} players, seed {seed}");
            assert_eq!(fold(&back), live);
        }
    }
    for kind in ["drained", "watcher_taken", "purged", "purged with a spread"] {
        assert!(seen.get(kind).is_some_and(|n| *n > 0), "no {kind} effect in the games: {seen:?}");
    }
}

/// A1 with R1.6 conservation, R10.1.1 fold == live, R10.2.2 replay == live, R10.8 no leaks and
/// R7.9 every game ends, over 200 random classic games (2 to 8 seats, half with the classic
/// roster, both window forms, held windows, both `dark_mode`s, concessions).
#[test]
fn a1_random_classic_games_keep_every_property_and_leak_nothing() {
    let mut rng = ChaCha8Rng::seed_from_u64(0xc1a551c);
    for game in 0..200u64 {
        let players = rng.random_range(2..=8u8);
        let mut settings = settings_for(players, rng.random_bool(0.5), rng.random_bool(0.3));
        settings.ruleset = crate::model::settings::RulesetName::Classic;
        // A9: half the games with the classic roster.
        settings.classes = game % 2 == 1;
        if rng.random_bool(0.5) {
            settings.dark_mode = crate::model::settings::DarkMode::Dark;
        }
        let seed = rng.next_u64();
        let (events, live) = play_with(&settings, seed, true, rng.random_bool(0.2))
            .unwrap_or_else(|e| panic!("classic game {game} ({players} seats, seed {seed}): {e}"));
        assert!(live.is_finished(), "classic game {game} did not end");
        assert_eq!(fold(&events), live, "classic game {game}: fold != live");
        let mut buf = Vec::new();
        write_replay(&mut buf, &events).unwrap();
        let (_, back) = read_replay(std::io::Cursor::new(buf)).unwrap();
        assert_eq!(fold(&back), live, "classic game {game}: replay != live");
    }
}

/// R2.7.6, R10.4.1, R10.2.3 over whole random games with classes: a seat's class never changes
/// once chosen; at every settled moment the game is finished or awaits exactly one decision
/// point (one prompt, or the prompts of one Salt / BOO! window); no event carries a seed or a
/// generator state.
#[test]
fn r2_7_6_r10_4_1_classes_fixed_one_decision_point_no_seed() {
    for (players, seed) in [(2u8, 11u64), (4, 12), (6, 13)] {
        let settings = with_classes(settings_for(players, seed % 2 == 0, false), seed);
        let (events, _) = play(&settings, seed, false).unwrap();
        let mut state = State::new();
        let mut classes: Vec<Option<crate::model::classes::ClassId>> = vec![None; players as usize];
        for e in &events {
            apply(&mut state, e);
            let json = serde_json::to_value(e).unwrap().to_string();
            assert!(!json.contains("\"seed\"") && !json.contains("\"rng\""), "R10.2.3: {json}");
            for (s, p) in state.players.iter().enumerate() {
                if let Some(old) = classes[s] {
                    assert_eq!(p.class, Some(old), "R2.7.6: seat {s}'s class changed");
                }
                classes[s] = classes[s].or(p.class);
            }
            if state.is_finished() || invariants::check_settled(&state).is_err() {
                continue; // mid-command states (between the events of one command) are not settled
            }
            let open = prompts(&state);
            let window =
                open.iter().all(|p| matches!(p.kind, PromptKind::Salt { .. } | PromptKind::CounterSalt { .. }));
            assert!(
                open.len() == 1 || (open.len() > 1 && window),
                "R10.4.1: {:?}",
                open.iter().map(|p| (p.seat, &p.kind)).collect::<Vec<_>>()
            );
        }
        assert!(classes.iter().all(Option::is_some));
    }
}
