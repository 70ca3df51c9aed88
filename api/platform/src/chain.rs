//! Tamper evidence: the per-stream hash chain that the event store computes at append
//! time, the signed replay export (JSON Lines, format 2) and its verifier (`flicker verify`).
//!
//! # The event hash
//! The store computes each event's hash on append ([`flicker_store::hash`] gives the encoding);
//! it is re-exported here with the chain's other pieces. The metadata (actor, correlation ids,
//! command keys, clock deadlines) is server-side, never exported, and not hashed.
//!
//! # The signature
//! An export ends with the head hash signed by an Ed25519 key over [`head_message`]: the domain
//! tag `flicker/replay-head/v1` + 0x00, the stream id (u64 length + bytes), the head version (i64),
//! the head hash (32 bytes) and SHA-256 of the header line's exact bytes (without its newline),
//! so the header is covered too.

use ed25519_dalek::{Signature, Signer, SigningKey, VerifyingKey};
use final_flicker::replay::{GAME_ID, REPLAY_FORMAT};
pub use final_flicker::settings::RulesetId;
pub use flicker_store::hash::{
    ChainEvent, GENESIS, Hash, chain_of, event_hash, parse_hash, payload_text, rechain, to_hex,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;
use sha2::{Digest, Sha256};
use std::io::Write;

/// The replay format version of a signed export (format 1, unsigned, is the engine's
/// [`final_flicker::replay::write_replay`]).
pub const SIGNED_FORMAT_VERSION: u32 = 2;

const HEAD_DOMAIN: &[u8] = b"flicker/replay-head/v1\0";

/// The message an export's signature signs (see the module docs): the stream, the head version
/// and hash, and SHA-256 of the header line (its exact bytes, without the newline).
pub fn head_message(stream: &str, version: i64, head: &Hash, header_line: &str) -> Vec<u8> {
    let mut m = Vec::with_capacity(128 + stream.len());
    m.extend_from_slice(HEAD_DOMAIN);
    m.extend_from_slice(&(stream.len() as u64).to_be_bytes());
    m.extend_from_slice(stream.as_bytes());
    m.extend_from_slice(&version.to_be_bytes());
    m.extend_from_slice(head);
    let header: Hash = Sha256::digest(header_line.as_bytes()).into();
    m.extend_from_slice(&header);
    m
}

/// Whether `s` is exactly `len` lowercase hex digits (one spelling per value).
fn is_lower_hex(s: &str, len: usize) -> bool {
    s.len() == len && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Parses an Ed25519 signing key from its 32-byte seed in hex (64 hex digits).
pub fn parse_signing_key(s: &str) -> Result<SigningKey, String> {
    let mut seed = [0u8; 32];
    hex::decode_to_slice(s.trim(), &mut seed).map_err(|e| format!("not a 32-byte hex seed ({e})"))?;
    Ok(SigningKey::from_bytes(&seed))
}

/// Parses an Ed25519 public key from 64 hex digits.
pub fn parse_public_key(s: &str) -> Result<VerifyingKey, String> {
    let mut bytes = [0u8; 32];
    hex::decode_to_slice(s.trim(), &mut bytes).map_err(|e| format!("not a 32-byte hex key ({e})"))?;
    VerifyingKey::from_bytes(&bytes).map_err(|e| format!("not an Ed25519 public key ({e})"))
}

/// A fresh signing key from the OS generator.
pub fn generate_signing_key() -> SigningKey {
    let mut seed = [0u8; 32];
    rand::fill(&mut seed);
    SigningKey::from_bytes(&seed)
}

/// The chain of engine events as `flicker simulate` exports them: each payload as the store
/// would hold it (see [`crate::tables::engine_event`] and [`payload_text`]).
pub fn chain_of_engine_events<G: flicker_game::Game>(stream: &str, events: &[G::Event]) -> Vec<ChainEvent> {
    chain_of(
        stream,
        events.iter().map(|e| {
            let n = crate::tables::engine_event::<G>(e, Default::default());
            (n.event_type, n.schema_version, payload_text(&n.payload))
        }),
    )
}

/// The ruleset a game recorded (the Game contract's [`flicker_game::Ruleset`]) as the export
/// header names it.
pub fn ruleset_id(r: flicker_game::Ruleset) -> RulesetId {
    RulesetId { id: r.id, version: r.version }
}

/// The header line of a signed export.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SignedHeader {
    /// Always `flicker-replay`.
    pub format: String,
    /// 2.
    pub format_version: u32,
    /// The game's id: `the-final-flicker`, `lets-call-the-exorcist`.
    pub game: String,
    /// The game's ruleset (as in `game_created`).
    pub ruleset: RulesetId,
    /// The stream the events come from (hashed into every event).
    pub stream: String,
}

/// The signature trailer: `{"signature": {...}}`, the last line of a signed export.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SignatureLine {
    /// The signature.
    pub signature: SignatureBody,
}

