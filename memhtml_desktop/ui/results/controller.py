"""The results pane's wiring: the session's answers (page and pool, one value) into the list, the
list's requests into the session, and the results pane's own row actions in the shared registry."""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtGui import QGuiApplication

from memhtml_desktop.domain.plural import counted
from memhtml_desktop.ops.jobs import StatsJob
from memhtml_desktop.ui.kit.row_actions import RowAction
from memhtml_desktop.ui.results.results_view import EMPTY_INDEX, ResultsView
from memhtml_desktop.ui.session.context import PaneContext
from memhtml_desktop.ui.session.driver import SessionDriver

log = logging.getLogger(__name__)


def empty_store_text(stats: dict) -> str:
    """What an empty list says: an index still to build, or a store whose files all failed."""
    failed = int(stats.get("failed") or 0)
    if not int(stats.get("memories") or 0) and failed:
        return (
            f"No memory could be indexed: {counted(failed, 'file')} failed memhtml's checks. "
            "The Problems tab (Ctrl+3) lists every violation."
        )
    return EMPTY_INDEX


class ResultsController(QObject):
    """Shows every search's answer; opening a row or "include archived" goes to the session."""

    def __init__(self, ctx: PaneContext, driver: SessionDriver, view: ResultsView) -> None:
        super().__init__(view)
        self.ctx, self.driver, self.view = ctx, driver, view
        view.row_actions = ctx.row_actions
        driver.answered.connect(self._answered)
        driver.deepened.connect(view.set_deeper)
        driver.indexing.connect(view.set_indexing)
        driver.search_failed.connect(self._failed)
        view.open_requested.connect(ctx.session.open)
        self._follow: str | None = None  # the memory the reader was last asked for (see `follow`)
        ctx.session.on("open", lambda path, *_: self.follow(path))
        view.table.selectionModel().currentChanged.connect(self._current_changed)
        view.include_archived_requested.connect(lambda: ctx.session.toggle_filter("archived", "", True))
        view.more_requested.connect(self.show_more)
        view.order_changed.connect(self._order_changed)
        session = ctx.session
        for action in (
            RowAction(
                "open",
                "&Open",
                lambda row: session.open(row.path),
                group="open",
                order=10,
                shortcut="Enter",
                tip="Open in the reader (counts as a read)",
            ),
            RowAction(
                "why",
                "&Why not this one?\u2026",
                lambda row: session.why(row.path),
                group="open",
                order=20,
                tip="Where this memory stood for the query, arm by arm",
            ),
            RowAction(
                "copy_path",
                "&Copy path",
                lambda row: QGuiApplication.clipboard().setText(row.path),
                group="file",
                order=30,
                shortcut="Ctrl+C",
            ),
        ):
            ctx.row_actions.add(action)

    def follow(self, path: str) -> None:
        """The reader was asked for `path` (a row opened, a write's result, a link, back, undo): the
        list's current row becomes that memory where it is listed, and no row otherwise, so the
        list never points at one memory while the reader shows another (issue 41: after a write it
        did). A re-run of the same search (the write's own) selects it when it arrives."""
        self._follow = path
        row = self.view.model.row_of(path)
        if row >= 0:
            if self.view.current_path() != path:
                self.view.set_current_row(row)
        elif self.view.current_path() is not None:
            self.view.clear_current()

    def _current_changed(self, current: Any, _previous: Any) -> None:
        path = self.view.current_path()
        if path is not None and path != self._follow:
            self._follow = None  # the person moved to another row: a re-run keeps theirs

    def _answered(self, answer: Any) -> None:
        same = answer.same_ask(self.view.model.answer())
        self.view.set_answer(answer)
        if not same:
            self._follow = None  # a new list starts with no row chosen
        elif self._follow is not None and self.view.current_path() != self._follow:
            row = self.view.model.row_of(self._follow)
            if row >= 0:
                self.view.set_current_row(row)
        result = answer.result
        if not result.hits and not result.scope_empty and not result.scope.narrowed:
            job = StatsJob().success(self._empty_store)
            self.ctx.runner.run(job.failure(lambda msg: log.warning("stats failed: %s", msg)))

    def _empty_store(self, stats: dict) -> None:
        result = self.view.model.result()
        if result is not None and not result.hits and self.view.stack.currentWidget() is self.view.message:
            self.view.show_message(empty_store_text(stats))

    def show_more(self) -> None:
        """List the next page of the fused list; fetch a deeper pool when the listed one runs out."""
        result = self.view.model.result()
        if result is None:
            return
        step = max(1, len(result.hits))
        self.view.show_more(step)
        pool = self.view.model.pool()
        if pool is not None and self.view.model.below_available() < step and pool.more:
            self.driver.deepen(len(pool.entries) + 2 * step)

    def _order_changed(self, order: str) -> None:
        pool = self.view.model.pool()
        result = self.view.model.result()
        if pool is None or result is None:
            return
        deepest = max((h.fused_position for h in result.hits), default=0) + self.view.model.extra()
        if deepest > len(pool.entries) and pool.more:
            self.driver.deepen(deepest)

    def _failed(self, message: str) -> None:
        self.view.show_message(f"The search failed: {message}")
        self.ctx.status(f"Search failed: {message}", 10000)
