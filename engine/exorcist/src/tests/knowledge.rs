//! X10, X11.2, X11.3: peeks, shuffled tiles, what a player may never look at, randomness in
//! events, and the private log.

use super::kit::{Table, table};
use crate::game::Exorcist;
use crate::model::card::CardKind::*;
use crate::model::command::{Answer, Command};
use crate::model::event::Event;
use crate::model::settings::Settings;
use crate::projection::redact::ViewEvent;
use crate::projection::view::NoteView;
use flicker_game::{Game, Viewer, kit};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

fn seat(s: u8) -> Viewer {
    Viewer::Seat { seat: s }
}

/// The seats whose Role `viewer` knows now.
fn known_roles(t: &Table, viewer: Viewer) -> Vec<u8> {
    Exorcist::view(&t.state, viewer).known_roles.iter().map(|r| r.seat).collect()
}

/// X10.1, X0.4: a peek shows the object to the peeker only: Vile Violation's peek at a card and
/// Pazuzu Bust's at a tile reach every other seat and a spectator without what they showed,
/// and leave nothing in their views.
#[test]
fn x10_1_a_peek_reveals_nothing_to_anyone_else() {
    let mut t = table(&[(1, 1, VileViolation), (3, 2, Piety)]);
    t.reveal(1, 1);
    let before = t.state.clone();
    let e = t.answer(1, Answer::Card { owner: 3, position: 2 });
    for v in [seat(0), seat(2), seat(3), Viewer::Spectator] {
        let Some(ViewEvent::CardPeeked { peeker: 1, owner: 3, position: 2, seen: None }) =
            Exorcist::redact(&before, &e[0], &t.state, v)
        else {
            panic!("{v:?}")
        };
        let view = Exorcist::view(&t.state, v);
        assert!(view.known_cards.is_empty(), "{v:?}");
        assert!(!view.log.iter().any(|n| matches!(n.note, NoteView::Card(_))), "{v:?}");
    }
    let Some(ViewEvent::CardPeeked { seen: Some(s), .. }) = Exorcist::redact(&before, &e[0], &t.state, seat(1)) else {
        panic!()
    };
    assert_eq!((s.card, s.owner, s.position), (Piety, 3, 2));
    assert!(Exorcist::view(&t.state, seat(1)).known_cards.iter().any(|k| k.card == Piety && k.owner == 3));

    // A tile: Pazuzu Bust lets the Seeker (0) look at the Chosen's (2).
    let mut t = table(&[(2, 1, PazuzuBust)]);
    t.reveal(2, 1);
    let before = t.state.clone();
    let e = t.answer(0, Answer::Peek);
    for v in [seat(1), seat(3), Viewer::Spectator] {
        let Some(ViewEvent::RolePeeked { peeker: 0, target: 2, seen: None, .. }) =
            Exorcist::redact(&before, &e[0], &t.state, v)
        else {
            panic!("{v:?}")
        };
        assert!(!known_roles(&t, v).contains(&2), "{v:?}");
    }
    assert!(known_roles(&t, seat(0)).contains(&2));
}

/// X10.2, X9.16: tiles shuffled between two players are seen by nobody: afterwards neither
/// holder knows its tile or the other's, a third player who had peeked at both forgets them,
/// and the event shows the Roles to no player or spectator; only a peek the effect allows tells
/// the Chosen again.
#[test]
fn x10_2_shuffled_tiles_are_seen_by_nobody() {
    let mut t = table(&[(1, 1, BookOfTheMostlyDead), (2, 1, PazuzuBust), (3, 1, IsThatYouSatan)]);
    t.set_goal(4, 3);
    // 1 (the Chosen of the Book) peeks at 3's tile, then at 2's as the Seeker of Pazuzu Bust.
    t.reveal(1, 1);
    t.answer(1, Answer::PeekTile { seat: 3 });
    t.reveal(2, 1);
    t.answer(1, Answer::Peek);
    assert_eq!(known_roles(&t, seat(1)), vec![1, 3, 2]);
    assert_eq!(known_roles(&t, seat(2)), vec![2]);
    // 2 seeks and turns up 3's Satan: 2's and 3's tiles are shuffled.
    let before = t.state.clone();
    let new = t.reveal(3, 1);
    let i = new.iter().position(|e| matches!(e, Event::TilesShuffled { seeker: 2, chosen: 3, .. })).expect("shuffled");
    for v in [seat(0), seat(1), seat(2), seat(3), Viewer::Spectator] {
        let mut s = before.clone();
        for e in &new[..i] {
            Exorcist::apply(&mut s, e);
        }
        let mid = s.clone();
        Exorcist::apply(&mut s, &new[i]);
        let Some(ViewEvent::TilesShuffled { roles_now: None, .. }) = Exorcist::redact(&mid, &new[i], &s, v) else {
            panic!("{v:?}")
        };
        let known = known_roles(&t, v);
        assert!(!known.contains(&2) && !known.contains(&3), "X10.2: {v:?} knows {known:?}");
    }
    assert_eq!(known_roles(&t, seat(1)), vec![1], "1 forgot the tiles of 2 and 3");
    assert_eq!(known_roles(&t, seat(2)), Vec::<u8>::new(), "2 does not know which tile it holds");
    assert_eq!(known_roles(&t, seat(0)), vec![0]);
    // The effect lets the Chosen look at one of the two.
    t.answer(3, Answer::PeekTile { seat: 3 });
    assert_eq!(known_roles(&t, seat(3)), vec![3]);
    assert_eq!(known_roles(&t, seat(2)), Vec::<u8>::new());
}

