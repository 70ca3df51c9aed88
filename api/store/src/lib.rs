//! The append-only event store port: one trait, implemented by the SQLite (the embedded default)
//! and PostgreSQL (several API processes on one database) adapters. Every table, gathering and
//! account is its own stream; appends use expected-version optimistic concurrency and nothing is
//! ever updated in place (the database refuses UPDATE and DELETE by trigger).

pub mod hash;

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
    pub clock: Option<ClockMark>,
}

/// R10.7.3: when the open decision point opened and when it times out (the domain's mark, kept
/// in the metadata of the event that opened it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockMark {
    /// When it opened (server clock, UTC).
    pub opened_at: DateTime<Utc>,
    /// Its deadline, before any gathering pause (UTC).
    pub deadline: DateTime<Utc>,
    /// A simultaneous window (one deadline for the whole window, R10.6.6).
    #[serde(default)]
    pub window: bool,
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
    /// The payload's exact stored JSON text, the bytes its hash covers: the `payload` column on
    /// SQLite, `payload::text` on PostgreSQL (see [`crate::hash`]).
    pub payload_text: String,
    /// Issue 6: the event's hash (64 lowercase hex digits) over its predecessor's hash and its
    /// stored bytes ([`crate::hash::event_hash`]), computed by the store inside the append
    /// transaction. `None` for events appended before the hash column existed (migration 0002):
    /// [`crate::hash::rechain`] computes theirs from their stored bytes.
    pub hash: Option<String>,
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
    /// When the events were recorded (all of one append share it), to the microsecond as
    /// stored, so a caller can fold its own events without reading them back.
    pub recorded_at: DateTime<Utc>,
}

/// The `INSERT INTO events` statement for `rows` events, with numbered placeholders in column
/// order (stream, version, type, schema, payload, metadata, idempotency key, recorded at, hash),
/// `payload_cast` appended to each payload placeholder (e.g. `::jsonb`), returning positions.
/// Shared by both stores' multi-row appends.
pub fn insert_events_sql(rows: usize, payload_cast: &str) -> String {
    let values: Vec<String> = (0..rows)
        .map(|i| {
            let b = i * 9;
            format!(
                "(${}, ${}, ${}, ${}, ${}{payload_cast}, ${}, ${}, ${}, ${})",
                b + 1,
                b + 2,
                b + 3,
                b + 4,
                b + 5,
                b + 6,
                b + 7,
                b + 8,
                b + 9
            )
        })
        .collect();
    format!(
        "INSERT INTO events (stream_id, stream_version, event_type, schema_version, payload, metadata, idempotency_key, recorded_at, hash) \
         VALUES {} RETURNING position",
        values.join(", ")
    )
}

/// `t` truncated to the microsecond, the precision both stores keep.
pub fn to_micros(t: DateTime<Utc>) -> DateTime<Utc> {
    DateTime::from_timestamp_micros(t.timestamp_micros()).unwrap_or(t)
}

