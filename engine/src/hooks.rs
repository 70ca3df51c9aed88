//! Hook points for classes (section 8). A class-free table (R8.0.5) uses the defaults below;
//! the class issue plugs each class into these functions instead of scattering class logic
//! through the turn code. Every hook is a pure function of the state.
//!
//! | hook | default | classes that will change it |
//! |---|---|---|
//! | [`hand_limit`] | 5 (R4.5.1) | The Hoarder (8) |
//! | [`possession_threshold`] | 3 (R7.3.2) | The Sufferer (4) |
//! | [`salt_window_skipped`] | false | The Silence (R6.2 W3 skipped) |
//! | [`reaction_windows_before_salt`] | none | W1 Grimoire, W2 Hex / Mime / Unseen / Shadow / Wall (R6.3, R6.4) |
//! | [`haunting_burns`] | G (R4.2.4) | The Survivor (R8.30) |
//! | [`free_ability_available`] | false | Doomreader, Grimoire, Mimic, Pyromaniac, Seer, Trader (R5.9.5) |
//! | [`siphon_always`] | false | The Leech (Banish), The Exorcist (Cleanse) |

use crate::state::State;

/// R4.5.1: the hand limit of `seat` in its Burden.
pub fn hand_limit(_state: &State, _seat: u8) -> usize {
    crate::pool::HAND_LIMIT
}

/// R7.3.2: ghosts of one effective suit that Possess `seat`.
pub fn possession_threshold(_state: &State, _seat: u8) -> usize {
    3
}

/// R6.2: true when the actor's actions open no Salt window (The Silence, R8.27).
pub fn salt_window_skipped(_state: &State, _actor: u8) -> bool {
    false
}

/// R6.2 W1/W2: whether class reaction windows run before W3 for this action. Always false on a
/// class-free table; the class issue adds the window states beside the Salt window.
pub fn reaction_windows_before_salt(_state: &State, _actor: u8) -> bool {
    false
}

/// R4.2.4, R4.2.5(e): how many cards `seat` Burns for `ghosts` ghosts in its Haunting.
pub fn haunting_burns(_state: &State, _seat: u8, ghosts: usize) -> usize {
    ghosts
}

/// R5.9: whether `seat` has a free ability it may use now (keeps the Ritual prompt open with
/// a budget of 0).
pub fn free_ability_available(_state: &State, _seat: u8) -> bool {
    false
}

/// R5.4.3 rows "always": whether removals of this kind by `seat` always Siphon.
pub fn siphon_always(_state: &State, _seat: u8, _removal: Removal) -> bool {
    false
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
