//! SQLite event store: the embedded default. WAL journal, `synchronous = FULL` (an append is
//! acknowledged only once durable), one writer task that batches concurrent appends into one
//! transaction (group commit), and a pool of readers.

use super::{Appended, EventStore, Metadata, NewEvent, StoreError, StoredEvent};
use crate::chain::{GENESIS, Hash, event_hash, parse_hash, payload_text, rechain, to_hex};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Row, SqlitePool};
use std::collections::HashMap;
use std::str::FromStr;
use std::time::Duration;
use tokio::sync::{broadcast, mpsc, oneshot};

struct AppendRequest {
    stream: String,
    expected: i64,
    events: Vec<NewEvent>,
    reply: oneshot::Sender<Result<Appended, StoreError>>,
}

/// The SQLite store.
pub struct SqliteStore {
    readers: SqlitePool,
    writer: mpsc::Sender<AppendRequest>,
    notify: broadcast::Sender<i64>,
}

impl SqliteStore {
    /// Opens (creating if needed) the database file at `path` and applies the migrations.
    pub async fn open(path: &str) -> Result<Self, StoreError> {
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
        tokio::spawn(writer_task(write_pool, rx, notify.clone()));
        Ok(SqliteStore { readers, writer, notify })
    }
}

/// Group commit: takes every request waiting, appends them in one transaction, then answers.
async fn writer_task(pool: SqlitePool, mut rx: mpsc::Receiver<AppendRequest>, notify: broadcast::Sender<i64>) {
    while let Some(first) = rx.recv().await {
        let mut batch = vec![first];
        while batch.len() < 256 {
            match rx.try_recv() {
                Ok(r) => batch.push(r),
                Err(_) => break,
            }
        }
        match write_batch(&pool, &batch).await {
            Ok(results) => {
                let mut last = None;
                for (req, res) in batch.into_iter().zip(results) {
                    if let Ok(a) = &res {
                        last = Some(a.position);
                    }
                    let _ = req.reply.send(res);
                }
                if let Some(p) = last {
                    let _ = notify.send(p);
                }
            }
            Err(e) => {
                let msg = e.to_string();
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
) -> Result<Vec<Result<Appended, StoreError>>, StoreError> {
    // BEGIN IMMEDIATE takes the write lock at once (no failed upgrade from a read lock).
    let mut tx = pool.begin_with("BEGIN IMMEDIATE").await?;
    let mut heads: HashMap<String, (i64, Hash)> = HashMap::new();
    let mut results = Vec::with_capacity(batch.len());
    let now = Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Micros, true);
    for req in batch {
        // Each request in its own savepoint: a failure rolls back that request only.
        sqlx::query("SAVEPOINT request").execute(&mut *tx).await?;
        match write_one(&mut tx, req, &mut heads, &now).await {
            Ok(r) => {
                sqlx::query("RELEASE request").execute(&mut *tx).await?;
                results.push(r);
            }
            Err(e) => {
                sqlx::query("ROLLBACK TO request").execute(&mut *tx).await?;
                sqlx::query("RELEASE request").execute(&mut *tx).await?;
                heads.remove(&req.stream);
                results.push(Err(StoreError::Other(format!("append failed: {e}"))));
            }
        }
    }
    tx.commit().await?;
    Ok(results)
}

async fn write_one(
    tx: &mut sqlx::Transaction<'_, sqlx::Sqlite>,
    req: &AppendRequest,
    heads: &mut HashMap<String, (i64, Hash)>,
    now: &str,
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
        let mut duplicate = false;
        for key in req.events.iter().filter_map(|e| e.metadata.idempotency_key.as_deref()) {
            let found = sqlx::query("SELECT 1 FROM events WHERE stream_id = $1 AND idempotency_key = $2")
                .bind(&req.stream)
                .bind(key)
                .fetch_optional(&mut **tx)
                .await?;
            duplicate |= found.is_some();
        }
        if duplicate {
            return Ok(Err(StoreError::Duplicate { stream: req.stream.clone() }));
        }
        let mut version = current;
        let mut position = 0;
        for e in &req.events {
            version += 1;
            let text = payload_text(&e.payload);
            let hash = event_hash(&prev, &req.stream, version, &e.event_type, e.schema_version, text.as_bytes());
            position = sqlx::query(
                "INSERT INTO events (stream_id, stream_version, event_type, schema_version, payload, metadata, idempotency_key, recorded_at, hash) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING position",
            )
            .bind(&req.stream)
            .bind(version)
            .bind(&e.event_type)
            .bind(e.schema_version)
            .bind(&text)
            .bind(serde_json::to_string(&e.metadata).expect("json"))
            .bind(e.metadata.idempotency_key.as_deref())
            .bind(now)
            .bind(to_hex(&hash))
            .fetch_one(&mut **tx)
            .await?
            .get(0);
            prev = hash;
        }
        heads.insert(req.stream.clone(), (version, prev));
        Ok(Ok(Appended { version, position }))
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
        rows.iter().map(row_to_event).collect()
    }

    async fn read_all(&self, after: i64, limit: i64) -> Result<Vec<StoredEvent>, StoreError> {
        let rows = sqlx::query("SELECT * FROM events WHERE position > $1 ORDER BY position LIMIT $2")
            .bind(after)
            .bind(limit)
            .fetch_all(&self.readers)
            .await?;
        rows.iter().map(row_to_event).collect()
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
}
