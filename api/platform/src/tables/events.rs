//! A table's own events (before the game's) and what the platform knows of a table besides
//! the game ([`TableInfo`]). `S` is the hosted game's settings type.

use crate::bots::BotKind;
use crate::clocks::Clocks;
use crate::names::GameName;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The schema version of [`TableEvent`] as stored.
pub const TABLE_EVENT_SCHEMA_VERSION: u32 = 1;

/// Platform events of a table stream (`S`: the game's settings).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "payload", rename_all = "snake_case")]
pub enum TableEvent<S> {
    /// The table was created.
    TableCreated {
        /// Its id.
        table_id: String,
        /// The game it plays (absent: The Final Flicker, as in every stream stored before a
        /// second game was hosted, whose bytes and hashes this keeps).
        #[serde(default, skip_serializing_if = "GameName::is_default")]
        game: GameName,
        /// Who created it.
        creator: String,
        /// The game's settings.
        settings: S,
        /// A practice table (never counts in standings).
        practice: bool,
        /// The practice position it starts from, if any (R10.13).
        position: Option<String>,
        /// The gathering circle this table plays, if any (R9.3).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        gathering: Option<TableGathering>,
        /// Seats filled at creation (a gathering circle), in seat order.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        seated: Vec<SeatHolder>,
        /// R10.7.2: prompt clocks.
        #[serde(default)]
        clocks: Clocks,
        /// R10.6.5: minimum open time of a simultaneous window, in ms (0: none).
        #[serde(default)]
        reaction_window_min_ms: u32,
        /// R10.6.5: no minimum window was given (by a practice table's creator, or by the
        /// gathering's settings for a circle), so it is the default decided from the seats
        /// ([`DEFAULT_MIN_WINDOW_MS`] with any person seated, else 0): a practice table's start
        /// decides it and records it in the game's settings, a circle is created with it. Being
        /// the default, it lapses once every seat still in the game is a built-in bot
        /// ([`crate::due::windows_released`]).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        min_window_at_start: bool,
        /// Pause before a built-in bot answers, in ms (for people watching).
        #[serde(default)]
        bot_delay_ms: u32,
        /// R10.7.4: consecutive turn time-outs that count as a concession (0: never).
        #[serde(default = "default_abandonment")]
        abandonment: u8,
    },
    /// The creator seated a built-in bot.
    BotSeated {
        /// The seat.
        seat: u8,
        /// Its display name (contains `#`, which account names cannot).
        name: String,
        /// Its policy.
        bot: BotKind,
    },
    /// A seat was taken.
    SeatTaken {
        /// The seat.
        seat: u8,
        /// The account.
        account: String,
    },
    /// During play, a built-in bot took over a seat: the organiser replaced its player by a
    /// substitute (docs/rules-decisions.md, "Substitutes"). The game goes on unchanged; the
    /// driver answers the seat's prompts from now on.
    SeatReplaced {
        /// The seat.
        seat: u8,
        /// The substitute's display name (`heuristic-bot#for-alice`).
        name: String,
        /// Its policy.
        bot: BotKind,
    },
    /// R10.7.1: the organiser gave the open decision point more time: its deadline moves later
    /// by `seconds` (a public fact, so a held window's close time still depends only on when it
    /// opened and on public data, R10.6.5).
    TimeGiven {
        /// Seconds added, 1 to 600.
        seconds: u32,
        /// Who gave it.
        by: String,
    },
    /// Table talk: a seated player said something (docs/rules-decisions.md, "Table chat"). Seats
    /// read it at once; spectators behind the table's spectator delay ([`super::chat`]).
    ChatSaid {
        /// The seat that spoke.
        seat: u8,
        /// The seat holder's account name when it spoke.
        name: String,
        /// What it said: 1 to [`super::chat::MAX_CHARS`] characters, one line.
        text: String,
    },
    /// The table's moderator (the gathering's organiser, else the table's creator) muted a seat
    /// (`muted`), or let it speak again: a muted seat's messages are refused.
    SeatMuted {
        /// The seat.
        seat: u8,
        /// Muted (`true`) or not.
        muted: bool,
        /// Who did it.
        by: String,
    },
}

/// R10.6.5: the minimum window of a table with at least one seat not held by a bot, in ms.
pub const DEFAULT_MIN_WINDOW_MS: u32 = 1500;

/// R10.7.4: the abandonment limit of a table that names none.
pub const DEFAULT_ABANDONMENT: u8 = 3;

fn default_abandonment() -> u8 {
    DEFAULT_ABANDONMENT
}

/// R9.3: the gathering circle a table plays.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct TableGathering {
    /// The gathering's id.
    pub gathering_id: String,
    /// Stage number, from 1.
    pub stage: u32,
    /// Circle number within the stage, from 1.
    pub circle: u32,
}

/// Who holds a seat: an account, or a built-in bot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SeatHolder {
    /// Account name, or the bot's display name (`heuristic-bot#07`).
    pub name: String,
    /// The built-in bot's policy (absent: an account, person or external bot).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bot: Option<BotKind>,
}

/// What the platform knows of a table besides the game.
// `S`: the hosted game's settings.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(bound = "", as = TableInfo)]
pub struct TableInfo<S> {
    /// Table id.
    pub table_id: String,
    /// The game the table plays.
    #[serde(default)]
    pub game: GameName,
    /// Creator's account name.
    pub creator: String,
    /// The game's settings (R10.11; X2.1, X3.4, X4.5 for Let's Call the Exorcist).
    #[schema(value_type = Object)]
    pub settings: S,
    /// Practice table: never counts in standings.
    pub practice: bool,
    /// Practice position (R10.13), if any. During play it is shown only to the creator, and only
    /// while every other seat is a built-in bot (`null` otherwise); after the game to everyone.
    pub position: Option<String>,
    /// Account (or built-in bot name) holding each seat (`null`: free).
    pub seats: Vec<Option<String>>,
    /// The built-in bot's policy at each seat (`null`: no built-in bot).
    pub bots: Vec<Option<BotKind>>,
    /// `open` (taking seats), `playing` or `finished`.
    pub status: String,
    /// The gathering circle this table plays, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gathering: Option<TableGathering>,
    /// R10.7.2: prompt clocks.
    pub clocks: Clocks,
    /// R10.6.5: minimum open time of a simultaneous window, in ms.
    pub reaction_window_min_ms: u32,
    /// Pause before a built-in bot answers, in ms. Never sent (a client decodes 0).
    #[serde(skip)]
    pub bot_delay_ms: u32,
    /// R10.6.5: the minimum window is the default, decided from the seats (see
    /// `TableEvent::TableCreated`). Never sent (a client decodes `false`).
    #[serde(skip)]
    pub min_window_at_start: bool,
    /// R10.7.4: consecutive Ritual time-outs that count as a concession (0: never).
    pub abandonment: u8,
}
