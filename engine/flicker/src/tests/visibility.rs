//! Zones and visibility (RULES.md section 3) and card identity in views (R10.3, R10.8.1), checked
//! on the per-viewer projection [`view`] the platform serves, from positions set with the kit.

use super::kit::*;
use crate::model::action::Action;
use crate::model::classes::ClassId;
use crate::model::handle::CardView;
use crate::projection::view::{Half, Phase, View, Viewer, view};

const SPECTATOR: Viewer = Viewer::Spectator;

fn seat(s: u8) -> Viewer {
    Viewer::Seat { seat: s }
}

/// The handles of every card shown anywhere in a view.
fn shown_handles(v: &View) -> Vec<u64> {
    crate::projection::leaks::card_views(&serde_json::to_value(v).unwrap()).into_iter().map(|c| c.handle).collect()
}

fn handle_of(k: &Kit, c: crate::model::card::CardId) -> u64 {
    crate::model::handle::handle(&k.state, c).0
}

fn faces(cards: &[CardView]) -> Vec<String> {
    cards.iter().map(|c| name(c.face)).collect()
}

/// Every viewer of a 4-seat table during the game: the four seats and a spectator.
fn viewers() -> Vec<Viewer> {
    vec![seat(0), seat(1), seat(2), seat(3), SPECTATOR]
}

/// A 4-seat position with something in every zone: hands, Candles, Shadows, The Dark, pages,
/// Walls, cards out of play.
fn table() -> Kit {
    Kit::new(4)
        .class(1, ClassId::GrimoireOfRejection)
        .class(2, ClassId::Cryptkeeper)
        .hand(0, &["7H", "7H", "2C"])
        .hand(1, &["9S"])
        .candle(0, &["KS", "3D", "8C"])
        .shadow(1, &[("4S", Some(0)), ("6H", Some(2)), ("3C", Some(3)), ("2D", None)])
        .shadow(3, &[("9D", Some(3))])
        .walls(2, &[("QD", 2)])
        .pages(1, &["JH", "10C"])
        .dark(&["8S", "2H", "QC"])
}

/// R3.1, R3.2, R3.2.2: a Candle is a face-down stack seen by nobody, its owner included; only its
/// size is public.
#[test]
fn r3_2_2_candles_show_only_their_size() {
    let k = table();
    for v in viewers() {
        let shown = view(&k.state, v);
        for p in &shown.players {
            assert_eq!(p.candle, None, "{v:?} sees seat {}'s Candle", p.seat);
            assert_eq!(p.candle_size, k.state.players[p.seat as usize].candle.len());
        }
    }
    assert_eq!(view(&k.state, seat(0)).players[0].candle_size, 3);
}

/// R3.3, R3.3.1: only the owner sees their hand (in acquisition order, identical cards told apart
/// by their handles, R10.3); its size is public.
#[test]
fn r3_3_1_only_the_owner_sees_the_hand_r10_3_identical_cards_are_distinct() {
    let k = table();
    for v in viewers() {
        let shown = view(&k.state, v);
        for p in &shown.players {
            assert_eq!(p.hand_size, k.state.players[p.seat as usize].hand.len());
            match v {
                Viewer::Seat { seat } if seat == p.seat => {
                    assert_eq!(faces(p.hand.as_ref().unwrap()), k.hand_of(p.seat))
                }
                _ => assert_eq!(p.hand, None, "{v:?} sees seat {}'s hand", p.seat),
            }
        }
    }
    // R10.3: the two 7♥ of seat 0 are two instances with two different handles.
    let hand = view(&k.state, seat(0)).players[0].hand.clone().unwrap();
    assert_eq!((name(hand[0].face), name(hand[1].face)), ("7H".to_string(), "7H".to_string()));
    assert_ne!(hand[0].handle, hand[1].handle);
}

