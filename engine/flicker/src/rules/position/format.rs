//! R10.13: the full position of a table, its one-line text form (like FEN) and its JSON form.
//! The grammar with examples is in `docs/positions.md`.
//!
//! ```text
//! current/1 | settings: classes round_limit=12 | turn: round=12 active=1 step=ritual budget=1 declared=0 first=0 |
//!   seat 0: lit class=hoarder hand: 7H 8D candle: 2C 3C shadow: 9S<1 QH<1=S | seat 1: lit class=cryptkeeper … |
//!   dark: 4H 2C | out: 3C
//! ```
//! (one line in practice; broken here for reading).

use crate::model::card::{Face, Suit};
use crate::model::classes::ClassId;
use crate::model::event::{EliminationCause, EndReason};
use crate::model::settings::{RulesetId, RulesetName, Settings};
pub use crate::model::setup::{Offer, SelectionPos, StepPos, TriggerPos, TurnPos};
use crate::model::state::GameResult;
use flicker_game::Viewer;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A card named by a position: its face and, optionally, which instance of that face in the
/// pool (`7H#1`: the second 7♥ of the pool, in pool order). Positions written for people leave
/// instances out (any instance of the face will do); exact exports keep them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CardPos {
    /// The face.
    pub face: Face,
    /// The instance among the pool's cards of this face (0-based, pool order).
    pub instance: Option<u16>,
}

impl CardPos {
    /// A card with no instance.
    pub fn of(face: Face) -> Self {
        CardPos { face, instance: None }
    }
}

/// One place of a zone: a card, or a card the position's viewer may not see (`?`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Slot {
    /// A known card.
    Card(CardPos),
    /// An unknown card (hidden from the position's viewer).
    Hidden,
}

/// A zone's cards in order (see each zone for which end is first). Serialised as a list of
/// tokens: cards (`7H`, `10S`, `Joker`, `7H#1`) and runs of unknown cards (`?x5`, `?`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Zone(pub Vec<Slot>);

impl Zone {
    /// The known cards, if every card is known.
    pub fn known(&self) -> Option<Vec<CardPos>> {
        self.0.iter().map(|s| if let Slot::Card(c) = s { Some(*c) } else { None }).collect()
    }

    /// Number of unknown cards.
    pub fn hidden(&self) -> usize {
        self.0.iter().filter(|s| matches!(s, Slot::Hidden)).count()
    }

    /// The zone as text tokens (`?xN` for a run of unknown cards).
    pub fn tokens(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut run = 0usize;
        let flush = |run: &mut usize, out: &mut Vec<String>| {
            match *run {
                0 => {}
                1 => out.push("?".to_string()),
                k => out.push(format!("?x{k}")),
            }
            *run = 0;
        };
        for s in &self.0 {
            match s {
                Slot::Hidden => run += 1,
                Slot::Card(c) => {
                    flush(&mut run, &mut out);
                    out.push(card_token(*c));
                }
            }
        }
        flush(&mut run, &mut out);
        out
    }

    /// Parses zone tokens (as written by [`Zone::tokens`]).
    pub fn from_tokens<'a>(tokens: impl IntoIterator<Item = &'a str>) -> Result<Zone, String> {
        let mut v = Vec::new();
        for t in tokens {
            push_zone_token(&mut v, t)?;
        }
        Ok(Zone(v))
    }
}

fn push_zone_token(v: &mut Vec<Slot>, t: &str) -> Result<(), String> {
    if let Some(rest) = t.strip_prefix('?') {
        let k = if rest.is_empty() {
            1
        } else {
            let k = rest.strip_prefix(['x', 'X']).ok_or_else(|| format!("'{t}': write ? or ?xN for unknown cards"))?;
            k.parse::<usize>().ok().filter(|&k| k > 0 && k <= 10_000).ok_or_else(|| format!("'{t}': bad count"))?
        };
        v.extend(std::iter::repeat_n(Slot::Hidden, k));
    } else {
        v.push(Slot::Card(parse_card_pos(t)?));
    }
    Ok(())
}

impl Serialize for Zone {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.tokens().serialize(s)
    }
}

impl<'de> Deserialize<'de> for Zone {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Vec::<String>::deserialize(d)?;
        Zone::from_tokens(v.iter().map(String::as_str)).map_err(serde::de::Error::custom)
    }
}

/// A card as text: `7H`, `10S`, `QC`, `AD`, `Joker`, with `#k` for a named instance.
pub fn card_token(c: CardPos) -> String {
    let mut s = face_token(c.face);
    if let Some(i) = c.instance {
        s.push_str(&format!("#{i}"));
    }
    s
}

/// A face as text: `7H`, `10S`, `Joker`.
pub fn face_token(f: Face) -> String {
    match f.suit {
        Some(s) => format!("{}{}", f.rank.label(), suit_letter(s)),
        None => "Joker".to_string(),
    }
}

fn suit_letter(s: Suit) -> char {
    match s {
        Suit::Spades => 'S',
        Suit::Hearts => 'H',
        Suit::Clubs => 'C',
        Suit::Diamonds => 'D',
    }
}

