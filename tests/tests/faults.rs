//! Fault-injection tests against the real `flicker` server:
//!
//! - **A PostgreSQL outage** (`a_postgresql_outage_*`): a PostgreSQL cluster of the test's own
//!   (not the shared test database) is stopped for five seconds while a small bot gathering
//!   plays and two people sit at a table with 4-second clocks, then started again. The
//!   gathering finishes without a restart of flicker, every event stored before the outage is
//!   still stored as it was, `/readyz` says not ready during the outage, the outage is recorded,
//!   and every time-out comes no earlier than its deadline moved back by the outage (R10.7.1,
//!   R10.7.3; docs/rules-decisions.md "Store outages stop the clocks").
//! - **Appends racing a restart** (`answers_racing_a_restart_*`): a SQLite store with a long
//!   log after its last checkpoint (100,000 filler events inserted while the server is down),
//!   so that the restarted driver takes seconds to catch up; a live stream opened as soon as the
//!   server listens must deliver every answer accepted meanwhile, and `/readyz` must say not
//!   ready until the driver has caught up.
//!
//! PostgreSQL comes from Debian's packages (`./test.sh` installs them when missing).

mod common;

use common::*;
use flicker_lab::bot::random_answer;
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use reqwest::StatusCode;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::PathBuf;
use std::process::Command;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// No wait here may take longer (a safety net for a hung test, not a timing assertion).
const LIMIT: Duration = Duration::from_secs(240);

// ---------- a PostgreSQL cluster of the test's own ----------

/// A throwaway PostgreSQL cluster under /tmp, stopped and removed when dropped.
struct Cluster {
    bin: PathBuf,
    dir: PathBuf,
    port: u16,
}

fn is_root() -> bool {
    Command::new("id").arg("-u").output().is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// Runs a shell command line, as the `postgres` user when we are root (PostgreSQL refuses root).
fn sh(line: &str) -> bool {
    let status = if is_root() {
        Command::new("su").args(["postgres", "-s", "/bin/sh", "-c", line]).status()
    } else {
        Command::new("sh").args(["-c", line]).status()
    };
    status.is_ok_and(|s| s.success())
}

impl Cluster {
    fn start() -> Cluster {
        let bin = std::fs::read_dir("/usr/lib/postgresql")
            .ok()
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok().map(|e| e.path().join("bin")))
            .filter(|b| b.join("initdb").exists())
            .max_by_key(|b| b.parent().and_then(|v| v.file_name()?.to_str()?.parse::<u32>().ok()).unwrap_or_default())
            .expect("PostgreSQL is not installed (./test.sh installs it from Debian packages)");
        let dir = std::env::temp_dir().join(format!("flicker-outage-pg-{}", uuid()));
        std::fs::create_dir_all(&dir).unwrap();
        if is_root() {
            assert!(
                Command::new("chown").args(["postgres:postgres", dir.to_str().unwrap()]).status().unwrap().success()
            );
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let c = Cluster { bin, dir, port };
        assert!(
            sh(&format!(
                "{}/initdb -D {} -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null",
                c.bin.display(),
                c.dir.display()
            )),
            "initdb failed"
        );
        c.up();
        c
    }

    fn up(&self) {
        let ok = sh(&format!(
            "{}/pg_ctl -D {dir} -l {dir}/server.log -o '-c listen_addresses=127.0.0.1 -p {} -k {dir}' -w start >/dev/null",
            self.bin.display(),
            self.port,
            dir = self.dir.display()
        ));
        assert!(ok, "pg_ctl start failed");
    }

    /// A fast shutdown: every connection is cut, as in a crash of the database server.
    fn down(&self) {
        assert!(
            sh(&format!("{}/pg_ctl -D {} -m fast -w stop >/dev/null", self.bin.display(), self.dir.display())),
            "pg_ctl stop failed"
        );
    }

    fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = sh(&format!(
            "{}/pg_ctl -D {} -m immediate -w stop >/dev/null 2>&1",
            self.bin.display(),
            self.dir.display()
        ));
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// One stored event, as read straight from PostgreSQL.
#[derive(Debug, Clone, PartialEq)]
struct Stored {
    stream: String,
    version: i64,
    event_type: String,
    payload: String,
    metadata: Value,
    /// Microseconds since the epoch.
    recorded_at: i64,
}

fn read_all(url: &str) -> Vec<Stored> {
    use sqlx::Row;
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let pool = sqlx::postgres::PgPoolOptions::new().max_connections(1).connect(url).await.unwrap();
        let rows = sqlx::query(
            "SELECT stream_id, stream_version, event_type, payload::text, metadata::text, \
             (EXTRACT(EPOCH FROM recorded_at) * 1000000)::BIGINT FROM events ORDER BY position",
        )
        .fetch_all(&pool)
        .await
        .unwrap();
        pool.close().await;
        rows.iter()
            .map(|r| Stored {
                stream: r.get(0),
                version: r.get(1),
                event_type: r.get(2),
                payload: r.get(3),
                metadata: serde_json::from_str(&r.get::<String, _>(4)).unwrap(),
                recorded_at: r.get(5),
            })
            .collect()
    })
}

