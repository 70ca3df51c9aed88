//! End-to-end tests of gatherings (RULES.md section 9) against the real server over HTTP: the
//! `flicker gathering run` command, the process manager on SQLite and PostgreSQL, whole bot gatherings and their
//! brackets, and a SIGKILL in the middle of a gathering with a person
//! playing (clocks resume from their stored deadlines, R10.7.3).
//!
//! Each test starts the `flicker` binary (built by `cargo build` / `cargo test --workspace`) on
//! a free port. The PostgreSQL test needs `FLICKER_TEST_POSTGRES_URL` (`./test.sh` sets it).
//! Registration, withdrawal, control and walkovers are in-process tests
//! (`api/server/tests/routes/gatherings.rs`).

mod common;

use common::*;
use reqwest::StatusCode;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

// ---------- helpers ----------

/// An event item's type. After the game every viewer reads the complete record, where each
/// item is `{"type": "full", "event": {"type", "payload"}}`.
fn event_type(item: &Value) -> &str {
    let e = &item["event"];
    if e["type"] == "full" { e["event"]["type"].as_str().unwrap() } else { e["type"].as_str().unwrap() }
}

/// An event item's fields (the payload of a complete-record item).
fn event_fields(item: &Value) -> &Value {
    let e = &item["event"];
    if e["type"] == "full" { &e["event"]["payload"] } else { e }
}

/// A count given as a list of cards or as a number (absent: 0).
fn count(v: &Value) -> u64 {
    v.as_array().map(|a| a.len() as u64).or_else(|| v.as_u64()).unwrap_or(0)
}

/// Seconds since the Unix epoch of an RFC 3339 UTC timestamp (`2030-01-02T03:04:05.123Z`).
fn unix_secs(rfc3339: &str) -> f64 {
    let t = rfc3339.trim_end_matches('Z').trim_end_matches("+00:00");
    let (date, time) = t.split_once('T').expect("RFC 3339");
    let d: Vec<i64> = date.split('-').map(|x| x.parse().unwrap()).collect();
    let (y, m, day) = (if d[1] <= 2 { d[0] - 1 } else { d[0] }, d[1], d[2]);
    // Days from the civil date (H. Hinnant's algorithm).
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((m + 9) % 12) + 2) / 5 + day - 1;
    let days = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468;
    let hms: Vec<f64> = time.split(':').map(|x| x.parse().unwrap()).collect();
    days as f64 * 86_400.0 + hms[0] * 3600.0 + hms[1] * 60.0 + hms[2]
}

fn now_secs() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs_f64()
}

/// Checks the R9.9 standings of a finished gathering against its bracket.
fn check_final_standings(st: &[Value], b: &Value, winner: &str, registered: usize) {
    assert_eq!(st.len(), registered, "{st:?}");
    let names: BTreeSet<&str> = st.iter().map(|x| x["name"].as_str().unwrap()).collect();
    assert_eq!(names.len(), registered, "a player is listed twice: {st:?}");
    // R9.9.2: the winner first, alone at rank 1.
    assert_eq!(st[0]["name"], winner, "{st:?}");
    assert_eq!(st[0]["rank"], 1);
    assert_eq!(st[0]["status"], "winner");
    assert_eq!(st.iter().filter(|x| x["rank"] == 1).count(), 1, "{st:?}");
    assert_eq!(st.iter().filter(|x| x["status"] == "winner").count(), 1, "{st:?}");
    // R9.9.1: every rank is final, and they never go down the list.
    let ranks: Vec<u64> = st.iter().map(|x| x["rank"].as_u64().expect("every rank is final")).collect();
    assert!(ranks.windows(2).all(|w| w[0] <= w[1]), "ranks {ranks:?}");
    // Later stages rank above earlier ones.
    let stages: Vec<u64> = st.iter().skip(1).map(|x| x["stage"].as_u64().unwrap()).collect();
    assert!(stages.windows(2).all(|w| w[0] >= w[1]), "stages {stages:?}");
    // Everybody but the winner is out.
    for x in &st[1..] {
        assert_eq!(x["status"], "out", "{x}");
    }
    // Each player's last stage is the last stage of the bracket they played in.
    let mut last_stage: BTreeMap<String, u64> = BTreeMap::new();
    for (stage, c) in circles(b) {
        for p in circle_players(&c) {
            last_stage.insert(p, stage);
        }
    }
    for x in st {
        assert_eq!(Some(&x["stage"].as_u64().unwrap()), last_stage.get(x["name"].as_str().unwrap()), "{x}");
    }
}

/// R9.5.4 in a finished qualifying circle of the bracket: the players who do not advance have
/// their placings below the Last Lit's. The Last Lit get no placing there: the bracket leaves it
/// empty (their standing comes from the stage they reach).
fn check_qualifying_placings(c: &Value, last_lit: &[String]) {
    for p in c["players"].as_array().unwrap() {
        let is_ll = last_lit.iter().any(|x| p["name"] == x.as_str());
        let placing = p["placing"].as_u64();
        if is_ll {
            assert!(placing.is_none(), "R9.5.4: a Last Lit gets no placing in a qualifying circle: {c}");
        } else {
            let placing = placing.unwrap_or_else(|| panic!("R7.7.3: {} has no placing: {c}", p["name"]));
            assert!(placing > last_lit.len() as u64, "R9.5.4: {} placed above a Last Lit: {c}", p["name"]);
        }
    }
}

/// Checks every circle's table: finished, and naming its gathering, stage and circle (R9.3).
/// Returns the tables, by (stage, circle).
fn check_circle_tables(s: &Server, token: &str, gid: &str, b: &Value) -> BTreeMap<(u64, u64), Value> {
    let mut out = BTreeMap::new();
    for (stage, c) in circles(b) {
        let tid = c["table_id"].as_str().unwrap();
        let (st, t, _) = get(s, token, &format!("/api/v1/tables/{tid}"));
        assert_eq!(st, StatusCode::OK, "{t}");
        let circle = c["circle"].as_u64().unwrap();
        assert_eq!(t["table"]["status"], "finished", "stage {stage} circle {circle}: {}", t["table"]);
        assert_eq!(t["table"]["gathering"], json!({"gathering_id": gid, "stage": stage, "circle": circle}));
        assert_eq!(t["table"]["practice"], false);
        let seats: Vec<String> = strs(&t["table"]["seats"]);
        assert_eq!(seats, circle_players(&c), "the table seats the circle's players in the drawn order");
        out.insert((stage, circle), t);
    }
    out
}

