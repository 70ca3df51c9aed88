//! The gathering process manager (R9.2-R9.10): reacts to a gathering's events and to its
//! circles' endings. [`plan`] decides one step without I/O (an [`Intent`]); [`reconcile`]
//! carries the steps out against the store. It is idempotent and safe to run from several API processes at
//! once: every step is an append at an expected version, table ids are derived from the
//! gathering, stage and circle, so a step done twice is refused by the store and skipped.

use super::circle::{CircleGame, CircleSpec};
use super::{CircleDraw, CircleResult, EndReason, Gathering, GatheringEvent, Status, append};
use crate::bots::BotKind;
use crate::tables::{self, SeatHolder, Snapshot, TableEvent, TableGathering, Tables};
use flicker_game::{Game, RuleError};
use flicker_store::{EventStore, StoreError};
use futures_util::StreamExt;
use rand::Rng;
use rand::seq::SliceRandom;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// The actor recorded on the manager's events.
pub const ACTOR: &str = "system:gatherings";

/// R9.3: the id of the table that plays `circle` of `stage` (a name-based UUID, so every
/// process derives the same one).
pub fn table_id(gathering: &str, stage: u32, circle: u32) -> String {
    let ns = uuid::Uuid::parse_str(gathering).unwrap_or(uuid::Uuid::NAMESPACE_OID);
    uuid::Uuid::new_v5(&ns, format!("stage-{stage}-circle-{circle}").as_bytes()).to_string()
}

/// R9.2: draws a stage of `players` (in any order): shuffles them with `rng` (the draw is
/// recorded in the event) and splits them into circles of the R9.2.2 sizes.
pub fn draw_stage<R: Rng + ?Sized>(g: &Gathering, stage: u32, players: &[String], rng: &mut R) -> GatheringEvent {
    let mut order = players.to_vec();
    order.shuffle(rng);
    let sizes = g.settings.circle_sizes(order.len());
    let mut rest = order.as_slice();
    let circles = sizes
        .iter()
        .enumerate()
        .map(|(i, &n)| {
            let (these, more) = rest.split_at(n);
            rest = more;
            let circle = i as u32 + 1;
            CircleDraw { circle, table_id: table_id(&g.id, stage, circle), players: these.to_vec() }
        })
        .collect();
    GatheringEvent::StageDrawn { stage, circles }
}

/// R9.8.4: the class each of `players` played in an earlier stage, if every one has one.
fn kept_classes(g: &Gathering, players: &[String]) -> Option<Vec<final_flicker::ClassId>> {
    players
        .iter()
        .map(|name| {
            g.stages.iter().flat_map(|s| &s.circles).find_map(|(draw, r)| {
                let seat = draw.players.iter().position(|n| n == name)?;
                r.as_ref()?.classes.get(seat).copied().flatten()
            })
        })
        .collect()
}

/// R10.6.5: the minimum window of a table (the setting, or 1,500 ms with any person seated).
pub fn min_window_ms(g: &Gathering, any_person: bool) -> u32 {
    g.settings.reaction_window_min_ms.unwrap_or(if any_person { 1500 } else { 0 })
}

/// A circle table to create: its creation event and the game's dealing events, appended
/// together at version 0 (so a table created twice is refused by the store).
#[derive(Debug, Clone)]
pub struct CircleTable<G: Game> {
    /// The table's id ([`table_id`]).
    pub table_id: String,
    /// The platform event that creates it, its seats filled.
    pub created: TableEvent<G::Settings>,
    /// The game's creation events (dealt).
    pub game: Vec<G::Event>,
}

/// What one step of the manager does next, decided by [`plan`] from the gathering and its
/// current stage's tables.
#[derive(Debug, Clone)]
pub enum Intent<G: Game> {
    /// Create the current stage's missing circle tables.
    CreateTables(Vec<CircleTable<G>>),
    /// Carry out the organiser's drops and replacements at the current stage's tables.
    ChangeSeats(Vec<SeatChange>),
    /// Append these events to the gathering, at the version it was folded at: ended circles
    /// (R9.5.4), the stage opened, the next stage drawn (R9.2) or the end (R9.6, R9.10).
    Record(Vec<GatheringEvent>),
    /// Nothing to do until a circle ends.
    Wait,
}

/// What a dropped or replaced player's seat needs at its table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatChange {
    /// The table.
    pub table_id: String,
    /// The seat.
    pub seat: u8,
    /// Who holds it now (the change is skipped if that changed meanwhile).
    pub holder: String,
    /// What to do.
    pub change: Change,
}

/// The change of a [`SeatChange`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// R10.10: the dropped player concedes.
    Concede,
    /// A substitute bot takes the seat (docs/rules-decisions.md, "Substitutes").
    Replace {
        /// Its display name ([`Gathering::substitute_name`]).
        name: String,
        /// Its policy.
        bot: BotKind,
    },
}

