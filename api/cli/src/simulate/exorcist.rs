//! `flicker simulate --game exorcist`: random playouts of *Let's Call the Exorcist* (4 to 8
//! players, X2.1) with the figures of The Final Flicker's simulation (games/s, mean rounds and
//! events, the longest game, wins by seat), the rounds won by each team (X4.2) and, with
//! `--check`, every invariant after every event, fold == state, replay == live and the leak
//! checker for every viewer at every step (X11.1). `--team-table` plays every player count.

use super::{Args, BotArg, DarkModeArg, RulesetArg, WindowArg};
use exorcist::Settings;
use flicker_lab::exorcist::{Policy, play};
use rand::rngs::ChaCha8Rng;
use rand::{Rng, SeedableRng};
use std::process::ExitCode;
use std::time::Instant;

/// The seat range of the game (X2.1).
const SEATS: std::ops::RangeInclusive<u8> = 4..=8;

/// The options of `flicker simulate` that are The Final Flicker's only, given with other values
/// than their defaults: named in the refusal.
fn final_flicker_only(a: &Args) -> Vec<&'static str> {
    let mut v = Vec::new();
    if a.classes {
        v.push("--classes");
    }
    if a.ruleset != RulesetArg::Current {
        v.push("--ruleset");
    }
    if a.dark_mode != DarkModeArg::Standard {
        v.push("--dark-mode");
    }
    if !matches!(a.salt_window, WindowArg::Simultaneous) {
        v.push("--salt-window");
    }
    if a.round_limit != 40 {
        v.push("--round-limit");
    }
    v
}

/// One player count's figures.
#[derive(Default)]
struct Figures {
    players: u8,
    games: u32,
    failures: u32,
    seconds: f64,
    rounds: u64,
    innocent: u64,
    possessed: u64,
    events: u64,
    ties: u32,
    wins: Vec<u32>,
    longest: Option<(u64, u32)>,
    /// The longest game's events, kept when it is to be exported.
    longest_events: Vec<exorcist::Event>,
}

/// Writes the signed replay (format 2, the API's export format; `flicker verify` checks it) of
/// a simulated game.
fn export(
    path: &std::path::Path,
    stream: &str,
    events: &[exorcist::Event],
    key: &ed25519_dalek::SigningKey,
) -> std::io::Result<()> {
    use flicker_game::Game;
    let ruleset = exorcist::Exorcist::current_ruleset();
    let ruleset = final_flicker::settings::RulesetId { id: ruleset.id, version: ruleset.version };
    let chain = flicker_server::chain::chain_of_engine_events::<exorcist::Exorcist>(stream, events);
    let f = std::fs::File::create(path)?;
    flicker_server::chain::write_signed_game(
        std::io::BufWriter::new(f),
        exorcist::Exorcist::GAME_ID,
        stream,
        &ruleset,
        &chain,
        key,
    )
}

fn play_count(a: &Args, players: u8, seed: u64, progress: bool) -> Figures {
    let mut settings = Settings::new(players);
    settings.target = a.target;
    let policy = match a.bot {
        BotArg::Random => Policy::Random,
        BotArg::Heuristic => Policy::Heuristic,
    };
    let mut f = Figures { players, wins: vec![0; players as usize], ..Figures::default() };
    let mut master = ChaCha8Rng::seed_from_u64(seed ^ u64::from(players));
    let started = Instant::now();
    let progress_every = (a.games / 10).max(1);
    for g in 0..a.games {
        let mut table = ChaCha8Rng::seed_from_u64(master.next_u64());
        let mut bot = ChaCha8Rng::seed_from_u64(master.next_u64());
        match play(&settings, &[policy], &mut table, &mut bot, a.check, 1_000_000) {
            Ok(p) => {
                f.games += 1;
                f.events += p.events.len() as u64;
                for h in &p.state.history {
                    f.rounds += 1;
                    match h.winner {
                        exorcist::Role::Innocent => f.innocent += 1,
                        exorcist::Role::Possessed => f.possessed += 1,
                    }
                }
                if let Some(w) = p.state.result.as_ref().and_then(|r| r.winner) {
                    f.wins[w as usize] += 1;
                }
                f.ties += u32::from(p.state.tie.is_some());
                let n = p.events.len() as u64;
                if f.longest.is_none_or(|(m, _)| n > m) {
                    f.longest = Some((n, g));
                    if a.export.is_some() {
                        f.longest_events = p.events;
                    }
                }
            }
            Err(e) => {
                f.failures += 1;
                eprintln!("INVARIANT FAILURE in game {g} at {players} players: {e}");
            }
        }
        if progress && a.games >= 1000 && (g + 1) % progress_every == 0 {
            eprintln!("  {} / {} games", g + 1, a.games);
        }
    }
    f.seconds = started.elapsed().as_secs_f64();
    f
}

