//! `flicker-bench`: Flicker's benchmark runner.
//!
//! - `flicker-bench load`: N tables played at once over loopback HTTP by bot clients against the
//!   real `flicker` binary, on SQLite or PostgreSQL; prints commands per second (wall and per
//!   server CPU second), command latency p50/p95/p99, memory per table and bytes per event.
//! - `flicker-bench gathering`: wall time of an N-player bot gathering from start to winner.
//! - `flicker-bench restart`: start-to-ready time of a restarted server against its store's size
//!   (reading the whole log, and from the driver's checkpoint).
//! - `flicker-bench all`: both for the standard sizes, plus the engine's criterion figures, as
//!   one table on stdout and in `docs/benchmarks.md`. `bench/run.sh` builds everything, starts a
//!   throwaway PostgreSQL and runs this.
//! - `flicker-bench engine [--write]`: the engines' criterion figures alone (The Final Flicker's
//!   and the Exorcist's), spliced into `docs/benchmarks.md` with `--write` (`bench/engine.sh`).
//!
//! Figures are reported, never asserted.

mod gathering;
mod load;
mod pgbench;
mod report;
mod restart;
mod roster;
mod server;

use clap::{Parser, Subcommand};
use server::Storage;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Parser, Debug)]
#[command(name = "flicker-bench", about = "Flicker's benchmarks: HTTP load, gathering wall time, the report")]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(clap::Args, Debug, Clone)]
struct Common {
    /// The `flicker` binary to measure (build it with `cargo build --release`).
    #[arg(long, default_value = "target/release/flicker")]
    flicker: PathBuf,
    /// A PostgreSQL URL with the right to create databases (e.g.
    /// `postgres://postgres@127.0.0.1:5432/postgres`); each run gets a fresh database, dropped
    /// afterwards.
    #[arg(long, env = "FLICKER_BENCH_POSTGRES_URL")]
    postgres: Option<String>,
}

#[derive(clap::Args, Debug, Clone)]
struct LoadArgs {
    /// Seats per table.
    #[arg(long, default_value_t = 4)]
    players: u8,
    /// Seconds of play before measuring.
    #[arg(long, default_value_t = 5)]
    warmup: u64,
    /// Seconds measured.
    #[arg(long, default_value_t = 20)]
    duration: u64,
    /// Seconds of `pgbench` (one durable single-row INSERT per transaction) on the database of
    /// each PostgreSQL run that is not paced, right after it: the ceiling beside Flicker's
    /// figure (0: skip it).
    #[arg(long, default_value_t = 10)]
    pgbench_seconds: u64,
    /// `pgbench` client connections.
    #[arg(long, default_value_t = 32)]
    pgbench_clients: u32,
}

/// The paced run of `all`: latency at the target load (1,300 commands/s at 200
/// tables).
const PACED: (usize, f64) = (200, 1300.0);

