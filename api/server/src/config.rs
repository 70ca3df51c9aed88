//! The server's configuration, read from the environment once at start ([`Config::from_env`]).
//! This module is the only place the server reads environment variables; everything else
//! receives a [`Config`] (or the part of it that it needs).
//!
//! | variable | field | default |
//! |---|---|---|
//! | `FLICKER_ADDR` | [`Config::addr`] | `127.0.0.1:8080` |
//! | `DATABASE_URL` | [`Config::database_url`] | `flicker.db` |
//! | `FLICKER_JWT_SECRET`, `FLICKER_JWT_SECRET_PREVIOUS`, `FLICKER_SIGNING_KEY`, `FLICKER_SIGNING_KEY_PREVIOUS`, `FLICKER_ORGANISER_KEY`, `FLICKER_METRICS_TOKEN` | [`Config::secrets`] | unset |
//! | `FLICKER_RATE_PER_TOKEN`, `FLICKER_RATE_PER_ADDRESS` | [`Config::rates`] | `50/100`, `1000/2000` |
//! | `FLICKER_LOG`, `FLICKER_LOG_FORMAT` | [`Config::log`] | `info`, text |
//! | `FLICKER_DRIVER_FULL_CATCHUP` | [`Config::driver_full_catchup`] | off |

use crate::ratelimit::{self, Rates};
use crate::secrets::{EnvSecrets, var};

/// The default listen address.
pub const DEFAULT_ADDR: &str = "127.0.0.1:8080";
/// The default event store: a SQLite file in the working directory.
pub const DEFAULT_DATABASE_URL: &str = "flicker.db";

/// Everything the server takes from its environment.
#[derive(Clone)]
pub struct Config {
    /// Listen address (`host:port`; port 0 picks a free port, see
    /// [`crate::Application::port`]).
    pub addr: String,
    /// Event store: `postgres://…` or a SQLite file (created with its migrations on first start).
    pub database_url: String,
    /// Secrets given in the environment (each `None` when unset or empty).
    pub secrets: EnvSecrets,
    /// Rate limits per bearer token and per client address.
    pub rates: Rates,
    /// Log filter and format.
    pub log: LogConfig,
    /// `FLICKER_DRIVER_FULL_CATCHUP=1`: the driver reads the whole log at start instead of
    /// resuming from its last checkpoint (the restart benchmark compares both).
    pub driver_full_catchup: bool,
}

/// How the server logs (to stderr).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogConfig {
    /// A `tracing` filter directive (`FLICKER_LOG`; default `info`, also when it does not parse).
    pub filter: Option<String>,
    /// `FLICKER_LOG_FORMAT=json`: one JSON object per line; otherwise human-readable text.
    pub json: bool,
}

impl Config {
    /// Reads the configuration from the environment. `Err` names the variable that is
    /// malformed (a rate limit that is not `RATE/BURST` or `0`).
    pub fn from_env() -> Result<Config, String> {
        // Set but empty is malformed here, as it always was.
        let read_rate = |name: &str, default: (u32, u32)| match std::env::var(name) {
            Ok(v) => ratelimit::parse(name, &v),
            Err(_) => Ok(Some(default)),
        };
        Ok(Config {
            addr: var("FLICKER_ADDR").unwrap_or_else(|| DEFAULT_ADDR.to_string()),
            database_url: var("DATABASE_URL").unwrap_or_else(|| DEFAULT_DATABASE_URL.to_string()),
            secrets: EnvSecrets::from_env(),
            rates: Rates {
                per_token: read_rate("FLICKER_RATE_PER_TOKEN", ratelimit::DEFAULT_PER_TOKEN)?,
                per_address: read_rate("FLICKER_RATE_PER_ADDRESS", ratelimit::DEFAULT_PER_ADDRESS)?,
            },
            log: LogConfig {
                filter: std::env::var("FLICKER_LOG").ok(),
                json: var("FLICKER_LOG_FORMAT").is_some_and(|f| f == "json"),
            },
            driver_full_catchup: var("FLICKER_DRIVER_FULL_CATCHUP").is_some_and(|v| v == "1"),
        })
    }

    /// A configuration for tests: `database_url`, listening on a free port of 127.0.0.1, no
    /// secrets from the environment (the store generates them), rate limits off.
    pub fn for_tests(database_url: &str) -> Config {
        Config {
            addr: "127.0.0.1:0".to_string(),
            database_url: database_url.to_string(),
            secrets: EnvSecrets::default(),
            rates: Rates { per_token: None, per_address: None },
            log: LogConfig { filter: None, json: false },
            driver_full_catchup: false,
        }
    }
}

/// Starts the process's log subscriber (stderr; ANSI colours on a terminal) as `log` says.
/// Call once, before [`crate::Application::build`]; tests usually do not.
pub fn init_logs(log: &LogConfig) {
    let filter = log
        .filter
        .as_deref()
        .and_then(|f| tracing_subscriber::EnvFilter::try_new(f).ok())
        .unwrap_or_else(|| "info".into());
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let logs = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_ansi(ansi);
    if log.json {
        logs.json().init();
    } else {
        logs.init();
    }
}