/// X10.3, X5.3: outside of peeks a player never looks at its own tile or a face-down card: no
/// answer outside a peek prompt looks at anything, a seat's view shows no row's order (its own
/// included) and no card place it did not peek at, and a tile that was shuffled stays unknown
/// to its holder until an effect lets it look (Tablet Chunk).
#[test]
fn x10_3_no_look_outside_of_peeks() {
    let mut t = table(&[(1, 1, IsThatYouSatan), (2, 1, TabletChunk)]);
    for s in 0..4 {
        let v = Exorcist::view(&t.state, seat(s));
        assert!(v.table.iter().all(|r| r.order.is_none()), "X5.3: no order, not even its own");
        assert!(v.known_cards.is_empty());
    }
    for answer in [Answer::Peek, Answer::PeekTile { seat: 0 }, Answer::PeekTile { seat: 1 }] {
        assert!(t.send(Command::Answer { seat: 0, prompt: None, answer }).is_err(), "{answer:?}");
    }
    t.reveal(1, 1);
    t.answer(1, Answer::Decline);
    assert!(!known_roles(&t, seat(0)).contains(&0) && !known_roles(&t, seat(1)).contains(&1));
    // 1 seeks: at its selection it may not look at its tile.
    for answer in [Answer::Peek, Answer::PeekTile { seat: 1 }] {
        assert!(t.send(Command::Answer { seat: 1, prompt: None, answer }).is_err(), "{answer:?}");
    }
    assert!(!known_roles(&t, seat(1)).contains(&1));
    t.reveal(2, 1);
    let e = t.answer(1, Answer::Peek);
    assert!(matches!(e[0], Event::RolePeeked { peeker: 1, target: 1, cause: TabletChunk, .. }));
    assert!(known_roles(&t, seat(1)).contains(&1), "Tablet Chunk allows the look");
}

/// X11.2, R10.1.1: every random outcome is decided by the server and recorded: games played
/// entirely by time-outs (random defaults for every selection and pick, on top of the deck, the
/// Role deal, the row, tile and Hijinx shuffles) fold from their events alone, with no
/// generator, to the live state; and the same command decided with another generator records
/// another outcome, which the fold follows.
#[test]
fn x11_2_every_random_outcome_is_in_an_event() {
    let mut kinds = std::collections::BTreeSet::new();
    for seed in 0..8u64 {
        let mut s = Settings::new(4 + (seed % 5) as u8);
        s.target = 3;
        let mut t = Table::with(s, seed);
        for _ in 0..5_000 {
            if t.state.is_finished() {
                break;
            }
            t.send(Command::Timeout).unwrap();
        }
        assert!(t.state.is_finished(), "seed {seed}");
        kit::check_fold::<Exorcist>(&t.events, &t.state).unwrap();
        kinds.extend(t.events.iter().map(Event::type_name));
    }
    for k in ["round_started", "deal_started", "card_revealed", "hijinx_returned", "rows_exchanged", "tiles_shuffled"] {
        assert!(kinds.contains(k), "{k} played: {kinds:?}");
    }
    // One time-out, two generators: two recorded outcomes, each replayed as recorded.
    let t = Table::new(6, 3);
    let outcomes: Vec<Vec<Event>> = (0..8u64)
        .map(|g| Exorcist::decide(&t.state, &Command::Timeout, &mut ChaCha8Rng::seed_from_u64(g)).unwrap())
        .collect();
    assert!(outcomes.iter().any(|o| o != &outcomes[0]), "the default is drawn");
    for o in &outcomes {
        let mut events = t.events.clone();
        events.extend(o.iter().cloned());
        let replayed = kit::fold::<Exorcist>(&events);
        let Some(Event::CardRevealed { card, .. }) = o.iter().find(|e| matches!(e, Event::CardRevealed { .. })) else {
            panic!("{o:?}")
        };
        let r = replayed.round.as_ref().unwrap();
        let in_play = r.turn.map(|x| x.card).into_iter().chain(r.centre.iter().map(|c| c.card));
        assert!(in_play.clone().any(|c| c == *card), "the replay turned up the recorded card");
    }
}

