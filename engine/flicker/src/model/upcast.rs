//! How events stored under an older event schema read today (R10.1.3): the
//! [`flicker_game::Upcaster`]s of The Final Flicker, applied on every read path before an event
//! is decoded (see [`flicker_game::upcast`]).
//!
//! | from | event | what changed |
//! |---|---|---|
//! | 1 | `action_resolved` | a `drained` effect's `packets` are `{seat, cards}` objects, not `[seat, [cards]]` |
//! | 1 | `action_resolved` | a `watcher_taken` effect's `taken` are `{seat, cards}` objects, not `[seat, [cards]]` |
//! | 1 | `action_resolved` | a `purged` effect's `removed` are `{ghost, siphoned, spread?}` objects, and the separate `spreads` list (`[ghost, seat]`) is folded into them |

use flicker_game::Upcaster;
use serde_json::{Map, Value, json};

/// Every upcaster of the event schema, oldest step first.
pub const UPCASTERS: &[Upcaster] = &[
    Upcaster {
        from: 1,
        event_type: "action_resolved",
        what: "R5.5.4: a Drain's packets as {seat, cards}",
        up: drained_packets,
    },
    Upcaster {
        from: 1,
        event_type: "action_resolved",
        what: "R8.37.1: The Watcher's takings as {seat, cards}",
        up: watcher_taken,
    },
    Upcaster {
        from: 1,
        event_type: "action_resolved",
        what: "R5.6.3, R8.20.3: a Purge's ghosts as {ghost, siphoned, spread}",
        up: purged_ghosts,
    },
];

/// The effect object of an `action_resolved` payload when it is of kind `kind`.
fn effect_of<'a>(payload: &'a mut Value, kind: &str) -> Option<&'a mut Map<String, Value>> {
    let effect = payload.get_mut("effect")?.as_object_mut()?;
    (effect.get("effect").and_then(Value::as_str) == Some(kind)).then_some(effect)
}

/// `[seat, [cards]]` pairs as `{seat, cards}` objects.
fn seat_cards(list: &mut Value, field: &str) -> Result<(), String> {
    let pairs = list.as_array_mut().ok_or_else(|| format!("`{field}` is not a list"))?;
    for p in pairs {
        let (seat, cards) = match p.as_array().map(Vec::as_slice) {
            Some([seat, cards]) if seat.is_u64() && cards.is_array() => (seat.clone(), cards.clone()),
            _ => return Err(format!("an entry of `{field}` is not [seat, [cards]]: {p}")),
        };
        *p = json!({"seat": seat, "cards": cards});
    }
    Ok(())
}

/// Schema 1 to 2, `drained` effects: `packets: [[seat, [cards]]]` becomes
/// `packets: [{"seat", "cards"}]`.
fn drained_packets(payload: &mut Value) -> Result<(), String> {
    match effect_of(payload, "drained") {
        Some(e) => seat_cards(e.get_mut("packets").ok_or("a `drained` effect without `packets`")?, "packets"),
        None => Ok(()),
    }
}

/// Schema 1 to 2, `watcher_taken` effects: `taken: [[seat, [cards]]]` becomes
/// `taken: [{"seat", "cards"}]`.
fn watcher_taken(payload: &mut Value) -> Result<(), String> {
    match effect_of(payload, "watcher_taken") {
        Some(e) => seat_cards(e.get_mut("taken").ok_or("a `watcher_taken` effect without `taken`")?, "taken"),
        None => Ok(()),
    }
}

