//! In-crate rule tests. They reach crate-private state to set up exact positions through
//! [`kit::Kit`]; each test names the rule (R-id) or worked example (Bn) it checks.

pub mod kit;
mod actions;
mod elimination;
mod reactions;
mod smoke;
mod turn;
