"""The reader's wiring: the session's "open" becomes a read, a change on disk a re-read, and the
reader's own buttons (helpful, why not, filter by this) go back to the session or to a job.

Reads are explicit. Opening a memory (click, double-click, Enter) is the one act that bumps its
salience (`OpenJob(bump=True)`); re-reads after a reinforce or a change on disk never bump.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from memhtml_desktop.ui.reader.reader_pane import ReaderPane
from memhtml_desktop.ui.session.changes import StoreChange
from memhtml_desktop.ui.session.context import PaneContext
from memhtml_desktop.ui.session.jobs import Opened, OpenJob, ReinforceJob, RereadJob, WhyJob


class ReaderController(QObject):
    shown = Signal(object)  # the MemoryDetail now in the reader

    def __init__(self, ctx: PaneContext, pane: ReaderPane) -> None:
        super().__init__(pane)
        self.ctx, self.pane = ctx, pane
        session = ctx.session
        session.on("open", self.open)
        pane.open_requested.connect(session.open)
        pane.filter_requested.connect(lambda axis, value: session.toggle_filter(axis, value, True))
        pane.reinforce_requested.connect(self.reinforce)
        pane.why_requested.connect(session.why)
        ctx.events.changed.connect(self._store_changed)

    def open(self, path: str, bump: bool = True) -> None:
        self.ctx.reveal(self.pane)
        self.pane.show_loading(path)
        job = OpenJob(path, self.ctx.session.highlight_terms, bump).success(self._opened)
        self.ctx.runner.run(job.failure(lambda msg: self.pane.show_error(path, msg)))

    def _opened(self, opened: Opened) -> None:
        self.pane.show_detail(opened.detail, opened.safe_html)
        self.shown.emit(opened.detail)

    def _reread_done(self, opened: Opened) -> None:
        if self.pane.current_path() == opened.detail.path:
            self._opened(opened)

    def reinforce(self, path: str, signal: str) -> None:
        """Helpful / not helpful: record it, then re-read WITHOUT counting a read."""
        job = ReinforceJob(path, signal, self.ctx.session.highlight_terms).success(self._reinforced)
        self.ctx.runner.run(job.failure(lambda msg: self.ctx.status(f"Not recorded: {msg}", 10000)))

    def _reinforced(self, answer: tuple[Any, Opened]) -> None:
        result, opened = answer
        if self.pane.current_path() == opened.detail.path:
            self.pane.show_detail(opened.detail, opened.safe_html)
            self.pane.show_reinforce(result)
        self.shown.emit(opened.detail)

    def _store_changed(self, change: StoreChange) -> None:
        if change.reopened:
            self.pane.clear()
            self.pane.set_store_root(change.store.root)
            return
        path = self.pane.current_path()
        if change.index and path and self.pane.state() == "detail":
            job = RereadJob(path, self.ctx.session.highlight_terms).success(self._reread_done)
            self.ctx.runner.run(job.failure(lambda msg: None))


class WhyController(QObject):
    """"Why not this one?": one dialog, reused; "Open memory" opens in the reader, a typed path asks again."""

    shown = Signal(object)  # the WhyNot report now in the dialog

    def __init__(self, ctx: PaneContext, parent: QWidget) -> None:
        super().__init__(parent)
        self.ctx, self.parent_widget = ctx, parent
        self.dialog: Any = None
        ctx.session.on("why", self.why)

    def why(self, path: str) -> None:
        session = self.ctx.session
        job = WhyJob(session.query, session.scope, path, session.limit).success(self._done)
        self.ctx.runner.run(job.failure(
            lambda msg: self.ctx.notify("Why not this one?", msg, QMessageBox.Icon.Warning)))

    def _done(self, report: Any) -> None:
        from memhtml_desktop.ui.reader.why_dialog import WhyDialog

        if self.dialog is None:
            self.dialog = WhyDialog(self.parent_widget)
            self.dialog.open_requested.connect(self.ctx.session.open)
            self.dialog.why_requested.connect(self.ctx.session.why)
        self.dialog.show_report(report)
        self.dialog.show()
        self.dialog.raise_()
        self.shown.emit(report)
