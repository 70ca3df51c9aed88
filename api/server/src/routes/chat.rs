//! Table chat (`/api/v1/tables/{id}/chat`, `.../chat/stream`, `.../chat/mutes`): table talk for
//! every game, as events of the table's stream. Seats read it at once, spectators behind the
//! table's spectator delay (`flicker_platform::spectate::chat_sight`); the table's moderator
//! mutes a seat. The rules are the platform's (`flicker_platform::tables::chat`).

use super::{Data, etagged, game_of, reader};
use crate::auth::{Caller, MaybeCaller};
use crate::game::{GameSnapshot, with_game};
use crate::problem::Problem;
use crate::state::{AppState, ServedGame};
use crate::store::Metadata;
use crate::tables::{TableError, table_event};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, Responder, get, post, web};
use actix_web_lab::sse;
use chrono::Utc;
use flicker_game::Game;
use flicker_platform::tables::chat;
use flicker_wire::chat::*;
use tokio::sync::mpsc;
use utoipa_actix_web::service_config::ServiceConfig;

/// Reads the table's chat as *you* may (your seat's: every entry at once; a spectator's, no
/// token needed: behind the gathering's spectator delay, R10.8).
#[utoipa::path(tag = "chat", security((), ("bearer" = [])), params(("id" = String, Path, description = "table id"), ChatQuery),
    responses((status = 200, body = ChatPage), (status = 403, body = Problem), (status = 404, body = Problem)))]
#[get("/api/v1/tables/{id}/chat")]
pub async fn get_chat(
    state: Data,
    caller: MaybeCaller,
    id: web::Path<String>,
    q: web::Query<ChatQuery>,
) -> Result<HttpResponse, Problem> {
    let caller = reader(&caller)?;
    with_game!(game_of(&state, &id).await?, get_chat_of(&state, caller, &id, &q))
}

async fn get_chat_of<G: ServedGame>(
    state: &AppState,
    caller: Option<&Caller>,
    id: &str,
    q: &ChatQuery,
) -> Result<HttpResponse, Problem> {
    let snap = G::tables(state).load(state.store.as_ref(), id).await?;
    let (page, _) = page_of(state, &snap, caller, q.seat, q.commentary, q.after).await?;
    Ok(etagged(&page))
}

/// The chat page of `snap` for `caller`, and when a held-back entry may next become readable.
async fn page_of<G: ServedGame>(
    state: &AppState,
    snap: &GameSnapshot<G>,
    caller: Option<&Caller>,
    seat: Option<u8>,
    commentary: bool,
    after: u32,
) -> Result<(ChatPage, Option<chrono::DateTime<Utc>>), Problem> {
    let name = caller.map(|c| c.name.as_str());
    let sight = flicker_platform::spectate::chat_sight(
        state.store.as_ref(),
        &state.gatherings,
        state.clock.now(),
        snap,
        name,
        seat,
        commentary,
    )
    .await?;
    let readable = &snap.chat[..sight.entries];
    let moderator = match name {
        Some(n) => chat::moderator(snap, organiser(state, snap).await?.as_deref()) == n,
        None => false,
    };
    // The moderator knows the mutes as they are (its own doing); every other reader as far as
    // it reads the chat.
    let mut muted = if moderator { snap.muted.clone() } else { vec![false; snap.muted.len()] };
    for e in readable.iter().filter(|_| !moderator) {
        if let Some(m) = muted.get_mut(e.seat as usize) {
            match e.kind {
                chat::ChatKind::Muted => *m = true,
                chat::ChatKind::Unmuted => *m = false,
                chat::ChatKind::Said => {}
            }
        }
    }
    let speaks_as = name.filter(|n| !chat::muted(snap, n)).and_then(|n| chat::speaker(snap, n, seat).ok());
    let page = ChatPage {
        entries: readable.iter().skip(after as usize).cloned().collect(),
        readable: sight.entries as u32,
        muted: muted.iter().enumerate().filter(|(_, m)| **m).map(|(s, _)| s as u8).collect(),
        speaks_as,
        moderator,
    };
    Ok((page, sight.next_reveal))
}

/// The organiser of the gathering `snap` plays a circle of, if any.
async fn organiser<G: Game>(state: &AppState, snap: &GameSnapshot<G>) -> Result<Option<String>, Problem> {
    Ok(match &snap.info.gathering {
        Some(g) => state.gatherings.get(state.store.as_ref(), &g.gathering_id).await?.map(|g| g.organiser.clone()),
        None => None,
    })
}

