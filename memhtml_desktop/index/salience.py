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

The list is made again when anything it depends on may have moved, reading only what moved:
- the index (`index_state.vectors_version`, which every index write moves): the memories the
  change log names since the list's version are read again (index/changes.py), every memory only
  when the log cannot say (an archive click re-read all 20,000 for two, 0.29 s);
- the state plane: the state file's change counter, size and times (and its WAL's), read before
  the rows are, so a change racing the build only makes the next query build again; and this
  process's own writes to it (`note_state_change`, from reinforce, import, row moves): the access
  rows are read again (one narrow table, no join);
- the clock leaving `[t0, t0 + HORIZON_S]` (an hour; a pinned clock never leaves it): the bounds
  are computed again from the rows held.

A new process (each `memhtml-desktop search`) starts from two files kept beside the index instead
of reading every row: the index's half (`<index>.salience-updated`: eligible rowids and their update
instants, at an index mark) and the state plane's half (`<index>.salience-accessed`: each one's
decay start and base, at that index mark and at the state file's `stat` mark, and the bound list
made from them with its `t0`, which a process within that hour takes as it is). Reading the access
rows (60,000 at 100,000 memories, joined through the path index) was 60-70 ms of a fresh search, and
making the bound list (two `exp` and a sort of 80,000) another 10-15 ms.
The state half is only kept when state.db and its journal were last written `SETTLED_S` seconds
before their `stat` was read: a write after that gets a later mtime, so no two states of the file
ever share one mark (a write in the same clock tick as an earlier one could keep size and times).
"""

from __future__ import annotations

import logging
import math
import os
import threading
import time
from dataclasses import dataclass, replace

import apsw
import numpy as np

from memhtml_desktop.index import changes, vector_file
from memhtml_desktop.index.changes import IndexMark
from memhtml_desktop.index.scope import ScopeSql
from memhtml_desktop.index.scope_rows import ScopeRows

log = logging.getLogger(__name__)

#: How long one bound list holds (seconds). Longer: fewer rebuilds, a wider band between the bounds.
HORIZON_S = 3600
#: Rounding slack on the bounds, relative (SQLite's exp and numpy's may differ in the last place,
#: and the sum's order in the last few). Relative, not absolute: a memory last touched months ago
#: scores ~1e-12, and an absolute slack of that size tied every such memory with every other,
#: which made the whole store a candidate (18,331 of 18,752 on a generated store).
SLACK = 1e-9
#: The absolute part: only what keeps a zero score's bounds apart from a subnormal one's.
FLOOR = float(np.finfo(np.float64).tiny)

_ELIGIBLE = "f.memory_type <> 'task' AND f.path NOT LIKE 'resources/people/%'"
# The score's two halves, read apart: the index's (each eligible memory's update instant) and the
# state plane's (each access row's instant and the parts that do not move with the clock), joined
# as the statement's LEFT JOIN joins them: the decay counts from coalesce(last_accessed_at,
# updated_at), and a memory with no row adds ln(1) + 0. The access rows find their memory through
# the path index (no walk of the files table's wide rows).
_FILES_SQL = f"SELECT f.rowid, unixepoch(f.updated_at) FROM {{source}} WHERE {_ELIGIBLE} ORDER BY f.rowid"
_ACCESS_SQL = """SELECT f.rowid, a.last_accessed_at IS NULL, unixepoch(a.last_accessed_at),
       ln(1 + coalesce(a.access_count, 0)) + max(coalesce(a.outcome_score, 0.0), 0.0)
