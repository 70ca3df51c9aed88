//! The organiser's and players' commands on a gathering around its stages, as pure functions of
//! the folded gathering: check-in and the start that removes no-shows, dropping a player after
//! the start (R9.10.2, R10.10), replacing one by a substitute bot, and the preview of the
//! circles a start would draw (R9.2). Each returns the events to append or a
//! [`GatheringRefusal`], which the server maps to its problem document.

use super::{Gathering, GatheringEvent, Status};
use crate::bots::BotKind;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Why a gathering command is refused (nothing is appended).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GatheringRefusal {
    /// The gathering has started (registration and check-in are closed).
    #[error("the gathering has already started")]
    Started,
    /// The gathering has not started (a player can be dropped or replaced only during play).
    #[error("the gathering has not started: withdraw the registration instead (R9.10.2)")]
    NotStarted,
    /// The gathering is over.
    #[error("the gathering is over")]
    Over,
    /// Check-in is off for this gathering.
    #[error("this gathering takes no check-in (its settings have check_in off)")]
    CheckInOff,
    /// The name is not registered.
    #[error("{0} is not registered")]
    NotRegistered(String),
    /// The player is out of the gathering already (eliminated, dropped or replaced).
    #[error("{0} is out of the gathering already")]
    NotInPlay(String),
    /// A built-in bot needs no substitute.
    #[error("{0} is a built-in bot already; drop it instead")]
    AlreadyBot(String),
    /// X2.1: too few players for the game's smallest table (*Let's Call the Exorcist* seats 4
    /// to 8): the gathering cannot start.
    #[error(
        "X2.1: lets-call-the-exorcist seats 4 to 8 players, so its gathering needs at least {needed} present to start; {present} are"
    )]
    TooFew {
        /// The fewest the game takes.
        needed: usize,
        /// Players present (registered, checked in where check-in is on).
        present: usize,
    },
    /// The gathering is full (its registration cap, or [`super::MAX_PLAYERS`]).
    #[error("the gathering takes at most {0} players")]
    Full(usize),
}

/// Checks `name` in before the start (a gathering with `check_in`); checking in twice changes
/// nothing (no events).
pub fn check_in(g: &Gathering, name: &str) -> Result<Vec<GatheringEvent>, GatheringRefusal> {
    if g.status != Status::Registering {
        return Err(GatheringRefusal::Started);
    }
    if !g.settings.check_in {
        return Err(GatheringRefusal::CheckInOff);
    }
    if g.registrant(name).is_none() {
        return Err(GatheringRefusal::NotRegistered(name.to_string()));
    }
    if g.checked_in.contains(name) {
        return Ok(Vec::new());
    }
    Ok(vec![GatheringEvent::PlayerCheckedIn { name: name.to_string() }])
}

/// Whether `name` counts as present at the start: checked in, a built-in bot, or in a
/// gathering without check-in.
fn present(g: &Gathering, name: &str) -> bool {
    !g.settings.check_in || g.checked_in.contains(name) || g.registrant(name).is_some_and(|p| p.bot.is_some())
}

/// The start: with `check_in`, the registered players who did not check in are removed first
/// (`NoShowsRemoved`), then `GatheringStarted`.
pub fn start(g: &Gathering) -> Result<Vec<GatheringEvent>, GatheringRefusal> {
    if g.status != Status::Registering {
        return Err(GatheringRefusal::Started);
    }
    let absent: Vec<String> = g.players.iter().filter(|p| !present(g, &p.name)).map(|p| p.name.clone()).collect();
    let here = g.players.len() - absent.len();
    if here < g.settings.min_players() {
        return Err(GatheringRefusal::TooFew { needed: g.settings.min_players(), present: here });
    }
    let mut events = Vec::new();
    if !absent.is_empty() {
        events.push(GatheringEvent::NoShowsRemoved { names: absent });
    }
    events.push(GatheringEvent::GatheringStarted);
    Ok(events)
}

