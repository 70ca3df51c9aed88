//! Authentication: JWT bearer tokens (HS256, jsonwebtoken). Access tokens live 15 minutes and
//! come with a single-use refresh token (30 days); bot tokens are long-lived, scoped and
//! revocable. Every token is checked against its live account on each request (through
//! a cache of [`crate::accounts::ACCOUNT_CACHE_MS`]): the account must exist with the token's
//! role, the token's session (its refresh chain) must not be revoked, and a bot token must be
//! issued and not revoked. Tokens name the secret that signed them (`kid`), so that tokens signed
//! with a rotated-out secret verify until they expire.

use crate::accounts::Role;
use crate::problem::Problem;
use crate::server::AppState;
use actix_web::{FromRequest, HttpRequest, dev::Payload, web};
use chrono::Utc;
use jsonwebtoken::{DecodingKey, EncodingKey, Header, Validation, decode, encode};
use serde::{Deserialize, Serialize};
use std::future::Future;
use std::pin::Pin;

/// Access-token lifetime in seconds.
pub const ACCESS_TTL_SECS: i64 = 15 * 60;
/// Refresh-token lifetime in seconds.
pub const REFRESH_TTL_SECS: i64 = 30 * 24 * 3600;
/// The longest lifetime of any token (bot tokens, 90 days), seconds: a rotated-out JWT secret
/// verifies tokens this long after its replacement.
pub const BOT_TTL_MAX_SECS: i64 = 90 * 24 * 3600;

/// Token kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenKind {
    /// Short-lived bearer token.
    Access,
    /// Single-use token to get a new pair.
    Refresh,
    /// Long-lived, scoped, revocable bearer token for programs.
    Bot,
}

/// JWT claims.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Claims {
    /// Account name.
    pub sub: String,
    /// Role.
    pub role: Role,
    /// Kind.
    pub kind: TokenKind,
    /// Token id.
    pub jti: String,
    /// Expiry (seconds since the epoch).
    pub exp: i64,
    /// Issued at.
    pub iat: i64,
    /// Scopes (bot tokens): `play`, `read`.
    #[serde(default)]
    pub scopes: Vec<String>,
    /// The session (refresh chain) of an access or refresh token: set at login and
    /// kept by every refresh; logging out, or a refresh token used twice, revokes it. Absent on
    /// bot tokens and on tokens issued before sessions existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chain: Option<String>,
}

#[derive(Debug, Serialize, Deserialize)]
struct CursorClaims {
    s: String,
    n: usize,
}

/// The signing keys: the current secret signs; it and the older secrets still in use verify.
pub struct Keys {
    kid: String,
    enc: EncodingKey,
    /// (kid, key), the current one first.
    dec: Vec<(String, DecodingKey)>,
}

/// A secret's key id (`kid` in token headers): 16 hex digits of a SHA-256 over it, which names
/// the secret without revealing it.
fn kid_of(secret: &[u8]) -> String {
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    h.update(b"flicker jwt kid\0");
    h.update(secret);
    hex::encode(&h.finalize()[..8])
}

/// Token validation: HS256, `exp` required, and no leeway. jsonwebtoken's default allows 60 s
/// past `exp`; this server issues and checks its tokens on one clock, so none is needed, and an
/// expired (or logged-out) token must stop working when it says.
fn validation() -> Validation {
    Validation { leeway: 0, ..Validation::default() }
}

impl Keys {
    /// Keys from the current secret (at least 32 bytes) alone.
    #[cfg(test)]
    pub fn from_secret(secret: &[u8]) -> Self {
        Keys::new(secret, &[])
    }

    /// Keys that sign with `current` and verify tokens signed by it or by any of `previous`
    /// (rotated-out secrets whose tokens may not have expired yet).
    pub fn new(current: &[u8], previous: &[Vec<u8>]) -> Self {
        let dec = std::iter::once(current)
            .chain(previous.iter().map(Vec::as_slice))
            .map(|s| (kid_of(s), DecodingKey::from_secret(s).expect("an HMAC key of any length")))
            .collect();
        Keys { kid: kid_of(current), enc: EncodingKey::from_secret(current).expect("an HMAC key of any length"), dec }
    }

    fn header(&self) -> Header {
        Header { kid: Some(self.kid.clone()), ..Header::default() }
    }

