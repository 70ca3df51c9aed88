//! Ritual actions and their declarations (R5.1.2), generic over how a card is referred to:
//! [`crate::model::card::CardId`] inside events, [`crate::model::handle::CardRef`] in commands, card views in
//! redacted events.

use serde::{Deserialize, Serialize};

fn none<C>() -> Option<C> {
    None
}

/// R5.6.2: the mode of a Medium, declared with the action.
#[cfg_attr(feature = "fuzzing", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MediumMode {
    /// Look through The Dark and take one non-Joker card (prompt MediumPick).
    Search,
    /// The bottom 2 cards of The Dark go into the Candle, which is then shuffled.
    Depths,
}

/// R5.1.1: a Ritual action with its declaration (R5.1.2). `C` is the card reference type.
/// Seats are seat indices (R0.2).
#[cfg_attr(feature = "fuzzing", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case", deny_unknown_fields)]
pub enum Action<C> {
    /// R5.2: play a number card into a neighbour's Shadow as a ghost.
    Haunt {
        /// The number card.
        card: C,
        /// A neighbour of the actor.
        target: u8,
    },
    /// R5.3: remove a ghost of one's own Shadow with a card that beats it.
    Banish {
        /// A number or face card (never a Joker).
        card: C,
        /// A ghost in the actor's own Shadow.
        ghost: C,
    },
    /// A6 Draft (classic A): a chosen neighbour Burns 2.
    Draft {
        /// The A.
        card: C,
        /// A neighbour.
        target: u8,
    },
    /// A6 Omen (classic 3): reveal the top 3 of one's Candle and play one of them at once
    /// (prompt OmenPlay).
    Omen {
        /// The 3.
        card: C,
    },
    /// R5.5.2 Greed (2): a Lit player draws 2 (A6: classic 5, the actor draws 2).
    Greed {
        /// The 2.
        card: C,
        /// Any Lit player, the actor included.
        target: u8,
    },
    /// R5.5.3 Scare (3): 2 random cards of a neighbour's hand go to The Dark.
    Scare {
        /// The 3.
        card: C,
        /// A neighbour.
        target: u8,
    },
    /// R5.5.4 Drain (4): the top 2 of each neighbour's Candle go onto the actor's Candle.
    Drain {
        /// The 4.
        card: C,
    },
    /// R5.5.6 Sight (6): see a neighbour's hand and take 2 of its cards.
    Sight {
        /// The 6.
        card: C,
        /// A neighbour.
        target: u8,
    },
    /// R5.5.7 Cleanse (7): remove one ghost of one's own Shadow, no value check.
    Cleanse {
        /// The 7.
        card: C,
        /// A ghost in the actor's own Shadow.
        ghost: C,
        /// R8.4.1: The Exorcist's second ghost (required when its Shadow holds two or more).
        #[serde(default = "none", skip_serializing_if = "Option::is_none")]
        second: Option<C>,
    },
    /// R5.5.8 Recall (8): a ghost of any Lit player's Shadow goes into the actor's hand.
    Recall {
        /// The 8.
        card: C,
        /// The ghost's owner (any Lit player, the actor included).
        owner: u8,
        /// The ghost.
        ghost: C,
    },
    /// R5.5.9 Possess (9): move a ghost of one's own Shadow to a neighbour's Shadow.
    Possess {
        /// The 9.
        card: C,
        /// A ghost in the actor's own Shadow.
        ghost: C,
        /// A neighbour.
        destination: u8,
    },
    /// R5.5.10 Rekindle (10): take the top 3 of The Dark into the Candle, then shuffle it.
    Rekindle {
        /// The 10.
        card: C,
    },
    /// R5.6.1 Mirror (J): exchange Shadows with a neighbour.
    Mirror {
        /// The J.
        card: C,
        /// A neighbour.
        target: u8,
    },
    /// R5.6.2 Medium (Q): Search or Depths.
    Medium {
        /// The Q.
        card: C,
        /// The declared mode.
        mode: MediumMode,
    },
    /// R5.6.3 Purge (K): remove every ghost of one's own Shadow.
    Purge {
        /// The K.
        card: C,
    },
    /// R5.6.4 BOO! (Joker): every other Lit player turns up Candle cards until a number card.
    Boo {
        /// The Joker.
        card: C,
    },
    /// R8.2.1 The Cryptkeeper: build a Wall with any hand card (face down in the Resolving area).
    BuildWall {
        /// The card that becomes the Wall.
        card: C,
    },
    /// R8.5.1 The Fatalist: discard a card to give a ghost another effective suit.
    AlterSuit {
        /// The discarded card (the action card).
        card: C,
        /// The ghost's owner (any Lit player).
        owner: u8,
        /// The ghost (never a Wall or a Joker ghost).
        ghost: C,
        /// The new suit (different from the current effective suit).
        suit: crate::model::card::Suit,
    },
    /// R8.33.1 The Usurer: take 2 random cards of a neighbour's hand; it draws 1. Plays no card.
    Usurp {
        /// A neighbour.
        target: u8,
    },
    /// R8.37.1 The Watcher's Sight (6): no declared neighbour; sees each distinct neighbour's hand.
    WatcherSight {
        /// The 6.
        card: C,
    },
}

