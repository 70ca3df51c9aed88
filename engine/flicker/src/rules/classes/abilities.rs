//! Free abilities (R5.9): used in the owner's own Ritual, between actions, without the action
//! budget; never Salted, rejected, reflected or redirected (R5.9.2). The Doomreader (R8.3),
//! The Grimoire of Rejection's page (R8.9.1), The Mimic (R8.17, once per game), The
//! Pyromaniac (R8.22), The Seer (R8.25) and The Trader (R8.31), once per turn each.

use super::{ClassId, class_of, triggers};
use crate::model::card::{CardId, Suit};
pub use crate::model::classes::{Ability, AbilityEffect};
use crate::model::error::RuleError;
use crate::model::event::Event;
use crate::model::handle::CardRef;
use crate::model::state::State;
use serde::{Deserialize, Serialize};

/// R5.9.1, R5.9.4: whether `seat` may use its free ability now, judged on public information
/// only (R6.8): the class, its counter, hand size, ghosts, pages and neighbours.
pub fn available(state: &State, seat: u8) -> bool {
    let p = &state.players[seat as usize];
    if !p.lit {
        return false;
    }
    let turn_free = !state.turn.free_used && state.turn.active == seat;
    let hand = !p.hand.is_empty();
    let nbrs = !state.neighbours(seat).is_empty();
    match class_of(state, seat) {
        Some(ClassId::Doomreader) => turn_free && hand && !p.shadow.is_empty(),
        Some(ClassId::GrimoireOfRejection) => turn_free && hand && p.pages.len() < 3,
        Some(ClassId::Mimic) => !p.once_used && nbrs,
        Some(ClassId::Pyromaniac) | Some(ClassId::Trader) => turn_free && hand && nbrs,
        Some(ClassId::Seer) => turn_free,
        _ => false,
    }
}

/// R10.12 and R1.3.1: a card is red for The Pyromaniac when its suit is ♥ or ♦ (R8.22.1).
fn red(state: &State, c: CardId) -> bool {
    matches!(state.face(c).suit, Some(Suit::Hearts | Suit::Diamonds))
}

/// A Doomreader choice: a discard and the ghosts it may remove.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DoomChoice {
    /// The card to discard.
    pub card: CardRef,
    /// The ghosts it may remove.
    pub ghosts: Vec<CardRef>,
}

/// The free ability a Ritual prompt offers, with its choices as constraints.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "ability", rename_all = "snake_case")]
pub enum AbilityOption {
    /// R8.3: one of `choices`.
    Doomreader {
        /// Discard and ghosts.
        choices: Vec<DoomChoice>,
    },
    /// R8.9.1: one of `cards`.
    GrimoirePage {
        /// Hand cards.
        cards: Vec<CardRef>,
    },
    /// R8.17.1: one of `targets`.
    Mimic {
        /// Neighbours.
        targets: Vec<u8>,
    },
    /// R8.22.1: one of `cards` and one of `targets`.
    Pyromaniac {
        /// Red hand cards.
        cards: Vec<CardRef>,
        /// Neighbours.
        targets: Vec<u8>,
    },
    /// R8.25.1: one of `targets`.
    Seer {
        /// Lit players, oneself first.
        targets: Vec<u8>,
    },
    /// R8.31.1: one of `cards` and one of `targets`.
    Trader {
        /// Hand cards.
        cards: Vec<CardRef>,
        /// Neighbours.
        targets: Vec<u8>,
    },
}

/// The ghosts of `seat`'s Shadow that a Doomreader discard of `card` may remove (R8.3.2).
fn doom_ghosts(state: &State, seat: u8, card: CardId) -> Vec<CardId> {
    let rank = state.face(card).rank;
    state.players[seat as usize]
        .shadow
        .iter()
        .filter(|g| !super::passives::clown_bars(state, g, rank))
        .map(|g| g.card)
        .collect()
}

