//! The contract every [`EventStore`] adapter must meet, as plain async functions that panic on
//! a breach: `tests/contract.rs` runs [`run_all`] against the in-memory and SQLite stores, and
//! against PostgreSQL when `FLICKER_TEST_POSTGRES_URL` names a database. Every check works in
//! streams of its own (fresh ids), so a suite can run on a store that holds other data.

use crate::hash::{GENESIS, event_hash, parse_hash, rechain};
use crate::{EventStore, ExpectedVersion, Metadata, NewEvent, Position, StoreError, StreamVersion};
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

/// A fresh stream id starting with `prefix`.
fn fresh(prefix: &str) -> String {
    format!("{prefix}-{}", uuid::Uuid::new_v4())
}

/// Expecting version `v`.
fn at(v: u64) -> ExpectedVersion {
    ExpectedVersion::exact(StreamVersion::new(v))
}

/// A test event of type `t` (payload `{"t": t}`, actor `tester`) carrying the command key `key`.
pub fn ev(t: &str, key: Option<&str>) -> NewEvent {
    NewEvent {
        event_type: t.into(),
        schema_version: 1,
        payload: serde_json::json!({"t": t}),
        metadata: Metadata { actor: Some("tester".into()), command_key: key.map(String::from), ..Default::default() },
    }
}

/// Every check of the contract, in turn.
pub async fn run_all(store: Arc<dyn EventStore>) {
    expected_versions(store.clone()).await;
    command_keys(store.clone()).await;
    reads(store.clone()).await;
    reads_past_the_head(store.clone()).await;
    concurrent_appends(store.clone()).await;
    subscriptions(store.clone()).await;
    heads(store.clone()).await;
    metadata(store.clone()).await;
    health(store.clone()).await;
    chain(store.clone()).await;
    secrets(store).await;
}

/// Expected-version optimistic concurrency: an append at the wrong version is a conflict naming
/// both versions, and stores nothing.
pub async fn expected_versions(store: Arc<dyn EventStore>) {
    let s = fresh("test");
    let a = store.append(&s, ExpectedVersion::NO_STREAM, vec![ev("a", None), ev("b", None)]).await.unwrap();
    assert_eq!(a.version, StreamVersion::new(2));
    for wrong in [0, 1, 5] {
        match store.append(&s, at(wrong), vec![ev("c", None)]).await {
            Err(StoreError::Conflict { expected, actual, .. }) => {
                assert_eq!((expected, actual), (StreamVersion::new(wrong), StreamVersion::new(2)));
            }
            other => panic!("expected a conflict at {wrong}, got {other:?}"),
        }
    }
    assert_eq!(store.read_stream(&s, StreamVersion::new(1)).await.unwrap().len(), 2);
    let b = store.append(&s, at(2), vec![ev("c", None)]).await.unwrap();
    assert_eq!(b.version, StreamVersion::new(3));
    assert!(b.position > a.position);
}

/// A command key is unique within its stream: its reuse is a duplicate that stores nothing,
/// and the store finds the version it first landed at. Other streams may use it.
pub async fn command_keys(store: Arc<dyn EventStore>) {
    let s = fresh("test");
    store.append(&s, ExpectedVersion::NO_STREAM, vec![ev("a", Some("k1")), ev("b", None)]).await.unwrap();
    match store.append(&s, at(2), vec![ev("c", Some("k1")), ev("d", None)]).await {
        Err(StoreError::Duplicate { .. }) => {}
        other => panic!("expected a duplicate, got {other:?}"),
    }
    assert_eq!(store.read_stream(&s, StreamVersion::new(1)).await.unwrap().len(), 2, "a duplicate stores nothing");
    assert_eq!(store.find_command_key(&s, "k1").await.unwrap(), Some(StreamVersion::new(1)));
    assert_eq!(store.find_command_key(&s, "k2").await.unwrap(), None);
    store.append(&s, at(2), vec![ev("c", Some("k2"))]).await.unwrap();
    assert_eq!(store.find_command_key(&s, "k2").await.unwrap(), Some(StreamVersion::new(3)));
    let other = fresh("test");
    store.append(&other, ExpectedVersion::NO_STREAM, vec![ev("a", Some("k1"))]).await.unwrap();
    let all = store.read_stream(&s, StreamVersion::new(1)).await.unwrap();
    assert_eq!(all[0].metadata.command_key.as_deref(), Some("k1"));
}

