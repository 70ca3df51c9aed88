//! What every game's replay reader needs to know of the platform's signed export (format 2):
//! which event lines are the platform's own rather than the game's.
//!
//! A table's stream holds the platform's events (its creation, seats, time given, chat, mutes)
//! beside the game's, and the signed export writes the whole stream, so a game's reader skips
//! these lines wherever they come, before the game or during it.

/// The `type` of every event a table stream may hold that is the platform's, not the game's
/// (`flicker_platform::tables::TableEvent`, whose test keeps this list complete).
pub const PLATFORM_EVENT_TYPES: &[&str] =
    &["table_created", "bot_seated", "seat_taken", "seat_replaced", "time_given", "chat_said", "seat_muted"];

/// Whether an event line of `event_type` is the platform's (see [`PLATFORM_EVENT_TYPES`]).
pub fn is_platform_event(event_type: &str) -> bool {
    PLATFORM_EVENT_TYPES.contains(&event_type)
}
