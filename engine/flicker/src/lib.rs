//! # final-flicker
//!
//! *The Final Flicker* (ruleset `current`, `../shared/RULES.md`) as a pure decider:
//! `decide(&state, command, rng) -> Result<Vec<Event>, RuleError>` and
//! `evolve(state, &event) -> state`. No I/O, no clock, no global random generator: the caller
//! passes the generator, and every random outcome is stored in its event (R10.2).
//!
//! Where a rule lives:
//!
//! | module | holds |
//! |---|---|
//! | [`card`], [`pool`] | cards, values, suit tiers, pool math (R1) |
//! | [`settings`] | table settings (R10.11) |
//! | [`event`], [`evolve`] | the facts and their fold (R10.1) |
//! | [`command`], [`decide`] | commands, validation, automatic steps (R4, R7, R10.5) |
//! | [`legal`] | the Requires clauses of actions (R5) |
//! | [`window`] | Salt and BOO! windows (R6.5, R6.6, R10.6.6) |
//! | [`resolve`] | action effects and Siphon (R5.3-R5.6) |
//! | [`prompt`] | pending decisions and defaults (R10.4, R10.5) |
//! | [`view`], [`redact`], [`handle`] | per-viewer projections (R10.3, R10.8) |
//! | [`leaks`] | the leak checker of tests and scanners (R10.8, R10.3.2) |
//! | [`classes`] | the 38 classes, class pools and the selection ritual (R2.7-R2.9, section 8) |
//! | [`hooks`] | the points where the turn code asks the classes (section 8) |
//! | [`gathering`] | gathering arithmetic: circles, pools per circle, stages (R9) |
//! | [`position`] | practice positions: a game from a given deal (R10.13) |
//! | [`replay`] | the JSON Lines replay format |
//! | [`invariants`] | invariants checked by simulations and tests |
//! | [`game`] | [`FinalFlicker`], the game as a [`flicker_game::Game`] (the platform's contract) |
//! | `fuzz_hooks` | (feature `fuzzing`) the handles behind the zones, for the fuzz driver of `flicker-lab` |
//!
//! Bots, playouts and the fuzz driver live in `flicker-lab`.

#![warn(missing_docs)]

pub mod action;
pub mod card;
pub mod classes;
pub mod command;
pub mod decide;
pub mod error;
pub mod event;
pub mod evolve;
#[cfg(feature = "fuzzing")]
pub mod fuzz_hooks;
pub mod game;
pub mod gathering;
pub mod handle;
pub mod hooks;
pub mod invariants;
pub mod leaks;
pub mod legal;
pub mod pool;
pub mod position;
pub mod prompt;
pub mod redact;
pub mod replay;
pub mod resolve;
pub mod settings;
pub mod state;
pub mod view;
pub mod window;

#[cfg(test)]
mod tests;
// The test kit's bot (`tests::bot`) is `flicker-lab`'s source, which names this crate by name.
#[cfg(test)]
extern crate self as final_flicker;

pub use action::{Action, MediumMode};
pub use card::{CardId, CardInstance, Face, Rank, Suit};
pub use classes::{ClassId, seat_classes};
pub use command::{Answer, Command};
pub use decide::{create, decide, decide_mut};
pub use error::{ErrorKind, RuleError};
pub use event::{Effect, EliminationCause, EndReason, Event, TurnOrder};
pub use evolve::{apply, evolve};
pub use game::FinalFlicker;
pub use handle::{CardRef, CardView, PromptId};
pub use prompt::{Prompt, PromptKind, prompt_for, prompts};
pub use redact::{ViewEvent, redact};
pub use settings::{FirstPlayer, RulesetId, SaltWindow, Settings, Surplus};
pub use state::{GameResult, State};
pub use view::{View, Viewer, view};
