//! # flicker-lab
//!
//! Tooling over the games, beside the rules: bots, random playouts and the fuzz driver. The
//! rule-level checks the engine's own tests use (invariants, the engine-level leak checker)
//! stay with the game (`final_flicker::invariants`, `final_flicker::leaks`); the generic
//! checks (fold == state, replay == live, per-viewer leak hooks) are `flicker_game::kit`.
//!
//! | module | holds |
//! |---|---|
//! | [`bot`] | the random bot of *The Final Flicker*: a uniformly random legal answer (R10.5) |
//! | [`heuristic`] | the heuristic bot: simple sensible play from the seat's view |
//! | [`sim`] | random playouts of *The Final Flicker* (`flicker simulate`, property tests, benchmarks) |
//! | [`exorcist`] | *Let's Call the Exorcist*: its random and heuristic bots, and simulation with team win rates |
//! | `fuzzing` | (feature `fuzzing`) the fuzz target's logic: bytes to commands, properties checked |
//!
//! [`RandomBot`] and [`HeuristicBot`] are the two bots as [`flicker_game::Bot`]s.

#![warn(missing_docs)]

pub mod bot;
pub mod exorcist;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
pub mod heuristic;
pub mod sim;

use final_flicker::{Answer, FinalFlicker, Prompt, View};
use flicker_game::Bot;
use rand::Rng;

/// The random bot ([`bot::random_answer`]): uniform within each prompt's constraints; it reads
/// the prompt only.
#[derive(Debug, Clone, Copy, Default)]
pub struct RandomBot;

impl Bot<FinalFlicker> for RandomBot {
    fn answer<R: Rng + ?Sized>(&mut self, prompt: &Prompt, _view: &View, rng: &mut R) -> Answer {
        bot::random_answer(prompt, rng)
    }
}

/// The heuristic bot ([`heuristic::heuristic_answer`]): sensible play from its seat's view.
#[derive(Debug, Clone, Copy, Default)]
pub struct HeuristicBot;

impl Bot<FinalFlicker> for HeuristicBot {
    fn answer<R: Rng + ?Sized>(&mut self, prompt: &Prompt, view: &View, rng: &mut R) -> Answer {
        heuristic::heuristic_answer(prompt, view, rng)
    }
}
