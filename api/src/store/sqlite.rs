//! SQLite event store: the embedded default. WAL journal, `synchronous = FULL` (an append is
//! acknowledged only once durable), one writer task that batches concurrent appends into one
//! transaction (group commit), and a pool of readers. One process serves a database file: it
//! holds an exclusive lock on `<file>.lock` while open (several API processes need PostgreSQL),
//! so it knows every stream's head without asking ([`EventStore::known_head`]).

use super::{Appended, EventStore, Metadata, NewEvent, StoreError, StoredEvent};
use crate::chain::{GENESIS, Hash, event_hash, parse_hash, payload_text, rechain, to_hex};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Row, SqlitePool};
use std::collections::HashMap;
use std::str::FromStr;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{broadcast, mpsc, oneshot};

struct AppendRequest {
    stream: String,
    expected: i64,
    events: Vec<NewEvent>,
    reply: oneshot::Sender<Result<Appended, StoreError>>,
}

/// Stream heads this process knows: every stream it has appended to or read (by stream or in
/// the global log), at its version. Never ahead of the database; behind it only between a
/// commit and the first of the writer's update (before it answers the append) and a reader
/// seeing the commit (before it hands the event on), so whoever learns of an append also
/// finds the head raised.
type Heads = Arc<Mutex<HashMap<String, i64>>>;

/// Raises `stream`'s known head to `version` (never lowers it: a read may finish after a later
/// append's update).
fn raise(heads: &Heads, stream: &str, version: i64) {
    raise_in(&mut heads.lock().expect("heads"), stream, version);
}

/// Streams whose heads are remembered; past it the map starts afresh (a stream not in it is
/// simply read).
const HEADS_KEPT: usize = 500_000;

fn raise_in(h: &mut HashMap<String, i64>, stream: &str, version: i64) {
    if h.len() >= HEADS_KEPT && !h.contains_key(stream) {
        h.clear();
    }
    match h.get_mut(stream) {
        Some(v) => *v = (*v).max(version),
        None => {
            h.insert(stream.to_string(), version);
        }
    }
}

/// The SQLite store.
pub struct SqliteStore {
    readers: SqlitePool,
    writer: mpsc::Sender<AppendRequest>,
    notify: broadcast::Sender<i64>,
    heads: Heads,
    /// The exclusive lock on `<file>.lock`, held while the store is open.
    _lock: Option<std::fs::File>,
}

/// Takes the exclusive lock on `<path>.lock` (released by the OS when the process ends, even on
/// SIGKILL). In-memory databases need none.
fn lock_file(path: &str) -> Result<Option<std::fs::File>, StoreError> {
    if path.is_empty() || path.contains(":memory:") || path.contains("mode=memory") {
        return Ok(None);
    }
    let lock_path = format!("{}.lock", path.split('?').next().unwrap_or(path));
    let f = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| StoreError::Other(format!("cannot open {lock_path}: {e}")))?;
    match f.try_lock() {
        Ok(()) => Ok(Some(f)),
        Err(std::fs::TryLockError::WouldBlock) => Err(StoreError::Other(format!(
            "another process is serving {path} (it holds {lock_path}); one process serves a SQLite file: \
             stop it, or use PostgreSQL (DATABASE_URL=postgres://...) to run several API processes"
        ))),
        Err(std::fs::TryLockError::Error(e)) => Err(StoreError::Other(format!("cannot lock {lock_path}: {e}"))),
    }
}

impl SqliteStore {
    /// Opens (creating if needed) the database file at `path` and applies the migrations.
    pub async fn open(path: &str) -> Result<Self, StoreError> {
        let lock = lock_file(path)?;
        let opts = SqliteConnectOptions::from_str(&format!("sqlite://{path}"))?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .busy_timeout(Duration::from_secs(10));
        let write_pool = SqlitePoolOptions::new().max_connections(1).connect_with(opts.clone()).await?;
        sqlx::migrate!("../migrations/sqlite").run(&write_pool).await?;
        let readers = SqlitePoolOptions::new().max_connections(4).connect_with(opts.read_only(true)).await?;
        let (notify, _) = broadcast::channel(4096);
        let (writer, rx) = mpsc::channel(4096);
        let heads = Heads::default();
        tokio::spawn(writer_task(write_pool, rx, notify.clone(), heads.clone()));
        Ok(SqliteStore { readers, writer, notify, heads, _lock: lock })
    }
}

