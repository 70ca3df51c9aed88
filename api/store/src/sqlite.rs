//! SQLite event store: the embedded default. WAL journal, `synchronous = FULL` (an append is
//! acknowledged only once durable), one writer task that batches concurrent appends into one
//! transaction (group commit), and a pool of readers. One process serves a database file: it
//! holds an exclusive lock on `<file>.lock` while open (several API processes need PostgreSQL),
//! so it knows every stream's head without asking ([`SqliteStore::known_head`]) and answers a
//! read past a known head without a query.

use crate::hash::{GENESIS, Hash, event_hash, parse_hash, payload_text, rechain, to_hex};
use crate::{
    Appended, EventStore, ExpectedVersion, Gaps, Metadata, NewEvent, Position, Secret, StoreError, StoredEvent,
    StreamVersion, Subscription, catch_up,
};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use sqlx::sqlite::{SqliteConnectOptions, SqliteConnection, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{ConnectOptions, Row, SqlitePool};
use std::collections::HashMap;
use std::str::FromStr;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{broadcast, mpsc, oneshot};

struct AppendRequest {
    stream: String,
    expected: i64,
    expected_typed: ExpectedVersion,
    events: Vec<NewEvent>,
    reply: oneshot::Sender<Result<Appended, StoreError>>,
}

/// Stream heads this process knows: every stream it has appended to or read (by stream, in
/// the global log, or a command key found in it), at its version. Never ahead of the database;
/// behind it only between a commit and the first of the writer's update (before it answers the
/// append or notifies) and a reader seeing the commit (before it hands the event on), so
/// whoever learns of an append also finds the head raised, and a read past the head
/// ([`EventStore::read_stream`]) may answer empty without a query.
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
    writer: mpsc::Sender<WriterMsg>,
    notify: broadcast::Sender<Position>,
    heads: Heads,
    /// Set while writes fail for want of space.
    full: FullState,
    /// How to open a writing connection: secrets are written on one of their own, rarely (at
    /// first start and on rotation), outside the writer task's batches.
    write_opts: SqliteConnectOptions,
    /// The exclusive lock on `<file>.lock`, held while the store is open.
    _lock: Option<std::fs::File>,
}

/// The files of the database at `path`: the database, its `-wal` and `-shm`, and `.lock`.
pub fn database_files(path: &str) -> Vec<std::path::PathBuf> {
    let base = path.split('?').next().unwrap_or(path);
    ["", "-wal", "-shm", ".lock"].iter().map(|s| std::path::PathBuf::from(format!("{base}{s}"))).collect()
}

/// Makes the database files owner-only (0600; the files, not their directory).
/// `create`: creates the database file 0600 when missing, so that it is never readable by
/// others even for a moment (SQLite gives its `-wal` and `-shm` the database file's mode). An
/// existing file readable or writable by others is tightened, saying so in the log. Returns the
/// files tightened. In-memory databases have none.
pub fn owner_only(path: &str, create: bool) -> Result<Vec<std::path::PathBuf>, StoreError> {
    if path.is_empty() || path.contains(":memory:") || path.contains("mode=memory") {
        return Ok(vec![]);
    }
    let mut tightened = Vec::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        let files = database_files(path);
        if create && !files[0].exists() {
            std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(false)
                .mode(0o600)
                .open(&files[0])
                .map_err(|e| StoreError::Other(format!("cannot create {}: {e}", files[0].display())))?;
        }
        for f in files {
            let Ok(meta) = std::fs::metadata(&f) else { continue };
            let mode = meta.permissions().mode() & 0o777;
            if mode & 0o077 != 0 {
                std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o600))
                    .map_err(|e| StoreError::Other(format!("cannot make {} owner-only: {e}", f.display())))?;
                tracing::warn!(
                    file = %f.display(),
                    was = %format!("{mode:o}"),
                    "the database file was readable or writable by others; made it owner-only (0600)"
                );
                tightened.push(f);
            }
        }
    }
    #[cfg(not(unix))]
    let _ = create;
    Ok(tightened)
}

