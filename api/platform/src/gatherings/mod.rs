//! Gatherings (RULES.md section 9): one stream each (`gathering-<uuid>`). The organiser creates
//! and configures it, players register (or withdraw before the start), bots fill seats; once
//! started, the process manager ([`manager`]) draws each stage's circles, creates one table per
//! circle, records each circle's Last Lit as it ends and draws the next stage, until a Final
//! Ritual (or a walkover) crowns the winner. Standings are folded from the same events.

pub mod circle;
pub use circle::{CircleGame, CircleSpec};
pub mod commands;
pub mod exorcist;
pub use commands::{CirclePreview, GatheringRefusal};
pub mod invitations;
pub mod manager;
pub mod roster;
pub mod standings;
pub mod views;

use crate::bots::BotKind;
use crate::clocks::Clocks;
pub use crate::names::GameName;
use chrono::{DateTime, Utc};
use final_flicker::SaltWindow;
use flicker_store::{EventStore, Metadata, NewEvent, StoreError, StoredEvent};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The most players a gathering takes.
pub const MAX_PLAYERS: usize = 10_000;

/// R9.1.3: the Dark of a later stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema, Default)]
#[serde(rename_all = "snake_case")]
pub enum FinalDark {
    /// R9.8.2 (default): The Dark starts empty; an odd table's surplus goes out of play face down.
    #[default]
    Empty,
    /// The surplus forms The Dark as at the start of a game (R2.4).
    AsNewGame,
}

/// R9.1, R10.11: a gathering's settings, fixed when it starts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct GatheringSettings {
    /// The game every table of the gathering plays (default `the-final-flicker`), fixed at
    /// creation. Some settings belong to one game only: see [`GatheringSettings::validate`]
    /// (docs/rules-decisions.md 72).
    #[serde(default, skip_serializing_if = "GameName::is_default")]
    pub game: GameName,
    /// X4.5: *Let's Call the Exorcist* only: the points target of every table, 1 to 30
    /// (`null`, the default: 7).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 1, maximum = 30)]
    pub target: Option<u32>,
    /// R9.1.1: maximum circle size C, at least 4 (default 8); `null`: one table for everybody.
    /// *Let's Call the Exorcist*: 4 to 8, never `null` (X2.1).
    #[serde(default = "default_max_circle")]
    #[schema(minimum = 4, maximum = 64)]
    pub max_circle: Option<u16>,
    /// R9.1.2: Last Lit advancing from each qualifying circle, 1 or 2 (default 2; *Let's Call
    /// the Exorcist*: the best-placed by points, default 1, docs/rules-decisions.md 73).
    #[serde(default = "default_advance")]
    #[schema(minimum = 1, maximum = 2)]
    pub advance: u8,
    /// R9.1.3: the Dark of later stages (default `empty`).
    #[serde(default)]
    pub final_dark: FinalDark,
    /// R8.0.5, R10.11: classes on (default) or off.
    #[serde(default = "yes")]
    pub classes: bool,
    /// R2.7.2, R10.11: classes never offered in stage 1 (R2.7.7: ignored at a circle where too
    /// few would remain). Later stages keep each player's class (R9.8.4).
    #[serde(default)]
    pub class_bans: Vec<final_flicker::ClassId>,
    /// R10.7.2: seconds per prompt family.
    #[serde(default)]
    pub clocks: Clocks,
    /// R10.6.5: minimum open time of reaction windows in ms, 0 to 10,000; `null` (default):
    /// 1,500 at a table with any seat not held by a bot, 0 at an all-bot table.
    #[serde(default)]
    #[schema(maximum = 10000)]
    pub reaction_window_min_ms: Option<u32>,
    /// R7.9.2: rounds before the Guttering, at least 10 (default 40).
    #[serde(default = "default_round_limit")]
    #[schema(minimum = 10)]
    pub round_limit: u16,
    /// R10.6.6: `simultaneous` (default) or `sequential` Salt windows.
    #[serde(default)]
    pub salt_window: SaltWindow,
    /// R6.5.2: only targeted players may Salt (default false).
    #[serde(default)]
    pub salt_targeted_only: bool,
    /// Pause before a built-in bot answers, 0 to 10,000 ms (default 0), so people can watch.
    #[serde(default)]
    #[schema(maximum = 10000)]
    pub bot_delay_ms: u32,
    /// R10.7.4: a player whose Ritual prompts time out this many times in a row concedes,
    /// 0 to 20 (default 3; 0 never).
    #[serde(default = "default_abandonment")]
    #[schema(maximum = 20)]
    pub abandonment: u8,
    /// R10.8: spectators (and the organiser) see each table this many events behind, 0 to
    /// 10,000 (default 0), so that watching cannot help a seated player.
    #[serde(default)]
    #[schema(maximum = 10000)]
    pub spectator_delay_events: u32,
    /// R10.8: spectators see each table this many seconds behind, 0 to 3,600 (default 0).
    #[serde(default)]
    #[schema(maximum = 3600)]
    pub spectator_delay_secs: u32,
    /// R10.8: the organiser may watch tables in an all-seeing commentary view (delayed like
    /// spectators); no seated player can open it. Default off.
    #[serde(default)]
    pub commentary: bool,
    /// The most players who may register, 2 to 10,000 (`null`, the default: 10,000). Bots the
    /// organiser adds count too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 2, maximum = 10000)]
    pub registration_cap: Option<u32>,
    /// Check-in (default off): registered players confirm they are present
    /// (`POST .../check-ins`) before the start; at the start, those who did not are removed
    /// (a `no_shows_removed` event) and the first stage is drawn from the rest. Built-in bots
    /// need no check-in.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub check_in: bool,
    /// R10.1.3, R10.11: the ruleset every table of the gathering plays, `current` (default) or
    /// `classic-1.0` (RULES.md appendix A; with classes, its 25-class roster, A9).
    #[serde(default)]
    pub ruleset: final_flicker::RulesetName,
    /// R10.11, A3.3: `classic-1.0` only: where a dead player's ghosts go, `standard` (default: to
    /// The Dark) or `dark` (split between the neighbours).
    #[serde(default, skip_serializing_if = "is_standard")]
    pub dark_mode: final_flicker::DarkMode,
}

