//! Tables: one game each, one stream each (`table-<uuid>`). The stream starts with platform
//! events (`table_created`, `seat_taken`); from the start it holds the engine's events. Commands
//! load the stream (cached, then caught up from the store), run the engine's `decide`, and append
//! with the expected version; a conflicting append is retried on the fresh state.

use crate::bots::BotKind;
use crate::clocks::{ClockMark, Clocks};
use final_flicker::event::EVENT_SCHEMA_VERSION;
use final_flicker::{Command, Event, Settings, State, Viewer};
use flicker_store::{EventStore, Metadata, NewEvent, StoreError, StoredEvent};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use utoipa::ToSchema;

/// Why a table operation was refused. Each variant carries what its problem document says; a
/// refused command changes nothing.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    /// No table has this id (404 `not-found`).
    #[error("no table {table_id}")]
    NotFound {
        /// The id asked for.
        table_id: String,
    },
    /// The caller does not hold the seat it names (403 `wrong-seat`).
    #[error("you do not hold seat {seat}")]
    WrongSeat {
        /// The seat named.
        seat: u8,
    },
    /// The game has not started, so no game command applies (409 `not-started`).
    #[error("the table's game has not started")]
    NotStarted,
    /// The `Idempotency-Key` was used before for a different request (422
    /// `idempotency-key-reused`).
    #[error("this Idempotency-Key was used for a different request")]
    IdempotencyKeyReused,
    /// Concurrent appends kept winning the race (409 `busy`).
    #[error("the table changed too often while acting; try again")]
    Busy,
    /// R10.8: the commentary view is off for the table's gathering (403 `forbidden`).
    #[error("the commentary view is off for this table (a gathering setting, off by default)")]
    CommentaryOff,
    /// R10.8: only the gathering's organiser may take the commentary view (403 `forbidden`).
    #[error("only the gathering's organiser may take the commentary view")]
    NotOrganiser,
    /// The game has started: seats and the start are closed (409 `already-started`).
    #[error("the game has started")]
    AlreadyStarted,
    /// The seat asked for is held (409 `seat-taken`).
    #[error("seat {seat} is taken")]
    SeatTaken {
        /// The seat asked for.
        seat: u8,
    },
    /// The table has no such seat (400 `invalid-request`).
    #[error("no seat {seat} at this table")]
    NoSuchSeat {
        /// The seat asked for.
        seat: u8,
    },
    /// Every seat is held (409 `table-full`).
    #[error("every seat is taken")]
    TableFull,
    /// Only the table's creator may seat a built-in bot (403 `forbidden`).
    #[error("only the table's creator may seat a built-in bot")]
    CreatorSeatsBots,
    /// Only the table's creator may start it (403 `forbidden`).
    #[error("only the table's creator may start it")]
    CreatorStarts,
    /// The start needs every seat held (409 `seats-free`).
    #[error("every seat must be taken first")]
    SeatsFree,
    /// A spectator account may not do this (403 `forbidden`); `action` says what, e.g. `take
    /// seats`.
    #[error("spectators cannot {action}")]
    Spectator {
        /// What was refused.
        action: &'static str,
    },
    /// The request's values are out of range (400 `invalid-request`).
    #[error("{0}")]
    Invalid(String),
    /// The engine refused the command (the rule broken is in the error).
    #[error(transparent)]
    Rule(#[from] final_flicker::RuleError),
    /// The event store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Platform events of a table stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "payload", rename_all = "snake_case")]
pub enum TableEvent {
    /// The table was created.
    TableCreated {
        /// Its id.
        table_id: String,
        /// Who created it.
        creator: String,
        /// Engine settings.
        settings: Settings,
        /// A practice table (never counts in standings).
        practice: bool,
        /// The practice position it starts from, if any (R10.13).
        position: Option<String>,
        /// The gathering circle this table plays, if any (R9.3).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        gathering: Option<TableGathering>,
        /// Seats filled at creation (a gathering circle), in seat order.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        seated: Vec<SeatHolder>,
        /// R10.7.2: prompt clocks.
        #[serde(default)]
        clocks: Clocks,
        /// R10.6.5: minimum open time of a simultaneous window, in ms (0: none).
        #[serde(default)]
        reaction_window_min_ms: u32,
        /// R10.6.5: the creator gave no minimum window, so the start decides it from the seats
        /// ([`DEFAULT_MIN_WINDOW_MS`] with any person seated, else 0) and records it in the
        /// game's `hold_windows`.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        min_window_at_start: bool,
        /// Pause before a built-in bot answers, in ms (for people watching).
        #[serde(default)]
        bot_delay_ms: u32,
        /// R10.7.4: consecutive Ritual time-outs that count as a concession (0: never).
        #[serde(default = "default_abandonment")]
        abandonment: u8,
    },
    /// The creator seated a built-in bot.
    BotSeated {
        /// The seat.
        seat: u8,
        /// Its display name (contains `#`, which account names cannot).
        name: String,
        /// Its policy.
        bot: BotKind,
    },
    /// A seat was taken.
    SeatTaken {
        /// The seat.
        seat: u8,
        /// The account.
        account: String,
    },
}

/// R10.6.5: the minimum window of a table with at least one seat not held by a bot, in ms.
pub const DEFAULT_MIN_WINDOW_MS: u32 = 1500;

fn default_abandonment() -> u8 {
    3
}

/// R9.3: the gathering circle a table plays.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct TableGathering {
    /// The gathering's id.
    pub gathering_id: String,
    /// Stage number, from 1.
    pub stage: u32,
    /// Circle number within the stage, from 1.
    pub circle: u32,
}

