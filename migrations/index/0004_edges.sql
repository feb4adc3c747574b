-- The authored graph from <link rel="memhtml-*">. No foreign keys: a link may point at a file not
-- indexed yet, or into archive/, and dangling is reported rather than refused.

CREATE TABLE edges (
  src_path     TEXT NOT NULL,
  rel          TEXT NOT NULL,
  dst_path     TEXT NOT NULL,
  edge_class   TEXT NOT NULL DEFAULT 'memory'
               CHECK (edge_class IN ('memory','person','provenance','task')),
  derived      INTEGER NOT NULL DEFAULT 0 CHECK (derived IN (0,1)),
  strength     REAL NOT NULL DEFAULT 1.0 CHECK (strength BETWEEN 0 AND 1),
  provenance   TEXT NOT NULL DEFAULT 'authored'
               CHECK (provenance IN ('authored','sleep','import')),
  sleep_run    TEXT,
  src_hash     TEXT,
  dst_hash     TEXT,
  created_at   TEXT NOT NULL,
  PRIMARY KEY (src_path, rel, dst_path),
  CHECK (src_path <> dst_path),
  CHECK (edge_class <> 'memory' OR rel IN (
    'supersedes','contradicts','caused_by','leads_to','part_of',
    'relates_to','example_of','supports','laterally_related')),
  CHECK (edge_class <> 'person'  OR rel IN ('about_person','authored_by')),
  CHECK (edge_class <> 'provenance' OR rel IN ('from_session')),
  CHECK (edge_class <> 'task' OR rel IN ('blocks','subtask_of')),
  CHECK (derived = 0 OR provenance = 'sleep')
);
CREATE INDEX edges_src ON edges (src_path, edge_class) WHERE derived = 0;
CREATE INDEX edges_dst ON edges (dst_path, edge_class) WHERE derived = 0;
CREATE INDEX edges_rel ON edges (rel, edge_class);
CREATE INDEX edges_derived ON edges (derived, rel);
