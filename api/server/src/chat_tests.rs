//! Table chat over HTTP, in-process on the real SQLite store and routes, on a [`ManualClock`]:
//! seats read at once, spectators behind the gathering's spectator delay (seconds, or events
//! counted in their own sequence, so an entry never shows a hidden event), and the moderator's
//! mutes (docs/rules-decisions.md, "Table chat").

use crate::clock::ManualClock;
use crate::gatherings::GatheringSettings;
use crate::server::AppState;
use crate::sight_tests::{app_with_clock, command, gathering_table, json, step, token};
use crate::spectate;
use actix_web::{App, test, web};
use final_flicker::settings::{SaltWindow, Settings};
use final_flicker::{Answer, Command, Viewer, prompts};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use serde_json::{Value, json};
use std::sync::Arc;

/// A request to the app (`call!(svc, method, uri, token, body)`: an optional token and JSON
/// body): (status, body).
macro_rules! call {
    ($svc:expr, $method:expr, $uri:expr, $token:expr, $body:expr) => {{
        let mut req = match $method {
            "POST" => test::TestRequest::post(),
            _ => test::TestRequest::get(),
        }
        .uri(&$uri);
        let token: Option<&str> = $token;
        if let Some(t) = token {
            req = req.insert_header(("Authorization", format!("Bearer {t}")));
        }
        let body: Option<Value> = $body;
        if let Some(b) = body {
            req = req.set_json(b);
        }
        let resp = test::call_service($svc, req.to_request()).await;
        let status = resp.status().as_u16();
        let bytes = test::read_body(resp).await;
        (status, if bytes.is_empty() { Value::Null } else { json(&bytes) })
    }};
}

