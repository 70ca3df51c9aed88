//! Class reactions before the Salt window (R6.2): W1, The Grimoire of Rejection (R6.3, R8.9.2);
//! W2, the Haunt target's class reaction (R6.4): The Hex (R8.10), The Mime (R6.7, R8.16), The
//! Unseen (R8.32), The Shadow (R8.26) and The Cryptkeeper's Wall block (R8.2.2). None of them
//! can be Salted except The Mime's redirect, which opens its own windows (R6.7.2-R6.7.3).

use super::{ClassId, class_of, live, passives};
use crate::model::action::Action;
use crate::model::card::CardId;
pub use crate::model::classes::Reaction;
use crate::model::error::RuleError;
use crate::model::event::Event;
use crate::model::handle::CardRef;
use crate::model::state::{ActionFlow, ActionStage, State};
use serde::{Deserialize, Serialize};

/// Which W2 reaction the Haunt's target may use (R6.4: at most one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum W2 {
    Hex,
    Mime,
    Unseen,
    Shadow,
    Wall,
}

/// R6.3.1: the neighbours of the actor to ask in W1 (Grimoires holding a page), left first.
/// Only a Ritual action with a face-up card is subject (R6.3.3).
pub(crate) fn grimoire_queue(state: &State, actor: u8, action: &Action<CardId>) -> Vec<u8> {
    if !action.face_up_card() {
        return Vec::new();
    }
    state
        .neighbours(actor)
        .into_iter()
        .filter(|&s| live(state, s, ClassId::GrimoireOfRejection) && !state.players[s as usize].pages.is_empty())
        .collect()
}

/// R6.7.1: The Mime's other neighbour (not the Haunt's actor), when it may redirect onto it
/// (R8.16.4: two distinct neighbours, and not The Phantom with an empty hand).
pub(crate) fn mime_other(state: &State, mime: u8, actor: u8) -> Option<u8> {
    let n = state.neighbours(mime);
    if n.len() != 2 || !n.contains(&actor) {
        return None;
    }
    let other = n.into_iter().find(|&s| s != actor)?;
    (!passives::phantom_untouchable(state, other)).then_some(other)
}

/// R6.4, R6.8: the W2 reaction of the Haunt's current target, when public information does not
/// rule it out.
pub(crate) fn w2(state: &State, flow: &ActionFlow) -> Option<W2> {
    let Action::Haunt { card, .. } = &flow.action else { return None };
    let t = flow.haunt_target()?;
    if !state.is_lit(t) {
        return None;
    }
    let p = &state.players[t as usize];
    match class_of(state, t)? {
        // R8.10.4: a face card or Joker Haunt (The Warlock) cannot be reflected.
        ClassId::Hex if state.face(*card).rank.is_number() && !p.hand.is_empty() => Some(W2::Hex),
        ClassId::Mime | ClassId::Jester
            if flow.redirect.is_none() && !p.hand.is_empty() && mime_other(state, t, flow.actor).is_some() =>
        {
            Some(W2::Mime)
        }
        ClassId::Unseen if !p.hand.is_empty() => Some(W2::Unseen),
        ClassId::ShadowClass if !p.candle.is_empty() => Some(W2::Shadow),
        ClassId::Cryptkeeper | ClassId::Architect if !p.walls.is_empty() => Some(W2::Wall),
        _ => None,
    }
}

/// R6.2: the stage after W1: W2 when the target may react, otherwise W3.
pub(crate) fn after_w1(state: &State, flow: &ActionFlow) -> ActionStage {
    if w2(state, flow).is_some() { ActionStage::Target } else { salt_stage(state, flow) }
}

/// R6.2 W3 (R6.7.3 for a redirect: The Mime is the actor and the target is its other neighbour).
pub(crate) fn salt_stage(state: &State, flow: &ActionFlow) -> ActionStage {
    let action = match (&flow.action, &flow.redirect) {
        (Action::Haunt { card, .. }, Some(r)) => Action::Haunt { card: *card, target: r.target },
        (a, _) => a.clone(),
    };
    ActionStage::Window(crate::rules::window::open(state, flow.window_actor(), &action))
}

/// R6.2: the first stage of an action just declared: W1, W2 or W3.
pub(crate) fn first_stage(state: &State, flow: &ActionFlow) -> ActionStage {
    let q = grimoire_queue(state, flow.actor, &flow.action);
    if q.is_empty() { after_w1(state, flow) } else { ActionStage::Grimoire { queue: q } }
}

