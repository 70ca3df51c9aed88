//! Who am I (`/api/v1/me`), my bot tokens and my tables (`/api/v1/me/tokens`,
//! `/api/v1/me/tables`), and the list of live tables (`GET /api/v1/tables`).

use super::*;
use flicker_wire::me::*;

/// Who the token belongs to: name, role, and whether it is a login's access token or a bot
/// token (with its scopes).
#[utoipa::path(tag = "accounts", security(("bearer" = [])),
    responses((status = 200, body = Me), (status = 401, body = Problem)))]
#[get("/api/v1/me")]
pub async fn get_me(caller: Caller) -> Result<HttpResponse, Problem> {
    let token = if caller.scopes.is_empty() { "access" } else { "bot" };
    Ok(HttpResponse::Ok().json(Me {
        name: caller.name.clone(),
        role: caller.role,
        token: token.to_string(),
        scopes: caller.scopes.clone(),
    }))
}

/// The caller's bot tokens, newest first, revoked and expired ones included (never the tokens
/// themselves).
#[utoipa::path(tag = "accounts", security(("bearer" = [])),
    responses((status = 200, body = Vec<TokenInfo>), (status = 401, body = Problem)))]
#[get("/api/v1/me/tokens")]
pub async fn my_tokens(state: Data, caller: Caller) -> Result<HttpResponse, Problem> {
    let a = crate::accounts::load(state.store.as_ref(), &caller.name)
        .await?
        .ok_or_else(|| Problem::unauthenticated("no account"))?;
    let out: Vec<TokenInfo> = a
        .bot_tokens
        .iter()
        .rev()
        .map(|t| TokenInfo {
            id: t.jti.clone(),
            label: t.label.clone(),
            scopes: t.scopes.clone(),
            expires_at: t.expires_at,
            revoked: t.revoked,
        })
        .collect();
    Ok(HttpResponse::Ok().json(out))
}

/// Your preferences (auto-pass).
#[utoipa::path(tag = "accounts", security(("bearer" = [])),
    responses((status = 200, body = Preferences), (status = 401, body = Problem)))]
#[get("/api/v1/me/preferences")]
pub async fn get_preferences(state: Data, caller: Caller) -> Result<HttpResponse, Problem> {
    let a = crate::accounts::load(state.store.as_ref(), &caller.name)
        .await?
        .ok_or_else(|| Problem::unauthenticated("no account"))?;
    Ok(HttpResponse::Ok().json(Preferences { auto_pass: a.auto_pass }))
}

/// Sets your preferences (a token with the `play` scope). Auto-pass takes effect at once: the
/// server passes for you, as your own answer, in each Salt or BOO! Salt
/// window in which you hold no 5, at tables that hold their windows (docs/rules-decisions.md 55).
#[utoipa::path(tag = "accounts", request_body = Preferences, security(("bearer" = [])),
    responses((status = 200, body = Preferences), (status = 400, body = Problem), (status = 401, body = Problem), (status = 403, body = Problem)))]
#[put("/api/v1/me/preferences")]
pub async fn put_preferences(
    state: Data,
    caller: Caller,
    body: web::Json<Preferences>,
) -> Result<HttpResponse, Problem> {
    caller.require("play")?;
    let a = crate::accounts::load(state.store.as_ref(), &caller.name)
        .await?
        .ok_or_else(|| Problem::unauthenticated("no account"))?;
    if a.auto_pass != body.auto_pass {
        crate::accounts::append(state.store.as_ref(), &a, AccountEvent::PreferencesSet { auto_pass: body.auto_pass })
            .await
            .map_err(|e| match e {
                StoreError::Conflict { .. } => {
                    Problem::conflict("conflict", "Conflict", "the account changed; try again")
                }
                e => e.into(),
            })?;
        state.accounts.forget(&a.name);
        // The caller's tables look again now: an open window may be auto-passed at once.
        for (id, t) in live_tables(&state, None).await {
            if !t.seats_of(&caller.name).is_empty() {
                crate::driver::poke(&state, &id);
            }
        }
    }
    Ok(HttpResponse::Ok().json(body.into_inner()))
}