/// Stream reads from a version, the last event of a stream, the global log in position order,
/// and the last position.
pub async fn reads(store: Arc<dyn EventStore>) {
    let before = store.last_position().await.unwrap();
    let s = fresh("test");
    let t = fresh("test");
    store.append(&s, ExpectedVersion::NO_STREAM, vec![ev("a", None), ev("b", None)]).await.unwrap();
    store.append(&t, ExpectedVersion::NO_STREAM, vec![ev("x", None)]).await.unwrap();
    let last = store.append(&s, at(2), vec![ev("c", None)]).await.unwrap();
    let all = store.read_stream(&s, StreamVersion::new(1)).await.unwrap();
    assert_eq!(all.iter().map(|e| e.event_type.as_str()).collect::<Vec<_>>(), ["a", "b", "c"]);
    assert_eq!(all.iter().map(|e| e.stream_version.get()).collect::<Vec<_>>(), [1, 2, 3]);
    assert!(all.iter().all(|e| e.stream_id == s));
    assert!(all.windows(2).all(|w| w[0].position < w[1].position));
    assert_eq!(all[2].position, last.position);
    assert_eq!(all[2].recorded_at, last.recorded_at, "the append says when it recorded, to the microsecond");
    assert_eq!(store.read_stream(&s, StreamVersion::new(3)).await.unwrap().len(), 1);
    assert!(store.read_stream(&s, StreamVersion::new(4)).await.unwrap().is_empty());
    assert!(store.read_stream(&fresh("none"), StreamVersion::new(1)).await.unwrap().is_empty());
    assert_eq!(store.read_last(&s).await.unwrap().map(|e| e.stream_version), Some(StreamVersion::new(3)));
    assert_eq!(store.read_last(&fresh("none")).await.unwrap(), None);
    assert!(store.last_position().await.unwrap() >= last.position);
    // The global log: position order, every stream, from a position, limited.
    let log = store.read_all(before, 10_000).await.unwrap();
    assert!(log.windows(2).all(|w| w[0].position < w[1].position));
    assert!(log.iter().all(|e| e.position > before));
    let mine: Vec<_> =
        log.iter().filter(|e| e.stream_id == s || e.stream_id == t).map(|e| e.event_type.as_str()).collect();
    assert_eq!(mine, ["a", "b", "x", "c"]);
    let two = store.read_all(before, 2).await.unwrap();
    assert_eq!(two.len(), 2);
    assert!(store.read_all(two[0].position, 1).await.unwrap()[0].position <= two[1].position);
    assert!(store.read_all(Position::START, 1).await.unwrap().len() == 1);
}

