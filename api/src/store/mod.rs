//! The append-only event store behind one trait, with two implementations: SQLite (the embedded
//! default) and PostgreSQL (several API processes on one database). Every table, gathering and
//! account is its own stream; appends use expected-version optimistic concurrency and nothing is
//! ever updated in place (the database refuses UPDATE and DELETE by trigger).

pub mod postgres;
pub mod sqlite;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast;

/// Metadata stored with each event.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Metadata {
    /// Who caused it (an account id, or `system`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<String>,
    /// Id shared by everything one request caused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correlation_id: Option<String>,
    /// Id of the message that caused this one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub causation_id: Option<String>,
    /// The client's `Idempotency-Key`, scoped to its account as `account:key` (on the first
    /// event of an append only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<String>,
    /// A hash of the request that carried the key, to refuse the key's reuse for another request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_hash: Option<String>,
    /// R10.7.3: set on the last event of an append that opened a new decision point: when it
    /// opened and its deadline (server-side; never shown in events).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<crate::clocks::ClockMark>,
}

/// An event to append.
#[derive(Debug, Clone, PartialEq)]
pub struct NewEvent {
    /// Event type tag.
    pub event_type: String,
    /// Payload schema version.
    pub schema_version: i32,
    /// JSON payload.
    pub payload: Value,
    /// Metadata.
    pub metadata: Metadata,
}

/// An event as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredEvent {
    /// Global position (increasing across all streams).
    pub position: i64,
    /// Stream id.
    pub stream_id: String,
    /// Version within the stream (1-based, no gaps).
    pub stream_version: i64,
    /// Event type tag.
    pub event_type: String,
    /// Payload schema version.
    pub schema_version: i32,
    /// JSON payload.
    pub payload: Value,
    /// Metadata.
    pub metadata: Metadata,
    /// When it was recorded (UTC).
    pub recorded_at: DateTime<Utc>,
}

/// The result of a successful append.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Appended {
    /// The stream's version after the append.
    pub version: i64,
    /// Global position of the last event appended.
    pub position: i64,
}

/// Store failures.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The stream is not at the expected version.
    #[error("stream {stream} is at version {actual}, not {expected}")]
    Conflict {
        /// The stream.
        stream: String,
        /// The version the caller expected.
        expected: i64,
        /// The version found.
        actual: i64,
    },
    /// An append with this idempotency key was already stored in this stream.
    #[error("idempotency key already used in stream {stream}")]
    Duplicate {
        /// The stream.
        stream: String,
    },
    /// The database failed.
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    /// Applying migrations failed.
    #[error("migration error: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// Anything else.
    #[error("{0}")]
    Other(String),
}

/// The event store. (`read_all`, `notifications` and [`subscribe`] serve the catch-up
/// subscriptions of the live streams; today the store contract tests exercise them.)
#[async_trait]
#[allow(dead_code)]
pub trait EventStore: Send + Sync + 'static {
    /// Appends `events` to `stream` if its current version is `expected` (0: the stream does
    /// not exist yet). The append is acknowledged only once durable.
    async fn append(&self, stream: &str, expected: i64, events: Vec<NewEvent>) -> Result<Appended, StoreError>;
    /// Events of `stream` with version >= `from_version`, in order.
    async fn read_stream(&self, stream: &str, from_version: i64) -> Result<Vec<StoredEvent>, StoreError>;
    /// Up to `limit` events of all streams with position > `after`, in position order.
    async fn read_all(&self, after: i64, limit: i64) -> Result<Vec<StoredEvent>, StoreError>;
    /// The version of the first event stored in `stream` with this idempotency key.
    async fn find_idempotency_key(&self, stream: &str, key: &str) -> Result<Option<i64>, StoreError>;
    /// Live notifications: the global position of newly committed events (across processes on
    /// PostgreSQL via LISTEN/NOTIFY). Subscribers catch up with [`EventStore::read_all`].
    fn notifications(&self) -> broadcast::Receiver<i64>;
    /// Checks that the database answers (readiness).
    async fn ping(&self) -> Result<(), StoreError>;
    /// `sqlite` or `postgres`.
    fn kind(&self) -> &'static str;
}

/// Opens the store named by `url`: `postgres://…` for PostgreSQL, otherwise a SQLite file path
/// or `sqlite://path` (created with its migrations on first start).
pub async fn open(url: &str) -> Result<Arc<dyn EventStore>, StoreError> {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        Ok(Arc::new(postgres::PgStore::connect(url).await?))
    } else {
        let path = url.strip_prefix("sqlite://").or_else(|| url.strip_prefix("sqlite:")).unwrap_or(url);
        Ok(Arc::new(sqlite::SqliteStore::open(path).await?))
    }
}

