"""The salience arm's candidates, kept between state changes instead of found on every query.

The salience arm does not read the query: its score is memhtml's
`exp(-0.01 * hours since the last access) + ln(1 + access count) + max(outcome, 0)`, a function of
the state plane, the index and the clock. Scoring every accessed memory to find the top 40 cost
50-100 ms a search on a 20,000-memory store whose state plane holds reads of 60% of it (the fused
statement's CTE alone), so this module keeps, per index, a **bound list** and hands the statement
only the few memories that can be in the top, as the vector arm hands it its nearest files (`?5`,
a carray of file rowids; retrieval_sql.SALIENCE_BOUND_CTE scores them exactly, at the query's now).

The list is exact, not approximate. Built at instant `t0` for the next `HORIZON_S` seconds, it
holds every eligible memory (not a task, not under resources/people/) with two scores: its score
at `t0` (**upper**: the decay term only falls as time passes) and at `t0 + HORIZON_S` (**lower**).
For a query at any instant in between and a scope, let L be the window-th largest lower bound among
the in-scope memories: at least `window` of them score at least L at that instant, so a memory
whose upper bound is below L cannot reach the top `window`. The candidates are the in-scope memories
with upper >= L (all of them when fewer than `window` are in scope); the statement scores and cuts
them exactly as the full scan would. Finding them walks the list in upper order and widens, like
the vector arm's candidate list, until the window is in scope and the next upper bound is below L.

The list is rebuilt when anything it depends on may have moved:
- the index (`index_state.vectors_version`, which every index write moves);
- the state plane: the state file's change counter, size and times (and its WAL's), read before
  the rows are, so a change racing the build only makes the next query build again; and this
  process's own writes to it (`note_state_change`, from reinforce, import, row moves);
- the clock leaving `[t0, t0 + HORIZON_S]` (an hour; a pinned clock never leaves it).
"""

from __future__ import annotations

import math
import os
import threading
from dataclasses import dataclass

import apsw
import numpy as np

from memhtml_desktop.index.scope import ScopeSql

#: How long one bound list holds (seconds). Longer: fewer rebuilds, a wider band between the bounds.
HORIZON_S = 3600
#: Rounding slack on the bounds (SQLite's exp and numpy's may differ in the last place).
SLACK = 1e-9

_ELIGIBLE = "f.memory_type <> 'task' AND f.path NOT LIKE 'resources/people/%'"
# The score's parts that do not move with the clock, and the instant its decay counts from.
_ROWS_SQL = f"""SELECT f.rowid, unixepoch(coalesce(a.last_accessed_at, f.updated_at)),
       ln(1 + coalesce(a.access_count, 0)) + max(coalesce(a.outcome_score, 0.0), 0.0)
FROM files f LEFT JOIN state.access a ON a.path = f.path
WHERE {_ELIGIBLE}"""

_generation = 0
_generation_lock = threading.Lock()


def note_state_change() -> None:
    """This process wrote the state plane (a read counted, a judgement, an import, a row moved):
    every bound list is rebuilt before its next use."""
    global _generation
    with _generation_lock:
        _generation += 1


def _file_mark(path: str) -> tuple:
    """The file's identity, size and times, by `stat` only. Never open the file: closing any
    descriptor of a database file drops every POSIX lock this process holds on it, SQLite's
    included, and a concurrent writer then corrupts it (reading the header's change counter with
    `open()` did: "database disk image is malformed" beside memhtml's bumps)."""
    try:
        st = os.stat(path)
    except OSError:
        return (None,)
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _note_other_writers(conn: apsw.Connection) -> None:
    """SQLite's own word on whether anyone else committed to the state plane since this
    connection last asked (`PRAGMA data_version` moves on every commit by another connection); a
    connection asked for the first time counts as news, so a list built on another thread's
    connection is never trusted across a commit this one cannot vouch for."""
    try:
        (version,) = conn.execute("PRAGMA state.data_version").fetchone()
    except apsw.Error:
        note_state_change()
        return
    if getattr(conn, "_state_data_version", None) != version:
        note_state_change()
        try:
            conn._state_data_version = version  # type: ignore[attr-defined]
        except AttributeError:
            pass  # a plain apsw connection: every call counts as news (correct, only slower)


def state_mark(conn: apsw.Connection) -> tuple:
    """What changes whenever the attached state plane is written (by anyone)."""
    try:
        path = conn.db_filename("state")
    except (apsw.Error, TypeError):
        path = ""
    if not path:
        return ("no-state",)
    _note_other_writers(conn)
    return (path, _generation, _file_mark(path), _file_mark(path + "-wal"))


