//! What the platform needs of a game beyond the [`Game`] contract: its built-in bots. A game the
//! platform hosts implements [`Hosted`] (in [`crate::games`]), and
//! [`crate::gatherings::CircleGame`] for its gathering circles; tables, clocks, the driver's
//! decisions, sight and streams are generic over the contract.

use crate::bots::BotKind;
use flicker_game::Game;
use rand::Rng;

/// A game the platform hosts.
pub trait Hosted: Game {
    /// The built-in bot `kind`'s answer to `prompt` (open for `seat`), decided from `seat`'s view
    /// of `state` only (never the hidden state), its choices drawn from `rng`. A legal answer.
    fn bot_answer<R: Rng + ?Sized>(
        kind: BotKind,
        state: &Self::State,
        seat: u8,
        prompt: &Self::Prompt,
        rng: &mut R,
    ) -> Self::Answer;
}
