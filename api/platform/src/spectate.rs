//! Who sees what of a table, and from when (R10.8): a seat sees its own projection at once; a
//! spectator (anyone without a seat, anonymous included) sees public information, held back by
//! the gathering's spectator delay (N events or N seconds) so that watching cannot help a seated
//! player, and so is an eliminated seat; the organiser may take the commentary view (what some
//! player knows, never a Candle's order), delayed the same way, when the gathering allows it.
//! After the game everybody sees the complete record at once (R10.8.3).

use crate::clocks::ClockMark;
use crate::gatherings::GatheringCache;
use crate::tables::{Snapshot, TableError};
use chrono::{DateTime, Utc};
use flicker_game::{Game, Viewer};
use flicker_store::EventStore;

/// What a caller may see of a table now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sight {
    /// The projection they get.
    pub viewer: Viewer,
    /// How many of the table's engine events they may see (a prefix; less than all while a
    /// spectator delay holds events back). For a delayed viewer it ends where an append that
    /// showed it an event ends (0: nothing yet, the table looks created but not dealt).
    pub visible: usize,
    /// When the next held-back event of the viewer's sequence becomes visible (a delay in
    /// seconds), if any.
    pub next_reveal: Option<DateTime<Utc>>,
}

/// R10.8: the sight of `snap` of the caller named `caller` (`None`: anonymous) at `now` (the
/// server clock). `seat`: one of the caller's seats; `commentary`: the organiser asks for the
/// commentary view ([`Viewer::Commentary`]; [`TableError::CommentaryOff`] unless the gathering
/// enables it, [`TableError::NotOrganiser`] unless the caller is its organiser). The table's
/// gathering is read through `gatherings` from `store`.
///
/// A Lit seat sees its projection at once. A spectator, the commentary view and an eliminated
/// seat (R10.8: it sees what a spectator sees) are held back by the gathering's delay, counted
/// in their own sequence (N events behind, or the events recorded more than N seconds ago by
/// `now`), the creation events included. Their horizon then moves on over the rest of the
/// append that showed them their last event when that rest is hidden from them, so that what
/// they read is what a live viewer read right after that append: a function of the events they
/// may see and of when those were recorded, nothing else (R10.6.3, R10.6.4).
pub async fn sight<G: Game>(
    store: &dyn EventStore,
    gatherings: &GatheringCache,
    now: DateTime<Utc>,
    snap: &Snapshot<G>,
    caller: Option<&str>,
    seat: Option<u8>,
    commentary: bool,
) -> Result<Sight, TableError> {
    let (viewer, (events, secs)) = viewer_and_delays(store, gatherings, snap, caller, seat, commentary).await?;
    Ok(horizon(snap, viewer, events, secs, now))
}

/// The caller's viewer (see [`sight`]) and the delays that hold it back (events, seconds;
/// `(0, 0)` when none does).
async fn viewer_and_delays<G: Game>(
    store: &dyn EventStore,
    gatherings: &GatheringCache,
    snap: &Snapshot<G>,
    caller: Option<&str>,
    seat: Option<u8>,
    commentary: bool,
) -> Result<(Viewer, (u32, u32)), TableError> {
    if snap.finished() {
        return Ok((Viewer::Everything, (0, 0)));
    }
    let gathering = match &snap.info.gathering {
        Some(g) => gatherings.get(store, &g.gathering_id).await?,
        None => None,
    };
    if commentary {
        let g = gathering.as_ref().filter(|g| g.settings.commentary).ok_or(TableError::CommentaryOff)?;
        if caller != Some(g.organiser.as_str()) {
            return Err(TableError::NotOrganiser);
        }
    }
    let viewer = if commentary { Viewer::Commentary } else { snap.viewer_for(caller, seat)? };
    if !delayed(snap, viewer) {
        return Ok((viewer, (0, 0)));
    }
    Ok((viewer, gathering.map_or((0, 0), |g| (g.settings.spectator_delay_events, g.settings.spectator_delay_secs))))
}

