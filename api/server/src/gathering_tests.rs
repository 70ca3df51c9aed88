//! In-process gathering tests: the process manager and the table driver against the real
//! SQLite store, without HTTP (the 200-player gathering runs here).

use crate::server::AppState;
use actix_web::web;
use flicker_platform::bots::BotKind;
use flicker_platform::gatherings::standings::{StandingStatus, standings};
use flicker_platform::gatherings::*;
use std::time::{Duration, Instant};

pub(crate) async fn app() -> web::Data<AppState> {
    let dir = std::env::temp_dir().join(format!("flicker-gathering-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let store = crate::store::open(&dir.join("flicker.db").display().to_string()).await.unwrap();
    let app = crate::server::state(store).await.unwrap();
    crate::driver::spawn(app.clone());
    app
}

/// Creates a gathering of `bots` heuristic bots with `settings`, starts it, returns its id.
pub(crate) async fn start(app: &AppState, bots: usize, settings: GatheringSettings) -> String {
    let id = uuid::Uuid::new_v4().to_string();
    let mut events = vec![GatheringEvent::GatheringCreated {
        gathering_id: id.clone(),
        name: format!("{bots} bots"),
        organiser: "org".into(),
        settings,
    }];
    events.extend((1..=bots).map(|i| {
        GatheringEvent::PlayerRegistered(Registrant {
            name: format!("heuristic-bot#{i:03}"),
            bot: Some(BotKind::Heuristic),
            program: false,
        })
    }));
    events.push(GatheringEvent::GatheringStarted);
    let new = events.iter().map(|e| to_new(e, "org")).collect();
    app.store.append(&stream_of(&id), crate::store::ExpectedVersion::NO_STREAM, new).await.unwrap();
    id
}

/// Appends `events` to the gathering as the organiser, reading it again when the process manager
/// appended first (a conflict).
pub(crate) async fn append_when_current(app: &AppState, id: &str, events: &[GatheringEvent]) {
    for _ in 0..50 {
        let g = load(app.store.as_ref(), id).await.unwrap().unwrap();
        match append(app.store.as_ref(), &g, events, "org").await {
            Err(crate::store::StoreError::Conflict { .. }) => continue,
            r => return r.unwrap(),
        }
    }
    panic!("the gathering kept changing");
}

pub(crate) async fn finish(app: &AppState, id: &str, limit: Duration) -> Gathering {
    let started = Instant::now();
    loop {
        let g = load(app.store.as_ref(), id).await.unwrap().unwrap();
        if g.over() {
            return g;
        }
        assert!(started.elapsed() < limit, "the gathering did not finish within {limit:?}: stage {:?}", g.stages.len());
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Checks what every finished gathering must satisfy: each stage's players are exactly the
/// previous stage's Last Lit (R9.6), each circle's table folded from its events is finished
/// with a legal end state and agrees with the recorded result, R9.2.2 sizes, and standings.
/// R1.7, R9.8.1: each circle is its own game with its own pool sized for its player count and
/// fresh Candles of 27 (so cards and reactions never cross circles, R6.1.3); R9.2.3, R2.1: its
/// seats are the players in the order the recorded server draw put them; R9.6.4: stages repeat
/// until the last one is a single circle (the Final Ritual).
async fn check_finished(app: &AppState, g: &Gathering, n: usize) {
    let mut field: Vec<String> = g.players.iter().map(|p| p.name.clone()).collect();
    field.sort();
    assert_eq!(field.len(), n);
    for stage in &g.stages {
        let mut players: Vec<String> = stage.circles.iter().flat_map(|(c, _)| c.players.clone()).collect();
        players.sort();
        assert_eq!(players, field, "stage {} holds exactly the players sent on", stage.stage);
        let sizes: Vec<usize> = stage.circles.iter().map(|(c, _)| c.players.len()).collect();
        assert_eq!(sizes, final_flicker::gathering::circle_sizes(field.len(), g.settings.max()), "R9.2.2");
        let mut next = Vec::new();
        for (draw, result) in &stage.circles {
            let result = result.as_ref().expect("every circle ended");
            let snap = app.tables.load(app.store.as_ref(), &draw.table_id).await.unwrap();
            assert!(snap.state.is_finished());
            let final_flicker::Event::GameCreated(created) = &snap.events[0] else { panic!("creation first") };
            let pool = final_flicker::pool::pool_size(draw.players.len());
            assert_eq!(created.pool.len(), pool.total, "R9.3: a pool sized for the circle");
            assert_eq!(created.dark.len() + created.set_aside.len(), pool.surplus);
            assert!(created.candles.iter().all(|c| c.len() == 27), "R9.8.1: fresh Candles of 27");
            if stage.stage > 1 {
                assert!(created.dark.is_empty(), "R9.8.2: a later stage starts with an empty Dark");
            }
            final_flicker::invariants::check(&snap.state).unwrap();
            let refolded = final_flicker::replay::fold(&snap.events);
            assert_eq!(refolded, snap.state, "state == fold(events)");
            // The cached table, built from the events this process appended without reading
            // them back, is the table read from the store afresh.
            let stored = crate::game::Tables::default().load(app.store.as_ref(), &draw.table_id).await.unwrap();
            assert_eq!(stored.version, snap.version);
            assert_eq!(stored.state, snap.state);
            assert_eq!(stored.events, snap.events);
            assert_eq!(stored.times, snap.times, "recorded times as stored");
            assert_eq!(stored.clock, snap.clock);
            assert_eq!(stored.ritual_timeouts, snap.ritual_timeouts);
            assert_eq!(stored.idempotency_keys, snap.idempotency_keys);
            assert_eq!(serde_json::to_value(&stored.info).unwrap(), serde_json::to_value(&snap.info).unwrap());
            assert_eq!(snap.info.seats.iter().flatten().cloned().collect::<Vec<_>>(), draw.players);
            let last_lit: Vec<String> =
                snap.state.result().unwrap().last_lit.iter().map(|&s| draw.players[s as usize].clone()).collect();
            assert_eq!(last_lit, result.last_lit);
            if stage.circles.len() > 1 {
                assert!(result.last_lit.len() <= g.settings.advance as usize);
            }
            next.extend(result.last_lit.clone());
        }
        next.sort();
        field = next;
    }
    let last = g.stages.last().unwrap();
    assert_eq!(last.circles.len(), 1, "the last stage is a Final Ritual");
    assert_eq!(g.winner, last.circles[0].1.as_ref().unwrap().winner);
    let st = standings(g);
    assert_eq!(st.len(), n);
    assert_eq!(st[0].rank, Some(1));
    assert_eq!(st[0].status, StandingStatus::Winner);
    assert_eq!(Some(&st[0].name), g.winner.as_ref());
    assert!(st.iter().all(|s| s.rank.is_some()), "every placing is final");
    assert!(st.windows(2).all(|w| w[0].rank <= w[1].rank && w[0].stage >= w[1].stage));
}

/// A 200-player gathering (25 circles of 8, A = 2, classes on) runs its stages to one
/// winner, driven by the process manager and the table driver against the real store; later
/// stages keep stage 1's classes (R9.8.4).
#[actix_web::test]
async fn a_200_player_gathering_runs_its_stages_to_one_winner() {
    let app = app().await;
    let t = Instant::now();
    let id = start(&app, 200, GatheringSettings::default()).await;
    crate::driver::trigger_reconcile(app.clone(), id.clone());
    let g = finish(&app, &id, Duration::from_secs(900)).await;
    eprintln!("200 players: {} stages in {:.1} s", g.stages.len(), t.elapsed().as_secs_f64());
    assert_eq!(g.status, Status::Finished);
    assert_eq!(g.end_reason.map(EndReason::as_str), Some("final_ritual"));
    assert!(g.winner.is_some());
    assert_eq!(g.stages[0].circles.len(), 25);
    assert!(g.stages.len() >= 3, "200 -> 50 -> 14 -> final");
    check_finished(&app, &g, 200).await;
}

/// R9.2.2, R9.5.1, R9.8: with A = 1 and C = 4 a 13-player field runs 4+3+3+3 -> Final of 4
/// (class-free, R8.0.5).
#[actix_web::test]
async fn advance_one_with_small_circles() {
    let app = app().await;
    let s = GatheringSettings { advance: 1, max_circle: Some(4), classes: false, ..Default::default() };
    let id = start(&app, 13, s).await;
    crate::driver::trigger_reconcile(app.clone(), id.clone());
    let g = finish(&app, &id, Duration::from_secs(300)).await;
    assert_eq!(g.stages[0].circles.iter().map(|(c, _)| c.players.len()).collect::<Vec<_>>(), vec![4, 3, 3, 3]);
    assert_eq!(g.stages[1].circles.len(), 1);
    check_finished(&app, &g, 13).await;
}

/// R9.5.5: with C = 4 and A = 2 five players split 3 + 2; the circle of two ends at once with
/// both as its Last Lit; the Final Ritual has four.
#[actix_web::test]
async fn a_circle_of_two_with_advance_two_sends_both_on() {
    let app = app().await;
    let s = GatheringSettings { max_circle: Some(4), ..Default::default() };
    let id = start(&app, 5, s).await;
    crate::driver::trigger_reconcile(app.clone(), id.clone());
    let g = finish(&app, &id, Duration::from_secs(300)).await;
    let two = &g.stages[0].circles[1];
    assert_eq!(two.0.players.len(), 2);
    assert_eq!(two.1.as_ref().unwrap().last_lit.len(), 2);
    assert_eq!(g.stages[1].circles[0].0.players.len(), 4);
    check_finished(&app, &g, 5).await;
}

/// R9.10.1: no registrant ends with no winner; a lone registrant wins by walkover.
#[actix_web::test]
async fn nobody_and_a_lone_registrant() {
    let app = app().await;
    let none = start(&app, 0, GatheringSettings::default()).await;
    crate::driver::trigger_reconcile(app.clone(), none.clone());
    let g = finish(&app, &none, Duration::from_secs(30)).await;
    assert_eq!((g.winner.as_deref(), g.end_reason.map(EndReason::as_str)), (None, Some("no_players")));
    let one = start(&app, 1, GatheringSettings::default()).await;
    crate::driver::trigger_reconcile(app.clone(), one.clone());
    let g = finish(&app, &one, Duration::from_secs(30)).await;
    assert_eq!(
        (g.winner.as_deref(), g.end_reason.map(EndReason::as_str)),
        (Some("heuristic-bot#001"), Some("walkover"))
    );
    let st = standings(&g);
    assert_eq!((st[0].rank, st[0].status), (Some(1), StandingStatus::Winner));
}

/// R10.7.1, R10.7.3, R10.7.4: a table whose seats nobody answers still ends: every deadline
/// passes and the server applies the defaults, and a player whose Ritual times out three times
/// in a row concedes (two absent people, one-second clocks on a virtual server clock that the
/// test moves from one deadline to the next, so no wall time is waited out).
#[actix_web::test]
async fn clocks_and_abandonment_end_a_table_nobody_plays() {
    let clock = crate::clock::ManualClock::starting_at(crate::window_tests::start_time());
    let app = crate::window_tests::app_on(clock.clone()).await;
    let id = uuid::Uuid::new_v4().to_string();
    let settings = GatheringSettings {
        clocks: crate::clocks::Clocks { decision_secs: 1, reaction_secs: 1 },
        reaction_window_min_ms: Some(0),
        ..Default::default()
    };
    let mut events = vec![GatheringEvent::GatheringCreated {
        gathering_id: id.clone(),
        name: "absent".into(),
        organiser: "org".into(),
        settings,
    }];
    events.extend(
        ["ann", "bob"]
            .map(|n| GatheringEvent::PlayerRegistered(Registrant { name: n.into(), bot: None, program: false })),
    );
    events.push(GatheringEvent::GatheringStarted);
    app.store
        .append(
            &stream_of(&id),
            crate::store::ExpectedVersion::NO_STREAM,
            events.iter().map(|e| to_new(e, "org")).collect(),
        )
        .await
        .unwrap();
    crate::driver::trigger_reconcile(app.clone(), id.clone());
    // Each step: wait until the driver sleeps on the clock again (its sleepers unchanged for
    // 30 ms of real time), then move the clock to the earliest time it waits for.
    let started = Instant::now();
    let mut deadlines = 0;
    let mut last = (usize::MAX, None);
    let g = loop {
        tokio::time::sleep(Duration::from_millis(30)).await;
        let g = load(app.store.as_ref(), &id).await.unwrap().unwrap();
        if g.over() {
            break g;
        }
        assert!(started.elapsed() < Duration::from_secs(120), "the table did not end ({deadlines} deadlines)");
        let now = (clock.sleeping(), clock.next_wake());
        if now.0 > 0 && now == last {
            clock.set(now.1.expect("a sleeper waits for a time"));
            deadlines += 1;
            last = (usize::MAX, None);
        } else {
            last = now;
        }
    };
    assert_eq!(g.end_reason.map(EndReason::as_str), Some("final_ritual"));
    let table = &g.stages[0].circles[0].0.table_id;
    let snap = app.tables.load(app.store.as_ref(), table).await.unwrap();
    let timeouts = snap.events.iter().filter(|e| matches!(e, final_flicker::Event::TimedOut { .. })).count();
    assert!(timeouts >= 3, "deadlines passed and the defaults were applied ({timeouts} time-outs)");
    let loser = snap
        .events
        .iter()
        .find_map(|e| match e {
            final_flicker::Event::ConcessionRequested { seat } => Some(*seat),
            _ => None,
        })
        .expect("R10.7.4: three Ritual time-outs in a row concede");
    assert_ne!(g.winner.as_deref(), Some(g.stages[0].circles[0].0.players[loser as usize].as_str()));
}

/// Cancelling a gathering stops its tables: the driver takes no further action there.
#[actix_web::test]
async fn a_cancelled_gathering_stops_its_tables() {
    let app = app().await;
    let s = GatheringSettings { bot_delay_ms: 200, ..Default::default() };
    let id = start(&app, 4, s).await;
    crate::driver::trigger_reconcile(app.clone(), id.clone());
    let table = crate::spectate_tests::first_table(&app, &id).await;
    let cancel = [
        GatheringEvent::GatheringCancelled { reason: "test".into() },
        GatheringEvent::GatheringEnded { winner: None, reason: EndReason::Cancelled },
    ];
    append_when_current(&app, &id, &cancel).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let before = app.tables.load(app.store.as_ref(), &table).await.unwrap().version;
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let after = app.tables.load(app.store.as_ref(), &table).await.unwrap().version;
    assert_eq!(before, after, "no action after the cancellation");
    let g = finish(&app, &id, Duration::from_secs(5)).await;
    assert_eq!((g.status, g.winner), (Status::Cancelled, None));
}
