//! Tamper evidence, end to end: a game played by built-in bots on the real server is
//! exported (`GET /api/v1/tables/{id}/replay.jsonl`) and `flicker verify` accepts it against the
//! published key (`GET /api/v1/keys/replay`); one changed byte makes it fail naming the event.
//! On SQLite and on PostgreSQL (`FLICKER_TEST_POSTGRES_URL`, as in `http.rs`; without it the
//! PostgreSQL test fails and says so). The harness is a small copy of `http.rs`'s.

use reqwest::StatusCode;
use reqwest::blocking::Client;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn binary() -> PathBuf {
    // target/debug/deps/verify-<hash> -> target/debug/flicker
    let exe = std::env::current_exe().expect("test exe");
    let dir = exe.parent().and_then(|p| p.parent()).expect("target dir");
    let bin = dir.join(format!("flicker{}", std::env::consts::EXE_SUFFIX));
    assert!(bin.exists(), "{} is missing: run `cargo test --workspace` (it builds the flicker binary)", bin.display());
    bin
}

fn uuid() -> String {
    format!("{:032x}", rand::random::<u128>())
}

struct Server {
    child: Child,
    base: String,
}

impl Server {
    fn start(database_url: &str) -> Server {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = Command::new(binary())
            .args(["serve", "--addr", &format!("127.0.0.1:{port}"), "--database-url", database_url])
            .env("FLICKER_LOG", "warn")
            .env("FLICKER_ORGANISER_KEY", "organiser-key-for-tests")
            .env_remove("FLICKER_SIGNING_KEY")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start flicker");
        let s = Server { child, base: format!("http://127.0.0.1:{port}") };
        let deadline = Instant::now() + Duration::from_secs(60);
        while !Client::new().get(s.url("/readyz")).send().is_ok_and(|r| r.status() == StatusCode::OK) {
            assert!(Instant::now() < deadline, "the server did not become ready");
            std::thread::sleep(Duration::from_millis(100));
        }
        s
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    fn post(&self, token: &str, path: &str, body: Value) -> Value {
        let r = client().post(self.url(path)).bearer_auth(token).json(&body).send().unwrap();
        let status = r.status();
        let v: Value = r.json().unwrap_or(Value::Null);
        assert!(status.is_success(), "POST {path}: {status} {v}");
        v
    }

    fn get(&self, path: &str) -> reqwest::blocking::Response {
        client().get(self.url(path)).send().unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn client() -> Client {
    Client::builder().timeout(Duration::from_secs(30)).build().unwrap()
}

fn token(s: &Server) -> String {
    let name = format!("u{}", &uuid()[..12]);
    s.post("", "/api/v1/accounts", json!({"name": name, "password": "password-1"}));
    let v = s.post("", "/api/v1/auth/token", json!({"name": name, "password": "password-1"}));
    v["access_token"].as_str().unwrap().to_string()
}

/// A 3-seat table of built-in random bots, played to its end by the server; returns its id.
fn finished_game(s: &Server) -> String {
    let t = token(s);
    let v = s.post(&t, "/api/v1/tables", json!({"players": 3}));
    let id = v["table"]["table_id"].as_str().unwrap().to_string();
    for _ in 0..3 {
        s.post(&t, &format!("/api/v1/tables/{id}/seats"), json!({"bot": "random"}));
    }
    s.post(&t, &format!("/api/v1/tables/{id}/start"), json!({}));
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let v: Value =
            client().get(s.url(&format!("/api/v1/tables/{id}"))).bearer_auth(&t).send().unwrap().json().unwrap();
        if v["table"]["status"] == "finished" {
            return id;
        }
        assert!(Instant::now() < deadline, "the bots did not finish the game");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn verify(file: &Path, key: Option<&str>) -> (bool, String) {
    let mut c = Command::new(binary());
    c.arg("verify").arg(file);
    if let Some(k) = key {
        c.args(["--public-key", k]);
    }
    let out = c.output().expect("run flicker verify");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_ne!(out.status.code(), Some(101), "verify panicked: {text}");
    (out.status.success(), text)
}

fn exported_replay_verifies(database_url: &str) {
    let dir = std::env::temp_dir().join(format!("flicker-verify-{}", uuid()));
    std::fs::create_dir_all(&dir).unwrap();
    let s = Server::start(database_url);
    let key: Value = s.get("/api/v1/keys/replay").json().unwrap();
    assert_eq!(key["algorithm"], "ed25519");
    let public = key["public_key"].as_str().unwrap().to_string();
    assert_eq!(public.len(), 64);
    let id = finished_game(&s);
    let r = s.get(&format!("/api/v1/tables/{id}/replay.jsonl"));
    assert_eq!(r.status(), StatusCode::OK);
    let text = r.text().unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // The whole stream: the platform events first, then the game's, then the signature.
    assert!(lines[0].contains(&format!("\"stream\":\"table-{id}\"")), "{}", lines[0]);
    assert!(lines[1].starts_with("{\"version\":1,\"type\":\"table_created\""), "{}", lines[1]);
    assert!(lines.iter().any(|l| l.contains("\"type\":\"bot_seated\"")));
    assert!(lines.last().unwrap().contains(&format!("\"public_key\":\"{public}\"")));
    let file = dir.join("game.jsonl");
    std::fs::write(&file, &text).unwrap();
    let (ok, out) = verify(&file, Some(&public));
    assert!(ok && out.contains("by the pinned key") && out.contains("winner: "), "{out}");
    // One changed byte in a game event's payload: refused, naming the event.
    let i = lines.iter().position(|l| l.contains("\"type\":\"turn_started\"")).unwrap();
    let version = serde_json::from_str::<Value>(lines[i]).unwrap()["version"].as_u64().unwrap();
    let at = lines[i].find("\"seat\":").unwrap() + "\"seat\":".len();
    let mut changed = lines[i].to_string();
    let digit = if &changed[at..at + 1] == "1" { "2" } else { "1" };
    changed.replace_range(at..at + 1, digit);
    let tampered = text.replacen(lines[i], &changed, 1);
    std::fs::write(dir.join("tampered.jsonl"), &tampered).unwrap();
    let (ok, out) = verify(&dir.join("tampered.jsonl"), Some(&public));
    assert!(!ok, "{out}");
    assert!(out.contains(&format!("line {} (event version {version} (turn_started))", i + 1)), "{out}");
    // The key survives a restart (it is kept in the store).
    drop(s);
    let s = Server::start(database_url);
    let again: Value = s.get("/api/v1/keys/replay").json().unwrap();
    assert_eq!(again["public_key"], public.as_str());
    let r = s.get(&format!("/api/v1/tables/{id}/replay.jsonl"));
    assert_eq!(r.text().unwrap(), text, "an export is reproducible");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn sqlite_exported_replay_verifies_against_the_published_key() {
    let dir = std::env::temp_dir().join(format!("flicker-verify-db-{}", uuid()));
    std::fs::create_dir_all(&dir).unwrap();
    exported_replay_verifies(dir.join("flicker.db").to_str().unwrap());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn postgres_exported_replay_verifies_against_the_published_key() {
    let Ok(url) = std::env::var("FLICKER_TEST_POSTGRES_URL") else {
        panic!("FLICKER_TEST_POSTGRES_URL is not set: run ./test.sh, which starts a throwaway PostgreSQL");
    };
    exported_replay_verifies(&url);
}
