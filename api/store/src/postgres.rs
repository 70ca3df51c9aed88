//! PostgreSQL event store: several API processes can share one database. Appends take their
//! stream's advisory lock and check its current version inside their transaction, and the
//! unique (stream, version) index backs that, so concurrent appends to one stream conflict while
//! other streams never wait. Appends are group-committed: writer tasks take every append queued
//! while their previous batch ran and send them as one call of the `flicker_append` function
//! (migration 0004), which checks and inserts each on its own in one transaction (one round
//! trip, one WAL flush); an append is answered once its batch has committed. A committed append
//! wakes this process's subscribers directly, and a notifier task sends `NOTIFY flicker_events`
//! with the latest position (one for all the appends committed while the previous one ran);
//! every process LISTENs.
//!
//! Each process learns stream heads from its appends, its reads and the log it follows
//! ([`heads`]), and answers a cached table's catch-up read from them when it may trust them.

mod heads;
mod notify;

use notify::{Announce, CHANNEL, listen, notifier};

use crate::hash::{GENESIS, event_hash, parse_hash, payload_text, rechain, to_hex};
use crate::{
    Appended, EventStore, ExpectedVersion, Gaps, Metadata, NewEvent, Position, Secret, StoreError, StoredEvent,
    StreamVersion, Subscription, catch_up, position_of, version_of,
};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use sqlx::Row;
use sqlx::postgres::{PgConnectOptions, PgListener, PgPool, PgPoolOptions};
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use tokio::sync::{broadcast, mpsc, oneshot};

/// The PostgreSQL store.
pub struct PgStore {
    shared: Arc<Shared>,
    /// The appends waiting for a writer task.
    writer: mpsc::Sender<Pending>,
}

/// What the store and its writer tasks share.
struct Shared {
    pool: PgPool,
    notify: broadcast::Sender<Position>,
    /// The latest position committed here, for the notifier task to announce.
    announce: Arc<Announce>,
    /// Why the last append failed for want of space; `None` while appends commit.
    full: std::sync::Mutex<Option<String>>,
    /// Stream heads learnt here and how far the log is followed.
    heads: heads::Heads,
    /// The backend process id of the notifier's connection (0: none), whose notifications
    /// this process's listener ignores (they announce its own commits).
    notifier_pid: AtomicU32,
    /// A random id of this store instance, in the tokens it hands out.
    instance: u64,
}

impl Shared {
    fn note_failure(&self, e: &StoreError) {
        if let StoreError::Full(m) = e {
            tracing::error!(error = %m, "the event store is full; refusing writes until space is free");
            *self.full.lock().expect("full") = Some(m.clone());
        }
    }
}

/// One append waiting for a writer task, and where to answer it.
struct Pending {
    stream: String,
    expected: i64,
    events: Vec<NewEvent>,
    reply: oneshot::Sender<Result<Appended, StoreError>>,
}

/// The most appends one `flicker_append` call carries.
const MAX_BATCH: usize = 256;

/// Writer tasks (each one batch in flight on its own connection) unless `FLICKER_PG_WRITERS`
/// says otherwise (1 to 16).
const WRITERS: usize = 2;

/// One connection attempt before the pool is built, so that a server that cannot be reached
/// is reported at once with its host, port and the reason (the pool would retry silently for
/// its acquire timeout, then say only "pool timed out"). Gives up after 10 s of no answer.
async fn reachable(opts: &PgConnectOptions) -> Result<(), StoreError> {
    use sqlx::{ConnectOptions, Connection};
    let at = format!("{}:{} (database {})", opts.get_host(), opts.get_port(), opts.get_database().unwrap_or("default"));
    match tokio::time::timeout(std::time::Duration::from_secs(10), opts.connect()).await {
        Ok(Ok(c)) => {
            let _ = c.close().await;
            Ok(())
        }
        Ok(Err(e)) => Err(StoreError::Other(format!("cannot reach PostgreSQL at {at}: {e}"))),
        Err(_) => Err(StoreError::Other(format!("cannot reach PostgreSQL at {at}: no answer within 10 s"))),
    }
}

impl PgStore {
    /// Connects, applies the migrations and starts listening for notifications.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        // Acknowledged only once durable, whatever the server's default.
        let opts = PgConnectOptions::from_str(url)?.options([("synchronous_commit", "on")]);
        reachable(&opts).await?;
        let pool = PgPoolOptions::new().max_connections(16).connect_with(opts.clone()).await?;
        crate::migrations::migrator(crate::migrations::POSTGRES).run(&pool).await?;
        let (notify, _) = broadcast::channel(4096);
        let mut listener = PgListener::connect_with(&pool).await?;
        listener.listen(CHANNEL).await?;
        let announce = Arc::new(Announce::default());
        let shared = Arc::new(Shared {
            pool,
            notify,
            announce: announce.clone(),
            full: Default::default(),
            heads: Default::default(),
            notifier_pid: AtomicU32::new(0),
            instance: uuid::Uuid::new_v4().as_u64_pair().0,
        });
        tokio::spawn(listen(listener, Arc::downgrade(&shared)));
        tokio::spawn(notifier(opts, Arc::downgrade(&shared), announce));
        let (writer, rx) = mpsc::channel(4096);
        let rx = Arc::new(tokio::sync::Mutex::new(rx));
        let writers = std::env::var("FLICKER_PG_WRITERS")
            .ok()
            .and_then(|w| w.parse::<usize>().ok())
            .filter(|w| (1..=16).contains(w))
            .unwrap_or(WRITERS);
        for _ in 0..writers {
            tokio::spawn(writer_task(shared.clone(), rx.clone()));
        }
        Ok(PgStore { shared, writer })
    }
}

