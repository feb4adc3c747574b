"""The filters pane's wiring: the two counts after every search, the store's values after a change.

"In scope" counts (`CountsJob("", scope)`) depend on the scope and the store, never on the words,
so they run when the scope changed, not on every keystroke; with the empty scope they are the
store's own values too (which fix the order of the rows). They cost a pass over every memory in
scope (about a second of a worker's time at 20,000 memories), so after the store changed they wait
until it has been quiet for RECOUNT_QUIET_MS: a burst of edits is counted once, after it. Only
while the pane has values to show: a store's first index changes the store batch after batch for
minutes, and its first values are counted with the first answer that has hits (one count at a
time), not after the pass. Counts asked before a change and answered after it are shown but not
taken as current: the store is counted again once it is quiet. "On page" counts
(`ListedCountsJob(paths)`) follow every answer: they are cheap, over ten paths or so. Both run
after the search, not beside it: the search is what a person waits for.
"""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import QObject, QTimer

from memhtml_desktop.domain.types import Scope
from memhtml_desktop.ops.changes import StoreChange
from memhtml_desktop.ops.jobs import CountsJob, ListedCountsJob, UniverseJob
from memhtml_desktop.ui.filters.filters_panel import FiltersPanel
from memhtml_desktop.ui.session.context import PaneContext
from memhtml_desktop.ui.session.driver import SessionDriver

log = logging.getLogger(__name__)

RECOUNT_QUIET_MS = 1500


def holds_memories(counts: Any) -> bool:
    """Whether counts found any memory (every memory has a type: no second flattening of them)."""
    return any(counts.types.values())


class FiltersController(QObject):
    def __init__(self, ctx: PaneContext, driver: SessionDriver, panel: FiltersPanel) -> None:
        super().__init__(panel)
        self.ctx, self.driver, self.panel = ctx, driver, panel
        self.universe_stale = True
        self.counted: Any = None  # the scope the in-scope counts shown were made for (None: stale)
        self.values_known = False  # the store's values are known to hold some (until then counts never wait)
        self.counting = False  # in-scope counts asked and not answered yet
        self.epoch = 0  # moves with every change of the store: counts asked before it are stale
        self.quiet = QTimer(self)  # runs while the store is changing: counts wait for it
        self.quiet.setSingleShot(True)
        self.quiet.setInterval(RECOUNT_QUIET_MS)
        self.quiet.timeout.connect(self._recount)
        panel.filter_toggled.connect(self._toggle)
        panel.include_archived_toggled.connect(lambda on: self._toggle("archived", "", on))
        ctx.session.on("scope", panel.set_scope)
        driver.answered.connect(self._searched)
        ctx.events.changed.connect(self._store_changed)

    def _toggle(self, axis: str, value: str, on: bool) -> None:
        try:
            self.ctx.session.toggle_filter(axis, value, on)
        except ValueError as exc:
            self.ctx.status(str(exc), 8000)

    def _searched(self, result: Any) -> None:  # an Answer: its hits and scope
        listed = ListedCountsJob(tuple(h.path for h in result.hits)).success(self.panel.set_listed)
        self.ctx.runner.run(listed.failure(lambda msg: log.warning("page counts failed: %s", msg)))
        if not self.driver.counts_wanted:
            if self.universe_stale:
                self._load_universe()
            return
        if self.counted != result.scope and (not self.quiet.isActive() or self._first_values_wanted()):
            self._count(result.scope)
        elif self.universe_stale and not self.quiet.isActive():
            self._load_universe()

    def _first_values_wanted(self) -> bool:
        """The pane has nothing to list yet and no count is on its way: count without waiting."""
        return not self.values_known and not self.counting

    def _count(self, scope: Scope) -> None:
        self.counting = True
        job = CountsJob("", scope)
        job.success(lambda counts, s=scope, e=self.epoch: self._counted(counts, s, e))
        self.ctx.runner.run(job.failure(self._count_failed))

    def _count_failed(self, message: str) -> None:
        self.counting = False
        log.warning("filter counts failed: %s", message)

    def _recount(self) -> None:
        """The store has been quiet: count what it holds now (once for a whole burst)."""
        result = self.driver.answer
        if result is not None and self.counted != result.scope:
            self._count(result.scope)
        elif self.universe_stale:
            self._load_universe()

    def _counted(self, counts: Any, scope: Scope, epoch: int) -> None:
        self.counting = False
        self.values_known = self.values_known or holds_memories(counts)
        if epoch != self.epoch:  # the store changed while they were counted: shown, counted again once quiet
            self.panel.set_counts(counts)
            return
        self.counted = scope
        if scope == Scope() and self.universe_stale:
            self.universe_stale = False
            self.panel.set_universe(counts)  # the empty scope's counts ARE the store's values
        self.panel.set_counts(counts)
        if self.universe_stale:
            self._load_universe()

    def _load_universe(self) -> None:
        self.universe_stale = False
        job = UniverseJob().success(self._values_loaded)
        self.ctx.runner.run(job.failure(lambda msg: log.warning("filter values failed: %s", msg)))

    def _values_loaded(self, counts: Any) -> None:
        self.values_known = self.values_known or holds_memories(counts)
        self.panel.set_universe(counts)

    def _store_changed(self, change: StoreChange) -> None:
        if change.reopened:
            self.quiet.stop()  # another store: count it at once
            self.values_known = self.counting = False  # (a count for the old store is not waited for)
        elif not change.content:
            return
        else:
            self.quiet.start()
        self.epoch += 1
        self.universe_stale, self.counted = True, None
