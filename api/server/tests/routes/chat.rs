//! Table chat over REST (docs/rules-decisions.md, "Table chat"): who may speak, what a message
//! may hold, how fast, idempotent retries, the live chat stream with resume, and chat inside a
//! game's signed export (skipped by both games' replay readers wherever it comes).

use super::*;
use reqwest::StatusCode;
use serde_json::{Value, json};

/// Posts a chat message, with an `Idempotency-Key` when given.
fn say(s: &Server, token: &str, table: &str, body: Value, key: Option<&str>) -> (StatusCode, Value, String) {
    let mut req = client().post(s.url(&format!("/api/v1/tables/{table}/chat"))).bearer_auth(token).json(&body);
    if let Some(k) = key {
        req = req.header("Idempotency-Key", k);
    }
    json_of(send(req))
}

/// The `(id, data)` of the first `n` frames of the chat stream opened with `last` as
/// `Last-Event-ID` (the stream stays open; it is dropped after `n`).
fn chat_frames(s: &Server, table: &str, last: Option<&str>, n: usize) -> Vec<(String, Value)> {
    use std::io::BufRead;
    let mut req = client().get(s.url(&format!("/api/v1/tables/{table}/chat/stream")));
    if let Some(l) = last {
        req = req.header("Last-Event-ID", l);
    }
    let r = send(req);
    assert_eq!(r.status(), StatusCode::OK);
    let (mut out, mut id) = (Vec::new(), String::new());
    for line in std::io::BufReader::new(r).lines() {
        let line = line.expect("the stream");
        if let Some(v) = line.strip_prefix("id:") {
            id = v.trim().to_string();
        } else if let Some(d) = line.strip_prefix("data:") {
            out.push((id.clone(), serde_json::from_str(d.trim()).expect("an entry")));
            if out.len() == n {
                break;
            }
        }
    }
    out
}

