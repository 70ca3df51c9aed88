//! The game state: exactly the fold of the events (R10.1.1). Its fields are crate-private: the
//! only ways out of the engine are [`crate::projection::view::view`], [`crate::projection::redact::redact`] and the
//! prompts of [`crate::rules::prompt`].

use crate::model::action::Action;
use crate::model::card::{CardId, CardInstance, Face, Suit};
use crate::model::event::{EliminationCause, EndReason};
use crate::model::settings::{RulesetId, Settings};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// R3.4.3: a ghost record: the card, its tracked haunter (R3.4.4) and its effective suit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Ghost {
    pub card: CardId,
    /// R3.4.4: the player who Haunted it; `None` for BOO! and failed-Panic ghosts.
    pub haunter: Option<u8>,
    /// R3.4.3: the effective suit (the printed suit unless a class changed it; `None` for a Joker).
    pub suit: Option<Suit>,
    /// R8.20.1-R8.20.2: every player whose Shadow this ghost has entered (the Plague's visited
    /// set; kept for every ghost, shown only for Plague ghosts).
    pub visited: Vec<u8>,
}

/// R8.2: a Wall: a face-down card in a Shadow, and the Cryptkeeper who built it (R8.2.7).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Wall {
    pub card: CardId,
    pub builder: u8,
}

/// One seat's zones (R3).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct PlayerState {
    /// R3.2: the Candle, top first.
    pub candle: VecDeque<CardId>,
    /// R3.3: the hand in acquisition order, oldest first (R10.12).
    pub hand: Vec<CardId>,
    /// R3.4.2: the Shadow in entry order, oldest first.
    pub shadow: Vec<Ghost>,
    /// R0.3: not eliminated.
    pub lit: bool,
    /// R7.7.3: final placing once known.
    pub placing: Option<u8>,
    /// R2.7.6: the class, once chosen (None at a class-free table).
    pub class: Option<crate::model::classes::ClassId>,
    /// R8.2: Walls lying in this Shadow, in entry order (not ghosts, R3.4.6).
    pub walls: Vec<Wall>,
    /// R3.6, R8.9: Grimoire pages, face down.
    pub pages: Vec<CardId>,
    /// R5.9.4, R3.9: the once-per-game class effect has been used (The Mimic, The Lich).
    pub once_used: bool,
}

/// The per-turn counters (R4.1.1, R4.4).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Turn {
    /// The active player.
    pub active: u8,
    /// R7.9.1: the round number (1-based; 0 before the first turn).
    pub round: u16,
    /// R4.4.1: the action budget.
    pub budget: u8,
    /// Actions declared this turn.
    pub declared: u8,
    /// R5.9.4: the active player's once-per-turn free ability was used this turn.
    pub free_used: bool,
    /// R8.18.2: The Occultist's bonus was taken this turn.
    pub bonus_used: bool,
}

/// An exchange of 5s between the actor and one Salter (R6.5.5).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Exchange {
    /// The player who opened it.
    pub salter: u8,
    /// Who must answer next (the actor or the Salter).
    pub waiting: u8,
}

/// A W3 Salt window or a BOO! window (R6.5, R6.6, R10.6.6).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SaltWindowState {
    /// R6.6: per-target BOO! window (each standing Salt protects its Salter only).
    pub boo: bool,
    /// R10.6.6: simultaneous answers while the window takes them: (seat, answer) with `None` =
    /// not answered yet, `Some(None)` = Pass, `Some(Some(card))` = Salt with that 5.
    pub answers: Vec<(u8, Option<Option<CardId>>)>,
    /// R10.6.6: (seat, changes of its answer so far) while the window takes answers; a seat's
    /// first answer is not a change (bounded by [`crate::rules::window::MAX_ANSWER_CHANGES`]).
    pub changes: Vec<(u8, u8)>,
    /// Simultaneous window still taking answers.
    pub open: bool,
    /// Sequential: the eligible players, clockwise from the actor's left (R6.5.3).
    /// Simultaneous, after the answers close: every eligible player of the window in that order
    /// (the order of `answers`), Salters or not.
    pub queue: Vec<u8>,
    /// Next index of `queue` to take (simultaneous: starts at the first Salter).
    pub cursor: usize,
    /// The running exchange.
    pub exchange: Option<Exchange>,
    /// Exchanges already run in this window (R10.6.6: after a failed one, a simultaneous Salt
    /// window asks the remaining players one by one).
    pub exchanges_run: u8,
    /// R6.6.2: players protected from BOO!.
    pub protected: Vec<u8>,
    /// R6.5.6: the Salter whose Salt stood (Salt window), awaiting the cancellation event.
    pub stood: Option<u8>,
}

