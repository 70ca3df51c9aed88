//! Class triggers (R6.9): automatic effects at named moments. Each is computed here, once,
//! from the state, and recorded in its event; [`crate::rules::evolve`] only moves the cards listed.
//!
//! - during actions (part of the action's effect): The Priest (R8.21), The Judge (R8.12),
//!   The Occultist's bonus (R8.18.2), The Plague's spread (R8.20);
//! - after the Haunting: The Voodoo Doll (R8.34), The Martyr (R8.15);
//! - at an elimination: The Gravedigger (R8.8, step 4), The Vulture (R8.35) and The Funeral
//!   Bell (R8.6) (step 7); The Lich's revival replaces an elimination (R8.14).

use super::{ClassId, is, live, live_ghost, trigger_order};
use crate::model::card::{CardId, Suit};
pub use crate::model::classes::{Pending, TriggerEffect};
use crate::model::event::EliminationCause;
use crate::model::state::{Ghost, State, Step};

/// R8.20.1: a live Plague ghost (its haunter is The Plague, Lit).
pub(crate) fn live_plague(state: &State, g: &Ghost) -> bool {
    live_ghost(state, g, ClassId::Plague)
}

/// R8.20.3: where a live Plague ghost removed by `remover` (without Siphon) may spread: the
/// remover's Lit neighbours not in its visited set and not The Plague, left first.
pub(crate) fn spread_recipients(state: &State, remover: u8, g: &Ghost) -> Vec<u8> {
    if !live_plague(state, g) {
        return Vec::new();
    }
    state.neighbours(remover).into_iter().filter(|&s| !g.visited.contains(&s) && Some(s) != g.haunter).collect()
}

/// R8.20.3: the recipient of a spread: the remover's choice when two are eligible (recorded in
/// `chosen`; the left neighbour if none was made), the only one, or none (The Dark).
pub(crate) fn spread_to(state: &State, remover: u8, g: &Ghost, chosen: &[(CardId, u8)]) -> Option<u8> {
    let r = spread_recipients(state, remover, g);
    if let Some(&(_, to)) = chosen.iter().find(|(c, _)| *c == g.card)
        && r.contains(&to)
    {
        return Some(to);
    }
    r.first().copied()
}

/// R8.21.1 The Priest: the top card of The Dark it takes when it performs the Banish action.
/// A9 row 2 (classic): the top card of its own Candle, drawn after the Banish.
pub(crate) fn priest_takes(state: &State, actor: u8) -> Option<CardId> {
    if !is(state, actor, ClassId::Priest) {
        None
    } else if state.rules().classic() {
        state.players[actor as usize].candle.front().copied()
    } else {
        state.dark.last().copied()
    }
}

/// R8.12.1 The Judge: the cards its Sight's target Burns (3), once the cards are taken.
pub(crate) fn judge_burns(state: &State, actor: u8, target: u8) -> Vec<CardId> {
    if is(state, actor, ClassId::Judge) {
        state.players[target as usize].candle.iter().take(3).copied().collect()
    } else {
        Vec::new()
    }
}

/// R8.18.2 The Occultist: up to 2 cards from the top of The Dark when its Possess resolves onto
/// a player who is not its neighbour, at most once per turn.
pub(crate) fn occultist_bonus(state: &State, actor: u8, destination: u8) -> Vec<CardId> {
    // A9 row 11: no Dark bonus in classic.
    if is(state, actor, ClassId::Occultist)
        && !state.rules().classic()
        && !state.is_neighbour(actor, destination)
        && !state.turn.bonus_used
    {
        state.dark.iter().rev().take(2).copied().collect()
    } else {
        Vec::new()
    }
}

/// R8.34.1: the Burns The Voodoo Doll's reflection causes, grouped by haunter in R6.9.3 order
/// (one per ♠/♣/♦ ghost whose tracked haunter is Lit). `None` when no ghost reflects.
pub(crate) fn voodoo(state: &State, seat: u8) -> Option<Vec<(u8, Vec<CardId>)>> {
    if !is(state, seat, ClassId::VoodooDoll) {
        return None;
    }
    let mut per: Vec<(u8, usize)> = Vec::new();
    for g in &state.players[seat as usize].shadow {
        let reflects = matches!(g.suit, Some(Suit::Spades | Suit::Clubs | Suit::Diamonds));
        if let Some(h) = g.haunter
            && reflects
            && state.is_lit(h)
        {
            match per.iter_mut().find(|(s, _)| *s == h) {
                Some(e) => e.1 += 1,
                None => per.push((h, 1)),
            }
        }
    }
    if per.is_empty() {
        return None;
    }
    let order = trigger_order(state, per.iter().map(|(s, _)| *s).collect());
    Some(
        order
            .into_iter()
            .map(|h| {
                let k = per.iter().find(|(s, _)| *s == h).map_or(0, |e| e.1);
                (h, state.players[h as usize].candle.iter().take(k).copied().collect())
            })
            .collect(),
    )
}

