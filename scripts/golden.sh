#!/usr/bin/env bash
# Makes the golden replays of tests/golden/ (see tests/golden/README.md). Run by hand, never by
# CI, and never to make a failing test pass: the fixtures pin the rules as they were.
#
#   scripts/golden.sh [OUT_DIR]      (default: tests/golden; needs curl and jq)
#   GOLDEN_ONLY=classic scripts/golden.sh
#                                    makes only the fixtures whose name contains `classic` and
#                                    keeps every other fixture and manifest entry as it is (how new
#                                    fixtures are added without remaking the old ones)
#
# It builds the `flicker` binary, serves it on a fresh SQLite file and then on a throwaway
# PostgreSQL (scripts/throwaway-postgres.sh), plays games over the REST API with built-in bot
# seats (practice tables, one with an absent player whose prompts time out, and a bot
# gathering's circles and Final Ritual), exports each finished table's signed replay
# (GET /api/v1/tables/{id}/replay.jsonl), checks it with `flicker verify --public-key` (the
# server's key from GET /api/v1/keys/replay), writes its expected file with the engine
# (the test `recording_a_fixture_gives_its_committed_expected_file`, with FLICKER_GOLDEN_RECORD set, of engine/flicker/tests/golden.rs), and checks the
# expected file against the server: the result and the complete view at the end and at each
# recorded step (GET /api/v1/tables/{id}/replay?at=N) must be the server's own.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${1:-tests/golden}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

step() { printf '\n==> %s\n' "$*"; }
ONLY=${GOLDEN_ONLY:-}
# Whether the fixture (or gathering prefix) NAME is to be made in this run.
wanted() { [ -z "$ONLY" ] || [[ "$1" == *"$ONLY"* ]]; }
say() { printf '    %s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

for tool in curl jq; do command -v $tool >/dev/null || die "$tool is not installed (apt-get install $tool)"; done

step "building flicker and the golden test"
cargo build -q --workspace --all-targets
cargo test -q --workspace --test golden --no-run
BIN=$ROOT/target/debug/flicker
[ -x "$BIN" ] || die "no $BIN"

WORK=$(mktemp -d /tmp/flicker-golden.XXXXXX)
SERVER_PID=
stop_server() {
  if [ -n "$SERVER_PID" ]; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=
  fi
}
cleanup() { stop_server; stop_postgres_if_any; rm -rf "$WORK"; }
stop_postgres_if_any() { if declare -f stop_postgres >/dev/null; then stop_postgres; fi; }
trap cleanup EXIT

ORGANISER_KEY=golden-organiser-key-0123456789
J='content-type: application/json'
MANIFEST=$WORK/manifest.jsonl
: >"$MANIFEST"

free_port() {
  local p=18700
  while (echo >/dev/tcp/127.0.0.1/$p) 2>/dev/null; do p=$((p + 1)); done
  echo $p
}

# start_server STORE DATABASE_URL
start_server() {
  local port
  port=$(free_port)
  API=http://127.0.0.1:$port/api/v1
  FLICKER_ORGANISER_KEY=$ORGANISER_KEY FLICKER_LOG=warn FLICKER_RATE_PER_TOKEN=0 FLICKER_RATE_PER_ADDRESS=0 \
    "$BIN" serve --addr 127.0.0.1:$port --database-url "$2" >"$WORK/server-$1.log" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 1 300); do
    curl -sf "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break
    sleep 0.2
  done
  curl -sf "http://127.0.0.1:$port/readyz" >/dev/null || die "the server did not start (see $WORK/server-$1.log)"
  PUBLIC_KEY=$(curl -sf "$API/keys/replay" | jq -r .public_key)
  say "server on $port ($1), replay key $PUBLIC_KEY"
  # One player account (it creates the practice tables) and one organiser.
  curl -sf -X POST "$API/accounts" -H "$J" -d '{"name":"golden","password":"golden-password"}' >/dev/null
  TOKEN=$(curl -sf -X POST "$API/auth/token" -H "$J" -d '{"name":"golden","password":"golden-password"}' | jq -r .access_token)
  curl -sf -X POST "$API/accounts" -H "$J" -H "X-Organiser-Key: $ORGANISER_KEY" \
    -d '{"name":"golden-org","password":"golden-password","role":"organiser"}' >/dev/null
  ORG=$(curl -sf -X POST "$API/auth/token" -H "$J" -d '{"name":"golden-org","password":"golden-password"}' | jq -r .access_token)
}

# wait_table ID: until the table's game has ended.
wait_table() {
  local status
  for _ in $(seq 1 1200); do
    status=$(curl -sf "$API/tables/$1" | jq -r .table.status)
    [ "$status" = finished ] && return 0
    sleep 0.25
  done
  die "table $1 did not finish (status $status)"
}

