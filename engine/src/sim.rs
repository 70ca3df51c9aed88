//! Random playouts: the random bot plays every seat. Used by `flicker simulate`, the property
//! tests and the benchmarks. Pure: both generators are passed in.

use crate::bot::random_answer;
use crate::command::Command;
use crate::decide::{create, decide, decide_mut};
use crate::event::Event;
use crate::evolve::apply;
use crate::invariants;
use crate::prompt::{PromptKind, prompts};
use crate::settings::Settings;
use crate::state::State;
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
        if open.is_empty() {
            return Err(fail(&state, &events, "R10.4.1: no prompt open in a running game".into()));
        }
        // In a simultaneous window, seats that have answered already wait; when all have
        // answered and the window is held open, the server closes it.
        let cmd = match open.iter().find(|p| !matches!(p.kind, PromptKind::Salt { current: Some(_), .. })) {
            Some(p) => Command::Answer { seat: p.seat, prompt: Some(p.id), answer: random_answer(p, bot) },
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
