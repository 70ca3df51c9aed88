//! Who am I, my tokens and my tables, and the live tables (`/api/v1/me`, `/api/v1/me/*`,
//! `GET /api/v1/tables`).

use flicker_platform::accounts::Role;
use flicker_platform::tables::TableGathering;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// `GET /api/v1/me`: the caller as its token names it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Me {
    /// Lower-case account name.
    pub name: String,
    /// Role.
    pub role: Role,
    /// `access` (a login's short-lived token) or `bot` (a long-lived token from `POST /api/v1/tokens`).
    pub token: String,
    /// The bot token's scopes (`play`, `read`); empty for an access token, which may do all
    /// that the role allows.
    pub scopes: Vec<String>,
}

/// One of the caller's bot tokens (never the token itself: it is shown once, when issued).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct TokenInfo {
    /// Token id (`DELETE /api/v1/tokens/{id}` revokes it).
    pub id: String,
    /// Its label.
    pub label: String,
    /// Scopes.
    pub scopes: Vec<String>,
    /// Expiry (RFC 3339).
    pub expires_at: chrono::DateTime<chrono::Utc>,
    /// Revoked.
    pub revoked: bool,
}

/// A table that has not ended, as the table list shows it (public facts only).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct LiveTable {
    /// Table id.
    pub table_id: String,
    /// The game it plays.
    #[serde(default)]
    pub game: crate::game::GameName,
    /// `waiting` (for players or the start) or `playing`.
    pub status: String,
    /// Seat holders in seat order (account names or built-in bots' names; `null`: open seat).
    pub players: Vec<Option<String>>,
    /// A practice table (not part of a gathering).
    pub practice: bool,
    /// The gathering circle it plays, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gathering: Option<TableGathering>,
    /// Open live streams on it by viewers who hold no seat there (spectators, the commentary).
    pub spectators: u32,
}

/// `GET /api/v1/tables`: a page of the tables that have not ended, by table id.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct TableList {
    /// This page.
    pub tables: Vec<LiveTable>,
    /// The `after` of the next page; absent on the last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
}

/// Query of `GET /api/v1/tables`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct TableListQuery {
    /// Page size, 1 to 200 (default 50).
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<usize>,
    /// The `next` of the previous page.
    pub after: Option<String>,
    /// Only the tables of this gathering.
    pub gathering: Option<String>,
}

/// One of the caller's tables that has not ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct MyTable {
    /// Table id.
    pub table_id: String,
    /// The game it plays.
    #[serde(default)]
    pub game: crate::game::GameName,
    /// `waiting` or `playing`.
    pub status: String,
    /// The gathering circle it plays, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gathering: Option<TableGathering>,
    /// The caller's seats there.
    pub seats: Vec<u8>,
    /// Those of them whose prompt awaits an answer now (`GET /api/v1/tables/{id}/prompt?seat=`).
    pub awaiting: Vec<u8>,
}

/// `GET`/`PUT /api/v1/me/preferences`: the player's own settings (private to the account).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Preferences {
    /// Auto-pass: the server passes for you in every Salt or BOO! Salt window in which you hold
    /// no 5 (R6.5.4), at tables that hold their windows (so it cannot be told from a hand-given
    /// Pass: the window closes at the same public time either way). Default off.
    #[serde(default)]
    pub auto_pass: bool,
}