/// Who holds a seat: an account, or a built-in bot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SeatHolder {
    /// Account name, or the bot's display name (`heuristic-bot#07`).
    pub name: String,
    /// The built-in bot's policy (absent: an account, person or external bot).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bot: Option<BotKind>,
}

/// What the platform knows of a table besides the game.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TableInfo {
    /// Table id.
    pub table_id: String,
    /// Creator's account name.
    pub creator: String,
    /// Engine settings.
    #[schema(value_type = Object)]
    pub settings: Settings,
    /// Practice table: never counts in standings.
    pub practice: bool,
    /// Practice position (R10.13), if any. During play it is shown only to the creator, and only
    /// while every other seat is a built-in bot (`null` otherwise); after the game to everyone.
    pub position: Option<String>,
    /// Account (or built-in bot name) holding each seat (`null`: free).
    pub seats: Vec<Option<String>>,
    /// The built-in bot's policy at each seat (`null`: no built-in bot).
    pub bots: Vec<Option<BotKind>>,
    /// `open` (taking seats), `playing` or `finished`.
    pub status: String,
    /// The gathering circle this table plays, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gathering: Option<TableGathering>,
    /// R10.7.2: prompt clocks.
    pub clocks: Clocks,
    /// R10.6.5: minimum open time of a simultaneous window, in ms.
    pub reaction_window_min_ms: u32,
    /// Pause before a built-in bot answers, in ms.
    #[serde(skip)]
    pub bot_delay_ms: u32,
    /// R10.6.5: the minimum window is decided at the start (see `TableEvent::TableCreated`).
    #[serde(skip)]
    pub min_window_at_start: bool,
    /// R10.7.4: consecutive Ritual time-outs that count as a concession (0: never).
    pub abandonment: u8,
}