/// Microseconds since the epoch of an RFC 3339 UTC timestamp, by PostgreSQL (no chrono here).
fn micros(url: &str, ts: &str) -> i64 {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let pool = sqlx::postgres::PgPoolOptions::new().max_connections(1).connect(url).await.unwrap();
        let v: i64 = sqlx::query_scalar("SELECT (EXTRACT(EPOCH FROM $1::timestamptz) * 1000000)::BIGINT")
            .bind(ts)
            .fetch_one(&pool)
            .await
            .unwrap();
        pool.close().await;
        v
    })
}

fn now_micros() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_micros() as i64
}

fn readyz(s: &Server) -> Option<StatusCode> {
    reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(5))
        .build()
        .unwrap()
        .get(s.url("/readyz"))
        .send()
        .ok()
        .map(|r| r.status())
}

/// PostgreSQL stopped for 5 s during a bot gathering and a table of
/// two people with 4-second clocks. Flicker is never restarted.
#[test]
fn a_postgresql_outage_freezes_nothing_and_times_out_nobody() {
    let pg = Cluster::start();
    let s = Server::start(Db::Postgres(pg.url()));
    let org = named_account(&s, &format!("org{}", &uuid()[..10]), "organiser").1;
    let (st, v, _) = post(&s, &org, "/api/v1/gatherings", json!({"name": "outage", "settings": {"bot_delay_ms": 150}}));
    assert_eq!(st, StatusCode::CREATED, "{v}");
    let gid = v["gathering_id"].as_str().unwrap().to_string();
    let (st, v, _) = post(&s, &org, &format!("/api/v1/gatherings/{gid}/bots"), json!({"count": 8, "kind": "random"}));
    assert_eq!(st, StatusCode::CREATED, "{v}");
    // Two people who never answer: every decision point times out, 4 s after it opened.
    let (_, alice) = account(&s, "player");
    let (_, bob) = account(&s, "player");
    let extra = json!({"clocks": {"decision_secs": 4, "reaction_secs": 4}, "abandonment": 0});
    let people = table(&s, &[&alice, &bob], 2, extra);
    let (st, v, _) = post(&s, &org, &format!("/api/v1/gatherings/{gid}/start"), json!({}));
    assert_eq!(st, StatusCode::OK, "{v}");
    std::thread::sleep(Duration::from_secs(3));

    let before = read_all(&pg.url());
    let stopped = now_micros();
    pg.down();
    // The server notices within its probe interval and says it is not ready.
    let t = Instant::now();
    let mut unready = false;
    while t.elapsed() < Duration::from_secs(5) {
        if readyz(&s) == Some(StatusCode::SERVICE_UNAVAILABLE) {
            unready = true;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    pg.up();
    let restarted = now_micros();
    assert!(unready, "/readyz never said not ready while PostgreSQL was down");

    // The gathering finishes without a restart of flicker.
    let t = Instant::now();
    let summary = loop {
        let (st, g, _) = get_public(&s, &format!("/api/v1/gatherings/{gid}"));
        if st == StatusCode::OK && (g["status"] == "finished" || g["status"] == "cancelled") {
            break g;
        }
        assert!(t.elapsed() < LIMIT, "the gathering stopped after the outage: {g}");
        std::thread::sleep(Duration::from_millis(250));
    };
    assert_eq!(summary["status"], "finished", "{summary}");
    assert_eq!(summary["progress"]["circles_ended"], summary["progress"]["circles_expected"], "{summary}");
    let t = Instant::now();
    while readyz(&s) != Some(StatusCode::OK) {
        assert!(t.elapsed() < LIMIT, "/readyz never said ready again");
        std::thread::sleep(Duration::from_millis(100));
    }
    // The people's table kept its clocks: wait for two time-outs after the outage.
    let after = loop {
        let all = read_all(&pg.url());
        let late = all
            .iter()
            .filter(|e| {
                e.stream == format!("table-{people}") && e.event_type == "timed_out" && e.recorded_at > restarted
            })
            .count();
        if late >= 2 || all.iter().any(|e| e.stream == format!("table-{people}") && e.event_type == "game_ended") {
            break all;
        }
        assert!(t.elapsed() < LIMIT, "the people's table stopped after the outage");
        std::thread::sleep(Duration::from_millis(250));
    };

    // Nothing stored before the outage is lost or changed.
    let mut now: BTreeMap<(String, i64), &Stored> = BTreeMap::new();
    for e in &after {
        now.insert((e.stream.clone(), e.version), e);
    }
    for e in &before {
        assert_eq!(now.get(&(e.stream.clone(), e.version)).copied(), Some(e), "an event stored before the outage");
    }

    // The outage is recorded, covering the real one.
    let outages: Vec<(i64, i64)> = after
        .iter()
        .filter(|e| e.stream == "system-outages")
        .map(|e| {
            let p: Value = serde_json::from_str(&e.payload).unwrap();
            (micros(&pg.url(), p["from"].as_str().unwrap()), micros(&pg.url(), p["to"].as_str().unwrap()))
        })
        .collect();
    assert!(
        outages.iter().any(|&(from, to)| from <= stopped + 1_500_000 && to >= restarted - 1_000_000),
        "no recorded outage covers PostgreSQL's stop ({stopped}..{restarted}): {outages:?}"
    );
    let overlap = |opened: i64| -> i64 {
        // The outages as one set of spans (they may overlap), counted from `opened`.
        let mut spans: Vec<(i64, i64)> = outages.clone();
        spans.sort();
        let mut merged: Vec<(i64, i64)> = Vec::new();
        for (f, t) in spans {
            match merged.last_mut() {
                Some(last) if f <= last.1 => last.1 = last.1.max(t),
                _ => merged.push((f, t)),
            }
        }
        merged.iter().filter(|(_, t)| *t > opened).map(|(f, t)| t - f.max(&opened)).sum()
    };

    // R10.7.1, R10.7.3: no time-out before its deadline moved back by the outage.
    let table_events: Vec<&Stored> = after.iter().filter(|e| e.stream == format!("table-{people}")).collect();
    let mut clock: Option<(i64, i64)> = None;
    let mut spanning = 0;
    for e in &table_events {
        if e.event_type == "timed_out" {
            let (opened, deadline) = clock.expect("a time-out follows a clock mark");
            let due = deadline + overlap(opened);
            assert!(
                e.recorded_at + 1 >= due,
                "a time-out {} ms before its deadline moved back by the outage",
                (due - e.recorded_at) / 1000
            );
            if deadline > stopped && opened < restarted {
                spanning += 1;
            }
        }
        if let Some(c) = e.metadata.get("clock") {
            clock = Some((
                micros(&pg.url(), c["opened_at"].as_str().unwrap()),
                micros(&pg.url(), c["deadline"].as_str().unwrap()),
            ));
        }
    }
    assert!(spanning >= 1, "no decision point of the people's table was open across the outage");
}

// ---------- appends racing a restart ----------

/// Inserts `n` filler events (streams of 100) straight into a stopped server's SQLite file.
fn fill(path: &std::path::Path, n: usize) {
    use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions};
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let opts = SqliteConnectOptions::new().filename(path).journal_mode(SqliteJournalMode::Wal);
        let pool = SqlitePoolOptions::new().max_connections(1).connect_with(opts).await.unwrap();
        let mut tx = pool.begin().await.unwrap();
        let run = uuid();
        for chunk in (0..n).collect::<Vec<_>>().chunks(500) {
            let values: Vec<String> = chunk
                .iter()
                .map(|i| {
                    format!(
                        "('filler-{run}-{}', {}, 'filler', 1, '{{\"n\":{i}}}', '{{}}', '2026-01-01T00:00:00Z')",
                        i / 100,
                        i % 100 + 1
                    )
                })
                .collect();
            let sql = format!(
                "INSERT INTO events (stream_id, stream_version, event_type, schema_version, payload, metadata, recorded_at) VALUES {}",
                values.join(",")
            );
            sqlx::query(sqlx::AssertSqlSafe(sql)).execute(&mut *tx).await.unwrap();
        }
        tx.commit().await.unwrap();
        pool.close().await;
    });
}