#[derive(Subcommand, Debug)]
enum Cmd {
    /// N tables at once over HTTP on one storage.
    Load {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        load: LoadArgs,
        /// Tables in play at once.
        #[arg(long, default_value_t = 200)]
        tables: usize,
        /// `sqlite` or `postgres`.
        #[arg(long, default_value = "sqlite")]
        storage: String,
        /// Offered commands per second over all tables (default: as fast as answered).
        #[arg(long)]
        rate: Option<f64>,
    },
    /// An N-player bot gathering from start to winner, on SQLite or on PostgreSQL with one or
    /// more API processes.
    Gathering {
        #[command(flatten)]
        common: Common,
        /// Players.
        #[arg(long, default_value_t = 1000)]
        players: usize,
        /// `sqlite` or `postgres`.
        #[arg(long, default_value = "sqlite")]
        storage: String,
        /// API processes sharing the store (PostgreSQL only for more than 1).
        #[arg(long, default_value_t = 1)]
        processes: usize,
    },
    /// N existing accounts registered in one gathering with one roster request.
    Roster {
        #[command(flatten)]
        common: Common,
        /// Accounts.
        #[arg(long, default_value_t = 10_000)]
        players: usize,
        /// `sqlite` or `postgres`.
        #[arg(long, default_value = "sqlite")]
        storage: String,
    },
    /// Start-to-ready time of a restarted server against the store's size.
    Restart {
        #[command(flatten)]
        common: Common,
        /// Events of history, comma-separated.
        #[arg(long, default_value = "100000,1000000", value_delimiter = ',')]
        events: Vec<u64>,
        /// Storages to run, comma-separated (`sqlite`, `postgres`; PostgreSQL needs --postgres).
        #[arg(long, default_value = "sqlite,postgres", value_delimiter = ',')]
        storage: Vec<String>,
    },
    /// Everything, as one table; also written to `--out`.
    All {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        load: LoadArgs,
        /// Table counts to run, comma-separated.
        #[arg(long, default_value = "100,200,1000", value_delimiter = ',')]
        tables: Vec<usize>,
        /// Players of the gathering runs on SQLite, comma-separated (0: skip them).
        #[arg(long, default_value = "1000,10000", value_delimiter = ',')]
        gathering_players: Vec<usize>,
        /// Players of the gathering run on PostgreSQL with `--gathering-processes` API
        /// processes (0: skip it).
        #[arg(long, default_value_t = 10_000)]
        gathering_postgres_players: usize,
        /// API processes of the PostgreSQL gathering run.
        #[arg(long, default_value_t = 2)]
        gathering_processes: usize,
        /// Criterion's output folder (from `cargo bench -p final-flicker`).
        #[arg(long, default_value = "target/criterion")]
        criterion: PathBuf,
        /// The Markdown report to write.
        #[arg(long, default_value = "docs/benchmarks.md")]
        out: PathBuf,
    },
    /// The engines' criterion figures alone: printed, and with `--write` spliced into the
    /// engine section of `--out` (the other sections are left as they are).
    Engine {
        /// Criterion's output folder (from `cargo bench -p final-flicker` and
        /// `cargo bench -p flicker-lab --bench exorcist`).
        #[arg(long, default_value = "target/criterion")]
        criterion: PathBuf,
        /// The Markdown report whose engine section `--write` replaces.
        #[arg(long, default_value = "docs/benchmarks.md")]
        out: PathBuf,
        /// Replace the engine section of `--out`.
        #[arg(long)]
        write: bool,
    },
}

/// Events stored, their bytes on disk (indexes included) and their JSON bytes (payload +
/// metadata).
pub async fn storage_size(storage: &Storage) -> Result<(u64, u64, u64), String> {
    let e = |e: sqlx::Error| e.to_string();
    match storage {
        Storage::Sqlite(path) => {
            use sqlx::sqlite::SqliteConnectOptions;
            let opts = SqliteConnectOptions::new().filename(path);
            let pool = sqlx::SqlitePool::connect_with(opts).await.map_err(e)?;
            sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)").execute(&pool).await.map_err(e)?;
            let (count, json): (i64, i64) =
                sqlx::query_as("SELECT count(*), coalesce(sum(length(payload) + length(metadata)), 0) FROM events")
                    .fetch_one(&pool)
                    .await
                    .map_err(e)?;
            // The bytes the table and its indexes take (every stream's events are in `events`;
            // accounts and gatherings are streams too).
            let pages: i64 = sqlx::query_scalar("PRAGMA page_count").fetch_one(&pool).await.map_err(e)?;
            let size: i64 = sqlx::query_scalar("PRAGMA page_size").fetch_one(&pool).await.map_err(e)?;
            pool.close().await;
            Ok((count as u64, (pages * size) as u64, json as u64))
        }
        Storage::Postgres(url) => {
            let pool = sqlx::PgPool::connect(url).await.map_err(e)?;
            let (count, disk, json): (i64, i64, i64) = sqlx::query_as(
                "SELECT count(*)::bigint, pg_total_relation_size('events')::bigint, \
                 coalesce(sum(octet_length(payload::text) + octet_length(metadata::text)), 0)::bigint FROM events",
            )
            .fetch_one(&pool)
            .await
            .map_err(e)?;
            pool.close().await;
            Ok((count as u64, disk as u64, json as u64))
        }
    }
}

