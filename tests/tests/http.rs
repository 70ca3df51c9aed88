//! End-to-end tests of the real server over HTTP, on SQLite and on PostgreSQL.
//!
//! Each test starts the `flicker` binary (built by `cargo test --workspace`) on a free port.
//! PostgreSQL tests need `FLICKER_TEST_POSTGRES_URL` (`./test.sh` starts a throwaway cluster and
//! sets it); without it they fail and say so: nothing is skipped silently.

mod common;

use common::*;
use final_flicker::replay::{fold, read_replay};
use final_flicker::{Answer, PromptKind, Viewer};
use flicker_lab::bot::random_answer;
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use reqwest::StatusCode;
use serde_json::{Value, json};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

// ---------- scenarios ----------

/// Four bot clients play a whole game over HTTP; the stored events, read back and folded, give
/// the same final state as the live one.
fn four_bots_play_a_whole_game(db: Db) {
    let s = Server::start(db);
    let bots: Vec<(String, String)> = (0..4).map(|_| account(&s, "bot")).collect();
    // Each bot plays with a long-lived, scoped bot token.
    let tokens: Vec<String> = bots
        .iter()
        .map(|(_, t)| {
            let (st, v, _) =
                post(&s, t, "/api/v1/tokens", json!({"label": "test bot", "scopes": ["play", "read"], "days": 1}));
            assert_eq!(st, StatusCode::CREATED, "{v}");
            v["token"].as_str().unwrap().to_string()
        })
        .collect();
    let refs: Vec<&str> = tokens.iter().map(String::as_str).collect();
    let id = table(&s, &refs, 4, json!({}));
    let s = Arc::new(s);
    let handles: Vec<_> = tokens
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let (s, t, id) = (s.clone(), t.clone(), id.clone());
            std::thread::spawn(move || bot_loop(&s, &t, &id, None, i as u64))
        })
        .collect();
    let answers: u32 = handles.into_iter().map(|h| h.join().unwrap()).sum();
    assert!(answers > 10);
    // The live final state, as the server shows it after the game (everything revealed).
    let (_, live, _) = get(&s, &tokens[0], &format!("/api/v1/tables/{id}"));
    assert_eq!(live["view"]["viewer"]["viewer"], "everything");
    let text = client().get(s.url(&format!("/api/v1/tables/{id}/replay.jsonl"))).send().unwrap().text().unwrap();
    let (_, events) = read_replay(std::io::Cursor::new(text)).unwrap();
    let folded = fold(&events);
    assert!(folded.is_finished());
    let folded_view = serde_json::to_value(final_flicker::view(&folded, Viewer::Everything)).unwrap();
    assert_eq!(folded_view, live["view"], "the stored events fold to a different final state");
    // After the game every viewer pages through the complete record.
    let (_, page, _) = get(&s, &tokens[1], &format!("/api/v1/tables/{id}/events?limit=500"));
    assert!(page["events"].as_array().unwrap().len() >= events.len().min(500));
}

/// SIGKILL mid-game, restart: every acknowledged command is there and the game goes on.
fn sigkill_keeps_every_acknowledged_command(db: Db) {
    let s = Server::start(db);
    let (_, token) = account(&s, "player");
    // A practice table: one account holds both seats. No minimum reaction window: a `player`
    // account's table would otherwise hold every reaction window 1.5 s (the start decides it),
    // and the game after the restart, played to its end, would wait some 200 s on them. Held
    // windows have their own tests (api/server/src/window_tests.rs).
    let id = table(
        &s,
        &[&token, &token],
        2,
        json!({"settings": {"salt_window": "sequential"}, "reaction_window_min_ms": 0}),
    );
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut last_ack: Option<(u8, Value)> = None;
    for _ in 0..25 {
        let Some((seat, p)) = (0..2).find_map(|x| prompt_of(&s, &token, &id, Some(x)).map(|p| (x, p))) else { break };
        let body = json!({"seat": seat, "prompt_id": p.id, "answer": random_answer(&p, &mut rng)});
        let (st, v, _) = answer(&s, &token, &id, body, &uuid());
        assert_eq!(st, StatusCode::OK, "{v}");
        last_ack = Some((seat, v["view"].clone()));
        if v["table"]["status"] == "finished" {
            break;
        }
    }
    let (seat, acked_view) = last_ack.expect("answers were acknowledged");
    let db = s.kill();
    let s = Server::start(db);
    let (_, after, _) = get(&s, &token, &format!("/api/v1/tables/{id}?seat={seat}"));
    assert_eq!(after["view"], acked_view, "an acknowledged answer was lost in the crash");
    // The game goes on to its end.
    bot_loop_two_seats(&s, &token, &id);
    assert!(finished(&s, &token, &id));
}

