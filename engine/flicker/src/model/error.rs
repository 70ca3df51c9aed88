//! Refusals (R0.1, R10.1.2): the game-neutral [`flicker_game::RuleError`], which names the rule a
//! refused command breaks without revealing hidden information.

pub use flicker_game::{ErrorKind, RuleError};
