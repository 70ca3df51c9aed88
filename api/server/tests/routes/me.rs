//! Who am I, my bot tokens, my tables, the live tables with their spectator counts, and bot
//! tokens on the `?access_token=` stream path.

use super::*;
use reqwest::StatusCode;
use serde_json::json;
use std::io::Read;
use std::time::{Duration, Instant};

/// A bot token of `access`'s account with `scopes`.
fn bot_token(s: &Server, access: &str, label: &str, scopes: serde_json::Value) -> (String, String) {
    let (st, v, _) = post(s, access, "/api/v1/tokens", json!({"label": label, "scopes": scopes}));
    assert_eq!(st, StatusCode::CREATED, "{v}");
    (v["id"].as_str().unwrap().to_string(), v["token"].as_str().unwrap().to_string())
}

/// `GET /api/v1/me` names the caller and its kind of token; `GET /api/v1/me/tokens` lists the
/// bot tokens without the tokens themselves.
#[test]
fn me_and_my_tokens() {
    let s = Server::start();
    let (alice, access) = named_account(&s, "alice", "player");
    let (st, v, _) = get(&s, &access, "/api/v1/me");
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v, json!({"name": alice, "role": "player", "token": "access", "scopes": []}));
    let (st, v, ct) = get_public(&s, "/api/v1/me");
    assert_eq!((st, ct.as_str()), (StatusCode::UNAUTHORIZED, "application/problem+json"), "{v}");
    let (first, _) = bot_token(&s, &access, "reader", json!(["read"]));
    let (second, bot) = bot_token(&s, &access, "player", json!(["play", "read"]));
    let (st, v, _) = get(&s, &bot, "/api/v1/me");
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!((v["token"].as_str(), v["scopes"].clone()), (Some("bot"), json!(["play", "read"])), "{v}");
    let (st, _, _) = delete(&s, &access, &format!("/api/v1/tokens/{first}"));
    assert_eq!(st, StatusCode::NO_CONTENT);
    let (st, v, _) = get(&s, &access, "/api/v1/me/tokens");
    assert_eq!(st, StatusCode::OK, "{v}");
    let list = v.as_array().unwrap();
    assert_eq!(list.len(), 2, "{v}");
    assert_eq!(
        (list[0]["id"].as_str(), list[0]["label"].as_str(), list[0]["revoked"].as_bool()),
        (Some(second.as_str()), Some("player"), Some(false))
    );
    assert_eq!((list[1]["id"].as_str(), list[1]["revoked"].as_bool()), (Some(first.as_str()), Some(true)));
    assert!(!v.to_string().contains(&bot), "a token list never holds a token");
    assert!(list.iter().all(|t| t.get("token").is_none() && t["expires_at"].is_string()), "{v}");
}

/// Opens a live stream and keeps it open until the returned response is dropped.
fn open_stream(s: &Server, path: &str) -> reqwest::blocking::Response {
    let r = send(client().get(s.url(path)));
    assert_eq!(r.status(), StatusCode::OK, "{path}");
    assert!(r.headers()["content-type"].to_str().unwrap().starts_with("text/event-stream"));
    r
}

