//! The HTTP server: app state, routes, problem mapping, metrics, logs.

use crate::auth::Keys;
use crate::config::Config;
use crate::metrics::Metrics;
use crate::problem;
use crate::problem::Problem;
use crate::secrets::{self, EnvSecrets};
use crate::store::{EventStore, StoreError};
use crate::tables::Tables;
use crate::{gathering_routes, routes, streams};
use actix_web::dev::Service;
use actix_web::{App, HttpResponse, HttpServer, web};
use futures_util::FutureExt;
use std::sync::Arc;
use std::time::Instant;
use utoipa::OpenApi;
use utoipa_swagger_ui::SwaggerUi;

/// Shared state of the server.
pub struct AppState {
    /// The event store.
    pub store: Arc<dyn EventStore>,
    /// JWT keys.
    pub keys: Keys,
    /// Accounts read for token checks, kept briefly.
    pub accounts: crate::accounts::AccountCache,
    /// Failed-login counts and their waits.
    pub login_throttle: crate::login_throttle::LoginThrottle,
    /// How many passwords were checked against a hash (a real or the dummy one), so
    /// that tests see that an unknown name costs a hash too.
    pub password_checks: std::sync::atomic::AtomicU64,
    /// `FLICKER_METRICS_TOKEN` (at least 16 bytes); `None`: `/metrics` is off.
    pub metrics_token: Option<String>,
    /// Every replay-signing public key to publish at `GET /api/v1/keys/replay`: the current
    /// one first, then rotated-out ones (replays they signed still verify against them).
    pub replay_keys: Vec<secrets::PublishedKey>,
    /// The table cache.
    pub tables: Tables,
    /// Metrics.
    pub metrics: Metrics,
    /// The gathering cache.
    pub gatherings: crate::gatherings::GatheringCache,
    /// The table driver (clocks, bots, gathering triggers).
    pub driver: crate::driver::Driver,
    /// The key that registering an organiser needs (`X-Organiser-Key`; at least 16 bytes,
    /// compared in constant time).
    pub organiser_key: String,
    /// The stream id of every event appended (by any process on the store), for live streams.
    pub changes: tokio::sync::broadcast::Sender<String>,
    /// The Ed25519 key that signs replay exports (its public half is served at
    /// `GET /api/v1/keys/replay`).
    pub signing_key: ed25519_dalek::SigningKey,
    /// The server clock (deadlines, windows, delays): [`crate::clock::SystemClock`] in
    /// production, a test clock in tests.
    pub clock: crate::clock::SharedClock,
    /// The driver reads the whole log at start instead of resuming from its last checkpoint
    /// ([`Config::driver_full_catchup`]).
    pub driver_full_catchup: bool,
}

/// Where the server writes its generated organiser key for local tools: beside the SQLite file
/// (`flicker.db` -> `flicker.db.organiser-key`); `None` for PostgreSQL.
pub fn organiser_key_file(database_url: &str) -> Option<std::path::PathBuf> {
    if database_url.starts_with("postgres") {
        return None;
    }
    let path =
        database_url.strip_prefix("sqlite://").or_else(|| database_url.strip_prefix("sqlite:")).unwrap_or(database_url);
    Some(std::path::PathBuf::from(format!("{path}.organiser-key")))
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

async fn build(
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
        metrics: Metrics::new(),
        gatherings: Default::default(),
        driver: Default::default(),
        organiser_key,
        changes: tokio::sync::broadcast::channel(4096).0,
        signing_key,
        clock,
        driver_full_catchup: false,
    }))
}

/// The largest request body taken, JSON or not (413 problem documents past it).
pub const BODY_LIMIT: usize = 64 * 1024;