/// R3.2.3: a Candle card becomes visible when an effect reveals it: drawn into a hand (Greed),
/// only its owner sees it; burned into The Dark (Drain here moves cards between Candles face
/// down, so nobody sees them).
#[test]
fn r3_2_3_candle_cards_are_revealed_only_by_an_effect() {
    let mut k = table();
    let card = k.in_hand(0, "2C");
    k.act(0, Action::Greed { card, target: 0 }).unwrap();
    k.quiet();
    assert_eq!(k.hand_of(0), vec!["7H", "7H", "KS", "3D"], "Greed drew the top two");
    let own = view(&k.state, seat(0));
    assert_eq!(faces(own.players[0].hand.as_ref().unwrap()), vec!["7H", "7H", "KS", "3D"]);
    for v in [seat(1), seat(2), seat(3), SPECTATOR] {
        let shown = view(&k.state, v);
        assert_eq!(shown.players[0].hand, None);
        assert_eq!(shown.players[0].hand_size, 4);
        let drawn = [handle_of(&k, k.state.players[0].hand[2]), handle_of(&k, k.state.players[0].hand[3])];
        assert!(!shown_handles(&shown).iter().any(|h| drawn.contains(h)), "{v:?} was shown a drawn card");
    }
}

/// R3.4, R3.4.1, R3.4.3: ghosts lie face up for everyone, each with its tracked haunter and
/// effective suit, in entry order; Walls lie face down (R8.2.7: only their builder sees them).
#[test]
fn r3_4_1_ghosts_are_public_with_haunter_and_suit_walls_face_down() {
    let mut k = table();
    // R3.4.3: the effective suit is recorded apart from the printed one (The Fatalist).
    k.state.players[3].shadow[0].suit = Some(crate::model::card::Suit::Spades);
    for v in viewers() {
        let shown = view(&k.state, v);
        let s1: Vec<(String, Option<u8>)> =
            shown.players[1].shadow.iter().map(|g| (name(g.card.face), g.haunter)).collect();
        assert_eq!(s1, k.shadow_of(1), "{v:?}");
        let g = &shown.players[3].shadow[0];
        assert_eq!(
            (name(g.card.face), g.suit),
            ("9D".to_string(), Some(crate::model::card::Suit::Spades)),
            "printed 9♦, effective suit ♠"
        );
        assert_eq!(shown.players[2].walls.len(), 1, "R3.9: the number of Walls is public");
        let wall = shown.players[2].walls[0].card.as_ref().map(|c| name(c.face));
        assert_eq!(wall, (v == seat(2)).then(|| "QD".to_string()), "{v:?}");
    }
}

/// R3.4.5: the display halves: a ghost haunted by the owner's left neighbour lies in the left
/// half, by the right neighbour in the right half, otherwise (no haunter, a non-adjacent or
/// eliminated haunter) in the middle; with two Lit players everything is in the middle.
#[test]
fn r3_4_5_halves_follow_the_haunter_and_the_seating() {
    let k = table();
    let halves = |k: &Kit| -> Vec<Half> {
        view(&k.state, SPECTATOR).players[1].shadow.iter().map(|g| g.half).collect::<Vec<_>>()
    };
    // Seat 1: left neighbour 2, right neighbour 0; haunters 0, 2, 3 (not adjacent), none.
    assert_eq!(halves(&k), vec![Half::Right, Half::Left, Half::Middle, Half::Middle]);
    // Seat 2 eliminated: seat 1's left neighbour becomes 3, and 2's ghost goes to the middle.
    let k2 = table().hand(2, &[]).shadow(2, &[]).walls(2, &[]).candle(2, &[]).out(2, 4);
    assert_eq!(halves(&k2), vec![Half::Right, Half::Middle, Half::Left, Half::Middle]);
    // Two Lit players: one zone.
    let k3 = k2.hand(3, &[]).shadow(3, &[]).candle(3, &[]).out(3, 3);
    assert_eq!(halves(&k3), vec![Half::Middle; 4]);
}

/// R3.5, R3.5.2, R10.8.1: The Dark is one face-up stack; its size and top card are public, and
/// no view lists the cards below the top during the game.
#[test]
fn r3_5_2_r10_8_1_the_dark_shows_its_size_and_top() {
    let k = table();
    for v in viewers() {
        let d = view(&k.state, v).dark;
        assert_eq!(d.size, 3);
        assert_eq!(d.top.map(|c| name(c.face)), Some("8S".to_string()));
        assert_eq!(d.cards, None, "{v:?} sees below the top of The Dark");
    }
}

