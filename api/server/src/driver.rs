//! The table driver: the server's clocks (R10.7), minimum windows (R10.6.5), built-in bots and
//! the gathering process manager's triggers. It follows the global event log: every table
//! whose game is not over gets a task that sleeps until the next thing due at that table (a
//! bot's answer, the end of a minimum window, a deadline) or until the table changes. Every
//! action it takes is a command at the version it planned from, so several API processes on one
//! database can run drivers side by side: the store lets one of them act and the others skip.
//! After a restart, deadlines resume from the clock marks stored with the events.
//!
//! the driver survives store outages and restarts. Every worker (the log follower,
//! each table task, each gathering run) retries a failure with capped, jittered backoff. An
//! outage (the store fails the probe or a worker's read) stops every clock; once over, it is
//! recorded in the log and every deadline open during it moves back by its length. A restart
//! reads only the log after the last checkpoint of the live set, and every event the follower
//! reads, from its first, reaches the live streams.

use crate::game::{GameSnapshot, with_game};
use crate::gatherings::{Status, manager};
use crate::state::AppState;
use crate::state::ServedGame;
use crate::store::{self, StoredEvent};
use crate::tables;
use actix_web::web;
use chrono::{DateTime, Utc};
use flicker_platform::due::{Due, next_due};
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;
use tokio::sync::watch;

pub use crate::driver_state::Driver;
use crate::driver_state::Live;

/// A checkpoint of the driver's projection: every event up to `position` is folded into `live`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Checkpoint {
    position: store::Position,
    #[serde(flatten)]
    live: Live,
}

/// the stream of the driver's checkpoints ([`Checkpoint`], event `driver_checkpoint`).
pub const CHECKPOINTS: &str = "system-driver-checkpoints";
/// the stream of recorded store outages (event `store_outage_recorded`, payload
/// `{"from": RFC 3339, "to": RFC 3339}`).
pub const OUTAGES: &str = "system-outages";
/// Events folded between two checkpoints: a restart reads at most about this many events
/// (about 0.15 s) beyond the last checkpoint, whatever the store's age.
const CHECKPOINT_EVERY: usize = 10_000;
/// How often the store is probed while it answers.
const PROBE_EVERY: Duration = Duration::from_secs(1);
/// A probe not answered in this time fails (a pool waiting for a database that is down would
/// otherwise wait for its connect timeout).
const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// Capped exponential backoff with jitter (100 ms doubling to 5 s, each wait drawn from the
/// upper half of the current step so that workers retrying together spread out).
struct Backoff {
    step: Duration,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff { step: Backoff::FIRST }
    }
}

impl Backoff {
    const FIRST: Duration = Duration::from_millis(100);
    const CAP: Duration = Duration::from_secs(5);

    /// The next wait.
    fn next(&mut self) -> Duration {
        let d = self.step;
        self.step = (self.step * 2).min(Backoff::CAP);
        d.mul_f64(0.5 + rand::random::<f64>() / 2.0)
    }

    fn reset(&mut self) {
        self.step = Backoff::FIRST;
    }
}

/// Starts the driver on the server's runtime: the store probe that opens and records outages,
/// and the follower of the global log, restarted with backoff whenever it fails.
pub fn spawn(app: web::Data<AppState>) {
    actix_web::rt::spawn(watch_store(app.clone()));
    if app.leases.shared() {
        actix_web::rt::spawn(sweep_leases(app.clone()));
    }
    actix_web::rt::spawn(async move {
        let mut follow = None;
        let mut backoff = Backoff::default();
        loop {
            let progressed = match run(&app, &mut follow).await {
                Ok(p) => {
                    tracing::warn!("the table driver's subscription ended; following again");
                    p
                }
                Err((p, e)) => {
                    tracing::warn!(error = %e, "the table driver failed; retrying");
                    check_store(&app).await;
                    p
                }
            };
            if progressed {
                backoff.reset();
            }
            tokio::time::sleep(backoff.next()).await;
        }
    });
}

/// Where the follower stands in the log.
struct Follow {
    /// Every event up to this position is folded into the live set.
    after: store::Position,
    /// Events folded since the last checkpoint.
    since_checkpoint: usize,
    /// The version of [`CHECKPOINTS`] as last seen.
    checkpoint_version: store::StreamVersion,
}

/// where the follower starts: the recorded outages, then the last checkpoint (unless
/// `FLICKER_DRIVER_FULL_CATCHUP=1`, which reads the whole log as before checkpoints, for the
/// restart benchmark) or the start of the log.
async fn start(app: &AppState) -> Result<Follow, store::StoreError> {
    for e in app.store.read_stream(OUTAGES, crate::store::StreamVersion::new(1)).await? {
        app.driver.note_outage(&e);
    }
    let last = app.store.read_last(CHECKPOINTS).await?;
    let full = app.driver_full_catchup;
    let checkpoint_version = last.as_ref().map_or(store::StreamVersion::EMPTY, |e| e.stream_version);
    let checkpoint = last.filter(|_| !full).and_then(|e| match serde_json::from_value::<Checkpoint>(e.payload) {
        Ok(c) => Some(c),
        Err(err) => {
            tracing::warn!(error = %err, "unreadable driver checkpoint; reading the whole log");
            None
        }
    });
    let (after, live) = checkpoint.map_or((store::Position::START, Live::default()), |c| (c.position, c.live));
    *app.driver.live.lock().expect("live") = live;
    Ok(Follow { after, since_checkpoint: 0, checkpoint_version })
}

