//! R10.13, R10.8: exporting the position of a state, whole or as one viewer may see it.

use crate::model::card::CardId;
use crate::model::classes::ClassId;
use crate::model::settings::{RulesetId, Settings};
use crate::model::state::{AbilityStage, ActionStage, State, Step};
use crate::projection::view::Viewer;
use crate::rules::position::format::{
    CardPos, GhostPos, Offer, Position, SeatPos, SelectionPos, Slot, StepPos, TriggerPos, TurnPos, WallPos, Zone,
};
use std::collections::HashSet;

/// R10.13: the whole position of `state` (every card named; no instances).
pub fn position_of(state: &State) -> Position {
    export(state, Viewer::Everything, false)
}

/// R10.13: the whole position of `state` with each card's instance (`7H#1`): importing it gives
/// the very same card instances, so the original's later events fold onto the import.
pub fn position_exact(state: &State) -> Position {
    export(state, Viewer::Everything, true)
}

/// R10.13, R10.8: the position of `state` as `viewer` may see it: what the viewer's view hides is
/// unknown (`?`, sizes only): every Candle, The Dark below its top, the cards out of play, other
/// seats' hands and pages, Walls built by others, and a class offer made to another seat. After
/// the game every viewer gets the whole position (as the complete view, R10.8). A position
/// for a viewer other than [`Viewer::Everything`] is marked with it and is never importable.
pub fn position_for(state: &State, viewer: Viewer) -> Position {
    export(state, viewer, false)
}

/// The cards of `state` that a position for `viewer` names: the cards of the viewer's view
/// ([`crate::projection::leaks::visible`]), never a Candle card (The Seer's peek lasts one
/// event, R8.25.1, and is not in the view).
pub(crate) fn shown(state: &State, viewer: Viewer) -> Option<HashSet<CardId>> {
    if viewer == Viewer::Everything || state.is_finished() {
        return None;
    }
    let mut s = crate::projection::leaks::visible(state, viewer);
    for p in &state.players {
        for c in &p.candle {
            s.remove(c);
        }
    }
    Some(s)
}

fn export(state: &State, viewer: Viewer, instances: bool) -> Position {
    let shown = shown(state, viewer);
    let whole = shown.is_none();
    let card = |c: CardId| -> Slot {
        if shown.as_ref().is_some_and(|s| !s.contains(&c)) {
            return Slot::Hidden;
        }
        Slot::Card(card_pos(state, c, instances))
    };
    let zone = |cs: &mut dyn Iterator<Item = CardId>| Zone(cs.map(card).collect());
    let plague = |h: Option<u8>| h.is_some_and(|h| crate::rules::classes::is(state, h, ClassId::Plague));
    let seats = state
        .players
        .iter()
        .enumerate()
        .map(|(i, p)| SeatPos {
            lit: p.lit,
            placing: p.placing,
            class: p.class,
            once_used: p.once_used,
            hand: zone(&mut p.hand.iter().copied()),
            candle: zone(&mut p.candle.iter().copied()),
            shadow: p
                .shadow
                .iter()
                .map(|g| GhostPos {
                    card: card_pos(state, g.card, instances),
                    haunter: g.haunter,
                    suit: g.suit,
                    // R8.20.1: a view shows the visited set of Plague ghosts only.
                    visited: if whole || plague(g.haunter) { g.visited.clone() } else { vec![i as u8] },
                })
                .collect(),
            walls: p
                .walls
                .iter()
                .map(|w| WallPos {
                    card: match card(w.card) {
                        Slot::Card(c) => Some(c),
                        Slot::Hidden => None,
                    },
                    builder: w.builder,
                })
                .collect(),
            pages: zone(&mut p.pages.iter().copied()),
        })
        .collect();
    let selection = state.selection.as_ref().map(|s| SelectionPos {
        order: s.order.clone(),
        bans_ignored: s.bans_ignored,
        offer: s.offer.as_ref().map(|o| {
            let sees = whole
                || viewer == Viewer::Commentary
                || s.order.first().is_some_and(|&f| viewer == Viewer::Seat { seat: f });
            if sees { Offer::Known(o.clone()) } else { Offer::Hidden { hidden: o.len() } }
        }),
    });
    let t = &state.turn;
    Position {
        ruleset: state.ruleset.clone().unwrap_or_else(RulesetId::current),
        viewer: (!whole).then_some(viewer),
        settings: state.settings.clone().unwrap_or_else(|| Settings::new(state.players.len() as u8)),
        turn: TurnPos {
            round: t.round,
            active: t.active,
            budget: t.budget,
            declared: t.declared,
            free_used: t.free_used,
            bonus_used: t.bonus_used,
            first: state.first_player,
        },
        step: if state.held.is_some() {
            StepPos::Pending { what: "held-answer".into() }
        } else {
            step_pos(&state.step)
        },
        seats,
        dark: zone(&mut state.dark.iter().rev().copied()),
        resolving: zone(&mut state.resolving.iter().copied()),
        out_of_play: zone(&mut state.out_of_play.iter().copied()),
        eliminated: state.eliminated.clone(),
        conceding: state.conceding.clone(),
        triggers: state
            .pending_triggers
            .iter()
            .map(|p| TriggerPos { class: p.class, owner: p.owner, dead: p.dead })
            .collect(),
        selection,
        result: state.result.clone(),
    }
}

