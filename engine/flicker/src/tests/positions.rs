//! R10.13 full positions: export, import, their equality up to handles (over random games with
//! classes, both rulesets), replays that go on from an imported position as the original did,
//! the per-viewer export against the leak checker (R10.8), parse errors and legality refusals.

use super::bot::random_answer;
use crate::model::command::Command;
use crate::model::event::Event;
use crate::model::handle::handle;
use crate::model::settings::{RulesetName, SaltWindow, Settings};
use crate::model::state::{HandleKey, State};
use crate::position::{
    Position, StepPos, create_from_full, create_from_position, normalised, position_exact, position_for, position_of,
    same_up_to_handles, validate_str,
};
use crate::projection::leaks::check_position;
use crate::projection::view::{Viewer, view};
use crate::rules::decide::{create, decide};
use crate::rules::evolve::apply;
use crate::rules::prompt::{PromptKind, prompts};
use crate::rules::replay::fold;
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use serde_json::Value;
use std::collections::HashMap;

fn viewers(n: usize) -> Vec<Viewer> {
    let mut v: Vec<Viewer> = (0..n as u8).map(|seat| Viewer::Seat { seat }).collect();
    v.extend([Viewer::Spectator, Viewer::Commentary, Viewer::Everything]);
    v
}

/// The next command of the random bot (as in the property tests).
fn next_command(state: &State, bot: &mut ChaCha8Rng) -> Command {
    let open = prompts(state);
    match open.iter().find(|p| !matches!(p.kind, PromptKind::Salt { current: Some(_), .. })) {
        Some(p) => Command::Answer { seat: p.seat, prompt: Some(p.id), answer: random_answer(p, bot) },
        None => Command::CloseWindow,
    }
}

/// One settled moment of a game: the state before a command, the seeds of the generators the
/// command was chosen and decided with, and the events it caused.
struct Moment {
    state: State,
    seed: u64,
    events: Vec<Event>,
}

impl Moment {
    /// The generator `decide` drew from.
    fn rng(&self) -> ChaCha8Rng {
        ChaCha8Rng::seed_from_u64(self.seed)
    }
    /// The bot's generator.
    fn bot(&self) -> ChaCha8Rng {
        ChaCha8Rng::seed_from_u64(self.seed ^ 0x5eed)
    }
}

/// Plays a random game, keeping every settled moment (each command gets fresh generators
/// seeded from `seed` and its index, so that it can be decided again).
fn playout(settings: &Settings, seed: u64) -> (Vec<Event>, Vec<Moment>, State) {
    let created = create(settings, &mut ChaCha8Rng::seed_from_u64(seed)).expect("created");
    let mut state = fold(&created);
    let mut moments = Vec::new();
    let mut k = 0u64;
    while !state.is_finished() {
        k += 1;
        assert!(k < 100_000, "the game does not end");
        let m = Moment { state: state.clone(), seed: seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ k, events: Vec::new() };
        let cmd = next_command(&state, &mut m.bot());
        let events = decide(&state, &cmd, &mut m.rng()).expect("a legal bot command");
        for e in &events {
            apply(&mut state, e);
        }
        moments.push(Moment { events, ..m });
    }
    (created, moments, state)
}

fn random_settings(rng: &mut ChaCha8Rng, classic: bool) -> Settings {
    let players = rng.random_range(2..=6u8);
    let mut s = Settings::new(players);
    s.classes = true;
    if classic {
        s.ruleset = RulesetName::Classic;
    }
    s.salt_window = if rng.random_bool(0.5) { SaltWindow::Simultaneous } else { SaltWindow::Sequential };
    if rng.random_bool(0.3) {
        s.round_limit = 10;
    }
    if !classic && rng.random_bool(0.2) {
        s.first_player = crate::model::settings::FirstPlayer::Ask { seat: rng.random_range(0..players) };
    }
    if !classic && rng.random_bool(0.2) {
        s.class_bans = vec![crate::model::classes::ClassId::Clown, crate::model::classes::ClassId::Hex];
    }
    s
}

