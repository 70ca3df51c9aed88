//! The automated leak scanner (R10.8, R10.3.2, R10.6.3). Many random games with
//! classes (and, every third game, `classic-1.0` without classes, A1), 2-8 players, both Salt window forms, played step by step through the real routes and
//! the real store (in-process, SQLite), with no server driver: the scanner answers every prompt
//! itself (random legal answers, some through `POST /answers`, the rest as table commands).
//! At sampled moments, for every viewer (each seat with its token, a spectator account,
//! anonymous), it reads every path that shows the game (the table, the prompt, the events pages,
//! the replay steps, the live stream, the problems of refused answers) and checks every card
//! instance shown with the engine's checker ([`final_flicker::leaks`]) against what that viewer
//! may see at that moment. When a batch of events is hidden from a viewer, everything that
//! viewer reads (bodies, ETags, cursors, totals, clocks) must stay byte-identical.
//!
//! `FLICKER_LEAK_GAMES` (default 300) and `FLICKER_LEAK_SEED` (default 6) override the run;
//! the seed is printed. Answers sent through the route use the server's random generator, so a
//! seed reproduces the choices made but not every shuffle.

use crate::accounts::Role;
use crate::auth::TokenKind;
use crate::clocks::Clocks;
use crate::server::AppState;
use crate::store::Metadata;
use crate::tables::{self, SeatHolder, TableEvent};
use actix_web::http::StatusCode;
use actix_web::test as at;
use actix_web::test::TestRequest;
use actix_web::{App, web};
use final_flicker::leaks::{self, check_event, check_view};
use final_flicker::settings::{SaltWindow, Settings};
use final_flicker::{Command, Event, PromptKind, State, Viewer, prompts};
use futures_util::future::LocalBoxFuture;
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use serde_json::{Value, json};
use std::collections::HashSet;
use std::time::{Duration, Instant};

/// A response as read: status, ETag, body.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Resp {
    status: u16,
    etag: Option<String>,
    replay: bool,
    body: Vec<u8>,
}

impl Resp {
    fn json(&self, what: &str) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("{what}: not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

type Call<'a> = Box<dyn Fn(TestRequest) -> LocalBoxFuture<'a, Resp> + 'a>;
type Open<'a> = Box<dyn Fn(TestRequest) -> LocalBoxFuture<'a, tokio::task::JoinHandle<Vec<u8>>> + 'a>;
/// A stream that never ends by itself (the account stream): what it sent so far, and its reader.
type Tailed = (std::sync::Arc<std::sync::Mutex<Vec<u8>>>, tokio::task::JoinHandle<()>);
type Tail<'a> = Box<dyn Fn(TestRequest) -> LocalBoxFuture<'a, Tailed> + 'a>;

/// One reader of a table.
#[derive(Debug, Clone)]
struct Who {
    label: String,
    token: Option<String>,
    viewer: Viewer,
}

impl Who {
    fn seat(&self) -> Option<u8> {
        match self.viewer {
            Viewer::Seat { seat } => Some(seat),
            _ => None,
        }
    }
    fn req(&self, r: TestRequest) -> TestRequest {
        match &self.token {
            Some(t) => r.insert_header(("Authorization", format!("Bearer {t}"))),
            None => r,
        }
    }
}

/// What a reader has been shown of its sequence so far.
#[derive(Debug, Default, Clone)]
struct Track {
    /// Engine event indices of the reader's sequence (from the scanner's own fold).
    seq: Vec<usize>,
    /// Items read from `/events` so far, and the cursor after them.
    read: usize,
    next: Option<String>,
}

/// Counters printed at the end.
#[derive(Debug, Default)]
struct Counts {
    games: usize,
    players: [usize; 9],
    commands: usize,
    by_route: usize,
    replays: usize,
    concessions: usize,
    requests: usize,
    views: usize,
    cards: usize,
    events: usize,
    kinds: HashSet<String>,
    hidden_batches: usize,
    errors: usize,
    streams: usize,
    stream_events: usize,
    /// Hidden batches over which the viewer's projection moved: kinds -> (count, an example).
    moved: std::collections::BTreeMap<String, (usize, String)>,
    /// Games played under a spectator delay, and the delayed reads compared with
    /// the fold up to the reader's horizon (spectators, commentary, eliminated seats).
    delayed_games: usize,
    delayed_reads: usize,
    /// Positions read (`GET /api/v1/tables/{id}/position`, R10.13) and checked, the cards they
    /// named, and the time spent reading and checking them.
    positions: usize,
    position_cards: usize,
    position_time: Duration,
    /// Delayed reads by kind of reader.
    delayed_by: std::collections::BTreeMap<String, usize>,
    /// Moments at which the close time of a held reaction decision point was checked.
    close_times: usize,
    /// `GET /api/v1/me/tables` reads checked, account streams read to the end and their messages.
    my_tables: usize,
    account_streams: usize,
    account_messages: usize,
    /// Games with a seat on auto-pass, and the passes the server sent for it.
    auto_pass_games: usize,
    auto_passes: usize,
    /// Bracket reads whose `waiting` was checked against the spectator's horizon
    /// (window open, seats named).
    waiting: [usize; 2],
}

/// R10.8: a gathering's spectator delay: N events of the reader's sequence, or N seconds.
#[derive(Debug, Clone, Copy)]
enum Delay {
    Events(u32),
    Secs(u32),
}

/// The game as the scanner folded it: `states[k]` is the state after `events[..k]`.
struct Game {
    id: String,
    events: Vec<Event>,
    states: Vec<State>,
    tracks: Vec<Track>,
    who: Vec<Who>,
    /// Event counts at which the table was at rest (after each append the scanner made).
    rests: Vec<usize>,
    /// The gathering whose circle the table plays (delayed games).
    gathering: Option<String>,
}

impl Game {
    fn now(&self) -> &State {
        self.states.last().expect("a state")
    }

    /// Folds the snapshot's events the scanner has not seen; returns the new indices.
    async fn catch_up(&mut self, app: &AppState) -> std::ops::Range<usize> {
        let snap = app.tables.load(app.store.as_ref(), &self.id).await.expect("load");
        let from = self.events.len();
        for e in &snap.events[from..] {
            let before = self.now().clone();
            let mut after = before.clone();
            final_flicker::apply(&mut after, e);
            let i = self.events.len();
            for (w, t) in self.who.iter().zip(self.tracks.iter_mut()) {
                if final_flicker::redact(&before, e, &after, w.viewer).is_some() {
                    t.seq.push(i);
                }
            }
            self.events.push(e.clone());
            self.states.push(after);
        }
        assert_eq!(self.now(), &snap.state, "the scanner's fold is the table's state");
        if self.rests.last() != Some(&self.events.len()) {
            self.rests.push(self.events.len());
        }
        from..self.events.len()
    }
}

/// The account stream's and `/me/tables`' `awaiting` for `seat` at `state`: the seat itself
/// when its own prompt awaits an answer (a function of that seat's prompt only).
fn awaiting(state: &State, seat: u8) -> Vec<u8> {
    use flicker_game::Game as _;
    final_flicker::prompt_for(state, seat)
        .filter(|p| crate::game::Served::prompt_info(p).awaits_answer)
        .map(|_| vec![seat])
        .unwrap_or_default()
}

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Settings of game `g`: 2-8 players in turn, both window forms; every third game `classic-1.0`
/// (A1; half of them with the classic roster, both `dark_mode`s), the others `current` with
/// classes on (bans sometimes).
fn settings_for(g: usize, rng: &mut ChaCha8Rng) -> Settings {
    let mut s = Settings::new(2 + (g % 7) as u8);
    if g % 3 == 2 {
        s.ruleset = final_flicker::RulesetName::Classic;
        s.dark_mode =
            if rng.random_bool(0.5) { final_flicker::DarkMode::Dark } else { final_flicker::DarkMode::Standard };
        s.salt_window = if rng.random_bool(0.5) { SaltWindow::Simultaneous } else { SaltWindow::Sequential };
        s.hold_windows = rng.random_bool(0.3);
        s.classes = rng.random_bool(0.5);
        return s;
    }
    s.classes = true;
    s.salt_window = if rng.random_bool(0.5) { SaltWindow::Simultaneous } else { SaltWindow::Sequential };
    s.hold_windows = rng.random_bool(0.3);
    s.salt_targeted_only = rng.random_bool(0.2);
    if rng.random_bool(0.4) {
        let bans: u64 = rng.random();
        s.class_bans = final_flicker::ClassId::ALL
            .iter()
            .enumerate()
            .filter(|(i, _)| bans >> i & 1 == 1 && i % 5 == 0)
            .map(|(_, c)| *c)
            .collect();
    }
    s
}

/// Every number anywhere in `v`.
fn numbers(v: &Value, out: &mut HashSet<u64>) {
    match v {
        Value::Number(n) => {
            if let Some(x) = n.as_u64() {
                out.insert(x);
            }
        }
        Value::Object(m) => m.values().for_each(|x| numbers(x, out)),
        Value::Array(a) => a.iter().for_each(|x| numbers(x, out)),
        _ => {}
    }
}

/// Runs of digits in `text`.
fn digit_runs(text: &str) -> HashSet<u64> {
    text.split(|c: char| !c.is_ascii_digit()).filter_map(|d| d.parse().ok()).collect()
}

/// No number of `json`, and no digits of its text, is the handle of a card `viewer` may not see
/// now (`except`: a handle the request itself sent).
fn check_no_hidden_handle(
    text: &str,
    json: &Value,
    state: &State,
    viewer: Viewer,
    except: &[u64],
    what: &str,
) -> Result<(), String> {
    let hidden = leaks::hidden_handles(state, viewer);
    let mut shown = digit_runs(text);
    numbers(json, &mut shown);
    match shown.into_iter().find(|h| hidden.contains(h) && !except.contains(h)) {
        Some(h) => Err(format!("{what}: shows the handle {h} of a card {viewer:?} may not see: {text}")),
        None => Ok(()),
    }
}

struct Scanner<'a> {
    app: web::Data<AppState>,
    call: Call<'a>,
    open: Open<'a>,
    tail: Tail<'a>,
    counts: Counts,
    rng: ChaCha8Rng,
    /// Accounts whose auto-pass preference is on now.
    auto_on: HashSet<String>,
}

impl Scanner<'_> {
    async fn get(&mut self, who: &Who, uri: &str) -> Resp {
        self.counts.requests += 1;
        (self.call)(who.req(TestRequest::get().uri(uri))).await
    }