/// What a caller may read of a table's chat now ([`crate::tables::chat`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChatSight {
    /// How many of the chat's entries (a prefix).
    pub entries: usize,
    /// When the next held-back entry may become readable, if the delay holds one back.
    pub next_reveal: Option<DateTime<Utc>>,
}

/// The chat of `snap` as the caller of [`sight`] may read it (same arguments, same errors). A
/// Lit seat reads every entry at once, and so does everyone after the game. A delayed viewer
/// (spectator, commentary, eliminated seat) reads an entry once it is older than the delay in
/// seconds and once it sees the game as far as the entry was stored, counted in its own
/// sequence (R10.6.3): an entry stored after an event hidden from it reads as stored before
/// that event, so no entry shows a hidden event or its timing.
pub async fn chat_sight<G: Game>(
    store: &dyn EventStore,
    gatherings: &GatheringCache,
    now: DateTime<Utc>,
    snap: &Snapshot<G>,
    caller: Option<&str>,
    seat: Option<u8>,
    commentary: bool,
) -> Result<ChatSight, TableError> {
    let (viewer, (events, secs)) = viewer_and_delays(store, gatherings, snap, caller, seat, commentary).await?;
    Ok(chat_horizon(snap, viewer, events, secs, now))
}

/// The chat of `snap` as `viewer`, held back by `events` events and `secs` seconds, may read it
/// at `now` (see [`chat_sight`]; [`horizon`] is the game's).
pub fn chat_horizon<G: Game>(
    snap: &Snapshot<G>,
    viewer: Viewer,
    events: u32,
    secs: u32,
    now: DateTime<Utc>,
) -> ChatSight {
    if events == 0 && secs == 0 {
        return ChatSight { entries: snap.chat.len(), next_reveal: None };
    }
    let seq = sequence_of(snap, viewer);
    let seen = horizon_in(snap, viewer, &seq, events, secs, now);
    // Events of the viewer's sequence it sees (those before `visible`).
    let shown = seq.partition_point(|&i| i < seen.visible);
    let delay = chrono::Duration::seconds(i64::from(secs));
    let mut entries = 0;
    let mut next_reveal = seen.next_reveal;
    for e in &snap.chat {
        if seq.partition_point(|&i| i < e.after_events) > shown {
            break;
        }
        if secs > 0 && e.at > now - delay {
            let at = e.at + delay;
            next_reveal = Some(next_reveal.map_or(at, |n| n.min(at)));
            break;
        }
        entries += 1;
    }
    ChatSight { entries, next_reveal }
}

/// Whether `viewer` is held back by a spectator delay at `snap` (not a Lit seat, game in play).
fn delayed<G: Game>(snap: &Snapshot<G>, viewer: Viewer) -> bool {
    match viewer {
        Viewer::Seat { seat } => !(G::in_game(&snap.state, seat) || seat >= G::players(&snap.state)),
        Viewer::Everything => false,
        _ => !snap.finished(),
    }
}

/// R10.8: the sight of `viewer` held back by `events` events and `secs` seconds at time `now`.
pub fn horizon<G: Game>(snap: &Snapshot<G>, viewer: Viewer, events: u32, secs: u32, now: DateTime<Utc>) -> Sight {
    let all = snap.events.len();
    if events == 0 && secs == 0 {
        return Sight { viewer, visible: all, next_reveal: None };
    }
    // The viewer's own sequence: a hidden event (a private Pass, a time-out mark) must not move
    // a delayed viewer forward, or its timing would show.
    horizon_in(snap, viewer, &sequence_of(snap, viewer), events, secs, now)
}

/// The engine events of `viewer`'s own sequence (their indexes).
fn sequence_of<G: Game>(snap: &Snapshot<G>, viewer: Viewer) -> Vec<usize> {
    sequence_upto(snap, viewer, snap.events.len()).into_iter().map(|(i, _)| i).collect()
}