/// R9.8.2 (and R2.4) in a table's settings and deal: a later stage with `final_dark: empty`
/// sets an odd count's surplus out of play face down and starts with an empty Dark; the first
/// stage deals its surplus into The Dark.
fn check_surplus(s: &Server, token: &str, stage: u64, table: &Value) {
    let settings = &table["table"]["settings"];
    let n = settings["players"].as_u64().unwrap();
    let tid = table["table"]["table_id"].as_str().unwrap();
    let events = all_events(s, token, tid);
    assert_eq!(event_type(&events[0]), "game_created", "{}", events[0]);
    let created = event_fields(&events[0]);
    let (dark, set_aside) = (count(&created["dark"]), count(&created["set_aside"]));
    if stage == 1 {
        assert_eq!(settings["surplus"], "the_dark", "stage 1: {settings}");
        assert_eq!((dark, set_aside), (if n % 2 == 1 { 27 } else { 0 }, 0), "stage 1 of {n}: {created}");
    } else {
        if n % 2 == 1 {
            assert_eq!(settings["surplus"], "out_of_play", "R9.8.2: stage {stage} of {n}: {settings}");
        }
        assert_eq!(dark, 0, "R9.8.2: a later stage starts with an empty Dark: {created}");
        assert_eq!(set_aside, if n % 2 == 1 { 27 } else { 0 }, "R9.8.2: stage {stage} of {n}: {created}");
    }
}

// ---------- 1. the command line, 20 bots ----------

/// R9.2.2 (20 -> 7+7+6), R9.4, R9.5.2 (A = 2: two Last Lit per circle), R9.6.3 (the Last Lit
/// play the Final Ritual), R9.9 (standings): `flicker gathering run` drives a whole gathering
/// of 20 heuristic bots on a running server, and the API agrees with what it prints.
#[test]
fn a_20_player_bot_gathering_splits_7_7_6_and_crowns_one_winner() {
    let t0 = Instant::now();
    let s = Server::start(Db::sqlite());
    let dir = std::env::temp_dir().join(format!("flicker-cli-{}", uuid()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = Command::new(binary())
        .current_dir(&dir)
        .env_remove("FLICKER_ORGANISER_KEY")
        .env_remove("FLICKER_SERVER")
        .env("NO_COLOR", "1")
        .args(["gathering", "run", "--players", "20", "--bots", "heuristic", "--server", &s.base])
        .args(["--organiser-key", ORGANISER_KEY, "--timeout-secs", "300"])
        .output()
        .expect("run flicker gathering run");
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "exit {:?}\nstdout:\n{stdout}\nstderr:\n{stderr}", out.status);
    eprintln!("flicker gathering run: {:.1} s", t0.elapsed().as_secs_f64());
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines.contains(&"stage 1 (qualifying): 7+7+6"), "{stdout}");
    assert!(lines.iter().any(|l| l.starts_with("stage ") && l.contains(" (Final Ritual): ")), "{stdout}");
    let winners: Vec<&str> = lines.iter().filter_map(|l| l.strip_prefix("winner: ")).collect();
    assert_eq!(winners.len(), 1, "{stdout}");
    let winner = winners[0].trim();
    assert!(!winner.is_empty(), "{stdout}");

    // The API: the gathering it created.
    let (st, list, _) = get_public(&s, "/api/v1/gatherings");
    assert_eq!(st, StatusCode::OK, "{list}");
    let printed_id = lines.iter().find_map(|l| l.strip_prefix("gathering ")).and_then(|l| l.split(':').next());
    let list = list.as_array().unwrap();
    assert_eq!(list.len(), 1, "one gathering on a fresh database: {list:?}");
    let g = &list[0];
    let id = g["gathering_id"].as_str().unwrap();
    assert_eq!(printed_id, Some(id), "{stdout}");
    assert_eq!(g["status"], "finished", "{g}");
    assert_eq!(g["players"].as_array().unwrap().len(), 20);

    let b = bracket(&s, id);
    let st = standings(&s, id);
    // Rare: a Final Ritual with equal players at its hard end, or a stage sending nobody on.
    let Some(found) = winner_or_rule_explained(g, &b, &st) else {
        assert!(winner.starts_with("none"), "the CLI printed a winner the gathering has not: {stdout}");
        return;
    };
    assert_eq!(found, winner, "{g}");
    assert_eq!(b["winner"], winner);
    let stages = b["stages"].as_array().unwrap();
    let first = &stages[0];
    assert_eq!(first["stage"], 1);
    assert_eq!(first["sizes"], "7+7+6", "R9.2.2");
    assert_eq!(first["final_ritual"], false);
    let mut seen = BTreeSet::new();
    let mut last_lit = BTreeSet::new();
    let mut witnessed_players: BTreeSet<String> = BTreeSet::new();
    for c in first["circles"].as_array().unwrap() {
        assert_eq!(c["status"], "finished", "{c}");
        for p in circle_players(c) {
            assert!(seen.insert(p.clone()), "{p} plays twice in stage 1");
        }
        let ll = strs(&c["last_lit"]);
        // R9.5.2: exactly two Last Lit with A = 2 (none only when the circle ended with no
        // winner, R9.5.3; more only when equal players at a hard end all go on, R7.9.5).
        let hard_end = c["end_reason"] == "guttered";
        assert!(ll.len() == 2 || ll.is_empty() || (hard_end && ll.len() > 2), "R9.5.2: {c}");
        if ll.len() != 2 {
            eprintln!("circle {} ended with {} Last Lit ({})", c["circle"], ll.len(), c["end_reason"]);
        }
        for p in &ll {
            assert!(circle_players(c).contains(p), "{p} is a Last Lit of a circle they did not play: {c}");
        }
        check_qualifying_placings(c, &ll);
        if ll.is_empty() {
            witnessed_players.extend(circle_players(c));
        }
        last_lit.extend(ll);
    }
    assert_eq!(seen.len(), 20);
    assert!(last_lit.len() >= 2, "the gathering was played to a Final Ritual: {b}");
    assert_eq!(stages.len(), 2, "{b}");
    let fin = &stages[1];
    assert_eq!(fin["final_ritual"], true, "R9.6.3");
    assert_eq!(fin["sizes"], last_lit.len().to_string());
    let fin_players: BTreeSet<String> = circle_players(&fin["circles"][0]).into_iter().collect();
    assert_eq!(fin_players, last_lit, "R9.6.3: the Final Ritual holds exactly the Last Lit of stage 1");
    assert!(last_lit.contains(winner), "R9.4: the winner played the Final Ritual");
    assert_eq!(fin["circles"][0]["winner"], winner);

    check_final_standings(&st, &b, winner, 20);
    for x in &st {
        let name = x["name"].as_str().unwrap();
        if !last_lit.contains(name) {
            assert_eq!(x["stage"], 1, "{x}");
            assert_eq!(x["status"], "out", "{x}");
            // R9.5.3: a circle that ended with no Last Lit (a Witness among its last two)
            // still places its last two 1 and 2; nobody of it goes on.
            let witnessed = witnessed_players.contains(name);
            assert!(x["placing"].as_u64().is_some_and(|p| p >= 3 || witnessed), "R7.7.3: {x}");
        }
    }
    eprintln!("20 players: {:.1} s in all", t0.elapsed().as_secs_f64());
}