/// The cards `seat` may react with now (the options of its prompt, R6.8: they reflect its
/// hidden cards): pages of the action card's rank, hand cards of the Haunt card's suit, any
/// hand card, or its Walls. Empty for The Shadow, whose reaction takes no card.
pub(crate) fn reaction_cards(state: &State, seat: u8) -> Vec<CardId> {
    let Some(flow) = state.flow() else { return Vec::new() };
    let p = &state.players[seat as usize];
    let card = flow.action.card().copied();
    match &flow.stage {
        ActionStage::Grimoire { .. } => {
            let rank = card.map(|c| state.face(c).rank);
            p.pages.iter().copied().filter(|&pg| Some(state.face(pg).rank) == rank).collect()
        }
        ActionStage::Target => match w2(state, flow) {
            Some(W2::Hex) => {
                let suit = card.and_then(|c| state.face(c).suit);
                p.hand.iter().copied().filter(|&c| suit.is_some() && state.face(c).suit == suit).collect()
            }
            Some(W2::Mime | W2::Unseen) => p.hand.clone(),
            Some(W2::Wall) => p.walls.iter().map(|w| w.card).collect(),
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// The kind of reaction prompt open for `seat` (R10.5 #6-#11).
pub(crate) fn prompt_kind(state: &State) -> Option<(u8, ReactionKind)> {
    let flow = state.flow()?;
    match &flow.stage {
        ActionStage::Grimoire { queue } => queue.first().map(|&s| (s, ReactionKind::GrimoireReject)),
        ActionStage::Target => {
            let t = flow.haunt_target()?;
            // A9 row 23: The Architect's Wall absorbs the Haunt with no prompt.
            if super::is(state, t, ClassId::Architect) {
                return None;
            }
            let k = match w2(state, flow)? {
                W2::Hex => ReactionKind::HexReflect,
                W2::Mime => ReactionKind::MimeRedirect,
                W2::Unseen => ReactionKind::UnseenCancel,
                W2::Shadow => ReactionKind::ShadowCancel,
                W2::Wall => ReactionKind::WallBlock,
            };
            Some((t, k))
        }
        _ => None,
    }
}

/// R10.5 #6-#11: the reaction prompts.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReactionKind {
    /// #6 GrimoireReject.
    GrimoireReject,
    /// #7 HexReflect.
    HexReflect,
    /// #8 MimeRedirect.
    MimeRedirect,
    /// #9 UnseenCancel.
    UnseenCancel,
    /// #10 ShadowCancel (answer `react` with no card: Burn 1).
    ShadowCancel,
    /// #11 WallBlock.
    WallBlock,
}

/// Validates a reaction answer of `seat` (`card` resolved by the caller among
/// [`reaction_cards`] handles) and returns its event.
pub(crate) fn react(state: &State, seat: u8, card: Option<CardRef>) -> Result<Event, RuleError> {
    let (_, kind) = prompt_kind(state).ok_or_else(|| RuleError::illegal("R6.2", "no reaction is open"))?;
    let pick = |rule: &'static str| -> Result<CardId, RuleError> {
        let r = card.ok_or_else(|| RuleError::illegal(rule, "choose the card to react with"))?;
        reaction_cards(state, seat)
            .into_iter()
            .find(|&c| crate::model::handle::handle(state, c) == r)
            .ok_or_else(|| RuleError::illegal(rule, "that card cannot be used for this reaction"))
    };
    let reaction = match kind {
        ReactionKind::GrimoireReject => Reaction::GrimoireReject { page: pick("R6.3.2")? },
        ReactionKind::HexReflect => Reaction::HexReflect { card: pick("R8.10.2")? },
        ReactionKind::MimeRedirect => Reaction::MimeRedirect { card: pick("R8.16.1")? },
        ReactionKind::UnseenCancel => Reaction::UnseenCancel { card: pick("R8.32.1")? },
        ReactionKind::WallBlock => Reaction::WallBlock { wall: pick("R8.2.2")? },
        ReactionKind::ShadowCancel => {
            let burned = state.players[seat as usize]
                .candle
                .front()
                .copied()
                .ok_or_else(|| RuleError::illegal("R8.26.1", "The Shadow needs a Candle card to Burn"))?;
            Reaction::ShadowCancel { burned }
        }
    };
    Ok(Event::Reacted { seat, reaction })
}

/// A9 row 23 The Architect (classic): when a Haunt targets it while it has a Wall, its oldest
/// Wall absorbs the Haunt on its own (no prompt): the `reacted` event of that block, if due now.
pub(crate) fn architect_block(state: &State) -> Option<Event> {
    let flow = state.flow()?;
    if !matches!(flow.stage, ActionStage::Target) || w2(state, flow) != Some(W2::Wall) {
        return None;
    }
    let t = flow.haunt_target()?;
    if !super::is(state, t, ClassId::Architect) {
        return None;
    }
    let wall = state.players[t as usize].walls.first()?.card;
    Some(Event::Reacted { seat: t, reaction: Reaction::WallBlock { wall } })
}