/// A catch-up subscription: every event with position > `after`, then each new one as it is
/// committed. Events are delivered in position order with no gap left behind: a gap in positions
/// (a PostgreSQL transaction still in flight) is waited for up to `gap_timeout` before it is
/// taken to be a rolled-back append.
#[allow(dead_code)]
pub fn subscribe(store: Arc<dyn EventStore>, after: i64) -> tokio::sync::mpsc::Receiver<StoredEvent> {
    let (tx, rx) = tokio::sync::mpsc::channel(1024);
    let mut notes = store.notifications();
    tokio::spawn(async move {
        let gap_timeout = Duration::from_millis(1500);
        let mut last = after;
        // PostgreSQL: when each missing position was first seen missing. A position may be
        // missing because its transaction has not committed yet (wait for it) or because it
        // rolled back (skip it once it has been missing for `gap_timeout`). Several gaps seen
        // together expire together, so they never add up.
        let mut missing: std::collections::HashMap<i64, tokio::time::Instant> = Default::default();
        loop {
            let mut waiting = false;
            match store.read_all(last, 500).await {
                Ok(batch) => {
                    let mut progressed = false;
                    for e in batch {
                        if e.position != last + 1 && store.kind() == "postgres" {
                            let now = tokio::time::Instant::now();
                            let expired = (last + 1..e.position)
                                .map(|p| *missing.entry(p).or_insert(now))
                                .all(|since| since.elapsed() >= gap_timeout);
                            if !expired {
                                waiting = true;
                                break;
                            }
                        }
                        missing.retain(|&p, _| p > e.position);
                        last = e.position;
                        progressed = true;
                        if tx.send(e).await.is_err() {
                            return;
                        }
                    }
                    if progressed && !waiting {
                        continue;
                    }
                }
                Err(e) => tracing::warn!(error = %e, "subscription read failed; retrying"),
            }
            let wait = if waiting { Duration::from_millis(50) } else { Duration::from_secs(2) };
            tokio::select! {
                r = notes.recv() => if let Err(broadcast::error::RecvError::Closed) = r { return },
                _ = tokio::time::sleep(wait) => {}
            }
        }
    });
    rx
}

#[cfg(test)]
pub(crate) mod contract {
    //! The contract every store implementation must meet; run against SQLite here and against
    //! PostgreSQL by the integration tests.
    use super::*;

    pub fn ev(t: &str, key: Option<&str>) -> NewEvent {
        NewEvent {
            event_type: t.into(),
            schema_version: 1,
            payload: serde_json::json!({"t": t}),
            metadata: Metadata {
                actor: Some("tester".into()),
                idempotency_key: key.map(String::from),
                ..Default::default()
            },
        }
    }

    pub async fn run(store: Arc<dyn EventStore>) {
        let s = format!("test-{}", uuid::Uuid::new_v4());
        let a = store.append(&s, 0, vec![ev("a", Some("k1")), ev("b", None)]).await.unwrap();
        assert_eq!(a.version, 2);
        // Expected-version optimistic concurrency.
        match store.append(&s, 1, vec![ev("c", None)]).await {
            Err(StoreError::Conflict { expected: 1, actual: 2, .. }) => {}
            other => panic!("expected a conflict, got {other:?}"),
        }
        match store.append(&s, 5, vec![ev("c", None)]).await {
            Err(StoreError::Conflict { expected: 5, actual: 2, .. }) => {}
            other => panic!("expected a conflict, got {other:?}"),
        }
        // The idempotency key is unique per stream.
        match store.append(&s, 2, vec![ev("c", Some("k1"))]).await {
            Err(StoreError::Duplicate { .. }) => {}
            other => panic!("expected a duplicate, got {other:?}"),
        }
        assert_eq!(store.find_idempotency_key(&s, "k1").await.unwrap(), Some(1));
        assert_eq!(store.find_idempotency_key(&s, "k2").await.unwrap(), None);
        store.append(&s, 2, vec![ev("c", None)]).await.unwrap();
        let all = store.read_stream(&s, 1).await.unwrap();
        assert_eq!(all.iter().map(|e| e.event_type.as_str()).collect::<Vec<_>>(), ["a", "b", "c"]);
        assert_eq!(all.iter().map(|e| e.stream_version).collect::<Vec<_>>(), [1, 2, 3]);
        assert_eq!(all[0].metadata.idempotency_key.as_deref(), Some("k1"));
        assert_eq!(store.read_stream(&s, 3).await.unwrap().len(), 1);
        assert!(all.windows(2).all(|w| w[0].position < w[1].position));
        // Concurrent appends at the same expected version: exactly one wins.
        let s2 = format!("race-{}", uuid::Uuid::new_v4());
        let mut handles = Vec::new();
        for i in 0..8 {
            let st = store.clone();
            let s2 = s2.clone();
            handles.push(tokio::spawn(async move { st.append(&s2, 0, vec![ev(&format!("r{i}"), None)]).await }));
        }
        let mut ok = 0;
        for h in handles {
            if h.await.unwrap().is_ok() {
                ok += 1;
            }
        }
        assert_eq!(ok, 1);
        // Many streams appended concurrently all land (batched on SQLite).
        let mut handles = Vec::new();
        for i in 0..50 {
            let st = store.clone();
            handles.push(tokio::spawn(async move {
                st.append(&format!("many-{i}-{}", uuid::Uuid::new_v4()), 0, vec![ev("x", None)]).await
            }));
        }
        for h in handles {
            h.await.unwrap().unwrap();
        }
        // Catch-up subscription from a position sees later appends.
        let mut sub = subscribe(store.clone(), all[2].position);
        let s3 = format!("sub-{}", uuid::Uuid::new_v4());
        store.append(&s3, 0, vec![ev("late", None)]).await.unwrap();
        let mut seen = false;
        while let Ok(Some(e)) = tokio::time::timeout(Duration::from_secs(10), sub.recv()).await {
            if e.stream_id == s3 {
                seen = true;
                break;
            }
        }
        assert!(seen, "the subscription did not deliver the new event");
    }
}
