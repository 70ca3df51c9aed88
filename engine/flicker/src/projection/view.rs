//! Per-viewer projections of the state (R3.1, R3.9, R10.8). Built by allow-list: each view type
//! holds only what its viewer may see; nothing is copied from the state and then deleted.

use crate::model::action::Action;
use crate::model::card::Suit;
use crate::model::handle::{CardView, card_view};
use crate::model::settings::{RulesetId, Settings};
use crate::model::state::{GameResult, State, Step};
use crate::rules::prompt::{Prompt, prompt_for};
use crate::rules::window::{self, WindowNext};
use serde::{Deserialize, Serialize};

/// Who is looking (R10.8): the platform's game-neutral viewer.
pub use flicker_game::Viewer;

/// R3.4.5: where a ghost is displayed within its owner's Shadow.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Half {
    /// The haunter is the owner's current left neighbour.
    Left,
    /// The haunter is the owner's current right neighbour.
    Right,
    /// Any other case (and every ghost when only two players are Lit).
    Middle,
}

/// A ghost as shown to everyone (R3.4.1, R3.4.3).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GhostView {
    /// The card.
    pub card: CardView,
    /// R3.4.4: the tracked haunter.
    pub haunter: Option<u8>,
    /// R3.4.3: the effective suit.
    pub suit: Option<Suit>,
    /// R3.4.5: the display half.
    pub half: Half,
    /// R8.20.1: for a Plague ghost (its haunter is The Plague), its visited set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visited: Option<Vec<u8>>,
}

/// R3.1, R8.2.7: a Wall as shown: its face only to the Cryptkeeper who built it.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WallView {
    /// The Cryptkeeper who built it (public: the build was a public action).
    pub builder: u8,
    /// The card, for its builder only (and in a complete view).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub card: Option<CardView>,
}

/// One seat as a viewer sees it.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerView {
    /// The seat.
    pub seat: u8,
    /// R0.3: not eliminated.
    pub lit: bool,
    /// R7.7.3: placing, once known.
    pub placing: Option<u8>,
    /// R3.2.2: Candle size.
    pub candle_size: usize,
    /// R3.3.1: hand size.
    pub hand_size: usize,
    /// The hand, for its owner only, in acquisition order (R10.12).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hand: Option<Vec<CardView>>,
    /// The Candle top first, only in a complete view after the game (R10.8).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub candle: Option<Vec<CardView>>,
    /// R3.4: the Shadow in entry order.
    pub shadow: Vec<GhostView>,
    /// R3.9: the class, public once chosen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<crate::model::classes::ClassId>,
    /// R8.2, R3.9: Walls lying in this Shadow (their number is public).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub walls: Vec<WallView>,
    /// R3.6: the number of Grimoire pages (public).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub pages: usize,
    /// R3.6: the pages themselves, for their owner only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_cards: Option<Vec<CardView>>,
    /// R3.9: the once-per-game ability has been used (The Mimic, The Lich).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub once_used: bool,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// R10.8.1: The Dark as shown: its size and top card.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DarkView {
    /// Number of cards.
    pub size: usize,
    /// The top card.
    pub top: Option<CardView>,
    /// Every card top first, only in a complete view after the game.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cards: Option<Vec<CardView>>,
}

/// R3.9: whose turn it is and which phase.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// R2.6: the tiebreaker winner chooses.
    TurnOrder,
    /// R4.2.
    Haunting,
    /// R4.3.
    Draw,
    /// R4.4.
    Ritual,
    /// R5.1: an action is being resolved.
    Action,
    /// R4.5.
    Burden,
    /// R4.6.
    AmIAlive,
    /// R7.4.
    Elimination,
    /// R7.7.
    Finished,
}

/// Who the game waits for, as public information allows (R10.6.2).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "awaiting", rename_all = "snake_case")]
pub enum Awaiting {
    /// Nothing: the game has ended.
    Nothing,
    /// A named player (Ritual, Haunting, Burden, counter-Salt exchange, picks, split).
    Seat {
        /// The seat.
        seat: u8,
    },
    /// A Salt or BOO! window is open on the action of `actor`; whom it waits for is hidden.
    Window {
        /// The actor.
        actor: u8,
    },
}

/// The action in flight (R3.7: its card lies face up in the Resolving area).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionView {
    /// The actor.
    pub actor: u8,
    /// The declaration (`null` for a card its viewer may not see: a Wall being built, R3.1).
    pub action: Action<Option<CardView>>,
}

/// A projection of the state for one viewer.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct View {
    /// Who this view is for.
    pub viewer: Viewer,
    /// Ruleset id and version.
    pub ruleset: RulesetId,
    /// The table's settings (public).
    pub settings: Settings,
    /// R7.9.1: the round.
    pub round: u16,
    /// The first player of the turn order, once known.
    pub first_player: Option<u8>,
    /// The active player.
    pub active: Option<u8>,
    /// The phase of the active player's turn.
    pub phase: Phase,
    /// R4.4.1: actions left to the active player.
    pub budget: u8,
    /// Every seat.
    pub players: Vec<PlayerView>,
    /// The Dark.
    pub dark: DarkView,
    /// R3.7: the Resolving area in entry order (face-up cards; a Wall being built is shown only
    /// to its builder, R3.1).
    pub resolving: Vec<CardView>,
    /// R3.1: face-down cards in the Resolving area the viewer may not see (a Wall being built).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub resolving_face_down: usize,
    /// R3.8: cards out of play (count only during play).
    pub out_of_play: usize,
    /// The action in flight.
    pub action: Option<ActionView>,
    /// Who the game waits for.
    pub awaiting: Awaiting,
    /// The viewer's own open prompt.
    pub prompt: Option<Prompt>,
    /// The result once the game has ended.
    pub result: Option<GameResult>,
}

