//! R10.13: the data of a full position that the creation event of a position-created game
//! carries ([`Setup`]): where the game stands in its turn structure and every seat's zones, with
//! card instances. The notation that writes and reads positions, their check and the import are
//! `crate::rules::position`; the per-viewer export is `crate::projection::position`.

use crate::model::card::{CardId, Suit};
use crate::model::classes::ClassId;
use crate::model::event::EliminationCause;
use crate::model::state::GameResult;
use serde::{Deserialize, Serialize};

/// Where the game stands in its turn structure (R4.1): what happens next.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "snake_case", deny_unknown_fields)]
pub enum StepPos {
    /// R2.6: the tiebreaker winner chooses the turn order (`turn-order@S`).
    TurnOrder {
        /// The tiebreaker winner.
        seat: u8,
    },
    /// R2.7: the class selection (`selecting`; see the `selection:` group).
    Selecting,
    /// R4.1: the turn of `seat` in `round` begins (`start@S/R`).
    StartTurn {
        /// The seat.
        seat: u8,
        /// The round.
        round: u16,
    },
    /// R4.2: the active player's Haunting choice (`haunting`).
    Haunting,
    /// R4.3 (`draw`).
    Draw,
    /// R4.4: the active player's Ritual (`ritual`).
    Ritual,
    /// R4.5: the Burden discard (`burden`).
    Burden,
    /// R4.6 (`am-i-alive`).
    AmIAlive,
    /// R4.7 (`pass`).
    PassTurn,
    /// R8.34: The Voodoo Doll's reflection is due (`voodoo`).
    Voodoo,
    /// R8.15: The Martyr may draw (`martyr`).
    Martyr,
    /// R7.4: the elimination of `seat` (`eliminating@S:CAUSE:RESUME`, e.g.
    /// `eliminating@2:possessed:pass`): its ghosts are split next (R7.5).
    Eliminating {
        /// The seat.
        seat: u8,
        /// Why.
        cause: EliminationCause,
        /// The step after it.
        resume: Box<StepPos>,
    },
    /// R8.14: The Lich's revival (`reviving@S:CAUSE:RESUME`).
    Reviving {
        /// The seat.
        seat: u8,
        /// Why it was going.
        cause: EliminationCause,
        /// The step after it.
        resume: Box<StepPos>,
    },
    /// R7.7: the game is over (`finished`; see the `result:` group).
    Finished,
    /// A decision inside an action or a free ability (a Salt window, a pick, a class reaction)
    /// or a held answer: exported for reading (`pending:WHAT`), never imported.
    Pending {
        /// What is pending (`action:haunt:window`, `ability:trader`, …).
        what: String,
    },
}

/// The per-turn counters (R4.1.1, R4.4) and the turn order.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TurnPos {
    /// R7.9.1: the round (0 before the first turn). From round L + 1 the Guttering Burns
    /// `round - L` cards (R7.9.3): the Guttering count follows from the round.
    pub round: u16,
    /// The active player.
    pub active: u8,
    /// R4.4.1: the action budget.
    pub budget: u8,
    /// Actions declared this turn.
    pub declared: u8,
    /// R5.9.4: the once-per-turn free ability was used this turn.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub free_used: bool,
    /// R8.18.2: The Occultist's bonus was taken this turn.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bonus_used: bool,
    /// R2.6: the first player, once known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first: Option<u8>,
}

/// A class offer (R2.7.2): the classes, or (for a viewer who may not see it) their number.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Offer {
    /// The classes offered.
    Known(Vec<ClassId>),
    /// An offer the viewer may not see (R2.7.5): its size.
    Hidden {
        /// How many classes.
        hidden: usize,
    },
}

/// R2.7: the class selection in progress.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SelectionPos {
    /// Seats still to pick, in order.
    pub order: Vec<u8>,
    /// R2.7.7: the ban list is ignored.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bans_ignored: bool,
    /// The open offer of `order[0]`, once drawn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offer: Option<Offer>,
}

/// R7.4 step 7, R6.9: a death trigger waiting to resolve. Text: `vulture:2<1` (The Vulture of
/// seat 2, for the elimination of seat 1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TriggerPos {
    /// The class.
    pub class: ClassId,
    /// Its owner.
    pub owner: u8,
    /// The eliminated player.
    pub dead: u8,
}

/// A ghost of a [`Setup`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GhostSetup {
    /// The card.
    pub card: CardId,
    /// R3.4.4: the tracked haunter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub haunter: Option<u8>,
    /// R3.4.3: the effective suit.
    pub suit: Option<Suit>,
    /// R8.20.2: the Shadows it entered.
    pub visited: Vec<u8>,
}

/// One seat of a [`Setup`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatSetup {
    /// R0.3.
    pub lit: bool,
    /// R7.7.3.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placing: Option<u8>,
    /// R2.7.6.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<ClassId>,
    /// R5.9.4.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub once_used: bool,
    /// R3.3: oldest first.
    pub hand: Vec<CardId>,
    /// R3.2: top first.
    pub candle: Vec<CardId>,
    /// R3.4.2: oldest first.
    pub shadow: Vec<GhostSetup>,
    /// R8.2: (card, builder), oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub walls: Vec<(CardId, u8)>,
    /// R3.6.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pages: Vec<CardId>,
}

/// R10.13: the state a position-created game starts in, with card instances (carried by the
/// creation event, [`GameCreated::position`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Setup {
    /// The turn counters.
    pub turn: TurnPos,
    /// What happens next.
    pub step: StepPos,
    /// Every seat.
    pub seats: Vec<SeatSetup>,
    /// R3.5: The Dark, bottom first (the last is the top).
    pub dark: Vec<CardId>,
    /// R3.7.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resolving: Vec<CardId>,
    /// R3.8.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub out_of_play: Vec<CardId>,
    /// R7.7.3: elimination order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub eliminated: Vec<u8>,
    /// R10.10.2.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conceding: Vec<u8>,
    /// R7.4 step 7.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub triggers: Vec<TriggerPos>,
    /// R2.7.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selection: Option<SelectionPos>,
    /// R7.7.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<GameResult>,
}
