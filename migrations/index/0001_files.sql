-- The memory corpus: one row per valid memory file. Disposable: every column is derived from the
-- file's bytes, so deleting the index costs a rebuild and nothing else.
--
-- Table and column names are memhtml's own (packages/index/migrations, release 0.4.0), so a reader
-- of either schema knows the other. Two deliberate differences, both about never losing sight of a
-- file:
--   * no UNIQUE index on the active content_hash. memhtml refuses a second identical active body,
--     which aborts a whole 500-statement batch; here both files are indexed and the pair is listed
--     as a problem (see `duplicate_bodies` in index/doctor.py).
--   * a file that stops parsing leaves `files` and appears in `problems` (0005) instead of keeping
--     its stale row.
--
-- Every child table cascades on UPDATE as well as DELETE: a `git mv` into archive/ is an UPDATE of
-- the parent key, and a rename handled as delete+insert would cascade the chunks away and take the
-- embeddings with them.

-- Column ORDER is this app's, names are memhtml's: every small column comes before the long
-- texts. SQLite stores a row as one record and long texts spill into a linked chain of overflow
-- pages, so reading `archived` after `body_text` meant walking that chain for every candidate a
-- scope filter looked at (measured: the lexical arm at 20,000 files went from ~20 ms to ~3 ms).
CREATE TABLE files (
  path            TEXT PRIMARY KEY,
  blob_sha        TEXT NOT NULL,
  content_hash    TEXT NOT NULL,
  memory_type     TEXT NOT NULL CHECK (memory_type IN (
                    'episodic','semantic','procedural','agent_insight',
                    'user_preference','error_pattern','verdict','precedent','arc','task')),
  para            TEXT NOT NULL CHECK (para IN ('projects','areas','resources','archive')),
  workspace       TEXT,
  archived        INTEGER NOT NULL DEFAULT 0 CHECK (archived IN (0,1)),
  confidence      REAL    NOT NULL DEFAULT 1.0 CHECK (confidence BETWEEN 0 AND 1),
  importance      INTEGER NOT NULL DEFAULT 5 CHECK (importance BETWEEN 1 AND 10),
  origin_path     TEXT,
  word_count      INTEGER NOT NULL DEFAULT 0,
  created_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL,
  -- When the remembered fact happened (the article's first <time datetime>), compared as TEXT.
  event_at        TEXT,
  archived_at     TEXT,
  valid_from      TEXT,
  valid_until     TEXT,
  reprieves       INTEGER NOT NULL DEFAULT 0 CHECK (reprieves >= 0),
  needs_revision  INTEGER NOT NULL DEFAULT 0 CHECK (needs_revision IN (0,1)),
  author          TEXT NOT NULL DEFAULT 'agent',
  session_id      TEXT,
  prompt_id       TEXT,
  turn_uuid       TEXT,
  indexed_at      TEXT NOT NULL,
  task_status     TEXT CHECK (task_status IN ('todo','doing','blocked','done')),
  due_at          TEXT,
  frame_key       TEXT,
  title           TEXT NOT NULL,
  gist            TEXT NOT NULL DEFAULT '',
  -- What a recall pack may quote: the claim, <summary> lines, facets, citations. Never <details>
  -- bodies or <aside> caveats.
  disclosure_text TEXT NOT NULL DEFAULT '',
  body_text       TEXT NOT NULL,
  -- title, gist and body joined by newlines: the one column files_fts covers.
  fts_text        TEXT NOT NULL DEFAULT ''
);

-- Not unique (see above); it serves the duplicate-body report and the dedup lookup.
CREATE INDEX files_content_hash  ON files (content_hash);
CREATE INDEX files_type_active   ON files (memory_type) WHERE archived = 0;
CREATE INDEX files_workspace     ON files (workspace)   WHERE archived = 0;
CREATE INDEX files_para          ON files (para);
CREATE INDEX files_updated       ON files (updated_at)  WHERE archived = 0;
CREATE INDEX files_event         ON files (event_at)    WHERE event_at IS NOT NULL;
CREATE INDEX files_session       ON files (session_id)  WHERE session_id IS NOT NULL;
CREATE INDEX files_ttl           ON files (valid_until) WHERE valid_until IS NOT NULL AND archived = 0;
CREATE INDEX files_blob          ON files (blob_sha);
CREATE INDEX files_task_status   ON files (task_status) WHERE memory_type = 'task' AND archived = 0;
CREATE INDEX files_frame_key_active ON files (frame_key) WHERE frame_key IS NOT NULL AND archived = 0;
-- The recency arm reads coalesce(event_at, updated_at) DESC over the whole scope; the salience
-- arm reads the most recently updated files that have no state row (index/retrieval_sql.py).
CREATE INDEX files_recency       ON files (coalesce(event_at, updated_at) DESC, path);
CREATE INDEX files_salience_age  ON files (unixepoch(updated_at) DESC, path);

-- Open vocabulary; tags broaden (any-of).
CREATE TABLE file_tags (
  path TEXT NOT NULL REFERENCES files (path) ON DELETE CASCADE ON UPDATE CASCADE,
  tag  TEXT NOT NULL,
  PRIMARY KEY (path, tag)
);
CREATE INDEX file_tags_tag ON file_tags (tag);

-- `type:name` references split at the first colon, plus concept: (<dfn>) and lang: (<code data-lang>).
CREATE TABLE file_entities (
  path        TEXT NOT NULL REFERENCES files (path) ON DELETE CASCADE ON UPDATE CASCADE,
  entity_type TEXT NOT NULL,
  entity_name TEXT NOT NULL,
  PRIMARY KEY (path, entity_type, entity_name)
);
CREATE INDEX file_entities_name ON file_entities (entity_type, entity_name);
-- The entity scope compares the rebuilt `type:name` with case folded on both sides. memhtml_fold
-- is a deterministic function every connection of this app registers (index/db.py).
CREATE INDEX file_entities_ref ON file_entities (memhtml_fold(entity_type || ':' || entity_name));

-- <dt>/<dd> pairs. numeric_value is UNITLESS: the unit lives in the prose beside the <data value>.
CREATE TABLE file_facets (
  path          TEXT NOT NULL REFERENCES files (path) ON DELETE CASCADE ON UPDATE CASCADE,
  name          TEXT NOT NULL,
  value         TEXT NOT NULL,
  numeric_value REAL,
  PRIMARY KEY (path, name, value)
);
CREATE INDEX file_facets_name ON file_facets (name, value);

-- <cite> and <q cite>; href is any URI, deliberately unconstrained.
CREATE TABLE file_citations (
  path TEXT NOT NULL REFERENCES files (path) ON DELETE CASCADE ON UPDATE CASCADE,
  text TEXT NOT NULL,
  href TEXT,
  PRIMARY KEY (path, text)
);
