//! A table load at its stream's head asks the database nothing: on SQLite, with the readers
//! closed, a cached table still loads and a command still decides and commits; every read that
//! needs a query fails, so none was made.

use final_flicker::{Command, PromptKind, Settings};
use flicker_platform::clock::SystemClock;
use flicker_platform::games::FinalFlicker;
use flicker_platform::tables::{self, SeatHolder, TableEvent, TableGathering, Tables};
use flicker_store::sqlite::SqliteStore;
use flicker_store::{EventStore, StreamVersion};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use std::sync::Arc;

/// A two-seat circle table of accounts `p0` and `p1`, its game dealt; returns its id.
async fn table(store: &dyn EventStore) -> String {
    let id = uuid::Uuid::new_v4().to_string();
    let settings = Settings::new(2);
    let created = TableEvent::TableCreated {
        table_id: id.clone(),
        game: Default::default(),
        creator: "org".into(),
        settings: settings.clone(),
        practice: false,
        position: None,
        gathering: Some(TableGathering { gathering_id: uuid::Uuid::new_v4().to_string(), stage: 1, circle: 1 }),
        seated: (0..2).map(|i| SeatHolder { name: format!("p{i}"), bot: None }).collect(),
        clocks: Default::default(),
        reaction_window_min_ms: 0,
        bot_delay_ms: 0,
        abandonment: 0,
        min_window_at_start: false,
    };
    let game = final_flicker::create(&settings, &mut ChaCha8Rng::seed_from_u64(3)).unwrap();
    tables::create_with_game::<FinalFlicker>(store, &id, &created, &game, "org", chrono::Utc::now()).await.unwrap();
    id
}

#[tokio::test]
async fn a_load_at_the_head_does_no_read() {
    let dir = std::env::temp_dir().join(format!("flicker-platform-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let sqlite = Arc::new(SqliteStore::open(&dir.join("t.db").display().to_string()).await.unwrap());
    let store: &dyn EventStore = sqlite.as_ref();
    let tables = Tables::<FinalFlicker>::with_clock(Arc::new(SystemClock));
    let id = table(store).await;
    let cold = table(store).await;
    let first = tables.load(store, &id).await.unwrap();

    sqlite.close_readers().await;
    assert!(store.read_stream(&tables::stream_of(&id), StreamVersion::new(1)).await.is_err(), "no reader is left");
    assert!(tables.load(store, &cold).await.is_err(), "a table not cached needs a read");
    let again = tables.load(store, &id).await.unwrap();
    assert!(Arc::ptr_eq(&first, &again), "the cached table, current, without a read");

    // Commands: each loads the table at its head, decides, appends and folds what it appended.
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for _ in 0..5 {
        let snap = tables.load(store, &id).await.unwrap();
        let open = final_flicker::prompts(&snap.state);
        let cmd = match open.iter().find(|p| !matches!(p.kind, PromptKind::Salt { current: Some(_), .. })) {
            Some(p) => Command::Answer {
                seat: p.seat,
                prompt: Some(p.id),
                answer: flicker_lab::bot::random_answer(p, &mut rng),
            },
            None => Command::CloseWindow,
        };
        let (after, replayed) = tables
            .command(store, &id, "test", None, |s| tables::decide(s, &cmd, &mut ChaCha8Rng::seed_from_u64(1)))
            .await
            .unwrap();
        assert!(!replayed);
        assert!(after.version > snap.version);
        assert_eq!(tables.load(store, &id).await.unwrap().version, after.version);
    }
    drop(tables);
    drop(sqlite);
    std::fs::remove_dir_all(&dir).ok();
}
