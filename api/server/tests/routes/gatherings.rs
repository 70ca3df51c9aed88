//! Gatherings: creation, registration and withdrawal, settings, organiser controls, the summary,
//! bracket and standings (RULES.md section 9). Whole bot gatherings, the CLI and restarts are
//! process-level tests (`tests/tests/gatherings.rs`).

use super::*;
use reqwest::StatusCode;
use serde_json::json;
use std::time::{Duration, Instant};

/// R9.10.1: a gathering with nobody ends at once with no winner; with one registrant (a player
/// who registered themself) it ends at once with that player as winner by walkover.
#[test]
fn gatherings_of_none_and_of_one_end_at_once() {
    let s = Server::start();
    let org = organiser(&s);
    // Nobody.
    let empty = create(&s, &org, "nobody came", json!({}));
    control(&s, &org, &empty, "start");
    let g = wait_over(&s, &empty, Duration::from_secs(60));
    assert_eq!(g["status"], "finished", "{g}");
    assert_eq!(g["end_reason"], "no_players", "{g}");
    assert!(g["winner"].is_null(), "{g}");
    assert!(standings(&s, &empty).is_empty());
    assert!(bracket(&s, &empty)["stages"].as_array().unwrap().is_empty());
    // One player, registered by themself.
    let (alice, alice_token) = named_account(&s, "alice", "player");
    let one = create(&s, &org, "a lone player", json!({}));
    let (st, v, _) = post(&s, &alice_token, &format!("/api/v1/gatherings/{one}/registrations"), json!({}));
    assert_eq!(st, StatusCode::CREATED, "{v}");
    assert_eq!(v["registration"], json!({"name": alice}), "{v}");
    assert_eq!(v["registered"], 1, "{v}");
    assert_eq!(summary(&s, &one)["players"], json!([{"name": alice}]));
    // Registering twice is refused.
    let (st, v, _) = post(&s, &alice_token, &format!("/api/v1/gatherings/{one}/registrations"), json!({}));
    assert_eq!(st, StatusCode::CONFLICT, "{v}");
    control(&s, &org, &one, "start");
    let g = wait_over(&s, &one, Duration::from_secs(60));
    assert_eq!(g["status"], "finished", "{g}");
    assert_eq!(g["end_reason"], "walkover", "R9.10.1: {g}");
    assert_eq!(g["winner"], alice.as_str(), "R9.10.1: {g}");
    let st = standings(&s, &one);
    assert_eq!(st.len(), 1);
    assert_eq!(st[0]["name"], alice.as_str());
    assert_eq!(st[0]["rank"], 1, "R9.9.2: {:?}", st);
    assert_eq!(st[0]["status"], "winner");
    assert!(bracket(&s, &one)["stages"].as_array().unwrap().is_empty(), "a walkover draws no circle");
}