    /// Reads everything `who` may read now and checks it against the game at this moment.
    async fn check_moment(&mut self, game: &mut Game, w: usize, both_replays: bool) {
        let who = game.who[w].clone();
        let id = game.id.clone();
        let now = game.now().clone();
        let viewer = who.viewer;
        let what = |p: &str| format!("{} ({:?}) at event {}: {p}", who.label, viewer, game.events.len());
        // The table and the view.
        let r = self.get(&who, &format!("/api/v1/tables/{id}")).await;
        assert_eq!(r.status, 200, "{}: {}", what("table"), r.text());
        let j = r.json("table");
        self.counts.cards += check_view(&j, &now, viewer, &what("table")).unwrap_or_else(|e| panic!("leak: {e}"));
        check_no_hidden_handle("", &j, &now, viewer, &[], &what("table")).unwrap_or_else(|e| panic!("leak: {e}"));
        self.counts.views += 1;
        if viewer == Viewer::Spectator {
            assert!(j["view"]["prompt"].is_null(), "{}: a spectator holds a prompt", what("table"));
        }
        // The prompt.
        if who.token.is_some() {
            let r = self.get(&who, &format!("/api/v1/tables/{id}/prompt")).await;
            assert_eq!(r.status, 200, "{}: {}", what("prompt"), r.text());
            let j = r.json("prompt");
            self.counts.cards += check_view(&j, &now, viewer, &what("prompt")).unwrap_or_else(|e| panic!("leak: {e}"));
            check_no_hidden_handle("", &j, &now, viewer, &[], &what("prompt")).unwrap_or_else(|e| panic!("leak: {e}"));
            if who.seat().is_none() {
                assert!(j["prompt"].is_null(), "{}: a spectator's prompt", what("prompt"));
            }
            self.counts.views += 1;
            // R10.4.2: my tables: only the reader's own seat, awaiting only from its own prompt.
            let r = self.get(&who, "/api/v1/me/tables").await;
            assert_eq!(r.status, 200, "{}: {}", what("my tables"), r.text());
            let expected = match who.seat() {
                Some(seat) => {
                    json!([{"table_id": id, "game": "the-final-flicker", "status": "playing", "seats": [seat], "awaiting": awaiting(&now, seat)}])
                }
                None => json!([]),
            };
            assert_eq!(r.json("my tables"), expected, "{}", what("my tables"));
            self.counts.my_tables += 1;
        }
        // The events pages, from where the reader left off.
        let limit = if both_replays { [1usize, 7, 60, 500][self.rng.random_range(0..4)] } else { 500 };
        loop {
            let t = &game.tracks[w];
            let after = t.next.as_ref().map(|c| format!("&after={c}")).unwrap_or_default();
            let r = self.get(&who, &format!("/api/v1/tables/{id}/events?limit={limit}{after}")).await;
            assert_eq!(r.status, 200, "{}: {}", what("events"), r.text());
            let page = r.json("events");
            let items = page["events"].as_array().expect("events").clone();
            for item in &items {
                let k = game.tracks[w].read;
                let Some(&i) = game.tracks[w].seq.get(k) else {
                    panic!("{}: more events than the reader's sequence holds: {item}", what("events"))
                };
                let e = &game.events[i];
                let wh = what(&format!("events item {} ({})", k + 1, e.type_name()));
                assert_eq!(item["event"]["type"].as_str(), Some(e.type_name()), "{wh}: order");
                self.counts.cards += check_event(&item["event"], &game.states[i], e, &game.states[i + 1], viewer, &wh)
                    .unwrap_or_else(|e| panic!("leak: {e}"));
                self.counts.events += 1;
                self.counts.kinds.insert(e.type_name().to_string());
                game.tracks[w].read += 1;
            }
            self.counts.views += 1;
            let next = page["next"].as_str().map(str::to_string);
            if let Some(n) = next {
                game.tracks[w].next = Some(n);
            }
            if items.len() < limit {
                break;
            }
        }
        assert_eq!(game.tracks[w].read, game.tracks[w].seq.len(), "{}: nothing missed", what("events"));
        // Replay steps: the latest and a random one.
        let total = game.tracks[w].seq.len();
        let at = self.rng.random_range(1..=total);
        let mut steps = vec![String::new(), format!("?at={at}")];
        if !both_replays {
            steps.remove(self.rng.random_range(0..2));
        }
        let mut checked = None;
        for q in steps {
            let r = self.get(&who, &format!("/api/v1/tables/{id}/replay{q}")).await;
            assert_eq!(r.status, 200, "{}: {}", what("replay"), r.text());
            let j = r.json("replay");
            let n = if q.is_empty() { total } else { at };
            assert_eq!(j["total"].as_u64(), Some(total as u64), "{}: total", what("replay"));
            assert_eq!(j["at"].as_u64(), Some(n as u64), "{}: at", what("replay"));
            let i = game.tracks[w].seq[n - 1];
            let wh = what(&format!("replay at {n} ({})", game.events[i].type_name()));
            let (b, a) = (&game.states[i], &game.states[i + 1]);
            self.counts.cards += check_event(&j["event"], b, &game.events[i], a, viewer, &wh)
                .and_then(|n| Ok(n + check_view(&j["view"], a, viewer, &wh)?))
                .unwrap_or_else(|e| panic!("leak: {e}"));
            self.counts.views += 1;
            checked = Some((q, game.tracks[w].seq[n - 1] + 1));
        }
        // R10.13: the position at the last of those steps, as this reader may see it (at one
        // moment in two, one step: keeps the added time small).
        if let Some((q, k)) = checked.filter(|_| game.events.len().is_multiple_of(2) || game.now().is_finished()) {
            self.check_position(&who, &id, &q, k, game, &what("position")).await;
        }
    }

    /// R10.13: reads the position of `id` with the replay query `q` (`?at=N` or nothing) as
    /// `who` and checks every card it names against the game after its first `k` events
    /// ([`final_flicker::leaks::check_position`]): nothing hidden from `who` (the whole state
    /// only after the game), each card the one at that place.
    async fn check_position(&mut self, who: &Who, id: &str, q: &str, k: usize, game: &Game, what: &str) {
        let started = Instant::now();
        let r = self.get(who, &format!("/api/v1/tables/{id}/position{q}")).await;
        assert_eq!(r.status, 200, "{what}: {}", r.text());
        let viewer = if game.now().is_finished() { Viewer::Everything } else { who.viewer };
        let text = r.text();
        self.counts.position_cards += leaks::check_position(&text, &game.states[k], viewer)
            .unwrap_or_else(|e| panic!("leak: {what}: {e}: {text}"));
        self.counts.positions += 1;
        self.counts.position_time += started.elapsed();
    }

