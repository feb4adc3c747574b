"""The status bar: store path, memory count, watcher state, queue depth, last batch, indexing progress.

A transient message ("… committed 0123456789ab") takes the place of the normal widgets while it
shows (QStatusBar hides them and shows them again after). So nothing here shows or hides one of
them: a label shown during a message is drawn over it (the last batch's label, shown by the
watcher's status after a write, was; issue 41). An empty label is blank instead of hidden.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QStatusBar, QWidget

from memhtml_desktop.domain.plural import counted
from memhtml_desktop.ui.kit import icons

log = logging.getLogger(__name__)

STATE_COLORS = {
    "live": "#009E73",
    "polling": "#E69F00",
    "starting": "#56B4E9",
    "behind": "#D55E00",
    "stopped": "#999999",
}
PHASES = {"scan": "scanning", "index": "indexing", "embed": "embedding"}
MODE_HELP = {
    "live": "Watching the store: changes on disk reach the index within about a second.",
    "polling": "Checking the store for changes periodically (file events are unavailable here).",
    "starting": "Comparing the store with the index.",
    "behind": "The index is not in step with the store: comparing them failed, and is tried again.",
    "stopped": "Not watching the store: changes on disk are not followed.",
}


def batch_text(batch: Any) -> str:
    """ "3 files 41 ms" for a watcher batch (or a reconciliation)."""
    if batch is None:
        return ""
    files = sum(getattr(batch, name, 0) for name in ("added", "changed", "moved", "removed", "failed"))
    kind = "reconcile, " if getattr(batch, "kind", "batch") == "reconcile" else ""
    return f"{kind}{counted(files, 'file')} {getattr(batch, 'ms', 0):.0f} ms"


def _home_relative(path: Path) -> str:
    try:
        return "~/" + str(path.relative_to(Path.home()))
    except ValueError:
        return str(path)


class _Dotted(QWidget):
    """A coloured dot and a label: the watcher state."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.dot = QLabel(self)
        self.label = QLabel(self)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addWidget(self.dot)
        layout.addWidget(self.label)

    def set(self, color: str, text: str, hollow: bool = False) -> None:
        self.dot.setPixmap(icons.dot_icon(QColor(color), hollow=hollow).pixmap(10, 10))
        self.label.setText(text)


class StatusBar(QStatusBar):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("statusBar")
        self.store_label = QLabel(self)
        self.store_label.setObjectName("storePath")
        self.store_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.count_label = QLabel(self)
        self.count_label.setObjectName("memoryCount")
        self.plane_label = QLabel(self)  # the state plane, when it is not as it should be (blank otherwise)
        self.plane_label.setObjectName("statePlane")
        self.watch = _Dotted(self)
        self.watch.setObjectName("watchState")
        self.queue_label = QLabel(self)
        self.queue_label.setObjectName("queueDepth")
        self.batch_label = QLabel(self)
        self.batch_label.setObjectName("lastBatch")
        self.progress = QProgressBar(self)
        self.progress.setObjectName("indexProgress")
        self.progress.setMaximumWidth(220)
        self.progress.setMaximumHeight(16)
        self.progress.setTextVisible(True)
        self.progress.setVisible(False)
        for widget in (self.store_label, self.count_label, self.plane_label, self.watch, self.queue_label,
                       self.batch_label):  # fmt: skip
            self.addWidget(widget)
        self.addPermanentWidget(self.progress)
        muted = self.palette().color(QPalette.ColorRole.PlaceholderText)
        for label in (self.queue_label, self.batch_label):
            pal = label.palette()
            pal.setColor(QPalette.ColorRole.WindowText, muted)
            label.setPalette(pal)
        self.set_watch(None)

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        """A message posted before the bar was first shown (a store's notice at start: "Curation is
        off", which demo copy this is) left the widgets it covers unhidden, since QStatusBar hides
        only the visible ones; they then showed with the window and were drawn over it. Posted
        again now, it hides them (its 15 s start over)."""
        super().showEvent(event)
        message = self.currentMessage()
        if message:  # the same text again is a no-op for QStatusBar: cleared first
            self.clearMessage()
            self.showMessage(message, 15000)

    def set_store(self, root: Path) -> None:
        self.store_label.setText(_home_relative(Path(root)))
        self.store_label.setToolTip(str(root))

    def set_stats(self, stats: dict[str, Any]) -> None:
        active = int(stats.get("active", stats.get("memories", 0)) or 0)
        self.count_label.setText(f"\u00b7 {counted(active, 'memory')}")
        self.count_label.setToolTip(
            f"{stats.get('memories', 0):,} indexed files: {active:,} live, {stats.get('archived', 0):,} archived, "
            f"{stats.get('open_tasks', 0):,} open tasks; {stats.get('failed', 0):,} failed to parse, "
            f"{stats.get('with_warnings', 0):,} with warnings\n"
            f"{stats.get('embedded', 0):,} of {stats.get('chunks', 0):,} chunks embedded ({stats.get('embed_model') or 'no model'})"
        )

    def set_plane(self, plane: Any) -> None:
        """`plane`: the Store's StatePlane. Blank while reads are counted and none waits; otherwise
        what is wrong, marked, with the whole reason in the tooltip (a FIFO in state.db's place, a
        schema this app does not know, a lock, a full disk) and the reads kept for later."""
        parts = []
        if plane is not None and plane.mode is None and plane.reason:
            parts.append("\u26a0 salience off")
        elif plane is not None and plane.mode == "ro" and plane.reason:
            parts.append("\u26a0 reads not counted")
        if plane is not None and plane.waiting:
            parts.append(f"{counted(plane.waiting, 'read')} waiting")
        self.plane_label.setText("\u00b7 " + " \u00b7 ".join(parts) if parts else "")  # blank, never hidden
        self._mark_plane()
        tip = plane.reason if plane is not None else ""
        if plane is not None and plane.waiting:
            tip += ("\n" if tip else "") + (
                f"{counted(plane.waiting, 'read')} (or judgement) kept until state.db "
                "can be written; each is counted with its own time then"
            )
        self.plane_label.setToolTip(tip)

    def _mark_plane(self) -> None:
        """The warning's colours for the theme now (again when the theme changes: changeEvent)."""
        from memhtml_desktop.ui.kit.palette import warning_color

        text = self.palette().color(QPalette.ColorRole.WindowText).name()
        self.plane_label.setStyleSheet(
            f"QLabel#statePlane {{ background: {warning_color()}; color: {text}; border-radius: 3px; padding: 0 4px; }}"
            if self.plane_label.text()
            else ""
        )

    def changeEvent(self, event: Any) -> None:  # noqa: N802
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._mark_plane()

    def set_watch(self, status: Any) -> None:
        """`status`: the watcher's WatchStatus (mode, reason, queue_depth, last_batch, progress), or None."""
        mode = getattr(status, "mode", "stopped") if status is not None else "stopped"
        reason = getattr(status, "reason", "") if status is not None else ""
        self.watch.set(
            STATE_COLORS.get(mode, "#999999"), f"\u00b7 {mode}", hollow=mode in ("stopped", "polling", "behind")
        )
        self.watch.setToolTip(reason or MODE_HELP.get(mode, ""))
        self.queue_label.setText(f"\u00b7 queue {getattr(status, 'queue_depth', 0) if status is not None else 0}")
        batch = batch_text(getattr(status, "last_batch", None) if status is not None else None)
        self.batch_label.setText(f"\u00b7 last batch {batch}" if batch else "")  # blank, never hidden (docstring)
        progress = getattr(status, "progress", None) if status is not None else None
        if progress:
            self.set_progress(*progress)
        elif not getattr(status, "busy", False):
            self.clear_progress()

    def set_progress(self, phase: str, done: int, total: int) -> None:
        self.progress.setVisible(True)
        self.progress.setMaximum(max(total, 0))
        self.progress.setValue(min(done, total) if total else 0)
        self.progress.setFormat(f"{PHASES.get(phase, phase)} %v/%m" if total else PHASES.get(phase, phase) + "\u2026")

    def clear_progress(self) -> None:
        self.progress.setVisible(False)