/// Whether `name` is still playing for the gathering: seated at a circle of the current stage
/// that has not ended, or one of its Last Lit waiting for the next stage; not dropped or
/// replaced.
pub fn still_playing(g: &Gathering, name: &str) -> bool {
    if !g.in_play(name) {
        return false;
    }
    let Some(stage) = g.current_stage() else { return g.status != Status::Registering && !g.over() };
    let qualifying = stage.circles.len() > 1;
    stage.circles.iter().any(|(draw, result)| {
        draw.players.iter().any(|p| p == name)
            && match result {
                None => true,
                Some(r) => qualifying && r.last_lit.iter().any(|p| p == name) && !g.over(),
            }
    })
}

fn during_play(g: &Gathering, name: &str) -> Result<(), GatheringRefusal> {
    match g.status {
        Status::Registering => return Err(GatheringRefusal::NotStarted),
        Status::Finished | Status::Cancelled => return Err(GatheringRefusal::Over),
        Status::Running | Status::Paused => {}
    }
    if g.registrant(name).is_none() {
        return Err(GatheringRefusal::NotRegistered(name.to_string()));
    }
    if !still_playing(g, name) {
        return Err(GatheringRefusal::NotInPlay(name.to_string()));
    }
    Ok(())
}

/// R9.10.2, R10.10: the organiser `by` drops `name` after the start: the player concedes at
/// their table (the manager sends the concession) and is drawn into no later stage.
pub fn drop_player(g: &Gathering, name: &str, by: &str) -> Result<Vec<GatheringEvent>, GatheringRefusal> {
    during_play(g, name)?;
    Ok(vec![GatheringEvent::PlayerDropped { name: name.to_string(), by: by.to_string() }])
}

/// The organiser `by` replaces `name` by a built-in bot of policy `bot` after the start
/// (docs/rules-decisions.md, "Substitutes"): the bot takes the seat at once and plays it to the
/// end of the circle, but never advances and never wins.
pub fn replace_player(
    g: &Gathering,
    name: &str,
    bot: BotKind,
    by: &str,
) -> Result<Vec<GatheringEvent>, GatheringRefusal> {
    if g.status != Status::Registering && g.registrant(name).is_some_and(|p| p.bot.is_some()) {
        return Err(GatheringRefusal::AlreadyBot(name.to_string()));
    }
    during_play(g, name)?;
    Ok(vec![GatheringEvent::PlayerReplaced { name: name.to_string(), bot, by: by.to_string() }])
}

/// R9.2: the circles a start would draw now, stage by stage (an estimate past stage 1: every
/// circle is assumed to send on `advance` players).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct CirclePreview {
    /// Players registered.
    pub registered: usize,
    /// Players the first stage would hold now: with check-in, those checked in and the
    /// built-in bots; otherwise everybody registered.
    pub players: usize,
    /// The most players the gathering takes (its registration cap, or 10,000).
    pub capacity: usize,
    /// Each stage's circle sizes, first stage first (e.g. `[[7, 7, 6], [6], ...]`); empty with
    /// fewer than 2 players (R9.10.1).
    pub stages: Vec<Vec<usize>>,
    /// Each stage's sizes as text (`7+7+6`).
    pub sizes: Vec<String>,
}

/// R9.2, R9.6: the preview of `g`'s stages from the players present now.
pub fn preview(g: &Gathering) -> CirclePreview {
    let players = g.players.iter().filter(|p| present(g, &p.name)).count();
    let stages = if players < 2 { Vec::new() } else { g.settings.stage_plan(players) };
    let sizes = stages.iter().map(|s| s.iter().map(usize::to_string).collect::<Vec<_>>().join("+")).collect();
    CirclePreview { registered: g.players.len(), players, capacity: g.settings.capacity(), stages, sizes }
}

#[cfg(test)]
mod tests {
    use super::super::{CircleDraw, CircleResult, GatheringSettings, Registrant, Stage};
    use super::*;

    fn gathering(settings: GatheringSettings, names: &[&str]) -> Gathering {
        let mut g = Gathering::empty("g");
        g.settings = settings;
        g.players = names.iter().map(|n| Registrant { name: n.to_string(), bot: None, program: false }).collect();
        g.index_players();
        g
    }