/// A table folded from its stream.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// Stream version.
    pub version: i64,
    /// Platform information.
    pub info: TableInfo,
    /// The game (empty before the start).
    pub state: State,
    /// The game's events, in order.
    pub events: Vec<Event>,
    /// R10.7.3: when the open decision point opened and its deadline (server-side; `None`
    /// before the start and after the end).
    pub clock: Option<ClockMark>,
    /// R10.7.4: each seat's Ritual prompts timed out in a row.
    pub ritual_timeouts: Vec<u8>,
    /// When each engine event was recorded (for spectator delays).
    pub times: Vec<chrono::DateTime<chrono::Utc>>,
    /// R10.7.3: the clock mark stored with each engine event, if any (a delayed viewer sees the
    /// clock as it stood at its horizon).
    pub marks: Vec<Option<ClockMark>>,
    /// Each idempotency key stored in the stream (account-scoped) and the version of its first
    /// event, so a command at a known-current table checks its key without a query.
    pub idempotency_keys: std::collections::HashMap<String, i64>,
}

impl Snapshot {
    /// The parts of the table that [`crate::clocks::mark_for`] reads before an append.
    pub fn before(&self) -> crate::clocks::Before<'_> {
        crate::clocks::Before {
            state: &self.state,
            started: !self.events.is_empty(),
            clocks: self.info.clocks,
            reaction_window_min_ms: self.info.reaction_window_min_ms,
        }
    }

    fn apply(&mut self, e: &StoredEvent) -> Result<(), StoreError> {
        self.apply_parts(i64::from(e.stream_version), &e.event_type, &e.payload, &e.metadata, e.recorded_at)
    }

    /// Folds one event given by its parts: a stored event's, or one this process has just
    /// appended (so that it needs no read back).
    fn apply_parts(
        &mut self,
        version: i64,
        event_type: &str,
        payload: &serde_json::Value,
        metadata: &Metadata,
        recorded_at: chrono::DateTime<chrono::Utc>,
    ) -> Result<(), StoreError> {
        self.version = version;
        if let Some(k) = &metadata.command_key {
            self.idempotency_keys.entry(k.clone()).or_insert(version);
        }
        let tagged = serde_json::json!({"type": event_type, "payload": payload});
        if let Ok(t) = serde_json::from_value::<TableEvent>(tagged.clone()) {
            match t {
                TableEvent::TableCreated {
                    table_id,
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
                    let n = settings.players as usize;
                    let mut seats = vec![None; n];
                    let mut bots = vec![None; n];
                    for (i, h) in seated.into_iter().enumerate().take(n) {
                        seats[i] = Some(h.name);
                        bots[i] = h.bot;
                    }
                    self.info = TableInfo {
                        table_id,
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
                }
                TableEvent::SeatTaken { seat, account } => {
                    if let Some(s) = self.info.seats.get_mut(seat as usize) {
                        *s = Some(account);
                    }
                }
                TableEvent::BotSeated { seat, name, bot } => {
                    if let Some(s) = self.info.seats.get_mut(seat as usize) {
                        *s = Some(name);
                        self.info.bots[seat as usize] = Some(bot);
                    }
                }
            }
            return Ok(());
        }
        let ev: Event =
            serde_json::from_value(tagged).map_err(|err| StoreError::Other(format!("table event: {err}")))?;
        // R10.7.4: a Ritual that ends right after its seat's time-out mark timed out; an action
        // or an end given by hand resets the count.
        match &ev {
            Event::RitualEnded { seat, .. } => {
                let timed_out = matches!(self.events.last(), Some(Event::TimedOut { seats }) if seats == &[*seat]);
                if let Some(n) = self.ritual_timeouts.get_mut(*seat as usize) {
                    *n = if timed_out { n.saturating_add(1) } else { 0 };
                }
            }
            Event::ActionDeclared { actor, .. } => {
                if let Some(n) = self.ritual_timeouts.get_mut(*actor as usize) {
                    *n = 0;
                }
            }
            _ => {}
        }
        final_flicker::apply(&mut self.state, &ev);
        if let Event::GameCreated(g) = &ev
            && self.info.min_window_at_start
        {
            // R10.6.5: the start decided the minimum window; the game records it.
            self.info.settings.hold_windows = g.settings.hold_windows;
            self.info.reaction_window_min_ms = if g.settings.hold_windows { DEFAULT_MIN_WINDOW_MS } else { 0 };
        }
        self.events.push(ev);
        self.times.push(recorded_at);
        let mark = crate::clocks::mark_of(metadata).map_err(|err| StoreError::Other(format!("clock mark: {err}")))?;
        if let Some(c) = &mark {
            self.clock = Some(c.clone());
        }
        self.marks.push(mark);
        if self.state.is_finished() {
            self.clock = None;
        }
        self.info.status = if self.state.is_finished() { "finished".into() } else { "playing".into() };
        Ok(())
    }

    /// A table with no event folded yet (its stream about to be read from the start).
    fn blank(table_id: &str) -> Snapshot {
        Snapshot {
            version: 0,
            info: TableInfo {
                table_id: table_id.into(),
                creator: String::new(),
                settings: Settings::new(2),
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
                abandonment: 3,
            },
            state: State::new(),
            events: Vec::new(),
            clock: None,
            ritual_timeouts: Vec::new(),
            times: Vec::new(),
            marks: Vec::new(),
            idempotency_keys: std::collections::HashMap::new(),
        }
    }

    /// A table folded from the events it would store (its creation, its game), without a
    /// store: versions from 1, every event recorded at `at`. For the platform's own tests.
    #[cfg(test)]
    pub(crate) fn fold_new(
        table_id: &str,
        events: &[NewEvent],
        at: chrono::DateTime<chrono::Utc>,
    ) -> Result<Snapshot, StoreError> {
        let mut snap = Snapshot::blank(table_id);
        for (i, e) in events.iter().enumerate() {
            snap.apply_parts(i as i64 + 1, &e.event_type, &e.payload, &e.metadata, at)?;
        }
        Ok(snap)
    }

    /// R10.13, R10.8: the table as `account` may see it. A practice position names both hands
    /// and the next draws, so during play it is shown only to the creator, and only while every
    /// seat the creator does not hold is a built-in bot; after the game, to everyone.
    pub fn info_for(&self, account: Option<&str>) -> TableInfo {
        let mut info = self.info.clone();
        let creator = account == Some(self.info.creator.as_str());
        let only_bots = self
            .info
            .seats
            .iter()
            .zip(&self.info.bots)
            .all(|(holder, bot)| bot.is_some() || holder.as_deref() == Some(self.info.creator.as_str()));
        if !(self.state.is_finished() || creator && only_bots) {
            info.position = None;
        }
        info
    }

    /// The seats `account` holds.
    pub fn seats_of(&self, account: &str) -> Vec<u8> {
        self.info
            .seats
            .iter()
            .enumerate()
            .filter(|(_, a)| a.as_deref() == Some(account))
            .map(|(i, _)| i as u8)
            .collect()
    }
}