impl<C> Action<C> {
    /// The card the action plays; `None` for Usurp, which plays none (R8.33.2).
    pub fn card(&self) -> Option<&C> {
        Some(match self {
            Action::Haunt { card, .. }
            | Action::Banish { card, .. }
            | Action::Draft { card, .. }
            | Action::Omen { card }
            | Action::Greed { card, .. }
            | Action::Scare { card, .. }
            | Action::Drain { card }
            | Action::Sight { card, .. }
            | Action::Cleanse { card, .. }
            | Action::Recall { card, .. }
            | Action::Possess { card, .. }
            | Action::Rekindle { card }
            | Action::Mirror { card, .. }
            | Action::Medium { card, .. }
            | Action::Purge { card }
            | Action::Boo { card }
            | Action::BuildWall { card }
            | Action::AlterSuit { card, .. }
            | Action::WatcherSight { card } => card,
            Action::Usurp { .. } => return None,
        })
    }

    /// R6.3.1, R6.3.3: true when the action puts a face-up card into the Resolving area (W1
    /// applies): every action but Usurp and a Wall being built.
    pub fn face_up_card(&self) -> bool {
        !matches!(self, Action::Usurp { .. } | Action::BuildWall { .. })
    }

    /// The action's name as used in events and prompts (`haunt`, `banish`, …).
    pub fn name(&self) -> &'static str {
        match self {
            Action::Haunt { .. } => "haunt",
            Action::Banish { .. } => "banish",
            Action::Draft { .. } => "draft",
            Action::Omen { .. } => "omen",
            Action::Greed { .. } => "greed",
            Action::Scare { .. } => "scare",
            Action::Drain { .. } => "drain",
            Action::Sight { .. } => "sight",
            Action::Cleanse { .. } => "cleanse",
            Action::Recall { .. } => "recall",
            Action::Possess { .. } => "possess",
            Action::Rekindle { .. } => "rekindle",
            Action::Mirror { .. } => "mirror",
            Action::Medium { .. } => "medium",
            Action::Purge { .. } => "purge",
            Action::Boo { .. } => "boo",
            Action::BuildWall { .. } => "build_wall",
            Action::AlterSuit { .. } => "alter_suit",
            Action::Usurp { .. } => "usurp",
            Action::WatcherSight { .. } => "watcher_sight",
        }
    }

    /// Maps every card reference of the declaration, keeping seats and modes.
    pub fn map_cards<D>(&self, mut f: impl FnMut(&C) -> D) -> Action<D> {
        match self {
            Action::Haunt { card, target } => Action::Haunt { card: f(card), target: *target },
            Action::Banish { card, ghost } => Action::Banish { card: f(card), ghost: f(ghost) },
            Action::Draft { card, target } => Action::Draft { card: f(card), target: *target },
            Action::Omen { card } => Action::Omen { card: f(card) },
            Action::Greed { card, target } => Action::Greed { card: f(card), target: *target },
            Action::Scare { card, target } => Action::Scare { card: f(card), target: *target },
            Action::Drain { card } => Action::Drain { card: f(card) },
            Action::Sight { card, target } => Action::Sight { card: f(card), target: *target },
            Action::Cleanse { card, ghost, second } => {
                Action::Cleanse { card: f(card), ghost: f(ghost), second: second.as_ref().map(&mut f) }
            }
            Action::Recall { card, owner, ghost } => Action::Recall { card: f(card), owner: *owner, ghost: f(ghost) },
            Action::Possess { card, ghost, destination } => {
                Action::Possess { card: f(card), ghost: f(ghost), destination: *destination }
            }
            Action::Rekindle { card } => Action::Rekindle { card: f(card) },
            Action::Mirror { card, target } => Action::Mirror { card: f(card), target: *target },
            Action::Medium { card, mode } => Action::Medium { card: f(card), mode: *mode },
            Action::Purge { card } => Action::Purge { card: f(card) },
            Action::Boo { card } => Action::Boo { card: f(card) },
            Action::BuildWall { card } => Action::BuildWall { card: f(card) },
            Action::AlterSuit { card, owner, ghost, suit } => {
                Action::AlterSuit { card: f(card), owner: *owner, ghost: f(ghost), suit: *suit }
            }
            Action::Usurp { target } => Action::Usurp { target: *target },
            Action::WatcherSight { card } => Action::WatcherSight { card: f(card) },
        }
    }

    /// Fallible variant of [`Action::map_cards`].
    pub fn try_map_cards<D, E>(&self, mut f: impl FnMut(&C) -> Result<D, E>) -> Result<Action<D>, E> {
        Ok(match self {
            Action::Haunt { card, target } => Action::Haunt { card: f(card)?, target: *target },
            Action::Banish { card, ghost } => Action::Banish { card: f(card)?, ghost: f(ghost)? },
            Action::Draft { card, target } => Action::Draft { card: f(card)?, target: *target },
            Action::Omen { card } => Action::Omen { card: f(card)? },
            Action::Greed { card, target } => Action::Greed { card: f(card)?, target: *target },
            Action::Scare { card, target } => Action::Scare { card: f(card)?, target: *target },
            Action::Drain { card } => Action::Drain { card: f(card)? },
            Action::Sight { card, target } => Action::Sight { card: f(card)?, target: *target },
            Action::Cleanse { card, ghost, second } => Action::Cleanse {
                card: f(card)?,
                ghost: f(ghost)?,
                second: match second {
                    Some(g) => Some(f(g)?),
                    None => None,
                },
            },
            Action::Recall { card, owner, ghost } => Action::Recall { card: f(card)?, owner: *owner, ghost: f(ghost)? },
            Action::Possess { card, ghost, destination } => {
                Action::Possess { card: f(card)?, ghost: f(ghost)?, destination: *destination }
            }
            Action::Rekindle { card } => Action::Rekindle { card: f(card)? },
            Action::Mirror { card, target } => Action::Mirror { card: f(card)?, target: *target },
            Action::Medium { card, mode } => Action::Medium { card: f(card)?, mode: *mode },
            Action::Purge { card } => Action::Purge { card: f(card)? },
            Action::Boo { card } => Action::Boo { card: f(card)? },
            Action::BuildWall { card } => Action::BuildWall { card: f(card)? },
            Action::AlterSuit { card, owner, ghost, suit } => {
                Action::AlterSuit { card: f(card)?, owner: *owner, ghost: f(ghost)?, suit: *suit }
            }
            Action::Usurp { target } => Action::Usurp { target: *target },
            Action::WatcherSight { card } => Action::WatcherSight { card: f(card)? },
        })
    }
}
