//! A table folded from its stream ([`Snapshot`]): its own events, then the game's, each folded
//! with its stored clock mark and idempotency key.

use super::chat::ChatEntry;
use super::events::{DEFAULT_ABANDONMENT, DEFAULT_MIN_WINDOW_MS, TABLE_EVENT_SCHEMA_VERSION, TableEvent, TableInfo};
use crate::clocks::{ClockMark, Clocks};
use crate::codec;
use crate::store::{Metadata, StoreError, StoredEvent};
use flicker_game::{EventFacts, Game, TurnMark, Viewer};
use std::collections::HashMap;

/// A table of the game `G` folded from its stream.
#[derive(Debug)]
pub struct Snapshot<G: Game> {
    /// Stream version.
    pub version: i64,
    /// Platform information.
    pub info: TableInfo<G::Settings>,
    /// The game (empty before the start).
    pub state: G::State,
    /// The game's events, in order.
    pub events: Vec<G::Event>,
    /// R10.7.3: when the open decision point opened and its deadline (server-side; `None`
    /// before the start and after the end).
    pub clock: Option<ClockMark>,
    /// R10.7.4: each seat's turn decisions timed out in a row.
    pub ritual_timeouts: Vec<u8>,
    /// When each game event was recorded (for spectator delays).
    pub times: Vec<chrono::DateTime<chrono::Utc>>,
    /// R10.7.3: the clock mark stored with each game event, if any (a delayed viewer sees the
    /// clock as it stood at its horizon).
    pub marks: Vec<Option<ClockMark>>,
    /// Each idempotency key stored in the stream (account-scoped) and the version of its first
    /// event, so a command at a known-current table checks its key without a query.
    pub idempotency_keys: HashMap<String, i64>,
    /// The table's chat, every entry ([`super::chat`]).
    pub chat: Vec<ChatEntry>,
    /// Whether each seat is muted in the chat.
    pub muted: Vec<bool>,
}

impl<G: Game> Clone for Snapshot<G> {
    fn clone(&self) -> Self {
        Snapshot {
            version: self.version,
            info: self.info.clone(),
            state: self.state.clone(),
            events: self.events.clone(),
            clock: self.clock.clone(),
            ritual_timeouts: self.ritual_timeouts.clone(),
            times: self.times.clone(),
            marks: self.marks.clone(),
            idempotency_keys: self.idempotency_keys.clone(),
            chat: self.chat.clone(),
            muted: self.muted.clone(),
        }
    }
}

impl<G: Game> Snapshot<G> {
    /// Whether the game has started (the stream holds game events).
    pub fn started(&self) -> bool {
        !self.events.is_empty()
    }

    /// Whether the game has ended.
    pub fn finished(&self) -> bool {
        G::is_finished(&self.state)
    }

