//! `flicker gathering run`: drives a whole gathering against a running server over its REST API,
//! as an organiser would: creates an organiser session, creates the gathering, fills it with
//! built-in bots, starts it, shows a progress bar while the server plays it, and prints the
//! bracket, the winner and the standings.

use flicker_client::blocking::Client;
use flicker_client::types::{
    AddBotsBody, BotKind, Bracket, CreateGatheringBody, GameName, GatheringSettings, GatheringStatus, RegisterBody,
    Role,
};
use flicker_client::{Error, routes};
use indicatif::{ProgressBar, ProgressStyle};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Arguments of `flicker gathering`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    command: GatheringCmd,
}

#[derive(clap::Subcommand, Debug)]
enum GatheringCmd {
    /// Run a bot gathering to its winner on a server and print the bracket and standings.
    Run(RunArgs),
}

#[derive(clap::Args, Debug)]
struct RunArgs {
    /// Players (all built-in bots), 1 to 10,000.
    #[arg(long, default_value_t = 20)]
    players: usize,
    /// The bots' policy.
    #[arg(long, value_enum, default_value = "heuristic")]
    bots: Bots,
    /// The server's base URL.
    #[arg(long, env = "FLICKER_SERVER", default_value = "http://127.0.0.1:8080")]
    server: String,
    /// The server's organiser key (default: `FLICKER_ORGANISER_KEY`, else the key file the
    /// local server wrote beside its SQLite file).
    #[arg(long, env = "FLICKER_ORGANISER_KEY", hide_env_values = true)]
    organiser_key: Option<String>,
    /// Where the local server wrote its organiser key.
    #[arg(long, default_value = "flicker.db.organiser-key")]
    key_file: String,
    /// The game: The Final Flicker, or Let's Call the Exorcist (`exorcist`: circles of 4 to 8,
    /// X2.1; the best-placed by points advance, docs/rules-decisions.md 72-74).
    #[arg(long, value_enum, default_value = "the-final-flicker")]
    game: crate::simulate::GameArg,
    /// R9.1.2: Last Lit advancing from each qualifying circle (1 or 2); with `--game exorcist`,
    /// the best-placed advancing from each circle (default: 2, or 1 for the Exorcist).
    #[arg(long)]
    advance: Option<u8>,
    /// X4.5: `--game exorcist` only: every table's points target, 1 to 30 (default 7).
    #[arg(long)]
    target: Option<u32>,
    /// R9.1.1: maximum circle size (at least 4; 4 to 8 for the Exorcist).
    #[arg(long, default_value_t = 8)]
    max_circle: u16,
    /// Pause before each bot answer, in ms (to watch the tables live).
    #[arg(long, default_value_t = 0)]
    bot_delay_ms: u32,
    /// The gathering's name.
    #[arg(long)]
    name: Option<String>,
    /// Give up after this many seconds.
    #[arg(long, default_value_t = 3600)]
    timeout_secs: u64,
    /// R10.11, A1: the ruleset every table plays, `current` or `classic-1.0` (with the classic
    /// roster of A9).
    #[arg(long, value_enum, default_value = "current")]
    ruleset: crate::simulate::RulesetArg,
    /// A3.3: `classic-1.0` only: a dead player's ghosts go to The Dark (`standard`) or are split
    /// between the neighbours (`dark`).
    #[arg(long, value_enum, default_value = "standard")]
    dark_mode: crate::simulate::DarkModeArg,
}

/// A built-in bot policy (`--bots`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Bots {
    /// Uniformly random legal answers (engine `bot::random_answer`).
    Random,
    /// Banishes and Siphons sensibly, avoids Possession, Salts dangerous actions
    /// (engine `heuristic::heuristic_answer`).
    Heuristic,
}

impl From<Bots> for BotKind {
    fn from(b: Bots) -> BotKind {
        match b {
            Bots::Random => BotKind::Random,
            Bots::Heuristic => BotKind::Heuristic,
        }
    }
}

