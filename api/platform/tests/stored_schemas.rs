//! R10.1.3: a table stored by an older build folds today as it did then. Every golden replay
//! (`tests/golden/`, written under event schema 1) is put back into a store event by event, with
//! its stored type, schema version and payload, and the platform loads the table from it: the
//! stored events keep their schema and bytes, the table folds through the game's upcasters to
//! the result and final view recorded when the game was played, and to the events the engine's
//! replay reader reads from the same file. An event of a newer schema than this build reads
//! stops the load with an error that says so.

use final_flicker::{Event, Viewer};
use flicker_platform::games::FinalFlicker;
use flicker_platform::tables::{self, Tables};
use flicker_store::memory::MemoryStore;
use flicker_store::{EventStore, ExpectedVersion, Metadata, NewEvent, StreamVersion};
use serde_json::Value;
use std::path::PathBuf;
use std::sync::Arc;

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden")
}

/// The table id and the stored events of a signed export (its header and signature lines left
/// out).
fn stored_events(text: &str) -> (String, Vec<NewEvent>) {
    let mut lines = text.lines();
    let header: Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    let stream = header["stream"].as_str().unwrap();
    let table_id = stream.strip_prefix("table-").unwrap().to_string();
    let events = lines
        .filter(|l| !l.starts_with("{\"signature\""))
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            NewEvent {
                event_type: v["type"].as_str().unwrap().to_string(),
                schema_version: v["schema"].as_i64().unwrap() as i32,
                payload: v["payload"].clone(),
                metadata: Metadata::default(),
            }
        })
        .collect();
    (table_id, events)
}

/// The upcast shapes a schema-1 event may hold (see `final_flicker::model::upcast`).
fn upcast_shape(e: &NewEvent) -> bool {
    e.schema_version == 1
        && e.event_type == "action_resolved"
        && matches!(e.payload["effect"]["effect"].as_str(), Some("drained" | "purged" | "watcher_taken"))
}