/// A view's JSON with every card handle replaced by the card's face and the prompt id left
/// out: equal for two states equal up to handles.
fn unhandled(state: &State, viewer: Viewer) -> Value {
    let by_handle: HashMap<u64, String> = (0..state.pool.len() as u16)
        .map(crate::model::card::CardId)
        .map(|c| (handle(state, c).0, state.face(c).to_string()))
        .collect();
    fn walk(v: &mut Value, m: &HashMap<u64, String>) {
        match v {
            Value::Number(n) => {
                if let Some(f) = n.as_u64().and_then(|h| m.get(&h)) {
                    *v = Value::String(format!("card {f}"));
                }
            }
            Value::Array(a) => a.iter_mut().for_each(|x| walk(x, m)),
            Value::Object(o) => o.values_mut().for_each(|x| walk(x, m)),
            _ => {}
        }
    }
    let mut v = serde_json::to_value(view(state, viewer)).expect("view json");
    if let Some(p) = v.get_mut("prompt").and_then(Value::as_object_mut) {
        p.remove("id");
    }
    walk(&mut v, &by_handle);
    v
}

/// `state` with handles and versions zeroed, card ids kept (for exact imports).
fn same_ids(state: &State) -> State {
    let mut s = state.clone();
    s.epochs.iter_mut().for_each(|e| *e = 0);
    s.handle_key = HandleKey::default();
    s.version = 0;
    s.decision_opened_at = 0;
    s.peek = None;
    s
}

fn importable(state: &State) -> bool {
    !matches!(position_of(state).step, StepPos::Pending { .. })
}

/// Exports `state`, checks the text and JSON forms read back, imports it and checks the
/// import equals the original up to handles, with the same views for every viewer; the exact
/// export gives the same card instances.
fn round_trip(state: &State, what: &str) {
    let pos = position_of(state);
    let text = pos.to_string();
    let back = Position::parse(&text).unwrap_or_else(|e| panic!("{what}: {e}\n{text}"));
    assert_eq!(back, pos, "{what}: text round trip\n{text}");
    let json = serde_json::to_string(&pos).unwrap();
    assert_eq!(serde_json::from_str::<Position>(&json).unwrap(), pos, "{what}: JSON round trip\n{json}");
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let events = create_from_full(None, &back, &mut rng).unwrap_or_else(|e| panic!("{what}: {e}\n{text}"));
    assert_eq!(events.len(), 1, "{what}: a settled position needs no automatic step");
    let imported = fold(&events);
    assert!(same_up_to_handles(state, &imported), "{what}: import differs\n{text}");
    assert_eq!(normalised(state), normalised(&imported));
    for v in viewers(state.players.len()) {
        assert_eq!(unhandled(state, v), unhandled(&imported, v), "{what}: the view of {v:?} differs\n{text}");
    }
    let exact = Position::parse(&position_exact(state).to_string()).unwrap();
    let imported = fold(&create_from_full(None, &exact, &mut rng).unwrap());
    assert_eq!(same_ids(state), same_ids(&imported), "{what}: exact import differs");
}

/// R10.13: for 1,000 random states of simulated games with classes (both rulesets, 2-6
/// seats), export then import gives a state equal up to handles, instance ids and stream
/// versions, with the same view for every viewer.
#[test]
fn r10_13_export_then_import_gives_the_same_state_and_views() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x9051);
    let (mut checked, mut pending, mut games) = (0, 0, 0u64);
    let mut steps: HashMap<String, usize> = HashMap::new();
    while checked < 1000 {
        let settings = random_settings(&mut rng, games % 2 == 1);
        let seed = rng.random::<u64>();
        let (_, moments, last) = playout(&settings, seed);
        games += 1;
        for (k, m) in moments.iter().enumerate() {
            if !importable(&m.state) {
                pending += 1;
                continue;
            }
            if rng.random_ratio(1, 8) || k == 0 {
                let step = position_of(&m.state).step.token();
                *steps.entry(step.split(['@', ':']).next().unwrap_or("").to_string()).or_default() += 1;
                round_trip(&m.state, &format!("game {games} (seed {seed}), moment {k}"));
                checked += 1;
            }
        }
        round_trip(&last, &format!("game {games} (seed {seed}), the end"));
    }
    eprintln!("positions checked by step: {steps:?}; {pending} moments inside an action");
    for s in ["ritual", "haunting", "burden", "selecting", "turn-order", "martyr", "eliminating"] {
        assert!(steps.get(s).is_some_and(|&k| k > 0), "no {s} position among {steps:?}");
    }
    assert!(pending > 0 && games > 10);
}