/// Configures the app's routes.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.app_data(web::JsonConfig::default().limit(BODY_LIMIT).error_handler(problem::json_error))
        // Bodies read as bytes (optional JSON bodies: seats, concede, registrations).
        .app_data(web::PayloadConfig::new(BODY_LIMIT))
        .app_data(web::QueryConfig::default().error_handler(problem::query_error))
        .app_data(web::PathConfig::default().error_handler(problem::path_error))
        .service(routes::register)
        .service(routes::login)
        .service(routes::refresh)
        .service(routes::logout)
        .service(routes::issue_bot_token)
        .service(routes::revoke_bot_token)
        .service(routes::create_table)
        .service(routes::get_table)
        .service(routes::take_seat)
        .service(routes::start)
        .service(routes::get_prompt)
        .service(routes::answer)
        .service(routes::concede)
        .service(routes::list_events)
        .service(routes::export_replay)
        .service(routes::replay_key)
        .service(gathering_routes::create_gathering)
        .service(gathering_routes::list_gatherings)
        .service(gathering_routes::get_gathering)
        .service(gathering_routes::configure)
        .service(gathering_routes::register)
        .service(gathering_routes::list_registrations)
        .service(gathering_routes::withdraw)
        .service(gathering_routes::add_bots)
        .service(gathering_routes::get_bracket)
        .service(gathering_routes::get_circles)
        .service(gathering_routes::get_standings)
        .service(gathering_routes::control)
        .service(streams::table_stream)
        .service(streams::gathering_stream)
        .service(routes::replay_at)
        .service(routes::replay_steps)
        .service(routes::healthz)
        .service(routes::readyz)
        .service(routes::metrics)
        .service(SwaggerUi::new("/docs/{_:.*}").url("/openapi.json", crate::openapi::ApiDoc::openapi()))
        .route(
            "/docs",
            web::get()
                .to(|| async { HttpResponse::PermanentRedirect().insert_header(("Location", "/docs/")).finish() }),
        )
        // The web UI: its files, and its page for any other GET outside the API's paths.
        .default_service(web::to(crate::frontend::serve));
}

/// The server, bound to its address and ready to run: the zero2prod pattern, so that tests
/// start it in-process on port 0 and read the port it got.
pub struct Application {
    port: u16,
    server: actix_web::dev::Server,
}

impl Application {
    /// Opens the event store of `config`, reads its secrets, starts the table driver (clocks,
    /// bots, gathering triggers) and binds the HTTP server to `config.addr`, printing where it
    /// serves. A generated organiser key is written beside a SQLite file (see
    /// [`organiser_key_file`]). Runs inside an actix system (`actix_web::rt::System`,
    /// `#[actix_web::test]`): the driver and the rate limiters' sweeper are spawned on it.
    ///
    /// Errors: the store does not open, a secret is too short, the key file cannot be written,
    /// or the address cannot be bound.
    pub async fn build(config: Config) -> std::io::Result<Application> {
        let database_url = config.database_url.as_str();
        let store = crate::store::open(database_url)
            .await
            .map_err(|e| std::io::Error::other(format!("opening the event store: {e}")))?;
        let env = &config.secrets;
        let mut state = build(store.clone(), env, Arc::new(crate::clock::SystemClock))
            .await
            .map_err(|e| std::io::Error::other(e.to_string()))?
            .into_inner();
        Arc::get_mut(&mut state).expect("not shared yet").driver_full_catchup = config.driver_full_catchup;
        let data = web::Data::from(state);
        crate::driver::spawn(data.clone());
        if env.organiser.is_none()
            && let Some(path) = organiser_key_file(database_url)
        {
            write_private(&path, &data.organiser_key)
                .map_err(|e| std::io::Error::other(format!("writing {}: {e}", path.display())))?;
            println!("flicker: organiser key in {} (or set FLICKER_ORGANISER_KEY)", path.display());
        }
        let limits = Arc::new(crate::ratelimit::Limits::from_rates(&config.rates));
        {
            let limits = limits.clone();
            actix_web::rt::spawn(async move {
                loop {
                    tokio::time::sleep(std::time::Duration::from_secs(60)).await;
                    limits.forget_idle();
                }
            });
        }
        let addr = config.addr.as_str();
        let server = HttpServer::new(move || app(data.clone(), limits.clone()))
            .bind(addr)
            .map_err(|e| std::io::Error::other(format!("listening on {addr}: {e}")))?;
        let addrs = server.addrs();
        for a in &addrs {
            println!("flicker: serving on http://{a} (API docs at http://{a}/docs/), event store: {}", store.kind());
        }
        let port = addrs.first().map_or(0, |a| a.port());
        Ok(Application { port, server: server.run() })
    }

    /// The port the server listens on (the one the system picked when `addr` said port 0).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// A handle that stops the server (`stop(true)`: gracefully).
    pub fn handle(&self) -> actix_web::dev::ServerHandle {
        self.server.handle()
    }

    /// Serves until the server is stopped (a signal, or [`Application::handle`]).
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        self.server.await
    }
}

