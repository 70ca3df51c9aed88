//! Operations: the OpenAPI document and its docs page, health, readiness, metrics.

use super::*;
use reqwest::StatusCode;
use serde_json::Value;

/// The OpenAPI document, the docs UI (no outside assets), health, readiness and metrics.
#[test]
fn docs_health_and_metrics_are_served() {
    let s = Server::start();
    let c = client();
    let spec: Value = c.get(s.url("/openapi.json")).send().unwrap().json().unwrap();
    assert!(spec["openapi"].as_str().unwrap().starts_with("3.1"));
    assert!(spec["paths"]["/api/v1/tables/{id}/answers"]["post"].is_object());
    let docs = c.get(s.url("/docs/")).send().unwrap();
    assert_eq!(docs.status(), StatusCode::OK);
    let html = docs.text().unwrap();
    assert!(html.contains("swagger"), "{html}");
    for tag in html.split("src=").skip(1) {
        let src = tag.trim_start_matches(['"', '\'']);
        assert!(!src.starts_with("http"), "the docs page loads {src} from outside");
    }
    assert_eq!(c.get(s.url("/healthz")).send().unwrap().status(), StatusCode::OK);
    assert_eq!(c.get(s.url("/readyz")).send().unwrap().status(), StatusCode::OK);
    // Metrics are for operators only (request counts and timings could show hidden answers).
    assert_eq!(c.get(s.url("/metrics")).send().unwrap().status(), StatusCode::UNAUTHORIZED);
    let m = c.get(s.url("/metrics")).bearer_auth(METRICS_TOKEN).send().unwrap().text().unwrap();
    assert!(m.contains("flicker_http_requests_total"), "{m}");
}