    /// Everything `who` reads that must not move while events are hidden from it.
    async fn capture(&mut self, game: &Game, w: usize) -> Vec<(String, Resp)> {
        let who = game.who[w].clone();
        let id = &game.id;
        let mut out = Vec::new();
        let mut paths = vec![
            format!("/api/v1/tables/{id}"),
            format!("/api/v1/tables/{id}/replay"),
            format!("/api/v1/tables/{id}/position"),
        ];
        if who.token.is_some() {
            paths.push(format!("/api/v1/tables/{id}/prompt"));
            paths.push("/api/v1/me/tables".to_string());
        }
        for p in paths {
            let r = self.get(&who, &p).await;
            out.push((p, r));
        }
        // Every page of the events.
        let mut after = String::new();
        loop {
            let p = format!("/api/v1/tables/{id}/events?limit=500{after}");
            let r = self.get(&who, &p).await;
            let page = r.json("events");
            let more = page["events"].as_array().is_some_and(|a| a.len() == 500);
            after = page["next"].as_str().map(|c| format!("&after={c}")).unwrap_or_default();
            out.push((p, r));
            if !more {
                break;
            }
        }
        out
    }

    /// Answers with invalid requests for `seat` and checks the problems reveal nothing.
    async fn check_errors(&mut self, game: &Game, seat: u8) {
        let id = &game.id;
        let now = game.now().clone();
        let viewer = Viewer::Seat { seat };
        let who = game.who[seat as usize].clone();
        let version_before = self.app.tables.load(self.app.store.as_ref(), id).await.expect("load").version;
        let post = |body: Value| {
            let key = uuid::Uuid::new_v4().to_string();
            who.req(TestRequest::post().uri(&format!("/api/v1/tables/{id}/answers")))
                .insert_header(("Idempotency-Key", key))
                .set_json(body)
        };
        let problem = |r: &Resp, what: &str, except: &[u64]| {
            assert!(r.status >= 400, "{what}: accepted: {}", r.text());
            let j = r.json(what);
            check_view(&j, &now, viewer, what).unwrap_or_else(|e| panic!("leak: {e}"));
            check_no_hidden_handle(&r.text(), &j, &now, viewer, except, what).unwrap_or_else(|e| panic!("leak: {e}"));
        };
        let open = final_flicker::prompt_for(&now, seat);
        let mut answer = || match &open {
            Some(p) => flicker_lab::bot::random_answer(p, &mut self.rng),
            None => final_flicker::Answer::Pass,
        };
        // A stale (unknown) prompt id.
        let a = answer();
        self.counts.requests += 1;
        let r = (self.call)(post(json!({"prompt_id": 1u64, "answer": a}))).await;
        problem(&r, &format!("seat {seat}: stale prompt"), &[]);
        self.counts.errors += 1;
        // Another seat's hidden card, and a handle that names no card: the same answer.
        if let Some(p) = &open {
            let seen = leaks::visible(&now, viewer);
            let mine: HashSet<u64> = seen.iter().map(|&c| leaks::handle_of(&now, c).0).collect();
            let hidden: Vec<u64> = leaks::hidden_handles(&now, viewer).into_iter().collect();
            let mut tries = 0;
            while tries < 6 && !hidden.is_empty() {
                tries += 1;
                let body = json!({"prompt_id": p.id, "answer": answer()});
                let mut n = HashSet::new();
                numbers(&body["answer"], &mut n);
                let Some(&h) = n.iter().find(|x| mine.contains(x)) else { continue };
                let real = hidden[self.rng.random_range(0..hidden.len())];
                let fake = loop {
                    let f = self.rng.random_range(1u64..1 << 53);
                    if !hidden.contains(&f) && !mine.contains(&f) {
                        break f;
                    }
                };
                let swap = |to: u64| -> Value {
                    let s = serde_json::to_string(&body).unwrap().replace(&h.to_string(), &to.to_string());
                    serde_json::from_str(&s).unwrap()
                };
                self.counts.requests += 2;
                let r1 = (self.call)(post(swap(real))).await;
                let r2 = (self.call)(post(swap(fake))).await;
                let wh = format!(
                    "seat {seat}: another seat's card in {}",
                    format!("{:?}", p.kind).split([' ', '{', '(']).next().unwrap_or("?")
                );
                problem(&r1, &wh, &[real]);
                problem(&r2, &wh, &[fake]);
                let norm = |r: &Resp, x: u64| (r.status, r.text().replace(&x.to_string(), "H"));
                assert_eq!(norm(&r1, real), norm(&r2, fake), "{wh}: a real hidden handle and an unknown one differ");
                self.counts.errors += 2;
                break;
            }
        }
        // A seat one does not hold: the same answer whether that seat is asked or not.
        let n = game.who.len() as u8 - 2;
        if n > 2 {
            let others: Vec<u8> = (0..n).filter(|&s| s != seat).collect();
            let asked = others.iter().copied().find(|&s| final_flicker::prompt_for(&now, s).is_some());
            let idle = others.iter().copied().find(|&s| final_flicker::prompt_for(&now, s).is_none());
            if let (Some(x), Some(y)) = (asked, idle) {
                let pid = open.as_ref().map_or(1, |p| p.id.0);
                let body = |s: u8| json!({"seat": s, "prompt_id": pid, "answer": {"answer": "pass"}});
                self.counts.requests += 2;
                let r1 = (self.call)(post(body(x))).await;
                let r2 = (self.call)(post(body(y))).await;
                let wh = format!("seat {seat}: wrong seat");
                problem(&r1, &wh, &[]);
                problem(&r2, &wh, &[]);
                let norm = |r: &Resp, s: u8| (r.status, r.text().replace(&format!("seat {s}"), "seat X"));
                assert_eq!(norm(&r1, x), norm(&r2, y), "{wh}: an asked seat and an idle one differ");
                self.counts.errors += 2;
            }
        }
        let version_after = self.app.tables.load(self.app.store.as_ref(), id).await.expect("load").version;
        assert_eq!(version_before, version_after, "seat {seat}: a refused answer appended events");
    }

