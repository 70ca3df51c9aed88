//! Property tests over random games (proptest) at 4 to 8 seats: cards and tiles conserved
//! (X1, after every event), state == fold(events), serialised events fold alike, replay == live
//! for every viewer, no view or redacted event shows what its viewer may not know, and every
//! game ends within a bound. Random answers, time-outs and concessions.

use crate::game::Exorcist;
use crate::model::command::Command;
use crate::model::event::Event;
use crate::model::settings::Settings;
use crate::model::state::State;
use crate::projection::leaks::LeakChecker;
use crate::rules::invariants;
use flicker_game::{Game, Viewer, kit};
use proptest::prelude::*;
use rand::rngs::ChaCha8Rng;
use rand::seq::IndexedRandom;
use rand::{RngExt, SeedableRng};

/// The bound on commands per game.
const MAX_COMMANDS: u32 = 5_000;

/// Plays a random game, checking the invariants after every event.
fn play(settings: &Settings, seed: u64, chaos: bool) -> Result<(Vec<Event>, State), String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut bot = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
    let mut events = Exorcist::create(settings, &mut rng).map_err(|e| e.to_string())?;
    let mut state = kit::fold::<Exorcist>(&events);
    let mut commands = 0;
    while !state.is_finished() {
        invariants::check_settled(&state)?;
        commands += 1;
        if commands > MAX_COMMANDS {
            return Err("the game does not end".into());
        }
        let open = Exorcist::prompts(&state);
        let cmd = if chaos && bot.random_ratio(1, 300) {
            Command::Concede { seat: bot.random_range(0..settings.players) }
        } else if chaos && bot.random_ratio(1, 20) {
            Command::Timeout
        } else if let Some(p) = open.choose(&mut bot) {
            Exorcist::answer_command(p, *p.legal_answers().choose(&mut bot).unwrap())
        } else {
            Command::CloseWindow
        };
        let new = match Exorcist::decide(&state, &cmd, &mut rng) {
            Ok(new) => new,
            Err(_) if matches!(cmd, Command::Concede { .. }) => continue,
            Err(e) => return Err(format!("{cmd:?} refused: {e}")),
        };
        for e in new {
            Exorcist::apply(&mut state, &e);
            invariants::check(&state)?;
            events.push(e);
        }
    }
    Ok((events, state))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    /// X1 conservation, R10.1.1 state == fold(events), serialised events fold alike, every
    /// game ends within the bound.
    #[test]
    fn random_games_conserve_and_fold(players in 4u8..=8, seed in any::<u64>(), chaos in any::<bool>(), hold in any::<bool>(), target in 3u32..=7) {
        let mut s = Settings::new(players);
        s.hold_windows = hold;
        s.target = target;
        let (events, live) = play(&s, seed, chaos).map_err(TestCaseError::fail)?;
        kit::check_fold::<Exorcist>(&events, &live).map_err(TestCaseError::fail)?;
        let json = serde_json::to_string(&events).unwrap();
        let back: Vec<Event> = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(&back, &events);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// R10.8, X11: replay == live for every viewer (views and redacted streams), and no view or
    /// redacted event shows any viewer a Role, a card place, a peek result, a dealt set or a
    /// pick it may not know, at any prefix of the game.
    #[test]
    fn no_view_shows_what_its_viewer_may_not_know(players in 4u8..=8, seed in any::<u64>(), chaos in any::<bool>()) {
        let mut s = Settings::new(players);
        s.target = 4;
        let (events, live) = play(&s, seed, chaos).map_err(TestCaseError::fail)?;
        let viewers = Viewer::all(players);
        let views: Vec<_> = viewers.iter().map(|&v| (v, Exorcist::view(&live, v))).collect();
        let streams: Vec<_> = viewers.iter().map(|&v| (v, kit::redacted_stream::<Exorcist>(&events, v))).collect();
        kit::check_replay::<Exorcist>(&events, &live, &views, &streams).map_err(TestCaseError::fail)?;
        let mut c = LeakChecker::new();
        kit::check_leaks::<Exorcist, _>(&events, &mut c).map_err(TestCaseError::fail)?;
        prop_assert!(c.checks > 0);
    }
}
