//! Criterion benchmarks: folding events, and complete random playouts for 2, 4 and 8 players.
//! Run with `cargo bench -p flicker-engine`; `bench/engine.sh` prints the figures.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use flicker_engine::replay::fold;
use flicker_engine::settings::Settings;
use flicker_engine::sim::play_random;
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use std::hint::black_box;

fn playouts(c: &mut Criterion) {
    let mut g = c.benchmark_group("random_playout");
    for players in [2u8, 4, 8] {
        let settings = Settings::new(players);
        g.throughput(Throughput::Elements(1));
        g.bench_with_input(BenchmarkId::from_parameter(players), &settings, |b, s| {
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

fn folding(c: &mut Criterion) {
    let mut g = c.benchmark_group("fold_events");
    for players in [2u8, 4, 8] {
        let mut rng = ChaCha8Rng::seed_from_u64(42);
        let mut bot = ChaCha8Rng::seed_from_u64(43);
        let game = play_random(&Settings::new(players), &mut rng, &mut bot, false, 1_000_000).expect("game");
        g.throughput(Throughput::Elements(game.events.len() as u64));
        g.bench_with_input(BenchmarkId::from_parameter(players), &game.events, |b, events| {
            b.iter(|| black_box(fold(events)))
        });
    }
    g.finish();
}

criterion_group!(benches, playouts, folding);
criterion_main!(benches);