/// The card `c` as a position names it.
fn card_pos(state: &State, c: CardId, instances: bool) -> CardPos {
    let face = state.face(c);
    let instance = instances.then(|| state.pool[..c.0 as usize].iter().filter(|x| x.face == face).count() as u16);
    CardPos { face, instance }
}

fn step_pos(step: &Step) -> StepPos {
    let pending = |what: String| StepPos::Pending { what };
    match step {
        Step::Empty => pending("not-created".into()),
        Step::TurnOrder { seat } => StepPos::TurnOrder { seat: *seat },
        Step::StartTurn { seat, round } => StepPos::StartTurn { seat: *seat, round: *round },
        Step::Haunting => StepPos::Haunting,
        Step::Draw => StepPos::Draw,
        Step::Ritual => StepPos::Ritual,
        Step::Burden => StepPos::Burden,
        Step::AmIAlive => StepPos::AmIAlive,
        Step::PassTurn => StepPos::PassTurn,
        Step::Selecting => StepPos::Selecting,
        Step::Voodoo => StepPos::Voodoo,
        Step::Martyr => StepPos::Martyr,
        Step::Finished => StepPos::Finished,
        Step::Eliminating(e) | Step::Reviving(e) => match step_pos(&e.resume) {
            StepPos::Pending { what } => pending(what),
            resume => {
                let resume = Box::new(resume);
                if matches!(step, Step::Eliminating(_)) {
                    StepPos::Eliminating { seat: e.seat, cause: e.cause, resume }
                } else {
                    StepPos::Reviving { seat: e.seat, cause: e.cause, resume }
                }
            }
        },
        Step::Action(f) => {
            let action = serde_json::to_value(&f.action)
                .ok()
                .and_then(|v| v.get("action").and_then(|a| a.as_str()).map(str::to_string))
                .unwrap_or_default();
            let stage = match &f.stage {
                ActionStage::Grimoire { .. } => "grimoire",
                ActionStage::Target => "target",
                ActionStage::WatcherPick { .. } => "watcher-pick",
                ActionStage::Spread { .. } => "spread",
                ActionStage::Window(w) if w.boo => "boo-window",
                ActionStage::Window(_) => "salt-window",
                ActionStage::Ready { .. } => "ready",
                ActionStage::SightPick { .. } => "sight-pick",
                ActionStage::SadistPick { .. } => "sadist-pick",
                ActionStage::MediumPick => "medium-pick",
                ActionStage::OmenPlay { .. } => "omen-play",
            };
            pending(format!("action:{}:{action}:{stage}", f.actor))
        }
        Step::Ability(a) => {
            let stage = match a.stage {
                AbilityStage::Spread => "spread",
                AbilityStage::TraderSwap { .. } => "trader-swap",
            };
            pending(format!("ability:{}:{}:{stage}", a.seat, a.ability.class().name()))
        }
    }
}
