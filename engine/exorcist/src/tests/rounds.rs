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
