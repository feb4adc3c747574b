"""The watcher, seen from the GUI thread: its plain callbacks turned into queued Qt signals.

`memhtml_desktop.watch.watcher.Watcher` runs the start-up reconciliation and every index pass on
its own thread and calls `on_status` / `on_batch` from there. This bridge re-emits those calls as
signals of a QObject living in the GUI thread, so Qt queues them and every slot runs on the GUI
thread; nothing here blocks it except `stop()`, which joins the watcher at close.

With watching turned off (the `watch` setting), or if the watcher cannot be imported, the bridge
runs one reconciliation (`Store.index`) on the runner's writer pool instead and reports itself
"stopped", so the window still opens on an index in step with the disk.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Signal, Slot

from memhtml_desktop.ui import workers

log = logging.getLogger(__name__)



@dataclass(frozen=True)
class Stopped:
    """The status shown when no watcher runs (same fields the status bar reads from WatchStatus)."""

    mode: str = "stopped"
    reason: str = ""
    queue_depth: int = 0
    busy: bool = False
    progress: tuple[str, int, int] | None = None
    last_batch: Any = None


@dataclass(frozen=True)
class Reconciled:
    """A one-off reconciliation's result, shaped like the watcher's BatchSummary where it matters."""

    added: int
    changed: int
    moved: int
    removed: int
    failed: int
    ms: float
    kind: str = "reconcile"
    report: Any = None


def touched(summary: Any) -> bool:
    """Whether a batch changed anything a search could see."""
    report = getattr(summary, "report", None)
    if report is not None and getattr(report, "touched", None) is not None:
        return bool(report.touched)
    return any(getattr(summary, name, 0) for name in ("added", "changed", "moved", "removed", "failed"))


class WatchBridge(QObject):
    """Start/stop the watcher for one Store; `status_changed` and `batch_indexed` arrive on the GUI thread."""

    status_changed = Signal(object)  # WatchStatus (or Stopped)
    batch_indexed = Signal(object)  # BatchSummary (or Reconciled)
    failed = Signal(str)

    # emitted from the watcher's thread; connected (queued) to the public signals above
    _status_from_thread = Signal(object)
    _batch_from_thread = Signal(object)

    def __init__(self, store: Any, runner: workers.Runner, *, enabled: bool = True,
                 prepare: Callable[[Any], Any] | None = None, watcher_options: dict | None = None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.runner = runner
        self.enabled = enabled
        self.prepare = prepare
        self.watcher_options = dict(watcher_options or {})
        self.watcher: Any = None
        self._status: Any = Stopped(mode="starting", reason="comparing the store with the index", busy=True)
        self._status_from_thread.connect(self._on_status)
        self._batch_from_thread.connect(self._on_batch)
        self._stopped = False

    def status(self) -> Any:
        return self._status

    def start(self) -> None:
        """Seed (optional `prepare`, on the writer pool), then reconcile and watch."""
        if self.prepare is not None:
            prepare, self.prepare = self.prepare, None
            self.runner.submit("prepare", lambda cancelled, progress: prepare(self.store),
                               lambda _: self.start(), on_error=lambda msg: (self.failed.emit(msg), self.start()),
                               writer=True)
            return
        self._on_status(self._status)
        if self.enabled:
            from memhtml_desktop.watch.watcher import Watcher

            self.watcher = Watcher(self.store, on_status=self._status_from_watcher,
                                   on_batch=self._batch_from_thread.emit, **self.watcher_options)
            self.watcher.start()
            return
        self._reconcile_once()

    def _status_from_watcher(self, status: Any) -> None:
        """The watcher's thread: pass the status on to the GUI thread."""
        self._status_from_thread.emit(status)

    def _reconcile_once(self) -> None:
        started = time.perf_counter()

        def done(report: Any) -> None:
            ms = (time.perf_counter() - started) * 1000
            summary = Reconciled(report.added, report.changed, report.moved, report.removed, report.failed,
                                 round(ms, 1), report=report)
            self._on_status(Stopped(reason="watching is off", last_batch=summary))
            self._on_batch(summary)

        def progress(phase: str, done_: int, total: int) -> None:
            self._on_status(Stopped(mode="starting", reason="comparing the store with the index", busy=True,
                                    progress=(phase, done_, total)))

        self.runner.submit("reconcile", lambda cancelled, prog: workers.reconcile(self.store, cancelled, prog),
                           done, on_error=self._failed, on_progress=progress, writer=True)

    def reconcile_now(self) -> None:
        """File → Re-index: a full comparison (through the watcher when one runs)."""
        if self.watcher is not None:
            request = getattr(self.watcher, "request_reconcile", None)
            if callable(request):
                request("asked for")
                return
        self._reconcile_once()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop watching (joins the watcher's thread; call at close or before switching stores)."""
        self._stopped = True
        if self.watcher is not None:
            watcher, self.watcher = self.watcher, None
            try:
                watcher.stop(timeout)
            except Exception:
                log.warning("stopping the watcher failed", exc_info=True)

    def wait_idle(self, timeout: float) -> bool:
        """For batch tools and tests: wait until the watcher has caught up (blocks the caller)."""
        if self.watcher is None:
            return True
        return bool(self.watcher.wait_idle(timeout))

    @Slot(object)
    def _on_status(self, status: Any) -> None:
        if self._stopped and getattr(status, "mode", "") != "stopped":
            return
        self._status = status
        self.status_changed.emit(status)

    @Slot(object)
    def _on_batch(self, summary: Any) -> None:
        if not self._stopped:
            self.batch_indexed.emit(summary)

    def _failed(self, message: str) -> None:
        self._on_status(Stopped(reason=f"indexing failed: {message}"))
        self.failed.emit(message)
