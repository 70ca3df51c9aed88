//! Table settings the engine reads (R10.11), recorded in the creation event (R10.1.3).

use serde::{Deserialize, Serialize};

/// The ruleset a game is played under (R10.1.3). Games keep the ruleset id and version they were
/// created with, so older games keep replaying when the rules change later.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RulesetId {
    /// `current` (RULES.md) or, later, `classic-1.0` (Appendix A).
    pub id: String,
    /// Version of this engine's implementation of that ruleset; bumped when a rule changes.
    pub version: u32,
}

impl RulesetId {
    /// The ruleset this engine implements: `current`, version 1.
    pub fn current() -> Self {
        RulesetId { id: CURRENT_RULESET.to_string(), version: CURRENT_RULESET_VERSION }
    }
}

/// Id of the current ruleset (RULES.md).
pub const CURRENT_RULESET: &str = "current";
/// Version of the engine's implementation of the current ruleset.
pub const CURRENT_RULESET_VERSION: u32 = 1;
/// A1: id of the classic ruleset (RULES.md appendix A).
pub const CLASSIC_RULESET: &str = "classic-1.0";
/// Version of the engine's implementation of the classic ruleset.
pub const CLASSIC_RULESET_VERSION: u32 = 1;

/// R10.11, A1: the ruleset a table is created under, as chosen in its settings. The game records
/// the id with the engine's latest version of it ([`RulesetId`]) in its creation event, and
/// folds under that id and version forever.
#[cfg_attr(feature = "fuzzing", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub enum RulesetName {
    /// `current`: RULES.md sections 0-11 (the default).
    #[default]
    #[serde(rename = "current")]
    Current,
    /// `classic-1.0`: the 1.0 manual (RULES.md appendix A).
    #[serde(rename = "classic-1.0")]
    Classic,
}

impl RulesetName {
    /// The ruleset's id (`current`, `classic-1.0`).
    pub fn id(self) -> &'static str {
        match self {
            RulesetName::Current => CURRENT_RULESET,
            RulesetName::Classic => CLASSIC_RULESET,
        }
    }

    /// The ruleset with this id, if the engine plays it.
    pub fn from_id(id: &str) -> Option<Self> {
        match id {
            CURRENT_RULESET => Some(RulesetName::Current),
            CLASSIC_RULESET => Some(RulesetName::Classic),
            _ => None,
        }
    }

    /// The latest version of this ruleset, the one new games record.
    pub fn latest(self) -> RulesetId {
        let version = match self {
            RulesetName::Current => CURRENT_RULESET_VERSION,
            RulesetName::Classic => CLASSIC_RULESET_VERSION,
        };
        RulesetId { id: self.id().to_string(), version }
    }

    fn is_current(&self) -> bool {
        *self == RulesetName::Current
    }
}

/// A3.3, R10.11: where a dead player's ghosts go under `classic-1.0`.
#[cfg_attr(feature = "fuzzing", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum DarkMode {
    /// The ghosts go to The Dark in entry order (the default).
    #[default]
    Standard,
    /// The ghosts are split between the neighbours as in R7.5.
    Dark,
}

impl DarkMode {
    fn is_standard(&self) -> bool {
        *self == DarkMode::Standard
    }
}

/// R10.6.6: the form of Salt and BOO! windows.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum SaltWindow {
    /// Every eligible player answers at once; Salters are then taken clockwise (the default).
    #[default]
    Simultaneous,
    /// Eligible players are asked one after another, clockwise from the actor's left (R6.5.3).
    Sequential,
}

/// R2.4, R9.8.2: where the pool's surplus goes at the deal.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Surplus {
    /// R2.4: placed face up as The Dark (an opening-stage game, or `final_dark: as_new_game`).
    #[default]
    TheDark,
    /// R9.8.2: a later gathering stage: The Dark starts empty and the surplus goes out of play
    /// face down (hidden until the game ends).
    OutOfPlay,
}