/// Runs the subcommand.
pub fn run(a: Args) -> ExitCode {
    let GatheringCmd::Run(r) = a.command;
    match run_gathering(&r) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// An error of a call, saying how to start the server when there was none.
fn explain(e: Error) -> String {
    match e {
        Error::Transport { .. } => format!("{e} (is the server running? start it with `flicker`)"),
        e => e.to_string(),
    }
}

fn organiser_key(r: &RunArgs) -> Result<String, String> {
    if let Some(k) = r.organiser_key.clone().filter(|k| !k.is_empty()) {
        return Ok(k);
    }
    std::fs::read_to_string(&r.key_file).map(|k| k.trim().to_string()).map_err(|e| {
        format!(
            "no organiser key: pass --organiser-key or set FLICKER_ORGANISER_KEY (a local server writes its key to \
             {}; reading it failed: {e})",
            r.key_file
        )
    })
}

fn run_gathering(r: &RunArgs) -> Result<(), String> {
    if !(1..=10_000).contains(&r.players) {
        return Err("--players is 1 to 10000".into());
    }
    let key = organiser_key(r)?;
    let client = Client::with_http(reqwest_client()?, r.server.trim_end_matches('/'));
    // A fresh organiser account for this run.
    let suffix: String = (0..8).map(|_| format!("{:x}", rand::random::<u8>() & 0xf)).collect();
    let name = format!("organiser-{suffix}");
    let password = format!("pw-{suffix}-{suffix}");
    let register = RegisterBody { name: name.clone(), password: password.clone(), role: Role::Organiser };
    match client.send(routes::register(&register, Some(&key))) {
        Ok(_) => {}
        Err(e @ Error::Transport { .. }) => return Err(explain(e)),
        Err(e) => {
            let detail = e.problem().and_then(|p| p.detail.clone()).unwrap_or_else(|| "refused".into());
            return Err(format!("registering the organiser: {detail}"));
        }
    }
    let tokens = client.send(routes::login(&name, &password)).map_err(explain)?;
    let api = client.with_token(&tokens.access_token);
    let kind = BotKind::from(r.bots);
    let title = r.name.clone().unwrap_or_else(|| format!("{} {} bots", r.players, kind.name()));
    let game = match r.game {
        crate::simulate::GameArg::FinalFlicker => GameName::TheFinalFlicker,
        crate::simulate::GameArg::Exorcist => GameName::LetsCallTheExorcist,
    };
    let exorcist = game == GameName::LetsCallTheExorcist;
    if exorcist && r.players < 4 {
        return Err("--game exorcist: X2.1: the game seats 4 to 8, so its gathering needs --players 4 or more".into());
    }
    let settings = GatheringSettings {
        game,
        target: r.target,
        advance: r.advance.unwrap_or(if exorcist { 1 } else { 2 }),
        max_circle: Some(r.max_circle),
        bot_delay_ms: r.bot_delay_ms,
        ruleset: r.ruleset.into(),
        dark_mode: r.dark_mode.into(),
        ..GatheringSettings::default()
    };
    let g = api
        .send(routes::create_gathering(&CreateGatheringBody {
            name: title.clone(),
            settings: Some(settings),
            game: None,
        }))
        .map_err(|e| match e.problem().and_then(|p| p.detail.clone()) {
            Some(detail) => format!("creating the gathering: {detail}"),
            None => explain(e),
        })?;
    let id = g.gathering_id;
    api.send(routes::add_bots(&id, &AddBotsBody { count: r.players, kind })).map_err(explain)?;
    println!("gathering {id}: \"{title}\"");
    println!(
        "watch: {}/gatherings/{id}  (the bracket as JSON: {}/api/v1/gatherings/{id}/bracket)",
        api.base(),
        api.base()
    );
    api.send(routes::start_gathering(&id)).map_err(explain)?;
    let started = Instant::now();
    let bar = ProgressBar::new(1);
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} circles  {msg}")
            .map_err(|e| e.to_string())?,
    );
    let summary = loop {
        let s = api.send(routes::get_gathering(&id)).map_err(explain)?;
        let p = &s.progress;
        bar.set_length(u64::from(p.circles_expected).max(1));
        bar.set_position(u64::from(p.circles_ended));
        bar.set_message(format!("stage {}", p.stage));
        if matches!(s.status, GatheringStatus::Finished | GatheringStatus::Cancelled) {
            break s;
        }
        if started.elapsed() > Duration::from_secs(r.timeout_secs) {
            bar.abandon();
            return Err(format!("gave up after {} s; the gathering goes on at the server", r.timeout_secs));
        }
        std::thread::sleep(Duration::from_millis(250));
    };
    bar.finish_and_clear();
    let bracket = api.send(routes::bracket(&id)).map_err(explain)?;
    print_bracket(&bracket);
    match &summary.winner {
        Some(w) => println!("winner: {w}"),
        None => println!("winner: none ({})", summary.end_reason.as_deref().unwrap_or("no winner")),
    }
    println!("time: {:.1} s", started.elapsed().as_secs_f64());
    let standings = api.send(routes::standings(&id)).map_err(explain)?;
    if standings.len() < summary.registered {
        println!(
            "standings (the first {} of {}; all of them: {}/api/v1/gatherings/{id}/results.csv):",
            standings.len(),
            summary.registered,
            api.base()
        );
    } else {
        println!("standings:");
    }
    for s in &standings {
        let rank = s.rank.map_or("-".to_string(), |r| r.to_string());
        let placing = s.placing.map_or("-".to_string(), |p| p.to_string());
        // Let's Call the Exorcist: the points scored in that circle (X7.6).
        let points = s.points.map_or(String::new(), |p| format!(", {p} pt{}", if p == 1 { "" } else { "s" }));
        println!(
            "  {rank:>4}. {:<24} stage {} circle {} placing {placing}{points}",
            s.name,
            s.stage,
            s.circle.map_or("-".into(), |c| c.to_string())
        );
    }
    Ok(())
}

