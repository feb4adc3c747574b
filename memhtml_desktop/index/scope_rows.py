"""The file rowids a scope keeps, per index and scope, kept between searches.

The vector and salience arms hand the fused statement a short list of candidate files and widen
it until enough of them are in scope. Asking SQLite which rowids the scope keeps, on every widening
of every search, cost 60-90 ms a search on a 20,000-memory store whose salience list ties over
thousands of memories (each widening joined a carray of up to 20,000 rowids to the files table's
wide rows). A scope's members do not depend on the query, only on the index and the scope
(`index/scope.py`: no clock, no state plane; `as_of` binds its instant), so this module keeps them,
as a sorted array per (index, scope), and follows an index change through the change log
(index/changes.py): only the rows it names are asked again, and the whole scope only when the log
cannot say. Membership is then a `numpy.isin` over the candidates.

A handful of scopes per index are kept (a person switches among a few filters), the least recently
used dropped first.

A process that asks about few files does not read the whole scope: until a scope has been asked
about `ASK_BUDGET` files in all, `mask` asks SQLite about those files alone (the same predicate over
a carray of them: the same answer). A command-line search asks about a few hundred, and reading the
default scope whole was 0.1-0.2 s of a fresh process at 100,000 memories; the window's searches
pass the budget within a few and keep the scope from then on.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import apsw
import numpy as np

from memhtml_desktop.index import changes
from memhtml_desktop.index.changes import IndexMark
from memhtml_desktop.index.retrieval_sql import bind_params
from memhtml_desktop.index.scope import ScopeSql

#: Scopes kept per process (over every index), least recently used dropped first.
KEEP = 16
#: Files a scope is asked about, in all, before it is read whole and kept (see the module docstring).
ASK_BUDGET = 5000

_ALL = "SELECT f.rowid FROM files f WHERE 1 = 1{where} ORDER BY f.rowid"
_SOME = "SELECT f.rowid FROM carray(?1) v JOIN files f ON f.rowid = v.value WHERE 1 = 1{where}"


def _same_index(a: IndexMark, b: IndexMark) -> bool:
    return a.version == b.version and a.uid == b.uid


class ScopeRows:
    """Sorted file rowids per (index key, scope), patched through the change log."""

    def __init__(self, keep: int = KEEP) -> None:
        self._lock = threading.Lock()
        self._kept: OrderedDict[tuple, tuple[IndexMark, np.ndarray]] = OrderedDict()
        self._keep = keep
        self._asked: dict[tuple, int] = {}  # files asked about per scope while none was kept
        self.rebuilt = 0  # whole reads of a scope (the tests watch it)
        self.asked = 0  # masks answered by asking about the files alone (the tests watch it)

    def rows(self, conn: apsw.Connection, key: str, scope_sql: ScopeSql) -> np.ndarray | None:
        """The rowids the scope keeps (ascending), or None when the scope filters nothing."""
        if not scope_sql.filter:
            return None
        ident = (key, scope_sql.filter, scope_sql.params)
        where = scope_sql.for_alias("f")
        with conn:  # the log and the rows it names agree
            index = changes.mark(conn)
            with self._lock:
                kept = self._kept.get(ident)
                if kept is not None:
                    self._kept.move_to_end(ident)
            if kept is not None and _same_index(kept[0], index):
                return kept[1]
            changed = changes.changed_files(conn, kept[0], index) if kept is not None else None
            if changed is None:
                sql = _ALL.format(where=where)
                fresh = self._read(conn, sql, bind_params(sql, (), scope_sql.params))
                self.rebuilt += 1
            elif changed.shape[0]:
                # the scope's own markers start at ?6; ?1 carries the changed rowids
                sql = _SOME.format(where=where)
                binding = apsw.carray(np.ascontiguousarray(changed, dtype=np.int64))
                again = self._read(conn, sql, bind_params(sql, (binding,), scope_sql.params))
                fresh = np.union1d(np.setdiff1d(kept[1], changed, assume_unique=True), again)
            else:
                fresh = kept[1]
        with self._lock:
            self._kept[ident] = (index, fresh)
            self._kept.move_to_end(ident)
            while len(self._kept) > self._keep:
                self._kept.popitem(last=False)
        return fresh

    @staticmethod
    def _read(conn: apsw.Connection, sql: str, params: tuple) -> np.ndarray:
        rows = np.fromiter((row[0] for row in conn.execute(sql, params)), dtype=np.int64)
        rows.sort()
        return rows

    def mask(self, conn: apsw.Connection, key: str, rowids: np.ndarray, scope_sql: ScopeSql) -> np.ndarray:
        """Which of `rowids` the scope keeps: a boolean mask aligned with them."""
        if scope_sql.filter and rowids.shape[0]:
            ident = (key, scope_sql.filter, scope_sql.params)
            with self._lock:
                kept = ident in self._kept
                asked = self._asked.get(ident, 0) + int(rowids.shape[0])
                if not kept:
                    self._asked[ident] = asked
            if not kept and asked <= ASK_BUDGET:
                self.asked += 1
                sql = _SOME.format(where=scope_sql.for_alias("f"))
                binding = apsw.carray(np.ascontiguousarray(rowids, dtype=np.int64))
                return _member(self._read(conn, sql, bind_params(sql, (binding,), scope_sql.params)), rowids)
        members = self.rows(conn, key, scope_sql)
        if members is None:
            return np.ones(rowids.shape[0], dtype=bool)
        return _member(members, rowids)

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()
            self._asked.clear()


def _member(members: np.ndarray, rowids: np.ndarray) -> np.ndarray:
    """Which of `rowids` are in `members` (sorted): a binary search per candidate (np.isin sorts both
    sides every call, and its first call imports numpy.ma: 15-30 ms of a command's start)."""
    if not members.shape[0]:
        return np.zeros(rowids.shape[0], dtype=bool)
    at = np.minimum(np.searchsorted(members, rowids), members.shape[0] - 1)
    return members[at] == rowids
