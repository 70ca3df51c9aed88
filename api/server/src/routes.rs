//! HTTP handlers: thin adapters from requests to the accounts, the tables and the engine.

use crate::accounts::{self, AccountEvent, Role};
use crate::auth::{ACCESS_TTL_SECS, Caller, MaybeCaller, REFRESH_TTL_SECS, TokenKind};
use crate::problem::Problem;
use crate::spectate;
use crate::state::AppState;
use crate::store::{Metadata, StoreError};
use crate::game::{Answer, Prompt, PromptId, Served, Settings, TableInfo, View, ViewEvent};
use crate::tables::{self, TableError, table_event, viewer_for};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, delete, get, post, web};
use chrono::{Duration, Utc};
use flicker_game::{Game, Viewer};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

type Data = web::Data<AppState>;

// ---------- accounts and tokens ----------

/// Body of `POST /api/v1/accounts`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"name": "alice", "password": "correct horse", "role": "player"}))]
pub struct RegisterBody {
    /// 3-32 characters: letters, digits, `_`, `-` (case-insensitive).
    #[schema(pattern = "^[A-Za-z0-9_-]{3,32}$")]
    pub name: String,
    /// At least 8 characters.
    #[schema(min_length = 8)]
    pub password: String,
    /// `player` (default), `bot`, `spectator`, or `organiser` (needs the header `X-Organiser-Key`
    /// with the server's organiser key: `FLICKER_ORGANISER_KEY`, or the key the server generated
    /// and wrote beside its SQLite file, `flicker.db.organiser-key`).
    #[serde(default = "default_role")]
    pub role: Role,
}

/// Compares a presented key with the server's in constant time (`subtle`): the time
/// taken does not depend on where they differ. (Lengths may differ; only the server's key's
/// length, at least 16 bytes, could be learnt.)
pub fn same_secret(given: &[u8], expected: &[u8]) -> bool {
    use subtle::ConstantTimeEq;
    given.ct_eq(expected).into()
}

fn default_role() -> Role {
    Role::Player
}

/// An account as shown.
#[derive(Debug, Serialize, ToSchema)]
pub struct AccountView {
    /// Lower-case name.
    pub name: String,
    /// Role.
    pub role: Role,
}

/// Creates an account.
#[utoipa::path(tag = "accounts", request_body = RegisterBody,
    responses((status = 201, body = AccountView), (status = 400, body = Problem),
        (status = 403, description = "an organiser account without the server's organiser key", body = Problem),
        (status = 409, description = "name taken", body = Problem)))]
#[post("/api/v1/accounts")]
pub async fn register(state: Data, req: HttpRequest, body: web::Json<RegisterBody>) -> Result<HttpResponse, Problem> {
    if body.role == Role::Organiser {
        // Organisers are not self-appointed: the server's organiser key is required
        // (FLICKER_ORGANISER_KEY, or the generated one written beside the SQLite file).
        let given = req.headers().get("X-Organiser-Key").map(|v| v.as_bytes()).unwrap_or_default();
        if !same_secret(given, state.organiser_key.as_bytes()) {
            return Err(Problem::forbidden(
                "registering an organiser needs the server's organiser key (X-Organiser-Key)",
            ));
        }
    }
    let a = accounts::register(state.store.as_ref(), &body.name, &body.password, body.role).await?;
    Ok(HttpResponse::Created().json(AccountView { name: a.name, role: body.role }))
}

/// Body of `POST /api/v1/auth/token`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"name": "alice", "password": "correct horse"}))]
pub struct LoginBody {
    /// Account name.
    pub name: String,
    /// Password.
    pub password: String,
}

/// A token pair.
#[derive(Debug, Serialize, ToSchema)]
pub struct TokenPair {
    /// Bearer token, valid `expires_in` seconds.
    pub access_token: String,
    /// Always `Bearer`.
    pub token_type: String,
    /// Seconds.
    pub expires_in: i64,
    /// Single-use token for `POST /api/v1/auth/refresh` (30 days).
    pub refresh_token: String,
}

/// A token pair in the session `chain`.
fn pair(state: &AppState, name: &str, role: Role, chain: &str) -> TokenPair {
    let chain = Some(chain.to_string());
    let (access_token, _) = state.keys.issue(name, role, TokenKind::Access, ACCESS_TTL_SECS, vec![], chain.clone());
    let (refresh_token, _) = state.keys.issue(name, role, TokenKind::Refresh, REFRESH_TTL_SECS, vec![], chain);
    TokenPair { access_token, token_type: "Bearer".into(), expires_in: ACCESS_TTL_SECS, refresh_token }
}

/// A 429 `login-throttled` problem with `Retry-After` (whole seconds, at least 1).
fn throttled(wait: chrono::Duration) -> HttpResponse {
    let secs = (wait.num_milliseconds() + 999).div_euclid(1000).max(1);
    let p = Problem::new(
        StatusCode::TOO_MANY_REQUESTS,
        "login-throttled",
        "Too many failed logins",
        format!("too many failed logins for this name from this address, or from this address; retry after {secs} s"),
    );
    let mut resp = actix_web::ResponseError::error_response(&p);
    resp.headers_mut()
        .insert(actix_web::http::header::RETRY_AFTER, actix_web::http::header::HeaderValue::from(secs as u64));
    resp
}

