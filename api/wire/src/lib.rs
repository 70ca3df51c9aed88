//! The request and response bodies of the Flicker REST API (`/api/v1`), one module per route
//! group as in the server (`flicker_server::routes`). The server deserializes requests into
//! them, serializes its answers from them and documents them in the committed
//! `openapi/openapi.json` (utoipa); the typed client (`flicker_client`) sends and decodes the
//! same types, so the two cannot drift apart. Types of the tournament domain that appear on the
//! wire (table facts, clocks, gathering views, standings) are the platform's own, re-exported
//! here; game types (prompts, answers, views) are the hosted game's, through [`game`].
//!
//! No HTTP here: serde, serde_json and utoipa only.

pub mod accounts;
pub mod chat;
pub mod game;
pub mod gatherings;
pub mod me;
pub mod play;
pub mod replays;
pub mod streams;
pub mod tables;

pub use flicker_platform::accounts::Role;
pub use flicker_platform::bots::BotKind;
pub use flicker_platform::clocks::{ClockView, Clocks};
pub use flicker_platform::gatherings::standings::Standing;
pub use flicker_platform::gatherings::views::{Bracket, CircleView, GatheringSummary, Progress, StageView};
pub use flicker_platform::gatherings::{GatheringSettings, Registrant, Status as GatheringStatus};
