//! The gathering process manager (R9.2-R9.10): reacts to a gathering's events and to its
//! circles' endings. [`reconcile`] is idempotent and safe to run from several API processes at
//! once: every step is an append at an expected version, table ids are derived from the
//! gathering, stage and circle, so a step done twice is refused by the store and skipped.

use super::{CircleDraw, CircleResult, FinalDark, Gathering, GatheringEvent, Status, append, load};
use crate::store::{EventStore, StoreError};
use crate::tables::{self, SeatHolder, TableEvent, TableGathering, Tables};
use final_flicker::{Settings, Surplus};
use rand::seq::SliceRandom;

/// The actor recorded on the manager's events.
pub const ACTOR: &str = "system:gatherings";

/// R9.3: the id of the table that plays `circle` of `stage` (a name-based UUID, so every
/// process derives the same one).
pub fn table_id(gathering: &str, stage: u32, circle: u32) -> String {
    let ns = uuid::Uuid::parse_str(gathering).unwrap_or(uuid::Uuid::NAMESPACE_OID);
    uuid::Uuid::new_v5(&ns, format!("stage-{stage}-circle-{circle}").as_bytes()).to_string()
}

/// R9.2: draws a stage of `players` (in any order): shuffles them (the draw is recorded in the
/// event) and splits them into circles of the R9.2.2 sizes.
pub fn draw_stage(g: &Gathering, stage: u32, players: &[String]) -> GatheringEvent {
    let mut order = players.to_vec();
    order.shuffle(&mut rand::rng());
    let sizes = final_flicker::gathering::circle_sizes(order.len(), g.settings.max());
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

/// The engine settings of a circle's table (R9.5, R9.8, R10.11). With classes on, stage 1
/// chooses classes (R2.7, with the ban list); later stages keep each player's class (R9.8.4).
pub fn circle_settings(g: &Gathering, stage: u32, players: &[String], qualifying: bool, any_person: bool) -> Settings {
    let s = &g.settings;
    let size = players.len();
    let mut e = Settings::new(size as u8);
    if s.classes {
        e.classes = true;
        e.class_bans = s.class_bans.clone();
        if stage > 1 {
            // A player without a recorded class (a circle that ended before choosing) makes the
            // circle choose again (docs/rules-decisions.md).
            e.seat_classes = kept_classes(g, players);
        }
    }
    e.last_lit = if qualifying { s.advance } else { 1 };
    e.round_limit = s.round_limit;
    e.salt_window = s.salt_window;
    e.salt_targeted_only = s.salt_targeted_only;
    e.surplus = if stage > 1 && s.final_dark == FinalDark::Empty { Surplus::OutOfPlay } else { Surplus::TheDark };
    e.hold_windows = min_window_ms(g, any_person) > 0;
    e
}

/// R10.6.5: the minimum window of a table (the setting, or 1,500 ms with any person seated).
pub fn min_window_ms(g: &Gathering, any_person: bool) -> u32 {
    g.settings.reaction_window_min_ms.unwrap_or(if any_person { 1500 } else { 0 })
}

/// Creates (and deals) the table of one circle, unless it exists. Returns whether it created it.
async fn create_circle_table(
    store: &dyn EventStore,
    tables_cache: &Tables,
    g: &Gathering,
    stage: u32,
    qualifying: bool,
    draw: &CircleDraw,
) -> Result<bool, StoreError> {
    let holders: Vec<SeatHolder> = draw
        .players
        .iter()
        .map(|name| {
            let r = g.players.iter().find(|p| &p.name == name);
            SeatHolder { name: name.clone(), bot: r.and_then(|r| r.bot) }
        })
        .collect();
    let any_person =
        draw.players.iter().any(|n| g.players.iter().any(|p| &p.name == n && p.bot.is_none() && !p.program));
    let settings = circle_settings(g, stage, &draw.players, qualifying, any_person);
    let created = TableEvent::TableCreated {
        table_id: draw.table_id.clone(),
        creator: g.organiser.clone(),
        settings: settings.clone(),
        practice: false,
        position: None,
        gathering: Some(TableGathering { gathering_id: g.id.clone(), stage, circle: draw.circle }),
        seated: holders,
        clocks: g.settings.clocks,
        reaction_window_min_ms: min_window_ms(g, any_person),
        min_window_at_start: false,
        bot_delay_ms: g.settings.bot_delay_ms,
        abandonment: g.settings.abandonment,
    };
    let game = final_flicker::create(&settings, &mut rand::rng()).map_err(|e| StoreError::Other(e.to_string()))?;
    match tables::create_with_game(store, &draw.table_id, &created, &game, ACTOR, tables_cache.clock.now()).await {
        Ok(()) => {
            // Warm the cache for the driver.
            let _ = tables_cache.load(store, &draw.table_id).await;
            Ok(true)
        }
        Err(StoreError::Conflict { .. }) => Ok(false),
        Err(e) => Err(e),
    }
}

/// R9.5.4: a circle's result from its finished table.
fn circle_result(snap: &tables::Snapshot) -> Option<CircleResult> {
    let r = snap.state.result()?;
    let name = |s: u8| snap.info.seats.get(s as usize).cloned().flatten().unwrap_or_default();
    Some(CircleResult {
        winner: r.winner.map(name),
        last_lit: r.last_lit.iter().map(|&s| name(s)).collect(),
        placings: r.placings.clone(),
        reason: serde_json::to_value(r.reason).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default(),
        classes: final_flicker::seat_classes(&snap.state),
    })
}

/// Brings a gathering up to date: draws the first stage once started, creates missing circle
/// tables, records ended circles, draws the next stage or ends the gathering (R9.6, R9.10).
/// Idempotent; returns once nothing more can be done now.
pub async fn reconcile(store: &dyn EventStore, tables_cache: &Tables, id: &str) -> Result<(), StoreError> {
    for _ in 0..64 {
        let Some(g) = load(store, id).await? else { return Ok(()) };
        if g.over() || g.status == Status::Registering {
            return Ok(());
        }
        match step(store, tables_cache, &g).await {
            Ok(true) => continue,
            Ok(false) => return Ok(()),
            Err(StoreError::Conflict { .. }) => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// One step; `Ok(true)` when it changed something (so another step may follow).
async fn step(store: &dyn EventStore, tables_cache: &Tables, g: &Gathering) -> Result<bool, StoreError> {
    let Some(stage) = g.current_stage() else {
        // R9.10.1: nobody, or a lone registrant.
        let names: Vec<String> = g.players.iter().map(|p| p.name.clone()).collect();
        let ev = match names.len() {
            0 => GatheringEvent::GatheringEnded { winner: None, reason: "no_players".into() },
            1 => GatheringEvent::GatheringEnded { winner: Some(names[0].clone()), reason: "walkover".into() },
            _ => draw_stage(g, 1, &names),
        };
        append(store, g, &[ev], ACTOR).await?;
        return Ok(true);
    };
    let qualifying = stage.circles.len() > 1;
    let mut ended = Vec::new();
    let mut created = false;
    for (draw, result) in &stage.circles {
        if result.is_some() {
            continue;
        }
        let snap = match tables_cache.load(store, &draw.table_id).await {
            Ok(s) => s,
            Err(_) => {
                created |= create_circle_table(store, tables_cache, g, stage.stage, qualifying, draw).await?;
                continue;
            }
        };
        if let Some(r) = circle_result(&snap) {
            ended.push(GatheringEvent::CircleEnded { stage: stage.stage, circle: draw.circle, result: r });
        }
    }
    if !ended.is_empty() {
        append(store, g, &ended, ACTOR).await?;
        return Ok(true);
    }
    if created {
        return Ok(true);
    }
    if !stage.opened {
        append(store, g, &[GatheringEvent::StageOpened { stage: stage.stage }], ACTOR).await?;
        return Ok(true);
    }
    if !stage.complete() {
        return Ok(false);
    }
    // R9.6: every circle of the stage has ended.
    let advancing: Vec<String> =
        stage.circles.iter().flat_map(|(_, r)| r.as_ref().map(|r| r.last_lit.clone()).unwrap_or_default()).collect();
    let ev = if !qualifying {
        let winner = stage.circles[0].1.as_ref().and_then(|r| r.winner.clone());
        let reason = if winner.is_some() { "final_ritual" } else { "no_winner" };
        GatheringEvent::GatheringEnded { winner, reason: reason.into() }
    } else {
        match advancing.len() {
            0 => GatheringEvent::GatheringEnded { winner: None, reason: "no_winner".into() },
            1 => GatheringEvent::GatheringEnded { winner: Some(advancing[0].clone()), reason: "walkover".into() },
            _ => draw_stage(g, stage.stage + 1, &advancing),
        }
    };
    append(store, g, &[ev], ACTOR).await?;
    Ok(true)
}
