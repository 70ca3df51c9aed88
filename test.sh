#!/usr/bin/env bash
# Runs every check of the project, exactly as CI does (`.ci/run` calls this script):
# formatting, every rule id cited by a test (scripts/rule-ids.sh), clippy with warnings as
# errors, the whole workspace's tests (rule tests, property tests,
# the stable driver of the cargo-fuzz target, the store on SQLite and PostgreSQL, HTTP tests
# against the real server, command-line tests), Schemathesis against the OpenAPI contract
# on the real server, a 10,000-game 8-player simulation with no invariant failure, and the web
# UI's checks (tsc --noEmit on its JSDoc types, vendored libraries unchanged, Playwright browser
# tests on Debian's Chromium). It installs what is missing (PostgreSQL, Chromium and Node.js from
# Debian packages, the pinned npm packages from frontend/package-lock.json, Schemathesis pinned
# with hashes from PyPI into a venv under target/), saying so first, and skips nothing.
# `./test.sh web` runs only the web UI's checks.
set -euo pipefail
cd "$(dirname "$0")"

step() { printf '\n==> %s\n' "$*"; }

if ! command -v cargo >/dev/null 2>&1; then
  echo "error: cargo is not installed. Install Rust 1.94 or newer (https://rustup.rs) and run again." >&2
  exit 1
fi
for component in rustfmt clippy; do
  if ! cargo "${component/rustfmt/fmt}" --version >/dev/null 2>&1; then
    if ! command -v rustup >/dev/null 2>&1; then
      echo "error: cargo $component is missing and rustup is not there to install it" >&2
      exit 1
    fi
    step "installing the missing Rust component $component (rustup component add $component)"
    rustup component add "$component"
  fi
done

# PostgreSQL for the store and HTTP tests: start_postgres / stop_postgres.
# shellcheck source=scripts/throwaway-postgres.sh
source scripts/throwaway-postgres.sh

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

# The `flicker` binary every step after the tests runs: the one `cargo test --workspace` builds
# for the command-line tests, with the workspace's features. `cargo run -p flicker` or
# `cargo build -p flicker` would resolve other features and rebuild about 40 crates (some
# minutes on 2 cores), then replace this binary with theirs. `fresh_flicker` makes sure it is
# current: after `cargo test --workspace` it only checks (a second or two); in `./test.sh web`
# alone it builds what is missing (the workspace's tests too, as `./test.sh` would).
target_dir=${CARGO_TARGET_DIR:-target}
flicker_bin=$target_dir/debug/flicker
fresh_flicker() {
  cargo test --locked --workspace --no-run -q
  [ -x "$flicker_bin" ] || { echo "error: $flicker_bin is missing after cargo test --workspace --no-run" >&2; exit 1; }
}

# The web UI: types, vendored files, browser tests against a server on a free port.
web_checks() {
  if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    step "Node.js is missing (needed for the browser tests only): installing it from Debian packages (apt-get install nodejs npm)"
    as_root apt-get update -qq && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null
  fi
  if [ ! -x "${CHROMIUM:-/usr/bin/chromium}" ]; then
    step "Chromium is missing (needed for the browser tests): installing it from Debian packages (apt-get install chromium)"
    as_root apt-get update -qq && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  fi
  if [ ! -d frontend/node_modules ] || [ frontend/package-lock.json -nt frontend/node_modules/.package-lock.json ]; then
    step "installing the pinned npm packages of frontend/package-lock.json (npm ci: typescript, openapi-typescript, playwright-core, preact, htm)"
    (cd frontend && npm ci --no-audit --no-fund --loglevel=error)
  fi
  step "web UI: the API types generated from openapi/openapi.json are current (npm run gen-api), every stream event has a listener"
  (cd frontend && node scripts/gen-api.mjs --check && node tests/contract.mjs && node tests/console.mjs)
  step "web UI: tsc --noEmit (JSDoc types) and vendored libraries unchanged"
  (cd frontend && npx --no-install tsc --noEmit -p . && node scripts/vendor.mjs --check)
  step "web UI: every prompt kind of openapi/openapi.json has a control (frontend/tests/prompt-kinds.mjs)"
  node frontend/tests/prompt-kinds.mjs
  step "web UI: browser tests (Playwright, headless Chromium; screenshots in target/browser-tests/)"
  fresh_flicker
  FLICKER_BIN=$flicker_bin node frontend/tests/run.mjs
}