fn parse_suit(t: &str) -> Result<Suit, String> {
    match t.to_ascii_uppercase().as_str() {
        "S" => Ok(Suit::Spades),
        "H" => Ok(Suit::Hearts),
        "C" => Ok(Suit::Clubs),
        "D" => Ok(Suit::Diamonds),
        _ => Err(format!("'{t}' is no suit (S, H, C, D)")),
    }
}

/// Parses `7H`, `Joker`, `7H#1`.
pub fn parse_card_pos(t: &str) -> Result<CardPos, String> {
    let (card, instance) = match t.split_once('#') {
        Some((c, i)) => (c, Some(i.parse::<u16>().map_err(|_| format!("'{t}': the instance after # is a number"))?)),
        None => (t, None),
    };
    Ok(CardPos { face: super::parse_card(card)?, instance })
}

macro_rules! card_serde {
    ($t:ty, $to:expr, $from:expr) => {
        impl Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let f: fn(&$t) -> String = $to;
                f(self).serialize(s)
            }
        }
        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = String::deserialize(d)?;
                let f: fn(&str) -> Result<$t, String> = $from;
                f(&s).map_err(serde::de::Error::custom)
            }
        }
    };
}

/// R3.4.3: a ghost: its card, its tracked haunter, its effective suit and (R8.20.2) the
/// Shadows it has entered. Text: `9S`, `9S<1` (haunted by seat 1), `9S<1=H` (effective suit ♥),
/// `9S<1@2,0` (visited seats 2 and 0; left out when it is only the owner).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GhostPos {
    /// The card (Shadows are public).
    pub card: CardPos,
    /// R3.4.4: the tracked haunter.
    pub haunter: Option<u8>,
    /// R3.4.3: the effective suit (`None` for a Joker).
    pub suit: Option<Suit>,
    /// R8.20.2: every seat whose Shadow it entered (the owner by default).
    pub visited: Vec<u8>,
}

impl GhostPos {
    fn token(&self, owner: u8) -> String {
        let mut s = card_token(self.card);
        if let Some(h) = self.haunter {
            s.push_str(&format!("<{h}"));
        }
        if self.suit != self.card.face.suit {
            match self.suit {
                Some(x) => s.push_str(&format!("={}", suit_letter(x))),
                None => s.push_str("=-"),
            }
        }
        if self.visited != [owner] {
            s.push('@');
            s.push_str(&join(&self.visited));
        }
        s
    }

    fn parse(t: &str, owner: u8) -> Result<GhostPos, String> {
        let (rest, visited) = match t.split_once('@') {
            Some((r, v)) => (r, seats(v).map_err(|e| format!("'{t}': {e}"))?),
            None => (t, vec![owner]),
        };
        let (rest, suit) = match rest.split_once('=') {
            Some((r, "-")) => (r, Some(None)),
            Some((r, s)) => (r, Some(Some(parse_suit(s).map_err(|e| format!("'{t}': effective suit {e}"))?))),
            None => (rest, None),
        };
        let (card, haunter) = match rest.split_once('<') {
            Some((c, h)) => (c, Some(h.parse::<u8>().map_err(|_| format!("'{t}': the haunter after < is a seat"))?)),
            None => (rest, None),
        };
        let card = parse_card_pos(card)?;
        Ok(GhostPos { card, haunter, suit: suit.unwrap_or(card.face.suit), visited })
    }
}

#[derive(Serialize, Deserialize)]
struct GhostJson {
    card: CardPos,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    haunter: Option<u8>,
    suit: Option<Suit>,
    visited: Vec<u8>,
}

impl Serialize for GhostPos {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        GhostJson { card: self.card, haunter: self.haunter, suit: self.suit, visited: self.visited.clone() }
            .serialize(s)
    }
}

impl<'de> Deserialize<'de> for GhostPos {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let g = GhostJson::deserialize(d)?;
        Ok(GhostPos { card: g.card, haunter: g.haunter, suit: g.suit, visited: g.visited })
    }
}

card_serde!(CardPos, |c| card_token(*c), parse_card_pos);

/// R8.2: a Wall: its card (unknown to all but its builder) and its builder. Text: `4D<0`, `?<0`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WallPos {
    /// The card (`None`: unknown to the position's viewer).
    pub card: Option<CardPos>,
    /// The Cryptkeeper who built it.
    pub builder: u8,
}

impl WallPos {
    fn token(&self) -> String {
        format!("{}<{}", self.card.map_or("?".to_string(), card_token), self.builder)
    }

    fn parse(t: &str) -> Result<WallPos, String> {
        let (c, b) = t.split_once('<').ok_or_else(|| format!("'{t}': a Wall is written CARD<BUILDER (4D<0, ?<0)"))?;
        let builder = b.parse::<u8>().map_err(|_| format!("'{t}': the builder after < is a seat"))?;
        let card = if c == "?" { None } else { Some(parse_card_pos(c)?) };
        Ok(WallPos { card, builder })
    }
}

