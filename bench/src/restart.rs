//! The restart run: how long a restarted server takes to drive its live tables
//! again, against the size of its store. A fresh store gets a few live tables through the API,
//! then `N` events of finished history (tables created and ended, inserted straight into the
//! database with the server down); the server is then started twice and timed from its start
//! to `/readyz` 200 (which waits for the driver to catch up): once with
//! `FLICKER_DRIVER_FULL_CATCHUP=1`, which reads the whole log as the driver did before
//! checkpoints, and once normally, from the checkpoint the first start wrote.

use crate::server::{ORGANISER_KEY, Server, Storage};
use serde::Serialize;
use std::path::Path;
use std::time::Instant;

/// The figures of one store size.
#[derive(Debug, Clone, Serialize)]
pub struct RestartResult {
    /// `SQLite` or `PostgreSQL`.
    pub storage: &'static str,
    /// Events in the store.
    pub events: u64,
    /// Live tables the driver resumes.
    pub live_tables: usize,
    /// Seconds from the start to ready, reading the whole log (the driver before checkpoints).
    pub full_s: f64,
    /// Server CPU seconds of that start.
    pub full_cpu_s: f64,
    /// Seconds from the start to ready, from the last checkpoint.
    pub checkpoint_s: f64,
    /// Server CPU seconds of that start.
    pub checkpoint_cpu_s: f64,
}

/// Live 2-player tables created before the history.
const LIVE_TABLES: usize = 20;