/// What the account routes read of one table, whatever its game.
pub(super) struct Summary {
    game: GameName,
    status: String,
    practice: bool,
    gathering: Option<crate::tables::TableGathering>,
    /// Seat holders in seat order.
    seats: Vec<Option<String>>,
    /// The seats of the account asked about whose prompt awaits an answer now.
    awaiting: Vec<u8>,
    finished: bool,
}

impl Summary {
    fn seats_of(&self, name: &str) -> Vec<u8> {
        self.seats.iter().enumerate().filter(|(_, a)| a.as_deref() == Some(name)).map(|(i, _)| i as u8).collect()
    }
}

/// Table `id` as the account routes read it (`name`: the account whose awaited seats to list),
/// if it exists.
pub(super) async fn summary(state: &AppState, id: &str, name: Option<&str>) -> Option<Summary> {
    let game = state.table_games.of(state.store.as_ref(), id).await.ok()?;
    with_game!(game, summary_of(state, id, name))
}

async fn summary_of<G: ServedGame>(state: &AppState, id: &str, name: Option<&str>) -> Option<Summary> {
    let snap = G::tables(state).load(state.store.as_ref(), id).await.ok()?;
    Some(Summary {
        game: G::NAME,
        status: snap.info.status.clone(),
        practice: snap.info.practice,
        gathering: snap.info.gathering.clone(),
        seats: snap.info.seats.clone(),
        awaiting: name.map(|n| snap.awaiting(n)).unwrap_or_default(),
        finished: snap.finished(),
    })
}

/// The tables that have not ended, by table id (`name`: the account whose awaited seats to
/// list).
async fn live_tables(state: &AppState, name: Option<&str>) -> Vec<(String, Summary)> {
    let mut out = Vec::new();
    for id in state.driver.live().tables {
        if let Some(t) = summary(state, &id, name).await
            && !t.finished
        {
            out.push((id, t));
        }
    }
    out
}

/// R10.4.2: the caller's tables that have not ended (practice tables and gathering circles),
/// each with the caller's seats and those whose prompt awaits an answer now.
#[utoipa::path(tag = "play", security(("bearer" = [])),
    responses((status = 200, body = Vec<MyTable>), (status = 401, body = Problem), (status = 403, body = Problem)))]
#[get("/api/v1/me/tables")]
pub async fn my_tables(state: Data, caller: Caller) -> Result<HttpResponse, Problem> {
    caller.require("read")?;
    let out: Vec<MyTable> = live_tables(&state, Some(&caller.name))
        .await
        .into_iter()
        .filter_map(|(id, t)| my_table(&id, &t, &caller.name))
        .collect();
    Ok(HttpResponse::Ok().json(out))
}

/// `name`'s seats at one table, if any.
pub(super) fn my_table(id: &str, t: &Summary, name: &str) -> Option<MyTable> {
    let seats = t.seats_of(name);
    (!seats.is_empty()).then(|| MyTable {
        table_id: id.to_string(),
        game: t.game,
        status: t.status.clone(),
        gathering: t.gathering.clone(),
        seats,
        awaiting: t.awaiting.clone(),
    })
}

/// The account event stream (Server-Sent Events): one `table` message, a [`MyTable`], for
/// each of your tables that has not ended when the stream opens, and again whenever one of
/// them changes for you: a table of yours appears (you took a seat, a gathering drew you into a
/// circle), the seats of yours `awaiting` an answer change ("a seat of yours needs an answer at
/// table X"), or it ends (`status: finished`, then no more about it). It tells you only about
/// your own seats, from their own prompts. Takes the bearer header or `?access_token=` (an
/// access or a bot token with `read`).
#[utoipa::path(tag = "spectators", security(("bearer" = [])),
    responses((status = 200, content_type = "text/event-stream", body = flicker_wire::streams::StreamEvent, description = "a stream of events, each as `StreamEvent`: `event: table` with `data:` a `MyTable` as JSON text"),
        (status = 401, body = Problem), (status = 403, body = Problem)))]