/// Takes the exclusive lock on `<path>.lock` (released by the OS when the process ends, even on
/// SIGKILL). In-memory databases need none.
fn lock_file(path: &str) -> Result<Option<std::fs::File>, StoreError> {
    #[cfg(unix)]
    use std::os::unix::fs::OpenOptionsExt;
    if path.is_empty() || path.contains(":memory:") || path.contains("mode=memory") {
        return Ok(None);
    }
    let lock_path = format!("{}.lock", path.split('?').next().unwrap_or(path));
    let f = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
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
        // The database holds accounts and secrets, so its files are owner-only.
        owner_only(path, true)?;
        let lock = lock_file(path)?;
        let opts = SqliteConnectOptions::from_str(&format!("sqlite://{path}"))?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .busy_timeout(Duration::from_secs(10));
        let mut conn = opts.connect().await?;
        crate::migrations::migrator(crate::migrations::SQLITE).run(&mut conn).await?;
        let readers = SqlitePoolOptions::new().max_connections(4).connect_with(opts.clone().read_only(true)).await?;
        let (notify, _) = broadcast::channel(4096);
        let (writer, rx) = mpsc::channel(4096);
        let heads = Heads::default();
        let full = Arc::new(Mutex::new(None));
        let write_opts = opts.clone();
        let w = Writer { conn, opts, full: full.clone() };
        tokio::spawn(writer_task(w, rx, notify.clone(), heads.clone()));
        // The WAL and shared-memory files exist now: SQLite gives them the database file's mode,
        // but tighten them in case they were left from an earlier, looser run.
        owner_only(path, false)?;
        Ok(SqliteStore { readers, writer, notify, heads, full, write_opts, _lock: lock })
    }

    /// Runs `sql` on the writer's own connection, between batches (tests: `PRAGMA
    /// max_page_count`, which is per connection, to fill the store for real). Feature
    /// `test-util` only.
    #[cfg(any(test, feature = "test-util"))]
    pub async fn exec_on_writer(&self, sql: &str) -> Result<(), StoreError> {
        let (reply, rx) = oneshot::channel();
        self.writer
            .send(WriterMsg::Exec(sql.to_string(), reply))
            .await
            .map_err(|_| StoreError::Other("the writer has stopped".into()))?;
        rx.await.map_err(|_| StoreError::Other("the writer has stopped".into()))?
    }

    /// Closes the pool of readers: from then on every read that needs a query fails, so a
    /// test sees which reads ask the database (appends still commit: the writer has its own
    /// connection). Feature `test-util` only.
    #[cfg(any(test, feature = "test-util"))]
    pub async fn close_readers(&self) {
        self.readers.close().await;
    }
}

/// What the writer task is asked to do.
enum WriterMsg {
    Append(AppendRequest),
    /// Probe whether a write commits now ([`EventStore::writable`]).
    Probe(oneshot::Sender<Result<(), StoreError>>),
    #[cfg(any(test, feature = "test-util"))]
    Exec(String, oneshot::Sender<Result<(), StoreError>>),
}

/// The writer's connection and what it knows of its health.
struct Writer {
    conn: SqliteConnection,
    opts: SqliteConnectOptions,
    /// Why the last write failed for want of space; `None` while writes commit.
    full: FullState,
}

/// Set while the store cannot write for want of space (the message of the failure),
/// cleared by the next write that commits.
type FullState = Arc<Mutex<Option<String>>>;

/// SQLITE_FULL (13): `database or disk is full`, a disk out of space or `max_page_count`
/// reached.
fn is_full(e: &sqlx::Error) -> bool {
    e.as_database_error().and_then(|d| d.code()).and_then(|c| c.parse::<i32>().ok()).is_some_and(|c| c & 0xff == 13)
}

/// A failed write as a store error: [`StoreError::Full`] for want of space.
fn write_error(e: sqlx::Error) -> StoreError {
    if is_full(&e) { StoreError::Full(e.to_string()) } else { StoreError::from(e) }
}