/// R4.2.8: the step after the Haunting's Burns: The Voodoo Doll's reflection, then The
/// Martyr's option (R8.15.1: only after at least one card was Burned, with a Candle to draw
/// from), then The Draw.
pub(crate) fn after_haunting(state: &State, seat: u8, burned: bool, voodoo_done: bool) -> Step {
    if burned && !voodoo_done && voodoo(state, seat).is_some() {
        Step::Voodoo
    } else if burned && is(state, seat, ClassId::Martyr) && !state.players[seat as usize].candle.is_empty() {
        Step::Martyr
    } else {
        Step::Draw
    }
}

/// R7.4 step 4, R8.8: the Gravedigger neighbour of `dead` that takes its Candle (the first in
/// R6.9.3 order when both are), if any and if the Candle holds cards.
pub(crate) fn gravedigger(state: &State, dead: u8) -> Option<u8> {
    if state.players[dead as usize].candle.is_empty() {
        return None;
    }
    let cands: Vec<u8> = state.neighbours(dead).into_iter().filter(|&s| live(state, s, ClassId::Gravedigger)).collect();
    trigger_order(state, cands).first().copied()
}

/// R7.4 step 7: the death triggers of `dead`'s elimination, in R6.9.3 order. Called while
/// `dead` still has its neighbours (R7.4.1).
pub(crate) fn death_triggers(state: &State, dead: u8) -> Vec<Pending> {
    let nbrs = state.neighbours(dead);
    let mut owners = Vec::new();
    for s in 0..state.n() {
        if s == dead || !state.is_lit(s) {
            continue;
        }
        if live(state, s, ClassId::Vulture) && nbrs.contains(&s) {
            owners.push((s, ClassId::Vulture));
        }
        if live(state, s, ClassId::FuneralBell) {
            owners.push((s, ClassId::FuneralBell));
        }
    }
    let order = trigger_order(state, owners.iter().map(|(s, _)| *s).collect());
    let mut out = Vec::new();
    for s in order {
        if out.iter().any(|p: &Pending| p.owner == s) {
            continue;
        }
        for (o, class) in &owners {
            if *o == s {
                out.push(Pending { owner: s, dead, class: *class });
            }
        }
    }
    out
}

/// The effect of a pending death trigger, computed when it resolves.
/// A9 row 10: the classic Vulture then shuffles its Candle (the shuffle is drawn here, once).
pub(crate) fn death_effect<R: rand::Rng + ?Sized>(state: &State, p: &Pending, rng: &mut R) -> TriggerEffect {
    match p.class {
        ClassId::Vulture => {
            let taken: Vec<CardId> = state.dark.iter().rev().take(5).copied().collect();
            let candle = state.rules().classic().then(|| {
                use rand::seq::SliceRandom;
                let mut all: Vec<CardId> = state.players[p.owner as usize].candle.iter().copied().collect();
                all.extend(&taken);
                all.shuffle(rng);
                all
            });
            TriggerEffect::Vulture { dead: p.dead, taken, candle }
        }
        _ => {
            // R8.6.1: clockwise from the dead player's former left neighbour.
            let n = state.n();
            let burns = (1..n)
                .map(|d| (p.dead + d) % n)
                .filter(|&s| state.is_lit(s) && s != p.owner)
                .map(|s| (s, state.players[s as usize].candle.front().copied().into_iter().collect()))
                .collect();
            TriggerEffect::FuneralBell { dead: p.dead, burns }
        }
    }
}

/// R7.4 step 1, R8.14.1: The Lich, Consumed or Possessed for the first time this game, revives.
pub(crate) fn lich_revives(state: &State, seat: u8, cause: EliminationCause) -> bool {
    is(state, seat, ClassId::Lich)
        && !state.players[seat as usize].once_used
        && matches!(cause, EliminationCause::Consumed | EliminationCause::Possessed)
        && !state.conceding.contains(&seat)
}

/// R8.14.1(b): the top 2 cards of each other Lit player's Candle, clockwise from The Lich's left.
pub(crate) fn lich_thefts(state: &State, lich: u8) -> Vec<(u8, Vec<CardId>)> {
    state
        .others_clockwise(lich)
        .into_iter()
        .map(|s| (s, state.players[s as usize].candle.iter().take(2).copied().collect()))
        .collect()
}
