//! # exorcist
//!
//! *Let's Call the Exorcist* (`../shared/RULES-exorcist.md`, X-ids) as a pure decider:
//! `decide(&state, command, rng) -> Result<Vec<Event>, RuleError>` and
//! `evolve(state, &event) -> state`. No I/O, no clock, no global random generator: the caller
//! passes the generator and every random outcome (deck, Role deal, row shuffles, tile shuffles,
//! random first Seeker, mini-game rows, random defaults) is stored in an event (X11.2).
//!
//! Three layers, each naming only the ones above it (`model` <- `rules` <- `projection`):
//!
//! | module | holds |
//! |---|---|
//! | [`model`] | data: [`model::card`] (X1, X2 chart), [`model::settings`], [`model::command`], [`model::event`], [`model::state`] |
//! | [`rules`] | [`rules::decide`] (R10.1.2, X3, X5-X8), [`rules::evolve`], [`rules::legal`] (X6.1, X6.5, X6.6, X9.12 targets), [`rules::effects`] (X9), [`rules::flow`] (what is next), [`rules::prompt`] (X12) |
//! | [`projection`] | [`projection::shown`] (the shapes of hidden information), [`projection::view`], [`projection::redact`] (X11.1, X11.5), [`projection::leaks`] (the leak checker) |
//! | [`game`] | [`Exorcist`], the game as a [`flicker_game::Game`] |
//!
//! Bots and simulation live in `flicker-lab` (`flicker_lab::exorcist`).

#![warn(missing_docs)]

pub mod game;
pub mod model;
pub mod projection;
pub mod rules;

#[cfg(test)]
mod tests;

pub use game::Exorcist;
pub use model::card::{CardId, CardKind, CardType, Role, TieCard, TileId};
pub use model::command::{Answer, Command, PromptId};
pub use model::event::{Event, Limit};
pub use model::settings::Settings;
pub use model::state::State;
pub use projection::leaks::LeakChecker;
pub use projection::redact::ViewEvent;
pub use projection::view::View;
pub use rules::legal::Slot;
pub use rules::prompt::{Prompt, PromptKind};
