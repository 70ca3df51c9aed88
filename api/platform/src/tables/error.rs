//! Why a table operation was refused ([`TableError`]).

use flicker_game::RuleError;
use flicker_store::StoreError;

/// Why a table operation was refused. Each variant carries what its problem document says; a
/// refused command changes nothing.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    /// No table has this id (404 `not-found`).
    #[error("no table {table_id}")]
    NotFound {
        /// The id asked for.
        table_id: String,
    },
    /// The caller does not hold the seat it names (403 `wrong-seat`).
    #[error("you do not hold seat {seat}")]
    WrongSeat {
        /// The seat named.
        seat: u8,
    },
    /// The game has not started, so no game command applies (409 `not-started`).
    #[error("the table's game has not started")]
    NotStarted,
    /// The `Idempotency-Key` was used before for a different request (422
    /// `idempotency-key-reused`).
    #[error("this Idempotency-Key was used for a different request")]
    IdempotencyKeyReused,
    /// Concurrent appends kept winning the race (409 `busy`).
    #[error("the table changed too often while acting; try again")]
    Busy,
    /// R10.8: the commentary view is off for the table's gathering (403 `forbidden`).
    #[error("the commentary view is off for this table (a gathering setting, off by default)")]
    CommentaryOff,
    /// R10.8: only the gathering's organiser may take the commentary view (403 `forbidden`).
    #[error("only the gathering's organiser may take the commentary view")]
    NotOrganiser,
    /// The game has started: seats and the start are closed (409 `already-started`).
    #[error("the game has started")]
    AlreadyStarted,
    /// The seat asked for is held (409 `seat-taken`).
    #[error("seat {seat} is taken")]
    SeatTaken {
        /// The seat asked for.
        seat: u8,
    },
    /// The table has no such seat (400 `invalid-request`).
    #[error("no seat {seat} at this table")]
    NoSuchSeat {
        /// The seat asked for.
        seat: u8,
    },
    /// Every seat is held (409 `table-full`).
    #[error("every seat is taken")]
    TableFull,
    /// Only the table's creator may seat a built-in bot (403 `forbidden`).
    #[error("only the table's creator may seat a built-in bot")]
    CreatorSeatsBots,
    /// Only the table's creator may start it (403 `forbidden`).
    #[error("only the table's creator may start it")]
    CreatorStarts,
    /// The start needs every seat held (409 `seats-free`).
    #[error("every seat must be taken first")]
    SeatsFree,
    /// A spectator account may not do this (403 `forbidden`); `action` says what, e.g. `take
    /// seats`.
    #[error("spectators cannot {action}")]
    Spectator {
        /// What was refused.
        action: &'static str,
    },
    /// Only a player seated at the table may speak in its chat (403 `chat-not-seated`).
    #[error("only a player seated at this table may speak in its chat")]
    NotSeated,
    /// The moderator muted this account, at this seat or another it holds (403 `chat-muted`).
    #[error("you are muted in this table's chat (seat {seat})")]
    Muted {
        /// The seat.
        seat: u8,
    },
    /// Only the table's moderator (the gathering's organiser, else the table's creator) may mute
    /// a seat (403 `forbidden`).
    #[error("only the table's moderator (its gathering's organiser, else its creator) may mute a seat")]
    NotModerator,
    /// The account spoke too often just now (429 `chat-too-fast`, `Retry-After`).
    #[error("at most 5 messages in 10 seconds; try again in {retry_after} s")]
    ChatTooFast {
        /// Seconds until the seat may speak again.
        retry_after: u32,
    },
    /// The seat is out of the game, which it reads as a spectator does, behind the delay (403
    /// `chat-out-of-game`).
    #[error("seat {seat} is out of the game: it reads the table behind the spectator delay and may not speak")]
    OutOfGame {
        /// The seat.
        seat: u8,
    },
    /// The game has ended, and with it the table's chat (409 `chat-closed`).
    #[error("the game has ended: the table's chat is closed (it stays readable)")]
    ChatClosed,
    /// The table's chat holds its most entries (409 `chat-full`).
    #[error("this table's chat is full (2000 entries)")]
    ChatFull,
    /// The request's values are out of range (400 `invalid-request`).
    #[error("{0}")]
    Invalid(String),
    /// The game refused the command (the rule broken is in the error).
    #[error(transparent)]
    Rule(#[from] RuleError),
    /// The event store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl TableError {
    /// A game's refusal (any game's error type) as [`TableError::Rule`].
    pub fn rule(e: impl Into<RuleError>) -> Self {
        TableError::Rule(e.into())
    }
}