fn bot_loop_two_seats(s: &Server, token: &str, id: &str) {
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let deadline = Instant::now() + Duration::from_secs(600);
    while !finished(s, token, id) {
        assert!(Instant::now() < deadline);
        for seat in 0..2u8 {
            if let Some(p) = prompt_of(s, token, id, Some(seat)) {
                if !needs_answer(&p) {
                    continue;
                }
                let body = json!({"seat": seat, "prompt_id": p.id, "answer": random_answer(&p, &mut rng)});
                let (st, v, _) = answer(s, token, id, body, &uuid());
                assert!(st == StatusCode::OK || st == StatusCode::CONFLICT, "{st}: {v}");
            }
        }
    }
}

/// Two clients answer the same prompt at once: exactly one is accepted, the other gets 409 and
/// a problem document.
fn two_clients_answer_the_same_prompt(db: Db) {
    let s = Arc::new(Server::start(db));
    let (_, token) = account(&s, "player");
    for round in 0..5 {
        let id = table(&s, &[&token, &token], 2, json!({"settings": {"first_player": {"mode": "first", "seat": 0}}}));
        let p = prompt_of(&s, &token, &id, Some(0)).expect("seat 0 has the first prompt");
        assert!(matches!(p.kind, PromptKind::Ritual { .. }), "round {round}: {p:?}");
        let barrier = Arc::new(Barrier::new(2));
        let handles: Vec<_> = (0..2)
            .map(|_| {
                let (s, token, id, b) = (s.clone(), token.clone(), id.clone(), barrier.clone());
                let body = json!({"seat": 0, "prompt_id": p.id, "answer": Answer::EndRitual});
                std::thread::spawn(move || {
                    b.wait();
                    answer(&s, &token, &id, body, &uuid())
                })
            })
            .collect();
        let results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        let ok = results.iter().filter(|r| r.0 == StatusCode::OK).count();
        let conflict: Vec<_> = results.iter().filter(|r| r.0 == StatusCode::CONFLICT).collect();
        assert_eq!(ok, 1, "round {round}: {results:?}");
        assert_eq!(conflict.len(), 1, "round {round}: {results:?}");
        assert_eq!(conflict[0].2, "application/problem+json");
        let t = conflict[0].1["type"].as_str().unwrap();
        assert!(t == "/problems/stale-prompt" || t == "/problems/not-your-prompt", "{t}");
    }
}

// ---------- SQLite ----------

#[test]
fn sqlite_four_bots_play_a_whole_game() {
    four_bots_play_a_whole_game(Db::sqlite());
}

#[test]
fn sqlite_sigkill_keeps_every_acknowledged_command() {
    sigkill_keeps_every_acknowledged_command(Db::sqlite());
}

#[test]
fn sqlite_two_clients_answer_the_same_prompt() {
    two_clients_answer_the_same_prompt(Db::sqlite());
}

// ---------- PostgreSQL ----------

#[test]
fn postgres_four_bots_play_a_whole_game() {
    four_bots_play_a_whole_game(Db::postgres());
}

#[test]
fn postgres_sigkill_keeps_every_acknowledged_command() {
    sigkill_keeps_every_acknowledged_command(Db::postgres());
}