/// The stream id of a table.
pub fn stream_of(table_id: &str) -> String {
    format!("table-{table_id}")
}

/// Finished tables kept in the cache; older ones are dropped and read again when asked for.
const FINISHED_KEPT: usize = 1_000;

/// Loads and caches tables: every table in play, and the [`FINISHED_KEPT`] most recently
/// finished.
pub struct Tables {
    cache: Mutex<Cache>,
    /// R10.7.3: the server clock that dates the decision points of the commands appended here.
    pub clock: crate::clock::SharedClock,
}

impl Default for Tables {
    fn default() -> Self {
        Tables::with_clock(Arc::new(crate::clock::SystemClock))
    }
}

#[derive(Default)]
struct Cache {
    tables: HashMap<String, Arc<Snapshot>>,
    /// Cached finished tables, oldest first.
    finished: std::collections::VecDeque<String>,
}

/// Converts an engine event to a stored event.
pub fn engine_event(e: &Event, metadata: Metadata) -> NewEvent {
    let v = serde_json::to_value(e).expect("event json");
    NewEvent {
        event_type: e.type_name().to_string(),
        schema_version: EVENT_SCHEMA_VERSION as i32,
        payload: v.get("payload").cloned().unwrap_or(serde_json::Value::Null),
        metadata,
    }
}

