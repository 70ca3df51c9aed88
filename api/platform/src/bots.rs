//! Built-in bots: policies the server plays for seats that an organiser or a table's
//! creator filled with bots. A bot answers from its seat's own view and prompt only, exactly
//! what an external bot would get over the REST API; it never reads the hidden state.

use final_flicker::{Answer, Prompt, State, Viewer};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A built-in bot policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum BotKind {
    /// Uniformly random legal answers (engine `bot::random_answer`).
    Random,
    /// Banishes and Siphons sensibly, avoids Possession, Salts dangerous actions
    /// (engine `heuristic::heuristic_answer`).
    Heuristic,
}

impl BotKind {
    /// The policy's name, as in `heuristic-bot#07`.
    pub fn name(self) -> &'static str {
        match self {
            BotKind::Random => "random",
            BotKind::Heuristic => "heuristic",
        }
    }
}

/// The bot's answer to `prompt` at `seat`, from that seat's view of `state`, its choices drawn
/// from `rng`.
pub fn answer<R: rand::Rng + ?Sized>(kind: BotKind, state: &State, seat: u8, prompt: &Prompt, rng: &mut R) -> Answer {
    match kind {
        BotKind::Random => flicker_lab::bot::random_answer(prompt, rng),
        BotKind::Heuristic => {
            let view = final_flicker::view(state, Viewer::Seat { seat });
            flicker_lab::heuristic::heuristic_answer(prompt, &view, rng)
        }
    }
}
