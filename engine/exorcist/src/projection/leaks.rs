//! R10.8, X11.1, X11.5: a leak checker for anything shown to a viewer. It builds, from the
//! unredacted events alone and with its own simple rules, what each seat may know (its looks,
//! its dealt sets, its peeks, the public reveals and round ends), then scans the JSON of a
//! view or redacted event: every Role, card identity and mini-game card it holds must be one
//! of the shapes of [`crate::projection::shown`] and must be allowed to that viewer; a Role
//! or card name anywhere else, or a key that only omniscient projections use, is a leak.
//!
//! For [`Viewer::Everything`] and once the game is over (X11.4) everything is allowed. The
//! commentary view may show what some seat knows. Used by the property tests
//! ([`flicker_game::kit::check_leaks`] through [`LeakChecker`]) and usable by the API's leak scanner on any
//! JSON body ([`LeakChecker::check_json`]). It needs the full state: a tool, never for serving.

use crate::model::card::{CardId, CardKind, Role, TieCard};
use crate::model::event::{Direction, Event};
use crate::model::state::State;
use flicker_game::Viewer;
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// Keys only omniscient projections carry (row orders, the deck, tiles, the Blessing's place).
pub const OMNISCIENT_KEYS: [&str; 7] = ["order", "deck", "roles_now", "blessing", "tile", "tiles", "rows"];

/// What the seats may know, built from the raw events.
#[derive(Debug, Default, Clone)]
pub struct LeakChecker {
    /// Events folded so far.
    pub(crate) seen_events: u64,
    /// (seat, round, target, role, at): a look or Role peek.
    role_facts: HashSet<(u8, u32, u8, Role, u64)>,
    /// (seat, at, owner, position, kind): a card peek.
    card_facts: HashSet<(u8, u64, u8, u8, CardKind)>,
    /// (seat, at) -> the dealt set.
    dealt: HashMap<(u8, u64), Vec<CardKind>>,
    /// Per seat: cards whose place it knows now.
    known: HashMap<u8, HashSet<CardId>>,
    /// Per seat: tiles it has seen since their last shuffle (target -> at).
    known_tiles: HashMap<u8, HashMap<u8, u64>>,
    /// (round, reveal) -> kind: public reveals.
    reveals: HashMap<(u32, u32), CardKind>,
    /// (round, seat) -> role: tiles turned up at round ends.
    ended: HashMap<(u32, u8), Role>,
    /// (layout, position) -> card: revealed mini-game cards.
    tie_cards: HashMap<(u32, u8), TieCard>,
    /// Checks made.
    pub checks: usize,
}

impl LeakChecker {
    /// A checker that has seen no event.
    pub fn new() -> Self {
        Self::default()
    }

