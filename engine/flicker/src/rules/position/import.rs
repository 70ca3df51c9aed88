//! R10.13: starting a table from a full position. The position is checked (cards conserved
//! against the pool, sizes, classes, a consistent turn), its cards are given instances, and the
//! creation event carries the result ([`Setup`]); `evolve` folds it without drawing anything.

use super::format::{CardPos, Offer, Position, StepPos, Zone};
use crate::model::card::{CardId, CardInstance, Face};
use crate::model::classes::{ClassId, Pending};
use crate::model::edition::Rules;
use crate::model::error::{ErrorKind, RuleError};
use crate::model::event::{Event, GameCreated};
use crate::model::pool::build_pool_for;
use crate::model::settings::Settings;
pub use crate::model::setup::{GhostSetup, SeatSetup, Setup};
use crate::model::state::{Elimination, Ghost, PlayerState, Selection, State, Step, Turn, Wall};
use crate::rules::classes::pool_for_rules;
use rand::Rng;
use std::collections::HashMap;

fn bad(message: impl Into<String>) -> RuleError {
    RuleError::new(ErrorKind::BadSettings, "R10.13", message)
}

/// What a checked position holds (for `flicker position --check`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// The ruleset, `current/1`.
    pub ruleset: String,
    /// Seats.
    pub seats: usize,
    /// Lit seats.
    pub lit: usize,
    /// The round.
    pub round: u16,
    /// The active seat.
    pub active: u8,
    /// The step (as written).
    pub step: String,
    /// Cards placed (the whole pool).
    pub cards: usize,
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "a legal position: {}, {} seats ({} Lit), round {}, seat {} active, step {}, {} cards",
            self.ruleset, self.seats, self.lit, self.round, self.active, self.step, self.cards
        )
    }
}