fn is_standard(m: &final_flicker::DarkMode) -> bool {
    *m == final_flicker::DarkMode::Standard
}

fn yes() -> bool {
    true
}
fn default_max_circle() -> Option<u16> {
    Some(8)
}
fn default_advance() -> u8 {
    2
}
fn default_round_limit() -> u16 {
    40
}
fn default_abandonment() -> u8 {
    3
}

impl Default for GatheringSettings {
    fn default() -> Self {
        serde_json::from_value(serde_json::json!({})).expect("defaults")
    }
}

impl GatheringSettings {
    /// Checks every range; the message names the rule. In a gathering of *Let's Call the
    /// Exorcist* (docs/rules-decisions.md 72), `max_circle` is 4 to 8 (X2.1), and The Final Flicker's own settings
    /// (`classes`, `class_bans`, `ruleset`, `salt_window`, `salt_targeted_only`, `dark_mode`,
    /// `round_limit`, `final_dark`, `reaction_window_min_ms`) are refused unless they hold their
    /// default (so that settings read back can be sent again); `target` is refused in a
    /// gathering of The Final Flicker.
    pub fn validate(&self) -> Result<(), String> {
        match self.game {
            GameName::TheFinalFlicker => {
                if self.target.is_some() {
                    return Err(
                        "target is a setting of lets-call-the-exorcist gatherings (X4.5), not of the-final-flicker's"
                            .into(),
                    );
                }
            }
            GameName::LetsCallTheExorcist => self.validate_exorcist()?,
        }
        self.validate_common()
    }

