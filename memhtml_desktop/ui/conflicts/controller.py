"""The conflicts view's wiring: the scan in the background (progress, cancel), the resolutions
through the curation dialogs, and a partial rescan of the touched memories after each write.

The full scan compares every pair of memories (about 3 s at 20,000 on this machine): it runs as a
job on the read pool, reports progress, and can be cancelled; the window stays responsive. After
a write with known paths (a resolution from this view, or any curation write), only the pairs
involving those paths are scanned again and merged in; after a change of unknown extent (an edit
on disk) the view says the scan may be out of date and leaves the rescan to the person.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from memhtml_desktop.ops.changes import StoreChange
from memhtml_desktop.ops.curate import ConflictsJob, SidesJob, SomeConflictsJob
from memhtml_desktop.ui.conflicts.conflicts_model import merge_pairs
from memhtml_desktop.ui.session.context import PaneContext


class ConflictsController(QObject):
    """Shows the conflicts window; `scanned` carries each report shown (tests wait on it)."""

    scanned = Signal(object)

    def __init__(self, ctx: PaneContext, parent: QWidget, curate: Any) -> None:
        super().__init__(parent)
        self.ctx, self.parent_widget, self.curate = ctx, parent, curate
        self.window: Any = None
        self.report: Any = None
        ctx.events.changed.connect(self._store_changed)

    def show(self) -> Any:
        from memhtml_desktop.ui.conflicts.conflicts_view import ConflictsWindow

        if self.window is None:
            self.window = window = ConflictsWindow(self.parent_widget)
            window.scan_requested.connect(self.scan)
            window.cancel_requested.connect(self.cancel)
            window.open_requested.connect(lambda path: self.ctx.session.open(path))
            window.right_requested.connect(self.curate.supersede)
            window.scope_requested.connect(self.curate.correct)
            window.link_requested.connect(lambda a, b, rel: self.curate.link(a[0], a[1], target=b[0], rel=rel))
            window.dismiss_requested.connect(self.curate.dismiss)
            window.pair_shown.connect(self._pair_shown)
            self.curate.written.connect(self._written)
        self.window.show()
        self.window.raise_()
        self.window.activateWindow()
        if self.report is None and not self.ctx.runner.is_busy(ConflictsJob.kind):
            self.scan()
        return self.window

    def _pair_shown(self, a: str, b: str) -> None:
        self.ctx.runner.run(SidesJob(paths=(a, b)).success(self.window.show_details).failure(lambda msg: None))

    def scan(self) -> None:
        self.window.set_scanning(True)
        job = ConflictsJob().success(self._scanned).failure(self._failed)
        self.ctx.runner.run(job.progress(lambda phase, done, total: self.window.set_progress(done, total)))

    def cancel(self) -> None:
        self.ctx.runner.cancel(ConflictsJob.kind)
        if self.window is not None:
            self.window.say(
                "Scan cancelled." if self.report is None else "Scan cancelled; the list is the last scan's."
            )

    def _scanned(self, report: Any) -> None:
        self.report = report
        self.window.set_report(report)
        self.scanned.emit(report)

    def _failed(self, message: str) -> None:
        if self.window is not None:
            self.window.say(f"The scan failed: {message}")

    def _rescanned(self, report: Any, paths: frozenset[str]) -> None:
        if self.report is None:
            return
        current = self.window.current_pair()
        keep = (current.a.path, current.b.path) if current is not None else None
        self.report.pairs = merge_pairs(self.report.pairs, report.pairs, set(paths))
        self.window.set_report(self.report, keep=keep)
        self.scanned.emit(self.report)

    def _written(self, applied: Any) -> None:
        """A dismissal or a restore changes no memory (no StoreChange): the pair's mark follows it here,
        and the queue moves on to the next pair."""
        if applied.plan.op not in ("dismiss", "undismiss") or self.report is None or self.window is None:
            return
        a, b, dismissed = applied.result["a"], applied.result["b"], applied.result["dismissed"]
        self.report.pairs = [replace(p, dismissed=dismissed) if {p.a.path, p.b.path} == {a, b} else p
                             for p in self.report.pairs]  # fmt: skip
        self.window.set_report(self.report)
        self.scanned.emit(self.report)

    def _store_changed(self, change: StoreChange) -> None:
        if change.reopened:
            self.ctx.runner.cancel(ConflictsJob.kind)
            self.report = None
            if self.window is not None:
                self.window.model.set_pairs([])
                self.window.scan_button.setText("Scan")
                self.window.say("Another store: scan it to list its conflicts.")
            return
        if not change.content or self.report is None or self.window is None:
            return
        if change.paths is None:  # an edit on disk, a reconciliation: any pair may differ
            self.window.set_summary(self.report, "the store changed since this scan: Rescan to be sure")
        elif change.paths and not self.ctx.runner.is_busy(ConflictsJob.kind):
            paths = change.paths
            job = SomeConflictsJob(paths=tuple(sorted(paths))).success(lambda r, p=paths: self._rescanned(r, p))
            self.ctx.runner.run(job.failure(self._failed))