impl Writer {
    /// After a failed batch, ends whatever is left of its transaction (SQLite may
    /// already have rolled it back itself on SQLITE_FULL, so "no transaction is active" is
    /// fine), and opens a fresh connection if this one no longer answers. The transaction is
    /// driven by plain statements, never by sqlx's transaction depth, which a rollback SQLite
    /// did by itself would leave wrong for good (`begin_with at non-zero transaction depth`).
    async fn recover(&mut self) {
        if let Err(e) = sqlx::query("ROLLBACK").execute(&mut self.conn).await
            && !e.to_string().contains("no transaction is active")
        {
            tracing::warn!(error = %e, "rolling back a failed batch failed; reopening the writer's connection");
            match self.opts.connect().await {
                Ok(c) => self.conn = c,
                Err(e) => tracing::error!(error = %e, "reopening the writer's connection failed"),
            }
        }
    }

    fn set_full(&self, why: Option<String>) {
        let mut full = self.full.lock().expect("full");
        if why.is_some() && full.is_none() {
            tracing::error!(
                error = why.as_deref().unwrap_or_default(),
                "the event store is full; refusing writes until space is free"
            );
        } else if why.is_none() && full.is_some() {
            tracing::info!("the event store writes again");
        }
        *full = why;
    }

    /// A small write that commits and leaves nothing behind (a table created, filled with
    /// 64 KiB and dropped in one transaction): whether there is room to write now.
    async fn probe(&mut self) -> Result<(), StoreError> {
        let r: Result<(), sqlx::Error> = async {
            sqlx::query("BEGIN IMMEDIATE").execute(&mut self.conn).await?;
            sqlx::query("CREATE TABLE flicker_store_probe (b BLOB)").execute(&mut self.conn).await?;
            sqlx::query("INSERT INTO flicker_store_probe VALUES (zeroblob(65536))").execute(&mut self.conn).await?;
            sqlx::query("DROP TABLE flicker_store_probe").execute(&mut self.conn).await?;
            sqlx::query("COMMIT").execute(&mut self.conn).await?;
            Ok(())
        }
        .await;
        match r {
            Ok(()) => {
                self.set_full(None);
                Ok(())
            }
            Err(e) => {
                self.recover().await;
                let e = write_error(e);
                if let StoreError::Full(m) = &e {
                    self.set_full(Some(m.clone()));
                }
                Err(e)
            }
        }
    }
}

