//! The HTTP load run: N tables played at once by bot clients over loopback.
//!
//! Each client owns one table at a time: it creates a 4-seat practice table, takes every seat
//! with one account, starts it, then plays: it reads the prompt of the seat the last answer's
//! view says is awaited (every other seat during a Salt window), answers with
//! [`flicker_lab::bot::random_answer`] under a fresh `Idempotency-Key`, and repeats. When a
//! game ends it opens the next table, so N tables are in play throughout. A *command* is one
//! `POST /tables/{id}/answers` that got 200; its latency is measured in the client from sending
//! the request to reading the whole response. Only commands inside the measurement window
//! (after the warm-up) count. With a `rate`, each table answers on a fixed schedule so that all
//! tables together offer that many commands per second: latency at a given load, rather than
//! at saturation (where a closed loop's latency is only its concurrency over its throughput).

use crate::server::{Server, Storage};
use final_flicker::PromptKind;
use flicker_client::types::{AnswerBody, CreateTableBody, RegisterBody, Role};
use flicker_client::{Client, Error, routes};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use serde::Serialize;
use serde_json::Value;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// What a load run is asked to do.
#[derive(Debug, Clone)]
pub struct LoadPlan {
    /// Tables in play at once.
    pub tables: usize,
    /// Seats per table.
    pub players: u8,
    /// Seconds of play before measuring.
    pub warmup: Duration,
    /// Seconds measured.
    pub duration: Duration,
    /// Offered load in commands per second over all tables (each table answers at
    /// `tables / rate` second intervals); `None`: as fast as the server answers.
    pub rate: Option<f64>,
}

/// The figures of one load run.
#[derive(Debug, Clone, Serialize)]
pub struct LoadResult {
    /// `SQLite` or `PostgreSQL`.
    pub storage: String,
    /// Tables in play at once.
    pub tables: usize,
    /// Seats per table.
    pub players: u8,
    /// Offered commands per second (`None`: as fast as possible).
    pub offered: Option<f64>,
    /// Measured seconds.
    pub seconds: f64,
    /// Commands (answers with 200) in the window.
    pub commands: u64,
    /// Commands per wall-clock second.
    pub commands_per_s: f64,
    /// Commands per second of server CPU (user + system).
    pub commands_per_server_cpu_s: f64,
    /// Server CPU use in the window, in cores (1.0 = one core busy).
    pub server_cores: f64,
    /// The load client's own CPU use in the window, in cores.
    pub client_cores: f64,
    /// All HTTP requests per wall-clock second (reads included).
    pub requests_per_s: f64,
    /// Command latency percentiles, in milliseconds.
    pub p50_ms: f64,
    /// 95th percentile.
    pub p95_ms: f64,
    /// 99th percentile.
    pub p99_ms: f64,
    /// Largest.
    pub max_ms: f64,
    /// Read (`GET prompt`) latency p99, in milliseconds.
    pub read_p99_ms: f64,
    /// 409 answers (a decision point moved on; expected to be 0 with one client per table).
    pub conflicts: u64,
    /// Other failures (non-200, non-409, transport errors after retries).
    pub errors: u64,
    /// Requests sent again after a transport failure (answers with the same key).
    pub retries: u64,
    /// Games finished in the window.
    pub games_finished: u64,
    /// Tables created over the whole run.
    pub tables_created: u64,
    /// Server resident memory after start, in bytes.
    pub rss_start: u64,
    /// Server resident memory at the end of the window, in bytes.
    pub rss_end: u64,
    /// `(rss_end - rss_start) / tables_created`: memory per table the server holds.
    pub bytes_per_table: f64,
    /// Events stored.
    pub events: u64,
    /// Stored bytes per event, on disk, indexes included.
    pub disk_bytes_per_event: f64,
    /// JSON bytes (payload + metadata) per event.
    pub json_bytes_per_event: f64,
    /// PostgreSQL only: `pgbench`'s single-row INSERT ceiling on the same database, run after.
    pub pgbench: Option<crate::pgbench::PgbenchResult>,
}