/// [`horizon`] over `seq`, the viewer's own sequence ([`sequence_of`]).
fn horizon_in<G: Game>(
    snap: &Snapshot<G>,
    viewer: Viewer,
    seq: &[usize],
    events: u32,
    secs: u32,
    now: DateTime<Utc>,
) -> Sight {
    let all = snap.events.len();
    if events == 0 && secs == 0 {
        return Sight { viewer, visible: all, next_reveal: None };
    }
    let by_events = seq.len().saturating_sub(events as usize);
    let mut shown = by_events;
    let mut next_reveal = None;
    if secs > 0 {
        let delay = chrono::Duration::seconds(secs as i64);
        let cutoff = now - delay;
        let by_time = seq.partition_point(|&i| snap.times[i] <= cutoff);
        if by_time < shown {
            shown = by_time;
            next_reveal = Some(snap.times[seq[by_time]] + delay);
        }
    }
    let visible = match shown.checked_sub(1).map(|n| seq[n]) {
        None => 0,
        Some(last) => {
            // The rest of that append, when it is hidden from the viewer (events of one append
            // share their recorded time).
            let mut k = last + 1;
            while k < all && snap.times[k] == snap.times[last] && seq.get(shown) != Some(&k) {
                k += 1;
            }
            k
        }
    };
    Sight { viewer, visible, next_reveal }
}

/// R10.7.3: the clock mark in force after the first `k` engine events (the last one stored up
/// to there; none after the end).
pub fn mark_at<G: Game>(snap: &Snapshot<G>, k: usize) -> Option<&ClockMark> {
    if k >= snap.events.len() {
        return snap.clock.as_ref();
    }
    snap.marks[..k].iter().rev().find_map(Option::as_ref)
}

/// The viewer `account` had (or has) while the game is in play: its seat, or a spectator.
pub fn play_viewer<G: Game>(snap: &Snapshot<G>, account: Option<&str>, seat: Option<u8>) -> Viewer {
    let mine = account.map(|a| snap.seats_of(a)).unwrap_or_default();
    match seat {
        Some(s) if mine.contains(&s) => Viewer::Seat { seat: s },
        _ => mine.first().map_or(Viewer::Spectator, |&s| Viewer::Seat { seat: s }),
    }
}

/// The state after the first `k` game events.
pub fn state_at<G: Game>(snap: &Snapshot<G>, k: usize) -> G::State {
    snap.state_at(k)
}

/// The viewer's own sequence over the first `k` engine events: each visible event redacted for
/// them, with the index of the engine event it shows (R10.6.3: positions count nothing hidden).
/// After the end everyone gets the complete record (`Viewer::Everything`).
pub fn sequence<G: Game>(snap: &Snapshot<G>, viewer: Viewer, k: usize) -> Vec<(usize, G::ViewEvent)> {
    let viewer = if snap.finished() { Viewer::Everything } else { viewer };
    sequence_upto(snap, viewer, k)
}

/// The sequence `viewer` had during play, over every event (what a live stream that began
/// during play delivers, R10.6.3).
pub fn sequence_as<G: Game>(snap: &Snapshot<G>, viewer: Viewer) -> Vec<G::ViewEvent> {
    sequence_upto(snap, viewer, snap.events.len()).into_iter().map(|(_, e)| e).collect()
}

fn sequence_upto<G: Game>(snap: &Snapshot<G>, viewer: Viewer, k: usize) -> Vec<(usize, G::ViewEvent)> {
    let mut state = G::State::default();
    let mut out = Vec::new();
    for (i, e) in snap.events.iter().take(k).enumerate() {
        let before = state.clone();
        G::apply(&mut state, e);
        if let Some(r) = G::redact(&before, e, &state, viewer) {
            out.push((i, r));
        }
    }
    out
}
