//! X9: every card's effect, with the seed's clarifications (XA.*).

use super::kit::table;
use crate::model::card::CardKind::{self, *};
use crate::model::command::Answer;
use crate::model::event::{Direction, Event, Limit};
use crate::model::state::Ask;
use crate::rules::decide::open_ask;
use crate::rules::prompt::PromptKind;

fn kinds(t: &super::kit::Table, s: u8) -> Vec<CardKind> {
    t.row(s)
}

/// X9.1, XA.7: Cleansing Whip: every rightmost card goes to the right neighbour's right end;
/// each passer sees its own card only.
#[test]
fn x9_1_cleansing_whip_passes_right() {
    let mut t = table(&[
        (1, 1, CleansingWhip),
        (0, 4, Piety),
        (1, 4, DivineSanction),
        (2, 4, VileViolation),
        (3, 4, WickedWhiff),
    ]);
    let new = t.reveal(1, 1);
    assert!(
        new.iter()
            .any(|e| matches!(e, Event::CardsPassed { direction: Direction::Right, passes } if passes.len() == 4))
    );
    // X0.1: the right neighbour of seat s is s-1.
    assert_eq!(*kinds(&t, 3).last().unwrap(), Piety);
    assert_eq!(*kinds(&t, 0).last().unwrap(), DivineSanction);
    assert_eq!(*kinds(&t, 1).last().unwrap(), VileViolation);
    assert_eq!(*kinds(&t, 2).last().unwrap(), WickedWhiff);
    // Seat 0 knows where its Piety is now (3's right end).
    let v = crate::Exorcist::view(&t.state, flicker_game::Viewer::Seat { seat: 0 });
    assert!(v.known_cards.iter().any(|k| k.card == Piety && k.owner == 3 && k.position == 4));
    use flicker_game::Game;
}

/// X9.2: Cloth of Transcendence: every leftmost card to the left neighbour's left end; a player
/// with no card passes nothing but receives.
#[test]
fn x9_2_cloth_passes_left() {
    let mut t = table(&[(1, 1, ClothOfTranscendence), (0, 1, Piety), (1, 2, DivineSanction), (3, 1, WickedWhiff)]);
    t.state.round.as_mut().unwrap().rows[2].clear();
    t.reveal(1, 1);
    assert_eq!(kinds(&t, 1)[0], Piety); // 0's left neighbour is 1
    assert_eq!(kinds(&t, 2), vec![DivineSanction]); // 2 had nothing and received 1's card
    assert_eq!(kinds(&t, 0)[0], WickedWhiff);
}

/// X9.3, XA.17: Collection Plate: every player with the fewest points gains 1.
#[test]
fn x9_3_collection_plate() {
    let mut t = table(&[(1, 1, CollectionPlate)]);
    t.state.points = vec![3, 1, 1, 2];
    t.reveal(1, 1);
    assert_eq!(t.state.points, vec![3, 2, 2, 2]);
    let mut t = table(&[(1, 1, CollectionPlate)]);
    t.reveal(1, 1);
    assert_eq!(t.state.points, vec![2; 4], "all tied: all gain");
}

/// X9.4, XA.18: The Blessed Prepuce: the Chosen may look at its whole row if no Holy Artifact
/// was revealed before it this round.
#[test]
fn x9_4_blessed_prepuce_first_holy_only() {
    let mut t = table(&[(1, 1, BlessedPrepuce), (1, 2, Piety)]);
    t.reveal(1, 1);
    assert_eq!(open_ask(&t.state), Some(Ask::Prepuce));
    let new = t.answer(1, Answer::Peek);
    assert!(matches!(&new[0], Event::RowPeeked { peeker: 1, cards } if cards.len() == 3));
    let v = crate::Exorcist::view(&t.state, flicker_game::Viewer::Seat { seat: 1 });
    assert_eq!(v.known_cards.len(), 3);
    use flicker_game::Game;
    // Not the first Holy Artifact: nothing happens.
    let mut t = table(&[(1, 1, TabletChunk), (2, 1, BlessedPrepuce)]);
    t.reveal(1, 1);
    t.answer(0, Answer::Decline);
    t.answer(1, Answer::Decline);
    t.reveal(2, 1);
    assert_eq!(open_ask(&t.state), None);
    assert_eq!(t.prompt().seat, 2);
}

