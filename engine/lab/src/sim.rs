//! Random playouts: the random bot plays every seat. Used by `flicker simulate`, the property
//! tests and the benchmarks. Pure: both generators are passed in.

use crate::bot::random_answer;
use final_flicker::command::Command;
use final_flicker::decide::{create, decide, decide_mut};
use final_flicker::event::Event;
use final_flicker::evolve::apply;
use final_flicker::invariants;
use final_flicker::prompt::{PromptKind, prompts};
use final_flicker::settings::Settings;
use final_flicker::state::State;
use rand::Rng;

/// The outcome of one random game.
#[derive(Debug, Clone)]
pub struct Playout {
    /// Every event, in order.
    pub events: Vec<Event>,
    /// The final state.
    pub state: State,
    /// Number of turns played.
    pub turns: u32,
    /// Number of commands sent.
    pub commands: u32,
}

/// A broken invariant or a refused bot answer.
#[derive(Debug, Clone, thiserror::Error)]
#[error("after event {version}: {message}")]
pub struct PlayoutError {
    /// Stream version at which it was found.
    pub version: u64,
    /// What went wrong.
    pub message: String,
    /// The events so far (for a replay of the failure).
    pub events: Vec<Event>,
}

/// Which bot plays every seat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Policy {
    /// [`crate::bot::random_answer`]: uniform within each prompt's constraints.
    #[default]
    Random,
    /// [`crate::heuristic::heuristic_answer`]: simple sensible play from the seat's view.
    Heuristic,
}

/// Plays one game with the random bot in every seat. `rng` is the table's generator (deal,
/// Scare, shuffles); `bot` the bots'. With `check`, every invariant is verified after every
/// event (slow); without it only at the end.
pub fn play_random<R: Rng + ?Sized, B: Rng + ?Sized>(
    settings: &Settings,
    rng: &mut R,
    bot: &mut B,
    check: bool,
    max_commands: u32,
) -> Result<Playout, PlayoutError> {
    play(settings, &[Policy::Random], rng, bot, check, max_commands)
}

/// Plays one game; seat `s` is played by `policies[s % policies.len()]` (see [`play_random`]).
pub fn play<R: Rng + ?Sized, B: Rng + ?Sized>(
    settings: &Settings,
    policies: &[Policy],
    rng: &mut R,
    bot: &mut B,
    check: bool,
    max_commands: u32,
) -> Result<Playout, PlayoutError> {
    let fail = |state: &State, events: &[Event], message: String| PlayoutError {
        version: state.version(),
        message,
        events: events.to_vec(),
    };
    let mut events =
        create(settings, rng).map_err(|e| PlayoutError { version: 0, message: e.to_string(), events: vec![] })?;
    let mut state = State::new();
    for e in &events {
        apply(&mut state, e);
        if check {
            invariants::check(&state).map_err(|m| fail(&state, &events, m))?;
        }
    }
    invariants::check_settled(&state).map_err(|m| fail(&state, &events, m))?;
    let mut commands = 0;
    while !state.is_finished() {
        if commands >= max_commands {
            return Err(fail(&state, &events, format!("no end after {max_commands} commands")));
        }
        let open = prompts(&state);
        if open.is_empty() && final_flicker::window::held_answer(&state).is_none() {
            return Err(fail(&state, &events, "R10.4.1: no prompt open in a running game".into()));
        }
        // In a simultaneous window, seats that have answered already wait; when all have
        // answered and the window is held open, the server closes it.
        let cmd = match open.iter().find(|p| !matches!(p.kind, PromptKind::Salt { current: Some(_), .. })) {
            Some(p) => {
                let answer = match policies[p.seat as usize % policies.len()] {
                    Policy::Random => random_answer(p, bot),
                    Policy::Heuristic => {
                        let v = final_flicker::view::view(&state, final_flicker::view::Viewer::Seat { seat: p.seat });
                        crate::heuristic::heuristic_answer(p, &v, bot)
                    }
                };
                Command::Answer { seat: p.seat, prompt: Some(p.id), answer }
            }
            None => Command::CloseWindow,
        };
        commands += 1;
        if check {
            let new = decide(&state, &cmd, rng)
                .map_err(|e| fail(&state, &events, format!("bot answer refused: {e} ({cmd:?})")))?;
            for e in new {
                apply(&mut state, &e);
                events.push(e);
                invariants::check(&state).map_err(|m| fail(&state, &events, m))?;
            }
            invariants::check_settled(&state).map_err(|m| fail(&state, &events, m))?;
        } else {
            decide_mut(&mut state, &cmd, rng, &mut events)
                .map_err(|e| fail(&state, &events, format!("bot answer refused: {e} ({cmd:?})")))?;
        }
    }
    invariants::check_settled(&state).map_err(|m| fail(&state, &events, m))?;
    let turns = events.iter().filter(|e| matches!(e, Event::TurnStarted { .. })).count() as u32;
    Ok(Playout { events, state, turns, commands })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::ChaCha8Rng;

    /// The heuristic bot beats the random bot heads-up far more often than not.
    #[test]
    fn the_heuristic_bot_beats_the_random_bot() {
        let settings = Settings::new(2);
        let mut wins = 0;
        let games = 300;
        for g in 0..games {
            // Alternate seats so that seat order does not decide.
            let policies =
                if g % 2 == 0 { [Policy::Heuristic, Policy::Random] } else { [Policy::Random, Policy::Heuristic] };
            let mut rng = ChaCha8Rng::seed_from_u64(g);
            let mut bot = ChaCha8Rng::seed_from_u64(g + 1_000_000);
            let p = play(&settings, &policies, &mut rng, &mut bot, false, 1_000_000).expect("game");
            let winner = p.state.result().and_then(|r| r.winner);
            if winner == Some((g % 2) as u8) {
                wins += 1;
            }
        }
        println!("heuristic won {wins} of {games}");
        assert!(wins * 100 > games * 60, "heuristic won only {wins} of {games}");
    }
}