    /// Rules decision 72: the settings of a gathering of *Let's Call the Exorcist*.
    fn validate_exorcist(&self) -> Result<(), String> {
        let d = GatheringSettings::default();
        let only_ff = [
            ("classes", self.classes != d.classes),
            ("class_bans", self.class_bans != d.class_bans),
            ("ruleset", self.ruleset != d.ruleset),
            ("dark_mode", self.dark_mode != d.dark_mode),
            ("salt_window", self.salt_window != d.salt_window),
            ("salt_targeted_only", self.salt_targeted_only != d.salt_targeted_only),
            ("round_limit", self.round_limit != d.round_limit),
            ("final_dark", self.final_dark != d.final_dark),
            ("reaction_window_min_ms", self.reaction_window_min_ms != d.reaction_window_min_ms),
        ];
        if let Some((field, _)) = only_ff.iter().find(|(_, set)| *set) {
            return Err(format!(
                "{field} is a setting of the-final-flicker gatherings: a lets-call-the-exorcist gathering has none (rules decision 72)"
            ));
        }
        match self.max_circle {
            Some(c) if (4..=8).contains(&c) => {}
            _ => {
                return Err(
                    "X2.1: lets-call-the-exorcist seats 4 to 8, so max_circle is 4 to 8 (never null) in its gatherings"
                        .into(),
                );
            }
        }
        if self.target.is_some_and(|t| !(1..=::exorcist::model::settings::MAX_TARGET).contains(&t)) {
            return Err(format!("X4.5: target is 1 to {}", ::exorcist::model::settings::MAX_TARGET));
        }
        Ok(())
    }

    /// The checks every gathering takes.
    fn validate_common(&self) -> Result<(), String> {
        if let Some(c) = self.max_circle
            && (c as usize) < final_flicker::gathering::MIN_CIRCLE_MAX
        {
            return Err("R9.1.1, R9.7.2: max_circle is at least 4 (or null for one table)".into());
        }
        if let Some(c) = self.max_circle
            && c > 64
        {
            return Err("R0.2: a table seats at most 64, so max_circle is at most 64 (or null)".into());
        }
        if !(1..=2).contains(&self.advance) {
            return Err("R9.1.2: advance is 1 or 2".into());
        }
        self.clocks.validate()?;
        if self.reaction_window_min_ms.is_some_and(|m| m > 10_000) {
            return Err("R10.6.5: reaction_window_min_ms is 0 to 10000".into());
        }
        if self.round_limit < final_flicker::settings::MIN_ROUND_LIMIT {
            return Err("R7.9.2: round_limit is at least 10".into());
        }
        if self.abandonment > 20 {
            return Err("R10.7.4: abandonment is 0 to 20".into());
        }
        if self.spectator_delay_events > 10_000 || self.spectator_delay_secs > 3_600 {
            return Err("R10.8: spectator_delay_events is 0 to 10000 and spectator_delay_secs 0 to 3600".into());
        }
        if self.commentary && self.spectator_delay_events == 0 && self.spectator_delay_secs == 0 {
            return Err(
                "R10.8: the commentary view must be delayed: set spectator_delay_events or spectator_delay_secs".into(),
            );
        }
        if self.bot_delay_ms > 10_000 {
            return Err("bot_delay_ms is 0 to 10000".into());
        }
        if self.registration_cap.is_some_and(|c| !(2..=MAX_PLAYERS as u32).contains(&c)) {
            return Err(format!("registration_cap is 2 to {MAX_PLAYERS} (or null)"));
        }
        if self.ruleset == final_flicker::RulesetName::Current && self.dark_mode != final_flicker::DarkMode::Standard {
            return Err("R10.11: dark_mode is a setting of classic-1.0 only".into());
        }
        Ok(())
    }

    /// The most players this gathering takes: its cap, or [`MAX_PLAYERS`].
    pub fn capacity(&self) -> usize {
        self.registration_cap.map_or(MAX_PLAYERS, |c| c as usize)
    }

    /// R9.1.1 as the engine's arithmetic takes it.
    pub fn max(&self) -> Option<usize> {
        self.max_circle.map(|c| c as usize)
    }

    /// R9.2.2 for the gathering's game: the circle sizes of a stage of `m` players (X2.1 and
    /// rules decision 72 for *Let's Call the Exorcist*).
    pub fn circle_sizes(&self, m: usize) -> Vec<usize> {
        match self.game {
            GameName::TheFinalFlicker => final_flicker::gathering::circle_sizes(m, self.max()),
            GameName::LetsCallTheExorcist => exorcist::circle_sizes(m, self.max().unwrap_or(exorcist::MAX_SEATS)),
        }
    }

