//! The shared harness of the process-level HTTP tests: the `flicker` binary, a fresh SQLite file
//! or the test PostgreSQL, a server process on a free port (SIGKILL and restart on the same
//! database), and the calls of [`calls`] (shared with the in-process route-group tests of
//! `api/server/tests/routes`).
//!
//! Each test binary (`http.rs`, `gatherings.rs`, `reliability.rs`, ...) includes this module and
//! uses only part of it.
//!
//! The server runs with its default rate limits.
#![allow(dead_code)]

mod calls;
pub use calls::*;
mod store;
#[allow(unused_imports)]
pub use store::*;

use flicker_client::blocking::Client as Api;
use reqwest::StatusCode;
use reqwest::blocking::Client;
use serde_json::Value;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The `flicker` binary (built by `cargo build` or `cargo test --workspace`).
pub fn binary() -> PathBuf {
    // target/debug/deps/<test>-<hash> -> target/debug/flicker
    let exe = std::env::current_exe().expect("test exe");
    let dir = exe.parent().and_then(|p| p.parent()).expect("target dir");
    let bin = dir.join(format!("flicker{}", std::env::consts::EXE_SUFFIX));
    assert!(bin.exists(), "{} is missing: run `cargo test --workspace` (it builds the flicker binary)", bin.display());
    bin
}

/// The database a server runs on.
#[derive(Clone, Debug)]
pub enum Db {
    /// A fresh SQLite file in a temporary directory.
    Sqlite(PathBuf),
    /// The test PostgreSQL (`FLICKER_TEST_POSTGRES_URL`).
    Postgres(String),
}

impl Db {
    pub fn sqlite() -> Db {
        let dir = std::env::temp_dir().join(format!("flicker-http-{}", uuid()));
        std::fs::create_dir_all(&dir).unwrap();
        Db::Sqlite(dir.join("flicker.db"))
    }
    pub fn postgres() -> Db {
        match std::env::var("FLICKER_TEST_POSTGRES_URL") {
            Ok(url) => Db::Postgres(url),
            Err(_) => panic!(
                "FLICKER_TEST_POSTGRES_URL is not set. Run ./test.sh, which installs and starts a throwaway PostgreSQL, or set it to an empty database's URL"
            ),
        }
    }
    pub fn url(&self) -> String {
        match self {
            Db::Sqlite(p) => p.display().to_string(),
            Db::Postgres(u) => u.clone(),
        }
    }
}

/// A running `flicker serve` process; killed when dropped.
pub struct Server {
    child: Child,
    pub base: String,
    pub db: Db,
}

pub const METRICS_TOKEN: &str = "metrics-secret-for-tests";

/// The environment of servers under deliberate load (the reliability tests): no rate limits.
pub const NO_LIMITS: &[(&str, &str)] = &[("FLICKER_RATE_PER_TOKEN", "0"), ("FLICKER_RATE_PER_ADDRESS", "0")];

/// A reliability test's seed, printed: `FLICKER_RELIABILITY_SEED=N` repeats a run's random
/// choices (kill moments, bots' answers where the test makes them; thread timing still varies).
pub fn seed(test: &str) -> u64 {
    let seed = match std::env::var("FLICKER_RELIABILITY_SEED") {
        Ok(v) => v.parse().expect("FLICKER_RELIABILITY_SEED is an unsigned integer"),
        Err(_) => SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_nanos() as u64,
    };
    println!("{test}: seed {seed} (FLICKER_RELIABILITY_SEED={seed} repeats it)");
    seed
}