#[tokio::test]
async fn every_golden_table_stored_under_schema_1_loads_to_its_recorded_end() {
    let mut fixtures: Vec<PathBuf> = std::fs::read_dir(golden_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    fixtures.sort();
    assert!(fixtures.len() >= 18, "the golden set is in tests/golden");
    let mut upcast = 0;
    for path in fixtures {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let expected: Value =
            serde_json::from_str(&std::fs::read_to_string(path.with_extension("expected.json")).unwrap()).unwrap();
        let (table_id, events) = stored_events(&text);
        upcast += events.iter().filter(|e| upcast_shape(e)).count();
        let store = MemoryStore::new();
        let stream = tables::stream_of(&table_id);
        store.append(&stream, ExpectedVersion::NO_STREAM, events.clone()).await.unwrap();

        let tables = Tables::<FinalFlicker>::with_clock(Arc::new(flicker_platform::clock::SystemClock));
        let snap = tables.load(&store, &table_id).await.unwrap_or_else(|e| panic!("{name}: {e}"));
        // The store keeps what was written: the schema and the payload.
        let stored = store.read_stream(&stream, StreamVersion::new(1)).await.unwrap();
        for (s, e) in stored.iter().zip(&events) {
            assert_eq!((s.schema_version, &s.payload), (e.schema_version, &e.payload), "{name}");
        }
        // The engine's reader (behind `flicker replay` and `verify`) reads the same events.
        let (_, read) = final_flicker::replay::read_replay(std::io::Cursor::new(text.as_bytes())).unwrap();
        assert_eq!(snap.events, read, "{name}: the platform and the replay reader read the same events");
        // The recorded end: the result, and the complete view of the last recorded step.
        assert_eq!(snap.events.len() as u64, expected["events"].as_u64().unwrap(), "{name}");
        assert_eq!(serde_json::to_value(snap.state.result()).unwrap(), expected["result"], "{name}");
        let last = expected["steps"].as_array().unwrap().last().unwrap();
        assert_eq!(last["at"].as_u64().unwrap() as usize, snap.events.len(), "{name}: the last step is the end");
        let view = serde_json::to_value(final_flicker::view(&snap.state, Viewer::Everything)).unwrap();
        assert_eq!(view, last["views"]["everything"], "{name}: the final view");
    }
    assert!(upcast > 0, "the golden tables hold schema-1 shapes that are upcast");
}

#[tokio::test]
async fn an_event_of_a_newer_schema_stops_the_load_and_says_so() {
    let text = std::fs::read_to_string(golden_dir().join("sqlite-practice-2p-sequential.jsonl")).unwrap();
    let (table_id, mut events) = stored_events(&text);
    let newer = <FinalFlicker as flicker_game::Game>::EVENT_SCHEMA_VERSION as i32 + 1;
    let at = events.iter().position(|e| e.event_type == "drew").unwrap();
    events[at].schema_version = newer;
    let store = MemoryStore::new();
    store.append(&tables::stream_of(&table_id), ExpectedVersion::NO_STREAM, events).await.unwrap();
    let tables = Tables::<FinalFlicker>::with_clock(Arc::new(flicker_platform::clock::SystemClock));
    let err = tables.load(&store, &table_id).await.unwrap_err().to_string();
    assert!(err.contains(&format!("event schema {newer} was written by a newer build")), "{err}");

    // A table event of a newer schema too.
    let store = MemoryStore::new();
    let (table_id, mut events) = stored_events(&text);
    assert_eq!(events[0].event_type, "table_created");
    events[0].schema_version = 2;
    store.append(&tables::stream_of(&table_id), ExpectedVersion::NO_STREAM, events).await.unwrap();
    let err = tables.load(&store, &table_id).await.unwrap_err().to_string();
    assert!(err.contains("`table_created` table event has event schema 2"), "{err}");
}

/// The events the engine reads from a schema-1 file are the events it writes today.
#[test]
fn a_schema_1_file_reads_as_the_events_written_today() {
    let text = std::fs::read_to_string(golden_dir().join("postgres-practice-4p.jsonl")).unwrap();
    let (_, read) = final_flicker::replay::read_replay(std::io::Cursor::new(text.as_bytes())).unwrap();
    let drained = read
        .iter()
        .find_map(|e| match e {
            Event::ActionResolved { effect: final_flicker::Effect::Drained { packets }, .. } => Some(packets),
            _ => None,
        })
        .expect("the fixture holds a Drain");
    assert!(!drained.is_empty() && drained.iter().all(|p| p.cards.len() <= 2));
}

/// `payload` of a game event as schema 1 wrote it: a Purge's spreads as a separate
/// `[[ghost, seat]]` list and its ghosts as `[ghost, siphoned]`; a Drain's or The Watcher's
/// `{seat, cards}` as `[seat, cards]`. Other payloads are the same in both schemas.
fn as_schema_1(event_type: &str, payload: &Value) -> Value {
    let mut v = payload.clone();
    if event_type != "action_resolved" {
        return v;
    }
    let e = &mut v["effect"];
    let pairs = |list: &Value, a: &str, b: &str| -> Value {
        list.as_array().unwrap().iter().map(|o| serde_json::json!([o[a], o[b]])).collect()
    };
    match e["effect"].as_str() {
        Some("drained") => e["packets"] = pairs(&e["packets"], "seat", "cards"),
        Some("watcher_taken") => e["taken"] = pairs(&e["taken"], "seat", "cards"),
        Some("purged") => {
            let removed = e["removed"].as_array().unwrap().clone();
            let spreads: Vec<Value> = removed
                .iter()
                .filter(|r| r.get("spread").is_some())
                .map(|r| serde_json::json!([r["ghost"], r["spread"]]))
                .collect();
            e["removed"] = removed.iter().map(|r| serde_json::json!([r["ghost"], r["siphoned"]])).collect();
            if !spreads.is_empty() {
                e["spreads"] = Value::Array(spreads);
            }
        }
        _ => {}
    }
    v
}

/// R8.20.3 under R10.1.3: games with classes whose Purges spread Plague ghosts, stored with
/// every upcast shape in its schema-1 form, load to the state they were played to (a Purge's
/// spreads read without the upcaster would be dropped, and the spread ghosts lost).
#[tokio::test]
async fn tables_stored_in_schema_1_with_spreads_load_to_the_state_played() {
    use flicker_game::kit;
    use rand::SeedableRng;
    use rand::rngs::ChaCha8Rng;
    let mut checked = 0;
    for seed in 0..400u64 {
        let mut settings = final_flicker::Settings::new(8);
        settings.classes = true;
        let mut bots = [flicker_lab::RandomBot];
        let played = kit::play::<FinalFlicker, _, _, _>(
            &settings,
            &mut bots,
            &mut ChaCha8Rng::seed_from_u64(seed),
            &mut ChaCha8Rng::seed_from_u64(!seed),
            20_000,
        )
        .unwrap();
        let encoded: Vec<NewEvent> =
            played.events.iter().map(|e| tables::engine_event::<FinalFlicker>(e, Metadata::default())).collect();
        if !encoded.iter().any(|e| {
            e.payload["effect"]["removed"].as_array().is_some_and(|r| r.iter().any(|r| r.get("spread").is_some()))
        }) {
            continue;
        }
        let table_id = format!("spread-{seed}");
        let created = tables::TableEvent::<final_flicker::Settings>::TableCreated {
            table_id: table_id.clone(),
            game: Default::default(),
            creator: "org".into(),
            settings: settings.clone(),
            practice: true,
            position: None,
            gathering: None,
            seated: (0..8).map(|i| tables::SeatHolder { name: format!("p{i}"), bot: None }).collect(),
            clocks: Default::default(),
            reaction_window_min_ms: 0,
            bot_delay_ms: 0,
            abandonment: 0,
            min_window_at_start: false,
        };
        let mut stored = vec![tables::table_event(&created, Metadata::default())];
        stored.extend(encoded.into_iter().map(|mut e| {
            let v1 = as_schema_1(&e.event_type, &e.payload);
            if v1 != e.payload {
                e.schema_version = 1;
                e.payload = v1;
            }
            e
        }));
        let store = MemoryStore::new();
        store.append(&tables::stream_of(&table_id), ExpectedVersion::NO_STREAM, stored).await.unwrap();
        let tables = Tables::<FinalFlicker>::with_clock(Arc::new(flicker_platform::clock::SystemClock));
        let snap = tables.load(&store, &table_id).await.unwrap();
        assert_eq!(snap.events, played.events, "seed {seed}");
        assert_eq!(snap.state, played.state, "seed {seed}");
        checked += 1;
        if checked == 3 {
            return;
        }
    }
    panic!("only {checked} games with a spread in 400");
}
