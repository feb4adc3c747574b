-- The default profile's lexical index: FTS5 with the porter stemmer over three columns (title, claim,
-- body), so "installing" meets "install" and bm25 can weigh a title match apart from a body match
-- (docs/ranking.md, "the lexical arm"). files_fts (0003) stays exactly memhtml's: one column,
-- unicode61, what the `memhtml` profile ranks with.
--
-- External content over files' own columns (title, gist, body_text), like files_fts: no copy of the
-- text. The triggers fire only when one of the three changes, so a rename costs nothing here. The
-- same VACUUM hazard as files_fts: rebuild both after renumbering rowids.

CREATE VIRTUAL TABLE files_fts_stemmed USING fts5(
  title, gist, body_text, content='files', content_rowid='rowid', tokenize='porter unicode61'
);

CREATE TRIGGER files_fts_stemmed_ai AFTER INSERT ON files BEGIN
  INSERT INTO files_fts_stemmed (rowid, title, gist, body_text) VALUES (new.rowid, new.title, new.gist, new.body_text);
END;

CREATE TRIGGER files_fts_stemmed_ad AFTER DELETE ON files BEGIN
  INSERT INTO files_fts_stemmed (files_fts_stemmed, rowid, title, gist, body_text)
  VALUES ('delete', old.rowid, old.title, old.gist, old.body_text);
END;

CREATE TRIGGER files_fts_stemmed_au AFTER UPDATE OF title, gist, body_text ON files BEGIN
  INSERT INTO files_fts_stemmed (files_fts_stemmed, rowid, title, gist, body_text)
  VALUES ('delete', old.rowid, old.title, old.gist, old.body_text);
  INSERT INTO files_fts_stemmed (rowid, title, gist, body_text) VALUES (new.rowid, new.title, new.gist, new.body_text);
END;

INSERT INTO files_fts_stemmed (files_fts_stemmed) VALUES ('rebuild');
