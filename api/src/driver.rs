//! The table driver: the server's clocks (R10.7), minimum windows (R10.6.5), built-in bots and
//! the gathering process manager's triggers. It follows the global event log: every table
//! whose game is not over gets a task that sleeps until the next thing due at that table (a
//! bot's answer, the end of a minimum window, a deadline) or until the table changes. Every
//! action it takes is a command at the version it planned from, so several API processes on one
//! database can run drivers side by side: the store lets one of them act and the others skip.
//! After a restart, deadlines resume from the clock marks stored with the events.

use crate::bots;
use crate::clocks::shifted;
use crate::gatherings::{Status, manager};
use crate::server::AppState;
use crate::store::{self, StoredEvent};
use crate::tables::{self, Snapshot};
use actix_web::web;
use chrono::{DateTime, Utc};
use flicker_engine::window::{SimultaneousWindow, held_answer, simultaneous_window};
use flicker_engine::{Command, Prompt, PromptKind};
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use tokio::sync::watch;

/// Running table tasks (table id -> change signal) and gathering reconcile locks.
#[derive(Default)]
pub struct Driver {
    tasks: Mutex<HashMap<String, watch::Sender<()>>>,
    reconciling: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
}

/// What a table waits for next.
#[derive(Debug, Clone, PartialEq)]
enum Due {
    /// A built-in bot answers for this seat.
    Bot(u8),
    /// R10.6.5: a held reaction decision point (a simultaneous window whose answers are all in,
    /// or a reaction prompt whose answer is held) has reached its public close time; close it.
    CloseWindow,
    /// R10.7.1: the deadline has passed; apply the defaults.
    Timeout,
    /// R10.7.4: this seat's Ritual prompts timed out too often in a row: it concedes.
    Abandon(u8),
}

/// Starts the driver on the server's runtime.
pub fn spawn(app: web::Data<AppState>) {
    actix_web::rt::spawn(async move {
        if let Err(e) = run(app).await {
            tracing::error!(error = %e, "the table driver stopped");
        }
    });
}

async fn run(app: web::Data<AppState>) -> Result<(), store::StoreError> {
    // Catch up: which tables still play, which gatherings still run.
    let mut after = 0;
    let mut live_tables = HashSet::new();
    let mut live_gatherings = HashSet::new();
    loop {
        let batch = app.store.read_all(after, 2000).await?;
        if batch.is_empty() {
            break;
        }
        for e in &batch {
            after = e.position;
            note(e, &mut live_tables, &mut live_gatherings);
        }
    }
    tracing::info!(tables = live_tables.len(), gatherings = live_gatherings.len(), "driver: resuming clocks");
    for g in live_gatherings {
        trigger_reconcile(app.clone(), g);
    }
    for t in live_tables {
        ensure_task(&app, &t);
    }
    let mut sub = store::subscribe(app.store.clone(), after);
    while let Some(e) = sub.recv().await {
        let _ = app.changes.send(e.stream_id.clone());
        if let Some(t) = e.stream_id.strip_prefix("table-") {
            if e.event_type == "game_ended" {
                continue;
            }
            ensure_task(&app, t);
        } else if let Some(g) = e.stream_id.strip_prefix("gathering-") {
            // The organiser's pause, resume and cancel reach the tables at once.
            if matches!(e.event_type.as_str(), "gathering_paused" | "gathering_resumed" | "gathering_cancelled")
                && let Ok(Some(gat)) = app.gatherings.get(app.store.as_ref(), g).await
            {
                for s in &gat.stages {
                    for (c, _) in &s.circles {
                        poke(&app, &c.table_id);
                    }
                }
            }
            if matches!(e.event_type.as_str(), "gathering_started" | "stage_drawn" | "gathering_resumed") {
                trigger_reconcile(app.clone(), g.to_string());
            }
        }
    }
    Ok(())
}

