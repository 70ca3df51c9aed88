//! Live streams (Server-Sent Events): one per table, each event redacted for the viewer asking
//! (R10.8), and one per gathering. A table stream's message ids are the viewer's own opaque
//! cursors (they count only what that viewer may see, R10.6.3); a client that reconnects with
//! `Last-Event-ID` resumes after it with nothing missed or repeated. Spectators of a gathering
//! table are held back by its spectator delay.

use crate::auth::MaybeCaller;
use crate::game::{GameSnapshot, with_game};
use crate::gatherings;
use crate::problem::Problem;
use crate::spectate;
use crate::state::AppState;
use crate::state::ServedGame;
use actix_web::{HttpRequest, Responder, get, web};
use actix_web_lab::sse;
use flicker_game::Viewer;
use flicker_wire::streams::*;
use std::time::Duration;
use tokio::sync::{broadcast, mpsc};

type Data = web::Data<AppState>;

/// Keep-alive comment interval.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

fn last_event_id(req: &HttpRequest) -> Option<String> {
    req.headers().get("Last-Event-ID").and_then(|v| v.to_str().ok()).map(str::to_string)
}

/// Streams the table's events as *your* sequence (R10.8), live: `event:` is the event's type,
/// `data:` the event as you may see it (JSON), `id:` your cursor. Reconnect with `Last-Event-ID`
/// to resume. The stream keeps the sequence it began with; when the game ends it sends the rest
/// of that sequence, then `event: finished`, and closes (the complete record is then at
/// `/events`, `/replay` and `/replay.jsonl`).
#[utoipa::path(tag = "spectators", security((), ("bearer" = [])), params(("id" = String, Path, description = "table id"), StreamQuery,
        ("Last-Event-ID" = Option<String>, Header, description = "the last cursor received")),
    responses((status = 200, content_type = "text/event-stream", body = StreamEvent, description = "a stream of events, each as `StreamEvent`"), (status = 400, body = Problem), (status = 404, body = Problem)))]
#[get("/api/v1/tables/{id}/stream")]
pub async fn table_stream(
    state: Data,
    req: HttpRequest,
    caller: MaybeCaller,
    id: web::Path<String>,
    q: web::Query<StreamQuery>,
) -> Result<actix_web::HttpResponse, Problem> {
    if let Some(c) = &caller.0 {
        c.require("read")?;
    }
    let id = id.into_inner();
    let game = state.table_games.of(state.store.as_ref(), &id).await.map_err(Problem::from)?;
    let resume = last_event_id(&req).or_else(|| q.after.clone());
    with_game!(game, table_stream_of(state, &req, caller.0, id, q.into_inner(), resume))
}

async fn table_stream_of<G: ServedGame>(
    state: Data,
    req: &HttpRequest,
    caller: Option<crate::auth::Caller>,
    id: String,
    q: StreamQuery,
    resume: Option<String>,
) -> Result<actix_web::HttpResponse, Problem> {
    let snap = G::tables(&state).load(state.store.as_ref(), &id).await?;
    let sight = spectate::sight(&state, &snap, caller.as_ref(), q.seat, q.commentary).await?;
    let mut viewer = sight.viewer;
    let mut scope = format!("{id}:{viewer:?}");
    let skip = match resume.as_deref() {
        None => 0,
        Some(c) => match state.keys.read_cursor(&scope, c) {
            Ok(n) => n,
            // A stream that began during play resumes in the sequence it began with, even after
            // the end.
            Err(p) if snap.finished() => {
                let play = if q.commentary {
                    Viewer::Commentary
                } else {
                    spectate::play_viewer(&snap, caller.as_ref().map(|c| c.name.as_str()), q.seat)
                };
                let play_scope = format!("{id}:{play:?}");
                let n = state.keys.read_cursor(&play_scope, c).map_err(|_| p)?;
                viewer = play;
                scope = play_scope;
                n
            }
            Err(p) => return Err(p),
        },
    };
    let (tx, rx) = mpsc::channel::<sse::Event>(64);
    let changes = state.changes.subscribe();
    let (seat, commentary) = (q.seat, q.commentary);
    let watch = (!matches!(viewer, Viewer::Seat { .. })).then(|| state.watchers.watch(&crate::tables::stream_of(&id)));
    actix_web::rt::spawn(async move {
        let _watch = watch;
        let mut feed = TableFeed::<G> { state: G::State::default(), done: 0, sent: 0, skip };
        let mut changes = changes;
        let stream_id = crate::tables::stream_of(&id);
        loop {
            let Ok(snap) = G::tables(&state).load(state.store.as_ref(), &id).await else { return };
            let Ok(sight) = spectate::sight(&state, &snap, caller.as_ref(), seat, commentary).await else { return };
            if snap.finished() {
                // Deliver what this viewer's sequence still holds, then close.
                let _ = feed.push(&snap, viewer, snap.events.len(), &state, &scope, &tx).await;
                let _ = tx.send(sse::Data::new("{}").event("finished").into()).await;
                return;
            }
            if feed.push(&snap, viewer, sight.visible, &state, &scope, &tx).await.is_err() {
                return;
            }
            let reveal = sight.next_reveal.map(|t| (t - state.clock.now()).to_std().unwrap_or_default());
            tokio::select! {
                _ = tx.closed() => return,
                _ = wait_for(&mut changes, &stream_id) => {}
                _ = tokio::time::sleep(reveal.unwrap_or(Duration::from_secs(3600))), if reveal.is_some() => {}
            }
        }
    });
    Ok(sse::Sse::from_infallible_receiver(rx).with_keep_alive(KEEP_ALIVE).respond_to(req).map_into_boxed_body())
}

