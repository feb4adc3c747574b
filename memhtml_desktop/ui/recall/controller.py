"""The recall pane's wiring: every shape follows every answer while the pane shows (or recall mode is on).

The pane reads the search's `Answer` (domain/results.py): its query and scope, its parsed query
for the recall, and its page for the catalogue, so a shape never searches or parses again what
the list already answered. Before any answer (or for a budget moved meanwhile) it asks the
session's query.

One job (`ShapesJob`) builds memhtml's pack, the quota ledgers and the catalogue for the query and
budget, so moving the budget slider re-folds every shape; Expand on a catalogue row runs an
`ExpandJob`. Both are reads of the index on the read pool; neither counts as a read of a memory.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Signal

from memhtml_desktop.ops.jobs import ExpandJob, ShapesJob
from memhtml_desktop.ui.recall.recall_pane import RecallPane
from memhtml_desktop.ui.session.context import PaneContext
from memhtml_desktop.ui.session.driver import SessionDriver
from memhtml_desktop.ui.session.search import RECALL


class RecallController(QObject):
    shown = Signal(object)  # the RecallPack now in the pane
    shapes_shown = Signal(object)  # the ShapeComparison now in the pane
    expanded = Signal(object)  # the Expansion now in the catalogue page

    def __init__(self, ctx: PaneContext, driver: SessionDriver, pane: RecallPane) -> None:
        super().__init__(pane)
        self.ctx, self.pane = ctx, pane
        pane.set_budget(ctx.session.budget)
        pane.open_requested.connect(ctx.session.open)
        pane.budget_changed.connect(ctx.session.set_budget)
        pane.expand_requested.connect(self.expand)
        ctx.session.on("budget", lambda chars: self.run())
        ctx.session.on("mode", self._mode_changed)
        driver.answered.connect(lambda answer: self.run() if self.wanted() else None)

    def _mode_changed(self, mode: str) -> None:
        if mode == RECALL:
            self.ctx.reveal(self.pane)
            self.run()

    def wanted(self) -> bool:
        return self.ctx.session.mode == RECALL or self.pane.isVisibleTo(self.pane.window())

    def pane_shown(self) -> None:
        self.run()

    def run(self) -> None:
        session, answer = self.ctx.session, self.ctx.answer()
        self.pane.show_loading()
        if answer is not None:
            job = ShapesJob(
                answer.query, answer.scope, session.budget, answer.limit, answer=answer, ranking=session.ranking
            )
        else:
            job = ShapesJob(session.query, session.scope, session.budget, session.limit, ranking=session.ranking)
        job.success(self._done)
        self.ctx.runner.run(job.failure(lambda msg: self.ctx.status(f"Recall failed: {msg}", 10000)))

    def expand(self, path: str) -> None:
        job = ExpandJob(path).success(self._expanded)
        self.ctx.runner.run(job.failure(lambda msg: self.ctx.status(f"Expand failed: {msg}", 10000)))

    def _done(self, comparison: Any) -> None:
        self.pane.show_shapes(comparison)
        self.shown.emit(comparison.pack)
        self.shapes_shown.emit(comparison)

    def _expanded(self, expansion: Any) -> None:
        self.pane.show_expansion(expansion)
        self.expanded.emit(expansion)
