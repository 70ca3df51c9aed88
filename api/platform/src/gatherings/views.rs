//! Public read models of a gathering: the summary, the bracket (stages and circles).

use super::{Gathering, GatheringSettings, Registrant, Status};
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
    /// Registered players, in registration order.
    pub players: Vec<Registrant>,
    /// Winner, once ended with one.
    pub winner: Option<String>,
    /// Why it ended: `final_ritual`, `walkover`, `no_winner`, `no_players`, `cancelled`.
    pub end_reason: Option<String>,
    /// Progress.
    pub progress: Progress,
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
    /// Its circles.
    pub circles: Vec<CircleView>,
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
        players: g.players.clone(),
        winner: g.winner.clone(),
        end_reason: g.end_reason.map(|r| r.as_str().to_string()),
        progress: progress(g),
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
            final_flicker::gathering::stage_plan(g.players.len(), g.settings.max(), a)
                .iter()
                .map(|s| s.len())
                .sum::<usize>()
        }
        Some(s) if s.circles.len() > 1 && !g.over() => {
            let sizes: Vec<usize> = s.circles.iter().map(|(c, _)| c.players.len()).collect();
            let next = final_flicker::gathering::advancing(&sizes, a);
            final_flicker::gathering::stage_plan(next, g.settings.max(), a).iter().map(|s| s.len()).sum()
        }
        _ => 0,
    } as u32;
    Progress { stage: g.stages.last().map_or(0, |s| s.stage), circles_ended: ended, circles_expected: drawn + later }
}

/// Classes chosen so far at the tables of circles still playing, by table id.
pub type LiveClasses = std::collections::HashMap<String, Vec<Option<final_flicker::ClassId>>>;

/// The bracket of `g`; `live` gives the classes at tables still playing.
pub fn bracket(g: &Gathering, live: &LiveClasses) -> Bracket {
    let stages = g
        .stages
        .iter()
        .map(|s| StageView {
            stage: s.stage,
            final_ritual: s.circles.len() == 1,
            sizes: s.circles.iter().map(|(c, _)| c.players.len().to_string()).collect::<Vec<_>>().join("+"),
            circles: s
                .circles
                .iter()
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
                            bot: g.players.iter().find(|p| &p.name == name).and_then(|p| p.bot),
                            class: match r {
                                Some(r) => r.classes.get(seat).copied().flatten(),
                                None => live.get(&c.table_id).and_then(|v| v.get(seat).copied().flatten()),
                            },
                            placing: r
                                .as_ref()
                                .filter(|r| s.circles.len() == 1 || !r.last_lit.contains(name))
                                .and_then(|r| r.placings.get(seat).copied()),
                        })
                        .collect(),
                    winner: r.as_ref().and_then(|r| r.winner.clone()),
                    last_lit: r.as_ref().map(|r| r.last_lit.clone()).unwrap_or_default(),
                    end_reason: r.as_ref().map(|r| r.reason.clone()),
                })
                .collect(),
        })
        .collect();
    Bracket {
        gathering_id: g.id.clone(),
        name: g.name.clone(),
        status: g.status,
        registered: g.players.len(),
        stages,
        winner: g.winner.clone(),
        end_reason: g.end_reason.map(|r| r.as_str().to_string()),
    }
}
