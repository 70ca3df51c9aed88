//! HTTP handlers for gatherings (RULES.md section 9): organiser commands (create, configure,
//! fill with bots, start, pause, resume, cancel), players' registration, and the public reads
//! (summary, bracket, circles, standings). Thin: the rules live in the engine and in
//! [`crate::gatherings`].

use crate::accounts::Role;
use crate::auth::Caller;
use crate::gatherings::CirclePreview;
use crate::gatherings::standings::{Standing, standings};
use crate::gatherings::views::{Bracket, CircleView, CircleWindow, GatheringSummary, bracket};
use crate::gatherings::{
    self, Gathering, GatheringEvent, GatheringRefusal, GatheringSettings, Registrant, Status, commands,
};
use crate::problem::Problem;
use crate::state::AppState;
use crate::store::{Metadata, NewEvent, StoreError};
use actix_web::{HttpResponse, delete, get, post, put, web};
use flicker_wire::gatherings::*;
use std::sync::Arc;

type Data = web::Data<AppState>;

/// The stream listing every gathering's id, in creation order.
const INDEX: &str = "index-gatherings";

pub use crate::gatherings::MAX_PLAYERS;

pub(super) async fn get(state: &AppState, id: &str) -> Result<Arc<Gathering>, Problem> {
    state
        .gatherings
        .get(state.store.as_ref(), id)
        .await?
        .ok_or_else(|| Problem::not_found(format!("no gathering {id}")))
}

pub(super) fn organiser_of(caller: &Caller, g: &Gathering) -> Result<(), Problem> {
    caller.require("play")?;
    if caller.name != g.organiser {
        return Err(Problem::forbidden("only the gathering's organiser may do this"));
    }
    Ok(())
}

fn not_started(g: &Gathering) -> Result<(), Problem> {
    if g.status != Status::Registering {
        return Err(Problem::conflict("gathering-started", "Gathering started", "the gathering has already started"));
    }
    Ok(())
}

/// Appends at the version read; a concurrent change gets 409 `conflict` (nothing changed).
async fn append(state: &AppState, g: &Gathering, events: &[GatheringEvent], actor: &str) -> Result<(), Problem> {
    gatherings::append(state.store.as_ref(), g, events, actor).await.map_err(|e| match e {
        StoreError::Conflict { .. } => {
            Problem::conflict("conflict", "Conflict", "the gathering changed meanwhile; read it and try again")
        }
        e => e.into(),
    })
}

/// How many times a commuting command is tried when concurrent commands keep changing the
/// gathering under it (32 concurrent registrations must all succeed).
const COMMUTING_ATTEMPTS: usize = 64;

/// Appends what `decide` makes of the gathering as read, retrying with the gathering
/// read again when a concurrent command changed it meanwhile. For commands that commute
/// (registration, withdrawal, bots added, and the organiser's controls, drops and substitutes,
/// which the process manager's records must not refuse): each attempt decides afresh, so a
/// refusal (already registered, full, started, over) still holds against the latest state. Gives the gathering the
/// events were appended to and the events; 409 `busy` after [`COMMUTING_ATTEMPTS`] conflicts.
pub(super) async fn append_commuting(
    state: &AppState,
    id: &str,
    actor: &str,
    decide: impl Fn(&Gathering) -> Result<Vec<GatheringEvent>, Problem>,
) -> Result<(Arc<Gathering>, Vec<GatheringEvent>), Problem> {
    for attempt in 0..COMMUTING_ATTEMPTS {
        let g = get(state, id).await?;
        let events = decide(&g)?;
        match gatherings::append(state.store.as_ref(), &g, &events, actor).await {
            Ok(()) => return Ok((g, events)),
            Err(StoreError::Conflict { .. }) => {
                // A short random pause spreads the retries of many concurrent writers.
                let ms = rand::random_range(0..=(attempt as u64).min(8));
                tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
            }
            Err(e) => return Err(e.into()),
        }
    }
    Err(Problem::conflict("busy", "Busy", "the gathering kept changing meanwhile; try again"))
}

fn settings_problem(msg: String) -> Problem {
    Problem::invalid(msg)
}

/// A JSON body that does not read as its type: 400 `unknown-field`, `invalid-request` or
/// `malformed-json`, as the JSON extractor answers.
fn json_problem(e: serde_json::Error) -> Problem {
    if e.to_string().contains("unknown field") {
        Problem::unknown_field(e.to_string())
    } else if e.is_data() || e.is_eof() {
        Problem::invalid(e.to_string())
    } else {
        Problem::malformed(e.to_string())
    }
}

/// The game's own defaults of settings the body (`raw`, as sent) left out: `advance` is 1 in a
/// gathering of *Let's Call the Exorcist* (rules decision 72).
fn game_defaults(settings: &mut GatheringSettings, raw: &serde_json::Value) {
    if settings.game == crate::game::GameName::LetsCallTheExorcist && raw.get("advance").is_none() {
        settings.advance = 1;
    }
}

/// Creates a gathering (organisers only). It takes registrations until its organiser starts it.
#[utoipa::path(tag = "gatherings", request_body = CreateGatheringBody, security(("bearer" = [])),
    responses((status = 201, body = GatheringSummary), (status = 400, body = Problem), (status = 401, body = Problem), (status = 403, body = Problem)))]
