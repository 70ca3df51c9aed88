//! Gatherings: creation, registration, bots, organiser controls (`/api/v1/gatherings/...`). The summary, bracket and standings are the platform's own views ([`flicker_platform::gatherings::views`], [`flicker_platform::gatherings::standings`]).

use flicker_platform::bots::BotKind;
use flicker_platform::gatherings::{GatheringSettings, Registrant, Status};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// Body of `POST /api/v1/gatherings`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"name": "Friday Flicker", "settings": {"advance": 2, "clocks": {"decision_secs": 60, "reaction_secs": 15}}}))]
pub struct CreateGatheringBody {
    /// 1-80 characters (leading and trailing white space removed).
    #[schema(pattern = "^\\s*\\S([\\s\\S]{0,78}\\S)?\\s*$")]
    pub name: String,
    /// Settings (R9.1, R10.11); defaults when absent.
    #[serde(default)]
    pub settings: Option<GatheringSettings>,
    /// The game its tables play (absent: `settings.game`, else `the-final-flicker`); fixed at
    /// creation. `lets-call-the-exorcist` takes its own settings (`target`, `advance` default
    /// 1, `max_circle` 4 to 8) and refuses The Final Flicker's (docs/rules-decisions.md 72).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<crate::game::GameName>,
}

/// The answer to a registration or a withdrawal (the registration and a count, not
/// the whole list, which `GET /api/v1/gatherings/{id}/registrations` pages).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"gathering_id": "6f1c0c1e-7f4b-4a59-9a53-8f3f2f0b5a11", "registration": {"name": "alice"}, "registered": 12}))]
pub struct RegistrationAnswer {
    /// The gathering.
    pub gathering_id: String,
    /// The registration made (or, for a withdrawal, removed).
    pub registration: Registrant,
    /// How many players are registered now.
    pub registered: usize,
}

/// The answer to `POST /api/v1/gatherings/{id}/bots`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"gathering_id": "6f1c0c1e-7f4b-4a59-9a53-8f3f2f0b5a11", "added": 3, "first": "heuristic-bot#01", "last": "heuristic-bot#03", "registered": 4}))]
pub struct BotsAdded {
    /// The gathering.
    pub gathering_id: String,
    /// How many bots were registered.
    pub added: usize,
    /// The first bot's name.
    pub first: String,
    /// The last bot's name (bots are numbered in between).
    pub last: String,
    /// How many players are registered now.
    pub registered: usize,
}

/// Query of `GET /api/v1/gatherings`.
#[derive(Debug, Clone, Serialize, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    /// Only gatherings in this status (`registering`, `running`, `paused`, `finished`, `cancelled`).
    pub status: Option<Status>,
    /// At most this many, newest first, 1-200 (default 50).
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<usize>,
}

/// Body of `POST /api/v1/gatherings/{id}/registrations` (optional).
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RegistrationBody {
    /// The organiser registers this account (a player or bot account); absent: the caller
    /// registers themself.
    #[serde(default)]
    pub name: Option<String>,
}

/// Query of `GET /api/v1/gatherings/{id}/registrations`.
#[derive(Debug, Clone, Serialize, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct RegistrationsQuery {
    /// At most this many, in registration order, 1-1000 (default 100).
    #[param(minimum = 1, maximum = 1000)]
    pub limit: Option<usize>,
    /// Only registrations after the one of this name (the `next` of the previous page).
    pub after: Option<String>,
}

/// A page of a gathering's registrations.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"registrations": [{"name": "alice"}, {"name": "heuristic-bot#01", "bot": "heuristic"}], "registered": 2, "next": null}))]
pub struct RegistrationsPage {
    /// Registrations in registration order.
    pub registrations: Vec<Registrant>,
    /// How many players are registered in all.
    pub registered: usize,
    /// The `after` of the next page; `null` on the last page.
    pub next: Option<String>,
}

