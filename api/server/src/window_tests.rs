//! Tests of window timing (R10.6.4, R10.6.5), in-process over HTTP
//! against the real SQLite store, the real routes and the real table driver, on a
//! [`ManualClock`]: the clock moves only when a test moves it, from one time the driver waits
//! for to the next, so each answer arrives exactly when the test says.

use crate::accounts::{self, Role};
use crate::auth::TokenKind;
use crate::clock::ManualClock;
use crate::game::Snapshot;
use crate::server::AppState;
use actix_web::{App, test, web};
use chrono::{DateTime, Utc};
use final_flicker::window::{SimultaneousWindow, held_answer, simultaneous_window};
use final_flicker::{Answer, Command, Event, PromptKind};
use rand::SeedableRng;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub(crate) fn start_time() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z").unwrap().with_timezone(&Utc)
}

/// An app on a fresh SQLite file whose server clock is `clock`, with its driver running.
pub(crate) async fn app_on(clock: Arc<ManualClock>) -> web::Data<AppState> {
    let dir = std::env::temp_dir().join(format!("flicker-windows-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let store = crate::store::open(&dir.join("flicker.db").display().to_string()).await.unwrap();
    let app = crate::server::state_with_clock(store, clock).await.unwrap();
    crate::driver::spawn(app.clone());
    app
}

/// Sends `req` to the app's routes: (status, JSON body or `null`, raw body).
async fn send(app: &web::Data<AppState>, req: test::TestRequest) -> (u16, Value, Vec<u8>) {
    let svc = test::init_service(App::new().app_data(app.clone()).configure(crate::server::configure)).await;
    let resp = test::call_service(&svc, req.to_request()).await;
    let status = resp.status().as_u16();
    let body = test::read_body(resp).await.to_vec();
    (status, serde_json::from_slice(&body).unwrap_or(Value::Null), body)
}

fn post(token: &str, uri: &str, body: Value) -> test::TestRequest {
    test::TestRequest::post()
        .uri(uri)
        .insert_header(("Authorization", format!("Bearer {token}")))
        .insert_header(("Idempotency-Key", uuid::Uuid::new_v4().to_string()))
        .set_json(body)
}

/// A registered account of `role` and an access token for it.
async fn account(app: &AppState, role: Role) -> (String, String) {
    let name = format!("u{}", &uuid::Uuid::new_v4().simple().to_string()[..12]);
    accounts::register(app.store.as_ref(), &name, "password-1", role).await.unwrap();
    let token = app.keys.issue(&name, role, TokenKind::Access, 86_400, vec![], None).0;
    (name, token)
}

/// Creates a 2-seat practice table (`extra` merged into the body), seats `holders` in order
/// (`None`: a built-in random bot seated by the creator; `Some(token)`: that account), starts
/// it. Returns the table id and the creator's token.
async fn table(app: &web::Data<AppState>, extra: Value, holders: &[Option<&str>], creator: &str) -> String {
    let mut body = json!({"players": holders.len(), "clocks": {"decision_secs": 60, "reaction_secs": 15}});
    body.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    let (st, v, _) = send(app, post(creator, "/api/v1/tables", body)).await;
    assert_eq!(st, 201, "{v}");
    let id = v["table"]["table_id"].as_str().unwrap().to_string();
    for (seat, h) in holders.iter().enumerate() {
        let (token, body) = match h {
            Some(t) => (*t, json!({"seat": seat})),
            None => (creator, json!({"seat": seat, "bot": "random"})),
        };
        let (st, v, _) = send(app, post(token, &format!("/api/v1/tables/{id}/seats"), body)).await;
        assert_eq!(st, 200, "{v}");
    }
    let (st, v, _) = send(app, post(creator, &format!("/api/v1/tables/{id}/start"), json!({}))).await;
    assert_eq!(st, 200, "{v}");
    id
}

/// Plays the game with random answers (sent as commands, not over HTTP) until `stop` holds of
/// it, before any answer to that decision point.
async fn play_until(app: &AppState, table: &str, stop: impl Fn(&Snapshot) -> bool) -> Arc<Snapshot> {
    let mut rng = rand::rngs::ChaCha8Rng::seed_from_u64(7);
    for _ in 0..2_000 {
        let snap = app.tables.load(app.store.as_ref(), table).await.unwrap();
        if stop(&snap) {
            return snap;
        }
        assert!(!snap.state.is_finished(), "the game ended before the decision point sought");
        let open = final_flicker::prompts(&snap.state);
        let cmd = match open.iter().find(|p| !matches!(p.kind, PromptKind::Salt { current: Some(_), .. })) {
            Some(p) => Command::Answer {
                seat: p.seat,
                prompt: Some(p.id),
                answer: flicker_lab::bot::random_answer(p, &mut rng),
            },
            None => Command::CloseWindow,
        };
        app.tables
            .command(app.store.as_ref(), table, "test", None, |s| crate::tables::decide(s, &cmd, &mut rand::rng()))
            .await
            .unwrap();
    }
    panic!("the decision point sought never came");
}

/// Waits (in real time) until the table driver sleeps on the clock again: the clock's sleepers
/// stay the same for 30 ms.
async fn settle(clock: &ManualClock) {
    let started = Instant::now();
    loop {
        let before = (clock.sleeping(), clock.next_wake());
        tokio::time::sleep(Duration::from_millis(30)).await;
        if before.0 > 0 && before == (clock.sleeping(), clock.next_wake()) {
            return;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "the driver never slept again");
    }
}

/// One step of running the test clock: waits 15 ms (real time) and, when the driver still
/// sleeps on the same wake time as at the last step (`last`), moves the clock to that time.
async fn step_clock(clock: &ManualClock, last: &mut (usize, Option<DateTime<Utc>>)) {
    tokio::time::sleep(Duration::from_millis(15)).await;
    let now = (clock.sleeping(), clock.next_wake());
    if now.0 > 0 && now == *last {
        clock.set(now.1.unwrap());
    }
    *last = now;
}

/// Moves the clock from one time the driver waits for to the next until an event at index
/// `from` or later satisfies `closes`; returns when that happened (server clock): the opening
/// time of the decision point its append opened.
async fn run_until_closed(
    app: &AppState,
    clock: &ManualClock,
    table: &str,
    from: usize,
    closes: impl Fn(&Event) -> bool,
) -> DateTime<Utc> {
    for _ in 0..100 {
        settle(clock).await;
        let snap = app.tables.load(app.store.as_ref(), table).await.unwrap();
        if snap.events[from..].iter().any(&closes) {
            return snap.clock.as_ref().expect("a decision point is open").opened_at;
        }
        let next = clock.next_wake().expect("the driver waits for something");
        clock.set(next);
    }
    panic!("the window never closed");
}

/// The answer body of `seat` passing at its open prompt.
fn pass(snap: &Snapshot, seat: u8) -> Value {
    let p = final_flicker::prompt_for(&snap.state, seat).expect("an open prompt");
    json!({"seat": seat, "prompt_id": p.id, "answer": Answer::Pass})
}

/// An anonymous spectator's read of a table: (raw bodies of the table and its events,
/// `view.awaiting`).
async fn spectator_read(app: &web::Data<AppState>, table: &str) -> (String, Value) {
    let (st, v, raw) = send(app, test::TestRequest::get().uri(&format!("/api/v1/tables/{table}"))).await;
    assert_eq!(st, 200, "{v}");
    let (_, events, raw_events) =
        send(app, test::TestRequest::get().uri(&format!("/api/v1/tables/{table}/events?limit=500"))).await;
    assert!(events["events"].is_array(), "{events}");
    assert!(v.get("clock").is_none(), "R10.6.2: a spectator sees no deadline inside the window: {v}");
    (String::from_utf8([raw, raw_events].concat()).unwrap(), v["view"]["awaiting"].clone())
}

/// R10.6.4, R10.6.5, docs/rules-decisions.md "Windows close at a public time": at a table of
/// people, a simultaneous Salt window closes exactly at its deadline, 15 s after it opened,
/// whether its answer comes at once, after 10 s or never.
#[actix_web::test]
async fn r10_6_4_a_simultaneous_window_closes_at_one_time_however_its_answers_come() {
    let mut lengths = Vec::new();
    for case in ["fast", "slow", "none"] {
        let clock = ManualClock::starting_at(start_time());
        let app = app_on(clock.clone()).await;
        let (_, token) = account(&app, Role::Player).await;
        let id = table(&app, json!({}), &[Some(&token), Some(&token)], &token).await;
        let snap =
            play_until(&app, &id, |s| simultaneous_window(&s.state) == Some(SimultaneousWindow::Answering)).await;
        let opened = snap.clock.as_ref().unwrap().opened_at;
        let seat = final_flicker::prompts(&snap.state)[0].seat;
        let from = snap.events.len();
        settle(&clock).await;
        if case == "slow" {
            clock.advance(chrono::Duration::seconds(10));
            settle(&clock).await;
        }
        if case != "none" {
            let (st, v, _) = send(&app, post(&token, &format!("/api/v1/tables/{id}/answers"), pass(&snap, seat))).await;
            assert_eq!(st, 200, "{case}: {v}");
            let after = app.tables.load(app.store.as_ref(), &id).await.unwrap();
            assert!(after.events[from..].iter().any(|e| matches!(e, Event::SaltAnswered { .. })), "{case}");
        }
        let closed = run_until_closed(&app, &clock, &id, from, |e| matches!(e, Event::AnswersClosed)).await;
        lengths.push((case, (closed - opened).num_milliseconds()));
    }
    assert_eq!(lengths, [("fast", 15_000), ("slow", 15_000), ("none", 15_000)], "R10.6.4: the close time moved");
}

/// R10.6.5, R10.6.2, R10.6.3: in a sequential Salt window at a table of
/// people, a quick Pass changes nothing another viewer sees (the spectator's table and events,
/// byte for byte, and its `awaiting`) before the prompt's public close time, and the prompt
/// closes at its deadline whether the Pass came at once or never.
#[actix_web::test]
async fn r10_6_5_a_sequential_salt_prompt_is_held_until_its_close_time() {
    let mut lengths = Vec::new();
    for case in ["fast", "none"] {
        let clock = ManualClock::starting_at(start_time());
        let app = app_on(clock.clone()).await;
        let (_, token) = account(&app, Role::Player).await;
        let settings = json!({"settings": {"salt_window": "sequential"}});
        let id = table(&app, settings, &[Some(&token), Some(&token)], &token).await;
        let snap = play_until(&app, &id, |s| {
            final_flicker::prompts(&s.state).first().is_some_and(|p| matches!(p.kind, PromptKind::Salt { .. }))
        })
        .await;
        let opened = snap.clock.as_ref().unwrap().opened_at;
        let seat = final_flicker::prompts(&snap.state)[0].seat;
        let from = snap.events.len();
        settle(&clock).await;
        let (seen, awaiting) = spectator_read(&app, &id).await;
        assert_eq!(awaiting["awaiting"], "window", "R10.6.2: {awaiting}");
        if case == "fast" {
            let (st, v, _) = send(&app, post(&token, &format!("/api/v1/tables/{id}/answers"), pass(&snap, seat))).await;
            assert_eq!(st, 200, "{v}");
            settle(&clock).await;
            let after = app.tables.load(app.store.as_ref(), &id).await.unwrap();
            assert_eq!(held_answer(&after.state), Some(seat), "the Pass is held");
            assert_eq!(spectator_read(&app, &id).await, (seen.clone(), awaiting.clone()), "a spectator saw the Pass");
            // One moment before the close time, still nothing.
            clock.set(opened + chrono::Duration::milliseconds(14_999));
            settle(&clock).await;
            assert_eq!(spectator_read(&app, &id).await.0, seen, "a spectator saw the Pass before the close");
        }
        let closed = run_until_closed(&app, &clock, &id, from, |e| matches!(e, Event::Passed { .. })).await;
        let snap = app.tables.load(app.store.as_ref(), &id).await.unwrap();
        let timed_out = snap.events[from..].iter().any(|e| matches!(e, Event::TimedOut { .. }));
        assert_eq!(timed_out, case == "none", "{case}: only an unanswered prompt times out");
        lengths.push((case, (closed - opened).num_milliseconds()));
    }
    assert_eq!(lengths, [("fast", 15_000), ("none", 15_000)], "R10.6.5: the close time moved");
}

/// R10.6.5: a practice table's minimum window is decided at the start from
/// its seats: 1,500 ms (windows held) when a seat is held by anything but a built-in bot or an
/// account with the `bot` role, else 0; a minimum given by the creator wins either way.
#[actix_web::test]
async fn r10_6_5_the_start_decides_a_practice_tables_minimum_window() {
    let clock = ManualClock::starting_at(start_time());
    let app = app_on(clock).await;
    let (_, person) = account(&app, Role::Player).await;
    let (_, program) = account(&app, Role::Bot).await;
    let cases: [(Value, [Option<&str>; 2], u64, bool); 5] = [
        (json!({}), [Some(&person), None], 1500, true),
        (json!({}), [Some(&program), None], 0, false),
        (json!({}), [None, None], 0, false),
        (json!({"reaction_window_min_ms": 0}), [Some(&person), None], 0, false),
        (json!({"reaction_window_min_ms": 700}), [None, None], 700, true),
    ];
    for (extra, holders, min, hold) in cases {
        let id = table(&app, extra.clone(), &holders, &person).await;
        let (st, v, _) = send(&app, test::TestRequest::get().uri(&format!("/api/v1/tables/{id}"))).await;
        assert_eq!(st, 200);
        let info = &v["table"];
        assert_eq!(
            (info["reaction_window_min_ms"].as_u64(), info["settings"]["hold_windows"].as_bool()),
            (Some(min), Some(hold)),
            "{extra} with {holders:?}"
        );
        let snap = app.tables.load(app.store.as_ref(), &id).await.unwrap();
        assert_eq!(snap.state.settings().map(|s| s.hold_windows), Some(hold), "the game records it");
    }
}

/// R10.6.4, R10.6.5: 2-bot gatherings with classes and a minimum window played to their end on
/// the test clock, one with simultaneous and one with sequential Salt windows: every
/// simultaneous window and every held reaction prompt (Salts asked in turn, counter-Salts, class
/// reactions) closes exactly at its deadline, never by a time-out (the bots answered), and every
/// deadline is at least the minimum window.
#[actix_web::test]
async fn r10_6_5_held_windows_and_prompts_close_exactly_at_their_deadlines() {
    let (windows, _) = held_game(final_flicker::SaltWindow::Simultaneous).await;
    assert!(windows > 0, "some simultaneous windows were played");
    let (_, held) = held_game(final_flicker::SaltWindow::Sequential).await;
    assert!(held > 0, "some answers were held");
}

/// Plays one such gathering and checks it: (simultaneous windows, held answers) seen.
async fn held_game(salt_window: final_flicker::SaltWindow) -> (usize, usize) {
    use crate::gatherings::GatheringSettings;
    let clock = ManualClock::starting_at(start_time());
    let app = app_on(clock.clone()).await;
    let s = GatheringSettings {
        reaction_window_min_ms: Some(40),
        round_limit: 10,
        classes: true,
        clocks: crate::clocks::Clocks { decision_secs: 60, reaction_secs: 3 },
        salt_window,
        ..Default::default()
    };
    let id = crate::gathering_tests::start(&app, 2, s).await;
    crate::driver::trigger_reconcile(app.clone(), id.clone());
    // Run the clock from one due time to the next until the gathering is over.
    let started = Instant::now();
    let mut last = (0, None);
    let g = loop {
        let g = crate::gatherings::load(app.store.as_ref(), &id).await.unwrap().unwrap();
        if g.over() {
            break g;
        }
        assert!(started.elapsed() < Duration::from_secs(240), "the gathering did not finish");
        step_clock(&clock, &mut last).await;
    };
    let table = &g.stages[0].circles[0].0.table_id;
    let snap = app.tables.load(app.store.as_ref(), table).await.unwrap();
    assert!(snap.info.settings.hold_windows);
    assert!(!snap.events.iter().any(|e| matches!(e, Event::TimedOut { .. })), "no time-out");
    let (mut windows, mut held) = (0, 0);
    for c in closes_after(&app, table, 0).await {
        assert!(c.deadline >= 40, "a held point's deadline is at least the minimum window: {c:?}");
        assert_eq!(c.closed, c.deadline, "a held point closed off its deadline: {c:?}");
        if c.held {
            held += 1;
        } else {
            assert!(c.window, "{c:?}");
            windows += 1;
        }
    }
    (windows, held)
}

/// The stored events of a table after the first `from`: (type, actor, whether it carries an
/// idempotency key).
async fn stored_from(app: &AppState, table: &str, from: usize) -> Vec<(String, Option<String>, bool)> {
    let all =
        app.store.read_stream(&crate::tables::stream_of(table), crate::store::StreamVersion::new(1)).await.unwrap();
    all.iter()
        .skip(from)
        .map(|e| (e.event_type.clone(), e.metadata.actor.clone(), e.metadata.command_key.is_some()))
        .collect()
}

/// R10.6.5, R10.6.2 and docs/rules-decisions.md 55 (auto-pass): in a sequential Salt window in
/// which the asked seat holds no 5, the server's auto-pass is told from a hand-given Pass by
/// nobody: the same events stored (the same actor, an idempotency key), nothing seen by a
/// spectator before the close, and the close exactly at the deadline, 15 s after the opening.
#[actix_web::test]
async fn r10_6_5_an_auto_pass_cannot_be_told_from_a_hand_given_pass() {
    let mut seen_by_case = Vec::new();
    for case in ["hand", "auto"] {
        let clock = ManualClock::starting_at(start_time());
        let app = app_on(clock.clone()).await;
        let (name, token) = account(&app, Role::Player).await;
        let settings = json!({"settings": {"salt_window": "sequential"}});
        let id = table(&app, settings, &[Some(&token), Some(&token)], &token).await;
        let snap = play_until(&app, &id, |s| {
            final_flicker::prompts(&s.state).first().is_some_and(|p| {
                matches!(&p.kind, PromptKind::Salt { fives, confirm: false, current: None, .. } if fives.is_empty())
            })
        })
        .await;
        let opened = snap.clock.as_ref().unwrap().opened_at;
        let seat = final_flicker::prompts(&snap.state)[0].seat;
        let from = snap.events.len();
        settle(&clock).await;
        let (seen, awaiting) = spectator_read(&app, &id).await;
        assert_eq!(awaiting["awaiting"], "window", "R10.6.2: {awaiting}");
        let stored_before = stored_from(&app, &id, 0).await.len();
        if case == "hand" {
            let (st, v, _) = send(&app, post(&token, &format!("/api/v1/tables/{id}/answers"), pass(&snap, seat))).await;
            assert_eq!(st, 200, "{v}");
        } else {
            let put = test::TestRequest::put()
                .uri("/api/v1/me/preferences")
                .insert_header(("Authorization", format!("Bearer {token}")))
                .set_json(json!({"auto_pass": true}));
            let (st, v, _) = send(&app, put).await;
            assert_eq!((st, v), (200, json!({"auto_pass": true})));
        }
        settle(&clock).await;
        let after = app.tables.load(app.store.as_ref(), &id).await.unwrap();
        assert_eq!(held_answer(&after.state), Some(seat), "{case}: the Pass is held");
        assert_eq!(
            spectator_read(&app, &id).await,
            (seen.clone(), awaiting.clone()),
            "{case}: a spectator saw the Pass"
        );
        clock.set(opened + chrono::Duration::milliseconds(14_999));
        settle(&clock).await;
        assert_eq!(spectator_read(&app, &id).await.0, seen, "{case}: a spectator saw the Pass before the close");
        let closed = run_until_closed(&app, &clock, &id, from, |e| matches!(e, Event::Passed { .. })).await;
        let snap = app.tables.load(app.store.as_ref(), &id).await.unwrap();
        assert!(
            !snap.events[from..].iter().any(|e| matches!(e, Event::TimedOut { .. })),
            "{case}: answered, not timed out"
        );
        let stored: Vec<_> = stored_from(&app, &id, stored_before).await;
        let answer = stored.first().unwrap_or_else(|| panic!("{case}: no answer stored"));
        assert_eq!(answer.0, "answer_held", "{case}: {stored:?}");
        assert_eq!(
            (answer.1.as_deref(), answer.2),
            (Some(name.as_str()), true),
            "{case}: stored as the player's own answer"
        );
        let shape: Vec<(String, bool)> =
            stored.iter().map(|(t, a, k)| (t.clone(), a.as_deref() == Some(name.as_str()) && *k)).collect();
        seen_by_case.push(((closed - opened).num_milliseconds(), shape.into_iter().take(2).collect::<Vec<_>>()));
    }
    assert_eq!(seen_by_case[0], seen_by_case[1], "hand and auto differ");
    assert_eq!(seen_by_case[0].0, 15_000, "R10.6.5: the close time moved");
}

/// R10.10.4, R10.7.1: a disconnection is not a concession. A seated player opens its live
/// stream, reads from it and goes away (the connection drops); its seat stays its own, the
/// clock keeps running and each deadline answers for it by default (a time-out), and nothing
/// concedes for it: with abandonment off (R10.7.4, the only path from time-outs to a
/// concession) the game goes on through time-out after time-out.
#[actix_web::test]
async fn r10_10_4_a_disconnection_is_not_a_concession() {
    use actix_web::body::MessageBody;
    let clock = ManualClock::starting_at(start_time());
    let app = app_on(clock.clone()).await;
    let (a_name, a) = account(&app, Role::Player).await;
    let (_, b) = account(&app, Role::Player).await;
    let id = table(&app, json!({"abandonment": 0}), &[Some(&a), Some(&b)], &a).await;
    {
        let svc = test::init_service(App::new().app_data(app.clone()).configure(crate::server::configure)).await;
        let req = test::TestRequest::get()
            .uri(&format!("/api/v1/tables/{id}/stream"))
            .insert_header(("Authorization", format!("Bearer {a}")))
            .to_request();
        let resp = test::call_service(&svc, req).await;
        assert_eq!(resp.status().as_u16(), 200);
        let mut body = std::pin::pin!(resp.into_body());
        let first = std::future::poll_fn(|cx| body.as_mut().poll_next(cx)).await;
        assert!(matches!(first, Some(Ok(ref b)) if !b.is_empty()), "the stream sent the table's events");
    } // The client goes away: the stream's connection is dropped.
    let from = app.tables.load(app.store.as_ref(), &id).await.unwrap().events.len();
    let mut timed_out = 0;
    for _ in 0..60 {
        settle(&clock).await;
        let snap = app.tables.load(app.store.as_ref(), &id).await.unwrap();
        timed_out =
            snap.events[from..].iter().filter(|e| matches!(e, Event::TimedOut { seats } if seats.contains(&0))).count();
        if timed_out >= 4 || snap.state.is_finished() {
            break;
        }
        clock.set(clock.next_wake().expect("the driver waits for a deadline"));
    }
    let snap = app.tables.load(app.store.as_ref(), &id).await.unwrap();
    assert!(timed_out >= 4, "R10.7.1: the clock kept running for the disconnected seat: {timed_out} time-outs");
    assert!(
        !snap.events.iter().any(|e| e.type_name().contains("conce")
            || matches!(e, Event::EliminationStarted { cause: final_flicker::EliminationCause::Conceded, .. })),
        "R10.10.4: nothing conceded"
    );
    assert!(!snap.state.is_finished() && snap.state.is_lit(0), "seat 0 is still Lit");
    assert_eq!(snap.info.seats[0].as_deref(), Some(a_name.as_str()), "and still its own");
}

/// One held reaction point's close, as stored.
#[derive(Debug)]
struct Close {
    /// A held answer (else a simultaneous window's `answers_closed`).
    held: bool,
    /// The point was a simultaneous window (its clock mark says so).
    window: bool,
    /// When the point that followed it opened, in ms after it opened.
    closed: i64,
    /// Its deadline, in ms after it opened.
    deadline: i64,
}

/// The held reaction points of `table` that opened at stored event `from` or later and have
/// closed (a simultaneous window's `answers_closed` or a held answer), each with the next
/// decision point's opening (the append that closed it) against its deadline.
async fn closes_after(app: &AppState, table: &str, from: usize) -> Vec<Close> {
    let stored =
        app.store.read_stream(&crate::tables::stream_of(table), crate::store::StreamVersion::new(1)).await.unwrap();
    let mut mark: Option<(usize, crate::clocks::ClockMark)> = None;
    let mut out = Vec::new();
    for (i, e) in stored.iter().enumerate() {
        if let Some(c) = crate::clocks::mark_of(&e.metadata).unwrap() {
            mark = Some((i, c));
        }
        let held = e.event_type == "answer_held";
        if !(held || e.event_type == "answers_closed") {
            continue;
        }
        let (opened, m) = mark.clone().expect("a decision point was open");
        if opened < from {
            continue;
        }
        let start = if held { i + 1 } else { i };
        if let Some(next) = stored[start..].iter().find_map(|x| crate::clocks::mark_of(&x.metadata).unwrap()) {
            out.push(Close {
                held,
                window: m.window,
                closed: (next.opened_at - m.opened_at).num_milliseconds(),
                deadline: (m.deadline - m.opened_at).num_milliseconds(),
            });
        }
    }
    out
}

/// R10.6.5, docs/rules-decisions.md 76: a practice table of one person and two built-in bots
/// (bot delay 2 s) holds its windows by default; once the person's concession has taken effect,
/// every seat still in the game is a bot and held points close once their answers are in and
/// the bot delay has passed: 2 s after they opened, not at their 15 s deadlines. With the same
/// minimum window set by the creator, they keep closing exactly at their deadlines.
#[actix_web::test]
async fn r10_6_5_a_default_minimum_window_lapses_once_no_person_is_left_in_the_game() {
    for explicit in [false, true] {
        let clock = ManualClock::starting_at(start_time());
        let app = app_on(clock.clone()).await;
        let (_, token) = account(&app, Role::Player).await;
        let extra = if explicit {
            json!({"reaction_window_min_ms": 1500, "bot_delay_ms": 2000})
        } else {
            json!({"bot_delay_ms": 2000})
        };
        let id = table(&app, extra, &[Some(&token), None, None], &token).await;
        let snap = app.tables.load(app.store.as_ref(), &id).await.unwrap();
        assert!(snap.state.settings().is_some_and(|s| s.hold_windows), "a person is seated: windows held");
        settle(&clock).await;
        let (st, v, _) = send(&app, post(&token, &format!("/api/v1/tables/{id}/concede"), json!({}))).await;
        assert_eq!(st, 200, "{v}");
        // Run the clock from one time the driver waits for to the next until three held points
        // opened after the person's concession took effect (R10.10.2: once the action in
        // progress is over) have closed, or the game is over.
        let started = Instant::now();
        let mut last = (0, None);
        let closes = loop {
            let stream = crate::tables::stream_of(&id);
            let stored = app.store.read_stream(&stream, crate::store::StreamVersion::new(1)).await.unwrap();
            let out = stored.iter().position(|e| e.event_type == "eliminated" && e.payload["seat"] == 0);
            let closes = match out {
                Some(i) => closes_after(&app, &id, i + 1).await,
                None => Vec::new(),
            };
            let snap = app.tables.load(app.store.as_ref(), &id).await.unwrap();
            if closes.len() >= 3 || snap.state.is_finished() {
                assert!(out.is_some(), "the person's concession took effect");
                break closes;
            }
            assert!(started.elapsed() < Duration::from_secs(120), "the game did not go on");
            step_clock(&clock, &mut last).await;
        };
        assert!(!closes.is_empty(), "explicit {explicit}: no held point closed after the concession");
        for c in &closes {
            assert_eq!(c.deadline, 15_000, "the reaction clock");
            if explicit {
                assert_eq!(c.closed, c.deadline, "an explicit minimum window is kept: {closes:?}");
            } else {
                assert_eq!(c.closed, 2_000, "the default hold lapsed with the person: the bot delay: {closes:?}");
            }
        }
    }
}
