//! `flicker gathering run`: drives a whole gathering against a running server over its REST API,
//! as an organiser would: creates an organiser session, creates the gathering, fills it with
//! built-in bots, starts it, shows a progress bar while the server plays it, and prints the
//! bracket, the winner and the standings.

use crate::bots::BotKind;
use indicatif::{ProgressBar, ProgressStyle};
use reqwest::blocking::Client;
use serde_json::{Value, json};
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
    bots: BotKind,
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
    /// R9.1.2: Last Lit advancing from each qualifying circle (1 or 2).
    #[arg(long, default_value_t = 2)]
    advance: u8,
    /// R9.1.1: maximum circle size (at least 4).
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

struct Api {
    client: Client,
    base: String,
    token: Option<String>,
}

impl Api {
    fn call(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Result<Value, String> {
        let url = format!("{}/api/v1{path}", self.base);
        let mut req = self.client.request(method, &url);
        if let Some(t) = &self.token {
            req = req.bearer_auth(t);
        }
        if let Some(b) = body {
            req = req.json(&b);
        }
        let resp = req.send().map_err(|e| format!("{url}: {e} (is the server running? start it with `flicker`)"))?;
        let status = resp.status();
        let v: Value = resp.json().unwrap_or(Value::Null);
        if !status.is_success() {
            let detail = v["detail"].as_str().unwrap_or("").to_string();
            return Err(format!("{url}: {status}: {detail}"));
        }
        Ok(v)
    }
    fn get(&self, path: &str) -> Result<Value, String> {
        self.call(reqwest::Method::GET, path, None)
    }
    fn post(&self, path: &str, body: Value) -> Result<Value, String> {
        self.call(reqwest::Method::POST, path, Some(body))
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
    let client = Client::builder().timeout(Duration::from_secs(30)).build().map_err(|e| e.to_string())?;
    let mut api = Api { client, base: r.server.trim_end_matches('/').to_string(), token: None };
    // A fresh organiser account for this run.
    let suffix: String = (0..8).map(|_| format!("{:x}", rand::random::<u8>() & 0xf)).collect();
    let name = format!("organiser-{suffix}");
    let password = format!("pw-{suffix}-{suffix}");
    let url = format!("{}/api/v1/accounts", api.base);
    let resp = api
        .client
        .post(&url)
        .header("X-Organiser-Key", key)
        .json(&json!({"name": name, "password": password, "role": "organiser"}))
        .send()
        .map_err(|e| format!("{url}: {e} (is the server running? start it with `flicker`)"))?;
    if !resp.status().is_success() {
        let v: Value = resp.json().unwrap_or(Value::Null);
        return Err(format!("registering the organiser: {}", v["detail"].as_str().unwrap_or("refused")));
    }
    let tokens = api.post("/auth/token", json!({"name": name, "password": password}))?;
    api.token = tokens["access_token"].as_str().map(String::from);
    let title = r.name.clone().unwrap_or_else(|| format!("{} {} bots", r.players, r.bots.name()));
    let settings = json!({"advance": r.advance, "max_circle": r.max_circle, "bot_delay_ms": r.bot_delay_ms});
    let g = api.post("/gatherings", json!({"name": title, "settings": settings}))?;
    let id = g["gathering_id"].as_str().ok_or("no gathering id")?.to_string();
    api.post(&format!("/gatherings/{id}/bots"), json!({"count": r.players, "kind": r.bots}))?;
    println!("gathering {id}: \"{title}\"");
    println!("watch: {}/api/v1/gatherings/{id}/bracket", api.base);
    api.post(&format!("/gatherings/{id}/start"), json!({}))?;
    let started = Instant::now();
    let bar = ProgressBar::new(1);
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} circles  {msg}")
            .map_err(|e| e.to_string())?,
    );
    let summary = loop {
        let s = api.get(&format!("/gatherings/{id}"))?;
        let p = &s["progress"];
        bar.set_length(p["circles_expected"].as_u64().unwrap_or(1).max(1));
        bar.set_position(p["circles_ended"].as_u64().unwrap_or(0));
        bar.set_message(format!("stage {}", p["stage"]));
        let status = s["status"].as_str().unwrap_or("");
        if status == "finished" || status == "cancelled" {
            break s;
        }
        if started.elapsed() > Duration::from_secs(r.timeout_secs) {
            bar.abandon();
            return Err(format!("gave up after {} s; the gathering goes on at the server", r.timeout_secs));
        }
        std::thread::sleep(Duration::from_millis(250));
    };
    bar.finish_and_clear();
    let bracket = api.get(&format!("/gatherings/{id}/bracket"))?;
    print_bracket(&bracket);
    match summary["winner"].as_str() {
        Some(w) => println!("winner: {w}"),
        None => println!("winner: none ({})", summary["end_reason"].as_str().unwrap_or("no winner")),
    }
    println!("time: {:.1} s", started.elapsed().as_secs_f64());
    let standings = api.get(&format!("/gatherings/{id}/standings"))?;
    println!("standings:");
    for s in standings.as_array().into_iter().flatten() {
        let rank = s["rank"].as_u64().map_or("-".to_string(), |r| r.to_string());
        let placing = s["placing"].as_u64().map_or("-".to_string(), |p| p.to_string());
        println!(
            "  {rank:>4}. {:<24} stage {} circle {} placing {placing}",
            s["name"].as_str().unwrap_or("?"),
            s["stage"],
            s["circle"].as_u64().map_or("-".into(), |c| c.to_string())
        );
    }
    Ok(())
}

fn print_bracket(b: &Value) {
    for s in b["stages"].as_array().into_iter().flatten() {
        let kind = if s["final_ritual"].as_bool() == Some(true) { "Final Ritual" } else { "qualifying" };
        println!("stage {} ({kind}): {}", s["stage"], s["sizes"].as_str().unwrap_or(""));
        for c in s["circles"].as_array().into_iter().flatten() {
            let players: Vec<String> = c["players"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|p| {
                    let name = p["name"].as_str().unwrap_or("?").to_string();
                    match p["class"].as_str() {
                        Some(class) => format!("{name} ({class})"),
                        None => name,
                    }
                })
                .collect();
            let last_lit: Vec<&str> =
                c["last_lit"].as_array().into_iter().flatten().filter_map(|x| x.as_str()).collect();
            println!("  circle {} [{}]: {}", c["circle"], c["table_id"].as_str().unwrap_or(""), players.join(", "));
            println!("    last lit: {}", if last_lit.is_empty() { "none".to_string() } else { last_lit.join(", ") });
        }
    }
}