/// Table chat on a practice table of The Final Flicker: only a seated account speaks (403
/// `chat-not-seated`), a message is 1 to 280 characters on one line (400 otherwise), a retry
/// with the same `Idempotency-Key` acts once (200, the same entry) and the key's reuse for
/// another message is refused (422), a sixth message in 10 s gets 429 `chat-too-fast` with
/// `Retry-After`; the chat stream carries every entry and resumes after `Last-Event-ID`; the
/// game's signed export holds the chat said during play, verifies, and folds to the game; the
/// chat closes with the game (409 `chat-closed`), so that export never changes.
#[test]
fn table_chat_speaks_streams_and_stays_in_the_export() {
    let s = Server::start();
    let (_, alice) = named_account(&s, "alice", "player");
    let (_, bob) = named_account(&s, "bob", "player");
    let slow = json!({"clocks": {"decision_secs": 3600, "reaction_secs": 3600}, "reaction_window_min_ms": 0});
    let id = table(&s, &[&alice, &bob], 2, slow);

    let (_, carol) = named_account(&s, "carol", "player");
    let (st, p, _) = say(&s, &carol, &id, json!({"text": "hi"}), None);
    assert_eq!((st, p["type"].as_str()), (StatusCode::FORBIDDEN, Some("/problems/chat-not-seated")), "{p}");
    for bad in ["", "   ", "two\nlines", &"x".repeat(281)] {
        let (st, p, _) = say(&s, &alice, &id, json!({"text": bad}), None);
        assert_eq!(
            (st, p["type"].as_str()),
            (StatusCode::BAD_REQUEST, Some("/problems/invalid-request")),
            "{bad:?}: {p}"
        );
    }
    let (st, _, _) = say(&s, &alice, &id, json!({"text": "hi", "loud": true}), None);
    assert_eq!(st, StatusCode::BAD_REQUEST, "an unknown field");
    let (st, p, _) = say(&s, &alice, &id, json!({"text": "hi", "seat": 1}), None);
    assert_eq!((st, p["type"].as_str()), (StatusCode::FORBIDDEN, Some("/problems/wrong-seat")), "{p}");
    let (st, _, _) =
        json_of(send(client().post(s.url(&format!("/api/v1/tables/{id}/chat"))).json(&json!({"text": "hi"}))));
    assert_eq!(st, StatusCode::UNAUTHORIZED);
    let (st, _, _) = say(&s, &alice, "no-such-table", json!({"text": "hi"}), None);
    assert_eq!(st, StatusCode::NOT_FOUND);
    assert_eq!(public(&s, &format!("/api/v1/tables/{id}/chat"))["readable"], 0, "refusals stored nothing");

    let long = "é".repeat(280);
    let (st, first, _) = say(&s, &alice, &id, json!({"text": long}), Some("k1"));
    assert_eq!((st, first["number"].as_u64()), (StatusCode::CREATED, Some(1)), "{first}");
    let (st, again, _) = say(&s, &alice, &id, json!({"text": long}), Some("k1"));
    assert_eq!((st, &again), (StatusCode::OK, &first), "a retry acts once");
    let (st, p, _) = say(&s, &alice, &id, json!({"text": "something else"}), Some("k1"));
    assert_eq!((st, p["type"].as_str()), (StatusCode::UNPROCESSABLE_ENTITY, Some("/problems/idempotency-key-reused")));
    for i in 2..=5 {
        let (st, e, _) = say(&s, &alice, &id, json!({"text": format!("message {i}")}), None);
        assert_eq!((st, e["number"].as_u64()), (StatusCode::CREATED, Some(i)), "{e}");
    }
    // Sent once (`send` would wait out the 429 and send it again).
    let r = client()
        .post(s.url(&format!("/api/v1/tables/{id}/chat")))
        .bearer_auth(&alice)
        .json(&json!({"text": "six"}))
        .send()
        .unwrap();
    let retry = r.headers().get("retry-after").and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok());
    let (st, p, _) = json_of(r);
    assert_eq!((st, p["type"].as_str()), (StatusCode::TOO_MANY_REQUESTS, Some("/problems/chat-too-fast")), "{p}");
    assert!(retry.is_some_and(|r| (1..=10).contains(&r)), "Retry-After: {retry:?}");
    let (st, e, _) = say(&s, &bob, &id, json!({"text": "calm down"}), None);
    assert_eq!(
        (st, e["seat"].as_u64(), e["number"].as_u64()),
        (StatusCode::CREATED, Some(1), Some(6)),
        "per account: {e}"
    );
    // A retry of the first message, after others, answers the entry its key stored.
    let (st, again, _) = say(&s, &alice, &id, json!({"text": long}), Some("k1"));
    assert_eq!((st, &again), (StatusCode::OK, &first), "a late retry acts once");

    // The stream, from the start and resumed after entry 4 (a practice table has no delay).
    let all = chat_frames(&s, &id, None, 6);
    let numbers: Vec<&str> = all.iter().map(|(i, _)| i.as_str()).collect();
    assert_eq!(numbers, ["1", "2", "3", "4", "5", "6"]);
    assert_eq!(all[0].1, first);
    let rest = chat_frames(&s, &id, Some("4"), 2);
    assert_eq!(rest, all[4..].to_vec(), "resumed after Last-Event-ID");

    // Play to the end; the export holds the chat among the game's events and still folds.
    std::thread::scope(|sc| {
        sc.spawn(|| bot_loop(&s, &bob, &id, None, 2));
        bot_loop(&s, &alice, &id, None, 1);
    });
    let r = send(client().get(s.url(&format!("/api/v1/tables/{id}/replay.jsonl"))));
    let text = r.text().unwrap();
    let types: Vec<String> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok()?["type"].as_str().map(str::to_string))
        .collect();
    let created = types.iter().position(|t| t == "game_created").unwrap();
    let said = types.iter().position(|t| t == "chat_said").unwrap();
    assert!(said > created, "the chat was said during play");
    flicker_server::chain::verify(&text, None).expect("the export verifies");
    let (_, events) = final_flicker::replay::read_replay_versioned(text.as_bytes()).expect("the reader skips the chat");
    let state = final_flicker::replay::fold(events.iter().map(|(_, e)| e));
    assert!(state.is_finished());
    let page = public(&s, &format!("/api/v1/tables/{id}/chat"));
    assert_eq!(page["readable"], 6, "after the game everyone reads it all");
    // The chat closes with the game, so the signed export of a finished game never changes.
    let (st, p, _) = say(&s, &alice, &id, json!({"text": "gg"}), None);
    assert_eq!((st, p["type"].as_str()), (StatusCode::CONFLICT, Some("/problems/chat-closed")), "{p}");
    let (_, page, _) = get(&s, &alice, &format!("/api/v1/tables/{id}/chat"));
    assert_eq!(page["speaks_as"], Value::Null, "{page}");
    assert_eq!(send(client().get(s.url(&format!("/api/v1/tables/{id}/replay.jsonl")))).text().unwrap(), text);
}
