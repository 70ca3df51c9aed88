//! Replays: step `?at=N`, every step at once, the signed export and its public key (`/api/v1/tables/{id}/replay*`, `/api/v1/keys/replay`).

use super::*;

/// Steps through a game: the event at step `at` of *your* sequence and the game right after it,
/// so a viewer can step, scrub and jump. After the game ends, anyone may replay it completely
/// (every hidden card revealed); during play, only what you may see (a spectator delay holds).
#[utoipa::path(tag = "spectators", security((), ("bearer" = [])), params(("id" = String, Path, description = "table id"), ReplayQuery),
    responses((status = 200, body = ReplayStep), (status = 400, body = Problem), (status = 404, body = Problem), (status = 409, body = Problem)))]
#[get("/api/v1/tables/{id}/replay")]
pub async fn replay_at(
    state: Data,
    caller: MaybeCaller,
    id: web::Path<String>,
    q: web::Query<ReplayQuery>,
) -> Result<HttpResponse, Problem> {
    let caller = reader(&caller)?;
    with_game!(game_of(&state, &id).await?, replay_at_of(&state, caller, &id, &q))
}

async fn replay_at_of<G: ServedGame>(
    state: &AppState,
    caller: Option<&Caller>,
    id: &str,
    q: &ReplayQuery,
) -> Result<HttpResponse, Problem> {
    let snap = G::tables(state).load(state.store.as_ref(), id).await?;
    let (viewer, seq, eliminations) = replay_sequence(state, &snap, caller, q.seat, q.commentary).await?;
    let total = seq.len();
    let at = q.at.unwrap_or(total);
    if !(1..=total).contains(&at) {
        return Err(Problem::invalid(format!("at is 1 to {total}")));
    }
    let (index, event) = seq[at - 1].clone();
    let view = G::view(&spectate::state_at(&snap, index + 1), viewer);
    Ok(etagged(&ReplayStep::<G> { at, total, event, view, eliminations }))
}

/// The viewer a replay reader gets (R10.8, [`spectate::sight`]), its sequence of visible events
/// (each with its index in the table's events) and the step numbers (from 1) of the
/// eliminations in it. 409 `not-started` before the game starts.
async fn replay_sequence<G: ServedGame>(
    state: &AppState,
    snap: &GameSnapshot<G>,
    caller: Option<&Caller>,
    seat: Option<u8>,
    commentary: bool,
) -> Result<(Viewer, Vec<(usize, G::ViewEvent)>, Vec<usize>), Problem> {
    if snap.events.is_empty() {
        return Err(Problem::conflict("not-started", "Not started", "the table's game has not started"));
    }
    let sight = spectate::sight(state, snap, caller, seat, commentary).await?;
    let seq = spectate::sequence(snap, sight.viewer, sight.visible);
    let eliminations = seq
        .iter()
        .enumerate()
        .filter(|(_, (i, _))| G::event_facts(None, &snap.events[*i]).eliminates)
        .map(|(n, _)| n + 1)
        .collect();
    Ok((sight.viewer, seq, eliminations))
}

/// R10.13: the table's position right after step `at` of *your* sequence (the steps of
/// `GET /api/v1/tables/{id}/replay`; default the latest you may see), as you may see it: after
/// the game, the whole state for everyone; during a practice game, the whole state for its
/// creator only, and only while every other seat is a built-in bot; otherwise your view, what
/// you may not see written `?` (sizes kept), a spectator delay holding. The one-line text by
/// default (`text/plain`); `?format=json` (or `Accept: application/json`) gives the text and
/// the JSON form. A whole position starts a practice table (`POST /api/v1/tables` with
/// `position`). 409 `no-positions-for-this-game` at a table of Let's Call the Exorcist;
/// 409 `not-started` before the game starts.
#[utoipa::path(tag = "spectators", security((), ("bearer" = [])), params(("id" = String, Path, description = "table id"), PositionQuery),
    responses((status = 200, body = PositionAt, content_type = "application/json"),
        (status = 200, body = String, content_type = "text/plain"),
        (status = 400, body = Problem), (status = 404, body = Problem), (status = 409, body = Problem)))]
#[get("/api/v1/tables/{id}/position")]
pub async fn position_at(
    state: Data,
    caller: MaybeCaller,
    id: web::Path<String>,
    q: web::Query<PositionQuery>,
    req: HttpRequest,
) -> Result<HttpResponse, Problem> {
    let caller = reader(&caller)?;
    let json = match q.format.as_deref() {
        None => req
            .headers()
            .get(actix_web::http::header::ACCEPT)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|a| a.contains("application/json")),
        Some("json") => true,
        Some("text") => false,
        Some(other) => return Err(Problem::invalid(format!("format is text or json, not '{other}'"))),
    };
    with_game!(game_of(&state, &id).await?, position_at_of(&state, caller, &id, &q, json))
}

async fn position_at_of<G: ServedGame>(
    state: &AppState,
    caller: Option<&Caller>,
    id: &str,
    q: &PositionQuery,
    json: bool,
) -> Result<HttpResponse, Problem> {
    let no_positions = || {
        Problem::conflict(
            "no-positions-for-this-game",
            "No positions for this game",
            format!("{} has no position notation; positions (R10.13) are The Final Flicker's", G::NAME.id()),
        )
    };
    if !G::POSITIONS {
        return Err(no_positions());
    }
    let snap = G::tables(state).load(state.store.as_ref(), id).await?;
    let (viewer, seq, _) = replay_sequence(state, &snap, caller, q.seat, q.commentary).await?;
    let total = seq.len();
    let at = q.at.unwrap_or(total);
    if !(1..=total).contains(&at) {
        return Err(Problem::invalid(format!("at is 1 to {total}")));
    }
    let index = seq[at - 1].0;
    let whole = snap.finished() || snap.creator_against_bots(caller.map(|c| c.name.as_str()));
    let game = spectate::state_at(&snap, index + 1);
    let (text, position) = G::position(&game, viewer, whole).ok_or_else(no_positions)?;
    if json {
        Ok(etagged(&PositionAt { at, total, whole, text, position }))
    } else {
        Ok(HttpResponse::Ok().content_type("text/plain; charset=utf-8").body(text))
    }
}

