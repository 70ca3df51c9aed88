-- Issue 18: appends as one statement. `flicker_append` appends a batch of items (one item is one
-- append: a stream, the version it expects, its events) in the caller's transaction, which in
-- autocommit is the statement's own: one round trip and one WAL flush for the whole batch.
--
-- Each item is checked on its own and never fails the others: under its stream's lock it is a
-- conflict when the stream is not at the expected version, a duplicate when a command key of it
-- is already stored in the stream (or repeated within it), and `legacy` (nothing written; the
-- caller appends it the old way) when the stream's head predates the hash column. Otherwise
-- its events are inserted with their hashes, chained from the head's.
--
-- The streams' advisory locks (the same keys the single appends take) are all taken first, in
-- key order, so two batches of different processes never deadlock; they are held to commit.
--
-- The hash is the one of api/store/src/hash.rs (`event_hash`): SHA-256 over the domain tag
-- `flicker/event-hash/v1` and a zero byte, the predecessor's 32 bytes, the stream id's UTF-8
-- length (big-endian u64) and bytes, the version (big-endian i64), the event type's length and
-- bytes, the schema version (big-endian i32), the payload's length and bytes, where the payload
-- is JSONB's rendering (`payload::text`) of the stored value.
--
-- Events are given per item in item order (p_counts[i] events for item i); p_keys holds each
-- event's command key or NULL; p_recorded is every event's recorded time. Returns one row per
-- item: its index (0-based), its outcome (`ok`, `conflict`, `duplicate`, `legacy`), the
-- stream's version after the append (`ok`) or as found (`conflict`, `legacy`), and the position
-- of its last event (`ok`).
CREATE FUNCTION flicker_append(
    p_streams  TEXT[],
    p_expected BIGINT[],
    p_counts   INTEGER[],
    p_recorded TIMESTAMPTZ,
    p_types    TEXT[],
    p_schemas  INTEGER[],
    p_payloads TEXT[],
    p_metadata TEXT[],
    p_keys     TEXT[]
) RETURNS TABLE (item INTEGER, outcome TEXT, version BIGINT, last_position BIGINT)
LANGUAGE plpgsql AS $$
DECLARE
    lock_key  BIGINT;
    i         INTEGER;
    m         INTEGER;
    ev_first  INTEGER := 1;   -- the current item's first event
    n         INTEGER;
    sid       TEXT;
    cur       BIGINT;
    head_hash TEXT;
    prev      BYTEA;
    sid_bytes BYTEA;
    v         BIGINT;
    pl        JSONB;
    pl_bytes  BYTEA;
    ty_bytes  BYTEA;
    h         BYTEA;
    pos       BIGINT;
    item_keys TEXT[];
BEGIN
    FOR lock_key IN SELECT DISTINCT hashtextextended(x, 0) FROM unnest(p_streams) AS x ORDER BY 1 LOOP
        PERFORM pg_advisory_xact_lock(lock_key);
    END LOOP;
    FOR i IN 1 .. coalesce(array_length(p_streams, 1), 0) LOOP
        sid := p_streams[i];
        n := p_counts[i];
        item := i - 1;
        version := NULL;
        last_position := NULL;
        SELECT e.stream_version, e.hash INTO cur, head_hash
            FROM events e WHERE e.stream_id = sid ORDER BY e.stream_version DESC LIMIT 1;
        IF NOT FOUND THEN
            cur := 0;
            head_hash := repeat('0', 64);
        END IF;
        item_keys := p_keys[ev_first : ev_first + n - 1];
        IF cur <> p_expected[i] THEN
            outcome := 'conflict';
            version := cur;
        ELSIF head_hash IS NULL THEN
            outcome := 'legacy';
            version := cur;
        ELSIF EXISTS (SELECT 1 FROM unnest(item_keys) AS k WHERE k IS NOT NULL GROUP BY k HAVING count(*) > 1)
           OR EXISTS (SELECT 1 FROM events e WHERE e.stream_id = sid AND e.idempotency_key = ANY (item_keys)) THEN
            outcome := 'duplicate';
        ELSE
            prev := decode(head_hash, 'hex');
            sid_bytes := convert_to(sid, 'UTF8');
            v := cur;
            FOR m IN ev_first .. ev_first + n - 1 LOOP
                v := v + 1;
                pl := p_payloads[m]::jsonb;
                pl_bytes := convert_to(pl::text, 'UTF8');
                ty_bytes := convert_to(p_types[m], 'UTF8');
                h := sha256(
                    '\x666c69636b65722f6576656e742d686173682f763100'::bytea
                    || prev
                    || int8send(octet_length(sid_bytes)::bigint) || sid_bytes
                    || int8send(v)
                    || int8send(octet_length(ty_bytes)::bigint) || ty_bytes
                    || int4send(p_schemas[m])
                    || int8send(octet_length(pl_bytes)::bigint) || pl_bytes
                );
                INSERT INTO events (stream_id, stream_version, event_type, schema_version, payload, metadata,
                                    idempotency_key, recorded_at, hash)
                    VALUES (sid, v, p_types[m], p_schemas[m], pl, p_metadata[m]::jsonb, p_keys[m], p_recorded,
                            encode(h, 'hex'))
                    RETURNING position INTO pos;
                prev := h;
            END LOOP;
            outcome := 'ok';
            version := v;
            last_position := pos;
        END IF;
        RETURN NEXT;
        ev_first := ev_first + n;
    END LOOP;
END;
$$;