/// A fresh storage for one run: a SQLite file in a new temporary folder, or a new PostgreSQL
/// database created through `admin`.
fn fresh(kind: &str, admin: Option<&str>) -> Result<Storage, String> {
    let tag = uuid::Uuid::new_v4().simple().to_string();
    match kind {
        "sqlite" => {
            let dir = std::env::temp_dir().join(format!("flicker-bench-{tag}"));
            std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
            Ok(Storage::Sqlite(dir.join("flicker.db")))
        }
        "postgres" => {
            let admin = admin.ok_or("PostgreSQL runs need --postgres URL (or FLICKER_BENCH_POSTGRES_URL)")?;
            let name = format!("flicker_bench_{}", &tag[..12]);
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| e.to_string())?;
            rt.block_on(async {
                let pool = sqlx::PgPool::connect(admin).await.map_err(|e| format!("{admin}: {e}"))?;
                sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
                    .execute(&pool)
                    .await
                    .map_err(|e| e.to_string())?;
                pool.close().await;
                Ok::<_, String>(())
            })?;
            let (base, _) = admin.rsplit_once('/').ok_or("the PostgreSQL URL names no database")?;
            Ok(Storage::Postgres(format!("{base}/{name}")))
        }
        other => Err(format!("unknown storage '{other}' (sqlite or postgres)")),
    }
}

