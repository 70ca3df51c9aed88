//! Tables: create a practice table, read it as your view, take seats, start (`/api/v1/tables`, `/api/v1/tables/{id}`, `.../seats`, `.../start`).

use super::*;

/// The clock of a table as `viewer` may see it, from the game folded up to its horizon `game`
/// and the clock mark as of then (`mark`, [`spectate::mark_at`]).
pub(super) async fn clock_for<G: ServedGame>(
    state: &AppState,
    snap: &GameSnapshot<G>,
    game: &G::State,
    mark: Option<&crate::clocks::ClockMark>,
    viewer: Option<Viewer>,
) -> Option<crate::clocks::ClockView> {
    let seat = match viewer {
        Some(Viewer::Seat { seat }) => Some(seat),
        _ => None,
    };
    let (paused, pauses) = match &snap.info.gathering {
        Some(g) => match state.gatherings.get(state.store.as_ref(), &g.gathering_id).await.ok().flatten() {
            Some(g) => (g.status == crate::gatherings::Status::Paused, g.pauses.clone()),
            None => (false, Vec::new()),
        },
        None => (false, Vec::new()),
    };
    // Store outages move deadlines back as the driver does.
    crate::clocks::view_for::<G>(game, mark, seat, paused, &state.driver.with_outages(&pauses))
}

/// R10.8: the table as `caller` may see it now: the table (its practice position shown only
/// as [`flicker_platform::tables::Snapshot::info_for`] allows), the game folded up to the caller's horizon (none
/// before it reaches the first event) and the clock as it stood there.
pub(super) async fn table_response<G: ServedGame>(
    state: &AppState,
    snap: &GameSnapshot<G>,
    caller: Option<&Caller>,
    seat: Option<u8>,
    commentary: bool,
) -> Result<TableResponse<G>, Problem> {
    let sight = spectate::sight(state, snap, caller, seat, commentary).await?;
    let table = snap.info_for(caller.map(|c| c.name.as_str()));
    if sight.visible == 0 {
        return Ok(TableResponse { table, view: None, clock: None });
    }
    let game = spectate::state_at(snap, sight.visible);
    let view = G::view(&game, sight.viewer);
    let clock = clock_for(state, snap, &game, spectate::mark_at(snap, sight.visible), Some(sight.viewer)).await;
    Ok(TableResponse { table, view: Some(view), clock })
}

/// The game `G`'s settings of a new table of `players` seats from a client's settings object.
pub(super) fn settings_from<G: Game>(players: u8, extra: &Option<serde_json::Value>) -> Result<G::Settings, Problem> {
    let s = G::settings_from_client(players, extra.clone()).map_err(|e| match e {
        SettingsRefusal::UnknownField(m) => Problem::unknown_field(m),
        SettingsRefusal::Invalid(m) => Problem::invalid(m),
    })?;
    G::validate(&s).map_err(TableError::rule)?;
    Ok(s)
}

/// The game table `id` plays (404 when there is no such table).
pub(super) async fn game_of(state: &AppState, id: &str) -> Result<GameName, Problem> {
    Ok(state.table_games.of(state.store.as_ref(), id).await?)
}

/// Creates a table: a single game, for practice or testing, of The Final Flicker or (with
/// `"game": "lets-call-the-exorcist"`) Let's Call the Exorcist.
#[utoipa::path(tag = "tables", request_body = CreateTableBody, security(("bearer" = [])),
    responses((status = 201, body = TableResponse), (status = 400, body = Problem), (status = 401, body = Problem)))]
#[post("/api/v1/tables")]
pub async fn create_table(
    state: Data,
    caller: Caller,
    body: web::Json<CreateTableBody>,
) -> Result<HttpResponse, Problem> {
    caller.require("play")?;
    if caller.role == Role::Spectator {
        return Err(TableError::Spectator { action: "create tables" }.into());
    }
    if !body.practice {
        return Err(Problem::invalid("tables created directly are practice tables; gatherings create the others"));
    }
    with_game!(body.game.unwrap_or_default(), create_table_of(&state, &caller, &body))
}

async fn create_table_of<G: ServedGame>(
    state: &AppState,
    caller: &Caller,
    body: &CreateTableBody,
) -> Result<HttpResponse, Problem> {
    let settings = settings_from::<G>(body.players, &body.settings)?;
    let table_id = uuid::Uuid::new_v4().to_string();
    let request = crate::tables::PracticeTable {
        creator: caller.name.clone(),
        settings,
        position: body.position.clone(),
        clocks: body.clocks,
        reaction_window_min_ms: body.reaction_window_min_ms,
        bot_delay_ms: body.bot_delay_ms,
        abandonment: body.abandonment,
    };
    let ev = crate::tables::create_practice::<G, _>(table_id.clone(), request, &mut rand::rng())?;
    let meta = Metadata { actor: Some(caller.name.clone()), ..Default::default() };
    state
        .store
        .append(
            &crate::tables::stream_of(&table_id),
            crate::store::ExpectedVersion::NO_STREAM,
            vec![table_event(&ev, meta)],
        )
        .await?;
    state.table_games.note(&table_id, G::NAME);
    let snap = G::tables(state).load(state.store.as_ref(), &table_id).await?;
    Ok(HttpResponse::Created().json(TableResponse::<G> {
        table: snap.info_for(Some(&caller.name)),
        view: None,
        clock: None,
    }))
}

