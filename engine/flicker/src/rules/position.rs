//! Practice positions (R10.13). Two formats:
//!
//! - the **full position** ([`Position`], [`format`]): every zone, classes, the turn and its
//!   step, one line of text like FEN (`current/1 | turn: … | seat 0: … | dark: …`) or JSON;
//!   exported by `crate::projection::position` (`position_of`, `position_for` per viewer), checked by [`check`] /
//!   [`validate`], imported by [`create_from_full`]. Grammar and examples: `docs/positions.md`.
//! - the **deal-only** format ([`DealPosition`], below), which names some cards of the deal;
//!   cards not named are dealt at random, as usual.
//!
//! [`create_from_position`] takes either (a full position starts with its ruleset, `current/1`).
//!
//! Deal-only format: one group per seat, separated by `|`; in each, the starting hand (up to 3 cards: the
//! top 3 of the dealt Candle, drawn in order) then optionally `/` and the cards lying on top of
//! the Candle after the draw, top first. A last group `dark: …` names the top cards of The Dark,
//! top first (only for an odd player count, whose surplus forms The Dark). Cards are written
//! `7H`, `10S`, `QC`, `AD`, `Joker`.
//!
//! ```text
//! 7H 8D KS / 2C 3C | 5H 5D 9S | AS 2S 3S / Joker | dark: 4H
//! ```

use crate::model::card::{CardId, CardInstance, Face, Rank, Suit};
use crate::model::error::{ErrorKind, RuleError};
use crate::model::event::Event;
use crate::model::pool::{CANDLE_SIZE, build_pool_for, pool_size_for};
use crate::model::settings::Settings;
use crate::rules::decide::create_dealt;
use rand::Rng;
use rand::seq::SliceRandom;

pub mod equal;

pub mod format;
pub mod import;

pub use equal::{normalised, same_up_to_handles};

pub use format::{
    CardPos, GhostPos, Offer, Position, PositionError, SeatPos, SelectionPos, Slot, StepPos, TriggerPos, TurnPos,
    WallPos, Zone, is_full, parse_viewer,
};
pub use import::{Setup, Summary, check, create_from_full, validate, validate_str};

/// Parses one card: `7H`, `10S`, `QC`, `AD`, `Joker` (case-insensitive).
pub fn parse_card(s: &str) -> Result<Face, String> {
    let t = s.trim().to_ascii_uppercase();
    if t == "JOKER" {
        return Ok(Face::joker());
    }
    if t.len() < 2 {
        return Err(format!("'{s}' is not a card (write 7H, 10S, QC, AD or Joker)"));
    }
    // The suit is the last character, which need not be one byte long (`,𐀀`).
    let suit_len = t.chars().next_back().map_or(0, char::len_utf8);
    let (r, su) = t.split_at(t.len() - suit_len);
    let rank = match r {
        "A" => Rank::Ace,
        "2" => Rank::Two,
        "3" => Rank::Three,
        "4" => Rank::Four,
        "5" => Rank::Five,
        "6" => Rank::Six,
        "7" => Rank::Seven,
        "8" => Rank::Eight,
        "9" => Rank::Nine,
        "10" => Rank::Ten,
        "J" => Rank::Jack,
        "Q" => Rank::Queen,
        "K" => Rank::King,
        _ => return Err(format!("'{s}' has no rank (A, 2-10, J, Q, K)")),
    };
    let suit = match su {
        "S" => Suit::Spades,
        "H" => Suit::Hearts,
        "C" => Suit::Clubs,
        "D" => Suit::Diamonds,
        _ => return Err(format!("'{s}' has no suit (S, H, C, D)")),
    };
    Ok(Face::new(rank, suit))
}

/// A parsed deal-only practice position.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DealPosition {
    /// Per seat: the starting hand (up to 3) and the Candle's top after the draw (top first).
    pub seats: Vec<(Vec<Face>, Vec<Face>)>,
    /// The top of The Dark, top first.
    pub dark: Vec<Face>,
}

impl DealPosition {
    /// Parses the deal-only position string (see the module docs).
    pub fn parse(s: &str) -> Result<DealPosition, String> {
        let mut p = DealPosition::default();
        let cards = |txt: &str| txt.split_whitespace().map(parse_card).collect::<Result<Vec<_>, _>>();
        for group in s.split('|') {
            let g = group.trim();
            if let Some(rest) = g.strip_prefix("dark:").or_else(|| g.strip_prefix("DARK:")) {
                p.dark = cards(rest)?;
                continue;
            }
            let (hand, top) = match g.split_once('/') {
                Some((h, t)) => (cards(h)?, cards(t)?),
                None => (cards(g)?, Vec::new()),
            };
            p.seats.push((hand, top));
        }
        Ok(p)
    }
}

fn bad(message: String) -> RuleError {
    RuleError::new(ErrorKind::BadSettings, "R10.13", message)
}