/// Group commit: takes every append queued (up to [`MAX_BATCH`]), appends them with one call,
/// answers each, and starts again. While one writer's batch runs, the next writer gathers the
/// appends that arrive meanwhile. Ends when the store is dropped.
async fn writer_task(shared: Arc<Shared>, rx: Arc<tokio::sync::Mutex<mpsc::Receiver<Pending>>>) {
    loop {
        let batch = {
            let mut rx = rx.lock().await;
            let Some(first) = rx.recv().await else { return };
            let mut batch = vec![first];
            while batch.len() < MAX_BATCH {
                match rx.try_recv() {
                    Ok(p) => batch.push(p),
                    Err(_) => break,
                }
            }
            batch
        };
        shared.write(batch).await;
    }
}

/// How one append of a batch ended.
enum Outcome {
    Done(Appended),
    Failed(StoreError),
    /// The stream's head has no hash (stored before migration 0002): appended the old way.
    Legacy,
}

impl Shared {
    /// Appends a batch and answers every append in it, once committed.
    async fn write(&self, batch: Vec<Pending>) {
        let items: Vec<&Pending> = batch.iter().collect();
        let outcomes = match call_append(&self.pool, &items).await {
            Ok(o) => o,
            // A unique violation the checks did not foresee (a writer that does not take the
            // stream's lock) rolls back the whole batch: each append then goes alone, so only
            // its own fails.
            Err(e) if items.len() > 1 && is_unique_violation(&e).is_some() => {
                let mut outcomes = Vec::with_capacity(items.len());
                for p in &items {
                    outcomes.push(match call_append(&self.pool, std::slice::from_ref(p)).await {
                        Ok(mut o) => o.pop().unwrap_or_else(|| Outcome::Failed(StoreError::Other("no answer".into()))),
                        Err(e) => Outcome::Failed(alone_failure(p, e)),
                    });
                }
                outcomes
            }
            Err(e) if items.len() == 1 => vec![Outcome::Failed(alone_failure(items[0], e))],
            // The batch failed as a whole (each append is marked as failing for want of space
            // below, once).
            Err(e) => {
                let e = pg_error(e);
                let full = match &e {
                    StoreError::Full(m) => Some(m.clone()),
                    _ => None,
                };
                items
                    .iter()
                    .map(|_| {
                        Outcome::Failed(match &full {
                            Some(m) => StoreError::Full(m.clone()),
                            None => StoreError::Other(format!("append failed: {e}")),
                        })
                    })
                    .collect()
            }
        };
        let mut results = Vec::with_capacity(batch.len());
        for (p, o) in batch.iter().zip(outcomes) {
            results.push(match o {
                Outcome::Done(a) => Ok(a),
                Outcome::Failed(e) => {
                    self.note_failure(&e);
                    Err(e)
                }
                Outcome::Legacy => {
                    let r = append_alone(&self.pool, &p.stream, p.expected, &p.events).await;
                    if let Err(e) = &r {
                        self.note_failure(e);
                    }
                    r
                }
            });
        }
        // Raised before anyone hears of the append: its answer, a subscriber, the notifier.
        for (p, r) in batch.iter().zip(&results) {
            match r {
                Ok(a) => self.heads.raise(&p.stream, i64::from(a.version)),
                Err(StoreError::Conflict { actual, .. }) => self.heads.raise(&p.stream, i64::from(*actual)),
                Err(_) => {}
            }
        }
        let last = results.iter().filter_map(|r| r.as_ref().ok()).map(|a| i64::from(a.position)).max();
        if let Some(position) = last {
            self.heads.committed(position);
            *self.full.lock().expect("full") = None;
        }
        // The appends are answered before the subscribers hear of them: a command folds its own
        // events into its cached table while a subscriber reads the log, so that the table task
        // the subscriber wakes finds the cache current more often (no read of the stream).
        for (p, r) in batch.into_iter().zip(results) {
            let _ = p.reply.send(r);
        }
        if let Some(position) = last {
            // This process's subscribers at once; the others through the notifier's NOTIFY.
            let _ = self.notify.send(position_of(position));
            self.announce.latest.fetch_max(position, Ordering::SeqCst);
            self.announce.wake.notify_one();
        }
    }
}

/// One append that failed alone, with its statement's error: a unique violation is a duplicate
/// command key or a version taken meanwhile.
fn alone_failure(p: &Pending, err: sqlx::Error) -> StoreError {
    match is_unique_violation(&err).as_deref() {
        Some("events_idempotency") => StoreError::Duplicate { stream: p.stream.clone() },
        Some(_) => StoreError::Conflict {
            stream: p.stream.clone(),
            expected: version_of(p.expected),
            actual: version_of(p.expected + 1),
        },
        None => pg_error(err),
    }
}