/// Logs in: a short-lived access token and a refresh token, in a new session. An
/// unknown name is checked against a dummy argon2 hash, as long as a known one; repeated
/// failures per (name, address) and per address are slowed ([`crate::login_throttle`]: 5 and 20
/// free failures, then waits from 1 s doubling to 300 s, forgotten after 15 quiet minutes) and
/// answered 429 `login-throttled` with `Retry-After`; another address is never slowed by them.
#[utoipa::path(tag = "accounts", request_body = LoginBody,
    responses((status = 200, body = TokenPair), (status = 401, body = Problem),
        (status = 429, description = "too many failed logins for this name from this address, or from this address; see Retry-After", body = Problem)))]
#[post("/api/v1/auth/token")]
pub async fn login(state: Data, req: HttpRequest, body: web::Json<LoginBody>) -> Result<HttpResponse, Problem> {
    let now = state.clock.now();
    let addr = req.peer_addr().map(|a| a.ip());
    if let Err(wait) = state.login_throttle.check(&body.name, addr, now) {
        return Ok(throttled(wait));
    }
    let a =
        if accounts::valid_name(&body.name) { accounts::load(state.store.as_ref(), &body.name).await? } else { None };
    let hash = a.as_ref().map_or(accounts::dummy_hash(), |a| a.password_hash.as_str());
    state.password_checks.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let matches = accounts::verify_hash(hash, &body.password);
    match a {
        Some(a) if matches => {
            state.login_throttle.succeeded(&body.name, addr);
            let chain = uuid::Uuid::new_v4().to_string();
            Ok(HttpResponse::Ok().json(pair(&state, &a.name, a.role.unwrap_or(Role::Player), &chain)))
        }
        _ => {
            state.login_throttle.failed(&body.name, addr, now);
            Err(Problem::unauthenticated("unknown name or wrong password"))
        }
    }
}

/// Body of `POST /api/v1/auth/refresh`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RefreshBody {
    /// The refresh token (each works once).
    pub refresh_token: String,
}

/// Revokes the session `chain` of `account` (idempotent), retrying on a concurrent append.
async fn revoke_session(state: &AppState, name: &str, chain: &str, reason: &str) -> Result<(), Problem> {
    for _ in 0..5 {
        let a = accounts::load(state.store.as_ref(), name)
            .await?
            .ok_or_else(|| Problem::unauthenticated("the account no longer exists"))?;
        if a.revoked_chains.iter().any(|c| c == chain) {
            return Ok(());
        }
        let ev = AccountEvent::SessionRevoked { chain: chain.to_string(), reason: reason.to_string() };
        match accounts::append(state.store.as_ref(), &a, ev).await {
            Ok(()) => {
                state.accounts.forget(name);
                return Ok(());
            }
            Err(StoreError::Conflict { .. }) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Err(Problem::conflict("conflict", "Conflict", "the account kept changing; try again"))
}

/// Exchanges a refresh token (once) for a new pair in the same session. A refresh
/// token presented again after it was used revokes its whole session (every access and refresh
/// token of it, whoever holds them: the thief who refreshed first too), and is refused with 401.
#[utoipa::path(tag = "accounts", request_body = RefreshBody,
    responses((status = 200, body = TokenPair),
        (status = 401, description = "not a valid refresh token, its session revoked, or used before (which revokes its session)", body = Problem)))]
#[post("/api/v1/auth/refresh")]
pub async fn refresh(state: Data, body: web::Json<RefreshBody>) -> Result<HttpResponse, Problem> {
    let claims = state.keys.verify(&body.refresh_token)?;
    if claims.kind != TokenKind::Refresh {
        return Err(Problem::unauthenticated("that is not a refresh token"));
    }
    let a = accounts::load(state.store.as_ref(), &claims.sub)
        .await?
        .ok_or_else(|| Problem::unauthenticated("the account no longer exists"))?;
    // Tokens from before sessions are each their own session.
    let chain = claims.chain.clone().unwrap_or_else(|| claims.jti.clone());
    if a.revoked_chains.contains(&chain) {
        return Err(Problem::unauthenticated("this session was logged out or revoked; log in again"));
    }
    if a.used_refresh.contains(&claims.jti) {
        revoke_session(&state, &a.name, &chain, "refresh_reuse").await?;
        tracing::warn!(account = %a.name, "a used refresh token was presented again; its session is revoked");
        return Err(Problem::unauthenticated(
            "this refresh token was already used; its whole session is now revoked: log in again",
        ));
    }
    let used = AccountEvent::RefreshUsed { jti: claims.jti, chain: Some(chain.clone()) };
    match accounts::append(state.store.as_ref(), &a, used).await {
        Ok(()) => {
            state.accounts.forget(&a.name);
            Ok(HttpResponse::Ok().json(pair(&state, &a.name, a.role.unwrap_or(Role::Player), &chain)))
        }
        Err(StoreError::Conflict { .. }) => {
            Err(Problem::conflict("conflict", "Conflict", "the account changed; try again"))
        }
        Err(e) => Err(e.into()),
    }
}

