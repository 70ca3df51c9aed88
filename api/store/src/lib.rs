//! The append-only event store: one port ([`EventStore`]) and its adapters, in-memory
//! ([`memory::MemoryStore`], always built), SQLite (the embedded default, feature `sqlite`) and
//! PostgreSQL (several API processes on one database, feature `postgres`). Every stream is
//! appended with expected-version optimistic concurrency and nothing is ever updated in place
//! (the databases refuse UPDATE and DELETE by trigger). The store knows nothing of the domain
//! that writes to it: payloads and the domain's metadata are JSON it keeps and gives back.
//!
//! [`contract`] is the suite every adapter must pass.

pub mod contract;
pub mod hash;
pub mod leases;
pub mod memory;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod migrations;
#[cfg(feature = "postgres")]
pub mod postgres;
#[cfg(feature = "sqlite")]
pub mod sqlite;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{broadcast, mpsc};

/// A version within one stream: the number of events the stream holds once its event at this
/// version is stored (1-based, no gaps; 0 is the empty stream). Stored as a BIGINT, so it never
/// exceeds `i64::MAX`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct StreamVersion(u64);

impl StreamVersion {
    /// The empty stream's version (0).
    pub const EMPTY: StreamVersion = StreamVersion(0);

    /// The version `v`.
    pub const fn new(v: u64) -> Self {
        StreamVersion(v)
    }

    /// The number it stands for.
    pub const fn get(self) -> u64 {
        self.0
    }

    /// The version after this one.
    pub const fn next(self) -> Self {
        StreamVersion(self.0 + 1)
    }
}

impl fmt::Display for StreamVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl From<u64> for StreamVersion {
    fn from(v: u64) -> Self {
        StreamVersion(v)
    }
}

impl From<StreamVersion> for u64 {
    fn from(v: StreamVersion) -> Self {
        v.0
    }
}

impl From<StreamVersion> for i64 {
    /// Versions fit a BIGINT (they are read from one), so this never saturates in practice.
    fn from(v: StreamVersion) -> Self {
        i64::try_from(v.0).unwrap_or(i64::MAX)
    }
}

impl TryFrom<i64> for StreamVersion {
    type Error = StoreError;

    /// A BIGINT version column or a domain's count; [`StoreError::Other`] when negative.
    fn try_from(v: i64) -> Result<Self, StoreError> {
        u64::try_from(v).map(StreamVersion).map_err(|_| StoreError::Other(format!("negative stream version {v}")))
    }
}

/// The version an append expects its stream to be at: [`ExpectedVersion::NO_STREAM`] for a
/// stream that must not exist yet, else the version of its last event.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ExpectedVersion(StreamVersion);

impl ExpectedVersion {
    /// The stream must be empty (version 0).
    pub const NO_STREAM: ExpectedVersion = ExpectedVersion(StreamVersion::EMPTY);

    /// The stream must be exactly at `v`.
    pub const fn exact(v: StreamVersion) -> Self {
        ExpectedVersion(v)
    }

    /// The version expected.
    pub const fn version(self) -> StreamVersion {
        self.0
    }
}

impl From<StreamVersion> for ExpectedVersion {
    fn from(v: StreamVersion) -> Self {
        ExpectedVersion(v)
    }
}

impl TryFrom<i64> for ExpectedVersion {
    type Error = StoreError;

    /// A domain's version count (0: no stream yet); [`StoreError::Other`] when negative.
    fn try_from(v: i64) -> Result<Self, StoreError> {
        StreamVersion::try_from(v).map(ExpectedVersion)
    }
}

impl fmt::Display for ExpectedVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// A position in the global log: increasing across all streams in commit order (1-based; 0 is
/// "before the first event"). Positions may have gaps (a rolled-back append on PostgreSQL).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Position(u64);

impl Position {
    /// Before the first event (0).
    pub const START: Position = Position(0);

    /// The position `p`.
    pub const fn new(p: u64) -> Self {
        Position(p)
    }

    /// The number it stands for.
    pub const fn get(self) -> u64 {
        self.0
    }

