//! PostgreSQL event store: several API processes can share one database. Appends take the
//! stream's current version inside their transaction and rely on the unique (stream, version)
//! index, so concurrent appends to one stream conflict while other streams never wait. A
//! committed append wakes this process's subscribers directly, and a notifier task sends
//! `NOTIFY flicker_events` with the latest position (one for all the appends committed while
//! the previous one ran); every process LISTENs.

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
use std::sync::atomic::{AtomicI64, Ordering};
use tokio::sync::broadcast;

/// The PostgreSQL store.
pub struct PgStore {
    pool: PgPool,
    notify: broadcast::Sender<Position>,
    /// The latest position committed here, for the notifier task to announce.
    announce: Arc<Announce>,
    /// Why the last append failed for want of space; `None` while appends commit.
    full: std::sync::Mutex<Option<String>>,
}

impl PgStore {
    fn note_failure(&self, e: &StoreError) {
        if let StoreError::Full(m) = e {
            tracing::error!(error = %m, "the event store is full; refusing writes until space is free");
            *self.full.lock().expect("full") = Some(m.clone());
        }
    }
}

/// What the notifier task announces to the other processes: the latest position committed by
/// this one. NOTIFY inside an append would serialise every append's commit on PostgreSQL's
/// notification-queue lock (held through the commit's WAL flush), so appends commit without
/// it and one task sends a NOTIFY for all the appends committed meanwhile.
#[derive(Default)]
struct Announce {
    wake: tokio::sync::Notify,
    latest: AtomicI64,
}

const CHANNEL: &str = "flicker_events";

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
        let pool = PgPoolOptions::new().max_connections(16).connect_with(opts).await?;
        crate::migrations::migrator(crate::migrations::POSTGRES).run(&pool).await?;
        let (notify, _) = broadcast::channel(4096);
        let mut listener = PgListener::connect_with(&pool).await?;
        listener.listen(CHANNEL).await?;
        let tx = notify.clone();
        tokio::spawn(async move {
            loop {
                match listener.recv().await {
                    Ok(n) => {
                        if let Ok(p) = n.payload().parse::<u64>() {
                            let _ = tx.send(Position::new(p));
                        }
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "LISTEN connection lost; reconnecting");
                        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
                        // Subscribers poll too, so a missed notification only delays them.
                        let _ = tx.send(Position::START);
                    }
                }
            }
        });
        let announce = Arc::new(Announce::default());
        tokio::spawn(notifier(pool.clone(), announce.clone()));
        Ok(PgStore { pool, notify, announce, full: Default::default() })
    }
}

