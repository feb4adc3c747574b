-- Time that sorts as time. memhtml's columns (event_at, updated_at, created_at, valid_from,
-- valid_until) stay verbatim: they are its projection, pinned byte for byte by the conformance
-- goldens. Beside them, the instants this app ranks and filters on, in UTC, fixed width
-- (`YYYY-MM-DDTHH:MM:SS.mmmZ`, see domain/instants.py), so comparing the text compares the instants:
-- `2026-03-23T23:30:00-05:00` (04:30Z on the 24th) is later than `2026-03-24T03:00:00Z`.
--
--   recency_utc     the instant of coalesce(event_at, updated_at): what the recency arm ranks by
--   updated_utc     the instant of updated_at: recency's fallback when the first claims the future
--   valid_from_utc  the first of valid_from, event_at, created_at that names an instant: as-of's start
--   valid_until_utc the instant of valid_until; NULL when absent or unreadable (no end)
--
-- '' (sorting below every instant) where the text names no instant. The indexer fills them for every
-- file it writes; this migration fills them for an index built before it, through memhtml_instant(),
-- the same function, registered on every connection (index/db.py).
--
-- Appended columns sit after the long texts, so a read of them from the table walks overflow pages;
-- the arms never do that: recency reads recency_utc from its index, updated_utc only for the few
-- rows that claim a future instant.
ALTER TABLE files ADD COLUMN recency_utc TEXT NOT NULL DEFAULT '';
ALTER TABLE files ADD COLUMN updated_utc TEXT NOT NULL DEFAULT '';
ALTER TABLE files ADD COLUMN valid_from_utc TEXT NOT NULL DEFAULT '';
ALTER TABLE files ADD COLUMN valid_until_utc TEXT;

UPDATE files SET
  recency_utc     = coalesce(memhtml_instant(coalesce(event_at, updated_at)), ''),
  updated_utc     = coalesce(memhtml_instant(updated_at), ''),
  valid_from_utc  = coalesce(memhtml_instant(valid_from), memhtml_instant(event_at), memhtml_instant(created_at), ''),
  valid_until_utc = memhtml_instant(valid_until);

-- The recency arm walks this index from "now" down (index/retrieval_sql.py); the text-ordered
-- expression index of 0001 has no reader any more.
DROP INDEX files_recency;
CREATE INDEX files_recency_utc ON files (recency_utc DESC, path);
