//! Legality of Ritual actions (R5.1.2 Requires clauses) and the per-card options listed in the
//! Ritual prompt. One place decides both, so a listed option is always accepted.

use crate::action::{Action, MediumMode};
use crate::card::{CardId, Face, Rank};
use crate::error::RuleError;
use crate::state::{Ghost, State};

/// R5.3.2: `card` beats the ghost when its value is higher, or equal with a tier at least as high.
pub fn beats(card: Face, ghost_face: Face, ghost_suit_tier: u8) -> bool {
    card.value() > ghost_face.value() || (card.value() == ghost_face.value() && card.tier() >= ghost_suit_tier)
}

fn ghost_tier(g: &Ghost) -> u8 {
    g.suit.map_or(0, |s| s.tier())
}

fn find_ghost(state: &State, owner: u8, c: CardId) -> Option<&Ghost> {
    state.players[owner as usize].shadow.iter().find(|g| g.card == c)
}

/// Ghosts of `actor`'s Shadow that `card` may Banish (R5.3.1-R5.3.2).
pub(crate) fn banishable(state: &State, actor: u8, card: Face) -> Vec<CardId> {
    if card.rank == Rank::Joker {
        return Vec::new();
    }
    state.players[actor as usize]
        .shadow
        .iter()
        .filter(|g| beats(card, state.face(g.card), ghost_tier(g)))
        .map(|g| g.card)
        .collect()
}

/// Ghosts `actor` may Recall (R5.5.8): any ghost of any Lit player's Shadow, as (owner, ghost).
pub(crate) fn recallable(state: &State, actor: u8) -> Vec<(u8, CardId)> {
    let mut v = Vec::new();
    let mut seats = vec![actor];
    seats.extend(state.others_clockwise(actor));
    for s in seats {
        for g in &state.players[s as usize].shadow {
            v.push((s, g.card));
        }
    }
    v
}

/// The Lit players a Greed may name (R5.5.2): the actor first, then clockwise.
pub(crate) fn greed_targets(state: &State, actor: u8) -> Vec<u8> {
    let mut v = vec![actor];
    v.extend(state.others_clockwise(actor));
    v
}

/// R5.1.2: checks the Requires clause of a declaration whose card is in `actor`'s hand.
pub(crate) fn check_action(state: &State, actor: u8, a: &Action<CardId>) -> Result<(), RuleError> {
    let face = state.face(*a.card());
    let need = |rank: Rank, rule: &'static str, what: &str| {
        if face.rank == rank {
            Ok(())
        } else {
            Err(RuleError::illegal(rule, format!("{what} needs a {}, not {face}", rank.label())))
        }
    };
    let neighbour = |t: u8, rule: &'static str| {
        if state.is_neighbour(actor, t) {
            Ok(())
        } else {
            Err(RuleError::illegal(rule, format!("seat {t} is not your neighbour")))
        }
    };
    let own_ghost = |g: CardId, rule: &'static str| {
        find_ghost(state, actor, g)
            .map(|_| ())
            .ok_or_else(|| RuleError::illegal(rule, "that card is not a ghost in your Shadow"))
    };
    match a {
        Action::Haunt { target, .. } => {
            if !face.rank.is_number() {
                return Err(RuleError::illegal("R5.2", format!("only number cards (A-10) Haunt, not {face}")));
            }
            neighbour(*target, "R5.2")
        }
        Action::Banish { ghost, .. } => {
            if face.rank == Rank::Joker {
                return Err(RuleError::illegal("R5.3.1", "a Joker can never be used to Banish"));
            }
            let g = find_ghost(state, actor, *ghost)
                .ok_or_else(|| RuleError::illegal("R5.3.1", "that card is not a ghost in your Shadow"))?;
            let gf = state.face(g.card);
            if !beats(face, gf, ghost_tier(g)) {
                return Err(RuleError::illegal("R5.3.2", format!("{face} does not beat the ghost {gf}")));
            }
            Ok(())
        }
        Action::Greed { target, .. } => {
            need(Rank::Two, "R5.5.2", "Greed")?;
            if state.is_lit(*target) {
                Ok(())
            } else {
                Err(RuleError::illegal("R5.5.2", format!("seat {target} is not Lit")))
            }
        }
        Action::Scare { target, .. } => {
            need(Rank::Three, "R5.5.3", "Scare")?;
            neighbour(*target, "R5.5.3")
        }
        Action::Drain { .. } => need(Rank::Four, "R5.5.4", "Drain"),
        Action::Sight { target, .. } => {
            need(Rank::Six, "R5.5.6", "Sight")?;
            neighbour(*target, "R5.5.6")
        }
        Action::Cleanse { ghost, .. } => {
            need(Rank::Seven, "R5.5.7", "Cleanse")?;
            own_ghost(*ghost, "R5.5.7")
        }
        Action::Recall { owner, ghost, .. } => {
            need(Rank::Eight, "R5.5.8", "Recall")?;
            if !state.is_lit(*owner) {
                return Err(RuleError::illegal("R5.5.8", format!("seat {owner} is not Lit")));
            }
            find_ghost(state, *owner, *ghost)
                .map(|_| ())
                .ok_or_else(|| RuleError::illegal("R5.5.8", "that card is not a ghost in that Shadow"))
        }
        Action::Possess { ghost, destination, .. } => {
            need(Rank::Nine, "R5.5.9", "Possess")?;
            own_ghost(*ghost, "R5.5.9")?;
            neighbour(*destination, "R5.5.9")
        }
        Action::Rekindle { .. } => need(Rank::Ten, "R5.5.10", "Rekindle"),
        Action::Mirror { target, .. } => {
            need(Rank::Jack, "R5.6.1", "Mirror")?;
            neighbour(*target, "R5.6.1")
        }
        Action::Medium { .. } => need(Rank::Queen, "R5.6.2", "Medium"),
        Action::Purge { .. } => need(Rank::King, "R5.6.3", "Purge"),
        Action::Boo { .. } => need(Rank::Joker, "R5.6.4", "BOO!"),
    }
}

