//! What is due at a table, and when (R10.6.4, R10.6.5, R10.7): the table driver's decisions as
//! pure functions of the folded table, the gathering's pauses and the time `now` given by the
//! caller's clock. The server's worker sleeps until the time returned and carries out the
//! [`Due`] action as a command.

use crate::clocks::shifted;
use crate::tables::Snapshot;
use chrono::{DateTime, Utc};
use flicker_game::{Game, WindowPhase};

/// What a table waits for next.
#[derive(Debug, Clone, PartialEq)]
pub enum Due {
    /// A built-in bot answers for this seat.
    Bot(u8),
    /// R10.6.5: a held reaction decision point (a simultaneous window whose answers are all in,
    /// or a reaction prompt whose answer is held) has reached its public close time; close it.
    CloseWindow,
    /// R10.7.1: the deadline has passed; apply the defaults.
    Timeout,
    /// R10.7.4: this seat's Ritual prompts timed out too often in a row: it concedes.
    Abandon(u8),
}

/// Whether a bot still has to answer this prompt (R10.6.6: a simultaneous window's prompt it
/// answered stays open so it may change its answer; a bot never does).
pub fn needs_answer<G: Game>(p: &G::Prompt) -> bool {
    G::prompt_info(p).awaits_answer
}

/// The next thing due at a table at `now` (server clock), and when.
///
/// R10.6.4, R10.6.5 (docs/rules-decisions.md, "Windows close at a public time"): at a table that
/// holds its windows, a reaction decision point closes at its deadline and at no other time: a
/// simultaneous window whose answers are all in and a reaction prompt whose answer is held get
/// `CloseWindow` there, anything unanswered gets `Timeout` there. So the close time is a function
/// of when the point opened and of the table's settings, never of when or whether answers came.
/// Once a default hold is released ([`windows_released`]), a point whose answers are in closes
/// at its opening plus the table's bot delay (at once when that has passed): a seat replaced by a
/// substitute in the middle of the point closes it at the same time whether or not its answer
/// was in.
pub fn next_due<G: Game>(
    snap: &Snapshot<G>,
    pauses: &[(DateTime<Utc>, Option<DateTime<Utc>>)],
    now: DateTime<Utc>,
) -> Option<(DateTime<Utc>, Due)> {
    let clock = snap.clock.as_ref()?;
    let since = clock.opened_at;
    let limit = snap.info.abandonment;
    if limit > 0
        && let Some(seat) = (0..snap.ritual_timeouts.len() as u8)
            .find(|&s| snap.ritual_timeouts[s as usize] >= limit && G::may_concede(&snap.state, s))
    {
        return Some((now, Due::Abandon(seat)));
    }
    let mut best: Option<(DateTime<Utc>, Due)> = None;
    let mut consider = |at: Option<DateTime<Utc>>, due: Due| {
        if let Some(at) = at
            && best.as_ref().is_none_or(|(b, _)| at < *b)
        {
            best = Some((at, due));
        }
    };
    for p in G::prompts(&snap.state) {
        let seat = G::prompt_info(&p).seat;
        if snap.info.bots.get(seat as usize).is_some_and(Option::is_some) && needs_answer::<G>(&p) {
            let at = since + chrono::Duration::milliseconds(snap.info.bot_delay_ms as i64);
            consider(shifted(at, since, pauses), Due::Bot(seat));
            break;
        }
    }
    let point = G::decision_point(&snap.state);
    if point.window == Some(WindowPhase::HeldOpen) || point.held_answer.is_some() {
        // Released: the bot delay after the opening, when a bot's answer would be due, so that
        // the close does not tell whether a seat replaced mid-point had answered already.
        let bot_delay = chrono::Duration::milliseconds(snap.info.bot_delay_ms as i64);
        let close = if windows_released(snap) { since + bot_delay } else { clock.deadline };
        consider(shifted(close, since, pauses), Due::CloseWindow);
    }
    consider(shifted(clock.deadline, since, pauses), Due::Timeout);
    best
}

/// R10.6.5 (docs/rules-decisions.md, "The default minimum window lapses with the persons"):
/// whether a table that holds its windows by default (no minimum window was given, so the seats
/// decided it: [`crate::tables::TableInfo::min_window_at_start`]) has let them go because every
/// seat still in the game is a built-in bot (the persons were eliminated, conceded or were
/// replaced by substitutes). A held point then closes as soon as its answers are in and the
/// table's bot delay has passed since it opened, as at a table of bots: a built-in bot answers
/// after that delay whatever it holds, so the close tells nobody anything (not even whether a
/// person replaced in the middle of the point had answered). A minimum window given explicitly
/// is kept to the end.
pub fn windows_released<G: Game>(snap: &Snapshot<G>) -> bool {
    snap.info.min_window_at_start
        && G::decision_point(&snap.state).hold_windows
        && (0..G::players(&snap.state))
            .filter(|&s| G::in_game(&snap.state, s))
            .all(|s| snap.info.bots.get(s as usize).is_some_and(Option::is_some))
}

/// R10.6.4, R10.6.5: when the driver closes the open reaction decision point of a table that
/// holds its windows (a simultaneous window, a held answer, a reaction prompt), as `(opened,
/// close)` on the server clock, deciding at `now`; `None` at any other decision point or
/// table. The server's leak scanner checks that the close is the point's deadline and never moves.
pub fn reaction_close<G: Game>(snap: &Snapshot<G>, now: DateTime<Utc>) -> Option<(DateTime<Utc>, DateTime<Utc>)> {
    let mark = snap.clock.as_ref()?;
    if !G::decision_point(&snap.state).hold_windows
        || !crate::clocks::is_reaction::<G>(&snap.state)
        || windows_released(snap)
    {
        return None;
    }
    match next_due(snap, &[], now)? {
        (at, Due::CloseWindow | Due::Timeout) => Some((mark.opened_at, at)),
        _ => None,
    }
}

/// An auto-pass due now at a table that holds its windows (R10.6.4, R10.6.5): a reaction
/// decision point's prompt, still awaiting its answer, of a seat held by an account for which
/// `on` says auto-pass is set, that [`Game::auto_pass`] answers. Returns the seat, the holder and
/// the answer's command, which the server sends as that account's own answer at once, so that it is held
/// and closes at the point's deadline like a hand-given one. `None` at tables that do not hold
/// their windows: there an instant answer would stand out from a person's.
pub fn auto_pass<G: Game>(snap: &Snapshot<G>, on: impl Fn(&str) -> bool) -> Option<(u8, String, G::Command)> {
    if !G::decision_point(&snap.state).hold_windows || !crate::clocks::is_reaction::<G>(&snap.state) {
        return None;
    }
    G::prompts(&snap.state).into_iter().find_map(|p| {
        let seat = G::prompt_info(&p).seat;
        if snap.info.bots.get(seat as usize).is_some_and(Option::is_some) || !needs_answer::<G>(&p) {
            return None;
        }
        let holder = snap.info.seats.get(seat as usize).cloned().flatten()?;
        let answer = G::auto_pass(&p)?;
        on(&holder).then(|| (seat, holder, G::answer_command(&p, answer)))
    })
}