#[test]
fn postgres_two_clients_answer_the_same_prompt() {
    two_clients_answer_the_same_prompt(Db::postgres());
}

/// Two API processes on one PostgreSQL serve the same table.
#[test]
fn postgres_two_api_processes_share_a_table() {
    let db = Db::postgres();
    let a = Server::start(db.clone());
    let b = Server::start(db);
    let (_, token) = account(&a, "player");
    // No minimum window: a held answer would leave no prompt to play on until its deadline.
    let id = table(&a, &[&token, &token], 2, json!({"reaction_window_min_ms": 0}));
    // Seen from the other process at once, and played through it.
    let (st, v, _) = get(&b, &token, &format!("/api/v1/tables/{id}"));
    assert_eq!(st, StatusCode::OK, "{v}");
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for i in 0..20 {
        let s = if i % 2 == 0 { &a } else { &b };
        let Some((seat, p)) = (0..2).find_map(|x| prompt_of(s, &token, &id, Some(x)).map(|p| (x, p))) else { break };
        let body = json!({"seat": seat, "prompt_id": p.id, "answer": random_answer(&p, &mut rng)});
        let (st, v, _) = answer(s, &token, &id, body, &uuid());
        assert_eq!(st, StatusCode::OK, "{v}");
        let (_, va, _) = get(&a, &token, &format!("/api/v1/tables/{id}?seat=0"));
        let (_, vb, _) = get(&b, &token, &format!("/api/v1/tables/{id}?seat=0"));
        assert_eq!(va, vb, "the two processes disagree");
    }
}

// ---------- contract details (SQLite) ----------

/// Errors are RFC 9457 problem documents with a stable type, and change nothing.
#[test]
fn errors_are_problem_documents_and_change_nothing() {
    let s = Server::start(Db::sqlite());
    let (_, token) = account(&s, "player");
    let (_, other) = account(&s, "player");
    let id = table(&s, &[&token, &token], 2, json!({"settings": {"first_player": {"mode": "first", "seat": 0}}}));
    let view = |seat: u8| get(&s, &token, &format!("/api/v1/tables/{id}?seat={seat}")).1;
    let before = (view(0), view(1));
    let p = prompt_of(&s, &token, &id, Some(0)).unwrap();
    let check = |(st, v, ct): (StatusCode, Value, String), status: u16, kind: &str| {
        assert_eq!(st.as_u16(), status, "{v}");
        assert_eq!(ct, "application/problem+json", "{v}");
        assert_eq!(v["type"], format!("/problems/{kind}"), "{v}");
        assert_eq!(v["status"], status);
        assert!(v["title"].is_string() && v["detail"].is_string());
        v
    };
    let url = s.url(&format!("/api/v1/tables/{id}/answers"));
    // Unauthenticated.
    check(json_of(client().post(&url).json(&json!({})).send().unwrap()), 401, "unauthenticated");
    check(
        json_of(client().get(s.url(&format!("/api/v1/tables/{id}"))).bearer_auth("not-a-token").send().unwrap()),
        401,
        "unauthenticated",
    );
    // Malformed JSON, unknown field.
    let raw = |body: &str| {
        json_of(
            client()
                .post(&url)
                .bearer_auth(&token)
                .header("Idempotency-Key", uuid())
                .header("content-type", "application/json")
                .body(body.to_string())
                .send()
                .unwrap(),
        )
    };
    check(raw("{\"prompt_id\": "), 400, "malformed-json");
    check(
        raw(&json!({"seat": 0, "prompt_id": p.id, "answer": {"answer": "end_ritual"}, "extra": 1}).to_string()),
        400,
        "unknown-field",
    );
    // Missing Idempotency-Key.
    check(
        json_of(
            client()
                .post(&url)
                .bearer_auth(&token)
                .json(&json!({"seat": 0, "prompt_id": p.id, "answer": {"answer": "end_ritual"}}))
                .send()
                .unwrap(),
        ),
        400,
        "missing-idempotency-key",
    );
    // Wrong seat: another account, and a seat not held.
    check(
        answer(&s, &other, &id, json!({"prompt_id": p.id, "answer": {"answer": "end_ritual"}}), &uuid()),
        403,
        "wrong-seat",
    );
    check(
        answer(&s, &token, &id, json!({"seat": 5, "prompt_id": p.id, "answer": {"answer": "end_ritual"}}), &uuid()),
        403,
        "wrong-seat",
    );
    // Stale prompt id.
    check(
        answer(&s, &token, &id, json!({"seat": 0, "prompt_id": 12345, "answer": {"answer": "end_ritual"}}), &uuid()),
        409,
        "stale-prompt",
    );
    // Not this seat's turn.
    check(
        answer(&s, &token, &id, json!({"seat": 1, "prompt_id": p.id, "answer": {"answer": "end_ritual"}}), &uuid()),
        409,
        "not-your-prompt",
    );
    // A rule violation names its rule: Banish with a card when the Shadow is empty.
    let hand = before.0["view"]["players"][0]["hand"][0]["handle"].clone();
    let v = check(
        answer(
            &s,
            &token,
            &id,
            json!({"seat": 0, "prompt_id": p.id, "answer": {"answer": "act", "action": {"action": "banish", "card": hand, "ghost": 1}}}),
            &uuid(),
        ),
        422,
        "unknown-card",
    );
    assert!(v["rule"].is_string());
    let v = check(
        answer(
            &s,
            &token,
            &id,
            json!({"seat": 0, "prompt_id": p.id, "answer": {"answer": "act", "action": {"action": "haunt", "card": hand, "target": 0}}}),
            &uuid(),
        ),
        422,
        "rule-violation",
    );
    let rule = v["rule"].as_str().unwrap();
    assert!(rule == "R5.2", "{v}");
    // Nothing changed.
    assert_eq!((view(0), view(1)), before);
    // Unknown route.
    check(get(&s, &token, "/api/v1/nope"), 404, "not-found");
    check(get(&s, &token, "/api/v1/tables/no-such-table"), 404, "not-found");
}

