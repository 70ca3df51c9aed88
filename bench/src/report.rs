//! The report: the engine's criterion figures, the load runs and the gathering run as Markdown
//! tables.

use crate::LoadArgs;
use crate::gathering::GatheringResult;
use crate::load::LoadResult;
use serde_json::Value;
use std::fmt::Write;
use std::path::Path;

/// One criterion measurement: its mean time per iteration (ns) and its elements per iteration.
#[derive(Debug, Clone)]
pub struct Estimate {
    /// `group/parameter`, e.g. `random_playout/8`.
    pub id: String,
    /// Mean nanoseconds per iteration.
    pub mean_ns: f64,
    /// Elements per iteration (criterion's throughput), 1 when none.
    pub elements: f64,
}

/// Reads `<criterion>/<group>/<id>/new/{estimates,benchmark}.json` for the engines' benchmarks
/// (`cargo bench -p final-flicker --bench engine`, `cargo bench -p flicker-lab --bench exorcist`).
/// Missing ones are left out (the report says so).
pub fn engine_figures(criterion: &Path) -> Vec<Estimate> {
    let ids = [
        "random_playout/2",
        "random_playout/4",
        "random_playout/8",
        "random_playout_classes/2",
        "random_playout_classes/4",
        "random_playout_classes/8",
        "fold_events/2",
        "fold_events/4",
        "fold_events/8",
        "projection/view_8p_seat",
        "projection/view_8p_spectator",
        "exorcist_random_playout/4",
        "exorcist_random_playout/6",
        "exorcist_random_playout/8",
        "exorcist_heuristic_playout/8",
        "exorcist_fold_events/4",
        "exorcist_fold_events/8",
        "exorcist_projection/view_8p_seat",
        "exorcist_projection/view_8p_spectator",
    ];
    let read = |p: &Path| -> Option<Value> { serde_json::from_str(&std::fs::read_to_string(p).ok()?).ok() };
    ids.iter()
        .filter_map(|id| {
            let dir = criterion.join(id).join("new");
            let est = read(&dir.join("estimates.json"))?;
            let mean_ns = est["mean"]["point_estimate"].as_f64()?;
            let elements =
                read(&dir.join("benchmark.json")).and_then(|b| b["throughput"]["Elements"].as_f64()).unwrap_or(1.0);
            Some(Estimate { id: id.to_string(), mean_ns, elements })
        })
        .collect()
}

fn time(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.1} µs", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

/// The report row of folding a whole `players`-player game (`e`: its fold benchmark).
fn fold_row(players: u8, e: &Estimate) -> String {
    format!(
        "| fold a whole {players}-player game ({:.0} events) | {} | {:.1} M events/s |\n",
        e.elements,
        time(e.mean_ns),
        e.elements / e.mean_ns * 1e3
    )
}

fn engine_table(engine: &[Estimate]) -> String {
    let mut s = String::new();
    if engine.is_empty() {
        return "No criterion figures found: run `cargo bench -p final-flicker --bench engine` first.\n".into();
    }
    let get = |id: &str| engine.iter().find(|e| e.id == id);
    s.push_str("| measure | time | rate (one core) |\n|---|---:|---:|\n");
    for players in [2, 4, 8] {
        for (group, label) in [("random_playout", "without classes"), ("random_playout_classes", "with classes")] {
            if let Some(e) = get(&format!("{group}/{players}")) {
                let _ = writeln!(
                    s,
                    "| complete random game, {players} players, {label} | {} | {:.0} games/s |",
                    time(e.mean_ns),
                    1e9 / e.mean_ns
                );
            }
        }
    }
    for players in [2, 4, 8] {
        if let Some(e) = get(&format!("fold_events/{players}")) {
            s.push_str(&fold_row(players, e));
        }
    }
    for (id, label) in [
        ("projection/view_8p_seat", "one seat's view of a mid-game 8-player state (classes)"),
        ("projection/view_8p_spectator", "a spectator's view of the same state"),
    ] {
        if let Some(e) = get(id) {
            let _ = writeln!(s, "| {label} | {} | {:.0} views/s |", time(e.mean_ns), 1e9 / e.mean_ns);
        }
    }
    s.push_str(&exorcist_table(engine));
    s
}

