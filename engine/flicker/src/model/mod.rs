//! The data of a game of The Final Flicker: cards and pool arithmetic (R1), the class data
//! types (section 8), table settings (R10.11), actions, commands, events (R10.1), the state they
//! fold into, rule errors and card handles (R10.3.2). No rule decides anything here: this
//! module names nothing in [`crate::rules`] or [`crate::projection`].

pub mod action;
pub mod card;
pub mod classes;
pub mod command;
pub mod edition;
pub mod error;
pub mod event;
pub mod handle;
pub mod pool;
pub mod settings;
pub mod setup;
pub mod state;
pub mod upcast;
