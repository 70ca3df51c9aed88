//! Starting the real `flicker` binary for a run, and reading its CPU time and memory from
//! `/proc` (Linux).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The organiser key the bench servers are started with.
pub const ORGANISER_KEY: &str = "bench-organiser-key";

/// Where a run's events are stored.
#[derive(Debug, Clone)]
pub enum Storage {
    /// A fresh SQLite file.
    Sqlite(PathBuf),
    /// A fresh PostgreSQL database (its URL).
    Postgres(String),
}

impl Storage {
    /// The `--database-url` value.
    pub fn url(&self) -> String {
        match self {
            Storage::Sqlite(p) => p.display().to_string(),
            Storage::Postgres(u) => u.clone(),
        }
    }

    /// `"SQLite"` or `"PostgreSQL"`.
    pub fn label(&self) -> &'static str {
        match self {
            Storage::Sqlite(_) => "SQLite",
            Storage::Postgres(_) => "PostgreSQL",
        }
    }
}

/// A running `flicker serve`; killed when dropped.
pub struct Server {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port()
}

impl Server {
    /// Starts `flicker serve` on a free loopback port with request rate limits off (the load
    /// client is one address with few tokens) and waits until `/readyz` answers 200.
    pub fn start(flicker: &Path, storage: &Storage) -> Result<Server, String> {
        Server::start_with(flicker, storage, &[])
    }

    /// [`Server::start`] with extra environment variables; waits up to 10 minutes for a large
    /// store's catch-up.
    pub fn start_with(flicker: &Path, storage: &Storage, env: &[(&str, &str)]) -> Result<Server, String> {
        let port = free_port();
        let child = Command::new(flicker)
            .args(["serve", "--addr", &format!("127.0.0.1:{port}"), "--database-url", &storage.url()])
            .envs(env.iter().copied())
            // FLICKER_BENCH_SERVER_LOG: the server's log filter (e.g. `sqlx=debug` to count queries).
            .env("FLICKER_LOG", std::env::var("FLICKER_BENCH_SERVER_LOG").unwrap_or_else(|_| "error".into()))
            .env("FLICKER_RATE_PER_TOKEN", "0")
            .env("FLICKER_RATE_PER_ADDRESS", "0")
            .env("FLICKER_ORGANISER_KEY", ORGANISER_KEY)
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", flicker.display()))?;
        let s = Server { child, base: format!("http://127.0.0.1:{port}") };
        let deadline = Instant::now() + Duration::from_secs(600);
        let client = reqwest::blocking::Client::new();
        loop {
            if let Ok(r) = client.get(format!("{}/readyz", s.base)).send()
                && r.status().is_success()
            {
                return Ok(s);
            }
            if Instant::now() > deadline {
                return Err("the server did not become ready within 600 s".into());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// CPU time (user + system) the server has used so far, in seconds.
    pub fn cpu_seconds(&self) -> f64 {
        cpu_seconds(self.pid())
    }

    /// The server's resident memory, in bytes.
    pub fn rss_bytes(&self) -> u64 {
        rss_bytes(self.pid())
    }

    /// The server's peak resident memory so far (`VmHWM`), in bytes.
    pub fn rss_peak_bytes(&self) -> u64 {
        status_kib(self.pid(), "VmHWM:") * 1024
    }

    /// Stops the server (SIGKILL; every acknowledged append is already durable).
    pub fn stop(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Clock ticks per second of `/proc/<pid>/stat` times (`getconf CLK_TCK`, 100 when unknown).
fn clock_ticks() -> f64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(100.0)
}

/// User + system CPU seconds of process `pid` (fields 14 and 15 of `/proc/<pid>/stat`).
pub fn cpu_seconds(pid: u32) -> f64 {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { return 0.0 };
    // The command name (field 2) is in parentheses and may hold spaces: split after it.
    let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // `rest` starts at field 3, so fields 14 and 15 are at indices 11 and 12.
    let ticks: f64 = [11, 12].iter().filter_map(|&i| fields.get(i)?.parse::<f64>().ok()).sum();
    ticks / clock_ticks()
}

/// Resident set size of process `pid` in bytes (`VmRSS` of `/proc/<pid>/status`).
pub fn rss_bytes(pid: u32) -> u64 {
    status_kib(pid, "VmRSS:") * 1024
}

/// A `kB` field of `/proc/<pid>/status` (0 when unreadable).
fn status_kib(pid: u32, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<u64>().ok())
        })
        .unwrap_or(0)
}

/// The machine: CPU model, logical cores and memory, for the report.
pub fn machine() -> String {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, m)| m.trim().to_string())
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let mem_kb: u64 = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| s.lines().next().and_then(|l| l.split_whitespace().nth(1)).and_then(|x| x.parse().ok()))
        .unwrap_or(0);
    format!("{cores} cores ({model}), {:.1} GiB memory", mem_kb as f64 / 1024.0 / 1024.0)
}