/// One call of `flicker_append` for `items`, in autocommit (its own transaction): the outcome
/// of each, in order.
async fn call_append(pool: &PgPool, items: &[&Pending]) -> Result<Vec<Outcome>, sqlx::Error> {
    let now = crate::to_micros(Utc::now());
    let total: usize = items.iter().map(|p| p.events.len()).sum();
    let mut streams = Vec::with_capacity(items.len());
    let mut expected = Vec::with_capacity(items.len());
    let mut counts = Vec::with_capacity(items.len());
    let mut types = Vec::with_capacity(total);
    let mut schemas = Vec::with_capacity(total);
    let mut payloads = Vec::with_capacity(total);
    let mut metadata = Vec::with_capacity(total);
    let mut keys: Vec<Option<&str>> = Vec::with_capacity(total);
    for p in items {
        streams.push(p.stream.as_str());
        expected.push(p.expected);
        counts.push(i32::try_from(p.events.len()).unwrap_or(i32::MAX));
        for e in &p.events {
            types.push(e.event_type.as_str());
            schemas.push(e.schema_version);
            payloads.push(payload_text(&e.payload));
            metadata.push(serde_json::to_string(&e.metadata).expect("json"));
            keys.push(e.metadata.command_key.as_deref());
        }
    }
    let rows = sqlx::query(
        "SELECT item, outcome, version, last_position FROM flicker_append($1, $2, $3, $4, $5, $6, $7, $8, $9)",
    )
    .bind(&streams)
    .bind(&expected)
    .bind(&counts)
    .bind(now)
    .bind(&types)
    .bind(&schemas)
    .bind(&payloads)
    .bind(&metadata)
    .bind(&keys)
    .fetch_all(pool)
    .await?;
    let mut outcomes: Vec<Option<Outcome>> = items.iter().map(|_| None).collect();
    for r in rows {
        let i = usize::try_from(r.get::<i32, _>(0)).unwrap_or(usize::MAX);
        let (Some(slot), Some(p)) = (outcomes.get_mut(i), items.get(i)) else { continue };
        let version: Option<i64> = r.get(2);
        *slot = Some(match r.get::<&str, _>(1) {
            "ok" => Outcome::Done(Appended {
                version: version_of(version.unwrap_or(p.expected)),
                position: position_of(r.get::<Option<i64>, _>(3).unwrap_or(0)),
                recorded_at: now,
            }),
            "conflict" => Outcome::Failed(StoreError::Conflict {
                stream: p.stream.clone(),
                expected: version_of(p.expected),
                actual: version_of(version.unwrap_or(0)),
            }),
            "duplicate" => Outcome::Failed(StoreError::Duplicate { stream: p.stream.clone() }),
            "legacy" => Outcome::Legacy,
            other => Outcome::Failed(StoreError::Other(format!("flicker_append: unknown outcome {other}"))),
        });
    }
    Ok(outcomes
        .into_iter()
        .map(|o| o.unwrap_or_else(|| Outcome::Failed(StoreError::Other("flicker_append gave no outcome".into()))))
        .collect())
}

fn is_unique_violation(e: &sqlx::Error) -> Option<String> {
    match e {
        sqlx::Error::Database(d) if d.code().as_deref() == Some("23505") => d.constraint().map(String::from),
        _ => None,
    }
}

fn row_to_event(r: &sqlx::postgres::PgRow) -> Result<StoredEvent, StoreError> {
    let metadata: serde_json::Value = r.get("metadata");
    Ok(StoredEvent {
        position: position_of(r.get("position")),
        stream_id: r.get("stream_id"),
        stream_version: version_of(r.get("stream_version")),
        event_type: r.get("event_type"),
        schema_version: r.get("schema_version"),
        payload: r.get("payload"),
        payload_text: r.get("payload_text"),
        hash: r.get("hash"),
        metadata: serde_json::from_value::<Metadata>(metadata)
            .map_err(|e| StoreError::Other(format!("stored metadata: {e}")))?,
        recorded_at: r.get::<DateTime<Utc>, _>("recorded_at"),
    })
}

/// An event's head (see [`EventStore::read_all_heads`]).
fn row_to_head(r: &sqlx::postgres::PgRow) -> StoredEvent {
    StoredEvent {
        position: position_of(r.get("position")),
        stream_id: r.get("stream_id"),
        stream_version: version_of(r.get("stream_version")),
        event_type: r.get("event_type"),
        schema_version: r.get("schema_version"),
        payload: serde_json::Value::Null,
        payload_text: String::new(),
        hash: None,
        metadata: Metadata::default(),
        recorded_at: r.get::<DateTime<Utc>, _>("recorded_at"),
    }
}

