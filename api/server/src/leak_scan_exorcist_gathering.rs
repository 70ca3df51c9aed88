//! The leak scanner over gatherings of Let's Call the Exorcist (R10.8, R10.6.2, R9, X11.1,
//! X11.5, rules decisions 72-74): a bounded companion of [`crate::leak_scan_exorcist`], which
//! scans practice tables. Whole gatherings of accounts (no built-in bots, no driver: the scanner
//! answers every prompt itself, some through `POST /answers` with the seat's token, the rest as
//! table commands, and runs the process manager after every table that ends) are played through
//! the real routes, the real store and the real process manager, with the commentary view on and
//! a spectator delay (in events for one gathering, in seconds for the other, on a server clock
//! the scanner sets among the latest events' recorded times). Mid-stage the organiser drops one player (who concedes and is then delayed like a
//! spectator, R10.8) and replaces another by a substitute (who then reads its old table as a
//! spectator).
//!
//! At sampled moments of every circle table, for every reader (each player of the gathering with
//! its token, whether seated at that table or not; a spectator account; anonymous; the
//! organiser, plain and in the commentary view), the scanner reads every path that shows the
//! table (the table, the prompt, every events page, the latest replay step, sometimes every
//! replay step, the position route, which refuses the game, the table chat, whose seated
//! players now and then say something: a delayed reader's chat page must hold exactly the
//! entries of the rule restated here, rules decision 75) and the gathering's read paths
//! (summary, bracket, circles, standings, registrations, preview, results in JSON and CSV, the
//! caller's registration and tables), and reads live streams as they come (table streams of
//! seated players, an unseated player, anonymous and the commentary view; the gathering
//! stream; every player's account stream). Each body is checked with the engine's leak checker
//! ([`exorcist::LeakChecker`]) built from the unredacted events alone. A delayed reader is
//! checked at its own horizon (its sequence `N` events back, or the events older than `N`
//! seconds, moved on over the rest of that append when it is hidden from it), with a checker
//! that learned only the events before the horizon, and its table's view must be byte for byte
//! the projection of the state at the horizon. The bracket's `waiting` must be whom the table
//! waits for at the spectators' horizon (R10.6.2: nobody named in the mini-game's picks).
//!
//! `FLICKER_EXORCIST_GATHERING_SCANS` (default 2) and `FLICKER_LEAK_SEED` (default 6) override
//! the run.

use crate::accounts::Role;
use crate::auth::TokenKind;
use crate::clock::ManualClock;
use crate::game::Exorcist;
use crate::gatherings::{self, GatheringEvent, GatheringSettings, Registrant};
use crate::leak_scan_exorcist::{hidden_words, stream_data};
use crate::server::AppState;
use crate::tables::{self, TableError};
use actix_web::test as at;
use actix_web::test::TestRequest;
use actix_web::{App, web};
use exorcist::LeakChecker;
use flicker_game::{Game, Viewer};
use futures_util::future::LocalBoxFuture;
use rand::rngs::ChaCha8Rng;
use rand::seq::IndexedRandom;
use rand::{RngExt, SeedableRng};
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Instant;

type State = <Exorcist as Game>::State;
type Event = <Exorcist as Game>::Event;
type Buf = Arc<Mutex<Vec<u8>>>;

/// R10.8: a gathering's spectator delay.
#[derive(Debug, Clone, Copy)]
enum Delay {
    /// N events of the reader's own sequence.
    Events(u32),
    /// N seconds on the server clock.
    Secs(u32),
}

/// One reader of the gathering.
#[derive(Debug, Clone)]
struct Reader {
    label: String,
    /// The account (`None`: anonymous).
    name: Option<String>,
    token: Option<String>,
    /// Asks for the commentary view (the organiser).
    commentary: bool,
}

impl Reader {
    fn req(&self, t: TestRequest) -> TestRequest {
        match &self.token {
            Some(tok) => t.insert_header(("Authorization", format!("Bearer {tok}"))),
            None => t,
        }
    }
}

/// A live stream being read: what came so far, its reader task, the frames checked.
struct Tail {
    reader: usize,
    /// The reader's viewer at that table when it opened (table streams).
    viewer: Viewer,
    buf: Buf,
    task: tokio::task::JoinHandle<()>,
    seen: usize,
}

/// A circle table as the scanner folded it.
struct Table {
    id: String,
    events: Vec<Event>,
    /// `states[k]`: the state after `events[..k]`.
    states: Vec<State>,
    /// Learned every event so far.
    checker: LeakChecker,
    streams: Vec<Tail>,
    /// The table chat's entries: how many events each came after, and when it was stored.
    chat: Vec<(usize, chrono::DateTime<chrono::Utc>)>,
}

impl Table {
    fn now(&self) -> &State {
        self.states.last().expect("a state")
    }

    /// A checker that learned the first `k` events only.
    fn checker_at(&self, k: usize) -> LeakChecker {
        let mut c = LeakChecker::new();
        for i in 0..k {
            c.learn(&self.states[i], &self.events[i], &self.states[i + 1]);
        }
        c
    }
}