/// A live table stream read on a thread: each message's `event:` and `id:`.
fn open_stream(s: &Server, token: &str, table: &str) -> mpsc::Receiver<(String, String)> {
    let (tx, rx) = mpsc::channel();
    let resp = reqwest::blocking::Client::builder()
        .build()
        .unwrap()
        .get(s.url(&format!("/api/v1/tables/{table}/stream")))
        .bearer_auth(token)
        .send()
        .unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    std::thread::spawn(move || {
        let (mut event, mut id) = (String::new(), String::new());
        for line in std::io::BufReader::new(resp).lines() {
            let Ok(line) = line else { return };
            if let Some(v) = line.strip_prefix("event:") {
                event = v.trim().to_string();
            } else if let Some(v) = line.strip_prefix("id:") {
                id = v.trim().to_string();
            } else if line.is_empty()
                && !event.is_empty()
                && tx.send((std::mem::take(&mut event), std::mem::take(&mut id))).is_err()
            {
                return;
            }
        }
    });
    rx
}

/// The number of events `token` may see at `table` (its sequence, R10.8).
fn seen(s: &Server, token: &str, table: &str) -> usize {
    all_events(s, token, table).len()
}

/// Answers accepted while the restarted driver catches up reach a live
/// stream opened before them, and `/readyz` says not ready until the driver has caught up.
#[test]
fn answers_racing_a_restart_reach_an_open_stream() {
    let s = Server::start(Db::sqlite());
    let (_, alice) = account(&s, "player");
    let (_, bob) = account(&s, "player");
    let people = table(&s, &[&alice, &bob], 2, json!({"clocks": {"decision_secs": 3600, "reaction_secs": 3600}}));
    let db = s.kill();
    let Db::Sqlite(path) = &db else { unreachable!() };
    fill(path, 100_000);

    let s = Server::start_until(db, &[], "/healthz");
    let early = readyz(&s);
    let stream = open_stream(&s, &alice, &people);
    // Answer as soon as the server listens, while its driver reads the log.
    let mut rng = ChaCha8Rng::seed_from_u64(14);
    let mut answered = 0;
    let mut tries = 0;
    while answered < 6 && tries < 200 {
        tries += 1;
        for (token, seat) in [(&alice, 0u8), (&bob, 1u8)] {
            if let Some(p) = prompt_of(&s, token, &people, Some(seat))
                && needs_answer(&p)
            {
                let body = json!({"seat": seat, "prompt_id": p.id, "answer": random_answer(&p, &mut rng)});
                if answer(&s, token, &people, body, &uuid()).0 == StatusCode::OK {
                    answered += 1;
                }
            }
        }
    }
    assert!(answered >= 1, "no answer was accepted");
    let answered_while_unready = readyz(&s) != Some(StatusCode::OK);
    let t = Instant::now();
    while readyz(&s) != Some(StatusCode::OK) {
        assert!(t.elapsed() < LIMIT, "the server never became ready");
        std::thread::sleep(Duration::from_millis(100));
    }
    // No answer comes after this: the stream must deliver the whole sequence by itself.
    let want = seen(&s, &alice, &people);
    let mut got = 0;
    let t = Instant::now();
    while got < want {
        match stream.recv_timeout(Duration::from_secs(20)) {
            Ok(_) => got += 1,
            Err(_) => break,
        }
        assert!(t.elapsed() < LIMIT);
    }
    assert_eq!(
        got, want,
        "the live stream delivered {got} of {want} events ({answered} answers, made while the driver caught up: {answered_while_unready})"
    );
    assert_eq!(early, Some(StatusCode::SERVICE_UNAVAILABLE), "/readyz said ready before the driver caught up");
}
