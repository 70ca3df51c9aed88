//! Play: your prompt, answers with idempotency keys, conceding, your events page (`/api/v1/tables/{id}/prompt`, `.../answers`, `.../concede`, `.../events`).

use super::*;

/// Reads your open prompt and its legal answers (R10.4.2).
#[utoipa::path(tag = "play", security(("bearer" = [])), params(("id" = String, Path, description = "table id"), SeatQuery),
    responses((status = 200, body = PromptResponse), (status = 404, body = Problem)))]
#[get("/api/v1/tables/{id}/prompt")]
pub async fn get_prompt(
    state: Data,
    caller: Caller,
    id: web::Path<String>,
    q: web::Query<SeatQuery>,
) -> Result<HttpResponse, Problem> {
    caller.require("read")?;
    with_game!(game_of(&state, &id).await?, get_prompt_of(&state, &caller, &id, &q))
}

async fn get_prompt_of<G: ServedGame>(
    state: &AppState,
    caller: &Caller,
    id: &str,
    q: &SeatQuery,
) -> Result<HttpResponse, Problem> {
    let snap = G::tables(state).load(state.store.as_ref(), id).await?;
    let seat = match viewer_for(&snap, Some(&caller.name), q.seat)? {
        Viewer::Seat { seat } => Some(seat),
        _ => None,
    };
    let prompt = seat.and_then(|s| G::prompt_for(&snap.state, s));
    let clock = match (&prompt, seat) {
        (Some(_), Some(s)) => {
            let viewer = Some(Viewer::Seat { seat: s });
            clock_for(state, &snap, &snap.state, snap.clock.as_ref(), viewer).await
        }
        _ => None,
    };
    Ok(etagged(&PromptResponse::<G> { seat, prompt, clock }))
}

pub(super) fn my_seat<G: Game>(snap: &GameSnapshot<G>, caller: &Caller, seat: Option<u8>) -> Result<u8, Problem> {
    let mine = snap.seats_of(&caller.name);
    match seat {
        Some(s) if mine.contains(&s) => Ok(s),
        Some(s) => Err(Problem::wrong_seat(format!("you do not hold seat {s}"))),
        None if mine.len() == 1 => Ok(mine[0]),
        None if mine.is_empty() => Err(Problem::wrong_seat("you hold no seat at this table")),
        None => Err(Problem::invalid("you hold several seats: name one with 'seat'")),
    }
}

/// A hash of an answer request (seat, prompt, answer), stored with its idempotency key.
pub(super) fn request_hash<G: Game>(body: &AnswerBody<G>) -> String {
    stored_hash(&(body.seat, body.prompt_id, &body.answer))
}

/// A hash of a request as stored with its idempotency key: the first 16 hex digits of the
/// SHA-256 of its JSON, the same in every build (a retry after an upgrade is still recognised).
pub(super) fn stored_hash(request: &impl Serialize) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(serde_json::to_vec(request).expect("json"));
    hex::encode(&digest[..8])
}

pub(super) fn idempotency_key(req: &HttpRequest) -> Result<String, Problem> {
    let k = req
        .headers()
        .get("Idempotency-Key")
        .ok_or_else(|| {
            Problem::new(
                StatusCode::BAD_REQUEST,
                "missing-idempotency-key",
                "Missing Idempotency-Key",
                "send an 'Idempotency-Key' header (any unique string, e.g. a UUID) so that a retry acts once",
            )
        })?
        .to_str()
        .map_err(|_| Problem::invalid("the Idempotency-Key must be visible ASCII"))?;
    if k.is_empty() || k.len() > 200 {
        return Err(Problem::invalid("the Idempotency-Key has 1 to 200 characters"));
    }
    Ok(k.to_string())
}