/// Says something at the table (a seated player in the game, from a seat not held by a
/// built-in bot; until the game ends, when the chat closes). The message is trimmed and has 1 to
/// 280 characters, on one line. At most 5 messages per account in 10 seconds. An
/// `Idempotency-Key` header (optional) makes a retry act once (200 with the same entry).
/// Returns the entry.
#[utoipa::path(tag = "chat", request_body = SayBody, security(("bearer" = [])),
    params(("id" = String, Path, description = "table id"), ("Idempotency-Key" = Option<String>, Header, pattern = "^[!-~]([\t -~]{0,198}[!-~])?$", description = "unique per message: 1 to 200 visible ASCII characters")),
    responses((status = 201, body = ChatEntry), (status = 400, body = Problem),
        (status = 403, description = "`chat-not-seated`, `chat-out-of-game`, `chat-muted`, `wrong-seat`", body = Problem), (status = 404, body = Problem),
        (status = 409, description = "`chat-full`, `chat-closed`", body = Problem), (status = 422, description = "`idempotency-key-reused`", body = Problem),
        (status = 429, description = "`chat-too-fast`, with `Retry-After`", body = Problem)))]
#[post("/api/v1/tables/{id}/chat")]
pub async fn say(
    state: Data,
    req: HttpRequest,
    caller: Caller,
    id: web::Path<String>,
    body: web::Json<SayBody>,
) -> Result<HttpResponse, Problem> {
    caller.require("play")?;
    let key = match req.headers().get("Idempotency-Key") {
        Some(_) => Some(super::play::idempotency_key(&req)?),
        None => None,
    };
    with_game!(game_of(&state, &id).await?, say_of(&state, &caller, &id, key.as_deref(), &body))
}

async fn say_of<G: ServedGame>(
    state: &AppState,
    caller: &Caller,
    id: &str,
    key: Option<&str>,
    body: &SayBody,
) -> Result<HttpResponse, Problem> {
    let hash = super::play::stored_hash(&("chat", body.seat, body.text.trim()));
    let now = state.clock.now();
    let (snap, replayed) = G::tables(state)
        .command(state.store.as_ref(), id, &caller.name, key.map(|k| (k, hash.as_str())), |snap| {
            let ev = chat::say(snap, &caller.name, body.seat, &body.text, now)?;
            Ok::<_, TableError>(vec![table_event(&ev, Metadata::default())])
        })
        .await?;
    // The entry: this command's (the table as this append left it ends with it), or, for a
    // retry, the one its key stored. A speaker reads the table live (only a seat in the game
    // speaks), so its entry's number counts nothing hidden from it.
    let version = match key {
        Some(k) if replayed => snap.idempotency_keys.get(&crate::tables::scoped_key(&caller.name, k)).copied(),
        _ => Some(snap.version),
    };
    let entry = snap
        .chat
        .iter()
        .rev()
        .find(|e| Some(e.version) == version)
        .cloned()
        .ok_or_else(|| Problem::internal("the message was stored but is not in the table's chat"))?;
    let status = if replayed { StatusCode::OK } else { StatusCode::CREATED };
    Ok(HttpResponse::build(status).json(entry))
}

/// Mutes a seat in the table's chat (its holder's account, at every seat it holds), or lets it
/// speak again (the table's moderator: its gathering's organiser, else its creator), until the
/// game ends. Public: the entry tells every reader. Muting a seat already muted records
/// nothing.
#[utoipa::path(tag = "chat", request_body = MuteBody, security(("bearer" = [])),
    params(("id" = String, Path, description = "table id")),
    responses((status = 200, body = MuteResponse), (status = 400, body = Problem), (status = 403, body = Problem), (status = 404, body = Problem),
        (status = 409, description = "`chat-closed`", body = Problem)))]
#[post("/api/v1/tables/{id}/chat/mutes")]
pub async fn mute(
    state: Data,
    caller: Caller,
    id: web::Path<String>,
    body: web::Json<MuteBody>,
) -> Result<HttpResponse, Problem> {
    caller.require("play")?;
    with_game!(game_of(&state, &id).await?, mute_of(&state, &caller, &id, &body))
}

