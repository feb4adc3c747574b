"""The Problems pane's wiring: listed when it shows, re-listed when a change may have moved them."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from memhtml_desktop.ops.changes import StoreChange
from memhtml_desktop.ops.jobs import ProblemsJob
from memhtml_desktop.ui.problems.problems_pane import ProblemsPane
from memhtml_desktop.ui.session.context import PaneContext


class ProblemsController(QObject):
    shown = Signal(object)  # the list of Problems now in the pane

    def __init__(self, ctx: PaneContext, pane: ProblemsPane) -> None:
        super().__init__(pane)
        self.ctx, self.pane = ctx, pane
        pane.open_requested.connect(ctx.session.open)
        ctx.events.changed.connect(self._store_changed)

    def pane_shown(self) -> None:
        self.run()

    def run(self) -> None:
        job = ProblemsJob().success(self._done)
        self.ctx.runner.run(job.failure(lambda msg: self.ctx.status(f"Problems failed: {msg}", 10000)))

    def _done(self, answer: tuple[list, dict]) -> None:
        problems, stats = answer
        self.pane.show_problems(problems, stats)
        self.shown.emit(problems)

    def _store_changed(self, change: StoreChange) -> None:
        if (change.content or change.problems) and self.pane.isVisibleTo(self.pane.window()):
            self.run()