/// Follows the log from `follow` (started on the first call): folds every event into the live
/// set and broadcasts it on `app.changes` from the first event on, so that a live stream never
/// misses one, not even during the catch-up; once caught up with the position that
/// was last when it began, drives every live table and marks the driver ready. Returns whether
/// it folded anything, with the error that stopped it.
async fn run(app: &web::Data<AppState>, follow: &mut Option<Follow>) -> Result<bool, (bool, store::StoreError)> {
    let f = match follow {
        Some(f) => f,
        None => follow.insert(start(app).await.map_err(|e| (false, e))?),
    };
    let head = app.store.last_position().await.map_err(|e| (false, e))?;
    let mut caught_up = false;
    if app.driver.caught_up.load(Ordering::SeqCst) || head <= f.after {
        caught_up = true;
        resume(app);
    }
    let mut progressed = false;
    // Heads only (no JSON parsed): the follower acts on which stream changed and its event
    // type; an outage record, whose span it needs, is read whole.
    let mut sub = app.store.clone().subscribe_heads(f.after);
    while let Some(mut e) = sub.recv().await {
        if e.stream_id == OUTAGES && e.payload.is_null() {
            let whole = app.store.read_stream(OUTAGES, e.stream_version).await.map_err(|err| (progressed, err))?;
            match whole.into_iter().next() {
                Some(w) if w.position == e.position => e = w,
                _ => tracing::warn!(position = %e.position, "driver: an outage record could not be read back"),
            }
        }
        progressed = true;
        f.after = e.position;
        f.since_checkpoint += 1;
        let _ = app.changes.send(e.stream_id.clone());
        note(&app.driver, &e);
        // Checkpoints during the catch-up too, so that a restart in the middle of a long one
        // (and the next start) begins from there.
        if f.since_checkpoint >= CHECKPOINT_EVERY {
            checkpoint(app, f).await;
        }
        if !caught_up {
            if e.position < head {
                continue;
            }
            caught_up = true;
            resume(app);
        } else {
            follow_event(app, &e).await;
        }
    }
    Ok(progressed)
}

/// The catch-up is over: drives every live table and gathering, and the driver is ready.
fn resume(app: &web::Data<AppState>) {
    if !app.driver.caught_up.swap(true, Ordering::SeqCst) {
        let live = app.driver.live();
        tracing::info!(tables = live.tables.len(), gatherings = live.gatherings.len(), "driver: resuming clocks");
    }
    drive_all(app);
}

/// Wakes (or starts) every live table's task and runs every live gathering's manager once the
/// driver has caught up (after an outage, whose record moves the clocks).
fn drive_all(app: &web::Data<AppState>) {
    if !app.driver.caught_up.load(Ordering::SeqCst) {
        return;
    }
    let live = app.driver.live();
    for g in live.gatherings {
        trigger_reconcile(app.clone(), g);
    }
    for t in live.tables {
        ensure_task(app, &t);
    }
}

/// Acts on one new event of the log.
async fn follow_event(app: &web::Data<AppState>, e: &StoredEvent) {
    if let Some(t) = e.stream_id.strip_prefix("table-") {
        // The table chat never makes anything due: its entries wake no table task.
        if matches!(e.event_type.as_str(), "game_ended" | "chat_said" | "seat_muted") {
            return;
        }
        ensure_task(app, t);
    } else if let Some(g) = e.stream_id.strip_prefix("gathering-") {
        // The organiser's pause, resume and cancel reach the tables at once.
        if matches!(e.event_type.as_str(), "gathering_paused" | "gathering_resumed" | "gathering_cancelled")
            && let Ok(Some(gat)) = app.gatherings.get(app.store.as_ref(), g).await
        {
            for s in &gat.stages {
                for (c, _) in &s.circles {
                    poke(app, &c.table_id);
                }
            }
        }
        if matches!(
            e.event_type.as_str(),
            "gathering_started" | "stage_drawn" | "gathering_resumed" | "player_dropped" | "player_replaced"
        ) {
            trigger_reconcile(app.clone(), g.to_string());
        }
        if matches!(e.event_type.as_str(), "gathering_ended" | "gathering_cancelled") {
            app.driver.reconciling.lock().expect("runs").remove(g);
            // Off the follower: a slow lease session must not hold up the log.
            let (owner, lease) = (app.clone(), gathering_lease(g));
            app.driver.workers.spawn(async move { owner.leases.release(&lease).await });
        }
    } else if e.stream_id == OUTAGES {
        // Another process recorded an outage: its clocks move for every table here too.
        drive_all(app);
    }
}

