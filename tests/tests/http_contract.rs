//! The HTTP contract against the real server over a real socket: concurrent registrations
//! to one gathering all succeed (the server retries its own optimistic conflicts for commands
//! that commute), registrations are answered one by one and listed by page, and a body over the
//! limit on any route that takes one is a 413 problem document (RFC 9457).

mod common;

use common::*;
use reqwest::StatusCode;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::sync::{Arc, Barrier};

const NO_LIMITS: &[(&str, &str)] = &[("FLICKER_RATE_PER_TOKEN", "0"), ("FLICKER_RATE_PER_ADDRESS", "0")];

/// 32 players register to one gathering at the same moment: every one gets 201 (no 409
/// `conflict`) with their registration and a count, and all 32 are registered. The list pages
/// in registration order with `limit` and `after`.
#[test]
fn concurrent_registrations_all_succeed_and_the_list_pages() {
    let s = Arc::new(Server::start_with(Db::sqlite(), NO_LIMITS));
    let (_, org) = named_account(&s, "org-regs", "organiser");
    let (st, g, _) = post(&s, &org, "/api/v1/gatherings", json!({"name": "thirty-two at once"}));
    assert_eq!(st, StatusCode::CREATED, "{g}");
    let id = g["gathering_id"].as_str().unwrap().to_string();
    let players: Vec<(String, String)> =
        (0..32).map(|i| named_account(&s, &format!("racer-{i:02}"), "player")).collect();
    let barrier = Arc::new(Barrier::new(players.len()));
    let handles: Vec<_> = players
        .iter()
        .cloned()
        .map(|(name, token)| {
            let (s, id, barrier) = (s.clone(), id.clone(), barrier.clone());
            std::thread::spawn(move || {
                barrier.wait();
                let (st, v, _) = post(&s, &token, &format!("/api/v1/gatherings/{id}/registrations"), json!({}));
                (name, st, v)
            })
        })
        .collect();
    let mut counts = BTreeSet::new();
    for h in handles {
        let (name, st, v) = h.join().unwrap();
        assert_eq!(st, StatusCode::CREATED, "{name}: {v}");
        assert_eq!(v["gathering_id"], id.as_str(), "{v}");
        assert_eq!(v["registration"], json!({"name": name}), "{v}");
        assert!(v.get("players").is_none(), "the answer carries the registration, not the list: {v}");
        counts.insert(v["registered"].as_u64().unwrap());
    }
    assert_eq!(counts, (1..=32).collect(), "each registration saw the ones before it");
    // Pages of 10 in registration order: 10, 10, 10, 2.
    let mut seen = Vec::new();
    let mut after: Option<String> = None;
    let mut pages = 0;
    loop {
        let q = after.as_ref().map_or(String::new(), |a| format!("&after={a}"));
        let (st, v, _) = get_public(&s, &format!("/api/v1/gatherings/{id}/registrations?limit=10{q}"));
        assert_eq!(st, StatusCode::OK, "{v}");
        assert_eq!(v["registered"], 32, "{v}");
        let page: Vec<String> =
            v["registrations"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap().to_string()).collect();
        pages += 1;
        assert_eq!(page.len(), if pages < 4 { 10 } else { 2 }, "{v}");
        seen.extend(page);
        match v["next"].as_str() {
            Some(n) => {
                assert_eq!(Some(n), seen.last().map(String::as_str));
                after = Some(n.to_string());
            }
            None => break,
        }
    }
    assert_eq!(pages, 4);
    let (_, summary, _) = get_public(&s, &format!("/api/v1/gatherings/{id}"));
    let order: Vec<&str> = summary["players"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(seen, order, "pages follow registration order");
    assert_eq!(seen.iter().collect::<BTreeSet<_>>(), players.iter().map(|(n, _)| n).collect::<BTreeSet<_>>());
    // Bad paging is a 400 problem; a cursor naming nobody registered is a 422 problem.
    for (q, want) in [
        ("limit=0", StatusCode::BAD_REQUEST),
        ("limit=1001", StatusCode::BAD_REQUEST),
        ("after=nobody", StatusCode::UNPROCESSABLE_ENTITY),
    ] {
        let (st, v, ct) = get_public(&s, &format!("/api/v1/gatherings/{id}/registrations?{q}"));
        assert_eq!((st, ct.as_str()), (want, "application/problem+json"), "{q}: {v}");
    }
    let (st, v, _) = get_public(&s, &format!("/api/v1/gatherings/{id}/registrations?after="));
    assert_eq!(st, StatusCode::OK, "an empty cursor is the start: {v}");
    // Bots added and a withdrawal answer with a count too.
    let (st, v, _) = post(&s, &org, &format!("/api/v1/gatherings/{id}/bots"), json!({"count": 3}));
    assert_eq!(st, StatusCode::CREATED, "{v}");
    assert_eq!(v["added"], 3, "{v}");
    assert_eq!(v["registered"], 35, "{v}");
    assert_eq!((v["first"].as_str(), v["last"].as_str()), (Some("heuristic-bot#01"), Some("heuristic-bot#03")), "{v}");
    let (name, token) = &players[0];
    let (st, v, _) = delete(&s, token, &format!("/api/v1/gatherings/{id}/registrations/{name}"));
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!((v["registration"]["name"].as_str(), v["registered"].as_u64()), (Some(name.as_str()), Some(34)), "{v}");
}

/// Every operation of the API document that takes a body, sent 300 KiB (over the 64 KiB limit,
/// and over actix's 256 KiB default for bodies read as bytes), answers 413 as a problem document
/// of type `/problems/payload-too-large`; so do the three routes the issue names.
#[test]
fn every_body_over_the_limit_is_a_413_problem() {
    let s = Server::start_with(Db::sqlite(), NO_LIMITS);
    let (_, token) = account(&s, "player");
    let doc: Value = client().get(s.url("/openapi.json")).send().unwrap().json().unwrap();
    // Past every route's limit (a roster takes up to 1 MiB, other bodies 64 KiB).
    let big = json!({"name": "x".repeat(1100 * 1024)}).to_string();
    let mut checked = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            if op.get("requestBody").is_none() {
                continue;
            }
            let concrete: String =
                path.split('/').map(|seg| if seg.starts_with('{') { "x" } else { seg }).collect::<Vec<_>>().join("/");
            let m = reqwest::Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
            let r = client()
                .request(m, s.url(&concrete))
                .bearer_auth(&token)
                .header("content-type", "application/json")
                .body(big.clone())
                .send()
                .unwrap();
            let (st, v, ct) = json_of(r);
            assert_eq!(st, StatusCode::PAYLOAD_TOO_LARGE, "{method} {path}: {v}");
            assert_eq!(ct, "application/problem+json", "{method} {path}");
            assert_eq!(v["type"], "/problems/payload-too-large", "{method} {path}: {v}");
            assert_eq!(v["status"], 413, "{v}");
            checked.insert(format!("{} {path}", method.to_uppercase()));
        }
    }
    for named in [
        "POST /api/v1/tables/{id}/seats",
        "POST /api/v1/tables/{id}/concede",
        "POST /api/v1/gatherings/{id}/registrations",
        "POST /api/v1/gatherings/{id}/roster",
        "POST /api/v1/invitations/claim",
    ] {
        assert!(checked.contains(named), "{named} was not checked: {checked:?}");
    }
    assert!(checked.len() >= 10, "{checked:?}");
}
