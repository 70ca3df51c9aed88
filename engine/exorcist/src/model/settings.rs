//! Settings recorded at creation (R10.11 for the platform; X2.1, X3.4, X4.5 for the rules) and
//! the ruleset id (R10.1.3).

use serde::{Deserialize, Serialize};

/// The ruleset id recorded in every game of this crate.
pub const RULESET_ID: &str = "exorcist";
/// The version of the ruleset's implementation; bumped when a rule changes.
pub const RULESET_VERSION: u32 = 1;
/// X4.5: the default points target.
pub const DEFAULT_TARGET: u32 = 7;
/// The highest points target a table may set (keeps games bounded).
pub const MAX_TARGET: u32 = 30;

/// The settings of a table: `{"players": 5, "target": 7, "first_seeker": null}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = ExorcistSettings))]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// X2.1: seats, 4 to 8.
    pub players: u8,
    /// X4.5: the points target (1..=30, default 7).
    #[serde(default = "default_target")]
    pub target: u32,
    /// X3.4: the first Seeker of the game; `None`: drawn at random and recorded.
    #[serde(default)]
    pub first_seeker: Option<u8>,
    /// R10.6.5: the tie mini-game's simultaneous picks wait for the platform's close command
    /// once all are in (set by the platform, never by clients).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hold_windows: bool,
}

fn default_target() -> u32 {
    DEFAULT_TARGET
}

impl Settings {
    /// The defaults for `players` seats: target 7, random first Seeker.
    pub fn new(players: u8) -> Self {
        Settings { players, target: DEFAULT_TARGET, first_seeker: None, hold_windows: false }
    }
}
