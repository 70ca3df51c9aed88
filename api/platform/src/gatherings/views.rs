//! Public read models of a gathering: the summary, the bracket (stages and circles).

use super::{CircleDraw, Gathering, GatheringSettings, Registrant, Stage, Status};
use crate::bots::BotKind;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Progress figures (for progress bars).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Progress {
    /// The stage being played (0: not started).
    pub stage: u32,
    /// Circles ended, all stages.
    pub circles_ended: u32,
    /// Circles drawn so far plus those the remaining stages are expected to need (R9.6, an
    /// estimate assuming every circle sends on `advance` players).
    pub circles_expected: u32,
}

/// How many names a summary's lists hold at most, so that reading a summary (which clients poll)
/// costs the same at 10,000 players as at 10.
pub const SUMMARY_LIST: usize = 100;

/// A gathering as anyone may read it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct GatheringSummary {
    /// Id.
    pub gathering_id: String,
    /// Name.
    pub name: String,
    /// Organiser's account.
    pub organiser: String,
    /// Status.
    pub status: Status,
    /// Settings.
    pub settings: GatheringSettings,
    /// How many players are registered.
    pub registered: usize,
    /// The first [`SUMMARY_LIST`] registered players, in registration order (all of them in a
    /// gathering of up to that many); `GET /api/v1/gatherings/{id}/registrations` pages
    /// through them all.
    pub players: Vec<Registrant>,
    /// Winner, once ended with one.
    pub winner: Option<String>,
    /// Why it ended: `final_ritual`, `walkover`, `no_winner`, `no_players`, `cancelled`.
    pub end_reason: Option<String>,
    /// How many players checked in (a gathering with `check_in`).
    #[serde(default)]
    pub checked_in_count: usize,
    /// The first [`SUMMARY_LIST`] players who checked in, in name order;
    /// `GET /api/v1/gatherings/{id}/registrations/{name}` tells for any one name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checked_in: Vec<String>,
    /// Players the organiser dropped after the start (R10.10), in name order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dropped: Vec<String>,
    /// Players the organiser replaced by a substitute bot, in name order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replaced: Vec<String>,
    /// Progress.
    pub progress: Progress,
    /// Spectators watching the gathering's live stream now (its page), in the serving process.
    #[serde(default)]
    pub spectators: u32,
    /// Created (RFC 3339).
    pub created_at: DateTime<Utc>,
    /// Started.
    pub started_at: Option<DateTime<Utc>>,
    /// Ended.
    pub ended_at: Option<DateTime<Utc>>,
}

/// A seat of a circle.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct CirclePlayer {
    /// Seat number.
    pub seat: u8,
    /// Player name.
    pub name: String,
    /// Built-in bot policy, if a bot.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bot: Option<BotKind>,
    /// Class played (`null` on a class-free table, or before it is chosen).
    #[schema(value_type = Option<String>)]
    pub class: Option<final_flicker::ClassId>,
    /// Placing in the circle, once it ended (R7.7.3); none for the Last Lit of a qualifying
    /// circle, who are placed by the stage they reach (R9.5.4).
    pub placing: Option<u8>,
    /// *Let's Call the Exorcist*: the points scored, once the circle ended (X7.6).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub points: Option<u32>,
    /// The organiser dropped this player (they concede, R10.10).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dropped: bool,
    /// The organiser replaced this player by a built-in bot of this policy, which plays the seat
    /// but never advances (docs/rules-decisions.md, "Substitutes").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replaced_by: Option<BotKind>,
}

/// Whom a circle's table waits for, as a spectator may know it (R10.6.2, R10.8: at the
/// spectator's horizon).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Waiting {
    /// A reaction window (a Salt or BOO! window, a reaction prompt) is open: R10.6.2 keeps whom
    /// it waits for hidden, so `seats` is empty.
    pub window: bool,
    /// The seats whose prompts wait for an answer, outside reaction windows.
    pub seats: Vec<u8>,
    /// Their holders, in the same order.
    pub names: Vec<String>,
    /// When the decision point opened (server clock), outside reaction windows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<DateTime<Utc>>,
}