#[derive(Default)]
struct Tally {
    latencies_us: Vec<u32>,
    read_latencies_us: Vec<u32>,
    commands: u64,
    requests: u64,
    conflicts: u64,
    errors: u64,
    games: u64,
    tables: u64,
    retries: u64,
}

struct Shared {
    client: Client,
    players: u8,
    /// Pause between one table's answers when the load is paced.
    interval: Option<Duration>,
    stop: AtomicBool,
    window: std::sync::OnceLock<(Instant, Instant)>,
}

impl Shared {
    fn in_window(&self, t: Instant) -> bool {
        self.window.get().is_some_and(|(a, b)| t >= *a && t < *b)
    }
}

/// Registers an account and returns an access token.
async fn account(sh: &Shared, name: &str) -> Result<String, String> {
    let body = RegisterBody { name: name.to_string(), password: "bench-password-1".to_string(), role: Role::Bot };
    if let Err(e) = sh.client.send(routes::register(&body, None)).await {
        return Err(format!("register {name}: {e}"));
    }
    match sh.client.send(routes::login(name, "bench-password-1")).await {
        Ok(t) => Ok(t.access_token),
        Err(e) => Err(format!("login {name}: {e}")),
    }
}

/// Creates a practice table, takes every seat and starts it. Returns its id.
async fn open_table(sh: &Shared, token: &str) -> Result<String, String> {
    let api = sh.client.with_token(token);
    let body = CreateTableBody { players: sh.players, ..CreateTableBody::default() };
    let id = api.send(routes::create_table(&body)).await.map_err(|e| format!("create table: {e}"))?.table.table_id;
    for _ in 0..sh.players {
        api.send(routes::take_seat(&id, None)).await.map_err(|e| format!("take seat: {e}"))?;
    }
    api.send(routes::start_table(&id)).await.map_err(|e| format!("start: {e}"))?;
    Ok(id)
}

/// The seats whose prompts to read next, from a view's `awaiting`.
fn candidates(view: &Value, players: u8) -> Option<Vec<u8>> {
    match view["awaiting"]["awaiting"].as_str() {
        Some("nothing") => None,
        Some("seat") => Some(vec![view["awaiting"]["seat"].as_u64().unwrap_or(0) as u8]),
        Some("window") => {
            let actor = view["awaiting"]["actor"].as_u64().unwrap_or(0) as u8;
            Some((0..players).filter(|s| *s != actor).collect())
        }
        _ => Some((0..players).collect()),
    }
}

