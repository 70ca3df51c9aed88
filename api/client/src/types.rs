//! Request bodies and answers of the routes in [`crate::routes`], as the committed
//! `openapi/openapi.json` describes them. Bodies leave absent optional fields out (the server's
//! defaults apply); answers keep the fields clients use and ignore the others.

use final_flicker::{Answer, Prompt, PromptId};
use serde::{Deserialize, Serialize};

/// A problem document (RFC 9457) of a refusal; fields absent from the body are `None`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Problem {
    /// The stable problem type (`rate-limited`, `stale-prompt`, ...).
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
    /// A short, human-readable summary of the type.
    #[serde(default)]
    pub title: Option<String>,
    /// The HTTP status.
    #[serde(default)]
    pub status: Option<u16>,
    /// What went wrong this time.
    #[serde(default)]
    pub detail: Option<String>,
}

/// An account's role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Plays at tables (the default).
    Player,
    /// A program playing at tables.
    Bot,
    /// Watches tables.
    Spectator,
    /// Runs gatherings (registering one needs the server's organiser key).
    Organiser,
}

/// Body of `POST /api/v1/accounts`.
#[derive(Debug, Clone, Serialize)]
pub struct Register {
    /// 3-32 characters: letters, digits, `_`, `-`.
    pub name: String,
    /// At least 8 characters.
    pub password: String,
    /// The account's role.
    pub role: Role,
}

/// Body of `POST /api/v1/auth/token`.
#[derive(Debug, Clone, Serialize)]
pub struct Login {
    /// Account name.
    pub name: String,
    /// Password.
    pub password: String,
}

/// A token pair (`POST /api/v1/auth/token`).
#[derive(Debug, Clone, Deserialize)]
pub struct TokenPair {
    /// Bearer token, valid `expires_in` seconds.
    pub access_token: String,
    /// Lifetime of the access token, seconds.
    #[serde(default)]
    pub expires_in: Option<u64>,
    /// The refresh token (each works once).
    #[serde(default)]
    pub refresh_token: Option<String>,
}

/// R10.7.2: seconds per prompt family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clocks {
    /// Decisions (turn order, Haunting, Ritual, picks, splits, Burden), 1-86,400 s.
    pub decision_secs: u32,
    /// Reactions and simultaneous windows, 1-86,400 s.
    pub reaction_secs: u32,
}

/// Body of `POST /api/v1/tables` (absent fields take the server's defaults).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateTable {
    /// Seats, 2-64.
    pub players: u8,
    /// Engine settings (R10.11) other than `players`, as the engine's settings object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<serde_json::Value>,
    /// Practice table (the server's default: yes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub practice: Option<bool>,
    /// A practice position to start from (R10.13).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<String>,
    /// R10.7.2: prompt clocks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clocks: Option<Clocks>,
    /// R10.6.5: minimum open time of reaction windows, 0-10,000 ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reaction_window_min_ms: Option<u32>,
    /// Pause before a built-in bot answers, 0-10,000 ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bot_delay_ms: Option<u32>,
    /// R10.7.4: consecutive Ritual time-outs that count as a concession, 0-20.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abandonment: Option<u8>,
}

/// A table's facts (the `table` of [`TableResponse`]).
#[derive(Debug, Clone, Deserialize)]
pub struct TableInfo {
    /// The table's id.
    pub table_id: String,
    /// Its creator's account name.
    pub creator: String,
    /// Account name per seat (`None`: free).
    pub seats: Vec<Option<String>>,
    /// `open`, `playing` or `finished`.
    pub status: String,
}

/// A table and the caller's view of its game (`GET /api/v1/tables/{id}`, creation, start).
#[derive(Debug, Clone, Deserialize)]
pub struct TableResponse {
    /// The table.
    pub table: TableInfo,
    /// The caller's view of the game (absent before the start).
    #[serde(default)]
    pub view: Option<serde_json::Value>,
}

/// Body of `POST /api/v1/tables/{id}/seats`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TakeSeat {
    /// The seat wanted; absent: the first free one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seat: Option<u8>,
}

/// The seat taken.
#[derive(Debug, Clone, Deserialize)]
pub struct SeatTaken {
    /// The seat.
    pub seat: u8,
}

/// An empty JSON object, the body of actions without parameters (`start`).
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Empty {}

/// `GET /api/v1/tables/{id}/prompt`.
#[derive(Debug, Clone, Deserialize)]
pub struct PromptResponse {
    /// The seat looked from.
    #[serde(default)]
    pub seat: Option<u8>,
    /// That seat's open prompt, if any, with its legal answers and default.
    #[serde(default)]
    pub prompt: Option<Prompt>,
}

/// Body of `POST /api/v1/tables/{id}/answers`.
#[derive(Debug, Clone, Serialize)]
pub struct AnswerBody {
    /// The seat answering (when the caller holds several).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seat: Option<u8>,
    /// The id of the prompt answered (a stale id gets 409 `stale-prompt`).
    pub prompt_id: PromptId,
    /// The answer.
    pub answer: Answer,
}

