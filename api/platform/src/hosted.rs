//! What the platform needs of a game beyond the [`Game`] contract: its built-in bots and the
//! settings of a gathering's circle tables. A game the platform hosts implements [`Hosted`] (in
//! [`crate::games`]); tables, clocks, the driver's decisions, sight, streams and the gathering
//! process manager are generic over it.

use crate::bots::BotKind;
use crate::gatherings::GatheringSettings;
use final_flicker::ClassId;
use flicker_game::Game;
use rand::Rng;

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

/// A game the platform hosts.
pub trait Hosted: Game {
    /// The built-in bot `kind`'s answer to `prompt` (open for `seat`), decided from `seat`'s view
    /// of `state` only (never the hidden state), its choices drawn from `rng`. A legal answer.
    fn bot_answer<R: Rng + ?Sized>(
        kind: BotKind,
        state: &Self::State,
        seat: u8,
        prompt: &Self::Prompt,
        rng: &mut R,
    ) -> Self::Answer;

    /// R9.5, R9.8, R10.11: the settings of a circle's table in a gathering of settings `g`.
    fn circle_settings(g: &GatheringSettings, circle: &CircleSpec) -> Self::Settings;

    /// R9.8.4: the class each seat of `state` plays, by seat (kept for later stages); all `None`
    /// for a game without classes.
    fn kept_classes(state: &Self::State) -> Vec<Option<ClassId>>;
}
