//! The per-stream hash chain that the event store computes at append time (tamper evidence; the
//! signed export over it lives with the platform).
//!
//! # The event hash
//! Every stored event carries `hash = SHA-256(encoding)`, where `encoding` is the concatenation of
//!
//! | part | bytes |
//! |---|---|
//! | domain tag | the 21 ASCII bytes `flicker/event-hash/v1`, then one 0x00 byte |
//! | predecessor hash | 32 bytes: the hash of the stream's previous event, or 32 zero bytes ([`GENESIS`]) for version 1 |
//! | stream id | its UTF-8 length as a big-endian u64, then its UTF-8 bytes |
//! | stream version | big-endian i64 (1-based) |
//! | event type | its UTF-8 length as a big-endian u64, then its UTF-8 bytes |
//! | schema version | big-endian i32 |
//! | payload | its length as a big-endian u64, then the exact stored JSON text of the payload |
//!
//! Hashes are written as 64 lowercase hex digits. The metadata (actor, correlation ids,
//! idempotency keys, clock deadlines) is server-side, never exported, and not hashed; the global
//! position and the recorded time are not hashed either (they are not part of a stream's story).
//! "The exact stored JSON text" is the `payload` column's text on SQLite (compact `serde_json`,
//! see [`payload_text`]) and `payload::text` on PostgreSQL (JSONB's deterministic rendering,
//! computed before the insert inside the append transaction).
//!
use crate::StoredEvent;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// A SHA-256 hash (32 bytes).
pub type Hash = [u8; 32];

/// The predecessor of a stream's first event: 32 zero bytes (64 `0`s in hex).
pub const GENESIS: Hash = [0; 32];

const EVENT_DOMAIN: &[u8] = b"flicker/event-hash/v1\0";

fn put_bytes(h: &mut Sha256, bytes: &[u8]) {
    h.update((bytes.len() as u64).to_be_bytes());
    h.update(bytes);
}

/// The hash of one event (see the module docs for the encoding): `prev` is the predecessor's
/// hash ([`GENESIS`] for version 1), `payload` the exact stored JSON text of the payload.
pub fn event_hash(prev: &Hash, stream: &str, version: i64, event_type: &str, schema: i32, payload: &[u8]) -> Hash {
    let mut h = Sha256::new();
    h.update(EVENT_DOMAIN);
    h.update(prev);
    put_bytes(&mut h, stream.as_bytes());
    h.update(version.to_be_bytes());
    put_bytes(&mut h, event_type.as_bytes());
    h.update(schema.to_be_bytes());
    put_bytes(&mut h, payload);
    h.finalize().into()
}

/// The JSON text a payload is stored as on SQLite and hashed as by `flicker simulate`: compact
/// `serde_json` output.
pub fn payload_text(payload: &Value) -> String {
    serde_json::to_string(payload).expect("a JSON value serialises")
}

/// 64 lowercase hex digits.
pub fn to_hex(h: &Hash) -> String {
    hex::encode(h)
}

/// Whether `s` is exactly `len` lowercase hex digits (one spelling per value).
pub fn is_lower_hex(s: &str, len: usize) -> bool {
    s.len() == len && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Parses exactly 64 lowercase hex digits (`None` otherwise: a hash has one spelling).
pub fn parse_hash(s: &str) -> Option<Hash> {
    if !is_lower_hex(s, 64) {
        return None;
    }
    let mut out = [0u8; 32];
    hex::decode_to_slice(s, &mut out).ok()?;
    Some(out)
}

/// One event of a chain, as exported: its stream version, type, schema version, exact payload
/// text and hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainEvent {
    /// Stream version (1-based, consecutive).
    pub version: i64,
    /// Event type tag.
    pub event_type: String,
    /// Payload schema version.
    pub schema: i32,
    /// The exact stored JSON text of the payload.
    pub payload: String,
    /// The event's hash.
    pub hash: Hash,
}

/// Builds the chain of events never stored (a simulated game): versions from 1, hashes from
/// [`GENESIS`], with the same function the store uses. `events`: (type, schema, payload text).
pub fn chain_of(stream: &str, events: impl IntoIterator<Item = (String, i32, String)>) -> Vec<ChainEvent> {
    let mut prev = GENESIS;
    let mut out = Vec::new();
    for (i, (event_type, schema, payload)) in events.into_iter().enumerate() {
        let version = i as i64 + 1;
        let hash = event_hash(&prev, stream, version, &event_type, schema, payload.as_bytes());
        prev = hash;
        out.push(ChainEvent { version, event_type, schema, payload, hash });
    }
    out
}

/// Recomputes the chain of a whole stream from its stored bytes, as an export does before it
/// signs: versions must run 1, 2, 3… and every stored hash must equal the recomputed one (an
/// event appended before the hash column existed has none: its recomputed hash stands in).
/// Errors name the event at fault; the server must not sign a chain it cannot reproduce.
pub fn rechain(stream: &str, events: &[StoredEvent]) -> Result<Vec<ChainEvent>, String> {
    let mut prev = GENESIS;
    let mut out = Vec::with_capacity(events.len());
    for (i, e) in events.iter().enumerate() {
        let version = i as i64 + 1;
        if e.stream_version != version {
            return Err(format!("stream {stream}: expected version {version}, found {}", e.stream_version));
        }
        let hash = event_hash(&prev, stream, version, &e.event_type, e.schema_version, e.payload_text.as_bytes());
        if let Some(stored) = &e.hash
            && parse_hash(stored) != Some(hash)
        {
            return Err(format!(
                "stream {stream}, event {version} ({}): the stored hash {stored} is not the recomputed {}",
                e.event_type,
                to_hex(&hash)
            ));
        }
        prev = hash;
        out.push(ChainEvent {
            version,
            event_type: e.event_type.clone(),
            schema: e.schema_version,
            payload: e.payload_text.clone(),
            hash,
        });
    }
    Ok(out)
}
