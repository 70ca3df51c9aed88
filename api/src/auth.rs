//! Authentication: JWT bearer tokens (HS256, jsonwebtoken). Access tokens live 15 minutes and
//! come with a single-use refresh token (30 days); bot tokens are long-lived, scoped and
//! revocable (checked against the account stream on every use).

use crate::accounts::{self, Role};
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
}

#[derive(Debug, Serialize, Deserialize)]
struct CursorClaims {
    s: String,
    n: usize,
}

/// The signing keys.
pub struct Keys {
    enc: EncodingKey,
    dec: DecodingKey,
}

impl Keys {
    /// Keys from a secret of at least 32 bytes.
    pub fn from_secret(secret: &[u8]) -> Self {
        Keys {
            enc: EncodingKey::from_secret(secret).expect("an HMAC key of any length"),
            dec: DecodingKey::from_secret(secret).expect("an HMAC key of any length"),
        }
    }

    /// Signs claims.
    pub fn sign(&self, claims: &Claims) -> String {
        encode(&Header::default(), claims, &self.enc).expect("HS256 signing")
    }

    /// Verifies a token and returns its claims.
    pub fn verify(&self, token: &str) -> Result<Claims, Problem> {
        decode::<Claims>(token, &self.dec, &Validation::default()).map(|d| d.claims).map_err(|e| {
            let why = match e.kind() {
                jsonwebtoken::errors::ErrorKind::ExpiredSignature => {
                    "the token has expired; refresh it or log in again"
                }
                _ => "the token is not valid (malformed, or not signed by this server)",
            };
            Problem::unauthenticated(why)
        })
    }

    /// An opaque, signed cursor: position `n` in the event sequence named by `scope` (table,
    /// viewer and whether the game had ended), so it cannot be forged or used in another sequence.
    pub fn cursor(&self, scope: &str, n: usize) -> String {
        encode(&Header::default(), &CursorClaims { s: scope.to_string(), n }, &self.enc).expect("HS256 signing")
    }

    /// Reads a cursor made by [`Keys::cursor`] for the same `scope`.
    pub fn read_cursor(&self, scope: &str, cursor: &str) -> Result<usize, Problem> {
        let mut v = Validation::default();
        v.required_spec_claims.clear();
        v.validate_exp = false;
        let c = decode::<CursorClaims>(cursor, &self.dec, &v)
            .map_err(|_| Problem::invalid("that cursor is not one this server gave"))?
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

    /// A new token of `kind` for `name`.
    pub fn issue(
        &self,
        name: &str,
        role: Role,
        kind: TokenKind,
        ttl_secs: i64,
        scopes: Vec<String>,
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

/// Authenticates a request (401 problems when it cannot).
pub async fn authenticate(state: &AppState, req: &HttpRequest) -> Result<Caller, Problem> {
    let token = bearer(req).ok_or_else(|| Problem::unauthenticated("send 'Authorization: Bearer <token>'"))?;
    let claims = state.keys.verify(&token)?;
    match claims.kind {
        TokenKind::Access => {}
        TokenKind::Refresh => return Err(Problem::unauthenticated("a refresh token cannot be used as a bearer token")),
        TokenKind::Bot => {
            let account = accounts::load(state.store.as_ref(), &claims.sub)
                .await?
                .ok_or_else(|| Problem::unauthenticated("the account no longer exists"))?;
            let live = account
                .bot_tokens
                .iter()
                .any(|t| t.jti == claims.jti && !t.revoked && t.expires_at > Utc::now() && t.scopes == claims.scopes);
            if !live {
                return Err(Problem::unauthenticated("this bot token was revoked"));
            }
        }
    }
    Ok(Caller { name: claims.sub, role: claims.role, scopes: claims.scopes })
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
                    let claims = state.keys.verify(&t)?;
                    if claims.kind != TokenKind::Access {
                        return Err(Problem::unauthenticated("access_token must be an access token").into());
                    }
                    Ok(MaybeCaller(Some(Caller { name: claims.sub, role: claims.role, scopes: claims.scopes })))
                }
                None => Ok(MaybeCaller(None)),
            }
        })
    }
}
