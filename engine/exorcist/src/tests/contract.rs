//! The Game contract over random games: fold == state, replay == live for every viewer.

use super::kit::random_game;
use crate::game::Exorcist;
use crate::model::settings::Settings;
use flicker_game::{Game, Viewer, kit};

/// R10.1.1: random games at 4 to 8 seats end, fold to the live state and replay alike for
/// every viewer (views and redacted streams).
#[test]
fn random_games_keep_the_contract() {
    for players in 4..=8u8 {
        let p = random_game(&Settings::new(players), players as u64);
        assert!(Exorcist::outcome(&p.state).is_some());
        kit::check_fold::<Exorcist>(&p.events, &p.state).unwrap();
        let viewers = Viewer::all(players);
        let views: Vec<_> = viewers.iter().map(|&v| (v, Exorcist::view(&p.state, v))).collect();
        let streams: Vec<_> = viewers.iter().map(|&v| (v, kit::redacted_stream::<Exorcist>(&p.events, v))).collect();
        kit::check_replay::<Exorcist>(&p.events, &p.state, &views, &streams).unwrap();
        let mut leaks = crate::LeakChecker::new();
        kit::check_leaks::<Exorcist, _>(&p.events, &mut leaks).unwrap();
    }
}