/// The classic roster (A9), as the API names the classes.
const CLASSIC_ROSTER: [&str; 25] = [
    "skeptic",
    "priest",
    "shadow",
    "exorcist",
    "survivor",
    "pyromaniac",
    "sadist",
    "binder",
    "warlock",
    "vulture",
    "occultist",
    "trader",
    "seer",
    "hoarder",
    "mimic",
    "gravedigger",
    "fatalist",
    "leech",
    "martyr",
    "lich",
    "judge",
    "jester",
    "architect",
    "clown",
    "phantom",
];

/// A1, A9, R9.2.2, R9.4, R10.11: a 20-player `classic-1.0` gathering with classes over REST
/// (heuristic bots): settings `{"ruleset": "classic-1.0", "dark_mode": "dark"}` split 7+7+6,
/// every circle table records the classic ruleset and its settings, every seat plays a class of
/// the classic roster, and the gathering ends with its winner (or an end the rules explain).
/// `dark_mode` under `current`, or an unknown ruleset, is refused with a 400 naming it.
#[test]
fn a_20_player_classic_gathering_runs_to_its_winner() {
    let t0 = Instant::now();
    let s = Server::start(Db::sqlite());
    let org = organiser(&s);
    for (settings, rule) in
        [(json!({"dark_mode": "dark"}), "R10.11"), (json!({"ruleset": "classic-2.0", "classes": false}), "classic-2.0")]
    {
        let (st, v, _) = post(&s, &org, "/api/v1/gatherings", json!({"name": "refused", "settings": settings}));
        assert_eq!(st, StatusCode::BAD_REQUEST, "{v}");
        assert!(v["detail"].as_str().unwrap_or_default().contains(rule), "{rule}: {v}");
    }
    let id = create(&s, &org, "classic twenty", json!({"ruleset": "classic-1.0", "dark_mode": "dark"}));
    add_bots(&s, &org, &id, 20, "heuristic");
    control(&s, &org, &id, "start");
    let g = wait_over(&s, &id, Duration::from_secs(300));
    eprintln!("20 classic heuristic bots: {:.1} s", t0.elapsed().as_secs_f64());
    assert_eq!(g["status"], "finished", "{g}");
    let b = bracket(&s, &id);
    let stages = b["stages"].as_array().unwrap();
    assert_eq!(stages[0]["sizes"], "7+7+6", "R9.2.2");
    let st = standings(&s, &id);
    if let Some(winner) = winner_or_rule_explained(&g, &b, &st) {
        assert_eq!(stages.last().unwrap()["circles"][0]["winner"], winner.as_str());
    }
    let tables = check_circle_tables(&s, &org, &id, &b);
    assert!(tables.len() >= 4, "three circles and a Final Ritual: {b}");
    for t in tables.values() {
        assert_eq!(t["view"]["ruleset"], json!({"id": "classic-1.0", "version": 1}), "{}", t["table"]);
        assert_eq!(t["table"]["settings"]["ruleset"], "classic-1.0", "{}", t["table"]);
        assert_eq!(t["table"]["settings"]["dark_mode"], "dark", "{}", t["table"]);
        assert_eq!(t["table"]["settings"]["classes"], true, "{}", t["table"]);
        // A9: every seat plays a class of the classic roster.
        for c in t["view"]["players"].as_array().unwrap() {
            let class = c["class"].as_str().unwrap_or_default();
            assert!(CLASSIC_ROSTER.contains(&class), "{class} is not of the classic roster");
        }
    }
}

