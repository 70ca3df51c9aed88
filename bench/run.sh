#!/usr/bin/env bash
# The benchmark command: prints one table of figures and writes it, with the
# machine's cores and memory, to docs/benchmarks.md.
#   1. the engines' criterion benchmarks (The Final Flicker: complete random games for 2/4/8
#      players with and without classes, folding events, one viewer's projection; the Exorcist:
#      complete games for 4/6/8 players, folding, projections);
#   2. the HTTP load runs: 100, 200 and 1,000 tables at once played by bot clients over loopback
#      against the release `flicker` binary, on SQLite and on a throwaway PostgreSQL (installed
#      from Debian packages when missing, saying so first): commands/s, p50/p95/p99, memory per
#      table, bytes per event;
#   3. a 1,000-player bot gathering from start to winner.
# Takes about 12 minutes on 2 cores after the builds. Options are passed to `flicker-bench all`
# (e.g. `bench/run.sh --tables 200 --duration 10 --gathering-players 0`); see
# `target/release/flicker-bench all --help`. Figures are reported, never asserted.
set -euo pipefail
cd "$(dirname "$0")/.."
step() { printf '\n==> %s\n' "$*" >&2; }
# shellcheck source=../scripts/throwaway-postgres.sh
source scripts/throwaway-postgres.sh

target=${CARGO_TARGET_DIR:-target}
step "engine: cargo bench -p final-flicker --bench engine (criterion)"
cargo bench --locked -p final-flicker --bench engine -- --noplot 2>&1 | grep -E "^[a-z_]+/|time:|thrpt:" >&2
step "engine: cargo bench -p flicker-lab --bench exorcist (criterion)"
cargo bench --locked -p flicker-lab --bench exorcist -- --noplot 2>&1 | grep -E "^[a-z_]+/|time:|thrpt:" >&2
step "building the release binaries (flicker, flicker-bench)"
cargo build --release --locked -q -p flicker -p flicker-bench
start_postgres
step "load runs and the gathering run (flicker-bench all)"
"$target/release/flicker-bench" all --flicker "$target/release/flicker" --postgres "$FLICKER_POSTGRES_ADMIN_URL" \
  --criterion "$target/criterion" "$@"
