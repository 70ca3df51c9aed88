//! Criterion benchmarks: complete random playouts for 2, 4 and 8 players with and without
//! classes, folding a whole game's events, and one viewer's projection of a mid-game state.
//! Run with `cargo bench -p final-flicker`; `bench/run.sh` collects the figures into
//! `docs/benchmarks.md`.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use final_flicker::Viewer;
use final_flicker::replay::fold;
use final_flicker::settings::Settings;
use flicker_lab::sim::play_random;
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use std::hint::black_box;

fn settings(players: u8, classes: bool) -> Settings {
    let mut s = Settings::new(players);
    s.classes = classes;
    s
}

fn playouts(c: &mut Criterion) {
    for (name, classes) in [("random_playout", false), ("random_playout_classes", true)] {
        let mut g = c.benchmark_group(name);
        for players in [2u8, 4, 8] {
            g.throughput(Throughput::Elements(1));
            g.bench_with_input(BenchmarkId::from_parameter(players), &settings(players, classes), |b, s| {
                let mut seed = 0u64;
                b.iter(|| {
                    seed += 1;
                    let mut rng = ChaCha8Rng::seed_from_u64(seed);
                    let mut bot = ChaCha8Rng::seed_from_u64(!seed);
                    black_box(play_random(s, &mut rng, &mut bot, false, 1_000_000).expect("game"))
                })
            });
        }
        g.finish();
    }
}

fn folding(c: &mut Criterion) {
    let mut g = c.benchmark_group("fold_events");
    for players in [2u8, 4, 8] {
        let mut rng = ChaCha8Rng::seed_from_u64(42);
        let mut bot = ChaCha8Rng::seed_from_u64(43);
        let game = play_random(&settings(players, false), &mut rng, &mut bot, false, 1_000_000).expect("game");
        g.throughput(Throughput::Elements(game.events.len() as u64));
        g.bench_with_input(BenchmarkId::from_parameter(players), &game.events, |b, events| {
            b.iter(|| black_box(fold(events)))
        });
    }
    g.finish();
}

/// One viewer's projection (`view`) of an 8-player state halfway through a game with classes:
/// a seat's and a spectator's.
fn projection(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(42);
    let mut bot = ChaCha8Rng::seed_from_u64(43);
    let game = play_random(&settings(8, true), &mut rng, &mut bot, false, 1_000_000).expect("game");
    let half = fold(&game.events[..game.events.len() / 2]);
    let mut g = c.benchmark_group("projection");
    g.throughput(Throughput::Elements(1));
    g.bench_function("view_8p_seat", |b| b.iter(|| black_box(final_flicker::view(&half, Viewer::Seat { seat: 3 }))));
    g.bench_function("view_8p_spectator", |b| b.iter(|| black_box(final_flicker::view(&half, Viewer::Spectator))));
    g.finish();
}

criterion_group!(benches, playouts, folding, projection);
criterion_main!(benches);
