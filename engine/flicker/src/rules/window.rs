//! W3: the Salt window (R6.5), the BOO! window (R6.6) and their simultaneous form (R10.6.6).
//!
//! The simultaneous form, once its answers are closed, keeps every eligible player in its queue
//! (clockwise, R6.5.3) with the cursor on the first Salter:
//!
//! - Salt window: the first Salter's chosen 5 enters at once. If that exchange fails, every
//!   remaining eligible player after the Salter is asked in turn, exactly as in the sequential
//!   form (a player who had answered Salt gets the prompt with `confirm` set). Nobody is
//!   skipped because of a hidden answer, so what other viewers see of the window (a window
//!   open, public Salts and exchanges, its close) depends only on public eligibility
//!   (R6.5.4, R10.6.2, R10.6.3).
//! - BOO! window: every Salter's exchange runs in turn, with no confirm step, and players who
//!   passed are not asked again (R10.6.6); a Salt is public, so nothing hidden shows.

use crate::model::action::Action;
use crate::model::card::CardId;
use crate::model::error::RuleError;
use crate::model::event::Event;
use crate::model::settings::SaltWindow;
use crate::model::state::{ActionStage, SaltWindowState, State};

/// R5.1.7: the players an action targets.
pub(crate) fn targets(state: &State, actor: u8, action: &Action<CardId>) -> Vec<u8> {
    match action {
        Action::Haunt { target, .. }
        | Action::Draft { target, .. }
        | Action::Scare { target, .. }
        | Action::Sight { target, .. }
        | Action::Mirror { target, .. } => vec![*target],
        Action::Greed { target, .. } if *target != actor => vec![*target],
        Action::Recall { owner, .. } if *owner != actor => vec![*owner],
        Action::Possess { destination, .. } => vec![*destination],
        Action::Drain { .. } => state.neighbours(actor),
        Action::Boo { .. } => state.others_clockwise(actor),
        _ => Vec::new(),
    }
}

/// Opens W3 for an action just declared (R6.5.1-R6.5.3, R6.6.1, R10.6.6).
pub(crate) fn open(state: &State, actor: u8, action: &Action<CardId>) -> SaltWindowState {
    let boo = matches!(action, Action::Boo { .. });
    let settings = state.settings_ref();
    let mut eligible =
        if crate::rules::hooks::salt_window_skipped(state, actor) { Vec::new() } else { state.others_clockwise(actor) };
    if state.rules().salt_targeted_only(settings) && !boo {
        // R6.5.2; A8.1: only targeted players are eligible (always in classic).
        let t = targets(state, actor, action);
        eligible.retain(|s| t.contains(s));
    }
    let mut w = SaltWindowState {
        boo,
        answers: Vec::new(),
        changes: Vec::new(),
        open: false,
        queue: Vec::new(),
        cursor: 0,
        exchange: None,
        exchanges_run: 0,
        protected: Vec::new(),
        stood: None,
    };
    match settings.salt_window {
        SaltWindow::Sequential => w.queue = eligible,
        SaltWindow::Simultaneous => {
            // R6.5.1: a player with an empty hand is not eligible (public information).
            w.answers = eligible
                .into_iter()
                .filter(|&s| !state.players[s as usize].hand.is_empty())
                .map(|s| (s, None))
                .collect();
            w.open = !w.answers.is_empty();
        }
    }
    w
}

/// R10.6.6: the most times a seat may change its answer in one simultaneous window (its first
/// answer is not a change). Each change is stored, so without a bound a client alternating Pass
/// and Salt would grow the table's stream without end (docs/rules-decisions.md).
pub const MAX_ANSWER_CHANGES: u8 = 8;

/// R10.6.6: checks a seat's private answer (`events`, one `salt_answered`) in the open
/// simultaneous window against the answer it stands by: the same answer again changes nothing
/// and stores nothing (no events); a change beyond [`MAX_ANSWER_CHANGES`] is refused (R10.6.6),
/// and the seat's answer stays as it was. Only the answering seat learns of either: nothing is
/// appended, so no other view, stream or version moves.
pub(crate) fn private_answer(state: &State, seat: u8, events: Vec<Event>) -> Result<Vec<Event>, RuleError> {
    let (Some(ActionStage::Window(w)), [Event::SaltAnswered { salt, .. }]) =
        (state.flow().map(|f| &f.stage), events.as_slice())
    else {
        return Ok(events);
    };
    let current = w.answers.iter().find(|(s, _)| *s == seat).and_then(|(_, a)| *a);
    let changes = w.changes.iter().find(|(s, _)| *s == seat).map_or(0, |(_, n)| *n);
    match current {
        None => Ok(events),
        Some(c) if c == *salt => Ok(Vec::new()),
        Some(_) if changes >= MAX_ANSWER_CHANGES => Err(RuleError::illegal(
            "R10.6.6",
            format!(
                "you may change your answer at most {MAX_ANSWER_CHANGES} times in one window; your answer stays as it is"
            ),
        )),
        Some(_) => Ok(events),
    }
}