/// Answers your open prompt (R10.1.2). Send an `Idempotency-Key` header: a retry with the same
/// key acts once. Returns your view afterwards.
#[utoipa::path(tag = "play", request_body = AnswerBody, security(("bearer" = [])),
    params(("id" = String, Path, description = "table id"), ("Idempotency-Key" = String, Header, pattern = "^[!-~]([\t -~]{0,198}[!-~])?$", description = "unique per intended action: 1 to 200 visible ASCII characters")),
    responses((status = 200, body = TableResponse), (status = 400, body = Problem), (status = 403, description = "wrong seat", body = Problem),
        (status = 409, description = "stale prompt, or no open prompt", body = Problem), (status = 422, description = "rule violation", body = Problem)))]
#[post("/api/v1/tables/{id}/answers")]
pub async fn answer(
    state: Data,
    req: HttpRequest,
    caller: Caller,
    id: web::Path<String>,
    body: web::Json<serde_json::Value>,
) -> Result<HttpResponse, Problem> {
    caller.require("play")?;
    let key = idempotency_key(&req)?;
    with_game!(game_of(&state, &id).await?, answer_of(&state, &caller, &id, &key, body.into_inner()))
}

/// The answer body of the table's game `G` (the same problems as a body refused by the JSON
/// extractor: `unknown-field`, `invalid-request`).
fn answer_body<G: Game>(body: serde_json::Value) -> Result<AnswerBody<G>, Problem> {
    serde_json::from_value(body).map_err(|e| {
        if e.to_string().contains("unknown field") {
            Problem::unknown_field(e.to_string())
        } else {
            Problem::invalid(e.to_string())
        }
    })
}

async fn answer_of<G: ServedGame>(
    state: &AppState,
    caller: &Caller,
    id: &str,
    key: &str,
    body: serde_json::Value,
) -> Result<HttpResponse, Problem> {
    let body = answer_body::<G>(body)?;
    // The seat is checked before anything else, so an answer for a seat one does not hold
    // learns nothing (not even whether a key was used).
    let current = G::tables(state).load(state.store.as_ref(), id).await?;
    my_seat(&current, caller, body.seat)?;
    gathering_allows_play(state, &current).await?;
    let hash = request_hash(&body);
    let mut seat_used = None;
    let (snap, replayed) = G::tables(state)
        .command_from(Some(current), state.store.as_ref(), id, &caller.name, Some((key, &hash)), |snap| {
            let seat = my_seat(snap, caller, body.seat)?;
            seat_used = Some(seat);
            let cmd = G::seat_answer(seat, body.prompt_id, body.answer.clone());
            Ok::<_, Problem>(crate::tables::decide(snap, &cmd, &mut rand::rng())?)
        })
        .await?;
    let seat = match seat_used {
        Some(s) => Some(s),
        None => my_seat(&snap, caller, body.seat).ok(),
    };
    let mut resp = etagged(&table_response(state, &snap, Some(caller), seat, false).await?);
    if replayed {
        resp.headers_mut().insert(
            actix_web::http::header::HeaderName::from_static("idempotent-replay"),
            actix_web::http::header::HeaderValue::from_static("true"),
        );
    }
    Ok(resp)
}

/// Refuses play at a table whose gathering is paused (409 `gathering-paused`) or cancelled
/// (409 `gathering-cancelled`).
pub(super) async fn gathering_allows_play<G: Game>(state: &AppState, snap: &GameSnapshot<G>) -> Result<(), Problem> {
    let Some(g) = &snap.info.gathering else { return Ok(()) };
    let Some(g) = state.gatherings.get(state.store.as_ref(), &g.gathering_id).await? else { return Ok(()) };
    match g.status {
        crate::gatherings::Status::Paused => Err(Problem::conflict(
            "gathering-paused",
            "Gathering paused",
            "the organiser paused the gathering; answers are taken again once it resumes",
        )),
        crate::gatherings::Status::Cancelled => Err(Problem::conflict(
            "gathering-cancelled",
            "Gathering cancelled",
            "the organiser cancelled the gathering",
        )),
        _ => Ok(()),
    }
}

