-- The append-only event store (PostgreSQL). One row per event.
CREATE TABLE events (
    position        BIGSERIAL   PRIMARY KEY,            -- global position
    stream_id       TEXT        NOT NULL,               -- e.g. table-<uuid>, account-<name>
    stream_version  BIGINT      NOT NULL CHECK (stream_version >= 1),
    event_type      TEXT        NOT NULL,
    schema_version  INTEGER     NOT NULL,
    payload         JSONB       NOT NULL,
    metadata        JSONB       NOT NULL,               -- actor, correlation_id, causation_id, idempotency_key
    idempotency_key TEXT,                               -- copy of metadata.idempotency_key, for the unique index
    recorded_at     TIMESTAMPTZ NOT NULL,
    UNIQUE (stream_id, stream_version)                  -- expected-version optimistic concurrency
);
CREATE UNIQUE INDEX events_idempotency ON events (stream_id, idempotency_key) WHERE idempotency_key IS NOT NULL;

-- The database itself refuses to change or remove an event.
CREATE FUNCTION events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'events are append-only: % refused', TG_OP;
END;
$$;
CREATE TRIGGER events_no_update_delete BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION events_append_only();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION events_append_only();
