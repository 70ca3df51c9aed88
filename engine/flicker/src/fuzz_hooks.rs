//! (feature `fuzzing`) What the fuzz driver (`flicker_lab::fuzzing`) needs to aim fuzzed card
//! references and prompt ids at real ones. Tooling only: these name hidden cards (R10.3.2
//! handles are secret), so nothing of the platform may call them.

use crate::card::CardId;
use crate::handle::PromptId;
use crate::state::State;

/// The cards `seat` holds in its own zones: hand, then the cards of its Walls, then its
/// Grimoire pages (R3.6, R8.2, R8.9); empty for a seat the table does not have.
pub fn own_cards(state: &State, seat: u8) -> Vec<CardId> {
    state
        .players
        .get(seat as usize)
        .map(|p| p.hand.iter().copied().chain(p.walls.iter().map(|w| w.card)).chain(p.pages.iter().copied()).collect())
        .unwrap_or_default()
}

/// Every ghost of every Shadow, seat by seat in entry order, then the Resolving area (R3.4,
/// R3.7).
pub fn shadow_and_resolving(state: &State) -> Vec<CardId> {
    state.players.iter().flat_map(|p| p.shadow.iter().map(|g| g.card)).chain(state.resolving.iter().copied()).collect()
}

/// Number of card instances in the game's pool (R1.6; 0 before creation).
pub fn pool_len(state: &State) -> usize {
    state.pool.len()
}

/// The id of the prompt of `seat` at the open decision point (whether or not one is open).
pub fn prompt_id(state: &State, seat: u8) -> PromptId {
    crate::handle::prompt_id(state, seat)
}