/// R10.6.2: whom `state` waits for; `names` gives each seat's holder and `since` when the
/// decision point opened (kept only outside reaction windows).
pub fn waiting<G: flicker_game::Game>(
    state: &G::State,
    names: &[Option<String>],
    since: Option<DateTime<Utc>>,
) -> Option<Waiting> {
    if G::is_finished(state) {
        return None;
    }
    if crate::clocks::is_reaction::<G>(state) {
        return Some(Waiting { window: true, seats: Vec::new(), names: Vec::new(), since: None });
    }
    let seats: Vec<u8> =
        G::prompts(state).iter().map(G::prompt_info).filter(|p| p.awaits_answer).map(|p| p.seat).collect();
    let names = seats.iter().map(|&s| names.get(s as usize).cloned().flatten().unwrap_or_default()).collect();
    Some(Waiting { window: false, seats, names, since })
}

/// A circle in the bracket.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct CircleView {
    /// Circle number, from 1.
    pub circle: u32,
    /// Its table (`GET /api/v1/tables/{id}`).
    pub table_id: String,
    /// `starting` (its table is being created), `playing` or `finished`.
    pub status: String,
    /// Seats.
    pub players: Vec<CirclePlayer>,
    /// Its winner, if it played to one.
    pub winner: Option<String>,
    /// R9.5: its Last Lit (those who advance).
    pub last_lit: Vec<String>,
    /// The engine's end reason.
    pub end_reason: Option<String>,
    /// Whom its table waits for now, while it plays (as a spectator sees it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waiting: Option<Waiting>,
}

/// A stage in the bracket.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct StageView {
    /// Stage number, from 1.
    pub stage: u32,
    /// R9.4: a single circle: the Final Ritual.
    pub final_ritual: bool,
    /// Circle sizes, e.g. `7+7+6`.
    pub sizes: String,
    /// How many circles the stage has.
    #[serde(default)]
    pub circle_count: usize,
    /// Its circles in the window asked for ([`CircleWindow`]; all of them in a stage of up
    /// to [`CircleWindow::DEFAULT_LIMIT`] circles).
    pub circles: Vec<CircleView>,
}

/// Which circles a bracket shows, so that reading a bracket costs the same at 10,000
/// players as at 20: a window of each stage's circles in circle order, or the circles of one
/// player.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CircleWindow {
    /// Only this stage (others are listed with no circles).
    pub stage: Option<u32>,
    /// Circles skipped in each stage.
    pub offset: usize,
    /// At most this many circles a stage.
    pub limit: usize,
    /// Only the circles that seat this player (the window then applies to those).
    pub player: Option<String>,
}

impl CircleWindow {
    /// The circles a stage shows by default.
    pub const DEFAULT_LIMIT: usize = 64;
    /// The most circles a stage shows.
    pub const MAX_LIMIT: usize = 1_250;

    /// Every circle of every stage (the results export).
    pub fn all() -> Self {
        CircleWindow { stage: None, offset: 0, limit: usize::MAX, player: None }
    }

    /// The circles of `stage` it shows, with their index in the stage.
    pub fn select<'a>(&'a self, stage: &'a Stage) -> impl Iterator<Item = (usize, &'a CircleDraw)> + 'a {
        let wanted = self.stage.is_none_or(|n| n == stage.stage);
        stage
            .circles
            .iter()
            .map(|(c, _)| c)
            .enumerate()
            .filter(move |(_, c)| wanted && self.player.as_ref().is_none_or(|p| c.players.contains(p)))
            .skip(self.offset)
            .take(self.limit)
    }
}

impl Default for CircleWindow {
    fn default() -> Self {
        CircleWindow { stage: None, offset: 0, limit: Self::DEFAULT_LIMIT, player: None }
    }
}

/// The bracket: from registration to each stage's circles and the winner.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Bracket {
    /// Id.
    pub gathering_id: String,
    /// Name.
    pub name: String,
    /// Status.
    pub status: Status,
    /// Registered players.
    pub registered: usize,
    /// The game its tables play (absent: `the-final-flicker`).
    #[serde(default, skip_serializing_if = "super::GameName::is_default")]
    pub game: super::GameName,
    /// Stages so far.
    pub stages: Vec<StageView>,
    /// Winner, once ended with one.
    pub winner: Option<String>,
    /// Why it ended.
    pub end_reason: Option<String>,
}

/// The summary of `g`.
pub fn summary(g: &Gathering) -> GatheringSummary {
    GatheringSummary {
        gathering_id: g.id.clone(),
        name: g.name.clone(),
        organiser: g.organiser.clone(),
        status: g.status,
        settings: g.settings.clone(),
        registered: g.players.len(),
        players: g.players.iter().take(SUMMARY_LIST).cloned().collect(),
        winner: g.winner.clone(),
        end_reason: g.end_reason.map(|r| r.as_str().to_string()),
        checked_in_count: g.checked_in.len(),
        checked_in: g.checked_in.iter().take(SUMMARY_LIST).cloned().collect(),
        dropped: g.dropped.iter().cloned().collect(),
        replaced: g.replaced.keys().cloned().collect(),
        progress: progress(g),
        spectators: 0,
        created_at: g.created_at,
        started_at: g.started_at,
        ended_at: g.ended_at,
    }
}

