//! Loading and commanding tables ([`Tables`]): every table in play cached, a command decided on
//! the current table and appended at its expected version, a conflicting append retried on the
//! fresh state.

use super::events::{TABLE_EVENT_SCHEMA_VERSION, TableEvent};
use super::{Snapshot, TableError};
use crate::codec;
use crate::store::{EventStore, Metadata, NewEvent, StoreError, StoredEvent};
use flicker_game::Game;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// An idempotency key as the table stores it: scoped to the account that sent it (the key of
/// [`Snapshot::idempotency_keys`]).
pub fn scoped_key(actor: &str, key: &str) -> String {
    format!("{actor}:{key}")
}

/// The stream id of a table.
pub fn stream_of(table_id: &str) -> String {
    format!("table-{table_id}")
}

/// Finished tables kept in the cache; older ones are dropped and read again when asked for.
const FINISHED_KEPT: usize = 1_000;

/// Loads and caches tables: every table in play, and the [`FINISHED_KEPT`] most recently
/// finished.
pub struct Tables<G: Game> {
    cache: Mutex<Cache<G>>,
    /// This process's commands whose appends are in flight.
    inflight: super::inflight::InFlight,
    /// R10.7.3: the server clock that dates the decision points of the commands appended here.
    pub clock: crate::clock::SharedClock,
}

impl<G: Game> Default for Tables<G> {
    fn default() -> Self {
        Tables::with_clock(Arc::new(crate::clock::SystemClock))
    }
}

struct Cache<G: Game> {
    tables: HashMap<String, Arc<Snapshot<G>>>,
    /// Cached finished tables, oldest first.
    finished: std::collections::VecDeque<String>,
}

impl<G: Game> Default for Cache<G> {
    fn default() -> Self {
        Cache { tables: HashMap::new(), finished: Default::default() }
    }
}

/// A game event as an event to store (at the game's event schema version).
pub fn engine_event<G: Game>(e: &G::Event, metadata: Metadata) -> NewEvent {
    codec::encode(e, G::EVENT_SCHEMA_VERSION, metadata)
}

/// A table's own event as an event to store.
pub fn table_event<S: serde::Serialize>(e: &TableEvent<S>, metadata: Metadata) -> NewEvent {
    codec::encode(e, TABLE_EVENT_SCHEMA_VERSION, metadata)
}

impl<G: Game> Tables<G> {
    /// An empty cache whose decision points are dated by `clock`.
    pub fn with_clock(clock: crate::clock::SharedClock) -> Self {
        Tables { cache: Mutex::default(), inflight: Default::default(), clock }
    }

