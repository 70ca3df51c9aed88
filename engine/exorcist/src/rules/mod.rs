//! The rules: the decider, the fold, what is legal, the effects, the flow and the prompts.

pub mod decide;
pub mod effects;
pub mod evolve;
pub mod flow;
pub mod invariants;
pub mod legal;
pub mod prompt;
