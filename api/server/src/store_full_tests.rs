//! The SQLite store filled for real: the 503 `storage-full` answer and the recovery by itself.

use crate::store::sqlite::SqliteStore;
use crate::store::{EventStore, ExpectedVersion, NewEvent, StoreError, StreamVersion};
use sqlx::Row;
use std::sync::Arc;

/// A real SQLITE_FULL inside the SQLite adapter (`PRAGMA max_page_count` on the
/// writer's connection, lowered to the file's size, then raised). While full, appends fail
/// as [`StoreError::Full`] (never the wedge `begin_with at non-zero transaction depth`), the
/// API answers 503 `storage-full` with `Retry-After` and `/readyz` 503; once there is room the
/// writer has recovered by itself: `/readyz` 200, writes succeed, nothing acknowledged is lost.
#[actix_web::test]
async fn a_full_store_answers_503_and_recovers_by_itself() {
    use actix_web::{App, test};
    let dir = std::env::temp_dir().join(format!("flicker-store-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("t.db");
    let sqlite = Arc::new(SqliteStore::open(path.to_str().unwrap()).await.unwrap());
    let pool = sqlx::SqlitePool::connect(&format!("sqlite://{}?mode=ro", path.display())).await.unwrap();
    let store: Arc<dyn EventStore> = sqlite.clone();
    let app = crate::server::state(store.clone()).await.unwrap();
    let svc = test::init_service(App::new().app_data(app.clone()).configure(crate::server::configure)).await;
    let ready = || test::TestRequest::get().uri("/readyz").to_request();
    // Ready means the driver drives the live tables too: start it and wait.
    crate::driver::spawn(app.clone());
    let mut waited = 0;
    while test::call_service(&svc, ready()).await.status() != 200 {
        waited += 1;
        assert!(waited < 200, "never ready");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let account = |name: &str| {
        test::TestRequest::post()
            .uri("/api/v1/accounts")
            .set_json(serde_json::json!({"name": name, "password": "correct horse battery", "role": "player"}))
            .to_request()
    };
    assert_eq!(test::call_service(&svc, account("before")).await.status(), 201);
    // 16 KiB events, so the file fills in a few appends.
    let big = |i: usize| NewEvent {
        payload: serde_json::json!({"i": i, "ballast": "x".repeat(16 * 1024)}),
        ..flicker_store::contract::ev("big", None)
    };
    let mut acked: Vec<(String, StreamVersion)> = Vec::new();
    for i in 0..4 {
        let s = format!("fill-{i}");
        let a = store.append(&s, ExpectedVersion::NO_STREAM, vec![big(i)]).await.unwrap();
        acked.push((s, a.version));
    }
    let pages: i64 = sqlx::query("PRAGMA page_count").fetch_one(&pool).await.unwrap().get(0);
    sqlite.exec_on_writer(&format!("PRAGMA max_page_count = {pages}")).await.unwrap();
    let mut full = 0;
    for i in 4..200 {
        let s = format!("fill-{i}");
        match store.append(&s, ExpectedVersion::NO_STREAM, vec![big(i)]).await {
            Ok(a) => acked.push((s, a.version)),
            Err(StoreError::Full(_)) => {
                full += 1;
                if full == 3 {
                    break;
                }
            }
            Err(e) => panic!("a write without room must fail as Full, not: {e}"),
        }
    }
    assert_eq!(full, 3, "the store never filled");
    // Then the last bytes, with tiny events, so that any write fails.
    let mut full = 0;
    for i in 0..5000 {
        let s = format!("tiny-{i}");
        match store.append(&s, ExpectedVersion::NO_STREAM, vec![flicker_store::contract::ev("t", None)]).await {
            Ok(a) => acked.push((s, a.version)),
            Err(StoreError::Full(_)) => {
                full += 1;
                if full == 3 {
                    break;
                }
            }
            Err(e) => panic!("a write without room must fail as Full, not: {e}"),
        }
    }
    assert_eq!(full, 3, "the store never filled");
    // Batched appends (savepoints) fail as Full too.
    let names: Vec<String> = (0..8).map(|i| format!("batch-{i}")).collect();
    let batch: Vec<_> =
        names.iter().enumerate().map(|(i, s)| store.append(s, ExpectedVersion::NO_STREAM, vec![big(i)])).collect();
    for r in futures_util::future::join_all(batch).await {
        assert!(matches!(r, Err(StoreError::Full(_))), "{r:?}");
    }
    let resp = test::call_service(&svc, account("during")).await;
    assert_eq!(resp.status(), 503);
    assert_eq!(resp.headers().get("content-type").unwrap(), "application/problem+json");
    let retry: u64 = resp.headers().get("retry-after").expect("Retry-After").to_str().unwrap().parse().unwrap();
    assert!(retry >= 1);
    let body: serde_json::Value = test::read_body_json(resp).await;
    assert_eq!(body["type"], "/problems/storage-full", "{body}");
    assert_eq!(body["status"], 503);
    assert!(store.writable().await.is_err());
    let resp = test::call_service(&svc, ready()).await;
    assert_eq!(resp.status(), 503);
    assert!(resp.headers().get("retry-after").is_some());
    // Room again: nobody restarts anything.
    sqlite.exec_on_writer("PRAGMA max_page_count = 1073741823").await.unwrap();
    // The driver saw the store fail too; it records the outage and is ready again.
    let mut waited = 0;
    while test::call_service(&svc, ready()).await.status() != 200 {
        waited += 1;
        assert!(waited < 200, "not ready again once there is room");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    store.writable().await.unwrap();
    assert_eq!(test::call_service(&svc, account("after")).await.status(), 201);
    let a = store.append("fill-0", ExpectedVersion::exact(StreamVersion::new(1)), vec![big(0)]).await.unwrap();
    assert_eq!(a.version, StreamVersion::new(2));
    acked[0].1 = StreamVersion::new(2);
    // Nothing acknowledged was lost; nothing refused was stored; the file is sound.
    for (s, v) in &acked {
        assert_eq!(store.read_stream(s, StreamVersion::new(1)).await.unwrap().len() as u64, v.get(), "{s}");
    }
    for i in 0..8 {
        assert!(store.read_stream(&format!("batch-{i}"), StreamVersion::new(1)).await.unwrap().is_empty());
    }
    assert!(crate::accounts::load(store.as_ref(), "during").await.unwrap().is_none());
    assert!(crate::accounts::load(store.as_ref(), "after").await.unwrap().is_some());
    let ok: String = sqlx::query("PRAGMA integrity_check").fetch_one(&pool).await.unwrap().get(0);
    assert_eq!(ok, "ok");
    std::fs::remove_dir_all(&dir).ok();
}
