//! What seats and the platform send (R10.1.2), and the answers to prompts (X12).

use serde::{Deserialize, Serialize};

/// An opaque id of an open decision point (R10.4.2): the stream version at which it opened.
/// An answer naming another id is stale and refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = ExorcistPromptId))]
#[serde(transparent)]
pub struct PromptId(pub u64);

/// A command: `{"command": "answer", "seat": 2, "prompt": 17, "answer": {...}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "snake_case")]
pub enum Command {
    /// A seat answers its open prompt.
    Answer {
        /// The answering seat.
        seat: u8,
        /// The prompt answered (`None`: whatever is open for the seat).
        #[serde(default)]
        prompt: Option<PromptId>,
        /// The answer.
        answer: Answer,
    },
    /// R10.7.1, X12: the deadline passed; every unanswered open prompt takes its default.
    Timeout,
    /// R10.6.5: the platform closes a held mini-game pick (X8.3).
    CloseWindow,
    /// R10.10: a seat concedes; its prompts are then answered by their defaults.
    Concede {
        /// The seat.
        seat: u8,
    },
}

/// An answer to a prompt (X12): `{"answer": "card", "owner": 3, "position": 2}`, ...
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = ExorcistAnswer))]
#[serde(tag = "answer", rename_all = "snake_case")]
pub enum Answer {
    /// SelectCard, HijinxSelect, ViolationPeek: the card at `position` (1-based, X0.2) of
    /// `owner`'s row.
    Card {
        /// The row's owner.
        owner: u8,
        /// 1..=row size, from the owner's left end.
        position: u8,
    },
    /// TabletPeek, PrepucePeek, PazuzuPeek: look.
    Peek,
    /// BookPeek, SatanPeek: look at `seat`'s Role tile.
    PeekTile {
        /// Whose tile.
        seat: u8,
    },
    /// Any optional peek: do not look.
    Decline,
    /// RingTarget, SanctionTarget, NameSeeker: a player.
    Player {
        /// The player.
        seat: u8,
    },
    /// TiePick: a position of the mini-game's row (1..=5).
    Pick {
        /// The position.
        position: u8,
    },
}
