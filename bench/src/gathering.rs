//! The gathering run: `flicker gathering run --players N` (built-in heuristic bots) against a
//! fresh server, timed from the command's start to its winner.

use crate::server::{ORGANISER_KEY, Server, Storage};
use serde::Serialize;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// The figures of one gathering run.
#[derive(Debug, Clone, Serialize)]
pub struct GatheringResult {
    /// Players.
    pub players: usize,
    /// Seconds from the command's start (registration included) to the winner.
    pub wall_s: f64,
    /// Server CPU seconds used meanwhile.
    pub server_cpu_s: f64,
    /// Stages, e.g. `"125 circles of 8"` lines as the command printed them.
    pub stages: Vec<String>,
    /// The winner line.
    pub winner: String,
    /// Tables played.
    pub tables: usize,
    /// Events stored (all streams).
    pub events: u64,
    /// Server resident memory at the end, in bytes.
    pub rss_end: u64,
}

/// Runs the gathering and returns its figures. Fails when the command fails or names no winner.
pub fn run(flicker: &Path, storage: &Storage, players: usize) -> Result<GatheringResult, String> {
    let server = Server::start(flicker, storage)?;
    let cpu0 = server.cpu_seconds();
    let t0 = Instant::now();
    let out = Command::new(flicker)
        .args(["gathering", "run", "--players", &players.to_string(), "--bots", "heuristic", "--server", &server.base])
        .env("FLICKER_ORGANISER_KEY", ORGANISER_KEY)
        .output()
        .map_err(|e| e.to_string())?;
    let wall_s = t0.elapsed().as_secs_f64();
    let server_cpu_s = server.cpu_seconds() - cpu0;
    let rss_end = server.rss_bytes();
    server.stop();
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
    Ok(GatheringResult { players, wall_s, server_cpu_s, stages, winner, tables, events, rss_end })
}
