//! In-crate rule tests. They reach crate-private state to set up exact positions through
//! [`kit::Kit`]; each test names the rule (R-id) or worked example (Bn) it checks.

mod actions;
mod classes;
mod defaults;
mod elimination;
mod fuzz;
pub mod kit;
mod properties;
mod qualifying;
mod reactions;
mod smoke;
mod turn;
