//! Cards: ranks, suits, values, suit tiers and card instances (R1.1-R1.5, R10.3.1).

use serde::{Deserialize, Serialize};
use std::fmt;

/// R1.1: the four suits. Ordered here by declaration only; use [`Suit::tier`] for comparisons.
#[cfg_attr(feature = "fuzzing", derive(arbitrary::Arbitrary))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum Suit {
    /// ♠, tier 4.
    Spades,
    /// ♥, tier 3.
    Hearts,
    /// ♣, tier 2.
    Clubs,
    /// ♦, tier 1.
    Diamonds,
}

impl Suit {
    /// All suits from the highest tier down (R1.5, R10.12).
    pub const ALL: [Suit; 4] = [Suit::Spades, Suit::Hearts, Suit::Clubs, Suit::Diamonds];

    /// R1.5: suit tier, ♠ 4 > ♥ 3 > ♣ 2 > ♦ 1.
    pub fn tier(self) -> u8 {
        match self {
            Suit::Spades => 4,
            Suit::Hearts => 3,
            Suit::Clubs => 2,
            Suit::Diamonds => 1,
        }
    }

    /// The suit's symbol, for text output.
    pub fn symbol(self) -> char {
        match self {
            Suit::Spades => '♠',
            Suit::Hearts => '♥',
            Suit::Clubs => '♣',
            Suit::Diamonds => '♦',
        }
    }
}

/// R1.1, R1.3: a rank. `Joker` stands for the Joker (BOO!), which has no suit.
/// Serialised as `"A"`, `"2"` … `"10"`, `"J"`, `"Q"`, `"K"`, `"Joker"`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
pub enum Rank {
    /// Ace: Reprieve (R4.2.3).
    #[serde(rename = "A")]
    Ace,
    /// 2: Greed (R5.5.2).
    #[serde(rename = "2")]
    Two,
    /// 3: Scare (R5.5.3).
    #[serde(rename = "3")]
    Three,
    /// 4: Drain (R5.5.4).
    #[serde(rename = "4")]
    Four,
    /// 5: Salt (R6.5).
    #[serde(rename = "5")]
    Five,
    /// 6: Sight (R5.5.6).
    #[serde(rename = "6")]
    Six,
    /// 7: Cleanse (R5.5.7).
    #[serde(rename = "7")]
    Seven,
    /// 8: Recall (R5.5.8).
    #[serde(rename = "8")]
    Eight,
    /// 9: Possess (R5.5.9).
    #[serde(rename = "9")]
    Nine,
    /// 10: Rekindle (R5.5.10).
    #[serde(rename = "10")]
    Ten,
    /// J: Mirror (R5.6.1).
    #[serde(rename = "J")]
    Jack,
    /// Q: Medium (R5.6.2).
    #[serde(rename = "Q")]
    Queen,
    /// K: Purge (R5.6.3).
    #[serde(rename = "K")]
    King,
    /// Joker: BOO! (R5.6.4).
    #[serde(rename = "Joker")]
    Joker,
}

impl Rank {
    /// The 13 suited ranks in canonical order (R10.12).
    pub const SUITED: [Rank; 13] = [
        Rank::Ace,
        Rank::Two,
        Rank::Three,
        Rank::Four,
        Rank::Five,
        Rank::Six,
        Rank::Seven,
        Rank::Eight,
        Rank::Nine,
        Rank::Ten,
        Rank::Jack,
        Rank::Queen,
        Rank::King,
    ];

    /// R1.4: value for every comparison: A = 1, 2-10 their number, J/Q/K = 10, a Joker ghost 10.
    pub fn value(self) -> u8 {
        match self {
            Rank::Ace => 1,
            Rank::Two => 2,
            Rank::Three => 3,
            Rank::Four => 4,
            Rank::Five => 5,
            Rank::Six => 6,
            Rank::Seven => 7,
            Rank::Eight => 8,
            Rank::Nine => 9,
            Rank::Ten | Rank::Jack | Rank::Queen | Rank::King | Rank::Joker => 10,
        }
    }

    /// R1.2: A and 2-10 are number cards.
    pub fn is_number(self) -> bool {
        self <= Rank::Ten
    }