    /// The position after this one.
    pub const fn next(self) -> Self {
        Position(self.0 + 1)
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl From<u64> for Position {
    fn from(p: u64) -> Self {
        Position(p)
    }
}

impl From<Position> for i64 {
    /// Positions fit a BIGINT (they are read from one), so this never saturates in practice.
    fn from(p: Position) -> Self {
        i64::try_from(p.0).unwrap_or(i64::MAX)
    }
}

impl TryFrom<i64> for Position {
    type Error = StoreError;

    /// A BIGINT position column; [`StoreError::Other`] when negative.
    fn try_from(p: i64) -> Result<Self, StoreError> {
        u64::try_from(p).map(Position).map_err(|_| StoreError::Other(format!("negative log position {p}")))
    }
}

/// Metadata stored with each event (the `metadata` JSON column), apart from the payload and
/// never hashed. The store reads only [`Metadata::command_key`]; everything the domain adds of
/// its own lives in [`Metadata::extra`], kept and given back as it was written.
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
    /// The command's de-duplication key, on the first event of an append only: unique within
    /// its stream (an append reusing it fails as [`StoreError::Duplicate`] and stores nothing;
    /// [`EventStore::find_command_key`] finds where it landed). Stored as `idempotency_key`, in
    /// the JSON and in its own indexed column.
    #[serde(default, rename = "idempotency_key", skip_serializing_if = "Option::is_none")]
    pub command_key: Option<String>,
    /// A fingerprint of the command that carried [`Metadata::command_key`], so a caller can
    /// refuse the key's reuse for another command. Stored as `request_hash`.
    #[serde(default, rename = "request_hash", skip_serializing_if = "Option::is_none")]
    pub command_hash: Option<String>,
    /// The domain's own fields (e.g. a decision point's clock mark under `clock`), opaque to
    /// the store: stored as further keys of the same JSON object, after the ones above.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, Value>,
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
    /// Global position.
    pub position: Position,
    /// Stream id.
    pub stream_id: String,
    /// Version within the stream (1-based, no gaps).
    pub stream_version: StreamVersion,
    /// Event type tag.
    pub event_type: String,
    /// Payload schema version.
    pub schema_version: i32,
    /// JSON payload.
    pub payload: Value,
    /// The payload's exact stored JSON text, the bytes its hash covers: the `payload` column on
    /// SQLite, `payload::text` on PostgreSQL (see [`hash`]).
    pub payload_text: String,
    /// The event's hash (64 lowercase hex digits) over its predecessor's hash and its stored
    /// bytes ([`hash::event_hash`]), computed by the store inside the append transaction. `None`
    /// for events appended before the hash column existed (migration 0002): [`hash::rechain`]
    /// computes theirs from their stored bytes.
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
    pub version: StreamVersion,
    /// Global position of the last event appended.
    pub position: Position,
    /// When the events were recorded (all of one append share it), to the microsecond as
    /// stored, so a caller can fold its own events without reading them back.
    pub recorded_at: DateTime<Utc>,
}

/// The `INSERT INTO events` statement for `rows` events, with numbered placeholders in column
/// order (stream, version, type, schema, payload, metadata, command key, recorded at, hash),
/// `payload_cast` appended to each payload placeholder (e.g. `::jsonb`), returning positions.
/// The PostgreSQL store's multi-row appends.
#[cfg(feature = "postgres")]
pub(crate) fn insert_events_sql(rows: usize, payload_cast: &str) -> String {
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

/// `t` truncated to the microsecond, the precision every store keeps.
pub fn to_micros(t: DateTime<Utc>) -> DateTime<Utc> {
    DateTime::from_timestamp_micros(t.timestamp_micros()).unwrap_or(t)
}

/// One version of a server secret, kept in the `secrets` table apart from the event log
/// (migration 0003).
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
        expected: StreamVersion,
        /// The version found.
        actual: StreamVersion,
    },
    /// An append with this command key ([`Metadata::command_key`]) was already stored in this
    /// stream; nothing of the append was stored.
    #[error("idempotency key already used in stream {stream}")]
    Duplicate {
        /// The stream.
        stream: String,
    },
    /// The database failed.
    #[error("database error: {0}")]
    Database(Box<dyn std::error::Error + Send + Sync>),
    /// The store cannot write for want of space (SQLite's `database or disk is full`,
    /// PostgreSQL's `disk_full`). Nothing of the append was stored; the store recovers by itself
    /// once space is free ([`EventStore::writable`] says when). The API answers 503 with
    /// `Retry-After` (`/problems/storage-full`).
    #[error("storage is full: {0}")]
    Full(String),
    /// Applying migrations failed.
    #[error("migration error: {0}")]
    Migrate(Box<dyn std::error::Error + Send + Sync>),
    /// Anything else.
    #[error("{0}")]
    Other(String),
}