/// A retried answer with the same Idempotency-Key acts once.
#[test]
fn a_retried_answer_acts_once() {
    let s = Server::start(Db::sqlite());
    let (_, token) = account(&s, "player");
    let id = table(&s, &[&token, &token], 2, json!({"settings": {"first_player": {"mode": "first", "seat": 0}}}));
    let p = prompt_of(&s, &token, &id, Some(0)).unwrap();
    let body = json!({"seat": 0, "prompt_id": p.id, "answer": {"answer": "end_ritual"}});
    let key = uuid();
    let r1 = client()
        .post(s.url(&format!("/api/v1/tables/{id}/answers")))
        .bearer_auth(&token)
        .header("Idempotency-Key", &key)
        .json(&body)
        .send()
        .unwrap();
    assert_eq!(r1.status(), StatusCode::OK);
    let events1 =
        get(&s, &token, &format!("/api/v1/tables/{id}/events?seat=0&limit=500")).1["events"].as_array().unwrap().len();
    let r2 = client()
        .post(s.url(&format!("/api/v1/tables/{id}/answers")))
        .bearer_auth(&token)
        .header("Idempotency-Key", &key)
        .json(&body)
        .send()
        .unwrap();
    assert_eq!(r2.status(), StatusCode::OK);
    assert_eq!(r2.headers().get("idempotent-replay").unwrap(), "true");
    let events2 =
        get(&s, &token, &format!("/api/v1/tables/{id}/events?seat=0&limit=500")).1["events"].as_array().unwrap().len();
    assert_eq!(events1, events2, "the retry acted twice");
}

