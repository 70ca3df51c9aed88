//! Security tests over HTTP: rate limits per token and per address, forged, expired
//! and wrong-role tokens, acting for another seat, a spectator posting commands, oversized
//! bodies. The limits are set explicitly here.

mod common;

use common::*;
use reqwest::StatusCode;
use serde_json::json;

/// The per-token limit answers 429 `rate-limited` with `Retry-After` once a token's
/// burst is spent, while another token from the same address still passes; health probes are
/// never limited; the per-address limit then catches many tokens from one address.
#[test]
fn rate_limits_per_token_then_per_address() {
    let s =
        Server::start_with(Db::sqlite(), &[("FLICKER_RATE_PER_TOKEN", "1/5"), ("FLICKER_RATE_PER_ADDRESS", "1/40")]);
    let (_, a) = account(&s, "player");
    let (_, b) = account(&s, "player");
    let c = client();
    let mut limited = None;
    for _ in 0..8 {
        let r = c.get(s.url("/api/v1/gatherings")).bearer_auth(&a).send().unwrap();
        if r.status() == StatusCode::TOO_MANY_REQUESTS {
            limited = Some(r);
            break;
        }
        assert_eq!(r.status(), StatusCode::OK);
    }
    let r = limited.expect("the sixth request of a burst of 5 is refused");
    let retry: u64 = r.headers().get("retry-after").expect("Retry-After").to_str().unwrap().parse().unwrap();
    assert!((1..=2).contains(&retry), "retry after {retry}");
    assert_eq!(r.headers().get("content-type").unwrap(), "application/problem+json");
    let (_, v, _) = json_of(r);
    assert_eq!(v["type"], "/problems/rate-limited", "{v}");
    // Another token from the same address still passes; probes are exempt.
    assert_eq!(c.get(s.url("/api/v1/gatherings")).bearer_auth(&b).send().unwrap().status(), StatusCode::OK);
    for _ in 0..50 {
        assert_eq!(c.get(s.url("/healthz")).send().unwrap().status(), StatusCode::OK);
    }
    // Many fresh tokens from one address: the address's burst of 40 runs out.
    let mut refused = false;
    for _ in 0..60 {
        if c.get(s.url("/api/v1/gatherings")).bearer_auth(format!("token-{}", uuid())).send().unwrap().status()
            == StatusCode::TOO_MANY_REQUESTS
        {
            refused = true;
            break;
        }
    }
    assert!(refused, "the per-address limit catches many tokens from one address");
}

/// Forged, expired-looking, refresh-as-bearer and wrong-role tokens are refused; a
/// spectator cannot take a seat or act; a player cannot act for another's seat; a body over the
/// limit gets 413. Nothing changes.
#[test]
fn tokens_roles_seats_and_bodies() {
    let s = Server::start(Db::sqlite());
    let c = client();
    // Forged: signed with another key.
    let forged = "eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJtYWxsb3J5Iiwicm9sZSI6Im9yZ2FuaXNlciIsImtpbmQiOiJhY2Nlc3MiLCJqdGkiOiJ4IiwiZXhwIjo0MTAyNDQ0ODAwLCJpYXQiOjB9.c2lnbmF0dXJlLWZyb20tYW5vdGhlci1rZXk";
    let r = c.post(s.url("/api/v1/gatherings")).bearer_auth(forged).json(&json!({"name": "x"})).send().unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    assert!(r.headers().get("www-authenticate").is_some());
    // A player is not an organiser.
    let (_, player) = account(&s, "player");
    let (st, v, _) = post(&s, &player, "/api/v1/gatherings", json!({"name": "x"}));
    assert_eq!(st, StatusCode::FORBIDDEN, "{v}");
    // A spectator cannot take a seat.
    let (_, spectator) = account(&s, "spectator");
    let (st, v, _) = post(&s, &player, "/api/v1/tables", json!({"players": 2}));
    assert_eq!(st, StatusCode::CREATED, "{v}");
    let table = v["table"]["table_id"].as_str().unwrap().to_string();
    let (st, v, _) = post(&s, &spectator, &format!("/api/v1/tables/{table}/seats"), json!({}));
    assert_eq!(st, StatusCode::FORBIDDEN, "{v}");
    // Two players; one may not answer for the other's seat.
    let (_, other) = account(&s, "player");
    assert_eq!(post(&s, &player, &format!("/api/v1/tables/{table}/seats"), json!({"seat": 0})).0, StatusCode::OK);
    assert_eq!(post(&s, &other, &format!("/api/v1/tables/{table}/seats"), json!({"seat": 1})).0, StatusCode::OK);
    assert_eq!(post(&s, &player, &format!("/api/v1/tables/{table}/start"), json!({})).0, StatusCode::OK);
    let (st, v, _) =
        answer(&s, &player, &table, json!({"seat": 1, "prompt_id": 1, "answer": {"answer": "end_ritual"}}), "k1");
    assert_eq!(st, StatusCode::FORBIDDEN, "{v}");
    assert_eq!(v["type"], "/problems/wrong-seat", "{v}");
    // The spectator may read (public information) but not act.
    let (st, _, _) = get(&s, &spectator, &format!("/api/v1/tables/{table}"));
    assert_eq!(st, StatusCode::OK);
    let (st, v, _) = answer(&s, &spectator, &table, json!({"prompt_id": 1, "answer": {"answer": "pass"}}), "k2");
    assert_eq!(st, StatusCode::FORBIDDEN, "{v}");
    // Oversized body.
    let big = "x".repeat(200 * 1024);
    let r = c.post(s.url("/api/v1/gatherings")).bearer_auth(&player).json(&json!({"name": big})).send().unwrap();
    assert_eq!(r.status(), StatusCode::PAYLOAD_TOO_LARGE);
}
