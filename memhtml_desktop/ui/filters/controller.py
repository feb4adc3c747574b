"""The filters pane's wiring: counts after every search, the store's values after every change.

The counts run after the search, not beside it: on a large store they cost several times a
search, and the search is what a person waits for. A newer search replaces the whole chain (the
runner drops a replaced job's answer). The store's own values (empty query, empty scope) fix the
order of the rows; they are reloaded once after the store changed.
"""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import QObject

from memhtml_desktop.ui.filters.filters_panel import FiltersPanel
from memhtml_desktop.ui.session.changes import StoreChange
from memhtml_desktop.ui.session.context import PaneContext
from memhtml_desktop.ui.session.driver import SessionDriver
from memhtml_desktop.ui.session.jobs import CountsJob, UniverseJob

log = logging.getLogger(__name__)


class FiltersController(QObject):
    def __init__(self, ctx: PaneContext, driver: SessionDriver, panel: FiltersPanel) -> None:
        super().__init__(panel)
        self.ctx, self.driver, self.panel = ctx, driver, panel
        self.universe_stale = True
        panel.filter_toggled.connect(self._toggle)
        panel.include_archived_toggled.connect(lambda on: self._toggle("archived", "", on))
        ctx.session.on("scope", panel.set_scope)
        driver.searched.connect(self._searched)
        ctx.events.changed.connect(self._store_changed)

    def _toggle(self, axis: str, value: str, on: bool) -> None:
        try:
            self.ctx.session.toggle_filter(axis, value, on)
        except ValueError as exc:
            self.ctx.status(str(exc), 8000)

    def _searched(self, result: Any) -> None:
        if self.driver.counts_wanted:
            job = CountsJob(result.query, result.scope).success(self._counted)
            self.ctx.runner.run(job.failure(lambda msg: log.warning("filter counts failed: %s", msg)))
        elif self.universe_stale:
            self._load_universe()

    def _counted(self, counts: Any) -> None:
        self.panel.set_counts(counts)
        if self.universe_stale:
            self._load_universe()

    def _load_universe(self) -> None:
        self.universe_stale = False
        job = UniverseJob().success(self.panel.set_universe)
        self.ctx.runner.run(job.failure(lambda msg: log.warning("filter values failed: %s", msg)))

    def _store_changed(self, change: StoreChange) -> None:
        if change.content:
            self.universe_stale = True