    /// R9.6-R9.7 for the gathering's game: each stage's circle sizes for `n` players when every
    /// circle sends on `advance` (an estimate).
    pub fn stage_plan(&self, n: usize) -> Vec<Vec<usize>> {
        match self.game {
            GameName::TheFinalFlicker => final_flicker::gathering::stage_plan(n, self.max(), self.advance as usize),
            GameName::LetsCallTheExorcist => {
                exorcist::stage_plan(n, self.max().unwrap_or(exorcist::MAX_SEATS), self.advance)
            }
        }
    }

    /// The fewest players a start takes (X2.1: 4 for *Let's Call the Exorcist*; The Final
    /// Flicker starts with any number, R9.10.1).
    pub fn min_players(&self) -> usize {
        match self.game {
            GameName::TheFinalFlicker => 0,
            GameName::LetsCallTheExorcist => exorcist::MIN_SEATS,
        }
    }
}

/// One circle as drawn (R9.2.3): its table and its players in seat order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct CircleDraw {
    /// Circle number within the stage, from 1.
    pub circle: u32,
    /// The table that plays it.
    pub table_id: String,
    /// Player names by seat (seat 0 first).
    pub players: Vec<String>,
}

/// How a circle ended (R9.5.4).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct CircleResult {
    /// The circle's winner (a Final Ritual, or A = 1), if any.
    pub winner: Option<String>,
    /// R9.5: those who advance (none when the circle ended with no winner, R9.5.3).
    pub last_lit: Vec<String>,
    /// R7.7.3: placing of each player by seat (the Last Lit share 1 with A = 2; their standing
    /// comes from the later stage, R9.5.4).
    pub placings: Vec<u8>,
    /// The engine's end reason (`last_lit`, `witnessed`, `guttered`).
    pub reason: String,
    /// R9.8.4: the class each seat played (`null` on a class-free table).
    #[serde(default)]
    #[schema(value_type = Vec<Option<String>>)]
    pub classes: Vec<Option<final_flicker::ClassId>>,
    /// *Let's Call the Exorcist*: each seat's points at the end (X7.6), by seat; empty for
    /// The Final Flicker.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub points: Vec<u32>,
}

/// A registered player.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Registrant {
    /// Account name, or a built-in bot's name (`heuristic-bot#07`).
    pub name: String,
    /// The built-in bot policy, for bots the organiser added.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bot: Option<BotKind>,
    /// An account with the `bot` role (an external program): counts as a bot for R10.6.5.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub program: bool,
}