/// X2.1, rules decisions 72-74: gatherings of *Let's Call the Exorcist* over REST. The Final
/// Flicker's own settings are refused with a 400 naming the field (and `target` in a Final
/// Flicker gathering); fewer than 4 players cannot start (409 `too-few-players`, X2.1); the game
/// is fixed at creation. `flicker gathering run --game exorcist --players 20` then drives 20
/// heuristic bots to one winner: 7+7+6, each circle's best-placed advances (advance 1 by
/// default), the best-placed other fills the Final table to 4, every table plays the game, and
/// the Final table's winner wins.
#[test]
fn a_20_player_exorcist_gathering_runs_to_one_winner_from_the_cli() {
    const EXORCIST: &str = "lets-call-the-exorcist";
    let t0 = Instant::now();
    let s = Server::start(Db::sqlite());
    let org = organiser(&s);
    let refused = [
        (json!({"game": EXORCIST, "settings": {"classes": false}}), "classes"),
        (json!({"game": EXORCIST, "settings": {"round_limit": 20}}), "round_limit"),
        (json!({"game": EXORCIST, "settings": {"ruleset": "classic-1.0"}}), "ruleset"),
        (json!({"game": EXORCIST, "settings": {"final_dark": "as_new_game"}}), "final_dark"),
        (json!({"game": EXORCIST, "settings": {"max_circle": null}}), "X2.1"),
        (json!({"game": EXORCIST, "settings": {"max_circle": 9}}), "X2.1"),
        (json!({"game": EXORCIST, "settings": {"target": 0}}), "X4.5"),
        (json!({"settings": {"target": 5}}), "target"),
        (json!({"game": EXORCIST, "settings": {"game": "the-final-flicker"}}), "differ"),
    ];
    for (body, field) in refused {
        let mut body = body;
        body["name"] = json!("refused");
        let (st, v, _) = post(&s, &org, "/api/v1/gatherings", body.clone());
        assert_eq!(st, StatusCode::BAD_REQUEST, "{body}: {v}");
        assert!(v["detail"].as_str().unwrap_or_default().contains(field), "{field}: {v}");
    }
    // Three players cannot start (X2.1); the game and its default advance (1) hold through a
    // settings change that names neither.
    let (st, v, _) =
        post(&s, &org, "/api/v1/gatherings", json!({"name": "three", "game": EXORCIST, "settings": {"target": 4}}));
    assert_eq!(st, StatusCode::CREATED, "{v}");
    assert_eq!((&v["settings"]["game"], &v["settings"]["advance"]), (&json!(EXORCIST), &json!(1)), "{v}");
    let few = v["gathering_id"].as_str().unwrap().to_string();
    let (st, v, _) = put(&s, &org, &format!("/api/v1/gatherings/{few}/settings"), json!({"target": 5}));
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(
        (&v["settings"]["game"], &v["settings"]["advance"], &v["settings"]["target"]),
        (&json!(EXORCIST), &json!(1), &json!(5)),
        "{v}"
    );
    let (st, v, _) = put(&s, &org, &format!("/api/v1/gatherings/{few}/settings"), json!({"game": "the-final-flicker"}));
    assert_eq!(st, StatusCode::BAD_REQUEST, "{v}");
    assert!(v["detail"].as_str().unwrap_or_default().contains("fixed at creation"), "{v}");
    add_bots(&s, &org, &few, 3, "random");
    let (st, v, _) = post(&s, &org, &format!("/api/v1/gatherings/{few}/start"), json!({}));
    assert_eq!(st, StatusCode::CONFLICT, "{v}");
    assert_eq!(v["type"], "/problems/too-few-players", "{v}");
    assert!(v["detail"].as_str().unwrap_or_default().contains("X2.1"), "{v}");
    assert_eq!(summary(&s, &few)["status"], "registering");

    // The command line.
    let dir = std::env::temp_dir().join(format!("flicker-cli-{}", uuid()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = Command::new(binary())
        .current_dir(&dir)
        .env_remove("FLICKER_ORGANISER_KEY")
        .env_remove("FLICKER_SERVER")
        .env("NO_COLOR", "1")
        .args(["gathering", "run", "--game", "exorcist", "--players", "20", "--server", &s.base])
        .args(["--organiser-key", ORGANISER_KEY, "--timeout-secs", "120"])
        .output()
        .expect("run flicker gathering run");
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "exit {:?}\nstdout:\n{stdout}\nstderr:\n{stderr}", out.status);
    eprintln!("flicker gathering run --game exorcist --players 20: {:.1} s", t0.elapsed().as_secs_f64());
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines.contains(&"stage 1 (qualifying): 7+7+6"), "{stdout}");
    assert!(lines.contains(&"stage 2 (Final table): 4"), "decision 74: a Final of 4: {stdout}");
    let winners: Vec<&str> = lines.iter().filter_map(|l| l.strip_prefix("winner: ")).collect();
    assert_eq!(winners.len(), 1, "{stdout}");
    // X7.6: every standing prints the points of its circle.
    let rows = lines.iter().skip_while(|l| **l != "standings:").skip(1).collect::<Vec<_>>();
    assert_eq!(rows.len(), 20, "{stdout}");
    assert!(rows.iter().all(|l| l.ends_with(" pts") || l.ends_with(" pt")), "{stdout}");
    let id = lines.iter().find_map(|l| l.strip_prefix("gathering ")).and_then(|l| l.split(':').next()).unwrap();

    let g = summary(&s, id);
    assert_eq!((&g["status"], &g["end_reason"]), (&json!("finished"), &json!("final_ritual")), "{g}");
    assert_eq!(g["winner"].as_str(), Some(winners[0].trim()), "{stdout}");
    assert_eq!(g["progress"]["circles_ended"], 4, "{g}");
    assert_eq!(g["progress"]["circles_ended"], g["progress"]["circles_expected"], "{g}");
    let b = bracket(&s, id);
    assert_eq!(b["game"], EXORCIST, "{b}");
    let stages = b["stages"].as_array().unwrap();
    assert_eq!(stages.len(), 2, "{b}");
    // Decision 73: each circle's winner is its one advancer; decision 74: the best-placed other
    // (placing, then points) fills the Final.
    let mut advancers = Vec::new();
    let mut others = Vec::new();
    for c in stages[0]["circles"].as_array().unwrap() {
        let last_lit = strs(&c["last_lit"]);
        assert_eq!(last_lit.len(), 1, "{c}");
        assert_eq!(c["winner"].as_str(), Some(last_lit[0].as_str()), "{c}");
        advancers.extend(last_lit.clone());
        for p in c["players"].as_array().unwrap() {
            if !last_lit.contains(&p["name"].as_str().unwrap().to_string()) {
                let points = p["points"].as_u64().expect("points once the circle ended");
                others.push((p["placing"].as_u64().unwrap(), std::cmp::Reverse(points), p["name"].clone()));
            }
        }
    }
    others.sort_by_key(|o| (o.0, o.1));
    let fin = &stages[1]["circles"][0];
    let finalists = circle_players(fin);
    for a in &advancers {
        assert!(finalists.contains(a), "{a} advanced: {fin}");
    }
    let filler = finalists.iter().find(|n| !advancers.contains(n)).expect("one filled seat");
    let best = (others[0].0, others[0].1);
    let filled = others.iter().find(|o| o.2 == filler.as_str()).expect("the filler played stage 1");
    assert_eq!((filled.0, filled.1), best, "decision 74: the best-placed other fills: {b}");
    assert_eq!(fin["winner"], g["winner"], "{b}");
    let tables = check_circle_tables(&s, &org, id, &b);
    assert_eq!(tables.len(), 4);
    for t in tables.values() {
        assert_eq!(t["table"]["game"], EXORCIST, "{}", t["table"]);
    }
    let st = standings(&s, id);
    assert_eq!(st[0]["name"], g["winner"], "{st:?}");
    assert!(t0.elapsed() < Duration::from_secs(60), "bounded: {:?}", t0.elapsed());
}

