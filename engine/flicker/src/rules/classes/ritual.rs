//! Class Ritual actions (R5.7): Build a Wall (The Cryptkeeper, R8.2.1), Alter a suit (The
//! Fatalist, R8.5), Usurp (The Usurer, R8.33); and The Watcher's Sight (R8.37), a Sight that
//! declares no neighbour. They use the action budget and follow R5.1 like any action.

use super::{ClassId, is};
use crate::model::action::Action;
use crate::model::card::{CardId, Rank, Suit};
use crate::model::error::RuleError;
use crate::model::state::State;

/// R8.2.1: at most 3 Walls may lie in The Cryptkeeper's Shadow for it to build.
pub const WALL_CAP: usize = 3;

/// R5.7: the Requires clause of a class Ritual action (`None` when `a` is not one).
pub(crate) fn check(state: &State, actor: u8, a: &Action<CardId>) -> Option<Result<(), RuleError>> {
    let own = |class: ClassId, rule: &'static str| {
        if is(state, actor, class) {
            Ok(())
        } else {
            Err(RuleError::illegal(rule, format!("only {} may do this", class.name())))
        }
    };
    Some(match a {
        Action::BuildWall { .. } => if crate::rules::classes::passives::builds_walls(state, actor) {
            Ok(())
        } else {
            own(ClassId::Cryptkeeper, "R8.2.1")
        }
        .and_then(|_| {
            if state.players[actor as usize].walls.len() < WALL_CAP {
                Ok(())
            } else {
                Err(RuleError::illegal("R8.2.1", "your Shadow already holds 3 Walls"))
            }
        }),
        Action::AlterSuit { owner, ghost, suit, .. } => own(ClassId::Fatalist, "R8.5.1").and_then(|_| {
            if !state.is_lit(*owner) {
                return Err(RuleError::illegal("R8.5.1", format!("seat {owner} is not Lit")));
            }
            let g = state.players[*owner as usize]
                .shadow
                .iter()
                .find(|g| g.card == *ghost)
                .ok_or_else(|| RuleError::illegal("R8.5.1", "that card is not a ghost in that Shadow"))?;
            match g.suit {
                None => Err(RuleError::illegal("R8.5.5", "a Joker ghost has no suit to change")),
                Some(s) if s == *suit => Err(RuleError::illegal("R8.5.1", "name a suit different from the ghost's")),
                Some(_) => Ok(()),
            }
        }),
        Action::Usurp { target } => own(ClassId::Usurer, "R8.33.1").and_then(|_| {
            if state.is_neighbour(actor, *target) {
                Ok(())
            } else {
                Err(RuleError::illegal("R8.33.1", format!("seat {target} is not your neighbour")))
            }
        }),
        Action::WatcherSight { card } => own(ClassId::Watcher, "R8.37.1").and_then(|_| {
            if state.face(*card).rank == Rank::Six {
                Ok(())
            } else {
                Err(RuleError::illegal("R5.5.6", "Sight needs a 6"))
            }
        }),
        _ => return None,
    })
}

/// R8.5.1: the ghosts The Fatalist may alter, as (owner, ghost, suits it may name).
pub(crate) fn alterable(state: &State, actor: u8) -> Vec<(u8, CardId, Vec<Suit>)> {
    let mut seats = vec![actor];
    seats.extend(state.others_clockwise(actor));
    let mut v = Vec::new();
    for s in seats {
        for g in &state.players[s as usize].shadow {
            if let Some(cur) = g.suit {
                v.push((s, g.card, Suit::ALL.into_iter().filter(|&x| x != cur).collect()));
            }
        }
    }
    v
}

/// R8.37.1: The Watcher's targets: each distinct neighbour.
pub(crate) fn watcher_targets(state: &State, actor: u8) -> Vec<u8> {
    state.neighbours(actor)
}

/// R8.37.1, R11.31: the most The Watcher takes from each hand (2 each; 2 in total with one
/// distinct neighbour, which is the same).
pub const WATCHER_TAKE: usize = 2;
