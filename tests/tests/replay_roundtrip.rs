//! Cross-crate: a saved event log (JSON Lines file) replays to the identical final state, and
//! every viewer's projection of the replayed state equals that of the live one.

use final_flicker::replay::{fold, read_replay, write_replay};
use final_flicker::settings::Settings;
use final_flicker::view::{Viewer, view};
use flicker_lab::sim::play_random;
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

#[test]
fn a_saved_event_log_replays_to_the_identical_final_state() {
    for players in [2u8, 5, 8] {
        let mut rng = ChaCha8Rng::seed_from_u64(players as u64);
        let mut bot = ChaCha8Rng::seed_from_u64(99);
        let game = play_random(&Settings::new(players), &mut rng, &mut bot, false, 1_000_000).expect("game");
        let dir = std::env::temp_dir().join(format!("flicker-replay-test-{}-{players}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("game.jsonl");
        write_replay(std::io::BufWriter::new(std::fs::File::create(&path).unwrap()), &game.events).unwrap();
        let (header, events) = read_replay(std::io::BufReader::new(std::fs::File::open(&path).unwrap())).unwrap();
        assert_eq!(header.ruleset.id, "current");
        assert_eq!(events, game.events);
        let replayed = fold(&events);
        assert_eq!(replayed, game.state, "{players} players: replay differs from the live state");
        for viewer in [Viewer::Spectator, Viewer::Seat { seat: 0 }, Viewer::Everything] {
            assert_eq!(view(&replayed, viewer), view(&game.state, viewer));
        }
        assert!(replayed.result().is_some());
        std::fs::remove_dir_all(&dir).ok();
    }
}

#[test]
fn a_replay_with_a_gap_in_versions_is_refused() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut bot = ChaCha8Rng::seed_from_u64(2);
    let game = play_random(&Settings::new(3), &mut rng, &mut bot, false, 1_000_000).expect("game");
    let mut buf = Vec::new();
    write_replay(&mut buf, &game.events).unwrap();
    let text = String::from_utf8(buf).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.remove(5); // drop event 5
    let err = read_replay(std::io::Cursor::new(lines.join("\n"))).unwrap_err();
    assert!(err.to_string().contains("expected event version 5"), "{err}");
}
