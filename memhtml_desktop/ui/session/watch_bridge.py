"""The watcher, seen from the GUI thread: its plain callbacks turned into queued Qt signals.

`memhtml_desktop.watch.watcher.Watcher` runs the start-up reconciliation and every index pass on
its own thread and calls `on_status` / `on_batch` from there. This bridge re-emits those calls as
signals of a QObject living in the GUI thread, so Qt queues them and every slot runs on the GUI
thread; nothing here blocks it except `stop()`, which joins the watcher at close. Every batch
that touched the index is also announced as a `StoreChange` on the runner's `StoreEvents`, which
is how the panes hear about it.

With watching turned off (the `watch` setting) the bridge runs one reconciliation
(`ReconcileJob`) on the runner's writer pool instead and reports itself "stopped", so the window
still opens on an index in step with the disk. F5 asks the running watcher for a reconciliation
(`Watcher.request_reconcile`); only without a watcher does it run one itself.

The shapes are the watcher's own: `WatchStatus` and `BatchSummary` (watch/status.py), for a
one-off reconciliation too.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal, Slot

from memhtml_desktop.ops.changes import StoreChange
from memhtml_desktop.ops.jobs import CallJob, ReconcileJob
from memhtml_desktop.ui.session.runner import Runner
from memhtml_desktop.watch.status import STARTING, STOPPED, BatchSummary, WatchStatus

log = logging.getLogger(__name__)


def stopped(reason: str = "", **changes: Any) -> WatchStatus:
    """The status shown when no watcher runs."""
    return WatchStatus(mode=changes.pop("mode", STOPPED), reason=reason, **changes)


WATCH_NICE = 5
"""How much the window's watcher thread yields the CPU to the GUI thread (Linux niceness)."""


class WatchBridge(QObject):
    """Start/stop the watcher for one Store; `status_changed` and `batch_indexed` arrive on the GUI thread."""

    status_changed = Signal(object)  # WatchStatus
    batch_indexed = Signal(object)  # BatchSummary
    failed = Signal(str)

    # emitted from the watcher's thread; connected (queued) to the public signals above
    _status_from_thread = Signal(object)
    _batch_from_thread = Signal(object)

    def __init__(self, store: Any, runner: Runner, *, enabled: bool = True,
                 prepare: Callable[[Any], Any] | None = None, watcher_options: dict | None = None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.runner = runner
        self.enabled = enabled
        self.prepare = prepare
        # The window's watcher runs a little below the GUI thread (see watch.watcher.lower_thread_priority).
        self.watcher_options = {"thread_nice": WATCH_NICE, **dict(watcher_options or {})}
        self.watcher: Any = None
        self._status = stopped("comparing the store with the index", mode=STARTING, busy=True)
        self._status_from_thread.connect(self._on_status)
        self._batch_from_thread.connect(self._on_batch)
        self._stopped = False

    def status(self) -> WatchStatus:
        return self._status

    def start(self) -> None:
        """Seed (optional `prepare`, on the writer pool), then reconcile and watch."""
        if self.prepare is not None:
            prepare, self.prepare = self.prepare, None
            job = CallJob(kind="prepare", fn=prepare, writer=True).success(lambda _: self.start())
            self.runner.run(job.failure(lambda msg: (self.failed.emit(msg), self.start())), self.store)
            return
        self._on_status(self._status)
        if self.enabled:
            self._start_watcher()
            return
        self._reconcile_once()

    def _start_watcher(self) -> None:
        """The watcher runs in a child process of its own (ops/watch_process.py) when the runner
        runs heavy work in processes, so no index pass shares the GUI thread's GIL."""
        from memhtml_desktop.ops.backend import crossing

        if self.runner.processes and crossing(self.store.embedder) is not None:
            from memhtml_desktop.ops.watch_process import ProcessWatcher as Watcher
        else:
            from memhtml_desktop.watch.watcher import Watcher
        self.watcher = Watcher(self.store, on_status=self._status_from_thread.emit,
                               on_batch=self._batch_from_thread.emit, **self.watcher_options)
        self.watcher.start()

    def _reconcile_once(self) -> None:
        started = time.perf_counter()

        def done(report: Any) -> None:
            summary = BatchSummary.of(report, (time.perf_counter() - started) * 1000, paths=report.seen,
                                      kind="reconcile")
            self._on_status(stopped("watching is off", last_batch=summary))
            if not self._stopped:
                self.batch_indexed.emit(summary)

        def progress(phase: str, done_: int, total: int) -> None:
            self._on_status(stopped("comparing the store with the index", mode=STARTING, busy=True,
                                    progress=(phase, done_, total)))

        # the job announces its StoreChange itself (ReconcileJob.changes)
        self.runner.run(ReconcileJob().success(done).failure(self._failed).progress(progress), self.store)

    def reconcile_now(self) -> None:
        """File → Re-index: a full comparison, by the watcher when one runs (watching goes on)."""
        if self.watcher is not None and not self.watcher.running and not self._stopped:
            self.watcher.stop(1.0)  # its process died (the status said so): asking again starts another
            self._start_watcher()
            return
        if self.watcher is not None:
            self.watcher.request_reconcile("asked for")
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
    def _on_status(self, status: WatchStatus) -> None:
        if self._stopped and status.mode != STOPPED:
            return
        self._status = status
        self.status_changed.emit(status)
        if status.mode == STOPPED and self.watcher is not None and not self.watcher.running and not self._stopped:
            self.failed.emit(status.reason)  # its process died: the status bar says so, F5 starts another

    @Slot(object)
    def _on_batch(self, summary: BatchSummary) -> None:
        if self._stopped:
            return
        self.batch_indexed.emit(summary)
        self.runner.events.announce(StoreChange.of_batch(summary))

    def _failed(self, message: str) -> None:
        self._on_status(stopped(f"indexing failed: {message}"))
        self.failed.emit(message)