/// The body of an append inside `tx` (the caller commits or rolls back): the new version, the
/// last position and the time recorded.
async fn append_in(
    tx: &mut sqlx::Transaction<'static, sqlx::Postgres>,
    stream: &str,
    expected: i64,
    events: &[NewEvent],
) -> Result<(i64, i64, DateTime<Utc>), StoreError> {
    // Writers of one stream queue here, so a losing append sees the new version and fails
    // before it inserts: it never takes a position, and the global log keeps no gap that a
    // subscriber would have to wait out. Other streams never wait.
    sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))")
        .bind(stream)
        .execute(&mut **tx)
        .await
        .map_err(pg_error)?;
    let head = sqlx::query(
        "SELECT stream_version, hash FROM events WHERE stream_id = $1 ORDER BY stream_version DESC LIMIT 1",
    )
    .bind(stream)
    .fetch_optional(&mut **tx)
    .await
    .map_err(pg_error)?;
    let (current, mut prev) = match head {
        None => (0, GENESIS),
        Some(r) => {
            let version: i64 = r.get(0);
            match r.get::<Option<String>, _>(1).as_deref().and_then(parse_hash) {
                Some(hash) => (version, hash),
                // Appended before the hash column: chain from its recomputed hash.
                None => {
                    let rows = sqlx::query(
                            "SELECT *, payload::text AS payload_text FROM events WHERE stream_id = $1 ORDER BY stream_version",
                        )
                        .bind(stream)
                        .fetch_all(&mut **tx)
                        .await
                .map_err(pg_error)?;
                    let events = rows.iter().map(row_to_event).collect::<Result<Vec<_>, _>>()?;
                    let chain = rechain(stream, &events).map_err(StoreError::Other)?;
                    (version, chain.last().map_or(GENESIS, |e| e.hash))
                }
            }
        }
    };
    if current != expected {
        return Err(StoreError::Conflict {
            stream: stream.into(),
            expected: version_of(expected),
            actual: version_of(current),
        });
    }
    // The exact text each payload will be stored as (JSONB's rendering), which its hash
    // covers and `payload::text` gives back.
    let texts: Vec<String> = events.iter().map(|e| payload_text(&e.payload)).collect();
    let stored: Vec<String> =
        sqlx::query("SELECT t::jsonb::text FROM unnest($1::text[]) WITH ORDINALITY AS u(t, i) ORDER BY i")
            .bind(&texts)
            .fetch_all(&mut **tx)
            .await?
            .iter()
            .map(|r| r.get(0))
            .collect();
    let now = crate::to_micros(Utc::now());
    // All the events in one multi-row INSERT (rows take their positions in list order).
    let mut version = expected;
    let mut rows = Vec::with_capacity(events.len());
    for (e, text) in events.iter().zip(&stored) {
        version += 1;
        let hash = event_hash(&prev, stream, version, &e.event_type, e.schema_version, text.as_bytes());
        rows.push((version, e, text, to_hex(&hash)));
        prev = hash;
    }
    let mut position = 0;
    for chunk in rows.chunks(100) {
        let sql = crate::insert_events_sql(chunk.len(), "::jsonb");
        let mut q = sqlx::query(sqlx::AssertSqlSafe(sql));
        for (v, e, text, hash) in chunk {
            q = q
                .bind(stream)
                .bind(*v)
                .bind(&e.event_type)
                .bind(e.schema_version)
                .bind(*text)
                .bind(serde_json::to_value(&e.metadata).expect("json"))
                .bind(e.metadata.command_key.as_deref())
                .bind(now)
                .bind(hash);
        }
        match q.fetch_all(&mut **tx).await {
            Ok(rs) => {
                for r in rs {
                    position = position.max(r.get::<i64, _>(0));
                }
            }
            Err(err) => {
                return Err(match is_unique_violation(&err).as_deref() {
                    Some("events_idempotency") => StoreError::Duplicate { stream: stream.into() },
                    Some(_) => StoreError::Conflict {
                        stream: stream.into(),
                        expected: version_of(expected),
                        actual: version_of(expected + 1),
                    },
                    None => pg_error(err),
                });
            }
        }
    }
    Ok((version, position, now))
}

/// A database error as a store error: [`StoreError::Full`] for `disk_full` (SQLSTATE 53100).
fn pg_error(e: sqlx::Error) -> StoreError {
    match e.as_database_error().and_then(|d| d.code()) {
        Some(c) if c == "53100" => StoreError::Full(e.to_string()),
        _ => StoreError::from(e),
    }
}

/// An append in a transaction of its own, computing the hashes here: for a stream whose head
/// was stored before the hash column (the batch function leaves those to this).
async fn append_alone(pool: &PgPool, stream: &str, expected: i64, events: &[NewEvent]) -> Result<Appended, StoreError> {
    let mut tx = pool.begin().await.map_err(pg_error)?;
    let (version, position, now) = match append_in(&mut tx, stream, expected, events).await {
        Ok(done) => done,
        Err(e) => {
            // End the failed transaction here and now (not on drop, later), so
            // its connection goes back to the pool clean.
            if let Err(r) = tx.rollback().await {
                tracing::warn!(error = %r, "rolling back a failed append failed; the connection is dropped");
            }
            return Err(e);
        }
    };
    tx.commit().await.map_err(|err| match is_unique_violation(&err) {
        Some(_) => StoreError::Conflict {
            stream: stream.into(),
            expected: version_of(expected),
            actual: version_of(expected + 1),
        },
        None => pg_error(err),
    })?;
    Ok(Appended { version: version_of(version), position: position_of(position), recorded_at: now })
}

