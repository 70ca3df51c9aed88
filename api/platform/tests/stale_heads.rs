//! A table served from a head learnt from the log, a moment behind another process's append
//! (PostgreSQL, docs/scaling.md "Skipping the tail read"): a command decided on it conflicts at
//! its append and is decided again on the table read afresh; a refusal decided on it is
//! confirmed on the table read afresh. The store here answers stale reads on purpose.

use async_trait::async_trait;
use final_flicker::{Command, PromptKind, Settings};
use flicker_platform::clock::SystemClock;
use flicker_platform::games::FinalFlicker;
use flicker_platform::tables::{self, SeatHolder, Snapshot, TableEvent, TableGathering, Tables};
use flicker_store::memory::MemoryStore;
use flicker_store::{
    Appended, EventStore, ExpectedVersion, NewEvent, Position, Secret, StoreError, StoredEvent, StreamVersion,
    Subscription,
};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::broadcast;

/// A store that, like a PostgreSQL process trusting a head it learnt before another process
/// appended, answers a read of a `stale` stream from past its cached version with nothing,
/// except within `flicker_store::fresh`; a conflict on the stream ends that (the real store
/// raises the head to the version the conflict found).
#[derive(Default)]
struct Lagging {
    inner: MemoryStore,
    stale: Mutex<HashSet<String>>,
    fresh_reads: AtomicUsize,
    conflicts: AtomicUsize,
}

#[async_trait]
impl EventStore for Lagging {
    async fn append(&self, s: &str, e: ExpectedVersion, ev: Vec<NewEvent>) -> Result<Appended, StoreError> {
        let r = self.inner.append(s, e, ev).await;
        if let Err(StoreError::Conflict { .. }) = &r {
            self.conflicts.fetch_add(1, Ordering::SeqCst);
            self.stale.lock().unwrap().remove(s);
        }
        r
    }
    async fn read_stream(&self, s: &str, from: StreamVersion) -> Result<Vec<StoredEvent>, StoreError> {
        if flicker_store::fresh_reads() {
            self.fresh_reads.fetch_add(1, Ordering::SeqCst);
        } else if from > StreamVersion::new(1) && self.stale.lock().unwrap().contains(s) {
            return Ok(Vec::new());
        }
        self.inner.read_stream(s, from).await
    }
    async fn read_all(&self, after: Position, limit: usize) -> Result<Vec<StoredEvent>, StoreError> {
        self.inner.read_all(after, limit).await
    }
    async fn read_last(&self, s: &str) -> Result<Option<StoredEvent>, StoreError> {
        self.inner.read_last(s).await
    }
    async fn last_position(&self) -> Result<Position, StoreError> {
        self.inner.last_position().await
    }
    async fn find_command_key(&self, s: &str, key: &str) -> Result<Option<StreamVersion>, StoreError> {
        self.inner.find_command_key(s, key).await
    }
    fn notifications(&self) -> broadcast::Receiver<Position> {
        self.inner.notifications()
    }
    fn subscribe(self: Arc<Self>, after: Position) -> Subscription {
        flicker_store::catch_up(self, after, flicker_store::Gaps::Final)
    }
    async fn ping(&self) -> Result<(), StoreError> {
        Ok(())
    }
    async fn writable(&self) -> Result<(), StoreError> {
        Ok(())
    }
    fn kind(&self) -> &'static str {
        "lagging"
    }
    async fn secrets(&self, name: &str) -> Result<Vec<Secret>, StoreError> {
        self.inner.secrets(name).await
    }
    async fn add_secret(&self, name: &str, version: i64, value: &str) -> Result<bool, StoreError> {
        self.inner.add_secret(name, version, value).await
    }
}

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

/// A legal command on `snap`: an answer to its first open prompt (not a raise of the Salt),
/// else closing the window.
fn a_move(snap: &Snapshot<FinalFlicker>) -> Command {
    let open = final_flicker::prompts(&snap.state);
    match open.iter().find(|p| !matches!(p.kind, PromptKind::Salt { current: Some(_), .. })) {
        Some(p) => Command::Answer {
            seat: p.seat,
            prompt: Some(p.id),
            answer: flicker_lab::bot::random_answer(p, &mut ChaCha8Rng::seed_from_u64(5)),
        },
        None => Command::CloseWindow,
    }
}

