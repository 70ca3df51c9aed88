//! Play: your prompt, answers, your events page (`/api/v1/tables/{id}/prompt`, `.../answers`, `.../events`).

use crate::game::Served;
use flicker_game::Game;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// Your open prompt (`G`: the table's game).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(bound = "", as = PromptResponse)]
#[serde(bound(serialize = "", deserialize = "G::Prompt: serde::de::DeserializeOwned"))]
pub struct PromptResponse<G: Game = Served> {
    /// The seat looked from.
    pub seat: Option<u8>,
    /// The open prompt of that seat, if any, with its legal answers and default (the table's
    /// game's prompt).
    #[schema(value_type = Option<crate::game::AnyPrompt>)]
    pub prompt: Option<G::Prompt>,
    /// R10.4.2, R10.7: its clock (the deadline after which the default applies).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clock: Option<flicker_platform::clocks::ClockView>,
}

/// Body of `POST /api/v1/tables/{id}/answers` (`G`: the table's game).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"prompt_id": 123456789, "answer": {"answer": "end_ritual"}}))]
#[schema(bound = "", as = AnswerBody)]
#[serde(bound(
    serialize = "",
    deserialize = "G::PromptId: serde::de::DeserializeOwned, G::Answer: serde::de::DeserializeOwned"
))]
pub struct AnswerBody<G: Game = Served> {
    /// Your seat (when you hold several).
    #[serde(default)]
    pub seat: Option<u8>,
    /// The id of the prompt answered (a stale id gets 409 `stale-prompt`).
    #[schema(value_type = u64)]
    pub prompt_id: G::PromptId,
    /// The answer, one of the table's game's answers.
    #[schema(value_type = crate::game::AnyAnswer)]
    pub answer: G::Answer,
}

/// Query of `GET /api/v1/tables/{id}/events`.
#[derive(Debug, Clone, Serialize, Deserialize, IntoParams)]
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

/// One event of your sequence (`G`: the table's game).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(bound = "", as = EventItem)]
#[serde(bound(serialize = "", deserialize = "G::ViewEvent: serde::de::DeserializeOwned"))]
pub struct EventItem<G: Game = Served> {
    /// Opaque cursor of this event in your sequence.
    pub cursor: String,
    /// The event as you may see it (one of the table's game's events).
    #[schema(value_type = crate::game::AnyViewEvent)]
    pub event: G::ViewEvent,
}

/// A page of your events (`G`: the table's game).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(bound = "", as = EventsPage)]
#[serde(bound(serialize = "", deserialize = "G::ViewEvent: serde::de::DeserializeOwned"))]
pub struct EventsPage<G: Game = Served> {
    /// The events, oldest first.
    #[schema(value_type = Vec<EventItem>)]
    pub events: Vec<EventItem<G>>,
    /// Cursor to pass as `after` for the next page (the last event's, or the one given).
    pub next: Option<String>,
}