FROM {source}"""
_EVERY_ACCESS = "state.access a CROSS JOIN files f ON f.path = a.path"
_ACCESS_OF = "carray(?1) d CROSS JOIN files f ON f.rowid = d.value CROSS JOIN state.access a ON a.path = f.path"
_OF = "carray(?1) d CROSS JOIN files f ON f.rowid = d.value"

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


def _nan(value) -> float:
    return math.nan if value is None else float(value)


def _table(rows: list[tuple], width: int) -> np.ndarray:
    """Rows of numbers as one float array, NULL as nan. In one C call when no value is NULL (a
    Python generator per column was most of a fresh process's read at 100,000 memories); the
    rowids in it are exact (below 2**53)."""
    try:
        return np.array(rows, dtype=np.float64).reshape(-1, width)
    except (TypeError, ValueError):
        return np.array([[_nan(v) for v in row] for row in rows], dtype=np.float64).reshape(-1, width)


def _rowids(rowids: np.ndarray) -> apsw.carray:
    return apsw.carray(np.ascontiguousarray(rowids, dtype=np.int64))


@dataclass(frozen=True)
class Memories:
    """Every eligible memory (rowid ascending) with what its score is made of: `updated`
    (unixepoch(updated_at)), `since` (the instant its decay counts from) and `base` (the part that
    does not decay); nan where SQLite's unixepoch reads no instant. As of `index` and `state`."""

    index: IndexMark
    state: tuple
    rowids: np.ndarray
    updated: np.ndarray
    since: np.ndarray
    base: np.ndarray

    @classmethod
    def read(cls, conn: apsw.Connection, index: IndexMark, state: tuple) -> "Memories":
        table = _table(conn.execute(_FILES_SQL.format(source="files f")).fetchall(), 2)
        rowids, updated = table[:, 0].astype(np.int64), np.ascontiguousarray(table[:, 1])
        return cls(index, state, rowids, updated, updated, np.zeros(rowids.shape[0])).accessed(conn, state)

    def accessed(self, conn: apsw.Connection, state: tuple, rowids: np.ndarray | None = None) -> "Memories":
        """The access rows joined again: all of them, or those of `rowids` only (whose values here
        are still their memory's own)."""
        if rowids is None:
            since, base = self.updated.copy(), np.zeros(self.rowids.shape[0])
            rows = conn.execute(_ACCESS_SQL.format(source=_EVERY_ACCESS)).fetchall()
        else:
            since, base = self.since.copy(), self.base.copy()
            rows = (
                conn.execute(_ACCESS_SQL.format(source=_ACCESS_OF), (_rowids(rowids),)).fetchall()
                if rowids.shape[0]
                else []
            )
        if rows:
            table = _table(rows, 4)
            of = table[:, 0].astype(np.int64)
            at = np.minimum(np.searchsorted(self.rowids, of), max(self.rowids.shape[0] - 1, 0))
            ours = (self.rowids[at] == of) if self.rowids.shape[0] else np.zeros(len(rows), dtype=bool)
            timed = ours & (table[:, 1] == 0)
            since[at[timed]] = table[:, 2][timed]
            base[at[ours]] = table[:, 3][ours]
        return replace(self, state=state, since=since, base=base)

    def patched(self, conn: apsw.Connection, index: IndexMark, changed: np.ndarray) -> "Memories":
        """These memories with the `changed` ones read again (gone, added, renamed, retyped), with
        their access rows; the access rows of the others as they were (the state plane did not move)."""
        table = _table(conn.execute(_FILES_SQL.format(source=_OF), (_rowids(changed),)).fetchall(), 2)
        fresh_rowids, fresh_updated = table[:, 0].astype(np.int64), np.ascontiguousarray(table[:, 1])
        keep = ~np.isin(self.rowids, changed)
        kept = self.rowids[keep]
        fresh_at = np.searchsorted(kept, fresh_rowids) + np.arange(fresh_rowids.shape[0])
        kept_at = np.ones(kept.shape[0] + fresh_rowids.shape[0], dtype=bool)
        kept_at[fresh_at] = False
        arrays = []
        for old, new in ((self.rowids, fresh_rowids), (self.updated, fresh_updated), (self.since, fresh_updated),
                         (self.base, np.zeros(fresh_rowids.shape[0]))):  # fmt: skip
            out = np.empty(kept_at.shape[0], dtype=old.dtype)
            out[kept_at] = old[keep]
            out[fresh_at] = new
            arrays.append(out)
        merged = Memories(index, self.state, *arrays)
        return merged.accessed(conn, self.state, fresh_rowids)


def _widened(scores: np.ndarray, sign: float) -> np.ndarray:
    """Scores moved outward by the rounding slack (an infinite score, a far-future access, stays)."""
    finite = np.isfinite(scores)
    out = scores.copy()
    out[finite] += sign * (np.abs(scores[finite]) * SLACK + FLOOR)
    return out


def bound(memories: Memories, mark: tuple, now: int) -> Bounds:
    """The bound list of these memories at `now` (no SQL)."""
    t1 = now + HORIZON_S
    if not memories.rowids.shape[0]:
        empty = np.zeros(0)
        return Bounds(mark, now, t1, np.zeros(0, dtype=np.int64), empty, empty)
    since, base = memories.since, memories.base
    with np.errstate(over="ignore", invalid="ignore"):
        upper = _widened(np.nan_to_num(np.exp(-0.01 * ((now - since) / 3600.0)), nan=0.0, posinf=np.inf) + base, 1.0)
        lower = _widened(np.nan_to_num(np.exp(-0.01 * ((t1 - since) / 3600.0)), nan=0.0, posinf=np.inf) + base, -1.0)
    order = np.argsort(-upper, kind="stable")
    return Bounds(mark, now, t1, memories.rowids[order], upper[order], lower[order])


_FILE = "salience-updated"
_ACCESS_FILE = "salience-accessed"
#: The state half is kept beside the index only when state.db and its journal were last written
#: this long before their `stat` was read (see the module docstring; a file's times move in clock
#: ticks of a few ms, so any margin well above one tick would do).
SETTLED_S = 2.0
#: What `Memories.state` says of a list read from the file, before the access rows are applied.
_FROM_FILE = ("kept beside the index",)


def _from_file(conn: apsw.Connection) -> Memories | None:
    """The index's half of the list as the file beside the index keeps it (eligible rowids and
    their `unixepoch(updated_at)`, at the index mark it names), with no access row applied yet
    (its state mark matches no real one, so the access rows are read); None when there is no whole
    file of this index file (index/vector_file.py reads and checks it)."""
    index_file = conn.db_filename("main")
    got = vector_file.read(vector_file.beside(index_file, _FILE)) if index_file else None
    if got is None:
        return None
    head, arrays, _ = got
    try:
        if head.get("index") != vector_file.identity(index_file):
            return None
        mark = IndexMark(int(head["version"]), str(head["uid"]), int(head["logged_from"]))
        rowids, updated = arrays["rowids"], arrays["updated"]
    except (KeyError, TypeError, ValueError):
        return None
    if rowids.dtype.str != "<i8" or updated.dtype.str != "<f8" or rowids.shape != updated.shape or rowids.ndim != 1:
        return None
    if rowids.shape[0] and not bool(np.all(np.diff(rowids) > 0)):
        return None
    return Memories(mark, _FROM_FILE, rowids, updated, updated, np.zeros(rowids.shape[0]))


def _to_file(conn: apsw.Connection, memories: Memories) -> bool:
    """Keep the index's half of `memories` beside the index; False (logged) when it cannot be (a
    cache: a full disk costs the next process the read, never this search)."""
    index_file = conn.db_filename("main")
    if not index_file or memories.index.uid is None:
        return False
    head = {
        "index": vector_file.identity(index_file),
        "uid": memories.index.uid,
        "version": memories.index.version,
        "logged_from": memories.index.logged_from,
    }
    try:
        vector_file.write(
            vector_file.beside(index_file, _FILE),
            head,
            {"rowids": memories.rowids.astype("<i8"), "updated": memories.updated.astype("<f8")},
        )
    except (OSError, ValueError) as exc:
        log.info("the salience list's index half was not kept beside the index (%s)", exc)
        return False
    return True


def _state_key(conn: apsw.Connection) -> list | None:
    """The state plane's file as `stat` sees it (state.db and its rollback journal), or None when
    there is no state plane attached or it was written within `SETTLED_S` seconds (its mark could
    then be shared by a later write in the same clock tick): read before the access rows are."""
    try:
        path = conn.db_filename("state")
    except (apsw.Error, TypeError):
        return None
    if not path:
        return None
    marks = [_file_mark(path), _file_mark(path + "-journal"), _file_mark(path + "-wal")]
    newest = max((max(m[2], m[3]) for m in marks if m[0] is not None), default=None)  # mtime, ctime
    if newest is None or newest > time.time_ns() - int(SETTLED_S * 1e9):
        return None
    return [path, *(list(m) for m in marks)]


def _access_head(conn: apsw.Connection, memories: Memories, key: list) -> dict | None:
    index_file = conn.db_filename("main")
    if not index_file or memories.index.uid is None:
        return None
    return {
        "index": vector_file.identity(index_file),
        "uid": memories.index.uid,
        "version": memories.index.version,
        "logged_from": memories.index.logged_from,
        "state": key,
        "rows": int(memories.rowids.shape[0]),
    }


def _accessed_from_file(
    conn: apsw.Connection, memories: Memories, key: list | None
) -> tuple[Memories, tuple | None] | None:
    """`memories` (the index's half, at the index mark they name) with the state half as the file
    beside the index keeps it, when that file was made from this index at that mark and from the
    state file as `stat` sees it now, and the bound list kept with it, `(t0, rowids, upper, lower)`
    (None when the file has none); None otherwise (the access rows are read)."""
    if key is None:
        return None
    want = _access_head(conn, memories, key)
    got = vector_file.read(vector_file.beside(conn.db_filename("main"), _ACCESS_FILE)) if want else None
    if got is None:
        return None
    head, arrays, _ = got
    if any(head.get(name) != value for name, value in want.items()):
        return None
    shape = memories.rowids.shape
    if not _arrays_of(arrays, ("since", "base"), "<f8", shape):
        return None
    kept = replace(memories, since=np.array(arrays["since"]), base=np.array(arrays["base"]))
    bounds = None
    if isinstance(head.get("t0"), int) and _arrays_of(arrays, ("order",), "<i8", shape) \
            and _arrays_of(arrays, ("upper", "lower"), "<f8", shape):  # fmt: skip
        bounds = (head["t0"], np.array(arrays["order"]), np.array(arrays["upper"]), np.array(arrays["lower"]))
    return kept, bounds


def _arrays_of(arrays: dict, names: tuple[str, ...], dtype: str, shape: tuple) -> bool:
    return all(name in arrays and arrays[name].dtype.str == dtype and arrays[name].shape == shape for name in names)


def _accessed_to_file(conn: apsw.Connection, memories: Memories, key: list | None, bounds: Bounds) -> bool:
    """Keep the state half of `memories` beside the index (read from the state file `key` names),
    with its bound list (`bounds`, from these memories: a process within its hour takes it as it
    is); False when it cannot or should not be (a cache: see `_to_file`)."""
    head = _access_head(conn, memories, key) if key is not None else None
    if head is None:
        return False
    head["t0"] = int(bounds.t0)
    try:
        vector_file.write(
            vector_file.beside(conn.db_filename("main"), _ACCESS_FILE),
            head,
            {
                "since": memories.since.astype("<f8"),
                "base": memories.base.astype("<f8"),
                "order": bounds.rowids.astype("<i8"),
                "upper": bounds.upper.astype("<f8"),
                "lower": bounds.lower.astype("<f8"),
            },
        )
    except (OSError, ValueError) as exc:
        log.info("the salience list's state half was not kept beside the index (%s)", exc)
        return False
    return True


class SalienceCache:
    """Bound lists, one per index file; shared by every reader thread of the Store that keeps it
    (index/caches.py).

    An index change re-reads only the memories the change log names; a state change re-reads the
    access rows (one narrow table, joined through the path index); the clock leaving the list's
    hour re-reads nothing. `rebuilt` counts the reads of every memory (the tests watch it).
    """

    def __init__(self, *, beside_index: bool = True, scope_rows: ScopeRows | None = None) -> None:
        self._lock = threading.Lock()
        self._kept: dict[str, tuple[Memories, Bounds]] = {}
        #: The in-scope masks (the same Store's, so a scope read once serves both arms).
        self.scope_rows = scope_rows if scope_rows is not None else ScopeRows()
        self.rebuilt = 0
        #: Start from, and keep, the index's half of the list in a file beside the index (what each
        #: eligible memory's decay counts from without an access row: `_from_file`); a new process
        #: then reads the access rows only. `mapped`/`kept` count its uses (the tests read them).
        self.beside_index = beside_index
        self.mapped = 0
        self.kept = 0
        #: The same for the state half (`_accessed_from_file`).
        self.mapped_access = 0
        self.kept_access = 0

    def bounds(self, conn: apsw.Connection, key: str) -> tuple[Bounds, int]:
        """The current bound list for this index (brought up to date on this connection) and now."""
        with conn:  # the change log and the rows it names agree
            state = state_mark(conn)  # read before the rows: a racing write only rebuilds again
            index = changes.mark(conn)
            (now,) = conn.execute("SELECT unixepoch(memhtml_now())").fetchone()
            now = int(now)
            mark = (index.version, index.uid, state)
            with self._lock:
                memories, bounds = self._kept.get(key, (None, None))
            if bounds is not None and bounds.mark == mark and bounds.valid_at(now):
                return bounds, now
            first = memories is None and self.beside_index  # this process has none: the file's, or keep one
            new_process = first
            listed: Bounds | None = None  # the bound list kept beside the index, when valid now
            stat_key = _state_key(conn) if new_process else None  # before any access row is read
            read_access = True
            if first:
                memories = _from_file(conn)
                if memories is not None and memories.index.version == index.version and memories.index.uid == index.uid:
                    self.mapped += 1
                    first = False  # the file holds this index's half as it stands: nothing to write
            changed = changes.changed_files(conn, memories.index, index) if memories is not None else None
            if changed is None:
                memories = Memories.read(conn, index, state)
                self.rebuilt += 1
            else:
                if changed.shape[0]:
                    memories = memories.patched(conn, index, changed)
                memories = replace(memories, index=index)
                kept = _accessed_from_file(conn, memories, stat_key) if memories.state == _FROM_FILE else None
                if kept is not None:  # a new process: the state half as kept beside the index
                    memories = replace(kept[0], state=state)
                    self.mapped_access += 1
                    read_access = False
                    if kept[1] is not None:
                        t0, rowids, upper, lower = kept[1]
                        listed = Bounds(mark, t0, t0 + HORIZON_S, rowids, upper, lower)
                        listed = listed if listed.valid_at(now) else None
                elif memories.state != state:
                    memories = memories.accessed(conn, state)
                else:
                    read_access = False
            if first and _to_file(conn, memories):
                self.kept += 1
            fresh = listed if listed is not None else bound(memories, mark, now)
            if new_process and (read_access or listed is None) and _accessed_to_file(conn, memories, stat_key, fresh):
                self.kept_access += 1
        with self._lock:
            self._kept[key] = (memories, fresh)
        return fresh, now

    def candidates(self, conn: apsw.Connection, key: str, window: int, scope_sql: ScopeSql) -> np.ndarray:
        """File rowids that can be among the top `window` in scope (see the module docstring)."""
        bounds, _ = self.bounds(conn, key)
        total = int(bounds.rowids.shape[0])
        if total == 0 or window <= 0:
            return np.array([-1], dtype=np.int64)
        top = min(total, max(window * 4, 64))
        while True:
            in_scope = self._in_scope(conn, key, bounds.rowids[:top], scope_sql)
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

    def _in_scope(self, conn: apsw.Connection, key: str, rowids: np.ndarray, scope_sql: ScopeSql) -> np.ndarray:
        """Which of `rowids` the scope keeps (a mask aligned with them; index/scope_rows.py)."""
        return self.scope_rows.mask(conn, key, rowids, scope_sql)

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()