/// R10.6.6: answering an open simultaneous window again with the same answer
/// stores nothing and still succeeds; changes are stored, at most 8 per seat and window; a
/// further change gets 422 naming R10.6.6 and changes nothing any other viewer can see (views,
/// ETags, event pages); idempotency keys keep working.
#[test]
fn repeated_window_answers_store_nothing_and_changes_are_bounded() {
    let s = Server::start(Db::sqlite());
    let (_, token) = account(&s, "player");
    let (_, watcher) = account(&s, "player");
    let id = table(
        &s,
        &[&token, &token, &token],
        3,
        json!({"settings": {"first_player": {"mode": "first", "seat": 0}},
               "clocks": {"decision_secs": 3600, "reaction_secs": 3600},
               "reaction_window_min_ms": 0,
               "position": "9C 8C 2C | 5H 5D 4S | 2D 3D 4D"}),
    );
    // Seat 0 Haunts seat 1: a simultaneous Salt window opens for seats 1 and 2.
    let p = prompt_of(&s, &token, &id, Some(0)).unwrap();
    let PromptKind::Ritual { options, .. } = &p.kind else { panic!("{p:?}") };
    let card = options
        .iter()
        .find(|o| {
            o.uses
                .iter()
                .any(|u| matches!(u, final_flicker::prompt::UseOption::Haunt { targets } if targets.contains(&1)))
        })
        .expect("a card that Haunts seat 1")
        .card
        .handle;
    let act = json!({"seat": 0, "prompt_id": p.id, "answer": {"answer": "act", "action": {"action": "haunt", "card": card, "target": 1}}});
    assert_eq!(answer(&s, &token, &id, act, &uuid()).0, StatusCode::OK);
    let p1 = prompt_of(&s, &token, &id, Some(1)).unwrap();
    let PromptKind::Salt { fives, .. } = &p1.kind else { panic!("{p1:?}") };
    let salt = json!({"answer": "salt", "card": fives[0].handle});
    let pass = json!({"answer": "pass"});
    let body = |a: &Value| json!({"seat": 1, "prompt_id": p1.id, "answer": a});
    let mine = || {
        get(&s, &token, &format!("/api/v1/tables/{id}/events?seat=1&limit=500")).1["events"].as_array().unwrap().len()
    };
    // What the others see: the spectator's and seat 2's views with their ETags, and seat 2's events.
    let others = || {
        let read = |t: &str, q: &str| {
            let r = send(client().get(s.url(&format!("/api/v1/tables/{id}{q}"))).bearer_auth(t));
            let etag = r.headers().get("etag").map(|v| v.to_str().unwrap().to_string());
            (etag, r.text().unwrap())
        };
        (read(&watcher, ""), read(&token, "?seat=2"), read(&token, "/events?seat=2&limit=500"))
    };
    let seen = others();
    // The first answer is stored once; 20 repeats store nothing and succeed.
    let key = uuid();
    assert_eq!(answer(&s, &token, &id, body(&pass), &key).0, StatusCode::OK);
    let stored = mine();
    for _ in 0..20 {
        let (st, v, _) = answer(&s, &token, &id, body(&pass), &uuid());
        assert_eq!(st, StatusCode::OK, "{v}");
    }
    assert_eq!(mine(), stored, "a repeated answer was stored");
    // The retried first request is still recognised by its key.
    let r = send(
        client()
            .post(s.url(&format!("/api/v1/tables/{id}/answers")))
            .bearer_auth(&token)
            .header("Idempotency-Key", &key)
            .json(&body(&pass)),
    );
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers().get("idempotent-replay").unwrap(), "true");
    // Eight changes, alternating Salt and Pass, are each stored once.
    for i in 0..8 {
        let a = if i % 2 == 0 { &salt } else { &pass };
        let (st, v, _) = answer(&s, &token, &id, body(a), &uuid());
        assert_eq!(st, StatusCode::OK, "change {i}: {v}");
        assert_eq!(mine(), stored + i + 1);
    }
    // The ninth is refused, naming R10.6.6; nothing changed for anyone else.
    let (st, v, ct) = answer(&s, &token, &id, body(&salt), &uuid());
    assert_eq!((st, ct.as_str()), (StatusCode::UNPROCESSABLE_ENTITY, "application/problem+json"), "{v}");
    assert_eq!((v["type"].as_str(), v["rule"].as_str()), (Some("/problems/rule-violation"), Some("R10.6.6")), "{v}");
    assert_eq!(mine(), stored + 8);
    assert_eq!(others(), seen, "the others saw something of seat 1's answers");
    // Repeating the answer that stands (Pass) is still fine.
    assert_eq!(answer(&s, &token, &id, body(&pass), &uuid()).0, StatusCode::OK);
    assert_eq!(mine(), stored + 8);
    // Seat 2 passes: the window closes on seat 1's Pass and the Haunt resolves.
    let p2 = prompt_of(&s, &token, &id, Some(2)).unwrap();
    let (st, v, _) = answer(&s, &token, &id, json!({"seat": 2, "prompt_id": p2.id, "answer": pass}), &uuid());
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["view"]["players"][1]["shadow"].as_array().map(Vec::len), Some(1), "{v}");
}

