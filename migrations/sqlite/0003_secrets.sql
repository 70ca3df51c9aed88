-- Issue 13: server secrets (the JWT signing secret, the replay signing seed, the generated
-- organiser key) kept apart from the append-only event log, which backups, exports and replicas
-- copy. One row per version of a secret: rotation adds a version, the highest is current, and
-- older ones stay to verify what they signed (tokens until they expire, replays for good).
CREATE TABLE secrets (
    name       TEXT    NOT NULL,                        -- jwt-secret, replay-signing-key, organiser-key
    version    INTEGER NOT NULL CHECK (version >= 1),
    value      TEXT    NOT NULL,                        -- the secret (hex), never logged or served
    created_at TEXT    NOT NULL,                        -- RFC 3339, UTC
    PRIMARY KEY (name, version)
);