/// The Exorcist rows of the engine section (a sub-table; none when its benchmark did not run).
fn exorcist_table(engine: &[Estimate]) -> String {
    let get = |id: &str| engine.iter().find(|e| e.id == id);
    let mut rows = String::new();
    for (group, players, label) in [
        ("exorcist_random_playout", 4, "random bots"),
        ("exorcist_random_playout", 6, "random bots"),
        ("exorcist_random_playout", 8, "random bots"),
        ("exorcist_heuristic_playout", 8, "heuristic bots, each reading its seat's view"),
    ] {
        if let Some(e) = get(&format!("{group}/{players}")) {
            let _ = writeln!(
                rows,
                "| complete game to 7 points, {players} players, {label} | {} | {:.0} games/s |",
                time(e.mean_ns),
                1e9 / e.mean_ns
            );
        }
    }
    for players in [4, 8] {
        if let Some(e) = get(&format!("exorcist_fold_events/{players}")) {
            rows.push_str(&fold_row(players, e));
        }
    }
    for (id, label) in [
        ("exorcist_projection/view_8p_seat", "one seat's view of a mid-game 8-player state (with its private log)"),
        ("exorcist_projection/view_8p_spectator", "a spectator's view of the same state"),
    ] {
        if let Some(e) = get(id) {
            let _ = writeln!(rows, "| {label} | {} | {:.0} views/s |", time(e.mean_ns), 1e9 / e.mean_ns);
        }
    }
    if rows.is_empty() {
        return "\nNo Exorcist figures found: run `cargo bench -p flicker-lab --bench exorcist` first.\n".into();
    }
    format!("\n### Let's Call the Exorcist\n\n| measure | time | rate (one core) |\n|---|---:|---:|\n{rows}")
}

/// The engine section alone (`## Engine ...` to the end of its tables), as [`document`] writes it.
pub fn engine_section(engine: &[Estimate]) -> String {
    format!("## Engine (criterion, one core)\n\n{}", engine_table(engine))
}

/// `doc` with its engine section replaced by `section` (from `## Engine` up to the next `## `
/// heading), and a line saying when the engine figures alone were refreshed; `None` when `doc`
/// has no engine section.
pub fn splice_engine(doc: &str, section: &str, machine: &str) -> Option<String> {
    let start = doc.find("## Engine")?;
    let end = doc[start + 2..].find("\n## ").map(|i| start + 2 + i + 1).unwrap_or(doc.len());
    let note = format!(
        "Engine figures refreshed alone by `bench/engine.sh --write` on {} ({machine}); the sections \
         below are from the run named above.\n\n",
        chrono::Utc::now().format("%Y-%m-%d %H:%M UTC")
    );
    Some(format!("{}{section}\n{note}{}", &doc[..start], &doc[end..]))
}

/// The load runs as a Markdown table.
pub fn load_table(loads: &[LoadResult]) -> String {
    let mut s = String::from(
        "| storage | tables | offered | commands/s | commands per server CPU s | server cores busy | client cores busy | p50 ms | p95 ms | p99 ms | max ms | read p99 ms | requests/s | conflicts | errors | retries | games ended |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in loads {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {:.0} | {:.0} | {:.2} | {:.2} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.0} | {} | {} | {} | {} |",
            r.storage,
            r.tables,
            r.offered.map_or("as fast as answered".to_string(), |x| format!("{x:.0}/s")),
            r.commands_per_s,
            r.commands_per_server_cpu_s,
            r.server_cores,
            r.client_cores,
            r.p50_ms,
            r.p95_ms,
            r.p99_ms,
            r.max_ms,
            r.read_p99_ms,
            r.requests_per_s,
            r.conflicts,
            r.errors,
            r.retries,
            r.games_finished
        );
    }
    s
}

/// The PostgreSQL runs beside `pgbench`'s single-row INSERT ceiling on the same database, with
/// Flicker's share of it; `None` when no run has one.
pub fn ceiling_table(loads: &[LoadResult]) -> Option<String> {
    let mut s = String::from("| measure | tables | per second | share of the ceiling |\n|---|---:|---:|---:|\n");
    let mut any = false;
    for r in loads {
        let Some(p) = &r.pgbench else { continue };
        any = true;
        let share = if p.tps > 0.0 { r.commands_per_s / p.tps * 100.0 } else { 0.0 };
        let _ = writeln!(
            s,
            "| Flicker on {}, commands | {} | {:.0} | {share:.0}% |",
            r.storage, r.tables, r.commands_per_s
        );
        let _ = writeln!(
            s,
            "| pgbench single-row INSERT ceiling ({} clients, {} s, same database, after the run; average latency {:.1} ms) | | {:.0} | 100% |",
            p.clients, p.seconds, p.latency_ms, p.tps
        );
    }
    any.then_some(s)
}

fn storage_table(loads: &[LoadResult]) -> String {
    let mut s = String::from(
        "| storage | tables at once | tables opened | server memory at start | at the end | per table opened | events stored | bytes per event on disk | JSON bytes per event |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let mib = |b: u64| format!("{:.0} MiB", b as f64 / 1024.0 / 1024.0);
    for r in loads {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {:.0} KiB | {} | {:.0} | {:.0} |",
            r.storage,
            r.tables,
            r.tables_created,
            mib(r.rss_start),
            mib(r.rss_end),
            r.bytes_per_table / 1024.0,
            r.events,
            r.disk_bytes_per_event,
            r.json_bytes_per_event
        );
    }
    s
}