/// One way a hand card may be played as an action, with its choices as constraints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Use {
    Haunt(Vec<u8>),
    Banish(Vec<CardId>),
    Greed(Vec<u8>),
    Scare(Vec<u8>),
    Drain,
    Sight(Vec<u8>),
    Cleanse(Vec<CardId>),
    Recall(Vec<(u8, CardId)>),
    Possess(Vec<CardId>, Vec<u8>),
    Rekindle,
    Mirror(Vec<u8>),
    Medium(Vec<MediumMode>),
    Purge,
    Boo,
}

/// R4.4.2, R5: every legal use of the hand card `c` by `actor`.
pub(crate) fn uses(state: &State, actor: u8, c: CardId) -> Vec<Use> {
    let face = state.face(c);
    let mut v = Vec::with_capacity(2);
    let nbrs = || state.neighbours(actor);
    let own: Vec<CardId> = state.players[actor as usize].shadow.iter().map(|g| g.card).collect();
    if face.rank.is_number() && !nbrs().is_empty() {
        v.push(Use::Haunt(nbrs()));
    }
    let b = banishable(state, actor, face);
    if !b.is_empty() {
        v.push(Use::Banish(b));
    }
    match face.rank {
        Rank::Two => v.push(Use::Greed(greed_targets(state, actor))),
        Rank::Three => v.push(Use::Scare(nbrs())),
        Rank::Four => v.push(Use::Drain),
        Rank::Six => v.push(Use::Sight(nbrs())),
        Rank::Seven if !own.is_empty() => v.push(Use::Cleanse(own)),
        Rank::Eight => {
            let r = recallable(state, actor);
            if !r.is_empty() {
                v.push(Use::Recall(r));
            }
        }
        Rank::Nine if !own.is_empty() => v.push(Use::Possess(own, nbrs())),
        Rank::Ten => v.push(Use::Rekindle),
        Rank::Jack => v.push(Use::Mirror(nbrs())),
        Rank::Queen => v.push(Use::Medium(vec![MediumMode::Search, MediumMode::Depths])),
        Rank::King => v.push(Use::Purge),
        Rank::Joker => v.push(Use::Boo),
        _ => {}
    }
    v
}
