//! The game this server hosts, registered once here: routes, streams and workers name it only
//! through these aliases and the Game contract ([`flicker_game::Game`]), never through the
//! game's own modules. Hosting another game means registering it here (and its
//! [`flicker_platform::hosted::Hosted`] implementation in the platform).

use flicker_game::Game;

/// The hosted game.
pub use flicker_platform::games::FinalFlicker as Served;

/// A table of the hosted game, folded.
pub type Snapshot = flicker_platform::tables::Snapshot<Served>;
/// The table cache and command runner of the hosted game.
pub type Tables = flicker_platform::tables::Tables<Served>;
/// What the platform knows of a table besides the game.
pub type TableInfo = flicker_platform::tables::TableInfo<Settings>;
/// The game's settings.
pub type Settings = <Served as Game>::Settings;
/// The game's commands.
pub type Command = <Served as Game>::Command;
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
/// The game's state.
pub type State = <Served as Game>::State;