    /// Plays and scans game `g`.
    async fn game(&mut self, g: usize, seed: u64) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        self.rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5ca9);
        let settings = settings_for(g, &mut rng);
        let n = settings.players as usize;
        // Every moment of some games; a tenth of the moments otherwise.
        // Every moment of a few small games; otherwise about two moments a game (and the last
        // one before the end, so that every event is read by every reader).
        let full = g < 14 && n <= 3;
        let sample = if full { 1.0 } else { 2.0 / (45.0 * n as f64) };
        let streams = g % 10 == 1;
        let (mut invariance_left, mut errors_left) = if full { (usize::MAX, usize::MAX) } else { (2, 2) };
        let id = uuid::Uuid::new_v4().to_string();
        let created = TableEvent::TableCreated {
            table_id: id.clone(),
            game: Default::default(),
            creator: "p0".into(),
            settings: settings.clone(),
            practice: true,
            position: None,
            gathering: None,
            seated: (0..n).map(|i| SeatHolder { name: format!("p{i}"), bot: None }).collect(),
            clocks: Clocks { decision_secs: 86_400, reaction_secs: 86_400 },
            reaction_window_min_ms: 0,
            min_window_at_start: false,
            bot_delay_ms: 0,
            abandonment: 0,
        };
        let start = final_flicker::create(&settings, &mut rng).expect("create");
        tables::create_with_game::<crate::game::Served>(
            self.app.store.as_ref(),
            &id,
            &created,
            &start,
            "p0",
            self.app.clock.now(),
        )
        .await
        .expect("create table");
        // Tokens are checked against live accounts: the viewers' accounts exist.
        for (name, role) in (0..n).map(|i| (format!("p{i}"), Role::Player)).chain([("watcher".into(), Role::Spectator)])
        {
            crate::accounts::ensure_unusable(self.app.store.as_ref(), &name, role).await.expect("account");
        }
        let token = |name: &str, role: Role| self.app.keys.issue(name, role, TokenKind::Access, 86_400, vec![], None).0;
        let mut who: Vec<Who> = (0..n as u8)
            .map(|seat| Who {
                label: format!("p{seat}"),
                token: Some(token(&format!("p{seat}"), Role::Player)),
                viewer: Viewer::Seat { seat },
            })
            .collect();
        who.push(Who {
            label: "watcher".into(),
            token: Some(token("watcher", Role::Spectator)),
            viewer: Viewer::Spectator,
        });
        who.push(Who { label: "anonymous".into(), token: None, viewer: Viewer::Spectator });
        let tracks = vec![Track::default(); who.len()];
        let mut game = Game {
            id: id.clone(),
            events: Vec::new(),
            states: vec![State::new()],
            tracks,
            who,
            rests: Vec::new(),
            gathering: None,
        };
        game.catch_up(&self.app).await;
        // The table is live (no driver runs here to note it): `/me/tables` and the account
        // streams list it.
        self.app.driver.live.lock().expect("live").tables.insert(id.clone());
        // R6.5.4, R10.6.5: in most games that hold their windows, one seat has auto-pass on;
        // the server passes for it (as the driver does) whenever its Salt prompt has no 5.
        let auto = (settings.hold_windows && self.rng.random_bool(0.7)).then(|| self.rng.random_range(0..n as u8));
        let want: HashSet<String> = auto.iter().map(|s| format!("p{s}")).collect();
        let flips: Vec<String> = self.auto_on.symmetric_difference(&want).cloned().collect();
        for name in flips {
            // The account may hold no seat in this game (a seat of an earlier, larger one).
            let w = Who { label: name.clone(), token: Some(token(&name, Role::Player)), viewer: Viewer::Spectator };
            let on = want.contains(&name);
            let req = w.req(TestRequest::put().uri("/api/v1/me/preferences")).set_json(json!({"auto_pass": on}));
            self.counts.requests += 1;
            let r = (self.call)(req).await;
            assert_eq!((r.status, r.json("preferences")), (200, json!({"auto_pass": on})), "{name}: auto-pass {on}");
        }
        self.auto_on = want;
        // Live streams, opened before play and read to the end; and the account streams.
        let mut open_streams = Vec::new();
        let mut account_streams = Vec::new();
        if streams {
            for w in game.who.clone() {
                let req = w.req(TestRequest::get().uri(&format!("/api/v1/tables/{id}/stream")));
                open_streams.push((w.clone(), (self.open)(req).await));
                if w.token.is_some() {
                    let req = w.req(TestRequest::get().uri("/api/v1/me/stream"));
                    account_streams.push((w, (self.tail)(req).await));
                }
            }
        }
        let stream_id = tables::stream_of(&id);
        let mut commands = 0usize;
        let mut close = None;
        self.check_close_time(&id, &mut close).await;
        while !game.now().is_finished() {
            commands += 1;
            assert!(commands < 50_000, "game {g} does not end");
            let state = game.now().clone();
            let open = prompts(&state);
            let answerable: Vec<_> =
                open.iter().filter(|p| !matches!(p.kind, PromptKind::Salt { current: Some(_), .. })).collect();
            // An auto-pass due now is sent before anything else (the driver sends it at once).
            let auto_due = match auto {
                Some(a) => {
                    let snap = self.app.tables.load(self.app.store.as_ref(), &id).await.expect("load");
                    let holder = format!("p{a}");
                    flicker_platform::due::auto_pass::<crate::game::Served>(&snap, |h| h == holder)
                        .map(|(seat, holder, cmd)| (snap, seat, holder, cmd))
                }
                None => None,
            };
            let concede = Command::Concede { seat: rng.random_range(0..n as u8) };
            let cmd = if let Some((_, _, _, cmd)) = &auto_due {
                cmd.clone()
            } else if rng.random_ratio(1, 400)
                && final_flicker::decide(&state, &concede, &mut ChaCha8Rng::seed_from_u64(1)).is_ok()
            {
                concede
            } else {
                match answerable.get(rng.random_range(0..answerable.len().max(1))) {
                    Some(p) => Command::Answer {
                        seat: p.seat,
                        prompt: Some(p.id),
                        answer: flicker_lab::bot::random_answer(p, &mut self.rng),
                    },
                    None => Command::CloseWindow,
                }
            };
            // Which readers the command's events would be hidden from (a preview on a copy).
            let preview = final_flicker::decide(&state, &cmd, &mut ChaCha8Rng::seed_from_u64(rng.random()))
                .expect("a legal command");
            let hidden_from = |game: &Game, events: &[Event]| -> Vec<usize> {
                let mut before = game.now().clone();
                let mut hidden = vec![true; game.who.len()];
                for e in events {
                    let mut after = before.clone();
                    final_flicker::apply(&mut after, e);
                    for (h, w) in hidden.iter_mut().zip(&game.who) {
                        *h &= final_flicker::redact(&before, e, &after, w.viewer).is_none();
                    }
                    before = after;
                }
                hidden.iter().enumerate().filter(|(_, h)| **h).map(|(i, _)| i).collect()
            };
            let hide = hidden_from(&game, &preview);
            let last = preview.iter().any(|e| matches!(e, Event::GameEnded { .. }));
            let sampled = last || self.rng.random_bool(sample);
            let invariance = !hide.is_empty() && invariance_left > 0 && (full || self.rng.random_bool(0.25));
            if sampled {
                for w in 0..game.who.len() {
                    self.check_moment(&mut game, w, full).await;
                }
                if errors_left > 0 && self.rng.random_bool(if full { 0.2 } else { 0.5 }) {
                    errors_left -= 1;
                    let seat = self.rng.random_range(0..n as u8);
                    self.check_errors(&game, seat).await;
                }
            }
            let mut before = Vec::new();
            if invariance {
                invariance_left -= 1;
                // Outside the full games: a spectator (when the events are hidden from them) and
                // one seat.
                let mut chosen = hide.clone();
                if !full {
                    let spectators: Vec<usize> = hide.iter().copied().filter(|&w| w >= n).collect();
                    let seats: Vec<usize> = hide.iter().copied().filter(|&w| w < n).collect();
                    chosen = Vec::new();
                    if !spectators.is_empty() {
                        chosen.push(spectators[self.rng.random_range(0..spectators.len())]);
                    }
                    if !seats.is_empty() {
                        chosen.push(seats[self.rng.random_range(0..seats.len())]);
                    }
                }
                for &w in &chosen {
                    before.push((w, self.capture(&game, w).await));
                }
            }
            // Apply it: through the route some of the time, else as a table command.
            let first_new = game.events.len();
            self.counts.commands += 1;
            match &cmd {
                _ if auto_due.is_some() => {
                    let (snap, seat, holder, _) = auto_due.as_ref().expect("due");
                    assert!(crate::driver::auto_pass(&self.app, snap).await, "the due auto-pass was taken");
                    // Stored as the player's own answer: the same actor, an idempotency key.
                    let from = crate::store::StreamVersion::new(snap.version as u64 + 1);
                    let stored = self.app.store.read_stream(&stream_id, from).await.expect("read");
                    let first = stored.first().expect("the auto-pass appended");
                    assert_eq!(first.metadata.actor.as_deref(), Some(holder.as_str()), "seat {seat}: the actor");
                    assert!(first.metadata.command_key.is_some(), "seat {seat}: an auto-pass without a key");
                    assert!(stored.iter().all(|e| e.metadata.actor.as_deref() == Some(holder.as_str())));
                    self.counts.auto_passes += 1;
                }
                Command::Answer { seat, prompt: Some(pid), answer } if self.rng.random_bool(0.2) => {
                    let w = game.who[*seat as usize].clone();
                    let key = uuid::Uuid::new_v4().to_string();
                    let body = json!({"seat": seat, "prompt_id": pid, "answer": answer});
                    let req = || {
                        w.req(TestRequest::post().uri(&format!("/api/v1/tables/{id}/answers")))
                            .insert_header(("Idempotency-Key", key.clone()))
                            .set_json(&body)
                    };
                    self.counts.requests += 1;
                    let r = (self.call)(req()).await;
                    assert_eq!(r.status, 200, "a legal answer through the route: {}", r.text());
                    self.counts.by_route += 1;
                    game.catch_up(&self.app).await;
                    let j = r.json("answer");
                    let viewer = if game.now().is_finished() { Viewer::Everything } else { w.viewer };
                    self.counts.cards +=
                        check_view(&j, game.now(), viewer, "answer response").unwrap_or_else(|e| panic!("leak: {e}"));
                    self.counts.views += 1;
                    if self.rng.random_bool(0.15) {
                        // A retry with the same key acts once.
                        self.counts.requests += 1;
                        let again = (self.call)(req()).await;
                        assert_eq!(again.status, 200, "an idempotent retry: {}", again.text());
                        assert!(again.replay, "the retry is marked Idempotent-Replay");
                        assert_eq!(game.catch_up(&self.app).await.len(), 0, "a retry appended events");
                        self.counts.replays += 1;
                    }
                }
                Command::Concede { seat } => {
                    let w = game.who[*seat as usize].clone();
                    let req = w.req(TestRequest::post().uri(&format!("/api/v1/tables/{id}/concede")));
                    self.counts.requests += 1;
                    let r = (self.call)(req).await;
                    assert_eq!(r.status, 200, "a concession: {}", r.text());
                    self.counts.concessions += 1;
                }
                _ => {
                    let actor = match &cmd {
                        Command::Answer { seat, .. } => format!("p{seat}"),
                        _ => "system:clock".into(),
                    };
                    self.app
                        .tables
                        .command(self.app.store.as_ref(), &id, &actor, None, |snap| {
                            let ev = final_flicker::decide(&snap.state, &cmd, &mut rng)?;
                            Ok::<_, crate::problem::Problem>(
                                ev.iter()
                                    .map(|e| tables::engine_event::<crate::game::Served>(e, Metadata::default()))
                                    .collect(),
                            )
                        })
                        .await
                        .expect("a legal command");
                }
            }
            let _ = self.app.changes.send(stream_id.clone());
            game.catch_up(&self.app).await;
            self.check_close_time(&id, &mut close).await;
            // Hidden-event invariance, on what really happened.
            if !before.is_empty() {
                let batch = game.events[first_new..].to_vec();
                let mut s = state.clone();
                let mut hidden_now = vec![true; game.who.len()];
                for e in &batch {
                    let mut a = s.clone();
                    final_flicker::apply(&mut a, e);
                    for (h, w) in hidden_now.iter_mut().zip(&game.who) {
                        *h &= final_flicker::redact(&s, e, &a, w.viewer).is_none();
                    }
                    s = a;
                }
                for (w, old) in before {
                    if !hidden_now[w] || game.now().is_finished() {
                        continue;
                    }
                    let new = self.capture(&game, w).await;
                    let kinds: Vec<_> = batch.iter().map(Event::type_name).collect();
                    // When the engine's projection itself moves over the hidden events (the
                    // game visibly goes on), the table and the prompt may move with it; the
                    // replay, the events, their cursors and counts may not.
                    let viewer = game.who[w].viewer;
                    let moved = final_flicker::view(&state, viewer) != final_flicker::view(game.now(), viewer);
                    if moved {
                        let key = format!(
                            "{kinds:?} for {}",
                            if viewer == Viewer::Spectator { "spectators" } else { "seats" }
                        );
                        let e = self.counts.moved.entry(key).or_insert((0, String::new()));
                        e.0 += 1;
                        if e.1.is_empty() {
                            let show =
                                |st: &State| serde_json::to_string(&final_flicker::view(st, viewer).awaiting).unwrap();
                            e.1 = format!(
                                "table {id}, events {}.., awaiting {} -> {}",
                                first_new,
                                show(&state),
                                show(game.now())
                            );
                        }
                    }
                    for ((p, a), (_, b)) in old.iter().zip(&new) {
                        if moved && !p.contains("/replay") && !p.contains("/events") {
                            continue;
                        }
                        assert!(
                            a == b,
                            "{} ({:?}): {p} changed over events hidden from it ({kinds:?}):\nbefore: {:?} {}\nafter:  {:?} {}",
                            game.who[w].label,
                            game.who[w].viewer,
                            a.etag,
                            a.text(),
                            b.etag,
                            b.text()
                        );
                    }
                    assert_eq!(old.len(), new.len());
                    self.counts.hidden_batches += 1;
                }
            }
        }
        // After the end: the complete record for everyone.
        let anyone = game.who.last().expect("anonymous").clone();
        let r = self.get(&anyone, &format!("/api/v1/tables/{id}/replay?at=1")).await;
        assert_eq!(r.status, 200);
        assert_eq!(r.json("replay")["total"].as_u64(), Some(game.events.len() as u64), "after the end: every event");
        let _ = self.app.changes.send(stream_id.clone());
        // The streams: each message checked against the state at the event it shows.
        for (w, handle) in open_streams {
            let body = tokio::time::timeout(Duration::from_secs(30), handle)
                .await
                .unwrap_or_else(|_| panic!("{}: the stream did not end", w.label))
                .expect("stream task");
            let text = String::from_utf8(body).expect("utf-8");
            let msgs = crate::spectate_tests::messages(&text);
            let (last, rest) = msgs.split_last().expect("messages");
            assert_eq!(last.1.as_deref(), Some("finished"), "{}: the stream ends with finished", w.label);
            let t = &game.tracks[game.who.iter().position(|x| x.label == w.label).expect("reader")];
            assert_eq!(rest.len(), t.seq.len(), "{}: the stream carries the reader's sequence", w.label);
            let mut ids = HashSet::new();
            for ((mid, kind, data), &i) in rest.iter().zip(&t.seq) {
                let e = &game.events[i];
                assert_eq!(kind.as_deref(), Some(e.type_name()), "{}: stream order", w.label);
                assert!(ids.insert(mid.clone().expect("an id")), "{}: a repeated id", w.label);
                let j: Value = serde_json::from_str(data).expect("json");
                let wh = format!("{} ({:?}) stream message {} ({})", w.label, w.viewer, ids.len(), e.type_name());
                self.counts.cards += check_event(&j, &game.states[i], e, &game.states[i + 1], w.viewer, &wh)
                    .unwrap_or_else(|e| panic!("leak: {e}"));
                self.counts.stream_events += 1;
            }
            self.counts.streams += 1;
        }
        self.check_account_streams(&game, account_streams).await;
        self.app.driver.live.lock().expect("live").tables.remove(&id);
        self.counts.auto_pass_games += usize::from(auto.is_some());
        self.counts.games += 1;
        self.counts.players[n] += 1;
    }

    /// The account streams of a finished game: each seat's tells it only about its own seat,
    /// and only when that seat's `awaiting` changed: every message is the seat's own awaiting at
    /// a moment the table rested (in order, none repeated), the last says `finished`. A spectator
    /// account holds no seat and hears nothing.
    async fn check_account_streams(&mut self, game: &Game, streams: Vec<(Who, Tailed)>) {
        let id = &game.id;
        let limit = Instant::now() + Duration::from_secs(30);
        for (w, (buf, task)) in streams {
            let finished = |b: &[u8]| String::from_utf8_lossy(b).contains(r#""status":"finished""#);
            match w.seat() {
                Some(_) => {
                    while !finished(&buf.lock().expect("buf")) {
                        assert!(Instant::now() < limit, "{}: the account stream never said finished", w.label);
                        tokio::time::sleep(Duration::from_millis(5)).await;
                    }
                }
                // Nothing is due to a spectator: a moment for anything wrongly sent to arrive.
                None => tokio::time::sleep(Duration::from_millis(50)).await,
            }
            task.abort();
            let text = String::from_utf8(buf.lock().expect("buf").clone()).expect("utf-8");
            let msgs = crate::spectate_tests::messages(&text);
            let Some(seat) = w.seat() else {
                assert!(msgs.is_empty(), "{}: an account with no seat was told {msgs:?}", w.label);
                self.counts.account_streams += 1;
                continue;
            };
            let (last, rest) = msgs.split_last().expect("messages");
            let want_last = json!({"table_id": id, "game": "the-final-flicker", "status": "finished", "seats": [seat], "awaiting": []});
            assert_eq!(serde_json::from_str::<Value>(&last.2).expect("json"), want_last, "{}: the end", w.label);
            assert!(!rest.is_empty(), "{}: the stream opened without the table", w.label);
            let mut at = 0usize;
            let mut previous: Option<Value> = None;
            for (_, kind, data) in rest {
                assert_eq!(kind.as_deref(), Some("table"), "{}", w.label);
                let m: Value = serde_json::from_str(data).expect("json");
                assert_eq!(
                    (&m["table_id"], &m["status"], &m["seats"]),
                    (&json!(id), &json!("playing"), &json!([seat])),
                    "{}: {m}",
                    w.label
                );
                assert!(previous.as_ref() != Some(&m), "{}: told twice without a change: {m}", w.label);
                let told = m["awaiting"].clone();
                while at < game.rests.len() && json!(awaiting(&game.states[game.rests[at]], seat)) != told {
                    at += 1;
                }
                assert!(
                    at < game.rests.len(),
                    "{}: told {m}, which its own prompt never said after the last message",
                    w.label
                );
                previous = Some(m);
                self.counts.account_messages += 1;
            }
            self.counts.account_streams += 1;
        }
    }
}