#[post("/api/v1/gatherings")]
pub async fn create_gathering(
    state: Data,
    caller: Caller,
    raw: web::Json<serde_json::Value>,
) -> Result<HttpResponse, Problem> {
    caller.require("play")?;
    let raw = raw.into_inner();
    let body: CreateGatheringBody = serde_json::from_value(raw.clone()).map_err(json_problem)?;
    if caller.role != Role::Organiser {
        return Err(Problem::forbidden("only organiser accounts create gatherings"));
    }
    let name = body.name.trim();
    if name.is_empty() || name.chars().count() > 80 {
        return Err(Problem::invalid("name has 1 to 80 characters"));
    }
    let mut settings = body.settings.clone().unwrap_or_default();
    if let Some(game) = body.game {
        if raw.pointer("/settings/game").is_some() && settings.game != game {
            return Err(Problem::invalid(format!(
                "game ({game}) and settings.game ({}) differ: name the game once",
                settings.game
            )));
        }
        settings.game = game;
    }
    game_defaults(&mut settings, raw.get("settings").unwrap_or(&serde_json::Value::Null));
    settings.validate().map_err(settings_problem)?;
    let id = uuid::Uuid::new_v4().to_string();
    let ev = GatheringEvent::GatheringCreated {
        gathering_id: id.clone(),
        name: name.to_string(),
        organiser: caller.name.clone(),
        settings,
    };
    state
        .store
        .append(
            &gatherings::stream_of(&id),
            crate::store::ExpectedVersion::NO_STREAM,
            vec![gatherings::to_new(&ev, &caller.name)],
        )
        .await?;
    list_in_index(&state, &id).await?;
    let g = get(&state, &id).await?;
    Ok(HttpResponse::Created().json(summary(&state, &g)))
}

async fn list_in_index(state: &AppState, id: &str) -> Result<(), Problem> {
    for _ in 0..20 {
        let version = crate::store::StreamVersion::new(
            state.store.read_stream(INDEX, crate::store::StreamVersion::new(1)).await?.len() as u64,
        );
        let ev = NewEvent {
            event_type: "gathering_listed".into(),
            schema_version: 1,
            payload: serde_json::json!({ "gathering_id": id }),
            metadata: Metadata::default(),
        };
        match state.store.append(INDEX, version.into(), vec![ev]).await {
            Ok(_) => return Ok(()),
            Err(StoreError::Conflict { .. }) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Err(Problem::conflict("busy", "Busy", "too many gatherings created at once; try again"))
}

/// A gathering as anyone may read it, with its spectator count (the gathering streams open
/// on it now in this process: a public number, a function of who opened a stream).
fn summary(state: &AppState, g: &Gathering) -> GatheringSummary {
    let mut s = crate::gatherings::views::summary(g);
    s.spectators = state.watchers.count(&gatherings::stream_of(&g.id));
    s
}

/// Lists gatherings, newest first (public).
#[utoipa::path(tag = "gatherings", params(ListQuery),
    responses((status = 200, body = Vec<GatheringSummary>), (status = 400, body = Problem)))]
#[get("/api/v1/gatherings")]
pub async fn list_gatherings(state: Data, q: web::Query<ListQuery>) -> Result<HttpResponse, Problem> {
    let limit = q.limit.unwrap_or(50);
    if !(1..=200).contains(&limit) {
        return Err(Problem::invalid("limit is 1 to 200"));
    }
    let index = state.store.read_stream(INDEX, crate::store::StreamVersion::new(1)).await?;
    let mut out = Vec::new();
    for e in index.iter().rev() {
        let Some(id) = e.payload["gathering_id"].as_str() else { continue };
        let Ok(g) = get(&state, id).await else { continue };
        if q.status.is_none_or(|s| s == g.status) {
            out.push(summary(&state, &g));
        }
        if out.len() >= limit {
            break;
        }
    }
    Ok(HttpResponse::Ok().json(out))
}

/// Reads a gathering: settings, status, registrants, winner, progress (public).
#[utoipa::path(tag = "gatherings", params(("id" = String, Path, description = "gathering id")),
    responses((status = 200, body = GatheringSummary), (status = 404, body = Problem)))]
#[get("/api/v1/gatherings/{id}")]
pub async fn get_gathering(state: Data, id: web::Path<String>) -> Result<HttpResponse, Problem> {
    Ok(HttpResponse::Ok().json(summary(&state, &*get(&state, &id).await?)))
}

/// Replaces the settings before the start (organiser).
#[utoipa::path(tag = "gatherings", request_body = GatheringSettings, security(("bearer" = [])),
    params(("id" = String, Path, description = "gathering id")),
    responses((status = 200, body = GatheringSummary), (status = 400, body = Problem), (status = 403, body = Problem), (status = 409, body = Problem)))]
#[put("/api/v1/gatherings/{id}/settings")]
pub async fn configure(
    state: Data,
    caller: Caller,
    id: web::Path<String>,
    raw: web::Json<serde_json::Value>,
) -> Result<HttpResponse, Problem> {
    let g = get(&state, &id).await?;
    organiser_of(&caller, &g)?;
    not_started(&g)?;
    let raw = raw.into_inner();
    let mut settings: GatheringSettings = serde_json::from_value(raw.clone()).map_err(json_problem)?;
    // Rules decision 72: the game is fixed at creation.
    if raw.get("game").is_none() {
        settings.game = g.settings.game;
    } else if settings.game != g.settings.game {
        return Err(Problem::invalid(format!(
            "game is fixed at creation: this gathering plays {}, not {}",
            g.settings.game, settings.game
        )));
    }
    game_defaults(&mut settings, &raw);
    settings.validate().map_err(settings_problem)?;
    append(&state, &g, &[GatheringEvent::GatheringConfigured { settings }], &caller.name).await?;
    Ok(HttpResponse::Ok().json(summary(&state, &*get(&state, &id).await?)))
}

/// Registers a player before the start: the caller (a player or bot account) registers
/// themself, or the organiser registers a named account.
#[utoipa::path(tag = "gatherings", operation_id = "register_player", request_body = Option<RegistrationBody>, security(("bearer" = [])), params(("id" = String, Path, description = "gathering id")),
    responses((status = 201, body = RegistrationAnswer), (status = 403, body = Problem), (status = 404, body = Problem), (status = 409, body = Problem),
        (status = 413, body = Problem), (status = 422, description = "`unknown-account`: no account has the name given", body = Problem)))]
