//! Operations: health, readiness, metrics (`/healthz`, `/readyz`, `/metrics`).

use super::*;

/// Liveness.
#[utoipa::path(tag = "operations", responses((status = 200, description = "the process is up")))]
#[get("/healthz")]
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok().json(serde_json::json!({"status": "ok"}))
}

/// Readiness: the event store answers and accepts writes (not while it is full,
/// [`crate::store::EventStore::writable`]), and the table driver drives every live table (it
/// has caught up with the log since the start and no store outage is open). 503
/// `not-ready` with `Retry-After` otherwise.
#[utoipa::path(tag = "operations", responses((status = 200, description = "ready"), (status = 503, body = Problem)))]
#[get("/readyz")]
pub async fn readyz(state: Data) -> HttpResponse {
    let not_ready = |why: String| {
        let p = Problem::new(StatusCode::SERVICE_UNAVAILABLE, "not-ready", "Not ready", why)
            .retry_after(crate::problem::STORAGE_FULL_RETRY_SECS);
        actix_web::ResponseError::error_response(&p)
    };
    if !state.driver.ready() {
        return not_ready("the table driver is catching up with the event log or the event store is failing".into());
    }
    let store = async {
        state.store.ping().await?;
        state.store.writable().await
    };
    let probe = tokio::time::timeout(std::time::Duration::from_secs(2), store).await;
    match probe.unwrap_or_else(|_| Err(crate::store::StoreError::Other("no answer within 2 s".into()))) {
        Ok(()) if !state.driver.ready() => not_ready("the table driver is catching up with the event log".into()),
        Ok(()) => HttpResponse::Ok().json(serde_json::json!({"status": "ready", "store": state.store.kind()})),
        Err(e) => not_ready(format!("event store: {e}")),
    }
}

/// Prometheus metrics (operators only: bearer `FLICKER_METRICS_TOKEN`, at least 16 bytes,
/// compared in constant time).
#[utoipa::path(tag = "operations", responses((status = 200, content_type = "text/plain", body = String), (status = 401, body = Problem), (status = 403, body = Problem)))]
#[get("/metrics")]
pub async fn metrics(state: Data, req: HttpRequest) -> Result<HttpResponse, Problem> {
    // Request counts and timings could show when hidden answers arrive (R10.6.4), so metrics
    // are for operators only: `Authorization: Bearer <FLICKER_METRICS_TOKEN>`.
    let Some(token) = &state.metrics_token else {
        return Err(Problem::forbidden("metrics are disabled: set FLICKER_METRICS_TOKEN on the server"));
    };
    let given = req
        .headers()
        .get(actix_web::http::header::AUTHORIZATION)
        .and_then(|v| v.as_bytes().strip_prefix(b"Bearer "))
        .unwrap_or_default();
    if !same_secret(given, token.as_bytes()) {
        return Err(Problem::unauthenticated("metrics need 'Authorization: Bearer <FLICKER_METRICS_TOKEN>'"));
    }
    Ok(HttpResponse::Ok().content_type("text/plain; version=0.0.4").body({
        state.metrics.leases_held.set(i64::try_from(state.leases.held_count()).unwrap_or(i64::MAX));
        state.metrics.render()
    }))
}

/// Registers this group's routes (each route is listed here once; the OpenAPI document is
/// collected from the same calls).
pub(super) fn routes(cfg: &mut ServiceConfig) {
    cfg.service(healthz).service(readyz).service(metrics);
}