/// Converts a platform event to a stored event.
pub fn table_event(e: &TableEvent, metadata: Metadata) -> NewEvent {
    let v = serde_json::to_value(e).expect("json");
    NewEvent {
        event_type: v["type"].as_str().expect("tag").to_string(),
        schema_version: 1,
        payload: v["payload"].clone(),
        metadata,
    }
}

impl Tables {
    /// An empty cache whose decision points are dated by `clock`.
    pub fn with_clock(clock: crate::clock::SharedClock) -> Self {
        Tables { cache: Mutex::default(), clock }
    }

    /// The table as stored now (404 if it does not exist).
    pub async fn load(&self, store: &dyn EventStore, table_id: &str) -> Result<Arc<Snapshot>, TableError> {
        let cached = self.cache.lock().expect("cache").tables.get(table_id).cloned();
        let stream = stream_of(table_id);
        // A store that knows the stream's head answers the catch-up read of a current table
        // without a query.
        let from = cached.as_ref().map_or(1, |s| s.version + 1);
        let new = store.read_stream(&stream, from.try_into()?).await?;
        if new.is_empty() {
            return cached.ok_or_else(|| TableError::NotFound { table_id: table_id.to_string() });
        }
        let mut snap = match cached {
            Some(s) => (*s).clone(),
            None => Snapshot::blank(table_id),
        };
        for e in &new {
            snap.apply(e)?;
        }
        Ok(self.remember(table_id, Arc::new(snap)))
    }

    /// Caches `snap` unless the cache holds a later version of its table; returns it.
    fn remember(&self, table_id: &str, snap: Arc<Snapshot>) -> Arc<Snapshot> {
        let mut cache = self.cache.lock().expect("cache");
        let before = cache.tables.get(table_id).map(|c| (c.version, c.state.is_finished()));
        if before.is_none_or(|(version, _)| version < snap.version) {
            cache.tables.insert(table_id.to_string(), snap.clone());
            if snap.state.is_finished() && !before.is_some_and(|(_, finished)| finished) {
                cache.finished.push_back(table_id.to_string());
                while cache.finished.len() > FINISHED_KEPT {
                    if let Some(old) = cache.finished.pop_front() {
                        cache.tables.remove(&old);
                    }
                }
            }
        }
        snap
    }

    /// Runs `decide_events` on the current table and appends what it returns, retrying on a
    /// concurrent append. `idempotency_key`: a retried request with the same key acts once.
    /// Returns the table after the append and whether this was a replay of an earlier request.
    /// `E`: the caller's error type, which the closure's refusals and every [`TableError`] of
    /// the command come as.
    pub async fn command<F, E>(
        &self,
        store: &dyn EventStore,
        table_id: &str,
        actor: &str,
        idempotency: Option<(&str, &str)>,
        decide_events: F,
    ) -> Result<(Arc<Snapshot>, bool), E>
    where
        F: FnMut(&Snapshot) -> Result<Vec<NewEvent>, E>,
        E: From<TableError>,
    {
        self.command_from(None, store, table_id, actor, idempotency, decide_events).await
    }