#[cfg(any(feature = "sqlite", feature = "postgres"))]
impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> Self {
        StoreError::Database(Box::new(e))
    }
}

#[cfg(any(feature = "sqlite", feature = "postgres"))]
impl From<sqlx::migrate::MigrateError> for StoreError {
    fn from(e: sqlx::migrate::MigrateError) -> Self {
        StoreError::Migrate(Box::new(e))
    }
}

/// A catch-up subscription's events, in position order (see [`EventStore::subscribe`]).
pub type Subscription = mpsc::Receiver<StoredEvent>;

/// The event store.
#[async_trait]
pub trait EventStore: Send + Sync + 'static {
    /// Appends `events` to `stream` if its current version is `expected`
    /// ([`ExpectedVersion::NO_STREAM`]: the stream does not exist yet). The append is
    /// acknowledged only once durable. Each event is stored with its hash chained to the
    /// stream's previous event ([`hash::event_hash`]).
    ///
    /// Errors: [`StoreError::Conflict`] when the stream is at another version,
    /// [`StoreError::Duplicate`] when the first event's command key is already in the stream,
    /// [`StoreError::Full`] for want of space; nothing is stored on any error.
    async fn append(
        &self,
        stream: &str,
        expected: ExpectedVersion,
        events: Vec<NewEvent>,
    ) -> Result<Appended, StoreError>;
    /// Events of `stream` with version >= `from`, in order.
    async fn read_stream(&self, stream: &str, from: StreamVersion) -> Result<Vec<StoredEvent>, StoreError>;
    /// Up to `limit` events of all streams with position > `after`, in position order.
    async fn read_all(&self, after: Position, limit: usize) -> Result<Vec<StoredEvent>, StoreError>;
    /// [`EventStore::read_all`] with only each event's head read: `position`, `stream_id`,
    /// `stream_version`, `event_type`, `schema_version` and `recorded_at` are filled; `payload` is
    /// `null`, `payload_text` empty, `metadata` default and `hash` `None`. For followers that
    /// act on which stream changed, not on what it says (no JSON is parsed). An adapter may
    /// answer whole events instead (the default).
    async fn read_all_heads(&self, after: Position, limit: usize) -> Result<Vec<StoredEvent>, StoreError> {
        self.read_all(after, limit).await
    }
    /// The last event of `stream` (its highest version), `None` for an empty stream; one
    /// indexed row whatever the stream's length.
    async fn read_last(&self, stream: &str) -> Result<Option<StoredEvent>, StoreError>;
    /// The highest global position committed so far ([`Position::START`] for an empty store):
    /// where a catch-up read has caught up.
    async fn last_position(&self) -> Result<Position, StoreError>;
    /// The version of the first event stored in `stream` with this command key
    /// ([`Metadata::command_key`]).
    async fn find_command_key(&self, stream: &str, key: &str) -> Result<Option<StreamVersion>, StoreError>;
    /// Live notifications: the global position of newly committed events (across processes on
    /// PostgreSQL via LISTEN/NOTIFY). Subscribers catch up with [`EventStore::read_all`].
    fn notifications(&self) -> broadcast::Receiver<Position>;
    /// A catch-up subscription: every event with position > `after`, then each new one as it
    /// is committed, in position order with no gap left behind. Each adapter knows whether its
    /// log can show a gap that later fills (a PostgreSQL transaction still in flight) and waits
    /// for it accordingly ([`catch_up`]). Ends when the receiver is dropped.
    fn subscribe(self: Arc<Self>, after: Position) -> Subscription;
    /// [`EventStore::subscribe`] over [`EventStore::read_all_heads`]: the same events in the
    /// same order, with only their heads filled (the default: whole events).
    fn subscribe_heads(self: Arc<Self>, after: Position) -> Subscription {
        self.subscribe(after)
    }
    /// Checks that the database answers (readiness).
    async fn ping(&self) -> Result<(), StoreError>;
    /// Whether the store accepts writes now (readiness). `Ok(())` while the last write
    /// succeeded; after a write failed for want of space ([`StoreError::Full`]) each call
    /// probes with a small committed write that leaves nothing behind, and answers `Ok(())`
    /// once one commits (the writer has rolled back and recovered by itself), the error
    /// meanwhile. Cheap while writable (no query).
    async fn writable(&self) -> Result<(), StoreError>;
    /// The adapter's name, for logs and `/readyz`: `memory`, `sqlite` or `postgres`.
    fn kind(&self) -> &'static str;
    /// A catch-up subscription ([`catch_up`]) has read every event up to `position` (a gap
    /// it passed counts as read). An adapter that skips reads on heads it learnt from the log
    /// uses it (PostgreSQL); the default ignores it.
    fn followed(&self, _position: Position) {}
    /// The read-your-writes token handed to clients (the API's `Flicker-Position` header), opaque
    /// to them: everything this process has committed or shown so far is covered by it, and so
    /// is everything `asked` (the token the request came with, if any) covered. `None` (the
    /// default): this process is the store's only one, no token is needed.
    fn position_token(&self, _asked: Option<&str>) -> Option<String> {
        None
    }
    /// Whether this process's reads reflect everything a [`EventStore::position_token`] (of any
    /// process) covers without asking the database. When not, the caller reads within
    /// [`fresh`]. The default: always.
    fn has_followed(&self, _token: &str) -> bool {
        true
    }
    /// Every version of the secret `name`, oldest first (empty: none yet). Secrets live in
    /// their own table, never in the event log.
    async fn secrets(&self, name: &str) -> Result<Vec<Secret>, StoreError>;
    /// Adds version `version` of the secret `name`. `Ok(false)` when that version exists
    /// already (another process added it first: read them again).
    async fn add_secret(&self, name: &str, version: i64, value: &str) -> Result<bool, StoreError>;
}