/// Creates the live tables (two accounts, long clocks).
fn live_tables(server: &Server) -> Result<(), String> {
    use flicker_client::routes;
    use flicker_client::types::{Clocks, CreateTableBody, RegisterBody, Role};
    let api = flicker_client::blocking::Client::new(&server.base);
    let mut tokens = Vec::new();
    for _ in 0..2 {
        let name = format!("r{}", &uuid::Uuid::new_v4().simple().to_string()[..12]);
        let body = RegisterBody { name: name.clone(), password: "password-1".to_string(), role: Role::Player };
        api.send(routes::register(&body, None)).map_err(|e| e.to_string())?;
        tokens.push(api.send(routes::login(&name, "password-1")).map_err(|e| e.to_string())?.access_token);
    }
    let creator = api.with_token(&tokens[0]);
    for _ in 0..LIVE_TABLES {
        let body = CreateTableBody {
            players: 2,
            clocks: Some(Clocks { decision_secs: 86400, reaction_secs: 86400 }),
            ..CreateTableBody::default()
        };
        let id = creator.send(routes::create_table(&body)).map_err(|e| e.to_string())?.table.table_id;
        for t in &tokens {
            api.with_token(t).send(routes::take_seat(&id, None)).map_err(|e| e.to_string())?;
        }
        creator.send(routes::start_table(&id)).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Inserts `n` events of finished tables (50 events each: `table_created`, 48 answers,
/// `game_ended`) with payloads and metadata of a typical size.
async fn history(storage: &Storage, n: u64) -> Result<(), String> {
    let e = |e: sqlx::Error| e.to_string();
    let run = uuid::Uuid::new_v4().simple().to_string();
    let row = |i: u64| {
        let v = i % 50 + 1;
        let t = match v {
            1 => "table_created",
            50 => "game_ended",
            _ => "filler_answered",
        };
        let payload = format!(
            r#"{{"seat":{},"prompt":{i},"answer":{{"kind":"play","card":{{"suit":"candle","rank":{}}}}}}}"#,
            i % 4,
            i % 13
        );
        let meta = format!(r#"{{"actor":"bot:b{}","correlation_id":"{run}-{i}"}}"#, i % 4);
        (format!("table-hist-{run}-{}", i / 50), v as i64, t, payload, meta)
    };
    const CHUNK: u64 = 500;
    match storage {
        Storage::Sqlite(path) => {
            let opts = sqlx::sqlite::SqliteConnectOptions::new().filename(path);
            let pool = sqlx::SqlitePool::connect_with(opts).await.map_err(e)?;
            let mut tx = pool.begin().await.map_err(e)?;
            for start in (0..n).step_by(CHUNK as usize) {
                let mut q = sqlx::QueryBuilder::new(
                    "INSERT INTO events (stream_id, stream_version, event_type, schema_version, payload, metadata, recorded_at) ",
                );
                q.push_values(start..(start + CHUNK).min(n), |mut b, i| {
                    let (s, v, t, p, m) = row(i);
                    b.push_bind(s)
                        .push_bind(v)
                        .push_bind(t)
                        .push_bind(1)
                        .push_bind(p)
                        .push_bind(m)
                        .push_bind("2026-01-01T00:00:00Z");
                });
                q.build().execute(&mut *tx).await.map_err(e)?;
            }
            tx.commit().await.map_err(e)?;
            pool.close().await;
        }
        Storage::Postgres(url) => {
            let pool = sqlx::PgPool::connect(url).await.map_err(e)?;
            let mut tx = pool.begin().await.map_err(e)?;
            for start in (0..n).step_by(CHUNK as usize) {
                let mut q = sqlx::QueryBuilder::new(
                    "INSERT INTO events (stream_id, stream_version, event_type, schema_version, payload, metadata, recorded_at) ",
                );
                q.push_values(start..(start + CHUNK).min(n), |mut b, i| {
                    let (s, v, t, p, m) = row(i);
                    let p: serde_json::Value = serde_json::from_str(&p).unwrap_or_default();
                    let m: serde_json::Value = serde_json::from_str(&m).unwrap_or_default();
                    b.push_bind(s)
                        .push_bind(v)
                        .push_bind(t)
                        .push_bind(1)
                        .push_bind(p)
                        .push_bind(m)
                        .push_bind(chrono::Utc::now());
                });
                q.build().execute(&mut *tx).await.map_err(e)?;
            }
            tx.commit().await.map_err(e)?;
            pool.close().await;
        }
    }
    Ok(())
}

/// Starts the server with `env`, returns (seconds to ready, server CPU seconds), and stops it.
fn timed_start(flicker: &Path, storage: &Storage, env: &[(&str, &str)]) -> Result<(f64, f64), String> {
    let t0 = Instant::now();
    let server = Server::start_with(flicker, storage, env)?;
    let wall = t0.elapsed().as_secs_f64();
    let cpu = server.cpu_seconds();
    server.stop();
    Ok((wall, cpu))
}

/// Runs one store size on `storage` (fresh).
pub fn run(flicker: &Path, storage: &Storage, events: u64) -> Result<RestartResult, String> {
    let server = Server::start(flicker, storage)?;
    live_tables(&server)?;
    server.stop();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| e.to_string())?;
    rt.block_on(history(storage, events))?;
    let (total, _, _) = rt.block_on(crate::storage_size(storage))?;
    // The first start reads the whole log (no checkpoint covers the history) and writes one.
    let (full_s, full_cpu_s) = timed_start(flicker, storage, &[("FLICKER_DRIVER_FULL_CATCHUP", "1")])?;
    let (checkpoint_s, checkpoint_cpu_s) = timed_start(flicker, storage, &[])?;
    let _ = ORGANISER_KEY;
    Ok(RestartResult {
        storage: storage.label(),
        events: total,
        live_tables: LIVE_TABLES,
        full_s,
        full_cpu_s,
        checkpoint_s,
        checkpoint_cpu_s,
    })
}

/// The figures as a Markdown table.
pub fn table(rs: &[RestartResult]) -> String {
    let mut s = String::from(
        "| store | events | live tables | start to ready, whole log | CPU | start to ready, from checkpoint | CPU |\n|---|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in rs {
        s += &format!(
            "| {} | {} | {} | {:.2} s | {:.2} s | {:.2} s | {:.2} s |\n",
            r.storage, r.events, r.live_tables, r.full_s, r.full_cpu_s, r.checkpoint_s, r.checkpoint_cpu_s
        );
    }
    s
}