    /// [`Tables::command`], first trying the table as `first` (a snapshot the caller has just
    /// loaded, which spares a read): if it is no longer current, the append meets a conflict
    /// and the command is decided again on the table read afresh.
    pub async fn command_from<F, E>(
        &self,
        mut first: Option<Arc<Snapshot>>,
        store: &dyn EventStore,
        table_id: &str,
        actor: &str,
        idempotency: Option<(&str, &str)>,
        mut decide_events: F,
    ) -> Result<(Arc<Snapshot>, bool), E>
    where
        F: FnMut(&Snapshot) -> Result<Vec<NewEvent>, E>,
        E: From<TableError>,
    {
        let stream = stream_of(table_id);
        // The key is scoped to the account, so nobody can probe or block another's keys; the
        // request hash refuses the key's reuse for a different request.
        let scoped = idempotency.map(|(k, h)| (format!("{actor}:{k}"), h.to_string()));
        let replayed = |version: i64| async move {
            let first = store
                .read_stream(
                    &stream_of(table_id),
                    version.try_into().map_err(|e: crate::store::StoreError| TableError::from(e))?,
                )
                .await
                .map_err(TableError::from)?;
            let same = first.first().and_then(|e| e.metadata.command_hash.clone()) == scoped_hash(idempotency);
            if same { Ok::<_, TableError>(()) } else { Err(TableError::IdempotencyKeyReused) }
        };
        let find_key = |key: String| async move {
            store.find_command_key(&stream_of(table_id), &key).await.map(|v| v.map(i64::from)).map_err(TableError::from)
        };
        for _ in 0..5 {
            let snap = match first.take() {
                Some(s) => s,
                None => self.load(store, table_id).await?,
            };
            if let Some((key, _)) = &scoped {
                // The table is as current as a query would be, and indexes its keys. A request
                // with the key landing after this point makes the append below conflict (or hit
                // the store's unique key index), and the retry finds the key.
                if let Some(v) = snap.idempotency_keys.get(key).copied() {
                    replayed(v).await?;
                    return Ok((self.load(store, table_id).await?, true));
                }
            }
            let mut events = match decide_events(&snap) {
                Ok(e) => e,
                Err(p) => {
                    // A retry racing its original: the original may have landed meanwhile.
                    if let Some((key, _)) = &scoped
                        && let Some(v) = find_key(key.clone()).await?
                    {
                        replayed(v).await?;
                        return Ok((self.load(store, table_id).await?, true));
                    }
                    return Err(p);
                }
            };
            if events.is_empty() {
                // Nothing to store (an answer that changes nothing). A request with the
                // same key may have landed since the snapshot: it is honoured (replay, or
                // `idempotency-key-reused` for another body) like any retry.
                if let Some((key, _)) = &scoped
                    && let Some(v) = find_key(key.clone()).await?
                {
                    replayed(v).await?;
                    return Ok((self.load(store, table_id).await?, true));
                }
                return Ok((snap, false));
            }
            // R10.7.3: a new decision point gets its deadline now, stored with the events.
            if let Some(mark) = crate::clocks::mark_for(&snap.before(), &events, self.clock.now())
                && let Some(last) = events.last_mut()
            {
                crate::clocks::set_mark(&mut last.metadata, &mark);
            }
            let correlation = uuid::Uuid::new_v4().to_string();
            for (i, e) in events.iter_mut().enumerate() {
                e.metadata.actor = Some(actor.to_string());
                e.metadata.correlation_id = Some(correlation.clone());
                if i == 0 {
                    e.metadata.command_key = scoped.as_ref().map(|(k, _)| k.clone());
                    e.metadata.command_hash = scoped.as_ref().map(|(_, h)| h.clone());
                }
            }
            match store
                .append(
                    &stream,
                    snap.version.try_into().map_err(|e: crate::store::StoreError| E::from(TableError::from(e)))?,
                    events.clone(),
                )
                .await
            {
                // The stream is exactly `snap` and these events: fold them here, no read back.
                Ok(appended) => {
                    let mut next = (*snap).clone();
                    let folded = events.iter().enumerate().try_for_each(|(i, e)| {
                        let version = snap.version + 1 + i as i64;
                        next.apply_parts(version, &e.event_type, &e.payload, &e.metadata, appended.recorded_at)
                    });
                    // The append is durable whatever happens here: should the fold fail, the
                    // table is read back instead of answering an error.
                    return match folded {
                        Ok(()) => Ok((self.remember(table_id, Arc::new(next)), false)),
                        Err(_) => Ok((self.load(store, table_id).await?, false)),
                    };
                }
                Err(StoreError::Conflict { .. }) => continue,
                // Another request with this key landed between our lookup and our append. It may
                // have been a different request (same key, other body: e.g. another seat's open
                // prompt, still answerable after it), so its hash is checked like any replay's:
                // acknowledging it blindly told that client an answer was taken that never was
                // (found by the race test of tests/tests/reliability.rs).
                Err(StoreError::Duplicate { .. }) => {
                    if let Some((key, _)) = &scoped
                        && let Some(v) = find_key(key.clone()).await?
                    {
                        replayed(v).await?;
                    }
                    return Ok((self.load(store, table_id).await?, true));
                }
                Err(e) => return Err(TableError::from(e).into()),
            }
        }
        Err(TableError::Busy.into())
    }
}