/// Refresh tokens work once; bot tokens are scoped and revocable.
#[test]
fn tokens_refresh_once_and_bot_tokens_revoke() {
    let s = Server::start(Db::sqlite());
    let name = format!("u{}", &uuid()[..10]);
    let c = client();
    c.post(s.url("/api/v1/accounts")).json(&json!({"name": name, "password": "password-1"})).send().unwrap();
    let (_, pair, _) = json_of(
        c.post(s.url("/api/v1/auth/token")).json(&json!({"name": name, "password": "password-1"})).send().unwrap(),
    );
    let refresh = pair["refresh_token"].as_str().unwrap();
    let (st, new_pair, _) =
        json_of(c.post(s.url("/api/v1/auth/refresh")).json(&json!({"refresh_token": refresh})).send().unwrap());
    assert_eq!(st, StatusCode::OK, "{new_pair}");
    let (st, v, _) =
        json_of(c.post(s.url("/api/v1/auth/refresh")).json(&json!({"refresh_token": refresh})).send().unwrap());
    assert_eq!(st, StatusCode::UNAUTHORIZED, "a refresh token worked twice: {v}");
    // The reuse revoked the whole session, the refreshed pair included.
    let (st, v, _) = post(&s, new_pair["access_token"].as_str().unwrap(), "/api/v1/tables", json!({"players": 2}));
    assert_eq!(st, StatusCode::UNAUTHORIZED, "a session survived the reuse of its refresh token: {v}");
    let (_, new_pair, _) = json_of(
        c.post(s.url("/api/v1/auth/token")).json(&json!({"name": name, "password": "password-1"})).send().unwrap(),
    );
    // Wrong password.
    let (st, _, _) = json_of(
        c.post(s.url("/api/v1/auth/token")).json(&json!({"name": name, "password": "nope-nope"})).send().unwrap(),
    );
    assert_eq!(st, StatusCode::UNAUTHORIZED);
    let access = new_pair["access_token"].as_str().unwrap();
    let (st, bot, _) = post(&s, access, "/api/v1/tokens", json!({"label": "reader", "scopes": ["read"]}));
    assert_eq!(st, StatusCode::CREATED, "{bot}");
    let bot_token = bot["token"].as_str().unwrap();
    // A read-only token may not create tables.
    let (st, v, _) = post(&s, bot_token, "/api/v1/tables", json!({"players": 2}));
    assert_eq!(st, StatusCode::FORBIDDEN, "{v}");
    let id = table(&s, &[access, access], 2, json!({}));
    assert_eq!(get(&s, bot_token, &format!("/api/v1/tables/{id}")).0, StatusCode::OK);
    let r =
        c.delete(s.url(&format!("/api/v1/tokens/{}", bot["id"].as_str().unwrap()))).bearer_auth(access).send().unwrap();
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    let (st, v, _) = get(&s, bot_token, &format!("/api/v1/tables/{id}"));
    assert_eq!(st, StatusCode::UNAUTHORIZED, "a revoked token still works: {v}");
}