/// Appends a checkpoint of the live set at the follower's position (skipped when another
/// process appended one meanwhile; a failure waits for the next round).
async fn checkpoint(app: &AppState, f: &mut Follow) {
    let c = Checkpoint { position: f.after, live: app.driver.live() };
    let ev = store::NewEvent {
        event_type: "driver_checkpoint".into(),
        schema_version: 1,
        payload: serde_json::to_value(&c).expect("json"),
        metadata: store::Metadata { actor: Some("system:driver".into()), ..Default::default() },
    };
    f.since_checkpoint = 0;
    match app.store.append(CHECKPOINTS, f.checkpoint_version.into(), vec![ev]).await {
        Ok(a) => f.checkpoint_version = a.version,
        Err(store::StoreError::Conflict { actual, .. }) => f.checkpoint_version = actual,
        Err(e) => tracing::warn!(error = %e, "driver checkpoint not written"),
    }
}

/// probes the store every second while it answers; when it fails (or a worker saw it
/// fail), an outage is open from the last good probe and every clock stands still; once the
/// store takes the outage's record (`from`, `to`) in [`OUTAGES`], the outage closes and every
/// live table and gathering resumes with its deadlines moved back by the outage.
async fn watch_store(app: web::Data<AppState>) {
    let mut backoff = Backoff::default();
    loop {
        let open = app.driver.outages.lock().expect("outages").open;
        let Some(from) = open else {
            tokio::time::sleep(PROBE_EVERY).await;
            check_store(&app).await;
            continue;
        };
        // The outage ends when the store answers again (the moment its answer came: a probe
        // sent while it was down may wait up to PROBE_TIMEOUT for it); then it takes the
        // outage's record.
        let answers = matches!(tokio::time::timeout(PROBE_TIMEOUT, app.store.ping()).await, Ok(Ok(())));
        let to = app.clock.now().max(from);
        match if answers {
            record_outage(&app, from, to).await
        } else {
            Err(store::StoreError::Other("no answer".into()))
        } {
            Ok(()) => {
                app.driver.outages.lock().expect("outages").open = None;
                tracing::warn!(%from, %to, "the event store answers again: clocks resume, moved back by the outage");
                backoff.reset();
                drive_all(&app);
            }
            Err(e) => {
                tracing::debug!(error = %e, "the event store still fails");
                tokio::time::sleep(backoff.next()).await;
            }
        }
    }
}

/// Pings the store: a success is the latest moment it was known to work; a failure (or no
/// answer within [`PROBE_TIMEOUT`]) opens an outage. True when it answered and no outage is
/// open.
async fn check_store(app: &AppState) -> bool {
    let now = app.clock.now();
    // A full store still answers a ping, but nobody can act on it: it counts as an outage too.
    let probe = async {
        app.store.ping().await?;
        app.store.writable().await
    };
    match tokio::time::timeout(PROBE_TIMEOUT, probe).await {
        Ok(Ok(())) => {
            let mut o = app.driver.outages.lock().expect("outages");
            if o.open.is_none() {
                o.last_ok = Some(now);
            }
            o.open.is_none()
        }
        Ok(Err(e)) => {
            tracing::debug!(error = %e, "store probe failed");
            app.driver.store_failed(now);
            false
        }
        Err(_) => {
            tracing::debug!("store probe timed out");
            app.driver.store_failed(now);
            false
        }
    }
}

/// Appends the outage's record to [`OUTAGES`] (retrying a concurrent append by another
/// process) and folds it.
async fn record_outage(app: &AppState, from: DateTime<Utc>, to: DateTime<Utc>) -> Result<(), store::StoreError> {
    let ev = || store::NewEvent {
        event_type: "store_outage_recorded".into(),
        schema_version: 1,
        payload: serde_json::json!({ "from": from.to_rfc3339(), "to": to.to_rfc3339() }),
        metadata: store::Metadata { actor: Some("system:driver".into()), ..Default::default() },
    };
    for _ in 0..8 {
        let version = app.store.read_last(OUTAGES).await?.map_or(store::StreamVersion::EMPTY, |e| e.stream_version);
        match app.store.append(OUTAGES, version.into(), vec![ev()]).await {
            Ok(a) => {
                for e in app.store.read_stream(OUTAGES, a.version).await? {
                    app.driver.note_outage(&e);
                }
                return Ok(());
            }
            Err(store::StoreError::Conflict { .. }) => continue,
            Err(e) => return Err(e),
        }
    }
    Err(store::StoreError::Other("the outage record kept meeting concurrent appends".into()))
}