/// Counters printed at the end.
#[derive(Debug, Default)]
struct Counts {
    gatherings: usize,
    tables: usize,
    stages: usize,
    commands: usize,
    by_route: usize,
    moments: usize,
    bodies: usize,
    events: usize,
    delayed_reads: BTreeMap<String, usize>,
    /// Delayed reads whose horizon held events back: under a delay in events, in seconds.
    held: [usize; 2],
    gathering_bodies: usize,
    waiting: usize,
    stream_messages: usize,
    gathering_stream_messages: usize,
    account_messages: usize,
    /// Chat messages said; refused to seats out of the game; chat pages read that a delay held
    /// entries back of.
    chat_said: usize,
    chat_refused: usize,
    chat_held: usize,
}

/// Sends a request to the application: (status, body).
type Call<'a> = Box<dyn Fn(TestRequest) -> LocalBoxFuture<'a, (u16, Vec<u8>)> + 'a>;
/// Opens a stream: what it sent so far, and its reader.
type Open<'a> = Box<dyn Fn(TestRequest) -> LocalBoxFuture<'a, (u16, Buf, tokio::task::JoinHandle<()>)> + 'a>;

struct Scanner<'a> {
    app: web::Data<AppState>,
    call: Call<'a>,
    open: Open<'a>,
    clock: Arc<ManualClock>,
    rng: ChaCha8Rng,
    counts: Counts,
    words: Vec<String>,
}

/// The seats' viewers of `snap`'s holders: the reader's seat at that table, else a spectator;
/// the commentary view for the organiser asking for it.
fn viewer_of(r: &Reader, seats: &[Option<String>]) -> Viewer {
    if r.commentary {
        return Viewer::Commentary;
    }
    match &r.name {
        Some(n) => seats
            .iter()
            .position(|h| h.as_deref() == Some(n.as_str()))
            .map_or(Viewer::Spectator, |s| Viewer::Seat { seat: s as u8 }),
        None => Viewer::Spectator,
    }
}

/// A JSON body: any card or Role anywhere in it is a leak to a spectator of no table (the
/// gathering's read models carry none).
fn check_public(json: &Value, what: &str) {
    LeakChecker::new()
        .check_json(json, &State::default(), Viewer::Spectator, false)
        .unwrap_or_else(|e| panic!("leak: {what}: {e}: {json}"));
}

