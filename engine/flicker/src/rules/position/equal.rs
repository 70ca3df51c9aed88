//! R10.13: equality of states "up to card handles, instance ids and stream versions", defined
//! once: two states are equal when their [`normalised`] forms are.

use crate::model::card::{CardId, Face};
use crate::model::state::{ActionStage, HandleKey, State, Step};
use std::collections::HashMap;

/// R10.13: `state` with what a position does not carry made canonical:
///
/// - instance ids: every card is renamed, zone by zone in a fixed order (each seat's hand,
///   Candle, Shadow, Walls and pages, then The Dark top first, the Resolving area, out of
///   play), to the first instance of its face not yet used; the pool is kept (its order is
///   canonical for the ruleset and seat count);
/// - handles: the handle key and the per-card move counts (epochs) are zeroed;
/// - stream versions: the version and the version the open decision opened at are zeroed;
/// - The Seer's peek, which lasts for the one event that shows it (R8.25.1), is dropped.
///
/// The card ids inside an action or free ability in flight (its declaration, window answers,
/// spreads, revealed cards) are renamed through the same map. A held answer (R10.6.5) names
/// cards by handle and is compared as it is.
pub fn normalised(state: &State) -> State {
    let mut s = state.clone();
    let mut next: HashMap<Face, Vec<CardId>> = HashMap::new();
    for (i, c) in state.pool.iter().enumerate().rev() {
        next.entry(c.face).or_default().push(CardId(i as u16));
    }
    let mut map: HashMap<CardId, CardId> = HashMap::new();
    let mut rename = |c: CardId| -> CardId {
        *map.entry(c).or_insert_with(|| {
            next.get_mut(&state.face(c)).and_then(Vec::pop).expect("a card of the pool lies in one zone only")
        })
    };
    for p in &mut s.players {
        p.hand.iter_mut().for_each(|c| *c = rename(*c));
        p.candle.iter_mut().for_each(|c| *c = rename(*c));
        p.shadow.iter_mut().for_each(|g| g.card = rename(g.card));
        p.walls.iter_mut().for_each(|w| w.card = rename(w.card));
        p.pages.iter_mut().for_each(|c| *c = rename(*c));
    }
    s.dark.iter_mut().rev().for_each(|c| *c = rename(*c));
    s.resolving.iter_mut().for_each(|c| *c = rename(*c));
    s.out_of_play.iter_mut().for_each(|c| *c = rename(*c));
    s.epochs.iter_mut().for_each(|e| *e = 0);
    s.handle_key = HandleKey::default();
    s.version = 0;
    s.decision_opened_at = 0;
    s.peek = None;
    let m = |c: &CardId| map.get(c).copied().unwrap_or(*c);
    match &mut s.step {
        Step::Action(flow) => {
            flow.action = flow.action.map_cards(m);
            flow.spreads.iter_mut().for_each(|(c, _)| *c = m(c));
            match &mut flow.stage {
                ActionStage::Spread { pending, chosen } => {
                    pending.iter_mut().for_each(|c| *c = m(c));
                    chosen.iter_mut().for_each(|(c, _)| *c = m(c));
                }
                ActionStage::Window(w) => {
                    for (_, a) in &mut w.answers {
                        if let Some(Some(c)) = a {
                            *c = m(c);
                        }
                    }
                }
                ActionStage::OmenPlay { revealed } => revealed.iter_mut().for_each(|c| *c = m(c)),
                _ => {}
            }
        }
        Step::Ability(a) => a.ability = a.ability.map_cards(m),
        _ => {}
    }
    s
}

/// R10.13: `a` and `b` are equal up to card handles, instance ids and stream versions.
pub fn same_up_to_handles(a: &State, b: &State) -> bool {
    normalised(a) == normalised(b)
}