fn note(driver: &Driver, e: &StoredEvent) {
    if e.stream_id == OUTAGES {
        driver.note_outage(e);
        return;
    }
    let mut live = driver.live.lock().expect("live");
    if let Some(t) = e.stream_id.strip_prefix("table-") {
        match e.event_type.as_str() {
            "table_created" => {
                live.tables.insert(t.to_string());
            }
            "game_ended" => {
                live.tables.remove(t);
            }
            _ => {}
        }
    } else if let Some(g) = e.stream_id.strip_prefix("gathering-") {
        match e.event_type.as_str() {
            "gathering_started" => {
                live.gatherings.insert(g.to_string());
            }
            "gathering_ended" | "gathering_cancelled" => {
                live.gatherings.remove(g);
            }
            _ => {}
        }
    }
}

/// Wakes a table's task, if it runs.
pub(crate) fn poke(app: &AppState, table: &str) {
    if let Some(tx) = app.driver.tasks.lock().expect("tasks").get(table) {
        let _ = tx.send(());
    }
}

/// Starts a task for `table` unless one runs; otherwise wakes it.
fn ensure_task(app: &web::Data<AppState>, table: &str) {
    let mut tasks = app.driver.tasks.lock().expect("tasks");
    if let Some(tx) = tasks.get(table) {
        let _ = tx.send(());
        return;
    }
    let (tx, rx) = watch::channel(());
    tasks.insert(table.to_string(), tx);
    let app2 = app.clone();
    let table = table.to_string();
    app.driver.workers.spawn(async move {
        table_task(app2.clone(), table.clone(), rx).await;
        app2.driver.tasks.lock().expect("tasks").remove(&table);
    });
}

/// Runs the gathering process manager for `id` over every circle table of its current stage
/// ([`trigger_reconcile_after`] when one table ended).
pub fn trigger_reconcile(app: web::Data<AppState>, id: String) {
    request_run(app, id, None);
}

/// Runs the gathering process manager for `id` once circle table `table` has ended: the run
/// reads that table and those it does not know to be playing, not the whole stage.
pub fn trigger_reconcile_after(app: web::Data<AppState>, id: String, table: String) {
    request_run(app, id, Some(table));
}

/// The lease of gathering `id` ([`crate::store::leases`]).
fn gathering_lease(id: &str) -> String {
    format!("gathering-{id}")
}

/// The lease of table `id`.
fn table_lease(id: &str) -> String {
    format!("table-{id}")
}

/// One run at a time per gathering and process, and only in the process that holds the
/// gathering's lease (the others leave it to that one; [`sweep_leases`] takes it over if that
/// process goes away). Triggers that come while a run waits join it. A failed run is retried
/// with backoff until it succeeds (a gathering finishes after a store outage without a
/// restart).
fn request_run(app: web::Data<AppState>, id: String, ended: Option<String>) {
    let runs = app.driver.reconciling.lock().expect("runs").entry(id.clone()).or_default().clone();
    {
        let mut asked = runs.asked.lock().expect("asked");
        match ended {
            Some(t) => asked.ended.push(t),
            None => asked.all = true,
        }
    }
    if runs.queued.swap(true, Ordering::SeqCst) {
        return;
    }
    let driver = app.clone();
    driver.driver.workers.spawn(async move {
        let mut backoff = Backoff::default();
        loop {
            let r = {
                let mut known = runs.known.lock().await;
                runs.queued.store(false, Ordering::SeqCst);
                let asked = std::mem::take(&mut *runs.asked.lock().expect("asked"));
                if asked.all {
                    known.forget();
                }
                for t in asked.ended {
                    known.look_at(t);
                }
                if !app.leases.hold(&gathering_lease(&id)).await {
                    return;
                }
                match app.gatherings.get(app.store.as_ref(), &id).await {
                    Ok(Some(g)) => crate::game::with_game!(g.settings.game, reconcile_game(&app, &id, &mut known)),
                    Ok(None) => Ok(()),
                    Err(e) => Err(e.into()),
                }
            };
            match r {
                Ok(()) => {
                    // A run after the end (a late trigger) took the lease again: give it back.
                    if app.leases.shared()
                        && let Ok(Some(g)) = app.gatherings.get(app.store.as_ref(), &id).await
                        && g.over()
                    {
                        app.leases.release(&gathering_lease(&id)).await;
                    }
                    return;
                }
                Err(e) => {
                    tracing::warn!(gathering = %id, error = %e, "gathering manager failed; retrying");
                    check_store(&app).await;
                    tokio::time::sleep(backoff.next()).await;
                }
            }
        }
    });
}

/// The gathering process manager for a gathering of the game `G` (its circle tables in `G`'s
/// table cache).
async fn reconcile_game<G: ServedGame + flicker_platform::gatherings::CircleGame>(
    app: &AppState,
    id: &str,
    known: &mut manager::Known,
) -> Result<(), manager::GatheringError> {
    let store = app.store.as_ref();
    let mut rng = rand::make_rng::<rand::rngs::StdRng>();
    manager::reconcile(store, G::tables(app), &app.gatherings, id, known, &mut rng).await
}

