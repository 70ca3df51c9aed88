//! Reading events stored under an older event schema (R10.1.1, R10.1.3).
//!
//! A stored event keeps the bytes it was written with, and the schema version of its game at
//! that time. When a game changes the stored shape of an event, it raises its
//! [`crate::Game::EVENT_SCHEMA_VERSION`] and lists an [`Upcaster`]: a pure function from the old
//! payload to the new one. Every read path (the platform's table fold, the clocks, the engine's
//! replay parser behind `flicker replay`/`verify`) passes a stored event through [`upcast`]
//! before decoding it, so old streams fold with the code of today under the meaning they were
//! written with, and their hash chains (over the stored bytes) stay valid. An event of a newer
//! schema than the build reads is refused ([`UpcastError::Newer`]), never guessed at.

use serde_json::Value;
use std::borrow::Cow;

/// One step of a game's event schema: how a `event_type` event stored at schema `from` reads at
/// schema `from + 1`. Several upcasters may share a step (one per event type or per shape).
#[derive(Debug, Clone, Copy)]
pub struct Upcaster {
    /// The schema version this step reads (its output is `from + 1`).
    pub from: u32,
    /// The stored event type it applies to (`action_resolved`).
    pub event_type: &'static str,
    /// What it changes, one line (shown by the tests and the docs).
    pub what: &'static str,
    /// Rewrites the payload in place. Errors: the payload does not have the old shape (a
    /// corrupt event; the message says what was expected).
    pub up: fn(&mut Value) -> Result<(), String>,
}

/// Why a stored event could not be brought to the current schema.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UpcastError {
    /// The event was written by a newer build (schema `found`; this build reads up to
    /// `current`). Folding it with older code could change its meaning.
    #[error(
        "a `{event_type}` event of event schema {found} was written by a newer build (this build reads schemas 1 to {current})"
    )]
    Newer {
        /// The stored event type.
        event_type: String,
        /// The stored schema version.
        found: i64,
        /// The newest schema this build reads.
        current: u32,
    },
    /// The stored schema version is not a schema version (below 1).
    #[error("a `{event_type}` event has the invalid event schema version {found}")]
    Invalid {
        /// The stored event type.
        event_type: String,
        /// The stored schema version.
        found: i64,
    },
    /// An upcaster refused the payload.
    #[error("a `{event_type}` event of event schema {from} could not be read as schema {}: {message}", from + 1)]
    Failed {
        /// The stored event type.
        event_type: String,
        /// The schema of the failing step.
        from: u32,
        /// The upcaster's message.
        message: String,
    },
}

/// `payload`, stored as `event_type` at schema `stored`, as schema `current` reads it: every
/// upcaster of `upcasters` for that type with `stored <= from < current` applied in order of
/// `from` (then list order). Borrowed when no step applies (the common case: an event of the
/// current schema costs no copy).
///
/// Errors: [`UpcastError::Newer`] when `stored > current`, [`UpcastError::Invalid`] when
/// `stored < 1`, [`UpcastError::Failed`] when a step refuses the payload.
pub fn upcast<'a>(
    upcasters: &[Upcaster],
    current: u32,
    event_type: &str,
    stored: i64,
    payload: &'a Value,
) -> Result<Cow<'a, Value>, UpcastError> {
    if stored < 1 {
        return Err(UpcastError::Invalid { event_type: event_type.into(), found: stored });
    }
    if stored > i64::from(current) {
        return Err(UpcastError::Newer { event_type: event_type.into(), found: stored, current });
    }
    let mut steps: Vec<&Upcaster> = upcasters
        .iter()
        .filter(|u| u.event_type == event_type && i64::from(u.from) >= stored && u.from < current)
        .collect();
    if steps.is_empty() {
        return Ok(Cow::Borrowed(payload));
    }
    steps.sort_by_key(|u| u.from);
    let mut v = payload.clone();
    for u in steps {
        (u.up)(&mut v).map_err(|message| UpcastError::Failed {
            event_type: event_type.into(),
            from: u.from,
            message,
        })?;
    }
    Ok(Cow::Owned(v))
}

/// Checks a game's upcaster list: every step reads a schema from 1 to `current - 1`, has an
/// event type and a description. For each game's tests. Errors: the first bad entry.
pub fn check_upcasters(upcasters: &[Upcaster], current: u32) -> Result<(), String> {
    for u in upcasters {
        if u.from < 1 || u.from >= current {
            return Err(format!("the upcaster `{}` reads schema {}, outside 1..{current}", u.what, u.from));
        }
        if u.event_type.is_empty() || u.what.is_empty() {
            return Err(format!("an upcaster from schema {} lacks its event type or description", u.from));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rename(v: &mut Value) -> Result<(), String> {
        let o = v.as_object_mut().ok_or("not an object")?;
        let n = o.remove("n").ok_or("no `n`")?;
        o.insert("count".into(), n);
        Ok(())
    }

    fn double(v: &mut Value) -> Result<(), String> {
        let n = v["count"].as_i64().ok_or("no `count`")?;
        v["count"] = json!(n * 2);
        Ok(())
    }

    const STEPS: &[Upcaster] = &[
        Upcaster { from: 2, event_type: "lit", what: "counts are doubled", up: double },
        Upcaster { from: 1, event_type: "lit", what: "`n` is named `count`", up: rename },
    ];

    #[test]
    fn steps_apply_in_schema_order_from_the_stored_version() {
        let v1 = json!({"n": 3});
        assert_eq!(upcast(STEPS, 3, "lit", 1, &v1).unwrap().into_owned(), json!({"count": 6}));
        let v2 = json!({"count": 3});
        assert_eq!(upcast(STEPS, 3, "lit", 2, &v2).unwrap().into_owned(), json!({"count": 6}));
        // The current schema, and other event types, are read as stored, without a copy.
        assert!(matches!(upcast(STEPS, 3, "lit", 3, &v2).unwrap(), Cow::Borrowed(_)));
        assert!(matches!(upcast(STEPS, 3, "snuffed", 1, &v1).unwrap(), Cow::Borrowed(_)));
        // A step at or above the current schema is not applied (a build that reads schema 2
        // only renames).
        assert_eq!(upcast(STEPS, 2, "lit", 1, &v1).unwrap().into_owned(), json!({"count": 3}));
    }

    #[test]
    fn newer_invalid_and_malformed_events_are_refused_with_what_is_wrong() {
        let v = json!({"n": 3});
        let newer = upcast(STEPS, 3, "lit", 4, &v).unwrap_err();
        assert_eq!(newer, UpcastError::Newer { event_type: "lit".into(), found: 4, current: 3 });
        assert!(newer.to_string().contains("newer build"), "{newer}");
        assert!(matches!(upcast(STEPS, 3, "lit", 0, &v), Err(UpcastError::Invalid { found: 0, .. })));
        let bad = upcast(STEPS, 3, "lit", 1, &json!({"m": 1})).unwrap_err();
        assert_eq!(bad, UpcastError::Failed { event_type: "lit".into(), from: 1, message: "no `n`".into() });
        assert!(bad.to_string().contains("schema 1 could not be read as schema 2"), "{bad}");
    }

    #[test]
    fn the_list_check_refuses_steps_outside_the_schema_range() {
        assert!(check_upcasters(STEPS, 3).is_ok());
        assert!(check_upcasters(STEPS, 2).unwrap_err().contains("outside 1..2"));
        assert!(check_upcasters(&[], 1).is_ok());
    }
}
