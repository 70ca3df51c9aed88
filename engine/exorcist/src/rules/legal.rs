//! Who may choose what: X6.1 (never one's own card), X6.5 (selection limits and their lifting),
//! X6.6 (no card outside one's own row), X9.12 (the Hijinx chain), and the eligible players of
//! the effect prompts (X9.6, X9.7, X9.10, X9.11, X9.14, X9.16).

use crate::model::event::Limit;
use crate::model::state::Round;
use serde::{Deserialize, Serialize};

/// A face-down card named by its place: `{"owner": 2, "position": 1}` (X0.2, 1-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = ExorcistSlot))]
pub struct Slot {
    /// The row's owner.
    pub owner: u8,
    /// 1..=row size.
    pub position: u8,
}

/// Every card of the rows of `owners`.
fn slots_of(round: &Round, owners: impl Fn(u8) -> bool) -> Vec<Slot> {
    let mut out = Vec::new();
    for (o, row) in round.rows.iter().enumerate() {
        if owners(o as u8) {
            out.extend((1..=row.len() as u8).map(|position| Slot { owner: o as u8, position }));
        }
    }
    out
}

/// X6.1, X6.5: the cards `seeker` may choose on a selection, and the limits lifted to allow it
/// (Satanic Spew!'s first, then Vile Violation's). Empty when every unrevealed card is the
/// Seeker's own (X6.6).
pub fn selectable(round: &Round, seeker: u8) -> (Vec<Slot>, Vec<Limit>) {
    let with = |spew: bool, violation: bool| {
        slots_of(round, |o| {
            o != seeker && !(spew && round.spew == Some(o)) && !(violation && round.violation == Some(o))
        })
    };
    let all = with(true, true);
    if !all.is_empty() {
        return (all, vec![]);
    }
    let mut lifted = Vec::new();
    if round.spew.is_some() {
        lifted.push(Limit::Spew);
    }
    let no_spew = with(false, true);
    if !no_spew.is_empty() {
        return (no_spew, lifted);
    }
    if round.violation.is_some() {
        lifted.push(Limit::Violation);
    }
    (with(false, false), lifted)
}

/// X9.12: the cards the Seeker may choose after a Hellish Hijinx!: of a player who is neither
/// the Seeker nor already Chosen in the chain (`chain`, the current Chosen included).
pub fn hijinx_targets(round: &Round, seeker: u8, chain: &[u8]) -> Vec<Slot> {
    slots_of(round, |o| o != seeker && !chain.contains(&o))
}

/// X9.14: the cards the Chosen may peek at: any card of another player.
pub fn violation_targets(round: &Round, chosen: u8) -> Vec<Slot> {
    slots_of(round, |o| o != chosen)
}

/// X9.7, XA.8: the players the Chosen may take a point from: others with at least 1 point.
pub fn ring_targets(points: &[u32], chosen: u8) -> Vec<u8> {
    (0..points.len() as u8).filter(|&s| s != chosen && points[s as usize] > 0).collect()
}

/// X9.10: the players the Chosen may sanction: every other player (XA.9: 0 points allowed).
pub fn sanction_targets(players: u8, chosen: u8) -> Vec<u8> {
    (0..players).filter(|&s| s != chosen).collect()
}

/// X9.11, XA.4: the players the Chosen may name as next Seeker: every other player; when some
/// of them would have a legal card and others not, only those who have. A deal ending with
/// this turn gives everyone new cards, so then everyone else is eligible.
pub fn nameable(round: &Round, chosen: u8, players: u8, deal_ends: bool) -> Vec<u8> {
    let others: Vec<u8> = (0..players).filter(|&s| s != chosen).collect();
    if deal_ends {
        return others;
    }
    // X6.5: limits are lifted when they leave nothing, so a legal card is any other row's card.
    let has: Vec<u8> = others
        .iter()
        .copied()
        .filter(|&s| round.rows.iter().enumerate().any(|(o, r)| o as u8 != s && !r.is_empty()))
        .collect();
    if has.is_empty() { others } else { has }
}

/// X9.6, XA.6: the tiles the Chosen may peek at: every player's, its own included.
pub fn book_targets(players: u8) -> Vec<u8> {
    (0..players).collect()
}

/// X9.16, XA.14, X6.6: the tiles the Chosen may look at after the shuffle: its own and the
/// Seeker's (only its own when it is also the Seeker).
pub fn satan_targets(seeker: u8, chosen: u8) -> Vec<u8> {
    if seeker == chosen { vec![chosen] } else { vec![chosen, seeker] }
}

/// X12: "the first eligible player clockwise from" `from` (X0.1: clockwise is the next seat).
pub fn first_clockwise(from: u8, players: u8, eligible: &[u8]) -> Option<u8> {
    (1..=players).map(|d| (from + d) % players).find(|s| eligible.contains(s))
}