/// R10.13: checks that `pos` is a legal position to start a table from, and gives its cards
/// instances. Errors name what is wrong.
pub fn check(pos: &Position) -> Result<Setup, RuleError> {
    if let Some(v) = pos.viewer {
        return Err(bad(format!(
            "this position was exported for {v:?} and hides cards: only a whole position (exported for everything) \
             can be imported"
        )));
    }
    let rules = Rules::of(&pos.ruleset).ok_or_else(|| {
        bad(format!("ruleset `{}` v{} is not played by this engine", pos.ruleset.id, pos.ruleset.version))
    })?;
    let s = &pos.settings;
    if s.ruleset.id() != pos.ruleset.id {
        return Err(bad(format!("the settings name ruleset `{}`, the position `{}`", s.ruleset.id(), pos.ruleset.id)));
    }
    let n = pos.seats.len();
    if s.players as usize != n {
        return Err(bad(format!("the settings seat {} players, the position has {n} seats", s.players)));
    }
    crate::rules::decide::validate(s)?;
    if let StepPos::Pending { what } = &pos.step {
        return Err(bad(format!(
            "the position is inside a pending decision ({what}): positions inside an action, a free ability or a \
             held answer cannot be imported; import the position at the phase's start (haunting, ritual, burden, …)"
        )));
    }
    let seat_ok = |k: u8, what: &str| -> Result<(), RuleError> {
        if (k as usize) < n { Ok(()) } else { Err(bad(format!("{what}: there is no seat {k} at a table of {n}"))) }
    };

    // Every zone, in a fixed order: hidden cards are refused here.
    let mut zones: Vec<(String, Vec<CardPos>)> = Vec::new();
    let known = |z: &Zone, what: String| -> Result<(String, Vec<CardPos>), RuleError> {
        match z.known() {
            Some(v) => Ok((what, v)),
            None => Err(bad(format!(
                "{what} holds {} unknown cards (?): a position with hidden zones cannot be imported",
                z.hidden()
            ))),
        }
    };
    for (i, p) in pos.seats.iter().enumerate() {
        zones.push(known(&p.hand, format!("seat {i}, hand"))?);
        zones.push(known(&p.candle, format!("seat {i}, Candle"))?);
        zones.push((format!("seat {i}, Shadow"), p.shadow.iter().map(|g| g.card).collect()));
        let walls = p
            .walls
            .iter()
            .map(|w| {
                w.card.ok_or_else(|| {
                    bad(format!(
                        "seat {i}, Walls: a Wall is unknown (?): a position with hidden cards cannot be imported"
                    ))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        zones.push((format!("seat {i}, Walls"), walls));
        zones.push(known(&p.pages, format!("seat {i}, pages"))?);
    }
    zones.push(known(&pos.dark, "The Dark".into())?);
    zones.push(known(&pos.resolving, "the Resolving area".into())?);
    zones.push(known(&pos.out_of_play, "out of play".into())?);

    // R1.6: cards conserved: the pool of this seat count and ruleset, every card exactly once.
    let pool = build_pool_for(rules, n);
    let ids = assign(&pool, &zones, n, &pos.ruleset.id)?;
    let mut ids = ids.into_iter();
    let mut take =
        |k: usize| -> Vec<CardId> { ids.next().map(|v| v.into_iter().take(k).collect()).unwrap_or_default() };

    // Sizes within the rules' limits.
    for (i, p) in pos.seats.iter().enumerate() {
        if p.pages.0.len() > 3 {
            return Err(bad(format!("seat {i}: {} Grimoire pages, at most 3 (R8.9.1)", p.pages.0.len())));
        }
        if p.walls.len() > 3 {
            return Err(bad(format!("seat {i}: {} Walls, at most 3 (R8.2)", p.walls.len())));
        }
        for g in &p.shadow {
            if let Some(h) = g.haunter {
                seat_ok(h, &format!("seat {i}, Shadow, the haunter of {}", g.card.face))?;
            }
            for &v in &g.visited {
                seat_ok(v, &format!("seat {i}, Shadow, {} visited", g.card.face))?;
            }
            if g.card.face.suit.is_none() && g.suit.is_some() {
                return Err(bad(format!("seat {i}, Shadow: a Joker ghost has no suit (R11.6)")));
            }
            if g.card.face.suit.is_some() && g.suit.is_none() {
                return Err(bad(format!("seat {i}, Shadow: the ghost {} needs a suit", g.card.face)));
            }
        }
        for w in &p.walls {
            seat_ok(w.builder, &format!("seat {i}, Walls"))?;
            let builder = pos.seats[w.builder as usize].class;
            if !matches!(builder, Some(ClassId::Cryptkeeper | ClassId::Architect)) {
                return Err(bad(format!("seat {i}, Walls: seat {} builds no Walls (R8.2)", w.builder)));
            }
        }
        if !p.pages.0.is_empty() && p.class != Some(ClassId::GrimoireOfRejection) {
            return Err(bad(format!("seat {i}: only The Grimoire of Rejection keeps pages (R8.9)")));
        }
    }

    // Classes allowed for the count and ruleset.
    let selecting = matches!(pos.step, StepPos::TurnOrder { .. } | StepPos::Selecting);
    let allowed = pool_for_rules(rules, n);
    for (i, p) in pos.seats.iter().enumerate() {
        match (s.classes, p.class) {
            (false, Some(c)) => {
                return Err(bad(format!("seat {i} plays {}, but classes are off at this table", c.name())));
            }
            (true, None) if !selecting => {
                return Err(bad(format!("seat {i} has no class, but the classes have been chosen (R2.7)")));
            }
            (true, Some(c)) => match &s.seat_classes {
                Some(sc) if sc.get(i) != Some(&c) => {
                    return Err(bad(format!("seat {i} plays {}, the settings' seat_classes say otherwise", c.name())));
                }
                Some(_) => {}
                None => {
                    if !allowed.contains(&c) {
                        return Err(bad(format!(
                            "{} is not in the class pool of {n} players under {} (R2.8)",
                            c.name(),
                            pos.ruleset.id
                        )));
                    }
                    if pos.seats[..i].iter().any(|q| q.class == Some(c)) {
                        return Err(bad(format!("{} is played by two seats (R2.7)", c.name())));
                    }
                }
            },
            _ => {}
        }
    }

    // A consistent turn, step and set of Lit seats.
    let t = &pos.turn;
    seat_ok(t.active, "turn: active")?;
    if let Some(f) = t.first {
        seat_ok(f, "turn: first")?;
    }
    for &k in pos.eliminated.iter().chain(&pos.conceding) {
        seat_ok(k, "turn: eliminated/conceding")?;
    }
    for tr in &pos.triggers {
        seat_ok(tr.owner, "turn: triggers")?;
        seat_ok(tr.dead, "turn: triggers")?;
    }
    let eliminating = match &pos.step {
        StepPos::Eliminating { seat, .. } | StepPos::Reviving { seat, .. } => Some(*seat),
        _ => None,
    };
    for (i, p) in pos.seats.iter().enumerate() {
        let listed = pos.eliminated.contains(&(i as u8));
        if p.lit == listed {
            return Err(bad(format!(
                "seat {i} is {} but {} in turn: eliminated=",
                if p.lit { "Lit" } else { "out" },
                if listed { "listed" } else { "not listed" }
            )));
        }
        if !p.lit && p.placing.is_none() {
            return Err(bad(format!("seat {i} is out but has no placing (R7.7.3)")));
        }
    }
    let finished = matches!(pos.step, StepPos::Finished);
    if finished != pos.result.is_some() {
        return Err(bad("step=finished goes with a result: group, and a result only with step=finished"));
    }
    let lit = pos.seats.iter().filter(|p| p.lit).count();
    if !finished && lit < 2 && eliminating.is_none() {
        return Err(bad(format!("only {lit} seat Lit and the game has not ended (R7.7.1)")));
    }
    let turn_step = |st: &StepPos| {
        matches!(
            st,
            StepPos::Haunting
                | StepPos::Draw
                | StepPos::Ritual
                | StepPos::Burden
                | StepPos::AmIAlive
                | StepPos::Voodoo
                | StepPos::Martyr
        )
    };
    let mut st = &pos.step;
    while let StepPos::Eliminating { seat, resume, .. } | StepPos::Reviving { seat, resume, .. } = st {
        seat_ok(*seat, "turn: step")?;
        st = resume;
    }
    match st {
        StepPos::TurnOrder { seat } => seat_ok(*seat, "turn: step")?,
        StepPos::StartTurn { seat, round } => {
            seat_ok(*seat, "turn: step")?;
            if *round == 0 {
                return Err(bad("turn: a turn starts in round 1 or later"));
            }
        }
        x if turn_step(x) => {
            if t.round == 0 {
                return Err(bad(format!("turn: step={} before round 1", x.token())));
            }
            if !pos.seats[t.active as usize].lit {
                return Err(bad(format!("turn: the active seat {} is not Lit", t.active)));
            }
            if matches!(x, StepPos::Haunting) && pos.seats[t.active as usize].shadow.is_empty() {
                return Err(bad(format!("turn: step=haunting, but seat {} has no ghost (R4.2)", t.active)));
            }
        }
        _ => {}
    }
    if pos.selection.is_some() && !matches!(pos.step, StepPos::Selecting) {
        return Err(bad("a selection: group goes with step=selecting"));
    }
    if let Some(sel) = &pos.selection {
        if !s.classes || s.seat_classes.is_some() {
            return Err(bad("a class selection at a table without one (R2.7)"));
        }
        for &k in &sel.order {
            seat_ok(k, "selection: order")?;
        }
        match &sel.offer {
            Some(Offer::Hidden { .. }) => {
                return Err(bad(
                    "selection: the offer is unknown (?): a position with hidden parts cannot be imported",
                ));
            }
            Some(Offer::Known(cs)) if sel.order.is_empty() && !cs.is_empty() => {
                return Err(bad("selection: an offer with nobody left to pick"));
            }
            _ => {}
        }
    }
    if let Some(r) = &pos.result
        && r.placings.len() != n
    {
        return Err(bad(format!("result: {} placings for {n} seats", r.placings.len())));
    }

    // The setup, cards in the zone order above.
    let mut seats = Vec::with_capacity(n);
    for p in &pos.seats {
        let hand = take(p.hand.0.len());
        let candle = take(p.candle.0.len());
        let shadow = take(p.shadow.len())
            .into_iter()
            .zip(&p.shadow)
            .map(|(card, g)| GhostSetup { card, haunter: g.haunter, suit: g.suit, visited: g.visited.clone() })
            .collect();
        let walls = take(p.walls.len()).into_iter().zip(&p.walls).map(|(c, w)| (c, w.builder)).collect();
        let pages = take(p.pages.0.len());
        seats.push(SeatSetup {
            lit: p.lit,
            placing: p.placing,
            class: p.class,
            once_used: p.once_used,
            hand,
            candle,
            shadow,
            walls,
            pages,
        });
    }
    let mut dark = take(pos.dark.0.len());
    dark.reverse();
    let resolving = take(pos.resolving.0.len());
    let out_of_play = take(pos.out_of_play.0.len());
    Ok(Setup {
        turn: pos.turn.clone(),
        step: pos.step.clone(),
        seats,
        dark,
        resolving,
        out_of_play,
        eliminated: pos.eliminated.clone(),
        conceding: pos.conceding.clone(),
        triggers: pos.triggers.clone(),
        selection: pos.selection.clone(),
        result: pos.result.clone(),
    })
}

/// R1.6: gives every named card an instance of the pool: named instances (`7H#1`) first, then
/// the first free instance of its face, zone by zone. Every card of the pool must be placed
/// exactly once.
fn assign(
    pool: &[CardInstance],
    zones: &[(String, Vec<CardPos>)],
    n: usize,
    ruleset: &str,
) -> Result<Vec<Vec<CardId>>, RuleError> {
    let mut by_face: HashMap<Face, Vec<CardId>> = HashMap::new();
    for (i, c) in pool.iter().enumerate() {
        by_face.entry(c.face).or_default().push(CardId(i as u16));
    }
    let mut used = vec![None::<&str>; pool.len()];
    let mut out: Vec<Vec<Option<CardId>>> = zones.iter().map(|(_, v)| vec![None; v.len()]).collect();
    let of = |f: Face| by_face.get(&f).map_or(&[][..], Vec::as_slice);
    for (z, (what, cards)) in zones.iter().enumerate() {
        for (k, c) in cards.iter().enumerate() {
            let Some(i) = c.instance else { continue };
            let Some(&id) = of(c.face).get(i as usize) else {
                return Err(bad(format!(
                    "{what}: {}#{i}: the pool of {n} players ({ruleset}) holds {} {}",
                    super::format::face_token(c.face),
                    of(c.face).len(),
                    c.face
                )));
            };
            if let Some(other) = used[id.0 as usize] {
                return Err(bad(format!(
                    "{what}: {} is placed twice (also in {other})",
                    super::format::card_token(*c)
                )));
            }
            used[id.0 as usize] = Some(what);
            out[z][k] = Some(id);
        }
    }
    for (z, (what, cards)) in zones.iter().enumerate() {
        for (k, c) in cards.iter().enumerate() {
            if c.instance.is_some() {
                continue;
            }
            let Some(&id) = of(c.face).iter().find(|id| used[id.0 as usize].is_none()) else {
                return Err(bad(format!(
                    "{what}: one {} too many: the pool of {n} players ({ruleset}) holds {} (R1.6)",
                    c.face,
                    of(c.face).len()
                )));
            };
            used[id.0 as usize] = Some(what);
            out[z][k] = Some(id);
        }
    }
    let missing: Vec<Face> = pool.iter().zip(&used).filter(|(_, u)| u.is_none()).map(|(c, _)| c.face).collect();
    if !missing.is_empty() {
        let mut counts: Vec<(Face, usize)> = Vec::new();
        for f in missing.iter() {
            match counts.iter_mut().find(|(g, _)| g == f) {
                Some((_, k)) => *k += 1,
                None => counts.push((*f, 1)),
            }
        }
        let list: Vec<String> =
            counts.iter().take(12).map(|(f, k)| if *k > 1 { format!("{f} x{k}") } else { f.to_string() }).collect();
        return Err(bad(format!(
            "{} cards of the pool of {n} players ({ruleset}, {} cards) are placed nowhere: {}{} (R1.6: every card \
             lies in exactly one zone; put unused cards out of play with `out:`)",
            missing.len(),
            pool.len(),
            list.join(", "),
            if counts.len() > 12 { ", …" } else { "" }
        )));
    }
    Ok(out.into_iter().map(|v| v.into_iter().map(|c| c.expect("assigned")).collect()).collect())
}

fn step_of(st: &StepPos) -> Step {
    match st {
        StepPos::TurnOrder { seat } => Step::TurnOrder { seat: *seat },
        StepPos::Selecting => Step::Selecting,
        StepPos::StartTurn { seat, round } => Step::StartTurn { seat: *seat, round: *round },
        StepPos::Haunting => Step::Haunting,
        StepPos::Draw => Step::Draw,
        StepPos::Ritual => Step::Ritual,
        StepPos::Burden => Step::Burden,
        StepPos::AmIAlive => Step::AmIAlive,
        StepPos::PassTurn => Step::PassTurn,
        StepPos::Voodoo => Step::Voodoo,
        StepPos::Martyr => Step::Martyr,
        StepPos::Finished => Step::Finished,
        StepPos::Eliminating { seat, cause, resume } => {
            Step::Eliminating(Box::new(Elimination { seat: *seat, cause: *cause, resume: step_of(resume) }))
        }
        StepPos::Reviving { seat, cause, resume } => {
            Step::Reviving(Box::new(Elimination { seat: *seat, cause: *cause, resume: step_of(resume) }))
        }
        // Never in a checked setup ([`check`] refuses it); folds to a game that awaits nothing.
        StepPos::Pending { .. } => Step::Empty,
    }
}

/// Folds a setup into a freshly created state (from [`crate::rules::evolve`]): pure, no draw.
pub(crate) fn apply_setup(state: &mut State, s: &Setup) {
    state.players = s
        .seats
        .iter()
        .map(|p| PlayerState {
            candle: p.candle.iter().copied().collect(),
            hand: p.hand.clone(),
            shadow: p
                .shadow
                .iter()
                .map(|g| Ghost { card: g.card, haunter: g.haunter, suit: g.suit, visited: g.visited.clone() })
                .collect(),
            lit: p.lit,
            placing: p.placing,
            class: p.class,
            walls: p.walls.iter().map(|&(card, builder)| Wall { card, builder }).collect(),
            pages: p.pages.clone(),
            once_used: p.once_used,
        })
        .collect();
    state.dark = s.dark.clone();
    state.resolving = s.resolving.clone();
    state.out_of_play = s.out_of_play.clone();
    state.first_player = s.turn.first;
    state.turn = Turn {
        active: s.turn.active,
        round: s.turn.round,
        budget: s.turn.budget,
        declared: s.turn.declared,
        free_used: s.turn.free_used,
        bonus_used: s.turn.bonus_used,
    };
    state.step = step_of(&s.step);
    state.eliminated = s.eliminated.clone();
    state.conceding = s.conceding.clone();
    state.pending_triggers =
        s.triggers.iter().map(|t| Pending { owner: t.owner, dead: t.dead, class: t.class }).collect();
    state.selection = s.selection.as_ref().map(|sel| Selection {
        order: sel.order.clone(),
        bans_ignored: sel.bans_ignored,
        offer: match &sel.offer {
            Some(Offer::Known(cs)) => Some(cs.clone()),
            _ => None,
        },
    });
    state.result = s.result.clone();
}

/// R10.13: creates a game from a full position: one creation event carrying the checked
/// position ([`Setup`]), then the automatic events up to the next decision point (drawn by
/// `decide` as usual). The table's settings are the position's, except `hold_windows`, which
/// the server sets (R10.6.5) and is taken from `table` when given; `table`'s seat count must
/// agree with the position's.
pub fn create_from_full<R: Rng + ?Sized>(
    table: Option<&Settings>,
    pos: &Position,
    rng: &mut R,
) -> Result<Vec<Event>, RuleError> {
    if let Some(t) = table
        && t.players as usize != pos.seats.len()
    {
        return Err(bad(format!("the position describes {} seats, the table has {}", pos.seats.len(), t.players)));
    }
    let setup = check(pos)?;
    let mut settings = pos.settings.clone();
    if let Some(t) = table {
        settings.hold_windows = t.hold_windows;
    }
    let rules = Rules::of(&pos.ruleset).expect("checked");
    let n = pos.seats.len();
    let created = Event::GameCreated(Box::new(GameCreated {
        ruleset: pos.ruleset.clone(),
        settings,
        pool: build_pool_for(rules, n),
        candles: vec![Vec::new(); n],
        dark: Vec::new(),
        set_aside: Vec::new(),
        first_player: pos.turn.first,
        handle_key: [rng.next_u64(), rng.next_u64()],
        position: Some(Box::new(setup)),
    }));
    let mut state = State::new();
    crate::rules::evolve::apply(&mut state, &created);
    crate::rules::invariants::check(&state).map_err(|e| bad(format!("the position breaks a rule: {e}")))?;
    let mut out = vec![created];
    crate::rules::decide::advance(&mut state, rng, &mut out);
    crate::rules::invariants::check_settled(&state).map_err(|e| bad(format!("the position breaks a rule: {e}")))?;
    Ok(out)
}

/// R10.13: parses and checks a position string (full or deal-only) without creating anything.
pub fn validate_str(s: &str) -> Result<Summary, String> {
    if !super::format::is_full(s) {
        let deal = super::DealPosition::parse(s)?;
        return Ok(Summary {
            ruleset: "deal-only".into(),
            seats: deal.seats.len(),
            lit: deal.seats.len(),
            round: 0,
            active: 0,
            step: "deal".into(),
            cards: deal.seats.iter().map(|(h, t)| h.len() + t.len()).sum::<usize>() + deal.dark.len(),
        });
    }
    let pos = Position::parse(s).map_err(|e| e.to_string())?;
    validate(&pos).map_err(|e| e.to_string())
}

/// R10.13: checks a position as an import would (including the first automatic steps) and
/// summarises it.
pub fn validate(pos: &Position) -> Result<Summary, RuleError> {
    let mut rng = rand::rngs::ChaCha8Rng::seed_from_u64(0);
    use rand::SeedableRng;
    let events = create_from_full(None, pos, &mut rng)?;
    let state = crate::rules::replay::fold(&events);
    Ok(Summary {
        ruleset: format!("{}/{}", pos.ruleset.id, pos.ruleset.version),
        seats: pos.seats.len(),
        lit: pos.seats.iter().filter(|p| p.lit).count(),
        round: pos.turn.round,
        active: pos.turn.active,
        step: pos.step.token(),
        cards: state.pool.len(),
    })
}
