//! The facts appended to a game's stream (R10.1.1), serialised adjacently tagged:
//! `{"type": "card_revealed", "payload": {...}}`. Every random outcome is stored in the event
//! that needs it (X11.2): evolve never draws.

use crate::model::card::{CardId, CardKind, Role, TileId};
use crate::model::settings::Settings;
use flicker_game::Ruleset;
use serde::{Deserialize, Serialize};

/// The version of the event schema this crate writes.
pub const EVENT_SCHEMA_VERSION: u32 = 1;

/// X9.1, X9.2: which way Cleansing Whip / Cloth of Transcendence pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = ExorcistDirection))]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// X9.1: rightmost card to the right neighbour (counter-clockwise), at its right end.
    Right,
    /// X9.2: leftmost card to the left neighbour (clockwise), at its left end.
    Left,
}

/// One pass of X9.1/X9.2: `from` peeked at `card` (its end card) and passed it to `to`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pass {
    /// The passer.
    pub from: u8,
    /// The receiver.
    pub to: u8,
    /// The card passed (seen by `from` only).
    pub card: CardId,
}

/// A change of one player's points (X0.6: never below 0, so `delta` is what was actually applied).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = ExorcistPointChange))]
pub struct PointChange {
    /// The player.
    pub seat: u8,
    /// The change applied.
    pub delta: i32,
}

/// X6.5: a selection limit for the next selection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = ExorcistLimit))]
#[serde(rename_all = "snake_case")]
pub enum Limit {
    /// X9.13 Satanic Spew!.
    Spew,
    /// X9.14 Vile Violation.
    Violation,
}

/// A team's win of a round (X4.2).
pub type Team = Role;

/// Why the game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = ExorcistEndReason))]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// X7.6: one player had the most points at the end of a round.
    Points,
    /// X8.5: the tie mini-game's single Blessing picker.
    TieGame,
    /// X8.6: 20 pick rounds without a winner; drawn at random.
    TieDrawn,
    /// R10.10: every other player conceded.
    Conceded,
}