#[post("/api/v1/gatherings/{id}/registrations")]
pub async fn register(
    state: Data,
    caller: Caller,
    id: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, Problem> {
    caller.require("play")?;
    let body = crate::problem::optional_json::<RegistrationBody>(&body)?;
    let g = get(&state, &id).await?;
    let (name, role) = match body.name {
        Some(name) => {
            if caller.name != g.organiser {
                return Err(Problem::forbidden(
                    "only the organiser registers other accounts; omit 'name' to register yourself",
                ));
            }
            let a = crate::accounts::load(state.store.as_ref(), &name)
                .await?
                // The gathering exists (a 404 would say it does not): the body names nothing.
                .ok_or_else(|| {
                    Problem::new(
                        actix_web::http::StatusCode::UNPROCESSABLE_ENTITY,
                        "unknown-account",
                        "Unknown account",
                        format!("no account {name}"),
                    )
                })?;
            (a.name.clone(), a.role.unwrap_or(Role::Player))
        }
        None => (caller.name.clone(), caller.role),
    };
    if !matches!(role, Role::Player | Role::Bot) {
        return Err(Problem::forbidden("only player and bot accounts register to play"));
    }
    let r = Registrant { name, bot: None, program: role == Role::Bot };
    let (g, _) = append_commuting(&state, &id, &caller.name, |g| {
        not_started(g)?;
        if g.registrant(&r.name).is_some() {
            return Err(Problem::conflict(
                "already-registered",
                "Already registered",
                format!("{} is registered already", r.name),
            ));
        }
        if g.players.len() >= g.settings.capacity() {
            return Err(GatheringRefusal::Full(g.settings.capacity()).into());
        }
        Ok(vec![GatheringEvent::PlayerRegistered(r.clone())])
    })
    .await?;
    Ok(HttpResponse::Created().json(RegistrationAnswer {
        gathering_id: g.id.clone(),
        registration: r,
        registered: g.players.len() + 1,
    }))
}

/// The largest roster body taken (10,000 names of up to 32 characters, as JSON or CSV).
pub const ROSTER_BODY_LIMIT: usize = 1024 * 1024;

/// Reads a roster body of at most [`ROSTER_BODY_LIMIT`] bytes (413 past it).
async fn roster_body(mut payload: web::Payload) -> Result<web::BytesMut, Problem> {
    use futures_util::StreamExt;
    let mut body = web::BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|e| Problem::malformed(e.to_string()))?;
        if body.len() + chunk.len() > ROSTER_BODY_LIMIT {
            return Err(crate::problem::for_status(
                actix_web::http::StatusCode::PAYLOAD_TOO_LARGE,
                Some(format!("a roster is at most {} KiB", ROSTER_BODY_LIMIT / 1024)),
            ));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// The names of a CSV roster with their line numbers: the first column, or the column headed
/// `name` when the first line is a header naming it.
fn csv_names(body: &[u8]) -> Result<Vec<(usize, String)>, Problem> {
    let mut reader = csv::ReaderBuilder::new().has_headers(false).flexible(true).trim(csv::Trim::All).from_reader(body);
    let mut rows = Vec::new();
    let mut column = 0;
    for (i, record) in reader.records().enumerate() {
        let record = record.map_err(|e| Problem::invalid(format!("the CSV roster cannot be read: {e}")))?;
        let line = record.position().map_or(i + 1, |p| p.line() as usize);
        if i == 0
            && let Some(c) = record.iter().position(|f| f.eq_ignore_ascii_case("name"))
        {
            column = c;
            continue;
        }
        if record.iter().all(str::is_empty) {
            continue;
        }
        rows.push((line, record.get(column).unwrap_or_default().to_string()));
    }
    Ok(rows)
}

/// Registers many existing accounts at once (organiser), all or nothing: a JSON
/// `{"names": [...]}`, or `text/csv` (one name a line, or a `name` column under a header).
/// Refused rows are all listed in a 422 `roster-refused` (`refused`: row, name, reason), and
/// nothing is registered. For people without an account yet, each creates their own (a
/// password is theirs to choose).
#[utoipa::path(tag = "gatherings", security(("bearer" = [])), params(("id" = String, Path, description = "gathering id")),
    request_body(content((RosterBody = "application/json"), (String = "text/csv")), description = "the names, as JSON or CSV"),
    responses((status = 201, body = RosterAnswer), (status = 400, body = Problem), (status = 403, body = Problem), (status = 404, body = Problem),
        (status = 409, description = "`gathering-started`, `gathering-full` or `conflict`", body = Problem), (status = 413, body = Problem),
        (status = 422, description = "`roster-refused`: the rows refused (`refused`), nothing registered", body = Problem)))]
