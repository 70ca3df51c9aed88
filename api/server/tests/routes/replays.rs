//! Replays: the step at `at`, every step at once, the signed JSON Lines export and the keys
//! that sign it.

use super::*;
use flicker_client::routes;
use reqwest::StatusCode;
use serde_json::{Value, json};

/// A finished two-seat game (seat 0 played by the test, seat 1 by a built-in bot); returns the
/// table id and the player's token. The player's account has the `bot` role, so that the table
/// holds no reaction window open (R10.6.5) and the game takes a few seconds.
pub fn finished_game(s: &Server) -> (String, String) {
    let (_, token) = account(s, "bot");
    let api = s.api_as(&token);
    let id = api
        .send(routes::create_table(&flicker_client::types::CreateTableBody::default()))
        .expect("a table")
        .table
        .table_id;
    api.send(routes::take_seat(&id, None)).expect("seat 0");
    let (st, v, _) = post(s, &token, &format!("/api/v1/tables/{id}/seats"), json!({"bot": "random"}));
    assert_eq!(st, StatusCode::OK, "a built-in bot at seat 1: {v}");
    let (st, v, ct) = get_public(s, &format!("/api/v1/tables/{id}/replay"));
    assert_eq!((st, ct.as_str()), (StatusCode::CONFLICT, "application/problem+json"), "before the start: {v}");
    assert_eq!(v["type"], "/problems/not-started");
    api.send(routes::start_table(&id)).expect("started");
    bot_loop(s, &token, &id, Some(0), 7);
    (id, token)
}

/// After the end anyone may replay the game: every step of `replay/steps` is the step `replay`
/// gives at that number (event, view, total, eliminations); steps out of range are refused as
/// problem documents.
#[test]
fn every_step_at_once_is_each_step_in_turn() {
    let s = Server::start();
    let (id, _) = finished_game(&s);
    let all = public(&s, &format!("/api/v1/tables/{id}/replay/steps"));
    let total = all["total"].as_u64().unwrap() as usize;
    let steps = all["steps"].as_array().unwrap();
    assert_eq!(steps.len(), total);
    assert!(total > 2, "{all}");
    let elims: Vec<u64> = all["eliminations"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
    assert!(!elims.is_empty(), "a finished game of two eliminated someone");
    assert!(elims.windows(2).all(|w| w[0] < w[1]) && elims.iter().all(|&n| n >= 1 && n as usize <= total), "{elims:?}");
    for at in [1, total / 2, total] {
        let step = public(&s, &format!("/api/v1/tables/{id}/replay?at={at}"));
        assert_eq!(step["at"], at as u64);
        assert_eq!(step["total"], total as u64);
        assert_eq!(step["event"], steps[at - 1]["event"], "step {at}");
        assert_eq!(step["view"], steps[at - 1]["view"], "step {at}");
        assert_eq!(step["eliminations"], all["eliminations"]);
    }
    assert_eq!(public(&s, &format!("/api/v1/tables/{id}/replay"))["at"], total as u64, "the default is the latest");
    for at in [0, total + 1] {
        let (st, v, ct) = get_public(&s, &format!("/api/v1/tables/{id}/replay?at={at}"));
        assert!(st.is_client_error(), "at={at}: {st} {v}");
        assert_eq!(ct, "application/problem+json", "{v}");
    }
}

/// The export is JSON Lines, one object a line, with at least one line per event; the replay
/// keys publish the current Ed25519 key first.
#[test]
fn the_export_is_json_lines_and_its_key_is_published() {
    let s = Server::start();
    let (id, token) = finished_game(&s);
    let r = send(client().get(s.url(&format!("/api/v1/tables/{id}/replay.jsonl"))).bearer_auth(&token));
    assert_eq!(r.status(), StatusCode::OK);
    let text = r.text().unwrap();
    let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect();
    let total = public(&s, &format!("/api/v1/tables/{id}/replay/steps"))["total"].as_u64().unwrap() as usize;
    assert!(lines.len() > total, "{} lines for {total} events", lines.len());
    let keys = public(&s, "/api/v1/keys/replay");
    assert_eq!(keys["algorithm"], "ed25519");
    let current = keys["public_key"].as_str().unwrap();
    assert!(current.len() == 64 && current.bytes().all(|b| b.is_ascii_hexdigit()), "{keys}");
    assert_eq!(keys["keys"][0]["public_key"], current);
    assert_eq!(keys["keys"][0]["current"], true);
}