/// An event of the game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", content = "payload", rename_all = "snake_case")]
pub enum Event {
    /// R10.1.3, X3.4: the game exists, under `ruleset`; `first_seeker` configured or drawn.
    GameCreated {
        /// Always [`crate::settings::RULESET_ID`] for games this crate creates.
        ruleset: Ruleset,
        /// The settings.
        settings: Settings,
        /// X3.4: the first Seeker of the game.
        first_seeker: u8,
        /// X3.4: it was drawn at random.
        drawn: bool,
    },
    /// X3.1-X3.3, X3.5: a round begins: the deck drawn from the box (X3.2, in deck order), the
    /// Role tiles dealt (X3.3, by seat), the first round's starting point (X3.1).
    RoundStarted {
        /// The round, from 1.
        round: u32,
        /// X3.2: the cards of this round's deck.
        deck: Vec<CardId>,
        /// X3.3: each seat's tile.
        tiles: Vec<TileId>,
        /// X3.1: every player gains 1 point (first round only).
        starting_point: bool,
        /// X3.4, X7.5: the round's first Seeker.
        first_seeker: u8,
    },
    /// X5.1-X5.3, X7.2: a deal: the remaining cards dealt evenly and each row shuffled; `rows`
    /// by seat, positions 1..k from the owner's left end.
    DealStarted {
        /// The deal of the round, 1..=4.
        deal: u8,
        /// Each seat's row, in order.
        rows: Vec<Vec<CardId>>,
    },
    /// X6.1, X6.6: a card is turned face up. `own`: the X6.6 case (the server picked one of the
    /// Seeker's own cards at random).
    CardRevealed {
        /// The Seeker.
        seeker: u8,
        /// The Chosen (the card's owner).
        chosen: u8,
        /// Its position in the Chosen's row before it left (1-based).
        position: u8,
        /// The card.
        card: CardId,
        /// X6.6: the Seeker had no other card to choose.
        own: bool,
    },
    /// X9.1, X9.2: every player with a card peeked at its end card and passed it.
    CardsPassed {
        /// The direction.
        direction: Direction,
        /// The passes, by passer.
        passes: Vec<Pass>,
    },
    /// X9.3, X9.7, X9.9, X9.10, X3.1, X4.3: points change.
    PointsChanged {
        /// The card that caused it.
        cause: CardKind,
        /// The changes applied.
        changes: Vec<PointChange>,
    },
    /// X0.4, X9.5, X9.6, X9.8, X9.16: `peeker` looked at `target`'s Role tile.
    RolePeeked {
        /// Who looked.
        peeker: u8,
        /// Whose tile.
        target: u8,
        /// The card that allowed it.
        cause: CardKind,
        /// The tile seen (private to the peeker).
        tile: TileId,
    },
    /// X11.5: `seat` declined an optional peek.
    PeekDeclined {
        /// Who declined.
        seat: u8,
        /// The card that offered it.
        cause: CardKind,
    },
    /// X9.4: the Chosen looked at every card of its row.
    RowPeeked {
        /// Who looked (the Chosen).
        peeker: u8,
        /// The row, in order (private to the peeker).
        cards: Vec<CardId>,
    },
    /// X9.14: the Chosen peeked at one card of another row; sets the Violation limit on `owner`.
    CardPeeked {
        /// Who looked.
        peeker: u8,
        /// The row's owner.
        owner: u8,
        /// The position (1-based).
        position: u8,
        /// The card seen (private to the peeker).
        card: CardId,
    },
    /// X9.11: the Chosen names the next Seeker.
    SeekerNamed {
        /// The Chosen.
        by: u8,
        /// The next Seeker.
        seeker: u8,
    },
    /// X9.12: the Hijinx goes back face down into the Chosen's row, shuffled (`row`: the new
    /// order); the Seeker selects again.
    HijinxReturned {
        /// The Chosen.
        chosen: u8,
        /// The Chosen's row after the shuffle.
        row: Vec<CardId>,
    },
    /// X9.13: a selection limit on `seat` for the next selection.
    LimitSet {
        /// Which limit.
        limit: Limit,
        /// The player whose cards may not be chosen.
        seat: u8,
    },
    /// X9.15: Seeker and Chosen exchange their rows; each new row shuffled.
    RowsExchanged {
        /// The Seeker.
        seeker: u8,
        /// The Chosen.
        chosen: u8,
        /// The Seeker's new row.
        seeker_row: Vec<CardId>,
        /// The Chosen's new row.
        chosen_row: Vec<CardId>,
    },
    /// X9.16: Seeker's and Chosen's tiles shuffled; the tiles each now holds.
    TilesShuffled {
        /// The Seeker.
        seeker: u8,
        /// The Chosen.
        chosen: u8,
        /// The Seeker's tile now.
        seeker_tile: TileId,
        /// The Chosen's tile now.
        chosen_tile: TileId,
    },
    /// X6.3, X6.4: the turn's card goes to the centre (counted) and `next_seeker` seeks next.
    TurnEnded {
        /// The next Seeker.
        next_seeker: u8,
    },
    /// X7.4, X4.3: the round ends; every tile is turned up; `scorers` gain 2 points.
    RoundEnded {
        /// The round.
        round: u32,
        /// The team that revealed all its Artifacts.
        winner: Team,
        /// The players whose tile shows the winning team.
        scorers: Vec<u8>,
    },
    /// X8.2: the mini-game's row is laid for `players`; the Blessing lies at `blessing` (1..=5).
    TieRowLaid {
        /// The players in the mini-game.
        players: Vec<u8>,
        /// Where the Blessing lies.
        blessing: u8,
    },
    /// X8.3: `seat` picked `position` (private until the reveal).
    TiePicked {
        /// The picker.
        seat: u8,
        /// The position.
        position: u8,
    },
    /// X8.4: every pick of this pick round is revealed.
    TieRevealed,
    /// X8.6: the winner drawn after 20 pick rounds.
    TieDrawn {
        /// The winner.
        winner: u8,
    },
    /// X7.6: the game is over.
    GameEnded {
        /// The winner.
        winner: Option<u8>,
        /// Why.
        reason: EndReason,
    },
    /// R10.7.1: the deadline passed for `seats`; their defaults follow as ordinary answers.
    TimedOut {
        /// The seats whose prompts timed out.
        seats: Vec<u8>,
    },
    /// R10.10: `seat` conceded; its prompts take their defaults from now on.
    Conceded {
        /// The seat.
        seat: u8,
    },
}

impl Event {
    /// The event's stable snake_case type name.
    pub fn type_name(&self) -> &'static str {
        match self {
            Event::GameCreated { .. } => "game_created",
            Event::RoundStarted { .. } => "round_started",
            Event::DealStarted { .. } => "deal_started",
            Event::CardRevealed { .. } => "card_revealed",
            Event::CardsPassed { .. } => "cards_passed",
            Event::PointsChanged { .. } => "points_changed",
            Event::RolePeeked { .. } => "role_peeked",
            Event::PeekDeclined { .. } => "peek_declined",
            Event::RowPeeked { .. } => "row_peeked",
            Event::CardPeeked { .. } => "card_peeked",
            Event::SeekerNamed { .. } => "seeker_named",
            Event::HijinxReturned { .. } => "hijinx_returned",
            Event::LimitSet { .. } => "limit_set",
            Event::RowsExchanged { .. } => "rows_exchanged",
            Event::TilesShuffled { .. } => "tiles_shuffled",
            Event::TurnEnded { .. } => "turn_ended",
            Event::RoundEnded { .. } => "round_ended",
            Event::TieRowLaid { .. } => "tie_row_laid",
            Event::TiePicked { .. } => "tie_picked",
            Event::TieRevealed => "tie_revealed",
            Event::TieDrawn { .. } => "tie_drawn",
            Event::GameEnded { .. } => "game_ended",
            Event::TimedOut { .. } => "timed_out",
            Event::Conceded { .. } => "conceded",
        }
    }
}
