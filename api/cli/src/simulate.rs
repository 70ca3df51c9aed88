//! `flicker simulate`: random playouts with figures (games/s, mean turns, wins by seat, the
//! longest game) and invariant checks; with `--classes`, a class table (games, win rate and
//! mean placing per class, with 95% confidence intervals, labelled with the bot policy). With
//! `--game exorcist`, the second game ([`exorcist`]).

mod exorcist;

use ed25519_dalek::SigningKey;
use final_flicker::pool::MAX_PLAYERS;
use final_flicker::settings::{MIN_ROUND_LIMIT, SaltWindow, Settings};
use flicker_lab::sim::{Policy, play};
use rand::rngs::ChaCha8Rng;
use rand::{Rng, SeedableRng};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Arguments of `flicker simulate`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The game: The Final Flicker, or Let's Call the Exorcist.
    #[arg(long, value_enum, default_value = "the-final-flicker")]
    game: GameArg,
    /// Players per table: 2 to 64 for The Final Flicker (R0.2), 4 to 8 for the Exorcist (X2.1).
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
    /// Write the replay of the longest game to this file: a signed replay (JSON Lines, format 2,
    /// the format of the API's export; `flicker verify` checks it).
    #[arg(long)]
    export: Option<PathBuf>,
    /// Write the replay of the first failing game to this file (signed, like --export).
    #[arg(long, default_value = "failure.jsonl")]
    failure_export: PathBuf,
    /// Ed25519 key that signs the exported replays: its 32-byte seed as 64 hex digits. Without
    /// it, an ephemeral key is generated and its public half printed.
    #[arg(long, value_name = "HEX", value_parser = parse_key)]
    signing_key: Option<SigningKey>,
    /// Play with classes (R2.7 selection by the bots) and print the class table.
    #[arg(long)]
    classes: bool,
    /// R10.11, A1: the ruleset, `current` or `classic-1.0`.
    #[arg(long, value_enum, default_value = "current")]
    ruleset: RulesetArg,
    /// A3.3: `classic-1.0` only: a dead player's ghosts go to The Dark (`standard`) or are split
    /// between the neighbours (`dark`).
    #[arg(long, value_enum, default_value = "standard")]
    dark_mode: DarkModeArg,
    /// X4.5: `--game exorcist` only: the points target, 1 to 30.
    #[arg(long, default_value_t = 7)]
    target: u32,
    /// `--game exorcist` only: play `--games` games at every player count (4 to 8) and print
    /// the team table (rounds won by the Innocents and by the Possessed, X4.2) by count.
    #[arg(long)]
    team_table: bool,
}

/// `--game`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum GameArg {
    /// The Final Flicker (RULES.md).
    #[value(name = "the-final-flicker", alias = "flicker")]
    FinalFlicker,
    /// Let's Call the Exorcist (RULES-exorcist.md).
    #[value(name = "exorcist", alias = "lets-call-the-exorcist")]
    Exorcist,
}

fn parse_key(s: &str) -> Result<SigningKey, String> {
    flicker_server::chain::parse_signing_key(s)
}

/// The stream id a simulated game is exported as (hashed into every event).
fn stream_of(seed: u64, game: u32) -> String {
    format!("simulation-seed-{seed}-game-{game}")
}

/// Writes the signed replay of a simulated game (its events hashed in-process with the store's
/// function, [`flicker_server::chain::chain_of_engine_events`]).
fn export(path: &Path, stream: &str, events: &[final_flicker::Event], key: &SigningKey) -> std::io::Result<()> {
    let ruleset = match events.first() {
        Some(final_flicker::Event::GameCreated(g)) => g.ruleset.clone(),
        _ => final_flicker::settings::RulesetId::current(),
    };
    let chain = flicker_server::chain::chain_of_engine_events::<final_flicker::FinalFlicker>(stream, events);
    let f = std::fs::File::create(path)?;
    flicker_server::chain::write_signed(std::io::BufWriter::new(f), stream, &ruleset, &chain, key)
}

/// Per-class tallies for the class table.
#[derive(Default, Clone)]
struct ClassStats {
    games: u32,
    wins: u32,
    placing_sum: f64,
    placing_sq: f64,
}

/// Wilson score interval for a proportion at 95%.
fn wilson(k: u32, n: u32) -> (f64, f64) {
    if n == 0 {
        return (0.0, 0.0);
    }
    let (z, n, p) = (1.96f64, n as f64, k as f64 / n as f64);
    let d = 1.0 + z * z / n;
    let c = (p + z * z / (2.0 * n)) / d;
    let h = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / d;
    ((c - h).max(0.0), (c + h).min(1.0))
}

fn print_class_table(stats: &[(final_flicker::ClassId, ClassStats)], policy: BotArg) {
    println!(
        "class table (bot policy: {policy:?}; 95% confidence intervals: Wilson for win rate, normal for mean placing):"
    );
    println!(
        "  {:<22} {:>7} {:>8} {:>17} {:>8} {:>15}",
        "class", "games", "win %", "win % 95% CI", "placing", "placing 95% CI"
    );
    for (c, s) in stats {
        if s.games == 0 {
            println!("  {:<22} {:>7}", c.name(), 0);
            continue;
        }
        let n = s.games as f64;
        let (lo, hi) = wilson(s.wins, s.games);
        let mean = s.placing_sum / n;
        let var = if s.games > 1 { (s.placing_sq - n * mean * mean) / (n - 1.0) } else { 0.0 };
        let h = 1.96 * (var.max(0.0) / n).sqrt();
        println!(
            "  {:<22} {:>7} {:>7.1}% {:>7.1}%-{:>6.1}% {:>8.2} {:>7.2}-{:>6.2}",
            c.name(),
            s.games,
            100.0 * s.wins as f64 / n,
            100.0 * lo,
            100.0 * hi,
            mean,
            mean - h,
            mean + h
        );
    }
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

/// `--ruleset` (R10.11, A1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RulesetArg {
    /// RULES.md sections 0-11.
    Current,
    /// RULES.md appendix A (the 1.0 manual).
    #[value(name = "classic-1.0")]
    Classic,
}