/// Group commit: takes every request waiting, appends them in one transaction, then answers.
async fn writer_task(
    mut w: Writer,
    mut rx: mpsc::Receiver<WriterMsg>,
    notify: broadcast::Sender<Position>,
    heads: Heads,
) {
    // Each stream's (version, hash) head, kept across batches: this writer is the file's only
    // writer, so after one read it knows them. Dropped for a batch that fails as a whole.
    let mut chain: HashMap<String, (i64, Hash)> = HashMap::new();
    while let Some(first) = rx.recv().await {
        if chain.len() > 100_000 {
            chain.clear();
        }
        let mut msgs = vec![first];
        while msgs.len() < 256 {
            match rx.try_recv() {
                Ok(r) => msgs.push(r),
                Err(_) => break,
            }
        }
        let mut batch = Vec::with_capacity(msgs.len());
        let mut probes = Vec::new();
        for m in msgs {
            match m {
                WriterMsg::Append(r) => batch.push(r),
                WriterMsg::Probe(reply) => probes.push(reply),
                #[cfg(any(test, feature = "test-util"))]
                WriterMsg::Exec(sql, reply) => {
                    let r = sqlx::query(sqlx::AssertSqlSafe(sql)).execute(&mut w.conn).await;
                    let _ = reply.send(r.map(|_| ()).map_err(StoreError::from));
                }
            }
        }
        let mut committed = false;
        if !batch.is_empty() {
            match write_batch(&mut w.conn, &batch, &mut chain).await {
                Ok(results) => {
                    committed = true;
                    w.set_full(None);
                    let mut last = None;
                    for (req, res) in batch.into_iter().zip(results) {
                        if let Ok(a) = &res {
                            last = Some(a.position);
                            // Before the reply, so the appender's next read sees its own append.
                            raise(&heads, &req.stream, i64::from(a.version));
                        }
                        let _ = req.reply.send(res);
                    }
                    if let Some(p) = last {
                        let _ = notify.send(p);
                    }
                }
                Err(e) => {
                    w.recover().await;
                    for req in &batch {
                        chain.remove(&req.stream);
                    }
                    let full = match &e {
                        StoreError::Full(m) => Some(m.clone()),
                        _ => None,
                    };
                    if full.is_some() {
                        w.set_full(full.clone());
                    }
                    let msg = e.to_string();
                    for req in batch {
                        let err = match &full {
                            Some(m) => StoreError::Full(m.clone()),
                            None => StoreError::Other(format!("append failed: {msg}")),
                        };
                        let _ = req.reply.send(Err(err));
                    }
                }
            }
        }
        if !probes.is_empty() {
            let r = if committed || w.full.lock().expect("full").is_none() { Ok(()) } else { w.probe().await };
            for reply in probes {
                let _ = reply.send(match &r {
                    Ok(()) => Ok(()),
                    Err(StoreError::Full(m)) => Err(StoreError::Full(m.clone())),
                    Err(e) => Err(StoreError::Other(e.to_string())),
                });
            }
        }
    }
}

async fn write_batch(
    conn: &mut SqliteConnection,
    batch: &[AppendRequest],
    heads: &mut HashMap<String, (i64, Hash)>,
) -> Result<Vec<Result<Appended, StoreError>>, StoreError> {
    // BEGIN IMMEDIATE takes the write lock at once (no failed upgrade from a read lock). Plain
    // statements, not sqlx's transaction: see [`Writer::recover`], which ends it on failure.
    sqlx::query("BEGIN IMMEDIATE").execute(&mut *conn).await.map_err(write_error)?;
    let mut results = Vec::with_capacity(batch.len());
    let recorded_at = crate::to_micros(Utc::now());
    let now = recorded_at.to_rfc3339_opts(chrono::SecondsFormat::Micros, true);
    // Several requests: each in its own savepoint, so a failure rolls back that request only.
    // A lone request needs none: its failure rolls back the transaction.
    let savepoints = batch.len() > 1;
    for req in batch {
        if savepoints {
            sqlx::query("SAVEPOINT request").execute(&mut *conn).await.map_err(write_error)?;
        }
        match write_one(conn, req, heads, (&now, recorded_at)).await {
            Ok(r) => {
                if savepoints {
                    sqlx::query("RELEASE request").execute(&mut *conn).await.map_err(write_error)?;
                }
                results.push(r);
            }
            // No room: the whole batch fails (and is rolled back by the caller).
            Err(e) if is_full(&e) => return Err(write_error(e)),
            Err(e) => {
                heads.remove(&req.stream);
                let failure = append_failure(req, &e);
                if !savepoints {
                    sqlx::query("ROLLBACK").execute(&mut *conn).await.map_err(write_error)?;
                    return Ok(vec![Err(failure)]);
                }
                sqlx::query("ROLLBACK TO request").execute(&mut *conn).await.map_err(write_error)?;
                sqlx::query("RELEASE request").execute(&mut *conn).await.map_err(write_error)?;
                results.push(Err(failure));
            }
        }
    }
    sqlx::query("COMMIT").execute(&mut *conn).await.map_err(write_error)?;
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
        Some(d) if d.is_unique_violation() && d.message().contains("stream_version") => StoreError::Conflict {
            stream: req.stream.clone(),
            expected: req.expected_typed.version(),
            actual: req.expected_typed.version().next(),
        },
        _ => StoreError::Other(format!("append failed: {e}")),
    }
}

