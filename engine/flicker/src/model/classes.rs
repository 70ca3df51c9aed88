//! The class data types (RULES.md section 8): the roster's ids, and the class-specific parts of
//! commands, events and state (reactions, free abilities, trigger effects, pending death
//! triggers). What the classes do is in [`crate::rules::classes`].

use crate::model::card::CardId;
use serde::{Deserialize, Serialize};

/// R8.0.1: the 38 classes of the current roster, in the order of the roster table (R8.0.2).
/// Serialised in snake_case (`clown`, `grimoire_of_rejection`, `voodoo_doll`, …). The Shadow
/// class is `ShadowClass` here (serialised `shadow`) to keep it apart from the zone (R8.26).
#[cfg_attr(feature = "fuzzing", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClassId {
    /// R8.1.
    Clown,
    /// R8.2.
    Cryptkeeper,
    /// R8.3.
    Doomreader,
    /// R8.4.
    Exorcist,
    /// R8.5.
    Fatalist,
    /// R8.6.
    FuneralBell,
    /// R8.7.
    Gatekeeper,
    /// R8.8.
    Gravedigger,
    /// R8.9.
    GrimoireOfRejection,
    /// R8.10.
    Hex,
    /// R8.11.
    Hoarder,
    /// R8.12.
    Judge,
    /// R8.13.
    Leech,
    /// R8.14.
    Lich,
    /// R8.15.
    Martyr,
    /// R8.16.
    Mime,
    /// R8.17.
    Mimic,
    /// R8.18.
    Occultist,
    /// R8.19.
    Phantom,
    /// R8.20.
    Plague,
    /// R8.21.
    Priest,
    /// R8.22.
    Pyromaniac,
    /// R8.23.
    Sadist,
    /// R8.24.
    Sealbinder,
    /// R8.25.
    Seer,
    /// R8.26 (the class, not the zone).
    #[serde(rename = "shadow")]
    ShadowClass,
    /// R8.27.
    Silence,
    /// R8.28.
    Skeptic,
    /// R8.29.
    Sufferer,
    /// R8.30.
    Survivor,
    /// R8.31.
    Trader,
    /// R8.32.
    Unseen,
    /// R8.33.
    Usurer,
    /// R8.34.
    VoodooDoll,
    /// R8.35.
    Vulture,
    /// R8.36.
    Warlock,
    /// R8.37.
    Watcher,
    /// R8.38.
    Witness,
    /// A9 row 8 (classic only): ghosts it Haunted cannot be moved by Possess or taken by Vanish.
    Binder,
    /// A9 row 22 (classic only): as The Mime (R8.16, R6.7).
    Jester,
    /// A9 row 23 (classic only): builds Walls that absorb Haunts on their own.
    Architect,
}

impl ClassId {
    /// R8.0.1: the whole roster, in roster-table order.
    pub const ALL: [ClassId; 38] = [
        ClassId::Clown,
        ClassId::Cryptkeeper,
        ClassId::Doomreader,
        ClassId::Exorcist,
        ClassId::Fatalist,
        ClassId::FuneralBell,
        ClassId::Gatekeeper,
        ClassId::Gravedigger,
        ClassId::GrimoireOfRejection,
        ClassId::Hex,
        ClassId::Hoarder,
        ClassId::Judge,
        ClassId::Leech,
        ClassId::Lich,
        ClassId::Martyr,
        ClassId::Mime,
        ClassId::Mimic,
        ClassId::Occultist,
        ClassId::Phantom,
        ClassId::Plague,
        ClassId::Priest,
        ClassId::Pyromaniac,
        ClassId::Sadist,
        ClassId::Sealbinder,
        ClassId::Seer,
        ClassId::ShadowClass,
        ClassId::Silence,
        ClassId::Skeptic,
        ClassId::Sufferer,
        ClassId::Survivor,
        ClassId::Trader,
        ClassId::Unseen,
        ClassId::Usurer,
        ClassId::VoodooDoll,
        ClassId::Vulture,
        ClassId::Warlock,
        ClassId::Watcher,
        ClassId::Witness,
    ];

