"""The index plane's invariants: what must hold after any crash, any damage repaired, any run finished.

Each check is a query that must count zero, plus SQLite's own integrity checks (the database, the
foreign keys, and FTS5's `integrity-check` against its external content table).
"""

from __future__ import annotations

import apsw

# Each check is a query that must return 0. Chunks are keyed by content, so a file's chunks are the
# rows whose content_hash is the file's (two files with one body share them; `chunks.path` names
# whichever twin owns them).
CONSISTENCY_QUERIES = {
    "chunk without its file": "SELECT count(*) FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM files f WHERE f.path = c.path)",
    "chunk whose hash is not its file's": "SELECT count(*) FROM chunks c JOIN files f ON f.path = c.path WHERE f.content_hash <> c.content_hash",
    "file without its chunks (non-empty body)": "SELECT count(*) FROM files f WHERE trim(f.body_text) <> '' "
    "AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.content_hash = f.content_hash)",
    "embedding without a chunk": "SELECT count(*) FROM embeddings e WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.chunk_id = e.chunk_id)",
    "file without a sources row": "SELECT count(*) FROM files f WHERE NOT EXISTS "
    "(SELECT 1 FROM sources s WHERE s.path = f.path AND s.status = 'indexed')",
    "indexed sources row without its file": "SELECT count(*) FROM sources s WHERE s.status = 'indexed' "
    "AND NOT EXISTS (SELECT 1 FROM files f WHERE f.path = s.path)",
    "failed sources row without its problem": "SELECT count(*) FROM sources s WHERE s.status = 'failed' "
    "AND NOT EXISTS (SELECT 1 FROM problems p WHERE p.path = s.path AND p.kind IN ('invalid', 'unreadable'))",
    "problem without a sources row": "SELECT count(*) FROM problems p WHERE NOT EXISTS (SELECT 1 FROM sources s WHERE s.path = p.path)",
    "orphan FTS row (docsize without a file)": "SELECT count(*) FROM files_fts_docsize d WHERE NOT EXISTS (SELECT 1 FROM files f WHERE f.rowid = d.id)",
    "file missing from FTS (no docsize row)": "SELECT count(*) FROM files f WHERE NOT EXISTS (SELECT 1 FROM files_fts_docsize d WHERE d.id = f.rowid)",
    "child row without its file": "SELECT (SELECT count(*) FROM file_tags t WHERE NOT EXISTS (SELECT 1 FROM files f WHERE f.path = t.path))"
    " + (SELECT count(*) FROM file_entities t WHERE NOT EXISTS (SELECT 1 FROM files f WHERE f.path = t.path))"
    " + (SELECT count(*) FROM file_facets t WHERE NOT EXISTS (SELECT 1 FROM files f WHERE f.path = t.path))"
    " + (SELECT count(*) FROM file_citations t WHERE NOT EXISTS (SELECT 1 FROM files f WHERE f.path = t.path))",
    "index_state row missing": "SELECT 1 - count(*) FROM index_state WHERE id = 1",
}


def index_problems(conn: apsw.Connection, *, complete: bool = False, space: str | None = None) -> list[str]:
    """Every broken invariant of the index plane on `conn` (empty list: consistent).

    `complete` also demands what a finished run leaves: every chunk embedded in `space`.
    """
    found: list[str] = []
    try:
        rows = [r[0] for r in conn.execute("PRAGMA main.integrity_check")]
    except apsw.Error as exc:  # damage bad enough that the check itself cannot run
        rows = [f"{type(exc).__name__}: {exc}"]
    if rows != ["ok"]:
        found.append(f"integrity_check: {rows[:5]}")
        return found  # the rest would only echo the damage
    fk = conn.execute("PRAGMA main.foreign_key_check").fetchall()
    if fk:
        found.append(f"foreign_key_check: {len(fk)} rows, first {fk[:3]}")
    try:
        # rank = 1: also compare the FTS index with its external content table (files.fts_text).
        conn.execute("INSERT INTO files_fts(files_fts, rank) VALUES ('integrity-check', 1)")
    except apsw.Error as exc:
        found.append(f"files_fts integrity-check: {type(exc).__name__}: {exc}")
    (fts_docs,) = conn.execute("SELECT count(*) FROM files_fts_docsize").fetchone()
    (files,) = conn.execute("SELECT count(*) FROM files").fetchone()
    if fts_docs != files:
        found.append(f"FTS holds {fts_docs} documents for {files} files")
    for name, sql in CONSISTENCY_QUERIES.items():
        (count,) = conn.execute(sql).fetchone()
        if count:
            found.append(f"{name}: {count}")
    if complete:
        (missing,) = conn.execute(
            "SELECT count(*) FROM chunks c LEFT JOIN embeddings e ON e.chunk_id = c.chunk_id "
            "WHERE e.chunk_id IS NULL OR e.model <> ?",
            (space,),
        ).fetchone()
        if missing:
            found.append(f"chunks without a vector in {space}: {missing}")
    return found


def path_hashes(conn: apsw.Connection) -> set[tuple[str, str]]:
    return set(conn.execute("SELECT path, content_hash FROM files"))


def failed_paths(conn: apsw.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT path FROM sources WHERE status = 'failed'")}
