//! The migrators of the SQLite and PostgreSQL adapters, built at run time from the files of
//! `migrations/sqlite` and `migrations/postgres`, embedded with `include_str!`.
//!
//! This is what `sqlx::migrate!` builds, without sqlx's `macros` feature (which compiles sqlx's
//! drivers, SQLite's C sources among them, a second time for the build host): the same version,
//! description, type, SQL and SHA-384 checksum per file, so a database migrated by a binary built
//! with `sqlx::migrate!` opens unchanged. A migration file must be listed here too: the tests
//! below compare both lists with their folders, file by file, and with sqlx's own reading of them.

use sqlx::migrate::{Migration, MigrationType, Migrator};
use sqlx::{AssertSqlSafe, SqlSafeStr};
use std::borrow::Cow;

/// The files of `migrations/sqlite`: (file name, contents).
#[cfg(feature = "sqlite")]
pub(crate) const SQLITE: &[(&str, &str)] = &[
    ("0001_events.sql", include_str!("../../../migrations/sqlite/0001_events.sql")),
    ("0002_event_hash.sql", include_str!("../../../migrations/sqlite/0002_event_hash.sql")),
    ("0003_secrets.sql", include_str!("../../../migrations/sqlite/0003_secrets.sql")),
];

/// The files of `migrations/postgres`: (file name, contents).
#[cfg(feature = "postgres")]
pub(crate) const POSTGRES: &[(&str, &str)] = &[
    ("0001_events.sql", include_str!("../../../migrations/postgres/0001_events.sql")),
    ("0002_event_hash.sql", include_str!("../../../migrations/postgres/0002_event_hash.sql")),
    ("0003_secrets.sql", include_str!("../../../migrations/postgres/0003_secrets.sql")),
    ("0004_append_function.sql", include_str!("../../../migrations/postgres/0004_append_function.sql")),
];

/// A migrator over `files`, read as sqlx reads a migrations folder: `<version>_<description>.sql`
/// (underscores in the description read as spaces), `.up.sql` / `.down.sql` for reversible ones,
/// a first line `-- no-transaction` to run outside a transaction.
pub(crate) fn migrator(files: &[(&str, &'static str)]) -> Migrator {
    let migrations = files
        .iter()
        .map(|&(name, sql)| {
            let (version, rest) = name.split_once('_').unwrap_or_else(|| panic!("migration {name}: no `_`"));
            let version: i64 = version.parse().unwrap_or_else(|_| panic!("migration {name}: no version"));
            let kind = MigrationType::from_filename(rest);
            let description = rest.trim_end_matches(kind.suffix()).replace('_', " ");
            Migration::new(
                version,
                Cow::Owned(description),
                kind,
                AssertSqlSafe(sql).into_sql_str(),
                sql.starts_with("-- no-transaction"),
            )
        })
        .collect();
    Migrator::with_migrations(migrations)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// The embedded files are exactly the folder's `.sql` files, byte for byte, and make the
    /// migrator `sqlx::migrate!` (and `Migrator::new` on the folder) makes: same versions,
    /// descriptions, types, transaction modes and checksums.
    async fn same_as_the_folder(folder: &str, files: &[(&str, &'static str)]) {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../migrations").join(folder);
        let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".sql"))
            .collect();
        on_disk.sort();
        let embedded: Vec<String> = files.iter().map(|(n, _)| (*n).to_owned()).collect();
        assert_eq!(embedded, on_disk, "migrations/{folder}: list every file in api/store/src/migrations.rs");
        for (name, sql) in files {
            assert_eq!(*sql, std::fs::read_to_string(dir.join(name)).unwrap(), "migrations/{folder}/{name}");
        }
        let ours = migrator(files);
        let sqlx = Migrator::new(dir.as_path()).await.unwrap();
        assert_eq!(ours.migrations.len(), sqlx.migrations.len());
        for (a, b) in ours.migrations.iter().zip(sqlx.migrations.iter()) {
            assert_eq!(a.version, b.version);
            assert_eq!(a.description, b.description);
            assert_eq!(a.migration_type, b.migration_type);
            assert_eq!(a.sql.as_str(), b.sql.as_str());
            assert_eq!(a.checksum, b.checksum, "migrations/{folder}: version {} checksum", a.version);
            assert_eq!(a.no_tx, b.no_tx);
        }
        assert_eq!(
            (ours.ignore_missing, ours.locking, ours.no_tx, &ours.table_name),
            (sqlx.ignore_missing, sqlx.locking, sqlx.no_tx, &sqlx.table_name)
        );
    }

    #[cfg(feature = "sqlite")]
    #[tokio::test]
    async fn sqlite_migrations_match_their_folder() {
        same_as_the_folder("sqlite", SQLITE).await;
    }

    #[cfg(feature = "postgres")]
    #[tokio::test]
    async fn postgres_migrations_match_their_folder() {
        same_as_the_folder("postgres", POSTGRES).await;
    }
}