/// Announces the latest committed position on [`CHANNEL`] whenever appends have committed since
/// the last announcement; appends committed while one NOTIFY runs share the next. Listeners read
/// the log after any notification, and poll anyway, so a failed NOTIFY only delays them.
async fn notifier(pool: PgPool, announce: Arc<Announce>) {
    let mut sent = 0;
    loop {
        announce.wake.notified().await;
        let latest = announce.latest.load(Ordering::SeqCst);
        if latest <= sent {
            continue;
        }
        match sqlx::query("SELECT pg_notify($1, $2)").bind(CHANNEL).bind(latest.to_string()).execute(&pool).await {
            Ok(_) => sent = latest,
            Err(e) => tracing::warn!(error = %e, "NOTIFY failed; other processes will poll"),
        }
    }
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

#[async_trait]
impl EventStore for PgStore {
    async fn append(
        &self,
        stream: &str,
        expected: ExpectedVersion,
        events: Vec<NewEvent>,
    ) -> Result<Appended, StoreError> {
        let expected = i64::from(expected.version());
        let mut tx = self.pool.begin().await.map_err(pg_error)?;
        let done = match append_in(&mut tx, stream, expected, &events).await {
            Ok(done) => done,
            Err(e) => {
                // End the failed transaction here and now (not on drop, later), so
                // its connection goes back to the pool clean.
                if let Err(r) = tx.rollback().await {
                    tracing::warn!(error = %r, "rolling back a failed append failed; the connection is dropped");
                }
                self.note_failure(&e);
                return Err(e);
            }
        };
        let (version, position, now) = done;
        tx.commit().await.map_err(|err| match is_unique_violation(&err) {
            Some(_) => StoreError::Conflict {
                stream: stream.into(),
                expected: version_of(expected),
                actual: version_of(expected + 1),
            },
            None => {
                let e = pg_error(err);
                self.note_failure(&e);
                e
            }
        })?;
        *self.full.lock().expect("full") = None;
        // This process's subscribers at once; the others through the notifier's NOTIFY.
        let _ = self.notify.send(position_of(position));
        self.announce.latest.fetch_max(position, Ordering::SeqCst);
        self.announce.wake.notify_one();
        Ok(Appended { version: version_of(version), position: position_of(position), recorded_at: now })
    }

    async fn read_stream(&self, stream: &str, from: StreamVersion) -> Result<Vec<StoredEvent>, StoreError> {
        let from_version = i64::from(from);
        let rows =
            sqlx::query(
                "SELECT *, payload::text AS payload_text FROM events WHERE stream_id = $1 AND stream_version >= $2 ORDER BY stream_version",
            )
                .bind(stream)
                .bind(from_version)
                .fetch_all(&self.pool)
                .await?;
        rows.iter().map(row_to_event).collect()
    }

    async fn read_all(&self, after: Position, limit: usize) -> Result<Vec<StoredEvent>, StoreError> {
        let rows = sqlx::query(
            "SELECT *, payload::text AS payload_text FROM events WHERE position > $1 ORDER BY position LIMIT $2",
        )
        .bind(i64::from(after))
        .bind(i64::try_from(limit).unwrap_or(i64::MAX))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(row_to_event).collect()
    }

    async fn read_all_heads(&self, after: Position, limit: usize) -> Result<Vec<StoredEvent>, StoreError> {
        let rows = sqlx::query(
            "SELECT position, stream_id, stream_version, event_type, schema_version, recorded_at FROM events \
             WHERE position > $1 ORDER BY position LIMIT $2",
        )
        .bind(i64::from(after))
        .bind(i64::try_from(limit).unwrap_or(i64::MAX))
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.iter().map(row_to_head).collect())
    }

    async fn read_last(&self, stream: &str) -> Result<Option<StoredEvent>, StoreError> {
        let row = sqlx::query(
            "SELECT *, payload::text AS payload_text FROM events WHERE stream_id = $1 ORDER BY stream_version DESC LIMIT 1",
        )
        .bind(stream)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(row_to_event).transpose()
    }

    async fn last_position(&self) -> Result<Position, StoreError> {
        let row = sqlx::query("SELECT COALESCE(MAX(position), 0)::BIGINT FROM events").fetch_one(&self.pool).await?;
        Ok(position_of(row.get(0)))
    }

    async fn find_command_key(&self, stream: &str, key: &str) -> Result<Option<StreamVersion>, StoreError> {
        let row = sqlx::query("SELECT MIN(stream_version) FROM events WHERE stream_id = $1 AND idempotency_key = $2")
            .bind(stream)
            .bind(key)
            .fetch_one(&self.pool)
            .await?;
        Ok(row.get::<Option<i64>, _>(0).map(version_of))
    }

    async fn secrets(&self, name: &str) -> Result<Vec<Secret>, StoreError> {
        let rows = sqlx::query("SELECT version, value, created_at FROM secrets WHERE name = $1 ORDER BY version")
            .bind(name)
            .fetch_all(&self.pool)
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
        .execute(&self.pool)
        .await?;
        Ok(r.rows_affected() == 1)
    }

    fn notifications(&self) -> broadcast::Receiver<Position> {
        self.notify.subscribe()
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
        sqlx::query("SELECT 1").fetch_one(&self.pool).await?;
        Ok(())
    }

    async fn writable(&self) -> Result<(), StoreError> {
        if self.full.lock().expect("full").is_none() {
            return Ok(());
        }
        // A temporary table's catalog rows are written to the WAL: this commits only with room.
        let probe = async {
            let mut tx = self.pool.begin().await?;
            sqlx::query("CREATE TEMP TABLE flicker_store_probe (b bytea) ON COMMIT DROP").execute(&mut *tx).await?;
            tx.commit().await
        };
        match probe.await {
            Ok(()) => {
                *self.full.lock().expect("full") = None;
                Ok(())
            }
            Err(e) => Err(pg_error(e)),
        }
    }

    fn kind(&self) -> &'static str {
        "postgres"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// Runs when `FLICKER_TEST_POSTGRES_URL` names a database (`./test.sh` starts one). Without
    /// it the test fails and says how to run it: nothing is skipped silently.
    #[tokio::test]
    async fn the_database_is_append_only_and_old_events_chain() {
        let Ok(url) = std::env::var("FLICKER_TEST_POSTGRES_URL") else {
            panic!("FLICKER_TEST_POSTGRES_URL is not set: run ./test.sh, which starts a throwaway PostgreSQL");
        };
        let store = Arc::new(PgStore::connect(&url).await.unwrap());
        store
            .append(
                &format!("rows-{}", uuid::Uuid::new_v4()),
                ExpectedVersion::NO_STREAM,
                vec![crate::contract::ev("a", None)],
            )
            .await
            .unwrap();
        let err = sqlx::query("UPDATE events SET event_type = 'x'").execute(&store.pool).await.unwrap_err();
        assert!(err.to_string().contains("append-only"), "{err}");
        let err = sqlx::query("DELETE FROM events").execute(&store.pool).await.unwrap_err();
        assert!(err.to_string().contains("append-only"), "{err}");
        // Events stored before migration 0002 have no hash.
        let legacy = format!("legacy-{}", uuid::Uuid::new_v4());
        for v in 1..=2i64 {
            sqlx::query(
                "INSERT INTO events (stream_id, stream_version, event_type, schema_version, payload, metadata, recorded_at) \
                 VALUES ($1, $2, 'old', 1, '{\"v\": 1, \"a\": [1.50]}', '{}', now())",
            )
            .bind(&legacy)
            .bind(v)
            .execute(&store.pool)
            .await
            .unwrap();
        }
        crate::contract::legacy(store.clone(), &legacy).await;
    }
}
