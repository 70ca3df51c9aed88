//! Server clocks (R10.7): every decision point gets a deadline from the server clock when it
//! opens, stored in the metadata of the event that opened it, so that clocks resume after a
//! restart. The fold never reads a clock; only the time-out command changes the game.

use crate::store::{Metadata, NewEvent};
use chrono::{DateTime, Utc};
use flicker_game::{Game, PromptClock};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// R10.7.2: seconds per prompt family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Clocks {
    /// Prompts 1-5 and 15-23 (turn order, Haunting, Ritual, picks, splits, Burden), in seconds:
    /// 1 to 86,400 (default 60).
    #[serde(default = "default_decision")]
    #[schema(minimum = 1, maximum = 86400)]
    pub decision_secs: u32,
    /// Reaction prompts 6-14 (Salt, BOO! Salt, counter-Salt, class reactions) and simultaneous
    /// windows, in seconds: 1 to 86,400 (default 15).
    #[serde(default = "default_reaction")]
    #[schema(minimum = 1, maximum = 86400)]
    pub reaction_secs: u32,
}

fn default_decision() -> u32 {
    60
}
fn default_reaction() -> u32 {
    15
}

impl Default for Clocks {
    fn default() -> Self {
        Clocks { decision_secs: default_decision(), reaction_secs: default_reaction() }
    }
}

impl Clocks {
    /// Checks the ranges (1 to 86,400 seconds each).
    pub fn validate(&self) -> Result<(), String> {
        let ok = |s: u32| (1..=86_400).contains(&s);
        if ok(self.decision_secs) && ok(self.reaction_secs) {
            Ok(())
        } else {
            Err("clocks are 1 to 86400 seconds each (R10.7.2)".into())
        }
    }
}

/// R10.7.3: when the open decision point opened and when it times out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockMark {
    /// When it opened (server clock, UTC).
    pub opened_at: DateTime<Utc>,
    /// Its deadline, before any gathering pause (UTC).
    pub deadline: DateTime<Utc>,
    /// A simultaneous window (one deadline for the whole window, R10.6.6).
    #[serde(default)]
    pub window: bool,
}

/// The key of an event's metadata under which its clock mark is stored (the store keeps it as
/// one of the domain's own fields, [`Metadata::extra`]).
const MARK_KEY: &str = "clock";

/// The clock mark stored with an event, if any. Errors: a mark that does not read as one.
pub fn mark_of(metadata: &Metadata) -> Result<Option<ClockMark>, serde_json::Error> {
    metadata.extra.get(MARK_KEY).map(ClockMark::deserialize).transpose()
}

/// Stores `mark` with an event (replacing any mark it had).
pub fn set_mark(metadata: &mut Metadata, mark: &ClockMark) {
    metadata.extra.insert(MARK_KEY.to_string(), serde_json::to_value(mark).expect("a clock mark serialises"));
}

/// The game's events among stored ones (the table's own events are skipped).
fn game_events<G: Game>(events: &[NewEvent]) -> Vec<G::Event> {
    events
        .iter()
        .filter_map(|e| crate::codec::decode_game::<G>(&e.event_type, e.schema_version, &e.payload).ok())
        .collect()
}

/// R10.7.2: whether the open decision point of `state` runs on the reaction clock: a
/// simultaneous window, a held answer, or a reaction prompt.
pub fn is_reaction<G: Game>(state: &G::State) -> bool {
    G::decision_point(state).is_reaction_window()
        || G::prompts(state).first().is_some_and(|p| G::prompt_info(p).clock == PromptClock::Reaction)
}

/// A table as [`mark_for`] sees it before an append: the game, whether it has engine events
/// yet, and its clock settings.
#[derive(Debug)]
pub struct Before<'a, G: Game> {
    /// The game before the append.
    pub state: &'a G::State,
    /// Whether the table holds engine events already.
    pub started: bool,
    /// The table's clocks.
    pub clocks: Clocks,
    /// R10.6.5: the table's minimum reaction window, in milliseconds.
    pub reaction_window_min_ms: u32,
}