/// A practice table can start from a given position (R10.13).
#[test]
fn a_practice_table_starts_from_a_position() {
    let s = Server::start(Db::sqlite());
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

/// The OpenAPI document, the docs UI (no outside assets), health, readiness and metrics.
#[test]
fn docs_health_and_metrics_are_served() {
    let s = Server::start(Db::sqlite());
    let c = client();
    let spec: Value = c.get(s.url("/openapi.json")).send().unwrap().json().unwrap();
    assert!(spec["openapi"].as_str().unwrap().starts_with("3.1"));
    assert!(spec["paths"]["/api/v1/tables/{id}/answers"]["post"].is_object());
    let docs = c.get(s.url("/docs/")).send().unwrap();
    assert_eq!(docs.status(), StatusCode::OK);
    let html = docs.text().unwrap();
    assert!(html.contains("swagger"), "{html}");
    for tag in html.split("src=").skip(1) {
        let src = tag.trim_start_matches(['"', '\'']);
        assert!(!src.starts_with("http"), "the docs page loads {src} from outside");
    }
    assert_eq!(c.get(s.url("/healthz")).send().unwrap().status(), StatusCode::OK);
    assert_eq!(c.get(s.url("/readyz")).send().unwrap().status(), StatusCode::OK);
    // Metrics are for operators only (request counts and timings could show hidden answers).
    assert_eq!(c.get(s.url("/metrics")).send().unwrap().status(), StatusCode::UNAUTHORIZED);
    let m = c.get(s.url("/metrics")).bearer_auth(METRICS_TOKEN).send().unwrap().text().unwrap();
    assert!(m.contains("flicker_http_requests_total"), "{m}");
}

/// Idempotency keys are scoped to their account and to one request; optional bodies are
/// parsed strictly; the server owns hold_windows; organisers need the server's key; a bot token
/// cannot revoke tokens; cursors are signed and tied to their viewer's sequence.
#[test]
fn contract_hardening() {
    let s = Server::start(Db::sqlite());
    let (_, token) = account(&s, "player");
    let id = table(&s, &[&token, &token], 2, json!({"settings": {"first_player": {"mode": "first", "seat": 0}}}));
    let p = prompt_of(&s, &token, &id, Some(0)).unwrap();
    let key = uuid();
    let end = json!({"seat": 0, "prompt_id": p.id, "answer": {"answer": "end_ritual"}});
    assert_eq!(answer(&s, &token, &id, end.clone(), &key).0, StatusCode::OK);
    // The same key for another request: refused.
    let other = json!({"seat": 1, "prompt_id": p.id, "answer": {"answer": "end_ritual"}});
    let (st, v, _) = answer(&s, &token, &id, other, &key);
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert_eq!(v["type"], "/problems/idempotency-key-reused");
    // Another account's answer for a seat it does not hold, with the same key: wrong seat (no
    // replay oracle).
    let (_, stranger) = account(&s, "player");
    let (st, v, _) = answer(&s, &stranger, &id, end, &key);
    assert_eq!(st, StatusCode::FORBIDDEN, "{v}");
    // A malformed optional body is refused, not taken as empty.
    let (_, fresh) = account(&s, "player");
    let (_, t, _) = post(&s, &fresh, "/api/v1/tables", json!({"players": 2}));
    let tid = t["table"]["table_id"].as_str().unwrap();
    let (st, v, _) = post(&s, &fresh, &format!("/api/v1/tables/{tid}/seats"), json!({"seet": 1}));
    assert_eq!(st, StatusCode::BAD_REQUEST, "{v}");
    assert_eq!(v["type"], "/problems/unknown-field");
    let (_, t, _) = get(&s, &fresh, &format!("/api/v1/tables/{tid}"));
    assert_eq!(t["table"]["seats"], json!([null, null]), "a refused request changed the table");
    // hold_windows belongs to the server.
    let (st, v, _) = post(&s, &fresh, "/api/v1/tables", json!({"players": 2, "settings": {"hold_windows": true}}));
    assert_eq!(st, StatusCode::BAD_REQUEST, "{v}");
    // Organisers need the server's key.
    let c = client();
    let r = c
        .post(s.url("/api/v1/accounts"))
        .json(&json!({"name": format!("o{}", &uuid()[..8]), "password": "password-1", "role": "organiser"}))
        .send()
        .unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    let r = c
        .post(s.url("/api/v1/accounts"))
        .header("X-Organiser-Key", ORGANISER_KEY)
        .json(&json!({"name": format!("o{}", &uuid()[..8]), "password": "password-1", "role": "organiser"}))
        .send()
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    // A bot token cannot revoke tokens.
    let (_, bot, _) = post(&s, &token, "/api/v1/tokens", json!({"label": "b"}));
    let bt = bot["token"].as_str().unwrap();
    let r = c.delete(s.url(&format!("/api/v1/tokens/{}", bot["id"].as_str().unwrap()))).bearer_auth(bt).send().unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    // Cursors: signed, and tied to the viewer's sequence.
    let (_, page, _) = get(&s, &token, &format!("/api/v1/tables/{id}/events?seat=0&limit=2"));
    let cur = page["next"].as_str().unwrap().to_string();
    let (st, _, _) = get(&s, &token, &format!("/api/v1/tables/{id}/events?seat=0&after={cur}"));
    assert_eq!(st, StatusCode::OK);
    let (st, v, _) = get(&s, &token, &format!("/api/v1/tables/{id}/events?seat=1&after={cur}"));
    assert_eq!(st, StatusCode::BAD_REQUEST, "{v}");
    assert_eq!(v["type"], "/problems/cursor-mismatch");
    let (st, v, _) = get(&s, &token, &format!("/api/v1/tables/{id}/events?seat=0&after=YzE6Mw"));
    assert_eq!(st, StatusCode::BAD_REQUEST, "{v}");
}

/// The real server creates its SQLite files (the database, `-wal`, `-shm`, `.lock`)
/// and its organiser key file owner-only, and makes existing ones left readable by others
/// owner-only at start.
#[cfg(unix)]
#[test]
fn database_files_are_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let db = Db::sqlite();
    let Db::Sqlite(path) = &db else { unreachable!() };
    let key_file = format!("{}.organiser-key", path.display());
    // An old organiser key file, world-readable.
    std::fs::write(&key_file, "x").unwrap();
    std::fs::set_permissions(&key_file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let files = |p: &std::path::Path| {
        ["", "-wal", "-shm", ".lock", ".organiser-key"].map(|s| format!("{}{s}", p.display())).to_vec()
    };
    let mode = |f: &str| std::fs::metadata(f).unwrap().permissions().mode() & 0o777;
    let s = Server::start_with(db.clone(), &[("FLICKER_ORGANISER_KEY", "")]);
    account(&s, "player");
    for f in files(path) {
        assert_eq!(mode(&f), 0o600, "{f} is not owner-only");
    }
    let db = s.kill();
    // Files loosened meanwhile (a copy, a careless chmod) are made owner-only at the next start.
    for f in files(path) {
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    let s = Server::start_with(db, &[("FLICKER_ORGANISER_KEY", "")]);
    for f in files(path) {
        assert_eq!(mode(&f), 0o600, "{f} was not tightened");
    }
    drop(s);
}

/// An organiser key or a metrics token shorter than 16 bytes stops the server at
/// start with an error that says so.
#[test]
fn short_keys_stop_the_server_at_start() {
    for var in ["FLICKER_ORGANISER_KEY", "FLICKER_METRICS_TOKEN"] {
        let db = Db::sqlite();
        let out = std::process::Command::new(binary())
            .args(["serve", "--addr", "127.0.0.1:0", "--database-url", &db.url()])
            .env("FLICKER_LOG", "warn")
            .env("FLICKER_ORGANISER_KEY", ORGANISER_KEY)
            .env("FLICKER_METRICS_TOKEN", METRICS_TOKEN)
            .env(var, "k")
            .output()
            .unwrap();
        assert!(!out.status.success(), "{var}=k was accepted");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(var) && err.contains("at least 16"), "{err}");
    }
}