impl Scanner<'_> {
    async fn get(&self, r: &Reader, uri: &str) -> (u16, Vec<u8>) {
        (self.call)(r.req(TestRequest::get().uri(uri))).await
    }

    async fn stream(&self, r: &Reader, uri: &str) -> (Buf, tokio::task::JoinHandle<()>) {
        let (status, buf, task) = (self.open)(r.req(TestRequest::get().uri(uri))).await;
        assert_eq!(status, 200, "{}: a stream opens: {uri}", r.label);
        (buf, task)
    }

    /// Folds the events of table `t` the scanner has not seen.
    async fn catch_up(&self, t: &mut Table) -> Arc<crate::game::GameSnapshot<Exorcist>> {
        let snap = self.app.exorcist_tables.load(self.app.store.as_ref(), &t.id).await.expect("the table");
        while t.events.len() < snap.events.len() {
            let e = &snap.events[t.events.len()];
            let before = t.now().clone();
            let mut after = before.clone();
            Exorcist::apply(&mut after, e);
            t.checker.learn(&before, e, &after);
            t.events.push(e.clone());
            t.states.push(after);
        }
        assert_eq!(t.now(), &snap.state, "the scanner's fold is the table's state");
        snap
    }

    /// Under a delay in seconds, sets the server clock so that the horizon falls among the
    /// latest events of `snap` (events are recorded at the store's time).
    fn set_clock(&mut self, snap: &crate::game::GameSnapshot<Exorcist>, delay: Delay) {
        if let Delay::Secs(s) = delay {
            let k = snap.times.len();
            let pick = k - 1 - self.rng.random_range(0..k.min(20));
            self.clock.set(snap.times[pick] + chrono::Duration::seconds(s as i64));
        }
    }

    /// R10.8: how many of `t`'s events `viewer` may see now under `delay` (the server's rule,
    /// restated: its own sequence `delay` back, moved on over the rest of that append when it is
    /// hidden from it), and how many events of its sequence that is.
    fn horizon(
        &self,
        t: &Table,
        snap: &crate::game::GameSnapshot<Exorcist>,
        viewer: Viewer,
        delay: Delay,
    ) -> (usize, usize) {
        let all = t.events.len();
        let seq: Vec<usize> = (0..all)
            .filter(|&i| Exorcist::redact(&t.states[i], &t.events[i], &t.states[i + 1], viewer).is_some())
            .collect();
        let shown = match delay {
            Delay::Events(d) => seq.len().saturating_sub(d as usize),
            Delay::Secs(s) => {
                let cutoff = crate::clock::Clock::now(self.clock.as_ref()) - chrono::Duration::seconds(s as i64);
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
        (visible, shown)
    }

    /// The table chat's entries `viewer` may read under `delay` with `shown` events of its
    /// sequence visible (the server's rule, restated: docs/rules-decisions.md 75): an entry once
    /// its reader sees as many events of its own sequence as came before the entry, and once it
    /// is older than a delay in seconds.
    fn chat_readable(&self, t: &Table, viewer: Viewer, delay: Delay, shown: usize) -> usize {
        let all = t.events.len();
        let seq: Vec<usize> = (0..all)
            .filter(|&i| Exorcist::redact(&t.states[i], &t.events[i], &t.states[i + 1], viewer).is_some())
            .collect();
        let cutoff = match delay {
            Delay::Secs(s) => Some(crate::clock::Clock::now(self.clock.as_ref()) - chrono::Duration::seconds(s as i64)),
            Delay::Events(_) => None,
        };
        t.chat
            .iter()
            .take_while(|(after, at)| {
                seq.iter().filter(|&&i| i < *after).count() <= shown && cutoff.is_none_or(|c| *at <= c)
            })
            .count()
    }

    /// Reads every path of table `t` as every reader and checks each body.
    async fn table_moment(&mut self, t: &mut Table, readers: &[Reader], delay: Delay, gid: &str) {
        self.counts.moments += 1;
        let snap = self.catch_up(t).await;
        self.set_clock(&snap, delay);
        let all = t.events.len();
        let finished = Exorcist::is_finished(t.now());
        let id = t.id.clone();
        // The checker can fail: the omniscient view shown to a seat is a leak.
        if !finished {
            let omniscient = serde_json::to_value(Exorcist::view(t.now(), Viewer::Everything)).expect("json");
            assert!(
                t.checker.check_json(&omniscient, t.now(), Viewer::Seat { seat: 0 }, false).is_err(),
                "the checker lets the omniscient view through"
            );
        }
        let mut at_k: HashMap<usize, LeakChecker> = HashMap::new();
        for (w, r) in readers.iter().enumerate() {
            let viewer = viewer_of(r, &snap.info.seats);
            let delayed = !finished
                && match viewer {
                    Viewer::Seat { seat } => !Exorcist::in_game(t.now(), seat),
                    _ => true,
                };
            let (k, shown) = if delayed { self.horizon(t, &snap, viewer, delay) } else { (all, usize::MAX) };
            if delayed {
                let kind = match viewer {
                    Viewer::Seat { .. } => "conceded seat",
                    Viewer::Commentary => "commentary",
                    _ if r.label.starts_with("xg") => "unseated player",
                    _ => "spectator",
                };
                let by = if matches!(delay, Delay::Secs(_)) { "seconds" } else { "events" };
                *self.counts.delayed_reads.entry(format!("{kind}, {by}")).or_default() += 1;
            }
            if delayed && k < all {
                self.counts.held[usize::from(matches!(delay, Delay::Secs(_)))] += 1;
            }
            if k < all && !at_k.contains_key(&k) {
                at_k.insert(k, t.checker_at(k));
            }
            let checker = if k < all { &at_k[&k] } else { &t.checker };
            let state = &t.states[k];
            let what = |p: &str| format!("{gid} table {id}, {} ({viewer:?}) at event {all}, horizon {k}: {p}", r.label);
            let check = |counts: &mut Counts, json: &Value, picks: bool, what: String| {
                counts.bodies += 1;
                checker.check_json(json, state, viewer, picks).unwrap_or_else(|e| panic!("leak: {what}: {e}: {json}"));
            };
            let (q, and) = if r.commentary { ("?commentary=true", "&commentary=true") } else { ("", "") };
            // The table: the projection of the state at the reader's horizon, byte for byte.
            let (status, body) = self.get(r, &format!("/api/v1/tables/{id}{q}")).await;
            assert_eq!(status, 200, "{}: {}", what("table"), String::from_utf8_lossy(&body));
            let j: Value = serde_json::from_slice(&body).expect("the table");
            assert_eq!(j["table"]["game"], "lets-call-the-exorcist");
            check(&mut self.counts, &j, false, what("table"));
            if finished {
                let want = serde_json::to_value(Exorcist::view(t.now(), Viewer::Everything)).expect("json");
                assert_eq!(j["view"], want, "{}: R10.8.3 the complete record after the end", what("table"));
            } else if k == 0 {
                assert!(j.get("view").is_none_or(Value::is_null), "{}: a view before the horizon: {j}", what("table"));
            } else {
                let want = serde_json::to_value(Exorcist::view(state, viewer)).expect("json");
                assert_eq!(j["view"], want, "{}: the view is not the projection at the horizon", what("table"));
            }
            if r.token.is_some() && !r.commentary {
                let (status, body) = self.get(r, &format!("/api/v1/tables/{id}/prompt")).await;
                assert_eq!(status, 200, "{}: {}", what("prompt"), String::from_utf8_lossy(&body));
                let j: Value = serde_json::from_slice(&body).expect("the prompt");
                check(&mut self.counts, &j, false, what("prompt"));
                if delayed {
                    assert!(j["prompt"].is_null(), "{}: a prompt for a delayed reader: {j}", what("prompt"));
                }
            }
            let mut after = String::new();
            let mut items = 0;
            loop {
                let (status, body) = self.get(r, &format!("/api/v1/tables/{id}/events?limit=100{after}{and}")).await;
                assert_eq!(status, 200, "{}: {}", what("events"), String::from_utf8_lossy(&body));
                let page: Value = serde_json::from_slice(&body).expect("an events page");
                let got = page["events"].as_array().expect("events");
                if got.is_empty() {
                    break;
                }
                for e in got {
                    self.counts.events += 1;
                    items += 1;
                    let reveal = e["event"]["type"] == "tie_revealed";
                    check(&mut self.counts, &e["event"], reveal, what("events page"));
                }
                match page["next"].as_str() {
                    Some(n) => after = format!("&after={n}"),
                    None => break,
                }
            }
            if delayed {
                assert_eq!(items, shown, "{}: R10.8 events up to the horizon", what("events"));
            }
            let (status, body) = self.get(r, &format!("/api/v1/tables/{id}/replay{q}")).await;
            if status == 200 {
                let j: Value = serde_json::from_slice(&body).expect("a replay step");
                let reveal = j["event"]["type"] == "tie_revealed";
                check(&mut self.counts, &j, reveal, what("replay"));
                if delayed {
                    assert_eq!(j["total"].as_u64(), Some(shown as u64), "{}: {j}", what("replay total"));
                }
            } else {
                assert!(delayed && shown == 0, "{}: {status} {}", what("replay"), String::from_utf8_lossy(&body));
            }
            if (self.counts.moments + w).is_multiple_of(5) {
                let (status, body) = self.get(r, &format!("/api/v1/tables/{id}/replay/steps{q}")).await;
                if status == 200 {
                    let j: Value = serde_json::from_slice(&body).expect("replay steps");
                    for step in j["steps"].as_array().expect("steps") {
                        let reveal = step["event"]["type"] == "tie_revealed";
                        check(&mut self.counts, &step["event"], reveal, what("replay steps"));
                    }
                }
            }
            // The table chat: every entry at once for a seat in the game, a delayed reader's
            // behind the delay, counted in its own sequence.
            let (status, body) = self.get(r, &format!("/api/v1/tables/{id}/chat{q}")).await;
            assert_eq!(status, 200, "{}: {}", what("chat"), String::from_utf8_lossy(&body));
            let j: Value = serde_json::from_slice(&body).expect("a chat page");
            let want = if delayed { self.chat_readable(t, viewer, delay, shown) } else { t.chat.len() };
            assert_eq!(j["readable"].as_u64(), Some(want as u64), "{}: {j}", what("chat"));
            assert_eq!(j["entries"].as_array().map(Vec::len), Some(want), "{}: {j}", what("chat"));
            if want < t.chat.len() {
                self.counts.chat_held += 1;
            }
            // R10.13: positions are refused for the game; the refusal names nothing hidden.
            let (status, body) = self.get(r, &format!("/api/v1/tables/{id}/position{q}")).await;
            assert!(status >= 400, "{}: {status}", what("position"));
            let text = String::from_utf8_lossy(&body).to_lowercase();
            assert!(!self.words.iter().any(|x| text.contains(x.as_str())), "leak: {}: {text}", what("position"));
        }
    }

    /// Reads the gathering's read paths as each reader; checks each body, and the bracket's
    /// `waiting` of every playing circle against the spectators' horizon (R10.6.2, R10.8).
    async fn gathering_moment(&mut self, gid: &str, readers: &[Reader], tables: &mut [Table], delay: Delay) {
        let paths = [
            format!("/api/v1/gatherings/{gid}"),
            format!("/api/v1/gatherings/{gid}/bracket"),
            format!("/api/v1/gatherings/{gid}/circles"),
            format!("/api/v1/gatherings/{gid}/standings"),
            format!("/api/v1/gatherings/{gid}/registrations"),
            format!("/api/v1/gatherings/{gid}/preview"),
            format!("/api/v1/gatherings/{gid}/results.json"),
            format!("/api/v1/gatherings/{gid}/results.csv"),
            format!("/api/v1/me/gatherings/{gid}"),
            "/api/v1/me/tables".to_string(),
        ];
        let anonymous = readers.iter().find(|r| r.token.is_none()).expect("anonymous").clone();
        if let Some(t) = tables.iter().rev().find(|t| !Exorcist::is_finished(t.now())) {
            let snap = self.app.exorcist_tables.load(self.app.store.as_ref(), &t.id).await.expect("the table");
            self.set_clock(&snap, delay);
        }
        for (w, r) in readers.iter().enumerate() {
            // Every reader in one moment of three; the anonymous one always.
            if r.token.is_some() && !(self.counts.moments + w).is_multiple_of(3) {
                continue;
            }
            for p in &paths {
                let (status, body) = self.get(r, p).await;
                if p.contains("/me/") && r.token.is_none() {
                    assert_eq!(status, 401, "{} {p}", r.label);
                    continue;
                }
                let text = String::from_utf8_lossy(&body).to_lowercase();
                assert!(!self.words.iter().any(|x| text.contains(x.as_str())), "leak: {} {p}: {text}", r.label);
                if status == 200 && !p.ends_with(".csv") {
                    let j: Value = serde_json::from_slice(&body).expect("json");
                    check_public(&j, &format!("{} {p}", r.label));
                }
                self.counts.gathering_bodies += 1;
            }
        }
        let (status, body) = self.get(&anonymous, &format!("/api/v1/gatherings/{gid}/bracket")).await;
        assert_eq!(status, 200);
        let b: Value = serde_json::from_slice(&body).expect("bracket");
        for t in tables.iter_mut() {
            let snap = self.catch_up(t).await;
            let Some(c) = b["stages"]
                .as_array()
                .into_iter()
                .flatten()
                .flat_map(|s| s["circles"].as_array().into_iter().flatten())
                .find(|c| c["table_id"] == t.id.as_str())
            else {
                continue;
            };
            let finished = Exorcist::is_finished(t.now());
            let (k, _) = if finished { (t.events.len(), 0) } else { self.horizon(t, &snap, Viewer::Spectator, delay) };
            let mark = flicker_platform::spectate::mark_at(&snap, k);
            let want = if k == 0 && !finished {
                None
            } else {
                gatherings::views::waiting::<Exorcist>(&t.states[k], &snap.info.seats, mark.map(|m| m.opened_at))
            };
            assert_eq!(
                c["waiting"],
                serde_json::to_value(&want).expect("json"),
                "{gid} table {}: waiting at the spectators' horizon {k} of {}",
                t.id,
                t.events.len()
            );
            if let Some(w) = want {
                if w.window {
                    assert!(w.seats.is_empty() && w.names.is_empty() && w.since.is_none(), "R10.6.2: {w:?}");
                }
                self.counts.waiting += 1;
            }
        }
    }

    /// Checks what the table streams of `t` brought since the last look, each message for the
    /// viewer its reader was when the stream opened, against everything learned so far.
    fn read_streams(&mut self, t: &mut Table, readers: &[Reader]) {
        for s in &mut t.streams {
            let frames = stream_data(&s.buf.lock().expect("buf"));
            let r = &readers[s.reader];
            for (event, data) in &frames[s.seen..] {
                self.counts.stream_messages += 1;
                self.counts.bodies += 1;
                t.checker
                    .check_json(data, t.states.last().expect("a state"), s.viewer, event == "tie_revealed")
                    .unwrap_or_else(|e| {
                        panic!("leak: table {} stream of {} ({:?}): {e}: {data}", t.id, r.label, s.viewer)
                    });
            }
            s.seen = frames.len();
        }
    }

    /// Checks what the gathering stream and the account streams brought since the last look:
    /// no card or Role in any of them.
    fn read_other_streams(&mut self, tails: &mut [Tail], readers: &[Reader], gathering: bool) {
        for s in tails {
            let frames = stream_data(&s.buf.lock().expect("buf"));
            for (_, data) in &frames[s.seen..] {
                if gathering {
                    self.counts.gathering_stream_messages += 1;
                } else {
                    self.counts.account_messages += 1;
                }
                check_public(data, &format!("stream of {}", readers[s.reader].label));
            }
            s.seen = frames.len();
        }
    }
}

impl Scanner<'_> {
    /// Runs the process manager of `gid` until it can do nothing more now (a conflict with a
    /// run the routes started is retried), then tells the streams.
    async fn reconcile(&mut self, gid: &str) {
        let tables = <Exorcist as crate::state::ServedGame>::tables(&self.app);
        let mut done = false;
        for _ in 0..50 {
            let mut known = gatherings::manager::Known::default();
            let r = gatherings::manager::reconcile(
                self.app.store.as_ref(),
                tables,
                &self.app.gatherings,
                gid,
                &mut known,
                &mut self.rng,
            )
            .await;
            if r.is_ok() {
                done = true;
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        assert!(done, "the process manager of {gid} kept failing");
        let _ = self.app.changes.send(gatherings::stream_of(gid));
    }

    /// Plays gathering `g` of `players` accounts to its end under `delay`, reading it as it goes.
    async fn gathering(&mut self, g: usize, players: usize, delay: Delay) {
        let gid = uuid::Uuid::new_v4().to_string();
        let names: Vec<String> = (0..players).map(|i| format!("xg{g}p{i:02}")).collect();
        let (events, secs) = match delay {
            Delay::Events(d) => (d, 0),
            Delay::Secs(s) => (0, s),
        };
        let settings = GatheringSettings {
            game: gatherings::GameName::LetsCallTheExorcist,
            target: Some(5),
            advance: 1,
            max_circle: Some(6),
            commentary: true,
            spectator_delay_events: events,
            spectator_delay_secs: secs,
            ..Default::default()
        };
        settings.validate().expect("valid settings");
        let org = format!("xorg{g}");
        let app = self.app.clone();
        let store = app.store.as_ref();
        let accounts = names
            .iter()
            .map(|n| (n.clone(), Role::Player))
            .chain([("xwatch".to_string(), Role::Spectator), (org.clone(), Role::Organiser)]);
        let mut tokens = HashMap::new();
        for (name, role) in accounts {
            crate::accounts::ensure_unusable(store, &name, role).await.expect("account");
            tokens.insert(name.clone(), self.app.keys.issue(&name, role, TokenKind::Access, 86_400, vec![], None).0);
        }
        let mut evs = vec![GatheringEvent::GatheringCreated {
            gathering_id: gid.clone(),
            name: format!("exorcist leak scan {g}"),
            organiser: org.clone(),
            settings,
        }];
        evs.extend(
            names
                .iter()
                .map(|n| GatheringEvent::PlayerRegistered(Registrant { name: n.clone(), bot: None, program: false })),
        );
        evs.push(GatheringEvent::GatheringStarted);
        let new = evs.iter().map(|e| gatherings::to_new(e, &org)).collect();
        store
            .append(&gatherings::stream_of(&gid), crate::store::ExpectedVersion::NO_STREAM, new)
            .await
            .expect("append");
        let reader = |label: &str, name: Option<&str>, commentary: bool| Reader {
            label: label.to_string(),
            name: name.map(str::to_string),
            token: name.map(|n| tokens[n].clone()),
            commentary,
        };
        let mut readers: Vec<Reader> = names.iter().map(|n| reader(n, Some(n), false)).collect();
        readers.push(reader("xwatch", Some("xwatch"), false));
        readers.push(reader("organiser", Some(&org), false));
        readers.push(reader("commentary", Some(&org), true));
        readers.push(reader("anonymous", None, false));
        let anonymous = readers.len() - 1;
        let commentary = readers.len() - 2;
        // The gathering stream (anonymous) and every player's account stream, read as they come.
        let (buf, task) = self.stream(&readers[anonymous], &format!("/api/v1/gatherings/{gid}/stream")).await;
        let mut gathering_stream = vec![Tail { reader: anonymous, viewer: Viewer::Spectator, buf, task, seen: 0 }];
        let mut account_streams = Vec::new();
        for (w, r) in readers.iter().enumerate().take(players) {
            let (buf, task) = self.stream(r, "/api/v1/me/stream").await;
            account_streams.push(Tail { reader: w, viewer: Viewer::Spectator, buf, task, seen: 0 });
        }
        let mut tables: Vec<Table> = Vec::new();
        let mut stage_of: HashMap<String, u32> = HashMap::new();
        let mut changed = (false, false);
        let mut commands_in_stage = 0usize;
        let mut guard = 0usize;
        loop {
            guard += 1;
            assert!(guard < 200, "gathering {g} does not end");
            self.reconcile(&gid).await;
            let ga = gatherings::load(store, &gid).await.expect("load").expect("the gathering");
            self.read_other_streams(&mut gathering_stream, &readers, true);
            if ga.over() {
                break;
            }
            let stage = ga.current_stage().expect("a stage").clone();
            // The circle tables of the stage: each read at once, with streams of its first two
            // seats, one unseated player, anonymous and the commentary view.
            let mut fresh = false;
            for (draw, _) in &stage.circles {
                if stage_of.contains_key(&draw.table_id) {
                    continue;
                }
                match self.app.exorcist_tables.load(store, &draw.table_id).await {
                    Ok(_) => {}
                    Err(TableError::NotFound { .. }) => continue,
                    Err(e) => panic!("table {}: {e}", draw.table_id),
                }
                fresh = true;
                stage_of.insert(draw.table_id.clone(), stage.stage);
                let mut t = Table {
                    id: draw.table_id.clone(),
                    events: Vec::new(),
                    states: vec![State::default()],
                    checker: LeakChecker::new(),
                    streams: Vec::new(),
                    chat: Vec::new(),
                };
                let snap = self.catch_up(&mut t).await;
                let unseated = (0..players).find(|&w| !draw.players.contains(&names[w]));
                let seated = draw.players.iter().take(2).map(|n| names.iter().position(|x| x == n).expect("a player"));
                for w in seated.chain(unseated).chain([anonymous, commentary]) {
                    let viewer = viewer_of(&readers[w], &snap.info.seats);
                    let q = if readers[w].commentary { "?commentary=true" } else { "" };
                    let (buf, task) = self.stream(&readers[w], &format!("/api/v1/tables/{}/stream{q}", t.id)).await;
                    t.streams.push(Tail { reader: w, viewer, buf, task, seen: 0 });
                }
                self.counts.tables += 1;
                self.table_moment(&mut t, &readers, delay, &gid).await;
                tables.push(t);
            }
            if fresh {
                self.counts.stages += 1;
                commands_in_stage = 0;
                self.gathering_moment(&gid, &readers, &mut tables, delay).await;
            }
            // Play until a table of the stage ends.
            let mut ended = false;
            while !ended {
                let playing: Vec<usize> = (0..tables.len())
                    .filter(|&i| stage_of[&tables[i].id] == stage.stage && !Exorcist::is_finished(tables[i].now()))
                    .collect();
                let Some(&ti) = playing.choose(&mut self.rng) else { break };
                commands_in_stage += 1;
                // Mid-stage in the first stage: the organiser drops one player and replaces
                // another (seats 2 and 3 of two tables, whose streams are not read).
                if stage.stage == 1 && commands_in_stage == 40 && playing.len() >= 2 {
                    let a = self.catch_up(&mut tables[playing[0]]).await;
                    let b = self.catch_up(&mut tables[playing[1]]).await;
                    let dropped = a.info.seats[2].clone().expect("a holder");
                    let replaced = b.info.seats[3].clone().expect("a holder");
                    let org_reader = readers[commentary - 1].clone();
                    for (name, what, body) in
                        [(&dropped, "drop", json!({})), (&replaced, "replace", json!({"bot": "heuristic"}))]
                    {
                        let t = org_reader
                            .req(TestRequest::post().uri(&format!("/api/v1/gatherings/{gid}/players/{name}/{what}")))
                            .set_json(&body);
                        let (status, body) = (self.call)(t).await;
                        assert_eq!(status, 200, "{what} {name}: {}", String::from_utf8_lossy(&body));
                    }
                    changed = (true, true);
                    // Let the manager run the routes started settle, then run it here.
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    self.reconcile(&gid).await;
                    for t in tables.iter_mut() {
                        self.catch_up(t).await;
                    }
                    continue;
                }
                let finished = self.command(&mut tables[ti], &readers).await;
                for t in tables.iter_mut() {
                    self.read_streams(t, &readers);
                }
                self.read_other_streams(&mut account_streams, &readers, false);
                let n = tables[ti].states.last().map_or(4, Exorcist::players) as f64;
                if finished || self.rng.random_bool((1.0 / (3.0 * n)).min(1.0)) {
                    self.table_moment(&mut tables[ti], &readers, delay, &gid).await;
                }
                if finished || self.rng.random_bool(0.02) {
                    self.gathering_moment(&gid, &readers, &mut tables, delay).await;
                }
                ended = finished;
            }
        }
        assert!(changed.0 && changed.1, "a player was dropped and one replaced");
        // Over: every table reads as the complete record; the gathering once more.
        let ga = gatherings::load(store, &gid).await.expect("load").expect("the gathering");
        assert!(ga.winner.is_some() || ga.end_reason.is_some(), "gathering {g} ended");
        self.gathering_moment(&gid, &readers, &mut tables, delay).await;
        for t in tables.iter_mut() {
            self.read_streams(t, &readers);
            for s in t.streams.drain(..) {
                s.task.abort();
            }
        }
        self.read_other_streams(&mut gathering_stream, &readers, true);
        self.read_other_streams(&mut account_streams, &readers, false);
        for s in gathering_stream.into_iter().chain(account_streams) {
            s.task.abort();
        }
        println!(
            "exorcist gathering leak scan: gathering {g} ({players} players, {delay:?}): {} stages, winner {:?} ({:?})",
            ga.stages.len(),
            ga.winner,
            ga.end_reason.map(gatherings::EndReason::as_str)
        );
        self.counts.gatherings += 1;
    }

    /// One command at table `t`: an open prompt's random legal answer (a third of those of a
    /// seat in the game held by a player, through `POST /answers` with its token, the response
    /// checked as that seat), else the held window's close. Returns whether the game ended.
    async fn command(&mut self, t: &mut Table, readers: &[Reader]) -> bool {
        let snap = self.catch_up(t).await;
        // Now and then a seated player says something at the table.
        let speakers: Vec<usize> = (0..readers.len())
            .filter(|&w| {
                !readers[w].commentary
                    && readers[w].name.as_ref().is_some_and(|n| snap.info.seats.iter().any(|h| h.as_ref() == Some(n)))
            })
            .collect();
        if let Some(&w) = speakers.choose(&mut self.rng).filter(|_| self.rng.random_bool(0.1)) {
            let req = readers[w]
                .req(TestRequest::post().uri(&format!("/api/v1/tables/{}/chat", t.id)))
                .set_json(json!({"text": format!("message {}", self.counts.chat_said + 1)}));
            let (status, body) = (self.call)(req).await;
            // A seat out of the game reads behind the delay and may not speak (its entry's
            // number would count entries held back from it). 429: five in ten seconds of the
            // server clock, which the scanner moves about.
            let seat = viewer_of(&readers[w], &snap.info.seats).seat().expect("a seat");
            let expected: &[u16] = if Exorcist::in_game(t.now(), seat) { &[201, 429] } else { &[403] };
            assert!(
                expected.contains(&status),
                "table {}: chat as seat {seat}: {status} {}",
                t.id,
                String::from_utf8_lossy(&body)
            );
            if status == 403 {
                self.counts.chat_refused += 1;
            }
            if status == 201 {
                let e: Value = serde_json::from_slice(&body).expect("an entry");
                let at = e["at"].as_str().and_then(|a| a.parse().ok()).expect("a time");
                assert_eq!(e["number"].as_u64(), Some(t.chat.len() as u64 + 1), "table {}: {e}", t.id);
                t.chat.push((t.events.len(), at));
                self.counts.chat_said += 1;
            }
        }
        let state = t.now().clone();
        let prompts = Exorcist::prompts(&state);
        self.counts.commands += 1;
        let (actor, cmd, route) = match prompts.choose(&mut self.rng) {
            Some(p) => {
                let answer = *p.legal_answers().choose(&mut self.rng).expect("a legal answer");
                let holder = snap.info.seats.get(p.seat as usize).cloned().flatten().unwrap_or_default();
                let person = readers.iter().position(|r| r.name.as_deref() == Some(holder.as_str()) && !r.commentary);
                let route = person.filter(|_| Exorcist::in_game(&state, p.seat) && self.rng.random_bool(0.33));
                (holder, Exorcist::answer_command(p, answer), route.map(|w| (w, p.seat, p.id, answer)))
            }
            None => ("system:clock".to_string(), Exorcist::close_window_command(&state), None),
        };
        let id = t.id.clone();
        let mut response = None;
        match route {
            Some((w, seat, prompt, answer)) => {
                let body = json!({"seat": seat, "prompt_id": prompt, "answer": answer});
                let req = readers[w]
                    .req(TestRequest::post().uri(&format!("/api/v1/tables/{id}/answers")))
                    .insert_header(("Idempotency-Key", uuid::Uuid::new_v4().to_string()))
                    .set_json(&body);
                let (status, body) = (self.call)(req).await;
                assert_eq!(status, 200, "table {id}: answer refused: {}", String::from_utf8_lossy(&body));
                self.counts.by_route += 1;
                let j: Value = serde_json::from_slice(&body).expect("a table");
                response = Some((seat, j));
            }
            None => {
                self.app
                    .exorcist_tables
                    .command(self.app.store.as_ref(), &id, &actor, None, |s| tables::decide(s, &cmd, &mut rand::rng()))
                    .await
                    .expect("a command");
            }
        }
        let _ = self.app.changes.send(tables::stream_of(&id));
        self.catch_up(t).await;
        // The answer's response, seen by the seat that answered, as of the events it appended.
        if let Some((seat, j)) = response {
            self.counts.bodies += 1;
            t.checker
                .check_json(&j, t.now(), Viewer::Seat { seat }, false)
                .unwrap_or_else(|e| panic!("leak: table {id}, an answer's response to seat {seat}: {e}: {j}"));
        }
        Exorcist::is_finished(t.now())
    }
}

/// R10.8, R10.6.2, X11.1, X11.5, R9, rules decisions 72-74: whole Exorcist gatherings (16 and
/// 13 accounts, circles of up to 6, then the Final table of 4), one under a delay in events and
/// one under a delay in seconds, read through every gathering and table read path by every
/// reader while they play: nothing hidden reaches anyone who may not know it.
#[actix_web::test]
async fn x11_1_the_exorcist_gathering_leak_scanner_finds_nothing() {
    let gatherings = env_or("FLICKER_EXORCIST_GATHERING_SCANS", 2) as usize;
    let seed = env_or("FLICKER_LEAK_SEED", 6);
    println!(
        "exorcist gathering leak scan: {gatherings} gatherings, seed {seed} (FLICKER_EXORCIST_GATHERING_SCANS, FLICKER_LEAK_SEED)"
    );
    let started = Instant::now();
    let shm = std::path::Path::new("/dev/shm");
    let base = if shm.is_dir() { shm.to_path_buf() } else { std::env::temp_dir() };
    let dir = base.join(format!("flicker-exorcist-gathering-scan-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let store = crate::store::open(&dir.join("flicker.db").display().to_string()).await.unwrap();
    let clock = ManualClock::at(chrono::Utc::now());
    // No driver: the scanner alone acts on the tables and runs the process manager.
    let app = crate::server::state_with_clock(store, clock.clone()).await.unwrap();
    let svc = at::init_service(App::new().app_data(app.clone()).configure(crate::server::configure)).await;
    let svc = &svc;
    let call: Call = Box::new(move |req: TestRequest| {
        Box::pin(async move {
            let resp = at::call_service(svc, req.to_request()).await;
            let status = resp.status().as_u16();
            (status, at::read_body(resp).await.to_vec())
        })
    });
    let open: Open = Box::new(move |req: TestRequest| {
        Box::pin(async move {
            let resp = at::call_service(svc, req.to_request()).await;
            let status = resp.status().as_u16();
            let buf = Arc::new(Mutex::new(Vec::new()));
            let sink = buf.clone();
            let task = actix_web::rt::spawn(async move {
                let mut body = Box::pin(resp.into_body());
                while let Some(Ok(chunk)) =
                    std::future::poll_fn(|cx| actix_web::body::MessageBody::poll_next(body.as_mut(), cx)).await
                {
                    sink.lock().expect("buf").extend_from_slice(&chunk);
                }
            });
            (status, buf, task)
        })
    });
    let mut s = Scanner {
        app: app.clone(),
        call,
        open,
        clock,
        rng: ChaCha8Rng::seed_from_u64(seed),
        counts: Counts::default(),
        words: hidden_words(),
    };
    for g in 0..gatherings {
        let (players, delay) = if g % 2 == 0 { (16, Delay::Events(4)) } else { (13, Delay::Secs(5)) };
        s.gathering(g, players, delay).await;
    }
    let c = &s.counts;
    println!(
        "exorcist gathering leak scan: {} gatherings, {} stages, {} tables, {} commands ({} through the route), \
         {} moments, {} table bodies checked ({} events), delayed reads {:?} ({:?} holding events back), {} gathering bodies, {} waits checked, \
         {} table stream messages, {} gathering stream messages, {} account stream messages, \
         {} chat messages ({} refused to seats out of the game, {} chat pages held back); {:.1} s",
        c.gatherings,
        c.stages,
        c.tables,
        c.commands,
        c.by_route,
        c.moments,
        c.bodies,
        c.events,
        c.delayed_reads,
        c.held,
        c.gathering_bodies,
        c.waiting,
        c.stream_messages,
        c.gathering_stream_messages,
        c.account_messages,
        c.chat_said,
        c.chat_refused,
        c.chat_held,
        started.elapsed().as_secs_f64()
    );
    assert!(c.gatherings == gatherings && c.stream_messages > 0 && c.gathering_stream_messages > 0);
    assert!(c.waiting > 0 && c.delayed_reads.len() >= 3 && c.by_route > 0);
    assert!(c.chat_said > 0 && c.chat_held > 0, "the chat was said and held back: {} {}", c.chat_said, c.chat_held);
    assert!(c.held[0] > 0 && (gatherings < 2 || c.held[1] > 0), "the delays held events back: {:?}", c.held);
    let _ = std::fs::remove_dir_all(&dir);
}

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}
