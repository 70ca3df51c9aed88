//! `flicker simulate`: random playouts with figures (games/s, mean turns, wins by seat, the
//! longest game) and invariant checks.

use flicker_engine::pool::MAX_PLAYERS;
use flicker_engine::replay::write_replay;
use flicker_engine::settings::{MIN_ROUND_LIMIT, SaltWindow, Settings};
use flicker_engine::sim::{Policy, play};
use rand::rngs::ChaCha8Rng;
use rand::{Rng, SeedableRng};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// Arguments of `flicker simulate`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Players per table, 2 to 64 (R0.2).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u8).range(2..=MAX_PLAYERS as i64))]
    players: u8,
    /// Number of games (at least 1).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..))]
    games: u32,
    /// Seed of the ChaCha generators, so that runs repeat. Without it, the OS generator seeds them
    /// (the seed used is printed on the first line of the output).
    #[arg(long)]
    seed: Option<u64>,
    /// Re-verify every invariant after every event (slower; the speed figure is then not comparable).
    #[arg(long)]
    check: bool,
    /// Form of the Salt windows (R10.6.6).
    #[arg(long, value_enum, default_value = "simultaneous")]
    salt_window: WindowArg,
    /// The bot policy that plays every seat.
    #[arg(long, value_enum, default_value = "random")]
    bot: BotArg,
    /// Rounds before the Guttering, at least 10 (R7.9.2).
    #[arg(long, default_value_t = 40, value_parser = clap::value_parser!(u16).range(MIN_ROUND_LIMIT as i64..))]
    round_limit: u16,
    /// Write the replay (JSON Lines) of the longest game to this file.
    #[arg(long)]
    export: Option<PathBuf>,
    /// Write the replay of the first failing game to this file.
    #[arg(long, default_value = "failure.jsonl")]
    failure_export: PathBuf,
}

#[derive(clap::ValueEnum, Debug, Clone, Copy)]
enum BotArg {
    /// Uniform within each prompt's constraints.
    Random,
    /// Simple sensible play from the seat's own view.
    Heuristic,
}

#[derive(clap::ValueEnum, Debug, Clone, Copy)]
enum WindowArg {
    Simultaneous,
    Sequential,
}

pub fn run(a: Args) -> ExitCode {
    let mut settings = Settings::new(a.players);
    settings.round_limit = a.round_limit;
    settings.salt_window = match a.salt_window {
        WindowArg::Simultaneous => SaltWindow::Simultaneous,
        WindowArg::Sequential => SaltWindow::Sequential,
    };
    if let Err(e) = flicker_engine::create(&settings, &mut ChaCha8Rng::seed_from_u64(0)) {
        eprintln!("error: {e}");
        return ExitCode::FAILURE;
    }
    let seed = a.seed.unwrap_or_else(|| rand::rngs::SysRng.try_next_u64_or_random());
    println!(
        "simulate: {} players, {} games, bot policy {:?}, seed {seed}, salt window {:?}, round limit {}{} (repeat with --seed {seed})",
        a.players,
        a.games,
        a.bot,
        settings.salt_window,
        settings.round_limit,
        if a.check { ", --check" } else { "" }
    );
    let mut master = ChaCha8Rng::seed_from_u64(seed);
    let n = a.players as usize;
    let mut wins = vec![0u32; n];
    let mut no_winner = 0u32;
    let mut guttered = 0u32;
    let (mut turns_total, mut commands_total, mut events_total) = (0u64, 0u64, 0u64);
    let mut longest: Option<(u32, u32, Vec<flicker_engine::Event>)> = None;
    let mut failures = 0u32;
    let started = Instant::now();
    let progress_every = (a.games / 10).max(1);
    for g in 0..a.games {
        let mut table = ChaCha8Rng::seed_from_u64(master.next_u64());
        let mut bot = ChaCha8Rng::seed_from_u64(master.next_u64());
        let policy = match a.bot {
            BotArg::Random => Policy::Random,
            BotArg::Heuristic => Policy::Heuristic,
        };
        match play(&settings, &[policy], &mut table, &mut bot, a.check, 1_000_000) {
            Ok(p) => {
                turns_total += p.turns as u64;
                commands_total += p.commands as u64;
                events_total += p.events.len() as u64;
                let r = p.state.result().expect("finished");
                match r.winner {
                    Some(w) => wins[w as usize] += 1,
                    None => no_winner += 1,
                }
                if r.reason == flicker_engine::EndReason::Guttered {
                    guttered += 1;
                }
                if longest.as_ref().is_none_or(|(t, _, _)| p.turns > *t) {
                    longest = Some((p.turns, g, if a.export.is_some() { p.events } else { Vec::new() }));
                }
            }
            Err(e) => {
                failures += 1;
                eprintln!("INVARIANT FAILURE in game {g}: {e}");
                if failures == 1 {
                    match std::fs::File::create(&a.failure_export)
                        .and_then(|f| write_replay(std::io::BufWriter::new(f), &e.events))
                    {
                        Ok(()) => eprintln!("  replay of the failing game written to {}", a.failure_export.display()),
                        Err(err) => {
                            eprintln!("  could not write {}: {err}", a.failure_export.display())
                        }
                    }
                }
            }
        }
        if a.games >= 1000 && (g + 1) % progress_every == 0 {
            eprintln!("  {} / {} games", g + 1, a.games);
        }
    }
    let secs = started.elapsed().as_secs_f64();
    let ok = (a.games - failures).max(1) as f64;
    println!(
        "games/s:          {:.0}{}",
        a.games as f64 / secs,
        if a.check { " (with --check: not a speed figure)" } else { "" }
    );
    println!("elapsed:          {secs:.2} s");
    println!("mean turns:       {:.1}", turns_total as f64 / ok);
    println!("mean commands:    {:.1}", commands_total as f64 / ok);
    println!("mean events:      {:.1}", events_total as f64 / ok);
    if let Some((t, g, _)) = &longest {
        println!("longest game:     {t} turns (game {g})");
    }
    println!("ended by Guttering: {guttered}; no winner: {no_winner}");
    println!("wins by seat:");
    for (s, w) in wins.iter().enumerate() {
        println!("  seat {s}: {w} ({:.1}%)", 100.0 * *w as f64 / ok);
    }
    if let (Some(path), Some((_, _, events))) = (&a.export, &longest) {
        match std::fs::File::create(path).and_then(|f| write_replay(std::io::BufWriter::new(f), events)) {
            Ok(()) => println!("replay of the longest game written to {}", path.display()),
            Err(e) => {
                eprintln!("could not write {}: {e}", path.display());
                return ExitCode::FAILURE;
            }
        }
    }
    println!("invariant failures: {failures}");
    if failures > 0 { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}

trait SeedFromOs {
    fn try_next_u64_or_random(self) -> u64;
}

impl SeedFromOs for rand::rngs::SysRng {
    fn try_next_u64_or_random(mut self) -> u64 {
        use rand::TryRng;
        self.try_next_u64().unwrap_or_else(|_| rand::rng().next_u64())
    }
}
