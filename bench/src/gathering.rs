//! The gathering run: `flicker gathering run --players N` (built-in heuristic bots, classes on)
//! against fresh servers, timed from the command's start to its winner. On PostgreSQL several
//! API processes may share the database: the command talks to the first, and every process
//! drives the tables whose leases it holds.

use crate::server::{ORGANISER_KEY, Server, Storage};
use serde::Serialize;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// The metrics token the bench's servers are started with (to read `/metrics`).
const METRICS_TOKEN: &str = "bench-metrics-token-0123456789";

/// What one API process did during a gathering run.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ProcessFigures {
    /// CPU seconds (user + system) used during the run.
    pub cpu_s: f64,
    /// Peak resident memory (`VmHWM`), bytes.
    pub rss_peak: u64,
    /// Table driver actions this process stored (`flicker_driver_actions_total`, all kinds).
    pub actions: u64,
    /// Driver actions it computed but the store refused because another process had acted
    /// (`flicker_driver_conflicts_total`): work done twice.
    pub conflicts: u64,
}

/// The figures of one gathering run.
#[derive(Debug, Clone, Serialize)]
pub struct GatheringResult {
    /// `"SQLite"` or `"PostgreSQL"`.
    pub storage: String,
    /// Players.
    pub players: usize,
    /// Seconds from the command's start (registration included) to the winner.
    pub wall_s: f64,
    /// Server CPU seconds used meanwhile (all API processes).
    pub server_cpu_s: f64,
    /// CPU seconds of the PostgreSQL server's processes meanwhile (PostgreSQL runs only).
    pub database_cpu_s: Option<f64>,
    /// Each API process.
    pub processes: Vec<ProcessFigures>,
    /// Stages, e.g. `"125 circles of 8"` lines as the command printed them.
    pub stages: Vec<String>,
    /// The winner line.
    pub winner: String,
    /// Tables played.
    pub tables: usize,
    /// Events stored (all streams).
    pub events: u64,
}

impl GatheringResult {
    /// Server CPU milliseconds per player.
    pub fn cpu_ms_per_player(&self) -> f64 {
        self.server_cpu_s * 1000.0 / self.players.max(1) as f64
    }

    /// The largest process's peak memory per 1,000 players, MiB.
    pub fn peak_mib_per_1000(&self) -> f64 {
        let peak = self.processes.iter().map(|p| p.rss_peak).max().unwrap_or(0);
        peak as f64 / 1024.0 / 1024.0 / (self.players.max(1) as f64 / 1000.0)
    }
}

/// A counter's total over its labels in a Prometheus text exposition.
fn counter(text: &str, name: &str) -> u64 {
    text.lines()
        .filter(|l| l.starts_with(name) && l[name.len()..].starts_with(['{', ' ']))
        .filter_map(|l| l.rsplit_once(' ')?.1.parse::<f64>().ok())
        .sum::<f64>() as u64
}

fn driver_counts(base: &str) -> (u64, u64) {
    let text = reqwest::blocking::Client::new()
        .get(format!("{base}/metrics"))
        .bearer_auth(METRICS_TOKEN)
        .send()
        .and_then(|r| r.text())
        .unwrap_or_default();
    (counter(&text, "flicker_driver_actions_total"), counter(&text, "flicker_driver_conflicts_total"))
}

/// CPU seconds used so far by the processes named `postgres` on this machine (the throwaway
/// cluster's server and backends).
fn postgres_cpu_seconds() -> f64 {
    let Ok(dir) = std::fs::read_dir("/proc") else { return 0.0 };
    dir.filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| std::fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|c| c.trim() == "postgres"))
        .map(crate::server::cpu_seconds)
        .sum()
}

/// Runs the gathering on `processes` API processes (1 on SQLite, which one process serves) and
/// returns its figures. Fails when the command fails or names no winner.
pub fn run(flicker: &Path, storage: &Storage, players: usize, processes: usize) -> Result<GatheringResult, String> {
    if processes == 0 || (processes > 1 && matches!(storage, Storage::Sqlite(_))) {
        return Err("SQLite is served by one process: --processes 1 (use --storage postgres for more)".into());
    }
    let env = [("FLICKER_METRICS_TOKEN", METRICS_TOKEN)];
    let servers =
        (0..processes).map(|_| Server::start_with(flicker, storage, &env)).collect::<Result<Vec<_>, String>>()?;
    let cpu0: Vec<f64> = servers.iter().map(Server::cpu_seconds).collect();
    let pg0 = matches!(storage, Storage::Postgres(_)).then(postgres_cpu_seconds);
    let t0 = Instant::now();
    let out = Command::new(flicker)
        .args([
            "gathering",
            "run",
            "--players",
            &players.to_string(),
            "--bots",
            "heuristic",
            "--server",
            &servers[0].base,
        ])
        .env("FLICKER_ORGANISER_KEY", ORGANISER_KEY)
        .output()
        .map_err(|e| e.to_string())?;
    let wall_s = t0.elapsed().as_secs_f64();
    let database_cpu_s = pg0.map(|c| postgres_cpu_seconds() - c);
    let figures: Vec<ProcessFigures> = servers
        .iter()
        .zip(&cpu0)
        .map(|(s, c0)| {
            let (actions, conflicts) = driver_counts(&s.base);
            ProcessFigures { cpu_s: s.cpu_seconds() - c0, rss_peak: s.rss_peak_bytes(), actions, conflicts }
        })
        .collect();
    for s in servers {
        s.stop();
    }
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    if !out.status.success() {
        return Err(format!("flicker gathering run failed: {}\n{text}", String::from_utf8_lossy(&out.stderr)));
    }
    let winner = text.lines().find(|l| l.starts_with("winner:")).ok_or("no winner line")?.to_string();
    if winner.contains("none") {
        return Err(format!("the gathering ended without a winner: {winner}"));
    }
    let stages = text.lines().filter(|l| l.starts_with("stage ")).map(str::to_string).collect();
    // The bracket prints a window of each stage's circles and how many more there are.
    let more: usize = text
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("... and ")?.split_whitespace().next()?.parse::<usize>().ok())
        .sum();
    let tables = text.lines().filter(|l| l.trim_start().starts_with("circle ")).count() + more;
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| e.to_string())?;
    let (events, _, _) = rt.block_on(crate::storage_size(storage))?;
    Ok(GatheringResult {
        storage: storage.label().to_string(),
        players,
        wall_s,
        server_cpu_s: figures.iter().map(|p| p.cpu_s).sum(),
        database_cpu_s,
        processes: figures,
        stages,
        winner,
        tables,
        events,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn counters_sum_over_labels() {
        let text = "# HELP flicker_driver_actions_total x\n\
                    flicker_driver_actions_total{kind=\"bot_chain\"} 12\n\
                    flicker_driver_actions_total{kind=\"clock\"} 3\n\
                    flicker_driver_actions_totalx 100\n";
        assert_eq!(super::counter(text, "flicker_driver_actions_total"), 15);
    }
}
