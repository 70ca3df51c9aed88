//! Authentication: JWT bearer tokens (HS256, jsonwebtoken). Access tokens live 15 minutes and
//! come with a single-use refresh token (30 days); bot tokens are long-lived, scoped and
//! revocable. every token is checked against its live account on each request (through
//! a cache of [`crate::accounts::ACCOUNT_CACHE_MS`]): the account must exist with the token's
//! role, the token's session (its refresh chain) must not be revoked, and a bot token must be
//! issued and not revoked. Tokens name the secret that signed them (`kid`), so that tokens signed
//! with a rotated-out secret verify until they expire.

use crate::accounts::Role;
use crate::problem::Problem;
use crate::state::AppState;
use actix_web::{FromRequest, HttpRequest, dev::Payload, web};
use std::future::Future;
use std::pin::Pin;

pub use crate::tokens::{ACCESS_TTL_SECS, REFRESH_TTL_SECS, TokenKind};

/// The authenticated caller of a request.
#[derive(Debug, Clone)]
pub struct Caller {
    /// Account name.
    pub name: String,
    /// Role.
    pub role: Role,
    /// Scopes of a bot token (empty: all that the role allows).
    pub scopes: Vec<String>,
    /// The token's session (see [`crate::tokens::Claims::chain`]).
    pub chain: Option<String>,
}

impl Caller {
    /// Refuses with 403 unless the token may `scope` (`play` or `read`).
    pub fn require(&self, scope: &str) -> Result<(), Problem> {
        if self.scopes.is_empty() || self.scopes.iter().any(|s| s == scope) {
            Ok(())
        } else {
            Err(Problem::forbidden(format!("this token lacks the '{scope}' scope")))
        }
    }
}

fn bearer(req: &HttpRequest) -> Option<String> {
    let h = req.headers().get(actix_web::http::header::AUTHORIZATION)?.to_str().ok()?;
    h.strip_prefix("Bearer ").map(|t| t.trim().to_string())
}

/// Authenticates a request's bearer token (401 problems when it cannot), see [`check`].
pub async fn authenticate(state: &AppState, req: &HttpRequest) -> Result<Caller, Problem> {
    let token = bearer(req).ok_or_else(|| Problem::unauthenticated("send 'Authorization: Bearer <token>'"))?;
    check(state, &token).await
}

/// checks a bearer token (access or bot) against its live account: signed by this
/// server and not expired; its account exists (a token forged for an unknown name is refused)
/// with the token's role; its session not revoked (logout, refresh-token reuse); a bot token
/// issued, unexpired and not revoked. Accounts are read through a cache of
/// [`accounts::ACCOUNT_CACHE_MS`]. 401 otherwise.
pub async fn check(state: &AppState, token: &str) -> Result<Caller, Problem> {
    let claims = state.keys.verify(token)?;
    if claims.kind == TokenKind::Refresh {
        return Err(Problem::unauthenticated("a refresh token cannot be used as a bearer token"));
    }
    let mut account = state
        .accounts
        .get(state.store.as_ref(), &claims.sub, state.clock.now())
        .await?
        .ok_or_else(|| Problem::unauthenticated("the token's account does not exist"))?;
    // A bot token issued since the account was cached (by another process, too) is read afresh
    // once rather than refused for the cache's lifetime.
    if claims.kind == TokenKind::Bot && !account.bot_tokens.iter().any(|t| t.jti == claims.jti) {
        state.accounts.forget(&claims.sub);
        account = state
            .accounts
            .get(state.store.as_ref(), &claims.sub, state.clock.now())
            .await?
            .ok_or_else(|| Problem::unauthenticated("the token's account does not exist"))?;
    }
    if account.role != Some(claims.role) {
        return Err(Problem::unauthenticated("the token's role is not its account's; log in again"));
    }
    if let Some(chain) = &claims.chain
        && account.revoked_chains.contains(chain)
    {
        return Err(Problem::unauthenticated("this session was logged out or revoked; log in again"));
    }
    if claims.kind == TokenKind::Bot {
        let now = state.clock.now();
        let live = account
            .bot_tokens
            .iter()
            .any(|t| t.jti == claims.jti && !t.revoked && t.expires_at > now && t.scopes == claims.scopes);
        if !live {
            return Err(Problem::unauthenticated("this bot token was revoked"));
        }
    }
    Ok(Caller { name: account.name.clone(), role: claims.role, scopes: claims.scopes, chain: claims.chain })
}

/// Extractor form of [`authenticate`].
impl FromRequest for Caller {
    type Error = actix_web::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self, Self::Error>>>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move {
            let state = req.app_data::<web::Data<AppState>>().expect("app state").clone();
            authenticate(&state, &req).await.map_err(Into::into)
        })
    }
}

/// An optional caller: anonymous when the request carries no token (a spectator, R10.8). A
/// token that is present must be valid. Besides the `Authorization` header, an `access_token`
/// query parameter is taken (an access token or a long-lived bot token, never a refresh token),
/// for clients such as browsers' `EventSource` that cannot set headers.
#[derive(Debug, Clone)]
pub struct MaybeCaller(pub Option<Caller>);

fn query_token(req: &HttpRequest) -> Option<String> {
    req.query_string().split('&').find_map(|kv| kv.strip_prefix("access_token=").map(|t| t.to_string()))
}

impl FromRequest for MaybeCaller {
    type Error = actix_web::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self, Self::Error>>>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move {
            let state = req.app_data::<web::Data<AppState>>().expect("app state").clone();
            if bearer(&req).is_some() {
                return authenticate(&state, &req).await.map(|c| MaybeCaller(Some(c))).map_err(Into::into);
            }
            match query_token(&req) {
                Some(t) => Ok(MaybeCaller(Some(check(&state, &t).await?))),
                None => Ok(MaybeCaller(None)),
            }
        })
    }
}