/// Inserts the rows of `$3`, a JSON array of `[version, type, schema, payload text, metadata
/// text, idempotency key or null, hash]`, into stream `$1` recorded at `$2`, in array order (so
/// their positions follow it).
const INSERT_ROWS: &str = "INSERT INTO events (stream_id, stream_version, event_type, schema_version, payload, metadata, \
     idempotency_key, recorded_at, hash) \
     SELECT $1, value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, $2, value ->> 6 \
     FROM json_each($3) ORDER BY key RETURNING position";

async fn write_one(
    tx: &mut SqliteConnection,
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
                .fetch_optional(&mut *tx)
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
                expected: req.expected_typed.version(),
                actual: crate::version_of(current),
            }));
        }
        // A key used before: the unique index refuses the insert ([`append_failure`]).
        // The request's events in one INSERT whose rows come from one JSON parameter (an array
        // of rows, each an array of its columns; text columns as JSON strings, so SQLite gives
        // back their exact bytes): SQLite finds each bound parameter by name, so a statement
        // with a parameter per column costs the square of its parameters.
        let mut version = current;
        let mut rows = Vec::with_capacity(req.events.len());
        for e in &req.events {
            version += 1;
            let text = payload_text(&e.payload);
            let hash = event_hash(&prev, &req.stream, version, &e.event_type, e.schema_version, text.as_bytes());
            let metadata = serde_json::to_string(&e.metadata).expect("json");
            rows.push((
                version,
                &e.event_type,
                e.schema_version,
                text,
                metadata,
                e.metadata.command_key.as_deref(),
                to_hex(&hash),
            ));
            prev = hash;
        }
        let rows = serde_json::to_string(&rows).expect("json");
        let mut position = 0;
        for r in sqlx::query(INSERT_ROWS).bind(&req.stream).bind(now).bind(rows).fetch_all(&mut *tx).await? {
            position = position.max(r.get::<i64, _>(0));
        }
        heads.insert(req.stream.clone(), (version, prev));
        Ok(Ok(Appended { version: crate::version_of(version), position: crate::position_of(position), recorded_at }))
    }
}

