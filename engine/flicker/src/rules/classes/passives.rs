//! Passive classes: rules that change a number or a Requires clause (R8.0.2 "Passive").
//! The turn code reaches them through [`crate::rules::hooks`] and [`crate::rules::legal`].

use super::{ClassId, is, live, live_ghost};
use crate::model::card::Rank;
use crate::model::state::{Ghost, State};

/// R8.11 The Hoarder: hand limit 8 instead of 5 (R4.5.1); classic 10 instead of 7 (A4.4).
pub fn hand_limit(state: &State, seat: u8) -> usize {
    state.rules().hand_limit(is(state, seat, ClassId::Hoarder))
}

/// R8.29.1 The Sufferer: Possessed only with 4 ghosts of one effective suit (R7.3.2).
pub fn possession_threshold(state: &State, seat: u8) -> usize {
    if is(state, seat, ClassId::Sufferer) { 4 } else { 3 }
}

/// R8.27.1 The Silence: no Salt window opens for its actions.
pub fn silent(state: &State, actor: u8) -> bool {
    live(state, actor, ClassId::Silence)
}

/// R8.30.1 The Survivor: holding 2 or fewer cards when its Haunting begins, it Burns nothing.
/// (The hand cannot change between the start of the Haunting and its choice.)
pub fn survivor_spared(state: &State, seat: u8) -> bool {
    is(state, seat, ClassId::Survivor) && state.players[seat as usize].hand.len() <= 2
}

/// R8.23.1 The Sadist: its Scare discards 3 cards instead of 2 (classic: 2, chosen by it, A9
/// row 7).
pub fn scare_count(state: &State, actor: u8) -> usize {
    if is(state, actor, ClassId::Sadist) && !state.rules().classic() { 3 } else { 2 }
}

/// A9 row 7 The Sadist (classic): its Scare looks at the hand and chooses the discarded cards.
pub fn sadist_chooses(state: &State, actor: u8) -> bool {
    state.rules().classic() && is(state, actor, ClassId::Sadist)
}

/// A9 row 1 The Skeptic (classic): a Draft on it Burns nothing.
pub fn draft_immune(state: &State, seat: u8) -> bool {
    state.rules().classic() && live(state, seat, ClassId::Skeptic)
}

/// R8.28.1 The Skeptic: a Drain takes nothing from it.
pub fn drain_immune(state: &State, seat: u8) -> bool {
    live(state, seat, ClassId::Skeptic)
}

/// R8.13.1 The Leech: its Banish action always Siphons (unless Spade-cursed).
pub fn leech(state: &State, seat: u8) -> bool {
    is(state, seat, ClassId::Leech)
}

/// R8.4.1 The Exorcist: its Cleanse declares two ghosts and always Siphons (unless cursed).
pub fn exorcist(state: &State, seat: u8) -> bool {
    is(state, seat, ClassId::Exorcist)
}

/// R8.36.1 The Warlock: may Haunt with any card (face cards and Jokers too).
pub fn warlock(state: &State, seat: u8) -> bool {
    is(state, seat, ClassId::Warlock)
}

/// R8.19.1 The Phantom: no Haunt may target it (nor a Mime redirect) while its hand is empty.
pub fn phantom_untouchable(state: &State, seat: u8) -> bool {
    live(state, seat, ClassId::Phantom) && state.players[seat as usize].hand.is_empty()
}

/// R8.7.1-R8.7.2 The Gatekeeper: another player's Possess or Mirror cannot choose it.
pub fn gatekeeper_shut(state: &State, actor: u8, destination: u8) -> bool {
    destination != actor && live(state, destination, ClassId::Gatekeeper)
}

/// R8.24.1 The Sealbinder: a live Sealbinder ghost cannot be Possessed or Recalled; A9 row 8:
/// nor a live Binder ghost (classic) by Possess or Vanish.
pub(crate) fn sealed(state: &State, g: &Ghost) -> bool {
    live_ghost(state, g, ClassId::Sealbinder) || live_ghost(state, g, ClassId::Binder)
}

/// R8.24.1: a Mirror is illegal while either Shadow holds a live Sealbinder ghost (A9 row 8:
/// The Binder allows Mirror).
pub(crate) fn shadow_sealed(state: &State, seat: u8) -> bool {
    state.players[seat as usize].shadow.iter().any(|g| live_ghost(state, g, ClassId::Sealbinder))
}

/// A9 row 24, A12.4 The Clown (classic): a face card may Banish a live Clown ghost (and no
/// other ghost).
pub(crate) fn clown_face_banish(state: &State, g: &Ghost) -> bool {
    state.rules().classic() && live_ghost(state, g, ClassId::Clown)
}

/// R8.2 The Cryptkeeper, A9 row 23 The Architect (classic): builds Walls.
pub(crate) fn builds_walls(state: &State, seat: u8) -> bool {
    is(state, seat, ClassId::Cryptkeeper) || is(state, seat, ClassId::Architect)
}

/// R8.1.1, R5.3.1 The Clown: a live Clown ghost cannot be Banished with a number card, nor
/// removed by The Doomreader paying with a number card.
pub(crate) fn clown_bars(state: &State, g: &Ghost, card_rank: Rank) -> bool {
    card_rank.is_number() && live_ghost(state, g, ClassId::Clown)
}

/// R7.8 The Witness: whether the Lit players now end the game with no winner (R7.8.2: two Lit
/// players, one of them The Witness; R7.8.3: The Witness alone).
pub fn witnessed(state: &State) -> bool {
    let lit: Vec<u8> = (0..state.n()).filter(|&s| state.is_lit(s)).collect();
    matches!(lit.len(), 1 | 2) && lit.iter().any(|&s| is(state, s, ClassId::Witness))
}
