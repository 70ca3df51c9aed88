//! Tests of spectators, live streams and replay steps, in-process against the real
//! SQLite store and the real routes.

use crate::gathering_tests::{app, finish, start};
use crate::gatherings::GatheringSettings;
use crate::spectate;
use actix_web::{App, test};
use final_flicker::Viewer;
use serde_json::Value;
use std::time::{Duration, Instant};

/// One SSE message: (id, event, data).
pub(crate) fn messages(body: &str) -> Vec<(Option<String>, Option<String>, String)> {
    body.split("\n\n")
        .filter_map(|block| {
            let (mut id, mut event, mut data) = (None, None, None);
            for line in block.lines() {
                if let Some(v) = line.strip_prefix("id: ") {
                    id = Some(v.to_string());
                } else if let Some(v) = line.strip_prefix("event: ") {
                    event = Some(v.to_string());
                } else if let Some(v) = line.strip_prefix("data: ") {
                    data = Some(v.to_string());
                }
            }
            data.map(|d| (id, event, d))
        })
        .collect()
}

/// The table of the first circle of `gathering`'s first stage, once it exists: the manager
/// records the draw first and creates the circle tables in a later step, so the id is known
/// before its table loads. Waits up to 30 s.
pub(crate) async fn first_table(app: &crate::server::AppState, gathering: &str) -> String {
    let t = Instant::now();
    loop {
        if let Some(g) = crate::gatherings::load(app.store.as_ref(), gathering).await.unwrap()
            && let Some(s) = g.stages.first()
        {
            let table = &s.circles[0].0.table_id;
            match app.tables.load(app.store.as_ref(), table).await {
                Ok(_) => return table.clone(),
                Err(crate::tables::TableError::NotFound { .. }) => {}
                Err(e) => panic!("table {table}: {e}"),
            }
        }
        assert!(t.elapsed() < Duration::from_secs(30), "the first table of {gathering} was never created");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// R10.8, R10.6.3: an anonymous spectator's live stream of a table carries exactly the
/// spectator's sequence (order kept, nothing missed or repeated, each event redacted for a
/// spectator: no hand, no Full event before the end), then `finished`; a client reconnecting
/// with `Last-Event-ID` gets exactly the rest.
#[actix_web::test]
async fn a_spectator_stream_carries_the_spectator_sequence_and_resumes() {
    let app = app().await;
    let svc = test::init_service(App::new().app_data(app.clone()).configure(crate::server::configure)).await;
    let s = GatheringSettings { bot_delay_ms: 2, ..Default::default() };
    let id = start(&app, 4, s).await;
    crate::driver::trigger_reconcile(app.clone(), id.clone());
    let table = first_table(&app, &id).await;
    // Connect while the game plays; the body ends when the game does.
    let req = test::TestRequest::get().uri(&format!("/api/v1/tables/{table}/stream")).to_request();
    let resp = test::call_service(&svc, req).await;
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers().get("content-type").unwrap(), "text/event-stream");
    let body = test::read_body(resp).await;
    let msgs = messages(std::str::from_utf8(&body).unwrap());
    let (last, rest) = msgs.split_last().unwrap();
    assert_eq!(last.1.as_deref(), Some("finished"));
    let snap = app.tables.load(app.store.as_ref(), &table).await.unwrap();
    let expected = spectate::sequence_as(&snap, Viewer::Spectator);
    assert_eq!(rest.len(), expected.len(), "nothing missed or repeated");
    for ((id, event, data), e) in rest.iter().zip(&expected) {
        assert!(id.is_some());
        let shown: Value = serde_json::from_str(data).unwrap();
        assert_eq!(shown, serde_json::to_value(e).unwrap());
        assert_eq!(event.as_deref(), shown["type"].as_str());
        assert_ne!(shown["type"], "full", "a spectator never gets a full event during play: {data}");
    }
    assert!(!rest[0].2.contains("\"hand\""), "a spectator sees no starting hand");
    // Resume after the 10th message.
    let cursor = rest[9].0.clone().unwrap();
    let req = test::TestRequest::get()
        .uri(&format!("/api/v1/tables/{table}/stream"))
        .insert_header(("Last-Event-ID", cursor))
        .to_request();
    let body = test::read_body(test::call_service(&svc, req).await).await;
    let again = messages(std::str::from_utf8(&body).unwrap());
    assert_eq!(again.len(), rest.len() - 10 + 1);
    for (a, b) in again.iter().zip(&rest[10..]) {
        assert_eq!(a, b, "the resumed stream continues exactly");
    }
    // A forged cursor is refused.
    let req = test::TestRequest::get()
        .uri(&format!("/api/v1/tables/{table}/stream"))
        .insert_header(("Last-Event-ID", "forged"))
        .to_request();
    assert_eq!(test::call_service(&svc, req).await.status(), 400);
    finish(&app, &id, Duration::from_secs(60)).await;
}

/// R10.8: a gathering's spectator delay holds spectators N events behind while its tables play
/// (views, event pages and replay steps alike), and a seat is never delayed; after the end
/// everything is visible.
#[actix_web::test]
async fn the_spectator_delay_holds_events_back() {
    let app = app().await;
    let svc = test::init_service(App::new().app_data(app.clone()).configure(crate::server::configure)).await;
    let s = GatheringSettings { bot_delay_ms: 20, spectator_delay_events: 7, ..Default::default() };
    let id = start(&app, 2, s).await;
    crate::driver::trigger_reconcile(app.clone(), id.clone());
    let table = first_table(&app, &id).await;
    let mut checked = 0;
    for _ in 0..20 {
        let snap = app.tables.load(app.store.as_ref(), &table).await.unwrap();
        if snap.state.is_finished() {
            break;
        }
        let sight = spectate::sight(&app, &snap, None, None, false).await.unwrap();
        // Seven *public* events behind: hidden events (private answers) never move it.
        let public = spectate::sequence(&snap, Viewer::Spectator, snap.events.len()).len();
        let shown = spectate::sequence(&snap, Viewer::Spectator, sight.visible).len();
        if public > 7 {
            assert_eq!(shown, public - 7, "R10.8: seven public events behind");
            // The prefix ends on a public event, or on hidden events of the append that showed it.
            let seq = spectate::sequence(&snap, Viewer::Spectator, sight.visible);
            let last = seq.last().expect("a public event").0;
            assert!(snap.times[last..sight.visible].iter().all(|t| *t == snap.times[last]), "one append");
        }
        assert!(sight.visible < snap.events.len() || public <= 7);
        // The replay endpoint agrees: its total counts only the visible prefix.
        let req = test::TestRequest::get().uri(&format!("/api/v1/tables/{table}/replay")).to_request();
        let v: Value = test::call_and_read_body_json(&svc, req).await;
        if let Some(total) = v["total"].as_u64() {
            let fresh = app.tables.load(app.store.as_ref(), &table).await.unwrap();
            let upper =
                spectate::sequence(&fresh, Viewer::Spectator, fresh.events.len().saturating_sub(7).max(1)).len();
            assert!(total as usize <= upper, "the replay step count respects the delay");
            checked += 1;
        }
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
    assert!(checked > 0);
    finish(&app, &id, Duration::from_secs(120)).await;
    let snap = app.tables.load(app.store.as_ref(), &table).await.unwrap();
    let sight = spectate::sight(&app, &snap, None, None, false).await.unwrap();
    assert_eq!((sight.viewer, sight.visible), (Viewer::Everything, snap.events.len()), "R10.8.3");
}

/// R10.8: the commentary view is off by default (403), and only the organiser may open it.
#[actix_web::test]
async fn the_commentary_view_is_the_organisers_only() {
    let app = app().await;
    let svc = test::init_service(App::new().app_data(app.clone()).configure(crate::server::configure)).await;
    let s = GatheringSettings { bot_delay_ms: 50, ..Default::default() };
    let id = start(&app, 2, s).await;
    crate::driver::trigger_reconcile(app.clone(), id.clone());
    let table = first_table(&app, &id).await;
    let req = test::TestRequest::get().uri(&format!("/api/v1/tables/{table}?commentary=true")).to_request();
    let resp = test::call_service(&svc, req).await;
    assert_eq!(resp.status(), 403);
    // Cancel to stop the bots (unless the game ended already).
    let g = crate::gatherings::load(app.store.as_ref(), &id).await.unwrap().unwrap();
    if !g.over() {
        let cancel = [crate::gatherings::GatheringEvent::GatheringCancelled { reason: "t".into() }];
        crate::gathering_tests::append_when_current(&app, &id, &cancel).await;
    }
}

/// Replay steps: after the end anyone steps through the complete record, `at` 1 to
/// `total`, each step's view is the state right after its event, and eliminations are marked.
#[actix_web::test]
async fn replay_steps_walk_a_finished_game() {
    let app = app().await;
    let svc = test::init_service(App::new().app_data(app.clone()).configure(crate::server::configure)).await;
    let id = start(&app, 3, GatheringSettings { max_circle: None, ..Default::default() }).await;
    crate::driver::trigger_reconcile(app.clone(), id.clone());
    let g = finish(&app, &id, Duration::from_secs(120)).await;
    let table = &g.stages[0].circles[0].0.table_id;
    let snap = app.tables.load(app.store.as_ref(), table).await.unwrap();
    let req = test::TestRequest::get().uri(&format!("/api/v1/tables/{table}/replay?at=1")).to_request();
    let first: Value = test::call_and_read_body_json(&svc, req).await;
    let total = first["total"].as_u64().unwrap() as usize;
    assert_eq!(total, snap.events.len(), "after the end the complete record: every event");
    assert_eq!(first["event"]["type"], "full");
    assert_eq!(first["eliminations"].as_array().unwrap().len(), 2, "two of three players were eliminated");
    for at in [total / 2, total] {
        let req = test::TestRequest::get().uri(&format!("/api/v1/tables/{table}/replay?at={at}")).to_request();
        let step: Value = test::call_and_read_body_json(&svc, req).await;
        let expected = final_flicker::view(&spectate::state_at(&snap, at), Viewer::Everything);
        assert_eq!(step["view"], serde_json::to_value(expected).unwrap());
    }
    for bad in ["0", &(total + 1).to_string()] {
        let req = test::TestRequest::get().uri(&format!("/api/v1/tables/{table}/replay?at={bad}")).to_request();
        assert_eq!(test::call_service(&svc, req).await.status(), 400);
    }
}

/// R10.8: `GET /replay/steps` is the whole replay in one response: every step equals
/// what `GET /replay?at=N` answers for it (event and view), with the same total and eliminations.
#[actix_web::test]
async fn replay_steps_at_once_equal_the_single_steps() {
    let app = app().await;
    let svc = test::init_service(App::new().app_data(app.clone()).configure(crate::server::configure)).await;
    let id = start(&app, 3, GatheringSettings { max_circle: None, ..Default::default() }).await;
    crate::driver::trigger_reconcile(app.clone(), id.clone());
    let g = finish(&app, &id, Duration::from_secs(120)).await;
    let table = &g.stages[0].circles[0].0.table_id;
    let req = test::TestRequest::get().uri(&format!("/api/v1/tables/{table}/replay/steps")).to_request();
    let all: Value = test::call_and_read_body_json(&svc, req).await;
    let steps = all["steps"].as_array().unwrap();
    let total = all["total"].as_u64().unwrap() as usize;
    assert_eq!(steps.len(), total);
    assert!(total > 10, "a whole game");
    let mut checked = 0;
    for at in (1..=total).step_by(7).chain([total]) {
        let req = test::TestRequest::get().uri(&format!("/api/v1/tables/{table}/replay?at={at}")).to_request();
        let one: Value = test::call_and_read_body_json(&svc, req).await;
        assert_eq!(one["total"], all["total"]);
        assert_eq!(one["eliminations"], all["eliminations"]);
        assert_eq!(one["event"], steps[at - 1]["event"], "step {at}: event");
        assert_eq!(one["view"], steps[at - 1]["view"], "step {at}: view");
        checked += 1;
    }
    assert!(checked >= 3);
    let req = test::TestRequest::get().uri(&format!("/api/v1/tables/{table}/replay/steps?bogus=1")).to_request();
    assert_eq!(test::call_service(&svc, req).await.status(), 400, "unknown parameters are refused");
}