# fixture NAME TABLE_ID STORE ORIGIN: export, verify, record, check against the server.
fixture() {
  local name=$1 id=$2 store=$3 origin=$4
  local file=$OUT/$name.jsonl
  curl -sf "$API/tables/$id/replay.jsonl" -o "$file" || die "exporting $id"
  "$BIN" verify "$file" --public-key "$PUBLIC_KEY" >"$WORK/$name.verify" 2>&1 ||
    { cat "$WORK/$name.verify" >&2; die "$name: flicker verify failed"; }
  FLICKER_GOLDEN_RECORD=$file cargo test -q --workspace --test golden recording_a_fixture_gives_its_committed_expected_file >/dev/null 2>&1 ||
    die "$name: recording the expected file failed"
  local expected=$OUT/$name.expected.json
  # The server's own answers: the result and the complete view at each recorded step.
  local server_result
  server_result=$(curl -sf "$API/tables/$id" | jq -S .view.result)
  [ "$server_result" = "$(jq -S .result "$expected")" ] || die "$name: the recorded result is not the server's"
  for at in $(jq -r '.steps[].at' "$expected"); do
    local got want
    got=$(curl -sf "$API/tables/$id/replay?at=$at" | jq -S .view)
    want=$(jq -S --argjson at "$at" '.steps[] | select(.at == $at) | .views.everything' "$expected")
    [ "$got" = "$want" ] || die "$name: the recorded complete view at step $at is not the server's"
  done
  local players classes timeouts
  players=$(jq -r .table.settings.players <<<"$(curl -sf "$API/tables/$id")")
  classes=$(jq -r .table.settings.classes <<<"$(curl -sf "$API/tables/$id")")
  timeouts=$(grep -c '"type":"timed_out"' "$file" || true)
  jq -nc --arg name "$name" --arg id "$id" --arg store "$store" --arg origin "$origin" --arg key "$PUBLIC_KEY" \
    --argjson players "$players" --argjson classes "$classes" --argjson timeouts "$timeouts" \
    --argjson events "$(jq .events "$expected")" --argjson result "$(jq -c .result "$expected")" \
    '{name: $name, store: $store, table_id: $id, origin: $origin, players: $players, classes: $classes,
      game_events: $events, timed_out_events: $timeouts, result: $result, public_key: $key}' >>"$MANIFEST"
  say "$name: $players seats, classes $classes, $(jq .events "$expected") game events, $timeouts time-outs, winner $(jq -r .result.winner "$expected"); verified, recorded, checked against the server"
}

# practice NAME STORE PLAYERS BOT SETTINGS_JSON [absent]: a practice table of built-in bots
# (with `absent`, seat 0 is the `golden` account, which never answers: its prompts time out).
practice() {
  local name=$1 store=$2 players=$3 bot=$4 settings=$5 absent=${6:-}
  wanted "$name" || return 0
  local A="authorization: Bearer $TOKEN" body id
  if [ -n "$absent" ]; then
    body=$(jq -nc --argjson p "$players" --argjson s "$settings" \
      '{players: $p, settings: $s, clocks: {decision_secs: 1, reaction_secs: 1}, reaction_window_min_ms: 0, abandonment: 3}')
  else
    body=$(jq -nc --argjson p "$players" --argjson s "$settings" '{players: $p, settings: $s}')
  fi
  id=$(curl -sf -X POST "$API/tables" -H "$A" -H "$J" -d "$body" | jq -r .table.table_id)
  for s in $(seq 0 $((players - 1))); do
    if [ -n "$absent" ] && [ "$s" = 0 ]; then
      curl -sf -X POST "$API/tables/$id/seats" -H "$A" -H "$J" -d '{"seat":0}' >/dev/null
    else
      curl -sf -X POST "$API/tables/$id/seats" -H "$A" -H "$J" -d "{\"seat\":$s,\"bot\":\"$bot\"}" >/dev/null
    fi
  done
  curl -sf -X POST "$API/tables/$id/start" -H "$A" >/dev/null
  say "practice table $id ($players seats, $bot bots${absent:+, seat 0 absent}) started"
  wait_table "$id"
  fixture "$name" "$id" "$store" "practice table, $bot bots${absent:+, seat 0 an absent player (time-outs)}"
}

