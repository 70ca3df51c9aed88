//! The JSON Lines replay format: a header line, then one line per event.
//!
//! ```text
//! {"format":"flicker-replay","format_version":1,"game":"the-final-flicker","ruleset":{"id":"current","version":1}}
//! {"version":1,"type":"game_created","schema":2,"payload":{...}}
//! {"version":2,"type":"turn_started","schema":2,"payload":{"seat":3,"round":1,"guttering":[]}}
//! ```
//!
//! `version` is the event's stream version (1-based, consecutive); `schema` the event schema
//! it was written under (older ones are read through [`crate::model::upcast`]).
//!
//! Format 2 (written by the platform's signed export, verified by `flicker verify`) has
//! the same shape with more: the header names its `stream`; the lines are the whole stream, so
//! platform events (`table_created`, `seat_taken`…) may come before `game_created`; every event
//! line carries its `hash`; the last line is `{"signature":{...}}`. [`read_replay`] reads both
//! formats for folding (it checks no hash or signature): it skips the platform lines
//! ([`flicker_game::replay::PLATFORM_EVENT_TYPES`], before the game or during it: time given,
//! chat) and the signature line.

use crate::model::event::{EVENT_SCHEMA_VERSION, Event};
use crate::model::settings::RulesetId;
use crate::model::state::State;
use crate::rules::evolve::apply;
use serde::{Deserialize, Serialize};
use std::io::{BufRead, Write};

/// Replay format identifier of the header line.
pub const REPLAY_FORMAT: &str = "flicker-replay";
/// Replay format version written by [`write_replay`] (unsigned).
pub const REPLAY_FORMAT_VERSION: u32 = 1;
/// Replay format version of the platform's signed export (hashes and a signature; see the
/// module docs), also read by [`read_replay`].
pub const SIGNED_REPLAY_FORMAT_VERSION: u32 = 2;
/// The game id of The Final Flicker.
pub const GAME_ID: &str = "the-final-flicker";

/// The header line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplayHeader {
    /// Always `flicker-replay`.
    pub format: String,
    /// Format version (1).
    pub format_version: u32,
    /// Which game (`the-final-flicker`).
    pub game: String,
    /// Ruleset id and version the game was created with.
    pub ruleset: RulesetId,
}

/// One event line: stream version, schema version and the event (`type` + `payload`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventLine {
    /// Stream version of this event (1-based).
    pub version: u64,
    /// Payload schema version.
    pub schema: u32,
    /// The event, serialised as `"type"` and `"payload"`.
    #[serde(flatten)]
    pub event: Event,
}

/// One event line as stored: its payload is read after upcasting (R10.1.3).
#[derive(Deserialize)]
struct StoredLine {
    version: u64,
    #[serde(rename = "type")]
    event_type: String,
    schema: i64,
    #[serde(default)]
    payload: serde_json::Value,
}

/// Errors reading a replay.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// I/O failure.
    #[error("reading the replay: {0}")]
    Io(#[from] std::io::Error),
    /// A line is not valid JSON of the expected shape.
    #[error("line {line}: {message}")]
    Parse {
        /// 1-based line number.
        line: usize,
        /// What was wrong.
        message: String,
    },
    /// The file is not a replay this engine can read.
    #[error("{0}")]
    Unsupported(String),
}

/// Writes a replay of `events` (the first must be the creation event).
pub fn write_replay<W: Write>(mut w: W, events: &[Event]) -> std::io::Result<()> {
    let ruleset = match events.first() {
        Some(Event::GameCreated(g)) => g.ruleset.clone(),
        _ => RulesetId::current(),
    };
    let header = ReplayHeader {
        format: REPLAY_FORMAT.into(),
        format_version: REPLAY_FORMAT_VERSION,
        game: GAME_ID.into(),
        ruleset,
    };
    serde_json::to_writer(&mut w, &header)?;
    writeln!(w)?;
    for (i, e) in events.iter().enumerate() {
        let line = EventLine { version: i as u64 + 1, schema: EVENT_SCHEMA_VERSION, event: e.clone() };
        serde_json::to_writer(&mut w, &line)?;
        writeln!(w)?;
    }
    Ok(())
}

