//! The event store's SQLite and PostgreSQL adapters over the port of `flicker_store`, and
//! [`open`], which picks one from a URL.

pub mod postgres;
pub mod sqlite;

pub use flicker_store::*;
use std::sync::Arc;

/// Opens the store named by `url`: `postgres://…` for PostgreSQL, otherwise a SQLite file path
/// or `sqlite://path` (created with its migrations on first start).
pub async fn open(url: &str) -> Result<Arc<dyn EventStore>, StoreError> {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        Ok(Arc::new(postgres::PgStore::connect(url).await?))
    } else {
        let path = url.strip_prefix("sqlite://").or_else(|| url.strip_prefix("sqlite:")).unwrap_or(url);
        Ok(Arc::new(sqlite::SqliteStore::open(path).await?))
    }
}