fn scoped_hash(idempotency: Option<(&str, &str)>) -> Option<String> {
    idempotency.map(|(_, h)| h.to_string())
}

/// What the creator of a practice table asks for (R10.13, R10.6.5, R10.7.2, R10.7.4); the
/// absent values take their defaults.
#[derive(Debug, Clone)]
pub struct PracticeTable {
    /// The creator's account name.
    pub creator: String,
    /// Engine settings, checked by the engine already.
    pub settings: Settings,
    /// The practice position to start from, if any.
    pub position: Option<String>,
    /// Prompt clocks (default 60 s decisions, 15 s reactions).
    pub clocks: Option<Clocks>,
    /// Minimum open time of reaction windows, 0-10,000 ms (absent: the start decides).
    pub reaction_window_min_ms: Option<u32>,
    /// Pause before a built-in bot answers, 0-10,000 ms (default 0).
    pub bot_delay_ms: Option<u32>,
    /// Consecutive Ritual time-outs that count as a concession, 0-20 (default 3).
    pub abandonment: Option<u8>,
}

/// Checks a practice table's request and returns the event that creates it as `table_id`:
/// [`TableError::Invalid`] for a value out of range, the engine's refusal of a bad position
/// (checked with `rng` now, so that nothing is stored). R10.6.5: an explicit minimum window
/// wins; otherwise the start decides it from the seats.
pub fn create_practice<R: rand::Rng + ?Sized>(
    table_id: String,
    t: PracticeTable,
    rng: &mut R,
) -> Result<TableEvent, TableError> {
    let mut settings = t.settings;
    let clocks = t.clocks.unwrap_or_default();
    clocks.validate().map_err(TableError::Invalid)?;
    let min_window = t.reaction_window_min_ms.unwrap_or(0);
    let bot_delay = t.bot_delay_ms.unwrap_or(0);
    if min_window > 10_000 || bot_delay > 10_000 {
        return Err(TableError::Invalid("reaction_window_min_ms and bot_delay_ms are 0 to 10000".into()));
    }
    settings.hold_windows = min_window > 0;
    let abandonment = t.abandonment.unwrap_or(3);
    if abandonment > 20 {
        return Err(TableError::Invalid("abandonment is 0 to 20 (R10.7.4)".into()));
    }
    if let Some(p) = &t.position {
        final_flicker::position::create_from_position(&settings, p, rng)?;
    }
    Ok(TableEvent::TableCreated {
        table_id,
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
pub fn take_seat(
    snap: &Snapshot,
    account: &str,
    want: Option<u8>,
    bot: Option<BotKind>,
) -> Result<(u8, TableEvent), TableError> {
    if !snap.events.is_empty() {
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
pub fn any_person(snap: &Snapshot, bot_accounts: &[String]) -> bool {
    snap.info
        .seats
        .iter()
        .zip(&snap.info.bots)
        .any(|(name, bot)| bot.is_none() && name.as_ref().is_none_or(|n| !bot_accounts.contains(n)))
}

/// Starts the game (the creator only, once every seat is held): deals with `rng` from the
/// settings or the practice position. R10.6.5: a table whose creator gave no minimum window
/// holds its windows when any seat is held by a person (`bot_accounts`: the seat holders with
/// the `bot` role). Returns the engine's creation events.
pub fn start<R: rand::Rng + ?Sized>(
    snap: &Snapshot,
    account: &str,
    bot_accounts: &[String],
    rng: &mut R,
) -> Result<Vec<Event>, TableError> {
    if snap.info.creator != account {
        return Err(TableError::CreatorStarts);
    }
    if !snap.events.is_empty() {
        return Err(TableError::AlreadyStarted);
    }
    if snap.info.seats.iter().any(Option::is_none) {
        return Err(TableError::SeatsFree);
    }
    let mut settings = snap.info.settings.clone();
    if snap.info.min_window_at_start {
        settings.hold_windows = any_person(snap, bot_accounts);
    }
    Ok(match &snap.info.position {
        Some(p) => final_flicker::position::create_from_position(&settings, p, rng)?,
        None => final_flicker::create(&settings, rng)?,
    })
}

/// The engine's events for `cmd` at the table (its random draws from `rng`), as events to
/// store; [`TableError::NotStarted`] before the start, the engine's refusal as
/// [`TableError::Rule`].
pub fn decide<R: rand::Rng + ?Sized>(snap: &Snapshot, cmd: &Command, rng: &mut R) -> Result<Vec<NewEvent>, TableError> {
    if snap.events.is_empty() {
        return Err(TableError::NotStarted);
    }
    let events = final_flicker::decide(&snap.state, cmd, rng)?;
    Ok(events.iter().map(|e| engine_event(e, Metadata::default())).collect())
}

/// R10.8: the viewer for `account` at this table: its seat (`seat` picks one when it holds
/// several), or a spectator. After the game everybody sees everything.
pub fn viewer_for(snap: &Snapshot, account: Option<&str>, seat: Option<u8>) -> Result<Viewer, TableError> {
    if snap.state.is_finished() {
        return Ok(Viewer::Everything);
    }
    let mine = account.map(|a| snap.seats_of(a)).unwrap_or_default();
    match seat {
        Some(s) if mine.contains(&s) => Ok(Viewer::Seat { seat: s }),
        Some(s) => Err(TableError::WrongSeat { seat: s }),
        None => Ok(mine.first().map_or(Viewer::Spectator, |&s| Viewer::Seat { seat: s })),
    }
}

/// Creates a table whose game starts at once (a gathering circle): `created` and the engine's
/// creation events in one append at version 0, with the first decision point's clock (opened
/// `now`, server clock). `StoreError::Conflict` when the table already exists.
pub async fn create_with_game(
    store: &dyn EventStore,
    table_id: &str,
    created: &TableEvent,
    game: &[Event],
    actor: &str,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<(), StoreError> {
    let meta = Metadata { actor: Some(actor.to_string()), ..Default::default() };
    let first = table_event(created, meta.clone());
    let mut blank = Snapshot::blank(table_id);
    blank.apply(&StoredEvent {
        position: crate::store::Position::START,
        stream_id: stream_of(table_id),
        stream_version: crate::store::StreamVersion::new(1),
        event_type: first.event_type.clone(),
        schema_version: first.schema_version,
        payload: first.payload.clone(),
        payload_text: crate::store::hash::payload_text(&first.payload),
        hash: None,
        metadata: first.metadata.clone(),
        recorded_at: chrono::Utc::now(),
    })?;
    let mut events = vec![first];
    events.extend(game.iter().map(|e| engine_event(e, meta.clone())));
    if let Some(mark) = crate::clocks::mark_for(&blank.before(), &events[1..], now)
        && let Some(last) = events.last_mut()
    {
        crate::clocks::set_mark(&mut last.metadata, &mark);
    }
    store.append(&stream_of(table_id), crate::store::ExpectedVersion::NO_STREAM, events).await.map(|_| ())
}
