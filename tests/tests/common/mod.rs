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

use flicker_client::blocking::Client as Api;
use reqwest::StatusCode;
use reqwest::blocking::Client;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

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
            .env("FLICKER_LOG", "warn")
            .env("FLICKER_METRICS_TOKEN", METRICS_TOKEN)
            .env("FLICKER_ORGANISER_KEY", ORGANISER_KEY);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let child = cmd.stdout(Stdio::null()).stderr(Stdio::null()).spawn().expect("start flicker");
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