/// R10.13: a position exported at step N of a finished game and imported plays on exactly as
/// the original did: (1) the original's later events, with their recorded random outcomes,
/// fold onto the exact import as onto the original, event by event; (2) `decide` on the
/// import accepts the same commands (the bot's answers to the same prompts) and, drawing the
/// same random numbers, gives the very same events and the same result. (The exact export
/// names card instances, `7H#1`: the engine orders identical cards by instance (R10.12), so
/// which of two 7♥ a pick names depends on them; a position without instances imports equal
/// up to instance ids, see the round-trip test.)
#[test]
fn r10_13_an_imported_position_plays_on_as_the_original() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x9052);
    let mut resumed = 0;
    for game in 0..24u64 {
        let settings = random_settings(&mut rng, game % 2 == 1);
        let seed = rng.random::<u64>();
        let (_, moments, last) = playout(&settings, seed);
        let starts: Vec<usize> = (0..moments.len()).filter(|&k| importable(&moments[k].state)).collect();
        for _ in 0..3 {
            let n = starts[rng.random_range(0..starts.len())];
            let what = format!("game {game} (seed {seed}) from moment {n}");
            let original = &moments[n].state;
            // (1) The recorded events fold onto the exact import as onto the original.
            let exact = Position::parse(&position_exact(original).to_string()).unwrap();
            let mut key = ChaCha8Rng::seed_from_u64(n as u64);
            let mut imported = fold(&create_from_full(None, &exact, &mut key).unwrap());
            let mut orig = original.clone();
            for m in &moments[n..] {
                for e in &m.events {
                    apply(&mut orig, e);
                    apply(&mut imported, e);
                    assert_eq!(same_ids(&orig), same_ids(&imported), "{what}: after {}", e.type_name());
                }
            }
            assert_eq!(imported.result(), last.result(), "{what}");
            // (2) The same commands, decided with the same random numbers, give the same events.
            let mut live = fold(&create_from_full(None, &exact, &mut key).unwrap());
            for (k, m) in moments[n..].iter().enumerate() {
                let cmd = next_command(&live, &mut m.bot());
                let events = decide(&live, &cmd, &mut m.rng())
                    .unwrap_or_else(|e| panic!("{what}: command {k} refused on the import: {e}"));
                assert_eq!(events, m.events, "{what}: command {k}");
                events.iter().for_each(|e| apply(&mut live, e));
            }
            assert_eq!(same_ids(&live), same_ids(&last), "{what}: the end");
            resumed += 1;
        }
    }
    assert_eq!(resumed, 72);
}