/// Plays one table to its end. Returns false when asked to stop first.
async fn play(
    sh: &Shared,
    token: &str,
    id: &str,
    rng: &mut ChaCha8Rng,
    t: &mut Tally,
    next: &mut tokio::time::Instant,
) -> Result<bool, String> {
    let api = sh.client.with_token(token);
    let mut seats: Vec<u8> = (0..sh.players).collect();
    let mut idle = 0u32;
    loop {
        if sh.stop.load(Ordering::Relaxed) {
            return Ok(false);
        }
        let mut acted = false;
        for &seat in &seats {
            let start = Instant::now();
            let r = match api.send(routes::prompt(id, Some(seat))).await {
                Err(Error::Transport { .. }) => {
                    t.retries += 1;
                    api.send(routes::prompt(id, Some(seat))).await
                }
                r => r,
            };
            // A refusal reads as no prompt (the next round reads again).
            let prompt = match r {
                Ok(r) => r.prompt,
                Err(Error::Status { .. }) => None,
                Err(e) => return Err(e.to_string()),
            };
            let now = Instant::now();
            if sh.in_window(now) {
                t.requests += 1;
                t.read_latencies_us.push((now - start).as_micros() as u32);
            }
            let Some(p) = prompt else {
                continue;
            };
            if matches!(p.kind, PromptKind::Salt { current: Some(_), .. }) {
                continue; // answered already; the window waits for others
            }
            let body =
                AnswerBody { seat: Some(seat), prompt_id: p.id, answer: flicker_lab::bot::random_answer(&p, rng) };
            if let Some(interval) = sh.interval {
                // Paced: each table answers on its own schedule (no catching up after a stall).
                *next = (*next + interval).max(tokio::time::Instant::now());
                tokio::time::sleep_until(*next).await;
            }
            let start = Instant::now();
            // A transport failure (e.g. a kept-alive connection the server closed as it was
            // reused) is retried with the same Idempotency-Key, so it acts at most once.
            let key = uuid::Uuid::new_v4().to_string();
            let mut tries = 0;
            let (st, v) = loop {
                tries += 1;
                match api.send(routes::answer(id, &body, &key).into_json()).await {
                    Ok(v) => break (200, v),
                    Err(Error::Status { status, problem, .. }) => {
                        break (status.as_u16(), serde_json::to_value(problem).unwrap_or(Value::Null));
                    }
                    Err(Error::Transport { .. }) if tries < 3 => t.retries += 1,
                    Err(e) => break (0, Value::String(e.to_string())),
                }
            };
            let now = Instant::now();
            let counted = sh.in_window(now);
            if counted {
                t.requests += 1;
            }
            acted = true;
            match st {
                200 => {
                    if counted {
                        t.commands += 1;
                        t.latencies_us.push((now - start).as_micros() as u32);
                    }
                    match candidates(&v["view"], sh.players) {
                        Some(next) => seats = next,
                        None => {
                            if counted {
                                t.games += 1;
                            }
                            return Ok(true);
                        }
                    }
                }
                409 => {
                    if counted {
                        t.conflicts += 1;
                    }
                    seats = (0..sh.players).collect();
                }
                _ => {
                    if counted {
                        t.errors += 1;
                    }
                    if st == 0 || st >= 500 {
                        return Err(format!("answer failed: {st} {v}"));
                    }
                    seats = (0..sh.players).collect();
                }
            }
            break;
        }
        if !acted {
            // Nobody to answer: the server is closing a window, or the game ended.
            idle += 1;
            let view = match api.send(routes::get_table(id).into_json()).await {
                Ok(r) if r["table"]["status"] == "finished" => return Ok(true),
                Ok(r) => r["view"].clone(),
                Err(e @ Error::Transport { .. }) => return Err(e.to_string()),
                Err(_) => Value::Null,
            };
            seats = candidates(&view, sh.players).unwrap_or_default();
            if idle > 3 {
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
        } else {
            idle = 0;
        }
    }
}

/// One client: table after table until stopped.
async fn client_loop(sh: Arc<Shared>, token: Arc<String>, first: String, seed: u64) -> Result<Tally, String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut t = Tally { tables: 1, ..Tally::default() };
    let mut id = first;
    // Paced tables start spread over one interval.
    let offset = sh.interval.map_or(Duration::ZERO, |i| i.mul_f64(rand::RngExt::random::<f64>(&mut rng)));
    let mut next = tokio::time::Instant::now() + offset;
    loop {
        if !play(&sh, &token, &id, &mut rng, &mut t, &mut next).await? {
            return Ok(t);
        }
        if sh.stop.load(Ordering::Relaxed) {
            return Ok(t);
        }
        id = open_table(&sh, &token).await?;
        t.tables += 1;
    }
}

fn percentile(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i] as f64 / 1000.0
}