/// One seat (R3).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeatPos {
    /// R0.3: Lit (true) or eliminated.
    pub lit: bool,
    /// R7.7.3: the placing, once known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placing: Option<u8>,
    /// R2.7.6: the class.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<ClassId>,
    /// R5.9.4: the once-per-game effect has been used.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub once_used: bool,
    /// R3.3: the hand in acquisition order, oldest first.
    #[serde(default)]
    pub hand: Zone,
    /// R3.2: the Candle, top first.
    #[serde(default)]
    pub candle: Zone,
    /// R3.4.2: the Shadow in entry order, oldest first.
    #[serde(default)]
    pub shadow: Vec<GhostPos>,
    /// R8.2: the Walls in this Shadow, in entry order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub walls: Vec<WallPos>,
    /// R3.6, R8.9: Grimoire pages.
    #[serde(default, skip_serializing_if = "is_empty_zone")]
    pub pages: Zone,
}

fn is_empty_zone(z: &Zone) -> bool {
    z.0.is_empty()
}

impl StepPos {
    /// The step as written in the `turn:` group (`ritual`, `start@2/13`, …).
    pub fn token(&self) -> String {
        match self {
            StepPos::TurnOrder { seat } => format!("turn-order@{seat}"),
            StepPos::Selecting => "selecting".into(),
            StepPos::StartTurn { seat, round } => format!("start@{seat}/{round}"),
            StepPos::Haunting => "haunting".into(),
            StepPos::Draw => "draw".into(),
            StepPos::Ritual => "ritual".into(),
            StepPos::Burden => "burden".into(),
            StepPos::AmIAlive => "am-i-alive".into(),
            StepPos::PassTurn => "pass".into(),
            StepPos::Voodoo => "voodoo".into(),
            StepPos::Martyr => "martyr".into(),
            StepPos::Finished => "finished".into(),
            StepPos::Eliminating { seat, cause, resume } => {
                format!("eliminating@{seat}:{}:{}", cause_name(*cause), resume.token())
            }
            StepPos::Reviving { seat, cause, resume } => {
                format!("reviving@{seat}:{}:{}", cause_name(*cause), resume.token())
            }
            StepPos::Pending { what } => format!("pending:{what}"),
        }
    }

    fn parse(t: &str) -> Result<StepPos, String> {
        let seat = |s: &str| s.parse::<u8>().map_err(|_| format!("'{t}': '{s}' is not a seat"));
        Ok(match t {
            "selecting" => StepPos::Selecting,
            "haunting" => StepPos::Haunting,
            "draw" => StepPos::Draw,
            "ritual" => StepPos::Ritual,
            "burden" => StepPos::Burden,
            "am-i-alive" => StepPos::AmIAlive,
            "pass" => StepPos::PassTurn,
            "voodoo" => StepPos::Voodoo,
            "martyr" => StepPos::Martyr,
            "finished" => StepPos::Finished,
            _ => {
                if let Some(s) = t.strip_prefix("turn-order@") {
                    StepPos::TurnOrder { seat: seat(s)? }
                } else if let Some(s) = t.strip_prefix("start@") {
                    let (s, r) = s.split_once('/').ok_or_else(|| format!("'{t}': write start@SEAT/ROUND"))?;
                    StepPos::StartTurn { seat: seat(s)?, round: r.parse().map_err(|_| format!("'{t}': bad round"))? }
                } else if let Some(what) = t.strip_prefix("pending:") {
                    StepPos::Pending { what: what.to_string() }
                } else if let Some((kind, rest)) = t.split_once('@')
                    && (kind == "eliminating" || kind == "reviving")
                {
                    let mut it = rest.splitn(3, ':');
                    let (Some(s), Some(c), Some(r)) = (it.next(), it.next(), it.next()) else {
                        return Err(format!("'{t}': write {kind}@SEAT:CAUSE:RESUME"));
                    };
                    let cause = match c {
                        "consumed" => EliminationCause::Consumed,
                        "possessed" => EliminationCause::Possessed,
                        "conceded" => EliminationCause::Conceded,
                        _ => return Err(format!("'{t}': '{c}' is no cause (consumed, possessed, conceded)")),
                    };
                    let resume = Box::new(StepPos::parse(r)?);
                    if kind == "eliminating" {
                        StepPos::Eliminating { seat: seat(s)?, cause, resume }
                    } else {
                        StepPos::Reviving { seat: seat(s)?, cause, resume }
                    }
                } else {
                    return Err(format!(
                        "'{t}' is no step (turn-order@S, selecting, start@S/R, haunting, draw, ritual, burden, \
                         am-i-alive, pass, voodoo, martyr, eliminating@S:CAUSE:RESUME, reviving@S:CAUSE:RESUME, \
                         finished)"
                    ));
                }
            }
        })
    }
}

fn cause_name(c: EliminationCause) -> &'static str {
    match c {
        EliminationCause::Consumed => "consumed",
        EliminationCause::Possessed => "possessed",
        EliminationCause::Conceded => "conceded",
    }
}

