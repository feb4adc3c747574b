"""The session's Qt side: the debounce timer and the search job for every ask.

`SearchSession` says what is asked; the driver decides when to run it (typing waits for
`debounce_ms` of quiet, everything else searches now), runs `SearchJob` on the runner (a newer
search replaces the older one, so "drai" never lands after "drain"), and re-runs it when a
StoreChange says what a search sees has moved. The list keeps its last answer until the next one
arrives. Panes listen to `searched` (the results, the search bar's form, the filter counts) and
to `asked` (the recall pack follows the same ask).

Each search also lists the fused pool behind its page (the fused list deeper than the page and
the totals, "10 of 1,284 matching") from the same run of the pipeline (`SearchJob(depth=...)`),
and the driver emits `pooled` right after `searched`; the list's "show more" and fused order and
the pool chart follow it. `deepen(depth)` asks for a deeper pool for the same answer
(`PoolJob`). A new ask starts at the pool's own depth again; a re-run of the same ask (the store
changed) keeps the depth the person paged to.
"""

from __future__ import annotations

import time
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from memhtml_desktop.ops.changes import StoreChange
from memhtml_desktop.ops.jobs import PoolJob, SearchJob
from memhtml_desktop.ui.session.runner import Runner
from memhtml_desktop.ui.session.search import SearchSession

INDEXING_REFRESH_S = 1.0
"""While a first index runs and the list is still empty, re-run the search this often, so hits
appear as soon as files are committed (once there are some, the list waits for the batch's end)."""


class SessionDriver(QObject):
    """Runs the session's searches (see the module docstring)."""

    asked = Signal(object)  # Ask: a refresh started
    searched = Signal(object)  # SearchResult: the answer now listed
    pooled = Signal(object)  # FusedPool: the fused list behind the answer now listed
    search_failed = Signal(str)
    indexing_refreshed = Signal()  # a quick refresh while a first index runs (the counts follow it)

    def __init__(self, session: SearchSession, runner: Runner, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.runner = runner
        self.result: Any = None
        self.pool: Any = None
        self.depth = 0  # how deep the person paged into the pool (0: the pool itself)
        self._pool_key: tuple | None = None
        self.counts_wanted = True  # False for the quick refreshes of a first index
        self._last_refresh = 0.0
        self.debounce = QTimer(self)
        self.debounce.setSingleShot(True)
        self.debounce.setInterval(session.debounce_ms)
        self.debounce.timeout.connect(self.refresh)
        session.on("query", self._query_changed)
        for event in ("scope", "limit"):
            session.on(event, lambda *_: self.refresh())
        runner.events.changed.connect(self._store_changed)

    def set_debounce(self, ms: int) -> None:
        self.session.debounce_ms = max(0, int(ms))
        self.debounce.setInterval(self.session.debounce_ms)

    def pending(self) -> bool:
        """A search is waiting for the debounce or running."""
        return self.debounce.isActive() or self.runner.is_busy("search")

    def refresh(self, *, counts: bool = True) -> None:
        """Search for what the session asks now; the filter counts follow unless `counts` is False."""
        self.debounce.stop()
        self._last_refresh = time.monotonic()
        self.counts_wanted = counts
        ask = self.session.ask()
        key = (ask.query, ask.scope, ask.limit)
        depth = max(self.depth, self._pool_size(ask.limit)) if key == self._pool_key else self._pool_size(ask.limit)
        job = SearchJob(ask.query, ask.scope, ask.limit, depth)
        self.runner.run(job.success(lambda result, j=job: self._searched(result, j.fused)).failure(self.search_failed.emit))
        self.asked.emit(ask)

    def _searched(self, result: Any, pool: Any = None) -> None:
        self.result = result
        key = (result.query, result.scope, self.session.limit)
        if key != self._pool_key:
            self.depth, self.pool = 0, None
        self._pool_key = key
        self.searched.emit(result)
        if pool is not None and result.hits:
            self._pooled(pool)
        elif result.hits:
            self._run_pool()

    def pool_depth(self) -> int:
        """The depth a pool job asks for: the pool the page was drawn from, or as deep as paged."""
        return max(self.depth, self._pool_size(self.session.limit))

    def _pool_size(self, limit: int) -> int:
        """The pool a page of `limit` is drawn from: `limit × pool_factor` of the active profile."""
        ranking = self.session.ranking or getattr(self.runner.store, "ranking", None)
        return ranking.pool_size(limit) if ranking is not None else limit * 3
    def deepen(self, depth: int) -> None:
        """List the fused pool at least `depth` deep (show more); nothing when no answer is shown."""
        if self.result is None or not self.result.hits or depth <= self.pool_depth():
            return
        self.depth = depth
        self._run_pool()

    def _run_pool(self) -> None:
        result = self.result
        job = PoolJob(result.query, result.scope, self.session.limit, self.pool_depth())
        self.runner.run(job.success(self._pooled).failure(lambda msg: None))

    def _pooled(self, pool: Any) -> None:
        result = self.result
        if result is None or pool.query != result.query or pool.scope != result.scope:
            return  # the pool of an answer no longer listed
        self.pool = pool
        self.pooled.emit(pool)

    def _query_changed(self, text: str, immediate: bool) -> None:
        if immediate:
            self.refresh()
        else:
            self.debounce.start()

    def _store_changed(self, change: StoreChange) -> None:
        if change.reopened or (change.content and not self.debounce.isActive()):
            self.refresh()

    def follow_indexing(self, status: Any) -> None:
        """A first index (the watcher busy, the list empty): show hits as soon as some are committed."""
        empty = self.result is None or not self.result.hits
        if status.busy and status.progress and empty and not self.debounce.isActive() \
                and time.monotonic() - self._last_refresh > INDEXING_REFRESH_S:
            self.refresh(counts=False)
            self.indexing_refreshed.emit()

    def stop(self) -> None:
        self.debounce.stop()
