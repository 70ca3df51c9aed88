//! Property tests over random games (proptest): card conservation (R1.6), state == fold(events)
//! (R10.1.1), serialised events fold to the same state (R10.2.2), every game ends (R7.9), and no
//! view or redacted event shows a card its viewer may not see at that moment (R10.8).

use crate::bot::random_answer;
use crate::card::CardId;
use crate::command::Command;
use crate::decide::{create, decide};
use crate::event::Event;
use crate::evolve::apply;
use crate::handle::handle;
use crate::invariants;
use crate::prompt::{PromptKind, UseOption, prompts};
use crate::redact::redact;
use crate::replay::{fold, read_replay, write_replay};
use crate::settings::{SaltWindow, Settings};
use crate::state::{ActionStage, State};
use crate::view::{Viewer, view};
use proptest::prelude::*;
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use serde_json::Value;
use std::collections::HashSet;

/// Every card view (an object with `handle` and `rank`) inside a JSON value.
fn card_views(v: &Value, out: &mut Vec<(u64, String, Option<String>)>) {
    match v {
        Value::Object(m) => {
            if let (Some(Value::Number(h)), Some(Value::String(r))) = (m.get("handle"), m.get("rank")) {
                let suit = m.get("suit").and_then(|s| s.as_str()).map(str::to_string);
                out.push((h.as_u64().expect("handle is a u64"), r.clone(), suit));
            }
            for x in m.values() {
                card_views(x, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| card_views(x, out)),
        _ => {}
    }
}

/// R10.8: the cards `viewer` may see in `state` at this moment.
fn visible(state: &State, viewer: Viewer) -> HashSet<CardId> {
    let mut s = HashSet::new();
    if state.players.is_empty() {
        return s;
    }
    for p in &state.players {
        s.extend(p.shadow.iter().map(|g| g.card));
    }
    s.extend(state.dark.last().copied());
    s.extend(state.resolving.iter().copied());
    if let Viewer::Seat { seat } = viewer {
        s.extend(state.players[seat as usize].hand.iter().copied());
        // What an effect shows while it lasts: the hand seen through Sight, the whole Dark
        // during a Medium Search (R10.8).
        if let Some(flow) = state.flow()
            && flow.actor == seat
        {
            match &flow.stage {
                ActionStage::SightPick { target } => s.extend(state.players[*target as usize].hand.iter().copied()),
                ActionStage::MediumPick => s.extend(state.dark.iter().copied()),
                _ => {}
            }
        }
    }
    s
}

/// Checks that every card view in `json` names a card in `allowed`, with the right face.
fn check_cards(json: &Value, states: &[&State], allowed: &HashSet<CardId>, what: &str) -> Result<(), String> {
    let mut cards = Vec::new();
    card_views(json, &mut cards);
    for (h, rank, suit) in cards {
        let found = states
            .iter()
            .find_map(|st| (0..st.pool.len() as u16).map(CardId).find(|&c| handle(st, c).0 == h).map(|c| (*st, c)));
        let Some((st, c)) = found else {
            return Err(format!("{what}: handle {h} names no card"));
        };
        let f = st.face(c);
        if f.rank.label() != rank || f.suit.map(|x| format!("{x:?}").to_lowercase()) != suit {
            return Err(format!("{what}: handle {h} shown as {rank} {suit:?} but is {f}"));
        }
        if !allowed.contains(&c) {
            return Err(format!("{what}: shows {f} (card {c:?}), which the viewer may not see"));
        }
    }
    Ok(())
}

fn viewers(n: usize) -> Vec<Viewer> {
    let mut v: Vec<Viewer> = (0..n as u8).map(|seat| Viewer::Seat { seat }).collect();
    v.push(Viewer::Spectator);
    v
}

/// Checks the views and redacted events of one event for every viewer.
fn check_leaks(before: &State, event: &Event, after: &State) -> Result<(), String> {
    if before.is_finished() || after.is_finished() {
        return Ok(());
    }
    for viewer in viewers(after.players.len()) {
        let v = serde_json::to_value(view(after, viewer)).expect("view json");
        check_cards(&v, &[after], &visible(after, viewer), &format!("view for {viewer:?}"))?;
        if viewer == Viewer::Spectator && v["prompt"] != Value::Null {
            return Err("a spectator's view holds a prompt".into());
        }
        if let Some(re) = redact(before, event, after, viewer) {
            let j = serde_json::to_value(&re).expect("event json");
            // An event may name what the viewer could see just before or just after it, and
            // every card that entered The Dark with it (R3.5.2).
            let mut allowed = visible(before, viewer);
            allowed.extend(visible(after, viewer));
            let before_dark: HashSet<CardId> = before.dark.iter().copied().collect();
            allowed.extend(after.dark.iter().copied().filter(|c| !before_dark.contains(c)));
            check_cards(&j, &[before, after], &allowed, &format!("{} for {viewer:?}", event.type_name()))?;
            if let Some(obj) = j.as_object()
                && obj.contains_key("handle_key")
            {
                return Err("the handle key reached a view".into());
            }
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

fn settings_for(players: u8, simultaneous: bool, hold: bool) -> Settings {
    let mut s = Settings::new(players);
    s.salt_window = if simultaneous { SaltWindow::Simultaneous } else { SaltWindow::Sequential };
    s.hold_windows = hold;
    s
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// R1.6 conservation (checked after every event), R10.1.1 state == fold(events),
    /// R10.2.2 serialised events fold to the same state, R7.9 every game ends.
    #[test]
    fn random_games_conserve_cards_and_fold_to_the_live_state(
        players in 2u8..=8, seed in any::<u64>(), simultaneous in any::<bool>(), hold in any::<bool>(),
        concede in any::<bool>()
    ) {
        let (events, live) =
            play_with(&settings_for(players, simultaneous, hold), seed, false, concede).map_err(TestCaseError::fail)?;
        prop_assert!(live.is_finished());
        let folded = fold(&events);
        prop_assert_eq!(&folded, &live);
        let mut buf = Vec::new();
        write_replay(&mut buf, &events).unwrap();
        let (_, back) = read_replay(std::io::Cursor::new(buf)).unwrap();
        prop_assert_eq!(&back, &events);
        prop_assert_eq!(&fold(&back), &live);
    }

    /// R10.8, R10.3.2: no view and no redacted event shows a card instance its viewer may not
    /// see at that moment; identical faces from different decks are told apart by instance.
    #[test]
    fn no_view_shows_what_its_viewer_may_not_see(
        players in 2u8..=8, seed in any::<u64>(), simultaneous in any::<bool>(), concede in any::<bool>()
    ) {
        play_with(&settings_for(players, simultaneous, false), seed, true, concede).map_err(TestCaseError::fail)?;
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
    let p = crate::prompt::prompt_for(&state, active).expect("ritual prompt");
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
        answer: crate::command::Answer::Act { action: crate::action::Action::Haunt { card, target } },
    };
    for e in decide(&state, &cmd, &mut rng).unwrap() {
        apply(&mut state, &e);
    }
    let (moved, old) = before.iter().find(|(c, _)| !state.players[active as usize].hand.contains(c)).unwrap();
    assert_ne!(handle(&state, *moved), *old, "the card moved but kept its handle");
}