    /// A9: the classic roster, in its table's order (25 classes, all in every pool, A2.6).
    pub const CLASSIC: [ClassId; 25] = [
        ClassId::Skeptic,
        ClassId::Priest,
        ClassId::ShadowClass,
        ClassId::Exorcist,
        ClassId::Survivor,
        ClassId::Pyromaniac,
        ClassId::Sadist,
        ClassId::Binder,
        ClassId::Warlock,
        ClassId::Vulture,
        ClassId::Occultist,
        ClassId::Trader,
        ClassId::Seer,
        ClassId::Hoarder,
        ClassId::Mimic,
        ClassId::Gravedigger,
        ClassId::Fatalist,
        ClassId::Leech,
        ClassId::Martyr,
        ClassId::Lich,
        ClassId::Judge,
        ClassId::Jester,
        ClassId::Architect,
        ClassId::Clown,
        ClassId::Phantom,
    ];

    /// R2.8: the smallest circle whose pool holds this class (2, 3 or 4).
    pub fn min_players(self) -> usize {
        match self {
            ClassId::Occultist | ClassId::Witness | ClassId::FuneralBell => 4,
            ClassId::Mime
            | ClassId::Watcher
            | ClassId::Plague
            | ClassId::Vulture
            | ClassId::Lich
            | ClassId::Gravedigger => 3,
            _ => 2,
        }
    }

    /// The snake_case name used in JSON (`voodoo_doll`).
    pub fn name(self) -> String {
        serde_json::to_value(self).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
    }
}

/// A class reaction (event `reacted`). `C` is the card reference type.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "reaction", rename_all = "snake_case")]
pub enum Reaction<C> {
    /// R6.3.2: a page of the same rank cancels the action; card and page go to The Dark.
    GrimoireReject {
        /// The revealed page.
        page: C,
    },
    /// R6.4.1, R8.10.2: a hand card of the Haunt card's suit turns the ghost back on its haunter.
    HexReflect {
        /// The revealed hand card (spent).
        card: C,
    },
    /// R6.4.2, R6.7: a discard redirects the Haunt to The Mime's other neighbour.
    MimeRedirect {
        /// The discarded card.
        card: C,
    },
    /// R6.4.3, R8.32.1: a discard cancels the Haunt.
    UnseenCancel {
        /// The discarded card.
        card: C,
    },
    /// R6.4.4, R8.26.1: Burn 1 cancels the Haunt.
    ShadowCancel {
        /// The card Burned.
        burned: C,
    },
    /// R6.4.5, R8.2.2: a Wall of its own Shadow, discarded face up, cancels the Haunt.
    WallBlock {
        /// The Wall.
        wall: C,
    },
}

impl<C> Reaction<C> {
    /// Maps the card reference.
    pub fn map_cards<D>(&self, f: impl FnOnce(&C) -> D) -> Reaction<D> {
        match self {
            Reaction::GrimoireReject { page } => Reaction::GrimoireReject { page: f(page) },
            Reaction::HexReflect { card } => Reaction::HexReflect { card: f(card) },
            Reaction::MimeRedirect { card } => Reaction::MimeRedirect { card: f(card) },
            Reaction::UnseenCancel { card } => Reaction::UnseenCancel { card: f(card) },
            Reaction::ShadowCancel { burned } => Reaction::ShadowCancel { burned: f(burned) },
            Reaction::WallBlock { wall } => Reaction::WallBlock { wall: f(wall) },
        }
    }
}

/// R5.9.5: a free ability with its declaration. `C` is the card reference type.
#[cfg_attr(feature = "fuzzing", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "ability", rename_all = "snake_case", deny_unknown_fields)]
pub enum Ability<C> {
    /// R8.3.1: discard a card; a ghost of one's own Shadow is removed (never Siphoned).
    Doomreader {
        /// The discarded card (not a number card against a live Clown ghost, R8.3.2).
        card: C,
        /// The ghost.
        ghost: C,
    },
    /// R8.9.1: a hand card goes face down into the pages (at most 3).
    GrimoirePage {
        /// The card.
        card: C,
    },
    /// R8.17.1 (once per game): exchange Candles with a neighbour.
    Mimic {
        /// The neighbour.
        target: u8,
    },
    /// R8.22.1: discard a red card; a neighbour Burns 2.
    Pyromaniac {
        /// A ♥ or ♦ card.
        card: C,
        /// The neighbour.
        target: u8,
    },
    /// R8.25.1: secretly see the top card of a Lit player's Candle (one's own included).
    Seer {
        /// The Candle's owner.
        target: u8,
    },
    /// R8.31.1: discard a card; see a neighbour's hand and may swap one card (prompt TraderSwap).
    Trader {
        /// The discarded card.
        card: C,
        /// The neighbour.
        target: u8,
    },
}