/// What the trailer says: the algorithm, what was signed and by whom, and the signature.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SignatureBody {
    /// Always `ed25519`.
    pub algorithm: String,
    /// The stream signed.
    pub stream: String,
    /// The head version: the stream version of the last event (0: no events).
    pub version: i64,
    /// The head hash (hex; the last event's hash, [`GENESIS`] when there are none).
    pub head: String,
    /// The signer's Ed25519 public key (hex, 32 bytes).
    pub public_key: String,
    /// The Ed25519 signature of [`head_message`] (hex, 64 bytes).
    pub value: String,
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).expect("a string serialises")
}

/// The header line for `stream` of The Final Flicker (no newline).
pub fn header_line(stream: &str, ruleset: &RulesetId) -> String {
    header_line_of(GAME_ID, stream, ruleset)
}

/// The header line for `stream` of the game `game` (its [`flicker_game::Game::GAME_ID`]; no
/// newline).
pub fn header_line_of(game: &str, stream: &str, ruleset: &RulesetId) -> String {
    let h = SignedHeader {
        format: REPLAY_FORMAT.into(),
        format_version: SIGNED_FORMAT_VERSION,
        game: game.into(),
        ruleset: ruleset.clone(),
        stream: stream.into(),
    };
    serde_json::to_string(&h).expect("header serialises")
}

/// One event line (no newline): `{"version":V,"type":T,"schema":S,"payload":<exact text>,"hash":H}`.
pub fn event_line(e: &ChainEvent) -> String {
    format!(
        "{{\"version\":{},\"type\":{},\"schema\":{},\"payload\":{},\"hash\":\"{}\"}}",
        e.version,
        json_string(&e.event_type),
        e.schema,
        e.payload,
        to_hex(&e.hash)
    )
}

/// Writes a signed replay (format 2) of The Final Flicker: see [`write_signed_game`].
pub fn write_signed<W: Write>(
    w: W,
    stream: &str,
    ruleset: &RulesetId,
    events: &[ChainEvent],
    key: &SigningKey,
) -> std::io::Result<()> {
    write_signed_game(w, GAME_ID, stream, ruleset, events, key)
}

/// Writes a signed replay (format 2) of the game `game` (its id, named by the header): the
/// header line, one line per event of the chain, and the signature line over the head, each
/// ending with `\n`. `events` must be a whole stream from version 1 (see [`rechain`],
/// [`chain_of`]).
pub fn write_signed_game<W: Write>(
    mut w: W,
    game: &str,
    stream: &str,
    ruleset: &RulesetId,
    events: &[ChainEvent],
    key: &SigningKey,
) -> std::io::Result<()> {
    let header = header_line_of(game, stream, ruleset);
    writeln!(w, "{header}")?;
    for e in events {
        writeln!(w, "{}", event_line(e))?;
    }
    let (version, head) = events.last().map_or((0, GENESIS), |e| (e.version, e.hash));
    let signature = key.sign(&head_message(stream, version, &head, &header));
    let trailer = SignatureLine {
        signature: SignatureBody {
            algorithm: "ed25519".into(),
            stream: stream.into(),
            version,
            head: to_hex(&head),
            public_key: hex::encode(key.verifying_key().as_bytes()),
            value: hex::encode(signature.to_bytes()),
        },
    };
    writeln!(w, "{}", serde_json::to_string(&trailer).expect("signature serialises"))?;
    w.flush()
}

/// A replay that verified: its stream, head, signer, and how many events it holds.
#[derive(Debug, Clone)]
pub struct Verified {
    /// The game the header names (a hosted game's id).
    pub game: String,
    /// The stream id of the header.
    pub stream: String,
    /// Number of events (platform and game).
    pub events: usize,
    /// The head version (the last event's stream version).
    pub version: i64,
    /// The head hash.
    pub head: Hash,
    /// The key that signed it.
    pub public_key: VerifyingKey,
    /// Whether that key was pinned by the caller (`--public-key`) rather than taken from the file.
    pub pinned: bool,
}