/// The legal uses of `seat`'s free ability now (empty when none; the options may depend on
/// the hidden hand, R6.8).
pub(crate) fn options(state: &State, seat: u8) -> Option<AbilityOption> {
    if !available(state, seat) {
        return None;
    }
    let p = &state.players[seat as usize];
    let h = |c: CardId| crate::model::handle::handle(state, c);
    let nbrs = state.neighbours(seat);
    match class_of(state, seat)? {
        ClassId::Doomreader => {
            let choices: Vec<DoomChoice> = p
                .hand
                .iter()
                .map(|&c| DoomChoice { card: h(c), ghosts: doom_ghosts(state, seat, c).into_iter().map(h).collect() })
                .filter(|d| !d.ghosts.is_empty())
                .collect();
            (!choices.is_empty()).then_some(AbilityOption::Doomreader { choices })
        }
        ClassId::GrimoireOfRejection => {
            Some(AbilityOption::GrimoirePage { cards: p.hand.iter().map(|&c| h(c)).collect() })
        }
        ClassId::Mimic => Some(AbilityOption::Mimic { targets: nbrs }),
        ClassId::Pyromaniac => {
            let cards: Vec<CardRef> = p.hand.iter().copied().filter(|&c| red(state, c)).map(h).collect();
            (!cards.is_empty()).then_some(AbilityOption::Pyromaniac { cards, targets: nbrs })
        }
        ClassId::Seer => {
            let mut t = vec![seat];
            t.extend(state.others_clockwise(seat));
            Some(AbilityOption::Seer { targets: t })
        }
        ClassId::Trader => Some(AbilityOption::Trader { cards: p.hand.iter().map(|&c| h(c)).collect(), targets: nbrs }),
        _ => None,
    }
}

fn illegal(rule: &'static str, msg: impl Into<String>) -> RuleError {
    RuleError::illegal(rule, msg.into())
}

/// R5.9: validates a free ability (cards already resolved to ids in `seat`'s hand or Shadow)
/// and returns its event.
pub(crate) fn declare(state: &State, seat: u8, a: Ability<CardId>) -> Result<Event, RuleError> {
    if class_of(state, seat) != Some(a.class()) {
        return Err(illegal("R8.0.3", "that is not your class's ability"));
    }
    if !available(state, seat) {
        return Err(illegal("R5.9.4", "your free ability is not available now"));
    }
    let nbr = |t: u8, rule: &'static str| {
        if state.is_neighbour(seat, t) { Ok(()) } else { Err(illegal(rule, format!("seat {t} is not your neighbour"))) }
    };
    let effect = match &a {
        Ability::Doomreader { card, ghost } => {
            if !doom_ghosts(state, seat, *card).contains(ghost) {
                return Err(illegal("R8.3.2", "a live Clown ghost needs a discard that is not a number card"));
            }
            let g = state.players[seat as usize].shadow.iter().find(|g| g.card == *ghost).expect("own ghost");
            let r = triggers::spread_recipients(state, seat, g);
            if r.len() == 2 {
                None
            } else {
                Some(AbilityEffect::Doomread { ghost: *ghost, spread: r.first().copied() })
            }
        }
        Ability::GrimoirePage { .. } => Some(AbilityEffect::PageAdded),
        Ability::Mimic { target } => {
            nbr(*target, "R8.17.1")?;
            Some(AbilityEffect::CandlesSwapped { target: *target })
        }
        Ability::Pyromaniac { card, target } => {
            if !red(state, *card) {
                return Err(illegal("R8.22.1", "The Pyromaniac discards a red card (♥ or ♦)"));
            }
            nbr(*target, "R8.22.1")?;
            let burned = state.players[*target as usize].candle.iter().take(2).copied().collect();
            Some(AbilityEffect::Burned { target: *target, burned })
        }
        Ability::Seer { target } => {
            if !state.is_lit(*target) {
                return Err(illegal("R8.25.1", format!("seat {target} is not Lit")));
            }
            Some(AbilityEffect::Peeked {
                target: *target,
                card: state.players[*target as usize].candle.front().copied(),
            })
        }
        Ability::Trader { target, .. } => {
            nbr(*target, "R8.31.1")?;
            None
        }
    };
    Ok(Event::AbilityUsed { seat, ability: a, effect })
}