/// How often [`sweep_leases`] looks for live gatherings whose lease is free.
const SWEEP_EVERY: Duration = Duration::from_secs(1);
/// How long a table task that may not act (another process holds its lease) waits before it
/// asks again, unless the table changes first.
const LEASE_RETRY: Duration = Duration::from_secs(1);

/// With several processes on one store: takes over the lease of every live gathering whose
/// process went away (or never claimed it), and runs its manager. Tables need no sweep: a table
/// task with an action due claims its table's lease itself.
async fn sweep_leases(app: web::Data<AppState>) {
    loop {
        tokio::time::sleep(SWEEP_EVERY).await;
        // A lost lease session is noticed here even by a process that claims nothing.
        app.leases.heartbeat().await;
        if !app.driver.caught_up.load(Ordering::SeqCst) {
            continue;
        }
        for g in app.driver.live().gatherings {
            let lease = gathering_lease(&g);
            if !app.leases.holds(&lease) && app.leases.hold(&lease).await {
                tracing::info!(gathering = %g, "driver: took the gathering's lease");
                trigger_reconcile(app.clone(), g);
            }
        }
    }
}

/// Waits `d`, or less if the table changes; false when the driver dropped the table.
async fn wait_or_change(changed: &mut watch::Receiver<()>, d: Duration) -> bool {
    tokio::select! {
        r = changed.changed() => r.is_ok(),
        _ = tokio::time::sleep(d) => true,
    }
}

/// Drives one table until its game ends (or its gathering is over). A failed read is retried
/// with backoff, never the end of the task.
async fn table_task(app: web::Data<AppState>, table: String, changed: watch::Receiver<()>) {
    drive_table(&app, &table, changed).await;
    app.leases.release(&table_lease(&table)).await;
}

/// [`table_task`]'s loop. Acts only while this process holds the table's lease (taken when an
/// action is due; a process that may not act waits for the table to change, or
/// [`LEASE_RETRY`]).
async fn drive_table(app: &web::Data<AppState>, table: &str, mut changed: watch::Receiver<()>) {
    // The table's game, read once (retried like any read).
    let mut backoff = Backoff::default();
    let game = loop {
        match app.table_games.of(app.store.as_ref(), table).await {
            Ok(g) => break g,
            Err(tables::TableError::NotFound { .. }) => return,
            Err(e) => {
                tracing::warn!(%table, error = %e, "driver: reading the table's game failed; retrying");
                check_store(app).await;
                if !wait_or_change(&mut changed, backoff.next()).await {
                    return;
                }
            }
        }
    };
    with_game!(game, drive_table_of(app, table, changed))
}

/// [`drive_table`] for a table of the game `G`.
async fn drive_table_of<G: ServedGame>(app: &web::Data<AppState>, table: &str, mut changed: watch::Receiver<()>) {
    let store = app.store.as_ref();
    let mut backoff = Backoff::default();
    let lease = table_lease(table);
    // Read the table from the database, not from heads learnt from the log (a lease just taken).
    let mut afresh = false;
    loop {
        changed.mark_unchanged();
        let load = if std::mem::take(&mut afresh) {
            crate::store::fresh(G::tables(app).load(store, table)).await
        } else {
            G::tables(app).load_settled(store, table).await
        };
        let loaded = match load {
            Ok(snap) => match &snap.info.gathering {
                Some(g) => match app.gatherings.get(store, &g.gathering_id).await {
                    Ok(gathering) => Ok((snap, gathering)),
                    Err(e) => Err(e.to_string()),
                },
                None => Ok((snap, None)),
            },
            Err(tables::TableError::NotFound { .. }) => return,
            Err(p) => Err(p.to_string()),
        };
        let (snap, gathering) = match loaded {
            Ok(l) => l,
            Err(e) => {
                tracing::warn!(%table, error = %e, "driver: reading the table failed; retrying");
                check_store(app).await;
                if !wait_or_change(&mut changed, backoff.next()).await {
                    return;
                }
                continue;
            }
        };
        backoff.reset();
        if snap.finished() {
            if let Some(g) = &snap.info.gathering {
                trigger_reconcile_after(app.clone(), g.gathering_id.clone(), table.to_string());
            }
            return;
        }
        if gathering.as_ref().is_some_and(|g| g.over()) {
            return;
        }
        let paused = gathering.as_ref().is_some_and(|g| g.status == Status::Paused);
        let pauses = app.driver.with_outages(gathering.as_ref().map(|g| g.pauses.as_slice()).unwrap_or_default());
        let due = if paused || snap.events.is_empty() { None } else { next_due(&snap, &pauses, app.clock.now()) };
        let act_now = due.as_ref().is_some_and(|(at, _)| *at <= app.clock.now());
        let may_pass = !paused && !snap.events.is_empty() && wants_auto_pass(&snap);
        if (act_now || may_pass) && !app.leases.holds(&lease) {
            if !app.leases.hold(&lease).await {
                // Another process drives this table: it acts, and the change wakes this task.
                if !wait_or_change(&mut changed, LEASE_RETRY).await {
                    return;
                }
            }
            // Just taken: the table as read before may be behind what its last holder stored.
            afresh = true;
            continue;
        }
        if may_pass && auto_pass(app, &snap).await {
            continue;
        }
        if let Some((at, what)) = due {
            if act_now {
                // A clock runs out only on a store known to answer now: a deadline that passed
                // during an outage not yet noticed waits for the outage's record.
                if matches!(what, Due::Timeout | Due::Abandon(_)) && !check_store(app).await {
                    if !wait_or_change(&mut changed, backoff.next()).await {
                        return;
                    }
                    continue;
                }
                if !act(app, &snap, what, &pauses).await {
                    // Refused (logged): wait for a change or a second before trying again.
                    if !wait_or_change(&mut changed, Duration::from_secs(1)).await {
                        return;
                    }
                }
                continue;
            }
            // Not held while waiting: a command folds into the cached table without a copy
            // when nobody else holds it (`Tables::command_from`).
            drop((snap, gathering));
            tokio::select! {
                r = changed.changed() => if r.is_err() { return },
                _ = app.clock.sleep_until(at) => {}
            }
        } else {
            drop((snap, gathering));
            if changed.changed().await.is_err() {
                return;
            }
        }
    }
}

