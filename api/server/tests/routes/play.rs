//! Play: prompts, answers (idempotency keys, refusals as problem documents, R10.6.6 window
//! answers), each viewer's events page and its cursors.

use super::*;
use final_flicker::PromptKind;
use reqwest::StatusCode;
use serde_json::{Value, json};

/// Errors are RFC 9457 problem documents with a stable type, and change nothing.
#[test]
fn errors_are_problem_documents_and_change_nothing() {
    let s = Server::start();
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
    let s = Server::start();
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
    let s = Server::start();
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

/// Idempotency keys are scoped to their account and to one request; cursors are signed and tied
/// to their viewer's sequence.
#[test]
fn idempotency_keys_are_scoped_and_cursors_are_signed() {
    let s = Server::start();
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
