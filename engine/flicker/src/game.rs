//! *The Final Flicker* as a [`flicker_game::Game`]: the contract the platform uses, delegating
//! to the rule modules ([`crate::decide`], [`crate::evolve`], [`crate::prompt`],
//! [`crate::window`], [`crate::view`], [`crate::redact`], [`crate::position`]).

use crate::command::{Answer, Command};
use crate::event::{EVENT_SCHEMA_VERSION, EndReason, Event};
use crate::prompt::{Prompt, PromptKind};
use crate::settings::{CURRENT_RULESET, CURRENT_RULESET_VERSION, Settings};
use crate::state::State;
use crate::window::SimultaneousWindow;
use flicker_game::{
    DecisionPoint, EventFacts, Game, Outcome, PromptClock, PromptInfo, Ruleset, SettingsRefusal, TurnMark, Viewer,
    WindowPhase,
};
use rand::Rng;

/// *The Final Flicker*, ruleset `current` (RULES.md): 2 to 64 seats (R0.2).
#[derive(Debug, Clone, Copy, Default)]
pub struct FinalFlicker;

/// The stable snake_case name of an end reason (as serialised).
fn reason_name(r: EndReason) -> &'static str {
    match r {
        EndReason::LastLit => "last_lit",
        EndReason::Guttered => "guttered",
        EndReason::Witnessed => "witnessed",
    }
}

impl Game for FinalFlicker {
    type Settings = Settings;
    type State = State;
    type Command = Command;
    type Answer = Answer;
    type Event = Event;
    type Prompt = Prompt;
    type PromptId = crate::handle::PromptId;
    type View = crate::view::View;
    type ViewEvent = crate::redact::ViewEvent;
    type Error = crate::error::RuleError;

    const GAME_ID: &'static str = crate::replay::GAME_ID;
    const EVENT_SCHEMA_VERSION: u32 = EVENT_SCHEMA_VERSION;
    const UPCASTERS: &'static [flicker_game::Upcaster] = crate::model::upcast::UPCASTERS;
    const MIN_SEATS: u8 = 2;
    const MAX_SEATS: u8 = crate::pool::MAX_PLAYERS as u8;