#[post("/api/v1/gatherings/{id}/roster")]
pub async fn register_roster(
    state: Data,
    caller: Caller,
    id: web::Path<String>,
    req: actix_web::HttpRequest,
    payload: web::Payload,
) -> Result<HttpResponse, Problem> {
    use crate::gatherings::roster::{self, RosterRefusal, RosterRow};
    use futures_util::StreamExt;
    // The body first: one too large is refused whatever it is sent to.
    let body = roster_body(payload).await?;
    let g = get(&state, &id).await?;
    organiser_of(&caller, &g)?;
    not_started(&g)?;
    let csv = req
        .headers()
        .get(actix_web::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(';').next().is_some_and(|m| m.trim().eq_ignore_ascii_case("text/csv")));
    let given: Vec<(usize, String)> = if csv {
        csv_names(&body)?
    } else {
        let b: RosterBody = serde_json::from_slice(&body).map_err(|e| {
            if e.to_string().contains("unknown field") {
                Problem::unknown_field(e.to_string())
            } else if e.is_data() || e.is_eof() {
                Problem::invalid(e.to_string())
            } else {
                Problem::malformed(e.to_string())
            }
        })?;
        b.names.into_iter().enumerate().map(|(i, n)| (i + 1, n.trim().to_string())).collect()
    };
    if given.len() > roster::MAX_ROWS {
        return Err(Problem::invalid(format!("a roster has at most {} rows, not {}", roster::MAX_ROWS, given.len())));
    }
    // Each account read once, a few at a time.
    let store = state.store.as_ref();
    let rows: Vec<RosterRow> = futures_util::stream::iter(given)
        .map(|(row, name)| async move {
            let account = if crate::accounts::valid_name(&name) {
                crate::accounts::load(store, &name).await?.map(|a| (a.name.clone(), a.role.unwrap_or(Role::Player)))
            } else {
                None
            };
            Ok::<_, StoreError>(RosterRow { row, name, account })
        })
        .buffered(16)
        .collect::<Vec<_>>()
        .await
        .into_iter()
        .collect::<Result<_, _>>()?;
    let (g, events) = append_commuting(&state, &id, &caller.name, |g| {
        roster::register_roster(g, &rows).map_err(|r| match r {
            RosterRefusal::Started => {
                Problem::conflict("gathering-started", "Gathering started", "the gathering has already started")
            }
            RosterRefusal::Empty => Problem::invalid("the roster names nobody"),
            RosterRefusal::TooLong(n) => {
                Problem::invalid(format!("a roster has at most {} rows, not {n}", roster::MAX_ROWS))
            }
            RosterRefusal::Full { capacity, registered, adding } => Problem::conflict(
                "gathering-full",
                "Gathering full",
                format!(
                    "the gathering takes at most {capacity} players and holds {registered}: the roster adds {adding}"
                ),
            ),
            RosterRefusal::Rows(refused) => {
                let mut p = Problem::new(
                    actix_web::http::StatusCode::UNPROCESSABLE_ENTITY,
                    "roster-refused",
                    "Roster refused",
                    format!(
                        "{} of {} rows are refused (see `refused`); nobody was registered",
                        refused.len(),
                        rows.len()
                    ),
                );
                p.refused = Some(Box::new(crate::problem::Refused(refused)));
                p
            }
        })
    })
    .await?;
    Ok(HttpResponse::Created().json(RosterAnswer {
        gathering_id: g.id.clone(),
        added: events.len(),
        registered: g.players.len() + events.len(),
    }))
}

/// Pages through a gathering's registrations, in registration order (public).
#[utoipa::path(tag = "gatherings", params(("id" = String, Path, description = "gathering id"), RegistrationsQuery),
    responses((status = 200, body = RegistrationsPage), (status = 400, body = Problem), (status = 404, body = Problem),
        (status = 422, description = "`unknown-registration`: `after` names nobody registered", body = Problem)))]
#[get("/api/v1/gatherings/{id}/registrations")]
pub async fn list_registrations(
    state: Data,
    id: web::Path<String>,
    q: web::Query<RegistrationsQuery>,
) -> Result<HttpResponse, Problem> {
    let limit = q.limit.unwrap_or(100);
    if !(1..=1000).contains(&limit) {
        return Err(Problem::invalid("limit is 1 to 1000"));
    }
    let g = get(&state, &id).await?;
    // An empty `after` is the start of the list, like no `after`.
    let start = match q.after.as_deref().filter(|a| !a.is_empty()) {
        None => 0,
        Some(name) => match g.registrant_position(name) {
            Some(i) => i + 1,
            None => {
                return Err(Problem::new(
                    actix_web::http::StatusCode::UNPROCESSABLE_ENTITY,
                    "unknown-registration",
                    "Unknown registration",
                    format!("'after': {name} is not registered"),
                ));
            }
        },
    };
    let page: Vec<Registrant> = g.players.iter().skip(start).take(limit).cloned().collect();
    let next = (start + page.len() < g.players.len()).then(|| page.last().map(|p| p.name.clone())).flatten();
    Ok(HttpResponse::Ok().json(RegistrationsPage { registrations: page, registered: g.players.len(), next }))
}

/// Reads one registration (public): whether `name` is registered, checked in, still playing.
#[utoipa::path(tag = "gatherings",
    params(("id" = String, Path, description = "gathering id"), ("name" = String, Path, description = "player name")),
    responses((status = 200, body = RegistrationStatus), (status = 404, description = "no such gathering, or `name` is not registered", body = Problem)))]
#[get("/api/v1/gatherings/{id}/registrations/{name}")]
pub async fn get_registration(state: Data, path: web::Path<(String, String)>) -> Result<HttpResponse, Problem> {
    let (id, name) = path.into_inner();
    let g = get(&state, &id).await?;
    let status =
        registration_status(&g, &name).ok_or_else(|| Problem::not_found(format!("{name} is not registered")))?;
    Ok(HttpResponse::Ok().json(status))
}

/// `name`'s registration at `g`, if registered.
fn registration_status(g: &Gathering, name: &str) -> Option<RegistrationStatus> {
    let position = g.registrant_position(name)?;
    let registration = g.players[position].clone();
    Some(RegistrationStatus {
        gathering_id: g.id.clone(),
        checked_in: g.checked_in.contains(&registration.name),
        playing: g.status != Status::Registering && commands::still_playing(g, &registration.name),
        registration,
        position: position + 1,
    })
}

