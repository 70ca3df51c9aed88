//! The HTTP server: routes, problem mapping, metrics, logs. The shared state lives in
//! `state` (re-exported here).

pub use crate::problem::BODY_LIMIT;
pub use crate::state::{AppState, state_with};
#[cfg(test)]
pub use crate::state::{state, state_with_clock};

use crate::config::Config;
use crate::problem;
use crate::problem::Problem;
use crate::routes;
use actix_web::dev::Service;
use actix_web::{App, HttpResponse, HttpServer, web};
use futures_util::FutureExt;
use std::sync::Arc;
use std::time::Instant;
use utoipa_swagger_ui::SwaggerUi;

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

/// Configures the app's routes.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.app_data(web::JsonConfig::default().limit(BODY_LIMIT).error_handler(problem::json_error))
        // Bodies read as bytes (optional JSON bodies: seats, concede, registrations).
        .app_data(web::PayloadConfig::new(BODY_LIMIT))
        .app_data(web::QueryConfig::default().error_handler(problem::query_error))
        .app_data(web::PathConfig::default().error_handler(crate::openapi::path_error));
    // Every route of the API, each listed once in its group (`routes/`).
    routes::register(&mut utoipa_actix_web::service_config::ServiceConfig::new(cfg));
    cfg.service(SwaggerUi::new("/docs/{_:.*}").url("/openapi.json", crate::openapi::document()))
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
        let mut state = crate::state::build(store.clone(), env, Arc::new(crate::clock::SystemClock))
            .await
            .map_err(|e| std::io::Error::other(e.to_string()))?
            .into_inner();
        {
            let s = Arc::get_mut(&mut state).expect("not shared yet");
            s.driver_full_catchup = config.driver_full_catchup;
            // Several processes may share a PostgreSQL store: each drives the tables it leases.
            s.leases = crate::store::leases::Leases::for_store(store.kind(), database_url);
        }
        let data = web::Data::from(state);
        crate::driver::spawn(data.clone());
        if env.organiser.is_none()
            && let Some(path) = organiser_key_file(database_url)
        {
            write_private(&path, &data.organiser_key)
                .map_err(|e| std::io::Error::other(format!("writing {}: {e}", path.display())))?;
            println!("flicker: organiser key in {} (or set FLICKER_ORGANISER_KEY)", path.display());
        } else if env.organiser.is_none() {
            println!(
                "flicker: organiser key: run `flicker organiser-key` with this DATABASE_URL (or set FLICKER_ORGANISER_KEY)"
            );
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
            // Read-your-writes across processes: a request carrying a position this process has
            // not followed yet reads every stream it needs from the database.
            let asked = position_asked(&req).map(str::to_string);
            let behind = asked.as_deref().is_some_and(|p| !data.store.has_followed(p));
            let fut = srv.call(req);
            let fut = async move {
                let mut res = if behind { crate::store::fresh(fut).await? } else { fut.await? };
                if let Some(token) = data.store.position_token(asked.as_deref())
                    && let Ok(v) = actix_web::http::header::HeaderValue::from_str(&token)
                {
                    res.headers_mut().insert(actix_web::http::header::HeaderName::from_static(POSITION_HEADER), v);
                }
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

/// The read-your-writes token (see docs/scaling.md, "Skipping the tail read"): on PostgreSQL,
/// every response carries a token of what this process has committed or shown so far, and a
/// request that sends the latest token it got back is answered by any process as of at least
/// that.
pub const POSITION_HEADER: &str = "flicker-position";

/// The token a request asks to be answered as of ([`POSITION_HEADER`]), if any.
fn position_asked(req: &actix_web::dev::ServiceRequest) -> Option<&str> {
    req.headers().get(POSITION_HEADER)?.to_str().ok()
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