/// Runs one load plan against a fresh server on `storage` and returns its figures. Prints
/// progress to stderr.
pub fn run(flicker: &std::path::Path, storage: &Storage, plan: &LoadPlan) -> Result<LoadResult, String> {
    let server = Server::start(flicker, storage)?;
    let rss_start = server.rss_bytes();
    // The client runs on one thread so that it takes at most one of the cores.
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| e.to_string())?;
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(plan.tables + 16)
        // Below the server's 5 s keep-alive, so the client does not reuse a closing connection.
        .pool_idle_timeout(Duration::from_secs(2))
        .timeout(Duration::from_secs(60))
        .build()
        .map_err(|e| e.to_string())?;
    let sh = Arc::new(Shared {
        client: Client::with_http(client, &server.base),
        players: plan.players,
        interval: plan.rate.map(|r| Duration::from_secs_f64(plan.tables as f64 / r)),
        stop: AtomicBool::new(false),
        window: std::sync::OnceLock::new(),
    });
    let (tallies, cpu, client_cpu, wall, rss_end) = rt.block_on(async {
        // A few accounts hold every seat (accounts cost an Argon2 hash each).
        let accounts = plan.tables.clamp(1, 16);
        let run_tag = uuid::Uuid::new_v4().simple().to_string();
        let mut tokens = Vec::new();
        for i in 0..accounts {
            tokens.push(Arc::new(account(&sh, &format!("bench{}{i}", &run_tag[..8])).await?));
        }
        eprintln!("  opening {} tables of {} seats ...", plan.tables, plan.players);
        let mut firsts = Vec::new();
        for i in 0..plan.tables {
            firsts.push(open_table(&sh, &tokens[i % accounts]).await?);
        }
        let begin = Instant::now() + plan.warmup;
        let _ = sh.window.set((begin, begin + plan.duration));
        let handles: Vec<_> = firsts
            .into_iter()
            .enumerate()
            .map(|(i, id)| tokio::spawn(client_loop(sh.clone(), tokens[i % accounts].clone(), id, i as u64)))
            .collect();
        eprintln!("  warming up for {} s, then measuring for {} s ...", plan.warmup.as_secs(), plan.duration.as_secs());
        tokio::time::sleep_until(begin.into()).await;
        let cpu0 = server.cpu_seconds();
        let me0 = crate::server::cpu_seconds(std::process::id());
        let t0 = Instant::now();
        tokio::time::sleep(plan.duration).await;
        let cpu = server.cpu_seconds() - cpu0;
        let me = crate::server::cpu_seconds(std::process::id()) - me0;
        let wall = t0.elapsed().as_secs_f64();
        let rss_end = server.rss_bytes();
        sh.stop.store(true, Ordering::Relaxed);
        let mut tallies = Vec::new();
        for h in handles {
            tallies.push(h.await.map_err(|e| e.to_string())??);
        }
        Ok::<_, String>((tallies, cpu, me, wall, rss_end))
    })?;
    server.stop();
    let mut all = Tally::default();
    for t in tallies {
        all.latencies_us.extend(t.latencies_us);
        all.read_latencies_us.extend(t.read_latencies_us);
        all.commands += t.commands;
        all.requests += t.requests;
        all.conflicts += t.conflicts;
        all.errors += t.errors;
        all.games += t.games;
        all.tables += t.tables;
        all.retries += t.retries;
    }
    all.latencies_us.sort_unstable();
    all.read_latencies_us.sort_unstable();
    let (events, disk, json) = rt.block_on(crate::storage_size(storage))?;
    Ok(LoadResult {
        storage: storage.label().into(),
        tables: plan.tables,
        players: plan.players,
        offered: plan.rate,
        seconds: wall,
        commands: all.commands,
        commands_per_s: all.commands as f64 / wall,
        commands_per_server_cpu_s: if cpu > 0.0 { all.commands as f64 / cpu } else { 0.0 },
        server_cores: cpu / wall,
        client_cores: client_cpu / wall,
        requests_per_s: all.requests as f64 / wall,
        p50_ms: percentile(&all.latencies_us, 0.50),
        p95_ms: percentile(&all.latencies_us, 0.95),
        p99_ms: percentile(&all.latencies_us, 0.99),
        max_ms: all.latencies_us.last().map(|x| *x as f64 / 1000.0).unwrap_or(0.0),
        read_p99_ms: percentile(&all.read_latencies_us, 0.99),
        conflicts: all.conflicts,
        errors: all.errors,
        retries: all.retries,
        games_finished: all.games,
        tables_created: all.tables,
        rss_start,
        rss_end,
        bytes_per_table: rss_end.saturating_sub(rss_start) as f64 / all.tables.max(1) as f64,
        events,
        disk_bytes_per_event: disk as f64 / events.max(1) as f64,
        json_bytes_per_event: json as f64 / events.max(1) as f64,
        pgbench: None,
    })
}