/// R2.6: who takes the first turn.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case", tag = "mode", deny_unknown_fields)]
pub enum FirstPlayer {
    /// The server draws the first player uniformly (recorded in the creation event).
    #[default]
    Random,
    /// A named tiebreaker winner who goes first.
    First {
        /// The tiebreaker winner's seat.
        seat: u8,
    },
    /// A named tiebreaker winner who goes last: the player to their left goes first.
    Last {
        /// The tiebreaker winner's seat.
        seat: u8,
    },
    /// A named tiebreaker winner who is asked (prompt TurnOrderChoice, R10.5 #1).
    Ask {
        /// The tiebreaker winner's seat.
        seat: u8,
    },
}

/// R10.11: the settings of one game that the engine reads. Clocks, seat order and spectator
/// settings belong to the server and live beside the game, not in it.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// R10.11, A1: the ruleset (`current` unless set). Left out of the serialised form when
    /// `current`, so games stored before rulesets were offered keep their exact bytes.
    #[serde(default, skip_serializing_if = "RulesetName::is_current")]
    pub ruleset: RulesetName,
    /// R10.11, A3.3: `classic-1.0` only: where a dead player's ghosts go (default standard).
    #[serde(default, skip_serializing_if = "DarkMode::is_standard")]
    pub dark_mode: DarkMode,
    /// Number of seats, 2..=64 (R0.2).
    #[cfg_attr(feature = "openapi", schema(minimum = 2, maximum = 64))]
    pub players: u8,
    /// R8.0.5, R10.11: classes on or off (off unless set).
    #[serde(default)]
    pub classes: bool,
    /// R6.5.2: only targeted players may Salt (default false).
    #[serde(default)]
    pub salt_targeted_only: bool,
    /// R2.6: first player (default Random).
    #[serde(default)]
    pub first_player: FirstPlayer,
    /// R7.9.2: rounds before the Guttering; at least 10 (default 40).
    #[serde(default = "default_round_limit")]
    #[cfg_attr(feature = "openapi", schema(minimum = 10))]
    pub round_limit: u16,
    /// R10.6.6: simultaneous (default) or sequential Salt windows.
    #[serde(default)]
    pub salt_window: SaltWindow,
    /// R9.1.2, R9.5: the number of Last Lit a circle sends on. 1 (default): play to one winner.
    /// 2: a qualifying circle stops as soon as two players are Lit (R9.5.2).
    #[serde(default = "default_last_lit")]
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 2))]
    pub last_lit: u8,
    /// R10.6.5: when true, a simultaneous window whose answers are all in stays open until the
    /// server sends `CloseWindow` (it does so once the minimum window has passed). The server
    /// sets this when `reaction_window_min_ms > 0`.
    #[serde(default)]
    pub hold_windows: bool,
    /// R2.4, R9.8.2: where the surplus goes (default: The Dark). The server sets `out_of_play`
    /// for the later stages of a gathering whose `final_dark` is `empty`.
    #[serde(default)]
    pub surplus: Surplus,
    /// R10.11, R2.7.2: the organiser's ban list (classes never offered at this table).
    #[serde(default)]
    pub class_bans: Vec<crate::model::classes::ClassId>,
    /// R9.8.4: when set, there is no selection: seat `i` plays `seat_classes[i]` (later gathering
    /// stages keep the class of stage 1; duplicates and classes outside this circle size's pool
    /// are allowed and work as written). Needs `classes` on and one class per seat.
    #[serde(default)]
    pub seat_classes: Option<Vec<crate::model::classes::ClassId>>,
}

fn default_last_lit() -> u8 {
    1
}

fn default_round_limit() -> u16 {
    40
}

/// R7.9.2: the smallest legal round limit.
pub const MIN_ROUND_LIMIT: u16 = 10;

impl Settings {
    /// Defaults of R10.11 for `players` seats.
    pub fn new(players: u8) -> Self {
        Settings {
            ruleset: RulesetName::Current,
            dark_mode: DarkMode::Standard,
            players,
            classes: false,
            salt_targeted_only: false,
            first_player: FirstPlayer::Random,
            round_limit: default_round_limit(),
            last_lit: default_last_lit(),
            salt_window: SaltWindow::Simultaneous,
            hold_windows: false,
            surplus: Surplus::TheDark,
            class_bans: Vec::new(),
            seat_classes: None,
        }
    }
}
