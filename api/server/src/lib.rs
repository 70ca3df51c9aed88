//! `flicker-server`: the Flicker platform's HTTP server as a library. [`Config`] is read from
//! the environment once; [`Application::build`] opens the store, starts the workers (table
//! driver: clocks, bots, gathering triggers) and binds the REST API, its docs, `/metrics` and
//! the web UI; [`Application::run_until_stopped`] serves. The `flicker` binary (`api/cli`)
//! and the in-process tests start it this way.

mod auth;
#[cfg(test)]
mod chat_tests;
pub mod config;
mod driver;
mod driver_state;
#[cfg(test)]
mod exorcist_sight_tests;
mod frontend;
pub mod game;
#[cfg(test)]
mod gathering_tests;
#[cfg(test)]
mod http_secrets_tests;
#[cfg(test)]
mod leak_scan;
#[cfg(test)]
mod leak_scan_exorcist;
#[cfg(test)]
mod leak_scan_exorcist_gathering;
mod login_throttle;
mod metrics;
pub mod openapi;
mod problem;
pub mod ratelimit;
mod routes;
pub mod secrets;
pub mod server;
#[cfg(test)]
mod sight_tests;
mod spectate;
#[cfg(test)]
mod spectate_tests;
mod state;
pub mod store;
#[cfg(test)]
mod store_full_tests;
mod tokens;
mod watchers;
#[cfg(test)]
mod window_tests;

pub use flicker_platform::chain;
use flicker_platform::{accounts, clock, clocks, gatherings, tables};

pub use config::Config;
pub use server::Application;