/// Where an action in flight stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ActionStage {
    /// R6.3 W1: Grimoire neighbours still to be asked, in order.
    Grimoire { queue: Vec<u8> },
    /// R6.4 W2: the Haunt's target (or the redirect's) is asked for its class reaction.
    Target,
    /// R8.37: The Watcher chooses cards from the hands it sees (prompt WatcherPick).
    WatcherPick { targets: Vec<u8> },
    /// R8.20.3: the remover chooses where live Plague ghosts spread (prompt PlagueSpread):
    /// the ghosts needing a choice, and the choices made so far.
    Spread { pending: Vec<CardId>, chosen: Vec<(CardId, u8)> },
    /// R6.2 W3: the Salt (or BOO!) window.
    Window(SaltWindowState),
    /// R6.5.7: the window is over and the action stands; it resolves next. `protected` lists
    /// the players a standing Salt protects from BOO! (R6.6.2).
    Ready { protected: Vec<u8> },
    /// R5.5.6: the actor chooses the cards to take (prompt SightPick).
    SightPick { target: u8 },
    /// A9 row 7: the classic Sadist chooses the 2 cards its Scare discards (prompt SadistPick).
    SadistPick { target: u8 },
    /// R5.6.2: the actor chooses a card of The Dark (prompt MediumPick).
    MediumPick,
    /// A6 Omen: the revealed cards wait face up in the Resolving area for the actor's choice
    /// (prompt OmenPlay).
    OmenPlay { revealed: Vec<CardId> },
}

/// An action between its declaration and its resolution (R5.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ActionFlow {
    pub actor: u8,
    pub action: Action<CardId>,
    /// R4.4.4: the first action of the turn.
    pub first: bool,
    pub stage: ActionStage,
    /// R6.7: a Mime redirect of this Haunt, once made.
    pub redirect: Option<Redirect>,
    /// R8.20.3: spread choices made for this action (ghost, recipient).
    pub spreads: Vec<(CardId, u8)>,
}

/// R6.7.1: The Mime's redirect of a Haunt: a new action with The Mime as actor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Redirect {
    /// The Mime.
    pub mime: u8,
    /// The Mime's other neighbour, the redirect's target.
    pub target: u8,
}

impl ActionFlow {
    /// The actor of the reaction windows now open: The Mime during a redirect (R6.7.3).
    pub fn window_actor(&self) -> u8 {
        self.redirect.as_ref().map_or(self.actor, |r| r.mime)
    }

    /// The player a Haunt now aims at: the redirect's target once redirected (R6.7.1).
    pub fn haunt_target(&self) -> Option<u8> {
        match (&self.action, &self.redirect) {
            (_, Some(r)) => Some(r.target),
            (Action::Haunt { target, .. }, None) => Some(*target),
            _ => None,
        }
    }
}

/// R5.9: a free ability in progress.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AbilityFlow {
    pub seat: u8,
    pub ability: crate::model::classes::Ability<CardId>,
    pub stage: AbilityStage,
}

/// Where a free ability stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum AbilityStage {
    /// R8.20.3: The Doomreader chooses where a live Plague ghost spreads.
    Spread,
    /// R8.31.1: The Trader sees the hand and may swap (prompt TraderSwap).
    TraderSwap { target: u8 },
}

/// R2.7: the class selection in progress.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Selection {
    /// Seats still to pick, in turn order (R2.7.1).
    pub order: Vec<u8>,
    /// R2.7.7: the ban list is ignored at this table.
    pub bans_ignored: bool,
    /// The open offer (R2.7.2) of `order[0]`, once drawn.
    pub offer: Option<Vec<crate::model::classes::ClassId>>,
}

/// The elimination procedure in progress (R7.4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Elimination {
    pub seat: u8,
    pub cause: EliminationCause,
    /// The step to return to once it is over (PassTurn when the eliminated player was active).
    pub resume: Step,
}