/// Removes a run's storage.
fn discard(storage: &Storage, admin: Option<&str>) {
    match storage {
        Storage::Sqlite(p) => {
            if let Some(dir) = p.parent() {
                let _ = std::fs::remove_dir_all(dir);
            }
        }
        Storage::Postgres(url) => {
            let (Some(admin), Some((_, name))) = (admin, url.rsplit_once('/')) else { return };
            let Ok(rt) = tokio::runtime::Builder::new_current_thread().enable_all().build() else { return };
            rt.block_on(async {
                if let Ok(pool) = sqlx::PgPool::connect(admin).await {
                    let _ = sqlx::query(sqlx::AssertSqlSafe(format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")))
                        .execute(&pool)
                        .await;
                    pool.close().await;
                }
            });
        }
    }
}

fn load_once(
    common: &Common,
    l: &LoadArgs,
    tables: usize,
    rate: Option<f64>,
    kind: &str,
) -> Result<load::LoadResult, String> {
    let storage = fresh(kind, common.postgres.as_deref())?;
    let pace = rate.map(|r| format!(", offering {r:.0} commands/s")).unwrap_or_default();
    eprintln!("load: {tables} tables on {}{pace}", storage.label());
    let plan = load::LoadPlan {
        tables,
        players: l.players,
        warmup: Duration::from_secs(l.warmup),
        duration: Duration::from_secs(l.duration),
        rate,
    };
    let mut r = load::run(&common.flicker, &storage, &plan);
    if let (Ok(r), Storage::Postgres(url), None, 1..) = (&mut r, &storage, rate, l.pgbench_seconds) {
        let plan =
            pgbench::PgbenchPlan { clients: l.pgbench_clients, duration: Duration::from_secs(l.pgbench_seconds) };
        eprintln!(
            "  pgbench: {} clients, {} s of single-row INSERTs on the same database ...",
            plan.clients, l.pgbench_seconds
        );
        match pgbench::run(url, plan) {
            Ok(p) => r.pgbench = Some(p),
            Err(e) => eprintln!("  pgbench failed, no ceiling reported: {e}"),
        }
    }
    discard(&storage, common.postgres.as_deref());
    r
}

fn run(cli: Cli) -> Result<(), String> {
    match cli.command {
        Cmd::Load { common, load, tables, storage, rate } => {
            let r = load_once(&common, &load, tables, rate, &storage)?;
            println!("{}", report::load_table(std::slice::from_ref(&r)));
            if let Some(t) = report::ceiling_table(&[r]) {
                println!("{t}");
            }
        }
        Cmd::Gathering { common, players, storage, processes } => {
            let st = fresh(&storage, common.postgres.as_deref())?;
            eprintln!("gathering: {players} players on {} ({processes} API process(es))", st.label());
            let r = gathering::run(&common.flicker, &st, players, processes);
            discard(&st, common.postgres.as_deref());
            println!("{}", report::gathering_table(&[r?]));
        }
        Cmd::Roster { common, players, storage } => {
            let st = fresh(&storage, common.postgres.as_deref())?;
            eprintln!("roster: {players} accounts on {}", st.label());
            let r = roster::run(&common.flicker, &st, players);
            discard(&st, common.postgres.as_deref());
            println!("{}", roster::table(&[r?]));
        }
        Cmd::Engine { criterion, out, write } => {
            let section = report::engine_section(&report::engine_figures(&criterion));
            println!("{section}");
            if write {
                let doc = std::fs::read_to_string(&out).map_err(|e| format!("{}: {e}", out.display()))?;
                let doc = report::splice_engine(&doc, &section, &server::machine())
                    .ok_or_else(|| format!("{} has no `## Engine` section: run bench/run.sh", out.display()))?;
                std::fs::write(&out, doc).map_err(|e| format!("{}: {e}", out.display()))?;
                eprintln!("engine section written to {}", out.display());
            }
        }
        Cmd::Restart { common, events, storage } => {
            let mut rs = Vec::new();
            for kind in &storage {
                for &n in &events {
                    let st = fresh(kind, common.postgres.as_deref())?;
                    eprintln!("restart: {n} events on {}", st.label());
                    let r = restart::run(&common.flicker, &st, n);
                    discard(&st, common.postgres.as_deref());
                    let r = r?;
                    eprintln!("{}", restart::table(std::slice::from_ref(&r)));
                    rs.push(r);
                }
            }
            println!("{}", restart::table(&rs));
        }
        Cmd::All {
            common,
            load,
            tables,
            gathering_players,
            gathering_postgres_players,
            gathering_processes,
            criterion,
            out,
        } => {
            let machine = server::machine();
            eprintln!("machine: {machine}");
            let engine = report::engine_figures(&criterion);
            let mut loads = Vec::new();
            for kind in ["sqlite", "postgres"] {
                if kind == "postgres" && common.postgres.is_none() {
                    return Err("`all` runs PostgreSQL too: pass --postgres URL (bench/run.sh starts one)".into());
                }
                let runs = tables.iter().map(|&n| (n, None)).chain([(PACED.0, Some(PACED.1))]);
                for (n, rate) in runs {
                    let r = load_once(&common, &load, n, rate, kind)?;
                    eprintln!("{}", report::load_table(std::slice::from_ref(&r)));
                    loads.push(r);
                }
            }
            let mut g = Vec::new();
            let runs = gathering_players.iter().filter(|&&n| n > 0).map(|&n| ("sqlite", n, 1));
            let pg = (gathering_postgres_players > 0).then_some((
                "postgres",
                gathering_postgres_players,
                gathering_processes,
            ));
            for (kind, players, processes) in runs.chain(pg) {
                let storage = fresh(kind, common.postgres.as_deref())?;
                eprintln!("gathering: {players} players on {} ({processes} API process(es))", storage.label());
                let r = gathering::run(&common.flicker, &storage, players, processes);
                discard(&storage, common.postgres.as_deref());
                let r = r?;
                eprintln!("{}", report::gathering_table(std::slice::from_ref(&r)));
                g.push(r);
            }
            let mut rosters = Vec::new();
            for kind in ["sqlite", "postgres"] {
                let storage = fresh(kind, common.postgres.as_deref())?;
                eprintln!("roster: 10000 accounts on {}", storage.label());
                let r = roster::run(&common.flicker, &storage, 10_000);
                discard(&storage, common.postgres.as_deref());
                rosters.push(r?);
            }
            let mut doc = report::document(&machine, &engine, &loads, &g, &load);
            doc.push_str(&format!(
                "\n## Registering a roster\n\n10,000 existing accounts registered in one gathering with one \
                 `POST /api/v1/gatherings/{{id}}/roster` (the accounts are written into the store beforehand).\n\n{}",
                roster::table(&rosters)
            ));
            println!("{doc}");
            if let Some(dir) = out.parent() {
                std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
            }
            std::fs::write(&out, &doc).map_err(|e| format!("{}: {e}", out.display()))?;
            eprintln!("written to {}", out.display());
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