/// The caller's registration at a gathering (`registration: null` when not registered): what
/// a player's page shows, without a 404 for the unregistered.
#[utoipa::path(tag = "gatherings", security(("bearer" = [])), params(("id" = String, Path, description = "gathering id")),
    responses((status = 200, body = MyRegistration), (status = 401, body = Problem), (status = 404, description = "no such gathering", body = Problem)))]
#[get("/api/v1/me/gatherings/{id}")]
pub async fn my_registration(state: Data, caller: Caller, id: web::Path<String>) -> Result<HttpResponse, Problem> {
    let g = get(&state, &id).await?;
    Ok(HttpResponse::Ok()
        .json(MyRegistration { gathering_id: g.id.clone(), registration: registration_status(&g, &caller.name) }))
}

/// Withdraws a registration before the start (R9.10.2): the player themself, or the organiser.
#[utoipa::path(tag = "gatherings", security(("bearer" = [])),
    params(("id" = String, Path, description = "gathering id"), ("name" = String, Path, description = "player name")),
    responses((status = 200, body = RegistrationAnswer), (status = 403, body = Problem), (status = 404, body = Problem), (status = 409, body = Problem)))]
#[delete("/api/v1/gatherings/{id}/registrations/{name}")]
pub async fn withdraw(state: Data, caller: Caller, path: web::Path<(String, String)>) -> Result<HttpResponse, Problem> {
    caller.require("play")?;
    let (id, name) = path.into_inner();
    let (g, _) = append_commuting(&state, &id, &caller.name, |g| {
        if caller.name != name && caller.name != g.organiser {
            return Err(Problem::forbidden("only the player or the organiser may withdraw a registration"));
        }
        if g.status != Status::Registering {
            return Err(Problem::conflict(
                "gathering-started",
                "Gathering started",
                "after the start a player may only concede at their table (R9.10.2)",
            ));
        }
        if g.registrant(&name).is_none() {
            return Err(Problem::not_found(format!("{name} is not registered")));
        }
        Ok(vec![GatheringEvent::PlayerWithdrew { name: name.clone() }])
    })
    .await?;
    let registration = g.players.iter().find(|p| p.name == name).cloned().expect("registered when decided");
    Ok(HttpResponse::Ok().json(RegistrationAnswer {
        gathering_id: g.id.clone(),
        registration,
        registered: g.players.len() - 1,
    }))
}

/// Fills seats with built-in bots before the start (organiser). Bots are named
/// `heuristic-bot#01`, `random-bot#02`… (`#` keeps them apart from accounts).
#[utoipa::path(tag = "gatherings", request_body = AddBotsBody, security(("bearer" = [])),
    params(("id" = String, Path, description = "gathering id")),
    responses((status = 201, body = BotsAdded), (status = 400, body = Problem), (status = 403, body = Problem), (status = 409, body = Problem)))]
#[post("/api/v1/gatherings/{id}/bots")]
pub async fn add_bots(
    state: Data,
    caller: Caller,
    id: web::Path<String>,
    body: web::Json<AddBotsBody>,
) -> Result<HttpResponse, Problem> {
    let (g, events) = append_commuting(&state, &id, &caller.name, |g| {
        organiser_of(&caller, g)?;
        not_started(g)?;
        if body.count == 0 || body.count > MAX_PLAYERS {
            return Err(Problem::invalid(format!("count is 1 to {MAX_PLAYERS}")));
        }
        if g.players.len() + body.count > g.settings.capacity() {
            return Err(Problem::conflict(
                "gathering-full",
                "Gathering full",
                format!(
                    "the gathering takes at most {} players and holds {}: add at most {}",
                    g.settings.capacity(),
                    g.players.len(),
                    g.settings.capacity().saturating_sub(g.players.len())
                ),
            ));
        }
        let existing = g.players.iter().filter(|p| p.bot.is_some()).count();
        let width = (existing + body.count).to_string().len().max(2);
        Ok((1..=body.count)
            .map(|i| {
                GatheringEvent::PlayerRegistered(Registrant {
                    name: format!("{}-bot#{:0width$}", body.kind.name(), existing + i),
                    bot: Some(body.kind),
                    program: false,
                })
            })
            .collect())
    })
    .await?;
    let name = |e: Option<&GatheringEvent>| match e {
        Some(GatheringEvent::PlayerRegistered(r)) => r.name.clone(),
        _ => String::new(),
    };
    Ok(HttpResponse::Created().json(BotsAdded {
        gathering_id: g.id.clone(),
        added: events.len(),
        first: name(events.first()),
        last: name(events.last()),
        registered: g.players.len() + events.len(),
    }))
}

/// Starts, pauses, resumes or cancels a gathering (organiser). `action`: `start`, `pause`,
/// `resume` or `cancel`.
#[utoipa::path(tag = "gatherings", security(("bearer" = [])),
    params(("id" = String, Path, description = "gathering id"), ("action" = Control, Path, description = "start, pause, resume or cancel")),
    responses((status = 200, body = GatheringSummary), (status = 403, body = Problem), (status = 409, body = Problem)))]
