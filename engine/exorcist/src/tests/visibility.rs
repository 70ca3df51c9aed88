//! X11: who sees what, and the leak checker's teeth.

use super::kit::{random_game, table};
use crate::game::Exorcist;
use crate::model::card::CardKind::*;
use crate::model::command::{Answer, Command};
use crate::model::settings::Settings;
use crate::projection::leaks::LeakChecker;
use crate::projection::redact::ViewEvent;
use flicker_game::{Game, Viewer, kit};

fn seat(s: u8) -> Viewer {
    Viewer::Seat { seat: s }
}

/// Feeds the checker every event of a table.
fn checker(events: &[crate::Event]) -> LeakChecker {
    let mut c = LeakChecker::new();
    let mut s = crate::State::default();
    for e in events {
        let before = s.clone();
        Exorcist::apply(&mut s, e);
        c.learn(&before, e, &s);
    }
    c
}

/// X11.5, X11.1: that a peek happened and at whose tile is public; the Role only to the peeker.
#[test]
fn x11_5_a_peek_is_public_its_result_private() {
    let mut t = table(&[(1, 1, BookOfTheMostlyDead)]);
    t.reveal(1, 1);
    let before = t.state.clone();
    let e = t.answer(1, Answer::PeekTile { seat: 3 });
    for v in [seat(0), seat(2), seat(3), Viewer::Spectator] {
        let Some(ViewEvent::RolePeeked { peeker: 1, target: 3, seen: None, .. }) =
            Exorcist::redact(&before, &e[0], &t.state, v)
        else {
            panic!("{v:?}")
        };
        assert!(!Exorcist::view(&t.state, v).known_roles.iter().any(|r| r.seat == 3 && v != seat(3)));
    }
    let Some(ViewEvent::RolePeeked { seen: Some(r), .. }) = Exorcist::redact(&before, &e[0], &t.state, seat(1)) else {
        panic!()
    };
    assert_eq!((r.seat, r.role), (3, t.state.round.as_ref().unwrap().role(3)));
    assert!(Exorcist::view(&t.state, seat(1)).known_roles.iter().any(|k| k.seat == 3));
}

/// X5.2, X5.3, X11.1: a seat sees its dealt cards as a set, never where they lie; others see
/// only sizes.
#[test]
fn x5_3_own_cards_as_a_set_never_positions() {
    let t = table(&[]);
    let v = Exorcist::view(&t.state, seat(2));
    assert!(v.known_cards.is_empty());
    assert!(v.table.iter().all(|r| r.order.is_none() && r.size == 4));
    let dealt: Vec<_> =
        v.log.iter().filter(|n| matches!(n.note, crate::projection::view::NoteView::Dealt(_))).collect();
    assert_eq!(dealt.len(), 1);
    let s = serde_json::to_value(Exorcist::view(&t.state, Viewer::Spectator)).unwrap();
    assert_eq!(s["log"], serde_json::json!([]));
    assert_eq!(s["known_roles"], serde_json::json!([]));
}

/// X11.4: round ends make every tile public; the game's end makes the whole record public.
#[test]
fn x11_4_round_ends_and_the_game_end_make_things_public() {
    let p = random_game(&Settings::new(4), 5);
    let v = Exorcist::view(&p.state, Viewer::Spectator);
    assert!(!v.history.is_empty() && v.history.iter().all(|h| h.roles.len() == 4));
    let stream = kit::redacted_stream::<Exorcist>(&p.events, Viewer::Spectator);
    assert!(stream.iter().flatten().any(|e| matches!(e, ViewEvent::RoundEnded { roles, .. } if roles.len() == 4)));
    // After the end, a spectator's view of the last state shows every row's order.
    let v = serde_json::to_value(Exorcist::view(&p.state, Viewer::Spectator)).unwrap();
    assert!(v["table"].as_array().unwrap().iter().all(|r| r.get("order").is_some()));
}

/// R10.7.1, X11.5: a time-out is shown only to the timed-out seat; others see the answer.
#[test]
fn x11_5_time_outs_look_like_answers() {
    let mut t = table(&[]);
    let before = t.state.clone();
    let e = t.send(Command::Timeout).unwrap();
    assert!(Exorcist::redact(&before, &e[0], &t.state, seat(1)).is_none());
    assert!(Exorcist::redact(&before, &e[0], &t.state, Viewer::Spectator).is_none());
    assert!(Exorcist::redact(&before, &e[0], &t.state, seat(0)).is_some());
}