impl From<RulesetArg> for final_flicker::RulesetName {
    fn from(r: RulesetArg) -> Self {
        match r {
            RulesetArg::Current => final_flicker::RulesetName::Current,
            RulesetArg::Classic => final_flicker::RulesetName::Classic,
        }
    }
}

/// `--dark-mode` (A3.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DarkModeArg {
    /// Ghosts to The Dark.
    Standard,
    /// Ghosts split between the neighbours.
    Dark,
}

impl From<DarkModeArg> for final_flicker::DarkMode {
    fn from(d: DarkModeArg) -> Self {
        match d {
            DarkModeArg::Standard => final_flicker::DarkMode::Standard,
            DarkModeArg::Dark => final_flicker::DarkMode::Dark,
        }
    }
}

pub fn run(a: Args) -> ExitCode {
    if a.game == GameArg::Exorcist {
        return exorcist::run(a);
    }
    if a.team_table || a.target != 7 {
        eprintln!("error: --team-table and --target are for --game exorcist");
        return ExitCode::from(2);
    }
    let mut settings = Settings::new(a.players);
    settings.ruleset = a.ruleset.into();
    settings.dark_mode = a.dark_mode.into();
    settings.round_limit = a.round_limit;
    settings.salt_window = match a.salt_window {
        WindowArg::Simultaneous => SaltWindow::Simultaneous,
        WindowArg::Sequential => SaltWindow::Sequential,
    };
    settings.classes = a.classes;
    let mut class_stats: Vec<(final_flicker::ClassId, ClassStats)> =
        final_flicker::classes::pool_for_rules(final_flicker::Rules::for_settings(&settings), a.players as usize)
            .into_iter()
            .map(|c| (c, ClassStats::default()))
            .collect();
    if let Err(e) = final_flicker::create(&settings, &mut ChaCha8Rng::seed_from_u64(0)) {
        eprintln!("error: {e}");
        return ExitCode::FAILURE;
    }
    let seed = a.seed.unwrap_or_else(|| rand::rngs::SysRng.try_next_u64_or_random());
    println!(
        "simulate: {}{}, {} players, {} games, bot policy {:?}, seed {seed}, salt window {:?}, round limit {}{}{} (repeat with --seed {seed})",
        settings.ruleset.id(),
        if settings.ruleset == final_flicker::RulesetName::Classic {
            format!(
                " (dark_mode {})",
                if settings.dark_mode == final_flicker::DarkMode::Dark { "dark" } else { "standard" }
            )
        } else {
            String::new()
        },
        a.players,
        a.games,
        a.bot,
        settings.salt_window,
        settings.round_limit,
        if a.classes { ", classes" } else { "" },
        if a.check { ", --check" } else { "" }
    );
    let (key, ephemeral) = match &a.signing_key {
        Some(k) => (k.clone(), false),
        None => (flicker_server::chain::generate_signing_key(), true),
    };
    let mut master = ChaCha8Rng::seed_from_u64(seed);
    let n = a.players as usize;
    let mut wins = vec![0u32; n];
    let mut no_winner = 0u32;
    let mut guttered = 0u32;
    let (mut turns_total, mut commands_total, mut events_total) = (0u64, 0u64, 0u64);
    let mut longest: Option<(u32, u32, Vec<final_flicker::Event>)> = None;
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
                if r.reason == final_flicker::EndReason::Guttered {
                    guttered += 1;
                }
                for (seat, class) in final_flicker::seat_classes(&p.state).into_iter().enumerate() {
                    if let Some(c) = class
                        && let Some((_, s)) = class_stats.iter_mut().find(|(x, _)| *x == c)
                    {
                        let placing = r.placings.get(seat).copied().unwrap_or(0) as f64;
                        s.games += 1;
                        s.wins += u32::from(r.winner == Some(seat as u8));
                        s.placing_sum += placing;
                        s.placing_sq += placing * placing;
                    }
                }
                if longest.as_ref().is_none_or(|(t, _, _)| p.turns > *t) {
                    longest = Some((p.turns, g, if a.export.is_some() { p.events } else { Vec::new() }));
                }
            }
            Err(e) => {
                failures += 1;
                eprintln!("INVARIANT FAILURE in game {g}: {e}");
                if failures == 1 {
                    match export(&a.failure_export, &stream_of(seed, g), &e.events, &key) {
                        Ok(()) => eprintln!(
                            "  replay of the failing game written to {} (signed by Ed25519 key {})",
                            a.failure_export.display(),
                            hex::encode(key.verifying_key().as_bytes())
                        ),
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
    if a.classes {
        print_class_table(&class_stats, a.bot);
    }
    if let (Some(path), Some((_, g, events))) = (&a.export, &longest) {
        match export(path, &stream_of(seed, *g), events, &key) {
            Ok(()) => {
                println!("replay of the longest game written to {}", path.display());
                let public = hex::encode(key.verifying_key().as_bytes());
                if ephemeral {
                    println!("signed with an ephemeral Ed25519 key; public key {public}");
                } else {
                    println!("signed with the given Ed25519 key; public key {public}");
                }
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

trait SeedFromOs {
    fn try_next_u64_or_random(self) -> u64;
}

impl SeedFromOs for rand::rngs::SysRng {
    fn try_next_u64_or_random(mut self) -> u64 {
        use rand::TryRng;
        self.try_next_u64().unwrap_or_else(|_| rand::rng().next_u64())
    }
}
