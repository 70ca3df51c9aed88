//! The PostgreSQL ceiling a load run is set against: `pgbench` with a custom script of one
//! durable single-row INSERT per transaction into a scratch table, run on the load run's own
//! database right after it (same cluster, same machine, same moment), so Flicker's commands per
//! second can be read as a share of what the database commits at most with one row per commit.

use serde::Serialize;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

/// What a ceiling run is asked to do.
#[derive(Debug, Clone, Copy)]
pub struct PgbenchPlan {
    /// Client connections.
    pub clients: u32,
    /// Seconds run.
    pub duration: Duration,
}

/// The figures of one `pgbench` run.
#[derive(Debug, Clone, Serialize)]
pub struct PgbenchResult {
    /// Client connections.
    pub clients: u32,
    /// Seconds run.
    pub seconds: u64,
    /// Committed single-row INSERT transactions per second (pgbench's tps, without the
    /// connection time).
    pub tps: f64,
    /// Average transaction latency in milliseconds, as pgbench reports it.
    pub latency_ms: f64,
}

/// The scratch table, created and dropped around the run.
const TABLE: &str = "flicker_bench_pgbench_scratch";

/// `pgbench`: `FLICKER_BENCH_PGBENCH`, else the newest of Debian's
/// `/usr/lib/postgresql/*/bin/pgbench`, else the one on the `PATH`.
fn pgbench_binary() -> PathBuf {
    if let Some(p) = std::env::var_os("FLICKER_BENCH_PGBENCH") {
        return PathBuf::from(p);
    }
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|d| {
            let version = d.file_name().to_string_lossy().parse::<u32>().ok()?;
            let bin = d.path().join("bin/pgbench");
            bin.exists().then_some((version, bin))
        })
        .collect();
    found.sort();
    found.pop().map_or_else(|| PathBuf::from("pgbench"), |(_, p)| p)
}

fn psql_exec(url: &str, sql: &'static str) -> Result<(), String> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| e.to_string())?;
    rt.block_on(async {
        let pool = sqlx::PgPool::connect(url).await.map_err(|e| format!("{url}: {e}"))?;
        let r = sqlx::query(sql).execute(&pool).await.map(|_| ()).map_err(|e| e.to_string());
        pool.close().await;
        r
    })
}

/// Runs `pgbench` against `url` (a database the caller throws away): one INSERT of one row per
/// transaction, `synchronous_commit = on` as Flicker's appends, prepared statements, `clients`
/// connections on 2 threads.
pub fn run(url: &str, plan: PgbenchPlan) -> Result<PgbenchResult, String> {
    psql_exec(
        url,
        "CREATE TABLE IF NOT EXISTS flicker_bench_pgbench_scratch (id BIGSERIAL PRIMARY KEY, client INTEGER NOT NULL, at TIMESTAMPTZ NOT NULL DEFAULT now())",
    )?;
    let dir = std::env::temp_dir().join(format!("flicker-pgbench-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let script = dir.join("insert.sql");
    std::fs::write(&script, format!("INSERT INTO {TABLE} (client) VALUES (:client_id);\n"))
        .map_err(|e| e.to_string())?;
    let bin = pgbench_binary();
    let seconds = plan.duration.as_secs().max(1);
    let out = Command::new(&bin)
        .args(["-n", "-M", "prepared", "-j", "2"])
        .args(["-c", &plan.clients.to_string(), "-T", &seconds.to_string()])
        .arg("-f")
        .arg(&script)
        .arg(url)
        .env("PGOPTIONS", "-c synchronous_commit=on")
        .output();
    let _ = std::fs::remove_dir_all(&dir);
    let _ = psql_exec(url, "DROP TABLE IF EXISTS flicker_bench_pgbench_scratch");
    let out = out.map_err(|e| format!("cannot run {}: {e}", bin.display()))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!("{} failed: {}{}", bin.display(), stdout, String::from_utf8_lossy(&out.stderr)));
    }
    let figure = |prefix: &str| -> Option<f64> {
        stdout.lines().find_map(|l| l.trim().strip_prefix(prefix)?.split_whitespace().next()?.parse().ok())
    };
    let tps = figure("tps = ").ok_or_else(|| format!("no tps in pgbench's output: {stdout}"))?;
    let latency_ms = figure("latency average = ").unwrap_or(0.0);
    Ok(PgbenchResult { clients: plan.clients, seconds, tps, latency_ms })
}