# gathering PREFIX STORE PLAYERS MAX_CIRCLE CLASSES: a bot gathering; every circle and the Final.
gathering() {
  local prefix=$1 store=$2 players=$3 max=$4 classes=$5
  wanted "$prefix" || return 0
  local O="authorization: Bearer $ORG" g status
  g=$(curl -sf -X POST "$API/gatherings" -H "$O" -H "$J" \
    -d "{\"name\":\"golden $prefix\",\"settings\":{\"advance\":2,\"max_circle\":$max,\"classes\":$classes}}" | jq -r .gathering_id)
  curl -sf -X POST "$API/gatherings/$g/bots" -H "$O" -H "$J" -d "{\"count\":$players,\"kind\":\"heuristic\"}" >/dev/null
  curl -sf -X POST "$API/gatherings/$g/start" -H "$O" >/dev/null
  say "gathering $g ($players heuristic bots, max circle $max, classes $classes) started"
  for _ in $(seq 1 2400); do
    status=$(curl -sf "$API/gatherings/$g" | jq -r .status)
    [ "$status" = finished ] || [ "$status" = cancelled ] && break
    sleep 0.25
  done
  [ "$status" = finished ] || die "gathering $g did not finish (status $status)"
  local bracket
  bracket=$(curl -sf "$API/gatherings/$g/bracket")
  say "gathering $g finished: winner $(jq -r .winner <<<"$bracket"); stages $(jq -r '[.stages[].sizes] | join(" / ")' <<<"$bracket")"
  while read -r stage circle final id; do
    local kind="stage $stage circle $circle"
    [ "$final" = true ] && kind="Final Ritual (stage $stage)"
    local n
    n=$(jq -r .table.settings.players <<<"$(curl -sf "$API/tables/$id")")
    fixture "$prefix-stage$stage-circle$circle-${n}p" "$id" "$store" "gathering of $players heuristic bots (advance 2, max circle $max, classes $classes): $kind"
  done < <(jq -r '.stages[] | .stage as $s | .final_ritual as $f | .circles[] | "\($s) \(.circle) \($f) \(.table_id)"' <<<"$bracket")
}

step "SQLite: practice tables"
start_server sqlite "$WORK/golden.db"
practice sqlite-practice-2p-sequential sqlite 2 heuristic '{"salt_window":"sequential"}'
practice sqlite-practice-3p-classes sqlite 3 random '{"classes":true}'
practice sqlite-practice-8p-classes sqlite 8 heuristic '{"classes":true,"round_limit":10}'
practice sqlite-practice-4p-timeouts sqlite 4 heuristic '{}' absent
practice sqlite-classic-practice-3p sqlite 3 heuristic '{"ruleset":"classic-1.0"}'
practice sqlite-classic-practice-5p-classes-dark sqlite 5 heuristic '{"ruleset":"classic-1.0","classes":true,"dark_mode":"dark"}'
practice sqlite-classic-practice-2p-classes sqlite 2 random '{"ruleset":"classic-1.0","classes":true}'
step "SQLite: a gathering of 10 bots with classes (circles of 5, then the Final Ritual)"
gathering sqlite-gathering sqlite 10 5 true
stop_server

step "PostgreSQL: a throwaway cluster"
# shellcheck source=scripts/throwaway-postgres.sh
source scripts/throwaway-postgres.sh
start_postgres
trap cleanup EXIT
step "PostgreSQL: practice tables"
start_server postgres "$FLICKER_TEST_POSTGRES_URL"
practice postgres-practice-2p-classes postgres 2 heuristic '{"classes":true,"first_player":{"mode":"first","seat":1}}'
practice postgres-practice-4p postgres 4 random '{"salt_targeted_only":true}'
practice postgres-practice-6p-classes postgres 6 heuristic '{"classes":true}'
practice postgres-practice-3p-classes-timeouts postgres 3 heuristic '{"classes":true}' absent
practice postgres-classic-practice-4p-classes postgres 4 heuristic '{"ruleset":"classic-1.0","classes":true}'
step "PostgreSQL: a gathering of 14 bots without classes (circles of 7, then the Final Ritual)"
gathering postgres-gathering postgres 14 7 false
stop_server

if [ -n "$ONLY" ] && [ -f "$OUT/manifest.json" ]; then
  # Keep every entry not remade in this run, in its place; the new ones follow.
  jq -s --slurpfile old "$OUT/manifest.json" \
    '. as $new | ($old[0] | map(select(.name as $n | [$new[].name] | index($n) | not))) + $new' \
    "$MANIFEST" >"$WORK/manifest.json"
  mv "$WORK/manifest.json" "$OUT/manifest.json"
else
  jq -s . "$MANIFEST" >"$OUT/manifest.json"
fi
step "done: $(jq length "$OUT/manifest.json") golden replays in $OUT ($(du -sh "$OUT" | cut -f1))"
