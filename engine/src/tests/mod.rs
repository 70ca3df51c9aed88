//! In-crate rule tests (they reach crate-private state to set up positions).
