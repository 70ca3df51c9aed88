//! Invariants every reachable state keeps (checked by the property tests and by
//! `flicker simulate --check`): X1 conservation of cards and tiles, X5 deal arithmetic, X0.6
//! points, and R10.4.1 (a running game always has something to answer or a close to wait for).

use crate::model::card::{CardId, TileId, chart};
use crate::model::state::State;
use crate::rules::flow::{Next, next};
use std::collections::HashSet;

/// X1, X2.2, X3.2, X3.3, X5.1: the round's cards are each in exactly one place (a row, the
/// centre, an earlier deal, or the card resolving); the deck has the chart's make-up; the
/// tiles are the chart's; a deal's rows hold `cards of the deal - revealed`.
pub fn check(state: &State) -> Result<(), String> {
    let Some(settings) = &state.settings else { return Ok(()) };
    let n = settings.players;
    if state.points.len() != n as usize {
        return Err("one points total per seat".into());
    }
    let Some(r) = &state.round else { return Ok(()) };
    let c = chart(n).ok_or("a chart column")?;
    let count = |t| r.deck.iter().filter(|id: &&CardId| id.kind().card_type() == t).count() as u8;
    use crate::model::card::CardType::*;
    if r.deck.len() != 4 * n as usize || count(Holy) != c.holy || count(Cursed) != c.cursed {
        return Err(format!("X2.2: the deck does not follow the chart: {:?}", r.deck));
    }
    if r.holy != c.holy || r.cursed != c.cursed {
        return Err("X3.6: the deck's Artifact counts".into());
    }
    let mut tiles: Vec<TileId> = r.tiles.clone();
    tiles.sort();
    let expected: Vec<TileId> = (0..c.innocent).map(TileId).chain((5..5 + c.possessed).map(TileId)).collect();
    if tiles != expected {
        return Err(format!("X3.3: the tiles are not the chart's: {:?}", r.tiles));
    }
    let mut places: Vec<CardId> = r.rows.iter().flatten().copied().collect();
    places.extend(r.centre.iter().map(|x| x.card));
    places.extend(r.set_aside.iter().flatten().map(|x| x.card));
    if let Some(t) = r.turn {
        places.push(t.card);
    }
    let distinct: HashSet<CardId> = places.iter().copied().collect();
    if r.deal > 0 && (distinct.len() != places.len() || distinct != r.deck.iter().copied().collect()) {
        return Err(format!(
            "X1: the round's cards are not conserved: {} placed, {} distinct",
            places.len(),
            distinct.len()
        ));
    }
    let revealed =
        r.centre.iter().chain(r.set_aside.iter().flatten()).filter(|x| x.card.kind().card_type() == Holy).count();
    let in_turn = r.turn.is_some_and(|t| t.card.kind().card_type() == Holy) as usize;
    if revealed + in_turn != r.holy_revealed as usize {
        return Err("X4.2: the Holy Artifacts revealed are miscounted".into());
    }
    if r.deal > 0 {
        let per = 5 - r.deal as usize; // 4, 3, 2, 1 cards each (X5.1)
        let in_rows: usize = r.rows.iter().map(Vec::len).sum();
        let taken = r.deal_revealed as usize + r.turn.is_some() as usize;
        if in_rows + taken != per * n as usize {
            return Err(format!("X5.1: deal {} holds {in_rows} cards with {taken} revealed", r.deal));
        }
        if r.deal_revealed > n {
            return Err("X7.1: more reveals than players in a deal".into());
        }
    }
    Ok(())
}

/// R10.4.1: once a decision has been decided, a running game has an open prompt or waits for
/// the platform's close.
pub fn check_settled(state: &State) -> Result<(), String> {
    if state.settings.is_none() || state.is_finished() {
        return Ok(());
    }
    let open = crate::rules::prompt::prompts(state);
    if open.is_empty() && next(state) != Next::TieReveal {
        return Err(format!("R10.4.1: nothing to answer at version {} ({:?})", state.version, next(state)));
    }
    Ok(())
}
