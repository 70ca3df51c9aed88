//! The hosted game's types as they appear on the wire: the server registers the game it hosts
//! here once ([`Served`]); bodies name its prompts, answers and views only through these
//! aliases and the Game contract ([`flicker_game::Game`]).

use flicker_game::Game;

/// The hosted game.
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