/// R3.6: Grimoire pages: their number is public, their faces only for their owner; they are not
/// part of the hand.
#[test]
fn r3_6_pages_are_counted_publicly_and_seen_by_their_owner() {
    let k = table();
    for v in viewers() {
        let p = &view(&k.state, v).players[1];
        assert_eq!(p.pages, 2);
        assert_eq!(p.hand_size, 1, "pages are not in the hand");
        let pages = p.page_cards.as_ref().map(|c| faces(c));
        assert_eq!(pages, (v == seat(1)).then(|| vec!["JH".to_string(), "10C".to_string()]), "{v:?}");
    }
}

/// R3.7: a card played as an action waits face up in the Resolving area; a Wall being built waits
/// there face down (only its builder sees it).
#[test]
fn r3_7_resolving_area_face_up_except_a_wall_being_built() {
    let mut k = table().hand(2, &["6S"]);
    let card = k.in_hand(0, "2C");
    k.act(0, Action::Haunt { card, target: 1 }).unwrap();
    for v in viewers() {
        let shown = view(&k.state, v);
        assert_eq!(faces(&shown.resolving), vec!["2C"], "{v:?}");
        assert_eq!(shown.phase, Phase::Action);
    }
    let mut k = table().hand(2, &["6S"]).ritual(2);
    let card = k.in_hand(2, "6S");
    k.act(2, Action::BuildWall { card }).unwrap();
    for v in viewers() {
        let shown = view(&k.state, v);
        if v == seat(2) {
            assert_eq!(faces(&shown.resolving), vec!["6S"]);
        } else {
            assert!(shown.resolving.is_empty(), "{v:?} sees the Wall being built");
            assert_eq!(shown.resolving_face_down, 1);
        }
    }
}

/// R3.8: cards out of play are seen by nobody until the game ends (only their number is shown).
#[test]
fn r3_8_cards_out_of_play_are_seen_by_nobody() {
    let k = table();
    let n = k.state.out_of_play.len();
    assert!(n > 0);
    for v in viewers() {
        let shown = view(&k.state, v);
        assert_eq!(shown.out_of_play, n);
        let handles = shown_handles(&shown);
        for &c in &k.state.out_of_play {
            assert!(!handles.contains(&handle_of(&k, c)), "{v:?} sees a card out of play");
        }
    }
}

/// R3.9: always public: seat order, who is Lit, classes, the size of every zone, Walls, used
/// once-per-game abilities, whose turn and which phase: every viewer's view agrees on them.
#[test]
fn r3_9_public_facts_are_the_same_for_every_viewer() {
    let mut k = table().class(3, ClassId::Mimic).hand(3, &[]).shadow(3, &[]).candle(3, &[]).out(3, 4);
    k.state.players[3].once_used = true;
    let public = |v: &View| {
        let players: Vec<_> = v
            .players
            .iter()
            .map(|p| {
                (
                    p.seat,
                    p.lit,
                    p.placing,
                    p.class,
                    p.candle_size,
                    p.hand_size,
                    p.shadow.len(),
                    p.walls.len(),
                    p.pages,
                    p.once_used,
                )
            })
            .collect();
        (players, v.dark.size, v.active, v.phase, v.round)
    };
    let spectator = public(&view(&k.state, SPECTATOR));
    for v in viewers() {
        assert_eq!(public(&view(&k.state, v)), spectator, "{v:?}");
    }
    let (players, ..) = spectator;
    assert_eq!(players[3], (3, false, Some(4), Some(ClassId::Mimic), 0, 0, 0, 0, 0, true));
    assert_eq!(players[1].3, Some(ClassId::GrimoireOfRejection));
    assert_eq!((view(&k.state, SPECTATOR).active, view(&k.state, SPECTATOR).phase), (Some(0), Phase::Ritual));
}

/// R3.3.3: a card revealed from a hand as a reaction (a Salt) becomes public: it lies face up in
/// the Resolving area for every viewer.
#[test]
fn r3_3_3_a_salt_from_the_hand_is_public() {
    let mut k = Kit::new(4).hand(0, &["2C", "9H"]).hand(1, &["3D"]).hand(2, &["5D"]);
    let card = k.in_hand(0, "2C");
    k.act(0, Action::Haunt { card, target: 1 }).unwrap();
    k.answer(1, crate::model::command::Answer::Pass).unwrap();
    let five = k.in_hand(2, "5D");
    k.answer(2, crate::model::command::Answer::Salt { card: five }).unwrap();
    for v in viewers() {
        assert!(faces(&view(&k.state, v).resolving).contains(&"5D".to_string()), "{v:?}");
    }
}
