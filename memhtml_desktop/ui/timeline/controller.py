"""The timeline's wiring: read a memory's chain in the background, follow the reader while the
window shows, redraw after a change, open a clicked version, and set the search's as-of day."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from memhtml_desktop.domain.as_of import parse_as_of
from memhtml_desktop.ops.changes import StoreChange
from memhtml_desktop.ops.curate import HistoryJob
from memhtml_desktop.ui.session.context import PaneContext


class TimelineController(QObject):
    shown = Signal(object)  # the SupersessionChain now drawn

    def __init__(self, ctx: PaneContext, parent: QWidget) -> None:
        super().__init__(parent)
        self.ctx, self.parent_widget = ctx, parent
        self.window: Any = None
        self.path: str | None = None
        ctx.events.changed.connect(self._store_changed)
        ctx.session.on("scope", self._scope_changed)

    def show(self, path: str | None) -> Any:
        from memhtml_desktop.ui.timeline.timeline_window import TimelineWindow

        if self.window is None:
            self.window = TimelineWindow(self.parent_widget)
            self.window.open_requested.connect(lambda p: self.ctx.session.open(p))
            self.window.as_of_requested.connect(self.search_as_of)
            self.window.view.set_as_of(self.ctx.session.scope.as_of)
        self.window.show()
        self.window.raise_()
        if path:
            self.load(path)
        return self.window

    def follow(self, detail: Any) -> None:
        """The reader shows another memory: the open timeline follows it."""
        if self.window is not None and self.window.isVisible() and detail is not None and detail.path != self.path:
            self.load(detail.path)

    def load(self, path: str) -> None:
        self.path = path
        self.window.show_loading(path)
        job = HistoryJob(path=path).success(self._loaded)
        self.ctx.runner.run(job.failure(lambda msg, p=path: self.window.show_error(p, msg)))

    def _loaded(self, chain: Any) -> None:
        self.window.show_chain(chain)
        self.shown.emit(chain)

    def search_as_of(self, day: str) -> None:
        """A click on the axis: the search shows what the agent would have recalled that day."""
        self.ctx.session.set_scope(self.ctx.session.scope.with_(as_of=parse_as_of(day)))
        self.ctx.status(f"Searching as of {day}: what an agent would have recalled that day", 10000)

    def _scope_changed(self, scope: Any) -> None:
        if self.window is not None:
            self.window.view.set_as_of(scope.as_of)

    def _store_changed(self, change: StoreChange) -> None:
        if self.window is None or not self.window.isVisible() or not self.path:
            return
        if change.reopened:
            self.window.close()
            self.path = None
        elif change.content:
            self.load(self.path)