    /// The table as stored now (404 if it does not exist).
    pub async fn load(&self, store: &dyn EventStore, table_id: &str) -> Result<Arc<Snapshot<G>>, TableError> {
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

    /// [`Tables::load`], once no command of this process on the table has an append in flight
    /// (waiting 100 ms at most): for a task woken by the log for an append this process made,
    /// which then finds the table cached as folded by the command, without a read.
    pub async fn load_settled(&self, store: &dyn EventStore, table_id: &str) -> Result<Arc<Snapshot<G>>, TableError> {
        self.inflight.settled(table_id).await;
        self.load(store, table_id).await
    }

    /// The table `snap` to fold a command's events into: taken out of the cache without a copy
    /// when nobody else holds it (the cache's is the only other reference; a load meanwhile
    /// reads the stream, and the folded table is cached again at once), else a copy. A copy is
    /// O(events of the game), the larger part of a command's cost.
    fn own(&self, table_id: &str, snap: Arc<Snapshot<G>>) -> Snapshot<G> {
        if !snap.finished() {
            let mut cache = self.cache.lock().expect("cache");
            if Arc::strong_count(&snap) == 2 && cache.tables.get(table_id).is_some_and(|c| Arc::ptr_eq(c, &snap)) {
                cache.tables.remove(table_id);
            }
        }
        Arc::try_unwrap(snap).unwrap_or_else(|shared| (*shared).clone())
    }

    /// Caches `snap` unless the cache holds a later version of its table; returns it.
    fn remember(&self, table_id: &str, snap: Arc<Snapshot<G>>) -> Arc<Snapshot<G>> {
        let mut cache = self.cache.lock().expect("cache");
        let before = cache.tables.get(table_id).map(|c| (c.version, c.finished()));
        if before.is_none_or(|(version, _)| version < snap.version) {
            cache.tables.insert(table_id.to_string(), snap.clone());
            if snap.finished() && !before.is_some_and(|(_, finished)| finished) {
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
    ) -> Result<(Arc<Snapshot<G>>, bool), E>
    where
        F: FnMut(&Snapshot<G>) -> Result<Vec<NewEvent>, E>,
        E: From<TableError>,
    {
        self.command_from(None, store, table_id, actor, idempotency, decide_events).await
    }

    /// [`Tables::command`], first trying the table as `first` (a snapshot the caller has just
    /// loaded, which spares a read): if it is no longer current, the append meets a conflict
    /// and the command is decided again on the table read afresh.
    pub async fn command_from<F, E>(
        &self,
        mut first: Option<Arc<Snapshot<G>>>,
        store: &dyn EventStore,
        table_id: &str,
        actor: &str,
        idempotency: Option<(&str, &str)>,
        mut decide_events: F,
    ) -> Result<(Arc<Snapshot<G>>, bool), E>
    where
        F: FnMut(&Snapshot<G>) -> Result<Vec<NewEvent>, E>,
        E: From<TableError>,
    {
        let stream = stream_of(table_id);
        // The key is scoped to the account, so nobody can probe or block another's keys; the
        // request hash refuses the key's reuse for a different request.
        let scoped = idempotency.map(|(k, h)| (scoped_key(actor, k), h.to_string()));
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
        // Whether the table has been read afresh in this command (see `settled` below).
        let mut confirmed = false;
        for _ in 0..5 {
            let snap = match first.take() {
                Some(s) => s,
                None => self.load(store, table_id).await?,
            };
            // A store with several processes may answer from a head it learnt from the log
            // (PostgreSQL), a moment behind another process's append. An append from such a
            // table conflicts; a refusal, or a command that stores nothing, is confirmed on the
            // table read afresh, and decided again if that one is newer.
            let mut settled = async |snap: &Arc<Snapshot<G>>| -> Result<Option<Arc<Snapshot<G>>>, TableError> {
                if confirmed {
                    return Ok(None);
                }
                confirmed = true;
                let now = crate::store::fresh(self.load(store, table_id)).await?;
                Ok((now.version != snap.version).then_some(now))
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
                    if let Some(newer) = settled(&snap).await? {
                        first = Some(newer);
                        continue;
                    }
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
                if let Some(newer) = settled(&snap).await? {
                    first = Some(newer);
                    continue;
                }
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
            // Until the table is cached as folded below (or the append fails).
            let _inflight = self.inflight.begin(table_id);
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
                    let base = snap.version;
                    let mut next = self.own(table_id, snap);
                    let folded = events.iter().enumerate().try_for_each(|(i, e)| {
                        let version = base + 1 + i as i64;
                        next.apply_parts(
                            version,
                            &e.event_type,
                            e.schema_version,
                            &e.payload,
                            &e.metadata,
                            appended.recorded_at,
                        )
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

/// What a [`Tables::chain`] did.
pub enum Chained<G: Game> {
    /// Nothing was due: nothing appended.
    Nothing,
    /// The chain is stored: the table after it.
    Appended(Arc<Snapshot<G>>),
    /// Another writer appended first: nothing stored, the chain was computed for nothing.
    Conflict,
}

/// One command of a [`Tables::chain`]: who acts and the events it decided.
pub struct Link {
    /// The actor stored with its events (`bot:…`).
    pub actor: String,
    /// Its events, as [`super::decide`] gives them.
    pub events: Vec<NewEvent>,
}

impl<G: Game> Tables<G> {
    /// A chain of commands in one durable append: `next` is asked for the next command on the
    /// table as folded in memory so far (starting from `first`, a snapshot the caller has just
    /// loaded) until it answers `None`, the game ends or the chain holds `max_events` events or more (the
    /// command that reaches `max_events` is the last: a command's events are never split).
    /// Each command is stored as it would be alone (its actor, its own correlation id, and
    /// R10.7.3: a new decision point's clock mark on its last event, dated by this table's
    /// clock at `now`, the time at which the caller plans the chain), so the stream reads
    /// exactly as if they had been appended one by one. Built-in
    /// bots answering one after another with no delay use it: one append, one wake-up and one
    /// snapshot copy for the chain instead of one per answer.
    ///
    /// Returns the table after the append ([`Chained::Appended`]), [`Chained::Nothing`] when
    /// `next` gave nothing, or [`Chained::Conflict`] when another writer appended first (the
    /// caller plans again on the table read afresh).
    pub async fn chain<F>(
        &self,
        first: Arc<Snapshot<G>>,
        store: &dyn EventStore,
        now: chrono::DateTime<chrono::Utc>,
        max_events: usize,
        mut next: F,
    ) -> Result<Chained<G>, TableError>
    where
        F: FnMut(&Snapshot<G>) -> Option<Link>,
    {
        let table_id = first.info.table_id.clone();
        let mut scratch = (*first).clone();
        let times_before = scratch.times.len();
        let mut batch: Vec<NewEvent> = Vec::new();
        while batch.len() < max_events && !scratch.finished() {
            let Some(Link { actor, mut events }) = next(&scratch) else { break };
            if events.is_empty() {
                break;
            }
            if let Some(mark) = crate::clocks::mark_for(&scratch.before(), &events, now)
                && let Some(last) = events.last_mut()
            {
                crate::clocks::set_mark(&mut last.metadata, &mark);
            }
            let correlation = uuid::Uuid::new_v4().to_string();
            for e in &mut events {
                e.metadata.actor = Some(actor.clone());
                e.metadata.correlation_id = Some(correlation.clone());
                let version = scratch.version + 1;
                scratch.apply_parts(version, &e.event_type, e.schema_version, &e.payload, &e.metadata, now)?;
            }
            batch.extend(events);
        }
        if batch.is_empty() {
            return Ok(Chained::Nothing);
        }
        match store.append(&stream_of(&table_id), first.version.try_into()?, batch).await {
            Ok(appended) => {
                // The stream is exactly `first` and the chain: the fold needs only the stored time.
                for t in &mut scratch.times[times_before..] {
                    *t = appended.recorded_at;
                }
                Ok(Chained::Appended(self.remember(&table_id, Arc::new(scratch))))
            }
            Err(StoreError::Conflict { .. }) => Ok(Chained::Conflict),
            Err(e) => Err(e.into()),
        }
    }
}

fn scoped_hash(idempotency: Option<(&str, &str)>) -> Option<String> {
    idempotency.map(|(_, h)| h.to_string())
}

/// Creates a table whose game starts at once (a gathering circle): `created` and the engine's
/// creation events in one append at version 0, with the first decision point's clock (opened
/// `now`, server clock). `StoreError::Conflict` when the table already exists.
pub async fn create_with_game<G: Game>(
    store: &dyn EventStore,
    table_id: &str,
    created: &TableEvent<G::Settings>,
    game: &[G::Event],
    actor: &str,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<(), StoreError> {
    let meta = Metadata { actor: Some(actor.to_string()), ..Default::default() };
    let first = table_event(created, meta.clone());
    let mut blank = Snapshot::<G>::blank(table_id);
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
    events.extend(game.iter().map(|e| engine_event::<G>(e, meta.clone())));
    if let Some(mark) = crate::clocks::mark_for(&blank.before(), &events[1..], now)
        && let Some(last) = events.last_mut()
    {
        crate::clocks::set_mark(&mut last.metadata, &mark);
    }
    store.append(&stream_of(table_id), crate::store::ExpectedVersion::NO_STREAM, events).await.map(|_| ())
}
