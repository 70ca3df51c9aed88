#!/usr/bin/env bash
# Bad input: Schemathesis against the API's OpenAPI contract, on the real server.
#
# Starts the `flicker` binary (the debug build of `cargo build` / `cargo test --workspace`,
# honouring CARGO_TARGET_DIR, or FLICKER_BIN) on a fresh SQLite file in a temporary directory, on
# a free port, with its rate limits raised; creates an organiser account with a token, a started
# 2-seat table (the organiser and a built-in bot), an open 3-seat table and a gathering; then runs
# Schemathesis (pinned with hashes in tests/schemathesis/requirements.txt, installed into a venv
# under the target directory) over `/openapi.json` with that token, the real ids mixed into the
# generated path parameters, and these checks:
#
#   not_a_server_error            no 5xx, for any input
#   status_code_conformance       every status is documented for its operation
#   content_type_conformance      the documented content type
#   response_schema_conformance   the body matches the documented schema
#   response_headers_conformance  documented headers are present and well formed
#   negative_data_rejection       input that breaks the schema is refused (4xx)
#   positive_data_acceptance      valid input is not refused as malformed (exclusions below)
#   missing_required_header       a missing required header is a 4xx
#   unsupported_method            an undocumented method gets 405, with `Allow`
#   ignored_auth                  an operation that needs a token refuses requests without one
#   use_after_free, ensure_resource_availability   (stateful phase, links Schemathesis infers)
#
# and a server panic found in its log. Every phase runs: examples, coverage, fuzzing, stateful.
# The only exclusions, each narrow and explained where it is made: schema-valid data the server
# rightly refuses for a rule the document cannot express (hooks.py: dropped one by one by the
# exact `detail`, and counted at the end), and 422 as a right answer to schema-valid data
# (schemathesis.toml.in). Bounded: a fixed seed, 12 examples per operation, 2 s per stream;
# about a minute on 2 cores. Any finding fails the script (exit status 1); the server's log is
# then kept in target/schemathesis/server.log.
#
# Usage: tests/schemathesis/run.sh   (from anywhere; builds flicker if the binary is missing)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
target_dir=${CARGO_TARGET_DIR:-$repo/target}
case $target_dir in /*) ;; *) target_dir=$repo/$target_dir ;; esac
bin=${FLICKER_BIN:-$target_dir/debug/flicker}

if [ ! -x "$bin" ]; then
  echo "==> $bin is missing: building it (cargo build --locked -p flicker)"
  (cd "$repo" && cargo build --locked -q -p flicker)
fi

# Schemathesis, pinned with hashes, in its own venv (reinstalled when requirements.txt changes).
version=$(sed -n 's/^schemathesis==\([^ ]*\).*/\1/p' "$here/requirements.txt")
venv=$target_dir/schemathesis-venv
want=$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)
if [ "$(cat "$venv/.requirements.sha256" 2>/dev/null)" != "$want" ]; then
  python=${PYTHON:-python3}
  if ! command -v "$python" >/dev/null 2>&1; then
    echo "error: $python is missing; Schemathesis needs Python 3.9 or newer with venv and pip" >&2
    exit 1
  fi
  echo "==> installing schemathesis==$version from PyPI into $venv ($("$python" --version); every package pinned with its sha256: tests/schemathesis/requirements.txt)"
  rm -rf "$venv"
  "$python" -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check --no-deps --require-hashes -r "$here/requirements.txt"
  echo "$want" > "$venv/.requirements.sha256"
fi
py=$venv/bin/python

tmp=$(mktemp -d /tmp/flicker-schemathesis.XXXXXX)
server=
cleanup() {
  if [ -n "$server" ]; then
    # SIGTERM starts actix's graceful shutdown, which waits up to 30 s for connections left open
    # (the run is over by then: its findings and the log's panics are already counted); after
    # 3 s the server is killed.
    kill "$server" 2>/dev/null || true
    for _ in 1 2 3 4 5 6; do kill -0 "$server" 2>/dev/null || break; sleep 0.5; done
    kill -9 "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

port=$("$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
base=http://127.0.0.1:$port
organiser_key=schemathesis-organiser-key
metrics_token=schemathesis-metrics-token
# Rate limits raised far above what the run sends (the limiter still runs).
FLICKER_RATE_PER_TOKEN=100000/200000 FLICKER_RATE_PER_ADDRESS=100000/200000 \
  FLICKER_ORGANISER_KEY=$organiser_key FLICKER_METRICS_TOKEN=$metrics_token \
  FLICKER_LOG=warn \
  "$bin" serve --addr "127.0.0.1:$port" --database-url "$tmp/flicker.db" > "$tmp/server.log" 2>&1 &
server=$!

echo "==> flicker serve on $base ($bin, SQLite in $tmp)"
# Accounts, token, tables and a gathering; writes the Schemathesis config with their ids.
BASE=$base ORGANISER_KEY=$organiser_key METRICS_TOKEN=$metrics_token \
  "$py" "$here/setup.py" "$here/schemathesis.toml.in" "$tmp/schemathesis.toml"

echo "==> schemathesis $version: $base/openapi.json"
start=$(date +%s)
status=0
# Logout is left out: it revokes the one session every other call of the run uses (it has its own
# tests in api/server/src/http_secrets_tests.rs).
(cd "$tmp" && SCHEMATHESIS_DROPPED_LOG="$tmp/dropped" "$venv/bin/st" --config-file "$tmp/schemathesis.toml" \
  run "$base/openapi.json" --no-color --exclude-path /api/v1/auth/logout) || status=$?
echo "==> schemathesis took $(($(date +%s) - start)) s"
if [ -s "$tmp/dropped" ]; then
  echo "==> ST202 failures dropped by hooks.py (schema-valid data rightly refused), by reason and operation:"
  sort "$tmp/dropped" | uniq -c
fi
# A panic in a handler drops the connection (a network error above) or, in a spawned task, ends
# a stream early: either way it is a bug, reported from the server's log.
if grep -q "panicked" "$tmp/server.log"; then
  echo "error: the server panicked during the run:" >&2
  grep -A2 "panicked" "$tmp/server.log" >&2
  status=1
fi
if [ "$status" != 0 ]; then
  mkdir -p "$target_dir/schemathesis"
  cp "$tmp/server.log" "$target_dir/schemathesis/server.log"
  echo "error: schemathesis found problems (exit $status); the server's log is in $target_dir/schemathesis/server.log" >&2
  exit 1
fi
echo "==> schemathesis: no findings"
