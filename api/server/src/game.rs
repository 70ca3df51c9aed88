//! The games this server hosts, as routes, streams and workers name them: the wire types'
//! aliases ([`flicker_wire::game`]) and the platform's table types over them. Nothing here names
//! a game's own modules. A table records its game in its creation event
//! ([`crate::tables::TableEvent::TableCreated`]`.game`); [`TableGames`] tells a handler which
//! game a table plays, and [`with_game!`] runs a handler's generic body for that game
//! ([`crate::state::ServedGame`]: the game's table cache in the server's state). Hosting another
//! game means a [`GameName`], its [`flicker_platform::hosted::Hosted`] implementation, a
//! `ServedGame` implementation with its table cache, and an arm in [`with_game!`].

use crate::store::{EventStore, StreamVersion};
use crate::tables::TableError;
use flicker_game::Game;
use std::collections::HashMap;
use std::sync::Mutex;

pub use flicker_wire::game::{
    Answer, Exorcist, GameName, Prompt, PromptId, Served, Settings, TableInfo, View, ViewEvent,
};

/// A table of The Final Flicker, folded.
pub type Snapshot = flicker_platform::tables::Snapshot<Served>;
/// The table cache and command runner of The Final Flicker.
pub type Tables = flicker_platform::tables::Tables<Served>;
/// A table of the game `G`, folded.
pub type GameSnapshot<G> = flicker_platform::tables::Snapshot<G>;
/// The table cache and command runner of the game `G`.
pub type GameTables<G> = flicker_platform::tables::Tables<G>;
/// The Final Flicker's commands.
pub type Command = <Served as Game>::Command;
/// The Final Flicker's state.
pub type State = <Served as Game>::State;

/// Runs `f::<G>(args…).await` for the game `G` named by `game` (a [`GameName`]).
#[macro_export]
macro_rules! with_game {
    ($game:expr, $f:ident ( $($arg:expr),* $(,)? )) => {
        match $game {
            $crate::game::GameName::TheFinalFlicker => $f::<$crate::game::Served>($($arg),*).await,
            $crate::game::GameName::LetsCallTheExorcist => $f::<$crate::game::Exorcist>($($arg),*).await,
        }
    };
}
pub use with_game;

/// Which game each table plays, as its creation event recorded it: learnt when this process
/// creates a table, else read once from the table's stream. A game never changes, so an entry
/// never goes stale.
#[derive(Default)]
pub struct TableGames {
    known: Mutex<HashMap<String, GameName>>,
}

impl TableGames {
    /// Records that `table_id` plays `game`.
    pub fn note(&self, table_id: &str, game: GameName) {
        self.known.lock().expect("games").insert(table_id.to_string(), game);
    }

    /// The game `table_id` plays (404 `not-found` when there is no such table). A table whose
    /// creation event names no game plays The Final Flicker.
    pub async fn of(&self, store: &dyn EventStore, table_id: &str) -> Result<GameName, TableError> {
        if let Some(g) = self.known.lock().expect("games").get(table_id).copied() {
            return Ok(g);
        }
        let not_found = || TableError::NotFound { table_id: table_id.to_string() };
        let events = store.read_stream(&crate::tables::stream_of(table_id), StreamVersion::new(1)).await?;
        let first = events.first().ok_or_else(not_found)?;
        if first.event_type != "table_created" {
            return Err(not_found());
        }
        let game = match first.payload.get("game") {
            None => GameName::TheFinalFlicker,
            Some(v) => v.as_str().and_then(GameName::from_id).ok_or_else(|| {
                TableError::Store(crate::store::StoreError::Other(format!(
                    "table {table_id} plays {v}, a game this server does not host"
                )))
            })?,
        };
        self.note(table_id, game);
        Ok(game)
    }
}

/// R10.13: the position of `state` in The Final Flicker's notation (docs/positions.md), the
/// whole state (`whole`) or as `viewer` may see it (hidden cards as `?`), as text and as JSON.
pub fn position(state: &State, viewer: flicker_game::Viewer, whole: bool) -> (String, serde_json::Value) {
    use final_flicker::position::{position_for, position_of};
    let p = if whole { position_of(state) } else { position_for(state, viewer) };
    (p.to_string(), serde_json::to_value(&p).expect("a position is JSON"))
}
