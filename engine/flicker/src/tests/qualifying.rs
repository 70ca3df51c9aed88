//! Qualifying circles (R9.5): with A = 2 a circle stops as soon as two players are Lit; a
//! circle that starts with two or fewer ends at once; the Guttering sends the best two.

use super::kit::*;
use crate::model::event::{EndReason, Event};
use crate::model::settings::Settings;
use crate::rules::decide::create;
use crate::rules::replay::fold;
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

/// R9.5.2, R9.5.4, R7.7.4: with A = 2 the circle ends the moment exactly two players are Lit; both are
/// its Last Lit, there is no winner, and the eliminated player keeps its placing.
#[test]
fn r9_5_2_a_qualifying_circle_stops_at_two_lit() {
    let mut s = settings(3);
    s.last_lit = 2;
    // Seat 0 is Possessed at its Am I Alive?: three hearts.
    let mut k = Kit::with(s).shadow(0, &[("2H", None), ("3H", None), ("4H", None)]).am_i_alive(0).settled();
    // Seat 0 splits its ghosts (the default split), then the circle closes with two Lit.
    k.send(crate::model::command::Command::Timeout).unwrap();
    assert!(!k.lit(0));
    let r = k.state.result.clone().expect("the circle ended");
    assert_eq!(r.winner, None);
    assert_eq!(r.reason, EndReason::LastLit);
    assert_eq!(r.last_lit, vec![1, 2]);
    assert_eq!(r.placings, vec![3, 1, 1]);
    assert!(k.prompt(1).is_none() && k.prompt(2).is_none());
}

/// R9.5.5: a circle that starts with no more players than advance ends at once without a turn;
/// all its players are its Last Lit.
#[test]
fn r9_5_5_a_circle_of_two_with_a_2_ends_before_any_turn() {
    let mut s = Settings::new(2);
    s.last_lit = 2;
    let events = create(&s, &mut ChaCha8Rng::seed_from_u64(4)).unwrap();
    assert!(!events.iter().any(|e| matches!(e, Event::TurnStarted { .. })));
    let st = fold(&events);
    let r = st.result().expect("ended");
    assert_eq!(r.last_lit, vec![0, 1]);
    assert_eq!(r.winner, None);
}

/// R7.7.1: with A = 1 the Last Lit is the winner alone.
#[test]
fn r7_7_1_last_lit_is_the_winner_with_a_1() {
    let mut k = Kit::new(2).shadow(0, &[("2H", None), ("3H", None), ("4H", None)]).am_i_alive(0).settled();
    let r = k.state.result.clone().expect("ended");
    assert_eq!((r.winner, r.last_lit.clone()), (Some(1), vec![1]));
    let _ = &mut k;
}

/// R7.9.5: at the hard end of a circle with A = 2, its Last Lit are the two best-placed; equal
/// players that would make more than two all go on.
#[test]
fn r7_9_5_guttering_with_a_2_sends_the_best_two() {
    // Four players with these Candle sizes reach the hard end (round 2L + 1) with A = 2.
    let hard_end = |sizes: [usize; 4]| {
        let mut s = settings(4);
        s.last_lit = 2;
        s.round_limit = 10;
        let mut k = Kit::with(s);
        for (seat, &n) in sizes.iter().enumerate() {
            k = k.candle_size(seat as u8, n);
        }
        k.state.turn.round = 20;
        k.state.turn.active = 3;
        k.state.step = crate::model::state::Step::PassTurn;
        k.settle();
        k.state.result.clone().expect("hard end")
    };
    let r = hard_end([9, 7, 5, 3]);
    assert_eq!(r.reason, EndReason::Guttered);
    assert_eq!(r.last_lit, vec![0, 1], "the best two go on");
    assert_eq!(hard_end([9, 5, 5, 3]).last_lit, vec![0, 1, 2], "equal players all go on");
}

/// R9.1.2: A is 1 or 2.
#[test]
fn r9_1_2_last_lit_is_1_or_2() {
    let mut s = Settings::new(4);
    s.last_lit = 3;
    assert_eq!(create(&s, &mut ChaCha8Rng::seed_from_u64(1)).unwrap_err().rule, "R9.1.2");
}

/// R9.8.2: a later stage of a gathering starts with an empty Dark; the surplus is set aside
/// face down (out of play), shown to viewers only as a count, and counted by card conservation.
#[test]
fn r9_8_2_a_later_stage_sets_the_surplus_aside_face_down() {
    let mut s = Settings::new(3);
    s.surplus = crate::model::settings::Surplus::OutOfPlay;
    let events = create(&s, &mut ChaCha8Rng::seed_from_u64(9)).unwrap();
    let Event::GameCreated(g) = &events[0] else { panic!("creation first") };
    let size = crate::model::pool::pool_size(3);
    assert!(g.dark.is_empty(), "R9.8.2: The Dark starts empty");
    assert_eq!(g.set_aside.len(), size.total - size.dealt);
    assert!(!g.set_aside.is_empty(), "an odd player count has a surplus");
    let st = fold(&events);
    assert!(st.dark.is_empty());
    assert_eq!(st.out_of_play, g.set_aside);
    crate::rules::invariants::check(&st).unwrap();
    // A spectator sees a count, never the cards.
    let shown = crate::projection::redact::redact(
        &crate::model::state::State::new(),
        &events[0],
        &fold(&events[..1]),
        crate::Viewer::Spectator,
    )
    .expect("public event");
    let json = serde_json::to_value(&shown).unwrap();
    assert_eq!(json["set_aside"], serde_json::json!(g.set_aside.len()));
    assert_eq!(json["dark"], serde_json::json!([]));
    // The default (an opening stage) places the surplus as The Dark (R2.4).
    let g0 = create(&Settings::new(3), &mut ChaCha8Rng::seed_from_u64(9)).unwrap();
    let Event::GameCreated(g0) = &g0[0] else { panic!() };
    assert_eq!(g0.dark.len(), size.total - size.dealt);
    assert!(g0.set_aside.is_empty());
}