/// R9.10.2 (withdrawal before the start only), R9.1 (settings are checked: R9.1.1 C >= 4,
/// R9.1.2 A is 1 or 2), and the organiser's control: only the gathering's organiser starts it;
/// a cancelled gathering ends with no winner and its tables refuse answers.
#[test]
fn registration_withdrawal_settings_cancel_and_permissions() {
    let s = Server::start();
    let org = organiser(&s);
    let other_org = organiser(&s);
    let (alice, alice_token) = named_account(&s, "alice", "player");
    let (bob, bob_token) = named_account(&s, "bob", "player");

    // Bad settings: 400 problem documents whose message names the rule.
    for (settings, rule) in [
        (json!({"max_circle": 3}), "R9.1.1"),
        (json!({"advance": 3}), "R9.1.2"),
        (json!({"advance": 0}), "R9.1.2"),
        (json!({"clocks": {"decision_secs": 0, "reaction_secs": 15}}), "R10.7.2"),
    ] {
        let (st, v, ct) = post(&s, &org, "/api/v1/gatherings", json!({"name": "bad", "settings": settings}));
        assert_eq!(st, StatusCode::BAD_REQUEST, "{settings}: {v}");
        assert_eq!(ct, "application/problem+json", "{v}");
        assert_eq!(v["status"], 400, "{v}");
        let detail = v["detail"].as_str().unwrap();
        assert!(detail.contains(rule), "{settings}: the message names {rule}: {detail}");
    }
    assert!(get_public(&s, "/api/v1/gatherings").1.as_array().unwrap().is_empty(), "a refused create stored something");
    // Only organisers create gatherings.
    let (st, v, _) = post(&s, &alice_token, "/api/v1/gatherings", json!({"name": "mine"}));
    assert_eq!(st, StatusCode::FORBIDDEN, "{v}");

    let id = create(&s, &org, "friday", json!({"clocks": {"decision_secs": 60, "reaction_secs": 60}}));
    // The same checks when the settings are replaced.
    let (st, v, ct) = put(&s, &org, &format!("/api/v1/gatherings/{id}/settings"), json!({"max_circle": 3}));
    assert_eq!((st, ct.as_str()), (StatusCode::BAD_REQUEST, "application/problem+json"), "{v}");
    assert!(v["detail"].as_str().unwrap().contains("R9.1.1"), "{v}");
    let (st, v, _) = put(&s, &other_org, &format!("/api/v1/gatherings/{id}/settings"), json!({"advance": 1}));
    assert_eq!(st, StatusCode::FORBIDDEN, "{v}");
    let settings = json!({"max_circle": 8, "advance": 2, "clocks": {"decision_secs": 60, "reaction_secs": 60}});
    let (st, v, _) = put(&s, &org, &format!("/api/v1/gatherings/{id}/settings"), settings);
    assert_eq!(st, StatusCode::OK, "{v}");

    for t in [&alice_token, &bob_token] {
        let (st, v, _) = post(&s, t, &format!("/api/v1/gatherings/{id}/registrations"), json!({}));
        assert_eq!(st, StatusCode::CREATED, "{v}");
    }
    add_bots(&s, &org, &id, 3, "heuristic");
    // R9.10.2: a withdrawal before the start removes the registrant. Only the player or the
    // organiser may withdraw them.
    let (st, v, _) = delete(&s, &alice_token, &format!("/api/v1/gatherings/{id}/registrations/{bob}"));
    assert_eq!(st, StatusCode::FORBIDDEN, "{v}");
    let (st, v, _) = delete(&s, &bob_token, &format!("/api/v1/gatherings/{id}/registrations/{bob}"));
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!((v["registration"]["name"].as_str(), v["registered"].as_u64()), (Some(bob.as_str()), Some(4)), "{v}");
    let (_, v, _) = get_public(&s, &format!("/api/v1/gatherings/{id}/registrations"));
    let names: Vec<&str> = v["registrations"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 4, "{v}");
    assert!(!names.contains(&bob.as_str()), "R9.10.2: {v}");
    assert!(!standings(&s, &id).iter().any(|x| x["name"] == bob.as_str()));
    let (st, v, _) = delete(&s, &bob_token, &format!("/api/v1/gatherings/{id}/registrations/{bob}"));
    assert_eq!(st, StatusCode::NOT_FOUND, "{v}");

    // Only the gathering's organiser starts it.
    for t in [&alice_token, &other_org] {
        let (st, v, ct) = post(&s, t, &format!("/api/v1/gatherings/{id}/start"), json!({}));
        assert_eq!(st, StatusCode::FORBIDDEN, "{v}");
        assert_eq!(ct, "application/problem+json");
    }
    assert_eq!(summary(&s, &id)["status"], "registering");
    control(&s, &org, &id, "start");
    // R9.10.2: after the start, no withdrawal (and no late registration).
    let (st, v, ct) = delete(&s, &alice_token, &format!("/api/v1/gatherings/{id}/registrations/{alice}"));
    assert_eq!(st, StatusCode::CONFLICT, "R9.10.2: {v}");
    assert_eq!(ct, "application/problem+json");
    assert_eq!(v["type"], "/problems/gathering-started", "{v}");
    let (st, v, _) = post(&s, &bob_token, &format!("/api/v1/gatherings/{id}/registrations"), json!({}));
    assert_eq!(st, StatusCode::CONFLICT, "{v}");
    let (st, v, _) = post(&s, &org, &format!("/api/v1/gatherings/{id}/start"), json!({}));
    assert_eq!(st, StatusCode::CONFLICT, "started twice: {v}");

    // Alice's circle (4 players: one circle, the Final Ritual) comes to wait for her (her
    // clocks run 60 s).
    let deadline = Instant::now() + Duration::from_secs(60);
    let (table, prompt) = loop {
        if let Some((table, v)) = alice_prompt(&s, &alice_token, &id)
            && v["prompt"].is_object()
        {
            break (table, v["prompt"].clone());
        }
        assert!(Instant::now() < deadline, "Alice never had a prompt: {}", bracket(&s, &id));
        std::thread::sleep(Duration::from_millis(100));
    };
    let (st, v, _) = post(&s, &other_org, &format!("/api/v1/gatherings/{id}/cancel"), json!({}));
    assert_eq!(st, StatusCode::FORBIDDEN, "{v}");
    let g = control(&s, &org, &id, "cancel");
    assert_eq!(g["status"], "cancelled", "{g}");
    assert_eq!(g["end_reason"], "cancelled", "{g}");
    assert!(g["winner"].is_null(), "{g}");
    let b = bracket(&s, &id);
    assert!(b["winner"].is_null() && b["end_reason"] == "cancelled", "{b}");
    let (st, v, _) = post(&s, &org, &format!("/api/v1/gatherings/{id}/cancel"), json!({}));
    assert_eq!(st, StatusCode::CONFLICT, "cancelled twice: {v}");
    for action in ["pause", "resume"] {
        let (st, v, _) = post(&s, &org, &format!("/api/v1/gatherings/{id}/{action}"), json!({}));
        assert_eq!(st, StatusCode::CONFLICT, "{action} after cancel: {v}");
    }
    // The cancelled gathering's table refuses answers, and nobody plays on there.
    let body = json!({"prompt_id": prompt["id"], "answer": prompt["default"]});
    let (st, v, _) = answer(&s, &alice_token, &table, body, &uuid());
    assert_eq!(st, StatusCode::CONFLICT, "{v}");
    assert_eq!(v["type"], "/problems/gathering-cancelled", "{v}");
    std::thread::sleep(Duration::from_millis(500));
    let before = all_events(&s, &org, &table).len();
    std::thread::sleep(Duration::from_secs(1));
    assert_eq!(all_events(&s, &org, &table).len(), before, "bots played on at a cancelled gathering");
    assert_eq!(summary(&s, &id)["status"], "cancelled");
}

