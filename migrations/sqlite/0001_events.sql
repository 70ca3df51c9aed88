-- The append-only event store (SQLite). One row per event.
CREATE TABLE events (
    position        INTEGER PRIMARY KEY AUTOINCREMENT,  -- global position, strictly increasing
    stream_id       TEXT    NOT NULL,                   -- e.g. table-<uuid>, account-<name>
    stream_version  INTEGER NOT NULL CHECK (stream_version >= 1),
    event_type      TEXT    NOT NULL,
    schema_version  INTEGER NOT NULL,
    payload         TEXT    NOT NULL CHECK (json_valid(payload)),
    metadata        TEXT    NOT NULL CHECK (json_valid(metadata)),  -- actor, correlation_id, causation_id, idempotency_key
    idempotency_key TEXT,                               -- copy of metadata.idempotency_key, for the unique index
    recorded_at     TEXT    NOT NULL,                   -- RFC 3339, UTC
    UNIQUE (stream_id, stream_version)                  -- expected-version optimistic concurrency
);
CREATE UNIQUE INDEX events_idempotency ON events (stream_id, idempotency_key) WHERE idempotency_key IS NOT NULL;

-- The database itself refuses to change or remove an event.
CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN
    SELECT RAISE(ABORT, 'events are append-only: UPDATE refused');
END;
CREATE TRIGGER events_no_delete BEFORE DELETE ON events
BEGIN
    SELECT RAISE(ABORT, 'events are append-only: DELETE refused');
END;
