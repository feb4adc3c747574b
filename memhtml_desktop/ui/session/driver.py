"""The session's Qt side: the debounce timer and the search job for every ask.

`SearchSession` says what is asked; the driver decides when to run it (typing waits for
`debounce_ms` of quiet, everything else searches now), runs `SearchJob` on the runner (a newer
search replaces the older one, so "drai" never lands after "drain"), and re-runs it when a
StoreChange says what a search sees has moved. The list keeps its last answer until the next one
arrives. Panes listen to `answered` (the results and the pool chart, the search bar's form, the
filter counts, the recall pane's shapes); `asked` says a search started.

One search, one `Answer` (domain/results.py): the page, the fused pool behind it (the fused list
deeper than the page and the totals, "10 of 1,284 matching") and the query parsed once, from one
run of the pipeline, emitted once by `answered`. Every search is numbered (`generation`): an
answer older than the one shown is dropped here, whatever path it came by. `deepen(depth)` asks
for a deeper pool for the answer shown (`PoolJob`, "show more") and emits `deepened` with that
answer, its pool deeper (not a new search: the list keeps its rows and its current row). A new ask
starts at the pool's own depth again; a re-run of the same ask (the store changed) keeps the depth
the person paged to.
"""

from __future__ import annotations

import time
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from memhtml_desktop.domain.ranking import DEFAULT
from memhtml_desktop.domain.results import Answer
from memhtml_desktop.ops.changes import StoreChange
from memhtml_desktop.ops.jobs import PoolJob, SearchJob
from memhtml_desktop.ui.session.runner import Runner
from memhtml_desktop.ui.session.search import SearchSession

INDEXING_REFRESH_S = 1.0
"""While a first index runs and the list is still empty, re-run the search after this long, so hits
appear as soon as files are committed (once there are some, the list waits for the batch's end)."""

INDEXING_REFRESH_MAX_S = 4.0
"""Each of those searches that still finds nothing doubles the wait before the next, up to this: a
first index the machine starves (two busy processes beside it, 20,000 memories: 11 minutes) asked
for a search, a spinner and a repaint every second, and one of them, waiting for a core, was the
window's one gap over 50 ms in a traced round (docs/architecture.md, "How a file change reaches
the screen"). A new pass starts again at INDEXING_REFRESH_S."""


class SessionDriver(QObject):
    """Runs the session's searches (see the module docstring)."""

    asked = Signal(object)  # Ask: a refresh started
    answered = Signal(object)  # Answer: one search's whole answer, now listed (once per search)
    deepened = Signal(object)  # Answer: the answer listed, with a deeper pool (show more)
    search_failed = Signal(str)
    indexing_refreshed = Signal()  # a quick refresh while a first index runs (the counts follow it)
    indexing = Signal(object)  # (files indexed, files found) of the index pass running now, or None

    def __init__(self, session: SearchSession, runner: Runner, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.runner = runner
        self.answer: Answer | None = None
        self.generation = 0  # searches asked so far; an answer older than the one shown is dropped
        self.dropped = 0  # answers dropped as older than the one shown (tests read this)
        self.depth = 0  # how deep the person paged into the pool (0: the pool itself)
        self._asked: tuple | None = None  # (query, scope, limit) of the last ask
        self.counts_wanted = True  # False for the quick refreshes of a first index
        self._last_refresh = 0.0
        self._indexing_wait = INDEXING_REFRESH_S  # the wait before the next empty-list refresh
        self.clock = time.monotonic  # tests step it
        self._figures: tuple[int, int] | None = None  # the last `indexing` figures sent
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
        self._last_refresh = self.clock()
        self.counts_wanted = counts
        ask = self.session.ask()
        key = (ask.query, ask.scope, ask.limit)
        if key != self._asked:
            self.depth = 0
        self._asked = key
        self.generation += 1
        self.runner.cancel("pool")  # a deeper pool of the answer this one replaces
        job = SearchJob(
            ask.query, ask.scope, ask.limit, self.pool_depth(ask.limit), self.generation, ranking=self.session.ranking
        )
        self.runner.run(job.success(self.show).failure(self.search_failed.emit))
        self.asked.emit(ask)

    def show(self, answer: Answer) -> None:
        """List `answer`, unless a newer search's answer is listed already."""
        if self.answer is not None and answer.generation < self.answer.generation:
            self.dropped += 1
            return
        self.answer = answer
        self.answered.emit(answer)

    def pool_depth(self, limit: int | None = None) -> int:
        """The depth a pool is listed to: the pool the page was drawn from, or as deep as paged."""
        return max(self.depth, self._pool_size(self.session.limit if limit is None else limit))

    def _pool_size(self, limit: int) -> int:
        """The pool a page of `limit` is drawn from: `limit × pool_factor` of the active profile."""
        ranking = self.session.ranking or DEFAULT
        return ranking.pool_size(limit)

    def deepen(self, depth: int) -> None:
        """List the fused pool at least `depth` deep (show more); nothing when no answer is shown."""
        answer = self.answer
        if answer is None or answer.pool is None or depth <= self.pool_depth():
            return
        self.depth = depth
        job = PoolJob(
            answer.query, answer.scope, answer.limit, self.pool_depth(), answer.fts, ranking=self.session.ranking
        )
        self.runner.run(job.success(lambda pool, a=answer: self._deepened(a, pool)).failure(lambda msg: None))

    def _deepened(self, answer: Answer, pool: Any) -> None:
        if self.answer is not None and self.answer.generation == answer.generation:
            self.answer = self.answer.deeper(pool)
            self.deepened.emit(self.answer)

    def _query_changed(self, text: str, immediate: bool) -> None:
        if immediate:
            self.refresh()
        else:
            self.debounce.start()

    def _store_changed(self, change: StoreChange) -> None:
        if change.reopened or (change.content and not self.debounce.isActive()):
            self.refresh()

    def follow_indexing(self, status: Any) -> None:
        """A first index (the watcher busy, the list empty): show hits as soon as some are committed.
        Its figures go out on `indexing` with every status (the header follows them between searches)."""
        progress = status.progress if status.busy else None
        figures = (progress[1], progress[2]) if progress and progress[0] == "index" and progress[2] else None
        if figures != self._figures:
            self._figures = figures
            self.indexing.emit(figures)
        empty = self.answer is None or not self.answer.hits
        if not (status.busy and status.progress):
            self._indexing_wait = INDEXING_REFRESH_S  # the pass ended: the next one starts quick again
            return
        if not empty or self.pending() or self.clock() - self._last_refresh <= self._indexing_wait:
            return  # hits listed, a search on its way, or not yet time
        if self.answer is not None and self.answer.generation == self.generation:
            self._indexing_wait = min(self._indexing_wait * 2, INDEXING_REFRESH_MAX_S)  # the last came back empty
        self.refresh(counts=False)
        self.indexing_refreshed.emit()

    def stop(self) -> None:
        self.debounce.stop()
