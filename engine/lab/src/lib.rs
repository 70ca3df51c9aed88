//! Tooling over the games: bots, simulation, invariants, leak checks and fuzz drivers.
