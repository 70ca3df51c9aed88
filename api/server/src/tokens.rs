//! Bearer tokens: their claims, kinds and lifetimes, and the keys that sign and verify them
//! (HS256, jsonwebtoken; each token names the secret that signed it, `kid`). Request
//! authentication is in `auth`, which re-exports these.

use crate::accounts::Role;
use crate::problem::Problem;
use chrono::Utc;
use jsonwebtoken::{DecodingKey, EncodingKey, Header, Validation, decode, encode};
use serde::{Deserialize, Serialize};

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
    /// the session (refresh chain) of an access or refresh token: set at login and
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
