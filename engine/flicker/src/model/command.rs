//! Commands: what players and the server send to the decider (R10.1.2).

use crate::model::action::Action;
use crate::model::event::TurnOrder;
use crate::model::handle::{CardRef, PromptId};
use serde::{Deserialize, Serialize};

/// An answer to an open prompt (R10.5). Cards are named by the handles the seat sees.
#[cfg_attr(feature = "fuzzing", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "answer", rename_all = "snake_case", deny_unknown_fields)]
pub enum Answer {
    /// TurnOrderChoice (R2.6).
    TurnOrder {
        /// First or Last.
        choice: TurnOrder,
    },
    /// HauntingChoice: Reprieve with an Ace (R4.2.3).
    Reprieve {
        /// The Ace in hand.
        ace: CardRef,
    },
    /// HauntingChoice: Endure (R4.2.4).
    Endure,
    /// HauntingChoice: Panic against a ghost of one's own Shadow (R4.2.5).
    Panic {
        /// The ghost.
        ghost: CardRef,
    },
    /// Ritual: perform an action with its declaration (R5.1.2).
    Act {
        /// The declaration.
        action: Action<CardRef>,
    },
    /// Ritual: end the Ritual (Abstain if no action was declared, R5.8).
    EndRitual,
    /// Salt / BooSalt: decline (R6.5.4); also withdraws at a confirm (R10.6.6).
    Pass,
    /// Salt, BooSalt or CounterSalt: play this 5 (R6.5.5).
    Salt {
        /// A 5 in hand.
        card: CardRef,
    },
    /// CounterSalt: yield (R6.5.5).
    Yield,
    /// SightPick (exactly min(2, hand) cards), MediumPick (exactly 1) or BurdenDiscard (exactly
    /// hand − limit cards, in the order to discard).
    Pick {
        /// The chosen cards.
        cards: Vec<CardRef>,
    },
    /// ChooseClass (R2.7.3): one class of the offer.
    ChooseClass {
        /// The class.
        class: crate::model::classes::ClassId,
    },
    /// Ritual: use a free class ability (R5.9).
    Ability {
        /// The ability and its declaration.
        ability: crate::model::classes::Ability<CardRef>,
    },
    /// GrimoireReject, HexReflect, MimeRedirect, UnseenCancel, WallBlock: react with this card;
    /// ShadowCancel: react with no card (Burn 1) (R6.3, R6.4).
    React {
        /// The page, hand card or Wall (none for The Shadow).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        card: Option<CardRef>,
    },
    /// Decline an optional class prompt (reactions, MartyrDraw, TraderSwap).
    Decline,
    /// MartyrDraw (R8.15.1): draw 1.
    Draw,
    /// TraderSwap (R8.31.1): give one own hand card for one of the neighbour's.
    Trade {
        /// Own hand card.
        give: CardRef,
        /// The neighbour's card.
        take: CardRef,
    },
    /// PlagueSpread (R8.20.3): the recipient.
    Spread {
        /// One of the eligible players.
        to: u8,
    },
    /// DeathSplit (R7.5.3): which ghosts go to the left and to the right neighbour.
    Split {
        /// Ghosts for the left neighbour.
        left: Vec<CardRef>,
        /// Ghosts for the right neighbour.
        right: Vec<CardRef>,
    },
}

/// A command to the decider.
#[cfg_attr(feature = "fuzzing", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "snake_case", deny_unknown_fields)]
pub enum Command {
    /// A seat answers its open prompt. `prompt`, when given, must be the id of that prompt.
    Answer {
        /// The answering seat.
        seat: u8,
        /// The prompt answered (optional; a stale id is refused).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        prompt: Option<PromptId>,
        /// The answer.
        answer: Answer,
    },
    /// R10.10.1: a seated Lit player concedes.
    Concede {
        /// The conceding seat.
        seat: u8,
    },
    /// R10.7.1 (server): the deadline of the open decision point passed; its defaults apply.
    Timeout,
    /// R10.6.5 (server): close the open simultaneous window now (unanswered players Pass).
    CloseWindow,
}
