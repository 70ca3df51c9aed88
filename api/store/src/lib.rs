//! The event store port (expected-version appends, reads, subscriptions) and its SQLite, PostgreSQL and in-memory adapters.