/// Body of `POST /api/v1/gatherings/{id}/bots`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"count": 20, "kind": "heuristic"}))]
pub struct AddBotsBody {
    /// How many built-in bots to add, 1 to 10,000.
    #[schema(minimum = 1, maximum = 10000)]
    pub count: usize,
    /// Their policy (default `heuristic`).
    #[serde(default = "heuristic")]
    pub kind: BotKind,
}

/// Organiser commands on a running gathering.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Control {
    /// Close registration, draw stage 1 and start every circle (R9.2).
    Start,
    /// Stop clocks and bots; answers are refused until resumed.
    Pause,
    /// Restart clocks (deadlines move back by the pause) and bots.
    Resume,
    /// End with no winner.
    Cancel,
}

fn heuristic() -> BotKind {
    BotKind::Heuristic
}

/// Body of `POST /api/v1/gatherings/{id}/players/{name}/replace` (optional).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"bot": "heuristic"}))]
pub struct ReplaceBody {
    /// The substitute's policy (default `heuristic`).
    #[serde(default = "heuristic")]
    pub bot: BotKind,
}

impl Default for ReplaceBody {
    fn default() -> Self {
        ReplaceBody { bot: heuristic() }
    }
}

/// Body of `POST /api/v1/gatherings/{id}/tables/{table_id}/time`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"seconds": 60}))]
pub struct GiveTimeBody {
    /// Seconds added to the open decision point's deadline, 1 to 600.
    #[schema(minimum = 1, maximum = 600)]
    pub seconds: u32,
}

/// The answer to `POST /api/v1/gatherings/{id}/tables/{table_id}/time`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct TimeGiven {
    /// The table.
    pub table_id: String,
    /// Seconds added.
    pub seconds: u32,
    /// Whom the table waits for (as a spectator sees it).
    pub waiting: Option<flicker_platform::gatherings::views::Waiting>,
}

/// `GET /api/v1/gatherings/{id}/results.json`: the standings and every stage's circles, for
/// organisers' records (the same figures as `/standings` and `/bracket`).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ResultsExport {
    /// The gathering.
    pub gathering_id: String,
    /// Its name.
    pub name: String,
    /// Status.
    pub status: Status,
    /// Winner, once ended with one.
    pub winner: Option<String>,
    /// Why it ended.
    pub end_reason: Option<String>,
    /// Started (RFC 3339).
    pub started_at: Option<chrono::DateTime<chrono::Utc>>,
    /// Ended (RFC 3339).
    pub ended_at: Option<chrono::DateTime<chrono::Utc>>,
    /// R9.9: standings, best first.
    pub standings: Vec<flicker_platform::gatherings::standings::Standing>,
    /// Every stage's circles with their results.
    pub stages: Vec<flicker_platform::gatherings::views::StageView>,
}

/// Body of `POST /api/v1/gatherings/{id}/roster` as JSON (the route also takes `text/csv`: one
/// name a line, or a `name` column under a header row).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"names": ["alice", "bob", "carol"]}))]
pub struct RosterBody {
    /// Existing player or bot accounts, 1 to 10,000, registered in this order.
    #[schema(min_items = 1, max_items = 10000)]
    pub names: Vec<String>,
}

/// The answer to a roster: every row registered.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"gathering_id": "6f1c0c1e-7f4b-4a59-9a53-8f3f2f0b5a11", "added": 3, "registered": 15}))]
pub struct RosterAnswer {
    /// The gathering.
    pub gathering_id: String,
    /// How many players the roster registered (its rows).
    pub added: usize,
    /// How many players are registered now.
    pub registered: usize,
}