/// Events of a gathering stream: each is one `event:` of `GET /api/v1/gatherings/{id}/stream`
/// named by its `type` (the `data:` is `{"type", "payload", "at"}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", content = "payload", rename_all = "snake_case")]
pub enum GatheringEvent {
    /// Created by an organiser.
    GatheringCreated {
        /// Its id.
        gathering_id: String,
        /// Its name.
        name: String,
        /// The organiser's account.
        organiser: String,
        /// Settings.
        settings: GatheringSettings,
    },
    /// The settings changed (before the start).
    GatheringConfigured {
        /// The new settings.
        settings: GatheringSettings,
    },
    /// A player registered, or the organiser added a bot.
    PlayerRegistered(Registrant),
    /// A player withdrew before the start (R9.10.2).
    PlayerWithdrew {
        /// Who.
        name: String,
    },
    /// A registered player checked in (a gathering with `check_in`).
    PlayerCheckedIn {
        /// Who.
        name: String,
    },
    /// At the start of a gathering with `check_in`: the registered players who did not check in
    /// are removed (like a withdrawal, R9.10.2) before the first draw.
    NoShowsRemoved {
        /// Who, in registration order.
        names: Vec<String>,
    },
    /// The organiser started it; registration closes.
    GatheringStarted,
    /// R9.2: a stage's circles were drawn (the draw recorded, R10.2.1).
    StageDrawn {
        /// Stage number, from 1.
        stage: u32,
        /// Its circles.
        circles: Vec<CircleDraw>,
    },
    /// Every table of a stage exists and plays (the bracket's table ids can be opened).
    StageOpened {
        /// Stage.
        stage: u32,
    },
    /// R9.5.4: a circle ended.
    CircleEnded {
        /// Stage.
        stage: u32,
        /// Circle.
        circle: u32,
        /// Its result.
        result: CircleResult,
    },
    /// The organiser dropped a player after the start (R9.10.2, R10.10): the player concedes at
    /// their table (the manager sends the concession) and is drawn into no later stage.
    PlayerDropped {
        /// Who.
        name: String,
        /// The organiser who dropped them.
        by: String,
    },
    /// The organiser replaced a player by a built-in bot after the start
    /// (docs/rules-decisions.md, "Substitutes"): the bot plays the player's seat to the end of
    /// the circle, but never advances and never wins; the place it earns goes to nobody.
    PlayerReplaced {
        /// Who.
        name: String,
        /// The substitute's policy.
        bot: BotKind,
        /// The organiser who replaced them.
        by: String,
    },
    /// The organiser paused it: clocks and bots stop, answers are refused.
    GatheringPaused,
    /// The organiser resumed it; deadlines move back by the pause.
    GatheringResumed,
    /// The organiser cancelled it: it ends with no winner.
    GatheringCancelled {
        /// Why (free text).
        reason: String,
    },
    /// R9.6, R9.10: it ended.
    GatheringEnded {
        /// The winner (none: R9.6.1, R9.10.1, cancelled).
        winner: Option<String>,
        /// `final_ritual`, `walkover`, `no_winner`, `no_players` or `cancelled`.
        #[schema(value_type = String)]
        reason: EndReason,
    },
}

/// R9.6, R9.10: why a gathering ended (stored and shown as its snake_case name).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// R9.6: the Final Ritual crowned a winner.
    FinalRitual,
    /// R9.10.1: one player remained without a table to play (a lone registrant, or one
    /// advancing).
    Walkover,
    /// R9.6.1: the last stage ended with nobody to crown (a Witnessed circle sends nobody on).
    NoWinner,
    /// R9.10.1: nobody registered.
    NoPlayers,
    /// The organiser cancelled it.
    Cancelled,
}

impl EndReason {
    /// The reason's stored name (`final_ritual`, `walkover`, `no_winner`, `no_players`,
    /// `cancelled`).
    pub fn as_str(self) -> &'static str {
        match self {
            EndReason::FinalRitual => "final_ritual",
            EndReason::Walkover => "walkover",
            EndReason::NoWinner => "no_winner",
            EndReason::NoPlayers => "no_players",
            EndReason::Cancelled => "cancelled",
        }
    }
}

/// A gathering's lifecycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Status {
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

/// A stage as folded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stage {
    /// Stage number, from 1.
    pub stage: u32,
    /// Its circles with their results so far.
    pub circles: Vec<(CircleDraw, Option<CircleResult>)>,
    /// Every table of the stage exists.
    pub opened: bool,
}

impl Stage {
    /// Whether every circle has ended.
    pub fn complete(&self) -> bool {
        self.circles.iter().all(|(_, r)| r.is_some())
    }
}

/// A gathering folded from its stream.
#[derive(Debug, Clone)]
pub struct Gathering {
    /// Stream version.
    pub version: i64,
    /// Id.
    pub id: String,
    /// Name.
    pub name: String,
    /// Organiser account.
    pub organiser: String,
    /// Settings.
    pub settings: GatheringSettings,
    /// Status.
    pub status: Status,
    /// Registered players (in registration order).
    pub players: Vec<Registrant>,
    /// Each registrant's index in `players`, for lookups in constant time.
    registered: std::collections::HashMap<String, usize>,
    /// Stages drawn so far.
    pub stages: Vec<Stage>,
    /// Pauses: (from, to); `to = None` while paused.
    pub pauses: Vec<(DateTime<Utc>, Option<DateTime<Utc>>)>,
    /// Winner, once ended.
    pub winner: Option<String>,
    /// End reason, once ended.
    pub end_reason: Option<EndReason>,
    /// Players who checked in (a gathering with `check_in`).
    pub checked_in: std::collections::BTreeSet<String>,
    /// Players the organiser dropped after the start (they concede, R10.10).
    pub dropped: std::collections::BTreeSet<String>,
    /// Players the organiser replaced by a built-in bot after the start, and its policy.
    pub replaced: std::collections::BTreeMap<String, BotKind>,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// When it started.
    pub started_at: Option<DateTime<Utc>>,
    /// When it ended.
    pub ended_at: Option<DateTime<Utc>>,
}