/// Waits for a change of `stream` (or a lagged channel, which may hide one).
pub(super) async fn wait_for(changes: &mut broadcast::Receiver<String>, stream: &str) {
    loop {
        match changes.recv().await {
            Ok(s) if s == stream => return,
            Ok(_) => {}
            Err(broadcast::error::RecvError::Lagged(_)) => return,
            Err(broadcast::error::RecvError::Closed) => std::future::pending::<()>().await,
        }
    }
}

/// The next change announced on `changes`, or `None` once the stream's client has gone.
pub(super) async fn change_unless_closed<T>(
    tx: &mpsc::Sender<T>,
    changes: &mut broadcast::Receiver<String>,
) -> Option<Result<String, broadcast::error::RecvError>> {
    tokio::select! {
        _ = tx.closed() => None,
        r = changes.recv() => Some(r),
    }
}

/// Incremental state of one table stream.
struct TableFeed<G: ServedGame> {
    /// The game folded over the first `done` engine events.
    state: G::State,
    done: usize,
    /// Messages of the viewer's sequence passed so far (sent or skipped).
    sent: usize,
    /// Messages to skip (already received before a reconnect).
    skip: usize,
}

impl<G: ServedGame> TableFeed<G> {
    /// Folds and sends the viewer's messages for engine events `done..upto`.
    async fn push(
        &mut self,
        snap: &GameSnapshot<G>,
        viewer: Viewer,
        upto: usize,
        app: &AppState,
        scope: &str,
        tx: &mpsc::Sender<sse::Event>,
    ) -> Result<(), ()> {
        while self.done < upto.min(snap.events.len()) {
            let e = &snap.events[self.done];
            let before = self.state.clone();
            G::apply(&mut self.state, e);
            self.done += 1;
            let Some(shown) = G::redact(&before, e, &self.state, viewer) else { continue };
            self.sent += 1;
            if self.sent <= self.skip {
                continue;
            }
            let json = serde_json::to_string(&shown).expect("json");
            let msg = sse::Data::new(json).event(G::event_type(e)).id(app.keys.cursor(scope, self.sent));
            tx.send(msg.into()).await.map_err(|_| ())?;
        }
        Ok(())
    }
}

/// Streams a gathering's events live (public): registrations, stage draws (`stage_drawn` with
/// each circle's table), circle results, pauses and the end. `id:` is the event's number in the
/// gathering stream (every gathering event is public); reconnect with `Last-Event-ID`.
#[utoipa::path(tag = "spectators", params(("id" = String, Path, description = "gathering id"), GatheringStreamQuery,
        ("Last-Event-ID" = Option<i64>, Header, description = "the last event number received")),
    responses((status = 200, content_type = "text/event-stream", body = StreamEvent, description = "a stream of events, each as `StreamEvent`"), (status = 400, body = Problem), (status = 404, body = Problem)))]
#[get("/api/v1/gatherings/{id}/stream")]
pub async fn gathering_stream(
    state: Data,
    req: HttpRequest,
    id: web::Path<String>,
    q: web::Query<GatheringStreamQuery>,
) -> Result<impl Responder, Problem> {
    let id = id.into_inner();
    if state.gatherings.get(state.store.as_ref(), &id).await?.is_none() {
        return Err(Problem::not_found(format!("no gathering {id}")));
    }
    let after = match last_event_id(&req) {
        Some(h) => h.parse::<i64>().map_err(|_| Problem::invalid("Last-Event-ID is an event number"))?,
        None => q.after.unwrap_or(0),
    };
    let (tx, rx) = mpsc::channel::<sse::Event>(64);
    let mut changes = state.changes.subscribe();
    let watch = state.watchers.watch(&gatherings::stream_of(&id));
    actix_web::rt::spawn(async move {
        let _watch = watch;
        let stream_id = gatherings::stream_of(&id);
        let mut last = after;
        loop {
            // `after` is the client's number: i64::MAX must not overflow (it reads nothing).
            let from = crate::store::StreamVersion::new(u64::try_from(last).unwrap_or(0).saturating_add(1));
            let Ok(events) = state.store.read_stream(&stream_id, from).await else { return };
            let mut over = false;
            for e in events {
                last = i64::from(e.stream_version);
                over |= matches!(e.event_type.as_str(), "gathering_ended");
                let json = serde_json::json!({"type": e.event_type, "payload": e.payload, "at": e.recorded_at});
                let msg = sse::Data::new(json.to_string()).event(e.event_type.clone()).id(last.to_string());
                if tx.send(msg.into()).await.is_err() {
                    return;
                }
            }
            if over {
                return;
            }
            tokio::select! {
                _ = tx.closed() => return,
                _ = wait_for(&mut changes, &stream_id) => {}
            }
        }
    });
    Ok(sse::Sse::from_infallible_receiver(rx).with_keep_alive(KEEP_ALIVE))
}

/// Registers this group's routes (each route is listed here once; the OpenAPI document is
/// collected from the same calls).
pub(super) fn routes(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(table_stream).service(gathering_stream);
}
