-- What changed in the index, version by version, so the caches a search reads (the vector
-- snapshot, the salience bound list, the vector coverage count: index/changes.py) follow a small
-- change by patching the rows it touched instead of re-reading every memory. Rebuilding them
-- after an archive click cost 1.3 s at 20,000 memories, each a walk over the wide rows of
-- files, chunks and embeddings.
--
-- Every row is tagged with `vectors_version` as it was when the row was written: a batch writes
-- its rows, then moves the version, in one transaction. A reader whose cache was built at version
-- v patches it with the rows tagged >= v. The writer prunes the oldest versions (Indexer._finish);
-- `changes_from` is the oldest version the log still covers in full, and a cache older than that,
-- or built on another index file (`uid`), is rebuilt whole.
--
--   file_rowid    a files row inserted, deleted, or changed in what the caches read
--   content_hash  the chunks of this content changed (every file carrying it is touched)
--   chunk_id      this chunk's vector changed
CREATE TABLE index_changes (
  version      INTEGER NOT NULL,
  file_rowid   INTEGER,
  content_hash TEXT,
  chunk_id     TEXT
);
CREATE INDEX index_changes_version ON index_changes (version);

ALTER TABLE index_state ADD COLUMN changes_from INTEGER NOT NULL DEFAULT 0;
ALTER TABLE index_state ADD COLUMN uid TEXT;
UPDATE index_state SET changes_from = vectors_version, uid = lower(hex(randomblob(8))) WHERE id = 1;

CREATE TRIGGER files_changes_ai AFTER INSERT ON files BEGIN
  INSERT INTO index_changes (version, file_rowid)
  VALUES ((SELECT vectors_version FROM index_state WHERE id = 1), new.rowid);
END;
CREATE TRIGGER files_changes_ad AFTER DELETE ON files BEGIN
  INSERT INTO index_changes (version, file_rowid)
  VALUES ((SELECT vectors_version FROM index_state WHERE id = 1), old.rowid);
END;
-- What the caches read of a files row: its path, content, archived flag, type and update stamp.
-- The write path upserts every column of a rewritten file; an unchanged row logs nothing.
CREATE TRIGGER files_changes_au AFTER UPDATE ON files
WHEN old.rowid IS NOT new.rowid OR old.path IS NOT new.path OR old.content_hash IS NOT new.content_hash
  OR old.archived IS NOT new.archived OR old.memory_type IS NOT new.memory_type
  OR old.updated_at IS NOT new.updated_at
BEGIN
  INSERT INTO index_changes (version, file_rowid)
  SELECT (SELECT vectors_version FROM index_state WHERE id = 1), value
  FROM (SELECT old.rowid AS value UNION SELECT new.rowid);
END;

CREATE TRIGGER chunks_changes_ai AFTER INSERT ON chunks BEGIN
  INSERT INTO index_changes (version, content_hash)
  VALUES ((SELECT vectors_version FROM index_state WHERE id = 1), new.content_hash);
END;
CREATE TRIGGER chunks_changes_ad AFTER DELETE ON chunks BEGIN
  INSERT INTO index_changes (version, content_hash)
  VALUES ((SELECT vectors_version FROM index_state WHERE id = 1), old.content_hash);
END;
-- A chunk's path follows its file (ON UPDATE CASCADE) and is not read by the caches.
CREATE TRIGGER chunks_changes_au AFTER UPDATE ON chunks
WHEN old.chunk_id IS NOT new.chunk_id OR old.content_hash IS NOT new.content_hash OR old.ordinal IS NOT new.ordinal
BEGIN
  INSERT INTO index_changes (version, content_hash)
  SELECT (SELECT vectors_version FROM index_state WHERE id = 1), value
  FROM (SELECT old.content_hash AS value UNION SELECT new.content_hash);
END;

CREATE TRIGGER embeddings_changes_ai AFTER INSERT ON embeddings BEGIN
  INSERT INTO index_changes (version, chunk_id)
  VALUES ((SELECT vectors_version FROM index_state WHERE id = 1), new.chunk_id);
END;
CREATE TRIGGER embeddings_changes_ad AFTER DELETE ON embeddings BEGIN
  INSERT INTO index_changes (version, chunk_id)
  VALUES ((SELECT vectors_version FROM index_state WHERE id = 1), old.chunk_id);
END;
CREATE TRIGGER embeddings_changes_au AFTER UPDATE ON embeddings
WHEN old.chunk_id IS NOT new.chunk_id OR old.model IS NOT new.model OR old.dim IS NOT new.dim OR old.vec IS NOT new.vec
BEGIN
  INSERT INTO index_changes (version, chunk_id)
  SELECT (SELECT vectors_version FROM index_state WHERE id = 1), value
  FROM (SELECT old.chunk_id AS value UNION SELECT new.chunk_id);
END;

-- Which chunks have a vector in which space, without reading the vectors: the probes of the
-- coverage count and of the indexer's search for chunks still lacking a vector walked the
-- embeddings table's rows (1.5 KB each) for two short columns.
CREATE INDEX embeddings_space ON embeddings (chunk_id, model, dim);
