"""Where one memory stands in a whole arm, for "why not this one?", without listing the arm.

The explanation gives, for each arm, how many memories the arm ranks in the scope and the one
memory's rank and raw signal with no candidate window (index/explain.py). Numbering every ranked row
with a window function and reading them all back cost 0.3 s at 20,000 memories and 2 s at 100,000
(four arms of 10,000-100,000 rows each, every one sorted). A rank is one plus the rows ordered before
the memory, so each arm here counts instead of sorting: the lexical arm's bm25 values and the vector
arm's distances as numpy arrays cut to the scope (`scope_rows`), recency's and salience's rows in
SQL compared with the memory's own key. The order is each arm's own (bm25 then path; distance then
path, as the snapshot ranks; time then path; score then path), so the rank is the statement's:
tests/index/test_arm_rank.py pins every arm against `retrieval_sql.build_arm_sql`'s whole list.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import apsw
import numpy as np

from memhtml_desktop.index.lexical_window import ranking_sql
from memhtml_desktop.index.retrieval_sql import bind_params, build_arm_rows_sql
from memhtml_desktop.index.scope import ScopeSql
from memhtml_desktop.index.scope_rows import ScopeRows


@dataclass(frozen=True)
class Standing:
    """How many the arm ranks, and the memory's 1-based rank and raw value (None, None: unranked)."""

    ranked: int
    rank: int | None = None
    raw: Any = None


def _rowid(conn: apsw.Connection, path: str) -> int | None:
    row = conn.execute("SELECT rowid FROM files WHERE path = ?1", (path,)).fetchone()
    return None if row is None else int(row[0])


def _kept(
    conn: apsw.Connection, key: str, rowids: np.ndarray, scope_sql: ScopeSql, scope_rows: ScopeRows | None = None
) -> np.ndarray:
    """Which of `rowids` are memories the scope keeps. A scope's rows come from `files`; a scope that
    filters nothing keeps every rowid `files` holds (the statements join `files`, so a row it lacks
    is never ranked)."""
    if scope_sql.filter:
        return (scope_rows or ScopeRows()).mask(conn, key, rowids, scope_sql)
    held = np.fromiter(
        (
            r[0]
            for r in conn.execute(
                "SELECT rowid FROM files WHERE rowid IN carray(?1)",
                (apsw.carray(np.ascontiguousarray(rowids, dtype=np.int64)),),
            )
        ),
        dtype=np.int64,
    )
    return np.isin(rowids, held)


def _before_by_path(conn: apsw.Connection, rowids: np.ndarray, path: str) -> int:
    """How many of `rowids` (tied with the memory) have a path sorting before `path`."""
    if not rowids.shape[0]:
        return 0
    (count,) = conn.execute(
        "SELECT count(*) FROM files WHERE rowid IN carray(?1) AND path < ?2",
        (apsw.carray(np.ascontiguousarray(rowids, dtype=np.int64)), path),
    ).fetchone()
    return int(count)


def lexical(
    conn: apsw.Connection,
    key: str,
    match: str,
    scope_sql: ScopeSql,
    path: str,
    *,
    lexical: str,
    field_weights: Sequence[float],
    scope_rows: ScopeRows | None = None,
) -> Standing:
    """The lexical arm: in-scope matches by (bm25 ascending, path); raw is the memory's bm25."""
    rows = conn.execute(ranking_sql(lexical, field_weights), (match, -1)).fetchall()
    rowids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    scores = np.fromiter((r[1] for r in rows), dtype=np.float64, count=len(rows))
    keep = _kept(conn, key, rowids, scope_sql, scope_rows) if rows else np.zeros(0, dtype=bool)
    rowids, scores = rowids[keep], scores[keep]
    me = _rowid(conn, path)
    at = np.flatnonzero(rowids == me) if me is not None else np.zeros(0, dtype=np.int64)
    if not at.shape[0]:
        return Standing(int(rowids.shape[0]))
    score = scores[at[0]]
    ties = rowids[(scores == score) & (rowids != me)]
    rank = 1 + int((scores < score).sum()) + _before_by_path(conn, ties, path)
    return Standing(int(rowids.shape[0]), rank, float(score))


def vector(
    conn: apsw.Connection,
    key: str,
    ranked: np.ndarray,
    scope_sql: ScopeSql,
    path: str,
    *,
    scope_rows: ScopeRows | None = None,
) -> Standing:
    """The vector arm (numpy snapshot): `ranked` is every file rowid by (distance, path), as the
    statement's carray lists them; raw is the memory's 1-based position in that list."""
    keep = _kept(conn, key, ranked, scope_sql, scope_rows) if ranked.shape[0] else np.zeros(0, dtype=bool)
    total = int(keep.sum())
    me = _rowid(conn, path)
    at = np.flatnonzero(ranked == me) if me is not None else np.zeros(0, dtype=np.int64)
    if not at.shape[0] or not keep[at[0]]:
        return Standing(total)
    position = int(at[0])
    return Standing(total, 1 + int(keep[:position].sum()), position + 1)


# The arm's rows in one statement (one clock reading, as the arm's own statement has), each with the
# key it is ordered by, and the raw value of the memory's row only.
_RECENCY_KEYS = "SELECT path, t, CASE WHEN path = ?{p} THEN t END FROM ({rows})"
_SALIENCE_KEYS = (
    "SELECT path, score, CASE WHEN path = ?{p} THEN json_array(decay, popularity, outcome, hours) END FROM ({rows})"
)


def prior(conn: apsw.Connection, arm: str, scope_sql: ScopeSql, path: str) -> Standing:
    """Recency (time descending, then path; raw the time it ranked by) or salience (score
    descending, then path; raw its json_array of decay, popularity, outcome, hours).

    Keys compare in Python as SQLite compares them: text by code point (UTF-8's byte order, the
    BINARY collation `files.path` and the times have), reals as reals.
    """
    rows_sql = build_arm_rows_sql(arm, scope_sql.filter)
    params = bind_params(rows_sql, (None, -1), scope_sql.params)  # as many as the rows' highest marker
    sql = (_RECENCY_KEYS if arm == "recency" else _SALIENCE_KEYS).format(rows=rows_sql, p=len(params) + 1)
    rows = conn.execute(sql, (*params, path)).fetchall()
    mine = next((row for row in rows if row[0] == path), None)
    if mine is None:
        return Standing(len(rows))
    key = mine[1]
    before = sum(1 for other, k, _ in rows if k > key or (k == key and other < path))
    return Standing(len(rows), 1 + before, mine[2])
