//! Let's Call the Exorcist on the platform, over REST: a practice table of the second game with
//! built-in bots and one account seat, played to its end through the same routes as The Final
//! Flicker (prompts, answers with idempotency keys, events pages, streams with resume, replays
//! with `?at=N`, the signed export and its verification), and what stays The Final Flicker's.

use super::*;
use flicker_game::Game;
use flicker_server::game::Exorcist;
use rand::rngs::ChaCha8Rng;
use rand::seq::IndexedRandom;
use rand::{RngExt, SeedableRng};
use reqwest::StatusCode;
use serde_json::{Value, json};

const EXORCIST: &str = "lets-call-the-exorcist";

/// The frames of an SSE body: (`id`, `event`, `data`) per frame with data.
fn frames(body: &str) -> Vec<(Option<String>, Option<String>, String)> {
    body.split("\n\n")
        .filter(|f| f.lines().any(|l| l.starts_with("data:")))
        .map(|f| {
            let field = |name: &str| f.lines().find_map(|l| l.strip_prefix(name)).map(|v| v.trim().to_string());
            (field("id:"), field("event:"), field("data:").unwrap_or_default())
        })
        .collect()
}

/// The stream of a finished table (it closes after `finished`), from `last` on.
fn finished_stream(s: &Server, id: &str, last: Option<&str>) -> Vec<(Option<String>, Option<String>, String)> {
    let mut req = client().get(s.url(&format!("/api/v1/tables/{id}/stream")));
    if let Some(l) = last {
        req = req.header("Last-Event-ID", l);
    }
    let r = send(req);
    assert_eq!(r.status(), StatusCode::OK);
    frames(&r.text().expect("the stream of a finished table closes"))
}

/// A legal answer to an Exorcist prompt (its JSON): a random one of its legal cards, positions
/// or players, else its default (X12).
fn legal_answer(p: &Value, rng: &mut ChaCha8Rng) -> Value {
    let pick = |key: &str, rng: &mut ChaCha8Rng| p[key].as_array().and_then(|a| a.choose(rng).cloned());
    match p["prompt"].as_str().unwrap_or_default() {
        "select_card" | "hijinx_select" | "violation_peek" => match pick("cards", rng) {
            Some(c) => json!({"answer": "card", "owner": c["owner"], "position": c["position"]}),
            None => p["default"].clone(),
        },
        "tie_pick" => match pick("positions", rng) {
            Some(pos) => json!({"answer": "pick", "position": pos}),
            None => p["default"].clone(),
        },
        "ring_target" | "sanction_target" | "name_seeker" => match pick("seats", rng) {
            Some(seat) => json!({"answer": "player", "seat": seat}),
            None => p["default"].clone(),
        },
        _ if rng.random_bool(0.5) => json!({"answer": "decline"}),
        _ => p["default"].clone(),
    }
}