// ---------- 2. the manager on PostgreSQL ----------

/// R9.2.2 (9 -> 5+4), R9.3 (each circle its own table naming its gathering, stage and circle),
/// R9.4, R9.6.3, R9.8.2 (a later stage's surplus out of play), on the second store: an
/// organiser creates a gathering over REST, adds 9 random bots and starts it; the server plays
/// it to its winner.
#[test]
fn a_9_player_gathering_splits_5_4() {
    let t0 = Instant::now();
    let s = Server::start(Db::postgres());
    let org = organiser(&s);
    let id = create(&s, &org, "nine random bots", json!({}));
    let added = add_bots(&s, &org, &id, 9, "random");
    assert_eq!((added["added"].as_u64(), added["registered"].as_u64()), (Some(9), Some(9)), "{added}");
    let g = summary(&s, &id);
    assert_eq!(g["players"].as_array().unwrap().len(), 9, "{g}");
    assert!(g["players"].as_array().unwrap().iter().all(|p| p["bot"] == "random"), "{g}");
    let started = control(&s, &org, &id, "start");
    assert_ne!(started["status"], "registering", "{started}");
    let g = wait_over(&s, &id, Duration::from_secs(300));
    eprintln!("9 random bots on PostgreSQL: {:.1} s", t0.elapsed().as_secs_f64());
    assert_eq!(g["status"], "finished", "{g}");
    assert_eq!(g["progress"]["circles_ended"], g["progress"]["circles_expected"], "{g}");

    let b = bracket(&s, &id);
    let stages = b["stages"].as_array().unwrap();
    assert_eq!(stages[0]["sizes"], "5+4", "R9.2.2");
    assert_eq!(stages[0]["final_ritual"], false);
    assert_eq!(b["winner"], g["winner"]);
    let st = standings(&s, &id);
    let winner = winner_or_rule_explained(&g, &b, &st);
    let fin = stages.last().unwrap();
    if let Some(winner) = &winner {
        assert_eq!(fin["final_ritual"], true, "{b}");
        assert_eq!(fin["circles"][0]["winner"], winner.as_str());
    }

    let tables = check_circle_tables(&s, &org, &id, &b);
    for ((stage, _), t) in &tables {
        let settings = &t["table"]["settings"];
        let qualifying = stages[(*stage - 1) as usize]["final_ritual"] == false;
        // R9.5: A = 2 in qualifying circles; the Final Ritual plays to one winner (R9.4).
        assert_eq!(settings["last_lit"], if qualifying { 2 } else { 1 }, "{settings}");
        check_surplus(&s, &org, *stage, t);
    }
    if let Some(winner) = &winner {
        check_final_standings(&st, &b, winner, 9);
    }
    eprintln!("9 players: {:.1} s in all", t0.elapsed().as_secs_f64());
}

/// X2.1, R9.2.2, rules decisions 72-74, on the second store: a gathering of *Let's Call the
/// Exorcist* on PostgreSQL. An organiser creates it over REST (`game` fixed at creation), adds 9
/// random bots and starts it; the server plays it to its winner: 5+4, each circle's winner its
/// one advancer, the best-placed others filling the Final table to 4, every circle table of the
/// game, the Final table's winner first in the standings.
#[test]
fn a_9_player_exorcist_gathering_on_postgres_splits_5_4_and_crowns_one_winner() {
    const EXORCIST: &str = "lets-call-the-exorcist";
    let t0 = Instant::now();
    let s = Server::start(Db::postgres());
    let org = organiser(&s);
    let (st, v, _) = post(
        &s,
        &org,
        "/api/v1/gatherings",
        json!({"name": "nine exorcists", "game": EXORCIST, "settings": {"target": 3}}),
    );
    assert_eq!(st, StatusCode::CREATED, "{v}");
    let id = v["gathering_id"].as_str().unwrap().to_string();
    add_bots(&s, &org, &id, 9, "random");
    control(&s, &org, &id, "start");
    let g = wait_over(&s, &id, Duration::from_secs(300));
    eprintln!("9 random Exorcist bots on PostgreSQL: {:.1} s", t0.elapsed().as_secs_f64());
    assert_eq!((&g["status"], &g["end_reason"]), (&json!("finished"), &json!("final_ritual")), "{g}");
    assert_eq!(g["progress"]["circles_ended"], 3, "{g}");
    let b = bracket(&s, &id);
    assert_eq!(b["game"], EXORCIST, "{b}");
    let stages = b["stages"].as_array().unwrap();
    assert_eq!(stages.len(), 2, "{b}");
    assert_eq!(stages[0]["sizes"], "5+4", "decision 72");
    for c in stages[0]["circles"].as_array().unwrap() {
        assert_eq!(strs(&c["last_lit"]).len(), 1, "decision 73: advance 1: {c}");
        assert_eq!(c["winner"].as_str(), strs(&c["last_lit"]).first().map(String::as_str), "{c}");
    }
    let fin = &stages[1]["circles"][0];
    assert_eq!(circle_players(fin).len(), 4, "decision 74: the Final filled to 4: {b}");
    assert_eq!(fin["winner"], g["winner"], "{b}");
    let tables = check_circle_tables(&s, &org, &id, &b);
    assert_eq!(tables.len(), 3);
    for t in tables.values() {
        assert_eq!(t["table"]["game"], EXORCIST, "{}", t["table"]);
        assert_eq!(t["table"]["settings"]["target"], 3, "{}", t["table"]);
    }
    let st = standings(&s, &id);
    assert_eq!(st[0]["name"], g["winner"], "{st:?}");
}