/// The leak checker finds what a viewer may not see: another seat's view, a Role seen by
/// someone else, a card place nobody knows, and an omniscient field.
#[test]
fn the_leak_checker_catches_leaks() {
    let mut t = table(&[(1, 1, BookOfTheMostlyDead), (2, 3, Piety)]);
    t.reveal(1, 1);
    t.answer(1, Answer::PeekTile { seat: 3 });
    let c = checker(&t.events);
    let v1 = serde_json::to_value(Exorcist::view(&t.state, seat(1))).unwrap();
    assert!(c.check_json(&v1, &t.state, seat(1), false).is_ok());
    // Seat 1's view shown to seat 2 or to a spectator leaks 1's Role, its dealt set and its peek.
    let err = c.check_json(&v1, &t.state, seat(2), false).unwrap_err();
    assert!(err.contains("Role") || err.contains("dealt"), "{err}");
    assert!(c.check_json(&v1, &t.state, Viewer::Spectator, false).is_err());
    // The commentary view may show it (what some player knows).
    assert!(c.check_json(&v1, &t.state, Viewer::Commentary, false).is_ok());
    // A card's current place that nobody peeked at.
    let fake = serde_json::json!({"known_cards": [{"card": "piety", "since": 3, "owner": 2, "position": 3}]});
    assert!(c.check_json(&fake, &t.state, seat(1), false).is_err());
    // A card name outside any allowed shape, a Role name, an omniscient key.
    for bad in [
        serde_json::json!({"hint": "piety"}),
        serde_json::json!({"team": "possessed"}),
        serde_json::json!({"order": [1, 2]}),
        serde_json::json!({"seat": 3, "pick": 2}),
        serde_json::json!({"tie_card": "blessing", "layout": 1, "position": 2}),
    ] {
        assert!(c.check_json(&bad, &t.state, seat(1), false).is_err(), "{bad}");
    }
    // The Everything viewer may see all.
    let all = serde_json::to_value(Exorcist::view(&t.state, Viewer::Everything)).unwrap();
    assert!(c.check_json(&all, &t.state, seat(1), false).is_err());
    assert!(c.check_json(&all, &t.state, Viewer::Everything, false).is_ok());
}

/// R10.11: a client's settings: unknown fields and platform fields refused.
#[test]
fn r10_11_settings_from_a_client() {
    use flicker_game::SettingsRefusal;
    use serde_json::json;
    let s = Exorcist::settings_from_client(5, None).unwrap();
    assert_eq!(s, Settings::new(5));
    let s = Exorcist::settings_from_client(6, Some(json!({"target": 9, "first_seeker": 2}))).unwrap();
    assert_eq!((s.players, s.target, s.first_seeker), (6, 9, Some(2)));
    let refused = |v| Exorcist::settings_from_client(5, Some(v)).unwrap_err();
    assert!(matches!(refused(json!({"players": 4})), SettingsRefusal::Invalid(_)));
    assert!(matches!(refused(json!({"hold_windows": true})), SettingsRefusal::Invalid(_)));
    assert!(matches!(refused(json!({"colour": "red"})), SettingsRefusal::UnknownField(_)));
    assert!(matches!(refused(json!({"target": "seven"})), SettingsRefusal::Invalid(_)));
    let bad = Exorcist::settings_from_client(5, Some(json!({"first_seeker": 5}))).unwrap();
    assert_eq!(Exorcist::validate(&bad).unwrap_err().rule, "X3.4");
}

/// R10.1.3: a game recorded under another ruleset version refuses every command; events
/// serialise adjacently tagged.
#[test]
fn r10_1_3_unknown_ruleset_refused() {
    let mut t = table(&[]);
    t.state.ruleset.as_mut().unwrap().version = 99;
    let e = t.send(Command::Timeout).unwrap_err();
    assert_eq!(e.rule, "R10.1.3");
    let j = serde_json::to_value(&t.events[0]).unwrap();
    assert_eq!(j["type"], "game_created");
    assert_eq!(j["payload"]["ruleset"]["id"], "exorcist");
    assert!(Exorcist::create_from_position(&Settings::new(4), "x", &mut rand::rng()).is_err());
}

/// R10.10: a conceded seat's prompts take their defaults; the last seat left wins.
#[test]
fn r10_10_concessions() {
    let mut t = table(&[]);
    t.send(Command::Concede { seat: 0 }).unwrap();
    assert_ne!(t.prompt().seat, 0, "0's selection was made by default");
    t.send(Command::Concede { seat: 1 }).unwrap();
    t.send(Command::Concede { seat: 2 }).unwrap();
    assert!(t.state.result.is_some());
    assert!(t.send(Command::Concede { seat: 3 }).is_err());
}