/// The clock mark for an append of `events` onto `snap` at `now` (server clock), or `None` when
/// the decision point does not change (an answer inside a simultaneous window that stays open,
/// an answer held until its prompt closes) or the game is over.
///
/// R10.6.5 (docs/rules-decisions.md, "Windows close at a public time"): at a table that holds its
/// windows (`hold_windows`), a reaction decision point (a simultaneous window or a reaction
/// prompt) lasts exactly until its deadline whatever the answers do, so its deadline is never
/// shorter than the minimum window: `max(reaction_secs, reaction_window_min_ms)`.
pub fn mark_for<G: Game>(snap: &Before<'_, G>, events: &[NewEvent], now: DateTime<Utc>) -> Option<ClockMark> {
    let game = game_events::<G>(events);
    let mut previous: Option<&G::Event> = None;
    let mut holds_only = true;
    let mut closed = false;
    for e in &game {
        let facts = G::event_facts(previous, e);
        holds_only &= facts.holds_answer;
        closed |= facts.closes_point;
        previous = Some(e);
    }
    if game.is_empty() || holds_only {
        return None;
    }
    let mut after: G::State = snap.state.clone();
    for e in &game {
        G::apply(&mut after, e);
    }
    if G::is_finished(&after) {
        return None;
    }
    let point = G::decision_point(&after);
    let window = point.window.is_some();
    if window && G::decision_point(snap.state).window.is_some() && !closed && snap.started {
        return None;
    }
    let open = G::prompts(&after);
    let reaction = window || open.first().is_some_and(|p| G::prompt_info(p).clock == PromptClock::Reaction);
    let clocks = snap.clocks;
    let secs = if reaction { clocks.reaction_secs } else { clocks.decision_secs };
    let mut length = chrono::Duration::seconds(secs as i64);
    if reaction && point.hold_windows {
        length = length.max(chrono::Duration::milliseconds(snap.reaction_window_min_ms as i64));
    }
    Some(ClockMark { opened_at: now, deadline: now + length, window })
}

/// Shifts `at` later by the part of each pause `(from, to)` that falls after `since`
/// (a paused gathering stops its clocks; `to = None`: still paused, so never due).
pub fn shifted(
    at: DateTime<Utc>,
    since: DateTime<Utc>,
    pauses: &[(DateTime<Utc>, Option<DateTime<Utc>>)],
) -> Option<DateTime<Utc>> {
    let mut t = at;
    for (from, to) in pauses {
        let to = (*to)?;
        if to <= since {
            continue;
        }
        let from = (*from).max(since);
        t += to - from;
    }
    Some(t)
}

/// A clock as shown to a viewer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ClockView {
    /// The deadline, moved back by any gathering pause since the decision opened (`null`
    /// while paused).
    pub deadline: Option<DateTime<Utc>>,
    /// The table's gathering is paused: the clock stands still.
    pub paused: bool,
}

/// The clock of the open decision point of `state` (the game as folded up to what the viewer
/// may see), from `mark` (the last clock mark stored up to that point), as `viewer_seat` may see
/// it (R10.6.2: inside a sequential reaction window only the asked seat sees the deadline, since
/// a deadline that restarts per player would count the players asked). `pauses` are the
/// gathering's. A delayed viewer passes the state and mark at its horizon, so that its clock is a
/// function of what it may see (R10.6.3, R10.6.4).
pub fn view_for<G: Game>(
    state: &G::State,
    mark: Option<&ClockMark>,
    viewer_seat: Option<u8>,
    paused: bool,
    pauses: &[(DateTime<Utc>, Option<DateTime<Utc>>)],
) -> Option<ClockView> {
    let mark = mark?;
    if G::is_finished(state) || G::players(state) == 0 {
        return None;
    }
    let open = G::prompts(state);
    // R10.6.5: a held answer's prompt (always a reaction prompt) keeps its deadline private.
    let held = G::decision_point(state).held_answer;
    let private_reaction = !mark.window
        && (held.is_some() || open.first().is_some_and(|p| G::prompt_info(p).clock == PromptClock::Reaction));
    let asked = held.is_some_and(|s| Some(s) == viewer_seat)
        || open.iter().any(|p| Some(G::prompt_info(p).seat) == viewer_seat);
    if private_reaction && !asked {
        return None;
    }
    let deadline = if paused { None } else { shifted(mark.deadline, mark.opened_at, pauses) };
    Some(ClockView { deadline, paused })
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    /// R10.7.3: a pause after the prompt opened pushes its deadline back by the pause; a pause
    /// before it opened does not; an open pause stops the clock.
    #[test]
    fn pauses_shift_deadlines() {
        let t = |s| Utc.timestamp_opt(s, 0).unwrap();
        assert_eq!(shifted(t(100), t(40), &[(t(50), Some(t(70)))]), Some(t(120)));
        assert_eq!(shifted(t(100), t(40), &[(t(10), Some(t(30)))]), Some(t(100)));
        assert_eq!(shifted(t(100), t(40), &[(t(30), Some(t(50)))]), Some(t(110)));
        assert_eq!(shifted(t(100), t(40), &[(t(50), None)]), None);
    }
}
