//! In-process tests of the HTTP API, one file per route group (as `flicker_server::routes`):
//! each builds the application on port 0 ([`support::Server`]) and talks HTTP to it with the
//! typed client and raw JSON. Process-level tests (SIGKILL, two processes on one PostgreSQL, the
//! CLI, start-up refusals) stay in `tests/`.

#[path = "../../../../tests/tests/common/calls.rs"]
mod calls;
mod support;

use calls::*;
use support::*;

mod accounts;
mod chat;
mod exorcist;
mod gatherings;
mod me;
mod operations;
mod organiser;
mod play;
mod positions;
mod replays;
mod streams;
mod tables;