impl Scanner<'_> {
    /// Plays game `g` at a gathering table with a spectator delay and the commentary
    /// view on, and reads it *while it runs* as every delayed reader: the spectators, the
    /// organiser's commentary view and each eliminated seat. Each read is compared byte for byte
    /// with the scanner's own fold of the reader's sequence up to its horizon.
    async fn delayed_game(&mut self, g: usize, seed: u64, clock: &crate::clock::ManualClock) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0xde1a);
        self.rng = ChaCha8Rng::seed_from_u64(seed ^ 0xde1b);
        let settings = settings_for(g, &mut rng);
        let n = settings.players as usize;
        let delay = if g.is_multiple_of(2) { Delay::Events(rng.random_range(1..8)) } else { Delay::Secs(8) };
        let (events, secs) = match delay {
            Delay::Events(d) => (d, 0),
            Delay::Secs(s) => (0, s),
        };
        let gid = uuid::Uuid::new_v4().to_string();
        let gathering = crate::gatherings::GatheringEvent::GatheringCreated {
            gathering_id: gid.clone(),
            name: format!("delayed {g}"),
            organiser: "org".into(),
            settings: crate::gatherings::GatheringSettings {
                commentary: true,
                spectator_delay_events: events,
                spectator_delay_secs: secs,
                ..Default::default()
            },
        };
        // The table plays circle 1 of the gathering's first stage, so the bracket shows whom
        // it waits for (R10.6.2) at the spectators' horizon.
        let id = uuid::Uuid::new_v4().to_string();
        let drawn = crate::gatherings::GatheringEvent::StageDrawn {
            stage: 1,
            circles: vec![crate::gatherings::CircleDraw {
                circle: 1,
                table_id: id.clone(),
                players: (0..n).map(|i| format!("p{i}")).collect(),
            }],
        };
        let e = [gathering, crate::gatherings::GatheringEvent::GatheringStarted, drawn]
            .iter()
            .map(|e| crate::gatherings::to_new(e, "org"))
            .collect();
        self.app
            .store
            .append(&crate::gatherings::stream_of(&gid), crate::store::ExpectedVersion::NO_STREAM, e)
            .await
            .expect("gathering");
        let created = TableEvent::TableCreated {
            table_id: id.clone(),
            game: Default::default(),
            creator: "org".into(),
            settings: settings.clone(),
            practice: false,
            position: None,
            gathering: Some(tables::TableGathering { gathering_id: gid.clone(), stage: 1, circle: 1 }),
            seated: (0..n).map(|i| SeatHolder { name: format!("p{i}"), bot: None }).collect(),
            clocks: Clocks { decision_secs: 86_400, reaction_secs: 86_400 },
            reaction_window_min_ms: 0,
            bot_delay_ms: 0,
            abandonment: 0,
            min_window_at_start: false,
        };
        let start = final_flicker::create(&settings, &mut rng).expect("create");
        tables::create_with_game::<crate::game::Served>(
            self.app.store.as_ref(),
            &id,
            &created,
            &start,
            "org",
            self.app.clock.now(),
        )
        .await
        .expect("create table");
        // Tokens are checked against live accounts: the readers' accounts exist.
        let role = |name: &str| if name == "watcher" { Role::Spectator } else { Role::Player };
        for name in (0..n).map(|i| format!("p{i}")).chain(["watcher".into(), "org".into()]) {
            crate::accounts::ensure_unusable(self.app.store.as_ref(), &name, role(&name)).await.expect("account");
        }
        let token = |name: &str| self.app.keys.issue(name, role(name), TokenKind::Access, 86_400, vec![], None).0;
        let mut who: Vec<Who> = (0..n as u8)
            .map(|seat| Who {
                label: format!("p{seat}"),
                token: Some(token(&format!("p{seat}"))),
                viewer: Viewer::Seat { seat },
            })
            .collect();
        who.push(Who { label: "watcher".into(), token: Some(token("watcher")), viewer: Viewer::Spectator });
        who.push(Who { label: "anonymous".into(), token: None, viewer: Viewer::Spectator });
        who.push(Who { label: "org".into(), token: Some(token("org")), viewer: Viewer::Commentary });
        let tracks = vec![Track::default(); who.len()];
        let mut game = Game {
            id: id.clone(),
            events: Vec::new(),
            states: vec![State::new()],
            tracks,
            who,
            rests: Vec::new(),
            gathering: Some(gid),
        };
        game.catch_up(&self.app).await;
        self.check_delayed_all(&game, delay, clock).await;
        let mut commands = 0usize;
        while !game.now().is_finished() {
            commands += 1;
            assert!(commands < 50_000, "delayed game {g} does not end");
            let state = game.now().clone();
            let open = prompts(&state);
            let answerable: Vec<_> =
                open.iter().filter(|p| !matches!(p.kind, PromptKind::Salt { current: Some(_), .. })).collect();
            let cmd = match answerable.get(rng.random_range(0..answerable.len().max(1))) {
                Some(p) => Command::Answer {
                    seat: p.seat,
                    prompt: Some(p.id),
                    answer: flicker_lab::bot::random_answer(p, &mut self.rng),
                },
                None => Command::CloseWindow,
            };
            let finishing = final_flicker::decide(&state, &cmd, &mut ChaCha8Rng::seed_from_u64(1))
                .is_ok_and(|ev| ev.iter().any(|e| matches!(e, Event::GameEnded { .. })));
            if finishing || self.rng.random_bool(2.0 / (10.0 * n as f64)) {
                self.check_delayed_all(&game, delay, clock).await;
            }
            self.counts.commands += 1;
            self.app
                .tables
                .command(self.app.store.as_ref(), &id, "system:scanner", None, |snap| {
                    let ev = final_flicker::decide(&snap.state, &cmd, &mut rng)?;
                    Ok::<_, crate::problem::Problem>(
                        ev.iter()
                            .map(|e| tables::engine_event::<crate::game::Served>(e, Metadata::default()))
                            .collect(),
                    )
                })
                .await
                .expect("a legal command");
            game.catch_up(&self.app).await;
        }
        self.counts.delayed_games += 1;
    }

    /// Reads the delayed table as each delayed reader: the spectators, the commentary view and
    /// every eliminated seat; under a seconds delay at a server time that puts the horizon among
    /// the latest events.
    async fn check_delayed_all(&mut self, game: &Game, delay: Delay, clock: &crate::clock::ManualClock) {
        let snap = self.app.tables.load(self.app.store.as_ref(), &game.id).await.expect("load");
        if let Delay::Secs(s) = delay {
            let k = snap.times.len();
            let pick = k - 1 - self.rng.random_range(0..k.min(30));
            let at = if self.rng.random_bool(0.2) {
                snap.times[k - 1] + chrono::Duration::seconds(1)
            } else {
                snap.times[pick]
            };
            clock.set(at + chrono::Duration::seconds(s as i64));
        }
        for w in 0..game.who.len() {
            let delayed = match game.who[w].viewer {
                Viewer::Seat { seat } => !game.now().is_lit(seat),
                _ => true,
            };
            if delayed {
                self.check_delayed(game, &snap, w, delay, crate::clock::Clock::now(clock)).await;
            }
        }
    }

    /// One delayed reader's table, events and replay, against the fold of its own sequence up
    /// to its horizon: `delay` back (in its sequence, or in time at `now`), moved on over the rest
    /// of that event's append when that rest is hidden from it (events of one append share their
    /// recorded time). The table must be byte for byte the projection of that state with the
    /// clock mark stored up to there.
    async fn check_delayed(
        &mut self,
        game: &Game,
        snap: &crate::game::Snapshot,
        w: usize,
        delay: Delay,
        now: chrono::DateTime<chrono::Utc>,
    ) {
        let who = game.who[w].clone();
        let viewer = who.viewer;
        let id = &game.id;
        let seq = &game.tracks[w].seq;
        let all = game.events.len();
        let shown = match delay {
            Delay::Events(d) => seq.len().saturating_sub(d as usize),
            Delay::Secs(s) => {
                let cutoff = now - chrono::Duration::seconds(s as i64);
                seq.iter().filter(|&&i| snap.times[i] <= cutoff).count()
            }
        };
        let visible = match shown.checked_sub(1).map(|n| seq[n]) {
            None => 0,
            Some(last) => {
                let mut k = last + 1;
                while k < all && snap.times[k] == snap.times[last] && seq.get(shown) != Some(&k) {
                    k += 1;
                }
                k
            }
        };
        // The organiser asks for the commentary view explicitly.
        let (q, and) = if viewer == Viewer::Commentary { ("?commentary=true", "&commentary=true") } else { ("", "") };
        let what = format!("{} ({viewer:?}) delayed {delay:?} at event {all}, horizon {visible}", who.label);
        // The table: byte for byte.
        let r = self.get(&who, &format!("/api/v1/tables/{id}{q}")).await;
        assert_eq!(r.status, 200, "{what}: {}", r.text());
        let account = who.token.as_ref().map(|_| who.label.as_str());
        let (view, clock) = if visible == 0 {
            (None, None)
        } else {
            let st = &game.states[visible];
            let mark = if visible >= all {
                snap.clock.as_ref()
            } else {
                snap.marks[..visible].iter().rev().find_map(Option::as_ref)
            };
            (
                Some(final_flicker::view(st, viewer)),
                crate::clocks::view_for::<crate::game::Served>(st, mark, who.seat(), false, &[]),
            )
        };
        let expected = serde_json::to_vec(&flicker_wire::tables::TableResponse::<crate::game::Served> {
            table: snap.info_for(account),
            view,
            clock,
        })
        .expect("json");
        assert!(
            r.body == expected,
            "{what}: the table is not the fold up to the horizon:\n got:  {}\n want: {}",
            r.text(),
            String::from_utf8_lossy(&expected)
        );
        let j = r.json("table");
        if visible == 0 {
            assert!(j.get("view").is_none() && j.get("clock").is_none(), "{what}: a game before the horizon");
        } else {
            let at = &game.states[visible];
            self.counts.cards += check_view(&j, at, viewer, &what).unwrap_or_else(|e| panic!("leak: {e}"));
            check_no_hidden_handle("", &j, at, viewer, &[], &what).unwrap_or_else(|e| panic!("leak: {e}"));
        }
        // The events: exactly the reader's sequence up to the horizon.
        let mut items = Vec::new();
        let mut after = String::new();
        loop {
            let r = self.get(&who, &format!("/api/v1/tables/{id}/events?limit=500{after}{and}")).await;
            assert_eq!(r.status, 200, "{what}: {}", r.text());
            let page = r.json("events");
            let got = page["events"].as_array().expect("events").clone();
            let more = got.len() == 500;
            items.extend(got);
            after = page["next"].as_str().map(|c| format!("&after={c}")).unwrap_or_default();
            if !more {
                break;
            }
        }
        assert_eq!(items.len(), shown, "{what}: events up to the horizon");
        for (item, &i) in items.iter().zip(seq) {
            let e = &game.events[i];
            assert_eq!(item["event"]["type"].as_str(), Some(e.type_name()), "{what}: order");
            self.counts.cards += check_event(&item["event"], &game.states[i], e, &game.states[i + 1], viewer, &what)
                .unwrap_or_else(|e| panic!("leak: {e}"));
        }
        // The latest replay step.
        let r = self.get(&who, &format!("/api/v1/tables/{id}/replay{q}")).await;
        if shown == 0 {
            assert_eq!(r.status, 400, "{what}: a replay before the horizon reaches the first event");
        } else {
            assert_eq!(r.status, 200, "{what}: {}", r.text());
            let j = r.json("replay");
            assert_eq!(j["total"].as_u64(), Some(shown as u64), "{what}: replay total");
            let i = seq[shown - 1];
            self.counts.cards +=
                check_view(&j["view"], &game.states[i + 1], viewer, &what).unwrap_or_else(|e| panic!("leak: {e}"));
            // R10.13: the latest position is the one at the horizon, never ahead of it.
            self.check_position(&who, id, q, i + 1, game, &format!("{what}: position")).await;
            let r = self.get(&who, &format!("/api/v1/tables/{id}/position{q}")).await;
            let want = final_flicker::position::position_for(&game.states[i + 1], viewer).to_string();
            assert_eq!(r.text(), want, "{what}: the position at the horizon");
        }
        // R10.6.2, R10.8: the bracket's "waiting on" for this circle, read anonymously: the
        // spectators' horizon, whom the spectator view says it waits for, and inside a
        // reaction window nobody named.
        if who.token.is_none()
            && let Some(gid) = &game.gathering
        {
            let r = self.get(&who, &format!("/api/v1/gatherings/{gid}/bracket")).await;
            assert_eq!(r.status, 200, "{what}: {}", r.text());
            let b = r.json("bracket");
            let got = &b["stages"][0]["circles"][0]["waiting"];
            let seen = &game.states[visible];
            let mark = snap.marks[..visible.min(snap.marks.len())].iter().rev().find_map(Option::as_ref);
            let want = if visible == 0 {
                None
            } else {
                crate::gatherings::views::waiting::<crate::game::Served>(
                    seen,
                    &snap.info.seats,
                    mark.map(|m| m.opened_at),
                )
            };
            assert_eq!(got, &serde_json::to_value(&want).expect("json"), "{what}: waiting at the horizon");
            if let Some(w) = want {
                if w.window {
                    assert!(w.seats.is_empty() && w.names.is_empty() && w.since.is_none(), "{what}: R10.6.2 {w:?}");
                } else {
                    // Named only where the spectator view itself names the seat.
                    let view = final_flicker::view(seen, Viewer::Spectator);
                    let named: Vec<u8> = match view.awaiting {
                        final_flicker::projection::view::Awaiting::Seat { seat } => vec![seat],
                        _ => Vec::new(),
                    };
                    assert_eq!(w.seats, named, "{what}: waiting names what the spectator view does not");
                }
                self.counts.waiting[usize::from(!w.window)] += 1;
            }
        }
        self.counts.delayed_reads += 1;
        let kind = match viewer {
            Viewer::Seat { .. } => "eliminated seat",
            Viewer::Commentary => "commentary",
            _ => "spectator",
        };
        *self
            .counts
            .delayed_by
            .entry(format!("{kind}, {}", if matches!(delay, Delay::Secs(_)) { "seconds" } else { "events" }))
            .or_default() += 1;
    }

    /// R10.6.4, R10.6.5: at a table that holds its windows, the driver's
    /// close of the open reaction decision point is its deadline, whenever the driver decides
    /// it, and it never moves while the point stays open, whatever answers came meanwhile.
    /// `open` carries the point's (opening, close) as first decided.
    async fn check_close_time(
        &mut self,
        id: &str,
        open: &mut Option<(chrono::DateTime<chrono::Utc>, chrono::DateTime<chrono::Utc>)>,
    ) {
        let snap = self.app.tables.load(self.app.store.as_ref(), id).await.expect("the table");
        let Some(mark) = snap.clock.clone() else {
            *open = None;
            return;
        };
        let Some(first) = flicker_platform::due::reaction_close(&snap, mark.opened_at) else {
            *open = None;
            return;
        };
        for now in [mark.opened_at + chrono::Duration::milliseconds(1), mark.deadline + chrono::Duration::seconds(1)] {
            assert_eq!(
                flicker_platform::due::reaction_close(&snap, now),
                Some(first),
                "leak: the close moves with the time asked"
            );
        }
        assert_eq!(first.1, mark.deadline, "leak: a held reaction point closes off its deadline (R10.6.4)");
        if let Some(before) = open.as_ref()
            && before.0 == first.0
        {
            assert_eq!(*before, first, "leak: the close time moved with an answer (R10.6.4)");
        }
        *open = Some(first);
        self.counts.close_times += 1;
    }
}

