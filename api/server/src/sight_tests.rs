//! Regression tests over HTTP (in-process, the real SQLite store and routes) of what a
//! viewer sees and when: the commentary view (R10.8, R3.2.1), the clock under a seconds delay
//! (R10.6.3, R10.6.4), a practice table's position (R10.13) and eliminated seats (R10.8). Games
//! are played step by step by the test (no driver, no bots); delays in seconds run on a
//! [`ManualClock`] set from the events' recorded times.

use crate::accounts::Role;
use crate::auth::TokenKind;
use crate::clock::ManualClock;
use crate::gatherings::{GatheringEvent, GatheringSettings};
use crate::server::AppState;
use crate::spectate;
use crate::store::Metadata;
use crate::tables::{self, SeatHolder, TableEvent, TableGathering};
use actix_web::{App, test, web};
use final_flicker::leaks::{check_event, check_view};
use final_flicker::settings::{SaltWindow, Settings};
use final_flicker::{Answer, Command, Event, PromptKind, State, Viewer, prompts};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use serde_json::Value;

/// An app without a driver whose clock the test sets.
pub(crate) async fn app_with_clock() -> (web::Data<AppState>, std::sync::Arc<ManualClock>) {
    let dir = std::env::temp_dir().join(format!("flicker-sight-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let store = crate::store::open(&dir.join("flicker.db").display().to_string()).await.unwrap();
    let clock = ManualClock::at(chrono::Utc::now());
    let app = crate::server::state_with_clock(store, clock.clone()).await.unwrap();
    (app, clock)
}

/// An access token for `name` (a player account, created unless it exists: tokens are checked
/// against live accounts).
pub(crate) async fn token(app: &AppState, name: &str) -> String {
    crate::accounts::ensure_unusable(app.store.as_ref(), name, Role::Player).await.unwrap();
    app.keys.issue(name, Role::Player, TokenKind::Access, 86_400, vec![], None).0
}

/// A gathering (organised by `org`, never started) and one table of it with accounts `p0..`
/// seated, its game created; returns the table id.
pub(crate) async fn gathering_table(app: &AppState, settings: &Settings, g: GatheringSettings, seed: u64) -> String {
    let gid = uuid::Uuid::new_v4().to_string();
    let created = GatheringEvent::GatheringCreated {
        gathering_id: gid.clone(),
        name: "sight".into(),
        organiser: "org".into(),
        settings: g,
    };
    let e = crate::gatherings::to_new(&created, "org");
    app.store
        .append(&crate::gatherings::stream_of(&gid), crate::store::ExpectedVersion::NO_STREAM, vec![e])
        .await
        .unwrap();
    let id = uuid::Uuid::new_v4().to_string();
    let n = settings.players as usize;
    let table = TableEvent::TableCreated {
        table_id: id.clone(),
        game: Default::default(),
        creator: "org".into(),
        settings: settings.clone(),
        practice: false,
        position: None,
        gathering: Some(TableGathering { gathering_id: gid, stage: 1, circle: 1 }),
        seated: (0..n).map(|i| SeatHolder { name: format!("p{i}"), bot: None }).collect(),
        clocks: Default::default(),
        reaction_window_min_ms: 0,
        bot_delay_ms: 0,
        abandonment: 0,
        min_window_at_start: false,
    };
    let game = final_flicker::create(settings, &mut ChaCha8Rng::seed_from_u64(seed)).unwrap();
    tables::create_with_game::<crate::game::Served>(app.store.as_ref(), &id, &table, &game, "org", app.clock.now())
        .await
        .unwrap();
    id
}

/// Plays one command (a random legal answer, or closes a window); returns the events.
pub(crate) async fn step(app: &AppState, id: &str, rng: &mut ChaCha8Rng) -> Vec<Event> {
    let snap = app.tables.load(app.store.as_ref(), id).await.unwrap();
    let open = prompts(&snap.state);
    let answerable: Vec<_> =
        open.iter().filter(|p| !matches!(p.kind, PromptKind::Salt { current: Some(_), .. })).collect();
    let cmd = match answerable.first() {
        Some(p) => {
            Command::Answer { seat: p.seat, prompt: Some(p.id), answer: flicker_lab::bot::random_answer(p, rng) }
        }
        None => Command::CloseWindow,
    };
    command(app, id, &cmd, rng).await
}

pub(crate) async fn command(app: &AppState, id: &str, cmd: &Command, rng: &mut ChaCha8Rng) -> Vec<Event> {
    let before = app.tables.load(app.store.as_ref(), id).await.unwrap().events.len();
    let (snap, _) = app
        .tables
        .command(app.store.as_ref(), id, "test", None, |snap| {
            let ev = final_flicker::decide(&snap.state, cmd, rng)?;
            Ok::<_, crate::problem::Problem>(
                ev.iter().map(|e| tables::engine_event::<crate::game::Served>(e, Metadata::default())).collect(),
            )
        })
        .await
        .unwrap();
    snap.events[before..].to_vec()
}

/// GET `uri` with an optional token (`Option<&str>`): (status, ETag, body).
macro_rules! get {
    ($svc:expr, $uri:expr, $token:expr) => {{
        let mut req = test::TestRequest::get().uri(&$uri);
        let token: Option<&str> = $token;
        if let Some(t) = token {
            req = req.insert_header(("Authorization", format!("Bearer {t}")));
        }
        let resp = test::call_service($svc, req.to_request()).await;
        let status = resp.status().as_u16();
        let etag = resp.headers().get("etag").and_then(|v| v.to_str().ok()).map(str::to_string);
        (status, etag, test::read_body(resp).await.to_vec())
    }};
}

pub(crate) fn json(body: &[u8]) -> Value {
    serde_json::from_slice(body).unwrap()
}

/// True if an object at any depth of `v` has the key `key`.
fn has_key(v: &Value, key: &str) -> bool {
    match v {
        Value::Object(m) => m.contains_key(key) || m.values().any(|x| has_key(x, key)),
        Value::Array(a) => a.iter().any(|x| has_key(x, key)),
        _ => false,
    }
}

/// R10.8, R3.2.1: the commentary view is held back by the delay from the very
/// first event (right after the start it shows the table, not the deal), and it never carries a
/// Candle's order, The Dark's order, the pool or the handle key: not in the view, not in its
/// events, not in its stream, whose first message is the creation as commentary sees it (every
/// hand, no Candle).
#[actix_web::test]
async fn r10_8_the_commentary_view_is_delayed_and_never_shows_candles() {
    let (app, _) = app_with_clock().await;
    let svc = test::init_service(App::new().app_data(app.clone()).configure(crate::server::configure)).await;
    let mut settings = Settings::new(3);
    settings.classes = true;
    let org = token(&app, "org").await;
    // A long delay: right after the start nothing of the game is shown.
    let long = GatheringSettings { commentary: true, spectator_delay_events: 10_000, ..Default::default() };
    let id = gathering_table(&app, &settings, long, 1).await;
    let (status, _, body) = get!(&svc, &format!("/api/v1/tables/{id}?commentary=true"), Some(org.as_str()));
    assert_eq!(status, 200);
    let j = json(&body);
    assert!(j["view"].is_null(), "R10.8: the delay holds the deal back too: {j}");
    assert!(!has_key(&j, "candle") && !has_key(&j, "hand"), "{j}");
    let (_, _, body) = get!(&svc, &format!("/api/v1/tables/{id}/events?commentary=true"), Some(org.as_str()));
    assert_eq!(json(&body)["events"].as_array().map(Vec::len), Some(0), "no event before the horizon");
    // A short delay: the view shows what some player knows, never a Candle.
    let short = GatheringSettings { commentary: true, spectator_delay_events: 3, ..Default::default() };
    let id = gathering_table(&app, &settings, short, 2).await;
    let req = test::TestRequest::get()
        .uri(&format!("/api/v1/tables/{id}/stream?commentary=true"))
        .insert_header(("Authorization", format!("Bearer {org}")))
        .to_request();
    let resp = test::call_service(&svc, req).await;
    assert_eq!(resp.status(), 200);
    let stream = actix_web::rt::spawn(async move { test::read_body(resp).await.to_vec() });
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let mut checked = 0;
    for n in 0..4000 {
        let snap = app.tables.load(app.store.as_ref(), &id).await.unwrap();
        if snap.state.is_finished() {
            break;
        }
        if n % 7 == 0 {
            let (status, _, body) = get!(&svc, &format!("/api/v1/tables/{id}?commentary=true"), Some(org.as_str()));
            assert_eq!(status, 200);
            let j = json(&body);
            let sight = spectate::horizon(&snap, Viewer::Commentary, 3, 0, chrono::Utc::now());
            if sight.visible > 0 {
                let at = spectate::state_at(&snap, sight.visible);
                check_view(&j, &at, Viewer::Commentary, "commentary view").unwrap_or_else(|e| panic!("leak: {e}"));
                assert_eq!(j["view"]["viewer"]["viewer"], "commentary", "{j}");
                assert!(!has_key(&j, "candle") && j["view"]["dark"].get("cards").is_none(), "R3.2.1: {j}");
                let hands = j["view"]["players"].as_array().unwrap().iter().filter(|p| p.get("hand").is_some());
                assert_eq!(hands.count(), 3, "every hand is some player's knowledge");
                checked += 1;
            }
        }
        step(&app, &id, &mut rng).await;
    }
    assert!(checked > 5);
    let _ = app.changes.send(tables::stream_of(&id));
    let body = tokio::time::timeout(std::time::Duration::from_secs(30), stream).await.unwrap().unwrap();
    let msgs = crate::spectate_tests::messages(std::str::from_utf8(&body).unwrap());
    let (last, rest) = msgs.split_last().unwrap();
    assert_eq!(last.1.as_deref(), Some("finished"));
    let first: Value = serde_json::from_str(&rest[0].2).unwrap();
    assert_eq!(first["type"], "game_created", "{first}");
    for key in ["pool", "candles", "handle_key", "event"] {
        assert!(first.get(key).is_none(), "the commentary stream's creation carries {key}: {first}");
    }
    assert_eq!(first["hands"].as_array().map(Vec::len), Some(3), "{first}");
    let snap = app.tables.load(app.store.as_ref(), &id).await.unwrap();
    let mut state = State::new();
    let mut shown = rest.iter();
    for e in &snap.events {
        let before = state.clone();
        final_flicker::apply(&mut state, e);
        if final_flicker::redact(&before, e, &state, Viewer::Commentary).is_none() {
            continue;
        }
        let (_, kind, data) = shown.next().expect("the commentary sequence");
        assert_eq!(kind.as_deref(), Some(e.type_name()));
        let j: Value = serde_json::from_str(data).unwrap();
        assert_ne!(j["type"], "full", "a commentary message is redacted: {data}");
        check_event(&j, &before, e, &state, Viewer::Commentary, "commentary stream").unwrap_or_else(|e| panic!("{e}"));
    }
    assert!(shown.next().is_none());
}

/// R10.6.3, R10.6.4: under a seconds delay a spectator's table (its clock,
/// `awaiting`, ETag and size) does not move when a hidden Pass is recorded, neither at once nor
/// once the Pass is older than the delay; it moves only with public events, when their delay
/// has passed on the server clock.
#[actix_web::test]
async fn r10_6_4_a_hidden_pass_does_not_move_a_delayed_spectators_clock() {
    let (app, clock) = app_with_clock().await;
    let svc = test::init_service(App::new().app_data(app.clone()).configure(crate::server::configure)).await;
    let mut settings = Settings::new(4);
    settings.salt_window = SaltWindow::Simultaneous;
    let delay = chrono::Duration::seconds(8);
    let mut tried = 0;
    for seed in 0..40u64 {
        let g = GatheringSettings { spectator_delay_secs: 8, ..Default::default() };
        let id = gathering_table(&app, &settings, g, seed).await;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for _ in 0..3000 {
            let snap = app.tables.load(app.store.as_ref(), &id).await.unwrap();
            if snap.state.is_finished() {
                break;
            }
            let open = prompts(&snap.state);
            let window = final_flicker::window::simultaneous_window(&snap.state).is_some();
            if !(window && open.len() >= 2) {
                step(&app, &id, &mut rng).await;
                continue;
            }
            // Everything so far is older than the delay: the spectator sees the open window.
            let last = *snap.times.last().unwrap();
            clock.set(last + delay + chrono::Duration::seconds(1));
            let uri = format!("/api/v1/tables/{id}");
            let before = get!(&svc, &uri, None);
            let j = json(&before.2);
            assert_eq!(j["view"]["awaiting"]["awaiting"], "window", "{j}");
            assert!(j["clock"]["deadline"].is_string(), "R10.7: the window's clock is public: {j}");
            // One seat Passes: hidden from spectators.
            let p = &open[0];
            let events = command(
                &app,
                &id,
                &Command::Answer { seat: p.seat, prompt: Some(p.id), answer: Answer::Pass },
                &mut rng,
            )
            .await;
            let after_snap = app.tables.load(app.store.as_ref(), &id).await.unwrap();
            let hidden = spectate::sequence(&after_snap, Viewer::Spectator, after_snap.events.len()).len()
                == spectate::sequence(&snap, Viewer::Spectator, snap.events.len()).len();
            if !hidden {
                continue;
            }
            tried += 1;
            assert!(events.iter().all(|e| matches!(e, Event::SaltAnswered { salt: None, .. })), "{events:?}");
            assert_eq!(get!(&svc, &uri, None), before, "the hidden Pass moved the delayed table at once");
            let pass = *after_snap.times.last().unwrap();
            clock.set(pass + delay + chrono::Duration::seconds(1));
            assert_eq!(get!(&svc, &uri, None), before, "the hidden Pass moved it once older than the delay");
            // A public event moves it only once its delay has passed.
            let mut public = Vec::new();
            while public.is_empty() {
                let now = app.tables.load(app.store.as_ref(), &id).await.unwrap();
                let k = now.events.len();
                step(&app, &id, &mut rng).await;
                let next = app.tables.load(app.store.as_ref(), &id).await.unwrap();
                public = spectate::sequence(&next, Viewer::Spectator, next.events.len())
                    .into_iter()
                    .filter(|(i, _)| *i >= k)
                    .collect();
            }
            let at = app.tables.load(app.store.as_ref(), &id).await.unwrap().times[public[0].0];
            clock.set(at + delay - chrono::Duration::milliseconds(1));
            assert_eq!(get!(&svc, &uri, None), before, "a public event shown before its delay");
            clock.set(at + delay);
            assert_ne!(get!(&svc, &uri, None).2, before.2, "a public event held back after its delay");
            break;
        }
        if tried > 0 {
            break;
        }
    }
    assert!(tried > 0, "no hidden Pass in a simultaneous window was played");
}

/// R10.13: a practice table's position names both hands and the next draws:
/// during play only the creator sees it, and only while every other seat is a built-in bot;
/// after the game everyone does.
#[actix_web::test]
async fn r10_13_a_practice_position_is_the_creators_alone_and_only_against_bots() {
    let (app, _) = app_with_clock().await;
    let svc = test::init_service(App::new().app_data(app.clone()).configure(crate::server::configure)).await;
    let (alice, bob) = (token(&app, "alice").await, token(&app, "bob").await);
    let position = "7H 8D KS / 2C 3C | 5H 5D 9S";
    let post = |uri: String, t: &str, body: Value| {
        test::TestRequest::post()
            .uri(&uri)
            .insert_header(("Authorization", format!("Bearer {t}")))
            .set_json(body)
            .to_request()
    };
    let mut ids = Vec::new();
    for against_bot in [true, false] {
        let req = post("/api/v1/tables".into(), &alice, serde_json::json!({"players": 2, "position": position}));
        let resp: Value = test::call_and_read_body_json(&svc, req).await;
        let id = resp["table"]["table_id"].as_str().unwrap().to_string();
        let seat = |t: &str, body: Value| post(format!("/api/v1/tables/{id}/seats"), t, body);
        assert_eq!(test::call_service(&svc, seat(&alice, serde_json::json!({"seat": 0}))).await.status(), 200);
        let other = if against_bot {
            seat(&alice, serde_json::json!({"seat": 1, "bot": "random"}))
        } else {
            seat(&bob, serde_json::json!({"seat": 1}))
        };
        assert_eq!(test::call_service(&svc, other).await.status(), 200);
        let start = post(format!("/api/v1/tables/{id}/start"), &alice, serde_json::json!({}));
        let started: Value = test::call_and_read_body_json(&svc, start).await;
        let shown = |j: &Value| j["table"]["position"].as_str().map(str::to_string);
        assert_eq!(shown(&started), against_bot.then(|| position.to_string()), "the start's answer");
        let uri = format!("/api/v1/tables/{id}");
        for (who, t) in [("alice", Some(alice.as_str())), ("bob", Some(bob.as_str())), ("anonymous", None)] {
            let (status, _, body) = get!(&svc, &uri, t);
            assert_eq!(status, 200);
            let want = (who == "alice" && against_bot).then(|| position.to_string());
            assert_eq!(shown(&json(&body)), want, "{who}, against a bot: {against_bot}");
        }
        ids.push(id);
    }
    // After the game: public.
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for id in &ids {
        for _ in 0..20_000 {
            if app.tables.load(app.store.as_ref(), id).await.unwrap().state.is_finished() {
                break;
            }
            step(&app, id, &mut rng).await;
        }
        let (_, _, body) = get!(&svc, &format!("/api/v1/tables/{id}"), None);
        assert_eq!(json(&body)["table"]["position"].as_str(), Some(position), "R10.8.3: after the game");
    }
}

/// R10.8: an eliminated seat sees what a spectator sees, held back by the same
/// delay: its table, events and replay stop at its delayed horizon while the game goes on.
#[actix_web::test]
async fn r10_8_an_eliminated_seat_is_delayed_like_a_spectator() {
    let (app, _) = app_with_clock().await;
    let svc = test::init_service(App::new().app_data(app.clone()).configure(crate::server::configure)).await;
    let settings = Settings::new(4);
    let mut checked = 0;
    for seed in 0..20u64 {
        let g = GatheringSettings { spectator_delay_events: 5, ..Default::default() };
        let id = gathering_table(&app, &settings, g, seed).await;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for _ in 0..20_000 {
            let snap = app.tables.load(app.store.as_ref(), &id).await.unwrap();
            if snap.state.is_finished() {
                break;
            }
            let out = (0..4u8).find(|&s| !snap.state.is_lit(s));
            if let Some(seat) = out {
                let viewer = Viewer::Seat { seat };
                let own = spectate::sequence(&snap, viewer, snap.events.len());
                if own.len() > 5 && spectate::sequence(&snap, Viewer::Spectator, snap.events.len()).len() > 5 {
                    let t = token(&app, &format!("p{seat}")).await;
                    let (_, _, body) = get!(&svc, &format!("/api/v1/tables/{id}/events?limit=500"), Some(t.as_str()));
                    let shown = json(&body)["events"].as_array().unwrap().len();
                    assert_eq!(shown, own.len() - 5, "R10.8: five of its events behind, like spectators");
                    let (_, _, body) = get!(&svc, &format!("/api/v1/tables/{id}"), Some(t.as_str()));
                    let sight = spectate::horizon(&snap, viewer, 5, 0, chrono::Utc::now());
                    let expected = final_flicker::view(&spectate::state_at(&snap, sight.visible), viewer);
                    assert_eq!(json(&body)["view"], serde_json::to_value(expected).unwrap(), "the delayed view");
                    let (_, _, body) = get!(&svc, &format!("/api/v1/tables/{id}/replay"), Some(t.as_str()));
                    assert_eq!(json(&body)["total"].as_u64(), Some(shown as u64));
                    checked += 1;
                }
            }
            step(&app, &id, &mut rng).await;
        }
        if checked > 3 {
            break;
        }
    }
    assert!(checked > 3, "no eliminated seat watched a game going on");
}