    /// R1.2: J, Q and K are face cards (Jokers are not).
    pub fn is_face(self) -> bool {
        matches!(self, Rank::Jack | Rank::Queen | Rank::King)
    }

    /// Short text form: `A`, `2` … `10`, `J`, `Q`, `K`, `Joker`.
    pub fn label(self) -> &'static str {
        match self {
            Rank::Ace => "A",
            Rank::Two => "2",
            Rank::Three => "3",
            Rank::Four => "4",
            Rank::Five => "5",
            Rank::Six => "6",
            Rank::Seven => "7",
            Rank::Eight => "8",
            Rank::Nine => "9",
            Rank::Ten => "10",
            Rank::Jack => "J",
            Rank::Queen => "Q",
            Rank::King => "K",
            Rank::Joker => "Joker",
        }
    }
}

/// The face of a card: rank and suit (`suit` is `None` exactly for a Joker).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Face {
    /// The rank.
    pub rank: Rank,
    /// The printed suit; `None` for a Joker (R1.2).
    pub suit: Option<Suit>,
}

impl Face {
    /// A suited card.
    pub fn new(rank: Rank, suit: Suit) -> Self {
        Face { rank, suit: Some(suit) }
    }

    /// A Joker.
    pub fn joker() -> Self {
        Face { rank: Rank::Joker, suit: None }
    }

    /// R1.4: value.
    pub fn value(self) -> u8 {
        self.rank.value()
    }

    /// R1.5: suit tier, 0 for a Joker.
    pub fn tier(self) -> u8 {
        self.suit.map_or(0, Suit::tier)
    }

    /// R10.12: canonical sort key for a hand shown to another player: rank, then suit tier from ♠ down.
    pub fn display_key(self) -> (Rank, u8) {
        (self.rank, 4 - self.tier())
    }
}

impl fmt::Display for Face {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.suit {
            Some(s) => write!(f, "{}{}", self.rank.label(), s.symbol()),
            None => write!(f, "Joker"),
        }
    }
}

/// Index of a card instance in its game's pool (R10.3.1). Internal to the engine and to the
/// stored events: it never appears in a view (views use handles, R10.3.2).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(transparent)]
pub struct CardId(pub u16);

/// R10.3.1: a physical card: its deck number (0-based) and its face. Two `7♥` of different decks
/// are different instances.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CardInstance {
    /// Deck number, 0-based. Jokers are numbered by deck too (two per deck, `joker` 0 or 1).
    pub deck: u8,
    /// For a Joker: which of its deck's two Jokers (0 or 1); 0 for other cards.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub joker: u8,
    /// Rank and suit.
    #[serde(flatten)]
    pub face: Face,
}

fn is_zero(v: &u8) -> bool {
    *v == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn r1_4_values() {
        assert_eq!(Rank::Ace.value(), 1);
        assert_eq!(Rank::Seven.value(), 7);
        for r in [Rank::Ten, Rank::Jack, Rank::Queen, Rank::King, Rank::Joker] {
            assert_eq!(r.value(), 10);
        }
    }

    #[test]
    fn r1_5_suit_tiers_and_joker_tier_zero() {
        assert!(Suit::Spades.tier() > Suit::Hearts.tier());
        assert!(Suit::Hearts.tier() > Suit::Clubs.tier());
        assert!(Suit::Clubs.tier() > Suit::Diamonds.tier());
        assert_eq!(Face::joker().tier(), 0);
    }

    #[test]
    fn r1_2_categories() {
        assert!(Rank::Ace.is_number() && Rank::Ten.is_number());
        assert!(!Rank::Jack.is_number() && Rank::Jack.is_face());
        assert!(!Rank::Joker.is_number() && !Rank::Joker.is_face());
    }

    #[test]
    fn serde_forms() {
        let c = CardInstance { deck: 1, joker: 0, face: Face::new(Rank::Ten, Suit::Hearts) };
        let j = serde_json::to_string(&c).unwrap();
        assert_eq!(j, r#"{"deck":1,"rank":"10","suit":"hearts"}"#);
        let back: CardInstance = serde_json::from_str(&j).unwrap();
        assert_eq!(back, c);
    }
}