fn progress(g: &Gathering) -> Progress {
    let a = g.settings.advance as usize;
    let ended = g.stages.iter().flat_map(|s| &s.circles).filter(|(_, r)| r.is_some()).count() as u32;
    let drawn = g.stages.iter().map(|s| s.circles.len()).sum::<usize>() as u32;
    let later = match g.stages.last() {
        None if g.status == Status::Registering => {
            g.settings.stage_plan(g.players.len()).iter().map(|s| s.len()).sum::<usize>()
        }
        Some(s) if s.circles.len() > 1 && !g.over() => {
            let sizes: Vec<usize> = s.circles.iter().map(|(c, _)| c.players.len()).collect();
            // Rules decision 74: a Final of the Exorcist is filled to 4.
            let next = final_flicker::gathering::advancing(&sizes, a).max(g.settings.min_players());
            g.settings.stage_plan(next).iter().map(|s| s.len()).sum()
        }
        _ => 0,
    } as u32;
    Progress { stage: g.stages.last().map_or(0, |s| s.stage), circles_ended: ended, circles_expected: drawn + later }
}

/// What the bracket shows of a circle's table still playing, as a spectator sees it.
#[derive(Debug, Clone, Default)]
pub struct LiveCircle {
    /// Classes chosen so far, by seat.
    pub classes: Vec<Option<final_flicker::ClassId>>,
    /// Whom it waits for.
    pub waiting: Option<Waiting>,
}

/// The tables of circles still playing, by table id.
pub type LiveClasses = std::collections::HashMap<String, LiveCircle>;

/// The bracket of `g`, each stage's circles in `window`; `live` gives the classes at tables
/// still playing and whom they wait for.
pub fn bracket(g: &Gathering, live: &LiveClasses, window: &CircleWindow) -> Bracket {
    let stages = g
        .stages
        .iter()
        .map(|s| StageView {
            stage: s.stage,
            final_ritual: s.circles.len() == 1,
            sizes: s.circles.iter().map(|(c, _)| c.players.len().to_string()).collect::<Vec<_>>().join("+"),
            circle_count: s.circles.len(),
            circles: window
                .select(s)
                .map(|(i, _)| &s.circles[i])
                .map(|(c, r)| CircleView {
                    circle: c.circle,
                    table_id: c.table_id.clone(),
                    status: match (r, s.opened) {
                        (Some(_), _) => "finished".into(),
                        (None, true) => "playing".into(),
                        (None, false) => "starting".into(),
                    },
                    players: c
                        .players
                        .iter()
                        .enumerate()
                        .map(|(seat, name)| CirclePlayer {
                            seat: seat as u8,
                            name: name.clone(),
                            bot: g.registrant(name).and_then(|p| p.bot),
                            class: match r {
                                Some(r) => r.classes.get(seat).copied().flatten(),
                                None => live.get(&c.table_id).and_then(|v| v.classes.get(seat).copied().flatten()),
                            },
                            points: r.as_ref().and_then(|r| r.points.get(seat).copied()),
                            dropped: g.dropped.contains(name),
                            replaced_by: g.replaced.get(name).copied(),
                            placing: r
                                .as_ref()
                                .filter(|r| s.circles.len() == 1 || !r.last_lit.contains(name))
                                .and_then(|r| r.placings.get(seat).copied()),
                        })
                        .collect(),
                    winner: r.as_ref().and_then(|r| r.winner.clone()),
                    last_lit: r.as_ref().map(|r| r.last_lit.clone()).unwrap_or_default(),
                    end_reason: r.as_ref().map(|r| r.reason.clone()),
                    waiting: if r.is_none() { live.get(&c.table_id).and_then(|l| l.waiting.clone()) } else { None },
                })
                .collect(),
        })
        .collect();
    Bracket {
        gathering_id: g.id.clone(),
        name: g.name.clone(),
        status: g.status,
        registered: g.players.len(),
        game: g.settings.game,
        stages,
        winner: g.winner.clone(),
        end_reason: g.end_reason.map(|r| r.as_str().to_string()),
    }
}
