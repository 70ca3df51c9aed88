//! X8: the tie mini-game.

use super::kit::Table;
use crate::model::command::{Answer, Command};
use crate::model::event::{EndReason, Event};
use crate::model::settings::Settings;
use crate::model::state::Tie;

/// A table in the mini-game between `players`, the Blessing at 3.
fn tie(players: Vec<u8>, hold: bool) -> Table {
    let mut s = Settings::new(4);
    s.first_seeker = Some(0);
    s.hold_windows = hold;
    let mut t = Table::with(s, 1);
    t.state.round = None;
    t.state.tie = Some(Tie {
        players,
        layout: 1,
        blessing: 3,
        available: (1..=5).collect(),
        picks: vec![],
        pick_rounds: 0,
        last_revealed: None,
        revealed: vec![],
        relay: false,
        winner: None,
    });
    t.state.point = t.state.version;
    t
}

/// X8.3-X8.5: a single Blessing picker wins.
#[test]
fn x8_5_a_single_blessing_picker_wins() {
    let mut t = tie(vec![1, 2], false);
    assert_eq!(t.prompts().len(), 2);
    let e = t.answer(1, Answer::Pick { position: 3 });
    assert_eq!(e, vec![Event::TiePicked { seat: 1, position: 3 }]);
    assert_eq!(t.prompts().len(), 1, "X8.3: 2 still picks");
    t.answer(2, Answer::Pick { position: 5 });
    let r = t.state.result.as_ref().unwrap();
    assert_eq!((r.winner, r.reason), (Some(1), EndReason::TieGame));
}

/// X8.5: several Blessing pickers replay with a new row; nobody: the Mischiefs picked go and
/// the same players pick again; no Mischief left: a new row.
#[test]
fn x8_5_restarts_and_repicks() {
    let mut t = tie(vec![0, 1, 2], false);
    t.answer(0, Answer::Pick { position: 3 });
    t.answer(1, Answer::Pick { position: 3 });
    let e = t.answer(2, Answer::Pick { position: 1 });
    assert!(e.iter().any(|e| matches!(e, Event::TieRowLaid { players, .. } if players == &[0, 1])));
    let mut t = tie(vec![0, 1], false);
    t.answer(0, Answer::Pick { position: 1 });
    t.answer(1, Answer::Pick { position: 2 });
    let tie_now = t.state.tie.as_ref().unwrap();
    assert_eq!(tie_now.available, vec![3, 4, 5]);
    assert!(matches!(t.prompts()[0].kind, crate::PromptKind::TiePick { ref positions } if positions == &[3, 4, 5]));
    t.answer(0, Answer::Pick { position: 4 });
    let e = t.answer(1, Answer::Pick { position: 5 });
    assert!(e.iter().any(|e| matches!(e, Event::TieRowLaid { players, .. } if players == &[0, 1])), "{e:?}");
    assert_eq!(t.state.tie.as_ref().unwrap().layout, 2);
}

/// X8.6, XA.26: time-outs pick at random; after 20 pick rounds the winner is drawn.
#[test]
fn x8_6_the_mini_game_terminates() {
    let mut t = tie(vec![0, 1], false);
    t.state.tie.as_mut().unwrap().pick_rounds = 19;
    t.state.tie.as_mut().unwrap().blessing = 5;
    t.answer(0, Answer::Pick { position: 5 });
    t.answer(1, Answer::Pick { position: 5 });
    let r = t.state.result.as_ref().unwrap();
    assert_eq!(r.reason, EndReason::TieDrawn);
    let mut t = tie(vec![0, 1], false);
    let e = t.send(Command::Timeout).unwrap();
    assert_eq!(e[0], Event::TimedOut { seats: vec![0, 1] });
    assert!(e.iter().filter(|e| matches!(e, Event::TiePicked { .. })).count() == 2);
}

/// R10.6.5: at a table that holds its windows, the reveal waits for the platform's close.
#[test]
fn r10_6_5_held_picks_wait_for_the_close() {
    let mut t = tie(vec![0, 1], true);
    t.answer(0, Answer::Pick { position: 1 });
    t.answer(1, Answer::Pick { position: 2 });
    assert!(t.prompts().is_empty());
    use flicker_game::Game;
    assert!(crate::Exorcist::decision_point(&t.state).waits_for_close());
    let e = t.send(Command::CloseWindow).unwrap();
    assert_eq!(e[0], Event::TieRevealed);
    assert_eq!(t.prompts().len(), 2);
}

/// X8.2: the mini-game's row is 1 Blessing and 4 Mischiefs in positions 1 to 5, shuffled by the
/// server and recorded: the Blessing's place is in the event, the fold takes it from there, and
/// it is not always the same place.
#[test]
fn x8_2_the_row_is_shuffled_and_recorded() {
    use crate::model::card::CardKind::TabletChunk;
    let mut places = std::collections::BTreeSet::new();
    for seed in 1..40 {
        let mut t = Table::new(4, seed);
        t.lay(&[(1, 1, TabletChunk)]);
        t.state.settings.as_mut().unwrap().target = 3;
        t.set_goal(1, 2);
        t.set_tiles(&[true, false, false, true]);
        t.reveal(1, 1);
        t.answer(0, Answer::Decline);
        let new = t.answer(1, Answer::Decline);
        let Some(&Event::TieRowLaid { blessing, .. }) = new.iter().find(|e| matches!(e, Event::TieRowLaid { .. }))
        else {
            panic!("a tie: {new:?}")
        };
        assert!((1..=5).contains(&blessing));
        let tie = t.state.tie.as_ref().unwrap();
        assert_eq!((tie.blessing, tie.available.clone()), (blessing, vec![1, 2, 3, 4, 5]));
        places.insert(blessing);
    }
    assert!(places.len() >= 3, "the Blessing's place is drawn: {places:?}");
}
