//! X4, X7: deals, rounds, scoring and the end of the game.

use super::kit::{Table, random_game, table};
use crate::model::card::CardKind::*;
use crate::model::card::Role;
use crate::model::event::{EndReason, Event};
use crate::model::settings::Settings;

/// X7.1-X7.3, XA.3: a deal ends after as many reveals as players; the rest is redealt, one
/// card fewer each; the last Chosen seeks first.
#[test]
fn x7_1_a_deal_ends_after_n_reveals() {
    let mut t = table(&[(1, 1, Piety), (2, 1, Piety), (3, 1, Piety), (0, 1, SatanicSpew)]);
    t.reveal(1, 1);
    t.reveal(2, 1);
    t.reveal(3, 1);
    assert_eq!(t.state.round.as_ref().unwrap().deal, 1);
    let new = t.reveal(0, 1);
    assert!(new.iter().any(|e| matches!(e, Event::DealStarted { deal: 2, rows } if rows.iter().all(|r| r.len() == 3))));
    let r = t.state.round.as_ref().unwrap();
    assert_eq!((r.deal_revealed, r.set_aside.len(), r.set_aside[0].len()), (0, 1, 4));
    assert_eq!(t.prompt().seat, 0, "X7.3: the last Chosen");
    // X6.5, XA.10: the Spew limit carries over into the next deal.
    assert_eq!(r.spew, Some(3));
}

/// X7.3, XA.12: a final Cruel Cowardice names the next deal's first Seeker.
#[test]
fn x7_3_a_final_cowardice_names_the_next_deals_seeker() {
    let mut t = table(&[(1, 1, Piety), (2, 1, Piety), (3, 1, Piety), (0, 1, CruelCowardice)]);
    for s in [1, 2, 3] {
        t.reveal(s, 1);
    }
    t.reveal(0, 1);
    assert!(matches!(t.prompt().kind, crate::PromptKind::NameSeeker { ref seats } if seats == &[1, 2, 3]));
    t.answer(0, crate::Answer::Player { seat: 2 });
    assert_eq!(t.state.round.as_ref().unwrap().deal, 2);
    assert_eq!(t.prompt().seat, 2);
}

/// X7.4, X4.2, X4.3, XA.19, XA.20: the last Holy Artifact ends the round mid-deal once
/// resolved; tiles turn up and the Innocents (by the tile in front of them) gain 2.
#[test]
fn x7_4_the_round_ends_with_the_last_holy_artifact() {
    let mut t = table(&[(1, 1, TabletChunk)]);
    t.set_goal(1, 2);
    t.set_tiles(&[false, true, false, false]);
    t.reveal(1, 1);
    assert!(t.state.round.is_some(), "X7.4: resolved first");
    t.answer(0, crate::Answer::Decline);
    let new = t.answer(1, crate::Answer::Decline);
    assert!(
        new.iter()
            .any(|e| matches!(e, Event::RoundEnded { winner: Role::Innocent, scorers, .. } if scorers == &[0, 2, 3]))
    );
    assert_eq!(t.state.history[0].roles[1], Role::Possessed);
    // X3.5: a new round; X7.5: its first Seeker is the last Chosen.
    assert_eq!(t.state.points, vec![3, 1, 3, 3]);
    assert_eq!(t.state.rounds, 2);
    assert_eq!(t.prompt().seat, 1);
}

/// X4.2, XA.21: the last Cursed Artifact wins the round for the Possessed, whoever reveals it.
#[test]
fn x4_2_the_possessed_win_with_the_last_cursed_artifact() {
    let mut t = table(&[(1, 1, PazuzuBust)]);
    t.set_goal(4, 1);
    t.set_tiles(&[false, true, false, false]);
    t.reveal(1, 1);
    let new = t.answer(0, crate::Answer::Peek);
    assert!(
        new.iter().any(|e| matches!(e, Event::RoundEnded { winner: Role::Possessed, scorers, .. } if scorers == &[1]))
    );
}

/// X7.6: at the end of a round a single leader at or over the target wins; reaching it during
/// the round does not stop the round.
#[test]
fn x7_6_the_game_ends_at_the_end_of_a_round() {
    let mut t = table(&[(1, 1, Piety), (2, 1, TabletChunk)]);
    t.state.settings.as_mut().unwrap().target = 2;
    t.set_goal(1, 2);
    t.set_tiles(&[true, false, false, false]);
    t.reveal(1, 1);
    assert_eq!(t.state.points[1], 2);
    assert!(t.state.result.is_none(), "the round goes on");
    t.reveal(2, 1);
    t.answer(1, crate::Answer::Decline);
    t.answer(2, crate::Answer::Decline);
    // Innocents 1, 2, 3 gain 2: 1 has 4, 2 and 3 have 3.
    let r = t.state.result.as_ref().unwrap();
    assert_eq!((r.winner, r.reason), (Some(1), EndReason::Points));
    let o = <crate::Exorcist as flicker_game::Game>::outcome(&t.state).unwrap();
    assert_eq!(o.placings, vec![4, 1, 2, 2]);
}