/// The full position of a table (R10.13): every zone's content and order, classes, the active
/// player and the step, the counters and flags. A position exported for a viewer marks what
/// that viewer may not see as unknown (`viewer` set; never importable).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Position {
    /// R10.1.3: the ruleset id and version.
    pub ruleset: RulesetId,
    /// The viewer the position was exported for, if not everything (R10.8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub viewer: Option<Viewer>,
    /// R10.11: the table's settings (`players` is the number of seats).
    pub settings: Settings,
    /// The turn counters.
    pub turn: TurnPos,
    /// What happens next.
    pub step: StepPos,
    /// Every seat, in seat order.
    pub seats: Vec<SeatPos>,
    /// R3.5: The Dark, top first.
    #[serde(default)]
    pub dark: Zone,
    /// R3.7: the Resolving area, in entry order.
    #[serde(default, skip_serializing_if = "is_empty_zone")]
    pub resolving: Zone,
    /// R3.8: cards out of play.
    #[serde(default, skip_serializing_if = "is_empty_zone")]
    pub out_of_play: Zone,
    /// R7.7.3: seats in the order they were eliminated.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub eliminated: Vec<u8>,
    /// R10.10.2: concessions waiting to take effect.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conceding: Vec<u8>,
    /// R7.4 step 7: death triggers waiting to resolve, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub triggers: Vec<TriggerPos>,
    /// R2.7: the class selection, while it runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selection: Option<SelectionPos>,
    /// R7.7: the result, once the game has ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<GameResult>,
}

/// A fault in a position's text: where (1-based column, in characters) and in which group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PositionError {
    /// 1-based column of the faulty token (in characters), 0 when not tied to a token.
    pub column: usize,
    /// The group, and the zone within it (`seat 2, Shadow`).
    pub context: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.context.is_empty(), self.column) {
            (true, 0) => write!(f, "{}", self.message),
            (true, c) => write!(f, "at column {c}: {}", self.message),
            (false, 0) => write!(f, "{}: {}", self.context, self.message),
            (false, c) => write!(f, "{}, at column {c}: {}", self.context, self.message),
        }
    }
}

impl std::error::Error for PositionError {}

fn join(v: &[u8]) -> String {
    v.iter().map(u8::to_string).collect::<Vec<_>>().join(",")
}

fn seats(s: &str) -> Result<Vec<u8>, String> {
    if s.is_empty() {
        return Ok(Vec::new());
    }
    s.split(',').map(|x| x.parse::<u8>().map_err(|_| format!("'{x}' is not a seat"))).collect()
}

fn class_name(c: ClassId) -> String {
    c.name()
}

fn parse_class(s: &str) -> Result<ClassId, String> {
    serde_json::from_value(serde_json::Value::String(s.to_string()))
        .map_err(|_| format!("'{s}' is no class (snake_case, as `voodoo_doll`)"))
}

fn reason_name(r: EndReason) -> &'static str {
    match r {
        EndReason::LastLit => "last_lit",
        EndReason::Guttered => "guttered",
        EndReason::Witnessed => "witnessed",
    }
}

fn viewer_token(v: Viewer) -> String {
    match v {
        Viewer::Seat { seat } => format!("seat-{seat}"),
        Viewer::Spectator => "spectator".into(),
        Viewer::Everything => "everything".into(),
        Viewer::Commentary => "commentary".into(),
    }
}

/// Parses a viewer: `everything`, `spectator`, `commentary`, `seat-K`.
pub fn parse_viewer(s: &str) -> Result<Viewer, String> {
    Ok(match s {
        "everything" => Viewer::Everything,
        "spectator" => Viewer::Spectator,
        "commentary" => Viewer::Commentary,
        _ => match s.strip_prefix("seat-").and_then(|k| k.parse::<u8>().ok()) {
            Some(seat) => Viewer::Seat { seat },
            None => return Err(format!("'{s}' is no viewer (everything, spectator, commentary, seat-K)")),
        },
    })
}

/// The settings that differ from the defaults, as `key=value` tokens (`classes`, `round_limit=12`,
/// `class_bans=clown,hex`, `first_player=first:0`); `players` and `ruleset` are implied.
fn settings_tokens(s: &Settings) -> Vec<String> {
    let default = serde_json::to_value(Settings::new(s.players)).expect("settings json");
    let actual = serde_json::to_value(s).expect("settings json");
    let (Some(d), Some(a)) = (default.as_object(), actual.as_object()) else { return Vec::new() };
    let mut out = Vec::new();
    for (k, v) in a {
        if k == "players" || k == "ruleset" || d.get(k) == Some(v) {
            continue;
        }
        out.push(match v {
            serde_json::Value::Bool(true) => k.clone(),
            serde_json::Value::Bool(false) => format!("{k}=false"),
            serde_json::Value::Number(n) => format!("{k}={n}"),
            serde_json::Value::String(x) => format!("{k}={x}"),
            serde_json::Value::Array(xs) => {
                format!("{k}={}", xs.iter().filter_map(|x| x.as_str()).collect::<Vec<_>>().join(","))
            }
            serde_json::Value::Object(m) => {
                let mode = m.get("mode").and_then(|x| x.as_str()).unwrap_or("");
                match m.get("seat") {
                    Some(seat) => format!("{k}={mode}:{seat}"),
                    None => format!("{k}={mode}"),
                }
            }
            serde_json::Value::Null => continue,
        });
    }
    out
}