/// Group commit: takes every request waiting, appends them in one transaction, then answers.
async fn writer_task(
    pool: SqlitePool,
    mut rx: mpsc::Receiver<AppendRequest>,
    notify: broadcast::Sender<i64>,
    heads: Heads,
) {
    // Each stream's (version, hash) head, kept across batches: this writer is the file's only
    // writer, so after one read it knows them. Dropped for a batch that fails as a whole.
    let mut chain: HashMap<String, (i64, Hash)> = HashMap::new();
    while let Some(first) = rx.recv().await {
        if chain.len() > 100_000 {
            chain.clear();
        }
        let mut batch = vec![first];
        while batch.len() < 256 {
            match rx.try_recv() {
                Ok(r) => batch.push(r),
                Err(_) => break,
            }
        }
        match write_batch(&pool, &batch, &mut chain).await {
            Ok(results) => {
                let mut last = None;
                for (req, res) in batch.into_iter().zip(results) {
                    if let Ok(a) = &res {
                        last = Some(a.position);
                        // Before the reply, so the appender's next read sees its own append.
                        raise(&heads, &req.stream, a.version);
                    }
                    let _ = req.reply.send(res);
                }
                if let Some(p) = last {
                    let _ = notify.send(p);
                }
            }
            Err(e) => {
                let msg = e.to_string();
                for req in &batch {
                    chain.remove(&req.stream);
                }
                for req in batch {
                    let _ = req.reply.send(Err(StoreError::Other(format!("append failed: {msg}"))));
                }
            }
        }
    }
}

async fn write_batch(
    pool: &SqlitePool,
    batch: &[AppendRequest],
    heads: &mut HashMap<String, (i64, Hash)>,
) -> Result<Vec<Result<Appended, StoreError>>, StoreError> {
    // BEGIN IMMEDIATE takes the write lock at once (no failed upgrade from a read lock).
    let mut tx = pool.begin_with("BEGIN IMMEDIATE").await?;
    let mut results = Vec::with_capacity(batch.len());
    let recorded_at = super::to_micros(Utc::now());
    let now = recorded_at.to_rfc3339_opts(chrono::SecondsFormat::Micros, true);
    // Several requests: each in its own savepoint, so a failure rolls back that request only.
    // A lone request needs none: its failure rolls back the transaction.
    let savepoints = batch.len() > 1;
    for req in batch {
        if savepoints {
            sqlx::query("SAVEPOINT request").execute(&mut *tx).await?;
        }
        match write_one(&mut tx, req, heads, (&now, recorded_at)).await {
            Ok(r) => {
                if savepoints {
                    sqlx::query("RELEASE request").execute(&mut *tx).await?;
                }
                results.push(r);
            }
            Err(e) => {
                heads.remove(&req.stream);
                let failure = append_failure(req, &e);
                if !savepoints {
                    tx.rollback().await?;
                    return Ok(vec![Err(failure)]);
                }
                sqlx::query("ROLLBACK TO request").execute(&mut *tx).await?;
                sqlx::query("RELEASE request").execute(&mut *tx).await?;
                results.push(Err(failure));
            }
        }
    }
    tx.commit().await?;
    Ok(results)
}

/// A failed insert as a store error: the unique index on (stream, idempotency key) refusing a
/// key used before is a duplicate request; anything else is a failure.
fn append_failure(req: &AppendRequest, e: &sqlx::Error) -> StoreError {
    match e.as_database_error() {
        Some(d) if d.is_unique_violation() && d.message().contains("idempotency_key") => {
            StoreError::Duplicate { stream: req.stream.clone() }
        }
        // Only a writer this one does not know of could have taken the version: a conflict.
        Some(d) if d.is_unique_violation() && d.message().contains("stream_version") => {
            StoreError::Conflict { stream: req.stream.clone(), expected: req.expected, actual: req.expected + 1 }
        }
        _ => StoreError::Other(format!("append failed: {e}")),
    }
}