/// Sends the auto-pass due at `snap`, if any ([`flicker_platform::due::auto_pass`]), as its
/// player's own answer (the same actor and an idempotency key, as a hand-given answer is
/// stored); true when it was taken. Auto-pass is read from the seat holders' accounts, and
/// only at tables that hold their windows.
pub(crate) async fn auto_pass<G: ServedGame>(app: &AppState, snap: &Arc<GameSnapshot<G>>) -> bool {
    if !wants_auto_pass(snap) {
        return false;
    }
    let mut on = std::collections::HashSet::new();
    for (holder, bot) in snap.info.seats.iter().zip(&snap.info.bots) {
        if let (Some(h), None) = (holder, bot)
            && !on.contains(h)
            && let Ok(Some(a)) = app.accounts.get(app.store.as_ref(), h, app.clock.now()).await
            && a.auto_pass
        {
            on.insert(h.clone());
        }
    }
    let Some((seat, holder, cmd)) = flicker_platform::due::auto_pass::<G>(snap, |h| on.contains(h)) else {
        return false;
    };
    let version = snap.version;
    let key = uuid::Uuid::new_v4().to_string();
    let hash = format!("auto-pass:{seat}");
    let tried = Tried::default();
    let r = G::tables(app)
        .command_from(Some(snap.clone()), app.store.as_ref(), &snap.info.table_id, &holder, Some((&key, &hash)), |s| {
            tried.decide(s.version == version, || tables::decide(s, &cmd, &mut rand::rng()))
        })
        .await;
    match r {
        Ok(_) => tried.count(app, "auto_pass"),
        Err(e) => {
            tracing::debug!(table = %snap.info.table_id, seat, error = %e, "auto-pass refused");
            false
        }
    }
}

/// Whether a driver command planned at one version was stored: the command is decided only on
/// the table at that version (an append that meets another writer's reads the table again,
/// finds it moved on, and decides nothing).
#[derive(Default)]
struct Tried {
    /// Decided at least once.
    computed: std::sync::atomic::AtomicBool,
    /// The last decision was on the planned version and decided events (so, once the command
    /// returns, stored).
    last: std::sync::atomic::AtomicBool,
}

impl Tried {
    fn decide<E>(
        &self,
        planned: bool,
        decide: impl FnOnce() -> Result<Vec<store::NewEvent>, E>,
    ) -> Result<Vec<store::NewEvent>, E> {
        if !planned {
            self.last.store(false, Ordering::Relaxed);
            return Ok(Vec::new());
        }
        self.computed.store(true, Ordering::Relaxed);
        let r = decide();
        // A decision that stores nothing is no action (the caller waits before trying again).
        self.last.store(matches!(&r, Ok(v) if !v.is_empty()), Ordering::Relaxed);
        r
    }

    /// After the command returned `Ok`: counts it as stored or as computed for nothing
    /// (`kind`, [`crate::metrics::Metrics::driver_actions`]); true when stored.
    fn count(&self, app: &AppState, kind: &str) -> bool {
        let stored = self.last.load(Ordering::Relaxed);
        if stored {
            app.metrics.driver_actions.with_label_values(&[kind]).inc();
        } else if self.computed.load(Ordering::Relaxed) {
            app.metrics.driver_conflicts.with_label_values(&[kind]).inc();
        }
        stored
    }
}

/// Whether an auto-pass may be due at `snap` (a held reaction window), before any account is
/// read.
fn wants_auto_pass<G: ServedGame>(snap: &GameSnapshot<G>) -> bool {
    G::decision_point(&snap.state).hold_windows && crate::clocks::is_reaction::<G>(&snap.state)
}