fn apply_setting(obj: &mut serde_json::Map<String, serde_json::Value>, tok: &str) -> Result<(), String> {
    use serde_json::Value;
    let (k, v) = match tok.split_once('=') {
        Some((k, v)) => (k, Some(v)),
        None => (tok, None),
    };
    if k == "players" || k == "ruleset" {
        return Err(format!("'{k}' is not written in settings: the seats and the header give it"));
    }
    let Some(current) = obj.get(k) else {
        return Err(format!("'{k}' is no setting"));
    };
    let value = match (current, v) {
        (Value::Bool(_), None) => Value::Bool(true),
        (Value::Bool(_), Some(v)) => {
            Value::Bool(v.parse::<bool>().map_err(|_| format!("'{tok}': {k} is true or false"))?)
        }
        (_, None) => return Err(format!("'{k}' needs a value ({k}=…)")),
        (Value::Number(_), Some(v)) => {
            Value::Number(v.parse::<u64>().map_err(|_| format!("'{tok}': {k} is a number"))?.into())
        }
        (Value::String(_), Some(v)) => Value::String(v.to_string()),
        (Value::Array(_) | Value::Null, Some(v)) => {
            Value::Array(v.split(',').filter(|x| !x.is_empty()).map(|x| Value::String(x.to_string())).collect())
        }
        (Value::Object(_), Some(v)) => {
            let mut m = serde_json::Map::new();
            let (mode, seat) = match v.split_once(':') {
                Some((mode, seat)) => {
                    (mode, Some(seat.parse::<u8>().map_err(|_| format!("'{tok}': '{seat}' is not a seat"))?))
                }
                None => (v, None),
            };
            m.insert("mode".into(), Value::String(mode.to_string()));
            if let Some(s) = seat {
                m.insert("seat".into(), s.into());
            }
            Value::Object(m)
        }
    };
    obj.insert(k.to_string(), value);
    Ok(())
}

impl fmt::Display for Position {
    /// The one-line text form (see `docs/positions.md`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut groups: Vec<String> = Vec::new();
        let mut head = format!("{}/{}", self.ruleset.id, self.ruleset.version);
        if let Some(v) = self.viewer {
            head.push_str(&format!(" for={}", viewer_token(v)));
        }
        groups.push(head);
        let st = settings_tokens(&self.settings);
        if !st.is_empty() {
            groups.push(format!("settings: {}", st.join(" ")));
        }
        let t = &self.turn;
        let mut turn = format!(
            "turn: round={} active={} step={} budget={} declared={}",
            t.round,
            t.active,
            self.step.token(),
            t.budget,
            t.declared
        );
        if t.free_used {
            turn.push_str(" free-used");
        }
        if t.bonus_used {
            turn.push_str(" bonus-used");
        }
        if let Some(fp) = t.first {
            turn.push_str(&format!(" first={fp}"));
        }
        if !self.eliminated.is_empty() {
            turn.push_str(&format!(" eliminated={}", join(&self.eliminated)));
        }
        if !self.conceding.is_empty() {
            turn.push_str(&format!(" conceding={}", join(&self.conceding)));
        }
        if !self.triggers.is_empty() {
            let ts: Vec<String> =
                self.triggers.iter().map(|p| format!("{}:{}<{}", class_name(p.class), p.owner, p.dead)).collect();
            turn.push_str(&format!(" triggers={}", ts.join(",")));
        }
        groups.push(turn);
        if let Some(sel) = &self.selection {
            let mut g = format!("selection: order={}", join(&sel.order));
            match &sel.offer {
                Some(Offer::Known(cs)) => {
                    g.push_str(&format!(" offer={}", cs.iter().map(|c| class_name(*c)).collect::<Vec<_>>().join(",")))
                }
                Some(Offer::Hidden { hidden }) => g.push_str(&format!(" offer=?x{hidden}")),
                None => {}
            }
            if sel.bans_ignored {
                g.push_str(" bans-ignored");
            }
            groups.push(g);
        }
        if let Some(r) = &self.result {
            let mut g = format!(
                "result: winner={} reason={} placings={}",
                r.winner.map_or("none".to_string(), |w| w.to_string()),
                reason_name(r.reason),
                join(&r.placings)
            );
            if !r.last_lit.is_empty() {
                g.push_str(&format!(" last-lit={}", join(&r.last_lit)));
            }
            groups.push(g);
        }
        for (i, s) in self.seats.iter().enumerate() {
            let mut g = format!("seat {i}: {}", if s.lit { "lit" } else { "out" });
            if let Some(p) = s.placing {
                g.push_str(&format!(" placing={p}"));
            }
            if let Some(c) = s.class {
                g.push_str(&format!(" class={}", class_name(c)));
            }
            if s.once_used {
                g.push_str(" once-used");
            }
            let mut zone = |label: &str, toks: Vec<String>| {
                if !toks.is_empty() {
                    g.push_str(&format!(" {label}: {}", toks.join(" ")));
                }
            };
            zone("hand", s.hand.tokens());
            zone("candle", s.candle.tokens());
            zone("shadow", s.shadow.iter().map(|x| x.token(i as u8)).collect());
            zone("walls", s.walls.iter().map(WallPos::token).collect());
            zone("pages", s.pages.tokens());
            groups.push(g);
        }
        for (label, z) in [("dark", &self.dark), ("resolving", &self.resolving), ("out", &self.out_of_play)] {
            if !z.0.is_empty() {
                groups.push(format!("{label}: {}", z.tokens().join(" ")));
            }
        }
        write!(f, "{}", groups.join(" | "))
    }
}

