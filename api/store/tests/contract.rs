//! The store contract ([`flicker_store::contract`]) against every adapter: in memory, SQLite
//! (a fresh file), and PostgreSQL at `FLICKER_TEST_POSTGRES_URL` (`./test.sh` starts a
//! throwaway cluster; without it that test fails and says so: nothing is skipped silently).

use flicker_store::{EventStore, contract};
use std::sync::Arc;

#[tokio::test]
async fn the_memory_store_meets_the_contract() {
    let store: Arc<dyn EventStore> = Arc::new(flicker_store::memory::MemoryStore::new());
    contract::run_all(store).await;
}

#[tokio::test]
async fn the_sqlite_store_meets_the_contract() {
    let dir = std::env::temp_dir().join(format!("flicker-store-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let store = flicker_store::open(&dir.join("t.db").display().to_string()).await.unwrap();
    assert_eq!(store.kind(), "sqlite");
    contract::run_all(store).await;
    std::fs::remove_dir_all(&dir).ok();
}

#[tokio::test]
async fn the_postgres_store_meets_the_contract() {
    let Ok(url) = std::env::var("FLICKER_TEST_POSTGRES_URL") else {
        panic!("FLICKER_TEST_POSTGRES_URL is not set: run ./test.sh, which starts a throwaway PostgreSQL");
    };
    let store = flicker_store::open(&url).await.unwrap();
    assert_eq!(store.kind(), "postgres");
    contract::run_all(store).await;
}

/// A subscription passes over a gap of many positions, and over several gaps read together, in
/// one gap timeout (1.5 s), not one timeout per position or per gap: an append that never commits (its process SIGKILLed in the middle of
/// a 512-event bot chain, found by `tests/tests/reliability_bots.rs`) burns one position per
/// row it inserted, and a restarted server's log follower, which waits for the gap before it
/// is ready, took 1.5 s per missing position (over 12 minutes for 512), then 1.5 s per gap (a
/// kill leaves one per append in flight: 15 s and more after a kill under load).
#[tokio::test]
async fn a_postgres_subscription_passes_wide_gaps_in_one_timeout() {
    use flicker_store::ExpectedVersion;
    let Ok(url) = std::env::var("FLICKER_TEST_POSTGRES_URL") else {
        panic!("FLICKER_TEST_POSTGRES_URL is not set: run ./test.sh, which starts a throwaway PostgreSQL");
    };
    let store = flicker_store::open(&url).await.unwrap();
    let stream = format!("gap-{}", uuid::Uuid::new_v4());
    let first = store.append(&stream, ExpectedVersion::NO_STREAM, vec![contract::ev("a", None)]).await.unwrap();
    // Three gaps between committed events, of 20, 5 and 5 positions taken and never committed,
    // as by transactions that died mid-append.
    let pool = sqlx::PgPool::connect(&url).await.unwrap();
    let mut last = first;
    for width in [20, 5, 5] {
        sqlx::query("SELECT nextval(pg_get_serial_sequence('events', 'position')) FROM generate_series(1, $1)")
            .bind(width)
            .execute(&pool)
            .await
            .unwrap();
        last = store.append(&stream, last.version.into(), vec![contract::ev("b", None)]).await.unwrap();
    }
    pool.close().await;
    let started = std::time::Instant::now();
    let mut sub = store.clone().subscribe_heads(first.position);
    let deadline = std::time::Duration::from_secs(10);
    loop {
        let e = tokio::time::timeout(deadline, sub.recv())
            .await
            .expect("the subscription stalled at the gap")
            .expect("the subscription ended");
        if e.position == last.position {
            break;
        }
    }
    let took = started.elapsed();
    assert!(
        took < std::time::Duration::from_secs(3),
        "passing gaps of 20, 5 and 5 positions took {took:?} (the gap timeout is 1.5 s)"
    );
}
