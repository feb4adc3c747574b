"""Which memories changed in the index since a cache was built: the change log (migration 0010).

The caches a search reads — the vector snapshot (index/vectors.py), the vector coverage count and
the salience bound list (index/salience.py) — each depend on every memory, and each was rebuilt
whole whenever `index_state.vectors_version` moved: after an archive click at 20,000 memories
that was 1.3 s of the list's next search, for the two files the click changed. Triggers on
`files`, `chunks` and `embeddings` log what each write touched, tagged with the version it was
written under; a cache built at version v asks `changed_files` for the file rowids touched since
and re-reads those rows only. Anything the log cannot vouch for (another index file, a version
older than the log's pruned start, more rows than `limit`) answers None: rebuild whole.

Read it inside the same read transaction as the rows being patched (the callers do), so the rows
and the log agree.
"""

from __future__ import annotations

from dataclasses import dataclass

import apsw
import numpy as np

#: Rows the log keeps (the newest versions); a cache older than the kept start is rebuilt whole.
KEEP_ROWS = 20000
#: A change touching more log rows than this is followed by a rebuild, which is then the cheaper.
PATCH_LIMIT = 4000


@dataclass(frozen=True)
class IndexMark:
    """Which index file, at which version, and the oldest version its change log covers."""

    version: int
    uid: str | None
    logged_from: int


def mark(conn: apsw.Connection) -> IndexMark:
    version, logged_from, uid = conn.execute(
        "SELECT vectors_version, changes_from, uid FROM index_state WHERE id = 1"
    ).fetchone()
    return IndexMark(int(version), uid, int(logged_from))


_CHANGED_SQL = """
WITH log AS (SELECT file_rowid, content_hash, chunk_id FROM index_changes WHERE version >= ?1)
SELECT file_rowid FROM log WHERE file_rowid IS NOT NULL
UNION
SELECT f.rowid FROM files f WHERE f.content_hash IN (SELECT content_hash FROM log WHERE content_hash IS NOT NULL)
UNION
SELECT f.rowid FROM chunks c JOIN files f ON f.content_hash = c.content_hash
WHERE c.chunk_id IN (SELECT chunk_id FROM log WHERE chunk_id IS NOT NULL)
"""


def changed_files(
    conn: apsw.Connection, built: IndexMark, now: IndexMark, limit: int = PATCH_LIMIT
) -> np.ndarray | None:
    """File rowids (ascending) whose rows may differ between a cache built at `built` and the index
    at `now`: deleted ones included (their rows are gone). None when the log cannot tell."""
    if built.uid is None or built.uid != now.uid or built.version < now.logged_from or built.version > now.version:
        return None
    if built.version == now.version:
        return np.zeros(0, dtype=np.int64)
    (count,) = conn.execute("SELECT count(*) FROM index_changes WHERE version >= ?", (built.version,)).fetchone()
    if count > limit:
        return None
    rowids = [row[0] for row in conn.execute(_CHANGED_SQL, (built.version,))]
    return np.unique(np.asarray(rowids, dtype=np.int64))


def prune(conn: apsw.Connection, keep_rows: int | None = None) -> None:
    """Drop the oldest versions beyond `keep_rows` rows (KEEP_ROWS; inside the writer's transaction)."""
    row = conn.execute(
        "SELECT version FROM index_changes ORDER BY version DESC LIMIT 1 OFFSET ?",
        (KEEP_ROWS if keep_rows is None else keep_rows,),
    ).fetchone()
    if row is None:
        return
    start = int(row[0]) + 1
    conn.execute("DELETE FROM index_changes WHERE version < ?", (start,))
    conn.execute("UPDATE index_state SET changes_from = max(changes_from, ?) WHERE id = 1", (start,))
