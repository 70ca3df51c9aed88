//! What the gathering process manager needs of a game beyond the Game contract: the settings
//! of a circle's table, and what a seat keeps for later stages (R9.5, R9.8). The manager is
//! generic over [`CircleGame`]; each hosted game implements it in [`crate::games`].

use super::GatheringSettings;
use final_flicker::ClassId;
use flicker_game::{Game, Outcome};

/// What the gathering process manager knows of a circle when it creates its table (R9.3-R9.8).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CircleSpec {
    /// The stage, from 1.
    pub stage: u32,
    /// The circle's seats (its players).
    pub seats: u8,
    /// R9.5: a qualifying circle (its Last Lit advance); otherwise the Final Ritual.
    pub qualifying: bool,
    /// R10.6.5: the table holds its reaction windows (a minimum window applies).
    pub hold_windows: bool,
    /// R9.8.4: from stage 2, each player's class from an earlier stage, in seat order, when
    /// every player has one.
    pub kept_classes: Option<Vec<ClassId>>,
}

/// A game whose tables can play gathering circles.
pub trait CircleGame: Game {
    /// R9.5, R9.8, R10.11: the settings of a circle's table in a gathering of settings `g`.
    fn circle_settings(g: &GatheringSettings, circle: &CircleSpec) -> Self::Settings;

    /// R9.8.4: the class each seat of `state` plays, by seat (kept for later stages); all `None`
    /// for a game without classes.
    fn kept_classes(state: &Self::State) -> Vec<Option<ClassId>>;

    /// R9.5: the seats that advance from a finished circle whose gathering sends on `advance`
    /// (the game's own [`Outcome::advancing`] unless the game leaves it to the gathering).
    fn advancing(outcome: &Outcome, _advance: u8) -> Vec<u8> {
        outcome.advancing.clone()
    }

    /// Each seat's points at the end (for tie-breaks across circles); empty for a game
    /// without points.
    fn points(_state: &Self::State) -> Vec<u32> {
        Vec::new()
    }
}