#[async_trait]
impl EventStore for PgStore {
    async fn append(
        &self,
        stream: &str,
        expected: ExpectedVersion,
        events: Vec<NewEvent>,
    ) -> Result<Appended, StoreError> {
        let (reply, answer) = oneshot::channel();
        let pending = Pending { stream: stream.into(), expected: i64::from(expected.version()), events, reply };
        self.writer.send(pending).await.map_err(|_| StoreError::Other("the store's writers have stopped".into()))?;
        answer.await.map_err(|_| StoreError::Other("the store's writer dropped the append".into()))?
    }

    /// A read from past a head this process may trust ([`heads`]) answers empty without a query
    /// (a cached table's catch-up read at its head).
    async fn read_stream(&self, stream: &str, from: StreamVersion) -> Result<Vec<StoredEvent>, StoreError> {
        let from_version = i64::from(from);
        let heads = &self.shared.heads;
        if heads.current(stream, from_version) {
            return Ok(Vec::new());
        }
        let rows =
            sqlx::query(
                "SELECT *, payload::text AS payload_text FROM events WHERE stream_id = $1 AND stream_version >= $2 ORDER BY stream_version",
            )
                .bind(stream)
                .bind(from_version)
                .fetch_all(&self.shared.pool)
                .await?;
        let events: Vec<StoredEvent> = rows.iter().map(row_to_event).collect::<Result<_, _>>()?;
        match events.last() {
            Some(last) => heads.raise(stream, i64::from(last.stream_version)),
            None => heads.confirm(stream, from_version - 1),
        }
        Ok(events)
    }

    async fn read_all(&self, after: Position, limit: usize) -> Result<Vec<StoredEvent>, StoreError> {
        let rows = sqlx::query(
            "SELECT *, payload::text AS payload_text FROM events WHERE position > $1 ORDER BY position LIMIT $2",
        )
        .bind(i64::from(after))
        .bind(i64::try_from(limit).unwrap_or(i64::MAX))
        .fetch_all(&self.shared.pool)
        .await?;
        let events: Vec<StoredEvent> = rows.iter().map(row_to_event).collect::<Result<_, _>>()?;
        self.shared.heads.raise_all(&events);
        Ok(events)
    }

    async fn read_all_heads(&self, after: Position, limit: usize) -> Result<Vec<StoredEvent>, StoreError> {
        let rows = sqlx::query(
            "SELECT position, stream_id, stream_version, event_type, schema_version, recorded_at FROM events \
             WHERE position > $1 ORDER BY position LIMIT $2",
        )
        .bind(i64::from(after))
        .bind(i64::try_from(limit).unwrap_or(i64::MAX))
        .fetch_all(&self.shared.pool)
        .await?;
        let events: Vec<StoredEvent> = rows.iter().map(row_to_head).collect();
        self.shared.heads.raise_all(&events);
        Ok(events)
    }

    async fn read_last(&self, stream: &str) -> Result<Option<StoredEvent>, StoreError> {
        let row = sqlx::query(
            "SELECT *, payload::text AS payload_text FROM events WHERE stream_id = $1 ORDER BY stream_version DESC LIMIT 1",
        )
        .bind(stream)
        .fetch_optional(&self.shared.pool)
        .await?;
        let event = row.as_ref().map(row_to_event).transpose()?;
        if let Some(e) = &event {
            self.shared.heads.raise(stream, i64::from(e.stream_version));
        }
        Ok(event)
    }

    async fn last_position(&self) -> Result<Position, StoreError> {
        let row =
            sqlx::query("SELECT COALESCE(MAX(position), 0)::BIGINT FROM events").fetch_one(&self.shared.pool).await?;
        Ok(position_of(row.get(0)))
    }

    async fn find_command_key(&self, stream: &str, key: &str) -> Result<Option<StreamVersion>, StoreError> {
        let row = sqlx::query("SELECT MIN(stream_version) FROM events WHERE stream_id = $1 AND idempotency_key = $2")
            .bind(stream)
            .bind(key)
            .fetch_one(&self.shared.pool)
            .await?;
        let found = row.get::<Option<i64>, _>(0);
        // The caller reads the stream from this version next: the head is at least there.
        if let Some(v) = found {
            self.shared.heads.raise(stream, v);
        }
        Ok(found.map(version_of))
    }

    async fn secrets(&self, name: &str) -> Result<Vec<Secret>, StoreError> {
        let rows = sqlx::query("SELECT version, value, created_at FROM secrets WHERE name = $1 ORDER BY version")
            .bind(name)
            .fetch_all(&self.shared.pool)
            .await?;
        Ok(rows.iter().map(|r| Secret { version: r.get(0), value: r.get(1), created_at: r.get(2) }).collect())
    }

    async fn add_secret(&self, name: &str, version: i64, value: &str) -> Result<bool, StoreError> {
        let r = sqlx::query(
            "INSERT INTO secrets (name, version, value, created_at) VALUES ($1, $2, $3, now()) ON CONFLICT DO NOTHING",
        )
        .bind(name)
        .bind(version)
        .bind(value)
        .execute(&self.shared.pool)
        .await?;
        Ok(r.rows_affected() == 1)
    }

