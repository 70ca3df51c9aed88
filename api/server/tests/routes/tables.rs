//! Tables: creating a practice table (from a position too), reading it, seats, the start.

use super::*;
use flicker_client::routes;
use flicker_client::types::{CreateTableBody, RegisterBody, Role};
use reqwest::StatusCode;
use serde_json::json;

/// The typed client from registration to a started table's first prompt; an unknown gathering
/// is a 404 problem document.
#[test]
fn a_practice_table_from_registration_to_its_first_prompt() {
    let s = Server::start();
    let api = s.api();
    let body = RegisterBody { name: "alice".into(), password: "correct-horse".into(), role: Role::Player };
    api.send(routes::register(&body, None)).expect("registered");
    let token = api.send(routes::login("alice", "correct-horse")).expect("logged in").access_token;
    let alice = s.api_as(&token);
    let table = alice.send(routes::create_table(&CreateTableBody::default())).unwrap();
    let id = table.table.table_id;
    assert_eq!(table.table.status, "open");
    assert!(table.view.is_none(), "no view before the start");
    for seat in 0..2 {
        assert_eq!(alice.send(routes::take_seat(&id, None)).unwrap().seat, seat);
    }
    let started = alice.send(routes::start_table(&id)).unwrap();
    assert_eq!(started.table.status, "playing");
    assert!(started.view.is_some());
    let prompts = (0..2).filter(|&seat| alice.send(routes::prompt(&id, Some(seat))).unwrap().prompt.is_some()).count();
    assert!(prompts >= 1, "a started game waits on someone");
    let refused = api.send(routes::get_gathering("no-such-gathering")).expect_err("unknown");
    assert_eq!(refused.status().map(|s| s.as_u16()), Some(404));
    assert!(refused.problem().and_then(|p| p.kind.as_deref()).is_some(), "a problem document: {refused}");
}

/// A practice table can start from a given position (R10.13).
#[test]
fn a_practice_table_starts_from_a_position() {
    let s = Server::start();
    let (_, token) = account(&s, "player");
    let id = table(
        &s,
        &[&token, &token],
        2,
        json!({"position": "7H 8D KS / 2C | 5H 5D 9S", "settings": {"first_player": {"mode": "first", "seat": 1}}}),
    );
    let (_, v, _) = get(&s, &token, &format!("/api/v1/tables/{id}?seat=0"));
    assert_eq!(v["table"]["practice"], true);
    let hand: Vec<String> = v["view"]["players"][0]["hand"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| format!("{}{}", c["rank"].as_str().unwrap(), c["suit"].as_str().unwrap()))
        .collect();
    assert_eq!(hand, ["7hearts", "8diamonds", "Kspades"]);
    // A bad position is refused before anything is stored.
    let (st, v, ct) = post(&s, &token, "/api/v1/tables", json!({"players": 2, "position": "7H 7H 7H | 2C"}));
    assert_eq!(st, StatusCode::BAD_REQUEST, "{v}");
    assert_eq!(ct, "application/problem+json");
}

/// A malformed optional body is refused, not taken as empty, and changes nothing; the server
/// owns `hold_windows` (R10.6.5).
#[test]
fn optional_bodies_are_strict_and_hold_windows_is_the_servers() {
    let s = Server::start();
    let (_, fresh) = account(&s, "player");
    let (_, t, _) = post(&s, &fresh, "/api/v1/tables", json!({"players": 2}));
    let tid = t["table"]["table_id"].as_str().unwrap();
    let (st, v, _) = post(&s, &fresh, &format!("/api/v1/tables/{tid}/seats"), json!({"seet": 1}));
    assert_eq!(st, StatusCode::BAD_REQUEST, "{v}");
    assert_eq!(v["type"], "/problems/unknown-field");
    let (_, t, _) = get(&s, &fresh, &format!("/api/v1/tables/{tid}"));
    assert_eq!(t["table"]["seats"], json!([null, null]), "a refused request changed the table");
    let (st, v, _) = post(&s, &fresh, "/api/v1/tables", json!({"players": 2, "settings": {"hold_windows": true}}));
    assert_eq!(st, StatusCode::BAD_REQUEST, "{v}");
}
