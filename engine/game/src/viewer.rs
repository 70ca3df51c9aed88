//! Who is looking at a game (R10.8): the one input of every projection.
//!
//! Serialised with a `viewer` tag: `{"viewer":"seat","seat":2}`, `{"viewer":"spectator"}`,
//! `{"viewer":"everything"}`, `{"viewer":"commentary"}`. The docs of [`Viewer`] are the API's
//! schema descriptions (OpenAPI), so they keep their wording.

use serde::{Deserialize, Serialize};

/// Who is looking (R10.8).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "viewer", rename_all = "snake_case")]
pub enum Viewer {
    /// A seated player (an eliminated player sees what a spectator sees, plus its own seat).
    Seat {
        /// The seat.
        seat: u8,
    },
    /// A spectator or anyone else: public information only.
    Spectator,
    /// Everything, unredacted. Lawful after the game has ended (R10.8); the server decides who
    /// may ask for it.
    Everything,
    /// R10.8, R3.2.1: the organiser's commentary view (served delayed): what *some* player
    /// knows, by allow-list: every hand, Wall, Grimoire page, private answer (Salt answers,
    /// Passes, declines, time-outs) and class offer. Never a Candle's order (nobody knows it,
    /// not even its owner: Candles are counts), The Dark below its top, set-aside cards, or
    /// the handle key; and no prompt.
    Commentary,
}

impl Viewer {
    /// The seat of a seated viewer, `None` for every other viewer.
    pub fn seat(self) -> Option<u8> {
        match self {
            Viewer::Seat { seat } => Some(seat),
            _ => None,
        }
    }

    /// Every viewer of a table of `seats` seats: each seat, then spectator, commentary and
    /// everything (the set the leak checks of [`crate::kit`] walk).
    pub fn all(seats: u8) -> Vec<Viewer> {
        (0..seats)
            .map(|seat| Viewer::Seat { seat })
            .chain([Viewer::Spectator, Viewer::Commentary, Viewer::Everything])
            .collect()
    }
}
