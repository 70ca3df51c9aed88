//! The leak scanner for Let's Call the Exorcist (R10.8, X11.1, X11.5): random practice tables of
//! 4-8 seats, played through the real routes and the real store (in-process, SQLite, no driver:
//! the scanner answers every prompt itself, half through `POST /answers` with the seat's token,
//! half as table commands). At sampled moments, for every reader (each seat with its token, a
//! spectator account, anonymous), it reads every path that shows the game (the table, the
//! prompt, every events page, the replay step at the latest step and every step's event, the
//! live stream as it came, the problem documents of refused answers) and checks each body with
//! the engine's leak checker ([`exorcist::LeakChecker`]), built from the unredacted events only:
//! no Role tile, card identity or row position, peek result or mini-game pick may reach a reader
//! that may not know it.
//!
//! `FLICKER_EXORCIST_LEAK_GAMES` (default 200) and `FLICKER_LEAK_SEED` (default 6) override the
//! run.

use crate::accounts::Role;
use crate::auth::TokenKind;
use crate::clocks::Clocks;
use crate::game::{Exorcist, GameName};
use crate::tables::{self, SeatHolder, TableEvent};
use actix_web::App;
use actix_web::test as at;
use actix_web::test::TestRequest;
use exorcist::{CardKind, LeakChecker, Settings};
use flicker_game::{Game, Viewer};
use rand::rngs::ChaCha8Rng;
use rand::seq::IndexedRandom;
use rand::{RngExt, SeedableRng};
use serde_json::{Value, json};
use std::time::Instant;

type State = <Exorcist as Game>::State;

/// One reader of a table.
#[derive(Debug, Clone)]
struct Reader {
    label: String,
    token: Option<String>,
    viewer: Viewer,
}

#[derive(Debug, Default)]
struct Counts {
    games: usize,
    players: [usize; 9],
    answers: usize,
    by_route: usize,
    moments: usize,
    bodies: usize,
    events: usize,
    stream_messages: usize,
    problems: usize,
}

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Every card's and Role's name, as a problem's free text could spell it.
pub(crate) fn hidden_words() -> Vec<String> {
    let mut out: Vec<String> = CardKind::ALL.iter().map(|k| k.name().to_string()).collect();
    out.extend(["innocent", "possessed"].map(String::from));
    out
}

/// The frames' `event:` and `data:` of an SSE body read so far (whole frames only).
pub(crate) fn stream_data(body: &[u8]) -> Vec<(String, Value)> {
    let text = String::from_utf8_lossy(body);
    let complete = match text.rfind("\n\n") {
        Some(i) => &text[..i],
        None => return Vec::new(),
    };
    complete
        .split("\n\n")
        .filter_map(|f| {
            let data = f.lines().find_map(|l| l.strip_prefix("data:"))?;
            let event = f.lines().find_map(|l| l.strip_prefix("event:")).unwrap_or("").trim().to_string();
            Some((event, serde_json::from_str(data.trim()).expect("a stream message is JSON")))
        })
        .collect()
}