    fn current_ruleset() -> Ruleset {
        Ruleset { id: CURRENT_RULESET.to_string(), version: CURRENT_RULESET_VERSION }
    }
    fn default_settings(seats: u8) -> Settings {
        Settings::new(seats)
    }
    fn seats(settings: &Settings) -> u8 {
        settings.players
    }
    /// R0.2, R9.1.2, R10.11: see [`crate::decide::validate`].
    fn validate(settings: &Settings) -> Result<(), Self::Error> {
        crate::decide::validate(settings)
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

    fn set_hold_windows(settings: &mut Settings, hold: bool) {
        settings.hold_windows = hold;
    }

    fn create<R: Rng + ?Sized>(settings: &Settings, rng: &mut R) -> Result<Vec<Event>, Self::Error> {
        crate::decide::create(settings, rng)
    }
    /// R10.13: see [`crate::position::create_from_position`] for the notation.
    fn create_from_position<R: Rng + ?Sized>(
        settings: &Settings,
        position: &str,
        rng: &mut R,
    ) -> Result<Vec<Event>, Self::Error> {
        crate::position::create_from_position(settings, position, rng)
    }
    fn decide<R: Rng + ?Sized>(state: &State, command: &Command, rng: &mut R) -> Result<Vec<Event>, Self::Error> {
        crate::decide::decide(state, command, rng)
    }
    fn evolve(state: State, event: &Event) -> State {
        crate::evolve::evolve(state, event)
    }
    fn apply(state: &mut State, event: &Event) {
        crate::evolve::apply(state, event)
    }

    fn version(state: &State) -> u64 {
        state.version()
    }
    fn players(state: &State) -> u8 {
        state.players() as u8
    }
    fn settings(state: &State) -> Option<&Settings> {
        state.settings()
    }
    fn ruleset(state: &State) -> Option<Ruleset> {
        state.ruleset().map(|r| Ruleset { id: r.id.clone(), version: r.version })
    }

    fn prompts(state: &State) -> Vec<Prompt> {
        crate::prompt::prompts(state)
    }
    fn prompt_for(state: &State, seat: u8) -> Option<Prompt> {
        crate::prompt::prompt_for(state, seat)
    }
    /// R10.7.2: rows 6-14 of the catalogue run on the reaction clock; a simultaneous Salt
    /// prompt already answered (`current` set) awaits no answer (R10.6.6).
    fn prompt_info(prompt: &Prompt) -> PromptInfo {
        PromptInfo {
            seat: prompt.seat,
            clock: if prompt.kind.is_reaction() { PromptClock::Reaction } else { PromptClock::Turn },
            random_default: prompt.random_default,
            awaits_answer: !matches!(prompt.kind, PromptKind::Salt { current: Some(_), .. }),
        }
    }
    fn default_answer(prompt: &Prompt) -> Answer {
        prompt.default.clone()
    }
    /// R6.5.4: a Salt or BOO! Salt prompt asked of a seat that holds no 5 (every eligible
    /// player is asked, R6.5.4) can only be passed; not a confirm (R10.6.6) and not one already
    /// answered.
    fn auto_pass(prompt: &Prompt) -> Option<Answer> {
        match &prompt.kind {
            PromptKind::Salt { fives, confirm: false, current: None, .. } if fives.is_empty() => Some(Answer::Pass),
            _ => None,
        }
    }
    fn answer_command(prompt: &Prompt, answer: Answer) -> Command {
        Command::Answer { seat: prompt.seat, prompt: Some(prompt.id), answer }
    }
    fn seat_answer(seat: u8, prompt: crate::handle::PromptId, answer: Answer) -> Command {
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
    fn in_game(state: &State, seat: u8) -> bool {
        state.is_lit(seat)
    }
    fn may_concede(state: &State, seat: u8) -> bool {
        state.may_concede(seat)
    }
    fn decision_point(state: &State) -> DecisionPoint {
        DecisionPoint {
            window: crate::window::simultaneous_window(state).map(|w| match w {
                SimultaneousWindow::Answering => WindowPhase::Answering,
                SimultaneousWindow::HeldOpen => WindowPhase::HeldOpen,
            }),
            held_answer: crate::window::held_answer(state),
            hold_windows: state.settings().is_some_and(|s| s.hold_windows),
        }
    }
    /// R10.7.4: a Ritual that ends right after its seat's own time-out mark timed out; an
    /// action declared by the seat restarts its count.
    fn event_facts(previous: Option<&Event>, event: &Event) -> EventFacts {
        let turn = match event {
            Event::RitualEnded { seat, .. } => Some(TurnMark::Ended {
                seat: *seat,
                timed_out: matches!(previous, Some(Event::TimedOut { seats }) if seats == &[*seat]),
            }),
            Event::ActionDeclared { actor, .. } => Some(TurnMark::Acted { seat: *actor }),
            _ => None,
        };
        EventFacts {
            holds_answer: matches!(event, Event::AnswerHeld { .. }),
            closes_point: matches!(event, Event::AnswersClosed | Event::TimedOut { .. }),
            turn,
            eliminates: matches!(event, Event::Eliminated { .. }),
        }
    }

    fn view(state: &State, viewer: Viewer) -> Self::View {
        crate::view::view(state, viewer)
    }
    fn redact(before: &State, event: &Event, after: &State, viewer: Viewer) -> Option<Self::ViewEvent> {
        crate::redact::redact(before, event, after, viewer)
    }

    /// R7.7.3 placings, R9.5 the circle's Last Lit as the advancing seats.
    fn outcome(state: &State) -> Option<Outcome> {
        state.result().map(|r| Outcome {
            winner: r.winner,
            placings: r.placings.clone(),
            advancing: r.last_lit.clone(),
            reason: reason_name(r.reason),
        })
    }
    fn is_finished(state: &State) -> bool {
        state.is_finished()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flicker_game::kit;
    use rand::SeedableRng;
    use rand::rngs::ChaCha8Rng;

    /// The contract agrees with the rule modules: the default bot plays 2-8 seats, with and
    /// without classes, to the end; fold == state and replay == live (views and redacted
    /// streams of every viewer) hold.
    #[test]
    fn default_bot_games_keep_the_contract() {
        for (seats, classes) in [(2u8, false), (3, true), (5, false), (8, true)] {
            let mut s = Settings::new(seats);
            s.classes = classes;
            let mut rng = ChaCha8Rng::seed_from_u64(seats as u64);
            let mut bot = ChaCha8Rng::seed_from_u64(7);
            let p =
                kit::play::<FinalFlicker, _, _, _>(&s, &mut [flicker_game::DefaultBot], &mut rng, &mut bot, 100_000)
                    .expect("a finished game");
            assert!(FinalFlicker::outcome(&p.state).is_some());
            kit::check_fold::<FinalFlicker>(&p.events, &p.state).unwrap();
            let viewers = Viewer::all(seats);
            let views: Vec<_> = viewers.iter().map(|&v| (v, FinalFlicker::view(&p.state, v))).collect();
            let streams: Vec<_> =
                viewers.iter().map(|&v| (v, kit::redacted_stream::<FinalFlicker>(&p.events, v))).collect();
            kit::check_replay::<FinalFlicker>(&p.events, &p.state, &views, &streams).unwrap();
        }
    }

    /// R10.11, R10.6.5: a client's settings object becomes the settings of a table of the given
    /// seats; the seat count and the held windows are the platform's, unknown fields are told
    /// apart from other refusals.
    #[test]
    fn r10_11_settings_from_a_client() {
        use serde_json::json;
        let s = FinalFlicker::settings_from_client(5, None).unwrap();
        assert_eq!(s, Settings::new(5));
        let s = FinalFlicker::settings_from_client(3, Some(json!({"classes": true}))).unwrap();
        assert!(s.classes && s.players == 3);
        let refused = |v| FinalFlicker::settings_from_client(3, Some(v)).unwrap_err();
        assert!(matches!(refused(json!({"players": 4})), SettingsRefusal::Invalid(_)));
        assert!(matches!(refused(json!({"hold_windows": true})), SettingsRefusal::Invalid(m) if m.contains("R10.6.5")));
        assert!(matches!(refused(json!({"colour": "red"})), SettingsRefusal::UnknownField(_)));
        assert!(matches!(refused(json!([1, 2])), SettingsRefusal::Invalid(_)));
        assert!(matches!(refused(json!({"classes": "yes"})), SettingsRefusal::Invalid(_)));
    }
}
