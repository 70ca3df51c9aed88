//! The in-memory event store: the whole port (appends with expected versions and command keys,
//! the hash chain, reads, notifications and subscriptions, secrets) over one mutex, for tests
//! and for builds without a database. Nothing survives the process; it never fills.

use crate::hash::{GENESIS, Hash, event_hash, payload_text, to_hex};
use crate::{
    Appended, EventStore, ExpectedVersion, Gaps, NewEvent, Position, Secret, StoreError, StoredEvent, StreamVersion,
    Subscription, catch_up,
};
use async_trait::async_trait;
use chrono::Utc;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::broadcast;

/// What the store holds.
#[derive(Default)]
struct Inner {
    /// The global log, in position order (event at index `i` has position `i + 1`).
    log: Vec<StoredEvent>,
    /// Per stream: the log indexes of its events in version order, and its head hash.
    streams: HashMap<String, (Vec<usize>, Hash)>,
    /// Per stream: command key -> the version of the first event that carried it.
    keys: HashMap<String, HashMap<String, StreamVersion>>,
    /// Per secret name: its versions, oldest first.
    secrets: HashMap<String, Vec<Secret>>,
}

/// The in-memory store.
pub struct MemoryStore {
    inner: Mutex<Inner>,
    notify: broadcast::Sender<Position>,
}

impl Default for MemoryStore {
    fn default() -> Self {
        Self::new()
    }
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        let (notify, _) = broadcast::channel(4096);
        MemoryStore { inner: Mutex::default(), notify }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().expect("memory store")
    }
}

#[async_trait]
impl EventStore for MemoryStore {
    async fn append(
        &self,
        stream: &str,
        expected: ExpectedVersion,
        events: Vec<NewEvent>,
    ) -> Result<Appended, StoreError> {
        let mut inner = self.lock();
        let (current, mut prev) = match inner.streams.get(stream) {
            Some((idx, head)) => (StreamVersion::new(idx.len() as u64), *head),
            None => (StreamVersion::EMPTY, GENESIS),
        };
        if current != expected.version() {
            return Err(StoreError::Conflict { stream: stream.into(), expected: expected.version(), actual: current });
        }
        let keys = inner.keys.get(stream);
        let mut seen = std::collections::HashSet::new();
        for e in &events {
            if let Some(k) = &e.metadata.command_key
                && (keys.is_some_and(|m| m.contains_key(k)) || !seen.insert(k.clone()))
            {
                return Err(StoreError::Duplicate { stream: stream.into() });
            }
        }
        let recorded_at = crate::to_micros(Utc::now());
        let mut version = current;
        let mut position = Position::new(inner.log.len() as u64);
        let mut indexes = Vec::with_capacity(events.len());
        for e in events {
            version = version.next();
            position = position.next();
            let text = payload_text(&e.payload);
            let hash = event_hash(&prev, stream, i64::from(version), &e.event_type, e.schema_version, text.as_bytes());
            prev = hash;
            if let Some(k) = &e.metadata.command_key {
                inner.keys.entry(stream.to_string()).or_default().insert(k.clone(), version);
            }
            indexes.push(inner.log.len());
            inner.log.push(StoredEvent {
                position,
                stream_id: stream.to_string(),
                stream_version: version,
                event_type: e.event_type,
                schema_version: e.schema_version,
                payload: e.payload,
                payload_text: text,
                hash: Some(to_hex(&hash)),
                metadata: e.metadata,
                recorded_at,
            });
        }
        let entry = inner.streams.entry(stream.to_string()).or_insert_with(|| (Vec::new(), GENESIS));
        entry.0.extend(indexes);
        entry.1 = prev;
        drop(inner);
        let _ = self.notify.send(position);
        Ok(Appended { version, position, recorded_at })
    }

    async fn read_stream(&self, stream: &str, from: StreamVersion) -> Result<Vec<StoredEvent>, StoreError> {
        let inner = self.lock();
        let Some((idx, _)) = inner.streams.get(stream) else { return Ok(Vec::new()) };
        let skip = usize::try_from(from.get().saturating_sub(1)).unwrap_or(usize::MAX);
        Ok(idx.iter().skip(skip).map(|&i| inner.log[i].clone()).collect())
    }

    async fn read_all(&self, after: Position, limit: usize) -> Result<Vec<StoredEvent>, StoreError> {
        let inner = self.lock();
        let start = usize::try_from(after.get()).unwrap_or(usize::MAX);
        Ok(inner.log.iter().skip(start).take(limit).cloned().collect())
    }

    async fn read_last(&self, stream: &str) -> Result<Option<StoredEvent>, StoreError> {
        let inner = self.lock();
        Ok(inner.streams.get(stream).and_then(|(idx, _)| idx.last()).map(|&i| inner.log[i].clone()))
    }

    async fn last_position(&self) -> Result<Position, StoreError> {
        Ok(Position::new(self.lock().log.len() as u64))
    }

    async fn find_command_key(&self, stream: &str, key: &str) -> Result<Option<StreamVersion>, StoreError> {
        Ok(self.lock().keys.get(stream).and_then(|m| m.get(key)).copied())
    }

    fn notifications(&self) -> broadcast::Receiver<Position> {
        self.notify.subscribe()
    }

    /// Positions are taken under one lock in order: the log has no gaps.
    fn subscribe(self: Arc<Self>, after: Position) -> Subscription {
        catch_up(self, after, Gaps::Final)
    }

    async fn ping(&self) -> Result<(), StoreError> {
        Ok(())
    }

    async fn writable(&self) -> Result<(), StoreError> {
        Ok(())
    }

    fn kind(&self) -> &'static str {
        "memory"
    }

    async fn secrets(&self, name: &str) -> Result<Vec<Secret>, StoreError> {
        Ok(self.lock().secrets.get(name).cloned().unwrap_or_default())
    }

    async fn add_secret(&self, name: &str, version: i64, value: &str) -> Result<bool, StoreError> {
        let mut inner = self.lock();
        let all = inner.secrets.entry(name.to_string()).or_default();
        if all.iter().any(|s| s.version == version) {
            return Ok(false);
        }
        all.push(Secret { version, value: value.to_string(), created_at: crate::to_micros(Utc::now()) });
        all.sort_by_key(|s| s.version);
        Ok(true)
    }
}