#[post("/api/v1/gatherings/{id}/{action}")]
pub async fn control(state: Data, caller: Caller, path: web::Path<(String, Control)>) -> Result<HttpResponse, Problem> {
    let (id, action) = path.into_inner();
    organiser_of(&caller, &*get(&state, &id).await?)?;
    let wrong = |what: &str| Problem::conflict("wrong-status", "Wrong status", what.to_string());
    // Decided afresh on the latest gathering if the process manager recorded something meanwhile
    // (a circle's result, the next stage): the organiser's control is not refused for that.
    append_commuting(&state, &id, &caller.name, |g| {
        Ok(match action {
            Control::Start => commands::start(g)?,
            Control::Pause if g.status == Status::Running => vec![GatheringEvent::GatheringPaused],
            Control::Pause => return Err(wrong("only a running gathering can be paused")),
            Control::Resume if g.status == Status::Paused => vec![GatheringEvent::GatheringResumed],
            Control::Resume => return Err(wrong("only a paused gathering can be resumed")),
            Control::Cancel if !g.over() => vec![
                GatheringEvent::GatheringCancelled { reason: format!("cancelled by {}", caller.name) },
                GatheringEvent::GatheringEnded { winner: None, reason: gatherings::EndReason::Cancelled },
            ],
            Control::Cancel => return Err(wrong("the gathering is over already")),
        })
    })
    .await?;
    if matches!(action, Control::Start | Control::Resume) {
        crate::driver::trigger_reconcile(state.clone(), id.clone());
    }
    Ok(HttpResponse::Ok().json(summary(&state, &*get(&state, &id).await?)))
}

/// The tables of the circles still playing as a spectator sees them (the spectator delay holds
/// here too, R10.8): the classes chosen (public, R2.7.5) and whom each waits for (R10.6.2).
/// Only the circles `window` shows are read.
async fn live_circles(state: &AppState, g: &Gathering, window: &CircleWindow) -> crate::gatherings::views::LiveClasses {
    crate::game::with_game!(g.settings.game, live_circles_of(state, g, window))
}

/// [`live_circles`] for a gathering of the game `G`.
async fn live_circles_of<G: crate::state::ServedGame + flicker_platform::gatherings::CircleGame>(
    state: &AppState,
    g: &Gathering,
    window: &CircleWindow,
) -> crate::gatherings::views::LiveClasses {
    let mut live = crate::gatherings::views::LiveClasses::new();
    for s in &g.stages {
        for (i, _) in window.select(s) {
            let (c, r) = &s.circles[i];
            if r.is_none()
                && let Ok(snap) = G::tables(state).load(state.store.as_ref(), &c.table_id).await
            {
                live.insert(c.table_id.clone(), live_circle(state, &snap).await);
            }
        }
    }
    live
}

/// The circle window of a bracket query (400 for a limit out of range).
fn window_of(q: BracketQuery) -> Result<CircleWindow, Problem> {
    let limit = q.limit.unwrap_or(CircleWindow::DEFAULT_LIMIT);
    if !(1..=CircleWindow::MAX_LIMIT).contains(&limit) {
        return Err(Problem::invalid(format!("limit is 1 to {}", CircleWindow::MAX_LIMIT)));
    }
    Ok(CircleWindow { stage: q.stage, offset: q.offset.unwrap_or(0), limit, player: q.player })
}

/// One circle's table as a spectator sees it (see [`live_circles`]).
async fn live_circle<G: flicker_platform::gatherings::CircleGame>(
    state: &AppState,
    snap: &crate::game::GameSnapshot<G>,
) -> crate::gatherings::views::LiveCircle {
    let Ok(sight) = crate::spectate::sight(state, snap, None, None, false).await else { return Default::default() };
    let seen = crate::spectate::state_at(snap, sight.visible);
    let opened =
        snap.marks[..sight.visible.min(snap.marks.len())].iter().rev().find_map(|m| m.as_ref().map(|m| m.opened_at));
    // Before the horizon reaches the game's first event, spectators see no game yet.
    let waiting = if snap.started() && sight.visible > 0 {
        crate::gatherings::views::waiting::<G>(&seen, &snap.info.seats, opened)
    } else {
        None
    };
    crate::gatherings::views::LiveCircle { classes: G::kept_classes(&seen), waiting }
}

/// The bracket: each stage's circles, tables, players, Last Lit, and the winner (public). A
/// window of each stage's circles (the first 64 by default; `stage`, `offset`, `limit`,
/// `player` choose others); `circle_count` gives each stage's total.
#[utoipa::path(tag = "gatherings", params(("id" = String, Path, description = "gathering id"), BracketQuery),
    responses((status = 200, body = Bracket), (status = 400, body = Problem), (status = 404, body = Problem)))]
#[get("/api/v1/gatherings/{id}/bracket")]
pub async fn get_bracket(
    state: Data,
    id: web::Path<String>,
    q: web::Query<BracketQuery>,
) -> Result<HttpResponse, Problem> {
    let window = window_of(q.into_inner())?;
    let g = get(&state, &id).await?;
    Ok(HttpResponse::Ok().json(bracket(&g, &live_circles(&state, &g, &window).await, &window)))
}

/// The circles of the stage being played (public): where to watch; windowed as the bracket.
#[utoipa::path(tag = "gatherings", params(("id" = String, Path, description = "gathering id"), BracketQuery),
    responses((status = 200, body = Vec<CircleView>), (status = 400, body = Problem), (status = 404, body = Problem)))]
#[get("/api/v1/gatherings/{id}/circles")]
pub async fn get_circles(
    state: Data,
    id: web::Path<String>,
    q: web::Query<BracketQuery>,
) -> Result<HttpResponse, Problem> {
    let mut window = window_of(q.into_inner())?;
    let g = get(&state, &id).await?;
    window.stage = g.stages.last().map(|s| s.stage);
    let b = bracket(&g, &live_circles(&state, &g, &window).await, &window);
    Ok(HttpResponse::Ok().json(b.stages.last().map(|s| s.circles.clone()).unwrap_or_default()))
}

/// R9.9: standings across stages, best first, readable at any time (public): a page of them
/// (the first 100 by default), with their total in `X-Total-Count`.
#[utoipa::path(tag = "gatherings", params(("id" = String, Path, description = "gathering id"), StandingsQuery),
    responses((status = 200, body = Vec<Standing>, headers(("X-Total-Count" = usize, description = "rows in all"))),
        (status = 400, body = Problem), (status = 404, body = Problem)))]
