//! The tournament domain over the Game contract: tables, gatherings and accounts as aggregates, clocks, sight and bots; no HTTP, no SQL.
//!
//! Every fallible operation returns a typed domain error ([`tables::TableError`],
//! [`accounts::AccountError`], [`gatherings::GatheringError`]); the server maps each to its
//! problem document in one place.

pub(crate) use flicker_store as store;

pub mod accounts;
pub mod bots;
pub mod chain;
pub mod clock;
pub mod clocks;
pub mod codec;
pub mod due;
pub mod games;
pub mod gatherings;
pub mod hosted;
pub mod names;
pub mod spectate;
pub mod tables;
