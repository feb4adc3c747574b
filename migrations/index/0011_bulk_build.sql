-- A build from nothing writes its words a batch at a time instead of a row at a time.
--
-- FTS5 flushes its pending terms into a new segment whenever a statement opens a savepoint in the
-- transaction, and every INSERT into `files` (it fires triggers) and every executemany of child
-- rows does: a trigger-fed FTS table gained one segment per memory, and merging 20,000 one-row
-- segments was most of a cold index's writing (measured at 20,000 memories: the two FTS
-- triggers cost the writer 7.5 s; the same rows inserted in one statement per batch, 0.6 s).
--
-- `bulk` is set and cleared inside one transaction of the indexer's cold run (Indexer._apply), so
-- no other connection ever sees it set and a crash leaves it 0. While it is set, the insert
-- triggers below stand aside; the indexer then writes the batch's new rows to both FTS tables and
-- to the change log with one INSERT ... SELECT each.
ALTER TABLE index_state ADD COLUMN bulk INTEGER NOT NULL DEFAULT 0;

DROP TRIGGER files_fts_ai;
CREATE TRIGGER files_fts_ai AFTER INSERT ON files
WHEN (SELECT bulk FROM index_state WHERE id = 1) = 0 BEGIN
  INSERT INTO files_fts (rowid, fts_text) VALUES (new.rowid, new.fts_text);
END;

DROP TRIGGER files_fts_stemmed_ai;
CREATE TRIGGER files_fts_stemmed_ai AFTER INSERT ON files
WHEN (SELECT bulk FROM index_state WHERE id = 1) = 0 BEGIN
  INSERT INTO files_fts_stemmed (rowid, title, gist, body_text) VALUES (new.rowid, new.title, new.gist, new.body_text);
END;

DROP TRIGGER files_changes_ai;
CREATE TRIGGER files_changes_ai AFTER INSERT ON files
WHEN (SELECT bulk FROM index_state WHERE id = 1) = 0 BEGIN
  INSERT INTO index_changes (version, file_rowid)
  VALUES ((SELECT vectors_version FROM index_state WHERE id = 1), new.rowid);
END;

DROP TRIGGER chunks_changes_ai;
CREATE TRIGGER chunks_changes_ai AFTER INSERT ON chunks
WHEN (SELECT bulk FROM index_state WHERE id = 1) = 0 BEGIN
  INSERT INTO index_changes (version, content_hash)
  VALUES ((SELECT vectors_version FROM index_state WHERE id = 1), new.content_hash);
END;