/// R10.13, R10.8: a position exported for a viewer names only the cards that viewer's view
/// shows (every other place is `?`), at every settled moment of random games, for every
/// viewer; after the game every viewer gets the whole position.
#[test]
fn r10_13_r10_8_a_position_for_a_viewer_shows_only_what_its_view_shows() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x9053);
    let mut named = 0;
    for game in 0..12u64 {
        let settings = random_settings(&mut rng, game % 3 == 2);
        let (_, moments, last) = playout(&settings, rng.random::<u64>());
        for m in moments.iter().chain(std::iter::once(&Moment { state: last.clone(), seed: 0, events: Vec::new() })) {
            for v in viewers(m.state.players.len()) {
                let text = position_for(&m.state, v).to_string();
                named += check_position(&text, &m.state, v).unwrap_or_else(|e| panic!("game {game}, {v:?}: {e}"));
                if v != Viewer::Everything && !m.state.is_finished() {
                    assert!(text.contains('?'), "a running game hides its Candles from {v:?}");
                    let err = validate_str(&text).unwrap_err();
                    assert!(err.contains("exported for"), "{err}");
                }
            }
        }
        assert_eq!(position_for(&last, Viewer::Spectator), position_of(&last), "after the game all is shown");
    }
    assert!(named > 0);
}

/// The leak checker catches a position naming a hidden card (a Candle's top for a spectator).
#[test]
fn r10_8_the_position_leak_check_catches_a_hidden_card() {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let state = fold(&create(&Settings::new(3), &mut rng).unwrap());
    let mut pos = position_for(&state, Viewer::Spectator);
    assert!(check_position(&pos.to_string(), &state, Viewer::Spectator).is_ok());
    let top = state.players[1].candle[0];
    pos.seats[1].candle.0[0] = crate::rules::position::Slot::Card(crate::rules::position::CardPos::of(state.face(top)));
    let err = check_position(&pos.to_string(), &state, Viewer::Spectator).unwrap_err();
    assert!(err.contains("seat 1, Candle"), "{err}");
    // Seat 0 sees its own hand but not seat 1's.
    let own = position_for(&state, Viewer::Seat { seat: 0 });
    assert!(own.seats[0].hand.known().is_some());
    assert_eq!(own.seats[1].hand.known(), None);
    assert_eq!(own.seats[1].hand.hidden(), 3);
}

