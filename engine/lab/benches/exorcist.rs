//! Criterion benchmarks of *Let's Call the Exorcist*: complete games played by random bots for 4,
//! 6 and 8 players and by heuristic bots for 8 (each bot reading its own seat's view), folding a
//! whole game's events, and one viewer's projection of a mid-game state. Run with
//! `cargo bench -p flicker-lab --bench exorcist`; `bench/run.sh` collects the figures into
//! `docs/benchmarks.md`.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use exorcist::{Exorcist, Settings};
use flicker_game::{Game, Viewer, kit};
use flicker_lab::exorcist::{Playout, Policy, play};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use std::hint::black_box;

/// One unchecked game from `seed` (every seat played by `policy`).
fn game(players: u8, policy: Policy, seed: u64) -> Playout {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut bot = ChaCha8Rng::seed_from_u64(!seed);
    play(&Settings::new(players), &[policy], &mut rng, &mut bot, false, 100_000).expect("game")
}

fn playouts(c: &mut Criterion) {
    for (name, policy, counts) in [
        ("exorcist_random_playout", Policy::Random, &[4u8, 6, 8][..]),
        ("exorcist_heuristic_playout", Policy::Heuristic, &[8u8][..]),
    ] {
        let mut g = c.benchmark_group(name);
        for &players in counts {
            g.throughput(Throughput::Elements(1));
            g.bench_with_input(BenchmarkId::from_parameter(players), &players, |b, &players| {
                let mut seed = 0u64;
                b.iter(|| {
                    seed += 1;
                    black_box(game(players, policy, seed))
                })
            });
        }
        g.finish();
    }
}

fn folding(c: &mut Criterion) {
    let mut g = c.benchmark_group("exorcist_fold_events");
    for players in [4u8, 8] {
        let p = game(players, Policy::Random, 42);
        g.throughput(Throughput::Elements(p.events.len() as u64));
        g.bench_with_input(BenchmarkId::from_parameter(players), &p.events, |b, events| {
            b.iter(|| black_box(kit::fold::<Exorcist>(events)))
        });
    }
    g.finish();
}

/// One viewer's projection of an 8-player state halfway through a game: a seat's (with its
/// private log and what it knows now) and a spectator's.
fn projection(c: &mut Criterion) {
    let p = game(8, Policy::Random, 42);
    let half = kit::fold::<Exorcist>(&p.events[..p.events.len() / 2]);
    let mut g = c.benchmark_group("exorcist_projection");
    g.throughput(Throughput::Elements(1));
    g.bench_function("view_8p_seat", |b| b.iter(|| black_box(Exorcist::view(&half, Viewer::Seat { seat: 3 }))));
    g.bench_function("view_8p_spectator", |b| b.iter(|| black_box(Exorcist::view(&half, Viewer::Spectator))));
    g.finish();
}

criterion_group!(benches, playouts, folding, projection);
criterion_main!(benches);