/// Why a replay failed verification: the 1-based line, what is there (`header`, `signature`,
/// or `event version V (type)`), and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line} ({at}): {message}")]
pub struct VerifyError {
    /// 1-based line number in the file.
    pub line: usize,
    /// What the line holds, e.g. `event version 7 (drew)`.
    pub at: String,
    /// What is wrong.
    pub message: String,
}

/// The event line strictly parsed: the payload kept as its exact text.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEventLine<'a> {
    version: i64,
    #[serde(rename = "type")]
    event_type: String,
    schema: i32,
    #[serde(borrow)]
    payload: &'a RawValue,
    hash: String,
}

/// Names what a line holds as well as it can be read: `event version V (type)`.
fn name_line(line: &str) -> String {
    match serde_json::from_str::<Value>(line) {
        Ok(v) if v.get("signature").is_some() => "signature".into(),
        Ok(v) => {
            let version = v.get("version").map_or("?".into(), |x| x.to_string());
            let ty = v.get("type").and_then(Value::as_str).unwrap_or("?");
            format!("event version {version} ({ty})")
        }
        Err(_) => "unreadable line".into(),
    }
}

/// Verifies a signed replay's exact text (see the module docs and the README's "Replay format"):
/// the header and every line in canonical form, every event's hash recomputed from the line's
/// exact bytes and its predecessor's hash, versions consecutive from 1, and the signature line
/// last, over the last event's version and hash and the header, by `pinned` when given (else by
/// the key the file names). The first failure is returned, naming its line and event. The game
/// itself is not folded here (see `flicker verify`).
pub fn verify(text: &str, pinned: Option<&VerifyingKey>) -> Result<Verified, VerifyError> {
    let err = |line: usize, at: &str, message: String| VerifyError { line, at: at.to_string(), message };
    if !text.ends_with('\n') {
        let n = text.split('\n').count();
        return Err(err(n, "end of file", "the file does not end with a newline after its signature line".into()));
    }
    let lines: Vec<&str> = text[..text.len() - 1].split('\n').collect();
    // The header.
    let first = lines[0];
    let header_value: Value = serde_json::from_str(first)
        .map_err(|e| err(1, "header", format!("not JSON ({e}); expected the replay header")))?;
    if header_value.get("format_version") == Some(&Value::from(1)) {
        return Err(err(
            1,
            "header",
            "a format 1 replay carries no hashes and no signature: nothing to verify (`flicker replay` folds it)"
                .into(),
        ));
    }
    let header: SignedHeader = serde_json::from_value(header_value)
        .map_err(|e| err(1, "header", format!("not a signed replay header ({e})")))?;
    if header.format != REPLAY_FORMAT
        || crate::names::GameName::from_id(&header.game).is_none()
        || header.format_version != SIGNED_FORMAT_VERSION
    {
        return Err(err(
            1,
            "header",
            format!("not a replay of a hosted game of format {REPLAY_FORMAT} v{SIGNED_FORMAT_VERSION}"),
        ));
    }
    if header_line_of(&header.game, &header.stream, &header.ruleset) != first {
        return Err(err(1, "header", "its bytes are not the canonical header's (the line was changed)".into()));
    }
    let stream = header.stream.as_str();
    // The events.
    let mut prev = GENESIS;
    let mut version = 0i64;
    let mut last_name = "the header".to_string();
    let mut i = 1;
    while i < lines.len() && !lines[i].starts_with("{\"signature\"") {
        let n = i + 1;
        let line = lines[i];
        let at = name_line(line);
        let e: RawEventLine =
            serde_json::from_str(line).map_err(|e| err(n, &at, format!("not a valid event line ({e})")))?;
        let at = format!("event version {} ({})", e.version, e.event_type);
        if e.version != version + 1 {
            let why = if e.version > version + 1 {
                format!(
                    "expected version {}: event{} {} missing (dropped) before it",
                    version + 1,
                    if e.version > version + 2 { "s" } else { "" },
                    if e.version > version + 2 {
                        format!("{}..{} are", version + 1, e.version - 1)
                    } else {
                        format!("{} is", version + 1)
                    }
                )
            } else {
                format!("expected version {}: the version was changed, or the event repeated", version + 1)
            };
            return Err(err(n, &at, why));
        }
        let Some(stated) = parse_hash(&e.hash) else {
            return Err(err(n, &at, format!("its hash {:?} is not 64 lowercase hex digits", e.hash)));
        };
        let computed = event_hash(&prev, stream, e.version, &e.event_type, e.schema, e.payload.get().as_bytes());
        if computed != stated {
            return Err(err(
                n,
                &at,
                format!(
                    "the hash does not match: the line says {}, its bytes and its predecessor's hash give {}; \
                     its version, type, schema, payload or hash was changed (or its predecessor, line {}, was)",
                    e.hash,
                    to_hex(&computed),
                    n - 1
                ),
            ));
        }
        let canonical = ChainEvent {
            version: e.version,
            event_type: e.event_type.clone(),
            schema: e.schema,
            payload: e.payload.get().to_string(),
            hash: computed,
        };
        if event_line(&canonical) != line {
            return Err(err(n, &at, "its bytes outside the hashed fields are not in canonical form".into()));
        }
        prev = computed;
        version = e.version;
        last_name = format!("event version {} ({}, line {n})", e.version, e.event_type);
        i += 1;
    }
    // The signature.
    let n = i + 1;
    let Some(sig_line) = lines.get(i) else {
        return Err(err(
            n,
            "signature",
            format!("the signature line is missing: the file ends after {last_name} (cut short, or never signed)"),
        ));
    };
    let s: SignatureLine =
        serde_json::from_str(sig_line).map_err(|e| err(n, "signature", format!("not a valid signature line ({e})")))?;
    if serde_json::to_string(&s).expect("signature serialises") != *sig_line {
        return Err(err(n, "signature", "its bytes are not in canonical form (the line was changed)".into()));
    }
    let s = s.signature;
    if s.algorithm != "ed25519" {
        return Err(err(n, "signature", format!("algorithm {:?} (expected \"ed25519\")", s.algorithm)));
    }
    if s.stream != stream {
        return Err(err(n, "signature", format!("signs stream {:?}, the header says {stream:?}", s.stream)));
    }
    if let Some(extra) = lines.get(i + 1) {
        return Err(err(n + 1, &name_line(extra), "follows the signature line: it was appended after signing".into()));
    }
    if s.version < 0 {
        return Err(err(n, "signature", format!("head version {} is negative", s.version)));
    }
    if s.version > version {
        return Err(err(
            n,
            "signature",
            format!(
                "signs the stream up to event version {}, but the file ends at {last_name}: \
                 event {} and later were dropped",
                s.version,
                version + 1
            ),
        ));
    }
    if s.version < version {
        let k = s.version as usize + 1; // line of the first event after the signed head
        return Err(err(
            k + 1,
            &name_line(lines[k]),
            format!(
                "the signature covers events up to version {} only: this event and those after it were appended",
                s.version
            ),
        ));
    }
    if parse_hash(&s.head) != Some(prev) {
        return Err(err(
            n,
            "signature",
            format!(
                "signs head hash {}, but the file's chain ends with {} at {last_name}: an event was changed and \
                 the hashes after it recomputed",
                s.head,
                to_hex(&prev)
            ),
        ));
    }
    if !is_lower_hex(&s.public_key, 64) || !is_lower_hex(&s.value, 128) {
        return Err(err(
            n,
            "signature",
            "the public key and the signature must be lowercase hex (32 and 64 bytes)".into(),
        ));
    }
    let key = parse_public_key(&s.public_key).map_err(|m| err(n, "signature", format!("public key: {m}")))?;
    if let Some(p) = pinned
        && p != &key
    {
        return Err(err(
            n,
            "signature",
            format!("signed by key {}, not by the pinned key {}", s.public_key, hex::encode(p.as_bytes())),
        ));
    }
    let mut sig = [0u8; 64];
    hex::decode_to_slice(&s.value, &mut sig)
        .map_err(|e| err(n, "signature", format!("the signature is not 64 hex bytes ({e})")))?;
    key.verify_strict(&head_message(stream, version, &prev, first), &Signature::from_bytes(&sig)).map_err(|_| {
        err(
            n,
            "signature",
            format!(
                "the Ed25519 signature does not verify over the head (event version {version}) and the header \
                 (line 1): the signature, the key or the header was changed"
            ),
        )
    })?;
    Ok(Verified {
        game: header.game.clone(),
        stream: stream.to_string(),
        events: version as usize,
        version,
        head: prev,
        public_key: key,
        pinned: pinned.is_some(),
    })
}

#[cfg(test)]
mod tests;