/// A hand-written mid-game position: seat 1 eliminated, ghosts with haunters and an altered
/// suit, a Wall, pages, a short Candle, round 12 of the Guttering; it parses, is legal, imports
/// into exactly that state, and prints back as written.
#[test]
fn r10_13_a_hand_written_mid_game_position_imports() {
    let text = mid_game_text();
    let pos = Position::parse(&text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(pos.to_string(), text);
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let st = fold(&create_from_full(None, &pos, &mut rng).unwrap_or_else(|e| panic!("{e}")));
    assert_eq!(st.turn.round, 12);
    assert_eq!(st.turn.active, 2);
    assert!(!st.players[1].lit && st.players[1].placing == Some(3));
    assert_eq!(st.players[0].walls.len(), 1);
    assert_eq!(st.players[2].pages.len(), 2);
    let g = &st.players[2].shadow[1];
    assert_eq!((g.haunter, g.suit), (Some(0), Some(crate::model::card::Suit::Spades)));
    assert!(matches!(st.step, crate::model::state::Step::Ritual));
    assert_eq!(position_of(&st).to_string(), text);
    let s = validate_str(&text).unwrap();
    assert_eq!((s.seats, s.lit, s.round), (3, 2, 12));
}

/// The example of `docs/positions.md` (3 seats, current, classes; seat 1 out).
pub(crate) fn mid_game_text() -> String {
    // The 108 cards of a 3-seat pool: two decks. Most of them lie out of play or in The Dark.
    let seat0 = "seat 0: lit class=cryptkeeper hand: 7H 8D KS 5C candle: 2C 3C 9D shadow: 9S<2 walls: 4D<0";
    let seat1 = "seat 1: out placing=3 class=hex";
    let seat2 = "seat 2: lit class=grimoire_of_rejection hand: 5H Joker candle: AS 10H shadow: 3H<0 QH<0=S \
                 pages: KH 2S";
    // Every other card of the pool (108 - 18 named above) goes to The Dark or out of play.
    let mut rest = crate::model::pool::build_pool(3).into_iter().map(|c| c.face).collect::<Vec<_>>();
    for t in "7H 8D KS 5C 2C 3C 9D 9S 4D 5H Joker AS 10H 3H QH KH 2S".split(' ') {
        let f = super::kit::face(t);
        let i = rest.iter().position(|&x| x == f).unwrap();
        rest.remove(i);
    }
    let tok = |f: &crate::model::card::Face| crate::rules::position::format::face_token(*f);
    let dark: Vec<String> = rest[..40].iter().map(tok).collect();
    let out: Vec<String> = rest[40..].iter().map(tok).collect();
    format!(
        "current/1 | settings: classes round_limit=10 | turn: round=12 active=2 step=ritual budget=1 declared=0 first=0 \
         eliminated=1 | {seat0} | {seat1} | {seat2} | dark: {} | out: {}",
        dark.join(" "),
        out.join(" ")
    )
}

/// R10.13: parse errors name the group, the zone and the column.
#[test]
fn r10_13_parse_errors_name_the_place_of_the_fault() {
    let text = mid_game_text();
    let bad = text.replace("3H<0", "QX<0");
    let e = Position::parse(&bad).unwrap_err();
    assert_eq!(e.context, "seat 2, Shadow");
    assert_eq!(e.column, bad.find("QX").unwrap() + 1);
    assert!(e.to_string().starts_with(&format!("seat 2, Shadow, at column {}: 'QX' has no suit", e.column)), "{e}");
    for (bad, context, needle) in [
        (text.replace("step=ritual", "step=dance"), "turn", "is no step"),
        (text.replace("current/1", "chess/1"), "header", "no ruleset"),
        (text.replace("round_limit=10", "colour=red"), "settings", "no setting"),
        (text.replace("class=hex", "class=hexx"), "seat 1", "no class"),
        (text.replace("seat 1:", "seat 4:"), "seat 1", "in order"),
        (text.replace("walls: 4D<0", "walls: 4D"), "seat 0, Walls", "CARD<BUILDER"),
        (text.replace("dark: ", "dark: ?x0 "), "The Dark", "bad count"),
    ] {
        let e = Position::parse(&bad).unwrap_err();
        assert_eq!(e.context, context, "{e}");
        assert!(e.message.contains(needle), "{e}");
        assert!(e.column > 0, "{e}");
    }
}

/// R10.13, R1.6, R8.9.1, R2.8, R4.2: positions that break a rule are refused before anything
/// is stored, with a reason naming what is wrong.
#[test]
fn r10_13_illegal_positions_are_refused_with_a_reason() {
    let text = mid_game_text();
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let refused = |t: &str| {
        let pos = Position::parse(t).unwrap_or_else(|e| panic!("{e}"));
        create_from_full(None, &pos, &mut ChaCha8Rng::seed_from_u64(1)).unwrap_err().to_string()
    };
    for (bad, needle) in [
        // R1.6: a card twice, a card missing.
        (text.replace("hand: 7H 8D KS 5C", "hand: 7H 7H 8D KS 5C"), "one 7♥ too many"),
        (text.replace("hand: 7H 8D KS 5C", "hand: 7H 8D KS"), "placed nowhere: 5♣"),
        (text.replace("hand: 7H 8D", "hand: 7H#5 8D"), "holds 2"),
        // R8.9.1: at most 3 pages; pages only for The Grimoire.
        (text.replace("hand: 7H 8D KS 5C", "hand: 7H 8D").replace("pages: KH 2S", "pages: KH 2S KS 5C"), "at most 3"),
        (text.replace("seat 2: lit class=grimoire_of_rejection", "seat 2: lit class=hoarder"), "Grimoire"),
        // R2.8: The Occultist needs 4 players.
        (text.replace("class=hex", "class=occultist"), "not in the class pool of 3"),
        (text.replace("class=hex", "class=cryptkeeper"), "two seats"),
        // The active seat must be Lit; a turn group that names an out seat.
        (text.replace("active=2", "active=1"), "not Lit"),
        (text.replace("eliminated=1", "eliminated=1,2"), "listed"),
        (text.replace(" | settings: classes round_limit=10", " | settings: round_limit=10"), "classes are off"),
        (text.replace("current/1", "current/1 for=spectator"), "exported for"),
        (text.replace("hand: 7H 8D KS 5C", "hand: ?x4"), "unknown cards"),
        (text.replace("step=ritual", "step=pending:action:2:haunt:salt-window"), "pending decision"),
        (text.replace("shadow: 9S<2", "shadow: 9S<7"), "no seat 7"),
    ] {
        let e = refused(&bad);
        assert!(e.contains(needle), "{needle}: {e}");
    }
    // The seat count of the table must agree.
    let pos = Position::parse(&text).unwrap();
    let e = create_from_full(Some(&Settings::new(4)), &pos, &mut rng).unwrap_err();
    assert!(e.message.contains("3 seats"), "{e}");
    // Through the contract's entry point: a full position is recognised by its header.
    let events = create_from_position(&Settings::new(3), &text, &mut rng).unwrap();
    assert!(matches!(&events[0], Event::GameCreated(g) if g.position.is_some()));
}

/// R10.13: today's deal-only strings keep parsing, with the same meaning.
#[test]
fn r10_13_deal_only_strings_keep_their_meaning() {
    let mut s = Settings::new(2);
    s.first_player = crate::model::settings::FirstPlayer::First { seat: 0 };
    let events = create_from_position(&s, "7H 8D KS / 2C | 5H 5D 9S", &mut ChaCha8Rng::seed_from_u64(3)).unwrap();
    let st = fold(&events);
    assert!(matches!(&events[0], Event::GameCreated(g) if g.position.is_none()));
    let pos = position_of(&st);
    let hand: Vec<String> = pos.seats[1].hand.tokens();
    assert_eq!(hand, ["5H", "5D", "9S"]);
    // Seat 0 drew the 2C at the start of its turn.
    assert_eq!(pos.seats[0].hand.tokens(), ["7H", "8D", "KS", "2C"]);
    assert!(validate_str("7H 8D KS / 2C | 5H 5D 9S").is_ok());
    assert!(validate_str("7H | 8X").unwrap_err().contains("no suit"));
}

/// R10.13, R10.8: a game created from a position tells each viewer the position as that viewer
/// may see it in its creation event; the redacted stream and views keep the contract.
#[test]
fn r10_13_the_creation_event_shows_each_viewer_its_own_position() {
    let text = mid_game_text();
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let events = create_from_position(&Settings::new(3), &text, &mut rng).unwrap();
    let st = fold(&events);
    for v in viewers(3) {
        let re = crate::projection::redact::redact(&State::new(), &events[0], &fold(&events[..1]), v).unwrap();
        let j = serde_json::to_value(&re).unwrap();
        if v == Viewer::Everything {
            continue;
        }
        let p = j["position"].as_str().expect("a position");
        check_position(p, &fold(&events[..1]), v).unwrap();
        assert!(p.contains('?'));
    }
    assert!(!st.is_finished());
}

/// R10.13, A3.3: `dark_mode` (left out of the default settings' serialised form) is read back
/// as it is written, so a classic game with `dark_mode=dark` exports, parses and imports (found
/// by the leak scanner reading the position route).
#[test]
fn r10_13_a_classic_dark_mode_position_round_trips() {
    let mut s = Settings::new(3);
    s.ruleset = RulesetName::Classic;
    s.dark_mode = crate::model::settings::DarkMode::Dark;
    let (_, moments, last) = playout(&s, 7);
    assert!(position_of(&last).to_string().contains("dark_mode=dark"));
    round_trip(&last, "the end");
    let m = moments.iter().find(|m| importable(&m.state)).expect("an importable moment");
    round_trip(&m.state, "a moment");
    for v in viewers(3) {
        let text = position_for(&m.state, v).to_string();
        Position::parse(&text).unwrap_or_else(|e| panic!("{v:?}: {e}\n{text}"));
    }
}