fn pct(k: u64, n: u64) -> f64 {
    100.0 * k as f64 / n.max(1) as f64
}

/// Runs `flicker simulate --game exorcist`.
pub fn run(a: Args) -> ExitCode {
    let refused = final_flicker_only(&a);
    if !refused.is_empty() {
        eprintln!(
            "error: {} {} The Final Flicker's only; Let's Call the Exorcist takes --players (4 to 8), --games, --seed, --check, --bot, --target, --team-table and --export",
            refused.join(", "),
            if refused.len() == 1 { "is" } else { "are" }
        );
        return ExitCode::from(2);
    }
    if a.team_table && a.export.is_some() {
        eprintln!("error: --export writes one game: give --players instead of --team-table");
        return ExitCode::from(2);
    }
    if !a.team_table && !SEATS.contains(&a.players) {
        eprintln!(
            "error: X2.1: Let's Call the Exorcist is played by 4 to 8 players, not {} (or give --team-table to play every count)",
            a.players
        );
        return ExitCode::from(2);
    }
    if let Err(e) = exorcist::rules::decide::validate(&{
        let mut s = Settings::new(4);
        s.target = a.target;
        s
    }) {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    let seed = a.seed.unwrap_or_else(|| rand::rng().next_u64());
    let counts: Vec<u8> = if a.team_table { SEATS.collect() } else { vec![a.players] };
    println!(
        "simulate: lets-call-the-exorcist (exorcist v1), {} players, {} games{}, bot policy {:?}, target {}, seed {seed}{} (repeat with --seed {seed})",
        if a.team_table { "4 to 8".to_string() } else { a.players.to_string() },
        a.games,
        if a.team_table { " per count" } else { "" },
        a.bot,
        a.target,
        if a.check { ", --check" } else { "" }
    );
    let mut all = Vec::new();
    for &n in &counts {
        if a.team_table {
            eprintln!("  {n} players…");
        }
        all.push(play_count(&a, n, seed, !a.team_table));
    }
    let failures: u32 = all.iter().map(|f| f.failures).sum();
    if !a.team_table {
        let f = &all[0];
        let ok = f.games.max(1) as f64;
        println!(
            "games/s:          {:.0}{}",
            a.games as f64 / f.seconds,
            if a.check { " (with --check: not a speed figure)" } else { "" }
        );
        println!("elapsed:          {:.2} s", f.seconds);
        println!("mean rounds:      {:.2}", f.rounds as f64 / ok);
        println!("mean events:      {:.1}", f.events as f64 / ok);
        if let Some((n, g)) = f.longest {
            println!("longest game:     {n} events (game {g})");
        }
        println!("mini-game ties:   {} ({:.1}%)", f.ties, 100.0 * f.ties as f64 / ok);
        println!(
            "rounds won:       Innocent {} ({:.1}%), Possessed {} ({:.1}%)",
            f.innocent,
            pct(f.innocent, f.rounds),
            f.possessed,
            pct(f.possessed, f.rounds)
        );
        println!("wins by seat:");
        for (s, w) in f.wins.iter().enumerate() {
            println!("  seat {s}: {w} ({:.1}%)", 100.0 * *w as f64 / ok);
        }
    }
    println!("team table (bot policy {:?}; share of rounds won, X4.2):", a.bot);
    println!(
        "  {:>7} {:>7} {:>8} {:>11} {:>11} {:>10} {:>8}",
        "players", "games", "games/s", "Innocent %", "Possessed %", "rounds/g", "ties %"
    );
    for f in &all {
        println!(
            "  {:>7} {:>7} {:>8.0} {:>10.1}% {:>10.1}% {:>10.2} {:>7.1}%",
            f.players,
            f.games,
            a.games as f64 / f.seconds,
            pct(f.innocent, f.rounds),
            pct(f.possessed, f.rounds),
            f.rounds as f64 / f.games.max(1) as f64,
            pct(u64::from(f.ties), u64::from(f.games))
        );
    }
    if let (Some(path), false) = (&a.export, a.team_table) {
        let f = &all[0];
        let (key, ephemeral) = match &a.signing_key {
            Some(k) => (k.clone(), false),
            None => (flicker_server::chain::generate_signing_key(), true),
        };
        let g = f.longest.map_or(0, |(_, g)| g);
        match export(path, &super::stream_of(seed, g), &f.longest_events, &key) {
            Ok(()) => {
                let public = hex::encode(key.verifying_key().as_bytes());
                println!("replay of the longest game written to {}", path.display());
                println!(
                    "signed with {} Ed25519 key; public key {public}",
                    if ephemeral { "an ephemeral" } else { "the given" }
                );
                println!("verify with: flicker verify {} --public-key {public}", path.display());
            }
            Err(e) => {
                eprintln!("could not write {}: {e}", path.display());
                return ExitCode::FAILURE;
            }
        }
    }
    println!("invariant failures: {failures}");
    if failures > 0 { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}