/// Issue 13: one version of a server secret, kept in the `secrets` table apart from the event
/// log (migration 0003).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Secret {
    /// 1, 2, 3…: rotation adds the next; the highest is current.
    pub version: i64,
    /// The secret's text (hex); never logged or served.
    pub value: String,
    /// When this version was added (UTC).
    pub created_at: DateTime<Utc>,
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
    #[cfg(feature = "sqlx")]
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    /// Issue 14: the store cannot write for want of space (SQLite's `database or disk is full`,
    /// PostgreSQL's `disk_full`). Nothing of the append was stored; the store recovers by itself
    /// once space is free ([`EventStore::writable`] says when). The API answers 503 with
    /// `Retry-After` (`/problems/storage-full`).
    #[error("storage is full: {0}")]
    Full(String),
    /// Applying migrations failed.
    #[cfg(feature = "sqlx")]
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
    /// not exist yet). The append is acknowledged only once durable. Each event is stored with
    /// its hash chained to the stream's previous event (issue 6, [`crate::hash::event_hash`]).
    async fn append(&self, stream: &str, expected: i64, events: Vec<NewEvent>) -> Result<Appended, StoreError>;
    /// Events of `stream` with version >= `from_version`, in order.
    async fn read_stream(&self, stream: &str, from_version: i64) -> Result<Vec<StoredEvent>, StoreError>;
    /// Up to `limit` events of all streams with position > `after`, in position order.
    async fn read_all(&self, after: i64, limit: i64) -> Result<Vec<StoredEvent>, StoreError>;
    /// Issue 14: the last event of `stream` (its highest version), `None` for an empty stream;
    /// one indexed row whatever the stream's length (the driver's checkpoints).
    async fn read_last(&self, stream: &str) -> Result<Option<StoredEvent>, StoreError>;
    /// Issue 14: the highest global position committed so far (0 for an empty store): where a
    /// catch-up read has caught up.
    async fn last_position(&self) -> Result<i64, StoreError>;
    /// The version of the first event stored in `stream` with this idempotency key.
    async fn find_idempotency_key(&self, stream: &str, key: &str) -> Result<Option<i64>, StoreError>;
    /// Live notifications: the global position of newly committed events (across processes on
    /// PostgreSQL via LISTEN/NOTIFY). Subscribers catch up with [`EventStore::read_all`].
    fn notifications(&self) -> broadcast::Receiver<i64>;
    /// Checks that the database answers (readiness).
    async fn ping(&self) -> Result<(), StoreError>;
    /// Issue 14: whether the store accepts writes now (readiness: `/readyz` is not ready while
    /// it does not). `Ok(())` while the last write succeeded; after a write failed for want of
    /// space ([`StoreError::Full`]) each call probes with a small committed write that leaves
    /// nothing behind, and answers `Ok(())` once one commits (the writer has rolled back and
    /// recovered by itself), the error meanwhile. Cheap while writable (no query).
    async fn writable(&self) -> Result<(), StoreError>;
    /// `sqlite` or `postgres`.
    fn kind(&self) -> &'static str;
    /// The current version of `stream` when this process knows it without asking the database:
    /// a store whose only writer is this process (SQLite, locked to one process) remembers the
    /// head of every stream it has appended to or read. `None`: ask the database. Lets a
    /// cached table skip its catch-up read (issue 8: a command cost eight queries before).
    fn known_head(&self, _stream: &str) -> Option<i64> {
        None
    }
    /// Issue 13: every version of the secret `name`, oldest first (empty: none yet). Secrets live
    /// in their own table, never in the event log.
    async fn secrets(&self, name: &str) -> Result<Vec<Secret>, StoreError>;
    /// Issue 13: adds version `version` of the secret `name`. `Ok(false)` when that version
    /// exists already (another process added it first: read them again).
    async fn add_secret(&self, name: &str, version: i64, value: &str) -> Result<bool, StoreError>;
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
                    // A short batch read everything committed so far: wait for the next
                    // notification rather than read again (an append meanwhile has queued one).
                    let full = batch.len() == 500;
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
                    if progressed && !waiting && full {
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
            // Notifications queued meanwhile are all answered by the one read that follows.
            while let Ok(_) | Err(broadcast::error::TryRecvError::Lagged(_)) = notes.try_recv() {}
        }
    });
    rx
}

/// The contract every store implementation must meet; run against SQLite and PostgreSQL by the
/// adapters' tests.
pub mod contract {
    use super::*;

    /// A test event of type `t` with an optional idempotency key.
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

