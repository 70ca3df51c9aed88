//! Stored streams read straight from the database, as the reliability tests check them while
//! the server is down (or while other processes write): every row of a stream with its stored
//! bytes, the hash chain recomputed by the store's own [`flicker_store::hash::rechain`], and
//! fresh PostgreSQL databases for tests that must be alone on theirs.

use super::{Db, uuid};
use flicker_store::{Metadata, Position, StoredEvent, StreamVersion};
use serde_json::Value;
use std::time::Duration;

/// One row of the `events` table, read straight from the database.
#[derive(Debug, Clone)]
pub struct Row {
    pub position: i64,
    pub version: i64,
    pub event_type: String,
    pub schema: i32,
    /// The payload's exact stored JSON text (the bytes its hash covers).
    pub payload_text: String,
    pub payload: Value,
    pub metadata: Value,
    /// The stored hash (64 lowercase hex digits; `None` only before migration 0002).
    pub hash: Option<String>,
    /// The recorded time as text: all events of one append share it.
    pub recorded_at: String,
}

enum Pool {
    Sqlite(sqlx::SqlitePool),
    Postgres(sqlx::PgPool),
}

/// A read-only connection to a server's database, usable while the server runs (SQLite in WAL
/// mode: a reader never blocks the writer) or after it was killed.
pub struct Reader {
    rt: tokio::runtime::Runtime,
    pool: Option<Pool>,
}

impl Reader {
    pub fn open(db: &Db) -> Reader {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let pool = rt.block_on(async {
            match db {
                Db::Sqlite(path) => {
                    use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions};
                    let opts = SqliteConnectOptions::new()
                        .filename(path)
                        .journal_mode(SqliteJournalMode::Wal)
                        .busy_timeout(Duration::from_secs(10));
                    Pool::Sqlite(SqlitePoolOptions::new().max_connections(1).connect_with(opts).await.unwrap())
                }
                Db::Postgres(url) => {
                    Pool::Postgres(sqlx::postgres::PgPoolOptions::new().max_connections(1).connect(url).await.unwrap())
                }
            }
        });
        Reader { rt, pool: Some(pool) }
    }

    fn pool(&self) -> &Pool {
        self.pool.as_ref().expect("open")
    }

    /// The stored streams `streams` (full stream ids), each in version order.
    pub fn streams(&self, streams: &[String]) -> Vec<Vec<Row>> {
        // `CAST(payload AS TEXT)` is the `payload` column's text on SQLite and `payload::text`
        // on PostgreSQL: the text each store hashes.
        const SQL: &str = "SELECT position, stream_version, event_type, schema_version, CAST(payload AS TEXT), \
                           CAST(metadata AS TEXT), hash, CAST(recorded_at AS TEXT) \
                           FROM events WHERE stream_id = $1 ORDER BY stream_version";
        macro_rules! rows {
            ($pool:expr, $stream:expr) => {{
                use sqlx::Row as _;
                let rows = sqlx::query(SQL).bind($stream).fetch_all($pool).await.unwrap();
                rows.iter()
                    .map(|r| {
                        let payload_text: String = r.get(4);
                        let metadata: String = r.get(5);
                        Row {
                            position: r.get(0),
                            version: r.get(1),
                            event_type: r.get(2),
                            schema: r.get(3),
                            payload: serde_json::from_str(&payload_text).expect("stored payload is JSON"),
                            payload_text,
                            metadata: serde_json::from_str(&metadata).expect("stored metadata is JSON"),
                            hash: r.get(6),
                            recorded_at: r.get(7),
                        }
                    })
                    .collect::<Vec<Row>>()
            }};
        }
        self.rt.block_on(async {
            let mut out = Vec::new();
            for s in streams {
                out.push(match self.pool() {
                    Pool::Sqlite(p) => rows!(p, s),
                    Pool::Postgres(p) => rows!(p, s),
                });
            }
            out
        })
    }

    /// The ids of the streams whose id starts with `prefix`, sorted.
    pub fn stream_ids(&self, prefix: &str) -> Vec<String> {
        const SQL: &str = "SELECT DISTINCT stream_id FROM events WHERE stream_id LIKE $1 ORDER BY stream_id";
        let like = format!("{prefix}%");
        self.rt.block_on(async {
            match self.pool() {
                Pool::Sqlite(p) => sqlx::query_scalar(SQL).bind(&like).fetch_all(p).await.unwrap(),
                Pool::Postgres(p) => sqlx::query_scalar(SQL).bind(&like).fetch_all(p).await.unwrap(),
            }
        })
    }

    /// Positions below the last one that hold no event: on PostgreSQL, rows written by appends
    /// that never committed (a process killed in the middle of one); none on SQLite, where a
    /// rolled-back append takes no position.
    pub fn missing_positions(&self) -> i64 {
        const SQL: &str = "SELECT COALESCE(MAX(position), 0) - COUNT(*) FROM events";
        self.rt.block_on(async {
            match self.pool() {
                Pool::Sqlite(p) => sqlx::query_scalar(SQL).fetch_one(p).await.unwrap(),
                Pool::Postgres(p) => sqlx::query_scalar(SQL).fetch_one(p).await.unwrap(),
            }
        })
    }

    /// How many events the streams whose id starts with `prefix` hold.
    pub fn count(&self, prefix: &str) -> i64 {
        const SQL: &str = "SELECT COUNT(*) FROM events WHERE stream_id LIKE $1";
        let like = format!("{prefix}%");
        self.rt.block_on(async {
            match self.pool() {
                Pool::Sqlite(p) => sqlx::query_scalar(SQL).bind(&like).fetch_one(p).await.unwrap(),
                Pool::Postgres(p) => sqlx::query_scalar(SQL).bind(&like).fetch_one(p).await.unwrap(),
            }
        })
    }
}

