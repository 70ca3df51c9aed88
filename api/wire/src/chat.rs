//! Table chat: reading, speaking, muting (`/api/v1/tables/{id}/chat`, `.../chat/stream`,
//! `.../chat/mutes`). The entries are the platform's ([`ChatEntry`]); docs/rules-decisions.md,
//! "Table chat", says who reads what when.

pub use flicker_platform::tables::chat::{ChatEntry, ChatKind};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// Query of `GET /api/v1/tables/{id}/chat`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct ChatQuery {
    /// Only the entries numbered after this one (default 0: all).
    #[serde(default)]
    #[param(minimum = 0)]
    pub after: u32,
    /// One of your seats (when you hold several; default: your first).
    pub seat: Option<u8>,
    /// The organiser's commentary view (when the gathering enables it; delayed like spectators).
    #[serde(default)]
    pub commentary: bool,
}

/// Query of `GET /api/v1/tables/{id}/chat/stream`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct ChatStreamQuery {
    /// One of your seats (when you hold several).
    pub seat: Option<u8>,
    /// The organiser's commentary view (when the gathering enables it; delayed).
    #[serde(default)]
    pub commentary: bool,
    /// An access token, for clients that cannot send headers (browsers' `EventSource`).
    pub access_token: Option<String>,
    /// Resume after this entry number (as `Last-Event-ID`; the header wins).
    pub after: Option<u32>,
}

/// A table's chat as the caller may read it now.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ChatPage {
    /// The entries numbered after the query's `after`, oldest first. A spectator (and the
    /// commentary view, and an eliminated seat) reads them behind the table's spectator delay.
    pub entries: Vec<ChatEntry>,
    /// How many entries the caller may read in all (the last one's number).
    pub readable: u32,
    /// The seats muted: as they are for the moderator, else as far as the caller reads the chat.
    pub muted: Vec<u8>,
    /// The seat the caller speaks from (`null`: it may not speak: not seated, out of the game,
    /// muted, or the game has ended and the chat with it).
    pub speaks_as: Option<u8>,
    /// Whether the caller moderates this chat (may mute a seat): the gathering's organiser,
    /// else the table's creator.
    pub moderator: bool,
}

/// Body of `POST /api/v1/tables/{id}/chat`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"text": "I peeked at seat 3: a Demon, honestly."}))]
pub struct SayBody {
    /// The message: 1 to 280 characters after trimming, one line (no control characters).
    #[schema(min_length = 1, max_length = 280)]
    pub text: String,
    /// The seat to speak from (when you hold several; default: your first).
    #[serde(default)]
    pub seat: Option<u8>,
}

/// Body of `POST /api/v1/tables/{id}/chat/mutes`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MuteBody {
    /// The seat.
    pub seat: u8,
    /// Mute it (`true`) or let it speak again (`false`).
    pub muted: bool,
}

/// What `POST /api/v1/tables/{id}/chat/mutes` did.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct MuteResponse {
    /// The seat.
    pub seat: u8,
    /// Whether it is muted now.
    pub muted: bool,
    /// Whether an entry was recorded (`false`: the seat already was so). The entry itself
    /// reaches the moderator through the chat as it reads it (behind the delay at a gathering's
    /// table: its number would count entries still held back).
    pub recorded: bool,
}
