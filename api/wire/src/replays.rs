//! Replays: steps, the whole replay, the replay key (`/api/v1/tables/{id}/replay`, `.../replay/steps`, `/api/v1/replay-key`).

use crate::game::Served;
use flicker_game::Game;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// Query of `GET /api/v1/tables/{id}/replay`.
#[derive(Debug, Clone, Serialize, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct ReplayQuery {
    /// Step number in your sequence, 1 to `total` (default: the latest).
    #[param(minimum = 1)]
    pub at: Option<usize>,
    /// One of your seats (when you hold several).
    pub seat: Option<u8>,
    /// The organiser's commentary view (when the gathering enables it; delayed).
    #[serde(default)]
    pub commentary: bool,
}

/// One step of a replay (`G`: the table's game).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(bound = "", as = ReplayStep)]
#[serde(bound(
    serialize = "",
    deserialize = "G::ViewEvent: serde::de::DeserializeOwned, G::View: serde::de::DeserializeOwned"
))]
pub struct ReplayStep<G: Game = Served> {
    /// This step's number in your sequence (1-based).
    pub at: usize,
    /// Steps in your sequence so far (all of them once the game has ended).
    pub total: usize,
    /// The event of this step, as you may see it.
    #[schema(value_type = crate::game::AnyViewEvent)]
    pub event: G::ViewEvent,
    /// The game right after it, as you may see it.
    #[schema(value_type = crate::game::AnyView)]
    pub view: G::View,
    /// Step numbers of the eliminations (to jump to them).
    pub eliminations: Vec<usize>,
}

/// One step of a whole replay (`ReplaySteps`): the event and the game right after it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(bound = "", as = ReplayFrame)]
#[serde(bound(
    serialize = "",
    deserialize = "G::ViewEvent: serde::de::DeserializeOwned, G::View: serde::de::DeserializeOwned"
))]
pub struct ReplayFrame<G: Game = Served> {
    /// The event of this step, as you may see it.
    #[schema(value_type = crate::game::AnyViewEvent)]
    pub event: G::ViewEvent,
    /// The game right after it, as you may see it.
    #[schema(value_type = crate::game::AnyView)]
    pub view: G::View,
}

/// Every step of a replay at once (what `GET /api/v1/tables/{id}/replay?at=N` answers one at a
/// time), so a viewer fetches a game once and scrubs it locally.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(bound = "", as = ReplaySteps)]
#[serde(bound(
    serialize = "",
    deserialize = "G::ViewEvent: serde::de::DeserializeOwned, G::View: serde::de::DeserializeOwned"
))]
pub struct ReplaySteps<G: Game = Served> {
    /// Steps in your sequence so far (all of them once the game has ended): `steps.len()`.
    pub total: usize,
    /// Step numbers (1-based) of the eliminations (to jump to them).
    pub eliminations: Vec<usize>,
    /// Step `n` is `steps[n - 1]`.
    #[schema(value_type = Vec<ReplayFrame>)]
    pub steps: Vec<ReplayFrame<G>>,
}

/// Query of `GET /api/v1/tables/{id}/replay/steps`.
#[derive(Debug, Clone, Serialize, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct ReplayStepsQuery {
    /// One of your seats (when you hold several).
    pub seat: Option<u8>,
    /// The organiser's commentary view (when the gathering enables it; delayed).
    #[serde(default)]
    pub commentary: bool,
}

/// Query of `GET /api/v1/tables/{id}/position` (R10.13).
#[derive(Debug, Clone, Serialize, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct PositionQuery {
    /// Step number in your sequence, 1 to `total`, as `GET /api/v1/tables/{id}/replay?at=N`
    /// numbers it (after the game: the number of game events folded); default: the latest you
    /// may see.
    #[param(minimum = 1)]
    pub at: Option<usize>,
    /// One of your seats (when you hold several).
    pub seat: Option<u8>,
    /// The organiser's commentary view (when the gathering enables it; delayed).
    #[serde(default)]
    pub commentary: bool,
    /// `text` (default: the one-line position, `text/plain`) or `json` (a [`PositionAt`]); an
    /// `Accept: application/json` header without `format` also asks for JSON.
    #[param(pattern = "^(text|json)$")]
    pub format: Option<String>,
}

/// A table's position at one step (R10.13), as you may see it: the answer of
/// `GET /api/v1/tables/{id}/position?format=json`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"at": 12, "total": 40, "whole": false,
    "text": "current/1 for=seat-1 | turn: round=1 active=0 step=ritual budget=1 declared=0 first=0 | seat 0: lit hand: ?x3 candle: ?x17 | seat 1: lit hand: 7H 8D KS candle: ?x17 | dark: ?x54",
    "position": {}}))]
pub struct PositionAt {
    /// This step's number in your sequence (1-based).
    pub at: usize,
    /// Steps in your sequence so far (all of them once the game has ended).
    pub total: usize,
    /// Whether the position is the whole state (after the game; or a practice table's creator
    /// against built-in bots only): then it can start a practice table
    /// (`POST /api/v1/tables` with `position`). Otherwise what you may not see is `?`.
    pub whole: bool,
    /// The position on one line (docs/positions.md).
    pub text: String,
    /// The same position as JSON (the engine's `Position`).
    #[schema(value_type = Object)]
    pub position: serde_json::Value,
}

/// The public keys that sign replay exports (rotated-out keys too).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"algorithm": "ed25519", "public_key": "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
    "keys": [{"public_key": "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "current": true, "created_at": "2026-12-01T20:00:00Z"}]}))]
pub struct ReplayKey {
    /// Always `ed25519`.
    pub algorithm: String,
    /// The current Ed25519 public key (new exports are signed by it), 32 bytes as 64 lowercase
    /// hex digits: pass it to `flicker verify FILE --public-key HEX`.
    pub public_key: String,
    /// Every key this server has signed with, the current one first, then rotated-out ones
    /// (newest first): a replay signed before a rotation verifies against its key here.
    pub keys: Vec<PublishedReplayKey>,
}

/// One replay-signing public key.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct PublishedReplayKey {
    /// 64 lowercase hex digits.
    pub public_key: String,
    /// Whether new exports are signed by it.
    pub current: bool,
    /// When the key was made (RFC 3339), for keys kept in the store; absent for keys given in
    /// the environment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
}
