//! R2.7-R2.9: the class selection ritual. In turn order, each player is offered 3 classes drawn
//! at random from the remaining pool (the offer is recorded in `class_offered`, private to the
//! chooser) and picks one (`class_chosen`, public). With `seat_classes` set there is no
//! selection: each seat keeps the class it played in stage 1 (R9.8.4).

use super::{ClassId, pool_for_rules};
use crate::model::event::Event;
use crate::model::settings::Settings;
use crate::model::state::{Selection, State, Step};
use rand::Rng;

/// R2.7.2: classes offered per pick.
pub const OFFER_SIZE: usize = 3;

/// True when this table runs the selection ritual (classes on, no fixed seat classes).
pub fn selects(settings: &Settings) -> bool {
    settings.classes && settings.seat_classes.is_none()
}

/// R2.7.7: true when the ban list leaves fewer classes than players (it is then ignored).
pub fn bans_ignored(settings: &Settings) -> bool {
    let n = settings.players as usize;
    pool_for_rules(crate::model::edition::Rules::for_settings(settings), n)
        .iter()
        .filter(|c| !settings.class_bans.contains(c))
        .count()
        < n
}

/// R2.7.2: the remaining pool: the pool for the circle size, minus the ban list (unless
/// ignored, R2.7.7), minus the classes already chosen.
pub fn remaining(state: &State) -> Vec<ClassId> {
    let s = state.settings_ref();
    let ignored = state.selection.as_ref().is_some_and(|x| x.bans_ignored);
    pool_for_rules(state.rules(), state.players.len())
        .into_iter()
        .filter(|c| ignored || !s.class_bans.contains(c))
        .filter(|c| !state.players.iter().any(|p| p.class == Some(*c)))
        .collect()
}

/// The step that follows the turn order being known: the selection, or the first turn.
pub(crate) fn after_turn_order(settings: &Settings, first: u8) -> Step {
    if selects(settings) { Step::Selecting } else { Step::StartTurn { seat: first, round: 1 } }
}

/// R2.7.1: the picking order: every seat clockwise from the first player, skipping conceders
/// (R10.10.2).
pub(crate) fn order(state: &State) -> Vec<u8> {
    let n = state.n();
    let first = state.first_player.unwrap_or(0);
    (0..n).map(|d| (first + d) % n).filter(|s| !state.conceding.contains(s)).collect()
}

/// The automatic selection event due now, if any.
pub(crate) fn auto<R: Rng + ?Sized>(state: &State, rng: &mut R) -> Option<Event> {
    match &state.selection {
        None => Some(Event::ClassSelectionStarted { bans_ignored: bans_ignored(state.settings_ref()) }),
        Some(Selection { order, offer: None, .. }) => {
            let seat = *order.first()?;
            let rem = remaining(state);
            let k = rem.len().min(OFFER_SIZE);
            let offer = rand::seq::index::sample(rng, rem.len(), k).iter().map(|i| rem[i]).collect();
            Some(Event::ClassOffered { seat, offer })
        }
        Some(_) => None,
    }
}

/// Folds the end of a pick (or a skipped picker): the next picker, or the first turn.
pub(crate) fn next_pick(state: &mut State) {
    let first = state.first_player.unwrap_or(0);
    let done = match &mut state.selection {
        Some(sel) => {
            sel.offer = None;
            if !sel.order.is_empty() {
                sel.order.remove(0);
            }
            sel.order.is_empty()
        }
        None => true,
    };
    if done {
        state.selection = None;
        state.step = Step::StartTurn { seat: first, round: 1 };
    }
}

/// R10.10.2: a player who concedes during the selection is skipped by the remaining picks
/// (a pick already offered is answered with its default instead).
pub(crate) fn skip_conceder(state: &mut State, seat: u8) {
    let first = state.first_player.unwrap_or(0);
    if let Some(sel) = &mut state.selection {
        let current = sel.offer.is_some().then(|| sel.order.first().copied()).flatten();
        if current != Some(seat) {
            sel.order.retain(|&s| s != seat);
            if sel.order.is_empty() && sel.offer.is_none() {
                state.selection = None;
                state.step = Step::StartTurn { seat: first, round: 1 };
            }
        }
    }
}
