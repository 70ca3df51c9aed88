//! In-crate rule tests. They reach crate-private state to set up exact positions through
//! [`kit::Kit`]; each test names the rule (R-id) or worked example (Bn) it checks.

mod actions;
/// The random bot of `flicker-lab` (`engine/lab/src/bot.rs`), compiled into the engine's unit
/// tests as the test kit's bot: the lab depends on the engine, so these tests cannot depend on
/// the lab (its `final_flicker` would be another crate than this one).
#[path = "../../../lab/src/bot.rs"]
pub mod bot;
mod classes;
mod classic;
mod defaults;
mod elimination;
mod fuzz;
pub mod kit;
mod positions;
mod properties;
mod qualifying;
mod reactions;
mod smoke;
mod turn;
mod versioning;
mod visibility;
