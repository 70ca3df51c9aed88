//! The names of the games this platform hosts ([`GameName`]), apart from their registration
//! ([`crate::games`]) so that tables name their game without naming the gatherings.

use exorcist::Exorcist;
use final_flicker::FinalFlicker;
use flicker_game::Game;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A game this platform hosts, by its stable id ([`Game::GAME_ID`]): recorded in a table's
/// creation event (absent there for The Final Flicker, so that older streams keep their bytes)
/// and shown with every table.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
pub enum GameName {
    /// *The Final Flicker* (`RULES.md`, R-ids).
    #[default]
    #[serde(rename = "the-final-flicker")]
    TheFinalFlicker,
    /// *Let's Call the Exorcist* (`RULES-exorcist.md`, X-ids).
    #[serde(rename = "lets-call-the-exorcist")]
    LetsCallTheExorcist,
}

impl GameName {
    /// Every hosted game.
    pub const ALL: [GameName; 2] = [GameName::TheFinalFlicker, GameName::LetsCallTheExorcist];

    /// The game's id ([`Game::GAME_ID`]).
    pub fn id(self) -> &'static str {
        match self {
            GameName::TheFinalFlicker => FinalFlicker::GAME_ID,
            GameName::LetsCallTheExorcist => Exorcist::GAME_ID,
        }
    }

    /// The hosted game whose id is `id`.
    pub fn from_id(id: &str) -> Option<GameName> {
        GameName::ALL.into_iter().find(|g| g.id() == id)
    }

    /// The Final Flicker, the default of a table that names no game.
    pub fn is_default(&self) -> bool {
        *self == GameName::TheFinalFlicker
    }
}

impl std::fmt::Display for GameName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The wire names are the games' own ids, and each id names its game.
    #[test]
    fn game_names_are_the_game_ids() {
        for g in GameName::ALL {
            assert_eq!(serde_json::to_value(g).unwrap(), serde_json::json!(g.id()));
            assert_eq!(GameName::from_id(g.id()), Some(g));
        }
        assert_eq!(GameName::from_id("chess"), None);
    }
}