/// The gathering's winner, or `None` when it ended with no winner for a reason the rules give:
/// a Final Ritual that ended with no winner (R7.9.4, a hard end with equal players; R7.8, The
/// Witness), or a last qualifying stage that sent nobody on (R9.5.3, R9.6.1). Anything else
/// without a winner fails. With no winner, the standings have no first place (R9.9.2).
/// `g`: the summary, `b`: the bracket, `st`: the standings.
pub fn winner_or_rule_explained(g: &Value, b: &Value, st: &[Value]) -> Option<String> {
    if let Some(w) = g["winner"].as_str() {
        assert_eq!(g["end_reason"], "final_ritual", "{g}");
        return Some(w.to_string());
    }
    assert_eq!(g["end_reason"], "no_winner", "a finished gathering without a winner: {g}");
    let last = b["stages"].as_array().and_then(|s| s.last()).expect("a stage was drawn");
    if last["final_ritual"] == true {
        let c = &last["circles"][0];
        assert!(c["winner"].is_null(), "{c}");
        assert!(c["end_reason"] == "guttered" || c["end_reason"] == "witnessed", "R7.7.2: {c}");
    } else {
        for c in last["circles"].as_array().unwrap() {
            assert!(strs(&c["last_lit"]).is_empty(), "R9.6.1: a Last Lit went on to nothing: {c}");
        }
    }
    assert!(st.iter().all(|x| x["rank"] != 1 && x["status"] != "winner"), "R9.9.2: {st:?}");
    eprintln!("the gathering ended with no winner by the rules: {}", last["circles"][0]["end_reason"]);
    None
}
pub const ORGANISER_KEY: &str = "organiser-key-for-tests";

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

impl Server {
    /// Starts a server on `db` and waits until it is ready.
    pub fn start(db: Db) -> Server {
        Server::start_with(db, &[])
    }

    /// Starts a server on `db` with extra environment variables.
    pub fn start_with(db: Db, env: &[(&str, &str)]) -> Server {
        Server::start_until(db, env, "/readyz")
    }

    /// Starts a server on `db` and returns as soon as it answers `probe` with 200 (`/healthz`:
    /// it listens, maybe before it is ready).
    pub fn start_until(db: Db, env: &[(&str, &str)], probe: &str) -> Server {
        let port = free_port();
        let mut cmd = Command::new(binary());
        cmd.args(["serve", "--addr", &format!("127.0.0.1:{port}"), "--database-url", &db.url()])
            .env("FLICKER_LOG", std::env::var("FLICKER_TEST_SERVER_LOG_FILTER").unwrap_or_else(|_| "warn".into()))
            .env("FLICKER_METRICS_TOKEN", METRICS_TOKEN)
            .env("FLICKER_ORGANISER_KEY", ORGANISER_KEY);
        for (k, v) in env {
            cmd.env(k, v);
        }
        // `FLICKER_TEST_SERVER_LOGS=DIR`: each server's log (stderr) goes to a file there,
        // named by its port, to see what a failing test's servers did
        // (`FLICKER_TEST_SERVER_LOG_FILTER`: its `FLICKER_LOG`, `warn` by default).
        let stderr = match std::env::var_os("FLICKER_TEST_SERVER_LOGS") {
            Some(dir) => {
                std::fs::create_dir_all(&dir).unwrap();
                let path = PathBuf::from(dir).join(format!("flicker-{port}.log"));
                Stdio::from(std::fs::File::create(path).expect("a server log file"))
            }
            None => Stdio::null(),
        };
        let child = cmd.stdout(Stdio::null()).stderr(stderr).spawn().expect("start flicker");
        let s = Server { child, base: format!("http://127.0.0.1:{port}"), db };
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Ok(r) = Client::new().get(format!("{}{probe}", s.base)).send()
                && r.status() == StatusCode::OK
            {
                return s;
            }
            assert!(Instant::now() < deadline, "the server did not become ready");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// SIGKILL, as a crash would. Returns the database, to start again on it.
    pub fn kill(mut self) -> Db {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
        self.db.clone()
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// This process's `/metrics` (Prometheus text), read with the test token.
    pub fn metrics(&self) -> String {
        let r = Client::new().get(self.url("/metrics")).bearer_auth(METRICS_TOKEN).send().expect("GET /metrics");
        assert_eq!(r.status(), StatusCode::OK, "GET /metrics");
        r.text().unwrap()
    }

    /// The typed client of this server, unauthenticated; it sends a request refused with 429
    /// again after its `Retry-After`, as [`send`] does.
    pub fn api(&self) -> Api {
        Api::new(&self.base).retry_rate_limited(40)
    }

    /// The typed client of this server with the bearer `token`.
    pub fn api_as(&self, token: &str) -> Api {
        self.api().with_token(token)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