/// Body of `POST /api/v1/auth/logout` (optional).
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LogoutBody {
    /// A refresh token of the session to end; without it, the session of the bearer token.
    #[serde(default)]
    pub refresh_token: Option<String>,
}

/// Logs out: revokes the session (refresh chain) of the body's refresh token, or else
/// of the bearer access token. Every access and refresh token of that session then gets 401
/// (within [`crate::accounts::ACCOUNT_CACHE_MS`] on other processes). Idempotent: 204.
#[utoipa::path(tag = "accounts", request_body(content = Option<LogoutBody>, content_type = "application/json"),
    security(("bearer" = [])),
    responses((status = 204, description = "the session is revoked"),
        (status = 400, description = "a token from before sessions (it simply expires)", body = Problem),
        (status = 401, body = Problem)))]
#[post("/api/v1/auth/logout")]
pub async fn logout(state: Data, req: HttpRequest, body: web::Bytes) -> Result<HttpResponse, Problem> {
    let body: LogoutBody = crate::problem::optional_json(&body)?;
    let (name, chain) = match &body.refresh_token {
        Some(t) => {
            let c = state.keys.verify(t)?;
            if c.kind != TokenKind::Refresh {
                return Err(Problem::unauthenticated("refresh_token must be a refresh token"));
            }
            (c.sub, c.chain.unwrap_or(c.jti))
        }
        None => {
            let caller = crate::auth::authenticate(&state, &req).await?;
            let chain = caller.chain.ok_or_else(|| {
                Problem::invalid("this token has no session to end (a bot token, or one from before sessions)")
            })?;
            (caller.name, chain)
        }
    };
    revoke_session(&state, &name, &chain, "logout").await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Body of `POST /api/v1/tokens`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"label": "my bot", "scopes": ["play", "read"], "days": 7}))]
pub struct BotTokenBody {
    /// A label for people.
    pub label: String,
    /// `play` (take seats, answer) and/or `read` (views, events).
    #[serde(default = "default_scopes")]
    #[schema(min_items = 1, inline, value_type = Vec<Scope>)]
    pub scopes: Vec<String>,
    /// Lifetime in days, 1-90 (default 7).
    #[serde(default = "default_days")]
    #[schema(minimum = 1, maximum = 90)]
    pub days: i64,
}

/// A token scope (for the document: `BotTokenBody::scopes` holds these names).
#[derive(ToSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum Scope {
    /// Take seats, answer, concede.
    Play,
    /// Views and events.
    Read,
}

fn default_scopes() -> Vec<String> {
    vec!["play".into(), "read".into()]
}
fn default_days() -> i64 {
    7
}

/// A bot token.
#[derive(Debug, Serialize, ToSchema)]
pub struct BotToken {
    /// Its id (for revocation).
    pub id: String,
    /// The bearer token.
    pub token: String,
    /// Scopes.
    pub scopes: Vec<String>,
    /// Expiry (RFC 3339).
    pub expires_at: String,
}

/// Issues a long-lived, scoped, revocable token for a program (a gathering lasts hours).
#[utoipa::path(tag = "accounts", request_body = BotTokenBody, security(("bearer" = [])),
    responses((status = 201, body = BotToken), (status = 400, body = Problem), (status = 401, body = Problem)))]
#[post("/api/v1/tokens")]
pub async fn issue_bot_token(
    state: Data,
    caller: Caller,
    body: web::Json<BotTokenBody>,
) -> Result<HttpResponse, Problem> {
    if !caller.scopes.is_empty() {
        return Err(Problem::forbidden("a bot token cannot issue tokens; log in"));
    }
    if !(1..=90).contains(&body.days) {
        return Err(Problem::invalid("days must be 1 to 90"));
    }
    if body.scopes.is_empty() || body.scopes.iter().any(|s| s != "play" && s != "read") {
        return Err(Problem::invalid("scopes are 'play' and/or 'read'"));
    }
    let a = accounts::load(state.store.as_ref(), &caller.name)
        .await?
        .ok_or_else(|| Problem::unauthenticated("no account"))?;
    let (token, claims) = state.keys.issue(
        &a.name,
        a.role.unwrap_or(Role::Bot),
        TokenKind::Bot,
        body.days * 86400,
        body.scopes.clone(),
        None,
    );
    let expires_at = Utc::now() + Duration::days(body.days);
    let ev = AccountEvent::BotTokenIssued {
        jti: claims.jti.clone(),
        label: body.label.clone(),
        scopes: body.scopes.clone(),
        expires_at,
    };
    accounts::append(state.store.as_ref(), &a, ev).await.map_err(|e| match e {
        StoreError::Conflict { .. } => Problem::conflict("conflict", "Conflict", "the account changed; try again"),
        e => e.into(),
    })?;
    state.accounts.forget(&a.name);
    Ok(HttpResponse::Created().json(BotToken {
        id: claims.jti,
        token,
        scopes: body.scopes.clone(),
        expires_at: expires_at.to_rfc3339(),
    }))
}

