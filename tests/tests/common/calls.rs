//! Calls to a running Flicker server over HTTP, shared by the process-level tests
//! (`tests/tests/common`, whose `Server` is a `flicker serve` process) and the in-process
//! route-group tests (`api/server/tests/routes`, whose `Server` is the application on port 0
//! in a thread): each includes this file beside a `Server` with `url(path)`, `api()` and
//! `api_as(token)`, and the constants `ORGANISER_KEY` and `METRICS_TOKEN`.
//!
//! The typed client (`flicker_client`) for the usual calls, and raw JSON helpers for the tests
//! that send what a typed client cannot (malformed bodies, refusals). The helpers behave as a
//! polite client does: a request refused with 429 `rate-limited` is sent again after its
//! `Retry-After`.

#![allow(dead_code)]

use super::{ORGANISER_KEY, Server};
use final_flicker::{Prompt, PromptKind};
use flicker_client::routes;
use flicker_client::types::{AnswerBody, CreateTableBody, RegisterBody, Role};
use flicker_lab::bot::random_answer;
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use reqwest::StatusCode;
use reqwest::blocking::{Client, RequestBuilder, Response};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// A random 32-hex-digit id.
pub fn uuid() -> String {
    format!("{:032x}", rand::random::<u128>())
}

pub fn client() -> Client {
    Client::builder().timeout(Duration::from_secs(30)).build().unwrap()
}

/// Sends a request; while it is refused with 429, waits as its `Retry-After` says (at most 5 s,
/// 40 times) and sends it again. A refused request did nothing, so sending it again is safe.
pub fn send(req: RequestBuilder) -> Response {
    for _ in 0..40 {
        let r = req.try_clone().expect("a request without a streamed body").send().unwrap();
        if r.status() != StatusCode::TOO_MANY_REQUESTS {
            return r;
        }
        let secs = r.headers().get("retry-after").and_then(|v| v.to_str().ok()?.trim().parse::<u64>().ok());
        std::thread::sleep(Duration::from_secs(secs.unwrap_or(1).clamp(1, 5)));
    }
    panic!("still rate-limited after 40 tries")
}

/// Status, JSON body (`null` when not JSON) and content type.
pub fn json_of(r: Response) -> (StatusCode, Value, String) {
    let status = r.status();
    let ct = r.headers().get("content-type").map(|v| v.to_str().unwrap().to_string()).unwrap_or_default();
    let v: Value = r.json().unwrap_or(Value::Null);
    (status, v, ct)
}

/// Logs in and returns the access token.
pub fn login(s: &Server, name: &str, password: &str) -> String {
    match s.api().send(routes::login(name, password)) {
        Ok(t) => t.access_token,
        Err(e) => panic!("login {name}: {e}"),
    }
}

/// Registers an account with a random name and returns its name and access token.
pub fn account(s: &Server, role: &str) -> (String, String) {
    named_account(s, &format!("u{}", &uuid()[..12]), role)
}

/// Registers the account `name` (organisers with the server's key) and returns its name and
/// access token.
pub fn named_account(s: &Server, name: &str, role: &str) -> (String, String) {
    let role: Role = serde_json::from_value(Value::String(role.to_string())).expect("a role");
    let key = (role == Role::Organiser).then_some(ORGANISER_KEY);
    let body = RegisterBody { name: name.to_string(), password: "password-1".to_string(), role };
    if let Err(e) = s.api().send(routes::register(&body, key)) {
        panic!("registering {name}: {e}");
    }
    (name.to_string(), login(s, name, "password-1"))
}

pub fn post(s: &Server, token: &str, path: &str, body: Value) -> (StatusCode, Value, String) {
    json_of(send(client().post(s.url(path)).bearer_auth(token).json(&body)))
}

pub fn put(s: &Server, token: &str, path: &str, body: Value) -> (StatusCode, Value, String) {
    json_of(send(client().put(s.url(path)).bearer_auth(token).json(&body)))
}

pub fn delete(s: &Server, token: &str, path: &str) -> (StatusCode, Value, String) {
    json_of(send(client().delete(s.url(path)).bearer_auth(token)))
}

pub fn get(s: &Server, token: &str, path: &str) -> (StatusCode, Value, String) {
    json_of(send(client().get(s.url(path)).bearer_auth(token)))
}