tokio::task_local! {
    static FRESH: ();
}

/// Runs `f` with every read of a stream answered from the database: no head learnt from the
/// log is trusted (on PostgreSQL, a stream's tail is read even when this process believes it
/// knows it). For read-your-writes across processes ([`EventStore::has_followed`]), and for a
/// refusal decided on a cached state, which is confirmed on the state read afresh.
pub async fn fresh<F: std::future::Future>(f: F) -> F::Output {
    FRESH.scope((), f).await
}

/// Whether the current task runs inside [`fresh`].
pub fn fresh_reads() -> bool {
    FRESH.try_with(|_| ()).is_ok()
}

/// Opens the store named by `url`: `postgres://…` for PostgreSQL, otherwise a SQLite file path
/// or `sqlite://path` (created with its migrations on first start). An adapter left out of the
/// build is an error naming its feature. (The in-memory store is built directly:
/// [`memory::MemoryStore::new`].)
pub async fn open(url: &str) -> Result<Arc<dyn EventStore>, StoreError> {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        return open_postgres(url).await;
    }
    let path = url.strip_prefix("sqlite://").or_else(|| url.strip_prefix("sqlite:")).unwrap_or(url);
    open_sqlite(path).await
}

#[cfg(feature = "postgres")]
async fn open_postgres(url: &str) -> Result<Arc<dyn EventStore>, StoreError> {
    Ok(Arc::new(postgres::PgStore::connect(url).await?))
}

#[cfg(not(feature = "postgres"))]
async fn open_postgres(_url: &str) -> Result<Arc<dyn EventStore>, StoreError> {
    Err(StoreError::Other("this build has no PostgreSQL store (feature `postgres`)".into()))
}

#[cfg(feature = "sqlite")]
async fn open_sqlite(path: &str) -> Result<Arc<dyn EventStore>, StoreError> {
    Ok(Arc::new(sqlite::SqliteStore::open(path).await?))
}

#[cfg(not(feature = "sqlite"))]
async fn open_sqlite(path: &str) -> Result<Arc<dyn EventStore>, StoreError> {
    Err(StoreError::Other(format!("this build has no SQLite store (feature `sqlite`) to open {path}")))
}