/// X7.6, X8.1: tied leaders play the mini-game.
#[test]
fn x7_6_tied_leaders_play_the_mini_game() {
    let mut t = table(&[(1, 1, TabletChunk)]);
    t.state.settings.as_mut().unwrap().target = 3;
    t.set_goal(1, 2);
    t.set_tiles(&[true, false, false, true]);
    t.reveal(1, 1);
    t.answer(0, crate::Answer::Decline);
    let new = t.answer(1, crate::Answer::Decline);
    assert!(new.iter().any(|e| matches!(e, Event::TieRowLaid { players, .. } if players == &[1, 2])));
    assert_eq!(t.prompts().len(), 2);
}

/// X4.5: the target is configurable; random games end with a leader at or over it.
#[test]
fn x4_5_games_end_at_the_target() {
    for target in [3u32, 7] {
        let mut s = Settings::new(5);
        s.target = target;
        let p = random_game(&s, target as u64);
        assert!(*p.state.points.iter().max().unwrap() >= target);
        let w = p.state.result.as_ref().unwrap().winner.unwrap();
        assert_eq!(p.state.points[w as usize], *p.state.points.iter().max().unwrap());
    }
    let t = Table::new(4, 1);
    assert_eq!(t.state.settings.as_ref().unwrap().target, 7);
}

/// X4.1, X9.16: a player's team is the Role tile lying in front of them, so it can change in a
/// round: when Is That You, Satan? gives the Possessed Seeker the Chosen's Innocent tile, the
/// Innocents' win scores the former Possessed and not the Chosen; when the tiles come back as
/// they were, the teams are unchanged.
#[test]
fn x4_1_the_team_is_the_tile_in_front_after_an_exchange() {
    use crate::model::command::Answer;
    let (mut swapped_seen, mut kept_seen) = (false, false);
    for seed in 1..60 {
        let mut t = Table::new(4, seed);
        t.lay(&[(2, 1, IsThatYouSatan), (3, 1, TabletChunk)]);
        t.set_tiles(&[true, false, false, false]);
        t.set_goal(1, 2);
        let new = t.reveal(2, 1);
        let swapped = new.iter().any(|e| {
            matches!(e, Event::TilesShuffled { seeker: 0, chosen: 2, seeker_tile, chosen_tile }
                if seeker_tile.role() == Role::Innocent && chosen_tile.role() == Role::Possessed)
        });
        t.answer(2, Answer::Decline);
        t.reveal(3, 1);
        t.answer(2, Answer::Decline);
        let new = t.answer(3, Answer::Decline);
        let scorers = new
            .iter()
            .find_map(|e| match e {
                Event::RoundEnded { winner: Role::Innocent, scorers, .. } => Some(scorers.clone()),
                _ => None,
            })
            .expect("the Innocents win the round");
        let roles = &t.state.history[0].roles;
        if swapped {
            assert_eq!(scorers, vec![0, 1, 3], "X4.1: seat 0 is Innocent now, seat 2 Possessed");
            assert_eq!((roles[0], roles[2]), (Role::Innocent, Role::Possessed));
            assert_eq!(t.state.points, vec![3, 3, 1, 3]);
            swapped_seen = true;
        } else {
            assert_eq!(scorers, vec![1, 2, 3]);
            assert_eq!((roles[0], roles[2]), (Role::Possessed, Role::Innocent));
            kept_seen = true;
        }
        if swapped_seen && kept_seen {
            return;
        }
    }
    panic!("both outcomes of the shuffle within 60 seeds: swapped {swapped_seen}, kept {kept_seen}");
}

/// X4.4, X9.3, X9.7, X9.9, X9.10: during a round points change only by single points, and
/// only through Collection Plate, That One Ring (which moves one), Piety and Divine Sanction;
/// with the starting point (X3.1) and the round wins (X4.3) they account for every point.
#[test]
fn x4_4_cards_give_take_or_move_single_points() {
    use crate::model::card::CardKind;
    let mut causes = std::collections::BTreeSet::new();
    for seed in 0..6u64 {
        let s = Settings::new(4 + (seed % 5) as u8);
        let p = random_game(&s, 300 + seed);
        let mut points = vec![0i64; s.players as usize];
        for e in &p.events {
            match e {
                Event::RoundStarted { starting_point: true, .. } => points.iter_mut().for_each(|x| *x += 1),
                Event::RoundEnded { scorers, .. } => scorers.iter().for_each(|&s| points[s as usize] += 2),
                Event::PointsChanged { cause, changes } => {
                    causes.insert(*cause);
                    assert!(
                        matches!(
                            cause,
                            CardKind::CollectionPlate
                                | CardKind::ThatOneRing
                                | CardKind::Piety
                                | CardKind::DivineSanction
                        ),
                        "{cause:?}"
                    );
                    assert!(changes.iter().all(|c| c.delta.abs() <= 1), "X4.4: single points: {changes:?}");
                    assert!(changes.iter().any(|c| c.delta != 0) || *cause == CardKind::DivineSanction);
                    if *cause == CardKind::ThatOneRing {
                        assert_eq!(changes.iter().map(|c| c.delta).collect::<Vec<_>>(), vec![-1, 1], "a move");
                    }
                    for c in changes {
                        points[c.seat as usize] += c.delta as i64;
                        assert!(points[c.seat as usize] >= 0);
                    }
                }
                _ => {}
            }
        }
        let live: Vec<i64> = p.state.points.iter().map(|&x| x as i64).collect();
        assert_eq!(points, live, "seed {seed}");
    }
    assert!(causes.contains(&CardKind::Piety) && causes.contains(&CardKind::DivineSanction), "{causes:?}");
}