/// An unauthenticated GET (the public reads).
pub fn get_public(s: &Server, path: &str) -> (StatusCode, Value, String) {
    json_of(send(client().get(s.url(path))))
}

/// Posts an answer with an `Idempotency-Key`.
pub fn answer(s: &Server, token: &str, table: &str, body: Value, key: &str) -> (StatusCode, Value, String) {
    json_of(send(
        client()
            .post(s.url(&format!("/api/v1/tables/{table}/answers")))
            .bearer_auth(token)
            .header("Idempotency-Key", key)
            .json(&body),
    ))
}

// ---------- practice tables played by random bots ----------

/// Creates a table of `players`, seats the given tokens in order, starts it. `extra`: more
/// fields of the creation body (`settings`, `clocks`, `position`, ...).
pub fn table(s: &Server, tokens: &[&str], players: u8, extra: Value) -> String {
    let mut body = json!({"players": players});
    if let Value::Object(m) = extra {
        for (k, v) in m {
            body[k] = v;
        }
    }
    let body: CreateTableBody = serde_json::from_value(body).expect("a table creation body");
    let creator = s.api_as(tokens[0]);
    let id = match creator.send(routes::create_table(&body)) {
        Ok(t) => t.table.table_id,
        Err(e) => panic!("creating a table: {e}"),
    };
    for t in tokens {
        if let Err(e) = s.api_as(t).send(routes::take_seat(&id, None)) {
            panic!("taking a seat: {e}");
        }
    }
    if let Err(e) = creator.send(routes::start_table(&id)) {
        panic!("starting the table: {e}");
    }
    id
}

/// The open prompt of `seat` (or of the caller's only seat).
pub fn prompt_of(s: &Server, token: &str, table: &str, seat: Option<u8>) -> Option<Prompt> {
    match s.api_as(token).send(routes::prompt(table, seat)) {
        Ok(r) => r.prompt,
        Err(e) => panic!("reading the prompt: {e}"),
    }
}

/// Whether the table's game has ended.
pub fn finished(s: &Server, token: &str, table: &str) -> bool {
    s.api_as(token).send(routes::get_table(table)).is_ok_and(|t| t.table.status == "finished")
}

/// Whether a bot should answer `p`: not a Salt window it has already answered (it waits for the
/// window to close).
pub fn needs_answer(p: &Prompt) -> bool {
    !matches!(p.kind, PromptKind::Salt { current: Some(_), .. })
}