/// The caller with the `read` scope, if any (anonymous callers are spectators).
pub(super) fn reader(caller: &MaybeCaller) -> Result<Option<&Caller>, Problem> {
    if let Some(c) = &caller.0 {
        c.require("read")?;
    }
    Ok(caller.0.as_ref())
}

/// Reads the table and the game as *your* view (R10.8): your seat's, or a spectator's (no
/// token needed; a gathering may delay spectators).
#[utoipa::path(tag = "tables", security((), ("bearer" = [])), params(("id" = String, Path, description = "table id"), SeatQuery),
    responses((status = 200, body = TableResponse), (status = 404, body = Problem)))]
#[get("/api/v1/tables/{id}")]
pub async fn get_table(
    state: Data,
    caller: MaybeCaller,
    id: web::Path<String>,
    q: web::Query<SeatQuery>,
) -> Result<HttpResponse, Problem> {
    let caller = reader(&caller)?;
    with_game!(game_of(&state, &id).await?, get_table_of(&state, caller, &id, &q))
}

async fn get_table_of<G: ServedGame>(
    state: &AppState,
    caller: Option<&Caller>,
    id: &str,
    q: &SeatQuery,
) -> Result<HttpResponse, Problem> {
    let snap = G::tables(state).load(state.store.as_ref(), id).await?;
    Ok(etagged(&table_response(state, &snap, caller, q.seat, q.commentary).await?))
}

/// A response with an ETag computed from its content, so it counts nothing hidden.
pub(super) fn etagged<T: Serialize>(body: &T) -> HttpResponse {
    use std::hash::{Hash, Hasher};
    let json = serde_json::to_vec(body).expect("json");
    let mut h = std::collections::hash_map::DefaultHasher::new();
    json.hash(&mut h);
    HttpResponse::Ok()
        .insert_header((actix_web::http::header::ETAG, format!("\"{:016x}\"", h.finish())))
        .content_type("application/json")
        .body(json)
}

/// Takes a seat. On a practice table one account may hold several seats.
#[utoipa::path(tag = "tables", request_body = Option<SeatBody>, security(("bearer" = [])), params(("id" = String, Path, description = "table id")),
    responses((status = 200, body = SeatTakenResponse), (status = 409, body = Problem)))]
#[post("/api/v1/tables/{id}/seats")]
pub async fn take_seat(
    state: Data,
    caller: Caller,
    id: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, Problem> {
    caller.require("play")?;
    if caller.role == Role::Spectator {
        return Err(TableError::Spectator { action: "take seats" }.into());
    }
    let body = crate::problem::optional_json::<SeatBody>(&body)?;
    with_game!(game_of(&state, &id).await?, take_seat_of(&state, &caller, &id, body))
}

async fn take_seat_of<G: ServedGame>(
    state: &AppState,
    caller: &Caller,
    id: &str,
    body: SeatBody,
) -> Result<HttpResponse, Problem> {
    let (want, bot) = (body.seat, body.bot);
    let mut taken = None;
    G::tables(state)
        .command(state.store.as_ref(), id, &caller.name, None, |snap| {
            let (seat, ev) = crate::tables::take_seat(snap, &caller.name, want, bot)?;
            taken = Some(seat);
            Ok::<_, TableError>(vec![table_event(&ev, Metadata::default())])
        })
        .await?;
    Ok(HttpResponse::Ok().json(SeatTakenResponse { seat: taken.expect("seat") }))
}

/// Starts the game once every seat is taken (creator only): deals, and the first turn begins.
#[utoipa::path(tag = "tables", security(("bearer" = [])), params(("id" = String, Path, description = "table id")),
    responses((status = 200, body = TableResponse), (status = 403, body = Problem), (status = 409, body = Problem)))]
#[post("/api/v1/tables/{id}/start")]
pub async fn start(state: Data, caller: Caller, id: web::Path<String>) -> Result<HttpResponse, Problem> {
    caller.require("play")?;
    with_game!(game_of(&state, &id).await?, start_of(&state, &caller, &id))
}

async fn start_of<G: ServedGame>(state: &AppState, caller: &Caller, id: &str) -> Result<HttpResponse, Problem> {
    let current = G::tables(state).load(state.store.as_ref(), id).await?;
    let bot_accounts = bot_accounts(state, &current).await?;
    let (snap, _) = G::tables(state)
        .command(state.store.as_ref(), id, &caller.name, None, |snap| {
            let created = crate::tables::start(snap, &caller.name, &bot_accounts, &mut rand::rng())?;
            Ok::<_, TableError>(
                created.iter().map(|e| crate::tables::engine_event::<G>(e, Metadata::default())).collect(),
            )
        })
        .await?;
    Ok(HttpResponse::Ok().json(table_response(state, &snap, Some(caller), None, false).await?))
}

/// The seat holders of `snap` that are accounts with the `bot` role.
pub(super) async fn bot_accounts<G: Game>(state: &AppState, snap: &GameSnapshot<G>) -> Result<Vec<String>, Problem> {
    let mut out = Vec::new();
    for (i, name) in snap.info.seats.iter().enumerate() {
        if let Some(name) = name
            && snap.info.bots.get(i).is_none_or(Option::is_none)
            && crate::accounts::load(state.store.as_ref(), name).await?.is_some_and(|a| a.role == Some(Role::Bot))
        {
            out.push(name.clone());
        }
    }
    Ok(out)
}

/// Registers this group's routes (each route is listed here once; the OpenAPI document is
/// collected from the same calls).
pub(super) fn routes(cfg: &mut ServiceConfig) {
    cfg.service(create_table).service(get_table).service(take_seat).service(start);
}