/// Why the manager could not bring a gathering up to date.
#[derive(Debug, thiserror::Error)]
pub enum GatheringError {
    /// The game refused a circle's settings (a gathering's settings were checked when it was
    /// created, so this is a defect).
    #[error("{0}")]
    Rule(#[from] RuleError),
    /// The event store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The table of one circle (seats filled from the draw), dealt with `rng`.
fn circle_table<G: CircleGame, R: Rng + ?Sized>(
    g: &Gathering,
    stage: u32,
    qualifying: bool,
    draw: &CircleDraw,
    rng: &mut R,
) -> Result<CircleTable<G>, RuleError> {
    let holders: Vec<SeatHolder> = draw
        .players
        .iter()
        .map(|name| {
            let r = g.registrant(name);
            SeatHolder { name: name.clone(), bot: r.and_then(|r| r.bot) }
        })
        .collect();
    let any_person = draw.players.iter().any(|n| g.registrant(n).is_some_and(|p| p.bot.is_none() && !p.program));
    // R9.8.4: later stages keep each player's class; a player without a recorded one (a circle
    // that ended before choosing) makes the circle choose again (docs/rules-decisions.md).
    let kept = if stage > 1 { kept_classes(g, &draw.players) } else { None };
    let spec = CircleSpec {
        stage,
        seats: draw.players.len() as u8,
        qualifying,
        hold_windows: min_window_ms(g, any_person) > 0,
        kept_classes: kept,
    };
    let settings = G::circle_settings(&g.settings, &spec);
    let created = TableEvent::TableCreated {
        table_id: draw.table_id.clone(),
        game: crate::names::GameName::from_id(G::GAME_ID).unwrap_or_default(),
        creator: g.organiser.clone(),
        settings: settings.clone(),
        practice: false,
        position: None,
        gathering: Some(TableGathering { gathering_id: g.id.clone(), stage, circle: draw.circle }),
        seated: holders,
        clocks: g.settings.clocks,
        reaction_window_min_ms: min_window_ms(g, any_person),
        // R10.6.5: the default minimum window (none in the settings) lapses with the persons.
        min_window_at_start: g.settings.reaction_window_min_ms.is_none(),
        bot_delay_ms: g.settings.bot_delay_ms,
        abandonment: g.settings.abandonment,
    };
    let game = G::create(&settings, rng).map_err(Into::into)?;
    Ok(CircleTable { table_id: draw.table_id.clone(), created, game })
}

/// R9.5.4: a circle's result from its finished table. A substitute (no registrant) never
/// advances and never wins: its place goes to nobody (docs/rules-decisions.md, "Substitutes").
fn circle_result<G: CircleGame>(g: &Gathering, snap: &Snapshot<G>, qualifying: bool) -> Option<CircleResult> {
    let r = G::outcome(&snap.state)?;
    let name = |s: u8| snap.info.seats.get(s as usize).cloned().flatten().unwrap_or_default();
    let registrant = |n: &String| g.in_play(n);
    Some(CircleResult {
        winner: r.winner.map(name).filter(registrant),
        last_lit: G::advancing(&r, if qualifying { g.settings.advance } else { 1 })
            .iter()
            .map(|&s| name(s))
            .filter(registrant)
            .collect(),
        placings: r.placings.clone(),
        reason: r.reason.to_string(),
        classes: G::kept_classes(&snap.state),
        points: G::points(&snap.state),
    })
}

/// The drops and replacements still to carry out at a circle's table that plays: a replaced
/// player's seat not yet taken over by its substitute, a dropped player who may still concede.
fn seat_changes<G: CircleGame>(g: &Gathering, snap: &Snapshot<G>) -> Vec<SeatChange> {
    let mut out = Vec::new();
    for (seat, holder) in snap.info.seats.iter().enumerate() {
        let (Some(holder), seat) = (holder, seat as u8) else { continue };
        let change = if let Some(&bot) = g.replaced.get(holder) {
            Change::Replace { name: Gathering::substitute_name(bot, holder), bot }
        } else if g.dropped.contains(holder) && G::may_concede(&snap.state, seat) {
            Change::Concede
        } else {
            continue;
        };
        out.push(SeatChange { table_id: snap.info.table_id.clone(), seat, holder: holder.clone(), change });
    }
    out
}

/// One step of the manager, decided without I/O: `g` as folded, `tables` the tables of its
/// current stage's circles that were read (by table id), `playing` the ids of circle tables
/// known to exist whose game is taken to go on without reading them (a circle in neither gets
/// its table created), `rng` for the draws and the deals. R9.10.1: nobody registered, or a lone registrant, ends
/// it at once; R9.6: once every circle of a stage has ended, its Last Lit advance to the next
/// stage, or the Final Ritual's winner (or nobody) ends it.
pub fn plan<G: CircleGame, R: Rng + ?Sized>(
    g: &Gathering,
    tables: &HashMap<String, Arc<Snapshot<G>>>,
    playing: &HashSet<String>,
    rng: &mut R,
) -> Result<Intent<G>, RuleError> {
    let Some(stage) = g.current_stage() else {
        let names: Vec<String> = g.players.iter().filter(|p| g.in_play(&p.name)).map(|p| p.name.clone()).collect();
        let ev = match names.len() {
            0 => GatheringEvent::GatheringEnded { winner: None, reason: EndReason::NoPlayers },
            1 => GatheringEvent::GatheringEnded { winner: Some(names[0].clone()), reason: EndReason::Walkover },
            // X2.1: too few for a table of the game (the start refuses this).
            n if n < g.settings.min_players() => {
                GatheringEvent::GatheringEnded { winner: None, reason: EndReason::NoWinner }
            }
            _ => draw_stage(g, 1, &names, rng),
        };
        return Ok(Intent::Record(vec![ev]));
    };
    let qualifying = stage.circles.len() > 1;
    let mut ended = Vec::new();
    let mut missing = Vec::new();
    let mut changes = Vec::new();
    for (draw, result) in &stage.circles {
        if result.is_some() {
            continue;
        }
        match tables.get(&draw.table_id) {
            None if playing.contains(&draw.table_id) => {}
            None => missing.push(circle_table(g, stage.stage, qualifying, draw, rng)?),
            Some(snap) => match circle_result(g, snap, qualifying) {
                Some(r) => {
                    ended.push(GatheringEvent::CircleEnded { stage: stage.stage, circle: draw.circle, result: r })
                }
                None => changes.extend(seat_changes(g, snap)),
            },
        }
    }
    if !missing.is_empty() {
        return Ok(Intent::CreateTables(missing));
    }
    if !ended.is_empty() {
        return Ok(Intent::Record(ended));
    }
    if !stage.opened {
        return Ok(Intent::Record(vec![GatheringEvent::StageOpened { stage: stage.stage }]));
    }
    if !changes.is_empty() {
        return Ok(Intent::ChangeSeats(changes));
    }
    if !stage.complete() {
        return Ok(Intent::Wait);
    }
    // A Last Lit dropped before the next draw is drawn into no later stage.
    let advancing: Vec<String> = stage
        .circles
        .iter()
        .flat_map(|(_, r)| r.as_ref().map(|r| r.last_lit.clone()).unwrap_or_default())
        .filter(|n| g.in_play(n))
        .collect();
    let ev = if qualifying && g.settings.game == super::GameName::LetsCallTheExorcist {
        // Rules decision 74: the advancers, the Final table filled to 4 by the best-placed.
        let circles = stage.circles.iter().filter_map(|(d, r)| Some((d.players.as_slice(), r.as_ref()?)));
        match super::exorcist::next_stage(g, circles) {
            super::exorcist::Next::Stage(field) => draw_stage(g, stage.stage + 1, &field, rng),
            super::exorcist::Next::Walkover(w) => {
                GatheringEvent::GatheringEnded { winner: Some(w), reason: EndReason::Walkover }
            }
            super::exorcist::Next::NoWinner => {
                GatheringEvent::GatheringEnded { winner: None, reason: EndReason::NoWinner }
            }
        }
    } else if !qualifying {
        let winner = stage.circles[0].1.as_ref().and_then(|r| r.winner.clone());
        let reason = if winner.is_some() { EndReason::FinalRitual } else { EndReason::NoWinner };
        GatheringEvent::GatheringEnded { winner, reason }
    } else {
        match advancing.len() {
            0 => GatheringEvent::GatheringEnded { winner: None, reason: EndReason::NoWinner },
            1 => GatheringEvent::GatheringEnded { winner: Some(advancing[0].clone()), reason: EndReason::Walkover },
            _ => draw_stage(g, stage.stage + 1, &advancing, rng),
        }
    };
    Ok(Intent::Record(vec![ev]))
}

/// What the manager of one gathering remembers between its runs in one process, so that a run
/// reads only the circle tables that may have changed, not the whole stage (a stage of 1,250
/// circles is otherwise read once per circle that ends). Forgetting it is always safe: the
/// next run reads every table of the stage again.
#[derive(Debug, Default)]
pub struct Known {
    /// The stage `playing` belongs to.
    stage: u32,
    /// Circle tables of `stage` that exist and had not ended when last read.
    playing: HashSet<String>,
    /// Tables to read on the next run (their game may have ended).
    look: HashSet<String>,
}

impl Known {
    /// The next run reads every table of the current stage.
    pub fn forget(&mut self) {
        self.stage = 0;
        self.playing.clear();
        self.look.clear();
    }

    /// The next run reads `table` (its game may have ended).
    pub fn look_at(&mut self, table: String) {
        self.look.insert(table);
    }
}

/// Circle tables created at once when a stage opens: the store's writer commits them in
/// shared batches instead of one durable commit after another.
const CREATE_AT_ONCE: usize = 32;

/// Brings a gathering up to date: draws the first stage once started, creates missing circle
/// tables, records ended circles, draws the next stage or ends the gathering (R9.6, R9.10),
/// one [`plan`] at a time, each carried out against `store` (tables through `tables_cache`,
/// whose clock dates their first decision points). Reads the circle tables `known` does not
/// take to be playing, those it was told to look at, and those of dropped or replaced players;
/// updates `known`. Idempotent; returns once nothing more can be done now. `rng` draws the
/// stages and deals the tables.
pub async fn reconcile<G: CircleGame, R: Rng + ?Sized>(
    store: &dyn EventStore,
    tables_cache: &Tables<G>,
    gatherings: &super::GatheringCache,
    id: &str,
    known: &mut Known,
    rng: &mut R,
) -> Result<(), GatheringError> {
    let r = run(store, tables_cache, gatherings, id, known, rng).await;
    if r.is_err() {
        known.forget();
    }
    r
}

async fn run<G: CircleGame, R: Rng + ?Sized>(
    store: &dyn EventStore,
    tables_cache: &Tables<G>,
    gatherings: &super::GatheringCache,
    id: &str,
    known: &mut Known,
    rng: &mut R,
) -> Result<(), GatheringError> {
    for _ in 0..64 {
        // The cached gathering, caught up with its stream: a gathering of 10,000 players is
        // not read and folded again for every circle that ends.
        let Some(g) = gatherings.get(store, id).await? else { return Ok(()) };
        if g.over() || g.status == Status::Registering {
            return Ok(());
        }
        let mut current = HashMap::new();
        if let Some(stage) = g.current_stage() {
            if known.stage != stage.stage {
                known.forget();
                known.stage = stage.stage;
            }
            let changed = seat_changes_due(&g, stage);
            let mut look = std::mem::take(&mut known.look);
            for (draw, result) in &stage.circles {
                if result.is_some() {
                    known.playing.remove(&draw.table_id);
                    continue;
                }
                let id = &draw.table_id;
                if known.playing.contains(id) && !look.contains(id) && !changed.contains(id.as_str()) {
                    continue;
                }
                match tables_cache.load(store, id).await {
                    Ok(snap) => {
                        known.playing.insert(id.clone());
                        current.insert(id.clone(), snap);
                    }
                    Err(tables::TableError::NotFound { .. }) => {
                        known.playing.remove(id);
                    }
                    // Read again on the next run.
                    Err(_) => {
                        look.insert(id.clone());
                    }
                }
                look.remove(id);
            }
            known.look.extend(look);
        }
        let intent = plan(&g, &current, &known.playing, rng)?;
        let created: Vec<String> = match &intent {
            Intent::CreateTables(t) => t.iter().map(|t| t.table_id.clone()).collect(),
            _ => Vec::new(),
        };
        match execute(store, tables_cache, &g, intent, rng).await {
            Ok(true) => {
                known.playing.extend(created);
                continue;
            }
            Ok(false) => return Ok(()),
            Err(StoreError::Conflict { .. }) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

/// The circle tables of `stage` that seat a player dropped or replaced by the organiser (they
/// may need a [`SeatChange`]); none in a gathering without drops.
fn seat_changes_due<'a>(g: &Gathering, stage: &'a super::Stage) -> HashSet<&'a str> {
    if g.dropped.is_empty() && g.replaced.is_empty() {
        return HashSet::new();
    }
    stage
        .circles
        .iter()
        .filter(|(draw, result)| {
            result.is_none() && draw.players.iter().any(|p| g.dropped.contains(p) || g.replaced.contains_key(p))
        })
        .map(|(draw, _)| draw.table_id.as_str())
        .collect()
}

/// Carries out one intent; `Ok(true)` when another step may follow. A table that exists
/// already (another process created it) is skipped.
async fn execute<G: CircleGame, R: Rng + ?Sized>(
    store: &dyn EventStore,
    tables_cache: &Tables<G>,
    g: &Gathering,
    intent: Intent<G>,
    rng: &mut R,
) -> Result<bool, StoreError> {
    match intent {
        Intent::Wait => Ok(false),
        Intent::ChangeSeats(changes) => {
            let mut changed = false;
            for c in changes {
                let r = tables_cache
                    .command(store, &c.table_id, ACTOR, None, |snap| {
                        if snap.info.seats.get(c.seat as usize).cloned().flatten().as_deref() != Some(&c.holder) {
                            return Ok(Vec::new());
                        }
                        match &c.change {
                            Change::Concede => tables::decide(snap, &G::concede_command(c.seat), &mut *rng),
                            Change::Replace { name, bot } => {
                                let ev = TableEvent::<G::Settings>::SeatReplaced {
                                    seat: c.seat,
                                    name: name.clone(),
                                    bot: *bot,
                                };
                                Ok(vec![tables::table_event(&ev, Default::default())])
                            }
                        }
                    })
                    .await;
                match r {
                    Ok(_) => changed = true,
                    Err(tables::TableError::Store(e)) => return Err(e),
                    // The table moved on (the game ended, the seat conceded): nothing to do.
                    Err(_) => {}
                }
            }
            Ok(changed)
        }
        Intent::Record(events) => {
            append(store, g, &events, ACTOR).await?;
            Ok(true)
        }
        Intent::CreateTables(tables) => {
            // Several at once, each on its own (a circle's table is played as soon as it
            // exists); a table another process created meanwhile is skipped.
            let mut created = futures_util::stream::iter(tables)
                .map(|t| async move {
                    let now = tables_cache.clock.now();
                    match tables::create_with_game::<G>(store, &t.table_id, &t.created, &t.game, ACTOR, now).await {
                        // Warm the cache for the driver.
                        Ok(()) => {
                            let _warm = tables_cache.load(store, &t.table_id).await;
                            Ok(())
                        }
                        Err(StoreError::Conflict { .. }) => Ok(()),
                        Err(e) => Err(e),
                    }
                })
                .buffer_unordered(CREATE_AT_ONCE);
            let mut failed = None;
            while let Some(r) = created.next().await {
                if let Err(e) = r {
                    failed.get_or_insert(e);
                }
            }
            failed.map_or(Ok(true), Err)
        }
    }
}

#[cfg(test)]
mod tests {
    //! The manager's steps without a store or a clock: each circle table is played out by
    //! random bots in memory, and [`plan`] is asked for the next step until the gathering ends.
    use super::super::{FinalDark, GatheringSettings, Registrant, to_new};
    use super::*;
    use crate::bots::BotKind;
    use crate::games::FinalFlicker;
    use crate::tables::{engine_event, table_event};
    use final_flicker::{Command, PromptKind, State};
    use flicker_store::{Metadata, StoredEvent};
    use rand::SeedableRng;

    fn at() -> chrono::DateTime<chrono::Utc> {
        chrono::DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z").unwrap().with_timezone(&chrono::Utc)
    }

    /// Folds `events` onto `g` as if stored after its last event.
    fn record(g: &mut Gathering, events: &[GatheringEvent]) {
        for e in events {
            let n = to_new(e, ACTOR);
            g.apply(&StoredEvent {
                position: crate::store::Position::START,
                stream_id: super::super::stream_of(&g.id),
                stream_version: crate::store::StreamVersion::new(
                    u64::try_from(g.version + 1).expect("versions are positive"),
                ),
                event_type: n.event_type,
                schema_version: n.schema_version,
                payload_text: n.payload.to_string(),
                payload: n.payload,
                hash: None,
                metadata: n.metadata,
                recorded_at: at(),
            })
            .unwrap();
        }
    }

    /// A circle's table played to its end by random bots.
    fn play_out(t: &CircleTable<FinalFlicker>, rng: &mut rand::rngs::ChaCha8Rng) -> Arc<Snapshot<FinalFlicker>> {
        let mut events = t.game.clone();
        let mut state = State::new();
        for e in &events {
            final_flicker::apply(&mut state, e);
        }
        for _ in 0..200_000 {
            if state.is_finished() {
                break;
            }
            let open = final_flicker::prompts(&state);
            let cmd = match open.iter().find(|p| !matches!(p.kind, PromptKind::Salt { current: Some(_), .. })) {
                Some(p) => Command::Answer {
                    seat: p.seat,
                    prompt: Some(p.id),
                    answer: flicker_lab::bot::random_answer(p, rng),
                },
                None => Command::CloseWindow,
            };
            for e in final_flicker::decide(&state, &cmd, rng).unwrap() {
                final_flicker::apply(&mut state, &e);
                events.push(e);
            }
        }
        assert!(state.is_finished(), "a random game ends");
        let mut new = vec![table_event(&t.created, Metadata::default())];
        new.extend(events.iter().map(|e| engine_event::<FinalFlicker>(e, Metadata::default())));
        Arc::new(Snapshot::fold_new(&t.table_id, &new, at()).unwrap())
    }

    /// Runs a started gathering of `n` bots to its end; returns it and the number of steps.
    fn run(n: usize, settings: GatheringSettings, seed: u64) -> Gathering {
        let mut rng = rand::rngs::ChaCha8Rng::seed_from_u64(seed);
        let id = uuid::Uuid::from_u128(seed as u128 + 1).to_string();
        let mut g = Gathering::empty(&id);
        let mut setup = vec![GatheringEvent::GatheringCreated {
            gathering_id: id.clone(),
            name: "test".into(),
            organiser: "org".into(),
            settings,
        }];
        setup.extend((1..=n).map(|i| {
            GatheringEvent::PlayerRegistered(Registrant {
                name: format!("random-bot#{i:03}"),
                bot: Some(BotKind::Random),
                program: false,
            })
        }));
        setup.push(GatheringEvent::GatheringStarted);
        record(&mut g, &setup);
        let mut tables: HashMap<String, Arc<Snapshot<FinalFlicker>>> = HashMap::new();
        for _ in 0..1_000 {
            if g.over() {
                return g;
            }
            match plan(&g, &tables, &HashSet::new(), &mut rng).unwrap() {
                Intent::CreateTables(new) => {
                    assert!(!new.is_empty());
                    for t in &new {
                        assert!(!tables.contains_key(&t.table_id), "a table is created once");
                        tables.insert(t.table_id.clone(), play_out(t, &mut rng));
                    }
                }
                Intent::Record(events) => record(&mut g, &events),
                Intent::Wait => panic!("every table has ended, so the manager never waits here"),
                Intent::ChangeSeats(c) => panic!("nobody was dropped or replaced: {c:?}"),
            }
        }
        panic!("the gathering did not end");
    }

    /// R9.2, R9.6: a 20-player field (7+7+6) runs its stages to a Final Ritual and one winner;
    /// each stage holds exactly the previous stage's Last Lit.
    #[test]
    fn a_gathering_runs_its_stages_to_one_winner() {
        let g = run(20, GatheringSettings { classes: false, ..Default::default() }, 7);
        assert_eq!(g.status, Status::Finished);
        let sizes: Vec<usize> = g.stages[0].circles.iter().map(|(c, _)| c.players.len()).collect();
        assert_eq!(sizes, vec![7, 7, 6], "R9.2.2");
        for w in g.stages.windows(2) {
            let mut sent: Vec<String> =
                w[0].circles.iter().flat_map(|(_, r)| r.as_ref().unwrap().last_lit.clone()).collect();
            let mut next: Vec<String> = w[1].circles.iter().flat_map(|(c, _)| c.players.clone()).collect();
            sent.sort();
            next.sort();
            assert_eq!(sent, next, "R9.6: the Last Lit go on");
        }
        let last = g.stages.last().unwrap();
        match g.end_reason.unwrap() {
            EndReason::FinalRitual => {
                assert_eq!(last.circles.len(), 1, "the last stage is a Final Ritual");
                assert!(g.winner.is_some());
                assert_eq!(g.winner, last.circles[0].1.as_ref().unwrap().winner);
            }
            EndReason::Walkover => assert_eq!(g.winner.iter().count(), 1),
            EndReason::NoWinner => assert_eq!(g.winner, None),
            other => panic!("{other:?}"),
        }
    }

    /// Substitutes (docs/rules-decisions.md): a Final Ritual won at a replaced player's seat
    /// has no winner, and a replaced player is never among a circle's Last Lit.
    #[test]
    fn a_final_ritual_won_by_a_substitute_has_no_winner() {
        let mut rng = rand::rngs::ChaCha8Rng::seed_from_u64(11);
        let mut g = Gathering::empty("00000000-0000-0000-0000-00000000000b");
        let mut setup = vec![GatheringEvent::GatheringCreated {
            gathering_id: g.id.clone(),
            name: "test".into(),
            organiser: "org".into(),
            settings: GatheringSettings { classes: false, ..Default::default() },
        }];
        let names: Vec<String> = (1..=4).map(|i| format!("p{i}")).collect();
        setup.extend(
            names
                .iter()
                .map(|n| GatheringEvent::PlayerRegistered(Registrant { name: n.clone(), bot: None, program: false })),
        );
        setup.push(GatheringEvent::GatheringStarted);
        record(&mut g, &setup);
        let mut tables: HashMap<String, Arc<Snapshot<FinalFlicker>>> = HashMap::new();
        for _ in 0..20 {
            if g.over() {
                break;
            }
            match plan(&g, &tables, &HashSet::new(), &mut rng).unwrap() {
                Intent::CreateTables(new) => {
                    // Everybody is replaced once the Final Ritual's table exists.
                    let replaced: Vec<GatheringEvent> = names
                        .iter()
                        .map(|n| GatheringEvent::PlayerReplaced {
                            name: n.clone(),
                            bot: BotKind::Random,
                            by: "org".into(),
                        })
                        .collect();
                    record(&mut g, &replaced);
                    for t in &new {
                        tables.insert(t.table_id.clone(), play_out(t, &mut rng));
                    }
                }
                Intent::Record(events) => record(&mut g, &events),
                other => panic!("{other:?}"),
            }
        }
        assert_eq!((g.winner.as_deref(), g.end_reason), (None, Some(EndReason::NoWinner)));
        let result = g.stages[0].circles[0].1.as_ref().unwrap();
        assert_eq!((result.winner.as_deref(), result.last_lit.len()), (None, 0), "{result:?}");
    }

    /// R9.10.1: nobody registered ends with no winner; a lone registrant wins by walkover.
    #[test]
    fn nobody_and_a_lone_registrant() {
        let g = run(0, GatheringSettings::default(), 1);
        assert_eq!((g.winner.as_deref(), g.end_reason), (None, Some(EndReason::NoPlayers)));
        let g = run(1, GatheringSettings::default(), 2);
        assert_eq!((g.winner.as_deref(), g.end_reason), (Some("random-bot#001"), Some(EndReason::Walkover)));
    }

    /// A started gathering of `settings` with `names` registered (people), no stage drawn.
    fn started(settings: GatheringSettings, names: &[String]) -> Gathering {
        let mut g = Gathering::empty("00000000-0000-0000-0000-0000000000c1");
        let mut events = vec![GatheringEvent::GatheringCreated {
            gathering_id: g.id.clone(),
            name: "test".into(),
            organiser: "org".into(),
            settings,
        }];
        events.extend(
            names
                .iter()
                .map(|n| GatheringEvent::PlayerRegistered(Registrant { name: n.clone(), bot: None, program: false })),
        );
        events.push(GatheringEvent::GatheringStarted);
        record(&mut g, &events);
        g
    }

    /// A started gathering of `settings` whose stage 1 (`circles`: each circle's players by seat,
    /// its Last Lit and each seat's class) has been played and recorded.
    fn after_stage_one(
        settings: GatheringSettings,
        circles: &[(&[&str], &[&str], &[final_flicker::ClassId])],
    ) -> Gathering {
        let names: Vec<String> = circles.iter().flat_map(|(p, _, _)| p.iter().map(|n| n.to_string())).collect();
        let mut g = started(settings, &names);
        let mut events = Vec::new();
        let draws: Vec<CircleDraw> = circles
            .iter()
            .enumerate()
            .map(|(i, (players, _, _))| CircleDraw {
                circle: i as u32 + 1,
                table_id: table_id(&g.id, 1, i as u32 + 1),
                players: players.iter().map(|n| n.to_string()).collect(),
            })
            .collect();
        events.push(GatheringEvent::StageDrawn { stage: 1, circles: draws });
        events.push(GatheringEvent::StageOpened { stage: 1 });
        for (i, (players, last_lit, classes)) in circles.iter().enumerate() {
            events.push(GatheringEvent::CircleEnded {
                stage: 1,
                circle: i as u32 + 1,
                result: CircleResult {
                    winner: (last_lit.len() == 1).then(|| last_lit[0].to_string()),
                    last_lit: last_lit.iter().map(|n| n.to_string()).collect(),
                    placings: players.iter().map(|n| if last_lit.contains(n) { 1 } else { 2 }).collect(),
                    reason: "last_lit".into(),
                    classes: classes.iter().map(|&c| Some(c)).collect(),
                    points: vec![],
                },
            });
        }
        record(&mut g, &events);
        g
    }

    /// The tables the manager creates next for `g` (recording any draw first).
    fn next_tables(g: &mut Gathering, rng: &mut rand::rngs::ChaCha8Rng) -> Vec<CircleTable<FinalFlicker>> {
        for _ in 0..4 {
            match plan::<FinalFlicker, _>(g, &HashMap::new(), &HashSet::new(), rng).unwrap() {
                Intent::CreateTables(t) => return t,
                Intent::Record(events) => record(g, &events),
                other => panic!("{other:?}"),
            }
        }
        panic!("no tables created");
    }

    /// The game settings, clocks and creation event of a circle table.
    fn created(
        t: &CircleTable<FinalFlicker>,
    ) -> (final_flicker::Settings, crate::clocks::Clocks, final_flicker::event::GameCreated) {
        let TableEvent::TableCreated { settings, clocks, .. } = &t.created else { panic!("{:?}", t.created) };
        let final_flicker::Event::GameCreated(c) = &t.game[0] else { panic!("creation first") };
        (settings.clone(), *clocks, (**c).clone())
    }

    /// Three circles of four (A = 1) whose Last Lit are `a1`, `b1` and `c1` (classes: the Mimic
    /// `a1`, the Lich `b1`).
    fn three_circles() -> [(&'static [&'static str], &'static [&'static str], &'static [final_flicker::ClassId]); 3] {
        use final_flicker::ClassId::*;
        [
            (&["a1", "a2", "a3", "a4"], &["a1"], &[Mimic, Clown, Seer, Judge]),
            (&["b1", "b2", "b3", "b4"], &["b1"], &[Lich, Mimic, Clown, Seer]),
            (&["c1", "c2", "c3", "c4"], &["c1"], &[Judge, Lich, Mimic, Clown]),
        ]
    }

    /// R9.6.2 (R11.44): when a stage's circles leave a single Last Lit in all, that player wins
    /// the gathering at once (walkover): no further stage is drawn. Two Last Lit play on (R9.6.3).
    #[test]
    fn r9_6_2_a_single_last_lit_wins_by_walkover() {
        use final_flicker::ClassId::*;
        let mut rng = rand::rngs::ChaCha8Rng::seed_from_u64(5);
        let settings = GatheringSettings { advance: 1, ..Default::default() };
        let circles: [(&[&str], &[&str], &[final_flicker::ClassId]); 3] = [
            (&["a1", "a2", "a3", "a4"], &[], &[Clown, Seer, Judge, Mimic]),
            (&["b1", "b2", "b3", "b4"], &["b3"], &[Clown, Seer, Judge, Mimic]),
            (&["c1", "c2", "c3", "c4"], &[], &[Clown, Seer, Judge, Mimic]),
        ];
        let mut g = after_stage_one(settings.clone(), &circles);
        let Intent::Record(events) = plan::<FinalFlicker, _>(&g, &HashMap::new(), &HashSet::new(), &mut rng).unwrap()
        else {
            panic!("the stage is over")
        };
        assert!(
            matches!(&events[..], [GatheringEvent::GatheringEnded { winner: Some(w), reason: EndReason::Walkover }] if w == "b3"),
            "{events:?}"
        );
        record(&mut g, &events);
        assert!(g.over());
        assert_eq!((g.winner.as_deref(), g.end_reason, g.stages.len()), (Some("b3"), Some(EndReason::Walkover), 1));
        let st = super::super::standings::standings(&g);
        assert_eq!((st[0].name.as_str(), st[0].rank), ("b3", Some(1)), "R9.9.2: the walkover's winner is first");
        // With two Last Lit, a Final Ritual is drawn instead.
        let mut two = circles;
        two[0].1 = &["a2"];
        let g = after_stage_one(settings, &two);
        let Intent::Record(events) = plan::<FinalFlicker, _>(&g, &HashMap::new(), &HashSet::new(), &mut rng).unwrap()
        else {
            panic!()
        };
        assert!(
            matches!(&events[..], [GatheringEvent::StageDrawn { stage: 2, circles }] if circles[0].players.len() == 2)
        );
    }

    /// R9.1.3 (R11.20): the Final Dark setting, `empty` by default: a later stage's odd table
    /// puts its surplus out of play (R9.8.2), while `as_new_game` forms The Dark from it as at a
    /// new game (R2.4); stage 1 forms The Dark either way.
    #[test]
    fn r9_1_3_final_dark_empty_or_as_new_game() {
        assert_eq!(GatheringSettings::default().final_dark, FinalDark::Empty);
        let s: GatheringSettings = serde_json::from_value(serde_json::json!({"final_dark": "as_new_game"})).unwrap();
        assert_eq!(s.final_dark, FinalDark::AsNewGame);
        let surplus = final_flicker::pool::pool_size(3).surplus;
        assert!(surplus > 0);
        for (final_dark, dark) in [(FinalDark::Empty, 0), (FinalDark::AsNewGame, surplus)] {
            let mut rng = rand::rngs::ChaCha8Rng::seed_from_u64(3);
            let settings = GatheringSettings { advance: 1, classes: false, final_dark, ..Default::default() };
            let mut g = after_stage_one(settings, &three_circles());
            let tables = next_tables(&mut g, &mut rng);
            assert_eq!(tables.len(), 1, "a Final Ritual of 3");
            let (_, _, c) = created(&tables[0]);
            assert_eq!((c.dark.len(), c.set_aside.len()), (dark, surplus - dark), "{final_dark:?}");
            // Stage 1 of a gathering of five: one table, The Dark formed.
            let names: Vec<String> = (1..=5).map(|i| format!("p{i}")).collect();
            let mut g = started(GatheringSettings { final_dark, ..Default::default() }, &names);
            let tables = next_tables(&mut g, &mut rng);
            let (_, _, c) = created(&tables[0]);
            assert_eq!((c.dark.len(), c.set_aside.len()), (final_flicker::pool::pool_size(5).surplus, 0));
        }
    }

    /// R10.6.5, rules decision 76: a circle of persons records whether its minimum window is the
    /// default (the gathering's settings give none), so that the default lapses once only
    /// built-in bots are left in its game; a window given explicitly, 0 included, is kept.
    #[test]
    fn r10_6_5_a_circle_records_whether_its_minimum_window_is_the_default() {
        let names: Vec<String> = (1..=5).map(|i| format!("p{i}")).collect();
        for (given, default, min) in [(None, true, 1500), (Some(700), false, 700), (Some(0), false, 0)] {
            let mut rng = rand::rngs::ChaCha8Rng::seed_from_u64(3);
            let mut g = started(GatheringSettings { reaction_window_min_ms: given, ..Default::default() }, &names);
            let tables = next_tables(&mut g, &mut rng);
            let TableEvent::TableCreated { min_window_at_start, reaction_window_min_ms, settings, .. } =
                &tables[0].created
            else {
                panic!("{:?}", tables[0].created)
            };
            assert_eq!((*min_window_at_start, *reaction_window_min_ms), (default, min), "{given:?}");
            assert_eq!(settings.hold_windows, min > 0, "{given:?}");
        }
    }

    /// R9.1.4, R10.11: classes on or off, the ban list, the clocks and the ruleset are the
    /// gathering's: every circle table of every stage is created with them.
    #[test]
    fn r9_1_4_classes_bans_clocks_and_ruleset_hold_for_every_table() {
        let clocks = crate::clocks::Clocks { decision_secs: 90, reaction_secs: 20 };
        for (classes, ruleset) in
            [(true, final_flicker::RulesetName::Classic), (false, final_flicker::RulesetName::Current)]
        {
            let mut rng = rand::rngs::ChaCha8Rng::seed_from_u64(8);
            let settings = GatheringSettings {
                advance: 1,
                classes,
                class_bans: vec![final_flicker::ClassId::Fatalist],
                clocks,
                ruleset,
                ..Default::default()
            };
            // Stage 1: twelve players in two circles of six.
            let names: Vec<String> = (1..=12).map(|i| format!("p{i}")).collect();
            let mut g = started(settings.clone(), &names);
            let mut all = next_tables(&mut g, &mut rng);
            assert_eq!(all.len(), 2);
            // A later stage.
            let mut g = after_stage_one(settings, &three_circles());
            all.extend(next_tables(&mut g, &mut rng));
            for t in &all {
                let (s, c, game) = created(t);
                assert_eq!((s.classes, s.ruleset, c), (classes, ruleset, clocks), "{}", t.table_id);
                assert_eq!(game.settings.ruleset, ruleset);
                if classes {
                    assert_eq!(s.class_bans, vec![final_flicker::ClassId::Fatalist]);
                } else {
                    assert!(s.class_bans.is_empty() && s.seat_classes.is_none());
                }
            }
        }
    }

    /// R9.8.3: a later stage's turn order is decided again by R2.6 (the server's draw): the
    /// Final Ritual's table draws its first player afresh, whatever stage 1 did.
    #[test]
    fn r9_8_3_a_new_turn_order_each_stage() {
        let mut firsts = std::collections::BTreeSet::new();
        for seed in 0..12 {
            let mut rng = rand::rngs::ChaCha8Rng::seed_from_u64(seed);
            let mut g = after_stage_one(GatheringSettings { advance: 1, ..Default::default() }, &three_circles());
            let tables = next_tables(&mut g, &mut rng);
            let (s, _, c) = created(&tables[0]);
            assert_eq!(s.first_player, final_flicker::FirstPlayer::Random, "R2.6: drawn by the server");
            assert_eq!(s.players, 3);
            firsts.insert(c.first_player.expect("drawn at creation"));
        }
        assert_eq!(firsts.len(), 3, "every seat may go first: {firsts:?}");
    }

    /// R9.8.5 (R11.23): each stage's game is a new game for every once-per-game effect: the
    /// Mimic and the Lich of stage 1 keep their classes (R9.8.4) with their effect unused.
    #[test]
    fn r9_8_5_once_per_game_effects_are_new_each_stage() {
        let mut rng = rand::rngs::ChaCha8Rng::seed_from_u64(4);
        let mut g = after_stage_one(GatheringSettings { advance: 1, ..Default::default() }, &three_circles());
        let tables = next_tables(&mut g, &mut rng);
        let mut state = State::new();
        for e in &tables[0].game {
            final_flicker::apply(&mut state, e);
        }
        let TableEvent::TableCreated { seated, .. } = &tables[0].created else { panic!() };
        // R3.9: classes and once-per-game use are public.
        let view = final_flicker::view(&state, final_flicker::Viewer::Spectator);
        let player = |name: &str| &view.players[seated.iter().position(|h| h.name == name).unwrap()];
        assert_eq!(player("a1").class, Some(final_flicker::ClassId::Mimic));
        assert_eq!(player("b1").class, Some(final_flicker::ClassId::Lich));
        assert!(view.players.iter().all(|p| !p.once_used), "R9.8.5: unused in the new game");
    }

    /// A circle table of any game played to its end by `bot` from each seat's own view (the
    /// platform's close when a point waits for it).
    fn play_out_game<G: CircleGame, B: flicker_game::Bot<G>>(
        t: &CircleTable<G>,
        bot: &mut B,
        rng: &mut rand::rngs::ChaCha8Rng,
    ) -> Arc<Snapshot<G>> {
        let mut events = t.game.clone();
        let mut state = flicker_game::kit::fold::<G>(&events);
        for _ in 0..200_000 {
            if G::is_finished(&state) {
                break;
            }
            let open = G::prompts(&state);
            let cmd = match open.iter().find(|p| G::prompt_info(p).awaits_answer) {
                Some(p) => {
                    let seat = G::prompt_info(p).seat;
                    let view = G::view(&state, flicker_game::Viewer::Seat { seat });
                    G::answer_command(p, bot.answer(p, &view, rng))
                }
                None => G::close_window_command(&state),
            };
            for e in G::decide(&state, &cmd, rng).map_err(Into::into).unwrap() {
                G::apply(&mut state, &e);
                events.push(e);
            }
        }
        assert!(G::is_finished(&state), "a bot game ends");
        let mut new = vec![table_event(&t.created, Metadata::default())];
        new.extend(events.iter().map(|e| engine_event::<G>(e, Metadata::default())));
        Arc::new(Snapshot::fold_new(&t.table_id, &new, at()).unwrap())
    }

    /// Runs a started gathering of *Let's Call the Exorcist* of `n` bots to its end.
    fn run_exorcist(n: usize, advance: u8, seed: u64) -> Gathering {
        use crate::games::Exorcist;
        let mut rng = rand::rngs::ChaCha8Rng::seed_from_u64(seed);
        let names: Vec<String> = (1..=n).map(|i| format!("p{i:02}")).collect();
        let settings = GatheringSettings {
            game: super::super::GameName::LetsCallTheExorcist,
            advance,
            target: Some(3),
            ..Default::default()
        };
        settings.validate().unwrap();
        let mut g = started(settings, &names);
        let mut tables: HashMap<String, Arc<Snapshot<Exorcist>>> = HashMap::new();
        for _ in 0..1_000 {
            if g.over() {
                return g;
            }
            match plan::<Exorcist, _>(&g, &tables, &HashSet::new(), &mut rng).unwrap() {
                Intent::CreateTables(new) => {
                    for t in &new {
                        let TableEvent::TableCreated { game, settings, .. } = &t.created else { panic!() };
                        assert_eq!(*game, crate::names::GameName::LetsCallTheExorcist, "TableCreated.game");
                        assert_eq!(settings.target, 3, "X4.5: the gathering's target");
                        let mut bot = flicker_lab::exorcist::RandomBot;
                        tables.insert(t.table_id.clone(), play_out_game(t, &mut bot, &mut rng));
                    }
                }
                Intent::Record(events) => record(&mut g, &events),
                other => panic!("{other:?}"),
            }
        }
        panic!("the gathering did not end");
    }

    /// X2.1, rules decisions 72-74: 20 players of *Let's Call the Exorcist* sit 7+7+6; with
    /// advance 1, each circle's winner goes on (its best-placed, decision 73) and the best-placed
    /// other across the circles fills the Final table to 4 (decision 74); the Final's winner wins
    /// the gathering. With advance 2, six go on and nobody fills.
    #[test]
    fn an_exorcist_gathering_of_20_runs_to_one_winner() {
        for (advance, final_size) in [(1, 4), (2, 6)] {
            for seed in 0..3 {
                let g = run_exorcist(20, advance, seed);
                assert_eq!((g.status, g.end_reason), (Status::Finished, Some(EndReason::FinalRitual)), "{seed}");
                assert_eq!(g.stages.len(), 2);
                let sizes: Vec<usize> = g.stages[0].circles.iter().map(|(c, _)| c.players.len()).collect();
                assert_eq!(sizes, vec![7, 7, 6], "X2.1, R9.2.2");
                let mut advancers = Vec::new();
                for (draw, r) in &g.stages[0].circles {
                    let r = r.as_ref().unwrap();
                    assert_eq!(r.last_lit.len(), advance as usize);
                    assert_eq!(r.points.len(), draw.players.len());
                    // Decision 73: the circle's winner goes first.
                    assert_eq!(r.winner.as_ref(), r.last_lit.first());
                    let order = super::super::exorcist::advancing_order(&r.placings);
                    let best: Vec<&String> =
                        order.iter().take(advance as usize).map(|&s| &draw.players[s as usize]).collect();
                    assert_eq!(best, r.last_lit.iter().collect::<Vec<_>>());
                    advancers.extend(r.last_lit.clone());
                }
                let final_ = &g.stages[1].circles;
                assert_eq!(final_.len(), 1);
                assert_eq!(final_[0].0.players.len(), final_size);
                for a in &advancers {
                    assert!(final_[0].0.players.contains(a), "{a} advanced");
                }
                assert_eq!(g.winner, final_[0].1.as_ref().unwrap().winner);
                assert!(g.winner.is_some());
                // X7.6, R9.9: each standing carries the points of the circle it names; among the
                // players out at one stage, a better placing, then more points, ranks first
                // (decision 74).
                let rows = crate::gatherings::standings::standings(&g);
                for w in rows.windows(2) {
                    let key = |s: &crate::gatherings::standings::Standing| {
                        (std::cmp::Reverse(s.stage), s.placing, std::cmp::Reverse(s.points))
                    };
                    if w[0].rank.is_some() && w[1].rank.is_some() && w[0].rank != Some(1) {
                        assert!(key(&w[0]) <= key(&w[1]), "{:?} before {:?}", w[0], w[1]);
                        assert_eq!(w[0].rank == w[1].rank, key(&w[0]) == key(&w[1]), "{:?} {:?}", w[0], w[1]);
                    }
                }
                for st in rows {
                    let stage = &g.stages[st.stage as usize - 1];
                    let (draw, r) = stage.circles.iter().find(|(c, _)| Some(c.circle) == st.circle).unwrap();
                    let seat = draw.players.iter().position(|p| *p == st.name).unwrap();
                    assert_eq!(st.points, Some(r.as_ref().unwrap().points[seat]), "{}", st.name);
                }
            }
        }
    }

    /// X2.1: a gathering of *Let's Call the Exorcist* with fewer than 4 players cannot start.
    #[test]
    fn x2_1_an_exorcist_gathering_needs_four_to_start() {
        let settings =
            GatheringSettings { game: super::super::GameName::LetsCallTheExorcist, advance: 1, ..Default::default() };
        let names: Vec<String> = (1..=3).map(|i| format!("p{i}")).collect();
        let mut g = started(settings, &names);
        g.status = Status::Registering;
        assert_eq!(
            super::super::commands::start(&g),
            Err(super::super::GatheringRefusal::TooFew { needed: 4, present: 3 })
        );
        g.players.push(Registrant { name: "p4".into(), bot: None, program: false });
        g.index_players();
        assert!(super::super::commands::start(&g).is_ok());
    }

    /// The draw comes from the injected generator: the same seed draws the same circles.
    #[test]
    fn the_stage_draw_follows_the_injected_generator() {
        let g = run(0, GatheringSettings::default(), 3);
        let players: Vec<String> = (0..16).map(|i| format!("p{i}")).collect();
        let a = draw_stage(&g, 1, &players, &mut rand::rngs::ChaCha8Rng::seed_from_u64(9));
        let b = draw_stage(&g, 1, &players, &mut rand::rngs::ChaCha8Rng::seed_from_u64(9));
        assert_eq!(a, b);
    }
}
