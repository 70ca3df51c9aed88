//! # flicker-game
//!
//! The Game contract every game on the Flicker platform implements (*The Final Flicker* now;
//! its `classic-1.0` ruleset and *Let's Call the Exorcist* later), and the generic test kit
//! every game's tests use. The platform (tables, clocks, windows, bots, gatherings, streams)
//! talks to a game only through [`Game`].
//!
//! A game is a pure decider (R10.1): `decide(&state, &command, rng) -> events`,
//! `evolve(state, &event) -> state`, and per-viewer projections ([`Game::view`],
//! [`Game::redact`]) as the only ways out of the state. No I/O, no clock, no global random
//! generator: the caller passes the generator and every random outcome is stored in an event.
//!
//! | item | holds |
//! |---|---|
//! | [`Game`] | the contract: ids, settings, seats, create, decide, evolve, prompts, windows, views, outcome |
//! | [`Viewer`] | who is looking (R10.8) |
//! | [`PromptInfo`], [`PromptClock`] | what the platform needs to know of an open prompt (R10.4, R10.5, R10.7) |
//! | [`DecisionPoint`], [`WindowPhase`] | the simultaneous-window and held-answer facts of the driver's window timing (R10.6.4-R10.6.6) |
//! | [`EventFacts`], [`TurnMark`] | what the clocks and the abandonment rule read from an event (R10.7.3, R10.7.4) |
//! | [`Outcome`], [`Ruleset`] | placings of a finished game (R7.7.3, R9.5); the ruleset recorded in a game (R10.1.3) |
//! | [`RuleError`], [`ErrorKind`] | a refused command: the rule broken and the kind of refusal (R10.1.2) |
//! | [`Bot`] | a bot: answers a prompt from its own seat's view only |
//! | [`upcast`] | reading events stored under an older event schema: [`Upcaster`], [`upcast::upcast`] (R10.1.3) |
//! | [`replay`] | the platform's event types a game's replay reader skips in the signed export |
//! | [`kit`] | the generic checks: fold == state, replay == live, per-viewer leak-check hooks, playouts |

#![warn(missing_docs)]

pub mod kit;
mod refusal;
pub mod replay;
mod settings;
pub mod upcast;
mod viewer;

pub use refusal::{ErrorKind, RuleError};
pub use settings::SettingsRefusal;
pub use upcast::{UpcastError, Upcaster};
pub use viewer::Viewer;

use rand::Rng;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::fmt::Debug;

/// The ruleset a game is played under, as recorded in the game (R10.1.3): games keep the ruleset
/// id and version they were created with, so older games keep replaying when the rules change.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Ruleset {
    /// The ruleset's id within its game, such as `current` or `classic-1.0`.
    pub id: String,
    /// Version of the implementation of that ruleset; bumped when a rule changes.
    pub version: u32,
}

/// R10.7.2: which clock an open prompt runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PromptClock {
    /// A turn decision (the long clock, `decision_secs`).
    Turn,
    /// A reaction (the short clock, `reaction_secs`): a reaction prompt or a simultaneous
    /// window.
    Reaction,
}

/// What the platform needs to know of one open prompt (R10.4.2, R10.5, R10.7.1), whatever the
/// game. The prompt itself (the game's [`Game::Prompt`]) carries the legal answers as
/// constraints, for players and bots.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptInfo {
    /// The seat that must answer (0-based).
    pub seat: u8,
    /// R10.7.2: the clock it runs on.
    pub clock: PromptClock,
    /// R10.7.1: on time-out the game applies a legal answer drawn at random (recorded in the
    /// time-out's events) instead of the prompt's default, because a fixed default would name
    /// hidden information.
    pub random_default: bool,
    /// False when the seat has already answered inside a simultaneous window and the prompt
    /// stays open only so that it may change its answer (R10.6.6): a bot does not answer again.
    pub awaits_answer: bool,
}

/// R10.6.5, R10.6.6: the phase of a simultaneous window, for the platform that runs its
/// deadline and minimum open time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WindowPhase {
    /// Answers are still expected.
    Answering,
    /// Every answer is in; the window waits for the platform's close command
    /// ([`Game::close_window_command`]) because the table holds its windows.
    HeldOpen,
}

/// The facts of the open decision point that the driver's window timing needs (R10.6.4-R10.6.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DecisionPoint {
    /// The phase of the simultaneous window open now; `None` when no simultaneous window is
    /// taking answers.
    pub window: Option<WindowPhase>,
    /// R10.6.5: the seat whose answer to a sequential reaction prompt is held until the
    /// platform closes that prompt (close command, or the time-out at its deadline). Its prompt
    /// is no longer open; what others see is unchanged until the close.
    pub held_answer: Option<u8>,
    /// R10.6.5: the game's settings hold reaction decision points open until the platform
    /// closes them (a public close time).
    pub hold_windows: bool,
}

