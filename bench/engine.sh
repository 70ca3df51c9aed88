#!/usr/bin/env bash
# Prints the engine's speed figures: criterion benchmarks (fold, playouts for 2/4/8 players)
# and a 10,000-game 8-player simulation, pinned to one core when `taskset` is available.
# Run from anywhere; honours CARGO_TARGET_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== criterion: cargo bench -p final-flicker"
cargo bench --locked -p final-flicker --bench engine -- --noplot 2>&1 | grep -E "^(random_playout|fold_events)|time:|thrpt:"
# Build first, so that the timed run below does not include compiling.
cargo build --release -q --locked -p flicker
simulate=(cargo run --release -q --locked -p flicker -- simulate --players 8 --games 10000 --seed 7)
if command -v taskset >/dev/null 2>&1; then
    echo "== flicker simulate --players 8 --games 10000 --seed 7 (pinned to core 0 with taskset)"
    pin=(taskset -c 0)
else
    echo "== flicker simulate --players 8 --games 10000 --seed 7 (taskset not found: not pinned to one core)"
    pin=()
fi
${pin[@]+"${pin[@]}"} "${simulate[@]}" 2>/dev/null | grep -E "games/s|mean turns|longest|failures"
