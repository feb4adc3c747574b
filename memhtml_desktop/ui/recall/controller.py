"""The recall pane's wiring: the pack follows every ask while the pane shows (or recall mode is on)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Signal

from memhtml_desktop.ui.recall.recall_pane import RecallPane
from memhtml_desktop.ui.session.context import PaneContext
from memhtml_desktop.ui.session.driver import SessionDriver
from memhtml_desktop.ui.session.jobs import RecallJob
from memhtml_desktop.ui.session.search import RECALL


class RecallController(QObject):
    shown = Signal(object)  # the RecallPack now in the pane

    def __init__(self, ctx: PaneContext, driver: SessionDriver, pane: RecallPane) -> None:
        super().__init__(pane)
        self.ctx, self.pane = ctx, pane
        pane.set_budget(ctx.session.budget)
        pane.open_requested.connect(ctx.session.open)
        pane.budget_changed.connect(ctx.session.set_budget)
        ctx.session.on("budget", lambda chars: self.run())
        ctx.session.on("mode", self._mode_changed)
        driver.asked.connect(lambda ask: self.run() if self.wanted() else None)

    def _mode_changed(self, mode: str) -> None:
        if mode == RECALL:
            self.ctx.reveal(self.pane)
            self.run()

    def wanted(self) -> bool:
        return self.ctx.session.mode == RECALL or self.pane.isVisibleTo(self.pane.window())

    def pane_shown(self) -> None:
        self.run()

    def run(self) -> None:
        session = self.ctx.session
        self.pane.show_loading()
        job = RecallJob(session.query, session.scope, session.budget, session.limit).success(self._done)
        self.ctx.runner.run(job.failure(lambda msg: self.ctx.status(f"Recall failed: {msg}", 10000)))

    def _done(self, pack: Any) -> None:
        self.pane.show_pack(pack)
        self.shown.emit(pack)