/// A whole Exorcist practice game over REST: one account seat (seat 0) and four built-in bots;
/// the table names its game everywhere, the account answers its prompts with idempotency keys
/// (a retry acts once, an illegal answer is refused naming its X-rule), its events pages and
/// the spectators' agree with the replay, the live stream resumes after `Last-Event-ID`, the
/// replay steps with `?at=N`, and the signed export names the game, verifies and folds to the
/// finished game.
#[test]
fn an_exorcist_practice_table_plays_to_its_end_over_rest() {
    let s = Server::start();
    let (me, token) = account(&s, "player");
    let mut rng = ChaCha8Rng::seed_from_u64(19);

    // Created with its game and its settings (X4.5: a 5-point game; X3.4: seat 0 seeks first).
    let (st, v, _) = post(
        &s,
        &token,
        "/api/v1/tables",
        json!({"game": EXORCIST, "players": 5, "reaction_window_min_ms": 0, "settings": {"target": 5, "first_seeker": 0}}),
    );
    assert_eq!(st, StatusCode::CREATED, "{v}");
    assert_eq!(v["table"]["game"], EXORCIST, "{v}");
    assert_eq!(v["table"]["settings"]["target"], 5, "{v}");
    let id = v["table"]["table_id"].as_str().unwrap().to_string();
    let (st, v, _) = post(&s, &token, &format!("/api/v1/tables/{id}/seats"), json!({"seat": 0}));
    assert_eq!((st, v["seat"].as_u64()), (StatusCode::OK, Some(0)), "{v}");
    for seat in 1..5 {
        let bot = if seat % 2 == 0 { "heuristic" } else { "random" };
        let (st, v, _) = post(&s, &token, &format!("/api/v1/tables/{id}/seats"), json!({"seat": seat, "bot": bot}));
        assert_eq!(st, StatusCode::OK, "{v}");
    }
    // The table list shows both games, each with its own.
    let flicker = table(&s, &[&token, &token], 2, json!({}));
    let list = public(&s, "/api/v1/tables?limit=200");
    let game_of =
        |t: &str| list["tables"].as_array().unwrap().iter().find(|x| x["table_id"] == t).map(|x| x["game"].clone());
    assert_eq!(game_of(&id), Some(json!(EXORCIST)), "{list}");
    assert_eq!(game_of(&flicker), Some(json!("the-final-flicker")), "{list}");
    let (st, mine, _) = get(&s, &token, "/api/v1/me/tables");
    assert_eq!(st, StatusCode::OK);
    assert!(mine.as_array().unwrap().iter().any(|t| t["table_id"] == id.as_str() && t["game"] == EXORCIST), "{mine}");

    let (st, v, _) = post(&s, &token, &format!("/api/v1/tables/{id}/start"), json!(null));
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["view"]["target"], 5, "the start shows the Exorcist view: {v}");

    let mut answered = 0;
    let mut refused_illegal = false;
    let mut replayed = false;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(300);
    loop {
        assert!(std::time::Instant::now() < deadline, "the game did not end in time");
        let (st, p, _) = get(&s, &token, &format!("/api/v1/tables/{id}/prompt"));
        assert_eq!(st, StatusCode::OK, "{p}");
        let prompt = &p["prompt"];
        if prompt.is_null() {
            let (_, t, _) = get(&s, &token, &format!("/api/v1/tables/{id}"));
            if t["table"]["status"] == "finished" {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
            continue;
        }
        assert_eq!(p["seat"], 0, "{p}");
        // X6.1: never one's own card: refused, naming the rule, and nothing changes.
        if !refused_illegal && prompt["prompt"] == "select_card" {
            let body = json!({"prompt_id": prompt["id"], "answer": {"answer": "card", "owner": 0, "position": 1}});
            let (st, v, ct) = answer(&s, &token, &id, body, &uuid());
            assert_eq!((st, ct.as_str()), (StatusCode::UNPROCESSABLE_ENTITY, "application/problem+json"), "{v}");
            assert!(v["rule"].as_str().is_some_and(|r| r.starts_with('X')), "an X-rule: {v}");
            refused_illegal = true;
        }
        let body = json!({"prompt_id": prompt["id"], "answer": legal_answer(prompt, &mut rng)});
        let key = uuid();
        let r = send(
            client()
                .post(s.url(&format!("/api/v1/tables/{id}/answers")))
                .bearer_auth(&token)
                .header("Idempotency-Key", &key)
                .json(&body),
        );
        let (st, v, _) = json_of(r);
        match st {
            StatusCode::OK => {
                answered += 1;
                assert_eq!(v["table"]["game"], EXORCIST);
                if !replayed {
                    // The same request again acts once: the stored answer is acknowledged.
                    let r = send(
                        client()
                            .post(s.url(&format!("/api/v1/tables/{id}/answers")))
                            .bearer_auth(&token)
                            .header("Idempotency-Key", &key)
                            .json(&body),
                    );
                    assert_eq!(r.status(), StatusCode::OK);
                    assert_eq!(r.headers().get("idempotent-replay").map(|h| h.to_str().unwrap()), Some("true"));
                    replayed = true;
                }
            }
            // The decision point moved on meanwhile (a bot answered, a time-out).
            StatusCode::CONFLICT => assert!(v["type"].as_str().is_some(), "{v}"),
            _ => panic!("answer refused: {st} {v} for {body}"),
        }
    }
    eprintln!("exorcist game: {answered} answers by the account, illegal refused: {refused_illegal}");
    assert!(answered > 0 && replayed && refused_illegal, "the account answered ({answered})");
    let _ = me;

    // After the end: everyone sees the complete record. The seat's pages (small pages with
    // cursors) are the spectator's, and the replay's steps.
    let all = all_events(&s, &token, &id);
    let mut paged = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let q = after.as_ref().map(|c| format!("&after={c}")).unwrap_or_default();
        let (st, page, _) = get(&s, &token, &format!("/api/v1/tables/{id}/events?limit=7{q}"));
        assert_eq!(st, StatusCode::OK, "{page}");
        let events = page["events"].as_array().unwrap();
        if events.is_empty() {
            break;
        }
        paged.extend(events.iter().cloned());
        after = Some(page["next"].as_str().unwrap().to_string());
    }
    assert_eq!(
        paged.iter().map(|e| &e["event"]).collect::<Vec<_>>(),
        all.iter().map(|e| &e["event"]).collect::<Vec<_>>()
    );
    assert_eq!(all[0]["event"]["type"], "game_created", "{}", all[0]);
    assert!(all.last().unwrap()["event"]["type"] == "game_ended", "{}", all.last().unwrap());
    let steps = public(&s, &format!("/api/v1/tables/{id}/replay/steps"));
    let total = steps["total"].as_u64().unwrap() as usize;
    assert_eq!(total, all.len());
    for at in [1, total / 2, total] {
        let step = public(&s, &format!("/api/v1/tables/{id}/replay?at={at}"));
        assert_eq!(step["at"], at as u64);
        assert_eq!(step["event"], steps["steps"][at - 1]["event"], "step {at}");
        assert_eq!(step["view"], steps["steps"][at - 1]["view"], "step {at}");
        assert_eq!(step["event"], all[at - 1]["event"], "step {at}");
    }
    assert!(steps["steps"][total - 1]["view"]["result"].is_object(), "the end shows the result");

    // The live stream: every event, then `finished`; resuming after the k-th sends the rest.
    let streamed = finished_stream(&s, &id, None);
    let (last, events) = streamed.split_last().unwrap();
    assert_eq!(last.1.as_deref(), Some("finished"));
    assert_eq!(events.len(), total);
    for (frame, e) in events.iter().zip(&all) {
        assert_eq!(frame.1.as_deref(), e["event"]["type"].as_str());
        assert_eq!(serde_json::from_str::<Value>(&frame.2).unwrap(), e["event"]);
    }
    let k = total / 3;
    let resumed = finished_stream(&s, &id, events[k - 1].0.as_deref());
    assert_eq!(resumed.len(), total - k + 1);
    assert_eq!(&resumed[..total - k], &events[k..]);

    // The signed export names the game, verifies against the published key, and folds.
    let r = send(client().get(s.url(&format!("/api/v1/tables/{id}/replay.jsonl"))));
    assert_eq!(r.status(), StatusCode::OK);
    let text = r.text().unwrap();
    let header: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(header["game"], EXORCIST, "{header}");
    assert_eq!(header["ruleset"]["id"], "exorcist", "{header}");
    let key = public(&s, "/api/v1/keys/replay")["public_key"].as_str().unwrap().to_string();
    let pinned = flicker_server::chain::parse_public_key(&key).unwrap();
    let verified = flicker_server::chain::verify(&text, Some(&pinned)).expect("the export verifies");
    assert_eq!(verified.game, EXORCIST);
    let mut state = <Exorcist as Game>::State::default();
    for line in text.lines().skip(1) {
        let v: Value = serde_json::from_str(line).unwrap();
        if v.get("signature").is_some()
            || v["type"] == "table_created"
            || v["type"] == "bot_seated"
            || v["type"] == "seat_taken"
        {
            continue;
        }
        let e: <Exorcist as Game>::Event =
            serde_json::from_value(json!({"type": v["type"], "payload": v["payload"]})).expect("an Exorcist event");
        Exorcist::apply(&mut state, &e);
    }
    assert!(Exorcist::is_finished(&state), "the export folds to the finished game");
    assert_eq!(Exorcist::version(&state) as usize, total);
    // A tampered export does not verify.
    let tampered = text.replacen("\"target\":5", "\"target\":4", 1);
    assert_ne!(tampered, text);
    assert!(flicker_server::chain::verify(&tampered, Some(&pinned)).is_err());
}

