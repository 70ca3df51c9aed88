//! Pool math per circle size (R1.6) and building a pool of card instances (R1.1, R10.3.1).

use crate::model::card::{CardInstance, Face, Rank, Suit};

/// Cards dealt to each player's Candle (R2.3).
pub const CANDLE_SIZE: usize = 27;
/// Cards each player draws into their starting hand (R2.5; classic: see
/// [`crate::model::edition::Rules::starting_hand`]).
pub const STARTING_HAND: usize = 3;
/// The hand limit checked in the Burden (R4.5.1; classic: see
/// [`crate::model::edition::Rules::hand_limit`]).
pub const HAND_LIMIT: usize = 5;
/// The largest table the engine accepts. Gatherings split into circles of at most 8 by default
/// (R9.1.1), but an organiser may run one unbounded table; 64 keeps every count well inside `u8`.
pub const MAX_PLAYERS: usize = 64;

/// R1.6: the pool of a circle of `n` players.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolSize {
    /// D = ceil(n/2) standard 52-card decks.
    pub decks: usize,
    /// J = 2 * ceil(n/2) Jokers.
    pub jokers: usize,
    /// P = 54 * ceil(n/2) cards.
    pub total: usize,
    /// 27 * n cards dealt into Candles.
    pub dealt: usize,
    /// S = P - 27n cards left for The Dark (0 when n is even, 27 when odd).
    pub surplus: usize,
}

/// R1.6: pool size for `n` players (n >= 1).
pub fn pool_size(n: usize) -> PoolSize {
    pool_size_for(crate::model::edition::Rules::CURRENT, n)
}

/// R1.6, A2.2: pool size for `n` players under `rules` (classic: at least 2 decks).
pub fn pool_size_for(rules: crate::model::edition::Rules, n: usize) -> PoolSize {
    let decks = rules.decks(n);
    let total = 54 * decks;
    let dealt = CANDLE_SIZE * n;
    PoolSize { decks, jokers: 2 * decks, total, dealt, surplus: total - dealt }
}

/// R1.1, R1.6, R10.3.1: the card instances of a pool for `n` players, in a fixed canonical
/// order (deck by deck: ♠ A-K, ♥ A-K, ♣ A-K, ♦ A-K, then the deck's two Jokers). A card's
/// position in this list is its [`crate::model::card::CardId`].
pub fn build_pool(n: usize) -> Vec<CardInstance> {
    build_pool_for(crate::model::edition::Rules::CURRENT, n)
}

/// R1.1, A2.1-A2.2: [`build_pool`] under `rules` (classic: 54-card decks, at least 2).
pub fn build_pool_for(rules: crate::model::edition::Rules, n: usize) -> Vec<CardInstance> {
    let size = pool_size_for(rules, n);
    let mut cards = Vec::with_capacity(size.total);
    for deck in 0..size.decks {
        let deck = deck as u8;
        for suit in Suit::ALL {
            for rank in Rank::SUITED {
                cards.push(CardInstance { deck, joker: 0, face: Face::new(rank, suit) });
            }
        }
        for j in 0..2 {
            cards.push(CardInstance { deck, joker: j, face: Face::joker() });
        }
    }
    cards
}

#[cfg(test)]
mod tests {
    use super::*;

    /// R1.6: the table of pool sizes, n = 1..=10.
    #[test]
    fn r1_6_pool_table() {
        let table = [
            (1, 1, 2, 54, 27, 27),
            (2, 1, 2, 54, 54, 0),
            (3, 2, 4, 108, 81, 27),
            (4, 2, 4, 108, 108, 0),
            (5, 3, 6, 162, 135, 27),
            (6, 3, 6, 162, 162, 0),
            (7, 4, 8, 216, 189, 27),
            (8, 4, 8, 216, 216, 0),
            (9, 5, 10, 270, 243, 27),
            (10, 5, 10, 270, 270, 0),
        ];
        for (n, d, j, p, dealt, s) in table {
            let size = pool_size(n);
            assert_eq!(size, PoolSize { decks: d, jokers: j, total: p, dealt, surplus: s }, "n = {n}");
            let pool = build_pool(n);
            assert_eq!(pool.len(), p);
            assert_eq!(pool.iter().filter(|c| c.face.rank == Rank::Joker).count(), j);
        }
    }

    /// A2.1-A2.3: classic pools: 2 players use 108 cards (54 dealt, 54 to The Dark), 3 use 108
    /// (27 to The Dark), 4 use 108 (none left); every deck keeps exactly 2 Jokers.
    #[test]
    fn a2_1_a2_3_classic_pools() {
        let classic = crate::model::edition::Rules::CLASSIC;
        for (n, total, surplus) in [(2, 108, 54), (3, 108, 27), (4, 108, 0), (5, 162, 27), (8, 216, 0)] {
            let size = pool_size_for(classic, n);
            assert_eq!((size.total, size.dealt, size.surplus), (total, 27 * n, surplus), "n = {n}");
            let pool = build_pool_for(classic, n);
            assert_eq!(pool.len(), total);
            assert_eq!(pool.iter().filter(|c| c.face.rank == Rank::Joker).count(), 2 * size.decks);
        }
    }

    /// R1.1, R10.3.1: several decks give several instances of one face, each distinct.
    #[test]
    fn r10_3_1_instances_are_distinct() {
        let pool = build_pool(8);
        let seven_hearts: Vec<_> = pool.iter().filter(|c| c.face == Face::new(Rank::Seven, Suit::Hearts)).collect();
        assert_eq!(seven_hearts.len(), 4);
        let set: std::collections::HashSet<_> = pool.iter().collect();
        assert_eq!(set.len(), pool.len());
    }
}
