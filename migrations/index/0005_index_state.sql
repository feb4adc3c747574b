-- Bookkeeping this app needs and memhtml does not: what was seen on disk, what failed, and a
-- version counter readers use to notice that the vectors changed.

-- One row, id = 1. embed_model is the vector space `<model>@<dim>`; a different configured model
-- makes the indexer re-embed. vectors_version is bumped in every write transaction that touches
-- files, chunks or embeddings, so a reader's in-memory vector matrix knows when to refresh.
CREATE TABLE index_state (
  id              INTEGER PRIMARY KEY CHECK (id = 1),
  store_root      TEXT,
  head_sha        TEXT,
  embed_model     TEXT,
  embed_dim       INTEGER,
  rebuilt_at      TEXT,
  updated_at      TEXT,
  vectors_version INTEGER NOT NULL DEFAULT 0
);
INSERT INTO index_state (id) VALUES (1);

-- Every indexable path seen on disk, valid or not: the change key for the next scan. A file is
-- re-read only when size or mtime moved, and re-parsed only when its blob sha moved.
CREATE TABLE sources (
  path      TEXT PRIMARY KEY,
  size      INTEGER NOT NULL,
  mtime_ns  INTEGER NOT NULL,
  blob_sha  TEXT NOT NULL,
  status    TEXT NOT NULL CHECK (status IN ('indexed','failed')),
  seen_at   TEXT NOT NULL
);
CREATE INDEX sources_blob ON sources (blob_sha);

-- Files that failed to parse (violations non-empty) or parsed with warnings. A failed file has no
-- row in `files`; it stays listed here until a later scan finds it fixed or gone.
CREATE TABLE problems (
  path        TEXT PRIMARY KEY,
  kind        TEXT NOT NULL CHECK (kind IN ('invalid','warnings','unreadable')),
  violations  TEXT NOT NULL DEFAULT '[]',   -- JSON array of memhtml's violation strings
  warnings    TEXT NOT NULL DEFAULT '[]',   -- JSON array of memhtml's warning strings
  detected_at TEXT NOT NULL
);