/// Revokes one of the caller's bot tokens.
#[utoipa::path(tag = "accounts", security(("bearer" = [])), params(("id" = String, Path, description = "token id")),
    responses((status = 204), (status = 404, body = Problem)))]
#[delete("/api/v1/tokens/{id}")]
pub async fn revoke_bot_token(state: Data, caller: Caller, id: web::Path<String>) -> Result<HttpResponse, Problem> {
    if !caller.scopes.is_empty() {
        return Err(Problem::forbidden("a bot token cannot revoke tokens; log in"));
    }
    let a = accounts::load(state.store.as_ref(), &caller.name)
        .await?
        .ok_or_else(|| Problem::unauthenticated("no account"))?;
    if !a.bot_tokens.iter().any(|t| t.jti == *id) {
        return Err(Problem::not_found("no such token"));
    }
    accounts::append(state.store.as_ref(), &a, AccountEvent::BotTokenRevoked { jti: id.into_inner() }).await.map_err(
        |e| match e {
            StoreError::Conflict { .. } => Problem::conflict("conflict", "Conflict", "the account changed; try again"),
            e => e.into(),
        },
    )?;
    state.accounts.forget(&a.name);
    Ok(HttpResponse::NoContent().finish())
}

// ---------- tables ----------

/// Body of `POST /api/v1/tables`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"players": 2, "practice": true}))]
pub struct CreateTableBody {
    /// Seats, 2-64.
    #[schema(minimum = 2, maximum = 64)]
    pub players: u8,
    /// Engine settings (R10.11) other than `players`; defaults when absent or `null`.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub settings: Option<serde_json::Value>,
    /// Practice table (never counts in standings). Tables created here are always practice
    /// tables for now; gatherings create the others.
    #[serde(default = "yes")]
    pub practice: bool,
    /// A practice position to start from (R10.13), e.g. `"7H 8D KS / 2C | 5H 5D 9S"`.
    #[serde(default)]
    pub position: Option<String>,
    /// R10.7.2: prompt clocks (default 60 s decisions, 15 s reactions).
    #[serde(default)]
    pub clocks: Option<crate::clocks::Clocks>,
    /// R10.6.5: minimum open time of reaction windows, 0-10,000 ms. When absent, the start
    /// decides it: 1,500 ms when any seat is held by something other than a built-in bot or an
    /// account with the `bot` role, else 0. A table with a minimum window holds every reaction
    /// window and prompt until its deadline (docs/rules-decisions.md).
    #[serde(default)]
    #[schema(maximum = 10000)]
    pub reaction_window_min_ms: Option<u32>,
    /// Pause before a built-in bot answers, 0-10,000 ms (default 0).
    #[serde(default)]
    #[schema(maximum = 10000)]
    pub bot_delay_ms: Option<u32>,
    /// R10.7.4: consecutive Ritual time-outs that count as a concession, 0-20 (default 3; 0:
    /// never).
    #[serde(default)]
    #[schema(maximum = 20)]
    pub abandonment: Option<u8>,
}

fn yes() -> bool {
    true
}

/// A table and the caller's view of its game.
#[derive(Debug, Serialize, ToSchema)]
pub struct TableResponse {
    /// The table.
    pub table: TableInfo,
    /// The caller's view of the game (absent before the start).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub view: Option<View>,
    /// R10.7: the open decision point's clock, when the caller may see it (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clock: Option<crate::clocks::ClockView>,
}

/// The clock of a table as `viewer` may see it, from the game folded up to its horizon `game`
/// and the clock mark as of then (`mark`, [`spectate::mark_at`]).
async fn clock_for(
    state: &AppState,
    snap: &crate::game::Snapshot,
    game: &crate::game::State,
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
    crate::clocks::view_for::<Served>(game, mark, seat, paused, &state.driver.with_outages(&pauses))
}

/// R10.8: the table as `caller` may see it now: the table (its practice position shown only
/// as [`flicker_platform::tables::Snapshot::info_for`] allows), the game folded up to the caller's horizon (none
/// before it reaches the first event) and the clock as it stood there.
async fn table_response(
    state: &AppState,
    snap: &crate::game::Snapshot,
    caller: Option<&Caller>,
    seat: Option<u8>,
    commentary: bool,
) -> Result<TableResponse, Problem> {
    let sight = spectate::sight(state, snap, caller, seat, commentary).await?;
    let table = snap.info_for(caller.map(|c| c.name.as_str()));
    if sight.visible == 0 {
        return Ok(TableResponse { table, view: None, clock: None });
    }
    let game = spectate::state_at(snap, sight.visible);
    let view = Served::view(&game, sight.viewer);
    let clock = clock_for(state, snap, &game, spectate::mark_at(snap, sight.visible), Some(sight.viewer)).await;
    Ok(TableResponse { table, view: Some(view), clock })
}

