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
    // The client sends back the latest `Flicker-Position` it got, as `flicker-client` and the
    // web UI do: whichever process answers, it reads its own writes (docs/scaling.md).
    let seen = std::cell::RefCell::new(String::new());
    let call = |req: reqwest::blocking::RequestBuilder| -> (StatusCode, Value) {
        let req = req.bearer_auth(&token);
        let req = if seen.borrow().is_empty() { req } else { req.header("flicker-position", seen.borrow().as_str()) };
        let r = send(req);
        if let Some(t) = r.headers().get("flicker-position") {
            *seen.borrow_mut() = t.to_str().unwrap().to_string();
        }
        let (st, v, _) = json_of(r);
        (st, v)
    };
    let c = client();
    let read = |s: &Server, path: &str| call(c.get(s.url(path)));
    // Seen from the other process at once, and played through it.
    let (st, v) = read(&b, &format!("/api/v1/tables/{id}"));
    assert_eq!(st, StatusCode::OK, "{v}");
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for i in 0..20 {
        let s = if i % 2 == 0 { &a } else { &b };
        let prompt = |x: u8| {
            let (_, v) = read(s, &format!("/api/v1/tables/{id}/prompt?seat={x}"));
            let p = &v["prompt"];
            (!p.is_null()).then(|| serde_json::from_value::<final_flicker::Prompt>(p.clone()).unwrap())
        };
        let Some((seat, p)) = (0..2).find_map(|x| prompt(x).map(|p| (x, p))) else { break };
        let body = json!({"seat": seat, "prompt_id": p.id, "answer": random_answer(&p, &mut rng)});
        let url = s.url(&format!("/api/v1/tables/{id}/answers"));
        let (st, v) = call(c.post(url).header("Idempotency-Key", uuid()).json(&body));
        assert_eq!(st, StatusCode::OK, "{v}");
        let (_, va) = read(&a, &format!("/api/v1/tables/{id}?seat=0"));
        let (_, vb) = read(&b, &format!("/api/v1/tables/{id}?seat=0"));
        assert_eq!(va, vb, "the two processes disagree");
    }
}

// ---------- contract details (SQLite) ----------

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

/// A PostgreSQL that cannot be reached stops the server at once, naming the host, the port and
/// the reason (not 30 s of silence and "pool timed out").
#[test]
fn an_unreachable_postgres_is_named_at_once() {
    let started = std::time::Instant::now();
    let out = std::process::Command::new(binary())
        .args(["serve", "--addr", "127.0.0.1:0", "--database-url", "postgres://flicker:x@127.0.0.1:1/flicker"])
        .env("FLICKER_LOG", "warn")
        .env("FLICKER_ORGANISER_KEY", ORGANISER_KEY)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot reach PostgreSQL at 127.0.0.1:1") && err.contains("refused"), "{err}");
    assert!(started.elapsed() < std::time::Duration::from_secs(10), "took {:?}", started.elapsed());
}

/// `flicker organiser-key` prints the store's organiser key, the one a server on it takes.
#[test]
fn organiser_key_prints_the_stored_key() {
    let db = Db::sqlite();
    let key = |db: &Db| {
        let out = std::process::Command::new(binary())
            .args(["organiser-key", "--database-url", &db.url()])
            .env_remove("FLICKER_ORGANISER_KEY")
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    };
    let k = key(&db);
    assert_eq!(k.len(), 32, "{k}");
    assert_eq!(key(&db), k, "generated once");
    let s = Server::start_with(db.clone(), &[("FLICKER_ORGANISER_KEY", "")]);
    let name = format!("o{}", &uuid()[..8]);
    let r = client()
        .post(s.url("/api/v1/accounts"))
        .header("X-Organiser-Key", &k)
        .json(&serde_json::json!({"name": name, "password": "password-1", "role": "organiser"}))
        .send()
        .unwrap();
    assert_eq!(r.status(), reqwest::StatusCode::CREATED, "the printed key registers an organiser");
}