fn phase(state: &State) -> Phase {
    match &state.step {
        Step::Empty | Step::TurnOrder { .. } | Step::StartTurn { .. } | Step::Selecting => Phase::TurnOrder,
        Step::Haunting | Step::Voodoo | Step::Martyr => Phase::Haunting,
        Step::Ability(_) => Phase::Ritual,
        Step::Reviving(_) => Phase::Elimination,
        Step::Draw => Phase::Draw,
        Step::Ritual => Phase::Ritual,
        Step::Action(_) => Phase::Action,
        Step::Burden => Phase::Burden,
        Step::AmIAlive | Step::PassTurn => Phase::AmIAlive,
        Step::Eliminating(_) => Phase::Elimination,
        Step::Finished => Phase::Finished,
    }
}

/// Whom the game waits for, publicly (R10.6.2: a Salt window hides whom it waits for).
pub(crate) fn awaiting(state: &State) -> Awaiting {
    if state.is_finished() {
        return Awaiting::Nothing;
    }
    if let Some(flow) = state.flow()
        && let Some(next) = window::next(state)
        && matches!(next, WindowNext::AnswerAll | WindowNext::HeldOpen | WindowNext::Ask(_) | WindowNext::Confirm(_))
    {
        return Awaiting::Window { actor: flow.window_actor() };
    }
    // R10.6.5: a held answer leaves the prompt's seat awaited until the server closes it.
    match crate::rules::prompt::asked(state).first() {
        Some((seat, _)) => Awaiting::Seat { seat: *seat },
        None => Awaiting::Nothing,
    }
}

/// R3.1: whether a card of the Resolving area is face up for this viewer: every card but a Wall
/// being built, which only its builder sees.
pub(crate) fn sees(state: &State, me: Option<u8>, everything: bool, c: crate::model::card::CardId) -> bool {
    match state.flow() {
        Some(f) if matches!(f.action, Action::BuildWall { card } if card == c) => everything || me == Some(f.actor),
        _ => true,
    }
}

/// R10.8: the projection of `state` for `viewer`. After the game has ended every viewer gets
/// the complete view.
pub fn view(state: &State, viewer: Viewer) -> View {
    let everything = viewer == Viewer::Everything || state.is_finished();
    let me = match viewer {
        Viewer::Seat { seat } => Some(seat),
        _ => None,
    };
    // R10.8: the commentary view knows what any one player knows.
    let commentary = viewer == Viewer::Commentary;
    let knows = |seat: u8| everything || commentary || me == Some(seat);
    let n = state.players.len();
    let two_lit = state.lit_count() <= 2;
    let players = state
        .players
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let seat = i as u8;
            let left = state.left_of(seat);
            let right = state.right_of(seat);
            PlayerView {
                seat,
                lit: p.lit,
                placing: p.placing,
                candle_size: p.candle.len(),
                hand_size: p.hand.len(),
                hand: knows(seat).then(|| p.hand.iter().map(|&c| card_view(state, c)).collect()),
                candle: everything.then(|| p.candle.iter().map(|&c| card_view(state, c)).collect()),
                shadow: p
                    .shadow
                    .iter()
                    .map(|g| GhostView {
                        card: card_view(state, g.card),
                        haunter: g.haunter,
                        suit: g.suit,
                        half: match g.haunter {
                            _ if two_lit || !p.lit => Half::Middle,
                            Some(h) if Some(h) == left && state.is_lit(h) => Half::Left,
                            Some(h) if Some(h) == right && state.is_lit(h) => Half::Right,
                            _ => Half::Middle,
                        },
                        visited: g
                            .haunter
                            .is_some_and(|h| {
                                crate::rules::classes::is(state, h, crate::model::classes::ClassId::Plague)
                            })
                            .then(|| g.visited.clone()),
                    })
                    .collect(),
                class: p.class,
                walls: p
                    .walls
                    .iter()
                    .map(|w| WallView { builder: w.builder, card: knows(w.builder).then(|| card_view(state, w.card)) })
                    .collect(),
                pages: p.pages.len(),
                page_cards: knows(seat).then(|| p.pages.iter().map(|&c| card_view(state, c)).collect()),
                once_used: p.once_used,
            }
        })
        .collect();
    debug_assert_eq!(n, state.players.len());
    View {
        viewer,
        ruleset: state.ruleset.clone().unwrap_or_else(RulesetId::current),
        settings: state.settings.clone().unwrap_or_else(|| Settings::new(0)),
        round: state.turn.round,
        first_player: state.first_player,
        active: (state.turn.round > 0).then_some(state.turn.active),
        phase: phase(state),
        budget: state.turn.budget,
        players,
        dark: DarkView {
            size: state.dark.len(),
            top: state.dark.last().map(|&c| card_view(state, c)),
            cards: everything.then(|| state.dark.iter().rev().map(|&c| card_view(state, c)).collect()),
        },
        resolving: state
            .resolving
            .iter()
            .filter(|&&c| sees(state, me, everything || commentary, c))
            .map(|&c| card_view(state, c))
            .collect(),
        resolving_face_down: state.resolving.iter().filter(|&&c| !sees(state, me, everything || commentary, c)).count(),
        out_of_play: state.out_of_play.len(),
        action: state.flow().map(|f| ActionView {
            actor: f.actor,
            action: f.action.map_cards(|&c| sees(state, me, everything || commentary, c).then(|| card_view(state, c))),
        }),
        awaiting: awaiting(state),
        prompt: me.and_then(|s| prompt_for(state, s)),
        result: state.result.clone(),
    }
}
