//! Tables: one game each, one stream each (`table-<uuid>`), generic over the hosted game `G`.
//! The stream starts with the table's own events ([`TableEvent`]: created, seats taken); from the
//! start it holds the game's events. Commands load the stream (cached, then caught up from the
//! store), run the game's `decide`, and append with the expected version; a conflicting append
//! is retried on the fresh state.
//!
//! | module | holds |
//! |---|---|
//! | `chat` | table talk: who may speak and mute, message bounds, chat entries |
//! | `events` | [`TableEvent`], [`TableInfo`], seat holders, the gathering circle |
//! | `snapshot` | [`Snapshot`], the fold of a table's stream |
//! | `rules` | practice tables, seats, the start, a game command's events |
//! | `repository` | [`Tables`]: the cache, loads, commands with retries and idempotency keys |
//! | `error` | [`TableError`] |

pub mod chat;
mod error;
mod events;
mod inflight;
mod repository;
mod rules;
mod snapshot;

pub use error::TableError;
pub use events::{
    DEFAULT_ABANDONMENT, DEFAULT_MIN_WINDOW_MS, SeatHolder, TABLE_EVENT_SCHEMA_VERSION, TableEvent, TableGathering,
    TableInfo,
};
pub use repository::{Chained, Link, Tables, create_with_game, engine_event, scoped_key, stream_of, table_event};
pub use rules::{PracticeTable, any_person, create_practice, decide, start, take_seat, viewer_for};
pub use snapshot::Snapshot;
