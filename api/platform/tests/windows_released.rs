//! R10.6.5, docs/rules-decisions.md 76: a table's default minimum window lapses once every seat
//! still in the game is a built-in bot, for *Let's Call the Exorcist* as for The Final Flicker
//! (whose driver path `api/server/src/window_tests.rs` plays): a seat conceding out of the game
//! releases the hold, while a person still in the game or a minimum window set explicitly keeps it.

use exorcist::{Command, Settings};
use flicker_platform::bots::BotKind;
use flicker_platform::clock::SystemClock;
use flicker_platform::due::windows_released;
use flicker_platform::games::Exorcist;
use flicker_platform::tables::{self, SeatHolder, TableEvent, TableGathering, Tables};
use flicker_store::EventStore;
use flicker_store::sqlite::SqliteStore;
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use std::sync::Arc;

/// A 4-seat Exorcist circle holding its windows: `p0` and `p1` are accounts, seats 2 and 3
/// built-in bots; `default_window`: the minimum window is the default from the seats. Returns
/// its id.
async fn table(store: &dyn EventStore, default_window: bool) -> String {
    let id = uuid::Uuid::new_v4().to_string();
    let settings = Settings { players: 4, target: 7, first_seeker: None, hold_windows: true };
    let created = TableEvent::TableCreated {
        table_id: id.clone(),
        game: flicker_platform::games::GameName::LetsCallTheExorcist,
        creator: "org".into(),
        settings: settings.clone(),
        practice: false,
        position: None,
        gathering: Some(TableGathering { gathering_id: uuid::Uuid::new_v4().to_string(), stage: 1, circle: 1 }),
        seated: (0..4)
            .map(|i| SeatHolder { name: format!("p{i}"), bot: (i >= 2).then_some(BotKind::Random) })
            .collect(),
        clocks: Default::default(),
        reaction_window_min_ms: 1500,
        bot_delay_ms: 0,
        abandonment: 0,
        min_window_at_start: default_window,
    };
    let game = <Exorcist as flicker_game::Game>::create(&settings, &mut ChaCha8Rng::seed_from_u64(3)).unwrap();
    tables::create_with_game::<Exorcist>(store, &id, &created, &game, "org", chrono::Utc::now()).await.unwrap();
    id
}

#[tokio::test]
async fn r10_6_5_the_default_hold_lapses_when_the_last_person_concedes() {
    let dir = std::env::temp_dir().join(format!("flicker-platform-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let sqlite = SqliteStore::open(&dir.join("t.db").display().to_string()).await.unwrap();
    let store: &dyn EventStore = &sqlite;
    let tables = Tables::<Exorcist>::with_clock(Arc::new(SystemClock));
    for default_window in [true, false] {
        let id = table(store, default_window).await;
        let concede = |seat: u8| {
            let tables = &tables;
            let id = id.clone();
            async move {
                tables
                    .command(store, &id, &format!("p{seat}"), None, |s| {
                        tables::decide(s, &Command::Concede { seat }, &mut ChaCha8Rng::seed_from_u64(1))
                    })
                    .await
                    .unwrap();
                windows_released(&tables.load(store, &id).await.unwrap())
            }
        };
        assert!(!windows_released(&tables.load(store, &id).await.unwrap()), "two persons in the game");
        assert!(!concede(0).await, "a person is still in the game");
        assert_eq!(concede(1).await, default_window, "only bots are left: released when the window is the default");
    }
    drop(sqlite);
    std::fs::remove_dir_all(&dir).ok();
}
