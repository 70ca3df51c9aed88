//! The shared harness of the HTTP tests: the `flicker` binary, a fresh SQLite file or the test
//! PostgreSQL, a server process on a free port (SIGKILL and restart on the same database), the
//! typed client (`flicker_client`) for the usual calls, and raw JSON helpers for the tests that
//! send what a typed client cannot (malformed bodies, refusals).
//!
//! Each test binary (`http.rs`, `gatherings.rs`, `reliability.rs`, ...) includes this module and
//! uses only part of it.
//!
//! The server runs with its default rate limits; the helpers behave as a polite client does:
//! a request refused with 429 `rate-limited` is sent again after its `Retry-After`.
#![allow(dead_code)]

use final_flicker::{Prompt, PromptKind};
use flicker_client::blocking::Client as Api;
use flicker_client::routes;
use flicker_client::types::{AnswerBody, CreateTable, Register, Role};
use flicker_lab::bot::random_answer;
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use reqwest::StatusCode;
use reqwest::blocking::{Client, RequestBuilder, Response};
use serde_json::{Value, json};
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

/// A random 32-hex-digit id.
pub fn uuid() -> String {
    format!("{:032x}", rand::random::<u128>())
}

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

pub fn client() -> Client {
    Client::builder().timeout(Duration::from_secs(30)).build().unwrap()
}

/// Sends a request; while it is refused with 429, waits as its `Retry-After` says (at most 5 s,
/// 40 times) and sends it again. A refused request did nothing, so sending it again is safe.
pub fn send(req: RequestBuilder) -> Response {
    for _ in 0..40 {
        let r = req.try_clone().expect("a request without a streamed body").send().unwrap();
        if r.status() != StatusCode::TOO_MANY_REQUESTS {
            return r;
        }
        let secs = r.headers().get("retry-after").and_then(|v| v.to_str().ok()?.trim().parse::<u64>().ok());
        std::thread::sleep(Duration::from_secs(secs.unwrap_or(1).clamp(1, 5)));
    }
    panic!("still rate-limited after 40 tries")
}

/// Status, JSON body (`null` when not JSON) and content type.
pub fn json_of(r: Response) -> (StatusCode, Value, String) {
    let status = r.status();
    let ct = r.headers().get("content-type").map(|v| v.to_str().unwrap().to_string()).unwrap_or_default();
    let v: Value = r.json().unwrap_or(Value::Null);
    (status, v, ct)
}

/// Logs in and returns the access token.
pub fn login(s: &Server, name: &str, password: &str) -> String {
    match s.api().send(routes::login(name, password)) {
        Ok(t) => t.access_token,
        Err(e) => panic!("login {name}: {e}"),
    }
}

/// Registers an account with a random name and returns its name and access token.
pub fn account(s: &Server, role: &str) -> (String, String) {
    named_account(s, &format!("u{}", &uuid()[..12]), role)
}

/// Registers the account `name` (organisers with the server's key) and returns its name and
/// access token.
pub fn named_account(s: &Server, name: &str, role: &str) -> (String, String) {
    let role: Role = serde_json::from_value(Value::String(role.to_string())).expect("a role");
    let key = (role == Role::Organiser).then_some(ORGANISER_KEY);
    let body = Register { name: name.to_string(), password: "password-1".to_string(), role };
    if let Err(e) = s.api().send(routes::register(&body, key)) {
        panic!("registering {name}: {e}");
    }
    (name.to_string(), login(s, name, "password-1"))
}

pub fn post(s: &Server, token: &str, path: &str, body: Value) -> (StatusCode, Value, String) {
    json_of(send(client().post(s.url(path)).bearer_auth(token).json(&body)))
}

pub fn put(s: &Server, token: &str, path: &str, body: Value) -> (StatusCode, Value, String) {
    json_of(send(client().put(s.url(path)).bearer_auth(token).json(&body)))
}

pub fn delete(s: &Server, token: &str, path: &str) -> (StatusCode, Value, String) {
    json_of(send(client().delete(s.url(path)).bearer_auth(token)))
}

pub fn get(s: &Server, token: &str, path: &str) -> (StatusCode, Value, String) {
    json_of(send(client().get(s.url(path)).bearer_auth(token)))
}

/// An unauthenticated GET (the public reads).
pub fn get_public(s: &Server, path: &str) -> (StatusCode, Value, String) {
    json_of(send(client().get(s.url(path))))
}

/// Posts an answer with an `Idempotency-Key`.
pub fn answer(s: &Server, token: &str, table: &str, body: Value, key: &str) -> (StatusCode, Value, String) {
    json_of(send(
        client()
            .post(s.url(&format!("/api/v1/tables/{table}/answers")))
            .bearer_auth(token)
            .header("Idempotency-Key", key)
            .json(&body),
    ))
}

// ---------- practice tables played by random bots ----------

/// Creates a table of `players`, seats the given tokens in order, starts it. `extra`: more
/// fields of the creation body (`settings`, `clocks`, `position`, ...).
pub fn table(s: &Server, tokens: &[&str], players: u8, extra: Value) -> String {
    let mut body = json!({"players": players});
    if let Value::Object(m) = extra {
        for (k, v) in m {
            body[k] = v;
        }
    }
    let body: CreateTable = serde_json::from_value(body).expect("a table creation body");
    let creator = s.api_as(tokens[0]);
    let id = match creator.send(routes::create_table(&body)) {
        Ok(t) => t.table.table_id,
        Err(e) => panic!("creating a table: {e}"),
    };
    for t in tokens {
        if let Err(e) = s.api_as(t).send(routes::take_seat(&id, None)) {
            panic!("taking a seat: {e}");
        }
    }
    if let Err(e) = creator.send(routes::start_table(&id)) {
        panic!("starting the table: {e}");
    }
    id
}

/// The open prompt of `seat` (or of the caller's only seat).
pub fn prompt_of(s: &Server, token: &str, table: &str, seat: Option<u8>) -> Option<Prompt> {
    match s.api_as(token).send(routes::prompt(table, seat)) {
        Ok(r) => r.prompt,
        Err(e) => panic!("reading the prompt: {e}"),
    }
}

/// Whether the table's game has ended.
pub fn finished(s: &Server, token: &str, table: &str) -> bool {
    s.api_as(token).send(routes::get_table(table)).is_ok_and(|t| t.table.status == "finished")
}

/// Whether a bot should answer `p`: not a Salt window it has already answered (it waits for the
/// window to close).
pub fn needs_answer(p: &Prompt) -> bool {
    !matches!(p.kind, PromptKind::Salt { current: Some(_), .. })
}

/// One bot: answers its prompts at random until the game ends. Returns the answers accepted.
pub fn bot_loop(s: &Server, token: &str, table: &str, seat: Option<u8>, seed: u64) -> u32 {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut accepted = 0;
    let deadline = Instant::now() + Duration::from_secs(600);
    loop {
        assert!(Instant::now() < deadline, "the game did not end in time");
        match prompt_of(s, token, table, seat) {
            Some(p) if needs_answer(&p) => {
                let body = AnswerBody { seat, prompt_id: p.id, answer: random_answer(&p, &mut rng) };
                match s.api_as(token).send(routes::answer(table, &body, &uuid())) {
                    Ok(_) => accepted += 1,
                    // Another seat's answer changed the decision point meanwhile.
                    Err(e) if e.status() == Some(StatusCode::CONFLICT) => {
                        assert!(e.problem().is_some_and(|p| p.kind.is_some()), "{e}")
                    }
                    Err(e) => panic!("answer refused: {e}"),
                }
            }
            _ => {
                if finished(s, token, table) {
                    return accepted;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    }
}
