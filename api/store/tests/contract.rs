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
