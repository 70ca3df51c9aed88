//! The lab's bots through the Game contract: random and heuristic games played by
//! `flicker_game::kit::play` keep fold == state and replay == live for every viewer.

use final_flicker::{FinalFlicker, Settings};
use flicker_game::{Game, Viewer, kit};
use flicker_lab::{HeuristicBot, RandomBot};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

fn settings(seats: u8, classes: bool) -> Settings {
    let mut s = Settings::new(seats);
    s.classes = classes;
    s
}

fn check(p: &kit::Playout<FinalFlicker>) {
    assert!(FinalFlicker::outcome(&p.state).is_some(), "the game ended");
    kit::check_fold::<FinalFlicker>(&p.events, &p.state).unwrap();
    let viewers = Viewer::all(FinalFlicker::players(&p.state));
    let views: Vec<_> = viewers.iter().map(|&v| (v, FinalFlicker::view(&p.state, v))).collect();
    kit::check_replay::<FinalFlicker>(&p.events, &p.state, &views, &[]).unwrap();
}

/// R10.1.1: random bots, 2 to 8 seats, with and without classes.
#[test]
fn random_bot_games_fold_and_replay() {
    for seats in 2..=8u8 {
        for classes in [false, true] {
            let mut rng = ChaCha8Rng::seed_from_u64(seats as u64 * 2 + classes as u64);
            let mut bot = ChaCha8Rng::seed_from_u64(11);
            let p = kit::play::<FinalFlicker, _, _, _>(
                &settings(seats, classes),
                &mut [RandomBot],
                &mut rng,
                &mut bot,
                1_000_000,
            )
            .expect("a finished game");
            check(&p);
        }
    }
}

/// The heuristic bot answers legally from its own view only (each answer is decided by the
/// engine; a refusal fails the playout).
#[test]
fn heuristic_bot_games_fold_and_replay() {
    for seats in [2u8, 4, 6] {
        let mut rng = ChaCha8Rng::seed_from_u64(seats as u64);
        let mut bot = ChaCha8Rng::seed_from_u64(5);
        let p = kit::play::<FinalFlicker, _, _, _>(
            &settings(seats, true),
            &mut [HeuristicBot],
            &mut rng,
            &mut bot,
            1_000_000,
        )
        .expect("a finished game");
        check(&p);
    }
}