fn note(e: &StoredEvent, tables: &mut HashSet<String>, gatherings: &mut HashSet<String>) {
    if let Some(t) = e.stream_id.strip_prefix("table-") {
        match e.event_type.as_str() {
            "table_created" => {
                tables.insert(t.to_string());
            }
            "game_ended" => {
                tables.remove(t);
            }
            _ => {}
        }
    } else if let Some(g) = e.stream_id.strip_prefix("gathering-") {
        match e.event_type.as_str() {
            "gathering_started" => {
                gatherings.insert(g.to_string());
            }
            "gathering_ended" | "gathering_cancelled" => {
                gatherings.remove(g);
            }
            _ => {}
        }
    }
}

/// Wakes a table's task, if it runs.
fn poke(app: &AppState, table: &str) {
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
    let app = app.clone();
    let table = table.to_string();
    actix_web::rt::spawn(async move {
        table_task(app.clone(), table.clone(), rx).await;
        app.driver.tasks.lock().expect("tasks").remove(&table);
    });
}

/// Runs the gathering process manager for `id`, one run at a time per gathering and process.
pub fn trigger_reconcile(app: web::Data<AppState>, id: String) {
    actix_web::rt::spawn(async move {
        let lock = app.driver.reconciling.lock().expect("locks").entry(id.clone()).or_default().clone();
        let _guard = lock.lock().await;
        if let Err(e) = manager::reconcile(app.store.as_ref(), &app.tables, &id).await {
            tracing::warn!(gathering = %id, error = %e, "gathering manager");
        }
    });
}

/// Whether a bot still has to answer this prompt (a simultaneous Salt prompt it answered stays
/// open so it may change its answer; a bot never does).
fn needs_answer(p: &Prompt) -> bool {
    !matches!(&p.kind, PromptKind::Salt { current: Some(_), .. })
}

/// The next thing due at a table at `now` (server clock), and when.
///
/// R10.6.4, R10.6.5 (docs/rules-decisions.md, "Windows close at a public time"): at a table that
/// holds its windows, a reaction decision point closes at its deadline and at no other time: a
/// simultaneous window whose answers are all in and a reaction prompt whose answer is held get
/// `CloseWindow` there, anything unanswered gets `Timeout` there. So the close time is a function
/// of when the point opened and of the table's settings, never of when or whether answers came.
fn next_due(
    snap: &Snapshot,
    pauses: &[(DateTime<Utc>, Option<DateTime<Utc>>)],
    now: DateTime<Utc>,
) -> Option<(DateTime<Utc>, Due)> {
    let clock = snap.clock.as_ref()?;
    let since = clock.opened_at;
    let limit = snap.info.abandonment;
    if limit > 0
        && let Some(seat) = (0..snap.ritual_timeouts.len() as u8)
            .find(|&s| snap.ritual_timeouts[s as usize] >= limit && snap.state.may_concede(s))
    {
        return Some((now, Due::Abandon(seat)));
    }
    let mut best: Option<(DateTime<Utc>, Due)> = None;
    let mut consider = |at: Option<DateTime<Utc>>, due: Due| {
        if let Some(at) = at
            && best.as_ref().is_none_or(|(b, _)| at < *b)
        {
            best = Some((at, due));
        }
    };
    for p in flicker_engine::prompts(&snap.state) {
        if snap.info.bots.get(p.seat as usize).is_some_and(Option::is_some) && needs_answer(&p) {
            let at = since + chrono::Duration::milliseconds(snap.info.bot_delay_ms as i64);
            consider(shifted(at, since, pauses), Due::Bot(p.seat));
            break;
        }
    }
    if simultaneous_window(&snap.state) == Some(SimultaneousWindow::HeldOpen) || held_answer(&snap.state).is_some() {
        consider(shifted(clock.deadline, since, pauses), Due::CloseWindow);
    }
    consider(shifted(clock.deadline, since, pauses), Due::Timeout);
    best
}

/// R10.6.4, R10.6.5: when the driver closes the open reaction decision point of a table that
/// holds its windows (a simultaneous window, a held answer, a reaction prompt), as `(opened,
/// close)` on the server clock, deciding at `now`; `None` at any other decision point or
/// table. The leak scanner checks that the close is the point's deadline and never moves.
#[cfg(test)]
pub(crate) fn reaction_close(snap: &Snapshot, now: DateTime<Utc>) -> Option<(DateTime<Utc>, DateTime<Utc>)> {
    let mark = snap.clock.as_ref()?;
    let reaction = simultaneous_window(&snap.state).is_some()
        || held_answer(&snap.state).is_some()
        || flicker_engine::prompts(&snap.state).first().is_some_and(|p| p.kind.is_reaction());
    if !snap.state.settings().is_some_and(|s| s.hold_windows) || !reaction {
        return None;
    }
    match next_due(snap, &[], now)? {
        (at, Due::CloseWindow | Due::Timeout) => Some((mark.opened_at, at)),
        _ => None,
    }
}