/// X9.5, XA.13: Tablet Chunk: the Seeker may look at its own tile, then the Chosen at its own.
#[test]
fn x9_5_tablet_chunk_seeker_then_chosen() {
    let mut t = table(&[(2, 1, TabletChunk)]);
    t.reveal(2, 1);
    assert_eq!((t.prompt().seat, &t.prompt().kind), (0, &PromptKind::TabletPeek));
    let e = t.answer(0, Answer::Peek);
    assert!(matches!(e[0], Event::RolePeeked { peeker: 0, target: 0, .. }));
    assert_eq!(t.prompt().seat, 2);
    let e = t.answer(2, Answer::Decline);
    assert!(matches!(e[0], Event::PeekDeclined { seat: 2, cause: TabletChunk }));
    assert_eq!(t.prompt().seat, 2, "then 2 seeks");
}

/// X9.6, XA.6: Book of the Mostly Dead: the Chosen may peek at any tile, its own included.
#[test]
fn x9_6_book_any_tile() {
    let mut t = table(&[(1, 1, BookOfTheMostlyDead)]);
    t.reveal(1, 1);
    let PromptKind::BookPeek { seats } = t.prompt().kind else { panic!() };
    assert_eq!(seats, vec![0, 1, 2, 3]);
    let e = t.answer(1, Answer::PeekTile { seat: 3 });
    let tile = t.state.round.as_ref().unwrap().tiles[3];
    assert_eq!(e[0], Event::RolePeeked { peeker: 1, target: 3, cause: BookOfTheMostlyDead, tile });
}

/// X9.7, XA.8: That One Ring: the first Cursed Artifact lets the Chosen take 1 point from
/// another player with at least 1; default the first eligible clockwise.
#[test]
fn x9_7_that_one_ring() {
    let mut t = table(&[(1, 1, ThatOneRing)]);
    t.state.points = vec![1, 1, 0, 3];
    t.reveal(1, 1);
    let p = t.prompt();
    assert_eq!(p.kind, PromptKind::RingTarget { seats: vec![0, 3] });
    assert_eq!(p.default, Answer::Player { seat: 3 });
    t.answer(1, Answer::Player { seat: 0 });
    assert_eq!(t.state.points, vec![0, 2, 0, 3]);
    // Not the first Cursed Artifact: nothing.
    let mut t = table(&[(1, 1, PazuzuBust), (2, 1, ThatOneRing)]);
    t.set_goal(4, 3);
    t.reveal(1, 1);
    t.answer(0, Answer::Decline);
    t.reveal(2, 1);
    assert_eq!(open_ask(&t.state), None);
    assert_eq!(t.state.points, vec![1; 4]);
}

/// X9.8: Pazuzu Bust: the Seeker may look at the Chosen's tile.
#[test]
fn x9_8_pazuzu_bust() {
    let mut t = table(&[(3, 2, PazuzuBust)]);
    t.reveal(3, 2);
    assert_eq!(t.prompt().kind, PromptKind::PazuzuPeek { target: 3 });
    let e = t.answer(0, Answer::Peek);
    assert!(matches!(e[0], Event::RolePeeked { peeker: 0, target: 3, .. }));
}

/// X9.9: Piety: the Chosen gains 1 point.
#[test]
fn x9_9_piety() {
    let mut t = table(&[(1, 1, Piety)]);
    t.reveal(1, 1);
    assert_eq!(t.state.points, vec![1, 2, 1, 1]);
}