    /// The parts of the table that [`crate::clocks::mark_for`] reads before an append.
    pub fn before(&self) -> crate::clocks::Before<'_, G> {
        crate::clocks::Before {
            state: &self.state,
            started: self.started(),
            clocks: self.info.clocks,
            reaction_window_min_ms: self.info.reaction_window_min_ms,
        }
    }

    /// The game's state after its first `k` events (the state a viewer whose horizon is `k`
    /// sees).
    pub fn state_at(&self, k: usize) -> G::State {
        if k >= self.events.len() {
            return self.state.clone();
        }
        let mut s = G::State::default();
        for e in &self.events[..k] {
            G::apply(&mut s, e);
        }
        s
    }

    pub(super) fn apply(&mut self, e: &StoredEvent) -> Result<(), StoreError> {
        self.apply_parts(
            i64::from(e.stream_version),
            &e.event_type,
            e.schema_version,
            &e.payload,
            &e.metadata,
            e.recorded_at,
        )
    }

    /// Folds one event given by its parts: a stored event's, or one this process has just
    /// appended (so that it needs no read back). A game event of an older event schema is read
    /// through the game's upcasters (R10.1.3). Errors: an event of neither the game nor the
    /// table, or of a schema newer than this build reads.
    pub(super) fn apply_parts(
        &mut self,
        version: i64,
        event_type: &str,
        schema: i32,
        payload: &serde_json::Value,
        metadata: &Metadata,
        recorded_at: chrono::DateTime<chrono::Utc>,
    ) -> Result<(), StoreError> {
        self.version = version;
        if let Some(k) = &metadata.command_key {
            self.idempotency_keys.entry(k.clone()).or_insert(version);
        }
        // Game events first: nearly every event of a table is one (a failed decode costs an
        // error built and formatted).
        let ev: G::Event = match codec::decode_game::<G>(event_type, schema, payload) {
            Ok(ev) => ev,
            Err(err) => {
                let t = match codec::decode::<TableEvent<G::Settings>>(event_type, payload) {
                    Ok(t) if (1..=TABLE_EVENT_SCHEMA_VERSION as i32).contains(&schema) => t,
                    Ok(_) => {
                        return Err(StoreError::Other(format!(
                            "a `{event_type}` table event has event schema {schema}; this build reads 1 to {TABLE_EVENT_SCHEMA_VERSION}"
                        )));
                    }
                    Err(_) => {
                        return Err(StoreError::Other(format!(
                            "`{event_type}` (schema {schema}) is neither an event of {} this build reads ({err}) nor a table event it knows: written by a newer build?",
                            G::GAME_ID
                        )));
                    }
                };
                return self.apply_table_event(t, version, recorded_at);
            }
        };
        // R10.7.4: a turn that ends right after its seat's time-out timed out; an action or an
        // end given by hand resets the count.
        let EventFacts { turn, .. } = G::event_facts(self.events.last(), &ev);
        match turn {
            Some(TurnMark::Ended { seat, timed_out }) => {
                if let Some(n) = self.ritual_timeouts.get_mut(seat as usize) {
                    *n = if timed_out { n.saturating_add(1) } else { 0 };
                }
            }
            Some(TurnMark::Acted { seat }) => {
                if let Some(n) = self.ritual_timeouts.get_mut(seat as usize) {
                    *n = 0;
                }
            }
            None => {}
        }
        let first = self.events.is_empty();
        G::apply(&mut self.state, &ev);
        if first && self.info.min_window_at_start {
            // R10.6.5: the start decided the minimum window; the game records it.
            let hold = G::decision_point(&self.state).hold_windows;
            G::set_hold_windows(&mut self.info.settings, hold);
            self.info.reaction_window_min_ms = if hold { DEFAULT_MIN_WINDOW_MS } else { 0 };
        }
        self.events.push(ev);
        self.times.push(recorded_at);
        let mark = crate::clocks::mark_of(metadata).map_err(|err| StoreError::Other(format!("clock mark: {err}")))?;
        if let Some(c) = &mark {
            self.clock = Some(c.clone());
        }
        self.marks.push(mark);
        let finished = G::is_finished(&self.state);
        if finished {
            self.clock = None;
        }
        self.info.status = if finished { "finished".into() } else { "playing".into() };
        Ok(())
    }

    fn apply_table_event(
        &mut self,
        t: TableEvent<G::Settings>,
        version: i64,
        recorded_at: chrono::DateTime<chrono::Utc>,
    ) -> Result<(), StoreError> {
        if let Some(entry) = super::chat::entry_of(&self.chat, self.events.len(), &t, version, recorded_at) {
            self.chat.push(entry);
        }
        match t {
            TableEvent::TableCreated {
                table_id,
                game,
                creator,
                settings,
                practice,
                position,
                gathering,
                seated,
                clocks,
                reaction_window_min_ms,
                min_window_at_start,
                bot_delay_ms,
                abandonment,
            } => {
                if game.id() != G::GAME_ID {
                    return Err(StoreError::Other(format!(
                        "table {table_id} plays {game}, not {}: fold it as its own game",
                        G::GAME_ID
                    )));
                }
                let n = G::seats(&settings) as usize;
                let mut seats = vec![None; n];
                let mut bots = vec![None; n];
                for (i, h) in seated.into_iter().enumerate().take(n) {
                    seats[i] = Some(h.name);
                    bots[i] = h.bot;
                }
                self.info = TableInfo {
                    table_id,
                    game,
                    creator,
                    seats,
                    bots,
                    settings,
                    practice,
                    position,
                    status: "open".into(),
                    gathering,
                    clocks,
                    reaction_window_min_ms,
                    bot_delay_ms,
                    min_window_at_start,
                    abandonment,
                };
                self.ritual_timeouts = vec![0; n];
                self.muted = vec![false; n];
            }
            TableEvent::SeatTaken { seat, account } => {
                if let Some(s) = self.info.seats.get_mut(seat as usize) {
                    *s = Some(account);
                }
            }
            TableEvent::BotSeated { seat, name, bot } | TableEvent::SeatReplaced { seat, name, bot } => {
                if let Some(s) = self.info.seats.get_mut(seat as usize) {
                    *s = Some(name);
                    self.info.bots[seat as usize] = Some(bot);
                }
            }
            TableEvent::ChatSaid { .. } => {}
            TableEvent::SeatMuted { seat, muted, .. } => {
                if let Some(m) = self.muted.get_mut(seat as usize) {
                    *m = muted;
                }
            }
            TableEvent::TimeGiven { seconds, .. } => {
                let more = chrono::Duration::seconds(i64::from(seconds));
                if let Some(c) = &mut self.clock {
                    c.deadline += more;
                    // The mark a delayed viewer reads for this decision point moves too.
                    if let Some(Some(m)) = self.marks.iter_mut().rev().find(|m| m.is_some()) {
                        m.deadline += more;
                    }
                }
            }
        }
        Ok(())
    }

    /// A table with no event folded yet (its stream about to be read from the start).
    pub(super) fn blank(table_id: &str) -> Self {
        Snapshot {
            version: 0,
            info: TableInfo {
                table_id: table_id.into(),
                game: crate::names::GameName::from_id(G::GAME_ID).unwrap_or_default(),
                creator: String::new(),
                settings: G::default_settings(G::MIN_SEATS),
                practice: false,
                position: None,
                seats: Vec::new(),
                bots: Vec::new(),
                status: "open".into(),
                gathering: None,
                clocks: Clocks::default(),
                reaction_window_min_ms: 0,
                bot_delay_ms: 0,
                min_window_at_start: false,
                abandonment: DEFAULT_ABANDONMENT,
            },
            state: G::State::default(),
            events: Vec::new(),
            clock: None,
            ritual_timeouts: Vec::new(),
            times: Vec::new(),
            marks: Vec::new(),
            idempotency_keys: HashMap::new(),
            chat: Vec::new(),
            muted: Vec::new(),
        }
    }

    /// A table folded from the events it would store (its creation, its game), without a
    /// store: versions from 1, every event recorded at `at`. For the platform's own tests.
    #[cfg(test)]
    pub(crate) fn fold_new(
        table_id: &str,
        events: &[crate::store::NewEvent],
        at: chrono::DateTime<chrono::Utc>,
    ) -> Result<Self, StoreError> {
        let mut snap = Snapshot::blank(table_id);
        for (i, e) in events.iter().enumerate() {
            snap.apply_parts(i as i64 + 1, &e.event_type, e.schema_version, &e.payload, &e.metadata, at)?;
        }
        Ok(snap)
    }

    /// R10.13, R10.8: the table as `account` may see it. A practice position names both hands
    /// and the next draws, so during play it is shown only to the creator, and only while every
    /// seat the creator does not hold is a built-in bot; after the game, to everyone.
    pub fn info_for(&self, account: Option<&str>) -> TableInfo<G::Settings> {
        let mut info = self.info.clone();
        if !(self.finished() || self.creator_against_bots(account)) {
            info.position = None;
        }
        info
    }

    /// R10.13: whether `account` created this practice table and every seat it does not hold
    /// is a built-in bot: then, during play, it may see the whole game (its practice position,
    /// the whole position at any step).
    pub fn creator_against_bots(&self, account: Option<&str>) -> bool {
        let creator = self.info.creator.as_str();
        self.info.practice
            && account == Some(creator)
            && self
                .info
                .seats
                .iter()
                .zip(&self.info.bots)
                .all(|(holder, bot)| bot.is_some() || holder.as_deref() == Some(creator))
    }

    /// R10.4.2: the seats `account` holds whose prompt awaits an answer now (not one already
    /// answered inside a simultaneous window, R10.6.6), from the seats' own prompts only.
    pub fn awaiting(&self, account: &str) -> Vec<u8> {
        self.seats_of(account)
            .into_iter()
            .filter(|&s| G::prompt_for(&self.state, s).is_some_and(|p| G::prompt_info(&p).awaits_answer))
            .collect()
    }

    /// The seats `account` holds, in seat order.
    pub fn seats_of(&self, account: &str) -> Vec<u8> {
        self.info
            .seats
            .iter()
            .enumerate()
            .filter(|(_, a)| a.as_deref() == Some(account))
            .map(|(i, _)| i as u8)
            .collect()
    }

    /// R10.8: the viewer for `account` at this table: its seat (`seat` picks one when it holds
    /// several), or a spectator. After the game everybody sees everything. Errors:
    /// [`super::TableError::WrongSeat`] for a seat the account does not hold.
    pub fn viewer_for(&self, account: Option<&str>, seat: Option<u8>) -> Result<Viewer, super::TableError> {
        if self.finished() {
            return Ok(Viewer::Everything);
        }
        let mine = account.map(|a| self.seats_of(a)).unwrap_or_default();
        match seat {
            Some(s) if mine.contains(&s) => Ok(Viewer::Seat { seat: s }),
            Some(s) => Err(super::TableError::WrongSeat { seat: s }),
            None => Ok(mine.first().map_or(Viewer::Spectator, |&s| Viewer::Seat { seat: s })),
        }
    }
}