impl<C> Ability<C> {
    /// The card the ability pays with, if any.
    pub fn card(&self) -> Option<&C> {
        match self {
            Ability::Doomreader { card, .. }
            | Ability::GrimoirePage { card }
            | Ability::Pyromaniac { card, .. }
            | Ability::Trader { card, .. } => Some(card),
            Ability::Mimic { .. } | Ability::Seer { .. } => None,
        }
    }

    /// The class the ability belongs to.
    pub fn class(&self) -> ClassId {
        match self {
            Ability::Doomreader { .. } => ClassId::Doomreader,
            Ability::GrimoirePage { .. } => ClassId::GrimoireOfRejection,
            Ability::Mimic { .. } => ClassId::Mimic,
            Ability::Pyromaniac { .. } => ClassId::Pyromaniac,
            Ability::Seer { .. } => ClassId::Seer,
            Ability::Trader { .. } => ClassId::Trader,
        }
    }

    /// Maps every card reference, keeping seats.
    pub fn map_cards<D>(&self, mut f: impl FnMut(&C) -> D) -> Ability<D> {
        match self {
            Ability::Doomreader { card, ghost } => Ability::Doomreader { card: f(card), ghost: f(ghost) },
            Ability::GrimoirePage { card } => Ability::GrimoirePage { card: f(card) },
            Ability::Mimic { target } => Ability::Mimic { target: *target },
            Ability::Pyromaniac { card, target } => Ability::Pyromaniac { card: f(card), target: *target },
            Ability::Seer { target } => Ability::Seer { target: *target },
            Ability::Trader { card, target } => Ability::Trader { card: f(card), target: *target },
        }
    }
}

/// What a free ability did.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "effect", rename_all = "snake_case")]
pub enum AbilityEffect {
    /// R8.3.1: the ghost left the Shadow: to The Dark (below the discard) or spread (R8.20.3).
    Doomread {
        /// The ghost.
        ghost: CardId,
        /// The spread's recipient, if it spread.
        spread: Option<u8>,
    },
    /// R8.9.1: the card became a page.
    PageAdded,
    /// R8.17.1: the two Candles were exchanged, each keeping its order.
    CandlesSwapped {
        /// The neighbour.
        target: u8,
    },
    /// R8.22.1: the neighbour Burned these cards.
    Burned {
        /// The neighbour.
        target: u8,
        /// Cards Burned, in order.
        burned: Vec<CardId>,
    },
    /// R8.25.1: the top card of the Candle (shown to The Seer only); `None` if it was empty.
    Peeked {
        /// The Candle's owner.
        target: u8,
        /// The card.
        card: Option<CardId>,
    },
    /// R8.31.1: The Trader gave its card and took the neighbour's, or declined (`None`).
    Traded {
        /// The neighbour.
        target: u8,
        /// (card given, card taken).
        swap: Option<(CardId, CardId)>,
    },
}

/// What a class trigger did (event `triggered`).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "trigger", rename_all = "snake_case")]
pub enum TriggerEffect {
    /// R8.34.1: each haunter Burned these cards (one per reflecting ghost), in R6.9.3 order.
    Voodoo {
        /// (haunter, cards Burned).
        burns: Vec<(u8, Vec<CardId>)>,
    },
    /// R8.15.1: The Martyr drew this card.
    MartyrDraw {
        /// The card drawn.
        card: CardId,
    },
    /// R8.35.1: The Vulture moved these cards from the top of The Dark to the bottom of its Candle.
    Vulture {
        /// The eliminated neighbour.
        dead: u8,
        /// The cards, top of The Dark first.
        taken: Vec<CardId>,
        /// A9 row 10 (classic): the whole Candle after the shuffle, top first.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        candle: Option<Vec<CardId>>,
    },
    /// R8.6.1: every other Lit player Burned 1, clockwise from the dead player's former left.
    FuneralBell {
        /// The eliminated player.
        dead: u8,
        /// (player, the card Burned; empty when their Candle was empty).
        burns: Vec<(u8, Vec<CardId>)>,
    },
}

/// A death trigger waiting to resolve (R7.4 step 7, R6.9.3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    /// The trigger's owner.
    pub owner: u8,
    /// The eliminated player.
    pub dead: u8,
    /// Which class.
    pub class: ClassId,
}