/// A built-in bot policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BotKind {
    /// Uniformly random legal answers.
    Random,
    /// The heuristic bot.
    Heuristic,
}

impl BotKind {
    /// The policy's name, as in `heuristic-bot#07`.
    pub fn name(self) -> &'static str {
        match self {
            BotKind::Random => "random",
            BotKind::Heuristic => "heuristic",
        }
    }
}

/// Gathering settings (R9.1); absent fields take the server's defaults.
#[derive(Debug, Clone, Default, Serialize)]
pub struct GatheringSettings {
    /// R9.1.2: Last Lit advancing from each qualifying circle (1 or 2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub advance: Option<u8>,
    /// R9.1.1: maximum circle size (at least 4).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_circle: Option<u16>,
    /// Pause before each built-in bot answer, ms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bot_delay_ms: Option<u32>,
}

/// Body of `POST /api/v1/gatherings`.
#[derive(Debug, Clone, Serialize)]
pub struct CreateGathering {
    /// The gathering's name.
    pub name: String,
    /// Its settings.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub settings: Option<GatheringSettings>,
}

/// Body of `POST /api/v1/gatherings/{id}/bots`.
#[derive(Debug, Clone, Serialize)]
pub struct AddBots {
    /// How many bots to register.
    pub count: usize,
    /// Their policy.
    pub kind: BotKind,
}

/// A gathering's lifecycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GatheringStatus {
    /// Taking registrations.
    Registering,
    /// Stages are being played.
    Running,
    /// Paused by the organiser.
    Paused,
    /// Ended (with or without a winner).
    Finished,
    /// Cancelled by the organiser.
    Cancelled,
}

/// How far a gathering has got.
#[derive(Debug, Clone, Deserialize)]
pub struct Progress {
    /// The stage being played (0 before the start).
    pub stage: u32,
    /// Circles ended so far.
    pub circles_ended: u32,
    /// Circles expected in all (an estimate until the last stage is drawn).
    pub circles_expected: u32,
}

/// `GET /api/v1/gatherings/{id}` (and the creation's answer).
#[derive(Debug, Clone, Deserialize)]
pub struct GatheringSummary {
    /// The gathering's id.
    pub gathering_id: String,
    /// Its name.
    pub name: String,
    /// Its lifecycle.
    pub status: GatheringStatus,
    /// The winner's name, once there is one.
    #[serde(default)]
    pub winner: Option<String>,
    /// Why it ended.
    #[serde(default)]
    pub end_reason: Option<String>,
    /// How far it has got.
    pub progress: Progress,
}

/// A player of a circle.
#[derive(Debug, Clone, Deserialize)]
pub struct CirclePlayer {
    /// The seat.
    pub seat: u8,
    /// The player's name.
    pub name: String,
    /// Their class id, with classes.
    #[serde(default)]
    pub class: Option<String>,
    /// Their placing, once the circle has ended.
    #[serde(default)]
    pub placing: Option<u8>,
}

/// One circle (table) of a stage.
#[derive(Debug, Clone, Deserialize)]
pub struct CircleView {
    /// The circle's number in its stage.
    pub circle: u32,
    /// Its table.
    pub table_id: String,
    /// Its table's status.
    pub status: String,
    /// Its players.
    pub players: Vec<CirclePlayer>,
    /// Its winner.
    #[serde(default)]
    pub winner: Option<String>,
    /// The players it sends on (R9.5).
    #[serde(default)]
    pub last_lit: Vec<String>,
}

/// One stage of a bracket.
#[derive(Debug, Clone, Deserialize)]
pub struct StageView {
    /// The stage's number, from 1.
    pub stage: u32,
    /// Whether it is the Final Ritual.
    pub final_ritual: bool,
    /// Its circle sizes (`7+7+6`).
    pub sizes: String,
    /// Its circles.
    pub circles: Vec<CircleView>,
}

/// `GET /api/v1/gatherings/{id}/bracket`.
#[derive(Debug, Clone, Deserialize)]
pub struct Bracket {
    /// The gathering's id.
    pub gathering_id: String,
    /// Its stages so far.
    pub stages: Vec<StageView>,
    /// The winner's name, once there is one.
    #[serde(default)]
    pub winner: Option<String>,
    /// Why it ended.
    #[serde(default)]
    pub end_reason: Option<String>,
}

/// One row of `GET /api/v1/gatherings/{id}/standings`.
#[derive(Debug, Clone, Deserialize)]
pub struct Standing {
    /// The rank (ties share one; `None` while undecided).
    #[serde(default)]
    pub rank: Option<u32>,
    /// The player's name.
    pub name: String,
    /// The last stage they played.
    pub stage: u32,
    /// Their circle in that stage.
    #[serde(default)]
    pub circle: Option<u32>,
    /// Their placing in it.
    #[serde(default)]
    pub placing: Option<u8>,
}
