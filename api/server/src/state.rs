//! The shared state of the server ([`AppState`]) and its construction on an open store. Every
//! handler takes it; it names no route module.

use crate::game::{Exorcist, GameName, GameTables, Served, TableGames, Tables};
use crate::metrics::Metrics;
use crate::secrets::{self, EnvSecrets};
use crate::store::{EventStore, StoreError};
use crate::tokens::Keys;
use actix_web::web;
use flicker_platform::hosted::Hosted;
use std::sync::Arc;

/// Shared state of the server.
pub struct AppState {
    /// The event store.
    pub store: Arc<dyn EventStore>,
    /// JWT keys.
    pub keys: Keys,
    /// accounts read for token checks, kept briefly.
    pub accounts: crate::accounts::AccountCache,
    /// failed-login counts and their waits.
    pub login_throttle: crate::login_throttle::LoginThrottle,
    /// how many passwords were checked against a hash (a real or the dummy one), so
    /// that tests see that an unknown name costs a hash too.
    pub password_checks: std::sync::atomic::AtomicU64,
    /// `FLICKER_METRICS_TOKEN` (at least 16 bytes); `None`: `/metrics` is off.
    pub metrics_token: Option<String>,
    /// Every replay-signing public key to publish at `GET /api/v1/keys/replay`: the current
    /// one first, then rotated-out ones (replays they signed still verify against them).
    pub replay_keys: Vec<secrets::PublishedKey>,
    /// The table cache of The Final Flicker (its practice tables and every gathering circle).
    pub tables: Tables,
    /// The table cache of Let's Call the Exorcist (practice tables).
    pub exorcist_tables: GameTables<Exorcist>,
    /// Which game each table plays ([`crate::game::with_game!`] dispatches on it).
    pub table_games: TableGames,
    /// Metrics.
    pub metrics: Metrics,
    /// The gathering cache.
    pub gatherings: crate::gatherings::GatheringCache,
    /// The table driver (clocks, bots, gathering triggers).
    pub driver: crate::driver_state::Driver,
    /// The key that registering an organiser needs (`X-Organiser-Key`; at least 16 bytes,
    /// compared in constant time).
    pub organiser_key: String,
    /// The stream id of every event appended (by any process on the store), for live streams.
    pub changes: tokio::sync::broadcast::Sender<String>,
    /// the Ed25519 key that signs replay exports (its public half is served at
    /// `GET /api/v1/keys/replay`).
    pub signing_key: ed25519_dalek::SigningKey,
    /// The server clock (deadlines, windows, delays): [`crate::clock::SystemClock`] in
    /// production, a test clock in tests.
    pub clock: crate::clock::SharedClock,
    /// The driver reads the whole log at start instead of resuming from its last checkpoint
    /// ([`crate::config::Config::driver_full_catchup`]).
    pub driver_full_catchup: bool,
    /// Open spectator streams per table and gathering (the live lists' counts).
    pub watchers: std::sync::Arc<crate::watchers::Watchers>,
    /// Which live tables and gatherings this process drives when several share the store
    /// ([`crate::store::leases`]); a sole process holds them all.
    pub leases: crate::store::leases::Leases,
}

/// Builds the shared state on an open store, with the secrets of the environment
/// ([`EnvSecrets::from_env`]).
#[cfg(test)]
pub async fn state(store: Arc<dyn EventStore>) -> Result<web::Data<AppState>, StoreError> {
    state_with_clock(store, Arc::new(crate::clock::SystemClock)).await
}

/// [`state`] with the server clock `clock` (tests pass a test clock).
#[cfg(test)]
pub async fn state_with_clock(
    store: Arc<dyn EventStore>,
    clock: crate::clock::SharedClock,
) -> Result<web::Data<AppState>, StoreError> {
    build(store, &EnvSecrets::from_env(), clock).await
}

/// Builds the shared state on an open store with the secrets `env` (secrets come from
/// `env` or the store's `secrets` table, never the event log; a key shorter than
/// [`crate::secrets::MIN_KEY_BYTES`] is a start-up error).
pub async fn state_with(store: Arc<dyn EventStore>, env: &EnvSecrets) -> Result<web::Data<AppState>, StoreError> {
    build(store, env, Arc::new(crate::clock::SystemClock)).await
}

pub(crate) async fn build(
    store: Arc<dyn EventStore>,
    env: &EnvSecrets,
    clock: crate::clock::SharedClock,
) -> Result<web::Data<AppState>, StoreError> {
    if let Some(t) = &env.metrics {
        secrets::check_length("FLICKER_METRICS_TOKEN", t)?;
    }
    let (jwt, jwt_previous) = secrets::jwt(store.as_ref(), env).await?;
    let organiser_key = secrets::organiser(store.as_ref(), env).await?;
    let (signing_key, replay_keys) = secrets::signing(store.as_ref(), env).await?;
    Ok(web::Data::new(AppState {
        store,
        keys: Keys::new(&jwt, &jwt_previous),
        accounts: Default::default(),
        login_throttle: Default::default(),
        password_checks: Default::default(),
        metrics_token: env.metrics.clone(),
        replay_keys,
        tables: Tables::with_clock(clock.clone()),
        exorcist_tables: GameTables::with_clock(clock.clone()),
        table_games: TableGames::default(),
        metrics: Metrics::new(),
        gatherings: Default::default(),
        driver: Default::default(),
        organiser_key,
        changes: tokio::sync::broadcast::channel(4096).0,
        signing_key,
        clock,
        driver_full_catchup: false,
        watchers: Default::default(),
        leases: crate::store::leases::Leases::sole(),
    }))
}

/// A game this server hosts: its built-in bots ([`Hosted`]), its name, and its tables in the
/// server's state.
pub trait ServedGame: Hosted + Sized {
    /// The game's name on the wire and in its tables' creation events.
    const NAME: GameName;
    /// The cache and command runner of this game's tables.
    fn tables(state: &AppState) -> &GameTables<Self>;
    /// An event's stored type (`{"type": …}` of its adjacently tagged form: a stream message's
    /// `event:`).
    fn event_type(e: &Self::Event) -> String {
        match serde_json::to_value(e) {
            Ok(serde_json::Value::Object(mut o)) => match o.remove("type") {
                Some(serde_json::Value::String(t)) => t,
                _ => "event".into(),
            },
            _ => "event".into(),
        }
    }
    /// Whether the game has a position notation ([`ServedGame::position`]).
    const POSITIONS: bool = false;
    /// R10.13: the position of `state` in the game's own notation, the whole state (`whole`)
    /// or as `viewer` may see it, as text and as JSON; `None` for a game without positions.
    fn position(
        _state: &Self::State,
        _viewer: flicker_game::Viewer,
        _whole: bool,
    ) -> Option<(String, serde_json::Value)> {
        None
    }
}

impl ServedGame for Served {
    const NAME: GameName = GameName::TheFinalFlicker;
    const POSITIONS: bool = true;
    fn tables(state: &AppState) -> &GameTables<Self> {
        &state.tables
    }
    fn event_type(e: &Self::Event) -> String {
        e.type_name().to_string()
    }
    fn position(state: &Self::State, viewer: flicker_game::Viewer, whole: bool) -> Option<(String, serde_json::Value)> {
        Some(crate::game::position(state, viewer, whole))
    }
}

impl ServedGame for Exorcist {
    const NAME: GameName = GameName::LetsCallTheExorcist;
    fn tables(state: &AppState) -> &GameTables<Self> {
        &state.exorcist_tables
    }
}