/// One registration, `GET /api/v1/gatherings/{id}/registrations/{name}` (public).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"gathering_id": "6f1c0c1e-7f4b-4a59-9a53-8f3f2f0b5a11", "registration": {"name": "alice"}, "position": 12, "checked_in": true, "playing": false}))]
pub struct RegistrationStatus {
    /// The gathering.
    pub gathering_id: String,
    /// The registration.
    pub registration: Registrant,
    /// Its 1-based place in registration order.
    pub position: usize,
    /// The player checked in (a gathering with `check_in`).
    pub checked_in: bool,
    /// The player is still playing for the gathering: at a circle of the current stage that has
    /// not ended, or one of its Last Lit waiting for the next stage (false before the start).
    pub playing: bool,
}

/// Query of `GET /api/v1/gatherings/{id}/bracket` and `.../circles`: which circles to show.
#[derive(Debug, Clone, Default, Serialize, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct BracketQuery {
    /// Only this stage's circles (other stages are listed without circles).
    pub stage: Option<u32>,
    /// Circles skipped in each stage (default 0).
    pub offset: Option<usize>,
    /// At most this many circles a stage, 1-1250 (default 64).
    #[param(minimum = 1, maximum = 1250)]
    pub limit: Option<usize>,
    /// Only the circles that seat this player.
    pub player: Option<String>,
}

/// Query of `GET /api/v1/gatherings/{id}/standings`: a page of the ranked standings.
#[derive(Debug, Clone, Default, Serialize, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct StandingsQuery {
    /// Rows skipped, best first (default 0).
    pub offset: Option<usize>,
    /// At most this many rows, 1-1000 (default 100). `X-Total-Count` gives how many there are.
    #[param(minimum = 1, maximum = 1000)]
    pub limit: Option<usize>,
    /// Only this player's row.
    pub player: Option<String>,
}

/// `GET /api/v1/me/gatherings/{id}`: the caller's registration at a gathering, if any.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct MyRegistration {
    /// The gathering.
    pub gathering_id: String,
    /// The caller's registration; `null` when not registered.
    pub registration: Option<RegistrationStatus>,
}

/// Body of `POST /api/v1/gatherings/{id}/invitations`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"count": 20}))]
pub struct IssueInvitationsBody {
    /// Codes to issue, 1 to 10,000.
    #[schema(minimum = 1, maximum = 10000)]
    pub count: usize,
}

/// Codes just issued: shown this once (only their hashes are kept).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct InvitationsIssued {
    /// The gathering.
    pub gathering_id: String,
    /// The codes (`inv-` and 32 hex digits), one a person.
    pub codes: Vec<String>,
    /// Each code's page in the web UI, from the server's root
    /// (`/gatherings/{id}/join#code=inv-…`: the code stays in the fragment, never sent to a
    /// server).
    pub links: Vec<String>,
}

/// A gathering's invitations, for its organiser.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct InvitationsState {
    /// Codes issued.
    pub issued: usize,
    /// Codes not claimed yet.
    pub open: usize,
    /// Claims, oldest first.
    pub claimed: Vec<ClaimedInvitation>,
}

/// One claimed invitation.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ClaimedInvitation {
    /// The account created with it.
    pub name: String,
    /// When.
    pub claimed_at: chrono::DateTime<chrono::Utc>,
}

/// Body of `POST /api/v1/invitations/claim`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"gathering_id": "6f1c0c1e-7f4b-4a59-9a53-8f3f2f0b5a11", "code": "inv-0123456789abcdef0123456789abcdef", "name": "dora", "password": "a long secret"}))]
pub struct ClaimBody {
    /// The gathering invited to.
    pub gathering_id: String,
    /// The invitation code.
    pub code: String,
    /// The new account's name: 3 to 32 characters of letters, digits, `_` or `-`.
    pub name: String,
    /// Its password, at least 8 characters.
    pub password: String,
}

/// The answer to a claim: the account created, registered, and signed in.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ClaimAnswer {
    /// The gathering.
    pub gathering_id: String,
    /// The account (lower-case).
    pub name: String,
    /// How many players are registered now.
    pub registered: usize,
    /// A session for the new account.
    pub tokens: crate::accounts::TokenPair,
}
