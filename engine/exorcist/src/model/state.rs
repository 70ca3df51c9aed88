//! The state: the fold of the events (R10.1.1). Holds everything, hidden or not; only the
//! projections ([`crate::projection`]) let anything out.

use crate::model::card::{CardId, CardKind, Role, TileId};
use crate::model::event::{EndReason, Limit};
use crate::model::settings::Settings;
use flicker_game::Ruleset;
use serde::{Deserialize, Serialize};

/// X6.3, X7.2: a revealed card in the centre or set aside with its deal (public).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Revealed {
    /// The card.
    pub card: CardId,
    /// The round.
    pub round: u32,
    /// Its index among the round's reveals (from 0; a returned Hellish Hijinx! counts too).
    pub reveal: u32,
    /// The deal, 1..=4.
    pub deal: u8,
    /// Who turned it up.
    pub seeker: u8,
    /// Whose it was.
    pub chosen: u8,
}

/// X9: where the resolution of the turn's card stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// An automatic effect is due (the decider appends its event).
    Auto,
    /// A prompt is open.
    Ask(Ask),
    /// The effect is resolved; the turn ends next (X6.3, X6.4).
    Done,
}

/// X12: the effect prompts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ask {
    /// X9.5, the Seeker's look.
    TabletSeeker,
    /// X9.5, the Chosen's look.
    TabletChosen,
    /// X9.4.
    Prepuce,
    /// X9.6.
    Book,
    /// X9.7.
    Ring,
    /// X9.8.
    Pazuzu,
    /// X9.10.
    Sanction,
    /// X9.11.
    NameSeeker,
    /// X9.14.
    Violation,
    /// X9.16.
    Satan,
}

/// The turn being resolved: the card just turned up (X6.1-X6.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Turn {
    /// The Seeker.
    pub seeker: u8,
    /// The Chosen.
    pub chosen: u8,
    /// The card.
    pub card: CardId,
    /// Its reveal index in the round.
    pub reveal: u32,
    /// Where its resolution stands.
    pub stage: Stage,
    /// X9.11: the next Seeker named by Cruel Cowardice.
    pub named: Option<u8>,
}

/// What a seat saw, for its private log (X11.3) and its current knowledge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sighting {
    /// The stream index of the event that showed it.
    pub at: u64,
    /// The row's owner.
    pub owner: u8,
    /// The position then (1-based).
    pub position: u8,
    /// The card.
    pub card: CardId,
}

/// One entry of a seat's private log (X11.3): what it legitimately saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    /// X3.3, X0.4: a Role tile seen (own at the look, or by a peek).
    Role {
        /// The stream index of the event.
        at: u64,
        /// The round.
        round: u32,
        /// Whose tile.
        seat: u8,
        /// The Role seen.
        role: Role,
    },
    /// X5.2: the seat's dealt cards, as a set (sorted by kind).
    Dealt {
        /// The stream index of the event.
        at: u64,
        /// The round.
        round: u32,
        /// The deal.
        deal: u8,
        /// The kinds, sorted.
        cards: Vec<CardKind>,
    },
    /// X0.4: a face-down card seen by a peek (X9.1, X9.2, X9.4, X9.14).
    Card(Sighting),
}

/// A round in play.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Round {
    /// From 1.
    pub number: u32,
    /// X3.2: this round's deck.
    pub deck: Vec<CardId>,
    /// X2.2: Holy Artifacts in the deck.
    pub holy: u8,
    /// X2.2: Cursed Artifacts in the deck.
    pub cursed: u8,
    /// Holy Artifacts turned up so far (a card counts from its reveal).
    pub holy_revealed: u8,
    /// Cursed Artifacts turned up so far.
    pub cursed_revealed: u8,
    /// X3.3, X4.1: the tile in front of each seat.
    pub tiles: Vec<TileId>,
    /// X0.2: each seat's face-down row, position 1 first.
    pub rows: Vec<Vec<CardId>>,
    /// X5.1: the deal, 1..=4 (0 before the first).
    pub deal: u8,
    /// X5.4, X6.3: this deal's revealed count.
    pub deal_revealed: u8,
    /// X6.3: this deal's face-up cards.
    pub centre: Vec<Revealed>,
    /// X7.2: the earlier deals' face-up cards, by deal.
    pub set_aside: Vec<Vec<Revealed>>,
    /// Reveals so far this round (the next reveal's index).
    pub reveals: u32,
    /// X0.3: the Seeker (the next one while a turn resolves).
    pub seeker: u8,
    /// The turn being resolved.
    pub turn: Option<Turn>,
    /// X9.12: the players already made Chosen in the current Hijinx chain.
    pub chain: Vec<u8>,
    /// X6.5, X9.13: no card of this seat on the next selection.
    pub spew: Option<u8>,
    /// X6.5, X9.14: no card of this seat on the next selection.
    pub violation: Option<u8>,
    /// Per seat: the cards whose current place it knows from its peeks (forgotten when their
    /// row is shuffled), with the sighting's stream index.
    pub known_cards: Vec<Vec<(CardId, u64)>>,
    /// Per seat: the seats whose current tile it has seen, with the Role and the stream index
    /// (forgotten when that tile is shuffled, X9.16).
    pub known_tiles: Vec<Vec<(u8, Role, u64)>>,
}