/// The leak scanner over at least 300 random games, 2-8 players: 200 with classes, 100 under
/// `classic-1.0`.
#[actix_web::test]
#[allow(clippy::async_yields_async)]
async fn the_leak_scanner_finds_nothing() {
    let games = env_or("FLICKER_LEAK_GAMES", 300) as usize;
    let seed = env_or("FLICKER_LEAK_SEED", 6);
    println!("leak scan: {games} games, seed {seed} (FLICKER_LEAK_GAMES, FLICKER_LEAK_SEED)");
    let started = Instant::now();
    let shm = std::path::Path::new("/dev/shm");
    let base = if shm.is_dir() { shm.to_path_buf() } else { std::env::temp_dir() };
    let dir = base.join(format!("flicker-leak-scan-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let store = crate::store::open(&dir.join("flicker.db").display().to_string()).await.unwrap();
    // No driver: the scanner alone acts on its tables (and signals the live streams).
    let app = crate::server::state(store).await.unwrap();
    // Spectator delays in seconds read the server clock, set by the scanner.
    let clock = crate::clock::ManualClock::at(chrono::Utc::now());
    let mut inner = std::sync::Arc::try_unwrap(app.into_inner()).ok().expect("one owner");
    inner.clock = clock.clone();
    let app = web::Data::new(inner);
    let svc = at::init_service(App::new().app_data(app.clone()).configure(crate::server::configure)).await;
    let svc = &svc;
    let call: Call = Box::new(move |req: TestRequest| {
        Box::pin(async move {
            let resp = at::call_service(svc, req.to_request()).await;
            let status = resp.status();
            let etag = resp.headers().get("etag").and_then(|v| v.to_str().ok()).map(str::to_string);
            let replay = resp.headers().get("idempotent-replay").is_some();
            let body = at::read_body(resp).await.to_vec();
            Resp { status: status.as_u16(), etag, replay, body }
        })
    });
    let open: Open = Box::new(move |req: TestRequest| {
        Box::pin(async move {
            let resp = at::call_service(svc, req.to_request()).await;
            assert_eq!(resp.status(), StatusCode::OK, "a stream opens");
            actix_web::rt::spawn(async move { at::read_body(resp).await.to_vec() })
        })
    });
    let tail: Tail = Box::new(move |req: TestRequest| {
        Box::pin(async move {
            let resp = at::call_service(svc, req.to_request()).await;
            assert_eq!(resp.status(), StatusCode::OK, "a stream opens");
            let buf = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
            let sink = buf.clone();
            let task = actix_web::rt::spawn(async move {
                let mut body = Box::pin(resp.into_body());
                while let Some(Ok(chunk)) =
                    std::future::poll_fn(|cx| actix_web::body::MessageBody::poll_next(body.as_mut(), cx)).await
                {
                    sink.lock().expect("buf").extend_from_slice(&chunk);
                }
            });
            (buf, task)
        })
    });
    let mut s = Scanner {
        app: app.clone(),
        call,
        open,
        tail,
        counts: Counts::default(),
        rng: ChaCha8Rng::seed_from_u64(seed),
        auto_on: HashSet::new(),
    };
    for g in 0..games {
        let game_seed = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15).wrapping_add(g as u64);
        let t = Instant::now();
        s.game(g, game_seed).await;
        if std::env::var("FLICKER_LEAK_VERBOSE").is_ok() || t.elapsed() > Duration::from_secs(5) {
            let c = &s.counts;
            println!(
                "  game {g} (seed {game_seed}, {} players) {:?}: {} commands, {} requests so far",
                2 + g % 7,
                t.elapsed(),
                c.commands,
                c.requests
            );
        }
    }
    // A fifth as many games again under spectator delays, read while they run.
    let delayed_started = Instant::now();
    for g in 0..games.div_ceil(5) {
        let game_seed = seed.wrapping_mul(0x2545_f491_4f6c_dd1d).wrapping_add(g as u64);
        s.delayed_game(g, game_seed, &clock).await;
    }
    let c = &s.counts;
    println!(
        "leak scan: {} delayed games, {} delayed reads compared with the fold up to the horizon ({:?}); {:.1} s",
        c.delayed_games,
        c.delayed_reads,
        c.delayed_by,
        delayed_started.elapsed().as_secs_f64()
    );
    assert!(c.delayed_games >= games.div_ceil(5) && c.delayed_by.len() >= 5, "every delayed reader was read");
    let c = &s.counts;
    println!(
        "leak scan: {} games ({:?} by players), {} commands ({} through the route, {} idempotent retries, {} concessions)",
        c.games,
        &c.players[2..],
        c.commands,
        c.by_route,
        c.replays,
        c.concessions
    );
    println!(
        "leak scan: {} requests, {} responses checked, {} cards checked, {} events checked ({} kinds), {} stream messages in {} streams, {} hidden batches unchanged, {} refused answers; {:.1} s",
        c.requests,
        c.views,
        c.cards,
        c.events,
        c.kinds.len(),
        c.stream_events,
        c.streams,
        c.hidden_batches,
        c.errors,
        started.elapsed().as_secs_f64()
    );
    println!(
        "leak scan: {} positions checked ({} cards named), {:.1} s reading and checking them",
        c.positions,
        c.position_cards,
        c.position_time.as_secs_f64()
    );
    assert!(c.positions > 0, "positions were read");
    println!("leak scan: {} close times of held reaction points checked", c.close_times);
    assert!(c.close_times > 0, "some held reaction points were checked");
    println!(
        "leak scan: {} reads of my tables, {} account streams ({} messages), {} auto-passes in {} games, {} bracket waits checked ({} in windows)",
        c.my_tables,
        c.account_streams,
        c.account_messages,
        c.auto_passes,
        c.auto_pass_games,
        c.waiting[0] + c.waiting[1],
        c.waiting[0]
    );
    assert!(c.my_tables > 0 && c.account_streams > 0 && c.account_messages > 0, "the account routes were read");
    assert!(c.auto_passes > 0 && c.waiting[0] > 0 && c.waiting[1] > 0, "auto-passes and bracket waits were checked");
    for (k, (n, ex)) in &c.moved {
        println!("leak scan: the projection moved over hidden events {k}: {n} times (e.g. {ex})");
    }
    assert!(c.games >= games && c.hidden_batches > 0 && c.errors > 0 && c.streams > 0);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The scanner can fail: another seat's hand card shown with its handle, a spectator shown a
/// hand, a face that is not the card's, and a handle from another moment are all caught.
#[test]
fn the_checker_catches_a_hidden_card() {
    let mut settings = Settings::new(3);
    settings.classes = true;
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut state = State::new();
    for e in final_flicker::create(&settings, &mut rng).unwrap() {
        final_flicker::apply(&mut state, &e);
    }
    let seat0 = serde_json::to_value(final_flicker::view(&state, Viewer::Seat { seat: 0 })).unwrap();
    assert!(check_view(&seat0, &state, Viewer::Seat { seat: 0 }, "own view").unwrap() > 0);
    // Seat 0's view shown to seat 1, or to a spectator: its hand is a leak.
    let err = check_view(&seat0, &state, Viewer::Seat { seat: 1 }, "seat 0's view for seat 1").unwrap_err();
    assert!(err.contains("may not see"), "{err}");
    assert!(check_view(&seat0, &state, Viewer::Spectator, "spectator").is_err());
    // A card of seat 1's hand, rendered with its real handle, inside seat 0's response.
    let (v0, v1) = (leaks::visible(&state, Viewer::Seat { seat: 0 }), leaks::visible(&state, Viewer::Seat { seat: 1 }));
    let c = leaks::cards(&state).find(|c| v1.contains(c) && !v0.contains(c)).expect("a card of seat 1's hand");
    let card = json!({"handle": leaks::handle_of(&state, c).0, "rank": leaks::face_of(&state, c).rank.label()});
    let mut planted = seat0.clone();
    planted["extra"] = json!({"peek": [card]});
    assert!(check_view(&planted, &state, Viewer::Seat { seat: 0 }, "planted").is_err());
    // The right handle with another face.
    let mine = *v0.iter().next().expect("a card seat 0 sees");
    let f =
        leaks::cards(&state).map(|c| leaks::face_of(&state, c)).find(|f| *f != leaks::face_of(&state, mine)).unwrap();
    let wrong = json!({"handle": leaks::handle_of(&state, mine).0, "rank": f.rank.label(),
        "suit": f.suit.map(|s| format!("{s:?}").to_lowercase())});
    assert!(check_view(&wrong, &state, Viewer::Seat { seat: 0 }, "wrong face").is_err());
    // A handle that names no card.
    assert!(check_view(&json!({"handle": 12345, "rank": "7"}), &state, Viewer::Everything, "nothing").is_err());
    // The scanner's own number check: a hidden handle as a bare number.
    let h = leaks::handle_of(&state, c).0;
    let res = check_no_hidden_handle("", &json!({"n": h}), &state, Viewer::Seat { seat: 0 }, &[], "bare number");
    assert!(res.is_err(), "a hidden handle as a bare number is caught");
}