async fn write_one(
    tx: &mut sqlx::Transaction<'_, sqlx::Sqlite>,
    req: &AppendRequest,
    heads: &mut HashMap<String, (i64, Hash)>,
    (now, recorded_at): (&str, DateTime<Utc>),
) -> Result<Result<Appended, StoreError>, sqlx::Error> {
    {
        let (current, mut prev) = match heads.get(&req.stream) {
            Some(h) => *h,
            None => {
                let head = sqlx::query(
                    "SELECT stream_version, hash FROM events WHERE stream_id = $1 ORDER BY stream_version DESC LIMIT 1",
                )
                .bind(&req.stream)
                .fetch_optional(&mut **tx)
                .await?;
                let h = match head {
                    None => (0, GENESIS),
                    Some(r) => {
                        let version: i64 = r.get(0);
                        match r.get::<Option<String>, _>(1).as_deref().and_then(parse_hash) {
                            Some(hash) => (version, hash),
                            // Appended before the hash column: chain from its recomputed hash.
                            None => match legacy_head(tx, &req.stream).await? {
                                Ok(hash) => (version, hash),
                                Err(e) => return Ok(Err(e)),
                            },
                        }
                    }
                };
                heads.insert(req.stream.clone(), h);
                h
            }
        };
        if current != req.expected {
            return Ok(Err(StoreError::Conflict {
                stream: req.stream.clone(),
                expected: req.expected,
                actual: current,
            }));
        }
        // A key used before: the unique index refuses the insert ([`append_failure`]).
        // All the request's events in one multi-row INSERT (up to 100 rows a statement).
        let mut version = current;
        let mut position = 0;
        for chunk in req.events.chunks(100) {
            let mut rows = Vec::with_capacity(chunk.len());
            for e in chunk {
                version += 1;
                let text = payload_text(&e.payload);
                let hash = event_hash(&prev, &req.stream, version, &e.event_type, e.schema_version, text.as_bytes());
                rows.push((version, e, text, to_hex(&hash)));
                prev = hash;
            }
            let sql = super::insert_events_sql(rows.len(), "");
            let mut q = sqlx::query(sqlx::AssertSqlSafe(sql));
            for (v, e, text, hash) in &rows {
                q = q
                    .bind(&req.stream)
                    .bind(*v)
                    .bind(&e.event_type)
                    .bind(e.schema_version)
                    .bind(text)
                    .bind(serde_json::to_string(&e.metadata).expect("json"))
                    .bind(e.metadata.idempotency_key.as_deref())
                    .bind(now)
                    .bind(hash);
            }
            for r in q.fetch_all(&mut **tx).await? {
                position = position.max(r.get::<i64, _>(0));
            }
        }
        heads.insert(req.stream.clone(), (version, prev));
        Ok(Ok(Appended { version, position, recorded_at }))
    }
}

/// The head hash of a stream whose last event has no stored hash (appended before migration
/// 0002): the chain recomputed over its stored bytes.
async fn legacy_head(
    tx: &mut sqlx::Transaction<'_, sqlx::Sqlite>,
    stream: &str,
) -> Result<Result<Hash, StoreError>, sqlx::Error> {
    let rows = sqlx::query("SELECT * FROM events WHERE stream_id = $1 ORDER BY stream_version")
        .bind(stream)
        .fetch_all(&mut **tx)
        .await?;
    let events = match rows.iter().map(row_to_event).collect::<Result<Vec<_>, _>>() {
        Ok(e) => e,
        Err(e) => return Ok(Err(e)),
    };
    Ok(rechain(stream, &events).map(|c| c.last().map_or(GENESIS, |e| e.hash)).map_err(StoreError::Other))
}