/// Reads a replay: checks the header and that versions run 1, 2, 3… with no gap.
pub fn read_replay<R: BufRead>(r: R) -> Result<(ReplayHeader, Vec<Event>), ReplayError> {
    let (header, events) = read_replay_versioned(r)?;
    Ok((header, events.into_iter().map(|(_, e)| e).collect()))
}

/// Reads a replay of format 1 or 2 (see the module docs) and returns each engine event with its
/// stream version. Versions must run 1, 2, 3… over every event line (platform lines included).
/// In format 2, platform lines ([`flicker_game::replay::PLATFORM_EVENT_TYPES`]) are skipped
/// wherever they come, and the signature line is skipped (it must be the last line); hashes
/// and the signature are not checked here.
pub fn read_replay_versioned<R: BufRead>(r: R) -> Result<(ReplayHeader, Vec<(u64, Event)>), ReplayError> {
    let mut lines = r.lines();
    let first = lines.next().ok_or_else(|| ReplayError::Unsupported("empty file".into()))??;
    let header: ReplayHeader =
        serde_json::from_str(&first).map_err(|e| ReplayError::Parse { line: 1, message: e.to_string() })?;
    let signed = header.format_version == SIGNED_REPLAY_FORMAT_VERSION;
    if header.format != REPLAY_FORMAT
        || !(header.format_version == REPLAY_FORMAT_VERSION || signed)
        || header.game != GAME_ID
    {
        return Err(ReplayError::Unsupported(format!(
            "not a {GAME_ID} replay of format {REPLAY_FORMAT} v{REPLAY_FORMAT_VERSION} or v{SIGNED_REPLAY_FORMAT_VERSION}"
        )));
    }
    let mut events = Vec::new();
    let mut version = 0u64;
    let mut signature_at = None;
    for (i, line) in lines.enumerate() {
        let line = line?;
        let n = i + 2;
        if line.trim().is_empty() {
            continue;
        }
        if let Some(at) = signature_at {
            return Err(ReplayError::Parse { line: n, message: format!("follows the signature line (line {at})") });
        }
        if signed && line.starts_with("{\"signature\"") {
            signature_at = Some(n);
            continue;
        }
        let raw: StoredLine =
            serde_json::from_str(&line).map_err(|e| ReplayError::Parse { line: n, message: e.to_string() })?;
        if raw.version != version + 1 {
            return Err(ReplayError::Parse {
                line: n,
                message: format!("expected event version {}, found {}", version + 1, raw.version),
            });
        }
        version = raw.version;
        // R10.1.3: an event of an older schema reads through the upcasters; a newer one is
        // refused.
        let decoded = flicker_game::upcast::upcast(
            crate::model::upcast::UPCASTERS,
            crate::model::event::EVENT_SCHEMA_VERSION,
            &raw.event_type,
            raw.schema,
            &raw.payload,
        )
        .map_err(|e| e.to_string())
        .and_then(|payload| {
            serde_json::from_value::<Event>(serde_json::json!({"type": raw.event_type, "payload": payload}))
                .map_err(|e| e.to_string())
        });
        let ev = match decoded {
            Ok(ev) => ev,
            // Format 2: a platform event, before the game or during it (time given, chat).
            Err(_) if signed && flicker_game::replay::is_platform_event(&raw.event_type) => continue,
            Err(message) => return Err(ReplayError::Parse { line: n, message }),
        };
        events.push((raw.version, ev));
    }
    Ok((header, events))
}

/// Folds events into a state (R10.1.1).
pub fn fold<'a>(events: impl IntoIterator<Item = &'a Event>) -> State {
    let mut s = State::new();
    for e in events {
        apply(&mut s, e);
    }
    s
}
