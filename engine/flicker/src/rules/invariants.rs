//! Invariants checked by `flicker simulate --check` and by the property tests.

use crate::model::card::CardId;
use crate::model::state::{State, Step};
use crate::rules::prompt::open_prompts;

/// Checks every invariant of a folded state; returns the first one broken.
///
/// - R1.6: every card of the pool lies in exactly one zone (conservation).
/// - R0.3: at least two players are Lit while the game runs; placings only for eliminated players.
/// - R3.7: the Resolving area is empty when no action or free ability is in flight.
/// - R8.9.1: at most 3 Grimoire pages; Walls and pages count in the conservation.
pub fn check(state: &State) -> Result<(), String> {
    if state.settings.is_none() {
        return Ok(());
    }
    let mut seen = vec![0u8; state.pool.len()];
    let mut mark = |c: CardId, zone: &str| -> Result<(), String> {
        let slot = seen.get_mut(c.0 as usize).ok_or_else(|| format!("unknown card {c:?} in {zone}"))?;
        *slot += 1;
        if *slot > 1 { Err(format!("R1.6: card {c:?} lies in two zones (again in {zone})")) } else { Ok(()) }
    };
    for (s, p) in state.players.iter().enumerate() {
        for &c in &p.candle {
            mark(c, &format!("seat {s} Candle"))?;
        }
        for &c in &p.hand {
            mark(c, &format!("seat {s} hand"))?;
        }
        for g in &p.shadow {
            mark(g.card, &format!("seat {s} Shadow"))?;
        }
        for w in &p.walls {
            mark(w.card, &format!("seat {s} Walls"))?;
        }
        for &c in &p.pages {
            mark(c, &format!("seat {s} Grimoire pages"))?;
        }
        if p.pages.len() > 3 {
            return Err(format!("R8.9.1: seat {s} holds {} Grimoire pages", p.pages.len()));
        }
    }
    for &c in &state.dark {
        mark(c, "The Dark")?;
    }
    for &c in &state.resolving {
        mark(c, "the Resolving area")?;
    }
    for &c in &state.out_of_play {
        mark(c, "out of play")?;
    }
    if let Some(i) = seen.iter().position(|&n| n == 0) {
        return Err(format!("R1.6: card {i} is in no zone"));
    }
    if state.is_finished() {
        return Ok(());
    }
    for (s, p) in state.players.iter().enumerate() {
        if p.lit && p.placing.is_some() && !matches!(&state.step, Step::Eliminating(e) if e.seat as usize == s) {
            return Err(format!("R7.7.3: Lit seat {s} already has a placing"));
        }
        let holds_cards = !p.hand.is_empty()
            || !p.candle.is_empty()
            || !p.shadow.is_empty()
            || !p.walls.is_empty()
            || !p.pages.is_empty();
        if !p.lit && holds_cards {
            return Err(format!("R7.4: eliminated seat {s} still holds cards"));
        }
    }
    if state.flow().is_none()
        && !state.resolving.is_empty()
        && !matches!(state.step, Step::Eliminating(_) | Step::Ability(_))
    {
        return Err("R5.1.6: cards left in the Resolving area after the action".into());
    }
    Ok(())
}

/// [`check`], plus what holds once the automatic steps have run (after each command):
/// R10.4.1: a game not finished awaits a decision point (a prompt is open).
pub fn check_settled(state: &State) -> Result<(), String> {
    check(state)?;
    if state.settings.is_some() && !state.is_finished() && state.lit_count() < 2 {
        return Err("R7.7.1: fewer than two players Lit but the game has not ended".into());
    }
    if state.settings.is_some() && !state.is_finished() && open_prompts(state).is_empty() && state.held.is_none() {
        return Err(format!("R10.4.1: the game awaits nothing (step {:?})", state.step));
    }
    Ok(())
}