impl DecisionPoint {
    /// R10.7.2: the point is a reaction one (a simultaneous window or a held answer); an open
    /// reaction prompt is told by its [`PromptInfo::clock`].
    pub fn is_reaction_window(&self) -> bool {
        self.window.is_some() || self.held_answer.is_some()
    }

    /// R10.6.5: the platform must send [`Game::close_window_command`] at the deadline (all
    /// answers in and held, or an answer held).
    pub fn waits_for_close(&self) -> bool {
        self.window == Some(WindowPhase::HeldOpen) || self.held_answer.is_some()
    }
}

/// R10.7.4: what an event says about a seat's turn decisions, for the abandonment count (a seat
/// whose turns time out too often in a row concedes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TurnMark {
    /// The seat's turn decision ended; `timed_out` when it ended right after the seat's own
    /// time-out (the count goes up) rather than by hand (the count restarts).
    Ended {
        /// The seat.
        seat: u8,
        /// It ended by time-out.
        timed_out: bool,
    },
    /// The seat acted by hand during its turn (the count restarts).
    Acted {
        /// The seat.
        seat: u8,
    },
}

/// What the platform's clocks read from one event (R10.7.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EventFacts {
    /// The event only holds an answer (R10.6.5): the decision point does not change.
    pub holds_answer: bool,
    /// The event closes the open decision point (a window closed, a time-out applied).
    pub closes_point: bool,
    /// R10.7.4: the abandonment mark, if any.
    pub turn: Option<TurnMark>,
    /// The event takes a seat out of the game (an elimination, R7): replay viewers mark it so
    /// that people can jump to it.
    pub eliminates: bool,
}

/// The result of a finished game (R7.7, R9.5).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Outcome {
    /// The winning seat, if any (a game may end without a winner).
    pub winner: Option<u8>,
    /// Final placing per seat, indexed by seat (1 = first; R7.7.3).
    pub placings: Vec<u8>,
    /// R9.5: the seats that advance from this table in a gathering (the circle's Last Lit).
    pub advancing: Vec<u8>,
    /// Why it ended, as the game's stable snake_case name (`last_lit`, `guttered`, ...).
    pub reason: &'static str,
}

