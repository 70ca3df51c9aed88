//! The OpenAPI 3.1 document (utoipa), served at `/openapi.json`, with Swagger UI (vendored, no
//! internet needed) at `/docs/`. The committed copy `openapi/openapi.json` is checked for drift.

use crate::{gathering_routes, routes, streams};
use utoipa::OpenApi;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};

/// The API document.
#[derive(OpenApi)]
#[openapi(
    info(title = "Flicker API", description = "REST API of Flicker, the tournament platform for The Final Flicker. Errors are RFC 9457 problem documents (application/problem+json) with a stable `type`."),
    paths(
        routes::register, routes::login, routes::refresh, routes::issue_bot_token, routes::revoke_bot_token,
        routes::create_table, routes::get_table, routes::take_seat, routes::start,
        routes::get_prompt, routes::answer, routes::concede, routes::list_events, routes::export_replay,
        routes::replay_key,
        routes::healthz, routes::readyz, routes::metrics,
        gathering_routes::create_gathering, gathering_routes::list_gatherings, gathering_routes::get_gathering,
        gathering_routes::configure, gathering_routes::register, gathering_routes::withdraw, gathering_routes::add_bots,
        gathering_routes::control, gathering_routes::get_bracket, gathering_routes::get_circles,
        gathering_routes::get_standings,
        streams::table_stream, streams::gathering_stream, routes::replay_at,
    ),
    modifiers(&Security),
    tags(
        (name = "accounts", description = "Accounts, access and refresh tokens, bot tokens"),
        (name = "tables", description = "Tables: single games for practice and testing"),
        (name = "play", description = "Prompts, answers and each viewer's events"),
        (name = "gatherings", description = "Gatherings: registration, circles, stages, the Final Ritual, standings (RULES.md section 9)"),
        (name = "spectators", description = "Live streams (Server-Sent Events) and replays, each redacted for its viewer (R10.8)"),
        (name = "operations", description = "Health, readiness, metrics"),
    )
)]
pub struct ApiDoc;

struct Security;

impl utoipa::Modify for Security {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let c = openapi.components.get_or_insert_with(Default::default);
        c.add_security_scheme(
            "bearer",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).bearer_format("JWT").build()),
        );
    }
}

/// The document as pretty JSON (the committed form).
pub fn json() -> String {
    ApiDoc::openapi().to_pretty_json().expect("openapi json") + "\n"
}

#[cfg(test)]
mod tests {
    /// The committed `openapi/openapi.json` must equal what the code generates. Regenerate it
    /// with `cargo run -- openapi > openapi/openapi.json`.
    #[test]
    fn committed_openapi_matches_the_code() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../openapi/openapi.json");
        let committed = std::fs::read_to_string(path).unwrap_or_default();
        let generated = super::json();
        assert!(
            committed == generated,
            "openapi/openapi.json is stale: run `cargo run -- openapi > openapi/openapi.json` and commit it"
        );
        let v: serde_json::Value = serde_json::from_str(&generated).unwrap();
        assert!(v["openapi"].as_str().unwrap().starts_with("3.1"));
    }
}