/// What an Exorcist table refuses, and what stays The Final Flicker's: a table that names no
/// game plays it (and says so), an unknown game is refused, X2.1's seat range holds, and a
/// gathering of the game refuses The Final Flicker's own settings with a problem naming the
/// field (rules decision 72), while one without them is created naming its game.
#[test]
fn the_default_game_is_the_final_flicker_and_exorcist_limits_hold() {
    let s = Server::start();
    let (_, token) = account(&s, "player");
    let (st, v, _) = post(&s, &token, "/api/v1/tables", json!({"players": 2}));
    assert_eq!(st, StatusCode::CREATED, "{v}");
    assert_eq!(v["table"]["game"], "the-final-flicker", "{v}");
    let (st, v, _) = post(&s, &token, "/api/v1/tables", json!({"players": 4, "game": "chess"}));
    assert_eq!(st, StatusCode::BAD_REQUEST, "{v}");
    let (st, v, ct) = post(&s, &token, "/api/v1/tables", json!({"players": 3, "game": EXORCIST}));
    assert_eq!((st, ct.as_str()), (StatusCode::BAD_REQUEST, "application/problem+json"), "{v}");
    assert_eq!(v["rule"], "X2.1", "{v}");
    let (st, v, _) = post(
        &s,
        &token,
        "/api/v1/tables",
        json!({"players": 4, "game": EXORCIST, "settings": {"salt_window": "sequential"}}),
    );
    assert_eq!(st, StatusCode::BAD_REQUEST, "The Final Flicker's settings are not Exorcist's: {v}");
    assert_eq!(v["type"], "/problems/unknown-field", "{v}");
    // An answer that is not the table's game's answer is refused as such.
    let (st, v, _) = post(&s, &token, "/api/v1/tables", json!({"players": 4, "game": EXORCIST}));
    assert_eq!(st, StatusCode::CREATED, "{v}");
    let id = v["table"]["table_id"].as_str().unwrap().to_string();
    for _ in 0..4 {
        let (st, v, _) = post(&s, &token, &format!("/api/v1/tables/{id}/seats"), json!(null));
        assert_eq!(st, StatusCode::OK, "{v}");
    }
    let (st, v, _) = post(&s, &token, &format!("/api/v1/tables/{id}/start"), json!(null));
    assert_eq!(st, StatusCode::OK, "{v}");
    let body = json!({"seat": 0, "prompt_id": 1, "answer": {"answer": "end_ritual"}});
    let (st, v, ct) = answer(&s, &token, &id, body, &uuid());
    assert_eq!((st, ct.as_str()), (StatusCode::BAD_REQUEST, "application/problem+json"), "{v}");
    let org = organiser(&s);
    let (st, v, ct) = post(
        &s,
        &org,
        "/api/v1/gatherings",
        json!({"name": "Exorcism night", "game": EXORCIST, "settings": {"salt_window": "sequential"}}),
    );
    assert_eq!((st, ct.as_str()), (StatusCode::BAD_REQUEST, "application/problem+json"), "{v}");
    assert!(v["detail"].as_str().unwrap().starts_with("salt_window is a setting of the-final-flicker"), "{v}");
    let (st, v, _) = post(&s, &org, "/api/v1/gatherings", json!({"name": "Exorcism night", "game": EXORCIST}));
    assert_eq!(st, StatusCode::CREATED, "{v}");
    assert_eq!((&v["settings"]["game"], &v["settings"]["advance"]), (&json!(EXORCIST), &json!(1)), "{v}");
}

