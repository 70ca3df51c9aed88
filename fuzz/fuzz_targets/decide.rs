//! Arbitrary bytes decoded into a game and a sequence of commands and
//! answers (structured by `arbitrary`, mutated legal answers, raw JSON), sent to `decide` at
//! random moments. The logic and the properties checked live in the lab
//! (`flicker_lab::fuzzing::run`), which `cargo test` also drives on stable.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    flicker_lab::fuzzing::run(data);
});
