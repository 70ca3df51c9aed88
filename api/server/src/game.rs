//! The game this server hosts, as routes, streams and workers name it: the wire types' aliases
//! ([`flicker_wire::game`], where the hosted game is registered once) and the platform's table
//! types over it. Nothing here names the game's own modules; hosting another game means
//! registering it in `flicker_wire::game` (and its [`flicker_platform::hosted::Hosted`]
//! implementation in the platform).

use flicker_game::Game;

pub use flicker_wire::game::{Answer, Prompt, PromptId, Served, Settings, TableInfo, View, ViewEvent};

/// A table of the hosted game, folded.
pub type Snapshot = flicker_platform::tables::Snapshot<Served>;
/// The table cache and command runner of the hosted game.
pub type Tables = flicker_platform::tables::Tables<Served>;
/// The game's commands.
pub type Command = <Served as Game>::Command;
/// The game's state.
pub type State = <Served as Game>::State;