/// What the window needs next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum WindowNext {
    /// Simultaneous: every listed player may answer (or change their answer).
    AnswerAll,
    /// Simultaneous: all answers are in; close now (automatic).
    CloseAnswers,
    /// Simultaneous: all answers are in, but the window is held open for the server (R10.6.5).
    HeldOpen,
    /// Ask this player (prompt Salt / BooSalt): sequential form, or the simultaneous Salt window
    /// after a failed exchange for a player who had answered Pass.
    Ask(u8),
    /// Simultaneous: this player had answered Salt and must confirm or withdraw (R10.6.6): after
    /// a failed exchange (Salt window), or when their chosen 5 cannot enter by itself (they
    /// conceded, or no longer hold it).
    Confirm(u8),
    /// Simultaneous: this Salter's chosen 5 enters at once (the first Salter of a Salt window;
    /// every Salter of a BOO! window).
    AutoSalt(u8, CardId),
    /// The exchange waits for this player (prompt CounterSalt).
    Exchange(u8),
    /// R6.5.5: this side has an empty hand and yields automatically.
    AutoYield(u8),
    /// R6.5.6: the Salt of this player stood; the action is cancelled.
    Cancel(u8),
    /// Everyone has been asked: the window closes and the action stands.
    Done,
}

/// R6.5-R6.6, R10.6.6: the next step of the open window of `state`, if one is open.
pub(crate) fn next(state: &State) -> Option<WindowNext> {
    let w = match state.flow().map(|f| &f.stage) {
        Some(ActionStage::Window(w)) => w,
        _ => return None,
    };
    let hand = |s: u8| state.players[s as usize].hand.len();
    if let Some(s) = w.stood {
        return Some(WindowNext::Cancel(s));
    }
    if let Some(x) = &w.exchange {
        return Some(if hand(x.waiting) == 0 {
            WindowNext::AutoYield(x.waiting)
        } else {
            WindowNext::Exchange(x.waiting)
        });
    }
    match state.settings_ref().salt_window {
        SaltWindow::Simultaneous => {
            if w.open {
                let all_in = w.answers.iter().all(|(_, a)| a.is_some());
                return Some(match (all_in, state.settings_ref().hold_windows) {
                    (false, _) => WindowNext::AnswerAll,
                    (true, false) => WindowNext::CloseAnswers,
                    (true, true) => WindowNext::HeldOpen,
                });
            }
            let chosen = |seat: u8| w.answers.iter().find(|(s, _)| *s == seat).and_then(|(_, a)| a.flatten());
            let rest = w.queue.get(w.cursor..).unwrap_or_default();
            if w.boo || w.exchanges_run == 0 {
                // BOO!: the next Salter; Salt window before any exchange: the first Salter.
                let Some((seat, card)) = rest.iter().find_map(|&s| chosen(s).map(|c| (s, c))) else {
                    return Some(WindowNext::Done);
                };
                // A Salter who conceded since is asked instead, and gets the default (Pass).
                return Some(
                    if state.players[seat as usize].hand.contains(&card) && !state.conceding.contains(&seat) {
                        WindowNext::AutoSalt(seat, card)
                    } else {
                        WindowNext::Confirm(seat)
                    },
                );
            }
            // Salt window after a failed exchange: every remaining eligible player in turn, as
            // in the sequential form (R6.5.6); an earlier Salt answer only sets `confirm`.
            Some(match rest.iter().copied().find(|&s| state.is_lit(s) && hand(s) > 0) {
                Some(s) if chosen(s).is_some() => WindowNext::Confirm(s),
                Some(s) => WindowNext::Ask(s),
                None => WindowNext::Done,
            })
        }
        SaltWindow::Sequential => {
            let ask = w.queue[w.cursor.min(w.queue.len())..].iter().copied().find(|&s| state.is_lit(s) && hand(s) > 0);
            Some(match ask {
                Some(s) => WindowNext::Ask(s),
                None => WindowNext::Done,
            })
        }
    }
}

/// R10.6.5, R10.6.6 (server clocks): the phase of a simultaneous window, for the server that
/// runs its deadline and minimum open time. `None` when no simultaneous window is taking answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SimultaneousWindow {
    /// Answers are still expected.
    Answering,
    /// Every answer is in; the window waits for the server's `CloseWindow` (settings.hold_windows).
    HeldOpen,
}

/// The phase of the simultaneous window open now, if any (see [`SimultaneousWindow`]).
pub fn simultaneous_window(state: &State) -> Option<SimultaneousWindow> {
    match next(state) {
        Some(WindowNext::AnswerAll) => Some(SimultaneousWindow::Answering),
        Some(WindowNext::HeldOpen) => Some(SimultaneousWindow::HeldOpen),
        _ => None,
    }
}

/// R10.6.5 (server clocks): the seat whose answer to a sequential reaction prompt is held until
/// the server closes that prompt (`CloseWindow`, or `Timeout` at its deadline), if any. Its
/// prompt is no longer open; what others see is unchanged until the close.
pub fn held_answer(state: &State) -> Option<u8> {
    state.held.as_ref().map(|(s, _)| *s)
}