    /// Check-in: only with `check_in` on, only the registered, before the start; the start
    /// removes who did not check in (built-in bots need none).
    #[test]
    fn check_in_and_the_start_remove_no_shows() {
        let mut g = gathering(GatheringSettings::default(), &["ann", "bob"]);
        assert_eq!(check_in(&g, "ann"), Err(GatheringRefusal::CheckInOff));
        assert_eq!(start(&g).unwrap(), vec![GatheringEvent::GatheringStarted], "no check-in: nobody removed");
        g.settings.check_in = true;
        g.players.push(Registrant { name: "random-bot#01".into(), bot: Some(BotKind::Random), program: false });
        g.index_players();
        assert_eq!(check_in(&g, "cat"), Err(GatheringRefusal::NotRegistered("cat".into())));
        assert_eq!(check_in(&g, "ann").unwrap(), vec![GatheringEvent::PlayerCheckedIn { name: "ann".into() }]);
        g.checked_in.insert("ann".into());
        assert_eq!(check_in(&g, "ann").unwrap(), vec![], "twice changes nothing");
        assert_eq!(preview(&g).players, 2, "ann and the bot are present");
        assert_eq!(
            start(&g).unwrap(),
            vec![GatheringEvent::NoShowsRemoved { names: vec!["bob".into()] }, GatheringEvent::GatheringStarted]
        );
        g.status = Status::Running;
        assert_eq!(check_in(&g, "ann"), Err(GatheringRefusal::Started));
    }

    /// R9.2.2: the preview's first stage splits 20 players 7+7+6 and ends in one Final Ritual.
    #[test]
    fn r9_2_the_preview_gives_the_circle_sizes() {
        let names: Vec<String> = (0..20).map(|i| format!("p{i}")).collect();
        let g = gathering(GatheringSettings::default(), &names.iter().map(String::as_str).collect::<Vec<_>>());
        let p = preview(&g);
        assert_eq!(p.stages[0], vec![7, 7, 6]);
        assert_eq!(p.sizes[0], "7+7+6");
        assert_eq!(p.stages.last().unwrap().len(), 1, "R9.4: a Final Ritual last");
        assert!(preview(&gathering(GatheringSettings::default(), &["solo"])).stages.is_empty(), "R9.10.1");
    }

    /// R9.10.2: a player can be dropped or replaced only during play, while still in it, and a
    /// built-in bot is never replaced.
    #[test]
    fn r9_10_2_drop_and_replace_only_during_play() {
        let mut g = gathering(GatheringSettings::default(), &["ann", "bob", "cat", "dan"]);
        assert_eq!(drop_player(&g, "ann", "org"), Err(GatheringRefusal::NotStarted));
        g.status = Status::Running;
        g.players.push(Registrant { name: "random-bot#01".into(), bot: Some(BotKind::Random), program: false });
        g.index_players();
        let draw = |c: u32, p: &[&str]| CircleDraw {
            circle: c,
            table_id: format!("t{c}"),
            players: p.iter().map(|s| s.to_string()).collect(),
        };
        let ended = CircleResult {
            winner: None,
            last_lit: vec!["cat".into()],
            placings: vec![1, 3],
            reason: "last_lit".into(),
            classes: vec![],
            points: vec![],
        };
        g.stages.push(Stage {
            stage: 1,
            circles: vec![(draw(1, &["ann", "bob", "random-bot#01"]), None), (draw(2, &["cat", "dan"]), Some(ended))],
            opened: true,
        });
        assert!(drop_player(&g, "ann", "org").is_ok(), "playing");
        assert!(drop_player(&g, "cat", "org").is_ok(), "a Last Lit waiting for the next stage");
        assert_eq!(drop_player(&g, "dan", "org"), Err(GatheringRefusal::NotInPlay("dan".into())), "eliminated");
        assert_eq!(drop_player(&g, "eve", "org"), Err(GatheringRefusal::NotRegistered("eve".into())));
        assert_eq!(
            replace_player(&g, "random-bot#01", BotKind::Heuristic, "org"),
            Err(GatheringRefusal::AlreadyBot("random-bot#01".into()))
        );
        g.replaced.insert("bob".into(), BotKind::Heuristic);
        assert_eq!(drop_player(&g, "bob", "org"), Err(GatheringRefusal::NotInPlay("bob".into())), "replaced");
        g.status = Status::Finished;
        assert_eq!(drop_player(&g, "ann", "org"), Err(GatheringRefusal::Over));
    }
}
