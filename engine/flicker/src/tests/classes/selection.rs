//! R2.7-R2.9, R9.8.4: the selection ritual, class pools, bans and fixed seat classes.

use super::*;
use crate::model::command::Answer;
use crate::model::settings::{FirstPlayer, Settings};
use crate::model::state::State;
use crate::projection::redact::{ViewEvent, redact};
use crate::projection::view::{Viewer, view};
use crate::rules::classes::{pool_for, seat_classes};
use crate::rules::decide::create;
use crate::rules::prompt::{PromptKind, prompt_for};
use crate::rules::replay::fold;
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

fn class_table(n: u8, first: u8) -> Settings {
    let mut s = Settings::new(n);
    s.classes = true;
    s.first_player = FirstPlayer::First { seat: first };
    s
}

fn offer(st: &State, seat: u8) -> Vec<ClassId> {
    match prompt_for(st, seat).map(|p| p.kind) {
        Some(PromptKind::ChooseClass { offer }) => offer,
        other => panic!("seat {seat}: expected ChooseClass, got {other:?}"),
    }
}

fn choose(st: &mut State, seat: u8, class: ClassId, rng: &mut ChaCha8Rng) -> Vec<Event> {
    let mut out = Vec::new();
    let cmd = crate::model::command::Command::Answer { seat, prompt: None, answer: Answer::ChooseClass { class } };
    crate::rules::decide::decide_mut(st, &cmd, rng, &mut out).expect("choice accepted");
    out
}

/// R2.7.1-R2.7.5, R10.5 #2: picks in turn order from the first player; 3 different classes
/// offered from the remaining pool, recorded in the event; the pick is public, the offer
/// private; later offers never repeat an earlier pick (R2.7.4).
#[test]
fn r2_7_picks_in_turn_order_with_private_offers() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let events = create(&class_table(4, 2), &mut rng).unwrap();
    let mut st = fold(&events);
    let mut taken = Vec::new();
    for seat in [2u8, 3, 0, 1] {
        let o = offer(&st, seat);
        assert_eq!(o.len(), 3);
        assert!(o.iter().all(|c| pool_for(4).contains(c) && !taken.contains(c)), "{o:?}");
        let mut d = o.clone();
        d.dedup();
        assert_eq!(d.len(), 3);
        // The offer is recorded in its event and shown only to the chooser.
        if seat == 2 {
            assert!(events.iter().any(|e| matches!(e, Event::ClassOffered { offer, seat: 2 } if *offer == o)));
        }
        assert!(prompt_for(&st, (seat + 1) % 4).is_none());
        let before = st.clone();
        let out = choose(&mut st, seat, o[1], &mut rng);
        assert!(matches!(out[0], Event::ClassChosen { class, .. } if class == o[1]));
        let after = fold_more(&before, &out[..1]);
        match redact(&before, &out[0], &after, Viewer::Spectator) {
            Some(ViewEvent::ClassChosen { seat: s, class }) => assert_eq!((s, class), (seat, o[1])),
            other => panic!("{other:?}"),
        }
        assert_eq!(view(&st, Viewer::Spectator).players[seat as usize].class, Some(o[1]));
        taken.push(o[1]);
        // The next offer (if any) is private.
        if let Some(Event::ClassOffered { seat: s, .. }) = out.iter().find(|e| matches!(e, Event::ClassOffered { .. }))
        {
            let at = out.iter().position(|e| matches!(e, Event::ClassOffered { .. })).unwrap();
            let b = fold_more(&before, &out[..at]);
            let a = fold_more(&before, &out[..=at]);
            for v in [Viewer::Spectator, Viewer::Seat { seat }] {
                assert!(
                    matches!(redact(&b, &out[at], &a, v), Some(ViewEvent::ClassOffered { offer: None, .. })),
                    "{v:?} sees the offer of seat {s}"
                );
            }
            assert!(matches!(
                redact(&b, &out[at], &a, Viewer::Seat { seat: *s }),
                Some(ViewEvent::ClassOffered { offer: Some(_), .. })
            ));
        }
    }
    assert_eq!(seat_classes(&st).iter().flatten().count(), 4);
    // Play starts with the first player once everyone has picked.
    assert!(matches!(
        prompt_for(&st, 2).map(|p| p.kind),
        Some(PromptKind::Ritual { .. } | PromptKind::HauntingChoice { .. })
    ));
}

fn fold_more(st: &State, events: &[Event]) -> State {
    let mut s = st.clone();
    for e in events {
        crate::rules::evolve::apply(&mut s, e);
    }
    s
}