if [ "${1:-}" = web ]; then
  web_checks
  exit 0
fi

step "cargo fmt --check"
cargo fmt --all --check

step "every rule id of RULES.md cited by a test (scripts/rule-ids.sh; exemptions with reasons in tests/rule-ids-exempt.txt)"
scripts/rule-ids.sh

step "cargo clippy --all-targets -- -D warnings"
cargo clippy --locked --workspace --all-targets -- -D warnings

start_postgres

step "cargo test (workspace; PostgreSQL at $FLICKER_TEST_POSTGRES_URL)"
cargo test --locked --workspace

# The flicker binary `cargo test --workspace` just built, against its own OpenAPI
# document (tests/schemathesis/run.sh says what it installs first).
step "schemathesis over the OpenAPI contract (tests/schemathesis/run.sh: no 5xx, documented statuses, content types and schemas)"
fresh_flicker
FLICKER_BIN=$flicker_bin tests/schemathesis/run.sh

step "flicker simulate --players 8 --games 10000 --seed 7"
"$flicker_bin" simulate --players 8 --games 10000 --seed 7 | tee /tmp/flicker-simulate.$$ | grep -E "games/s|mean turns|longest|invariant failures"
grep -q "^invariant failures: 0$" /tmp/flicker-simulate.$$ || { echo "error: the simulation found invariant failures" >&2; exit 1; }
rm -f /tmp/flicker-simulate.$$
step "flicker simulate --players 8 --classes --games 10000 --seed 7 (the class table)"
"$flicker_bin" simulate --players 8 --classes --games 10000 --seed 7 | tee /tmp/flicker-simulate.$$ | grep -E "games/s|class table|invariant failures"
grep -q "^invariant failures: 0$" /tmp/flicker-simulate.$$ || { echo "error: the simulation with classes found invariant failures" >&2; exit 1; }
grep -q "^class table" /tmp/flicker-simulate.$$ || { echo "error: the simulation printed no class table" >&2; exit 1; }
rm -f /tmp/flicker-simulate.$$
step "flicker simulate --ruleset classic-1.0 --players 6 --classes --games 3000 --check --seed 7 (A1, A9: the classic roster's table)"
"$flicker_bin" simulate --ruleset classic-1.0 --players 6 --classes --games 3000 --check --seed 7 | tee /tmp/flicker-simulate.$$ | grep -E "simulate:|class table|invariant failures"
grep -q "^invariant failures: 0$" /tmp/flicker-simulate.$$ || { echo "error: the classic simulation found invariant failures" >&2; exit 1; }
rm -f /tmp/flicker-simulate.$$
step "flicker simulate --game exorcist --team-table --games 50 --check --seed 7 (250 games of 4 to 8 players: invariants after every event, fold == state, replay == live, no view or event leaks to any viewer, X11)"
"$flicker_bin" simulate --game exorcist --team-table --games 50 --check --seed 7 | tee /tmp/flicker-simulate.$$ | grep -E "simulate:|team table|players|^ +[0-9]+ +[0-9]+ |invariant failures"
grep -q "^invariant failures: 0$" /tmp/flicker-simulate.$$ || { echo "error: the Exorcist simulation found invariant failures or leaks" >&2; exit 1; }
rm -f /tmp/flicker-simulate.$$
step "flicker simulate --game exorcist --team-table --games 1000 --seed 7 (X4.2: rounds won by each team, by player count)"
"$flicker_bin" simulate --game exorcist --team-table --games 1000 --seed 7 | tee /tmp/flicker-simulate.$$ | grep -vE "^  [0-9]+ players…"
grep -q "^invariant failures: 0$" /tmp/flicker-simulate.$$ || { echo "error: the Exorcist simulation found invariant failures" >&2; exit 1; }
rm -f /tmp/flicker-simulate.$$

web_checks

printf '\nall checks passed\n'
