#!/usr/bin/env bash
# Prints the engines' speed figures: The Final Flicker's criterion benchmarks (fold, playouts for
# 2/4/8 players, projections), the Exorcist's (playouts for 4/6/8 players, fold, projections), a
# 10,000-game 8-player simulation of each game, pinned to one core when `taskset` is available.
# With `--write`, the criterion figures also replace the engine section of docs/benchmarks.md
# (the load and gathering sections, from bench/run.sh, are left as they are).
# Run from anywhere; honours CARGO_TARGET_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
write=()
case "${1:-}" in
    --write) write=(--write) ;;
    "") ;;
    *) echo "usage: bench/engine.sh [--write]" >&2; exit 2 ;;
esac
target=${CARGO_TARGET_DIR:-target}
echo "== criterion: cargo bench -p final-flicker --bench engine"
cargo bench --locked -p final-flicker --bench engine -- --noplot 2>&1 | grep -E "^(random_playout|fold_events|projection)|time:|thrpt:"
echo "== criterion: cargo bench -p flicker-lab --bench exorcist"
cargo bench --locked -p flicker-lab --bench exorcist -- --noplot 2>&1 | grep -E "^exorcist_|time:|thrpt:"
# Build first, so that the timed runs below do not include compiling.
cargo build --release -q --locked -p flicker -p flicker-bench
if command -v taskset >/dev/null 2>&1; then
    pin=(taskset -c 0)
    where="pinned to core 0 with taskset"
else
    pin=()
    where="taskset not found: not pinned to one core"
fi
for game in the-final-flicker exorcist; do
    echo "== flicker simulate --game $game --players 8 --games 10000 --seed 7 ($where)"
    ${pin[@]+"${pin[@]}"} "$target/release/flicker" simulate --game "$game" --players 8 --games 10000 --seed 7 2>/dev/null \
        | grep -E "^(games/s|mean|longest|invariant failures|rounds won)"
done
echo "== the report's engine section (flicker-bench engine ${write[*]-})"
"$target/release/flicker-bench" engine --criterion "$target/criterion" ${write[@]+"${write[@]}"}