/// The game's position in its turn structure: what happens next (R4.1).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) enum Step {
    /// No creation event folded yet.
    #[default]
    Empty,
    /// R2.6: waiting for the tiebreaker winner's TurnOrderChoice.
    TurnOrder { seat: u8 },
    /// Automatic: the turn of `seat` begins.
    StartTurn { seat: u8, round: u16 },
    /// R4.2: prompt HauntingChoice.
    Haunting,
    /// R4.3: automatic draw.
    Draw,
    /// R4.4: prompt Ritual.
    Ritual,
    /// R5.1: an action in flight.
    Action(Box<ActionFlow>),
    /// R4.5: prompt BurdenDiscard (only when over the limit).
    Burden,
    /// R4.6: automatic checks.
    AmIAlive,
    /// R4.7: automatic pass of the turn.
    PassTurn,
    /// R7.4: an elimination in progress.
    Eliminating(Box<Elimination>),
    /// R2.7: class selection.
    Selecting,
    /// R4.2.8, R8.34: The Voodoo Doll's reflection is due.
    Voodoo,
    /// R8.15: The Martyr may draw (prompt MartyrDraw).
    Martyr,
    /// R5.9: a free ability in progress.
    Ability(Box<AbilityFlow>),
    /// R8.14: The Lich's revival in progress (its DeathSplit is prompted first).
    Reviving(Box<Elimination>),
    /// R7.7: the game is over.
    Finished,
}

/// The result of a finished game (R7.7).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameResult {
    /// The winner, if any.
    pub winner: Option<u8>,
    /// Why it ended.
    pub reason: EndReason,
    /// Final placing per seat (R7.7.3).
    pub placings: Vec<u8>,
    /// R9.5: the circle's Last Lit.
    #[serde(default)]
    pub last_lit: Vec<u8>,
}

/// The secret key of the card handles (R10.3.2). A newtype so that the `Debug` of [`State`]
/// (which may reach logs) never prints it.
#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct HandleKey(pub [u64; 2]);

impl std::fmt::Debug for HandleKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<secret>")
    }
}

/// The state of one game: the fold of its events (R10.1.1). Its `Debug` output never shows the
/// handle key (R10.3.2).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct State {
    pub(crate) ruleset: Option<RulesetId>,
    /// R10.1.3: the rules of `ruleset` (`None` before creation, or when this engine does not play
    /// the recorded ruleset or version: such a game folds under the current rules and refuses
    /// every command).
    pub(crate) rules: Option<crate::model::edition::Rules>,
    pub(crate) settings: Option<Settings>,
    pub(crate) pool: Vec<CardInstance>,
    /// Per card: how many times it has moved (R10.3.2 handles change with it).
    pub(crate) epochs: Vec<u32>,
    /// The secret key of the card handles (R10.3.2); its `Debug` prints `<secret>`.
    pub(crate) handle_key: HandleKey,
    pub(crate) players: Vec<PlayerState>,
    /// R3.5: The Dark; the last element is the top.
    pub(crate) dark: Vec<CardId>,
    /// R3.7: the Resolving area in entry order.
    pub(crate) resolving: Vec<CardId>,
    /// R3.8: out of play.
    pub(crate) out_of_play: Vec<CardId>,
    pub(crate) first_player: Option<u8>,
    pub(crate) turn: Turn,
    pub(crate) step: Step,
    /// R10.10.2: concessions waiting to take effect, in the order sent.
    pub(crate) conceding: Vec<u8>,
    /// Order of elimination (R7.7.3).
    pub(crate) eliminated: Vec<u8>,
    pub(crate) result: Option<GameResult>,
    /// Number of events folded.
    pub(crate) version: u64,
    /// Version at which the open decision point opened (for prompt ids).
    pub(crate) decision_opened_at: u64,
    /// R2.7: the class selection, while it runs.
    pub(crate) selection: Option<Selection>,
    /// R6.9, R7.4 step 7: death triggers still to resolve: (owner, the eliminated player, its
    /// former left and right neighbours), in R6.9.3 order.
    pub(crate) pending_triggers: Vec<crate::model::classes::Pending>,
    /// R8.25: The Seer's peek, visible to The Seer for the event that shows it only.
    pub(crate) peek: Option<(u8, CardId)>,
    /// R10.6.5: the answer given to a sequential reaction prompt at a table that holds its
    /// windows (`settings.hold_windows`), kept until the server closes the prompt.
    pub(crate) held: Option<(u8, crate::model::command::Answer)>,
}

impl State {
    /// An empty state, before the creation event.
    pub fn new() -> Self {
        State::default()
    }

    /// Number of events folded into this state (its stream version).
    pub fn version(&self) -> u64 {
        self.version
    }

