#!/usr/bin/env bash
# Prints the engine's speed figures: criterion benchmarks (fold, playouts for 2/4/8 players)
# and a 10,000-game 8-player simulation. Run from the repository root.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== criterion: cargo bench -p flicker-engine"
cargo bench --locked -p flicker-engine --bench engine -- --noplot 2>&1 | grep -E "^(random_playout|fold_events)|time:|thrpt:"
echo "== flicker simulate --players 8 --games 10000 --seed 7 (one core)"
cargo build --locked --release -q
taskset -c 0 ./target/release/flicker simulate --players 8 --games 10000 --seed 7 2>/dev/null | grep -E "games/s|mean turns|longest|failures"