/// Two API processes on one PostgreSQL (the deployment the driver is written for: "several API
/// processes on one database can run drivers side by side") play a 9-bot gathering about as
/// fast as one process does. (Before the fix, every append that lost a race burnt a position
/// and the subscription waited 1.5 s at each gap, so two processes took minutes; now writers of
/// one stream queue on an advisory lock and gaps seen together expire together.)
#[test]
fn two_api_processes_on_one_postgres_play_a_gathering_promptly() {
    let db = Db::postgres();
    let a = Server::start(db.clone());
    let _b = Server::start(db);
    let org = organiser(&a);
    let id = create(&a, &org, "two processes", json!({}));
    add_bots(&a, &org, &id, 9, "random");
    let t0 = Instant::now();
    control(&a, &org, &id, "start");
    let g = wait_over(&a, &id, Duration::from_secs(600));
    let took = t0.elapsed().as_secs_f64();
    eprintln!("9 random bots, two API processes: {took:.1} s");
    assert_eq!(g["status"], "finished", "{g}");
    assert!(took < 45.0, "two API processes took {took:.1} s to play a gathering one process plays in a few seconds");
}

// ---------- 3. edge cases ----------

/// R9.5.5: with C = 4 and A = 2, five players split 3 + 2 (R9.2.2); the circle of 2 ends at
/// once without a turn with both as its Last Lit and nobody placed; then a Final Ritual of 4
/// (R9.6.3).
#[test]
fn five_players_with_circles_of_4_split_3_2_and_the_circle_of_2_ends_at_once() {
    let s = Server::start(Db::sqlite());
    let org = organiser(&s);
    let id = create(&s, &org, "five", json!({"max_circle": 4, "advance": 2}));
    add_bots(&s, &org, &id, 5, "heuristic");
    control(&s, &org, &id, "start");
    let g = wait_over(&s, &id, Duration::from_secs(180));
    assert_eq!(g["status"], "finished", "{g}");
    let b = bracket(&s, &id);
    let stages = b["stages"].as_array().unwrap();
    assert_eq!(stages[0]["sizes"], "3+2", "R9.2.2: {b}");
    let two = stages[0]["circles"].as_array().unwrap().iter().find(|c| c["players"].as_array().unwrap().len() == 2);
    let two = two.expect("a circle of 2");
    let mut ll = strs(&two["last_lit"]);
    let mut players = circle_players(two);
    ll.sort();
    players.sort();
    assert_eq!(ll, players, "R9.5.5: both players of the circle of 2 are its Last Lit: {two}");
    check_qualifying_placings(two, &ll);
    // Ended at once: no turn was played there.
    let tid = two["table_id"].as_str().unwrap();
    let events = all_events(&s, &org, tid);
    let types: Vec<&str> = events.iter().map(event_type).collect();
    assert_eq!(types.first(), Some(&"game_created"), "{types:?}");
    assert_eq!(types.last(), Some(&"game_ended"), "{types:?}");
    assert!(!types.contains(&"turn_started"), "R9.5.5: the circle of 2 played a turn: {types:?}");
    // The Final Ritual of the four Last Lit.
    let three = stages[0]["circles"].as_array().unwrap().iter().find(|c| c["players"].as_array().unwrap().len() == 3);
    let three_ll = strs(&three.expect("a circle of 3")["last_lit"]);
    assert_eq!(stages.len(), 2, "{b}");
    assert_eq!(stages[1]["final_ritual"], true);
    let expected: BTreeSet<String> = ll.iter().chain(three_ll.iter()).cloned().collect();
    let fin: BTreeSet<String> = circle_players(&stages[1]["circles"][0]).into_iter().collect();
    assert_eq!(fin, expected, "R9.6.3: {b}");
    assert_eq!(stages[1]["sizes"], expected.len().to_string(), "{b}");
    if three_ll.len() == 2 {
        assert_eq!(stages[1]["sizes"], "4");
    }
    check_circle_tables(&s, &org, &id, &b);
    let st = standings(&s, &id);
    if let Some(winner) = winner_or_rule_explained(&g, &b, &st) {
        check_final_standings(&st, &b, &winner, 5);
    }
}

/// R9.8.2 with an odd later stage: 9 players with C = 4 and A = 1 split 3+3+3 (R9.2.2), each
/// sends on one (R9.5.1), and the Final Ritual of 3 sets its 27 surplus cards out of play
/// face down: its Dark starts empty.
#[test]
fn an_odd_final_ritual_sets_its_surplus_out_of_play() {
    let s = Server::start(Db::sqlite());
    let org = organiser(&s);
    let id = create(&s, &org, "odd final", json!({"max_circle": 4, "advance": 1}));
    add_bots(&s, &org, &id, 9, "random");
    control(&s, &org, &id, "start");
    let g = wait_over(&s, &id, Duration::from_secs(240));
    assert_eq!(g["status"], "finished", "{g}");
    let b = bracket(&s, &id);
    let stages = b["stages"].as_array().unwrap();
    assert_eq!(stages[0]["sizes"], "3+3+3", "R9.2.2: {b}");
    for c in stages[0]["circles"].as_array().unwrap() {
        assert!(strs(&c["last_lit"]).len() <= 1, "R9.5.1: {c}");
    }
    let tables = check_circle_tables(&s, &org, &id, &b);
    for ((stage, _), t) in &tables {
        let qualifying = stages[(*stage - 1) as usize]["final_ritual"] == false;
        assert_eq!(t["table"]["settings"]["last_lit"], 1, "R9.5.1: {}", t["table"]["settings"]);
        if !qualifying {
            eprintln!("final of {}", t["table"]["settings"]["players"]);
        }
        check_surplus(&s, &org, *stage, t);
    }
    if let Some(w) = g["winner"].as_str() {
        check_final_standings(&standings(&s, &id), &b, w, 9);
    }
}

// ---------- 4. SIGKILL in the middle of a gathering ----------

/// Whether Alice has to answer this prompt (a simultaneous Salt prompt she answered stays open
/// so that she may change her answer).
fn needs_answer(p: &Value) -> bool {
    p.is_object() && p.get("current").is_none_or(Value::is_null)
}