/// The texts of a chat page's `said` entries.
fn texts(page: &Value) -> Vec<String> {
    page["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "said")
        .map(|e| e["text"].as_str().unwrap().to_string())
        .collect()
}

async fn gathering_app(
    g: GatheringSettings,
    settings: &Settings,
    seed: u64,
) -> (web::Data<AppState>, Arc<ManualClock>, String) {
    let (app, clock) = app_with_clock().await;
    let id = gathering_table(&app, settings, g, seed).await;
    (app, clock, id)
}

/// Table chat: a seat's message is read at once by every seat, by a spectator only once it is
/// older than the gathering's 8 s delay (R10.8), and so are the moderator's mutes; a muted seat
/// is refused (403 `chat-muted`) until unmuted; only the gathering's organiser mutes.
#[actix_web::test]
async fn seats_read_the_chat_at_once_spectators_behind_the_seconds_delay() {
    let g = GatheringSettings { spectator_delay_secs: 8, ..Default::default() };
    let (app, clock, id) = gathering_app(g, &Settings::new(4), 1).await;
    let svc = test::init_service(App::new().app_data(app.clone()).configure(crate::server::configure)).await;
    let (p0, p1, org) = (token(&app, "p0").await, token(&app, "p1").await, token(&app, "org").await);
    let uri = format!("/api/v1/tables/{id}/chat");

    let (st, e) = call!(&svc, "POST", &uri, Some(&p0), Some(json!({"text": "  I hold the Queen, honestly. "})));
    assert_eq!(st, 201, "{e}");
    assert_eq!((e["number"].as_u64(), e["seat"].as_u64(), e["name"].as_str()), (Some(1), Some(0), Some("p0")));
    assert_eq!(e["text"], "I hold the Queen, honestly.", "trimmed");

    let (_, page) = call!(&svc, "GET", &uri, Some(&p1), None);
    assert_eq!(texts(&page), ["I hold the Queen, honestly."], "a seat reads it at once");
    assert_eq!((page["speaks_as"].as_u64(), page["moderator"].as_bool()), (Some(1), Some(false)));
    let (_, page) = call!(&svc, "GET", &uri, None, None);
    assert_eq!((texts(&page).len(), page["readable"].as_u64()), (0, Some(0)), "a spectator waits 8 s: {page}");
    assert_eq!(page["speaks_as"], Value::Null);
    let at = |e: &Value| e["at"].as_str().unwrap().parse::<chrono::DateTime<chrono::Utc>>().unwrap();
    clock.set(at(&e) + chrono::Duration::milliseconds(7_999));
    let (_, page) = call!(&svc, "GET", &uri, None, None);
    assert_eq!(texts(&page).len(), 0, "not before 8 s");
    clock.set(at(&e) + chrono::Duration::seconds(8));
    let (_, page) = call!(&svc, "GET", &uri, None, None);
    assert_eq!(texts(&page), ["I hold the Queen, honestly."], "then reads it");

    // Only the organiser mutes; a mute is public, behind the same delay.
    let mute = format!("/api/v1/tables/{id}/chat/mutes");
    let (st, p) = call!(&svc, "POST", &mute, Some(&p1), Some(json!({"seat": 0, "muted": true})));
    assert_eq!((st, p["type"].as_str()), (403, Some("/problems/forbidden")), "{p}");
    let (_, page) = call!(&svc, "GET", &uri, Some(&org), None);
    assert_eq!(page["moderator"], true);
    let (st, m) = call!(&svc, "POST", &mute, Some(&org), Some(json!({"seat": 0, "muted": true})));
    assert_eq!((st, &m["recorded"]), (200, &json!(true)), "{m}");
    let (st, again) = call!(&svc, "POST", &mute, Some(&org), Some(json!({"seat": 0, "muted": true})));
    assert_eq!((st, &again["recorded"]), (200, &json!(false)), "muting a muted seat records nothing");
    // The organiser reads the chat behind the delay, but knows its own mutes at once.
    let (_, page) = call!(&svc, "GET", &uri, Some(&org), None);
    assert_eq!((page["muted"].clone(), page["readable"].as_u64()), (json!([0]), Some(1)), "{page}");
    let (_, seen) = call!(&svc, "GET", &uri, Some(&p1), None);
    let muting = seen["entries"][1].clone();
    assert_eq!((muting["kind"].as_str(), muting["name"].as_str()), (Some("muted"), Some("org")), "{seen}");
    let (st, p) = call!(&svc, "POST", &uri, Some(&p0), Some(json!({"text": "unfair!"})));
    assert_eq!((st, p["type"].as_str()), (403, Some("/problems/chat-muted")), "{p}");
    let (_, page) = call!(&svc, "GET", &uri, Some(&p0), None);
    assert_eq!((page["speaks_as"].clone(), page["muted"].clone()), (Value::Null, json!([0])));
    let (_, page) = call!(&svc, "GET", &uri, None, None);
    assert_eq!(page["muted"], json!([]), "a spectator learns of the mute behind the delay");
    clock.set(at(&muting) + chrono::Duration::seconds(8));
    let (_, page) = call!(&svc, "GET", &uri, None, None);
    assert_eq!(page["muted"], json!([0]));
    let (st, _) = call!(&svc, "POST", &mute, Some(&org), Some(json!({"seat": 0, "muted": false})));
    assert_eq!(st, 200);
    let (st, _) = call!(&svc, "POST", &uri, Some(&p0), Some(json!({"text": "thank you"})));
    assert_eq!(st, 201);
    let (_, page) = call!(&svc, "GET", &format!("{uri}?after=3"), Some(&p1), None);
    assert_eq!(texts(&page), ["thank you"], "`after` pages on");
    assert_eq!(page["readable"], 4);

    // The organiser is not seated: it moderates but does not speak.
    let (st, p) = call!(&svc, "POST", &uri, Some(&org), Some(json!({"text": "hi"})));
    assert_eq!((st, p["type"].as_str()), (403, Some("/problems/chat-not-seated")), "{p}");
}

/// Table chat under an events delay (R10.8, R10.6.3): an entry stored right after an event
/// hidden from spectators (a seat's private Pass in a simultaneous Salt window) reaches a
/// spectator exactly when an entry stored right before it does, N public events later, so the
/// chat shows neither the hidden event nor its timing.
#[actix_web::test]
async fn an_entry_after_a_hidden_event_reaches_a_spectator_with_the_one_before_it() {
    let mut settings = Settings::new(4);
    settings.salt_window = SaltWindow::Simultaneous;
    let mut tried = 0;
    for seed in 0..40u64 {
        let g = GatheringSettings { spectator_delay_events: 3, ..Default::default() };
        let (app, _clock, id) = gathering_app(g, &settings, seed).await;
        let svc = test::init_service(App::new().app_data(app.clone()).configure(crate::server::configure)).await;
        let p0 = token(&app, "p0").await;
        let uri = format!("/api/v1/tables/{id}/chat");
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
            let public = |s: &crate::game::GameSnapshot<crate::game::Served>| {
                spectate::sequence(s, Viewer::Spectator, s.events.len()).len()
            };
            let (st, _) = call!(&svc, "POST", &uri, Some(&p0), Some(json!({"text": "before"})));
            assert_eq!(st, 201);
            let p = &open[0];
            command(&app, &id, &Command::Answer { seat: p.seat, prompt: Some(p.id), answer: Answer::Pass }, &mut rng)
                .await;
            let after = app.tables.load(app.store.as_ref(), &id).await.unwrap();
            if public(&after) != public(&snap) {
                break;
            }
            let (st, _) = call!(&svc, "POST", &uri, Some(&p0), Some(json!({"text": "after"})));
            assert_eq!(st, 201);
            // Three public events later, under every events delay, both entries wait for the
            // same public events and come together once the spectator sees as far as they
            // were said.
            let at_post = public(&after);
            let mut now = after;
            while !now.state.is_finished() && public(&now) < at_post + 3 {
                step(&app, &id, &mut rng).await;
                now = app.tables.load(app.store.as_ref(), &id).await.unwrap();
            }
            if now.state.is_finished() {
                break;
            }
            tried += 1;
            let total = public(&now);
            let t = chrono::Utc::now();
            for n in 1..=total as u32 {
                let sight = spectate::chat_horizon(&now, Viewer::Spectator, n, 0, t);
                let read: Vec<_> = now.chat[..sight.entries].iter().map(|e| e.text.clone().unwrap()).collect();
                let expected: &[&str] = if total - n as usize >= at_post { &["before", "after"] } else { &[] };
                assert_eq!(read, expected, "{n} public events behind ({total} in all, said after {at_post})");
            }
            let (_, page) = call!(&svc, "GET", &uri, None, None);
            assert_eq!(texts(&page), ["before", "after"], "over HTTP, three public events behind");
            break;
        }
        if tried > 0 {
            break;
        }
    }
    assert!(tried > 0, "no seed gave a hidden Pass");
}