#[get("/api/v1/gatherings/{id}/standings")]
pub async fn get_standings(
    state: Data,
    id: web::Path<String>,
    q: web::Query<StandingsQuery>,
) -> Result<HttpResponse, Problem> {
    let limit = q.limit.unwrap_or(100);
    if !(1..=1000).contains(&limit) {
        return Err(Problem::invalid("limit is 1 to 1000"));
    }
    let all = standings(&*get(&state, &id).await?);
    let total = all.len();
    let page: Vec<Standing> = all
        .into_iter()
        .filter(|s| q.player.as_ref().is_none_or(|p| &s.name == p))
        .skip(q.offset.unwrap_or(0))
        .take(limit)
        .collect();
    Ok(HttpResponse::Ok().insert_header(("X-Total-Count", total.to_string())).json(page))
}

/// Checks the caller in before the start (a gathering with `check_in`); checking in twice
/// changes nothing. At the start, registered players who did not check in are removed.
#[utoipa::path(tag = "gatherings", security(("bearer" = [])), params(("id" = String, Path, description = "gathering id")),
    responses((status = 200, body = GatheringSummary), (status = 401, body = Problem), (status = 404, description = "no such gathering, or the caller is not registered", body = Problem),
        (status = 409, description = "`check-in-off` or `gathering-started`", body = Problem)))]
#[post("/api/v1/gatherings/{id}/check-ins")]
pub async fn check_in(state: Data, caller: Caller, id: web::Path<String>) -> Result<HttpResponse, Problem> {
    caller.require("play")?;
    let (g, events) = append_commuting(&state, &id, &caller.name, |g| Ok(commands::check_in(g, &caller.name)?)).await?;
    let g = if events.is_empty() { g } else { get(&state, &id).await? };
    Ok(HttpResponse::Ok().json(summary(&state, &g)))
}

/// R9.2: the circles a start would draw now, stage by stage, from the players present (public;
/// with check-in, those checked in and the built-in bots).
#[utoipa::path(tag = "gatherings", params(("id" = String, Path, description = "gathering id")),
    responses((status = 200, body = CirclePreview), (status = 404, body = Problem)))]
#[get("/api/v1/gatherings/{id}/preview")]
pub async fn preview(state: Data, id: web::Path<String>) -> Result<HttpResponse, Problem> {
    Ok(HttpResponse::Ok().json(commands::preview(&*get(&state, &id).await?)))
}

/// R9.10.2, R10.10: drops a player after the start (organiser): the player concedes at their
/// table and is drawn into no later stage. For a no-show holding up a circle.
#[utoipa::path(tag = "gatherings", security(("bearer" = [])),
    params(("id" = String, Path, description = "gathering id"), ("name" = String, Path, description = "player name")),
    responses((status = 200, body = GatheringSummary), (status = 403, body = Problem), (status = 404, body = Problem),
        (status = 409, description = "`gathering-not-started`, `player-out` or `wrong-status`", body = Problem)))]
#[post("/api/v1/gatherings/{id}/players/{name}/drop")]
pub async fn drop_player(
    state: Data,
    caller: Caller,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, Problem> {
    let (id, name) = path.into_inner();
    organiser_of(&caller, &*get(&state, &id).await?)?;
    append_commuting(&state, &id, &caller.name, |g| Ok(commands::drop_player(g, &name, &caller.name)?)).await?;
    crate::driver::trigger_reconcile(state.clone(), id.clone());
    Ok(HttpResponse::Ok().json(summary(&state, &*get(&state, &id).await?)))
}

/// Replaces a player by a built-in bot after the start (organiser): the bot takes the seat at
/// once and plays it to the end of the circle, but never advances and never wins; the place it
/// earns goes to nobody (docs/rules-decisions.md, "Substitutes").
#[utoipa::path(tag = "gatherings", request_body = Option<ReplaceBody>, security(("bearer" = [])),
    params(("id" = String, Path, description = "gathering id"), ("name" = String, Path, description = "player name")),
    responses((status = 200, body = GatheringSummary), (status = 400, body = Problem), (status = 403, body = Problem), (status = 404, body = Problem),
        (status = 409, description = "`gathering-not-started`, `player-out`, `already-bot` or `wrong-status`", body = Problem)))]
#[post("/api/v1/gatherings/{id}/players/{name}/replace")]
pub async fn replace_player(
    state: Data,
    caller: Caller,
    path: web::Path<(String, String)>,
    body: web::Bytes,
) -> Result<HttpResponse, Problem> {
    let (id, name) = path.into_inner();
    let body = crate::problem::optional_json::<ReplaceBody>(&body)?;
    organiser_of(&caller, &*get(&state, &id).await?)?;
    append_commuting(&state, &id, &caller.name, |g| Ok(commands::replace_player(g, &name, body.bot, &caller.name)?))
        .await?;
    crate::driver::trigger_reconcile(state.clone(), id.clone());
    Ok(HttpResponse::Ok().json(summary(&state, &*get(&state, &id).await?)))
}

/// R10.7.1: gives the open decision point of one of the gathering's tables more time
/// (organiser): its deadline moves later by `seconds`. The time given is public.
#[utoipa::path(tag = "gatherings", request_body = GiveTimeBody, security(("bearer" = [])),
    params(("id" = String, Path, description = "gathering id"), ("table_id" = String, Path, description = "a table of the gathering")),
    responses((status = 200, body = TimeGiven), (status = 400, body = Problem), (status = 403, body = Problem), (status = 404, body = Problem),
        (status = 409, description = "`not-in-play`: the table is not playing", body = Problem)))]