fn spectators(s: &Server, table: &str) -> u64 {
    let (st, v, _) = get_public(s, "/api/v1/tables?limit=200");
    assert_eq!(st, StatusCode::OK, "{v}");
    v["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["table_id"] == table)
        .unwrap_or_else(|| panic!("{table} listed: {v}"))["spectators"]
        .as_u64()
        .unwrap()
}

/// Polls `ok` for up to 45 s: a closed connection is noticed by the server at the latest when
/// it next writes to it (the 15 s keep-alive), later on a loaded machine.
fn wait_for(what: &str, mut ok: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(45);
    while !ok() {
        assert!(Instant::now() < deadline, "{what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// R10.4.2: `GET /api/v1/me/tables` lists the caller's tables with the seats awaiting an
/// answer; `GET /api/v1/tables` lists live tables a page at a time with their spectator counts
/// (open streams of viewers without a seat); a bot token opens a stream on `?access_token=`,
/// a refresh token does not.
#[test]
fn my_tables_live_tables_spectators_and_bot_tokens_on_streams() {
    let s = Server::start();
    let (_, alice) = named_account(&s, "alice", "player");
    let (_, bob) = named_account(&s, "bob", "player");
    let (_, carol) = named_account(&s, "carol", "player");
    let slow = json!({"clocks": {"decision_secs": 3600, "reaction_secs": 3600}, "reaction_window_min_ms": 0});
    let id = table(&s, &[&alice, &bob], 2, slow.clone());
    let others: Vec<String> = (0..2).map(|_| table(&s, &[&carol, &carol], 2, slow.clone())).collect();
    // Mine: exactly the seat whose prompt awaits me.
    for token in [&alice, &bob] {
        let (st, v, _) = get(&s, token, "/api/v1/me/tables");
        assert_eq!(st, StatusCode::OK, "{v}");
        let mine = v.as_array().unwrap();
        assert_eq!(mine.len(), 1, "{v}");
        assert_eq!(
            (mine[0]["table_id"].as_str(), mine[0]["status"].as_str()),
            (Some(id.as_str()), Some("playing")),
            "{v}"
        );
        let seat = mine[0]["seats"][0].as_u64().unwrap() as u8;
        let awaits = prompt_of(&s, token, &id, Some(seat)).is_some_and(|p| needs_answer(&p));
        assert_eq!(mine[0]["awaiting"] == json!([seat]), awaits, "{v}");
    }
    let (_, v, _) = get(&s, &carol, "/api/v1/me/tables");
    assert_eq!(v.as_array().unwrap().len(), 2, "{v}");
    let (st, v, ct) = get_public(&s, "/api/v1/me/tables");
    assert_eq!((st, ct.as_str()), (StatusCode::UNAUTHORIZED, "application/problem+json"), "{v}");

    // The live list pages by table id.
    let mut all: Vec<String> = others.clone();
    all.push(id.clone());
    all.sort();
    let (_, page, _) = get_public(&s, "/api/v1/tables?limit=2");
    let ids = |p: &serde_json::Value| {
        p["tables"].as_array().unwrap().iter().map(|t| t["table_id"].as_str().unwrap().to_string()).collect::<Vec<_>>()
    };
    assert_eq!(ids(&page), all[..2].to_vec(), "{page}");
    let next = page["next"].as_str().unwrap();
    let (_, page2, _) = get_public(&s, &format!("/api/v1/tables?limit=2&after={next}"));
    assert_eq!(ids(&page2), all[2..].to_vec(), "{page2}");
    assert!(page2.get("next").is_none(), "{page2}");
    for bad in ["limit=0", "limit=201", "colour=red"] {
        let (st, v, ct) = get_public(&s, &format!("/api/v1/tables?{bad}"));
        assert_eq!((st, ct.as_str()), (StatusCode::BAD_REQUEST, "application/problem+json"), "{bad}: {v}");
    }

    // Spectators: an anonymous stream counts; a seat's own stream does not.
    assert_eq!(spectators(&s, &id), 0);
    let watching = open_stream(&s, &format!("/api/v1/tables/{id}/stream"));
    wait_for("the spectator is counted", || spectators(&s, &id) == 1);
    let own = open_stream(&s, &format!("/api/v1/tables/{id}/stream?access_token={alice}"));
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(spectators(&s, &id), 1, "a seat's own stream is no spectator");
    drop(watching);
    drop(own);
    wait_for("a closed stream is counted out", || spectators(&s, &id) == 0);

    // A bot token works on `?access_token=`, as the seat; a refresh token is refused.
    let (_, bot) = bot_token(&s, &alice, "streams", json!(["read"]));
    let mut r = open_stream(&s, &format!("/api/v1/tables/{id}/stream?access_token={bot}"));
    let mut buf = [0u8; 256];
    let n = r.read(&mut buf).unwrap();
    assert!(n > 0 && String::from_utf8_lossy(&buf[..n]).contains("data:"), "the seat's stream sends events");
    let name = format!("dave{}", &uuid()[..6]);
    send(client().post(s.url("/api/v1/accounts")).json(&json!({"name": name, "password": "password-1"})));
    let (_, pair, _) = json_of(send(
        client().post(s.url("/api/v1/auth/token")).json(&json!({"name": name, "password": "password-1"})),
    ));
    let refresh = pair["refresh_token"].as_str().unwrap();
    let (st, v, ct) = get_public(&s, &format!("/api/v1/tables/{id}/stream?access_token={refresh}"));
    assert_eq!((st, ct.as_str()), (StatusCode::UNAUTHORIZED, "application/problem+json"), "{v}");
}

/// `GET`/`PUT /api/v1/me/preferences`: auto-pass is off by default, private, set by a token
/// that may play; bad bodies change nothing.
#[test]
fn preferences_set_auto_pass() {
    let s = Server::start();
    let (_, access) = named_account(&s, "alice", "player");
    let (st, v, _) = get(&s, &access, "/api/v1/me/preferences");
    assert_eq!((st, v), (StatusCode::OK, json!({"auto_pass": false})));
    let (st, v, _) = put(&s, &access, "/api/v1/me/preferences", json!({"auto_pass": true}));
    assert_eq!((st, v), (StatusCode::OK, json!({"auto_pass": true})));
    let (_, v, _) = get(&s, &access, "/api/v1/me/preferences");
    assert_eq!(v, json!({"auto_pass": true}));
    for bad in [json!({"auto_pass": "yes"}), json!({"autopass": true})] {
        let (st, v, ct) = put(&s, &access, "/api/v1/me/preferences", bad.clone());
        assert_eq!((st, ct.as_str()), (StatusCode::BAD_REQUEST, "application/problem+json"), "{bad}: {v}");
    }
    let (_, reader) = bot_token(&s, &access, "reader", json!(["read"]));
    let (st, v, ct) = put(&s, &reader, "/api/v1/me/preferences", json!({"auto_pass": false}));
    assert_eq!((st, ct.as_str()), (StatusCode::FORBIDDEN, "application/problem+json"), "{v}");
    let (_, v, _) = get(&s, &access, "/api/v1/me/preferences");
    assert_eq!(v, json!({"auto_pass": true}), "a refused change changed something");
    let (st, v, ct) = get_public(&s, "/api/v1/me/preferences");
    assert_eq!((st, ct.as_str()), (StatusCode::UNAUTHORIZED, "application/problem+json"), "{v}");
}

/// Reads an SSE body on a thread: each frame's `data:` as JSON, by its `event:`.
fn frames_of(r: reqwest::blocking::Response) -> std::sync::mpsc::Receiver<(String, serde_json::Value)> {
    use std::io::BufRead;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut event = String::new();
        for line in std::io::BufReader::new(r).lines() {
            let Ok(line) = line else { return };
            if let Some(e) = line.strip_prefix("event:") {
                event = e.trim().to_string();
            } else if let Some(d) = line.strip_prefix("data:") {
                let v = serde_json::from_str(d.trim()).unwrap_or(serde_json::Value::Null);
                if tx.send((event.clone(), v)).is_err() {
                    return;
                }
            }
        }
    });
    rx
}

/// The account event stream: a `table` message per table of yours, again whenever the seats of
/// yours awaiting an answer change, and `finished` at its end; nothing about tables where you
/// hold no seat. A bot token opens it on `?access_token=`.
#[test]
fn the_account_stream_tells_only_about_ones_own_seats() {
    let s = Server::start();
    let (_, alice) = named_account(&s, "alice", "player");
    let (_, bob) = named_account(&s, "bob", "player");
    let (_, carol) = named_account(&s, "carol", "player");
    let slow = json!({"clocks": {"decision_secs": 3600, "reaction_secs": 3600}, "reaction_window_min_ms": 0});
    let id = table(&s, &[&alice, &bob], 2, slow);
    let (_, alice_bot) = bot_token(&s, &alice, "stream", json!(["read"]));
    let alice_feed = frames_of(open_stream(&s, &format!("/api/v1/me/stream?access_token={alice_bot}")));
    let carol_feed = frames_of(open_stream(&s, &format!("/api/v1/me/stream?access_token={carol}")));
    let (st, v, ct) = get_public(&s, "/api/v1/me/stream");
    assert_eq!((st, ct.as_str()), (StatusCode::UNAUTHORIZED, "application/problem+json"), "{v}");
    let first = alice_feed.recv_timeout(Duration::from_secs(10)).expect("a first message");
    assert_eq!(first.0, "table");
    assert_eq!(first.1["table_id"], id.as_str(), "{first:?}");
    // Play the game out from both seats (each prompt's default); Alice hears of each change of
    // her own seat.
    let seat = first.1["seats"][0].as_u64().unwrap() as u8;
    let mut messages = vec![first.1.clone()];
    let mut rounds = 0;
    while !finished(&s, &alice, &id) {
        for token in [&alice, &bob] {
            if let Some(p) = prompt_of(&s, token, &id, None)
                && needs_answer(&p)
            {
                let body = flicker_client::types::AnswerBody { seat: None, prompt_id: p.id, answer: p.default.clone() };
                let _ = s.api_as(token).send(flicker_client::routes::answer(&id, &body, &uuid()));
            }
        }
        rounds += 1;
        assert!(rounds < 5_000, "the game did not end");
        while let Ok(m) = alice_feed.try_recv() {
            messages.push(m.1);
        }
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    while messages.last().is_none_or(|m| m["status"] != "finished") {
        assert!(Instant::now() < deadline, "no finished message: {messages:?}");
        if let Ok(m) = alice_feed.recv_timeout(Duration::from_millis(200)) {
            messages.push(m.1);
        }
    }
    assert!(messages.len() > 2, "{messages:?}");
    for m in &messages {
        assert_eq!(
            (m["table_id"].as_str(), m["seats"].clone()),
            (Some(id.as_str()), json!([seat])),
            "only Alice's own seat: {m}"
        );
    }
    // Consecutive messages differ (a message says something changed).
    assert!(messages.windows(2).all(|w| w[0] != w[1]), "{messages:?}");
    assert!(carol_feed.try_recv().is_err(), "Carol holds no seat there and heard of it");
}

/// A gathering's spectator count: its live stream opened by a reader is counted in the
/// gathering list and the gathering itself, and counted out when it closes.
#[test]
fn a_gathering_counts_its_spectators() {
    let s = Server::start();
    let org = organiser(&s);
    let id = create(&s, &org, "watched", json!({}));
    let count = |s: &Server| {
        let (st, g, _) = get_public(s, &format!("/api/v1/gatherings/{id}"));
        assert_eq!(st, StatusCode::OK, "{g}");
        let (_, list, _) = get_public(s, "/api/v1/gatherings");
        let listed =
            list.as_array().unwrap().iter().find(|x| x["gathering_id"] == id.as_str()).expect("listed").clone();
        assert_eq!(listed["spectators"], g["spectators"], "the list and the gathering agree");
        g["spectators"].as_u64().expect("a count")
    };
    assert_eq!(count(&s), 0);
    let a = open_stream(&s, &format!("/api/v1/gatherings/{id}/stream"));
    let b = open_stream(&s, &format!("/api/v1/gatherings/{id}/stream"));
    wait_for("both spectators are counted", || count(&s) == 2);
    drop((a, b));
    wait_for("closed streams are counted out", || count(&s) == 0);
}