fn settings_from(players: u8, extra: &Option<serde_json::Value>) -> Result<Settings, Problem> {
    let mut v = extra.clone().unwrap_or_else(|| serde_json::json!({}));
    let obj = v.as_object_mut().ok_or_else(|| Problem::invalid("settings must be an object"))?;
    if obj.contains_key("players") {
        return Err(Problem::invalid("give the seat count as 'players' at the top level"));
    }
    if obj.contains_key("hold_windows") {
        return Err(Problem::invalid("hold_windows is set by the server (R10.6.5), not by clients"));
    }
    obj.insert("players".into(), players.into());
    let s: Settings = serde_json::from_value(v).map_err(|e| {
        if e.to_string().contains("unknown field") {
            Problem::unknown_field(e.to_string())
        } else {
            Problem::invalid(e.to_string())
        }
    })?;
    Served::validate(&s).map_err(TableError::rule)?;
    Ok(s)
}

/// Creates a table: a single game, for practice or testing.
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
    let settings = settings_from(body.players, &body.settings)?;
    let table_id = uuid::Uuid::new_v4().to_string();
    let request = tables::PracticeTable {
        creator: caller.name.clone(),
        settings,
        position: body.position.clone(),
        clocks: body.clocks,
        reaction_window_min_ms: body.reaction_window_min_ms,
        bot_delay_ms: body.bot_delay_ms,
        abandonment: body.abandonment,
    };
    let ev = tables::create_practice::<Served, _>(table_id.clone(), request, &mut rand::rng())?;
    let meta = Metadata { actor: Some(caller.name.clone()), ..Default::default() };
    state
        .store
        .append(&tables::stream_of(&table_id), crate::store::ExpectedVersion::NO_STREAM, vec![table_event(&ev, meta)])
        .await?;
    let snap = state.tables.load(state.store.as_ref(), &table_id).await?;
    Ok(HttpResponse::Created().json(TableResponse {
        table: snap.info_for(Some(&caller.name)),
        view: None,
        clock: None,
    }))
}

/// Query of table reads: which of your seats to look from.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct SeatQuery {
    /// One of your seats (when you hold several; default: your first).
    pub seat: Option<u8>,
    /// The organiser's all-seeing commentary view (when the gathering enables it; delayed).
    #[serde(default)]
    pub commentary: bool,
}

/// The caller with the `read` scope, if any (anonymous callers are spectators).
fn reader(caller: &MaybeCaller) -> Result<Option<&Caller>, Problem> {
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
    let snap = state.tables.load(state.store.as_ref(), &id).await?;
    Ok(etagged(&table_response(&state, &snap, caller, q.seat, q.commentary).await?))
}

/// A response with an ETag computed from its content, so it counts nothing hidden.
fn etagged<T: Serialize>(body: &T) -> HttpResponse {
    use std::hash::{Hash, Hasher};
    let json = serde_json::to_vec(body).expect("json");
    let mut h = std::collections::hash_map::DefaultHasher::new();
    json.hash(&mut h);
    HttpResponse::Ok()
        .insert_header((actix_web::http::header::ETAG, format!("\"{:016x}\"", h.finish())))
        .content_type("application/json")
        .body(json)
}

/// Body of `POST /api/v1/tables/{id}/seats`.
#[derive(Debug, Deserialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct SeatBody {
    /// The seat wanted (default: the first free one).
    #[serde(default)]
    pub seat: Option<u8>,
    /// Seat a built-in bot with this policy instead of yourself (the table's creator only).
    #[serde(default)]
    pub bot: Option<crate::bots::BotKind>,
}

