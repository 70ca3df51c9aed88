//! The HTTP server: app state, routes, problem mapping, metrics, logs.

use crate::auth::Keys;
use crate::metrics::Metrics;
use crate::problem;
use crate::problem::Problem;
use crate::store::{EventStore, Metadata, NewEvent, StoreError};
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
    /// The table cache.
    pub tables: Tables,
    /// Metrics.
    pub metrics: Metrics,
    /// The gathering cache.
    pub gatherings: crate::gatherings::GatheringCache,
    /// The table driver (clocks, bots, gathering triggers).
    pub driver: crate::driver::Driver,
    /// The key that registering an organiser needs (`X-Organiser-Key`).
    pub organiser_key: String,
    /// The stream id of every event appended (by any process on the store), for live streams.
    pub changes: tokio::sync::broadcast::Sender<String>,
    /// Issue 6: the Ed25519 key that signs replay exports (its public half is served at
    /// `GET /api/v1/keys/replay`).
    pub signing_key: ed25519_dalek::SigningKey,
    /// The server clock (deadlines, windows, delays): [`crate::clock::SystemClock`] in
    /// production, a test clock in tests.
    pub clock: crate::clock::SharedClock,
}

/// The organiser key: `FLICKER_ORGANISER_KEY` if set, else one generated once and kept in the
/// store's `system-organiser-key` stream (shared by every process on one database).
async fn organiser_key(store: &dyn EventStore) -> Result<String, StoreError> {
    if let Ok(k) = std::env::var("FLICKER_ORGANISER_KEY")
        && !k.is_empty()
    {
        return Ok(k);
    }
    let stream = "system-organiser-key";
    for _ in 0..3 {
        if let Some(e) = store.read_stream(stream, 1).await?.first() {
            return Ok(e.payload["organiser_key"].as_str().unwrap_or_default().to_string());
        }
        let key: String = (0..32).map(|_| format!("{:x}", rand::random::<u8>() & 0xf)).collect();
        let ev = NewEvent {
            event_type: "organiser_key_generated".into(),
            schema_version: 1,
            payload: serde_json::json!({ "organiser_key": key }),
            metadata: Metadata { actor: Some("system".into()), ..Default::default() },
        };
        match store.append(stream, 0, vec![ev]).await {
            Ok(_) | Err(StoreError::Conflict { .. }) => continue,
            Err(e) => return Err(e),
        }
    }
    Err(StoreError::Other("could not establish the organiser key".into()))
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

/// The JWT secret: `FLICKER_JWT_SECRET` if set, else one generated once and kept in the store's
/// `system-keys` stream, so that every process on one database and every restart share it.
async fn jwt_secret(store: &dyn EventStore) -> Result<Vec<u8>, StoreError> {
    if let Ok(s) = std::env::var("FLICKER_JWT_SECRET") {
        if s.len() >= 32 {
            return Ok(s.into_bytes());
        }
        tracing::warn!("FLICKER_JWT_SECRET is shorter than 32 bytes; using the stored secret instead");
    }
    let stream = "system-keys";
    for _ in 0..3 {
        if let Some(e) = store.read_stream(stream, 1).await?.first() {
            let hex = e.payload["jwt_secret"].as_str().unwrap_or_default();
            return Ok(hex.as_bytes().to_vec());
        }
        let secret: String = (0..64).map(|_| format!("{:x}", rand::random::<u8>() & 0xf)).collect();
        let ev = NewEvent {
            event_type: "jwt_secret_generated".into(),
            schema_version: 1,
            payload: serde_json::json!({ "jwt_secret": secret }),
            metadata: Metadata { actor: Some("system".into()), ..Default::default() },
        };
        match store.append(stream, 0, vec![ev]).await {
            Ok(_) | Err(StoreError::Conflict { .. }) => continue,
            Err(e) => return Err(e),
        }
    }
    Err(StoreError::Other("could not establish the JWT secret".into()))
}

/// Issue 6: the Ed25519 key that signs replay exports: `FLICKER_SIGNING_KEY` (its 32-byte seed
/// as 64 hex digits) if set, else one generated once and kept in the store's
/// `system-signing-key` stream, so that every process on one database and every restart sign
/// with the same key. A malformed `FLICKER_SIGNING_KEY` is an error (not silently replaced).
async fn signing_key(store: &dyn EventStore) -> Result<ed25519_dalek::SigningKey, StoreError> {
    if let Ok(s) = std::env::var("FLICKER_SIGNING_KEY")
        && !s.is_empty()
    {
        return crate::chain::parse_signing_key(&s).map_err(|m| StoreError::Other(format!("FLICKER_SIGNING_KEY: {m}")));
    }
    let stream = "system-signing-key";
    for _ in 0..3 {
        if let Some(e) = store.read_stream(stream, 1).await?.first() {
            let seed = e.payload["seed"].as_str().unwrap_or_default();
            return crate::chain::parse_signing_key(seed)
                .map_err(|m| StoreError::Other(format!("the stored signing key: {m}")));
        }
        let key = crate::chain::generate_signing_key();
        let ev = NewEvent {
            event_type: "replay_signing_key_generated".into(),
            schema_version: 1,
            payload: serde_json::json!({
                "algorithm": "ed25519",
                "seed": hex::encode(key.to_bytes()),
                "public_key": hex::encode(key.verifying_key().as_bytes()),
            }),
            metadata: Metadata { actor: Some("system".into()), ..Default::default() },
        };
        match store.append(stream, 0, vec![ev]).await {
            Ok(_) | Err(StoreError::Conflict { .. }) => continue,
            Err(e) => return Err(e),
        }
    }
    Err(StoreError::Other("could not establish the replay signing key".into()))
}

/// Builds the shared state on an open store.
pub async fn state(store: Arc<dyn EventStore>) -> Result<web::Data<AppState>, StoreError> {
    state_with_clock(store, Arc::new(crate::clock::SystemClock)).await
}

/// [`state`] with the server clock `clock` (tests pass a test clock).
pub async fn state_with_clock(
    store: Arc<dyn EventStore>,
    clock: crate::clock::SharedClock,
) -> Result<web::Data<AppState>, StoreError> {
    let secret = jwt_secret(store.as_ref()).await?;
    let organiser_key = organiser_key(store.as_ref()).await?;
    let signing_key = signing_key(store.as_ref()).await?;
    Ok(web::Data::new(AppState {
        store,
        keys: Keys::from_secret(&secret),
        tables: Tables::with_clock(clock.clone()),
        metrics: Metrics::new(),
        gatherings: Default::default(),
        driver: Default::default(),
        organiser_key,
        changes: tokio::sync::broadcast::channel(4096).0,
        signing_key,
        clock,
    }))
}

/// Configures the app's routes.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.app_data(web::JsonConfig::default().limit(64 * 1024).error_handler(problem::json_error))
        .app_data(web::QueryConfig::default().error_handler(problem::query_error))
        .app_data(web::PathConfig::default().error_handler(problem::path_error))
        .service(routes::register)
        .service(routes::login)
        .service(routes::refresh)
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
        .service(gathering_routes::withdraw)
        .service(gathering_routes::add_bots)
        .service(gathering_routes::get_bracket)
        .service(gathering_routes::get_circles)
        .service(gathering_routes::get_standings)
        .service(gathering_routes::control)
        .service(streams::table_stream)
        .service(streams::gathering_stream)
        .service(routes::replay_at)
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

/// Serves until the process is stopped.
pub async fn serve(addr: &str, database_url: &str) -> std::io::Result<()> {
    let store = crate::store::open(database_url)
        .await
        .map_err(|e| std::io::Error::other(format!("opening the event store: {e}")))?;
    let data = state(store.clone()).await.map_err(|e| std::io::Error::other(e.to_string()))?;
    crate::driver::spawn(data.clone());
    if std::env::var("FLICKER_ORGANISER_KEY").map_or(true, |k| k.is_empty())
        && let Some(path) = organiser_key_file(database_url)
    {
        write_private(&path, &data.organiser_key)
            .map_err(|e| std::io::Error::other(format!("writing {}: {e}", path.display())))?;
        println!("flicker: organiser key in {} (or set FLICKER_ORGANISER_KEY)", path.display());
    }
    let limits = std::sync::Arc::new(crate::ratelimit::Limits::from_env().map_err(std::io::Error::other)?);
    {
        let limits = limits.clone();
        actix_web::rt::spawn(async move {
            loop {
                tokio::time::sleep(std::time::Duration::from_secs(60)).await;
                limits.forget_idle();
            }
        });
    }
    let server = HttpServer::new(move || {
        let data = data.clone();
        let limits = limits.clone();
        App::new()
            .app_data(data.clone())
            .wrap_fn(move |req, srv| {
                // Issue 8: per-token, then per-address rate limits (health probes exempt).
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
                    data.metrics
                        .durations
                        .with_label_values(&[&method, &route])
                        .observe(started.elapsed().as_secs_f64());
                    tracing::info!(%method, %route, %status, ms = started.elapsed().as_millis() as u64, "request");
                    Ok(res.map_into_left_body())
                }
                .boxed_local();
                futures_util::future::Either::Right(fut)
            })
            .configure(configure)
    })
    .bind(addr)
    .map_err(|e| std::io::Error::other(format!("listening on {addr}: {e}")))?;
    for a in server.addrs() {
        println!("flicker: serving on http://{a} (API docs at http://{a}/docs/), event store: {}", store.kind());
    }
    server.run().await
}

/// Writes `content` to `path`, readable by its owner only.
fn write_private(path: &std::path::Path, content: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
    opts.open(path)?.write_all(content.as_bytes())
}
