//! R10.3.2: card handles. A view names a card it shows by rank, suit and a *handle*. The handle
//! is a keyed hash (SipHash-1-3 under the game's secret handle key) of the card instance and of
//! how many times the card has moved, so it changes whenever the card changes zone (or is looked
//! at by an effect that ends, such as Sight): it never survives a period in which the card was
//! hidden from the viewer, and two identical 7♥ have unrelated handles. Without the key, which
//! no view contains during play, a handle cannot be linked to an instance.

use crate::model::card::{CardId, Face};
use crate::model::state::State;
use serde::{Deserialize, Serialize};
use siphasher::sip::SipHasher13;
use std::hash::Hasher;

/// Handles are kept below 2^53 so that JavaScript clients read them exactly.
const HANDLE_MASK: u64 = (1 << 53) - 1;

/// An opaque reference to a card that a viewer can see now (R10.3.2); used in views, prompts
/// and commands. Serialised as a JSON number below 2^53.
#[cfg_attr(feature = "fuzzing", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(transparent)]
pub struct CardRef(pub u64);

/// A card as a viewer sees it: handle, rank and suit (`suit` absent for a Joker).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CardView {
    /// R10.3.2: the handle.
    pub handle: CardRef,
    /// Rank and suit.
    #[serde(flatten)]
    pub face: Face,
}

/// An opaque id of an open prompt (R10.4.2); answers may name it to detect staleness.
#[cfg_attr(feature = "fuzzing", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(transparent)]
pub struct PromptId(pub u64);

fn keyed(state: &State, domain: u64, a: u64, b: u64) -> u64 {
    let mut h = SipHasher13::new_with_keys(state.handle_key.0[0], state.handle_key.0[1]);
    h.write_u64(domain);
    h.write_u64(a);
    h.write_u64(b);
    h.finish() & HANDLE_MASK
}

/// The handle of card `c` in its current position.
pub(crate) fn handle(state: &State, c: CardId) -> CardRef {
    CardRef(keyed(state, 1, c.0 as u64, state.epochs[c.0 as usize] as u64))
}

/// The view of card `c` in its current position.
pub(crate) fn card_view(state: &State, c: CardId) -> CardView {
    CardView { handle: handle(state, c), face: state.face(c) }
}

/// The id of the prompt of `seat` at the open decision point.
pub(crate) fn prompt_id(state: &State, seat: u8) -> PromptId {
    PromptId(keyed(state, 2, state.decision_opened_at, seat as u64))
}