/// R2.7.3: a class not offered is refused; R10.5 #2: the default is the first offered class.
#[test]
fn r2_7_3_only_an_offered_class_and_the_default() {
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let mut st = fold(&create(&class_table(3, 0), &mut rng).unwrap());
    let o = offer(&st, 0);
    let other = pool_for(3).into_iter().find(|c| !o.contains(c)).unwrap();
    let cmd =
        crate::model::command::Command::Answer { seat: 0, prompt: None, answer: Answer::ChooseClass { class: other } };
    let e = crate::rules::decide::decide(&st, &cmd, &mut rng).unwrap_err();
    assert_eq!(e.rule, "R2.7.3");
    assert_eq!(prompt_for(&st, 0).unwrap().default, Answer::ChooseClass { class: o[0] });
    let mut out = Vec::new();
    crate::rules::decide::decide_mut(&mut st, &crate::model::command::Command::Timeout, &mut rng, &mut out).unwrap();
    assert_eq!(seat_classes(&st)[0], Some(o[0]));
}

/// R2.8: a 2-player table never offers the 9 excluded classes; B1.
#[test]
fn r2_8_two_player_offers_come_from_the_29() {
    for seed in 0..30 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let st = fold(&create(&class_table(2, 0), &mut rng).unwrap());
        for c in offer(&st, 0) {
            assert!(pool_for(2).contains(&c), "{c:?}");
        }
    }
}

/// R2.7.2: banned classes are never offered; R2.7.7: a ban list leaving fewer classes than
/// players is ignored, and this is recorded.
#[test]
fn r2_7_bans_and_r2_7_7_bans_ignored() {
    let mut s = class_table(2, 0);
    s.class_bans = pool_for(2).into_iter().skip(3).collect();
    for seed in 0..10 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let events = create(&s, &mut rng).unwrap();
        assert!(events.iter().any(|e| matches!(e, Event::ClassSelectionStarted { bans_ignored: false })));
        let st = fold(&events);
        assert!(offer(&st, 0).iter().all(|c| !s.class_bans.contains(c)));
    }
    s.class_bans = pool_for(2).into_iter().skip(1).collect();
    let events = create(&s, &mut ChaCha8Rng::seed_from_u64(1)).unwrap();
    assert!(events.iter().any(|e| matches!(e, Event::ClassSelectionStarted { bans_ignored: true })));
    assert_eq!(offer(&fold(&events), 0).len(), 3);
}

/// R9.8.4: with seat_classes there is no selection; duplicates and classes outside the pool
/// are kept (The Mime at a table of 2); R2.9, R7.8.2: a 2-player game with The Witness ends at
/// once with no winner.
#[test]
fn r9_8_4_seat_classes_and_r2_9_witness_at_two() {
    let mut s = class_table(2, 0);
    s.seat_classes = Some(vec![ClassId::Mime, ClassId::Mime]);
    let st = fold(&create(&s, &mut ChaCha8Rng::seed_from_u64(1)).unwrap());
    assert_eq!(seat_classes(&st), vec![Some(ClassId::Mime), Some(ClassId::Mime)]);
    assert!(!st.is_finished());
    s.seat_classes = Some(vec![ClassId::Witness, ClassId::Clown]);
    let st = fold(&create(&s, &mut ChaCha8Rng::seed_from_u64(1)).unwrap());
    let r = st.result().expect("ended at once");
    assert_eq!((r.winner, r.reason), (None, crate::model::event::EndReason::Witnessed));
    assert_eq!(r.placings, vec![2, 2]);
    s.seat_classes = Some(vec![ClassId::Clown]);
    assert_eq!(create(&s, &mut ChaCha8Rng::seed_from_u64(1)).unwrap_err().rule, "R9.8.4");
}

/// Settings contract: `class_bans` and `seat_classes` default when absent; ClassId is snake_case.
#[test]
fn settings_contract_serde() {
    let s: Settings = serde_json::from_str(r#"{"players":4,"classes":true}"#).unwrap();
    assert!(s.class_bans.is_empty() && s.seat_classes.is_none());
    let s: Settings = serde_json::from_str(
        r#"{"players":2,"classes":true,"class_bans":["voodoo_doll"],"seat_classes":["grimoire_of_rejection","funeral_bell"]}"#,
    )
    .unwrap();
    assert_eq!(s.class_bans, vec![ClassId::VoodooDoll]);
    assert_eq!(s.seat_classes, Some(vec![ClassId::GrimoireOfRejection, ClassId::FuneralBell]));
}