/// Schema 1 to 2, `purged` effects: `removed: [[ghost, siphoned]]` and the optional
/// `spreads: [[ghost, seat]]` become `removed: [{"ghost", "siphoned", "spread"?}]`, each spread
/// joined to its ghost (a ghost is removed once, so the join is by its card id) and left out
/// where the ghost did not spread, as schema 2 writes it.
fn purged_ghosts(payload: &mut Value) -> Result<(), String> {
    let Some(e) = effect_of(payload, "purged") else { return Ok(()) };
    let spreads = match e.remove("spreads") {
        None => Vec::new(),
        Some(Value::Array(s)) => s,
        Some(other) => return Err(format!("`spreads` is not a list: {other}")),
    };
    let removed = e.get_mut("removed").and_then(Value::as_array_mut).ok_or("a `purged` effect without `removed`")?;
    for r in removed {
        let (ghost, siphoned) = match r.as_array().map(Vec::as_slice) {
            Some([g, s]) if g.is_u64() && s.is_boolean() => (g.clone(), s.clone()),
            _ => return Err(format!("an entry of `removed` is not [ghost, siphoned]: {r}")),
        };
        let spread = spreads.iter().find_map(|s| match s.as_array().map(Vec::as_slice) {
            Some([g, to]) if *g == ghost => Some(to.clone()),
            _ => None,
        });
        *r = match spread {
            Some(to) => json!({"ghost": ghost, "siphoned": siphoned, "spread": to}),
            None => json!({"ghost": ghost, "siphoned": siphoned}),
        };
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A schema-2 `action_resolved` payload as schema 1 wrote it (the inverse of the upcasters;
    /// other payloads are the same in both schemas). For the property test that every event of
    /// random games, written in its schema-1 form, reads back as itself.
    pub(crate) fn to_schema_1(event_type: &str, payload: &Value) -> Value {
        let mut v = payload.clone();
        if event_type != "action_resolved" {
            return v;
        }
        let pairs = |list: &Value, a: &str, b: &str| -> Value {
            list.as_array().unwrap().iter().map(|o| json!([o[a], o[b]])).collect()
        };
        if let Some(e) = effect_of(&mut v, "drained") {
            e["packets"] = pairs(&e["packets"], "seat", "cards");
        } else if let Some(e) = effect_of(&mut v, "watcher_taken") {
            e["taken"] = pairs(&e["taken"], "seat", "cards");
        } else if let Some(e) = effect_of(&mut v, "purged") {
            let removed = e["removed"].as_array().unwrap().clone();
            let spreads: Vec<Value> = removed
                .iter()
                .filter(|r| r.get("spread").is_some())
                .map(|r| json!([r["ghost"], r["spread"]]))
                .collect();
            e["removed"] = removed.iter().map(|r| json!([r["ghost"], r["siphoned"]])).collect();
            if !spreads.is_empty() {
                e.insert("spreads".into(), Value::Array(spreads));
            }
        }
        v
    }
    use crate::model::event::{EVENT_SCHEMA_VERSION, Effect, Event, Removed, SeatCards};
    use flicker_game::{UpcastError, upcast::check_upcasters, upcast::upcast};

    /// A schema-1 `action_resolved` payload read at today's schema.
    fn read_v1(payload: Value) -> Result<Event, String> {
        let v = upcast(UPCASTERS, EVENT_SCHEMA_VERSION, "action_resolved", 1, &payload).map_err(|e| e.to_string())?;
        serde_json::from_value(json!({"type": "action_resolved", "payload": v})).map_err(|e| e.to_string())
    }

    /// Today's `action_resolved` event with `effect`, as written at schema 2.
    fn resolved(effect: Effect) -> Event {
        Event::ActionResolved { actor: 2, effect }
    }

    #[test]
    fn the_list_is_well_formed() {
        check_upcasters(UPCASTERS, EVENT_SCHEMA_VERSION).unwrap();
    }

    /// R5.5.4: a schema-1 Drain (as the golden replays hold them) reads as the same packets.
    #[test]
    fn a_schema_1_drain_reads_as_seat_and_cards() {
        let v1 = json!({"actor": 2, "effect": {"effect": "drained", "packets": [[3, [40, 41]], [1, [7]]]}});
        let want = resolved(Effect::Drained {
            packets: vec![
                SeatCards { seat: 3, cards: vec![crate::CardId(40), crate::CardId(41)] },
                SeatCards { seat: 1, cards: vec![crate::CardId(7)] },
            ],
        });
        assert_eq!(read_v1(v1).unwrap(), want);
        // An empty Drain (no neighbour to take from) stays empty.
        let empty = json!({"actor": 2, "effect": {"effect": "drained", "packets": []}});
        assert_eq!(read_v1(empty).unwrap(), resolved(Effect::Drained { packets: vec![] }));
        // Not the old shape: a clear error, not a guess.
        let bad = json!({"actor": 2, "effect": {"effect": "drained", "packets": [[3]]}});
        assert!(read_v1(bad).unwrap_err().contains("is not [seat, [cards]]"));
    }

    /// R8.37.1: a schema-1 Watcher taking reads as the same cards per neighbour.
    #[test]
    fn a_schema_1_watcher_taking_reads_as_seat_and_cards() {
        let v1 = json!({"actor": 2, "effect": {"effect": "watcher_taken", "taken": [[1, []], [3, [12]]]}});
        let want = resolved(Effect::WatcherTaken {
            taken: vec![SeatCards { seat: 1, cards: vec![] }, SeatCards { seat: 3, cards: vec![crate::CardId(12)] }],
        });
        assert_eq!(read_v1(v1).unwrap(), want);
    }

    /// R5.6.3, R8.20.3: a schema-1 Purge's separate spread list is joined to its ghosts.
    #[test]
    fn a_schema_1_purge_joins_its_spreads_to_their_ghosts() {
        let v1 = json!({"actor": 2, "effect": {"effect": "purged",
            "removed": [[8, false], [62, true], [95, false]], "spreads": [[95, 0]]}});
        let removed = vec![
            Removed { ghost: crate::CardId(8), siphoned: false, spread: None },
            Removed { ghost: crate::CardId(62), siphoned: true, spread: None },
            Removed { ghost: crate::CardId(95), siphoned: false, spread: Some(0) },
        ];
        assert_eq!(read_v1(v1).unwrap(), resolved(Effect::Purged { removed: removed.clone() }));
        // Without spreads (schema 1 left the list out when empty).
        let plain = json!({"actor": 2, "effect": {"effect": "purged", "removed": [[8, false]]}});
        assert_eq!(read_v1(plain).unwrap(), resolved(Effect::Purged { removed: removed[..1].to_vec() }));
        // What schema 2 writes is what a schema-1 event reads as.
        let v2 = serde_json::to_value(resolved(Effect::Purged { removed })).unwrap();
        let v1 = json!({"actor": 2, "effect": {"effect": "purged",
            "removed": [[8, false], [62, true], [95, false]], "spreads": [[95, 0]]}});
        let read = upcast(UPCASTERS, EVENT_SCHEMA_VERSION, "action_resolved", 1, &v1).unwrap();
        assert_eq!(*read, v2["payload"]);
    }

    /// Other effects and other events of schema 1 read as stored; schema 2 reads as stored;
    /// a newer schema is refused.
    #[test]
    fn other_events_read_as_stored_and_a_newer_schema_is_refused() {
        let scared = json!({"actor": 1, "effect": {"effect": "scared", "target": 0, "discarded": [3]}});
        assert!(matches!(
            upcast(UPCASTERS, EVENT_SCHEMA_VERSION, "action_resolved", 1, &scared).unwrap().into_owned(),
            v if v == scared
        ));
        let drew = json!({"seat": 0, "card": 5});
        assert!(matches!(upcast(UPCASTERS, EVENT_SCHEMA_VERSION, "drew", 1, &drew), Ok(std::borrow::Cow::Borrowed(_))));
        let v2 = json!({"actor": 2, "effect": {"effect": "drained", "packets": [{"seat": 3, "cards": [40]}]}});
        assert!(matches!(
            upcast(UPCASTERS, EVENT_SCHEMA_VERSION, "action_resolved", 2, &v2),
            Ok(std::borrow::Cow::Borrowed(_))
        ));
        assert!(matches!(
            upcast(UPCASTERS, EVENT_SCHEMA_VERSION, "drew", i64::from(EVENT_SCHEMA_VERSION) + 1, &drew),
            Err(UpcastError::Newer { .. })
        ));
    }
}
