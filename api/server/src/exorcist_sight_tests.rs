//! What a viewer of a *Let's Call the Exorcist* table sees and when (R10.8, X11.1, X11.3, rules
//! decision 66), over HTTP in-process against the real SQLite store and routes, the Exorcist
//! counterparts of [`crate::sight_tests`] and [`crate::spectate_tests`]: at a gathering's table
//! the commentary view (the organiser's alone, the union of what the seats know) and the
//! spectator delay (in events and in seconds) hold every delayed reader at its horizon while the
//! seats see at once; at a practice table nobody is delayed and there is no commentary view.
//! Games are played step by step by the test (no driver, no bots); delays in seconds run on a
//! [`ManualClock`] set from the events' recorded times.

use crate::accounts::Role;
use crate::auth::TokenKind;
use crate::clock::{Clock, ManualClock};
use crate::game::{Exorcist, GameName};
use crate::gatherings::{GatheringEvent, GatheringSettings};
use crate::server::AppState;
use crate::spectate;
use crate::tables::{self, SeatHolder, TableEvent, TableGathering};
use actix_web::{App, test, web};
use exorcist::{LeakChecker, Settings};
use flicker_game::{Game, Viewer};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use rand::seq::IndexedRandom;
use serde_json::Value;

type State = <Exorcist as Game>::State;