/// X9.10, XA.9: Divine Sanction: another player loses 1 point, never below 0; default the
/// Chosen's left neighbour.
#[test]
fn x9_10_divine_sanction() {
    let mut t = table(&[(1, 1, DivineSanction)]);
    t.state.points = vec![1, 1, 0, 1];
    t.reveal(1, 1);
    assert_eq!(t.prompt().default, Answer::Player { seat: 2 });
    let PromptKind::SanctionTarget { seats } = t.prompt().kind else { panic!() };
    assert_eq!(seats, vec![0, 2, 3]);
    t.answer(1, Answer::Player { seat: 2 });
    assert_eq!(t.state.points, vec![1, 1, 0, 1], "X0.6: never below 0");
}

/// X9.11, XA.4: Cruel Cowardice: the Chosen names another player as next Seeker, one with a
/// legal card when some have one and others not.
#[test]
fn x9_11_cruel_cowardice() {
    let mut t = table(&[(1, 1, CruelCowardice)]);
    {
        let r = t.state.round.as_mut().unwrap();
        r.rows[0].clear();
        r.rows[2].clear();
    }
    t.reveal(1, 1);
    // Cards remain with 1 and 3 only: 0 and 2 have a legal card, and so has 3 (1's cards).
    let PromptKind::NameSeeker { seats } = t.prompt().kind else { panic!() };
    assert_eq!(seats, vec![0, 2, 3]);
    t.state.round.as_mut().unwrap().rows[1].clear();
    let PromptKind::NameSeeker { seats } = t.prompt().kind else { panic!() };
    assert_eq!(seats, vec![0, 2], "3 would have no card but its own");
    t.answer(1, Answer::Player { seat: 2 });
    assert_eq!(t.prompt().seat, 2);
}

/// X9.12, XA.5, XA.24, XA.27: Hellish Hijinx!: back face down into the Chosen's row, not
/// counted; the Seeker reveals a card of a player not yet Chosen in the chain; with none, it
/// stays revealed without effect.
#[test]
fn x9_12_hellish_hijinx_chain() {
    let mut t = table(&[(1, 1, HellishHijinx), (2, 1, HellishHijinx), (3, 1, HellishHijinx)]);
    {
        let r = t.state.round.as_mut().unwrap();
        r.rows[1].truncate(1);
        r.rows[2].truncate(1);
        r.rows[3].truncate(1);
    }
    let new = t.reveal(1, 1);
    assert!(matches!(&new[1], Event::HijinxReturned { chosen: 1, row } if row.len() == 1), "XA.24");
    assert_eq!(t.state.round.as_ref().unwrap().deal_revealed, 0);
    let p = t.prompt();
    let PromptKind::HijinxSelect { cards, chain } = p.kind else { panic!("{p:?}") };
    assert_eq!(chain, vec![1]);
    assert!(cards.iter().all(|s| s.owner == 2 || s.owner == 3));
    t.reveal(2, 1);
    let PromptKind::HijinxSelect { cards, .. } = t.prompt().kind else { panic!() };
    assert!(cards.iter().all(|s| s.owner == 3));
    let new = t.reveal(3, 1);
    // Nobody left outside the chain: the third Hijinx stays revealed; 3 seeks next.
    assert!(new.iter().any(|e| matches!(e, Event::TurnEnded { next_seeker: 3 })));
    assert_eq!(t.state.round.as_ref().unwrap().deal_revealed, 1);
    assert_eq!(t.prompt().seat, 3);
}

/// X9.14, XA.15: Vile Violation: the Chosen must peek at another player's card; that player's
/// cards may not be chosen next.
#[test]
fn x9_14_vile_violation() {
    let mut t = table(&[(1, 1, VileViolation), (3, 2, Piety)]);
    t.reveal(1, 1);
    let p = t.prompt();
    assert!(p.random_default);
    assert!(!p.allows(&Answer::Card { owner: 1, position: 1 }));
    let e = t.answer(1, Answer::Card { owner: 3, position: 2 });
    assert!(matches!(e[0], Event::CardPeeked { peeker: 1, owner: 3, position: 2, .. }));
    assert_eq!(t.state.round.as_ref().unwrap().limits(), vec![(Limit::Violation, 3)]);
    let PromptKind::SelectCard { cards, .. } = t.prompt().kind else { panic!() };
    assert!(cards.iter().all(|s| s.owner != 3 && s.owner != 1));
}