/// True when `s` is written in the full format (its first token is a ruleset, `current/1`),
/// false for the deal-only format (R10.13's deal: `7H 8D KS / 2C | …`).
pub fn is_full(s: &str) -> bool {
    let first = s.split(|c: char| c.is_whitespace() || c == '|').find(|t| !t.is_empty()).unwrap_or("");
    match first.split_once('/') {
        Some((id, v)) => {
            id.starts_with(|c: char| c.is_ascii_lowercase())
                && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.')
                && !v.is_empty()
                && v.chars().all(|c| c.is_ascii_digit())
        }
        None => false,
    }
}

/// A token of the text with its byte offset.
#[derive(Clone, Copy)]
struct Tok<'a> {
    at: usize,
    text: &'a str,
}

struct Parser<'a> {
    src: &'a str,
}

impl<'a> Parser<'a> {
    fn err(&self, at: Option<usize>, context: &str, message: impl Into<String>) -> PositionError {
        PositionError {
            column: at.map_or(0, |b| self.src[..b].chars().count() + 1),
            context: context.to_string(),
            message: message.into(),
        }
    }

    /// The groups (split at `|`), each as its tokens with their byte offsets.
    fn groups(&self) -> Vec<Vec<Tok<'a>>> {
        let mut out = vec![Vec::new()];
        let mut start: Option<usize> = None;
        let src = self.src;
        let push = |out: &mut Vec<Vec<Tok<'a>>>, a: usize, b: usize| {
            out.last_mut().expect("a group").push(Tok { at: a, text: &src[a..b] });
        };
        for (i, c) in src.char_indices() {
            if c.is_whitespace() || c == '|' {
                if let Some(a) = start.take() {
                    push(&mut out, a, i);
                }
                if c == '|' {
                    out.push(Vec::new());
                }
            } else if start.is_none() {
                start = Some(i);
            }
        }
        if let Some(a) = start {
            push(&mut out, a, src.len());
        }
        out
    }
}

fn num<T: std::str::FromStr>(v: &str, what: &str) -> Result<T, String> {
    v.parse::<T>().map_err(|_| format!("{what} '{v}' is not a number in range"))
}