    fn notifications(&self) -> broadcast::Receiver<Position> {
        self.shared.notify.subscribe()
    }

    /// Appends of several connections commit out of position order: a gap may be a
    /// transaction still in flight, waited for up to 1.5 s before it is taken to be rolled back.
    fn subscribe(self: Arc<Self>, after: Position) -> Subscription {
        catch_up(self, after, Gaps::WaitUpTo(std::time::Duration::from_millis(1500)))
    }

    fn subscribe_heads(self: Arc<Self>, after: Position) -> Subscription {
        crate::catch_up_heads(self, after, Gaps::WaitUpTo(std::time::Duration::from_millis(1500)))
    }

    async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1").fetch_one(&self.shared.pool).await?;
        Ok(())
    }

    async fn writable(&self) -> Result<(), StoreError> {
        if self.shared.full.lock().expect("full").is_none() {
            return Ok(());
        }
        // A temporary table's catalog rows are written to the WAL: this commits only with room.
        let probe = async {
            let mut tx = self.shared.pool.begin().await?;
            sqlx::query("CREATE TEMP TABLE flicker_store_probe (b bytea) ON COMMIT DROP").execute(&mut *tx).await?;
            tx.commit().await
        };
        match probe.await {
            Ok(()) => {
                *self.shared.full.lock().expect("full") = None;
                Ok(())
            }
            Err(e) => Err(pg_error(e)),
        }
    }

    fn kind(&self) -> &'static str {
        "postgres"
    }

    fn followed(&self, position: Position) {
        self.shared.heads.followed(i64::from(position));
    }

    /// `<position>-<process>`: the position this process has committed or followed up to (or
    /// the one asked, if later), and a random id of this store instance.
    fn position_token(&self, asked: Option<&str>) -> Option<String> {
        let asked = asked.and_then(|t| t.trim().split_once('-')?.0.parse::<i64>().ok()).unwrap_or(0);
        Some(format!("{}-{:016x}", self.shared.heads.token().max(asked), self.shared.instance))
    }

    /// A token of this instance: what it showed, its heads and caches still cover (they never
    /// go back). Another's (or one not understood): once the followers have read the log up to
    /// its position.
    fn has_followed(&self, token: &str) -> bool {
        let Some((position, instance)) = token.trim().split_once('-') else { return false };
        if u64::from_str_radix(instance, 16).is_ok_and(|i| i == self.shared.instance) {
            return true;
        }
        position.parse::<i64>().is_ok_and(|p| self.shared.heads.has_followed(p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::ev;
    use std::sync::Arc;

    /// Runs when `FLICKER_TEST_POSTGRES_URL` names a database (`./test.sh` starts one). Without
    /// it the test fails and says how to run it: nothing is skipped silently.
    async fn store() -> Arc<PgStore> {
        let Ok(url) = std::env::var("FLICKER_TEST_POSTGRES_URL") else {
            panic!("FLICKER_TEST_POSTGRES_URL is not set: run ./test.sh, which starts a throwaway PostgreSQL");
        };
        Arc::new(PgStore::connect(&url).await.unwrap())
    }

    fn fresh(prefix: &str) -> String {
        format!("{prefix}-{}", uuid::Uuid::new_v4())
    }

    /// Two events of a legacy stream (stored before migration 0002: no hash).
    async fn legacy_stream(store: &PgStore) -> String {
        let legacy = fresh("legacy");
        for v in 1..=2i64 {
            sqlx::query(
                "INSERT INTO events (stream_id, stream_version, event_type, schema_version, payload, metadata, recorded_at) \
                 VALUES ($1, $2, 'old', 1, '{\"v\": 1, \"a\": [1.50]}', '{}', now())",
            )
            .bind(&legacy)
            .bind(v)
            .execute(&store.shared.pool)
            .await
            .unwrap();
        }
        legacy
    }

    /// A batch as the writer tasks send it: each append's answer, in order.
    async fn batch(store: &PgStore, appends: Vec<(&str, u64, Vec<NewEvent>)>) -> Vec<Result<Appended, StoreError>> {
        let mut answers = Vec::new();
        let mut pending = Vec::new();
        for (stream, expected, events) in appends {
            let (reply, answer) = oneshot::channel();
            pending.push(Pending { stream: stream.into(), expected: expected as i64, events, reply });
            answers.push(answer);
        }
        store.shared.write(pending).await;
        let mut out = Vec::new();
        for a in answers {
            out.push(a.await.unwrap());
        }
        out
    }

    #[tokio::test]
    async fn the_database_is_append_only_and_old_events_chain() {
        let store = store().await;
        store
            .append(
                &format!("rows-{}", uuid::Uuid::new_v4()),
                ExpectedVersion::NO_STREAM,
                vec![crate::contract::ev("a", None)],
            )
            .await
            .unwrap();
        let err = sqlx::query("UPDATE events SET event_type = 'x'").execute(&store.shared.pool).await.unwrap_err();
        assert!(err.to_string().contains("append-only"), "{err}");
        let err = sqlx::query("DELETE FROM events").execute(&store.shared.pool).await.unwrap_err();
        assert!(err.to_string().contains("append-only"), "{err}");
        // Events stored before migration 0002 have no hash.
        let legacy = legacy_stream(&store).await;
        crate::contract::legacy(store.clone(), &legacy).await;
    }

    /// The hash `flicker_append` computes in the database is `event_hash` over the stored text,
    /// for payloads whose JSONB rendering differs from their compact JSON.
    #[tokio::test]
    async fn the_function_hashes_as_rust_does() {
        let store = store().await;
        let s = fresh("hash-\u{e9}t\u{e9}-\u{1F56F}");
        let payloads = [
            serde_json::json!({"b": 1.50, "a": [1.0, -0.0, 2.5e-8, 1e300, 12345678901234567890u64, -9223372036854775808i64]}),
            serde_json::json!("\u{1F56F} caf\u{e9} \u{2028} \"q\" \\ \n\t\u{7f}"),
            serde_json::json!({"nested": {"deeper": [{"x": null, "y": [true, false]}, []]}, "": "", "k\u{e9}y": {}}),
            serde_json::json!(18446744073709551615u64),
            serde_json::json!([[[]]]),
            serde_json::json!({"zz": 1, "a": 2, "aaa": 3, "b": 4}),
        ];
        let events: Vec<NewEvent> = payloads
            .iter()
            .enumerate()
            .map(|(i, p)| NewEvent {
                payload: p.clone(),
                event_type: format!("t\u{e9}{i}"),
                schema_version: i as i32 - 2,
                ..ev("x", None)
            })
            .collect();
        // Several events in one append, then one more append.
        store.append(&s, ExpectedVersion::NO_STREAM, events[..4].to_vec()).await.unwrap();
        store.append(&s, ExpectedVersion::exact(StreamVersion::new(4)), events[4..].to_vec()).await.unwrap();
        let stored = store.read_stream(&s, StreamVersion::new(1)).await.unwrap();
        assert_eq!(stored.len(), payloads.len());
        let mut prev = GENESIS;
        for (e, p) in stored.iter().zip(&payloads) {
            let want = event_hash(
                &prev,
                &s,
                i64::from(e.stream_version),
                &e.event_type,
                e.schema_version,
                e.payload_text.as_bytes(),
            );
            assert_eq!(parse_hash(e.hash.as_deref().unwrap()), Some(want), "event {} ({p})", e.stream_version);
            prev = want;
        }
        assert_ne!(stored[0].payload_text, payload_text(&payloads[0]), "JSONB renders the text anew");
        // The old path, hashing in Rust, continues the same chain.
        let alone = append_alone(&store.shared.pool, &s, 6, &[events[0].clone()]).await.unwrap();
        assert_eq!(alone.version, StreamVersion::new(7));
        let all = store.read_stream(&s, StreamVersion::new(1)).await.unwrap();
        rechain(&s, &all).expect("the chain recomputes");
    }

    /// In one batch, a conflicting append and one reusing a command key fail alone; the others,
    /// a legacy stream's among them, land.
    #[tokio::test]
    async fn a_failing_append_fails_alone_in_its_batch() {
        let store = store().await;
        let (a, b, c, d) = (fresh("iso"), fresh("iso"), fresh("iso"), fresh("iso"));
        store.append(&b, ExpectedVersion::NO_STREAM, vec![ev("b1", Some("kb"))]).await.unwrap();
        let legacy = legacy_stream(&store).await;
        let out = batch(
            &store,
            vec![
                (&a, 0, vec![ev("a1", Some("k")), ev("a2", None)]),
                (&b, 0, vec![ev("conflict", None)]),
                (&b, 1, vec![ev("dup", Some("kb"))]),
                (&c, 0, vec![ev("c1", Some("kc")), ev("c2", Some("kc"))]),
                (&legacy, 2, vec![ev("after-legacy", None)]),
                (&d, 0, vec![ev("d1", Some("kb"))]),
                (&b, 1, vec![ev("b2", Some("kb2"))]),
                (&a, 2, vec![ev("a3", Some("k"))]),
            ],
        )
        .await;
        assert_eq!(out[0].as_ref().unwrap().version, StreamVersion::new(2));
        assert!(
            matches!(&out[1], Err(StoreError::Conflict { expected, actual, .. }) if (expected.get(), actual.get()) == (0, 1)),
            "{:?}",
            out[1]
        );
        assert!(matches!(&out[2], Err(StoreError::Duplicate { .. })), "{:?}", out[2]);
        assert!(matches!(&out[3], Err(StoreError::Duplicate { .. })), "a key twice in one append: {:?}", out[3]);
        assert_eq!(out[4].as_ref().unwrap().version, StreamVersion::new(3));
        assert_eq!(out[5].as_ref().unwrap().version, StreamVersion::new(1), "another stream may use the key");
        assert_eq!(out[6].as_ref().unwrap().version, StreamVersion::new(2));
        assert!(matches!(&out[7], Err(StoreError::Duplicate { .. })), "a key of the same batch: {:?}", out[7]);
        // The legacy stream's append goes alone, after the batch.
        let positions: Vec<_> = [0, 5, 6].iter().map(|&i| out[i].as_ref().unwrap().position).collect();
        assert!(positions.windows(2).all(|w| w[0] < w[1]), "positions follow the batch's order");
        assert!(out[4].as_ref().unwrap().position > positions[2]);
        for (s, types) in [(&a, vec!["a1", "a2"]), (&b, vec!["b1", "b2"]), (&c, vec![]), (&d, vec!["d1"])] {
            let got: Vec<_> =
                store.read_stream(s, StreamVersion::new(1)).await.unwrap().into_iter().map(|e| e.event_type).collect();
            assert_eq!(got, types);
        }
        let all = store.read_stream(&legacy, StreamVersion::new(1)).await.unwrap();
        rechain(&legacy, &all).expect("the legacy stream rechains");
        assert!(all[2].hash.is_some());
    }

    /// Two stores (two processes' writers) append to a few shared streams at once, each append at
    /// the version its task last saw: exactly one append wins each version, the streams have no
    /// gaps and chain, and no batch deadlocks.
    #[tokio::test]
    async fn concurrent_appends_win_each_version_once() {
        let stores = [store().await, store().await];
        let streams: Arc<Vec<String>> = Arc::new((0..4).map(|_| fresh("contend")).collect());
        let mut tasks = Vec::new();
        for t in 0..16usize {
            let store = stores[t % 2].clone();
            let streams = streams.clone();
            tasks.push(tokio::spawn(async move {
                let mut wins = Vec::new();
                for round in 0..30usize {
                    let s = &streams[(t + round) % streams.len()];
                    let head = store.read_last(s).await.unwrap().map_or(0, |e| e.stream_version.get());
                    match store.append(s, ExpectedVersion::exact(StreamVersion::new(head)), vec![ev("e", None)]).await {
                        Ok(a) => wins.push((s.clone(), a.version.get())),
                        Err(StoreError::Conflict { .. }) => {}
                        Err(e) => panic!("a losing append is a conflict, not {e}"),
                    }
                }
                wins
            }));
        }
        let mut wins = Vec::new();
        for t in tasks {
            wins.extend(
                tokio::time::timeout(std::time::Duration::from_secs(60), t).await.expect("no deadlock").unwrap(),
            );
        }
        for s in streams.iter() {
            let mut mine: Vec<u64> = wins.iter().filter(|(w, _)| w == s).map(|(_, v)| *v).collect();
            mine.sort_unstable();
            let all = stores[0].read_stream(s, StreamVersion::new(1)).await.unwrap();
            assert_eq!(mine, (1..=all.len() as u64).collect::<Vec<_>>(), "each version won exactly once");
            rechain(s, &all).expect("the stream chains");
        }
        assert!(wins.len() > 20, "some appends won: {}", wins.len());
    }

    /// Two processes on one database: `b` learns a stream's head, `a` appends past it. Whether
    /// or not `b` trusts its head meanwhile (it depends on when `a`'s NOTIFY reaches it), a
    /// fresh read finds the new event, `b`'s append at the old version conflicts, and after the
    /// conflict `b`'s reads find the new event; `a`'s token is followed once `b` has read the log.
    #[tokio::test]
    async fn a_stale_head_ends_at_a_conflict_or_a_fresh_read() {
        let (a, b) = (store().await, store().await);
        let s = fresh("heads");
        a.append(&s, ExpectedVersion::NO_STREAM, vec![ev("a", None)]).await.unwrap();
        assert_eq!(b.read_stream(&s, StreamVersion::new(1)).await.unwrap().len(), 1);
        let second = a.append(&s, ExpectedVersion::exact(StreamVersion::new(1)), vec![ev("b", None)]).await.unwrap();
        let found = crate::fresh(b.read_stream(&s, StreamVersion::new(2))).await.unwrap();
        assert_eq!(found.iter().map(|e| e.stream_version.get()).collect::<Vec<_>>(), vec![2]);
        let err = b.append(&s, ExpectedVersion::exact(StreamVersion::new(1)), vec![ev("c", None)]).await.unwrap_err();
        assert!(matches!(err, StoreError::Conflict { actual, .. } if actual == StreamVersion::new(2)), "{err}");
        assert_eq!(b.read_stream(&s, StreamVersion::new(2)).await.unwrap().len(), 1, "the conflict raised the head");
        assert!(b.read_stream(&s, StreamVersion::new(3)).await.unwrap().is_empty());

        let token = a.position_token(None).unwrap();
        assert_eq!(
            a.position_token(Some(&format!("{}-0", i64::MAX))).unwrap().split_once('-').unwrap().0,
            i64::MAX.to_string()
        );
        assert!(a.has_followed(&token), "a's own token");
        assert!(token.split_once('-').unwrap().0.parse::<u64>().unwrap() >= second.position.get());
        assert!(!b.has_followed("x") && !b.has_followed(&format!("{}-0", i64::MAX)));
        let mut follow = b.clone().subscribe_heads(Position::START);
        while !b.has_followed(&token) {
            // Waits for the follower (no time is asserted); it reads the whole shared database.
            tokio::select! {
                _ = follow.recv() => {}
                _ = tokio::time::sleep(std::time::Duration::from_millis(20)) => {}
            }
        }
    }
}
