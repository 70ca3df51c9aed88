//! X9: the card effects: where a turn's resolution starts ([`opening_stage`], read by evolve)
//! and the automatic effects' events ([`auto_effect`], drawn by the decider).

use crate::model::card::{CardKind, TileId};
use crate::model::event::{Direction, Event, Limit, Pass, PointChange};
use crate::model::state::{Ask, Round, Stage, State};
use crate::rules::legal::{hijinx_targets, ring_targets, violation_targets};
use rand::seq::SliceRandom;
use rand::{Rng, RngExt};

/// X9: where the resolution of `kind`, just turned up by `seeker` from `chosen`'s row, starts.
/// `round` already counts the card among the revealed and no longer holds it in a row.
pub fn opening_stage(round: &Round, points: &[u32], kind: CardKind, seeker: u8, chosen: u8) -> Stage {
    use CardKind::*;
    match kind {
        CleansingWhip | ClothOfTranscendence | CollectionPlate | Piety | SatanicSpew => Stage::Auto,
        // X9.4, XA.18: only when no other Holy Artifact was turned up earlier this round.
        BlessedPrepuce if round.holy_revealed == 1 => Stage::Ask(Ask::Prepuce),
        BlessedPrepuce => Stage::Done,
        TabletChunk => Stage::Ask(Ask::TabletSeeker),
        BookOfTheMostlyDead => Stage::Ask(Ask::Book),
        // X9.7, XA.8: the first Cursed Artifact, and someone else has a point to take.
        ThatOneRing if round.cursed_revealed == 1 && !ring_targets(points, chosen).is_empty() => Stage::Ask(Ask::Ring),
        ThatOneRing => Stage::Done,
        PazuzuBust => Stage::Ask(Ask::Pazuzu),
        DivineSanction => Stage::Ask(Ask::Sanction),
        CruelCowardice => Stage::Ask(Ask::NameSeeker),
        // X9.12, XA.27: returned only when the chain can go on.
        HellishHijinx => {
            let mut chain = round.chain.clone();
            chain.push(chosen);
            if hijinx_targets(round, seeker, &chain).is_empty() { Stage::Done } else { Stage::Auto }
        }
        // X9.14, XA.15: no card of another player: no peek, no limit.
        VileViolation if violation_targets(round, chosen).is_empty() => Stage::Done,
        VileViolation => Stage::Ask(Ask::Violation),
        // X9.15, XA.16: no exchange with oneself.
        WickedWhiff if seeker == chosen => Stage::Done,
        WickedWhiff => Stage::Auto,
        // X9.16, X6.6: nothing to shuffle with oneself, but the look is offered.
        IsThatYouSatan if seeker == chosen => Stage::Ask(Ask::Satan),
        IsThatYouSatan => Stage::Auto,
    }
}

/// X0.1: the right neighbour (counter-clockwise) of `seat`.
pub fn right_of(seat: u8, players: u8) -> u8 {
    (seat + players - 1) % players
}

/// X0.1: the left neighbour (clockwise) of `seat`.
pub fn left_of(seat: u8, players: u8) -> u8 {
    (seat + 1) % players
}

/// The event of the automatic effect of the turn's card (its stage is [`Stage::Auto`]), with
/// any shuffle drawn from `rng` (X11.2).
pub fn auto_effect<R: Rng + ?Sized>(state: &State, rng: &mut R) -> Event {
    let r = state.round.as_ref().expect("a round");
    let t = r.turn.expect("a turn");
    let n = state.players();
    let kind = t.card.kind();
    match kind {
        CardKind::CleansingWhip | CardKind::ClothOfTranscendence => {
            let direction = if kind == CardKind::CleansingWhip { Direction::Right } else { Direction::Left };
            let passes = (0..n)
                .filter_map(|s| {
                    let row = &r.rows[s as usize];
                    let card = match direction {
                        Direction::Right => *row.last()?,
                        Direction::Left => *row.first()?,
                    };
                    let to = match direction {
                        Direction::Right => right_of(s, n),
                        Direction::Left => left_of(s, n),
                    };
                    Some(Pass { from: s, to, card })
                })
                .collect();
            Event::CardsPassed { direction, passes }
        }
        CardKind::CollectionPlate => {
            let low = *state.points.iter().min().expect("players");
            let changes = (0..n)
                .filter(|&s| state.points[s as usize] == low)
                .map(|seat| PointChange { seat, delta: 1 })
                .collect();
            Event::PointsChanged { cause: kind, changes }
        }
        CardKind::Piety => {
            Event::PointsChanged { cause: kind, changes: vec![PointChange { seat: t.chosen, delta: 1 }] }
        }
        CardKind::SatanicSpew => Event::LimitSet { limit: Limit::Spew, seat: t.seeker },
        CardKind::WickedWhiff => {
            let mut seeker_row = r.rows[t.chosen as usize].clone();
            let mut chosen_row = r.rows[t.seeker as usize].clone();
            seeker_row.shuffle(rng);
            chosen_row.shuffle(rng);
            Event::RowsExchanged { seeker: t.seeker, chosen: t.chosen, seeker_row, chosen_row }
        }
        CardKind::IsThatYouSatan => {
            let (a, b) = (r.tiles[t.seeker as usize], r.tiles[t.chosen as usize]);
            let (seeker_tile, chosen_tile): (TileId, TileId) = if rng.random_bool(0.5) { (a, b) } else { (b, a) };
            Event::TilesShuffled { seeker: t.seeker, chosen: t.chosen, seeker_tile, chosen_tile }
        }
        CardKind::HellishHijinx => {
            let mut row = r.rows[t.chosen as usize].clone();
            row.push(t.card);
            row.shuffle(rng);
            Event::HijinxReturned { chosen: t.chosen, row }
        }
        other => panic!("{other:?} has no automatic effect"),
    }
}