/// The head hash of a stream whose last event has no stored hash (appended before migration
/// 0002): the chain recomputed over its stored bytes.
async fn legacy_head(tx: &mut SqliteConnection, stream: &str) -> Result<Result<Hash, StoreError>, sqlx::Error> {
    let rows = sqlx::query("SELECT * FROM events WHERE stream_id = $1 ORDER BY stream_version")
        .bind(stream)
        .fetch_all(&mut *tx)
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
        position: crate::position_of(r.get("position")),
        stream_id: r.get("stream_id"),
        stream_version: crate::version_of(r.get("stream_version")),
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

impl SqliteStore {
    /// Raises the known heads to the events a log read saw: a subscriber may see a commit
    /// before the writer has raised its heads, and raising them here keeps a table loaded on
    /// its notification from being taken as current when it is not.
    fn raise_seen(&self, events: &[StoredEvent]) {
        let mut heads = self.heads.lock().expect("heads");
        for e in events {
            raise_in(&mut heads, &e.stream_id, i64::from(e.stream_version));
        }
    }
}

/// An event's head (see [`EventStore::read_all_heads`]).
fn row_to_head(r: &sqlx::sqlite::SqliteRow) -> Result<StoredEvent, StoreError> {
    let recorded: String = r.get("recorded_at");
    Ok(StoredEvent {
        position: crate::position_of(r.get("position")),
        stream_id: r.get("stream_id"),
        stream_version: crate::version_of(r.get("stream_version")),
        event_type: r.get("event_type"),
        schema_version: r.get("schema_version"),
        payload: serde_json::Value::Null,
        payload_text: String::new(),
        hash: None,
        metadata: Metadata::default(),
        recorded_at: DateTime::parse_from_rfc3339(&recorded)
            .map_err(|e| StoreError::Other(format!("stored time: {e}")))?
            .with_timezone(&Utc),
    })
}

#[async_trait]
impl EventStore for SqliteStore {
    async fn append(
        &self,
        stream: &str,
        expected: ExpectedVersion,
        events: Vec<NewEvent>,
    ) -> Result<Appended, StoreError> {
        let (reply, rx) = oneshot::channel();
        let request = AppendRequest {
            stream: stream.to_string(),
            expected: i64::from(expected.version()),
            expected_typed: expected,
            events,
            reply,
        };
        self.writer
            .send(WriterMsg::Append(request))
            .await
            .map_err(|_| StoreError::Other("the writer has stopped".into()))?;
        rx.await.map_err(|_| StoreError::Other("the writer has stopped".into()))?
    }

    async fn secrets(&self, name: &str) -> Result<Vec<Secret>, StoreError> {
        let rows = sqlx::query("SELECT version, value, created_at FROM secrets WHERE name = $1 ORDER BY version")
            .bind(name)
            .fetch_all(&self.readers)
            .await?;
        rows.iter()
            .map(|r| {
                let at: String = r.get(2);
                Ok(Secret {
                    version: r.get(0),
                    value: r.get(1),
                    created_at: DateTime::parse_from_rfc3339(&at)
                        .map_err(|e| StoreError::Other(format!("secret {name}: bad time {at}: {e}")))?
                        .with_timezone(&Utc),
                })
            })
            .collect()
    }

    async fn add_secret(&self, name: &str, version: i64, value: &str) -> Result<bool, StoreError> {
        let now = Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Micros, true);
        let r = sqlx::query(
            "INSERT INTO secrets (name, version, value, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
        )
        .bind(name)
        .bind(version)
        .bind(value)
        .bind(now)
        .execute(&mut self.write_opts.connect().await?)
        .await?;
        Ok(r.rows_affected() == 1)
    }

    /// A read from past the stream's known head answers empty without a query (a cached
    /// table's catch-up read at its head): the head is never ahead of the database, and
    /// whoever has learnt of a later event (an append's reply, a read, a notification, a
    /// command key found) has raised it first.
    async fn read_stream(&self, stream: &str, from: StreamVersion) -> Result<Vec<StoredEvent>, StoreError> {
        let from_version = i64::from(from);
        if self.known_head(stream).is_some_and(|head| head < from_version) {
            return Ok(Vec::new());
        }
        let rows =
            sqlx::query("SELECT * FROM events WHERE stream_id = $1 AND stream_version >= $2 ORDER BY stream_version")
                .bind(stream)
                .bind(from_version)
                .fetch_all(&self.readers)
                .await?;
        let events: Vec<StoredEvent> = rows.iter().map(row_to_event).collect::<Result<_, _>>()?;
        if let Some(last) = events.last() {
            raise(&self.heads, stream, i64::from(last.stream_version));
        }
        Ok(events)
    }

    async fn read_all(&self, after: Position, limit: usize) -> Result<Vec<StoredEvent>, StoreError> {
        let rows = sqlx::query("SELECT * FROM events WHERE position > $1 ORDER BY position LIMIT $2")
            .bind(i64::from(after))
            .bind(i64::try_from(limit).unwrap_or(i64::MAX))
            .fetch_all(&self.readers)
            .await?;
        let events: Vec<StoredEvent> = rows.iter().map(row_to_event).collect::<Result<_, _>>()?;
        self.raise_seen(&events);
        Ok(events)
    }

    async fn read_all_heads(&self, after: Position, limit: usize) -> Result<Vec<StoredEvent>, StoreError> {
        let rows = sqlx::query(
            "SELECT position, stream_id, stream_version, event_type, schema_version, recorded_at FROM events \
             WHERE position > $1 ORDER BY position LIMIT $2",
        )
        .bind(i64::from(after))
        .bind(i64::try_from(limit).unwrap_or(i64::MAX))
        .fetch_all(&self.readers)
        .await?;
        let events: Vec<StoredEvent> = rows.iter().map(row_to_head).collect::<Result<_, _>>()?;
        self.raise_seen(&events);
        Ok(events)
    }

    async fn read_last(&self, stream: &str) -> Result<Option<StoredEvent>, StoreError> {
        let row = sqlx::query("SELECT * FROM events WHERE stream_id = $1 ORDER BY stream_version DESC LIMIT 1")
            .bind(stream)
            .fetch_optional(&self.readers)
            .await?;
        let event = row.as_ref().map(row_to_event).transpose()?;
        if let Some(e) = &event {
            raise(&self.heads, stream, i64::from(e.stream_version));
        }
        Ok(event)
    }

    async fn last_position(&self) -> Result<Position, StoreError> {
        let row = sqlx::query("SELECT COALESCE(MAX(position), 0) FROM events").fetch_one(&self.readers).await?;
        Ok(crate::position_of(row.get(0)))
    }

    async fn find_command_key(&self, stream: &str, key: &str) -> Result<Option<StreamVersion>, StoreError> {
        let row = sqlx::query("SELECT MIN(stream_version) FROM events WHERE stream_id = $1 AND idempotency_key = $2")
            .bind(stream)
            .bind(key)
            .fetch_one(&self.readers)
            .await?;
        let found = row.get::<Option<i64>, _>(0);
        // The caller reads the stream from this version next: the head is at least there.
        if let Some(v) = found {
            raise(&self.heads, stream, v);
        }
        Ok(found.map(crate::version_of))
    }

    fn notifications(&self) -> broadcast::Receiver<Position> {
        self.notify.subscribe()
    }

    /// One writer takes positions in commit order: a gap is a rolled-back append, for good.
    fn subscribe(self: Arc<Self>, after: Position) -> Subscription {
        catch_up(self, after, Gaps::Final)
    }

    fn subscribe_heads(self: Arc<Self>, after: Position) -> Subscription {
        crate::catch_up_heads(self, after, Gaps::Final)
    }

    async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1").fetch_one(&self.readers).await?;
        Ok(())
    }

    async fn writable(&self) -> Result<(), StoreError> {
        if self.full.lock().expect("full").is_none() {
            return Ok(());
        }
        let (reply, rx) = oneshot::channel();
        self.writer
            .send(WriterMsg::Probe(reply))
            .await
            .map_err(|_| StoreError::Other("the writer has stopped".into()))?;
        rx.await.map_err(|_| StoreError::Other("the writer has stopped".into()))?
    }

    fn kind(&self) -> &'static str {
        "sqlite"
    }
}