RECOUNT_AFTER_MS = 400
"""A burst of changes is recounted once, this long after its last batch (the count is a scan)."""
PLANE_LOOK_MS = 2000
"""How often the state plane is looked at (`StatePlaneJob`: a stat and an lstat while all is well),
so a state.db replaced or deleted while the window is idle is said within seconds."""


class StatusController(QObject):
    """The status bar's wiring: recount after changes (a burst once), follow the watcher's status."""

    def __init__(self, ctx: Any, bar: StatusBar) -> None:
        super().__init__(bar)
        self.ctx, self.bar = ctx, bar
        self.later = QTimer(self)
        self.later.setSingleShot(True)
        self.later.setInterval(RECOUNT_AFTER_MS)
        self.later.timeout.connect(self._recount_after_search)
        self._store: Any = None
        self._seen = 0  # how many of the store's notices the bar has shown
        self.plane_timer = QTimer(self)
        self.plane_timer.setInterval(PLANE_LOOK_MS)
        self.plane_timer.timeout.connect(self.look_at_plane)
        ctx.events.changed.connect(self._store_changed)
        # A notice can be added by any job's connection (a damaged index moved aside, a full disk,
        # a read-only state plane): look after every job, a list read on the GUI thread, no I/O.
        ctx.runner.busy_changed.connect(lambda kind, busy: self.show_notices() if not busy else None)

    def show_notices(self) -> None:
        """Show the store's notices the bar has not shown yet."""
        store = self._store
        if store is None:
            return
        notices = list(getattr(store, "notices", ()))
        fresh = notices[self._seen :]
        self._seen = len(notices)
        if fresh:
            self.bar.showMessage(" \u00b7 ".join(fresh), 15000)

    def look_at_plane(self) -> None:
        """Ask how the state plane is (a job: it stats the file); the bar shows it and any notice."""
        from memhtml_desktop.ops.jobs import StatePlaneJob

        if self._store is None or self.ctx.runner.is_busy(StatePlaneJob.kind):
            return
        job = StatePlaneJob().success(lambda plane: (self.bar.set_plane(plane), self.show_notices()))
        self.ctx.runner.run(job.failure(lambda msg: log.warning("the state plane could not be looked at: %s", msg)))

    def recount(self) -> None:
        from memhtml_desktop.ops.jobs import StatsJob

        job = StatsJob().success(self.bar.set_stats)
        self.ctx.runner.run(job.failure(lambda msg: log.warning("stats failed: %s", msg)))

    def _recount_after_search(self) -> None:
        """The list's search after a change comes first: the count is a scan of the store, and run
        beside a slow search (a loaded machine, 20,000 memories) it delayed the list by its length."""
        if self.ctx.runner.is_busy("search"):
            self.later.start()
        else:
            self.recount()

    def _store_changed(self, change: Any) -> None:
        if change.reopened:
            self.bar.set_store(change.store.root)
            self._store, self._seen = change.store, 0
            self.show_notices()
            self.recount()
            self.bar.set_plane(None)
            self.look_at_plane()
            self.plane_timer.start()
        else:
            self.show_notices()
            self.later.start()