/// The seat taken.
#[derive(Debug, Serialize, ToSchema)]
pub struct SeatTakenResponse {
    /// The seat.
    pub seat: u8,
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
    let (want, bot) = (body.seat, body.bot);
    let mut taken = None;
    state
        .tables
        .command(state.store.as_ref(), &id, &caller.name, None, |snap| {
            let (seat, ev) = tables::take_seat(snap, &caller.name, want, bot)?;
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
    let current = state.tables.load(state.store.as_ref(), &id).await?;
    let bot_accounts = bot_accounts(&state, &current).await?;
    let (snap, _) = state
        .tables
        .command(state.store.as_ref(), &id, &caller.name, None, |snap| {
            let created = tables::start(snap, &caller.name, &bot_accounts, &mut rand::rng())?;
            Ok::<_, TableError>(created.iter().map(|e| tables::engine_event::<Served>(e, Metadata::default())).collect())
        })
        .await?;
    Ok(HttpResponse::Ok().json(table_response(&state, &snap, Some(&caller), None, false).await?))
}

/// The seat holders of `snap` that are accounts with the `bot` role.
async fn bot_accounts(state: &AppState, snap: &crate::game::Snapshot) -> Result<Vec<String>, Problem> {
    let mut out = Vec::new();
    for (i, name) in snap.info.seats.iter().enumerate() {
        if let Some(name) = name
            && snap.info.bots.get(i).is_none_or(Option::is_none)
            && accounts::load(state.store.as_ref(), name).await?.is_some_and(|a| a.role == Some(Role::Bot))
        {
            out.push(name.clone());
        }
    }
    Ok(out)
}

/// Your open prompt.
#[derive(Debug, Serialize, ToSchema)]
pub struct PromptResponse {
    /// The seat looked from.
    pub seat: Option<u8>,
    /// The open prompt of that seat, if any, with its legal answers and default.
    pub prompt: Option<Prompt>,
    /// R10.4.2, R10.7: its clock (the deadline after which the default applies).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clock: Option<crate::clocks::ClockView>,
}

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
    let snap = state.tables.load(state.store.as_ref(), &id).await?;
    let seat = match viewer_for(&snap, Some(&caller.name), q.seat)? {
        Viewer::Seat { seat } => Some(seat),
        _ => None,
    };
    let prompt = seat.and_then(|s| Served::prompt_for(&snap.state, s));
    let clock = match (&prompt, seat) {
        (Some(_), Some(s)) => {
            let viewer = Some(Viewer::Seat { seat: s });
            clock_for(&state, &snap, &snap.state, snap.clock.as_ref(), viewer).await
        }
        _ => None,
    };
    Ok(etagged(&PromptResponse { seat, prompt, clock }))
}

/// Body of `POST /api/v1/tables/{id}/answers`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"prompt_id": 123456789, "answer": {"answer": "end_ritual"}}))]
pub struct AnswerBody {
    /// Your seat (when you hold several).
    #[serde(default)]
    pub seat: Option<u8>,
    /// The id of the prompt answered (a stale id gets 409 `stale-prompt`).
    #[schema(value_type = u64)]
    pub prompt_id: PromptId,
    /// The answer.
    pub answer: Answer,
}

fn my_seat(snap: &crate::game::Snapshot, caller: &Caller, seat: Option<u8>) -> Result<u8, Problem> {
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
fn request_hash(body: &AnswerBody) -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    serde_json::to_string(&(body.seat, body.prompt_id, &body.answer)).expect("json").hash(&mut h);
    format!("{:016x}", h.finish())
}

fn idempotency_key(req: &HttpRequest) -> Result<String, Problem> {
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
    body: web::Json<AnswerBody>,
) -> Result<HttpResponse, Problem> {
    caller.require("play")?;
    let key = idempotency_key(&req)?;
    let body = body.into_inner();
    // The seat is checked before anything else, so an answer for a seat one does not hold
    // learns nothing (not even whether a key was used).
    let current = state.tables.load(state.store.as_ref(), &id).await?;
    my_seat(&current, &caller, body.seat)?;
    gathering_allows_play(&state, &current).await?;
    let hash = request_hash(&body);
    let mut seat_used = None;
    let (snap, replayed) = state
        .tables
        .command_from(Some(current), state.store.as_ref(), &id, &caller.name, Some((&key, &hash)), |snap| {
            let seat = my_seat(snap, &caller, body.seat)?;
            seat_used = Some(seat);
            let cmd = Served::seat_answer(seat, body.prompt_id, body.answer.clone());
            Ok::<_, Problem>(tables::decide(snap, &cmd, &mut rand::rng())?)
        })
        .await?;
    let seat = match seat_used {
        Some(s) => Some(s),
        None => my_seat(&snap, &caller, body.seat).ok(),
    };
    let mut resp = etagged(&table_response(&state, &snap, Some(&caller), seat, false).await?);
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
async fn gathering_allows_play(state: &AppState, snap: &crate::game::Snapshot) -> Result<(), Problem> {
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
    let (snap, _) = state
        .tables
        .command(state.store.as_ref(), &id, &caller.name, None, |snap| {
            let seat = my_seat(snap, &caller, want)?;
            Ok::<_, Problem>(tables::decide(snap, &Served::concede_command(seat), &mut rand::rng())?)
        })
        .await?;
    Ok(HttpResponse::Ok().json(table_response(&state, &snap, Some(&caller), want, false).await?))
}

/// Query of `GET /api/v1/tables/{id}/events`.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct EventsQuery {
    /// One of your seats (when you hold several).
    pub seat: Option<u8>,
    /// Opaque cursor from a previous page (`next`); absent: from the start.
    pub after: Option<String>,
    /// Page size, 1-500 (default 100).
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<usize>,
    /// The organiser's all-seeing commentary view (when the gathering enables it; delayed).
    #[serde(default)]
    pub commentary: bool,
}

/// One event of your sequence.
#[derive(Debug, Serialize, ToSchema)]
pub struct EventItem {
    /// Opaque cursor of this event in your sequence.
    pub cursor: String,
    /// The event as you may see it.
    pub event: ViewEvent,
}

/// A page of your events.
#[derive(Debug, Serialize, ToSchema)]
pub struct EventsPage {
    /// The events, oldest first.
    pub events: Vec<EventItem>,
    /// Cursor to pass as `after` for the next page (the last event's, or the one given).
    pub next: Option<String>,
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
    let snap = state.tables.load(state.store.as_ref(), &id).await?;
    let sight = spectate::sight(&state, &snap, caller, q.seat, q.commentary).await?;
    let viewer = sight.viewer;
    let scope = format!("{id}:{viewer:?}");
    let after = q.after.as_deref().map(|c| state.keys.read_cursor(&scope, c)).transpose()?.unwrap_or(0);
    let limit = q.limit.unwrap_or(100);
    if !(1..=500).contains(&limit) {
        return Err(Problem::invalid("limit is 1 to 500"));
    }
    let all = spectate::sequence(&snap, viewer, sight.visible);
    let events: Vec<EventItem> = all
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

/// Query of `GET /api/v1/tables/{id}/replay`.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct ReplayQuery {
    /// Step number in your sequence, 1 to `total` (default: the latest).
    #[param(minimum = 1)]
    pub at: Option<usize>,
    /// One of your seats (when you hold several).
    pub seat: Option<u8>,
    /// The organiser's commentary view (when the gathering enables it; delayed).
    #[serde(default)]
    pub commentary: bool,
}

/// One step of a replay.
#[derive(Debug, Serialize, ToSchema)]
pub struct ReplayStep {
    /// This step's number in your sequence (1-based).
    pub at: usize,
    /// Steps in your sequence so far (all of them once the game has ended).
    pub total: usize,
    /// The event of this step, as you may see it.
    pub event: ViewEvent,
    /// The game right after it, as you may see it.
    pub view: View,
    /// Step numbers of the eliminations (to jump to them).
    pub eliminations: Vec<usize>,
}

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
    let snap = state.tables.load(state.store.as_ref(), &id).await?;
    if snap.events.is_empty() {
        return Err(Problem::conflict("not-started", "Not started", "the table's game has not started"));
    }
    let sight = spectate::sight(&state, &snap, caller, q.seat, q.commentary).await?;
    let seq = spectate::sequence(&snap, sight.viewer, sight.visible);
    let total = seq.len();
    let at = q.at.unwrap_or(total);
    if !(1..=total).contains(&at) {
        return Err(Problem::invalid(format!("at is 1 to {total}")));
    }
    let (index, event) = seq[at - 1].clone();
    let eliminations = seq
        .iter()
        .enumerate()
        .filter(|(_, (i, _))| Served::event_facts(None, &snap.events[*i]).eliminates)
        .map(|(n, _)| n + 1)
        .collect();
    let view = Served::view(&spectate::state_at(&snap, index + 1), sight.viewer);
    Ok(etagged(&ReplayStep { at, total, event, view, eliminations }))
}

