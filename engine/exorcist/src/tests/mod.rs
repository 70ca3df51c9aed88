//! In-crate rule tests: each names the rule (X-id) it checks. [`kit`] builds exact positions.

mod contract;
mod effects;
pub mod kit;
mod knowledge;
mod properties;
mod rounds;
mod tie;
mod turns;
mod visibility;
