"""The reader's wiring: the session's "open" becomes a read, a change on disk a re-read, and the
reader's own buttons (helpful, why not, filter by this) go back to the session or to a job.

Reads are explicit. Opening a memory (click, double-click, Enter) is the one act that bumps its
salience (`OpenJob(bump=True)`); re-reads after a reinforce or a change on disk never bump.
"""

from __future__ import annotations

import time
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from memhtml_desktop.domain.reinforce import REINFORCE_COOLDOWN_S
from memhtml_desktop.ops.changes import StoreChange
from memhtml_desktop.ops.jobs import FindJob, Gone, Opened, OpenJob, ReinforceJob, RereadJob, WhyJob
from memhtml_desktop.ui.kit.row_actions import RowAction
from memhtml_desktop.ui.reader.contradiction_strip import marks_for
from memhtml_desktop.ui.reader.reader_pane import ReaderPane
from memhtml_desktop.ui.reader.signal_text import reinforce_note
from memhtml_desktop.ui.session.context import PaneContext


class ReaderController(QObject):
    """Reads, re-reads and reinforcement; the person's own signal per memory is remembered for the
    signal cooldown, so a second click within it replaces (or, on the same button, withdraws) the
    first instead of being refused."""

    shown = Signal(object)  # the MemoryDetail now in the reader

    def __init__(self, ctx: PaneContext, pane: ReaderPane, driver: Any = None, *, clock=time.monotonic) -> None:
        super().__init__(pane)
        self.ctx, self.pane = ctx, pane
        self.clock = clock
        self.marked: tuple[str, ...] = ()  # the words the article on show marks
        if driver is not None:
            driver.answered.connect(self._answered)
        self.signals: dict[str, tuple[str, float]] = {}  # path -> (signal, when first applied)
        self.pending: dict[str, str | None] = {}  # path -> the click waiting behind the one in flight
        session = ctx.session
        session.on("open", self.open)
        session.on("reset", lambda: self.signals.clear())
        pane.open_requested.connect(session.open)
        pane.filter_requested.connect(lambda axis, value: session.toggle_filter(axis, value, True))
        pane.reinforce_requested.connect(self.reinforce)
        pane.why_requested.connect(session.why)
        ctx.events.changed.connect(self._store_changed)
        for action in (
            RowAction(
                "helpful",
                "\u2713 &Helpful",
                lambda row: self.reinforce(row.path, "positive"),
                group="judge",
                order=10,
                tip="A positive reinforcement signal (a second click within 15 minutes changes it)",
            ),
            RowAction(
                "not_helpful",
                "\u2717 &Not helpful",
                lambda row: self.reinforce(row.path, "negative"),
                group="judge",
                order=20,
                tip="A negative reinforcement signal",
            ),
            RowAction(
                "reveal",
                "&Reveal in file manager",
                lambda row: pane.reveal_in_file_manager(row.path),
                group="file",
                order=10,
            ),
            RowAction(
                "editor",
                "Open in &editor",
                lambda row: pane.open_in_editor(row.path),
                group="file",
                order=20,
                tip="$VISUAL or $EDITOR (a terminal editor opens in your terminal)",
            ),
        ):
            ctx.row_actions.add(action)

    def current_signal(self, path: str) -> str | None:
        """The person's own signal on `path` while it can still be changed (inside the cooldown)."""
        entry = self.signals.get(path)
        if entry is None:
            return None
        signal, since = entry
        if self.clock() - since >= REINFORCE_COOLDOWN_S - 5:  # a margin: the store's clock decides
            del self.signals[path]
            return None
        return signal

    def terms(self) -> tuple[str, ...]:
        """The words the reader marks: those of the answer listed, as its search parsed them."""
        answer = self.ctx.answer()
        return answer.highlight_words if answer is not None else ()

    def open(self, path: str, bump: bool = True) -> None:
        self.ctx.reveal(self.pane)
        self.pane.show_loading(path)
        self.marked = self.terms()
        job = OpenJob(path, self.marked, bump).success(self._opened)
        self.ctx.runner.run(job.failure(lambda msg: self.pane.show_error(path, msg)))

    def _opened(self, opened: Opened) -> None:
        self.pane.show_detail(opened.detail, opened.safe_html)
        self._show_marks(opened.detail.path, self.ctx.answer())
        self.pane.show_signal(self.current_signal(opened.detail.path))
        self.shown.emit(opened.detail)

    def _show_marks(self, path: str, answer: Any) -> None:
        """The memories of the list this one contradicts (the list's marks; none when it is not listed)."""
        self.pane.contradiction_strip.show_marks(marks_for(answer, path))

    def _answered(self, answer: Any) -> None:
        """A new list: the article marks ITS words, not the last query's (issue 41). Read again
        for them (never a read) only when they differ from the words marked. The contradiction
        strip says what the new list's marks say."""
        path = self.pane.current_path()
        if path and self.pane.state() == "detail":
            self._show_marks(path, answer)
        if path and self.pane.state() == "detail" and answer.highlight_words != self.marked:
            self.marked = answer.highlight_words
            job = RereadJob(path, self.marked)
            job.success(lambda opened: None if isinstance(opened, Gone) else self._reread_done(opened))
            self.ctx.runner.run(job.failure(lambda msg: None))

    def _reread_done(self, opened: Opened) -> None:
        if self.pane.current_path() == opened.detail.path:
            note = self.pane.note_label.text()
            self._opened(opened)
            if note:  # a re-read after a change on disk keeps what the last click said
                self.pane.note_label.setText(note)
                self.pane.note_label.show()

    def reinforce(self, path: str, signal: str) -> None:
        """Helpful / not helpful: record it (or replace the person's own recent one), then re-read
        WITHOUT counting a read. The same button again withdraws the signal.

        A click made while the previous click's answer is still on its way waits for it (the latest
        such click wins): sent at once it would not know the first landed, and was refused as
        "already marked (elsewhere)", so a misclick could not be taken back straight away.
        """
        if path in self.pending:
            self.pending[path] = signal
            return
        previous = self.current_signal(path)
        if previous == signal:
            signal = "neutral"
        self.pending[path] = None
        job = ReinforceJob(path, signal, self.terms(), previous=previous)
        job.success(lambda answer: self._reinforced(answer, previous))
        self.ctx.runner.run(job.failure(lambda msg: self._not_recorded(path, msg)))

    def _not_recorded(self, path: str, message: str) -> None:
        self.pending.pop(path, None)
        self.ctx.status(f"Not recorded: {message}", 10000)

    def _reinforced(self, answer: tuple[Any, Opened, Any], previous: str | None = None) -> None:
        result, opened, before = answer
        path = opened.detail.path
        if path in result.signal_applied:
            since = self.signals[path][1] if previous is not None and path in self.signals else self.clock()
            self.signals[path] = (result.signal, since)
        waiting = self.pending.pop(path, None)
        if self.pane.current_path() == path:
            self.pane.show_detail(opened.detail, opened.safe_html)
            self._show_marks(path, self.ctx.answer())
            self.pane.show_reinforce(result, previous, before, opened.detail.access)
            self.pane.show_signal(self.current_signal(path))
        else:  # from a row's menu: the reader shows another memory, so the status bar says it
            note = reinforce_note(result, path, previous, before, opened.detail.access)
            self.ctx.status(f"{opened.detail.title or path}: {note}", 15000)
        self.shown.emit(opened.detail)
        if waiting is not None:
            self.reinforce(path, waiting)

    def _store_changed(self, change: StoreChange) -> None:
        if change.reopened:
            self.pane.clear()
            self.pane.set_store_root(change.store.root, getattr(change.store, "curation_off", None))
            return
        path = self.pane.current_path()
        if not (change.index and path and self.pane.state() == "detail"):
            return
        moved_to = dict(change.moves).get(path)
        if moved_to:  # moved on disk (archived by an agent, a git mv): the reader follows the memory
            job = RereadJob(moved_to, self.terms())
            job.success(lambda opened: self._lost(path, opened.message) if isinstance(opened, Gone)
                        else self._followed(path, opened))  # fmt: skip
            self.ctx.runner.run(job.failure(lambda msg: self._lost(path, msg)))
            return
        self.marked = self.terms()
        job = RereadJob(path, self.marked)
        job.success(lambda opened: self._lost(path, opened.message) if isinstance(opened, Gone)
                    else self._reread_done(opened))  # fmt: skip
        self.ctx.runner.run(job.failure(lambda msg: self._lost(path, msg)))

    def _followed(self, old: str, opened: Opened) -> None:
        if self.pane.current_path() != old:  # the person opened something else meanwhile
            return
        self._opened(opened)
        self.pane.note_label.setText(f"Moved on disk from {old}.")
        self.pane.note_label.show()

    def _lost(self, path: str, message: str) -> None:
        """The open memory could not be read again: say so instead of showing what is gone."""
        if self.pane.current_path() == path and self.pane.state() == "detail":
            self.pane.show_error(
                path, f"It changed on disk and can no longer be read here (moved or deleted?): {message}"
            )