/// One step of a whole replay (`ReplaySteps`): the event and the game right after it.
#[derive(Debug, Serialize, ToSchema)]
pub struct ReplayFrame {
    /// The event of this step, as you may see it.
    pub event: ViewEvent,
    /// The game right after it, as you may see it.
    pub view: View,
}

/// Every step of a replay at once (what `GET /api/v1/tables/{id}/replay?at=N` answers one at a
/// time), so a viewer fetches a game once and scrubs it locally.
#[derive(Debug, Serialize, ToSchema)]
pub struct ReplaySteps {
    /// Steps in your sequence so far (all of them once the game has ended): `steps.len()`.
    pub total: usize,
    /// Step numbers (1-based) of the eliminations (to jump to them).
    pub eliminations: Vec<usize>,
    /// Step `n` is `steps[n - 1]`.
    pub steps: Vec<ReplayFrame>,
}

/// Query of `GET /api/v1/tables/{id}/replay/steps`.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct ReplayStepsQuery {
    /// One of your seats (when you hold several).
    pub seat: Option<u8>,
    /// The organiser's commentary view (when the gathering enables it; delayed).
    #[serde(default)]
    pub commentary: bool,
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
    let snap = state.tables.load(state.store.as_ref(), &id).await?;
    if snap.events.is_empty() {
        return Err(Problem::conflict("not-started", "Not started", "the table's game has not started"));
    }
    let sight = spectate::sight(&state, &snap, caller, q.seat, q.commentary).await?;
    let seq = spectate::sequence(&snap, sight.viewer, sight.visible);
    let eliminations = seq
        .iter()
        .enumerate()
        .filter(|(_, (i, _))| Served::event_facts(None, &snap.events[*i]).eliminates)
        .map(|(n, _)| n + 1)
        .collect();
    // One fold over the events: the view after each step's event.
    let mut game = crate::game::State::default();
    let mut applied = 0;
    let mut steps = Vec::with_capacity(seq.len());
    for (index, event) in seq {
        while applied <= index {
            Served::apply(&mut game, &snap.events[applied]);
            applied += 1;
        }
        steps.push(ReplayFrame { event, view: Served::view(&game, sight.viewer) });
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
    let snap = state.tables.load(state.store.as_ref(), &id).await?;
    if !snap.finished() {
        return Err(Problem::conflict(
            "in-play",
            "Game in play",
            "the replay is available once the game has ended (R10.8)",
        ));
    }
    let ruleset = crate::chain::ruleset_id(Served::ruleset(&snap.state).unwrap_or_else(Served::current_ruleset));
    let stream = tables::stream_of(&id);
    let stored = state.store.read_stream(&stream, crate::store::StreamVersion::new(1)).await?;
    let chain = crate::chain::rechain(&stream, &stored).map_err(|m| {
        tracing::error!(stream = %stream, error = %m, "the stored hash chain does not recompute; export refused");
        Problem::internal(format!("the stored events do not match their hashes ({m}); the export is refused"))
    })?;
    let mut buf = Vec::new();
    crate::chain::write_signed(&mut buf, &stream, &ruleset, &chain, &state.signing_key)
        .map_err(|e| Problem::internal(e.to_string()))?;
    Ok(HttpResponse::Ok().content_type("application/jsonl").body(buf))
}