/// A read from past a stream's head is empty, and whoever learns of a later event reads it
/// from its version at once: from the append's answer, a command key found, another task told
/// of the append, a subscription. (An adapter may answer a read past a head it knows without a
/// query; this is what keeps that answer current.)
pub async fn reads_past_the_head(store: Arc<dyn EventStore>) {
    let s = fresh("head");
    store.append(&s, ExpectedVersion::NO_STREAM, vec![ev("a", None)]).await.unwrap();
    assert!(store.read_stream(&s, StreamVersion::new(2)).await.unwrap().is_empty());
    assert_eq!(store.read_stream(&s, StreamVersion::new(1)).await.unwrap().len(), 1);
    // The read that was past the head sees the append once it has answered.
    store.append(&s, at(1), vec![ev("b", None), ev("c", None)]).await.unwrap();
    let next = store.read_stream(&s, StreamVersion::new(2)).await.unwrap();
    assert_eq!(next.iter().map(|e| e.event_type.as_str()).collect::<Vec<_>>(), ["b", "c"]);
    assert!(store.read_stream(&s, StreamVersion::new(4)).await.unwrap().is_empty());
    store.append(&s, at(3), vec![ev("d", Some("k"))]).await.unwrap();
    let v = store.find_command_key(&s, "k").await.unwrap().expect("the key is found");
    let from_key = store.read_stream(&s, v).await.unwrap();
    assert_eq!(from_key.first().and_then(|e| e.metadata.command_key.as_deref()), Some("k"));
    // One task appends event after event; another, told of each append (its version over a
    // channel), and a subscriber, told by the store, each read the stream from that version
    // and find the event there, while a third catches up from its own head.
    const N: u64 = 40;
    let t = fresh("head-race");
    let start = store.last_position().await.unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let appender = {
        let (store, t) = (store.clone(), t.clone());
        tokio::spawn(async move {
            for v in 0..N {
                let a = store.append(&t, at(v), vec![ev(&format!("e{v}"), None)]).await.unwrap();
                tx.send(a.version).unwrap();
            }
        })
    };
    let told = {
        let (store, t) = (store.clone(), t.clone());
        tokio::spawn(async move {
            while let Some(v) = rx.recv().await {
                let got = store.read_stream(&t, v).await.unwrap();
                assert_eq!(got.first().map(|e| e.stream_version), Some(v), "told of {v}, the read misses it");
            }
        })
    };
    let subscriber = {
        let (store, t) = (store.clone(), t.clone());
        tokio::spawn(async move {
            let mut sub = crate::subscribe(store.clone(), start);
            let mut seen = 0;
            while seen < N {
                let e = tokio::time::timeout(Duration::from_secs(10), sub.recv()).await.unwrap().unwrap();
                if e.stream_id == t {
                    let got = store.read_stream(&t, e.stream_version).await.unwrap();
                    assert_eq!(got.first().map(|g| g.position), Some(e.position), "delivered, the read misses it");
                    seen += 1;
                }
            }
        })
    };
    let mut head = StreamVersion::EMPTY;
    let started = std::time::Instant::now();
    while head.get() < N {
        for e in store.read_stream(&t, head.next()).await.unwrap() {
            assert_eq!(e.stream_version, head.next(), "a catch-up read continues exactly");
            head = e.stream_version;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "the catch-up reads never reached the head");
        tokio::task::yield_now().await;
    }
    appender.await.unwrap();
    told.await.unwrap();
    subscriber.await.unwrap();
}

/// Concurrent appends at one expected version: exactly one wins. Many streams appended at once
/// all land.
pub async fn concurrent_appends(store: Arc<dyn EventStore>) {
    let s = fresh("race");
    let mut handles = Vec::new();
    for i in 0..8 {
        let st = store.clone();
        let s = s.clone();
        handles.push(tokio::spawn(async move {
            st.append(&s, ExpectedVersion::NO_STREAM, vec![ev(&format!("r{i}"), None)]).await
        }));
    }
    let mut ok = 0;
    for h in handles {
        match h.await.unwrap() {
            Ok(_) => ok += 1,
            Err(StoreError::Conflict { .. }) => {}
            Err(e) => panic!("a losing append is a conflict, not: {e}"),
        }
    }
    assert_eq!(ok, 1);
    let mut handles = Vec::new();
    for i in 0..50 {
        let st = store.clone();
        handles.push(tokio::spawn(async move {
            let s = fresh(&format!("many-{i}"));
            st.append(&s, ExpectedVersion::NO_STREAM, vec![ev("x", None)]).await.map(|_| s)
        }));
    }
    for h in handles {
        let s = h.await.unwrap().unwrap();
        assert_eq!(store.read_stream(&s, StreamVersion::new(1)).await.unwrap().len(), 1);
    }
}