/// A table cached by process `b` at some version, then moved on by process `a` (two caches on
/// one store), with `b`'s reads of it stale from here on.
async fn moved_on(store: &Lagging) -> (String, Tables<FinalFlicker>, Arc<Snapshot<FinalFlicker>>) {
    let id = table(store).await;
    let a = Tables::<FinalFlicker>::with_clock(Arc::new(SystemClock));
    let b = Tables::<FinalFlicker>::with_clock(Arc::new(SystemClock));
    let cached = b.load(store, &id).await.unwrap();
    let cmd = a_move(&cached);
    let (moved, _) =
        a.command(store, &id, "a", None, |s| tables::decide(s, &cmd, &mut ChaCha8Rng::seed_from_u64(1))).await.unwrap();
    assert!(moved.version > cached.version);
    store.stale.lock().unwrap().insert(tables::stream_of(&id));
    assert_eq!(b.load(store, &id).await.unwrap().version, cached.version, "b's cache is behind");
    (id, b, moved)
}

#[tokio::test]
async fn a_command_on_a_stale_table_conflicts_and_is_decided_again() {
    let store = Lagging::default();
    let (id, b, moved) = moved_on(&store).await;
    // Decided on whatever table it is given: first the stale one (its append conflicts), then
    // the table read after the conflict.
    let mut seen = Vec::new();
    let (after, replayed) = b
        .command(&store, &id, "b", None, |s| {
            seen.push(s.version);
            tables::decide(s, &a_move(s), &mut ChaCha8Rng::seed_from_u64(1))
        })
        .await
        .unwrap();
    assert!(!replayed);
    assert_eq!(store.conflicts.load(Ordering::SeqCst), 1);
    assert_eq!(seen, vec![seen[0], moved.version], "decided on the stale table, then on the current one");
    assert!(seen[0] < moved.version);
    assert!(after.version > moved.version);
    let stored = store.inner.read_stream(&tables::stream_of(&id), StreamVersion::new(1)).await.unwrap();
    assert_eq!(stored.len() as i64, after.version, "the stream holds both commands, nothing else");
}

#[tokio::test]
async fn a_refusal_on_a_stale_table_is_confirmed_afresh() {
    let store = Lagging::default();
    let (id, b, moved) = moved_on(&store).await;
    // A move only the current table allows (its prompt id is unknown to the stale one).
    let cmd = a_move(&moved);
    let (after, _) = b
        .command(&store, &id, "b", None, |s| tables::decide(s, &cmd, &mut ChaCha8Rng::seed_from_u64(1)))
        .await
        .unwrap();
    assert!(after.version > moved.version);
    assert_eq!(store.fresh_reads.load(Ordering::SeqCst), 1);
    assert_eq!(store.conflicts.load(Ordering::SeqCst), 0);

    // A refusal that stands on the current table too is answered after one fresh read.
    let (id, b, _) = moved_on(&store).await;
    let before = store.fresh_reads.load(Ordering::SeqCst);
    let r = b.command(&store, &id, "b", None, |_| Err::<Vec<NewEvent>, _>(tables::TableError::NotStarted)).await;
    assert!(matches!(r, Err(tables::TableError::NotStarted)));
    assert_eq!(store.fresh_reads.load(Ordering::SeqCst), before + 1);
}

/// A command folds its events into the cached table in place when nobody else holds it, and
/// into a copy when someone does (whose table stays as it was); either way the result is the
/// table as read afresh from the store.
#[tokio::test]
async fn a_command_folds_in_place_only_a_table_nobody_holds() {
    let store = Lagging::default();
    let id = table(&store).await;
    let b = Tables::<FinalFlicker>::with_clock(Arc::new(SystemClock));
    let play = |s: &Snapshot<FinalFlicker>| tables::decide(s, &a_move(s), &mut ChaCha8Rng::seed_from_u64(1));
    let held = b.load(&store, &id).await.unwrap();
    let before = format!("{held:?}");
    let (copied, _) = b.command(&store, &id, "b", None, play).await.unwrap();
    assert_eq!(format!("{held:?}"), before, "a table someone holds is not changed");
    assert!(copied.version > held.version);
    drop((held, copied));
    for _ in 0..3 {
        let (after, _) = b.command(&store, &id, "b", None, play).await.unwrap();
        let afresh = Tables::<FinalFlicker>::with_clock(Arc::new(SystemClock)).load(&store, &id).await.unwrap();
        assert_eq!(format!("{after:?}"), format!("{afresh:?}"));
        assert!(Arc::ptr_eq(&after, &b.load(&store, &id).await.unwrap()), "cached");
    }
}