/// R10.13: creates a game from a practice position. A full position ([`is_full`]) is imported
/// by [`create_from_full`] (its own settings; `settings` gives the seat count, which must
/// agree, and `hold_windows`). A deal-only position places the named cards, the rest of the
/// pool shuffled into the remaining places. Errors name the problem (a seat count that
/// differs from the settings, more than 3 hand cards, a card the pool does not hold enough of,
/// Dark cards at an even table; for full positions see [`check`]).
pub fn create_from_position<R: Rng + ?Sized>(
    settings: &Settings,
    position: &str,
    rng: &mut R,
) -> Result<Vec<Event>, RuleError> {
    if is_full(position) {
        let pos = Position::parse(position).map_err(|e| bad(e.to_string()))?;
        return create_from_full(Some(settings), &pos, rng);
    }
    crate::rules::decide::validate(settings)?;
    let pos = DealPosition::parse(position).map_err(bad)?;
    let n = settings.players as usize;
    if pos.seats.len() != n {
        return Err(bad(format!("the position describes {} seats, the table has {n}", pos.seats.len())));
    }
    let rules = crate::model::edition::Rules::for_settings(settings);
    let starting_hand = rules.starting_hand();
    let size = pool_size_for(rules, n);
    if pos.dark.len() > size.surplus {
        return Err(bad(format!(
            "The Dark starts with {} cards at a table of {n}, not {}",
            size.surplus,
            pos.dark.len()
        )));
    }
    let pool: Vec<CardInstance> = build_pool_for(rules, n);
    let mut free: Vec<CardId> = (0..pool.len() as u16).map(CardId).collect();
    let mut take = |f: Face| -> Result<CardId, RuleError> {
        let i = free
            .iter()
            .position(|&c| pool[c.0 as usize].face == f)
            .ok_or_else(|| bad(format!("the pool of {n} players has no {f} left to place")))?;
        Ok(free.remove(i))
    };
    let mut fixed: Vec<Vec<CardId>> = Vec::with_capacity(n);
    for (seat, (hand, top)) in pos.seats.iter().enumerate() {
        if hand.len() > starting_hand || starting_hand + top.len() > CANDLE_SIZE {
            return Err(bad(format!(
                "seat {seat}: at most {starting_hand} hand cards and {} Candle cards",
                CANDLE_SIZE - starting_hand
            )));
        }
        if !top.is_empty() && hand.len() < starting_hand {
            return Err(bad(format!("seat {seat}: name all {starting_hand} hand cards before the Candle's top")));
        }
        let mut v = Vec::new();
        for &f in hand.iter().chain(top) {
            v.push(take(f)?);
        }
        fixed.push(v);
    }
    let dark_top: Vec<CardId> = pos.dark.iter().map(|&f| take(f)).collect::<Result<_, _>>()?;
    free.shuffle(rng);
    let mut rest = free.into_iter();
    let candles: Vec<Vec<CardId>> = fixed
        .into_iter()
        .map(|mut c| {
            while c.len() < CANDLE_SIZE {
                c.push(rest.next().expect("pool large enough"));
            }
            c
        })
        .collect();
    // The Dark: random cards beneath, then the named ones with the first named on top.
    let mut dark: Vec<CardId> = rest.collect();
    dark.extend(dark_top.into_iter().rev());
    create_dealt(settings, pool, candles, dark, Vec::new(), rng)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::replay::fold;
    use rand::SeedableRng;
    use rand::rngs::ChaCha8Rng;

    /// Found by Schemathesis through `POST /api/v1/tables`: a card token ending in a
    /// multi-byte character was split inside it and panicked; it is refused like any bad card.
    #[test]
    fn a_card_ending_in_a_multibyte_character_is_refused_not_a_panic() {
        for s in [",\u{10000}", "7\u{e9}", "\u{e9}\u{e9}", "10\u{2665}"] {
            assert!(parse_card(s).is_err(), "{s:?}");
        }
        let settings = Settings::new(2);
        let err = create_from_position(&settings, ",\u{10000}", &mut ChaCha8Rng::seed_from_u64(1)).unwrap_err();
        assert_eq!(err.kind, ErrorKind::BadSettings);
    }

    /// R10.13, R2.3-R2.5: a position places the named cards; the rest is dealt.
    #[test]
    fn r10_13_practice_position_places_the_named_cards() {
        let mut s = Settings::new(3);
        s.first_player = crate::model::settings::FirstPlayer::First { seat: 0 };
        let events = create_from_position(
            &s,
            "7H 8D KS / 2C 3C | 5H 5D 9S | AS 2S 3S / Joker | dark: 4H 4C",
            &mut ChaCha8Rng::seed_from_u64(1),
        )
        .unwrap();
        let st = fold(&events);
        let faces = |v: &[CardId]| v.iter().map(|&c| st.face(c).to_string()).collect::<Vec<_>>();
        // Seat 0's turn has begun: it drew the top of its Candle (2♣); 3♣ lies on top now.
        assert_eq!(faces(&st.players[0].hand), ["7♥", "8♦", "K♠", "2♣"]);
        let c0: Vec<CardId> = st.players[0].candle.iter().copied().collect();
        assert_eq!(faces(&c0[..1]), ["3♣"]);
        let c2: Vec<CardId> = st.players[2].candle.iter().copied().collect();
        assert_eq!(faces(&c2[..1]), ["Joker"]);
        assert_eq!(c2.len(), 24);
        assert_eq!(faces(&st.players[1].hand), ["5♥", "5♦", "9♠"]);
        assert_eq!(st.face(*st.dark.last().unwrap()).to_string(), "4♥");
        assert_eq!(st.dark.len(), 27);
        crate::rules::invariants::check_settled(&st).unwrap();
    }

    #[test]
    fn r10_13_bad_positions_are_refused_with_a_reason() {
        let s = Settings::new(2);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for (pos, needle) in [
            ("7H | 8H | 9H", "3 seats"),
            ("7H 7H | 7H", "no 7♥ left"),
            ("7H 8H 9H 10H | 2C", "at most 3"),
            ("7H | 8H | dark: 2C", "The Dark starts with 0"),
            ("7X | 8H", "no suit"),
        ] {
            let e = create_from_position(&s, pos, &mut rng).unwrap_err();
            assert_eq!(e.rule, "R10.13");
            assert!(e.message.contains(needle), "{pos}: {}", e.message);
        }
    }
}