/// R10.8: every step of *your* sequence with the game right after each, in one response (the
/// same sight as `GET /api/v1/tables/{id}/replay`: after the game anyone gets the complete
/// record; during play only what you may see, a spectator delay holding). 409 `not-started`
/// before the game starts.
#[utoipa::path(tag = "spectators", security((), ("bearer" = [])), params(("id" = String, Path, description = "table id"), ReplayStepsQuery),
    responses((status = 200, body = ReplaySteps), (status = 400, body = Problem), (status = 404, body = Problem), (status = 409, body = Problem)))]
#[get("/api/v1/tables/{id}/replay/steps")]
pub async fn replay_steps(
    state: Data,
    caller: MaybeCaller,
    id: web::Path<String>,
    q: web::Query<ReplayStepsQuery>,
) -> Result<HttpResponse, Problem> {
    let caller = reader(&caller)?;
    with_game!(game_of(&state, &id).await?, replay_steps_of(&state, caller, &id, &q))
}

async fn replay_steps_of<G: ServedGame>(
    state: &AppState,
    caller: Option<&Caller>,
    id: &str,
    q: &ReplayStepsQuery,
) -> Result<HttpResponse, Problem> {
    let snap = G::tables(state).load(state.store.as_ref(), id).await?;
    let (viewer, seq, eliminations) = replay_sequence(state, &snap, caller, q.seat, q.commentary).await?;
    // One fold over the events: the view after each step's event.
    let mut game = G::State::default();
    let mut applied = 0;
    let mut steps = Vec::with_capacity(seq.len());
    for (index, event) in seq {
        while applied <= index {
            G::apply(&mut game, &snap.events[applied]);
            applied += 1;
        }
        steps.push(ReplayFrame::<G> { event, view: G::view(&game, viewer) });
    }
    Ok(etagged(&ReplaySteps { total: steps.len(), eliminations, steps }))
}

/// Exports a finished game as a signed JSON Lines replay (409 during play): the header,
/// every event of the table's stream (platform events, then the game's) with its stored hash, and
/// the head hash signed with the server's Ed25519 key (`GET /api/v1/keys/replay`). The chain is
/// recomputed from the stored bytes first: a stored hash that does not match is a 500, never
/// signed. `flicker verify FILE` checks the file; the README's "Replay format" describes it.
#[utoipa::path(tag = "play", params(("id" = String, Path, description = "table id")),
    responses((status = 200, content_type = "application/jsonl", body = String), (status = 404, body = Problem), (status = 409, body = Problem), (status = 500, body = Problem)))]
#[get("/api/v1/tables/{id}/replay.jsonl")]
pub async fn export_replay(state: Data, id: web::Path<String>) -> Result<HttpResponse, Problem> {
    with_game!(game_of(&state, &id).await?, export_replay_of(&state, &id))
}

async fn export_replay_of<G: ServedGame>(state: &AppState, id: &str) -> Result<HttpResponse, Problem> {
    let snap = G::tables(state).load(state.store.as_ref(), id).await?;
    if !snap.finished() {
        return Err(Problem::conflict(
            "in-play",
            "Game in play",
            "the replay is available once the game has ended (R10.8)",
        ));
    }
    let ruleset = crate::chain::ruleset_id(G::ruleset(&snap.state).unwrap_or_else(G::current_ruleset));
    let stream = crate::tables::stream_of(id);
    let stored = state.store.read_stream(&stream, crate::store::StreamVersion::new(1)).await?;
    let chain = crate::chain::rechain(&stream, &stored).map_err(|m| {
        tracing::error!(stream = %stream, error = %m, "the stored hash chain does not recompute; export refused");
        Problem::internal(format!("the stored events do not match their hashes ({m}); the export is refused"))
    })?;
    let mut buf = Vec::new();
    crate::chain::write_signed_game(&mut buf, G::GAME_ID, &stream, &ruleset, &chain, &state.signing_key)
        .map_err(|e| Problem::internal(e.to_string()))?;
    Ok(HttpResponse::Ok().content_type("application/jsonl").body(buf))
}

/// The server's replay-signing public keys: exports from
/// `GET /api/v1/tables/{id}/replay.jsonl` end with a signature by `public_key`; replays signed
/// before a rotation (`flicker rotate replay-signing-key`) by one of `keys`. Public,
/// no token.
#[utoipa::path(tag = "play", responses((status = 200, body = ReplayKey)))]
#[get("/api/v1/keys/replay")]
pub async fn replay_key(state: Data) -> HttpResponse {
    let current = hex::encode(state.signing_key.verifying_key().as_bytes());
    let keys = state
        .replay_keys
        .iter()
        .map(|k| PublishedReplayKey {
            public_key: k.public_key.clone(),
            current: k.public_key == current,
            created_at: k.created_at.map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
        })
        .collect();
    HttpResponse::Ok().json(ReplayKey { algorithm: "ed25519".into(), public_key: current, keys })
}

/// Registers this group's routes (each route is listed here once; the OpenAPI document is
/// collected from the same calls).
pub(super) fn routes(cfg: &mut ServiceConfig) {
    cfg.service(replay_at).service(position_at).service(replay_steps).service(export_replay).service(replay_key);
}