/// A catch-up subscription on `store` from `after` (see [`EventStore::subscribe`]).
pub fn subscribe(store: Arc<dyn EventStore>, after: Position) -> Subscription {
    store.subscribe(after)
}

/// What a catch-up subscription does when the log shows a gap in positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gaps {
    /// Positions are taken in commit order (one writer): a gap is for good, pass over it.
    Final,
    /// A gap may be an append still in flight: wait up to this long for it to fill before
    /// taking it for a rolled-back append.
    WaitUpTo(Duration),
}

/// The catch-up loop the adapters' [`EventStore::subscribe`] run: reads the log from `after`
/// in batches of 500, delivers every event in position order, then waits for a notification
/// (or 2 s) and reads again. Gaps are handled as `gaps` says. Runs on a tokio task until the
/// receiver is dropped or the notifications end.
pub fn catch_up(store: Arc<dyn EventStore>, after: Position, gaps: Gaps) -> Subscription {
    catch_up_reading(store, after, gaps, false)
}

/// [`catch_up`] over [`EventStore::read_all_heads`].
pub fn catch_up_heads(store: Arc<dyn EventStore>, after: Position, gaps: Gaps) -> Subscription {
    catch_up_reading(store, after, gaps, true)
}

fn catch_up_reading(store: Arc<dyn EventStore>, after: Position, gaps: Gaps, heads: bool) -> Subscription {
    let (tx, rx) = mpsc::channel(1024);
    let mut notes = store.notifications();
    tokio::spawn(async move {
        let mut last = after;
        // When each missing position was first seen missing. A position may be missing because
        // its transaction has not committed yet (wait for it) or because it rolled back (skip
        // it once it has been missing for the gap timeout). Several gaps seen together expire
        // together, so they never add up.
        let mut missing: std::collections::HashMap<u64, tokio::time::Instant> = Default::default();
        loop {
            let mut waiting = false;
            let read = if heads { store.read_all_heads(last, 500).await } else { store.read_all(last, 500).await };
            match read {
                Ok(batch) => {
                    // A short batch read everything committed so far: wait for the next
                    // notification rather than read again (an append meanwhile has queued one).
                    let full = batch.len() == 500;
                    let mut progressed = false;
                    // Every gap of the batch is noted at once, so that gaps seen together
                    // expire together: a process killed with several appends in flight leaves
                    // one gap per append (their rows interleaved with others' committed ones),
                    // and noting each only once the one before had expired took one timeout
                    // per gap, one after another.
                    if let Gaps::WaitUpTo(_) = gaps {
                        let now = tokio::time::Instant::now();
                        let mut before = last.get();
                        for e in &batch {
                            for p in before + 1..e.position.get() {
                                missing.entry(p).or_insert(now);
                            }
                            before = e.position.get();
                        }
                    }
                    for e in batch {
                        if let Gaps::WaitUpTo(timeout) = gaps
                            && e.position != last.next()
                        {
                            let now = tokio::time::Instant::now();
                            // Every missing position is noted at once (no short circuit: with
                            // `all`, a gap of n positions took n timeouts, one after another,
                            // e.g. 512 x 1.5 s after a process was killed during a bot chain).
                            let expired = (last.get() + 1..e.position.get())
                                .map(|p| *missing.entry(p).or_insert(now))
                                .fold(true, |all, since| all & (since.elapsed() >= timeout));
                            if !expired {
                                waiting = true;
                                break;
                            }
                        }
                        missing.retain(|&p, _| p > e.position.get());
                        last = e.position;
                        progressed = true;
                        if tx.send(e).await.is_err() {
                            return;
                        }
                    }
                    if progressed && !waiting && full {
                        continue;
                    }
                    if !waiting && !full {
                        // Everything committed when the read began is delivered (or passed).
                        store.followed(last);
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

/// A version read from a BIGINT column (never negative there).
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) fn version_of(v: i64) -> StreamVersion {
    StreamVersion(u64::try_from(v).unwrap_or(0))
}

/// A position read from a BIGINT column (never negative there).
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) fn position_of(p: i64) -> Position {
    Position(u64::try_from(p).unwrap_or(0))
}