fn row_to_event(r: &sqlx::sqlite::SqliteRow) -> Result<StoredEvent, StoreError> {
    let payload: String = r.get("payload");
    let metadata: String = r.get("metadata");
    let recorded: String = r.get("recorded_at");
    Ok(StoredEvent {
        position: r.get("position"),
        stream_id: r.get("stream_id"),
        stream_version: r.get("stream_version"),
        event_type: r.get("event_type"),
        schema_version: r.get("schema_version"),
        payload: serde_json::from_str(&payload).map_err(|e| StoreError::Other(format!("stored payload: {e}")))?,
        payload_text: payload,
        hash: r.get("hash"),
        metadata: serde_json::from_str::<Metadata>(&metadata)
            .map_err(|e| StoreError::Other(format!("stored metadata: {e}")))?,
        recorded_at: DateTime::parse_from_rfc3339(&recorded)
            .map_err(|e| StoreError::Other(format!("stored time: {e}")))?
            .with_timezone(&Utc),
    })
}

#[async_trait]
impl EventStore for SqliteStore {
    async fn append(&self, stream: &str, expected: i64, events: Vec<NewEvent>) -> Result<Appended, StoreError> {
        let (reply, rx) = oneshot::channel();
        self.writer
            .send(AppendRequest { stream: stream.to_string(), expected, events, reply })
            .await
            .map_err(|_| StoreError::Other("the writer has stopped".into()))?;
        rx.await.map_err(|_| StoreError::Other("the writer has stopped".into()))?
    }

    async fn read_stream(&self, stream: &str, from_version: i64) -> Result<Vec<StoredEvent>, StoreError> {
        let rows =
            sqlx::query("SELECT * FROM events WHERE stream_id = $1 AND stream_version >= $2 ORDER BY stream_version")
                .bind(stream)
                .bind(from_version)
                .fetch_all(&self.readers)
                .await?;
        let events: Vec<StoredEvent> = rows.iter().map(row_to_event).collect::<Result<_, _>>()?;
        if let Some(last) = events.last() {
            raise(&self.heads, stream, last.stream_version);
        }
        Ok(events)
    }

    async fn read_all(&self, after: i64, limit: i64) -> Result<Vec<StoredEvent>, StoreError> {
        let rows = sqlx::query("SELECT * FROM events WHERE position > $1 ORDER BY position LIMIT $2")
            .bind(after)
            .bind(limit)
            .fetch_all(&self.readers)
            .await?;
        let events: Vec<StoredEvent> = rows.iter().map(row_to_event).collect::<Result<_, _>>()?;
        // A subscriber may see a commit before the writer has raised its heads; raising them
        // here keeps a table loaded on its notification from being taken as current when it
        // is not.
        let mut heads = self.heads.lock().expect("heads");
        for e in &events {
            raise_in(&mut heads, &e.stream_id, e.stream_version);
        }
        drop(heads);
        Ok(events)
    }

    async fn read_last(&self, stream: &str) -> Result<Option<StoredEvent>, StoreError> {
        let row = sqlx::query("SELECT * FROM events WHERE stream_id = $1 ORDER BY stream_version DESC LIMIT 1")
            .bind(stream)
            .fetch_optional(&self.readers)
            .await?;
        let event = row.as_ref().map(row_to_event).transpose()?;
        if let Some(e) = &event {
            raise(&self.heads, stream, e.stream_version);
        }
        Ok(event)
    }

    async fn last_position(&self) -> Result<i64, StoreError> {
        let row = sqlx::query("SELECT COALESCE(MAX(position), 0) FROM events").fetch_one(&self.readers).await?;
        Ok(row.get(0))
    }

    async fn find_idempotency_key(&self, stream: &str, key: &str) -> Result<Option<i64>, StoreError> {
        let row = sqlx::query("SELECT MIN(stream_version) FROM events WHERE stream_id = $1 AND idempotency_key = $2")
            .bind(stream)
            .bind(key)
            .fetch_one(&self.readers)
            .await?;
        Ok(row.get::<Option<i64>, _>(0))
    }

    fn notifications(&self) -> broadcast::Receiver<i64> {
        self.notify.subscribe()
    }

