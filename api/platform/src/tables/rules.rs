//! The platform's rules of a table before and around its game, as pure functions of the folded
//! table: creating a practice table (R10.13, R10.6.5, R10.7.2, R10.7.4), taking seats, the start,
//! and a game command's events.

use super::events::{DEFAULT_ABANDONMENT, TableEvent};
use super::repository::engine_event;
use super::{Snapshot, TableError};
use crate::bots::BotKind;
use crate::clocks::Clocks;
use crate::store::{Metadata, NewEvent};
use flicker_game::Game;

/// What the creator of a practice table asks for (R10.13, R10.6.5, R10.7.2, R10.7.4); the
/// absent values take their defaults. `S`: the game's settings.
#[derive(Debug, Clone)]
pub struct PracticeTable<S> {
    /// The creator's account name.
    pub creator: String,
    /// The game's settings, checked by the game already.
    pub settings: S,
    /// The practice position to start from, if any.
    pub position: Option<String>,
    /// Prompt clocks (default 60 s decisions, 15 s reactions).
    pub clocks: Option<Clocks>,
    /// Minimum open time of reaction windows, 0-10,000 ms (absent: the start decides).
    pub reaction_window_min_ms: Option<u32>,
    /// Pause before a built-in bot answers, 0-10,000 ms (default 0).
    pub bot_delay_ms: Option<u32>,
    /// Consecutive turn time-outs that count as a concession, 0-20 (default 3).
    pub abandonment: Option<u8>,
}

/// Checks a practice table's request and returns the event that creates it as `table_id`:
/// [`TableError::Invalid`] for a value out of range, the game's refusal of a bad position
/// (checked with `rng` now, so that nothing is stored). R10.6.5: an explicit minimum window
/// wins; otherwise the start decides it from the seats.
pub fn create_practice<G: Game, R: rand::Rng + ?Sized>(
    table_id: String,
    t: PracticeTable<G::Settings>,
    rng: &mut R,
) -> Result<TableEvent<G::Settings>, TableError> {
    let mut settings = t.settings;
    let clocks = t.clocks.unwrap_or_default();
    clocks.validate().map_err(TableError::Invalid)?;
    let min_window = t.reaction_window_min_ms.unwrap_or(0);
    let bot_delay = t.bot_delay_ms.unwrap_or(0);
    if min_window > 10_000 || bot_delay > 10_000 {
        return Err(TableError::Invalid("reaction_window_min_ms and bot_delay_ms are 0 to 10000".into()));
    }
    G::set_hold_windows(&mut settings, min_window > 0);
    let abandonment = t.abandonment.unwrap_or(DEFAULT_ABANDONMENT);
    if abandonment > 20 {
        return Err(TableError::Invalid("abandonment is 0 to 20 (R10.7.4)".into()));
    }
    if let Some(p) = &t.position {
        G::create_from_position(&settings, p, rng).map_err(TableError::rule)?;
    }
    let game = crate::names::GameName::from_id(G::GAME_ID)
        .ok_or_else(|| TableError::Invalid(format!("{} is not a game this platform hosts", G::GAME_ID)))?;
    Ok(TableEvent::TableCreated {
        table_id,
        game,
        creator: t.creator,
        settings,
        practice: true,
        position: t.position,
        gathering: None,
        seated: Vec::new(),
        clocks,
        reaction_window_min_ms: min_window,
        min_window_at_start: t.reaction_window_min_ms.is_none(),
        bot_delay_ms: bot_delay,
        abandonment,
    })
}

/// Takes a seat for `account` before the start: `want` (default: the first free seat), or,
/// with `bot`, seats that built-in bot there (the creator only). Returns the seat and its
/// event.
pub fn take_seat<G: Game>(
    snap: &Snapshot<G>,
    account: &str,
    want: Option<u8>,
    bot: Option<BotKind>,
) -> Result<(u8, TableEvent<G::Settings>), TableError> {
    if snap.started() {
        return Err(TableError::AlreadyStarted);
    }
    let seat = match want {
        Some(s) if (s as usize) < snap.info.seats.len() => {
            if snap.info.seats[s as usize].is_some() {
                return Err(TableError::SeatTaken { seat: s });
            }
            s
        }
        Some(s) => return Err(TableError::NoSuchSeat { seat: s }),
        None => snap.info.seats.iter().position(Option::is_none).ok_or(TableError::TableFull)? as u8,
    };
    let ev = match bot {
        Some(kind) => {
            if snap.info.creator != account {
                return Err(TableError::CreatorSeatsBots);
            }
            TableEvent::BotSeated { seat, name: format!("{}-bot#{}", kind.name(), seat), bot: kind }
        }
        None => TableEvent::SeatTaken { seat, account: account.to_string() },
    };
    Ok((seat, ev))
}

/// R10.6.5: whether a seat of `snap` is held by anything but a built-in bot or an account with
/// the `bot` role (`bot_accounts`: the seat holders known to have it).
pub fn any_person<G: Game>(snap: &Snapshot<G>, bot_accounts: &[String]) -> bool {
    snap.info
        .seats
        .iter()
        .zip(&snap.info.bots)
        .any(|(name, bot)| bot.is_none() && name.as_ref().is_none_or(|n| !bot_accounts.contains(n)))
}

/// Starts the game (the creator only, once every seat is held): deals with `rng` from the
/// settings or the practice position. R10.6.5: a table whose creator gave no minimum window
/// holds its windows when any seat is held by a person (`bot_accounts`: the seat holders with
/// the `bot` role). Returns the game's creation events.
pub fn start<G: Game, R: rand::Rng + ?Sized>(
    snap: &Snapshot<G>,
    account: &str,
    bot_accounts: &[String],
    rng: &mut R,
) -> Result<Vec<G::Event>, TableError> {
    if snap.info.creator != account {
        return Err(TableError::CreatorStarts);
    }
    if snap.started() {
        return Err(TableError::AlreadyStarted);
    }
    if snap.info.seats.iter().any(Option::is_none) {
        return Err(TableError::SeatsFree);
    }
    let mut settings = snap.info.settings.clone();
    if snap.info.min_window_at_start {
        G::set_hold_windows(&mut settings, any_person(snap, bot_accounts));
    }
    match &snap.info.position {
        Some(p) => G::create_from_position(&settings, p, rng),
        None => G::create(&settings, rng),
    }
    .map_err(TableError::rule)
}

/// The game's events for `cmd` at the table (its random draws from `rng`), as events to
/// store; [`TableError::NotStarted`] before the start, the game's refusal as
/// [`TableError::Rule`].
pub fn decide<G: Game, R: rand::Rng + ?Sized>(
    snap: &Snapshot<G>,
    cmd: &G::Command,
    rng: &mut R,
) -> Result<Vec<NewEvent>, TableError> {
    if !snap.started() {
        return Err(TableError::NotStarted);
    }
    let events = G::decide(&snap.state, cmd, rng).map_err(TableError::rule)?;
    Ok(events.iter().map(|e| engine_event::<G>(e, Metadata::default())).collect())
}

/// R10.8: the viewer for `account` at this table (see [`Snapshot::viewer_for`]).
pub fn viewer_for<G: Game>(
    snap: &Snapshot<G>,
    account: Option<&str>,
    seat: Option<u8>,
) -> Result<flicker_game::Viewer, TableError> {
    snap.viewer_for(account, seat)
}