/// Takes the due action at the version it was planned from (skipped if the table moved on).
/// A bot whose answer is refused falls back to the prompt's default. False when refused.
async fn act<G: ServedGame>(app: &AppState, planned: &Arc<GameSnapshot<G>>, what: Due, pauses: &Pauses) -> bool {
    if let Due::Bot(_) = what {
        return bot_chain(app, planned, pauses).await;
    }
    command(app, planned, &what).await
}

/// Open pauses and outages, as [`next_due`] takes them.
type Pauses = [(DateTime<Utc>, Option<DateTime<Utc>>)];

/// A chain of bot answers stops once it holds this many events (the answer that reaches it is the
/// last, so a chain may hold a few more; an 8-player game stores about 1,300).
const CHAIN_EVENTS: usize = 512;

/// The built-in bots' answers due now, one after another, in one append ([`tables::Tables::chain`]):
/// after each answer the next thing due is planned on the table as folded in memory, and the
/// chain goes on while that is another bot's answer due at once (no bot delay, no window held
/// open, no person to wait for). A bot whose answer is refused answers its prompt's default.
/// True when anything was appended.
async fn bot_chain<G: ServedGame>(app: &AppState, planned: &Arc<GameSnapshot<G>>, pauses: &Pauses) -> bool {
    let now = app.clock.now();
    let mut rng = rand::make_rng::<rand::rngs::StdRng>();
    let r = G::tables(app)
        .chain(planned.clone(), app.store.as_ref(), now, CHAIN_EVENTS, |snap| {
            let Some((at, Due::Bot(seat))) = next_due(snap, pauses, now) else { return None };
            if at > now {
                return None;
            }
            let prompt = G::prompt_for(&snap.state, seat)?;
            let kind = snap.info.bots[seat as usize]?;
            let name = snap.info.seats[seat as usize].clone().unwrap_or_default();
            let answer = G::bot_answer(kind, &snap.state, seat, &prompt, &mut rng);
            let events = tables::decide(snap, &G::answer_command(&prompt, answer), &mut rng)
                .or_else(|e| {
                    tracing::warn!(table = %snap.info.table_id, seat, problem = %e, "bot answer refused; answering the default");
                    let default = G::default_answer(&prompt);
                    tables::decide(snap, &G::answer_command(&prompt, default), &mut rng)
                })
                .ok()?;
            Some(tables::Link { actor: format!("bot:{name}"), events })
        })
        .await;
    match r {
        Ok(tables::Chained::Appended(a)) => {
            tracing::debug!(table = %planned.info.table_id, events = a.version - planned.version, "bot chain");
            app.metrics.driver_actions.with_label_values(&["bot_chain"]).inc();
            true
        }
        Ok(tables::Chained::Nothing) => false,
        Ok(tables::Chained::Conflict) => {
            tracing::debug!(table = %planned.info.table_id, "bot chain not stored: another writer appended first");
            app.metrics.driver_conflicts.with_label_values(&["bot_chain"]).inc();
            false
        }
        Err(e) => {
            tracing::warn!(table = %planned.info.table_id, problem = %e, "bot answers not stored");
            false
        }
    }
}

