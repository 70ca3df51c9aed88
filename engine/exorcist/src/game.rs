//! *Let's Call the Exorcist* as a [`flicker_game::Game`]: the contract the platform uses,
//! delegating to the rule and projection modules.

use crate::model::command::{Answer, Command, PromptId};
use crate::model::event::{EVENT_SCHEMA_VERSION, EndReason, Event};
use crate::model::settings::Settings;
use crate::model::state::State;
use crate::projection::leaks::LeakChecker;
use crate::projection::redact::ViewEvent;
use crate::projection::view::View;
use crate::rules::flow::{Next, next};
use crate::rules::prompt::Prompt;
use flicker_game::{
    DecisionPoint, ErrorKind, EventFacts, Game, Outcome, PromptClock, PromptInfo, RuleError, Ruleset, SettingsRefusal,
    TurnMark, Viewer, WindowPhase, kit,
};
use rand::Rng;

/// *Let's Call the Exorcist*, ruleset `exorcist` version 1 (`RULES-exorcist.md`): 4 to 8 seats
/// (X2.1).
#[derive(Debug, Clone, Copy, Default)]
pub struct Exorcist;

/// The stable snake_case name of an end reason.
fn reason_name(r: EndReason) -> &'static str {
    match r {
        EndReason::Points => "points",
        EndReason::TieGame => "tie_game",
        EndReason::TieDrawn => "tie_drawn",
        EndReason::Conceded => "conceded",
    }
}

/// R7.7.3-like placings: the winner first; then by points (equal points share a placing);
/// conceded seats after the others.
pub fn placings(state: &State, winner: Option<u8>) -> Vec<u8> {
    let n = state.players();
    let key = |p: u8| (Some(p) == winner, !state.conceded[p as usize], state.points[p as usize]);
    (0..n).map(|p| 1 + (0..n).filter(|&q| key(q) > key(p)).count() as u8).collect()
}

impl Game for Exorcist {
    type Settings = Settings;
    type State = State;
    type Command = Command;
    type Answer = Answer;
    type Event = Event;
    type Prompt = Prompt;
    type PromptId = PromptId;
    type View = View;
    type ViewEvent = ViewEvent;
    type Error = RuleError;

    const GAME_ID: &'static str = "lets-call-the-exorcist";
    const EVENT_SCHEMA_VERSION: u32 = EVENT_SCHEMA_VERSION;
    const MIN_SEATS: u8 = 4;
    const MAX_SEATS: u8 = 8;

    fn current_ruleset() -> Ruleset {
        crate::rules::decide::current_ruleset()
    }
    fn default_settings(seats: u8) -> Settings {
        Settings::new(seats)
    }
    fn seats(settings: &Settings) -> u8 {
        settings.players
    }
    fn settings_from_client(seats: u8, extra: Option<serde_json::Value>) -> Result<Settings, SettingsRefusal> {
        let mut v = extra.unwrap_or_else(|| serde_json::json!({}));
        let obj = v.as_object_mut().ok_or_else(|| SettingsRefusal::Invalid("settings must be an object".into()))?;
        if obj.contains_key("players") {
            return Err(SettingsRefusal::Invalid("give the seat count as 'players' at the top level".into()));
        }
        if obj.contains_key("hold_windows") {
            return Err(SettingsRefusal::Invalid("hold_windows is set by the server (R10.6.5), not by clients".into()));
        }
        obj.insert("players".into(), seats.into());
        serde_json::from_value(v).map_err(|e| {
            if e.to_string().contains("unknown field") {
                SettingsRefusal::UnknownField(e.to_string())
            } else {
                SettingsRefusal::Invalid(e.to_string())
            }
        })
    }
    /// X2.1, X3.4, X4.5.
    fn validate(settings: &Settings) -> Result<(), RuleError> {
        crate::rules::decide::validate(settings)
    }
    fn set_hold_windows(settings: &mut Settings, hold: bool) {
        settings.hold_windows = hold;
    }

    fn create<R: Rng + ?Sized>(settings: &Settings, rng: &mut R) -> Result<Vec<Event>, RuleError> {
        crate::rules::decide::create(settings, rng)
    }
    /// Practice positions are The Final Flicker's only (R10.13): refused.
    fn create_from_position<R: Rng + ?Sized>(
        _settings: &Settings,
        _position: &str,
        _rng: &mut R,
    ) -> Result<Vec<Event>, RuleError> {
        Err(RuleError::new(
            ErrorKind::BadSettings,
            "R10.13",
            "practice positions are not available for Let's Call the Exorcist",
        ))
    }
    fn decide<R: Rng + ?Sized>(state: &State, command: &Command, rng: &mut R) -> Result<Vec<Event>, RuleError> {
        crate::rules::decide::decide(state, command, rng)
    }
    fn evolve(state: State, event: &Event) -> State {
        crate::rules::evolve::evolve(state, event)
    }
    fn apply(state: &mut State, event: &Event) {
        crate::rules::evolve::apply(state, event)
    }

    fn version(state: &State) -> u64 {
        state.version
    }
    fn players(state: &State) -> u8 {
        state.players()
    }
    fn settings(state: &State) -> Option<&Settings> {
        state.settings.as_ref()
    }
    fn ruleset(state: &State) -> Option<Ruleset> {
        state.ruleset.clone()
    }