/// A catch-up subscription from a position delivers what came after it, then later appends as
/// they commit, in position order; a notification follows every append.
pub async fn subscriptions(store: Arc<dyn EventStore>) {
    let s = fresh("sub");
    let early = store.append(&s, ExpectedVersion::NO_STREAM, vec![ev("early", None)]).await.unwrap();
    let mut notes = store.notifications();
    let mut sub = crate::subscribe(store.clone(), Position::new(early.position.get() - 1));
    let late = store.append(&s, at(1), vec![ev("late", None)]).await.unwrap();
    let mut seen = Vec::new();
    let mut last = Position::START;
    while let Ok(Some(e)) = tokio::time::timeout(Duration::from_secs(10), sub.recv()).await {
        assert!(e.position > last, "a subscription delivers in position order");
        last = e.position;
        if e.stream_id == s {
            seen.push(e.event_type.clone());
            if seen.len() == 2 {
                break;
            }
        }
    }
    assert_eq!(seen, ["early", "late"], "the subscription did not deliver both events");
    let note = tokio::time::timeout(Duration::from_secs(10), notes.recv()).await;
    assert!(note.is_ok(), "no notification followed the appends");
    assert!(late.position > early.position);
}

/// A heads read and a heads subscription give the same events as the whole ones, in the same
/// order, with the same position, stream, version, type, schema and time.
pub async fn heads(store: Arc<dyn EventStore>) {
    let s = fresh("heads");
    let first = store.append(&s, ExpectedVersion::NO_STREAM, vec![ev("one", None), ev("two", None)]).await.unwrap();
    let after = Position::new(first.position.get() - 2);
    let head = |e: &crate::StoredEvent| {
        (e.position, e.stream_id.clone(), e.stream_version, e.event_type.clone(), e.schema_version, e.recorded_at)
    };
    let whole: Vec<_> = store.read_all(after, 100).await.unwrap().iter().map(head).collect();
    let light: Vec<_> = store.read_all_heads(after, 100).await.unwrap().iter().map(head).collect();
    assert_eq!(light, whole, "heads and whole events agree");
    assert!(whole.iter().any(|h| h.1 == s && h.3 == "two"), "the events were read");
    let mut sub = store.clone().subscribe_heads(after);
    store.append(&s, at(2), vec![ev("three", None)]).await.unwrap();
    let mut seen = Vec::new();
    while let Ok(Some(e)) = tokio::time::timeout(Duration::from_secs(10), sub.recv()).await {
        if e.stream_id == s {
            seen.push(e.event_type.clone());
            if seen.len() == 3 {
                break;
            }
        }
    }
    assert_eq!(seen, ["one", "two", "three"], "the heads subscription delivers every event in order");
}

/// Metadata comes back as it was written, the domain's own keys included.
pub async fn metadata(store: Arc<dyn EventStore>) {
    let s = fresh("meta");
    let mut m = Metadata {
        actor: Some("someone".into()),
        correlation_id: Some("c".into()),
        causation_id: Some("d".into()),
        command_key: Some("k".into()),
        command_hash: Some("h".into()),
        ..Default::default()
    };
    m.extra.insert("clock".into(), serde_json::json!({"opened_at": "2026-01-01T00:00:00Z", "n": [1, 2]}));
    let e = NewEvent { metadata: m.clone(), ..ev("m", None) };
    store.append(&s, ExpectedVersion::NO_STREAM, vec![e]).await.unwrap();
    let back = store.read_stream(&s, StreamVersion::new(1)).await.unwrap();
    assert_eq!(back[0].metadata, m);
    // The stored JSON keeps the keys it always had.
    let json = serde_json::to_value(&m).unwrap();
    assert_eq!(json["idempotency_key"], "k");
    assert_eq!(json["request_hash"], "h");
    assert_eq!(json["clock"]["n"][1], 2);
}

/// The store answers (`ping`) and accepts writes (`writable`).
pub async fn health(store: Arc<dyn EventStore>) {
    store.ping().await.unwrap();
    store.writable().await.unwrap();
    assert!(["memory", "sqlite", "postgres"].contains(&store.kind()));
}