async fn mute_of<G: ServedGame>(
    state: &AppState,
    caller: &Caller,
    id: &str,
    body: &MuteBody,
) -> Result<HttpResponse, Problem> {
    let current = G::tables(state).load(state.store.as_ref(), id).await?;
    let organiser = organiser(state, &current).await?;
    let mut recorded = false;
    G::tables(state)
        .command_from(Some(current), state.store.as_ref(), id, &caller.name, None, |snap| {
            let moderator = chat::moderator(snap, organiser.as_deref());
            let ev = chat::mute(snap, &caller.name, moderator, body.seat, body.muted)?;
            recorded = ev.is_some();
            Ok::<_, TableError>(ev.iter().map(|e| table_event(e, Metadata::default())).collect())
        })
        .await?;
    Ok(HttpResponse::Ok().json(MuteResponse { seat: body.seat, muted: body.muted, recorded }))
}

/// Streams the table's chat live as *you* may read it (see `GET .../chat`): `event: chat`,
/// `data:` a `ChatEntry`, `id:` its number. Reconnect with `Last-Event-ID` (or `after`) to
/// resume. The stream stays open after the game (players may still talk).
#[utoipa::path(tag = "chat", security((), ("bearer" = [])), params(("id" = String, Path, description = "table id"), ChatStreamQuery,
        ("Last-Event-ID" = Option<u32>, Header, description = "the last entry number received")),
    responses((status = 200, content_type = "text/event-stream", body = flicker_wire::streams::StreamEvent, description = "a stream of entries, each `event: chat` with a `ChatEntry` as its data"),
        (status = 400, body = Problem), (status = 403, body = Problem), (status = 404, body = Problem)))]
#[get("/api/v1/tables/{id}/chat/stream")]
pub async fn chat_stream(
    state: Data,
    req: HttpRequest,
    caller: MaybeCaller,
    id: web::Path<String>,
    q: web::Query<ChatStreamQuery>,
) -> Result<HttpResponse, Problem> {
    let caller = reader(&caller)?.cloned();
    let after = match req.headers().get("Last-Event-ID") {
        Some(h) => h
            .to_str()
            .ok()
            .and_then(|v| v.parse::<u32>().ok())
            .ok_or_else(|| Problem::invalid("Last-Event-ID is an entry number"))?,
        None => q.after.unwrap_or(0),
    };
    let id = id.into_inner();
    with_game!(game_of(&state, &id).await?, chat_stream_of(state, &req, caller, id, q.into_inner(), after))
}

async fn chat_stream_of<G: ServedGame>(
    state: Data,
    req: &HttpRequest,
    caller: Option<Caller>,
    id: String,
    q: ChatStreamQuery,
    after: u32,
) -> Result<HttpResponse, Problem> {
    // Refusals (a seat not held, the commentary view off) are answered before the stream opens.
    let snap = G::tables(&state).load(state.store.as_ref(), &id).await?;
    page_of(&state, &snap, caller.as_ref(), q.seat, q.commentary, after).await?;
    let (tx, rx) = mpsc::channel::<sse::Event>(64);
    let mut changes = state.changes.subscribe();
    actix_web::rt::spawn(async move {
        let stream_id = crate::tables::stream_of(&id);
        let mut last = after;
        loop {
            let Ok(snap) = G::tables(&state).load(state.store.as_ref(), &id).await else { return };
            let Ok((page, reveal)) = page_of(&state, &snap, caller.as_ref(), q.seat, q.commentary, last).await else {
                return;
            };
            for e in page.entries {
                last = e.number;
                let msg =
                    sse::Data::new(serde_json::to_string(&e).expect("json")).event("chat").id(e.number.to_string());
                if tx.send(msg.into()).await.is_err() {
                    return;
                }
            }
            let reveal = reveal.map(|t| (t - state.clock.now()).to_std().unwrap_or_default());
            tokio::select! {
                _ = tx.closed() => return,
                _ = super::streams::wait_for(&mut changes, &stream_id) => {}
                _ = tokio::time::sleep(reveal.unwrap_or(std::time::Duration::from_secs(3600))), if reveal.is_some() => {}
            }
        }
    });
    Ok(sse::Sse::from_infallible_receiver(rx)
        .with_keep_alive(std::time::Duration::from_secs(15))
        .respond_to(req)
        .map_into_boxed_body())
}

/// Registers this group's routes (each route is listed here once; the OpenAPI document is
/// collected from the same calls).
pub(super) fn routes(cfg: &mut ServiceConfig) {
    cfg.service(get_chat).service(say).service(mute).service(chat_stream);
}
