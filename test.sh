#!/usr/bin/env bash
# Runs every check of the project, exactly as CI does (`.ci/run` calls this script):
# formatting, clippy with warnings as errors, the whole workspace's tests (rule tests, property
# tests, cross-crate and command-line tests) and a 10,000-game 8-player simulation with no
# invariant failure. It installs what is missing, saying so first, and skips nothing.
set -euo pipefail
cd "$(dirname "$0")"

step() { printf '\n==> %s\n' "$*"; }

if ! command -v cargo >/dev/null 2>&1; then
  echo "error: cargo is not installed. Install Rust 1.94 or newer (https://rustup.rs) and run again." >&2
  exit 1
fi
for component in rustfmt clippy; do
  if ! cargo "${component/rustfmt/fmt}" --version >/dev/null 2>&1; then
    step "installing the missing Rust component $component (rustup component add $component)"
    rustup component add "$component"
  fi
done

step "cargo fmt --check"
cargo fmt --all --check

step "cargo clippy --all-targets -- -D warnings"
cargo clippy --locked --workspace --all-targets -- -D warnings

step "cargo test (workspace)"
cargo test --locked --workspace

step "flicker simulate --players 8 --games 10000 --seed 7"
cargo run --locked -q -p flicker -- simulate --players 8 --games 10000 --seed 7 2>/dev/null | tee /tmp/flicker-simulate.$$ | grep -E "games/s|mean turns|longest|invariant failures"
grep -q "^invariant failures: 0$" /tmp/flicker-simulate.$$ || { echo "error: the simulation found invariant failures" >&2; exit 1; }
rm -f /tmp/flicker-simulate.$$

printf '\nall checks passed\n'