/// Secrets are versioned, kept apart from the log, and a version is added once.
pub async fn secrets(store: Arc<dyn EventStore>) {
    let name = fresh("test-secret");
    assert!(store.secrets(&name).await.unwrap().is_empty());
    assert!(store.add_secret(&name, 1, "aa").await.unwrap());
    assert!(!store.add_secret(&name, 1, "bb").await.unwrap(), "a version is added once");
    assert!(store.add_secret(&name, 2, "cc").await.unwrap());
    let all = store.secrets(&name).await.unwrap();
    assert_eq!(all.iter().map(|s| (s.version, s.value.as_str())).collect::<Vec<_>>(), [(1, "aa"), (2, "cc")]);
    let log = store.read_all(Position::START, usize::MAX).await.unwrap();
    assert!(log.iter().all(|e| !e.payload_text.contains("\"cc\"")), "a secret never enters the event log");
}

/// Every event's stored hash chains to its predecessor's over its exact stored bytes, across
/// appends and with payloads whose text a database could re-render.
pub async fn chain(store: Arc<dyn EventStore>) {
    let s = fresh("chain");
    let odd = |t: &str, payload: Value| NewEvent { payload, ..ev(t, None) };
    let payloads = [
        serde_json::json!({"zeta": 1, "alpha": [1, 2.5, -0.125, 1e-7, 12345678901234i64], "nested": {"b": null, "a": true}}),
        serde_json::json!("une chaîne \u{1F56F} \"quoted\" \\ back\nslash"),
        serde_json::json!([]),
        serde_json::json!({"long_key_first": 0, "k": "v", "": ""}),
    ];
    store
        .append(&s, ExpectedVersion::NO_STREAM, vec![odd("p0", payloads[0].clone()), odd("p1", payloads[1].clone())])
        .await
        .unwrap();
    store.append(&s, at(2), vec![odd("p2", payloads[2].clone())]).await.unwrap();
    store.append(&s, at(3), vec![odd("p3", payloads[3].clone())]).await.unwrap();
    let all = store.read_stream(&s, StreamVersion::new(1)).await.unwrap();
    assert_eq!(all.len(), 4);
    let mut prev = GENESIS;
    for (e, p) in all.iter().zip(&payloads) {
        assert_eq!(&e.payload, p, "the payload reads back as appended");
        let text: Value = serde_json::from_str(&e.payload_text).unwrap();
        assert_eq!(&text, p, "the stored text is the payload");
        let stored = parse_hash(e.hash.as_deref().expect("a hash is stored")).expect("64 lowercase hex");
        let want = event_hash(
            &prev,
            &s,
            i64::from(e.stream_version),
            &e.event_type,
            e.schema_version,
            e.payload_text.as_bytes(),
        );
        assert_eq!(stored, want, "event {} does not chain to its predecessor", e.stream_version);
        prev = stored;
    }
    // A later read (another connection) gives the same bytes, so the chain recomputes.
    let again = store.read_stream(&s, StreamVersion::new(1)).await.unwrap();
    assert_eq!(rechain(&s, &again).unwrap().last().unwrap().hash, prev);
    // Every stream starts from the genesis hash.
    let g = fresh("genesis");
    store.append(&g, ExpectedVersion::NO_STREAM, vec![ev("g", None)]).await.unwrap();
    let first = store.read_stream(&g, StreamVersion::new(1)).await.unwrap();
    let e = &first[0];
    assert_eq!(
        parse_hash(e.hash.as_deref().unwrap()).unwrap(),
        event_hash(&GENESIS, &e.stream_id, 1, &e.event_type, e.schema_version, e.payload_text.as_bytes())
    );
}

/// Events stored before the hash column (`hash` NULL, inserted by the caller into `stream` at
/// versions 1 and 2; SQL stores only): the next append chains from their recomputed hashes,
/// and the whole stream rechains.
pub async fn legacy(store: Arc<dyn EventStore>, stream: &str) {
    let before = store.read_stream(stream, StreamVersion::new(1)).await.unwrap();
    assert_eq!(before.len(), 2);
    assert!(before.iter().all(|e| e.hash.is_none()));
    store.append(stream, at(2), vec![ev("new", None)]).await.unwrap();
    let all = store.read_stream(stream, StreamVersion::new(1)).await.unwrap();
    let chain = rechain(stream, &all).expect("the stream rechains");
    assert_eq!(parse_hash(all[2].hash.as_deref().unwrap()), Some(chain[2].hash));
}
