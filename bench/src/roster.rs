//! The roster run: N existing player accounts (written straight into a fresh store, since
//! creating them over HTTP is bounded by password hashing by design) registered in one
//! gathering with one `POST /api/v1/gatherings/{id}/roster`, timed from the request to its
//! answer.

use crate::server::{ORGANISER_KEY, Server, Storage};
use flicker_client::routes;
use flicker_client::types::{CreateGatheringBody, RegisterBody, Role, RosterBody};
use serde::Serialize;
use std::path::Path;
use std::time::Instant;

/// The figures of one roster run.
#[derive(Debug, Clone, Serialize)]
pub struct RosterResult {
    /// Storage label.
    pub storage: &'static str,
    /// Accounts registered.
    pub players: usize,
    /// Seconds from the request to its answer.
    pub wall_s: f64,
    /// Server CPU seconds meanwhile.
    pub server_cpu_s: f64,
}

/// Writes `n` player accounts (`roster-00001`…, no usable password) into the store.
async fn accounts(storage: &Storage, n: usize) -> Result<Vec<String>, String> {
    let e = |e: sqlx::Error| e.to_string();
    let names: Vec<String> = (1..=n).map(|i| format!("roster-{i:05}")).collect();
    let row = |name: &str| {
        (
            format!("account-{name}"),
            format!(r#"{{"name":"{name}","role":"player","password_hash":""}}"#),
            format!(r#"{{"actor":"{name}"}}"#),
        )
    };
    const CHUNK: usize = 500;
    macro_rules! insert {
        ($pool:expr, $json:expr, $at:expr) => {{
            let mut tx = $pool.begin().await.map_err(e)?;
            for chunk in names.chunks(CHUNK) {
                let mut q = sqlx::QueryBuilder::new(
                    "INSERT INTO events (stream_id, stream_version, event_type, schema_version, payload, metadata, recorded_at) ",
                );
                q.push_values(chunk, |mut b, name| {
                    let (s, p, m) = row(name);
                    b.push_bind(s).push_bind(1i64).push_bind("registered").push_bind(1).push_bind($json(p)).push_bind($json(m)).push_bind($at);
                });
                q.build().execute(&mut *tx).await.map_err(e)?;
            }
            tx.commit().await.map_err(e)?;
            $pool.close().await;
        }};
    }
    match storage {
        Storage::Sqlite(path) => {
            let pool = sqlx::SqlitePool::connect_with(sqlx::sqlite::SqliteConnectOptions::new().filename(path))
                .await
                .map_err(e)?;
            insert!(pool, |s: String| s, "2026-01-01T00:00:00Z");
        }
        Storage::Postgres(url) => {
            let pool = sqlx::PgPool::connect(url).await.map_err(e)?;
            insert!(
                pool,
                |s: String| serde_json::from_str::<serde_json::Value>(&s).unwrap_or_default(),
                chrono::Utc::now()
            );
        }
    }
    Ok(names)
}

/// Runs the roster of `players` accounts and returns its figures; fails unless every one is
/// registered.
pub fn run(flicker: &Path, storage: &Storage, players: usize) -> Result<RosterResult, String> {
    // A first start creates the schema.
    Server::start(flicker, storage)?.stop();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| e.to_string())?;
    let names = rt.block_on(accounts(storage, players))?;
    let server = Server::start(flicker, storage)?;
    let http = flicker_client::blocking::Http::builder()
        .timeout(std::time::Duration::from_secs(120))
        .build()
        .map_err(|e| e.to_string())?;
    let api = flicker_client::blocking::Client::with_http(http, &server.base);
    let org =
        RegisterBody { name: "roster-organiser".into(), password: "bench-password".into(), role: Role::Organiser };
    api.send(routes::register(&org, Some(ORGANISER_KEY))).map_err(|e| e.to_string())?;
    let token = api.send(routes::login(&org.name, &org.password)).map_err(|e| e.to_string())?.access_token;
    let api = api.with_token(&token);
    let g = api
        .send(routes::create_gathering(&CreateGatheringBody {
            name: format!("roster of {players}"),
            settings: None,
            game: None,
        }))
        .map_err(|e| e.to_string())?;
    let cpu0 = server.cpu_seconds();
    let t0 = Instant::now();
    let answer = api.send(routes::roster(&g.gathering_id, &RosterBody { names })).map_err(|e| e.to_string())?;
    let wall_s = t0.elapsed().as_secs_f64();
    let server_cpu_s = server.cpu_seconds() - cpu0;
    let summary = api.send(routes::get_gathering(&g.gathering_id)).map_err(|e| e.to_string())?;
    server.stop();
    if answer.added != players || summary.registered != players {
        return Err(format!(
            "the roster registered {} (the summary says {}), not {players}",
            answer.added, summary.registered
        ));
    }
    Ok(RosterResult { storage: storage.label(), players, wall_s, server_cpu_s })
}

/// The figures as a Markdown table.
pub fn table(rs: &[RosterResult]) -> String {
    let mut s = String::from("| storage | accounts | wall (s) | server CPU (s) |\n|---|---:|---:|---:|\n");
    for r in rs {
        s.push_str(&format!("| {} | {} | {:.2} | {:.2} |\n", r.storage, r.players, r.wall_s, r.server_cpu_s));
    }
    s
}