impl Position {
    /// Parses the text form. Errors name the group, the zone and the column of the fault.
    pub fn parse(s: &str) -> Result<Position, PositionError> {
        let p = Parser { src: s };
        let groups = p.groups();
        let mut it = groups.into_iter();
        let head = it.next().unwrap_or_default();
        let Some(first) = head.first() else {
            return Err(p.err(None, "header", "empty position"));
        };
        let (id, version) = first.text.split_once('/').ok_or_else(|| {
            p.err(Some(first.at), "header", format!("'{}': start with the ruleset, as current/1", first.text))
        })?;
        let version: u32 = num(version, "the ruleset version").map_err(|e| p.err(Some(first.at), "header", e))?;
        let ruleset_name = RulesetName::from_id(id).ok_or_else(|| {
            p.err(Some(first.at), "header", format!("'{id}' is no ruleset this engine plays (current, classic-1.0)"))
        })?;
        let mut viewer = None;
        for t in &head[1..] {
            match t.text.strip_prefix("for=") {
                Some(v) => viewer = Some(parse_viewer(v).map_err(|e| p.err(Some(t.at), "header", e))?),
                None => return Err(p.err(Some(t.at), "header", format!("'{}' is not expected here", t.text))),
            }
        }
        let mut settings_tokens: Vec<Tok> = Vec::new();
        let mut turn: Option<(TurnPos, StepPos)> = None;
        let mut pos = Position {
            ruleset: RulesetId { id: id.to_string(), version },
            viewer,
            settings: Settings::new(0),
            turn: TurnPos::default(),
            step: StepPos::Ritual,
            seats: Vec::new(),
            dark: Zone::default(),
            resolving: Zone::default(),
            out_of_play: Zone::default(),
            eliminated: Vec::new(),
            conceding: Vec::new(),
            triggers: Vec::new(),
            selection: None,
            result: None,
        };
        for g in it {
            let Some(label) = g.first().copied() else {
                return Err(p.err(None, "", "an empty group (two | in a row)"));
            };
            let rest = &g[1..];
            match label.text {
                "settings:" => settings_tokens.extend_from_slice(rest),
                "turn:" => turn = Some(p.turn(rest, &mut pos)?),
                "selection:" => pos.selection = Some(p.selection(rest)?),
                "result:" => pos.result = Some(p.result(rest)?),
                "dark:" | "resolving:" | "out:" => {
                    let ctx = match label.text {
                        "dark:" => "The Dark",
                        "resolving:" => "the Resolving area",
                        _ => "out of play",
                    };
                    let mut v = Vec::new();
                    for t in rest {
                        push_zone_token(&mut v, t.text).map_err(|e| p.err(Some(t.at), ctx, e))?;
                    }
                    match label.text {
                        "dark:" => pos.dark = Zone(v),
                        "resolving:" => pos.resolving = Zone(v),
                        _ => pos.out_of_play = Zone(v),
                    }
                }
                "seat" => {
                    let k = pos.seats.len();
                    let Some(n) = rest.first() else {
                        return Err(p.err(Some(label.at), &format!("seat {k}"), "write seat K: …"));
                    };
                    if n.text != format!("{k}:") {
                        return Err(p.err(
                            Some(n.at),
                            &format!("seat {k}"),
                            format!("'{}': seats are written in order, this one is seat {k}:", n.text),
                        ));
                    }
                    pos.seats.push(p.seat(k as u8, &rest[1..])?);
                }
                other => {
                    return Err(p.err(
                        Some(label.at),
                        "",
                        format!(
                            "'{other}' starts no group (settings:, turn:, selection:, result:, seat K:, dark:, \
                             resolving:, out:)"
                        ),
                    ));
                }
            }
        }
        let (t, step) = turn.ok_or_else(|| p.err(None, "turn", "the turn: group is missing"))?;
        pos.turn = t;
        pos.step = step;
        if pos.seats.is_empty() {
            return Err(p.err(None, "", "no seat K: group"));
        }
        // Settings: defaults for the seat count, the ruleset of the header, then the tokens.
        let n = u8::try_from(pos.seats.len()).map_err(|_| p.err(None, "", "too many seats"))?;
        let mut obj = serde_json::to_value(Settings::new(n)).expect("settings json");
        let map = obj.as_object_mut().expect("object");
        // Left out of the serialised defaults (R10.11, A3.3) but written when set.
        map.entry("dark_mode").or_insert_with(|| serde_json::Value::String("standard".into()));
        for t in &settings_tokens {
            apply_setting(map, t.text).map_err(|e| p.err(Some(t.at), "settings", e))?;
        }
        map.insert("ruleset".into(), serde_json::Value::String(ruleset_name.id().to_string()));
        pos.settings = serde_json::from_value(obj).map_err(|e| {
            p.err(settings_tokens.first().map(|t| t.at), "settings", format!("the settings are not valid: {e}"))
        })?;
        Ok(pos)
    }
}

impl<'a> Parser<'a> {
    fn turn(&self, toks: &[Tok], pos: &mut Position) -> Result<(TurnPos, StepPos), PositionError> {
        let ctx = "turn";
        let mut t = TurnPos::default();
        let mut step = None;
        let (mut round, mut active, mut budget, mut declared) = (None, None, None, None);
        for tok in toks {
            let e = |m: String| self.err(Some(tok.at), ctx, m);
            match tok.text.split_once('=') {
                None => match tok.text {
                    "free-used" => t.free_used = true,
                    "bonus-used" => t.bonus_used = true,
                    x => return Err(e(format!("'{x}' is not expected here"))),
                },
                Some((k, v)) => match k {
                    "round" => round = Some(num::<u16>(v, "round").map_err(e)?),
                    "active" => active = Some(num::<u8>(v, "active").map_err(e)?),
                    "budget" => budget = Some(num::<u8>(v, "budget").map_err(e)?),
                    "declared" => declared = Some(num::<u8>(v, "declared").map_err(e)?),
                    "first" => t.first = Some(num::<u8>(v, "first").map_err(e)?),
                    "step" => step = Some(StepPos::parse(v).map_err(e)?),
                    "eliminated" => pos.eliminated = seats(v).map_err(e)?,
                    "conceding" => pos.conceding = seats(v).map_err(e)?,
                    "triggers" => {
                        pos.triggers = v
                            .split(',')
                            .filter(|x| !x.is_empty())
                            .map(|x| {
                                let (c, rest) =
                                    x.split_once(':').ok_or_else(|| format!("'{x}': write CLASS:OWNER<DEAD"))?;
                                let (o, d) =
                                    rest.split_once('<').ok_or_else(|| format!("'{x}': write CLASS:OWNER<DEAD"))?;
                                Ok(TriggerPos {
                                    class: parse_class(c)?,
                                    owner: num(o, "owner")?,
                                    dead: num(d, "dead")?,
                                })
                            })
                            .collect::<Result<_, String>>()
                            .map_err(e)?
                    }
                    _ => return Err(e(format!("'{k}' is no field of turn:"))),
                },
            }
        }
        let missing = |what: &str| self.err(None, ctx, format!("{what}= is missing"));
        t.round = round.ok_or_else(|| missing("round"))?;
        t.active = active.ok_or_else(|| missing("active"))?;
        t.budget = budget.ok_or_else(|| missing("budget"))?;
        t.declared = declared.ok_or_else(|| missing("declared"))?;
        Ok((t, step.ok_or_else(|| missing("step"))?))
    }