/// The stream id of a gathering.
pub fn stream_of(id: &str) -> String {
    format!("gathering-{id}")
}

impl Gathering {
    fn empty(id: &str) -> Self {
        Gathering {
            version: 0,
            id: id.into(),
            name: String::new(),
            organiser: String::new(),
            settings: GatheringSettings::default(),
            status: Status::Registering,
            players: Vec::new(),
            registered: Default::default(),
            stages: Vec::new(),
            pauses: Vec::new(),
            winner: None,
            end_reason: None,
            checked_in: Default::default(),
            dropped: Default::default(),
            replaced: Default::default(),
            created_at: Utc::now(),
            started_at: None,
            ended_at: None,
        }
    }

    /// Folds one stored event.
    pub fn apply(&mut self, e: &StoredEvent) -> Result<(), StoreError> {
        self.version = i64::from(e.stream_version);
        let ev: GatheringEvent = crate::codec::decode(&e.event_type, &e.payload)
            .map_err(|err| StoreError::Other(format!("gathering event: {err}")))?;
        let at = e.recorded_at;
        match ev {
            GatheringEvent::GatheringCreated { gathering_id, name, organiser, settings } => {
                self.id = gathering_id;
                self.name = name;
                self.organiser = organiser;
                self.settings = settings;
                self.created_at = at;
            }
            GatheringEvent::GatheringConfigured { settings } => self.settings = settings,
            GatheringEvent::PlayerRegistered(r) => {
                self.registered.insert(r.name.clone(), self.players.len());
                self.players.push(r);
            }
            GatheringEvent::PlayerWithdrew { name } => {
                self.players.retain(|p| p.name != name);
                self.index_players();
                self.checked_in.remove(&name);
            }
            GatheringEvent::PlayerCheckedIn { name } => {
                self.checked_in.insert(name);
            }
            GatheringEvent::NoShowsRemoved { names } => {
                let gone: std::collections::HashSet<&String> = names.iter().collect();
                self.players.retain(|p| !gone.contains(&p.name));
                self.index_players();
            }
            GatheringEvent::PlayerDropped { name, .. } => {
                self.dropped.insert(name);
            }
            GatheringEvent::PlayerReplaced { name, bot, .. } => {
                self.replaced.insert(name, bot);
            }
            GatheringEvent::GatheringStarted => {
                self.status = Status::Running;
                self.started_at = Some(at);
            }
            GatheringEvent::StageDrawn { stage, circles } => self.stages.push(Stage {
                stage,
                circles: circles.into_iter().map(|c| (c, None)).collect(),
                opened: false,
            }),
            GatheringEvent::StageOpened { stage } => {
                if let Some(s) = self.stages.iter_mut().find(|s| s.stage == stage) {
                    s.opened = true;
                }
            }
            GatheringEvent::CircleEnded { stage, circle, result } => {
                if let Some(s) = self.stages.iter_mut().find(|s| s.stage == stage)
                    && let Some(c) = s.circles.iter_mut().find(|(c, _)| c.circle == circle)
                {
                    c.1 = Some(result);
                }
            }
            GatheringEvent::GatheringPaused => {
                self.status = Status::Paused;
                self.pauses.push((at, None));
            }
            GatheringEvent::GatheringResumed => {
                self.status = Status::Running;
                if let Some(p) = self.pauses.last_mut() {
                    p.1 = Some(at);
                }
            }
            GatheringEvent::GatheringCancelled { .. } => {
                self.status = Status::Cancelled;
                self.end_reason = Some(EndReason::Cancelled);
                self.ended_at = Some(at);
                if let Some(p) = self.pauses.last_mut()
                    && p.1.is_none()
                {
                    p.1 = Some(at);
                }
            }
            GatheringEvent::GatheringEnded { winner, reason } => {
                if self.status != Status::Cancelled {
                    self.status = Status::Finished;
                }
                self.winner = winner;
                self.end_reason = Some(reason);
                self.ended_at = Some(at);
            }
        }
        Ok(())
    }

