-- Issue 6, tamper evidence: each event's hash (64 lowercase hex digits), SHA-256 over its
-- predecessor's hash and its exact stored bytes (the payload as `payload::text`; see
-- api/src/chain.rs for the encoding), computed by the store inside the append transaction.
-- Events appended before this migration keep NULL: their hashes are computed from their stored
-- bytes when needed (at the stream's next append and at export), with the same function.
ALTER TABLE events ADD COLUMN hash TEXT CHECK (hash IS NULL OR hash ~ '^[0-9a-f]{64}$');