class WhyController(QObject):
    """ "Why not this one?": one dialog, reused; "Open memory" opens in the reader; the memory is
    chosen by title or path in the dialog, with completions found as the person types."""

    shown = Signal(object)  # the WhyNot report now in the dialog

    def __init__(self, ctx: PaneContext, parent: QWidget) -> None:
        super().__init__(parent)
        self.ctx, self.parent_widget = ctx, parent
        self.dialog: Any = None
        ctx.session.on("why", self.why)

    def _dialog(self) -> Any:
        from memhtml_desktop.ui.reader.why_dialog import WhyDialog

        if self.dialog is None:
            self.dialog = WhyDialog(self.parent_widget)
            self.dialog.open_requested.connect(self.ctx.session.open)
            self.dialog.why_requested.connect(self.ctx.session.why)
            self.dialog.find_requested.connect(self.find)
        return self.dialog

    def choose(self, path: str | None = None) -> None:
        """Show the dialog ready to pick a memory (on `path` when one is chosen in the list)."""
        dialog = self._dialog()
        dialog.show()
        dialog.raise_()
        dialog.choose(path)
        if path:
            self.why(path)

    def find(self, text: str) -> None:
        job = FindJob(text).success(lambda refs: self.dialog.set_matches(refs, text) if self.dialog else None)
        self.ctx.runner.run(job.failure(lambda msg: self.ctx.status(f"Finding memories failed: {msg}", 8000)))

    def why(self, path: str) -> None:
        answer = self.ctx.answer()  # the list's ask, its query as parsed (the session's before any answer)
        if answer is not None:
            job = WhyJob(answer.query, answer.scope, path, answer.limit, answer.fts, ranking=self.ctx.session.ranking)
        else:
            job = WhyJob(
                self.ctx.session.query,
                self.ctx.session.scope,
                path,
                self.ctx.session.limit,
                ranking=self.ctx.session.ranking,
            )
        job.success(self._done)
        self.ctx.runner.run(
            job.failure(lambda msg: self.ctx.notify("Why not this one?", msg, QMessageBox.Icon.Warning))
        )

    def ranking_changed(self) -> None:
        """Another ranking profile: an open report is asked again (its ranks and moves change)."""
        dialog = self.dialog
        if dialog is None:
            return
        dialog.set_profile(self.ctx.session.ranking)
        report = dialog.report()
        if dialog.isVisible() and report is not None and report.status == "indexed":
            self.why(report.path)

    def _done(self, report: Any) -> None:
        dialog = self._dialog()
        dialog.set_profile(self.ctx.session.ranking)
        dialog.show_report(report)
        dialog.show()
        dialog.raise_()
        self.shown.emit(report)
