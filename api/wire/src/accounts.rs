//! Accounts, access and refresh tokens, bot tokens (`/api/v1/accounts`, `/api/v1/auth/*`, `/api/v1/tokens`).

use flicker_platform::accounts::Role;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Body of `POST /api/v1/accounts`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
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

/// An account as shown.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct AccountView {
    /// Lower-case name.
    pub name: String,
    /// Role.
    pub role: Role,
}

/// Body of `POST /api/v1/auth/token`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"name": "alice", "password": "correct horse"}))]
pub struct LoginBody {
    /// Account name.
    pub name: String,
    /// Password.
    pub password: String,
}

/// A token pair.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
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

/// Body of `POST /api/v1/auth/refresh`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RefreshBody {
    /// The refresh token (each works once).
    pub refresh_token: String,
}

/// Body of `POST /api/v1/auth/logout` (optional).
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LogoutBody {
    /// A refresh token of the session to end; without it, the session of the bearer token.
    #[serde(default)]
    pub refresh_token: Option<String>,
}

/// Body of `POST /api/v1/tokens`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
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

/// A bot token.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
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

fn default_role() -> Role {
    Role::Player
}

fn default_scopes() -> Vec<String> {
    vec!["play".into(), "read".into()]
}

fn default_days() -> i64 {
    7
}