@dataclass(frozen=True)
class Bounds:
    """One bound list: eligible memories by upper bound, valid for `t0 <= now <= t1`."""

    mark: tuple
    t0: int
    t1: int
    rowids: np.ndarray  # int64, by upper bound descending
    upper: np.ndarray  # float64
    lower: np.ndarray  # float64

    def valid_at(self, now: int) -> bool:
        return self.t0 <= now <= self.t1 - 60  # a minute's margin: the statement reads the clock again


def _widened(scores: np.ndarray, sign: float) -> np.ndarray:
    """Scores moved outward by the rounding slack (an infinite score, a far-future access, stays)."""
    finite = np.isfinite(scores)
    out = scores.copy()
    out[finite] += sign * (np.abs(scores[finite]) * SLACK + SLACK)
    return out


def build(conn: apsw.Connection, mark: tuple, now: int) -> Bounds:
    rows = conn.execute(_ROWS_SQL).fetchall()
    t1 = now + HORIZON_S
    if not rows:
        empty = np.zeros(0)
        return Bounds(mark, now, t1, np.zeros(0, dtype=np.int64), empty, empty)
    rowids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    since = np.fromiter((math.nan if r[1] is None else r[1] for r in rows), dtype=np.float64, count=len(rows))
    base = np.fromiter((r[2] for r in rows), dtype=np.float64, count=len(rows))
    with np.errstate(over="ignore", invalid="ignore"):
        upper = _widened(np.nan_to_num(np.exp(-0.01 * ((now - since) / 3600.0)), nan=0.0, posinf=np.inf) + base, 1.0)
        lower = _widened(np.nan_to_num(np.exp(-0.01 * ((t1 - since) / 3600.0)), nan=0.0, posinf=np.inf) + base, -1.0)
    order = np.argsort(-upper, kind="stable")
    return Bounds(mark, now, t1, rowids[order], upper[order], lower[order])


class SalienceCache:
    """Process-wide bound lists, one per index file; shared by every reader thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._bounds: dict[str, Bounds] = {}

    def bounds(self, conn: apsw.Connection, key: str, version: int) -> tuple[Bounds, int]:
        """The current bound list for this index (built on this connection when stale) and now."""
        mark = (version, state_mark(conn))  # read before the rows: a racing write only rebuilds again
        (now,) = conn.execute("SELECT unixepoch(memhtml_now())").fetchone()
        now = int(now)
        with self._lock:
            current = self._bounds.get(key)
            if current is not None and current.mark == mark and current.valid_at(now):
                return current, now
        fresh = build(conn, mark, now)
        with self._lock:
            self._bounds[key] = fresh
        return fresh, now

    def candidates(self, conn: apsw.Connection, key: str, version: int, window: int, scope_sql: ScopeSql) -> np.ndarray:
        """File rowids that can be among the top `window` in scope (see the module docstring)."""
        bounds, _ = self.bounds(conn, key, version)
        total = int(bounds.rowids.shape[0])
        if total == 0 or window <= 0:
            return np.array([-1], dtype=np.int64)
        top = min(total, max(window * 4, 64))
        while True:
            in_scope = self._in_scope(conn, bounds.rowids[:top], scope_sql)
            lowers = bounds.lower[:top][in_scope]
            if lowers.shape[0] >= window:
                floor = float(np.partition(lowers, lowers.shape[0] - window)[lowers.shape[0] - window])
                if top >= total or bounds.upper[top] < floor:
                    keep = in_scope & (bounds.upper[:top] >= floor)
                    return np.ascontiguousarray(bounds.rowids[:top][keep])
            elif top >= total:
                picked = bounds.rowids[:top][in_scope]
                return np.ascontiguousarray(picked) if picked.shape[0] else np.array([-1], dtype=np.int64)
            top = min(total, top * 8)

    @staticmethod
    def _in_scope(conn: apsw.Connection, rowids: np.ndarray, scope_sql: ScopeSql) -> np.ndarray:
        """Which of `rowids` the scope keeps (a mask aligned with them)."""
        from memhtml_desktop.index.retrieval_sql import bind_params

        if not scope_sql.filter:
            return np.ones(rowids.shape[0], dtype=bool)
        sql = f"SELECT f.rowid FROM carray(?5) v JOIN files f ON f.rowid = v.value WHERE 1 = 1{scope_sql.for_alias('f')}"
        binding = apsw.carray(np.ascontiguousarray(rowids, dtype=np.int64))
        kept = {r[0] for r in conn.execute(sql, bind_params(sql, (None, None, None, None, binding), scope_sql.params))}
        return np.fromiter((int(r) in kept for r in rowids), dtype=bool, count=rowids.shape[0])

    def clear(self) -> None:
        with self._lock:
            self._bounds.clear()


SALIENCE = SalienceCache()
