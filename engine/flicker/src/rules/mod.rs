//! The rules of The Final Flicker (`../shared/RULES.md`) over the [`crate::model`]: validation
//! and automatic steps, the fold, action effects, windows, prompts, the classes' behaviour,
//! gathering arithmetic, practice positions and the replay format. Names nothing in
//! [`crate::projection`].
//!
//! | module | RULES.md | holds |
//! |---|---|---|
//! | [`decide`] | 2, 4, 7, R10.5 | setup, the turn, elimination and victory: validation and automatic steps |
//! | [`evolve`] | R10.1 | the fold of events into the state |
//! | [`legal`] | 5 (R5.1.2) | the Requires clauses of actions and the Ritual's per-card options |
//! | [`resolve`] | 5 (R5.3-R5.6) | action effects and Siphon |
//! | [`window`] | 6 (R6.5, R6.6), R10.6.6 | Salt and BOO! windows |
//! | [`classes`] | R2.7-R2.9, 8 | class pools, the selection ritual and what each class does |
//! | [`hooks`] | 8 | the points where the turn code asks the classes |
//! | [`gathering`] | 9 | gathering arithmetic: circles, pools per circle, stages |
//! | [`prompt`] | R10.4, R10.5 | pending decisions, legal answers and defaults |
//! | [`position`] | R10.13 | practice positions: a game from a given deal |
//! | [`replay`] | R10.1 | the JSON Lines replay format and its fold |
//! | [`invariants`] | 3 | invariants checked by simulations and tests |
//!
//! Components and pool math (section 1) are data: [`crate::model::card`], [`crate::model::pool`].
//! Visibility (section 3, R10.3, R10.8) is [`crate::projection`].

pub mod classes;
pub mod decide;
pub mod evolve;
pub mod gathering;
pub mod hooks;
pub mod invariants;
pub mod legal;
pub mod position;
pub mod prompt;
pub mod replay;
pub mod resolve;
pub mod window;
