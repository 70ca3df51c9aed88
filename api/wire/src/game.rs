//! The hosted games' types as they appear on the wire. Bodies that carry a game's prompts,
//! answers, views or events are generic over the game (`G`, default [`Served`], The Final
//! Flicker, so that existing clients name them unchanged); their OpenAPI schemas document each
//! such field as one of the hosted games' types (`AnyView`, `AnyPrompt`, `AnyAnswer`,
//! `AnyViewEvent`: `oneOf` The Final Flicker's and Let's Call the Exorcist's), and every table
//! names its game ([`GameName`]).

use flicker_game::Game;
use serde::Serialize;
use utoipa::ToSchema;

pub use flicker_platform::games::{Exorcist, FinalFlicker, GameName};

/// The default game of the wire types (a table that names no game plays it).
pub use flicker_platform::games::FinalFlicker as Served;

/// The game's settings.
pub type Settings = <Served as Game>::Settings;
/// What the platform knows of a table besides the game.
pub type TableInfo = flicker_platform::tables::TableInfo<Settings>;
/// A seat's answer to its prompt.
pub type Answer = <Served as Game>::Answer;
/// An open prompt.
pub type Prompt = <Served as Game>::Prompt;
/// The id of an open prompt.
pub type PromptId = <Served as Game>::PromptId;
/// The game as one viewer sees it.
pub type View = <Served as Game>::View;
/// One event as one viewer sees it.
pub type ViewEvent = <Served as Game>::ViewEvent;

/// Let's Call the Exorcist's settings.
pub type ExorcistSettings = <Exorcist as Game>::Settings;
/// Let's Call the Exorcist's answers (X12).
pub type ExorcistAnswer = <Exorcist as Game>::Answer;
/// Let's Call the Exorcist's prompts (X12).
pub type ExorcistPrompt = <Exorcist as Game>::Prompt;
/// Let's Call the Exorcist as one viewer sees it (X11.1).
pub type ExorcistView = <Exorcist as Game>::View;
/// One event of Let's Call the Exorcist as one viewer sees it (X11.1, X11.5).
pub type ExorcistViewEvent = <Exorcist as Game>::ViewEvent;

/// The game as one viewer sees it, for the table's game (`table.game`). Documentation only.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
pub enum AnyView {
    /// The Final Flicker.
    TheFinalFlicker(View),
    /// Let's Call the Exorcist.
    LetsCallTheExorcist(ExorcistView),
}

/// An open prompt of the table's game. Documentation only.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
pub enum AnyPrompt {
    /// The Final Flicker.
    TheFinalFlicker(Prompt),
    /// Let's Call the Exorcist.
    LetsCallTheExorcist(ExorcistPrompt),
}

/// An answer to a prompt of the table's game. Documentation only.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
pub enum AnyAnswer {
    /// The Final Flicker.
    TheFinalFlicker(Answer),
    /// Let's Call the Exorcist.
    LetsCallTheExorcist(ExorcistAnswer),
}

/// One event of the table's game as one viewer sees it. Documentation only.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
pub enum AnyViewEvent {
    /// The Final Flicker.
    TheFinalFlicker(ViewEvent),
    /// Let's Call the Exorcist.
    LetsCallTheExorcist(ExorcistViewEvent),
}
