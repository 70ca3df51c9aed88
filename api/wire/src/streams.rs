//! Live streams (Server-Sent Events) of tables and gatherings: their queries and their frames.

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// One message of a stream: the documented schema of each Server-Sent Event of a
/// `text/event-stream` response (OpenAPI 3.1 has no item schema; as in 3.2, the fields of the
/// event). Keep-alive comments are not events.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct StreamEvent {
    /// `id:` the resume point to send back as `Last-Event-ID` (absent on `finished`).
    pub id: Option<String>,
    /// `event:` the event's type (`finished` when a table's stream closes).
    pub event: String,
    /// `data:` the event, as JSON text.
    pub data: String,
}

/// Query of `GET /api/v1/tables/{id}/stream`.
#[derive(Debug, Clone, Serialize, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct StreamQuery {
    /// One of your seats (when you hold several).
    pub seat: Option<u8>,
    /// The organiser's commentary view (when the gathering enables it; delayed).
    #[serde(default)]
    pub commentary: bool,
    /// An access token, for clients that cannot send headers (browsers' `EventSource`). Read
    /// by the [`MaybeCaller`] extractor; declared here for the contract.
    pub access_token: Option<String>,
    /// Resume after this cursor (as `Last-Event-ID`; the header wins).
    pub after: Option<String>,
}

/// Query of `GET /api/v1/gatherings/{id}/stream`.
#[derive(Debug, Clone, Serialize, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct GatheringStreamQuery {
    /// Resume after this event number (as `Last-Event-ID`; the header wins).
    pub after: Option<i64>,
}