    fn selection(&self, toks: &[Tok]) -> Result<SelectionPos, PositionError> {
        let ctx = "selection";
        let mut s = SelectionPos { order: Vec::new(), bans_ignored: false, offer: None };
        for tok in toks {
            let e = |m: String| self.err(Some(tok.at), ctx, m);
            match tok.text.split_once('=') {
                None if tok.text == "bans-ignored" => s.bans_ignored = true,
                Some(("order", v)) => s.order = seats(v).map_err(e)?,
                Some(("offer", v)) => {
                    s.offer = Some(match v.strip_prefix("?x") {
                        Some(k) => Offer::Hidden { hidden: num(k, "offer size").map_err(e)? },
                        None => Offer::Known(
                            v.split(',')
                                .filter(|x| !x.is_empty())
                                .map(parse_class)
                                .collect::<Result<_, _>>()
                                .map_err(e)?,
                        ),
                    })
                }
                _ => return Err(e(format!("'{}' is not expected here", tok.text))),
            }
        }
        Ok(s)
    }

    fn result(&self, toks: &[Tok]) -> Result<GameResult, PositionError> {
        let ctx = "result";
        let mut r = GameResult { winner: None, reason: EndReason::LastLit, placings: Vec::new(), last_lit: Vec::new() };
        for tok in toks {
            let e = |m: String| self.err(Some(tok.at), ctx, m);
            match tok.text.split_once('=') {
                Some(("winner", "none")) => r.winner = None,
                Some(("winner", v)) => r.winner = Some(num(v, "winner").map_err(e)?),
                Some(("reason", v)) => {
                    r.reason = match v {
                        "last_lit" => EndReason::LastLit,
                        "guttered" => EndReason::Guttered,
                        "witnessed" => EndReason::Witnessed,
                        _ => return Err(e(format!("'{v}' is no reason (last_lit, guttered, witnessed)"))),
                    }
                }
                Some(("placings", v)) => r.placings = seats(v).map_err(e)?,
                Some(("last-lit", v)) => r.last_lit = seats(v).map_err(e)?,
                _ => return Err(e(format!("'{}' is not expected here", tok.text))),
            }
        }
        Ok(r)
    }

    fn seat(&self, k: u8, toks: &[Tok]) -> Result<SeatPos, PositionError> {
        let mut s = SeatPos::default();
        let mut status = false;
        let mut zone: Option<&str> = None;
        for tok in toks {
            let label = match tok.text {
                "hand:" => Some("hand"),
                "candle:" => Some("Candle"),
                "shadow:" => Some("Shadow"),
                "walls:" => Some("Walls"),
                "pages:" => Some("pages"),
                _ => None,
            };
            if label.is_some() {
                zone = label;
                continue;
            }
            let ctx = match zone {
                Some(z) => format!("seat {k}, {z}"),
                None => format!("seat {k}"),
            };
            let e = |m: String| self.err(Some(tok.at), &ctx, m);
            match zone {
                None => match tok.text.split_once('=') {
                    None if tok.text == "lit" || tok.text == "out" => {
                        s.lit = tok.text == "lit";
                        status = true;
                    }
                    None if tok.text == "once-used" => s.once_used = true,
                    Some(("placing", v)) => s.placing = Some(num(v, "placing").map_err(e)?),
                    Some(("class", v)) => s.class = Some(parse_class(v).map_err(e)?),
                    _ => {
                        return Err(e(format!(
                            "'{}' is not expected here (lit, out, placing=N, class=NAME, once-used, then hand:, \
                             candle:, shadow:, walls:, pages:)",
                            tok.text
                        )));
                    }
                },
                Some("hand") => push_zone_token(&mut s.hand.0, tok.text).map_err(e)?,
                Some("Candle") => push_zone_token(&mut s.candle.0, tok.text).map_err(e)?,
                Some("pages") => push_zone_token(&mut s.pages.0, tok.text).map_err(e)?,
                Some("Shadow") => s.shadow.push(GhostPos::parse(tok.text, k).map_err(e)?),
                Some(_) => s.walls.push(WallPos::parse(tok.text).map_err(e)?),
            }
        }
        if !status {
            return Err(self.err(None, &format!("seat {k}"), "write lit or out"));
        }
        Ok(s)
    }
}