fn is_reaction(p: &Value) -> bool {
    matches!(p["kind"].as_str(), Some("salt" | "counter_salt"))
}

/// Answers Alice's prompt with its default. Returns whether the answer was taken.
fn answer_default(s: &Server, token: &str, table: &str, p: &Value) -> bool {
    let body = json!({"prompt_id": p["id"], "answer": p["default"]});
    let (st, v, _) = answer(s, token, table, body, &uuid());
    match st {
        StatusCode::OK => true,
        // The decision point moved on meanwhile (a window closed, the table ended).
        StatusCode::CONFLICT => {
            assert_ne!(v["type"], "/problems/gathering-paused", "{v}");
            false
        }
        other => panic!("Alice's default answer was refused with {other}: {v}"),
    }
}

/// A snapshot of everything a gathering shows: summary, bracket, standings, and every table
/// (as the organiser: table, view, clock, and all events, page by page).
fn snapshot(s: &Server, org: &str, gid: &str) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    out.insert("summary".to_string(), summary(s, gid));
    let b = bracket(s, gid);
    out.insert("standings".to_string(), Value::Array(standings(s, gid)));
    for (stage, c) in circles(&b) {
        let tid = c["table_id"].as_str().unwrap();
        let (st, t, _) = get(s, org, &format!("/api/v1/tables/{tid}"));
        assert_eq!(st, StatusCode::OK, "{t}");
        let key = format!("stage {stage} circle {} {tid}", c["circle"]);
        out.insert(format!("{key} table"), t);
        out.insert(format!("{key} events"), Value::Array(all_events(s, org, tid)));
    }
    out.insert("bracket".to_string(), b);
    out
}

/// Names the parts of two snapshots that differ (with the first differing event).
fn differences(a: &BTreeMap<String, Value>, b: &BTreeMap<String, Value>) -> Vec<String> {
    let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    let mut out = Vec::new();
    for k in keys {
        match (a.get(k), b.get(k)) {
            (Some(x), Some(y)) if x == y => {}
            (Some(Value::Array(x)), Some(Value::Array(y))) if k.ends_with("events") => {
                let i = x.iter().zip(y).position(|(p, q)| p != q).unwrap_or(x.len().min(y.len()));
                out.push(format!(
                    "{k}: {} events before, {} after; first difference at {i}: {:?} vs {:?}",
                    x.len(),
                    y.len(),
                    x.get(i),
                    y.get(i)
                ));
            }
            (x, y) => out.push(format!("{k}:\n  before {x:?}\n  after  {y:?}")),
        }
    }
    out
}

/// Takes snapshots until two in a row agree (the manager may still be recording an ending).
fn settled_snapshot(s: &Server, org: &str, gid: &str) -> BTreeMap<String, Value> {
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut last = snapshot(s, org, gid);
    loop {
        std::thread::sleep(Duration::from_millis(500));
        let next = snapshot(s, org, gid);
        if next == last {
            return next;
        }
        assert!(Instant::now() < deadline, "a paused gathering kept changing: {:#?}", differences(&last, &next));
        last = next;
    }
}