    /// Learns what `event` (folded from `before` to `after`) lets each seat know. Called once
    /// per event, in order.
    pub fn learn(&mut self, before: &State, event: &Event, after: &State) {
        let at = before.version;
        self.seen_events = after.version;
        let forget = |known: &mut HashMap<u8, HashSet<CardId>>, cards: &[CardId]| {
            for k in known.values_mut() {
                k.retain(|c| !cards.contains(c));
            }
        };
        match event {
            Event::RoundStarted { round, tiles, .. } => {
                self.known.clear();
                self.known_tiles.clear();
                for (s, t) in tiles.iter().enumerate() {
                    self.role_facts.insert((s as u8, *round, s as u8, t.role(), at));
                    self.known_tiles.entry(s as u8).or_default().insert(s as u8, at);
                }
            }
            Event::DealStarted { rows, .. } => {
                self.known.clear();
                for (s, row) in rows.iter().enumerate() {
                    let mut k: Vec<CardKind> = row.iter().map(|c| c.kind()).collect();
                    k.sort();
                    self.dealt.insert((s as u8, at), k);
                }
            }
            Event::CardRevealed { card, .. } => {
                let r = after.round.as_ref().expect("a round");
                self.reveals.insert((r.number, r.reveals - 1), card.kind());
                forget(&mut self.known, &[*card]);
            }
            Event::CardsPassed { direction, passes } => {
                let r = before.round.as_ref().expect("a round");
                for p in passes {
                    let position = match direction {
                        Direction::Right => r.rows[p.from as usize].len() as u8,
                        Direction::Left => 1,
                    };
                    self.card_facts.insert((p.from, at, p.from, position, p.card.kind()));
                    self.known.entry(p.from).or_default().insert(p.card);
                }
            }
            Event::RolePeeked { peeker, target, tile, .. } => {
                let round = before.round.as_ref().expect("a round").number;
                self.role_facts.insert((*peeker, round, *target, tile.role(), at));
                self.known_tiles.entry(*peeker).or_default().insert(*target, at);
            }
            Event::RowPeeked { peeker, cards } => {
                for (i, c) in cards.iter().enumerate() {
                    self.card_facts.insert((*peeker, at, *peeker, i as u8 + 1, c.kind()));
                    self.known.entry(*peeker).or_default().insert(*c);
                }
            }
            Event::CardPeeked { peeker, owner, position, card } => {
                self.card_facts.insert((*peeker, at, *owner, *position, card.kind()));
                self.known.entry(*peeker).or_default().insert(*card);
            }
            Event::HijinxReturned { row, .. } => forget(&mut self.known, row),
            Event::RowsExchanged { seeker_row, chosen_row, .. } => {
                forget(&mut self.known, seeker_row);
                forget(&mut self.known, chosen_row);
            }
            Event::TilesShuffled { seeker, chosen, .. } => {
                for k in self.known_tiles.values_mut() {
                    k.remove(seeker);
                    k.remove(chosen);
                }
            }
            Event::RoundEnded { round, .. } => {
                let h = after.history.last().expect("a summary");
                for (s, r) in h.roles.iter().enumerate() {
                    self.ended.insert((*round, s as u8), *r);
                }
            }
            Event::TieRevealed => {
                let t = before.tie.as_ref().expect("a mini-game");
                for &(_, p) in &t.picks {
                    let c = if p == t.blessing { TieCard::Blessing } else { TieCard::Mischief };
                    self.tie_cards.insert((t.layout, p), c);
                }
            }
            _ => {}
        }
    }

    /// Checks `json` (a view, prompt or redacted event shown to `viewer` in `state`); `picks_public`
    /// when it is the mini-game's reveal (its picks are public).
    pub fn check_json(&self, json: &Value, state: &State, viewer: Viewer, picks_public: bool) -> Result<(), String> {
        if viewer == Viewer::Everything || state.is_finished() {
            return Ok(());
        }
        let eyes: Vec<u8> = match viewer {
            Viewer::Seat { seat } => vec![seat],
            Viewer::Commentary => (0..state.players()).collect(),
            _ => vec![],
        };
        self.walk(json, None, state, &eyes, picks_public)
    }

    fn walk(&self, v: &Value, key: Option<&str>, state: &State, eyes: &[u8], picks: bool) -> Result<(), String> {
        match v {
            Value::Object(m) => {
                if let Some(k) = OMNISCIENT_KEYS.iter().find(|k| m.contains_key(**k)) {
                    return Err(format!("an omniscient key `{k}` in {v}"));
                }
                self.check_object(m, state, eyes, picks)?;
                for (k, x) in m {
                    // The values a recognised shape holds were judged with it.
                    let judged = (k == "role" && m.contains_key("seat") && m.contains_key("round"))
                        || (k == "card" && (m.contains_key("position") || m.contains_key("reveal")))
                        || k == "dealt"
                        || k == "cause"
                        || k == "winning_team"
                        || k == "tie_card";
                    if !judged {
                        self.walk(x, Some(k), state, eyes, picks)?;
                    }
                }
                Ok(())
            }
            Value::Array(a) => a.iter().try_for_each(|x| self.walk(x, key, state, eyes, picks)),
            Value::String(s) => {
                let hidden = CardKind::ALL.iter().any(|k| k.name() == s)
                    || s == Role::Innocent.name()
                    || s == Role::Possessed.name();
                if hidden { Err(format!("`{s}` outside any allowed shape (key {key:?})")) } else { Ok(()) }
            }
            _ => Ok(()),
        }
    }