    /// True once the game has ended (R7.7).
    pub fn is_finished(&self) -> bool {
        self.result.is_some()
    }

    /// The result, once the game has ended.
    pub fn result(&self) -> Option<&GameResult> {
        self.result.as_ref()
    }

    /// Number of seats (0 before creation).
    pub fn players(&self) -> usize {
        self.players.len()
    }

    /// The current round (R7.9.1); public information.
    pub fn round(&self) -> u16 {
        self.turn.round
    }

    /// The settings recorded at creation.
    pub fn settings(&self) -> Option<&Settings> {
        self.settings.as_ref()
    }

    /// The ruleset recorded at creation.
    pub fn ruleset(&self) -> Option<&RulesetId> {
        self.ruleset.as_ref()
    }

    /// R10.1.3: the rules this game decides and folds under.
    pub fn rules(&self) -> crate::model::edition::Rules {
        self.rules.unwrap_or_default()
    }

    pub(crate) fn settings_ref(&self) -> &Settings {
        self.settings.as_ref().expect("game created")
    }

    pub(crate) fn face(&self, c: CardId) -> Face {
        self.pool[c.0 as usize].face
    }

    pub(crate) fn n(&self) -> u8 {
        self.players.len() as u8
    }

    /// R10.10: whether `seat` is Lit and has not asked to concede (a concession may still be
    /// sent for it). The server's abandonment rule (R10.7.4) reads this.
    pub fn may_concede(&self, seat: u8) -> bool {
        self.is_lit(seat) && !self.conceding.contains(&seat)
    }

    /// R0.3: whether `seat` is a seat of the table and not eliminated (public information).
    pub fn is_lit(&self, seat: u8) -> bool {
        self.players.get(seat as usize).is_some_and(|p| p.lit)
    }

    pub(crate) fn lit_count(&self) -> usize {
        self.players.iter().filter(|p| p.lit).count()
    }

    /// R0.4: the nearest Lit player clockwise from `seat` (excluding `seat`), if any.
    pub(crate) fn left_of(&self, seat: u8) -> Option<u8> {
        let n = self.n();
        (1..n).map(|d| (seat + d) % n).find(|&s| self.is_lit(s))
    }

    /// R0.4: the nearest Lit player counter-clockwise from `seat` (excluding `seat`), if any.
    pub(crate) fn right_of(&self, seat: u8) -> Option<u8> {
        let n = self.n();
        (1..n).map(|d| (seat + n - d) % n).find(|&s| self.is_lit(s))
    }

    /// R0.4: the distinct neighbours of `seat`, left first.
    pub(crate) fn neighbours(&self, seat: u8) -> Vec<u8> {
        let mut v = Vec::with_capacity(2);
        if let Some(l) = self.left_of(seat) {
            v.push(l);
        }
        if let Some(r) = self.right_of(seat)
            && !v.contains(&r)
        {
            v.push(r);
        }
        v
    }

    pub(crate) fn is_neighbour(&self, seat: u8, other: u8) -> bool {
        other != seat && (self.left_of(seat) == Some(other) || self.right_of(seat) == Some(other))
    }

    /// Lit players other than `seat`, clockwise from `seat`'s left (R10.12 player order).
    pub(crate) fn others_clockwise(&self, seat: u8) -> Vec<u8> {
        let n = self.n();
        (1..n).map(|d| (seat + d) % n).filter(|&s| self.is_lit(s)).collect()
    }

    /// R3.4.6: the number of ghosts in a Shadow (Walls are kept apart and never count).
    pub(crate) fn ghost_count(&self, seat: u8) -> usize {
        self.players[seat as usize].shadow.len()
    }

    /// R7.3.2: Possessed when at least `threshold` ghosts share an effective suit (Jokers never count).
    pub(crate) fn is_possessed(&self, seat: u8, threshold: usize) -> bool {
        let mut counts = [0usize; 4];
        for g in &self.players[seat as usize].shadow {
            if let Some(s) = g.suit {
                counts[(4 - s.tier()) as usize] += 1;
            }
        }
        counts.iter().any(|&c| c >= threshold)
    }

    /// The action in flight, if any.
    pub(crate) fn flow(&self) -> Option<&ActionFlow> {
        match &self.step {
            Step::Action(f) => Some(f),
            _ => None,
        }
    }

    pub(crate) fn flow_mut(&mut self) -> Option<&mut ActionFlow> {
        match &mut self.step {
            Step::Action(f) => Some(f),
            _ => None,
        }
    }
}