/// The HTTP client of a run: 30 s a request.
fn reqwest_client() -> Result<flicker_client::blocking::Http, String> {
    flicker_client::blocking::Http::builder().timeout(Duration::from_secs(30)).build().map_err(|e| e.to_string())
}

fn print_bracket(b: &Bracket) {
    let exorcist = b.game == GameName::LetsCallTheExorcist;
    for s in &b.stages {
        let kind = match (s.final_ritual, exorcist) {
            (true, false) => "Final Ritual",
            (true, true) => "Final table",
            (false, _) => "qualifying",
        };
        println!("stage {} ({kind}): {}", s.stage, s.sizes);
        for c in &s.circles {
            let players: Vec<String> = c
                .players
                .iter()
                .map(|p| match (p.class.map(|c| serde_json::to_value(c).unwrap_or_default()), p.points) {
                    (Some(serde_json::Value::String(class)), _) => format!("{} ({class})", p.name),
                    (_, Some(points)) => format!("{} ({points} pts)", p.name),
                    _ => p.name.clone(),
                })
                .collect();
            println!("  circle {} [{}]: {}", c.circle, c.table_id, players.join(", "));
            let last_lit = &c.last_lit;
            let said = if exorcist { "advance" } else { "last lit" };
            println!("    {said}: {}", if last_lit.is_empty() { "none".to_string() } else { last_lit.join(", ") });
            if exorcist && let Some(w) = &c.winner {
                println!("    winner: {w}");
            }
        }
        if s.circle_count > s.circles.len() {
            println!(
                "  ... and {} more circles (the bracket pages them: ?stage={}&offset=N)",
                s.circle_count - s.circles.len(),
                s.stage
            );
        }
    }
}
