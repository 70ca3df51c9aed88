//! X1: the components. 43 cards of 16 kinds (X1.2, X1.3), 8 Role tiles (X1.1), the setup chart
//! (X2.2) and the tie mini-game's cards (X8.2).

use serde::{Deserialize, Serialize};

/// X1.3: the 16 card kinds, named as the seed names them (serialised in snake_case).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = ExorcistCardKind))]
#[serde(rename_all = "snake_case")]
pub enum CardKind {
    /// H1, X9.1.
    CleansingWhip,
    /// H2, X9.2.
    ClothOfTranscendence,
    /// H3, X9.3.
    CollectionPlate,
    /// H4, X9.4.
    BlessedPrepuce,
    /// H5, X9.5.
    TabletChunk,
    /// C1, X9.6.
    BookOfTheMostlyDead,
    /// C2, X9.7.
    ThatOneRing,
    /// C3, X9.8.
    PazuzuBust,
    /// B1, X9.9.
    Piety,
    /// B2, X9.10.
    DivineSanction,
    /// M1, X9.11.
    CruelCowardice,
    /// M2, X9.12.
    HellishHijinx,
    /// M3, X9.13.
    SatanicSpew,
    /// M4, X9.14.
    VileViolation,
    /// M5, X9.15.
    WickedWhiff,
    /// M6, X9.16.
    IsThatYouSatan,
}

/// X1.2: the four card types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CardType {
    /// Holy Artifact: the Innocents' goal (X4.2).
    Holy,
    /// Cursed Artifact: the Possessed's goal (X4.2).
    Cursed,
    /// Blessing: points (X9.9, X9.10).
    Blessing,
    /// Mischief (X9.11-X9.16).
    Mischief,
}

/// X1.3: the box, kind and copies, in the order card ids are given (ids 0..43).
pub const BOX: [(CardKind, u8); 16] = [
    (CardKind::CleansingWhip, 2),
    (CardKind::ClothOfTranscendence, 2),
    (CardKind::CollectionPlate, 1),
    (CardKind::BlessedPrepuce, 1),
    (CardKind::TabletChunk, 3),
    (CardKind::BookOfTheMostlyDead, 1),
    (CardKind::ThatOneRing, 1),
    (CardKind::PazuzuBust, 2),
    (CardKind::Piety, 3),
    (CardKind::DivineSanction, 3),
    (CardKind::CruelCowardice, 4),
    (CardKind::HellishHijinx, 4),
    (CardKind::SatanicSpew, 4),
    (CardKind::VileViolation, 4),
    (CardKind::WickedWhiff, 4),
    (CardKind::IsThatYouSatan, 4),
];

/// X1.2: the number of cards in the box.
pub const BOX_SIZE: usize = 43;

impl CardKind {
    /// Every kind, in box order.
    pub const ALL: [CardKind; 16] = {
        let mut out = [CardKind::CleansingWhip; 16];
        let mut i = 0;
        while i < 16 {
            out[i] = BOX[i].0;
            i += 1;
        }
        out
    };

    /// X1.3: the kind's type.
    pub fn card_type(self) -> CardType {
        use CardKind::*;
        match self {
            CleansingWhip | ClothOfTranscendence | CollectionPlate | BlessedPrepuce | TabletChunk => CardType::Holy,
            BookOfTheMostlyDead | ThatOneRing | PazuzuBust => CardType::Cursed,
            Piety | DivineSanction => CardType::Blessing,
            _ => CardType::Mischief,
        }
    }

    /// The serialised (snake_case) name, as views show it.
    pub fn name(self) -> &'static str {
        use CardKind::*;
        match self {
            CleansingWhip => "cleansing_whip",
            ClothOfTranscendence => "cloth_of_transcendence",
            CollectionPlate => "collection_plate",
            BlessedPrepuce => "blessed_prepuce",
            TabletChunk => "tablet_chunk",
            BookOfTheMostlyDead => "book_of_the_mostly_dead",
            ThatOneRing => "that_one_ring",
            PazuzuBust => "pazuzu_bust",
            Piety => "piety",
            DivineSanction => "divine_sanction",
            CruelCowardice => "cruel_cowardice",
            HellishHijinx => "hellish_hijinx",
            SatanicSpew => "satanic_spew",
            VileViolation => "vile_violation",
            WickedWhiff => "wicked_whiff",
            IsThatYouSatan => "is_that_you_satan",
        }
    }
}

/// One physical card of the box (0..43, X1.2); its kind is fixed by [`BOX`]. Ids never appear
/// in what a player or spectator is shown (a face-down card is only a position in a row).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CardId(pub u8);

impl CardId {
    /// X1.3: the card's kind.
    pub fn kind(self) -> CardKind {
        let mut i = self.0 as usize;
        for (k, n) in BOX {
            if i < n as usize {
                return k;
            }
            i -= n as usize;
        }
        panic!("card id {} outside the box", self.0)
    }

    /// Every card of the box.
    pub fn all() -> impl Iterator<Item = CardId> {
        (0..BOX_SIZE as u8).map(CardId)
    }
}

/// X4.1: a team, as a Role tile shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = ExorcistRole))]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Wins the round with every Holy Artifact revealed (X4.2).
    Innocent,
    /// Wins the round with every Cursed Artifact revealed (X4.2).
    Possessed,
}

impl Role {
    /// The serialised name.
    pub fn name(self) -> &'static str {
        match self {
            Role::Innocent => "innocent",
            Role::Possessed => "possessed",
        }
    }
}

/// X1.1: one of the 8 Role tiles: ids 0-4 are Innocent, 5-7 Possessed. Never shown to a viewer
/// (a tile id would name its Role).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct TileId(pub u8);

impl TileId {
    /// X1.1: the tile's Role.
    pub fn role(self) -> Role {
        if self.0 < 5 { Role::Innocent } else { Role::Possessed }
    }
}

/// X2.2: one column of the setup chart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chart {
    /// Innocent tiles.
    pub innocent: u8,
    /// Possessed tiles.
    pub possessed: u8,
    /// Holy Artifacts in the deck.
    pub holy: u8,
    /// Cursed Artifacts in the deck (XA.1, recon).
    pub cursed: u8,
    /// Mischiefs and Blessings in the deck.
    pub mixed: u8,
}

/// X2.2: the chart's column for `players` (4..=8), `None` outside X2.1's range.
pub fn chart(players: u8) -> Option<Chart> {
    let c = |innocent, possessed, holy, cursed, mixed| Chart { innocent, possessed, holy, cursed, mixed };
    Some(match players {
        4 => c(3, 1, 4, 2, 10),
        5 => c(3, 2, 5, 2, 13),
        6 => c(4, 2, 6, 2, 16),
        7 => c(4, 3, 7, 3, 18),
        8 => c(5, 3, 8, 3, 21),
        _ => return None,
    })
}

/// X8.2: a card of the tie mini-game's row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = ExorcistTieCard))]
#[serde(rename_all = "snake_case")]
pub enum TieCard {
    /// The one Blessing: its picker may win (X8.5).
    Blessing,
    /// One of the 4 Mischiefs.
    Mischief,
}