    fn check_object(
        &self,
        m: &serde_json::Map<String, Value>,
        state: &State,
        eyes: &[u8],
        picks: bool,
    ) -> Result<(), String> {
        let num = |k: &str| m.get(k).and_then(Value::as_u64);
        let obj = Value::Object(m.clone());
        // A Role tile.
        if let (Some(Value::String(role)), Some(round), Some(seat)) = (m.get("role"), num("round"), num("seat")) {
            let role: Role = serde_json::from_value(Value::String(role.clone())).map_err(|e| e.to_string())?;
            let (round, seat) = (round as u32, seat as u8);
            let ok = match (num("at"), num("since")) {
                (Some(at), None) => eyes.iter().any(|&e| self.role_facts.contains(&(e, round, seat, role, at))),
                (None, Some(since)) => {
                    let now = state.round.as_ref().filter(|r| r.number == round).map(|r| r.role(seat));
                    now == Some(role)
                        && eyes.iter().any(|&e| {
                            self.role_facts.contains(&(e, round, seat, role, since))
                                && self.known_tiles.get(&e).and_then(|k| k.get(&seat)) == Some(&since)
                        })
                }
                (None, None) => self.ended.get(&(round, seat)) == Some(&role),
                _ => false,
            };
            if !ok {
                return Err(format!("a Role the viewer may not know: {obj}"));
            }
        }
        // A card identity.
        if let Some(Value::String(card)) = m.get("card")
            && (m.contains_key("position") || m.contains_key("reveal"))
        {
            let kind: CardKind = serde_json::from_value(Value::String(card.clone())).map_err(|e| e.to_string())?;
            let ok = if let (Some(round), Some(reveal)) = (num("round"), num("reveal")) {
                self.reveals.get(&(round as u32, reveal as u32)) == Some(&kind)
            } else if let (Some(owner), Some(position)) = (num("owner"), num("position")) {
                let (owner, position) = (owner as u8, position as u8);
                match (num("at"), num("since")) {
                    (Some(at), None) => eyes.iter().any(|&e| self.card_facts.contains(&(e, at, owner, position, kind))),
                    (None, Some(_)) => {
                        let here = state
                            .round
                            .as_ref()
                            .and_then(|r| r.rows.get(owner as usize)?.get(position as usize - 1).copied());
                        here.is_some_and(|c| {
                            c.kind() == kind && eyes.iter().any(|e| self.known.get(e).is_some_and(|k| k.contains(&c)))
                        })
                    }
                    _ => false,
                }
            } else {
                false
            };
            if !ok {
                return Err(format!("a card the viewer may not know: {obj}"));
            }
        }
        // A dealt set.
        if let Some(Value::Array(d)) = m.get("dealt") {
            let (Some(seat), Some(at)) = (num("seat"), num("at")) else {
                return Err(format!("a bare dealt set: {obj}"));
            };
            let kinds: Vec<CardKind> =
                serde_json::from_value(Value::Array(d.clone())).map_err(|e| format!("dealt: {e}"))?;
            if !eyes.contains(&(seat as u8)) || self.dealt.get(&(seat as u8, at)) != Some(&kinds) {
                return Err(format!("a dealt set the viewer may not know: {obj}"));
            }
        }
        // A mini-game card.
        if let Some(c) = m.get("tie_card") {
            let c: TieCard = serde_json::from_value(c.clone()).map_err(|e| e.to_string())?;
            let (Some(layout), Some(position)) = (num("layout"), num("position")) else {
                return Err(format!("a bare mini-game card: {obj}"));
            };
            if self.tie_cards.get(&(layout as u32, position as u8)) != Some(&c) {
                return Err(format!("a mini-game card not revealed: {obj}"));
            }
        }
        // A pick not yet revealed.
        if let (Some(seat), Some(_)) = (num("seat"), num("pick"))
            && !picks
            && !eyes.contains(&(seat as u8))
        {
            return Err(format!("another player's pick: {obj}"));
        }
        Ok(())
    }
}
