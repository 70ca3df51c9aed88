//! Built-in bots: policies the server plays for seats that an organiser or a table's
//! creator filled with bots. A bot answers from its seat's own view and prompt only, exactly
//! what an external bot would get over the REST API; it never reads the hidden state. Each
//! hosted game gives its policies through [`crate::hosted::Hosted::bot_answer`].

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A built-in bot policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum BotKind {
    /// Uniformly random legal answers.
    Random,
    /// The game's heuristic bot (in The Final Flicker: Banishes and Siphons sensibly, avoids
    /// Possession, Salts dangerous actions).
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