/// X11.3, X11.1: each seat's private log keeps what it legitimately saw (its Role at the look,
/// each deal's cards as a set, its peeks) and nothing else; the current place of a face-down
/// card is shown only while the peek still tells it: once the card's row is shuffled again
/// (the next deal), the log keeps the sighting but no view places the card.
#[test]
fn x11_3_the_private_log() {
    let mut t = table(&[(1, 1, VileViolation), (3, 2, Piety), (2, 1, Piety), (3, 1, Piety), (0, 1, SatanicSpew)]);
    t.reveal(1, 1);
    t.answer(1, Answer::Card { owner: 3, position: 2 });
    t.reveal(2, 1);
    t.reveal(3, 1);
    // The peeked Piety moved to position 1 of 3's row: 1 knows it, nobody else.
    let v1 = Exorcist::view(&t.state, seat(1));
    assert!(v1.known_cards.iter().any(|k| (k.card, k.owner, k.position) == (Piety, 3, 1)), "{:?}", v1.known_cards);
    t.reveal(0, 1);
    assert_eq!(t.state.round.as_ref().unwrap().deal, 2, "the deal ended and the rest was dealt again");
    let v1 = Exorcist::view(&t.state, seat(1));
    assert!(v1.known_cards.is_empty(), "X11.3: no current place after the redeal: {:?}", v1.known_cards);
    let cards: Vec<_> = v1
        .log
        .iter()
        .filter_map(|n| match &n.note {
            NoteView::Card(c) => Some((c.card, c.owner, c.position)),
            _ => None,
        })
        .collect();
    assert_eq!(cards, vec![(Piety, 3, 2)], "the sighting as it was");
    let dealt: Vec<_> = v1
        .log
        .iter()
        .filter_map(|n| match &n.note {
            NoteView::Dealt(d) => Some((d.seat, d.deal, d.dealt.len())),
            _ => None,
        })
        .collect();
    assert_eq!(dealt, vec![(1, 1, 4), (1, 2, 3)], "its own sets only");
    let roles: Vec<_> = v1
        .log
        .iter()
        .filter_map(|n| match &n.note {
            NoteView::Role(r) => Some(r.seat),
            _ => None,
        })
        .collect();
    assert_eq!(roles, vec![1]);
    for s in [0, 2, 3] {
        let v = Exorcist::view(&t.state, seat(s));
        assert!(!v.log.iter().any(|n| matches!(n.note, NoteView::Card(_))), "seat {s}");
        assert!(v.log.iter().all(|n| n.seer == s));
        assert!(v.log.iter().all(|n| match &n.note {
            NoteView::Dealt(d) => d.seat == s,
            NoteView::Role(r) => r.seat == s,
            NoteView::Card(_) => false,
        }));
    }
    assert!(Exorcist::view(&t.state, Viewer::Spectator).log.is_empty());
}

/// X11.3, X11.5: the commentary view's log is every seat's own log, seat by seat, each entry
/// naming its seer, and so is the complete record's after the game: what a reader of every log
/// learns is who saw what, never a mix of peeks without their peekers.
#[test]
fn x11_3_every_log_entry_names_its_seer() {
    for seed in 0..6 {
        let p = super::kit::random_game(&Settings::new(4 + (seed % 5) as u8), seed);
        let mut state = <Exorcist as Game>::State::default();
        let mut checked = 0;
        for (i, e) in p.events.iter().enumerate() {
            Exorcist::apply(&mut state, e);
            if Exorcist::is_finished(&state) {
                let all = Exorcist::view(&state, Viewer::Everything).log;
                assert!(all.iter().any(|n| n.seer != all[0].seer), "seed {seed}: every seat's log");
                for n in &all {
                    if let NoteView::Dealt(d) = &n.note {
                        assert_eq!(d.seat, n.seer, "seed {seed}: a seat is dealt its own cards");
                    }
                }
                continue;
            }
            if i % 7 != 0 {
                continue;
            }
            let mut own = Vec::new();
            for s in 0..state.players() {
                let log = Exorcist::view(&state, seat(s)).log;
                assert!(log.iter().all(|n| n.seer == s), "seed {seed}, seat {s}");
                own.extend(log);
            }
            assert_eq!(Exorcist::view(&state, Viewer::Commentary).log, own, "seed {seed}, event {i}");
            checked += 1;
        }
        assert!(checked > 3, "seed {seed}");
    }
}