impl Drop for Reader {
    fn drop(&mut self) {
        if let Some(p) = self.pool.take() {
            self.rt.block_on(async {
                match p {
                    Pool::Sqlite(p) => p.close().await,
                    Pool::Postgres(p) => p.close().await,
                }
            });
        }
    }
}

/// The stored stream `stream` as the store reads it, with its hash chain recomputed by the
/// store's own [`flicker_store::hash::rechain`]: versions 1, 2, 3… (no gap, no duplicate) and
/// every stored hash equal to the one recomputed from the predecessor and the stored bytes.
pub fn verify_chain(stream: &str, rows: &[Row]) -> Result<(), String> {
    for (i, r) in rows.iter().enumerate() {
        if r.version != i as i64 + 1 {
            return Err(format!("stream {stream}: version {} at row {} (a gap or a duplicate)", r.version, i + 1));
        }
        if r.hash.is_none() {
            return Err(format!("stream {stream}: version {} has no stored hash", r.version));
        }
    }
    let events: Vec<StoredEvent> = rows
        .iter()
        .map(|r| StoredEvent {
            position: Position::new(r.position as u64),
            stream_id: stream.to_string(),
            stream_version: StreamVersion::new(r.version as u64),
            event_type: r.event_type.clone(),
            schema_version: r.schema,
            payload: r.payload.clone(),
            payload_text: r.payload_text.clone(),
            hash: r.hash.clone(),
            metadata: serde_json::from_value::<Metadata>(r.metadata.clone()).expect("stored metadata"),
            recorded_at: Default::default(),
        })
        .collect();
    flicker_store::hash::rechain(stream, &events).map(|_| ())
}

/// A new, empty PostgreSQL database on the test cluster, for a test whose checks need the
/// database to itself (no other test's processes driving its gatherings meanwhile). It is
/// created through `FLICKER_POSTGRES_ADMIN_URL` when set, else through
/// `FLICKER_TEST_POSTGRES_URL` (its role needs CREATEDB, as the throwaway cluster's does).
pub fn fresh_postgres() -> Db {
    let Db::Postgres(test_url) = Db::postgres() else { unreachable!() };
    let admin = std::env::var("FLICKER_POSTGRES_ADMIN_URL").unwrap_or_else(|_| test_url.clone());
    let name = format!("flicker_rel_{}", &uuid()[..12]);
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let pool = sqlx::postgres::PgPoolOptions::new().max_connections(1).connect(&admin).await.unwrap();
        sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
            .execute(&pool)
            .await
            .unwrap_or_else(|e| panic!("creating a database for this test through {admin}: {e}"));
        pool.close().await;
    });
    let (base, _) = test_url.rsplit_once('/').expect("FLICKER_TEST_POSTGRES_URL names a database");
    Db::Postgres(format!("{base}/{name}"))
}

/// Drops a database made by [`fresh_postgres`] (its servers stopped first); best effort.
pub fn drop_postgres(db: &Db) {
    let Db::Postgres(url) = db else { return };
    let Some((_, name)) = url.rsplit_once('/') else { return };
    if !name.starts_with("flicker_rel_") {
        return;
    }
    let admin = std::env::var("FLICKER_POSTGRES_ADMIN_URL")
        .or_else(|_| std::env::var("FLICKER_TEST_POSTGRES_URL"))
        .unwrap_or_default();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        if let Ok(pool) = sqlx::postgres::PgPoolOptions::new().max_connections(1).connect(&admin).await {
            let _ = sqlx::query(sqlx::AssertSqlSafe(format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")))
                .execute(&pool)
                .await;
            pool.close().await;
        }
    });
}