    fn prompts(state: &State) -> Vec<Prompt> {
        crate::rules::prompt::prompts(state)
    }
    fn prompt_for(state: &State, seat: u8) -> Option<Prompt> {
        crate::rules::prompt::prompt_for(state, seat)
    }
    /// X12: every prompt runs on the turn clock except the mini-game's simultaneous picks.
    fn prompt_info(prompt: &Prompt) -> PromptInfo {
        use crate::rules::prompt::PromptKind;
        PromptInfo {
            seat: prompt.seat,
            clock: if matches!(prompt.kind, PromptKind::TiePick { .. }) {
                PromptClock::Reaction
            } else {
                PromptClock::Turn
            },
            random_default: prompt.random_default,
            awaits_answer: true,
        }
    }
    fn default_answer(prompt: &Prompt) -> Answer {
        prompt.default
    }
    fn answer_command(prompt: &Prompt, answer: Answer) -> Command {
        Command::Answer { seat: prompt.seat, prompt: Some(prompt.id), answer }
    }
    fn seat_answer(seat: u8, prompt: PromptId, answer: Answer) -> Command {
        Command::Answer { seat, prompt: Some(prompt), answer }
    }
    fn timeout_command(_state: &State) -> Command {
        Command::Timeout
    }
    fn close_window_command(_state: &State) -> Command {
        Command::CloseWindow
    }
    fn concede_command(seat: u8) -> Command {
        Command::Concede { seat }
    }
    /// A conceded seat stays at the table (its tile still scores for its team) but is no
    /// longer in the game.
    fn in_game(state: &State, seat: u8) -> bool {
        (seat as usize) < state.conceded.len() && !state.conceded[seat as usize]
    }
    fn may_concede(state: &State, seat: u8) -> bool {
        crate::rules::decide::may_concede(state, seat)
    }
    /// R10.6.4-R10.6.6: the mini-game's picks are the only simultaneous window.
    fn decision_point(state: &State) -> DecisionPoint {
        let hold = state.settings.as_ref().is_some_and(|s| s.hold_windows);
        let window = match next(state) {
            Next::TiePick { .. } => Some(WindowPhase::Answering),
            Next::TieReveal if hold => Some(WindowPhase::HeldOpen),
            _ => None,
        };
        DecisionPoint { window, held_answer: None, hold_windows: hold }
    }
    /// R10.7.4: a Seeker's selection ends its turn decision (timed out when right after its
    /// own time-out); every other answer by hand is an action.
    fn event_facts(previous: Option<&Event>, event: &Event) -> EventFacts {
        let timed_out = |seat: u8| matches!(previous, Some(Event::TimedOut { seats }) if seats == &[seat]);
        let turn = match event {
            Event::CardRevealed { seeker, own: false, .. } => {
                Some(TurnMark::Ended { seat: *seeker, timed_out: timed_out(*seeker) })
            }
            Event::RolePeeked { peeker: seat, .. }
            | Event::PeekDeclined { seat, .. }
            | Event::CardPeeked { peeker: seat, .. }
            | Event::SeekerNamed { by: seat, .. }
                if !timed_out(*seat) =>
            {
                Some(TurnMark::Acted { seat: *seat })
            }
            _ => None,
        };
        EventFacts {
            holds_answer: matches!(event, Event::TiePicked { .. }),
            closes_point: matches!(event, Event::TieRevealed | Event::TimedOut { .. }),
            turn,
            eliminates: false,
        }
    }

    fn view(state: &State, viewer: Viewer) -> View {
        crate::projection::view::view(state, viewer)
    }
    fn redact(before: &State, event: &Event, after: &State, viewer: Viewer) -> Option<ViewEvent> {
        crate::projection::redact::redact(before, event, after, viewer)
    }

    /// X7.6: the winner and placings by points; the winner advances.
    fn outcome(state: &State) -> Option<Outcome> {
        state.result.as_ref().map(|r| Outcome {
            winner: r.winner,
            placings: placings(state, r.winner),
            advancing: r.winner.into_iter().collect(),
            reason: reason_name(r.reason),
        })
    }
    fn is_finished(state: &State) -> bool {
        state.is_finished()
    }
}

/// The leak checker as the generic kit's hook (X11.1, R10.8): in this module, so that the
/// projection never names the game.
impl kit::LeakCheck<Exorcist> for LeakChecker {
    fn view(&mut self, state: &State, viewer: Viewer, view: &View) -> Result<(), String> {
        self.checks += 1;
        let json = serde_json::to_value(view).map_err(|e| e.to_string())?;
        if matches!(viewer, Viewer::Spectator | Viewer::Commentary) && !json["prompt"].is_null() {
            return Err("a prompt shown to a spectator or the commentary view".into());
        }
        self.check_json(&json, state, viewer, false)
    }

    fn event(
        &mut self,
        before: &State,
        event: &Event,
        after: &State,
        viewer: Viewer,
        shown: Option<&ViewEvent>,
    ) -> Result<(), String> {
        if after.version > self.seen_events {
            self.learn(before, event, after);
        }
        self.checks += 1;
        let Some(shown) = shown else { return Ok(()) };
        if before.is_finished() {
            return Ok(());
        }
        let json = serde_json::to_value(shown).map_err(|e| e.to_string())?;
        self.check_json(&json, after, viewer, matches!(event, Event::TieRevealed))
    }
}