    /// Whether the gathering is over (finished or cancelled).
    pub fn over(&self) -> bool {
        matches!(self.status, Status::Finished | Status::Cancelled)
    }

    /// Whether `name` is still in the gathering: registered, and neither dropped nor replaced.
    pub fn in_play(&self, name: &str) -> bool {
        self.registered.contains_key(name) && !self.dropped.contains(name) && !self.replaced.contains_key(name)
    }

    /// The registrant named `name`, if registered (constant time).
    pub fn registrant(&self, name: &str) -> Option<&Registrant> {
        self.registered.get(name).and_then(|&i| self.players.get(i))
    }

    /// The 0-based place of `name` in registration order, if registered (constant time).
    pub fn registrant_position(&self, name: &str) -> Option<usize> {
        self.registered.get(name).copied().filter(|&i| self.players.get(i).is_some_and(|p| p.name == name))
    }

    /// Rebuilds the name index after `players` was changed directly (tests).
    pub(crate) fn index_players(&mut self) {
        self.registered = self.players.iter().enumerate().map(|(i, p)| (p.name.clone(), i)).collect();
    }

    /// The name of the built-in bot that substitutes for `player` (`heuristic-bot#for-alice`:
    /// the `#` keeps it apart from accounts, and it is no registrant, so it never advances).
    pub fn substitute_name(bot: BotKind, player: &str) -> String {
        format!("{}-bot#for-{player}", bot.name())
    }

    /// The stage being played (the last drawn).
    pub fn current_stage(&self) -> Option<&Stage> {
        self.stages.last()
    }
}

/// Loads a gathering (`None`: no such stream).
pub async fn load(store: &dyn EventStore, id: &str) -> Result<Option<Gathering>, StoreError> {
    let events = store.read_stream(&stream_of(id), crate::store::StreamVersion::new(1)).await?;
    if events.is_empty() {
        return Ok(None);
    }
    let mut g = Gathering::empty(id);
    for e in &events {
        g.apply(e)?;
    }
    Ok(Some(g))
}

/// Converts a gathering event to a stored event.
pub fn to_new(e: &GatheringEvent, actor: &str) -> NewEvent {
    crate::codec::encode(e, 1, Metadata { actor: Some(actor.to_string()), ..Default::default() })
}

/// Appends `events` at the gathering's version (optimistic concurrency).
pub async fn append(
    store: &dyn EventStore,
    g: &Gathering,
    events: &[GatheringEvent],
    actor: &str,
) -> Result<(), StoreError> {
    let new = events.iter().map(|e| to_new(e, actor)).collect();
    store.append(&stream_of(&g.id), g.version.try_into()?, new).await.map(|_| ())
}

/// Caches folded gatherings, caught up from the store on each read (like the table cache).
#[derive(Default)]
pub struct GatheringCache {
    cache: std::sync::Mutex<std::collections::HashMap<String, std::sync::Arc<Gathering>>>,
}

impl GatheringCache {
    /// The gathering as stored now (`None`: no such gathering).
    pub async fn get(&self, store: &dyn EventStore, id: &str) -> Result<Option<std::sync::Arc<Gathering>>, StoreError> {
        let cached = self.cache.lock().expect("cache").get(id).cloned();
        let from = cached.as_ref().map_or(1, |g| g.version + 1);
        let new = store.read_stream(&stream_of(id), from.try_into()?).await?;
        if new.is_empty() {
            return Ok(cached);
        }
        let mut g = match cached {
            Some(g) => (*g).clone(),
            None => Gathering::empty(id),
        };
        for e in &new {
            g.apply(e)?;
        }
        let g = std::sync::Arc::new(g);
        let mut cache = self.cache.lock().expect("cache");
        if cache.get(id).is_none_or(|c| c.version < g.version) {
            cache.insert(id.to_string(), g.clone());
        }
        Ok(Some(g))
    }
}