/// The gathering runs as Markdown tables: one row a run, then one row an API process.
pub fn gathering_table(runs: &[GatheringResult]) -> String {
    let mib = |b: u64| b as f64 / 1024.0 / 1024.0;
    let mut s = String::from(
        "| storage | players | API processes | wall time, start to winner | server CPU | CPU per player | database CPU | tables | events stored | peak server memory | per 1,000 players | stages |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n",
    );
    for g in runs {
        let stages: Vec<String> = g
            .stages
            .iter()
            .map(|l| {
                let (head, sizes) = l.split_once(": ").unwrap_or((l, ""));
                let circles = sizes.split('+').filter(|x| !x.trim().is_empty()).count();
                format!("{head}: {circles} circle{}", if circles == 1 { "" } else { "s" })
            })
            .collect();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {:.1} s | {:.1} s | {:.1} ms | {} | {} | {} | {:.0} MiB | {:.0} MiB | {} |",
            g.storage,
            g.players,
            g.processes.len(),
            g.wall_s,
            g.server_cpu_s,
            g.cpu_ms_per_player(),
            g.database_cpu_s.map_or("-".to_string(), |c| format!("{c:.1} s")),
            g.tables,
            g.events,
            g.processes.iter().map(|p| mib(p.rss_peak)).fold(0.0, f64::max),
            g.peak_mib_per_1000(),
            stages.join("; "),
        );
    }
    let shared: Vec<&GatheringResult> =
        runs.iter().filter(|g| g.processes.len() > 1 || g.database_cpu_s.is_some()).collect();
    if !shared.is_empty() {
        s.push_str(
            "\nEach API process of the runs that share a database: its CPU, the table driver's actions it stored \
             (bot chains, clock actions, auto-passes) and those it computed for nothing (another process had acted \
             first).\n\n| storage | players | process | CPU | actions stored | actions per second | computed twice |\n\
             |---|---:|---:|---:|---:|---:|---:|\n",
        );
        for g in shared {
            for (i, p) in g.processes.iter().enumerate() {
                let _ = writeln!(
                    s,
                    "| {} | {} | {} | {:.1} s | {} | {:.0} | {} |",
                    g.storage,
                    g.players,
                    i + 1,
                    p.cpu_s,
                    p.actions,
                    p.actions as f64 / g.wall_s.max(1e-9),
                    p.conflicts
                );
            }
        }
    }
    for g in runs {
        let _ = writeln!(s, "\n{} players on {}: {}", g.players, g.storage, g.winner);
    }
    s
}

/// The whole report (Markdown).
pub fn document(
    machine: &str,
    engine: &[Estimate],
    loads: &[LoadResult],
    gatherings: &[GatheringResult],
    plan: &LoadArgs,
) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# Benchmarks\n");
    let _ = writeln!(
        s,
        "Written by `bench/run.sh` on {} ({machine}); release build. Figures are reported, never \
         asserted by tests. Where the time goes, and what was changed for it: \
         [performance.md](performance.md).\n",
        chrono::Utc::now().format("%Y-%m-%d %H:%M UTC")
    );
    let _ = writeln!(s, "{}", engine_section(engine));
    let _ = writeln!(
        s,
        "## API over loopback HTTP\n\nN bot clients (one per table, {} seats each, random answers) \
         play through the REST API; each finished game is replaced by a new table. {} s warm-up, {} s \
         measured. A command is an answer that got 200, with its durable append; latency is measured \
         in the client, send to last byte. The client runs on one thread on the same machine, so \
         client and server share the cores.\n\n{}",
        plan.players,
        plan.warmup,
        plan.duration,
        load_table(loads)
    );
    if let Some(t) = ceiling_table(loads) {
        let _ = writeln!(
            s,
            "### PostgreSQL against its ceiling\n\n`pgbench` on each PostgreSQL run's database right after \
             the run: one durable (`synchronous_commit = on`) single-row INSERT per transaction into a \
             scratch table, prepared statements. A Flicker command is one durable append of 2.3 events \
             on average, with its reads and its HTTP round trip.\n\n{t}"
        );
    }
    let _ = writeln!(s, "### Memory and storage\n\n{}", storage_table(loads));
    if !gatherings.is_empty() {
        let _ = writeln!(
            s,
            "## Gatherings\n\nBuilt-in heuristic bots, classes on, started by `flicker gathering run`; wall time from the \
             command's start (registrations included) to its winner. Server CPU is every API process's; database CPU \
             is the PostgreSQL processes' on the same machine. Peak memory is the largest process's `VmHWM`.\n\n{}",
            gathering_table(gatherings)
        );
    }
    s
}
