//! Accounts, access and refresh tokens, bot tokens (`/api/v1/accounts`, `/api/v1/auth/*`, `/api/v1/tokens`).

use super::*;

/// Compares a presented key with the server's in constant time (`subtle`): the time
/// taken does not depend on where they differ. (Lengths may differ; only the server's key's
/// length, at least 16 bytes, could be learnt.)
pub fn same_secret(given: &[u8], expected: &[u8]) -> bool {
    use subtle::ConstantTimeEq;
    given.ct_eq(expected).into()
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
            return Err(Problem::forbidden(if given.is_empty() {
                "registering an organiser needs the server's organiser key (header X-Organiser-Key; `flicker organiser-key` prints it)"
            } else {
                "that is not this server's organiser key (`flicker organiser-key` prints it)"
            }));
        }
    }
    let a = crate::accounts::register(state.store.as_ref(), &body.name, &body.password, body.role).await?;
    Ok(HttpResponse::Created().json(AccountView { name: a.name, role: body.role }))
}

/// A token pair in the session `chain`.
pub(super) fn pair(state: &AppState, name: &str, role: Role, chain: &str) -> TokenPair {
    let chain = Some(chain.to_string());
    let (access_token, _) = state.keys.issue(name, role, TokenKind::Access, ACCESS_TTL_SECS, vec![], chain.clone());
    let (refresh_token, _) = state.keys.issue(name, role, TokenKind::Refresh, REFRESH_TTL_SECS, vec![], chain);
    TokenPair { access_token, token_type: "Bearer".into(), expires_in: ACCESS_TTL_SECS, refresh_token }
}

/// A 429 `login-throttled` problem with `Retry-After` (whole seconds, at least 1).
pub(super) fn throttled(wait: chrono::Duration) -> HttpResponse {
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
    let a = if crate::accounts::valid_name(&body.name) {
        crate::accounts::load(state.store.as_ref(), &body.name).await?
    } else {
        None
    };
    let hash = a.as_ref().map_or(crate::accounts::dummy_hash(), |a| a.password_hash.as_str());
    state.password_checks.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let matches = crate::accounts::verify_hash(hash, &body.password);
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

/// Revokes the session `chain` of `account` (idempotent), retrying on a concurrent append.
pub(super) async fn revoke_session(state: &AppState, name: &str, chain: &str, reason: &str) -> Result<(), Problem> {
    for _ in 0..5 {
        let a = crate::accounts::load(state.store.as_ref(), name)
            .await?
            .ok_or_else(|| Problem::unauthenticated("the account no longer exists"))?;
        if a.revoked_chains.iter().any(|c| c == chain) {
            return Ok(());
        }
        let ev = AccountEvent::SessionRevoked { chain: chain.to_string(), reason: reason.to_string() };
        match crate::accounts::append(state.store.as_ref(), &a, ev).await {
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
    let a = crate::accounts::load(state.store.as_ref(), &claims.sub)
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
    match crate::accounts::append(state.store.as_ref(), &a, used).await {
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
    let a = crate::accounts::load(state.store.as_ref(), &caller.name)
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
    crate::accounts::append(state.store.as_ref(), &a, ev).await.map_err(|e| match e {
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
    let a = crate::accounts::load(state.store.as_ref(), &caller.name)
        .await?
        .ok_or_else(|| Problem::unauthenticated("no account"))?;
    if !a.bot_tokens.iter().any(|t| t.jti == *id) {
        return Err(Problem::not_found("no such token"));
    }
    crate::accounts::append(state.store.as_ref(), &a, AccountEvent::BotTokenRevoked { jti: id.into_inner() })
        .await
        .map_err(|e| match e {
            StoreError::Conflict { .. } => Problem::conflict("conflict", "Conflict", "the account changed; try again"),
            e => e.into(),
        })?;
    state.accounts.forget(&a.name);
    Ok(HttpResponse::NoContent().finish())
}

/// Registers this group's routes (each route is listed here once; the OpenAPI document is
/// collected from the same calls).
pub(super) fn routes(cfg: &mut ServiceConfig) {
    cfg.service(register)
        .service(login)
        .service(refresh)
        .service(logout)
        .service(issue_bot_token)
        .service(revoke_bot_token);
}
