//! Who sees what of a table, and from when (R10.8): a seat sees its own projection at once; a
//! spectator (anyone without a seat, anonymous included) sees public information, held back by
//! the gathering's spectator delay (N events or N seconds) so that watching cannot help a seated
//! player; the organiser may take an all-seeing commentary view, delayed the same way, when the
//! gathering allows it. After the game everybody sees the complete record at once (R10.8.3).

use crate::auth::Caller;
use crate::problem::Problem;
use crate::server::AppState;
use crate::tables::{Snapshot, viewer_for};
use chrono::{DateTime, Utc};
use flicker_engine::{State, ViewEvent, Viewer};

/// What a caller may see of a table now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sight {
    /// The projection they get.
    pub viewer: Viewer,
    /// How many of the table's engine events they may see (a prefix; less than all while a
    /// spectator delay holds events back).
    pub visible: usize,
    /// When the next held-back event becomes visible (a delay in seconds), if any.
    pub next_reveal: Option<DateTime<Utc>>,
}

impl Sight {
    /// Whether events are being held back.
    pub fn delayed(&self, snap: &Snapshot) -> bool {
        self.visible < snap.events.len()
    }
}

/// R10.8: the caller's sight of `snap`. `seat`: one of the caller's seats; `commentary`: the
/// organiser asks for the all-seeing view (403 unless the gathering enables it and the caller is
/// its organiser).
pub async fn sight(
    app: &AppState,
    snap: &Snapshot,
    caller: Option<&Caller>,
    seat: Option<u8>,
    commentary: bool,
) -> Result<Sight, Problem> {
    let all = snap.events.len();
    if snap.state.is_finished() {
        return Ok(Sight { viewer: Viewer::Everything, visible: all, next_reveal: None });
    }
    let gathering = match &snap.info.gathering {
        Some(g) => app.gatherings.get(app.store.as_ref(), &g.gathering_id).await?,
        None => None,
    };
    if commentary {
        let g = gathering.as_ref().filter(|g| g.settings.commentary).ok_or_else(|| {
            Problem::forbidden("the commentary view is off for this table (a gathering setting, off by default)")
        })?;
        if caller.map(|c| &c.name) != Some(&g.organiser) {
            return Err(Problem::forbidden("only the gathering's organiser may take the commentary view"));
        }
    }
    let viewer = if commentary { Viewer::Everything } else { viewer_for(snap, caller.map(|c| c.name.as_str()), seat)? };
    if let Viewer::Seat { .. } = viewer {
        return Ok(Sight { viewer, visible: all, next_reveal: None });
    }
    let (events, secs) =
        gathering.map_or((0, 0), |g| (g.settings.spectator_delay_events, g.settings.spectator_delay_secs));
    // N events behind counts only the events a spectator sees: a hidden event (a private Pass,
    // a time-out mark) must not move a delayed spectator forward, or its timing would show.
    let mut visible = if events == 0 {
        all
    } else {
        let public = sequence_upto(snap, Viewer::Spectator, all);
        match public.len().checked_sub(events as usize) {
            Some(k) if k > 0 => public[k - 1].0 + 1,
            _ => 0,
        }
    };
    let mut next_reveal = None;
    if secs > 0 {
        let cutoff = Utc::now() - chrono::Duration::seconds(secs as i64);
        let by_time = snap.times.partition_point(|t| *t <= cutoff);
        if by_time < visible {
            next_reveal = snap.times.get(by_time).map(|t| *t + chrono::Duration::seconds(secs as i64));
            visible = by_time;
        }
    }
    // Never hold back the creation events (the table would look unstarted).
    Ok(Sight { viewer, visible: visible.max(1.min(all)), next_reveal })
}

/// The viewer `account` had (or has) while the game is in play: its seat, or a spectator.
pub fn play_viewer(snap: &Snapshot, account: Option<&str>, seat: Option<u8>) -> Viewer {
    let mine = account.map(|a| snap.seats_of(a)).unwrap_or_default();
    match seat {
        Some(s) if mine.contains(&s) => Viewer::Seat { seat: s },
        _ => mine.first().map_or(Viewer::Spectator, |&s| Viewer::Seat { seat: s }),
    }
}

/// The state after the first `k` engine events.
pub fn state_at(snap: &Snapshot, k: usize) -> State {
    if k >= snap.events.len() {
        return snap.state.clone();
    }
    let mut s = State::new();
    for e in &snap.events[..k] {
        flicker_engine::apply(&mut s, e);
    }
    s
}

/// The viewer's own sequence over the first `k` engine events: each visible event redacted for
/// them, with the index of the engine event it shows (R10.6.3: positions count nothing hidden).
/// After the end everyone gets the complete record (`Viewer::Everything`).
pub fn sequence(snap: &Snapshot, viewer: Viewer, k: usize) -> Vec<(usize, ViewEvent)> {
    let viewer = if snap.state.is_finished() { Viewer::Everything } else { viewer };
    sequence_upto(snap, viewer, k)
}

/// The sequence `viewer` had during play, over every event (what a live stream that began
/// during play delivers, R10.6.3).
#[cfg(test)]
pub fn sequence_as(snap: &Snapshot, viewer: Viewer) -> Vec<ViewEvent> {
    sequence_upto(snap, viewer, snap.events.len()).into_iter().map(|(_, e)| e).collect()
}

fn sequence_upto(snap: &Snapshot, viewer: Viewer, k: usize) -> Vec<(usize, ViewEvent)> {
    let mut state = State::new();
    let mut out = Vec::new();
    for (i, e) in snap.events.iter().take(k).enumerate() {
        let before = state.clone();
        flicker_engine::apply(&mut state, e);
        if let Some(r) = flicker_engine::redact(&before, e, &state, viewer) {
            out.push((i, r));
        }
    }
    out
}