/// One bot: answers its prompts at random until the game ends. Returns the answers accepted.
pub fn bot_loop(s: &Server, token: &str, table: &str, seat: Option<u8>, seed: u64) -> u32 {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut accepted = 0;
    let deadline = Instant::now() + Duration::from_secs(600);
    loop {
        assert!(Instant::now() < deadline, "the game did not end in time");
        match prompt_of(s, token, table, seat) {
            Some(p) if needs_answer(&p) => {
                let body = AnswerBody { seat, prompt_id: p.id, answer: random_answer(&p, &mut rng) };
                match s.api_as(token).send(routes::answer(table, &body, &uuid())) {
                    Ok(_) => accepted += 1,
                    // Another seat's answer changed the decision point meanwhile.
                    Err(e) if e.status() == Some(StatusCode::CONFLICT) => {
                        assert!(e.problem().is_some_and(|p| p.kind.is_some()), "{e}")
                    }
                    Err(e) => panic!("answer refused: {e}"),
                }
            }
            _ => {
                if finished(s, token, table) {
                    return accepted;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    }
}

// ---------- gatherings ----------

/// A fresh organiser account (with the server's key); returns its token.
pub fn organiser(s: &Server) -> String {
    named_account(s, &format!("org{}", &uuid()[..10]), "organiser").1
}

/// Creates a gathering; returns its id.
pub fn create(s: &Server, token: &str, name: &str, settings: Value) -> String {
    let (st, v, _) = post(s, token, "/api/v1/gatherings", json!({"name": name, "settings": settings}));
    assert_eq!(st, StatusCode::CREATED, "{v}");
    assert_eq!(v["status"], "registering", "{v}");
    v["gathering_id"].as_str().unwrap().to_string()
}

pub fn add_bots(s: &Server, token: &str, id: &str, count: usize, kind: &str) -> Value {
    let (st, v, _) = post(s, token, &format!("/api/v1/gatherings/{id}/bots"), json!({"count": count, "kind": kind}));
    assert_eq!(st, StatusCode::CREATED, "{v}");
    v
}

/// `start`, `pause`, `resume` or `cancel`; must succeed. Returns the summary.
pub fn control(s: &Server, token: &str, id: &str, action: &str) -> Value {
    let (st, v, _) = post(s, token, &format!("/api/v1/gatherings/{id}/{action}"), json!({}));
    assert_eq!(st, StatusCode::OK, "{action}: {v}");
    v
}

pub fn public(s: &Server, path: &str) -> Value {
    let (st, v, _) = get_public(s, path);
    assert_eq!(st, StatusCode::OK, "{path}: {v}");
    v
}

pub fn summary(s: &Server, id: &str) -> Value {
    public(s, &format!("/api/v1/gatherings/{id}"))
}

pub fn bracket(s: &Server, id: &str) -> Value {
    public(s, &format!("/api/v1/gatherings/{id}/bracket"))
}

pub fn standings(s: &Server, id: &str) -> Vec<Value> {
    public(s, &format!("/api/v1/gatherings/{id}/standings")).as_array().unwrap().clone()
}

/// Polls the summary until the gathering is over (finished or cancelled).
pub fn wait_over(s: &Server, id: &str, limit: Duration) -> Value {
    let started = Instant::now();
    loop {
        let g = summary(s, id);
        if g["status"] == "finished" || g["status"] == "cancelled" {
            return g;
        }
        assert!(started.elapsed() < limit, "the gathering did not end within {limit:?}: {}", g["progress"]);
        std::thread::sleep(Duration::from_millis(200));
    }
}

pub fn strs(v: &Value) -> Vec<String> {
    v.as_array().unwrap().iter().map(|x| x.as_str().unwrap().to_string()).collect()
}

/// The player names of a bracket circle, by seat.
pub fn circle_players(c: &Value) -> Vec<String> {
    c["players"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap().to_string()).collect()
}

/// Every circle of a bracket: (stage, circle view).
pub fn circles(b: &Value) -> Vec<(u64, Value)> {
    b["stages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|st| st["circles"].as_array().unwrap().iter().map(|c| (st["stage"].as_u64().unwrap(), c.clone())))
        .collect()
}

/// Every event of a table as `token` may see it, page by page (`limit` 500). When the game ends
/// between two pages, the next page's cursor belongs to the sequence the complete record
/// replaced (400 `cursor-mismatch`): as the problem says, it pages again from the start, only
/// then (a mismatch at a table still in play fails).
pub fn all_events(s: &Server, token: &str, table: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let mut after: Option<String> = None;
    let mut restarts = 0;
    loop {
        let q = after.as_ref().map(|c| format!("&after={c}")).unwrap_or_default();
        let (st, page, _) = get(s, token, &format!("/api/v1/tables/{table}/events?limit=500{q}"));
        if st == StatusCode::BAD_REQUEST
            && page["type"] == "/problems/cursor-mismatch"
            && restarts < 3
            && get(s, token, &format!("/api/v1/tables/{table}")).1["table"]["status"] == "finished"
        {
            restarts += 1;
            (out, after) = (Vec::new(), None);
            continue;
        }
        assert_eq!(st, StatusCode::OK, "{page}");
        let events = page["events"].as_array().unwrap();
        if events.is_empty() {
            return out;
        }
        out.extend(events.iter().cloned());
        after = Some(page["next"].as_str().unwrap().to_string());
    }
}

/// Alice's seat: her current table (the last circle she plays that has not ended) and her
/// prompt response there (`{seat, prompt, clock}`). `None` while she plays no circle, or while
/// her circle's table is not created yet (the manager records a stage's draw first, then
/// creates its tables, so for a moment the bracket names a table that does not exist).
pub fn alice_prompt(s: &Server, token: &str, gid: &str) -> Option<(String, Value)> {
    let b = bracket(s, gid);
    let table = circles(&b).into_iter().rev().find_map(|(_, c)| {
        (c["status"] == "playing" && circle_players(&c).iter().any(|p| p == "alice"))
            .then(|| c["table_id"].as_str().unwrap().to_string())
    })?;
    let (st, v, _) = get(s, token, &format!("/api/v1/tables/{table}/prompt"));
    if st == StatusCode::NOT_FOUND {
        return None;
    }
    assert_eq!(st, StatusCode::OK, "{v}");
    Some((table, v))
}