/// The app of one worker: state, rate limits, metrics and request logs, problem documents for
/// every error, and the routes of [`configure`].
fn app(
    data: web::Data<AppState>,
    limits: Arc<crate::ratelimit::Limits>,
) -> App<
    impl actix_web::dev::ServiceFactory<
        actix_web::dev::ServiceRequest,
        Config = (),
        Response = actix_web::dev::ServiceResponse<impl actix_web::body::MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    App::new()
        .app_data(data.clone())
        .wrap_fn(move |req, srv| {
            // Per-token, then per-address rate limits (health probes exempt).
            let path = req.path();
            if path != "/healthz" && path != "/readyz" {
                let token = req
                    .headers()
                    .get(actix_web::http::header::AUTHORIZATION)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|h| h.strip_prefix("Bearer "))
                    .map(str::to_string)
                    .or_else(|| {
                        req.query_string()
                            .split('&')
                            .find_map(|kv| kv.strip_prefix("access_token=").map(str::to_string))
                    });
                let addr = req.peer_addr().map(|a| a.ip());
                if let Err(wait) = limits.check(token.as_deref(), addr) {
                    let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
                    let p = Problem::new(
                        actix_web::http::StatusCode::TOO_MANY_REQUESTS,
                        "rate-limited",
                        "Too many requests",
                        format!("rate limit reached; retry after {secs} s"),
                    );
                    let mut resp = actix_web::ResponseError::error_response(&p);
                    resp.headers_mut().insert(
                        actix_web::http::header::RETRY_AFTER,
                        actix_web::http::header::HeaderValue::from(secs.max(1)),
                    );
                    let res = req.into_response(resp).map_into_right_body();
                    return futures_util::future::Either::Left(futures_util::future::ready(Ok(res)));
                }
            }
            let started = Instant::now();
            let method = req.method().to_string();
            let route = req.match_pattern().unwrap_or_else(|| "unmatched".into());
            let data = data.clone();
            let fut = srv.call(req);
            let fut = async move {
                let res = fut.await?;
                let status = res.status().as_u16().to_string();
                data.metrics.requests.with_label_values(&[&method, &route, &status]).inc();
                data.metrics.durations.with_label_values(&[&method, &route]).observe(started.elapsed().as_secs_f64());
                tracing::info!(%method, %route, %status, ms = started.elapsed().as_millis() as u64, "request");
                Ok(res.map_into_left_body())
            }
            .boxed_local();
            futures_util::future::Either::Right(fut)
        })
        .wrap(problem_errors())
        .configure(configure)
}

/// Every error the app answers is a problem document. Errors that actix answers
/// before or around the handlers (a body over the limit read as bytes: 413 `text/plain`; any
/// other error response without a problem body) are turned into one of a stable `type` for
/// their status, keeping their headers (`Allow`, `Retry-After`...).
pub fn problem_errors<B: 'static>() -> actix_web::middleware::ErrorHandlers<B> {
    actix_web::middleware::ErrorHandlers::new().default_handler(as_problem)
}

fn as_problem<B>(
    res: actix_web::dev::ServiceResponse<B>,
) -> actix_web::Result<actix_web::middleware::ErrorHandlerResponse<B>> {
    use actix_web::http::header::{CONTENT_LENGTH, CONTENT_TYPE};
    use actix_web::middleware::ErrorHandlerResponse;
    let problem_already =
        res.headers().get(CONTENT_TYPE).is_some_and(|v| v.as_bytes().starts_with(b"application/problem+json"));
    if problem_already {
        return Ok(ErrorHandlerResponse::Response(res.map_into_left_body()));
    }
    let status = res.status();
    let detail = res.response().error().map(|e| e.to_string());
    let p = problem::for_status(status, detail);
    let (req, old) = res.into_parts();
    let mut new = actix_web::ResponseError::error_response(&p);
    for (k, v) in old.headers() {
        if k != CONTENT_TYPE && k != CONTENT_LENGTH {
            new.headers_mut().insert(k.clone(), v.clone());
        }
    }
    Ok(ErrorHandlerResponse::Response(actix_web::dev::ServiceResponse::new(req, new).map_into_right_body()))
}

/// Writes `content` to `path`, readable by its owner only (an existing file with a looser mode
/// is tightened first, saying so in the log).
fn write_private(path: &std::path::Path, content: &str) -> std::io::Result<()> {
    use std::io::Write;
    #[cfg(unix)]
    if let Ok(meta) = std::fs::metadata(path) {
        use std::os::unix::fs::PermissionsExt;
        let mode = meta.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
            tracing::warn!(file = %path.display(), was = %format!("{mode:o}"), "the organiser key file was readable or writable by others; made it owner-only (0600)");
        }
    }
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
    opts.open(path)?.write_all(content.as_bytes())
}