/// Concedes (R10.10) for your seat.
#[utoipa::path(tag = "play", request_body = Option<SeatBody>, security(("bearer" = [])), params(("id" = String, Path, description = "table id")),
    responses((status = 200, body = TableResponse), (status = 403, body = Problem),
        (status = 409, description = "the game is not in play", body = Problem)))]
#[post("/api/v1/tables/{id}/concede")]
pub async fn concede(
    state: Data,
    caller: Caller,
    id: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, Problem> {
    caller.require("play")?;
    let want = crate::problem::optional_json::<SeatBody>(&body)?.seat;
    with_game!(game_of(&state, &id).await?, concede_of(&state, &caller, &id, want))
}

async fn concede_of<G: ServedGame>(
    state: &AppState,
    caller: &Caller,
    id: &str,
    want: Option<u8>,
) -> Result<HttpResponse, Problem> {
    let (snap, _) = G::tables(state)
        .command(state.store.as_ref(), id, &caller.name, None, |snap| {
            let seat = my_seat(snap, caller, want)?;
            Ok::<_, Problem>(crate::tables::decide(snap, &G::concede_command(seat), &mut rand::rng())?)
        })
        .await?;
    Ok(HttpResponse::Ok().json(table_response(state, &snap, Some(caller), want, false).await?))
}

/// Pages through the game's events as *your* sequence (R10.8): only what you may see, each
/// redacted for you. Cursors are opaque and count nothing hidden. After the game ends, the
/// complete record.
#[utoipa::path(tag = "play", security((), ("bearer" = [])), params(("id" = String, Path, description = "table id"), EventsQuery),
    responses((status = 200, body = EventsPage), (status = 400, body = Problem)))]
#[get("/api/v1/tables/{id}/events")]
pub async fn list_events(
    state: Data,
    caller: MaybeCaller,
    id: web::Path<String>,
    q: web::Query<EventsQuery>,
) -> Result<HttpResponse, Problem> {
    let caller = reader(&caller)?;
    with_game!(game_of(&state, &id).await?, list_events_of(&state, caller, &id, &q))
}

async fn list_events_of<G: ServedGame>(
    state: &AppState,
    caller: Option<&Caller>,
    id: &str,
    q: &EventsQuery,
) -> Result<HttpResponse, Problem> {
    let snap = G::tables(state).load(state.store.as_ref(), id).await?;
    let sight = spectate::sight(state, &snap, caller, q.seat, q.commentary).await?;
    let viewer = sight.viewer;
    let scope = format!("{id}:{viewer:?}");
    let after = q.after.as_deref().map(|c| state.keys.read_cursor(&scope, c)).transpose()?.unwrap_or(0);
    let limit = q.limit.unwrap_or(100);
    if !(1..=500).contains(&limit) {
        return Err(Problem::invalid("limit is 1 to 500"));
    }
    let all = spectate::sequence(&snap, viewer, sight.visible);
    let events: Vec<EventItem<G>> = all
        .into_iter()
        .map(|(_, e)| e)
        .enumerate()
        .skip(after)
        .take(limit)
        .map(|(i, event)| EventItem { cursor: state.keys.cursor(&scope, i + 1), event })
        .collect();
    let next = events.last().map(|e| e.cursor.clone()).or(q.after.clone());
    Ok(etagged(&EventsPage { events, next }))
}

/// Registers this group's routes (each route is listed here once; the OpenAPI document is
/// collected from the same calls).
pub(super) fn routes(cfg: &mut ServiceConfig) {
    cfg.service(get_prompt).service(answer).service(concede).service(list_events);
}

#[cfg(test)]
mod tests {
    /// R10.1.2: the hash stored with an idempotency key is SHA-256 of the request's JSON (its
    /// first 8 bytes in hex), so a retry sent across an upgrade of the server is still
    /// recognised as the same request.
    #[test]
    fn r10_1_2_the_stored_request_hash_is_the_same_in_every_build() {
        assert_eq!(super::stored_hash(&(0, 1, "x")), "b4f4c70507a724b0");
    }
}