/// The driver runs an Exorcist table's clocks as The Final Flicker's (R10.7): a seat that lets
/// its turn time out gets its prompt's default (X12), and with `abandonment: 1` that time-out
/// concedes it (R10.7.4); the built-in bots then play the game to its end.
#[test]
fn exorcist_clocks_time_out_and_abandon_through_the_driver() {
    let s = Server::start();
    let (_, token) = account(&s, "player");
    let (st, v, _) = post(
        &s,
        &token,
        "/api/v1/tables",
        json!({"game": EXORCIST, "players": 4, "settings": {"target": 3, "first_seeker": 0},
               "clocks": {"decision_secs": 1, "reaction_secs": 1}, "abandonment": 1}),
    );
    assert_eq!(st, StatusCode::CREATED, "{v}");
    let id = v["table"]["table_id"].as_str().unwrap().to_string();
    post(&s, &token, &format!("/api/v1/tables/{id}/seats"), json!({"seat": 0}));
    for seat in 1..4 {
        let (st, v, _) =
            post(&s, &token, &format!("/api/v1/tables/{id}/seats"), json!({"seat": seat, "bot": "random"}));
        assert_eq!(st, StatusCode::OK, "{v}");
    }
    let (st, v, _) = post(&s, &token, &format!("/api/v1/tables/{id}/start"), json!(null));
    assert_eq!(st, StatusCode::OK, "{v}");
    let (_, p, _) = get(&s, &token, &format!("/api/v1/tables/{id}/prompt"));
    assert_eq!(p["prompt"]["prompt"], "select_card", "{p}");
    assert!(p["clock"].is_object(), "the prompt shows its clock: {p}");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let (_, t, _) = get(&s, &token, &format!("/api/v1/tables/{id}"));
        if t["table"]["status"] == "finished" {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "the driver did not finish the game: {t}");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let types: Vec<String> =
        all_events(&s, &token, &id).iter().map(|e| e["event"]["type"].as_str().unwrap().to_string()).collect();
    assert!(types.iter().any(|t| t == "timed_out"), "{types:?}");
    assert!(types.iter().any(|t| t == "conceded"), "{types:?}");
    assert_eq!(types.last().map(String::as_str), Some("game_ended"));
}