    async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1").fetch_one(&self.readers).await?;
        Ok(())
    }

    fn kind(&self) -> &'static str {
        "sqlite"
    }

    fn known_head(&self, stream: &str) -> Option<i64> {
        self.heads.lock().expect("heads").get(stream).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[tokio::test]
    async fn sqlite_store_meets_the_contract() {
        let dir = std::env::temp_dir().join(format!("flicker-store-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.db");
        let store = Arc::new(SqliteStore::open(path.to_str().unwrap()).await.unwrap());
        crate::store::contract::run(store.clone()).await;
        // The database itself refuses updates and deletes.
        let err = sqlx::query("UPDATE events SET event_type = 'x'").execute(&store.readers).await;
        assert!(err.is_err());
        let pool = SqlitePool::connect(&format!("sqlite://{}", path.display())).await.unwrap();
        let err = sqlx::query("UPDATE events SET event_type = 'x'").execute(&pool).await.unwrap_err();
        assert!(err.to_string().contains("append-only"), "{err}");
        let err = sqlx::query("DELETE FROM events").execute(&pool).await.unwrap_err();
        assert!(err.to_string().contains("append-only"), "{err}");
        // Events stored before migration 0002 have no hash.
        let legacy = format!("legacy-{}", uuid::Uuid::new_v4());
        for v in 1..=2 {
            sqlx::query(
                "INSERT INTO events (stream_id, stream_version, event_type, schema_version, payload, metadata, recorded_at) \
                 VALUES ($1, $2, 'old', 1, '{\"v\":1}', '{}', '2024-01-01T00:00:00Z')",
            )
            .bind(&legacy)
            .bind(v)
            .execute(&pool)
            .await
            .unwrap();
        }
        crate::store::contract::legacy(store.clone(), &legacy).await;
        std::fs::remove_dir_all(&dir).ok();
    }

    /// One process serves a file: a second open fails, naming the way out; the lock goes with
    /// the store. The store knows the head of every stream it wrote or read.
    #[tokio::test]
    async fn one_process_serves_a_file_and_knows_its_heads() {
        let dir = std::env::temp_dir().join(format!("flicker-store-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.db");
        let path = path.to_str().unwrap();
        let store = SqliteStore::open(path).await.unwrap();
        let err = SqliteStore::open(path).await.err().expect("a second open is refused");
        assert!(
            err.to_string().contains("another process is serving") && err.to_string().contains("PostgreSQL"),
            "{err}"
        );
        let ev = crate::store::contract::ev;
        assert_eq!(store.known_head("s"), None);
        store.append("s", 0, vec![ev("a", Some("k")), ev("b", None), ev("c", None)]).await.unwrap();
        assert_eq!(store.known_head("s"), Some(3));
        // A reused key is a duplicate and stores nothing; the head stays.
        let dup = store.append("s", 3, vec![ev("d", Some("k")), ev("e", None)]).await;
        assert!(matches!(dup, Err(StoreError::Duplicate { .. })), "{dup:?}");
        assert_eq!(store.read_stream("s", 1).await.unwrap().len(), 3);
        assert_eq!(store.known_head("s"), Some(3));
        drop(store);
        // A fresh process learns heads by reading.
        let store = SqliteStore::open(path).await.unwrap();
        assert_eq!(store.known_head("s"), None);
        assert_eq!(store.read_stream("s", 2).await.unwrap().len(), 2);
        assert_eq!(store.known_head("s"), Some(3));
        let conflict = store.append("s", 2, vec![ev("x", None)]).await;
        assert!(matches!(conflict, Err(StoreError::Conflict { actual: 3, .. })), "{conflict:?}");
        // A commit seen in the global log before the writer raised its head (simulated by a row
        // the writer never saw) raises it: whoever is told of an event finds the head moved.
        let pool = SqlitePool::connect(&format!("sqlite://{path}")).await.unwrap();
        sqlx::query(
            "INSERT INTO events (stream_id, stream_version, event_type, schema_version, payload, metadata, recorded_at) \
             VALUES ('t', 1, 'x', 1, '{}', '{}', '2026-01-01T00:00:00Z')",
        )
        .execute(&pool)
        .await
        .unwrap();
        assert_eq!(store.known_head("t"), None);
        let all = store.read_all(0, 500).await.unwrap();
        assert_eq!(all.last().map(|e| e.stream_id.as_str()), Some("t"));
        assert_eq!(store.known_head("t"), Some(1));
        std::fs::remove_dir_all(&dir).ok();
    }
}