/// The reads that clients poll cost the same at any size: the summary lists at most 100
/// registrants beside the count, the bracket shows a window of each stage's circles (or one
/// player's), the standings come a page at a time with `X-Total-Count`, and one registration
/// is read by name.
#[test]
fn summaries_brackets_and_standings_are_windowed() {
    let s = Server::start();
    let org = organiser(&s);
    let big = create(&s, &org, "big", json!({}));
    add_bots(&s, &org, &big, 120, "random");
    let g = summary(&s, &big);
    assert_eq!(
        (g["registered"].as_u64(), g["players"].as_array().map(Vec::len)),
        (Some(120), Some(100)),
        "{}",
        g["registered"]
    );
    let id = create(&s, &org, "windowed", json!({"bot_delay_ms": 0}));
    add_bots(&s, &org, &id, 20, "random");
    control(&s, &org, &id, "start");
    wait_over(&s, &id, Duration::from_secs(120));
    let b = public(&s, &format!("/api/v1/gatherings/{id}/bracket?limit=1"));
    let first = &b["stages"][0];
    assert_eq!(
        (first["circle_count"].as_u64(), first["circles"].as_array().map(Vec::len)),
        (Some(3), Some(1)),
        "{first}"
    );
    assert_eq!(first["sizes"], "7+7+6");
    let b = public(&s, &format!("/api/v1/gatherings/{id}/bracket?offset=2&limit=5"));
    assert_eq!(b["stages"][0]["circles"][0]["circle"], 3, "{b}");
    let b = public(&s, &format!("/api/v1/gatherings/{id}/bracket?stage=2"));
    assert_eq!(b["stages"][0]["circles"], json!([]), "only stage 2's circles");
    assert_eq!(b["stages"][1]["circles"].as_array().map(Vec::len), Some(1), "{b}");
    let name = "random-bot#07";
    let b = public(&s, &format!("/api/v1/gatherings/{id}/bracket?player=random-bot%2307"));
    let seated: Vec<bool> = b["stages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|st| st["circles"].as_array().unwrap().iter().map(|c| circle_players(c).contains(&name.to_string())))
        .collect();
    assert!(!seated.is_empty() && seated.iter().all(|x| *x), "{b}");
    for bad in ["limit=0", "limit=1251", "nope=1"] {
        let (st, v, _) = get_public(&s, &format!("/api/v1/gatherings/{id}/bracket?{bad}"));
        assert_eq!(st, StatusCode::BAD_REQUEST, "{bad}: {v}");
    }
    // Standings a page at a time; the total in a header.
    let r = send(client().get(s.url(&format!("/api/v1/gatherings/{id}/standings?limit=5&offset=3"))));
    assert_eq!(r.headers()["x-total-count"], "20");
    let page: Vec<serde_json::Value> = r.json().unwrap();
    let all = standings(&s, &id);
    assert_eq!(all.len(), 20);
    assert_eq!(page, all[3..8].to_vec());
    let one = public(&s, &format!("/api/v1/gatherings/{id}/standings?player=random-bot%2307"));
    assert_eq!(one.as_array().map(Vec::len), Some(1), "{one}");
    // One registration by name.
    let r = public(&s, &format!("/api/v1/gatherings/{id}/registrations/random-bot%2307"));
    assert_eq!((r["position"].as_u64(), r["registration"]["name"].as_str()), (Some(7), Some(name)), "{r}");
    assert_eq!(r["playing"], false, "the gathering is over");
    let (st, v, _) = get_public(&s, &format!("/api/v1/gatherings/{id}/registrations/nobody"));
    assert_eq!((st, v["type"].as_str()), (StatusCode::NOT_FOUND, Some("/problems/not-found")), "{v}");
}
