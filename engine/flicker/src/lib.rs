//! # final-flicker
//!
//! *The Final Flicker* (ruleset `current`, `../shared/RULES.md`) as a pure decider:
//! `decide(&state, command, rng) -> Result<Vec<Event>, RuleError>` and
//! `evolve(state, &event) -> state`. No I/O, no clock, no global random generator: the caller
//! passes the generator, and every random outcome is stored in its event (R10.2).
//!
//! Where a rule lives: three layers, each naming only the ones above it
//! (`model` <- `rules` <- `projection`).
//!
//! | module | holds |
//! |---|---|
//! | [`model`] | data only: [`model::card`] and [`model::pool`] (cards, values, suit tiers, pool math, R1), [`model::classes`] (class ids and the class parts of events, section 8), [`model::settings`] (R10.11), [`model::action`], [`model::command`], [`model::event`] (R10.1), [`model::state`], [`model::error`], [`model::handle`] (card handles and prompt ids, R10.3.2) |
//! | [`rules`] | [`rules::decide`] (R4, R7, R10.5), [`rules::evolve`] (R10.1), [`rules::legal`] (R5), [`rules::resolve`] (R5.3-R5.6), [`rules::window`] (R6.5, R6.6, R10.6.6), [`rules::prompt`] (R10.4, R10.5), [`rules::classes`] (R2.7-R2.9, section 8), [`rules::hooks`], [`rules::gathering`] (R9), [`rules::position`] (R10.13), [`rules::replay`], [`rules::invariants`] |
//! | [`projection`] | per-viewer projections: [`projection::view`], [`projection::redact`] (R10.3, R10.8) and the leak checker [`projection::leaks`] (R10.8, R10.3.2) |
//! | [`game`] | [`FinalFlicker`], the game as a [`flicker_game::Game`] (the platform's contract) |
//! | `fuzz_hooks` | (feature `fuzzing`) the handles behind the zones, for the fuzz driver of `flicker-lab` |
//!
//! Every module also keeps its flat path at the crate root (`final_flicker::decide`,
//! `final_flicker::event`, ...). Bots, playouts and the fuzz driver live in `flicker-lab`.

#![warn(missing_docs)]

#[cfg(feature = "fuzzing")]
pub mod fuzz_hooks;
pub mod game;
pub mod model;
pub mod projection;
pub mod rules;

#[cfg(test)]
mod tests;
// The test kit's bot (`tests::bot`) is `flicker-lab`'s source, which names this crate by name.
#[cfg(test)]
extern crate self as final_flicker;

pub use model::{action, card, command, edition, error, event, handle, pool, settings, state};
pub use projection::{leaks, redact, view};
pub use rules::{classes, decide, evolve, gathering, hooks, invariants, legal, prompt, replay, resolve, window};

/// R10.13: full positions: the notation, its check and the import (`rules::position`), and the
/// export, whole or as one viewer may see it (`projection::position`).
pub mod position {
    pub use crate::projection::position::{position_exact, position_for, position_of};
    pub use crate::rules::position::*;
}

pub use action::{Action, MediumMode};
pub use card::{CardId, CardInstance, Face, Rank, Suit};
pub use classes::{ClassId, seat_classes};
pub use command::{Answer, Command};
pub use decide::{create, decide, decide_mut};
pub use edition::{Edition, Power, Rules};
pub use error::{ErrorKind, RuleError};
pub use event::{Effect, EliminationCause, EndReason, Event, TurnOrder};
pub use evolve::{apply, evolve};
pub use game::FinalFlicker;
pub use handle::{CardRef, CardView, PromptId};
pub use prompt::{Prompt, PromptKind, prompt_for, prompts};
pub use redact::{ViewEvent, redact};
pub use settings::{DarkMode, FirstPlayer, RulesetId, RulesetName, SaltWindow, Settings, Surplus};
pub use state::{GameResult, State};
pub use view::{View, Viewer, view};