/// An app without a driver whose clock the test moves.
async fn app_with_clock() -> (web::Data<AppState>, std::sync::Arc<ManualClock>) {
    let dir = std::env::temp_dir().join(format!("flicker-exorcist-sight-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let store = crate::store::open(&dir.join("flicker.db").display().to_string()).await.unwrap();
    let clock = ManualClock::at(chrono::Utc::now());
    let app = crate::server::state_with_clock(store, clock.clone()).await.unwrap();
    (app, clock)
}

/// An access token for `name` with `role` (the account is created unless it exists).
async fn token(app: &AppState, name: &str, role: Role) -> String {
    crate::accounts::ensure_unusable(app.store.as_ref(), name, role).await.unwrap();
    app.keys.issue(name, role, TokenKind::Access, 86_400, vec![], None).0
}

/// An Exorcist table of `n` seats held by accounts `e0..`: of a gathering organised by `eorg`
/// with `g` (never started: the table stands for one of its circles), or a practice table when
/// `g` is `None`. Returns the table id.
async fn exorcist_table(app: &AppState, n: u8, g: Option<GatheringSettings>, seed: u64) -> String {
    let gathering = match g {
        Some(settings) => {
            let gid = uuid::Uuid::new_v4().to_string();
            let settings = GatheringSettings { game: GameName::LetsCallTheExorcist, ..settings };
            settings.validate().expect("valid settings");
            let created = GatheringEvent::GatheringCreated {
                gathering_id: gid.clone(),
                name: "sight".into(),
                organiser: "eorg".into(),
                settings,
            };
            let e = crate::gatherings::to_new(&created, "eorg");
            app.store
                .append(&crate::gatherings::stream_of(&gid), crate::store::ExpectedVersion::NO_STREAM, vec![e])
                .await
                .unwrap();
            Some(TableGathering { gathering_id: gid, stage: 1, circle: 1 })
        }
        None => None,
    };
    let settings = Settings { players: n, target: 5, first_seeker: None, hold_windows: true };
    let id = uuid::Uuid::new_v4().to_string();
    let practice = gathering.is_none();
    let table = TableEvent::TableCreated {
        table_id: id.clone(),
        game: GameName::LetsCallTheExorcist,
        creator: "eorg".into(),
        settings: settings.clone(),
        practice,
        position: None,
        gathering,
        seated: (0..n).map(|i| SeatHolder { name: format!("e{i}"), bot: None }).collect(),
        clocks: Default::default(),
        reaction_window_min_ms: 0,
        bot_delay_ms: 0,
        abandonment: 0,
        min_window_at_start: false,
    };
    let game = Exorcist::create(&settings, &mut ChaCha8Rng::seed_from_u64(seed)).unwrap();
    tables::create_with_game::<Exorcist>(app.store.as_ref(), &id, &table, &game, "eorg", app.clock.now())
        .await
        .unwrap();
    id
}

/// Plays one command (a random legal answer, or the held window's close); false once the game
/// is over.
async fn step(app: &AppState, id: &str, rng: &mut ChaCha8Rng) -> bool {
    let snap = app.exorcist_tables.load(app.store.as_ref(), id).await.unwrap();
    if Exorcist::is_finished(&snap.state) {
        return false;
    }
    let prompts = Exorcist::prompts(&snap.state);
    let cmd = match prompts.choose(rng) {
        Some(p) => Exorcist::answer_command(p, *p.legal_answers().choose(rng).unwrap()),
        None => Exorcist::close_window_command(&snap.state),
    };
    app.exorcist_tables
        .command(app.store.as_ref(), id, "test", None, |s| tables::decide(s, &cmd, &mut rand::rng()))
        .await
        .unwrap();
    true
}

/// GET `uri` with an optional token (`Option<&str>`): (status, body as JSON).
macro_rules! get {
    ($svc:expr, $uri:expr, $token:expr) => {{
        let mut req = test::TestRequest::get().uri(&$uri);
        let token: Option<&str> = $token;
        if let Some(t) = token {
            req = req.insert_header(("Authorization", format!("Bearer {t}")));
        }
        let resp = test::call_service($svc, req.to_request()).await;
        let status = resp.status().as_u16();
        let body = test::read_body(resp).await;
        (status, serde_json::from_slice::<Value>(&body).unwrap_or(Value::Null))
    }};
}

/// The number of events of `viewer`'s own sequence among the first `k` of `snap`.
fn seen(snap: &crate::game::GameSnapshot<Exorcist>, viewer: Viewer, k: usize) -> usize {
    spectate::sequence(snap, viewer, k).len()
}

/// What the seats' own views say they know now: (seat, round, role) of every known tile and
/// (owner, position, card) of every known card, over all seats.
fn knowledge(view: &Value) -> (Vec<Value>, Vec<Value>) {
    let mut roles: Vec<Value> = view["known_roles"].as_array().cloned().unwrap_or_default();
    let mut cards: Vec<Value> = view["known_cards"].as_array().cloned().unwrap_or_default();
    roles.sort_by_key(Value::to_string);
    roles.dedup();
    cards.sort_by_key(Value::to_string);
    cards.dedup();
    (roles, cards)
}

/// R10.8, X11.1, X11.3, rules decision 66: at an Exorcist gathering's table the commentary view
/// is refused unless the gathering enables it (403) and to anyone but its organiser (a seated
/// player, another organiser); it is held back by the delay from the first event (a long delay
/// shows no view and no event); with a delay of 3 it is, byte for byte, the commentary
/// projection of the state at its horizon, 3 events of its sequence back, which knows exactly
/// the union of what the seats know there (every seat's known tiles and cards, no tile nobody
/// has seen), passes the leak checker as commentary and would be a leak to a spectator.
#[actix_web::test]
async fn r10_8_x11_1_the_exorcist_commentary_view_is_the_organisers_delayed_union_of_the_seats_knowledge() {
    let (app, clock) = app_with_clock().await;
    let svc = test::init_service(App::new().app_data(app.clone()).configure(crate::server::configure)).await;
    let org = token(&app, "eorg", Role::Organiser).await;
    let seat0 = token(&app, "e0", Role::Player).await;
    let other = token(&app, "eother", Role::Organiser).await;
    let off =
        exorcist_table(&app, 5, Some(GatheringSettings { spectator_delay_events: 2, ..Default::default() }), 1).await;
    let (status, _) = get!(&svc, format!("/api/v1/tables/{off}?commentary=true"), Some(org.as_str()));
    assert_eq!(status, 403, "R10.8: the commentary view is off by default");
    let long = GatheringSettings { commentary: true, spectator_delay_events: 10_000, ..Default::default() };
    let long = exorcist_table(&app, 5, Some(long), 2).await;
    let (status, j) = get!(&svc, format!("/api/v1/tables/{long}?commentary=true"), Some(org.as_str()));
    assert_eq!(status, 200, "{j}");
    assert!(j.get("view").is_none_or(Value::is_null), "R10.8: the delay holds the first deal back too: {j}");
    let (_, j) = get!(&svc, format!("/api/v1/tables/{long}/events?commentary=true"), Some(org.as_str()));
    assert_eq!(j["events"].as_array().map(Vec::len), Some(0), "no event before the horizon: {j}");

    let short = GatheringSettings { commentary: true, spectator_delay_events: 3, ..Default::default() };
    let id = exorcist_table(&app, 5, Some(short), 3).await;
    for t in [&seat0, &other] {
        let (status, j) = get!(&svc, format!("/api/v1/tables/{id}?commentary=true"), Some(t.as_str()));
        assert_eq!(status, 403, "R10.8: the organiser's alone: {j}");
    }
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let (mut checked, mut knowing) = (0, 0);
    let mut n = 0;
    loop {
        let snap = app.exorcist_tables.load(app.store.as_ref(), &id).await.unwrap();
        if Exorcist::is_finished(&snap.state) {
            break;
        }
        n += 1;
        if n % 3 == 0 {
            let all = snap.events.len();
            let sight = spectate::horizon(&snap, Viewer::Commentary, 3, 0, clock.now());
            let own = seen(&snap, Viewer::Commentary, all);
            assert_eq!(seen(&snap, Viewer::Commentary, sight.visible), own.saturating_sub(3), "three events back");
            let (status, j) = get!(&svc, format!("/api/v1/tables/{id}?commentary=true"), Some(org.as_str()));
            assert_eq!(status, 200, "{j}");
            let (_, page) =
                get!(&svc, format!("/api/v1/tables/{id}/events?limit=500&commentary=true"), Some(org.as_str()));
            assert_eq!(
                page["events"].as_array().unwrap().len(),
                own.saturating_sub(3),
                "R10.8: its events up to the horizon"
            );
            if sight.visible > 0 {
                let at: State = spectate::state_at(&snap, sight.visible);
                let want = serde_json::to_value(Exorcist::view(&at, Viewer::Commentary)).unwrap();
                assert_eq!(j["view"], want, "the commentary view is the projection at its horizon");
                assert_eq!(j["view"]["viewer"]["viewer"], "commentary", "{j}");
                // The union of the seats' knowledge at the horizon, nothing more.
                let (mut roles, mut cards) = (Vec::new(), Vec::new());
                for seat in 0..5 {
                    let v = serde_json::to_value(Exorcist::view(&at, Viewer::Seat { seat })).unwrap();
                    let (r, c) = knowledge(&v);
                    roles.extend(r);
                    cards.extend(c);
                }
                let union = knowledge(&serde_json::json!({"known_roles": roles, "known_cards": cards}));
                assert_eq!(knowledge(&j["view"]), union, "X11.3, decision 66: the union of the seats' knowledge");
                let mut checker = LeakChecker::new();
                let mut s = State::default();
                for e in &snap.events[..sight.visible] {
                    let before = s.clone();
                    Exorcist::apply(&mut s, e);
                    checker.learn(&before, e, &s);
                }
                checker.check_json(&j, &at, Viewer::Commentary, false).unwrap_or_else(|e| panic!("leak: {e}: {j}"));
                if !union.0.is_empty() {
                    assert!(
                        checker.check_json(&j, &at, Viewer::Spectator, false).is_err(),
                        "a spectator may not see it"
                    );
                    knowing += 1;
                }
                checked += 1;
            }
        }
        step(&app, &id, &mut rng).await;
    }
    assert!(checked > 5 && knowing > 0, "{checked} commentary reads, {knowing} with knowledge");
}

/// R10.8: at an Exorcist gathering's table the spectator delay holds anonymous spectators (and
/// a spectator account) back, by N events of their sequence or by N seconds of the server
/// clock: their table is the spectator projection at their horizon, their events and replay
/// stop there; a seated player is never delayed (its own projection of the live state, X11.1).
/// After the end everybody reads the complete record (R10.8.3, X11.4).
#[actix_web::test]
async fn r10_8_the_spectator_delay_holds_exorcist_spectators_back_and_never_the_seats() {
    let (app, clock) = app_with_clock().await;
    let svc = test::init_service(App::new().app_data(app.clone()).configure(crate::server::configure)).await;
    let seat2 = token(&app, "e2", Role::Player).await;
    let watcher = token(&app, "ewatch", Role::Spectator).await;
    for (seed, events, secs) in [(4u64, 5u32, 0u32), (5, 0, 6)] {
        let g = GatheringSettings { spectator_delay_events: events, spectator_delay_secs: secs, ..Default::default() };
        let id = exorcist_table(&app, 6, Some(g), seed).await;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (mut checked, mut held) = (0, 0);
        let mut n = 0;
        loop {
            let snap = app.exorcist_tables.load(app.store.as_ref(), &id).await.unwrap();
            if Exorcist::is_finished(&snap.state) {
                break;
            }
            n += 1;
            if n % 4 == 0 {
                let all = snap.events.len();
                // Under a delay in seconds, a server time that puts the horizon among the latest
                // events (events are recorded at the store's time).
                if secs > 0 {
                    let k = snap.times.len();
                    let pick = k - 1 - (n / 4) % k.min(12);
                    clock.set(snap.times[pick] + chrono::Duration::seconds(secs as i64));
                }
                let now = clock.now();
                let seq: Vec<usize> =
                    spectate::sequence(&snap, Viewer::Spectator, all).into_iter().map(|(i, _)| i).collect();
                // Restated: N events of the sequence back, or those recorded N seconds ago or more.
                let shown = if events > 0 {
                    seq.len().saturating_sub(events as usize)
                } else {
                    let cutoff = now - chrono::Duration::seconds(secs as i64);
                    seq.iter().filter(|&&i| snap.times[i] <= cutoff).count()
                };
                held += usize::from(shown < seq.len());
                let sight = spectate::horizon(&snap, Viewer::Spectator, events, secs, now);
                assert_eq!(seen(&snap, Viewer::Spectator, sight.visible), shown);
                for t in [None, Some(watcher.as_str())] {
                    let (status, j) = get!(&svc, format!("/api/v1/tables/{id}"), t);
                    assert_eq!(status, 200, "{j}");
                    if sight.visible == 0 {
                        assert!(j.get("view").is_none_or(Value::is_null), "{j}");
                    } else {
                        let at: State = spectate::state_at(&snap, sight.visible);
                        let want = serde_json::to_value(Exorcist::view(&at, Viewer::Spectator)).unwrap();
                        assert_eq!(
                            j["view"], want,
                            "R10.8: the spectator view at the horizon ({events} events, {secs} s)"
                        );
                    }
                    let (_, page) = get!(&svc, format!("/api/v1/tables/{id}/events?limit=500"), t);
                    assert_eq!(page["events"].as_array().unwrap().len(), shown, "R10.8: events up to the horizon");
                    let (status, r) = get!(&svc, format!("/api/v1/tables/{id}/replay"), t);
                    if shown == 0 {
                        assert_eq!(status, 400, "{r}");
                    } else {
                        assert_eq!(r["total"].as_u64(), Some(shown as u64), "{r}");
                    }
                }
                let (_, j) = get!(&svc, format!("/api/v1/tables/{id}"), Some(seat2.as_str()));
                let want = serde_json::to_value(Exorcist::view(&snap.state, Viewer::Seat { seat: 2 })).unwrap();
                assert_eq!(j["view"], want, "R10.8: a seat in the game is never delayed");
                checked += 1;
            }
            step(&app, &id, &mut rng).await;
        }
        assert!(checked > 5 && held > 3, "{checked} delayed reads, {held} holding events back");
        let snap = app.exorcist_tables.load(app.store.as_ref(), &id).await.unwrap();
        let (_, j) = get!(&svc, format!("/api/v1/tables/{id}"), None);
        let want = serde_json::to_value(Exorcist::view(&snap.state, Viewer::Everything)).unwrap();
        assert_eq!(j["view"], want, "R10.8.3, X11.4: the complete record after the end");
    }
}

/// R10.8: at an Exorcist practice table (no gathering) nobody is delayed: a spectator reads the
/// spectator projection of the live state and its whole sequence at once, each seat its own;
/// there is no commentary view (403, even for the table's creator).
#[actix_web::test]
async fn r10_8_an_exorcist_practice_table_delays_nobody_and_has_no_commentary_view() {
    let (app, _) = app_with_clock().await;
    let svc = test::init_service(App::new().app_data(app.clone()).configure(crate::server::configure)).await;
    let creator = token(&app, "eorg", Role::Organiser).await;
    let seat1 = token(&app, "e1", Role::Player).await;
    let id = exorcist_table(&app, 4, None, 6).await;
    let mut rng = ChaCha8Rng::seed_from_u64(6);
    let mut checked = 0;
    let mut n = 0;
    loop {
        let snap = app.exorcist_tables.load(app.store.as_ref(), &id).await.unwrap();
        if Exorcist::is_finished(&snap.state) {
            break;
        }
        n += 1;
        if n % 5 == 0 {
            let (status, j) = get!(&svc, format!("/api/v1/tables/{id}?commentary=true"), Some(creator.as_str()));
            assert_eq!(status, 403, "R10.8: no commentary view at a practice table: {j}");
            let (_, j) = get!(&svc, format!("/api/v1/tables/{id}"), None);
            let want = serde_json::to_value(Exorcist::view(&snap.state, Viewer::Spectator)).unwrap();
            assert_eq!(j["view"], want, "a practice spectator sees the live spectator view");
            let (_, page) = get!(&svc, format!("/api/v1/tables/{id}/events?limit=500"), None);
            let all = seen(&snap, Viewer::Spectator, snap.events.len());
            assert_eq!(page["events"].as_array().unwrap().len(), all, "every public event at once");
            let (_, j) = get!(&svc, format!("/api/v1/tables/{id}"), Some(seat1.as_str()));
            let want = serde_json::to_value(Exorcist::view(&snap.state, Viewer::Seat { seat: 1 })).unwrap();
            assert_eq!(j["view"], want, "the seat's own view");
            checked += 1;
        }
        step(&app, &id, &mut rng).await;
    }
    assert!(checked > 3, "{checked} reads");
}
