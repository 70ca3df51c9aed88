//! Request bodies and answers of the routes in [`crate::routes`]: the server's own types
//! ([`flicker_wire`], which the committed `openapi/openapi.json` documents), so that client and
//! server cannot drift apart. An optional request field sent as `null` means what its absence
//! means, except where its doc gives `null` a meaning of its own (`GatheringSettings::max_circle`:
//! `null` is one table for everybody, so build settings from `GatheringSettings::default()`).
//!
//! [`Problem`] is the client's own: it decodes any refusal, also one whose body is not a
//! problem document (a proxy's 502), into optional fields.

pub use flicker_wire::accounts::*;
pub use flicker_wire::game::{Answer, GameName, Prompt, PromptId, TableInfo, View, ViewEvent};
pub use flicker_wire::gatherings::*;
pub use flicker_wire::play::*;
pub use flicker_wire::replays::*;
pub use flicker_wire::tables::*;
pub use flicker_wire::{
    BotKind, Bracket, CircleView, ClockView, Clocks, GatheringSettings, GatheringStatus, GatheringSummary, Progress,
    Registrant, Role, StageView, Standing,
};
use serde::{Deserialize, Serialize};

/// A problem document (RFC 9457) of a refusal; fields absent from the body are `None`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Problem {
    /// The stable problem type (`rate-limited`, `stale-prompt`, ...).
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
    /// A short, human-readable summary of the type.
    #[serde(default)]
    pub title: Option<String>,
    /// The HTTP status.
    #[serde(default)]
    pub status: Option<u16>,
    /// What went wrong this time.
    #[serde(default)]
    pub detail: Option<String>,
}

/// An empty JSON object, the body of actions without parameters (`start`).
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Empty {}