/// The public keys that sign replay exports (rotated-out keys too).
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"algorithm": "ed25519", "public_key": "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
    "keys": [{"public_key": "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "current": true, "created_at": "2026-12-01T20:00:00Z"}]}))]
pub struct ReplayKey {
    /// Always `ed25519`.
    pub algorithm: String,
    /// The current Ed25519 public key (new exports are signed by it), 32 bytes as 64 lowercase
    /// hex digits: pass it to `flicker verify FILE --public-key HEX`.
    pub public_key: String,
    /// Every key this server has signed with, the current one first, then rotated-out ones
    /// (newest first): a replay signed before a rotation verifies against its key here.
    pub keys: Vec<PublishedReplayKey>,
}

/// One replay-signing public key.
#[derive(Debug, Serialize, ToSchema)]
pub struct PublishedReplayKey {
    /// 64 lowercase hex digits.
    pub public_key: String,
    /// Whether new exports are signed by it.
    pub current: bool,
    /// When the key was made (RFC 3339), for keys kept in the store; absent for keys given in
    /// the environment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
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

// ---------- operations ----------

/// Liveness.
#[utoipa::path(tag = "operations", responses((status = 200, description = "the process is up")))]
#[get("/healthz")]
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok().json(serde_json::json!({"status": "ok"}))
}

/// Readiness: the event store answers and accepts writes (not while it is full,
/// [`crate::store::EventStore::writable`]), and the table driver drives every live table (it
/// has caught up with the log since the start and no store outage is open). 503
/// `not-ready` with `Retry-After` otherwise.
#[utoipa::path(tag = "operations", responses((status = 200, description = "ready"), (status = 503, body = Problem)))]
#[get("/readyz")]
pub async fn readyz(state: Data) -> HttpResponse {
    let not_ready = |why: String| {
        let p = Problem::new(StatusCode::SERVICE_UNAVAILABLE, "not-ready", "Not ready", why)
            .retry_after(crate::problem::STORAGE_FULL_RETRY_SECS);
        actix_web::ResponseError::error_response(&p)
    };
    if !state.driver.ready() {
        return not_ready("the table driver is catching up with the event log or the event store is failing".into());
    }
    let store = async {
        state.store.ping().await?;
        state.store.writable().await
    };
    let probe = tokio::time::timeout(std::time::Duration::from_secs(2), store).await;
    match probe.unwrap_or_else(|_| Err(crate::store::StoreError::Other("no answer within 2 s".into()))) {
        Ok(()) if !state.driver.ready() => not_ready("the table driver is catching up with the event log".into()),
        Ok(()) => HttpResponse::Ok().json(serde_json::json!({"status": "ready", "store": state.store.kind()})),
        Err(e) => not_ready(format!("event store: {e}")),
    }
}

/// Prometheus metrics (operators only: bearer `FLICKER_METRICS_TOKEN`, at least 16 bytes,
/// compared in constant time).
#[utoipa::path(tag = "operations", responses((status = 200, content_type = "text/plain", body = String), (status = 401, body = Problem), (status = 403, body = Problem)))]
#[get("/metrics")]
pub async fn metrics(state: Data, req: HttpRequest) -> Result<HttpResponse, Problem> {
    // Request counts and timings could show when hidden answers arrive (R10.6.4), so metrics
    // are for operators only: `Authorization: Bearer <FLICKER_METRICS_TOKEN>`.
    let Some(token) = &state.metrics_token else {
        return Err(Problem::forbidden("metrics are disabled: set FLICKER_METRICS_TOKEN on the server"));
    };
    let given = req
        .headers()
        .get(actix_web::http::header::AUTHORIZATION)
        .and_then(|v| v.as_bytes().strip_prefix(b"Bearer "))
        .unwrap_or_default();
    if !same_secret(given, token.as_bytes()) {
        return Err(Problem::unauthenticated("metrics need 'Authorization: Bearer <FLICKER_METRICS_TOKEN>'"));
    }
    Ok(HttpResponse::Ok().content_type("text/plain; version=0.0.4").body(state.metrics.render()))
}