#[post("/api/v1/gatherings/{id}/tables/{table_id}/time")]
pub async fn give_time(
    state: Data,
    caller: Caller,
    path: web::Path<(String, String)>,
    body: web::Json<GiveTimeBody>,
) -> Result<HttpResponse, Problem> {
    let (id, table_id) = path.into_inner();
    let g = get(&state, &id).await?;
    organiser_of(&caller, &g)?;
    if !(1..=600).contains(&body.seconds) {
        return Err(Problem::invalid("seconds is 1 to 600"));
    }
    let of_gathering = g.stages.iter().flat_map(|s| &s.circles).any(|(c, _)| c.table_id == table_id);
    if !of_gathering {
        return Err(Problem::not_found(format!("no table {table_id} in this gathering")));
    }
    let seconds = body.seconds;
    let waiting = crate::game::with_game!(g.settings.game, give_time_at(&state, &caller, &table_id, seconds))?;
    Ok(HttpResponse::Ok().json(TimeGiven { table_id, seconds, waiting }))
}

/// [`give_time`] at a table of the game `G`: whom it waits for afterwards.
async fn give_time_at<G: crate::state::ServedGame + flicker_platform::gatherings::CircleGame>(
    state: &AppState,
    caller: &Caller,
    table_id: &str,
    seconds: u32,
) -> Result<Option<crate::gatherings::views::Waiting>, Problem> {
    let (snap, _) = G::tables(state)
        .command(state.store.as_ref(), table_id, &caller.name, None, |snap| {
            if snap.finished() || snap.clock.is_none() {
                return Err(Problem::conflict("not-in-play", "The game is not in play", "the table is not playing"));
            }
            let ev = crate::tables::TableEvent::<G::Settings>::TimeGiven { seconds, by: caller.name.clone() };
            Ok(vec![crate::tables::table_event(&ev, Default::default())])
        })
        .await?;
    Ok(live_circle(state, &snap).await.waiting)
}

/// One row of `results.csv`.
#[derive(serde::Serialize)]
struct ResultRow<'a> {
    rank: Option<u32>,
    name: &'a str,
    status: &'a str,
    stage: u32,
    circle: Option<u32>,
    placing: Option<u8>,
    bot: &'a str,
    points: Option<u32>,
}

/// R9.9: the results as CSV (public): one row per player, best first, with the columns `rank`
/// (empty while not final), `name`, `status`, `stage`, `circle`, `placing`, `bot` (the
/// built-in bot's policy, empty for accounts), `points` (*Let's Call the Exorcist*: the points
/// scored in that circle, X7.6; empty otherwise).
#[utoipa::path(tag = "gatherings", params(("id" = String, Path, description = "gathering id")),
    responses((status = 200, content_type = "text/csv", body = String, description = "`rank,name,status,stage,circle,placing,bot,points`, one row per player"),
        (status = 404, body = Problem)))]
#[get("/api/v1/gatherings/{id}/results.csv")]
pub async fn results_csv(state: Data, id: web::Path<String>) -> Result<HttpResponse, Problem> {
    let g = get(&state, &id).await?;
    let mut out = csv::Writer::from_writer(Vec::new());
    for s in standings(&g) {
        let status =
            serde_json::to_value(s.status).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
        let bot = g.players.iter().find(|p| p.name == s.name).and_then(|p| p.bot).map_or("", |b| b.name());
        out.serialize(ResultRow {
            rank: s.rank,
            name: &s.name,
            status: &status,
            stage: s.stage,
            circle: s.circle,
            placing: s.placing,
            bot,
            points: s.points,
        })
        .map_err(|e| Problem::internal(format!("csv: {e}")))?;
    }
    let body = out.into_inner().map_err(|e| Problem::internal(format!("csv: {e}")))?;
    let file = format!("attachment; filename=\"gathering-{}-results.csv\"", g.id);
    Ok(HttpResponse::Ok()
        .content_type("text/csv; charset=utf-8")
        .insert_header((actix_web::http::header::CONTENT_DISPOSITION, file))
        .body(body))
}

/// R9.9: the results as JSON (public): standings and every stage's circles.
#[utoipa::path(tag = "gatherings", params(("id" = String, Path, description = "gathering id")),
    responses((status = 200, body = ResultsExport), (status = 404, body = Problem)))]
#[get("/api/v1/gatherings/{id}/results.json")]
pub async fn results_json(state: Data, id: web::Path<String>) -> Result<HttpResponse, Problem> {
    let g = get(&state, &id).await?;
    let b = bracket(&g, &Default::default(), &CircleWindow::all());
    let file = format!("attachment; filename=\"gathering-{}-results.json\"", g.id);
    Ok(HttpResponse::Ok().insert_header((actix_web::http::header::CONTENT_DISPOSITION, file)).json(ResultsExport {
        gathering_id: g.id.clone(),
        name: g.name.clone(),
        status: g.status,
        winner: g.winner.clone(),
        end_reason: g.end_reason.map(|r| r.as_str().to_string()),
        started_at: g.started_at,
        ended_at: g.ended_at,
        standings: standings(&g),
        stages: b.stages,
    }))
}

/// Registers this group's routes (each route is listed here once; the OpenAPI document is
/// collected from the same calls).
pub(super) fn routes(cfg: &mut utoipa_actix_web::service_config::ServiceConfig) {
    cfg.service(create_gathering)
        .service(list_gatherings)
        .service(get_gathering)
        .service(configure)
        .service(register)
        .service(list_registrations)
        .service(register_roster)
        .service(get_registration)
        .service(my_registration)
        .service(withdraw)
        .service(add_bots)
        .service(get_bracket)
        .service(get_circles)
        .service(get_standings)
        .service(check_in)
        .service(preview)
        .service(drop_player)
        .service(replace_player)
        .service(give_time)
        .service(results_csv)
        .service(results_json)
        .service(control);
}
