-- Chunks and their vectors key on content, not on path: a move reuses the vector with no embedder
-- call, and an identical body anywhere in the tree is embedded once.

CREATE TABLE chunks (
  -- sha256_hex(content_hash || ':' || ordinal), content_hash keeping its 'sha256:' prefix.
  chunk_id     TEXT PRIMARY KEY,
  path         TEXT NOT NULL REFERENCES files (path) ON DELETE CASCADE ON UPDATE CASCADE,
  content_hash TEXT NOT NULL,
  ordinal      INTEGER NOT NULL CHECK (ordinal >= 0),
  text         TEXT NOT NULL,
  -- UTF-16 code units, as memhtml counts them.
  char_count   INTEGER NOT NULL
);
CREATE INDEX chunks_path ON chunks (path);
CREATE INDEX chunks_hash ON chunks (content_hash);
CREATE UNIQUE INDEX chunks_hash_ord ON chunks (content_hash, ordinal);

CREATE TABLE embeddings (
  chunk_id   TEXT PRIMARY KEY REFERENCES chunks (chunk_id) ON DELETE CASCADE,
  -- The vector space as `<model-id>@<dim>`: a model id alone does not name a space.
  model      TEXT NOT NULL,
  dim        INTEGER NOT NULL CHECK (dim > 0),
  -- float32 little-endian; sqlite-vec's vec_distance_cosine reads it as is.
  vec        BLOB NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX embeddings_model ON embeddings (model);