async fn table_task(app: web::Data<AppState>, table: String, mut changed: watch::Receiver<()>) {
    let store = app.store.as_ref();
    loop {
        changed.mark_unchanged();
        let snap = match app.tables.load(store, &table).await {
            Ok(s) => s,
            Err(_) => return,
        };
        let gathering = match &snap.info.gathering {
            Some(g) => app.gatherings.get(store, &g.gathering_id).await.ok().flatten(),
            None => None,
        };
        if snap.state.is_finished() {
            if let Some(g) = &snap.info.gathering {
                trigger_reconcile(app.clone(), g.gathering_id.clone());
            }
            return;
        }
        if gathering.as_ref().is_some_and(|g| g.over()) {
            return;
        }
        let paused = gathering.as_ref().is_some_and(|g| g.status == Status::Paused);
        let pauses = gathering.as_ref().map(|g| g.pauses.clone()).unwrap_or_default();
        let due = if paused || snap.events.is_empty() { None } else { next_due(&snap, &pauses, app.clock.now()) };
        if let Some((at, what)) = due {
            if at <= app.clock.now() {
                if !act(&app, &snap, what).await {
                    // Refused (logged): wait for a change or a second before trying again.
                    tokio::select! {
                        r = changed.changed() => if r.is_err() { return },
                        _ = tokio::time::sleep(std::time::Duration::from_secs(1)) => {}
                    }
                }
                continue;
            }
            tokio::select! {
                r = changed.changed() => if r.is_err() { return },
                _ = app.clock.sleep_until(at) => {}
            }
        } else if changed.changed().await.is_err() {
            return;
        }
    }
}

/// Takes the due action at the version it was planned from (skipped if the table moved on).
/// A bot whose answer is refused falls back to the prompt's default. False when refused.
async fn act(app: &AppState, planned: &Arc<Snapshot>, what: Due) -> bool {
    if command(app, planned, &what, false).await {
        return true;
    }
    matches!(what, Due::Bot(_)) && command(app, planned, &what, true).await
}

async fn command(app: &AppState, planned: &Arc<Snapshot>, what: &Due, default: bool) -> bool {
    let version = planned.version;
    let (actor, cmd) = match what {
        Due::Bot(seat) => {
            let Some(prompt) = flicker_engine::prompt_for(&planned.state, *seat) else { return false };
            let kind = planned.info.bots[*seat as usize].expect("a bot seat");
            let answer =
                if default { prompt.default.clone() } else { bots::answer(kind, &planned.state, *seat, &prompt) };
            let name = planned.info.seats[*seat as usize].clone().unwrap_or_default();
            (format!("bot:{name}"), Command::Answer { seat: *seat, prompt: Some(prompt.id), answer })
        }
        Due::CloseWindow => ("system:clock".to_string(), Command::CloseWindow),
        Due::Timeout => ("system:clock".to_string(), Command::Timeout),
        Due::Abandon(seat) => ("system:clock".to_string(), Command::Concede { seat: *seat }),
    };
    let r = app
        .tables
        .command_from(Some(planned.clone()), app.store.as_ref(), &planned.info.table_id, &actor, None, |snap| {
            if snap.version != version {
                return Ok(Vec::new());
            }
            tables::decide(snap, &cmd)
        })
        .await;
    match r {
        Ok((after, _)) if after.version == version => {
            tracing::debug!(table = %planned.info.table_id, ?what, "driver action changed nothing (another process acted first)");
            false
        }
        Ok(_) => true,
        Err(p) => {
            tracing::warn!(table = %planned.info.table_id, ?what, problem = %p, "driver action refused");
            false
        }
    }
}
