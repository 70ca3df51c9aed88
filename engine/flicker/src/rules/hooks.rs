//! Hook points for classes (section 8). The turn code calls these functions and never tests a
//! class itself; each hook asks the class modules of [`crate::rules::classes`]. On a class-free table
//! (R8.0.5) every seat has no class and each hook gives the rule's default.
//!
//! | hook | default | classes that change it |
//! |---|---|---|
//! | [`hand_limit`] | 5 (R4.5.1) | The Hoarder (8) |
//! | [`possession_threshold`] | 3 (R7.3.2) | The Sufferer (4) |
//! | [`salt_window_skipped`] | false | The Silence (R6.2 W3 skipped) |
//! | [`haunting_burns`] | G (R4.2.4) | The Survivor (R8.30) |
//! | [`free_ability_available`] | false | Doomreader, Grimoire, Mimic, Pyromaniac, Seer, Trader (R5.9.5) |
//! | [`siphon_always`] | false | The Leech (Banish), The Exorcist (Cleanse) |
//!
//! Reaction windows W1/W2 live in [`crate::rules::classes::reactions`], triggers in
//! [`crate::rules::classes::triggers`], class Requires clauses in [`crate::rules::legal`] through
//! [`crate::rules::classes::passives`].

use crate::model::state::State;
use crate::rules::classes::{abilities, passives};

/// R4.5.1: the hand limit of `seat` in its Burden (R8.11 The Hoarder: 8).
pub fn hand_limit(state: &State, seat: u8) -> usize {
    passives::hand_limit(state, seat)
}

/// R7.3.2: ghosts of one effective suit that Possess `seat` (R8.29 The Sufferer: 4).
pub fn possession_threshold(state: &State, seat: u8) -> usize {
    passives::possession_threshold(state, seat)
}

/// R6.2: true when the actor's actions open no Salt window (The Silence, R8.27).
pub fn salt_window_skipped(state: &State, actor: u8) -> bool {
    passives::silent(state, actor)
}

/// R4.2.4, R4.2.5(e): how many cards `seat` Burns for `ghosts` ghosts in its Haunting
/// (R8.30 The Survivor: none while holding 2 cards or fewer).
pub fn haunting_burns(state: &State, seat: u8, ghosts: usize) -> usize {
    if passives::survivor_spared(state, seat) { 0 } else { ghosts }
}

/// R5.9: whether `seat` has a free ability it may use now (keeps the Ritual prompt open with
/// a budget of 0). Decided on public information only (R6.8).
pub fn free_ability_available(state: &State, seat: u8) -> bool {
    abilities::available(state, seat)
}

/// R5.4.3 rows "always": whether removals of this kind by `seat` always Siphon.
pub fn siphon_always(state: &State, seat: u8, removal: Removal) -> bool {
    match removal {
        Removal::Banish => passives::leech(state, seat),
        Removal::Cleanse => passives::exorcist(state, seat),
        Removal::Purge => false,
    }
}

/// Kinds of ghost removal that Siphon rules distinguish (R5.4.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Removal {
    /// The Banish action (R5.3).
    Banish,
    /// Cleanse (R5.5.7).
    Cleanse,
    /// Purge (R5.6.3).
    Purge,
}
