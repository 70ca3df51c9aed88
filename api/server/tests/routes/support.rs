//! The server in-process: [`Server::start`] builds the application ([`Application::build`]) on a
//! fresh SQLite file and port 0, runs it on its own thread (its own actix system, so the test
//! thread may make blocking calls), and stops it when dropped. The calls of `calls.rs` (shared
//! with the process-level tests in `tests/`) take it as they take a `flicker serve` process.

#![allow(dead_code)]

use flicker_client::blocking::Client as Api;
use flicker_server::{Application, Config};
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Duration;

pub const METRICS_TOKEN: &str = "metrics-secret-for-tests";
pub const ORGANISER_KEY: &str = "organiser-key-for-tests";

/// The application serving on a port of its own; stopped when dropped.
pub struct Server {
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// Its SQLite file.
    pub db: PathBuf,
    handle: actix_web::dev::ServerHandle,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Server {
    /// A server with the test configuration ([`Config::for_tests`]: no rate limits) and the
    /// organiser key and metrics token above.
    pub fn start() -> Server {
        Server::start_with(|_| {})
    }

    /// A server whose configuration `change` adjusts first.
    pub fn start_with(change: impl FnOnce(&mut Config)) -> Server {
        let dir = std::env::temp_dir().join(format!("flicker-routes-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        let db = dir.join("flicker.db");
        let mut config = Config::for_tests(&db.display().to_string());
        config.secrets.organiser = Some(ORGANISER_KEY.into());
        config.secrets.metrics = Some(METRICS_TOKEN.into());
        change(&mut config);
        let (tx, rx) = mpsc::channel();
        let thread = std::thread::spawn(move || {
            actix_web::rt::System::new().block_on(async move {
                let app = Application::build(config).await.expect("the application starts");
                tx.send((app.port(), app.handle())).expect("the test waits for the port");
                app.run_until_stopped().await.expect("the application runs");
            })
        });
        let (port, handle) = rx.recv_timeout(Duration::from_secs(60)).expect("the application started in time");
        assert_ne!(port, 0, "port 0 means: the system picks one, and the application reports it");
        Server { base: format!("http://127.0.0.1:{port}"), db, handle, thread: Some(thread) }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// The typed client of this server, unauthenticated.
    pub fn api(&self) -> Api {
        Api::new(&self.base).retry_rate_limited(40)
    }

    /// The typed client of this server with the bearer `token`.
    pub fn api_as(&self, token: &str) -> Api {
        self.api().with_token(token)
    }
}

impl Drop for Server {
    /// Stops the server (the stop command is sent at once; in-flight requests are dropped) and
    /// waits for its thread; a panic on that thread fails the test, unless it is failing already.
    fn drop(&mut self) {
        drop(self.handle.stop(false));
        if let Some(t) = self.thread.take()
            && t.join().is_err()
            && !std::thread::panicking()
        {
            panic!("the server's thread panicked");
        }
        if let Some(dir) = self.db.parent() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}