/// R10.7.1, R10.7.3 (deadlines stored with the events, clocks resumed after a restart, time-outs
/// apply the default), R10.1.1 (a gathering and its tables are exactly their stored events), the
/// organiser's pause (R10.7.3: clocks stop; resume pushes deadlines back by the pause), R9.4,
/// R9.6: a 9-player gathering (Alice, a person, and 8 heuristic bots) survives two SIGKILLs:
/// one while Alice's prompt is open, one while paused.
#[test]
fn restart_in_the_middle_of_a_gathering_keeps_every_event_and_resumes_clocks() {
    let t0 = Instant::now();
    let lap = |what: &str| eprintln!("[{:6.1} s] {what}", t0.elapsed().as_secs_f64());
    let s = Server::start(Db::sqlite());
    let org = organiser(&s);
    let (_, alice) = named_account(&s, "alice", "player");
    let settings = json!({"clocks": {"decision_secs": 8, "reaction_secs": 8}, "reaction_window_min_ms": 0});
    let gid = create(&s, &org, "alice and eight bots", settings);
    let (st, v, _) = post(&s, &alice, &format!("/api/v1/gatherings/{gid}/registrations"), json!({}));
    assert_eq!(st, StatusCode::CREATED, "{v}");
    add_bots(&s, &org, &gid, 8, "heuristic");
    control(&s, &org, &gid, "start");
    lap("started");

    // Alice plays (her defaults, at once) until she has answered a few prompts and a decision
    // prompt of hers is open: only she can move the table on then.
    let mut answered = 0;
    let limit = Instant::now() + Duration::from_secs(90);
    let (table, open) = loop {
        assert!(Instant::now() < limit, "Alice never had a decision prompt open after {answered} answers");
        let Some((table, v)) = alice_prompt(&s, &alice, &gid) else {
            let st = standings(&s, &gid);
            let me = st.iter().find(|x| x["name"] == "alice").unwrap();
            assert!(me["status"] != "out", "Alice was out after {answered} answers, before the restart: {me}");
            std::thread::sleep(Duration::from_millis(30));
            continue;
        };
        let p = &v["prompt"];
        if answered >= 3 && needs_answer(p) && !is_reaction(p) {
            break (table, v);
        }
        if needs_answer(p) && answer_default(&s, &alice, &table, p) {
            answered += 1;
        }
        // Paced under the server's per-token rate limit (50 requests a second).
        std::thread::sleep(Duration::from_millis(30));
    };
    let prompt_id = open["prompt"]["id"].clone();
    let deadline = open["clock"]["deadline"].as_str().expect("Alice sees her deadline").to_string();
    assert_eq!(open["clock"]["paused"], false);
    lap(&format!("Alice answered {answered} prompts; her {} prompt is open until {deadline}", open["prompt"]["kind"]));
    let remaining = unix_secs(&deadline) - now_secs();
    assert!(remaining > 0.0 && remaining <= 8.5, "the deadline is 8 s after the prompt opened: {remaining} s left");

    // SIGKILL and restart on the same database.
    let db = s.kill();
    let s = Server::start(db);
    lap("restarted");
    let (t2, v) = alice_prompt(&s, &alice, &gid).expect("Alice's table still plays");
    assert_eq!(t2, table);
    assert_eq!(v["prompt"]["id"], prompt_id, "the open prompt changed in the restart: {v}");
    assert_eq!(v["clock"]["deadline"], deadline.as_str(), "R10.7.3: the clock restarted instead of resuming: {v}");
    // The prompt stays open until its deadline, and the server times it out after it.
    let due = unix_secs(&deadline);
    let replaced_at = loop {
        let now = now_secs();
        let current = alice_prompt(&s, &alice, &gid).map(|(_, v)| v["prompt"]["id"].clone());
        if current.as_ref() != Some(&prompt_id) {
            assert!(now > due - 0.5, "R10.7.1: the prompt was closed {:.1} s before its deadline", due - now);
            break now;
        }
        assert!(now < due + 20.0, "R10.7.1: the prompt was still open 20 s after its deadline");
        std::thread::sleep(Duration::from_millis(if now < due - 1.0 { 200 } else { 50 }));
    };
    lap(&format!("the prompt timed out {:.1} s after its deadline", replaced_at - due));
    let events = all_events(&s, &org, &table);
    assert!(!events.is_empty());

    // The organiser pauses at once. Alice answers nothing meanwhile, so her table soon waits
    // for her again (unless the time-out put her out).
    let before_pause = alice_prompt(&s, &alice, &gid)
        .map(|(_, v)| v)
        .filter(|v| needs_answer(&v["prompt"]) && v["clock"]["deadline"].is_string());
    let (st, g, _) = post(&s, &org, &format!("/api/v1/gatherings/{gid}/pause"), json!({}));
    let paused_at = Instant::now();
    let paused = st == StatusCode::OK;
    if paused {
        assert_eq!(g["status"], "paused", "{g}");
        lap(&format!("paused (Alice {} a prompt open)", if before_pause.is_some() { "has" } else { "has not" }));
    } else {
        // Rare: the time-out put Alice out and the bots finished the gathering first. The
        // restart below is then checked on the finished gathering.
        assert_eq!(st, StatusCode::CONFLICT, "{g}");
        assert_eq!(summary(&s, &gid)["status"], "finished", "the pause was refused: {g}");
        lap("the gathering finished before the pause could be sent");
    }
    // Answers are refused while paused, and the clocks stand still.
    if paused
        && let Some((table, v)) = alice_prompt(&s, &alice, &gid)
        && v["prompt"].is_object()
    {
        assert!(v["clock"]["deadline"].is_null() && v["clock"]["paused"] == true, "the clock runs on: {v}");
        let body = json!({"prompt_id": v["prompt"]["id"], "answer": v["prompt"]["default"]});
        let (st, r, _) = answer(&s, &alice, &table, body, &uuid());
        assert_eq!(st, StatusCode::CONFLICT, "{r}");
        assert_eq!(r["type"], "/problems/gathering-paused", "{r}");
    }
    let before = settled_snapshot(&s, &org, &gid);
    let n_events: usize =
        before.iter().filter(|(k, _)| k.ends_with("events")).map(|(_, v)| v.as_array().unwrap().len()).sum();
    lap(&format!("snapshot: {} tables, {n_events} events", before.len().saturating_sub(3) / 2));
    let db = s.kill();
    let s = Server::start(db);
    let after = snapshot(&s, &org, &gid);
    let diff = differences(&before, &after);
    assert!(diff.is_empty(), "the restart changed what the gathering shows:\n{}", diff.join("\n"));
    // Still paused: nothing moves, not even the clocks that were due meanwhile.
    std::thread::sleep(Duration::from_secs(2));
    let later = snapshot(&s, &org, &gid);
    let diff = differences(&before, &later);
    assert!(diff.is_empty(), "a paused gathering moved after a restart:\n{}", diff.join("\n"));
    lap("restarted: identical");

    if paused {
        let resume_sent = Instant::now();
        let g = control(&s, &org, &gid, "resume");
        assert_eq!(g["status"], "running", "{g}");
        let pause_len = resume_sent.duration_since(paused_at).as_secs_f64();
        lap(&format!("resumed after a {pause_len:.1} s pause"));
        // R10.7.3: the open prompt's deadline moved back by the pause.
        if let Some(old) = &before_pause
            && let Some((_, now)) = alice_prompt(&s, &alice, &gid)
            && now["prompt"]["id"] == old["prompt"]["id"]
        {
            let old_deadline = unix_secs(old["clock"]["deadline"].as_str().unwrap());
            let new_deadline = unix_secs(now["clock"]["deadline"].as_str().expect("a running clock"));
            let shift = new_deadline - old_deadline;
            assert!(shift >= pause_len - 0.5, "R10.7.3: the deadline moved {shift:.1} s for a {pause_len:.1} s pause");
            assert!(shift <= pause_len + 5.0, "R10.7.3: the deadline moved {shift:.1} s for a {pause_len:.1} s pause");
            lap(&format!("the deadline moved back {shift:.1} s"));
        }
    }

    // Alice plays on to the end.
    let limit = Instant::now() + Duration::from_secs(180);
    loop {
        let g = summary(&s, &gid);
        if g["status"] == "finished" {
            break;
        }
        assert!(Instant::now() < limit, "the gathering did not finish: {g}");
        if let Some((table, v)) = alice_prompt(&s, &alice, &gid)
            && needs_answer(&v["prompt"])
        {
            answer_default(&s, &alice, &table, &v["prompt"]);
        }
        std::thread::sleep(Duration::from_millis(30));
    }
    lap("finished");
    let g = summary(&s, &gid);
    let b = bracket(&s, &gid);
    assert_eq!(b["stages"][0]["sizes"], "5+4");
    assert_eq!(b["winner"], g["winner"]);
    check_circle_tables(&s, &org, &gid, &b);
    let st = standings(&s, &gid);
    if let Some(winner) = winner_or_rule_explained(&g, &b, &st) {
        check_final_standings(&st, &b, &winner, 9);
    }
    lap("done");
}
