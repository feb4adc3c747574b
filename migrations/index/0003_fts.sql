-- The lexical index: FTS5 over ONE column, external-content over files.fts_text, so it stores no
-- copy of the text and rowid is the only way back to the path. Three triggers keep it in step;
-- the update trigger fires only when fts_text itself changes, so a rename (UPDATE path) costs
-- nothing here.
--
-- Hazard: files has a TEXT primary key, so its rowid is implicit and VACUUM may renumber it. Never
-- VACUUM this database without `INSERT INTO files_fts(files_fts) VALUES ('rebuild')` afterwards.

CREATE VIRTUAL TABLE files_fts USING fts5(fts_text, content='files', content_rowid='rowid');

CREATE TRIGGER files_fts_ai AFTER INSERT ON files BEGIN
  INSERT INTO files_fts (rowid, fts_text) VALUES (new.rowid, new.fts_text);
END;

CREATE TRIGGER files_fts_ad AFTER DELETE ON files BEGIN
  INSERT INTO files_fts (files_fts, rowid, fts_text) VALUES ('delete', old.rowid, old.fts_text);
END;

CREATE TRIGGER files_fts_au AFTER UPDATE OF fts_text ON files BEGIN
  INSERT INTO files_fts (files_fts, rowid, fts_text) VALUES ('delete', old.rowid, old.fts_text);
  INSERT INTO files_fts (rowid, fts_text) VALUES (new.rowid, new.fts_text);
END;