/// The clock's action `what` (a window's close, a time-out's defaults, an abandonment) at the
/// version it was planned from. Bots answer through [`bot_chain`].
async fn command<G: ServedGame>(app: &AppState, planned: &Arc<GameSnapshot<G>>, what: &Due) -> bool {
    let version = planned.version;
    let (actor, cmd) = match what {
        // [`act`] sends bots through [`bot_chain`].
        Due::Bot(_) => return false,
        Due::CloseWindow => ("system:clock".to_string(), G::close_window_command(&planned.state)),
        Due::Timeout => ("system:clock".to_string(), G::timeout_command(&planned.state)),
        Due::Abandon(seat) => ("system:clock".to_string(), G::concede_command(*seat)),
    };
    let tried = Tried::default();
    let r = G::tables(app)
        .command_from(Some(planned.clone()), app.store.as_ref(), &planned.info.table_id, &actor, None, |snap| {
            tried.decide(snap.version == version, || tables::decide(snap, &cmd, &mut rand::rng()))
        })
        .await;
    match r {
        Ok(_) => {
            let stored = tried.count(app, "clock");
            if !stored {
                tracing::debug!(table = %planned.info.table_id, ?what, "driver action changed nothing (another process acted first)");
            }
            stored
        }
        Err(p) => {
            tracing::warn!(table = %planned.info.table_id, ?what, problem = %p, "driver action refused");
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clocks::shifted;
    use crate::driver_state::merge_spans;
    use chrono::TimeZone;

    fn t(s: i64) -> DateTime<Utc> {
        Utc.timestamp_opt(s, 0).unwrap()
    }

    /// R10.7.3: overlapping outages and pauses count once; an open one covers all after
    /// it; disjoint ones stay apart.
    #[test]
    fn outage_spans_merge() {
        assert_eq!(
            merge_spans(vec![(t(50), Some(t(70))), (t(10), Some(t(20))), (t(60), Some(t(90)))]),
            vec![(t(10), Some(t(20))), (t(50), Some(t(90)))]
        );
        assert_eq!(
            merge_spans(vec![(t(50), None), (t(60), Some(t(90))), (t(10), Some(t(20)))]),
            vec![(t(10), Some(t(20))), (t(50), None)]
        );
        assert_eq!(merge_spans(vec![(t(10), Some(t(20))), (t(15), None)]), vec![(t(10), None)]);
    }

    /// R10.7.1: a recorded outage moves a deadline open across it back by its length,
    /// counted once when it overlaps a gathering pause; an open outage stops every clock.
    #[test]
    fn outages_move_deadlines_back() {
        let d = Driver::default();
        assert_eq!(d.with_outages(&[(t(10), Some(t(20)))]), vec![(t(10), Some(t(20)))]);
        d.outages.lock().unwrap().recorded.insert(store::StreamVersion::new(1), (t(50), t(55)));
        let pauses = d.with_outages(&[(t(52), Some(t(60)))]);
        assert_eq!(pauses, vec![(t(50), Some(t(60)))]);
        // Opened at 40 with a deadline at 100: due at 110.
        assert_eq!(shifted(t(100), t(40), &pauses), Some(t(110)));
        // Opened after the outage: not moved.
        assert_eq!(shifted(t(100), t(70), &d.with_outages(&[])), Some(t(100)));
        d.store_failed(t(80));
        assert_eq!(shifted(t(100), t(40), &d.with_outages(&[])), None, "an open outage stops the clock");
        assert!(!d.ready());
    }

    /// backoff doubles to its cap, with jitter in the upper half of each step.
    #[test]
    fn backoff_is_capped_and_jittered() {
        let mut b = Backoff::default();
        let waits: Vec<Duration> = (0..10).map(|_| b.next()).collect();
        assert!(waits[0] >= Duration::from_millis(50) && waits[0] <= Duration::from_millis(100));
        assert!(waits.iter().all(|w| *w <= Backoff::CAP));
        assert!(waits[9] >= Backoff::CAP / 2);
        b.reset();
        assert!(b.next() <= Duration::from_millis(100));
    }

    fn ev(t: &str, payload: serde_json::Value) -> store::NewEvent {
        store::NewEvent { event_type: t.into(), schema_version: 1, payload, metadata: Default::default() }
    }

    /// the follower starts from the last checkpoint (its position and live set),
    /// not from the start of the log, and folds only what came after it; a checkpoint is
    /// written after `CHECKPOINT_EVERY` events.
    #[tokio::test]
    async fn the_follower_starts_from_the_last_checkpoint() {
        let dir = std::env::temp_dir().join(format!("flicker-driver-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        let store = store::open(&dir.join("flicker.db").display().to_string()).await.unwrap();
        let app = crate::server::state(store.clone()).await.unwrap();
        // History that says table `old` plays; the checkpoint after it says only `kept` does.
        store
            .append(
                "table-old",
                crate::store::ExpectedVersion::NO_STREAM,
                vec![ev("table_created", serde_json::json!({}))],
            )
            .await
            .unwrap();
        let c = Checkpoint {
            position: store.last_position().await.unwrap(),
            live: Live { tables: ["kept".to_string()].into(), gatherings: ["g".to_string()].into() },
        };
        store
            .append(
                CHECKPOINTS,
                crate::store::ExpectedVersion::NO_STREAM,
                vec![ev("driver_checkpoint", serde_json::to_value(&c).unwrap())],
            )
            .await
            .unwrap();
        let f = start(&app).await.unwrap();
        assert_eq!(f.after, c.position);
        assert_eq!(f.checkpoint_version, store::StreamVersion::new(1));
        assert_eq!(app.driver.live(), c.live);
        // What follows the checkpoint is folded on top of it.
        let e = store
            .append(
                "table-new",
                crate::store::ExpectedVersion::NO_STREAM,
                vec![ev("table_created", serde_json::json!({}))],
            )
            .await
            .unwrap();
        for e in store.read_all(f.after, 100).await.unwrap() {
            note(&app.driver, &e);
        }
        assert!(e.position > c.position);
        let live = app.driver.live();
        assert!(live.tables.contains("new") && live.tables.contains("kept") && !live.tables.contains("old"));
        // A checkpoint round appends the live set at the follower's position.
        let mut f = Follow {
            after: e.position,
            since_checkpoint: CHECKPOINT_EVERY,
            checkpoint_version: store::StreamVersion::new(1),
        };
        checkpoint(&app, &mut f).await;
        assert_eq!(f.checkpoint_version, store::StreamVersion::new(2));
        let last: Checkpoint =
            serde_json::from_value(store.read_last(CHECKPOINTS).await.unwrap().unwrap().payload).unwrap();
        assert_eq!(last, Checkpoint { position: e.position, live });
    }
}
