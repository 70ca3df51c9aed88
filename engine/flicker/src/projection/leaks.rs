//! R10.8, R10.3.2: a leak checker for anything sent to a viewer. It parses JSON (a view, a
//! prompt, a redacted event, a whole HTTP response body) and checks every card instance shown in
//! it (any object with a `handle` and a `rank`) against the cards that viewer may see at that
//! moment: the handle must be the handle of an allowed card *in that state* (handles change when
//! cards move, so identical faces from different decks, or one card seen earlier elsewhere, are
//! told apart), and the face shown must be that card's face. The handle key must appear nowhere.
//!
//! Used by the engine's property tests and by the API's leak scanner (`api/server/src/leak_scan.rs`).
//! It needs the full state, so it is a tool for tests and tools, never for serving.

use crate::model::card::CardId;
use crate::model::event::Event;
use crate::model::handle::{CardRef, handle};
use crate::model::state::{AbilityStage, ActionStage, State, Step};
use crate::projection::view::Viewer;
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// A card as shown in JSON: its handle, rank label and suit (lower case; `None` for a Joker).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShownCard {
    /// The handle shown.
    pub handle: u64,
    /// The rank label shown.
    pub rank: String,
    /// The suit shown, if any.
    pub suit: Option<String>,
}

/// Every card view (an object with a numeric `handle` and a string `rank`) at any depth of `v`.
pub fn card_views(v: &Value) -> Vec<ShownCard> {
    fn walk(v: &Value, out: &mut Vec<ShownCard>) {
        match v {
            Value::Object(m) => {
                if let (Some(Value::Number(h)), Some(Value::String(r))) = (m.get("handle"), m.get("rank")) {
                    let suit = m.get("suit").and_then(|s| s.as_str()).map(str::to_string);
                    // A handle that is no u64 can name no card: u64::MAX is never a handle
                    // (handles are below 2^53), so it fails the check.
                    out.push(ShownCard { handle: h.as_u64().unwrap_or(u64::MAX), rank: r.clone(), suit });
                }
                m.values().for_each(|x| walk(x, out));
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(v, &mut out);
    out
}

/// The handle card `c` has in `state` (for tests and tools: the state holds the key).
pub fn handle_of(state: &State, c: CardId) -> CardRef {
    handle(state, c)
}

/// R10.8: the cards `viewer` may see in `state` at this moment: every card once the game has
/// ended or for [`Viewer::Everything`]; for [`Viewer::Commentary`] what any seat sees; otherwise the Shadows, the top of The Dark, the face-up
/// Resolving area, and for a seat its hand, its Grimoire pages (R3.6), the Walls it built
/// (R8.2.7), The Seer's peek (R8.25.1), the hand The Trader is choosing from (R8.31.1), and what
/// an effect shows while it lasts (the hand seen through Sight or by The Watcher, the whole Dark
/// during a Medium Search).
pub fn visible(state: &State, viewer: Viewer) -> HashSet<CardId> {
    if viewer == Viewer::Everything || state.is_finished() {
        return (0..state.pool.len() as u16).map(CardId).collect();
    }
    let mut s = HashSet::new();
    if state.players.is_empty() {
        return s;
    }
    // R10.8: the commentary view knows what some player knows: the union of the seats' sight.
    if viewer == Viewer::Commentary {
        for seat in 0..state.players.len() as u8 {
            s.extend(visible(state, Viewer::Seat { seat }));
        }
        return s;
    }
    for p in &state.players {
        s.extend(p.shadow.iter().map(|g| g.card));
    }
    s.extend(state.dark.last().copied());
    // A seat beyond the table sees what a spectator sees.
    let me = match viewer {
        Viewer::Seat { seat } if (seat as usize) < state.players.len() => Some(seat),
        _ => None,
    };
    // R3.1: a Wall being built is face down; only its builder sees it.
    s.extend(state.resolving.iter().copied().filter(|&c| crate::projection::view::sees(state, me, false, c)));
    let Some(seat) = me else { return s };
    s.extend(state.players[seat as usize].hand.iter().copied());
    s.extend(state.players[seat as usize].pages.iter().copied());
    for p in &state.players {
        s.extend(p.walls.iter().filter(|w| w.builder == seat).map(|w| w.card));
    }
    if let Some((seer, c)) = state.peek
        && seer == seat
    {
        s.insert(c);
    }
    if let Step::Ability(a) = &state.step
        && a.seat == seat
        && let AbilityStage::TraderSwap { target } = a.stage
    {
        s.extend(state.players[target as usize].hand.iter().copied());
    }
    if let Some(flow) = state.flow()
        && flow.actor == seat
    {
        match &flow.stage {
            ActionStage::SightPick { target } | ActionStage::SadistPick { target } => {
                s.extend(state.players[*target as usize].hand.iter().copied())
            }
            ActionStage::MediumPick => s.extend(state.dark.iter().copied()),
            ActionStage::WatcherPick { targets } => {
                for &t in targets {
                    s.extend(state.players[t as usize].hand.iter().copied());
                }
            }
            _ => {}
        }
    }
    s
}

/// Where a shown card may come from: a state and the cards of it the viewer may see, named with
/// the handle they have in that state.
pub struct Allowed<'a> {
    state: &'a State,
    by_handle: HashMap<u64, CardId>,
}

impl<'a> Allowed<'a> {
    /// The cards `cards` of `state`.
    pub fn new(state: &'a State, cards: impl IntoIterator<Item = CardId>) -> Self {
        Allowed { state, by_handle: cards.into_iter().map(|c| (handle(state, c).0, c)).collect() }
    }

    /// What `viewer` may see in `state` ([`visible`]).
    pub fn for_viewer(state: &'a State, viewer: Viewer) -> Self {
        Self::new(state, visible(state, viewer))
    }
}

/// The card whose handle in `st` is `h`, if any.
fn card_with_handle(st: &State, h: u64) -> Option<CardId> {
    (0..st.pool.len() as u16).map(CardId).find(|&c| handle(st, c).0 == h)
}

/// Checks that every card view in `json` is allowed by some source: its handle is the handle of
/// an allowed card of that source's state, and its face is that card's face. A handle that names
/// a card the viewer could see in one state is not enough when it is the handle the card has in
/// another state, where the viewer cannot see it (R10.3.2). Returns the number of cards checked.
pub fn check_cards(json: &Value, sources: &[Allowed], what: &str) -> Result<usize, String> {
    let cards = card_views(json);
    for ShownCard { handle: h, rank, suit } in &cards {
        let found = sources.iter().find_map(|a| a.by_handle.get(h).map(|&c| (a.state, c)));
        let Some((st, c)) = found else {
            let named = sources.iter().find_map(|a| card_with_handle(a.state, *h).map(|c| (a.state.face(c), c)));
            return Err(match named {
                Some((f, c)) => format!("{what}: shows {f} (card {c:?}) with a handle the viewer may not see"),
                None => format!("{what}: handle {h} names no card"),
            });
        };
        let f = st.face(c);
        if f.rank.label() != rank || f.suit.map(|x| format!("{x:?}").to_lowercase()) != *suit {
            return Err(format!("{what}: handle {h} shown as {rank} {suit:?} but is {f}"));
        }
    }
    Ok(cards.len())
}

/// True if an object at any depth of `v` has the key `key`.
fn has_key(v: &Value, key: &str) -> bool {
    match v {
        Value::Object(m) => m.contains_key(key) || m.values().any(|x| has_key(x, key)),
        Value::Array(a) => a.iter().any(|x| has_key(x, key)),
        _ => false,
    }
}

/// True if a number at any depth of `v` equals `n`.
fn has_number(v: &Value, n: u64) -> bool {
    match v {
        Value::Number(x) => x.as_u64() == Some(n),
        Value::Object(m) => m.values().any(|x| has_number(x, n)),
        Value::Array(a) => a.iter().any(|x| has_number(x, n)),
        _ => false,
    }
}

/// R10.2.3, R10.3.2: the handle key appears nowhere in `json` (neither as a key nor its value).
pub fn check_no_key(json: &Value, st: &State, what: &str) -> Result<(), String> {
    if has_key(json, "handle_key") || st.handle_key.0.iter().any(|&k| has_number(json, k)) {
        return Err(format!("{what}: the handle key reached a view"));
    }
    Ok(())
}

/// Checks anything that shows the game *now* (a view, a prompt, a response holding them):
/// every card in `json` is one `viewer` may see in `state`, with its handle there, and the key
/// appears nowhere. Returns the number of cards checked.
pub fn check_view(json: &Value, state: &State, viewer: Viewer, what: &str) -> Result<usize, String> {
    let n = check_cards(json, &[Allowed::for_viewer(state, viewer)], what)?;
    check_no_key(json, state, what)?;
    Ok(n)
}

/// Checks a redacted event (`json`: the [`crate::ViewEvent`] as sent) of `event`, which took
/// the game from `before` to `after`: it may name a card with the handle it had where `viewer`
/// could see it just before the event, or with the handle it has where the viewer can see it just
/// after; a card that entered The Dark with the event is public as it enters (R3.5.2), with its
/// new handle. A class offer is its chooser's only (R2.7.5). Returns the number of cards checked.
pub fn check_event(
    json: &Value,
    before: &State,
    event: &Event,
    after: &State,
    viewer: Viewer,
    what: &str,
) -> Result<usize, String> {
    if let Event::ClassOffered { seat, .. } = event
        && viewer != (Viewer::Seat { seat: *seat })
        && viewer != Viewer::Everything
        && viewer != Viewer::Commentary
        && !before.is_finished()
        && json.get("offer").is_some_and(|o| !o.is_null())
    {
        return Err(format!("{what}: class_offered for {viewer:?} shows the offer of seat {seat}"));
    }
    let before_dark: HashSet<CardId> = before.dark.iter().copied().collect();
    let mut after_allowed = visible(after, viewer);
    after_allowed.extend(after.dark.iter().copied().filter(|c| !before_dark.contains(c)));
    let n = check_cards(json, &[Allowed::for_viewer(before, viewer), Allowed::new(after, after_allowed)], what)?;
    check_no_key(json, after, what)?;
    Ok(n)
}

/// Every card instance of the game (for tests and tools).
pub fn cards(state: &State) -> impl Iterator<Item = CardId> {
    (0..state.pool.len() as u16).map(CardId)
}

/// The face of card `c` (for tests and tools).
pub fn face_of(state: &State, c: CardId) -> crate::model::card::Face {
    state.face(c)
}

/// The handles (in `state`) of the cards `viewer` may not see there.
pub fn hidden_handles(state: &State, viewer: Viewer) -> HashSet<u64> {
    let seen = visible(state, viewer);
    cards(state).filter(|c| !seen.contains(c)).map(|c| handle(state, c).0).collect()
}

/// R10.13, R10.8: checks a position string exported for `viewer` against `state`, zone by zone
/// and place by place: every zone has the state's size, every card it names is a card the
/// viewer may see there ([`visible`]) with that card's face, a class offer is named only to its
/// chooser, and the position is marked with its viewer (so that it is never imported as whole).
/// Returns the number of cards named.
pub fn check_position(text: &str, state: &State, viewer: Viewer) -> Result<usize, String> {
    use crate::rules::position::{Offer, Position, Slot};
    let pos = Position::parse(text).map_err(|e| format!("the position does not parse: {e}"))?;
    let whole = viewer == Viewer::Everything || state.is_finished();
    if !whole && pos.viewer != Some(viewer) {
        return Err(format!("a position for {viewer:?} is marked {:?}", pos.viewer));
    }
    let seen = visible(state, viewer);
    let mut named = 0;
    let mut zone = |what: &str, slots: Vec<Option<crate::model::card::Face>>, cards: &[CardId]| {
        if slots.len() != cards.len() {
            return Err(format!("{what}: {} places, the state has {}", slots.len(), cards.len()));
        }
        for (k, (s, &c)) in slots.iter().zip(cards).enumerate() {
            let Some(f) = s else { continue };
            named += 1;
            if !whole && !seen.contains(&c) {
                return Err(format!("{what}: place {k} names {f}, which {viewer:?} may not see"));
            }
            if *f != state.face(c) {
                return Err(format!("{what}: place {k} names {f}, the card there is {}", state.face(c)));
            }
        }
        Ok(())
    };
    let slots = |z: &crate::rules::position::Zone| {
        z.0.iter().map(|s| if let Slot::Card(c) = s { Some(c.face) } else { None }).collect::<Vec<_>>()
    };
    if pos.seats.len() != state.players.len() {
        return Err(format!("{} seats, the state has {}", pos.seats.len(), state.players.len()));
    }
    for (i, (sp, p)) in pos.seats.iter().zip(&state.players).enumerate() {
        zone(&format!("seat {i}, hand"), slots(&sp.hand), &p.hand)?;
        let candle: Vec<CardId> = p.candle.iter().copied().collect();
        zone(&format!("seat {i}, Candle"), slots(&sp.candle), &candle)?;
        let ghosts: Vec<CardId> = p.shadow.iter().map(|g| g.card).collect();
        zone(&format!("seat {i}, Shadow"), sp.shadow.iter().map(|g| Some(g.card.face)).collect(), &ghosts)?;
        let walls: Vec<CardId> = p.walls.iter().map(|w| w.card).collect();
        zone(&format!("seat {i}, Walls"), sp.walls.iter().map(|w| w.card.map(|c| c.face)).collect(), &walls)?;
        zone(&format!("seat {i}, pages"), slots(&sp.pages), &p.pages)?;
    }
    let dark: Vec<CardId> = state.dark.iter().rev().copied().collect();
    zone("The Dark", slots(&pos.dark), &dark)?;
    zone("the Resolving area", slots(&pos.resolving), &state.resolving)?;
    zone("out of play", slots(&pos.out_of_play), &state.out_of_play)?;
    if let (Some(sel), Some(real)) = (&pos.selection, &state.selection)
        && let Some(Offer::Known(_)) = &sel.offer
    {
        let chooser = real.order.first().copied();
        if !whole && viewer != Viewer::Commentary && chooser.is_none_or(|c| viewer != Viewer::Seat { seat: c }) {
            return Err(format!("the class offer of seat {chooser:?} is named to {viewer:?} (R2.7.5)"));
        }
    }
    Ok(named)
}
