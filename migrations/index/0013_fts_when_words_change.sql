-- The two FTS tables' update triggers fire only when the words they hold change.
--
-- `AFTER UPDATE OF fts_text` fires whenever the column is named in the UPDATE, and the indexer's
-- upsert of a changed file names every column (index/writer.py): a memory re-read with the same
-- words (a new stamp, a byte outside the article, a file rewritten as it was) had its words taken
-- out of both FTS tables and put back, two tokenizations a table. Measured at 20,000 memories: the
-- upsert of 1,000 such rows, 177 ms of CPU with the old triggers and 67 ms with these
-- (bench/trigger_bench.py). Both tables hold external content over `files` (0003, 0009), keyed by
-- the rowid the upsert keeps, so when the words are the same there is nothing to delete or insert.
DROP TRIGGER files_fts_au;
CREATE TRIGGER files_fts_au AFTER UPDATE OF fts_text ON files
WHEN old.fts_text IS NOT new.fts_text BEGIN
  INSERT INTO files_fts (files_fts, rowid, fts_text) VALUES ('delete', old.rowid, old.fts_text);
  INSERT INTO files_fts (rowid, fts_text) VALUES (new.rowid, new.fts_text);
END;

DROP TRIGGER files_fts_stemmed_au;
CREATE TRIGGER files_fts_stemmed_au AFTER UPDATE OF title, gist, body_text ON files
WHEN old.title IS NOT new.title OR old.gist IS NOT new.gist OR old.body_text IS NOT new.body_text BEGIN
  INSERT INTO files_fts_stemmed (files_fts_stemmed, rowid, title, gist, body_text)
  VALUES ('delete', old.rowid, old.title, old.gist, old.body_text);
  INSERT INTO files_fts_stemmed (rowid, title, gist, body_text) VALUES (new.rowid, new.title, new.gist, new.body_text);
END;