impl Round {
    /// The Role of `seat`'s tile now.
    pub fn role(&self, seat: u8) -> Role {
        self.tiles[seat as usize].role()
    }

    /// X4.2: the team that has revealed all its Artifacts, if any.
    pub fn winner(&self) -> Option<Role> {
        if self.holy_revealed >= self.holy {
            Some(Role::Innocent)
        } else if self.cursed_revealed >= self.cursed {
            Some(Role::Possessed)
        } else {
            None
        }
    }

    /// Limits in force for the next selection.
    pub fn limits(&self) -> Vec<(Limit, u8)> {
        let mut v = Vec::new();
        if let Some(s) = self.spew {
            v.push((Limit::Spew, s));
        }
        if let Some(s) = self.violation {
            v.push((Limit::Violation, s));
        }
        v
    }
}

/// X7.4, X11.4: a finished round, public.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundSummary {
    /// The round.
    pub number: u32,
    /// The winning team.
    pub winner: Role,
    /// Every seat's Role at the end.
    pub roles: Vec<Role>,
    /// Who gained 2 points.
    pub scorers: Vec<u8>,
}

/// X8: the tie mini-game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tie {
    /// X8.1: the players in it.
    pub players: Vec<u8>,
    /// How many rows have been laid (from 1).
    pub layout: u32,
    /// X8.2: where the Blessing lies (1..=5).
    pub blessing: u8,
    /// Positions that still hold a card.
    pub available: Vec<u8>,
    /// This pick round's picks so far, by seat.
    pub picks: Vec<(u8, u8)>,
    /// X8.6: pick rounds played so far.
    pub pick_rounds: u32,
    /// The picks of the last pick round revealed, and on which layout.
    pub last_revealed: Option<(u32, Vec<(u8, u8)>)>,
    /// The positions revealed on the current layout (public).
    pub revealed: Vec<u8>,
    /// X8.5: a new row is to be laid (several Blessing pickers, or no Mischief left).
    pub relay: bool,
    /// X8.5, X8.6: the winner, once decided.
    pub winner: Option<u8>,
}

/// The game's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameResult {
    /// The winner.
    pub winner: Option<u8>,
    /// Why it ended.
    pub reason: EndReason,
}

/// The state of a game.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct State {
    /// Events folded.
    pub version: u64,
    /// R10.4.2: the stream index at which the open decision point opened (the prompt id).
    pub point: u64,
    /// The settings (after creation).
    pub settings: Option<Settings>,
    /// R10.1.3: the ruleset recorded at creation.
    pub ruleset: Option<Ruleset>,
    /// X3.4, X7.5: the Seeker of the next round's first turn (between rounds).
    pub next_seeker: u8,
    /// X4: each seat's points.
    pub points: Vec<u32>,
    /// R10.10: conceded seats.
    pub conceded: Vec<bool>,
    /// The round in play.
    pub round: Option<Round>,
    /// Rounds played so far.
    pub rounds: u32,
    /// The finished rounds.
    pub history: Vec<RoundSummary>,
    /// X11.3: each seat's private log.
    pub notes: Vec<Vec<Note>>,
    /// X8: the mini-game in play.
    pub tie: Option<Tie>,
    /// The result once the game is over.
    pub result: Option<GameResult>,
}

impl State {
    /// The number of seats.
    pub fn players(&self) -> u8 {
        self.points.len() as u8
    }

    /// True once the game is over.
    pub fn is_finished(&self) -> bool {
        self.result.is_some()
    }
}
