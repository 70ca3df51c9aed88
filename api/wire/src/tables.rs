//! Tables: creating a practice table, reading it, seats (`/api/v1/tables`, `/api/v1/tables/{id}`, `.../seats`).

use crate::game::{GameName, Served};
use flicker_game::Game;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// Body of `POST /api/v1/tables`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"players": 2, "practice": true}))]
pub struct CreateTableBody {
    /// The game (absent: `the-final-flicker`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<GameName>,
    /// Seats: 2-64 for The Final Flicker, 4-8 for Let's Call the Exorcist (X2.1).
    #[schema(minimum = 2, maximum = 64)]
    pub players: u8,
    /// The game's settings (R10.11) other than `players`; defaults when absent or `null`.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub settings: Option<serde_json::Value>,
    /// Practice table (never counts in standings). Tables created here are always practice
    /// tables for now; gatherings create the others.
    #[serde(default = "yes")]
    pub practice: bool,
    /// A practice position to start from (R10.13), e.g. `"7H 8D KS / 2C | 5H 5D 9S"`.
    #[serde(default)]
    pub position: Option<String>,
    /// R10.7.2: prompt clocks (default 60 s decisions, 15 s reactions).
    #[serde(default)]
    pub clocks: Option<flicker_platform::clocks::Clocks>,
    /// R10.6.5: minimum open time of reaction windows, 0-10,000 ms. When absent, the start
    /// decides it: 1,500 ms when any seat is held by something other than a built-in bot or an
    /// account with the `bot` role, else 0. A table with a minimum window holds every reaction
    /// window and prompt until its deadline (docs/rules-decisions.md).
    #[serde(default)]
    #[schema(maximum = 10000)]
    pub reaction_window_min_ms: Option<u32>,
    /// Pause before a built-in bot answers, 0-10,000 ms (default 0).
    #[serde(default)]
    #[schema(maximum = 10000)]
    pub bot_delay_ms: Option<u32>,
    /// R10.7.4: consecutive Ritual time-outs that count as a concession, 0-20 (default 3; 0:
    /// never).
    #[serde(default)]
    #[schema(maximum = 20)]
    pub abandonment: Option<u8>,
}

/// A table and the caller's view of its game (`G`: the table's game, `table.game`).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(bound = "", as = TableResponse)]
#[serde(bound(
    serialize = "",
    deserialize = "G::View: serde::de::DeserializeOwned, G::Settings: serde::de::DeserializeOwned"
))]
pub struct TableResponse<G: Game = Served> {
    /// The table.
    #[schema(value_type = crate::game::TableInfo)]
    pub table: flicker_platform::tables::TableInfo<G::Settings>,
    /// The caller's view of the game (absent before the start), as the table's game shows it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<crate::game::AnyView>)]
    pub view: Option<G::View>,
    /// R10.7: the open decision point's clock, when the caller may see it (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clock: Option<flicker_platform::clocks::ClockView>,
}

/// Query of table reads: which of your seats to look from.
#[derive(Debug, Clone, Serialize, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct SeatQuery {
    /// One of your seats (when you hold several; default: your first).
    pub seat: Option<u8>,
    /// The organiser's all-seeing commentary view (when the gathering enables it; delayed).
    #[serde(default)]
    pub commentary: bool,
}

/// Body of `POST /api/v1/tables/{id}/seats`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SeatBody {
    /// The seat wanted (default: the first free one).
    #[serde(default)]
    pub seat: Option<u8>,
    /// Seat a built-in bot with this policy instead of yourself (the table's creator only).
    #[serde(default)]
    pub bot: Option<flicker_platform::bots::BotKind>,
}

/// The seat taken.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SeatTakenResponse {
    /// The seat.
    pub seat: u8,
}

fn yes() -> bool {
    true
}

impl Default for CreateTableBody {
    /// Two seats, a practice table, the server's defaults for everything else.
    fn default() -> Self {
        CreateTableBody {
            game: None,
            players: 2,
            settings: None,
            practice: true,
            position: None,
            clocks: None,
            reaction_window_min_ms: None,
            bot_delay_ms: None,
            abandonment: None,
        }
    }
}