#[get("/api/v1/me/stream")]
pub async fn my_stream(state: Data, caller: MaybeCaller) -> Result<impl actix_web::Responder, Problem> {
    let caller =
        caller.0.ok_or_else(|| Problem::unauthenticated("send 'Authorization: Bearer <token>' or ?access_token="))?;
    caller.require("read")?;
    let (tx, rx) = tokio::sync::mpsc::channel::<actix_web_lab::sse::Event>(64);
    let mut changes = state.changes.subscribe();
    let name = caller.name;
    actix_web::rt::spawn(async move {
        let mut known: std::collections::HashMap<String, MyTable> = std::collections::HashMap::new();
        let mut rescan = true;
        loop {
            let ids: Vec<String> = if rescan {
                let mut ids: Vec<String> = state.driver.live().tables.into_iter().collect();
                ids.extend(known.keys().cloned());
                ids.sort();
                ids.dedup();
                ids
            } else {
                let Some(r) = super::streams::change_unless_closed(&tx, &mut changes).await else { return };
                match r {
                    Ok(stream) => match stream.strip_prefix("table-") {
                        Some(id) => vec![id.to_string()],
                        None => continue,
                    },
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                        rescan = true;
                        continue;
                    }
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                }
            };
            rescan = false;
            for id in ids {
                let Some(snap) = summary(&state, &id, Some(&name)).await else { continue };
                let now = if snap.finished {
                    known.remove(&id).map(|t| MyTable { status: "finished".into(), awaiting: Vec::new(), ..t })
                } else {
                    my_table(&id, &snap, &name).filter(|t| known.get(&id) != Some(t))
                };
                let Some(t) = now else { continue };
                if t.status != "finished" {
                    known.insert(id.clone(), t.clone());
                }
                let json = serde_json::to_string(&t).expect("json");
                if tx.send(actix_web_lab::sse::Data::new(json).event("table").into()).await.is_err() {
                    return;
                }
            }
            if tx.is_closed() {
                return;
            }
        }
    });
    Ok(actix_web_lab::sse::Sse::from_infallible_receiver(rx).with_keep_alive(std::time::Duration::from_secs(15)))
}

/// The tables that have not ended (public), by table id, a page at a time, each with its seat
/// holders and its spectator count: where to watch.
#[utoipa::path(tag = "spectators", params(TableListQuery),
    responses((status = 200, body = TableList), (status = 400, body = Problem)))]
#[get("/api/v1/tables")]
pub async fn list_tables(state: Data, q: web::Query<TableListQuery>) -> Result<HttpResponse, Problem> {
    let limit = q.limit.unwrap_or(50);
    if !(1..=200).contains(&limit) {
        return Err(Problem::invalid("limit is 1 to 200"));
    }
    let mut tables = Vec::new();
    let mut next = None;
    for id in state.driver.live().tables {
        if q.after.as_ref().is_some_and(|a| id.as_str() <= a.as_str()) {
            continue;
        }
        let Some(snap) = summary(&state, &id, None).await else { continue };
        if snap.finished
            || q.gathering.as_ref().is_some_and(|g| snap.gathering.as_ref().is_none_or(|t| &t.gathering_id != g))
        {
            continue;
        }
        if tables.len() == limit {
            next = tables.last().map(|t: &LiveTable| t.table_id.clone());
            break;
        }
        tables.push(LiveTable {
            table_id: id.clone(),
            game: snap.game,
            status: snap.status.clone(),
            players: snap.seats.clone(),
            practice: snap.practice,
            gathering: snap.gathering.clone(),
            spectators: state.watchers.count(&crate::tables::stream_of(&id)),
        });
    }
    Ok(HttpResponse::Ok().json(TableList { tables, next }))
}

/// Registers this group's routes (each route is listed here once; the OpenAPI document is
/// collected from the same calls).
pub(super) fn routes(cfg: &mut ServiceConfig) {
    cfg.service(get_me)
        .service(get_preferences)
        .service(put_preferences)
        .service(my_tokens)
        .service(my_tables)
        .service(my_stream)
        .service(list_tables);
}
