//! The stored form of a typed event (a game's, or a table's, gathering's or account's own): the
//! store keeps an event as its type name and its payload, and every event type of the platform
//! serialises adjacently tagged, `{"type": "<snake_case name>", "payload": {...}}` (see
//! [`flicker_game::Game::Event`]). These two functions are the only place that form is built or
//! taken apart.

use crate::store::{Metadata, NewEvent};
use serde::Serialize;
use serde::de::value::{BorrowedStrDeserializer, MapAccessDeserializer};
use serde::de::{DeserializeOwned, DeserializeSeed, MapAccess};

/// `event` as an event to append: its `type` as the stored type, its `payload` (JSON `null` for
/// an event without one) as the body, with `schema_version` and `metadata`.
///
/// Panics if `E` does not serialise to the adjacently tagged form (a defect of `E`, caught by
/// every test that stores one).
pub fn encode<E: Serialize>(event: &E, schema_version: u32, metadata: Metadata) -> NewEvent {
    let mut v = serde_json::to_value(event).expect("an event serialises");
    let event_type = match v.get("type") {
        Some(serde_json::Value::String(t)) => t.clone(),
        _ => panic!("an event serialises as {{\"type\", \"payload\"}}"),
    };
    let payload = v.get_mut("payload").map(serde_json::Value::take).unwrap_or(serde_json::Value::Null);
    NewEvent { event_type, schema_version: schema_version as i32, payload, metadata }
}

/// Why a stored game event could not be read.
#[derive(Debug, thiserror::Error)]
pub enum GameDecodeError {
    /// R10.1.3: its event schema is newer than this build reads, invalid, or an upcaster
    /// refused its payload.
    #[error(transparent)]
    Schema(#[from] flicker_game::UpcastError),
    /// Not an event of the game (another aggregate's event, or a payload of another shape).
    #[error(transparent)]
    Shape(#[from] serde_json::Error),
}

/// The game's event stored as `event_type` under event schema `schema` with `payload`, read at
/// the game's current schema: through [`flicker_game::Game::upcast`] first (R10.1.3), so an
/// event of an older schema means what it meant when it was written. Errors: see
/// [`GameDecodeError`].
pub fn decode_game<G: flicker_game::Game>(
    event_type: &str,
    schema: i32,
    payload: &serde_json::Value,
) -> Result<G::Event, GameDecodeError> {
    let payload = G::upcast(event_type, i64::from(schema), payload)?;
    Ok(decode(event_type, &payload)?)
}

/// The typed event stored as `event_type` with `payload`. Errors: the stored event is not an
/// `E` (another aggregate's event, or a payload of another shape).
pub fn decode<E: DeserializeOwned>(event_type: &str, payload: &serde_json::Value) -> Result<E, serde_json::Error> {
    // The adjacently tagged form read straight from its parts: the payload is not copied into
    // a `{"type", "payload"}` object first.
    E::deserialize(MapAccessDeserializer::new(Tagged { event_type, payload, next: 0 }))
}

/// `{"type": event_type, "payload": payload}` as a map to deserialize from, borrowing both.
struct Tagged<'a> {
    event_type: &'a str,
    payload: &'a serde_json::Value,
    /// Entries given so far.
    next: u8,
}

impl<'de> MapAccess<'de> for Tagged<'de> {
    type Error = serde_json::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Self::Error> {
        let key = match self.next {
            0 => "type",
            1 => "payload",
            _ => return Ok(None),
        };
        seed.deserialize(BorrowedStrDeserializer::new(key)).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Self::Error> {
        self.next += 1;
        match self.next {
            1 => seed.deserialize(BorrowedStrDeserializer::new(self.event_type)),
            _ => seed.deserialize(self.payload),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(2 - usize::from(self.next.min(2)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    #[serde(tag = "type", content = "payload", rename_all = "snake_case")]
    enum Sample {
        Lit { seat: u8 },
        Snuffed,
    }

    /// Both shapes (with a payload and without) come back as they went in; another shape is an
    /// error, not a panic.
    #[test]
    fn events_round_trip_through_their_stored_form() {
        for e in [Sample::Lit { seat: 3 }, Sample::Snuffed] {
            let stored = encode(&e, 1, Metadata::default());
            assert_eq!(decode::<Sample>(&stored.event_type, &stored.payload).unwrap(), e);
        }
        assert_eq!(encode(&Sample::Snuffed, 1, Metadata::default()).payload, serde_json::Value::Null);
        assert!(decode::<Sample>("table_created", &serde_json::json!({})).is_err());
        assert!(decode::<Sample>("lit", &serde_json::json!({"seat": "x"})).is_err());
    }
}