    /// The keys that may have signed `token`: the one its `kid` names, or (tokens from before
    /// key ids) every key.
    fn candidates(&self, token: &str) -> Vec<&DecodingKey> {
        match jsonwebtoken::decode_header(token).ok().and_then(|h| h.kid) {
            Some(kid) => self.dec.iter().filter(|(k, _)| *k == kid).map(|(_, d)| d).collect(),
            None => self.dec.iter().map(|(_, d)| d).collect(),
        }
    }

    /// Signs claims.
    pub fn sign(&self, claims: &Claims) -> String {
        encode(&self.header(), claims, &self.enc).expect("HS256 signing")
    }

    /// Verifies a token's signature and expiry (no leeway) and returns its claims; 401 when it
    /// is malformed, expired or not signed by a key of this server. Whether its account and
    /// session are live is [`authenticate`]'s to check.
    pub fn verify(&self, token: &str) -> Result<Claims, Problem> {
        let mut last = None;
        for key in self.candidates(token) {
            match decode::<Claims>(token, key, &validation()) {
                Ok(d) => return Ok(d.claims),
                Err(e) => last = Some(e),
            }
        }
        let why = match last.as_ref().map(|e| e.kind()) {
            Some(jsonwebtoken::errors::ErrorKind::ExpiredSignature) => {
                "the token has expired; refresh it or log in again"
            }
            _ => "the token is not valid (malformed, or not signed by this server)",
        };
        Err(Problem::unauthenticated(why))
    }

    /// An opaque, signed cursor: position `n` in the event sequence named by `scope` (table,
    /// viewer and whether the game had ended), so it cannot be forged or used in another sequence.
    pub fn cursor(&self, scope: &str, n: usize) -> String {
        encode(&self.header(), &CursorClaims { s: scope.to_string(), n }, &self.enc).expect("HS256 signing")
    }

    /// Reads a cursor made by [`Keys::cursor`] for the same `scope`.
    pub fn read_cursor(&self, scope: &str, cursor: &str) -> Result<usize, Problem> {
        let mut v = Validation::default();
        v.required_spec_claims.clear();
        v.validate_exp = false;
        let c = self
            .candidates(cursor)
            .into_iter()
            .find_map(|key| decode::<CursorClaims>(cursor, key, &v).ok())
            .ok_or_else(|| Problem::invalid("that cursor is not one this server gave"))?
            .claims;
        if c.s != scope {
            return Err(Problem::new(
                actix_web::http::StatusCode::BAD_REQUEST,
                "cursor-mismatch",
                "Cursor from another sequence",
                "that cursor belongs to another viewer's sequence, or to the sequence before the game ended (when the complete record replaced it); page again from the start",
            ));
        }
        Ok(c.n)
    }

    /// A new token of `kind` for `name`, valid `ttl_secs` seconds, in the session `chain`
    /// (access and refresh tokens).
    pub fn issue(
        &self,
        name: &str,
        role: Role,
        kind: TokenKind,
        ttl_secs: i64,
        scopes: Vec<String>,
        chain: Option<String>,
    ) -> (String, Claims) {
        let now = Utc::now().timestamp();
        let claims = Claims {
            sub: name.to_string(),
            role,
            kind,
            jti: uuid::Uuid::new_v4().to_string(),
            exp: now + ttl_secs,
            iat: now,
            scopes,
            chain,
        };
        (self.sign(&claims), claims)
    }
}

/// The authenticated caller of a request.
#[derive(Debug, Clone)]
pub struct Caller {
    /// Account name.
    pub name: String,
    /// Role.
    pub role: Role,
    /// Scopes of a bot token (empty: all that the role allows).
    pub scopes: Vec<String>,
    /// The token's session (see [`Claims::chain`]).
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

/// Checks a bearer token (access or bot) against its live account: signed by this
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
/// query parameter is taken, for clients such as browsers' `EventSource` that cannot set
/// headers.
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
                Some(t) => {
                    if state.keys.verify(&t)?.kind != TokenKind::Access {
                        return Err(Problem::unauthenticated("access_token must be an access token").into());
                    }
                    Ok(MaybeCaller(Some(check(&state, &t).await?)))
                }
                None => Ok(MaybeCaller(None)),
            }
        })
    }
}
