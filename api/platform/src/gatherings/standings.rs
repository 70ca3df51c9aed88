//! R9.9: standings across stages, readable at any time.

use super::Gathering;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Where a player stands now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum StandingStatus {
    /// Registered; the gathering has not started.
    Registered,
    /// Playing in a circle that has not ended.
    Playing,
    /// A Last Lit waiting for the next stage.
    Advanced,
    /// Out, with a final placing.
    Out,
    /// The gathering's winner (R9.9.2).
    Winner,
    /// Dropped by the organiser while not placed (a Last Lit dropped before the next stage), or
    /// replaced by a substitute (whose place goes to nobody): out, unranked.
    Dropped,
}

/// One player's standing (R9.9.1).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Standing {
    /// Overall rank (shared on ties, the next skips); `null` while not yet final.
    pub rank: Option<u32>,
    /// Player name.
    pub name: String,
    /// Last stage taken part in (0: none yet).
    pub stage: u32,
    /// Circle in that stage.
    pub circle: Option<u32>,
    /// Placing in that circle (R7.7.3), once final.
    pub placing: Option<u8>,
    /// Status.
    pub status: StandingStatus,
    /// *Let's Call the Exorcist*: the points scored in that circle, once it ended (X7.6; the
    /// tie-break across circles of rules decision 74). Absent for The Final Flicker and while
    /// the circle plays.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub points: Option<u32>,
}

/// R9.9: every registered player's standing, best first: by last stage reached (later is
/// better), then by placing in that stage's circle, then (*Let's Call the Exorcist*, rules
/// decision 74) by points scored there; the winner first (R9.9.2). Players whose
/// placing is not final yet come before the placed players of their stage, unranked.
pub fn standings(g: &Gathering) -> Vec<Standing> {
    let mut out: Vec<Standing> = g
        .players
        .iter()
        .map(|p| {
            let mut st = Standing {
                rank: None,
                name: p.name.clone(),
                stage: 0,
                circle: None,
                placing: None,
                status: StandingStatus::Registered,
                points: None,
            };
            for stage in &g.stages {
                for (draw, result) in &stage.circles {
                    let Some(seat) = draw.players.iter().position(|n| n == &p.name) else { continue };
                    st.stage = stage.stage;
                    st.circle = Some(draw.circle);
                    st.placing = None;
                    st.points = result.as_ref().and_then(|r| r.points.get(seat).copied());
                    st.status = match result {
                        None => StandingStatus::Playing,
                        Some(r) if stage.circles.len() > 1 && r.last_lit.contains(&p.name) => StandingStatus::Advanced,
                        Some(r) => {
                            st.placing = r.placings.get(seat).copied();
                            StandingStatus::Out
                        }
                    };
                }
            }
            let replaced = g.replaced.contains_key(&p.name);
            if replaced || g.dropped.contains(&p.name) && st.status != StandingStatus::Out {
                st.status = StandingStatus::Dropped;
                st.placing = None;
            }
            if g.winner.as_deref() == Some(&p.name) {
                st.status = StandingStatus::Winner;
                st.placing = st.placing.or(Some(1));
            }
            st
        })
        .collect();
    let final_ = |s: &Standing| matches!(s.status, StandingStatus::Out | StandingStatus::Winner);
    let dropped = |s: &Standing| s.status == StandingStatus::Dropped;
    // Sort key: winner first, the dropped last, then later stage, then unplaced before placed,
    // then placing, then (Let's Call the Exorcist, rules decision 74) more points.
    let key = |s: &Standing| {
        (
            s.status != StandingStatus::Winner,
            dropped(s),
            std::cmp::Reverse(s.stage),
            final_(s),
            s.placing.unwrap_or(u8::MAX),
            std::cmp::Reverse(s.points.unwrap_or(0)),
        )
    };
    out.sort_by(|a, b| key(a).cmp(&key(b)).then_with(|| a.name.cmp(&b.name)));
    let keys: Vec<_> = out.iter().map(key).collect();
    for i in 0..out.len() {
        if final_(&out[i]) {
            let better = keys.iter().filter(|k| **k < keys[i]).count();
            out[i].rank = Some(better as u32 + 1);
        }
    }
    out
}
