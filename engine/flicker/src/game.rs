//! The generic decider contract shared by every game the platform hosts (this game's `current`
//! ruleset now; its `classic-1.0` ruleset and *Let's Call the Exorcist* later). The store and
//! the API are written against this trait only.

use rand::Rng;

/// A game as a decider: commands in, events out, state as the fold of events, and per-viewer
/// projections as the only ways out.
pub trait Decider {
    /// Settings recorded at creation.
    type Settings;
    /// The state: the fold of the events.
    type State: Default + Clone;
    /// What players and the server send.
    type Command;
    /// The facts appended to the stream.
    type Event: Clone;
    /// An open prompt.
    type Prompt;
    /// Who is looking.
    type Viewer: Copy;
    /// A projection of the state.
    type View;
    /// A projection of one event.
    type ViewEvent;
    /// A refusal.
    type Error;

    /// A stable id of the game (`the-final-flicker`).
    const GAME_ID: &'static str;

    /// The creation events of a new game.
    fn create<R: Rng + ?Sized>(settings: &Self::Settings, rng: &mut R) -> Result<Vec<Self::Event>, Self::Error>;
    /// The events a command causes; a refusal changes nothing.
    fn decide<R: Rng + ?Sized>(
        state: &Self::State,
        command: &Self::Command,
        rng: &mut R,
    ) -> Result<Vec<Self::Event>, Self::Error>;
    /// Folds one event.
    fn evolve(state: Self::State, event: &Self::Event) -> Self::State;
    /// The open decision point.
    fn prompts(state: &Self::State) -> Vec<Self::Prompt>;
    /// The state as `viewer` may see it.
    fn view(state: &Self::State, viewer: Self::Viewer) -> Self::View;
    /// An event as `viewer` may see it (`None`: hidden from that viewer).
    fn redact(
        before: &Self::State,
        event: &Self::Event,
        after: &Self::State,
        viewer: Self::Viewer,
    ) -> Option<Self::ViewEvent>;
    /// True once the game has ended.
    fn is_finished(state: &Self::State) -> bool;
}

/// *The Final Flicker*, ruleset `current`.
#[derive(Debug, Clone, Copy, Default)]
pub struct FinalFlicker;

impl Decider for FinalFlicker {
    type Settings = crate::settings::Settings;
    type State = crate::state::State;
    type Command = crate::command::Command;
    type Event = crate::event::Event;
    type Prompt = crate::prompt::Prompt;
    type Viewer = crate::view::Viewer;
    type View = crate::view::View;
    type ViewEvent = crate::redact::ViewEvent;
    type Error = crate::error::RuleError;

    const GAME_ID: &'static str = crate::replay::GAME_ID;

    fn create<R: Rng + ?Sized>(settings: &Self::Settings, rng: &mut R) -> Result<Vec<Self::Event>, Self::Error> {
        crate::decide::create(settings, rng)
    }
    fn decide<R: Rng + ?Sized>(
        state: &Self::State,
        command: &Self::Command,
        rng: &mut R,
    ) -> Result<Vec<Self::Event>, Self::Error> {
        crate::decide::decide(state, command, rng)
    }
    fn evolve(state: Self::State, event: &Self::Event) -> Self::State {
        crate::evolve::evolve(state, event)
    }
    fn prompts(state: &Self::State) -> Vec<Self::Prompt> {
        crate::prompt::prompts(state)
    }
    fn view(state: &Self::State, viewer: Self::Viewer) -> Self::View {
        crate::view::view(state, viewer)
    }
    fn redact(
        before: &Self::State,
        event: &Self::Event,
        after: &Self::State,
        viewer: Self::Viewer,
    ) -> Option<Self::ViewEvent> {
        crate::redact::redact(before, event, after, viewer)
    }
    fn is_finished(state: &Self::State) -> bool {
        state.is_finished()
    }
}