impl SqliteStore {
    /// The current version of `stream` as this process knows it without asking the database:
    /// this process is the file's only writer, so it remembers the head of every stream it has
    /// appended to or read. `None`: not known (ask the database).
    pub fn known_head(&self, stream: &str) -> Option<i64> {
        self.heads.lock().expect("heads").get(stream).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[tokio::test]
    async fn the_database_is_append_only_and_old_events_chain() {
        let dir = std::env::temp_dir().join(format!("flicker-store-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.db");
        let store = Arc::new(SqliteStore::open(path.to_str().unwrap()).await.unwrap());
        store
            .append(
                &format!("rows-{}", uuid::Uuid::new_v4()),
                ExpectedVersion::NO_STREAM,
                vec![crate::contract::ev("a", None)],
            )
            .await
            .unwrap();
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
        crate::contract::legacy(store.clone(), &legacy).await;
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
        let ev = crate::contract::ev;
        assert_eq!(store.known_head("s"), None);
        store
            .append("s", ExpectedVersion::NO_STREAM, vec![ev("a", Some("k")), ev("b", None), ev("c", None)])
            .await
            .unwrap();
        assert_eq!(store.known_head("s"), Some(3));
        // A reused key is a duplicate and stores nothing; the head stays.
        let dup = store
            .append("s", ExpectedVersion::exact(StreamVersion::new(3)), vec![ev("d", Some("k")), ev("e", None)])
            .await;
        assert!(matches!(dup, Err(StoreError::Duplicate { .. })), "{dup:?}");
        assert_eq!(store.read_stream("s", StreamVersion::new(1)).await.unwrap().len(), 3);
        assert_eq!(store.known_head("s"), Some(3));
        drop(store);
        // A fresh process learns heads by reading.
        let store = SqliteStore::open(path).await.unwrap();
        assert_eq!(store.known_head("s"), None);
        assert_eq!(store.read_stream("s", StreamVersion::new(2)).await.unwrap().len(), 2);
        assert_eq!(store.known_head("s"), Some(3));
        let conflict = store.append("s", ExpectedVersion::exact(StreamVersion::new(2)), vec![ev("x", None)]).await;
        assert!(matches!(conflict, Err(StoreError::Conflict { actual: StreamVersion(3), .. })), "{conflict:?}");
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
        let all = store.read_all(Position::START, 500).await.unwrap();
        assert_eq!(all.last().map(|e| e.stream_id.as_str()), Some("t"));
        assert_eq!(store.known_head("t"), Some(1));
        std::fs::remove_dir_all(&dir).ok();
    }

    /// A read past the known head answers empty without a query; a command key found raises
    /// the head to its version, so the read from there finds it; with the readers closed, reads
    /// at the head still answer and every other read fails.
    #[tokio::test]
    async fn a_read_past_the_known_head_asks_nothing() {
        let dir = std::env::temp_dir().join(format!("flicker-store-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.db");
        let path = path.to_str().unwrap();
        let store = SqliteStore::open(path).await.unwrap();
        let ev = crate::contract::ev;
        store.append("s", ExpectedVersion::NO_STREAM, vec![ev("a", None), ev("b", None)]).await.unwrap();
        assert_eq!(store.known_head("s"), Some(2));
        // Rows the writer never saw (as if committed a moment ago): the known head is behind.
        let pool = SqlitePool::connect(&format!("sqlite://{path}")).await.unwrap();
        for (v, key) in [(3, None), (4, Some("k"))] {
            sqlx::query(
                "INSERT INTO events (stream_id, stream_version, event_type, schema_version, payload, metadata, \
                 idempotency_key, recorded_at) VALUES ('s', $1, 'x', 1, '{}', $2, $3, '2026-01-01T00:00:00Z')",
            )
            .bind(v)
            // The metadata holds the key too, as the writer stores it.
            .bind(key.map_or("{}".to_string(), |k| format!(r#"{{"idempotency_key":"{k}"}}"#)))
            .bind(key)
            .execute(&pool)
            .await
            .unwrap();
        }
        assert!(store.read_stream("s", StreamVersion::new(3)).await.unwrap().is_empty(), "past the head: no query");
        assert_eq!(store.find_command_key("s", "k").await.unwrap(), Some(StreamVersion::new(4)));
        assert_eq!(store.known_head("s"), Some(4), "a command key found raises the head");
        let found = store.read_stream("s", StreamVersion::new(4)).await.unwrap();
        assert_eq!(found.first().and_then(|e| e.metadata.command_key.as_deref()), Some("k"));
        assert_eq!(store.read_stream("s", StreamVersion::new(1)).await.unwrap().len(), 4);
        // No reader left: only the reads past the head answer.
        store.close_readers().await;
        assert!(store.read_stream("s", StreamVersion::new(5)).await.unwrap().is_empty());
        assert!(store.read_stream("s", StreamVersion::new(4)).await.is_err());
        assert!(store.read_stream("unknown", StreamVersion::new(1)).await.is_err());
        // An append still commits and raises the head; the read past it needs no reader either.
        let a = store.append("u", ExpectedVersion::NO_STREAM, vec![ev("c", None)]).await.unwrap();
        assert_eq!(a.version, StreamVersion::new(1));
        assert!(store.read_stream("u", StreamVersion::new(2)).await.unwrap().is_empty());
        assert!(store.read_stream("u", StreamVersion::new(1)).await.is_err());
        drop(store);
        std::fs::remove_dir_all(&dir).ok();
    }
}
