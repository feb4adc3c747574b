"""The results pane's wiring: the session's answers into the list, the list's requests into the session."""

from __future__ import annotations

from PySide6.QtCore import QObject

from memhtml_desktop.ui.results.results_view import ResultsView
from memhtml_desktop.ui.session.context import PaneContext
from memhtml_desktop.ui.session.driver import SessionDriver


class ResultsController(QObject):
    """Shows every search answer; opening a row or "include archived" goes to the session."""

    def __init__(self, ctx: PaneContext, driver: SessionDriver, view: ResultsView) -> None:
        super().__init__(view)
        self.view = view
        driver.searched.connect(view.set_result)
        driver.search_failed.connect(self._failed)
        view.open_requested.connect(ctx.session.open)
        view.include_archived_requested.connect(lambda: ctx.session.toggle_filter("archived", "", True))
        self.ctx = ctx

    def _failed(self, message: str) -> None:
        self.view.show_message(f"The search failed: {message}")
        self.ctx.status(f"Search failed: {message}", 10000)