/// A game the platform hosts: a pure decider with per-viewer projections.
///
/// Every item is an associated function of the type (no `self`): a game carries no runtime
/// state besides its [`Game::State`], the fold of its events. Seats are `u8`, 0-based.
///
/// Invariants every implementation keeps (checked by [`kit`]):
/// - `fold(events) == state`: the state is the fold of its events, and [`Game::apply`] agrees
///   with [`Game::evolve`];
/// - a refused command changes nothing (`decide` returns `Err` and no events);
/// - `view` and `redact` are the only ways out of the state; what a viewer may not see is
///   absent from its projections (R10.8).
pub trait Game: 'static {
    /// Settings recorded at creation (R10.11), as sent by organisers.
    type Settings: Clone + Debug + PartialEq + Serialize + DeserializeOwned + Send + Sync;
    /// The state: the fold of the events.
    type State: Default + Clone + Debug + Send + Sync;
    /// What players and the platform send.
    type Command: Clone + Debug + PartialEq + Serialize + DeserializeOwned + Send + Sync;
    /// A seat's answer to its open prompt.
    type Answer: Clone + Debug + PartialEq + Serialize + DeserializeOwned + Send + Sync;
    /// The facts appended to the stream. The platform stores each as JSON in the adjacently
    /// tagged form `{"type": "<snake_case name>", "payload": {...}}` (the type as the stored
    /// event's type, the payload as its body), so an event must serialise to that shape.
    type Event: Clone + Debug + PartialEq + Serialize + DeserializeOwned + Send + Sync;
    /// An open prompt: the seat, what is asked with its legal answers as constraints, the
    /// default answer.
    type Prompt: Clone + Debug + Serialize + Send + Sync;
    /// The id of an open prompt, shown with it; an answer names it so that a stale answer is
    /// refused (R10.4.2).
    type PromptId: Copy + Debug + PartialEq + Serialize + DeserializeOwned + Send + Sync;
    /// The state as one viewer may see it.
    type View: Clone + Debug + PartialEq + Serialize + Send + Sync;
    /// One event as one viewer may see it.
    type ViewEvent: Clone + Debug + PartialEq + Serialize + Send + Sync;
    /// A refused command or invalid settings; names the rule broken (an R-id) without revealing
    /// hidden information. The platform maps it to problem details through [`RuleError`].
    type Error: std::error::Error + Clone + Send + Sync + Into<RuleError> + 'static;

    /// A stable id of the game (`the-final-flicker`), recorded in replays.
    const GAME_ID: &'static str;
    /// The version of the event schema this implementation writes (stored with every event).
    /// Raised when the stored shape of an event changes, with an [`Upcaster`] per change.
    const EVENT_SCHEMA_VERSION: u32;
    /// R10.1.3: how events stored under an older event schema read today, oldest step first
    /// (none by default). Every read path applies them through [`Game::upcast`].
    const UPCASTERS: &'static [Upcaster] = &[];
    /// The fewest seats a table of this game may have.
    const MIN_SEATS: u8;
    /// The most seats a table of this game may have.
    const MAX_SEATS: u8;

    /// The ruleset new games are created under (R10.1.3).
    fn current_ruleset() -> Ruleset;
    /// The default settings of a table of `seats` seats (`MIN_SEATS..=MAX_SEATS`).
    fn default_settings(seats: u8) -> Self::Settings;
    /// The number of seats `settings` ask for.
    fn seats(settings: &Self::Settings) -> u8;
    /// R10.11: the settings of a new table of `seats` seats from a client's settings object
    /// `extra` (every field but the seat count; `None`: the defaults). Refuses what is not the
    /// game's settings, and the fields the platform sets itself (the seat count, R10.6.5's
    /// held windows); the rules are checked afterwards by [`Game::validate`].
    fn settings_from_client(seats: u8, extra: Option<serde_json::Value>) -> Result<Self::Settings, SettingsRefusal>;
    /// Checks settings before anything is stored; the error names the rule.
    fn validate(settings: &Self::Settings) -> Result<(), Self::Error>;
    /// R10.6.5: sets whether a table of these settings holds its reaction decision points open
    /// until the platform closes them (the platform decides it from the seats or the creator's
    /// minimum window; the game records it).
    fn set_hold_windows(settings: &mut Self::Settings, hold: bool);

    /// The creation events of a new game (deal included, drawn from `rng`).
    fn create<R: Rng + ?Sized>(settings: &Self::Settings, rng: &mut R) -> Result<Vec<Self::Event>, Self::Error>;
    /// The creation events of a game from a practice position (R10.13), in the game's own
    /// position notation; what the position leaves open is drawn from `rng`.
    fn create_from_position<R: Rng + ?Sized>(
        settings: &Self::Settings,
        position: &str,
        rng: &mut R,
    ) -> Result<Vec<Self::Event>, Self::Error>;
    /// The events a command causes (R10.1.2); a refusal changes nothing.
    fn decide<R: Rng + ?Sized>(
        state: &Self::State,
        command: &Self::Command,
        rng: &mut R,
    ) -> Result<Vec<Self::Event>, Self::Error>;
    /// R10.1.3: the payload of an event stored as `event_type` under event schema `schema`, as
    /// this build reads it (the [`Game::UPCASTERS`] from `schema` on applied; borrowed when none
    /// applies). Errors: a newer or invalid schema, or a payload an upcaster cannot read.
    fn upcast<'a>(
        event_type: &str,
        schema: i64,
        payload: &'a serde_json::Value,
    ) -> Result<std::borrow::Cow<'a, serde_json::Value>, UpcastError> {
        upcast::upcast(Self::UPCASTERS, Self::EVENT_SCHEMA_VERSION, event_type, schema, payload)
    }
    /// Folds one event (R10.1.1).
    fn evolve(state: Self::State, event: &Self::Event) -> Self::State;
    /// Folds one event in place; the same as [`Game::evolve`], possibly faster.
    fn apply(state: &mut Self::State, event: &Self::Event) {
        *state = Self::evolve(std::mem::take(state), event);
    }

    /// Number of events folded into `state` (its stream version).
    fn version(state: &Self::State) -> u64;
    /// Number of seats (0 before creation).
    fn players(state: &Self::State) -> u8;
    /// The settings recorded at creation (`None` before creation).
    fn settings(state: &Self::State) -> Option<&Self::Settings>;
    /// The ruleset recorded at creation (`None` before creation).
    fn ruleset(state: &Self::State) -> Option<Ruleset>;

    /// R10.4: every prompt of the open decision point (several only in a simultaneous window;
    /// none once the game is over).
    fn prompts(state: &Self::State) -> Vec<Self::Prompt>;
    /// R10.4: the prompt open for `seat`, if any.
    fn prompt_for(state: &Self::State, seat: u8) -> Option<Self::Prompt> {
        Self::prompts(state).into_iter().find(|p| Self::prompt_info(p).seat == seat)
    }
    /// The platform's facts of a prompt: who answers, its clock, how its time-out answers.
    fn prompt_info(prompt: &Self::Prompt) -> PromptInfo;
    /// R10.5: the prompt's default answer, a legal answer (the one its time-out applies unless
    /// [`PromptInfo::random_default`]; also a bot's fallback when its answer is refused).
    fn default_answer(prompt: &Self::Prompt) -> Self::Answer;
    /// The answer a player's auto-pass setting gives to `prompt` on their behalf, when the
    /// prompt is a reaction window in which the seat holds no legal reaction (a Salt window
    /// without a 5): the same answer a hand-given Pass would be. `None` (the default): the
    /// player answers by hand. The platform applies it only at tables that hold their windows,
    /// so that it cannot be told from a hand-given answer.
    fn auto_pass(_prompt: &Self::Prompt) -> Option<Self::Answer> {
        None
    }
    /// The command that sends `answer` from the prompt's seat to `prompt` (naming the prompt,
    /// so that a stale answer is refused).
    fn answer_command(prompt: &Self::Prompt, answer: Self::Answer) -> Self::Command;
    /// R10.4.2: the command by which `seat` answers the prompt it was shown as `prompt` (decide
    /// refuses it if that prompt is no longer open for the seat).
    fn seat_answer(seat: u8, prompt: Self::PromptId, answer: Self::Answer) -> Self::Command;
    /// R10.7.1: the command the platform sends when the deadline of the open decision point
    /// passes (the defaults of its unanswered prompts apply).
    fn timeout_command(state: &Self::State) -> Self::Command;
    /// R10.6.5: the command that closes the open window or held answer now.
    fn close_window_command(state: &Self::State) -> Self::Command;
    /// R10.10, R10.7.4: the command by which `seat` concedes (sent by the platform when a seat
    /// abandons).
    fn concede_command(seat: u8) -> Self::Command;
    /// R10.8: whether `seat` is still in the game (not eliminated); an eliminated seat sees
    /// what a spectator sees.
    fn in_game(state: &Self::State, seat: u8) -> bool;
    /// R10.10: whether `seat` may concede now (seated, still in the game, not already conceding).
    fn may_concede(state: &Self::State, seat: u8) -> bool;
    /// R10.6.4-R10.6.6: the window facts of the open decision point.
    fn decision_point(state: &Self::State) -> DecisionPoint;
    /// R10.7.3, R10.7.4: what the clocks read from `event`, the event before it being
    /// `previous` (`None` for the first event).
    fn event_facts(previous: Option<&Self::Event>, event: &Self::Event) -> EventFacts;

    /// R10.8: the state as `viewer` may see it.
    fn view(state: &Self::State, viewer: Viewer) -> Self::View;
    /// R10.8: `event` (folded from `before` to `after`) as `viewer` may see it (`None`: hidden
    /// from that viewer).
    fn redact(
        before: &Self::State,
        event: &Self::Event,
        after: &Self::State,
        viewer: Viewer,
    ) -> Option<Self::ViewEvent>;

    /// R7.7: the outcome once the game has ended; `None` while it runs.
    fn outcome(state: &Self::State) -> Option<Outcome>;
    /// True once the game has ended.
    fn is_finished(state: &Self::State) -> bool {
        Self::outcome(state).is_some()
    }
}

/// A bot: answers a prompt of its seat from what that seat may see only, never the state.
///
/// The caller passes the prompt (with its legal answers) and the seat's view
/// (`G::view(state, Viewer::Seat { seat })`); the answer must be legal for the prompt. Bots
/// draw from the generator they are given, so a seeded playout is reproducible.
pub trait Bot<G: Game> {
    /// A legal answer to `prompt`.
    fn answer<R: Rng + ?Sized>(&mut self, prompt: &G::Prompt, view: &G::View, rng: &mut R) -> G::Answer;
}

/// The bot that always answers a prompt's default (R10.5): legal by construction, for any game.
#[derive(Debug, Clone, Copy, Default)]
pub struct DefaultBot;

impl<G: Game> Bot<G> for DefaultBot {
    fn answer<R: Rng + ?Sized>(&mut self, prompt: &G::Prompt, _view: &G::View, _rng: &mut R) -> G::Answer {
        G::default_answer(prompt)
    }
}