    /// Runs the whole contract on `store` (panics on the first breach).
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
        // Issue 14: the last event of a stream, and the last position of the log.
        assert_eq!(store.read_last(&s).await.unwrap().map(|e| e.stream_version), Some(3));
        assert_eq!(store.read_last("no-such-stream").await.unwrap(), None);
        assert!(store.last_position().await.unwrap() >= all[2].position);
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
        chain(store.clone()).await;
        secrets(store.clone()).await;
    }

    /// Issue 13: secrets are versioned, kept apart from the log, and a version is added once.
    pub async fn secrets(store: Arc<dyn EventStore>) {
        let name = format!("test-secret-{}", uuid::Uuid::new_v4());
        assert!(store.secrets(&name).await.unwrap().is_empty());
        assert!(store.add_secret(&name, 1, "aa").await.unwrap());
        assert!(!store.add_secret(&name, 1, "bb").await.unwrap(), "a version is added once");
        assert!(store.add_secret(&name, 2, "cc").await.unwrap());
        let all = store.secrets(&name).await.unwrap();
        assert_eq!(all.iter().map(|s| (s.version, s.value.as_str())).collect::<Vec<_>>(), [(1, "aa"), (2, "cc")]);
        let log = store.read_all(0, i64::MAX).await.unwrap();
        assert!(log.iter().all(|e| !e.payload_text.contains("\"cc\"")), "a secret never enters the event log");
    }

    /// Issue 6: every event's stored hash chains to its predecessor's over its exact stored
    /// bytes, across appends and with payloads whose text a database could re-render.
    pub async fn chain(store: Arc<dyn EventStore>) {
        use crate::hash::{GENESIS, event_hash, parse_hash, rechain};
        let s = format!("chain-{}", uuid::Uuid::new_v4());
        let odd = |t: &str, payload: Value| NewEvent { payload, ..ev(t, None) };
        let payloads = [
            serde_json::json!({"zeta": 1, "alpha": [1, 2.5, -0.125, 1e-7, 12345678901234i64], "nested": {"b": null, "a": true}}),
            serde_json::json!("une chaîne \u{1F56F} \"quoted\" \\ back\nslash"),
            serde_json::json!([]),
            serde_json::json!({"long_key_first": 0, "k": "v", "": ""}),
        ];
        store.append(&s, 0, vec![odd("p0", payloads[0].clone()), odd("p1", payloads[1].clone())]).await.unwrap();
        store.append(&s, 2, vec![odd("p2", payloads[2].clone())]).await.unwrap();
        store.append(&s, 3, vec![odd("p3", payloads[3].clone())]).await.unwrap();
        let all = store.read_stream(&s, 1).await.unwrap();
        assert_eq!(all.len(), 4);
        let mut prev = GENESIS;
        for (e, p) in all.iter().zip(&payloads) {
            assert_eq!(&e.payload, p, "the payload reads back as appended");
            let text: Value = serde_json::from_str(&e.payload_text).unwrap();
            assert_eq!(&text, p, "the stored text is the payload");
            let stored = parse_hash(e.hash.as_deref().expect("a hash is stored")).expect("64 lowercase hex");
            let want =
                event_hash(&prev, &s, e.stream_version, &e.event_type, e.schema_version, e.payload_text.as_bytes());
            assert_eq!(stored, want, "event {} does not chain to its predecessor", e.stream_version);
            prev = stored;
        }
        // A later read (another connection) gives the same bytes, so the chain recomputes.
        assert_eq!(rechain(&s, &store.read_stream(&s, 1).await.unwrap()).unwrap().last().unwrap().hash, prev);
        // Every stream starts from the genesis hash.
        let g = format!("genesis-{}", uuid::Uuid::new_v4());
        store.append(&g, 0, vec![ev("g", None)]).await.unwrap();
        let first = store.read_stream(&g, 1).await.unwrap();
        let e = &first[0];
        assert_eq!(
            parse_hash(e.hash.as_deref().unwrap()).unwrap(),
            event_hash(&GENESIS, &e.stream_id, 1, &e.event_type, e.schema_version, e.payload_text.as_bytes())
        );
    }

    /// Events stored before the hash column (`hash` NULL, inserted by the caller into `stream`
    /// at versions 1 and 2): the next append chains from their recomputed hashes, and the whole
    /// stream rechains.
    pub async fn legacy(store: Arc<dyn EventStore>, stream: &str) {
        use crate::hash::{parse_hash, rechain};
        let before = store.read_stream(stream, 1).await.unwrap();
        assert_eq!(before.len(), 2);
        assert!(before.iter().all(|e| e.hash.is_none()));
        store.append(stream, 2, vec![ev("new", None)]).await.unwrap();
        let all = store.read_stream(stream, 1).await.unwrap();
        let chain = rechain(stream, &all).expect("the stream rechains");
        assert_eq!(parse_hash(all[2].hash.as_deref().unwrap()), Some(chain[2].hash));
    }
}
