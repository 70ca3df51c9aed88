//! The stable-toolchain driver of the cargo-fuzz target `decide`
//! (`fuzz/fuzz_targets/decide.rs`). Both call `flicker_lab::fuzzing::run`; here a seeded
//! generator feeds it a bounded number of byte strings, so that `cargo test` checks the same
//! properties on every run (see `engine/lab/src/fuzzing.rs`). The inputs that libFuzzer once found
//! failing are kept in `fuzz/regressions/` and replayed first.

use flicker_lab::fuzzing::{Outcome, run};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use std::path::Path;

/// Generated inputs per `cargo test` run.
const INPUTS: usize = 5000;

/// Runs one input; on a panic, saves it where `cargo fuzz run decide FILE` can replay it.
fn check(name: &str, data: &[u8]) -> Outcome {
    match std::panic::catch_unwind(|| run(data)) {
        Ok(o) => o,
        Err(e) => {
            let file = std::env::temp_dir().join(format!("flicker-fuzz-{name}.bin"));
            std::fs::write(&file, data).unwrap();
            let msg = e.downcast_ref::<String>().cloned().or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()));
            panic!(
                "input {name} broke a property: {}\nsaved to {}; replay it with `cd fuzz && cargo +nightly fuzz run decide {}`",
                msg.unwrap_or_default(),
                file.display(),
                file.display()
            );
        }
    }
}

#[test]
fn regressions_found_by_libfuzzer_pass() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/regressions");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    files.retain(|f| f.extension().is_none_or(|x| x != "md"));
    for f in files {
        check(&f.file_name().unwrap().to_string_lossy(), &std::fs::read(&f).unwrap());
    }
}

#[test]
fn generated_inputs_keep_every_property() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x8_f1ce);
    let mut total = Outcome::default();
    let (mut created, mut finished) = (0, 0);
    for i in 0..INPUTS {
        let len = rng.random_range(16..=4096);
        let data: Vec<u8> = (0..len).map(|_| rng.random()).collect();
        let o = check(&format!("generated-{i}"), &data);
        created += usize::from(o.created);
        finished += usize::from(o.finished);
        total.commands += o.commands;
        total.accepted += o.accepted;
        total.refused += o.refused;
        total.fuzzed_accepted += o.fuzzed_accepted;
        total.json_decoded += o.json_decoded;
    }
    println!("{INPUTS} inputs: {created} games created, {finished} finished, {total:?}");
    // The decoder reaches the decider's accepting and refusing paths, not only its own errors.
    assert!(created > INPUTS / 2, "only {created} of {INPUTS} inputs created a game");
    assert!(finished > 0, "no game ended");
    assert!(total.refused > 1000, "{total:?}");
    assert!(total.fuzzed_accepted > 100, "few fuzzed commands were accepted: {total:?}");
}
