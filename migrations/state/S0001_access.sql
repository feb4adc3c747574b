-- The state plane, applied to the ATTACHed `state` database (.memhtml/state.db in the store).
-- Same name, tables, columns and indexes as memhtml's own S0001_access.sql, so memhtml's CLI finds
-- this migration already applied and both programs read and write one file.
--
-- These facts cannot be rebuilt from the tree: never drop or recreate this database.

CREATE TABLE state.access (
  path                TEXT PRIMARY KEY,
  access_count        INTEGER NOT NULL DEFAULT 0 CHECK (access_count >= 0),
  reinforcement_count INTEGER NOT NULL DEFAULT 0 CHECK (reinforcement_count >= 0),
  -- EWMA over reinforcement signals, unitless in [-1, 1]; salience clamps the negative half to 0.
  outcome_score       REAL    NOT NULL DEFAULT 0.0 CHECK (outcome_score BETWEEN -1 AND 1),
  last_accessed_at    TEXT,
  last_reinforced_at  TEXT,
  updated_at          TEXT NOT NULL
);
-- The schema name goes on the index, not the table (`CREATE INDEX x ON state.access` is an error).
CREATE INDEX state.access_last ON access (last_accessed_at);

CREATE TABLE state.edge_corroboration (
  src_path   TEXT NOT NULL,
  rel        TEXT NOT NULL,
  dst_path   TEXT NOT NULL,
  detections INTEGER NOT NULL DEFAULT 1 CHECK (detections >= 1),
  confirmed  INTEGER NOT NULL DEFAULT 0 CHECK (confirmed IN (0,1)),
  promoted   INTEGER NOT NULL DEFAULT 0 CHECK (promoted IN (0,1)),
  updated_at TEXT NOT NULL,
  PRIMARY KEY (src_path, rel, dst_path)
);
