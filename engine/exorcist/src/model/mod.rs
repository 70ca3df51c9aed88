//! Data only: the components (X1, X2), settings, commands, events and the state.

pub mod card;
pub mod command;
pub mod event;
pub mod settings;
pub mod state;