#[actix_web::test]
async fn the_exorcist_leak_scanner_finds_nothing() {
    let games = env_or("FLICKER_EXORCIST_LEAK_GAMES", 200) as usize;
    let seed = env_or("FLICKER_LEAK_SEED", 6);
    println!("exorcist leak scan: {games} games, seed {seed} (FLICKER_EXORCIST_LEAK_GAMES, FLICKER_LEAK_SEED)");
    let started = Instant::now();
    let shm = std::path::Path::new("/dev/shm");
    let base = if shm.is_dir() { shm.to_path_buf() } else { std::env::temp_dir() };
    let dir = base.join(format!("flicker-exorcist-leak-scan-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let store = crate::store::open(&dir.join("flicker.db").display().to_string()).await.unwrap();
    let app = crate::server::state(store).await.unwrap();
    let svc = at::init_service(App::new().app_data(app.clone()).configure(crate::server::configure)).await;
    let words = hidden_words();
    let mut counts = Counts::default();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for g in 0..games {
        let n = 4 + (g % 5) as u8;
        let settings = Settings { players: n, target: [3, 5, 7][g % 3], first_seeker: None, hold_windows: g % 4 == 0 };
        let id = uuid::Uuid::new_v4().to_string();
        let names: Vec<String> = (0..n).map(|i| format!("x{i}")).collect();
        let created = TableEvent::TableCreated {
            table_id: id.clone(),
            game: GameName::LetsCallTheExorcist,
            creator: names[0].clone(),
            settings: settings.clone(),
            practice: true,
            position: None,
            gathering: None,
            seated: names.iter().map(|name| SeatHolder { name: name.clone(), bot: None }).collect(),
            clocks: Clocks { decision_secs: 86_400, reaction_secs: 86_400 },
            reaction_window_min_ms: 0,
            min_window_at_start: false,
            bot_delay_ms: 0,
            abandonment: 0,
        };
        let start = Exorcist::create(&settings, &mut rng).expect("create");
        tables::create_with_game::<Exorcist>(app.store.as_ref(), &id, &created, &start, "x0", app.clock.now())
            .await
            .expect("create table");
        for (name, role) in names.iter().map(|n| (n.clone(), Role::Player)).chain([("xwatch".into(), Role::Spectator)])
        {
            crate::accounts::ensure_unusable(app.store.as_ref(), &name, role).await.expect("account");
        }
        let token = |name: &str, role: Role| app.keys.issue(name, role, TokenKind::Access, 86_400, vec![], None).0;
        let mut readers: Vec<Reader> = (0..n)
            .map(|seat| Reader {
                label: names[seat as usize].clone(),
                token: Some(token(&names[seat as usize], Role::Player)),
                viewer: Viewer::Seat { seat },
            })
            .collect();
        readers.push(Reader {
            label: "xwatch".into(),
            token: Some(token("xwatch", Role::Spectator)),
            viewer: Viewer::Spectator,
        });
        readers.push(Reader { label: "anonymous".into(), token: None, viewer: Viewer::Spectator });
        let req = |r: &Reader, t: TestRequest| match &r.token {
            Some(tok) => t.insert_header(("Authorization", format!("Bearer {tok}"))),
            None => t,
        };
        // Live streams of every reader in a fifth of the games, read as they come.
        let mut streams = Vec::new();
        if g % 5 == 0 {
            for r in &readers {
                let resp = at::call_service(
                    &svc,
                    req(r, TestRequest::get().uri(&format!("/api/v1/tables/{id}/stream"))).to_request(),
                )
                .await;
                assert_eq!(resp.status(), 200, "a stream opens");
                let buf = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
                let sink = buf.clone();
                let task = actix_web::rt::spawn(async move {
                    let mut body = Box::pin(resp.into_body());
                    while let Some(Ok(chunk)) =
                        std::future::poll_fn(|cx| actix_web::body::MessageBody::poll_next(body.as_mut(), cx)).await
                    {
                        sink.lock().expect("buf").extend_from_slice(&chunk);
                    }
                });
                streams.push((buf, task, 0usize));
            }
        }
        let mut checker = LeakChecker::new();
        let mut state = State::default();
        let mut learned = 0;
        let mut pending: Vec<(usize, Value)> = Vec::new();
        // About two moments a game, whole histories read at each.
        let sample = 2.0 / (20.0 * f64::from(n));
        loop {
            let snap = app.exorcist_tables.load(app.store.as_ref(), &id).await.expect("the table");
            while learned < snap.events.len() {
                let before = state.clone();
                Exorcist::apply(&mut state, &snap.events[learned]);
                checker.learn(&before, &snap.events[learned], &state);
                learned += 1;
            }
            if Exorcist::is_finished(&state) {
                break;
            }
            let what = |r: &Reader, p: &str| format!("game {g}, {} ({:?}) at event {learned}: {p}", r.label, r.viewer);
            let check = |counts: &mut Counts, json: &Value, viewer: Viewer, picks: bool, what: String| {
                counts.bodies += 1;
                checker.check_json(json, &state, viewer, picks).unwrap_or_else(|e| panic!("leak: {what}: {e}: {json}"));
            };
            // The answers' responses, seen by the seat that answered.
            for (seat, body) in std::mem::take(&mut pending) {
                check(
                    &mut counts,
                    &body,
                    Viewer::Seat { seat: seat as u8 },
                    false,
                    format!("game {g}, an answer's response"),
                );
            }
            // The streams so far.
            for (s, (buf, _, seen)) in streams.iter_mut().enumerate() {
                let frames = stream_data(&buf.lock().expect("buf"));
                for (event, data) in &frames[*seen..] {
                    counts.stream_messages += 1;
                    check(&mut counts, data, readers[s].viewer, event == "tie_revealed", what(&readers[s], "stream"));
                }
                *seen = frames.len();
            }
            if rng.random_bool(sample.min(1.0)) {
                counts.moments += 1;
                // The checker can fail: the omniscient view shown to a seat is a leak.
                let all = serde_json::to_value(Exorcist::view(&state, Viewer::Everything)).expect("json");
                assert!(
                    checker.check_json(&all, &state, Viewer::Seat { seat: 0 }, false).is_err(),
                    "the checker lets the omniscient view through"
                );
                for r in &readers {
                    let get = |uri: String| {
                        let t = req(r, TestRequest::get().uri(&uri));
                        async { at::call_and_read_body(&svc, t.to_request()).await }
                    };
                    let body = get(format!("/api/v1/tables/{id}")).await;
                    let j: Value = serde_json::from_slice(&body).expect("the table");
                    assert_eq!(j["table"]["game"], "lets-call-the-exorcist");
                    check(&mut counts, &j, r.viewer, false, what(r, "table"));
                    if r.token.is_some() {
                        let body = get(format!("/api/v1/tables/{id}/prompt")).await;
                        let j: Value = serde_json::from_slice(&body).expect("the prompt");
                        check(&mut counts, &j, r.viewer, false, what(r, "prompt"));
                    }
                    let mut after = String::new();
                    loop {
                        let body = get(format!("/api/v1/tables/{id}/events?limit=40{after}")).await;
                        let page: Value = serde_json::from_slice(&body).expect("an events page");
                        let items = page["events"].as_array().expect("events");
                        if items.is_empty() {
                            break;
                        }
                        for e in items {
                            counts.events += 1;
                            let reveal = e["event"]["type"] == "tie_revealed";
                            check(&mut counts, &e["event"], r.viewer, reveal, what(r, "events page"));
                        }
                        after = format!("&after={}", page["next"].as_str().expect("next"));
                    }
                    let body = get(format!("/api/v1/tables/{id}/replay")).await;
                    let j: Value = serde_json::from_slice(&body).expect("a replay step");
                    let reveal = j["event"]["type"] == "tie_revealed";
                    check(&mut counts, &j, r.viewer, reveal, what(r, "replay step"));
                    // Every step at once in one moment of four (the events pages read the same).
                    if counts.moments % 4 == 1 {
                        let body = get(format!("/api/v1/tables/{id}/replay/steps")).await;
                        let j: Value = serde_json::from_slice(&body).expect("replay steps");
                        for step in j["steps"].as_array().expect("steps") {
                            let reveal = step["event"]["type"] == "tie_revealed";
                            check(&mut counts, &step["event"], r.viewer, reveal, what(r, "replay steps"));
                        }
                    }
                }
            }
            // The next command: an open prompt's answer, else the held window's close.
            let prompts = Exorcist::prompts(&state);
            let (actor, cmd, route) = match prompts.choose(&mut rng) {
                Some(p) => {
                    let answer = *p.legal_answers().choose(&mut rng).expect("a legal answer");
                    let seat = p.seat;
                    // A refused answer (a stale prompt, or another seat's card... ) shows nothing.
                    if rng.random_bool(0.05) {
                        let bad = json!({"seat": seat, "prompt_id": p.id.0 + 1000, "answer": answer});
                        let r = &readers[seat as usize];
                        let t = req(r, TestRequest::post().uri(&format!("/api/v1/tables/{id}/answers")))
                            .insert_header(("Idempotency-Key", uuid::Uuid::new_v4().to_string()))
                            .set_json(&bad);
                        let resp = at::call_service(&svc, t.to_request()).await;
                        assert!(resp.status().is_client_error(), "a stale answer is refused");
                        let body = at::read_body(resp).await;
                        let text = String::from_utf8_lossy(&body).to_lowercase();
                        assert!(
                            !words.iter().any(|w| text.contains(w.as_str())),
                            "leak: a problem names a card or Role: {text}"
                        );
                        let j: Value = serde_json::from_slice(&body).expect("a problem");
                        check(&mut counts, &j, r.viewer, false, what(r, "problem"));
                        counts.problems += 1;
                    }
                    (names[seat as usize].clone(), Exorcist::answer_command(p, answer), Some((seat, p.id, answer)))
                }
                None => ("system:clock".to_string(), Exorcist::close_window_command(&state), None),
            };
            counts.answers += 1;
            match route {
                Some((seat, prompt, answer)) if rng.random_bool(0.5) => {
                    let r = &readers[seat as usize];
                    let body = json!({"seat": seat, "prompt_id": prompt, "answer": answer});
                    let t = req(r, TestRequest::post().uri(&format!("/api/v1/tables/{id}/answers")))
                        .insert_header(("Idempotency-Key", uuid::Uuid::new_v4().to_string()))
                        .set_json(&body);
                    let resp = at::call_service(&svc, t.to_request()).await;
                    let status = resp.status();
                    let body = at::read_body(resp).await;
                    assert_eq!(status, 200, "game {g}: answer refused: {}", String::from_utf8_lossy(&body));
                    pending.push((seat as usize, serde_json::from_slice(&body).expect("a table")));
                    counts.by_route += 1;
                }
                _ => {
                    app.exorcist_tables
                        .command(app.store.as_ref(), &id, &actor, None, |s| tables::decide(s, &cmd, &mut rand::rng()))
                        .await
                        .expect("a command");
                }
            }
            let _ = app.changes.send(tables::stream_of(&id));
        }
        for (_, task, _) in streams {
            task.abort();
        }
        counts.games += 1;
        counts.players[n as usize] += 1;
    }
    let c = &counts;
    println!(
        "exorcist leak scan: {} games ({:?} by players), {} answers ({} through the route), {} moments, {} bodies checked, \
         {} events, {} stream messages, {} refused answers; {:.1} s",
        c.games,
        &c.players[4..],
        c.answers,
        c.by_route,
        c.moments,
        c.bodies,
        c.events,
        c.stream_messages,
        c.problems,
        started.elapsed().as_secs_f64()
    );
    assert!(c.games >= games && c.moments > 0 && c.stream_messages > 0 && c.problems > 0);
    let _ = std::fs::remove_dir_all(&dir);
}