/// X9.15, XA.16: Wicked Whiff!: Seeker and Chosen exchange their rows, each shuffled.
#[test]
fn x9_15_wicked_whiff() {
    let mut t = table(&[(1, 1, WickedWhiff), (0, 1, Piety), (1, 2, DivineSanction)]);
    t.state.round.as_mut().unwrap().rows[0].truncate(1);
    t.reveal(1, 1);
    assert_eq!(kinds(&t, 1), vec![Piety]);
    assert_eq!(kinds(&t, 0).len(), 3);
    assert!(kinds(&t, 0).contains(&DivineSanction));
}

/// X9.16, XA.14: Is That You, Satan?: the two tiles are shuffled (recorded); the Chosen may
/// look at either.
#[test]
fn x9_16_is_that_you_satan() {
    let mut t = table(&[(2, 1, IsThatYouSatan)]);
    t.set_tiles(&[true, false, false, false]);
    let new = t.reveal(2, 1);
    let Event::TilesShuffled { seeker: 0, chosen: 2, seeker_tile, chosen_tile } = new[1] else { panic!("{new:?}") };
    assert_ne!(seeker_tile, chosen_tile);
    assert_eq!(t.prompt().kind, PromptKind::SatanPeek { seats: vec![2, 0] });
    // Nobody knows the shuffled tiles now, not even their holders.
    assert!(t.state.round.as_ref().unwrap().known_tiles[0].iter().all(|(s, _, _)| *s != 0));
    t.answer(2, Answer::PeekTile { seat: 0 });
    assert!(t.state.round.as_ref().unwrap().known_tiles[2].iter().any(|(s, _, _)| *s == 0));
}

/// X6.6, XA.28: Seeker and Chosen the same: Satan shuffles nothing but offers the own look.
#[test]
fn x6_6_satan_on_oneself() {
    let mut t = table(&[(1, 1, Piety), (1, 2, IsThatYouSatan)]);
    {
        let r = t.state.round.as_mut().unwrap();
        r.rows[1].truncate(2);
        for s in [0, 2, 3] {
            r.rows[s].clear();
        }
    }
    let new = t.reveal(1, 1);
    assert!(new.iter().any(|e| matches!(e, Event::CardRevealed { seeker: 1, chosen: 1, own: true, .. })));
    assert!(!new.iter().any(|e| matches!(e, Event::TilesShuffled { .. })));
    assert_eq!(t.prompt().kind, PromptKind::SatanPeek { seats: vec![1] });
}

/// X12: time-out defaults: a random legal card for a selection, Decline for a peek, the
/// Chosen's left neighbour for Divine Sanction, the first eligible clockwise for Cruel
/// Cowardice; the time-out is recorded before the answer's events.
#[test]
fn x12_time_out_defaults() {
    use crate::model::command::Command;
    let mut t = table(&[(1, 1, TabletChunk)]);
    let e = t.send(Command::Timeout).unwrap();
    assert_eq!(e[0], Event::TimedOut { seats: vec![0] });
    assert!(matches!(e[1], Event::CardRevealed { seeker: 0, own: false, .. }));
    let mut t = table(&[(1, 1, TabletChunk)]);
    t.reveal(1, 1);
    let e = t.send(Command::Timeout).unwrap();
    assert_eq!(e[1], Event::PeekDeclined { seat: 0, cause: TabletChunk });
    let mut t = table(&[(3, 1, DivineSanction)]);
    t.reveal(3, 1);
    let e = t.send(Command::Timeout).unwrap();
    assert!(matches!(&e[1], Event::PointsChanged { changes, .. } if changes[0].seat == 0));
    let mut t = table(&[(2, 1, CruelCowardice)]);
    t.reveal(2, 1);
    let e = t.send(Command::Timeout).unwrap();
    assert_eq!(e[1], Event::SeekerNamed { by: 2, seeker: 3 });
}
