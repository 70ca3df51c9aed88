//! The generic test kit every game's tests use: given a [`Game`] and a way to produce games
//! (a recorded event list, or a playout by bots), check
//!
//! - fold == state: the state reached live equals the fold of its events ([`check_fold`]);
//! - replay == live: folding the recorded events again from nothing gives the same state and
//!   the same view for every viewer, and the same redacted stream per viewer ([`check_replay`]);
//! - per-viewer leaks: a [`LeakCheck`] hook sees every viewer's view after every event and
//!   every viewer's redaction of every event ([`check_leaks`]); the game's own leak checker
//!   plugs in there.
//!
//! [`play`] produces games: bots answer every open prompt through the contract only, and the
//! platform's close command ends held windows, as the server's driver does.
//!
//! Errors are messages for a failing test (`Err(String)` naming the event index).

use crate::{Bot, Game, Viewer};
use rand::Rng;
use std::fmt::Debug;

/// The fold of `events` from the empty state (R10.1.1).
pub fn fold<'a, G: Game>(events: impl IntoIterator<Item = &'a G::Event>) -> G::State {
    events.into_iter().fold(G::State::default(), |s, e| G::evolve(s, e))
}

/// fold == state: `state` equals the fold of `events` with [`Game::evolve`], and folding with
/// [`Game::apply`] gives the same.
pub fn check_fold<G: Game>(events: &[G::Event], state: &G::State) -> Result<(), String>
where
    G::State: PartialEq,
{
    let folded = fold::<G>(events);
    if &folded != state {
        return Err(format!("fold of {} events differs from the state:\n{folded:?}\nvs\n{state:?}", events.len()));
    }
    let mut applied = G::State::default();
    for e in events {
        G::apply(&mut applied, e);
    }
    if &applied != state {
        return Err("apply and evolve disagree".into());
    }
    Ok(())
}

/// Every redacted event of `events` as `viewer` sees it, in order (`None`: hidden).
pub fn redacted_stream<G: Game>(events: &[G::Event], viewer: Viewer) -> Vec<Option<G::ViewEvent>> {
    let mut state = G::State::default();
    let mut out = Vec::with_capacity(events.len());
    for e in events {
        let before = state.clone();
        G::apply(&mut state, e);
        out.push(G::redact(&before, e, &state, viewer));
    }
    out
}

/// replay == live: `live` (the state a live table reached) and `live_views` (what each viewer
/// was shown at the end, `(viewer, view)`) equal what a replay of `events` gives; `live_streams`
/// (each viewer's redacted events as sent live, may be empty) equal the replay's.
pub fn check_replay<G: Game>(
    events: &[G::Event],
    live: &G::State,
    live_views: &[(Viewer, G::View)],
    live_streams: &[(Viewer, Vec<Option<G::ViewEvent>>)],
) -> Result<(), String>
where
    G::State: PartialEq,
{
    let replayed = fold::<G>(events);
    if &replayed != live {
        return Err(format!("the replay of {} events reaches another state than the live table", events.len()));
    }
    for (viewer, view) in live_views {
        if &G::view(&replayed, *viewer) != view {
            return Err(format!("{viewer:?}: the replay's view differs from the live view"));
        }
    }
    for (viewer, stream) in live_streams {
        let again = redacted_stream::<G>(events, *viewer);
        if let Some(i) = (0..again.len().max(stream.len())).find(|&i| again.get(i) != stream.get(i)) {
            return Err(format!("{viewer:?}: redacted event {i} differs between replay and live"));
        }
    }
    Ok(())
}

/// A per-viewer leak check: called by [`check_leaks`] for every viewer after every event.
/// Both methods default to accepting; a game's leak checker overrides them.
pub trait LeakCheck<G: Game> {
    /// `view` is what `viewer` is shown of `state`: `Err` names what leaked.
    fn view(&mut self, state: &G::State, viewer: Viewer, view: &G::View) -> Result<(), String> {
        let _ = (state, viewer, view);
        Ok(())
    }
    /// `shown` is what `viewer` is shown of `event` (folded from `before` to `after`).
    fn event(
        &mut self,
        before: &G::State,
        event: &G::Event,
        after: &G::State,
        viewer: Viewer,
        shown: Option<&G::ViewEvent>,
    ) -> Result<(), String> {
        let _ = (before, event, after, viewer, shown);
        Ok(())
    }
}

/// Runs `check` over `events` for every viewer of [`Viewer::all`] (each seat, spectator,
/// commentary, everything): every redacted event, then every view after it. Returns the number
/// of checks made; `Err` names the event index and viewer.
pub fn check_leaks<G: Game, C: LeakCheck<G>>(events: &[G::Event], check: &mut C) -> Result<usize, String> {
    let mut state = G::State::default();
    let mut checks = 0;
    for (i, e) in events.iter().enumerate() {
        let before = state.clone();
        G::apply(&mut state, e);
        for viewer in Viewer::all(G::players(&state)) {
            let shown = G::redact(&before, e, &state, viewer);
            check
                .event(&before, e, &state, viewer, shown.as_ref())
                .map_err(|m| format!("event {i}, {viewer:?}: {m}"))?;
            let view = G::view(&state, viewer);
            check.view(&state, viewer, &view).map_err(|m| format!("after event {i}, {viewer:?}: {m}"))?;
            checks += 2;
        }
    }
    Ok(checks)
}

/// A game played by bots ([`play`]).
#[derive(Debug, Clone)]
pub struct Playout<G: Game> {
    /// Every event, in order.
    pub events: Vec<G::Event>,
    /// The final state (the live one: each event applied as it was decided).
    pub state: G::State,
    /// Commands sent.
    pub commands: u32,
}

/// Plays one game through the contract only: `bots[s % bots.len()]` answers seat `s` from its
/// own view; when every open prompt is answered and the point waits for a close
/// ([`crate::DecisionPoint::waits_for_close`]), the platform's close command is sent. `rng` is
/// the table's generator, `bot_rng` the bots'. A refused bot answer, a point with nobody to
/// answer or no end after `max_commands` commands is an `Err`.
pub fn play<G: Game, B: Bot<G>, R: Rng + ?Sized, S: Rng + ?Sized>(
    settings: &G::Settings,
    bots: &mut [B],
    rng: &mut R,
    bot_rng: &mut S,
    max_commands: u32,
) -> Result<Playout<G>, String>
where
    G::Command: Debug,
{
    assert!(!bots.is_empty(), "play needs at least one bot");
    let mut events = G::create(settings, rng).map_err(|e| format!("create: {e}"))?;
    let mut state = fold::<G>(&events);
    let mut commands = 0;
    while !G::is_finished(&state) {
        if commands >= max_commands {
            return Err(format!("no end after {max_commands} commands"));
        }
        let open = G::prompts(&state);
        let cmd = match open.iter().find(|p| G::prompt_info(p).awaits_answer) {
            Some(p) => {
                let seat = G::prompt_info(p).seat;
                let view = G::view(&state, Viewer::Seat { seat });
                let n = bots.len();
                let answer = bots[seat as usize % n].answer(p, &view, bot_rng);
                G::answer_command(p, answer)
            }
            None if !open.is_empty() || G::decision_point(&state).waits_for_close() => G::close_window_command(&state),
            None => return Err(format!("R10.4.1: no prompt open in a running game at version {}", G::version(&state))),
        };
        commands += 1;
        let new = G::decide(&state, &cmd, rng).map_err(|e| format!("bot command refused: {e} ({cmd:?})"))?;
        for e in new {
            G::apply(&mut state, &e);
            events.push(e);
        }
    }
    Ok(Playout { events, state, commands })
}
