"""What is read: the reads the state plane keeps, beside the memories the index holds.

The history chart (`history/activity.py`) asks here, so its SQL lives in `index/`. The state plane
keeps, per memory, how many times it was read and when it was last read (`state.access`), not a
log of every read: "reads per week" is therefore the number of memories whose LAST read fell in
that week, and "unread in 90 days" the active memories with no read since.
"""

from __future__ import annotations

import apsw

from memhtml_desktop.index.state import state_mode


def active_reads(conn: apsw.Connection) -> tuple[list[tuple[str, str | None, int]], bool]:
    """([(path, last read or None, read count)] for every active memory (not archived, not a
    task), whether a state plane was there to ask)."""
    if state_mode(conn) is None:
        rows = conn.execute("SELECT path, NULL, 0 FROM files WHERE archived = 0 AND memory_type <> 'task' "
                            "ORDER BY path").fetchall()  # fmt: skip
        return [(r[0], None, 0) for r in rows], False
    rows = conn.execute(
        "SELECT f.path, a.last_accessed_at, COALESCE(a.access_count, 0) FROM files AS f "
        "LEFT JOIN state.access AS a ON a.path = f.path "
        "WHERE f.archived = 0 AND f.memory_type <> 'task' ORDER BY f.path"
    ).fetchall()
    return [(r[0], r[1], int(r[2] or 0)) for r in rows], True


def last_reads(conn: apsw.Connection, since: str) -> list[tuple[str, str]]:
    """[(path, last read)] of every state row read at or after `since` (archived memories too)."""
    if state_mode(conn) is None:
        return []
    return [(r[0], r[1]) for r in conn.execute(
        "SELECT path, last_accessed_at FROM state.access WHERE last_accessed_at >= ? ORDER BY last_accessed_at",
        (since,))]  # fmt: skip
